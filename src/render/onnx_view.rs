//! Text views of ONNX models, sequences/optionals/maps and sparse tensors:
//! what a person wants to read first (a model's header, its graph as one line
//! per node, typed inputs and outputs, initializers with a value preview),
//! then every field the view does not cover, printed by the generic field
//! tree so that nothing is dropped.
//!
//! Tensor values are previewed from both ends; raw values are read only
//! where they are printed, so a mapped multi-gigabyte model is never paged
//! in to be shown with `--values 8`.

use super::fmt::{element_text, name_text};
use super::shown::Shown;
use super::tree::{
    DEFAULT_NESTED_VALUES, DEFAULT_ROOT_VALUES, HeadAndTail, flush_line, message_fields,
};
use super::{RenderOptions, load_values};
use crate::decode::{Message, Value};
use crate::escape::{plain, plain_bytes, quoted};
use crate::fields::onnx::{
    AttributeProto, DeviceConfigurationProto, FunctionProto, GraphProto, MapProto, ModelProto,
    NodeProto, OperatorSetIdProto, OptionalProto, SequenceProto, SparseTensorProto,
    StringStringEntryProto, TensorAnnotation, TensorProto, TensorShapeProto, TrainingInfoProto,
    TypeProto, ValueInfoProto,
};
use crate::formats::onnx::{OPTIONAL_FIELDS, SEQUENCE_FIELDS};
use crate::formats::{onnx, onnx_tensor};
use crate::schema::{FieldId, SchemaSet};
use crate::tensor::{
    Elem, Element, Elements, LoadedValues, Source, TensorData, TensorView, element_count,
    for_each_element,
};
use std::borrow::Cow;
use std::io::{self, Write};

/// Values printed on the header line when a 1-D tensor has at most this many
/// to show; longer previews go in rows.
const INLINE_VALUES: usize = 10;

use super::fmt::indent;

/// An optional string field, escaped for the terminal ([`plain`]).
fn str_of<'a>(set: &SchemaSet, msg: &Message<'a>, field: FieldId) -> Option<Cow<'a, str>> {
    msg.str(set, field).map(plain)
}

/// The bytes of every occurrence of a repeated string/bytes field.
fn strings<'a>(set: &SchemaSet, msg: &Message<'a>, field: FieldId) -> Vec<&'a [u8]> {
    msg.field(set, field)
        .iter()
        .filter_map(|f| match f.value {
            Value::Bytes(b) => Some(b),
            _ => None,
        })
        .collect()
}

fn grouped(n: u64) -> String {
    super::elide::grouped(n)
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", grouped(n), if n == 1 { one } else { many })
}

fn is(set: &SchemaSet, msg: &Message<'_>, full_name: &str) -> bool {
    set.find_message(full_name) == Some(msg.def)
}

fn enum_name(set: &SchemaSet, enum_name: &str, n: i64) -> String {
    set.find_enum(enum_name)
        .and_then(|e| set.enum_def(e).name_of(n).map(str::to_string))
        .unwrap_or_else(|| n.to_string())
}

fn data_type_name(set: &SchemaSet, code: Option<i64>) -> String {
    match code {
        Some(c) => enum_name(set, "onnx.TensorProto.DataType", c),
        None => "UNDEFINED".to_string(),
    }
}

// ---------------------------------------------------------------- values

fn zero_text(elem: Option<Elem>) -> String {
    match elem {
        Some(Elem::Bool) => "false".into(),
        Some(Elem::Str) => "\"\"".into(),
        Some(Elem::C64 | Elem::C128) => "0.0+0.0i".into(),
        Some(e) if e.is_float() => "0.0".into(),
        _ => "0".into(),
    }
}

/// The first and last values of a tensor, as text.
struct Preview {
    total: u64,
    head: Vec<String>,
    tail: Vec<String>,
    unavailable: Option<String>,
}

impl Preview {
    fn left_out(&self) -> u64 {
        self.total
            .saturating_sub(self.head.len() as u64)
            .saturating_sub(self.tail.len() as u64)
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// `count` raw elements from element `start` on, reading only their bytes
/// (sub-byte types start at the nearest byte boundary before them).
fn raw_window(elem: Elem, byte_aligned: bool, bytes: &[u8], start: u64, count: u64) -> Vec<String> {
    let bits = if byte_aligned {
        elem.bits().max(8)
    } else {
        elem.bits()
    };
    if bits == 0 || count == 0 {
        return Vec::new();
    }
    let step = 8 / gcd(bits, 8);
    let aligned = start - start % step;
    let skip = start - aligned;
    let Some(byte) = aligned.checked_mul(bits).map(|b| b / 8) else {
        return Vec::new();
    };
    let slice = usize::try_from(byte)
        .ok()
        .and_then(|b| bytes.get(b..))
        .unwrap_or(&[]);
    Elements::new(elem, Source::Raw(slice), skip.saturating_add(count))
        .byte_aligned(byte_aligned)
        .skip(usize::try_from(skip).unwrap_or(usize::MAX))
        .map(element_text)
        .collect()
}

fn preview(view: &TensorView<'_, '_>, opts: &RenderOptions, limit: u64) -> Preview {
    let total = view.elements;
    let (h, t) = super::elide::whole_rows(total, limit, super::elide::row_len(&udims(view)));
    let mut p = Preview {
        total,
        head: Vec::new(),
        tail: Vec::new(),
        unavailable: None,
    };
    let mut loaded = load_values(view, opts);
    let raw: Option<(&[u8], Elem)> = match (&loaded, &view.data) {
        (LoadedValues::Unavailable(why), _) => {
            p.unavailable = Some(why.clone());
            return p;
        }
        (LoadedValues::External(bytes, elem, _), _) => Some((bytes.bytes(), *elem)),
        (LoadedValues::Ready(..), TensorData::Raw(bytes)) => view.elem.map(|e| (*bytes, e)),
        _ => None,
    };
    if let Some((bytes, elem)) = raw {
        // Random access: only the pages of the printed values are read.
        p.head = raw_window(elem, view.byte_aligned, bytes, 0, h);
        p.tail = raw_window(elem, view.byte_aligned, bytes, total - t, t);
        return p;
    }
    // The left-out middle is skipped, not decoded (at once in an implied
    // tail).
    let tail_from = total - t;
    let _ = crate::tensor::for_each_element_except(&mut loaded, h..tail_from, |i, e| {
        if i < h {
            p.head.push(element_text(e));
        } else {
            p.tail.push(element_text(e));
        }
        if t == 0 && i + 1 >= h {
            return Err(());
        }
        Ok(())
    });
    p
}

/// Values in rows of the last dimension (at most 10 a line), each line
/// prefixed by the index of its first value.
fn write_rows(w: &mut dyn Write, depth: usize, dims: &[u64], p: &Preview) -> io::Result<()> {
    let tail_from = p.total - p.tail.len() as u64;
    let items = p
        .head
        .iter()
        .enumerate()
        .map(|(i, s)| (i as u64, s.as_str()))
        .chain(
            p.tail
                .iter()
                .enumerate()
                .map(|(i, s)| (tail_from + i as u64, s.as_str())),
        );
    write_items(w, depth, dims, p.left_out(), tail_from, items)
}

/// Writes `(index, text)` items in rows as they come (nothing but one line
/// is held), with the line saying how many were left out before the first
/// item at or past `tail_from`.
fn write_items<S: AsRef<str>>(
    w: &mut dyn Write,
    depth: usize,
    dims: &[u64],
    left_out: u64,
    tail_from: u64,
    items: impl Iterator<Item = (u64, S)>,
) -> io::Result<()> {
    let row = super::elide::row_len(dims);
    let per_line = if row == 0 {
        super::elide::PER_LINE
    } else {
        row.min(super::elide::PER_LINE)
    };
    let mut line: Vec<S> = Vec::new();
    let mut start = 0u64;
    let mut gap_done = false;
    for (i, s) in items {
        if i >= tail_from && !gap_done && left_out > 0 {
            flush_line(w, depth, dims, start, &mut line)?;
            indent(w, depth)?;
            writeln!(
                w,
                "… {} values left out (--values all shows them) …",
                grouped(left_out)
            )?;
            gap_done = true;
        }
        if line.is_empty() {
            start = i;
        }
        line.push(s);
        if line.len() as u64 >= per_line || (row > 0 && (i + 1).is_multiple_of(row)) {
            flush_line(w, depth, dims, start, &mut line)?;
        }
    }
    flush_line(w, depth, dims, start, &mut line)?;
    if !gap_done && left_out > 0 {
        // Only first values were shown: the rest is left out at the end.
        indent(w, depth)?;
        writeln!(
            w,
            "… {} values left out (--values all shows them) …",
            grouped(left_out)
        )?;
    }
    Ok(())
}

/// Above this many values shown, a tensor's rows are streamed
/// ([`stream_rows`]) rather than made as text first ([`preview`]).
const STREAMED_VALUES: u64 = 1 << 16;

/// How many values a tensor shows under `limit`: its first and last rows.
fn shown_values(view: &TensorView<'_, '_>, limit: u64) -> u64 {
    let (h, t) =
        super::elide::whole_rows(view.elements, limit, super::elide::row_len(&udims(view)));
    h.saturating_add(t)
}

/// The rows [`write_rows`] writes for the [`preview`] under `limit`, written
/// as they are formatted (by the tree's row writer: the same lines). Gives
/// why the values are not available, when they are not.
fn stream_rows(
    w: &mut dyn Write,
    view: &TensorView<'_, '_>,
    limit: u64,
    depth: usize,
    opts: &RenderOptions,
) -> io::Result<Option<String>> {
    writeln!(w)?;
    let mut loaded = load_values(view, opts);
    if let LoadedValues::Unavailable(why) = &loaded {
        indent(w, depth)?;
        writeln!(w, "values not available: {}", plain(why))?;
        return Ok(Some(why.clone()));
    }
    let dims = udims(view);
    let (head, tail) = super::elide::whole_rows(view.elements, limit, super::elide::row_len(&dims));
    let rows = HeadAndTail {
        head,
        tail,
        total: view.elements,
        depth,
        dims: &dims,
    };
    rows.write(w, &mut loaded, opts, |n| {
        format!(
            "… {} values left out (--values all shows them) …",
            grouped(n)
        )
    })?;
    Ok(None)
}

/// `[a, b, … N more …, y, z]`
fn inline_values(p: &Preview) -> String {
    let mut parts: Vec<&str> = p.head.iter().map(String::as_str).collect();
    let gap;
    if p.left_out() > 0 {
        gap = format!("… {} more …", grouped(p.left_out()));
        parts.push(&gap);
    }
    parts.extend(p.tail.iter().map(String::as_str));
    format!("[{}]", parts.join(", "))
}

// --------------------------------------------------------------- tensors

/// A tensor with the fields its header line and values show marked
/// printed: name, type, shape and the fields that hold its values.
fn tensor_shown<'s, 'm, 'a>(set: &'s SchemaSet, t: &'m Message<'a>) -> Shown<'s, 'm, 'a> {
    let mut s = Shown::new(set, t);
    s.take(TensorProto::NAME);
    s.take(TensorProto::DIMS);
    s.take(TensorProto::DATA_TYPE);
    for f in onnx_tensor::VALUE_FIELDS {
        s.take(*f);
    }
    s
}

