//! The two syntaxes of a protobuf file: binary, and protobuf's text format,
//! read against the root messages of the registry's formats. A text input
//! is turned into the binary form of the message it holds
//! ([`read_text`]); detection, the formats' validation and everything
//! after them then read those bytes as they read a binary file, and an
//! error they find is placed back in the text ([`TextReading::place`]).

use crate::decode::DEFAULT_DEPTH;
use crate::error::{DecodeError, ErrorKind};
use crate::formats::{AsFormat, REGISTRY, Rejection, Syntax};
use crate::input::InputBytes;
use crate::schema::{FieldType, MsgId, SchemaSet};
use crate::text_format::{self, SpanMap};
use std::sync::{Arc, OnceLock};

/// A text input read as one message of a schema: its binary form.
#[derive(Debug, Clone)]
pub struct TextReading {
    /// The message's binary form, as protobuf's serializers write its
    /// fields (in the text's order).
    pub binary: Vec<u8>,
    /// The message type it was read as.
    pub root: MsgId,
    /// Its full name.
    pub type_name: String,
    /// Where each field's bytes are written in the text: made when an
    /// error is first placed (the text read again).
    spans: OnceLock<Option<SpanMap>>,
}

impl TextReading {
    /// Places an error of the binary form (detection, a format's
    /// validation) in `text`, the input this reading was made of (with
    /// `set`, the tables it was read with): the offset, line and column
    /// of the field it is in.
    pub fn place(&self, set: &SchemaSet, text: &[u8], e: DecodeError) -> DecodeError {
        if e.line_column().is_some() {
            return e;
        }
        let spans = self
            .spans
            .get_or_init(|| SpanMap::new(set, self.root, text, DEFAULT_DEPTH));
        match spans {
            Some(map) => map.place(text, e),
            None => text_format::place(text, e.in_text(0, 1, 1)),
        }
    }
}

/// Whether an input is read as text format under `asked`: it looks like
/// text format ([`text_format::looks_like_text`]), and the format asked
/// for (if any) has root messages a text can hold.
pub fn is_text_input(bytes: &[u8], asked: AsFormat) -> bool {
    let readable = match asked {
        AsFormat::Auto => true,
        AsFormat::Format(f) => !f.roots.is_empty(),
    };
    readable && text_format::looks_like_text(bytes)
}

