#!/usr/bin/env bash
set -euo pipefail
marker='# >>> shell-tools >>>'
for shell in bash zsh; do
  rc="$HOME/.${shell}rc"
  touch "$rc"
  if grep -qF "$marker" "$rc"; then
    echo "$rc already set up"
    continue
  fi
  cp "$rc" "$rc.bak.$(date +%s)"
  cat >> "$rc" <<BLOCK

$marker
export PATH="\$HOME/.local/bin:\$HOME/.cargo/bin:\$HOME/go/bin:\$PATH"
command -v starship >/dev/null && eval "\$(starship init $shell)"
command -v zoxide >/dev/null && eval "\$(zoxide init $shell)"
command -v direnv >/dev/null && eval "\$(direnv hook $shell)"
# <<< shell-tools <<<
BLOCK
  echo "updated $rc (backup beside it)"
done
