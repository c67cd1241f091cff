#!/usr/bin/env python3
"""Makes the TensorFlow fixtures in tests/fixtures/tf/ (see its README.md).

Needs TensorFlow (pip install tensorflow-cpu tf_keras); the tests do not.
Hand-built messages use TensorFlow's own protobuf classes, so every byte is
what TensorFlow's serializer writes. Beside the fixtures it writes
expect_values.json: for every Const of graph_all_forms.pb the values
TensorFlow's make_ndarray (Python) and parse_tensor (C++ Tensor::FromProto)
give, or the error they raise; scripts/tf_crosscheck.py compares the
decoder's output with it.

Usage: scripts/make_tf_fixtures.py [OUT_DIR]   (default tests/fixtures/tf)
"""
import json
import os
import shutil
import struct
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.core.example import example_pb2, feature_pb2  # noqa: E402
from tensorflow.core.framework import (  # noqa: E402
    attr_value_pb2, full_type_pb2, function_pb2, graph_pb2, node_def_pb2,
    op_def_pb2, resource_handle_pb2, tensor_pb2, tensor_shape_pb2, types_pb2,
    versions_pb2, graph_debug_info_pb2)
from tensorflow.core.util import event_pb2  # noqa: E402
from tensorflow.core.framework import summary_pb2  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "tests", "fixtures", "tf")
os.makedirs(OUT, exist_ok=True)


def write(name, msg_or_bytes):
    data = msg_or_bytes if isinstance(msg_or_bytes, bytes) else msg_or_bytes.SerializeToString(deterministic=True)
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
    print(f"{name}: {len(data)} bytes")


def shape(*dims, unknown_rank=False, names=None):
    s = tensor_shape_pb2.TensorShapeProto(unknown_rank=unknown_rank)
    for k, d in enumerate(dims):
        dim = s.dim.add(size=d)
        if names and names[k]:
            dim.name = names[k]
    return s


def tensor(dtype, dims, **fields):
    t = tensor_pb2.TensorProto(dtype=dtype, tensor_shape=shape(*dims))
    for k, v in fields.items():
        if k in ("tensor_content", "float8_val"):
            setattr(t, k, v)
        elif k == "version_number":
            t.version_number = v
        else:
            getattr(t, k).extend(v)
    return t


