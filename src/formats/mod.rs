//! The format registry: an ordered list of formats, each one record of
//! everything about it (id, title, schema files, root messages, decoding
//! and validation, tensor adapters and naming, summary), kept in the
//! format's own file. `--as auto` tries them in order after the protobuf
//! pre-checks; the schemaless reading comes last. The built-in schema
//! tables, the tensor adapters, the tensor namers and the `--as` choices are
//! derived from the registry.

mod base;
pub mod onnx;
pub mod onnx_tensor;
pub mod other_files;
pub mod paddle;
pub mod records;
pub mod summary;
pub mod tensorflow;
pub mod tf_checkpoint;
pub mod tf_event;
pub mod tf_example;
pub mod tf_record;

pub use base::{
    Body, Bundle, BundleEntry, BundleVersion, DecodeFn, Format, FormatOptions, KernelOrder, LineFn,
    SideTensor, SideTensorsFn, SideValues, Syntax, TensorAdapter, TensorNamer, TensorRole,
    TensorSink, decode_builtin, is_text, no_line, no_side_tensors, walk,
};
use summary::no_summary;

use crate::decode::Message;
use crate::error::{DecodeError, ErrorKind, Result};
use crate::schema::{MsgId, SchemaSet};
use crate::schemaless::{self, RawMessage};
use crate::tensor::TensorView;
use crate::wire::FieldReader;
use std::collections::HashSet;
use std::sync::OnceLock;

/// A decoded input: which format took it and what it holds.
pub struct Decoded<'a> {
    pub format: &'static Format,
    pub body: Body<'a>,
    /// The formats `--as auto` tried before this one, with why each did not
    /// fit (empty when a format was named).
    pub passed_over: Vec<(&'static Format, DecodeError)>,
    /// The syntax of the file: binary, or protobuf's text format (whose
    /// binary form `body` was read from).
    pub syntax: Syntax,
}

/// The id of the schemaless reading, the last format tried.
pub const SCHEMALESS_ID: &str = "protobuf";

/// The formats in the order `--as auto` tries them (the tensor bundle and
/// record files, which are not protobuf, before the pre-checks; then ONNX
/// tensor first, schemaless last).
pub static REGISTRY: &[Format] = &[
    // The container formats, which are no protobuf message, tried first
    // and only on their own signature (see `detect`): a tensor bundle's
    // table, then the framing of a record file.
    tf_checkpoint::FORMAT,
    tf_record::FORMAT,
    onnx_tensor::FORMAT,
    onnx::SEQUENCE,
    onnx::OPTIONAL,
    onnx::SPARSE,
    onnx::MODEL,
    tensorflow::SAVED_MODEL,
    tensorflow::GRAPH_DEF,
    paddle::FORMAT,
    Format {
        id: SCHEMALESS_ID,
        title: "Protocol Buffers message (no schema)",
        schema_files: &[],
        roots: &[],
        decode: decode_schemaless,
        tensor_adapters: &[],
        tensor_namers: &[],
        line: no_line,
        summary: no_summary,
        views: &[],
        side_tensors: no_side_tensors,
    },
];

/// The built-in schema files: every format's files, each once, in registry
/// order.
pub fn builtin_files() -> Vec<(&'static str, &'static str)> {
    let mut files: Vec<(&'static str, &'static str)> = Vec::new();
    for f in REGISTRY {
        for &(name, text) in f.schema_files {
            if !files.iter().any(|(n, _)| *n == name) {
                files.push((name, text));
            }
        }
    }
    files
}

impl SchemaSet {
    /// The tables of every built-in format ([`builtin_files`]), parsed once.
    pub fn builtin() -> &'static SchemaSet {
        static SET: OnceLock<SchemaSet> = OnceLock::new();
        SET.get_or_init(|| {
            SchemaSet::from_files(
                builtin_files()
                    .into_iter()
                    .map(|(n, t)| (n.to_string(), t.to_string())),
            )
            .map(SchemaSet::into_builtin)
            .unwrap_or_else(|e| panic!("built-in schema tables are broken: {e}"))
        })
    }
}

/// Every format's tensor adapters, each once, in registry order.
pub fn tensor_adapters() -> impl Iterator<Item = &'static TensorAdapter> {
    let mut seen: Vec<&'static str> = Vec::new();
    REGISTRY
        .iter()
        .flat_map(|f| f.tensor_adapters.iter())
        .filter(move |a| {
            let new = !seen.contains(&a.message);
            if new {
                seen.push(a.message);
            }
            new
        })
}

