#!/usr/bin/env python3
"""Times `decode diff` on two 1 GiB FLOAT tensors (16384 x 16384, the second
scaled by 1 + 1e-5) against numpy.testing.assert_allclose on the same files
(memory-mapped with np.memmap, the cheapest way numpy can read them), in the
same run. Peak memory is polled from /proc: RssAnon (memory the process
allocated) and RssFile (pages of the mapped files, page cache the kernel can
drop).

usage: scripts/bench_diff.py [--decoder PATH] [--dir DIR] [--log2n 28]
"""
import argparse
import os
import subprocess
import sys
import time

import numpy as np
from wire import varint


def header(n, side):
    return b"\x08" + varint(side) + b"\x08" + varint(n // side) + b"\x10\x01" + b"\x4a" + varint(n * 4)


def write(path, n, side, scale):
    with open(path, "wb") as f:
        f.write(header(n, side))
        r = np.random.default_rng(0)
        for _ in range(64):
            x = r.standard_normal(n // 64).astype(np.float32)
            (x * np.float32(scale)).tofile(f)


def run(cmd):
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = {"RssAnon": 0, "RssFile": 0}
    while p.poll() is None:
        try:
            for line in open(f"/proc/{p.pid}/status"):
                k = line.split(":")[0]
                if k in peak:
                    peak[k] = max(peak[k], int(line.split()[1]))
        except OSError:
            pass
        time.sleep(0.02)
    return time.perf_counter() - t0, p.returncode, peak


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--decoder", default="target/release/decode")
    ap.add_argument("--dir", default="/tmp")
    ap.add_argument("--log2n", type=int, default=28)
    a = ap.parse_args()
    n = 1 << a.log2n
    side = 1 << (a.log2n // 2)
    pa, pb = os.path.join(a.dir, "bench_diff_a.pb"), os.path.join(a.dir, "bench_diff_b.pb")
    for p, s in ((pa, 1.0), (pb, 1 + 1e-5)):
        if not os.path.exists(p) or os.path.getsize(p) != len(header(n, side)) + 4 * n:
            write(p, n, side, s)
    off = len(header(n, side))
    ref = (
        "import numpy as np, sys\n"
        f"a = np.memmap({pa!r}, np.float32, 'r', {off}, ({side}, {n // side}))\n"
        f"b = np.memmap({pb!r}, np.float32, 'r', {off}, ({side}, {n // side}))\n"
        "np.testing.assert_allclose(b, a, rtol=1e-3, atol=1e-7)\n"
    )
    size = (4 * n) / 2**30
    print(f"two FLOAT tensors of {n:,} elements ({size:.2f} GiB each)")
    for name, cmd in (("decode diff", [os.path.abspath(a.decoder), "diff", pa, pb]),
                      ("numpy assert_allclose (np.memmap)", [sys.executable, "-c", ref])):
        t, rc, peak = run(cmd)
        print(f"{name}: {t:.2f} s, exit {rc}, peak RssAnon {peak['RssAnon'] / 1024:.0f} MiB, "
              f"RssFile {peak['RssFile'] / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
