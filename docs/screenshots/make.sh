#!/usr/bin/env bash
# Regenerates the workbench screenshots (issue 7: 800×600, 1280×800 and 1920×1080, dark and
# light) from the real window under Xvfb, each with the default demo run in progress.
# Needs: xvfb, Mesa (libgl1-mesa-dri), a built binary (default target/debug/retryscope).
# Usage: docs/screenshots/make.sh [BINARY]
set -euo pipefail
cd "$(dirname "$0")"
bin=${1:-../../target/debug/retryscope}
for size in ${SIZES:-800x600 1280x800 1920x1080}; do
  for theme in dark light; do
    n=90
    while [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ]; do n=$((n + 1)); done
    display=":$n"
    Xvfb "$display" -screen 0 "${size}x24" >/dev/null 2>&1 &
    xvfb=$!
    for _ in 1 2 3 4 5 6 7 8 9 10; do [ -e "/tmp/.X11-unix/X$n" ] && break; sleep 0.3; done
    home=$(mktemp -d)
    # A fresh HOME: no saved workspace, no keyring; the run is the first-run demo request.
    DISPLAY=$display LIBGL_ALWAYS_SOFTWARE=1 HOME=$home XDG_CONFIG_HOME=$home/.config \
      XDG_DATA_HOME=$home/.local/share timeout 60 "$bin" --window-size "$size" --theme "$theme" \
      --screenshot "workbench-$size-$theme.png" --exit-after-ms 3500
    kill "$xvfb" 2>/dev/null || true
    rm -rf "$home"
    echo "workbench-$size-$theme.png"
  done
done
