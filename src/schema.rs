//! Schema tables: messages, fields and enums, read from .proto files (the
//! built-in tables in `schemas/`, and users' files) into one resolved,
//! indexable set. The .proto reader is a tokenizer and a parser that accept
//! what protoc accepts (proto2, proto3, editions) and resolve labels,
//! packedness and group encoding as protoc does. The decoder walks these tables; nothing here
//! touches input bytes.

use crate::wire::WireType;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// Index of a message in its [`SchemaSet`].
pub type MsgId = usize;
/// Index of an enum in its [`SchemaSet`].
pub type EnumId = usize;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Label {
    Optional,
    Repeated,
    Required,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    Double,
    Float,
    Int32,
    Int64,
    UInt32,
    UInt64,
    SInt32,
    SInt64,
    Fixed32,
    Fixed64,
    SFixed32,
    SFixed64,
    Bool,
    String,
    Bytes,
}

impl Scalar {
    fn from_keyword(s: &str) -> Option<Scalar> {
        Some(match s {
            "double" => Scalar::Double,
            "float" => Scalar::Float,
            "int32" => Scalar::Int32,
            "int64" => Scalar::Int64,
            "uint32" => Scalar::UInt32,
            "uint64" => Scalar::UInt64,
            "sint32" => Scalar::SInt32,
            "sint64" => Scalar::SInt64,
            "fixed32" => Scalar::Fixed32,
            "fixed64" => Scalar::Fixed64,
            "sfixed32" => Scalar::SFixed32,
            "sfixed64" => Scalar::SFixed64,
            "bool" => Scalar::Bool,
            "string" => Scalar::String,
            "bytes" => Scalar::Bytes,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Scalar::Double => "double",
            Scalar::Float => "float",
            Scalar::Int32 => "int32",
            Scalar::Int64 => "int64",
            Scalar::UInt32 => "uint32",
            Scalar::UInt64 => "uint64",
            Scalar::SInt32 => "sint32",
            Scalar::SInt64 => "sint64",
            Scalar::Fixed32 => "fixed32",
            Scalar::Fixed64 => "fixed64",
            Scalar::SFixed32 => "sfixed32",
            Scalar::SFixed64 => "sfixed64",
            Scalar::Bool => "bool",
            Scalar::String => "string",
            Scalar::Bytes => "bytes",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    Scalar(Scalar),
    Enum(EnumId),
    Message(MsgId),
}

impl FieldType {
    /// The wire type a single value of this type is written with.
    pub fn wire_type(self) -> WireType {
        match self {
            FieldType::Scalar(s) => match s {
                Scalar::Double | Scalar::Fixed64 | Scalar::SFixed64 => WireType::Fixed64,
                Scalar::Float | Scalar::Fixed32 | Scalar::SFixed32 => WireType::Fixed32,
                Scalar::String | Scalar::Bytes => WireType::Len,
                _ => WireType::Varint,
            },
            FieldType::Enum(_) => WireType::Varint,
            FieldType::Message(_) => WireType::Len,
        }
    }

    /// Whether a repeated field of this type may be packed into one LEN field.
    pub fn packable(self) -> bool {
        self.wire_type() != WireType::Len
    }
}

#[derive(Debug, Clone)]
pub struct FieldDef {
    pub number: u32,
    pub name: String,
    pub label: Label,
    pub ty: FieldType,
    /// Written packed by default (proto3 or `[packed = true]`); both forms are
    /// accepted when reading either way.
    pub packed: bool,
    /// Shared by the fields of one oneof: its name is stored once.
    pub oneof: Option<Arc<str>>,
    /// A proto2 group (or an editions message field with DELIMITED
    /// encoding): the message is written between start- and end-group keys
    /// instead of as a LEN field.
    pub group: bool,
    /// A proto3 `optional` field (explicit presence).
    pub proto3_optional: bool,
    /// An enum field of this project's tables that is an `int32` upstream
    /// (ONNX's data types): named in the views and JSON, written as a
    /// number in the text format, as upstream's readers read it.
    pub upstream_int32: bool,
}

impl FieldDef {
    pub fn repeated(&self) -> bool {
        self.label == Label::Repeated
    }
}

/// A field of a message of the built-in tables, as the code names it: one
/// constant per field in [`crate::fields`], generated from `schemas/` (a
/// field renamed there no longer compiles where it is read). `slot` is the
/// field's index in its [`MessageDef::fields`], so reading it is an index,
/// not a search of the field list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldId {
    /// The full name of the message declaring the field.
    pub message: &'static str,
    pub name: &'static str,
    pub number: u32,
    pub slot: usize,
}

impl fmt::Display for FieldId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.message, self.name)
    }
}

/// The full dotted name of a message or enum: its own name and a shared
/// link to its enclosing scope's full name (the package, or the message it
/// is nested in). Every name in a scope holds that scope once, so n names
/// under a long package cost n own names, not n copies of the package;
/// the dotted string is made only when printed, and compared without one.
/// The chain is as deep as messages nest (at most
/// [`MAX_MESSAGE_NESTING`] and a package), so dropping it is shallow.
#[derive(Clone)]
pub struct FullName(Arc<NamePart>);

struct NamePart {
    scope: Option<FullName>,
    own: Box<str>,
}

impl FullName {
    /// `own` under `scope` (None: at the root).
    pub fn new(scope: Option<&FullName>, own: &str) -> FullName {
        FullName(Arc::new(NamePart {
            scope: scope.cloned(),
            own: own.into(),
        }))
    }

    /// The bytes of the dotted name, last first.
    fn bytes_reversed(&self) -> impl Iterator<Item = u8> + '_ {
        let mut at = Some(self);
        let mut part: std::iter::Rev<std::str::Bytes<'_>> = "".bytes().rev();
        let mut first = true;
        std::iter::from_fn(move || {
            loop {
                if let Some(b) = part.next() {
                    return Some(b);
                }
                let name = at?;
                at = name.0.scope.as_ref();
                part = name.0.own.bytes().rev();
                if !std::mem::take(&mut first) {
                    return Some(b'.');
                }
            }
        })
    }
}

impl fmt::Display for FullName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        let mut at = Some(self);
        while let Some(name) = at {
            parts.push(&*name.0.own);
            at = name.0.scope.as_ref();
        }
        for (i, part) in parts.iter().rev().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            f.write_str(part)?;
        }
        Ok(())
    }
}

impl fmt::Debug for FullName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.to_string())
    }
}

impl PartialEq<str> for FullName {
    fn eq(&self, other: &str) -> bool {
        self.bytes_reversed().eq(other.bytes().rev())
    }
}

impl PartialEq<&str> for FullName {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}

impl PartialEq for FullName {
    fn eq(&self, other: &FullName) -> bool {
        self.bytes_reversed().eq(other.bytes_reversed())
    }
}

impl Eq for FullName {}

#[derive(Debug, Clone)]
pub struct MessageDef {
    pub full_name: FullName,
    pub name: String,
    pub fields: Vec<FieldDef>,
    /// A synthesized `map<K, V>` entry (key = 1, value = 2).
    pub map_entry: bool,
    pub proto3: bool,
    /// (field number, index in `fields`), sorted by number.
    by_number: Vec<(u32, usize)>,
}

impl MessageDef {
    pub fn field_by_number(&self, number: u32) -> Option<(usize, &FieldDef)> {
        let i = self
            .by_number
            .binary_search_by_key(&number, |&(n, _)| n)
            .ok()?;
        let (_, idx) = *self.by_number.get(i)?;
        Some((idx, self.fields.get(idx)?))
    }

    /// A field by name, searching the field list: for names that come
    /// from data or from a user's table. The code's own reads go through
    /// [`SchemaSet::field`] with a constant.
    pub fn field_by_name(&self, name: &str) -> Option<(usize, &FieldDef)> {
        self.fields.iter().enumerate().find(|(_, f)| f.name == name)
    }
}

#[derive(Debug, Clone)]
pub struct EnumDef {
    pub full_name: FullName,
    pub values: Vec<(String, i32)>,
    /// A closed enum (declared in a proto2 file): a number it does not
    /// name is not one of its values (the text format refuses it; the
    /// binary decoder still shows it as a number).
    pub closed: bool,
    /// (number, index in `values`), sorted by number, aliases in
    /// declaration order: a value's name is found by a binary search, not
    /// a scan of every value for each value shown.
    by_number: Vec<(i32, usize)>,
    /// Indices in `values`, sorted by name: a name read from a text file
    /// is found by a binary search.
    by_name: Vec<usize>,
}

impl EnumDef {
    pub fn new(full_name: FullName, values: Vec<(String, i32)>) -> EnumDef {
        let mut by_number: Vec<(i32, usize)> = values
            .iter()
            .enumerate()
            .map(|(k, (_, v))| (*v, k))
            .collect();
        by_number.sort_unstable();
        let mut by_name: Vec<usize> = (0..values.len()).collect();
        by_name.sort_by(|&a, &b| {
            let name = |k: usize| values.get(k).map_or("", |(n, _)| n.as_str());
            name(a).cmp(name(b))
        });
        EnumDef {
            full_name,
            values,
            closed: false,
            by_number,
            by_name,
        }
    }

