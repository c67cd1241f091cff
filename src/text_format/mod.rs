//! Protobuf's text format (`.pbtxt`, `.prototxt`, `.textproto`,
//! `pipeline.config`), read as the second syntax of the same schema tables:
//! a text message is parsed against its message's table and written as
//! the wire format in one pass ([`encode`]), so that everything that reads
//! binary files (detection, the formats' validation, the views, tensors,
//! graphs, statistics, comparison) reads text files unchanged.
//!
//! The grammar is the Text Format Language Specification's, as protoc and
//! Python's `text_format` accept it: `#` comments, `:` optional before a
//! message, `{}` and `<>`, `;` or `,` after a field, repeated fields given
//! again or as `[a, b]` lists, maps as repeated entries, groups by their
//! type's name, `Any` values expanded as `[type.googleapis.com/pkg.T]
//! {...}`, enums by name or number, integers in decimal, octal and
//! hexadecimal, floats with an `f` suffix or without, `inf`, `infinity`
//! and `nan` in any case with a sign, strings in either quotes joined when
//! adjacent, with every escape. Errors carry the byte offset in the text
//! and its line and column ([`place`]); an error the binary form raises
//! later (a format's validation) is placed in the text by reading it again
//! with a map from output bytes to text ([`SpanMap`]).

mod encoder;
mod lexer;
mod literal;

use crate::error::{DecodeError, Result};
use crate::schema::{MsgId, SchemaSet};
use encoder::Encoder;
use lexer::{Lexer, Tok};

/// Reads `text` as message `root` of `set` and returns its binary form:
/// the fields in text order, each as protobuf's serializers write it
/// (repeated scalars packed where the table says so). Messages may nest
/// `max_depth` deep (the binary decoder's budget). An error is placed in
/// the text (offset, line and column).
pub fn encode(set: &SchemaSet, root: MsgId, text: &[u8], max_depth: u32) -> Result<Vec<u8>> {
    Encoder::new(set, root, text, max_depth, false)
        .finish()
        .map(|o| o.bytes)
        .map_err(|e| place(text, e))
}

/// Places an error found while reading `text`, whose offset is a byte
/// offset in it: its line and column, as protoc counts them (1-based;
/// columns in bytes, a tab to the next multiple of 8).
pub fn place(text: &[u8], e: DecodeError) -> DecodeError {
    let offset = e.offset();
    let (line, column) = line_column(text, offset);
    e.in_text(offset, line, column)
}

/// The 1-based line and column of byte `offset` of `text`.
pub fn line_column(text: &[u8], offset: u64) -> (u64, u64) {
    let at = usize::try_from(offset)
        .unwrap_or(usize::MAX)
        .min(text.len());
    let before = text.get(..at).unwrap_or(&[]);
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |n| n + 1);
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count() as u64;
    let mut column = 0u64;
    for &b in before.get(line_start..).unwrap_or(&[]) {
        column = if b == b'\t' {
            column + 8 - column % 8
        } else {
            column + 1
        };
    }
    (line, column + 1)
}

/// The map from the bytes of the binary form [`encode`] makes of a text
/// back to the text: where each field and message is written.
#[derive(Debug, Clone)]
pub struct SpanMap {
    /// (binary offset, text offset), ascending in both.
    spans: Vec<(u64, u64)>,
}

impl SpanMap {
    /// The text read again, each field's bytes mapped to where it is
    /// written (None when the text does not read as `root`).
    pub fn new(set: &SchemaSet, root: MsgId, text: &[u8], max_depth: u32) -> Option<SpanMap> {
        let out = Encoder::new(set, root, text, max_depth, true)
            .finish()
            .ok()?;
        Some(SpanMap { spans: out.spans })
    }

    /// Places an error of the binary form (a format's validation, whose
    /// offset is in those bytes) at the text of the field it is in.
    pub fn place(&self, text: &[u8], e: DecodeError) -> DecodeError {
        let at = self.spans.partition_point(|&(bin, _)| bin <= e.offset());
        let text_at = at
            .checked_sub(1)
            .and_then(|i| self.spans.get(i))
            .map_or(0, |&(_, t)| t);
        let (line, column) = line_column(text, text_at);
        e.in_text(text_at, line, column)
    }
}

/// What the comments before the first field say of the schema (the
/// specification's header): `# proto-message: pkg.Msg` and
/// `# proto-file: path/to/file.proto`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Header {
    pub message: Option<String>,
    pub file: Option<String>,
}

/// The header of a text file: its `proto-message` and `proto-file`
/// comments before the first field.
pub fn header(text: &[u8]) -> Header {
    let mut h = Header::default();
    let text = text.strip_prefix(b"\xef\xbb\xbf").unwrap_or(text);
    for line in text.split(|&b| b == b'\n') {
        let line = line.trim_ascii();
        if line.is_empty() {
            continue;
        }
        let Some(comment) = line.strip_prefix(b"#") else {
            break;
        };
        let comment = comment.trim_ascii();
        let value = |key: &[u8]| {
            comment
                .strip_prefix(key)
                .and_then(|r| r.trim_ascii_start().strip_prefix(b":"))
                .and_then(|v| std::str::from_utf8(v.trim_ascii()).ok())
                .filter(|v| !v.is_empty())
                .map(str::to_string)
        };
        if let Some(m) = value(b"proto-message") {
            h.message = Some(m);
        }
        if let Some(f) = value(b"proto-file") {
            h.file = Some(f);
        }
    }
    h
}

/// The first field's name, when the text starts with one (after comments):
/// what decides the message type when no header names it. A bracketed
/// name (`[pkg.ext]`, an `Any`'s URL) gives `[`.
pub fn first_field(text: &[u8]) -> Option<&[u8]> {
    let mut lx = Lexer::new(text);
    match lx.next().ok()?.tok {
        Tok::Ident(name) => Some(name),
        Tok::Punct(b'[') => Some(b"["),
        _ => None,
    }
}

/// Whether the input reads as protobuf's text format rather than binary:
/// its first 512 bytes printable text (line ends and tabs aside; a byte
/// that is not UTF-8 is let pass, to be reported where it is), and its
/// first token (after comments) a field name, or nothing but comments.
/// Binary protobuf starts with a key, which is a control byte or makes one
/// within a few bytes.
pub fn looks_like_text(bytes: &[u8]) -> bool {
    let head = bytes.get(..512).unwrap_or(bytes);
    if head.is_empty() {
        return false;
    }
    let printable = head
        .iter()
        .all(|&b| b >= 0x20 && b != 0x7f || matches!(b, b'\n' | b'\r' | b'\t' | 0x0b | 0x0c));
    if !printable {
        return false;
    }
    let mut lx = Lexer::new(head);
    match lx.next() {
        Ok(t) => match t.tok {
            // Comments and blank lines only, as far as the head goes.
            Tok::End => true,
            Tok::Ident(_) => {
                // A name, then `:`, `{`, `<`, or (cut at 512 bytes) nothing.
                matches!(
                    lx.next().map(|t| t.tok),
                    Ok(Tok::Punct(b':' | b'{' | b'<') | Tok::End) | Err(_)
                )
            }
            Tok::Punct(b'[') => true,
            _ => false,
        },
        // A byte that is not UTF-8 or a string cut at 512 bytes: still text.
        Err(e) => e.offset() > 0,
    }
}

#[cfg(test)]
mod tests;
