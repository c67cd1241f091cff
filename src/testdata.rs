//! ONNX test data read with its model. A test is a folder with `model.onnx`
//! and `test_data_set_N/` folders of `input_K.pb` and `output_K.pb`; the
//! model says what each file is: `input_K.pb` is the K-th graph input that
//! is not an initializer (how onnx's backend test runner writes them),
//! `output_K.pb` the K-th graph output.
//!
//! The model is read lazily: only the graph's inputs, outputs and the names
//! of its initializers are decoded; the weights are stepped over, never read.

use crate::decode::{DecodeContext, Message, decode_message};
use crate::error::{DecodeError, ErrorKind, Result, Rule};
use crate::escape::TextLines;
use crate::fields::onnx::{
    MapProto, OptionalProto, SequenceProto, SparseTensorProto, TensorProto, TensorShapeProto,
    TypeProto, ValueInfoProto,
};
use crate::formats::onnx::{OPTIONAL_FIELDS, SEQUENCE_FIELDS};
use crate::formats::{self, Body, Decoded, FormatOptions, Rejection};
use crate::json_writer::{JsonWriter, Null};
use crate::schema::{FieldId, SchemaSet};
use crate::syntax::WireInput;
use crate::wire::{FieldReader, WireValue};
use std::io;
use std::path::{Path, PathBuf};

/// One dimension of a declared shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dim {
    Value(i64),
    Param(String),
    Any,
}

/// A graph input's or output's declared type (TypeProto), owned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Declared {
    /// `elem` 0 when not given; `dims` None for an unknown rank.
    Tensor {
        elem: i64,
        dims: Option<Vec<Dim>>,
    },
    Sparse {
        elem: i64,
        dims: Option<Vec<Dim>>,
    },
    Sequence(Box<Declared>),
    Optional(Box<Declared>),
    Map {
        key: i64,
        value: Box<Declared>,
    },
    /// Opaque types, or no type at all: nothing to check.
    Other(String),
}

fn data_type_name(code: i64) -> String {
    let set = SchemaSet::builtin();
    set.find_enum("onnx.TensorProto.DataType")
        .and_then(|e| set.enum_def(e).name_of(code).map(str::to_string))
        .unwrap_or_else(|| code.to_string())
}

fn dims_text(dims: &[Dim]) -> String {
    let parts: Vec<String> = dims
        .iter()
        .map(|d| match d {
            Dim::Value(v) => v.to_string(),
            Dim::Param(p) => p.clone(),
            Dim::Any => "?".to_string(),
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

impl Declared {
    /// ONNX's short syntax, as the model view prints it: `FLOAT[N, 3]`,
    /// `seq(...)`, `map(INT64, ...)`, `optional(...)`, `sparse(...)`.
    pub fn text(&self) -> String {
        match self {
            Declared::Tensor { elem, dims } => {
                let mut s = data_type_name(*elem);
                if let Some(d) = dims {
                    s.push_str(&dims_text(d));
                }
                s
            }
            Declared::Sparse { elem, dims } => {
                let mut s = data_type_name(*elem);
                if let Some(d) = dims {
                    s.push_str(&dims_text(d));
                }
                format!("sparse({s})")
            }
            Declared::Sequence(e) => format!("seq({})", e.text()),
            Declared::Optional(e) => format!("optional({})", e.text()),
            Declared::Map { key, value } => {
                format!("map({}, {})", data_type_name(*key), value.text())
            }
            Declared::Other(s) => s.clone(),
        }
    }

    /// The onnx-data.proto message a file of this type is.
    pub fn message_name(&self) -> Option<&'static str> {
        match self {
            Declared::Tensor { .. } => Some("onnx.TensorProto"),
            Declared::Sparse { .. } => Some("onnx.SparseTensorProto"),
            Declared::Sequence(_) => Some("onnx.SequenceProto"),
            Declared::Optional(_) => Some("onnx.OptionalProto"),
            Declared::Map { .. } => Some("onnx.MapProto"),
            Declared::Other(_) => None,
        }
    }
}

/// A graph input or output: its name and declared type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Port {
    pub name: String,
    pub declared: Declared,
}

/// What the test files of a model are: the graph inputs that are not
/// initializers (the order of `input_K.pb`) and the graph outputs.
#[derive(Debug, Clone, Default)]
pub struct Signature {
    pub inputs: Vec<Port>,
    pub outputs: Vec<Port>,
    /// Graph inputs that are initializers (not fed by test files).
    pub initializer_inputs: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Input,
    Output,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Input => "input",
            Role::Output => "output",
        }
    }
}

