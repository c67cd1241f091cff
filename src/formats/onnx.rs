//! ONNX formats beyond the single tensor: sequences, optionals and maps
//! (onnx-data.proto), standalone sparse tensors, and whole models. Each is a
//! schema table plus the checks below; every tensor inside is validated with
//! the tensor file's own rules.

use super::base::{
    Body, Format, FormatOptions, TensorNamer, TensorRole, TensorSink, decode_builtin, enclosing,
};
use super::onnx_tensor;
use super::summary::{self, Summary, Value as SummaryValue};
use crate::decode::{DecodeContext, Message, Value};
use crate::error::{DecodeError, ErrorKind, Result, Rule};
use crate::fields::onnx::{
    AttributeProto, DeviceConfigurationProto, FunctionProto, GraphProto, MapProto, ModelProto,
    NodeProto, OperatorSetIdProto, OptionalProto, SequenceProto, SparseTensorProto,
    StringStringEntryProto, TensorProto,
};
use crate::schema::{FieldId, SchemaSet};
use crate::tensor::element_count;

use super::base::walk;

/// Validates every TensorProto and SparseTensorProto inside `msg`.
pub fn validate_tensors(set: &SchemaSet, msg: &Message<'_>) -> Result<()> {
    let tensor = set.find_message("onnx.TensorProto");
    let sparse = set.find_message("onnx.SparseTensorProto");
    walk(msg, &mut |m| {
        if Some(m.def) == tensor {
            onnx_tensor::validate(set, m).map_err(|e| e.within("TensorProto"))
        } else if Some(m.def) == sparse {
            validate_sparse(set, m)
        } else {
            Ok(())
        }
    })
}

/// SequenceProto / OptionalProto elem_type: which field holds the elements.
fn elements_field(elem_type: i64) -> Option<&'static str> {
    Some(match elem_type {
        1 => "tensor",
        2 => "sparse_tensor",
        3 => "sequence",
        4 => "map",
        5 => "optional",
        _ => return None,
    })
}

pub const SEQUENCE_FIELDS: [FieldId; 5] = [
    SequenceProto::TENSOR_VALUES,
    SequenceProto::SPARSE_TENSOR_VALUES,
    SequenceProto::SEQUENCE_VALUES,
    SequenceProto::MAP_VALUES,
    SequenceProto::OPTIONAL_VALUES,
];
pub const OPTIONAL_FIELDS: [FieldId; 5] = [
    OptionalProto::TENSOR_VALUE,
    OptionalProto::SPARSE_TENSOR_VALUE,
    OptionalProto::SEQUENCE_VALUE,
    OptionalProto::MAP_VALUE,
    OptionalProto::OPTIONAL_VALUE,
];

/// Checks a SequenceProto or OptionalProto (and everything nested in it):
/// elem_type in range and the elements in the field that elem_type names.
fn validate_container(set: &SchemaSet, msg: &Message<'_>) -> Result<()> {
    let seq = set.find_message("onnx.SequenceProto");
    let opt = set.find_message("onnx.OptionalProto");
    let map = set.find_message("onnx.MapProto");
    walk(msg, &mut |m| {
        let (fields, elem_type_field) = if Some(m.def) == seq {
            (&SEQUENCE_FIELDS, SequenceProto::ELEM_TYPE)
        } else if Some(m.def) == opt {
            (&OPTIONAL_FIELDS, OptionalProto::ELEM_TYPE)
        } else if Some(m.def) == map {
            return validate_map(set, m);
        } else {
            return Ok(());
        };
        let name = &m.def(set).name;
        let elem_type = m.int(set, elem_type_field).ok_or_else(|| {
            DecodeError::rule(
                Rule::ElemTypeMissing,
                format!("{name}.elem_type is missing"),
                m.offset,
            )
        })?;
        // An empty optional has elem_type UNDEFINED (what
        // numpy_helper.from_optional(None) writes): nothing may follow it.
        if elem_type == 0 {
            return match fields.iter().find(|f| m.has(set, **f)) {
                Some(field) => Err(DecodeError::rule(
                    Rule::ElemTypeMismatch,
                    format!("{name}.{} present but elem_type is UNDEFINED", field.name),
                    m.offset,
                )),
                None => Ok(()),
            };
        }
        let want = elements_field(elem_type).ok_or_else(|| {
            DecodeError::rule(
                Rule::ElemTypeRange,
                format!("{name}.elem_type {elem_type} is not 1..5"),
                m.offset,
            )
        })?;
        for field in fields.iter() {
            if m.has(set, *field) && !field.name.starts_with(want) {
                return Err(DecodeError::rule(
                    Rule::ElemTypeMismatch,
                    format!("{name}.{} present but elem_type is {want}", field.name),
                    m.offset,
                ));
            }
        }
        Ok(())
    })?;
    validate_tensors(set, msg)
}

