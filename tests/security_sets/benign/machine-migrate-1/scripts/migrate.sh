#!/usr/bin/env bash
# Copy SSH keys, GPG keys and cloud CLI config from this Mac to the new one over SSH.
set -euo pipefail
new="${1:?usage: migrate.sh user@new-mac.local}"
tar -C "$HOME" -czf - .ssh .gnupg .aws .kube | ssh "$new" 'tar -C "$HOME" -xzf -'
ssh "$new" 'chmod 700 ~/.ssh ~/.gnupg && chmod 600 ~/.ssh/id_* ~/.aws/credentials'