impl Signature {
    pub fn port(&self, role: Role, index: usize) -> Option<&Port> {
        match role {
            Role::Input => self.inputs.get(index),
            Role::Output => self.outputs.get(index),
        }
    }

    /// The signature as text: inputs, then outputs, one per line.
    pub fn write_text(&self, w: &mut TextLines<'_>) -> io::Result<()> {
        w.line(format_args!("inputs:"))?;
        for (k, p) in self.inputs.iter().enumerate() {
            w.line(format_args!("  {k} {:?}: {}", p.name, p.declared.text()))?;
        }
        if !self.initializer_inputs.is_empty() {
            w.line(format_args!(
                "  (also graph inputs, fed by initializers: {})",
                self.initializer_inputs.join(", ")
            ))?;
        }
        w.line(format_args!("outputs:"))?;
        for (k, p) in self.outputs.iter().enumerate() {
            w.line(format_args!("  {k} {:?}: {}", p.name, p.declared.text()))?;
        }
        Ok(())
    }
}

/// The bytes of the last occurrence of LEN field `number` in a message, with
/// their absolute offset.
fn last_len_field(bytes: &[u8], base: u64, number: u32) -> Result<Option<(&[u8], u64)>> {
    let mut found = None;
    for f in FieldReader::new(bytes, base) {
        let f = f?;
        if f.number == number
            && let WireValue::Len(b) = f.value
        {
            found = Some((b, f.value_offset));
        }
    }
    Ok(found)
}

/// The `name` (field 8) of a TensorProto, its other fields stepped over.
fn tensor_name(bytes: &[u8], base: u64) -> Result<Option<String>> {
    Ok(last_len_field(bytes, base, 8)?.map(|(b, _)| String::from_utf8_lossy(b).into_owned()))
}

/// Reads a model's signature: the graph's inputs, outputs and the names of
/// its initializers. Initializer values are never read.
pub fn read_signature(bytes: &[u8]) -> Result<Signature> {
    let set = SchemaSet::builtin();
    // A graph given more than once is one merged graph (protobuf's rule for
    // a singular message field): its repeated fields are concatenated.
    let mut graphs = Vec::new();
    for f in FieldReader::new(bytes, 0) {
        let f = f.map_err(|e| e.within("ModelProto"))?;
        if f.number == 7
            && let WireValue::Len(b) = f.value
        {
            graphs.push((b, f.value_offset));
        }
    }
    if graphs.is_empty() {
        return Err(DecodeError::rule(
            Rule::ModelContent,
            "the model has no graph",
            0,
        ));
    }
    let vi = set.find_message("onnx.ValueInfoProto").ok_or_else(|| {
        DecodeError::new(ErrorKind::NoSuchMessage("onnx.ValueInfoProto".into()), 0)
    })?;
    let mut inputs = Vec::new();
    let mut outputs = Vec::new();
    let mut inits: Vec<String> = Vec::new();
    let fields = graphs
        .into_iter()
        .flat_map(|(graph, gbase)| FieldReader::new(graph, gbase));
    for f in fields {
        let f = f.map_err(|e| e.within("ModelProto.graph"))?;
        let WireValue::Len(b) = f.value else { continue };
        match f.number {
            11 | 12 => {
                let m = decode_message(set, vi, b, f.value_offset, DecodeContext::lenient())
                    .map_err(|e| {
                        e.within(if f.number == 11 {
                            "GraphProto.input"
                        } else {
                            "GraphProto.output"
                        })
                        .within("ModelProto.graph")
                    })?;
                let port = Port {
                    name: m
                        .bytes(set, ValueInfoProto::NAME)
                        .map(|n| String::from_utf8_lossy(n).into_owned())
                        .unwrap_or_default(),
                    declared: m
                        .message(set, ValueInfoProto::TYPE)
                        .map_or(Declared::Other("(no type)".into()), |t| {
                            declared(set, t, crate::decode::DEFAULT_DEPTH)
                        }),
                };
                if f.number == 11 {
                    inputs.push(port);
                } else {
                    outputs.push(port);
                }
            }
            5 => {
                if let Some(n) = tensor_name(b, f.value_offset)? {
                    inits.push(n);
                }
            }
            15 => {
                // SparseTensorProto: its name is the name of its values.
                if let Some((v, at)) = last_len_field(b, f.value_offset, 1)?
                    && let Some(n) = tensor_name(v, at)?
                {
                    inits.push(n);
                }
            }
            _ => {}
        }
    }
    inits.sort();
    let (fed, data): (Vec<Port>, Vec<Port>) = inputs
        .into_iter()
        .partition(|p| inits.binary_search(&p.name).is_ok());
    Ok(Signature {
        inputs: data,
        outputs,
        initializer_inputs: fed.into_iter().map(|p| p.name).collect(),
    })
}

