//! Models as graphs (`src/graph/`): every model fixture's graphs as the
//! explorer's `/api/graph` answers them (a compact text of graphs, nodes and
//! edges pinned per fixture, the layout checked: boxes apart, edges from
//! box to box, counts), `decode --graph dot` accepted by Graphviz's `dot`
//! with the endpoint's boxes and edges, and models built here: formal
//! names and weights, name-scope groups folded, a TensorFlow loop, deep
//! subgraphs, a 20,000-node model.
//!
//! What this suite checks, in full: every model fixture's graphs as `/api/graph` answers them,
//! pinned as compact text (nodes with formal names, weights, attributes,
//! subgraphs, calls, groups; edges with types and shapes), the layout
//! checked (boxes apart and inside the drawing, every edge from a side of
//! its producer's box to its consumer's, the counts those of the lists);
//! Graphviz's `dot` reading every `--graph dot` output and finding the
//! endpoint's boxes and edges (the test fails when `dot` is missing),
//! `--graph svg` drawing as many; models built in the test: Conv's formal
//! names and weights, folding, a TensorFlow loop and control edges, 20
//! nested subgraphs, 20,000 nodes, refusals and hostile names.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use crate::common::{self, Msg};
use pbdecode::graph::query::{Query, QueryError};
use serde_json::Value;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn fixtures_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Every fixture that has a graph (an ONNX model, a TensorFlow GraphDef or
/// SavedModel), by its path under tests/fixtures.
fn model_fixtures() -> Vec<String> {
    let mut files = Vec::new();
    let mut stack = vec![fixtures_root()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p);
            }
        }
    }
    let mut out: Vec<String> = files
        .into_iter()
        .filter(|p| {
            pbdecode::open(p).is_ok_and(|d| {
                matches!(
                    d.format().id,
                    "onnx-model" | "tf-graph-def" | "tf-saved-model"
                )
            })
        })
        .map(|p| {
            p.strip_prefix(fixtures_root())
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect();
    out.sort();
    out
}

fn answer(doc: &pbdecode::Document, q: Query<'_>) -> Value {
    let body = doc.graph_json(&q).unwrap();
    let text = String::from_utf8(body).unwrap();
    assert!(text.ends_with('\n') && text.matches('\n').count() == 1);
    common::json::value(&text).unwrap()
}

fn graph_of(doc: &pbdecode::Document, id: usize, fold: &str) -> Value {
    let id = id.to_string();
    answer(
        doc,
        Query {
            graph: Some(&id),
            fold: Some(fold),
            ..Query::default()
        },
    )
}

fn s(v: &Value) -> &str {
    v.as_str().unwrap_or_else(|| panic!("not a string: {v}"))
}

fn n(v: &Value) -> i64 {
    v.as_i64().unwrap_or_else(|| panic!("not an integer: {v}"))
}

#[derive(Debug, Clone, Copy)]
struct Rect {
    x: i64,
    y: i64,
    w: i64,
    h: i64,
}

fn rect(v: &Value) -> Option<Rect> {
    if v.is_null() {
        return None;
    }
    Some(Rect {
        x: n(&v["x"]),
        y: n(&v["y"]),
        w: n(&v["w"]),
        h: n(&v["h"]),
    })
}

/// The box an edge end names.
fn end_rect(g: &Value, end: &Value) -> Rect {
    let (list, key) = if let Some(k) = end.get("node") {
        ("nodes", k)
    } else if let Some(k) = end.get("input") {
        ("inputs", k)
    } else if let Some(k) = end.get("output") {
        ("outputs", k)
    } else {
        ("groups", &end["group"])
    };
    let item = &g[list][n(key) as usize];
    rect(&item["box"]).unwrap_or_else(|| panic!("{list} {key}: no box"))
}

/// The layout's promises: boxes of positive size inside the drawing, none
/// overlapping another; each open group's frame inside the drawing, around
/// every box of its members and meeting no other box or frame but those it
/// holds or is held by; every edge a polyline from a side of its
/// producer's box to a side of its consumer's; the counts those of the
/// lists. Returns the boxes drawn.
fn check_layout(name: &str, g: &Value) -> usize {
    let mut boxes: Vec<Rect> = Vec::new();
    for list in ["inputs", "outputs", "nodes"] {
        boxes.extend(
            g[list]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|i| rect(&i["box"])),
        );
    }
    let groups = g["groups"].as_array().unwrap();
    boxes.extend(
        groups
            .iter()
            .filter(|gr| gr["folded"] == true)
            .filter_map(|gr| rect(&gr["box"])),
    );
    check_frames(name, g);
    let (width, height) = (n(&g["width"]), n(&g["height"]));
    for b in &boxes {
        assert!(b.w > 0 && b.h > 0, "{name}: {b:?}");
        assert!(
            b.x >= 0 && b.y >= 0 && b.x + b.w <= width && b.y + b.h <= height,
            "{name}: {b:?} outside {width}x{height}"
        );
    }
    // Boxes whose rows overlap, in clusters; within one, apart in x.
    boxes.sort_by_key(|b| (b.y, b.x));
    let mut i = 0;
    while i < boxes.len() {
        let mut bottom = boxes[i].y + boxes[i].h;
        let mut j = i + 1;
        while j < boxes.len() && boxes[j].y < bottom {
            bottom = bottom.max(boxes[j].y + boxes[j].h);
            j += 1;
        }
        let mut row: Vec<Rect> = boxes[i..j].to_vec();
        row.sort_by_key(|b| b.x);
        for pair in row.windows(2) {
            assert!(
                pair[0].x + pair[0].w <= pair[1].x,
                "{name}: boxes overlap: {:?} {:?}",
                pair[0],
                pair[1]
            );
        }
        i = j;
    }
    let on_side = |p: &Value, r: Rect| {
        let (x, y) = (n(&p[0]), n(&p[1]));
        (y == r.y || y == r.y + r.h) && x >= r.x && x <= r.x + r.w
    };
    let edges = g["edges"].as_array().unwrap();
    for e in edges {
        let pts = e["points"].as_array().unwrap();
        assert!(pts.len() >= 2, "{name}: {e}");
        let (from, to) = (end_rect(g, &e["from"]), end_rect(g, &e["to"]));
        assert!(
            on_side(&pts[0], from),
            "{name}: {e} does not start on {from:?}"
        );
        assert!(
            on_side(pts.last().unwrap(), to),
            "{name}: {e} does not end on {to:?}"
        );
    }
    let counts = &g["counts"];
    assert_eq!(
        n(&counts["nodes"]) as usize,
        g["nodes"].as_array().unwrap().len()
    );
    assert_eq!(
        n(&counts["inputs"]) as usize,
        g["inputs"].as_array().unwrap().len()
    );
    assert_eq!(
        n(&counts["outputs"]) as usize,
        g["outputs"].as_array().unwrap().len()
    );
    assert_eq!(
        n(&counts["groups"]) as usize,
        g["groups"].as_array().unwrap().len()
    );
    assert_eq!(n(&counts["boxes"]) as usize, boxes.len(), "{name}");
    assert_eq!(n(&counts["drawn_edges"]) as usize, edges.len(), "{name}");
    boxes.len()
}

