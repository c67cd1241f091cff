//! JSON output, streamed through [`crate::json_writer`] (no document tree
//! is built, so a tensor of any size costs only the output buffer).
//!
//! The contract (docs/json-contract.md): `{"format", "type", "value"}`; a message as an
//! object of its present fields by .proto name; repeated fields as arrays,
//! maps as objects; enums by name; 64-bit integers as numbers; bytes as
//! base64; floats as numbers or "NaN"/"Infinity"/"-Infinity"; in tensor
//! messages the element fields replaced by `values`.

use super::{LoadedValues, RenderOptions, load_values};
use crate::decode::{Field, Message, RawScalars, ScalarValue, Value};
use crate::error::DecodeError;
use crate::escape::{base64, non_finite_text};
use crate::fields::tensorflow::{BytesList, Example, Feature, Features, FloatList, Int64List};
use crate::formats::records::{FileKind, Record, RecordFile};
use crate::formats::summary::{Item as SummaryItem, Summary, Value as SummaryValue};
use crate::formats::tf_checkpoint as tfc;
use crate::formats::tf_example::{Entry, Kind, Shape};
use crate::formats::tf_record::{Overview, Payload, read_example, read_payload};
use crate::formats::{Body, Decoded, Format, TensorAdapter, tensor_adapter};
use crate::json_writer::{JsonWriter, Null, SEPARATOR};
use crate::schema::{FieldDef, FieldType, Scalar, SchemaSet};
use crate::tensor::{Element, for_each_element};
use crate::wire::WireValue;
use std::io::{self, Write};

pub fn write_decoded(
    w: &mut dyn Write,
    decoded: &Decoded<'_>,
    opts: &RenderOptions,
) -> io::Result<()> {
    write_decoded_with(w, decoded, opts, None, &mut |_| Ok(()))
}

