//! The text format parsed against a schema table and written as the wire
//! format in the same pass: each field's key and value as the text gives
//! them (in text order; repeated scalars packed where the table says so),
//! each message's length found when it closes. The nesting is an explicit
//! stack (bounded by the decoder's depth budget), so no recursion follows
//! the input; what is held besides the output is a frame per open message,
//! a record per field of the open messages and a length record per
//! message, all in proportion to the input.
//!
//! A nested message's length precedes its contents and is known only at
//! its end: [`WireWriter`] puts the lengths in at the end, so that the
//! result is exactly what protobuf's serializers write for the same fields
//! in the same order (shortest varints).

use super::lexer::{Lexer, Tok, Token, describe, shown};
use super::literal::{float_value, int_value, special_float, unescape_into};
use crate::error::{DecodeError, ErrorKind, Result};
use crate::schema::{FieldDef, FieldType, MessageDef, MsgId, Scalar, SchemaSet};
use crate::wire::{OpenLen, WireType, WireWriter, put_varint, varint_len};

/// The full name of `google.protobuf.Any`, whose values the text format
/// may write expanded (`[type.googleapis.com/pkg.T] { ... }`).
const ANY: &str = "google.protobuf.Any";

/// How a message is framed on the wire.
enum Framing {
    /// The file's message: no framing.
    Root,
    /// A LEN field, its length put in when it closes.
    Len(OpenLen),
    /// A group, closed by the end-group key of its field number.
    Group { number: u32 },
}

/// A run of values of a packed repeated field, written as one LEN field.
struct Run {
    slot: usize,
    open: OpenLen,
}

/// An open message.
struct Frame {
    msg: MsgId,
    /// The punctuation that closes it (`}` or `>`; 0 for the root).
    close: u8,
    /// Where it opened in the text.
    opened_at: usize,
    framing: Framing,
    /// Where its fields' records start in [`Encoder::seen`].
    seen_start: usize,
    run: Option<Run>,
    /// The field of the enclosing message it is a value of (its slot
    /// there), and its index when that field is repeated.
    field: Option<(usize, Option<u32>)>,
    /// An element of a `[ ... ]` list: `,` or `]` follows its end.
    list: bool,
}

/// A field given in an open message: how often, and whether its last
/// value differs from the type's default (a proto3 field without presence
/// may be given again after a default value, as protobuf's parsers allow).
struct Seen {
    slot: usize,
    count: u32,
    nondefault: bool,
}

/// Where a field's record is: its slot, and the span of its name token.
#[derive(Clone, Copy)]
struct FieldAt {
    slot: usize,
    at: usize,
}

/// The parser and writer.
pub struct Encoder<'s, 'a> {
    set: &'s SchemaSet,
    lx: Lexer<'a>,
    w: WireWriter,
    stack: Vec<Frame>,
    seen: Vec<Seen>,
    /// (output offset as written, text offset) of every field and message:
    /// recorded only to place an error found later in the binary form.
    spans: Option<(Vec<u64>, Vec<u64>)>,
    max_depth: u32,
    /// The parts of an adjacent string literal, reused.
    pieces: Vec<(&'a [u8], usize, bool)>,
}

/// The binary form of a text message, and the map from its bytes back to
/// the text when asked for.
pub struct Output {
    pub bytes: Vec<u8>,
    /// (binary offset, text offset), ascending in both.
    pub spans: Vec<(u64, u64)>,
}

impl<'s, 'a> Encoder<'s, 'a> {
    pub fn new(
        set: &'s SchemaSet,
        root: MsgId,
        text: &'a [u8],
        max_depth: u32,
        spans: bool,
    ) -> Self {
        Encoder {
            set,
            lx: Lexer::new(text),
            // The binary form is mostly smaller than its text.
            w: WireWriter::with_capacity(text.len() / 2),
            stack: vec![Frame {
                msg: root,
                close: 0,
                opened_at: 0,
                framing: Framing::Root,
                seen_start: 0,
                run: None,
                field: None,
                list: false,
            }],
            seen: Vec::new(),
            spans: spans.then(|| (Vec::new(), Vec::new())),
            max_depth,
            pieces: Vec::new(),
        }
    }

