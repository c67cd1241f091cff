//! The generic decoder: walks a message's bytes against its schema table and
//! builds a tree that borrows from the input (strings, bytes and packed
//! arrays are slices, never copies). Formats validate on top of this tree.

use crate::error::{DecodeError, ErrorKind, Result};
use crate::schema::{FieldDef, FieldId, FieldType, MessageDef, MsgId, Scalar, SchemaSet};
use crate::wire::{
    FieldReader, PackedVarints, WireType, WireValue, count_fields, count_packed_varints,
};

/// How deep messages may nest before decoding stops, like protobuf's own
/// runtimes (prost and C++ both use 100).
pub const DEFAULT_DEPTH: u32 = 100;

/// The hard limit on nesting, whatever a caller (or `--max-depth`) asks
/// for: decoding and the renderers of the decoded tree take a few stack
/// frames per level, and this keeps them far below the stack's size.
pub const MAX_NESTING: u32 = 1000;

/// The depth budget and strictness, passed by value into every nested
/// message (prost's `DecodeContext`).
#[derive(Debug, Clone, Copy)]
pub struct DecodeContext {
    pub depth_left: u32,
    /// Strict: a field the schema does not know, a wrong wire type or a
    /// string that is not UTF-8 is an error (this is how formats are told
    /// apart). Lenient: such fields are kept as unknown and shown raw.
    pub strict: bool,
    /// With `strict`: still keep fields the schema does not know (formats
    /// whose schema grows, such as ModelProto, show them instead of failing).
    pub allow_unknown: bool,
    /// The depth the budget started from (for the error message).
    pub limit: u32,
}

impl DecodeContext {
    pub fn strict() -> Self {
        DecodeContext {
            depth_left: DEFAULT_DEPTH,
            strict: true,
            allow_unknown: false,
            limit: DEFAULT_DEPTH,
        }
    }
    pub fn lenient() -> Self {
        DecodeContext {
            depth_left: DEFAULT_DEPTH,
            strict: false,
            allow_unknown: true,
            limit: DEFAULT_DEPTH,
        }
    }
    /// A different depth budget, capped at [`MAX_NESTING`].
    pub fn with_max_depth(self, depth: u32) -> Self {
        let depth = depth.min(MAX_NESTING);
        DecodeContext {
            depth_left: depth,
            limit: depth,
            ..self
        }
    }
    fn enter(self, offset: u64) -> Result<Self> {
        // However the budget was set, it never exceeds the hard limit.
        let capped = self.depth_left > MAX_NESTING || self.limit >= MAX_NESTING;
        match self.depth_left.min(MAX_NESTING).checked_sub(1) {
            Some(depth_left) => Ok(DecodeContext { depth_left, ..self }),
            None if capped => Err(DecodeError::new(
                ErrorKind::NestingLimit(MAX_NESTING),
                offset,
            )),
            None => Err(DecodeError::new(ErrorKind::DepthLimit(self.limit), offset)),
        }
    }
}

/// A decoded message. Fields are grouped by their place in the schema
/// (declaration order), occurrences of one field in wire order; fields the
/// schema does not know come last.
#[derive(Debug, Clone)]
pub struct Message<'a> {
    pub def: MsgId,
    /// Absolute offset of the message's first byte.
    pub offset: u64,
    pub end: u64,
    pub fields: Vec<Field<'a>>,
}

#[derive(Debug, Clone)]
pub struct Field<'a> {
    /// Index into the message definition's `fields`; None when unknown.
    pub slot: Option<usize>,
    pub number: u32,
    /// Absolute offset of the field's key.
    pub offset: u64,
    /// Absolute offset of its value (after the key and any length prefix).
    pub value_offset: u64,
    pub end: u64,
    pub value: Value<'a>,
}

