//! Schema tables: messages, fields and enums, read from a subset of .proto
//! syntax (the built-in tables in `schemas/`, and user files later) into one
//! resolved, indexable set. The decoder walks these tables; nothing here
//! touches input bytes.

use crate::wire::WireType;
use nom::IResult;
use nom::branch::alt;
use nom::bytes::complete::{is_not, tag, take_until, take_while, take_while1};
use nom::character::complete::{char, multispace1};
use nom::combinator::{map, opt, recognize, value};
use nom::multi::many0;
use nom::sequence::{delimited, pair, preceded};
use std::collections::HashMap;
use std::sync::OnceLock;

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
    pub oneof: Option<String>,
    /// A proto2 group: the message is written between start- and end-group
    /// keys instead of as a LEN field.
    pub group: bool,
}

impl FieldDef {
    pub fn repeated(&self) -> bool {
        self.label == Label::Repeated
    }
}

#[derive(Debug, Clone)]
pub struct MessageDef {
    pub full_name: String,
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

    pub fn field_by_name(&self, name: &str) -> Option<(usize, &FieldDef)> {
        self.fields.iter().enumerate().find(|(_, f)| f.name == name)
    }
}

#[derive(Debug, Clone)]
pub struct EnumDef {
    pub full_name: String,
    pub values: Vec<(String, i32)>,
}

impl EnumDef {
    /// The name of a value, or None for a number the enum does not name (open
    /// enums: the caller prints the number).
    pub fn name_of(&self, number: i64) -> Option<&str> {
        self.values
            .iter()
            .find(|(_, v)| i64::from(*v) == number)
            .map(|(n, _)| n.as_str())
    }
}

/// A resolved set of messages and enums.
#[derive(Debug, Clone, Default)]
pub struct SchemaSet {
    pub messages: Vec<MessageDef>,
    pub enums: Vec<EnumDef>,
    message_index: HashMap<String, MsgId>,
    enum_index: HashMap<String, EnumId>,
}

/// The built-in schema files, in the order they are read.
pub const BUILTIN_FILES: &[(&str, &str)] = &[
    (
        "onnx-tensor.proto",
        include_str!("../schemas/onnx-tensor.proto"),
    ),
    (
        "onnx-data.proto",
        include_str!("../schemas/onnx-data.proto"),
    ),
    ("onnx.proto", include_str!("../schemas/onnx.proto")),
    (
        "google-protobuf.proto",
        include_str!("../schemas/google-protobuf.proto"),
    ),
    (
        "tf-framework.proto",
        include_str!("../schemas/tf-framework.proto"),
    ),
    (
        "tf-saved-model.proto",
        include_str!("../schemas/tf-saved-model.proto"),
    ),
];

impl SchemaSet {
    /// The tables of every built-in format, parsed once.
    pub fn builtin() -> &'static SchemaSet {
        static SET: OnceLock<SchemaSet> = OnceLock::new();
        SET.get_or_init(|| {
            SchemaSet::from_files(
                BUILTIN_FILES
                    .iter()
                    .map(|(n, t)| (n.to_string(), t.to_string())),
            )
            .unwrap_or_else(|e| panic!("built-in schema tables are broken: {e}"))
        })
    }

    pub fn message(&self, id: MsgId) -> &MessageDef {
        &self.messages[id]
    }

    pub fn enum_def(&self, id: EnumId) -> &EnumDef {
        &self.enums[id]
    }

    pub fn find_message(&self, full_name: &str) -> Option<MsgId> {
        self.message_index
            .get(full_name.trim_start_matches('.'))
            .copied()
    }

    pub fn find_enum(&self, full_name: &str) -> Option<EnumId> {
        self.enum_index
            .get(full_name.trim_start_matches('.'))
            .copied()
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
    pub fn message_names(&self) -> impl Iterator<Item = &str> {
        self.messages.iter().map(|m| m.full_name.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {message}")]
pub struct SchemaError {
    pub file: String,
    pub message: String,
}

// ---------------------------------------------------------------------------
// Syntax: a subset of .proto
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Default)]
pub struct FileAst {
    pub syntax_proto3: bool,
    pub package: String,
    pub imports: Vec<String>,
    pub messages: Vec<MessageAst>,
    pub enums: Vec<EnumAst>,
}

#[derive(Debug, Clone, Default)]
pub struct MessageAst {
    pub name: String,
    pub fields: Vec<FieldAst>,
    pub messages: Vec<MessageAst>,
    pub enums: Vec<EnumAst>,
}

#[derive(Debug, Clone)]
pub struct FieldAst {
    pub label: Option<Label>,
    pub type_name: String,
    pub name: String,
    pub number: u32,
    pub packed: Option<bool>,
    pub oneof: Option<String>,
    pub map: Option<(String, String)>,
    pub group: bool,
}

#[derive(Debug, Clone, Default)]
pub struct EnumAst {
    pub name: String,
    pub values: Vec<(String, i32)>,
}

type PResult<'a, T> = IResult<&'a str, T>;

/// Whitespace and comments.
fn sp(i: &str) -> PResult<'_, ()> {
    value(
        (),
        many0(alt((
            value((), multispace1),
            value((), pair(tag("//"), opt(is_not("\n")))),
            value((), delimited(tag("/*"), take_until("*/"), tag("*/"))),
        ))),
    )(i)
}