T = types_pb2
f16 = lambda xs: np.array(xs, np.float16).tobytes()  # noqa: E731
CONSTS = [
    # tensor_content, row-major little-endian
    ("content_f32", tensor(T.DT_FLOAT, [2, 3], tensor_content=np.arange(6, dtype=np.float32).tobytes() )),
    ("content_scalar_i32", tensor(T.DT_INT32, [], tensor_content=np.int32(-7).tobytes())),
    ("content_f16", tensor(T.DT_HALF, [3], tensor_content=f16([0.5, -2, 65504]))),
    ("content_bf16", tensor(T.DT_BFLOAT16, [2], tensor_content=struct.pack("<2H", 0x3F80, 0xC040))),
    ("content_c64", tensor(T.DT_COMPLEX64, [2], tensor_content=np.array([1 + 2j, -3.5j], np.complex64).tobytes())),
    ("content_c128", tensor(T.DT_COMPLEX128, [1], tensor_content=np.array([0.25 - 1j], np.complex128).tobytes())),
    ("content_u64", tensor(T.DT_UINT64, [2], tensor_content=np.array([0, 2**64 - 1], np.uint64).tobytes())),
    ("content_bool", tensor(T.DT_BOOL, [3], tensor_content=bytes([1, 0, 1]))),
    ("content_int4", tensor(T.DT_INT4, [4], tensor_content=bytes([0x07, 0x08, 0x0F, 0x01]))),
    ("content_uint2", tensor(T.DT_UINT2, [4], tensor_content=bytes([0, 1, 2, 3]))),
    ("content_f8e4m3fn", tensor(T.DT_FLOAT8_E4M3FN, [4], tensor_content=bytes([0x38, 0x7E, 0x7F, 0x80]))),
    ("content_f4e2m1", tensor(T.DT_FLOAT4_E2M1FN, [4], tensor_content=bytes([0x01, 0x07, 0x0F, 0x08]))),
    ("content_qint8", tensor(T.DT_QINT8, [2], tensor_content=bytes([0x80, 0x7F]))),
    # typed fields, full length
    ("float_val", tensor(T.DT_FLOAT, [3], float_val=[0.1, float("nan"), float("-inf")])),
    ("double_val", tensor(T.DT_DOUBLE, [2], double_val=[1e300, -0.0])),
    ("int_val_i32", tensor(T.DT_INT32, [3], int_val=[-2147483648, 0, 2147483647])),
    ("int_val_i8", tensor(T.DT_INT8, [2], int_val=[-128, 127])),
    ("int_val_u8", tensor(T.DT_UINT8, [2], int_val=[0, 255])),
    ("int_val_i16", tensor(T.DT_INT16, [2], int_val=[-32768, 32767])),
    ("int_val_u16", tensor(T.DT_UINT16, [2], int_val=[0, 65535])),
    ("int_val_qint8", tensor(T.DT_QINT8, [2], int_val=[-5, 5])),
    ("int_val_quint8", tensor(T.DT_QUINT8, [2], int_val=[200, 3])),
    ("int_val_qint16", tensor(T.DT_QINT16, [1], int_val=[-300])),
    ("int_val_quint16", tensor(T.DT_QUINT16, [1], int_val=[60000])),
    ("int_val_qint32", tensor(T.DT_QINT32, [1], int_val=[-70000])),
    ("int_val_int4", tensor(T.DT_INT4, [3], int_val=[-8, 7, -1])),
    ("int_val_uint4", tensor(T.DT_UINT4, [2], int_val=[0, 15])),
    ("int_val_int2", tensor(T.DT_INT2, [4], int_val=[-2, -1, 0, 1])),
    ("int_val_uint2", tensor(T.DT_UINT2, [2], int_val=[3, 1])),
    ("int64_val", tensor(T.DT_INT64, [2], int64_val=[-9223372036854775808, 1 << 40])),
    ("uint32_val", tensor(T.DT_UINT32, [2], uint32_val=[0, 4294967295])),
    ("uint64_val", tensor(T.DT_UINT64, [2], uint64_val=[1, 18446744073709551615])),
    ("bool_val", tensor(T.DT_BOOL, [2], bool_val=[True, False])),
    ("string_val", tensor(T.DT_STRING, [3], string_val=[b"caf\xc3\xa9", b"\xff\xfe", b""])),
    ("half_val", tensor(T.DT_HALF, [5], half_val=[0x3C00, 0x7C00, 0xFC00, 0x7E00, 0x0001])),
    ("half_val_bf16", tensor(T.DT_BFLOAT16, [2], half_val=[0x3F80, 0xC000])),
    ("scomplex_val", tensor(T.DT_COMPLEX64, [2], scomplex_val=[1, 2, 3, -4])),
    ("dcomplex_val", tensor(T.DT_COMPLEX128, [1], dcomplex_val=[0.5, -0.25])),
    ("float8_val_e5m2", tensor(T.DT_FLOAT8_E5M2, [4], float8_val=bytes([0x3C, 0x7C, 0xFC, 0x7D]))),
    ("float8_val_e4m3fn", tensor(T.DT_FLOAT8_E4M3FN, [3], float8_val=bytes([0x38, 0x7E, 0xFF]))),
    ("float8_val_f4e2m1", tensor(T.DT_FLOAT4_E2M1FN, [3], float8_val=bytes([0x02, 0x0F, 0x06]))),
    ("float8_val_e4m3fnuz", tensor(T.DT_FLOAT8_E4M3FNUZ, [2], float8_val=bytes([0x40, 0x80]))),
    ("float8_val_e4m3b11fnuz", tensor(T.DT_FLOAT8_E4M3B11FNUZ, [2], float8_val=bytes([0x58, 0x80]))),
    ("float8_val_e5m2fnuz", tensor(T.DT_FLOAT8_E5M2FNUZ, [2], float8_val=bytes([0x40, 0x80]))),
    ("ref_dtype", tensor(T.DT_FLOAT_REF, [2], float_val=[1.0, 2.0])),
    # TensorFlow's padding rule: a short list repeats its last value
    ("pad_float", tensor(T.DT_FLOAT, [2, 2], float_val=[1.5])),
    ("pad_int", tensor(T.DT_INT32, [4], int_val=[1, 2])),
    ("pad_string", tensor(T.DT_STRING, [3], string_val=[b"a", b"z"])),
    ("pad_bool", tensor(T.DT_BOOL, [3], bool_val=[True])),
    ("pad_half", tensor(T.DT_HALF, [3], half_val=[0x3800])),
    ("pad_scomplex", tensor(T.DT_COMPLEX64, [3], scomplex_val=[1, -1])),
    ("pad_int64", tensor(T.DT_INT64, [2, 2], int64_val=[7])),
    ("pad_float8", tensor(T.DT_FLOAT8_E4M3FN, [3], float8_val=bytes([0x38]))),
    # no values at all: zeros
    ("zeros_float", tensor(T.DT_FLOAT, [3])),
    ("zeros_string", tensor(T.DT_STRING, [2])),
    ("zeros_c128", tensor(T.DT_COMPLEX128, [2])),
    ("zeros_bool", tensor(T.DT_BOOL, [2])),
    ("empty_shape0", tensor(T.DT_FLOAT, [0])),
    ("scalar_float", tensor(T.DT_FLOAT, [], float_val=[3.25])),
    ("odd_scomplex", tensor(T.DT_COMPLEX64, [2], scomplex_val=[1, 2, 3])),
]
extra = []
t = tensor(T.DT_FLOAT, [2, 2], float_val=[1, 2, 3, 4])
t.tensor_shape.dim[0].name = "rows"
t.version_number = 1
extra.append(("named_dims_version", t))
t = tensor_pb2.TensorProto(dtype=T.DT_RESOURCE, tensor_shape=shape())
t.resource_handle_val.add(device="/job:localhost/replica:0/task:0/device:CPU:0", container="c", name="var0",
                          hash_code=12345, maybe_type_name="Var").dtypes_and_shapes.add(dtype=T.DT_FLOAT, shape=shape(3))
