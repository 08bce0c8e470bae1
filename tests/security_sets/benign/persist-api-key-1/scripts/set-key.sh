#!/usr/bin/env bash
set -euo pipefail
dir="$HOME/.config/deepl-skill"
mkdir -p "$dir" && chmod 700 "$dir"
if [[ -n "${DEEPL_AUTH_KEY:-}" ]]; then
  key="$DEEPL_AUTH_KEY"
else
  read -rs -p "DeepL API key: " key; echo
fi
umask 077
printf '%s' "$key" > "$dir/key"
echo "Saved to $dir/key"
