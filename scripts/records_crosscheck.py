#!/usr/bin/env python3
"""Cross-checks `pbdecode.records(p).to_arrow()` against TensorFlow's own
parser on record files TensorFlow writes:

- Examples with every feature kind (int64 including the extremes, float32
  including NaN, infinities, -0.0 and subnormals, bytes including empty
  and non-UTF-8 values), features missing from some records, features
  present with no values, a Feature with no list set;
- SequenceExamples (context features and feature lists, lists of no
  steps, steps of different lengths);
- each written plain, GZIP and ZLIB (`tf.io.TFRecordOptions`).

Values are compared with `tf.io.parse_example` / `tf.io.parse_sequence_example`
(VarLenFeature and RaggedFeature specs built from the file): float32 bit
for bit, int64 and bytes exactly; a record lacking a feature must be null
in Arrow and absent from the record's proto (TensorFlow's VarLen gives []
for both, so presence is checked against `tf.train.Example.FromString`).
A file cut inside a record: the whole records, and `Records.fault`'s check
`record-cut` (TensorFlow's reader stops there too).

Needs tensorflow-cpu, pyarrow and the package installed
(`pip install ./python`). Exits non-zero on the first difference.

usage: scripts/records_crosscheck.py [DIR]
"""

from __future__ import annotations

import os
import sys
import tempfile

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

import pbdecode  # noqa: E402

rng = np.random.default_rng(7)
I64 = np.iinfo(np.int64)
SPECIAL_F = np.array(
    [np.nan, np.inf, -np.inf, -0.0, 0.0, np.float32(1e-45), np.float32(3.4028235e38), 1.1754942e-38],
    dtype=np.float32,
)


def feature(kind: str, values) -> tf.train.Feature:
    if kind == "int64":
        return tf.train.Feature(int64_list=tf.train.Int64List(value=[int(v) for v in values]))
    if kind == "float":
        return tf.train.Feature(float_list=tf.train.FloatList(value=np.asarray(values, np.float32)))
    if kind == "bytes":
        return tf.train.Feature(bytes_list=tf.train.BytesList(value=list(values)))
    return tf.train.Feature()


def random_values(kind: str, n: int):
    if kind == "int64":
        v = rng.integers(-(2**40), 2**40, n)
        if n and rng.random() < 0.3:
            v[0] = rng.choice([I64.min, I64.max, -1, 0])
        return v
    if kind == "float":
        v = rng.standard_normal(n).astype(np.float32)
        if n and rng.random() < 0.3:
            v[0] = rng.choice(SPECIAL_F)
        return v
    return [bytes(rng.integers(0, 256, int(rng.integers(0, 12))).astype(np.uint8)) for _ in range(n)]


KINDS = {"ids": "int64", "label": "int64", "weights": "float", "score": "float", "name": "bytes", "blob": "bytes"}


def examples(n: int) -> list[bytes]:
    out = []
    for i in range(n):
        f = {}
        for name, kind in KINDS.items():
            r = rng.random()
            if r < 0.15:
                continue  # missing
            length = 0 if r < 0.25 else int(rng.integers(1, 6))
            f[name] = feature(kind, random_values(kind, length))
        if i % 7 == 3:
            f["unset"] = tf.train.Feature()  # no list set: present, empty
        out.append(tf.train.Example(features=tf.train.Features(feature=f)).SerializeToString())
    return out


def sequence_examples(n: int) -> list[bytes]:
    out = []
    for _ in range(n):
        se = tf.train.SequenceExample()
        se.context.feature["length"].int64_list.value.append(int(rng.integers(0, 100)))
        if rng.random() < 0.7:
            se.context.feature["title"].bytes_list.value.append(b"t%d" % rng.integers(0, 9))
        for name, kind in (("tokens", "int64"), ("frames", "float"), ("words", "bytes")):
            if rng.random() < 0.2:
                continue
            fl = se.feature_lists.feature_list[name]
            for _ in range(int(rng.integers(0, 4))):
                fl.feature.append(feature(kind, random_values(kind, int(rng.integers(0, 4)))))
        out.append(se.SerializeToString())
    return out


def write(path: str, records: list[bytes], compression: str) -> None:
    with tf.io.TFRecordWriter(path, options=tf.io.TFRecordOptions(compression_type=compression)) as w:
        for r in records:
            w.write(r)


def same(kind: str, got, want) -> bool:
    if kind == "float":
        a = np.asarray(got, np.float32).view(np.uint32)
        b = np.asarray(want, np.float32).view(np.uint32)
        return a.shape == b.shape and bool((a == b).all())
    if kind == "int64":
        return list(map(int, got)) == list(map(int, want))
    return [bytes(x) for x in got] == [bytes(x) for x in want]


