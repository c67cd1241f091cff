//! Text views of TensorFlow files, for people: a SavedModel the way
//! `saved_model_cli show --all` starts (tag sets, then signatures with each
//! input and output's dtype and shape), then the object graph, the function
//! library and the graph; a GraphDef as one line per node
//! (`name = Op(inputs) {attrs} @device`) with its Const tensors, versions and
//! library. Every field the view does not summarise is still printed with the
//! generic field tree, unknown fields included.

use super::shown::Shown;
use super::tree::{message_fields, tensor_block};
use super::{RenderOptions, load_values};
use crate::decode::{Message, ScalarValue, Value};
use crate::escape::{plain, plain_bytes, quoted, quoted_str};
use crate::fields::tensorflow::{
    AttrValue, BoundedTensorSpecProto, CapturedTensor, DictValue, FullTypeDef, FunctionDef,
    FunctionDefLibrary, FunctionSpec, GradientDef, GraphDef, ListValue, MetaGraphDef, NameAttrList,
    NamedTupleValue, NodeDef, OpDef, OpList, PairValue, RegisteredGradient, ResourceHandleProto,
    SavedAsset, SavedBareConcreteFunction, SavedConcreteFunction, SavedConstant, SavedFunction,
    SavedModel, SavedObject, SavedObjectGraph, SavedResource, SavedUserObject, SavedVariable,
    SignatureDef, StructuredValue, TensorInfo, TensorProto, TensorShapeProto, TensorSpecProto,
    TrackableObjectGraph, TupleValue, TypeSpecProto, VersionDef,
};
use crate::formats::tensor_adapter;
use crate::formats::tensorflow::{GRAPH_DEF, SAVED_MODEL};
use crate::formats::tf_checkpoint as tfc;
use crate::schema::{FieldId, FieldType, SchemaSet};
use crate::tensor::{Element, LoadedValues, for_each_element};
use std::borrow::Cow;
use std::io::{self, Write};

/// Tensors of at most this many elements are written inside the node line;
/// larger ones get a block of their own under it.
const INLINE_VALUES: u64 = 8;

/// What every writer here needs.
struct Ctx<'o> {
    set: &'static SchemaSet,
    opts: &'o RenderOptions,
    /// A SavedModel's variables, read from `variables/` beside it.
    vars: Option<Vars<'o>>,
}

/// A SavedModel's variables bundle, and each object graph node's key in it.
struct Vars<'o> {
    bundle: crate::formats::Bundle<'o>,
    shards: tfc::Shards,
    keys: Vec<Option<Vec<u8>>>,
}

/// `tensorflow.SavedModel`: see the module comment.
pub fn saved_model(
    w: &mut dyn Write,
    _set: &SchemaSet,
    msg: &Message<'_>,
    opts: &RenderOptions,
) -> io::Result<()> {
    let saved = opts.dir.as_ref().and_then(tfc::SavedVariables::read);
    let vars = saved.as_ref().and_then(|s| {
        let bundle = s.bundle().ok()?;
        // The shards are named inside the model's folder.
        let shards = tfc::saved_model_shards(&bundle);
        let keys = tfc::variable_keys(&bundle, &shards, opts.dir.as_ref());
        Some(Vars {
            bundle,
            shards,
            keys,
        })
    });
    let cx = Ctx {
        set: SchemaSet::builtin(),
        opts,
        vars,
    };
    let mut msg = Shown::new(cx.set, msg);
    let summary = (SAVED_MODEL.summary)(cx.set, msg.msg());
    msg.take(SavedModel::SAVED_MODEL_SCHEMA_VERSION);
    for line in super::summary::lines(SAVED_MODEL.id, &summary, opts) {
        writeln!(w, "{}: {}", line.label, line.text)?;
    }
    let metas = msg.messages(SavedModel::META_GRAPHS);
    for (i, mg) in metas.iter().enumerate() {
        writeln!(w)?;
        meta_graph(w, &cx, i, mg)?;
    }
    msg.rest(w, 0, opts)
}

/// `tensorflow.GraphDef` (a frozen graph): see the module comment.
pub fn graph_def(
    w: &mut dyn Write,
    _set: &SchemaSet,
    msg: &Message<'_>,
    opts: &RenderOptions,
) -> io::Result<()> {
    let cx = Ctx {
        set: SchemaSet::builtin(),
        opts,
        vars: None,
    };
    let mut g = Shown::new(cx.set, msg);
    let summary = (GRAPH_DEF.summary)(cx.set, g.msg());
    for line in super::summary::lines(GRAPH_DEF.id, &summary, opts) {
        writeln!(w, "{}: {}", line.label, line.text)?;
        // The fields of VersionDef the line does not show follow it.
        if line.key == "versions"
            && let Some(v) = g.message(GraphDef::VERSIONS)
        {
            let mut v = Shown::new(cx.set, v);
            for field in [
                VersionDef::PRODUCER,
                VersionDef::MIN_CONSUMER,
                VersionDef::BAD_CONSUMERS,
            ] {
                v.take(field);
            }
            v.rest(w, 1, opts)?;
        }
    }
    writeln!(w)?;
    graph(w, &cx, &mut g, 0)
}

use super::fmt::indent;

/// True when `msg` or a message inside it has fields the schema does not
/// know (only under `--as`): its compact form would hide them.
fn has_unknown(msg: &Message<'_>) -> bool {
    msg.fields.iter().any(|f| match &f.value {
        Value::Unknown(_) => true,
        Value::Message(m) => has_unknown(m),
        _ => false,
    })
}

/// After a compact line: the whole message as a field tree when the line
/// could not show all of it.
fn unknown_tree(
    w: &mut dyn Write,
    cx: &Ctx<'_>,
    label: &str,
    msg: &Message<'_>,
    depth: usize,
) -> io::Result<()> {
    if !has_unknown(msg) {
        return Ok(());
    }
    indent(w, depth)?;
    writeln!(w, "{label} (with fields not in the schema):")?;
    message_fields(w, cx.set, msg, depth + 1, cx.opts)
}

// ---------------------------------------------------------------------------
// Small value formatters

/// A string field as the text views print it: escaped ([`plain`]).
fn str_or<'a>(set: &SchemaSet, msg: &Message<'a>, field: FieldId) -> Cow<'a, str> {
    plain(msg.str(set, field).unwrap_or(""))
}

/// Quotes a string already escaped by [`plain`] (map keys), escaping only
/// the quote character.
fn requote(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\\\""))
}

/// An optional string field, escaped.
fn str_of<'a>(set: &SchemaSet, msg: &Message<'a>, field: FieldId) -> Option<Cow<'a, str>> {
    msg.str(set, field).map(plain)
}

/// An enum field by name (the number when it has none); None when absent.
fn enum_text(set: &SchemaSet, msg: &Message<'_>, field: FieldId) -> Option<String> {
    let (_, fdef) = set.field(msg.def, field)?;
    let v = msg.scalar(set, field)?;
    let n = v.as_i64()?;
    Some(match fdef.ty {
        FieldType::Enum(e) => set
            .enum_def(e)
            .name_of(n)
            .map_or_else(|| n.to_string(), str::to_string),
        _ => n.to_string(),
    })
}

fn dtype_name(set: &SchemaSet, code: i64) -> String {
    set.find_enum("tensorflow.DataType")
        .and_then(|e| set.enum_def(e).name_of(code))
        .map_or_else(|| format!("DataType({code})"), str::to_string)
}

fn dtype_of(set: &SchemaSet, msg: &Message<'_>, field: FieldId) -> String {
    dtype_name(set, msg.int(set, field).unwrap_or(0))
}

