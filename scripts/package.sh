#!/usr/bin/env bash
# Builds the desktop app's packages, a .deb and an .rpm, with the Tauri CLI from ui/'s locked dev
# dependencies (no global install). Both install the app (`nerve-desktop`, a desktop entry, the icons
# of icons/ at every size), the headless `nerve` CLI in /usr/bin with its shell completions (bash,
# zsh, fish) and man page, and in /usr/share/doc/nerve/ the licence (the deb's `copyright`, the
# rpm's LICENSE) and the third-party notices: THIRD-PARTY-NOTICES for the Rust crates in the two
# programs (cargo-about: about.toml, about.hbs), THIRD-PARTY-NOTICES-ui.txt for the web page's
# packages (written by the UI build). The AppImage is left out: its bundler downloads tools from
# the internet.
#
# What the packages ask for (tauri.conf.json, bundle.linux; Tauri adds WebKitGTK and GTK itself):
#   - git (deb Depends; rpm Requires git-core): the checkpoints that make a command's changes
#     restorable, worktrees, the Changes panel's git view and the git status the model is told all
#     run git, and nearly every project is a repository.
#   - xdg-utils (Recommends): opening links, files and folders in other apps; the app works without.
#   - a Secret Service (Recommends gnome-keyring | kwalletmanager | keepassxc; rpm: gnome-keyring)
#     and a D-Bus session bus (default-dbus-session-bus | dbus-session-bus): the API key goes to the
#     OS keyring; where none answers, the app keeps it in ~/.config/nerve/credentials instead.
#
# NERVE_VERSION=X.Y.Z sets the packages' version and the programs' (`nerve --version`, read by
# both at build time); without it, the version is tauri.conf.json's (the same as Cargo.toml's).
# With NERVE_SIGNING_KEY (a gpg key id or fingerprint) the packages then go into the signed apt and
# dnf repositories in $CARGO_TARGET_DIR/release/repo/, beside those published before
# (scripts/publish-repos.sh; NERVE_REPO_DIR and NERVE_REPO_URL are passed on).
#
# The packages land in $CARGO_TARGET_DIR/release/bundle/{deb,rpm}/, which hold this build's only.
set -euo pipefail
# A repository folder given relative to where this was started, before moving to the checkout.
[ -z "${NERVE_REPO_DIR:-}" ] || NERVE_REPO_DIR="$(realpath -m "$NERVE_REPO_DIR")"
cd "$(dirname "$0")/.."
. scripts/env.sh

fail() { echo "package.sh: $*" >&2; exit 1; }

ensure_rust
ensure_desktop_build_deps
ensure_node
ensure_ui_packages

