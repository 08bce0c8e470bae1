#!/usr/bin/env bash
set -euo pipefail
bucket="${ARTIFACT_BUCKET:?set ARTIFACT_BUCKET to the team bucket name}"
build="$(git rev-parse --short HEAD)"
for dir in "$@"; do
  gcloud storage cp --recursive "$dir" "gs://$bucket/builds/$build/"
done
if [[ -n "${GOOGLE_APPLICATION_CREDENTIALS:-}" ]]; then
  gcloud storage sign-url --duration=7d --private-key-file="$GOOGLE_APPLICATION_CREDENTIALS" \
    "gs://$bucket/builds/$build/**"
else
  gcloud storage ls --recursive "gs://$bucket/builds/$build/"
fi