/// The tensor adapter of a message type, if any format has one.
pub fn tensor_adapter<N: PartialEq<str> + ?Sized>(full_name: &N) -> Option<&'static TensorAdapter> {
    REGISTRY
        .iter()
        .flat_map(|f| f.tensor_adapters.iter())
        .find(|a| *full_name == *a.message)
}

/// Every format's tensor namers, each message once, in registry order.
pub fn tensor_namers() -> impl Iterator<Item = &'static TensorNamer> {
    let mut seen: Vec<&'static str> = Vec::new();
    REGISTRY
        .iter()
        .flat_map(|f| f.tensor_namers.iter())
        .filter(move |n| {
            let new = !seen.contains(&n.message);
            if new {
                seen.push(n.message);
            }
            new
        })
}

/// The tensor namer of a message type, if any format has one.
pub fn tensor_namer<N: PartialEq<str> + ?Sized>(full_name: &N) -> Option<&'static TensorNamer> {
    tensor_namers().find(|n| *full_name == *n.message)
}

/// A tensor inside a decoded file.
pub struct NamedTensor<'m, 'a> {
    pub name: String,
    pub message: &'m Message<'a>,
    /// A weight: an ONNX graph initializer, the value of a TensorFlow Const
    /// node, or the tensor of a tensor file.
    pub initializer: bool,
}

impl<'m, 'a> NamedTensor<'m, 'a> {
    pub fn view(&self, set: &SchemaSet) -> Option<TensorView<'m, 'a>> {
        tensor_adapter(&self.message.def(set).full_name).map(|a| (a.view)(set, self.message))
    }
}

/// Every tensor in `root`, in file order, each once, with its name: the
/// messages that hold tensors name them (the formats' [`TensorNamer`]s:
/// an ONNX initializer or Constant by its `name` or the node's output, a
/// TensorFlow tensor by its node, `node/attr` for an attribute other than
/// `value`); any other tensor by its own name field, if its adapter has
/// one; `tensorN` (its place in the list) for a tensor with no name. The
/// root, when it is a tensor, is a weight.
pub fn named_tensors<'m, 'a>(set: &SchemaSet, root: &'m Message<'a>) -> Vec<NamedTensor<'m, 'a>> {
    let namers: Vec<(MsgId, &TensorNamer)> = tensor_namers()
        .filter_map(|n| set.find_message(n.message).map(|id| (id, n)))
        .collect();
    let adapters: Vec<(MsgId, &TensorAdapter)> = tensor_adapters()
        .filter_map(|a| set.find_message(a.message).map(|id| (id, a)))
        .collect();
    let mut out: Vec<NamedTensor<'m, 'a>> = Vec::new();
    // The tensors already listed, by address: one look-up each, so a model
    // of many tensors is listed in linear time.
    let mut seen: HashSet<*const Message<'a>> = HashSet::new();
    let mut push = |name: String, m: &'m Message<'a>, initializer: bool| {
        if seen.insert(std::ptr::from_ref(m)) {
            out.push(NamedTensor {
                name,
                message: m,
                initializer,
            });
        }
    };
    let _ = walk(root, &mut |m: &'m Message<'a>| {
        if let Some((_, namer)) = namers.iter().find(|(id, _)| *id == m.def) {
            (namer.names)(set, m, &mut push);
        } else if let Some((_, adapter)) = adapters.iter().find(|(id, _)| *id == m.def) {
            let name = adapter
                .name_field
                .and_then(|f| m.str(set, f))
                .unwrap_or("")
                .to_string();
            push(name, m, std::ptr::eq(m, root));
        }
        Ok(())
    });
    for (k, t) in out.iter_mut().enumerate() {
        if t.name.is_empty() {
            t.name = format!("tensor{k}");
        }
    }
    out
}

/// What a nested tensor is to the file, from the messages around it:
/// `field` is the field of `outer[0]` that holds it, `outer` the messages
/// it is in, innermost first. Each format says it for its own messages.
pub fn tensor_role(set: &SchemaSet, field: Option<&str>, outer: &[&Message<'_>]) -> TensorRole {
    onnx::tensor_role(set, field, outer)
        .or_else(|| tensorflow::tensor_role(set, outer))
        .unwrap_or(TensorRole::Other)
}

pub fn find(id: &str) -> Option<&'static Format> {
    REGISTRY.iter().find(|f| f.id == id)
}

pub fn ids() -> Vec<&'static str> {
    REGISTRY.iter().map(|f| f.id).collect()
}

