//! The format registry: an ordered list of formats, each one record of
//! everything about it (id, title, schema files, root messages, decoding
//! and validation, tensor adapters), kept in the format's own file.
//! `--as auto` tries them in order after the protobuf pre-checks; the
//! schemaless reading comes last. The built-in schema tables and the tensor
//! adapters are derived from the registry.

mod base;
pub mod onnx;
pub mod onnx_tensor;
pub mod other_files;
pub mod tensorflow;

pub use base::{Body, DecodeFn, Format, FormatOptions, TensorAdapter, decode_builtin};

use crate::error::{DecodeError, ErrorKind, Result};
use crate::schema::SchemaSet;
use crate::schemaless;
use crate::wire::FieldReader;
use std::sync::OnceLock;

/// A decoded input: which format took it and what it holds.
pub struct Decoded<'a> {
    pub format: &'static Format,
    pub body: Body<'a>,
    /// The formats `--as auto` tried before this one, with why each did not
    /// fit (empty when a format was named).
    pub passed_over: Vec<(&'static Format, DecodeError)>,
}

/// The id of the schemaless reading, the last format tried.
pub const SCHEMALESS_ID: &str = "protobuf";

/// The formats in the order `--as auto` tries them (ONNX tensor first, schemaless last).
pub static REGISTRY: &[Format] = &[
    onnx_tensor::FORMAT,
    onnx::SEQUENCE,
    onnx::SPARSE,
    onnx::MODEL,
    tensorflow::SAVED_MODEL,
    tensorflow::GRAPH_DEF,
    Format {
        id: SCHEMALESS_ID,
        title: "Protocol Buffers message (no schema)",
        schema_files: &[],
        roots: &[],
        decode: decode_schemaless,
        tensor_adapters: &[],
        views: &[],
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
pub fn tensor_adapter(full_name: &str) -> Option<&'static TensorAdapter> {
    REGISTRY
        .iter()
        .flat_map(|f| f.tensor_adapters.iter())
        .find(|a| a.message == full_name)
}

pub fn find(id: &str) -> Option<&'static Format> {
    REGISTRY.iter().find(|f| f.id == id)
}

pub fn ids() -> Vec<&'static str> {
    REGISTRY.iter().map(|f| f.id).collect()
}

fn decode_schemaless<'a>(bytes: &'a [u8], opts: &FormatOptions) -> Result<Body<'a>> {
    if bytes.is_empty() {
        return Err(DecodeError::new(ErrorKind::Empty, 0));
    }
    let msg = schemaless::decode(
        bytes,
        0,
        schemaless::Options {
            max_depth: opts.max_depth,
        },
    )?;
    Ok(Body::Schemaless(msg))
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
    let onnx = set.find_message("onnx.TensorProto");
    let tf = set.find_message("tensorflow.TensorProto");
    let mut problems = Vec::new();
    let _ = onnx::walk(message, &mut |m| {
        let found = if Some(m.def) == onnx {
            onnx_tensor::validate(set, m).err()
        } else if Some(m.def) == tf {
            tensorflow::validate_tensor(set, m).err()
        } else {
            None
        };
        if let Some(e) = found {
            let name = m
                .probe_str(set, "name")
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
                e.kind,
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
            // A nested tensor (the container fitted) or the tensor file
            // format itself (its fields all fitted).
            tensor_rule && (f.id == onnx_tensor::FORMAT.id || e.has_path())
        })
        .map(|(f, e)| {
            let shown = decode_as(f, bytes, opts).is_ok();
            (*f, e.clone(), shown)
        })
        .collect()
}

/// Why `--as auto` turned an input down: the deciding error, and what each
/// format said.
#[derive(Debug)]
pub struct Rejection {
    pub error: DecodeError,
    pub tried: Vec<(&'static str, DecodeError)>,
}

/// The protobuf pre-checks: the first field must read cleanly and the first
/// 512 bytes must not all be printable text.
pub fn precheck(bytes: &[u8]) -> Result<()> {
    if bytes.is_empty() {
        return Err(DecodeError::new(ErrorKind::Empty, 0));
    }
    if let Some(Err(e)) = FieldReader::new(bytes, 0).next() {
        return Err(e);
    }
    let head = bytes.get(..512).unwrap_or(bytes);
    let text = match std::str::from_utf8(head) {
        Ok(s) => Some(s),
        // A character cut at byte 512 still counts as text.
        Err(e) if e.error_len().is_none() => {
            std::str::from_utf8(head.get(..e.valid_up_to()).unwrap_or(&[])).ok()
        }
        Err(_) => None,
    };
    if text.is_some_and(|s| {
        s.chars()
            .all(|c| !c.is_control() || matches!(c, '\n' | '\r' | '\t'))
    }) {
        return Err(DecodeError::new(ErrorKind::Text, 0));
    }
    Ok(())
}

/// `--as auto`: the pre-checks, then each format in order; the first whose
/// validation passes wins.
pub fn detect<'a>(
    bytes: &'a [u8],
    opts: &FormatOptions,
) -> std::result::Result<Decoded<'a>, Rejection> {
    if let Err(error) = precheck(bytes) {
        return Err(Rejection {
            error,
            tried: Vec::new(),
        });
    }
    let mut passed_over = Vec::new();
    for format in REGISTRY {
        match (format.decode)(bytes, opts) {
            Ok(body) => {
                return Ok(Decoded {
                    format,
                    body,
                    passed_over,
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
    let opts = FormatOptions {
        forced: true,
        ..*opts
    };
    (format.decode)(bytes, &opts).map(|body| Decoded {
        format,
        body,
        passed_over: Vec::new(),
    })
}
