#!/usr/bin/env bash
set -euo pipefail
go run scripts/netrc.go
git clone https://git.example.com/platform/infra.git
