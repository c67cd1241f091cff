//! A laid-out graph written out: the explorer's JSON (`/api/graph`, see
//! docs/json-contract.md), Graphviz DOT and SVG (`decode --graph dot|svg`).
//! The three show the same boxes and edges. JSON goes through the one
//! writer, names in DOT and SVG through `escape`.

use super::layout::{DrawnEdge, Fold, Item, Layout, Placed, Rect};
use super::{End, Graph, Model};
use crate::escape::{dot_string, xml_text};
use crate::json_writer::JsonWriter;
use std::io::{self, Write};

/// The tensor index (the facade's, the explorer's `t=`) of the tensor
/// message at a byte offset.
pub type TensorIndex<'a> = &'a dyn Fn(u64) -> Option<usize>;

fn rect_json(w: &mut JsonWriter<'_>, r: Option<Rect>) -> io::Result<()> {
    match r {
        None => w.null(),
        Some(r) => {
            w.begin_object()?;
            w.member("x", r.x)?;
            w.member("y", r.y)?;
            w.member("w", r.w)?;
            w.member("h", r.h)?;
            w.end_object()
        }
    }
}

fn end_json(w: &mut JsonWriter<'_>, item: Item) -> io::Result<()> {
    w.begin_object()?;
    match item {
        Item::Node(n) => w.member("node", n)?,
        Item::Input(k) => w.member("input", k)?,
        Item::Output(k) => w.member("output", k)?,
        Item::Group(g) => w.member("group", g)?,
    }
    w.end_object()
}

fn placed(layout: &Layout, b: Option<usize>) -> Option<&Placed> {
    b.and_then(|b| layout.boxes.get(b))
}

/// The `graphs` list: every graph of the file.
pub fn graphs_json(w: &mut JsonWriter<'_>, model: &Model) -> io::Result<()> {
    w.begin_array()?;
    for (id, g) in model.graphs.iter().enumerate() {
        w.begin_object()?;
        w.member("id", id)?;
        w.member("kind", g.kind.name())?;
        w.member("name", &g.name)?;
        w.key("owner")?;
        match &g.owner {
            None => w.null()?,
            Some(o) => {
                w.begin_object()?;
                w.member("graph", o.graph)?;
                w.member("node", o.node)?;
                w.member("attribute", &o.attribute)?;
                w.end_object()?;
            }
        }
        w.member("nodes", g.nodes.len())?;
        w.member("inputs", g.inputs.len())?;
        w.member("outputs", g.outputs.len())?;
        w.end_object()?;
    }
    w.end_array()
}

fn port_json(
    w: &mut JsonWriter<'_>,
    g: &Graph,
    k: usize,
    name: &str,
    value: usize,
    b: Option<&Placed>,
) -> io::Result<()> {
    let v = g.values.get(value);
    w.begin_object()?;
    w.member("index", k)?;
    w.member("name", name)?;
    w.member("type", v.map_or("", |v| v.ty.as_str()))?;
    w.member("shape", v.map_or("", |v| v.shape.as_str()))?;
    w.key("box")?;
    rect_json(w, b.map(|b| b.rect))?;
    w.end_object()
}

fn value_name(g: &Graph, value: Option<usize>) -> &str {
    value
        .and_then(|v| g.values.get(v))
        .map_or("", |v| v.name.as_str())
}