/// Open groups' frames: around their members' boxes (nodes, folded
/// subgroups, frames of open subgroups), apart from every other box and
/// frame. A group is folded, shown open with a frame, or inside a folded
/// group with neither.
fn check_frames(name: &str, g: &Value) {
    let groups = g["groups"].as_array().unwrap();
    let parent = |k: usize| groups[k]["parent"].as_u64().map(|p| p as usize);
    // Whether group `k` is inside group `a` (or is it).
    let within = |mut k: usize, a: usize| loop {
        if k == a {
            return true;
        }
        match parent(k) {
            Some(p) => k = p,
            None => return false,
        }
    };
    let meets =
        |a: Rect, b: Rect| a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
    let inside = |a: Rect, f: Rect| {
        a.x >= f.x && a.y >= f.y && a.x + a.w <= f.x + f.w && a.y + a.h <= f.y + f.h
    };
    // Every box with the innermost group it is drawn in (None: the graph).
    let mut drawn: Vec<(Rect, Option<usize>)> = Vec::new();
    for list in ["inputs", "outputs"] {
        for p in g[list].as_array().unwrap() {
            drawn.extend(rect(&p["box"]).map(|r| (r, None)));
        }
    }
    for node in g["nodes"].as_array().unwrap() {
        let grp = node["group"].as_u64().map(|k| k as usize);
        drawn.extend(rect(&node["box"]).map(|r| (r, grp)));
    }
    for (k, gr) in groups.iter().enumerate() {
        if gr["folded"] == true {
            drawn.extend(rect(&gr["box"]).map(|r| (r, parent(k))));
        }
    }
    let frames: Vec<(usize, Rect)> = groups
        .iter()
        .enumerate()
        .filter(|(_, gr)| gr["folded"] == false)
        .filter_map(|(k, gr)| rect(&gr["box"]).map(|r| (k, r)))
        .collect();
    let (width, height) = (n(&g["width"]), n(&g["height"]));
    for &(k, f) in &frames {
        assert!(
            f.x >= 0 && f.y >= 0 && f.x + f.w <= width && f.y + f.h <= height,
            "{name}: frame {k} {f:?} outside"
        );
        for &(r, grp) in &drawn {
            let member = grp.is_some_and(|m| within(m, k));
            if member {
                assert!(
                    inside(r, f),
                    "{name}: {r:?} of group {k} outside its frame {f:?}"
                );
            } else {
                assert!(
                    !meets(r, f),
                    "{name}: {r:?} not of group {k} meets its frame {f:?}"
                );
            }
        }
        for &(j, o) in &frames {
            if j == k || within(j, k) || within(k, j) {
                continue;
            }
            assert!(!meets(o, f), "{name}: frames {k} {f:?} and {j} {o:?} meet");
        }
        // Its parent's frame holds it.
        if let Some(p) = parent(k) {
            let pf = frames.iter().find(|(j, _)| *j == p).map(|(_, r)| *r);
            assert!(
                pf.is_some_and(|pf| inside(f, pf)),
                "{name}: frame {k} outside its parent's"
            );
        }
    }
}

