#!/usr/bin/env bash
# Runs a command inside a private D-Bus session with an unlocked gnome-keyring Secret Service, so
# tests can store and read real keyring entries without touching the user's own keyring.
# Needs the Debian packages dbus-daemon (dbus-run-session) and gnome-keyring.
# Usage: scripts/with-keyring.sh CMD [ARGS...]
set -euo pipefail
if [ "$#" -eq 0 ]; then
  echo "usage: $0 CMD [ARGS...]" >&2
  exit 2
fi
for tool in dbus-run-session gnome-keyring-daemon; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "$tool is missing: install the Debian packages dbus-daemon and gnome-keyring" >&2
    exit 1
  fi
done
# A throwaway home for the keyring files, removed when the command ends. A desktop app run inside
# may have started xdg-document-portal, whose FUSE mount under the runtime dir can outlive the bus
# for a moment: unmount it first. The cleanup never changes the command's exit status.
keyring_home="$(mktemp -d)"
cleanup() {
  local status=$?
  fusermount3 -u -z "$keyring_home/run/doc" 2>/dev/null || fusermount -u -z "$keyring_home/run/doc" 2>/dev/null || true
  rm -rf "$keyring_home" 2>/dev/null || echo "with-keyring: could not remove $keyring_home" >&2
  exit "$status"
}
trap cleanup EXIT
export XDG_DATA_HOME="$keyring_home/data" XDG_RUNTIME_DIR="$keyring_home/run"
mkdir -p "$XDG_DATA_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
# The keyring's password is fixed and public: this keyring only ever holds test entries.
dbus-run-session -- sh -c 'echo -n test | gnome-keyring-daemon --unlock --components=secrets --daemonize >/dev/null; exec "$@"' with-keyring "$@"
