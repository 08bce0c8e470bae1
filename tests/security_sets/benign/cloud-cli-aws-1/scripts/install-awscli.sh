#!/usr/bin/env bash
# AWS CLI v2 from AWS's own download host, as in the AWS CLI user guide.
set -euo pipefail
arch="$(uname -m)"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
curl -fsSL "https://awscli.amazonaws.com/awscli-exe-linux-${arch}.zip" -o awscliv2.zip
unzip -q awscliv2.zip
if command -v aws >/dev/null; then
  sudo ./aws/install --bin-dir /usr/local/bin --install-dir /usr/local/aws-cli --update
else
  sudo ./aws/install
fi
aws --version