    /// The number of the value named `name`.
    pub fn number_of(&self, name: &str) -> Option<i32> {
        let name_at = |k: usize| self.values.get(k).map_or("", |(n, _)| n.as_str());
        let at = self.by_name.partition_point(|&k| name_at(k) < name);
        let &k = self.by_name.get(at)?;
        let (n, v) = self.values.get(k)?;
        (n == name).then_some(*v)
    }

    /// The name of a value (the first declared, for aliases), or None for a
    /// number the enum does not name (open enums: the caller prints the
    /// number).
    pub fn name_of(&self, number: i64) -> Option<&str> {
        let number = i32::try_from(number).ok()?;
        let at = self.by_number.partition_point(|&(v, _)| v < number);
        let &(v, k) = self.by_number.get(at)?;
        if v != number {
            return None;
        }
        self.values.get(k).map(|(n, _)| n.as_str())
    }
}

/// A resolved set of messages and enums.
#[derive(Debug, Clone, Default)]
pub struct SchemaSet {
    pub messages: Vec<MessageDef>,
    pub enums: Vec<EnumDef>,
    /// Every message and enum by full name, one component per level: a
    /// name is found without a full-name string per message.
    names: NameTree,
    /// The project's own tables, laid out as the constants of
    /// [`crate::fields`] say: there a constant that misses its slot was
    /// read from a message of another type, a bug caught in debug builds.
    builtin: bool,
}

impl SchemaSet {
    /// Marks the set as the project's own tables (see `builtin`).
    pub fn into_builtin(mut self) -> SchemaSet {
        self.builtin = true;
        self
    }

    /// Whether these are the project's own tables.
    pub fn is_builtin(&self) -> bool {
        self.builtin
    }

    /// The field `id` names in message `msg`: the one at its slot, when
    /// its number and name are there (always, in the project's own tables),
    /// without searching the field list. Otherwise the field of that name:
    /// a user's schema may declare a message named like one of ours with
    /// other fields or in another order, and there it is absent or found
    /// where it is.
    pub fn field(&self, msg: MsgId, id: FieldId) -> Option<(usize, &FieldDef)> {
        let def = self.message(msg);
        let at_slot = def
            .fields
            .get(id.slot)
            .filter(|f| f.number == id.number && f.name == id.name);
        if let Some(f) = at_slot {
            return Some((id.slot, f));
        }
        debug_assert!(!self.builtin, "{id} read from a {}", def.full_name);
        def.field_by_name(id.name)
    }

    // Ids are issued by this set when it is built, never read from input.
    #[allow(clippy::indexing_slicing)]
    pub fn message(&self, id: MsgId) -> &MessageDef {
        &self.messages[id]
    }

    #[allow(clippy::indexing_slicing)]
    pub fn enum_def(&self, id: EnumId) -> &EnumDef {
        &self.enums[id]
    }

    pub fn find_message(&self, full_name: &str) -> Option<MsgId> {
        self.names.find(full_name)?.message
    }

    pub fn find_enum(&self, full_name: &str) -> Option<EnumId> {
        self.names.find(full_name)?.enumeration
    }

    /// Parses and resolves a set of schema files (name, text). All files
    /// share one namespace; `import` lines only document dependencies.
    pub fn from_files(
        files: impl IntoIterator<Item = (String, String)>,
    ) -> Result<SchemaSet, SchemaError> {
        let mut parsed = Vec::new();
        for (name, text) in files {
            let file = parse_file(&text).map_err(|e| SchemaError {
                file: name.clone(),
                message: e,
            })?;
            parsed.push((name, file));
        }
        resolve(&parsed)
    }

    /// Resolves files already parsed (or built from a FileDescriptorSet).
    pub fn from_asts(files: &[(String, FileAst)]) -> Result<SchemaSet, SchemaError> {
        resolve(files)
    }

    /// The full names of the messages, for error messages and listings.
    pub fn message_names(&self) -> impl Iterator<Item = &FullName> {
        self.messages.iter().map(|m| &m.full_name)
    }
}

#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {message}")]
pub struct SchemaError {
    pub file: String,
    pub message: String,
}

// ---------------------------------------------------------------------------
// Syntax: .proto files as protoc reads them
// ---------------------------------------------------------------------------

/// How deep message and group declarations may nest. protoc refuses the
/// 32nd level ("Reached maximum recursion limit for nested messages"); the
/// parser does the same, so its recursion stays far below the stack.
pub const MAX_MESSAGE_NESTING: usize = 31;

/// Editions features set on a file, message, oneof or field (None: inherited).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Features {
    /// `repeated_field_encoding`: Some(true) for PACKED, Some(false) for EXPANDED.
    pub packed: Option<bool>,
    /// `field_presence`: Some(true) for LEGACY_REQUIRED, Some(false) for any other.
    pub legacy_required: Option<bool>,
    /// `message_encoding`: Some(true) for DELIMITED (a group on the wire).
    pub delimited: Option<bool>,
}

impl Features {
    /// These settings, falling back to `parent`'s where unset.
    pub fn over(self, parent: Features) -> Features {
        Features {
            packed: self.packed.or(parent.packed),
            legacy_required: self.legacy_required.or(parent.legacy_required),
            delimited: self.delimited.or(parent.delimited),
        }
    }

    /// Applies `features.NAME = VALUE` (or a `NAME: VALUE` pair of an
    /// aggregate `features = {...}`); other features do not change how a
    /// message is read.
    fn set(&mut self, name: &str, value: &str) {
        match name {
            "repeated_field_encoding" => self.packed = Some(value == "PACKED"),
            "field_presence" => self.legacy_required = Some(value == "LEGACY_REQUIRED"),
            "message_encoding" => self.delimited = Some(value == "DELIMITED"),
            _ => {}
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct FileAst {
    /// Repeated scalars are packed by default (proto3; editions files have
    /// every field's packedness resolved already).
    pub syntax_proto3: bool,
    /// `edition = "2023";` and later.
    pub editions: bool,
    pub package: String,
    /// `import` and `import public`/`weak`: files whose types this one uses.
    pub imports: Vec<String>,
    /// `import option`: files needed only for custom options (not read).
    pub option_imports: Vec<String>,
    pub messages: Vec<MessageAst>,
    pub enums: Vec<EnumAst>,
    pub features: Features,
    /// `extend` blocks at the file's top level.
    pub extends: Vec<ExtendAst>,
}

#[derive(Debug, Clone, Default)]
pub struct MessageAst {
    pub name: String,
    pub fields: Vec<FieldAst>,
    pub messages: Vec<MessageAst>,
    pub enums: Vec<EnumAst>,
    pub features: Features,
    /// `extend` blocks inside the message (their fields are named in its
    /// scope).
    pub extends: Vec<ExtendAst>,
}

/// `extend Type { fields }`: fields added to another message, each named
/// by its full name (`[pkg.ext]` in the text format).
#[derive(Debug, Clone, Default)]
pub struct ExtendAst {
    /// The extended message, as written.
    pub extendee: String,
    pub fields: Vec<FieldAst>,
}

#[derive(Debug, Clone, Default)]
pub struct FieldAst {
    pub label: Option<Label>,
    pub type_name: String,
    pub name: String,
    pub number: u32,
    /// Explicit packedness (`[packed = ...]`, or resolved editions features);
    /// None: the syntax's default.
    pub packed: Option<bool>,
    /// Shared by the fields of one oneof: its name is stored once.
    pub oneof: Option<Arc<str>>,
    pub map: Option<(String, String)>,
    pub group: bool,
    /// proto3 `optional` (explicit presence, a synthetic oneof in protoc).
    pub proto3_optional: bool,
    /// Editions `message_encoding = DELIMITED`: a message field written as
    /// a group.
    pub delimited: bool,
    pub features: Features,
    /// `[(pbdecode.upstream_int32) = true]`: declared as an enum here, an
    /// `int32` upstream (see [`FieldDef::upstream_int32`]).
    pub upstream_int32: bool,
    /// Where the field's type is written (line, column from 1; 0 when the
    /// field comes from a descriptor set), for errors found later.
    pub line: u32,
    pub column: u32,
}

#[derive(Debug, Clone, Default)]
pub struct EnumAst {
    pub name: String,
    pub values: Vec<(String, i32)>,
}

/// Where and why a .proto file could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub line: u32,
    pub column: u32,
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tk {
    Ident,
    Int,
    Float,
    Str,
    Sym,
    Eof,
}

#[derive(Debug, Clone, Copy)]
struct Token<'a> {
    kind: Tk,
    text: &'a [u8],
    line: u32,
    column: u32,
}

impl Token<'_> {
    fn is(&self, s: &str) -> bool {
        matches!(self.kind, Tk::Ident | Tk::Sym) && self.text == s.as_bytes()
    }

    fn str(&self) -> &str {
        std::str::from_utf8(self.text).unwrap_or("")
    }
}

/// The tokenizer: protoc's tokens (identifiers, numbers, strings, symbols),
/// skipping whitespace and `//` and `/* */` comments, counting lines and
/// columns (in characters, from 1).
#[derive(Clone)]
struct Lexer<'a> {
    src: &'a [u8],
    pos: usize,
    line: u32,
    column: u32,
}

