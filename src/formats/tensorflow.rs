//! TensorFlow formats: SavedModel (`saved_model.pb`) and GraphDef (frozen
//! graphs), and TensorFlow's own TensorProto with its padding rule.

use super::base::{
    Body, Format, FormatOptions, KernelOrder, TensorAdapter, TensorNamer, TensorRole, TensorSink,
    decode_builtin, enclosing, walk,
};
use super::summary::{self, Summary, Value as SummaryValue};
use crate::decode::{DecodeContext, Field, Message, RawScalars, ScalarValue, Value};
use crate::error::{DecodeError, ErrorKind, Result, Rule};
use crate::fields::google::protobuf::Any;
use crate::fields::tensorflow::{
    AttrValue, FunctionDef, FunctionDefLibrary, GraphDef, MetaGraphDef, NodeDef, OpDef, SavedModel,
    SavedObject, SavedObjectGraph, SavedVariable, TensorProto, TensorShapeProto, VersionDef,
};
use crate::schema::{FieldId, SchemaSet};
use crate::tensor::{Elem, TensorData, TensorView, element_count, raw_size};
use crate::wire::WireType;
use std::collections::HashSet;

/// The fields of tensorflow.TensorProto that hold elements.
pub const VALUE_FIELDS: &[FieldId] = &[
    TensorProto::TENSOR_CONTENT,
    TensorProto::HALF_VAL,
    TensorProto::FLOAT_VAL,
    TensorProto::DOUBLE_VAL,
    TensorProto::INT_VAL,
    TensorProto::STRING_VAL,
    TensorProto::SCOMPLEX_VAL,
    TensorProto::INT64_VAL,
    TensorProto::BOOL_VAL,
    TensorProto::DCOMPLEX_VAL,
    TensorProto::UINT32_VAL,
    TensorProto::UINT64_VAL,
    TensorProto::FLOAT8_VAL,
];

/// A TensorFlow DataType (the `_REF` variants are the same plus 100): its
/// element type and the typed field that holds its values.
pub fn tf_type(code: i64) -> Option<(Elem, FieldId)> {
    let base = if code > 100 { code - 100 } else { code };
    Some(match base {
        1 => (Elem::F32, TensorProto::FLOAT_VAL),
        2 => (Elem::F64, TensorProto::DOUBLE_VAL),
        3 => (Elem::I32, TensorProto::INT_VAL),
        4 => (Elem::U8, TensorProto::INT_VAL),
        5 => (Elem::I16, TensorProto::INT_VAL),
        6 => (Elem::I8, TensorProto::INT_VAL),
        7 => (Elem::Str, TensorProto::STRING_VAL),
        8 => (Elem::C64, TensorProto::SCOMPLEX_VAL),
        9 => (Elem::I64, TensorProto::INT64_VAL),
        10 => (Elem::Bool, TensorProto::BOOL_VAL),
        11 => (Elem::I8, TensorProto::INT_VAL),  // qint8
        12 => (Elem::U8, TensorProto::INT_VAL),  // quint8
        13 => (Elem::I32, TensorProto::INT_VAL), // qint32
        14 => (Elem::BF16, TensorProto::HALF_VAL),
        15 => (Elem::I16, TensorProto::INT_VAL), // qint16
        16 => (Elem::U16, TensorProto::INT_VAL), // quint16
        17 => (Elem::U16, TensorProto::INT_VAL),
        18 => (Elem::C128, TensorProto::DCOMPLEX_VAL),
        19 => (Elem::F16, TensorProto::HALF_VAL),
        22 => (Elem::U32, TensorProto::UINT32_VAL),
        23 => (Elem::U64, TensorProto::UINT64_VAL),
        24 => (Elem::F8E5M2, TensorProto::FLOAT8_VAL),
        25 => (Elem::F8E4M3FN, TensorProto::FLOAT8_VAL),
        26 => (Elem::F8E4M3FNUZ, TensorProto::FLOAT8_VAL),
        27 => (Elem::F8E4M3B11FNUZ, TensorProto::FLOAT8_VAL),
        28 => (Elem::F8E5M2FNUZ, TensorProto::FLOAT8_VAL),
        29 => (Elem::I4, TensorProto::INT_VAL),
        30 => (Elem::U4, TensorProto::INT_VAL),
        31 => (Elem::I2, TensorProto::INT_VAL),
        32 => (Elem::U2, TensorProto::INT_VAL),
        33 => (Elem::F4E2M1, TensorProto::FLOAT8_VAL),
        _ => return None,
    })
}

