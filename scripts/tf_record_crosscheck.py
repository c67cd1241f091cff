#!/usr/bin/env python3
"""Compares the decoder's reading of TensorFlow record files with
TensorFlow's own: every record of each file as tf.data.TFRecordDataset
reads it (raw bytes and length; an Example or SequenceExample parsed by
tf.train.Example.FromString / SequenceExample.FromString, feature by
feature), every event as tf.compat.v1.train.summary_iterator reads it
(step, wall time, file_version, graph_def bytes, each summary value's tag
and scalar), every picture of an Example or SequenceExample as
`decode --picture --tensor record/K/NAME` writes it, and for a damaged file the number of records read before
TensorFlow's DataLossError and the decoder's fault. Prints the counts and
every difference; exits 1 on any.

Needs TensorFlow; the tests do not.

Usage: scripts/tf_record_crosscheck.py [--decoder target/release/decode] [FILE...]
       (default: every file of tests/fixtures/tf-record)
"""
import argparse
import base64
import glob
import json
import os
import struct
import subprocess
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def tf_features(features):
    out = {}
    for name, feat in features.feature.items():
        kind = feat.WhichOneof("kind")
        if kind == "bytes_list":
            out[name] = ("bytes", list(feat.bytes_list.value))
        elif kind == "float_list":
            out[name] = ("float", [f32(v) for v in feat.float_list.value])
        elif kind == "int64_list":
            out[name] = ("int64", list(feat.int64_list.value))
        else:
            out[name] = ("none", [])
    return out


def our_feature(feat):
    if "bytes_list" in feat:
        return ("bytes", [base64.b64decode(v) for v in feat["bytes_list"].get("value", [])])
    if "float_list" in feat:
        return ("float", [f32(float(v)) for v in feat["float_list"].get("value", [])])
    if "int64_list" in feat:
        return ("int64", [int(v) for v in feat["int64_list"].get("value", [])])
    return ("none", [])


def our_features(features):
    return {k: our_feature(v) for k, v in (features or {}).get("feature", {}).items()}


def decoder_json(decoder, path):
    p = subprocess.run([decoder, "--json", path], capture_output=True)
    return json.loads(p.stdout), p.returncode


READER = """
import base64, json, os, sys
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import tensorflow as tf
path, compression = sys.argv[1], sys.argv[2]
try:
    for r in tf.data.TFRecordDataset(path, compression_type=compression):
        print(json.dumps({"record": base64.b64encode(r.numpy()).decode()}), flush=True)
except tf.errors.DataLossError as e:
    print(json.dumps({"error": str(e).splitlines()[0]}), flush=True)
"""


def tf_records(path):
    """The raw records TensorFlow reads, and its error (None when whole),
    read in a child process: TensorFlow crashes on some damaged files
    (a 2^40 length: SIGSEGV), which is then the error."""
    compression = {".gz": "GZIP", ".zlib": "ZLIB"}.get(os.path.splitext(path)[1], "")
    p = subprocess.run([sys.executable, "-c", READER, path, compression], capture_output=True, text=True)
    out, error = [], None
    for line in p.stdout.splitlines():
        item = json.loads(line)
        if "record" in item:
            out.append(base64.b64decode(item["record"]))
        else:
            error = item["error"]
    if p.returncode != 0:
        error = f"TensorFlow crashed (exit status {p.returncode})"
    return out, error


def picture_format(b):
    if b.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if b.startswith(b"\xff\xd8\xff"):
        return "jpg"
    if b.startswith(b"GIF8"):
        return "gif"
    return None


def tf_pictures(index, features, lists=None):
    """Each picture of an Example's features (a SequenceExample's context)
    and of a SequenceExample's feature lists, as TensorFlow parsed it, under
    the name `decode --picture --tensor` takes: record/K/FEATURE or
    record/K/LIST[T], /J added when the value holds several."""
    out = []

    def add(label, values):
        for j, v in enumerate(values):
            if picture_format(v):
                out.append((f"record/{index}/{label}" + (f"/{j}" if len(values) > 1 else ""), v))

    for name, feat in features.feature.items():
        if feat.WhichOneof("kind") == "bytes_list":
            add(name, list(feat.bytes_list.value))
    for name, fl in (lists or {}).items():
        for t, feat in enumerate(fl.feature):
            if feat.WhichOneof("kind") == "bytes_list":
                add(f"{name}[{t}]", list(feat.bytes_list.value))
    return out


def check_pictures(decoder, path, pictures, counts, where):
    """`decode --picture OUT --tensor NAME` writes each picture's bytes."""
    diffs = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, theirs in pictures:
            counts["pictures"] += 1
            out = os.path.join(tmp, "p." + picture_format(theirs))
            r = subprocess.run([decoder, "--picture", out, "--tensor", name, path],
                               capture_output=True)
            written = open(out, "rb").read() if os.path.exists(out) else None
            if r.returncode != 0 or written != theirs:
                diffs.append(f"{where}: picture {name}: exit {r.returncode}, "
                             f"{'no file' if written is None else 'bytes differ'}")
    return diffs


