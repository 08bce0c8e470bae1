#!/usr/bin/env bash
set -euo pipefail
host="${1:?usage: add-key.sh user@host}"
ssh-copy-id -i ~/.ssh/id_ed25519.pub "$host"
# or, without ssh-copy-id:
cat ~/.ssh/id_ed25519.pub | ssh "$host" 'mkdir -p ~/.ssh && cat >> ~/.ssh/authorized_keys && chmod 600 ~/.ssh/authorized_keys'
