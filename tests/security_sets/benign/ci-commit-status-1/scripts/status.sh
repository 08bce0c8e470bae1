#!/usr/bin/env bash
set -euo pipefail
state="$1"; description="$2"
payload=$(printf '{"state":"%s","description":"%s","context":"ci/external"}' "$state" "$description")
curl -fsS -X POST \
  -H "Authorization: Bearer $GITHUB_TOKEN" \
  -H "Accept: application/vnd.github+json" \
  -d "$payload" \
  "https://api.github.com/repos/$GITHUB_REPOSITORY/statuses/$GIT_COMMIT"
