const fs = require('fs');
const f = process.argv[2];
console.log(fs.readFileSync(f, 'utf8').replace(/\s+/g, ' ').length);
