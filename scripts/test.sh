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
# A private D-Bus session (dbus-run-session) with gnome-keyring's Secret Service, for the test of
# the API key in a real OS keyring.
ensure_apt_packages dbus-daemon gnome-keyring

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy (engine and mock model server, all targets)"
cargo clippy -p nerve -p nerve-mock-model --all-targets --locked -- -D warnings
echo "== cargo test (engine and mock model server)"
cargo test -p nerve -p nerve-mock-model --locked
echo "== keyring test against a real Secret Service (must not skip)"
NERVE_REQUIRE_KEYRING=1 scripts/with-keyring.sh cargo test -p nerve --locked --test keyring