pub fn wire_of(field: FieldId) -> WireType {
    match field {
        TensorProto::FLOAT_VAL | TensorProto::SCOMPLEX_VAL => WireType::Fixed32,
        TensorProto::DOUBLE_VAL | TensorProto::DCOMPLEX_VAL => WireType::Fixed64,
        _ => WireType::Varint,
    }
}

/// A tensor's shape: None for unknown rank; -1 marks an unknown dimension.
fn shape(set: &SchemaSet, msg: &Message<'_>) -> Option<Vec<i64>> {
    shape_dims(set, msg.message(set, TensorProto::TENSOR_SHAPE))
}

/// A TensorShapeProto's dimensions (none: a scalar; None: unknown rank;
/// -1 marks an unknown dimension).
pub fn shape_dims(set: &SchemaSet, shape: Option<&Message<'_>>) -> Option<Vec<i64>> {
    let Some(shape) = shape else {
        return Some(Vec::new());
    };
    if shape
        .scalar(set, TensorShapeProto::UNKNOWN_RANK)
        .is_some_and(|v| v.as_i64() == Some(1))
    {
        return None;
    }
    Some(
        shape
            .messages(set, TensorShapeProto::DIM)
            .map(|d| d.int(set, TensorShapeProto::Dim::SIZE).unwrap_or(0))
            .collect(),
    )
}

