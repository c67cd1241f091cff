//! Reading any protobuf message without its schema: every field's number and
//! wire type, and for length-delimited fields the most plausible reading
//! (nested message, text, packed numbers or plain bytes), with the
//! runners-up when the choice is close.
//!
//! The tree is built without recursion: messages are scanned one level at a
//! time from an explicit work stack into one flat arena of fields, each
//! message a contiguous span of it. Nesting depth therefore costs heap, never
//! stack, and dropping the tree is flat. Every payload is scanned a bounded
//! number of times, so time is linear in the input for a fixed depth limit.

use crate::error::{DecodeError, ErrorKind};
use crate::wire::{self, WireType, WireValue};
use std::cell::RefCell;
use std::collections::HashMap;

/// Default nesting limit; deeper LEN fields are shown as bytes.
pub const DEFAULT_MAX_DEPTH: u32 = 100;
/// A payload this long that reads as a message is taken as one without
/// trying number readings: a kilobyte of random bytes never passes the
/// strict message rules, and skipping keeps nested data from being scanned
/// once per enclosing level.
const SURE_MESSAGE_LEN: usize = 1024;
/// Runners-up are listed only for payloads this short (and always for the
/// text-or-message choice); longer payloads are rarely truly ambiguous.
const ALSO_MAX_LEN: usize = 16;

/// A run of consecutive fields in [`RawMessage::nodes`]: one message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    pub start: usize,
    pub len: usize,
}

/// The schemaless reading of a whole input: every field of every message in
/// one arena, the root's fields in `root`, and where reading stopped early.
#[derive(Debug, Clone)]
pub struct RawMessage<'a> {
    pub offset: u64,
    pub end: u64,
    pub nodes: Vec<RawField<'a>>,
    pub root: Span,
    /// The fault that ended a partial read (truncated or corrupt input),
    /// with the path of field numbers down to it.
    pub fault: Option<DecodeError>,
}

impl<'a> RawMessage<'a> {
    /// A reading of `len` bytes at `offset` whose fields were not kept
    /// (see [`crate::formats::FormatOptions::tree`]).
    pub fn unread(offset: u64, len: u64) -> Self {
        RawMessage {
            offset,
            end: offset.saturating_add(len),
            nodes: Vec::new(),
            root: Span::default(),
            fault: None,
        }
    }

    /// The fields of one message of the tree.
    pub fn fields(&self, span: Span) -> &[RawField<'a>] {
        let end = span.start.saturating_add(span.len);
        self.nodes.get(span.start..end).unwrap_or(&[])
    }

    pub fn root_fields(&self) -> &[RawField<'a>] {
        self.fields(self.root)
    }
}

#[derive(Debug, Clone)]
pub struct RawField<'a> {
    pub number: u32,
    pub wire: WireType,
    /// Offset of the key.
    pub offset: u64,
    /// Offset of the value (for LEN, after the length prefix).
    pub value_offset: u64,
    /// One past the end of the field.
    pub end: u64,
    /// The key's bytes as they are in the input.
    pub tag: &'a [u8],
    /// The payload of a LEN field or the body of a group (empty otherwise).
    pub payload: &'a [u8],
    pub reading: Reading<'a>,
    /// Other readings that also fit, best first, when the choice was close.
    pub also: Also,
    /// The input ends inside this field (partial reads only).
    pub truncated: bool,
}

/// At most two other readings of a field, kept inline (no allocation per
/// field).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Also {
    kinds: [Kind; 2],
    len: u8,
}

impl Default for Also {
    fn default() -> Self {
        Also {
            kinds: [Kind::Bytes; 2],
            len: 0,
        }
    }
}

impl Also {
    pub fn as_slice(&self) -> &[Kind] {
        self.kinds.get(..usize::from(self.len)).unwrap_or(&[])
    }
    pub fn iter(&self) -> std::slice::Iter<'_, Kind> {
        self.as_slice().iter()
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }
    pub fn contains(&self, k: &Kind) -> bool {
        self.as_slice().contains(k)
    }
    /// Adds `k` unless two are already there.
    fn push(&mut self, k: Kind) {
        if let Some(slot) = self.kinds.get_mut(usize::from(self.len)) {
            *slot = k;
            self.len += 1;
        }
    }
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
    /// A nested message: its fields in the arena.
    Message(Span),
    Group(Span),
    Text(&'a str),
    Bytes(&'a [u8]),
    PackedVarint(&'a [u8]),
    /// Packed 32-bit values, shown as floats or as signed integers.
    PackedFixed32 {
        bytes: &'a [u8],
        float: bool,
    },
    /// Packed 64-bit values, shown as doubles or as signed integers.
    PackedFixed64 {
        bytes: &'a [u8],
        float: bool,
    },
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
            Reading::PackedFixed32 { .. } => Kind::PackedFixed32,
            Reading::PackedFixed64 { .. } => Kind::PackedFixed64,
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Messages nested deeper than this are shown as bytes (the root is
    /// level 1).
    pub max_depth: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_depth: DEFAULT_MAX_DEPTH,
        }
    }
}

/// Decodes a whole message; any fault is an error (the `--as auto` rule).
pub fn decode<'a>(buf: &'a [u8], base: u64, opts: Options) -> Result<RawMessage<'a>, DecodeError> {
    let mut tree = decode_partial(buf, base, opts);
    match tree.fault.take() {
        None => Ok(tree),
        Some(e) => Err(e),
    }
}

/// Whether [`decode`] takes the input, and its error if not, without
/// building the tree: a clean read is one clean scan of the root level
/// (a nested payload that fails the strict rules is bytes, never a fault),
/// so only a failing input is read further, for the fault's field path.
pub fn check(buf: &[u8], base: u64, opts: Options) -> Result<(), DecodeError> {
    match scan_with(buf, base, false, &GroupEnds::default(), |_| {}) {
        None => Ok(()),
        Some(_) => decode(buf, base, opts).map(|_| ()),
    }
}