#[derive(Debug, Clone)]
pub enum Value<'a> {
    /// A varint, fixed32 or fixed64 value; its meaning comes from the type.
    Scalar(u64),
    /// Packed repeated scalars, still encoded.
    Packed(&'a [u8]),
    /// A string or bytes value.
    Bytes(&'a [u8]),
    Message(Box<Message<'a>>),
    /// A field the schema does not know (or, leniently, one with the wrong
    /// wire type), kept as it was on the wire.
    Unknown(WireValue<'a>),
}

/// Decodes `buf` (which starts at absolute offset `base`) as message `id`.
///
/// Occurrences are merged as protobuf's encoding spec requires: a scalar
/// (or string, bytes) field that is not repeated keeps its last value; of a
/// oneof only the member set last survives; repeated fields keep every
/// occurrence (packed and unpacked alike), in wire order; map entries with
/// the same key keep the last; and the occurrences of a message field that
/// is not repeated make one message, decoded from all their bytes in turn
/// (so each byte is read once, however often the field occurs).
pub fn decode_message<'a>(
    set: &SchemaSet,
    id: MsgId,
    buf: &'a [u8],
    base: u64,
    ctx: DecodeContext,
) -> Result<Message<'a>> {
    decode_segments(set, id, Segments::One(buf, base), ctx)
}

/// The bytes a message is decoded from: one slice, or the occurrences of a
/// singular message field (each `Value::Bytes` at its `value_offset`),
/// decoded as their concatenation (protobuf's merge).
#[derive(Clone, Copy)]
enum Segments<'s, 'a> {
    One(&'a [u8], u64),
    Occurrences(&'s [Field<'a>]),
}

impl<'a> Segments<'_, 'a> {
    fn len(&self) -> usize {
        match self {
            Segments::One(..) => 1,
            Segments::Occurrences(f) => f.len(),
        }
    }
    fn get(&self, i: usize) -> Option<(&'a [u8], u64)> {
        match *self {
            Segments::One(buf, base) => (i == 0).then_some((buf, base)),
            Segments::Occurrences(fields) => match fields.get(i)?.value {
                Value::Bytes(b) => Some((b, fields.get(i)?.value_offset)),
                _ => Some((&[], fields.get(i)?.value_offset)),
            },
        }
    }
}

/// Decodes the concatenation of `segments` as one message.
fn decode_segments<'a>(
    set: &SchemaSet,
    id: MsgId,
    segments: Segments<'_, 'a>,
    ctx: DecodeContext,
) -> Result<Message<'a>> {
    let def = set.message(id);
    let all = || (0..segments.len()).filter_map(|i| segments.get(i));
    // Counted first so that the list is allocated once at its exact size.
    let mut count = 0usize;
    for (buf, _) in all() {
        count = count_fields(buf).saturating_add(count);
    }
    let mut fields = crate::alloc::buffer(count as u64).map_err(|e| {
        DecodeError::new(ErrorKind::Memory(e), segments.get(0).map_or(0, |(_, b)| b))
    })?;
    for (buf, base) in all() {
        for wire in FieldReader::new(buf, base) {
            let wire = wire.map_err(|e| e.within(def.name.clone()))?;
            fields.push(read_field(set, def, wire, ctx)?);
        }
    }
    resolve_oneofs(def, &mut fields);
    sort_fields(&mut fields);
    merge_slots(set, def, &mut fields, ctx)?;
    let offset = segments.get(0).map_or(0, |(_, base)| base);
    let end = segments
        .get(segments.len().saturating_sub(1))
        .map_or(offset, |(buf, base)| base + buf.len() as u64);
    Ok(Message {
        def: id,
        offset,
        end,
        fields,
    })
}