/// `FLOAT[2, 3]`; a scalar is `FLOAT[]`.
fn tensor_type_text(view: &TensorView<'_, '_>) -> String {
    let dims: Vec<String> = view
        .dims
        .as_deref()
        .unwrap_or(&[])
        .iter()
        .map(i64::to_string)
        .collect();
    format!("{}[{}]", view.type_name, dims.join(", "))
}

fn udims(view: &TensorView<'_, '_>) -> Vec<u64> {
    view.dims
        .as_deref()
        .unwrap_or(&[])
        .iter()
        .map(|&d| u64::try_from(d).unwrap_or(0))
        .collect()
}

fn declared_elements(view: &TensorView<'_, '_>) -> Option<u64> {
    element_count(&udims(view))
}

/// External data as the tensor names it (its fields marked printed only
/// when it is external).
fn external_text(s: &mut Shown<'_, '_, '_>) -> Option<String> {
    let (set, t) = (s.set(), s.msg());
    if !t.has(set, TensorProto::EXTERNAL_DATA) && t.int(set, TensorProto::DATA_LOCATION) != Some(1)
    {
        return None;
    }
    s.take(TensorProto::DATA_LOCATION);
    let mut parts = Vec::new();
    for entry in s.messages(TensorProto::EXTERNAL_DATA) {
        let key = str_of(set, entry, StringStringEntryProto::KEY).unwrap_or(Cow::Borrowed("?"));
        let value = entry
            .bytes(set, StringStringEntryProto::VALUE)
            .unwrap_or(&[]);
        parts.push(match key.as_ref() {
            "location" => quoted(value),
            _ => format!("{key} {}", plain_bytes(value)),
        });
    }
    Some(format!("external: {}", parts.join(", ")))
}

/// A tensor as a block: `label: TYPE[shape]  (N elements)`, the values
/// (inline when short and at most 1-D, else in rows), then its other fields.
fn tensor_block(
    w: &mut dyn Write,
    set: &SchemaSet,
    label: &str,
    t: &Message<'_>,
    depth: usize,
    opts: &RenderOptions,
    default_limit: u64,
) -> io::Result<()> {
    let view = onnx_tensor::view(set, t);
    let name = t.bytes(set, TensorProto::NAME).filter(|n| !n.is_empty());
    indent(w, depth)?;
    match (label.is_empty(), name) {
        (true, Some(n)) => write!(w, "{}: ", name_text(n))?,
        (false, Some(n)) => write!(w, "{label} {}: ", name_text(n))?,
        (false, None) => write!(w, "{label}: ")?,
        (true, None) => {}
    }
    write!(w, "{}", tensor_type_text(&view))?;
    let declared = declared_elements(&view);
    if let Some(n) = declared
        && view.dims.as_deref().is_some_and(|d| !d.is_empty())
    {
        write!(w, "  ({})", plural(n, "element", "elements"))?;
    }
    let mut shown = tensor_shown(set, t);
    if let Some(e) = external_text(&mut shown) {
        write!(w, "  {e}")?;
    }
    let limit = opts.values.unwrap_or(default_limit);
    let p = if shown_values(&view, limit) > STREAMED_VALUES {
        // Many values (`--values all` on a model): streamed in rows, in
        // parallel for stored bytes, rather than held as text.
        let unavailable = stream_rows(w, &view, limit, depth + 1, opts)?;
        Preview {
            total: view.elements,
            head: Vec::new(),
            tail: Vec::new(),
            unavailable,
        }
    } else {
        let p = preview(&view, opts, limit);
        let rank = view.dims.as_deref().map_or(0, <[i64]>::len);
        if let Some(why) = &p.unavailable {
            writeln!(w)?;
            indent(w, depth + 1)?;
            writeln!(w, "values not available: {}", plain(why))?;
        } else if p.total == 0 {
            writeln!(w)?;
        } else if rank == 0 && p.head.len() == 1 {
            writeln!(w, " = {}", p.head.join(""))?;
        } else if rank <= 1 && p.head.len() + p.tail.len() <= INLINE_VALUES {
            writeln!(w, " = {}", inline_values(&p))?;
        } else {
            writeln!(w)?;
            write_rows(w, depth + 1, &udims(&view), &p)?;
        }
        p
    };
    if let Some(why) = onnx_tensor::warning(set, t) {
        indent(w, depth + 1)?;
        writeln!(w, "({why})")?;
    } else if p.unavailable.is_none()
        && declared.is_some_and(|d| d > p.total)
        && !t.has(set, TensorProto::SEGMENT)
    {
        indent(w, depth + 1)?;
        writeln!(
            w,
            "(the shape holds {} elements, the data only {})",
            grouped(declared.unwrap_or(0)),
            grouped(p.total)
        )?;
    }
    // Statistics read every value, so a model shows them only on request
    // (--stats) or for a tensor printed in full; a single value needs none.
    if (opts.stats || p.total <= limit)
        && p.total > 1
        && p.unavailable.is_none()
        && let Some(stats) = crate::stats::compute(&view, opts.dir.as_ref())
    {
        let pad = super::fmt::pad(depth + 1);
        super::stats_view::write_text_summary(w, &pad, &view, opts.dir.as_ref(), &stats, opts)?;
    }
    shown.rest(w, depth + 1, opts)
}

/// A tensor on one line (attribute values): `tensor "name" TYPE[shape] [values]`.
fn tensor_inline(set: &SchemaSet, t: &Message<'_>, opts: &RenderOptions) -> String {
    let view = onnx_tensor::view(set, t);
    let mut s = String::from("tensor ");
    if let Some(n) = t.bytes(set, TensorProto::NAME).filter(|n| !n.is_empty()) {
        s.push_str(&quoted(n));
        s.push(' ');
    }
    s.push_str(&tensor_type_text(&view));
    let p = preview(&view, opts, opts.values.unwrap_or(DEFAULT_NESTED_VALUES));
    match &p.unavailable {
        Some(why) => s.push_str(&format!(" (values not available: {})", plain(why))),
        None if view.dims.as_deref().is_some_and(<[i64]>::is_empty) && p.head.len() == 1 => {
            s.push(' ');
            s.push_str(&p.head.join(""));
        }
        None => {
            s.push(' ');
            s.push_str(&inline_values(&p));
        }
    }
    s
}

// --------------------------------------------------------- sparse tensors

/// The non-zeros of a sparse tensor: each value's position. Coordinates are
/// made as text only for the non-zeros printed, so a tensor of high rank
/// costs time in proportion to the input plus the output.
struct SparseData {
    dims: Vec<u64>,
    /// Linear (row-major) index of each non-zero, when readable.
    linear: Vec<u64>,
    /// The indices as stored: one per non-zero (linear form), or `rank` per
    /// non-zero (coordinate form).
    flat: Vec<i64>,
    coordinates: bool,
    problem: Option<String>,
}