/// Edges counted from the nodes' and ports' value names alone (no control
/// inputs): a value read by a node or a graph output that a node or a
/// graph input makes.
fn edges_by_names(g: &Value) -> usize {
    let mut made = std::collections::HashSet::new();
    for i in g["inputs"].as_array().unwrap() {
        made.insert(s(&i["name"]).to_string());
    }
    for node in g["nodes"].as_array().unwrap() {
        for o in node["outputs"].as_array().unwrap() {
            made.insert(s(&o["name"]).to_string());
        }
    }
    let mut count = 0;
    for node in g["nodes"].as_array().unwrap() {
        // A node reading a value in two inputs is one edge.
        let mut read = std::collections::HashSet::new();
        for i in node["inputs"].as_array().unwrap() {
            let name = s(&i["name"]);
            count += usize::from(!name.is_empty() && made.contains(name) && read.insert(name));
        }
    }
    for o in g["outputs"].as_array().unwrap() {
        count += usize::from(made.contains(s(&o["name"])));
    }
    count
}

fn slot_text(v: &Value) -> String {
    let mut t = s(&v["name"]).to_string();
    if !s(&v["formal"]).is_empty() {
        t = format!("{}={t}", s(&v["formal"]));
    }
    if v["control"].as_bool() == Some(true) {
        t.push_str(" (control)");
    }
    t
}

fn end_text(v: &Value) -> String {
    let (k, i) = v.as_object().unwrap().iter().next().unwrap();
    format!("{k} {i}")
}

/// The graph as compact text: its entry, ports, nodes (op, kind, version,
/// group, slots, weights, attributes, subgraphs, calls, label) and edges.
fn graph_text(out: &mut String, entry: &Value, g: &Value) {
    writeln!(
        out,
        "graph {} {} {:?} owner={}",
        entry["id"],
        s(&entry["kind"]),
        s(&entry["name"]),
        entry["owner"]
    )
    .unwrap();
    writeln!(out, "  counts {}", g["counts"]).unwrap();
    for (list, what) in [("inputs", "input"), ("outputs", "output")] {
        for p in g[list].as_array().unwrap() {
            writeln!(
                out,
                "  {what} {} {:?} {} {}",
                p["index"],
                s(&p["name"]),
                s(&p["type"]),
                s(&p["shape"])
            )
            .unwrap();
        }
    }
    for grp in g["groups"].as_array().unwrap() {
        writeln!(
            out,
            "  group {} {:?} parent={} nodes={} folded={}",
            grp["id"],
            s(&grp["path"]),
            grp["parent"],
            grp["nodes"],
            grp["folded"]
        )
        .unwrap();
    }
    for node in g["nodes"].as_array().unwrap() {
        let list = |key: &str| -> String {
            node[key]
                .as_array()
                .unwrap()
                .iter()
                .map(slot_text)
                .collect::<Vec<_>>()
                .join(", ")
        };
        let op = if s(&node["domain"]).is_empty() {
            s(&node["op"]).to_string()
        } else {
            format!("{}.{}", s(&node["domain"]), s(&node["op"]))
        };
        writeln!(
            out,
            "  [{}] {op} v{} {} {:?} group={}: ({}) -> ({})",
            node["index"],
            node["version"],
            s(&node["kind"]),
            s(&node["name"]),
            node["group"],
            list("inputs"),
            list("outputs"),
        )
        .unwrap();
        for w in node["weights"].as_array().unwrap() {
            writeln!(
                out,
                "      weight {} {:?} {} {} {} tensor={}",
                w["input"],
                s(&w["name"]),
                s(&w["formal"]),
                s(&w["type"]),
                s(&w["shape"]),
                w["tensor"]
            )
            .unwrap();
        }
        for a in node["attributes"].as_array().unwrap() {
            writeln!(out, "      attr {} tensor={}", s(&a["text"]), a["tensor"]).unwrap();
        }
        if !s(&node["doc"]).is_empty() {
            writeln!(out, "      doc {:?}", s(&node["doc"])).unwrap();
        }
        for key in ["subgraphs", "calls"] {
            if !node[key].as_array().unwrap().is_empty() {
                writeln!(out, "      {key} {}", node[key]).unwrap();
            }
        }
        writeln!(out, "      label {}", node["label"]).unwrap();
    }
    for e in g["edges"].as_array().unwrap() {
        writeln!(
            out,
            "  edge {:?}: {} -> {} {} {}{}",
            s(&e["value"]),
            end_text(&e["from"]),
            end_text(&e["to"]),
            s(&e["type"]),
            s(&e["shape"]),
            if e["control"].as_bool() == Some(true) {
                " (control)"
            } else {
                ""
            }
        )
        .unwrap();
    }
}

fn snap(name: &str, text: &str) {
    crate::common::snapshot_settings().bind(|| {
        insta::assert_snapshot!(format!("graph__{name}"), text);
    });
}

