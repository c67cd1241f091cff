//! The generic text tree of a message and the tensor preview every view
//! shares: fields as an indented tree, tensors with their type, shape and
//! values row by row (long value lists elided in the middle with a count of
//! what was left out; `--values all` prints everything).

use super::fmt::{element_text, indent, pad};
use super::{LoadedValues, RenderOptions, load_values};
use crate::decode::{Message, RawScalars, ScalarValue, Value};
use crate::escape::{hex_preview, plain};
use crate::formats::tensor_adapter;
use crate::progress::Progress;
use crate::schema::{FieldDef, FieldType, Scalar, SchemaSet};
use crate::tensor::TensorView;
use crate::tensor::{Element, Elements, Source};
use crate::wire::WireValue;
use std::io::{self, Write};

/// Values shown per tensor when the user did not say: enough to see the
/// data, few enough to keep a model readable.
pub const DEFAULT_ROOT_VALUES: u64 = 200;
pub const DEFAULT_NESTED_VALUES: u64 = 8;

fn scalar_text(set: &SchemaSet, ty: FieldType, v: ScalarValue) -> String {
    match v {
        ScalarValue::I64(v) => v.to_string(),
        ScalarValue::U64(v) => v.to_string(),
        ScalarValue::F32(v) => format!("{v:?}"),
        ScalarValue::F64(v) => format!("{v:?}"),
        ScalarValue::Bool(b) => b.to_string(),
        ScalarValue::Enum(n) => match ty {
            FieldType::Enum(e) => match set.enum_def(e).name_of(i64::from(n)) {
                Some(name) => plain(name).into_owned(),
                None => format!("UNKNOWN({n})"),
            },
            _ => n.to_string(),
        },
    }
}

/// A scalar, string or bytes value; a long string is cut as
/// [`super::elide::quoted_long`] says (`--values all` shows it whole).
fn value_text(set: &SchemaSet, fdef: &FieldDef, v: &Value<'_>, opts: &RenderOptions) -> String {
    match v {
        Value::Scalar(raw) => scalar_text(set, fdef.ty, ScalarValue::from_raw(fdef.ty, *raw)),
        Value::Bytes(b) => match fdef.ty {
            FieldType::Scalar(Scalar::String) => super::elide::quoted_long(b, opts),
            _ => match crate::schemaless::is_text(b) {
                Some(s) if !s.is_empty() => super::elide::quoted_long(s.as_bytes(), opts),
                _ => hex_preview(b),
            },
        },
        _ => String::new(),
    }
}

/// Fields of a message, one per line, nested messages indented.
pub fn message_fields(
    w: &mut dyn Write,
    set: &SchemaSet,
    msg: &Message<'_>,
    depth: usize,
    opts: &RenderOptions,
) -> io::Result<()> {
    let def = msg.def(set);
    let adapter = tensor_adapter(&def.full_name);
    for (fdef, group) in msg.present(set) {
        if adapter.is_some_and(|a| {
            a.value_fields.iter().any(|f| f.name == fdef.name)
                || a.header_fields.iter().any(|f| f.name == fdef.name)
        }) {
            continue;
        }
        match fdef.ty {
            FieldType::Message(sub) => {
                let is_tensor = tensor_adapter(&set.message(sub).full_name).is_some();
                let is_map = set.message(sub).map_entry;
                for (k, f) in group.iter().enumerate() {
                    let Value::Message(m) = &f.value else {
                        continue;
                    };
                    indent(w, depth)?;
                    let label = if fdef.repeated() && group.len() > 1 && !is_map {
                        format!("{}[{k}]", plain(&fdef.name))
                    } else {
                        plain(&fdef.name).into_owned()
                    };
                    if is_map {
                        map_entry(w, set, &label, m, depth, opts)?;
                    } else if is_tensor {
                        writeln!(w, "{label}:")?;
                        tensor_block(w, set, m, depth + 1, opts, false)?;
                    } else if m.fields.is_empty() {
                        writeln!(w, "{label} {{}}")?;
                    } else {
                        writeln!(w, "{label} {{")?;
                        message_fields(w, set, m, depth + 1, opts)?;
                        indent(w, depth)?;
                        writeln!(w, "}}")?;
                    }
                }
            }
            _ if fdef.repeated() => {
                indent(w, depth)?;
                let limit = usize::try_from(super::elide::list_limit(opts)).unwrap_or(usize::MAX);
                let mut items: Vec<String> = Vec::new();
                let mut total = 0u64;
                for f in group {
                    match f.value {
                        Value::Scalar(_) | Value::Packed(_) => {
                            for raw in RawScalars::new(&f.value, fdef.ty.wire_type()) {
                                total += 1;
                                if items.len() < limit {
                                    items.push(scalar_text(
                                        set,
                                        fdef.ty,
                                        ScalarValue::from_raw(fdef.ty, raw),
                                    ));
                                }
                            }
                        }
                        _ => {
                            total += 1;
                            if items.len() < limit {
                                items.push(value_text(set, fdef, &f.value, opts));
                            }
                        }
                    }
                }
                writeln!(
                    w,
                    "{}: {}",
                    plain(&fdef.name),
                    super::elide::bracketed(&items, total)
                )?;
            }
            _ => {
                if let Some(last) = group.last() {
                    indent(w, depth)?;
                    // Names come from the schema, which may be the user's
                    // descriptor set: escaped like any string of a file.
                    writeln!(
                        w,
                        "{}: {}",
                        plain(&fdef.name),
                        value_text(set, fdef, &last.value, opts)
                    )?;
                }
            }
        }
    }
    for f in msg.unknown() {
        indent(w, depth)?;
        let Value::Unknown(v) = &f.value else {
            continue;
        };
        if let WireValue::Len(_) | WireValue::Group(_) = v {
            // Read without a schema: a message, text, packed numbers, ...
            write!(
                w,
                "{} ({}, not in the schema) @0x{:x}: ",
                f.number,
                v.wire_type().name(),
                f.offset
            )?;
            let tree = crate::schemaless::decode_field(
                f.number,
                *v,
                f.offset,
                f.value_offset,
                f.end,
                Default::default(),
            );
            super::schemaless::write_unknown_text(w, &tree, depth, opts)?;
            continue;
        }
        let shown = match v {
            WireValue::Varint(x) | WireValue::Fixed64(x) => x.to_string(),
            WireValue::Fixed32(x) => x.to_string(),
            WireValue::Len(b) | WireValue::Group(b) => hex_preview(b),
        };
        writeln!(
            w,
            "{} ({}, not in the schema) @0x{:x}: {shown}",
            f.number,
            v.wire_type().name(),
            f.offset
        )?;
    }
    Ok(())
}

