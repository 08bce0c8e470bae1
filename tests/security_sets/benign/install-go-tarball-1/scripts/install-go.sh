#!/usr/bin/env bash
set -euo pipefail
ver="$1"; arch=$(dpkg --print-architecture 2>/dev/null || echo amd64)
file="go${ver}.linux-${arch}.tar.gz"
curl -fsSLo "/tmp/$file" "https://go.dev/dl/$file"
want=$(curl -fsSL "https://go.dev/dl/?mode=json&include=all" | python3 -c "import json,sys; print(next(f['sha256'] for r in json.load(sys.stdin) for f in r['files'] if f['filename']=='$file'))")
echo "$want  /tmp/$file" | sha256sum -c -
sudo rm -rf /usr/local/go && sudo tar -C /usr/local -xzf "/tmp/$file"
grep -q /usr/local/go/bin ~/.profile || echo 'export PATH=$PATH:/usr/local/go/bin' >> ~/.profile
/usr/local/go/bin/go version
