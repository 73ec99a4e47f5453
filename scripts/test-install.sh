#!/usr/bin/env bash
# The install and upgrade test of the packages scripts/package.sh built (version V, tauri.conf.json's),
# taken the way users take them, from the signed apt repository:
#   1. the .deb's Depends and Recommends, and the .rpm's Requires and Recommends, ask for what the
#      app needs;
#   2. a throwaway key signs an apt and a dnf repository holding V (scripts/publish-repos.sh),
#      served over HTTP on localhost; apt refuses the repository under another key, and with the
#      published key in `signed-by=` (no `trusted=yes`) `apt-get install` installs V;
#   3. what the package put on the machine: the app, its desktop entry and icons, `nerve` on PATH
#      (holding no test tools, even when asked for them), the licence and notices, the shell
#      completions and the man page; the .rpm holds the same files;
#   4. scripts/package.sh builds V with its patch number one higher and publishes it beside V;
#      `apt-get install --only-upgrade` takes it, and both programs say the new version;
#   5. the dnf repository: the rpms' and the metadata's signatures verify with the published key
#      alone, and dnf lists both versions through nerve.repo (and refuses them under another key);
#   6. the installed app starts under Xvfb through tauri-driver and shows its first screen;
#   7. the package is removed, and nothing it installed is left.
# On exit, after a failure too, the package is removed, the apt source, the keys and the server
# are gone, and bundle/ holds V's packages again: the upgrade's build is the test's only (the next
# cargo build without NERVE_VERSION builds the programs back to V). Needs root (apt, dpkg); CI runs
# as root.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
. scripts/repo-test-lib.sh
if [ "$(id -u)" -ne 0 ]; then
  echo "test-install.sh installs a package and changes apt's sources: it needs root" >&2
  exit 1
fi
fail() { echo "test-install.sh: $*" >&2; exit 1; }
# V is tauri.conf.json's; the upgrade's build sets its own version, and the cargo test below must
# build (or find built) what the test command built, without one.
unset NERVE_VERSION
# rpm reads the .rpm; man-db answers `man -w`.
ensure_apt_packages rpm man-db

bundle="$CARGO_TARGET_DIR/release/bundle"
version="$(node -p 'require("./tauri.conf.json").version')"
built_deb="$(ls "$bundle"/deb/*.deb 2>/dev/null | head -n 1)"
built_rpm="$(ls "$bundle"/rpm/*.rpm 2>/dev/null | head -n 1)"
[ -n "$built_deb" ] && [ "$(dpkg-deb --field "$built_deb" Version)" = "$version" ] ||
  fail "no .deb of version $version in $bundle/deb: run scripts/package.sh (without NERVE_VERSION) first"
[ -n "$built_rpm" ] && [ "$(rpm -qp --nosignature --qf '%{VERSION}' "$built_rpm")" = "$version" ] ||
  fail "no .rpm of version $version in $bundle/rpm: run scripts/package.sh (without NERVE_VERSION) first"
package="$(dpkg-deb --field "$built_deb" Package)"
IFS=. read -r major minor patch <<<"$version"
new_version="$major.$minor.$((patch + 1))"

# V's packages, kept aside: the upgrade's build replaces them in bundle/.
saved="$(mktemp -d)"
cp "$built_deb" "$built_rpm" "$saved/"
deb="$saved/$(basename "$built_deb")"
rpm="$saved/$(basename "$built_rpm")"
cleanup() {
  dpkg -r "$package" >/dev/null 2>&1 || true
  repo_test_cleanup
  rm -rf "$bundle/deb" "$bundle/rpm"
  mkdir -p "$bundle/deb" "$bundle/rpm"
  cp "$deb" "$bundle/deb/"
  cp "$rpm" "$bundle/rpm/"
  rm -rf "$saved"
}
trap cleanup EXIT

