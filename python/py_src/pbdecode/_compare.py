"""Comparing values as ``decode diff`` does, and ONNX test folders.

Arrays, lists, dicts and None are written as the ONNX messages they stand
for (TensorProto, SequenceProto, MapProto, OptionalProto) and compared by
the library's comparison, so that a runtime's outputs are judged exactly as
``decode diff`` judges two files.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from . import _pbdecode

# ONNX's data type numbers by numpy (and ml_dtypes) name.
_DATA_TYPES = {
    "float32": 1, "uint8": 2, "int8": 3, "uint16": 4, "int16": 5, "int32": 6, "int64": 7,
    "bool": 9, "float16": 10, "float64": 11, "uint32": 12, "uint64": 13, "complex64": 14,
    "complex128": 15, "bfloat16": 16, "float8_e4m3fn": 17, "float8_e4m3fnuz": 18,
    "float8_e5m2": 19, "float8_e5m2fnuz": 20, "uint4": 21, "int4": 22, "float4_e2m1fn": 23,
    "float8_e8m0fnu": 24, "uint2": 25, "int2": 26, "float6_e2m3fn": 27, "float6_e3m2fn": 28,
}  # fmt: skip
_STRING = 8
# Bits per element of the packed types (a little-endian bit stream).
_PACKED = {"uint4": 4, "int4": 4, "float4_e2m1fn": 4, "uint2": 2, "int2": 2, "float6_e2m3fn": 6, "float6_e3m2fn": 6}


def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _int_field(number: int, value: int) -> bytes:
    return _varint(number << 3) + _varint(value)


def _tensor(a: np.ndarray, name: str) -> bytes:
    out = bytearray()
    for d in a.shape:
        out += _int_field(1, d)
    if a.dtype == object or a.dtype.kind in "US":
        out += _int_field(2, _STRING)
        for s in a.reshape(-1):
            out += _field(6, s if isinstance(s, bytes) else str(s).encode("utf-8"))
        if name:
            out += _field(8, name.encode("utf-8"))
        return bytes(out)
    code = _DATA_TYPES.get(a.dtype.name)
    if code is None:
        raise TypeError(f"no ONNX data type for {a.dtype}")
    out += _int_field(2, code)
    if name:
        out += _field(8, name.encode("utf-8"))
    flat = np.ascontiguousarray(a).reshape(-1)
    bits = _PACKED.get(a.dtype.name)
    if bits is None:
        raw = flat.astype(flat.dtype.newbyteorder("<"), copy=False).tobytes()
    else:
        # Each element's low `bits` bits, first element in the lowest bits.
        stream = np.unpackbits(flat.view(np.uint8)[:, None], axis=1, bitorder="little")[:, :bits]
        raw = np.packbits(stream.reshape(-1), bitorder="little").tobytes()
    out += _field(9, raw)
    return bytes(out)


def _element_fields(value: Any) -> tuple[int, int, bytes]:
    """(elem_type, field number in SequenceProto, encoded element)."""
    if isinstance(value, list):
        return 3, 4, _sequence(value, "")
    if isinstance(value, dict):
        return 4, 5, _map(value, "")
    return 1, 3, _tensor(np.asarray(value), "")


def _sequence(values: list, name: str) -> bytes:
    out = bytearray(_field(1, name.encode("utf-8")) if name else b"")
    elem_type = 1
    body = bytearray()
    for v in values:
        elem_type, number, encoded = _element_fields(v)
        body += _field(number, encoded)
    out += _int_field(2, elem_type) + body
    return bytes(out)


def _map(d: dict, name: str) -> bytes:
    out = bytearray(_field(1, name.encode("utf-8")) if name else b"")
    keys = list(d)
    if all(isinstance(k, (str, bytes)) for k in keys):
        out += _int_field(2, _STRING)
        for k in keys:
            out += _field(4, k if isinstance(k, bytes) else k.encode("utf-8"))
    else:
        out += _int_field(2, 7)
        out += _field(3, b"".join(_varint(int(k)) for k in keys))
    out += _field(5, _sequence([d[k] for k in keys], ""))
    return bytes(out)


def _optional(value: Any, name: str) -> bytes:
    out = bytearray(_field(1, name.encode("utf-8")) if name else b"")
    if value is None:
        return bytes(out + _int_field(2, 1))
    elem_type, number, encoded = _element_fields(value)
    return bytes(out + _int_field(2, elem_type) + _field(number, encoded))


def encode(value: Any) -> tuple[bytes, str]:
    """A value as the ONNX message it stands for: (bytes, format id)."""
    if isinstance(value, list):
        return _sequence(value, ""), "onnx-sequence"
    if isinstance(value, dict):
        return _map(value, ""), "onnx-sequence"
    if value is None:
        return _optional(None, ""), "onnx-sequence"
    return _tensor(np.asarray(value), ""), "onnx-tensor"


def _document(value: Any) -> Any:
    """The native document of a value, a path or a File."""
    from . import File

    if isinstance(value, File):
        return value._live()
    if isinstance(value, (str, os.PathLike)):
        return _pbdecode.open(os.fspath(value))
    data, fmt = encode(value)
    return _pbdecode.read(data, None, fmt)


class Diff:
    """What a comparison found; truthy when everything is within tolerance.

    ``compared``: values (tensors) compared; ``differing``: those out of
    tolerance or differing in structure; ``entries``: each finding as
    ``decode diff --json`` writes it (max_abs and max_rel, the first
    mismatching elements); ``report``: the command's text.
    """

    def __init__(self, passed: bool, compared: int, differing: int, report: str, data: dict):
        self.passed = passed
        self.compared = compared
        self.differing = differing
        self.report = report
        self.entries = data["entries"]

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        return self.report

    def __repr__(self) -> str:
        return f"<pbdecode.Diff {'passed' if self.passed else 'failed'}: {self.differing} of {self.compared} differ>"

    def _repr_html_(self) -> str:
        from ._notebook import diff_html

        return diff_html(self)


def diff(expected: Any, actual: Any, rtol: float = 1e-3, atol: float = 1e-7) -> Diff:
    """Compares two values (arrays, lists, dicts, None, paths or Files) as
    ``decode diff`` does: numpy's ``isclose`` in the tensor's float type
    (onnx's default tolerances), NaN facing NaN, shapes, types, lengths and
    keys exactly."""
    x, y = _document(expected), _document(actual)
    passed, compared, differing, text, data = x.diff(y, float(rtol), float(atol))
    return Diff(passed, compared, differing, text.decode("utf-8"), json.loads(data))


def assert_close(expected: Any, actual: Any, rtol: float = 1e-3, atol: float = 1e-7) -> None:
    """Raises AssertionError with ``decode diff``'s report unless ``actual``
    is ``expected`` within tolerance. Two dicts of named values (a test
    case's outputs and a runtime's) are compared name by name."""
    if isinstance(expected, dict) and isinstance(actual, dict) and all(isinstance(k, str) for k in expected):
        missing = [k for k in expected if k not in actual]
        if missing:
            raise AssertionError(f"no output named {', '.join(map(repr, missing))} (given: {list(actual)})")
        failed = []
        for k, v in expected.items():
            d = diff(v, actual[k], rtol, atol)
            if not d:
                failed.append(f"{k}:\n{d.report}")
        if failed:
            raise AssertionError("\n".join(failed))
        return
    d = diff(expected, actual, rtol, atol)
    if not d:
        raise AssertionError(d.report)


class TestCase(NamedTuple):
    """One test data set of an ONNX test folder: its inputs and outputs by
    the names the model gives them."""

    name: str
    model: Path
    inputs: dict[str, Any]
    outputs: dict[str, Any]


def _files(folder: Path, role: str) -> list[Path]:
    found = []
    for p in folder.iterdir():
        m = re.fullmatch(rf"{role}_(\d+)\.pb", p.name)
        if m:
            found.append((int(m.group(1)), p))
    return [p for _, p in sorted(found)]


def testdata(folder: str | os.PathLike) -> list[TestCase]:
    """The test data sets of an ONNX test folder (``model.onnx`` beside
    ``test_data_set_N/``), in order, each file read as the model declares
    it and named as the model names its input or output."""
    from . import open as _open

    folder = Path(folder)
    model = folder / "model.onnx"
    if not model.is_file():
        raise FileNotFoundError(f"{model}: an ONNX test folder has its model.onnx")
    sets = []
    for p in folder.iterdir():
        m = re.fullmatch(r"test_data_set_(\d+)", p.name)
        if m and p.is_dir():
            sets.append((int(m.group(1)), p))
    cases = []
    for _, d in sorted(sets):
        named: dict[str, dict[str, Any]] = {"input": {}, "output": {}}
        for role in named:
            for k, path in enumerate(_files(d, role)):
                with _open(path) as f:
                    port = f.to_dict(values=0).get("model") or {}
                    name = port.get("name") or f"{role}_{k}"
                    named[role][name] = f.load()
        cases.append(TestCase(d.name, model, named["input"], named["output"]))
    return cases