/// The same object with `"file"` (and `"file_bytes"`:
/// [`JsonWriter::path_member`]) first (batches) and members after `value`
/// written by `tail`; a line of its own.
pub fn write_decoded_with(
    w: &mut dyn Write,
    decoded: &Decoded<'_>,
    opts: &RenderOptions,
    file: Option<&std::path::Path>,
    tail: &mut dyn FnMut(&mut JsonWriter<'_>) -> io::Result<()>,
) -> io::Result<()> {
    let mut w = JsonWriter::new(w);
    write_decoded_object(&mut w, decoded, opts, file, tail)?;
    w.end_line()?;
    w.finish()
}

/// The decoded file's object, `{"format", "type", "value", ...}`, as a
/// value of `w`.
pub fn write_decoded_object(
    w: &mut JsonWriter<'_>,
    decoded: &Decoded<'_>,
    opts: &RenderOptions,
    file: Option<&std::path::Path>,
    tail: &mut dyn FnMut(&mut JsonWriter<'_>) -> io::Result<()>,
) -> io::Result<()> {
    w.begin_object()?;
    if let Some(file) = file {
        w.path_member("file", file)?;
    }
    write_head(w, decoded)?;
    match &decoded.body {
        Body::Message { message, .. } => {
            w.key("value")?;
            write_message_at(w, SchemaSet::builtin(), message, opts, true)?;
            write_saved_model_variables(w, message, opts)?;
            write_side_tensors(w, decoded.format, message, opts)?;
        }
        Body::Schemaless(msg) => {
            super::schemaless::write_json_body(w, msg, opts)?;
        }
        Body::Records(file) => {
            write_json_records(w, file, opts)?;
        }
        Body::Bundle(b) => write_bundle(w, b, opts)?,
        Body::UserMessage { set, message, .. } => {
            w.key("value")?;
            write_message_at(w, set, message, opts, true)?;
        }
    }
    tail(w)?;
    w.end_object()
}

/// The members of the decoded file's object before its value: `"format"`,
/// `"syntax"` (`"binary"`, or `"text"` for protobuf's text format),
/// `"type"` (null without a schema) and `"also"` (the other types the
/// file fits, when there are any). The explorer writes the same head.
pub fn write_head(w: &mut JsonWriter<'_>, decoded: &Decoded<'_>) -> io::Result<()> {
    w.member("format", decoded.format.id)?;
    w.member("syntax", decoded.syntax.name())?;
    match &decoded.body {
        Body::Message {
            type_name,
            also,
            message,
        } => {
            w.member("type", type_name)?;
            if !also.is_empty() {
                w.key("also")?;
                w.begin_array()?;
                for a in also {
                    w.value(a)?;
                }
                w.end_array()?;
            }
            write_summary(w, decoded.format, message)
        }
        Body::Schemaless(_) | Body::Bundle(_) => w.member("type", Null),
        Body::Records(file) => {
            w.member("type", Null)?;
            write_records_head(w, file)?;
            let overview = crate::formats::tf_record::overview(file);
            w.key("summary")?;
            summary_object(w, &overview.summary(file))
        }
        Body::UserMessage { type_name, .. } => w.member("type", type_name),
    }
}

/// `"summary": {...}` of a root message of a format that has one
/// (models, SavedModels, GraphDefs): each item by its key, typed.
pub fn write_summary(
    w: &mut JsonWriter<'_>,
    format: &Format,
    message: &Message<'_>,
) -> io::Result<()> {
    let summary = (format.summary)(SchemaSet::builtin(), message);
    if summary.is_empty() {
        return Ok(());
    }
    w.key("summary")?;
    summary_object(w, &summary)
}

fn summary_object(w: &mut JsonWriter<'_>, s: &Summary) -> io::Result<()> {
    w.begin_object()?;
    for SummaryItem { key, value, .. } in &s.items {
        w.key(key)?;
        summary_value(w, value)?;
    }
    w.end_object()
}

/// One value: numbers as numbers, strings as strings (or `{"base64":
/// ...}` when not UTF-8), lists as arrays, parts as objects. Summaries are
/// built by the formats' own code, at most three levels deep, so the
/// recursion is bounded by construction.
fn summary_value(w: &mut JsonWriter<'_>, v: &SummaryValue) -> io::Result<()> {
    match v {
        SummaryValue::Int(n) => w.value(*n),
        SummaryValue::Count(n) => w.value(*n),
        SummaryValue::Text(b) => text_or_base64(w, b),
        SummaryValue::List(items) => {
            w.begin_array()?;
            for x in items {
                summary_value(w, x)?;
            }
            w.end_array()
        }
        SummaryValue::Fields(parts) => {
            w.begin_object()?;
            for (k, x) in parts {
                w.key(k)?;
                summary_value(w, x)?;
            }
            w.end_object()
        }
    }
}

/// A turned-down input as `{"error": {"check", "path", "offset",
/// "message"}}` (no newline): `check` is the name scripts match on, `path`
/// the field path (`""` at the top), `offset` the byte offset.
pub fn write_error(w: &mut dyn Write, e: &DecodeError) -> io::Result<()> {
    let mut w = JsonWriter::new(w);
    w.begin_object()?;
    w.key("error")?;
    decode_error_object(&mut w, e)?;
    w.end_object()?;
    w.finish()
}

/// A decode error's object: [`error_object`], and for a text-format
/// input the `"line"` and `"column"` of the fault (1-based).
pub fn decode_error_object(w: &mut JsonWriter<'_>, e: &DecodeError) -> io::Result<()> {
    w.begin_object()?;
    error_members(w, e.check(), &e.path_string(), e.offset(), &e.message())?;
    if let Some((line, column)) = e.line_column() {
        w.member("line", line)?;
        w.member("column", column)?;
    }
    w.end_object()
}

/// `{"check", "path", "offset", "message"}`: an error of the JSON contract.
pub fn error_object(
    w: &mut JsonWriter<'_>,
    check: &str,
    path: &str,
    offset: u64,
    message: &str,
) -> io::Result<()> {
    w.begin_object()?;
    error_members(w, check, path, offset, message)?;
    w.end_object()
}

fn error_members(
    w: &mut JsonWriter<'_>,
    check: &str,
    path: &str,
    offset: u64,
    message: &str,
) -> io::Result<()> {
    w.member("check", check)?;
    w.member("path", path)?;
    w.member("offset", offset)?;
    w.member("message", message)
}

/// Text if it is UTF-8, else `{"base64": ...}`.
pub fn text_or_base64(w: &mut JsonWriter<'_>, bytes: &[u8]) -> io::Result<()> {
    match std::str::from_utf8(bytes) {
        Ok(s) => w.value(s),
        Err(_) => {
            w.begin_object()?;
            w.member("base64", &*base64(bytes))?;
            w.end_object()
        }
    }
}

/// One tensor element as the contract writes it in `values`.
pub fn element(w: &mut JsonWriter<'_>, e: Element<'_>) -> io::Result<()> {
    match e {
        Element::F32(v) => w.value(v),
        Element::F64(v) => w.value(v),
        Element::I64(v) => w.value(v),
        Element::U64(v) => w.value(v),
        Element::Bool(b) => w.value(b),
        Element::C64(re, im) => {
            w.begin_array()?;
            w.value(re)?;
            w.value(im)?;
            w.end_array()
        }
        Element::C128(re, im) => {
            w.begin_array()?;
            w.value(re)?;
            w.value(im)?;
            w.end_array()
        }
        Element::Str(s) => text_or_base64(w, s),
    }
}

fn scalar(
    w: &mut JsonWriter<'_>,
    set: &SchemaSet,
    ty: FieldType,
    v: ScalarValue,
) -> io::Result<()> {
    match v {
        ScalarValue::I64(v) => w.value(v),
        ScalarValue::U64(v) => w.value(v),
        ScalarValue::F32(v) => w.value(v),
        ScalarValue::F64(v) => w.value(v),
        ScalarValue::Bool(b) => w.value(b),
        ScalarValue::Enum(n) => match ty {
            FieldType::Enum(e) => match set.enum_def(e).name_of(i64::from(n)) {
                Some(name) => w.value(name),
                None => w.value(n),
            },
            _ => w.value(n),
        },
    }
}

/// One value of a field (a repeated field calls this per element).
fn field_value(
    w: &mut JsonWriter<'_>,
    set: &SchemaSet,
    fdef: &FieldDef,
    value: &Value<'_>,
    opts: &RenderOptions,
) -> io::Result<()> {
    match value {
        Value::Scalar(raw) => scalar(w, set, fdef.ty, ScalarValue::from_raw(fdef.ty, *raw)),
        Value::Bytes(b) => match fdef.ty {
            FieldType::Scalar(Scalar::String) => text_or_base64(w, b),
            _ => w.value(&*base64(b)),
        },
        Value::Message(m) => write_message(w, set, m, opts),
        // Packed values are expanded by the caller; unknowns are listed apart.
        Value::Packed(_) | Value::Unknown(_) => w.null(),
    }
}

/// A map entry's key as the JSON output writes it (the object's key).
pub fn map_key(set: &SchemaSet, entry: &Message<'_>) -> String {
    let def = entry.def(set);
    let Some((slot, kdef)) = def.field_by_number(1) else {
        return String::new();
    };
    match entry.slot(slot).last().map(|f| &f.value) {
        Some(Value::Bytes(b)) => String::from_utf8_lossy(b).into_owned(),
        Some(Value::Scalar(raw)) => match ScalarValue::from_raw(kdef.ty, *raw) {
            ScalarValue::I64(v) => v.to_string(),
            ScalarValue::U64(v) => v.to_string(),
            ScalarValue::Bool(b) => b.to_string(),
            ScalarValue::Enum(n) => n.to_string(),
            ScalarValue::F32(v) => v.to_string(),
            ScalarValue::F64(v) => v.to_string(),
        },
        // An absent key is its type's default (protobuf's text format and
        // proto3 writers leave a default key out).
        _ => match kdef.ty {
            FieldType::Scalar(Scalar::String | Scalar::Bytes) => String::new(),
            FieldType::Scalar(Scalar::Bool) => false.to_string(),
            _ => 0.to_string(),
        },
    }
}

fn map_value(
    w: &mut JsonWriter<'_>,
    set: &SchemaSet,
    entry: &Message<'_>,
    opts: &RenderOptions,
) -> io::Result<()> {
    let def = entry.def(set);
    match def.field_by_number(2) {
        Some((slot, vdef)) => match entry.slot(slot).last() {
            Some(f) => field_value(w, set, vdef, &f.value, opts),
            // An absent value is its type's default.
            None => match vdef.ty {
                FieldType::Message(_) => {
                    w.begin_object()?;
                    w.end_object()
                }
                FieldType::Scalar(Scalar::String | Scalar::Bytes) => w.value(""),
                FieldType::Scalar(Scalar::Bool) => w.value(false),
                _ => w.value(0u8),
            },
        },
        None => w.null(),
    }
}

/// A message nested in the input, as a JSON object: present fields in
/// declaration order.
pub fn write_message(
    w: &mut JsonWriter<'_>,
    set: &SchemaSet,
    msg: &Message<'_>,
    opts: &RenderOptions,
) -> io::Result<()> {
    write_message_at(w, set, msg, opts, false)
}

/// The message the user asked for (the input's root, or a tensor picked with
/// `--tensor`): its tensor values are read in full for the statistics even
/// past a `--values` limit.
pub fn write_root_message(
    w: &mut JsonWriter<'_>,
    set: &SchemaSet,
    msg: &Message<'_>,
    opts: &RenderOptions,
) -> io::Result<()> {
    write_message_at(w, set, msg, opts, true)
}

/// A tensor the user asked for whose message has no tensor adapter (a
/// tensor bundle's entry): its fields, then the values of `view`.
pub fn write_root_message_with_view<'v>(
    w: &mut JsonWriter<'_>,
    set: &SchemaSet,
    msg: &Message<'_>,
    view: &crate::tensor::TensorView<'v, 'v>,
    opts: &RenderOptions,
) -> io::Result<()> {
    w.begin_object()?;
    write_fields(w, set, msg, None, opts)?;
    let loaded = crate::tensor::load_values(view, opts.dir.as_ref());
    write_view_values(w, view, loaded, opts, true)?;
    w.end_object()
}

fn write_message_at(
    w: &mut JsonWriter<'_>,
    set: &SchemaSet,
    msg: &Message<'_>,
    opts: &RenderOptions,
    root: bool,
) -> io::Result<()> {
    let def = msg.def(set);
    let adapter = tensor_adapter(&def.full_name);
    w.begin_object()?;
    write_fields(w, set, msg, adapter, opts)?;
    if let Some(adapter) = adapter {
        let view = (adapter.view)(set, msg);
        let loaded = load_values(&view, opts);
        write_view_values(w, &view, loaded, opts, root)?;
        if let Some(why) = (adapter.warning)(set, msg) {
            w.member("warning", &why)?;
        }
    }
    let unknown = msg.unknown();
    if !unknown.is_empty() {
        w.key("unknown_fields")?;
        w.begin_array()?;
        for f in unknown {
            unknown_field(w, f)?;
        }
        w.end_array()?;
    }
    w.end_object()
}

/// A message's known fields as members of the open object (a tensor's
/// value fields left to its `"values"`).
fn write_fields(
    w: &mut JsonWriter<'_>,
    set: &SchemaSet,
    msg: &Message<'_>,
    adapter: Option<&TensorAdapter>,
    opts: &RenderOptions,
) -> io::Result<()> {
    for (fdef, group) in msg.present(set) {
        if adapter.is_some_and(|a| a.value_fields.iter().any(|f| f.name == fdef.name)) {
            continue;
        }
        w.key(&fdef.name)?;
        let is_map = matches!(fdef.ty, FieldType::Message(m) if set.message(m).map_entry);
        if is_map {
            w.begin_object()?;
            for f in group {
                if let Value::Message(entry) = &f.value {
                    w.key(&map_key(set, entry))?;
                    map_value(w, set, entry, opts)?;
                }
            }
            w.end_object()?;
        } else if fdef.repeated() {
            w.begin_array()?;
            for f in group {
                if let Value::Packed(_) | Value::Scalar(_) = f.value {
                    for raw in RawScalars::new(&f.value, fdef.ty.wire_type()) {
                        scalar(w, set, fdef.ty, ScalarValue::from_raw(fdef.ty, raw))?;
                    }
                } else {
                    field_value(w, set, fdef, &f.value, opts)?;
                }
            }
            w.end_array()?;
        } else if let Some(last) = group.last() {
            // An event's graph (bytes holding a GraphDef or MetaGraphDef)
            // as the message it is.
            match crate::formats::tf_record::event_embedded(set, msg, last) {
                Some(inner) => write_message(w, set, &inner, opts)?,
                None => field_value(w, set, fdef, &last.value, opts)?,
            }
        }
    }
    Ok(())
}

/// A tensor's `"values"` (or `null` and `"values_unavailable"`), with
/// `"values_total"`, `"values_capped"` and `"stats"` as they apply, from
/// values already loaded.
pub fn write_view_values(
    w: &mut JsonWriter<'_>,
    view: &crate::tensor::TensorView<'_, '_>,
    mut loaded: LoadedValues<'_>,
    opts: &RenderOptions,
    root: bool,
) -> io::Result<()> {
    w.key("values")?;
    match &loaded {
        LoadedValues::Unavailable(why) => {
            w.null()?;
            w.member("values_unavailable", why)?;
        }
        _ => {
            let (limit, capped) = super::value_limit(view, opts.values.unwrap_or(u64::MAX), opts);
            // Past a --values limit the statistics still cover every
            // value for the tensor the user asked for (or with --stats),
            // from their own pass: a model's other tensors stay unread,
            // so their pages of the mapped file are never touched.
            let read_all = root || opts.stats || opts.values.is_none();
            w.begin_array()?;
            let threads = crate::progress::threads();
            let n = write_value_list(w, &mut loaded, limit, threads, opts.progress.get())?;
            w.end_array()?;
            if n < view.elements {
                w.member("values_total", view.elements)?;
            }
            if capped {
                w.member(
                    "values_capped",
                    &*format!(
                        "{} of the values are implied by TensorFlow's padding rule; \
                         at most {} of them are printed (--allow-implied prints all)",
                        view.implied_elements(),
                        view.implied_print_cap()
                    ),
                )?;
            }
            if read_all && view.elem.is_some_and(|e| e.is_numeric()) {
                let stats =
                    crate::stats::compute_with(view, opts.dir.as_ref(), opts.progress.get())
                        .unwrap_or_default();
                w.key("stats")?;
                stats.write_json(w)?;
            }
        }
    }
    Ok(())
}

/// [`write_view_values`] of a V1 checkpoint's tensor saved in slices: the
/// values read from the slices holding them, a run at a time (a --values
/// limit reads that many), the statistics the slices' merged.
fn write_sliced_values(
    w: &mut JsonWriter<'_>,
    view: &crate::tensor::TensorView<'_, '_>,
    values: &tfc::V1SlicedValues<'_>,
    opts: &RenderOptions,
) -> io::Result<()> {
    // Values a run reads into memory.
    const RUN: u64 = 1 << 16;
    let total = values.len();
    let (limit, _) = super::value_limit(view, opts.values.unwrap_or(u64::MAX), opts);
    let shown = limit.min(total);
    let mut reader = values.reader();
    let mut buf = Vec::new();
    let mut written = 0;
    let mut why = None;
    w.key("values")?;
    w.begin_array()?;
    while written < shown {
        let end = written.saturating_add(RUN).min(shown);
        buf.clear();
        if let Err(e) = reader.pack(written..end, &mut buf) {
            why = Some(e.to_string());
            break;
        }
        let n = end - written;
        let mut part = LoadedValues::Ready(
            crate::tensor::Elements::new(values.elem, crate::tensor::Source::Raw(&buf), n),
            n,
        );
        written += write_value_list(w, &mut part, n, 1, &crate::progress::Silent)?;
    }
    w.end_array()?;
    if written < total {
        w.member("values_total", total)?;
    }
    if let Some(why) = why {
        w.member("values_unavailable", &*why)?;
    }
    if (opts.stats || opts.values.is_none())
        && values.elem.is_numeric()
        && let Some(stats) = crate::stats::compute_filled(values.elem, values.len(), {
            let mut reader = values.reader();
            move |range, buf| reader.pack(range, buf).is_ok()
        })
    {
        w.key("stats")?;
        stats.write_json(w)?;
    }
    Ok(())
}

/// The JSON members of a bundle after `"format"` and `"type"`:
/// `"bundle"` (the header's facts) and `"tensors"`.
pub fn write_bundle(
    w: &mut JsonWriter<'_>,
    bundle: &crate::formats::Bundle<'_>,
    opts: &RenderOptions,
) -> io::Result<()> {
    let set = SchemaSet::builtin();
    let dir = opts.dir.as_ref();
    let shards = tfc::Shards::of(bundle, dir);
    let h = tfc::header(bundle, &shards, dir);
    w.key("bundle")?;
    w.begin_object()?;
    w.member(
        "version",
        match bundle.version {
            crate::formats::BundleVersion::V2 => "V2",
            crate::formats::BundleVersion::V1 => "V1",
        },
    )?;
    w.key("header")?;
    write_message(w, set, &bundle.header, opts)?;
    if bundle.version == crate::formats::BundleVersion::V2 {
        w.member("shards", shards.count)?;
        w.key("shard_prefix")?;
        match &shards.prefix {
            Some(p) => w.value(p.as_str())?,
            None => w.null()?,
        }
    }
    w.member("tensors", h.tensors)?;
    w.member("bytes", h.bytes)?;
    w.key("checksums")?;
    w.begin_object()?;
    w.member("ok", h.crc.ok)?;
    w.member("mismatch", h.crc.mismatch)?;
    w.member("not_checked", h.crc.not_checked)?;
    w.end_object()?;
    w.end_object()?;
    w.key("tensors")?;
    // One line: the decoded file is also a line of `--jsonl`.
    w.begin_array()?;
    for e in &bundle.entries {
        w.begin_object()?;
        w.key("key")?;
        text_or_base64(w, &e.key)?;
        if let Some(k) = tfc::parse_slice_key(&e.key) {
            w.key("slice_of")?;
            text_or_base64(w, &k.name)?;
            w.key("slice")?;
            write_extents(w, &k.extents)?;
        }
        w.key("entry")?;
        write_message(w, set, &e.message, opts)?;
        tfc::with_entry(bundle, &shards, e, dir, |view, loaded, crc| {
            write_type_and_shape(w, view)?;
            if bundle.version == crate::formats::BundleVersion::V2 {
                let f = tfc::entry_facts(set, &e.message);
                w.key("shard_file")?;
                match shards.file(f.shard).filter(|_| f.slices.is_empty()) {
                    Some(n) => w.value(n.as_str())?,
                    None => w.null()?,
                }
            }
            w.member("crc32c", crc.word())?;
            if let Some(d) = crc.detail() {
                w.member("crc32c_detail", d)?;
            }
            write_view_values(w, view, loaded, opts, false)
        })?;
        w.end_object()?;
    }
    for sliced in tfc::v1_sliced(bundle) {
        w.begin_object()?;
        w.key("key")?;
        text_or_base64(w, &sliced.name)?;
        w.key("slices")?;
        w.begin_array()?;
        for s in &sliced.slices {
            write_extents(w, &s.extents)?;
        }
        w.end_array()?;
        w.key("entry")?;
        let (def, range) = &sliced.listed;
        let listed = usize::try_from(range.start)
            .ok()
            .zip(usize::try_from(range.end).ok())
            .and_then(|(s, e)| bundle.bytes.get(s..e))
            .and_then(|b| {
                crate::decode::decode_message(
                    set,
                    *def,
                    b,
                    range.start,
                    crate::decode::DecodeContext::lenient(),
                )
                .ok()
            });
        match listed {
            Some(m) => write_message(w, set, &m, opts)?,
            None => w.null()?,
        }
        // Numbers are read from the slices holding them, never assembled;
        // strings and slices that do not make their tensor through the
        // assembly, which says why.
        match tfc::V1SlicedValues::open(set, &sliced, bundle.bytes) {
            Ok(values) if values.elem != crate::tensor::Elem::Str => {
                let view = sliced.view(set);
                write_type_and_shape(w, &view)?;
                let crc = tfc::v1_crc();
                w.member("crc32c", crc.word())?;
                if let Some(d) = crc.detail() {
                    w.member("crc32c_detail", d)?;
                }
                write_sliced_values(w, &view, &values, opts)?;
            }
            _ => tfc::with_v1_sliced(bundle, &sliced, |view, loaded, crc| {
                write_checked_tensor(w, view, loaded, crc, opts)
            })?,
        }
        w.end_object()?;
    }
    w.end_array()?;
    if let Some(graph) = tfc::object_graph(bundle, &shards, dir) {
        w.key("object_graph")?;
        match graph.message() {
            Some(m) => write_message(w, set, &m, opts)?,
            None => w.null()?,
        }
    }
    Ok(())
}

/// A slice's extents: `[[start, length], ...]`, length -1 for a whole axis.
fn write_extents(w: &mut JsonWriter<'_>, extents: &[(i64, i64)]) -> io::Result<()> {
    w.begin_array()?;
    for &(start, length) in extents {
        w.begin_array()?;
        w.value(start)?;
        w.value(length)?;
        w.end_array()?;
    }
    w.end_array()
}

/// `"variables"`: a SavedModel's variables with their values from the
/// `variables/` folder beside it (nothing for another file, or without
/// that folder), each by its object path, node and checkpoint key.
fn write_saved_model_variables(
    w: &mut JsonWriter<'_>,
    message: &Message<'_>,
    opts: &RenderOptions,
) -> io::Result<()> {
    let set = SchemaSet::builtin();
    let Some(dir) = opts.dir.as_ref() else {
        return Ok(());
    };
    let found = tfc::saved_model_variables(set, message, dir);
    if found.is_empty() {
        return Ok(());
    }
    let Some(saved) = tfc::SavedVariables::read(dir) else {
        return Ok(());
    };
    let Ok(bundle) = saved.bundle() else {
        return Ok(());
    };
    // The shards are named inside the model's folder.
    let shards = tfc::saved_model_shards(&bundle);
    w.key("variables")?;
    w.begin_array()?;
    for v in found {
        let key = &v.key;
        let Some(e) = tfc::find_entry(&bundle, key) else {
            continue;
        };
        w.begin_object()?;
        w.member("name", &*v.name)?;
        w.member("node", v.node)?;
        w.key("key")?;
        text_or_base64(w, key)?;
        tfc::with_entry(&bundle, &shards, e, Some(dir), |view, loaded, crc| {
            write_checked_tensor(w, view, loaded, crc, opts)
        })?;
        w.end_object()?;
    }
    w.end_array()
}

/// `"side_tensors"`: the tensors whose values the format found in side
/// files beside the input (a Paddle program's parameters), each by its
/// name, with the offset of the message that declares it, the side file
/// and the offset of its values there, and its data type, shape and
/// values (nothing for a format without them, or without a folder).
fn write_side_tensors(
    w: &mut JsonWriter<'_>,
    format: &Format,
    message: &Message<'_>,
    opts: &RenderOptions,
) -> io::Result<()> {
    let Some(dir) = opts.dir.as_ref() else {
        return Ok(());
    };
    let found = (format.side_tensors)(SchemaSet::builtin(), message, dir);
    if found.is_empty() {
        return Ok(());
    }
    w.key("side_tensors")?;
    w.begin_array()?;
    for t in found {
        w.begin_object()?;
        w.member("name", &*t.name)?;
        w.member("declared_at", t.message.offset)?;
        if let Some((file, offset)) = t.values.file_offset() {
            w.member("file", file)?;
            w.member("offset", offset)?;
        }
        let view = t.values.view();
        write_type_and_shape(w, &view)?;
        let loaded = load_values(&view, opts);
        write_view_values(w, &view, loaded, opts, false)?;
        w.end_object()?;
    }
    w.end_array()
}

fn unknown_field(w: &mut JsonWriter<'_>, f: &Field<'_>) -> io::Result<()> {
    let Value::Unknown(v) = &f.value else {
        return w.null();
    };
    w.begin_object()?;
    w.member("field", f.number)?;
    w.member("wire_type", v.wire_type().name())?;
    w.member("offset", f.offset)?;
    w.key("value")?;
    match v {
        WireValue::Varint(x) | WireValue::Fixed64(x) => w.value(*x)?,
        WireValue::Fixed32(x) => w.value(*x)?,
        WireValue::Len(b) | WireValue::Group(b) => {
            w.value(&*base64(b))?;
            // The reading without a schema, as `--as protobuf` shows it.
            w.key("guess")?;
            let tree = crate::schemaless::decode_field(
                f.number,
                *v,
                f.offset,
                f.value_offset,
                f.end,
                Default::default(),
            );
            super::schemaless::write_json_field(w, &tree, &RenderOptions::default())?;
        }
    }
    w.end_object()
}

/// Values per chunk formatted by one thread.
const FORMAT_CHUNK: u64 = 1 << 16;

/// Writes the first `limit` values of loaded values into the array open
/// in `w` and returns how many were written. Values in raw storage are
/// formatted in chunks on up to `threads` threads and written in order;
/// the output is byte for byte that of the one-thread path.
pub fn write_value_list(
    w: &mut JsonWriter<'_>,
    loaded: &mut LoadedValues<'_>,
    limit: u64,
    threads: usize,
    progress: &dyn crate::progress::Progress,
) -> io::Result<u64> {
    let raw = match loaded {
        LoadedValues::Ready(it, n) => it.raw_parts().map(|(b, e, a)| (b, e, a, *n)),
        LoadedValues::External(bytes, elem, n) => Some((bytes.bytes(), *elem, false, *n)),
        _ => None,
    };
    if let Some((bytes, elem, aligned, n)) = raw {
        let total = n.min(limit);
        if threads > 1 && total > FORMAT_CHUNK {
            return w.spliced_values(|out| {
                write_parallel(out, bytes, elem, aligned, total, threads, progress)
            });
        }
    }
    let mut n = 0u64;
    let result = for_each_element(loaded, |e| {
        if n >= limit {
            return Err(None);
        }
        element(w, e).map_err(Some)?;
        n += 1;
        Ok(())
    });
    if let Err(Some(e)) = result {
        return Err(e);
    }
    Ok(n)
}

/// The values `0..total` as the text of a JSON array's items (spliced
/// into the array by [`JsonWriter::spliced_values`]).
fn write_parallel(
    w: &mut dyn Write,
    bytes: &[u8],
    elem: crate::tensor::Elem,
    aligned: bool,
    total: u64,
    threads: usize,
    progress: &dyn crate::progress::Progress,
) -> io::Result<u64> {
    use crate::tensor::{Elements, Source};
    // Each thread formats a run of values into its own buffer, kept from
    // one batch to the next.
    let unit = FORMAT_CHUNK * 4;
    // Returns where the text of the run lies in `buf`: every value is
    // written after the separator, which the first run of the list skips.
    let format = |buf: &mut Vec<u8>, start: u64, end: u64| -> io::Result<(usize, usize)> {
        if let Some(to) = format_raw(elem, bytes, start, end, buf) {
            return Ok((
                if start == 0 {
                    SEPARATOR.len().min(to)
                } else {
                    0
                },
                to,
            ));
        }
        let mut it = Elements::new(elem, Source::Raw(bytes), end).byte_aligned(aligned);
        it.advance(start);
        buf.clear();
        buf.reserve(((end - start) * 18) as usize);
        let mut run = JsonWriter::array_run(buf, start > 0);
        for e in it {
            element(&mut run, e)?;
        }
        run.finish()?;
        Ok((0, buf.len()))
    };
    let big = total.saturating_mul(12) >= crate::progress::THRESHOLD_BYTES;
    if big {
        progress.start("formatting values", total);
    }
    let runs: Vec<(u64, u64)> = (0..total)
        .step_by(usize::try_from(unit).unwrap_or(usize::MAX))
        .map(|s| (s, s.saturating_add(unit).min(total)))
        .collect();
    write_runs(w, &runs, threads, &format, &mut |done| {
        if big {
            progress.advance(done);
        }
    })?;
    if big {
        progress.finish();
    }
    Ok(total)
}

/// Fills a buffer with the text of the elements `start..end` and returns
/// where that text lies in it.
pub(super) type FormatRun<'f> =
    dyn Fn(&mut Vec<u8>, u64, u64) -> io::Result<(usize, usize)> + Sync + 'f;

/// Formats `runs` (element ranges, in order) on up to `threads` threads,
/// `threads` runs at a time, each into a buffer kept from one batch to the
/// next, and writes the texts in the order of the runs. `format` fills a
/// buffer with the text of one run and returns where that text lies in it;
/// `done` is told of the elements written after each batch.
pub(super) fn write_runs(
    w: &mut dyn Write,
    runs: &[(u64, u64)],
    threads: usize,
    format: &FormatRun<'_>,
    done: &mut dyn FnMut(u64),
) -> io::Result<()> {
    let threads = threads.max(1);
    let mut pool: Vec<Vec<u8>> = (0..threads).map(|_| Vec::new()).collect();
    for batch in runs.chunks(threads) {
        let results: Vec<io::Result<(usize, usize)>> = std::thread::scope(|scope| {
            // The last run of the batch is formatted on this thread.
            let mut bufs = pool.iter_mut().zip(batch);
            let own = bufs.next_back();
            let handles: Vec<_> = bufs
                .map(|(buf, &(s, e))| scope.spawn(move || format(buf, s, e)))
                .collect();
            let own = own.map(|(buf, &(s, e))| format(buf, s, e));
            let mut out: Vec<io::Result<(usize, usize)>> = handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(io::Error::other("formatting failed")))
                })
                .collect();
            out.extend(own);
            out
        });
        for (buf, r) in pool.iter().zip(results) {
            let (from, to) = r?;
            w.write_all(buf.get(from..to).unwrap_or(&[]))?;
        }
        done(batch.iter().map(|&(s, e)| e.saturating_sub(s)).sum());
    }
    Ok(())
}