fn snapshot_name(rel: &str) -> String {
    rel.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// Every model fixture: each graph's answer (folded as `auto` and as
/// `none`) laid out as promised and pinned as text; the edges those the
/// ONNX value names imply.
#[test]
fn every_model_fixture_graph() {
    let fixtures = model_fixtures();
    assert!(fixtures.len() >= 10, "model fixtures found: {fixtures:?}");
    for rel in &fixtures {
        let doc = pbdecode::open(fixtures_root().join(rel)).unwrap();
        let first = graph_of(&doc, 0, "auto");
        assert_eq!(first["format"], doc.format().id);
        let entries = first["graphs"].as_array().unwrap().clone();
        assert!(!entries.is_empty(), "{rel}");
        let mut text = String::new();
        for (id, entry) in entries.iter().enumerate() {
            assert_eq!(n(&entry["id"]) as usize, id);
            let g = graph_of(&doc, id, "none");
            assert_eq!(g["graphs"], first["graphs"]);
            let g = &g["graph"];
            check_layout(&format!("{rel} graph {id}"), g);
            check_layout(
                &format!("{rel} graph {id} auto"),
                &graph_of(&doc, id, "auto")["graph"],
            );
            assert_eq!(n(&entry["nodes"]), n(&g["counts"]["nodes"]));
            // Nothing folded: every edge counted is drawn.
            assert_eq!(
                n(&g["counts"]["edges"]),
                n(&g["counts"]["drawn_edges"]),
                "{rel} graph {id}"
            );
            if doc.format().id == "onnx-model" {
                assert_eq!(
                    n(&g["counts"]["edges"]) as usize,
                    edges_by_names(g),
                    "{rel} graph {id}"
                );
            }
            graph_text(&mut text, entry, g);
        }
        snap(&snapshot_name(rel), &text);
    }
}

/// Runs Graphviz's `dot` with `-T{format}` on `dot` (the test fails when
/// `dot` is missing: `apt-get install graphviz`), which must accept it
/// without a word; its output.
#[cfg(feature = "cli")]
fn graphviz(format: &str, dot: &str) -> String {
    let mut child = Command::new("dot")
        .arg(format!("-T{format}"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("Graphviz's dot is needed by this test: apt-get install graphviz");
    let mut stdin = child.stdin.take().unwrap();
    let input = dot.to_string();
    // Written from another thread so a large output cannot block the pipe.
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        stdin.write_all(input.as_bytes()).unwrap();
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "dot said {}\n{dot}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The nodes and edges Graphviz read from `dot` (its plain output lists
/// each on a line of its own).
#[cfg(feature = "cli")]
fn graphviz_counts(dot: &str) -> (i64, i64) {
    let plain = graphviz("plain", dot);
    let count = |kind: &str| plain.lines().filter(|l| l.starts_with(kind)).count() as i64;
    (count("node "), count("edge "))
}

/// `decode --graph dot` of every graph of every model fixture is accepted
/// by Graphviz (`dot -Tsvg`; the test fails when `dot` is missing:
/// `apt-get install graphviz`), with as many boxes and edges as the
/// endpoint draws; `--graph svg` draws the same.
#[cfg(feature = "cli")]
#[test]
fn graphviz_accepts_every_dot_output() {
    for rel in model_fixtures() {
        let path = fixtures_root().join(&rel);
        let doc = pbdecode::open(&path).unwrap();
        let graphs = graph_of(&doc, 0, "auto")["graphs"]
            .as_array()
            .unwrap()
            .len();
        for id in 0..graphs {
            let g = graph_of(&doc, id, "auto");
            let counts = &g["graph"]["counts"];
            let id_text = id.to_string();
            let run = |format: &str| {
                let out = Command::new(env!("CARGO_BIN_EXE_decode"))
                    .args(["--graph", format, "--graph-id", &id_text])
                    .arg(&path)
                    .output()
                    .unwrap();
                assert!(
                    out.status.success(),
                    "{rel} {id}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                String::from_utf8(out.stdout).unwrap()
            };
            let dot = run("dot");
            assert_eq!(
                graphviz_counts(&dot),
                (n(&counts["boxes"]), n(&counts["drawn_edges"])),
                "{rel} {id}"
            );
            assert!(graphviz("svg", &dot).contains("<svg"));
            let svg = run("svg");
            assert!(svg.starts_with("<svg ") && svg.trim_end().ends_with("</svg>"));
            // A group per box, and one per open group's frame.
            let frames = svg.matches("<g class=\"frame\">").count();
            assert_eq!(
                (svg.matches("<g class=").count() - frames) as i64,
                n(&counts["boxes"]),
                "{rel} {id}"
            );
            let open = g["graph"]["groups"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|gr| gr["folded"] == false && !gr["box"].is_null())
                .count();
            assert_eq!(frames, open, "{rel} {id}");
            assert_eq!(
                svg.matches("<polyline ").count() as i64,
                n(&counts["drawn_edges"]),
                "{rel} {id}"
            );
        }
    }
}

/// `decode --graph dot` of two fixtures, as written.
#[cfg(feature = "cli")]
#[test]
fn dot_output_snapshots() {
    for rel in ["onnx-model/constants.onnx", "tf/graph_all_forms.pb"] {
        let out = Command::new(env!("CARGO_BIN_EXE_decode"))
            .args(["--graph", "dot"])
            .arg(fixtures_root().join(rel))
            .output()
            .unwrap();
        assert!(out.status.success());
        snap(
            &format!("dot_{}", snapshot_name(rel)),
            &String::from_utf8(out.stdout).unwrap(),
        );
    }
}

// ------------------------------------------------------ models built here

/// A ValueInfoProto: name, FLOAT tensor of these dims.
fn value_info(name: &str, dims: &[u64]) -> Msg {
    let mut shape = Msg::new();
    for &d in dims {
        shape = shape.message(1, &Msg::new().varint(1, d));
    }
    let tensor_type = Msg::new().varint(1, 1).message(2, &shape);
    Msg::new()
        .string(1, name)
        .message(2, &Msg::new().message(1, &tensor_type))
}

fn node(op: &str, name: &str, inputs: &[&str], outputs: &[&str]) -> Msg {
    let mut m = Msg::new();
    for i in inputs {
        m = m.string(1, i);
    }
    for o in outputs {
        m = m.string(2, o);
    }
    m.string(3, name).string(4, op)
}

/// A ModelProto (opset 13) of `graph`.
fn model(graph: &Msg) -> Vec<u8> {
    let opset = Msg::new().string(1, "").varint(2, 13);
    Msg::new()
        .varint(1, 8)
        .message(8, &opset)
        .message(7, graph)
        .buf
}

fn open_bytes(bytes: Vec<u8>) -> pbdecode::Document {
    pbdecode::read(bytes).unwrap()
}

/// Conv's inputs named by ONNX's schema (X, W, B), its initializers its
/// weights with their shapes (`W<16x3x3x3> B<16>`) and their tensor
/// indexes; the op's version from the opset import; where a weight is
/// used, by tensor and by value name.
#[test]
fn formal_names_weights_and_uses() {
    let w = common::build::onnx_f32("conv.weight", &[16, 3, 3, 3], &[0.5; 432]);
    let b = common::build::onnx_f32("conv.bias", &[16], &[0.25; 16]);
    let graph = Msg::new()
        .message(
            1,
            &node(
                "Conv",
                "/stem/conv/Conv",
                &["x", "conv.weight", "conv.bias"],
                &["y"],
            ),
        )
        .message(1, &node("Relu", "/stem/act/Relu", &["y"], &["z"]))
        .string(2, "g")
        .len_field(5, &w)
        .len_field(5, &b)
        .message(11, &value_info("x", &[1, 3, 8, 8]))
        .message(12, &value_info("z", &[1, 16, 6, 6]));
    let doc = open_bytes(model(&graph));
    let g = &graph_of(&doc, 0, "none")["graph"];
    let conv = &g["nodes"][0];
    assert_eq!(conv["version"], 13);
    assert_eq!(conv["kind"], "conv");
    let formals: Vec<&str> = conv["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| s(&i["formal"]))
        .collect();
    assert_eq!(formals, ["X", "W", "B"]);
    assert_eq!(conv["outputs"][0]["formal"], "Y");
    assert_eq!(
        conv["label"],
        serde_json::json!(["Conv", "W<16x3x3x3> B<16>"])
    );
    let weights = conv["weights"].as_array().unwrap();
    assert_eq!(weights.len(), 2);
    let tensors = doc.tensors();
    for w in weights {
        let t = n(&w["tensor"]) as usize;
        assert_eq!(tensors[t].name, s(&w["name"]));
    }
    assert_eq!(g["nodes"][1]["kind"], "activation");
    // y: Conv -> Relu; z: Relu -> the output box; x: the input box -> Conv.
    assert_eq!(n(&g["counts"]["edges"]), 3);
    check_layout("conv", g);
    // One group, /stem, of both nodes (its subgroups hold one node each).
    assert_eq!(g["groups"].as_array().unwrap().len(), 1);
    assert_eq!(g["groups"][0]["path"], "/stem");
    let weight_index = doc
        .tensors()
        .iter()
        .position(|t| t.name == "conv.weight")
        .unwrap();
    let t = weight_index.to_string();
    let uses = answer(
        &doc,
        Query {
            tensor: Some(&t),
            ..Query::default()
        },
    );
    assert_eq!(uses["name"], "conv.weight");
    assert_eq!(
        uses["uses"],
        serde_json::json!([{"graph": 0, "value": "conv.weight", "producer": null, "consumers": [0]}])
    );
    let uses = answer(
        &doc,
        Query {
            value: Some("y"),
            ..Query::default()
        },
    );
    assert_eq!(
        uses["uses"],
        serde_json::json!([{"graph": 0, "value": "y", "producer": 0, "consumers": [1]}])
    );
}

/// A Constant's tensor is found where its output is read, whatever the
/// names: everything.onnx's Constant `const` holds tensor `cval` and makes
/// value `c`.
#[test]
fn a_constant_tensor_is_found_by_its_output() {
    let doc = pbdecode::open(fixtures_root().join("onnx-model/everything.onnx")).unwrap();
    let t = doc.tensors().iter().position(|t| t.name == "cval").unwrap();
    let t = t.to_string();
    let uses = answer(
        &doc,
        Query {
            tensor: Some(&t),
            ..Query::default()
        },
    );
    assert_eq!(uses["name"], "cval");
    let uses = uses["uses"].as_array().unwrap();
    assert_eq!(uses.len(), 1, "{uses:?}");
    assert_eq!(uses[0]["value"], "c");
    assert_eq!(uses[0]["producer"], 0);
}

/// A chain of `n` nodes in groups `/block{k}/...` of `per_group` nodes,
/// each block also adding its input back in (a skip connection).
fn scoped_chain(n: usize, per_group: usize) -> Vec<u8> {
    let mut graph = Msg::new().string(2, "chain");
    let mut prev = "x".to_string();
    let mut block_in = prev.clone();
    for i in 0..n {
        let block = i / per_group;
        let out = format!("t{i}");
        let name = format!("/block{block}/op{i}/Op");
        let first = i % per_group == 0;
        let last = i % per_group == per_group - 1;
        if first {
            block_in = prev.clone();
        }
        let m = if last {
            node("Add", &name, &[&prev, &block_in], &[&out])
        } else {
            node("Relu", &name, &[&prev], &[&out])
        };
        graph = graph.message(1, &m);
        prev = out;
    }
    graph = graph
        .message(11, &value_info("x", &[1, 8]))
        .message(12, &value_info(&prev, &[1, 8]));
    model(&graph)
}

/// Folding: `none` draws every node, `all` one box per top-level group,
/// `all` with a group opened draws its nodes; `auto` folds a graph of more
/// than 1,500 nodes and stays under 1,500 boxes, and counts every node and
/// edge all the same.
#[test]
fn groups_fold() {
    let doc = open_bytes(scoped_chain(40, 10));
    let none = &graph_of(&doc, 0, "none")["graph"];
    assert_eq!(n(&none["counts"]["boxes"]), 42);
    assert_eq!(none["fold"], "none");
    let all = &graph_of(&doc, 0, "all")["graph"];
    assert_eq!(n(&all["counts"]["boxes"]), 4 + 2);
    assert_eq!(n(&all["counts"]["nodes"]), 40);
    assert_eq!(n(&all["counts"]["edges"]), n(&none["counts"]["edges"]));
    check_layout("all", all);
    let groups = all["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 4);
    assert!(
        groups
            .iter()
            .all(|g| g["folded"] == true && n(&g["nodes"]) == 10)
    );
    assert!(
        all["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|n| n["box"].is_null())
    );
    // Edges between folded blocks: block k's output into block k+1, and
    // the skip from block k's output into block k+1's Add.
    let edges = all["edges"].as_array().unwrap();
    assert!(
        edges
            .iter()
            .any(|e| e["from"] == serde_json::json!({"group": 0})
                && e["to"] == serde_json::json!({"group": 1}))
    );
    let opened = answer(
        &doc,
        Query {
            graph: Some("0"),
            fold: Some("all"),
            open: Some("1"),
            ..Query::default()
        },
    );
    let opened = &opened["graph"];
    assert_eq!(n(&opened["counts"]["boxes"]), 3 + 10 + 2);
    check_layout("opened", opened);
    // The open group: a frame around its ten nodes (check_layout: nothing
    // else inside it); the folded ones a box each.
    let frames: Vec<&Value> = opened["groups"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["folded"] == false)
        .collect();
    assert_eq!(frames.len(), 1);
    assert!(rect(&frames[0]["box"]).is_some(), "{}", frames[0]);
    assert!(
        opened["groups"]
            .as_array()
            .unwrap()
            .iter()
            .all(|g| rect(&g["box"]).is_some())
    );

    let big = open_bytes(scoped_chain(3_000, 30));
    let auto = &graph_of(&big, 0, "auto")["graph"];
    let boxes = check_layout("auto", auto);
    assert!(boxes <= 1_500, "{boxes}");
    assert!(
        auto["groups"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["folded"] == true)
    );
    assert_eq!(n(&auto["counts"]["nodes"]), 3_000);
    let small = &graph_of(&doc, 0, "auto")["graph"];
    assert_eq!(
        n(&small["counts"]["boxes"]),
        42,
        "a small graph is not folded"
    );
}

/// A 20,000-node model with skip connections lays out (boxes apart, every
/// edge routed), unfolded and folded.
#[test]
fn twenty_thousand_nodes() {
    let doc = open_bytes(scoped_chain(20_000, 25));
    let none = &graph_of(&doc, 0, "none")["graph"];
    assert_eq!(check_layout("20k", none), 20_002);
    assert_eq!(n(&none["counts"]["edges"]), 20_000 + 20_000 / 25 + 1);
    let auto = &graph_of(&doc, 0, "auto")["graph"];
    assert!(check_layout("20k auto", auto) <= 1_500);
}

/// TensorFlow's argument names (the generated `tf_op_defs` table) as
/// formal names: a GraphDef's inputs and outputs by position (`node:K`),
/// variadic arguments expanded by the node's `N` or type list; a function
/// body's outputs by their argument (`MatMul:product:0`); the weights'
/// labels by them, as ONNX's.
#[test]
fn tensorflow_formal_names() {
    let formals = |node: &Value, key: &str| -> Vec<String> {
        node[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["formal"].as_str().unwrap().to_string())
            .collect()
    };
    let node_named = |g: &Value, name: &str| -> Value {
        g["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == name)
            .unwrap_or_else(|| panic!("no node {name}"))
            .clone()
    };
    // The frozen dense net: MatMul(a, b), BiasAdd(value, bias), the
    // Identity of a Const labelled `input<4x64>`.
    let doc = pbdecode::open(
        fixtures_root().join("schemaless/sample/tf_fg_dense_frozen_frozen_graph.pb"),
    )
    .unwrap();
    let g = &graph_of(&doc, 0, "none")["graph"];
    let nodes = g["nodes"].as_array().unwrap();
    let of_op = |op: &str| nodes.iter().find(|x| x["op"] == op).unwrap();
    assert_eq!(formals(of_op("MatMul"), "inputs"), ["a", "b"]);
    assert_eq!(formals(of_op("MatMul"), "outputs"), ["product"]);
    assert_eq!(formals(of_op("BiasAdd"), "inputs"), ["value", "bias"]);
    let identity = nodes
        .iter()
        .find(|x| x["op"] == "Identity" && x["label"].as_array().unwrap().len() == 2)
        .unwrap();
    assert!(
        s(&identity["label"][1]).starts_with("input<"),
        "{}",
        identity["label"]
    );

    // The SavedModel: a function body's MatMul and AddV2; the saver's
    // Pack(values*N) with a control input, which has no formal name.
    let doc = pbdecode::open(fixtures_root().join("tf/saved_model_two_signatures.pb")).unwrap();
    let list = graph_of(&doc, 0, "none")["graphs"].clone();
    let predict = list
        .as_array()
        .unwrap()
        .iter()
        .find(|e| s(&e["name"]).starts_with("__inference_predict_"))
        .unwrap();
    let f = &graph_of(&doc, n(&predict["id"]) as usize, "none")["graph"];
    assert_eq!(formals(&node_named(f, "MatMul"), "inputs"), ["a", "b"]);
    assert_eq!(formals(&node_named(f, "MatMul"), "outputs"), ["product"]);
    assert_eq!(formals(&node_named(f, "add"), "inputs"), ["x", "y"]);
    // (In the saver's function.)
    let pack = (0..list.as_array().unwrap().len())
        .find_map(|id| {
            graph_of(&doc, id, "none")["graph"]["nodes"]
                .as_array()
                .unwrap()
                .iter()
                .find(|x| x["name"] == "MergeV2Checkpoints/checkpoint_prefixes")
                .cloned()
        })
        .unwrap();
    assert_eq!(formals(&pack, "inputs"), ["values", ""]);

    // Variadic: ConcatV2 of three values and an axis (N=3), IdentityN of
    // two (T a list of two types), its outputs by position.
    let tf_node = |name: &str, op: &str, inputs: &[&str]| {
        let mut m = Msg::new().string(1, name).string(2, op);
        for i in inputs {
            m = m.string(3, i);
        }
        m
    };
    let attr = |key: &str, value: Msg| Msg::new().string(1, key).message(2, &value);
    let graph = Msg::new()
        .message(1, &tf_node("x", "Placeholder", &[]))
        .message(
            1,
            &tf_node("cat", "ConcatV2", &["x", "x:0", "x", "x"])
                .message(5, &attr("N", Msg::new().varint(3, 3))),
        )
        .message(
            1,
            &tf_node("ids", "IdentityN", &["cat", "x"]).message(
                5,
                &attr(
                    "T",
                    Msg::new().message(1, &Msg::new().varint(6, 1).varint(6, 1)),
                ),
            ),
        )
        .message(1, &tf_node("use", "AddV2", &["ids:1", "ids"]));
    let doc = open_bytes(graph.buf);
    let g = &graph_of(&doc, 0, "none")["graph"];
    assert_eq!(
        formals(&node_named(g, "cat"), "inputs"),
        ["values", "values", "values", "axis"]
    );
    assert_eq!(formals(&node_named(g, "ids"), "inputs"), ["input", "input"]);
    let ids = node_named(g, "ids");
    let outs: Vec<(String, String)> = ids["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (s(&o["name"]).to_string(), s(&o["formal"]).to_string()))
        .collect();
    assert!(
        outs.contains(&("ids:0".to_string(), "output".to_string())),
        "{outs:?}"
    );
    assert!(
        outs.contains(&("ids:1".to_string(), "output".to_string())),
        "{outs:?}"
    );
}

/// TensorFlow: a loop (NextIteration feeding Merge) is laid out (the cycle
/// broken), `name:0` and `name` are one value, `^name` a control edge, the
/// Const's tensor a weight of its reader.
#[test]
fn tensorflow_loop_and_control_edges() {
    let tf_node = |name: &str, op: &str, inputs: &[&str]| {
        let mut m = Msg::new().string(1, name).string(2, op);
        for i in inputs {
            m = m.string(3, i);
        }
        m
    };
    let tensor = common::build::tf_tensor(1, &[2], &[0u8; 8]);
    let value = Msg::new()
        .string(1, "value")
        .message(2, &Msg::new().len_field(8, &tensor));
    let graph = Msg::new()
        .message(1, &tf_node("init", "Const", &[]).message(5, &value))
        .message(1, &tf_node("loop/merge", "Merge", &["init", "loop/next:0"]))
        .message(
            1,
            &tf_node("loop/add", "AddV2", &["loop/merge:0", "init:0"]),
        )
        .message(1, &tf_node("loop/next", "NextIteration", &["loop/add"]))
        .message(1, &tf_node("out", "Identity", &["loop/add", "^init"]));
    let doc = open_bytes(graph.buf);
    assert_eq!(doc.format().id, "tf-graph-def");
    let g = &graph_of(&doc, 0, "none")["graph"];
    check_layout("tf loop", g);
    assert_eq!(n(&g["counts"]["nodes"]), 5);
    // init:0 -> merge, add; merge:0 -> add; next:0 -> merge; add:0 -> next,
    // out; ^init -> out.
    assert_eq!(n(&g["counts"]["edges"]), 7);
    let add = &g["nodes"][2];
    assert_eq!(add["weights"][0]["shape"], "2");
    assert_eq!(add["weights"][0]["type"], "DT_FLOAT");
    assert!(
        g["edges"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["control"] == true)
    );
    let mut text = String::new();
    graph_text(&mut text, &graph_of(&doc, 0, "none")["graphs"][0], g);
    snap("tf_loop", &text);
}

/// If inside If inside If ... as deep as the decoder allows: each
/// subgraph gets its id and owner, read without recursion.
#[test]
fn nested_subgraphs() {
    let depth = 20;
    let mut inner = Msg::new()
        .string(2, "innermost")
        .message(1, &node("Relu", "r", &["a"], &["b"]));
    for level in 0..depth {
        let attr = Msg::new()
            .string(1, "then_branch")
            .message(6, &inner)
            .varint(20, 5);
        let n = node("If", &format!("if{level}"), &["c"], &["o"]).message(5, &attr);
        inner = Msg::new()
            .string(2, &format!("level{level}"))
            .message(1, &n);
    }
    let doc = open_bytes(model(&inner));
    let all = graph_of(&doc, 0, "auto");
    let graphs = all["graphs"].as_array().unwrap();
    assert_eq!(graphs.len(), depth + 1);
    for (k, g) in graphs.iter().enumerate().skip(1) {
        assert_eq!(
            g["owner"],
            serde_json::json!({"graph": k - 1, "node": 0, "attribute": "then_branch"})
        );
    }
    assert_eq!(
        all["graph"]["nodes"][0]["subgraphs"],
        serde_json::json!([1])
    );
}

/// Refusals: a tensor file has no graph; a graph id, fold or group list
/// that is not one; a tensor index past the end.
#[test]
fn refusals() {
    let tensor = pbdecode::open(fixtures_root().join("example_x_3x4x5.pb")).unwrap();
    assert!(matches!(
        tensor.graph_json(&Query::default()),
        Err(QueryError::NotAModel("onnx-tensor"))
    ));
    let doc = pbdecode::open(fixtures_root().join("onnx-model/constants.onnx")).unwrap();
    for q in [
        Query {
            graph: Some("x"),
            ..Query::default()
        },
        Query {
            fold: Some("some"),
            ..Query::default()
        },
        Query {
            open: Some("1,x"),
            ..Query::default()
        },
        Query {
            tensor: Some("-1"),
            ..Query::default()
        },
    ] {
        assert!(
            matches!(doc.graph_json(&q), Err(QueryError::BadParameter { .. })),
            "{q:?}"
        );
    }
    assert!(matches!(
        doc.graph_json(&Query {
            graph: Some("9"),
            ..Query::default()
        }),
        Err(QueryError::NoSuchGraph(9))
    ));
    assert!(matches!(
        doc.graph_json(&Query {
            tensor: Some("99"),
            ..Query::default()
        }),
        Err(QueryError::NoSuchTensor(99))
    ));
    // Open group ids past the end are ignored, however many.
    let many = (0..10_000)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(",");
    assert!(
        doc.graph_json(&Query {
            fold: Some("all"),
            open: Some(&many),
            ..Query::default()
        })
        .is_ok()
    );
}

/// Names a file controls cannot break out of DOT's strings or SVG's text.
#[cfg(feature = "cli")]
#[test]
fn hostile_names_stay_inside_dot_and_svg() {
    let name = "a\"; b -> c; \\\" <script>&\u{202e}\n";
    let graph = Msg::new()
        .string(2, name)
        .message(1, &node(name, name, &["x"], &[name]))
        .message(11, &value_info("x", &[1]))
        .message(12, &value_info(name, &[1]));
    let dir = std::env::temp_dir().join(format!("pbdecode-graph-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("hostile.onnx");
    std::fs::write(&path, model(&graph)).unwrap();
    let run = |format: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_decode"))
            .args(["--graph", format])
            .arg(&path)
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let dot = run("dot");
    assert_eq!(graphviz_counts(&dot), (3, 2), "{dot}");
    assert!(!dot.contains('\u{202e}'), "{dot}");
    let svg = run("svg");
    assert!(
        !svg.contains("<script>") && !svg.contains('\u{202e}'),
        "{svg}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
