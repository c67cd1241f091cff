//! Output of the schemaless reading. Text: an indented tree, one field per
//! line (`number kind = value`), runners-up in `(also fits: ...)`. JSON: an
//! array of fields, each `{"field", "wire_type", "kind", "value"}` plus the
//! other readings of its value. Both walk the tree with an explicit stack,
//! so any nesting depth prints without recursion.

use super::RenderOptions;
use crate::error::DecodeError;
use crate::escape::{base64, hex_preview, quoted_str};
use crate::json_writer::{JsonWriter, Null};
use crate::schemaless::{self, Kind, RawField, RawMessage, Reading, Span};
use crate::wire::{PackedVarints, WireValue};
use std::io::{self, Write};

/// Values of a packed field shown in text when `--values` is not given.
const TEXT_VALUES: u64 = 64;

use super::fmt::indent;

fn f32_at(c: &[u8; 4]) -> f32 {
    f32::from_le_bytes(*c)
}

fn f64_at(c: &[u8; 8]) -> f64 {
    f64::from_le_bytes(*c)
}

/// The packed values of a reading as text, at most `limit` of them, and
/// how many there are.
fn packed_items(reading: &Reading<'_>, limit: u64) -> (Vec<String>, u64) {
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    match *reading {
        Reading::PackedVarint(b) => {
            let items = PackedVarints::new(b)
                .flatten()
                .take(limit)
                .map(|v| v.to_string())
                .collect();
            (items, b.iter().filter(|&&x| x < 0x80).count() as u64)
        }
        Reading::PackedFixed32 { bytes, float } => {
            let items = bytes
                .as_chunks::<4>()
                .0
                .iter()
                .take(limit)
                .map(|c| {
                    if float {
                        format!("{:?}", f32_at(c))
                    } else {
                        i32::from_le_bytes(*c).to_string()
                    }
                })
                .collect();
            (items, (bytes.len() / 4) as u64)
        }
        Reading::PackedFixed64 { bytes, float } => {
            let items = bytes
                .as_chunks::<8>()
                .0
                .iter()
                .take(limit)
                .map(|c| {
                    if float {
                        format!("{:?}", f64_at(c))
                    } else {
                        i64::from_le_bytes(*c).to_string()
                    }
                })
                .collect();
            (items, (bytes.len() / 8) as u64)
        }
        _ => (Vec::new(), 0),
    }
}

fn list_text(items: &[String], total: u64) -> String {
    let more = total.saturating_sub(items.len() as u64);
    if more > 0 {
        format!("[{}, … {more} more]", items.join(", "))
    } else {
        format!("[{}]", items.join(", "))
    }
}

/// One packed value.
enum Num {
    U(u64),
    I(i64),
    F32(f32),
    F64(f64),
}

/// The values of a packed reading, and how many there are.
fn nums<'r>(reading: &Reading<'r>) -> (Box<dyn Iterator<Item = Num> + 'r>, u64) {
    match *reading {
        Reading::PackedVarint(b) => (
            Box::new(PackedVarints::new(b).flatten().map(Num::U)),
            b.iter().filter(|&&x| x < 0x80).count() as u64,
        ),
        Reading::PackedFixed32 { bytes, float } => (
            Box::new(bytes.as_chunks::<4>().0.iter().map(move |c| {
                if float {
                    Num::F32(f32_at(c))
                } else {
                    Num::I(i64::from(i32::from_le_bytes(*c)))
                }
            })),
            (bytes.len() / 4) as u64,
        ),
        Reading::PackedFixed64 { bytes, float } => (
            Box::new(bytes.as_chunks::<8>().0.iter().map(move |c| {
                if float {
                    Num::F64(f64_at(c))
                } else {
                    Num::I(i64::from_le_bytes(*c))
                }
            })),
            (bytes.len() / 8) as u64,
        ),
        _ => (Box::new(std::iter::empty()), 0),
    }
}