    /// Parses the whole text and returns its binary form.
    pub fn finish(mut self) -> Result<Output> {
        match self.run() {
            Ok(()) => {}
            Err(e) => return Err(self.with_path(e)),
        }
        let (mut at, text_at) = self.spans.take().unwrap_or_default();
        let bytes = std::mem::take(&mut self.w).finish(&mut at);
        let spans = at.into_iter().zip(text_at).collect();
        Ok(Output { bytes, spans })
    }

    fn top(&self) -> &Frame {
        // The root frame is popped by no input: the stack is never empty.
        #[allow(clippy::expect_used)]
        self.stack.last().expect("the root frame stays")
    }

    fn top_mut(&mut self) -> &mut Frame {
        #[allow(clippy::expect_used)]
        self.stack.last_mut().expect("the root frame stays")
    }

    fn def(&self) -> &'s MessageDef {
        self.set.message(self.top().msg)
    }

    fn run(&mut self) -> Result<()> {
        loop {
            let t = self.lx.next()?;
            match t.tok {
                Tok::End => {
                    if self.stack.len() > 1 {
                        let open = self.top();
                        return Err(DecodeError::new(
                            ErrorKind::TextSyntax {
                                found: "the end of the file".into(),
                                expected: "the end of the message opened before (its closing bracket)",
                            },
                            open.opened_at as u64,
                        ));
                    }
                    self.close_run();
                    return Ok(());
                }
                Tok::Punct(c) if self.stack.len() > 1 && c == self.top().close => {
                    self.close_message()?;
                }
                Tok::Ident(name) => self.named_field(name, &t)?,
                Tok::Punct(b'[') => self.bracketed_field(&t)?,
                _ => {
                    let expected = match self.top().close {
                        0 => "a field name",
                        b'}' => "a field name or '}'",
                        _ => "a field name or '>'",
                    };
                    return Err(unexpected(&t, expected));
                }
            }
        }
    }

    /// A field named by an identifier: a field of the message, or a
    /// group by its type's name.
    fn named_field(&mut self, name: &'a [u8], t: &Token<'a>) -> Result<()> {
        let def = self.def();
        let name_str = std::str::from_utf8(name).unwrap_or("");
        let found = def.field_by_name(name_str).or_else(|| {
            // A group is written with its type's name (`MyGroup`).
            def.fields.iter().enumerate().find(|(_, f)| {
                f.group
                    && matches!(f.ty, FieldType::Message(m) if self.set.message(m).name == name_str)
            })
        });
        let Some((slot, _)) = found else {
            return Err(DecodeError::new(
                ErrorKind::TextUnknownField {
                    name: name_str.to_string(),
                    message: def.full_name.to_string(),
                    closest: closest_field(def, name_str),
                },
                t.at as u64,
            ));
        };
        self.field(FieldAt { slot, at: t.at })
    }

