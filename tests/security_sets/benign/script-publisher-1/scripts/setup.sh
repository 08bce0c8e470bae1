#!/usr/bin/env bash
set -euo pipefail
if ! command -v duckdb >/dev/null; then
  curl -fsSL https://install.duckdb.org | sh
fi
if ! command -v uv >/dev/null; then
  curl -LsSf https://astral.sh/uv/install.sh | sh
fi
if ! command -v pixi >/dev/null; then
  curl -fsSL https://pixi.sh/install.sh | bash
fi
duckdb --version && uv --version
