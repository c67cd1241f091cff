//! One error type for the whole decoder: where (byte offset, field path) and
//! why (a specific kind that carries its data), so a user can find the fault
//! in a hex viewer and a script can match on the check that failed.

use std::fmt;
use thiserror::Error;

/// Why a decode failed. Each kind names one check.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ErrorKind {
    // --- wire format ---
    #[error("input is empty")]
    Empty,
    #[error("truncated: {what} runs past the end of the input")]
    Truncated { what: &'static str },
    #[error("varint longer than 10 bytes")]
    VarintTooLong,
    #[error("varint overflows 64 bits")]
    VarintOverflow,
    #[error("field number {0} is out of range (1..2^29-1)")]
    FieldNumber(u64),
    #[error("wire type {0} does not exist")]
    WireType(u8),
    #[error("length {len} > {left} bytes left")]
    LengthOverrun { len: u64, left: u64 },
    #[error("end-group for field {got} {}", open_group_text(*.open))]
    GroupMismatch { got: u32, open: Option<u32> },
    #[error("group of field {0} is never closed")]
    GroupUnclosed(u32),
    #[error("nesting deeper than {0} levels")]
    DepthLimit(u32),
    #[error("nesting deeper than {0} levels, the hard limit of decoding with a schema")]
    NestingLimit(u32),
    #[error("packed field length {len} is not a multiple of {width}")]
    PackedLength { len: usize, width: usize },
    // --- schema ---
    #[error("field {number} is not a field of {message}")]
    UnknownField { number: u32, message: String },
    #[error("wire type {got} where {expected} is expected")]
    WrongWireType {
        expected: &'static str,
        got: &'static str,
    },
    #[error("string is not valid UTF-8 (byte {at})")]
    InvalidUtf8 { at: usize },
    #[error("bool value {0} is neither 0 nor 1")]
    BadBool(u64),
    // --- detection ---
    #[error("the first 512 bytes are printable text, not protobuf")]
    Text,
    #[error("not a well-formed message")]
    NotAMessage,
    #[error("the schema has no message {0}")]
    NoSuchMessage(String),
    /// A rule of one format (see [`Rule`]) with what broke it.
    #[error("{detail}")]
    Rule { rule: Rule, detail: String },
    // --- tensors ---
    #[error("data_type is missing")]
    DataTypeMissing,
    #[error("data_type {0} is not a known data type (1..28)")]
    DataTypeRange(i64),
    #[error("dimension {index} is negative ({value})")]
    NegativeDim { index: usize, value: i64 },
    #[error("element count overflows 64 bits")]
    ElementCountOverflow,
    #[error("values are in more than one place: {0}")]
    ValuesInSeveralPlaces(String),
    #[error("no values for {elements} elements")]
    ValuesMissing { elements: u64 },
    #[error("{field} does not hold values of type {data_type}")]
    WrongTypedField { field: String, data_type: String },
    #[error("raw_data is {got} bytes, the shape needs {expected}")]
    RawSize { expected: u64, got: u64 },
    #[error("{field} holds {got} values, the shape needs {expected}")]
    TypedCount {
        field: String,
        expected: u64,
        got: u64,
    },
    #[error("raw_data is not allowed for STRING tensors")]
    RawForString,
    #[error("string {index} is not valid UTF-8 (byte {at})")]
    StringUtf8 { index: u64, at: usize },
}

/// Declares [`Rule`] with the check name of each rule, and the list of
/// them all, from one table.
macro_rules! rules {
    ($($(#[$doc:meta])* $rule:ident => $check:literal,)*) => {
        /// The rules a format adds to its schema table, each a check of its
        /// own so that a script can tell which one failed.
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
    /// The short name of the check that failed, for scripts and the CLI.
    pub fn check(&self) -> &'static str {
        use ErrorKind::*;
        match self {
            Empty => "empty",
            Truncated { .. } => "truncated",
            VarintTooLong | VarintOverflow => "varint",
            FieldNumber(_) | UnknownField { .. } => "field",
            WireType(_) | WrongWireType { .. } | GroupMismatch { .. } | GroupUnclosed(_) => "wire",
            LengthOverrun { .. } | PackedLength { .. } => "length",
            DepthLimit(_) | NestingLimit(_) => "depth",
            InvalidUtf8 { .. } | StringUtf8 { .. } => "utf-8",
            BadBool(_) => "bool",
            Text => "text",
            NotAMessage => "message",
            NoSuchMessage(_) => "type",
            Rule { rule, .. } => rule.check(),
            DataTypeMissing | DataTypeRange(_) => "data_type",
            NegativeDim { .. } | ElementCountOverflow => "dims",
            ValuesInSeveralPlaces(_) | ValuesMissing { .. } | WrongTypedField { .. } => "place",
            RawSize { .. } | TypedCount { .. } => "size",
            RawForString => "string",
        }
    }
}

/// A decode failure: the check, the byte offset in the input, and the path of
/// fields from the root message down to the fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    pub kind: ErrorKind,
    pub offset: u64,
    /// The field path innermost first (see [`DecodeError::path`]).
    path_rev: Vec<String>,
}

impl DecodeError {
    pub fn new(kind: ErrorKind, offset: u64) -> Self {
        DecodeError {
            kind,
            offset,
            path_rev: Vec::new(),
        }
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
        self.path_rev.push(segment.into());
        self
    }

    /// The field path, outermost first, e.g.
    /// `["ModelProto.graph", "GraphProto.initializer[3]"]`.
    pub fn path(&self) -> impl Iterator<Item = &str> {
        self.path_rev.iter().rev().map(String::as_str)
    }

    pub fn has_path(&self) -> bool {
        !self.path_rev.is_empty()
    }

    pub fn path_string(&self) -> String {
        self.path().collect::<Vec<_>>().join(".")
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} check failed", self.kind.check())?;
        if !self.path_rev.is_empty() {
            write!(f, " at {}", self.path_string())?;
        }
        write!(f, " @0x{:x}: {}", self.offset, self.kind)
    }
}

impl std::error::Error for DecodeError {}

pub type Result<T> = std::result::Result<T, DecodeError>;

#[cfg(test)]
mod tests {
    use super::Rule;
    use std::collections::HashSet;

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
