"""TFRecord files as a Spark DataFrame, decoded by pbdecode: Spark's
`binaryFile` source hands each file's bytes to a `mapInArrow` function,
which returns the file's record batches (`pbdecode.records(data).to_arrow()`,
one column per feature). No TensorFlow, every CRC checked.

Spark takes Arrow's `list` and `binary` types, so the batches are cast from
tfx-bsl's large types; the schema comes from one file (or write it). Spark's
`binaryFile` refuses files over 2 GB.

usage: python examples/spark_tfrecords.py FOLDER_OR_GLOB
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import pyarrow as pa

import pbdecode


def small_types(schema: pa.Schema) -> pa.Schema:
    """The schema with large lists and binaries as Spark takes them."""

    def small(t: pa.DataType) -> pa.DataType:
        if pa.types.is_large_list(t):
            return pa.list_(small(t.value_type))
        if pa.types.is_large_binary(t):
            return pa.binary()
        if pa.types.is_null(t):
            return pa.binary()
        return t

    return pa.schema([pa.field(f.name, small(f.type)) for f in schema])


def decoder(schema: pa.Schema) -> Any:
    def decode(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for data in batch.column("content").to_pylist():
                table = pbdecode.records(data).to_arrow()
                # Every column of the schema, null where this file lacks it.
                columns = [
                    table.column(f.name).cast(f.type) if f.name in table.column_names else pa.nulls(table.num_rows, f.type)
                    for f in schema
                ]
                yield from pa.Table.from_arrays(columns, schema=schema).to_batches()

    return decode


def read_tfrecords(spark: Any, path: str, schema: pa.Schema) -> Any:
    from pyspark.sql.pandas.types import from_arrow_schema

    return (
        spark.read.format("binaryFile")
        .load(path)
        .select("content")
        .mapInArrow(decoder(schema), from_arrow_schema(schema))
    )


def main() -> int:
    from pyspark.sql import SparkSession

    path = sys.argv[1]
    spark = SparkSession.builder.master("local[2]").getOrCreate()
    first = spark.read.format("binaryFile").load(path).select("path").first()["path"]
    schema = small_types(pbdecode.records(first.removeprefix("file:")).to_arrow().schema)
    df = read_tfrecords(spark, path, schema)
    df.show(5)
    print(df.count(), "records")
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