impl<'a> Lexer<'a> {
    fn byte(&self, ahead: usize) -> Option<u8> {
        self.src.get(self.pos.saturating_add(ahead)).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let b = self.byte(0)?;
        self.pos = self.pos.saturating_add(1);
        if b == b'\n' {
            self.line = self.line.saturating_add(1);
            self.column = 1;
        } else if b & 0xC0 != 0x80 {
            self.column = self.column.saturating_add(1);
        }
        Some(b)
    }

    fn skip_trivia(&mut self) -> Result<(), ParseError> {
        loop {
            match (self.byte(0), self.byte(1)) {
                (Some(b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c), _) => {
                    self.bump();
                }
                (Some(b'/'), Some(b'/')) => {
                    while self.byte(0).is_some_and(|b| b != b'\n') {
                        self.bump();
                    }
                }
                (Some(b'/'), Some(b'*')) => {
                    let (line, column) = (self.line, self.column);
                    self.bump();
                    self.bump();
                    loop {
                        match self.bump() {
                            None => {
                                return Err(ParseError {
                                    line,
                                    column,
                                    message: "this /* comment is never closed".into(),
                                });
                            }
                            Some(b'*') if self.byte(0) == Some(b'/') => {
                                self.bump();
                                break;
                            }
                            Some(_) => {}
                        }
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn next(&mut self) -> Result<Token<'a>, ParseError> {
        self.skip_trivia()?;
        let (line, column, start) = (self.line, self.column, self.pos);
        let Some(b) = self.byte(0) else {
            return Ok(Token {
                kind: Tk::Eof,
                text: b"",
                line,
                column,
            });
        };
        let kind = if b.is_ascii_alphabetic() || b == b'_' {
            while self
                .byte(0)
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
            {
                self.bump();
            }
            Tk::Ident
        } else if b.is_ascii_digit()
            || (b == b'.' && self.byte(1).is_some_and(|c| c.is_ascii_digit()))
        {
            self.number()
        } else if b == b'"' || b == b'\'' {
            self.bump();
            loop {
                match self.bump() {
                    None | Some(b'\n') => {
                        return Err(ParseError {
                            line,
                            column,
                            message: "this string is not closed on its line".into(),
                        });
                    }
                    Some(b'\\') => {
                        if self.byte(0).is_some_and(|c| c != b'\n') {
                            self.bump();
                        }
                    }
                    Some(c) if c == b => break,
                    Some(_) => {}
                }
            }
            Tk::Str
        } else if b.is_ascii_graphic() {
            self.bump();
            Tk::Sym
        } else {
            return Err(ParseError {
                line,
                column,
                message: format!(
                    "byte 0x{b:02x} is not allowed outside strings and comments (is this a .proto file?)"
                ),
            });
        };
        Ok(Token {
            kind,
            text: self.src.get(start..self.pos).unwrap_or_default(),
            line,
            column,
        })
    }

    fn number(&mut self) -> Tk {
        let mut kind = Tk::Int;
        if self.byte(0) == Some(b'0') && matches!(self.byte(1), Some(b'x' | b'X')) {
            self.bump();
            self.bump();
        } else {
            while let Some(c) = self.byte(0) {
                if c.is_ascii_digit() {
                    self.bump();
                } else if c == b'.' {
                    kind = Tk::Float;
                    self.bump();
                } else if matches!(c, b'e' | b'E') {
                    kind = Tk::Float;
                    self.bump();
                    if matches!(self.byte(0), Some(b'+' | b'-')) {
                        self.bump();
                    }
                } else {
                    break;
                }
            }
        }
        // Hex digits, a float's `f` suffix, or letters run into the number:
        // one token, checked where a number is read.
        while self
            .byte(0)
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
        {
            self.bump();
        }
        kind
    }
}

/// A value of an option: a word, number or string as written, or the
/// top-level `key: value` pairs of a `{ ... }` aggregate.
enum OptValue {
    Scalar(String),
    Aggregate(Vec<(String, String)>),
}

struct Parser<'a> {
    lx: Lexer<'a>,
    /// Quote tokens in errors (false for a file not named *.proto, so that
    /// an error never shows the content of some other file).
    quote: bool,
}

type PResult<T> = Result<T, ParseError>;

impl<'a> Parser<'a> {
    fn peek(&self) -> PResult<Token<'a>> {
        self.lx.clone().next()
    }

    /// The token after the next one.
    fn peek2(&self) -> PResult<Token<'a>> {
        let mut lx = self.lx.clone();
        lx.next()?;
        lx.next()
    }

    fn peek3(&self) -> PResult<Token<'a>> {
        let mut lx = self.lx.clone();
        lx.next()?;
        lx.next()?;
        lx.next()
    }