fn tok<'a>(t: &'static str) -> impl FnMut(&'a str) -> PResult<'a, &'a str> {
    preceded(sp, tag(t))
}

fn ident(i: &str) -> PResult<'_, &str> {
    preceded(
        sp,
        recognize(pair(
            take_while1(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '.'),
            take_while(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.'),
        )),
    )(i)
}

fn int_lit(i: &str) -> PResult<'_, i64> {
    let (i, text) = preceded(
        sp,
        recognize(pair(
            opt(char('-')),
            take_while1(|c: char| c.is_ascii_hexdigit() || c == 'x' || c == 'X'),
        )),
    )(i)?;
    let (neg, digits) = match text.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, text),
    };
    let parsed = if let Some(h) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        i64::from_str_radix(h, 16)
    } else if digits.len() > 1 && digits.starts_with('0') {
        i64::from_str_radix(&digits[1..], 8)
    } else {
        digits.parse::<i64>()
    };
    match parsed {
        Ok(v) => Ok((i, if neg { -v } else { v })),
        Err(_) => Err(nom::Err::Error(nom::error::Error::new(
            i,
            nom::error::ErrorKind::Digit,
        ))),
    }
}

fn str_lit(i: &str) -> PResult<'_, &str> {
    preceded(
        sp,
        alt((
            delimited(char('"'), take_while(|c| c != '"'), char('"')),
            delimited(char('\''), take_while(|c| c != '\''), char('\'')),
        )),
    )(i)
}

/// Skips a balanced `{ ... }` block (services, extend blocks, option values).
fn skip_block(i: &str) -> PResult<'_, ()> {
    let (mut rest, _) = tok("{")(i)?;
    let mut depth = 1usize;
    while depth > 0 {
        let mut chars = rest.char_indices();
        match chars.next() {
            None => {
                return Err(nom::Err::Error(nom::error::Error::new(
                    rest,
                    nom::error::ErrorKind::Eof,
                )));
            }
            Some((_, c)) => {
                if c == '{' {
                    depth += 1;
                } else if c == '}' {
                    depth -= 1;
                }
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    Ok((rest, ()))
}

/// Skips a statement up to and including its `;`, over quoted strings and
/// `{ ... }` aggregate option values (`option (x) = { a: 1 };`).
fn skip_statement(i: &str) -> PResult<'_, ()> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (at, c) in i.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ';' if depth == 0 => return Ok((&i[at + 1..], ())),
            _ => {}
        }
    }
    Err(nom::Err::Error(nom::error::Error::new(
        i,
        nom::error::ErrorKind::TakeUntil,
    )))
}

/// `[packed = true, deprecated = true, default = 1]`: returns `packed`.
fn field_options(i: &str) -> PResult<'_, Option<bool>> {
    let (i, body) = opt(delimited(tok("["), take_while(|c| c != ']'), tok("]")))(i)?;
    let packed = body.and_then(|b| {
        b.split(',').find_map(|opt| {
            let (k, v) = opt.split_once('=')?;
            (k.trim() == "packed").then(|| v.trim() == "true")
        })
    });
    Ok((i, packed))
}

fn label(i: &str) -> PResult<'_, Option<Label>> {
    opt(alt((
        value(Label::Optional, keyword("optional")),
        value(Label::Repeated, keyword("repeated")),
        value(Label::Required, keyword("required")),
    )))(i)
}

/// A keyword followed by a non-identifier character.
fn keyword<'a>(k: &'static str) -> impl FnMut(&'a str) -> PResult<'a, &'a str> {
    move |i| {
        let (rest, word) = ident(i)?;
        if word == k {
            Ok((rest, word))
        } else {
            Err(nom::Err::Error(nom::error::Error::new(
                i,
                nom::error::ErrorKind::Tag,
            )))
        }
    }
}