    /// `[` after which an extension's name or, in an `Any`, a type URL.
    fn bracketed_field(&mut self, open: &Token<'a>) -> Result<()> {
        let mut name = String::new();
        loop {
            let t = self.lx.next()?;
            match t.tok {
                Tok::Punct(b']') => break,
                Tok::Ident(s) => name.push_str(std::str::from_utf8(s).unwrap_or("")),
                Tok::Int { .. } => name.push_str(
                    std::str::from_utf8(self.lx.text().get(t.at..t.end).unwrap_or(&[]))
                        .unwrap_or(""),
                ),
                Tok::Punct(c @ (b'.' | b'/' | b'-')) => name.push(char::from(c)),
                _ => {
                    return Err(unexpected(
                        &t,
                        "an extension's name or a type URL, then ']'",
                    ));
                }
            }
        }
        let def = self.def();
        if let Some((_, type_name)) = name.rsplit_once('/') {
            if def.full_name != ANY {
                return Err(DecodeError::new(
                    ErrorKind::TextSyntax {
                        found: format!("the type URL {}", shown(name.as_bytes())),
                        expected: "a field name (a type URL opens a value of a google.protobuf.Any)",
                    },
                    open.at as u64,
                ));
            }
            let Some(sub) = self.set.find_message(type_name) else {
                return Err(DecodeError::new(
                    ErrorKind::TextType {
                        what: "the Any's message type",
                        name: type_name.to_string(),
                        hint: "give its schema with --schema/--type, or write the Any as type_url and value",
                    },
                    open.at as u64,
                ));
            };
            return self.any_value(&name, sub, open.at);
        }
        // An extension: a field of the message under its full name.
        let name = name.trim_start_matches('.');
        let bracketed = format!("[{name}]");
        match def.field_by_name(&bracketed) {
            Some((slot, _)) => self.field(FieldAt { slot, at: open.at }),
            None => Err(DecodeError::new(
                ErrorKind::TextType {
                    what: "the extension",
                    name: name.to_string(),
                    hint: if def.fields.iter().any(|f| f.name.starts_with('[')) {
                        "it is not one of the message's extensions in the schema tables"
                    } else {
                        "the schema tables declare no extension of this message"
                    },
                },
                open.at as u64,
            )),
        }
    }

    /// An expanded `Any`: its `type_url`, then the message as its `value`.
    fn any_value(&mut self, url: &str, sub: MsgId, at: usize) -> Result<()> {
        let def = self.def();
        let (Some((url_slot, url_field)), Some((value_slot, value_field))) =
            (def.field_by_number(1), def.field_by_number(2))
        else {
            return Err(DecodeError::new(
                ErrorKind::NoSuchMessage(ANY.into()),
                at as u64,
            ));
        };
        self.close_run();
        self.span(at);
        self.mark(url_slot, true, at)?;
        self.mark(value_slot, true, at)?;
        self.w.key(url_field.number, WireType::Len);
        self.w.bytes(url.as_bytes());
        self.lx.eat(b':')?;
        let t = self.lx.next()?;
        let close = match t.tok {
            Tok::Punct(b'{') => b'}',
            Tok::Punct(b'<') => b'>',
            _ => return Err(unexpected(&t, "'{' or '<' opening the Any's message")),
        };
        self.open(
            value_field.number,
            false,
            sub,
            close,
            t.at,
            (value_slot, None),
            false,
        )
    }

    /// One occurrence of a field (a value, a list, or a message).
    fn field(&mut self, at: FieldAt) -> Result<()> {
        let def = self.def();
        let Some(fdef) = def.fields.get(at.slot) else {
            return Ok(());
        };
        if self.top().run.as_ref().is_some_and(|r| r.slot != at.slot) {
            self.close_run();
        }
        self.span(at.at);
        match fdef.ty {
            FieldType::Message(sub) => {
                self.lx.eat(b':')?;
                let t = self.lx.next()?;
                if t.tok == Tok::Punct(b'[') {
                    if !fdef.repeated() {
                        return Err(self.not_repeated(&t, at));
                    }
                    if self.lx.eat(b']')? {
                        return self.separator();
                    }
                    let t = self.lx.next()?;
                    return self.message_value(fdef, sub, at, &t, true);
                }
                self.message_value(fdef, sub, at, &t, false)
            }
            _ => {
                let t = self.lx.next()?;
                if t.tok != Tok::Punct(b':') {
                    return Err(self.in_field(unexpected(&t, "':' and a value"), at.slot));
                }
                if self.lx.peek()?.tok == Tok::Punct(b'[') {
                    let open = self.lx.next()?;
                    if !fdef.repeated() {
                        return Err(self.not_repeated(&open, at));
                    }
                    if !self.lx.eat(b']')? {
                        loop {
                            self.scalar_occurrence(fdef, at)?;
                            let t = self.lx.next()?;
                            match t.tok {
                                Tok::Punct(b']') => break,
                                Tok::Punct(b',') => {}
                                _ => {
                                    return Err(
                                        self.in_field(unexpected(&t, "',' or ']'"), at.slot)
                                    );
                                }
                            }
                        }
                    }
                } else {
                    self.scalar_occurrence(fdef, at)?;
                }
                self.separator()
            }
        }
    }

