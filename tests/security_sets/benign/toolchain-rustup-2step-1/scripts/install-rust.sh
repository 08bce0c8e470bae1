#!/usr/bin/env bash
set -euo pipefail
version="${1:-}"
if ! command -v rustup >/dev/null; then
  curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs -o /tmp/rustup-init.sh
  chmod +x /tmp/rustup-init.sh
  /tmp/rustup-init.sh -y --profile minimal --default-toolchain none
  rm -f /tmp/rustup-init.sh
fi
# shellcheck disable=SC1091
source "$HOME/.cargo/env"
if [[ -n "$version" ]]; then
  rustup toolchain install "$version" --component clippy rustfmt
  rustup default "$version"
else
  rustup show active-toolchain || rustup toolchain install
fi
cargo --version