fn validate_map(set: &SchemaSet, m: &Message<'_>) -> Result<()> {
    let key_type = m.int(set, MapProto::KEY_TYPE).ok_or_else(|| {
        DecodeError::rule(Rule::MapKeyType, "MapProto.key_type is missing", m.offset)
    })?;
    // Keys are integers or strings (onnx-data.proto).
    let string_keys = match key_type {
        8 => true,
        2..=7 | 12 | 13 => false,
        other => {
            return Err(DecodeError::rule(
                Rule::MapKeyType,
                format!("MapProto.key_type {other} is not an integer or string type"),
                m.offset,
            ));
        }
    };
    let keys = if string_keys {
        m.field(set, MapProto::STRING_KEYS).len() as u64
    } else {
        m.scalars(set, MapProto::KEYS).count() as u64
    };
    if string_keys && m.has(set, MapProto::KEYS)
        || !string_keys && m.has(set, MapProto::STRING_KEYS)
    {
        return Err(DecodeError::rule(
            Rule::MapKeysField,
            "MapProto keys are in the field that key_type does not name",
            m.offset,
        ));
    }
    let values = m.message(set, MapProto::VALUES);
    let count = values.map_or(0, |v| {
        SEQUENCE_FIELDS
            .iter()
            .map(|f| v.field(set, *f).len() as u64)
            .sum::<u64>()
    });
    if keys != count {
        return Err(DecodeError::rule(
            Rule::MapCount,
            format!("MapProto has {keys} keys and {count} values"),
            m.offset,
        ));
    }
    // Integer keys must fit the key type (UINT64 keys are stored as int64
    // bit patterns, so any value fits).
    let range: Option<(i64, i64)> = match key_type {
        2 => Some((0, i64::from(u8::MAX))),
        3 => Some((i64::from(i8::MIN), i64::from(i8::MAX))),
        4 => Some((0, i64::from(u16::MAX))),
        5 => Some((i64::from(i16::MIN), i64::from(i16::MAX))),
        6 => Some((i64::from(i32::MIN), i64::from(i32::MAX))),
        12 => Some((0, i64::from(u32::MAX))),
        _ => None,
    };
    if let Some((lo, hi)) = range
        && let Some(bad) = m
            .scalars(set, MapProto::KEYS)
            .filter_map(|k| k.as_i64())
            .find(|k| *k < lo || *k > hi)
    {
        return Err(DecodeError::rule(
            Rule::MapKeyRange,
            format!("MapProto key {bad} does not fit key_type {key_type}"),
            m.offset,
        ));
    }
    Ok(())
}

pub fn decode_sequence<'a>(bytes: &'a [u8], _opts: &FormatOptions) -> Result<Body<'a>> {
    let set = SchemaSet::builtin();
    let seq_err = match decode_builtin("onnx.SequenceProto", bytes, DecodeContext::strict()) {
        Ok(message) => match validate_container(set, &message) {
            Ok(()) => {
                // With at most one element the bytes are also an OptionalProto.
                let count: usize = SEQUENCE_FIELDS
                    .iter()
                    .map(|f| message.field(set, *f).len())
                    .sum();
                let also = if count <= 1 {
                    vec!["onnx.OptionalProto".to_string()]
                } else {
                    Vec::new()
                };
                return Ok(Body::Message {
                    type_name: "onnx.SequenceProto".into(),
                    message,
                    also,
                });
            }
            Err(e) => e,
        },
        Err(e) => e,
    };
    match decode_builtin("onnx.MapProto", bytes, DecodeContext::strict()) {
        // A map's own fault is reported only for bytes that read as a map
        // and not as a sequence at all; otherwise the sequence's reason is
        // the one a user needs.
        Ok(message) => match validate_container(set, &message) {
            Ok(()) => Ok(Body::Message {
                type_name: "onnx.MapProto".into(),
                message,
                also: Vec::new(),
            }),
            Err(map_err)
                if matches!(
                    seq_err.kind(),
                    ErrorKind::UnknownField { .. } | ErrorKind::WrongWireType { .. }
                ) =>
            {
                Err(map_err)
            }
            Err(_) => Err(seq_err),
        },
        Err(_) => Err(seq_err),
    }
}