/// Writes up to `limit` packed values separated by `, ` through a local
/// buffer (one write per 64 KiB, not one per value, and no list of strings:
/// memory stays flat for any count), as the text view shows them. Returns
/// how many values there are in all.
fn write_packed(w: &mut dyn Write, reading: &Reading<'_>, limit: u64) -> io::Result<u64> {
    use std::fmt::Write as _;
    let (values, total) = nums(reading);
    // Sized by what will be written (allocation stays in proportion to the
    // input), at most the flush threshold.
    let shown = total.min(limit).saturating_mul(24).min(1 << 16);
    let mut buf = String::with_capacity(usize::try_from(shown).unwrap_or(0));
    for (n, v) in values.enumerate() {
        if n as u64 >= limit {
            break;
        }
        if n > 0 {
            buf.push_str(", ");
        }
        // Writing to a String cannot fail.
        let _ = match v {
            Num::U(x) => write!(buf, "{x}"),
            Num::I(x) => write!(buf, "{x}"),
            // ryu: the same shortest round-trip digits as std, much faster
            // when a tensor's worth of floats is printed.
            Num::F32(x) if x.is_finite() => {
                buf.push_str(ryu::Buffer::new().format_finite(x));
                Ok(())
            }
            Num::F64(x) if x.is_finite() => {
                buf.push_str(ryu::Buffer::new().format_finite(x));
                Ok(())
            }
            Num::F32(x) => write!(buf, "{x:?}"),
            Num::F64(x) => write!(buf, "{x:?}"),
        };
        if buf.len() >= 60_000 {
            w.write_all(buf.as_bytes())?;
            buf.clear();
        }
    }
    w.write_all(buf.as_bytes())?;
    Ok(total)
}

/// Writes up to `limit` packed values into the array open in `w`, through
/// a local buffer as [`write_packed`] does; returns how many values there
/// are in all.
fn write_packed_json(w: &mut JsonWriter<'_>, reading: &Reading<'_>, limit: u64) -> io::Result<u64> {
    let (values, total) = nums(reading);
    let shown = total.min(limit).saturating_mul(24).min(1 << 16);
    let mut buf = Vec::with_capacity(usize::try_from(shown).unwrap_or(0));
    let mut values = values.take(usize::try_from(limit).unwrap_or(usize::MAX));
    w.spliced_values(|out| {
        let mut n = 0u64;
        loop {
            buf.clear();
            let mut run = JsonWriter::array_run(&mut buf, n > 0);
            let mut full = false;
            for v in values.by_ref() {
                match v {
                    Num::U(x) => run.value(x)?,
                    Num::I(x) => run.value(x)?,
                    Num::F32(x) => run.value(x)?,
                    Num::F64(x) => run.value(x)?,
                }
                n += 1;
                if run.bytes_written() >= 60_000 {
                    full = true;
                    break;
                }
            }
            run.finish()?;
            out.write_all(&buf)?;
            if !full {
                return Ok(n);
            }
        }
    })?;
    Ok(total)
}

/// A one-line preview of another reading of a payload, for `also fits`.
pub fn preview(kind: Kind, payload: &[u8]) -> String {
    const N: u64 = 4;
    let packed = |r: Reading<'_>| {
        let (items, total) = packed_items(&r, N);
        list_text(&items, total)
    };
    match kind {
        Kind::Text => quoted_str(&String::from_utf8_lossy(payload)),
        Kind::Message => match schemaless::message_fields(payload) {
            Some(fields) => {
                let mut parts: Vec<String> = fields
                    .iter()
                    .take(N as usize)
                    .map(|(n, v)| match v {
                        WireValue::Varint(x) | WireValue::Fixed64(x) => format!("{n}: {x}"),
                        WireValue::Fixed32(x) => format!("{n}: {x}"),
                        WireValue::Len(b) => match schemaless::is_text(b) {
                            Some(s) if s.len() <= 16 => format!("{n}: {}", quoted_str(s)),
                            _ => format!("{n}: <{} bytes>", b.len()),
                        },
                        WireValue::Group(_) => format!("{n}: group"),
                    })
                    .collect();
                if fields.len() > N as usize {
                    parts.push("…".into());
                }
                format!("message {{{}}}", parts.join(", "))
            }
            None => "message".into(),
        },
        Kind::PackedVarint => format!("packed_varint {}", packed(Reading::PackedVarint(payload))),
        Kind::PackedFixed32 => {
            let float = payload
                .as_chunks::<4>()
                .0
                .iter()
                .all(|c| f32_at(c) == 0.0 || f32_at(c).abs() >= 1e-8);
            format!(
                "packed_fixed32 {}",
                packed(Reading::PackedFixed32 {
                    bytes: payload,
                    float
                })
            )
        }
        Kind::PackedFixed64 => {
            let float = payload
                .as_chunks::<8>()
                .0
                .iter()
                .all(|c| f64_at(c) == 0.0 || f64_at(c).abs() >= 1e-8);
            format!(
                "packed_fixed64 {}",
                packed(Reading::PackedFixed64 {
                    bytes: payload,
                    float
                })
            )
        }
        other => other.name().to_string(),
    }
}