    fn next(&mut self) -> PResult<Token<'a>> {
        self.lx.next()
    }

    fn at(&self, s: &str) -> PResult<bool> {
        Ok(self.peek()?.is(s))
    }

    fn eat(&mut self, s: &str) -> PResult<bool> {
        if self.at(s)? {
            self.next()?;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    fn describe(&self, t: &Token<'_>) -> String {
        if t.kind == Tk::Eof {
            return "the end of the file".into();
        }
        if self.quote {
            let text = String::from_utf8_lossy(t.text);
            let mut shown: String = text.chars().take(40).flat_map(char::escape_debug).collect();
            if text.chars().count() > 40 {
                shown.push('…');
            }
            return format!("`{shown}`");
        }
        match t.kind {
            Tk::Ident => "a word",
            Tk::Int | Tk::Float => "a number",
            Tk::Str => "a string",
            _ => "a symbol",
        }
        .into()
    }

    fn error<T>(&self, t: &Token<'_>, message: String) -> PResult<T> {
        Err(ParseError {
            line: t.line,
            column: t.column,
            message,
        })
    }

    /// The input ended at `t` inside the block `open` began.
    fn unclosed<T>(&self, t: &Token<'_>, open: &Token<'_>) -> PResult<T> {
        self.error(
            t,
            format!(
                "the `{{` at line {}, column {} is never closed",
                open.line, open.column
            ),
        )
    }

    fn expected<T>(&self, what: &str, t: &Token<'_>) -> PResult<T> {
        self.error(t, format!("expected {what}, found {}", self.describe(t)))
    }

    /// The first token of the next statement in the `{ ... }` of the `kind`
    /// named `name`, opened at `open`: `None` at its closing `}` (consumed);
    /// empty statements are skipped; the end of the file is an error naming
    /// the block.
    fn block_statement(
        &mut self,
        kind: &str,
        name: &str,
        open: &Token<'_>,
    ) -> PResult<Option<Token<'a>>> {
        loop {
            let t = self.peek()?;
            if t.kind == Tk::Eof {
                return self.error(
                    &t,
                    format!("{kind} {name} (line {}) is not closed with `}}`", open.line),
                );
            }
            if t.is("}") {
                self.next()?;
                return Ok(None);
            }
            if !t.is(";") {
                return Ok(Some(t));
            }
            self.next()?;
        }
    }

    fn expect(&mut self, s: &str) -> PResult<Token<'a>> {
        let t = self.next()?;
        if t.is(s) {
            Ok(t)
        } else {
            self.expected(&format!("`{s}`"), &t)
        }
    }

    fn ident(&mut self, what: &str) -> PResult<&'a str> {
        let t = self.next()?;
        if t.kind == Tk::Ident {
            Ok(std::str::from_utf8(t.text).unwrap_or(""))
        } else {
            self.expected(what, &t)
        }
    }

    /// `a.b.c`, tokens apart (protoc allows spaces, line breaks and comments
    /// around the dots).
    fn full_ident(&mut self, what: &str) -> PResult<String> {
        let mut name = self.ident(what)?.to_string();
        while self.eat(".")? {
            name.push('.');
            name.push_str(self.ident(what)?);
        }
        Ok(name)
    }

    /// A type name, relative or (with a leading dot) absolute.
    fn type_name(&mut self) -> PResult<String> {
        if self.eat(".")? {
            Ok(format!(".{}", self.full_ident("a type name")?))
        } else {
            self.full_ident("a type name")
        }
    }

    /// One or more adjacent string literals, unescaped and joined.
    fn string(&mut self, what: &str) -> PResult<String> {
        let t = self.next()?;
        if t.kind != Tk::Str {
            return self.expected(what, &t);
        }
        let mut bytes = unescape(t.text);
        while self.peek()?.kind == Tk::Str {
            bytes.extend(unescape(self.next()?.text));
        }
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// An integer (decimal, 0x hex or 0 octal), with an optional `-`.
    fn int(&mut self, what: &str) -> PResult<(i64, Token<'a>)> {
        let first = self.peek()?;
        let neg = self.eat("-")?;
        let t = self.next()?;
        let text = t.str();
        let parsed = if t.kind != Tk::Int {
            None
        } else if let Some(h) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
            u64::from_str_radix(h, 16).ok()
        } else if text.len() > 1 && text.starts_with('0') {
            text.get(1..).and_then(|o| u64::from_str_radix(o, 8).ok())
        } else {
            text.parse::<u64>().ok()
        };
        let value = parsed.and_then(|v| {
            let v = i128::from(v);
            i64::try_from(if neg { -v } else { v }).ok()
        });
        match value {
            Some(v) => Ok((v, first)),
            None if t.kind == Tk::Int => self.error(
                &t,
                format!("{} is not an integer in range", self.describe(&t)),
            ),
            None => self.expected(what, &t),
        }
    }

    /// Skips to the `;` that ends a statement (reserved, extensions), over
    /// `{ ... }` option values.
    fn skip_statement(&mut self) -> PResult<()> {
        let mut depth = 0usize;
        loop {
            let t = self.next()?;
            match t.kind {
                Tk::Eof => return self.expected("`;`", &t),
                _ if t.is("{") => depth = depth.saturating_add(1),
                _ if t.is("}") => depth = depth.saturating_sub(1),
                _ if t.is(";") && depth == 0 => return Ok(()),
                _ => {}
            }
        }
    }

    /// Skips a `{ ... }` block (services, aggregate values) after its `{`.
    fn skip_block(&mut self, open: &Token<'_>) -> PResult<()> {
        let mut depth = 1usize;
        while depth > 0 {
            let t = self.next()?;
            match t.kind {
                Tk::Eof => return self.unclosed(&t, open),
                _ if t.is("{") => depth = depth.saturating_add(1),
                _ if t.is("}") => depth -= 1,
                _ => {}
            }
        }
        Ok(())
    }

    /// `name = value` of an option statement or a field option: the name as
    /// written (`packed`, `features.field_presence`, `(my.opt).x`).
    fn option_assignment(&mut self) -> PResult<(String, OptValue)> {
        let mut name = String::new();
        loop {
            if self.eat("(")? {
                name.push('(');
                name.push_str(&self.type_name()?);
                self.expect(")")?;
                name.push(')');
            } else {
                name.push_str(self.ident("an option name")?);
            }
            if !self.eat(".")? {
                break;
            }
            name.push('.');
        }
        self.expect("=")?;
        let t = self.peek()?;
        let value = if t.is("{") {
            self.next()?;
            OptValue::Aggregate(self.aggregate(&t)?)
        } else if t.kind == Tk::Str {
            OptValue::Scalar(self.string("a value")?)
        } else if t.is("-") || t.is("+") {
            self.next()?;
            let v = self.next()?;
            if !matches!(v.kind, Tk::Int | Tk::Float | Tk::Ident) {
                return self.expected("a number", &v);
            }
            OptValue::Scalar(format!("{}{}", t.str(), v.str()))
        } else if matches!(t.kind, Tk::Int | Tk::Float | Tk::Ident) {
            self.next()?;
            OptValue::Scalar(t.str().to_string())
        } else {
            return self.expected("an option value", &t);
        };
        Ok((name, value))
    }

    /// The text-format body of an aggregate option value, after its `{`:
    /// skipped, keeping its top-level `key: word` pairs.
    fn aggregate(&mut self, open: &Token<'_>) -> PResult<Vec<(String, String)>> {
        let mut pairs = Vec::new();
        let mut depth = 1usize;
        while depth > 0 {
            let t = self.next()?;
            match t.kind {
                Tk::Eof => return self.unclosed(&t, open),
                _ if t.is("{") => depth = depth.saturating_add(1),
                _ if t.is("}") => depth -= 1,
                Tk::Ident if depth == 1 && self.at(":")? => {
                    self.next()?;
                    let v = self.peek()?;
                    if v.kind == Tk::Ident {
                        self.next()?;
                        pairs.push((t.str().to_string(), v.str().to_string()));
                    }
                }
                _ => {}
            }
        }
        Ok(pairs)
    }

    /// `option NAME = VALUE;` after the keyword: returns features it sets.
    fn option_statement(&mut self, features: &mut Features) -> PResult<()> {
        let (name, value) = self.option_assignment()?;
        apply_feature(features, &name, &value);
        self.expect(";")?;
        Ok(())
    }

    /// `[a = 1, (b).c = {...}]`, if present: the `packed` value and features.
    /// A field's `[...]` options: its packedness (None: not said), and in
    /// `upstream_int32` whether the option `(pbdecode.upstream_int32)` says
    /// the field is an `int32` upstream (this project's tables declare a
    /// few as enums, for their names: the text format writes them as
    /// numbers, as upstream's readers expect).
    fn field_options(
        &mut self,
        features: &mut Features,
        upstream_int32: &mut bool,
    ) -> PResult<Option<bool>> {
        let mut packed = None;
        if !self.eat("[")? {
            return Ok(None);
        }
        loop {
            let (name, value) = self.option_assignment()?;
            if let ("packed", OptValue::Scalar(v)) = (name.as_str(), &value) {
                packed = Some(v == "true");
            }
            if let ("(pbdecode.upstream_int32)", OptValue::Scalar(v)) = (name.as_str(), &value) {
                *upstream_int32 = v == "true";
            }
            apply_feature(features, &name, &value);
            let t = self.next()?;
            if t.is("]") {
                return Ok(packed);
            }
            if !t.is(",") {
                return self.expected("`,` or `]`", &t);
            }
        }
    }

    fn field_number(&mut self) -> PResult<u32> {
        let (n, t) = self.int("a field number")?;
        match u32::try_from(n) {
            Ok(n) if n >= 1 && u64::from(n) <= crate::wire::MAX_FIELD_NUMBER => Ok(n),
            _ => self.error(
                &t,
                format!(
                    "field number {n} is outside 1..{}",
                    crate::wire::MAX_FIELD_NUMBER
                ),
            ),
        }
    }

    /// A field (with its label, if any), a `map<K, V>` field or a group. A
    /// group also declares a nested message, returned beside the field.
    fn field(&mut self, depth: usize) -> PResult<(FieldAst, Option<MessageAst>)> {
        let t = self.peek()?;
        let label = if t.is("optional") {
            Some(Label::Optional)
        } else if t.is("required") {
            Some(Label::Required)
        } else if t.is("repeated") {
            Some(Label::Repeated)
        } else {
            None
        };
        if label.is_some() {
            self.next()?;
        }
        let t = self.peek()?;
        let mut f = FieldAst {
            label,
            line: t.line,
            column: t.column,
            ..FieldAst::default()
        };
        let is_group = t.is("group") && self.peek2()?.kind == Tk::Ident && self.peek3()?.is("=");
        if t.is("map") && self.peek2()?.is("<") {
            self.next()?;
            self.next()?;
            let k = self.type_name()?;
            self.expect(",")?;
            let v = self.type_name()?;
            self.expect(">")?;
            f.label = Some(Label::Repeated);
            f.map = Some((k, v));
        } else if is_group {
            self.next()?;
            let name = self.ident("a group name")?;
            self.expect("=")?;
            f.number = self.field_number()?;
            f.packed = self.field_options(&mut f.features, &mut f.upstream_int32)?;
            f.type_name = name.to_string();
            f.name = name.to_ascii_lowercase();
            f.group = true;
            let body = self.message_block(name.to_string(), depth, &t)?;
            return Ok((f, Some(body)));
        } else if t.kind == Tk::Ident || t.is(".") {
            f.type_name = self.type_name()?;
        } else {
            return self.expected("a field, message, enum, option or `}`", &t);
        }
        f.name = self.ident("a field name")?.to_string();
        self.expect("=")?;
        f.number = self.field_number()?;
        f.packed = self.field_options(&mut f.features, &mut f.upstream_int32)?;
        self.expect(";")?;
        Ok((f, None))
    }

    fn enum_decl(&mut self) -> PResult<EnumAst> {
        let mut e = EnumAst {
            name: self.ident("an enum name")?.to_string(),
            values: Vec::new(),
        };
        let open = self.expect("{")?;
        loop {
            let Some(t) = self.block_statement("enum", &e.name, &open)? else {
                return Ok(e);
            };
            if t.is("option") {
                self.next()?;
                self.option_statement(&mut Features::default())?;
                continue;
            }
            if t.is("reserved") {
                self.next()?;
                self.skip_statement()?;
                continue;
            }
            let name = self.ident("an enum value, option or `}`")?;
            self.expect("=")?;
            let (n, at) = self.int("the value's number")?;
            let Ok(n) = i32::try_from(n) else {
                return self.error(&at, format!("enum value {n} is outside the int32 range"));
            };
            self.field_options(&mut Features::default(), &mut false)?;
            self.expect(";")?;
            e.values.push((name.to_string(), n));
        }
    }

    /// `extend Type { fields }` after the keyword: the fields, added to the
    /// extended message when the tables are resolved; a group among them
    /// also declares a message.
    fn extend(
        &mut self,
        depth: usize,
        out: &mut Vec<MessageAst>,
        extends: &mut Vec<ExtendAst>,
    ) -> PResult<()> {
        let extendee = self.type_name()?;
        self.expect("{")?;
        let mut block = ExtendAst {
            extendee,
            fields: Vec::new(),
        };
        loop {
            if self.eat("}")? {
                extends.push(block);
                return Ok(());
            }
            if self.eat(";")? {
                continue;
            }
            let (field, group) = self.field(depth)?;
            block.fields.push(field);
            out.extend(group);
        }
    }

    /// The `{ ... }` of a message or group; `depth` counts the messages it
    /// is nested in.
    fn message_block(
        &mut self,
        name: String,
        depth: usize,
        start: &Token<'_>,
    ) -> PResult<MessageAst> {
        if depth >= MAX_MESSAGE_NESTING {
            return self.error(
                start,
                format!("messages nested more than {MAX_MESSAGE_NESTING} deep (protoc's limit)"),
            );
        }
        let inner = depth.saturating_add(1);
        let mut m = MessageAst {
            name,
            ..Default::default()
        };
        let open = self.expect("{")?;
        loop {
            let Some(t) = self.block_statement("message", &m.name, &open)? else {
                return Ok(m);
            };
            if (t.is("export") || t.is("local"))
                && (self.peek2()?.is("message") || self.peek2()?.is("enum"))
            {
                self.next()?;
                continue;
            }
            if t.is("message") {
                self.next()?;
                let name = self.ident("a message name")?.to_string();
                let sub = self.message_block(name, inner, &t)?;
                m.messages.push(sub);
            } else if t.is("enum") {
                self.next()?;
                m.enums.push(self.enum_decl()?);
            } else if t.is("extensions") || t.is("reserved") {
                self.next()?;
                self.skip_statement()?;
            } else if t.is("extend") {
                self.next()?;
                self.extend(inner, &mut m.messages, &mut m.extends)?;
            } else if t.is("option") {
                self.next()?;
                self.option_statement(&mut m.features)?;
            } else if t.is("oneof") {
                self.next()?;
                self.oneof(inner, &mut m)?;
            } else {
                let (f, group) = self.field(inner)?;
                m.fields.push(f);
                m.messages.extend(group);
            }
        }
    }

    fn oneof(&mut self, depth: usize, m: &mut MessageAst) -> PResult<()> {
        let name: Arc<str> = self.ident("a oneof name")?.into();
        self.expect("{")?;
        let mut features = Features::default();
        let mut fields = Vec::new();
        loop {
            if self.eat("}")? {
                break;
            }
            if self.eat(";")? {
                continue;
            }
            if self.eat("option")? {
                self.option_statement(&mut features)?;
                continue;
            }
            let (mut f, group) = self.field(depth)?;
            f.oneof = Some(name.clone());
            fields.push(f);
            m.messages.extend(group);
        }
        for mut f in fields {
            f.features = f.features.over(features);
            m.fields.push(f);
        }
        Ok(())
    }

    fn file(&mut self) -> PResult<FileAst> {
        let mut file = FileAst::default();
        loop {
            let t = self.peek()?;
            if t.kind == Tk::Eof {
                return Ok(file);
            }
            if t.is(";") {
                self.next()?;
                continue;
            }
            if (t.is("export") || t.is("local"))
                && (self.peek2()?.is("message") || self.peek2()?.is("enum"))
            {
                self.next()?;
                continue;
            }
            self.next()?;
            if t.is("syntax") {
                self.expect("=")?;
                let at = self.peek()?;
                let s = self.string("a syntax name")?;
                match s.as_str() {
                    "proto2" => {}
                    "proto3" => file.syntax_proto3 = true,
                    _ => return self.error(&at, "syntax is \"proto2\" or \"proto3\"".into()),
                }
                self.expect(";")?;
            } else if t.is("edition") {
                self.expect("=")?;
                let at = self.peek()?;
                let s = self.string("an edition")?;
                if !matches!(s.as_str(), "2023" | "2024") {
                    return self.error(
                        &at,
                        "editions \"2023\" and \"2024\" are supported".to_string(),
                    );
                }
                file.editions = true;
                self.expect(";")?;
            } else if t.is("package") {
                file.package = self.full_ident("a package name")?;
                self.expect(";")?;
            } else if t.is("import") {
                let option = if self.eat("public")? || self.eat("weak")? {
                    false
                } else {
                    self.at("option")? && self.peek2()?.kind == Tk::Str && self.eat("option")?
                };
                let path = self.string("the imported file's name")?;
                if option {
                    file.option_imports.push(path);
                } else {
                    file.imports.push(path);
                }
                self.expect(";")?;
            } else if t.is("option") {
                self.option_statement(&mut file.features)?;
            } else if t.is("message") {
                let name = self.ident("a message name")?.to_string();
                let m = self.message_block(name, 0, &t)?;
                file.messages.push(m);
            } else if t.is("enum") {
                file.enums.push(self.enum_decl()?);
            } else if t.is("extend") {
                self.extend(0, &mut file.messages, &mut file.extends)?;
            } else if t.is("service") {
                self.ident("a service name")?;
                let open = self.expect("{")?;
                self.skip_block(&open)?;
            } else {
                return self.expected(
                    "syntax, edition, package, import, option, message, enum, service or extend",
                    &t,
                );
            }
        }
    }
}

