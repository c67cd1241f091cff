"""TensorFlow tensor bundles through the package: a checkpoint's and a
SavedModel's variables as arrays equal to the values `decode --json`
prints for them."""

from __future__ import annotations

import base64

import numpy as np
import pytest

import pbdecode
from conftest import FIXTURES, cli_json

BUNDLES = FIXTURES / "tf-checkpoint"
NUMPY = {
    "DT_FLOAT": "float32", "DT_DOUBLE": "float64", "DT_HALF": "float16", "DT_BFLOAT16": "bfloat16",
    "DT_INT8": "int8", "DT_INT16": "int16", "DT_INT32": "int32", "DT_INT64": "int64",
    "DT_UINT8": "uint8", "DT_UINT16": "uint16", "DT_UINT32": "uint32", "DT_UINT64": "uint64",
    "DT_BOOL": "bool", "DT_COMPLEX64": "complex64", "DT_COMPLEX128": "complex128",
}  # fmt: skip


def as_python(value):
    """A string of the JSON output as the package gives it: text, or bytes
    (``{"base64": ...}``) when it is not UTF-8."""
    return base64.b64decode(value["base64"]) if isinstance(value, dict) else value


def expected(node: dict) -> np.ndarray:
    dtype = NUMPY[node["data_type"]]
    values = node["values"]
    if dtype.startswith("complex"):
        values = [complex(re, im) for re, im in values]
    if dtype == "bfloat16":
        import ml_dtypes

        return np.array(values, dtype=np.float32).astype(ml_dtypes.bfloat16).reshape(node["shape"])
    return np.array(values, dtype=dtype).reshape(node["shape"])


@pytest.mark.parametrize(
    "index",
    ["train/ckpt.index", "saved_model_all_types/variables/variables.index", "many/ckpt.index"],
)
def test_a_checkpoints_arrays_equal_the_commands_values(index):
    path = BUNDLES / index
    printed = {t["key"]: t for t in cli_json(path, "--values", "all")["tensors"] if isinstance(t["key"], str)}
    with pbdecode.open(path) as f:
        assert f.format == "tf-checkpoint"
        compared = 0
        for t in f.tensors._list:
            node = printed[t.name]
            assert t.role == "variable"
            if node["data_type"] == "DT_STRING":
                assert list(t.numpy().reshape(-1)) == [as_python(v) for v in node["values"]], t.name
                compared += 1
                continue
            a = t.numpy()
            want = expected(node)
            assert a.dtype == want.dtype and a.shape == want.shape, t.name
            assert a.tobytes() == want.tobytes(), t.name
            compared += 1
        assert compared >= 7


def test_a_saved_models_variables_are_its_tensors():
    path = BUNDLES / "saved_model_all_types" / "saved_model.pb"
    printed = {v["name"]: v for v in cli_json(path, "--values", "all")["variables"]}
    with pbdecode.open(path) as f:
        variables = [t for t in f.tensors._list if t.role == "variable"]
        assert sorted(t.name for t in variables) == sorted(printed)
        for t in variables:
            node = printed[t.name]
            if node["data_type"] == "DT_STRING":
                assert list(t.numpy().reshape(-1)) == [as_python(v) for v in node["values"]], t.name
            else:
                assert t.numpy().tobytes() == expected(node).tobytes(), t.name


@pytest.mark.parametrize(
    ("index", "names"),
    [
        ("partitioned/model.ckpt.index", ["b", "w"]),
        ("v1/model.ckpt", ["a", "n"]),
        (
            "v1_partitioned/model.ckpt",
            ["p", "q", "s"]
            + [
                f"t_{d}"
                for d in ("bool", "complex128", "complex64", "float16", "float64")
                + ("int16", "int32", "int8", "uint8")
            ],
        ),
    ],
)
def test_partitioned_and_v1_tensors_equal_the_commands_values(index, names):
    """A partitioned variable assembled from its slices and a V1
    checkpoint's tensors (whole, or saved in slices and assembled), each
    the command's values (keyed by their name: a V1 checkpoint's keys, and
    a partitioned variable's slices', are slice keys)."""
    path = BUNDLES / index
    printed = {}
    for t in cli_json(path, "--values", "all")["tensors"]:
        if isinstance(t["key"], str):
            printed[t["key"]] = t
        else:
            printed.setdefault(t.get("slice_of"), t)
    with pbdecode.open(path) as f:
        tensors = f.tensors._list
        assert [t.name for t in tensors] == names
        for t in tensors:
            a = t.numpy()
            if printed[t.name]["data_type"] == "DT_STRING":
                assert a.shape == tuple(printed[t.name]["shape"]), t.name
                assert list(a.reshape(-1)) == [as_python(v) for v in printed[t.name]["values"]]
                continue
            want = expected(printed[t.name])
            assert a.dtype == want.dtype and a.shape == want.shape, t.name
            assert a.tobytes() == want.tobytes(), t.name


def test_a_tf1_saved_models_variables_are_tensors_of_role_variable():
    # No object graph: the graph's variable nodes, linked to the bundle's
    # keys by name and by the saver (global_step saved as counters/step).
    for d in ("saved_model_tf1", "saved_model_tf1_resource"):
        with pbdecode.open(FIXTURES / "tf-checkpoint" / d / "saved_model.pb") as f:
            roles = {name: t.role for name, t in f.tensors.items()}
            assert [n for n, r in roles.items() if r == "variable"] == ["dense/kernel", "dense/bias", "global_step"], d
            np.testing.assert_array_equal(f.tensors["dense/kernel"].numpy(), np.arange(6, dtype=np.float32).reshape(3, 2) / 4)
            assert f.tensors["global_step"].numpy() == 7
