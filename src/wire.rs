//! The protobuf wire format: varints, keys, fixed-width values and
//! length-delimited slices, parsed with nom in complete mode over borrowed
//! bytes. Nothing here knows about schemas; every error carries the absolute
//! byte offset where it happened.

use crate::error::{DecodeError, ErrorKind};
use nom::IResult;
use nom::bytes::complete::take;
use nom::error::{ErrorKind as NomKind, ParseError};
use nom::number::complete::{le_u32, le_u64};

/// The largest field number protobuf allows.
pub const MAX_FIELD_NUMBER: u64 = (1 << 29) - 1;

/// A nom error: where the parser stood (the remaining input) and why.
#[derive(Debug, Clone, PartialEq)]
pub struct WireError<'a> {
    pub input: &'a [u8],
    pub kind: ErrorKind,
}

impl<'a> ParseError<&'a [u8]> for WireError<'a> {
    fn from_error_kind(input: &'a [u8], _kind: NomKind) -> Self {
        WireError {
            input,
            kind: ErrorKind::Truncated { what: "value" },
        }
    }
    fn append(_input: &'a [u8], _kind: NomKind, other: Self) -> Self {
        other
    }
}

pub type WResult<'a, T> = IResult<&'a [u8], T, WireError<'a>>;

fn fail<T>(input: &[u8], kind: ErrorKind) -> WResult<'_, T> {
    Err(nom::Err::Error(WireError { input, kind }))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WireType {
    Varint,
    Fixed64,
    Len,
    StartGroup,
    EndGroup,
    Fixed32,
}

impl WireType {
    pub fn from_bits(bits: u8) -> Option<WireType> {
        match bits {
            0 => Some(WireType::Varint),
            1 => Some(WireType::Fixed64),
            2 => Some(WireType::Len),
            3 => Some(WireType::StartGroup),
            4 => Some(WireType::EndGroup),
            5 => Some(WireType::Fixed32),
            _ => None,
        }
    }
    pub fn bits(self) -> u8 {
        match self {
            WireType::Varint => 0,
            WireType::Fixed64 => 1,
            WireType::Len => 2,
            WireType::StartGroup => 3,
            WireType::EndGroup => 4,
            WireType::Fixed32 => 5,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            WireType::Varint => "VARINT",
            WireType::Fixed64 => "I64",
            WireType::Len => "LEN",
            WireType::StartGroup => "SGROUP",
            WireType::EndGroup => "EGROUP",
            WireType::Fixed32 => "I32",
        }
    }
}

/// A varint of at most 10 bytes whose value fits in 64 bits.
pub fn varint(input: &[u8]) -> WResult<'_, u64> {
    let mut value: u64 = 0;
    for (i, &byte) in input.iter().enumerate().take(10) {
        // The tenth byte holds bit 63 only; its continuation bit means
        // "too long" (below), any other bit overflows.
        if i == 9 && byte & 0x7f > 1 {
            return fail(input, ErrorKind::VarintOverflow);
        }
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte < 0x80 {
            let (_, rest) = input.split_at(i + 1);
            return Ok((rest, value));
        }
    }
    if input.len() >= 10 {
        fail(input, ErrorKind::VarintTooLong)
    } else {
        fail(input, ErrorKind::Truncated { what: "varint" })
    }
}

/// Like [`varint`], and also says whether the encoding was the shortest one.
pub fn varint_minimal(input: &[u8]) -> WResult<'_, (u64, bool)> {
    let (rest, value) = varint(input)?;
    let used = input.len() - rest.len();
    let minimal = used == varint_len(value);
    Ok((rest, (value, minimal)))
}

/// The number of bytes the shortest encoding of `value` takes.
pub fn varint_len(value: u64) -> usize {
    (64 - (value | 1).leading_zeros()).div_ceil(7) as usize
}

/// Decodes a zigzag-encoded (sint64) varint.
pub fn zigzag64(raw: u64) -> i64 {
    ((raw >> 1) as i64) ^ -((raw & 1) as i64)
}

/// A field key: field number 1..2^29-1 and a wire type 0..5.
pub fn key(input: &[u8]) -> WResult<'_, (u32, WireType)> {
    let (rest, raw) = varint(input)?;
    let number = raw >> 3;
    if number == 0 || number > MAX_FIELD_NUMBER {
        return fail(input, ErrorKind::FieldNumber(number));
    }
    let bits = (raw & 7) as u8;
    match WireType::from_bits(bits) {
        Some(wire) => Ok((rest, (number as u32, wire))),
        None => fail(input, ErrorKind::WireType(bits)),
    }
}

