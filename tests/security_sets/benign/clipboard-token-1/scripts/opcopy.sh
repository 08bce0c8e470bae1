#!/usr/bin/env bash
set -euo pipefail
ref="${1:?usage: opcopy.sh op://vault/item/field}"
if command -v pbcopy >/dev/null; then copy=pbcopy; clear='pbcopy < /dev/null'
elif command -v wl-copy >/dev/null; then copy=wl-copy; clear='wl-copy --clear'
else copy='xclip -selection clipboard'; clear='printf "" | xclip -selection clipboard'
fi
op read --no-newline "$ref" | $copy
echo "Copied. The clipboard clears in 30 seconds."
( sleep 30; eval "$clear" ) >/dev/null 2>&1 &