/// The graph object of `/api/graph` (`"graph"`), for graph `id` laid out.
pub fn graph_json(
    w: &mut JsonWriter<'_>,
    model: &Model,
    id: usize,
    layout: &Layout,
    tensor_index: TensorIndex<'_>,
) -> io::Result<()> {
    let Some(g) = model.graphs.get(id) else {
        return w.null();
    };
    w.begin_object()?;
    w.member("id", id)?;
    w.member("kind", g.kind.name())?;
    w.member("name", &g.name)?;
    w.key("counts")?;
    w.begin_object()?;
    w.member("nodes", g.nodes.len())?;
    w.member("edges", g.edge_count())?;
    w.member("inputs", g.inputs.len())?;
    w.member("outputs", g.outputs.len())?;
    w.member("groups", layout.groups.len())?;
    w.member("boxes", layout.boxes.len())?;
    w.member("drawn_edges", layout.edges.len())?;
    w.end_object()?;
    w.member("fold", layout.fold.unwrap_or(Fold::None).name())?;
    w.member("width", layout.width)?;
    w.member("height", layout.height)?;
    w.key("inputs")?;
    w.begin_array()?;
    for (k, p) in g.inputs.iter().enumerate() {
        let b = placed(layout, layout.input_box.get(k).copied().flatten());
        port_json(w, g, k, &p.name, p.value, b)?;
    }
    w.end_array()?;
    w.key("outputs")?;
    w.begin_array()?;
    for (k, p) in g.outputs.iter().enumerate() {
        let b = placed(layout, layout.output_box.get(k).copied().flatten());
        port_json(w, g, k, &p.name, p.value, b)?;
    }
    w.end_array()?;
    w.key("nodes")?;
    w.begin_array()?;
    for i in 0..g.nodes.len() {
        node_json(w, g, i, layout, tensor_index)?;
    }
    w.end_array()?;
    w.key("groups")?;
    w.begin_array()?;
    for (k, grp) in layout.groups.iter().enumerate() {
        w.begin_object()?;
        w.member("id", k)?;
        w.member("path", &grp.path)?;
        w.member("name", &grp.name)?;
        w.member("parent", grp.parent)?;
        w.member("nodes", grp.nodes)?;
        w.member("folded", grp.folded)?;
        w.key("box")?;
        // A folded group's box, or an open group's frame.
        rect_json(
            w,
            placed(layout, layout.group_box.get(k).copied().flatten())
                .map(|b| b.rect)
                .or_else(|| layout.group_frame.get(k).copied().flatten()),
        )?;
        w.end_object()?;
    }
    w.end_array()?;
    w.key("edges")?;
    w.begin_array()?;
    for e in &layout.edges {
        edge_json(w, g, e)?;
    }
    w.end_array()?;
    w.end_object()
}

/// One node of the graph object: its facts, weights, attributes, label
/// and box (None when it is inside a folded group).
fn node_json(
    w: &mut JsonWriter<'_>,
    g: &Graph,
    i: usize,
    layout: &Layout,
    tensor_index: TensorIndex<'_>,
) -> io::Result<()> {
    let Some(n) = g.nodes.get(i) else {
        return Ok(());
    };
    let own = placed(layout, layout.node_box.get(i).copied().flatten())
        .filter(|b| b.item == Item::Node(i));
    w.begin_object()?;
    w.member("index", i)?;
    w.member("name", &n.name)?;
    w.member("op", &n.op)?;
    w.member("domain", &n.domain)?;
    w.member("version", n.version)?;
    w.member("kind", n.kind().name())?;
    w.member("group", layout.node_group.get(i).copied().flatten())?;
    for (key, slots) in [("inputs", &n.inputs), ("outputs", &n.outputs)] {
        w.key(key)?;
        w.begin_array()?;
        for s in slots {
            w.begin_object()?;
            w.member("name", value_name(g, s.value))?;
            w.member("formal", &s.formal)?;
            w.member("control", s.control)?;
            w.end_object()?;
        }
        w.end_array()?;
    }
    w.key("weights")?;
    w.begin_array()?;
    for (k, formal, v) in g.weights(i) {
        w.begin_object()?;
        w.member("input", k)?;
        w.member("name", &v.name)?;
        w.member("formal", formal)?;
        w.member("type", &v.ty)?;
        w.member("shape", &v.shape)?;
        w.member(
            "tensor",
            v.weight
                .as_ref()
                .and_then(|t| t.tensor)
                .and_then(tensor_index),
        )?;
        w.end_object()?;
    }
    w.end_array()?;
    w.key("attributes")?;
    w.begin_array()?;
    for a in &n.attributes {
        w.begin_object()?;
        w.member("name", &a.name)?;
        w.member("text", &a.text)?;
        w.member("tensor", a.tensor.and_then(tensor_index))?;
        w.key("tensors")?;
        w.begin_array()?;
        for &t in &a.tensors {
            w.value(tensor_index(t))?;
        }
        w.end_array()?;
        w.key("graphs")?;
        w.begin_array()?;
        for &id in &a.graphs {
            w.value(id)?;
        }
        w.end_array()?;
        w.end_object()?;
    }
    w.end_array()?;
    w.member("doc", &n.doc)?;
    for (key, ids) in [("subgraphs", &n.subgraphs), ("calls", &n.calls)] {
        w.key(key)?;
        w.begin_array()?;
        for id in ids {
            w.value(*id)?;
        }
        w.end_array()?;
    }
    w.key("label")?;
    w.begin_array()?;
    for line in super::layout::node_label(g, i) {
        w.value(&line)?;
    }
    w.end_array()?;
    w.key("box")?;
    rect_json(w, own.map(|b| b.rect))?;
    w.end_object()?;
    Ok(())
}

