#!/usr/bin/env bash
set -euo pipefail
db="$1"; dest="$2"
stamp=$(date -u +%Y-%m-%dT%H%M)
pg_dump --no-owner --format=plain "$db" | gzip -9 | aws s3 cp - "$dest/$db-$stamp.sql.gz" --sse AES256
aws s3 ls "$dest/" | tail -5
