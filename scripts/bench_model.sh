#!/usr/bin/env bash
# Benchmark (not a test): decode a large ModelProto and compare with
# onnx.load. Wall time and peak RSS from /usr/bin/time -v, as ratios.
#
#   scripts/bench_model.sh [MiB] [NODES] [INITIALIZERS]     (defaults 1024 20000 400)
#
# Needs python3 with onnx and numpy (pip install onnx numpy) and GNU time
# (apt-get install time). The model is written to ${BENCH_DIR:-/tmp}/pbdecode_bench_MiB.onnx
# and kept for later runs. Each command runs once to warm the page cache,
# then RUNS times (default 3); the best time and the largest RSS are kept.
set -euo pipefail
cd "$(dirname "$0")/.."
MIB=${1:-1024}
NODES=${2:-20000}
INITS=${3:-400}
RUNS=${RUNS:-3}
DIR=${BENCH_DIR:-/tmp}
MODEL="$DIR/pbdecode_bench_${MIB}.onnx"
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "GNU time is missing: apt-get install time" >&2; exit 2; }

cargo build --release --quiet
if [ ! -f "$MODEL" ]; then
  start=$(date +%s.%N)
  python3 scripts/bench_model_gen.py "$MODEL" --mib "$MIB" --nodes "$NODES" --inits "$INITS"
  echo "generated in $(echo "$(date +%s.%N) - $start" | bc) s"
fi
ls -l "$MODEL"

TMP_TIME=$(mktemp)
trap 'rm -f "$TMP_TIME"' EXIT

# measure CMD...: prints "wall_seconds max_rss_kib" (best wall, max RSS).
measure() {
  "$@" > /dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
  local best="" rss=0
  for _ in $(seq "$RUNS"); do
    local out
    "$TIME" -v -o "$TMP_TIME" "$@" > /dev/null 2>&1
    out=$(cat "$TMP_TIME")
    local wall kib
    wall=$(echo "$out" | awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,p,":"); s=0; for(i=1;i<=n;i++) s=s*60+p[i]; print s}')
    kib=$(echo "$out" | awk -F': ' '/Maximum resident set size/ {print $2}')
    if [ -z "$best" ] || (( $(echo "$wall < $best" | bc) )); then best=$wall; fi
    (( kib > rss )) && rss=$kib
  done
  echo "$best $rss"
}

read -r d_wall d_rss < <(measure target/release/decode --values 8 "$MODEL")
read -r j_wall j_rss < <(measure target/release/decode --json --values 8 "$MODEL")
read -r p_wall p_rss < <(measure python3 -c "import onnx, sys; onnx.load(sys.argv[1])" "$MODEL")
size_kib=$(( $(stat -c %s "$MODEL") / 1024 ))

printf '%-34s %10s %12s\n' "" "wall (s)" "peak RSS"
printf '%-34s %10s %9d MiB\n' "decode --values 8 (text)" "$d_wall" $((d_rss / 1024))
printf '%-34s %10s %9d MiB\n' "decode --json --values 8" "$j_wall" $((j_rss / 1024))
printf '%-34s %10s %9d MiB\n' "python: onnx.load" "$p_wall" $((p_rss / 1024))
printf '%-34s %10s %9d MiB\n' "model file" "" $((size_kib / 1024))
echo "time ratio   decode / onnx.load: $(echo "scale=4; $d_wall / $p_wall" | bc)"
echo "time ratio   decode --json / onnx.load: $(echo "scale=4; $j_wall / $p_wall" | bc)"
echo "memory ratio decode / onnx.load: $(echo "scale=4; $d_rss / $p_rss" | bc)"
echo "memory ratio decode / file size: $(echo "scale=4; $d_rss / $size_kib" | bc)"
