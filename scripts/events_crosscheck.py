#!/usr/bin/env python3
"""Cross-checks `pbdecode.events(dir)` against tbparse on event files
written by TensorFlow 2 (`tf.summary`), TensorFlow 1's API
(`tf.compat.v1.summary.FileWriter` with `simple_value` summaries) and
tensorboardX, three runs in one folder:

- scalars: every (dir_name, tag, step) row equal, value as float32 bit for
  bit, wall_time exactly; tbparse files TF 2's scalars (tensors of the
  `scalars` plugin) under `.tensors`, so its scalars and those tensors
  together are compared with ours;
- histograms (TF 1 `histo`, tensorboardX): counts and limits exactly;
- texts: equal strings.

Needs tensorflow-cpu, tbparse, tensorboardX, pandas and the package
installed. Exits non-zero on the first difference.

usage: scripts/events_crosscheck.py [DIR]
"""

from __future__ import annotations

import os
import sys
import tempfile

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

import pbdecode  # noqa: E402

rng = np.random.default_rng(3)


def write_tf2(folder: str) -> None:
    w = tf.summary.create_file_writer(folder)
    with w.as_default():
        for step in range(50):
            tf.summary.scalar("loss", float(np.exp(-step / 10) + rng.random() * 0.01), step=step)
            tf.summary.scalar("lr", np.float32(1e-3 * 0.9**step), step=step)
            if step % 10 == 0:
                tf.summary.histogram("weights", rng.standard_normal(100), step=step)
                tf.summary.text("note", f"step {step} ✓", step=step)
    w.close()


def write_tf1(folder: str) -> None:
    with tf.compat.v1.Graph().as_default():
        w = tf.compat.v1.summary.FileWriter(folder)
        for step in range(40):
            values = [
                tf.compat.v1.Summary.Value(tag="accuracy", simple_value=float(rng.random())),
                tf.compat.v1.Summary.Value(tag="special", simple_value=[np.nan, np.inf, -0.0, 1e-45][step % 4]),
            ]
            if step % 8 == 0:
                h = tf.compat.v1.HistogramProto(min=0.0, max=3.0, num=6, sum=9.0, sum_squares=15.0, bucket_limit=[1.0, 2.0, 3.0], bucket=[1.0, 2.0, 3.0])
                values.append(tf.compat.v1.Summary.Value(tag="h", histo=h))
            w.add_summary(tf.compat.v1.Summary(value=values), global_step=step)
        w.close()


def write_tensorboardx(folder: str) -> None:
    from tensorboardX import SummaryWriter

    w = SummaryWriter(folder)
    for step in range(30):
        w.add_scalar("train/loss", float(1 / (step + 1)), step)
        w.add_scalar("train/big", float(rng.standard_normal() * 1e30), step)
        if step % 10 == 0:
            w.add_histogram("grad", rng.standard_normal(200), step)
    w.close()


def bits(a) -> np.ndarray:
    return np.asarray(a, dtype=np.float32).view(np.uint32)


def main() -> int:
    import pandas as pd
    from tbparse import SummaryReader

    folder = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="pbdecode-events-")
    for name, write in (("tf2", write_tf2), ("tf1", write_tf1), ("tbx", write_tensorboardx)):
        write(os.path.join(folder, name))

    ours = pbdecode.events(folder)
    reader = SummaryReader(folder, extra_columns={"wall_time", "dir_name"})
    theirs = reader.scalars
    tensors = reader.tensors
    scalar_tags = set(ours.scalars["tag"])
    # TF 2's scalars: tbparse's tensors whose tags are scalars of ours (the
    # plugin is `scalars`); every other tensor tag must not be among ours.
    tf2 = tensors[tensors["tag"].isin(scalar_tags)]
    want = pd.concat([theirs, tf2], ignore_index=True)
    want = want.sort_values(["dir_name", "tag", "step"], kind="stable").reset_index(drop=True)
    got = ours.scalars
    assert list(got.columns) == ["step", "tag", "value", "wall_time", "dir_name"], list(got.columns)
    assert len(got) == len(want), (len(got), len(want))
    assert (got["dir_name"].to_numpy() == want["dir_name"].to_numpy()).all()
    assert (got["tag"].to_numpy() == want["tag"].to_numpy()).all()
    assert (got["step"].to_numpy() == want["step"].to_numpy().astype(np.int64)).all()
    assert (bits(got["value"]) == bits(want["value"].astype(np.float64))).all(), "values differ"
    assert (got["wall_time"].to_numpy() == want["wall_time"].to_numpy()).all(), "wall times differ"
    assert got["value"].dtype == np.float32

    hist = ours.histograms
    th = reader.histograms
    th = th.sort_values(["dir_name", "tag", "step"], kind="stable").reset_index(drop=True)
    # tbparse reads TF 1's and tensorboardX's `histo`; TF 2's histograms are
    # tensors to it.
    mine = hist[hist["tag"].isin(set(th["tag"]))].reset_index(drop=True)
    assert len(mine) == len(th), (len(mine), len(th))
    for a, b in zip(mine.itertuples(), th.itertuples()):
        assert (a.tag, a.step) == (b.tag, b.step)
        assert np.array_equal(a.counts, b.counts) and np.array_equal(a.limits, b.limits), a.tag

    text = ours.text
    tt = reader.text.sort_values(["dir_name", "tag", "step"], kind="stable").reset_index(drop=True)
    assert list(text["value"]) == list(tt["value"]), (list(text["value"]), list(tt["value"]))
    print(f"events: {len(got)} scalars of TF 1, TF 2 and tensorboardX, {len(mine)} histograms and {len(text)} texts equal to tbparse's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