fn field_number(i: &str) -> PResult<'_, u32> {
    let (rest, n) = int_lit(i)?;
    match u32::try_from(n) {
        Ok(n) if n >= 1 && u64::from(n) <= crate::wire::MAX_FIELD_NUMBER => Ok((rest, n)),
        _ => Err(nom::Err::Failure(nom::error::Error::new(
            i,
            nom::error::ErrorKind::Verify,
        ))),
    }
}

fn normal_field(i: &str) -> PResult<'_, FieldAst> {
    let (i, label) = label(i)?;
    let (i, type_name) = ident(i)?;
    let (i, name) = ident(i)?;
    let (i, _) = tok("=")(i)?;
    let (i, number) = field_number(i)?;
    let (i, packed) = field_options(i)?;
    let (i, _) = tok(";")(i)?;
    Ok((
        i,
        FieldAst {
            label,
            type_name: type_name.to_string(),
            name: name.to_string(),
            number,
            packed,
            oneof: None,
            map: None,
            group: false,
        },
    ))
}

fn map_field(i: &str) -> PResult<'_, FieldAst> {
    let (i, _) = keyword("map")(i)?;
    let (i, _) = tok("<")(i)?;
    let (i, k) = ident(i)?;
    let (i, _) = tok(",")(i)?;
    let (i, v) = ident(i)?;
    let (i, _) = tok(">")(i)?;
    let (i, name) = ident(i)?;
    let (i, _) = tok("=")(i)?;
    let (i, number) = field_number(i)?;
    let (i, _) = field_options(i)?;
    let (i, _) = tok(";")(i)?;
    Ok((
        i,
        FieldAst {
            label: Some(Label::Repeated),
            type_name: String::new(),
            name: name.to_string(),
            number,
            packed: None,
            oneof: None,
            map: Some((k.to_string(), v.to_string())),
            group: false,
        },
    ))
}

fn enum_body(i: &str) -> PResult<'_, EnumAst> {
    let (i, _) = keyword("enum")(i)?;
    let (i, name) = ident(i)?;
    let (mut i, _) = tok("{")(i)?;
    let mut e = EnumAst {
        name: name.to_string(),
        values: Vec::new(),
    };
    loop {
        if let Ok((r, _)) = tok("}")(i) {
            return Ok((r, e));
        }
        if let Ok((r, _)) = alt((keyword("option"), keyword("reserved")))(i) {
            i = skip_statement(r)?.0;
            continue;
        }
        let (r, vname) = ident(i)?;
        let (r, _) = tok("=")(r)?;
        let (r, number) = int_lit(r)?;
        let (r, _) = field_options(r)?;
        let (r, _) = tok(";")(r)?;
        let number = i32::try_from(number).map_err(|_| {
            nom::Err::Failure(nom::error::Error::new(i, nom::error::ErrorKind::Verify))
        })?;
        e.values.push((vname.to_string(), number));
        i = r;
    }
}

/// A proto2 group: `optional group Result = 1 { ... }` declares a nested
/// message `Result` and a field `result` of that type. (On the wire a group
/// is written between start- and end-group keys, not as a LEN field.)
fn group_field(i: &str) -> PResult<'_, (FieldAst, MessageAst)> {
    let (i, label) = label(i)?;
    let (i, _) = keyword("group")(i)?;
    let (i, name) = ident(i)?;
    let (i, _) = tok("=")(i)?;
    let (i, number) = field_number(i)?;
    let (i, _) = field_options(i)?;
    let (i, body) = message_block(i, name)?;
    let field = FieldAst {
        label,
        type_name: name.to_string(),
        name: name.to_ascii_lowercase(),
        number,
        packed: None,
        oneof: None,
        map: None,
        group: true,
    };
    Ok((i, (field, body)))
}

fn message_body(i: &str) -> PResult<'_, MessageAst> {
    let (i, _) = keyword("message")(i)?;
    let (i, name) = ident(i)?;
    message_block(i, name)
}

