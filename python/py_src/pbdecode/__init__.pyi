from collections.abc import Iterable, Iterator, Mapping
from os import PathLike
from typing import Any, Literal, NamedTuple

import numpy as np

__version__: str

StrPath = str | PathLike[str]
Storage = Literal["raw", "typed", "external", "implied", "empty", "unavailable"]

class DecodeError(ValueError):
    check: str
    path: str
    offset: int
    message: str
    line: int | None
    column: int | None
    def __init__(
        self,
        text: str,
        check: str,
        path: str,
        offset: int,
        message: str,
        line: int | None = None,
        column: int | None = None,
    ) -> None: ...
    def to_dict(self) -> dict[str, Any]: ...

class ValuesUnavailable(ValueError):
    tensor: str
    reason: str
    def __init__(self, tensor: str, reason: str) -> None: ...

class External(NamedTuple):
    location: str | None
    offset: int | None
    length: int | None
    checksum: str | None

class Value(NamedTuple):
    name: str
    type: str

class Tensor:
    @property
    def name(self) -> str: ...
    @property
    def data_type(self) -> str: ...
    @property
    def role(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def dtype(self) -> np.dtype[Any]: ...
    @property
    def shape(self) -> tuple[int, ...] | None: ...
    @property
    def size(self) -> int: ...
    @property
    def nbytes(self) -> int: ...
    @property
    def storage(self) -> Storage: ...
    @property
    def external(self) -> External | None: ...
    def numpy(
        self, copy: bool | None = None, *, widen: bool = False, allow_implied: bool = False
    ) -> np.ndarray[Any, Any]: ...
    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray[Any, Any]: ...
    def stats(self) -> dict[str, Any]: ...
    def to_npy(self, path: StrPath) -> None: ...

class SparseTensor:
    values: np.ndarray[Any, Any]
    indices: np.ndarray[Any, Any]
    dims: tuple[int, ...]
    def __init__(
        self, values: np.ndarray[Any, Any], indices: np.ndarray[Any, Any], dims: Iterable[int]
    ) -> None: ...
    def todense(self) -> np.ndarray[Any, Any]: ...

class File:
    @property
    def format(self) -> str: ...
    @property
    def type(self) -> str | None: ...
    @property
    def syntax(self) -> str: ...
    @property
    def also(self) -> list[str]: ...
    @property
    def summary(self) -> dict[str, Any]: ...
    @property
    def tensors(self) -> Mapping[str, Tensor]: ...
    @property
    def inputs(self) -> list[Value]: ...
    @property
    def outputs(self) -> list[Value]: ...
    @property
    def closed(self) -> bool: ...
    def to_dict(self, values: int | None = None) -> dict[str, Any]: ...
    def json(self, values: int | None = None, *, stats: bool = False, dense: bool = False) -> str: ...
    def text(
        self,
        values: int | None = None,
        *,
        offsets: bool = False,
        histogram: bool = False,
        stats: bool = False,
        dense: bool = False,
    ) -> str: ...
    def load(self, name: str | None = None, *, copy: bool | None = None, widen: bool = False) -> Any: ...
    def close(self) -> None: ...
    def __enter__(self) -> File: ...
    def __exit__(self, *exc: object) -> None: ...

def open(path: StrPath, *, format: str | None = None) -> File: ...
def load(
    path: StrPath,
    name: str | None = None,
    *,
    copy: bool | None = None,
    widen: bool = False,
    format: str | None = None,
) -> Any: ...
def loads(
    data: bytes | bytearray | memoryview,
    name: str | None = None,
    *,
    copy: bool | None = None,
    widen: bool = False,
    base_dir: StrPath | None = None,
    format: str | None = None,
) -> Any: ...
def describe(data: bytes | bytearray | memoryview, *, base_dir: StrPath | None = None) -> dict[str, Any]: ...

class Diff:
    passed: bool
    compared: int
    differing: int
    report: str
    entries: list[dict[str, Any]]
    def __bool__(self) -> bool: ...

class TestCase(NamedTuple):
    name: str
    model: PathLike[str]
    inputs: dict[str, Any]
    outputs: dict[str, Any]

def diff(expected: Any, actual: Any, rtol: float = 1e-3, atol: float = 1e-7) -> Diff: ...
def assert_close(expected: Any, actual: Any, rtol: float = 1e-3, atol: float = 1e-7) -> None: ...
def testdata(folder: StrPath) -> list[TestCase]: ...
