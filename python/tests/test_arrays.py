"""Arrays: views over the map and their lifetime, `copy=` with numpy 2's
meaning, external data per tensor, containers, widening, .npy, threads."""

from __future__ import annotations

import gc
import shutil
import weakref
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import pbdecode
from conftest import FIXTURES, cli_json, inputs

TENSORS = FIXTURES / "onnx-tensor"
# raw_data at a file offset aligned for its uint16 values, and float32 raw
# data at an offset that is not (3 mod 4): mapped pages keep file offsets.
ALIGNED = TENSORS / "uint16_raw.pb"
UNALIGNED = TENSORS / "float_raw.pb"


def owner(a: np.ndarray):
    """The object at the end of an array's chain of bases."""
    while isinstance(a, np.ndarray) and a.base is not None:
        a = a.base
    return a


def test_an_aligned_raw_tensor_is_a_read_only_view_of_the_map():
    f = pbdecode.open(ALIGNED)
    a = f.tensors._list[0].numpy()
    assert a.flags.aligned and not a.flags.writeable and not a.flags.owndata
    assert type(owner(a)).__name__ == "StoredBytes"
    with pytest.raises(ValueError):
        a[...] = 0
    with pytest.raises(ValueError):
        a.flags.writeable = True
    expected = a.copy()
    # The view keeps the map alive after close() and del, and after the
    # collector ran.
    f.close()
    del f
    gc.collect()
    assert np.array_equal(a, expected)
    b = pbdecode.load(ALIGNED)
    assert not b.flags.owndata and np.array_equal(a, b)


def test_the_owner_lives_as_long_as_a_view():
    a = pbdecode.load(ALIGNED)
    ref = weakref.ref(owner(a))
    v = a[1:]
    del a
    gc.collect()
    assert ref() is not None
    assert v.size >= 1
    del v
    gc.collect()
    assert ref() is None


def test_copy_none_false_true_on_an_unaligned_raw_fixture():
    with pbdecode.open(UNALIGNED) as f:
        t = f.tensors._list[0]
        assert t.storage == "raw" and t.dtype == np.float32
        view = t.numpy(copy=False)
        assert not view.flags.aligned and not view.flags.writeable
        assert type(owner(view)).__name__ == "StoredBytes"
        default = t.numpy()  # copy=None: the same read-only view, unaligned
        assert not default.flags.aligned and not default.flags.owndata
        assert np.shares_memory(default, view)
        aligned = np.require(default, requirements="A")
        assert aligned.flags.aligned and np.array_equal(view, aligned, equal_nan=True)
        owned = t.numpy(copy=True)
        assert owned.flags.writeable and owned.flags.owndata and owned.flags.aligned
        owned[...] = 0
        assert not np.shares_memory(owned, view)


def test_copy_true_of_an_aligned_view_is_owned_and_writeable():
    a = pbdecode.load(ALIGNED, copy=True)
    assert a.flags.owndata and a.flags.writeable and a.flags.aligned
    assert np.array_equal(a, pbdecode.load(ALIGNED))


def test_copy_false_refuses_values_that_need_converting():
    for name in ["float_typed.pb", "int4_raw.pb", "bool_raw.pb", "string_typed.pb"]:
        with pytest.raises(ValueError, match="cannot be a view"):
            pbdecode.load(TENSORS / name, copy=False)
        assert pbdecode.load(TENSORS / name, copy=None).size >= 0


def test_asarray_follows_the_copy_rules():
    with pbdecode.open(ALIGNED) as f:
        t = f.tensors._list[0]
        a = np.asarray(t)
        assert not a.flags.writeable and type(owner(a)).__name__ == "StoredBytes"
        b = np.array(t)  # numpy 2: copy=True
        assert b.flags.writeable and np.array_equal(a, b)
        c = np.asarray(t, dtype=np.float64)
        assert c.dtype == np.float64 and np.array_equal(c, a)


