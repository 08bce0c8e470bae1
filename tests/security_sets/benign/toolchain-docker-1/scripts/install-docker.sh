#!/bin/sh
# Docker's convenience script, downloaded first so it can be read and dry-run before it runs for real.
set -eu

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

curl -fsSL https://get.docker.com -o "$tmp/get-docker.sh"
sh "$tmp/get-docker.sh" --dry-run

printf 'Install Docker Engine now? [y/N] '
read -r answer
case "$answer" in
  y|Y) ;;
  *) echo "Nothing installed."; exit 0 ;;
esac

sudo sh "$tmp/get-docker.sh"
sudo usermod -aG docker "$USER"
sudo systemctl enable --now docker
echo "Done. Log out and back in, then try: docker run --rm hello-world"
