//! Reading any protobuf message without its schema: every field's number and
//! wire type, and for length-delimited fields the most plausible reading
//! (nested message, text, packed numbers or plain bytes).

use crate::error::DecodeError;
use crate::wire::{FieldReader, WireType, WireValue, varint_minimal};

/// Default nesting limit; deeper LEN fields are shown as bytes.
pub const DEFAULT_MAX_DEPTH: u32 = 100;

#[derive(Debug, Clone)]
pub struct RawMessage<'a> {
    pub offset: u64,
    pub end: u64,
    pub fields: Vec<RawField<'a>>,
}

#[derive(Debug, Clone)]
pub struct RawField<'a> {
    pub number: u32,
    pub wire: WireType,
    pub offset: u64,
    pub value_offset: u64,
    pub end: u64,
    pub reading: Reading<'a>,
    /// Other readings that also fit (kind names), when the choice was close.
    pub also: Vec<Kind>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Varint,
    Fixed32,
    Fixed64,
    Message,
    Group,
    Text,
    Bytes,
    PackedVarint,
    PackedFixed32,
    PackedFixed64,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Varint => "varint",
            Kind::Fixed32 => "fixed32",
            Kind::Fixed64 => "fixed64",
            Kind::Message => "message",
            Kind::Group => "group",
            Kind::Text => "string",
            Kind::Bytes => "bytes",
            Kind::PackedVarint => "packed_varint",
            Kind::PackedFixed32 => "packed_fixed32",
            Kind::PackedFixed64 => "packed_fixed64",
        }
    }
}

