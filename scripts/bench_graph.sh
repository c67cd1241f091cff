#!/usr/bin/env bash
# Benchmark (not a test): the graph view of 20,000-node models. For each
# model, side by side in the same run:
#   - decode --values 0           the file decoded and its text written (the
#                                 explorer's open, the baseline)
#   - decode --graph dot          decode + graph + layout, DOT written
#   - decode --graph svg          the same, SVG written
#   - /api/graph                  the explorer's answer (JSON with positions),
#                                 over HTTP from `decode serve`, as the page
#                                 asks it (fold=auto) and unfolded (fold=none)
#   - Graphviz dot -Tsvg          the reference layered layout, on our DOT
#                                 (cut at ${DOT_TIMEOUT:-300} s)
#
#   scripts/bench_graph.sh            (models in ${BENCH_DIR:-/tmp})
#
# The models: scripts/bench_model_gen.py's 1 GiB chain of 20,000 nodes (the
# size the explorer is measured on in scripts/bench_model.sh), and
# scripts/bench_graph_gen.py's 20,000 nodes of residual blocks in name
# scopes (skip connections, concatenations: long edges and groups).
# Needs python3 with onnx and numpy, Graphviz (apt-get install graphviz),
# curl and GNU time. Each command runs once to warm the page cache, then
# RUNS times (default 3); the best wall time is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
DIR=${BENCH_DIR:-/tmp}
DOT_TIMEOUT=${DOT_TIMEOUT:-300}
PY=${PYTHON:-python3}
CHAIN="$DIR/pbdecode_bench_1024.onnx"
BRANCHY="$DIR/pbdecode_bench_graph_20000.onnx"
command -v dot > /dev/null || { echo "Graphviz is missing: apt-get install graphviz" >&2; exit 2; }

cargo build --release --quiet
[ -f "$CHAIN" ] || (cd scripts && "$PY" bench_model_gen.py "$CHAIN")
[ -f "$BRANCHY" ] || "$PY" scripts/bench_graph_gen.py "$BRANCHY"
DECODE=target/release/decode
TMP=$(mktemp -d)
SERVER=""
cleanup() {
  [ -n "$SERVER" ] && kill "$SERVER" 2> /dev/null || true
  rm -rf "$TMP"
}
trap cleanup EXIT

# best CMD...: the best wall time of RUNS runs, in seconds.
best() {
  "$@" > /dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
  local b=""
  for _ in $(seq "$RUNS"); do
    local s e t
    s=$(date +%s.%N)
    "$@" > /dev/null 2>&1
    e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc)
    if [ -z "$b" ] || (( $(echo "$t < $b" | bc) )); then b=$t; fi
  done
  printf '%.3f' "$b"
}

"$DECODE" serve "$DIR" > "$TMP/serve.txt" 2>&1 &
SERVER=$!
for _ in $(seq 50); do grep -q token= "$TMP/serve.txt" && break; sleep 0.1; done
URL=$(grep -o 'http://[^ ]*' "$TMP/serve.txt" | head -1)
BASE=${URL%%/?token=*}
TOKEN=${URL##*token=}
api() { curl -sf -H "Authorization: token $TOKEN" "$BASE/api/graph?f=$1&fold=$2" -o /dev/null; }

printf '%-44s %10s %10s\n' "" "chain" "branchy"
row() {
  local label=$1; shift
  local a b
  a=$("$@" "$CHAIN")
  b=$("$@" "$BRANCHY")
  printf '%-44s %10s %10s\n' "$label" "$a" "$b"
  eval "${label// /_}=(\"$a\" \"$b\")" 2> /dev/null || true
}
key_of() { curl -sf -H "Authorization: token $TOKEN" "$BASE/api/files" | "$PY" -c "import json,sys; print([f['key'] for f in json.load(sys.stdin)['files'] if f['name'].endswith('/' + sys.argv[1])][0])" "$(basename "$1")"; }
t_open() { best "$DECODE" --values 0 "$1"; }
t_dot() { best "$DECODE" --graph dot "$1"; }
t_svg() { best "$DECODE" --graph svg "$1"; }
t_api_auto() { best api "$(key_of "$1")" auto; }
t_api_none() { best api "$(key_of "$1")" none; }
t_graphviz() {
  "$DECODE" --graph dot --fold none "$1" > "$TMP/g.dot"
  local s e
  s=$(date +%s.%N)
  if timeout "$DOT_TIMEOUT" dot -Tsvg "$TMP/g.dot" > /dev/null 2>&1; then
    e=$(date +%s.%N)
    printf '%.3f' "$(echo "$e - $s" | bc)"
  else
    printf '>%s' "$DOT_TIMEOUT"
  fi
}
row "decode --values 0 (open, baseline)" t_open
row "decode --graph dot" t_dot
row "decode --graph svg" t_svg
row "/api/graph fold=auto" t_api_auto
row "/api/graph fold=none" t_api_none
row "Graphviz dot -Tsvg (fold=none DOT)" t_graphviz
