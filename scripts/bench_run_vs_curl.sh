#!/usr/bin/env bash
# One process per request (BENCHMARKS.md "History"): the wall time of `retryscope run` against
# curl's, each a whole process sending one GET to `retryscope demo-server` on 127.0.0.1, taken in
# pairs (ours, then curl) so a change in the machine's speed hits both sides of a ratio. Three
# cases: history on (in a throwaway data folder), --no-history, and `--version` (start-up alone,
# against `curl --version`). Prints, per case, the medians of both and the median, min and max of
# the pair ratios. Usage: scripts/bench_run_vs_curl.sh [PAIRS] [PORT]   (BIN= picks the binary)
set -eu
PAIRS=${1:-50}; PORT=${2:-18931}; BIN=${BIN:-target/release/retryscope}
URL="http://127.0.0.1:$PORT/status/200"
RETRYSCOPE_DATA_DIR=$(mktemp -d); export RETRYSCOPE_DATA_DIR
"$BIN" demo-server --port "$PORT" >/dev/null 2>&1 & server=$!
trap 'kill $server; rm -rf "$RETRYSCOPE_DATA_DIR"' EXIT
sleep 1
us() { local t=${EPOCHREALTIME/[.,]/}; echo "${t#0}"; }   # bash's own clock, µs: no fork

med() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

# case_ LABEL CURL_ARGS -- OUR_ARGS: one warm-up pair, then PAIRS timed pairs.
case_() {
  local label=$1 curl_args=$2 t0 t1 t2 times; shift 3
  times=$(mktemp)
  "$BIN" "$@" >/dev/null; curl $curl_args >/dev/null
  for _ in $(seq "$PAIRS"); do
    t0=$(us); "$BIN" "$@" >/dev/null; t1=$(us); curl $curl_args >/dev/null; t2=$(us)
    echo "$((t1 - t0)) $((t2 - t1))" >>"$times"
  done
  local ours curl ratios
  ours=$(cut -d' ' -f1 "$times" | med); curl=$(cut -d' ' -f2 "$times" | med)
  ratios=$(awk '{ printf "%.4f\n", $1 / $2 }' "$times" | sort -g)
  printf '%-22s ours %6.2f ms  curl %6.2f ms  ratio median %.2f (min %.2f, max %.2f), %d pairs\n' \
    "$label" "$(echo "$ours / 1000" | bc -l)" "$(echo "$curl / 1000" | bc -l)" \
    "$(echo "$ratios" | med)" "$(echo "$ratios" | head -1)" "$(echo "$ratios" | tail -1)" "$PAIRS"
  rm -f "$times"
}

case_ "run, history on" "-s -o /dev/null $URL" -- run -s --no-body "$URL"
case_ "run --no-history" "-s -o /dev/null $URL" -- run -s --no-body --no-history "$URL"
case_ "--version (start-up)" "--version" -- --version
