#!/usr/bin/env python3
"""Cross-check protobuf's merge rules: decode --json against the protobuf
Python runtime (MessageToDict) and onnx.load on inputs where fields occur
more than once.

Protobuf parses the concatenation of two serialized messages as their merge,
so each case here is several random messages serialized and concatenated
(some written with packed, some with unpacked repeated fields), parsed by
the Python runtime and by `decode --schema merge.proto --type mc.Outer
--json`. The schema covers singular scalars (last wins), oneofs (the last
member set wins, a message member merges), repeated fields (concatenated,
packed and unpacked mixed), nested singular messages and groups (merged
recursively) and maps (the last entry of a key wins). A second part builds
ONNX models with several `graph` fields and tensors whose `dims` and
`raw_data` occur twice, and compares decode with onnx.load and
onnx.numpy_helper.

Needs protobuf, grpcio-tools, onnx and numpy; not part of `cargo test`.

usage: scripts/merge_crosscheck.py [--decoder PATH] [--cases N] [--seed S]
"""
import argparse
import base64
import importlib.util
import json
import math
import os
import random
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from google.protobuf import json_format
from onnx import helper, numpy_helper
from wire import varint

HERE = os.path.dirname(os.path.abspath(__file__))

# The schema of the generic cases: the committed fixture, so that the
# script and tests/it/merge_rules.rs read the same file.
PROTO = os.path.join(os.path.dirname(HERE), "tests", "fixtures", "merge", "merge.proto")


