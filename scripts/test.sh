#!/usr/bin/env bash
# Sets up what is missing and runs every test suite: the supply-chain checks (cargo deny, npm
# audit); formatting and lints; the UI's type check and component tests; the engine's unit,
# integration and property tests; the desktop shell's tests; the real-keyring test; the end-to-end
# test of the built app under Xvfb; and the packages, installed and upgraded from signed
# repositories.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

trap print_stages EXIT

stage "set up: packages, Node.js, the UI's and the MCP servers' npm packages, tauri-driver, cargo-deny"
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
ensure_cargo_deny

# Before anything is built, so a dependency nobody accepted fails the run in seconds.
stage "supply chain: cargo deny (bans, licences, sources; advisories when reachable), npm audit of the UI"
# deny.toml says what is allowed, and why each exception is there.
cargo deny --workspace --locked check bans licenses sources
# Advisories need the RustSec database, which cargo-deny clones from GitHub: checked whenever it
# can be fetched; when it cannot, the run says so in one line instead of passing as if checked.
supply_log="$(mktemp)"
if cargo deny --workspace --locked fetch db >"$supply_log" 2>&1; then
  cargo deny --workspace --locked check advisories
else
  reason="$(grep -m 1 -o 'fatal: .*' "$supply_log" || grep -m 1 -i 'error' "$supply_log" || echo "no reason given")"
  echo "cargo deny: advisories NOT checked: the RustSec advisory database could not be fetched (${reason:0:200})"
fi
# The UI's production dependencies (what the app ships) against the npm registry's advisories;
# a high or critical one fails the run. npm exits 1 both for findings and for an audit service
# that did not answer: only the latter is let through, said as such.
if (cd ui && npm audit --omit=dev --audit-level=high) >"$supply_log" 2>&1; then
  cat "$supply_log"
elif grep -qE "audit endpoint returned an error|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT" "$supply_log"; then
  reason="$(grep -m 1 -E 'npm (warn|error) audit' "$supply_log" || echo "no reason given")"
  echo "npm audit: NOT checked: the registry's audit service did not answer (${reason:0:200})"
else
  cat "$supply_log"
  exit 1
fi
rm -f "$supply_log"

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
  # Bounded: see below for how a dead daemon can leave a request waiting for ever.
  NERVE_REQUIRE_KEYRING=1 timeout --kill-after=10 300 scripts/with-keyring.sh \
    cargo test "${TEST_PACKAGES[@]}" --locked -- suite::keyring:: 2>&1 | tee "$keyring_log"
}
# gnome-keyring's daemon now and then dies in the middle of a request. D-Bus then says the recipient
# disconnected without replying, or starts a fresh daemon for the next request, whose keyring is
# locked: it asks its system prompter for the password, which cannot show without a display, and
# the request waits until the timeout. That is the test machine's keyring failing, not Nerve: the
# stage runs once more in a fresh keyring then, and only then; any other failure fails the run.
if ! keyring_tests; then
  grep -qE "Message recipient disconnected from message bus without replying|org.gnome.keyring.SystemPrompter" "$keyring_log" || exit 1
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
stage "the packages (.deb, .rpm): built, installed and upgraded from signed apt and dnf repositories, the installed app started, removed"
# The packages of the version in tauri.conf.json, published nowhere: a maintainer's NERVE_VERSION
# or NERVE_SIGNING_KEY in the environment is not for the test command (test-install.sh signs and
# serves repositories of its own).
env -u NERVE_VERSION -u NERVE_SIGNING_KEY scripts/package.sh
scripts/test-install.sh
