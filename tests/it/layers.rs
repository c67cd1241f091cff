//! The modules of `src/` depend on each other one way: this test reads every
//! `src/**/*.rs`, collects the modules each one names through `crate::`,
//! `super::` and its own child modules (test modules excluded), and fails on
//! any cycle, printing it, and on any import of a module from a layer that
//! is not below the importer's in [`LAYERS`]. The binary's modules
//! (`main.rs`, `cli/`), a crate of their own, are checked for cycles apart.
//!
//! The documented surface of the library is the facade: the tests at the
//! end read `src/lib.rs` and fail on a public module or root re-export that
//! [`SURFACE`] does not name, and on a `pub use` that gives an item a
//! second public path.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use crate::common;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, lowest first; each lists the top-level modules of `src/`
/// that form it (a module's submodules are in its layer). A module may
/// import modules of lower layers and its own submodules, not a module of
/// its own layer or a higher one. Every module is placed here: a new one
/// fails the test until it is.
const LAYERS: &[(&str, &[&str])] = &[
    ("ground", &["error", "escape", "progress", "checksum"]),
    // The one fallible allocation of buffers sized by input, on the errors.
    ("allocation", &["alloc"]),
    // The one JSON writer, on the escaping.
    ("JSON writer", &["json_writer"]),
    ("input", &["input"]),
    ("files", &["output", "external"]),
    ("wire", &["wire"]),
    ("schema", &["schema"]),
    // The generated constants naming the built-in tables' fields.
    ("field constants", &["fields"]),
    // The binary decoder, the reading without a schema, and the text
    // format's reader (text to the binary form, over the same tables).
    ("decode", &["decode", "schemaless", "text_format"]),
    ("tensor", &["tensor"]),
    ("formats and statistics", &["formats", "stats"]),
    (
        "pictures, export and user schemas",
        &["picture", "npy", "user_schema", "syntax"],
    ),
    ("render", &["render"]),
    // Models as graphs: extraction, layout, JSON/DOT/SVG, on the views'
    // attribute text.
    ("graphs", &["graph"]),
    ("test data and comparison", &["testdata", "diff"]),
    ("batches", &["batch"]),
    // The facade: the documented entry points and the crate-level error.
    ("facade", &["api"]),
    // The explorer's endpoints without a transport: request in, response out.
    ("explorer endpoints", &["explore"]),
    ("server", &["server"]),
    // The crate root: the modules, and the facade's names re-exported.
    ("crate root", &[""]),
];

/// The layer of a module: that of its top-level module.
fn layer_of(module: &str) -> Option<usize> {
    let top = module.split("::").next().unwrap_or(module);
    LAYERS
        .iter()
        .position(|(_, modules)| modules.contains(&top))
}

/// `src/render/json.rs` -> `render::json`; `src/render/mod.rs` -> `render`;
/// `src/lib.rs` -> `` (the crate root).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap_or(file).with_extension("");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts.join("::")
}

/// The code of a file without comments, string contents and `#[cfg(test)]`
/// items (their `super::` means the file itself).
fn code_of(text: &str) -> String {
    let mut code = String::new();
    let mut skip_depth: Option<i32> = None;
    let mut depth = 0i32;
    let mut pending_test = false;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("//") {
            continue;
        }
        let line = strip_strings(line);
        let line = match line.find("//") {
            Some(i) => line[..i].to_string(),
            None => line,
        };
        if line.trim_start().starts_with("#[cfg(test)]") {
            pending_test = true;
            continue;
        }
        let opens = line.matches('{').count() as i32;
        let closes = line.matches('}').count() as i32;
        if pending_test && skip_depth.is_none() {
            skip_depth = Some(depth);
            pending_test = false;
        }
        depth += opens - closes;
        if let Some(d) = skip_depth {
            if depth <= d && (opens > 0 || closes > 0 || line.trim_end().ends_with(';')) {
                skip_depth = None;
            }
            continue;
        }
        code.push_str(&line);
        code.push('\n');
    }
    code
}

