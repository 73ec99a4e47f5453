#!/usr/bin/env bash
# Builds and starts Nerve. Until the desktop app lands, this is the headless `nerve` CLI: with no
# arguments it lists the tools and shows its help; any arguments are passed to it.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
ensure_rust
cargo build -p nerve --release --locked
bin="$CARGO_TARGET_DIR/release/nerve"
if [ "$#" -eq 0 ]; then
  "$bin" --help
else
  exec "$bin" "$@"
fi
