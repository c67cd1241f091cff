//! A decoded message written in protobuf's text format, as protobuf's
//! Python runtime writes it (`text_format.MessageToString` with its
//! defaults), so that a file converted to text and back is the same
//! message, and converting it again gives the same text: fields in
//! field-number order, two spaces of indent a level, a colon after scalar
//! fields' names only, map entries sorted by key, `Any` values expanded
//! when the tables know their type, fields of proto3 without presence left
//! out at their default, floats and strings as Python prints them
//! ([`crate::escape::python_repr_f32`], [`crate::escape::text_format_string`]).
//!
//! A field the tables do not know (kept by a lenient reading) has no name
//! to be written under: such a message is refused rather than written
//! without it.

use crate::decode::DecodeContext;
use crate::decode::{Field, Message, RawScalars, ScalarValue, Value, decode_message};
use crate::escape::{python_repr_f32, python_repr_f64, text_format_string};
use crate::schema::{FieldDef, FieldType, MessageDef, Scalar, SchemaSet};
use std::io::{self, Write};

/// Why a message was not written as text.
#[derive(Debug, thiserror::Error)]
pub enum TextWriteError {
    /// A field the schema tables do not know: the text format has no way
    /// to write it.
    #[error(
        "field {number} of {message} is not in the schema: the text format writes fields by name, and has none for it (the binary form keeps it)"
    )]
    UnknownField { number: u32, message: String },
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// The full name of `google.protobuf.Any`.
const ANY: &str = "google.protobuf.Any";

/// Writes `m` as text to `w`.
pub fn write_text_format(
    w: &mut dyn Write,
    set: &SchemaSet,
    m: &Message<'_>,
) -> Result<(), TextWriteError> {
    let mut out = Vec::with_capacity(1 << 16);
    message(w, &mut out, set, m, 0)?;
    w.write_all(&out)?;
    Ok(())
}