/// A TensorShapeProto as `[?, 3]` (`?` an unknown size, `name:size` a named
/// dimension), `[]` a scalar, `<unknown rank>`.
fn shape_text(set: &SchemaSet, shape: Option<&Message<'_>>) -> String {
    let Some(shape) = shape else {
        return "[]".to_string();
    };
    if shape
        .scalar(set, TensorShapeProto::UNKNOWN_RANK)
        .is_some_and(|v| v == ScalarValue::Bool(true))
    {
        return "<unknown rank>".to_string();
    }
    let dims: Vec<String> = shape
        .messages(set, TensorShapeProto::DIM)
        .map(|d| {
            let size = match d.int(set, TensorShapeProto::Dim::SIZE).unwrap_or(0) {
                -1 => "?".to_string(),
                n => n.to_string(),
            };
            match str_of(set, d, TensorShapeProto::Dim::NAME) {
                Some(name) if !name.is_empty() => format!("{name}:{size}"),
                _ => size,
            }
        })
        .collect();
    format!("[{}]", dims.join(", "))
}

/// A repeated integer field as `[1, 2, … N more]`, cut at `--values N`
/// items (64 without it; `--values all` shows every one).
fn int_list(cx: &Ctx<'_>, values: Vec<ScalarValue>) -> String {
    let total = values.len() as u64;
    let limit = usize::try_from(super::elide::list_limit(cx.opts)).unwrap_or(usize::MAX);
    let items: Vec<String> = values
        .into_iter()
        .filter_map(ScalarValue::as_i64)
        .take(limit)
        .map(|x| x.to_string())
        .collect();
    super::elide::bracketed(&items, total)
}

fn float_text(v: f64) -> String {
    format!("{v:?}")
}

/// A float field as the shortest text that reads back as the same f32.
fn f32_text(v: f32) -> String {
    format!("{v:?}")
}

/// Bytes as quoted text; in a preview (no `--values`) long text is cut
/// with its length said, so that one string cannot flood a node line.
fn bytes_text(cx: &Ctx<'_>, b: &[u8]) -> String {
    const PREVIEW: usize = 64;
    if cx.opts.values.is_some() || b.len() <= PREVIEW {
        return quoted(b);
    }
    match std::str::from_utf8(b) {
        Ok(s) => {
            let cut = (0..=PREVIEW)
                .rev()
                .find(|&i| s.is_char_boundary(i))
                .unwrap_or(0);
            let head = s.get(..cut).unwrap_or("");
            format!(
                "{}… ({} of {} bytes left out: --values all shows them)",
                quoted_str(head),
                super::elide::grouped(b.len().saturating_sub(cut) as u64),
                super::elide::grouped(b.len() as u64)
            )
        }
        Err(_) => quoted(b),
    }
}

fn element_text(cx: &Ctx<'_>, e: Element<'_>) -> String {
    match e {
        Element::Str(s) => bytes_text(cx, s),
        e => super::fmt::element_text(e),
    }
}

/// A small tensor on one line (`DT_INT32 [2, 2] {1, 2, 3, 4}`), or None when
/// it needs a block: many values, fields beyond dtype/shape/values, values
/// that cannot be shown.
fn tensor_inline(cx: &Ctx<'_>, t: &Message<'_>) -> Option<String> {
    let set = cx.set;
    let adapter = tensor_adapter(&t.def(set).full_name)?;
    // The line shows the type (the view's type name), the shape and the
    // values; a tensor with any other field gets a block.
    let mut shown = Shown::new(set, t);
    shown.take(TensorProto::DTYPE);
    let shape = shape_text(set, shown.message(TensorProto::TENSOR_SHAPE));
    for f in adapter.value_fields {
        shown.take(*f);
    }
    if shown.has_rest() {
        return None;
    }
    let view = (adapter.view)(set, t);
    if view.elements > INLINE_VALUES {
        return None;
    }
    let head = format!("{} {shape}", view.type_name);
    let mut loaded = load_values(&view, cx.opts);
    let mut items: Vec<String> = Vec::new();
    match &loaded {
        LoadedValues::Unavailable(_) => return None,
        LoadedValues::Nothing => return Some(format!("{head} {{}}")),
        _ => {}
    }
    let _ = for_each_element(&mut loaded, |e| -> Result<(), ()> {
        items.push(element_text(cx, e));
        Ok(())
    });
    Some(format!("{head} {{{}}}", items.join(", ")))
}

/// A tensor for a node line: inline, or a summary pointing to the block
/// printed under the line (pushed onto `blocks`).
fn tensor_ref<'m, 'a>(
    cx: &Ctx<'_>,
    label: String,
    t: &'m Message<'a>,
    blocks: &mut Vec<(String, &'m Message<'a>)>,
) -> String {
    if let Some(s) = tensor_inline(cx, t) {
        return s;
    }
    let set = cx.set;
    let summary = format!(
        "{} {} (below)",
        dtype_of(set, t, TensorProto::DTYPE),
        shape_text(set, t.message(set, TensorProto::TENSOR_SHAPE))
    );
    blocks.push((label, t));
    summary
}

/// One AttrValue, compactly: `"text"`, `42`, `0.5`, `true`, `DT_FLOAT`,
/// `[?, 3]`, a tensor, `[...]` for a list, `Fn{attr=...}`, `$placeholder`.
fn attr_value<'m, 'a>(
    cx: &Ctx<'_>,
    label: &str,
    av: &'m Message<'a>,
    blocks: &mut Vec<(String, &'m Message<'a>)>,
) -> String {
    let set = cx.set;
    if let Some(b) = av.bytes(set, AttrValue::S) {
        return bytes_text(cx, b);
    }
    if let Some(v) = av.int(set, AttrValue::I) {
        return v.to_string();
    }
    if let Some(ScalarValue::F32(v)) = av.scalar(set, AttrValue::F) {
        return f32_text(v);
    }
    if let Some(ScalarValue::Bool(b)) = av.scalar(set, AttrValue::B) {
        return b.to_string();
    }
    if av.has(set, AttrValue::TYPE) {
        return dtype_of(set, av, AttrValue::TYPE);
    }
    if let Some(shape) = av.message(set, AttrValue::SHAPE) {
        return shape_text(set, Some(shape));
    }
    if let Some(t) = av.message(set, AttrValue::TENSOR) {
        return tensor_ref(cx, label.to_string(), t, blocks);
    }
    if let Some(list) = av.message(set, AttrValue::LIST) {
        return list_value(cx, label, list, blocks);
    }
    if let Some(f) = av.message(set, AttrValue::FUNC) {
        return func_text(cx, label, f, blocks);
    }
    if let Some(p) = str_of(set, av, AttrValue::PLACEHOLDER) {
        return format!("${p}");
    }
    "<unset>".to_string()
}

/// One attribute value of a node as its line prints it (the graph view's
/// attribute list; a large tensor as its type and shape).
pub fn node_attribute_text(av: &Message<'_>, opts: &RenderOptions) -> String {
    let cx = Ctx {
        set: SchemaSet::builtin(),
        opts,
        vars: None,
    };
    let mut blocks = Vec::new();
    attr_value(&cx, "", av, &mut blocks)
}

fn list_value<'m, 'a>(
    cx: &Ctx<'_>,
    label: &str,
    list: &'m Message<'a>,
    blocks: &mut Vec<(String, &'m Message<'a>)>,
) -> String {
    let set = cx.set;
    let mut items: Vec<String> = Vec::new();
    for f in list.field(set, AttrValue::ListValue::S) {
        if let Value::Bytes(b) = f.value {
            items.push(bytes_text(cx, b));
        }
    }
    items.extend(
        list.scalars(set, AttrValue::ListValue::I)
            .filter_map(|v| v.as_i64().map(|n| n.to_string())),
    );
    items.extend(list.scalars(set, AttrValue::ListValue::F).map(|v| match v {
        ScalarValue::F32(x) => f32_text(x),
        other => format!("{other:?}"),
    }));
    items.extend(list.scalars(set, AttrValue::ListValue::B).map(|v| match v {
        ScalarValue::Bool(b) => b.to_string(),
        other => format!("{other:?}"),
    }));
    items.extend(
        list.scalars(set, AttrValue::ListValue::TYPE)
            .filter_map(|v| v.as_i64())
            .map(|n| dtype_name(set, n)),
    );
    items.extend(
        list.messages(set, AttrValue::ListValue::SHAPE)
            .map(|s| shape_text(set, Some(s))),
    );
    for (k, t) in list.messages(set, AttrValue::ListValue::TENSOR).enumerate() {
        items.push(tensor_ref(cx, format!("{label}[{k}]"), t, blocks));
    }
    for (k, f) in list.messages(set, AttrValue::ListValue::FUNC).enumerate() {
        items.push(func_text(cx, &format!("{label}[{k}]"), f, blocks));
    }
    let total = items.len() as u64;
    items.truncate(usize::try_from(super::elide::list_limit(cx.opts)).unwrap_or(usize::MAX));
    super::elide::bracketed(&items, total)
}

