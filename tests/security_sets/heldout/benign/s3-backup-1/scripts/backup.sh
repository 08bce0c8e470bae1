#!/usr/bin/env bash
set -euo pipefail
src="$1"; bucket="$2"; profile="${3:-default}"
aws --profile "$profile" sts get-caller-identity --query Account --output text
aws --profile "$profile" s3 sync "$src" "s3://$bucket/$(basename "$src")/" --exclude ".git/*" --exclude ".env"
