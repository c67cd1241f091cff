#!/usr/bin/env bash
# Whole-tensor passes against their references, all in one run on the same
# machine: statistics (the text view of a 256 MiB tensor, which computes
# them over every value) against numpy computing the same figures (min,
# max, mean, std, NaN/+Inf/-Inf/zero counts) and against `cat FILE >
# /dev/null`; `--npy` against `cp`; `--json` of every value against the
# same command of a baseline build (BASE=path/to/old/decode, optional), and
# so is the text view of every value (`--values all`).
# Each command runs RUNS times (default 5); the median wall time is printed
# with the ratios. Not a test. The tensors come from
# scripts/make_big_tensors.py (never committed).
#
# usage: scripts/bench_values.sh [DIR]   (default /tmp/pbdecode-bench)
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${1:-/tmp/pbdecode-bench}
RUNS=${RUNS:-5}
TYPES=${TYPES:-"FLOAT FLOAT16 INT8 DOUBLE INT64"}
cargo build --release --quiet
DECODE=$PWD/target/release/decode
python3 scripts/make_big_tensors.py "$WORK" 256 $TYPES >/dev/null

# median wall seconds of RUNS runs of a command (stdout discarded); the
# median CPU seconds (user + system, children included) go to $WORK/.cpu
median() {
  python3 - "$RUNS" "$WORK/.cpu" "$@" <<'PY'
import os, statistics, subprocess, sys, time
runs, cpu_file, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
ts, cs = [], []
for _ in range(runs):
    c0 = os.times()
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    ts.append(time.perf_counter() - t)
    c1 = os.times()
    cs.append(c1.children_user + c1.children_system - c0.children_user - c0.children_system)
print(f"{statistics.median(ts):.3f}")
with open(cpu_file, "w") as f:
    f.write(f"{statistics.median(cs):.2f}")
PY
}
# the CPU seconds of the last decode measured, as "(N cpu)"
cpu() { echo "($(cat "$WORK/.cpu") cpu)"; }

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

echo "median of $RUNS runs, wall seconds (CPU seconds of decode); the machine may be shared"
echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-8s %-34s %8s %-22s %8s %7s\n" type work decode reference ref ratio
for T in $TYPES; do
  PB=$WORK/big_$T.pb
  cat_t=$(median cat "$PB")
  np_t=$(numpy_stats "$WORK/big_$T.npy")
  st_t=$(median "$DECODE" --values 0 "$PB")
  st_c=$(cpu)
  printf "%-8s %-34s %8s %-22s %8s %7s\n" "$T" "statistics (decode --values 0)" "$st_t" "numpy figures" "$np_t" "$(ratio "$st_t" "$np_t")  $st_c"
  printf "%-8s %-34s %8s %-22s %8s %7s\n" "$T" "" "" "cat FILE >/dev/null" "$cat_t" "$(ratio "$st_t" "$cat_t")"
  tv_t=$(median "$DECODE" "$PB")
  tv_c=$(cpu)
  printf "%-8s %-34s %8s %-22s %8s %7s\n" "$T" "text view (decode FILE)" "$tv_t" "cat FILE >/dev/null" "$cat_t" "$(ratio "$tv_t" "$cat_t")  $tv_c"
done
PB=$WORK/big_FLOAT.pb
# A new output file (removed before each run; decode then renames it
# into place without a sync, as cp writes without one), and over an
# existing file (which decode syncs before the rename replaces it).
cp_t=$(median sh -c 'rm -f "$1"; exec cp "$2" "$1"' sh "$WORK/copy.tmp" "$PB")
npy_t=$(median sh -c 'rm -f "$1"; exec "$2" --npy "$1" "$3" 2>/dev/null' sh "$WORK/out.npy" "$DECODE" "$PB")
npy_c=$(cpu)
printf "%-8s %-34s %8s %-22s %8s %7s\n" FLOAT "--npy OUT FILE (new file)" "$npy_t" "cp FILE (new file)" "$cp_t" "$(ratio "$npy_t" "$cp_t")  $npy_c"
cp_t=$(median cp "$PB" "$WORK/copy.tmp")
npy_t=$(median sh -c 'exec "$2" --npy "$1" "$3" 2>/dev/null' sh "$WORK/out.npy" "$DECODE" "$PB")
npy_c=$(cpu)
printf "%-8s %-34s %8s %-22s %8s %7s\n" FLOAT "--npy OUT FILE (replacing it)" "$npy_t" "cp FILE (replacing)" "$cp_t" "$(ratio "$npy_t" "$cp_t")  $npy_c"
json_t=$(median sh -c "'$DECODE' --json '$PB' > /dev/null")
json_c=$(cpu)
if [ -n "${BASE:-}" ]; then
  base_t=$(median sh -c "'$BASE' --json '$PB' > /dev/null")
  printf "%-8s %-34s %8s %-22s %8s %7s\n" FLOAT "--json (every value)" "$json_t" "baseline build $(cpu)" "$base_t" "$(ratio "$json_t" "$base_t")  $json_c"
else
  printf "%-8s %-34s %8s %s\n" FLOAT "--json (every value)" "$json_t" "$json_c"
fi
all_t=$(median sh -c "'$DECODE' --values all '$PB' > /dev/null")
all_c=$(cpu)
if [ -n "${BASE:-}" ]; then
  base_t=$(median sh -c "'$BASE' --values all '$PB' > /dev/null")
  printf "%-8s %-34s %8s %-22s %8s %7s\n" FLOAT "text, --values all" "$all_t" "baseline build $(cpu)" "$base_t" "$(ratio "$all_t" "$base_t")  $all_c"
else
  printf "%-8s %-34s %8s %s\n" FLOAT "text, --values all" "$all_t" "$all_c"
fi
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -f "$WORK/copy.tmp" "$WORK/out.npy" "$WORK/.cpu"