/// An OptionalProto, as `--as onnx-optional` names it: detection reads
/// such bytes as a sequence (the same field numbers, each repeated there),
/// and an ONNX test folder's model says when a file is an optional.
pub fn decode_optional<'a>(bytes: &'a [u8], _opts: &FormatOptions) -> Result<Body<'a>> {
    let set = SchemaSet::builtin();
    let message = decode_builtin("onnx.OptionalProto", bytes, DecodeContext::strict())?;
    validate_container(set, &message)?;
    Ok(Body::Message {
        type_name: "onnx.OptionalProto".into(),
        message,
        also: Vec::new(),
    })
}

/// A SparseTensorProto: values 1-D `[NNZ]`, indices INT64 `[NNZ, rank]` or
/// `[NNZ]` (linear, ascending), every index inside dims.
pub fn validate_sparse(set: &SchemaSet, m: &Message<'_>) -> Result<()> {
    let values = m.message(set, SparseTensorProto::VALUES).ok_or_else(|| {
        DecodeError::rule(
            Rule::SparseValues,
            "SparseTensorProto.values is missing",
            m.offset,
        )
    })?;
    onnx_tensor::validate(set, values).map_err(|e| e.within("SparseTensorProto.values"))?;
    let dims: Vec<i64> = m
        .scalars(set, SparseTensorProto::DIMS)
        .filter_map(|d| d.as_i64())
        .collect();
    let udims: Vec<u64> = dims
        .iter()
        .map(|&d| {
            u64::try_from(d).map_err(|_| {
                DecodeError::rule(
                    Rule::SparseDims,
                    format!("SparseTensorProto.dims has {d}"),
                    m.offset,
                )
            })
        })
        .collect::<Result<_>>()?;
    let dense =
        element_count(&udims).ok_or(DecodeError::new(ErrorKind::ElementCountOverflow, m.offset))?;
    let vdims: Vec<i64> = values
        .scalars(set, TensorProto::DIMS)
        .filter_map(|d| d.as_i64())
        .collect();
    let [nnz] = vdims.as_slice() else {
        return Err(DecodeError::rule(
            Rule::SparseValues,
            "SparseTensorProto.values is not 1-D",
            values.offset,
        ));
    };
    let nnz = u64::try_from(*nnz).unwrap_or(0);
    let Some(indices) = m.message(set, SparseTensorProto::INDICES) else {
        return if nnz == 0 {
            Ok(())
        } else {
            Err(DecodeError::rule(
                Rule::SparseIndices,
                "SparseTensorProto.indices is missing",
                m.offset,
            ))
        };
    };
    onnx_tensor::validate(set, indices).map_err(|e| e.within("SparseTensorProto.indices"))?;
    if indices.int(set, TensorProto::DATA_TYPE) != Some(7) {
        return Err(DecodeError::rule(
            Rule::SparseIndices,
            "SparseTensorProto.indices is not INT64",
            indices.offset,
        ));
    }
    let idims: Vec<u64> = indices
        .scalars(set, TensorProto::DIMS)
        .filter_map(|d| d.as_i64())
        .map(|d| d as u64)
        .collect();
    let rank = udims.len() as u64;
    let coordinates = match idims.as_slice() {
        [n] if *n == nnz => false,
        [n, r] if *n == nnz && *r == rank => true,
        _ => {
            return Err(DecodeError::rule(
                Rule::SparseIndices,
                format!(
                    "SparseTensorProto.indices shape {idims:?} is neither [{nnz}] nor [{nnz}, {rank}]"
                ),
                indices.offset,
            ));
        }
    };
    // Indices in a side file are checked when shown (validation has no
    // folder to read them from).
    if indices.int(set, TensorProto::DATA_LOCATION) == Some(1)
        || indices.has(set, TensorProto::EXTERNAL_DATA)
    {
        return Ok(());
    }
    let view = onnx_tensor::view(set, indices);
    let mut loaded = crate::tensor::load_values(&view, None);
    let mut flat: Vec<i64> = Vec::new();
    let _ = crate::tensor::for_each_element(&mut loaded, |e| -> std::result::Result<(), ()> {
        if let crate::tensor::Element::I64(v) = e {
            flat.push(v);
        }
        Ok(())
    });
    let linear: Vec<i64> = if coordinates {
        flat.chunks(udims.len().max(1))
            .map(|c| {
                c.iter()
                    .zip(&dims)
                    .try_fold(0i64, |acc, (&i, &d)| {
                        if i < 0 || i >= d {
                            None
                        } else {
                            acc.checked_mul(d)?.checked_add(i)
                        }
                    })
                    .unwrap_or(-1)
            })
            .collect()
    } else {
        flat
    };
    let mut previous = -1i64;
    for &l in &linear {
        if l < 0 || l as u64 >= dense {
            return Err(DecodeError::rule(
                Rule::SparseIndexRange,
                format!("SparseTensorProto index {l} is outside the dense shape"),
                indices.offset,
            ));
        }
        if l <= previous {
            return Err(DecodeError::rule(
                Rule::SparseIndexOrder,
                "SparseTensorProto indices are not in ascending order",
                indices.offset,
            ));
        }
        previous = l;
    }
    Ok(())
}

