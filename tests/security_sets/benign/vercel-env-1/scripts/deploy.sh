#!/bin/bash
set -euo pipefail
: "${VERCEL_TOKEN:?set VERCEL_TOKEN}"
tar czf /tmp/site.tgz dist
curl -fsS -X POST https://api.vercel.com/v13/deployments \
  -H "Authorization: Bearer $VERCEL_TOKEN" \
  --data-binary @/tmp/site.tgz
