#!/usr/bin/env python3
"""Writes the example files the README's recipes name, in examples/files/.

    pip install onnx numpy
    python3 scripts/make_examples.py

`model.onnx` is a small convolutional network as PyTorch exports one
(weights named `conv1.weight`, `conv1.bias`, ...); `expected.pb` and
`actual.pb` are two ONNX tensors of its output shape that agree within
`decode diff`'s default tolerance. Values come from a fixed seed, so
re-running writes the same bytes (for a given onnx version). The bytes are
committed; tests/it/readme.rs runs the README's recipes on them and never
runs Python.
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "files")


def model():
    rng = np.random.default_rng(31)

    def weight(name, shape):
        return numpy_helper.from_array(
            (rng.standard_normal(shape) * 0.1).astype(np.float32), name
        )

    inits = [
        weight("conv1.weight", (8, 3, 3, 3)),
        weight("conv1.bias", (8,)),
        weight("conv2.weight", (16, 8, 3, 3)),
        weight("conv2.bias", (16,)),
        weight("fc.weight", (10, 16)),
        weight("fc.bias", (10,)),
    ]
    nodes = [
        helper.make_node("Conv", ["input", "conv1.weight", "conv1.bias"], ["/conv1/Conv_output_0"],
                         name="/conv1/Conv", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["/conv1/Conv_output_0"], ["/relu1/Relu_output_0"], name="/relu1/Relu"),
        helper.make_node("MaxPool", ["/relu1/Relu_output_0"], ["/pool/MaxPool_output_0"],
                         name="/pool/MaxPool", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["/pool/MaxPool_output_0", "conv2.weight", "conv2.bias"],
                         ["/conv2/Conv_output_0"], name="/conv2/Conv", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["/conv2/Conv_output_0"], ["/relu2/Relu_output_0"], name="/relu2/Relu"),
        helper.make_node("GlobalAveragePool", ["/relu2/Relu_output_0"], ["/gap/GlobalAveragePool_output_0"],
                         name="/gap/GlobalAveragePool"),
        helper.make_node("Flatten", ["/gap/GlobalAveragePool_output_0"], ["/Flatten_output_0"],
                         name="/Flatten"),
        helper.make_node("Gemm", ["/Flatten_output_0", "fc.weight", "fc.bias"], ["logits"],
                         name="/fc/Gemm", transB=1),
    ]
    graph = helper.make_graph(
        nodes,
        "main_graph",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", 3, 32, 32])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 10])],
        inits,
    )
    m = helper.make_model(graph, producer_name="pytorch", producer_version="2.5.0",
                          opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m, full_check=True)
    return m


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "model.onnx"), "wb") as f:
        f.write(model().SerializeToString())
    rng = np.random.default_rng(32)
    expected = rng.standard_normal((1, 10)).astype(np.float32)
    actual = (expected * (1 + 1e-5)).astype(np.float32)
    for name, value in (("expected.pb", expected), ("actual.pb", actual)):
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(numpy_helper.from_array(value, "logits").SerializeToString())


if __name__ == "__main__":
    main()