/// A NameAttrList: `Name{k=v, ...}` (just `Name` without attributes).
fn func_text<'m, 'a>(
    cx: &Ctx<'_>,
    label: &str,
    f: &'m Message<'a>,
    blocks: &mut Vec<(String, &'m Message<'a>)>,
) -> String {
    let set = cx.set;
    let attrs = attr_map(
        cx,
        label,
        f.messages(set, NameAttrList::ATTR).collect(),
        blocks,
    );
    let name = str_or(set, f, NameAttrList::NAME);
    if attrs.is_empty() {
        name.to_string()
    } else {
        format!("{name}{{{attrs}}}")
    }
}

/// The key and value of a map entry.
fn entry<'m, 'a>(set: &SchemaSet, e: &'m Message<'a>) -> (String, Option<&'m Value<'a>>) {
    let def = e.def(set);
    let key = def
        .field_by_number(1)
        .map(|(slot, kdef)| match e.slot(slot).last().map(|f| &f.value) {
            Some(Value::Bytes(b)) => plain_bytes(b),
            Some(Value::Scalar(raw)) => match ScalarValue::from_raw(kdef.ty, *raw) {
                ScalarValue::U64(v) => v.to_string(),
                other => other.as_i64().map_or_else(String::new, |n| n.to_string()),
            },
            // An absent key is its type's default.
            None if kdef.ty.wire_type() != crate::wire::WireType::Len => 0.to_string(),
            _ => String::new(),
        })
        .unwrap_or_default();
    let value = def
        .field_by_number(2)
        .and_then(|(slot, _)| e.slot(slot).last().map(|f| &f.value));
    (key, value)
}

/// The entries of a map field whose values are messages, in wire order.
fn map_messages<'m, 'a>(
    set: &SchemaSet,
    entries: Vec<&'m Message<'a>>,
) -> Vec<(String, Option<&'m Message<'a>>)> {
    entries
        .into_iter()
        .map(|e| {
            let (k, v) = entry(set, e);
            let m = match v {
                Some(Value::Message(m)) => Some(m.as_ref()),
                _ => None,
            };
            (k, m)
        })
        .collect()
}

