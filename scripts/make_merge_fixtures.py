#!/usr/bin/env python3
"""Writes tests/fixtures/merge/: inputs in which a field that is not
repeated occurs more than once, so that protobuf's merge rules decide what
the message holds. Needs onnx, numpy and protobuf (grpcio-tools for the
user-schema case); run from the repository root.

usage: scripts/make_merge_fixtures.py
"""
import importlib.util
import os
import struct
import sys
import tempfile

import numpy as np
import onnx
from onnx import helper, numpy_helper
from wire import key, lfield, varint, vfield

OUT = "tests/fixtures/merge"


def write(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
    print(f"{name}: {len(data)} bytes")


def two_graphs():
    """A model whose `graph` occurs twice: onnx.load sees the nodes and
    initializers of both (a reader that keeps the last hides `hidden`)."""
    g1 = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["h"], name="hidden")], "first", [], [],
        initializer=[numpy_helper.from_array(np.array([1, 2], dtype=np.float32), "w1")])
    g2 = helper.make_graph(
        [helper.make_node("Neg", ["h"], ["y"], name="shown")], "second", [], [],
        initializer=[numpy_helper.from_array(np.array([3], dtype=np.float32), "w2")])
    m = helper.make_model(g1, producer_name="merge-test")
    tail = onnx.ModelProto()
    tail.graph.CopyFrom(g2)
    data = m.SerializeToString() + tail.SerializeToString()
    merged = onnx.load_from_string(data)
    assert [n.name for n in merged.graph.node] == ["hidden", "shown"]
    assert merged.graph.name == "second"
    write("two_graphs.onnx", data)


def hidden_bad_tensor():
    """The first `graph` holds an initializer whose raw_data is short; the
    second is clean. Validation must see the merged graph."""
    bad = onnx.TensorProto(name="short", data_type=onnx.TensorProto.FLOAT, dims=[4])
    bad.raw_data = b"\0" * 12
    g1 = helper.make_graph([], "first", [], [], initializer=[bad])
    g2 = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="n")], "second", [], [])
    m = helper.make_model(g1, producer_name="merge-test")
    tail = onnx.ModelProto()
    tail.graph.CopyFrom(g2)
    write("hidden_bad_tensor.onnx", m.SerializeToString() + tail.SerializeToString())


def tensor_dims_twice():
    """A FLOAT tensor written as two messages: dims [2] and raw_data of one
    float, then dims [3] and raw_data of six floats (the last raw_data wins,
    dims concatenate to [2, 3])."""
    a = onnx.TensorProto(name="t", data_type=onnx.TensorProto.FLOAT, dims=[2])
    a.raw_data = struct.pack("<f", 9.0)
    b = onnx.TensorProto(dims=[3])
    b.raw_data = np.arange(6, dtype=np.float32).tobytes()
    data = a.SerializeToString() + b.SerializeToString()
    t = onnx.load_tensor_from_string(data)
    assert list(t.dims) == [2, 3] and numpy_helper.to_array(t).shape == (2, 3)
    write("tensor_dims_twice.pb", data)


def tf_shape_twice():
    """A GraphDef with one Const whose tensor has `tensor_shape` twice
    ({dim 2} then {dim 3}: TensorFlow merges them to [2, 3]) and six floats
    in tensor_content. Written by hand (field numbers of tensorflow's
    graph.proto, node_def.proto, attr_value.proto, tensor.proto)."""
    shape1 = lfield(2, vfield(1, 2))
    shape2 = lfield(2, vfield(1, 3))
    content = np.arange(6, dtype=np.float32).tobytes()
    tensor = vfield(1, 1) + lfield(2, shape1) + lfield(2, shape2) + lfield(4, content)
    value_attr = lfield(5, lfield(1, b"value") + lfield(2, lfield(8, tensor)))
    dtype_attr = lfield(5, lfield(1, b"dtype") + lfield(2, vfield(6, 1)))
    node = lfield(1, b"c") + lfield(2, b"Const") + dtype_attr + value_attr
    versions = lfield(4, vfield(1, 1000))
    write("tf_shape_twice.pb", lfield(1, node) + versions)


def user_schema_case():
    """mc.Outer of merge.proto: three messages concatenated, covering a
    scalar given twice, a oneof whose member changes, a repeated field packed
    and unpacked, a nested message merged, a map key given twice and a
    group given twice."""
    with tempfile.TemporaryDirectory() as d:
        from grpc_tools import protoc
        src = os.path.join(OUT, "merge.proto")
        if protoc.main(["protoc", f"-I{OUT}", f"--python_out={d}", src]) != 0:
            sys.exit("protoc failed")
        spec = importlib.util.spec_from_file_location("merge_pb2", os.path.join(d, "merge_pb2.py"))
        pb = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(pb)
    a = pb.Outer()
    a.x = 1
    a.one.a = 1
    a.one.r.extend([1, 2])
    a.one.child.s = "kept"
    a.one.oi = 5
    a.c2 = 7
    a.mi[1].a = 10
    a.ms["k"] = "first"
    a.g.ga = 1
    a.g.gr.append(1)
    b = pb.Outer()
    b.x = 2
    b.one.r.append(3)
    b.one.child.a = 4
    b.one.os = "later member"
    b.c1.s = "message member"
    b.ms["k"] = "second"
    b.ms["j"] = "other"
    b.mi[1].s = "replaces"
    b.g.gr.append(2)
    b.packed.extend([5, 6])
    # Unpacked occurrences of the packed field 4 after the packed ones.
    unpacked = vfield(4, 7) + vfield(4, 8)
    c = pb.Outer()
    c.c1.a = 9
    data = a.SerializeToString() + b.SerializeToString() + unpacked + c.SerializeToString()
    m = pb.Outer.FromString(data)
    assert m.x == 2 and list(m.one.r) == [1, 2, 3] and m.one.a == 1
    assert m.one.os == "later member" and m.one.child.s == "kept" and m.one.child.a == 4
    assert m.WhichOneof("choice") == "c1" and m.c1.s == "message member" and m.c1.a == 9
    assert m.ms["k"] == "second" and m.mi[1].s == "replaces" and not m.mi[1].HasField("a")
    assert list(m.packed) == [5, 6, 7, 8] and m.g.ga == 1 and list(m.g.gr) == [1, 2]
    write("outer.pb", data)


def main():
    os.makedirs(OUT, exist_ok=True)
    two_graphs()
    hidden_bad_tensor()
    tensor_dims_twice()
    tf_shape_twice()
    user_schema_case()


if __name__ == "__main__":
    main()
