"""Record files as data: a TFRecord's Examples as columns (numpy, Arrow,
pandas), an event file's summaries as tables (tbparse's column names).

Both are read by the Rust library in one pass with the GIL released; the
columns are its buffers (numpy views, Arrow arrays through the C data
interface), never a Python object per value.
"""

from __future__ import annotations

import json as _json
import os
from collections.abc import Iterator, Sequence
from typing import Any, Union

import numpy as np

from . import _pbdecode
from ._errors import DecodeError

StrPath = Union[str, "os.PathLike[str]"]

_COMPRESSIONS = {None: None, "": "none", "none": "none", "gzip": "gzip", "zlib": "zlib"}


def _hinted(e: DecodeError, path: Any) -> DecodeError:
    """The error, with the command's "this looks like X: read it with Y"
    note when the file is a well-known other one."""
    try:
        with open(path, "rb") as f:
            head = f.read(1 << 16)
    except (OSError, TypeError):
        return e
    return _with_hint(e, head, os.path.basename(os.fspath(path)))


def _with_hint(e: DecodeError, head: bytes, name: str | None) -> DecodeError:
    hint = _pbdecode.looks_like(head, name)
    if hint is None or getattr(e, "hint", None):
        return e
    return DecodeError(f"{e}\nthis looks like {hint}", e.check, e.path, e.offset, e.message, hint, e.line, e.column)


class _Column:
    """One feature's buffers (read-only numpy views of the table's)."""

    __slots__ = ("name", "list", "kind", "valid", "offsets", "steps", "values", "value_offsets")

    def __init__(self, table: Any, i: int, name: str, is_list: bool, kind: str | None, rows: int):
        bits, offsets, steps, values, value_offsets = table.buffers(i)
        self.name = name
        self.list = is_list
        self.kind = kind
        self.valid = np.unpackbits(bits, bitorder="little", count=rows).astype(bool)
        self.offsets = offsets
        self.steps = steps
        self.values = values
        self.value_offsets = value_offsets

    def _values(self, start: int, end: int) -> Any:
        """Values start..end: an int64 or float32 array, or a list of bytes."""
        if self.kind == "bytes":
            o = self.value_offsets
            data = self.values
            return [data[o[k] : o[k + 1]].tobytes() for k in range(start, end)]
        if self.values is None:
            return np.empty(0, dtype=np.float32)
        return self.values[start:end]

    def cell(self, row: int) -> Any:
        """The feature of record `row`: its values (a feature list: a list
        of its steps' values), or None when the record lacks it."""
        if not self.valid[row]:
            return None
        start, end = int(self.offsets[row]), int(self.offsets[row + 1])
        if not self.list:
            return self._values(start, end)
        s = self.steps
        return [self._values(int(s[k]), int(s[k + 1])) for k in range(start, end)]