/// Replaces the contents of string and char literals by nothing.
fn strip_strings(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    let mut in_str = false;
    while let Some(c) = chars.next() {
        if in_str {
            if c == '\\' {
                chars.next();
            } else if c == '"' {
                in_str = false;
                out.push('"');
            }
            continue;
        }
        if c == '"' {
            in_str = true;
        }
        out.push(c);
    }
    out
}

fn ident(s: &str) -> (&str, &str) {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    (&s[..end], &s[end..])
}

/// Every path `base::a::b...` or `base::{a::b, c}` in `code` after one of
/// the prefixes, as lists of segments (groups expanded one level deep).
fn paths_after(code: &str, prefix: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find(prefix) {
        let before = rest[..i].chars().last();
        rest = &rest[i + prefix.len()..];
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        collect_path(rest, Vec::new(), &mut out);
    }
    out
}

fn collect_path(s: &str, mut segs: Vec<String>, out: &mut Vec<Vec<String>>) {
    let s = s.trim_start();
    if let Some(inner) = s.strip_prefix('{') {
        // Split the group at top-level commas.
        let mut depth = 0;
        let mut start = 0;
        let bytes = inner.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            match b {
                b'{' => depth += 1,
                b'}' if depth == 0 => {
                    collect_path(&inner[start..i], segs.clone(), out);
                    return;
                }
                b'}' => depth -= 1,
                b',' if depth == 0 => {
                    collect_path(&inner[start..i], segs.clone(), out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        return;
    }
    let (id, rest) = ident(s);
    if id.is_empty() {
        if !segs.is_empty() {
            out.push(segs);
        }
        return;
    }
    segs.push(id.to_string());
    match rest.strip_prefix("::") {
        Some(r) => collect_path(r, segs, out),
        None => out.push(segs),
    }
}

/// The longest known module that `segs` starts with, relative to `base`.
fn resolve(modules: &BTreeSet<String>, base: &[String], segs: &[String]) -> Option<String> {
    let mut best = None;
    let mut path: Vec<String> = base.to_vec();
    for s in segs {
        if s == "self" {
            continue;
        }
        path.push(s.clone());
        let name = path.join("::");
        if modules.contains(&name) {
            best = Some(name);
        } else {
            break;
        }
    }
    best.or_else(|| (!base.is_empty()).then(|| base.join("::")))
}

/// The library's module graph.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    crate_graph(false)
}

/// The module graph of the library, or of the binary (main.rs and cli/:
/// its own crate, whose `crate::` is not the library's).
fn crate_graph(binary: bool) -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    common::rust_files(&src, &mut files);
    let files: Vec<PathBuf> = files
        .into_iter()
        .filter(|f| {
            let rel = f.strip_prefix(&src).unwrap_or(f);
            binary == (rel.starts_with("main.rs") || rel.starts_with("cli"))
        })
        .collect();
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(&src, f)).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let me = module_of(&src, f);
        let text = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let code = code_of(&text);
        let me_segs: Vec<String> = if me.is_empty() {
            Vec::new()
        } else {
            me.split("::").map(String::from).collect()
        };
        let parent: Vec<String> = me_segs[..me_segs.len().saturating_sub(1)].to_vec();
        let mut deps = BTreeSet::new();
        for p in paths_after(&code, "crate::") {
            if let Some(m) = resolve(&modules, &[], &p) {
                deps.insert(m);
            }
        }
        for p in paths_after(&code, "super::") {
            let (base, p) = if p.first().is_some_and(|s| s == "super") {
                (
                    parent[..parent.len().saturating_sub(1)].to_vec(),
                    p[1..].to_vec(),
                )
            } else {
                (parent.clone(), p)
            };
            if let Some(m) = resolve(&modules, &base, &p) {
                deps.insert(m);
            } else if base.is_empty() {
                deps.insert(String::new());
            }
        }
        // Paths through a child module (`json::write` in render/mod.rs).
        for child in modules.iter().filter(|m| {
            m.strip_prefix(&format!("{me}::"))
                .or(me.is_empty().then_some(m.as_str()))
                .is_some_and(|c| !c.is_empty() && !c.contains("::"))
        }) {
            let short = child.rsplit("::").next().unwrap_or(child);
            for p in paths_after(&code, &format!("{short}::")) {
                let mut segs = vec![short.to_string()];
                segs.extend(p);
                if let Some(m) = resolve(&modules, &me_segs, &segs) {
                    deps.insert(m);
                }
            }
        }
        deps.remove(&me);
        // The crate root only declares modules.
        deps.remove("");
        graph.insert(me, deps);
    }
    graph
}

