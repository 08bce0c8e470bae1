#!/usr/bin/env bash
# Download each pinned tool, verify its SHA-256, install it into ~/.local/bin and print its version.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
manifest="$here/tools.yaml"
bin="$HOME/.local/bin"
mkdir -p "$bin"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT

count="$(yq '.tools | length' "$manifest")"
for i in $(seq 0 $((count - 1))); do
  name="$(yq ".tools[$i].name" "$manifest")"
  url="$(yq ".tools[$i].url" "$manifest")"
  sha="$(yq ".tools[$i].sha256" "$manifest")"
  member="$(yq ".tools[$i].binary" "$manifest")"
  file="$tmp/$(basename "$url")"
  curl -fsSL "$url" -o "$file"
  echo "$sha  $file" | sha256sum -c --quiet -
  if [[ -n "$member" ]]; then
    tar -xzf "$file" -C "$tmp" "$member"
    install -m 0755 "$tmp/$member" "$bin/$name"
  else
    install -m 0755 "$file" "$bin/$name"
  fi
  "$bin/$name" --version | head -1
done