fn count(fields: &[Field<'_>], field: FieldId) -> u64 {
    let wire = wire_of(field);
    if field == TensorProto::STRING_VAL {
        return fields.len() as u64;
    }
    fields
        .iter()
        .map(|f| RawScalars::count(&f.value, wire))
        .sum()
}

/// A DataType's name (`DT_FLOAT`; the number when it has none).
pub fn dtype_name(set: &SchemaSet, code: i64) -> String {
    set.find_enum("tensorflow.DataType")
        .and_then(|e| set.enum_def(e).name_of(code))
        .map_or_else(|| code.to_string(), str::to_string)
}

/// A TensorFlow tensor of DataType `code` and dimensions `dims`, before
/// its values, with its element type and the typed field that holds its
/// values; None when it has no values, and the view's data says why (a
/// type that is not numbers or strings, a shape not fully known). Every TensorFlow
/// tensor is read through it: a TensorProto, a bundle's entry, a V1
/// checkpoint's slice. TensorFlow keeps sub-byte types one per byte of
/// raw storage and one per typed value.
pub fn tensor_head<'m, 'a>(
    type_name: String,
    code: i64,
    dims: Option<Vec<i64>>,
) -> (TensorView<'m, 'a>, Option<(Elem, FieldId)>) {
    let mut v = TensorView {
        type_name,
        elem: None,
        dims,
        byte_aligned: true,
        elements: 0,
        data: TensorData::None,
    };
    let Some((elem, typed)) = tf_type(code) else {
        v.data = TensorData::Unavailable(if code == 0 {
            // A V1 checkpoint's slices leave it out: their type is in the
            // table's header.
            "the tensor names no data type (DT_INVALID)".to_string()
        } else {
            format!("{} values are not numbers or strings", v.type_name)
        });
        return (v, None);
    };
    v.elem = Some(elem);
    let elements = v
        .dims
        .as_deref()
        .and_then(|d| {
            d.iter()
                .map(|&x| u64::try_from(x).ok())
                .collect::<Option<Vec<u64>>>()
        })
        .and_then(|d| element_count(&d));
    let Some(elements) = elements else {
        v.data = TensorData::Unavailable("the shape is not fully known".into());
        return (v, None);
    };
    v.elements = elements;
    (v, Some((elem, typed)))
}

/// tensorflow.TensorProto as a renderer sees it, with TensorFlow's rule for
/// typed fields: a short list is padded with its last value, none means
/// zeros.
pub fn view<'m, 'a>(set: &SchemaSet, msg: &'m Message<'a>) -> TensorView<'m, 'a> {
    let code = msg.int(set, TensorProto::DTYPE).unwrap_or(0);
    let type_name = match msg.scalar(set, TensorProto::DTYPE) {
        Some(_) => dtype_name(set, code),
        None => "DT_INVALID".to_string(),
    };
    let (mut v, head) = tensor_head(type_name, code, shape(set, msg));
    let Some((elem, typed)) = head else {
        return v;
    };
    let elements = v.elements;
    if let Some(content) = tensor_content(set, msg) {
        v.elements = elements.min(crate::tensor::raw_capacity(
            byte_elem(elem),
            content.len() as u64,
        ));
        v.data = TensorData::Raw(content);
        return v;
    }
    if typed == TensorProto::FLOAT8_VAL {
        v.data = match msg.bytes(set, TensorProto::FLOAT8_VAL) {
            Some(b) if b.len() as u64 >= elements => TensorData::Raw(b),
            Some(b) if !b.is_empty() => TensorData::PaddedBytes(b),
            _ => TensorData::Zeros,
        };
        return v;
    }
    let fields = msg.field(set, typed);
    let n = count(fields, typed);
    v.data = if elem == Elem::Str {
        TensorData::Strings { fields, pad: true }
    } else if elem.is_complex() && n < 2 {
        // TensorFlow reads complex values in (re, im) pairs and drops an
        // unpaired last value: one value alone means zeros.
        TensorData::Zeros
    } else if n == 0 {
        TensorData::Zeros
    } else {
        TensorData::Typed {
            fields,
            wire: wire_of(typed),
            pad: true,
        }
    };
    v
}

/// tensor_content, unless absent or empty: TensorFlow (Python
/// `if tensor.tensor_content`, C++ `!tensor_content().empty()`) then reads
/// the typed fields.
fn tensor_content<'a>(set: &SchemaSet, msg: &Message<'a>) -> Option<&'a [u8]> {
    msg.bytes(set, TensorProto::TENSOR_CONTENT)
        .filter(|b| !b.is_empty())
}

/// Sub-byte types take a whole byte in tensor_content.
fn byte_elem(elem: Elem) -> Elem {
    match elem {
        Elem::I4 | Elem::I2 => Elem::I8,
        Elem::U4 | Elem::U2 => Elem::U8,
        Elem::F4E2M1 => Elem::U8,
        e => e,
    }
}

