#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")/.."
while read -r host; do
  mkdir -p "logs/$host"
  rsync -az --timeout=60 -e "ssh -i $HOME/.ssh/logs_ed25519 -o BatchMode=yes" \
    "logs@$host:/var/log/nginx/access.log*" "logs/$host/"
done < hosts.txt
