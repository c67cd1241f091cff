//! What every format's decoder shares, below the registry: the options a
//! decoder gets, what it makes of the input, the built-in tables' decoding,
//! the walk over a decoded tree, and the records of a tensor message type
//! and of a message that names the tensors inside it.

use crate::decode::{DecodeContext, Message, Value, decode_message};
use crate::error::{DecodeError, ErrorKind, Result};
use crate::external::{ExternalRef, Folder};
use crate::schema::{FieldId, SchemaSet};
use crate::schemaless::{self, RawMessage};
use crate::tensor::{Elem, TensorData, TensorView, element_count};

/// Options that reach every format's decoder.
#[derive(Debug, Clone, Copy)]
pub struct FormatOptions {
    /// The user named this format with `--as`: decode what fits and show
    /// unknown fields rather than refusing them, where the format allows.
    pub forced: bool,
    /// Nesting limit of the schemaless reading.
    pub max_depth: u32,
    /// Build the schemaless reading's tree. Without it the input is only
    /// checked ([`schemaless::check`]) and [`Body::Schemaless`] holds no
    /// fields: for a caller that reads the tree again a level at a time
    /// ([`schemaless::read_level`]), so that detecting a file of a million
    /// fields costs no memory per field.
    pub tree: bool,
}

impl Default for FormatOptions {
    fn default() -> Self {
        FormatOptions {
            forced: false,
            max_depth: schemaless::DEFAULT_MAX_DEPTH,
            tree: true,
        }
    }
}

/// Which syntax a file is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Syntax {
    /// The wire format.
    #[default]
    Binary,
    /// Protobuf's text format.
    Text,
}