fn map_entry(
    w: &mut dyn Write,
    set: &SchemaSet,
    label: &str,
    entry: &Message<'_>,
    depth: usize,
    opts: &RenderOptions,
) -> io::Result<()> {
    let def = entry.def(set);
    // An absent key is its type's default.
    let key = def
        .field_by_number(1)
        .map(|(slot, kdef)| match entry.slot(slot).last() {
            Some(f) => value_text(set, kdef, &f.value, opts),
            None => value_text(set, kdef, &default_value(kdef), opts),
        })
        .unwrap_or_default();
    match def.field_by_number(2) {
        Some((slot, vdef)) => match entry.slot(slot).last().map(|f| &f.value) {
            Some(Value::Message(m)) => {
                writeln!(w, "{label}[{key}] {{")?;
                message_fields(w, set, m, depth + 1, opts)?;
                indent(w, depth)?;
                writeln!(w, "}}")
            }
            Some(v) => writeln!(w, "{label}[{key}]: {}", value_text(set, vdef, v, opts)),
            None => writeln!(w, "{label}[{key}]: (default)"),
        },
        None => writeln!(w, "{label}[{key}]"),
    }
}

/// The value a field has when absent, as the decoder would hold it.
fn default_value(f: &FieldDef) -> Value<'static> {
    match f.ty {
        FieldType::Scalar(Scalar::String | Scalar::Bytes) => Value::Bytes(&[]),
        _ => Value::Scalar(0),
    }
}

pub fn shape_text(view: &TensorView<'_, '_>) -> String {
    match &view.dims {
        None => "unknown rank".to_string(),
        Some(d) if d.is_empty() => "scalar".to_string(),
        Some(d) => {
            let parts: Vec<String> = d.iter().map(|x| x.to_string()).collect();
            format!("[{}]", parts.join(", "))
        }
    }
}

/// A tensor whose message has no tensor adapter (a tensor bundle's
/// entry) seen as `view`: its type and shape, its fields, its values.
pub fn tensor_block_with_view<'v>(
    w: &mut dyn Write,
    set: &SchemaSet,
    msg: &Message<'_>,
    view: &TensorView<'v, 'v>,
    opts: &RenderOptions,
) -> io::Result<()> {
    writeln!(w, "data type: {}", view.type_name)?;
    match view.dims.as_deref() {
        Some(_) => writeln!(
            w,
            "shape:     {}  ({} element{})",
            shape_text(view),
            super::elide::grouped(view.elements),
            if view.elements == 1 { "" } else { "s" }
        )?,
        None => writeln!(w, "shape:     {}", shape_text(view))?,
    }
    message_fields(w, set, msg, 0, opts)?;
    let loaded = load_values(view, opts);
    view_values(w, view, loaded, 0, opts, true)
}

