#!/usr/bin/env bash
# Installs the built .deb (scripts/package.sh), checks what it put on the machine (the app, its
# desktop entry and icons, `nerve` on PATH), starts the *installed* app under Xvfb through
# tauri-driver and checks its first screen, then removes the package and checks it is gone.
# Needs root (dpkg); CI runs as root.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
ensure_apt_packages rpm
if [ "$(id -u)" -ne 0 ]; then
  echo "test-install.sh installs a package and needs root" >&2
  exit 1
fi
deb="$(ls -t "$CARGO_TARGET_DIR"/release/bundle/deb/*.deb | head -n 1)"
rpm="$(ls -t "$CARGO_TARGET_DIR"/release/bundle/rpm/*.rpm | head -n 1)"
package="$(dpkg-deb --field "$deb" Package)"
echo "== installing $deb (package $package)"
remove() { dpkg -r "$package" >/dev/null 2>&1 || true; }
trap remove EXIT
dpkg -i "$deb"
echo "== what the package installed"
desktop_entry="$(dpkg -L "$package" | grep '^/usr/share/applications/.*\.desktop$')"
exec_line="$(grep '^Exec=' "$desktop_entry" | head -n 1)"
app="$(command -v "$(echo "${exec_line#Exec=}" | awk '{print $1}')")"
icon="$(grep '^Icon=' "$desktop_entry" | head -n 1 | cut -d= -f2)"
echo "desktop entry $desktop_entry: $exec_line, icon $icon; app $app"
for size in 16x16 32x32 48x48 64x64 128x128 256x256 512x512; do
  test -f "/usr/share/icons/hicolor/$size/apps/$icon.png" || { echo "no $size icon for $icon" >&2; exit 1; }
done
test "$(command -v nerve)" = /usr/bin/nerve
nerve --version
# The binary as shipped holds no test tools, even when asked for them.
tools="$(NERVE_TEST_TOOLS=1 NERVE_DATA_DIR="$(mktemp -d)" nerve tools --bare --cwd "$(mktemp -d)")"
if echo "$tools" | grep -q '"name": "Test'; then
  echo "the installed nerve lists test tools:" >&2
  echo "$tools" | grep '"name": "Test' >&2
  exit 1
fi
echo "$tools" | grep -q '"name": "Bash"' || { echo "nerve tools listed no Bash tool" >&2; exit 1; }
echo "== the rpm holds the same files"
rpm_files="$(rpm -qpl "$rpm" 2>/dev/null || true)"
if [ -n "$rpm_files" ]; then
  echo "$rpm_files" | grep -qx /usr/bin/nerve
  echo "$rpm_files" | grep -qx "$desktop_entry"
else
  echo "(rpm is not installed here; the .rpm is checked by size only)"
  test -s "$rpm"
fi
echo "== the installed app starts and shows its first screen"
log="$(mktemp)"
NERVE_E2E_APP="$app" scripts/with-keyring.sh xvfb-run -a -s "-screen 0 1440x960x24" \
  cargo test "${TEST_PACKAGES[@]}" --locked --test desktop_e2e -- --ignored --exact the_installed_app_shows_its_first_screen --nocapture \
  2>&1 | tee "$log"
# A filter that matched nothing would pass silently: the one test must have run.
grep -q "test result: ok. 1 passed" "$log" || { echo "the installed-app test did not run" >&2; exit 1; }
echo "== removing the package"
dpkg -r "$package"
trap - EXIT
if [ -e "$app" ] || [ -e /usr/bin/nerve ]; then
  echo "the package left $app or /usr/bin/nerve behind" >&2
  exit 1
fi
echo "install test passed"