impl SparseData {
    /// The coordinates of non-zero `k`: `(1, 2)`; a linear index first
    /// shows the stored index, `[5] (1, 2)`.
    fn coords(&self, k: usize) -> String {
        let rank = self.dims.len();
        if self.coordinates {
            let start = k.saturating_mul(rank.max(1));
            let end = start.saturating_add(rank.max(1));
            let parts: Vec<String> = self
                .flat
                .get(start..end)
                .unwrap_or(&[])
                .iter()
                .map(i64::to_string)
                .collect();
            return format!("({})", parts.join(", "));
        }
        let Some(&l) = self.flat.get(k) else {
            return "(?)".to_string();
        };
        let mut left = u64::try_from(l).unwrap_or(u64::MAX);
        let mut idx = vec![0u64; rank];
        for (slot, &d) in idx.iter_mut().zip(&self.dims).rev() {
            if d > 0 {
                *slot = left % d;
                left /= d;
            }
        }
        let parts: Vec<String> = idx.iter().map(u64::to_string).collect();
        format!("[{l}] ({})", parts.join(", "))
    }
}

/// Row-major strides of `dims` (0 where the product overflows), in one pass
/// from the last dimension.
fn strides(dims: &[u64]) -> Vec<u64> {
    let mut out = vec![0u64; dims.len()];
    let mut s = Some(1u64);
    for (slot, &d) in out.iter_mut().zip(dims).rev() {
        *slot = s.unwrap_or(0);
        s = s.and_then(|s| s.checked_mul(d));
    }
    out
}

fn sparse_data(set: &SchemaSet, sp: &Message<'_>, opts: &RenderOptions) -> SparseData {
    let dims: Vec<u64> = sp
        .scalars(set, SparseTensorProto::DIMS)
        .filter_map(|d| d.as_i64())
        .map(|d| u64::try_from(d).unwrap_or(0))
        .collect();
    let mut out = SparseData {
        dims,
        linear: Vec::new(),
        flat: Vec::new(),
        coordinates: false,
        problem: None,
    };
    let Some(indices) = sp.message(set, SparseTensorProto::INDICES) else {
        return out;
    };
    let view = onnx_tensor::view(set, indices);
    let mut flat: Vec<i64> = Vec::new();
    let mut loaded = load_values(&view, opts);
    if let LoadedValues::Unavailable(why) = &loaded {
        out.problem = Some(format!("indices not available: {why}"));
        return out;
    }
    let _ = for_each_element(&mut loaded, |e| -> Result<(), ()> {
        match e {
            Element::I64(v) => flat.push(v),
            Element::U64(v) => flat.push(i64::try_from(v).unwrap_or(-1)),
            _ => {}
        }
        Ok(())
    });
    let rank = out.dims.len();
    out.coordinates = view.dims.as_deref().is_some_and(|d| d.len() == 2);
    if out.coordinates {
        let strides = strides(&out.dims);
        out.linear = flat
            .chunks(rank.max(1))
            .map(|c| {
                c.iter()
                    .zip(&strides)
                    .try_fold(0u64, |acc, (&i, &s)| {
                        acc.checked_add(u64::try_from(i).ok()?.checked_mul(s)?)
                    })
                    .unwrap_or(u64::MAX)
            })
            .collect();
    } else {
        out.linear = flat
            .iter()
            .map(|&l| u64::try_from(l).unwrap_or(u64::MAX))
            .collect();
    }
    out.flat = flat;
    out
}

/// The dense element count of a sparse tensor's dims.
fn dense_count(d: &SparseData) -> Option<u64> {
    element_count(&d.dims)
}

fn sparse_type_text(set: &SchemaSet, sp: &Message<'_>, d: &SparseData) -> String {
    let ty = data_type_name(
        set,
        sp.message(set, SparseTensorProto::VALUES)
            .and_then(|v| v.int(set, TensorProto::DATA_TYPE)),
    );
    let dims: Vec<String> = d.dims.iter().map(u64::to_string).collect();
    format!("{ty}[{}]", dims.join(", "))
}

/// The text of every non-zero value (nnz is bounded by the input's size).
fn sparse_values(
    set: &SchemaSet,
    sp: &Message<'_>,
    opts: &RenderOptions,
) -> (Vec<String>, Option<String>, Option<Elem>) {
    let Some(values) = sp.message(set, SparseTensorProto::VALUES) else {
        return (Vec::new(), None, None);
    };
    let view = onnx_tensor::view(set, values);
    let p = preview(&view, opts, u64::MAX);
    (p.head, p.unavailable, view.elem)
}

/// `sparse "name" FLOAT[2, 3] {(0, 1): 1.0, (1, 2): 2.0}` (attribute values).
fn sparse_inline(set: &SchemaSet, sp: &Message<'_>, opts: &RenderOptions) -> String {
    let d = sparse_data(set, sp, opts);
    let (vals, unavailable, _) = sparse_values(set, sp, opts);
    let mut s = String::from("sparse ");
    let values = sp.message(set, SparseTensorProto::VALUES);
    let vname = values
        .and_then(|v| v.bytes(set, TensorProto::NAME))
        .unwrap_or(&[]);
    if !vname.is_empty() {
        s.push_str(&quoted(vname));
        s.push(' ');
    }
    s.push_str(&sparse_type_text(set, sp, &d));
    if let Some(iname) = sp
        .message(set, SparseTensorProto::INDICES)
        .and_then(|i| i.bytes(set, TensorProto::NAME))
        .filter(|n| !n.is_empty())
    {
        let mut expected = vname.to_vec();
        expected.extend_from_slice(b"_idx");
        if iname != expected.as_slice() {
            s.push_str(&format!(" (indices {})", quoted(iname)));
        }
    }
    if let Some(why) = unavailable.or(d.problem.clone()) {
        s.push_str(&format!(" (values not available: {})", plain(&why)));
        return s;
    }
    let limit = opts.values.unwrap_or(DEFAULT_NESTED_VALUES);
    let items: Vec<String> = vals
        .iter()
        .enumerate()
        .take(usize::try_from(limit).unwrap_or(usize::MAX))
        .map(|(k, v)| format!("{}: {v}", d.coords(k)))
        .collect();
    let more = vals.len().saturating_sub(items.len());
    s.push_str(&format!(" {{{}", items.join(", ")));
    if more > 0 {
        s.push_str(&format!(", … {} more", grouped(more as u64)));
    }
    s.push('}');
    s
}

/// A sparse tensor and its values and indices tensors, with the fields
/// [`sparse_block`] shows marked printed.
struct SparseShown<'s, 'm, 'a> {
    sparse: Shown<'s, 'm, 'a>,
    values: Option<Shown<'s, 'm, 'a>>,
    indices: Option<Shown<'s, 'm, 'a>>,
}

impl<'s, 'm, 'a> SparseShown<'s, 'm, 'a> {
    fn new(set: &'s SchemaSet, sp: &'m Message<'a>) -> Self {
        let mut sparse = Shown::new(set, sp);
        sparse.take(SparseTensorProto::DIMS);
        let values = sparse
            .message(SparseTensorProto::VALUES)
            .map(|v| tensor_shown(set, v));
        let indices = sparse
            .message(SparseTensorProto::INDICES)
            .map(|i| tensor_shown(set, i));
        SparseShown {
            sparse,
            values,
            indices,
        }
    }

    fn has_rest(&self) -> bool {
        self.sparse.has_rest()
            || self.values.as_ref().is_some_and(Shown::has_rest)
            || self.indices.as_ref().is_some_and(Shown::has_rest)
    }
}

/// A sparse tensor as a block: type and density, the non-zeros with their
/// coordinates, and with `--dense` the dense tensor.
fn sparse_block(
    w: &mut dyn Write,
    set: &SchemaSet,
    label: &str,
    sp: &Message<'_>,
    depth: usize,
    opts: &RenderOptions,
    default_limit: u64,
) -> io::Result<()> {
    let shown = SparseShown::new(set, sp);
    let d = sparse_data(set, sp, opts);
    let (vals, unavailable, elem) = sparse_values(set, sp, opts);
    let values = shown.values.as_ref().map(Shown::msg);
    let indices = shown.indices.as_ref().map(Shown::msg);
    let vname = values
        .and_then(|v| v.bytes(set, TensorProto::NAME))
        .filter(|n| !n.is_empty());
    indent(w, depth)?;
    if !label.is_empty() {
        write!(w, "{label} ")?;
    }
    write!(w, "sparse ")?;
    if let Some(n) = vname {
        write!(w, "{}: ", name_text(n))?;
    }
    let nnz = vals.len().max(d.linear.len()) as u64;
    write!(
        w,
        "{}  {}",
        sparse_type_text(set, sp, &d),
        plural(nnz, "non-zero", "non-zeros")
    )?;
    if let Some(total) = dense_count(&d).filter(|&t| t > 0) {
        write!(
            w,
            " of {} ({:.1}% dense)",
            grouped(total),
            nnz as f64 * 100.0 / total as f64
        )?;
    }
    writeln!(w)?;
    // Where the parts came from: names and the index form.
    if let Some(i) = indices {
        let iv = onnx_tensor::view(set, i);
        indent(w, depth + 1)?;
        let form = if iv.dims.as_deref().is_some_and(|x| x.len() == 2) {
            "coordinates"
        } else {
            "linear indices"
        };
        write!(w, "indices: {} ({form})", tensor_type_text(&iv))?;
        if let Some(n) = i.bytes(set, TensorProto::NAME).filter(|n| !n.is_empty()) {
            write!(w, ", name {}", quoted(n))?;
        }
        writeln!(w)?;
    }
    if let Some(why) = unavailable.as_ref().or(d.problem.as_ref()) {
        indent(w, depth + 1)?;
        writeln!(w, "values not available: {}", plain(why))?;
    } else if nnz > 0 {
        let limit = opts.values.unwrap_or(default_limit);
        let n = vals.len() as u64;
        let (h, t) = if n > limit {
            (limit.div_ceil(2), limit / 2)
        } else {
            (n, 0)
        };
        for (k, v) in vals.iter().enumerate() {
            let k = k as u64;
            if k == h && t < n - h {
                indent(w, depth + 1)?;
                writeln!(
                    w,
                    "… {} left out (--values all shows them) …",
                    plural(n - h - t, "non-zero", "non-zeros")
                )?;
            }
            if k >= h && k < n - t {
                continue;
            }
            indent(w, depth + 1)?;
            writeln!(w, "{}  {v}", d.coords(k as usize))?;
        }
    }
    if opts.dense {
        dense_view(w, depth + 1, &d, &vals, elem, opts, default_limit)?;
    }
    // Fields of the parts that the lines above did not show.
    shown.sparse.rest(w, depth + 1, opts)?;
    for (label, part) in [
        (SparseTensorProto::VALUES.name, &shown.values),
        (SparseTensorProto::INDICES.name, &shown.indices),
    ] {
        if let Some(part) = part
            && part.has_rest()
        {
            indent(w, depth + 1)?;
            writeln!(w, "{label} {{")?;
            part.rest(w, depth + 2, opts)?;
            indent(w, depth + 1)?;
            writeln!(w, "}}")?;
        }
    }
    Ok(())
}