def test_external_data_per_tensor(tmp_path):
    # ok: a view of the side file's map that outlives the file.
    with pbdecode.open(TENSORS / "external.pb") as f:
        t = f.tensors._list[0]
        assert t.storage == "external"
        assert t.external.location == "weights.bin"
        a = t.numpy(copy=False)
    gc.collect()
    assert type(owner(a)).__name__ == "StoredBytes"
    assert np.array_equal(a, np.asarray(cli_json(TENSORS / "external.pb")["value"]["values"], dtype=a.dtype).reshape(a.shape))
    # missing, short, escaping, checksum: opening works, the tensor's
    # values raise ValuesUnavailable with the reason --json gives.
    for name, word in [
        ("external_missing_file.pb", "cannot read"),
        ("external_past_end.pb", ""),
        ("external_dotdot.pb", "escapes"),
        ("external_absolute.pb", "escapes"),
        ("external_bad_sha1.pb", "SHA-1"),
    ]:
        reason = cli_json(TENSORS / name)["value"]["values_unavailable"]
        with pbdecode.open(TENSORS / name) as f:
            t = f.tensors._list[0]
            with pytest.raises(pbdecode.ValuesUnavailable) as e:
                t.numpy()
            assert e.value.reason == reason and word in reason
            with pytest.raises(pbdecode.ValuesUnavailable):
                t.stats()
    # A model: the tensors whose side file fails raise, the others load.
    model = FIXTURES / "onnx-model" / "external.onnx"
    printed = cli_json(model)["value"]["graph"]["initializer"]
    unavailable = {t["name"] for t in printed if "values_unavailable" in t}
    assert unavailable and len(unavailable) < len(printed)
    with pbdecode.open(model) as f:
        for t in f.tensors.values():
            if t.name in unavailable:
                with pytest.raises(pbdecode.ValuesUnavailable):
                    t.numpy()
            else:
                t.numpy()
    # A model copied without its side file: only its external tensors fail.
    shutil.copy(model, tmp_path / "m.onnx")
    with pbdecode.open(tmp_path / "m.onnx") as f:
        for t in f.tensors.values():
            if t.storage == "external":
                with pytest.raises(pbdecode.ValuesUnavailable):
                    t.numpy()
            else:
                t.numpy()
    # A symbolic link out of the folder is refused like ../
    (tmp_path / "in").mkdir()
    shutil.copy(TENSORS / "external.pb", tmp_path / "in" / "t.pb")
    (tmp_path / "in" / "weights.bin").symlink_to(TENSORS / "weights.bin")
    with pytest.raises(pbdecode.ValuesUnavailable, match="symbolic link"):
        pbdecode.load(tmp_path / "in" / "t.pb")


def test_loads_reads_external_data_only_with_base_dir():
    data = (TENSORS / "external.pb").read_bytes()
    with pytest.raises(pbdecode.ValuesUnavailable):
        pbdecode.loads(data)
    a = pbdecode.loads(data, base_dir=TENSORS)
    assert np.array_equal(a, pbdecode.load(TENSORS / "external.pb"))
    with pytest.raises(pbdecode.ValuesUnavailable):
        pbdecode.loads(data, base_dir=FIXTURES)


def test_containers():
    c = FIXTURES / "onnx-containers"
    nested = pbdecode.load(c / "seq_nested.pb")
    assert isinstance(nested, list) and [len(x) for x in nested] == [1, 2]
    assert nested[0][0].tolist() == [1.5, 2.5] and nested[1][0].shape == (2, 3)
    assert nested[1][1].tolist() == ["x", "y"]
    m = pbdecode.load(c / "map_int_keys.pb")
    assert list(m) == [10, -3] and m[10].tolist() == [0.5] and m[-3].tolist() == [1.0]
    assert pbdecode.load(c / "opt_empty.pb") == []
    one = pbdecode.load(c / "opt_tensor.pb")
    assert len(one) == 1 and one[0].shape == (10,)
    # As an optional (the type a test folder's model declares):
    opt = pbdecode.load(FIXTURES / "onnx-testdata" / "test_optional_has_element" / "test_data_set_0" / "input_0.pb")
    assert isinstance(opt, np.ndarray) or opt is None
    coo = pbdecode.load(c / "sparse_coo.pb")
    assert coo.dims == (3, 5) and coo.indices.shape == (4, 2)
    dense = coo.todense()
    for (i, j), v in zip(coo.indices.tolist(), coo.values.tolist()):
        assert dense[i, j] == v
    assert np.count_nonzero(dense) == 4
    lin = pbdecode.load(c / "sparse_linear.pb")
    assert lin.todense().reshape(-1)[lin.indices].tolist() == lin.values.tolist()