extra.append(("resource", t))
t = tensor_pb2.TensorProto(dtype=T.DT_VARIANT, tensor_shape=shape())
v = t.variant_val.add(type_name="tensorflow::TensorList", metadata=b"\x01\x02")
v.tensors.add().CopyFrom(tensor(T.DT_INT32, [2], int_val=[4, 5]))
extra.append(("variant", t))
CONSTS += extra


def const_node(name, t):
    n = node_def_pb2.NodeDef(name=name, op="Const")
    n.attr["dtype"].type = t.dtype if t.dtype < 100 else t.dtype - 100
    n.attr["value"].tensor.CopyFrom(t)
    return n


def attr_kinds_node():
    n = node_def_pb2.NodeDef(name="all_kinds", op="AllAttrKinds",
                             input=["x", "x:1", "^scalar_in"],
                             device="/job:localhost/replica:0/task:0/device:CPU:0")
    a = n.attr
    a["s_text"].s = "héllo".encode()
    a["s_bytes"].s = b"\x00\xff"
    a["i"].i = -9223372036854775808
    a["f"].f = 0.1
    a["f_nan"].f = float("nan")
    a["b"].b = True
    a["type"].type = T.DT_BFLOAT16
    a["shape"].shape.CopyFrom(shape(-1, 3))
    a["shape_unknown"].shape.CopyFrom(shape(unknown_rank=True))
    a["shape_scalar"].shape.CopyFrom(shape())
    a["shape_named"].shape.CopyFrom(shape(2, -1, names=["batch", ""]))
    a["tensor"].tensor.CopyFrom(tensor(T.DT_INT32, [2, 2], int_val=[1, 2, 3, 4]))
    a["list_s"].list.s.extend([b"a", "ü".encode(), b"\xff"])
    a["list_i"].list.i.extend([1, -2, 1 << 40])
    a["list_f"].list.f.extend([0.5, float("inf")])
    a["list_b"].list.b.extend([True, False])
    a["list_type"].list.type.extend([T.DT_FLOAT, T.DT_STRING, T.DT_INT4])
    a["list_shape"].list.shape.extend([shape(1), shape(unknown_rank=True), shape()])
    a["list_tensor"].list.tensor.extend([tensor(T.DT_STRING, [2], string_val=[b"p", b"q"]),
                                         tensor(T.DT_FLOAT, [], float_val=[2.0])])
    f1 = a["list_func"].list.func.add(name="ScaleBy")
    f1.attr["factor"].f = 2.5
    a["list_func"].list.func.add(name="Identity2")
    a["list_empty"].list.SetInParent()
    a["func"].func.name = "ScaleBy"
    a["func"].func.attr["T"].type = T.DT_FLOAT
    a["placeholder"].placeholder = "T"
    a["unset"].SetInParent()
    n.experimental_debug_info.original_node_names.extend(["orig/a", "orig/b"])
    n.experimental_debug_info.original_func_names.append("fn")
    ft = n.experimental_type
    ft.type_id = full_type_pb2.TFT_PRODUCT
    ft.args.add(type_id=full_type_pb2.TFT_TENSOR).args.add(type_id=full_type_pb2.TFT_FLOAT)
    ft.args.add(type_id=full_type_pb2.TFT_LITERAL, s="lit")
    return n


