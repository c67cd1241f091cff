#!/usr/bin/env python3
"""Writes the static site's pages (scripts/build-site.sh runs it).

    site_pages.py WEB_DIR OUT

From web/index.html (the explorer's page) it writes OUT/index.html and a
page per format (OUT/onnx-tensor.html, ...): each is the whole explorer,
run by the WebAssembly module in the page, with its welcome text telling
what the format is; a file can be dropped on any of them. Every address in
them is relative and the content policy, a meta tag, lets the page load
only the site's own files: no request leaves the page.
"""

import html
import sys
from pathlib import Path

# 'wasm-unsafe-eval' lets the page compile its WebAssembly module (and
# allows no script eval); blob: is the picture's object URL.
CSP = ("default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; "
       "img-src 'self' blob: data:; style-src 'self'; connect-src 'self'; "
       "base-uri 'none'; form-action 'none'")

LIMIT = ("The page holds the files dropped on it in its WebAssembly memory, at most "
         "4 GiB in all (less some room for decoding): a bigger file is refused; "
         "<code>decode serve</code> opens it.")

# (file, title, what it is): the formats the explorer tells apart, in the
# order detection tries them.
FORMATS = [
    ("onnx-tensor", "ONNX tensor",
     "<p>A serialized <code>onnx.TensorProto</code> (<code>.pb</code>), as ONNX's test folders "
     "hold their inputs and outputs: a name, a data type (all 28 of them, float8, float4 and "
     "int4 included), dims and the values, in <code>raw_data</code> (little-endian, row-major) "
     "or in the typed field of the data type, or in an external file.</p>"
     "<p>The page shows the type and shape, every value in a grid (a slice at a time for "
     "more than two axes), statistics and a histogram, and the tensor as a picture when "
     "its shape is one of an image (CHW or HWC).</p>"),
    ("onnx-sequence", "ONNX sequence, map and optional",
     "<p>The containers of <code>onnx-data.proto</code>: a <code>SequenceProto</code> of "
     "tensors, sparse tensors, sequences, maps or optionals; a <code>MapProto</code> of "
     "keys to a sequence of values; an <code>OptionalProto</code> holding one element or "
     "none. Each element opens as a tensor of its own.</p>"),
    ("onnx-sparse-tensor", "ONNX sparse tensor",
     "<p>A <code>SparseTensorProto</code>: the non-zero <code>values</code>, their "
     "<code>indices</code> (one per value, or one per value and axis) and the dense "
     "<code>dims</code>. The text view shows each value with its coordinates and the dense "
     "tensor they make.</p>"),
    ("onnx-model", "ONNX model",
     "<p>A <code>ModelProto</code> (<code>.onnx</code>): IR version, opsets, producer and "
     "metadata; the graph's inputs and outputs with their types, its nodes one line each "
     "(If, Loop and Scan subgraphs under their node), and its initializers, each of which "
     "opens as a tensor. Initializers kept in external data files are read when those "
     "files are dropped with the model.</p>"),
    ("tf-saved-model", "TensorFlow SavedModel",
     "<p>A <code>saved_model.pb</code>: its meta graphs and tag-sets, the signatures with "
     "each input and output (dtype, shape, tensor), the object graph's variables and "
     "functions, the function library and the graph, as "
     "<code>saved_model_cli show --all</code> starts. Const tensors open as tensors.</p>"),
    ("tf-graph-def", "TensorFlow GraphDef",
     "<p>A frozen graph (<code>GraphDef</code>): its versions, one line per node "
     "(<code>name = Op(inputs) {attrs} @device</code>) and its functions; the weights of a "
     "frozen graph are its Const nodes, each of which opens as a tensor.</p>"),
    ("protobuf", "Any protobuf, without a schema",
     "<p>A file that is none of the above is read as protobuf without a schema: the field "
     "tree, level by level, with each field's number, wire type, byte range and the ways "
     "its bytes read (a nested message, text, packed numbers). Files that are not protobuf "
     "at all (NumPy, JPEG, PNG, JSON, TFLite, ...) are named as what they look like.</p>"),
]


def welcome(body: str) -> str:
    return (
        '<section id="welcome" class="welcome">\n'
        '      <div class="drop-target">\n'
        '        <img src="icon.svg" alt="" width="56" height="56">\n'
        f"{body}\n"
        '        <p>Drop a file anywhere on this page, or <button id="pick2" class="btn primary" '
        'type="button">pick a file</button>. It is read in this page by the WebAssembly build of '
        "the <code>decode</code> command's library: no byte of it leaves the browser.</p>\n"
        f'        <p class="muted">{LIMIT}</p>\n'
        f'        <p class="muted formats">The formats: {format_links()}.</p>\n'
        "      </div>\n"
        "    </section>"
    )


def format_links() -> str:
    links = ['<a href="index.html">all</a>']
    links += [f'<a href="{f}.html">{html.escape(title)}</a>' for f, title, _ in FORMATS]
    return ", ".join(links)


def page(template: str, title: str, body: str) -> str:
    start = template.index('<section id="welcome"')
    end = template.index("</section>", start) + len("</section>")
    out = template[:start] + welcome(body) + template[end:]
    head = (
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="pbdecode-backend" content="wasm">'
    )
    out = out.replace('<meta name="pbdecode-token" content="{{TOKEN}}">', head)
    out = out.replace("<title>pbdecode explorer</title>", f"<title>{html.escape(title)}</title>")
    # Every address relative, so that the site works under any path (the
    # modules import one another by relative addresses).
    for name in ("icon.svg", "app.css", "main.js"):
        out = out.replace(f'"/{name}"', f'"{name}"')
    assert "{{" not in out and '"/' not in out, "a placeholder or an absolute address is left"
    return out


def main() -> None:
    web, out = Path(sys.argv[1]), Path(sys.argv[2])
    template = (web / "index.html").read_text()
    index = (
        "        <h1>Drop a <code>.pb</code>, <code>.onnx</code> or <code>saved_model.pb</code> file</h1>\n"
        '        <p class="muted">ONNX tensors, sequences, maps and models; TensorFlow SavedModels '
        "and GraphDefs; any protobuf without a schema. Detection, values, statistics and pictures "
        "come from the same code as the <code>decode</code> command.</p>"
    )
    (out / "index.html").write_text(page(template, "pbdecode explorer", index))
    for name, title, text in FORMATS:
        body = f"        <h1>{html.escape(title)}</h1>\n        {text}"
        (out / f"{name}.html").write_text(page(template, f"{title} - pbdecode explorer", body))


if __name__ == "__main__":
    main()