pub fn decode_sparse<'a>(bytes: &'a [u8], _opts: &FormatOptions) -> Result<Body<'a>> {
    let set = SchemaSet::builtin();
    let message = decode_builtin("onnx.SparseTensorProto", bytes, DecodeContext::strict())?;
    validate_sparse(set, &message)?;
    Ok(Body::Message {
        type_name: "onnx.SparseTensorProto".into(),
        message,
        also: Vec::new(),
    })
}

/// A ModelProto: ir_version present, a graph or functions, every tensor in
/// it valid. Under `--as onnx-model` fields newer than our table are shown
/// rather than refused.
pub fn decode_model<'a>(bytes: &'a [u8], opts: &FormatOptions) -> Result<Body<'a>> {
    let set = SchemaSet::builtin();
    let ctx = DecodeContext {
        allow_unknown: opts.forced,
        ..DecodeContext::strict()
    };
    let message = match decode_builtin("onnx.ModelProto", bytes, ctx) {
        Ok(m) => m,
        // A model written by a newer ONNX: its new fields are unknown to our
        // table. Still a model when every unknown field is numbered above
        // the last field its message knows (how protobuf schemas grow) and
        // the rest validates; the fields are shown, not dropped.
        Err(e) if matches!(e.kind(), ErrorKind::UnknownField { .. }) => {
            let lenient = DecodeContext {
                allow_unknown: true,
                ..DecodeContext::strict()
            };
            let m = decode_builtin("onnx.ModelProto", bytes, lenient).map_err(|_| e.clone())?;
            if !only_newer_fields(set, &m) {
                return Err(e);
            }
            m
        }
        Err(e) => return Err(e),
    };
    if !message.has(set, ModelProto::IR_VERSION) {
        return Err(DecodeError::rule(
            Rule::ModelIrVersion,
            "ModelProto.ir_version is missing",
            0,
        ));
    }
    if !message.has(set, ModelProto::GRAPH) && !message.has(set, ModelProto::FUNCTIONS) {
        return Err(DecodeError::rule(
            Rule::ModelContent,
            "ModelProto has neither a graph nor functions",
            0,
        ));
    }
    // Under --as onnx-model a tensor that breaks the tensor rules is shown
    // (its view says what is wrong) and formats::tensor_problems reports it:
    // a converter author wants to see the model around the bad tensor.
    if !opts.forced {
        validate_tensors(set, &message)?;
    }
    Ok(Body::Message {
        type_name: "onnx.ModelProto".into(),
        message,
        also: Vec::new(),
    })
}

/// Whether every unknown field in `msg` is numbered above the highest field
/// number its message declares.
fn only_newer_fields(set: &SchemaSet, msg: &Message<'_>) -> bool {
    walk(msg, &mut |m| {
        let top = m
            .def(set)
            .fields
            .iter()
            .map(|f| f.number)
            .max()
            .unwrap_or(0);
        match m.unknown().iter().find(|f| f.number <= top) {
            Some(f) => Err(DecodeError::rule(
                Rule::ModelContent,
                "unknown field",
                f.offset,
            )),
            None => Ok(()),
        }
    })
    .is_ok()
}

/// Decodes `bytes` as one of onnx-data.proto's containers by name
/// (`onnx.SequenceProto`, `onnx.OptionalProto` or `onnx.MapProto`), with the
/// same checks as detection: what a model's declared type asks for when the
/// bytes alone fit more than one (a one-element sequence is also an optional).
pub fn decode_container<'a>(type_name: &str, bytes: &'a [u8]) -> Result<Body<'a>> {
    let set = SchemaSet::builtin();
    let message = decode_builtin(type_name, bytes, DecodeContext::strict())?;
    validate_container(set, &message)?;
    Ok(Body::Message {
        type_name: type_name.to_string(),
        message,
        also: Vec::new(),
    })
}

/// A tensor's own `name`.
fn own_name(set: &SchemaSet, t: &Message<'_>) -> String {
    t.str(set, TensorProto::NAME).unwrap_or("").to_string()
}

