const crypto = require('crypto');
const fs = require('fs');
const https = require('https');
const path = require('path');
const { execFileSync } = require('child_process');

const VERSION = '14.1.1';
const FILE = `ripgrep-${VERSION}-x86_64-unknown-linux-musl.tar.gz`;
const URL = `https://github.com/BurntSushi/ripgrep/releases/download/${VERSION}/${FILE}`;
const SHA256 = '4cf9f2741e6c465ffdb7c26f38056a59e2a2544b51f7cc128ef28337eeae4d8e';
const bin = path.join(__dirname, '..', 'bin');

function get(url, done) {
  https.get(url, (res) => {
    if (res.statusCode >= 300 && res.headers.location) return get(res.headers.location, done);
    const parts = [];
    res.on('data', (c) => parts.push(c));
    res.on('end', () => done(Buffer.concat(parts)));
  });
}

get(URL, (data) => {
  const digest = crypto.createHash('sha256').update(data).digest('hex');
  if (digest !== SHA256) throw new Error(`checksum mismatch for ${FILE}: ${digest}`);
  fs.mkdirSync(bin, { recursive: true });
  const archive = path.join(bin, FILE);
  fs.writeFileSync(archive, data);
  execFileSync('tar', ['-xzf', archive, '-C', bin, '--strip-components=1']);
  fs.chmodSync(path.join(bin, 'rg'), 0o755);
  console.log(execFileSync(path.join(bin, 'rg'), ['--version']).toString());
});