# Whether a comma-separated field ($1) has the entry $2 (alternatives and all).
field_has() { echo "$1" | sed 's/, /\n/g' | grep -qxF -- "$2"; }

echo "== what the packages ask for"
depends="$(dpkg-deb --field "$deb" Depends)"
recommends="$(dpkg-deb --field "$deb" Recommends)"
echo "Depends: $depends"
echo "Recommends: $recommends"
for entry in git libwebkit2gtk-4.1-0 libgtk-3-0; do
  field_has "$depends" "$entry" || fail "the .deb does not depend on $entry"
done
for entry in xdg-utils "gnome-keyring | kwalletmanager | keepassxc" "default-dbus-session-bus | dbus-session-bus"; do
  field_has "$recommends" "$entry" || fail "the .deb does not recommend $entry"
done
rpm_requires="$(rpm -qp --nosignature --requires "$rpm")"
rpm_recommends="$(rpm -qp --nosignature --recommends "$rpm")"
echo "rpm Requires: $(paste -sd" " <<<"$rpm_requires")"
echo "rpm Recommends: $(paste -sd" " <<<"$rpm_recommends")"
for entry in git-core 'libwebkit2gtk-4.1.so.0()(64bit)'; do
  echo "$rpm_requires" | grep -qxF -- "$entry" || fail "the .rpm does not require $entry"
done
for entry in xdg-utils gnome-keyring; do
  echo "$rpm_recommends" | grep -qxF -- "$entry" || fail "the .rpm does not recommend $entry"
done

echo "== $version in a signed apt repository, installed with apt-get"
repo_test_start
scripts/publish-repos.sh "$deb" "$rpm"
repo_test_check_apt_refuses_other_key
repo_test_add_apt_source
repo_test_apt_update "$REPO_TEST_SOURCE"
DEBIAN_FRONTEND=noninteractive apt-get install -y "$package"
installed="$(dpkg-query -W -f '${Version}' "$package")"
[ "$installed" = "$version" ] || fail "apt installed $package $installed, expected $version"
said="$(nerve --version)"
[ "$said" = "nerve $version" ] || fail "nerve --version says '$said', expected 'nerve $version'"
echo "installed $package $installed; $said"

echo "== what the package installed"
desktop_entry="$(dpkg -L "$package" | grep '^/usr/share/applications/.*\.desktop$')"
exec_line="$(grep '^Exec=' "$desktop_entry" | head -n 1)"
app="$(command -v "$(echo "${exec_line#Exec=}" | awk '{print $1}')")"
icon="$(grep '^Icon=' "$desktop_entry" | head -n 1 | cut -d= -f2)"
echo "desktop entry $desktop_entry: $exec_line, icon $icon; app $app"
for size in 16x16 32x32 48x48 64x64 128x128 256x256 512x512; do
  test -f "/usr/share/icons/hicolor/$size/apps/$icon.png" || fail "no $size icon for $icon"
done
test "$(command -v nerve)" = /usr/bin/nerve
# The binary as shipped holds no test tools, even when asked for them.
tools="$(NERVE_TEST_TOOLS=1 NERVE_DATA_DIR="$(mktemp -d -p "$saved")" nerve tools --bare --cwd "$(mktemp -d -p "$saved")")"
if echo "$tools" | grep -q '"name": "Test'; then
  echo "the installed nerve lists test tools:" >&2
  echo "$tools" | grep '"name": "Test' >&2
  exit 1
fi
echo "$tools" | grep -q '"name": "Bash"' || fail "nerve tools listed no Bash tool"
# The licence, the notices, the completions and the man page. (A machine whose dpkg leaves out
# documentation, a path-exclude in /etc/dpkg/dpkg.cfg.d/ as minimal images have, fails here.)
doc="/usr/share/doc/$package"
deb_extras=(
  "$doc/copyright" "$doc/THIRD-PARTY-NOTICES" "$doc/THIRD-PARTY-NOTICES-ui.txt"
  /usr/share/bash-completion/completions/nerve /usr/share/zsh/vendor-completions/_nerve
  /usr/share/fish/vendor_completions.d/nerve.fish /usr/share/man/man1/nerve.1.gz
)
for f in "${deb_extras[@]}"; do
  test -s "$f" || fail "$f is not installed (or is empty; is it excluded by a path-exclude in /etc/dpkg/dpkg.cfg.d/?)"