/// A length prefix followed by that many bytes; the length is compared with
/// the bytes left (in u64) before anything is sliced.
pub fn length_delimited(input: &[u8]) -> WResult<'_, &[u8]> {
    let (rest, len) = varint(input)?;
    if len > rest.len() as u64 {
        return fail(
            input,
            ErrorKind::LengthOverrun {
                len,
                left: rest.len() as u64,
            },
        );
    }
    take(len as usize)(rest)
}

pub fn fixed32(input: &[u8]) -> WResult<'_, u32> {
    le_u32(input)
        .or_else(|_: nom::Err<WireError>| fail(input, ErrorKind::Truncated { what: "fixed32" }))
}

pub fn fixed64(input: &[u8]) -> WResult<'_, u64> {
    le_u64(input)
        .or_else(|_: nom::Err<WireError>| fail(input, ErrorKind::Truncated { what: "fixed64" }))
}

/// The value of one field as it is on the wire.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WireValue<'a> {
    Varint(u64),
    Fixed64(u64),
    Fixed32(u32),
    Len(&'a [u8]),
    /// The bytes between a start-group key and its matching end-group key.
    Group(&'a [u8]),
}

impl WireValue<'_> {
    pub fn wire_type(&self) -> WireType {
        match self {
            WireValue::Varint(_) => WireType::Varint,
            WireValue::Fixed64(_) => WireType::Fixed64,
            WireValue::Fixed32(_) => WireType::Fixed32,
            WireValue::Len(_) => WireType::Len,
            WireValue::Group(_) => WireType::StartGroup,
        }
    }
}

/// One field read off the wire, with the absolute offsets of its key and of
/// its value (the payload of a LEN field, after the length prefix).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WireField<'a> {
    pub number: u32,
    pub value: WireValue<'a>,
    /// Offset of the key.
    pub offset: u64,
    /// Offset of the payload (for LEN and groups, the first byte inside).
    pub value_offset: u64,
    /// Offset one past the end of the whole field.
    pub end: u64,
}

/// Skips a group's contents up to its matching end-group key, iteratively
/// (a stack of open group numbers, never recursion), returning the contents.
fn group_body(input: &[u8], number: u32, max_depth: u32) -> WResult<'_, &[u8]> {
    let mut open: Vec<u32> = vec![number];
    let mut rest = input;
    loop {
        let before = rest;
        let (after_key, (n, wire)) = match key(rest) {
            Ok(v) => v,
            Err(nom::Err::Error(e)) if e.input.is_empty() => {
                return fail(before, ErrorKind::GroupUnclosed(number));
            }
            Err(e) => return Err(e),
        };
        rest = match wire {
            WireType::Varint => varint(after_key)?.0,
            WireType::Fixed64 => fixed64(after_key)?.0,
            WireType::Fixed32 => fixed32(after_key)?.0,
            WireType::Len => length_delimited(after_key)?.0,
            WireType::StartGroup => {
                if open.len() as u32 >= max_depth {
                    return fail(before, ErrorKind::DepthLimit(max_depth));
                }
                open.push(n);
                after_key
            }
            WireType::EndGroup => {
                if open.last() != Some(&n) {
                    return fail(
                        before,
                        ErrorKind::GroupMismatch {
                            got: n,
                            open: open.last().copied(),
                        },
                    );
                }
                open.pop();
                if open.is_empty() {
                    let body_len = input.len() - before.len();
                    let (_, body) = take(body_len)(input)?;
                    return Ok((after_key, body));
                }
                after_key
            }
        };
    }
}

/// Reads fields one after another from a message's bytes. `base` is the
/// absolute offset of `buf` in the input, so errors and fields carry
/// positions a user can find in the file.
#[derive(Debug, Clone)]
pub struct FieldReader<'a> {
    rest: &'a [u8],
    base: u64,
    start_len: usize,
    max_group_depth: u32,
    failed: bool,
}

impl<'a> FieldReader<'a> {
    pub fn new(buf: &'a [u8], base: u64) -> Self {
        FieldReader {
            rest: buf,
            base,
            start_len: buf.len(),
            max_group_depth: 100,
            failed: false,
        }
    }

    pub fn with_group_depth(mut self, depth: u32) -> Self {
        self.max_group_depth = depth.max(1);
        self
    }

    fn offset_of(&self, remaining: &[u8]) -> u64 {
        self.base + (self.start_len - remaining.len()) as u64
    }