/// A graph's initializers, by their names: the model's weights.
fn graph_tensors<'s, 'm, 'a>(
    set: &SchemaSet,
    graph: &'m Message<'a>,
    sink: &mut TensorSink<'s, 'm, 'a>,
) {
    for t in graph.messages(set, GraphProto::INITIALIZER) {
        sink(own_name(set, t), t, true);
    }
}

/// A node's attribute tensors (a Constant's value), by their names, else
/// by the node's first output.
fn node_tensors<'s, 'm, 'a>(
    set: &SchemaSet,
    node: &'m Message<'a>,
    sink: &mut TensorSink<'s, 'm, 'a>,
) {
    let output = node
        .field(set, NodeProto::OUTPUT)
        .first()
        .and_then(|f| match f.value {
            Value::Bytes(b) => std::str::from_utf8(b).ok(),
            _ => None,
        })
        .unwrap_or("");
    for a in node.messages(set, NodeProto::ATTRIBUTE) {
        if let Some(t) = a.message(set, AttributeProto::T) {
            let mut name = own_name(set, t);
            if name.is_empty() {
                name = output.to_string();
            }
            sink(name, t, false);
        }
    }
}

/// The messages of a model that name its tensors.
const MODEL_NAMERS: &[TensorNamer] = &[
    TensorNamer {
        message: "onnx.GraphProto",
        names: graph_tensors,
    },
    TensorNamer {
        message: "onnx.NodeProto",
        names: node_tensors,
    },
];

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `sparse FLOAT[4, 4]`, `3 elements`, `holding a value`/`empty`, `INT64
/// keys, 2 entries`.
fn container_summary(set: &SchemaSet, m: &Message<'_>) -> String {
    let name = &m.def(set).full_name;
    match () {
        () if *name == "onnx.SparseTensorProto" => {
            let elem = m
                .message(set, SparseTensorProto::VALUES)
                .and_then(|v| v.int(set, TensorProto::DATA_TYPE));
            format!(
                "sparse {}{}",
                onnx_tensor::data_type_text(set, elem),
                onnx_tensor::dims_text(set, m)
            )
        }
        () if *name == "onnx.SequenceProto" => {
            let n: usize = SEQUENCE_FIELDS.iter().map(|f| m.field(set, *f).len()).sum();
            plural(n, "element", "elements")
        }
        () if *name == "onnx.OptionalProto" => {
            let full = OPTIONAL_FIELDS.iter().any(|f| m.has(set, *f));
            if full {
                "holding a value".into()
            } else {
                "empty".into()
            }
        }
        () if *name == "onnx.MapProto" => {
            let n =
                m.scalars(set, MapProto::KEYS).count() + m.field(set, MapProto::STRING_KEYS).len();
            format!(
                "{} keys, {}",
                onnx_tensor::data_type_text(set, m.int(set, MapProto::KEY_TYPE)),
                plural(n, "entry", "entries")
            )
        }
        // A model's declared type can make a tensor file one of these.
        () => onnx_tensor::summary(set, m),
    }
}

/// `12 nodes, 4 initializers`.
fn model_line(set: &SchemaSet, m: &Message<'_>) -> String {
    match m.message(set, ModelProto::GRAPH) {
        Some(g) => format!(
            "{}, {}",
            plural(g.field(set, GraphProto::NODE).len(), "node", "nodes"),
            plural(
                g.field(set, GraphProto::INITIALIZER).len(),
                "initializer",
                "initializers"
            )
        ),
        None => "no graph".into(),
    }
}

/// The elements a tensor declares by its dims (a negative dim counts as
/// 0); None when their product overflows.
fn declared_elements(set: &SchemaSet, t: &Message<'_>) -> Option<u64> {
    let view = onnx_tensor::view(set, t);
    let dims: Vec<u64> = view
        .dims
        .as_deref()
        .unwrap_or(&[])
        .iter()
        .map(|&d| u64::try_from(d).unwrap_or(0))
        .collect();
    element_count(&dims)
}

