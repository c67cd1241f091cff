//! One error type for the whole decoder: where (byte offset, field path) and
//! why (a specific kind that carries its data), so a user can find the fault
//! in a hex viewer and a script can match on the check that failed.
//!
//! The checks a script sees (`"check"` in JSON errors, the first word of a
//! message) are [`Check`]: each is documented once there or, for the rules
//! a format adds to its schema table, on [`Rule`]; [`Check::all`] lists
//! them.

use std::fmt;
use thiserror::Error;

/// Why a decode failed. Each kind belongs to one [`Check`].
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ErrorKind {
    // --- wire format ---
    /// The input has no bytes.
    #[error("input is empty")]
    Empty,
    /// A field, key or value runs past the end of the input.
    #[error("truncated: {what} runs past the end of the input")]
    Truncated { what: &'static str },
    /// A varint with more than 10 bytes.
    #[error("varint longer than 10 bytes")]
    VarintTooLong,
    /// A 10-byte varint whose last byte carries more than the 64th bit.
    #[error("varint overflows 64 bits")]
    VarintOverflow,
    /// A field number of 0 or above 2^29-1.
    #[error("field number {0} is out of range (1..2^29-1)")]
    FieldNumber(u64),
    /// Wire type 6 or 7.
    #[error("wire type {0} does not exist")]
    WireType(u8),
    /// A declared length larger than the bytes left in the enclosing message.
    #[error("length {len} > {left} bytes left")]
    LengthOverrun { len: u64, left: u64 },
    /// An end-group key with no open group, or for another field's group.
    #[error("end-group for field {got} {}", open_group_text(*.open))]
    GroupMismatch { got: u32, open: Option<u32> },
    /// A start-group key with no end-group before the end of its message.
    #[error("group of field {0} is never closed")]
    GroupUnclosed(u32),
    /// Messages or groups nested deeper than the depth budget.
    #[error("nesting deeper than {0} levels")]
    DepthLimit(u32),
    /// Nesting deeper than the fixed limit of decoding with a schema.
    #[error("nesting deeper than {0} levels, the hard limit of decoding with a schema")]
    NestingLimit(u32),
    /// A packed field whose length is not a multiple of its element width.
    #[error("packed field length {len} is not a multiple of {width}")]
    PackedLength { len: usize, width: usize },
    // --- schema ---
    /// A field number the message's table does not have (strict decoding).
    #[error("field {number} is not a field of {message}")]
    UnknownField { number: u32, message: String },
    /// A field written with a wire type its declared type cannot have.
    #[error("wire type {got} where {expected} is expected")]
    WrongWireType {
        expected: &'static str,
        got: &'static str,
    },
    /// A `string` field that is not UTF-8.
    #[error("string is not valid UTF-8 (byte {at})")]
    InvalidUtf8 { at: usize },
    /// A `bool` field other than 0 or 1 (strict decoding).
    #[error("bool value {0} is neither 0 nor 1")]
    BadBool(u64),
    // --- detection ---
    /// The input starts with printable text.
    #[error(
        "the first 512 bytes are printable text (JSON? protobuf text format, .pbtxt/.prototxt?), not binary protobuf"
    )]
    Text,
    /// The bytes do not parse as one message.
    #[error("not a well-formed message")]
    NotAMessage,
    /// A message type named by the user that the schema does not have.
    #[error("the schema has no message {0}")]
    NoSuchMessage(String),
    /// A rule of one format (see [`Rule`]) with what broke it.
    #[error("{detail}")]
    Rule { rule: Rule, detail: String },
    // --- tensors ---
    /// A tensor without its data type.
    #[error("data_type is missing")]
    DataTypeMissing,
    /// A data type code outside the known ones.
    #[error("data_type {0} is not a known data type (1..28)")]
    DataTypeRange(i64),
    /// A negative dimension.
    #[error("dimension {index} is negative ({value})")]
    NegativeDim { index: usize, value: i64 },
    /// Dimensions whose product overflows 64 bits.
    #[error("element count overflows 64 bits")]
    ElementCountOverflow,
    /// Values both in raw bytes and typed fields (or in two typed fields).
    #[error("values are in more than one place: {0}")]
    ValuesInSeveralPlaces(String),
    /// A tensor with elements and no values anywhere.
    #[error("no values for {elements} elements")]
    ValuesMissing { elements: u64 },
    /// Values in a typed field that does not hold the data type.
    #[error("{field} does not hold values of type {data_type}")]
    WrongTypedField { field: String, data_type: String },
    /// Raw bytes of another size than the shape and type need.
    #[error("raw_data is {got} bytes, the shape needs {expected}")]
    RawSize { expected: u64, got: u64 },
    /// A typed field with another number of values than the shape needs.
    #[error("{field} holds {got} values, the shape needs {expected}")]
    TypedCount {
        field: String,
        expected: u64,
        got: u64,
    },
    /// Raw bytes for a STRING tensor.
    #[error("raw_data is not allowed for STRING tensors")]
    RawForString,
    /// A string element of a tensor that is not UTF-8 where text is required.
    #[error("string {index} is not valid UTF-8 (byte {at})")]
    StringUtf8 { index: u64, at: usize },
    /// A record's length does not match the CRC32C stored after it.
    #[error(
        "record {record}: the length's CRC32C is 0x{computed:08x}, the file says 0x{stored:08x}"
    )]
    RecordLengthCrc {
        record: u64,
        stored: u32,
        computed: u32,
    },
    /// A record's data does not match the CRC32C stored after it.
    #[error("record {record}: the data's CRC32C is 0x{computed:08x}, the file says 0x{stored:08x}")]
    RecordDataCrc {
        record: u64,
        stored: u32,
        computed: u32,
    },
    /// A record of a compressed stream declares more bytes than a stream
    /// of its size can hold.
    #[error(
        "record {record}: length {len} > {left} bytes, the most the compressed stream can hold"
    )]
    RecordLength { record: u64, len: u64, left: u64 },
    /// The file ends inside a record (a file still being written?).
    #[error(
        "record {record} is cut: {needed} bytes needed, {left} left (a file still being written?)"
    )]
    RecordCut { record: u64, needed: u64, left: u64 },
    /// A compressed stream that does not decompress.
    #[error("the {compression} stream does not decompress: {detail}")]
    Decompress {
        compression: &'static str,
        detail: String,
    },
    // --- protobuf text format ---
    /// A token the text format's grammar does not allow where it stands.
    #[error("{found} where {expected} is expected")]
    TextSyntax {
        found: String,
        expected: &'static str,
    },
    /// A string literal whose line ends before its closing quote.
    #[error("the string is not closed: its line ends before the closing {quote}")]
    TextUnterminated { quote: char },
    /// A field name the message does not have.
    #[error("{}", unknown_text_field(name, message, closest.as_deref()))]
    TextUnknownField {
        name: String,
        message: String,
        closest: Option<String>,
    },
    /// A field that is not repeated, given a second time.
    #[error("{field} is given twice, and it is not a repeated field")]
    TextDuplicate { field: String },
    /// A second member of a oneof.
    #[error("{field} is given with {other}: both are members of oneof {oneof}, which holds one")]
    TextOneof {
        field: String,
        other: String,
        oneof: String,
    },
    /// A value the field's type cannot hold: a number out of its range, a
    /// float for an integer, a name that is not one of the enum's values.
    #[error("{found} is not a value of {ty}: {why}")]
    TextValue {
        found: String,
        ty: String,
        why: String,
    },
    /// An escape sequence in a string literal that the text format does
    /// not have.
    #[error("{found} is not an escape of the text format: {why}")]
    TextEscape { found: String, why: &'static str },
    /// Printable text with a field at its top level that no message it
    /// may be has (the built-in formats' messages, or those of the format
    /// asked for).
    #[error("{}", no_message_text(first, *asked))]
    TextNoMessage {
        first: String,
        asked: Option<&'static str>,
    },
    /// A byte that is not UTF-8 (a text format file is UTF-8 throughout).
    #[error("byte 0x{byte:02x} is not UTF-8 (a text format file is UTF-8 throughout)")]
    TextNotUtf8 { byte: u8 },
    /// A `string` field whose value, its escapes decoded, is not UTF-8.
    #[error(
        "the value of a string field is not UTF-8 once its escapes are decoded (byte {at}); a bytes field would hold it"
    )]
    TextStringUtf8 { at: usize },
    /// A type the schema tables do not have: a `# proto-message:` header,
    /// an `Any` value's type URL, an extension.
    #[error("{what} {name:?} is not in the schema tables{}", hint_text(hint))]
    TextType {
        what: &'static str,
        name: String,
        hint: &'static str,
    },
    // --- record files as columns ---
    /// A feature holds another kind of values than in the records before.
    #[error("feature {name:?} holds {now} values, the records before hold {was}")]
    FeatureKind {
        name: String,
        was: &'static str,
        now: &'static str,
    },
    /// A record that is no Example where a file's Examples are read as
    /// columns.
    #[error("record {record} is a {found}, not an Example or SequenceExample")]
    RecordPayload { record: u64, found: &'static str },
    /// More records times features than a table of the file's size may hold.
    #[error(
        "{records} records times {features} features are more cells than a file of this size may ask for"
    )]
    FeatureTable { records: u64, features: u64 },
    // --- memory ---
    /// A buffer whose size the input gives could not be allocated.
    #[error("{0}")]
    Memory(AllocError),
}

