#!/usr/bin/env bash
set -euo pipefail
out="acme-support"
rm -rf "$out" && mkdir -p "$out"
acmectl version > "$out/version.txt" 2>&1 || true
uname -a > "$out/system.txt"
# Only ACME_* settings, and none whose name says it holds a secret.
env | grep '^ACME_' | grep -viE 'KEY|TOKEN|SECRET|PASS|AUTH' > "$out/env.txt" || true
sed -E 's/^(api_key[[:space:]]*=).*/\1 ***removed***/' ~/.config/acme/config.toml > "$out/config.toml" 2>/dev/null || true
tail -n 2000 ~/.local/state/acme/acme.log > "$out/acme.log" 2>/dev/null || true
tar -czf "$out.tar.gz" "$out"
tar -tzf "$out.tar.gz"

if [[ "${1:-}" == "--upload" ]]; then
  ticket="${2:?usage: bundle.sh --upload TICKET_ID}"
  : "${ACME_SUPPORT_TOKEN:?set ACME_SUPPORT_TOKEN}"
  curl -fsS -H "Authorization: Bearer $ACME_SUPPORT_TOKEN" -F "file=@$out.tar.gz" \
    "https://support.acme-cli.dev/api/tickets/$ticket/files"
  echo "uploaded to ticket $ticket"
fi