fn tag_hex(tag: &[u8]) -> String {
    let parts: Vec<String> = tag.iter().map(|b| format!("{b:02x}")).collect();
    parts.join(" ")
}

/// `number [@range (tag ..)] kind = value` up to the value's end; nested
/// messages open a brace.
fn text_field_head(w: &mut dyn Write, f: &RawField<'_>, opts: &RenderOptions) -> io::Result<()> {
    write!(w, "{}", f.number)?;
    if opts.offsets {
        write!(
            w,
            " @0x{:x}..0x{:x} (tag {}",
            f.offset,
            f.end,
            tag_hex(f.tag)
        )?;
        if !f.payload.is_empty() || matches!(f.wire, crate::wire::WireType::Len) {
            write!(w, ", value @0x{:x}", f.value_offset)?;
        }
        write!(w, ")")?;
    }
    let kind = f.reading.kind().name();
    let limit = opts.values.unwrap_or(TEXT_VALUES);
    match &f.reading {
        Reading::Varint(v) => {
            write!(w, " {kind} = {v}")?;
            let signed = *v as i64;
            let mut notes = Vec::new();
            if signed < 0 {
                notes.push(format!("int64 {signed}"));
            }
            if *v != 0 {
                notes.push(format!("sint {}", crate::wire::zigzag64(*v)));
            }
            if !notes.is_empty() {
                write!(w, "  ({})", notes.join(", "))?;
            }
        }
        Reading::Fixed32(v) => {
            write!(w, " {kind} = {v}  (float {:?}", f32::from_bits(*v))?;
            if (*v as i32) < 0 {
                write!(w, ", int32 {}", *v as i32)?;
            }
            write!(w, ")")?;
        }
        Reading::Fixed64(v) => {
            write!(w, " {kind} = {v}  (double {:?}", f64::from_bits(*v))?;
            if (*v as i64) < 0 {
                write!(w, ", int64 {}", *v as i64)?;
            }
            write!(w, ")")?;
        }
        Reading::Message(_) | Reading::Group(_) => write!(w, " {kind} {{")?,
        Reading::Text(s) => write!(
            w,
            " {kind} = {}",
            super::elide::quoted_long(s.as_bytes(), opts)
        )?,
        Reading::Bytes(b) => write!(w, " {kind} = {}", hex_preview(b))?,
        r @ (Reading::PackedVarint(_)
        | Reading::PackedFixed32 { .. }
        | Reading::PackedFixed64 { .. }) => {
            let unit = match r {
                Reading::PackedVarint(_) => "varints",
                Reading::PackedFixed32 { float: true, .. } => "floats",
                Reading::PackedFixed32 { .. } => "int32s",
                Reading::PackedFixed64 { float: true, .. } => "doubles",
                _ => "int64s",
            };
            let total = nums(r).1;
            write!(w, " {kind} = {total} {unit} [")?;
            write_packed(w, r, limit)?;
            if total > limit {
                write!(w, ", … {} more", super::elide::grouped(total - limit))?;
            }
            write!(w, "]")?;
        }
    }
    Ok(())
}

fn text_field_tail(w: &mut dyn Write, f: &RawField<'_>) -> io::Result<()> {
    if f.truncated {
        write!(w, "  (cut off by the end of the input)")?;
    }
    if !f.also.is_empty() {
        let alts: Vec<String> = f.also.iter().map(|&k| preview(k, f.payload)).collect();
        write!(w, "  (also fits: {})", alts.join("; "))?;
    }
    Ok(())
}

/// The tree as indented text, starting at `depth`.
pub fn write_text(
    w: &mut dyn Write,
    tree: &RawMessage<'_>,
    depth: usize,
    opts: &RenderOptions,
) -> io::Result<()> {
    write_span(w, tree, tree.root, depth, opts)
}

