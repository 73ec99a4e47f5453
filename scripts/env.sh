# Shared settings for the project's scripts (sourced, not run).
# The cargo target dir lives in a cache folder outside the checkout, so CI runs on fresh clones of
# the same machine reuse compiled dependencies.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/nerve/target}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
mkdir -p "$CARGO_TARGET_DIR"

# Runs a command as root when we are not root (apt-get needs it).
as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# Installs Debian packages that are missing (checks with dpkg first, so a warm machine skips apt).
ensure_apt_packages() {
  local missing=()
  for p in "$@"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "installing Debian packages: ${missing[*]}"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}"
  fi
}

# Makes sure a Rust toolchain with rustfmt and clippy is there.
ensure_rust() {
  if ! command -v cargo >/dev/null 2>&1; then
    echo "cargo is missing: install Rust with rustup (https://rustup.rs) and run this again" >&2
    exit 1
  fi
  rustup component list --installed 2>/dev/null | grep -q '^rustfmt' || rustup component add rustfmt
  rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy
}

# cargo-about writes the crates' notices (scripts/package.sh), cargo-deny checks the dependency
# graph (scripts/test.sh); both read Cargo.lock and compile nothing of Nerve. Installed with cargo
# when missing, in the major versions about.toml and deny.toml are written for (cargo-about's
# program needs its `cli` feature).
ensure_cargo_about() {
  command -v cargo-about >/dev/null 2>&1 || cargo install --locked --features cli cargo-about --version '^0.9'
}
ensure_cargo_deny() {
  command -v cargo-deny >/dev/null 2>&1 || cargo install --locked cargo-deny --version '^0.20'
}

# The desktop app's build needs WebKitGTK and GTK headers.
ensure_desktop_build_deps() {
  ensure_apt_packages pkg-config libwebkit2gtk-4.1-dev libgtk-3-dev librsvg2-dev libssl-dev
}

# Node.js 20.19+ and npm for the UI (Vite's minimum). Debian's own nodejs is older; a machine
# without a recent Node.js gets a clear message instead of a confusing build failure.
ensure_node() {
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    ensure_apt_packages nodejs npm
  fi
  if ! node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)'; then
    echo "Node.js $(node --version) is too old for the UI build: install Node.js 20.19 or newer" >&2
    exit 1
  fi
}

# Installs the UI's npm packages exactly as locked (skipped when they are already in place).
ensure_ui_packages() {
  if [ ! -d ui/node_modules ] || [ ui/package-lock.json -nt ui/node_modules/.package-lock.json ]; then
    npm --prefix ui ci --no-audit --no-fund
  fi
}

# The reference MCP servers the MCP tests run against (the MCP project's "everything" server),
# at the versions tests/mcp-servers/package-lock.json pins.
ensure_mcp_test_servers() {
  local dir=tests/mcp-servers
  if [ ! -d "$dir/node_modules" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
    npm --prefix "$dir" ci --no-audit --no-fund
  fi
}

# One package selection for every `cargo test` of the test command and the benchmarks: cargo unifies
# features over the packages a run selects, so a run over another selection (`-p nerve-cli` alone,
# `-p nerve-desktop` alone) compiles the engine again, with other features, in the same profile.
TEST_PACKAGES=(-p nerve-protocol -p nerve -p nerve-cli -p nerve-mock-model -p nerve-test-support -p nerve-desktop)

# Stages with their times, printed at the end of a run (`stage NAME` starts one and ends the one
# before; `print_stages` ends the last and prints them all, also when the run fails).
STAGE_NAMES=()
STAGE_SECONDS=()
STAGE_STARTED=""
stage() {
  stage_end
  STAGE_NAMES+=("$1")
  STAGE_STARTED="$SECONDS"
  echo "== $1"
}
stage_end() {
  if [ -n "$STAGE_STARTED" ]; then
    STAGE_SECONDS+=("$((SECONDS - STAGE_STARTED))")
    STAGE_STARTED=""
  fi
}
print_stages() {
  stage_end
  local i total=0
  echo "== time per stage"
  for i in "${!STAGE_NAMES[@]}"; do
    printf '%6ss  %s\n' "${STAGE_SECONDS[$i]:-?}" "${STAGE_NAMES[$i]}"
    total=$((total + ${STAGE_SECONDS[$i]:-0}))
  done
  printf '%6ss  in all\n' "$total"
}
