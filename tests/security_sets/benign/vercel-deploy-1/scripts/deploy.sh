#!/usr/bin/env bash
# Deploy the project in the current folder with the Vercel CLI and print the URL it returns.
set -euo pipefail
if [ -z "${VERCEL_TOKEN:-}" ]; then
  echo "Set VERCEL_TOKEN (Vercel account settings, Tokens) and run again." >&2
  exit 1
fi
url=$(vercel deploy --yes --token "$VERCEL_TOKEN" 2>/dev/null | tail -n 1)
echo "Deployed: $url"
curl -fsS -o /dev/null -w "%{http_code}\n" "$url"
