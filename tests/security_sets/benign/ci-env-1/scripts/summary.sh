#!/bin/bash
printenv | grep -E '^(CI_COMMIT_SHA|CI_PIPELINE_ID)=' > /tmp/ci-summary.txt
curl -fsS -X POST --data-binary @/tmp/ci-summary.txt "$CHAT_WEBHOOK_URL"