/// Bytes kept for one value in [`format_raw`]: ", " and the longest text
/// (a float64 from ryu is at most 24 bytes, an integer at most 20).
pub(super) const SLOT: usize = 32;

/// Formats values `start..end` of a little-endian fixed-width type straight
/// from their bytes into `buf`, each as ", " and its text, with fixed-size
/// copies into a buffer kept from one run to the next (never shortened,
/// so never zero-filled again); returns the end of the text, `None` for
/// the types read through the element reader. The text is that of
/// [`element`].
fn format_raw(
    elem: crate::tensor::Elem,
    bytes: &[u8],
    start: u64,
    end: u64,
    buf: &mut Vec<u8>,
) -> Option<usize> {
    use crate::tensor::Elem;
    match elem {
        Elem::F32 => run::<4>(bytes, start, end, buf, |b, slot| {
            let v = f32::from_le_bytes(*b);
            if v.is_finite() {
                copy_text(ryu::Buffer::new().format_finite(v).as_bytes(), slot)
            } else {
                copy_text(non_finite_text(v.is_nan(), v > 0.0), slot)
            }
        }),
        Elem::F64 => run::<8>(bytes, start, end, buf, |b, slot| {
            let v = f64::from_le_bytes(*b);
            if v.is_finite() {
                copy_text(ryu::Buffer::new().format_finite(v).as_bytes(), slot)
            } else {
                copy_text(non_finite_text(v.is_nan(), v > 0.0), slot)
            }
        }),
        Elem::I8 => run::<1>(bytes, start, end, buf, |b, slot| {
            int_text(i64::from(i8::from_le_bytes(*b)), slot)
        }),
        Elem::U8 => run::<1>(bytes, start, end, buf, |b, slot| {
            uint_text(u64::from(b[0]), false, slot)
        }),
        Elem::I16 => run::<2>(bytes, start, end, buf, |b, slot| {
            int_text(i64::from(i16::from_le_bytes(*b)), slot)
        }),
        Elem::U16 => run::<2>(bytes, start, end, buf, |b, slot| {
            uint_text(u64::from(u16::from_le_bytes(*b)), false, slot)
        }),
        Elem::I32 => run::<4>(bytes, start, end, buf, |b, slot| {
            int_text(i64::from(i32::from_le_bytes(*b)), slot)
        }),
        Elem::U32 => run::<4>(bytes, start, end, buf, |b, slot| {
            uint_text(u64::from(u32::from_le_bytes(*b)), false, slot)
        }),
        Elem::I64 => run::<8>(bytes, start, end, buf, |b, slot| {
            int_text(i64::from_le_bytes(*b), slot)
        }),
        Elem::U64 => run::<8>(bytes, start, end, buf, |b, slot| {
            uint_text(u64::from_le_bytes(*b), false, slot)
        }),
        _ => None,
    }
}