/// Decodes as much as reads cleanly: every field up to the first fault, and
/// the fault with its field path (e.g. `7.1.2`). When the input ends inside
/// a LEN field, what there is of it is read on as a message where it looks
/// like one, so a truncated file shows its innermost fields.
pub fn decode_partial<'a>(buf: &'a [u8], base: u64, opts: Options) -> RawMessage<'a> {
    let max_depth = opts.max_depth.max(1);
    let ends = GroupEnds::default();
    let mut fault = scan_with(buf, base, false, &ends, |_| {});
    // The chain of messages the input ends inside, outermost first: each
    // level's bytes, whether read strictly, and the field cut off in it.
    type Level<'a> = (&'a [u8], u64, bool, Option<Scanned<'a>>);
    let mut levels: Vec<Level<'a>> = Vec::new();
    let mut path: Vec<u32> = Vec::new();
    let mut current = (buf, base, false);
    let error = loop {
        let Some(f) = fault.take() else {
            levels.push((current.0, current.1, current.2, None));
            break None;
        };
        let Some(cut) = f.overrun else {
            levels.push((current.0, current.1, current.2, None));
            break Some(with_path(f.error, &path));
        };
        path.push(cut.number);
        let deeper = u32::try_from(levels.len() + 2).is_ok_and(|l| l <= max_depth);
        let sub = if deeper && is_text(cut.payload()).is_none() {
            let mut n = 0usize;
            let sub_fault = scan_with(cut.payload(), cut.value_offset, true, &ends, |_| n += 1);
            let plausible = match &sub_fault {
                None => n > 0,
                Some(sf) if n > 0 => is_truncation(sf.error.kind()),
                // Nothing complete, just another field cut off: believed
                // only for a one-byte key over bytes that are not numbers
                // (a cut-off float array starts like that one time in eight).
                Some(sf) => {
                    sf.overrun.is_some_and(|c| c.tag.len() == 1)
                        && !(cut.payload().len() >= 4
                            && mostly(words32(cut.payload()), 10, |w| {
                                nice_float(f64::from(f32::from_bits(w)))
                            }))
                }
            };
            plausible.then_some(sub_fault)
        } else {
            None
        };
        levels.push((current.0, current.1, current.2, Some(cut)));
        match sub {
            Some(None) => {
                levels.push((cut.payload(), cut.value_offset, true, None));
                break Some(with_path(f.error, &path));
            }
            Some(Some(sub_fault)) => {
                current = (cut.payload(), cut.value_offset, true);
                fault = Some(sub_fault);
            }
            None => break Some(with_path(f.error, &path)),
        }
    };
    // Nest the chain from the innermost out.
    let mut inner: Option<Box<Work<'a>>> = None;
    while let Some((payload, at, strict, cut)) = levels.pop() {
        let depth = levels.len() as u32 + 1;
        let cut = cut.map(|c| (c, inner.take()));
        inner = Some(Box::new(Work {
            parent: None,
            depth,
            payload,
            base: at,
            strict,
            single: None,
            cut,
        }));
    }
    let mut tree = RawMessage {
        offset: base,
        end: base + buf.len() as u64,
        nodes: Vec::new(),
        root: Span::default(),
        fault: error,
    };
    if let Some(root) = inner {
        build(*root, max_depth, &mut tree, &ends);
    }
    tree
}

/// The schemaless reading of one field (a field a schema did not know):
/// a tree whose root holds just that field.
pub fn decode_field<'a>(
    number: u32,
    value: WireValue<'a>,
    offset: u64,
    value_offset: u64,
    end: u64,
    opts: Options,
) -> RawMessage<'a> {
    let field = Scanned {
        number,
        offset,
        value_offset,
        end,
        tag: &[],
        value,
    };
    let mut tree = RawMessage {
        offset,
        end,
        nodes: Vec::new(),
        root: Span::default(),
        fault: None,
    };
    let work = Work {
        parent: None,
        depth: 1,
        payload: &[],
        base: offset,
        strict: false,
        single: Some(field),
        cut: None,
    };
    build(
        work,
        opts.max_depth.max(2),
        &mut tree,
        &GroupEnds::default(),
    );
    tree
}

fn with_path(mut e: DecodeError, path: &[u32]) -> DecodeError {
    for n in path.iter().rev() {
        e = e.within(n.to_string());
    }
    e
}

/// Faults that an input cut short produces.
fn is_truncation(kind: &ErrorKind) -> bool {
    matches!(
        kind,
        ErrorKind::Truncated { .. } | ErrorKind::LengthOverrun { .. } | ErrorKind::GroupUnclosed(_)
    )
}

// ---------------------------------------------------------------------------
// Scanning one level
// ---------------------------------------------------------------------------

/// One field of one message level, as it is on the wire.
#[derive(Debug, Clone, Copy)]
struct Scanned<'a> {
    number: u32,
    offset: u64,
    value_offset: u64,
    end: u64,
    tag: &'a [u8],
    value: WireValue<'a>,
}

impl<'a> Scanned<'a> {
    /// The field as the tree holds it, read as `reading`.
    fn into_raw(self, reading: Reading<'a>, also: Also) -> RawField<'a> {
        RawField {
            number: self.number,
            wire: self.value.wire_type(),
            offset: self.offset,
            value_offset: self.value_offset,
            end: self.end,
            tag: self.tag,
            payload: self.payload(),
            reading,
            also,
            truncated: false,
        }
    }

    fn payload(&self) -> &'a [u8] {
        match self.value {
            WireValue::Len(b) | WireValue::Group(b) => b,
            _ => &[],
        }
    }
}

/// Why a scan stopped, and for a LEN field whose length runs past the end,
/// that field with the bytes there are.
struct Fault<'a> {
    error: DecodeError,
    overrun: Option<Scanned<'a>>,
}

/// A failed strict check; the reason is never shown, so it costs nothing.
fn rejected() -> ErrorKind {
    ErrorKind::NotAMessage
}

/// A varint at `pos`; `strict` also demands the shortest encoding.
fn read_varint(buf: &[u8], pos: usize, strict: bool) -> Result<(u64, usize), ErrorKind> {
    let rest = buf.get(pos..).unwrap_or(&[]);
    match wire::varint(rest) {
        Ok((r, v)) => {
            let used = rest.len() - r.len();
            if strict && used != wire::varint_len(v) {
                return Err(rejected());
            }
            Ok((v, pos + used))
        }
        Err(nom::Err::Error(e)) | Err(nom::Err::Failure(e)) => Err(e.kind),
        Err(nom::Err::Incomplete(_)) => Err(ErrorKind::Truncated { what: "varint" }),
    }
}

