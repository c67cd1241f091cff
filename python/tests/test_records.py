"""pbdecode.records() and pbdecode.events() on the record files TensorFlow
wrote (tests/fixtures/tf-record) and on records built here: every value
equal to the JSON contract's (`decode --json`, the command's reading), the
Arrow table's types and nulls, the C data interface's buffers shared, the
faults as the command names them. pyarrow and pandas are optional for the
package: the tests that need them skip with the reason when they are
missing."""

from __future__ import annotations

import base64
import struct
from pathlib import Path

import numpy as np
import pytest

import pbdecode
from conftest import FIXTURES, cli_json

RECORDS = FIXTURES / "tf-record"


def crc32c(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def masked(data: bytes) -> int:
    c = crc32c(data)
    return ((c >> 15 | c << 17) + 0xA282EAD8) & 0xFFFFFFFF


def framed(records: list[bytes]) -> bytes:
    out = bytearray()
    for r in records:
        n = struct.pack("<Q", len(r))
        out += n + struct.pack("<I", masked(n)) + r + struct.pack("<I", masked(r))
    return bytes(out)


def varint(v: int) -> bytes:
    v &= (1 << 64) - 1
    out = bytearray()
    while v >= 0x80:
        out.append(v & 0x7F | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def ld(n: int, body: bytes) -> bytes:
    return varint(n << 3 | 2) + varint(len(body)) + body


def example(features: dict[str, tuple[str, list]]) -> bytes:
    entries = b""
    for name, (kind, values) in features.items():
        if kind == "int64":
            lst = ld(3, ld(1, b"".join(varint(v) for v in values)) if values else b"")
        elif kind == "float":
            lst = ld(2, ld(1, np.asarray(values, "<f4").tobytes()) if values else b"")
        elif kind == "bytes":
            lst = ld(1, b"".join(ld(1, v) for v in values))
        else:
            lst = b""
        entries += ld(1, ld(1, name.encode()) + ld(2, lst))
    return ld(1, entries)


def expected_rows(path: Path) -> list[dict]:
    """Each record's features as `decode --json` writes them."""
    rows = []
    for r in cli_json(path)["records"]:
        v = r["value"]
        feats = (v.get("features") or v.get("context") or {}).get("feature", {})
        row = {}
        for name, f in feats.items():
            if "int64_list" in f:
                row[name] = [int(x) for x in f["int64_list"].get("value", [])]
            elif "float_list" in f:
                row[name] = [np.float32(x) if not isinstance(x, str) else np.float32(x.replace("Infinity", "inf")) for x in f["float_list"].get("value", [])]
            elif "bytes_list" in f:
                row[name] = [base64.b64decode(x) for x in f["bytes_list"].get("value", [])]
            else:
                row[name] = []
        lists = (v.get("feature_lists") or {}).get("feature_list", {})
        for name, fl in lists.items():
            steps = []
            for f in fl.get("feature", []):
                if "bytes_list" in f:
                    steps.append([base64.b64decode(x) for x in f["bytes_list"].get("value", [])])
                elif "int64_list" in f:
                    steps.append([int(x) for x in f["int64_list"].get("value", [])])
                elif "float_list" in f:
                    steps.append([np.float32(x) for x in f["float_list"].get("value", [])])
                else:
                    steps.append([])
            row[name] = steps
        rows.append(row)
    return rows


def plain(v):
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, list):
        return [plain(x) for x in v]
    return v


@pytest.mark.parametrize("name", ["examples.tfrecord", "examples.tfrecord.gz", "examples.tfrecord.zlib", "sequence_examples.tfrecord"])
def test_records_iterate_as_the_command_reads_them(name):
    path = RECORDS / name
    rs = pbdecode.records(path)
    want = expected_rows(RECORDS / name)
    got = list(rs)
    assert len(rs) == len(want) == len(got) > 0
    for g, w in zip(got, want):
        assert set(g) == set(w)
        for k in w:
            assert plain(g[k]) == plain(w[k]), (name, k)
    # The types: int64 and float32 arrays, lists of bytes.
    first = got[0]
    for v in first.values():
        assert isinstance(v, (np.ndarray, list))
        if isinstance(v, np.ndarray) and v.size:
            assert v.dtype in (np.int64, np.float32)
    assert rs.fault is None


def test_compression_is_detected_and_checked():
    assert len(pbdecode.records(RECORDS / "examples.tfrecord.gz", compression="GZIP")) == 4
    with pytest.raises(ValueError, match="gzip, not ZLIB"):
        pbdecode.records(RECORDS / "examples.tfrecord.gz", compression="ZLIB")
    with pytest.raises(ValueError, match="compression"):
        pbdecode.records(RECORDS / "examples.tfrecord", compression="LZ4")


def test_several_files_and_bytes():
    rs = pbdecode.records([RECORDS / "examples.tfrecord", str(RECORDS / "examples.tfrecord.zlib")])
    assert len(rs) == 8
    data = (RECORDS / "examples.tfrecord").read_bytes()
    assert len(pbdecode.records(data)) == 4


def test_damaged_records_raise_with_the_command_checks():
    for name, check, path in [("bad_data_crc.tfrecord", "record-data-crc", "record[0]"), ("bad_length_crc.tfrecord", "record-length-crc", "record[1]")]:
        with pytest.raises(pbdecode.DecodeError) as e:
            pbdecode.records(RECORDS / name)
        assert e.value.check == check
        assert e.value.path == path
        assert e.value.to_dict() == cli_json(RECORDS / name)["fault"] | {}


def test_a_cut_file_gives_its_whole_records_and_the_fault():
    rs = pbdecode.records(RECORDS / "cut.tfrecord")
    want = cli_json(RECORDS / "cut.tfrecord")
    assert len(rs) == len(want["records"])
    assert rs.fault == want["fault"]
    assert rs.fault["check"] == "record-cut" and rs.fault["path"].startswith("record[")


def test_other_payloads_iterate_as_messages():
    rs = pbdecode.records(RECORDS / "tensors.tfrecord")
    got = list(rs)
    want = [r.get("value") for r in cli_json(RECORDS / "tensors.tfrecord")["records"]]
    assert got == want
    with pytest.raises(pbdecode.DecodeError) as e:
        rs.to_arrow() if _has("pyarrow") else (_ for _ in ()).throw(rs._other[0][1])
    assert e.value.check == "record-payload"
    assert e.value.path == "record[0]"


def test_a_file_of_another_kind_says_what_it_looks_like(tmp_path):
    npy = tmp_path / "x.npy"
    np.save(npy, np.arange(3))
    with pytest.raises(pbdecode.DecodeError) as e:
        pbdecode.records(npy)
    assert "NumPy" in str(e.value) and "numpy.load" in e.value.hint


def test_built_records_nulls_empties_and_kinds(tmp_path):
    recs = [
        example({"a": ("int64", [1, -2, 2**63 - 1]), "f": ("float", [0.5, -0.0]), "s": ("bytes", [b"x", b""])}),
        example({"a": ("int64", []), "u": ("unset", [])}),
        b"",  # the empty Example
        example({"f": ("float", [np.inf]), "late": ("bytes", [b"\xff"])}),
    ]
    p = tmp_path / "built.tfrecord"
    p.write_bytes(framed(recs))
    rows = list(pbdecode.records(p))
    assert plain(rows[0]["a"]) == [1, -2, 2**63 - 1]
    assert rows[0]["f"].view(np.uint32).tolist() == [0x3F000000, 0x80000000]
    assert rows[0]["s"] == [b"x", b""]
    assert plain(rows[1]["a"]) == [] and plain(rows[1]["u"]) == []
    assert rows[2] == {}
    assert rows[3]["late"] == [b"\xff"] and "a" not in rows[3]


def test_a_feature_of_two_kinds_is_an_error(tmp_path):
    p = tmp_path / "kinds.tfrecord"
    p.write_bytes(framed([example({"x": ("int64", [1])}), example({"x": ("float", [1.0])})]))
    with pytest.raises(pbdecode.DecodeError) as e:
        pbdecode.records(p)
    assert e.value.check == "feature-kind" and e.value.path == "record[1]"
    assert '"x"' in e.value.message


def _has(module: str) -> bool:
    try:
        __import__(module)
        return True
    except ImportError:
        return False


def test_to_arrow_types_nulls_and_shared_buffers(tmp_path):
    pa = pytest.importorskip("pyarrow", reason="to_arrow() needs pyarrow")
    recs = [
        example({"a": ("int64", [1, 2]), "f": ("float", [0.5]), "s": ("bytes", [b"x"])}),
        example({"a": ("int64", []), "u": ("unset", [])}),
        b"",
    ]
    p = tmp_path / "t.tfrecord"
    p.write_bytes(framed(recs))
    t = pbdecode.records(p).to_arrow()
    t.validate(full=True)
    assert t.schema.field("a").type == pa.large_list(pa.int64())
    assert t.schema.field("f").type == pa.large_list(pa.float32())
    assert t.schema.field("s").type == pa.large_list(pa.large_binary())
    assert t.schema.field("u").type == pa.large_list(pa.null())
    assert t.column("a").to_pylist() == [[1, 2], [], None]
    assert t.column("f").to_pylist() == [[0.5], None, None]
    assert t.column("s").to_pylist() == [[b"x"], None, None]
    assert t.column("u").to_pylist() == [None, [], None]
    # The values' buffer is the library's (Arrow did not copy it).
    rs = pbdecode.records(p)
    table = rs._tables[0]
    values = table.buffers(0)[3]
    arrow_values = rs.to_arrow().column("a").chunk(0).values
    assert arrow_values.buffers()[1].address == values.__array_interface__["data"][0]


def test_to_arrow_of_the_fixtures_equals_iteration():
    pytest.importorskip("pyarrow", reason="to_arrow() needs pyarrow")
    for name in ["examples.tfrecord", "sequence_examples.tfrecord"]:
        rs = pbdecode.records(RECORDS / name)
        t = rs.to_arrow()
        t.validate(full=True)
        rows = list(rs)
        for i, row in enumerate(rows):
            for col in t.column_names:
                got = t.column(col)[i].as_py()
                want = plain(row.get(col))
                if isinstance(want, list) and want and isinstance(want[0], float):
                    got = [np.float32(x) for x in got]
                    want = [np.float32(x) for x in want]
                assert plain(got) == want or got == want, (name, col, i)


def test_sequence_examples_as_lists_of_lists():
    pa = pytest.importorskip("pyarrow", reason="to_arrow() needs pyarrow")
    t = pbdecode.records(RECORDS / "sequence_examples.tfrecord").to_arrow()
    for name in ["frames", "tokens", "images"]:
        assert pa.types.is_large_list(t.schema.field(name).type.value_type), name


def test_several_files_to_arrow_fill_missing_columns(tmp_path):
    pytest.importorskip("pyarrow", reason="to_arrow() needs pyarrow")
    a, b = tmp_path / "a.tfrecord", tmp_path / "b.tfrecord"
    a.write_bytes(framed([example({"x": ("int64", [1])})]))
    b.write_bytes(framed([example({"y": ("bytes", [b"z"])})]))
    t = pbdecode.records([a, b]).to_arrow()
    assert t.column("x").to_pylist() == [[1], None]
    assert t.column("y").to_pylist() == [None, [b"z"]]


def test_to_pandas():
    pytest.importorskip("pandas", reason="to_pandas() needs pandas")
    rs = pbdecode.records(RECORDS / "examples.tfrecord")
    df = rs.to_pandas()
    assert len(df) == 4
    rows = list(rs)
    assert list(df.columns) == list(dict.fromkeys(k for r in rows for k in r))
    for i, r in enumerate(rows):
        for k, v in r.items():
            assert plain(list(df[k].iloc[i])) == plain(v)
    # The same cells without pyarrow.
    df2 = rs._pandas_without_arrow()
    for k in df.columns:
        for i in range(len(df)):
            a, b = df[k].iloc[i], df2[k].iloc[i]
            assert (a is None and b is None) or plain(list(a)) == plain(list(b))


# Event files.


def test_events_scalars_as_the_command_reads_them():
    pytest.importorskip("pandas", reason="events() gives pandas DataFrames")
    for name in ["tf1.tfevents", "tf2.tfevents"]:
        ev = pbdecode.events(RECORDS / name)
        df = ev.scalars
        assert list(df.columns) == ["step", "tag", "value", "wall_time"]
        assert df["value"].dtype == np.float32 and df["step"].dtype == np.int64
        want = {}
        for tag in cli_json(RECORDS / name)["summary"]["tags"]:
            want[tag["tag"]] = tag
        for tag, rows in df.groupby("tag"):
            w = want[tag]
            assert len(rows) == w["values"], (name, tag)
            assert rows["step"].min() == w["first_step"] and rows["step"].max() == w["last_step"]
            assert float(rows["value"].iloc[-1]) == float(np.float32(w["last_value"]))
        # Sorted by tag, then step.
        assert list(df["tag"]) == sorted(df["tag"])


def test_events_histograms_images_text():
    pytest.importorskip("pandas", reason="events() gives pandas DataFrames")
    ev = pbdecode.events(RECORDS / "tf2.tfevents")
    h = ev.histograms
    assert len(h) == 3 and list(h.columns) == ["step", "tag", "counts", "limits", "wall_time"]
    assert all(len(c) == len(lim) for c, lim in zip(h["counts"], h["limits"]))
    im = ev.images
    assert len(im) == 1 and im["value"][0][:8] == b"\x89PNG\r\n\x1a\n"
    assert len(ev.text) == 1 and isinstance(ev.text["value"][0], str)
    ev1 = pbdecode.events(RECORDS / "tf1.tfevents")
    assert len(ev1.histograms) >= 1 and len(ev1.images) == 1


def test_events_of_a_folder_name_each_run(tmp_path):
    pytest.importorskip("pandas", reason="events() gives pandas DataFrames")
    for run in ["a", "b/c"]:
        (tmp_path / run).mkdir(parents=True)
        (tmp_path / run / "events.out.tfevents.1").write_bytes((RECORDS / "tf1.tfevents").read_bytes())
    (tmp_path / "notes.txt").write_text("not an event file")
    df = pbdecode.events(tmp_path).scalars
    assert list(df.columns) == ["step", "tag", "value", "wall_time", "dir_name"]
    assert sorted(set(df["dir_name"])) == ["a", "b/c"]
    one = pbdecode.events(RECORDS / "tf1.tfevents").scalars
    assert len(df) == 2 * len(one)


def test_events_fault_of_a_cut_file(tmp_path):
    pytest.importorskip("pandas", reason="events() gives pandas DataFrames")
    data = (RECORDS / "tf2.tfevents").read_bytes()
    p = tmp_path / "events.out.tfevents.cut"
    p.write_bytes(data[:-5])
    ev = pbdecode.events(p)
    assert ev.fault["check"] == "record-cut"
    assert len(ev.scalars) <= len(pbdecode.events(RECORDS / "tf2.tfevents").scalars)


def scalar_event(step: int, wall_time: float, tag: str, value: float) -> bytes:
    """An Event of one `simple_value` (fields 1 wall_time, 2 step, 5 summary)."""
    v = ld(1, tag.encode()) + varint(2 << 3 | 5) + struct.pack("<f", value)
    return varint(1 << 3 | 1) + struct.pack("<d", wall_time) + varint(2 << 3) + varint(step) + ld(5, ld(1, v))


def test_events_scalars_sorted_by_run_tag_then_step_even_when_steps_go_back(tmp_path):
    pytest.importorskip("pandas", reason="events() gives pandas DataFrames")
    version = varint(1 << 3 | 1) + struct.pack("<d", 1.0) + ld(3, b"brain.Event:2")
    # A run restarted from a checkpoint writes steps 5, 6, then 3 again.
    rows = {"b": [(5, "z", 1.0), (6, "z", 2.0), (3, "z", 3.0), (4, "a", 4.0)], "a": [(9, "z", 5.0), (1, "z", 6.0)]}
    for run, events in rows.items():
        (tmp_path / run).mkdir()
        data = [version] + [scalar_event(s, 100.0 + s, t, v) for s, t, v in events]
        (tmp_path / run / "events.out.tfevents.1").write_bytes(framed(data))
    df = pbdecode.events(tmp_path).scalars
    got = list(zip(df["dir_name"], df["tag"], df["step"].tolist(), df["value"].tolist()))
    assert got == [("a", "z", 1, 6.0), ("a", "z", 9, 5.0), ("b", "a", 4, 4.0), ("b", "z", 3, 3.0), ("b", "z", 5, 1.0), ("b", "z", 6, 2.0)]
    assert df["wall_time"].tolist() == [101.0, 109.0, 104.0, 103.0, 105.0, 106.0]
    # A folder of one run has no dir_name; its rows sorted the same way.
    one = pbdecode.events(tmp_path / "b").scalars
    assert list(one.columns) == ["step", "tag", "value", "wall_time"]
    assert list(zip(one["tag"], one["step"].tolist())) == [("a", 4), ("z", 3), ("z", 5), ("z", 6)]
