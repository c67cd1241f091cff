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
from google.protobuf import json_format
from onnx import numpy_helper

VALUE_FIELDS = {"raw_data", "float_data", "int32_data", "string_data", "int64_data", "double_data", "uint64_data"}
DATA_TYPE_FIELDS = {"data_type", "elem_type", "key_type"}


def compare(exp, act, path):
    """None when `act` (our JSON) says what MessageToDict says, by the JSON
    contract: int64 as numbers, data types by name, element fields replaced
    by "values" (checked on tensor files)."""
    if isinstance(exp, dict):
        if not isinstance(act, dict):
            return f"{path}: expected an object"
        for k, v in exp.items():
            if k in VALUE_FIELDS:
                if "values" not in act:
                    return f"{path}: no values"
                continue
            if k not in act:
                return f"{path}.{k}: missing"
            if k in DATA_TYPE_FIELDS and isinstance(v, int):
                names = {**{d.number: d.name for d in onnx.TensorProto.DataType.DESCRIPTOR.values},
                         } if k != "elem_type" or isinstance(act[k], str) and act[k] in onnx.TensorProto.DataType.keys() else {}
                if act[k] != v and names.get(v) != act[k] and not (k == "elem_type" and isinstance(act[k], str)):
                    return f"{path}.{k}: expected {v}, got {act[k]}"
                continue
            d = compare(v, act[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(exp, list):
        if not isinstance(act, list) or len(exp) != len(act):
            return f"{path}: expected {len(exp)} items, got {len(act) if isinstance(act, list) else act!r}"
        for i, (e, a) in enumerate(zip(exp, act)):
            d = compare(e, a, f"{path}[{i}]")
            if d:
                return d
        return None
    if isinstance(exp, str) and isinstance(act, int) and not isinstance(act, bool):
        return None if exp == str(act) else f"{path}: expected {exp}, got {act}"
    if isinstance(exp, float) or isinstance(act, float):
        return None if same(exp, act) else f"{path}: expected {exp!r}, got {act!r}"
    return None if exp == act else f"{path}: expected {exp!r}, got {act!r}"


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
        if got["format"] != "onnx-model":
            return f"format {got['format']}"
        m = onnx.ModelProto()
        m.ParseFromString(data)
        exp = json_format.MessageToDict(m, preserving_proto_field_name=True)
        return compare(exp, got["value"], "$")
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