fn write_span(
    w: &mut dyn Write,
    tree: &RawMessage<'_>,
    root: Span,
    depth: usize,
    opts: &RenderOptions,
) -> io::Result<()> {
    // (message, next field) per open message.
    let mut stack: Vec<(Span, usize)> = vec![(root, 0)];
    while let Some(&(span, next)) = stack.last() {
        let level = depth + stack.len() - 1;
        let Some(f) = tree.fields(span).get(next) else {
            stack.pop();
            if !stack.is_empty() {
                indent(w, level.saturating_sub(1))?;
                writeln!(w, "}}")?;
            }
            continue;
        };
        if let Some(top) = stack.last_mut() {
            top.1 += 1;
        }
        indent(w, level)?;
        text_field_head(w, f, opts)?;
        match f.reading {
            Reading::Message(s) | Reading::Group(s) if s.len > 0 => {
                text_field_tail(w, f)?;
                writeln!(w)?;
                stack.push((s, 0));
            }
            Reading::Message(_) | Reading::Group(_) => {
                write!(w, "}}")?;
                text_field_tail(w, f)?;
                writeln!(w)?;
            }
            _ => {
                text_field_tail(w, f)?;
                writeln!(w)?;
            }
        }
    }
    Ok(())
}

/// The whole text output of a schemaless decode after the header lines.
pub fn write_text_body(
    w: &mut dyn Write,
    tree: &RawMessage<'_>,
    opts: &RenderOptions,
) -> io::Result<()> {
    write_text(w, tree, 0, opts)?;
    if let Some(fault) = &tree.fault {
        writeln!(w, "fault: {}", fault_text(fault))?;
    }
    Ok(())
}

/// `7.1.2 @0x31: length 105 > 64 bytes left`
pub fn fault_text(e: &DecodeError) -> String {
    if !e.has_path() {
        format!("@0x{:x}: {}", e.offset(), e.kind())
    } else {
        format!("{} @0x{:x}: {}", e.path_string(), e.offset(), e.kind())
    }
}

// ---------------------------------------------------------------------------
// JSON
// ---------------------------------------------------------------------------

/// A field's object up to its value: for a message or group, its array
/// of fields is left open.
fn json_value_head(
    w: &mut JsonWriter<'_>,
    f: &RawField<'_>,
    opts: &RenderOptions,
) -> io::Result<()> {
    w.begin_object()?;
    w.member("field", f.number)?;
    w.member("wire_type", f.wire.name())?;
    w.member("kind", f.reading.kind().name())?;
    w.key("value")?;
    let limit = opts.values.unwrap_or(u64::MAX);
    match f.reading {
        Reading::Varint(v) => {
            w.value(v)?;
            let signed = v as i64;
            if signed < 0 {
                w.member("signed", signed)?;
            }
            if v != 0 {
                w.member("zigzag", crate::wire::zigzag64(v))?;
            }
        }
        Reading::Fixed32(v) => {
            w.value(v)?;
            w.member("float", f32::from_bits(v))?;
            if (v as i32) < 0 {
                w.member("signed", v as i32)?;
            }
        }
        Reading::Fixed64(v) => {
            w.value(v)?;
            w.member("double", f64::from_bits(v))?;
            if (v as i64) < 0 {
                w.member("signed", v as i64)?;
            }
        }
        Reading::Message(_) | Reading::Group(_) => w.begin_array()?,
        Reading::Text(s) => w.value(s)?,
        Reading::Bytes(b) => w.value(&*base64(b))?,
        ref r @ (Reading::PackedVarint(_)
        | Reading::PackedFixed32 { .. }
        | Reading::PackedFixed64 { .. }) => {
            w.begin_array()?;
            let total = write_packed_json(w, r, limit)?;
            w.end_array()?;
            w.member("count", total)?;
            match *r {
                Reading::PackedFixed32 { float, .. } => {
                    w.member("as", if float { "float" } else { "int32" })?
                }
                Reading::PackedFixed64 { float, .. } => {
                    w.member("as", if float { "double" } else { "int64" })?
                }
                _ => {}
            }
        }
    }
    Ok(())
}

fn json_field_tail(
    w: &mut JsonWriter<'_>,
    f: &RawField<'_>,
    opts: &RenderOptions,
) -> io::Result<()> {
    json_field_members(w, f, opts)?;
    w.end_object()
}