/// A key at `pos`: (field number, wire type, position after it).
/// The wire layer checks the field number and wire type; `strict` also
/// demands the shortest encoding of the key.
fn read_key(buf: &[u8], pos: usize, strict: bool) -> Result<(u32, WireType, usize), ErrorKind> {
    let rest = buf.get(pos..).unwrap_or(&[]);
    match wire::key(rest) {
        Ok((r, (number, wt))) => {
            let used = rest.len() - r.len();
            if strict && used != wire::varint_len((u64::from(number) << 3) | u64::from(wt.bits())) {
                return Err(rejected());
            }
            Ok((number, wt, pos + used))
        }
        Err(nom::Err::Error(e)) | Err(nom::Err::Failure(e)) => Err(e.kind),
        Err(nom::Err::Incomplete(_)) => Err(ErrorKind::Truncated { what: "varint" }),
    }
}

fn take_fixed(buf: &[u8], pos: usize, width: usize) -> Option<(u64, usize)> {
    let end = pos.checked_add(width)?;
    let bytes = buf.get(pos..end)?;
    let mut v = 0u64;
    for (i, b) in bytes.iter().enumerate() {
        v |= u64::from(*b) << (8 * i);
    }
    Some((v, end))
}

/// Skips a scalar or LEN value of wire type `wt` at `pos`; groups are
/// handled by the caller.
fn skip_value(
    buf: &[u8],
    pos: usize,
    wt: WireType,
    strict: bool,
) -> Result<(WireValue<'_>, usize, usize), (ErrorKind, usize)> {
    match wt {
        WireType::Varint => read_varint(buf, pos, strict)
            .map(|(v, n)| (WireValue::Varint(v), pos, n))
            .map_err(|k| (k, pos)),
        WireType::Fixed64 => take_fixed(buf, pos, 8)
            .map(|(v, n)| (WireValue::Fixed64(v), pos, n))
            .ok_or((ErrorKind::Truncated { what: "fixed64" }, pos)),
        WireType::Fixed32 => take_fixed(buf, pos, 4)
            .map(|(v, n)| (WireValue::Fixed32(v as u32), pos, n))
            .ok_or((ErrorKind::Truncated { what: "fixed32" }, pos)),
        WireType::Len => {
            let (len, start) = read_varint(buf, pos, strict).map_err(|k| (k, pos))?;
            let left = buf.len().saturating_sub(start);
            if len > left as u64 {
                return Err((
                    ErrorKind::LengthOverrun {
                        len,
                        left: left as u64,
                    },
                    pos,
                ));
            }
            let end = start + len as usize;
            let body = buf.get(start..end).unwrap_or(&[]);
            Ok((WireValue::Len(body), start, end))
        }
        WireType::StartGroup | WireType::EndGroup => Err((rejected(), pos)),
    }
}

/// Where the groups met so far end: the absolute offset of a group's body
/// (and whether it was matched under the strict rules) to the absolute
/// offsets of its end-group key and of the byte after it. Matching a group
/// walks every group nested in it; recording the ends of groups that hold
/// groups lets every later scan of an inner body find its end at once
/// instead of walking it again, so deeply nested groups cost linear time,
/// not quadratic. (Groups with no group inside are not recorded: walking
/// them again costs no more than their size, and they are most groups.)
#[derive(Debug, Default)]
struct GroupEnds(RefCell<HashMap<(u64, bool), (u64, u64)>>);

impl GroupEnds {
    /// A strict match holds for a lenient scan too (the rules only add).
    fn get(&self, at: u64, strict: bool) -> Option<(u64, u64)> {
        let map = self.0.borrow();
        map.get(&(at, true))
            .or_else(|| if strict { None } else { map.get(&(at, false)) })
            .copied()
    }

    fn insert(&self, at: u64, strict: bool, end: u64, next: u64) {
        self.0.borrow_mut().insert((at, strict), (end, next));
    }
}

/// The body of a group that starts at `pos` (after its key), up to its
/// matching end-group key: an explicit stack of open groups, no recursion.
fn group_at<'a>(
    buf: &'a [u8],
    base: u64,
    pos: usize,
    number: u32,
    strict: bool,
    ends: &GroupEnds,
) -> Result<(&'a [u8], usize), (ErrorKind, usize)> {
    let local = |abs: u64| usize::try_from(abs.checked_sub(base)?).ok();
    if let Some((end, next)) = ends.get(base + pos as u64, strict)
        && let (Some(end), Some(next)) = (local(end), local(next))
        && let Some(body) = buf.get(pos..end)
    {
        return Ok((body, next));
    }
    // Open groups: field number, where the body starts, whether a group
    // was met inside it.
    let mut open: Vec<(u32, usize, bool)> = vec![(number, pos, false)];
    let mut p = pos;
    loop {
        if p >= buf.len() {
            return Err((ErrorKind::GroupUnclosed(number), p));
        }
        let (n, wt, next) = read_key(buf, p, strict).map_err(|k| (k, p))?;
        match wt {
            WireType::StartGroup => {
                if let Some(top) = open.last_mut() {
                    top.2 = true;
                }
                if let Some((end, after)) = ends.get(base + next as u64, strict)
                    && let (Some(_), Some(after)) = (local(end), local(after))
                    && after <= buf.len()
                {
                    // Matched before: skip it whole.
                    p = after;
                    continue;
                }
                open.push((n, next, false));
                p = next;
            }
            WireType::EndGroup => {
                if open.last().map(|o| o.0) != Some(n) {
                    return Err((
                        ErrorKind::GroupMismatch {
                            got: n,
                            open: open.last().map(|o| o.0),
                        },
                        p,
                    ));
                }
                let Some((_, body_start, holds_groups)) = open.pop() else {
                    return Err((ErrorKind::GroupUnclosed(number), p));
                };
                if holds_groups {
                    ends.insert(
                        base + body_start as u64,
                        strict,
                        base + p as u64,
                        base + next as u64,
                    );
                }
                if open.is_empty() {
                    return Ok((buf.get(pos..p).unwrap_or(&[]), next));
                }
                p = next;
            }
            _ => p = skip_value(buf, next, wt, strict)?.2,
        }
    }
}