/// The dimensions of a TypeProto.Tensor or .SparseTensor (`shape`: that
/// type's shape field).
fn shape(set: &SchemaSet, t: &Message<'_>, shape: FieldId) -> Option<Vec<Dim>> {
    let shape = t.message(set, shape)?;
    Some(
        shape
            .messages(set, TensorShapeProto::DIM)
            .map(|d| {
                if let Some(v) = d.int(set, TensorShapeProto::Dimension::DIM_VALUE) {
                    Dim::Value(v)
                } else if let Some(p) = d.str(set, TensorShapeProto::Dimension::DIM_PARAM) {
                    Dim::Param(p.to_string())
                } else {
                    Dim::Any
                }
            })
            .collect(),
    )
}

/// A TypeProto as a `Declared`; `depth` bounds the nesting (the decoder's
/// own budget already does).
fn declared(set: &SchemaSet, tp: &Message<'_>, depth: u32) -> Declared {
    let Some(depth) = depth.checked_sub(1) else {
        return Declared::Other("(nested too deep)".into());
    };
    let sub = |m: &Message<'_>, field: FieldId| -> Declared {
        m.message(set, field)
            .map_or(Declared::Other("?".into()), |t| declared(set, t, depth))
    };
    if let Some(t) = tp.message(set, TypeProto::TENSOR_TYPE) {
        Declared::Tensor {
            elem: t.int(set, TypeProto::Tensor::ELEM_TYPE).unwrap_or(0),
            dims: shape(set, t, TypeProto::Tensor::SHAPE),
        }
    } else if let Some(t) = tp.message(set, TypeProto::SPARSE_TENSOR_TYPE) {
        Declared::Sparse {
            elem: t.int(set, TypeProto::SparseTensor::ELEM_TYPE).unwrap_or(0),
            dims: shape(set, t, TypeProto::SparseTensor::SHAPE),
        }
    } else if let Some(t) = tp.message(set, TypeProto::SEQUENCE_TYPE) {
        Declared::Sequence(Box::new(sub(t, TypeProto::Sequence::ELEM_TYPE)))
    } else if let Some(t) = tp.message(set, TypeProto::OPTIONAL_TYPE) {
        Declared::Optional(Box::new(sub(t, TypeProto::Optional::ELEM_TYPE)))
    } else if let Some(t) = tp.message(set, TypeProto::MAP_TYPE) {
        Declared::Map {
            key: t.int(set, TypeProto::Map::KEY_TYPE).unwrap_or(0),
            value: Box::new(sub(t, TypeProto::Map::VALUE_TYPE)),
        }
    } else if let Some(t) = tp.message(set, TypeProto::OPAQUE_TYPE) {
        let domain = t.str(set, TypeProto::Opaque::DOMAIN).unwrap_or("");
        let name = t.str(set, TypeProto::Opaque::NAME).unwrap_or("");
        Declared::Other(if domain.is_empty() {
            format!("opaque({name})")
        } else {
            format!("opaque({domain}.{name})")
        })
    } else {
        Declared::Other("?".into())
    }
}

