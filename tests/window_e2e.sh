#!/usr/bin/env bash
# The real window driven as a person drives it: the binary under Xvfb, real X input events
# (xdotool), the X clipboard (xclip). Types a URL and `12` into Max retries key by key, pastes a
# header value from the clipboard, presses Send, quits with Ctrl+Q while the run waits (answers
# the question), starts again and checks that everything came back, stops it with SIGTERM just
# after a keystroke and checks that keystroke was saved, checks that --window-size wins over
# the remembered size, and takes screenshots at 1280×800 and 800×600 in both themes.
# Every wait polls what the window shows (its title, its process, the demo server's request
# log, the files it writes), with a deadline; no step relies on a fixed sleep alone.
# Needs: Xvfb, xdotool, xclip, xdpyinfo (x11-utils), xwd (x11-apps) + netpbm (screenshots), python3.
# Usage: tests/window_e2e.sh [BINARY] [SCREENSHOT_DIR]   (defaults: target/release/retryscope,
# ci-artifacts/window-e2e)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-target/release/retryscope}")
shots=${2:-ci-artifacts/window-e2e}
mkdir -p "$shots"
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  if [ -n "${KEEP:-}" ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
fail() { echo "window e2e: FAILED: $*" >&2; shot "failure" || true; exit 1; }
step() { echo "-- $*"; }

n=70
while [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ]; do n=$((n + 1)); done
Xvfb ":$n" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
pids+=($!)
export DISPLAY=":$n" LIBGL_ALWAYS_SOFTWARE=1 HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" \
  XDG_DATA_HOME="$work/home/.local/share" RETRYSCOPE_DATA_DIR="$work/data" RETRYSCOPE_KEYRING=memory
mkdir -p "$HOME"

# wait_for WHAT SECONDS COMMAND…: runs COMMAND every 0.1 s until it succeeds.
wait_for() {
  local what=$1 limit=$2
  shift 2
  local deadline=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$deadline" ] || fail "waited ${limit} s for $what"
    sleep 0.1
  done
}
wait_for "the X server" 10 xdpyinfo
# NAME: the window (the whole screen before there is one) as $shots/NAME.png.
shot() {
  local what=(-root)
  [ -n "${win:-}" ] && what=(-id "$win")
  xwd "${what[@]}" -silent | xwdtopnm 2>/dev/null | pnmtopng >"$shots/$1.png"
}
title() { xdotool getwindowname "$win"; }
title_has() { title | grep -qF -- "$1"; }
alive() { kill -0 "$app" 2>/dev/null; }
dead() { ! alive; }
# A click, then a pause for the window to draw a frame with it (egui moves the keyboard focus
# in the frame that sees the click: keys sent within the same frame would go elsewhere).
click() {
  timeout 10 xdotool mousemove --sync "$1" "$2" click 1
  sleep 0.3
}
# Selects the field at X Y and types TEXT one key at a time.
type_at() {
  click "$1" "$2"
  xdotool key ctrl+a
  xdotool type --delay 60 "$3"
}
# A field of the saved workspace, by a Python expression over `w`.
workspace() {
  python3 -c 'import json,sys; w=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' \
    "$RETRYSCOPE_DATA_DIR/workspace.json" "$1"
}
max_retries() { workspace 'json.loads(w["profile"]["embedded_json"])["max_retries"]'; }
max_retries_is() { [ "$(max_retries 2>/dev/null)" = "$1" ]; }
start_window() {
  "$bin" "$@" >>"$work/window.log" 2>&1 &
  app=$!
  pids+=("$app")
  wait_for "the window" 60 xdotool search --onlyvisible --name '^Retryscope'
  win=$(xdotool search --onlyvisible --name '^Retryscope' | head -1)
  timeout 10 xdotool windowfocus --sync "$win" || fail "cannot give the window the keyboard"
}

step "demo server"
"$bin" demo-server --port 0 >"$work/demo.log" 2>&1 &
pids+=($!)
wait_for "the demo server" 10 grep -q "listening on" "$work/demo.log"
base=$(sed -n 's/.*listening on //p' "$work/demo.log")
demo_saw() { # TEXT: the demo server's request log holds TEXT
  python3 -c 'import sys,urllib.request; sys.exit(sys.argv[2] not in urllib.request.urlopen(sys.argv[1]).read().decode())' "$base/log" "$1"
}

step "first start: type a URL and 12 retries key by key, paste a header value, Send"
start_window --window-size 1280x800
wait_for "the built-in profile in the title" 20 title_has "ServiceNow example"
click 1129 84 # Duplicate to edit
wait_for "the copy in the title" 10 title_has "(copy) •"
type_at 165 381 "$base/status/429?case=e2e"
# The window saves a moment after each change: the file says when the keys have landed.
wait_for "the typed URL" 10 grep -qF "case=e2e\"" "$RETRYSCOPE_DATA_DIR/workspace.json"
type_at 1105 383 "12"
wait_for "12 retries" 10 max_retries_is 12
click 67 562 # Add header: its name field takes the keys
xdotool type --delay 40 "X-Trace"
wait_for "the header's name" 10 grep -qF '"X-Trace"' "$RETRYSCOPE_DATA_DIR/workspace.json"
printf 'from-the-clipboard' | xclip -selection clipboard
click 163 562
xdotool key ctrl+v
wait_for "the pasted value" 10 grep -qF '"from-the-clipboard"' "$RETRYSCOPE_DATA_DIR/workspace.json"
xdotool key ctrl+Return
wait_for "the run's first attempt at the demo server" 20 demo_saw "case=e2e"
shot "run-1280x800"

step "Ctrl+Q while the run waits: the window asks, Quit anyway closes it"
xdotool key ctrl+q
sleep 1 # the question holds the window open
alive || fail "Ctrl+Q closed the window without asking while a run waited"
shot "quit-question"
click 438 430 # Quit anyway
wait_for "the window to close" 15 dead
[ "$(workspace 'w["request"]["url"]')" = "{{demo}}/status/429?case=e2e" ] && fail "the demo server's address was stored as the embedded one"
[ "$(workspace 'w["request"]["url"]')" = "$base/status/429?case=e2e" ] || fail "URL not saved: $(workspace 'w["request"]["url"]')"
[ "$(max_retries)" = 12 ] || fail "max retries not saved: $(max_retries)"
[ "$(workspace '[h["value"] for h in w["request"]["headers"] if h["name"]=="X-Trace"][0]')" = from-the-clipboard ] ||
  fail "the pasted header was not saved"
cp "$RETRYSCOPE_DATA_DIR/workspace.json" "$work/first.json"
RETRYSCOPE_DATA_DIR=$RETRYSCOPE_DATA_DIR "$bin" history list --json >"$work/history.json"
grep -q '"cancelled"' "$work/history.json" || fail "the quit run is not recorded as cancelled: $(cat "$work/history.json")"

step "second start: the edited copy, the request and the header come back exactly"
start_window --window-size 1280x800
wait_for "the restored copy in the title" 20 title_has "(copy) •"
sleep 1 # the preview is computed off the frame
shot "restored-1280x800"
xdotool key ctrl+q # nothing live: closes at once
wait_for "the window to close" 15 dead
cmp -s "$work/first.json" "$RETRYSCOPE_DATA_DIR/workspace.json" ||
  fail "the restored workspace differs: $(diff "$work/first.json" "$RETRYSCOPE_DATA_DIR/workspace.json")"

step "SIGTERM right after a keystroke: the keystroke is saved, then the window closes"
start_window --window-size 1280x800
wait_for "the restored copy in the title" 20 title_has "(copy) •"
type_at 165 381 "$base/status/200?case=term"
kill -TERM "$app"
wait_for "the window to end on SIGTERM" 15 dead
[ "$(workspace 'w["request"]["url"]')" = "$base/status/200?case=term" ] ||
  fail "the last keys before SIGTERM were lost: $(workspace 'w["request"]["url"]')"

step "800×600: resized by the window system, then remembered; both themes"
start_window
wait_for "the restored copy in the title" 20 title_has "(copy) •"
timeout 10 xdotool windowsize --sync "$win" 800 600
click 498 12 # Dark
shot "workbench-800x600-dark"
click 445 12 # Light
shot "workbench-800x600-light"
xdotool key ctrl+q
wait_for "the window to close" 15 dead

step "--window-size wins over the remembered 800×600"
start_window --window-size 1280x800
sized() { xdotool getwindowgeometry "$win" | grep -q "Geometry: $1"; }
wait_for "a 1280×800 window" 10 sized 1280x800
shot "workbench-1280x800-light"
click 498 12 # Dark
shot "workbench-1280x800-dark"
xdotool key ctrl+q
wait_for "the window to close" 15 dead
echo "window e2e: passed (screenshots in $shots)"