/// A buffer whose size comes from input that was not allocated
/// (`crate::alloc`): too big for any buffer, or refused by the system.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum AllocError {
    /// More bytes than one buffer can hold (numpy's "array is too big").
    #[error("{elements} elements of {width} bytes are more than one buffer can hold")]
    TooBig { elements: u64, width: u64 },
    /// The system refused the memory.
    #[error("{bytes} bytes could not be allocated")]
    Failed { bytes: u64 },
}

/// Declares [`Check`] with the name scripts match on, and the list of the
/// checks of the wire and tensor layers, from one table.
macro_rules! checks {
    ($($(#[$doc:meta])* $check:ident => $name:literal,)*) => {
        /// A check that failed, as scripts see it: the wire and tensor
        /// checks, and one per rule of a format.
        #[non_exhaustive]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Check {
            $($(#[$doc])* $check,)*
            /// A rule a format adds to its schema table (named by the rule).
            Rule(Rule),
        }

        impl Check {
            /// The checks of the wire and tensor layers, in declaration
            /// order (the rules are [`Rule::ALL`]).
            pub const BASE: &[Check] = &[$(Check::$check,)*];

            /// The check's name (`"check"` in JSON errors).
            pub fn name(self) -> &'static str {
                match self {
                    $(Check::$check => $name,)*
                    Check::Rule(rule) => rule.check(),
                }
            }
        }
    };
}

checks! {
    /// The input is empty.
    Empty => "empty",
    /// A field runs past the end of the input.
    Truncated => "truncated",
    /// A varint is longer than 10 bytes or overflows 64 bits.
    Varint => "varint",
    /// A field number is out of range, or not in the message (strict).
    Field => "field",
    /// Wire types: one that does not exist, one the field's type cannot
    /// have, or groups that do not match.
    Wire => "wire",
    /// A length past the bytes left, or a packed length that is not a
    /// multiple of the element width.
    Length => "length",
    /// Nesting deeper than the limit.
    Depth => "depth",
    /// Text that is not UTF-8.
    Utf8 => "utf-8",
    /// A bool other than 0 or 1.
    Bool => "bool",
    /// The input is printable text.
    Text => "text",
    /// The input is not a well-formed message.
    Message => "message",
    /// The schema has no message of the type asked for.
    Type => "type",
    /// A tensor's data type is missing or unknown.
    DataType => "data_type",
    /// A dimension is negative or the element count overflows.
    Dims => "dims",
    /// A tensor's values are in no place, several places, or a place that
    /// does not hold its type.
    Place => "place",
    /// A tensor's values do not fill its shape exactly.
    Size => "size",
    /// Raw bytes for a STRING tensor.
    StringData => "string",
    /// A TFRecord's length does not match its CRC.
    RecordLengthCrc => "record-length-crc",
    /// A TFRecord's data does not match its CRC.
    RecordDataCrc => "record-data-crc",
    /// A TFRecord's length is past the bytes left.
    RecordLength => "record-length",
    /// The file ends inside a TFRecord.
    RecordCut => "record-cut",
    /// A GZIP or ZLIB stream that does not decompress.
    Decompress => "decompress",
    /// Text format: a token the grammar does not allow where it stands, or
    /// a string not closed on its line.
    Syntax => "syntax",
    /// Text format: a field that is not repeated given twice, or two
    /// members of one oneof.
    Duplicate => "duplicate",
    /// Text format: a value its field's type cannot hold (out of range, of
    /// another kind, not a name of the enum).
    Value => "value",
    /// Text format: an escape sequence the format does not have.
    Escape => "escape",
    /// A feature's values are of another kind than in an earlier record.
    FeatureKind => "feature-kind",
    /// A record is no Example where Examples are read as columns.
    RecordPayload => "record-payload",
    /// A table of features too large for the file it comes from.
    FeatureTable => "feature-table",
    /// A buffer the input asks for could not be allocated.
    Memory => "memory",
}

impl Check {
    /// Every check: [`Check::BASE`], then every [`Rule`].
    pub fn all() -> impl Iterator<Item = Check> {
        Check::BASE
            .iter()
            .copied()
            .chain(Rule::ALL.iter().copied().map(Check::Rule))
    }
}

/// Declares [`Rule`] with the check name of each rule, and the list of
/// them all, from one table.
macro_rules! rules {
    ($($(#[$doc:meta])* $rule:ident => $check:literal,)*) => {
        /// The rules a format adds to its schema table, each a check of its
        /// own so that a script can tell which one failed.
        #[non_exhaustive]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Rule {
            $($(#[$doc])* $rule,)*
        }

        impl Rule {
            /// Every rule, in declaration order.
            pub const ALL: &[Rule] = &[$(Rule::$rule,)*];

            /// The check's name as scripts see it (`"check"` in JSON errors).
            pub fn check(self) -> &'static str {
                match self {
                    $(Rule::$rule => $check,)*
                }
            }
        }
    };
}

rules! {
    // ONNX sequences, optionals and maps (onnx-data.proto).
    ElemTypeMissing => "elem_type-missing",
    ElemTypeRange => "elem_type-range",
    ElemTypeMismatch => "elem_type-mismatch",
    MapKeyType => "map-key_type",
    MapKeysField => "map-keys-field",
    MapCount => "map-count",
    MapKeyRange => "map-key-range",
    // ONNX sparse tensors.
    SparseValues => "sparse-values",
    SparseDims => "sparse-dims",
    SparseIndices => "sparse-indices",
    SparseIndexRange => "sparse-index-range",
    SparseIndexOrder => "sparse-index-order",
    // ONNX models and tensors.
    ModelIrVersion => "model-ir_version",
    ModelContent => "model-content",
    ExternalLocation => "external-location",
    // TensorFlow.
    TfStringContent => "tf-string-content",
    NodeName => "node-name",
    NodeOp => "node-op",
    FunctionName => "function-name",
    MetaGraphGraph => "meta_graph-graph",
    AnyTypeUrl => "any-type_url",
    SavedModelMetaGraphs => "saved_model-meta_graphs",
    GraphDefContent => "graph_def-content",
    // TensorFlow tensor bundles (the index's table).
    /// The footer: too short, no magic, or a block handle that does not read.
    TableFooter => "table-footer",
    /// A block (with its trailer) outside the file, or its restart array
    /// larger than the block.
    TableBlock => "table-block",
    /// A block whose masked CRC32C is not its trailer's.
    TableChecksum => "table-checksum",
    /// A compressed block (TensorFlow writes none).
    TableCompression => "table-compression",
    /// An entry whose lengths or shared prefix do not fit, or keys out of
    /// order.
    TableEntry => "table-entry",
    /// The first key is not `""` or its value is not a bundle header.
    BundleHeader => "bundle-header",
    /// Two entries' byte ranges of one shard overlap (TensorFlow writes
    /// each tensor's bytes once, after the one before).
    BundleOverlap => "bundle-overlap",
    // PaddlePaddle programs.
    /// No blocks, a block not at its own index, or a global block whose
    /// parent is not -1.
    ProgramBlocks => "program-blocks",
    /// A field Paddle's schema requires is missing (a variable's name or
    /// type, an op's type, an attribute's name or type).
    ProgramRequired => "program-required",
}

/// An unknown field of the text format, in words: the closest name the
/// message has, and why a name may be missing.
fn unknown_text_field(name: &str, message: &str, closest: Option<&str>) -> String {
    let closest = match closest {
        Some(c) => format!(" (the closest is {c:?})"),
        None => String::new(),
    };
    format!("{name:?} is not a field of {message}{closest}; the file may be for a newer schema")
}

/// Text that reads as protobuf's text format of no known message.
fn no_message_text(first: &str, asked: Option<&str>) -> String {
    let whose = match asked {
        Some(id) => format!("a message of {id}"),
        None => "any built-in format's message".to_string(),
    };
    format!(
        "the file is printable text, not binary protobuf; read as protobuf text format, its field {first:?} is not a field of {whose}: give its schema with --schema FILE.proto --type pkg.Msg"
    )
}

/// A hint after a sentence, when there is one.
fn hint_text(hint: &str) -> String {
    if hint.is_empty() {
        String::new()
    } else {
        format!(": {hint}")
    }
}

/// How an end-group key fails to close a group, in words.
fn open_group_text(open: Option<u32>) -> String {
    match open {
        None => "where no group is open".to_string(),
        Some(n) => {
            format!("inside the group of field {n} (each group ends with its own field number)")
        }
    }
}

impl ErrorKind {
    /// The check that failed.
    pub fn failed_check(&self) -> Check {
        use ErrorKind::*;
        match self {
            Empty => Check::Empty,
            Truncated { .. } => Check::Truncated,
            VarintTooLong | VarintOverflow => Check::Varint,
            FieldNumber(_) | UnknownField { .. } => Check::Field,
            WireType(_) | WrongWireType { .. } | GroupMismatch { .. } | GroupUnclosed(_) => {
                Check::Wire
            }
            LengthOverrun { .. } | PackedLength { .. } => Check::Length,
            DepthLimit(_) | NestingLimit(_) => Check::Depth,
            InvalidUtf8 { .. } | StringUtf8 { .. } => Check::Utf8,
            BadBool(_) => Check::Bool,
            Text | TextNoMessage { .. } => Check::Text,
            NotAMessage => Check::Message,
            NoSuchMessage(_) => Check::Type,
            Rule { rule, .. } => Check::Rule(*rule),
            DataTypeMissing | DataTypeRange(_) => Check::DataType,
            NegativeDim { .. } | ElementCountOverflow => Check::Dims,
            ValuesInSeveralPlaces(_) | ValuesMissing { .. } | WrongTypedField { .. } => {
                Check::Place
            }
            RawSize { .. } | TypedCount { .. } => Check::Size,
            RawForString => Check::StringData,
            RecordLengthCrc { .. } => Check::RecordLengthCrc,
            RecordDataCrc { .. } => Check::RecordDataCrc,
            RecordLength { .. } => Check::RecordLength,
            RecordCut { .. } => Check::RecordCut,
            Decompress { .. } => Check::Decompress,
            TextSyntax { .. } | TextUnterminated { .. } => Check::Syntax,
            TextUnknownField { .. } => Check::Field,
            TextDuplicate { .. } | TextOneof { .. } => Check::Duplicate,
            TextValue { .. } => Check::Value,
            TextEscape { .. } => Check::Escape,
            TextNotUtf8 { .. } | TextStringUtf8 { .. } => Check::Utf8,
            TextType { .. } => Check::Type,
            FeatureKind { .. } => Check::FeatureKind,
            RecordPayload { .. } => Check::RecordPayload,
            FeatureTable { .. } => Check::FeatureTable,
            Memory(_) => Check::Memory,
        }
    }

    /// The short name of the check that failed, for scripts and the CLI.
    pub fn check(&self) -> &'static str {
        self.failed_check().name()
    }
}

/// A decode failure: the check, the byte offset in the input, and the path of
/// fields from the root message down to the fault. One pointer wide, so
/// that every `Result` of the decoder stays small.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(Box<Failure>);

#[derive(Debug, Clone, PartialEq, Eq)]
struct Failure {
    kind: ErrorKind,
    offset: u64,
    /// For an input in protobuf's text format: the 1-based line and
    /// column of `offset` (columns as protoc counts them: bytes, a tab to
    /// the next multiple of 8).
    line_column: Option<(u64, u64)>,
    /// The field path innermost first (see [`DecodeError::path`]).
    path_rev: Vec<String>,
}

impl DecodeError {
    /// A failure of `kind` at byte `offset`, with no field path yet.
    pub fn new(kind: ErrorKind, offset: u64) -> Self {
        DecodeError(Box::new(Failure {
            kind,
            offset,
            line_column: None,
            path_rev: Vec::new(),
        }))
    }

    /// The same failure placed in a text file: `offset` is then the
    /// byte offset in the text, at `line`:`column` (1-based).
    pub fn in_text(mut self, offset: u64, line: u64, column: u64) -> Self {
        self.0.offset = offset;
        self.0.line_column = Some((line, column));
        self
    }

    /// The 1-based line and column of the fault in a text-format input
    /// (None for a binary one).
    pub fn line_column(&self) -> Option<(u64, u64)> {
        self.0.line_column
    }

    /// Why: the kind of failure and its data.
    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }

    /// The kind, giving up the rest.
    pub fn into_kind(self) -> ErrorKind {
        self.0.kind
    }

    /// The byte offset of the fault in the input.
    pub fn offset(&self) -> u64 {
        self.0.offset
    }

    /// The check that failed.
    pub fn failed_check(&self) -> Check {
        self.0.kind.failed_check()
    }

    /// The name of the check that failed (`"check"` in JSON errors).
    pub fn check(&self) -> &'static str {
        self.0.kind.check()
    }

    /// What broke the check, in words (`"message"` in JSON errors).
    pub fn message(&self) -> String {
        self.0.kind.to_string()
    }

    /// A broken rule of a format.
    pub fn rule(rule: Rule, detail: impl Into<String>, offset: u64) -> Self {
        DecodeError::new(
            ErrorKind::Rule {
                rule,
                detail: detail.into(),
            },
            offset,
        )
    }

    /// Adds an enclosing field to the path (called while the error bubbles
    /// up, innermost first, so each call is a push).
    pub fn within(mut self, segment: impl Into<String>) -> Self {
        self.0.path_rev.push(segment.into());
        self
    }

    /// The field path, outermost first, e.g.
    /// `["ModelProto.graph", "GraphProto.initializer[3]"]`.
    /// The field path, outermost first.
    pub fn path(&self) -> impl Iterator<Item = &str> {
        self.0.path_rev.iter().rev().map(String::as_str)
    }

    /// Whether the failure is inside a field (else at the top level).
    pub fn has_path(&self) -> bool {
        !self.0.path_rev.is_empty()
    }

    /// The field path joined with dots (`TensorProto.raw_data`).
    pub fn path_string(&self) -> String {
        self.path().collect::<Vec<_>>().join(".")
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} check failed", self.check())?;
        if self.has_path() {
            write!(f, " at {}", self.path_string())?;
        }
        match self.line_column() {
            Some((line, column)) => write!(f, " @{line}:{column}: {}", self.kind()),
            None => write!(f, " @0x{:x}: {}", self.offset(), self.kind()),
        }
    }
}

impl std::error::Error for DecodeError {}

/// A result whose error is a [`DecodeError`].
pub type Result<T> = std::result::Result<T, DecodeError>;

#[cfg(test)]
mod tests {
    use super::{Check, DecodeError, Rule};
    use std::collections::HashSet;

    #[test]
    fn a_decode_error_is_one_pointer_wide() {
        assert_eq!(size_of::<DecodeError>(), size_of::<usize>());
        assert!(size_of::<super::Result<(u64, usize)>>() <= 3 * size_of::<usize>());
    }

    #[test]
    fn every_check_has_a_name_of_its_own() {
        let names: HashSet<&str> = Check::all().map(Check::name).collect();
        assert_eq!(names.len(), Check::BASE.len() + Rule::ALL.len());
    }

    #[test]
    fn every_rule_has_a_check_name_of_its_own() {
        let names: HashSet<&str> = Rule::ALL.iter().map(|r| r.check()).collect();
        assert_eq!(names.len(), Rule::ALL.len());
        assert!(Rule::ALL.len() >= 23);
        // Distinct from the wire and tensor checks too.
        for wire in ["wire", "length", "size", "place", "dims", "format"] {
            assert!(!names.contains(wire), "{wire}");
        }
    }
}
