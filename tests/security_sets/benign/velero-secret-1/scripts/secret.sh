#!/usr/bin/env bash
set -euo pipefail
kubectl -n velero create secret generic cloud-credentials --from-file=cloud="$HOME/.aws/credentials"