/// The size rules: tensor_content exactly elements x size; a typed field
/// no longer than the element count (shorter is padded).
pub fn validate_tensor(set: &SchemaSet, msg: &Message<'_>) -> Result<()> {
    let at = msg.offset;
    let code = msg.int(set, TensorProto::DTYPE).unwrap_or(0);
    let Some((elem, typed)) = tf_type(code) else {
        return Ok(());
    };
    let Some(dims) = shape(set, msg) else {
        return Ok(());
    };
    let Some(dims) = dims
        .iter()
        .map(|&d| u64::try_from(d).ok())
        .collect::<Option<Vec<u64>>>()
    else {
        return Ok(());
    };
    let elements =
        element_count(&dims).ok_or(DecodeError::new(ErrorKind::ElementCountOverflow, at))?;
    if let Some(content) = tensor_content(set, msg) {
        if elem == Elem::Str {
            // Old C++ writers encoded strings here as a length list; TensorFlow
            // 2 writes string_val and make_ndarray cannot read this form.
            return Err(DecodeError::rule(
                Rule::TfStringContent,
                "a DT_STRING tensor keeps its strings in string_val, not tensor_content",
                at,
            ));
        }
        let expected = raw_size(byte_elem(elem), elements)
            .ok_or(DecodeError::new(ErrorKind::ElementCountOverflow, at))?;
        if content.len() as u64 != expected {
            return Err(DecodeError::new(
                ErrorKind::RawSize {
                    expected,
                    got: content.len() as u64,
                },
                at,
            ));
        }
        return Ok(());
    }
    let got = if typed == TensorProto::FLOAT8_VAL {
        msg.bytes(set, typed).map_or(0, |b| b.len() as u64)
    } else {
        count(msg.field(set, typed), typed)
    };
    // Complex values come in (re, im) pairs; an unpaired last value is
    // dropped, as TensorFlow does. More values than elements is an error in
    // make_ndarray (C++ silently ignores the rest): refuse it.
    let (got, needed) = if elem.is_complex() {
        (got / 2, elements)
    } else {
        (got, elements)
    };
    if got > needed {
        return Err(DecodeError::new(
            ErrorKind::TypedCount {
                field: if elem.is_complex() {
                    format!("{} (as re, im pairs)", typed.name)
                } else {
                    typed.name.to_string()
                },
                expected: needed,
                got,
            },
            at,
        ));
    }
    Ok(())
}

/// Validates every tensorflow.TensorProto, NodeDef, FunctionDef,
/// MetaGraphDef and google.protobuf.Any inside `msg`: tensors by their size
/// rules; what TensorFlow itself requires of the rest (a node has a name and
/// an op, a function a name, a meta graph a graph, an Any a type URL with a
/// `/`). Schema-valid protobufs of other kinds rarely pass these.
fn validate_contents(set: &SchemaSet, msg: &Message<'_>, forced: bool) -> Result<()> {
    let tensor = set.find_message("tensorflow.TensorProto");
    let node = set.find_message("tensorflow.NodeDef");
    let function = set.find_message("tensorflow.FunctionDef");
    let meta_graph = set.find_message("tensorflow.MetaGraphDef");
    let any = set.find_message("google.protobuf.Any");
    let named = |m: &Message<'_>, field: FieldId| m.str(set, field).is_some_and(|s| !s.is_empty());
    walk(msg, &mut |m| {
        let id = Some(m.def);
        if id == tensor {
            if forced {
                // Shown anyway; formats::tensor_problems reports it.
                return Ok(());
            }
            validate_tensor(set, m).map_err(|e| e.within("tensorflow.TensorProto"))
        } else if id == node {
            if !named(m, NodeDef::NAME) {
                Err(DecodeError::rule(
                    Rule::NodeName,
                    "NodeDef has no name",
                    m.offset,
                ))
            } else if !named(m, NodeDef::OP) {
                Err(DecodeError::rule(
                    Rule::NodeOp,
                    "NodeDef has no op",
                    m.offset,
                ))
            } else {
                Ok(())
            }
        } else if id == function {
            match m.message(set, FunctionDef::SIGNATURE) {
                Some(sig) if named(sig, OpDef::NAME) => Ok(()),
                _ => Err(DecodeError::rule(
                    Rule::FunctionName,
                    "FunctionDef has no signature name",
                    m.offset,
                )),
            }
        } else if id == meta_graph {
            if m.has(set, MetaGraphDef::GRAPH_DEF) {
                Ok(())
            } else {
                Err(DecodeError::rule(
                    Rule::MetaGraphGraph,
                    "MetaGraphDef has no graph_def",
                    m.offset,
                ))
            }
        } else if id == any {
            match m.str(set, Any::TYPE_URL) {
                Some(url) if !url.contains('/') => Err(DecodeError::rule(
                    Rule::AnyTypeUrl,
                    format!("google.protobuf.Any type_url {url:?} has no '/'"),
                    m.offset,
                )),
                _ => Ok(()),
            }
        } else {
            Ok(())
        }
    })
}