impl Syntax {
    /// The word for it (`"syntax"` in JSON).
    pub fn name(self) -> &'static str {
        match self {
            Syntax::Binary => "binary",
            Syntax::Text => "text",
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
    /// A file of TensorFlow records (TFRecord, event file), read record by
    /// record by each pass over it.
    Records(super::records::RecordFile<'a>),
    /// A TensorFlow tensor bundle's index: a table of keys, each value a
    /// message ([`super::tf_checkpoint`]).
    Bundle(Box<Bundle<'a>>),
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

/// Calls `f` on `msg` and every message nested in it, in file order (a
/// message before the messages inside it). The depth is the decoded tree's,
/// which the decoder's depth budget bounds.
pub fn walk<'m, 'a>(
    msg: &'m Message<'a>,
    f: &mut dyn FnMut(&'m Message<'a>) -> Result<()>,
) -> Result<()> {
    f(msg)?;
    for field in &msg.fields {
        if let Value::Message(sub) = &field.value {
            walk(sub, f)?;
        }
    }
    Ok(())
}

/// A message type whose element-holding fields are shown as one decoded
/// `values` list.
pub struct TensorAdapter {
    pub message: &'static str,
    pub value_fields: &'static [FieldId],
    /// Fields the text view already shows in the tensor's header lines.
    pub header_fields: &'static [FieldId],
    /// The field holding a tensor's own name (None: the tensor has none;
    /// a [`TensorNamer`] of the message holding it names it).
    pub name_field: Option<FieldId>,
    pub view: for<'m, 'a> fn(&SchemaSet, &'m Message<'a>) -> TensorView<'m, 'a>,
    /// The format's rules for a tensor of this type, as `--as auto` checks
    /// them (the tensors `--as FORMAT` shows anyway are warned of).
    pub validate: fn(&SchemaSet, &Message<'_>) -> Result<()>,
    /// A problem of a tensor that still decodes, said next to its values
    /// (text) or as `"warning"` (JSON).
    pub warning: fn(&SchemaSet, &Message<'_>) -> Option<String>,
    /// How the format stores a convolution kernel of rank 4, so that a
    /// weight of this type is drawn as its filters (`crate::picture`).
    pub kernel_order: KernelOrder,
}

/// The axis order of a format's rank-4 convolution kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KernelOrder {
    /// [out, in, height, width] (ONNX's Conv weight).
    Oihw,
    /// [height, width, in, out] (TensorFlow's Conv2D filter).
    Hwio,
}

/// Where a [`TensorNamer`] reports a tensor: its name (empty when it has
/// none: it is then called `tensorN`), the tensor message, and whether it
/// is a weight (an ONNX initializer, the value of a TensorFlow Const node).
pub type TensorSink<'s, 'm, 'a> = dyn FnMut(String, &'m Message<'a>, bool) + 's;

/// A message type that holds tensors and knows their names: an ONNX graph
/// (its initializers), an ONNX node (its attributes' tensors, named by the
/// node's output), a TensorFlow node (its attributes' tensors, named by
/// the node).
pub struct TensorNamer {
    pub message: &'static str,
    /// Reports each tensor of one message of this type, in file order.
    pub names: for<'s, 'm, 'a> fn(&SchemaSet, &'m Message<'a>, &mut TensorSink<'s, 'm, 'a>),
}

/// A format's one-line summary of a file of one of its roots (the batch
/// table's `shape/summary` column): `FLOAT[3, 4]`, `12 nodes, 4
/// initializers`.
pub type LineFn = fn(&SchemaSet, &Message<'_>) -> String;

/// The one-line summary of a format that has none.
pub fn no_line(_: &SchemaSet, _: &Message<'_>) -> String {
    String::new()
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
    /// Message types inside this format that name the tensors they hold
    /// (`--tensor NAME`, `--npy-dir`, the explorer's tensor list).
    pub tensor_namers: &'static [TensorNamer],
    /// The one-line summary of a decoded root message (batch tables).
    pub line: LineFn,
    /// The summary of a decoded root message: the text view's header,
    /// `"summary"` in JSON, the explorer's header card.
    pub summary: super::summary::SummaryFn,
    /// The root messages that have a dedicated text view (render's
    /// `TEXT_VIEWS`, checked against this list both ways); other roots are
    /// shown as the generic field tree.
    pub views: &'static [&'static str],
    /// The tensors whose values are in side files beside the input (a
    /// Paddle program's parameters, a Core ML program's weights);
    /// [`no_side_tensors`] for a format that has none.
    pub side_tensors: SideTensorsFn,
}

/// Where a side tensor's values are: its type and shape, and the range of
/// a side file (relative to the input's folder, read under the external
/// data rules) that holds them, or why they cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideValues {
    /// The data type as the format names it (`FP32`).
    pub type_name: String,
    /// None for a data type without a decoding.
    pub elem: Option<Elem>,
    pub dims: Vec<i64>,
    /// The side file's range, or why the values are not there.
    pub place: std::result::Result<ExternalRef, String>,
    /// How the format stores a convolution kernel of rank 4.
    pub kernel_order: KernelOrder,
}

impl SideValues {
    /// The tensor as the layers below see it: its values the side file's
    /// range (mapped, bounds and size checked, when read).
    pub fn view<'m, 'a>(&self) -> TensorView<'m, 'a> {
        let dims: Option<Vec<u64>> = self.dims.iter().map(|&d| u64::try_from(d).ok()).collect();
        let elements = dims.as_deref().and_then(element_count);
        let data = match (&self.place, self.elem, elements) {
            (Err(why), _, _) => TensorData::Unavailable(why.clone()),
            (_, None, _) => {
                TensorData::Unavailable(format!("{} values are not decoded", self.type_name))
            }
            (_, _, None) => TensorData::Unavailable("the shape is not a known size".into()),
            (_, _, Some(0)) => TensorData::None,
            (Ok(r), Some(_), Some(_)) => TensorData::External(r.clone()),
        };
        TensorView {
            type_name: self.type_name.clone(),
            elem: self.elem,
            dims: Some(self.dims.clone()),
            byte_aligned: false,
            elements: elements.unwrap_or(0),
            data,
        }
    }

    /// The side file and the offset of the values in it, when found.
    pub fn file_offset(&self) -> Option<(&str, u64)> {
        let r = self.place.as_ref().ok()?;
        let offset = r
            .offset
            .as_deref()
            .and_then(|o| o.parse().ok())
            .unwrap_or(0);
        Some((r.location.as_deref()?, offset))
    }
}

/// A tensor whose values are in a side file: its name as the framework
/// names it, the message of the input that declares it (a variable, an
/// op), and where its values are.
pub struct SideTensor<'m, 'a> {
    pub name: String,
    pub message: &'m Message<'a>,
    pub values: SideValues,
}

/// Finds the side tensors of a decoded root message in the folder the
/// input is in.
pub type SideTensorsFn =
    for<'m, 'a> fn(&SchemaSet, &'m Message<'a>, &Folder) -> Vec<SideTensor<'m, 'a>>;

/// The side tensors of a format that has none.
pub fn no_side_tensors<'m, 'a>(
    _: &SchemaSet,
    _: &'m Message<'a>,
    _: &Folder,
) -> Vec<SideTensor<'m, 'a>> {
    Vec::new()
}

/// Whether `file` holds the bytes `root` was decoded from (a whole input:
/// the root starts at 0): the same size, and every string, bytes and
/// packed field of the tree at its offset. How a format that finds its
/// side files by name finds its own file among a folder's, knowing only
/// its decoded tree.
pub fn is_input_of(root: &Message<'_>, file: &[u8]) -> bool {
    if root.offset != 0 || file.len() as u64 != root.end {
        return false;
    }
    walk(root, &mut |m| {
        for f in &m.fields {
            if let Value::Bytes(b) | Value::Packed(b) = f.value {
                let at = usize::try_from(f.value_offset).ok();
                let same = at
                    .and_then(|s| file.get(s..s.checked_add(b.len())?))
                    .is_some_and(|stored| stored == b);
                if !same {
                    return Err(DecodeError::new(ErrorKind::NotAMessage, f.offset));
                }
            }
        }
        Ok(())
    })
    .is_ok()
}

/// What a tensor is to the file that holds it.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TensorRole {
    /// The file is the tensor (a .pb tensor file).
    TensorFile,
    /// An ONNX test folder's `input_K.pb`.
    TestInput,
    /// An ONNX test folder's `output_K.pb`.
    TestOutput,
    /// An ONNX graph initializer.
    Initializer,
    /// The value of an ONNX `Constant` node or a TensorFlow `Const` node.
    Constant,
    /// Another attribute of a node.
    Attribute,
    /// An element of an ONNX sequence.
    SequenceElement,
    /// A value of an ONNX map.
    MapValue,
    /// The value of an ONNX optional.
    OptionalValue,
    /// The values of an ONNX sparse tensor.
    SparseValues,
    /// The indices of an ONNX sparse tensor.
    SparseIndices,
    /// A variable of a TensorFlow checkpoint or of a SavedModel's
    /// `variables/` (a tensor bundle's entry).
    Variable,
    /// Anywhere else.
    Other,
}

/// The nearest of `outer` (enclosing messages, innermost first) of the
/// message type `name`.
pub fn enclosing<'m, 'a>(
    set: &SchemaSet,
    outer: &[&'m Message<'a>],
    name: &str,
) -> Option<&'m Message<'a>> {
    outer.iter().copied().find(|m| m.def(set).full_name == name)
}

/// Whether the first 512 bytes are printable text (UTF-8 without control
/// characters but line ends and tabs; a character cut at byte 512 still
/// counts).
pub fn is_text(bytes: &[u8]) -> bool {
    if bytes.is_empty() {
        return false;
    }
    let head = bytes.get(..512).unwrap_or(bytes);
    let text = match std::str::from_utf8(head) {
        Ok(s) => Some(s),
        Err(e) if e.error_len().is_none() => {
            std::str::from_utf8(head.get(..e.valid_up_to()).unwrap_or(&[])).ok()
        }
        Err(_) => None,
    };
    text.is_some_and(|s| {
        s.chars()
            .all(|c| !c.is_control() || matches!(c, '\n' | '\r' | '\t'))
    })
}

/// Which kind of bundle the table holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BundleVersion {
    /// A tensor bundle: an index and data shards (TensorFlow 1.x V2
    /// checkpoints, TensorFlow 2, SavedModel variables).
    V2,
    /// A V1 checkpoint: one file, each value a `SavedTensorSlices`.
    V1,
}

/// One key of the table and its value, decoded.
pub struct BundleEntry<'a> {
    /// The key as stored (an object path, a variable name, or an
    /// OrderedCode slice key starting with a 0 byte).
    pub key: Vec<u8>,
    /// A `BundleEntryProto` (V2) or `SavedTensorSlices` (V1), borrowing the
    /// index's bytes.
    pub message: Message<'a>,
}

/// A decoded tensor bundle index.
pub struct Bundle<'a> {
    pub version: BundleVersion,
    /// The value of key `""`: a `BundleHeaderProto` (V2) or a
    /// `SavedTensorSlices` holding the meta (V1).
    pub header: Message<'a>,
    /// Every other key, in table (bytewise) order.
    pub entries: Vec<BundleEntry<'a>>,
    /// The index's bytes (to find its own file again: `tf_checkpoint::find_prefix`).
    pub bytes: &'a [u8],
}