def library():
    lib = function_pb2.FunctionDefLibrary()
    fd = lib.function.add()
    sig = fd.signature
    sig.name = "ScaleBy"
    sig.input_arg.add(name="x", type_attr="T")
    sig.input_arg.add(name="handle", type=T.DT_RESOURCE).handle_data.add(dtype=T.DT_FLOAT, shape=shape(3))
    sig.input_arg.add(name="xs", type_attr="T", number_attr="N")
    sig.output_arg.add(name="y", type_attr="T")
    sig.output_arg.add(name="parts", type_list_attr="Tout")
    sig.attr.add(name="T", type="type").allowed_values.list.type.extend([T.DT_FLOAT, T.DT_DOUBLE])
    ad = sig.attr.add(name="N", type="int", has_minimum=True, minimum=1)
    sig.attr.add(name="Tout", type="list(type)")
    sig.attr.add(name="factor", type="float").default_value.f = 1.0
    sig.control_output.append("side")
    sig.is_stateful = True
    sig.description = "Multiplies x by factor."
    fd.attr["_noinline"].b = True
    fd.arg_attr[0].attr["_output_shapes"].list.shape.append(shape(3))
    fd.resource_arg_unique_id[1] = 0
    k = fd.node_def.add(name="k", op="Const")
    k.attr["dtype"].type = T.DT_FLOAT
    k.attr["value"].tensor.CopyFrom(tensor(T.DT_FLOAT, [], float_val=[2.5]))
    fd.node_def.add(name="mul", op="Mul", input=["x", "k:output:0"]).attr["T"].placeholder = "T"
    fd.node_def.add(name="side", op="NoOp", input=["^mul"])
    fd.ret["y"] = "mul:z:0"
    fd.ret["parts"] = "mul:z:0"
    fd.control_ret["side"] = "side"
    g = lib.function.add()
    g.signature.name = "Identity2"
    g.signature.input_arg.add(name="a", type=T.DT_INT32)
    g.signature.output_arg.add(name="b", type=T.DT_INT32)
    g.ret["b"] = "a"
    lib.gradient.add(function_name="ScaleBy", gradient_func="ScaleByGrad")
    lib.registered_gradients.add(gradient_func="MyGrad", registered_op_type="MyOp")
    return lib


def graph_all_forms():
    g = graph_pb2.GraphDef()
    g.versions.CopyFrom(versions_pb2.VersionDef(producer=1882, min_consumer=12, bad_consumers=[5]))
    x = g.node.add(name="x", op="Placeholder")
    x.attr["dtype"].type = T.DT_FLOAT
    x.attr["shape"].shape.CopyFrom(shape(-1, 3))
    s = g.node.add(name="scalar_in", op="Placeholder")
    s.attr["dtype"].type = T.DT_STRING
    s.attr["shape"].shape.CopyFrom(shape())
    g.node.append(attr_kinds_node())
    for name, t in CONSTS:
        g.node.append(const_node(name, t))
    big = tensor(T.DT_FLOAT, [4, 5], tensor_content=np.linspace(-1, 1, 20, dtype=np.float32).tobytes())
    g.node.append(const_node("big_content", big))
    g.node.add(name="y", op="ScaleBy", input=["x", "big_content"], device="/device:CPU:0").attr["T"].type = T.DT_FLOAT
    g.library.CopyFrom(library())
    dbg = g.debug_info
    dbg.files.append("model.py")
    dbg.traces["y"].file_line_cols.add(file_index=0, line=12, col=4, func="build")
    return g


