#!/usr/bin/env bash
# Runs every benchmark; each prints ratios measured side by side in one run (the machine is
# noisy, so no figure is compared with a number from another run).
#
#   scripts/bench.sh           the full benchmarks, optimised (the figures the README quotes)
#   scripts/bench.sh --short   each one small and unoptimised, so they cannot rot (the test
#                              command runs this; its figures mean nothing)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

ensure_rust
ensure_apt_packages ripgrep

benches=(pipeline streaming_turn grep_vs_rg deferred_tools speculative_classifier session_list
  outputs_tail prompt_cache print_startup long_session)

if [ "${1:-}" = "--short" ]; then
  # The debug binary print_startup starts.
  cargo build -p nerve --bin nerve --locked
  for bench in "${benches[@]}"; do
    echo "== bench (short): $bench"
    # A hang fails the run instead of stalling it.
    NERVE_BENCH_SCALE=50 NERVE_BENCH_TURNS=10 NERVE_BENCH_ROUNDS=3 \
      NERVE_BENCH_TREE="$PWD/crates/nerve/src" \
      timeout 600 cargo test -p nerve --locked --bench "$bench" -- --quiet
  done
  exit 0
fi

# The release binary print_startup starts.
cargo build --release -p nerve --bin nerve --locked
for bench in "${benches[@]}"; do
  echo "== bench: $bench"
  cargo bench -p nerve --locked --bench "$bench"
done
