#!/usr/bin/env bash
# Rewrites the "Last run" part of docs/benchmarks.md from the output of a benchmark run: each
# benchmark's printed lines under its name, with the date and the machine. scripts/bench.sh calls it
# after a full run; the test command calls it on the short run's output into a scratch copy, so the
# report cannot rot.
#
#   scripts/bench-report.sh LOG [DOC]    (DOC: docs/benchmarks.md)
set -euo pipefail
log="$1"
doc="${2:-docs/benchmarks.md}"
begin='<!-- scripts/bench.sh writes from here -->'
end='<!-- scripts/bench.sh writes up to here -->'
grep -qxF "$begin" "$doc" && grep -qxF "$end" "$doc" || {
  echo "bench-report: $doc has no markers for the last run" >&2
  exit 1
}

# Each benchmark's output follows cargo's `Running benches/NAME.rs (...)` (or `tests/NAME.rs` for the
# desktop app's); cargo's own lines and libtest's are left out.
report="$(mktemp)"
trap 'rm -f "$report"' EXIT
{
  echo "$begin"
  echo
  echo "Run on $(date -u +%Y-%m-%d) on $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)" \
    "($(. /etc/os-release && echo "$PRETTY_NAME")), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)."
  awk '
    /^[[:space:]]+Running (benches|tests)\/[A-Za-z0-9_]+\.rs/ {
      name = $2; sub(/^(benches|tests)\//, "", name); sub(/\.rs$/, "", name)
      if (open) print "```"
      printf "\n### %s\n\n```text\n", name
      open = 1; next
    }
    /^[[:space:]]+Running / { if (open) print "```"; open = 0; next }
    !open { next }
    /^[[:space:]]*(Compiling|Finished|Blocking|Waiting|warning:|running [0-9]+ tests?$|test result:|test [^ ]+ \.\.\. )/ { next }
    /^[[:space:]]*$/ { next }
    # What criterion itself prints in a short run.
    /^(Gnuplot not found|Testing |Success$)/ { next }
    # What the session bus, the portals, GTK and WebKit print while the desktop app runs.
    /^(dbus-daemon\[|\(\/usr\/libexec\/|\([a-z-]+:[0-9]+\): |Ignoring invalid max threads|libEGL |MESA|SpiRegistry daemon|\[[WE]\]\[[0-9.]+\] pw\.)/ { next }
    { print }
    END { if (open) print "```" }
  ' "$log"
  echo
  echo "$end"
} > "$report"
if ! grep -q '^### ' "$report"; then
  echo "bench-report: no benchmark output found in $log" >&2
  exit 1
fi
# Everything before the first marker and after the second stays as written.
awk -v begin="$begin" -v end="$end" -v report="$report" '
  $0 == begin { while ((getline line < report) > 0) print line; skip = 1; next }
  $0 == end { skip = 0; next }
  !skip { print }
' "$doc" > "$doc.new"
mv "$doc.new" "$doc"