/// Constant nodes of the default domain anywhere in the model (subgraphs,
/// functions, training too), and the values they hold: PaddleOCR and
/// silero-vad exports keep their weights there.
fn constant_counts(set: &SchemaSet, m: &Message<'_>) -> (u64, u64) {
    let node_id = set.find_message("onnx.NodeProto");
    let mut nodes = 0u64;
    let mut values = 0u64;
    let _ = walk(m, &mut |x| {
        if Some(x.def) != node_id {
            return Ok(());
        }
        let domain = x.str(set, NodeProto::DOMAIN).unwrap_or_default();
        if !matches!(domain, "" | "ai.onnx") || x.str(set, NodeProto::OP_TYPE) != Some("Constant") {
            return Ok(());
        }
        summary::add(&mut nodes, 1);
        for a in x.messages(set, NodeProto::ATTRIBUTE) {
            let n = match a.str(set, AttributeProto::NAME) {
                Some("value") => a
                    .message(set, AttributeProto::T)
                    .and_then(|t| declared_elements(set, t)),
                Some("sparse_value") => a
                    .message(set, AttributeProto::SPARSE_TENSOR)
                    .and_then(|sp| sp.message(set, SparseTensorProto::VALUES))
                    .and_then(|t| declared_elements(set, t)),
                Some("value_float" | "value_int" | "value_string") => Some(1),
                Some("value_floats") => Some(a.scalars(set, AttributeProto::FLOATS).count() as u64),
                Some("value_ints") => Some(a.scalars(set, AttributeProto::INTS).count() as u64),
                Some("value_strings") => Some(a.field(set, AttributeProto::STRINGS).len() as u64),
                _ => None,
            };
            summary::add(&mut values, n.unwrap_or(0));
        }
        Ok(())
    });
    (nodes, values)
}

/// Every occurrence of a string field, as stored.
fn texts(set: &SchemaSet, m: &Message<'_>, field: FieldId) -> Vec<SummaryValue> {
    m.field(set, field)
        .iter()
        .filter_map(|f| summary::bytes_of(&f.value))
        .map(|b| SummaryValue::Text(b.to_vec()))
        .collect()
}

/// The fields of ModelProto that `model_summary` covers (the text view
/// prints the others below it).
pub const MODEL_SUMMARY_FIELDS: &[FieldId] = &[
    ModelProto::IR_VERSION,
    ModelProto::OPSET_IMPORT,
    ModelProto::PRODUCER_NAME,
    ModelProto::PRODUCER_VERSION,
    ModelProto::DOMAIN,
    ModelProto::MODEL_VERSION,
    ModelProto::DOC_STRING,
    ModelProto::METADATA_PROPS,
    ModelProto::FUNCTIONS,
    ModelProto::CONFIGURATION,
];