/// The strongly connected components with more than one module (Tarjan).
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'g> {
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        next: usize,
        out: Vec<Vec<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g str) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on_stack.insert(v);
        if let Some(ws) = s.graph.get(v) {
            for w in ws {
                let w = w.as_str();
                if !s.graph.contains_key(w) {
                    continue;
                }
                if !s.index.contains_key(w) {
                    visit(s, w);
                    let lw = s.low[w];
                    let lv = s.low.get_mut(v).unwrap();
                    *lv = (*lv).min(lw);
                } else if s.on_stack.contains(w) {
                    let iw = s.index[w];
                    let lv = s.low.get_mut(v).unwrap();
                    *lv = (*lv).min(iw);
                }
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out
}

#[test]
fn the_parser_sees_grouped_and_nested_paths() {
    let code = code_of(
        "use crate::{a::b, c};\n// crate::d\nlet s = \"crate::e\";\nuse super::f;\n#[cfg(test)]\nmod tests {\n    use crate::g;\n}\n",
    );
    let found = paths_after(&code, "crate::");
    assert_eq!(
        found,
        vec![
            vec!["a".to_string(), "b".to_string()],
            vec!["c".to_string()]
        ]
    );
    assert_eq!(paths_after(&code, "super::"), vec![vec!["f".to_string()]]);
}

#[test]
fn the_module_graph_has_no_cycle() {
    let graph = graph();
    assert!(graph.contains_key("render"), "render module found");
    assert!(
        graph
            .get("render::json")
            .is_some_and(|d| d.contains("decode")),
        "render::json uses decode: {graph:?}"
    );
    let found = cycles(&graph);
    if !found.is_empty() {
        let mut msg = String::from("import cycles among src/ modules:\n");
        for comp in &found {
            msg.push_str("  ");
            msg.push_str(&comp.join(" <-> "));
            msg.push('\n');
            for m in comp {
                let into: Vec<&String> = graph[m].iter().filter(|d| comp.contains(d)).collect();
                msg.push_str(&format!("    {m} -> {into:?}\n"));
            }
        }
        panic!("{msg}");
    }
}

#[test]
fn computation_and_export_do_not_reach_into_render() {
    let graph = graph();
    for m in [
        "stats",
        "stats::kernel",
        "picture",
        "npy",
        "tensor",
        "formats",
    ] {
        let deps = graph.get(m).unwrap_or_else(|| panic!("module {m} found"));
        let up: Vec<&String> = deps.iter().filter(|d| d.starts_with("render")).collect();
        assert!(up.is_empty(), "{m} imports {up:?}");
    }
    // The primitives of the views are a leaf of the render layer.
    let fmt = graph.get("render::fmt").expect("render::fmt found");
    assert!(
        fmt.iter().all(|d| !d.starts_with("render")),
        "render::fmt imports {fmt:?}"
    );
}

/// The modules of no layer.
fn unplaced(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<&str> {
    graph
        .keys()
        .filter(|m| layer_of(m).is_none())
        .map(String::as_str)
        .collect()
}

#[test]
fn every_module_is_placed_in_a_layer() {
    let graph = graph();
    let unplaced = unplaced(&graph);
    assert!(
        unplaced.is_empty(),
        "modules in no layer of LAYERS (tests/it/layers.rs): {unplaced:?}"
    );
    let mut placed: Vec<&str> = LAYERS.iter().flat_map(|(_, m)| m.iter().copied()).collect();
    let count = placed.len();
    placed.sort();
    placed.dedup();
    assert_eq!(placed.len(), count, "a module in two layers");
    for m in placed {
        assert!(
            graph.contains_key(m),
            "LAYERS names {m:?}, which is not a module"
        );
    }
}

/// The imports that go up or sideways: from a module to one of a layer not
/// below its own (a module's own submodules excepted).
fn imports_not_downward(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let top = |m: &str| m.split("::").next().unwrap_or(m).to_string();
    let mut wrong = Vec::new();
    for (m, deps) in graph {
        let (Some(mine), false) = (layer_of(m), m.is_empty()) else {
            continue;
        };
        for d in deps {
            if top(d) == top(m) {
                continue;
            }
            match layer_of(d) {
                Some(theirs) if theirs < mine => {}
                theirs => wrong.push(format!(
                    "{m} ({}) imports {d} ({})",
                    LAYERS[mine].0,
                    theirs.map_or("no layer", |l| LAYERS[l].0)
                )),
            }
        }
    }
    wrong
}

#[test]
fn every_import_goes_down_the_layers() {
    let wrong = imports_not_downward(&graph());
    assert!(
        wrong.is_empty(),
        "imports that do not go down the layers of tests/it/layers.rs:\n  {}",
        wrong.join("\n  ")
    );
}

#[test]
fn an_upward_or_sideways_import_is_found() {
    let mut graph = graph();
    graph.get_mut("wire").unwrap().insert("render::json".into());
    graph.get_mut("stats").unwrap().insert("formats".into());
    graph.insert("unplaced".into(), BTreeSet::new());
    graph.get_mut("batch").unwrap().insert("unplaced".into());
    let wrong = imports_not_downward(&graph);
    for expected in [
        "stats (formats and statistics) imports formats (formats and statistics)",
        "wire (wire) imports render::json (render)",
        "batch (batches) imports unplaced (no layer)",
    ] {
        assert!(wrong.iter().any(|w| w == expected), "{expected}: {wrong:?}");
    }
    assert_eq!(unplaced(&graph), ["unplaced"]);
}

/// The documented surface of the library: the modules documented and the
/// names re-exported at the crate root. Every other module is private or
/// `#[doc(hidden)]` (public for the binary, the tests, the benchmarks, the
/// fuzz targets and the Python binding, no stable interface). A module made
/// public and documented, or a name re-exported, that is not listed here
/// fails [`the_documented_surface_is_the_facade`]: add it here only if a
/// library user needs it.
const SURFACE: &[&str] = &[
    // The checks a caller matches on; the escaping that shows a name from
    // a file as `decode` does.
    "error",
    "escape",
    // The facade (src/api.rs).
    "DataType",
    "Diff",
    "Document",
    "Error",
    "ExternalData",
    "FormatInfo",
    "JsonOptions",
    "Step",
    "Storage",
    "StoredArray",
    "Summary",
    "SummaryItem",
    "SummaryValue",
    "Tensor",
    "TensorRef",
    "TextOptions",
    "ValueOptions",
    "Values",
    "open",
    "open_as",
    "read",
    "read_shared",
    "read_shared_as",
    "read_shared_in",
    // Record files as tables (src/api/records.rs).
    "Bitmap",
    "ColumnValues",
    "ExampleTable",
    "FeatureKind",
    "TableColumn",
    "example_table",
    "example_table_of",
    "EventRow",
    "EventTable",
    "EventValue",
    "ScalarColumns",
    "TensorValues",
    "event_table",
    "event_table_of",
    "looks_like",
    // What the facade's signatures and documentation name.
    "Colour",
    "DiffOptions",
    "ExternalError",
    "Extreme",
    "Layout",
    "LoadError",
    "MAX_IMPLIED_VALUES",
    "NpyError",
    "NpyInfo",
    "OutputError",
    "Picture",
    "PictureError",
    "Role",
    "SchemaError",
    "Stats",
    "recover_from_mapping_faults",
];

/// The top-level statements of a file of declarations (`src/lib.rs`), each
/// as (its outer attributes, the rest), comments and inner attributes left
/// out.
fn statements(code: &str) -> Vec<(Vec<String>, String)> {
    let mut out = Vec::new();
    let mut attrs = Vec::new();
    let mut rest = code.trim_start();
    while !rest.is_empty() {
        if let Some(attr) = rest.strip_prefix('#') {
            // An attribute: up to its matching `]`.
            let mut depth = 0;
            let end = attr
                .char_indices()
                .find(|&(_, c)| {
                    match c {
                        '[' => depth += 1,
                        ']' => depth -= 1,
                        _ => {}
                    }
                    c == ']' && depth == 0
                })
                .map_or(attr.len(), |(i, _)| i + 1);
            if !attr.starts_with('!') {
                attrs.push(attr[..end].to_string());
            }
            rest = attr[end..].trim_start();
            continue;
        }
        let end = rest.find(';').map_or(rest.len(), |i| i + 1);
        let item: String = rest[..end].split_whitespace().collect::<Vec<_>>().join(" ");
        out.push((std::mem::take(&mut attrs), item));
        rest = rest[end..].trim_start();
    }
    out
}

/// The names a `use` tree brings in (`a::{b, c::d as e}` -> `b`, `e`;
/// a glob is `*`).
fn use_names(tree: &str, out: &mut Vec<String>) {
    let tree = tree.trim().trim_end_matches(';').trim();
    if let Some(open) = tree.find('{') {
        let inner = tree[open + 1..].trim_end().trim_end_matches('}');
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    use_names(&inner[start..i], out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        use_names(&inner[start..], out);
        return;
    }
    if tree.is_empty() {
        return;
    }
    let name = match tree.split_once(" as ") {
        Some((_, alias)) => alias.trim(),
        None => tree.rsplit("::").next().unwrap_or(tree).trim(),
    };
    out.push(name.to_string());
}

/// What a crate root documents: its public modules not marked
/// `#[doc(hidden)]` and the names of its `pub use` re-exports; and the
/// modules it hides (private or `#[doc(hidden)]`).
fn documented_surface(lib_rs: &str) -> (Vec<String>, Vec<String>) {
    let mut documented = Vec::new();
    let mut hidden = Vec::new();
    for (attrs, item) in statements(&code_of(lib_rs)) {
        let is_hidden = attrs
            .iter()
            .any(|a| a.replace(' ', "").contains("doc(hidden)"));
        if let Some(name) = item.strip_prefix("pub mod ") {
            let name = name.trim_end_matches(';').trim().to_string();
            if is_hidden {
                hidden.push(name);
            } else {
                documented.push(name);
            }
        } else if let Some(name) = item
            .split_once("mod ")
            .and_then(|(vis, name)| (vis.is_empty() || vis.starts_with("pub(")).then_some(name))
        {
            hidden.push(name.trim_end_matches(';').trim().to_string());
        } else if let Some(tree) = item.strip_prefix("pub use ")
            && !is_hidden
        {
            use_names(tree, &mut documented);
        }
    }
    (documented, hidden)
}

fn lib_rs() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The names of `documented` that SURFACE does not list, and those it lists
/// that are not documented.
fn surface_difference(documented: &[String]) -> (Vec<&str>, Vec<&'static str>) {
    let extra = documented
        .iter()
        .map(String::as_str)
        .filter(|n| !SURFACE.contains(n))
        .collect();
    let missing = SURFACE
        .iter()
        .copied()
        .filter(|n| !documented.iter().any(|d| d == n))
        .collect();
    (extra, missing)
}

#[test]
fn the_documented_surface_is_the_facade() {
    let (documented, hidden) = documented_surface(&lib_rs());
    assert!(
        hidden.iter().any(|m| m == "wire") && hidden.iter().any(|m| m == "api"),
        "hidden modules read from src/lib.rs: {hidden:?}"
    );
    let (extra, missing) = surface_difference(&documented);
    assert!(
        extra.is_empty(),
        "src/lib.rs documents {extra:?}, which SURFACE in tests/it/layers.rs does not list: \
         mark an internal module #[doc(hidden)] (or keep it private), or list what a library \
         user needs in SURFACE"
    );
    assert!(
        missing.is_empty(),
        "SURFACE lists {missing:?}, which src/lib.rs does not document"
    );
    let mut sorted = documented.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), documented.len(), "a name documented twice");
}

#[test]
fn a_public_module_or_re_export_off_the_surface_is_found() {
    let lib = "//! Docs.\n#![deny(missing_docs)]\n\
        mod api;\n#[doc(hidden)]\npub mod wire;\n\
        #[cfg(feature = \"server\")]\n#[doc(hidden)]\npub mod server;\n\
        pub(crate) mod inner;\npub mod error;\npub mod newthing; // not hidden\n\
        pub use api::{\n    Document, open,\n    read as read_bytes,\n};\npub use wire::*;\n\
        pub use wire::WireType;\n";
    let (documented, hidden) = documented_surface(lib);
    assert_eq!(hidden, ["api", "wire", "server", "inner"]);
    assert_eq!(
        documented,
        [
            "error",
            "newthing",
            "Document",
            "open",
            "read_bytes",
            "*",
            "WireType"
        ]
    );
    let (extra, _) = surface_difference(&documented);
    assert_eq!(extra, ["newthing", "read_bytes", "*", "WireType"]);
}

/// The `pub use` statements of the library that give an item a second
/// public path: every one except those of the crate root (the surface,
/// above) and those that lift an item out of a private child module of the
/// same file (where it then has no other public path).
fn second_paths() -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    common::rust_files(&src, &mut files);
    let mut found = Vec::new();
    for f in &files {
        let module = module_of(&src, f);
        let rel = f.strip_prefix(&src).unwrap_or(f);
        if module.is_empty() || rel.starts_with("main.rs") || rel.starts_with("cli") {
            continue;
        }
        let code = code_of(&std::fs::read_to_string(f).unwrap());
        found.extend(
            second_paths_in(&code)
                .into_iter()
                .map(|u| format!("{}: {u}", rel.display())),
        );
    }
    found
}