/// Strict on the wire; under `--as` fields newer than our tables are shown
/// rather than refused.
fn context(opts: &FormatOptions) -> DecodeContext {
    DecodeContext {
        allow_unknown: opts.forced,
        ..DecodeContext::strict()
    }
}

pub fn decode_saved_model<'a>(bytes: &'a [u8], opts: &FormatOptions) -> Result<Body<'a>> {
    let set = SchemaSet::builtin();
    let message = decode_builtin("tensorflow.SavedModel", bytes, context(opts))?;
    if !message.has(set, SavedModel::META_GRAPHS) {
        return Err(DecodeError::rule(
            Rule::SavedModelMetaGraphs,
            "SavedModel has no meta_graphs",
            0,
        ));
    }
    validate_contents(set, &message, opts.forced)?;
    Ok(Body::Message {
        type_name: "tensorflow.SavedModel".into(),
        message,
        also: Vec::new(),
    })
}

pub fn decode_graph_def<'a>(bytes: &'a [u8], opts: &FormatOptions) -> Result<Body<'a>> {
    let set = SchemaSet::builtin();
    let message = decode_builtin("tensorflow.GraphDef", bytes, context(opts))?;
    if !message.has(set, GraphDef::NODE) && !message.has(set, GraphDef::LIBRARY) {
        return Err(DecodeError::rule(
            Rule::GraphDefContent,
            "GraphDef has neither nodes nor a function library",
            0,
        ));
    }
    validate_contents(set, &message, opts.forced)?;
    Ok(Body::Message {
        type_name: "tensorflow.GraphDef".into(),
        message,
        also: Vec::new(),
    })
}
/// `google-protobuf.proto`: the well-known types a SavedModel holds (Any,
/// wrappers).
/// What a tensor nested in a TensorFlow message is: the value of a
/// `Const` node, or another attribute; None outside a node's attributes.
pub fn tensor_role(set: &SchemaSet, outer: &[&Message<'_>]) -> Option<TensorRole> {
    enclosing(set, outer, "tensorflow.AttrValue")?;
    let node = enclosing(set, outer, "tensorflow.NodeDef");
    Some(
        if node.is_some_and(|n| n.str(set, NodeDef::OP) == Some("Const")) {
            TensorRole::Constant
        } else {
            TensorRole::Attribute
        },
    )
}

pub const WELL_KNOWN_FILE: (&str, &str) = (
    "google-protobuf.proto",
    include_str!("../../schemas/google-protobuf.proto"),
);

/// `tf-framework.proto`: GraphDef, NodeDef, TensorProto and their parts.
pub const FRAMEWORK_FILE: (&str, &str) = (
    "tf-framework.proto",
    include_str!("../../schemas/tf-framework.proto"),
);

/// `tf-saved-model.proto`: SavedModel, MetaGraphDef, the object graph.
pub const SAVED_MODEL_FILE: (&str, &str) = (
    "tf-saved-model.proto",
    include_str!("../../schemas/tf-saved-model.proto"),
);

/// TensorFlow's tensor message (it has no name: its node names it).
pub const TENSOR_ADAPTER: TensorAdapter = TensorAdapter {
    message: "tensorflow.TensorProto",
    value_fields: VALUE_FIELDS,
    header_fields: &[TensorProto::DTYPE, TensorProto::TENSOR_SHAPE],
    name_field: None,
    view,
    validate: validate_tensor,
    warning: |_, _| None,
    kernel_order: KernelOrder::Hwio,
};

/// A node's attribute tensors: the `value` of a node is named by the node
/// (a weight when the node is a Const), any other attribute `node/attr`.
fn node_tensors<'s, 'm, 'a>(
    set: &SchemaSet,
    node: &'m Message<'a>,
    sink: &mut TensorSink<'s, 'm, 'a>,
) {
    let node_name = node.str(set, NodeDef::NAME).unwrap_or("");
    let is_const = node.str(set, NodeDef::OP) == Some("Const");
    for entry in node.messages(set, NodeDef::ATTR) {
        // A map entry: key 1, value 2.
        let def = entry.def(set);
        let key = def
            .field_by_number(1)
            .and_then(|(slot, _)| entry.slot(slot).last())
            .and_then(|f| match f.value {
                Value::Bytes(b) => std::str::from_utf8(b).ok(),
                _ => None,
            })
            .unwrap_or("");
        let value = def
            .field_by_number(2)
            .and_then(|(slot, _)| entry.slot(slot).last())
            .and_then(|f| match &f.value {
                Value::Message(v) => Some(v.as_ref()),
                _ => None,
            });
        if let Some(t) = value.and_then(|v| v.message(set, AttrValue::TENSOR)) {
            let name = if key == "value" {
                node_name.to_string()
            } else {
                format!("{node_name}/{key}")
            };
            sink(name, t, is_const && key == "value");
        }
    }
}