/// A model's summary: IR version, opsets, producer, domain, model
/// version, doc, metadata; with a graph, its nodes (and all nodes with
/// subgraphs, functions and training), initializers (dense, sparse, and
/// the Constant nodes holding weights), parameters (elements of the
/// initializers, non-zeros of the sparse ones, values of the Constant
/// nodes), inputs and outputs; the functions and device configurations.
fn model_summary(set: &SchemaSet, m: &Message<'_>) -> Summary {
    use SummaryValue as V;
    let mut s = Summary {
        title: "ONNX model",
        items: Vec::new(),
    };
    let text = |b: &[u8]| V::Text(b.to_vec());
    if let Some(v) = m.int(set, ModelProto::IR_VERSION) {
        s.push("ir_version", "IR version", V::Int(v));
    }
    let opsets: Vec<V> = m
        .messages(set, ModelProto::OPSET_IMPORT)
        .map(|o| {
            let mut parts = vec![(
                "domain",
                text(o.bytes(set, OperatorSetIdProto::DOMAIN).unwrap_or(&[])),
            )];
            if let Some(v) = o.int(set, OperatorSetIdProto::VERSION) {
                parts.push(("version", V::Int(v)));
            }
            V::Fields(parts)
        })
        .collect();
    if !opsets.is_empty() {
        s.push("opsets", "opsets", V::List(opsets));
    }
    if m.has(set, ModelProto::PRODUCER_NAME) || m.has(set, ModelProto::PRODUCER_VERSION) {
        let mut parts = Vec::new();
        for (field, key) in [
            (ModelProto::PRODUCER_NAME, "name"),
            (ModelProto::PRODUCER_VERSION, "version"),
        ] {
            if let Some(b) = m.bytes(set, field) {
                parts.push((key, text(b)));
            }
        }
        s.push("producer", "producer", V::Fields(parts));
    }
    if let Some(d) = m.bytes(set, ModelProto::DOMAIN) {
        s.push("domain", "domain", text(d));
    }
    if let Some(v) = m.int(set, ModelProto::MODEL_VERSION) {
        s.push("model_version", "model version", V::Int(v));
    }
    if let Some(d) = m.bytes(set, ModelProto::DOC_STRING) {
        s.push("doc", "doc", text(d));
    }
    let metadata: Vec<V> = m
        .messages(set, ModelProto::METADATA_PROPS)
        .map(|e| {
            let mut parts = vec![
                (
                    "key",
                    text(e.bytes(set, StringStringEntryProto::KEY).unwrap_or(&[])),
                ),
                (
                    "value",
                    text(e.bytes(set, StringStringEntryProto::VALUE).unwrap_or(&[])),
                ),
            ];
            let unknown: Vec<V> = e
                .unknown()
                .iter()
                .map(|u| V::Int(i64::from(u.number)))
                .collect();
            if !unknown.is_empty() {
                parts.push(("unknown_fields", V::List(unknown)));
            }
            V::Fields(parts)
        })
        .collect();
    if !metadata.is_empty() {
        s.push("metadata", "metadata", V::List(metadata));
    }
    if let Some(g) = m.message(set, ModelProto::GRAPH) {
        graph_summary(&mut s, set, m, g);
    }
    let functions: Vec<V> = m
        .messages(set, ModelProto::FUNCTIONS)
        .map(|f| {
            let mut parts = Vec::new();
            if let Some(d) = f.bytes(set, FunctionProto::DOMAIN) {
                parts.push(("domain", text(d)));
            }
            parts.push((
                "name",
                text(f.bytes(set, FunctionProto::NAME).unwrap_or(&[])),
            ));
            if let Some(o) = f.bytes(set, FunctionProto::OVERLOAD) {
                parts.push(("overload", text(o)));
            }
            V::Fields(parts)
        })
        .collect();
    if !functions.is_empty() {
        s.push("functions", "functions", V::List(functions));
    }
    let configurations: Vec<V> = m
        .messages(set, ModelProto::CONFIGURATION)
        .map(|c| {
            V::Fields(vec![
                (
                    "name",
                    text(c.bytes(set, DeviceConfigurationProto::NAME).unwrap_or(&[])),
                ),
                (
                    "num_devices",
                    V::Int(
                        c.int(set, DeviceConfigurationProto::NUM_DEVICES)
                            .unwrap_or(0),
                    ),
                ),
                (
                    "devices",
                    V::List(texts(set, c, DeviceConfigurationProto::DEVICE)),
                ),
            ])
        })
        .collect();
    if !configurations.is_empty() {
        s.push("configuration", "configuration", V::List(configurations));
    }
    s
}

/// The model summary's counts of its main graph `g`: nodes (and all the
/// model's, subgraphs and functions included), initializers, parameters,
/// inputs and outputs.
fn graph_summary(s: &mut Summary, set: &SchemaSet, m: &Message<'_>, g: &Message<'_>) {
    use SummaryValue as V;
    let node_id = set.find_message("onnx.NodeProto");
    let mut all_nodes = 0u64;
    let _ = walk(m, &mut |x| {
        if Some(x.def) == node_id {
            summary::add(&mut all_nodes, 1);
        }
        Ok(())
    });
    let main = g.field(set, GraphProto::NODE).len() as u64;
    s.push(
        "nodes",
        "nodes",
        V::Fields(vec![
            ("graph", V::Count(main)),
            ("all", V::Count(all_nodes)),
        ]),
    );
    let mut params = 0u64;
    let mut dense = 0u64;
    for t in g.messages(set, GraphProto::INITIALIZER) {
        summary::add(&mut dense, 1);
        summary::add(&mut params, declared_elements(set, t).unwrap_or(0));
    }
    let mut sparse = 0u64;
    for sp in g.messages(set, GraphProto::SPARSE_INITIALIZER) {
        summary::add(&mut sparse, 1);
        if let Some(v) = sp.message(set, SparseTensorProto::VALUES) {
            summary::add(&mut params, declared_elements(set, v).unwrap_or(0));
        }
    }
    let (constants, in_constants) = constant_counts(set, m);
    summary::add(&mut params, in_constants);
    s.push(
        "initializers",
        "initializers",
        V::Fields(vec![
            ("dense", V::Count(dense)),
            ("sparse", V::Count(sparse)),
            ("constant_nodes", V::Count(constants)),
            ("constant_values", V::Count(in_constants)),
        ]),
    );
    s.push("parameters", "parameters", V::Count(params));
    s.push(
        "inputs",
        "inputs",
        V::Count(g.field(set, GraphProto::INPUT).len() as u64),
    );
    s.push(
        "outputs",
        "outputs",
        V::Count(g.field(set, GraphProto::OUTPUT).len() as u64),
    );
}