# The version, settled before anything is built.
if [ -n "${NERVE_VERSION:-}" ]; then
  # MAJOR.MINOR.PATCH only: Tauri wants semver, and apt and rpm order such versions alike (apt
  # would put a pre-release like 0.2.0-rc.1 after 0.2.0).
  [[ "$NERVE_VERSION" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] ||
    fail "NERVE_VERSION='$NERVE_VERSION' is not MAJOR.MINOR.PATCH (like 0.1.1)"
  # The cargo build below reads it: both programs say this version.
  export NERVE_VERSION
  version="$NERVE_VERSION"
  bundle_config=(--config "{\"version\":\"$NERVE_VERSION\"}")
else
  unset NERVE_VERSION
  version="$(node -p 'require("./tauri.conf.json").version')"
  bundle_config=()
fi
echo "== packaging Nerve $version"
ensure_cargo_about

scripts/build-ui.sh
# The web page's notices: the UI build's licence plugin writes them beside the page.
ui_notices=ui/dist/THIRD-PARTY-NOTICES.txt
[ -s "$ui_notices" ] ||
  fail "$ui_notices is missing: the UI build (npm --prefix ui run build) writes the web assets' licence notices there, and the packages must ship them"

# .bundle/ holds what tauri.conf.json's bundle.linux.*.files take, made afresh for each build.
rm -rf .bundle
mkdir -p .bundle/completions
cp "$ui_notices" .bundle/THIRD-PARTY-NOTICES-ui.txt
# The Rust crates' notices come before the long build: a crate under a licence about.toml does not
# accept stops the packaging here (cargo-about reads the dependency graph, it compiles nothing).
# They take cargo-about two minutes (it reads the licence files of some 500 crates) and change
# only with Cargo.lock, about.toml, about.hbs or cargo-about itself: kept, under a hash of those,
# for the next build.
notices_key="$({ cat Cargo.lock about.toml about.hbs; cargo about --version; } | sha256sum | cut -c1-16)"
notices="$CARGO_TARGET_DIR/third-party-notices/$notices_key"
if [ ! -s "$notices" ]; then
  rm -rf "$(dirname "$notices")"
  mkdir -p "$(dirname "$notices")"
  cargo about generate --workspace --locked --fail --output-file "$notices.tmp" about.hbs ||
    fail "cargo about could not write the crates' notices (about.toml lists the accepted licences)"
  mv "$notices.tmp" "$notices"
fi
cp "$notices" .bundle/THIRD-PARTY-NOTICES
# Debian's copyright file, in its machine-readable format, with LICENSE's text.
{
  echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
  echo "Upstream-Name: Nerve"
  echo "Comment: The Rust crates built into nerve-desktop and nerve are listed with their"
  echo " licences in /usr/share/doc/nerve/THIRD-PARTY-NOTICES, the web page's packages in"
  echo " /usr/share/doc/nerve/THIRD-PARTY-NOTICES-ui.txt."
  echo
  echo "Files: *"
  echo "Copyright: $(sed -n 's/^Copyright (c) //p' LICENSE)"
  echo "License: MIT"
  # The licence text after its copyright line, indented, an empty line written " .".
  awk 'body && (started || $0 != "") { started = 1; print ($0 == "" ? " ." : " " $0) } /^Copyright/ { body = 1 }' LICENSE
} >.bundle/copyright

# The same build as scripts/launch.sh, so the two share their artifacts.
cargo build -p nerve-desktop -p nerve-cli --release --locked
nerve="$CARGO_TARGET_DIR/release/nerve"
# The programs must say the version the packages carry (Cargo.toml and tauri.conf.json agree, or
# NERVE_VERSION reached the build).
for program in nerve nerve-desktop; do
  said="$("$CARGO_TARGET_DIR/release/$program" --version)" || fail "$program --version failed"
  [ "$said" = "$program $version" ] || fail "$program --version says '$said', the packages are $version"
done
cp "$nerve" .bundle/nerve
# The completions and the man page come from the program itself, so they list its options as built.
generate() {
  local out="$1"
  shift
  "$nerve" "$@" >"$out" || fail "nerve $* failed"
  [ -s "$out" ] || fail "nerve $* printed nothing"
}
generate .bundle/completions/nerve.bash completions bash
generate .bundle/completions/_nerve completions zsh
generate .bundle/completions/nerve.fish completions fish
generate .bundle/nerve.1 man-page
gzip -9n .bundle/nerve.1

# Earlier builds' packages (and Tauri's folders for them, a copy of the programs each) go first:
# bundle/ holds this build's, which the repositories and the install test take.
bundle="$CARGO_TARGET_DIR/release/bundle"
rm -rf "$bundle/deb" "$bundle/rpm"
# `tauri bundle` packages the binaries just built (it does not build again).
ui/node_modules/.bin/tauri bundle --ci --bundles deb,rpm "${bundle_config[@]}"
debs=("$bundle"/deb/*.deb)
rpms=("$bundle"/rpm/*.rpm)
[ "${#debs[@]}" -eq 1 ] && [ -f "${debs[0]}" ] || fail "expected one .deb in $bundle/deb, found: ${debs[*]}"
[ "${#rpms[@]}" -eq 1 ] && [ -f "${rpms[0]}" ] || fail "expected one .rpm in $bundle/rpm, found: ${rpms[*]}"
[ "$(dpkg-deb --field "${debs[0]}" Version)" = "$version" ] || fail "${debs[0]} is not version $version"
ls -l "${debs[0]}" "${rpms[0]}"

if [ -n "${NERVE_SIGNING_KEY:-}" ]; then
  scripts/publish-repos.sh "${debs[0]}" "${rpms[0]}"
else
  echo "apt and dnf repositories not built: NERVE_SIGNING_KEY is not set (the gpg key to sign them with; see scripts/publish-repos.sh)"
fi
