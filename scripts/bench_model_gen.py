#!/usr/bin/env python3
"""Writes a large ONNX model for scripts/bench_model.sh.

    python3 scripts/bench_model_gen.py OUT.onnx [--mib 1024] [--nodes 20000] [--inits 400]

The graph (nodes, inputs, outputs) is made with the onnx package; the
initializers are written as protobuf bytes directly (a FLOAT TensorProto with
dims, data_type, name and raw_data each), streamed to the file so that the
generator never holds the whole model in memory.
"""
import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper
from wire import key, lfield as ld, varint


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--mib", type=int, default=1024)
    ap.add_argument("--nodes", type=int, default=20000)
    ap.add_argument("--inits", type=int, default=400)
    a = ap.parse_args()

    cols = 1024
    per_init = a.mib * 1024 * 1024 // a.inits
    rows = max(1, per_init // (4 * cols))
    # A chain of nodes with a few attributes each; every 50th node reads an
    # initializer so that the weights are used.
    nodes = []
    prev = "x"
    for i in range(a.nodes):
        out = f"t{i}"
        k = i % 4
        if k == 0 and (i // 4) < a.inits:
            nodes.append(helper.make_node("Add", [prev, f"w{i // 4}"], [out], name=f"add{i}"))
        elif k == 1:
            nodes.append(helper.make_node("LeakyRelu", [prev], [out], name=f"relu{i}", alpha=0.01))
        elif k == 2:
            nodes.append(helper.make_node("Transpose", [prev], [out], name=f"tr{i}", perm=[1, 0]))
        else:
            nodes.append(helper.make_node("Identity", [prev], [out], name=f"id{i}"))
        prev = out
    graph = helper.make_graph(
        nodes, "bench",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [rows, cols])],
        [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [rows, cols])])
    graph_head = graph.SerializeToString()

    rng = np.random.default_rng(0)
    block = rng.standard_normal(rows * cols).astype(np.float32).tobytes()

    data_len = len(block)

    def init_head(i):
        """Everything of initializer i before its raw bytes."""
        t = key(1, 0) + varint(rows) + key(1, 0) + varint(cols) + key(2, 0) + varint(TensorProto.FLOAT)
        t += ld(8, f"w{i}".encode()) + key(9, 2) + varint(data_len)
        return key(5, 2) + varint(len(t) + data_len) + t

    graph_len = len(graph_head) + sum(len(init_head(i)) + data_len for i in range(a.inits))
    model = helper.make_model(onnx.GraphProto(), producer_name="pbdecode-bench",
                              opset_imports=[helper.make_opsetid("", 21)], ir_version=10)
    model.ClearField("graph")
    head = model.SerializeToString()
    with open(a.out, "wb") as f:
        f.write(head)
        f.write(key(7, 2) + varint(graph_len))
        f.write(graph_head)
        for i in range(a.inits):
            f.write(init_head(i))
            # Vary the first value so that the tensors differ.
            f.write(np.float32(i).tobytes())
            f.write(memoryview(block)[4:])
    size = len(head) + len(key(7, 2) + varint(graph_len)) + graph_len
    print(f"{a.out}: {size} bytes, {a.nodes} nodes, {a.inits} FLOAT initializers [{rows}, {cols}]")


if __name__ == "__main__":
    main()
