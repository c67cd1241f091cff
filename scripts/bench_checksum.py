#!/usr/bin/env python3
"""A model of 40 FLOAT initializers, each 1 MiB of a 256 MiB side file, each
with a wrong SHA-1 checksum; times `decode --values 8` on it with each decoder
given (issue: a wrong checksum used to hash the whole side file once per
tensor). Standard library only.

    scripts/bench_checksum.py OLD_DECODE NEW_DECODE [DIR]
"""
import os
import subprocess
import sys
import tempfile
import time
from wire import lfield as field, varint, vfield


def entry(k, v):
    return field(1, k.encode()) + field(2, v.encode())


def main():
    decoders = sys.argv[1:3]
    folder = sys.argv[3] if len(sys.argv) > 3 else tempfile.mkdtemp(prefix="pbdecode-sha-")
    side = os.path.join(folder, "weights.bin")
    size, tensors, each = 256 << 20, 40, 1 << 20
    if not os.path.exists(side) or os.path.getsize(side) != size:
        with open(side, "wb") as f:
            chunk = bytes(range(256)) * 4096
            for _ in range(size // len(chunk)):
                f.write(chunk)
    graph = field(2, b"g")
    for i in range(tensors):
        t = (
            vfield(1, each // 4)
            + vfield(2, 1)
            + field(8, f"w{i}".encode())
            + field(13, entry("location", "weights.bin"))
            + field(13, entry("offset", str(i * (size // tensors) // 4096 * 4096)))
            + field(13, entry("length", str(each)))
            + field(13, entry("checksum", "0" * 40))
            + vfield(14, 1)
        )
        graph += field(5, t)
    model = vfield(1, 8) + field(7, graph) + field(8, vfield(2, 13))
    path = os.path.join(folder, "model.onnx")
    with open(path, "wb") as f:
        f.write(model)
    for d in decoders:
        best = None
        for _ in range(3):
            start = time.perf_counter()
            subprocess.run([d, "--as", "onnx-model", "--values", "8", path],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            t = time.perf_counter() - start
            best = t if best is None else min(best, t)
        print(f"{d}: {best:.3f} s (best of 3)")


if __name__ == "__main__":
    main()
