#!/usr/bin/env bash
# Sets up what is missing, builds the desktop app (UI embedded) and starts it. Arguments are
# passed to the app. The headless CLI is built too: `$CARGO_TARGET_DIR/release/nerve --help`.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
ensure_rust
ensure_desktop_build_deps
ensure_node
ensure_ui_packages
scripts/build-ui.sh
cargo build -p nerve-desktop -p nerve-cli --release --locked
exec "$CARGO_TARGET_DIR/release/nerve-desktop" "$@"
