#!/usr/bin/env bash
# The one abi3 wheel on every CPython from 3.10 on that this machine has
# (pyenv's or on PATH): a fresh venv per version, numpy 1.26 on 3.10 and
# 3.11 and the newest numpy 2 on all, the wheel installed, then a smoke test
# (a tensor file, a model's views, a DecodeError) against the command's JSON.
#
#   scripts/python_versions.sh [WHEEL]     (default: built by maturin)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
wheel=${1:-}
if [ -z "$wheel" ]; then
  python3 -m venv "$work/build"
  "$work/build/bin/pip" install --quiet --disable-pip-version-check "maturin>=1.5,<2"
  (cd "$repo/python" && "$work/build/bin/maturin" build --quiet --release --out "$work/dist")
  wheel=$(ls "$work"/dist/*.whl)
fi
pythons=()
for v in 3.10 3.11 3.12 3.13 3.14; do
  for p in "$HOME"/.pyenv/versions/"$v".*/bin/python3 "$(command -v "python$v" || true)"; do
    if [ -x "$p" ]; then pythons+=("$v:$p"); break; fi
  done
done
[ ${#pythons[@]} -gt 0 ] || { echo "no CPython 3.10 or later found" >&2; exit 1; }
smoke='
import json, subprocess, sys
import numpy as np, pbdecode
fx = sys.argv[1]
t = pbdecode.load(fx + "/example_x_3x4x5.pb")
want = json.loads(subprocess.run([sys.argv[2], "--json", "--values", "all", fx + "/example_x_3x4x5.pb"],
                                 capture_output=True, check=True).stdout)["value"]["values"]
assert t.shape == (3, 4, 5) and t.dtype == np.float32, (t.shape, t.dtype)
assert np.array_equal(t.reshape(-1), np.array(want, dtype=np.float32))
with pbdecode.open(fx + "/onnx-model/everything.onnx") as f:
    arrays = {n: np.asarray(x) for n, x in f.tensors.items()}
    assert f.summary["parameters"] == 70, f.summary
assert arrays and all(a.size >= 0 for a in arrays.values())
try:
    pbdecode.load(fx + "/onnx-tensor/bad_len_past_end.pb", format="onnx-tensor")
except pbdecode.DecodeError as e:
    assert e.check == "length", e.check
else:
    raise AssertionError("bad_len_past_end.pb decoded")
print(f"python {sys.version.split()[0]}, numpy {np.__version__}: {len(arrays)} arrays, ok")
'
(cd "$repo" && cargo build --quiet --bin decode)
decode="${CARGO_TARGET_DIR:-$repo/target}/debug/decode"
for entry in "${pythons[@]}"; do
  v=${entry%%:*}; p=${entry#*:}
  numpys=("numpy>=2")
  case "$v" in 3.10|3.11) numpys=("numpy==1.26.*" "numpy>=2") ;; esac
  for np_req in "${numpys[@]}"; do
    env="$work/venv-$v-${np_req//[^0-9a-z]/}"
    "$p" -m venv "$env"
    "$env/bin/pip" install --quiet --disable-pip-version-check "$np_req" ml_dtypes "$wheel"
    (cd "$work" && "$env/bin/python" -c "$smoke" "$repo/tests/fixtures" "$decode")
  done
done
