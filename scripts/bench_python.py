#!/usr/bin/env python3
"""Measures the Python package against the references, in one run on one
machine, each measurement in a fresh process (time: the best of REPEAT runs;
memory: the growth of RssAnon, the process's anonymous memory, which the
file's mapped pages are not):

1. a 256 MiB FLOAT tensor file: `pbdecode.load` (copy=None; the file keeps
   raw_data aligned, as a writer can) against `onnx.load_tensor` +
   `numpy_helper.to_array`, and `safetensors.numpy.safe_open` + `get_tensor`
   of the same values;
2. a 1 GiB model (scripts/bench_model_gen.py: 400 FLOAT initializers):
   `pbdecode.open` + every initializer as an array (copy=None and
   copy=False; the count of tensors whose raw_data happens to be aligned)
   against `onnx.load` + `to_array` of each;
3. reading every value (a sum in float64) of the 256 MiB tensor's array
   against `np.memmap` of the same bytes.

Needs the package installed (pip install ./python) and `pip install onnx
numpy safetensors`; writes its inputs to DIR (default /tmp/pbdecode-bench-py).

usage: scripts/bench_python.py [DIR] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from wire import key, varint  # noqa: E402

MIB = 1 << 20


def tensor_file(path: Path, values: np.ndarray, align: int = 64) -> int:
    """A FLOAT TensorProto whose raw_data starts at a multiple of `align`
    (the name is padded to get there); returns that offset."""
    raw = values.astype("<f4").tobytes()
    dims = b"".join(key(1, 0) + varint(d) for d in values.shape)
    head = dims + key(2, 0) + varint(1)
    for pad in range(align + 16):
        name = b"big" + b"_" * pad
        prefix = head + key(8, 2) + varint(len(name)) + name + key(9, 2) + varint(len(raw))
        if len(prefix) % align == 0:
            break
    with open(path, "wb") as f:
        f.write(prefix)
        f.write(raw)
    return len(prefix)


def child(code: str) -> dict:
    """Runs `code` in a fresh interpreter; it prints one JSON object."""
    prelude = textwrap.dedent(
        """
        import json, time, gc
        def anon():
            for line in open("/proc/self/status"):
                if line.startswith("RssAnon:"):
                    return int(line.split()[1]) * 1024
        """
    )
    out = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def timed(setup: str, body: str, repeat: int) -> dict:
    """Best time of `body` over `repeat` fresh processes, and its RssAnon growth."""
    best, grew = None, None
    for _ in range(repeat):
        r = child(
            setup
            + "\n"
            + "gc.collect()\nbefore = anon()\nt0 = time.perf_counter()\n"
            + body
            + "\nt1 = time.perf_counter()\nprint(json.dumps({'s': t1 - t0, 'anon': anon() - before}))\n"
        )
        best = r["s"] if best is None else min(best, r["s"])
        grew = r["anon"] if grew is None else min(grew, r["anon"])
    return {"ms": best * 1e3, "anon_mib": grew / MIB}


def row(name: str, r: dict, ref: dict | None = None) -> None:
    ratio = f"  x{r['ms'] / ref['ms']:.2f} of the reference" if ref else ""
    print(f"  {name:<46} {r['ms']:9.2f} ms  +{r['anon_mib']:8.1f} MiB RssAnon{ratio}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("dir", nargs="?", default="/tmp/pbdecode-bench-py", type=Path)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--model-mib", type=int, default=1024)
    a = ap.parse_args()
    a.dir.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(7)
    values = rng.standard_normal(256 * MIB // 4, dtype=np.float32).reshape(-1, 1024)
    big = a.dir / "big_float.pb"
    offset = tensor_file(big, values)
    from safetensors.numpy import save_file

    st = a.dir / "big_float.safetensors"
    save_file({"big": values}, str(st))
    del values
    model = a.dir / "model.onnx"
    if not model.exists():
        subprocess.run(
            [sys.executable, str(Path(__file__).with_name("bench_model_gen.py")), str(model), "--mib", str(a.model_mib)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    print(f"{big}: 256 MiB FLOAT [{256 * MIB // 4096}, 1024], raw_data at offset {offset}")
    print(f"{model}: {model.stat().st_size / MIB:.0f} MiB")
    r = a.repeat
    p = f"import numpy as np, pbdecode, onnx\nfrom onnx import numpy_helper\nbig = {str(big)!r}\nmodel = {str(model)!r}\nst = {str(st)!r}\n"

    print("\n1. a 256 MiB tensor file to an array")
    onnx_t = timed(p, "a = numpy_helper.to_array(onnx.load_tensor(big))", r)
    row("onnx.load_tensor + to_array", onnx_t)
    st_t = timed(p + "from safetensors.numpy import safe_open\n", "with safe_open(st, 'np') as f: a = f.get_tensor('big')", r)
    row("safetensors safe_open + get_tensor", st_t, onnx_t)
    ours = timed(p, "a = pbdecode.load(big)", r)
    row("pbdecode.load", ours, onnx_t)
    row("pbdecode.load(copy=True)", timed(p, "a = pbdecode.load(big, copy=True)", r), onnx_t)

    print("\n2. a 1 GiB model: open + every initializer as an array")
    onnx_m = timed(p, "m = onnx.load(model)\narrays = [numpy_helper.to_array(t) for t in m.graph.initializer]", max(1, r // 2))
    row("onnx.load + to_array of each", onnx_m)
    for copy in ("None", "False"):
        res = timed(p, f"f = pbdecode.open(model)\narrays = [t.numpy(copy={copy}) for t in f.tensors.values()]", r)
        row(f"pbdecode.open + numpy(copy={copy}) of each", res, onnx_m)
    aligned = child(p + "f = pbdecode.open(model)\nts = list(f.tensors.values())\n"
                    "print(json.dumps({'n': len(ts), 'aligned': sum(t.numpy(copy=False).flags.aligned for t in ts)}))")  # fmt: skip
    print(f"  ({aligned['aligned']} of {aligned['n']} initializers have their raw_data aligned for float32)")

    print("\n3. reading every value (a float64 sum) of the 256 MiB tensor")
    mm = timed(
        p + f"a = np.memmap(big, dtype='<f4', mode='r', offset={offset}, shape=({256 * MIB // 4},))\n",
        "s = a.sum(dtype=np.float64)",
        r,
    )
    row("np.memmap of the same bytes", mm)
    view = timed(p + "a = pbdecode.load(big)\n", "s = a.sum(dtype=np.float64)", r)
    row("pbdecode.load's view", view, mm)
    stats = timed(p + "f = pbdecode.open(big)\nt = f.tensors['big' + '_' * 0] if 'big' in f.tensors else list(f.tensors.values())[0]\n", "s = t.stats()", r)
    row("Tensor.stats() (the library's kernel)", stats, mm)
    return 0


if __name__ == "__main__":
    sys.exit(main())