/// The values `start..end` of width `W` through `put`, which writes one
/// value's text into a slot and returns its length.
fn run<const W: usize>(
    bytes: &[u8],
    start: u64,
    end: u64,
    buf: &mut Vec<u8>,
    put: impl Fn(&[u8; W], &mut [u8; SLOT - 2]) -> usize,
) -> Option<usize> {
    let w = W as u64;
    let from = usize::try_from(start.saturating_mul(w)).unwrap_or(usize::MAX);
    let to = usize::try_from(end.saturating_mul(w)).unwrap_or(usize::MAX);
    let values = bytes.get(from..to).unwrap_or(&[]).as_chunks::<W>().0;
    // Zero-filled once to the size of a full run; later runs overwrite it.
    let need = values.len().saturating_add(1).saturating_mul(SLOT);
    if buf.len() < need {
        buf.resize(need, 0);
    }
    let mut pos = 0usize;
    for b in values {
        let Some((slot, _)) = buf
            .get_mut(pos..)
            .and_then(|t| t.split_first_chunk_mut::<SLOT>())
        else {
            break;
        };
        let (separator, rest) = slot.split_at_mut(SEPARATOR.len());
        separator.copy_from_slice(SEPARATOR);
        let Some((text, _)) = rest.split_first_chunk_mut::<{ SLOT - 2 }>() else {
            break;
        };
        pos += 2 + put(b, text);
    }
    Some(pos)
}