/// One drawn edge of the graph object: its value and polyline.
fn edge_json(w: &mut JsonWriter<'_>, g: &Graph, e: &DrawnEdge) -> io::Result<()> {
    let v = g.values.get(e.value);
    w.begin_object()?;
    w.member("value", v.map_or("", |v| v.name.as_str()))?;
    w.key("from")?;
    end_json(w, e.from)?;
    w.key("to")?;
    end_json(w, e.to)?;
    w.member("type", v.map_or("", |v| v.ty.as_str()))?;
    w.member("shape", v.map_or("", |v| v.shape.as_str()))?;
    w.member("control", v.is_some_and(|v| v.control))?;
    w.key("points")?;
    w.begin_array()?;
    for &(x, y) in &e.points {
        w.begin_array()?;
        w.value(x)?;
        w.value(y)?;
        w.end_array()?;
    }
    w.end_array()?;
    w.end_object()?;
    Ok(())
}

fn end_index(e: Option<End>) -> Option<usize> {
    match e {
        Some(End::Node(n)) => Some(n),
        _ => None,
    }
}

/// `uses`: for each graph, the value that holds tensor `tensor` (an
/// initializer, a constant's output: its name may differ from the
/// tensor's), else the value named `name`, with its producer node and
/// consumer nodes.
pub fn uses_json(
    w: &mut JsonWriter<'_>,
    model: &Model,
    name: &str,
    tensor: Option<usize>,
    tensor_index: TensorIndex<'_>,
) -> io::Result<()> {
    w.begin_array()?;
    for (id, g) in model.graphs.iter().enumerate() {
        let holds = |v: &&super::ValueInfo| {
            tensor.is_some()
                && v.weight
                    .as_ref()
                    .and_then(|t| t.tensor)
                    .and_then(tensor_index)
                    == tensor
        };
        let Some(v) = g.values.iter().find(holds).or_else(|| g.value_named(name)) else {
            continue;
        };
        w.begin_object()?;
        w.member("graph", id)?;
        w.member("value", &v.name)?;
        w.member("producer", end_index(v.producer))?;
        w.key("consumers")?;
        w.begin_array()?;
        for c in &v.consumers {
            if let End::Node(n) = c {
                w.value(*n)?;
            }
        }
        w.end_array()?;
        w.end_object()?;
    }
    w.end_array()
}

/// The text of an edge: its value's type and shape.
fn edge_text(g: &Graph, e: &DrawnEdge) -> String {
    g.values.get(e.value).map_or_else(String::new, |v| {
        [v.ty.as_str(), v.shape.as_str()]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    })
}

fn item_index(layout: &Layout, item: Item) -> Option<usize> {
    match item {
        Item::Node(n) => layout.node_box.get(n).copied().flatten(),
        Item::Input(k) => layout.input_box.get(k).copied().flatten(),
        Item::Output(k) => layout.output_box.get(k).copied().flatten(),
        Item::Group(k) => layout.group_box.get(k).copied().flatten(),
    }
}

fn item_kind(g: &Graph, item: Item) -> &'static str {
    match item {
        Item::Node(n) => g.nodes.get(n).map_or("other", |n| n.kind().name()),
        Item::Input(_) | Item::Output(_) => "port",
        Item::Group(_) => "group",
    }
}

fn item_fill(g: &Graph, item: Item) -> &'static str {
    match item {
        Item::Node(n) => g.nodes.get(n).map_or("#ffffff", |n| n.kind().fill()),
        Item::Input(_) | Item::Output(_) => "#ffffff",
        Item::Group(_) => "#e8eaf6",
    }
}

