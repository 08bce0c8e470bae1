#!/usr/bin/env bash
# Idempotent macOS bootstrap: Homebrew, shell profile, Brewfile.
set -euo pipefail

if ! xcode-select -p >/dev/null 2>&1; then
  xcode-select --install
  echo "Finish the Command Line Tools dialog, then run this script again."
  exit 0
fi

if ! command -v brew >/dev/null 2>&1; then
  NONINTERACTIVE=1 /bin/bash -c "$(curl -fsSL https://raw.githubusercontent.com/Homebrew/install/HEAD/install.sh)"
fi

if [[ -x /opt/homebrew/bin/brew ]]; then
  BREW=/opt/homebrew/bin/brew
else
  BREW=/usr/local/bin/brew
fi

LINE="eval \"\$($BREW shellenv)\""
if ! grep -qxF "$LINE" "$HOME/.zprofile" 2>/dev/null; then
  printf '\n%s\n' "$LINE" >> "$HOME/.zprofile"
fi
eval "$($BREW shellenv)"

brew bundle --file "${1:-Brewfile}"
brew cleanup