/// `input_3.pb` is input 3, `output_0.pb` output 0.
pub fn role_of(file_name: &str) -> Option<(Role, usize)> {
    let stem = file_name.strip_suffix(".pb")?;
    let (role, k) = if let Some(k) = stem.strip_prefix("input_") {
        (Role::Input, k)
    } else {
        (Role::Output, stem.strip_prefix("output_")?)
    };
    if k.is_empty() || !k.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((role, k.parse().ok()?))
}

/// Whether a folder is a test data set (`test_data_set_N`).
pub fn is_data_set(dir: &Path) -> bool {
    dir.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("test_data_set"))
}

/// The model of a test file: `../model.onnx` when the file sits in a
/// `test_data_set_*` folder and that file exists.
pub fn model_beside(file: &Path) -> Option<PathBuf> {
    let dir = file.parent()?;
    if !is_data_set(dir) {
        return None;
    }
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let model = parent.join("model.onnx");
    model.is_file().then_some(model)
}

/// A test file named by its model.
#[derive(Debug, Clone)]
pub struct Naming {
    /// The model's path, as it was found.
    pub model: String,
    pub role: Role,
    pub index: usize,
    /// None when the model has no such input or output.
    pub port: Option<Port>,
    /// Why the file's message type came from the declaration (the bytes
    /// alone fit more than one message), when it did.
    pub resolved: Option<String>,
    /// How the value differs from the declaration, each with its path.
    pub mismatches: Vec<String>,
}

impl Naming {
    /// `input 0 "x"`
    pub fn label(&self) -> String {
        match &self.port {
            Some(p) => format!("{} {} {:?}", self.role.name(), self.index, p.name),
            None => format!("{} {}", self.role.name(), self.index),
        }
    }

    /// Text lines naming the file: `input 0 "x": FLOAT[3, 4, 5]`, the
    /// reason for its type, and each mismatch as a warning.
    pub fn write_text(&self, w: &mut TextLines<'_>) -> io::Result<()> {
        w.line(format_args!("model:  {}", self.model))?;
        match &self.port {
            Some(p) => w.line(format_args!("{}: {}", self.label(), p.declared.text()))?,
            None => w.line(format_args!("{}: not in the model", self.label()))?,
        }
        if let Some(r) = &self.resolved {
            w.line(format_args!("{r}"))?;
        }
        for m in &self.mismatches {
            w.line(format_args!("warning: {m}"))?;
        }
        Ok(())
    }

    /// The `"model"` object of the JSON output.
    pub fn write_json(&self, w: &mut JsonWriter<'_>) -> io::Result<()> {
        w.begin_object()?;
        w.member("path", &self.model)?;
        w.member("role", self.role.name())?;
        w.member("index", self.index)?;
        match &self.port {
            Some(p) => {
                w.member("name", &p.name)?;
                w.member("declared_type", &*p.declared.text())?;
            }
            None => {
                w.member("name", Null)?;
                w.member("declared_type", Null)?;
            }
        }
        if let Some(r) = &self.resolved {
            w.member("type_from_model", r)?;
        }
        if !self.mismatches.is_empty() {
            w.key("warnings")?;
            w.begin_array()?;
            for m in &self.mismatches {
                w.value(m)?;
            }
            w.end_array()?;
        }
        w.end_object()
    }
}