class Records:
    """The records of one or more record files (TFRecord: plain, GZIP or
    ZLIB), read in one pass each.

    Iterating gives a dict per record: an Example's (or SequenceExample's)
    features by name (int64 and float32 arrays, lists of bytes; a feature
    list as the list of its steps), a feature the record lacks left out;
    another payload as the library decodes it (an Event, a TensorProto, as
    ``decode --json`` writes them). ``to_arrow()`` and ``to_pandas()`` give
    one column per feature.
    """

    def __init__(self, sources: Sequence[Any], compression: str | None):
        want = _COMPRESSIONS.get(None if compression is None else str(compression).lower(), "?")
        if want == "?":
            raise ValueError(f"compression {compression!r}: None (detected), '', 'GZIP' or 'ZLIB'")
        self._sources = list(sources)
        self._tables: list[Any] = []
        # Files whose records are not Examples: (source, why), read as
        # messages when iterated.
        self._other: list[tuple[Any, DecodeError]] = []
        for src in self._sources:
            try:
                table = _pbdecode.example_table(src if isinstance(src, (bytes, bytearray)) else os.fspath(src))
            except DecodeError as e:
                if e.check == "record-payload":
                    self._tables.append(None)
                    self._other.append((src, e))
                    continue
                if isinstance(src, (bytes, bytearray)):
                    raise _with_hint(e, bytes(src[: 1 << 16]), None) from None
                raise _hinted(e, src) from None
            if want is not None and table.compression != want:
                raise ValueError(f"{_name(src)}: the file is {table.compression}, not {compression}")
            self._tables.append(table)

    @property
    def fault(self) -> dict[str, Any] | None:
        """The cut that ended a file after its last whole record
        (``{"path": "record[K]", "check": "record-cut", "offset",
        "message"}``, with ``"file"`` when several files were read), or
        None. TensorFlow's reader stops there without a word."""
        for src, t in zip(self._sources, self._tables):
            if t is not None and t.fault is not None:
                d = t.fault.to_dict()
                if len(self._sources) > 1:
                    d["file"] = _name(src)
                return d
        return None

    def __len__(self) -> int:
        if self._other:
            raise TypeError("the count of records that are not Examples is known once they are read")
        return sum(t.rows for t in self._tables)

    def _columns(self, t: Any) -> list[_Column]:
        return [_Column(t, i, name, lst, kind, t.rows) for i, (name, lst, kind) in enumerate(t.columns())]

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for src, t in zip(self._sources, self._tables):
            if t is None:
                yield from _messages(src)
                continue
            cols = self._columns(t)
            for row in range(t.rows):
                rec = {}
                for c in cols:
                    v = c.cell(row)
                    if v is not None:
                        rec[c.name] = v
                yield rec

    def _arrow_tables(self) -> list[Any]:
        try:
            import pyarrow as pa
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise ImportError("to_arrow() needs pyarrow (pip install pyarrow)") from e
        if self._other:
            raise self._other[0][1]
        return [pa.Table.from_batches([pa.record_batch(t)]) for t in self._tables]

    def to_arrow(self) -> Any:
        """A ``pyarrow.Table``: one column per feature, in order of first
        appearance, typed as tfx-bsl types them: ``large_list<int64>``,
        ``large_list<float>``, ``large_list<large_binary>`` (a feature list
        a ``large_list`` of those; ``large_list<null>`` while no record gave
        a feature values), null where a record lacks the feature, ``[]``
        where it has no values. The table's buffers are the library's,
        handed over through the Arrow C data interface (no copy)."""
        import pyarrow as pa

        tables = self._arrow_tables()
        if len(tables) == 1:
            return tables[0]
        if not tables:
            return pa.table({})
        return pa.concat_tables(tables, promote_options="permissive")

    def to_pandas(self) -> Any:
        """A ``pandas.DataFrame``, one column per feature: through
        ``to_arrow()`` when pyarrow is installed (its list columns become
        arrays), else from the columns directly (the same cells)."""
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            return self._pandas_without_arrow()
        return self.to_arrow().to_pandas()

    def _pandas_without_arrow(self) -> Any:
        import pandas as pd

        if self._other:
            raise self._other[0][1]
        frames = []
        for t in self._tables:
            data = {}
            for c in self._columns(t):
                cells = np.empty(t.rows, dtype=object)
                cells[:] = [c.cell(r) if c.kind != "bytes" or c.list else _np_bytes(c.cell(r)) for r in range(t.rows)]
                data[c.name] = cells
            frames.append(pd.DataFrame(data, index=pd.RangeIndex(t.rows)))
        if not frames:
            return pd.DataFrame()
        return frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)

    def _repr_html_(self) -> str:
        from ._notebook import records_html

        return records_html(self)

    def __repr__(self) -> str:
        if self._other:
            return f"<pbdecode.Records of {len(self._sources)} file(s), not all Examples>"
        cols = {n for t in self._tables for n, _, _ in t.columns()}
        return f"<pbdecode.Records {len(self)} records, {len(cols)} features>"


def _np_bytes(v: Any) -> Any:
    return None if v is None else np.array(v, dtype=object)