/// The dense tensor of a sparse one, streamed (never allocated): zeros
/// except at the non-zeros' positions, previewed like any tensor.
fn dense_view(
    w: &mut dyn Write,
    depth: usize,
    d: &SparseData,
    vals: &[String],
    elem: Option<Elem>,
    opts: &RenderOptions,
    default_limit: u64,
) -> io::Result<()> {
    indent(w, depth)?;
    let Some(total) = dense_count(d) else {
        return writeln!(w, "dense: the shape overflows");
    };
    let shape: Vec<String> = d.dims.iter().map(u64::to_string).collect();
    writeln!(
        w,
        "dense: [{}]  ({})",
        shape.join(", "),
        plural(total, "element", "elements")
    )?;
    let limit = opts.values.unwrap_or(default_limit);
    let (h, t) = if total > limit {
        (limit.div_ceil(2), limit / 2)
    } else {
        (total, 0)
    };
    let zero = zero_text(elem);
    // Ascending (validated), so each position is a binary search away; the
    // values are written as they are made, never collected.
    let at = |i: u64| -> &str {
        match d.linear.binary_search(&i) {
            Ok(k) => vals.get(k).map_or(zero.as_str(), String::as_str),
            Err(_) => zero.as_str(),
        }
    };
    let tail_from = total - t;
    let items = (0..h).chain(tail_from..total).map(|i| (i, at(i)));
    write_items(w, depth + 1, &d.dims, tail_from - h, tail_from, items)
}

// ------------------------------------------------------------------ types

/// TypeProto in ONNX's own short syntax: `FLOAT[N, 3]` (a tensor; `FLOAT`
/// alone when the rank is unknown), `seq(...)`, `map(KEY, ...)`,
/// `optional(...)`, `sparse(FLOAT[...])`, `opaque(domain.name)`.
fn type_text(set: &SchemaSet, tp: &Message<'_>) -> String {
    let mut s = if let Some(t) = tp.message(set, TypeProto::TENSOR_TYPE) {
        tensor_shape_text(set, t, TENSOR_TYPE)
    } else if let Some(t) = tp.message(set, TypeProto::SPARSE_TENSOR_TYPE) {
        format!("sparse({})", tensor_shape_text(set, t, SPARSE_TENSOR_TYPE))
    } else if let Some(t) = tp.message(set, TypeProto::SEQUENCE_TYPE) {
        format!("seq({})", sub_type(set, t, TypeProto::Sequence::ELEM_TYPE))
    } else if let Some(t) = tp.message(set, TypeProto::OPTIONAL_TYPE) {
        format!(
            "optional({})",
            sub_type(set, t, TypeProto::Optional::ELEM_TYPE)
        )
    } else if let Some(t) = tp.message(set, TypeProto::MAP_TYPE) {
        format!(
            "map({}, {})",
            data_type_name(set, t.int(set, TypeProto::Map::KEY_TYPE)),
            sub_type(set, t, TypeProto::Map::VALUE_TYPE)
        )
    } else if let Some(t) = tp.message(set, TypeProto::OPAQUE_TYPE) {
        let domain = str_of(set, t, TypeProto::Opaque::DOMAIN).unwrap_or_default();
        let name = str_of(set, t, TypeProto::Opaque::NAME).unwrap_or_default();
        if domain.is_empty() {
            format!("opaque({name})")
        } else {
            format!("opaque({domain}.{name})")
        }
    } else {
        "?".to_string()
    };
    if let Some(d) = tp.bytes(set, TypeProto::DENOTATION) {
        s.push_str(&format!(" ({})", quoted(d)));
    }
    s
}

fn sub_type(set: &SchemaSet, msg: &Message<'_>, field: FieldId) -> String {
    msg.message(set, field)
        .map_or_else(|| "?".to_string(), |t| type_text(set, t))
}

/// The element type and shape fields of TypeProto.Tensor or
/// TypeProto.SparseTensor, which read alike.
#[derive(Clone, Copy)]
struct TensorTypeFields {
    elem_type: FieldId,
    shape: FieldId,
}

const TENSOR_TYPE: TensorTypeFields = TensorTypeFields {
    elem_type: TypeProto::Tensor::ELEM_TYPE,
    shape: TypeProto::Tensor::SHAPE,
};

const SPARSE_TENSOR_TYPE: TensorTypeFields = TensorTypeFields {
    elem_type: TypeProto::SparseTensor::ELEM_TYPE,
    shape: TypeProto::SparseTensor::SHAPE,
};

fn tensor_shape_text(set: &SchemaSet, t: &Message<'_>, fields: TensorTypeFields) -> String {
    let ty = data_type_name(set, t.int(set, fields.elem_type));
    let Some(shape) = t.message(set, fields.shape) else {
        return ty;
    };
    let dims: Vec<String> = shape
        .messages(set, TensorShapeProto::DIM)
        .map(|d| {
            let mut s = if let Some(v) = d.int(set, TensorShapeProto::Dimension::DIM_VALUE) {
                v.to_string()
            } else if let Some(p) = d.bytes(set, TensorShapeProto::Dimension::DIM_PARAM) {
                name_text(p)
            } else {
                "?".to_string()
            };
            if let Some(den) = d.bytes(set, TensorShapeProto::Dimension::DENOTATION) {
                s.push_str(&format!(" ({})", quoted(den)));
            }
            s
        })
        .collect();
    format!("{ty}[{}]", dims.join(", "))
}

/// Whether the one-line type shows everything in it: no unknown fields, at
/// most one member of each oneof, no repeated singular fields.
fn type_complete(set: &SchemaSet, tp: &Message<'_>) -> bool {
    let mut ok = true;
    let _ = crate::formats::walk(tp, &mut |m| {
        if !m.unknown().is_empty() {
            ok = false;
        }
        let def = m.def(set);
        let mut oneofs: Vec<&str> = Vec::new();
        let mut i = 0;
        while let Some(f) = m.fields.get(i) {
            let Some(slot) = f.slot else { break };
            let group = m.slot(slot);
            i += group.len().max(1);
            let Some(fdef) = def.fields.get(slot) else {
                continue;
            };
            if !fdef.repeated() && group.len() > 1 {
                ok = false;
            }
            if let Some(o) = &fdef.oneof {
                if oneofs.contains(&&**o) {
                    ok = false;
                }
                oneofs.push(o);
            }
        }
        Ok(())
    });
    ok
}

/// `name: TYPE` and, under it, the value's other fields.
fn value_info(
    w: &mut dyn Write,
    set: &SchemaSet,
    vi: &Message<'_>,
    depth: usize,
    opts: &RenderOptions,
) -> io::Result<()> {
    let mut vi = Shown::new(set, vi);
    indent(w, depth)?;
    let name = vi.bytes(ValueInfoProto::NAME).unwrap_or(&[]);
    match vi.message(ValueInfoProto::TYPE) {
        Some(tp) => {
            writeln!(w, "{}: {}", name_text(name), type_text(set, tp))?;
            if !type_complete(set, tp) {
                indent(w, depth + 1)?;
                writeln!(w, "type (in full) {{")?;
                message_fields(w, set, tp, depth + 2, opts)?;
                indent(w, depth + 1)?;
                writeln!(w, "}}")?;
            }
        }
        None => writeln!(w, "{}: (no type)", name_text(name))?,
    }
    doc_line(w, &mut vi, ValueInfoProto::DOC_STRING, depth + 1, opts)?;
    metadata_line(w, &mut vi, ValueInfoProto::METADATA_PROPS, depth + 1, opts)?;
    vi.rest(w, depth + 1, opts)
}

// ------------------------------------------------------------- attributes

