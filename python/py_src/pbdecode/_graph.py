"""A model's graphs and nodes (``File.graphs``, ``File.graph``,
``File.nodes``): what the explorer's Graph tab reads, from the library."""

from __future__ import annotations

from typing import Any, NamedTuple


class Node(NamedTuple):
    """One node: ``op_type``, ``name``, ``domain``, its input and output
    value names (a TensorFlow control input as ``^name``; an omitted
    optional input as ``""``), its attributes by name (a tensor as a
    ``Tensor``, a list of tensors as a list, a subgraph as a ``Graph``,
    GRAPHS as a list of them, anything else as the text ``decode`` prints),
    the subgraphs its attributes hold and the functions it calls."""

    name: str
    op_type: str
    domain: str
    inputs: list[str]
    outputs: list[str]
    attributes: dict[str, Any]
    subgraphs: list[Graph]
    calls: list[Graph]
    version: int | None
    doc: str


class Graph:
    """A graph of a model: ``kind`` (``main``, ``subgraph``, ``function``),
    ``name``, ``nodes``, graph ``inputs`` and ``outputs`` (value names),
    ``weights`` (value name -> ``Tensor``: initializers, TensorFlow Const
    values), and for a subgraph its ``owner`` (graph, node, attribute)."""

    def __init__(self, kind: str, name: str, inputs: list[str], outputs: list[str]):
        self.kind = kind
        self.name = name
        self.inputs = inputs
        self.outputs = outputs
        self.nodes: list[Node] = []
        self.weights: dict[str, Any] = {}
        self.owner: tuple[Graph, Node, str] | None = None

    def __repr__(self) -> str:
        return f"<pbdecode.Graph {self.kind} {self.name!r}: {len(self.nodes)} nodes>"


def build(raw: list[dict[str, Any]], tensors: list[Any]) -> list[Graph]:
    """Graphs from the native module's dicts, tensors by their index."""
    graphs = [Graph(g["kind"], g["name"], list(g["inputs"]), list(g["outputs"])) for g in raw]

    def tensor(i: int | None) -> Any:
        return None if i is None or i >= len(tensors) else tensors[i]

    for g, d in zip(graphs, raw):
        g.weights = {name: tensor(i) for name, i in d["weights"].items()}
        for n in d["nodes"]:
            attrs: dict[str, Any] = {}
            for name, text, t, ts, gs in n["attributes"]:
                if t is not None:
                    attrs[name] = tensor(t)
                elif ts:
                    attrs[name] = [tensor(i) for i in ts]
                elif gs:
                    sub = [graphs[i] for i in gs if i < len(graphs)]
                    attrs[name] = sub[0] if len(sub) == 1 else sub
                else:
                    attrs[name] = text
            g.nodes.append(
                Node(
                    n["name"], n["op_type"], n["domain"], list(n["inputs"]), list(n["outputs"]), attrs,
                    [graphs[i] for i in n["subgraphs"] if i < len(graphs)],
                    [graphs[i] for i in n["calls"] if i < len(graphs)],
                    n["version"], n["doc"],
                )  # fmt: skip
            )
    for g, d in zip(graphs, raw):
        if d["owner"] is not None:
            gi, ni, attr = d["owner"]
            if gi < len(graphs) and ni < len(graphs[gi].nodes):
                g.owner = (graphs[gi], graphs[gi].nodes[ni], attr)
    return graphs
