#!/usr/bin/env bash
set -euo pipefail
: "${VERCEL_TOKEN:?set VERCEL_TOKEN first}"
url=$(npx --yes vercel@39 deploy "$@" --yes --token "$VERCEL_TOKEN")
echo "deployed: $url"
id=$(basename "$url")
curl -fsS -H "Authorization: Bearer $VERCEL_TOKEN" "https://api.vercel.com/v13/deployments/$id" | jq -r '.readyState'
