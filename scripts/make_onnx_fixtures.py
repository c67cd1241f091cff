#!/usr/bin/env python3
"""Writes the ONNX model and container fixtures of tests/it/onnx_formats.rs.

    pip install onnx numpy
    python3 scripts/make_onnx_fixtures.py

Outputs tests/fixtures/onnx-model/ and tests/fixtures/onnx-containers/. The
bytes are committed; the tests never run this script. Values come from fixed
seeds, so re-running writes the same bytes (for a given onnx version).
"""
import hashlib
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures")
MODEL_DIR = os.path.join(ROOT, "onnx-model")
CONT_DIR = os.path.join(ROOT, "onnx-containers")


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def sparse(name, values, dtype, indices, dims):
    v = numpy_helper.from_array(np.array(values, dtype=dtype), name)
    i = numpy_helper.from_array(np.array(indices, dtype=np.int64), name + "_idx")
    return helper.make_sparse_tensor(v, i, dims)


def tensor_type(elem, shape):
    return helper.make_tensor_type_proto(elem, shape)


def everything_model():
    rng = np.random.default_rng(7)
    ft = tensor_type(TensorProto.FLOAT, ["N", 3])
    # Subgraphs: If's two branches, Loop's body.
    then_g = helper.make_graph(
        [helper.make_node("Identity", ["X"], ["t_out"])], "then_branch", [],
        [helper.make_tensor_value_info("t_out", TensorProto.FLOAT, ["N", 3])])
    else_g = helper.make_graph(
        [helper.make_node("Neg", ["X"], ["e_out"])], "else_branch", [],
        [helper.make_tensor_value_info("e_out", TensorProto.FLOAT, ["N", 3])])
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Add", ["acc_in", "acc_in"], ["acc_out"])],
        "loop_body",
        [helper.make_tensor_value_info("iter", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, ["N", 3])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, ["N", 3])])
    small = helper.make_graph([helper.make_node("Relu", ["a"], ["b"])], "g_small", [], [])
    attrs = dict(
        alpha=0.5,
        count=3,
        label="hello",
        weights=numpy_helper.from_array(np.eye(2, dtype=np.float32), "eye"),
        body_graph=small,
        sp=sparse("sp", [1.0, 2.0], np.float32, [[0, 1], [1, 2]], [2, 3]),
        ty=tensor_type(TensorProto.INT64, [2, None]),
        floats=[1.0, 2.5],
        ints=[1, 2, 3],
        strings=[b"a", b"b"],
        tensors=[numpy_helper.from_array(np.array([1, 2], dtype=np.int32), "t1"),
                 numpy_helper.from_array(np.array(["x"], dtype=object), "t2")],
        graphs=[small, small],
        sparses=[sparse("sp2", [7], np.int64, [4], [6])],
        types=[helper.make_sequence_type_proto(tensor_type(TensorProto.FLOAT, [None])),
               helper.make_map_type_proto(TensorProto.STRING, tensor_type(TensorProto.INT64, []))],
    )
    custom = helper.make_node("Everything", ["X"], ["Y"], name="every_attr",
                              domain="com.example", doc_string="one attribute of each kind", **attrs)
    custom.attribute[0].doc_string = "a float"
    nodes = [
        helper.make_node("Constant", [], ["c"], name="const",
                         value=numpy_helper.from_array(np.arange(3, dtype=np.int64), "cval")),
        helper.make_node("If", ["flag"], ["Z"], name="branch", then_branch=then_g, else_branch=else_g),
        helper.make_node("Loop", ["trip", "", "X"], ["L"], name="loop", body=body),
        custom,
        helper.make_node("Scale", ["Z", "w_float"], ["S"], name="fn_call", domain="com.example", scale=2.0),
        helper.make_node("MatMul", ["S", "w_int8"], ["M"], name="mm"),
    ]
    nodes[5].metadata_props.add(key="origin", value="fused")
    dc = nodes[5].device_configurations.add(configuration_id="mesh", pipeline_stage=1)
    ss = dc.sharding_spec.add(tensor_name="M", device=[0, 1])
    sd = ss.sharded_dim.add(axis=0)
    sd.simple_sharding.add(dim_param="N", num_shards=2)
    inits = [
        numpy_helper.from_array(rng.standard_normal((2, 3)).astype(np.float32), "w_float"),
        numpy_helper.from_array(np.arange(-6, 6, dtype=np.int8).reshape(3, 4), "w_int8"),
        numpy_helper.from_array(np.array(["alpha", "beta"], dtype=object), "w_str"),
        numpy_helper.from_array(rng.standard_normal(40).astype(np.float16), "w_half"),
        helper.make_tensor("w_typed", TensorProto.DOUBLE, [2], [0.25, -1.5]),
    ]
    sparse_inits = [
        sparse("sp_coo", [1.5, -2.0, 3.25], np.float32, [[0, 1], [1, 0], [2, 3]], [3, 4]),
        sparse("sp_linear", [10, 20], np.int32, [1, 5], [2, 3]),
    ]
    graph = helper.make_graph(
        nodes, "everything",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", 3]),
         helper.make_tensor_value_info("flag", TensorProto.BOOL, []),
         helper.make_tensor_value_info("trip", TensorProto.INT64, None)],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["N", 3]),
         helper.make_tensor_value_info("M", TensorProto.FLOAT, ["N", 4]),
         helper.make_value_info("L", tensor_type(TensorProto.FLOAT, ["N", 3]))],
        initializer=inits,
        doc_string="the main graph",
        value_info=[
            helper.make_value_info("seq", helper.make_sequence_type_proto(ft)),
            helper.make_value_info("map", helper.make_map_type_proto(
                TensorProto.INT64, helper.make_sequence_type_proto(ft))),
            helper.make_value_info("opt", helper.make_optional_type_proto(ft)),
            helper.make_value_info("sps", helper.make_sparse_tensor_type_proto(TensorProto.FLOAT, [10, "K"])),
        ],
        sparse_initializer=sparse_inits,
    )
    graph.input[0].type.tensor_type.shape.dim[0].denotation = "DATA_BATCH"
    graph.input[0].type.denotation = "TENSOR"
    graph.input[0].doc_string = "the input"
    graph.metadata_props.add(key="graph_key", value="graph_value")
    qa = graph.quantization_annotation.add(tensor_name="w_int8")
    qa.quant_parameter_tensor_names.add(key="SCALE_TENSOR", value="w_scale")
    qa.quant_parameter_tensor_names.add(key="ZERO_POINT_TENSOR", value="w_zp")
    # A function with a reference attribute (ref_attr_name) and a default.
    fn = helper.make_function(
        "com.example", "Scale", ["x", "w"], ["y"],
        [helper.make_node("Mul", ["x", "x"], ["y"])],
        [helper.make_opsetid("", 21)],
        attributes=["scale"],
        doc_string="multiplies by a scale")
    ref = helper.make_attribute_ref("alpha", TensorProto.FLOAT)
    ref.name = "alpha"
    fn.node[0].attribute.append(ref)
    fn.attribute_proto.append(helper.make_attribute("bias", 0.0))
    fn.value_info.append(helper.make_tensor_value_info("y", TensorProto.FLOAT, None))
    model = helper.make_model(
        graph, producer_name="pbdecode-fixtures", producer_version="1.0",
        opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("com.example", 1)],
        functions=[fn], ir_version=10, domain="org.pbdecode", model_version=3,
        doc_string="A model that uses every part of ModelProto.")
    helper.set_model_props(model, {"author": "pbdecode", "license": "MIT"})
    ti = model.training_info.add()
    ti.initialization.CopyFrom(helper.make_graph(
        [helper.make_node("RandomNormal", [], ["w_float"], shape=[2, 3])], "init", [], []))
    ti.algorithm.CopyFrom(helper.make_graph(
        [helper.make_node("Sub", ["w_float", "grad"], ["w_new"])], "step", [], []))
    ti.initialization_binding.add(key="w_float", value="w_float")
    ti.update_binding.add(key="w_float", value="w_new")
    conf = model.configuration.add(name="mesh", num_devices=2)
    conf.device.extend(["cuda:0", "cuda:1"])
    return model


