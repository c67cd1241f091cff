#!/usr/bin/env bash
# Benchmark of the schemaless reading: `decode --as protobuf` (text and
# JSON) against `protoc --decode_raw` (python -m grpc_tools.protoc, from
# `pip install grpcio-tools`) on the same machine, on a 16 MiB ONNX tensor
# and a large ONNX model built here (plain Python, no numpy). Prints time
# and peak memory (/usr/bin/time -v) and the ratios. Not a test.
#
# usage: scripts/bench_schemaless.sh [MODEL_MIB]   (default 256)
set -euo pipefail
cd "$(dirname "$0")/.."
MODEL_MIB=${1:-256}
WORK=${BENCH_DIR:-/tmp/pbdecode-bench}
mkdir -p "$WORK"
cargo build --release --quiet
DECODE=target/release/decode

python3 - "$WORK" "$MODEL_MIB" <<'PY'
import os, random, struct, sys
work, model_mib = sys.argv[1], int(sys.argv[2])
def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7f) | 0x80); v >>= 7
    out.append(v); return bytes(out)
def field(n, wt, payload):
    k = varint((n << 3) | wt)
    return k + (varint(len(payload)) + payload if wt == 2 else payload)
rng = random.Random(1)
def floats(count):
    # A block of random floats repeated: random() per value is slow in Python.
    block = struct.pack('<4096f', *[rng.gauss(0, 1) for _ in range(4096)])
    reps, rest = divmod(count, 4096)
    return block * reps + block[: rest * 4]
def tensor(name, dims, data):
    t = b''.join(field(1, 0, varint(d)) for d in dims)
    return t + field(2, 0, varint(1)) + field(8, 2, name.encode()) + field(9, 2, data)
path = os.path.join(work, 'tensor_16mib.pb')
if not os.path.exists(path):
    n = 16 * 1024 * 1024 // 4
    open(path, 'wb').write(tensor('x', [4, 1024, 1024], floats(n)))
path = os.path.join(work, f'model_{model_mib}mib.onnx')
if not os.path.exists(path):
    per = 256 * 1024  # floats per initializer (1 MiB)
    graph = bytearray()
    for i in range(model_mib):
        graph += field(5, 2, tensor(f'w{i}', [512, 512], floats(per)))
        node = field(1, 2, f'x{i}'.encode()) + field(1, 2, f'w{i}'.encode())
        node += field(2, 2, f'x{i+1}'.encode()) + field(3, 2, f'mm{i}'.encode())
        node += field(4, 2, b'MatMul')
        graph += field(1, 2, node)
    graph += field(2, 2, b'bench')
    model = field(1, 0, varint(8)) + field(2, 2, b'pbdecode-bench')
    model += field(8, 2, field(2, 0, varint(17)))
    model += field(7, 2, bytes(graph))
    open(path, 'wb').write(model)
PY

measure() { # label, command...: prints "seconds maxrss_kib"
  local label=$1; shift
  /usr/bin/time -v "$@" > /dev/null 2> "$WORK/time.txt" || true
  local secs kib
  secs=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$WORK/time.txt")
  kib=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time.txt")
  printf '%-34s %8.2f s %10d KiB\n' "$label" "$secs" "$kib" >&2
  echo "$secs $kib"
}

for f in "$WORK/tensor_16mib.pb" "$WORK/model_${MODEL_MIB}mib.onnx"; do
  size=$(stat -c %s "$f")
  echo "== $(basename "$f") ($size bytes)" >&2
  read -r p_s p_k < <(measure "protoc --decode_raw" sh -c "python3 -m grpc_tools.protoc --decode_raw < '$f'")
  read -r t_s t_k < <(measure "decode --as protobuf" "$DECODE" --as protobuf "$f")
  read -r j_s j_k < <(measure "decode --as protobuf --json" "$DECODE" --as protobuf --json "$f")
  awk -v ps="$p_s" -v pk="$p_k" -v ts="$t_s" -v tk="$t_k" -v js="$j_s" -v jk="$j_k" 'BEGIN {
    printf "  text: %.1fx faster, %.1fx less memory; JSON (every value): %.1fx faster, %.1fx less memory\n",
      ps/(ts>0?ts:0.01), pk/tk, ps/(js>0?js:0.01), pk/jk }' >&2
done