    fn not_repeated(&self, t: &Token<'_>, at: FieldAt) -> DecodeError {
        self.in_field(
            unexpected(
                t,
                "a single value: the field is not repeated, and a list is for repeated fields",
            ),
            at.slot,
        )
    }

    /// A message value (`{...}` or `<...>`) of a message field.
    fn message_value(
        &mut self,
        fdef: &FieldDef,
        sub: MsgId,
        at: FieldAt,
        t: &Token<'a>,
        list: bool,
    ) -> Result<()> {
        let close = match t.tok {
            Tok::Punct(b'{') => b'}',
            Tok::Punct(b'<') => b'>',
            _ => {
                let expected = if list {
                    "'{' or '<' (a message in the list)"
                } else {
                    "'{' or '<' opening the message"
                };
                return Err(self.in_field(unexpected(t, expected), at.slot));
            }
        };
        let index = self.mark(at.slot, true, at.at)?;
        let index = fdef.repeated().then_some(index);
        self.open(
            fdef.number,
            fdef.group,
            sub,
            close,
            t.at,
            (at.slot, index),
            list,
        )
    }

    /// Opens a nested message: its key, then a frame.
    #[allow(clippy::too_many_arguments)]
    fn open(
        &mut self,
        number: u32,
        group: bool,
        sub: MsgId,
        close: u8,
        opened_at: usize,
        field: (usize, Option<u32>),
        list: bool,
    ) -> Result<()> {
        let depth = self.stack.len() - 1;
        if depth >= self.max_depth as usize {
            return Err(self.in_field(
                DecodeError::new(ErrorKind::DepthLimit(self.max_depth), opened_at as u64),
                field.0,
            ));
        }
        let framing = if group {
            self.w.key(number, WireType::StartGroup);
            Framing::Group { number }
        } else {
            self.w.key(number, WireType::Len);
            Framing::Len(self.w.open_len())
        };
        let seen_start = self.seen.len();
        self.stack.push(Frame {
            msg: sub,
            close,
            opened_at,
            framing,
            seen_start,
            run: None,
            field: Some(field),
            list,
        });
        Ok(())
    }

    /// The closing bracket of the open message: its length (or end-group
    /// key), then what may follow it.
    fn close_message(&mut self) -> Result<()> {
        self.close_run();
        let Some(frame) = self.stack.pop() else {
            return Ok(());
        };
        self.seen.truncate(frame.seen_start);
        match frame.framing {
            Framing::Root => {}
            Framing::Group { number } => self.w.key(number, WireType::EndGroup),
            Framing::Len(open) => self.w.close_len(open),
        }
        if !frame.list {
            return self.separator();
        }
        // An element of a list of messages: another one, or the list's end.
        let t = self.lx.next()?;
        let slot = frame.field.map_or(0, |(s, _)| s);
        match t.tok {
            Tok::Punct(b']') => self.separator(),
            Tok::Punct(b',') => {
                let t = self.lx.next()?;
                let def = self.def();
                let Some(fdef) = def.fields.get(slot) else {
                    return Ok(());
                };
                let FieldType::Message(sub) = fdef.ty else {
                    return Ok(());
                };
                self.span(t.at);
                self.message_value(fdef, sub, FieldAt { slot, at: t.at }, &t, true)
            }
            _ => Err(self.in_field(unexpected(&t, "',' or ']' after a message in a list"), slot)),
        }
    }

    /// Ends the open message's packed run, if any.
    fn close_run(&mut self) {
        if let Some(run) = self.top_mut().run.take() {
            self.w.close_len(run.open);
        }
    }