/// Known fields by slot, unknown fields last. Wire order is offset order
/// (later occurrences sit later in the input), so an unstable sort on
/// (slot, offset) keeps occurrences in wire order without the scratch
/// buffer of a stable sort.
fn sort_fields(fields: &mut [Field<'_>]) {
    fields.sort_unstable_by_key(|f| (f.slot.unwrap_or(usize::MAX), f.offset));
}

/// One field as read from the wire. A message field that is not repeated is
/// left undecoded (its bytes as `Value::Bytes`) until all its occurrences
/// are known; [`merge_slots`] decodes them together.
fn read_field<'a>(
    set: &SchemaSet,
    def: &MessageDef,
    wire: crate::wire::WireField<'a>,
    ctx: DecodeContext,
) -> Result<Field<'a>> {
    let known = def.field_by_number(wire.number);
    let Some((slot, fdef)) = known else {
        if !ctx.allow_unknown {
            return Err(DecodeError::new(
                ErrorKind::UnknownField {
                    number: wire.number,
                    message: def.full_name.to_string(),
                },
                wire.offset,
            ));
        }
        return Ok(Field {
            slot: None,
            number: wire.number,
            offset: wire.offset,
            value_offset: wire.value_offset,
            end: wire.end,
            value: Value::Unknown(wire.value),
        });
    };
    let deferred = match (fdef.ty, fdef.repeated(), fdef.group, &wire.value) {
        (FieldType::Message(_), false, false, WireValue::Len(b)) => Some(*b),
        (FieldType::Message(_), false, true, WireValue::Group(b)) => Some(*b),
        _ => None,
    };
    let value = match deferred {
        Some(bytes) => Value::Bytes(bytes),
        None => match decode_value(set, def, fdef, &wire.value, wire.value_offset, ctx) {
            Ok(v) => v,
            Err(e) if ctx.strict => return Err(e.within(format!("{}.{}", def.name, fdef.name))),
            // Lenient: bytes that do not fit the schema are kept raw.
            Err(_) => Value::Unknown(wire.value),
        },
    };
    let slot = match value {
        Value::Unknown(_) => None,
        _ => Some(slot),
    };
    Ok(Field {
        slot,
        number: wire.number,
        offset: wire.offset,
        value_offset: wire.value_offset,
        end: wire.end,
        value,
    })
}

/// Of each oneof, only the member set last survives, and only its
/// occurrences after the last occurrence of another member (setting another
/// member clears it). `fields` is in wire order.
fn resolve_oneofs(def: &MessageDef, fields: &mut Vec<Field<'_>>) {
    let oneof_of = |f: &Field<'_>| {
        f.slot
            .and_then(|s| def.fields.get(s))
            .and_then(|d| d.oneof.as_deref())
    };
    if !def.fields.iter().any(|f| f.oneof.is_some())
        || !fields.iter().any(|f| oneof_of(f).is_some())
    {
        return;
    }
    // For each oneof: the winning slot and the index of the last occurrence
    // of another member before it (occurrences up to there are dropped).
    let mut state: std::collections::HashMap<&str, (usize, Option<usize>)> =
        std::collections::HashMap::new();
    for (i, f) in fields.iter().enumerate().rev() {
        let (Some(name), Some(slot)) = (oneof_of(f), f.slot) else {
            continue;
        };
        let entry = state.entry(name).or_insert((slot, None));
        if entry.0 != slot && entry.1.is_none() {
            entry.1 = Some(i);
        }
    }
    let mut i = 0usize;
    fields.retain(|f| {
        let here = i;
        i += 1;
        match (oneof_of(f), f.slot) {
            (Some(name), Some(slot)) => match state.get(name) {
                Some(&(winner, cut)) => slot == winner && cut.is_none_or(|c| here > c),
                None => true,
            },
            _ => true,
        }
    });
}

