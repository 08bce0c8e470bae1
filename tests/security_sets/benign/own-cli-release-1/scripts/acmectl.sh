#!/usr/bin/env bash
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
platform="$(uname -s | tr '[:upper:]' '[:lower:]')-$(uname -m | sed 's/x86_64/amd64/;s/aarch64/arm64/')"
version="$(jq -r .version "$here/versions.json")"
bin="$HOME/.cache/acmectl/$version/acmectl"
if [[ ! -x "$bin" ]]; then
  mkdir -p "$(dirname "$bin")"
  url="$(jq -r --arg p "$platform" '.[$p].url' "$here/versions.json")"
  sha="$(jq -r --arg p "$platform" '.[$p].sha256' "$here/versions.json")"
  curl -fsSL "$url" -o "$bin.tmp"
  echo "$sha  $bin.tmp" | sha256sum -c --quiet -
  mv "$bin.tmp" "$bin" && chmod +x "$bin"
fi
exec "$bin" "$@"