/// A map<string, AttrValue> (its entries) as `k=v, k=v`.
fn attr_map<'m, 'a>(
    cx: &Ctx<'_>,
    label: &str,
    entries: Vec<&'m Message<'a>>,
    blocks: &mut Vec<(String, &'m Message<'a>)>,
) -> String {
    map_messages(cx.set, entries)
        .into_iter()
        .map(|(k, v)| {
            let shown = match v {
                Some(av) => attr_value(cx, &format!("{label}.{k}"), av, blocks),
                None => "<unset>".to_string(),
            };
            format!("{k}={shown}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A map<string, string> (or other scalar map; its entries) as `k = v, ...`.
fn scalar_map(set: &SchemaSet, entries: Vec<&Message<'_>>, sep: &str) -> String {
    entries
        .into_iter()
        .map(|e| {
            let (k, v) = entry(set, e);
            let v = match v {
                Some(Value::Bytes(b)) => plain_bytes(b),
                Some(Value::Scalar(n)) => n.to_string(),
                _ => String::new(),
            };
            format!("{k}{sep}{v}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn full_type(set: &SchemaSet, t: &Message<'_>) -> String {
    let mut s = enum_text(set, t, FullTypeDef::TYPE_ID).unwrap_or_else(|| "TFT_UNSET".to_string());
    let args: Vec<String> = t
        .messages(set, FullTypeDef::ARGS)
        .map(|a| full_type(set, a))
        .collect();
    if let Some(v) = t.str(set, FullTypeDef::S) {
        s.push_str(&format!("({})", quoted_str(v)));
    } else if let Some(i) = t.int(set, FullTypeDef::I) {
        s.push_str(&format!("({i})"));
    }
    if !args.is_empty() {
        s.push_str(&format!("[{}]", args.join(", ")));
    }
    s
}

// ---------------------------------------------------------------------------
// Graphs and nodes

/// `name = Op(inputs) {attrs} @device`, then the blocks of large tensors,
/// debug info, the full type and any other field.
fn node(w: &mut dyn Write, cx: &Ctx<'_>, n: &Message<'_>, depth: usize) -> io::Result<()> {
    let set = cx.set;
    let mut n = Shown::new(set, n);
    let name = plain(n.str(NodeDef::NAME).unwrap_or(""));
    let inputs = strings(&mut n, NodeDef::INPUT);
    let mut blocks = Vec::new();
    let attr_entries = n.messages(NodeDef::ATTR);
    let attrs = attr_map(cx, "", attr_entries.clone(), &mut blocks);
    indent(w, depth)?;
    write!(
        w,
        "{name} = {}({})",
        plain(n.str(NodeDef::OP).unwrap_or("")),
        inputs.join(", ")
    )?;
    if !attrs.is_empty() {
        write!(w, " {{{attrs}}}")?;
    }
    if let Some(d) = n.str(NodeDef::DEVICE).map(plain).filter(|d| !d.is_empty()) {
        write!(w, " @{d}")?;
    }
    writeln!(w)?;
    for (label, t) in blocks {
        indent(w, depth + 2)?;
        writeln!(w, "{}:", label.trim_start_matches('.'))?;
        tensor_block(w, set, t, depth + 3, cx.opts, false)?;
    }
    if let Some(dbg) = n.message(NodeDef::EXPERIMENTAL_DEBUG_INFO) {
        let list = |field: FieldId| -> Vec<String> {
            dbg.field(set, field)
                .iter()
                .filter_map(|f| match f.value {
                    Value::Bytes(b) => Some(plain_bytes(b)),
                    _ => None,
                })
                .collect()
        };
        let nodes = list(NodeDef::ExperimentalDebugInfo::ORIGINAL_NODE_NAMES);
        let funcs = list(NodeDef::ExperimentalDebugInfo::ORIGINAL_FUNC_NAMES);
        indent(w, depth + 2)?;
        writeln!(
            w,
            "from nodes [{}], functions [{}]",
            nodes.join(", "),
            funcs.join(", ")
        )?;
        unknown_tree(w, cx, "experimental_debug_info", dbg, depth + 2)?;
    }
    if let Some(t) = n.message(NodeDef::EXPERIMENTAL_TYPE) {
        indent(w, depth + 2)?;
        writeln!(w, "full type: {}", full_type(set, t))?;
        unknown_tree(w, cx, "experimental_type", t, depth + 2)?;
    }
    for (key, av) in map_messages(set, attr_entries) {
        if let Some(av) = av {
            unknown_tree(w, cx, &format!("attr[{key}]"), av, depth + 2)?;
        }
    }
    n.rest(w, depth + 2, cx.opts)
}

/// A GraphDef: versions, nodes, the function library (unless already
/// printed: marked in `g`), debug info.
fn graph(
    w: &mut dyn Write,
    cx: &Ctx<'_>,
    g: &mut Shown<'_, '_, '_>,
    depth: usize,
) -> io::Result<()> {
    // A GraphDef file's header has shown them already.
    if !g.marked(GraphDef::VERSIONS)
        && let Some(v) = g.message(GraphDef::VERSIONS)
    {
        indent(w, depth)?;
        versions(w, cx, v, depth)?;
    }
    if let Some(v) = g.int(GraphDef::VERSION) {
        indent(w, depth)?;
        writeln!(w, "version (deprecated): {v}")?;
    }
    let nodes = g.field(GraphDef::NODE);
    indent(w, depth)?;
    writeln!(w, "nodes ({}):", nodes.len())?;
    for f in nodes {
        if let Value::Message(n) = &f.value {
            node(w, cx, n, depth + 1)?;
        }
    }
    if !g.marked(GraphDef::LIBRARY)
        && let Some(lib) = g.message(GraphDef::LIBRARY)
    {
        library(w, cx, lib, depth)?;
    }
    g.rest(w, depth, cx.opts)
}

fn versions(w: &mut dyn Write, cx: &Ctx<'_>, v: &Message<'_>, depth: usize) -> io::Result<()> {
    let mut v = Shown::new(cx.set, v);
    write!(
        w,
        "versions: producer {}, min_consumer {}",
        v.int(VersionDef::PRODUCER).unwrap_or(0),
        v.int(VersionDef::MIN_CONSUMER).unwrap_or(0)
    )?;
    let bad = v.scalars(VersionDef::BAD_CONSUMERS);
    if !bad.is_empty() {
        write!(w, ", bad_consumers {}", int_list(cx, bad))?;
    }
    writeln!(w)?;
    v.rest(w, depth + 1, cx.opts)
}

// ---------------------------------------------------------------------------
// Op signatures and the function library

/// `name: type` of an OpDef.ArgDef: a dtype, a type attr, `N*T` for a
/// number attr, a type-list attr; `ref`, resource handle data, full type.
fn arg_text(a: &mut Shown<'_, '_, '_>, opts: &RenderOptions) -> String {
    let set = a.set();
    // Each way of naming the type is read (and so marked printed) only
    // when the ones before it are absent: one set beside it shows raw.
    let mut ty = if a.has(OpDef::ArgDef::TYPE) {
        dtype_name(set, a.int(OpDef::ArgDef::TYPE).unwrap_or(0))
    } else if let Some(t) = a
        .str(OpDef::ArgDef::TYPE_LIST_ATTR)
        .map(plain)
        .filter(|s| !s.is_empty())
    {
        t.to_string()
    } else {
        plain(a.str(OpDef::ArgDef::TYPE_ATTR).unwrap_or("")).to_string()
    };
    if let Some(n) = a
        .str(OpDef::ArgDef::NUMBER_ATTR)
        .map(plain)
        .filter(|s| !s.is_empty())
    {
        ty = format!("{n}*{ty}");
    }
    if a.scalar(OpDef::ArgDef::IS_REF) == Some(ScalarValue::Bool(true)) {
        ty = format!("ref {ty}");
    }
    let handles: Vec<String> = a
        .messages(OpDef::ArgDef::HANDLE_DATA)
        .into_iter()
        .map(|h| {
            format!(
                "{} {}",
                dtype_of(set, h, ResourceHandleProto::DtypeAndShape::DTYPE),
                shape_text(
                    set,
                    h.message(set, ResourceHandleProto::DtypeAndShape::SHAPE)
                )
            )
        })
        .collect();
    if !handles.is_empty() {
        ty.push_str(&format!(" <{}>", handles.join(", ")));
    }
    if let Some(t) = a.message(OpDef::ArgDef::EXPERIMENTAL_FULL_TYPE) {
        ty.push_str(&format!(" :: {}", full_type(set, t)));
    }
    let mut s = format!("{}: {ty}", plain(a.str(OpDef::ArgDef::NAME).unwrap_or("")));
    if let Some(d) = a.str(OpDef::ArgDef::DESCRIPTION).filter(|s| !s.is_empty()) {
        s.push_str(&format!(
            " # {}",
            super::elide::quoted_long(d.as_bytes(), opts)
        ));
    }
    s
}

/// `Name(a: T, b: DT_INT32) -> (y: T), control outputs [..] [stateful]`,
/// and the arguments with the fields the line shows marked printed.
fn op_signature<'s, 'm, 'a>(
    op: &mut Shown<'s, 'm, 'a>,
    opts: &RenderOptions,
) -> (String, Vec<Shown<'s, 'm, 'a>>) {
    let set = op.set();
    let mut args = Vec::new();
    let mut texts = |field: FieldId| -> String {
        let mut out = Vec::new();
        for a in op.messages(field) {
            let mut a = Shown::new(set, a);
            out.push(arg_text(&mut a, opts));
            args.push(a);
        }
        out.join(", ")
    };
    let inputs = texts(OpDef::INPUT_ARG);
    let outputs = texts(OpDef::OUTPUT_ARG);
    let mut s = format!(
        "{}({inputs}) -> ({outputs})",
        plain(op.str(OpDef::NAME).unwrap_or(""))
    );
    let control = strings(op, OpDef::CONTROL_OUTPUT);
    if !control.is_empty() {
        s.push_str(&format!(", control outputs [{}]", control.join(", ")));
    }
    let flags: Vec<&str> = [
        (OpDef::IS_STATEFUL, "stateful"),
        (OpDef::IS_COMMUTATIVE, "commutative"),
        (OpDef::IS_AGGREGATE, "aggregate"),
        (
            OpDef::ALLOWS_UNINITIALIZED_INPUT,
            "allows uninitialized input",
        ),
        (
            OpDef::IS_DISTRIBUTED_COMMUNICATION,
            "distributed communication",
        ),
    ]
    .iter()
    .filter(|(f, _)| op.scalar(*f) == Some(ScalarValue::Bool(true)))
    .map(|(_, label)| *label)
    .collect();
    if !flags.is_empty() {
        s.push_str(&format!(" [{}]", flags.join(", ")));
    }
    (s, args)
}

/// `T: type in {DT_FLOAT, DT_DOUBLE} = DT_FLOAT`, `N: int >= 1`.
fn attr_def<'m, 'a>(
    cx: &Ctx<'_>,
    a: &mut Shown<'_, 'm, 'a>,
    blocks: &mut Vec<(String, &'m Message<'a>)>,
) -> String {
    let name = plain(a.str(OpDef::AttrDef::NAME).unwrap_or(""));
    let mut s = format!(
        "{name}: {}",
        plain(a.str(OpDef::AttrDef::TYPE).unwrap_or(""))
    );
    if let Some(allowed) = a.message(OpDef::AttrDef::ALLOWED_VALUES) {
        s.push_str(&format!(
            " in {}",
            attr_value(cx, &format!("{name}.allowed"), allowed, blocks)
        ));
    }
    // The minimum is shown only when has_minimum says it applies; one set
    // without it is printed raw.
    if a.scalar(OpDef::AttrDef::HAS_MINIMUM) == Some(ScalarValue::Bool(true)) {
        s.push_str(&format!(
            " >= {}",
            a.int(OpDef::AttrDef::MINIMUM).unwrap_or(0)
        ));
    }
    if let Some(d) = a.message(OpDef::AttrDef::DEFAULT_VALUE) {
        s.push_str(&format!(
            " = {}",
            attr_value(cx, &format!("{name}.default"), d, blocks)
        ));
    }
    if let Some(d) = a.str(OpDef::AttrDef::DESCRIPTION).filter(|s| !s.is_empty()) {
        s.push_str(&format!(
            " # {}",
            super::elide::quoted_long(d.as_bytes(), cx.opts)
        ));
    }
    s
}

/// An OpDef: the signature line, its attribute definitions, the rest.
fn op_def(
    w: &mut dyn Write,
    cx: &Ctx<'_>,
    op: &Message<'_>,
    depth: usize,
    what: &str,
) -> io::Result<()> {
    let set = cx.set;
    let mut op = Shown::new(set, op);
    indent(w, depth)?;
    let (signature, args) = op_signature(&mut op, cx.opts);
    writeln!(w, "{what}{signature}")?;
    let mut blocks = Vec::new();
    let mut attr_defs: Vec<Shown<'_, '_, '_>> = op
        .messages(OpDef::ATTR)
        .into_iter()
        .map(|a| Shown::new(set, a))
        .collect();
    let attrs: Vec<String> = attr_defs
        .iter_mut()
        .map(|a| attr_def(cx, a, &mut blocks))
        .collect();
    if !attrs.is_empty() {
        indent(w, depth + 2)?;
        writeln!(w, "attrs: {}", attrs.join("; "))?;
    }
    for (label, t) in blocks {
        indent(w, depth + 2)?;
        writeln!(w, "{label}:")?;
        tensor_block(w, set, t, depth + 3, cx.opts, false)?;
    }
    for a in &args {
        a.rest(w, depth + 2, cx.opts)?;
    }
    for a in &mut attr_defs {
        a.rest(w, depth + 2, cx.opts)?;
        for field in [
            OpDef::AttrDef::DEFAULT_VALUE,
            OpDef::AttrDef::ALLOWED_VALUES,
        ] {
            if let Some(m) = a.message(field) {
                unknown_tree(w, cx, field.name, m, depth + 2)?;
            }
        }
    }
    op.rest(w, depth + 2, cx.opts)
}

fn function(w: &mut dyn Write, cx: &Ctx<'_>, f: &Message<'_>, depth: usize) -> io::Result<()> {
    let set = cx.set;
    let mut f = Shown::new(set, f);
    match f.message(FunctionDef::SIGNATURE) {
        Some(sig) => op_def(w, cx, sig, depth, "")?,
        None => {
            indent(w, depth)?;
            writeln!(w, "(a function without a signature)")?;
        }
    }
    let d = depth + 2;
    let mut blocks = Vec::new();
    let attr_entries = f.messages(FunctionDef::ATTR);
    let attrs = attr_map(cx, "attr", attr_entries.clone(), &mut blocks);
    if !attrs.is_empty() {
        indent(w, d)?;
        writeln!(w, "function attrs: {attrs}")?;
    }
    let arg_attrs = f.messages(FunctionDef::ARG_ATTR);
    for e in &arg_attrs {
        let (k, v) = entry(set, e);
        if let Some(Value::Message(m)) = v {
            let entries = m.messages(set, FunctionDef::ArgAttrs::ATTR).collect();
            let shown = attr_map(cx, &format!("arg {k}"), entries, &mut blocks);
            indent(w, d)?;
            writeln!(w, "arg {k} attrs: {shown}")?;
        }
    }
    for (label, t) in blocks {
        indent(w, d)?;
        writeln!(w, "{label}:")?;
        tensor_block(w, set, t, d + 1, cx.opts, false)?;
    }
    let ids = scalar_map(set, f.messages(FunctionDef::RESOURCE_ARG_UNIQUE_ID), " -> ");
    if !ids.is_empty() {
        indent(w, d)?;
        writeln!(w, "resource arg unique ids: {ids}")?;
    }
    let nodes = f.field(FunctionDef::NODE_DEF);
    if !nodes.is_empty() {
        indent(w, d)?;
        writeln!(w, "nodes ({}):", nodes.len())?;
        for n in nodes {
            if let Value::Message(n) = &n.value {
                node(w, cx, n, d + 1)?;
            }
        }
    }
    let ret = scalar_map(set, f.messages(FunctionDef::RET), " = ");
    if !ret.is_empty() {
        indent(w, d)?;
        writeln!(w, "ret: {ret}")?;
    }
    let cret = scalar_map(set, f.messages(FunctionDef::CONTROL_RET), " = ");
    if !cret.is_empty() {
        indent(w, d)?;
        writeln!(w, "control ret: {cret}")?;
    }
    for e in arg_attrs {
        unknown_tree(w, cx, "arg_attr", e, d)?;
    }
    for e in attr_entries {
        unknown_tree(w, cx, "attr", e, d)?;
    }
    f.rest(w, d, cx.opts)
}

fn library(w: &mut dyn Write, cx: &Ctx<'_>, lib: &Message<'_>, depth: usize) -> io::Result<()> {
    let set = cx.set;
    let mut lib = Shown::new(set, lib);
    let functions = lib.field(FunctionDefLibrary::FUNCTION);
    let gradients = lib.messages(FunctionDefLibrary::GRADIENT);
    let registered = lib.messages(FunctionDefLibrary::REGISTERED_GRADIENTS);
    indent(w, depth)?;
    writeln!(
        w,
        "function library ({} function{}, {} gradient{}, {} registered gradient{}):",
        functions.len(),
        plural(functions.len()),
        gradients.len(),
        plural(gradients.len()),
        registered.len(),
        plural(registered.len())
    )?;
    for f in functions {
        if let Value::Message(f) = &f.value {
            function(w, cx, f, depth + 1)?;
        }
    }
    for g in gradients {
        let mut g = Shown::new(set, g);
        indent(w, depth + 1)?;
        writeln!(
            w,
            "gradient of {}: {}",
            plain(g.str(GradientDef::FUNCTION_NAME).unwrap_or("")),
            plain(g.str(GradientDef::GRADIENT_FUNC).unwrap_or(""))
        )?;
        g.rest(w, depth + 2, cx.opts)?;
    }
    for g in registered {
        let mut g = Shown::new(set, g);
        indent(w, depth + 1)?;
        writeln!(
            w,
            "registered gradient of op {}: {}",
            plain(g.str(RegisteredGradient::REGISTERED_OP_TYPE).unwrap_or("")),
            plain(g.str(RegisteredGradient::GRADIENT_FUNC).unwrap_or(""))
        )?;
        g.rest(w, depth + 2, cx.opts)?;
    }
    lib.rest(w, depth + 1, cx.opts)
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

// ---------------------------------------------------------------------------
// SavedModel parts

/// The strings of a repeated string field, escaped.
fn strings(msg: &mut Shown<'_, '_, '_>, field: FieldId) -> Vec<String> {
    msg.strings(field).into_iter().map(plain_bytes).collect()
}

/// A MetaGraphDef on its own (an event's `meta_graph_def`), as a
/// SavedModel's meta graph is shown.
pub fn meta_graph_def(
    w: &mut dyn Write,
    _set: &SchemaSet,
    msg: &Message<'_>,
    opts: &RenderOptions,
) -> io::Result<()> {
    let cx = Ctx {
        set: SchemaSet::builtin(),
        opts,
        vars: None,
    };
    meta_graph(w, &cx, 0, msg)
}

fn meta_graph(w: &mut dyn Write, cx: &Ctx<'_>, i: usize, mg: &Message<'_>) -> io::Result<()> {
    let set = cx.set;
    let mut mg = Shown::new(set, mg);
    let mut info = mg
        .message(MetaGraphDef::META_INFO_DEF)
        .map(|m| Shown::new(set, m));
    let tags = info
        .as_mut()
        .map(|m| strings(m, MetaGraphDef::MetaInfoDef::TAGS))
        .unwrap_or_default();
    writeln!(w, "MetaGraphDef {i} with tag-set: {{{}}}", tags.join(", "))?;
    let mut ops = None;
    if let Some(info) = &mut info {
        for (field, label) in [
            (
                MetaGraphDef::MetaInfoDef::TENSORFLOW_VERSION,
                "tensorflow version",
            ),
            (
                MetaGraphDef::MetaInfoDef::TENSORFLOW_GIT_VERSION,
                "tensorflow git version",
            ),
            (
                MetaGraphDef::MetaInfoDef::META_GRAPH_VERSION,
                "meta graph version",
            ),
        ] {
            if let Some(v) = info.str(field).map(plain) {
                writeln!(w, "  {label}: {v}")?;
            }
        }
        if let Some(ScalarValue::Bool(b)) =
            info.scalar(MetaGraphDef::MetaInfoDef::STRIPPED_DEFAULT_ATTRS)
        {
            writeln!(w, "  stripped default attrs: {b}")?;
        }
        // Printed last, below.
        ops = info.message(MetaGraphDef::MetaInfoDef::STRIPPED_OP_LIST);
        info.rest(w, 1, cx.opts)?;
    }
    writeln!(w)?;
    signatures(w, cx, mg.messages(MetaGraphDef::SIGNATURE_DEF))?;
    if let Some(og) = mg.message(MetaGraphDef::OBJECT_GRAPH_DEF) {
        writeln!(w)?;
        object_graph(w, cx, og)?;
    }
    if let Some(g) = mg.message(MetaGraphDef::GRAPH_DEF) {
        let mut g = Shown::new(set, g);
        if let Some(lib) = g.message(GraphDef::LIBRARY) {
            writeln!(w)?;
            library(w, cx, lib, 1)?;
        }
        writeln!(w)?;
        writeln!(w, "  graph:")?;
        graph(w, cx, &mut g, 2)?;
        if mg
            .msg()
            .message(set, MetaGraphDef::OBJECT_GRAPH_DEF)
            .is_none()
            && let Some(vars) = &cx.vars
        {
            tf1_variables(w, cx, vars, g.msg())?;
        }
    }
    if let Some(ops) = ops {
        let mut ops = Shown::new(set, ops);
        let list = ops.field(OpList::OP);
        writeln!(w)?;
        writeln!(w, "  stripped op list ({} ops):", list.len())?;
        for op in list {
            if let Value::Message(op) = &op.value {
                op_def(w, cx, op, 2, "")?;
            }
        }
        ops.rest(w, 2, cx.opts)?;
    }
    if mg.has_rest() {
        writeln!(w)?;
        mg.rest(w, 1, cx.opts)?;
    }
    Ok(())
}

/// A TensorFlow 1 model's variables (it has no object graph): each
/// variable node with its values in `variables/`, under the key its saver
/// restores it from.
fn tf1_variables(
    w: &mut dyn Write,
    cx: &Ctx<'_>,
    vars: &Vars<'_>,
    graph: &Message<'_>,
) -> io::Result<()> {
    let found = tfc::tf1_variables(cx.set, graph);
    if found.is_empty() {
        return Ok(());
    }
    writeln!(w)?;
    writeln!(
        w,
        "  variables ({}, by the saver's keys in variables/):",
        found.len()
    )?;
    for (i, node, key) in found {
        let name = node.bytes(cx.set, NodeDef::NAME).unwrap_or_default();
        writeln!(
            w,
            "    {}  (node {i}, {})",
            quoted(name),
            node.str(cx.set, NodeDef::OP).unwrap_or_default()
        )?;
        key_values(w, cx, vars, &key)?;
    }
    Ok(())
}

fn signatures(w: &mut dyn Write, cx: &Ctx<'_>, entries: Vec<&Message<'_>>) -> io::Result<()> {
    let set = cx.set;
    let sigs = map_messages(set, entries);
    writeln!(w, "  signatures ({}):", sigs.len())?;
    for (name, sig) in sigs {
        let Some(sig) = sig else {
            writeln!(w, "    signature_def[{}]: (empty)", requote(&name))?;
            continue;
        };
        let mut sig = Shown::new(set, sig);
        writeln!(
            w,
            "    signature_def[{}]  method: {}",
            requote(&name),
            match sig.str(SignatureDef::METHOD_NAME).map(plain) {
                Some(m) if !m.is_empty() => m,
                _ => Cow::Borrowed("(none)"),
            }
        )?;
        for (field, label) in [
            (SignatureDef::INPUTS, "inputs"),
            (SignatureDef::OUTPUTS, "outputs"),
        ] {
            let items = map_messages(set, sig.messages(field));
            if items.is_empty() {
                writeln!(w, "      {label}: (none)")?;
                continue;
            }
            writeln!(w, "      {label}:")?;
            for (key, info) in items {
                match info {
                    Some(info) => tensor_info(w, cx, &key, info, 4)?,
                    None => writeln!(w, "        {key}: (empty)")?,
                }
            }
        }
        let defaults = map_messages(set, sig.messages(SignatureDef::DEFAULTS));
        if !defaults.is_empty() {
            writeln!(w, "      defaults:")?;
            for (key, t) in defaults {
                let Some(t) = t else { continue };
                match tensor_inline(cx, t) {
                    Some(s) => writeln!(w, "        {key}: {s}")?,
                    None => {
                        writeln!(w, "        {key}:")?;
                        tensor_block(w, set, t, 5, cx.opts, false)?;
                    }
                }
            }
        }
        sig.rest(w, 3, cx.opts)?;
    }
    Ok(())
}

/// `key: DT_FLOAT [?, 3] <- name:0`, or the sparse or composite encoding.
fn tensor_info(
    w: &mut dyn Write,
    cx: &Ctx<'_>,
    key: &str,
    info: &Message<'_>,
    depth: usize,
) -> io::Result<()> {
    let set = cx.set;
    let mut info = Shown::new(set, info);
    indent(w, depth)?;
    write!(
        w,
        "{key}: {} {}",
        dtype_name(set, info.int(TensorInfo::DTYPE).unwrap_or(0)),
        shape_text(set, info.message(TensorInfo::TENSOR_SHAPE))
    )?;
    if let Some(name) = info.str(TensorInfo::NAME).map(plain) {
        writeln!(w, " <- {name}")?;
    } else if let Some(coo) = info.message(TensorInfo::COO_SPARSE) {
        writeln!(
            w,
            " <- sparse (values {}, indices {}, dense_shape {})",
            str_or(set, coo, TensorInfo::CooSparse::VALUES_TENSOR_NAME),
            str_or(set, coo, TensorInfo::CooSparse::INDICES_TENSOR_NAME),
            str_or(set, coo, TensorInfo::CooSparse::DENSE_SHAPE_TENSOR_NAME)
        )?;
        unknown_tree(w, cx, "coo_sparse", coo, depth + 1)?;
    } else if let Some(ct) = info.message(TensorInfo::COMPOSITE_TENSOR) {
        let spec = ct
            .message(set, TensorInfo::CompositeTensor::TYPE_SPEC)
            .map_or_else(|| "?".to_string(), |s| type_spec(set, s));
        let comps: Vec<&Message<'_>> = ct
            .messages(set, TensorInfo::CompositeTensor::COMPONENTS)
            .collect();
        writeln!(w, " <- composite {spec}, {} components:", comps.len())?;
        for (k, c) in comps.iter().enumerate() {
            tensor_info(w, cx, &format!("[{k}]"), c, depth + 1)?;
        }
        if let Some(s) = ct.message(set, TensorInfo::CompositeTensor::TYPE_SPEC) {
            unknown_tree(w, cx, "type_spec", s, depth + 1)?;
        }
    } else {
        writeln!(w)?;
    }
    info.rest(w, depth + 1, cx.opts)
}

fn type_spec(set: &SchemaSet, s: &Message<'_>) -> String {
    let class = match str_of(set, s, TypeSpecProto::TYPE_SPEC_CLASS_NAME) {
        Some(n) if !n.is_empty() => n.to_string(),
        _ => enum_text(set, s, TypeSpecProto::TYPE_SPEC_CLASS)
            .unwrap_or_else(|| "UNKNOWN".to_string()),
    };
    let state = s
        .message(set, TypeSpecProto::TYPE_STATE)
        .map_or_else(String::new, |v| structured(set, v));
    let mut out = format!("{class}{state}");
    if let Some(n) = s.int(set, TypeSpecProto::NUM_FLAT_COMPONENTS) {
        out.push_str(&format!(" ({n} flat components)"));
    }
    out
}

/// The kinds of a StructuredValue (the members of its oneof `kind`).
const STRUCTURED_KINDS: [FieldId; 16] = [
    StructuredValue::NONE_VALUE,
    StructuredValue::FLOAT64_VALUE,
    StructuredValue::INT64_VALUE,
    StructuredValue::STRING_VALUE,
    StructuredValue::BOOL_VALUE,
    StructuredValue::TENSOR_SHAPE_VALUE,
    StructuredValue::TENSOR_DTYPE_VALUE,
    StructuredValue::TENSOR_SPEC_VALUE,
    StructuredValue::TYPE_SPEC_VALUE,
    StructuredValue::BOUNDED_TENSOR_SPEC_VALUE,
    StructuredValue::LIST_VALUE,
    StructuredValue::TUPLE_VALUE,
    StructuredValue::DICT_VALUE,
    StructuredValue::NAMED_TUPLE_VALUE,
    StructuredValue::TENSOR_VALUE,
    StructuredValue::NUMPY_VALUE,
];

/// The fields of a TensorSpecProto or BoundedTensorSpecProto the text
/// shows.
struct SpecFields {
    shape: FieldId,
    dtype: FieldId,
    name: FieldId,
}

const TENSOR_SPEC: SpecFields = SpecFields {
    shape: TensorSpecProto::SHAPE,
    dtype: TensorSpecProto::DTYPE,
    name: TensorSpecProto::NAME,
};

const BOUNDED_TENSOR_SPEC: SpecFields = SpecFields {
    shape: BoundedTensorSpecProto::SHAPE,
    dtype: BoundedTensorSpecProto::DTYPE,
    name: BoundedTensorSpecProto::NAME,
};

/// A StructuredValue (struct.proto) as Python-like text: `None`, `3`,
/// `'s'`, `(a, b)`, `[a]`, `{'k': v}`, `Name(k=v)`, `TensorSpec(...)`.
fn structured(set: &SchemaSet, v: &Message<'_>) -> String {
    use StructuredValue as S;
    let Some(f) = v.fields.first() else {
        return "None".to_string();
    };
    let name = f
        .slot
        .and_then(|s| v.def(set).fields.get(s))
        .map_or("", |fd| fd.name.as_str());
    let Some(&kind) = STRUCTURED_KINDS.iter().find(|k| k.name == name) else {
        return "<?>".to_string();
    };
    let list = |field: FieldId, values: FieldId| -> Vec<String> {
        v.message(set, field)
            .map(|l| {
                l.messages(set, values)
                    .map(|x| structured(set, x))
                    .collect()
            })
            .unwrap_or_default()
    };
    let spec = |m: &Message<'_>, what: &str, fields: SpecFields| -> String {
        let mut s = format!(
            "{what}({}, {}",
            shape_text(set, m.message(set, fields.shape)),
            dtype_of(set, m, fields.dtype)
        );
        if let Some(n) = m.str(set, fields.name).filter(|n| !n.is_empty()) {
            s.push_str(&format!(", name={}", quoted_str(n)));
        }
        s
    };
    match kind {
        S::NONE_VALUE => "None".to_string(),
        S::FLOAT64_VALUE => match v.scalar(set, kind) {
            Some(ScalarValue::F64(x)) => float_text(x),
            _ => "?".to_string(),
        },
        S::INT64_VALUE => v.int(set, kind).unwrap_or(0).to_string(),
        S::STRING_VALUE => quoted_str(v.str(set, kind).unwrap_or("")),
        S::BOOL_VALUE => match v.scalar(set, kind) {
            Some(ScalarValue::Bool(true)) => "True".to_string(),
            _ => "False".to_string(),
        },
        S::TENSOR_SHAPE_VALUE => shape_text(set, v.message(set, kind)),
        S::TENSOR_DTYPE_VALUE => dtype_of(set, v, kind),
        S::TENSOR_SPEC_VALUE => v
            .message(set, kind)
            .map_or_else(String::new, |m| spec(m, "TensorSpec", TENSOR_SPEC) + ")"),
        S::BOUNDED_TENSOR_SPEC_VALUE => v.message(set, kind).map_or_else(String::new, |m| {
            spec(m, "BoundedTensorSpec", BOUNDED_TENSOR_SPEC) + ", minimum=…, maximum=…)"
        }),
        S::TYPE_SPEC_VALUE => v
            .message(set, kind)
            .map_or_else(String::new, |m| type_spec(set, m)),
        S::LIST_VALUE => format!("[{}]", list(kind, ListValue::VALUES).join(", ")),
        S::TUPLE_VALUE => {
            let items = list(kind, TupleValue::VALUES);
            if items.len() == 1 {
                format!("({},)", items.join(""))
            } else {
                format!("({})", items.join(", "))
            }
        }
        S::DICT_VALUE => {
            let items: Vec<String> = v
                .message(set, kind)
                .map(|d| {
                    d.messages(set, DictValue::FIELDS)
                        .map(|e| {
                            let (k, val) = entry(set, e);
                            let shown = match val {
                                Some(Value::Message(m)) => structured(set, m),
                                _ => "None".to_string(),
                            };
                            format!("{}: {shown}", requote(&k))
                        })
                        .collect()
                })
                .unwrap_or_default();
            format!("{{{}}}", items.join(", "))
        }
        S::NAMED_TUPLE_VALUE => v.message(set, kind).map_or_else(String::new, |nt| {
            let items: Vec<String> = nt
                .messages(set, NamedTupleValue::VALUES)
                .map(|p| {
                    let val = p
                        .message(set, PairValue::VALUE)
                        .map_or_else(|| "None".to_string(), |m| structured(set, m));
                    format!("{}={val}", str_or(set, p, PairValue::KEY))
                })
                .collect();
            format!(
                "{}({})",
                str_or(set, nt, NamedTupleValue::NAME),
                items.join(", ")
            )
        }),
        S::TENSOR_VALUE | S::NUMPY_VALUE => v.message(set, kind).map_or_else(String::new, |t| {
            format!(
                "tensor({} {})",
                dtype_of(set, t, TensorProto::DTYPE),
                shape_text(set, t.message(set, TensorProto::TENSOR_SHAPE))
            )
        }),
        _ => "<?>".to_string(),
    }
}

const OBJECT_KINDS: &[FieldId] = &[
    SavedObject::USER_OBJECT,
    SavedObject::ASSET,
    SavedObject::FUNCTION,
    SavedObject::VARIABLE,
    SavedObject::BARE_CONCRETE_FUNCTION,
    SavedObject::CONSTANT,
    SavedObject::RESOURCE,
    SavedObject::CAPTURED_TENSOR,
];

fn object_graph(w: &mut dyn Write, cx: &Ctx<'_>, og: &Message<'_>) -> io::Result<()> {
    let set = cx.set;
    let mut og = Shown::new(set, og);
    let nodes = og.field(SavedObjectGraph::NODES);
    let concrete = map_messages(set, og.messages(SavedObjectGraph::CONCRETE_FUNCTIONS));
    writeln!(
        w,
        "  object graph ({} nodes, {} concrete functions):",
        nodes.len(),
        concrete.len()
    )?;
    for (i, n) in nodes.iter().enumerate() {
        if let Value::Message(n) = &n.value {
            saved_object(w, cx, i, n)?;
        }
    }
    if !concrete.is_empty() {
        writeln!(w, "    concrete functions:")?;
    }
    for (name, f) in concrete {
        let Some(f) = f else {
            writeln!(w, "      {name}")?;
            continue;
        };
        let mut f = Shown::new(set, f);
        let bound = f.scalars(SavedConcreteFunction::BOUND_INPUTS);
        write!(w, "      {name}")?;
        if !bound.is_empty() {
            write!(w, "  bound inputs: nodes {}", int_list(cx, bound))?;
        }
        writeln!(w)?;
        if let Some(s) = f.message(SavedConcreteFunction::CANONICALIZED_INPUT_SIGNATURE) {
            writeln!(w, "          inputs:  {}", structured(set, s))?;
            unknown_tree(w, cx, "canonicalized_input_signature", s, 5)?;
        }
        if let Some(s) = f.message(SavedConcreteFunction::OUTPUT_SIGNATURE) {
            writeln!(w, "          outputs: {}", structured(set, s))?;
            unknown_tree(w, cx, "output_signature", s, 5)?;
        }
        f.rest(w, 5, cx.opts)?;
    }
    og.rest(w, 2, cx.opts)
}

/// A FunctionSpec: the Python signature and the input signature.
fn function_spec(
    w: &mut dyn Write,
    cx: &Ctx<'_>,
    spec: &Message<'_>,
    depth: usize,
) -> io::Result<()> {
    let set = cx.set;
    let raw = spec;
    let mut spec = Shown::new(set, spec);
    if let Some(a) = spec.message(FunctionSpec::FULLARGSPEC) {
        indent(w, depth)?;
        writeln!(w, "argspec: {}", structured(set, a))?;
    }
    if let Some(s) = spec.message(FunctionSpec::INPUT_SIGNATURE) {
        indent(w, depth)?;
        writeln!(w, "input signature: {}", structured(set, s))?;
    }
    let mut flags = Vec::new();
    if spec.scalar(FunctionSpec::IS_METHOD) == Some(ScalarValue::Bool(true)) {
        flags.push("method".to_string());
    }
    if let Some(j) = enum_text(
        set,
        spec.take(FunctionSpec::JIT_COMPILE),
        FunctionSpec::JIT_COMPILE,
    ) {
        flags.push(format!("jit_compile {j}"));
    }
    if !flags.is_empty() {
        indent(w, depth)?;
        writeln!(w, "{}", flags.join(", "))?;
    }
    unknown_tree(w, cx, "function_spec", raw, depth)?;
    spec.rest(w, depth, cx.opts)
}

fn references(set: &SchemaSet, refs: Vec<&Message<'_>>) -> Vec<String> {
    refs.into_iter()
        .map(|r| {
            format!(
                "{}={}",
                str_or(
                    set,
                    r,
                    TrackableObjectGraph::TrackableObject::ObjectReference::LOCAL_NAME
                ),
                r.int(
                    set,
                    TrackableObjectGraph::TrackableObject::ObjectReference::NODE_ID
                )
                .unwrap_or(0)
            )
        })
        .collect()
}

/// One SavedObject: `[i] kind details`, then its references and the rest.
fn saved_object(w: &mut dyn Write, cx: &Ctx<'_>, i: usize, n: &Message<'_>) -> io::Result<()> {
    let set = cx.set;
    let mut n = Shown::new(set, n);
    // The kind is a oneof: at most one of these is set.
    let mut kind = OBJECT_KINDS
        .iter()
        .find_map(|k| n.message(*k).map(|m| (*k, Shown::new(set, m))));
    write!(w, "    [{i}] ")?;
    let mut spec = None;
    match &mut kind {
        None => write!(w, "(no kind)")?,
        Some((k, m)) => {
            write!(w, "{}", k.name)?;
            spec = kind_details(w, set, *k, m)?;
        }
    }
    if let Some(r) = n
        .str(SavedObject::REGISTERED_NAME)
        .map(plain)
        .filter(|s| !s.is_empty())
    {
        write!(w, " registered as {r}")?;
    }
    writeln!(w)?;
    let children = references(set, n.messages(SavedObject::CHILDREN));
    if !children.is_empty() {
        writeln!(
            w,
            "        children: {}",
            super::elide::list_long(&children, ", ", cx.opts)
        )?;
    }
    let deps = references(set, n.messages(SavedObject::DEPENDENCIES));
    if !deps.is_empty() {
        writeln!(
            w,
            "        dependencies: {}",
            super::elide::list_long(&deps, ", ", cx.opts)
        )?;
    }
    let is_variable = kind
        .as_ref()
        .is_some_and(|(k, _)| *k == SavedObject::VARIABLE);
    if let Some((_, m)) = kind {
        if let Some(spec) = spec {
            function_spec(w, cx, spec, 4)?;
        }
        m.rest(w, 4, cx.opts)?;
    }
    n.rest(w, 4, cx.opts)?;
    if is_variable {
        variable_values(w, cx, i)?;
    }
    Ok(())
}

/// What follows a SavedObject's kind `k` on its line (`m` is the kind's
/// message); the kind's function spec, for a function, shown after it.
fn kind_details<'m, 'a>(
    w: &mut dyn Write,
    set: &SchemaSet,
    k: FieldId,
    m: &mut Shown<'_, 'm, 'a>,
) -> io::Result<Option<&'m Message<'a>>> {
    match k {
        SavedObject::USER_OBJECT => {
            write!(
                w,
                " {}",
                plain(m.str(SavedUserObject::IDENTIFIER).unwrap_or(""))
            )?;
            if let Some(v) = m.message(SavedUserObject::VERSION) {
                write!(
                    w,
                    " (version producer {}, min_consumer {})",
                    v.int(set, VersionDef::PRODUCER).unwrap_or(0),
                    v.int(set, VersionDef::MIN_CONSUMER).unwrap_or(0)
                )?;
            }
        }
        SavedObject::ASSET => {
            write!(
                w,
                " asset_file_def[{}]",
                m.int(SavedAsset::ASSET_FILE_DEF_INDEX).unwrap_or(0)
            )?;
        }
        SavedObject::FUNCTION => {
            write!(
                w,
                " concrete [{}]",
                strings(m, SavedFunction::CONCRETE_FUNCTIONS).join(", ")
            )?;
            return Ok(m.message(SavedFunction::FUNCTION_SPEC));
        }
        SavedObject::VARIABLE => {
            write!(
                w,
                " {}: {} {}",
                plain(m.str(SavedVariable::NAME).unwrap_or("")),
                dtype_name(set, m.int(SavedVariable::DTYPE).unwrap_or(0)),
                shape_text(set, m.message(SavedVariable::SHAPE))
            )?;
            if m.scalar(SavedVariable::TRAINABLE) == Some(ScalarValue::Bool(true)) {
                write!(w, " trainable")?;
            }
            for f in [SavedVariable::SYNCHRONIZATION, SavedVariable::AGGREGATION] {
                if let Some(v) = enum_text(set, m.take(f), f) {
                    write!(w, " {v}")?;
                }
            }
            if let Some(d) = m
                .str(SavedVariable::DEVICE)
                .map(plain)
                .filter(|d| !d.is_empty())
            {
                write!(w, " @{d}")?;
            }
        }
        SavedObject::BARE_CONCRETE_FUNCTION => {
            write!(
                w,
                " {} arguments [{}]",
                plain(
                    m.str(SavedBareConcreteFunction::CONCRETE_FUNCTION_NAME)
                        .unwrap_or("")
                ),
                strings(m, SavedBareConcreteFunction::ARGUMENT_KEYWORDS).join(", ")
            )?;
            if let Some(p) = m.int(SavedBareConcreteFunction::ALLOWED_POSITIONAL_ARGUMENTS) {
                write!(w, " positional {p}")?;
            }
            return Ok(m.message(SavedBareConcreteFunction::FUNCTION_SPEC));
        }
        SavedObject::CONSTANT => {
            write!(
                w,
                " {}",
                plain(m.str(SavedConstant::OPERATION).unwrap_or(""))
            )?;
        }
        SavedObject::RESOURCE => {
            if let Some(d) = m
                .str(SavedResource::DEVICE)
                .map(plain)
                .filter(|d| !d.is_empty())
            {
                write!(w, " @{d}")?;
            }
        }
        SavedObject::CAPTURED_TENSOR => {
            write!(
                w,
                " {} from {}",
                plain(m.str(CapturedTensor::NAME).unwrap_or("")),
                plain(m.str(CapturedTensor::CONCRETE_FUNCTION).unwrap_or(""))
            )?;
        }
        _ => {}
    }
    Ok(None)
}

/// A variable's values from the SavedModel's `variables/` (node `i` of
/// the object graph is node `i` of the checkpoint's, whose attribute
/// names the variable's key in the bundle).
fn variable_values(w: &mut dyn Write, cx: &Ctx<'_>, i: usize) -> io::Result<()> {
    let Some(vars) = &cx.vars else {
        return Ok(());
    };
    let Some(Some(key)) = vars.keys.get(i) else {
        return writeln!(w, "        checkpoint: no key for this node in variables/");
    };
    key_values(w, cx, vars, key)
}

/// The values of `key` in the SavedModel's `variables/`.
fn key_values(w: &mut dyn Write, cx: &Ctx<'_>, vars: &Vars<'_>, key: &[u8]) -> io::Result<()> {
    let Some(e) = tfc::find_entry(&vars.bundle, key) else {
        return writeln!(
            w,
            "        checkpoint: {} is not in variables/",
            quoted(key)
        );
    };
    let opts = cx.opts;
    tfc::with_entry(
        &vars.bundle,
        &vars.shards,
        e,
        opts.dir.as_ref(),
        |view, loaded, crc| {
            writeln!(
                w,
                "        checkpoint: {}  crc32c {}",
                quoted(key),
                crc.word()
            )?;
            super::tree::view_values(w, view, loaded, 4, opts, false)
        },
    )
}