/// Applies the merge rules, in place, to fields sorted by slot: a singular
/// scalar keeps its last occurrence, a singular message's occurrences are
/// decoded as one message, map entries keep the last of each key, repeated
/// fields keep all.
fn merge_slots<'a>(
    set: &SchemaSet,
    def: &MessageDef,
    fields: &mut Vec<Field<'a>>,
    ctx: DecodeContext,
) -> Result<()> {
    let mut w = 0usize;
    let mut i = 0usize;
    let mut resort = false;
    while i < fields.len() {
        let slot = fields.get(i).and_then(|f| f.slot);
        let mut j = i + 1;
        while j < fields.len() && fields.get(j).and_then(|f| f.slot) == slot {
            j += 1;
        }
        let fdef = slot.and_then(|s| def.fields.get(s));
        match fdef {
            // Unknown fields and repeated fields: every occurrence.
            None => {
                for k in i..j {
                    fields.swap(w, k);
                    w += 1;
                }
            }
            Some(d) if d.repeated() && !is_map(set, def, slot) => {
                for k in i..j {
                    fields.swap(w, k);
                    w += 1;
                }
            }
            Some(_) if is_map(set, def, slot) => {
                let keep = last_of_each_key(set, fields.get(i..j).unwrap_or(&[]));
                for (k, kept) in (i..j).zip(keep) {
                    if kept {
                        fields.swap(w, k);
                        w += 1;
                    }
                }
            }
            Some(d) if fields.get(i).is_some_and(|f| is_deferred(def, f)) => {
                let run = fields.get(i..j).unwrap_or(&[]);
                match merge_messages(set, def, d, run, ctx)? {
                    Some(merged) => {
                        if let Some(slot) = fields.get_mut(w) {
                            *slot = merged;
                        }
                        w += 1;
                    }
                    None => {
                        // Leniently: occurrences that do not decode together
                        // are kept raw, among the unknown fields.
                        for k in i..j {
                            if let Some(f) = fields.get_mut(k) {
                                f.slot = None;
                                f.value = Value::Unknown(match f.value {
                                    Value::Bytes(b) if d.group => WireValue::Group(b),
                                    Value::Bytes(b) => WireValue::Len(b),
                                    _ => WireValue::Len(&[]),
                                });
                            }
                            fields.swap(w, k);
                            w += 1;
                        }
                        resort = true;
                    }
                }
            }
            // A singular scalar, string or bytes field: the last.
            Some(_) => {
                fields.swap(w, j - 1);
                w += 1;
            }
        }
        i = j;
    }
    fields.truncate(w);
    if resort {
        sort_fields(fields);
    }
    Ok(())
}

/// A singular message field still held as bytes by [`read_field`].
fn is_deferred(def: &MessageDef, f: &Field<'_>) -> bool {
    matches!(f.value, Value::Bytes(_))
        && f.slot
            .and_then(|s| def.fields.get(s))
            .is_some_and(|d| !d.repeated() && matches!(d.ty, FieldType::Message(_)))
}

fn is_map(set: &SchemaSet, def: &MessageDef, slot: Option<usize>) -> bool {
    match slot.and_then(|s| def.fields.get(s)) {
        Some(d) if d.repeated() => match d.ty {
            FieldType::Message(sub) => set.message(sub).map_entry,
            _ => false,
        },
        _ => false,
    }
}

/// Decodes the occurrences of a singular message field as one message;
/// leniently, None when they do not decode.
fn merge_messages<'a>(
    set: &SchemaSet,
    def: &MessageDef,
    fdef: &FieldDef,
    run: &[Field<'a>],
    ctx: DecodeContext,
) -> Result<Option<Field<'a>>> {
    let (FieldType::Message(sub), Some(first), Some(last)) = (fdef.ty, run.first(), run.last())
    else {
        return Ok(None);
    };
    let decoded = ctx
        .enter(first.value_offset)
        .and_then(|inner| decode_segments(set, sub, Segments::Occurrences(run), inner));
    match decoded {
        Ok(m) => Ok(Some(Field {
            slot: first.slot,
            number: first.number,
            offset: first.offset,
            value_offset: first.value_offset,
            end: last.end,
            value: Value::Message(Box::new(m)),
        })),
        Err(e) if ctx.strict => Err(e.within(format!("{}.{}", def.name, fdef.name))),
        Err(_) => Ok(None),
    }
}

/// A map key, compared as protobuf does (by value, whatever its encoding).
#[derive(PartialEq, Eq, Hash)]
enum MapKey<'a> {
    Int(i128),
    Bytes(&'a [u8]),
}