fn apply_feature(features: &mut Features, name: &str, value: &OptValue) {
    match (name.strip_prefix("features."), value) {
        (Some(feature), OptValue::Scalar(v)) => features.set(feature, v),
        (None, OptValue::Aggregate(pairs)) if name == "features" => {
            for (k, v) in pairs {
                features.set(k, v);
            }
        }
        _ => {}
    }
}

/// The bytes of a string literal (quotes included in `lit`), escapes undone.
fn unescape(lit: &[u8]) -> Vec<u8> {
    let inner = lit.get(1..lit.len().saturating_sub(1)).unwrap_or_default();
    let mut out = Vec::with_capacity(inner.len());
    let mut i = 0usize;
    while let Some(&b) = inner.get(i) {
        i += 1;
        if b != b'\\' {
            out.push(b);
            continue;
        }
        let Some(&e) = inner.get(i) else { break };
        i += 1;
        match e {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'a' => out.push(0x07),
            b'b' => out.push(0x08),
            b'f' => out.push(0x0c),
            b'v' => out.push(0x0b),
            b'x' | b'X' => {
                let mut v = 0u32;
                let mut n = 0;
                while n < 2 {
                    match inner.get(i).and_then(|c| (*c as char).to_digit(16)) {
                        Some(d) => {
                            v = v * 16 + d;
                            i += 1;
                            n += 1;
                        }
                        None => break,
                    }
                }
                out.push(u8::try_from(v).unwrap_or(u8::MAX));
            }
            b'0'..=b'7' => {
                let mut v = u32::from(e - b'0');
                let mut n = 1;
                while n < 3 {
                    match inner.get(i).filter(|c| (b'0'..=b'7').contains(*c)) {
                        Some(c) => {
                            v = v * 8 + u32::from(c - b'0');
                            i += 1;
                            n += 1;
                        }
                        None => break,
                    }
                }
                out.push(u8::try_from(v & 0xff).unwrap_or(u8::MAX));
            }
            other => out.push(other),
        }
    }
    out
}

/// Parses one .proto file, quoting the offending token in errors.
pub fn parse_file(text: &str) -> Result<FileAst, String> {
    parse_proto(text.as_bytes(), true).map_err(|e| e.to_string())
}

/// Parses one .proto file as protoc does: proto2, proto3 and editions
/// (2023, 2024), with every field's label, packedness and encoding
/// resolved. `quote_tokens`: show the offending token in an error (leave it
/// out for files that are not named *.proto).
pub fn parse_proto(text: &[u8], quote_tokens: bool) -> Result<FileAst, ParseError> {
    // A UTF-8 byte order mark, which protoc skips too.
    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    let mut p = Parser {
        lx: Lexer {
            src: text,
            pos: 0,
            line: 1,
            column: 1,
        },
        quote: quote_tokens,
    };
    let mut file = p.file()?;
    finish_fields(&mut file);
    Ok(file)
}

/// Marks proto3 `optional` fields, and resolves editions features.
fn finish_fields(file: &mut FileAst) {
    if file.syntax_proto3 {
        let mut stack: Vec<&mut MessageAst> = file.messages.iter_mut().collect();
        while let Some(m) = stack.pop() {
            for f in &mut m.fields {
                if f.label == Some(Label::Optional) && f.oneof.is_none() {
                    f.proto3_optional = true;
                }
            }
            stack.extend(m.messages.iter_mut());
        }
    }
    resolve_features(file);
}

/// In an editions file, gives every field what its inherited features
/// (file, message, oneof, field) say: packedness, LEGACY_REQUIRED as
/// `required`, DELIMITED as group encoding. Nothing for proto2 and proto3.
/// Iterative.
pub fn resolve_features(file: &mut FileAst) {
    if !file.editions {
        return;
    }
    let defaults = Features {
        packed: Some(true),
        legacy_required: Some(false),
        delimited: Some(false),
    };
    let file_features = file.features.over(defaults);
    let resolve = |f: &mut FieldAst, features: Features| {
        let eff = f.features.over(features);
        f.packed = Some(eff.packed == Some(true));
        if eff.legacy_required == Some(true) && f.label != Some(Label::Repeated) {
            f.label = Some(Label::Required);
        }
        f.delimited = eff.delimited == Some(true) && f.map.is_none();
    };
    for f in file.extends.iter_mut().flat_map(|e| e.fields.iter_mut()) {
        resolve(f, file_features);
    }
    let mut stack: Vec<(&mut MessageAst, Features)> = file
        .messages
        .iter_mut()
        .map(|m| (m, file_features))
        .collect();
    while let Some((m, parent)) = stack.pop() {
        let features = m.features.over(parent);
        for f in m
            .fields
            .iter_mut()
            .chain(m.extends.iter_mut().flat_map(|e| e.fields.iter_mut()))
        {
            resolve(f, features);
        }
        for sub in &mut m.messages {
            stack.push((sub, features));
        }
    }
}

