"""pbdecode: the tensors of ONNX and TensorFlow protobuf files as NumPy arrays.

    import pbdecode
    with pbdecode.open("model.onnx") as f:
        for name, t in f.tensors.items():
            print(name, t.dtype, t.shape)
        w = f.tensors["w"].numpy()          # a read-only view of the map
    x = pbdecode.load("input_0.pb")          # one tensor file -> ndarray

Decoding is the Rust library's (``decode``'s): the same detection, the
same checks and errors, the same external-data rules.
"""

from __future__ import annotations

import base64 as _base64
import json as _json
import os as _os
from collections.abc import Mapping as _Mapping
from typing import Any, Iterator, NamedTuple

import numpy as np

from . import _pbdecode as _pbdecode
from ._errors import DecodeError, ValuesUnavailable

__all__ = [
    "DecodeError",
    "ValuesUnavailable",
    "File",
    "Tensor",
    "SparseTensor",
    "External",
    "Value",
    # `open` is pbdecode.open, never the builtin: `from pbdecode import *`
    # leaves the builtin alone.
    "load",
    "loads",
    "describe",
]

__version__ = "0.1.0"

# The types NumPy has; the others come from ml_dtypes.
_NUMPY_NAMES = {
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
    "uint64", "float16", "float32", "float64", "complex64", "complex128",
}  # fmt: skip

# How the native module hands each kind over: the array it gives, viewed as
# the kind's dtype (half floats as uint16 bits, complex as float pairs,
# coded types as one byte per element).
_WIDENED = {
    "bfloat16": "float32", "float8_e4m3fn": "float32", "float8_e4m3fnuz": "float32",
    "float8_e5m2": "float32", "float8_e5m2fnuz": "float32", "float8_e4m3b11fnuz": "float32",
    "float8_e8m0fnu": "float32", "float4_e2m1fn": "float32", "float6_e2m3fn": "float32",
    "float6_e3m2fn": "float32", "int4": "int8", "int2": "int8", "uint4": "uint8", "uint2": "uint8",
}  # fmt: skip


def _dtype(name: str) -> np.dtype:
    """The dtype of a numpy name as the library spells it (``object`` for
    strings, ml_dtypes' names for bfloat16, float8, float6, float4, int4
    and int2)."""
    if name == "object":
        return np.dtype(object)
    if name in _NUMPY_NAMES:
        return np.dtype(name)
    try:
        import ml_dtypes
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(
            f"{name} arrays need ml_dtypes (pip install ml_dtypes), or widen=True for --npy's types"
        ) from e
    return np.dtype(getattr(ml_dtypes, name))


class External(NamedTuple):
    """Where a tensor's values are outside the file: ONNX external data,
    or the side file its format reads them from (a Paddle parameter's
    ``.pdiparams``)."""

    location: str | None
    offset: int | None
    length: int | None
    checksum: str | None


class Value(NamedTuple):
    """A model's input or output: its name and declared type (``FLOAT[N, 3]``)."""

    name: str
    type: str


class _Handle:
    """The native document of an open File, shared with its tensors:
    ``close()`` lets go of it, and every tensor of the file then says the
    file is closed."""

    __slots__ = ("doc",)

    def __init__(self, doc: Any):
        self.doc = doc


def _closed(what: str) -> ValueError:
    return ValueError(f"I/O operation on a closed pbdecode.File ({what})")