/// Reads one level of a message: its fields, and the fault that stopped the
/// read, if any. `strict` is the test a nested payload must pass to be read
/// as a message: minimal varints, valid keys, balanced groups, every byte
/// used.
fn scan_with<'a>(
    buf: &'a [u8],
    base: u64,
    strict: bool,
    ends: &GroupEnds,
    mut each: impl FnMut(Scanned<'a>),
) -> Option<Fault<'a>> {
    let mut pos = 0usize;
    let at = |p: usize| base + p as u64;
    while pos < buf.len() {
        let fail = |kind, p| Fault {
            error: DecodeError::new(kind, at(p)),
            overrun: None,
        };
        let (number, wt, after_key) = match read_key(buf, pos, strict) {
            Ok(k) => k,
            Err(kind) => return Some(fail(kind, pos)),
        };
        let tag = buf.get(pos..after_key).unwrap_or(&[]);
        let (value, value_pos, end) = match wt {
            WireType::StartGroup => match group_at(buf, base, after_key, number, strict, ends) {
                Ok((body, end)) => (WireValue::Group(body), after_key, end),
                Err((kind, p)) => return Some(fail(kind, p)),
            },
            WireType::EndGroup => {
                let kind = ErrorKind::GroupMismatch {
                    got: number,
                    open: None,
                };
                return Some(fail(kind, pos));
            }
            _ => match skip_value(buf, after_key, wt, strict) {
                Ok(v) => v,
                Err((kind, p)) => {
                    let overrun = match (&kind, read_varint(buf, after_key, false)) {
                        (ErrorKind::LengthOverrun { .. }, Ok((_, start))) => Some(Scanned {
                            number,
                            offset: at(pos),
                            value_offset: at(start),
                            end: at(buf.len()),
                            tag,
                            value: WireValue::Len(buf.get(start..).unwrap_or(&[])),
                        }),
                        _ => None,
                    };
                    let error = DecodeError::new(kind, at(p));
                    return Some(Fault { error, overrun });
                }
            },
        };
        each(Scanned {
            number,
            offset: at(pos),
            value_offset: at(value_pos),
            end: at(end),
            tag,
            value,
        });
        pos = end;
    }
    None
}

/// [`scan_with`], collecting the fields.
fn scan<'a>(
    buf: &'a [u8],
    base: u64,
    strict: bool,
    ends: &GroupEnds,
) -> (Vec<Scanned<'a>>, Option<Fault<'a>>) {
    let mut out = Vec::new();
    let fault = scan_with(buf, base, strict, ends, |f| out.push(f));
    (out, fault)
}

/// The fields of a payload if it reads as a message under the strict rules
/// (for previews of the "message" runner-up).
pub fn message_fields(payload: &[u8]) -> Option<Vec<(u32, WireValue<'_>)>> {
    match scan(payload, 0, true, &GroupEnds::default()) {
        (fields, None) => Some(fields.iter().map(|f| (f.number, f.value)).collect()),
        _ => None,
    }
}

// ---------------------------------------------------------------------------
// Guessing
// ---------------------------------------------------------------------------

/// Whether bytes read as text a person would write: valid UTF-8 with no
/// control characters other than whitespace.
pub fn is_text(bytes: &[u8]) -> Option<&str> {
    // An ASCII control byte is a control character wherever it is: looked
    // for first, it ends the test at the first one (a nested message's
    // length bytes usually) instead of after validating the whole payload.
    if bytes
        .iter()
        .any(|&b| (b < 0x20 && !matches!(b, b'\n' | b'\r' | b'\t')) || b == 0x7f)
    {
        return None;
    }
    let s = std::str::from_utf8(bytes).ok()?;
    let printable = s
        .chars()
        .all(|c| !c.is_control() || c == '\n' || c == '\r' || c == '\t');
    printable.then_some(s)
}

/// Valid UTF-8 that is mostly printable: no NUL, and at most one control
/// character in 32 (long doc strings carry the odd escape code).
fn is_mostly_text(bytes: &[u8]) -> Option<&str> {
    if bytes.len() < 32 {
        return None;
    }
    // UTF-8 first: it fails within a few bytes of where a nested message's
    // length is (a varint of two bytes is never UTF-8), where a search for
    // NUL would run to the innermost level, once per level.
    let s = std::str::from_utf8(bytes).ok()?;
    if bytes.contains(&0) {
        return None;
    }
    let control = s
        .chars()
        .filter(|&c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
        .count();
    (control.saturating_mul(32) <= s.len()).then_some(s)
}

/// A number a data file plausibly holds: zero, or a finite magnitude in
/// 1e-8..1e8. Random bits pass about one time in five; model weights and
/// activations nearly always.
fn nice_float(v: f64) -> bool {
    let a = v.abs();
    a == 0.0 || (1e-8..=1e8).contains(&a)
}

/// Whether most values pass `nice` (all of them when there are few),
/// stopping as soon as too many fail.
fn mostly<T>(
    values: impl ExactSizeIterator<Item = T>,
    bad_share: usize,
    nice: impl Fn(T) -> bool,
) -> bool {
    let n = values.len();
    let allowed = if n >= 10 { n / bad_share } else { 0 };
    let mut bad = 0usize;
    for v in values {
        if !nice(v) {
            bad += 1;
            if bad > allowed {
                return false;
            }
        }
    }
    true
}

fn words32(b: &[u8]) -> impl ExactSizeIterator<Item = u32> + '_ {
    b.chunks_exact(4).map(|c| {
        c.iter()
            .rev()
            .fold(0u32, |acc, &x| (acc << 8) | u32::from(x))
    })
}

fn words64(b: &[u8]) -> impl ExactSizeIterator<Item = u64> + '_ {
    b.chunks_exact(8).map(|c| {
        c.iter()
            .rev()
            .fold(0u64, |acc, &x| (acc << 8) | u64::from(x))
    })
}

/// Packed varints: every value minimally encoded, the bytes ending on a
/// value's end, and values of the sizes real lists hold (small numbers or
/// negative 32-bit ones); random bytes mostly decode to large values.
fn varints_fit(bytes: &[u8]) -> bool {
    let mut pos = 0usize;
    let mut count = 0usize;
    let mut bad = 0usize;
    while pos < bytes.len() {
        match read_varint(bytes, pos, true) {
            Ok((v, next)) => {
                pos = next;
                count += 1;
                let signed = v as i64;
                if !(v < 1 << 16 || (-(1i64 << 31)..0).contains(&signed)) {
                    bad += 1;
                }
            }
            Err(_) => return false,
        }
    }
    bad == 0 || (count >= 20 && bad * 20 <= count)
}

/// What each reading makes of one LEN payload.
struct Fits {
    len: usize,
    text: bool,
    /// Printable but short and not plain ASCII, or short with a tab or
    /// newline: as likely to be a float ("\nף<" is 0.01f) as text.
    weak_text: bool,
    mostly_text: bool,
    /// The payload reads as a message (its fields are read again when the
    /// message is placed in the tree, so none are kept here).
    message: bool,
    /// It reads as a message but is nested past the depth limit.
    too_deep: bool,
    f32: bool,
    f64: bool,
    /// Every other 32-bit word is zero: doubles with short mantissas, which
    /// also pass as floats.
    even_words_zero: bool,
    i32: bool,
    i64: bool,
    varint: bool,
}