fn map_key<'a>(set: &SchemaSet, entry: &Message<'a>) -> MapKey<'a> {
    let def = set.message(entry.def);
    let Some((slot, kdef)) = def.field_by_number(1) else {
        return MapKey::Int(0);
    };
    match entry.slot(slot).last().map(|f| &f.value) {
        Some(Value::Bytes(b)) => MapKey::Bytes(b),
        Some(&Value::Scalar(raw)) => match ScalarValue::from_raw(kdef.ty, raw) {
            ScalarValue::I64(v) => MapKey::Int(i128::from(v)),
            ScalarValue::U64(v) => MapKey::Int(i128::from(v)),
            ScalarValue::Bool(b) => MapKey::Int(i128::from(b)),
            ScalarValue::Enum(v) => MapKey::Int(i128::from(v)),
            ScalarValue::F32(_) | ScalarValue::F64(_) => MapKey::Int(i128::from(raw)),
        },
        _ => match kdef.ty {
            FieldType::Scalar(Scalar::String | Scalar::Bytes) => MapKey::Bytes(&[]),
            _ => MapKey::Int(0),
        },
    }
}

/// Of the entries of one map field (wire order), which to keep: the last
/// of each key.
fn last_of_each_key(set: &SchemaSet, entries: &[Field<'_>]) -> Vec<bool> {
    let mut last = std::collections::HashMap::new();
    for (i, f) in entries.iter().enumerate() {
        if let Value::Message(m) = &f.value {
            last.insert(map_key(set, m), i);
        }
    }
    let mut keep = vec![false; entries.len()];
    for &i in last.values() {
        if let Some(k) = keep.get_mut(i) {
            *k = true;
        }
    }
    keep
}

fn decode_value<'a>(
    set: &SchemaSet,
    _def: &MessageDef,
    fdef: &FieldDef,
    wire: &WireValue<'a>,
    offset: u64,
    ctx: DecodeContext,
) -> Result<Value<'a>> {
    let expected = if fdef.group {
        WireType::StartGroup
    } else {
        fdef.ty.wire_type()
    };
    let got = wire.wire_type();
    if got == expected {
        return Ok(match *wire {
            WireValue::Varint(v) => Value::Scalar(v),
            WireValue::Fixed32(v) => Value::Scalar(u64::from(v)),
            WireValue::Fixed64(v) => Value::Scalar(v),
            WireValue::Len(bytes) => match fdef.ty {
                FieldType::Message(sub) => {
                    let inner = ctx.enter(offset)?;
                    Value::Message(Box::new(decode_message(set, sub, bytes, offset, inner)?))
                }
                FieldType::Scalar(Scalar::String) => {
                    if ctx.strict
                        && let Err(e) = std::str::from_utf8(bytes)
                    {
                        return Err(DecodeError::new(
                            ErrorKind::InvalidUtf8 {
                                at: e.valid_up_to(),
                            },
                            offset + e.valid_up_to() as u64,
                        ));
                    }
                    Value::Bytes(bytes)
                }
                _ => Value::Bytes(bytes),
            },
            WireValue::Group(body) => match fdef.ty {
                FieldType::Message(sub) => {
                    let inner = ctx.enter(offset)?;
                    Value::Message(Box::new(decode_message(set, sub, body, offset, inner)?))
                }
                _ => unreachable_group(offset)?,
            },
        });
    }
    if let (true, true, WireValue::Len(bytes)) = (fdef.repeated(), fdef.ty.packable(), wire) {
        match expected {
            WireType::Varint => {
                count_packed_varints(bytes, offset)?;
            }
            WireType::Fixed32 | WireType::Fixed64 => {
                let width = if expected == WireType::Fixed32 { 4 } else { 8 };
                if bytes.len() % width != 0 {
                    return Err(DecodeError::new(
                        ErrorKind::PackedLength {
                            len: bytes.len(),
                            width,
                        },
                        offset,
                    ));
                }
            }
            _ => {}
        }
        return Ok(Value::Packed(bytes));
    }
    Err(DecodeError::new(
        ErrorKind::WrongWireType {
            expected: expected.name(),
            got: got.name(),
        },
        offset,
    ))
}

fn unreachable_group<T>(offset: u64) -> Result<T> {
    // No schema type is written as a group, so a group never matches.
    Err(DecodeError::new(
        ErrorKind::WrongWireType {
            expected: "LEN",
            got: "SGROUP",
        },
        offset,
    ))
}

