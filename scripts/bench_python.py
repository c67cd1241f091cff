#!/usr/bin/env python3
"""Measures the Python package against the references, in one run on one
machine, each measurement in a fresh process (time: the best of REPEAT runs;
memory: the growth of RssAnon, the process's anonymous memory, which the
file's mapped pages are not):

1. a 256 MiB FLOAT tensor file: `pbdecode.load` (copy=None; the file keeps
   raw_data aligned, as a writer can) against `onnx.load_tensor` +
   `numpy_helper.to_array`, and `safetensors.numpy.safe_open` + `get_tensor`
   of the same values;
2. a 1 GiB model (scripts/bench_model_gen.py: 400 FLOAT initializers):
   `pbdecode.open` + every initializer as an array (copy=None and
   copy=False; the count of tensors whose raw_data happens to be aligned)
   against `onnx.load` + `to_array` of each;
3. reading every value (a sum in float64) of the 256 MiB tensor's array
   against `np.memmap` of the same bytes.

Needs the package installed (pip install ./python) and `pip install onnx
numpy safetensors`; writes its inputs to DIR (default /tmp/pbdecode-bench-py).

usage: scripts/bench_python.py [DIR] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from wire import key, varint  # noqa: E402

MIB = 1 << 20


def tensor_file(path: Path, values: np.ndarray, align: int = 64) -> int:
    """A FLOAT TensorProto whose raw_data starts at a multiple of `align`
    (the name is padded to get there); returns that offset."""
    raw = values.astype("<f4").tobytes()
    dims = b"".join(key(1, 0) + varint(d) for d in values.shape)
    head = dims + key(2, 0) + varint(1)
    for pad in range(align + 16):
        name = b"big" + b"_" * pad
        prefix = head + key(8, 2) + varint(len(name)) + name + key(9, 2) + varint(len(raw))
        if len(prefix) % align == 0:
            break
    with open(path, "wb") as f:
        f.write(prefix)
        f.write(raw)
    return len(prefix)


def child(code: str) -> dict:
    """Runs `code` in a fresh interpreter; it prints one JSON object."""
    prelude = textwrap.dedent(
        """
        import json, time, gc
        def anon():
            for line in open("/proc/self/status"):
                if line.startswith("RssAnon:"):
                    return int(line.split()[1]) * 1024
        """
    )
    out = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def timed(setup: str, body: str, repeat: int) -> dict:
    """Best time of `body` over `repeat` fresh processes, and its RssAnon growth."""
    best, grew = None, None
    for _ in range(repeat):
        r = child(
            setup
            + "\n"
            + "gc.collect()\nbefore = anon()\nc0 = time.process_time()\nt0 = time.perf_counter()\n"
            + body
            + "\nt1 = time.perf_counter()\nc1 = time.process_time()\n"
            + "print(json.dumps({'s': t1 - t0, 'cpu': c1 - c0, 'anon': anon() - before}))\n"
        )
        if best is None or r["s"] < best:
            best, cpu = r["s"], r["cpu"]
        grew = r["anon"] if grew is None else min(grew, r["anon"])
    return {"ms": best * 1e3, "cpu_ms": cpu * 1e3, "anon_mib": grew / MIB}


def row(name: str, r: dict, ref: dict | None = None) -> None:
    """A line: wall time (the best run), its CPU time (all threads; under
    load the fairer figure for code of one thread beside code of many),
    RssAnon growth, and the ratios to the reference."""
    ratio = f"  x{r['ms'] / ref['ms']:.3f} wall, x{r['cpu_ms'] / ref['cpu_ms']:.3f} cpu of the reference" if ref else ""
    print(f"  {name:<46} {r['ms']:9.2f} ms ({r['cpu_ms']:9.2f} ms cpu)  +{r['anon_mib']:8.1f} MiB RssAnon{ratio}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("dir", nargs="?", default="/tmp/pbdecode-bench-py", type=Path)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--model-mib", type=int, default=1024)
    ap.add_argument("--only", default="1,2,3,4,5")
    a = ap.parse_args()
    a.dir.mkdir(parents=True, exist_ok=True)
    only = {int(x) for x in a.only.split(",")}
    if only & {4, 5}:
        records_and_events(a.dir, a.repeat, only)
    if not only & {1, 2, 3}:
        return 0
    rng = np.random.default_rng(7)
    values = rng.standard_normal(256 * MIB // 4, dtype=np.float32).reshape(-1, 1024)
    big = a.dir / "big_float.pb"
    offset = tensor_file(big, values)
    from safetensors.numpy import save_file

    st = a.dir / "big_float.safetensors"
    save_file({"big": values}, str(st))
    del values
    model = a.dir / "model.onnx"
    if not model.exists():
        subprocess.run(
            [sys.executable, str(Path(__file__).with_name("bench_model_gen.py")), str(model), "--mib", str(a.model_mib)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    print(f"{big}: 256 MiB FLOAT [{256 * MIB // 4096}, 1024], raw_data at offset {offset}")
    print(f"{model}: {model.stat().st_size / MIB:.0f} MiB")
    r = a.repeat
    p = f"import numpy as np, pbdecode, onnx\nfrom onnx import numpy_helper\nbig = {str(big)!r}\nmodel = {str(model)!r}\nst = {str(st)!r}\n"

    if 1 in only:
        section_1(p, r)
    if 2 in only:
        section_2(p, r)
    if 3 in only:
        section_3(p, r, big, offset)
    return 0


def section_1(p: str, r: int) -> None:
    print("\n1. a 256 MiB tensor file to an array")
    onnx_t = timed(p, "a = numpy_helper.to_array(onnx.load_tensor(big))", r)
    row("onnx.load_tensor + to_array", onnx_t)
    st_t = timed(p + "from safetensors.numpy import safe_open\n", "with safe_open(st, 'np') as f: a = f.get_tensor('big')", r)
    row("safetensors safe_open + get_tensor", st_t, onnx_t)
    ours = timed(p, "a = pbdecode.load(big)", r)
    row("pbdecode.load", ours, onnx_t)
    row("pbdecode.load(copy=True)", timed(p, "a = pbdecode.load(big, copy=True)", r), onnx_t)


def section_2(p: str, r: int) -> None:
    print("\n2. a 1 GiB model: open + every initializer as an array")
    onnx_m = timed(p, "m = onnx.load(model)\narrays = [numpy_helper.to_array(t) for t in m.graph.initializer]", max(1, r // 2))
    row("onnx.load + to_array of each", onnx_m)
    res = timed(p, "f = pbdecode.open(model)\narrays = [np.asarray(t) for t in f.tensors.values()]", r)
    row("pbdecode.open + np.asarray of each (copy=None)", res, onnx_m)
    for copy in ("False", "True"):
        res = timed(p, f"f = pbdecode.open(model)\narrays = [t.numpy(copy={copy}) for t in f.tensors.values()]", r)
        row(f"pbdecode.open + numpy(copy={copy}) of each", res, onnx_m)
    aligned = child(p + "f = pbdecode.open(model)\nts = list(f.tensors.values())\n"
                    "print(json.dumps({'n': len(ts), 'aligned': sum(t.numpy(copy=False).flags.aligned for t in ts)}))")  # fmt: skip
    print(f"  ({aligned['aligned']} of {aligned['n']} initializers have their raw_data aligned for float32)")


def section_3(p: str, r: int, big: Path, offset: int) -> None:
    print("\n3. reading every value (a float64 sum) of the 256 MiB tensor")
    mm = timed(
        p + f"a = np.memmap(big, dtype='<f4', mode='r', offset={offset}, shape=({256 * MIB // 4},))\n",
        "s = a.sum(dtype=np.float64)",
        r,
    )
    row("np.memmap of the same bytes", mm)
    view = timed(p + "a = pbdecode.load(big)\n", "s = a.sum(dtype=np.float64)", r)
    row("pbdecode.load's view", view, mm)
    stats = timed(p + "f = pbdecode.open(big)\nt = f.tensors['big' + '_' * 0] if 'big' in f.tensors else list(f.tensors.values())[0]\n", "s = t.stats()", r)
    row("Tensor.stats() (the library's kernel)", stats, mm)


def write_examples(path: Path) -> None:
    """200,000 Examples written by TensorFlow (the issue's 26 MB file)."""
    code = f"""
import numpy as np, tensorflow as tf
rng = np.random.default_rng(0)
with tf.io.TFRecordWriter({str(path)!r}) as w:
    for i in range(200_000):
        k = int(rng.integers(0, 9))
        f = {{
            "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[int(rng.integers(0, 10))])),
            "id": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"id-%06d" % i])),
            "embedding": tf.train.Feature(float_list=tf.train.FloatList(value=rng.standard_normal(5).astype(np.float32))),
            "tokens": tf.train.Feature(int64_list=tf.train.Int64List(value=rng.integers(0, 30000, k))),
        }}
        if i % 3:
            f["score"] = tf.train.Feature(float_list=tf.train.FloatList(value=[float(rng.random())]))
        w.write(tf.train.Example(features=tf.train.Features(feature=f)).SerializeToString())
"""
    subprocess.run([sys.executable, "-c", code], check=True, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})


