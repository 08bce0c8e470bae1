#!/usr/bin/env bash
set -euo pipefail
repo=ahmetb/kubectx
os="$(uname -s | tr '[:upper:]' '[:lower:]')"
arch="$(uname -m)"; [[ "$arch" == aarch64 ]] && arch=arm64
tag="$(curl -fsSL "https://api.github.com/repos/$repo/releases/latest" | python3 -c 'import json,sys; print(json.load(sys.stdin)["tag_name"])')"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
for tool in kubectx kubens; do
  file="${tool}_${tag}_${os}_${arch}.tar.gz"
  curl -fsSLO "https://github.com/$repo/releases/download/$tag/$file"
done
curl -fsSLO "https://github.com/$repo/releases/download/$tag/checksums.txt"
sha256sum --ignore-missing -c checksums.txt
mkdir -p "$HOME/.local/bin"
for tool in kubectx kubens; do
  tar -xzf "${tool}_${tag}_${os}_${arch}.tar.gz" "$tool"
  install -m 0755 "$tool" "$HOME/.local/bin/$tool"
done
"$HOME/.local/bin/kubectx" --version 2>/dev/null || echo "installed $tag"
