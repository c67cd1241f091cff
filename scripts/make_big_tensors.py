#!/usr/bin/env python3
"""Writes big ONNX tensor files for the benchmarks of whole-tensor passes
(statistics, .npy export, JSON dumps): one 256 MiB tensor (by default) per
data type, random values with a few NaN, +-Inf and zeros mixed in. Never
committed; written to a scratch folder.

usage: scripts/make_big_tensors.py [DIR] [MIB] [TYPES...]
       (default /tmp/pbdecode-bench, 256, FLOAT FLOAT16 INT8 DOUBLE)

Each file is DIR/big_TYPE.pb; the same values as .npy go to DIR/big_TYPE.npy
(numpy's reference for the comparisons)."""
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

DTYPES = {
    "FLOAT": np.float32,
    "FLOAT16": np.float16,
    "DOUBLE": np.float64,
    "INT8": np.int8,
    "UINT8": np.uint8,
    "INT16": np.int16,
    "UINT16": np.uint16,
    "INT32": np.int32,
    "UINT32": np.uint32,
    "INT64": np.int64,
    "UINT64": np.uint64,
    "BOOL": np.bool_,
}


def values(dtype, n, rng):
    if np.issubdtype(dtype, np.floating):
        a = rng.standard_normal(n, dtype=np.float32).astype(dtype) * dtype(3) + dtype(1)
        k = max(1, n // 100000)
        idx = rng.integers(0, n, size=4 * k)
        a[idx[:k]] = np.nan
        a[idx[k : 2 * k]] = np.inf
        a[idx[2 * k : 3 * k]] = -np.inf
        a[idx[3 * k :]] = 0
        return a
    if dtype == np.bool_:
        return rng.integers(0, 2, size=n).astype(np.bool_)
    info = np.iinfo(dtype)
    lo, hi = max(info.min, -(2**40)), min(info.max, 2**40)
    return rng.integers(lo, hi, size=n, dtype=dtype, endpoint=True)


def main():
    work = sys.argv[1] if len(sys.argv) > 1 else "/tmp/pbdecode-bench"
    mib = int(sys.argv[2]) if len(sys.argv) > 2 else 256
    types = sys.argv[3:] or ["FLOAT", "FLOAT16", "INT8", "DOUBLE"]
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(13)
    for name in types:
        dtype = DTYPES[name]
        path = os.path.join(work, f"big_{name}.pb")
        if os.path.exists(path):
            continue
        n = mib * 1024 * 1024 // np.dtype(dtype).itemsize
        a = values(dtype, n, rng).reshape(n // 1024, 1024)
        t = numpy_helper.from_array(a, name="big")
        with open(path, "wb") as f:
            f.write(t.SerializeToString())
        np.save(os.path.join(work, f"big_{name}.npy"), a)
        print(f"wrote {path}: {name} {list(a.shape)}")


if __name__ == "__main__":
    main()