def external_model():
    w = np.arange(12, dtype=np.float32).reshape(3, 4) / 4
    b = np.array([1.0, -1.0, 0.5], dtype=np.float32)
    side = w.tobytes() + b.tobytes()
    write(os.path.join(MODEL_DIR, "external.onnx.data"), side)

    def ext(name, dims, entries):
        t = TensorProto(name=name, data_type=TensorProto.FLOAT, dims=dims,
                        data_location=TensorProto.EXTERNAL)
        for k, v in entries:
            t.external_data.add(key=k, value=v)
        return t

    inits = [
        ext("W", [3, 4], [("location", "external.onnx.data"), ("offset", "0"), ("length", "48")]),
        ext("B", [3], [("location", "external.onnx.data"), ("offset", "48"), ("length", "12"),
                       ("checksum", hashlib.sha1(b.tobytes()).hexdigest())]),
        ext("missing", [2], [("location", "no_such_file.bin")]),
        ext("short", [8], [("location", "external.onnx.data"), ("offset", "40"), ("length", "32")]),
        numpy_helper.from_array(np.array([2.0], dtype=np.float32), "inline"),
    ]
    graph = helper.make_graph(
        [helper.make_node("Gemm", ["X", "W", "B"], ["Y"], transB=1)], "external",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 3])],
        initializer=inits)
    return helper.make_model(graph, producer_name="pbdecode-fixtures", ir_version=10,
                             opset_imports=[helper.make_opsetid("", 21)])