/// [`tensor_block_with_view`] of a V1 checkpoint's tensor saved in
/// slices (`msg` its header's listing), its values read from the slices in
/// `file` ([`sliced_values`]); false, writing nothing, when they do not
/// read alone (strings, or slices that do not make the tensor: the
/// assembled view says why).
pub fn tensor_block_of_slices(
    w: &mut dyn Write,
    msg: &Message<'_>,
    sliced: &crate::formats::tf_checkpoint::V1Slices,
    file: &[u8],
    opts: &RenderOptions,
) -> io::Result<bool> {
    let set = SchemaSet::builtin();
    let values = match crate::formats::tf_checkpoint::V1SlicedValues::open(set, sliced, file) {
        Ok(v) if v.elem != crate::tensor::Elem::Str => v,
        _ => return Ok(false),
    };
    let view = sliced.view(set);
    writeln!(w, "data type: {}", view.type_name)?;
    writeln!(
        w,
        "shape:     {}  ({} element{})",
        shape_text(&view),
        super::elide::grouped(view.elements),
        if view.elements == 1 { "" } else { "s" }
    )?;
    message_fields(w, set, msg, 0, opts)?;
    sliced_values(w, &view, &values, 0, opts, true)?;
    Ok(true)
}

/// A tensor: its header lines, its other fields, and its values.
pub fn tensor_block(
    w: &mut dyn Write,
    set: &SchemaSet,
    msg: &Message<'_>,
    depth: usize,
    opts: &RenderOptions,
    root: bool,
) -> io::Result<()> {
    let Some(adapter) = tensor_adapter(&msg.def(set).full_name) else {
        return message_fields(w, set, msg, depth, opts);
    };
    let view = (adapter.view)(set, msg);
    indent(w, depth)?;
    writeln!(w, "data type: {}", view.type_name)?;
    indent(w, depth)?;
    let count = view.dims.as_deref().and_then(|d| {
        d.iter().try_fold(1u64, |acc, &x| {
            u64::try_from(x).ok().and_then(|x| acc.checked_mul(x))
        })
    });
    match count {
        Some(c) => writeln!(
            w,
            "shape:     {}  ({} element{})",
            shape_text(&view),
            super::elide::grouped(c),
            if c == 1 { "" } else { "s" }
        )?,
        None => writeln!(w, "shape:     {}", shape_text(&view))?,
    }
    if let Some(why) = (adapter.warning)(set, msg) {
        indent(w, depth)?;
        writeln!(w, "warning:   {why}")?;
    }
    message_fields(w, set, msg, depth, opts)?;
    let loaded = load_values(&view, opts);
    view_values(w, &view, loaded, depth, opts, root)
}

/// A tensor's `values:` lines (a preview, or all of them for the root),
/// then its statistics, histogram and colour preview, from values already
/// loaded.
pub fn view_values(
    w: &mut dyn Write,
    view: &TensorView<'_, '_>,
    mut loaded: LoadedValues<'_>,
    depth: usize,
    opts: &RenderOptions,
    root: bool,
) -> io::Result<()> {
    let plan = ValuesPlan::new(view, view.elements, opts, root);
    indent(w, depth)?;
    match &loaded {
        LoadedValues::Unavailable(why) => {
            return writeln!(w, "values:    not available: {}", plain(why));
        }
        LoadedValues::Nothing if view.elements == 0 => return writeln!(w, "values:    (none)"),
        _ => {}
    }
    writeln!(w, "values:")?;
    // The elements between head and tail are skipped, not decoded; the
    // statistics come from their own pass (src/stats.rs).
    let rows = HeadAndTail {
        head: plan.head,
        tail: plan.tail,
        total: plan.total,
        depth: depth + 1,
        dims: &plan.dims,
    };
    rows.write(w, &mut loaded, opts, |n| plan.gap(n))?;
    let read_all = plan.read_all;
    if !read_all {
        return Ok(());
    }
    let stats = crate::stats::compute_with(view, opts.dir.as_ref(), opts.progress.get())
        .unwrap_or_default();
    // Statistics, --histogram and the colour preview (src/stats.rs).
    let pad = pad(depth);
    super::stats_view::write_text_summary(w, &pad, view, opts.dir.as_ref(), &stats, opts)
}

/// Which of a tensor's values its `values:` lines show: the first `head`
/// and last `tail` of `total`, and whether statistics follow.
struct ValuesPlan {
    total: u64,
    dims: Vec<u64>,
    head: u64,
    tail: u64,
    /// Every value is read: for the tensor the user asked for (or with
    /// --stats), whose statistics need them all; a nested tensor's preview
    /// reads only its first values, so the rest of a mapped model is never
    /// touched.
    read_all: bool,
    /// The values shown were cut to those stored (implied ones left out).
    capped: bool,
}

