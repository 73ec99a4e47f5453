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
echo "== cargo clippy (engine and mock model server, all targets)"
cargo clippy -p nerve -p nerve-mock-model --all-targets --locked -- -D warnings
echo "== cargo test (engine and mock model server)"
cargo test -p nerve -p nerve-mock-model --locked