#[derive(Debug, Clone)]
pub enum Reading<'a> {
    Varint(u64),
    Fixed32(u32),
    Fixed64(u64),
    Message(RawMessage<'a>),
    Group(RawMessage<'a>),
    Text(&'a str),
    Bytes(&'a [u8]),
    PackedVarint(&'a [u8]),
    /// Packed 32-bit values, shown as floats.
    PackedFixed32(&'a [u8]),
    /// Packed 64-bit values, shown as doubles.
    PackedFixed64(&'a [u8]),
}

impl Reading<'_> {
    pub fn kind(&self) -> Kind {
        match self {
            Reading::Varint(_) => Kind::Varint,
            Reading::Fixed32(_) => Kind::Fixed32,
            Reading::Fixed64(_) => Kind::Fixed64,
            Reading::Message(_) => Kind::Message,
            Reading::Group(_) => Kind::Group,
            Reading::Text(_) => Kind::Text,
            Reading::Bytes(_) => Kind::Bytes,
            Reading::PackedVarint(_) => Kind::PackedVarint,
            Reading::PackedFixed32(_) => Kind::PackedFixed32,
            Reading::PackedFixed64(_) => Kind::PackedFixed64,
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Options {
    pub max_depth: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_depth: DEFAULT_MAX_DEPTH,
        }
    }
}

/// Decodes a whole message; any fault is an error.
pub fn decode<'a>(buf: &'a [u8], base: u64, opts: Options) -> Result<RawMessage<'a>, DecodeError> {
    match decode_partial(buf, base, opts) {
        (msg, None) => Ok(msg),
        (_, Some(e)) => Err(e),
    }
}

/// Decodes as much as reads cleanly: the fields up to the first fault, and
/// the fault (with its field path, e.g. `7.1.2`).
pub fn decode_partial<'a>(
    buf: &'a [u8],
    base: u64,
    opts: Options,
) -> (RawMessage<'a>, Option<DecodeError>) {
    message(buf, base, opts.max_depth)
}

fn message<'a>(buf: &'a [u8], base: u64, depth_left: u32) -> (RawMessage<'a>, Option<DecodeError>) {
    let mut fields = Vec::new();
    let mut fault = None;
    for wire in FieldReader::new(buf, base).with_group_depth(depth_left.max(1)) {
        let wire = match wire {
            Ok(w) => w,
            Err(e) => {
                fault = Some(e);
                break;
            }
        };
        let (reading, also) = match wire.value {
            WireValue::Varint(v) => (Reading::Varint(v), Vec::new()),
            WireValue::Fixed32(v) => (Reading::Fixed32(v), Vec::new()),
            WireValue::Fixed64(v) => (Reading::Fixed64(v), Vec::new()),
            WireValue::Group(body) => {
                if depth_left <= 1 {
                    (Reading::Bytes(body), Vec::new())
                } else {
                    match message(body, wire.value_offset, depth_left - 1) {
                        (m, None) => (Reading::Group(m), Vec::new()),
                        (_, Some(e)) => {
                            fault = Some(e.within(wire.number.to_string()));
                            break;
                        }
                    }
                }
            }
            WireValue::Len(bytes) => guess_len(bytes, wire.value_offset, depth_left),
        };
        fields.push(RawField {
            number: wire.number,
            wire: wire.value.wire_type(),
            offset: wire.offset,
            value_offset: wire.value_offset,
            end: wire.end,
            reading,
            also,
        });
    }
    (
        RawMessage {
            offset: base,
            end: base + buf.len() as u64,
            fields,
        },
        fault,
    )
}

/// Whether bytes read as text a person would write: valid UTF-8 with no
/// control characters other than whitespace.
pub fn is_text(bytes: &[u8]) -> Option<&str> {
    let s = std::str::from_utf8(bytes).ok()?;
    let printable = s
        .chars()
        .all(|c| !c.is_control() || c == '\n' || c == '\r' || c == '\t');
    printable.then_some(s)
}

/// A float that numbers in files plausibly are: zero, or a finite value
/// with a magnitude between 1e-30 and 1e30.
fn plausible_f32(bits: u32) -> bool {
    let v = f32::from_bits(bits);
    v == 0.0 || (v.is_finite() && v.abs() > 1e-30 && v.abs() < 1e30)
}

fn plausible_f64(bits: u64) -> bool {
    let v = f64::from_bits(bits);
    v == 0.0 || (v.is_finite() && v.abs() > 1e-100 && v.abs() < 1e100)
}

/// Every value varint-encoded minimally, and the bytes end on a varint end.
fn packed_varints_fit(bytes: &[u8]) -> bool {
    let mut rest = bytes;
    while !rest.is_empty() {
        match varint_minimal(rest) {
            Ok((r, (_, true))) => rest = r,
            _ => return false,
        }
    }
    true
}

/// Chooses a reading for a length-delimited payload. Text a person would
/// write beats a message that happens to parse ("hi" also reads as field 13
/// = 105); a message beats numbers; plausible floats beat varints.
fn guess_len<'a>(bytes: &'a [u8], offset: u64, depth_left: u32) -> (Reading<'a>, Vec<Kind>) {
    if bytes.is_empty() {
        return (Reading::Text(""), Vec::new());
    }
    let text = is_text(bytes);
    let as_message = if depth_left > 1 {
        match message(bytes, offset, depth_left - 1) {
            (m, None) if strict_message(bytes) => Some(m),
            _ => None,
        }
    } else {
        None
    };
    let floats = bytes.len().is_multiple_of(4)
        && bytes
            .chunks_exact(4)
            .all(|c| plausible_f32(u32::from_le_bytes([c[0], c[1], c[2], c[3]])));
    let doubles = bytes.len().is_multiple_of(8)
        && bytes.chunks_exact(8).all(|c| {
            plausible_f64(u64::from_le_bytes([
                c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7],
            ]))
        });
    let varints = packed_varints_fit(bytes);

    let mut candidates: Vec<Kind> = Vec::new();
    if text.is_some() {
        candidates.push(Kind::Text);
    }
    if as_message.is_some() {
        candidates.push(Kind::Message);
    }
    if floats {
        candidates.push(Kind::PackedFixed32);
    }
    if doubles && !floats {
        candidates.push(Kind::PackedFixed64);
    }
    if varints {
        candidates.push(Kind::PackedVarint);
    }
    let chosen = candidates.first().copied().unwrap_or(Kind::Bytes);
    let also: Vec<Kind> = candidates
        .iter()
        .copied()
        .filter(|&k| k != chosen)
        .take(2)
        .collect();
    let reading = match chosen {
        Kind::Text => Reading::Text(text.unwrap_or_default()),
        Kind::Message => match as_message {
            Some(m) => Reading::Message(m),
            None => Reading::Bytes(bytes),
        },
        Kind::PackedFixed32 => Reading::PackedFixed32(bytes),
        Kind::PackedFixed64 => Reading::PackedFixed64(bytes),
        Kind::PackedVarint => Reading::PackedVarint(bytes),
        _ => Reading::Bytes(bytes),
    };
    (reading, also)
}

/// The stricter rules a nested message must meet to be read as one: keys
/// encoded minimally (real encoders never pad keys).
fn strict_message(bytes: &[u8]) -> bool {
    let mut reader = FieldReader::new(bytes, 0);
    let mut rest = bytes;
    for f in reader.by_ref() {
        let Ok(f) = f else { return false };
        match varint_minimal(rest) {
            Ok((_, (_, true))) => {}
            _ => return false,
        }
        let used = (f.end - f.offset) as usize;
        rest = rest.get(used..).unwrap_or(&[]);
    }
    true
}
