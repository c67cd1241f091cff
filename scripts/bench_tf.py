#!/usr/bin/env python3
"""Benchmark: decode a SavedModel of a few MB, against saved_model_cli.

Makes (once) a TF2 SavedModel whose saved_model.pb is a few MB: a model
whose weights are constants inside its functions (as a frozen or
constant-folded model has them), plus a stack of Dense layers, so the
function library, object graph and signatures are all sizeable. Then times
`decode` (text, JSON, text with --values all) and
`saved_model_cli show --all`, each the median of several runs.

Needs TensorFlow (pip install tensorflow-cpu) for the model and the CLI.
Usage: scripts/bench_tf.py [DECODER] [WORK_DIR]
  (defaults: target/release/decode, target/bench-tf)
"""
import os
import shutil
import statistics
import subprocess
import sys
import time

decoder = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/release/decode")
work = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else "target/bench-tf")
model = os.path.join(work, "model")
pb = os.path.join(model, "saved_model.pb")


def make():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import numpy as np
    import tensorflow as tf

    rng = np.random.default_rng(0)
    consts = [tf.constant(rng.standard_normal((512, 512)).astype(np.float32)) for _ in range(4)]

    class M(tf.Module):
        def __init__(self):
            super().__init__()
            self.layers = [tf.Variable(rng.standard_normal((512, 512)).astype(np.float32) * 0.01,
                                       name=f"dense_{i}") for i in range(24)]

        @tf.function(input_signature=[tf.TensorSpec([None, 512], tf.float32, name="x")])
        def serve(self, x):
            for c in consts:
                x = tf.nn.relu(tf.matmul(x, c))
            for w in self.layers:
                x = tf.nn.gelu(tf.matmul(x, w))
            return {"y": x}

        @tf.function(input_signature=[tf.TensorSpec([None, 512], tf.float32, name="x"),
                                      tf.TensorSpec([], tf.int32, name="k")])
        def topk(self, x, k):
            y = self.serve(x)["y"]
            v, i = tf.math.top_k(y, k)
            return {"values": v, "indices": i}

    m = M()
    if os.path.exists(model):
        shutil.rmtree(model)
    tf.saved_model.save(m, model, signatures={"serving_default": m.serve, "topk": m.topk})


def timed(cmd, runs):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    if not os.path.exists(pb):
        os.makedirs(work, exist_ok=True)
        make()
    size = os.path.getsize(pb)
    print(f"saved_model.pb: {size / 1e6:.2f} MB ({model})")
    rows = [
        ("decode (text)", [decoder, pb], 20),
        ("decode --json", [decoder, "--json", pb], 20),
        ("decode --values all", [decoder, "--values", "all", pb], 10),
    ]
    cli = shutil.which("saved_model_cli") or os.path.join(os.path.dirname(sys.executable), "saved_model_cli")
    have_cli = os.path.exists(cli)
    if have_cli:
        rows.append(("saved_model_cli show --all", [cli, "show", "--all", "--dir", model], 3))
    results = {}
    for label, cmd, runs in rows:
        results[label] = timed(cmd, runs)
        print(f"{label:28} {results[label] * 1000:9.1f} ms  (median of {runs})")
    if have_cli:
        base = results["saved_model_cli show --all"]
        for label in ("decode (text)", "decode --json", "decode --values all"):
            print(f"saved_model_cli / {label}: {base / results[label]:.0f}x")
    else:
        print("saved_model_cli not found: install tensorflow-cpu to compare")


if __name__ == "__main__":
    main()