def check_file(decoder, path, counts):
    diffs = []
    ours, rc = decoder_json(decoder, path)
    raws, error = tf_records(path)
    records = ours.get("records", [])
    name = os.path.basename(path)
    counts["files"] += 1
    crashed = error is not None and error.startswith("TensorFlow crashed")
    # A crash can come before the records read ahead of it are printed (its
    # reader runs ahead in a thread): then those printed are compared.
    if len(records) != len(raws) and not (crashed and len(records) > len(raws)):
        diffs.append(f"{name}: {len(records)} records, TensorFlow reads {len(raws)}")
    if (error is None) != ("fault" not in ours):
        diffs.append(f"{name}: fault {ours.get('fault')}, TensorFlow: {error}")
    if error is not None:
        counts["faults"] += 1
        if error.startswith("TensorFlow crashed"):
            counts["tensorflow_crashes"] += 1
            print(f"{name}: {error}; the decoder: {ours.get('fault', {}).get('message')}")
    events = ours.get("kind") == "events"
    tf_events = []
    if events:
        tf_events = [tf.compat.v1.Event.FromString(r) for r in raws]
    for i, (mine, raw) in enumerate(zip(records, raws)):
        counts["records"] += 1
        where = f"{name} record {i}"
        if mine["length"] != len(raw):
            diffs.append(f"{where}: length {mine['length']} != {len(raw)}")
        t = mine["type"]
        v = mine.get("value")
        if t == "tensorflow.Example":
            counts["examples"] += 1
            ex = tf.train.Example.FromString(raw)
            theirs = tf_features(ex.features)
            if our_features(v.get("features")) != theirs:
                diffs.append(f"{where}: features differ")
            if error is None:  # a damaged file's exit status says its fault
                diffs += check_pictures(decoder, path, tf_pictures(i, ex.features), counts, where)
        elif t == "tensorflow.SequenceExample":
            counts["sequence_examples"] += 1
            se = tf.train.SequenceExample.FromString(raw)
            if our_features(v.get("context")) != tf_features(se.context):
                diffs.append(f"{where}: context differs")
            mine_lists = {k: [our_feature(f) for f in fl.get("feature", [])]
                          for k, fl in v.get("feature_lists", {}).get("feature_list", {}).items()}
            theirs_lists = {k: [tf_features(tf.train.Features(feature={"x": f}))["x"] for f in fl.feature]
                            for k, fl in se.feature_lists.feature_list.items()}
            if mine_lists != theirs_lists:
                diffs.append(f"{where}: feature lists differ")
            if error is None:
                diffs += check_pictures(
                    decoder, path, tf_pictures(i, se.context, se.feature_lists.feature_list),
                    counts, where)
        elif t == "tensorflow.Event":
            counts["events"] += 1
            e = tf_events[i]
            if int(v.get("step", 0)) != e.step or float(v.get("wall_time", 0.0)) != e.wall_time:
                diffs.append(f"{where}: step/wall_time differ")
            if v.get("file_version", "") != e.file_version:
                diffs.append(f"{where}: file_version differs")
            if base64.b64decode(v.get("graph_def", "")) != e.graph_def:
                diffs.append(f"{where}: graph_def differs")
            mine_values = v.get("summary", {}).get("value", [])
            if len(mine_values) != len(e.summary.value):
                diffs.append(f"{where}: {len(mine_values)} summary values != {len(e.summary.value)}")
            for mv, tv in zip(mine_values, e.summary.value):
                counts["summary_values"] += 1
                if mv.get("tag", "") != tv.tag:
                    diffs.append(f"{where}: tag {mv.get('tag')} != {tv.tag}")
                if tv.HasField("simple_value") and f32(float(mv["simple_value"])) != f32(tv.simple_value):
                    diffs.append(f"{where}: simple_value differs")
                if tv.HasField("tensor"):
                    theirs = tf.make_ndarray(tv.tensor).flatten().tolist()
                    mine_t = mv["tensor"].get("values", [])
                    if theirs and isinstance(theirs[0], bytes):
                        mine_t = [s.encode() if isinstance(s, str) else base64.b64decode(s["base64"]) for s in mine_t]
                    elif theirs:
                        # float32 values are written as the shortest float32 text.
                        narrow = f32 if tv.tensor.dtype == 1 else float
                        theirs = [narrow(float(x)) for x in theirs]
                        mine_t = [narrow(float(x)) for x in mine_t]
                    if mine_t != theirs:
                        diffs.append(f"{where}: tensor of {tv.tag} differs")
        elif t == "tensorflow.TensorProto":
            counts["tensors"] += 1
            from tensorflow.core.framework import tensor_pb2
            theirs = tf.make_ndarray(tensor_pb2.TensorProto.FromString(raw)).flatten().tolist()
            if [float(x) for x in v.get("values", [])] != [float(x) for x in theirs]:
                diffs.append(f"{where}: tensor values differ")
        elif t == "bytes":
            counts["bytes"] += 1
            if base64.b64decode(mine["bytes"]) != raw:
                diffs.append(f"{where}: bytes differ")
        else:
            counts["other"] += 1
    if events:
        # summary_iterator reads the same events (it stops at the same fault).
        from tensorflow.python.summary.summary_iterator import summary_iterator
        n = sum(1 for _ in summary_iterator(path))
        if n is not None and n != len(records):
            diffs.append(f"{name}: summary_iterator reads {n} events, the decoder {len(records)}")
    return diffs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--decoder", default=os.path.join(HERE, "..", "target", "release", "decode"))
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    files = args.files or sorted(glob.glob(os.path.join(HERE, "..", "tests", "fixtures", "tf-record", "*")))
    files = [f for f in files if not f.endswith(".md")]
    counts = dict.fromkeys(["files", "records", "examples", "sequence_examples", "events",
                            "summary_values", "pictures", "tensors", "bytes", "other", "faults",
                            "tensorflow_crashes"], 0)
    diffs = []
    for f in files:
        diffs += check_file(args.decoder, f, counts)
    print(", ".join(f"{k} {v}" for k, v in counts.items()))
    for d in diffs:
        print("DIFF", d)
    print(f"{len(diffs)} differences")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