def _name(src: Any) -> str:
    return "<bytes>" if isinstance(src, (bytes, bytearray)) else os.fspath(src)


def _messages(src: Any) -> Iterator[dict[str, Any]]:
    """Each record as the library decodes it (the JSON contract's
    ``value``; bytes that are no message as ``{"bytes": b"..."}``)."""
    import base64

    doc = _pbdecode.read(bytes(src), None, "tf-record") if isinstance(src, (bytes, bytearray)) else _pbdecode.open(os.fspath(src), "tf-record")
    for r in _json.loads(doc.json())["records"]:
        if "value" in r:
            yield r["value"]
        else:
            yield {"bytes": base64.b64decode(r.get("bytes", ""))}


def records(path: StrPath | bytes | Sequence[StrPath], *, compression: str | None = None) -> Records:
    """The records of a record file (a path, several paths, or its bytes):
    plain, GZIP and ZLIB are detected (``compression``, as TensorFlow
    names it, is checked when given). A damaged record raises
    ``DecodeError`` (``check`` ``record-data-crc`` or ``record-length-crc``,
    ``path`` ``record[K]``); a file cut inside a record gives its whole
    records and the cut as ``Records.fault``."""
    if isinstance(path, (str, bytes, bytearray, os.PathLike)):
        sources = [path]
    else:
        sources = list(path)
    return Records(sources, compression)


# Event files.


def _event_files(path: StrPath) -> list[tuple[str, str]]:
    """(file, its folder relative to `path`) of each event file: `path`
    itself, or every file under it whose name has ``tfevents`` (as
    TensorBoard finds them), in name order."""
    p = os.fspath(path)
    if os.path.isfile(p):
        return [(p, "")]
    if not os.path.isdir(p):
        raise FileNotFoundError(p)
    found = []
    for root, dirs, files in os.walk(p):
        dirs.sort()
        rel = os.path.relpath(root, p)
        for f in sorted(files):
            if "tfevents" in f:
                found.append((os.path.join(root, f), "" if rel == "." else rel.replace(os.sep, "/")))
    return found


