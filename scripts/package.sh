#!/usr/bin/env bash
# Builds the desktop app's packages, a .deb and an .rpm, with the Tauri CLI from ui/'s locked dev
# dependencies (no global install). Both install the app (`nerve-desktop`, a desktop entry, the icons
# of icons/ at every size) and the headless `nerve` CLI in /usr/bin. The AppImage is left out: its
# bundler downloads tools from the internet.
#
# The packages land in $CARGO_TARGET_DIR/release/bundle/{deb,rpm}/.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
ensure_rust
ensure_desktop_build_deps
ensure_node
ensure_ui_packages
scripts/build-ui.sh
# The same build as scripts/launch.sh, so the two share their artifacts.
cargo build -p nerve-desktop -p nerve-cli --release --locked
mkdir -p .bundle
cp "$CARGO_TARGET_DIR/release/nerve" .bundle/nerve
# `tauri bundle` packages the binaries just built (it does not build again).
ui/node_modules/.bin/tauri bundle --ci --bundles deb,rpm
ls -l "$CARGO_TARGET_DIR"/release/bundle/deb/*.deb "$CARGO_TARGET_DIR"/release/bundle/rpm/*.rpm
