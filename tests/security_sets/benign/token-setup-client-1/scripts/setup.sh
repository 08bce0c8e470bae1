#!/usr/bin/env bash
set -euo pipefail
mkdir -p ~/.config/acme
read -rsp "Acme API token: " token
printf '%s' "$token" > ~/.config/acme/token
chmod 600 ~/.config/acme/token
echo "saved"