fn fits(payload: &[u8], offset: u64, nested_ok: bool, ends: &GroupEnds) -> Fits {
    let len = payload.len();
    let text = is_text(payload);
    let mostly_text = text.is_none() && is_mostly_text(payload).is_some();
    let (message, too_deep) = match scan_with(payload, offset, true, ends, |_| {}) {
        None if nested_ok => (true, false),
        None => (false, true),
        Some(_) => (false, false),
    };
    let weak_text =
        text.is_some_and(|s| s.len() < 8 && s.bytes().any(|b| !(0x20..0x7f).contains(&b)));
    let mut f = Fits {
        len,
        text: text.is_some(),
        weak_text,
        mostly_text,
        message,
        too_deep,
        f32: false,
        f64: false,
        even_words_zero: false,
        i32: false,
        i64: false,
        varint: false,
    };
    let sure_message = (f.message || too_deep) && len > SURE_MESSAGE_LEN;
    if sure_message || (f.text && !weak_text && len > ALSO_MAX_LEN) {
        return f;
    }
    if len.is_multiple_of(4) {
        f.f32 = mostly(words32(payload), 10, |w| {
            nice_float(f64::from(f32::from_bits(w)))
        });
        f.i32 = len >= 8 && words32(payload).all(|w| (w as i32).unsigned_abs() < 1 << 24);
        f.even_words_zero = words32(payload).step_by(2).all(|w| w == 0)
            && words32(payload).skip(1).step_by(2).any(|w| w != 0);
    }
    if len.is_multiple_of(8) {
        f.f64 = mostly(words64(payload), 10, |w| nice_float(f64::from_bits(w)));
        f.i64 = len >= 8 && words64(payload).all(|w| i32::try_from(w as i64).is_ok());
    }
    f.varint = varints_fit(payload);
    f
}

/// The reading chosen for every occurrence of one field number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Choice {
    Text,
    WeakText,
    Message,
    MostlyText,
    F32,
    F64,
    I64,
    I32,
    Varint,
    Bytes,
}

impl Choice {
    fn kind(self) -> Kind {
        match self {
            Choice::Text | Choice::WeakText | Choice::MostlyText => Kind::Text,
            Choice::Message => Kind::Message,
            Choice::F32 | Choice::I32 => Kind::PackedFixed32,
            Choice::F64 | Choice::I64 => Kind::PackedFixed64,
            Choice::Varint => Kind::PackedVarint,
            Choice::Bytes => Kind::Bytes,
        }
    }

    fn fits(self, f: &Fits) -> bool {
        match self {
            Choice::Text => f.text && !f.weak_text,
            Choice::WeakText => f.text,
            Choice::Message => f.message,
            Choice::MostlyText => (f.text && !f.weak_text) || f.mostly_text,
            Choice::F32 => f.f32,
            Choice::F64 => f.f64,
            Choice::I64 => f.i64,
            Choice::I32 => f.i32,
            Choice::Varint => f.varint,
            Choice::Bytes => true,
        }
    }
}

/// What every occurrence of one field number in one message level fits,
/// folded one payload at a time: the reading of a field number is decided
/// on this alone, so a level can be read again a page at a time without
/// keeping every payload's [`Fits`].
#[derive(Debug, Clone, Copy)]
struct Agreed {
    /// Occurrences with a payload (empty payloads fit every reading).
    present: usize,
    /// Some occurrence, empty or not, reads as a message.
    any_message: bool,
    /// Every present payload reads as a message nested past the limit.
    all_too_deep: bool,
    /// Bit `c as u16`: every present payload fits choice `c`.
    all_fit: u16,
    all_even_words_zero: bool,
    /// Every present payload is at most [`ALSO_MAX_LEN`] bytes.
    all_short: bool,
    /// Every present payload is at most 4 bytes.
    all_tiny: bool,
}

/// Every choice, in the order of [`Choice`]'s discriminants.
const CHOICES: [Choice; 10] = [
    Choice::Text,
    Choice::WeakText,
    Choice::Message,
    Choice::MostlyText,
    Choice::F32,
    Choice::F64,
    Choice::I64,
    Choice::I32,
    Choice::Varint,
    Choice::Bytes,
];

impl Default for Agreed {
    fn default() -> Self {
        Agreed {
            present: 0,
            any_message: false,
            all_too_deep: true,
            all_fit: u16::MAX,
            all_even_words_zero: true,
            all_short: true,
            all_tiny: true,
        }
    }
}

impl Agreed {
    fn add(&mut self, f: &Fits) {
        self.any_message |= f.message;
        if f.len == 0 {
            return;
        }
        self.present = self.present.saturating_add(1);
        self.all_too_deep &= f.too_deep;
        for c in CHOICES {
            if !c.fits(f) {
                self.all_fit &= !(1u16 << c as u16);
            }
        }
        self.all_even_words_zero &= f.even_words_zero;
        self.all_short &= f.len <= ALSO_MAX_LEN;
        self.all_tiny &= f.len <= 4;
    }

    fn all(&self, c: Choice) -> bool {
        self.all_fit & (1u16 << c as u16) != 0
    }
}

/// One reading for all occurrences of a field number (empty payloads fit
/// every reading), in order of preference: text a person would write beats
/// a message that happens to parse ("hi" is also field 13 = 105); a message
/// beats numbers; plausible floats beat integers; doubles beat floats when
/// the float reading shows the telltale zero low words; fixed-width
/// integers beat varints (their varint reading is mostly zeros).
fn decide(agreed: &Agreed) -> (Choice, Also) {
    if agreed.present == 0 {
        let mut also = Also::default();
        if agreed.any_message {
            also.push(Kind::Message);
        }
        return (Choice::Text, also);
    }
    if agreed.all_too_deep {
        return (Choice::Bytes, Also::default());
    }
    let all = |c: Choice| agreed.all(c);
    let prefer_f64 = all(Choice::F64) && (!all(Choice::F32) || agreed.all_even_words_zero);
    let mut order = vec![Choice::Text, Choice::Message, Choice::MostlyText];
    if prefer_f64 {
        order.extend([Choice::F64, Choice::F32]);
    } else {
        order.extend([Choice::F32, Choice::F64]);
    }
    order.extend([Choice::I64, Choice::I32, Choice::WeakText, Choice::Varint]);
    let fitting: Vec<Choice> = order.into_iter().filter(|&c| all(c)).collect();
    let chosen = fitting.first().copied().unwrap_or(Choice::Bytes);
    let short = agreed.all_short;
    let mut also = Also::default();
    let is_text = matches!(chosen, Choice::Text | Choice::WeakText | Choice::MostlyText);
    for &c in fitting.iter().skip(1) {
        // Short text, and most small messages, also read as a few varints:
        // not worth saying but for the tiniest payloads.
        if is_text && c != Choice::Message {
            continue;
        }
        let tiny = agreed.all_tiny;
        if chosen == Choice::Message && c == Choice::Varint && !tiny {
            continue;
        }
        let text_or_message = matches!(chosen, Choice::Text | Choice::Message)
            && matches!(c, Choice::Text | Choice::Message);
        let k = c.kind();
        if (short || text_or_message) && k != chosen.kind() && !also.contains(&k) && also.len() < 2
        {
            also.push(k);
        }
    }
    (chosen, also)
}

