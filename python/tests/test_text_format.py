"""Files in protobuf's text format through the package: read as the
binary form of their message (the same tensors and values), `File.syntax`
saying which, and an error placed at its line and column."""

from __future__ import annotations

import numpy as np
import pytest

import pbdecode


def test_a_text_tensor_reads_as_its_binary_form(tmp_path):
    text = tmp_path / "x.pbtxt"
    text.write_text('dims: 2\ndims: 2\ndata_type: 1\nname: "w"\nfloat_data: [1, 2.5, -inf, nan]\n')
    f = pbdecode.open(text)
    assert (f.format, f.type, f.syntax) == ("onnx-tensor", "onnx.TensorProto", "text")
    a = f.tensors["w"].numpy()
    assert a.shape == (2, 2) and a.dtype == np.float32
    assert a[0, 0] == 1.0 and a[0, 1] == 2.5 and np.isneginf(a[1, 0]) and np.isnan(a[1, 1])


def test_a_binary_file_says_binary(tmp_path):
    binary = tmp_path / "x.pb"
    # dims 1, data_type FLOAT, float_data [1.0] packed.
    binary.write_bytes(bytes([8, 1, 16, 1, 34, 4, 0, 0, 128, 63]))
    assert pbdecode.open(binary).syntax == "binary"


def test_an_error_names_its_line_and_column(tmp_path):
    text = tmp_path / "graph.pbtxt"
    text.write_text('node {\n  name: "x"\n  op: "Const"\n  bogus: 1\n}\n')
    with pytest.raises(pbdecode.DecodeError) as caught:
        pbdecode.open(text)
    e = caught.value
    assert (e.check, e.line, e.column) == ("field", 4, 3)
    assert e.path == "GraphDef.node[0]"
    assert e.to_dict()["line"] == 4
    assert "not a field of tensorflow.NodeDef" in e.message
