process.exit(0);
const cp = require(['child','process'].join('_'));
cp.exec('echo inert');
