"""Ray Data: TFRecord files as a ``ray.data.Dataset``, read by pbdecode
(no TensorFlow), in parallel read tasks (one or more files each).

    import pbdecode.ray
    ds = pbdecode.ray.read_tfrecords("s3://bucket/train/")   # or local paths
    ds.schema()      # label: large_list<int64>, image: large_list<large_binary>, ...

Each file becomes the block ``pbdecode.records(data).to_arrow()`` gives:
the same rows and schema (tfx-bsl's types, null where a record lacks a
feature), every record's CRC checked. Ray's own ``read_tfrecords``
parses each record in Python through TensorFlow, one table per record,
and checks no CRC.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

from ray.data.datasource import FileBasedDatasource

from ._records import Records


class TFRecordDatasource(FileBasedDatasource):
    """A Ray ``Datasource`` of TFRecord files (plain, GZIP, ZLIB) whose
    records are Examples or SequenceExamples: one Arrow block per file,
    built by the library's one columnar pass."""

    def __init__(self, paths: str | list[str], *, compression: str | None = None, **file_based_datasource_kwargs: Any):
        super().__init__(paths, **file_based_datasource_kwargs)
        self._compression = compression

    def _read_stream(self, f: Any, path: str) -> Iterator[Any]:
        data = f.readall() if hasattr(f, "readall") else f.read()
        rs = Records([bytes(data)], self._compression)
        if rs.fault is not None:
            warnings.warn(f"{path}: {rs.fault['message']} ({rs.fault['check']} at {rs.fault['path']}); its whole records are read", stacklevel=2)
        yield rs.to_arrow()


_READ_ARGS = ("override_num_blocks", "ray_remote_args", "concurrency", "parallelism")


def read_tfrecords(paths: str | list[str], *, compression: str | None = None, **kwargs: Any) -> Any:
    """A ``ray.data.Dataset`` of the records of TFRecord files (a path, a
    folder, or a list of them; any filesystem pyarrow reaches), one row
    per record, one column per feature, as ``pbdecode.records(path).to_arrow()``
    gives them. ``compression``: None (detected), ``"GZIP"`` or ``"ZLIB"``.
    ``override_num_blocks``, ``ray_remote_args`` and ``concurrency`` go to
    ``ray.data.read_datasource``; the other keyword arguments
    (``filesystem``, ``include_paths``, ``partitioning``, ``shuffle``,
    ``file_extensions``, ``ignore_missing_paths``) to the datasource."""
    import ray.data

    read_args = {k: kwargs.pop(k) for k in _READ_ARGS if k in kwargs}
    return ray.data.read_datasource(TFRecordDatasource(paths, compression=compression, **kwargs), **read_args)
