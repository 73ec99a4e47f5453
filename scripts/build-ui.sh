#!/usr/bin/env bash
# Builds the UI into ui/dist, replacing it only when the output changed. The desktop app embeds
# ui/dist when it compiles (Tauri's build script watches the folder), so rewriting identical files
# would compile the app again, debug and release, for nothing: about two minutes of every run of
# the test command. Vite's output is the same for the same sources (its file names are hashes).
set -euo pipefail
cd "$(dirname "$0")/.."
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
npm --prefix ui run build -- --outDir "$out/dist" --emptyOutDir
if [ -d ui/dist ] && diff -r -q "$out/dist" ui/dist >/dev/null 2>&1; then
  echo "ui/dist is unchanged: left as it is"
else
  rm -rf ui/dist
  cp -r "$out/dist" ui/dist
fi