/// Graph `g` as Graphviz DOT: a box per drawn box (labelled with its
/// lines), an edge per drawn edge (labelled with type and shape).
pub fn write_dot(out: &mut dyn Write, g: &Graph, layout: &Layout) -> io::Result<()> {
    writeln!(out, "digraph {} {{", dot_string(&[&g.name]))?;
    writeln!(
        out,
        "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];"
    )?;
    writeln!(out, "  edge [fontname=\"Helvetica\", fontsize=8];")?;
    for (i, b) in layout.boxes.iter().enumerate() {
        let lines: Vec<&str> = b.label.iter().map(String::as_str).collect();
        let shape = match b.item {
            Item::Input(_) | Item::Output(_) => ", shape=ellipse",
            Item::Group(_) => ", shape=box3d",
            Item::Node(_) => "",
        };
        writeln!(
            out,
            "  b{i} [label={}, fillcolor=\"{}\"{shape}];",
            dot_string(&lines),
            item_fill(g, b.item)
        )?;
    }
    for e in &layout.edges {
        let (Some(f), Some(t)) = (item_index(layout, e.from), item_index(layout, e.to)) else {
            continue;
        };
        let text = edge_text(g, e);
        let style = if g.values.get(e.value).is_some_and(|v| v.control) {
            ", style=dashed"
        } else {
            ""
        };
        writeln!(
            out,
            "  b{f} -> b{t} [label={}{style}];",
            dot_string(&[&text])
        )?;
    }
    writeln!(out, "}}")
}

/// Graph `g` as an SVG document, drawn where the layout placed it (the
/// page's drawing).
pub fn write_svg(out: &mut dyn Write, g: &Graph, layout: &Layout) -> io::Result<()> {
    writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"11\">",
        w = layout.width,
        h = layout.height
    )?;
    writeln!(
        out,
        "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"6\" markerHeight=\"6\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#555\"/></marker></defs>"
    )?;
    writeln!(out, "<title>{}</title>", xml_text(&g.name))?;
    // Open groups' frames, outer ones first (groups are numbered parents
    // first), under the edges and boxes.
    for (grp, frame) in layout.groups.iter().zip(&layout.group_frame) {
        let Some(r) = frame else { continue };
        writeln!(
            out,
            "<g class=\"frame\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"8\" fill=\"#eef1f8\" fill-opacity=\"0.6\" stroke=\"#9aa3b5\"/><text x=\"{}\" y=\"{}\" fill=\"#4a5468\" font-weight=\"bold\">{}</text></g>",
            r.x,
            r.y,
            r.w,
            r.h,
            r.x + 10,
            r.y + 14,
            xml_text(&grp.name)
        )?;
    }
    for e in &layout.edges {
        let pts: Vec<String> = e.points.iter().map(|(x, y)| format!("{x},{y}")).collect();
        let dash = if g.values.get(e.value).is_some_and(|v| v.control) {
            " stroke-dasharray=\"4 3\""
        } else {
            ""
        };
        let name = g.values.get(e.value).map_or("", |v| v.name.as_str());
        writeln!(
            out,
            "<polyline class=\"edge\" points=\"{}\" fill=\"none\" stroke=\"#555\"{dash} marker-end=\"url(#arrow)\"><title>{}</title></polyline>",
            pts.join(" "),
            xml_text(&format!("{name} {}", edge_text(g, e)))
        )?;
    }
    for b in &layout.boxes {
        let r = b.rect;
        let rx = match b.item {
            Item::Input(_) | Item::Output(_) => r.h / 2,
            _ => 4,
        };
        writeln!(
            out,
            "<g class=\"{}\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"{rx}\" fill=\"{}\" stroke=\"#333\"/>",
            item_kind(g, b.item),
            r.x,
            r.y,
            r.w,
            r.h,
            item_fill(g, b.item)
        )?;
        for (k, line) in b.label.iter().enumerate() {
            let y = r.y + 17 + 14 * i64::try_from(k).unwrap_or(0);
            let weight = if k == 0 { " font-weight=\"bold\"" } else { "" };
            writeln!(
                out,
                "<text x=\"{}\" y=\"{y}\" text-anchor=\"middle\"{weight}>{}</text>",
                r.x + r.w / 2,
                xml_text(line)
            )?;
        }
        writeln!(out, "</g>")?;
    }
    writeln!(out, "</svg>")
}