class Events:
    """The summaries of event files (TensorBoard's), as pandas DataFrames
    with tbparse's column names: ``scalars`` (``step``, ``tag``, ``value``
    as float32, ``wall_time``, and ``dir_name`` when the folder holds
    several runs), ``histograms`` (``counts``, ``limits``), ``images`` (the
    encoded picture's bytes), ``text``, ``tensors``; rows sorted by
    ``dir_name``, ``tag`` and ``step`` as tbparse sorts them."""

    def __init__(self, path: StrPath):
        self._files = _event_files(path)
        self._tables = [(t, d) for t, (_, d) in zip(_read_all(_event_table, [f for f, _ in self._files]), self._files)]
        self._dirs = len({d for _, d in self._files}) > 1

    @property
    def fault(self) -> dict[str, Any] | None:
        """The first cut that ended a file (with its ``"file"``), or None."""
        for (f, _), (t, _) in zip(self._files, self._tables):
            if t.fault is not None:
                d = t.fault.to_dict()
                d["file"] = f
                return d
        return None

    @property
    def tags(self) -> list[str]:
        """Every tag, in order of first appearance."""
        seen: dict[str, None] = {}
        for t, _ in self._tables:
            seen.update(dict.fromkeys(t.tags()))
        return list(seen)

    def _frame(self, columns: dict[str, Any], n: int) -> Any:
        import pandas as pd

        # The columns as they are (pandas would otherwise copy the numeric
        # ones into one block).
        return pd.DataFrame(columns, index=pd.RangeIndex(n), copy=False)

    def _sorted(self, df: Any) -> Any:
        keys = (["dir_name"] if self._dirs else []) + ["tag", "step"]
        if len(df) == 0:
            return df
        order = np.lexsort([df[k].to_numpy() for k in reversed(keys)])
        return df.take(order).reset_index(drop=True)

    @property
    def scalars(self) -> Any:
        """Every scalar: TF 1's and tensorboardX's ``simple_value`` and TF 2's
        tensors of the ``scalars`` plugin, ``value`` as float32."""
        steps, walls, codes, values, run_codes = [], [], [], [], []
        names: dict[str, int] = {}
        runs = sorted({d for _, d in self._tables})
        run_of = {d: i for i, d in enumerate(runs)}
        for t, d in self._tables:
            step, wall, tag, value = t.scalars()
            # Each file's tag indices as indices into one list of names.
            local = np.array([names.setdefault(n, len(names)) for n in t.tags()], dtype=np.int64)
            steps.append(step)
            walls.append(wall)
            codes.append(local[tag] if len(local) else np.empty(0, np.int64))
            values.append(value)
            run_codes.append(np.full(len(step), run_of[d], dtype=np.int64))
        step = _concat(steps, np.int64)
        code = _concat(codes, np.int64)
        run = _concat(run_codes, np.int64)
        tags = list(names)
        # Sorted as tbparse sorts: by run, tag name, then step (stable), on
        # integer keys (the names' ranks), never comparing strings per row.
        rank = np.empty(len(tags), dtype=np.int64)
        rank[np.argsort(np.array(tags, dtype=object), kind="stable")] = np.arange(len(tags))
        group = run * max(1, len(tags)) + (rank[code] if len(tags) else code)
        order = _order(group, step)
        cols: dict[str, Any] = {
            "step": step[order],
            "tag": _strings(tags, code[order]),
            "value": _concat(values, np.float32)[order],
            "wall_time": _concat(walls, np.float64)[order],
        }
        if self._dirs:
            cols["dir_name"] = _strings(runs, run[order])
        return self._frame(cols, len(step))

    def _rows(self, kind: str) -> list[tuple[Any, ...]]:
        out = []
        for t, d in self._tables:
            names = t.tags()
            for k, step, wall, tag, value in t.rows():
                if k == kind:
                    out.append((step, names[tag], value, wall, d))
        return out

    def _table(self, kind: str, convert: Any, value_columns: list[str]) -> Any:
        rows = self._rows(kind)
        cols: dict[str, Any] = {"step": np.array([r[0] for r in rows], dtype=np.int64), "tag": np.array([r[1] for r in rows], dtype=object)}
        converted = [convert(r[2]) for r in rows]
        for i, name in enumerate(value_columns):
            cells = np.empty(len(rows), dtype=object)
            cells[:] = [c[i] for c in converted] if rows else []
            cols[name] = cells
        cols["wall_time"] = np.array([r[3] for r in rows], dtype=np.float64)
        if self._dirs:
            cols["dir_name"] = np.array([r[4] for r in rows], dtype=object)
        return self._sorted(self._frame(cols, len(rows)))

    @property
    def histograms(self) -> Any:
        """Histograms: ``counts`` and ``limits`` (each bucket's right edge)
        as float64 arrays, TF 1's ``histo`` and TF 2's ``histograms``
        tensors alike."""
        return self._table("histogram", lambda v: (v[1], v[0]), ["counts", "limits"])

    @property
    def images(self) -> Any:
        """Pictures: ``value`` the encoded picture (PNG, JPEG, GIF bytes)."""
        return self._table("image", lambda v: (v,), ["value"])

    @property
    def text(self) -> Any:
        """Texts of the ``text`` plugin: ``value`` as str (bytes when not UTF-8)."""
        return self._table("text", lambda v: (_text(v),), ["value"])

    @property
    def tensors(self) -> Any:
        """Other tensors (of no plugin above): ``value`` as an array of
        their shape (a scalar as a number), None when unreadable."""
        return self._table("tensor", lambda v: (_tensor(*v),), ["value"])

    def __repr__(self) -> str:
        return f"<pbdecode.Events {len(self._files)} file(s), {len(self.tags)} tags>"


def _event_table(f: str) -> Any:
    try:
        return _pbdecode.event_table(f)
    except DecodeError as e:
        raise _hinted(e, f) from None


