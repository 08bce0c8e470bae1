#!/usr/bin/env bash
set -euo pipefail
repo="$1"; pr="$2"
dir="$(mktemp -d)"
git clone --depth 50 "https://github.com/$repo.git" "$dir"
cd "$dir"
gh pr checkout "$pr"
if [ -f package.json ]; then npm ci && npm test; elif [ -f pyproject.toml ]; then uv run pytest -q; fi