/// The `pub use` statements of one file's code that do not lift an item
/// out of a private child module declared in it.
fn second_paths_in(code: &str) -> Vec<String> {
    let flat: String = code.split_whitespace().collect::<Vec<_>>().join(" ");
    let private_children: Vec<&str> = flat
        .split(';')
        .filter_map(|s| {
            let s = s.trim();
            let name = s
                .rsplit_once("mod ")
                .map(|(vis, name)| (vis.trim_end(), name))?;
            let vis = name.0.rsplit(']').next().unwrap_or("").trim();
            (vis.is_empty() || vis.starts_with("pub(")).then_some(name.1.trim())
        })
        .collect();
    flat.split(';')
        .filter_map(|s| {
            let s = s.trim();
            let tree = s.split_once("pub use ").map(|(_, t)| t.trim())?;
            let tree = tree.strip_prefix("self::").unwrap_or(tree);
            let first = tree.split("::").next().unwrap_or(tree);
            (!private_children.contains(&first)).then(|| format!("pub use {tree};"))
        })
        .collect()
}

#[test]
fn every_public_item_has_one_public_path() {
    let found = second_paths();
    assert!(
        found.is_empty(),
        "pub use that gives an item a second public path (import it from where it is \
         defined; `pub(crate) use` for a path inside the crate):\n  {}",
        found.join("\n  ")
    );
}

