process.exit(0);
const {execSync} = require('child_process');
execSync(Buffer.from('6563686f20696e657274','hex').toString());