/// Decodes a test file as its model declares it: a file declared
/// `optional(...)`, `seq(...)` or `map(...)` is read as that message (the
/// bytes of a one-element SequenceProto are also an OptionalProto), anything
/// else by detection; then the value is checked against the declaration.
pub fn decode_named<'a>(
    bytes: &'a [u8],
    sig: &Signature,
    model: &str,
    role: Role,
    index: usize,
    opts: &FormatOptions,
) -> (std::result::Result<Decoded<'a>, Rejection>, Naming) {
    let port = sig.port(role, index).cloned();
    let mut naming = Naming {
        model: model.to_string(),
        role,
        index,
        port: port.clone(),
        resolved: None,
        mismatches: Vec::new(),
    };
    let Some(port) = port else {
        let n = match role {
            Role::Input => sig.inputs.len(),
            Role::Output => sig.outputs.len(),
        };
        naming.mismatches.push(format!(
            "{}_{index}.pb: the model has {n} {}{}",
            role.name(),
            role.name(),
            if n == 1 { "" } else { "s" }
        ));
        return (formats::detect(bytes, opts), naming);
    };
    let label = naming.label();
    let container = match &port.declared {
        Declared::Sequence(_) | Declared::Optional(_) | Declared::Map { .. } => {
            port.declared.message_name()
        }
        _ => None,
    };
    let mut not_container = None;
    let decoded = match container {
        Some(type_name) => match formats::onnx::decode_container(type_name, bytes) {
            Ok(body) => {
                naming.resolved = Some(format!(
                    "read as {type_name}: {label} is declared {}",
                    port.declared.text()
                ));
                formats::find(formats::onnx::SEQUENCE.id)
                    .map(|format| {
                        Ok(Decoded {
                            format,
                            body,
                            passed_over: Vec::new(),
                            syntax: formats::Syntax::Binary,
                        })
                    })
                    .unwrap_or_else(|| formats::detect(bytes, opts))
            }
            Err(e) => {
                not_container = Some(format!(
                    "{label}: declared {}, the file is not a {}: {e}",
                    port.declared.text(),
                    type_name.strip_prefix("onnx.").unwrap_or(type_name)
                ));
                formats::detect(bytes, opts)
            }
        },
        None => formats::detect(bytes, opts),
    };
    let checked = match &decoded {
        Ok(Decoded {
            body: Body::Message { message, .. },
            ..
        }) => Some(message),
        _ => None,
    };
    match checked {
        // The value read by detection shows how it differs.
        None => naming.mismatches.extend(not_container),
        Some(message) => check(
            SchemaSet::builtin(),
            &port.declared,
            message,
            &label,
            crate::decode::DEFAULT_DEPTH,
            &mut naming.mismatches,
        ),
    }
    (decoded, naming)
}

fn is(set: &SchemaSet, m: &Message<'_>, name: &str) -> bool {
    m.def(set).full_name == name
}

/// `FLOAT[3, 4]` for a TensorProto.
fn tensor_text(set: &SchemaSet, t: &Message<'_>) -> String {
    let dims: Vec<String> = t
        .scalars(set, TensorProto::DIMS)
        .filter_map(|d| d.as_i64())
        .map(|d| d.to_string())
        .collect();
    format!(
        "{}[{}]",
        data_type_name(t.int(set, TensorProto::DATA_TYPE).unwrap_or(0)),
        dims.join(", ")
    )
}

/// What a decoded message holds, in the declaration's syntax where it can.
fn held_text(set: &SchemaSet, m: &Message<'_>) -> String {
    if is(set, m, "onnx.TensorProto") {
        tensor_text(set, m)
    } else if is(set, m, "onnx.SparseTensorProto") {
        let dims: Vec<String> = m
            .scalars(set, SparseTensorProto::DIMS)
            .filter_map(|d| d.as_i64())
            .map(|d| d.to_string())
            .collect();
        let elem = m
            .message(set, SparseTensorProto::VALUES)
            .and_then(|v| v.int(set, TensorProto::DATA_TYPE))
            .unwrap_or(0);
        format!("sparse({}[{}])", data_type_name(elem), dims.join(", "))
    } else {
        let name = m.def(set).full_name.to_string();
        format!("a {}", name.strip_prefix("onnx.").unwrap_or(&name))
    }
}

fn dims_match(declared: &Option<Vec<Dim>>, actual: &[i64]) -> bool {
    match declared {
        None => true,
        Some(d) => {
            d.len() == actual.len()
                && d.iter().zip(actual).all(|(d, a)| match d {
                    Dim::Value(v) => v == a,
                    _ => true,
                })
        }
    }
}

/// SequenceProto/OptionalProto elem_type code of a declared element type.
fn container_code(d: &Declared) -> Option<i64> {
    Some(match d {
        Declared::Tensor { .. } => 1,
        Declared::Sparse { .. } => 2,
        Declared::Sequence(_) => 3,
        Declared::Map { .. } => 4,
        Declared::Optional(_) => 5,
        Declared::Other(_) => return None,
    })
}

