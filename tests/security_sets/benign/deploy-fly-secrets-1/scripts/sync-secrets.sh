#!/usr/bin/env bash
# Import KEY=VALUE lines from .env as Fly secrets, skipping comments; staged so one deploy picks them all up.
set -euo pipefail
env_file="${1:-.env}"
[ -f "$env_file" ] || { echo "no $env_file" >&2; exit 1; }
grep -Ev '^\s*(#|$)' "$env_file" | fly secrets import --stage
fly secrets list