/// The reading of one LEN payload once its field number's reading is
/// chosen; `message` says whether this payload itself reads as a message
/// (placed later: its span is [`PENDING`]).
fn len_reading(choice: Choice, message: bool, b: &[u8]) -> Reading<'_> {
    match choice {
        Choice::Text | Choice::WeakText | Choice::MostlyText => {
            Reading::Text(std::str::from_utf8(b).unwrap_or_default())
        }
        Choice::Message if b.is_empty() => Reading::Message(Span::default()),
        Choice::Message if message => Reading::Message(PENDING),
        Choice::Message => Reading::Bytes(b),
        Choice::F32 => Reading::PackedFixed32 {
            bytes: b,
            float: true,
        },
        Choice::I32 => Reading::PackedFixed32 {
            bytes: b,
            float: false,
        },
        Choice::F64 => Reading::PackedFixed64 {
            bytes: b,
            float: true,
        },
        Choice::I64 => Reading::PackedFixed64 {
            bytes: b,
            float: false,
        },
        Choice::Varint => Reading::PackedVarint(b),
        Choice::Bytes => Reading::Bytes(b),
    }
}

/// The runners-up shown for one payload of a field number (none for an
/// empty payload, unless the reading is text).
fn also_for(choice: Choice, also: Also, b: &[u8]) -> Also {
    if b.is_empty() && choice != Choice::Text {
        Also::default()
    } else {
        also
    }
}

// ---------------------------------------------------------------------------
// Building the tree
// ---------------------------------------------------------------------------

/// A message level waiting to be placed in the arena: its bytes, read
/// again when it is placed (nothing of it is kept while it waits).
struct Work<'a> {
    /// The node whose reading this message is (None: the root).
    parent: Option<usize>,
    /// Nesting level (the root is 1).
    depth: u32,
    payload: &'a [u8],
    base: u64,
    /// Read under the strict rules (a nested LEN payload) or not (the root,
    /// a group body).
    strict: bool,
    /// Instead of reading `payload`: this one field (a field a schema did
    /// not know).
    single: Option<Scanned<'a>>,
    /// A last LEN field cut off by the end of the input, and what was read
    /// of it as a message.
    cut: Option<(Scanned<'a>, Option<Box<Work<'a>>>)>,
}

/// The span of a nested message not placed yet.
const PENDING: Span = Span {
    start: usize::MAX,
    len: 0,
};

enum Frame<'a> {
    Level(Work<'a>),
    /// The nested messages of nodes `next..end` (one level), still to place.
    Children {
        next: usize,
        end: usize,
        depth: u32,
    },
}

/// Places the tree in the arena, depth first: the stack holds one frame per
/// level of nesting (plus the links of a truncation chain), never one per
/// waiting message, and a level's fields are read straight into the arena.
fn build<'a>(root: Work<'a>, max_depth: u32, tree: &mut RawMessage<'a>, ends: &GroupEnds) {
    let mut stack = vec![Frame::Level(root)];
    while let Some(frame) = stack.pop() {
        match frame {
            Frame::Level(work) => build_level(work, max_depth, tree, &mut stack, ends),
            Frame::Children { next, end, depth } => {
                let pending = (next..end).find(|&i| {
                    tree.nodes.get(i).is_some_and(|n| {
                        matches!(
                            n.reading,
                            Reading::Message(PENDING) | Reading::Group(PENDING)
                        )
                    })
                });
                let Some(i) = pending else { continue };
                stack.push(Frame::Children {
                    next: i + 1,
                    end,
                    depth,
                });
                if let Some(node) = tree.nodes.get(i) {
                    stack.push(Frame::Level(Work {
                        parent: Some(i),
                        depth: depth.saturating_add(1),
                        payload: node.payload,
                        base: node.value_offset,
                        strict: matches!(node.reading, Reading::Message(_)),
                        single: None,
                        cut: None,
                    }));
                }
            }
        }
    }
}

/// Room for `more` nodes, growing by a quarter at least (not doubling: the
/// arena is most of the memory a schemaless reading takes).
fn reserve(nodes: &mut Vec<RawField<'_>>, more: usize) {
    if nodes.capacity() - nodes.len() < more {
        nodes.reserve_exact(more.max(nodes.len() / 4));
    }
}

