#!/usr/bin/env bash
# curl side of the batch benchmark (BENCHMARKS.md "Batch runner"): N GETs of /status/200?case=bN at
# --parallel-max 8 against `retryscope demo-server` on 127.0.0.1, three timed runs. Usage: scripts/bench_batch_curl.sh [N] [PORT]
set -eu
N=${1:-10000}; PORT=${2:-18931}; BIN=${BIN:-target/release/retryscope}
list=$(mktemp)
for i in $(seq 1 "$N"); do printf 'url = "http://127.0.0.1:%s/status/200?case=b%s"\noutput = "/dev/null"\n' "$PORT" "$i"; done > "$list"
"$BIN" demo-server --port "$PORT" >/dev/null 2>&1 & pid=$!
sleep 1
for run in 1 2 3; do
  /usr/bin/time -f "run $run: %e s, %M KiB peak" curl -s -K "$list" --parallel --parallel-max 8
done
kill $pid; rm -f "$list"
