//! The format registry: an ordered list of formats, each a schema (root
//! message) plus its own validation. `--as auto` tries them in order after
//! the protobuf pre-checks; the schemaless reading comes last.

pub mod onnx;
pub mod onnx_tensor;
pub mod other_files;
pub mod tensorflow;

use crate::decode::{DecodeContext, Message, decode_message};
use crate::error::{DecodeError, ErrorKind, Result};
use crate::schema::SchemaSet;
use crate::schemaless::{self, RawMessage};
use crate::wire::FieldReader;

/// Options that reach every format's decoder.
#[derive(Debug, Clone, Copy)]
pub struct FormatOptions {
    /// The user named this format with `--as`: decode what fits and show
    /// unknown fields rather than refusing them, where the format allows.
    pub forced: bool,
    /// Nesting limit of the schemaless reading.
    pub max_depth: u32,
}

impl Default for FormatOptions {
    fn default() -> Self {
        FormatOptions {
            forced: false,
            max_depth: schemaless::DEFAULT_MAX_DEPTH,
        }
    }
}

/// What a format made of the input.
pub enum Body<'a> {
    /// A message read with a schema: its full type name, the message, and
    /// other types the same bytes are equally valid as.
    Message {
        type_name: String,
        message: Message<'a>,
        also: Vec<String>,
    },
    /// A message read without a schema.
    Schemaless(RawMessage<'a>),
    /// A message read with a schema the user gave (`--schema`,
    /// `--descriptor-set`), and that schema's tables.
    UserMessage {
        set: &'a SchemaSet,
        type_name: String,
        message: Message<'a>,
    },
}

pub type DecodeFn = for<'a> fn(&'a [u8], &FormatOptions) -> Result<Body<'a>>;

pub struct Format {
    pub id: &'static str,
    /// What the format is, for people.
    pub title: &'static str,
    pub decode: DecodeFn,
}

/// A decoded input: which format took it and what it holds.
pub struct Decoded<'a> {
    pub format: &'static Format,
    pub body: Body<'a>,
    /// The formats `--as auto` tried before this one, with why each did not
    /// fit (empty when a format was named).
    pub passed_over: Vec<(&'static Format, DecodeError)>,
}

/// The formats in the order `--as auto` tries them (ONNX tensor first, schemaless last).
pub static REGISTRY: &[Format] = &[
    Format {
        id: "onnx-tensor",
        title: "ONNX tensor (TensorProto)",
        decode: decode_onnx_tensor,
    },
    Format {
        id: "onnx-sequence",
        title: "ONNX sequence, optional or map (onnx-data.proto)",
        decode: onnx::decode_sequence,
    },
    Format {
        id: "onnx-sparse-tensor",
        title: "ONNX sparse tensor (SparseTensorProto)",
        decode: onnx::decode_sparse,
    },
    Format {
        id: "onnx-model",
        title: "ONNX model (ModelProto)",
        decode: onnx::decode_model,
    },
    Format {
        id: "tf-saved-model",
        title: "TensorFlow SavedModel",
        decode: tensorflow::decode_saved_model,
    },
    Format {
        id: "tf-graph-def",
        title: "TensorFlow GraphDef (frozen graph)",
        decode: tensorflow::decode_graph_def,
    },
    Format {
        id: "protobuf",
        title: "Protocol Buffers message (no schema)",
        decode: decode_schemaless,
    },
];

pub fn find(id: &str) -> Option<&'static Format> {
    REGISTRY.iter().find(|f| f.id == id)
}

pub fn ids() -> Vec<&'static str> {
    REGISTRY.iter().map(|f| f.id).collect()
}

/// Decodes `bytes` as the message `type_name` of the built-in tables.
pub fn decode_builtin<'a>(
    type_name: &str,
    bytes: &'a [u8],
    ctx: DecodeContext,
) -> Result<Message<'a>> {
    let set = SchemaSet::builtin();
    let id = set
        .find_message(type_name)
        .ok_or_else(|| DecodeError::new(ErrorKind::NoSuchMessage(type_name.to_string()), 0))?;
    decode_message(set, id, bytes, 0, ctx)
}

fn decode_onnx_tensor<'a>(bytes: &'a [u8], _opts: &FormatOptions) -> Result<Body<'a>> {
    let message = decode_builtin("onnx.TensorProto", bytes, DecodeContext::strict())?;
    onnx_tensor::validate(SchemaSet::builtin(), &message)?;
    Ok(Body::Message {
        type_name: "onnx.TensorProto".into(),
        message,
        also: Vec::new(),
    })
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
                .str(set, "name")
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
            tensor_rule && (f.id == "onnx-tensor" || e.has_path())
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
