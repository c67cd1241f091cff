#!/usr/bin/env python3
"""Compares the decoder's values for every Const of a GraphDef fixture with
what TensorFlow gives (expect_values.json, written by make_tf_fixtures.py):
C++ Tensor::FromProto (parse_tensor) first, Python make_ndarray where C++
refuses. Python 3 alone; no TensorFlow needed.

Usage: scripts/tf_crosscheck.py [DECODER] [FIXTURE_DIR]
"""
import json
import math
import subprocess
import sys

decoder = sys.argv[1] if len(sys.argv) > 1 else "target/release/decode"
folder = sys.argv[2] if len(sys.argv) > 2 else "tests/fixtures/tf"
expect = json.load(open(f"{folder}/expect_values.json"))
out = json.loads(subprocess.run([decoder, "--json", f"{folder}/graph_all_forms.pb"],
                                capture_output=True, check=True).stdout)


def same(a, b):
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if a == b:
            return math.copysign(1, a) == math.copysign(1, b) if a == 0 else True
        return abs(a - b) <= 1e-6 * max(abs(a), abs(b))
    return a == b


bad = 0
for node in out["value"]["node"]:
    if node.get("op") != "Const":
        continue
    name = node["name"]
    got = node["attr"]["value"]["tensor"].get("values")
    e = expect[name]
    ref = e.get("parse_tensor") or e.get("make_ndarray")
    if ref is None:
        print(f"{name:24} TensorFlow refuses it ({e.get('parse_tensor_error', '')[:60]}); decoder: {got}")
        continue
    ok = same(got, ref["values"])
    bad += not ok
    print(f"{name:24} {'ok ' if ok else 'BAD'} tf={ref['values']} decoder={got}")
print(f"{bad} mismatches")
sys.exit(1 if bad else 0)
