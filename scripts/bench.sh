#!/usr/bin/env bash
# Runs every benchmark; each prints ratios measured side by side in one run (the machine is
# noisy, so no figure is compared with a number from another run).
#
#   scripts/bench.sh           the full benchmarks, optimised (the figures the README quotes)
#   scripts/bench.sh --short   each one small and unoptimised, so they cannot rot (the test
#                              command runs this; its figures mean nothing)
#
# Last comes the desktop app's benchmark (tests/desktop_bench.rs): the real app under Xvfb through a
# long session (300 turns; --short: 12, unoptimised).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

ensure_rust
ensure_apt_packages ripgrep fd-find

benches=(pipeline streaming_turn real_tree deferred_tools speculative_classifier session_list
  outputs_tail prompt_cache print_startup long_session read_tail big_tree)

# The crate a benchmark belongs to: print_startup starts the `nerve` binary, so it is the CLI's; the
# others are the engine's.
bench_package() {
  if [ "$1" = print_startup ]; then echo nerve-cli; else echo nerve; fi
}

# The desktop app's benchmark: the built app under Xvfb, driven through tauri-driver and
# WebKitWebDriver, with a real keyring (as the end-to-end test is); $1 turns, then cargo's flags.
desktop_bench() {
  local turns="$1"
  shift
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
    npm --prefix ui run build
  fi
  echo "== bench: desktop_bench ($turns turns)"
  NERVE_BENCH_TURNS="$turns" timeout 1800 scripts/with-keyring.sh xvfb-run -a -s "-screen 0 1920x1200x24" \
    cargo test -p nerve-desktop --locked "$@" --test desktop_bench -- --ignored --nocapture --test-threads=1
}

if [ "${1:-}" = "--short" ]; then
  # The debug binary print_startup starts.
  cargo build -p nerve-cli --bin nerve --locked
  for bench in "${benches[@]}"; do
    echo "== bench (short): $bench"
    # A hang fails the run instead of stalling it.
    NERVE_BENCH_SCALE=50 NERVE_BENCH_TURNS=10 NERVE_BENCH_ROUNDS=3 \
      NERVE_BENCH_TREE="$PWD/crates/nerve/src" \
      timeout 600 cargo test -p "$(bench_package "$bench")" --locked --bench "$bench" -- --quiet
  done
  desktop_bench 12
  exit 0
fi

# The release binary print_startup starts.
cargo build --release -p nerve-cli --bin nerve --locked
for bench in "${benches[@]}"; do
  echo "== bench: $bench"
  cargo bench -p "$(bench_package "$bench")" --locked --bench "$bench"
done
desktop_bench 300 --release
