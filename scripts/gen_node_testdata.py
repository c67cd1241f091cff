#!/usr/bin/env python3
"""Writes ONNX's node test data (model.onnx + test_data_set_N/{input,output}_K.pb
for every case of onnx.backend.test.case.node) into OUT, exactly as onnx's
`backend-test-tools generate-data` writes its model tests: each file is the
TensorProto, SequenceProto, MapProto or OptionalProto that the graph's K-th
input or output declares.

usage: scripts/gen_node_testdata.py OUT
"""
import os
import shutil
import sys

from onnx import TensorProto, numpy_helper
from onnx.backend.test.case import node


def write(path, value, vi):
    t = vi.type
    if t.HasField("map_type"):
        data = numpy_helper.from_dict(value, vi.name)
    elif t.HasField("sequence_type"):
        data = numpy_helper.from_list(value, vi.name)
    elif t.HasField("optional_type"):
        data = numpy_helper.from_optional(value, vi.name)
    elif isinstance(value, TensorProto):
        data = value
    else:
        data = numpy_helper.from_array(value, vi.name)
    with open(path, "wb") as f:
        f.write(data.SerializeToString())


def main():
    out = os.path.join(sys.argv[1], "node")
    if os.path.exists(out):
        shutil.rmtree(out)
    cases = node.collect_testcases(None)
    for case in cases:
        d = os.path.join(out, case.name)
        os.makedirs(d)
        with open(os.path.join(d, "model.onnx"), "wb") as f:
            f.write(case.model.SerializeToString())
        g = case.model.graph
        inits = {i.name for i in g.initializer}
        feeds = [vi for vi in g.input if vi.name not in inits]
        for i, (inputs, outputs) in enumerate(case.data_sets):
            ds = os.path.join(d, f"test_data_set_{i}")
            os.makedirs(ds)
            for j, v in enumerate(inputs):
                write(os.path.join(ds, f"input_{j}.pb"), v, feeds[j])
            for j, v in enumerate(outputs):
                write(os.path.join(ds, f"output_{j}.pb"), v, g.output[j])
    print(f"{len(cases)} tests written to {out}")


if __name__ == "__main__":
    main()
