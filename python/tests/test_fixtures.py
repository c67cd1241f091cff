"""Every fixture through the package, compared with `decode --json`: each
tensor's values, dtype and shape; the renderers byte for byte; the errors
of the files it turns down."""

from __future__ import annotations

import base64
import math

import numpy as np
import pytest

import pbdecode
from conftest import FIXTURES, cli, cli_json, ids, inputs

ALL = inputs()
BAD = sorted((FIXTURES / "onnx-tensor").glob("bad_*.pb"))

# The dtype `onnx.numpy_helper.to_array` (onnx 1.23) gives each data type
# (scripts/python_crosscheck.py checks the table against onnx itself);
# TensorFlow's types by the same names.
ONNX_DTYPES = {
    "FLOAT": "float32", "UINT8": "uint8", "INT8": "int8", "UINT16": "uint16", "INT16": "int16",
    "INT32": "int32", "INT64": "int64", "STRING": "object", "BOOL": "bool", "FLOAT16": "float16",
    "DOUBLE": "float64", "UINT32": "uint32", "UINT64": "uint64", "COMPLEX64": "complex64",
    "COMPLEX128": "complex128", "BFLOAT16": "bfloat16", "FLOAT8E4M3FN": "float8_e4m3fn",
    "FLOAT8E4M3FNUZ": "float8_e4m3fnuz", "FLOAT8E5M2": "float8_e5m2",
    "FLOAT8E5M2FNUZ": "float8_e5m2fnuz", "UINT4": "uint4", "INT4": "int4",
    "FLOAT4E2M1": "float4_e2m1fn", "FLOAT8E8M0": "float8_e8m0fnu", "UINT2": "uint2", "INT2": "int2",
    "FLOAT6E2M3": "float6_e2m3fn", "FLOAT6E3M2": "float6_e3m2fn",
}  # fmt: skip


def at(root: dict, path: list):
    """The JSON under a tensor's path (field names, indices, (key,) map keys)."""
    node = root["value"]
    for step in path:
        if isinstance(step, (list, tuple)):
            step = step[0]
        node = node[step]
    return node


def json_node(printed: dict, t: pbdecode.Tensor) -> dict:
    """Where `--json` writes a tensor: under its path in "value", or its
    entry in "side_tensors" when a side file holds its values."""
    if t._info["side"]:
        (node,) = [s for s in printed["side_tensors"] if s["name"] == t.name]
        return node
    return at(printed, t._info["path"])


def declared_shape(node: dict) -> tuple:
    """The dims of an ONNX tensor, the tensor_shape of a TensorFlow one,
    the shape of a tensor read from a side file (a Paddle parameter)."""
    if "file" in node and "shape" in node:
        return tuple(node["shape"])
    if "tensor_shape" in node or "dtype" in node:
        return tuple(int(d.get("size", 0)) for d in node.get("tensor_shape", {}).get("dim", []))
    return tuple(node.get("dims", []))


def json_number(v) -> float:
    if isinstance(v, str):
        return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[v]
    return float(v)


def same_values(array: np.ndarray, expected: list) -> bool:
    """Whether an array holds the values `--json` writes (floats of
    float32 and narrower compared at float32, NaN equal to NaN)."""
    flat = array.reshape(-1)
    if len(flat) != len(expected):
        return False
    kind = array.dtype
    if kind == object:
        want = [base64.b64decode(e["base64"]) if isinstance(e, dict) else e for e in expected]
        return list(flat) == want
    if kind == np.bool_:
        return flat.tolist() == expected
    if kind.kind == "c":
        width = np.float32 if kind == np.complex64 else np.float64
        re = np.array([json_number(e[0]) for e in expected], dtype=width)
        im = np.array([json_number(e[1]) for e in expected], dtype=width)
        return bool(np.array_equal(flat.real, re, equal_nan=True) and np.array_equal(flat.imag, im, equal_nan=True))
    if kind.kind in "iu" or kind.name in ("int4", "int2", "uint4", "uint2"):
        return [int(x) for x in flat.tolist()] == [int(e) for e in expected]
    width = np.float64 if kind == np.float64 else np.float32
    got = flat.astype(width)
    want = np.array([json_number(e) for e in expected], dtype=width)
    return bool(np.array_equal(got, want, equal_nan=True))


