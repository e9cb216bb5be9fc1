#!/usr/bin/env bash
# Regenerates the workbench screenshots (800×600, 1280×800 and 1920×1080, dark and
# light) from the real window under Xvfb, each with the default demo run in progress.
# Needs: xvfb, Mesa (libgl1-mesa-dri), a built binary (default target/debug/retryscope).
# Then the History panel at 800×600 dark and 1280×800 light, over a few runs the CLI
# recorded against a demo server. SKIP_WORKBENCH=1 makes only the History shots.
# Usage: docs/screenshots/make.sh [BINARY]
set -euo pipefail
cd "$(dirname "$0")"
bin=${1:-../../target/debug/retryscope}
shoot() { # SIZE THEME OUT [ARGS…]: one screenshot of the real window under its own Xvfb
  local size=$1 theme=$2 out=$3
  shift 3
  n=90
  while [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ]; do n=$((n + 1)); done
  Xvfb ":$n" -screen 0 "${size}x24" >/dev/null 2>&1 &
  local xvfb=$!
  for _ in 1 2 3 4 5 6 7 8 9 10; do [ -e "/tmp/.X11-unix/X$n" ] && break; sleep 0.3; done
  local home
  # A fresh HOME: no saved workspace, no keyring; the run is the first-run demo request.
  home=$(mktemp -d)
  DISPLAY=":$n" LIBGL_ALWAYS_SOFTWARE=1 HOME=$home XDG_CONFIG_HOME=$home/.config \
    XDG_DATA_HOME=$home/.local/share timeout 60 "$bin" --window-size "$size" --theme "$theme" \
    --screenshot "$out" --exit-after-ms 3500 "$@"
  kill "$xvfb" 2>/dev/null || true
  rm -rf "$home"
  echo "$out"
}
[ -n "${SKIP_WORKBENCH:-}" ] && SIZES=none
for size in ${SIZES:-800x600 1280x800 1920x1080}; do
  [ "$size" = none ] && break
  for theme in dark light; do
    shoot "$size" "$theme" "workbench-$size-$theme.png"
  done
done

# The History panel over runs recorded by the CLI (RETRYSCOPE_DATA_DIR: the shots' own history).
data=$(mktemp -d)
"$bin" demo-server --port 0 >"$data/demo.log" 2>&1 &
demo=$!
for _ in $(seq 50); do grep -q "listening on" "$data/demo.log" && break; sleep 0.1; done
base=$(sed -n 's/.*listening on //p' "$data/demo.log")
for path in "/status/503?times=2" "/status/429?times=1" "/status/500?times=5" "/status/200" \
  "/retry-after?value=1&times=1" "/status/404"; do
  RETRYSCOPE_DATA_DIR=$data RETRYSCOPE_KEYRING=memory "$bin" run --builtin vbscript-module \
    "$base$path" >/dev/null 2>&1 || true
done
RETRYSCOPE_DATA_DIR=$data RETRYSCOPE_KEYRING=memory "$bin" run -X POST -d '{"a":1}' \
  "$base/status/503?times=1" >/dev/null 2>&1 || true
kill "$demo" 2>/dev/null || true
export RETRYSCOPE_DATA_DIR=$data RETRYSCOPE_KEYRING=memory
shoot 800x600 dark history-800x600-dark.png --history
shoot 1280x800 light history-1280x800-light.png --history
rm -rf "$data"