    /// An optional `,` or `;` after a field.
    fn separator(&mut self) -> Result<()> {
        if !self.lx.eat(b',')? {
            self.lx.eat(b';')?;
        }
        Ok(())
    }

    fn span(&mut self, text_at: usize) {
        let at = self.w.position() as u64;
        if let Some((bin, text)) = self.spans.as_mut() {
            bin.push(at);
            text.push(text_at as u64);
        }
    }

    /// Records an occurrence of a field of the open message; a second
    /// occurrence of a field that is not repeated, and a second member of
    /// a oneof, are errors (as in protobuf's parsers). Returns how many
    /// occurrences came before.
    fn mark(&mut self, slot: usize, nondefault: bool, at: usize) -> Result<u32> {
        let def = self.def();
        let fdef = def.fields.get(slot);
        let start = self.top().seen_start;
        let repeated = fdef.is_some_and(FieldDef::repeated);
        let oneof = fdef.and_then(|f| f.oneof.as_deref());
        let mut found = None;
        for (k, s) in self.seen.iter().enumerate().skip(start) {
            if s.slot == slot {
                found = Some(k);
            } else if let (Some(o), Some(other)) = (oneof, def.fields.get(s.slot))
                && other.oneof.as_deref() == Some(o)
            {
                return Err(self.in_field(
                    DecodeError::new(
                        ErrorKind::TextOneof {
                            field: fdef.map_or(String::new(), |f| f.name.clone()),
                            other: other.name.clone(),
                            oneof: o.to_string(),
                        },
                        at as u64,
                    ),
                    slot,
                ));
            }
        }
        match found.and_then(|k| self.seen.get_mut(k)) {
            Some(s) => {
                let presence = fdef.is_some_and(|f| has_presence(def, f));
                if !repeated && (presence || s.nondefault) {
                    let field = fdef.map_or(String::new(), |f| f.name.clone());
                    return Err(self.in_field(
                        DecodeError::new(ErrorKind::TextDuplicate { field }, at as u64),
                        slot,
                    ));
                }
                let before = s.count;
                s.count = s.count.saturating_add(1);
                s.nondefault = nondefault;
                Ok(before)
            }
            None => {
                self.seen.push(Seen {
                    slot,
                    count: 1,
                    nondefault,
                });
                Ok(0)
            }
        }
    }

    /// One value of a scalar field, with its key (or into the packed run).
    fn scalar_occurrence(&mut self, fdef: &FieldDef, at: FieldAt) -> Result<()> {
        let packed = fdef.packed && fdef.repeated();
        if packed {
            if self.top().run.is_none() {
                self.w.key(fdef.number, WireType::Len);
                let open = self.w.open_len();
                self.top_mut().run = Some(Run {
                    slot: at.slot,
                    open,
                });
            }
        } else {
            self.w.key(fdef.number, fdef.ty.wire_type());
        }
        let nondefault = self
            .scalar_value(fdef)
            .map_err(|e| self.in_field(e, at.slot))?;
        self.mark(at.slot, nondefault, at.at)?;
        Ok(())
    }