// ---------------------------------------------------------------------------
// Resolution: names to indices
// ---------------------------------------------------------------------------

struct Pending<'a> {
    file: &'a str,
    scope: FullName,
    /// The message's node in the [`NameTree`].
    node: usize,
    ast: &'a MessageAst,
    proto3: bool,
}

/// One package or message scope (or enum) of a [`NameTree`].
#[derive(Debug, Clone, Default)]
struct NameNode {
    children: HashMap<Box<str>, usize>,
    message: Option<MsgId>,
    enumeration: Option<EnumId>,
}

/// Every scope of the files as a tree, one component of a full name per
/// level, each stored once: relative type names are resolved in one walk
/// down it without building the enclosing scopes' names (see
/// [`Scopes::resolve_relative`]), and an absolute one component by
/// component.
#[derive(Debug, Clone, Default)]
struct NameTree {
    nodes: Vec<NameNode>,
}

const ROOT: usize = 0;

impl NameTree {
    fn new() -> NameTree {
        NameTree {
            nodes: vec![NameNode::default()],
        }
    }

    fn node(&self, id: usize) -> Option<&NameNode> {
        self.nodes.get(id)
    }

    fn child(&self, id: usize, component: &str) -> Option<usize> {
        self.node(id)?.children.get(component).copied()
    }

    /// The node of a full name (a leading dot allowed), if declared.
    fn find(&self, full_name: &str) -> Option<&NameNode> {
        let mut at = ROOT;
        for component in full_name.trim_start_matches('.').split('.') {
            at = self.child(at, component)?;
        }
        self.node(at)
    }

    /// The node of `name` (dotted: one level per component) under `parent`,
    /// made if missing.
    fn insert(&mut self, parent: usize, name: &str) -> usize {
        let mut at = parent;
        for component in name.split('.') {
            at = match self.child(at, component) {
                Some(child) => child,
                None => {
                    let child = self.nodes.len();
                    self.nodes.push(NameNode::default());
                    if let Some(n) = self.nodes.get_mut(at) {
                        n.children.insert(component.into(), child);
                    }
                    child
                }
            };
        }
        at
    }

    /// The node of a package (the root for none).
    fn package(&mut self, package: &str) -> usize {
        if package.is_empty() {
            ROOT
        } else {
            self.insert(ROOT, package)
        }
    }
}

/// The [`NameTree`] being built and the types its relative names resolve
/// to. Every node is made, and every message and enum placed, before
/// [`Scopes::resolve_relative`] runs.
#[derive(Debug)]
struct Scopes<'a> {
    tree: NameTree,
    /// Each relative type name by the scope it is named in: at most one
    /// entry per field that names it.
    resolved: HashMap<(usize, &'a str), Option<FieldType>>,
    /// Nodes, children and name components visited by the resolution:
    /// the work done, for the tests that check it grows linearly with the
    /// schema.
    steps: u64,
}

/// The step in the walk down a [`NameTree`]: a node entered (its
/// children's names join the scopes on the path) or left.
enum Visit {
    Enter(usize),
    Leave(usize),
}

impl<'a> Scopes<'a> {
    fn new() -> Scopes<'a> {
        Scopes {
            tree: NameTree::new(),
            resolved: HashMap::new(),
            steps: 0,
        }
    }

    /// Resolves every relative type name of `queries` (the scope it is
    /// named in, the name) as protoc does, in one walk down the tree.
    ///
    /// For each simple name, a stack holds the scopes on the current path
    /// that declare a child of that name (and another those whose child is
    /// a message or enum), so the innermost is the top: a name costs its
    /// components, whatever the depth, and the walk costs each node and
    /// child once. The first component of a compound name is the innermost
    /// declaration of it, and the rest is looked up inside that one only (a
    /// miss is an unknown type, not a reason to look further out); a simple
    /// name is the innermost message or enum of that name.
    fn resolve_relative(&mut self, queries: &[(usize, &'a str)]) {
        let mut asked: HashMap<usize, Vec<&'a str>> = HashMap::new();
        for &(scope, name) in queries {
            asked.entry(scope).or_default().push(name);
        }
        let tree = &self.tree;
        let is_type = |id: usize| {
            tree.node(id)
                .is_some_and(|n| n.message.is_some() || n.enumeration.is_some())
        };
        let mut declaring: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut declaring_type: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut steps = self.steps;
        let mut walk = vec![Visit::Enter(ROOT)];
        while let Some(visit) = walk.pop() {
            match visit {
                Visit::Enter(id) => {
                    let Some(n) = tree.node(id) else { continue };
                    walk.push(Visit::Leave(id));
                    for (name, &child) in &n.children {
                        steps = steps.saturating_add(1);
                        declaring.entry(name).or_default().push(id);
                        if is_type(child) {
                            declaring_type.entry(name).or_default().push(id);
                        }
                        walk.push(Visit::Enter(child));
                    }
                    for &name in asked.get(&id).into_iter().flatten() {
                        steps = steps.saturating_add(1);
                        let (first, rest) = match name.split_once('.') {
                            Some((first, rest)) => (first, Some(rest)),
                            None => (name, None),
                        };
                        let innermost = match rest {
                            None => &declaring_type,
                            Some(_) => &declaring,
                        };
                        let mut at = innermost
                            .get(first)
                            .and_then(|scopes| scopes.last())
                            .and_then(|&scope| tree.child(scope, first));
                        for component in rest.into_iter().flat_map(|r| r.split('.')) {
                            steps = steps.saturating_add(1);
                            at = at.and_then(|node| tree.child(node, component));
                        }
                        let ty = at.and_then(|node| tree.node(node)).and_then(|n| {
                            n.message
                                .map(FieldType::Message)
                                .or_else(|| n.enumeration.map(FieldType::Enum))
                        });
                        self.resolved.insert((id, name), ty);
                    }
                }
                Visit::Leave(id) => {
                    let Some(n) = tree.node(id) else { continue };
                    for (name, &child) in &n.children {
                        if let Some(scopes) = declaring.get_mut(name.as_ref()) {
                            scopes.pop();
                        }
                        if is_type(child)
                            && let Some(scopes) = declaring_type.get_mut(name.as_ref())
                        {
                            scopes.pop();
                        }
                    }
                }
            }
        }
        self.steps = steps;
    }
}

/// A field's type: a scalar keyword, an absolute `.full.Name`, or a
/// relative name resolved by [`Scopes::resolve_relative`].
fn lookup_type<'a>(scopes: &Scopes<'a>, scope: usize, name: &'a str) -> Option<FieldType> {
    if let Some(s) = Scalar::from_keyword(name) {
        return Some(FieldType::Scalar(s));
    }
    if name.starts_with('.') {
        let n = scopes.tree.find(name)?;
        return n
            .message
            .map(FieldType::Message)
            .or_else(|| n.enumeration.map(FieldType::Enum));
    }
    scopes.resolved.get(&(scope, name)).copied().flatten()
}

#[allow(clippy::too_many_arguments)]
fn collect<'a>(
    file: &'a str,
    scope: Option<&FullName>,
    scope_node: usize,
    m: &'a MessageAst,
    proto3: bool,
    tree: &mut NameTree,
    out: &mut Vec<Pending<'a>>,
    enums: &mut Vec<(FullName, usize, &'a EnumAst, bool)>,
    closed_enums: bool,
) {
    let full = FullName::new(scope, &m.name);
    let node = tree.insert(scope_node, &m.name);
    out.push(Pending {
        file,
        scope: full.clone(),
        node,
        ast: m,
        proto3,
    });
    for e in &m.enums {
        enums.push((
            FullName::new(Some(&full), &e.name),
            tree.insert(node, &e.name),
            e,
            closed_enums,
        ));
    }
    for sub in &m.messages {
        collect(
            file,
            Some(&full),
            node,
            sub,
            proto3,
            tree,
            out,
            enums,
            closed_enums,
        );
    }
}

fn resolve(files: &[(String, FileAst)]) -> Result<SchemaSet, SchemaError> {
    resolve_counting(files).0
}

/// [`resolve`], and the number of scopes its type lookups visited.
fn resolve_counting(files: &[(String, FileAst)]) -> (Result<SchemaSet, SchemaError>, u64) {
    let mut scopes = Scopes::new();
    let set = resolve_in(files, &mut scopes);
    (set, scopes.steps)
}