impl ValuesPlan {
    fn new(view: &TensorView<'_, '_>, total: u64, opts: &RenderOptions, root: bool) -> Self {
        let default = if root {
            DEFAULT_ROOT_VALUES
        } else {
            DEFAULT_NESTED_VALUES
        };
        let (limit, capped) = super::value_limit(view, opts.values.unwrap_or(default), opts);
        let dims: Vec<u64> = view
            .dims
            .clone()
            .unwrap_or_default()
            .iter()
            .map(|&d| u64::try_from(d).unwrap_or(0))
            .collect();
        // Rows of whole trailing axes (see src/render/elide.rs).
        let row = super::elide::row_len(&dims);
        let read_all = root || opts.stats || total <= limit;
        let (head, tail) = if total <= limit {
            (total, 0)
        } else if read_all {
            super::elide::whole_rows(total, limit, row)
        } else {
            // The first values only, cut at the end of a row.
            (super::elide::whole_head(total, limit, row), 0)
        };
        ValuesPlan {
            total,
            dims,
            head,
            tail,
            read_all,
            capped,
        }
    }

    /// The line between head and tail when `n` values are left out.
    fn gap(&self, n: u64) -> String {
        let n = super::elide::grouped(n);
        if !self.read_all {
            format!("… {n} more values (--values all shows them)")
        } else if self.capped {
            format!("… {n} values left out (implied by padding: --allow-implied shows them) …")
        } else {
            format!("… {n} values left out (--values all shows them) …")
        }
    }
}

/// [`view_values`] of a V1 checkpoint's tensor saved in slices, never
/// assembled: the values shown are read from the slices holding them (8
/// values read 8), in runs of whole lines when all are shown; the
/// statistics and histogram are the slices' merged; only the colour
/// preview, an image of the whole tensor, assembles it (a fallible,
/// bounded allocation).
pub fn sliced_values(
    w: &mut dyn Write,
    view: &TensorView<'_, '_>,
    values: &crate::formats::tf_checkpoint::V1SlicedValues<'_>,
    depth: usize,
    opts: &RenderOptions,
    root: bool,
) -> io::Result<()> {
    let plan = ValuesPlan::new(view, values.len(), opts, root);
    let (total, dims) = (plan.total, &plan.dims);
    indent(w, depth)?;
    if total == 0 {
        return writeln!(w, "values:    (none)");
    }
    let (per_line, row) = line_layout(dims);
    writeln!(w, "values:")?;
    let elem = values.elem;
    let mut reader = values.reader();
    let mut buf = Vec::new();
    let mut rows = |w: &mut dyn Write, range: std::ops::Range<u64>| -> io::Result<()> {
        let mut s = range.start;
        while s < range.end {
            // Whole lines, about ROW_CHUNK values.
            let mut e = s;
            while e < range.end && e - s < ROW_CHUNK {
                e = line_end(e, range.end, per_line, row);
            }
            buf.clear();
            if let Err(why) = reader.pack(s..e, &mut buf) {
                indent(w, depth + 1)?;
                return writeln!(w, "not available: {}", plain(&why.to_string()));
            }
            let mut part =
                LoadedValues::Ready(Elements::new(elem, Source::Raw(&buf), e - s), e - s);
            rows_sequential(w, &mut part, s, 0..e - s, depth + 1, dims)?;
            s = e;
        }
        Ok(())
    };
    rows(w, 0..plan.head)?;
    let tail_from = total.saturating_sub(plan.tail).max(plan.head);
    if tail_from > plan.head {
        indent(w, depth + 1)?;
        writeln!(w, "{}", plan.gap(tail_from - plan.head))?;
    }
    rows(w, tail_from..total)?;
    if !plan.read_all || !elem.is_numeric() {
        return Ok(());
    }
    let Some(stats) = crate::stats::compute_filled(values.elem, values.len(), {
        let mut reader = values.reader();
        move |range, buf| reader.pack(range, buf).is_ok()
    }) else {
        return Ok(());
    };
    let pad = pad(depth);
    stats.write_text(w, &pad)?;
    if opts.histogram
        && let Some(h) = crate::stats::histogram_parts(values.slice_views(), &stats)
    {
        h.write_text(w, &pad)?;
    }
    if opts.color
        && let Ok(data) = values.assemble()
    {
        let whole = data.view(view);
        crate::picture::write_preview(w, &pad, &whole, None, &stats)?;
    }
    Ok(())
}

/// The first `head` and last `tail` of a tensor's `total` values, in rows
/// at `depth` for its shape `dims`.
pub struct HeadAndTail<'d> {
    pub head: u64,
    pub tail: u64,
    pub total: u64,
    pub depth: usize,
    pub dims: &'d [u64],
}