/// The message of every TensorFlow format that names its tensors.
const NAMERS: &[TensorNamer] = &[TensorNamer {
    message: "tensorflow.NodeDef",
    names: node_tensors,
}];

/// `12 nodes`.
fn graph_line(set: &SchemaSet, m: &Message<'_>) -> String {
    format!("{} nodes", m.field(set, GraphDef::NODE).len())
}

/// `1 meta graphs`.
fn saved_model_line(set: &SchemaSet, m: &Message<'_>) -> String {
    format!(
        "{} meta graphs",
        m.field(set, SavedModel::META_GRAPHS).len()
    )
}

/// The value of a node's attr `key` (a map entry: key 1, value 2).
pub(super) fn attr<'m, 'a>(
    set: &SchemaSet,
    node: &'m Message<'a>,
    key: &str,
) -> Option<&'m Message<'a>> {
    node.messages(set, NodeDef::ATTR)
        .filter(|entry| {
            let def = entry.def(set);
            def.field_by_number(1)
                .and_then(|(slot, _)| entry.slot(slot).last())
                .and_then(|f| summary::bytes_of(&f.value))
                == Some(key.as_bytes())
        })
        .filter_map(|entry| {
            let def = entry.def(set);
            def.field_by_number(2)
                .and_then(|(slot, _)| entry.slot(slot).last())
                .and_then(|f| match &f.value {
                    Value::Message(v) => Some(v.as_ref()),
                    _ => None,
                })
        })
        .last()
}

/// The elements of a TensorShapeProto; None when the rank or a dim is
/// unknown, or their product overflows.
fn shape_elements(set: &SchemaSet, shape: &Message<'_>) -> Option<u64> {
    if matches!(
        shape.scalar(set, TensorShapeProto::UNKNOWN_RANK),
        Some(ScalarValue::Bool(true))
    ) {
        return None;
    }
    let dims: Option<Vec<u64>> = shape
        .messages(set, TensorShapeProto::DIM)
        .map(|d| u64::try_from(d.int(set, TensorShapeProto::Dim::SIZE).unwrap_or(0)).ok())
        .collect();
    element_count(&dims?)
}

/// Const nodes among `nodes` and the values their `value` tensors hold.
fn const_counts<'m, 'a>(
    set: &SchemaSet,
    nodes: impl Iterator<Item = &'m Message<'a>>,
    counts: &mut (u64, u64),
) where
    'a: 'm,
{
    for n in nodes.filter(|n| n.str(set, NodeDef::OP) == Some("Const")) {
        summary::add(&mut counts.0, 1);
        let values = attr(set, n, "value")
            .and_then(|v| v.message(set, AttrValue::TENSOR))
            .map(|t| match t.message(set, TensorProto::TENSOR_SHAPE) {
                Some(shape) => shape_elements(set, shape),
                None => Some(1),
            });
        summary::add(&mut counts.1, values.flatten().unwrap_or(0));
    }
}

/// The functions of a GraphDef's library.
fn functions<'m, 'a>(set: &SchemaSet, g: &'m Message<'a>) -> Vec<&'m Message<'a>> {
    g.message(set, GraphDef::LIBRARY)
        .map(|lib| lib.messages(set, FunctionDefLibrary::FUNCTION).collect())
        .unwrap_or_default()
}