    fn read(&mut self) -> Result<WireField<'a>, DecodeError> {
        let start = self.rest;
        let to_error = |e: nom::Err<WireError<'a>>, this: &Self| match e {
            nom::Err::Error(e) | nom::Err::Failure(e) => {
                DecodeError::new(e.kind, this.offset_of(e.input))
            }
            nom::Err::Incomplete(_) => DecodeError::new(
                ErrorKind::Truncated { what: "field" },
                this.offset_of(start),
            ),
        };
        let (after_key, (number, wire)) = key(start).map_err(|e| to_error(e, self))?;
        let value_offset = self.offset_of(after_key);
        let (rest, value, value_offset) = match wire {
            WireType::Varint => {
                let (r, v) = varint(after_key).map_err(|e| to_error(e, self))?;
                (r, WireValue::Varint(v), value_offset)
            }
            WireType::Fixed64 => {
                let (r, v) = fixed64(after_key).map_err(|e| to_error(e, self))?;
                (r, WireValue::Fixed64(v), value_offset)
            }
            WireType::Fixed32 => {
                let (r, v) = fixed32(after_key).map_err(|e| to_error(e, self))?;
                (r, WireValue::Fixed32(v), value_offset)
            }
            WireType::Len => {
                let (r, v) = length_delimited(after_key).map_err(|e| to_error(e, self))?;
                let payload_offset = self.offset_of(r) - v.len() as u64;
                (r, WireValue::Len(v), payload_offset)
            }
            WireType::StartGroup => {
                let (r, v) = group_body(after_key, number, self.max_group_depth)
                    .map_err(|e| to_error(e, self))?;
                (r, WireValue::Group(v), value_offset)
            }
            WireType::EndGroup => {
                return Err(DecodeError::new(
                    ErrorKind::GroupMismatch {
                        got: number,
                        open: None,
                    },
                    self.offset_of(start),
                ));
            }
        };
        let field = WireField {
            number,
            value,
            offset: self.offset_of(start),
            value_offset,
            end: self.offset_of(rest),
        };
        self.rest = rest;
        Ok(field)
    }
}

impl<'a> Iterator for FieldReader<'a> {
    type Item = Result<WireField<'a>, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.rest.is_empty() {
            return None;
        }
        let r = self.read();
        if r.is_err() {
            self.failed = true;
        }
        Some(r)
    }
}

/// Iterates the varints of a packed field.
pub struct PackedVarints<'a> {
    rest: &'a [u8],
}

impl<'a> PackedVarints<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        PackedVarints { rest: buf }
    }
}

impl Iterator for PackedVarints<'_> {
    type Item = Option<u64>;
    /// `Some(None)` marks a malformed varint (and ends the iteration).
    fn next(&mut self) -> Option<Option<u64>> {
        if self.rest.is_empty() {
            return None;
        }
        match varint(self.rest) {
            Ok((r, v)) => {
                self.rest = r;
                Some(Some(v))
            }
            Err(_) => {
                self.rest = &[];
                Some(None)
            }
        }
    }
}

/// How many fields a message's bytes hold, counted fast (a capacity hint:
/// it stops at the first byte that does not read, and a group counts as one
/// field however many it holds).
pub fn count_fields(buf: &[u8]) -> usize {
    // A varint's end and value, without the checks of [`varint`] (a hint
    // needs none: a bad varint makes the real reader fail anyway).
    fn skip_varint(buf: &[u8], mut pos: usize) -> Option<(usize, u64)> {
        let mut v = 0u64;
        for shift in (0..70).step_by(7) {
            let b = *buf.get(pos)?;
            pos += 1;
            v |= u64::from(b & 0x7f).checked_shl(shift).unwrap_or(0);
            if b < 0x80 {
                return Some((pos, v));
            }
        }
        None
    }
    let mut pos = 0usize;
    let mut count = 0usize;
    let mut open_groups = 0usize;
    while pos < buf.len() {
        let Some((after, key)) = skip_varint(buf, pos) else {
            break;
        };
        pos = match key & 7 {
            0 => match skip_varint(buf, after) {
                Some((p, _)) => p,
                None => break,
            },
            1 => after.saturating_add(8),
            2 => match skip_varint(buf, after) {
                Some((p, len)) => match usize::try_from(len).ok().and_then(|l| p.checked_add(l)) {
                    Some(end) => end,
                    None => break,
                },
                None => break,
            },
            3 => {
                open_groups += 1;
                after
            }
            4 => {
                let Some(n) = open_groups.checked_sub(1) else {
                    break;
                };
                open_groups = n;
                after
            }
            5 => after.saturating_add(4),
            _ => break,
        };
        if open_groups == 0 && pos <= buf.len() {
            count += 1;
        }
    }
    count
}