def expectations(g):
    out = {}
    for n in g.node:
        if n.op != "Const":
            continue
        t = n.attr["value"].tensor
        e = {}
        try:
            a = tf.make_ndarray(t)
            e["make_ndarray"] = encode(a)
        except Exception as ex:  # noqa: BLE001
            e["make_ndarray_error"] = f"{type(ex).__name__}: {ex}"[:200]
        try:
            base = t.dtype if t.dtype < 100 else t.dtype - 100
            p = tf.io.parse_tensor(t.SerializeToString(), tf.dtypes.as_dtype(base))
            e["parse_tensor"] = encode(p.numpy())
        except Exception as ex:  # noqa: BLE001
            e["parse_tensor_error"] = f"{type(ex).__name__}: {str(ex).splitlines()[0]}"[:200]
        out[n.name] = e
    return out


def encode(a):
    a = np.asarray(a)
    flat = a.reshape(-1)
    vals = []
    for v in flat.tolist() if a.dtype.kind in "biufcSO" else flat.astype(np.float32).tolist():
        if isinstance(v, bytes):
            try:
                vals.append(v.decode())
            except UnicodeDecodeError:
                vals.append({"base64": __import__("base64").b64encode(v).decode()})
        elif isinstance(v, complex):
            vals.append([fnum(v.real), fnum(v.imag)])
        elif isinstance(v, float):
            vals.append(fnum(v))
        else:
            vals.append(v)
    if a.dtype.names:  # quantized types are structured numpy dtypes
        vals = [x[0] if isinstance(x, (list, tuple)) else x for x in a.reshape(-1).tolist()]
    return {"dtype": str(a.dtype), "shape": list(a.shape), "values": vals}


def fnum(v):
    if v != v:
        return "NaN"
    if v in (float("inf"), float("-inf")):
        return "Infinity" if v > 0 else "-Infinity"
    return v


def saved_models(tmp):
    class Model(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable([[1.0, -1.0], [0.5, 2.0], [0.0, 3.0]], name="w")
            self.b = tf.Variable([0.25, -0.25], name="b")
            self.steps = tf.Variable(0, dtype=tf.int64, trainable=False, name="steps")

        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="x")])
        def predict(self, x):
            return {"logits": tf.matmul(x, self.w) + self.b}

        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="x"),
                                      tf.TensorSpec([], tf.string, name="label")])
        def classify(self, x, label):
            logits = tf.matmul(x, self.w) + self.b
            return {"class_ids": tf.argmax(logits, axis=1), "label": tf.strings.join([label, "!"])}

        @tf.function(input_signature=[tf.RaggedTensorSpec([None, None], tf.int32)])
        def ragged_sum(self, r):
            return {"sum": tf.reduce_sum(r, axis=1)}

    m = Model()
    d = os.path.join(tmp, "sm")
    tf.saved_model.save(m, d, signatures={"serving_default": m.predict, "classify": m.classify,
                                          "ragged": m.ragged_sum})
    shutil.copy(os.path.join(d, "saved_model.pb"), os.path.join(OUT, "saved_model_two_signatures.pb"))
    shutil.copy(os.path.join(d, "fingerprint.pb"), os.path.join(OUT, "fingerprint.pb"))
    print("saved_model_two_signatures.pb, fingerprint.pb copied")

    # A TF1 SavedModel with a sparse input (coo_sparse) and two tag sets.
    g = tf.Graph()
    with g.as_default():
        sp = tf.compat.v1.sparse_placeholder(tf.float32, shape=[None, 4], name="sp")
        dense = tf.compat.v1.placeholder(tf.float32, [None, 4], name="dense")
        v = tf.compat.v1.get_variable("v", initializer=tf.constant([1.0, 2.0, 3.0, 4.0]))
        out = tf.sparse.reduce_sum(sp, axis=1) + tf.reduce_sum(dense * v, axis=1)
        with tf.compat.v1.Session(graph=g) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            d1 = os.path.join(tmp, "tf1")
            b = tf.compat.v1.saved_model.Builder(d1)
            sig = tf.compat.v1.saved_model.build_signature_def(
                inputs={"sp": tf.compat.v1.saved_model.build_tensor_info(sp),
                        "dense": tf.compat.v1.saved_model.build_tensor_info(dense)},
                outputs={"out": tf.compat.v1.saved_model.build_tensor_info(out)},
                method_name="tensorflow/serving/predict")
            b.add_meta_graph_and_variables(sess, ["serve"], signature_def_map={"serving_default": sig},
                                           strip_default_attrs=True)
            b.add_meta_graph(["train", "gpu"], strip_default_attrs=True)
            b.save()
    shutil.copy(os.path.join(d1, "saved_model.pb"), os.path.join(OUT, "saved_model_tf1_sparse.pb"))
    print("saved_model_tf1_sparse.pb copied")