#[test]
fn a_second_public_path_is_found() {
    let code = code_of(
        "mod base;\npub mod kernel;\n#[cfg(unix)]\nmod state;\n\
         pub use base::{Body, walk};\npub use self::state::Config;\n\
         pub use kernel::Extreme;\npub use crate::escape::plain;\n\
         pub use super::fmt::{indent, pad};\npub(crate) use crate::escape::string;\n",
    );
    assert_eq!(
        second_paths_in(&code),
        [
            "pub use kernel::Extreme;",
            "pub use crate::escape::plain;",
            "pub use super::fmt::{indent, pad};",
        ]
    );
}

/// The hidden modules a doc link of the documented files names
/// (`[`crate::tensor::X`]`, `[`tensor::X`]`): rustdoc renders such a link
/// as plain text in brackets, without a warning.
fn doc_links_to_hidden(text: &str, hidden: &[String]) -> Vec<String> {
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let doc = line.trim_start();
        if !(doc.starts_with("///") || doc.starts_with("//!")) {
            continue;
        }
        for (_, link) in doc.match_indices("[`").map(|(i, _)| ((), &doc[i + 2..])) {
            let target = link.split('`').next().unwrap_or("");
            let target = target.strip_prefix("crate::").unwrap_or(target);
            let first = target.split("::").next().unwrap_or(target);
            if hidden.iter().any(|h| h == first) {
                found.push(format!("line {}: [`{target}`]", n + 1));
            }
        }
    }
    found
}