/// Checks a packed varint payload and counts its values.
pub fn count_packed_varints(buf: &[u8], base: u64) -> Result<u64, DecodeError> {
    let mut rest = buf;
    let mut count = 0u64;
    while !rest.is_empty() {
        match varint(rest) {
            Ok((r, _)) => rest = r,
            Err(nom::Err::Error(e)) | Err(nom::Err::Failure(e)) => {
                return Err(DecodeError::new(
                    e.kind,
                    base + (buf.len() - e.input.len()) as u64,
                ));
            }
            Err(nom::Err::Incomplete(_)) => {
                return Err(DecodeError::new(
                    ErrorKind::Truncated { what: "varint" },
                    base,
                ));
            }
        }
        count += 1;
    }
    Ok(count)
}

/// Appends the varint of `v`.
pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The wire format written in one pass: keys, varints and fixed values as
/// they come, and length-delimited fields whose length is known only at
/// their end (a nested message, a packed run). Such a length's place is
/// recorded when the field opens (in output order) and filled when it
/// closes; [`WireWriter::finish`] then puts every length in, moving each
/// stretch of the output once, from the last to the first. The result is
/// what protobuf's serializers write for the same fields in the same order
/// (shortest varints), in time and memory in proportion to the output.
#[derive(Debug, Default)]
pub struct WireWriter {
    /// The output without the lengths of open-ended fields.
    out: Vec<u8>,
    /// Where each such length goes (an offset in `out`), and the length.
    lengths: Vec<(usize, u64)>,
    /// The bytes of the lengths closed so far.
    length_bytes: usize,
}

/// A length-delimited field opened by [`WireWriter::open_len`].
#[derive(Debug, Clone, Copy)]
pub struct OpenLen {
    index: usize,
    content: usize,
    length_bytes_at_open: usize,
}

impl WireWriter {
    /// A writer whose output starts with room for `capacity` bytes.
    pub fn with_capacity(capacity: usize) -> Self {
        WireWriter {
            out: Vec::with_capacity(capacity),
            ..WireWriter::default()
        }
    }

    /// The output so far, without the lengths still to be put in: bytes
    /// of a value may be written straight into it.
    pub fn raw(&mut self) -> &mut Vec<u8> {
        &mut self.out
    }

    /// The offset the next byte is written at (before the lengths).
    pub fn position(&self) -> usize {
        self.out.len()
    }

    pub fn varint(&mut self, v: u64) {
        put_varint(&mut self.out, v);
    }

    pub fn key(&mut self, number: u32, wt: WireType) {
        put_varint(
            &mut self.out,
            (u64::from(number) << 3) | u64::from(wt.bits()),
        );
    }

    /// Bytes as a length-delimited value (its length first).
    pub fn bytes(&mut self, b: &[u8]) {
        put_varint(&mut self.out, b.len() as u64);
        self.out.extend_from_slice(b);
    }

    /// Opens a length-delimited value whose length is known at its end
    /// (after its key).
    pub fn open_len(&mut self) -> OpenLen {
        let index = self.lengths.len();
        self.lengths.push((self.out.len(), 0));
        OpenLen {
            index,
            content: self.out.len(),
            length_bytes_at_open: self.length_bytes,
        }
    }

    /// Closes it: its length is what was written since, with the lengths
    /// of the fields closed inside it.
    pub fn close_len(&mut self, open: OpenLen) {
        let len = (self.out.len() - open.content) + (self.length_bytes - open.length_bytes_at_open);
        if let Some(l) = self.lengths.get_mut(open.index) {
            l.1 = len as u64;
        }
        self.length_bytes += varint_len(len as u64);
    }