/// `onnx-data.proto`: SequenceProto, MapProto and OptionalProto.
pub const DATA_FILE: (&str, &str) = (
    "onnx-data.proto",
    include_str!("../../schemas/onnx-data.proto"),
);

/// What a tensor nested in an ONNX message is (see
/// [`super::tensor_role`]); None for a tensor in no ONNX message.
pub fn tensor_role(
    set: &SchemaSet,
    field: Option<&str>,
    outer: &[&Message<'_>],
) -> Option<TensorRole> {
    let parent = outer.first()?;
    let within = |name: &str| enclosing(set, outer, name).is_some();
    let parent = &parent.def(set).full_name;
    Some(
        if *parent == "onnx.GraphProto" && field == Some(GraphProto::INITIALIZER.name) {
            TensorRole::Initializer
        } else if *parent == "onnx.SparseTensorProto"
            && field == Some(SparseTensorProto::VALUES.name)
        {
            TensorRole::SparseValues
        } else if *parent == "onnx.SparseTensorProto"
            && field == Some(SparseTensorProto::INDICES.name)
        {
            TensorRole::SparseIndices
        } else if *parent == "onnx.OptionalProto" {
            TensorRole::OptionalValue
        } else if *parent == "onnx.SequenceProto" {
            if within("onnx.MapProto") {
                TensorRole::MapValue
            } else {
                TensorRole::SequenceElement
            }
        } else if *parent == "onnx.AttributeProto" {
            let node = enclosing(set, outer, "onnx.NodeProto");
            if node.is_some_and(|n| n.str(set, NodeProto::OP_TYPE) == Some("Constant")) {
                TensorRole::Constant
            } else {
                TensorRole::Attribute
            }
        } else {
            return None;
        },
    )
}

/// `onnx.proto`: ModelProto and the graph.
pub const MODEL_FILE: (&str, &str) = ("onnx.proto", include_str!("../../schemas/onnx.proto"));

/// A SequenceProto, OptionalProto or MapProto file.
pub const SEQUENCE: Format = Format {
    id: "onnx-sequence",
    title: "ONNX sequence, optional or map (onnx-data.proto)",
    schema_files: &[onnx_tensor::SCHEMA_FILE, DATA_FILE],
    roots: &["onnx.SequenceProto", "onnx.OptionalProto", "onnx.MapProto"],
    decode: decode_sequence,
    tensor_adapters: &[onnx_tensor::TENSOR_ADAPTER],
    tensor_namers: &[],
    line: container_summary,
    summary: super::summary::no_summary,
    views: &["onnx.SequenceProto", "onnx.OptionalProto", "onnx.MapProto"],
    side_tensors: super::base::no_side_tensors,
};

/// An OptionalProto file, read as one only when asked (`--as
/// onnx-optional`; detection takes its bytes for a sequence first).
pub const OPTIONAL: Format = Format {
    id: "onnx-optional",
    title: "ONNX optional (OptionalProto)",
    schema_files: &[onnx_tensor::SCHEMA_FILE, DATA_FILE],
    roots: &["onnx.OptionalProto"],
    decode: decode_optional,
    tensor_adapters: &[onnx_tensor::TENSOR_ADAPTER],
    tensor_namers: &[],
    line: container_summary,
    summary: super::summary::no_summary,
    // Shown by the sequence format's view of an OptionalProto.
    views: &[],
    side_tensors: super::base::no_side_tensors,
};

/// A SparseTensorProto file.
pub const SPARSE: Format = Format {
    id: "onnx-sparse-tensor",
    title: "ONNX sparse tensor (SparseTensorProto)",
    schema_files: &[onnx_tensor::SCHEMA_FILE],
    roots: &["onnx.SparseTensorProto"],
    decode: decode_sparse,
    tensor_adapters: &[onnx_tensor::TENSOR_ADAPTER],
    tensor_namers: &[],
    line: container_summary,
    summary: super::summary::no_summary,
    views: &["onnx.SparseTensorProto"],
    side_tensors: super::base::no_side_tensors,
};

/// An ONNX model (`.onnx`).
pub const MODEL: Format = Format {
    id: "onnx-model",
    title: "ONNX model (ModelProto)",
    schema_files: &[onnx_tensor::SCHEMA_FILE, MODEL_FILE],
    roots: &["onnx.ModelProto"],
    decode: decode_model,
    tensor_adapters: &[onnx_tensor::TENSOR_ADAPTER],
    tensor_namers: MODEL_NAMERS,
    line: model_line,
    summary: model_summary,
    views: &["onnx.ModelProto"],
    side_tensors: super::base::no_side_tensors,
};
