#!/usr/bin/env python3
"""Compares the statistics of `decode --json` with numpy's for every numpy
data type ONNX has (and bfloat16 against numpy on the float32 values):
count, NaN/+Inf/-Inf/zero counts and min/max exactly, mean and std (numpy
in float64 over the finite values, population std) within 1e-6 relative.
Then the standard deviation of 300,000 values offset + N(0, 1) (float32
and float64, offsets 1e6, 1e12, 1e14) against the exact one (Python's
fractions): decode's error must be at most numpy's (both are printed).
Sizes cover the one-thread path, the multi-threaded chunked path and the
counting path of 8- and 16-bit types; values in raw_data and, for small
sizes, in the typed fields.

usage: scripts/stats_vs_numpy.py [DECODE]   (default target/release/decode)
"""
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from fractions import Fraction
from onnx import TensorProto, helper, numpy_helper

DECODE = sys.argv[1] if len(sys.argv) > 1 else "target/release/decode"
TYPES = [
    np.float32, np.float16, np.float64, np.int8, np.uint8, np.int16, np.uint16,
    np.int32, np.uint32, np.int64, np.uint64, np.bool_, np.complex64, np.complex128,
]
SIZES = [1000, 70_000, 1_300_000, 5_000_000]


def values(dtype, n, rng):
    if dtype == np.bool_:
        return rng.integers(0, 2, size=n).astype(np.bool_)
    if np.issubdtype(dtype, np.complexfloating):
        part = np.float32 if dtype == np.complex64 else np.float64
        a = (rng.standard_normal(n) * 4).astype(part) + 1j * (rng.standard_normal(n)).astype(part)
        a = a.astype(dtype)
        a[:: 997] = complex(np.nan, 0)
        return a
    if np.issubdtype(dtype, np.floating):
        a = (rng.standard_normal(n) * 3 + 1).astype(dtype)
        for k, v in enumerate([np.nan, np.inf, -np.inf, 0.0, -0.0]):
            a[k :: 1009 + k] = v
        return a
    info = np.iinfo(dtype)
    lo, hi = max(int(info.min), -(2**40)), min(int(info.max), 2**40)
    return rng.integers(lo, hi, size=n, dtype=dtype, endpoint=True)


def reference(a):
    kind = a.dtype
    if np.issubdtype(a.dtype, np.complexfloating):
        a = np.abs(a.astype(np.complex128))
    x = a.astype(np.float64)
    finite = x[np.isfinite(x)]
    out = {
        "count": int(a.size),
        "nan": int(np.isnan(x).sum()),
        "pos_inf": int(np.isposinf(x).sum()),
        "neg_inf": int(np.isneginf(x).sum()),
        "zeros": int((x == 0).sum()),
    }
    if finite.size:
        if kind == np.complex64:
            # |z| of complex64 is shown as float32, as the values are.
            out["min"] = float(np.float32(finite.min()))
            out["max"] = float(np.float32(finite.max()))
        elif np.issubdtype(a.dtype, np.integer):
            out["min"], out["max"] = int(a.min()), int(a.max())
        elif a.dtype == np.bool_:
            out["min"], out["max"] = int(a.min()), int(a.max())
        else:
            out["min"], out["max"] = float(finite.min()), float(finite.max())
        out["mean"], out["std"] = float(finite.mean()), float(finite.std())
    return out


def decode_stats(path):
    r = subprocess.run([DECODE, "--json", "--values", "0", path], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr)
    return json.loads(r.stdout)["value"]["stats"]


def close(a, b):
    return a == b or abs(a - b) <= 1e-6 * max(abs(a), abs(b)) or abs(a - b) < 1e-12