TF_DTYPE = {"int64": tf.int64, "float": tf.float32, "bytes": tf.string}


def check_examples(path: str, raw: list[bytes], compression: str) -> int:
    table = pbdecode.records(path, compression=compression or None).to_arrow()
    assert table.num_rows == len(raw), (table.num_rows, len(raw))
    protos = [tf.train.Example.FromString(r) for r in raw]
    kinds = {}
    for p in protos:
        for name, f in p.features.feature.items():
            k = f.WhichOneof("kind")
            if k:
                kinds[name] = {"int64_list": "int64", "float_list": "float", "bytes_list": "bytes"}[k]
    spec = {name: tf.io.VarLenFeature(TF_DTYPE[k]) for name, k in kinds.items()}
    parsed = tf.io.parse_example(tf.constant(raw), spec)
    checked = 0
    for name, kind in kinds.items():
        sp = parsed[name]
        rows = sp.indices.numpy()[:, 0]
        vals = sp.values.numpy()
        col = table.column(name).to_pylist()
        for i, p in enumerate(protos):
            want = vals[rows == i]
            got = col[i]
            present = name in p.features.feature
            if not present:
                assert got is None, (path, name, i, got)
                continue
            assert got is not None, (path, name, i)
            assert same(kind, got, want), (path, name, i, got, want)
            checked += len(want)
    # The Feature with no list set: present, no values (a null-typed list
    # while no record gives it a kind).
    if "unset" in table.column_names:
        col = table.column("unset").to_pylist()
        for i, p in enumerate(protos):
            assert (col[i] == []) == ("unset" in p.features.feature), (path, i, col[i])
    return checked


def check_sequence_examples(path: str, raw: list[bytes], compression: str) -> int:
    table = pbdecode.records(path, compression=compression or None).to_arrow()
    assert table.num_rows == len(raw)
    protos = [tf.train.SequenceExample.FromString(r) for r in raw]
    context = {"length": tf.io.VarLenFeature(tf.int64), "title": tf.io.VarLenFeature(tf.string)}
    seq_kinds = {"tokens": "int64", "frames": "float", "words": "bytes"}
    sequence = {n: tf.io.RaggedFeature(TF_DTYPE[k], row_splits_dtype=tf.int64) for n, k in seq_kinds.items()}
    checked = 0
    for i, r in enumerate(raw):
        ctx, seq, _ = tf.io.parse_sequence_example(tf.constant([r]), context_features=context, sequence_features=sequence)
        p = protos[i]
        for name, kind in (("length", "int64"), ("title", "bytes")):
            got = table.column(name)[i].as_py() if name in table.column_names else None
            if name not in p.context.feature:
                assert got is None, (path, name, i)
                continue
            want = ctx[name].values.numpy()
            assert same(kind, got, want), (path, name, i, got, want)
            checked += len(want)
        for name, kind in seq_kinds.items():
            got = table.column(name)[i].as_py() if name in table.column_names else None
            if name not in p.feature_lists.feature_list:
                assert got is None, (path, name, i, got)
                continue
            want = seq[name].to_list()[0]  # [steps][values]
            assert got is not None and len(got) == len(want), (path, name, i, got, want)
            for g, w in zip(got, want):
                assert same(kind, g, w), (path, name, i, g, w)
                checked += len(w)
    return checked


def check_cut(path: str, raw: list[bytes]) -> None:
    data = open(path, "rb").read()
    cut = path + ".cut"
    with open(cut, "wb") as f:
        f.write(data[: len(data) - 7])
    r = pbdecode.records(cut)
    assert len(r) == len(raw) - 1, len(r)
    assert r.fault["check"] == "record-cut" and r.fault["path"] == f"record[{len(raw) - 1}]", r.fault
    tf_count = sum(1 for _ in tf.data.TFRecordDataset(cut).apply(tf.data.experimental.ignore_errors()))
    assert tf_count == len(raw) - 1, tf_count


def main() -> int:
    folder = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="pbdecode-records-")
    os.makedirs(folder, exist_ok=True)
    ex = examples(400)
    se = sequence_examples(200)
    total = 0
    for compression in ("", "GZIP", "ZLIB"):
        p = os.path.join(folder, f"examples{('.' + compression.lower()) if compression else ''}.tfrecord")
        write(p, ex, compression)
        total += check_examples(p, ex, compression)
        q = os.path.join(folder, f"sequence{('.' + compression.lower()) if compression else ''}.tfrecord")
        write(q, se, compression)
        total += check_sequence_examples(q, se, compression)
    check_cut(os.path.join(folder, "examples.tfrecord"), ex)
    print(f"records: {total} values of {len(ex)} Examples and {len(se)} SequenceExamples, plain/GZIP/ZLIB, equal to TensorFlow's; a cut file's records and fault as TensorFlow reads it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