/// The members of a field's object after its value.
fn json_field_members(
    w: &mut JsonWriter<'_>,
    f: &RawField<'_>,
    opts: &RenderOptions,
) -> io::Result<()> {
    if !f.also.is_empty() {
        w.key("also")?;
        w.begin_array()?;
        for k in f.also.iter() {
            w.value(k.name())?;
        }
        w.end_array()?;
    }
    if f.truncated {
        w.member("truncated", true)?;
    }
    if opts.offsets {
        w.member("offset", f.offset)?;
        w.member("length", f.end.saturating_sub(f.offset))?;
        w.member("tag", &*tag_hex(f.tag).replace(' ', ""))?;
        w.member("value_offset", f.value_offset)?;
    }
    Ok(())
}

/// The tree as a JSON array of fields.
pub fn write_json(
    w: &mut JsonWriter<'_>,
    tree: &RawMessage<'_>,
    opts: &RenderOptions,
) -> io::Result<()> {
    w.begin_array()?;
    write_json_span(w, tree, tree.root, opts)?;
    w.end_array()
}

/// The first root field of a tree as one JSON object (the reading of a
/// field a schema did not know).
pub fn write_json_field(
    w: &mut JsonWriter<'_>,
    tree: &RawMessage<'_>,
    opts: &RenderOptions,
) -> io::Result<()> {
    let first = Span {
        start: tree.root.start,
        len: tree.root.len.min(1),
    };
    if first.len == 0 {
        return w.null();
    }
    write_json_span(w, tree, first, opts)
}

/// The fields of `root` as items of the array open in `w`, nested
/// messages as arrays.
fn write_json_span(
    w: &mut JsonWriter<'_>,
    tree: &RawMessage<'_>,
    root: Span,
    opts: &RenderOptions,
) -> io::Result<()> {
    // (message, next field, the field that holds it).
    let mut stack: Vec<(Span, usize, Option<&RawField<'_>>)> = vec![(root, 0, None)];
    while let Some(top) = stack.last_mut() {
        let (span, next, _) = *top;
        let Some(f) = tree.fields(span).get(next) else {
            let closed = stack.pop().and_then(|(_, _, holder)| holder);
            if let Some(holder) = closed {
                w.end_array()?;
                json_field_tail(w, holder, opts)?;
            }
            continue;
        };
        top.1 += 1;
        json_value_head(w, f, opts)?;
        match f.reading {
            Reading::Message(s) | Reading::Group(s) => stack.push((s, 0, Some(f))),
            _ => json_field_tail(w, f, opts)?,
        }
    }
    Ok(())
}

/// The bounds of one answer of the explorer's field tree.
#[derive(Debug, Clone, Copy)]
pub struct PageLimits {
    /// Fields of one level.
    pub per_level: usize,
    /// Fields in all.
    pub per_answer: usize,
    /// Levels below the one asked for whose first page comes along.
    pub nested_levels: u32,
    /// Bytes of a string or bytes value; a longer one is cut there.
    pub value_bytes: usize,
}

/// Nested pages come along at most this many levels down, whatever the
/// limits say (the writer calls itself once per level).
const MAX_NESTED_LEVELS: u32 = 3;

/// One page of a level of the schemaless reading, as the members
/// `"value", "branch", "fields", "first", "next"` of an object: the fields
/// shown (as [`write_json`] writes them, with offsets), the level's
/// address ([`schemaless::Branch::address`]), how many fields it holds,
/// the place of the first one shown, and the offset the next page starts
/// at (`null` after the last). A nested message or group in the page
/// carries the same members for its own fields, with the first page of
/// them when the limits allow and none (`"value": []`) otherwise.
/// `budget` is what is left of [`PageLimits::per_answer`].
pub fn write_json_page(
    w: &mut JsonWriter<'_>,
    input: &[u8],
    level: &schemaless::Level<'_>,
    from: u64,
    limits: PageLimits,
    budget: &mut usize,
    opts: &RenderOptions,
) -> io::Result<()> {
    w.key("value")?;
    w.begin_array()?;
    write_page_fields(
        w,
        input,
        level,
        from,
        limits,
        limits.nested_levels.min(MAX_NESTED_LEVELS),
        budget,
        opts,
    )
}

/// The fields of a page (the value array is open), then the array's end
/// and the level's members.
#[allow(clippy::too_many_arguments)]
fn write_page_fields(
    w: &mut JsonWriter<'_>,
    input: &[u8],
    level: &schemaless::Level<'_>,
    from: u64,
    limits: PageLimits,
    nested_levels: u32,
    budget: &mut usize,
    opts: &RenderOptions,
) -> io::Result<()> {
    let count = limits.per_level.min(*budget);
    *budget -= count;
    let page = level.page(from, count);
    for f in &page.fields {
        let (shown, cut) = cut_value(f, limits.value_bytes);
        json_value_head(w, &shown, opts)?;
        if matches!(f.reading, Reading::Message(_) | Reading::Group(_)) {
            let sub = level
                .child(f)
                .and_then(|b| schemaless::read_level(input, b, level.options()).ok());
            match sub {
                Some(sub) if nested_levels > 0 && *budget > 0 => {
                    write_page_fields(w, input, &sub, 0, limits, nested_levels - 1, budget, opts)?;
                }
                Some(sub) => {
                    w.end_array()?;
                    level_members(w, &sub, 0, (sub.total > 0).then_some(sub.branch.offset))?;
                }
                None => {
                    w.end_array()?;
                    w.member("fields", 0u8)?;
                    w.member("first", 0u8)?;
                    w.member("next", Null)?;
                }
            }
        }
        if let Some(len) = cut {
            w.member("cut", len)?;
        }
        json_field_members(w, f, opts)?;
        w.end_object()?;
    }
    w.end_array()?;
    level_members(w, level, page.first, page.next)
}

/// `"branch", "fields", "first", "next"` of a level's page.
fn level_members(
    w: &mut JsonWriter<'_>,
    level: &schemaless::Level<'_>,
    first: usize,
    next: Option<u64>,
) -> io::Result<()> {
    w.member("branch", &*level.branch.address())?;
    w.member("fields", level.total)?;
    w.member("first", first)?;
    w.member("next", next)
}

/// A field whose string or bytes value is longer than `max` bytes, cut
/// there (at a character boundary), and its whole length.
fn cut_value<'a>(f: &RawField<'a>, max: usize) -> (RawField<'a>, Option<usize>) {
    let mut shown = f.clone();
    let cut = match f.reading {
        Reading::Text(s) if s.len() > max => {
            let mut end = max;
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            shown.reading = Reading::Text(s.get(..end).unwrap_or_default());
            Some(s.len())
        }
        Reading::Bytes(b) if b.len() > max => {
            shown.reading = Reading::Bytes(b.get(..max).unwrap_or_default());
            Some(b.len())
        }
        _ => None,
    };
    (shown, cut)
}

