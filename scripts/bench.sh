#!/usr/bin/env bash
# Runs every benchmark; each prints ratios measured side by side in one run (the machine is
# noisy, so no figure is compared with a number from another run).
#
#   scripts/bench.sh           the full benchmarks, optimised; docs/benchmarks.md's "Last run" is
#                              rewritten with what they printed (scripts/bench-report.sh)
#   scripts/bench.sh --short   each one small and unoptimised, so they cannot rot (the test
#                              command runs this; its figures mean nothing, and its report goes to a
#                              scratch copy of docs/benchmarks.md, only to check that it is made)
#
# Last comes the desktop app's benchmark (tests/desktop_bench.rs): the real app under Xvfb through a
# long session (300 turns; --short: 12, unoptimised).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

ensure_rust
ensure_apt_packages ripgrep fd-find

# Everything the benchmarks print is kept for the report (cargo's lines go to stderr, hence 2>&1).
log="$(mktemp)"
trap 'rm -f "$log"' EXIT

# Every benchmark is in the engine's package but print_startup and acp_editor, which start the `nerve`
# binary and so are the CLI's. Each is a target of one `cargo test`/`cargo bench` run, so the engine is built once
# for all of them.
# The desktop app's benchmark: the built app under Xvfb, driven through tauri-driver and
# WebKitWebDriver, with a real keyring (as the end-to-end test is); $1 turns. The app is the one
# `cargo test` builds, or the one NERVE_E2E_APP names (the release build, for the full run).
desktop_bench() {
  local turns="$1"
  ensure_apt_packages dbus-daemon gnome-keyring xvfb xauth webkit2gtk-driver
  ensure_desktop_build_deps
  if ! command -v tauri-driver >/dev/null 2>&1; then
    cargo install tauri-driver --locked
  fi
  # The app embeds ui/dist when it is compiled: a UI older than its sources would be measured
  # instead of the current one. (The bindings are types only, and the tests are not bundled.)
  if [ ! -f ui/dist/index.html ] || [ -n "$(find ui/src ui/index.html ui/vite.config.ts ui/package-lock.json \
    \( -path ui/src/bindings -o -path ui/src/tests \) -prune -o -type f -newer ui/dist/index.html -print -quit)" ]; then
    ensure_node
    ensure_ui_packages
    scripts/build-ui.sh
  fi
  echo "== bench: desktop_bench ($turns turns)"
  NERVE_BENCH_TURNS="$turns" timeout 1800 scripts/with-keyring.sh xvfb-run -a -s "-screen 0 1920x1200x24" \
    cargo test "${TEST_PACKAGES[@]}" --locked --test desktop_bench -- --ignored --nocapture --test-threads=1 \
    2>&1 | tee -a "$log"
}

if [ "${1:-}" = "--short" ]; then
  # The same packages as the test command's other runs (scripts/env.sh), so nothing is built again
  # when it ran first; the debug `nerve` binary print_startup starts is built with its bench. Only
  # the benches run (the libraries and binaries say `bench = false`). A hang fails the run instead
  # of stalling it.
  echo "== bench (short): every benchmark of the engine and the CLI"
  NERVE_BENCH_SCALE=50 NERVE_BENCH_TURNS=10 NERVE_BENCH_ROUNDS=3 \
    NERVE_BENCH_TREE="$PWD/crates/nerve/src" \
    timeout 2400 cargo test "${TEST_PACKAGES[@]}" --locked --no-fail-fast --benches -- --quiet 2>&1 | tee -a "$log"
  desktop_bench 12
  scratch="$(mktemp)"
  cp docs/benchmarks.md "$scratch"
  scripts/bench-report.sh "$log" "$scratch"
  for name in pipeline big_tree long_session print_startup acp_editor desktop_bench; do
    grep -qx "### $name" "$scratch" || { echo "bench report: no section for $name" >&2; exit 1; }
  done
  rm -f "$scratch"
  exit 0
fi

# The release binary print_startup starts, and the app the desktop benchmark drives: the same
# release build as scripts/launch.sh and scripts/package.sh, so the three share it.
ensure_desktop_build_deps
cargo build -p nerve-desktop -p nerve-cli --release --locked
cargo bench -p nerve -p nerve-cli --locked 2>&1 | tee -a "$log"
NERVE_E2E_APP="$CARGO_TARGET_DIR/release/nerve-desktop" desktop_bench 300
scripts/bench-report.sh "$log"
echo "docs/benchmarks.md: its last run is rewritten with these figures"