/// The fields of `m`, each line appended to `out` (flushed to `w` now
/// and then). The recursion follows the decoded tree, whose depth the
/// decoder's budget bounds.
fn message(
    w: &mut dyn Write,
    out: &mut Vec<u8>,
    set: &SchemaSet,
    m: &Message<'_>,
    indent: usize,
) -> Result<(), TextWriteError> {
    if let Some(f) = m.unknown().first() {
        return Err(TextWriteError::UnknownField {
            number: f.number,
            message: m.def(set).full_name.to_string(),
        });
    }
    let def = m.def(set);
    if def.full_name == ANY && any_expanded(w, out, set, m, indent)? {
        return Ok(());
    }
    let mut present: Vec<(&FieldDef, &[Field<'_>])> = m.present(set).collect();
    present.sort_by_key(|(f, _)| f.number);
    for (fdef, occurrences) in present {
        match fdef.ty {
            FieldType::Message(sub) if set.message(sub).map_entry => {
                map(w, out, set, fdef, occurrences, indent)?;
            }
            FieldType::Message(_) => {
                for f in occurrences {
                    if let Value::Message(sub) = &f.value {
                        message_field(w, out, set, fdef, sub, indent)?;
                    }
                }
            }
            FieldType::Scalar(Scalar::String | Scalar::Bytes) => {
                for f in occurrences {
                    if let Value::Bytes(b) = f.value {
                        if !fdef.repeated() && implicit(def, fdef) && b.is_empty() {
                            continue;
                        }
                        scalar_line(out, set, fdef, &Value::Bytes(b), indent);
                    }
                }
            }
            _ => {
                for f in occurrences {
                    let values = RawScalars::new(&f.value, fdef.ty.wire_type());
                    for raw in values {
                        if !fdef.repeated() && implicit(def, fdef) && is_default(fdef, raw) {
                            continue;
                        }
                        scalar_line(out, set, fdef, &Value::Scalar(raw), indent);
                    }
                }
            }
        }
        if out.len() > 1 << 16 {
            w.write_all(out)?;
            out.clear();
        }
    }
    Ok(())
}

/// A field of proto3 without presence: at its default, it is not set.
fn implicit(def: &MessageDef, f: &FieldDef) -> bool {
    def.proto3 && !f.proto3_optional && f.oneof.is_none()
}

/// Whether a scalar's raw value is its type's default (a float's bits
/// all zero: -0.0 is a value).
fn is_default(f: &FieldDef, raw: u64) -> bool {
    match f.ty {
        FieldType::Scalar(Scalar::Float) => raw as u32 == 0,
        FieldType::Scalar(Scalar::Int32 | Scalar::UInt32 | Scalar::SInt32) | FieldType::Enum(_) => {
            raw as u32 == 0
        }
        _ => raw == 0,
    }
}

fn name_of<'d>(set: &'d SchemaSet, f: &'d FieldDef) -> &'d str {
    match f.ty {
        // A group is written with its type's name.
        FieldType::Message(m) if f.group => &set.message(m).name,
        _ => &f.name,
    }
}

fn message_field(
    w: &mut dyn Write,
    out: &mut Vec<u8>,
    set: &SchemaSet,
    f: &FieldDef,
    sub: &Message<'_>,
    indent: usize,
) -> Result<(), TextWriteError> {
    open(out, name_of(set, f), indent);
    message(w, out, set, sub, indent + 2)?;
    close(out, indent);
    Ok(())
}

fn open(out: &mut Vec<u8>, name: &str, indent: usize) {
    out.resize(out.len() + indent, b' ');
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b" {\n");
}

fn close(out: &mut Vec<u8>, indent: usize) {
    out.resize(out.len() + indent, b' ');
    out.extend_from_slice(b"}\n");
}

/// `name: value`, a line.
fn scalar_line(out: &mut Vec<u8>, set: &SchemaSet, f: &FieldDef, v: &Value<'_>, indent: usize) {
    out.resize(out.len() + indent, b' ');
    out.extend_from_slice(name_of(set, f).as_bytes());
    out.extend_from_slice(b": ");
    scalar_value(out, set, f, v);
    out.push(b'\n');
}

fn scalar_value(out: &mut Vec<u8>, set: &SchemaSet, f: &FieldDef, v: &Value<'_>) {
    match *v {
        Value::Bytes(b) => {
            out.push(b'"');
            text_format_string(out, b, f.ty == FieldType::Scalar(Scalar::String));
            out.push(b'"');
        }
        Value::Scalar(raw) => {
            let text = match ScalarValue::from_raw(f.ty, raw) {
                ScalarValue::I64(v) => v.to_string(),
                ScalarValue::U64(v) => v.to_string(),
                ScalarValue::Bool(b) => b.to_string(),
                ScalarValue::F32(v) => python_repr_f32(v),
                ScalarValue::F64(v) => python_repr_f64(v),
                ScalarValue::Enum(n) => match f.ty {
                    // An int32 upstream: a number, as upstream's readers
                    // read it.
                    FieldType::Enum(_) if f.upstream_int32 => n.to_string(),
                    FieldType::Enum(e) => set
                        .enum_def(e)
                        .name_of(i64::from(n))
                        .map_or_else(|| n.to_string(), str::to_string),
                    _ => n.to_string(),
                },
            };
            out.extend_from_slice(text.as_bytes());
        }
        _ => {}
    }
}

/// A map's entries, sorted by key (as Python prints them), each with its
/// key and value; in proto3 a key or scalar value at its default is left
/// out, as Python's entry messages leave it.
fn map(
    w: &mut dyn Write,
    out: &mut Vec<u8>,
    set: &SchemaSet,
    f: &FieldDef,
    entries: &[Field<'_>],
    indent: usize,
) -> Result<(), TextWriteError> {
    let FieldType::Message(entry_id) = f.ty else {
        return Ok(());
    };
    let edef = set.message(entry_id);
    let (Some((kslot, kdef)), Some((vslot, vdef))) =
        (edef.field_by_number(1), edef.field_by_number(2))
    else {
        return Ok(());
    };
    let mut sorted: Vec<(MapKey<'_>, &Message<'_>)> = entries
        .iter()
        .filter_map(|e| match &e.value {
            Value::Message(m) => Some((map_key(kdef, m.slot(kslot).last()), m.as_ref())),
            _ => None,
        })
        .collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let proto3 = edef.proto3;
    for (_, entry) in sorted {
        if let Some(field) = entry.unknown().first() {
            return Err(TextWriteError::UnknownField {
                number: field.number,
                message: edef.full_name.to_string(),
            });
        }
        open(out, name_of(set, f), indent);
        let inner = indent + 2;
        let key = entry.slot(kslot).last().map(|k| &k.value);
        match key {
            Some(Value::Bytes(b)) if !(proto3 && b.is_empty()) => {
                scalar_line(out, set, kdef, &Value::Bytes(b), inner);
            }
            Some(&Value::Scalar(raw)) if !(proto3 && is_default(kdef, raw)) => {
                scalar_line(out, set, kdef, &Value::Scalar(raw), inner);
            }
            None if !proto3 => {
                let default = match kdef.ty {
                    FieldType::Scalar(Scalar::String | Scalar::Bytes) => Value::Bytes(&[]),
                    _ => Value::Scalar(0),
                };
                scalar_line(out, set, kdef, &default, inner);
            }
            _ => {}
        }
        let value = entry.slot(vslot).last().map(|v| &v.value);
        match (vdef.ty, value) {
            (FieldType::Message(_), Some(Value::Message(m))) => {
                message_field(w, out, set, vdef, m, inner)?;
            }
            (FieldType::Message(_), _) => {
                // An absent message value is an empty message.
                open(out, name_of(set, vdef), inner);
                close(out, inner);
            }
            (_, Some(Value::Bytes(b))) if !(proto3 && b.is_empty()) => {
                scalar_line(out, set, vdef, &Value::Bytes(b), inner);
            }
            (_, Some(&Value::Scalar(raw))) if !(proto3 && is_default(vdef, raw)) => {
                scalar_line(out, set, vdef, &Value::Scalar(raw), inner);
            }
            (_, None) if !proto3 => {
                let default = match vdef.ty {
                    FieldType::Scalar(Scalar::String | Scalar::Bytes) => Value::Bytes(&[]),
                    _ => Value::Scalar(0),
                };
                scalar_line(out, set, vdef, &default, inner);
            }
            _ => {}
        }
        close(out, indent);
    }
    Ok(())
}

/// A map key, ordered as Python orders the keys of a map: numbers by
/// value, strings by their characters (UTF-8 bytes sort the same).
#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum MapKey<'a> {
    Int(i128),
    Str(&'a [u8]),
}

fn map_key<'a>(kdef: &FieldDef, key: Option<&Field<'a>>) -> MapKey<'a> {
    match key.map(|k| &k.value) {
        Some(Value::Bytes(b)) => MapKey::Str(b),
        Some(&Value::Scalar(raw)) => match ScalarValue::from_raw(kdef.ty, raw) {
            ScalarValue::I64(v) => MapKey::Int(i128::from(v)),
            ScalarValue::U64(v) => MapKey::Int(i128::from(v)),
            ScalarValue::Bool(b) => MapKey::Int(i128::from(b)),
            ScalarValue::Enum(v) => MapKey::Int(i128::from(v)),
            ScalarValue::F32(_) | ScalarValue::F64(_) => MapKey::Int(i128::from(raw)),
        },
        _ => match kdef.ty {
            FieldType::Scalar(Scalar::String | Scalar::Bytes) => MapKey::Str(&[]),
            _ => MapKey::Int(0),
        },
    }
}

