#!/usr/bin/env python3
"""Cross-check decode against the onnx package on every .pb/.onnx file under
the given folders (default: the test data shipped inside the onnx wheel).

For tensor files the values must equal onnx.numpy_helper.to_array (floats
compared as float32, NaN equal to NaN); sequences, maps and optionals must be
reported as onnx-sequence; models as onnx-model. Needs `pip install onnx
numpy`; not part of `cargo test`.

usage: scripts/crosscheck_onnx.py [--decoder PATH] [DIR...]
"""
import argparse
import json
import math
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def same(a, b):
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    if isinstance(a, dict) and "base64" in a:
        return True
    try:
        fa, fb = float(a if not isinstance(a, str) else {"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}[a]), float(b)
    except (TypeError, KeyError, ValueError):
        return a == b
    if math.isnan(fa) and math.isnan(fb):
        return True
    return fa == fb or np.float32(fa) == np.float32(fb)


def expected_values(t):
    arr = numpy_helper.to_array(t)
    flat = arr.reshape(-1)
    out = []
    for v in flat:
        if isinstance(v, (bytes, np.bytes_)):
            out.append(v.decode("utf-8", "replace"))
        elif np.iscomplexobj(v):
            out.append([float(v.real), float(v.imag)])
        elif isinstance(v, (np.bool_, bool)):
            out.append(bool(v))
        elif np.issubdtype(type(v), np.integer):
            out.append(int(v))
        else:
            out.append(float(np.float64(v.astype(np.float32)) if hasattr(v, "astype") and v.dtype.itemsize < 4 else v))
    return out


def check(decoder, path):
    p = subprocess.run([decoder, "--json", path], capture_output=True, timeout=60)
    if p.returncode != 0:
        return f"exit {p.returncode}: {p.stderr.decode(errors='replace').strip()[:200]}"
    got = json.loads(p.stdout)
    data = open(path, "rb").read()
    if path.endswith(".onnx"):
        return None if got["format"] == "onnx-model" else f"format {got['format']}"
    t = onnx.TensorProto()
    try:
        t.ParseFromString(data)
        ok = t.data_type != 0
    except Exception:
        ok = False
    if ok and got["format"] == "onnx-tensor":
        try:
            exp = expected_values(t)
        except Exception as e:  # numpy_helper cannot read it: compare nothing
            return None
        vals = got["value"].get("values")
        if vals is None:
            return "values unavailable"
        if len(vals) != len(exp):
            return f"{len(vals)} values, onnx has {len(exp)}"
        for i, (a, b) in enumerate(zip(vals, exp)):
            if isinstance(a, list):
                if not (same(a[0], b[0]) and same(a[1], b[1])):
                    return f"value {i}: {a} != {b}"
            elif not same(a, b) and not (isinstance(a, bool) and a == b):
                return f"value {i}: {a!r} != {b!r}"
        return None
    if got["format"] in ("onnx-sequence", "onnx-sparse-tensor"):
        return None
    return f"format {got['format']} (onnx reads data_type {t.data_type if ok else '-'})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--decoder", default="target/release/decode")
    ap.add_argument("dirs", nargs="*")
    a = ap.parse_args()
    dirs = a.dirs or [os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data")]
    files = []
    for d in dirs:
        for root, _, names in os.walk(d):
            files += [os.path.join(root, n) for n in names if n.endswith((".pb", ".onnx"))]
    files.sort()
    bad = 0
    for f in files:
        why = check(a.decoder, f)
        if why:
            bad += 1
            if bad <= 20:
                print(f"FAIL {f}\n     {why}")
    print(f"{len(files) - bad} passed, {bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