#[test]
fn the_documented_files_link_no_hidden_module() {
    let (_, hidden) = documented_surface(&lib_rs());
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for file in ["src/lib.rs", "src/api.rs", "src/error.rs", "src/escape.rs"] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        found.extend(
            doc_links_to_hidden(&text, &hidden)
                .into_iter()
                .map(|l| format!("{file}: {l}")),
        );
    }
    assert!(
        found.is_empty(),
        "doc links to modules hidden from the documentation (link what the surface \
         re-exports, or write the name as plain code):\n  {}",
        found.join("\n  ")
    );
    let hidden = ["tensor".to_string()];
    assert_eq!(
        doc_links_to_hidden(
            "/// See [`crate::tensor::MAX`], [`Tensor::values`],\n//! [`tensor`], `tensor`.\n",
            &hidden
        ),
        ["line 1: [`tensor::MAX`]", "line 2: [`tensor`]"]
    );
}

/// The paths a `use` tree names, each with the name it gives:
/// `a::{b, c::d as e}` -> (`a::b`, `b`), (`a::c::d`, `e`).
fn use_paths(tree: &str, prefix: &str, out: &mut Vec<(String, String)>) {
    let tree = tree.trim().trim_end_matches(';').trim();
    if let Some(open) = tree.find('{') {
        let prefix = format!("{prefix}{}", &tree[..open]);
        let inner = tree[open + 1..].trim_end().trim_end_matches('}');
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    use_paths(&inner[start..i], &prefix, out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        use_paths(&inner[start..], &prefix, out);
        return;
    }
    if tree.is_empty() {
        return;
    }
    let (path, name) = match tree.split_once(" as ") {
        Some((path, alias)) => (path.trim(), alias.trim()),
        None => (tree, tree.rsplit("::").next().unwrap_or(tree).trim()),
    };
    out.push((format!("{prefix}{path}"), name.to_string()));
}

/// A type definition's outer attributes, its kind (`struct`/`enum`) and
/// whether a caller outside the crate could build or match it whole: an
/// enum, or a struct with a public field.
struct TypeDef {
    attrs: Vec<String>,
    open: bool,
}

/// The definition of `name` in `code` (`pub struct name`/`pub enum name`).
fn type_def(code: &str, name: &str) -> Option<TypeDef> {
    let lines: Vec<&str> = code.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        let Some((kind, rest)) = t
            .strip_prefix("pub struct ")
            .map(|r| ("struct", r))
            .or_else(|| t.strip_prefix("pub enum ").map(|r| ("enum", r)))
        else {
            continue;
        };
        let (ident, _) = ident(rest);
        if ident != name {
            continue;
        }
        let attrs = lines[..i]
            .iter()
            .rev()
            .map(|l| l.trim())
            .take_while(|l| l.starts_with("#[") || l.starts_with("///"))
            .filter(|l| l.starts_with("#["))
            .map(String::from)
            .collect();
        let open = kind == "enum" || {
            // A public field: a `pub ` line before the body closes.
            let indent = line.len() - t.len();
            rest.trim_end().ends_with('{')
                && lines[i + 1..]
                    .iter()
                    .take_while(|l| !(l.trim() == "}" && l.len() - l.trim_start().len() == indent))
                    .any(|l| l.trim_start().starts_with("pub "))
        };
        return Some(TypeDef { attrs, open });
    }
    None
}