def write_scalars(folder: Path, total: int = 1_000_000) -> None:
    """Three runs of `simple_value` scalars (as TF 1 and tensorboardX write
    them), three tags each, `total` values in all."""
    import struct

    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    k, v = key, varint
    per_run = total // 3
    for run in range(3):
        d = folder / f"run{run}"
        d.mkdir(parents=True, exist_ok=True)
        # TensorFlow's record writer frames them (CRCs included).
        with tf.io.TFRecordWriter(str(d / f"events.out.tfevents.{run}.bench")) as w:
            w.write(k(1, 1) + struct.pack("<d", 1.7e9) + k(3, 2) + v(13) + b"brain.Event:2")
            for i in range(per_run + (total % 3 if run == 2 else 0)):
                tag = b"loss/%d" % (i % 3)
                value = k(1, 2) + v(len(tag)) + tag + k(2, 5) + struct.pack("<f", 1.0 / (i + 1))
                summary = k(1, 2) + v(len(value)) + value
                w.write(k(1, 1) + struct.pack("<d", 1.7e9 + i) + k(2, 0) + v(i // 3) + k(5, 2) + v(len(summary)) + summary)


def records_and_events(folder: Path, r: int, only: set[int]) -> None:
    if 4 in only:
        examples = folder / "examples.tfrecord"
        if not examples.exists():
            write_examples(examples)
        print(f"\n4. {examples}: 200,000 Examples ({examples.stat().st_size / 1e6:.1f} MB) to Arrow")
        setup = (
            "import os\nos.environ['TF_CPP_MIN_LOG_LEVEL'] = '3'\nimport tensorflow as tf\n"
            f"path = {str(examples)!r}\n"
            "spec = {'label': tf.io.VarLenFeature(tf.int64), 'id': tf.io.VarLenFeature(tf.string),"
            " 'embedding': tf.io.VarLenFeature(tf.float32), 'tokens': tf.io.VarLenFeature(tf.int64),"
            " 'score': tf.io.VarLenFeature(tf.float32)}\n"
        )
        body = (
            "ds = tf.data.TFRecordDataset(path).batch(8192).map(lambda x: tf.io.parse_example(x, spec), num_parallel_calls=tf.data.AUTOTUNE)\n"
            "n = 0\nfor b in ds:\n    cols = {k: (v.indices.numpy(), v.values.numpy()) for k, v in b.items()}\n    n += int(b['label'].dense_shape[0])\n"
        )
        tf_t = timed(setup, body, r)
        row("tf.data: TFRecordDataset + parse_example", tf_t)
        ours = timed(f"import pbdecode, pyarrow\npath = {str(examples)!r}\n", "t = pbdecode.records(path).to_arrow()", r)
        row("pbdecode.records(path).to_arrow()", ours, tf_t)
    if 5 in only:
        runs = folder / "scalars"
        if not runs.exists():
            write_scalars(runs)
        print(f"\n5. {runs}: a million scalars over three runs to a DataFrame")
        tb = timed(f"from tbparse import SummaryReader\nruns = {str(runs)!r}\n", "df = SummaryReader(runs, extra_columns={'wall_time', 'dir_name'}).scalars", max(1, r // 2))
        row("tbparse SummaryReader(...).scalars", tb)
        ours = timed(f"import pbdecode, pandas\nruns = {str(runs)!r}\n", "df = pbdecode.events(runs).scalars", r)
        row("pbdecode.events(dir).scalars", ours, tb)


if __name__ == "__main__":
    sys.exit(main())