impl HeadAndTail<'_> {
    /// Writes the rows ([`write_value_rows`]: in parallel for stored
    /// bytes), with the line `gap(n)` between head and tail when `n`
    /// values are left out.
    pub fn write(
        &self,
        w: &mut dyn Write,
        loaded: &mut LoadedValues<'_>,
        opts: &RenderOptions,
        gap: impl FnOnce(u64) -> String,
    ) -> io::Result<()> {
        let threads = crate::progress::threads();
        let progress = opts.progress.get();
        let tail_from = self.total.saturating_sub(self.tail).max(self.head);
        let (depth, dims) = (self.depth, self.dims);
        write_value_rows(w, loaded, 0..self.head, depth, dims, threads, progress)?;
        if tail_from > self.head {
            indent(w, depth)?;
            writeln!(w, "{}", gap(tail_from - self.head))?;
        }
        write_value_rows(
            w,
            loaded,
            tail_from..self.total,
            depth,
            dims,
            threads,
            progress,
        )
    }
}

/// The index of element `start` of a tensor shaped `dims`, as a line
/// prefix: `[1,0,2] ` (rank 2 and up), `[7] ` (rank 1), nothing for scalars.
pub fn index_prefix(dims: &[u64], start: u64) -> String {
    match dims.len() {
        0 => String::new(),
        1 => format!("[{start}] "),
        n => {
            let mut idx = vec![0u64; n];
            let mut rest = start;
            for (slot, &d) in idx.iter_mut().zip(dims).rev() {
                if d > 0 {
                    *slot = rest % d;
                    rest /= d;
                }
            }
            let parts: Vec<String> = idx.iter().map(u64::to_string).collect();
            format!("[{}] ", parts.join(","))
        }
    }
}

/// Writes one line of values, prefixed by the index of its first element,
/// and empties `line`.
pub fn flush_line<S: AsRef<str>>(
    w: &mut dyn Write,
    depth: usize,
    dims: &[u64],
    start: u64,
    line: &mut Vec<S>,
) -> io::Result<()> {
    if line.is_empty() {
        return Ok(());
    }
    indent(w, depth)?;
    write!(w, "{}", index_prefix(dims, start))?;
    for (k, item) in line.iter().enumerate() {
        if k > 0 {
            w.write_all(b"  ")?;
        }
        w.write_all(item.as_ref().as_bytes())?;
    }
    writeln!(w)?;
    line.clear();
    Ok(())
}

/// Values formatted by one thread in one run of [`write_value_rows`].
const ROW_CHUNK: u64 = 1 << 18;

/// Values a line holds and the length of a row, for a tensor shaped `dims`.
fn line_layout(dims: &[u64]) -> (u64, u64) {
    let row = super::elide::row_len(dims);
    let per_line = if row == 0 {
        super::elide::PER_LINE
    } else {
        row.min(super::elide::PER_LINE)
    };
    (per_line, row)
}

/// Where the line that starts at `s` ends: after `per_line` values, at the
/// end of a row, or at `end`.
fn line_end(s: u64, end: u64, per_line: u64, row: u64) -> u64 {
    let mut e = s.saturating_add(per_line);
    if let Some(r) = s.checked_div(row) {
        e = e.min(r.saturating_add(1).saturating_mul(row));
    }
    e.min(end)
}

/// The first start of a line at or after `x` (at least `a`) when lines of
/// values start at `a`: every `per_line` values and at every row start.
fn line_start_at(a: u64, x: u64, per_line: u64, row: u64) -> u64 {
    let up = |from: u64, x: u64| {
        from.saturating_add(
            x.saturating_sub(from)
                .div_ceil(per_line)
                .saturating_mul(per_line),
        )
    };
    if row == 0 {
        return up(a, x);
    }
    let first_end = (a / row).saturating_add(1).saturating_mul(row);
    if x < first_end {
        return up(a, x).min(first_end);
    }
    let rs = x / row * row;
    up(rs, x).min(rs.saturating_add(row))
}

/// Writes the values `range` of loaded values in lines, as the text views
/// print them: a line starts at `range.start`, after [`super::elide::PER_LINE`]
/// values and at every row of whole trailing axes, each prefixed by its
/// indentation and the index of its first value. Values in raw storage
/// (raw_data, tensor_content, external data) are formatted in runs of
/// whole lines on up to `threads` threads and written in order, byte for
/// byte as the one-thread path writes them.
pub fn write_value_rows(
    w: &mut dyn Write,
    loaded: &mut LoadedValues<'_>,
    range: std::ops::Range<u64>,
    depth: usize,
    dims: &[u64],
    threads: usize,
    progress: &dyn Progress,
) -> io::Result<()> {
    let layout = RowsLayout {
        depth,
        dims,
        run: ROW_CHUNK,
    };
    write_value_rows_in(w, loaded, range, &layout, threads, progress)
}