    /// A scalar value's tokens, written as its type is on the wire;
    /// whether it is other than the type's default.
    fn scalar_value(&mut self, fdef: &FieldDef) -> Result<bool> {
        let mut t = self.lx.next()?;
        let minus = if t.tok == Tok::Punct(b'-') {
            t = self.lx.next()?;
            Some(t.at)
        } else {
            None
        };
        let type_name = |set: &SchemaSet| match fdef.ty {
            FieldType::Scalar(s) => s.name().to_string(),
            FieldType::Enum(e) => set.enum_def(e).full_name.to_string(),
            FieldType::Message(m) => set.message(m).full_name.to_string(),
        };
        let bad = |why: &str, set: &SchemaSet| {
            let from = minus.unwrap_or(t.at);
            let found = match t.tok {
                Tok::Str { body, .. } => format!("the string {}", shown(body)),
                Tok::End | Tok::Punct(_) => describe(&t),
                _ => shown(self.lx.text().get(from..t.end).unwrap_or(&[])),
            };
            DecodeError::new(
                ErrorKind::TextValue {
                    found,
                    ty: type_name(set),
                    why: why.to_string(),
                },
                from as u64,
            )
        };
        match fdef.ty {
            FieldType::Scalar(Scalar::String | Scalar::Bytes) => {
                let Tok::Str { body, escapes } = t.tok else {
                    return Err(bad("a quoted string is expected", self.set));
                };
                if minus.is_some() {
                    return Err(bad("a string has no sign", self.set));
                }
                let utf8 = fdef.ty == FieldType::Scalar(Scalar::String);
                self.string(body, t.at, escapes, utf8)
            }
            FieldType::Scalar(Scalar::Bool) => {
                let v = match t.tok {
                    Tok::Ident(b"true" | b"True" | b"t") if minus.is_none() => 1,
                    Tok::Ident(b"false" | b"False" | b"f") if minus.is_none() => 0,
                    Tok::Int { digits, radix } if minus.is_none() => match int_value(digits, radix)
                    {
                        Some(v @ (0 | 1)) => v,
                        _ => return Err(bad("a bool is true, false, 1 or 0", self.set)),
                    },
                    _ => return Err(bad("a bool is true, false, 1 or 0", self.set)),
                };
                self.w.varint(v);
                Ok(v != 0)
            }
            FieldType::Enum(e) => {
                let edef = self.set.enum_def(e);
                let v: i64 = match t.tok {
                    Tok::Ident(name) if minus.is_none() => {
                        let name = std::str::from_utf8(name).unwrap_or("");
                        match edef.number_of(name) {
                            Some(v) => i64::from(v),
                            None => {
                                return Err(bad(
                                    &format!(
                                        "the enum has no value of that name{}",
                                        enum_names(edef)
                                    ),
                                    self.set,
                                ));
                            }
                        }
                    }
                    Tok::Int { digits, radix } => {
                        let m = int_value(digits, radix).and_then(|m| i64::try_from(m).ok());
                        let v = match (m, minus) {
                            (Some(m), Some(_)) => Some(-m),
                            (m, None) => m,
                            (None, Some(_)) => None,
                        };
                        match v.filter(|v| i32::try_from(*v).is_ok()) {
                            // A closed enum refuses other numbers, as protoc
                            // does; not in the built-in tables, which declare
                            // some of upstream's int32 fields (ONNX's data
                            // types) as enums for their names.
                            Some(v)
                                if edef.closed
                                    && !self.set.is_builtin()
                                    && edef.name_of(v).is_none() =>
                            {
                                return Err(bad(
                                    "the enum is closed (proto2) and has no value of that number",
                                    self.set,
                                ));
                            }
                            Some(v) => v,
                            None => {
                                return Err(bad(
                                    "an enum's number is a 32-bit signed integer",
                                    self.set,
                                ));
                            }
                        }
                    }
                    _ => {
                        return Err(bad(
                            "an enum value is a name of the enum or a number",
                            self.set,
                        ));
                    }
                };
                self.w.varint(v as u64);
                Ok(v != 0)
            }
            FieldType::Scalar(s @ (Scalar::Float | Scalar::Double)) => {
                let v = match t.tok {
                    Tok::Float(lit) => float_value(lit),
                    Tok::Int { digits, radix: 10 } => float_value(digits),
                    Tok::Int { .. } => {
                        return Err(bad(
                            "a float is decimal (octal and hexadecimal numbers are integers)",
                            self.set,
                        ));
                    }
                    Tok::Ident(word) => match special_float(word) {
                        Some(true) => Some(f64::INFINITY),
                        Some(false) => Some(f64::NAN),
                        None => None,
                    },
                    _ => None,
                };
                let Some(v) = v else {
                    return Err(bad(
                        "a float is a decimal number, inf, infinity or nan",
                        self.set,
                    ));
                };
                let v = if minus.is_some() { -v } else { v };
                if s == Scalar::Float {
                    // As protobuf's runtimes: to the nearest double, then
                    // to the nearest float (infinity past the range).
                    self.w
                        .raw()
                        .extend_from_slice(&(v as f32).to_bits().to_le_bytes());
                } else {
                    self.w.raw().extend_from_slice(&v.to_bits().to_le_bytes());
                }
                Ok(v != 0.0)
            }
            FieldType::Scalar(s) => {
                let Tok::Int { digits, radix } = t.tok else {
                    let why = match t.tok {
                        Tok::Float(_) => "an integer has no fraction, exponent or f suffix",
                        _ => "an integer is expected",
                    };
                    return Err(bad(why, self.set));
                };
                let magnitude = int_value(digits, radix);
                let (lo, hi): (i128, i128) = match s {
                    Scalar::Int32 | Scalar::SInt32 | Scalar::SFixed32 => {
                        (i128::from(i32::MIN), i128::from(i32::MAX))
                    }
                    Scalar::Int64 | Scalar::SInt64 | Scalar::SFixed64 => {
                        (i128::from(i64::MIN), i128::from(i64::MAX))
                    }
                    Scalar::UInt32 | Scalar::Fixed32 => (0, i128::from(u32::MAX)),
                    _ => (0, i128::from(u64::MAX)),
                };
                let v = magnitude
                    .map(i128::from)
                    .map(|m| if minus.is_some() { -m } else { m });
                let Some(v) = v.filter(|v| (lo..=hi).contains(v)) else {
                    let why = if lo == 0 && minus.is_some() {
                        format!("an unsigned integer is 0 to {hi}")
                    } else {
                        format!("out of the range {lo} to {hi}")
                    };
                    return Err(bad(&why, self.set));
                };
                let out = self.w.raw();
                match s {
                    Scalar::SInt32 => {
                        let v = v as i32;
                        put_varint(out, u64::from(((v << 1) ^ (v >> 31)) as u32));
                    }
                    Scalar::SInt64 => {
                        let v = v as i64;
                        put_varint(out, ((v << 1) ^ (v >> 63)) as u64);
                    }
                    Scalar::Fixed32 | Scalar::SFixed32 => {
                        out.extend_from_slice(&(v as u32).to_le_bytes())
                    }
                    Scalar::Fixed64 | Scalar::SFixed64 => {
                        out.extend_from_slice(&(v as u64).to_le_bytes())
                    }
                    // int32 and int64 alike: a negative value as its 64-bit
                    // two's complement (ten bytes).
                    _ => put_varint(out, v as i64 as u64),
                }
                Ok(v != 0)
            }
            FieldType::Message(_) => Err(bad("a message is written in braces", self.set)),
        }
    }

