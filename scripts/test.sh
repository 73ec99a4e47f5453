#!/usr/bin/env bash
# Sets up what is missing and runs every test suite: formatting and lints; the UI's type check and
# component tests; the engine's unit, integration and property tests; the desktop shell's tests;
# the real-keyring test; and the end-to-end test of the built app under Xvfb.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

trap print_stages EXIT

stage "set up: packages, Node.js, the UI's and the MCP servers' npm packages, tauri-driver"
ensure_rust
# bash runs hooks and test scripts; git for the engine's git-aware tests; ripgrep so Grep's
# results are checked against `rg -l`.
ensure_apt_packages bash git ripgrep
# A private D-Bus session (dbus-run-session) with gnome-keyring's Secret Service, for the tests of
# the API key in a real OS keyring.
ensure_apt_packages dbus-daemon gnome-keyring
ensure_desktop_build_deps
# The end-to-end test: a virtual display, WebKitGTK's WebDriver, and a notification server whose
# notices the test clicks.
ensure_apt_packages xvfb xauth webkit2gtk-driver dunst
ensure_node
ensure_ui_packages
ensure_mcp_test_servers
if ! command -v tauri-driver >/dev/null 2>&1; then
  cargo install tauri-driver --locked
fi

stage "UI: type check, component tests, build"
npm --prefix ui run check
npm --prefix ui test
scripts/build-ui.sh

stage "cargo fmt --check"
cargo fmt --all -- --check
stage "cargo clippy (protocol, engine, CLI, mock model server, test support, desktop shell; all targets)"
cargo clippy "${TEST_PACKAGES[@]}" --all-targets --locked -- -D warnings
# Everything the tests, the short benchmarks and the end-to-end test run is built here, once: each
# later `cargo test` selects the same packages, so it finds the engine compiled with the same
# features and builds nothing again.
stage "cargo build: every test and benchmark, unoptimised"
cargo test "${TEST_PACKAGES[@]}" --all-targets --locked --no-run
# One run for all of them: the CLI's tests use the engine's test MCP server, which this run builds.
stage "cargo test (protocol, engine, CLI, mock model server, test support, desktop shell)"
# The sandbox tests fail, rather than pass having checked nothing, where the sandbox is missing.
# So does Grep's comparison with ripgrep (installed above) where rg is missing.
NERVE_REQUIRE_SANDBOX=1 NERVE_REQUIRE_RG=1 cargo test "${TEST_PACKAGES[@]}" --locked --no-fail-fast
stage "every benchmark, small and unoptimised (so none rots; the figures mean nothing here)"
scripts/bench.sh --short
stage "keyring test against a real Secret Service (must not skip)"
# No target filter (`--test all` would select another set of targets, whose dependencies' features
# differ, and build the engine again): the name filter picks the keyring tests out of every binary.
keyring_log="$(mktemp)"
keyring_tests() {
  NERVE_REQUIRE_KEYRING=1 scripts/with-keyring.sh cargo test "${TEST_PACKAGES[@]}" --locked -- suite::keyring:: 2>&1 |
    tee "$keyring_log"
}
# gnome-keyring's daemon now and then dies in the middle of a request (D-Bus then says the recipient
# disconnected without replying). That is the test machine's keyring failing, not Nerve: the stage
# runs once more in a fresh keyring then, and only then; any other failure fails the run.
if ! keyring_tests; then
  grep -q "Message recipient disconnected from message bus without replying" "$keyring_log" || exit 1
  echo "== the Secret Service daemon died mid-request: the keyring tests run once more in a fresh keyring"
  keyring_tests
fi
# A filter that matched nothing would pass silently.
grep -qE "test result: ok\. [1-9][0-9]* passed" "$keyring_log" || { echo "the keyring tests did not run" >&2; exit 1; }
rm -f "$keyring_log"
stage "desktop app end to end (Xvfb, tauri-driver, WebKitWebDriver, real keyring, mock model)"
scripts/with-keyring.sh xvfb-run -a -s "-screen 0 1920x1200x24" \
  cargo test "${TEST_PACKAGES[@]}" --locked --test desktop_e2e -- --ignored --nocapture --test-threads=1 \
  --skip the_installed_app
stage "the packages (.deb, .rpm): built, installed with dpkg, the installed app started, removed"
scripts/package.sh
scripts/test-install.sh