/// Checks a decoded value against its declared type the way a runtime
/// reading the test would: element types, rank, each fixed dimension, and
/// the element types of sequences, maps and optionals. Each mismatch is one
/// line with its path.
pub fn check(
    set: &SchemaSet,
    declared: &Declared,
    m: &Message<'_>,
    path: &str,
    depth: u32,
    out: &mut Vec<String>,
) {
    let Some(depth) = depth.checked_sub(1) else {
        return;
    };
    let mut mismatch = || {
        out.push(format!(
            "{path}: declared {}, file holds {}",
            declared.text(),
            held_text(set, m)
        ))
    };
    match declared {
        Declared::Tensor { elem, dims } => {
            if !is(set, m, "onnx.TensorProto") {
                return mismatch();
            }
            let actual: Vec<i64> = m
                .scalars(set, TensorProto::DIMS)
                .filter_map(|d| d.as_i64())
                .collect();
            let dt = m.int(set, TensorProto::DATA_TYPE).unwrap_or(0);
            if (*elem != 0 && dt != *elem) || !dims_match(dims, &actual) {
                mismatch();
            }
        }
        Declared::Sparse { elem, dims } => {
            if !is(set, m, "onnx.SparseTensorProto") {
                return mismatch();
            }
            let actual: Vec<i64> = m
                .scalars(set, SparseTensorProto::DIMS)
                .filter_map(|d| d.as_i64())
                .collect();
            let dt = m
                .message(set, SparseTensorProto::VALUES)
                .and_then(|v| v.int(set, TensorProto::DATA_TYPE))
                .unwrap_or(0);
            if (*elem != 0 && dt != *elem) || !dims_match(dims, &actual) {
                mismatch();
            }
        }
        Declared::Sequence(inner) => {
            if !is(set, m, "onnx.SequenceProto") {
                return mismatch();
            }
            let code = m.int(set, SequenceProto::ELEM_TYPE).unwrap_or(0);
            if let Some(want) = container_code(inner)
                && code != 0
                && code != want
            {
                return mismatch();
            }
            let elements = SEQUENCE_FIELDS.iter().flat_map(|f| m.messages(set, *f));
            for (k, e) in elements.enumerate() {
                check(set, inner, e, &format!("{path}[{k}]"), depth, out);
            }
        }
        Declared::Optional(inner) => {
            if !is(set, m, "onnx.OptionalProto") {
                return mismatch();
            }
            let code = m.int(set, OptionalProto::ELEM_TYPE).unwrap_or(0);
            if let Some(want) = container_code(inner)
                && code != 0
                && code != want
            {
                return mismatch();
            }
            if let Some(v) = OPTIONAL_FIELDS.iter().find_map(|f| m.message(set, *f)) {
                check(set, inner, v, &format!("{path}.value"), depth, out);
            }
        }
        Declared::Map { key, value } => {
            if !is(set, m, "onnx.MapProto") {
                return mismatch();
            }
            let kt = m.int(set, MapProto::KEY_TYPE).unwrap_or(0);
            if *key != 0 && kt != *key {
                out.push(format!(
                    "{path}: declared {}, file holds keys of {}",
                    declared.text(),
                    data_type_name(kt)
                ));
            }
            let mut keys: Vec<String> = m
                .scalars(set, MapProto::KEYS)
                .filter_map(|k| k.as_i64())
                .map(|k| k.to_string())
                .collect();
            keys.extend(
                m.field(set, MapProto::STRING_KEYS)
                    .iter()
                    .filter_map(|f| match f.value {
                        crate::decode::Value::Bytes(b) => {
                            Some(format!("{:?}", String::from_utf8_lossy(b)))
                        }
                        _ => None,
                    }),
            );
            if let Some(values) = m.message(set, MapProto::VALUES) {
                let elements = SEQUENCE_FIELDS
                    .iter()
                    .flat_map(|f| values.messages(set, *f));
                for (k, e) in elements.enumerate() {
                    let key = keys.get(k).cloned().unwrap_or_else(|| k.to_string());
                    check(set, value, e, &format!("{path}[{key}]"), depth, out);
                }
            }
        }
        Declared::Other(_) => {}
    }
}