/// A scalar read by its declared type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ScalarValue {
    I64(i64),
    U64(u64),
    F32(f32),
    F64(f64),
    Bool(bool),
    Enum(i32),
}

impl ScalarValue {
    /// Interprets the raw bits of a varint or fixed value as `ty`.
    pub fn from_raw(ty: FieldType, raw: u64) -> ScalarValue {
        match ty {
            FieldType::Enum(_) => ScalarValue::Enum(raw as i32),
            FieldType::Message(_) => ScalarValue::U64(raw),
            FieldType::Scalar(s) => match s {
                Scalar::Int32 | Scalar::SFixed32 => ScalarValue::I64(i64::from(raw as u32 as i32)),
                Scalar::Int64 | Scalar::SFixed64 => ScalarValue::I64(raw as i64),
                Scalar::UInt32 | Scalar::Fixed32 => ScalarValue::U64(u64::from(raw as u32)),
                Scalar::UInt64 | Scalar::Fixed64 => ScalarValue::U64(raw),
                Scalar::SInt32 => {
                    let v = raw as u32;
                    ScalarValue::I64(i64::from(((v >> 1) as i32) ^ -((v & 1) as i32)))
                }
                Scalar::SInt64 => ScalarValue::I64(crate::wire::zigzag64(raw)),
                Scalar::Float => ScalarValue::F32(f32::from_bits(raw as u32)),
                Scalar::Double => ScalarValue::F64(f64::from_bits(raw)),
                Scalar::Bool => ScalarValue::Bool(raw != 0),
                Scalar::String | Scalar::Bytes => ScalarValue::U64(raw),
            },
        }
    }

    pub fn as_i64(self) -> Option<i64> {
        match self {
            ScalarValue::I64(v) => Some(v),
            ScalarValue::U64(v) => i64::try_from(v).ok(),
            ScalarValue::Enum(v) => Some(i64::from(v)),
            ScalarValue::Bool(b) => Some(i64::from(b)),
            _ => None,
        }
    }
}