@pytest.mark.parametrize("path", ALL, ids=ids(ALL))
def test_every_tensor_has_the_values_and_dtype_of_decode_json(path):
    printed = cli_json(path)
    if "error" in printed:
        with pytest.raises(pbdecode.DecodeError) as e:
            pbdecode.open(path)
        assert e.value.to_dict() == printed["error"]
        return
    with pbdecode.open(path) as f:
        assert (f.format, f.type) == (printed["format"], printed["type"])
        for t in f.tensors._list:
            node = json_node(printed, t)
            if t.data_type in ONNX_DTYPES:
                assert t.dtype.name == ONNX_DTYPES[t.data_type] or t.dtype == object, t
            if t._info.get("data_type") is None:
                # A data type without a decoding (TensorFlow's DT_RESOURCE).
                with pytest.raises(pbdecode.ValuesUnavailable):
                    t.numpy()
                continue
            if node.get("values") is None and "values_unavailable" in node:
                with pytest.raises(pbdecode.ValuesUnavailable) as e:
                    t.numpy()
                assert e.value.reason == node["values_unavailable"]
                continue
            a = t.numpy()
            assert a.dtype == t.dtype
            assert t.shape == declared_shape(node), t
            # A segment holds part of its tensor: its values, flat.
            assert a.shape == (t.shape if "segment" not in node else (t.size,)), t
            assert t.size == a.size
            assert same_values(a, node["values"]), (t, a, node["values"][:8])


@pytest.mark.parametrize("path", ALL, ids=ids(ALL))
def test_json_and_text_are_the_commands_output_byte_for_byte(path):
    printed = cli("--json", str(path))
    if printed.returncode != 0:
        return
    with pbdecode.open(path) as f:
        assert f.json().encode() == printed.stdout
        assert f.text().encode() == cli("--color", "never", str(path)).stdout
        assert f.to_dict(values=3) == cli_json(path, "--values", "3")


@pytest.mark.parametrize("path", BAD, ids=ids(BAD))
def test_every_bad_fixture_raises_the_commands_error(path):
    printed = cli_json(path, "--as", "onnx-tensor")
    with pytest.raises(pbdecode.DecodeError) as e:
        pbdecode.load(path, format="onnx-tensor")
    err = e.value
    assert isinstance(err, ValueError)
    assert (err.check, err.path, err.offset, err.message) == tuple(
        printed["error"][k] for k in ("check", "path", "offset", "message")
    )
    # Detected without a format: the same file is no tensor file, and
    # load() says why (detection's error, or the ONNX tensor rule broken).
    auto = cli_json(path)
    with pytest.raises(pbdecode.DecodeError) as e:
        pbdecode.load(path)
    if "error" in auto:
        assert e.value.to_dict() == auto["error"]
    else:
        assert e.value.check == err.check


# An ONNX test folder's input_K.pb is read with its model (a sequence the
# model declares optional is an optional); bytes have no folder and no model.
ALONE = [p for p in ALL if not p.parent.name.startswith("test_data_set_")]


@pytest.mark.parametrize("path", ALONE, ids=ids(ALONE))
def test_loads_equals_load(path):
    data = path.read_bytes()
    try:
        from_file = pbdecode.load(path)
    except (pbdecode.DecodeError, pbdecode.ValuesUnavailable, KeyError) as e:
        with pytest.raises(type(e)):
            pbdecode.loads(data, base_dir=path.parent)
        return
    from_bytes = pbdecode.loads(data, base_dir=path.parent)
    assert_same(from_file, from_bytes)


def assert_same(a, b):
    assert type(a) is type(b)
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape
        if a.dtype == object:
            assert a.tolist() == b.tolist()
        else:
            # Bit for bit (NaN payloads and ml_dtypes' types included).
            assert a.tobytes() == b.tobytes()
    elif isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            assert_same(x, y)
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            assert_same(a[k], b[k])
    elif isinstance(a, pbdecode.SparseTensor):
        assert a.dims == b.dims
        assert_same(a.values, b.values)
        assert_same(a.indices, b.indices)
    else:
        assert a == b