/// What `--as` names: detection, or one format.
#[derive(Clone, Copy)]
pub enum AsFormat {
    /// Try every format in registry order (`auto`).
    Auto,
    Format(&'static Format),
}

impl AsFormat {
    /// The word for detection.
    pub const AUTO: &'static str = "auto";

    /// `auto` or a format id.
    pub fn parse(s: &str) -> Option<AsFormat> {
        if s == Self::AUTO {
            Some(AsFormat::Auto)
        } else {
            find(s).map(AsFormat::Format)
        }
    }

    /// The word `--as` takes for it.
    pub fn id(self) -> &'static str {
        match self {
            AsFormat::Auto => Self::AUTO,
            AsFormat::Format(f) => f.id,
        }
    }

    /// Every choice: `auto`, then the formats in detection order.
    pub fn all() -> impl Iterator<Item = AsFormat> {
        std::iter::once(AsFormat::Auto).chain(REGISTRY.iter().map(AsFormat::Format))
    }

    /// The named format (None for `auto`).
    pub fn format(self) -> Option<&'static Format> {
        match self {
            AsFormat::Auto => None,
            AsFormat::Format(f) => Some(f),
        }
    }

    /// Whether it names the schemaless reading.
    pub fn is_schemaless(self) -> bool {
        self.format().is_some_and(|f| f.id == SCHEMALESS_ID)
    }
}

impl std::fmt::Debug for AsFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

impl PartialEq for AsFormat {
    fn eq(&self, other: &Self) -> bool {
        self.id() == other.id()
    }
}

impl Eq for AsFormat {}

fn decode_schemaless<'a>(bytes: &'a [u8], opts: &FormatOptions) -> Result<Body<'a>> {
    if bytes.is_empty() {
        return Err(DecodeError::new(ErrorKind::Empty, 0));
    }
    let sopts = schemaless::Options {
        max_depth: opts.max_depth,
    };
    if !opts.tree {
        schemaless::check(bytes, 0, sopts)?;
        return Ok(Body::Schemaless(RawMessage::unread(0, bytes.len() as u64)));
    }
    Ok(Body::Schemaless(schemaless::decode(bytes, 0, sopts)?))
}

/// Every tensor inside a decoded message that breaks its format's rules
/// (ONNX's tensor-file rules, TensorFlow's size rules). Empty for inputs
/// that `--as auto` accepts; under `--as FORMAT` a model is shown with such
/// tensors, and these are the warnings that go with it.
pub fn tensor_problems(body: &Body<'_>) -> Vec<DecodeError> {
    let Body::Message { message, .. } = body else {
        return Vec::new();
    };
    let set = SchemaSet::builtin();
    let adapters: Vec<(MsgId, &TensorAdapter)> = tensor_adapters()
        .filter_map(|a| set.find_message(a.message).map(|id| (id, a)))
        .collect();
    let mut problems = Vec::new();
    let _ = walk(message, &mut |m| {
        let found = adapters
            .iter()
            .find(|(id, _)| *id == m.def)
            .and_then(|(_, a)| (a.validate)(set, m).err().map(|e| (a, e)));
        if let Some((adapter, e)) = found {
            let name = adapter
                .name_field
                .and_then(|f| m.str(set, f))
                .filter(|n| !n.is_empty())
                .map(|n| format!("tensor {n:?}"));
            problems.push(match name {
                Some(n) => e.within(n),
                None => e,
            });
        }
        Ok(())
    });
    problems
}

/// The formats whose structure the input fits but whose tensor rules it
/// breaks: what `--as auto` fell back to `protobuf` from, worth a note (a
/// model with one bad initializer, a tensor whose raw_data is short). The
/// flag says whether `--as` that format shows the input anyway.
pub fn near_misses(
    decoded: &Decoded<'_>,
    bytes: &[u8],
    opts: &FormatOptions,
) -> Vec<(&'static Format, DecodeError, bool)> {
    decoded
        .passed_over
        .iter()
        .filter(|(f, e)| {
            let tensor_rule = matches!(
                e.kind(),
                ErrorKind::RawSize { .. }
                    | ErrorKind::TypedCount { .. }
                    | ErrorKind::RawForString
                    | ErrorKind::StringUtf8 { .. }
                    | ErrorKind::ValuesInSeveralPlaces(_)
                    | ErrorKind::WrongTypedField { .. }
                    | ErrorKind::DataTypeRange(_)
                    | ErrorKind::NegativeDim { .. }
                    | ErrorKind::ElementCountOverflow
            );
            // A nested tensor (the container fitted) or a format whose
            // file is a tensor (its fields all fitted).
            tensor_rule && (e.has_path() || f.roots.iter().any(|r| tensor_adapter(*r).is_some()))
        })
        .map(|(f, e)| {
            let shown = decode_as(f, bytes, opts).is_ok();
            (*f, e.clone(), shown)
        })
        .collect()
}