/// Where value rows go: their indentation, the tensor's shape and the
/// values a thread formats in one run (about; runs end at line ends).
pub struct RowsLayout<'d> {
    pub depth: usize,
    pub dims: &'d [u64],
    pub run: u64,
}

/// [`write_value_rows`] with runs of `layout.run` values (tests split small
/// tensors into many runs this way).
pub fn write_value_rows_in(
    w: &mut dyn Write,
    loaded: &mut LoadedValues<'_>,
    range: std::ops::Range<u64>,
    layout: &RowsLayout<'_>,
    threads: usize,
    progress: &dyn Progress,
) -> io::Result<()> {
    let (depth, dims, run) = (layout.depth, layout.dims, layout.run.max(1));
    if range.is_empty() {
        return Ok(());
    }
    let raw = match loaded {
        LoadedValues::Ready(it, n) => it.raw_parts().map(|(b, e, a)| (b, e, a, *n)),
        LoadedValues::External(bytes, elem, n) => Some((bytes.bytes(), *elem, false, *n)),
        _ => None,
    };
    if let Some((bytes, elem, aligned, n)) = raw
        && threads > 1
        && range.end - range.start > run
    {
        let bits = if aligned {
            elem.bits().max(8)
        } else {
            elem.bits()
        };
        let available = match bits {
            0 => 0,
            b => (bytes.len() as u64).saturating_mul(8) / b,
        };
        if range.end <= available && range.end <= n {
            return rows_parallel(w, bytes, elem, aligned, range, layout, threads, progress);
        }
    }
    rows_sequential(w, loaded, 0, range, depth, dims)
}

/// The one-thread path of [`write_value_rows`], from any storage.
///
/// `loaded`'s element `i` is the tensor's `base + i` (a part read alone).
fn rows_sequential(
    w: &mut dyn Write,
    loaded: &mut LoadedValues<'_>,
    base: u64,
    range: std::ops::Range<u64>,
    depth: usize,
    dims: &[u64],
) -> io::Result<()> {
    let (per_line, row) = line_layout(dims);
    let mut line: Vec<String> = Vec::new();
    let mut line_start = range.start;
    let mut put = |w: &mut dyn Write, i: u64, e: Element<'_>| -> io::Result<()> {
        if line.is_empty() {
            line_start = i;
        }
        line.push(element_text(e));
        let row_end = row > 0 && (i + 1).is_multiple_of(row);
        if line.len() as u64 >= per_line || row_end {
            flush_line(w, depth, dims, line_start, &mut line)?;
        }
        Ok(())
    };
    let mut run = |w: &mut dyn Write, it: &mut Elements<'_>| -> io::Result<()> {
        let at = it.next_index();
        if at < range.start {
            it.advance(range.start - at);
        }
        while it.next_index() < range.end {
            let i = it.next_index();
            let Some(e) = it.next() else {
                break;
            };
            put(w, base + i, e)?;
        }
        Ok(())
    };
    loaded.with_elements(|it| run(w, it)).unwrap_or(Ok(()))?;
    flush_line(w, depth, dims, line_start, &mut line)
}

