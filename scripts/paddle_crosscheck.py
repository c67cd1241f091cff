#!/usr/bin/env python3
"""Checks the decoder against PaddlePaddle on PaddlePaddle inference models.

For each program given (an `inference.pdmodel` or `__model__` with its
parameters beside it), Paddle itself loads the model
(paddle.static.load_inference_model, with the program format Paddle 2.x
writes) and gives every parameter's values from its scope; the decoder's
`--json --values all` must give each parameter (`side_tensors`) with the
same name, data type, shape and values, bit for bit (NaN payloads aside),
and no other. Then the graph: `decode --graph dot` must draw one box per op
of the global block, as many as the program's ops (Paddle's
ProgramDesc, read by Paddle's own protobuf classes), and each sub-block's
graph (`--graph-id K`) one per op of block K.

Needs paddlepaddle and numpy (pip install paddlepaddle numpy).

Usage: scripts/paddle_crosscheck.py --decoder target/release/decode MODEL...
"""
import argparse
import json
import os
import re
import subprocess
import sys

os.environ["FLAGS_enable_pir_api"] = "0"
os.environ.setdefault("GLOG_minloglevel", "3")
import numpy as np  # noqa: E402
import paddle  # noqa: E402
from paddle.base.proto import framework_pb2  # noqa: E402

NUMPY = {"BOOL": np.bool_, "INT16": np.int16, "INT32": np.int32,
         "INT64": np.int64, "FP16": np.float16, "FP32": np.float32,
         "FP64": np.float64, "UINT8": np.uint8, "INT8": np.int8,
         "UINT16": np.uint16, "UINT32": np.uint32, "UINT64": np.uint64}


def paddle_params(model):
    """Every parameter Paddle loads with the program, by name."""
    folder, name = os.path.split(model)
    if name == "__model__":
        params = "__params__"
    else:
        params = name[: -len(".pdmodel")] + ".pdiparams"
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        program, _, _ = paddle.static.io.load_inference_model(
            folder, exe, model_filename=name, params_filename=params)
        out = {}
        for var in program.global_block().vars.values():
            if not var.persistable or var.type in (
                    paddle.base.core.VarDesc.VarType.FEED_MINIBATCH,
                    paddle.base.core.VarDesc.VarType.FETCH_LIST,
                    paddle.base.core.VarDesc.VarType.RAW):
                continue
            found = scope.find_var(var.name)
            if found is None:
                continue
            out[var.name] = np.array(found.get_tensor())
    return out


def values_of(t):
    """A side tensor's values from the decoder's JSON, as numpy."""
    ty = NUMPY[t["data_type"]]
    vals = t["values"]
    if np.issubdtype(ty, np.floating):
        conv = [{"NaN": np.nan, "Infinity": np.inf, "-Infinity": -np.inf}.get(v, v)
                if isinstance(v, str) else v for v in vals]
        return np.array(conv, dtype=np.float64).astype(ty).reshape(t["shape"])
    return np.array(vals, dtype=ty).reshape(t["shape"])


def check(decoder, model):
    problems = []
    ran = subprocess.run([decoder, model, "--json", "--values", "all"],
                         capture_output=True, check=True)
    doc = json.loads(ran.stdout)
    decoded = {t["name"]: t for t in doc.get("side_tensors", [])}
    expected = paddle_params(model)
    if set(decoded) != set(expected):
        problems.append(f"names: decoder {sorted(set(decoded) - set(expected))} "
                        f"paddle {sorted(set(expected) - set(decoded))}")
    values = 0
    for name, want in expected.items():
        t = decoded.get(name)
        if t is None:
            continue
        if t.get("values") is None:
            problems.append(f"{name}: {t.get('values_unavailable')}")
            continue
        got = values_of(t)
        if got.dtype != want.dtype or got.shape != want.shape:
            problems.append(f"{name}: {got.dtype}{got.shape} vs {want.dtype}{want.shape}")
            continue
        same = (got.view(np.uint8) == want.view(np.uint8)).all() if got.size else True
        if not same and not np.array_equal(got, want, equal_nan=True):
            problems.append(f"{name}: values differ")
        values += want.size
    # The graph: one box per op of each block.
    prog = framework_pb2.ProgramDesc()
    with open(model, "rb") as f:
        prog.ParseFromString(f.read())
    boxes = []
    for k, block in enumerate(prog.blocks):
        dot = subprocess.run([decoder, model, "--graph", "dot", "--graph-id", str(k),
                              "--fold", "none"],
                             capture_output=True, check=True, text=True).stdout
        drawn = len(re.findall(r"^\s+b\d+ \[label=", dot, flags=re.M))
        boxes.append(drawn)
        if drawn != len(block.ops):
            problems.append(f"block {k}: {drawn} boxes, {len(block.ops)} ops")
    return problems, len(expected), values, [len(b.ops) for b in prog.blocks], boxes


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--decoder", required=True)
    ap.add_argument("models", nargs="+")
    args = ap.parse_args()
    paddle.enable_static()
    bad = 0
    for model in args.models:
        problems, params, values, ops, boxes = check(args.decoder, model)
        status = "ok" if not problems else "FAIL"
        print(f"{status} {model}: {params} parameters, {values} values equal; "
              f"ops per block {ops}, boxes {boxes}")
        for p in problems:
            print("   ", p)
        bad += bool(problems)
    print(f"{len(args.models) - bad} passed, {bad} failed")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