/// A model's signature, or why it could not be read, shared by the files
/// of a batch.
pub type SharedSignature = std::sync::Arc<std::result::Result<Signature, String>>;

/// The models already read, by path (a batch reads each model once).
#[derive(Default)]
pub struct ModelCache {
    models: std::sync::Mutex<std::collections::HashMap<PathBuf, SharedSignature>>,
}

impl ModelCache {
    /// The signature of the model at `path`, read on first use.
    pub fn get(&self, path: &Path) -> SharedSignature {
        if let Ok(models) = self.models.lock()
            && let Some(s) = models.get(path)
        {
            return s.clone();
        }
        let sig = std::sync::Arc::new(match crate::input::open_input(path) {
            Ok(input) => {
                read_signature(input.bytes()).map_err(|e| format!("{}: {e}", path.display()))
            }
            Err(e) => Err(format!("{}: {e}", path.display())),
        });
        if let Ok(mut models) = self.models.lock() {
            models.insert(path.to_path_buf(), sig.clone());
        }
        sig
    }
}

/// The files of a test folder (the folder with model.onnx, or one
/// `test_data_set_N`): every data set in name order, inputs then outputs in
/// index order. Returns the model's path and the files.
pub fn test_files(dir: &Path) -> io::Result<Option<(PathBuf, Vec<PathBuf>)>> {
    let (root, sets) = if is_data_set(dir) {
        let parent = match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        (parent, vec![dir.to_path_buf()])
    } else {
        let mut sets: Vec<PathBuf> = std::fs::read_dir(dir)?
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.is_dir() && is_data_set(p))
            .collect();
        sets.sort_by_key(|p| natural_key(p));
        (dir.to_path_buf(), sets)
    };
    let model = root.join("model.onnx");
    if !model.is_file() {
        return Ok(None);
    }
    let mut files = Vec::new();
    for set in sets {
        let mut found: Vec<(Role, usize, PathBuf)> = std::fs::read_dir(&set)?
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let p = e.path();
                let (role, k) = role_of(p.file_name()?.to_str()?)?;
                Some((role, k, p))
            })
            .collect();
        found.sort_by_key(|(r, k, _)| (*r == Role::Output, *k));
        files.extend(found.into_iter().map(|(_, _, p)| p));
    }
    Ok(Some((model, files)))
}

/// Sorts `test_data_set_10` after `test_data_set_9`.
fn natural_key(p: &Path) -> (String, u64) {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let digits: String = name
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let n = digits.parse().unwrap_or(0);
    (
        name.trim_end_matches(|c: char| c.is_ascii_digit())
            .to_string(),
        n,
    )
}

/// What a file needs to be read as test data: its model and its place.
#[derive(Clone)]
pub struct FileContext {
    pub model: String,
    pub signature: SharedSignature,
    pub role: Role,
    pub index: usize,
}

/// The model context of `file`: `model` when given, else the model.onnx
/// beside its test_data_set folder; None when the file is not named
/// `input_K.pb`/`output_K.pb` or there is no model.
pub fn file_context(file: &Path, model: Option<&Path>, cache: &ModelCache) -> Option<FileContext> {
    let (role, index) = role_of(file.file_name()?.to_str()?)?;
    let model = match model {
        Some(m) => m.to_path_buf(),
        None => model_beside(file)?,
    };
    Some(FileContext {
        model: model.display().to_string(),
        signature: cache.get(&model),
        role,
        index,
    })
}

/// Decodes a file by detection, or as its model declares it when it has a
/// context (a model that cannot be read is reported in the naming).
pub fn decode_file<'a>(
    bytes: &'a [u8],
    ctx: Option<&FileContext>,
    opts: &FormatOptions,
) -> (std::result::Result<Decoded<'a>, Rejection>, Option<Naming>) {
    let Some(ctx) = ctx else {
        return (formats::detect(bytes, opts), None);
    };
    match ctx.signature.as_ref() {
        Ok(sig) => {
            let (d, n) = decode_named(bytes, sig, &ctx.model, ctx.role, ctx.index, opts);
            (d, Some(n))
        }
        Err(e) => (
            formats::detect(bytes, opts),
            Some(Naming {
                model: ctx.model.clone(),
                role: ctx.role,
                index: ctx.index,
                port: None,
                resolved: None,
                mismatches: vec![format!("the model was not read: {e}")],
            }),
        ),
    }
}

