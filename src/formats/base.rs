//! What every format's decoder shares, below the registry: the options a
//! decoder gets, what it makes of the input, the built-in tables' decoding,
//! and the record of a tensor message type.

use crate::decode::{DecodeContext, Message, decode_message};
use crate::error::{DecodeError, ErrorKind, Result};
use crate::schema::SchemaSet;
use crate::schemaless::{self, RawMessage};
use crate::tensor::TensorView;

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

/// A message type whose element-holding fields are shown as one decoded
/// `values` list.
pub struct TensorAdapter {
    pub message: &'static str,
    pub value_fields: &'static [&'static str],
    /// Fields the text view already shows in the tensor's header lines.
    pub header_fields: &'static [&'static str],
    pub view: for<'m, 'a> fn(&SchemaSet, &'m Message<'a>) -> TensorView<'m, 'a>,
    /// A problem of a tensor that still decodes, said next to its values
    /// (text) or as `"warning"` (JSON).
    pub warning: fn(&SchemaSet, &Message<'_>) -> Option<String>,
}

/// Everything about one format.
pub struct Format {
    pub id: &'static str,
    /// What the format is, for people.
    pub title: &'static str,
    /// The `schemas/*.proto` files its messages are defined in, as (name,
    /// text), each with the files it imports; the built-in tables are the
    /// files of every format.
    pub schema_files: &'static [(&'static str, &'static str)],
    /// The message types a file of this format is (none: no schema).
    pub roots: &'static [&'static str],
    /// Reads and validates an input.
    pub decode: DecodeFn,
    /// Message types inside this format whose values are shown as one
    /// decoded `values` list.
    pub tensor_adapters: &'static [TensorAdapter],
    /// The root messages that have a dedicated text view (render's
    /// `TEXT_VIEWS`, checked against this list both ways); other roots are
    /// shown as the generic field tree.
    pub views: &'static [&'static str],
}
