#!/usr/bin/env bash
# Memory of a long batch list (BENCHMARKS.md "Batch runner"): N JSON Lines items of
# /status/200?i=N queued and worked at concurrency 32 against `retryscope demo-server` on
# 127.0.0.1, in a temporary data folder; prints the batch line and the peak RSS.
# Usage: scripts/bench_batch_list.sh [N] [PORT]
set -eu
N=${1:-1000000}; PORT=${2:-18932}; BIN=${BIN:-target/release/retryscope}
work=$(mktemp -d)
python3 -c "
import sys
with open('$work/list.jsonl', 'w') as f:
    for i in range($N):
        f.write('{\"url\": \"http://127.0.0.1:$PORT/status/200?i=%d\"}\n' % i)
"
"$BIN" demo-server --port "$PORT" >/dev/null 2>&1 & pid=$!
sleep 1
RETRYSCOPE_DATA_DIR="$work/data" RETRYSCOPE_KEYRING=memory \
  /usr/bin/time -f "peak RSS %M KiB, %e s" "$BIN" batch "$work/list.jsonl" --concurrency 32 2>&1 | grep -E "items:|peak RSS"
kill $pid; rm -rf "$work"