def unknown_field_model():
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    model = helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 21)])
    data = model.SerializeToString()
    # Field 99 (varint 42) and field 100 (bytes "future"): fields of a newer ONNX.
    return data + bytes([0x98, 0x06, 42]) + bytes([0xA2, 0x06, 6]) + b"future"


def constants_model():
    """Weights held by Constant nodes and no initializer, as PaddleOCR and
    silero-vad exports hold them."""
    rng = np.random.default_rng(11)
    w = numpy_helper.from_array(rng.standard_normal((4, 3)).astype(np.float32), "W")
    b = numpy_helper.from_array(np.arange(3, dtype=np.float32), "B")
    nodes = [
        helper.make_node("Constant", [], ["W"], value=w, name="weight"),
        helper.make_node("Constant", [], ["B"], value=b, name="bias"),
        helper.make_node("Constant", [], ["scale"], value_floats=[0.5, 2.0], name="scale"),
        helper.make_node("Constant", [], ["axis"], value_int=1, name="axis"),
        helper.make_node("MatMul", ["x", "W"], ["xw"]),
        helper.make_node("Add", ["xw", "B"], ["y"]),
    ]
    graph = helper.make_graph(nodes, "constants",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])])
    return helper.make_model(graph, producer_name="pbdecode-fixtures", ir_version=10,
                             opset_imports=[helper.make_opsetid("", 21)])


def nested_model():
    """Subgraphs inside subgraphs: the main graph's Loop body holds an If
    whose then_branch holds another Loop; a function holds an If. Passes
    onnx.checker.check_model(full_check=True)."""
    ft = lambda name: helper.make_tensor_value_info(name, TensorProto.FLOAT, ["N", 3])
    inner_body = helper.make_graph(
        [helper.make_node("Identity", ["c_in"], ["c_out"], name="inner_cond"),
         helper.make_node("Sigmoid", ["v_in"], ["v_out"], name="deep_sigmoid")],
        "inner_loop_body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("c_in", TensorProto.BOOL, []), ft("v_in")],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []), ft("v_out")])
    then_g = helper.make_graph(
        [helper.make_node("Loop", ["two", "", "acc_in"], ["t_out"], name="inner_loop", body=inner_body)],
        "then_branch", [], [ft("t_out")])
    else_g = helper.make_graph(
        [helper.make_node("Neg", ["acc_in"], ["e_out"], name="deep_neg")],
        "else_branch", [], [ft("e_out")])
    outer_body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"], name="outer_cond"),
         helper.make_node("If", ["flag"], ["acc_out"], name="inner_if",
                          then_branch=then_g, else_branch=else_g)],
        "outer_loop_body",
        [helper.make_tensor_value_info("iter", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []), ft("acc_in")],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []), ft("acc_out")])
    graph = helper.make_graph(
        [helper.make_node("Relu", ["X"], ["R"], name="pre"),
         helper.make_node("Loop", ["trip", "", "R"], ["L"], name="outer_loop", body=outer_body),
         helper.make_node("Twice", ["L", "flag"], ["Y"], name="call", domain="com.example")],
        "nested",
        [ft("X"), helper.make_tensor_value_info("flag", TensorProto.BOOL, []),
         helper.make_tensor_value_info("trip", TensorProto.INT64, [])],
        [ft("Y")],
        initializer=[helper.make_tensor("two", TensorProto.INT64, [], [2])])
    fn_then = helper.make_graph(
        [helper.make_node("Add", ["x", "x"], ["a"], name="fn_deep_add")], "fn_then", [], [ft("a")])
    fn_else = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["b"], name="fn_deep_identity")], "fn_else", [], [ft("b")])
    fn = helper.make_function(
        "com.example", "Twice", ["x", "c"], ["y"],
        [helper.make_node("If", ["c"], ["y"], name="fn_if", then_branch=fn_then, else_branch=fn_else)],
        [helper.make_opsetid("", 21)])
    return helper.make_model(
        graph, producer_name="pbdecode-fixtures", producer_version="1.0",
        opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("com.example", 1)],
        functions=[fn], ir_version=10)


