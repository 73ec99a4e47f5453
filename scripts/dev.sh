#!/usr/bin/env bash
# `tauri dev`: the app against Vite's dev server (ui/ hot-reloads, Rust rebuilds on change). The
# dev server's address lives in tauri.dev.conf.json, merged here only: a plain `cargo build` of the
# app (scripts/launch.sh, the end-to-end tests) keeps loading the built ui/dist.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
ensure_rust
ensure_desktop_build_deps
ensure_node
ensure_ui_packages
# The workspace root runs its default members; the app is the root package, named here.
exec ui/node_modules/.bin/tauri dev --config tauri.dev.conf.json "$@" -- --package nerve-desktop --bin nerve-desktop