/// The members of the top-level JSON object after its head
/// ([`super::json::write_head`]): the fields, and the fault of a partial
/// read.
pub fn write_json_body(
    w: &mut JsonWriter<'_>,
    tree: &RawMessage<'_>,
    opts: &RenderOptions,
) -> io::Result<()> {
    w.key("value")?;
    write_json(w, tree, opts)?;
    if let Some(fault) = &tree.fault {
        w.key("fault")?;
        w.begin_object()?;
        w.member("path", &*fault.path_string())?;
        w.member("offset", fault.offset())?;
        w.member("check", fault.check())?;
        w.member("message", &*fault.message())?;
        w.end_object()?;
    }
    Ok(())
}

/// A field a schema did not know, read without one: the rest of a text
/// line after `: ` (a nested reading continues on indented lines).
pub fn write_unknown_text(
    w: &mut dyn Write,
    tree: &RawMessage<'_>,
    depth: usize,
    opts: &RenderOptions,
) -> io::Result<()> {
    let Some(f) = tree.root_fields().first() else {
        return writeln!(w);
    };
    match f.reading {
        Reading::Message(s) | Reading::Group(s) if s.len > 0 => {
            writeln!(w, "{} {{", f.reading.kind().name())?;
            write_span(w, tree, s, depth + 1, opts)?;
            indent(w, depth)?;
            writeln!(w, "}}")
        }
        _ => {
            // Reuse the one-line form without the field number.
            let mut line = Vec::new();
            text_field_head(
                &mut line,
                f,
                &RenderOptions {
                    offsets: false,
                    ..opts.clone()
                },
            )?;
            text_field_tail(&mut line, f)?;
            let line = String::from_utf8_lossy(&line);
            let shown = line
                .split_once(' ')
                .map_or(line.as_ref(), |(_, rest)| rest)
                .replacen(" = ", " ", 1);
            writeln!(w, "{shown}")
        }
    }
}