fn resolve_in<'a>(
    files: &'a [(String, FileAst)],
    scopes: &mut Scopes<'a>,
) -> Result<SchemaSet, SchemaError> {
    let mut pending = Vec::new();
    let mut enum_asts = Vec::new();
    // The `extend` blocks: their scope's node and name, and whether their
    // file is proto3 (for packedness).
    let mut extends: Vec<(usize, Option<FullName>, &ExtendAst, bool)> = Vec::new();
    for (name, f) in files {
        let package_node = scopes.tree.package(&f.package);
        let package = (!f.package.is_empty()).then(|| FullName::new(None, &f.package));
        for e in &f.extends {
            extends.push((package_node, package.clone(), e, f.syntax_proto3));
        }
        // proto2's enums are closed; proto3's and editions' (by default) open.
        let closed_enums = !f.syntax_proto3 && !f.editions;
        for m in &f.messages {
            collect(
                name,
                package.as_ref(),
                package_node,
                m,
                f.syntax_proto3,
                &mut scopes.tree,
                &mut pending,
                &mut enum_asts,
                closed_enums,
            );
        }
        for e in &f.enums {
            enum_asts.push((
                FullName::new(package.as_ref(), &e.name),
                scopes.tree.insert(package_node, &e.name),
                e,
                closed_enums,
            ));
        }
    }
    // Names from a descriptor set may hold any character: control
    // characters are escaped before they reach a terminal.
    let err = |m: String| SchemaError {
        file: String::from("schema"),
        message: escape_controls(&m),
    };
    // An error about a field: its file, line and column when known.
    let field_err = |p: &Pending<'_>, f: &FieldAst, m: String| SchemaError {
        file: escape_controls(p.file),
        message: escape_controls(&if f.line > 0 {
            format!(
                "line {}, column {}: {}.{}: {m}",
                f.line, f.column, p.scope, f.name
            )
        } else {
            format!("{}.{}: {m}", p.scope, f.name)
        }),
    };

    let mut set = SchemaSet::default();
    for (full, node, e, closed) in &enum_asts {
        let Some(n) = scopes.tree.nodes.get_mut(*node) else {
            continue;
        };
        if n.enumeration.is_some() {
            return Err(err(format!("enum {full} is defined twice")));
        }
        n.enumeration = Some(set.enums.len());
        let mut def = EnumDef::new(full.clone(), e.values.clone());
        def.closed = *closed;
        set.enums.push(def);
    }
    // Messages first get their ids, including synthesized map entries, so
    // that fields can refer to any of them.
    for p in &pending {
        let Some(n) = scopes.tree.nodes.get_mut(p.node) else {
            continue;
        };
        if n.message.is_some() {
            return Err(err(format!("message {} is defined twice", p.scope)));
        }
        n.message = Some(set.messages.len());
        set.messages.push(MessageDef {
            full_name: p.scope.clone(),
            name: p.ast.name.clone(),
            fields: Vec::new(),
            map_entry: false,
            proto3: p.proto3,
            by_number: Vec::new(),
        });
    }

    // The map entries' nodes and ids, in the order their messages are
    // added below, so every node exists before the first lookup.
    let mut entry_id = set.messages.len();
    for p in &pending {
        for f in p.ast.fields.iter().filter(|f| f.map.is_some()) {
            let node = scopes
                .tree
                .insert(p.node, &format!("{}Entry", camel(&f.name)));
            if let Some(n) = scopes.tree.nodes.get_mut(node) {
                n.message = Some(entry_id);
            }
            entry_id = entry_id.saturating_add(1);
        }
    }
    for p in &pending {
        for e in &p.ast.extends {
            extends.push((p.node, Some(p.scope.clone()), e, p.proto3));
        }
    }
    // Every relative type name, resolved in one walk down the tree.
    let mut relative = Vec::new();
    for (node, _, e, _) in &extends {
        for name in std::iter::once(e.extendee.as_str())
            .chain(e.fields.iter().map(|f| f.type_name.as_str()))
        {
            if Scalar::from_keyword(name).is_none() && !name.starts_with('.') {
                relative.push((*node, name));
            }
        }
    }
    for p in &pending {
        for f in &p.ast.fields {
            let names = match &f.map {
                Some((k, v)) => [Some(k.as_str()), Some(v.as_str())],
                None => [Some(f.type_name.as_str()), None],
            };
            for name in names.into_iter().flatten() {
                if Scalar::from_keyword(name).is_none() && !name.starts_with('.') {
                    relative.push((p.node, name));
                }
            }
        }
    }
    scopes.resolve_relative(&relative);
    for (id, p) in pending.iter().enumerate() {
        let mut fields = Vec::new();
        for f in &p.ast.fields {
            let (ty, label) = if let Some((k, v)) = &f.map {
                let key_ty = lookup_type(scopes, p.node, k)
                    .ok_or_else(|| field_err(p, f, format!("unknown type {k}")))?;
                let val_ty = lookup_type(scopes, p.node, v)
                    .ok_or_else(|| field_err(p, f, format!("unknown type {v}")))?;
                let entry_name = format!("{}Entry", camel(&f.name));
                let entry_full = FullName::new(Some(&p.scope), &entry_name);
                // Its node was given this id above.
                let entry_id = set.messages.len();
                let mut entry = MessageDef {
                    full_name: entry_full,
                    name: entry_name,
                    fields: vec![
                        FieldDef {
                            number: 1,
                            name: "key".into(),
                            label: Label::Optional,
                            ty: key_ty,
                            packed: false,
                            oneof: None,
                            group: false,
                            proto3_optional: false,
                            upstream_int32: false,
                        },
                        FieldDef {
                            number: 2,
                            name: "value".into(),
                            label: Label::Optional,
                            ty: val_ty,
                            packed: false,
                            oneof: None,
                            group: false,
                            proto3_optional: false,
                            upstream_int32: false,
                        },
                    ],
                    map_entry: true,
                    proto3: p.proto3,
                    by_number: vec![(1, 0), (2, 1)],
                };
                entry.by_number.sort();
                set.messages.push(entry);
                (FieldType::Message(entry_id), Label::Repeated)
            } else {
                let ty = lookup_type(scopes, p.node, &f.type_name)
                    .ok_or_else(|| field_err(p, f, format!("unknown type {}", f.type_name)))?;
                (ty, f.label.unwrap_or(Label::Optional))
            };
            let packed = label == Label::Repeated && ty.packable() && f.packed.unwrap_or(p.proto3);
            let delimited = f.delimited && f.map.is_none() && matches!(ty, FieldType::Message(_));
            fields.push(FieldDef {
                number: f.number,
                name: f.name.clone(),
                label,
                ty,
                packed,
                oneof: f.oneof.clone(),
                group: f.group || delimited,
                proto3_optional: f.proto3_optional,
                upstream_int32: f.upstream_int32,
            });
        }
        let mut by_number: Vec<(u32, usize)> = fields
            .iter()
            .enumerate()
            .map(|(i, f)| (f.number, i))
            .collect();
        by_number.sort();
        let twice = by_number.windows(2).find_map(|w| match *w {
            [a, b] if a.0 == b.0 => Some((a, b)),
            _ => None,
        });
        if let Some((a, b)) = twice {
            let (first, second) = (a.1.min(b.1), a.1.max(b.1));
            let other = p.ast.fields.get(first).map_or("", |f| f.name.as_str());
            return Err(match p.ast.fields.get(second) {
                Some(f) => field_err(
                    p,
                    f,
                    format!("field number {} is used twice (also by {other})", f.number),
                ),
                None => err(format!("{}: field number {} is used twice", p.scope, a.0)),
            });
        }
        if let Some(m) = set.messages.get_mut(id) {
            m.fields = fields;
            m.by_number = by_number;
        }
    }
    // Extensions: fields of the extended message, named by their full name
    // in brackets (as the text format writes them), after its own fields
    // (so that its own keep their slots).
    for (node, scope, e, proto3) in &extends {
        let Some(FieldType::Message(target)) = lookup_type(scopes, *node, &e.extendee) else {
            return Err(err(format!(
                "extend {}: no message of that name",
                e.extendee
            )));
        };
        for f in &e.fields {
            let ty = lookup_type(scopes, *node, &f.type_name).ok_or_else(|| {
                err(format!(
                    "extension {}: unknown type {}",
                    f.name, f.type_name
                ))
            })?;
            let label = f.label.unwrap_or(Label::Optional);
            let full = match scope {
                Some(s) => format!("{s}.{}", f.name),
                None => f.name.clone(),
            };
            let Some(m) = set.messages.get_mut(target) else {
                continue;
            };
            if let Some((_, other)) = m.field_by_number(f.number) {
                return Err(err(format!(
                    "extension {full}: field number {} of {} is used by {}",
                    f.number, m.full_name, other.name
                )));
            }
            let slot = m.fields.len();
            m.fields.push(FieldDef {
                number: f.number,
                name: format!("[{full}]"),
                label,
                ty,
                packed: label == Label::Repeated && ty.packable() && f.packed.unwrap_or(*proto3),
                oneof: None,
                group: f.group,
                proto3_optional: false,
                upstream_int32: false,
            });
            let at = m.by_number.partition_point(|&(n, _)| n < f.number);
            m.by_number.insert(at, (f.number, slot));
        }
    }
    set.names = std::mem::take(&mut scopes.tree);
    Ok(set)
}