/// An `Any` whose type URL names a message of the tables, written as
/// `[URL] { ... }` (the value read as that message); false when it
/// cannot be (then it is written as its two fields).
fn any_expanded(
    w: &mut dyn Write,
    out: &mut Vec<u8>,
    set: &SchemaSet,
    m: &Message<'_>,
    indent: usize,
) -> Result<bool, TextWriteError> {
    let def = m.def(set);
    let (Some((url_slot, _)), Some((value_slot, _))) =
        (def.field_by_number(1), def.field_by_number(2))
    else {
        return Ok(false);
    };
    let url = match m.slot(url_slot).last().map(|f| &f.value) {
        Some(Value::Bytes(b)) => std::str::from_utf8(b).unwrap_or(""),
        _ => return Ok(false),
    };
    let Some((_, type_name)) = url.rsplit_once('/') else {
        return Ok(false);
    };
    let Some(id) = set.find_message(type_name) else {
        return Ok(false);
    };
    let (bytes, base) = match m.slot(value_slot).last() {
        Some(f) => match f.value {
            Value::Bytes(b) => (b, f.value_offset),
            _ => return Ok(false),
        },
        None => (&[][..], 0),
    };
    let Ok(inner) = decode_message(set, id, bytes, base, DecodeContext::lenient()) else {
        return Ok(false);
    };
    if !inner.unknown().is_empty() {
        return Ok(false);
    }
    let mut name = String::with_capacity(url.len() + 2);
    name.push('[');
    name.push_str(url);
    name.push(']');
    open(out, &name, indent);
    message(w, out, set, &inner, indent + 2)?;
    close(out, indent);
    Ok(true)
}
