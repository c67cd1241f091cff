#!/usr/bin/env python3
"""Makes the PaddlePaddle fixtures in tests/fixtures/paddle/ (see its README.md).

Needs paddlepaddle (pip install paddlepaddle; written with 3.3.1); the tests
do not. Every program is built in Paddle's static graph mode and saved by
paddle.static.save_inference_model with the program format Paddle 2.x
writes (FLAGS_enable_pir_api=0): NAME/inference.pdmodel (a ProgramDesc) and
NAME/inference.pdiparams (the parameters' tensor stream). Weights are drawn
from a seeded generator, so a rerun writes the same values.

Usage: scripts/make_paddle_fixtures.py [OUT_DIR]   (default tests/fixtures/paddle)
"""
import os
import shutil
import sys

os.environ["FLAGS_enable_pir_api"] = "0"
os.environ.setdefault("GLOG_minloglevel", "3")
import numpy as np  # noqa: E402
import paddle  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "tests", "fixtures", "paddle")


# Values set in the scope after the startup program ran, by variable name.
VALUES = {}


def save(name, build):
    """Builds a program with `build()` -> (feeds, fetches) and saves it."""
    paddle.seed(7)
    np.random.seed(7)
    VALUES.clear()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        feeds, fetches = build()
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    scope = paddle.static.global_scope()
    for var, value in VALUES.items():
        scope.find_var(var).get_tensor().set(value, paddle.CPUPlace())
    folder = os.path.join(OUT, name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    paddle.static.save_inference_model(
        os.path.join(folder, "inference"), feeds, fetches, exe, program=main)


def small():
    """conv2d, batch_norm, relu, max pool, reshape, fc, softmax."""
    x = paddle.static.data("x", [1, 3, 8, 8], "float32")
    y = paddle.static.nn.conv2d(x, 4, 3, padding=1)
    y = paddle.static.nn.batch_norm(y)
    y = paddle.nn.functional.relu(y)
    y = paddle.nn.functional.max_pool2d(y, 2)
    y = paddle.reshape(y, [1, -1])
    y = paddle.static.nn.fc(y, 5)
    return [x], [paddle.nn.functional.softmax(y)]


def param(name, dtype, shape, values):
    """A persistable variable holding `values` (set in the scope before
    saving: Paddle's initializers do not take every data type)."""
    VALUES[name] = np.asarray(values).astype(dtype).reshape(shape)
    return paddle.static.create_global_var(
        shape, 0, dtype, persistable=True, name=name)


def dtypes():
    """A parameter of each data type a parameter file holds, each read by
    an op so that the program keeps it; special values in the floats."""
    x = paddle.static.data("x", [2, 3], "float32")
    f32 = param("p_float32", "float32", [2, 3],
                [0.0, -0.0, 1.5, -2.25, 3.4028235e38, 1.1754944e-38])
    f16 = param("p_float16", "float16", [2, 3],
                [0.0, -0.0, 65504.0, -1.0, 5.9604645e-08, 0.099975586])
    f64 = param("p_float64", "float64", [2, 3],
                [0.1, -1e300, 2.0**-1074, 1.0, -0.0, 3.141592653589793])
    i64 = param("p_int64", "int64", [3], [-(2**63), 2**63 - 1, 42])
    i32 = param("p_int32", "int32", [2, 2], [-(2**31), 2**31 - 1, 0, -7])
    i8 = param("p_int8", "int8", [4], [-128, 127, 0, -1])
    u8 = param("p_uint8", "uint8", [4], [0, 255, 128, 7])
    b = param("p_bool", "bool", [3], [True, False, True])
    y = x + f32
    y = y + paddle.cast(f16, "float32") + paddle.cast(f64, "float32")
    extra = paddle.concat(
        [paddle.reshape(paddle.cast(t, "float32"), [1, -1])
         for t in (i64, i32, u8, b)], axis=1)
    # Paddle's cast checker takes no int8: read by a reshape, fetched.
    return [x], [y, extra, paddle.reshape(i8, [2, 2])]


def with_sub_block(folder, source):
    """`source`'s program with a sub-block, written with Paddle's own
    protobuf classes (its Python control flow needs the new IR): block 1,
    child of block 0, holds a relu of the softmax's output, run by a
    conditional_block op appended to block 0 (attribute sub_block); the
    parameters are `source`'s."""
    from paddle.base.proto import framework_pb2 as fp
    os.makedirs(folder, exist_ok=True)
    prog = fp.ProgramDesc()
    with open(os.path.join(source, "inference.pdmodel"), "rb") as f:
        prog.ParseFromString(f.read())
    block0 = prog.blocks[0]
    fetch = [op for op in block0.ops if op.type == "fetch"][0]
    out = fetch.inputs[0].arguments[0]
    sub = prog.blocks.add()
    sub.idx, sub.parent_idx = 1, 0
    relu = sub.ops.add()
    relu.type = "relu"
    relu.inputs.add(parameter="X", arguments=[out])
    relu.outputs.add(parameter="Out", arguments=["branch_out"])
    var = sub.vars.add(name="branch_out")
    var.type.type = fp.VarType.DENSE_TENSOR
    var.type.dense_tensor.tensor.data_type = fp.VarType.FP32
    var.type.dense_tensor.tensor.dims.extend([1, 5])
    cond = block0.ops.add()
    cond.type = "conditional_block"
    cond.inputs.add(parameter="Cond", arguments=[])
    cond.inputs.add(parameter="Input", arguments=[out])
    cond.outputs.add(parameter="Out", arguments=["branch_out"])
    cond.outputs.add(parameter="Scope", arguments=["branch_scope"])
    attr = cond.attrs.add(name="sub_block", type=fp.BLOCK)
    attr.block_idx = 1
    attr = cond.attrs.add(name="is_scalar_condition", type=fp.BOOLEAN)
    attr.b = True
    with open(os.path.join(folder, "inference.pdmodel"), "wb") as f:
        f.write(prog.SerializeToString())
    shutil.copy(os.path.join(source, "inference.pdiparams"),
                os.path.join(folder, "inference.pdiparams"))


def main():
    paddle.enable_static()
    save("small", small)
    save("dtypes", dtypes)
    with_sub_block(os.path.join(OUT, "branch"), os.path.join(OUT, "small"))
    # Paddle 1.x's names for the same two files.
    legacy = os.path.join(OUT, "legacy")
    shutil.rmtree(legacy, ignore_errors=True)
    os.makedirs(legacy)
    shutil.copy(os.path.join(OUT, "small", "inference.pdmodel"),
                os.path.join(legacy, "__model__"))
    shutil.copy(os.path.join(OUT, "small", "inference.pdiparams"),
                os.path.join(legacy, "__params__"))


if __name__ == "__main__":
    main()