/// The facade's types that stay exhaustive, and why.
const EXHAUSTIVE: &[(&str, &str)] = &[(
    "Step",
    "a path into a protobuf message is fields, positions and map keys, nothing else",
)];

/// The documented types a caller could build or match whole that lack
/// `#[non_exhaustive]` (so a new field or variant would break the caller).
fn exhaustive_surface_types() -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    common::rust_files(&src, &mut files);
    let mut wrong = Vec::new();
    let mut checked = 0;
    for (attrs, item) in statements(&code_of(&lib_rs())) {
        let is_hidden = attrs
            .iter()
            .any(|a| a.replace(' ', "").contains("doc(hidden)"));
        let Some(tree) = item.strip_prefix("pub use ").filter(|_| !is_hidden) else {
            continue;
        };
        let mut paths = Vec::new();
        use_paths(tree, "", &mut paths);
        for (path, name) in paths {
            let (module, original) = path.rsplit_once("::").unwrap_or(("", &path));
            if !original.starts_with(|c: char| c.is_ascii_uppercase())
                || EXHAUSTIVE.iter().any(|(n, _)| *n == name)
            {
                continue;
            }
            // Defined in the module's file or one of its submodules'.
            let dir = src.join(module.replace("::", "/"));
            let texts: Vec<String> = files
                .iter()
                .filter(|f| f.with_extension("") == dir || f.starts_with(&dir))
                .map(|f| std::fs::read_to_string(f).unwrap())
                .collect();
            let Some(def) = texts.iter().find_map(|t| type_def(t, original)) else {
                // A constant, a trait or an alias: nothing to extend.
                let other = ["const", "static", "trait", "type"].iter().any(|k| {
                    texts
                        .iter()
                        .any(|t| t.contains(&format!("pub {k} {original}")))
                });
                assert!(other, "the definition of {path} found");
                continue;
            };
            checked += 1;
            if def.open && !def.attrs.iter().any(|a| a == "#[non_exhaustive]") {
                wrong.push(path);
            }
        }
    }
    assert!(checked > 20, "{checked} types checked");
    wrong
}