/// `s` with control characters written as escapes (`\u{1b}`).
fn escape_controls(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            let esc: Vec<char> = if c.is_control() {
                c.escape_unicode().collect()
            } else {
                vec![c]
            };
            esc
        })
        .collect()
}

/// `metadata_props` -> `MetadataProps`, as protoc names map entries.
fn camel(s: &str) -> String {
    let mut out = String::new();
    let mut up = true;
    for c in s.chars() {
        if c == '_' {
            up = true;
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_subset() {
        let text = r#"
            syntax = "proto3"; // comment
            package t;
            /* block */
            message A {
              enum E { option allow_alias = true; X = 0; Y = 1; }
              message B { int32 v = 1; }
              repeated B b = 1;
              map<string, B> m = 2;
              oneof o { string s = 3; E e = 4; }
              repeated int32 p = 5;
              reserved 6, 7;
              optional .t.A.B abs = 8 [deprecated = true];
            }
        "#;
        let set = SchemaSet::from_files([("t.proto".to_string(), text.to_string())]).unwrap();
        let a = set.message(set.find_message("t.A").unwrap());
        assert_eq!(a.fields.len(), 6);
        let (_, m) = a.field_by_number(2).unwrap();
        let FieldType::Message(entry) = m.ty else {
            panic!("map is a message")
        };
        assert!(set.message(entry).map_entry);
        assert_eq!(a.field_by_name("s").unwrap().1.oneof.as_deref(), Some("o"));
        assert!(a.field_by_number(5).unwrap().1.packed);
        assert!(matches!(
            a.field_by_number(4).unwrap().1.ty,
            FieldType::Enum(_)
        ));
    }

    #[test]
    fn reports_unknown_types_and_duplicates() {
        let bad = "syntax = \"proto2\"; message A { optional Nope x = 1; }";
        assert!(SchemaSet::from_files([("a".into(), bad.into())]).is_err());
        let dup = "message A { optional int32 x = 1; optional int32 y = 1; }";
        assert!(SchemaSet::from_files([("a".into(), dup.into())]).is_err());
    }

    /// A package `depth` components deep and a message of `fields` fields,
    /// half of a type of the same package, half of another package's.
    fn deep_package(depth: usize, fields: usize) -> Vec<(String, FileAst)> {
        let package = vec!["p"; depth].join(".");
        let mut main =
            format!("syntax = \"proto3\"; package {package}; message T {{}} message M {{");
        for k in 0..fields {
            let ty = if k % 2 == 0 {
                "T".to_string()
            } else {
                format!("other.U{}", k % 7)
            };
            main.push_str(&format!(" {ty} f{k} = {};", k + 1));
        }
        main.push('}');
        let mut other = String::from("syntax = \"proto3\"; package other;");
        for k in 0..7 {
            other.push_str(&format!(" message U{k} {{}}"));
        }
        let parse = |t: &str| parse_file(t).unwrap_or_else(|e| panic!("{e}"));
        vec![
            ("main".into(), parse(&main)),
            ("other".into(), parse(&other)),
        ]
    }

    #[test]
    fn lookups_are_linear_in_scope_depth_and_fields() {
        // Doubling both the package's depth and the number of fields at
        // most doubles the scopes visited (building every enclosing
        // scope's name for each field made it quadruple).
        let steps = |depth, fields| {
            let (set, steps) = resolve_counting(&deep_package(depth, fields));
            let set = set.unwrap_or_else(|e| panic!("{e}"));
            let m = set.find_message(&format!("{}.M", vec!["p"; depth].join(".")));
            let m = set.message(m.unwrap_or_else(|| panic!("no M")));
            assert_eq!(m.fields.len(), fields);
            steps
        };
        let (small, large) = (steps(500, 1_000), steps(1_000, 2_000));
        assert!(small <= 4 * (500 + 1_000), "{small} scopes visited");
        assert!(
            large <= 2 * small + 16,
            "{small} then {large} scopes visited"
        );
    }

    /// A package `depth` components deep whose message has `fields`
    /// fields, each naming a distinct message of another file declared at
    /// the root, so each name resolves only at the outermost scope.
    fn deep_package_root_types(depth: usize, fields: usize) -> Vec<(String, FileAst)> {
        let package = vec!["p"; depth].join(".");
        let mut main = format!("syntax = \"proto3\"; package {package}; message M {{");
        let mut root = String::from("syntax = \"proto3\";");
        for k in 0..fields {
            main.push_str(&format!(" R{k} f{k} = {};", k + 1));
            root.push_str(&format!(" message R{k} {{}}"));
        }
        main.push('}');
        let parse = |t: &str| parse_file(t).unwrap_or_else(|e| panic!("{e}"));
        vec![("main".into(), parse(&main)), ("root".into(), parse(&root))]
    }

    #[test]
    fn distinct_root_names_are_linear_in_scope_depth() {
        // Doubling the depth and the number of distinct names that resolve
        // only at the root at most doubles the work (a memo entry per name
        // at every level walked made it quadruple).
        let steps = |n: usize| {
            let (set, steps) = resolve_counting(&deep_package_root_types(n, n));
            let set = set.unwrap_or_else(|e| panic!("{e}"));
            let m = set.find_message(&format!("{}.M", vec!["p"; n].join(".")));
            let m = set.message(m.unwrap_or_else(|| panic!("no M")));
            assert_eq!(m.fields.len(), n);
            let last = m.field_by_name(&format!("f{}", n - 1)).map(|(_, f)| f.ty);
            let expected = set.find_message(&format!("R{}", n - 1));
            assert_eq!(last, expected.map(FieldType::Message));
            steps
        };
        let (small, large) = (steps(400), steps(800));
        assert!(small <= 8 * 400, "{small} steps");
        assert!(large <= 2 * small + 16, "{small} then {large} steps");
    }

    #[test]
    fn compound_names_resolve_inside_the_innermost_first_component() {
        // As protoc: `b.X` from a.b.M finds `b` first at a.b.M.b, and a
        // miss inside it is an unknown type, not a reason to look further
        // out (where a.b.X exists).
        let shadowed = "syntax = \"proto3\"; package a.b; message X {} \
                        message M { message b {} b.X x = 1; }";
        let err = SchemaSet::from_files([("a".into(), shadowed.into())])
            .err()
            .unwrap_or_else(|| panic!("b.X resolved past a.b.M.b"));
        assert!(err.to_string().contains("unknown type b.X"), "{err}");
        // A simple name skips a package of that name for the nearest type.
        let package = "syntax = \"proto3\"; package a.X; message X {} \
                       message M { X x = 1; }";
        let set =
            SchemaSet::from_files([("a".into(), package.into())]).unwrap_or_else(|e| panic!("{e}"));
        let m = set.message(set.find_message("a.X.M").unwrap_or(0));
        assert_eq!(
            m.field_by_name("x").map(|(_, f)| f.ty),
            set.find_message("a.X.X").map(FieldType::Message)
        );
    }

    #[test]
    fn relative_names_resolve_innermost_first() {
        let text = "syntax = \"proto3\"; package a.b; message X {} \
                    message M { message X {} X inner = 1; b.X outer = 2; .a.b.X abs = 3; \
                    map<string, int32> m = 4; MEntry entry = 5; }";
        let set =
            SchemaSet::from_files([("a".into(), text.into())]).unwrap_or_else(|e| panic!("{e}"));
        let m = set.message(set.find_message("a.b.M").unwrap_or(0));
        let ty = |name: &str| m.field_by_name(name).map(|(_, f)| f.ty);
        let id = |full: &str| set.find_message(full).map(FieldType::Message);
        assert_eq!(ty("inner"), id("a.b.M.X"));
        assert_eq!(ty("outer"), id("a.b.X"));
        assert_eq!(ty("abs"), id("a.b.X"));
        assert_eq!(ty("entry"), id("a.b.M.MEntry"));
    }

    #[test]
    fn full_names_print_and_compare_dotted() {
        let package = FullName::new(None, "a.b");
        let m = FullName::new(Some(&package), "M");
        let x = FullName::new(Some(&m), "X");
        assert_eq!(x.to_string(), "a.b.M.X");
        assert!(x == "a.b.M.X");
        for other in ["a.b.M.Y", "b.M.X", "xa.b.M.X", "a.b.MX", "a.b.M.X.", ""] {
            assert!(x != other, "{x} == {other}");
        }
        // The same dotted name however its scopes split it.
        assert!(x == FullName::new(Some(&FullName::new(None, "a")), "b.M.X"));
        assert!(FullName::new(None, "E") == "E");
    }

    #[test]
    fn enum_names_by_number() {
        let e = EnumDef::new(
            FullName::new(None, "E"),
            vec![
                ("B".into(), 2),
                ("A".into(), 1),
                ("ALIAS_B".into(), 2),
                ("NEG".into(), -3),
            ],
        );
        assert_eq!(e.name_of(2), Some("B"));
        assert_eq!(e.name_of(1), Some("A"));
        assert_eq!(e.name_of(-3), Some("NEG"));
        assert_eq!(e.name_of(0), None);
        assert_eq!(e.name_of(i64::from(i32::MAX) + 2), None);
    }
}