def _read_all(read: Any, files: list[str]) -> list[Any]:
    """`read` of each file, in order: on threads when there are several
    files and cores (the library releases the GIL while it reads)."""
    workers = min(len(files), os.cpu_count() or 1)
    if workers < 2:
        return [read(f) for f in files]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(read, files))


def _concat(parts: list[Any], dtype: Any) -> Any:
    return np.concatenate(parts) if parts else np.empty(0, dtype)


def _order(group: Any, step: Any) -> Any:
    """The rows' order by group, then step, stable: a stable sort of the
    groups alone when that leaves each group's steps ascending (as a run
    writes them), else both keys."""
    # Few groups (runs times tags) as 16-bit keys: numpy sorts those stably
    # by radix.
    keys = group.astype(np.uint16) if len(group) and int(group.max()) < 1 << 16 else group
    order = np.argsort(keys, kind="stable")
    s, g = step[order], keys[order]
    if len(s) > 1 and bool(np.any((s[1:] < s[:-1]) & (g[1:] == g[:-1]))):
        order = np.lexsort([step, group])
    return order


def _strings(names: list[str], codes: Any) -> Any:
    """The column of `names[codes]`, in the string type pandas gives
    strings (built by Arrow from the codes where pandas stores strings in
    Arrow, rather than a Python object per row)."""
    import pandas as pd

    dtype = pd.Series(np.array(["a"], dtype=object)).dtype
    if getattr(dtype, "storage", None) == "pyarrow":
        import pyarrow as pa

        column = _runs(names, codes)
        if column is None:
            column = pa.array(names, pa.large_string()).take(pa.array(codes, pa.int64()))
        return pd.Series(pd.array(column, dtype=dtype), index=pd.RangeIndex(len(codes)), copy=False)
    return np.array(names, dtype=object)[codes] if len(names) else np.empty(0, dtype=object)


def _runs(names: list[str], codes: Any) -> Any:
    """`names[codes]` as an Arrow string array, built run by run where the
    codes come in a few runs (a sorted column: each run's bytes one
    repeat), else None."""
    import pyarrow as pa

    n = len(codes)
    starts = np.flatnonzero(codes[1:] != codes[:-1]) + 1
    if n == 0 or len(starts) > 4096:
        return None
    bounds = np.concatenate([[0], starts, [n]])
    encoded = [name.encode() for name in names]
    offsets = np.zeros(n + 1, dtype=np.int64)
    parts, end = [], 0
    for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
        name = encoded[int(codes[a])]
        parts.append(name * (b - a))
        offsets[a + 1 : b + 1] = end + len(name) * np.arange(1, b - a + 1, dtype=np.int64)
        end += len(name) * (b - a)
    data = b"".join(parts)
    return pa.LargeStringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(data))


def _text(b: bytes) -> str | bytes:
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return b


_TF_DTYPES = {
    "DT_FLOAT": "float32", "DT_DOUBLE": "float64", "DT_HALF": "float16", "DT_INT8": "int8",
    "DT_INT16": "int16", "DT_INT32": "int32", "DT_INT64": "int64", "DT_UINT8": "uint8",
    "DT_UINT16": "uint16", "DT_UINT32": "uint32", "DT_UINT64": "uint64", "DT_BOOL": "bool",
}  # fmt: skip


def _tensor(type_name: str, shape: list[int] | None, values: Any) -> Any:
    if values is None:
        return None
    if isinstance(values, list):
        a = np.empty(len(values), dtype=object)
        a[:] = values
    else:
        a = values.astype(_TF_DTYPES.get(type_name, values.dtype))
    if shape is not None and int(np.prod(shape)) == a.size:
        a = a.reshape(shape)
    return a.item() if a.shape == () else a


def events(path: StrPath) -> Events:
    """The summaries of an event file, or of every event file under a
    folder (each run's ``dir_name`` relative to it)."""
    return Events(path)
