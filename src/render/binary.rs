//! A decoded message written in the wire format as protobuf's serializers
//! write it: fields in field-number order, repeated scalars packed where
//! the table says so (one run per field), every value in its shortest
//! encoding, map entries with their key and value, fields of proto3
//! without presence left out at their default, and the fields the tables
//! do not know last, as they were read.

use crate::decode::{Field, Message, RawScalars, Value};
use crate::schema::{FieldDef, FieldType, MessageDef, Scalar, SchemaSet};
use crate::wire::{WireType, WireValue, WireWriter};

/// The binary form of `m`.
pub fn write_binary(set: &SchemaSet, m: &Message<'_>) -> Vec<u8> {
    let size = usize::try_from(m.end.saturating_sub(m.offset)).unwrap_or(0);
    let mut w = WireWriter::with_capacity(size);
    message(&mut w, set, m);
    w.finish(&mut [])
}

/// The recursion follows the decoded tree, whose depth the decoder's
/// budget bounds.
fn message(w: &mut WireWriter, set: &SchemaSet, m: &Message<'_>) {
    let def = m.def(set);
    let mut present: Vec<(&FieldDef, &[Field<'_>])> = m.present(set).collect();
    present.sort_by_key(|(f, _)| f.number);
    for (fdef, occurrences) in present {
        field(w, set, implicit(def, fdef), fdef, occurrences);
    }
    for f in m.unknown() {
        unknown(w, f);
    }
}

/// One field's occurrences; `implicit`: a field without presence, left out
/// at its default.
fn field(
    w: &mut WireWriter,
    set: &SchemaSet,
    implicit: bool,
    f: &FieldDef,
    occurrences: &[Field<'_>],
) {
    match f.ty {
        FieldType::Message(sub) => {
            let entry = set.message(sub).map_entry;
            for o in occurrences {
                if let Value::Message(m) = &o.value {
                    if f.group {
                        w.key(f.number, WireType::StartGroup);
                        message(w, set, m);
                        w.key(f.number, WireType::EndGroup);
                    } else {
                        w.key(f.number, WireType::Len);
                        let open = w.open_len();
                        if entry {
                            map_entry(w, set, m);
                        } else {
                            message(w, set, m);
                        }
                        w.close_len(open);
                    }
                }
            }
        }
        FieldType::Scalar(Scalar::String | Scalar::Bytes) => {
            for o in occurrences {
                if let Value::Bytes(b) = o.value {
                    if !f.repeated() && implicit && b.is_empty() {
                        continue;
                    }
                    w.key(f.number, WireType::Len);
                    w.bytes(b);
                }
            }
        }
        _ => {
            let wire = f.ty.wire_type();
            let values = occurrences
                .iter()
                .flat_map(|o| RawScalars::new(&o.value, wire));
            if f.repeated() && f.packed {
                w.key(f.number, WireType::Len);
                let open = w.open_len();
                for raw in values {
                    scalar(w, f, raw);
                }
                w.close_len(open);
            } else {
                for raw in values {
                    if !f.repeated() && implicit && is_default(f, raw) {
                        continue;
                    }
                    w.key(f.number, wire);
                    scalar(w, f, raw);
                }
            }
        }
    }
}

/// A map entry: its key and value, both always (as protobuf writes them).
fn map_entry(w: &mut WireWriter, set: &SchemaSet, m: &Message<'_>) {
    let def = m.def(set);
    for number in [1, 2] {
        let Some((slot, f)) = def.field_by_number(number) else {
            continue;
        };
        let occurrences = m.slot(slot);
        match (occurrences.last(), f.ty) {
            (Some(last), _) => field(w, set, false, f, std::slice::from_ref(last)),
            (None, FieldType::Message(_)) => {
                w.key(number, WireType::Len);
                w.varint(0);
            }
            (None, FieldType::Scalar(Scalar::String | Scalar::Bytes)) => {
                w.key(number, WireType::Len);
                w.varint(0);
            }
            (None, ty) => {
                w.key(number, ty.wire_type());
                scalar(w, f, 0);
            }
        }
    }
    for f in m.unknown() {
        unknown(w, f);
    }
}

/// A field of proto3 without presence: at its default, it is not set.
fn implicit(def: &MessageDef, f: &FieldDef) -> bool {
    def.proto3 && !f.proto3_optional && f.oneof.is_none()
}

fn is_default(f: &FieldDef, raw: u64) -> bool {
    match f.ty {
        FieldType::Scalar(Scalar::Float) => raw as u32 == 0,
        FieldType::Scalar(Scalar::Int32 | Scalar::UInt32 | Scalar::SInt32) | FieldType::Enum(_) => {
            raw as u32 == 0
        }
        _ => raw == 0,
    }
}

/// A scalar's value in its type's shortest encoding (a 32-bit value read
/// from a longer varint written in its own width).
fn scalar(w: &mut WireWriter, f: &FieldDef, raw: u64) {
    match f.ty {
        FieldType::Enum(_) | FieldType::Scalar(Scalar::Int32) => {
            w.varint(i64::from(raw as u32 as i32) as u64);
        }
        FieldType::Scalar(Scalar::UInt32 | Scalar::SInt32) => w.varint(u64::from(raw as u32)),
        FieldType::Scalar(Scalar::Bool) => w.varint(u64::from(raw != 0)),
        FieldType::Scalar(Scalar::Fixed32 | Scalar::SFixed32 | Scalar::Float) => {
            w.raw().extend_from_slice(&(raw as u32).to_le_bytes());
        }
        FieldType::Scalar(Scalar::Fixed64 | Scalar::SFixed64 | Scalar::Double) => {
            w.raw().extend_from_slice(&raw.to_le_bytes());
        }
        _ => w.varint(raw),
    }
}

/// A field the tables do not know, as it was read.
fn unknown(w: &mut WireWriter, f: &Field<'_>) {
    let Value::Unknown(v) = &f.value else {
        return;
    };
    match *v {
        WireValue::Varint(x) => {
            w.key(f.number, WireType::Varint);
            w.varint(x);
        }
        WireValue::Fixed32(x) => {
            w.key(f.number, WireType::Fixed32);
            w.raw().extend_from_slice(&x.to_le_bytes());
        }
        WireValue::Fixed64(x) => {
            w.key(f.number, WireType::Fixed64);
            w.raw().extend_from_slice(&x.to_le_bytes());
        }
        WireValue::Len(b) => {
            w.key(f.number, WireType::Len);
            w.bytes(b);
        }
        WireValue::Group(b) => {
            w.key(f.number, WireType::StartGroup);
            w.raw().extend_from_slice(b);
            w.key(f.number, WireType::EndGroup);
        }
    }
}
