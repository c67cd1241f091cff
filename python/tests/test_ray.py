"""Ray Data on a local Ray: `pbdecode.ray.read_tfrecords` (its rows and
schema those of `pbdecode.records(path).to_arrow()`), and the example
(examples/ray_data.py) over tests/fixtures, one row per file, each equal to
`decode --jsonl`'s line for it (format, type, each tensor file's
statistics, the error of a file turned down). Needs ray[data]:
python/run_tests.sh installs it, and only when that install fails
(PBDECODE_RAY_UNAVAILABLE says why) do these tests skip."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import FIXTURES, cli

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "ray_data.py"


def example():
    """The example as a module Ray's workers import too (PYTHONPATH)."""
    sys.path.insert(0, str(EXAMPLE.parent))
    try:
        return importlib.import_module("ray_data")
    finally:
        sys.path.remove(str(EXAMPLE.parent))


def same_number(a, b) -> bool:
    if isinstance(a, str) or isinstance(b, str) or a is None or b is None:
        return a == b or (a == "NaN" and b != b) or (b == "NaN" and a != a)
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    return bool(np.float32(a) == np.float32(b)) or float(a) == float(b)


def ray_module():
    try:
        import ray
    except ImportError as e:
        why = os.environ.get("PBDECODE_RAY_UNAVAILABLE")
        if why:
            pytest.skip(f"ray[data] could not be installed: {why}")
        pytest.fail(f"ray[data] is not installed ({e}): pip install 'ray[data]'")
    return ray


@pytest.fixture(scope="module")
def local_ray():
    ray = ray_module()
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": str(EXAMPLE.parent)}},
    )
    yield ray
    ray.shutdown()


def test_read_tfrecords_rows_and_schema_are_to_arrows(local_ray, tmp_path):
    import pyarrow as pa

    import pbdecode
    import pbdecode.ray

    records = FIXTURES / "tf-record"
    names = ["examples.tfrecord", "examples.tfrecord.gz", "examples.tfrecord.zlib", "sequence_examples.tfrecord"]
    for name in names:
        want = pbdecode.records(records / name).to_arrow()
        ds = pbdecode.ray.read_tfrecords(str(records / name))
        got = pa.concat_tables(local_ray.get(ds.to_arrow_refs()))
        assert got.schema == want.schema, name
        assert got.equals(want), name
    # Several files in parallel read tasks, features missing from some.
    paths = [str(records / n) for n in names[:2]]
    ds = pbdecode.ray.read_tfrecords(paths, override_num_blocks=2)
    rows = ds.take_all()
    assert len(rows) == 8
    # Ray keeps no order between blocks unless asked.
    labels = pbdecode.records(records / names[0]).to_arrow().column("label").to_pylist()
    assert sorted(r["label"] for r in rows) == sorted(labels * 2)
    # A damaged file fails the read with the check.
    with pytest.raises(Exception, match="record-data-crc"):
        pbdecode.ray.read_tfrecords(str(records / "bad_data_crc.tfrecord")).take_all()


def test_ray_data_rows_equal_decode_jsonl(local_ray):
    lines = cli("--jsonl", "-r", str(FIXTURES)).stdout.decode().splitlines()
    # By the path as given: a link among the fixtures names the same file as
    # another path (a tensor bundle's damaged copies hold one).
    expected = {Path(os.path.abspath(j["file"])): j for j in map(json.loads, lines)}
    rows = example().describe_folder(str(FIXTURES)).take_all()
    assert len(rows) == len(expected)
    for row in rows:
        path = Path(os.path.abspath(row["path"]))
        want = expected[path]
        error = json.loads(row["error"])
        if "error" in want:
            assert error == want["error"], path
            continue
        assert error is None, path
        assert row["format"] == want["format"], path
        # An ONNX test folder's file is read with its model by the command
        # (a sequence its model declares optional is an optional).
        assert row["type"] == want["type"] or want["type"] in json.loads(row["also"]), path
        tensors = json.loads(row["tensors"])
        if want["format"] == "onnx-tensor":
            (t,) = tensors
            assert t["shape"] == want["value"].get("dims", []), path
            stats = want["value"].get("stats")
            if stats is not None:
                for k, v in stats.items():
                    assert same_number(t["stats"][k], v), (path, k, t["stats"][k], v)
            elif "values_unavailable" in want["value"]:
                assert t["values_unavailable"] == want["value"]["values_unavailable"], path