/// Copies a short text byte by byte (no call to memcpy for a few bytes).
pub(super) fn copy_text(text: &[u8], slot: &mut [u8; SLOT - 2]) -> usize {
    let mut n = 0;
    for (d, s) in slot.iter_mut().zip(text) {
        *d = *s;
        n += 1;
    }
    n
}

pub(super) fn int_text(v: i64, slot: &mut [u8; SLOT - 2]) -> usize {
    uint_text(v.unsigned_abs(), v < 0, slot)
}

/// Decimal digits of `v` (after a '-' if `neg`), as `{v}` writes them.
pub(super) fn uint_text(mut v: u64, neg: bool, slot: &mut [u8; SLOT - 2]) -> usize {
    // Digits from the last, then copied in order after the sign.
    let mut tmp = [0u8; 20];
    let mut digits = 0;
    for d in tmp.iter_mut().rev() {
        *d = b'0' + (v % 10) as u8;
        v /= 10;
        digits += 1;
        if v == 0 {
            break;
        }
    }
    let (sign, rest) = slot.split_at_mut(usize::from(neg));
    if let Some(s) = sign.first_mut() {
        *s = b'-';
    }
    let text = tmp.get(tmp.len() - digits..).unwrap_or(&[]);
    for (d, s) in rest.iter_mut().zip(text) {
        *d = *s;
    }
    usize::from(neg) + text.len()
}