/// What a node line defers: subgraphs and fields shown under it.
enum Later<'s, 'm, 'a> {
    Graph(String, &'m Message<'a>),
    /// The fields of a message the line did not show.
    Rest(String, Shown<'s, 'm, 'a>),
    /// A sparse tensor whose parts have fields the line did not show.
    Sparse(String, &'m Message<'a>),
    Type(String, &'m Message<'a>),
}

const ATTR_FIELDS: [(i64, FieldId); 14] = [
    (1, AttributeProto::F),
    (2, AttributeProto::I),
    (3, AttributeProto::S),
    (4, AttributeProto::T),
    (5, AttributeProto::G),
    (6, AttributeProto::FLOATS),
    (7, AttributeProto::INTS),
    (8, AttributeProto::STRINGS),
    (9, AttributeProto::TENSORS),
    (10, AttributeProto::GRAPHS),
    (11, AttributeProto::SPARSE_TENSOR),
    (12, AttributeProto::SPARSE_TENSORS),
    (13, AttributeProto::TP),
    (14, AttributeProto::TYPE_PROTOS),
];

/// `name=value` for one attribute; subgraphs and extra fields go to `later`.
fn attribute_text<'s, 'm, 'a>(
    set: &'s SchemaSet,
    a: &'m Message<'a>,
    opts: &RenderOptions,
    later: &mut Vec<Later<'s, 'm, 'a>>,
) -> String {
    let mut s = Shown::new(set, a);
    let name = name_text(s.bytes(AttributeProto::NAME).unwrap_or(&[]));
    let ty = s.int(AttributeProto::TYPE).unwrap_or(0);
    // The value field the type names; without a type, the first present.
    let field = ATTR_FIELDS
        .iter()
        .find(|(t, _)| *t == ty)
        .or_else(|| ATTR_FIELDS.iter().find(|(_, f)| a.has(set, *f)))
        .map(|(_, f)| *f);
    let value = if let Some(r) = s.bytes(AttributeProto::REF_ATTR_NAME) {
        let t = if ty == 0 {
            String::new()
        } else {
            format!(
                ": {}",
                enum_name(set, "onnx.AttributeProto.AttributeType", ty)
            )
        };
        format!("@{}{t}", name_text(r))
    } else if let Some(field) = field {
        value_of(&mut s, field, &name, opts, later)
    } else {
        "(no value)".to_string()
    };
    if s.has_rest() {
        later.push(Later::Rest(format!("attribute {name}"), s));
    }
    format!("{name}={value}")
}

/// `name=value` of a node's attribute as the node line prints it (the
/// graph view's attribute list; subgraphs and fields the line leaves out
/// are not written).
pub fn node_attribute_text(
    set: &SchemaSet,
    node: &Message<'_>,
    attribute: &Message<'_>,
    opts: &RenderOptions,
) -> String {
    let mut later = Vec::new();
    let text = attribute_text(set, attribute, opts, &mut later);
    data_type_attribute(set, node, attribute, text)
}

fn value_of<'s, 'm, 'a>(
    s: &mut Shown<'s, 'm, 'a>,
    field: FieldId,
    attr: &str,
    opts: &RenderOptions,
    later: &mut Vec<Later<'s, 'm, 'a>>,
) -> String {
    let set = s.set();
    let a = s.take(field);
    let limit = super::elide::list_limit(opts);
    let take = usize::try_from(limit).unwrap_or(usize::MAX);
    match field {
        AttributeProto::F => a
            .scalar(set, AttributeProto::F)
            .map_or("?".into(), |v| match v {
                crate::decode::ScalarValue::F32(x) => format!("{x:?}"),
                other => format!("{other:?}"),
            }),
        AttributeProto::I => a
            .int(set, AttributeProto::I)
            .map_or("?".into(), |v| v.to_string()),
        AttributeProto::S => a
            .bytes(set, AttributeProto::S)
            .map_or("?".into(), |s| super::elide::quoted_long(s, opts)),
        AttributeProto::FLOATS => {
            let all: Vec<String> = a
                .scalars(set, AttributeProto::FLOATS)
                .map(|v| match v {
                    crate::decode::ScalarValue::F32(x) => format!("{x:?}"),
                    other => format!("{other:?}"),
                })
                .collect();
            let n = all.len();
            bracketed(all.into_iter().take(take).collect(), n)
        }
        AttributeProto::INTS => {
            let all: Vec<String> = a
                .scalars(set, AttributeProto::INTS)
                .filter_map(|v| v.as_i64())
                .map(|v| v.to_string())
                .collect();
            let n = all.len();
            bracketed(all.into_iter().take(take).collect(), n)
        }
        AttributeProto::STRINGS => {
            let all = strings(set, a, AttributeProto::STRINGS);
            let n = all.len();
            let items = all.into_iter().take(take);
            bracketed(
                items.map(|s| super::elide::quoted_long(s, opts)).collect(),
                n,
            )
        }
        AttributeProto::T
        | AttributeProto::TENSORS
        | AttributeProto::G
        | AttributeProto::GRAPHS
        | AttributeProto::SPARSE_TENSOR
        | AttributeProto::SPARSE_TENSORS
        | AttributeProto::TP
        | AttributeProto::TYPE_PROTOS => messages_value_of(set, a, field, attr, opts, later),
        _ => "?".into(),
    }
}

/// `[a, b, … N more]`: `items` of `total`, the rest counted.
fn bracketed(items: Vec<String>, total: usize) -> String {
    let more = total.saturating_sub(items.len());
    if more > 0 {
        format!("[{}, … {} more]", items.join(", "), grouped(more as u64))
    } else {
        format!("[{}]", items.join(", "))
    }
}

/// The value of an attribute holding messages (tensors, graphs, sparse
/// tensors, types): each inline, what does not fit inline shown `later`.
fn messages_value_of<'s, 'm, 'a>(
    set: &'s SchemaSet,
    a: &'m Message<'a>,
    field: FieldId,
    attr: &str,
    opts: &RenderOptions,
    later: &mut Vec<Later<'s, 'm, 'a>>,
) -> String {
    let take = usize::try_from(super::elide::list_limit(opts)).unwrap_or(usize::MAX);
    match field {
        AttributeProto::T | AttributeProto::TENSORS => {
            let ts: Vec<&'m Message<'a>> = a.messages(set, field).collect();
            for (k, t) in ts.iter().enumerate() {
                let shown = tensor_shown(set, t);
                if shown.has_rest() {
                    let label = if field == AttributeProto::T {
                        format!("{attr} tensor")
                    } else {
                        format!("{attr}[{k}] tensor")
                    };
                    later.push(Later::Rest(label, shown));
                }
            }
            let texts: Vec<String> = ts
                .iter()
                .take(take)
                .map(|t| tensor_inline(set, t, opts))
                .collect();
            if field == AttributeProto::T {
                texts.into_iter().next().unwrap_or_else(|| "?".into())
            } else {
                bracketed(texts, ts.len())
            }
        }
        AttributeProto::G | AttributeProto::GRAPHS => {
            let gs: Vec<&'m Message<'a>> = a.messages(set, field).collect();
            let mut texts = Vec::new();
            for (k, g) in gs.iter().enumerate() {
                let label = if field == AttributeProto::G {
                    attr.to_string()
                } else {
                    format!("{attr}[{k}]")
                };
                texts.push(format!(
                    "graph {}",
                    quoted(g.bytes(set, GraphProto::NAME).unwrap_or(&[]))
                ));
                later.push(Later::Graph(label, g));
            }
            if field == AttributeProto::G {
                texts.into_iter().next().unwrap_or_else(|| "?".into())
            } else {
                format!("[{}]", texts.join(", "))
            }
        }
        AttributeProto::SPARSE_TENSOR | AttributeProto::SPARSE_TENSORS => {
            let ss: Vec<&'m Message<'a>> = a.messages(set, field).collect();
            for (k, sp) in ss.iter().enumerate() {
                if SparseShown::new(set, sp).has_rest() {
                    let label = if field == AttributeProto::SPARSE_TENSOR {
                        format!("{attr} sparse tensor")
                    } else {
                        format!("{attr}[{k}] sparse tensor")
                    };
                    later.push(Later::Sparse(label, sp));
                }
            }
            let texts: Vec<String> = ss
                .iter()
                .take(take)
                .map(|s| sparse_inline(set, s, opts))
                .collect();
            if field == AttributeProto::SPARSE_TENSOR {
                texts.into_iter().next().unwrap_or_else(|| "?".into())
            } else {
                bracketed(texts, ss.len())
            }
        }
        AttributeProto::TP | AttributeProto::TYPE_PROTOS => {
            let ts: Vec<&'m Message<'a>> = a.messages(set, field).collect();
            for (k, tp) in ts.iter().enumerate() {
                if !type_complete(set, tp) {
                    let label = if field == AttributeProto::TP {
                        format!("{attr} type")
                    } else {
                        format!("{attr}[{k}] type")
                    };
                    later.push(Later::Type(label, tp));
                }
            }
            let texts: Vec<String> = ts
                .iter()
                .take(take)
                .map(|t| format!("type {}", type_text(set, t)))
                .collect();
            if field == AttributeProto::TP {
                texts.into_iter().next().unwrap_or_else(|| "?".into())
            } else {
                bracketed(texts, ts.len())
            }
        }
        _ => "?".into(),
    }
}

