#!/usr/bin/env python3
"""Writes a branchy ONNX model of about NODES nodes for scripts/bench_graph.sh:
residual blocks named as exporters name them (`/model.K/cv1/conv/Conv`), each
Conv -> Relu -> Conv -> Add (the block's input added back), with a Concat of
the last blocks' outputs every eighth block; small initializers.

    python3 scripts/bench_graph_gen.py OUT.onnx [--nodes 20000]

Needs the onnx package (pip install onnx numpy).
"""
import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--nodes", type=int, default=20000)
    a = ap.parse_args()

    c = 8
    nodes, inits = [], []
    prev = "images"
    recent = []
    block = 0
    while len(nodes) < a.nodes:
        p = f"/model.{block}"
        w1, w2 = f"model.{block}.cv1.weight", f"model.{block}.cv2.weight"
        for w in (w1, w2):
            inits.append(numpy_helper.from_array(np.zeros((c, c, 1, 1), np.float32), w))
        nodes += [
            helper.make_node("Conv", [prev, w1], [f"{p}/cv1/Conv_output_0"], name=f"{p}/cv1/conv/Conv"),
            helper.make_node("Relu", [f"{p}/cv1/Conv_output_0"], [f"{p}/cv1/Relu_output_0"], name=f"{p}/cv1/act/Relu"),
            helper.make_node("Conv", [f"{p}/cv1/Relu_output_0", w2], [f"{p}/cv2/Conv_output_0"], name=f"{p}/cv2/conv/Conv"),
            helper.make_node("Add", [prev, f"{p}/cv2/Conv_output_0"], [f"{p}/Add_output_0"], name=f"{p}/Add"),
        ]
        prev = f"{p}/Add_output_0"
        recent.append(prev)
        if block % 8 == 7:
            nodes.append(helper.make_node("Concat", recent[-4:], [f"{p}/Concat_output_0"], name=f"{p}/Concat", axis=1))
            nodes.append(helper.make_node("Conv", [f"{p}/Concat_output_0", f"model.{block}.cv3.weight"], [f"{p}/cv3/Conv_output_0"], name=f"{p}/cv3/conv/Conv"))
            inits.append(numpy_helper.from_array(np.zeros((c, 4 * c, 1, 1), np.float32), f"model.{block}.cv3.weight"))
            prev = f"{p}/cv3/Conv_output_0"
        block += 1
    graph = helper.make_graph(
        nodes, "bench_graph",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, c, 64, 64])],
        [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [1, c, 64, 64])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, a.out)
    print(f"{a.out}: {len(nodes)} nodes, {len(inits)} initializers")


if __name__ == "__main__":
    main()