def test_a_model_without_a_name_lists_its_tensors():
    with pytest.raises(KeyError) as e:
        pbdecode.load(FIXTURES / "onnx-model" / "everything.onnx")
    assert "w_float" in str(e.value) and "w_int8" in str(e.value)
    w = pbdecode.load(FIXTURES / "onnx-model" / "everything.onnx", "w_int8")
    assert w.dtype == np.int8 and w.shape == (3, 4) and w[0, 0] == -6
    with pytest.raises(KeyError, match="no tensor 'nope'"):
        pbdecode.load(FIXTURES / "onnx-model" / "everything.onnx", "nope")


def test_model_facts():
    with pbdecode.open(FIXTURES / "onnx-model" / "everything.onnx") as f:
        assert f.format == "onnx-model" and f.type == "onnx.ModelProto"
        assert f.inputs[0] == ("X", "FLOAT[N, 3]")
        assert [o.name for o in f.outputs] == ["Y", "M", "L"]
        roles = {t.name: t.role for t in f.tensors.values()}
        assert roles["w_float"] == "initializer" and roles["cval"] == "constant"
        t = f.tensors["w_float"]
        assert (t.data_type, t.shape, t.size, t.nbytes, t.storage) == ("FLOAT", (2, 3), 6, 24, "raw")
        assert t.path == "graph.initializer[0]"
        stats = t.stats()
        a = t.numpy()
        assert stats["count"] == 6
        assert stats["min"] == pytest.approx(float(a.min())) and stats["max"] == pytest.approx(float(a.max()))
        assert stats["mean"] == pytest.approx(float(a.astype(np.float64).mean()))


def test_tensorflow_consts_through_the_same_open():
    path = FIXTURES / "tf" / "graph_all_forms.pb"
    printed = cli_json(path)
    with pbdecode.open(path) as f:
        assert f.format == "tf-graph-def"
        consts = [t for t in f.tensors.values() if t.role == "constant" and t.storage != "unavailable"]
        assert consts
        for t in consts:
            assert t.data_type.startswith("DT_")
            a = np.asarray(t)
            assert same_values(a, at(printed, t._info["path"])["values"])


def test_a_paddle_parameter_is_read_from_the_side_file_it_names():
    folder = FIXTURES / "paddle" / "small"
    with pbdecode.open(folder / "inference.pdmodel") as f:
        w = f.tensors["fc_0.w_0"]
        assert (w.storage, w.path, w.shape, w.dtype) == ("external", "", (64, 5), np.float32)
        ext = w.external
        assert ext is not None and ext.location == "inference.pdiparams"
        assert ext.offset is not None
        stored = (folder / "inference.pdiparams").read_bytes()[ext.offset : ext.offset + 64 * 5 * 4]
        assert w.numpy().tobytes() == stored


def test_strings_are_str_and_bytes_where_not_utf8():
    a = pbdecode.load(FIXTURES / "onnx-tensor" / "string_typed.pb")
    assert a.dtype == object and all(isinstance(s, (str, bytes)) for s in a.reshape(-1))
    assert any(isinstance(s, str) for s in a.reshape(-1))
    keys = pbdecode.load(FIXTURES / "onnx-containers" / "map_string_keys.pb")
    assert list(keys) == ["cat", "dog", b"\xff\x01"]


@pytest.mark.parametrize("path", ALL, ids=ids(ALL))
def test_summary_is_the_jsons(path):
    """`File.summary` is `--json`'s `"summary"`: the same keys in the same
    order, the same numbers and texts; empty where the CLI writes none."""
    decoded = cli_json(path)
    if "error" in decoded:
        with pytest.raises(pbdecode.DecodeError) as e:
            pbdecode.open(path)
        assert e.value.check == decoded["error"]["check"]
        return
    expected = decoded.get("summary", {})
    with pbdecode.open(path) as f:
        got = f.summary
    assert got == expected
    assert list(got) == list(expected)


def test_summary_counts_constant_nodes():
    """Parameters held only in Constant nodes count, as the text view says."""
    with pbdecode.open(FIXTURES / "onnx-model" / "constants.onnx") as f:
        assert f.summary["parameters"] == 18
        assert f.summary["initializers"]["constant_nodes"] == 4
        assert f.summary["initializers"]["dense"] == 0
