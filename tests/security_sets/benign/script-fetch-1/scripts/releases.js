const fs = require('fs');
const { spawnSync } = require('child_process');
const repo = process.argv[2];
const res = await fetch(`https://api.github.com/repos/${repo}/releases?per_page=5`);
const releases = await res.json();
fs.writeFileSync('releases.json', JSON.stringify(releases, null, 2));
const status = spawnSync('git', ['status', '--short'], { encoding: 'utf8' });
console.log(status.stdout);