/// Nodes of a GraphDef: its own, and with those of its functions.
fn node_counts(set: &SchemaSet, g: &Message<'_>) -> (u64, u64) {
    let own = g.field(set, GraphDef::NODE).len() as u64;
    let mut all = own;
    for f in functions(set, g) {
        summary::add(&mut all, f.field(set, FunctionDef::NODE_DEF).len() as u64);
    }
    (own, all)
}

/// The ops of TensorFlow 1 variables, whose `shape` attr is the variable's.
const VARIABLE_OPS: &[&str] = &["VarHandleOp", "VariableV2", "Variable"];

/// A GraphDef's summary: versions, nodes (own, and with the library's
/// functions), Const nodes and the values they hold (all of them, in the
/// graph and its functions: a frozen graph's weights), parameters (those
/// values), functions.
fn graph_summary(set: &SchemaSet, g: &Message<'_>) -> Summary {
    use SummaryValue as V;
    let mut s = Summary::default();
    if let Some(v) = g.message(set, GraphDef::VERSIONS) {
        let bad: Vec<V> = v
            .scalars(set, VersionDef::BAD_CONSUMERS)
            .filter_map(|x| x.as_i64())
            .map(V::Int)
            .collect();
        s.push(
            "versions",
            "versions",
            V::Fields(vec![
                (
                    "producer",
                    V::Int(v.int(set, VersionDef::PRODUCER).unwrap_or(0)),
                ),
                (
                    "min_consumer",
                    V::Int(v.int(set, VersionDef::MIN_CONSUMER).unwrap_or(0)),
                ),
                ("bad_consumers", V::List(bad)),
            ]),
        );
    }
    let (own, all) = node_counts(set, g);
    s.push(
        "nodes",
        "nodes",
        V::Fields(vec![("graph", V::Count(own)), ("all", V::Count(all))]),
    );
    let mut consts = (0u64, 0u64);
    const_counts(set, g.messages(set, GraphDef::NODE), &mut consts);
    for f in functions(set, g) {
        const_counts(set, f.messages(set, FunctionDef::NODE_DEF), &mut consts);
    }
    s.push(
        "constants",
        "Const nodes",
        V::Fields(vec![
            ("nodes", V::Count(consts.0)),
            ("elements", V::Count(consts.1)),
        ]),
    );
    s.push("parameters", "parameters", V::Count(consts.1));
    s.push(
        "functions",
        "functions",
        V::Count(functions(set, g).len() as u64),
    );
    s
}

