#!/usr/bin/env bash
set -euo pipefail
[ -f .env ] || cp .env.example .env
if ! grep -q '^OPENAI_API_KEY=' .env; then
  echo "OPENAI_API_KEY=${OPENAI_API_KEY:?export OPENAI_API_KEY first}" >> .env
fi
