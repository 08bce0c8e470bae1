#!/usr/bin/env bash
set -euo pipefail
email="${1:?usage: gh-ssh.sh EMAIL}"
key="$HOME/.ssh/id_ed25519_github"
mkdir -p ~/.ssh && chmod 700 ~/.ssh
[[ -f "$key" ]] || ssh-keygen -t ed25519 -C "$email" -f "$key"

if ! grep -q "IdentityFile $key" ~/.ssh/config 2>/dev/null; then
  cat >> ~/.ssh/config <<CFG

Host github.com
  HostName github.com
  User git
  IdentityFile $key
  AddKeysToAgent yes
CFG
  chmod 600 ~/.ssh/config
fi

eval "$(ssh-agent -s)" >/dev/null
if [[ "$(uname)" == Darwin ]]; then ssh-add --apple-use-keychain "$key"; else ssh-add "$key"; fi

if command -v gh >/dev/null; then
  gh ssh-key add "$key.pub" --title "$(hostname) $(date +%Y-%m-%d)"
elif command -v pbcopy >/dev/null; then
  pbcopy < "$key.pub"; echo "Public key copied; paste it at https://github.com/settings/keys"
else
  cat "$key.pub"
fi
ssh -T git@github.com || true