fn build_level<'a>(
    work: Work<'a>,
    max_depth: u32,
    tree: &mut RawMessage<'a>,
    stack: &mut Vec<Frame<'a>>,
    ends: &GroupEnds,
) {
    let nested_ok = work.depth < max_depth;
    let start = tree.nodes.len();
    let mut count = usize::from(work.cut.is_some());
    match work.single {
        Some(_) => count += 1,
        None => {
            scan_with(work.payload, work.base, work.strict, ends, |_| count += 1);
        }
    }
    reserve(&mut tree.nodes, count);
    // The LEN fields of the level with what each payload fits, decided on
    // per field number once the level is read.
    let mut lens: Vec<(u32, usize, Fits)> = Vec::new();
    let nodes = &mut tree.nodes;
    let mut place = |f: Scanned<'a>| {
        let idx = nodes.len();
        let reading = match f.value {
            WireValue::Varint(v) => Reading::Varint(v),
            WireValue::Fixed32(v) => Reading::Fixed32(v),
            WireValue::Fixed64(v) => Reading::Fixed64(v),
            WireValue::Group(_) if nested_ok => Reading::Group(PENDING),
            WireValue::Group(body) => Reading::Bytes(body),
            WireValue::Len(b) => {
                lens.push((f.number, idx, fits(b, f.value_offset, nested_ok, ends)));
                Reading::Bytes(b)
            }
        };
        nodes.push(f.into_raw(reading, Also::default()));
    };
    match work.single {
        Some(f) => place(f),
        None => {
            scan_with(work.payload, work.base, work.strict, ends, &mut place);
        }
    }
    // One reading per field number.
    lens.sort_unstable_by_key(|&(number, i, _)| (number, i));
    for same in lens.chunk_by(|a, b| a.0 == b.0) {
        let mut agreed = Agreed::default();
        for (_, _, fit) in same {
            agreed.add(fit);
        }
        let (choice, also) = decide(&agreed);
        for (_, i, fit) in same {
            let Some(node) = tree.nodes.get_mut(*i) else {
                continue;
            };
            let b = node.payload;
            node.reading = len_reading(choice, fit.message, b);
            node.also = also_for(choice, also, b);
        }
    }
    drop(lens);
    if let Some((f, inner)) = work.cut {
        let idx = tree.nodes.len();
        let reading = match inner {
            Some(mut inner) => {
                inner.parent = Some(idx);
                stack.push(Frame::Level(*inner));
                // Placed by the inner level (not PENDING: it is not read
                // again as a child of this level).
                Reading::Message(Span::default())
            }
            None => match is_text(f.payload()) {
                Some(s) if !s.is_empty() => Reading::Text(s),
                _ => Reading::Bytes(f.payload()),
            },
        };
        tree.nodes.push(RawField {
            number: f.number,
            wire: WireType::Len,
            offset: f.offset,
            value_offset: f.value_offset,
            end: f.end,
            tag: f.tag,
            payload: f.payload(),
            reading,
            also: Also::default(),
            truncated: true,
        });
    }
    let span = Span {
        start,
        len: tree.nodes.len() - start,
    };
    match work.parent {
        None => tree.root = span,
        Some(p) => {
            if let Some(node) = tree.nodes.get_mut(p) {
                node.reading = match node.reading {
                    Reading::Group(_) => Reading::Group(span),
                    _ => Reading::Message(span),
                };
            }
        }
    }
    stack.push(Frame::Children {
        next: span.start,
        end: span.start + span.len,
        depth: work.depth,
    });
}

// ---------------------------------------------------------------------------
// One level at a time
// ---------------------------------------------------------------------------

/// The rules a message level's bytes are read under: the root and group
/// bodies the lenient ones, a nested LEN payload the strict ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BranchKind {
    Root,
    Message,
    Group,
}

impl BranchKind {
    pub fn name(self) -> &'static str {
        match self {
            BranchKind::Root => "root",
            BranchKind::Message => "message",
            BranchKind::Group => "group",
        }
    }
}

/// Where one message level of the reading is: its bytes, the rules they
/// are read under and how deep it is. A level is read from its own bytes
/// alone (a field number's reading is decided within its level), so this
/// address is all it takes to read any level again, a page at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Branch {
    pub kind: BranchKind,
    /// Nesting level (the root is 1).
    pub depth: u32,
    /// Absolute offset of the level's first byte.
    pub offset: u64,
    pub len: u64,
}

impl Branch {
    /// The whole input as the root message.
    pub fn root(len: u64) -> Branch {
        Branch {
            kind: BranchKind::Root,
            depth: 1,
            offset: 0,
            len,
        }
    }

    /// `KIND:DEPTH:OFFSET:LEN`, as [`Branch::parse`] reads it.
    pub fn address(&self) -> String {
        format!(
            "{}:{}:{}:{}",
            self.kind.name(),
            self.depth,
            self.offset,
            self.len
        )
    }

    /// Reads an [`address`](Branch::address).
    pub fn parse(s: &str) -> Option<Branch> {
        let mut parts = s.split(':');
        let kind = match parts.next()? {
            "root" => BranchKind::Root,
            "message" => BranchKind::Message,
            "group" => BranchKind::Group,
            _ => return None,
        };
        let depth = parts.next()?.parse().ok()?;
        let offset = parts.next()?.parse().ok()?;
        let len = parts.next()?.parse().ok()?;
        if parts.next().is_some() {
            return None;
        }
        Some(Branch {
            kind,
            depth,
            offset,
            len,
        })
    }
}

/// One message level read on its own: the reading of each of its field
/// numbers, decided as [`decode`] decides it, without keeping its fields.
/// Memory is the number of distinct LEN field numbers, whatever the
/// level's size; each call of [`Level::page`] reads the level's bytes
/// again.
pub struct Level<'a> {
    pub branch: Branch,
    bytes: &'a [u8],
    opts: Options,
    nested_ok: bool,
    /// The reading chosen for each LEN field number.
    readings: HashMap<u32, (Choice, Also)>,
    /// How many fields the level holds.
    pub total: usize,
    ends: GroupEnds,
}

/// A run of consecutive fields of one level.
pub struct Page<'a> {
    /// The place in the level of the first one.
    pub first: usize,
    /// Nested messages and groups have an empty span: their fields are read
    /// with [`Level::child`].
    pub fields: Vec<RawField<'a>>,
    /// The offset of the field after the last one, if any.
    pub next: Option<u64>,
}

/// Reads the level `branch` names in `input` (the whole input, offsets
/// absolute). Fails where the bytes are not that level: out of the input,
/// deeper than the limit, or not a message under the level's rules.
pub fn read_level(input: &[u8], branch: Branch, opts: Options) -> Result<Level<'_>, DecodeError> {
    let max_depth = opts.max_depth.max(1);
    let left = (input.len() as u64).saturating_sub(branch.offset);
    let bytes = usize::try_from(branch.offset)
        .ok()
        .zip(usize::try_from(branch.len).ok())
        .and_then(|(at, len)| input.get(at..at.checked_add(len)?))
        .ok_or_else(|| {
            DecodeError::new(
                ErrorKind::LengthOverrun {
                    len: branch.len,
                    left,
                },
                branch.offset,
            )
        })?;
    if branch.depth == 0 || branch.depth > max_depth {
        return Err(DecodeError::new(
            ErrorKind::DepthLimit(max_depth),
            branch.offset,
        ));
    }
    let nested_ok = branch.depth < max_depth;
    let ends = GroupEnds::default();
    let strict = branch.kind == BranchKind::Message;
    let mut agreed: HashMap<u32, Agreed> = HashMap::new();
    let mut total = 0usize;
    let fault = scan_with(bytes, branch.offset, strict, &ends, |f| {
        total = total.saturating_add(1);
        if let WireValue::Len(b) = f.value {
            let fit = fits(b, f.value_offset, nested_ok, &ends);
            agreed.entry(f.number).or_default().add(&fit);
        }
    });
    if let Some(f) = fault {
        return Err(f.error);
    }
    let readings = agreed
        .into_iter()
        .map(|(number, a)| (number, decide(&a)))
        .collect();
    Ok(Level {
        branch,
        bytes,
        opts,
        nested_ok,
        readings,
        total,
        ends,
    })
}