def keras_metadata(tmp):
    try:
        import tf_keras
    except ImportError:
        print("tf_keras missing: keras_metadata.pb not made")
        return
    m = tf_keras.Sequential([tf_keras.layers.Dense(2, input_shape=(3,))])
    d = os.path.join(tmp, "keras")
    m.save(d, save_format="tf")
    shutil.copy(os.path.join(d, "keras_metadata.pb"), os.path.join(OUT, "keras_metadata.pb"))
    print("keras_metadata.pb copied")


def decoys(g):
    ex = example_pb2.Example()
    ex.features.feature["image/raw"].bytes_list.value.append(b"\x89PNG\r\n")
    ex.features.feature["label"].int64_list.value.extend([3, -1])
    ex.features.feature["score"].float_list.value.extend([0.5, 0.25])
    write("example.pb", ex)
    se = example_pb2.SequenceExample()
    se.context.feature["id"].bytes_list.value.append(b"seq-1")
    fl = se.feature_lists.feature_list["tokens"]
    fl.feature.add().int64_list.value.extend([1, 2])
    fl.feature.add().int64_list.value.extend([3])
    write("sequence_example.pb", se)
    # No context: the only field is number 2 (a GraphDef's library field).
    se2 = example_pb2.SequenceExample()
    se2.feature_lists.feature_list["\nx"].feature.add().float_list.value.append(1.0)
    write("sequence_example_no_context.pb", se2)
    # An Event that carries a GraphDef as bytes is still an Event.
    small = graph_pb2.GraphDef()
    small.node.add(name="c", op="Const").attr["dtype"].type = T.DT_FLOAT
    small.versions.producer = 1882
    write("event_graph.pb", event_pb2.Event(wall_time=1700000000.5, step=0, graph_def=small.SerializeToString()))
    # wall_time 0 and step 0 are not written: the event starts with field 4.
    write("event_graph_no_time.pb", event_pb2.Event(graph_def=small.SerializeToString()))
    ev = event_pb2.Event(wall_time=1700000001.0, step=7)
    ev.summary.value.add(tag="loss", simple_value=0.125)
    write("event_summary.pb", ev)
    write("event_file_version.pb", event_pb2.Event(wall_time=1700000000.0, file_version="brain.Event:2"))
    # A NodeDef with no op, and a FunctionDef with no name: well-formed
    # protobuf on the schema tables, but not a graph.
    bad = graph_pb2.GraphDef()
    bad.node.add(name="only_a_name")
    write("decoy_node_without_op.pb", bad)
    bad2 = graph_pb2.GraphDef()
    bad2.library.function.add().node_def.add(name="n", op="NoOp")
    write("decoy_function_without_name.pb", bad2)


def main():
    g = graph_all_forms()
    write("graph_all_forms.pb", g)
    with open(os.path.join(OUT, "expect_values.json"), "w") as f:
        json.dump(expectations(g), f, indent=1, sort_keys=True)
    with tempfile.TemporaryDirectory() as tmp:
        saved_models(tmp)
        keras_metadata(tmp)
    decoys(g)


if __name__ == "__main__":
    main()
