#!/usr/bin/env bash
# Whole-tensor passes against their references, all in one run on the same
# machine: statistics (the text view of a 256 MiB tensor, which computes
# them over every value) against numpy computing the same figures (min,
# max, mean, std, NaN/+Inf/-Inf/zero counts) and against `cat FILE >
# /dev/null`; `--npy` against `cp`; `--json` of every value against the
# same command of a baseline build (BASE=path/to/old/decode, optional).
# Each command runs RUNS times (default 5); the median wall time is printed
# with the ratios. Not a test. The tensors come from
# scripts/make_big_tensors.py (never committed).
#
# usage: scripts/bench_values.sh [DIR]   (default /tmp/pbdecode-bench)
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${1:-/tmp/pbdecode-bench}
RUNS=${RUNS:-5}
TYPES=${TYPES:-"FLOAT FLOAT16 INT8 DOUBLE"}
cargo build --release --quiet
DECODE=$PWD/target/release/decode
python3 scripts/make_big_tensors.py "$WORK" 256 $TYPES >/dev/null

# median wall seconds of RUNS runs of a command (stdout discarded)
median() {
  python3 - "$RUNS" "$@" <<'PY'
import statistics, subprocess, sys, time
runs, cmd = int(sys.argv[1]), sys.argv[2:]
ts = []
for _ in range(runs):
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    ts.append(time.perf_counter() - t)
print(f"{statistics.median(ts):.3f}")
PY
}

# numpy's time for the figures, the array already in memory (median)
numpy_stats() {
  python3 - "$RUNS" "$1" <<'PY'
import statistics, sys, time
import numpy as np
runs, path = int(sys.argv[1]), sys.argv[2]
a = np.load(path)
ts = []
for _ in range(runs):
    t = time.perf_counter()
    x = a
    nan = np.isnan(x).sum() if x.dtype.kind == "f" else 0
    pinf = np.isposinf(x).sum() if x.dtype.kind == "f" else 0
    ninf = np.isneginf(x).sum() if x.dtype.kind == "f" else 0
    zeros = (x == 0).sum()
    f = x[np.isfinite(x)] if x.dtype.kind == "f" else x
    lo, hi = f.min(), f.max()
    mean, std = f.mean(dtype=np.float64), f.std(dtype=np.float64)
    ts.append(time.perf_counter() - t)
print(f"{statistics.median(ts):.3f}")
PY
}

ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }

echo "median of $RUNS runs, wall seconds; the machine may be shared"
printf "%-8s %-34s %8s %-22s %8s %7s\n" type work decode reference ref ratio
for T in $TYPES; do
  PB=$WORK/big_$T.pb
  cat_t=$(median cat "$PB")
  np_t=$(numpy_stats "$WORK/big_$T.npy")
  st_t=$(median "$DECODE" --values 0 "$PB")
  printf "%-8s %-34s %8s %-22s %8s %7s\n" "$T" "statistics (decode --values 0)" "$st_t" "numpy figures" "$np_t" "$(ratio "$st_t" "$np_t")"
  printf "%-8s %-34s %8s %-22s %8s %7s\n" "$T" "" "" "cat FILE >/dev/null" "$cat_t" "$(ratio "$st_t" "$cat_t")"
  tv_t=$(median "$DECODE" "$PB")
  printf "%-8s %-34s %8s %-22s %8s %7s\n" "$T" "text view (decode FILE)" "$tv_t" "cat FILE >/dev/null" "$cat_t" "$(ratio "$tv_t" "$cat_t")"
done
PB=$WORK/big_FLOAT.pb
cp_t=$(median cp "$PB" "$WORK/copy.tmp")
npy_t=$(median "$DECODE" --npy "$WORK/out.npy" "$PB")
printf "%-8s %-34s %8s %-22s %8s %7s\n" FLOAT "--npy OUT FILE" "$npy_t" "cp FILE" "$cp_t" "$(ratio "$npy_t" "$cp_t")"
json_t=$(median sh -c "'$DECODE' --json '$PB' > /dev/null")
if [ -n "${BASE:-}" ]; then
  base_t=$(median sh -c "'$BASE' --json '$PB' > /dev/null")
  printf "%-8s %-34s %8s %-22s %8s %7s\n" FLOAT "--json (every value)" "$json_t" "baseline build" "$base_t" "$(ratio "$json_t" "$base_t")"
else
  printf "%-8s %-34s %8s\n" FLOAT "--json (every value)" "$json_t"
fi
rm -f "$WORK/copy.tmp" "$WORK/out.npy"
