"""Hostile input through the package: sizes no buffer holds answered as
numpy answers them, and a file cut short by another program while it is
open raising OSError instead of ending the interpreter."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import pbdecode


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _len(field: int, payload: bytes) -> bytes:
    return _varint(field << 3 | 2) + _varint(len(payload)) + payload


def _int(field: int, v: int) -> bytes:
    return _varint(field << 3) + _varint(v)


def const_graph(size: int) -> bytes:
    """A GraphDef with one Const `big` of shape [size] holding one float,
    7.0: every other value is implied by TensorFlow's padding rule."""
    shape = _len(2, _int(1, size))
    tensor = _int(1, 1) + _len(2, shape) + _len(5, struct.pack("<f", 7.0))
    attr = _len(1, b"value") + _len(2, _len(8, tensor))
    node = _len(1, b"big") + _len(2, b"Const") + _len(5, attr)
    return _len(1, node)


def test_implied_values_past_any_buffer_are_refused_as_numpy_does():
    with pytest.raises(ValueError, match="array is too big"):
        np.zeros(2**62, np.float32)
    with pbdecode._read(const_graph(2**62), None) as f:
        t = f.tensors["big"]
        with pytest.raises(ValueError, match="array is too big"):
            t.numpy(allow_implied=True)
        # The statistics need no array: the stored value and its repeats.
        assert t.stats()["max"] == 7.0


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300)


def test_an_allocation_the_system_refuses_is_memory_error():
    # 2^34 float32 values (64 GiB) under a 4 GiB address space: the size
    # is checked and the one buffer asked for before any value is read,
    # so the refusal is immediate (it used to grow for a minute, then
    # abort the interpreter).
    r = _run(f"""
        import resource
        import pbdecode
        data = {const_graph(2**34)!r}
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
        with pbdecode._read(data, None) as f:
            try:
                f.tensors["big"].numpy(allow_implied=True)
            except MemoryError as e:
                print("MemoryError", e)
        """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("MemoryError 68719476736 bytes could not be allocated"), r.stdout


def _tensor_file(path, n: int) -> None:
    """An ONNX TensorProto `w` of n float32 values 1.0, stored raw."""
    raw = np.ones(n, np.float32).tobytes()
    path.write_bytes(_int(1, n) + _int(2, 1) + _len(8, b"w") + _len(9, raw))


def test_a_file_cut_short_while_open_raises_oserror_and_views_read_zeros(tmp_path):
    # Another program truncating the file (a model re-exported while a
    # notebook has it open) used to end the interpreter with SIGBUS.
    path = tmp_path / "w.pb"
    _tensor_file(path, 1 << 18)
    r = _run(f"""
        import os
        import pbdecode
        path = {str(path)!r}
        f = pbdecode.open(path)
        t = f.tensors["w"]
        view = t.numpy(copy=False)
        assert view.sum() == 1 << 18
        with open(path, "r+b") as w:
            os.ftruncate(w.fileno(), 4096)
        for name, read in [("stats", t.stats), ("copy", lambda: t.numpy(copy=True)), ("json", f.json)]:
            try:
                read()
                print(name, "read")
            except OSError as e:
                print(name, "OSError", e.filename, e.strerror)
        # The view handed out before reads zeros past the new end.
        print("view", int(view.sum()) < 1 << 18, float(view[-1]))
        """)
    assert r.returncode == 0, (r.returncode, r.stderr)
    lines = r.stdout.splitlines()
    why = "truncated while it was read (another program cut the file short)"
    assert lines[:3] == [f"{n} OSError {path} {why}" for n in ("stats", "copy", "json")], r.stdout
    assert lines[3] == "view True 0.0", r.stdout
