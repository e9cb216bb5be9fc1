#!/usr/bin/env bash
# Renders retryscope.svg to the PNG sizes the app and the packages use, and the Windows .ico.
# Needs rsvg-convert (apt: librsvg2-bin) and icotool (apt: icoutils). The outputs are
# committed: builds and CI never run this.
set -euo pipefail
cd "$(dirname "$0")"
for size in 16 32 48 64 128 256 512; do
  rsvg-convert --width "$size" --height "$size" retryscope.svg --output "retryscope-$size.png"
done
icotool --create --output retryscope.ico \
  retryscope-16.png retryscope-32.png retryscope-48.png retryscope-64.png --raw=retryscope-256.png
