"""Graphs and nodes (File.graphs, .graph, .nodes) against the ONNX models'
own messages (`decode --json`); views by default; notebooks' HTML; the
package's hygiene (star import, closed files, hints)."""

from __future__ import annotations

import html
import pickle

import numpy as np
import pytest

import pbdecode
from conftest import FIXTURES, cli_json

MODELS = FIXTURES / "onnx-model"


def onnx_graphs(path):
    """Every graph of a model's JSON (main, subgraphs breadth-first as the
    library walks them, functions), by name: its nodes' (op_type, name,
    domain, inputs, outputs, attribute names)."""
    value = cli_json(path)["value"]
    found = {}
    queue = [value["graph"]]
    for f in value.get("functions", []):
        queue.append({"name": f"{f.get('domain', '')}.{f['name']}", "node": f.get("node", [])})
    while queue:
        g = queue.pop(0)
        nodes = []
        for n in g.get("node", []):
            nodes.append((n.get("op_type", ""), n.get("name", ""), n.get("domain", ""), n.get("input", []), n.get("output", []), [a["name"] for a in n.get("attribute", [])]))
            for a in n.get("attribute", []):
                if "g" in a:
                    queue.append(a["g"])
                queue.extend(a.get("graphs", []))
        found.setdefault(g.get("name", ""), nodes)
    return found


@pytest.mark.parametrize("name", ["nested.onnx", "everything.onnx", "constants.onnx"])
def test_graphs_and_nodes_are_the_models(name):
    want = onnx_graphs(MODELS / name)
    with pbdecode.open(MODELS / name) as f:
        graphs = f.graphs
        assert f.graph is graphs[0] and f.graph.kind == "main"
        assert f.nodes == f.graph.nodes
        for g in graphs:
            assert g.name in want, g.name
            got = [(n.op_type, n.name, n.domain, n.inputs, n.outputs, list(n.attributes)) for n in g.nodes]
            assert got == want[g.name], g.name
        # Every subgraph knows its owner, and its owner's attribute is it.
        for g in graphs:
            if g.kind == "subgraph":
                og, node, attr = g.owner
                # GRAPHS' owner attribute names the element: `graphs[0]`.
                held = node.attributes[attr.split("[")[0]]
                assert g is held or g in held
                assert g in node.subgraphs


def test_tensor_attributes_and_weights_are_the_files_tensors():
    with pbdecode.open(MODELS / "everything.onnx") as f:
        tensors = set(map(id, f.tensors.values()))
        found = 0
        for g in f.graphs:
            for n in g.nodes:
                for v in n.attributes.values():
                    for t in v if isinstance(v, list) else [v]:
                        if isinstance(t, pbdecode.Tensor):
                            assert id(t) in tensors
                            found += 1
            for name, t in g.weights.items():
                assert t is None or t.name == name or t.role in ("initializer", "constant")
        assert found > 0
        value = cli_json(MODELS / "everything.onnx")["value"]
        inits = [t["name"] for t in value["graph"].get("initializer", [])]
        assert set(inits) <= set(f.graph.weights)


def test_files_without_graphs():
    tensor = next(p for p in (FIXTURES / "onnx-tensor").glob("*.pb"))
    with pbdecode.open(tensor) as f:
        assert f.graphs == [] and f.graph is None and f.nodes == []


def unaligned_float_file(tmp_path):
    """A FLOAT TensorProto whose raw_data starts at an odd offset."""
    values = np.arange(12, dtype="<f4")
    raw = values.tobytes()

    def varint(v):
        out = bytearray()
        while v >= 0x80:
            out.append(v & 0x7F | 0x80)
            v >>= 7
        out.append(v)
        return bytes(out)

    for pad in range(8):
        name = b"t" * (1 + pad)
        head = b"\x08\x03\x08\x04\x10\x01" + b"\x42" + varint(len(name)) + name + b"\x4a" + varint(len(raw))
        if len(head) % 4:
            break
    p = tmp_path / "unaligned.pb"
    p.write_bytes(head + raw)
    return p, values.reshape(3, 4)


def test_views_by_default_even_unaligned(tmp_path):
    p, want = unaligned_float_file(tmp_path)
    with pbdecode.open(p) as f:
        t = next(iter(f.tensors.values()))
        a = t.numpy()
        assert not a.flags.aligned and not a.flags.writeable and not a.flags.owndata
        assert np.array_equal(a, want)
        assert np.asarray(t).base is not None
        b = np.require(a, requirements="A")
        assert b.flags.aligned and np.array_equal(b, want)
        c = t.numpy(copy=True)
        assert c.flags.aligned and c.flags.writeable and c.flags.owndata
    # The view outlives the file.
    assert float(a.sum()) == float(want.sum())


def test_star_import_leaves_the_builtin_open_alone():
    ns: dict = {}
    exec("from pbdecode import *", ns)
    assert "open" not in ns
    assert "records" in ns and "events" in ns and "load" in ns


def test_closed_files_say_so():
    path = MODELS / "everything.onnx"
    f = pbdecode.open(path)
    name = next(iter(f.tensors))
    t = f.tensors[name]
    kept = t.numpy()
    f.close()
    with pytest.raises(ValueError, match="closed"):
        t.numpy()
    with pytest.raises(ValueError, match="closed"):
        t.stats()
    with pytest.raises(ValueError, match="closed"):
        f.tensors[name]
    assert kept.size == t.size  # facts and arrays made before stay


def test_a_well_known_other_file_carries_the_hint(tmp_path):
    npy = tmp_path / "x.npy"
    np.save(npy, np.zeros(3))
    with pytest.raises(pbdecode.DecodeError) as e:
        pbdecode.open(npy)
    assert e.value.hint is not None and "numpy.load" in e.value.hint
    assert "this looks like" in str(e.value)
    again = pickle.loads(pickle.dumps(e.value))
    assert again.hint == e.value.hint and again.check == e.value.check
    with pytest.raises(pbdecode.DecodeError) as e2:
        pbdecode.loads(npy.read_bytes())
    assert e2.value.hint == e.value.hint


def test_notebook_html_escapes_and_draws():
    with pbdecode.open(MODELS / "everything.onnx") as f:
        page = f._repr_html_()
        assert "pbdecode.File" in page and "onnx-model" in page
        for t in f.tensors.values():
            h = t._repr_html_()
            assert html.escape(t.name) in h
        pictures = [t for t in f.tensors.values() if "data:image/png;base64," in t._repr_html_()]
        assert pictures, "a 2-D tensor is drawn"
    # A name that is markup is shown as text.
    assert "<script>" not in pbdecode._notebook._table([("<script>", "x")])
    rs = pbdecode.records(FIXTURES / "tf-record" / "examples.tfrecord")
    h = rs._repr_html_()
    assert "4 records" in h and "weights" in h
    d = pbdecode.diff(np.ones(3), np.ones(3))
    assert "passed" in d._repr_html_()


def test_the_png_of_a_picture_reads_back():
    import struct
    import zlib

    data = pbdecode._notebook.png(2, 2, 3, bytes(range(12)))
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    (length,) = struct.unpack(">I", data[8:12])
    ihdr = data[16 : 16 + length]
    assert struct.unpack(">II", ihdr[:8]) == (2, 2)
    idat_at = data.index(b"IDAT")
    (n,) = struct.unpack(">I", data[idat_at - 4 : idat_at])
    raw = zlib.decompress(data[idat_at + 4 : idat_at + 4 + n])
    assert raw == b"\x00" + bytes(range(6)) + b"\x00" + bytes(range(6, 12))