def check(name, got, want):
    # Extremes of float types narrower than double (and |z| of complex64)
    # print as the shortest float32 text: compare them as float32.
    single = name.split()[0] in ("float32", "float16", "complex64", "bfloat16")
    bad = []
    for k in ["count", "nan", "pos_inf", "neg_inf", "zeros", "min", "max"]:
        if k in ("min", "max") and single and k in want:
            if np.float32(float(got[k])) != np.float32(want[k]):
                bad.append(f"{k}: {got[k]} != {want[k]}")
        elif k in ("min", "max") and name.startswith("complex128") and k in want:
            # |z| is hypot(re, im): libm's and numpy's may differ by an ulp.
            if abs(float(got[k]) - want[k]) > 2 * np.spacing(want[k]):
                bad.append(f"{k}: {got[k]} != {want[k]}")
        elif k in want and float(got[k]) != float(want[k]):
            bad.append(f"{k}: {got[k]} != {want[k]}")
    for k in ["mean", "std"]:
        if k in want and not close(float(got[k]), want[k]):
            bad.append(f"{k}: {got[k]} != {want[k]}")
    print(f"{'ok  ' if not bad else 'FAIL'} {name}" + ("" if not bad else ": " + "; ".join(bad)))
    return not bad


def exact_std(a):
    """The population standard deviation of `a`, exactly: every float is a
    dyadic rational, so the variance is one Fraction, and its square root
    is taken on integers scaled far past float64's precision."""
    xs = [Fraction(float(v)) for v in a.astype(np.float64)]
    n = len(xs)
    mean = sum(xs, Fraction(0)) / n
    var = sum(((x - mean) ** 2 for x in xs), Fraction(0)) / n
    scale = 4 ** 200
    return math.isqrt(var.numerator * scale // var.denominator) / 2.0 ** 200


def offsets(work, rng):
    """decode's and numpy's std errors at large offsets; decode must be
    at least as accurate."""
    ok = True
    n = 300_000
    for dtype in (np.float64, np.float32):
        for offset in (1e6, 1e12, 1e14):
            a = (offset + rng.standard_normal(n)).astype(dtype)
            exact = exact_std(a)
            path = os.path.join(work, "offset.pb")
            open(path, "wb").write(numpy_helper.from_array(a, name="t").SerializeToString())
            ours = float(decode_stats(path)["std"])
            theirs = float(a.astype(np.float64).std())
            e_ours, e_theirs = abs(ours - exact), abs(theirs - exact)
            good = e_ours <= e_theirs or e_ours <= 4 * np.spacing(exact)
            ok &= good
            print(
                f"{'ok  ' if good else 'FAIL'} {np.dtype(dtype).name} offset {offset:g}: "
                f"exact std {exact!r}, decode off by {e_ours:.2e}, numpy by {e_theirs:.2e}"
            )
    return ok


def main():
    rng = np.random.default_rng(12)
    ok = True
    with tempfile.TemporaryDirectory() as work:
        ok &= offsets(work, rng)
        for dtype in TYPES:
            for n in SIZES:
                a = values(dtype, n, rng)
                t = numpy_helper.from_array(a, name="t")
                path = os.path.join(work, "t.pb")
                open(path, "wb").write(t.SerializeToString())
                ok &= check(f"{np.dtype(dtype).name} x{n} raw_data", decode_stats(path), reference(a))
                if n <= 70_000 and dtype not in (np.float16,):
                    # The typed field of the type (float_data, int32_data, ...).
                    dt = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
                    flat = a.flatten()
                    typed = helper.make_tensor("t", dt, a.shape, flat.tolist(), raw=False)
                    open(path, "wb").write(typed.SerializeToString())
                    ok &= check(f"{np.dtype(dtype).name} x{n} typed", decode_stats(path), reference(a))
        # bfloat16: the float32 values rounded to bfloat16 by their top bits.
        for n in SIZES:
            f = values(np.float32, n, rng)
            bits = (f.view(np.uint32) >> 16).astype(np.uint16)
            back = (bits.astype(np.uint32) << 16).view(np.float32)
            t = TensorProto(name="t", data_type=TensorProto.BFLOAT16, dims=[n], raw_data=bits.tobytes())
            path = os.path.join(work, "t.pb")
            open(path, "wb").write(t.SerializeToString())
            ok &= check(f"bfloat16 x{n} raw_data", decode_stats(path), reference(back))
    print("all agree" if ok else "DISAGREEMENTS")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