/// The root messages a text may be, in detection order: those of the
/// format asked for, or of every format.
fn candidates(set: &SchemaSet, asked: AsFormat) -> Vec<(&'static str, MsgId)> {
    let mut out: Vec<(&'static str, MsgId)> = Vec::new();
    for f in REGISTRY {
        if asked.format().is_some_and(|a| a.id != f.id) {
            continue;
        }
        for root in f.roots {
            if let Some(id) = set.find_message(root)
                && !out.iter().any(|(_, r)| *r == id)
            {
                out.push((f.id, id));
            }
        }
    }
    out
}

/// Whether message `id` has a field written as `name` in text (its own
/// name, or a group's type name).
fn has_field(set: &SchemaSet, id: MsgId, name: &[u8]) -> bool {
    let Ok(name) = std::str::from_utf8(name) else {
        return false;
    };
    set.message(id).fields.iter().any(|f| {
        f.name == name
            || (f.group && matches!(f.ty, FieldType::Message(m) if set.message(m).name == name))
    })
}

/// The message `name` names in a header (`pkg.Msg`, or a name unique among
/// the messages of the tables).
fn header_message(set: &SchemaSet, name: &str) -> Option<MsgId> {
    if let Some(id) = set.find_message(name.trim_start_matches('.')) {
        return Some(id);
    }
    let suffix = format!(".{name}");
    let mut found = set
        .message_names()
        .enumerate()
        .filter(|(_, n)| n.to_string().ends_with(&suffix));
    match (found.next(), found.next()) {
        (Some((id, _)), None) => Some(id),
        _ => None,
    }
}

/// Reads a text input as a message of the built-in tables: the one its
/// `# proto-message:` header names, or else the first root (in detection
/// order, of the format `asked` for or of all) that has a field of the
/// text's first field name and reads the whole text. A text no root reads
/// is turned down with the error of the root that read furthest (a
/// GraphDef's typo at its line, not "not ONNX at 1:1"), each root's error
/// listed.
pub fn read_text(text: &[u8], asked: AsFormat) -> Result<TextReading, Rejection> {
    let set = SchemaSet::builtin();
    let header = text_format::header(text);
    let reject = |e: DecodeError| Rejection {
        error: text_format::place(text, e),
        tried: Vec::new(),
    };
    let candidates = match &header.message {
        Some(name) => match header_message(set, name) {
            Some(id) => vec![("", id)],
            None => {
                return Err(reject(DecodeError::new(
                    ErrorKind::TextType {
                        what: "the message the header names",
                        name: name.clone(),
                        hint: "the built-in formats read ONNX and TensorFlow messages; give the schema with --schema FILE.proto --type pkg.Msg",
                    },
                    0,
                )));
            }
        },
        None => {
            let all = candidates(set, asked);
            match text_format::first_field(text) {
                Some(b"[") | None => all,
                Some(first) => {
                    let fitting: Vec<(&'static str, MsgId)> = all
                        .iter()
                        .copied()
                        .filter(|(_, id)| has_field(set, *id, first))
                        .collect();
                    if fitting.is_empty() {
                        let at = text
                            .windows(first.len())
                            .position(|w| w == first)
                            .unwrap_or(0);
                        return Err(reject(DecodeError::new(
                            ErrorKind::TextNoMessage {
                                first: String::from_utf8_lossy(first).into_owned(),
                                asked: asked.format().map(|f| f.id),
                            },
                            at as u64,
                        )));
                    }
                    fitting
                }
            }
        }
    };
    let mut tried: Vec<(&'static str, DecodeError)> = Vec::new();
    for (id, root) in candidates {
        match text_format::encode(set, root, text, DEFAULT_DEPTH) {
            Ok(binary) => {
                return Ok(TextReading {
                    binary,
                    root,
                    type_name: set.message(root).full_name.to_string(),
                    spans: OnceLock::new(),
                });
            }
            Err(e) => tried.push((id, e)),
        }
    }
    // The error of the root that read furthest (the first of equals); a
    // field at the top level that none of them has says that the text is
    // of another message (a Caffe prototxt's `layer`).
    let top_level_unknown = tried
        .iter()
        .all(|(_, e)| !e.has_path() && matches!(e.kind(), ErrorKind::TextUnknownField { .. }));
    let furthest = tried
        .iter()
        .map(|(_, e)| e)
        .fold(None::<&DecodeError>, |best, e| match best {
            Some(b) if b.offset() >= e.offset() => Some(b),
            _ => Some(e),
        })
        .cloned()
        .unwrap_or_else(|| DecodeError::new(ErrorKind::NotAMessage, 0));
    let furthest = match furthest.kind() {
        ErrorKind::TextUnknownField { name, .. } if top_level_unknown => text_format::place(
            text,
            DecodeError::new(
                ErrorKind::TextNoMessage {
                    first: name.clone(),
                    asked: asked.format().map(|f| f.id),
                },
                furthest.offset(),
            ),
        ),
        _ => furthest,
    };
    Err(Rejection {
        error: furthest,
        tried,
    })
}

/// Reads a text input as message `type_name` of a user's tables
/// (`--schema`/`--descriptor-set` with `--type`).
pub fn read_text_as(
    set: &SchemaSet,
    type_name: &str,
    text: &[u8],
) -> Result<TextReading, DecodeError> {
    let root = set
        .find_message(type_name)
        .ok_or_else(|| DecodeError::new(ErrorKind::NoSuchMessage(type_name.to_string()), 0))?;
    let binary = text_format::encode(set, root, text, DEFAULT_DEPTH)?;
    Ok(TextReading {
        binary,
        root,
        type_name: type_name.to_string(),
        spans: OnceLock::new(),
    })
}

/// An input as the decoders read it: a binary input as it is, a text-format
/// input as its binary form (with the text kept, to place errors and to
/// show it).
#[derive(Clone)]
pub struct WireInput {
    /// The bytes the decoders read.
    pub binary: Arc<InputBytes>,
    /// For a text-format input: the text and how it was read.
    pub text: Option<Arc<TextSource>>,
}

/// A text-format input: its bytes, and the message it was read as.
pub struct TextSource {
    pub text: Arc<InputBytes>,
    pub reading: TextReading,
}

impl WireInput {
    /// A binary input.
    pub fn binary(input: Arc<InputBytes>) -> WireInput {
        WireInput {
            binary: input,
            text: None,
        }
    }

    /// The input read as `asked` would: a text-format input (when it looks
    /// like one and the format asked for has messages) as the message it
    /// holds ([`read_text`]), any other as it is. A text no built-in
    /// message reads is turned down, its errors placed in the text.
    pub fn new(input: Arc<InputBytes>, asked: AsFormat) -> Result<WireInput, Rejection> {
        if !is_text_input(input.bytes(), asked) {
            return Ok(WireInput::binary(input));
        }
        let mut reading = read_text(input.bytes(), asked)?;
        let binary = std::mem::take(&mut reading.binary);
        Ok(WireInput {
            binary: Arc::new(InputBytes::Owned(binary)),
            text: Some(Arc::new(TextSource {
                text: input,
                reading,
            })),
        })
    }

    /// The syntax the input is written in.
    pub fn syntax(&self) -> Syntax {
        if self.text.is_some() {
            Syntax::Text
        } else {
            Syntax::Binary
        }
    }

    /// An error of the binary form, placed in the text for a text input.
    pub fn place(&self, e: DecodeError) -> DecodeError {
        match &self.text {
            Some(t) => t.reading.place(SchemaSet::builtin(), t.text.bytes(), e),
            None => e,
        }
    }

    /// A rejection's errors placed in the text, for a text input.
    pub fn place_rejection(&self, r: Rejection) -> Rejection {
        if self.text.is_none() {
            return r;
        }
        Rejection {
            error: self.place(r.error),
            tried: r
                .tried
                .into_iter()
                .map(|(id, e)| (id, self.place(e)))
                .collect(),
        }
    }
}
