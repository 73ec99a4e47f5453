#!/usr/bin/env bash
# Sets up what is missing and runs every test suite: formatting, lints, the engine's unit,
# integration and property tests.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

ensure_rust
# bash runs hooks and test scripts; git for the engine's git-aware tests; ripgrep so Grep's
# results are checked against `rg -l`.
ensure_apt_packages bash git ripgrep

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy (engine, all targets)"
cargo clippy -p nerve --all-targets --locked -- -D warnings
echo "== cargo test (engine)"
cargo test -p nerve --locked