class Tensor:
    """One tensor of a file: its facts at once, its values when asked."""

    __slots__ = ("_handle", "_info", "__weakref__")

    def __init__(self, handle: _Handle, info: dict):
        self._handle = handle
        self._info = info

    @property
    def _doc(self) -> Any:
        doc = self._handle.doc
        if doc is None:
            raise _closed(f"tensor {self.name!r} was taken before close()")
        return doc

    @property
    def name(self) -> str:
        return self._info["name"]

    @property
    def data_type(self) -> str:
        """The data type as the file's format names it (``FLOAT``, ``DT_HALF``)."""
        return self._info.get("type_name", "")

    @property
    def role(self) -> str:
        """What it is to the file: ``initializer``, ``constant``, ``tensor_file``, ..."""
        return self._info["role"]

    @property
    def path(self) -> str:
        """Where it is in ``to_dict()["value"]``: ``graph.initializer[0]``;
        empty for a tensor whose values are in a side file (a Paddle
        parameter, listed in ``to_dict()["side_tensors"]``)."""
        return self._info["path_text"]

    @property
    def dtype(self) -> np.dtype:
        name = self._info.get("data_type")
        if name is None:
            raise ValuesUnavailable(self.name, f"data type {self.data_type} has no decoding")
        return _dtype(name)

    @property
    def shape(self) -> tuple[int, ...] | None:
        """The shape, None when a dimension is unknown (TensorFlow's -1)."""
        s = self._info.get("shape")
        return None if s is None else tuple(s)

    @property
    def size(self) -> int:
        return self._info.get("size", 0)

    @property
    def nbytes(self) -> int:
        """Bytes of the array ``numpy()`` gives (strings: their pointers, as numpy counts)."""
        return self.size * self.dtype.itemsize

    @property
    def storage(self) -> str:
        """``raw``, ``typed``, ``external``, ``implied``, ``empty`` or ``unavailable``."""
        return self._info.get("storage", "unavailable")

    @property
    def external(self) -> External | None:
        e = self._info.get("external")
        return None if e is None else External(e["location"], e["offset"], e["length"], e["checksum"])

    def _check(self) -> None:
        if "error" in self._info:
            raise self._info["error"]

    def numpy(self, copy: bool | None = None, *, widen: bool = False, allow_implied: bool = False) -> Any:
        """The values as an array of the tensor's shape.

        ``copy=None``: a read-only view of the file's bytes when they are
        the array (little-endian, whole-byte elements), even where they
        are not aligned for the dtype (numpy reads unaligned arrays;
        ``np.require(a, requirements="A")`` aligns one for a consumer that
        needs it), else the converted values; ``copy=False``: always a
        view (``ValueError`` when the values need converting);
        ``copy=True``: an owned, writeable, aligned copy. ``widen=True``
        gives ``decode --npy``'s types (float32, int8, uint8) instead of
        ml_dtypes'.
        """
        self._check()
        info = self._info
        name = info.get("data_type")
        if name is None:
            raise ValuesUnavailable(self.name, f"data type {self.data_type} has no decoding")
        shape = info.get("shape")
        widened = widen and name in _WIDENED
        if not widened:
            stored = self._doc.stored(info["index"])
            if stored is not None:
                a = _shaped(stored.view(_dtype(name)), shape, info["size"])
                if copy is True:
                    a = a.copy()
                    # Read by numpy from the map: OSError if the file was cut short meanwhile.
                    self._doc.check_whole_file()
                return a
        if copy is False:
            raise ValueError(
                f"tensor {self.name!r}: its values ({self.storage} {self.data_type}) need converting, "
                "so they cannot be a view of the file (copy=None or copy=True)"
            )
        kind, flat = self._doc.values(info["index"], widen, allow_implied)
        a = _from_flat(kind, flat)
        return _shaped(a, shape, info["size"])

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        a = self.numpy(copy=copy)
        if dtype is not None and np.dtype(dtype) != a.dtype:
            if copy is False:
                raise ValueError(f"tensor {self.name!r}: converting to {dtype} needs a copy")
            a = a.astype(dtype)
        return a

    def stats(self) -> dict:
        """Statistics of every value by the library's kernels (count, min,
        max, mean, std, NaN, infinities, zeros); no array is made."""
        self._check()
        return self._doc.stats(self._info["index"])

    def to_npy(self, path: str | _os.PathLike) -> None:
        """Writes the tensor as ``decode --npy`` does."""
        self._check()
        self._doc.write_npy(self._info["index"], _os.fspath(path))

    def __repr__(self) -> str:
        return f"<pbdecode.Tensor {self.name!r} {self.data_type} {list(self.shape) if self.shape is not None else '?'} {self.storage}>"

    def _repr_html_(self) -> str:
        from ._notebook import tensor_html

        return tensor_html(self)


def _shaped(a: np.ndarray, shape: list | None, size: int) -> np.ndarray:
    """The flat values in the tensor's shape; a segment (ONNX ``segment``,
    part of its tensor) and a shape with unknown dimensions stay flat."""
    if shape is None:
        return a
    n = 1
    for d in shape:
        n *= d
    return a.reshape(shape) if a.size == size == n else a


def _from_flat(kind: str, flat: Any) -> np.ndarray:
    """The native module's flat values as an array of their dtype."""
    if kind == "object":
        a = np.empty(len(flat), dtype=object)
        a[:] = flat
        return a
    dt = _dtype(kind)
    return flat if flat.dtype == dt else flat.view(dt)


class _Tensors(_Mapping):
    """The tensors of a file by name, in file order (the first of a name)."""

    def __init__(self, tensors: list[Tensor]):
        self._list = tensors
        self._by_name: dict[str, Tensor] = {}
        for t in tensors:
            self._by_name.setdefault(t.name, t)

    def __getitem__(self, name: str) -> Tensor:
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"no tensor {name!r}; the file has {_names(self._by_name)}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_name)

    def __len__(self) -> int:
        return len(self._by_name)

    def __repr__(self) -> str:
        return f"<pbdecode tensors {list(self._by_name)!r}>"


