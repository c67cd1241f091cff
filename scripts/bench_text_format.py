#!/usr/bin/env python3
"""Reading protobuf's text format: a large text GraphDef (about 100 MB by
default, as `tf.io.write_graph(as_text=True)` writes one: many nodes with
their attributes, and Const weights as escaped `tensor_content`) read by

- `decode convert IN.pbtxt OUT.pb` (text to binary) and `decode IN.pbtxt`
  (the whole reading: text to binary, detection, the GraphDef's view);
- protoc's C++ TextFormat (`protoc --encode`, from grpcio-tools, with
  TensorFlow's schema as a descriptor set made from its Python runtime);
- Python's `text_format.Parse` (protobuf's Python runtime);

each run several times, the median wall time kept; the ratios against
Python's parser and protoc's are printed, with the peak memory
(`/usr/bin/time`'s maximum resident set size) beside the file's size.

Usage: scripts/bench_text_format.py [--decoder target/release/decode]
       [--size-mb 100] [--runs 5] [--dir target/bench-text]
Needs: protobuf, tensorflow (tensorflow-cpu), grpcio-tools.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def make_graph(path, size_mb):
    """A GraphDef of conv blocks, their weights as Const nodes, written as
    text by protobuf's Python runtime (what tf.io.write_graph calls)."""
    import numpy as np
    from google.protobuf import text_format
    from tensorflow.core.framework import graph_pb2, types_pb2

    rng = np.random.default_rng(0)
    g = graph_pb2.GraphDef()
    g.versions.producer = 1882
    target = size_mb << 20
    # Text bytes written so far, estimated from the message's size (about
    # three text bytes per weight byte, fifteen per structure byte).
    estimate = 0
    prev = "input"
    n = g.node.add()
    n.name, n.op = "input", "Placeholder"
    n.attr["dtype"].type = types_pb2.DT_FLOAT
    k = 0
    while estimate < target:
        k += 1
        w = g.node.add()
        w.name, w.op = f"block{k}/conv/weights", "Const"
        w.attr["dtype"].type = types_pb2.DT_FLOAT
        t = w.attr["value"].tensor
        t.dtype = types_pb2.DT_FLOAT
        shape = (3, 3, 32, 32)
        for d in shape:
            t.tensor_shape.dim.add().size = d
        t.tensor_content = rng.standard_normal(shape, dtype=np.float32).tobytes()
        estimate += 3 * len(t.tensor_content)
        for op, inputs in [("Conv2D", [prev, w.name]), ("BiasAdd", None), ("Relu", None), ("Identity", None)]:
            c = g.node.add()
            c.name = f"block{k}/{op.lower()}"
            c.op = op
            c.input.extend(inputs or [prev])
            c.attr["T"].type = types_pb2.DT_FLOAT
            if op == "Conv2D":
                c.attr["strides"].list.i.extend([1, 1, 1, 1])
                c.attr["padding"].s = b"SAME"
                c.attr["data_format"].s = b"NHWC"
                c.attr["dilations"].list.i.extend([1, 1, 1, 1])
                c.attr["use_cudnn_on_gpu"].b = True
            c.device = "/device:CPU:0"
            prev = c.name
            estimate += 15 * c.ByteSize()
    with open(path, "w") as f:
        f.write(text_format.MessageToString(g))


def descriptor_set(path):
    from google.protobuf import descriptor_pb2
    from tensorflow.core.framework import graph_pb2

    files, seen = [], set()

    def add(fd):
        if fd.name in seen:
            return
        seen.add(fd.name)
        for dep in fd.dependencies:
            add(dep)
        p = descriptor_pb2.FileDescriptorProto()
        fd.CopyToProto(p)
        files.append(p)

    add(graph_pb2.DESCRIPTOR)
    s = descriptor_pb2.FileDescriptorSet()
    s.file.extend(files)
    with open(path, "wb") as f:
        f.write(s.SerializeToString())
    return graph_pb2.DESCRIPTOR.name


def timed(cmd, runs, stdin=None):
    """Median wall seconds of `runs` runs (after one warm-up), and the
    largest peak resident set in MiB (`/usr/bin/time -f %M`)."""
    times, peaks = [], []
    for i in range(runs + 1):
        t0 = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], stdin=stdin and open(stdin, "rb"),
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        dt = time.perf_counter() - t0
        if p.returncode != 0:
            sys.exit(f"{cmd[0]} failed: {p.stderr.decode()[-500:]}")
        if i:
            times.append(dt)
            peaks.append(int(p.stderr.split()[-1]) / 1024)
    return statistics.median(times), max(peaks)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--decoder", default="target/release/decode")
    ap.add_argument("--size-mb", type=int, default=100)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--dir", default="target/bench-text")
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    text = os.path.join(args.dir, f"graph-{args.size_mb}mb.pbtxt")
    if not os.path.exists(text):
        make_graph(text, args.size_mb)
    size = os.path.getsize(text) / (1 << 20)
    desc = os.path.join(args.dir, "graph.desc")
    proto = descriptor_set(desc)
    out = os.path.join(args.dir, "out.pb")
    # GraphDef's class made from the descriptor set, so that TensorFlow's
    # import (about 4.7 s of CPU) is not counted as the parser's time.
    parse = ("import sys; from google.protobuf import descriptor_pb2, descriptor_pool, "
             "message_factory, text_format; "
             "fds = descriptor_pb2.FileDescriptorSet.FromString(open(sys.argv[2], 'rb').read()); "
             "pool = descriptor_pool.DescriptorPool(); [pool.Add(f) for f in fds.file]; "
             "cls = message_factory.GetMessageClass(pool.FindMessageTypeByName('tensorflow.GraphDef')); "
             "text_format.Parse(open(sys.argv[1]).read(), cls())")
    rows = [
        ("decode convert (text -> binary)", [args.decoder, "convert", text, out], None),
        ("decode (text view)", [args.decoder, text], None),
        ("protoc --encode (C++ TextFormat)",
         [sys.executable, "-m", "grpc_tools.protoc", f"--descriptor_set_in={desc}",
          "--encode=tensorflow.GraphDef", proto], text),
        ("Python text_format.Parse", [sys.executable, "-c", parse, text, desc], None),
    ]
    results = {}
    print(f"{text}: {size:.1f} MiB of text")
    for name, cmd, stdin in rows:
        results[name] = timed(cmd, args.runs if "Python" not in name else max(1, args.runs // 2), stdin)
        secs, peak = results[name]
        print(f"  {name:36} {secs:8.3f} s   {size / secs:7.1f} MiB/s   peak {peak:7.0f} MiB ({peak / size:.1f}x the file)")
    ours = results["decode convert (text -> binary)"][0]
    print(f"Python text_format.Parse / decode convert: {results['Python text_format.Parse'][0] / ours:.1f}x")
    print(f"protoc --encode / decode convert: {results['protoc --encode (C++ TextFormat)'][0] / ours:.2f}x")


if __name__ == "__main__":
    main()