// ------------------------------------------------------------------ graphs

/// The fields naming an operator: a node's `op_type`, or a function's
/// `name`, with their `domain` and `overload`.
#[derive(Clone, Copy)]
struct OpFields {
    op: FieldId,
    domain: FieldId,
    overload: FieldId,
}

const NODE_OP: OpFields = OpFields {
    op: NodeProto::OP_TYPE,
    domain: NodeProto::DOMAIN,
    overload: NodeProto::OVERLOAD,
};

const FUNCTION_OP: OpFields = OpFields {
    op: FunctionProto::NAME,
    domain: FunctionProto::DOMAIN,
    overload: FunctionProto::OVERLOAD,
};

/// `domain.op:overload` of a node or a function.
fn op_text(m: &mut Shown<'_, '_, '_>, fields: OpFields) -> String {
    let op = name_text(m.bytes(fields.op).unwrap_or(&[]));
    let mut s = match m.str(fields.domain).map(plain).filter(|d| !d.is_empty()) {
        Some(d) => format!("{d}.{op}"),
        None => op,
    };
    if let Some(o) = m.bytes(fields.overload).filter(|o| !o.is_empty()) {
        s.push(':');
        s.push_str(&name_text(o));
    }
    s
}

fn names(list: &[&[u8]]) -> String {
    list.iter()
        .map(|n| name_text(n))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `[i] outputs = domain.op_type(inputs) {attr=value, ...}  # name`, then
/// subgraphs and fields the line does not show, indented under it.
fn node(
    w: &mut dyn Write,
    set: &SchemaSet,
    index: usize,
    n: &Message<'_>,
    depth: usize,
    opts: &RenderOptions,
) -> io::Result<()> {
    let mut n = Shown::new(set, n);
    let outputs = n.strings(NodeProto::OUTPUT);
    let inputs = n.strings(NodeProto::INPUT);
    let mut later = Vec::new();
    let attrs: Vec<String> = n
        .messages(NodeProto::ATTRIBUTE)
        .into_iter()
        .map(|a| {
            let text = attribute_text(set, a, opts, &mut later);
            data_type_attribute(set, n.msg(), a, text)
        })
        .collect();
    indent(w, depth)?;
    write!(w, "[{index}] ")?;
    if !outputs.is_empty() {
        write!(w, "{} = ", names(&outputs))?;
    }
    write!(w, "{}({})", op_text(&mut n, NODE_OP), names(&inputs))?;
    if !attrs.is_empty() {
        write!(w, " {{{}}}", attrs.join(", "))?;
    }
    if let Some(name) = n.bytes(NodeProto::NAME).filter(|s| !s.is_empty()) {
        write!(w, "  # {}", name_text(name))?;
    }
    writeln!(w)?;
    doc_line(w, &mut n, NodeProto::DOC_STRING, depth + 1, opts)?;
    metadata_line(w, &mut n, NodeProto::METADATA_PROPS, depth + 1, opts)?;
    write_later(w, set, &later, depth + 1, opts)?;
    n.rest(w, depth + 1, opts)
}

fn write_later(
    w: &mut dyn Write,
    set: &SchemaSet,
    later: &[Later<'_, '_, '_>],
    depth: usize,
    opts: &RenderOptions,
) -> io::Result<()> {
    for item in later {
        match item {
            Later::Graph(label, g) => graph(w, set, label, g, depth, opts)?,
            Later::Rest(label, shown) => {
                indent(w, depth)?;
                writeln!(w, "{label} {{")?;
                shown.rest(w, depth + 1, opts)?;
                indent(w, depth)?;
                writeln!(w, "}}")?;
            }
            Later::Sparse(label, m) => {
                indent(w, depth)?;
                writeln!(w, "{label} {{")?;
                sparse_block(w, set, "", m, depth + 1, opts, DEFAULT_NESTED_VALUES)?;
                indent(w, depth)?;
                writeln!(w, "}}")?;
            }
            Later::Type(label, tp) => {
                indent(w, depth)?;
                writeln!(w, "{label} (in full) {{")?;
                message_fields(w, set, tp, depth + 1, opts)?;
                indent(w, depth)?;
                writeln!(w, "}}")?;
            }
        }
    }
    Ok(())
}

fn section(w: &mut dyn Write, depth: usize, title: &str, n: usize) -> io::Result<()> {
    indent(w, depth)?;
    writeln!(w, "{title} ({}):", grouped(n as u64))
}

/// A graph's list of values (inputs, outputs, value_info) under its title,
/// when it has any.
fn value_infos(
    w: &mut dyn Write,
    set: &SchemaSet,
    g: &mut Shown<'_, '_, '_>,
    title: &str,
    field: FieldId,
    d: usize,
    opts: &RenderOptions,
) -> io::Result<()> {
    let vis = g.messages(field);
    if vis.is_empty() {
        return Ok(());
    }
    section(w, d, title, vis.len())?;
    for vi in vis {
        value_info(w, set, vi, d + 1, opts)?;
    }
    Ok(())
}

/// A graph: its name and counts, then inputs, outputs, nodes, value_info,
/// initializers, sparse initializers, quantization annotations and the rest.
fn graph(
    w: &mut dyn Write,
    set: &SchemaSet,
    label: &str,
    g: &Message<'_>,
    depth: usize,
    opts: &RenderOptions,
) -> io::Result<()> {
    let mut g = Shown::new(set, g);
    let nodes = g.messages(GraphProto::NODE);
    let inits = g.messages(GraphProto::INITIALIZER);
    let sparse = g.messages(GraphProto::SPARSE_INITIALIZER);
    indent(w, depth)?;
    if !label.is_empty() {
        write!(w, "{label}: ")?;
    }
    write!(
        w,
        "graph {}",
        quoted(g.bytes(GraphProto::NAME).unwrap_or(&[]))
    )?;
    write!(w, "  ({}", plural(nodes.len() as u64, "node", "nodes"))?;
    if !inits.is_empty() {
        write!(
            w,
            ", {}",
            plural(inits.len() as u64, "initializer", "initializers")
        )?;
    }
    if !sparse.is_empty() {
        write!(w, ", {} sparse", grouped(sparse.len() as u64))?;
    }
    writeln!(w, ")")?;
    let d = depth + 1;
    doc_line(w, &mut g, GraphProto::DOC_STRING, d, opts)?;
    metadata_line(w, &mut g, GraphProto::METADATA_PROPS, d, opts)?;
    // The signature, then the nodes, then the types of the values between
    // them (value_info: what a reader looks up, not reads first).
    for (title, field) in [
        ("inputs", GraphProto::INPUT),
        ("outputs", GraphProto::OUTPUT),
    ] {
        value_infos(w, set, &mut g, title, field, d, opts)?;
    }
    if !nodes.is_empty() {
        section(w, d, "nodes", nodes.len())?;
        for (i, n) in nodes.iter().enumerate() {
            node(w, set, i, n, d + 1, opts)?;
        }
    }
    value_infos(
        w,
        set,
        &mut g,
        "value_info",
        GraphProto::VALUE_INFO,
        d,
        opts,
    )?;
    if !inits.is_empty() {
        section(w, d, "initializers", inits.len())?;
        for t in inits {
            tensor_block(w, set, "", t, d + 1, opts, DEFAULT_NESTED_VALUES)?;
        }
    }
    if !sparse.is_empty() {
        section(w, d, "sparse initializers", sparse.len())?;
        for sp in sparse {
            sparse_block(w, set, "", sp, d + 1, opts, DEFAULT_NESTED_VALUES)?;
        }
    }
    let annotations = g.messages(GraphProto::QUANTIZATION_ANNOTATION);
    if !annotations.is_empty() {
        section(w, d, "quantization annotations", annotations.len())?;
        for a in annotations {
            let mut a = Shown::new(set, a);
            indent(w, d + 1)?;
            let pairs: Vec<String> = a
                .messages(TensorAnnotation::QUANT_PARAMETER_TENSOR_NAMES)
                .into_iter()
                .map(|e| pair_text(set, e, opts))
                .collect();
            writeln!(
                w,
                "{}: {}",
                name_text(a.bytes(TensorAnnotation::TENSOR_NAME).unwrap_or(&[])),
                pairs.join(", ")
            )?;
            a.rest(w, d + 2, opts)?;
        }
    }
    g.rest(w, d, opts)
}

/// `key = "value"` of a StringStringEntryProto (its unknown fields, if any,
/// are rare enough to show raw in the line).
fn pair_text(set: &SchemaSet, e: &Message<'_>, opts: &RenderOptions) -> String {
    let key = e.bytes(set, StringStringEntryProto::KEY).unwrap_or(&[]);
    let value = e.bytes(set, StringStringEntryProto::VALUE).unwrap_or(&[]);
    let mut s = format!(
        "{} = {}",
        name_text(key),
        super::elide::quoted_long(value, opts)
    );
    for u in e.unknown() {
        s.push_str(&format!(" (+ unknown field {})", u.number));
    }
    s
}

/// `doc: "..."` when the message has a doc_string (its field `doc`; a long
/// one cut).
fn doc_line(
    w: &mut dyn Write,
    m: &mut Shown<'_, '_, '_>,
    doc: FieldId,
    depth: usize,
    opts: &RenderOptions,
) -> io::Result<()> {
    match m.bytes(doc) {
        Some(doc) => {
            indent(w, depth)?;
            writeln!(w, "doc: {}", super::elide::quoted_long(doc, opts))
        }
        None => Ok(()),
    }
}

/// `metadata: key = "value", ...` when the message has metadata_props
/// (its field `props`).
fn metadata_line(
    w: &mut dyn Write,
    m: &mut Shown<'_, '_, '_>,
    props: FieldId,
    depth: usize,
    opts: &RenderOptions,
) -> io::Result<()> {
    let set = m.set();
    let pairs: Vec<String> = m
        .messages(props)
        .into_iter()
        .map(|e| pair_text(set, e, opts))
        .collect();
    if pairs.is_empty() {
        return Ok(());
    }
    indent(w, depth)?;
    writeln!(w, "metadata: {}", pairs.join(", "))
}

// ------------------------------------------------------------------- model

/// The opsets a model or function imports (its field `opset_import`).
fn opsets_text(m: &mut Shown<'_, '_, '_>, opset_import: FieldId) -> String {
    let set = m.set();
    m.messages(opset_import)
        .into_iter()
        .map(|o| {
            let domain = str_of(set, o, OperatorSetIdProto::DOMAIN)
                .filter(|d| !d.is_empty())
                .unwrap_or(Cow::Borrowed("ai.onnx"));
            match o.int(set, OperatorSetIdProto::VERSION) {
                Some(v) => format!("{domain} {v}"),
                None => domain.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn header(w: &mut dyn Write, label: &str, value: impl std::fmt::Display) -> io::Result<()> {
    writeln!(w, "  {label:<16}{value}")
}

/// The model view (TEXT_VIEWS entry of onnx.ModelProto): the summary as
/// its header, then the graph, functions, training info, and every other
/// field raw.
pub fn model(
    w: &mut dyn Write,
    set: &SchemaSet,
    m: &Message<'_>,
    opts: &RenderOptions,
) -> io::Result<()> {
    let mut m = Shown::new(set, m);
    let s = (onnx::MODEL.summary)(set, m.msg());
    for &field in onnx::MODEL_SUMMARY_FIELDS {
        m.take(field);
    }
    writeln!(w, "{}", s.title)?;
    // A device configuration's fields the line does not show follow it.
    let mut configurations = m.messages(ModelProto::CONFIGURATION).into_iter();
    for line in super::summary::lines(onnx::MODEL.id, &s, opts) {
        header(w, &format!("{}:", line.label), line.text)?;
        if line.key == "configuration"
            && let Some(c) = configurations.next()
        {
            let mut c = Shown::new(set, c);
            for field in [
                DeviceConfigurationProto::NAME,
                DeviceConfigurationProto::NUM_DEVICES,
                DeviceConfigurationProto::DEVICE,
            ] {
                c.take(field);
            }
            c.rest(w, 2, opts)?;
        }
    }
    let g = m.message(ModelProto::GRAPH);
    let functions = m.messages(ModelProto::FUNCTIONS);
    writeln!(w)?;
    if let Some(g) = g {
        graph(w, set, "", g, 0, opts)?;
    }
    if !functions.is_empty() {
        writeln!(w)?;
        section(w, 0, "functions", functions.len())?;
        for f in functions {
            function(w, set, f, 1, opts)?;
        }
    }
    let training = m.messages(ModelProto::TRAINING_INFO);
    if !training.is_empty() {
        writeln!(w)?;
        section(w, 0, "training_info", training.len())?;
        for (k, t) in training.iter().enumerate() {
            let mut t = Shown::new(set, t);
            indent(w, 1)?;
            writeln!(w, "[{k}]")?;
            for part in [
                TrainingInfoProto::INITIALIZATION,
                TrainingInfoProto::ALGORITHM,
            ] {
                if let Some(g) = t.message(part) {
                    graph(w, set, part.name, g, 2, opts)?;
                }
            }
            for b in [
                TrainingInfoProto::INITIALIZATION_BINDING,
                TrainingInfoProto::UPDATE_BINDING,
            ] {
                let pairs: Vec<String> = t
                    .messages(b)
                    .into_iter()
                    .map(|e| pair_text(set, e, opts))
                    .collect();
                if !pairs.is_empty() {
                    indent(w, 2)?;
                    writeln!(w, "{}: {}", b.name, pairs.join(", "))?;
                }
            }
            t.rest(w, 2, opts)?;
        }
    }
    if m.has_rest() {
        writeln!(w)?;
        writeln!(w, "other fields:")?;
        m.rest(w, 1, opts)?;
    }
    Ok(())
}

/// `function domain.name(inputs) -> (outputs) {attributes}`, its opsets,
/// nodes and value_info.
fn function(
    w: &mut dyn Write,
    set: &SchemaSet,
    f: &Message<'_>,
    depth: usize,
    opts: &RenderOptions,
) -> io::Result<()> {
    let mut f = Shown::new(set, f);
    let mut later = Vec::new();
    let mut attrs: Vec<String> = f
        .strings(FunctionProto::ATTRIBUTE)
        .iter()
        .map(|a| name_text(a))
        .collect();
    attrs.extend(
        f.messages(FunctionProto::ATTRIBUTE_PROTO)
            .into_iter()
            .map(|a| attribute_text(set, a, opts, &mut later)),
    );
    indent(w, depth)?;
    write!(
        w,
        "function {}({}) -> ({})",
        op_text(&mut f, FUNCTION_OP),
        names(&f.strings(FunctionProto::INPUT)),
        names(&f.strings(FunctionProto::OUTPUT))
    )?;
    if !attrs.is_empty() {
        write!(w, " {{{}}}", attrs.join(", "))?;
    }
    writeln!(w)?;
    let d = depth + 1;
    write_later(w, set, &later, d, opts)?;
    doc_line(w, &mut f, FunctionProto::DOC_STRING, d, opts)?;
    let opsets = opsets_text(&mut f, FunctionProto::OPSET_IMPORT);
    if !opsets.is_empty() {
        indent(w, d)?;
        writeln!(w, "opsets: {opsets}")?;
    }
    metadata_line(w, &mut f, FunctionProto::METADATA_PROPS, d, opts)?;
    let nodes = f.messages(FunctionProto::NODE);
    section(w, d, "nodes", nodes.len())?;
    for (i, n) in nodes.iter().enumerate() {
        node(w, set, i, n, d + 1, opts)?;
    }
    value_infos(
        w,
        set,
        &mut f,
        "value_info",
        FunctionProto::VALUE_INFO,
        d,
        opts,
    )?;
    f.rest(w, d, opts)
}

// -------------------------------------------------------------- containers

/// The elements of a SequenceProto (all five element fields, in order).
fn seq_elements<'m, 'a>(s: &mut Shown<'_, 'm, 'a>) -> Vec<&'m Message<'a>> {
    SEQUENCE_FIELDS
        .iter()
        .flat_map(|f| s.messages(*f))
        .collect()
}

/// A SequenceProto's or OptionalProto's `elem_type` (the field
/// `elem_type` of that message), by the name of its enum `enum_full`.
fn elem_type_text(msg: &mut Shown<'_, '_, '_>, elem_type: FieldId, enum_full: &str) -> String {
    match msg.int(elem_type) {
        Some(t) => enum_name(msg.set(), enum_full, t),
        None => "?".into(),
    }
}

/// Any container element: tensor, sparse tensor, sequence, map or optional.
fn element(
    w: &mut dyn Write,
    set: &SchemaSet,
    label: &str,
    m: &Message<'_>,
    depth: usize,
    opts: &RenderOptions,
) -> io::Result<()> {
    if is(set, m, "onnx.TensorProto") {
        let label = if label.is_empty() {
            "tensor".to_string()
        } else {
            format!("{label} tensor")
        };
        tensor_block(w, set, &label, m, depth, opts, DEFAULT_ROOT_VALUES)
    } else if is(set, m, "onnx.SparseTensorProto") {
        sparse_block(w, set, label, m, depth, opts, DEFAULT_ROOT_VALUES)
    } else if is(set, m, "onnx.SequenceProto") {
        sequence_block(w, set, label, m, depth, opts)
    } else if is(set, m, "onnx.MapProto") {
        map_block(w, set, label, m, depth, opts)
    } else if is(set, m, "onnx.OptionalProto") {
        optional_block(w, set, label, m, depth, opts)
    } else {
        indent(w, depth)?;
        writeln!(w, "{label} {{")?;
        message_fields(w, set, m, depth + 1, opts)?;
        indent(w, depth)?;
        writeln!(w, "}}")
    }
}

/// `LABEL KIND "NAME"` of a container (`name`: its name field).
fn label_name(
    w: &mut dyn Write,
    label: &str,
    kind: &str,
    m: &mut Shown<'_, '_, '_>,
    name: FieldId,
) -> io::Result<()> {
    if !label.is_empty() {
        write!(w, "{label} ")?;
    }
    write!(w, "{kind}")?;
    if let Some(n) = m.bytes(name).filter(|n| !n.is_empty()) {
        write!(w, " {}", quoted(n))?;
    }
    Ok(())
}

fn sequence_block(
    w: &mut dyn Write,
    set: &SchemaSet,
    label: &str,
    s: &Message<'_>,
    depth: usize,
    opts: &RenderOptions,
) -> io::Result<()> {
    let mut s = Shown::new(set, s);
    let elements = seq_elements(&mut s);
    indent(w, depth)?;
    label_name(w, label, "sequence", &mut s, SequenceProto::NAME)?;
    writeln!(
        w,
        " of {}, {}",
        elem_type_text(
            &mut s,
            SequenceProto::ELEM_TYPE,
            "onnx.SequenceProto.DataType"
        ),
        plural(elements.len() as u64, "element", "elements")
    )?;
    for (k, e) in elements.iter().enumerate() {
        element(w, set, &format!("[{k}]"), e, depth + 1, opts)?;
    }
    s.rest(w, depth + 1, opts)
}

fn optional_block(
    w: &mut dyn Write,
    set: &SchemaSet,
    label: &str,
    o: &Message<'_>,
    depth: usize,
    opts: &RenderOptions,
) -> io::Result<()> {
    let mut o = Shown::new(set, o);
    // The first value present; any other is not shown here and so printed
    // raw below.
    let value = OPTIONAL_FIELDS.iter().find_map(|f| o.message(*f));
    indent(w, depth)?;
    label_name(w, label, "optional", &mut o, OptionalProto::NAME)?;
    let ty = elem_type_text(
        &mut o,
        OptionalProto::ELEM_TYPE,
        "onnx.OptionalProto.DataType",
    );
    match value {
        None => writeln!(w, " of {ty}: empty (no value)")?,
        Some(v) => {
            writeln!(w, " of {ty}, holding:")?;
            element(w, set, "", v, depth + 1, opts)?;
        }
    }
    o.rest(w, depth + 1, opts)
}

fn map_block(
    w: &mut dyn Write,
    set: &SchemaSet,
    label: &str,
    m: &Message<'_>,
    depth: usize,
    opts: &RenderOptions,
) -> io::Result<()> {
    let mut m = Shown::new(set, m);
    let key_type = data_type_name(set, m.int(MapProto::KEY_TYPE));
    let string_keys = m.strings(MapProto::STRING_KEYS);
    let mut keys: Vec<String> = m
        .scalars(MapProto::KEYS)
        .into_iter()
        .filter_map(|v| v.as_i64())
        .map(|v| v.to_string())
        .collect();
    keys.extend(string_keys.iter().map(|k| quoted(k)));
    let mut values = m.message(MapProto::VALUES).map(|v| Shown::new(set, v));
    let elements = values.as_mut().map(seq_elements).unwrap_or_default();
    indent(w, depth)?;
    label_name(w, label, "map", &mut m, MapProto::NAME)?;
    let vt = values.as_mut().map_or("?".into(), |v| {
        elem_type_text(v, SequenceProto::ELEM_TYPE, "onnx.SequenceProto.DataType")
    });
    writeln!(
        w,
        " {key_type} -> {vt}, {}",
        plural(keys.len() as u64, "entry", "entries")
    )?;
    if let Some(n) = values
        .as_mut()
        .and_then(|v| v.bytes(SequenceProto::NAME))
        .filter(|n| !n.is_empty())
    {
        indent(w, depth + 1)?;
        writeln!(w, "values sequence: {}", quoted(n))?;
    }
    let count = keys.len().max(elements.len());
    for k in 0..count {
        let key = keys.get(k).map_or("(no key)", String::as_str);
        match elements.get(k) {
            Some(e) => element(w, set, &format!("[{key}] =>"), e, depth + 1, opts)?,
            None => {
                indent(w, depth + 1)?;
                writeln!(w, "[{key}] => (no value)")?;
            }
        }
    }
    if let Some(v) = values
        && v.has_rest()
    {
        indent(w, depth + 1)?;
        writeln!(w, "values {{")?;
        v.rest(w, depth + 2, opts)?;
        indent(w, depth + 1)?;
        writeln!(w, "}}")?;
    }
    m.rest(w, depth + 1, opts)
}

/// The sequence view (TEXT_VIEWS entry of onnx.SequenceProto). At the root a
/// sequence of at most one element is also an OptionalProto: say what that
/// reading holds.
pub fn sequence(
    w: &mut dyn Write,
    set: &SchemaSet,
    m: &Message<'_>,
    opts: &RenderOptions,
) -> io::Result<()> {
    sequence_block(w, set, "", m, 0, opts)?;
    let mut m = Shown::new(set, m);
    let n = seq_elements(&mut m).len();
    if n <= 1 {
        let ty = elem_type_text(
            &mut m,
            SequenceProto::ELEM_TYPE,
            "onnx.SequenceProto.DataType",
        );
        writeln!(w)?;
        if n == 0 {
            writeln!(w, "read as an OptionalProto: an empty optional of {ty}")?;
        } else {
            writeln!(
                w,
                "read as an OptionalProto: an optional of {ty} holding element [0]"
            )?;
        }
    }
    Ok(())
}

/// A sequence whose type came from elsewhere (a model's declaration): no
/// note about the OptionalProto reading.
pub fn sequence_only(
    w: &mut dyn Write,
    set: &SchemaSet,
    m: &Message<'_>,
    opts: &RenderOptions,
) -> io::Result<()> {
    sequence_block(w, set, "", m, 0, opts)
}

/// TEXT_VIEWS entry of onnx.MapProto.
pub fn map(
    w: &mut dyn Write,
    set: &SchemaSet,
    m: &Message<'_>,
    opts: &RenderOptions,
) -> io::Result<()> {
    map_block(w, set, "", m, 0, opts)
}

/// TEXT_VIEWS entry of onnx.OptionalProto.
pub fn optional(
    w: &mut dyn Write,
    set: &SchemaSet,
    m: &Message<'_>,
    opts: &RenderOptions,
) -> io::Result<()> {
    optional_block(w, set, "", m, 0, opts)
}

/// TEXT_VIEWS entry of onnx.SparseTensorProto: the non-zeros with their
/// coordinates; `--dense` adds the dense tensor.
pub fn sparse(
    w: &mut dyn Write,
    set: &SchemaSet,
    m: &Message<'_>,
    opts: &RenderOptions,
) -> io::Result<()> {
    sparse_block(w, set, "", m, 0, opts, DEFAULT_ROOT_VALUES)?;
    if !opts.dense {
        writeln!(w)?;
        writeln!(w, "(--dense shows the dense tensor)")?;
    }
    Ok(())
}

// ------------------------------------------------- data types, constants

/// `to=INT64` for an attribute whose integer is a data type (Cast `to`,
/// RandomNormal `dtype`, ...: `elide::DATA_TYPE_ATTRIBUTES`), else `text`.
fn data_type_attribute(set: &SchemaSet, n: &Message<'_>, a: &Message<'_>, text: String) -> String {
    let domain = str_of(set, n, NodeProto::DOMAIN).unwrap_or_default();
    let op = str_of(set, n, NodeProto::OP_TYPE).unwrap_or_default();
    let name = str_of(set, a, AttributeProto::NAME).unwrap_or_default();
    if !super::elide::is_data_type_attribute(&domain, &op, &name) {
        return text;
    }
    match a.int(set, AttributeProto::I) {
        Some(code) if text == format!("{}={code}", name_text(name.as_bytes())) => format!(
            "{}={}",
            name_text(name.as_bytes()),
            data_type_name(set, Some(code))
        ),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use crate::decode::DecodeContext;
    use crate::formats::{decode_builtin, onnx_tensor};
    use crate::render::RenderOptions;
    use crate::schema::SchemaSet;

    /// A FLOAT tensor of `dims` with raw_data 0.5, 1.5, 2.5, ...
    fn float_tensor(dims: &[u64]) -> Vec<u8> {
        fn varint(mut v: u64, out: &mut Vec<u8>) {
            while v >= 0x80 {
                out.push((v as u8) | 0x80);
                v >>= 7;
            }
            out.push(v as u8);
        }
        let mut b = Vec::new();
        for &d in dims {
            b.push(0x08);
            varint(d, &mut b);
        }
        b.extend_from_slice(&[0x10, 0x01, 0x4a]);
        let n: u64 = dims.iter().product();
        varint(n * 4, &mut b);
        for i in 0..n {
            b.extend_from_slice(&(i as f32 + 0.5).to_le_bytes());
        }
        b
    }

    #[test]
    fn streamed_rows_are_the_preview_rows() -> Result<(), Box<dyn std::error::Error>> {
        let set = SchemaSet::builtin();
        for dims in [&[700u64, 100][..], &[70_001], &[3, 7, 5_000]] {
            let bytes = float_tensor(dims);
            let m = decode_builtin("onnx.TensorProto", &bytes, DecodeContext::strict())?;
            let view = onnx_tensor::view(set, &m);
            for limit in [u64::MAX, 69_999, 1_000, 0] {
                let opts = RenderOptions::default();
                let mut want = b"\n".to_vec();
                let p = super::preview(&view, &opts, limit);
                super::write_rows(&mut want, 2, &super::udims(&view), &p)?;
                let mut got = Vec::new();
                let why = super::stream_rows(&mut got, &view, limit, 2, &opts)?;
                assert!(why.is_none());
                assert!(
                    got == want,
                    "{dims:?} limit {limit}: {} vs {} bytes",
                    got.len(),
                    want.len()
                );
            }
        }
        Ok(())
    }
}