def _names(names: Any) -> str:
    names = list(names)
    shown = ", ".join(repr(n) for n in names[:20])
    return f"{len(names)} tensors: {shown}" + (", ..." if len(names) > 20 else "")


class File:
    """A decoded file. Opening decodes the structure once; no tensor value
    is read until asked. A context manager; arrays already made stay valid
    after ``close()`` (their base keeps the map)."""

    def __init__(self, doc: Any):
        self._handle = _Handle(doc)
        self._format = doc.format()
        self._tensors = _Tensors([Tensor(self._handle, info) for info in doc.tensors()])
        self._graphs: list[Any] | None = None

    @property
    def _doc(self) -> Any:
        return self._handle.doc

    @property
    def format(self) -> str:
        """``onnx-tensor``, ``onnx-sequence``, ``onnx-sparse-tensor``,
        ``onnx-model``, ``tf-saved-model``, ``tf-graph-def`` or ``protobuf``."""
        return self._format[0]

    @property
    def type(self) -> str | None:
        """The root message's full type name (``onnx.ModelProto``)."""
        return self._format[1]

    @property
    def syntax(self) -> str:
        """``"binary"``, or ``"text"`` for a file in protobuf's text format
        (``.pbtxt``, ``.prototxt``), read as the binary form of its message:
        the same tensors, values and summary."""
        return self._doc.syntax()

    @property
    def also(self) -> list[str]:
        """Other message types the same bytes are equally valid as."""
        return list(self._format[2])

    @property
    def summary(self) -> dict:
        """The format's summary, as the text view's header and ``--json``'s
        ``"summary"`` give it (IR version, opsets, node, initializer and
        Constant counts, parameters, ...): key -> value, in order; empty for
        a tensor file."""
        return self._live().summary()

    @property
    def tensors(self) -> _Tensors:
        """The tensors by name, in file order (no value read)."""
        self._live()
        return self._tensors

    def _live(self) -> Any:
        if self._doc is None:
            raise _closed("its tensors were let go")
        return self._doc

    @property
    def graphs(self) -> list[Any]:
        """Every graph of a model (ONNX: the main graph, each subgraph an
        attribute holds, the model's functions; TensorFlow: a GraphDef's or
        SavedModel's graphs and library functions), as the Graph tab reads
        them; empty for a file that is no model."""
        if self._graphs is None:
            from ._graph import build

            raw = _pbdecode.graphs(self._live())
            self._graphs = [] if raw is None else build(raw, self._tensors._list)
        return self._graphs

    @property
    def graph(self) -> Any:
        """The main graph (None for a file that is no model)."""
        return next((g for g in self.graphs if g.kind == "main"), None)

    @property
    def nodes(self) -> list[Any]:
        """The main graph's nodes."""
        g = self.graph
        return [] if g is None else g.nodes

    def to_dict(self, values: int | None = None) -> dict:
        """The JSON contract (``decode --json``) as Python objects;
        ``values`` limits the values of each tensor."""
        return _json.loads(self._live().json(values=values))

    def json(self, values: int | None = None, *, stats: bool = False, dense: bool = False) -> str:
        """What ``decode --json`` prints, byte for byte."""
        return self._live().json(values=values, stats=stats, dense=dense).decode("utf-8")

    def text(self, values: int | None = None, *, offsets: bool = False, histogram: bool = False,
             stats: bool = False, dense: bool = False) -> str:  # fmt: skip
        """What ``decode`` prints (colour off), byte for byte."""
        out = self._live().text(values=values, offsets=offsets, histogram=histogram, stats=stats, dense=dense)
        return out.decode("utf-8")

    def _graph_values(self, key: str) -> list[Value]:
        if self.format != "onnx-model":
            return []
        graph = self.to_dict(values=0)["value"].get("graph", {})
        return [Value(v.get("name", ""), _type_text(v.get("type", {}))) for v in graph.get(key, [])]

    @property
    def inputs(self) -> list[Value]:
        """A model's graph inputs: name and declared type."""
        return self._graph_values("input")

    @property
    def outputs(self) -> list[Value]:
        """A model's graph outputs: name and declared type."""
        return self._graph_values("output")

    def load(self, name: str | None = None, *, copy: bool | None = None, widen: bool = False) -> Any:
        """``pbdecode.load`` on this file."""
        doc = self._live()
        if name is not None:
            return self._tensors[name].numpy(copy=copy, widen=widen)
        if self.format == "onnx-tensor":
            return self._tensors._list[0].numpy(copy=copy, widen=widen)
        if self.format in ("onnx-sequence", "onnx-optional"):
            value = _json.loads(doc.json(values=0))["value"]
            by_path = {tuple(_path_key(t._info["path"])): t for t in self._tensors._list}
            return _container(self.type, value, (), by_path, copy, widen)
        if self.format == "onnx-sparse-tensor":
            value = _json.loads(doc.json(values=0))["value"]
            by_role = {t.role: t for t in self._tensors._list}
            return SparseTensor(
                by_role["sparse_values"].numpy(copy=copy, widen=widen),
                by_role["sparse_indices"].numpy(copy=copy, widen=widen),
                tuple(value.get("dims", [])),
            )
        if self.format == "protobuf" and not self._tensors:
            # Not a file of tensors: why it is not the first format tried
            # (an ONNX tensor), as `decode --as onnx-tensor` says it.
            for _, error in doc.passed_over():
                raise error
        raise KeyError(f"{self.format} file: name one of its {_names(self._tensors)}")

    def close(self) -> None:
        """Lets go of the file (arrays made from it keep what they need;
        its tensors and ``tensors`` then say the file is closed)."""
        self._handle.doc = None
        self._graphs = None

    @property
    def closed(self) -> bool:
        return self._doc is None

    def __enter__(self) -> File:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = " closed" if self.closed else ""
        return f"<pbdecode.File {self.format} {self.type} {len(self._tensors)} tensors{state}>"

    def _repr_html_(self) -> str:
        from ._notebook import file_html

        return file_html(self)