/// The `{ ... }` of a message or group.
fn message_block<'a>(i: &'a str, name: &str) -> PResult<'a, MessageAst> {
    let (mut i, _) = tok("{")(i)?;
    let mut m = MessageAst {
        name: name.to_string(),
        ..Default::default()
    };
    loop {
        if let Ok((r, _)) = tok("}")(i) {
            return Ok((r, m));
        }
        if let Ok((r, _)) = tok(";")(i) {
            i = r;
            continue;
        }
        if let Ok((r, sub)) = message_body(i) {
            m.messages.push(sub);
            i = r;
            continue;
        }
        if let Ok((r, e)) = enum_body(i) {
            m.enums.push(e);
            i = r;
            continue;
        }
        if let Ok((r, _)) = alt((
            keyword("option"),
            keyword("reserved"),
            keyword("extensions"),
        ))(i)
        {
            i = skip_statement(r)?.0;
            continue;
        }
        if let Ok((r, _)) = keyword("extend")(i) {
            let (r, _) = ident(r)?;
            i = skip_block(r)?.0;
            continue;
        }
        if let Ok((r, _)) = keyword("oneof")(i) {
            let (r, oneof_name) = ident(r)?;
            let (mut r, _) = tok("{")(r)?;
            loop {
                if let Ok((r2, _)) = tok("}")(r) {
                    r = r2;
                    break;
                }
                if let Ok((r2, _)) = keyword("option")(r) {
                    r = skip_statement(r2)?.0;
                    continue;
                }
                let (r2, mut f) = normal_field(r)?;
                f.oneof = Some(oneof_name.to_string());
                m.fields.push(f);
                r = r2;
            }
            i = r;
            continue;
        }
        if let Ok((r, (f, body))) = group_field(i) {
            m.fields.push(f);
            m.messages.push(body);
            i = r;
            continue;
        }
        let (r, f) = alt((map_field, normal_field))(i)?;
        m.fields.push(f);
        i = r;
    }
}