    /// A string or bytes value: its adjacent literals, their escapes
    /// decoded, behind their length.
    fn string(&mut self, body: &'a [u8], at: usize, escapes: bool, utf8: bool) -> Result<bool> {
        self.pieces.clear();
        self.pieces.push((body, at, escapes));
        while let Tok::Str { body, escapes } = self.lx.peek()?.tok {
            let t = self.lx.next()?;
            self.pieces.push((body, t.at, escapes));
        }
        // One literal without escapes: its length is known (and it is
        // UTF-8: the lexer reads nothing else).
        if let [(body, _, false)] = self.pieces[..] {
            self.w.bytes(body);
            return Ok(!body.is_empty());
        }
        // The decoded length is at most the written one: room for that
        // length, the bytes, then the length put in (and the bytes moved
        // back when it took fewer bytes).
        let bound: usize = self.pieces.iter().map(|p| p.0.len()).sum();
        let room = varint_len(bound as u64);
        let out = self.w.raw();
        let len_at = out.len();
        out.resize(len_at + room, 0);
        let content = out.len();
        for &(body, at, escapes) in &self.pieces {
            if escapes {
                unescape_into(body, at + 1, out)?;
            } else {
                out.extend_from_slice(body);
            }
        }
        let value = out.get(content..).unwrap_or(&[]);
        if utf8 && let Err(e) = std::str::from_utf8(value) {
            return Err(DecodeError::new(
                ErrorKind::TextStringUtf8 {
                    at: e.valid_up_to(),
                },
                at as u64,
            ));
        }
        let n = value.len();
        let used = varint_len(n as u64);
        if used < room {
            out.copy_within(content.., len_at + used);
            out.truncate(len_at + used + n);
        }
        let mut len = Vec::with_capacity(10);
        put_varint(&mut len, n as u64);
        if let Some(dst) = out.get_mut(len_at..len_at + used) {
            dst.copy_from_slice(&len);
        }
        Ok(n > 0)
    }

