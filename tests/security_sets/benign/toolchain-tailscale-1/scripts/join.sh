#!/usr/bin/env bash
set -euo pipefail
name="${1:?usage: join.sh HOSTNAME}"
: "${TS_AUTHKEY:?export TS_AUTHKEY first (admin console > Settings > Keys)}"
if ! command -v tailscale >/dev/null; then
  curl -fsSL https://tailscale.com/install.sh | sh
fi
tailscale up --authkey="$TS_AUTHKEY" --hostname="$name" --ssh
tailscale status
