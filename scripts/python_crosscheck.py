#!/usr/bin/env python3
"""Cross-check the Python package (pbdecode.load / File.tensors) against
onnx.numpy_helper (to_array, to_list, to_dict, to_optional) on every .pb
and .onnx file under the given folders: the repository's fixtures, the test
data shipped inside the onnx wheel, and ONNX's node test data generated
from the onnx package (scripts/gen_node_testdata.py). Arrays must have the
same dtype and shape and the same bytes (strings the same objects); lists,
dicts and optionals the same structure. Prints one line per difference and
a summary; exits 1 when there is any.

Needs the package installed (pip install ./python) and `pip install onnx
numpy ml_dtypes`; not part of `cargo test`.

usage: scripts/python_crosscheck.py [--no-node-data] [DIR...]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

import pbdecode

REPO = Path(__file__).resolve().parents[1]


def same(expected, actual, where: str, out: list[str]) -> None:
    """Appends to `out` every way `actual` differs from `expected`."""
    if isinstance(expected, np.ndarray):
        if not isinstance(actual, np.ndarray):
            out.append(f"{where}: onnx gives an array, pbdecode {type(actual).__name__}")
        elif expected.dtype != actual.dtype:
            out.append(f"{where}: dtype {expected.dtype} (onnx) != {actual.dtype}")
        elif expected.shape != actual.shape:
            out.append(f"{where}: shape {expected.shape} (onnx) != {actual.shape}")
        elif expected.dtype == object:
            if expected.tolist() != actual.tolist():
                out.append(f"{where}: strings differ")
        elif expected.tobytes() != actual.tobytes():
            out.append(f"{where}: values differ")
    elif isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            out.append(f"{where}: onnx gives a list of {len(expected)}, pbdecode {type(actual).__name__}")
            return
        for i, (e, a) in enumerate(zip(expected, actual)):
            same(e, a, f"{where}[{i}]", out)
    elif isinstance(expected, dict):
        if not isinstance(actual, dict):
            out.append(f"{where}: onnx gives a dict, pbdecode {type(actual).__name__}")
            return
        # onnx keeps string keys as bytes; pbdecode gives str where UTF-8.
        norm = {(k.encode() if isinstance(k, str) else k): v for k, v in actual.items()}
        exp = {(k.encode() if isinstance(k, str) else int(k) if isinstance(k, np.integer) else k): v for k, v in expected.items()}
        if list(exp) != list(norm):
            out.append(f"{where}: keys {list(exp)[:5]} (onnx) != {list(norm)[:5]}")
            return
        for k in exp:
            same(exp[k], norm[k], f"{where}[{k!r}]", out)
    elif expected is None:
        if actual is not None:
            out.append(f"{where}: onnx gives None")
    else:
        out.append(f"{where}: onnx gives {type(expected).__name__}")


def onnx_value(path: Path, type_name: str):
    data = path.read_bytes()
    if type_name == "onnx.TensorProto":
        t = onnx.TensorProto()
        t.ParseFromString(data)
        return numpy_helper.to_array(t, str(path.parent))
    if type_name == "onnx.SequenceProto":
        s = onnx.SequenceProto()
        s.ParseFromString(data)
        return numpy_helper.to_list(s)
    if type_name == "onnx.MapProto":
        m = onnx.MapProto()
        m.ParseFromString(data)
        return numpy_helper.to_dict(m)
    if type_name == "onnx.OptionalProto":
        o = onnx.OptionalProto()
        o.ParseFromString(data)
        return numpy_helper.to_optional(o)
    raise KeyError(type_name)


def check_file(path: Path, counts: Counter, diffs: list[str]) -> None:
    try:
        f = pbdecode.open(path)
    except pbdecode.DecodeError as e:
        counts["turned down by pbdecode"] += 1
        counts[f"  ({e.check})"] += 1
        return
    with f:
        if f.format == "onnx-model":
            model = onnx.load(str(path), load_external_data=False)
            for init in model.graph.initializer:
                try:
                    expected = numpy_helper.to_array(init, str(path.parent))
                except Exception:
                    counts["tensors onnx cannot read"] += 1
                    continue
                counts["model tensors compared"] += 1
                try:
                    actual = f.tensors[init.name].numpy()
                except pbdecode.ValuesUnavailable as e:
                    diffs.append(f"{path}:{init.name}: pbdecode: {e.reason}")
                    continue
                same(expected, actual, f"{path}:{init.name}", diffs)
            return
        if f.type not in ("onnx.TensorProto", "onnx.SequenceProto", "onnx.MapProto", "onnx.OptionalProto"):
            counts[f"not ONNX values ({f.format})"] += 1
            return
        try:
            expected = onnx_value(path, f.type)
        except Exception:
            counts["files onnx cannot read"] += 1
            return
        counts["files compared"] += 1
        try:
            actual = f.load()
        except pbdecode.ValuesUnavailable as e:
            if "SHA-1 mismatch" in e.reason:
                # onnx does not verify the checksum; the command does.
                counts["side files failing their SHA-1 (onnx does not check)"] += 1
            else:
                diffs.append(f"{path}: onnx reads it, pbdecode: {e.reason}")
            return
        same(expected, actual, str(path), diffs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="*", type=Path)
    ap.add_argument("--no-node-data", action="store_true", help="skip generating ONNX's node test data")
    args = ap.parse_args()
    dirs = list(args.dirs)
    tmp = None
    if not dirs:
        dirs = [REPO / "tests" / "fixtures", Path(onnx.__file__).parent / "backend" / "test" / "data"]
        if not args.no_node_data:
            tmp = tempfile.TemporaryDirectory()
            subprocess.run([sys.executable, str(REPO / "scripts" / "gen_node_testdata.py"), tmp.name],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
            dirs.append(Path(tmp.name))
    counts: Counter = Counter()
    diffs: list[str] = []
    for d in dirs:
        for root, _, files in os.walk(d):
            for name in sorted(files):
                if name.endswith((".pb", ".onnx")):
                    counts["files"] += 1
                    check_file(Path(root) / name, counts, diffs)
    for line in diffs:
        print(line)
    for k, v in counts.items():
        print(f"{k}: {v}")
    print(f"differences: {len(diffs)}")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