/// The parallel path of [`write_value_rows`]: runs of whole lines of raw
/// values, every value present.
#[allow(clippy::too_many_arguments)]
fn rows_parallel(
    w: &mut dyn Write,
    bytes: &[u8],
    elem: crate::tensor::Elem,
    aligned: bool,
    range: std::ops::Range<u64>,
    layout: &RowsLayout<'_>,
    threads: usize,
    progress: &dyn Progress,
) -> io::Result<()> {
    let dims = layout.dims;
    let (per_line, row) = line_layout(dims);
    let pad = pad(layout.depth);
    let format = |buf: &mut Vec<u8>, start: u64, end: u64| -> io::Result<(usize, usize)> {
        let mut it = Elements::new(elem, Source::Raw(bytes), end).byte_aligned(aligned);
        it.advance(start);
        let mut idx: Vec<u64> = vec![0; dims.len()];
        let mut s = start;
        if elem.is_complex() {
            // Texts of any length: appended.
            buf.clear();
            while s < end {
                let e = line_end(s, end, per_line, row);
                buf.extend_from_slice(pad.as_bytes());
                push_index_prefix(buf, dims, s, &mut idx);
                for k in s..e {
                    let Some(v) = it.next() else {
                        break;
                    };
                    if k > s {
                        buf.extend_from_slice(b"  ");
                    }
                    push_element_text(buf, v);
                }
                buf.push(b'\n');
                s = e;
            }
            return Ok((0, buf.len()));
        }
        // Every value's text fits a slot: written into a buffer kept from
        // one run to the next (never shortened, so zero-filled once).
        let line_max = pad
            .len()
            .saturating_add(dims.len().saturating_add(1).saturating_mul(21))
            .saturating_add(
                usize::try_from(per_line)
                    .unwrap_or(usize::MAX)
                    .saturating_mul(super::json::SLOT),
            )
            .saturating_add(1);
        let mut prefix: Vec<u8> = Vec::new();
        let mut pos = 0usize;
        while s < end {
            let e = line_end(s, end, per_line, row);
            let need = pos.saturating_add(line_max);
            if buf.len() < need {
                buf.resize(need.saturating_add(1 << 16), 0);
            }
            prefix.clear();
            prefix.extend_from_slice(pad.as_bytes());
            push_index_prefix(&mut prefix, dims, s, &mut idx);
            let Some(to) = buf.get_mut(pos..pos.saturating_add(prefix.len())) else {
                break;
            };
            to.copy_from_slice(&prefix);
            pos += prefix.len();
            for k in s..e {
                let Some(v) = it.next() else {
                    break;
                };
                let Some((cell, _)) = buf
                    .get_mut(pos..)
                    .and_then(|t| t.split_first_chunk_mut::<{ super::json::SLOT }>())
                else {
                    break;
                };
                let (sep, rest) = cell.split_at_mut(2);
                let Some((text, _)) = rest.split_first_chunk_mut::<{ super::json::SLOT - 2 }>()
                else {
                    break;
                };
                let n = slot_text(v, text);
                if k > s {
                    sep.copy_from_slice(b"  ");
                    pos += 2 + n;
                } else {
                    // The line's first value: no separator before it.
                    buf.copy_within(pos + 2..pos + 2 + n, pos);
                    pos += n;
                }
            }
            if let Some(b) = buf.get_mut(pos) {
                *b = b'\n';
            }
            pos += 1;
            s = e;
        }
        Ok((0, pos))
    };
    let mut runs: Vec<(u64, u64)> = Vec::new();
    let mut s = range.start;
    while s < range.end {
        let target = s.saturating_add(layout.run.max(1));
        let e = line_start_at(range.start, target, per_line, row)
            .max(s.saturating_add(1))
            .min(range.end);
        runs.push((s, e));
        s = e;
    }
    let count = range.end - range.start;
    let big = count.saturating_mul(12) >= crate::progress::THRESHOLD_BYTES;
    if big {
        progress.start("formatting values", count);
    }
    super::json::write_runs(w, &runs, threads, &format, &mut |done| {
        if big {
            progress.advance(done);
        }
    })?;
    if big {
        progress.finish();
    }
    Ok(())
}

/// A few bytes appended one by one (no call to memcpy for a number).
fn push_short(buf: &mut Vec<u8>, text: &[u8]) {
    for &b in text {
        buf.push(b);
    }
}

fn push_u64(buf: &mut Vec<u8>, v: u64) {
    let mut slot = [0u8; super::json::SLOT - 2];
    let n = super::json::uint_text(v, false, &mut slot);
    push_short(buf, slot.get(..n).unwrap_or(&[]));
}

/// [`index_prefix`] appended to `buf`, with `idx` as scratch (one slot per
/// axis).
fn push_index_prefix(buf: &mut Vec<u8>, dims: &[u64], start: u64, idx: &mut [u64]) {
    match dims.len() {
        0 => {}
        1 => {
            buf.push(b'[');
            push_u64(buf, start);
            buf.extend_from_slice(b"] ");
        }
        _ => {
            let mut rest = start;
            for (slot, &d) in idx.iter_mut().zip(dims).rev() {
                *slot = 0;
                if d > 0 {
                    *slot = rest % d;
                    rest /= d;
                }
            }
            buf.push(b'[');
            for (k, &i) in idx.iter().enumerate() {
                if k > 0 {
                    buf.push(b',');
                }
                push_u64(buf, i);
            }
            buf.extend_from_slice(b"] ");
        }
    }
}

/// Whether ryu writes the `{:?}` text of a float32 (see [`ryu_is_debug`]).
fn f32_by_ryu(v: f32) -> bool {
    let bits = v.to_bits();
    let exp = ((bits >> 23) & 0xff) as i32;
    let frac = u64::from(bits & 0x7f_ffff);
    let (sig, e2) = if exp == 0 {
        (frac, -149)
    } else {
        (frac | 1 << 23, exp - 150)
    };
    v.is_finite() && ryu_is_debug(v.abs().into(), sig, e2, 24)
}

/// Whether ryu writes the `{:?}` text of a float64 (see [`ryu_is_debug`]).
fn f64_by_ryu(v: f64) -> bool {
    let bits = v.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & 0xf_ffff_ffff_ffff;
    let (sig, e2) = if exp == 0 {
        (frac, -1074)
    } else {
        (frac | 1 << 52, exp - 1075)
    };
    v.is_finite() && ryu_is_debug(v.abs(), sig, e2, 53)
}