    /// The output with every length in its place (every opened field
    /// closed). `offsets`, offsets in the output as written, become offsets
    /// in the result (they must be ascending).
    pub fn finish(mut self, offsets: &mut [u64]) -> Vec<u8> {
        let mut k = 0usize;
        let mut shift = 0u64;
        for o in offsets.iter_mut() {
            while let Some(&(_, len)) = self.lengths.get(k).filter(|l| l.0 as u64 <= *o) {
                shift += varint_len(len) as u64;
                k += 1;
            }
            *o += shift;
        }
        if self.lengths.is_empty() {
            return self.out;
        }
        let raw_len = self.out.len();
        self.out.resize(raw_len + self.length_bytes, 0);
        let mut src_end = raw_len;
        let mut dst_end = raw_len + self.length_bytes;
        let mut len = Vec::with_capacity(10);
        for &(pos, value) in self.lengths.iter().rev() {
            let n = src_end - pos;
            self.out.copy_within(pos..src_end, dst_end - n);
            dst_end -= n;
            len.clear();
            put_varint(&mut len, value);
            dst_end -= len.len();
            if let Some(dst) = self.out.get_mut(dst_end..dst_end + len.len()) {
                dst.copy_from_slice(&len);
            }
            src_end = pos;
        }
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_fields_is_a_bounded_hint() {
        // varint, group holding a varint, empty LEN, fixed32, fixed64.
        let msg = [
            0x08, 0x01, 0x0b, 0x08, 0x01, 0x0c, 0x12, 0x00, 0x1d, 1, 2, 3, 4, 0x21, 1, 2, 3, 4, 5,
            6, 7, 8,
        ];
        assert_eq!(count_fields(&msg), 5);
        // Cut short: the whole fields before the cut.
        assert_eq!(count_fields(&msg[..20]), 4);
        assert_eq!(count_fields(&[0x0a, 0x05, 1]), 0);
        assert_eq!(count_fields(&[0x80; 20]), 0);
        // Never more than one field per two bytes.
        for len in 0..64 {
            let junk: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
            assert!(count_fields(&junk) <= len / 2);
        }
    }

    #[test]
    fn varint_vectors() {
        let cases: &[(&[u8], Option<u64>)] = &[
            (&[0x00], Some(0)),
            (&[0x01], Some(1)),
            (&[0x96, 0x01], Some(150)),
            (&[0xff, 0xff, 0xff, 0xff, 0x0f], Some(u32::MAX as u64)),
            (
                &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
                Some(u64::MAX),
            ),
            (
                &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02],
                None,
            ),
            (
                &[
                    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00,
                ],
                None,
            ),
            (&[0x80], None),
            (&[], None),
        ];
        for (bytes, want) in cases {
            assert_eq!(varint(bytes).ok().map(|(_, v)| v), *want, "{bytes:02x?}");
        }
    }

    #[test]
    fn varint_lengths() {
        assert_eq!(varint_len(0), 1);
        assert_eq!(varint_len(127), 1);
        assert_eq!(varint_len(128), 2);
        assert_eq!(varint_len(u64::MAX), 10);
        assert_eq!(varint_minimal(&[0x80, 0x00]).unwrap().1, (0, false));
    }

    #[test]
    fn keys_are_checked() {
        assert_eq!(key(&[0x08]).unwrap().1, (1, WireType::Varint));
        assert!(matches!(
            key(&[0x00]),
            Err(nom::Err::Error(WireError {
                kind: ErrorKind::FieldNumber(0),
                ..
            }))
        ));
        assert!(matches!(
            key(&[0x0e]),
            Err(nom::Err::Error(WireError {
                kind: ErrorKind::WireType(6),
                ..
            }))
        ));
    }

    #[test]
    fn length_is_compared_with_bytes_left() {
        let e = length_delimited(&[0x80, 0x80, 0x80, 0x80, 0x04, 1, 2]).unwrap_err();
        assert!(matches!(
            e,
            nom::Err::Error(WireError {
                kind: ErrorKind::LengthOverrun {
                    len: 1073741824,
                    left: 2
                },
                ..
            })
        ));
    }

    #[test]
    fn fields_with_offsets_and_groups() {
        // 1: varint 150; 2: LEN "hi"; 3: group { 1: 5 }; 4: fixed32
        let buf = [
            0x08, 0x96, 0x01, 0x12, 0x02, b'h', b'i', 0x1b, 0x08, 0x05, 0x1c, 0x25, 1, 0, 0, 0,
        ];
        let fields: Vec<_> = FieldReader::new(&buf, 100)
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(fields.len(), 4);
        assert_eq!(fields[1].value, WireValue::Len(b"hi"));
        assert_eq!(fields[1].value_offset, 105);
        assert_eq!(fields[2].value, WireValue::Group(&[0x08, 0x05]));
        assert_eq!(fields[3].offset, 111);
        assert_eq!(fields[3].end, 116);
    }

    #[test]
    fn unbalanced_groups_fail() {
        assert!(FieldReader::new(&[0x1b, 0x08, 0x05], 0).any(|r| r.is_err()));
        assert!(FieldReader::new(&[0x1c], 0).any(|r| r.is_err()));
        assert!(FieldReader::new(&[0x1b, 0x24], 0).any(|r| r.is_err()));
    }
}