/// A SavedModel's summary, over all its meta graphs: schema version, meta
/// graphs and their tag-sets, signatures, functions, nodes (of the graphs,
/// and with the functions'), variables (the object graph's; without one,
/// the graph's variable nodes; a name in several meta graphs counted once)
/// and parameters (the elements of the variables whose shape is known).
fn saved_model_summary(set: &SchemaSet, m: &Message<'_>) -> Summary {
    use SummaryValue as V;
    let mut s = Summary::default();
    if let Some(v) = m.int(set, SavedModel::SAVED_MODEL_SCHEMA_VERSION) {
        s.push(
            "saved_model_schema_version",
            "saved_model_schema_version",
            V::Int(v),
        );
    }
    let metas: Vec<&Message<'_>> = m.messages(set, SavedModel::META_GRAPHS).collect();
    s.push("meta_graphs", "meta graphs", V::Count(metas.len() as u64));
    let mut tag_sets = Vec::new();
    let (mut signatures, mut function_count, mut own, mut all) = (0u64, 0u64, 0u64, 0u64);
    let (mut variables, mut params) = (0u64, 0u64);
    let mut seen: HashSet<&[u8]> = HashSet::new();
    for mg in &metas {
        let tags = mg
            .message(set, MetaGraphDef::META_INFO_DEF)
            .map(|info| {
                info.field(set, MetaGraphDef::MetaInfoDef::TAGS)
                    .iter()
                    .filter_map(|f| summary::bytes_of(&f.value))
                    .map(|b| V::Text(b.to_vec()))
                    .collect()
            })
            .unwrap_or_default();
        tag_sets.push(V::List(tags));
        summary::add(
            &mut signatures,
            mg.field(set, MetaGraphDef::SIGNATURE_DEF).len() as u64,
        );
        let graph = mg.message(set, MetaGraphDef::GRAPH_DEF);
        if let Some(g) = graph {
            summary::add(&mut function_count, functions(set, g).len() as u64);
            let (o, a) = node_counts(set, g);
            summary::add(&mut own, o);
            summary::add(&mut all, a);
        }
        // (name, elements) of each variable: the object graph's, else the
        // graph's variable nodes.
        let mut found: Vec<(&[u8], Option<u64>)> = mg
            .message(set, MetaGraphDef::OBJECT_GRAPH_DEF)
            .into_iter()
            .flat_map(|og| og.messages(set, SavedObjectGraph::NODES))
            .filter_map(|n| n.message(set, SavedObject::VARIABLE))
            .map(|v| {
                let name = v.bytes(set, SavedVariable::NAME).unwrap_or(&[]);
                let n = v
                    .message(set, SavedVariable::SHAPE)
                    .and_then(|sh| shape_elements(set, sh));
                (name, n)
            })
            .collect();
        if found.is_empty()
            && let Some(g) = graph
        {
            found = g
                .messages(set, GraphDef::NODE)
                .filter(|n| {
                    n.str(set, NodeDef::OP)
                        .is_some_and(|op| VARIABLE_OPS.contains(&op))
                })
                .map(|n| {
                    let name = n.bytes(set, NodeDef::NAME).unwrap_or(&[]);
                    let elements = attr(set, n, "shape")
                        .and_then(|a| a.message(set, AttrValue::SHAPE))
                        .and_then(|sh| shape_elements(set, sh));
                    (name, elements)
                })
                .collect();
        }
        // Meta graphs share the variables of one checkpoint: a name seen
        // in an earlier one is not counted again (unnamed ones always are).
        for (name, elements) in found {
            if !name.is_empty() && !seen.insert(name) {
                continue;
            }
            summary::add(&mut variables, 1);
            summary::add(&mut params, elements.unwrap_or(0));
        }
    }
    s.push("tag_sets", "tag-sets", V::List(tag_sets));
    s.push("signatures", "signatures", V::Count(signatures));
    s.push("functions", "functions", V::Count(function_count));
    s.push(
        "nodes",
        "nodes",
        V::Fields(vec![("graph", V::Count(own)), ("all", V::Count(all))]),
    );
    s.push("variables", "variables", V::Count(variables));
    s.push("parameters", "parameters", V::Count(params));
    s
}

/// A SavedModel (`saved_model.pb`).
pub const SAVED_MODEL: Format = Format {
    id: "tf-saved-model",
    title: "TensorFlow SavedModel",
    schema_files: &[WELL_KNOWN_FILE, FRAMEWORK_FILE, SAVED_MODEL_FILE],
    roots: &["tensorflow.SavedModel"],
    decode: decode_saved_model,
    tensor_adapters: &[TENSOR_ADAPTER],
    tensor_namers: NAMERS,
    line: saved_model_line,
    summary: saved_model_summary,
    views: &["tensorflow.SavedModel"],
    side_tensors: super::base::no_side_tensors,
};

/// A GraphDef (a frozen graph).
pub const GRAPH_DEF: Format = Format {
    id: "tf-graph-def",
    title: "TensorFlow GraphDef (frozen graph)",
    schema_files: &[FRAMEWORK_FILE],
    roots: &["tensorflow.GraphDef"],
    decode: decode_graph_def,
    tensor_adapters: &[TENSOR_ADAPTER],
    tensor_namers: NAMERS,
    line: graph_line,
    summary: graph_summary,
    views: &["tensorflow.GraphDef"],
    side_tensors: super::base::no_side_tensors,
};