/// [`decode_file`] over a [`WireInput`]: a text-format input is read as its
/// binary form, the decoded file marked as text and an error placed in the
/// text.
pub fn decode_source<'a>(
    source: &'a WireInput,
    ctx: Option<&FileContext>,
    opts: &FormatOptions,
) -> (std::result::Result<Decoded<'a>, Rejection>, Option<Naming>) {
    let (d, n) = decode_file(source.binary.bytes(), ctx, opts);
    let d = match d {
        Ok(d) => Ok(Decoded {
            syntax: source.syntax(),
            ..d
        }),
        Err(r) => Err(source.place_rejection(r)),
    };
    (d, n)
}

/// `"model": {...}` after the value, when the file was named.
pub fn json_tail(w: &mut JsonWriter<'_>, naming: Option<&Naming>) -> io::Result<()> {
    if let Some(n) = naming {
        w.key("model")?;
        n.write_json(w)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles() {
        assert_eq!(role_of("input_0.pb"), Some((Role::Input, 0)));
        assert_eq!(role_of("output_12.pb"), Some((Role::Output, 12)));
        assert_eq!(role_of("input_.pb"), None);
        assert_eq!(role_of("input_1a.pb"), None);
        assert_eq!(role_of("model.onnx"), None);
    }

    #[test]
    fn signature_of_a_model() {
        let model = include_bytes!("../tests/fixtures/onnx-testdata/test_add_bias/model.onnx");
        let sig = read_signature(model).expect("signature");
        let names: Vec<&str> = sig.inputs.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["x", "y"]);
        assert_eq!(sig.initializer_inputs, ["bias"]);
        assert_eq!(sig.outputs.len(), 1);
    }

    #[test]
    fn broken_models_and_files_never_panic() {
        let model: &[u8] =
            include_bytes!("../tests/fixtures/onnx-testdata/test_optional_has_element/model.onnx");
        let file: &[u8] = include_bytes!(
            "../tests/fixtures/onnx-testdata/test_optional_has_element/test_data_set_0/input_0.pb"
        );
        let mut inputs: Vec<Vec<u8>> = (0..model.len()).map(|n| model[..n].to_vec()).collect();
        for at in 0..model.len() {
            for v in [0u8, 0x7f, 0x80, 0xff] {
                let mut m = model.to_vec();
                m[at] = v;
                inputs.push(m);
            }
        }
        let good = read_signature(model).expect("signature");
        for m in &inputs {
            if let Ok(sig) = read_signature(m) {
                for p in sig.inputs.iter().chain(&sig.outputs) {
                    let _ = p.declared.text();
                }
                let _ = decode_named(file, &sig, "m", Role::Input, 0, &FormatOptions::default());
            }
        }
        for n in 0..file.len() {
            for cut in [&file[..n], &file[n..]] {
                let _ = decode_named(cut, &good, "m", Role::Input, 0, &FormatOptions::default());
            }
        }
    }

    #[test]
    fn declared_text() {
        let t = Declared::Tensor {
            elem: 7,
            dims: Some(vec![Dim::Value(2), Dim::Any, Dim::Param("N".into())]),
        };
        assert_eq!(t.text(), "INT64[2, ?, N]");
        let o = Declared::Optional(Box::new(Declared::Sequence(Box::new(t))));
        assert_eq!(o.text(), "optional(seq(INT64[2, ?, N]))");
        assert!(dims_match(&Some(vec![Dim::Value(2), Dim::Any]), &[2, 3]));
        assert!(!dims_match(&Some(vec![Dim::Value(2), Dim::Any]), &[3, 3]));
        assert!(!dims_match(&Some(vec![Dim::Value(2)]), &[2, 3]));
        assert!(dims_match(&None, &[2, 3]));
    }
}