// TensorFlow record files (`tf-record`): the records streamed, one
// decoded at a time.

/// The JSON members after `"type"`: `"compression"` and the `"summary"`.
pub fn write_records_head(w: &mut JsonWriter<'_>, file: &RecordFile<'_>) -> io::Result<()> {
    w.member("compression", file.compression.name())?;
    w.member(
        "kind",
        match file.kind {
            FileKind::Events => "events",
            FileKind::Records => "records",
        },
    )
}

/// `"records": [...]` (the first `--values N`; every one by default) and
/// `"fault"` when a fault ended the file.
pub fn write_json_records(
    w: &mut JsonWriter<'_>,
    file: &RecordFile<'_>,
    opts: &RenderOptions,
) -> io::Result<()> {
    let set = SchemaSet::builtin();
    let limit = opts.values.unwrap_or(u64::MAX);
    w.key("records")?;
    w.begin_array()?;
    let mut total = 0u64;
    let mut fault = None;
    for r in file.records() {
        let r = match r {
            Ok(r) => r,
            Err(e) => {
                fault = Some(e);
                break;
            }
        };
        total += 1;
        if total <= limit {
            write_record_json(w, set, file.kind, &r, opts)?;
        }
    }
    w.end_array()?;
    if total > limit {
        w.member("records_total", total)?;
    }
    if let Some(fault) = fault {
        write_fault(w, &fault)?;
    }
    Ok(())
}

/// One record's object: `{"index", "offset", "length", "crc", "type",
/// "also", "value"}` (a schemaless payload's `value` as `--as protobuf`
/// writes it; bytes that are no message as `"bytes"`, base64).
pub fn write_record_json(
    w: &mut JsonWriter<'_>,
    set: &SchemaSet,
    kind: FileKind,
    r: &Record<'_>,
    opts: &RenderOptions,
) -> io::Result<()> {
    let read = ReadRecord::of(kind, r);
    w.begin_object()?;
    w.member("index", r.index)?;
    read.write_members(w, set, r, opts)?;
    w.end_object()
}

