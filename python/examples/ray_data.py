"""Describe every file of a folder with Ray Data: one row per file (its
path, format, message type, and each tensor's name, data type, dtype, shape,
storage and statistics, or the error that turned the file down), written
as JSON lines.

pbdecode.describe(bytes) is a plain function of a file's bytes, so it is a
map function as it is: Ray reads the files (read_binary_files), the
workers decode them, nothing is shared. Spark's `binaryFile` source with
`mapInPandas` is the same pattern (Spark's reader refuses files over 2 GB).

usage: python examples/ray_data.py FOLDER OUT_FOLDER
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import pbdecode


def describe_row(row: dict[str, Any]) -> dict[str, Any]:
    """One file's row. Tensors and errors are JSON text: their fields vary
    from file to file, which a columnar schema does not hold."""
    # External data is read from the file's folder, as the command reads
    # it (the workers see the same files here; drop base_dir where not).
    d = pbdecode.describe(row["bytes"], base_dir=os.path.dirname(row["path"]))
    return {
        "path": row["path"],
        "format": d["format"],
        "type": d["type"],
        "also": json.dumps(d.get("also", [])),
        "tensors": json.dumps(d["tensors"]),
        "error": json.dumps(d.get("error")),
    }


def describe_folder(folder: str):
    """The dataset of rows, one per file under `folder` (recursively)."""
    import ray.data

    return ray.data.read_binary_files(folder, include_paths=True).map(describe_row)


def main() -> int:
    import ray

    folder, out = sys.argv[1], sys.argv[2]
    ray.init(num_cpus=2, include_dashboard=False)
    describe_folder(folder).write_json(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