# Formats that hold many tensors: load() needs a name there.
_MANY = {"onnx-model", "tf-saved-model", "tf-graph-def"}


def _path_key(path: list) -> list:
    return [tuple(s) if isinstance(s, list) else s for s in path]


def _bytes_or_str(b64: str) -> str | bytes:
    raw = _base64.b64decode(b64)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw


def _container(type_name: str | None, value: dict, at: tuple, by_path: dict, copy: Any, widen: bool) -> Any:
    """A SequenceProto as a list, a MapProto as a dict, an OptionalProto as
    its value or None; tensors found by their path in the file."""
    if type_name == "onnx.MapProto":
        keys: list[Any]
        if "string_keys" in value:
            keys = [_bytes_or_str(k) for k in value["string_keys"]]
        else:
            keys = [int(k) for k in value.get("keys", [])]
        vals = _container("onnx.SequenceProto", value.get("values", {}), at + ("values",), by_path, copy, widen)
        return dict(zip(keys, vals))
    if type_name == "onnx.OptionalProto":
        for field, kind in _ELEMENT_FIELDS:
            if field.replace("_values", "_value") in value:
                f = field.replace("_values", "_value")
                return _element(kind, value[f], at + (f,), by_path, copy, widen)
        return None
    out = []
    for field, kind in _ELEMENT_FIELDS:
        for k, v in enumerate(value.get(field, [])):
            out.append(_element(kind, v, at + (field, k), by_path, copy, widen))
    return out


_ELEMENT_FIELDS = [
    ("tensor_values", "tensor"),
    ("sparse_tensor_values", "sparse"),
    ("sequence_values", "onnx.SequenceProto"),
    ("map_values", "onnx.MapProto"),
    ("optional_values", "onnx.OptionalProto"),
]


def _element(kind: str, value: dict, at: tuple, by_path: dict, copy: Any, widen: bool) -> Any:
    if kind == "tensor":
        return by_path[at].numpy(copy=copy, widen=widen)
    if kind == "sparse":
        return SparseTensor(
            by_path[at + ("values",)].numpy(copy=copy, widen=widen),
            by_path[at + ("indices",)].numpy(copy=copy, widen=widen),
            tuple(value.get("dims", [])),
        )
    return _container(kind, value, at, by_path, copy, widen)


class SparseTensor:
    """An ONNX sparse tensor: ``values``, ``indices`` (``[NNZ, rank]``
    coordinates or ``[NNZ]`` linear positions) and ``dims``."""

    def __init__(self, values: np.ndarray, indices: np.ndarray, dims: tuple[int, ...]):
        self.values = values
        self.indices = indices
        self.dims = tuple(int(d) for d in dims)

    def todense(self) -> np.ndarray:
        """The dense array (zeros where no value is given)."""
        dense = np.zeros(self.dims, dtype=self.values.dtype)
        if self.values.size == 0:
            return dense
        flat = dense.reshape(-1)
        idx = np.asarray(self.indices, dtype=np.int64)
        if idx.ndim == 2:
            idx = np.ravel_multi_index(tuple(idx.T), self.dims)
        flat[idx.reshape(-1)] = self.values.reshape(-1)
        return dense

    def __repr__(self) -> str:
        return f"<pbdecode.SparseTensor dims={list(self.dims)} nnz={self.values.size} {self.values.dtype}>"