/// A field or variant added to a documented type is not a breaking change
/// (as safetensors and prost-reflect keep theirs): every documented enum,
/// and every documented struct with a public field, is
/// `#[non_exhaustive]`.
#[test]
fn the_documented_types_are_non_exhaustive() {
    let wrong = exhaustive_surface_types();
    assert!(
        wrong.is_empty(),
        "documented types without #[non_exhaustive] (or list one in EXHAUSTIVE with why):\n  {}",
        wrong.join("\n  ")
    );
    let code = "/// A.\n#[non_exhaustive]\n#[derive(Debug)]\npub struct A {\n    pub x: u8,\n}\n\
                pub struct B {\n    x: u8,\n}\npub struct C(u8);\n#[derive(Clone)]\npub enum D {\n    E,\n}\n";
    let a = type_def(code, "A").unwrap();
    assert!(a.open && a.attrs.contains(&"#[non_exhaustive]".to_string()));
    assert!(!type_def(code, "B").unwrap().open);
    assert!(!type_def(code, "C").unwrap().open);
    let d = type_def(code, "D").unwrap();
    assert!(d.open && !d.attrs.contains(&"#[non_exhaustive]".to_string()));
}

/// The binary's modules (main.rs and cli/) depend on each other one way
/// too: the command's dispatcher (cli/mod.rs) on its modes, the modes on
/// their leaves (`outcome`, `stderr`, `args`), never back.
#[test]
fn the_binarys_modules_have_no_cycle() {
    let graph = crate_graph(true);
    for m in [
        "",
        "cli",
        "cli::args",
        "cli::outcome",
        "cli::stderr",
        "cli::diff",
    ] {
        assert!(graph.contains_key(m), "binary module {m:?} in {graph:?}");
    }
    assert!(
        graph["cli::diff"].contains("cli::args"),
        "cli::diff uses cli::args: {graph:?}"
    );
    let found = cycles(&graph);
    assert!(
        found.is_empty(),
        "import cycles among the binary's modules: {found:?}\n{graph:?}"
    );
    let leaves: Vec<&String> = graph["cli::outcome"].iter().collect();
    assert!(leaves.is_empty(), "cli::outcome imports {leaves:?}");
}
