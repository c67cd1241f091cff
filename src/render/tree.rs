//! The generic text tree of a message and the tensor preview every view
//! shares: fields as an indented tree, tensors with their type, shape and
//! values row by row (long value lists elided in the middle with a count of
//! what was left out; `--values all` prints everything).

use super::fmt::{element_text, hex_preview, indent, pad, plain};
use super::{LoadedValues, RenderOptions, load_values, tensor_adapter};
use crate::decode::{Message, RawScalars, ScalarValue, Value};
use crate::schema::{FieldDef, FieldType, Scalar, SchemaSet};
use crate::tensor::TensorView;
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
            a.value_fields.contains(&fdef.name.as_str())
                || a.header_fields.contains(&fdef.name.as_str())
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
    let key = def
        .field_by_number(1)
        .and_then(|(slot, kdef)| {
            entry
                .slot(slot)
                .last()
                .map(|f| value_text(set, kdef, &f.value, opts))
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

fn shape_text(view: &TensorView<'_, '_>) -> String {
    match &view.dims {
        None => "unknown rank".to_string(),
        Some(d) if d.is_empty() => "scalar".to_string(),
        Some(d) => {
            let parts: Vec<String> = d.iter().map(|x| x.to_string()).collect();
            format!("[{}]", parts.join(", "))
        }
    }
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
    let default = if root {
        DEFAULT_ROOT_VALUES
    } else {
        DEFAULT_NESTED_VALUES
    };
    let (limit, capped) = super::value_limit(&view, opts.values.unwrap_or(default), opts);
    let mut loaded = load_values(&view, opts);
    indent(w, depth)?;
    match &loaded {
        LoadedValues::Unavailable(why) => {
            return writeln!(w, "values:    not available: {}", plain(why));
        }
        LoadedValues::Nothing if view.elements == 0 => return writeln!(w, "values:    (none)"),
        _ => {}
    }
    let total = view.elements;
    let dims: Vec<u64> = view
        .dims
        .clone()
        .unwrap_or_default()
        .iter()
        .map(|&d| u64::try_from(d).unwrap_or(0))
        .collect();
    // Rows of whole trailing axes (see src/render/elide.rs).
    let row = super::elide::row_len(&dims);
    let per_line = if row == 0 {
        super::elide::PER_LINE
    } else {
        row.min(super::elide::PER_LINE)
    };
    // Statistics need every element: read them all for the tensor the user
    // asked for (or with --stats); a nested tensor's preview reads only its
    // first values, so the rest of a mapped model is never touched.
    let read_all = root || opts.stats || total <= limit;
    let (head, tail) = if total <= limit {
        (total, 0)
    } else if read_all {
        super::elide::whole_rows(total, limit, row)
    } else {
        // The first values only, cut at the end of a row.
        (super::elide::whole_head(total, limit, row), 0)
    };
    writeln!(w, "values:")?;
    let mut line: Vec<String> = Vec::new();
    let mut line_start = 0u64;
    // The elements between head and tail are skipped, not decoded; the
    // statistics come from their own pass (src/stats.rs).
    let gap = head..total - tail;
    let gap_line = |w: &mut dyn Write| -> io::Result<()> {
        indent(w, depth + 1)?;
        if !read_all {
            writeln!(
                w,
                "… {} more values (--values all shows them)",
                super::elide::grouped(total - head)
            )
        } else if capped {
            writeln!(
                w,
                "… {} values left out (implied by padding: --allow-implied shows them) …",
                super::elide::grouped(gap.end - gap.start)
            )
        } else {
            writeln!(
                w,
                "… {} values left out (--values all shows them) …",
                super::elide::grouped(gap.end - gap.start)
            )
        }
    };
    let mut gap_shown = gap.is_empty();
    crate::tensor::for_each_element_except(&mut loaded, gap.clone(), |i, e| -> io::Result<()> {
        if !gap_shown && i >= gap.end {
            flush_line(w, depth + 1, &dims, line_start, &mut line)?;
            gap_line(w)?;
            gap_shown = true;
        }
        if line.is_empty() {
            line_start = i;
        }
        line.push(element_text(e));
        let row_end = row > 0 && (i + 1).is_multiple_of(row);
        if line.len() as u64 >= per_line || row_end {
            flush_line(w, depth + 1, &dims, line_start, &mut line)?;
        }
        Ok(())
    })?;
    flush_line(w, depth + 1, &dims, line_start, &mut line)?;
    if !gap_shown {
        gap_line(w)?;
    }
    if !read_all {
        return Ok(());
    }
    let stats = crate::stats::compute_with(&view, opts.dir.as_deref(), opts.progress.get())
        .unwrap_or_default();
    // Statistics, --histogram and the colour preview (src/stats.rs).
    let pad = pad(depth);
    super::stats_view::write_text_summary(w, &pad, &view, opts.dir.as_deref(), &stats, opts)
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
