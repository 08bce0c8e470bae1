#!/usr/bin/env bash
set -euo pipefail
lang="${1:?usage: translate.sh TARGET_LANG TEXT | -f FILE}"; shift
key="${DEEPL_AUTH_KEY:-$(cat "$HOME/.config/deepl-skill/key")}"
if [[ "${1:-}" == "-f" ]]; then text="$(cat "$2")"; else text="$*"; fi
host=api-free.deepl.com; [[ "$key" == *:fx ]] || host=api.deepl.com
curl -fsS "https://$host/v2/translate" \
  -H "Authorization: DeepL-Auth-Key $key" \
  --data-urlencode "text=$text" -d "target_lang=$lang" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["translations"][0]["text"])'
