#!/usr/bin/env python3
"""Writes tests/fixtures/onnx-testdata/: small ONNX test folders (model.onnx
and test_data_set_N/{input,output}_K.pb as onnx's backend test writer makes
them) and pairs of files for `decode diff`. Needs onnx and numpy; the tests
read the committed bytes only.

usage: scripts/make_testdata_fixtures.py
"""
import os
import shutil

import numpy as np
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "onnx-testdata")


def save(path, msg):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(msg.SerializeToString())


def model(name, inputs, outputs, nodes, initializers=()):
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=list(initializers))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)], producer_name="pbdecode-fixtures")


def main():
    if os.path.exists(ROOT):
        for n in os.listdir(ROOT):
            if n != "README.md":
                p = os.path.join(ROOT, n)
                shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
    rng = np.random.default_rng(11)
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)

    # A tensor test whose second graph input is an initializer: input_1.pb
    # is the graph's third input.
    d = os.path.join(ROOT, "test_add_bias")
    bias = f32(3, 4)
    save(os.path.join(d, "model.onnx"), model(
        "add_bias",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4]),
         helper.make_tensor_value_info("bias", TensorProto.FLOAT, [3, 4]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [3, 4])],
        [helper.make_node("Add", ["x", "bias"], ["t"]), helper.make_node("Add", ["t", "y"], ["z"])],
        [numpy_helper.from_array(bias, "bias")]))
    for k in range(2):
        x, y = f32(3, 4), f32(3, 4)
        s = os.path.join(d, f"test_data_set_{k}")
        save(os.path.join(s, "input_0.pb"), numpy_helper.from_array(x, "x"))
        save(os.path.join(s, "input_1.pb"), numpy_helper.from_array(y, "y"))
        save(os.path.join(s, "output_0.pb"), numpy_helper.from_array(x + bias + y, "z"))

    # An optional input: a present value (the bytes are also a one-element
    # SequenceProto) and an empty one.
    d = os.path.join(ROOT, "test_optional_has_element")
    opt = helper.make_optional_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, [4]))
    save(os.path.join(d, "model.onnx"), model(
        "optional", [helper.make_value_info("opt", opt)],
        [helper.make_tensor_value_info("has", TensorProto.BOOL, [])],
        [helper.make_node("OptionalHasElement", ["opt"], ["has"])]))
    s = os.path.join(d, "test_data_set_0")
    save(os.path.join(s, "input_0.pb"), numpy_helper.from_optional(f32(4), "opt"))
    save(os.path.join(s, "output_0.pb"), numpy_helper.from_array(np.array(True), "has"))
    s = os.path.join(d, "test_data_set_1")
    save(os.path.join(s, "input_0.pb"), numpy_helper.from_optional(None, "opt"))
    save(os.path.join(s, "output_0.pb"), numpy_helper.from_array(np.array(False), "has"))

    # A sequence input with one element (also an OptionalProto by its bytes).
    d = os.path.join(ROOT, "test_sequence_length")
    seq = helper.make_sequence_type_proto(helper.make_tensor_type_proto(TensorProto.INT64, [2, None]))
    save(os.path.join(d, "model.onnx"), model(
        "sequence", [helper.make_value_info("seq", seq)],
        [helper.make_tensor_value_info("len", TensorProto.INT64, [])],
        [helper.make_node("SequenceLength", ["seq"], ["len"])]))
    s = os.path.join(d, "test_data_set_0")
    save(os.path.join(s, "input_0.pb"), numpy_helper.from_list([np.arange(6, dtype=np.int64).reshape(2, 3)], "seq"))
    save(os.path.join(s, "output_0.pb"), numpy_helper.from_array(np.array(1, dtype=np.int64), "len"))

    # A map input (ai.onnx.ml style): map(INT64, FLOAT[]).
    d = os.path.join(ROOT, "test_map_identity")
    mp = helper.make_map_type_proto(TensorProto.INT64, helper.make_tensor_type_proto(TensorProto.FLOAT, []))
    save(os.path.join(d, "model.onnx"), model(
        "map", [helper.make_value_info("m", mp)], [helper.make_value_info("out", mp)],
        [helper.make_node("Identity", ["m"], ["out"])]))
    s = os.path.join(d, "test_data_set_0")
    m = {3: np.array(0.5, dtype=np.float32), -1: np.array(2.0, dtype=np.float32)}
    save(os.path.join(s, "input_0.pb"), numpy_helper.from_dict(m, "m"))
    save(os.path.join(s, "output_0.pb"), numpy_helper.from_dict(m, "out"))

    # Data that does not match the declared types: an INT32 file for an
    # INT64[2, ?] input, a [2, 4] file for a FLOAT[N, 3] input, a tensor
    # where a sequence is declared, and an input the model does not have.
    d = os.path.join(ROOT, "test_mismatch")
    save(os.path.join(d, "model.onnx"), model(
        "mismatch",
        [helper.make_tensor_value_info("x", TensorProto.INT64, [2, None]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])],
        [helper.make_value_info("s", helper.make_sequence_type_proto(
            helper.make_tensor_type_proto(TensorProto.FLOAT, [2])))],
        [helper.make_node("Foo", ["x", "y"], ["s"], domain="test")]))
    s = os.path.join(d, "test_data_set_0")
    save(os.path.join(s, "input_0.pb"), numpy_helper.from_array(np.arange(6, dtype=np.int32).reshape(2, 3), "x"))
    save(os.path.join(s, "input_1.pb"), numpy_helper.from_array(f32(2, 4), "y"))
    save(os.path.join(s, "input_2.pb"), numpy_helper.from_array(f32(1), "extra"))
    save(os.path.join(s, "output_0.pb"), numpy_helper.from_array(f32(2), "s"))

    # Pairs for decode diff.
    d = os.path.join(ROOT, "diff")
    e = f32(2, 3, 4)
    save(os.path.join(d, "expected.pb"), numpy_helper.from_array(e, "out"))
    save(os.path.join(d, "same.pb"), numpy_helper.from_array(e.copy(), "out"))
    w = e * np.float32(1 + 5e-4)
    save(os.path.join(d, "within.pb"), numpy_helper.from_array(w.astype(np.float32), "out"))
    o = e.copy()
    o[0, 1, 2] += np.float32(0.01)
    o[1, 2, 3] *= np.float32(-1)
    o[1, 0, 0] += np.float32(3e-3) * abs(o[1, 0, 0])
    save(os.path.join(d, "out.pb"), numpy_helper.from_array(o, "out"))
    save(os.path.join(d, "shape.pb"), numpy_helper.from_array(e.reshape(4, 3, 2), "out"))
    save(os.path.join(d, "type.pb"), numpy_helper.from_array(e.astype(np.float64), "out"))
    n1 = np.array([1.0, np.nan, 3.0, np.inf, -np.inf, np.nan], dtype=np.float32)
    n2 = np.array([1.0, np.nan, np.nan, np.inf, np.inf, 6.0], dtype=np.float32)
    save(os.path.join(d, "nan_expected.pb"), numpy_helper.from_array(n1, "n"))
    save(os.path.join(d, "nan_same.pb"), numpy_helper.from_array(n1.copy(), "n"))
    save(os.path.join(d, "nan_actual.pb"), numpy_helper.from_array(n2, "n"))
    save(os.path.join(d, "str_expected.pb"), numpy_helper.from_array(np.array(["cat", "dog", "émeu"], dtype=object), "s"))
    save(os.path.join(d, "str_actual.pb"), numpy_helper.from_array(np.array(["cat", "dig", "émeu"], dtype=object), "s"))
    seq_e = [f32(2), np.arange(3, dtype=np.int64)]
    seq_a = [seq_e[0] + np.float32(1e-6), np.array([0, 1, 5], dtype=np.int64)]
    save(os.path.join(d, "seq_expected.pb"), helper.make_sequence("s", 1, [numpy_helper.from_array(x) for x in seq_e]))
    save(os.path.join(d, "seq_actual.pb"), helper.make_sequence("s", 1, [numpy_helper.from_array(x) for x in seq_a]))
    img = (np.linspace(0, 1, 3 * 8 * 8, dtype=np.float32)).reshape(3, 8, 8)
    img2 = img.copy()
    img2[0, 2:5, 2:5] += np.float32(0.5)
    save(os.path.join(d, "img_expected.pb"), numpy_helper.from_array(img, "img"))
    save(os.path.join(d, "img_actual.pb"), numpy_helper.from_array(img2, "img"))
    wa, wb = f32(4, 4), f32(4, 4)
    ma = model("m", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
               [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])],
               [helper.make_node("MatMul", ["x", "w"], ["h"], name="mm"),
                helper.make_node("LeakyRelu", ["h"], ["y"], name="act", alpha=0.1)],
               [numpy_helper.from_array(wa, "w"), numpy_helper.from_array(f32(2), "gone")])
    mb = model("m", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
               [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])],
               [helper.make_node("MatMul", ["x", "w"], ["h"], name="mm"),
                helper.make_node("LeakyRelu", ["h"], ["y"], name="act", alpha=0.2)],
               [numpy_helper.from_array(wb, "w"), numpy_helper.from_array(f32(3), "new")])
    save(os.path.join(d, "model_a.onnx"), ma)
    save(os.path.join(d, "model_b.onnx"), mb)
    print("written", ROOT)


if __name__ == "__main__":
    main()
