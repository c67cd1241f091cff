#!/usr/bin/env python3
"""A tensor bundle of 1 GiB of variables (64 float32 variables of 4 Mi
values each, written by tf.train.Checkpoint); times, in the same run,

  - decode: `decode --stats ckpt.index` (every tensor listed with its CRC32C
    checked and its statistics computed), output to /dev/null;
  - TensorFlow: tf.train.load_checkpoint, then for every variable
    get_tensor (which checks the CRC32C) and numpy's min, max, mean and std;

and the listing apart:

  - decode: `decode --json --values 0 ckpt.index` (every tensor with its
    key, type, shape, shard, offset and size, and its CRC32C checked, which
    reads every byte of the shards; no value formatted);
  - TensorFlow: tf.train.list_variables (names and shapes from the index;
    it checks no CRC32C: TensorFlow has no listing that does), and, for the
    same work as decode's, get_tensor of every variable (the one way
    TensorFlow checks a CRC32C).

Each is run 3 times, the best time kept (the page cache warm for both).
Needs TensorFlow (pip install tensorflow-cpu).

    scripts/bench_tf_checkpoint.py [DECODE] [DIR]
    (default target/release/decode, a temporary folder)
"""
import os
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

VARIABLES, VALUES = 64, 4 << 20


def make(folder):
    prefix = os.path.join(folder, "ckpt")
    if os.path.exists(prefix + ".index"):
        return prefix
    rng = np.random.default_rng(1)
    vs = {f"v{k:02d}": tf.Variable(rng.standard_normal(VALUES, dtype=np.float32)) for k in range(VARIABLES)}
    tf.train.Checkpoint(**vs).write(prefix)
    return prefix


def best_of(f, runs=3):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    decoder = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "..", "target", "release", "decode")
    folder = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="pbdecode-ckpt-")
    prefix = make(folder)
    data = sum(os.path.getsize(os.path.join(folder, n)) for n in os.listdir(folder) if ".data-" in n)

    def ours():
        with open(os.devnull, "wb") as null:
            subprocess.run([decoder, "--stats", prefix + ".index"], stdout=null, check=True)

    def theirs():
        reader = tf.train.load_checkpoint(prefix)
        for name in reader.get_variable_to_shape_map():
            a = reader.get_tensor(name)
            if isinstance(a, np.ndarray) and a.dtype == np.float32:
                a.min(), a.max(), a.mean(), a.std()

    def ours_list():
        with open(os.devnull, "wb") as null:
            subprocess.run([decoder, "--json", "--values", "0", prefix + ".index"],
                           stdout=null, check=True)

    def theirs_list():
        listed = tf.train.list_variables(prefix)
        assert len(listed) >= VARIABLES

    def theirs_checked():
        reader = tf.train.load_checkpoint(prefix)
        for name in reader.get_variable_to_shape_map():
            reader.get_tensor(name)

    t_ours, t_theirs = best_of(ours), best_of(theirs)
    t_ours_list, t_theirs_list = best_of(ours_list), best_of(theirs_list)
    t_theirs_checked = best_of(theirs_checked)
    print(f"bundle: {VARIABLES} variables, {data / (1 << 30):.2f} GiB of values")
    print(f"decode --stats:                    {t_ours:.2f} s")
    print(f"tf.train.load_checkpoint + numpy:  {t_theirs:.2f} s")
    print(f"ratio (TensorFlow / decode):       {t_theirs / t_ours:.2f}")
    print(f"decode --json --values 0 (CRCs):   {t_ours_list:.3f} s")
    print(f"get_tensor of every variable:      {t_theirs_checked:.3f} s")
    print(f"ratio (TensorFlow / decode):       {t_theirs_checked / t_ours_list:.2f}")
    print(f"tf.train.list_variables (no CRC):  {t_theirs_list * 1000:.2f} ms")


if __name__ == "__main__":
    main()