    /// Adds the path of the open messages to an error.
    fn with_path(&self, mut e: DecodeError) -> DecodeError {
        for (k, frame) in self.stack.iter().enumerate().rev() {
            let Some((slot, index)) = frame.field else {
                continue;
            };
            let Some(parent) = k.checked_sub(1).and_then(|p| self.stack.get(p)) else {
                continue;
            };
            let def = self.set.message(parent.msg);
            let name = def.fields.get(slot).map_or("", |f| f.name.as_str());
            e = e.within(match index {
                Some(i) => format!("{}.{name}[{i}]", def.name),
                None => format!("{}.{name}", def.name),
            });
        }
        e
    }

    /// An error inside a field of the open message: marked so that the
    /// path names the field (the frames are added by `finish`).
    fn in_field(&self, e: DecodeError, slot: usize) -> DecodeError {
        let def = self.def();
        match def.fields.get(slot) {
            Some(f) => e.within(format!("{}.{}", def.name, f.name)),
            None => e,
        }
    }
}

/// Whether a field tells "set to the default" from "not set": then a
/// second occurrence is always an error.
fn has_presence(def: &MessageDef, f: &FieldDef) -> bool {
    !def.proto3 || f.proto3_optional || f.oneof.is_some() || matches!(f.ty, FieldType::Message(_))
}

/// `t` where `expected` should be.
fn unexpected(t: &Token<'_>, expected: &'static str) -> DecodeError {
    DecodeError::new(
        ErrorKind::TextSyntax {
            found: describe(t),
            expected,
        },
        t.at as u64,
    )
}

/// The first names of an enum, for a message.
fn enum_names(e: &crate::schema::EnumDef) -> String {
    let names: Vec<&str> = e.values.iter().take(8).map(|(n, _)| n.as_str()).collect();
    let more = if e.values.len() > names.len() {
        ", …"
    } else {
        ""
    };
    format!(" ({}{more})", names.join(", "))
}

/// The field of `def` whose name is closest to `name` (by edit distance,
/// ignoring case), when it is close enough to be a likely typo.
fn closest_field(def: &MessageDef, name: &str) -> Option<String> {
    let name = name.to_ascii_lowercase();
    let limit = (name.len() / 3).max(2);
    def.fields
        .iter()
        .map(|f| (edit_distance(&name, &f.name.to_ascii_lowercase()), &f.name))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n.clone())
}

/// Levenshtein distance over bytes (names are short).
fn edit_distance(a: &str, b: &str) -> usize {
    let b = b.as_bytes();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.bytes().enumerate() {
        let mut diag = row.first().copied().unwrap_or(0);
        if let Some(first) = row.first_mut() {
            *first = i + 1;
        }
        for (j, &cb) in b.iter().enumerate() {
            let up = row.get(j + 1).copied().unwrap_or(0);
            let left = row.get(j).copied().unwrap_or(0);
            let v = (diag + usize::from(ca != cb)).min(up + 1).min(left + 1);
            diag = up;
            if let Some(cell) = row.get_mut(j + 1) {
                *cell = v;
            }
        }
    }
    row.last().copied().unwrap_or(0)
}
