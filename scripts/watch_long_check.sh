#!/usr/bin/env bash
# The long-watch check of BENCHMARKS.md "Watches": an 8-hour watch at 10 s against the demo
# server's scheduled outage (5 of every 60 minutes down with 503), run with every time divided
# by SCALE (default 10: every 1 s for 48 min, 30 s down in every 6 min, the azure-sdk built-in's
# delays divided by 10; SCALE=1 is the real 8 hours). Half-way the watch is killed with -9 and
# resumed with `watch --resume`. At the end it prints `watch show`'s summary, `report --format
# json`'s figures, `whatif` over the watch, and a hand count read from history.sqlite3 with
# Python's sqlite3 (scripts/watch_hand_count.py), which uses no Retryscope code.
# Usage: scripts/watch_long_check.sh [SCALE] [PORT]   (BIN= picks the binary; OUT= keeps the folder)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SCALE=${1:-10}; PORT=${2:-18932}; BIN=$(realpath "${BIN:-target/release/retryscope}")
OUT=${OUT:-$(mktemp -d)}; mkdir -p "$OUT/data"; cd "$OUT"
export RETRYSCOPE_DATA_DIR=$OUT/data
every_ms=$((10000 / SCALE)); total_s=$((8 * 3600 / SCALE))
down_s=$((300 / SCALE)); period_s=$((3600 / SCALE))
"$BIN" demo-server --port "$PORT" >demo.log 2>&1 & server=$!
trap 'kill $server 2>/dev/null || true' EXIT
"$BIN" profile show azure-sdk | python3 -c "
import json, sys
p = json.load(sys.stdin); s = $SCALE
p['name'] += f' at 1/{s} time scale'
b = p['backoff']; b['base_delay_ms'] //= s
f = b['fallback']; f['base_delay_ms'] //= s; f['max_delay_ms'] //= s
json.dump(p, open('profile.json', 'w'), indent=2)"
sleep 1
url="http://127.0.0.1:$PORT/outage?down_s=$down_s&period_s=$period_s&status=503"
"$BIN" watch --profile profile.json --every "${every_ms}ms" --for "${total_s}s" --jitter 10% "$url" \
  >watch1.out 2>watch1.err & watch=$!
sleep $((total_s / 2)); kill -9 $watch; wait $watch || true
id=$("$BIN" watch list | awk 'NR == 1 { print $1 }')
sleep $((total_s / 100 + 1))                        # a gap: slots missed while it was down
"$BIN" watch --resume "$id" >watch2.out 2>watch2.err || true
echo "== watch show (summary)"; "$BIN" watch show "$id" | head -3
echo "== report --format json (figures)"
"$BIN" report --watch "$id" --format json -o report.json
python3 -c "
import json; f = json.load(open('report.json'))
print('runs', f['runs']); print('success_rate', f['success_rate'])
print('time_to_success', f['time_to_success']); print('longest_outage', f['longest_outage'])"
"$BIN" report --watch "$id" -o report.html
echo "== whatif"; "$BIN" whatif --watch "$id" --profiles profile.json,azure-sdk,aws-standard,envoy-route
echo "== hand count (sqlite3, no Retryscope code)"
python3 "$HERE/watch_hand_count.py" data/history.sqlite3 "$id"
echo "(files in $OUT)"