/// A record's payload, read once for its JSON and the overview: an
/// Example straight from the wire, or what the generic decoder reads.
enum ReadRecord<'r> {
    Example(Shape, Vec<Entry<'r>>),
    Payload(Payload<'r>),
}

impl<'r> ReadRecord<'r> {
    fn of(kind: FileKind, r: &'r Record<'_>) -> Self {
        let mut entries = Vec::new();
        match read_example(kind, &r.data, &mut entries) {
            Some(shape) => ReadRecord::Example(shape, entries),
            None => ReadRecord::Payload(read_payload(kind, &r.data, r.data_offset())),
        }
    }

    fn count(&self, o: &mut Overview, r: &Record<'_>) {
        match self {
            ReadRecord::Example(shape, entries) => o.add_example(r, *shape, entries),
            ReadRecord::Payload(p) => o.add(r, p),
        }
    }

    /// The members after the record's index: `"offset"` to `"value"`. An
    /// Example read from the wire is written as the generic decoder's tree
    /// of it would be (`tests/it/tf_record.rs` compares the two).
    fn write_members(
        &self,
        w: &mut JsonWriter<'_>,
        set: &SchemaSet,
        r: &Record<'_>,
        opts: &RenderOptions,
    ) -> io::Result<()> {
        match self {
            ReadRecord::Example(Shape::Example, entries) => write_example_members(w, r, entries),
            ReadRecord::Example(Shape::SequenceExample, _) => {
                let payload = read_payload(FileKind::Records, &r.data, r.data_offset());
                write_record_members(w, set, r, &payload, opts)
            }
            ReadRecord::Payload(p) => write_record_members(w, set, r, p, opts),
        }
    }
}

/// An Example's record members from its features as the wire has them.
fn write_example_members(
    w: &mut JsonWriter<'_>,
    r: &Record<'_>,
    entries: &[Entry<'_>],
) -> io::Result<()> {
    w.member("offset", r.offset)?;
    w.member("length", r.length)?;
    w.member("crc", r.crc)?;
    w.member("type", Shape::Example.type_name())?;
    w.key("also")?;
    w.begin_array()?;
    w.value(Shape::SequenceExample.type_name())?;
    w.end_array()?;
    w.key("value")?;
    w.begin_object()?;
    w.key(Example::FEATURES.name)?;
    w.begin_object()?;
    if !entries.is_empty() {
        w.key(Features::FEATURE.name)?;
        w.begin_object()?;
        for e in entries {
            w.key(e.name)?;
            w.begin_object()?;
            if let Some(kind) = e.kind {
                let (list, value) = match kind {
                    Kind::Bytes => (Feature::BYTES_LIST, BytesList::VALUE),
                    Kind::Float => (Feature::FLOAT_LIST, FloatList::VALUE),
                    Kind::Int64 => (Feature::INT64_LIST, Int64List::VALUE),
                };
                w.key(list.name)?;
                w.begin_object()?;
                if e.len > 0 {
                    w.key(value.name)?;
                    w.begin_array()?;
                    let mut result = Ok(());
                    match kind {
                        Kind::Bytes => {
                            for b in e.bytes() {
                                w.value(&*base64(b))?;
                            }
                        }
                        Kind::Float => e.floats(|x| {
                            if result.is_ok() {
                                result = w.value(x);
                            }
                        }),
                        Kind::Int64 => e.int64s(|x| {
                            if result.is_ok() {
                                result = w.value(x);
                            }
                        }),
                    }
                    result?;
                    w.end_array()?;
                }
                w.end_object()?;
            }
            w.end_object()?;
        }
        w.end_object()?;
    }
    w.end_object()?;
    w.end_object()
}

/// A record's members after its index: `"offset"` to `"value"`.
fn write_record_members(
    w: &mut JsonWriter<'_>,
    set: &SchemaSet,
    r: &Record<'_>,
    payload: &Payload<'_>,
    opts: &RenderOptions,
) -> io::Result<()> {
    w.member("offset", r.offset)?;
    w.member("length", r.length)?;
    w.member("crc", r.crc)?;
    w.member("type", payload.type_name())?;
    if !payload.also().is_empty() {
        w.key("also")?;
        w.begin_array()?;
        for a in payload.also() {
            w.value(*a)?;
        }
        w.end_array()?;
    }
    match payload {
        Payload::Schemaless(raw) => super::schemaless::write_json_body(w, raw, opts),
        Payload::Bytes(b) => w.member("bytes", &*crate::escape::base64(b)),
        _ => match payload.message() {
            Some(m) => {
                w.key("value")?;
                write_message(w, set, m, opts)
            }
            None => Ok(()),
        },
    }
}

/// A record file as JSON Lines (`decode --jsonl FILE` on one record file),
/// in one pass that holds one record at a time: a first line
/// `{"file", "format", "type", "compression", "kind"}`; a line per record
/// (the first `--values N`), its object of `"records"` with `"file"`
/// first and its index as `"record"`; a last line `{"file",
/// "records_total", "summary", "fault"}` (the summary and the count known
/// only once every record was read; `"fault"` when one ended the file).
/// Returns the fault.
pub fn write_record_lines(
    out: &mut dyn Write,
    path: &std::path::Path,
    format: &Format,
    file: &RecordFile<'_>,
    opts: &RenderOptions,
) -> io::Result<Option<DecodeError>> {
    let mut w = JsonWriter::new(out);
    w.begin_object()?;
    w.path_member("file", path)?;
    w.member("format", format.id)?;
    w.member("type", Null)?;
    write_records_head(&mut w, file)?;
    w.end_object()?;
    w.end_line()?;
    w.finish()?;
    let limit = opts.values.unwrap_or(u64::MAX);
    let mut overview = Overview::default();
    // The records are read and counted here, in order (the summary's
    // counts follow their order), and written as lines in chunks, on other
    // threads when there are cores for them: writing the JSON is most of
    // the work. Each chunk's lines go out whole, in order.
    let threads = crate::progress::threads().min(CHUNKS_IN_FLIGHT);
    let lines_opts = RenderOptions {
        progress: super::ProgressHandle::default(),
        ..opts.clone()
    };
    let kind = file.kind;
    std::thread::scope(|s| -> io::Result<()> {
        let mut inflight = std::collections::VecDeque::new();
        let mut records = file.records();
        let mut done = false;
        while !done {
            let mut chunk = Vec::new();
            let mut bytes = 0u64;
            while chunk.len() < RECORDS_PER_CHUNK && bytes < BYTES_PER_CHUNK {
                let r = match records.next() {
                    Some(Ok(r)) => r,
                    Some(Err(e)) => {
                        overview.fault = Some(e);
                        done = true;
                        break;
                    }
                    None => {
                        done = true;
                        break;
                    }
                };
                ReadRecord::of(kind, &r).count(&mut overview, &r);
                if overview.records <= limit {
                    bytes = bytes.saturating_add(r.length);
                    chunk.push(r);
                }
            }
            if chunk.is_empty() {
                continue;
            }
            if threads < 2 {
                out.write_all(&record_lines(&chunk, path, kind, &lines_opts)?)?;
                continue;
            }
            let o = lines_opts.clone();
            inflight.push_back(s.spawn(move || record_lines(&chunk, path, kind, &o)));
            while inflight.len() >= threads {
                write_chunk(out, inflight.pop_front())?;
            }
        }
        while let Some(h) = inflight.pop_front() {
            write_chunk(out, Some(h))?;
        }
        Ok(())
    })?;
    let mut w = JsonWriter::new(out);
    w.begin_object()?;
    w.path_member("file", path)?;
    w.member("records_total", overview.records)?;
    w.key("summary")?;
    summary_object(&mut w, &overview.summary(file))?;
    if let Some(fault) = &overview.fault {
        write_fault(&mut w, fault)?;
    }
    w.end_object()?;
    w.end_line()?;
    w.finish()?;
    Ok(overview.fault)
}

/// The most records, and record bytes, a chunk of `--jsonl` lines holds:
/// with the chunks in flight, what the output of a file of any length
/// holds at once.
const RECORDS_PER_CHUNK: usize = 256;
const BYTES_PER_CHUNK: u64 = 1 << 18;
/// The most chunks written on other threads at once.
const CHUNKS_IN_FLIGHT: usize = 4;

/// The lines of some records of `--jsonl`: `{"file", "record", ...}` each.
fn record_lines(
    records: &[Record<'_>],
    path: &std::path::Path,
    kind: FileKind,
    opts: &RenderOptions,
) -> io::Result<Vec<u8>> {
    let set = SchemaSet::builtin();
    let mut out = Vec::with_capacity(records.len().saturating_mul(512));
    for r in records {
        let mut w = JsonWriter::new(&mut out);
        w.begin_object()?;
        w.path_member("file", path)?;
        w.member("record", r.index)?;
        ReadRecord::of(kind, r).write_members(&mut w, set, r, opts)?;
        w.end_object()?;
        w.end_line()?;
        w.finish()?;
    }
    Ok(out)
}

/// Writes the lines a thread made (its error, or a panic as an error).
fn write_chunk(
    out: &mut dyn Write,
    handle: Option<std::thread::ScopedJoinHandle<'_, io::Result<Vec<u8>>>>,
) -> io::Result<()> {
    let Some(h) = handle else { return Ok(()) };
    let lines = h
        .join()
        .map_err(|_| io::Error::other("a thread writing records stopped"))??;
    out.write_all(&lines)
}

/// `"fault": {"path", "offset", "check", "message"}`.
fn write_fault(w: &mut JsonWriter<'_>, fault: &DecodeError) -> io::Result<()> {
    w.key("fault")?;
    w.begin_object()?;
    w.member("path", &*fault.path_string())?;
    w.member("offset", fault.offset())?;
    w.member("check", fault.check())?;
    w.member("message", &*fault.message())?;
    w.end_object()
}

/// A bundle tensor's type and shape, its `crc32c` status (and why, when
/// not ok), then its values.
fn write_checked_tensor(
    w: &mut JsonWriter<'_>,
    view: &crate::tensor::TensorView<'_, '_>,
    loaded: LoadedValues<'_>,
    crc: tfc::CrcStatus,
    opts: &RenderOptions,
) -> io::Result<()> {
    write_type_and_shape(w, view)?;
    w.member("crc32c", crc.word())?;
    if let Some(d) = crc.detail() {
        w.member("crc32c_detail", d)?;
    }
    write_view_values(w, view, loaded, opts, false)
}

/// A bundle tensor's `data_type` and `shape` (null for an unknown rank).
fn write_type_and_shape(
    w: &mut JsonWriter<'_>,
    view: &crate::tensor::TensorView<'_, '_>,
) -> io::Result<()> {
    w.member("data_type", &*view.type_name)?;
    w.key("shape")?;
    match &view.dims {
        Some(d) => {
            w.begin_array()?;
            for x in d {
                w.value(*x)?;
            }
            w.end_array()
        }
        None => w.null(),
    }
}

#[cfg(test)]
mod tests {
    //! An Example read straight from the wire (`read_example`) gives the
    //! same JSON, summary counts and columns as the generic decoder's tree
    //! of it, on records of every shape the fast reading takes, and on
    //! one-byte changes of them (whichever reading then takes them).
    use super::*;
    use crate::formats::records::RecordReader;
    use crate::formats::tf_example::ExampleColumns;
    use crate::formats::tf_record::add_payload;

    fn varint(mut v: u64, out: &mut Vec<u8>) {
        while v >= 0x80 {
            out.push((v as u8) | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }
    fn len_field(n: u64, body: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        varint(n << 3 | 2, &mut out);
        varint(body.len() as u64, &mut out);
        out.extend_from_slice(body);
        out
    }
    fn entry(name: &[u8], value: &[u8]) -> Vec<u8> {
        len_field(1, &[len_field(1, name), len_field(2, value)].concat())
    }
    fn example(entries: &[Vec<u8>]) -> Vec<u8> {
        len_field(1, &entries.concat())
    }

    /// Records of the shapes the fast reading takes, and some it leaves.
    fn records() -> Vec<Vec<u8>> {
        let mut packed_i = Vec::new();
        for v in [0u64, 1, 300, u64::MAX, 1 << 63] {
            varint(v, &mut packed_i);
        }
        let floats: Vec<u8> = [1.5f32, -0.0, f32::NAN, f32::INFINITY, 1e-45]
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        let int_list = len_field(3, &len_field(1, &packed_i));
        let float_list = len_field(2, &len_field(1, &floats));
        let bytes_list = len_field(
            1,
            &[len_field(1, b"a\"\\\n"), len_field(1, &[0xff, 0])].concat(),
        );
        let mut unpacked = Vec::new();
        for v in [7u64, 8] {
            varint(8, &mut unpacked);
            varint(v, &mut unpacked);
        }
        let unpacked_f: Vec<u8> = [13u8, 0, 0, 128, 63].to_vec();
        let seq = [
            len_field(1, &entry(b"ctx", &int_list)),
            len_field(
                2,
                &len_field(
                    1,
                    &[
                        len_field(1, b"frames"),
                        len_field(
                            2,
                            &[len_field(1, &float_list), len_field(1, &float_list)].concat(),
                        ),
                    ]
                    .concat(),
                ),
            ),
        ]
        .concat();
        vec![
            example(&[
                entry(b"i", &int_list),
                entry(b"f", &float_list),
                entry(b"b", &bytes_list),
            ]),
            example(&[entry(b"empty", &len_field(3, b"")), entry(b"unset", b"")]),
            example(&[
                entry(b"u", &len_field(3, &unpacked)),
                entry(b"uf", &len_field(2, &unpacked_f)),
            ]),
            example(&[entry("ünï\u{202e}".as_bytes(), &int_list)]),
            example(&[]),
            // Left to the generic reading: a repeated name, a oneof set
            // twice, an empty packed run, an unknown field.
            example(&[entry(b"x", &int_list), entry(b"x", &float_list)]),
            example(&[entry(
                b"y",
                &[int_list.clone(), float_list.clone()].concat(),
            )]),
            example(&[entry(b"z", &len_field(3, &len_field(1, b"")))]),
            [example(&[entry(b"i", &int_list)]), vec![0x18, 1]].concat(),
            seq,
        ]
    }

    fn both(data: &[u8]) {
        let set = SchemaSet::builtin();
        let mut entries = Vec::new();
        let Some(shape) = read_example(FileKind::Records, data, &mut entries) else {
            return;
        };
        let payload = read_payload(FileKind::Records, data, 0);
        // The JSON of the record.
        let r = Record {
            index: 0,
            offset: 0,
            length: data.len() as u64,
            crc: 0,
            data: std::borrow::Cow::Borrowed(data),
        };
        let json = |fast: bool| {
            let mut out = Vec::new();
            let mut w = JsonWriter::new(&mut out);
            w.begin_object().unwrap();
            if fast {
                ReadRecord::Example(shape, entries.clone())
                    .write_members(&mut w, set, &r, &RenderOptions::default())
                    .unwrap();
            } else {
                write_record_members(&mut w, set, &r, &payload, &RenderOptions::default()).unwrap();
            }
            w.end_object().unwrap();
            String::from_utf8(out).unwrap()
        };
        assert_eq!(json(true), json(false), "{data:?}");
        // The summary's counts.
        let (mut a, mut b) = (Overview::default(), Overview::default());
        a.add_example(&r, shape, &entries);
        b.add(&r, &payload);
        assert_eq!(a, b, "{data:?}");
        // The columns.
        let (mut x, mut y) = (ExampleColumns::new(1 << 20), ExampleColumns::new(1 << 20));
        let fast = x.add_entries(&entries, 0).and_then(|()| x.finish());
        let slow = add_payload(&mut y, 0, &payload, 0).and_then(|()| y.finish());
        assert_eq!(fast.is_ok(), slow.is_ok(), "{data:?}");
        // By their text: NaN is not equal to itself.
        assert_eq!(
            format!("{:?}", (x.rows, &x.columns)),
            format!("{:?}", (y.rows, &y.columns)),
            "{data:?}"
        );
    }

    #[test]
    fn the_fast_reading_of_examples_is_the_generic_one() {
        let mut taken = 0;
        for data in records() {
            let mut e = Vec::new();
            if read_example(FileKind::Records, &data, &mut e).is_some() {
                taken += 1;
            }
            both(&data);
            for i in 0..data.len() {
                for flip in [0x01u8, 0x80, 0xff] {
                    let mut d = data.clone();
                    d[i] ^= flip;
                    both(&d);
                }
            }
        }
        assert_eq!(taken, 6, "the records of the shapes the fast reading takes");
        // The fixtures' records too.
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tf-record");
        for name in ["examples.tfrecord", "sequence_examples.tfrecord"] {
            let bytes = std::fs::read(dir.join(name)).unwrap();
            for r in RecordReader::new(&bytes, crate::formats::records::Compression::None, None) {
                both(&r.unwrap().data);
            }
        }
    }
}
