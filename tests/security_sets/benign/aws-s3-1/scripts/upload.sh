#!/bin/bash
export AWS_SHARED_CREDENTIALS_FILE="$HOME/.aws/credentials"
aws s3 cp dist/app.zip "s3://$BUCKET/releases/app.zip"
curl -fsS -X POST -d '{"text":"uploaded"}' "$SLACK_WEBHOOK_URL"
