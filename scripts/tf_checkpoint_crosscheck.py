#!/usr/bin/env python3
"""Compares every tensor `decode --json --values all` reads from the tensor
bundles in tests/fixtures/tf-checkpoint with what TensorFlow reads:
tf.train.load_checkpoint(PREFIX).get_tensor(NAME) for each name of
list_variables (a partitioned variable's full tensor included; a V1
tensor saved in slices, which get_tensor refuses, through TensorFlow's
Restore op, which assembles it from the slices), by dtype,
shape and bytes (strings: each element's bytes). Then the same through the
library's tensors: every numeric tensor as `decode --npy-dir` writes it
(bfloat16 as float32), every string tensor as `decode --tensor NAME --json`
gives it. Prints the counts and every difference; exits 1 on any.

Needs TensorFlow (pip install tensorflow-cpu); the tests do not.

Usage: scripts/tf_checkpoint_crosscheck.py [--decoder target/release/decode]
"""
import argparse
import base64
import json
import os
import re
import subprocess
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

ROOT = os.path.join(os.path.dirname(__file__), "..")
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "tf-checkpoint")

# (index or V1 file, checkpoint prefix for TensorFlow)
BUNDLES = [
    ("train/ckpt.index", "train/ckpt"),
    ("saved_model_all_types/variables/variables.index", "saved_model_all_types/variables/variables"),
    ("partitioned/model.ckpt.index", "partitioned/model.ckpt"),
    ("sharded/ckpt.index", "sharded/ckpt"),
    ("sharded10/ckpt.index", "sharded10/ckpt"),
    ("v1/model.ckpt", "v1/model.ckpt"),
    ("v1_partitioned/model.ckpt", "v1_partitioned/model.ckpt"),
    ("many/ckpt.index", "many/ckpt"),
]


def tf_tensor(reader, prefix, name, dtype):
    """TensorFlow's value of a tensor: get_tensor, or for a V1 tensor saved
    in slices (get_tensor: "Sliced checkpoints are not supported") the
    Restore op, which reads V1 files through TensorSliceReader."""
    try:
        return reader.get_tensor(name)
    except tf.errors.UnimplementedError:
        return tf.raw_ops.Restore(file_pattern=os.path.join(FIXTURES, prefix),
                                  tensor_name=name, dt=dtype).numpy()


def element_bytes(v):
    if isinstance(v, dict):
        return base64.b64decode(v["base64"])
    return v.encode("utf-8")


def decoded_array(t, dtype):
    values = t["values"]
    if dtype == tf.string:
        return [element_bytes(v) for v in values]
    np_dtype = dtype.as_numpy_dtype
    if dtype.is_complex:
        flat = [complex(re, im) for re, im in values]
        return np.array(flat, dtype=np_dtype).reshape(t["shape"])
    if dtype in (tf.bfloat16, tf.float16):
        return np.array(values, dtype=np.float32).astype(np_dtype).reshape(t["shape"])
    return np.array(values, dtype=np_dtype).reshape(t["shape"])


def npy_name(name):
    """The file `decode --npy-dir` writes a tensor to (the fixtures' names
    do not collide)."""
    base = re.sub(r"[^A-Za-z0-9._-]", "_", name)[:120]
    if not base or base.startswith("."):
        base = "_" + base
    return base + ".npy"


def library_differences(decoder, index, prefix, reader, dtypes):
    """Each tensor TensorFlow reads against the library's: (compared,
    differences)."""
    path = os.path.join(FIXTURES, index)
    compared = differences = 0
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "npy")
        subprocess.run([decoder, "--npy-dir", out, path], check=True, capture_output=True)
        for name in sorted(dtypes):
            dtype = dtypes[name]
            want = tf_tensor(reader, prefix, name, dtype)
            if dtype == tf.string:
                doc = json.loads(subprocess.run(
                    [decoder, "--json", "--values", "all", "--tensor", name, path],
                    check=True, capture_output=True).stdout)
                got = [element_bytes(v) for v in doc["value"]["values"]]
                same = got == [bytes(x) for x in np.array(want, dtype=object).reshape(-1)]
            else:
                file = os.path.join(out, npy_name(name))
                if not os.path.exists(file):
                    print(f"{index}: {name}: no {npy_name(name)} written")
                    differences += 1
                    continue
                got, want = np.load(file), np.asarray(want)
                if dtype == tf.bfloat16:
                    want = want.astype(np.float32)
                same = got.shape == want.shape and got.dtype == want.dtype and got.tobytes() == want.tobytes()
            compared += 1
            if not same:
                print(f"{index}: {name}: the library's values differ")
                differences += 1
    return compared, differences


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--decoder", default=os.path.join(ROOT, "target", "debug", "decode"))
    args = ap.parse_args()
    compared = differences = through_library = 0
    for index, prefix in BUNDLES:
        out = subprocess.run([args.decoder, "--json", "--values", "all", os.path.join(FIXTURES, index)],
                             check=True, capture_output=True).stdout
        doc = json.loads(out)
        ours = {}
        for t in doc["tensors"]:
            if "slice_of" in t:
                continue
            key = t["key"] if isinstance(t["key"], str) else base64.b64decode(t["key"]["base64"]).decode()
            ours[key] = t
        if doc["bundle"]["version"] == "V1":
            # V1 entries are keyed by slice: a tensor saved whole is its one
            # entry; one saved in slices is listed after them, assembled.
            entries = [t["slice_of"] for t in doc["tensors"] if "slice_of" in t]
            ours = {t["slice_of"]: t for t in doc["tensors"]
                    if "slice_of" in t and entries.count(t["slice_of"]) == 1}
            ours.update({t["key"]: t for t in doc["tensors"] if "slice_of" not in t})
        reader = tf.train.load_checkpoint(os.path.join(FIXTURES, prefix))
        dtypes = reader.get_variable_to_dtype_map()
        names = sorted(dtypes)
        n_here = 0
        for name in names:
            want = tf_tensor(reader, prefix, name, dtypes[name])
            t = ours.get(name)
            if t is None:
                print(f"{index}: {name}: not listed")
                differences += 1
                continue
            dtype = dtypes[name]
            if t["data_type"] != "DT_" + {"float32": "FLOAT", "float64": "DOUBLE", "float16": "HALF"}.get(
                    dtype.name, dtype.name.upper()):
                print(f"{index}: {name}: dtype {t['data_type']}, TensorFlow {dtype.name}")
                differences += 1
                continue
            if t.get("values") is None:
                print(f"{index}: {name}: values not available: {t.get('values_unavailable')}")
                differences += 1
                continue
            got = decoded_array(t, dtype)
            n_here += 1
            if dtype == tf.string:
                flat = [bytes(x) for x in np.array(want, dtype=object).reshape(-1)]
                same = flat == got and list(np.shape(want)) == t["shape"]
            else:
                want = np.asarray(want)
                same = (list(want.shape) == t["shape"] and got.dtype == want.dtype
                        and got.tobytes() == want.tobytes())
            if not same:
                print(f"{index}: {name}: values differ")
                differences += 1
        compared += n_here
        print(f"{index}: {n_here} of {len(names)} tensors equal TensorFlow's" if n_here == len(names)
              else f"{index}: {n_here} compared of {len(names)}")
        n_lib, d_lib = library_differences(args.decoder, index, prefix, reader, dtypes)
        through_library += n_lib
        differences += d_lib
        print(f"{index}: {n_lib - d_lib} of {len(names)} through the library equal TensorFlow's")
    print(f"{compared} tensors compared, {through_library} through the library, {differences} differences")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