def compile_proto(folder):
    path = PROTO
    from grpc_tools import protoc
    rc = protoc.main(["protoc", f"-I{os.path.dirname(path)}", f"--python_out={folder}", path])
    if rc != 0:
        sys.exit("protoc failed")
    spec = importlib.util.spec_from_file_location("merge_pb2", os.path.join(folder, "merge_pb2.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return path, mod


# --- random messages -------------------------------------------------------

WORDS = ["", "a", "b", "key", "k2", "x"]


def rand_inner(pb, rng, depth):
    m = pb.Inner()
    if rng.random() < 0.5:
        m.a = rng.randint(-2**31, 2**31 - 1)
    for _ in range(rng.randint(0, 3)):
        m.r.append(rng.randint(-1000, 1000))
    if rng.random() < 0.4:
        m.s = rng.choice(WORDS) + str(rng.randint(0, 9))
    if depth < 3 and rng.random() < 0.4:
        m.child.CopyFrom(rand_inner(pb, rng, depth + 1))
    for _ in range(rng.randint(0, 2)):
        m.m[rng.choice(WORDS)] = rng.randint(-5, 5)
    which = rng.random()
    if which < 0.25:
        m.oi = rng.randint(-100, 100)
    elif which < 0.5:
        m.os = rng.choice(WORDS)
    elif which < 0.75 and depth < 3:
        m.om.CopyFrom(rand_inner(pb, rng, depth + 1))
    if rng.random() < 0.3:
        m.color = rng.choice([0, 1, 2])
    return m


def rand_outer(pb, rng):
    m = pb.Outer()
    if rng.random() < 0.6:
        m.one.CopyFrom(rand_inner(pb, rng, 0))
    for _ in range(rng.randint(0, 2)):
        m.many.append(rand_inner(pb, rng, 1))
    if rng.random() < 0.5:
        m.x = rng.randint(-2**63, 2**63 - 1)
    for _ in range(rng.randint(0, 4)):
        m.packed.append(rng.randint(-2**40, 2**40))
    for _ in range(rng.randint(0, 2)):
        m.mi[rng.randint(-2, 2)].CopyFrom(rand_inner(pb, rng, 2))
    for _ in range(rng.randint(0, 2)):
        m.ms[rng.choice(WORDS)] = rng.choice(WORDS)
    which = rng.random()
    if which < 0.3:
        m.c1.CopyFrom(rand_inner(pb, rng, 1))
    elif which < 0.5:
        m.c2 = rng.randint(-100, 100)
    elif which < 0.7:
        m.c3 = bytes(rng.randrange(256) for _ in range(rng.randint(0, 4)))
    if rng.random() < 0.4:
        m.b = bytes(rng.randrange(256) for _ in range(rng.randint(0, 5)))
    if rng.random() < 0.4:
        m.d = rng.choice([0.5, -1.25, 1e300, 3.0])
    if rng.random() < 0.4:
        m.flag = rng.random() < 0.5
    if rng.random() < 0.4:
        m.z = rng.randint(-2**31, 2**31 - 1)
    for _ in range(rng.randint(0, 3)):
        m.fl.append(rng.choice([0.5, 1.0, -2.25]))
    if rng.random() < 0.4:
        if rng.random() < 0.7:
            m.g.ga = rng.randint(-9, 9)
        for _ in range(rng.randint(0, 2)):
            m.g.gr.append(rng.randint(0, 9))
    for _ in range(rng.randint(0, 2)):
        m.mb[rng.random() < 0.5].CopyFrom(rand_inner(pb, rng, 2))
    return m


def unpack(data, pb):
    """The same message with the packed fields 4 (Outer.packed) written one
    value per field, as a proto2 writer without [packed] would."""
    m = pb.Outer.FromString(data)
    values = list(m.packed)
    m.ClearField("packed")
    tail = b"".join(b"\x20" + varint(v) for v in values)
    return m.SerializeToString() + tail


# --- comparing -------------------------------------------------------------

INT64_FIELDS = {"x", "packed"}


def norm_expected(v):
    """MessageToDict writes int64 as strings; decode writes numbers (the
    int64 fields are all in Outer, the root)."""
    return {k: (norm_int(x) if k in INT64_FIELDS else x) for k, x in v.items()}


def norm_int(v):
    if isinstance(v, list):
        return [int(x) for x in v]
    return int(v)


def diff(exp, act, path="$"):
    if isinstance(exp, dict):
        if not isinstance(act, dict):
            return f"{path}: expected an object, got {act!r}"
        act = {k: x for k, x in act.items() if k != "unknown_fields"}
        ek, ak = set(exp), set(act)
        if ek != ak:
            return f"{path}: keys {sorted(ek)} expected, got {sorted(ak)}"
        for k in exp:
            d = diff(exp[k], act[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(exp, list):
        if not isinstance(act, list) or len(exp) != len(act):
            return f"{path}: expected {exp!r}, got {act!r}"
        for i, (e, a) in enumerate(zip(exp, act)):
            d = diff(e, a, f"{path}[{i}]")
            if d:
                return d
        return None
    if isinstance(exp, float) or isinstance(act, float):
        if isinstance(exp, (int, float)) and isinstance(act, (int, float)):
            if float(exp) == float(act) or (math.isnan(float(exp)) and math.isnan(float(act))):
                return None
        return f"{path}: expected {exp!r}, got {act!r}"
    if exp != act:
        return f"{path}: expected {exp!r}, got {act!r}"
    return None


def decode_json(decoder, args, data, folder):
    path = os.path.join(folder, "case.pb")
    with open(path, "wb") as f:
        f.write(data)
    p = subprocess.run([decoder, "--json", *args, path], capture_output=True, timeout=60)
    if p.returncode != 0:
        return None, f"exit {p.returncode}: {p.stderr.decode(errors='replace')[:300]}"
    return json.loads(p.stdout), None


def generic_cases(decoder, pb, proto, folder, n, rng):
    passed = failed = merged_fields = 0
    for i in range(n):
        parts = []
        for _ in range(rng.randint(2, 4)):
            data = rand_outer(pb, rng).SerializeToString()
            if rng.random() < 0.5:
                data = unpack(data, pb)
            parts.append(data)
        data = b"".join(parts)
        msg = pb.Outer.FromString(data)
        exp = norm_expected(json_format.MessageToDict(msg, preserving_proto_field_name=True))
        # Count what actually merged: fields present in more than one part.
        seen = [set(f.name for f, _ in pb.Outer.FromString(p).ListFields()) for p in parts]
        merged_fields += sum(1 for name in set().union(*seen) if sum(name in s for s in seen) > 1)
        got, err = decode_json(decoder, ["--schema", proto, "--type", "mc.Outer"], data, folder)
        why = err or diff(exp, got["value"])
        if why:
            failed += 1
            if failed <= 10:
                bad = os.path.join(folder, f"fail{i}.pb")
                with open(bad, "wb") as f:
                    f.write(data)
                print(f"FAIL generic case {i} ({bad})\n     {why}")
        else:
            passed += 1
    return passed, failed, merged_fields


# --- ONNX ------------------------------------------------------------------

def onnx_model(rng, k):
    """A model whose graph is given `k` times, each with its own nodes and
    initializers; onnx.load merges them."""
    parts = []
    for j in range(k):
        nodes = [helper.make_node("Relu", [f"x{j}_{i}"], [f"y{j}_{i}"], name=f"n{j}_{i}")
                 for i in range(rng.randint(1, 3))]
        inits = [numpy_helper.from_array(np.arange(rng.randint(1, 4), dtype=np.float32) + j, name=f"w{j}")]
        g = helper.make_graph(nodes, f"g{j}", [], [], initializer=inits)
        if j == 0:
            m = helper.make_model(g, producer_name="merge")
        else:
            m = onnx.ModelProto()
            m.graph.CopyFrom(g)
            if rng.random() < 0.5:
                m.producer_name = f"later{j}"
        parts.append(m.SerializeToString())
    return b"".join(parts)


def onnx_tensor(rng):
    """A FLOAT tensor whose dims are split over two occurrences and whose
    raw_data occurs twice (the second, the right size, wins)."""
    a, b = rng.randint(1, 3), rng.randint(1, 3)
    first = onnx.TensorProto(data_type=onnx.TensorProto.FLOAT, dims=[a], name="t")
    first.raw_data = np.zeros(1, dtype=np.float32).tobytes()
    second = onnx.TensorProto(dims=[b])
    second.raw_data = (np.arange(a * b, dtype=np.float32) + 0.5).tobytes()
    return first.SerializeToString() + second.SerializeToString()


def onnx_cases(decoder, folder, n, rng):
    passed = failed = 0
    for i in range(n):
        data = onnx_model(rng, rng.randint(2, 3))
        m = onnx.load_from_string(data)
        got, err = decode_json(decoder, [], data, folder)
        why = err
        if not why:
            g = got["value"].get("graph", {})
            exp_nodes = [nd.name for nd in m.graph.node]
            act_nodes = [nd.get("name") for nd in g.get("node", [])]
            exp_inits = [t.name for t in m.graph.initializer]
            act_inits = [t.get("name") for t in g.get("initializer", [])]
            if got["format"] != "onnx-model":
                why = f"format {got['format']}"
            elif exp_nodes != act_nodes:
                why = f"nodes {act_nodes}, onnx.load has {exp_nodes}"
            elif exp_inits != act_inits:
                why = f"initializers {act_inits}, onnx.load has {exp_inits}"
            elif g.get("name") != m.graph.name or got["value"].get("producer_name") != m.producer_name:
                why = "graph name or producer differs"
        if why:
            failed += 1
            print(f"FAIL onnx model case {i}\n     {why}")
        else:
            passed += 1
    for i in range(n):
        data = onnx_tensor(rng)
        t = onnx.load_tensor_from_string(data)
        exp = [float(v) for v in numpy_helper.to_array(t).reshape(-1)]
        got, err = decode_json(decoder, [], data, folder)
        why = err
        if not why:
            v = got["value"]
            if got["format"] != "onnx-tensor":
                why = f"format {got['format']}"
            elif v.get("dims") != list(t.dims):
                why = f"dims {v.get('dims')}, onnx has {list(t.dims)}"
            elif v.get("values") != exp:
                why = f"values {v.get('values')}, onnx has {exp}"
        if why:
            failed += 1
            print(f"FAIL onnx tensor case {i}\n     {why}")
        else:
            passed += 1
    return passed, failed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--decoder", default="target/release/decode")
    ap.add_argument("--cases", type=int, default=500)
    ap.add_argument("--seed", type=int, default=12)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    with tempfile.TemporaryDirectory() as folder:
        proto, pb = compile_proto(folder)
        gp, gf, merged = generic_cases(a.decoder, pb, proto, folder, a.cases, rng)
        print(f"generic (mc.Outer vs MessageToDict): {gp} passed, {gf} failed; "
              f"{merged} fields occurred in more than one part")
        op, of = onnx_cases(a.decoder, folder, max(1, a.cases // 10), rng)
        print(f"onnx (models vs onnx.load, tensors vs numpy_helper): {op} passed, {of} failed")
    print(f"{gp + op} passed, {gf + of} failed")
    return 1 if gf + of else 0


if __name__ == "__main__":
    sys.exit(main())