/// The raw values of the occurrences of one scalar field, packed or not.
pub enum RawScalars<'a> {
    One(Option<u64>),
    Varints(PackedVarints<'a>),
    Fixed32(std::slice::ChunksExact<'a, u8>),
    Fixed64(std::slice::ChunksExact<'a, u8>),
}

impl<'a> RawScalars<'a> {
    pub fn new(value: &Value<'a>, wire: WireType) -> Self {
        match *value {
            Value::Scalar(v) => RawScalars::One(Some(v)),
            Value::Packed(bytes) => match wire {
                WireType::Fixed32 => RawScalars::Fixed32(bytes.chunks_exact(4)),
                WireType::Fixed64 => RawScalars::Fixed64(bytes.chunks_exact(8)),
                _ => RawScalars::Varints(PackedVarints::new(bytes)),
            },
            _ => RawScalars::One(None),
        }
    }

    /// How many values there are, without decoding them.
    pub fn count(value: &Value<'a>, wire: WireType) -> u64 {
        match *value {
            Value::Scalar(_) => 1,
            Value::Packed(bytes) => match wire {
                WireType::Fixed32 => (bytes.len() / 4) as u64,
                WireType::Fixed64 => (bytes.len() / 8) as u64,
                // Validated when decoded: every varint ends with a byte < 0x80.
                _ => bytes.iter().filter(|&&b| b < 0x80).count() as u64,
            },
            _ => 0,
        }
    }
}

impl Iterator for RawScalars<'_> {
    type Item = u64;
    fn next(&mut self) -> Option<u64> {
        match self {
            RawScalars::One(v) => v.take(),
            RawScalars::Varints(it) => it.next().flatten(),
            RawScalars::Fixed32(it) => it
                .next()
                .and_then(|c| c.try_into().ok())
                .map(|b| u64::from(u32::from_le_bytes(b))),
            RawScalars::Fixed64(it) => it
                .next()
                .and_then(|c| c.try_into().ok())
                .map(u64::from_le_bytes),
        }
    }
}

impl<'a> Message<'a> {
    pub fn def<'s>(&self, set: &'s SchemaSet) -> &'s MessageDef {
        set.message(self.def)
    }

    /// The occurrences of the field in `slot`, in wire order.
    pub fn slot(&self, slot: usize) -> &[Field<'a>] {
        let start = self
            .fields
            .partition_point(|f| f.slot.is_some_and(|s| s < slot));
        let end = self
            .fields
            .partition_point(|f| f.slot.is_some_and(|s| s <= slot));
        self.fields.get(start..end).unwrap_or(&[])
    }

    /// The occurrences of a field (empty when absent), found at the slot
    /// its constant names (see [`SchemaSet::field`]).
    pub fn field(&self, set: &SchemaSet, id: FieldId) -> &[Field<'a>] {
        match set.field(self.def, id) {
            Some((slot, _)) => self.slot(slot),
            None => &[],
        }
    }

    pub fn has(&self, set: &SchemaSet, id: FieldId) -> bool {
        !self.field(set, id).is_empty()
    }

    /// Each field present, in declaration order, with its occurrences in
    /// wire order (what the renderers walk).
    pub fn present<'f, 's>(
        &'f self,
        set: &'s SchemaSet,
    ) -> impl Iterator<Item = (&'s FieldDef, &'f [Field<'a>])> + 'f
    where
        's: 'f,
    {
        let def = self.def(set);
        let known = self.fields.partition_point(|f| f.slot.is_some());
        let mut i = 0;
        std::iter::from_fn(move || {
            let slot = self.fields.get(i).filter(|_| i < known)?.slot?;
            let group = self.slot(slot);
            i += group.len().max(1);
            Some((def.fields.get(slot)?, group))
        })
    }

    /// The fields the schema did not know.
    pub fn unknown(&self) -> &[Field<'a>] {
        let start = self.fields.partition_point(|f| f.slot.is_some());
        self.fields.get(start..).unwrap_or(&[])
    }

    /// Every value of a scalar field (all occurrences, packed or not).
    pub fn scalars<'f>(
        &'f self,
        set: &'f SchemaSet,
        id: FieldId,
    ) -> impl Iterator<Item = ScalarValue> + 'f {
        let (occurrences, fdef) = match set.field(self.def, id) {
            Some((slot, f)) => (self.slot(slot), Some(f.ty)),
            None => (&[][..], None),
        };
        occurrences.iter().flat_map(move |f| {
            let ty = fdef.unwrap_or(FieldType::Scalar(Scalar::UInt64));
            RawScalars::new(&f.value, ty.wire_type()).map(move |raw| ScalarValue::from_raw(ty, raw))
        })
    }

    /// The value of a singular scalar field: the last occurrence wins, as
    /// protobuf merges them.
    pub fn scalar(&self, set: &SchemaSet, id: FieldId) -> Option<ScalarValue> {
        self.scalars(set, id).last()
    }

    pub fn int(&self, set: &SchemaSet, id: FieldId) -> Option<i64> {
        self.scalar(set, id).and_then(ScalarValue::as_i64)
    }

    /// The bytes of a singular string or bytes field (last occurrence).
    pub fn bytes(&self, set: &SchemaSet, id: FieldId) -> Option<&'a [u8]> {
        self.field(set, id)
            .iter()
            .rev()
            .find_map(|f| match f.value {
                Value::Bytes(b) => Some(b),
                _ => None,
            })
    }

    pub fn str(&self, set: &SchemaSet, id: FieldId) -> Option<&'a str> {
        self.bytes(set, id)
            .and_then(|b| std::str::from_utf8(b).ok())
    }

    /// The nested messages of a message field, in wire order.
    pub fn messages<'f>(
        &'f self,
        set: &SchemaSet,
        id: FieldId,
    ) -> impl Iterator<Item = &'f Message<'a>> + 'f {
        self.field(set, id).iter().filter_map(|f| match &f.value {
            Value::Message(m) => Some(m.as_ref()),
            _ => None,
        })
    }

    pub fn message(&self, set: &SchemaSet, id: FieldId) -> Option<&Message<'a>> {
        self.messages(set, id).last()
    }
}