impl<'a> Level<'a> {
    /// The options the level was read with (its nested levels take them).
    pub fn options(&self) -> Options {
        self.opts
    }

    /// Up to `count` fields, from the first that starts at offset `from`
    /// or after it, read as [`decode`] reads them.
    pub fn page(&self, from: u64, count: usize) -> Page<'a> {
        let strict = self.branch.kind == BranchKind::Message;
        let mut page = Page {
            first: 0,
            fields: Vec::new(),
            next: None,
        };
        scan_with(self.bytes, self.branch.offset, strict, &self.ends, |f| {
            if f.offset < from {
                page.first = page.first.saturating_add(1);
            } else if page.fields.len() < count {
                page.fields.push(self.field(f));
            } else if page.next.is_none() {
                page.next = Some(f.offset);
            }
        });
        page
    }

    /// One field as [`build_level`] places it (a nested level unplaced).
    fn field(&self, f: Scanned<'a>) -> RawField<'a> {
        let (reading, also) = match f.value {
            WireValue::Varint(v) => (Reading::Varint(v), Also::default()),
            WireValue::Fixed32(v) => (Reading::Fixed32(v), Also::default()),
            WireValue::Fixed64(v) => (Reading::Fixed64(v), Also::default()),
            WireValue::Group(_) if self.nested_ok => (Reading::Group(PENDING), Also::default()),
            WireValue::Group(body) => (Reading::Bytes(body), Also::default()),
            WireValue::Len(b) => {
                let (choice, also) = self
                    .readings
                    .get(&f.number)
                    .copied()
                    .unwrap_or((Choice::Bytes, Also::default()));
                let message = choice == Choice::Message
                    && self.nested_ok
                    && scan_with(b, f.value_offset, true, &self.ends, |_| {}).is_none();
                (len_reading(choice, message, b), also_for(choice, also, b))
            }
        };
        let reading = match reading {
            Reading::Message(PENDING) => Reading::Message(Span::default()),
            Reading::Group(PENDING) => Reading::Group(Span::default()),
            r => r,
        };
        f.into_raw(reading, also)
    }

    /// The level a field of this one opens, if it is a nested message or
    /// group with fields.
    pub fn child(&self, f: &RawField<'_>) -> Option<Branch> {
        let kind = match f.reading {
            Reading::Message(_) => BranchKind::Message,
            Reading::Group(_) => BranchKind::Group,
            _ => return None,
        };
        (!f.payload.is_empty()).then_some(Branch {
            kind,
            depth: self.branch.depth.saturating_add(1),
            offset: f.value_offset,
            len: f.payload.len() as u64,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(tree: &RawMessage<'_>) -> Vec<(u32, &'static str)> {
        tree.root_fields()
            .iter()
            .map(|f| (f.number, f.reading.kind().name()))
            .collect()
    }

    #[test]
    fn text_beats_a_message_that_happens_to_parse() {
        let buf = [0x12, 0x02, b'h', b'i'];
        let tree = decode(&buf, 0, Options::default()).unwrap();
        assert_eq!(kinds(&tree), vec![(2, "string")]);
        assert_eq!(tree.root_fields()[0].also.as_slice(), [Kind::Message]);
    }

    #[test]
    fn floats_and_packed_varints() {
        let mut buf = vec![0x0a, 0x03, 3, 4, 5, 0x4a, 240, 1];
        for i in 0..60u32 {
            buf.extend_from_slice(&(i as f32 * 0.25 + 0.5).to_le_bytes());
        }
        let tree = decode(&buf, 0, Options::default()).unwrap();
        assert_eq!(
            kinds(&tree),
            vec![(1, "packed_varint"), (9, "packed_fixed32")]
        );
    }

    #[test]
    fn deep_nesting_uses_no_stack() {
        // 10,000 levels of field 1 around a varint.
        let mut buf = vec![0x08, 0x01];
        for _ in 0..10_000 {
            let mut outer = vec![0x0a];
            let mut len = buf.len();
            while len >= 0x80 {
                outer.push((len as u8) | 0x80);
                len >>= 7;
            }
            outer.push(len as u8);
            outer.extend_from_slice(&buf);
            buf = outer;
        }
        let tree = decode(&buf, 0, Options { max_depth: 20_000 }).unwrap();
        assert_eq!(tree.nodes.len(), 10_001);
        let shallow = decode(&buf, 0, Options::default()).unwrap();
        assert_eq!(shallow.nodes.len(), 100);
        assert!(matches!(
            shallow.nodes.last().unwrap().reading,
            Reading::Bytes(_)
        ));
    }

    #[test]
    fn truncated_input_reads_down_to_the_fault() {
        // 7 { 1 { 2: "..." (cut) } }
        let inner = [0x12, 105, b'a', b'b', b'c'];
        let mut one = vec![0x0a, 0x70];
        one.extend_from_slice(&inner);
        let mut buf = vec![0x08, 0x01, 0x3a, 0x7f];
        buf.extend_from_slice(&one);
        let tree = decode_partial(&buf, 0, Options::default());
        let fault = tree.fault.clone().unwrap();
        assert_eq!(fault.path_string(), "7.1.2");
        assert!(matches!(
            fault.kind(),
            ErrorKind::LengthOverrun { len: 105, left: 3 }
        ));
        assert_eq!(tree.root_fields().len(), 2);
        assert!(tree.root_fields()[1].truncated);
    }

    #[test]
    fn groups_are_decoded() {
        let buf = [0x1b, 0x08, 0x05, 0x1c, 0x20, 0x01];
        let tree = decode(&buf, 0, Options::default()).unwrap();
        assert_eq!(kinds(&tree), vec![(3, "group"), (4, "varint")]);
        let Reading::Group(span) = tree.root_fields()[0].reading else {
            panic!("a group")
        };
        assert_eq!(tree.fields(span).len(), 1);
    }
}
