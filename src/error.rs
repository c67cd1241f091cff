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
    #[error("end-group for field {got} does not match the open group {open:?}")]
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
    #[error("{0}")]
    NotThisFormat(String),
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
    #[error("{0}")]
    Invalid(String),
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
            NotThisFormat(_) | Invalid(_) => "format",
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
    /// Outermost first, e.g. `["ModelProto.graph", "GraphProto.initializer[3]"]`.
    pub path: Vec<String>,
}

impl DecodeError {
    pub fn new(kind: ErrorKind, offset: u64) -> Self {
        DecodeError {
            kind,
            offset,
            path: Vec::new(),
        }
    }

    /// Adds an enclosing field to the path (called while the error bubbles up).
    pub fn within(mut self, segment: impl Into<String>) -> Self {
        self.path.insert(0, segment.into());
        self
    }

    pub fn path_string(&self) -> String {
        self.path.join(".")
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} check failed", self.kind.check())?;
        if !self.path.is_empty() {
            write!(f, " at {}", self.path_string())?;
        }
        write!(f, " @0x{:x}: {}", self.offset, self.kind)
    }
}

impl std::error::Error for DecodeError {}

pub type Result<T> = std::result::Result<T, DecodeError>;