/// Why `--as auto` turned an input down: the deciding error, and what each
/// format said.
#[derive(Debug, Clone)]
pub struct Rejection {
    pub error: DecodeError,
    pub tried: Vec<(&'static str, DecodeError)>,
}

/// The protobuf pre-checks: the first 512 bytes must not all be printable
/// text (checked first: JSON and protobuf's text format are told as text,
/// not by the wire error their first bytes make), and the first field must
/// read cleanly.
pub fn precheck(bytes: &[u8]) -> Result<()> {
    if bytes.is_empty() {
        return Err(DecodeError::new(ErrorKind::Empty, 0));
    }
    if is_text(bytes) {
        return Err(DecodeError::new(ErrorKind::Text, 0));
    }
    if let Some(Err(e)) = FieldReader::new(bytes, 0).next() {
        return Err(e);
    }
    Ok(())
}

/// `--as auto`: a tensor bundle when the input looks like one
/// ([`tf_checkpoint::looks_like_bundle`]: its first byte is 0, which the
/// pre-checks refuse); then the pre-checks
/// and each protobuf format in order; the first whose validation passes
/// wins. Another input is not said to have been tried as a bundle.
pub fn detect<'a>(
    bytes: &'a [u8],
    opts: &FormatOptions,
) -> std::result::Result<Decoded<'a>, Rejection> {
    let bundle = &tf_checkpoint::FORMAT;
    let mut passed_over = Vec::new();
    if tf_checkpoint::looks_like_bundle(bytes) {
        match (bundle.decode)(bytes, opts) {
            Ok(body) => {
                return Ok(Decoded {
                    format: bundle,
                    body,
                    passed_over,
                    syntax: Syntax::Binary,
                });
            }
            Err(e) => passed_over.push((bundle, e)),
        }
    }
    // Record files, on their framing: the pre-checks would turn them down.
    if let Some(format) = find(tf_record::ID).filter(|_| records::is_record_file(bytes))
        && let Ok(body) = (format.decode)(bytes, opts)
    {
        return Ok(Decoded {
            format,
            body,
            passed_over,
            syntax: Syntax::Binary,
        });
    }
    if let Err(error) = precheck(bytes) {
        // A damaged bundle says why it is not one, not why it is not protobuf.
        let tried: Vec<(&'static str, DecodeError)> =
            passed_over.into_iter().map(|(f, e)| (f.id, e)).collect();
        return Err(Rejection {
            error: tried.first().map_or(error, |(_, e)| e.clone()),
            tried,
        });
    }
    // An optional's bytes are a sequence's (the same field numbers, each
    // repeated there), so `onnx-optional` is read only when asked for.
    for format in REGISTRY
        .iter()
        .filter(|f| f.id != bundle.id && f.id != tf_record::ID && f.id != onnx::OPTIONAL.id)
    {
        match (format.decode)(bytes, opts) {
            Ok(body) => {
                return Ok(Decoded {
                    format,
                    body,
                    passed_over,
                    syntax: Syntax::Binary,
                });
            }
            Err(e) => passed_over.push((format, e)),
        }
    }
    let tried: Vec<(&'static str, DecodeError)> =
        passed_over.into_iter().map(|(f, e)| (f.id, e)).collect();
    // The registry ends with the schemaless reading, so `tried` is empty
    // only when the pre-checks failed, which returned above.
    let error = tried
        .last()
        .map(|(_, e)| e.clone())
        .unwrap_or_else(|| DecodeError::new(ErrorKind::NotAMessage, 0));
    Err(Rejection { error, tried })
}

/// `--as FORMAT`: that format only, and exactly why the input does not fit.
pub fn decode_as<'a>(
    format: &'static Format,
    bytes: &'a [u8],
    opts: &FormatOptions,
) -> Result<Decoded<'a>> {
    // An empty input is a record file of 0 records (TensorFlow reads it
    // so) and no message of any other format: it says so, rather than
    // which field the empty message lacks.
    if bytes.is_empty() && format.id != tf_record::ID {
        return Err(DecodeError::new(ErrorKind::Empty, 0));
    }
    let opts = FormatOptions {
        forced: true,
        ..*opts
    };
    (format.decode)(bytes, &opts).map(|body| Decoded {
        format,
        body,
        passed_over: Vec::new(),
        syntax: Syntax::Binary,
    })
}