/// [`element_text`] of a value that is not complex (at most 24 bytes),
/// written into a slot; returns its length.
fn slot_text(e: Element<'_>, slot: &mut [u8; super::json::SLOT - 2]) -> usize {
    use super::json::copy_text;
    let debug = |slot: &mut [u8; super::json::SLOT - 2], args: std::fmt::Arguments<'_>| {
        let mut c = io::Cursor::new(&mut slot[..]);
        let _ = c.write_fmt(args);
        usize::try_from(c.position()).unwrap_or(0)
    };
    match e {
        Element::F32(v) if f32_by_ryu(v) => {
            copy_text(ryu::Buffer::new().format_finite(v).as_bytes(), slot)
        }
        Element::F32(v) => debug(slot, format_args!("{v:?}")),
        Element::F64(v) if f64_by_ryu(v) => {
            copy_text(ryu::Buffer::new().format_finite(v).as_bytes(), slot)
        }
        Element::F64(v) => debug(slot, format_args!("{v:?}")),
        Element::I64(v) => super::json::int_text(v, slot),
        Element::U64(v) => super::json::uint_text(v, false, slot),
        Element::Bool(b) => copy_text(if b { b"true" } else { b"false" }, slot),
        e => copy_text(element_text(e).as_bytes(), slot),
    }
}

/// [`element_text`] appended to `buf`: floats through ryu where its text is
/// the `{:?}` text, integers digit by digit.
fn push_element_text(buf: &mut Vec<u8>, e: Element<'_>) {
    match e {
        Element::F32(v) => {
            if f32_by_ryu(v) {
                push_short(buf, ryu::Buffer::new().format_finite(v).as_bytes());
            } else {
                let _ = write!(buf, "{v:?}");
            }
        }
        Element::F64(v) => {
            if f64_by_ryu(v) {
                push_short(buf, ryu::Buffer::new().format_finite(v).as_bytes());
            } else {
                let _ = write!(buf, "{v:?}");
            }
        }
        Element::I64(v) => {
            let mut slot = [0u8; super::json::SLOT - 2];
            let n = super::json::int_text(v, &mut slot);
            push_short(buf, slot.get(..n).unwrap_or(&[]));
        }
        Element::U64(v) => push_u64(buf, v),
        Element::Bool(b) => buf.extend_from_slice(if b { b"true" } else { b"false" }),
        e => buf.extend_from_slice(element_text(e).as_bytes()),
    }
}

/// Whether ryu's text of the finite float `sig * 2^e2` (magnitude `abs`,
/// `precision` bits) is its `{:?}` text. Both write the shortest digits
/// that read back to the same float, but (1) they switch to exponent form
/// at different magnitudes (`{:?}` below 1e-4 and from 1e16), so values
/// between 1e-7 and 1e-3 or 1e12 and 1e17 are left to `{:?}`; and (2) on a
/// tie between two shortest texts ryu rounds to even where `{:?}` rounds
/// up. A tie needs a value whose exact decimal expansion is short (at most
/// 18 significant digits): a whole number past 2^precision, or a fraction
/// m / 2^j (m odd) with m * 5^j below 10^18. Those go to `{:?}` too.
fn ryu_is_debug(abs: f64, sig: u64, e2: i32, precision: u32) -> bool {
    if sig == 0 {
        return true;
    }
    if (1e-7..1e-3).contains(&abs) || (1e12..1e17).contains(&abs) {
        return false;
    }
    let tz = sig.trailing_zeros();
    let m = sig >> tz;
    let e = e2.saturating_add(tz as i32);
    if e >= 0 {
        // A whole number: exact below 2^precision, so its digits are all
        // needed and no shorter text reads back to it.
        return i64::from(64 - m.leading_zeros()) + i64::from(e) <= i64::from(precision);
    }
    // m * 5^j >= 10^18, with 5^j >= 5^28 > 10^19 always long.
    match TIE_FREE_FROM.get(e.unsigned_abs() as usize) {
        Some(&least) => m >= least,
        None => true,
    }
}

/// For j = 0..=27, the least m with m * 5^j >= 10^18.
const TIE_FREE_FROM: [u64; 28] = [
    1_000_000_000_000_000_000,
    200_000_000_000_000_000,
    40_000_000_000_000_000,
    8_000_000_000_000_000,
    1_600_000_000_000_000,
    320_000_000_000_000,
    64_000_000_000_000,
    12_800_000_000_000,
    2_560_000_000_000,
    512_000_000_000,
    102_400_000_000,
    20_480_000_000,
    4_096_000_000,
    819_200_000,
    163_840_000,
    32_768_000,
    6_553_600,
    1_310_720,
    262_144,
    52_429,
    10_486,
    2_098,
    420,
    84,
    17,
    4,
    1,
    1,
];
