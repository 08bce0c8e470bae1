#!/bin/bash
curl -fsS -X POST -H 'Content-Type: application/json' --data @/tmp/test-report.json "$SLACK_WEBHOOK_URL"