/// Parses one schema file.
pub fn parse_file(text: &str) -> Result<FileAst, String> {
    let mut file = FileAst::default();
    let mut i = text;
    loop {
        let (r, _) = sp(i).map_err(|e| format!("{e}"))?;
        i = r;
        if i.is_empty() {
            return Ok(file);
        }
        let step: PResult<'_, ()> = (|| {
            if let Ok((r, _)) = keyword("syntax")(i) {
                let (r, _) = tok("=")(r)?;
                let (r, s) = str_lit(r)?;
                file.syntax_proto3 = s == "proto3";
                return map(tok(";"), |_| ())(r);
            }
            if let Ok((r, _)) = keyword("edition")(i) {
                return skip_statement(r);
            }
            if let Ok((r, _)) = keyword("package")(i) {
                let (r, p) = ident(r)?;
                file.package = p.to_string();
                return map(tok(";"), |_| ())(r);
            }
            if let Ok((r, _)) = keyword("import")(i) {
                let (r, _) = opt(alt((keyword("public"), keyword("weak"))))(r)?;
                let (r, p) = str_lit(r)?;
                file.imports.push(p.to_string());
                return map(tok(";"), |_| ())(r);
            }
            if let Ok((r, _)) = keyword("option")(i) {
                return skip_statement(r);
            }
            if let Ok((r, m)) = message_body(i) {
                file.messages.push(m);
                return Ok((r, ()));
            }
            if let Ok((r, e)) = enum_body(i) {
                file.enums.push(e);
                return Ok((r, ()));
            }
            if let Ok((r, _)) = alt((keyword("service"), keyword("extend")))(i) {
                let (r, _) = ident(r)?;
                return skip_block(r);
            }
            Err(nom::Err::Error(nom::error::Error::new(
                i,
                nom::error::ErrorKind::Alt,
            )))
        })();
        match step {
            Ok((r, ())) => i = r,
            Err(_) => {
                let line = text.len() - i.len();
                let line_no = text[..line].matches('\n').count() + 1;
                let snippet: String = i.trim_start().chars().take(40).collect();
                return Err(format!("line {line_no}: cannot read `{snippet}`"));
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Resolution: names to indices
// ---------------------------------------------------------------------------

struct Pending<'a> {
    scope: String,
    ast: &'a MessageAst,
    proto3: bool,
}

fn join(scope: &str, name: &str) -> String {
    if scope.is_empty() {
        name.to_string()
    } else {
        format!("{scope}.{name}")
    }
}

fn collect<'a>(
    scope: &str,
    m: &'a MessageAst,
    proto3: bool,
    out: &mut Vec<Pending<'a>>,
    enums: &mut Vec<(String, &'a EnumAst)>,
) {
    let full = join(scope, &m.name);
    out.push(Pending {
        scope: full.clone(),
        ast: m,
        proto3,
    });
    for e in &m.enums {
        enums.push((join(&full, &e.name), e));
    }
    for sub in &m.messages {
        collect(&full, sub, proto3, out, enums);
    }
}

fn resolve(files: &[(String, FileAst)]) -> Result<SchemaSet, SchemaError> {
    let mut pending = Vec::new();
    let mut enum_asts = Vec::new();
    for (_, f) in files {
        for m in &f.messages {
            collect(&f.package, m, f.syntax_proto3, &mut pending, &mut enum_asts);
        }
        for e in &f.enums {
            enum_asts.push((join(&f.package, &e.name), e));
        }
    }
    let err = |m: String| SchemaError {
        file: String::from("schema"),
        message: m,
    };

    let mut set = SchemaSet::default();
    for (full, e) in &enum_asts {
        if set
            .enum_index
            .insert(full.clone(), set.enums.len())
            .is_some()
        {
            return Err(err(format!("enum {full} is defined twice")));
        }
        set.enums.push(EnumDef {
            full_name: full.clone(),
            values: e.values.clone(),
        });
    }
    // Messages first get their ids, including synthesized map entries, so
    // that fields can refer to any of them.
    for p in &pending {
        if set
            .message_index
            .insert(p.scope.clone(), set.messages.len())
            .is_some()
        {
            return Err(err(format!("message {} is defined twice", p.scope)));
        }
        set.messages.push(MessageDef {
            full_name: p.scope.clone(),
            name: p.ast.name.clone(),
            fields: Vec::new(),
            map_entry: false,
            proto3: p.proto3,
            by_number: Vec::new(),
        });
    }

    let lookup = |set: &SchemaSet, scope: &str, name: &str| -> Option<FieldType> {
        if let Some(s) = Scalar::from_keyword(name) {
            return Some(FieldType::Scalar(s));
        }
        let candidates: Vec<String> = if let Some(abs) = name.strip_prefix('.') {
            vec![abs.to_string()]
        } else {
            let mut c = Vec::new();
            let mut s = scope.to_string();
            loop {
                c.push(join(&s, name));
                match s.rfind('.') {
                    Some(p) => s.truncate(p),
                    None if !s.is_empty() => s.clear(),
                    None => break,
                }
            }
            c
        };
        candidates.iter().find_map(|c| {
            set.message_index
                .get(c)
                .map(|&m| FieldType::Message(m))
                .or_else(|| set.enum_index.get(c).map(|&e| FieldType::Enum(e)))
        })
    };

    for (id, p) in pending.iter().enumerate() {
        let mut fields = Vec::new();
        for f in &p.ast.fields {
            let (ty, label) = if let Some((k, v)) = &f.map {
                let key_ty = lookup(&set, &p.scope, k)
                    .ok_or_else(|| err(format!("{}.{}: unknown type {k}", p.scope, f.name)))?;
                let val_ty = lookup(&set, &p.scope, v)
                    .ok_or_else(|| err(format!("{}.{}: unknown type {v}", p.scope, f.name)))?;
                let entry_name = format!("{}Entry", camel(&f.name));
                let entry_full = join(&p.scope, &entry_name);
                let entry_id = set.messages.len();
                set.message_index.insert(entry_full.clone(), entry_id);
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
                        },
                        FieldDef {
                            number: 2,
                            name: "value".into(),
                            label: Label::Optional,
                            ty: val_ty,
                            packed: false,
                            oneof: None,
                            group: false,
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
                let ty = lookup(&set, &p.scope, &f.type_name).ok_or_else(|| {
                    err(format!(
                        "{}.{}: unknown type {}",
                        p.scope, f.name, f.type_name
                    ))
                })?;
                (ty, f.label.unwrap_or(Label::Optional))
            };
            let packed = label == Label::Repeated && ty.packable() && f.packed.unwrap_or(p.proto3);
            fields.push(FieldDef {
                number: f.number,
                name: f.name.clone(),
                label,
                ty,
                packed,
                oneof: f.oneof.clone(),
                group: f.group,
            });
        }
        let mut by_number: Vec<(u32, usize)> = fields
            .iter()
            .enumerate()
            .map(|(i, f)| (f.number, i))
            .collect();
        by_number.sort();
        if let Some(w) = by_number.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(err(format!(
                "{}: field number {} is used twice",
                p.scope, w[0].0
            )));
        }
        let m = &mut set.messages[id];
        m.fields = fields;
        m.by_number = by_number;
    }
    Ok(set)
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
}