def test_widen_gives_the_npy_types_without_ml_dtypes(tmp_path):
    for name, want in [
        ("bfloat16_raw.pb", np.float32),
        ("float8e4m3fn_raw.pb", np.float32),
        ("float4e2m1_typed.pb", np.float32),
        ("int4_raw.pb", np.int8),
        ("uint2_typed.pb", np.uint8),
        ("float_raw.pb", np.float32),
    ]:
        wide = pbdecode.load(TENSORS / name, widen=True)
        assert wide.dtype == want, name
        exact = pbdecode.load(TENSORS / name)
        assert np.array_equal(exact.astype(want), wide, equal_nan=True), name
        with pbdecode.open(TENSORS / name) as f:
            f.tensors._list[0].to_npy(tmp_path / "t.npy")
        assert np.array_equal(np.load(tmp_path / "t.npy"), wide, equal_nan=True), name


def test_ml_dtypes_types():
    ml_dtypes = pytest.importorskip("ml_dtypes") if False else __import__("ml_dtypes")
    a = pbdecode.load(TENSORS / "int4_raw.pb")
    assert a.dtype == ml_dtypes.int4 and int(a.min()) == -8 and int(a.max()) == 7
    b = pbdecode.load(TENSORS / "all_codes_float8e4m3fn.pb")
    assert b.dtype == ml_dtypes.float8_e4m3fn and b.size == 256
    assert b.view(np.uint8).reshape(-1).tolist() == list(range(256))


def test_threads_read_one_file_and_many_at_once():
    paths = [p for p in inputs() if p.parent.name in ("onnx-tensor", "onnx-containers") and not p.name.startswith(("bad_", "notpb_", "external"))]

    def read(p):
        try:
            v = pbdecode.load(p)
        except (pbdecode.DecodeError, pbdecode.ValuesUnavailable) as e:
            return type(e).__name__
        return repr(v)

    serial = [read(p) for p in paths]
    with ThreadPoolExecutor(max_workers=4) as pool:
        assert list(pool.map(read, paths * 3)) == serial * 3
    with pbdecode.open(FIXTURES / "onnx-model" / "everything.onnx") as f:
        ts = [t for t in f.tensors.values() if t.storage != "unavailable"]
        one = [repr(t.numpy()) for t in ts]
        with ThreadPoolExecutor(max_workers=4) as pool:
            assert list(pool.map(lambda t: repr(t.numpy()), ts * 4)) == one * 4
            stats = list(pool.map(lambda t: t.stats() if t.dtype != object else None, ts * 4))
        assert stats[: len(ts)] == stats[len(ts) :][: len(ts)]


def test_describe_is_plain_data():
    d = pbdecode.describe((TENSORS / "float_raw.pb").read_bytes())
    assert d["format"] == "onnx-tensor" and d["tensors"][0]["dtype"] == "float32"
    assert d["tensors"][0]["stats"]["count"] == 9
    bad = pbdecode.describe((TENSORS / "bad_wire_type_6.pb").read_bytes())
    assert bad["error"]["check"] == "wire"


def test_closed_file():
    f = pbdecode.open(ALIGNED)
    f.close()
    assert f.closed
    with pytest.raises(ValueError, match="closed"):
        f.json()


def test_os_errors_are_oserror(tmp_path):
    with pytest.raises(FileNotFoundError):
        pbdecode.open(tmp_path / "none.pb")
    with pytest.raises(OSError):
        pbdecode.open(tmp_path)


def test_loads_with_its_test_folder_reads_the_bytes_as_that_file():
    # An optional of an ONNX test folder: load() reads it as the folder's
    # model declares it; loads() of its bytes with the folder does the same.
    for k in (0, 1):
        folder = FIXTURES / "onnx-testdata" / "test_optional_has_element" / f"test_data_set_{k}"
        path = folder / "input_0.pb"
        expected = pbdecode.load(path)
        got = pbdecode.loads(path.read_bytes(), base_dir=folder)
        if expected is None:
            assert got is None
        else:
            assert not isinstance(got, list), got
            np.testing.assert_array_equal(got, expected)
        assert isinstance(pbdecode.loads(path.read_bytes(), format="onnx-optional"), type(expected))