done
grep -q '^License: MIT$' "$doc/copyright" || fail "$doc/copyright names no MIT licence"
grep -qE '^tauri [0-9]' "$doc/THIRD-PARTY-NOTICES" || fail "$doc/THIRD-PARTY-NOTICES does not list the tauri crate"
bash -n /usr/share/bash-completion/completions/nerve || fail "the bash completion script does not parse"
test "$(man -w nerve)" = /usr/share/man/man1/nerve.1.gz || fail "man -w nerve finds '$(man -w nerve 2>&1)'"
echo "licence, notices ($(sed -n '/^Crates$/,/^Licences/p' "$doc/THIRD-PARTY-NOTICES" | grep -c ': ') crates), completions and man page installed"

echo "== the rpm holds the same files"
rpm_files="$(rpm -qpl --nosignature "$rpm")"
for f in /usr/bin/nerve "$desktop_entry" "$doc/LICENSE" "$doc/THIRD-PARTY-NOTICES" "$doc/THIRD-PARTY-NOTICES-ui.txt" \
  /usr/share/bash-completion/completions/nerve /usr/share/zsh/site-functions/_nerve \
  /usr/share/fish/vendor_completions.d/nerve.fish /usr/share/man/man1/nerve.1.gz; do
  echo "$rpm_files" | grep -qxF "$f" || fail "the .rpm does not hold $f"
done

echo "== $new_version built and published beside $version; apt upgrades to it"
# package.sh publishes with the test's key into the test's repository (repo_test_start exported
# NERVE_SIGNING_KEY, GNUPGHOME, NERVE_REPO_DIR and NERVE_REPO_URL).
NERVE_VERSION="$new_version" scripts/package.sh
repo_test_apt_update "$REPO_TEST_SOURCE"
offered="$(repo_test_apt_versions "$package" | sort -V | tr '\n' ' ')"
[ "$offered" = "$version $new_version " ] ||
  fail "the apt repository offers $package [$offered], expected [$version $new_version]"
echo "the apt repository offers $package $offered"
DEBIAN_FRONTEND=noninteractive apt-get install --only-upgrade -y "$package"
installed="$(dpkg-query -W -f '${Version}' "$package")"
[ "$installed" = "$new_version" ] || fail "after the upgrade $package is $installed, expected $new_version"
for program in nerve nerve-desktop; do
  said="$("$program" --version)"
  [ "$said" = "$program $new_version" ] || fail "$program --version says '$said', expected '$program $new_version'"
  echo "$said"
done

echo "== the dnf repository"
repo_test_check_rpm_repo "$package" "$version-1" "$new_version-1"

echo "== the installed app starts and shows its first screen"
log="$(mktemp -p "$saved")"
NERVE_E2E_APP="$app" scripts/with-keyring.sh xvfb-run -a -s "-screen 0 1440x960x24" \
  cargo test "${TEST_PACKAGES[@]}" --locked --test desktop_e2e -- --ignored --exact the_installed_app_shows_its_first_screen --nocapture \
  2>&1 | tee "$log"
# A filter that matched nothing would pass silently: the one test must have run.
grep -q "test result: ok. 1 passed" "$log" || fail "the installed-app test did not run"

echo "== removing the package"
dpkg -r "$package"
for f in "$app" /usr/bin/nerve "$desktop_entry" "${deb_extras[@]}"; do
  [ ! -e "$f" ] || fail "the package left $f behind"
done
echo "install and upgrade test passed"
