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