def _dim_text(d: dict) -> str:
    if "dim_value" in d:
        return str(d["dim_value"])
    return d.get("dim_param", "?")


def _type_text(t: dict) -> str:
    """A declared type as ``decode`` writes it: ``FLOAT[N, 3]``, ``seq(...)``."""
    if "tensor_type" in t or "sparse_tensor_type" in t:
        tt = t.get("tensor_type") or t.get("sparse_tensor_type") or {}
        elem = str(tt.get("elem_type", "?"))
        if "shape" in tt:
            elem += "[" + ", ".join(_dim_text(d) for d in tt["shape"].get("dim", [])) + "]"
        return elem if "tensor_type" in t else f"sparse({elem})"
    if "sequence_type" in t:
        return f"seq({_type_text(t['sequence_type'].get('elem_type', {}))})"
    if "map_type" in t:
        m = t["map_type"]
        return f"map({m.get('key_type', '?')}, {_type_text(m.get('value_type', {}))})"
    if "optional_type" in t:
        return f"optional({_type_text(t['optional_type'].get('elem_type', {}))})"
    return "?"


def open(path: str | _os.PathLike, *, format: str | None = None) -> File:  # noqa: A001
    """Opens a file: mapped, its format detected, its tensors indexed
    without reading a value (an ONNX test folder's ``input_K.pb`` read as
    its model declares it; external data from the file's folder).
    ``format`` reads it as that format only, as ``decode --as`` does."""
    try:
        return File(_pbdecode.open(_os.fspath(path), format))
    except DecodeError as e:
        from ._records import _hinted

        raise _hinted(e, path) from None


def _read(data: Any, base_dir: str | _os.PathLike | None, format: str | None = None) -> File:
    data = data if isinstance(data, bytes) else bytes(data)
    try:
        return File(_pbdecode.read(data, None if base_dir is None else _os.fspath(base_dir), format))
    except DecodeError as e:
        from ._records import _with_hint

        raise _with_hint(e, data[: 1 << 16], None) from None


def load(path: str | _os.PathLike, name: str | None = None, *, copy: bool | None = None,
         widen: bool = False, format: str | None = None) -> Any:  # fmt: skip
    """A file's tensor as an ndarray: a tensor file's, or the one named in a
    model; a SequenceProto as a list, a MapProto as a dict, an OptionalProto
    as its value or None; a sparse tensor as a ``SparseTensor``."""
    with open(path, format=format) as f:
        return f.load(name, copy=copy, widen=widen)


def loads(data: bytes, name: str | None = None, *, copy: bool | None = None, widen: bool = False,
          base_dir: str | _os.PathLike | None = None, format: str | None = None) -> Any:  # fmt: skip
    """``load`` of bytes in memory; external data is read only from
    ``base_dir``."""
    with _read(data, base_dir, format) as f:
        return f.load(name, copy=copy, widen=widen)


def describe(data: bytes, *, base_dir: str | _os.PathLike | None = None) -> dict:
    """What a file is, as plain data (a map function's row): format, type and
    each tensor's name, data type, dtype, shape, storage and statistics.
    A file that is turned down gives its ``error`` object instead."""
    try:
        f = _read(data, base_dir)
    except DecodeError as e:
        return {"format": None, "type": None, "also": [], "tensors": [], "error": e.to_dict()}
    with f:
        tensors = []
        for t in f._tensors._list:
            row: dict[str, Any] = {
                "name": t.name,
                "data_type": t.data_type,
                "dtype": t._info.get("data_type"),
                "shape": None if t.shape is None else list(t.shape),
                "storage": t.storage,
            }
            try:
                row["stats"] = t.stats()
            except ValuesUnavailable as e:
                row["values_unavailable"] = e.reason
            tensors.append(row)
        return {"format": f.format, "type": f.type, "also": f.also, "tensors": tensors}


from ._compare import Diff, TestCase, assert_close, diff, testdata  # noqa: E402 - needs File

from ._records import Events, Records, events, records  # noqa: E402

__all__ += ["Diff", "TestCase", "assert_close", "diff", "testdata", "Events", "Records", "events", "records"]
