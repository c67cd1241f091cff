#!/usr/bin/env python3
"""Cross-checks `decode diff` verdicts against numpy on generated pairs.

Pairs of every ONNX dtype numpy can write (float16/32/64, bfloat16,
int8..uint64, bool, complex64/128, string) are generated under several
tolerances: random noise at every scale, values exactly at the tolerance
boundary (atol + rtol*|expected| computed in the tensor's own type) and one
or two ulps either side, NaN at the same or different places, infinities of
either sign, -0.0, subnormals, the largest values (x - y overflows),
shape and dtype mismatches, empty and scalar tensors.

The reference verdict is what onnx's backend runner does
(onnx/backend/test/runner/__init__.py, assert_similar_outputs): shapes must
be equal, dtypes must be equal, strings compared with assert_array_equal,
bfloat16 cast to float32 with rtol raised to 2**-6, everything else with
numpy.testing.assert_allclose(actual, expected, rtol, atol). Two rules of
decode diff differ on purpose and are checked as such: integers and bools
are compared exactly (assert_array_equal), complex numbers component by
component (assert_allclose on .real and on .imag); the script counts the
pairs where plain assert_allclose would have said otherwise.

Also: every file compared with itself must pass (exit 0).

usage: scripts/diff_crosscheck.py [--decoder PATH] [--pairs N] [--seed S]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import ml_dtypes
import numpy as np
from onnx import helper, numpy_helper, TensorProto

TOLERANCES = [(1e-3, 1e-7), (0.0, 0.0), (1e-5, 1e-8), (0.1, 0.0), (0.0, 1e-3), (1e-2, 1e-2)]
FLOATS = [np.float16, np.float32, np.float64]
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def step(a, k):
    """a moved k ulps (elementwise)."""
    a = a.copy()
    for i in range(a.size):
        for _ in range(abs(int(k[i]))):
            a.flat[i] = np.nextafter(a.flat[i], a.dtype.type(np.inf if k[i] > 0 else -np.inf))
    return a


def float_pair(rng, dt, rtol, atol):
    n = int(rng.choice([1, 3, 7, 24, 60]))
    shape = [n] if rng.random() < 0.5 else ([1, n] if rng.random() < 0.5 else [n, 1])
    if rng.random() < 0.05:
        shape = []
        n = 1
    scale = 10.0 ** rng.uniform(-9, 4 if dt != np.float16 else 3)
    with np.errstate(all="ignore"):
        e = (rng.standard_normal(n) * scale).astype(dt)
        kind = rng.choice(["equal", "noise", "boundary", "nan", "inf", "special", "huge"])
        if kind == "equal":
            a = e.copy()
        elif kind == "noise":
            rel = 10.0 ** rng.uniform(-9, 0)
            a = (e + rng.standard_normal(n) * np.abs(e) * rel + rng.standard_normal(n) * 10.0 ** rng.uniform(-10, -5)).astype(dt)
        elif kind == "boundary":
            tol = (dt(atol) + dt(rtol) * np.abs(e)).astype(dt)
            sign = rng.choice([-1, 1], n).astype(dt)
            a = (e + sign * tol).astype(dt)
            a = step(a, rng.integers(-2, 3, n))
        elif kind == "nan":
            a = e.copy()
            idx = rng.integers(0, n, max(1, n // 3))
            e[idx] = np.nan
            a[idx if rng.random() < 0.6 else rng.integers(0, n, len(idx))] = np.nan
        elif kind == "inf":
            a = e.copy()
            idx = rng.integers(0, n, max(1, n // 3))
            e[idx] = np.inf * rng.choice([-1, 1], len(idx))
            r = rng.random()
            if r < 0.5:
                a[idx] = e[idx]
            elif r < 0.75:
                a[idx] = -e[idx]
            else:
                a[rng.integers(0, n, len(idx))] = np.inf
        elif kind == "special":
            tiny = np.finfo(dt).smallest_subnormal
            pool = np.array([0.0, -0.0, tiny, -tiny, 2 * tiny, atol, -atol, 1e-7, 1.2e-7], dtype=np.float64).astype(dt)
            e = rng.choice(pool, n).astype(dt)
            a = rng.choice(pool, n).astype(dt)
        else:
            big = np.finfo(dt).max
            e = (rng.choice([-1, 1], n) * big * rng.uniform(0.5, 1, n)).astype(dt)
            a = e.copy() if rng.random() < 0.3 else (-e if rng.random() < 0.5 else (e * dt(1 - rtol)).astype(dt))
    return e.reshape(shape), a.reshape(shape), str(kind)


def verdict(e, a, rtol, atol, exact_ints=True, by_component=True):
    if e.shape != a.shape or e.dtype != a.dtype:
        return False
    try:
        if e.dtype == object or e.dtype.kind in "US":
            np.testing.assert_array_equal(a, e)
        elif e.dtype == ml_dtypes.bfloat16:
            np.testing.assert_allclose(a.astype(np.float32), e.astype(np.float32), rtol=max(rtol, 2**-6), atol=atol)
        elif exact_ints and e.dtype.kind in "iub":
            np.testing.assert_array_equal(a, e)
        elif by_component and e.dtype.kind == "c":
            np.testing.assert_allclose(a.real, e.real, rtol=rtol, atol=atol)
            np.testing.assert_allclose(a.imag, e.imag, rtol=rtol, atol=atol)
        else:
            with np.errstate(all="ignore"):
                np.testing.assert_allclose(a, e, rtol=rtol, atol=atol)
        return True
    except AssertionError:
        return False


def make_pair(rng, rtol, atol):
    r = rng.random()
    if r < 0.55:
        dt = FLOATS[rng.integers(0, 3)]
        e, a, kind = float_pair(rng, dt, rtol, atol)
        return e, a, f"{np.dtype(dt).name}-{kind}"
    if r < 0.62:
        e, a, kind = float_pair(rng, np.float32, rtol, atol)
        return e.astype(ml_dtypes.bfloat16), a.astype(ml_dtypes.bfloat16), f"bfloat16-{kind}"
    if r < 0.80:
        dt = INTS[rng.integers(0, len(INTS))]
        info = np.iinfo(dt)
        n = int(rng.integers(1, 30))
        e = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
        a = e.copy()
        if rng.random() < 0.6:
            i = rng.integers(0, n)
            a[i] = a[i] + dt(1) if a[i] < info.max else a[i] - dt(1)
        return e, a, f"{np.dtype(dt).name}"
    if r < 0.84:
        n = int(rng.integers(1, 20))
        e = rng.random(n) < 0.5
        a = e.copy()
        if rng.random() < 0.5:
            a[0] = not a[0]
        return e, a, "bool"
    if r < 0.93:
        dt = np.complex64 if rng.random() < 0.5 else np.complex128
        fdt = np.float32 if dt == np.complex64 else np.float64
        er, ar, k1 = float_pair(rng, fdt, rtol, atol)
        ei, ai, k2 = float_pair(rng, fdt, rtol, atol)
        m = min(er.size, ei.size)
        e = np.empty(m, dtype=dt)
        a = np.empty(m, dtype=dt)
        e.real, e.imag = er.ravel()[:m], ei.ravel()[:m]
        a.real, a.imag = ar.ravel()[:m], ai.ravel()[:m]
        return e, a, f"{np.dtype(dt).name}-{k1}/{k2}"
    if r < 0.97:
        n = int(rng.integers(1, 6))
        words = ["a", "b", "héllo", "", "x" * 20]
        e = np.array([words[rng.integers(0, len(words))] for _ in range(n)], dtype=object)
        a = e.copy()
        if rng.random() < 0.5:
            a[rng.integers(0, n)] = "changed"
        return e, a, "string"
    # shape or dtype mismatch
    e = rng.standard_normal(6).astype(np.float32)
    if rng.random() < 0.5:
        return e.reshape(2, 3), e.reshape(3, 2), "shape-mismatch"
    return e, e.astype(np.float64), "dtype-mismatch"


def to_proto(x):
    if x.dtype == ml_dtypes.bfloat16:
        return helper.make_tensor("t", TensorProto.BFLOAT16, x.shape, x.view(np.uint16).tobytes(), raw=True)
    return numpy_helper.from_array(x, "t")


def main():
    np.seterr(all="ignore")
    ap = argparse.ArgumentParser()
    ap.add_argument("--decoder", default="target/release/decode")
    ap.add_argument("--pairs", type=int, default=1000, help="pairs per tolerance setting")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    dec = os.path.abspath(a.decoder)
    rng = np.random.default_rng(a.seed)
    total = agree = selfok = selftotal = 0
    lenient_differs = {"int/bool": 0, "complex": 0}
    by_kind = {}
    fails = []
    with tempfile.TemporaryDirectory() as tmp:
        for t, (rtol, atol) in enumerate(TOLERANCES):
            ed, ad = os.path.join(tmp, f"e{t}"), os.path.join(tmp, f"a{t}")
            os.makedirs(ed)
            os.makedirs(ad)
            want = {}
            for k in range(a.pairs):
                e, x, kind = make_pair(rng, rtol, atol)
                name = f"p{k:05d}.pb"
                with open(os.path.join(ed, name), "wb") as f:
                    f.write(to_proto(e).SerializeToString())
                with open(os.path.join(ad, name), "wb") as f:
                    f.write(to_proto(x).SerializeToString())
                want[name] = (verdict(e, x, rtol, atol), kind)
                if e.shape == x.shape and e.dtype == x.dtype and e.dtype != object and e.dtype != ml_dtypes.bfloat16:
                    plain = verdict(e, x, rtol, atol, exact_ints=False, by_component=False)
                    if plain != want[name][0]:
                        lenient_differs["int/bool" if e.dtype.kind in "iub" else "complex"] += 1
            p = subprocess.run([dec, "diff", "--json", "--rtol", repr(rtol), "--atol", repr(atol), ed, ad],
                               capture_output=True, text=True)
            got = {}
            for line in p.stdout.splitlines():
                o = json.loads(line)
                got[os.path.basename(o["expected"])] = o.get("passed")
            for name, (w, kind) in want.items():
                total += 1
                g = got.get(name)
                ok = g == w
                agree += ok
                bk = by_kind.setdefault(kind.split("-")[0], [0, 0])
                bk[0] += 1
                bk[1] += ok
                if not ok:
                    fails.append(f"rtol={rtol} atol={atol} {name} {kind}: numpy {w}, decode {g}")
            want_code = 0 if all(w for w, _ in want.values()) else 1
            if p.returncode != want_code:
                fails.append(f"rtol={rtol} atol={atol}: exit {p.returncode}, expected {want_code}")
            s = subprocess.run([dec, "diff", "--rtol", repr(rtol), "--atol", repr(atol), ed, ed], capture_output=True)
            s2 = subprocess.run([dec, "diff", "--rtol", repr(rtol), "--atol", repr(atol), ad, ad], capture_output=True)
            selftotal += 2
            selfok += (s.returncode == 0) + (s2.returncode == 0)
    for f in fails[:20]:
        print("FAIL", f)
    print(f"{total} pairs under {len(TOLERANCES)} tolerance settings: decode diff agrees with the reference on {agree} ({total - agree} disagree)")
    print("by dtype: " + ", ".join(f"{k} {v[1]}/{v[0]}" for k, v in sorted(by_kind.items())))
    print(f"self-comparisons (a folder of {a.pairs} files with itself): {selfok} of {selftotal} exit 0")
    print(f"pairs where plain assert_allclose would differ from the exact/by-component rule: {lenient_differs}")
    return 0 if agree == total and selfok == selftotal and not fails else 1


if __name__ == "__main__":
    sys.exit(main())