def containers():
    t = lambda a, n=None: numpy_helper.from_array(np.array(a), n)
    inner1 = helper.make_sequence("inner1", onnx.SequenceProto.TENSOR,
                                  [t(np.array([1.5, 2.5], dtype=np.float32), "a")])
    inner2 = helper.make_sequence("inner2", onnx.SequenceProto.TENSOR,
                                  [t(np.arange(6, dtype=np.int32).reshape(2, 3), "b"),
                                   t(np.array(["x", "y"], dtype=object), "c")])
    nested = helper.make_sequence("nested", onnx.SequenceProto.SEQUENCE, [inner1, inner2])
    write(os.path.join(CONT_DIR, "seq_nested.pb"), nested.SerializeToString())

    vals = helper.make_sequence("values", onnx.SequenceProto.TENSOR,
                                [t(np.array(3, dtype=np.int64)), t(np.array([-1, 7], dtype=np.int64)),
                                 t(np.array(0, dtype=np.int64))])
    m = helper.make_map("ms", TensorProto.STRING, [b"cat", b"dog", b"\xff\x01"], vals)
    write(os.path.join(CONT_DIR, "map_string_keys.pb"), m.SerializeToString())

    mvals = helper.make_sequence("", onnx.SequenceProto.TENSOR,
                                 [t(np.array([0.5], dtype=np.float32)), t(np.array([1.0], dtype=np.float32))])
    m = helper.make_map("mi", TensorProto.INT64, [10, -3], mvals)
    write(os.path.join(CONT_DIR, "map_int_keys.pb"), m.SerializeToString())

    empty = onnx.OptionalProto(name="none", elem_type=onnx.OptionalProto.TENSOR)
    write(os.path.join(CONT_DIR, "opt_empty.pb"), empty.SerializeToString())

    one = helper.make_optional("one", onnx.OptionalProto.TENSOR,
                               t(np.arange(10, dtype=np.float32), "ten"))
    write(os.path.join(CONT_DIR, "opt_tensor.pb"), one.SerializeToString())

    coo = sparse("coo", [1.5, -2.0, 3.25, 4.0], np.float32, [[0, 1], [1, 0], [2, 3], [2, 4]], [3, 5])
    write(os.path.join(CONT_DIR, "sparse_coo.pb"), coo.SerializeToString())
    lin = sparse("lin", [7, 8, 9], np.int64, [0, 4, 11], [3, 4])
    write(os.path.join(CONT_DIR, "sparse_linear.pb"), lin.SerializeToString())
    # Turned down: indices out of order, and an index outside dims.
    bad = sparse("bad", [1, 2], np.int64, [4, 1], [6])
    write(os.path.join(CONT_DIR, "sparse_unsorted.pb"), bad.SerializeToString())
    bad = sparse("bad", [1, 2], np.int64, [1, 6], [6])
    write(os.path.join(CONT_DIR, "sparse_out_of_range.pb"), bad.SerializeToString())


def main():
    m = everything_model()
    # Not checker-clean on purpose (a custom op, a rank-unknown input): it
    # exercises the decoder, it is not meant to run.
    write(os.path.join(MODEL_DIR, "everything.onnx"), m.SerializeToString())
    write(os.path.join(MODEL_DIR, "external.onnx"), external_model().SerializeToString())
    write(os.path.join(MODEL_DIR, "unknown_field.onnx"), unknown_field_model())
    write(os.path.join(MODEL_DIR, "constants.onnx"), constants_model().SerializeToString())
    write(os.path.join(MODEL_DIR, "nested.onnx"), nested_model().SerializeToString())
    containers()


if __name__ == "__main__":
    main()
