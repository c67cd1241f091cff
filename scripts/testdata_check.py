#!/usr/bin/env python3
"""Checks decode's test-data workflows on a folder of ONNX tests (e.g. the
node tests written by scripts/gen_node_testdata.py):

1. `decode -r DIR --jsonl` (one process, all cores) against one
   `decode --json FILE` process per file (xargs -n1), timed in the same run;
2. every batch line equals the single-file JSON with "file" added (as text:
   `{"file": F, ` + the rest of the single-file line);
3. every input_K.pb / output_K.pb is named by its model as the onnx package
   reads it (input K = the K-th graph input that is not an initializer,
   output K = the K-th graph output), files declared optional/seq/map are
   read as OptionalProto/SequenceProto/MapProto, and no declared-type
   warning appears.

usage: scripts/testdata_check.py [--decoder PATH] DIR
"""
import argparse
import json
import os
import subprocess
import sys
import time

import onnx


def kind(t):
    return t.WhichOneof("value")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--decoder", default="target/release/decode")
    ap.add_argument("dir")
    a = ap.parse_args()
    dec = os.path.abspath(a.decoder)

    t0 = time.perf_counter()
    p = subprocess.run([dec, "-r", a.dir, "--jsonl"], capture_output=True)
    t_batch = time.perf_counter() - t0
    lines = p.stdout.decode().splitlines()
    files = [json.loads(l)["file"] for l in lines]
    print(f"batch: {len(lines)} lines, exit {p.returncode}, {t_batch:.2f} s")
    print("  " + p.stderr.decode().strip().splitlines()[-1])

    listing = "\0".join(files).encode()
    t0 = time.perf_counter()
    q = subprocess.run(["xargs", "-0", "-n1", dec, "--json"], input=listing, capture_output=True)
    t_single = time.perf_counter() - t0
    singles = q.stdout.decode().splitlines()
    print(f"one process per file: {len(singles)} lines, {t_single:.2f} s")
    print(f"batch speed-up: {t_single / t_batch:.1f}x")

    bad_eq = 0
    if len(singles) != len(lines):
        print("FAIL: line counts differ")
        bad_eq += 1
    for f, b, s in zip(files, lines, singles):
        want = '{"file": ' + json.dumps(f, ensure_ascii=False) + ", " + s[1:]
        if b != want:
            bad_eq += 1
            if bad_eq <= 5:
                print(f"FAIL line of {f} differs from its single-file JSON")
    print(f"lines equal to the single-file JSON: {len(lines) - bad_eq} of {len(lines)}")

    models = {}
    bad = 0
    named = resolved = 0
    for f, line in zip(files, lines):
        base = os.path.basename(f)
        parent = os.path.dirname(f)
        if not (base.startswith(("input_", "output_")) and base.endswith(".pb")
                and os.path.basename(parent).startswith("test_data_set")):
            continue
        mp = os.path.join(os.path.dirname(parent), "model.onnx")
        if mp not in models:
            m = onnx.load(mp, load_external_data=False)
            inits = {i.name for i in m.graph.initializer}
            models[mp] = ([i for i in m.graph.input if i.name not in inits], list(m.graph.output))
        ins, outs = models[mp]
        role, k = base[:-3].split("_")
        port = (ins if role == "input" else outs)[int(k)]
        got = json.loads(line)
        why = None
        mo = got.get("model")
        if "error" in got:
            why = f"error {got['error']}"
        elif not mo or mo.get("name") != port.name or mo.get("role") != role or mo.get("index") != int(k):
            why = f"named {mo}, onnx says {role} {k} {port.name!r}"
        elif mo.get("warnings"):
            why = f"warnings {mo['warnings']}"
        else:
            want = {"optional_type": "onnx.OptionalProto", "sequence_type": "onnx.SequenceProto",
                    "map_type": "onnx.MapProto", "tensor_type": "onnx.TensorProto",
                    "sparse_tensor_type": "onnx.SparseTensorProto"}.get(kind(port.type))
            if got["type"] != want:
                why = f"type {got['type']}, declared {kind(port.type)}"
            elif "also" in got:
                why = f"also {got['also']} left"
            elif want in ("onnx.OptionalProto", "onnx.SequenceProto", "onnx.MapProto"):
                resolved += 1
        if why:
            bad += 1
            if bad <= 10:
                print(f"FAIL {f}: {why}")
        else:
            named += 1
    print(f"test files named by their model: {named}, of which containers resolved by the declaration: {resolved}; failures: {bad}")
    return 1 if bad or bad_eq or p.returncode else 0


if __name__ == "__main__":
    sys.exit(main())
