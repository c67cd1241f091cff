//! The views of a TensorFlow record file (`tf-record`): the counts by
//! payload type, then the feature schema of its Examples or the tag table
//! of its events (one pass over the records), then each record (a second
//! pass): its index, offset, length, CRC and payload; the fault that ended
//! the file, if any, last. Both passes read one record at a time.

use super::RenderOptions;
use super::elide::{bracketed, grouped, list_limit, quoted_long};
use crate::decode::Message;
use crate::escape::{plain_bytes, quoted};
use crate::fields::tensorflow::{Event, SequenceExample, Summary, SummaryMetadata};
use crate::formats::records::{FileKind, Record, RecordFile};
use crate::formats::tf_example::FeatureValues;
use crate::formats::tf_record::{
    Overview, Payload, TagValue, decode_graph_def, decode_meta_graph_def, example_features,
    feature_lists, feature_values, features, graph_def_bytes, image_size, overview, read_payload,
    tag_value,
};
use crate::schema::SchemaSet;
use std::io::{self, Write};

/// The whole text view after the `format:` line.
pub fn write_text(
    w: &mut dyn Write,
    file: &RecordFile<'_>,
    opts: &RenderOptions,
) -> io::Result<()> {
    let set = SchemaSet::builtin();
    let o = overview(file);
    writeln!(w, "compression:   {}", file.compression.name())?;
    writeln!(w, "records:       {}", grouped(o.records))?;
    writeln!(w, "payload types: {}", types_text(&o))?;
    writeln!(w, "payload bytes: {}", grouped(o.payload_bytes))?;
    if !o.features.is_empty() {
        writeln!(w)?;
        write_feature_schema(w, &o)?;
    }
    if !o.tags.is_empty() {
        writeln!(w)?;
        write_tag_table(w, &o)?;
    }
    if o.dropped_rows > 0 {
        writeln!(w, "  … {} more names not listed", grouped(o.dropped_rows))?;
    }
    let limit = list_limit(opts);
    let mut shown = 0u64;
    for r in file.records() {
        let Ok(r) = r else { break };
        if shown >= limit {
            break;
        }
        shown += 1;
        writeln!(w)?;
        write_record_text(w, set, file.kind, &r, opts)?;
    }
    if shown < o.records {
        writeln!(w)?;
        writeln!(
            w,
            "… {} more records (--values N shows N, --values all every one)",
            grouped(o.records - shown)
        )?;
    }
    if o.records == 0 && o.fault.is_none() {
        writeln!(w)?;
        writeln!(
            w,
            "0 records: the file holds none (as a writer closed before its first record leaves it)"
        )?;
    }
    if let Some(e) = &o.fault {
        writeln!(w)?;
        writeln!(w, "fault: {e}")?;
    }
    Ok(())
}

/// `tensorflow.Example 4 (also a valid tensorflow.SequenceExample)`.
fn types_text(o: &Overview) -> String {
    if o.types.is_empty() {
        return "none".to_string();
    }
    o.types
        .iter()
        .map(|(t, n)| format!("{t} {}", grouped(*n)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Columns padded to their widest cell.
fn write_table(w: &mut dyn Write, rows: &[Vec<String>]) -> io::Result<()> {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in rows {
        let mut line = String::from("  ");
        for (c, cell) in row.iter().enumerate() {
            line.push_str(cell);
            if c + 1 < row.len() {
                let width = widths.get(c).copied().unwrap_or(0);
                line.push_str(&" ".repeat(width.saturating_sub(cell.chars().count()) + 2));
            }
        }
        writeln!(w, "{line}")?;
    }
    Ok(())
}

fn write_feature_schema(w: &mut dyn Write, o: &Overview) -> io::Result<()> {
    writeln!(w, "features (over {} records):", grouped(o.feature_records))?;
    let mut rows = vec![vec![
        "name".to_string(),
        "kind".to_string(),
        "length".to_string(),
        "missing".to_string(),
    ]];
    for c in &o.features {
        let name = if c.list {
            format!("{} (list)", quoted(&c.name))
        } else {
            quoted(&c.name)
        };
        let length = if c.min_len == c.max_len {
            c.min_len.to_string()
        } else {
            format!("{}..{}", c.min_len, c.max_len)
        };
        rows.push(vec![
            name,
            c.kind.to_string(),
            length,
            grouped(o.feature_records.saturating_sub(c.present)),
        ]);
    }
    write_table(w, &rows)
}

fn write_tag_table(w: &mut dyn Write, o: &Overview) -> io::Result<()> {
    writeln!(w, "tags:")?;
    let mut rows = vec![vec![
        "tag".to_string(),
        "plugin".to_string(),
        "values".to_string(),
        "steps".to_string(),
        "last value".to_string(),
    ]];
    for t in &o.tags {
        let steps = if t.first_step == t.last_step {
            t.first_step.to_string()
        } else {
            format!("{}..{}", t.first_step, t.last_step)
        };
        rows.push(vec![
            quoted(&t.tag),
            if t.plugin.is_empty() {
                "-".to_string()
            } else {
                plain_bytes(&t.plugin)
            },
            grouped(t.count),
            steps,
            tag_value_text(&t.last),
        ]);
    }
    write_table(w, &rows)
}

fn tag_value_text(v: &TagValue) -> String {
    v.text()
}

/// `record 0 @0x0: 342 bytes, crc 0x1234abcd, tensorflow.Example` and
/// what it holds, indented.
fn write_record_text(
    w: &mut dyn Write,
    set: &SchemaSet,
    kind: FileKind,
    r: &Record<'_>,
    opts: &RenderOptions,
) -> io::Result<()> {
    let payload = read_payload(kind, &r.data, r.data_offset());
    write!(
        w,
        "record {} @0x{:x}: {} bytes, crc 0x{:08x}, {}",
        r.index,
        r.offset,
        grouped(r.length),
        r.crc,
        payload.type_name()
    )?;
    if !payload.also().is_empty() {
        write!(w, " (also a valid {})", payload.also().join(", "))?;
    }
    writeln!(w)?;
    match &payload {
        Payload::Example(_) | Payload::SequenceExample(_) => {
            if let Some(f) = example_features(set, &payload) {
                for (name, feature) in features(set, f) {
                    let v = feature_values(set, feature);
                    writeln!(w, "  {}: {}", quoted(name), feature_text(&v, opts))?;
                }
            }
            if let Payload::SequenceExample(m) = &payload
                && let Some(lists) = m.message(set, SequenceExample::FEATURE_LISTS)
            {
                for (name, items) in feature_lists(set, lists) {
                    writeln!(w, "  {} (list of {}):", quoted(name), items.len())?;
                    let limit = list_limit(opts);
                    for (i, f) in items.iter().enumerate() {
                        if i as u64 >= limit {
                            writeln!(w, "    … {} more", grouped(items.len() as u64 - limit))?;
                            break;
                        }
                        writeln!(
                            w,
                            "    [{i}] {}",
                            feature_text(&feature_values(set, f), opts)
                        )?;
                    }
                }
            }
        }
        Payload::Event(m) => write_event_text(w, set, m, opts)?,
        Payload::Tensor(m) => {
            super::tree::tensor_block(w, set, m, 1, opts, false)?;
        }
        Payload::Schemaless(raw) => {
            let mut indented = Indented::new(w);
            super::schemaless::write_text_body(&mut indented, raw, opts)?;
        }
        Payload::Bytes(b) => writeln!(w, "  {}", bytes_text(b, opts))?,
    }
    Ok(())
}

/// A feature's values: `float[4] [0.1, 0.2, 0.5, 0.9]`, `bytes[1] <PNG 8x8>`.
fn feature_text(v: &FeatureValues<'_>, opts: &RenderOptions) -> String {
    let limit = usize::try_from(list_limit(opts)).unwrap_or(usize::MAX);
    let total = v.len() as u64;
    let items: Vec<String> = match v {
        FeatureValues::Bytes(b) => b.iter().take(limit).map(|b| bytes_text(b, opts)).collect(),
        FeatureValues::Float(f) => f.iter().take(limit).map(|x| format!("{x:?}")).collect(),
        FeatureValues::Int64(i) => i.iter().take(limit).map(i64::to_string).collect(),
        FeatureValues::Empty => return "none".to_string(),
    };
    format!("{}[{}] {}", v.kind(), total, bracketed(&items, total))
}

/// Bytes as a picture (`<PNG 8x8>`), text in quotes, or a hex preview.
fn bytes_text(b: &[u8], opts: &RenderOptions) -> String {
    match image_size(b) {
        Some((f, wd, h)) => format!("<{f} {wd}x{h}>"),
        None => quoted_long(b, opts),
    }
}

fn write_event_text(
    w: &mut dyn Write,
    set: &SchemaSet,
    m: &Message<'_>,
    opts: &RenderOptions,
) -> io::Result<()> {
    let step = m.int(set, Event::STEP).unwrap_or(0);
    let wall = match m.scalar(set, Event::WALL_TIME) {
        Some(crate::decode::ScalarValue::F64(t)) => format!("{t:?}"),
        _ => "-".to_string(),
    };
    writeln!(w, "  step {step}, wall_time {wall}")?;
    if let Some(v) = m.bytes(set, Event::FILE_VERSION) {
        writeln!(w, "  file_version: {}", quoted(v))?;
    }
    if let Some(s) = m.message(set, Event::SUMMARY) {
        for v in s.messages(set, Summary::VALUE) {
            let tag = v.bytes(set, Summary::Value::TAG).unwrap_or(b"");
            let plugin = v
                .message(set, Summary::Value::METADATA)
                .and_then(|md| md.message(set, SummaryMetadata::PLUGIN_DATA))
                .and_then(|p| p.bytes(set, SummaryMetadata::PluginData::PLUGIN_NAME))
                .unwrap_or(b"");
            let value = tag_value(set, v, plugin);
            let plugin_text = if plugin.is_empty() {
                String::new()
            } else {
                format!(" [{}]", plain_bytes(plugin))
            };
            writeln!(
                w,
                "  {}{plugin_text}: {}",
                quoted(tag),
                tag_value_text(&value)
            )?;
        }
    }
    if let Some(g) = graph_def_bytes(set, m) {
        match decode_graph_def(g, r_base(m, g)) {
            Some(graph) => {
                writeln!(w, "  graph_def ({} bytes):", grouped(g.len() as u64))?;
                let mut indented = Indented::twice(w);
                super::tf_view::graph_def(&mut indented, set, &graph, opts)?;
            }
            None => writeln!(w, "  graph_def: {}", bytes_text(g, opts))?,
        }
    }
    if let Some(g) = m.bytes(set, Event::META_GRAPH_DEF) {
        match decode_meta_graph_def(g, r_base(m, g)) {
            Some(meta) => {
                writeln!(w, "  meta_graph_def ({} bytes):", grouped(g.len() as u64))?;
                let mut indented = Indented::twice(w);
                super::tf_view::meta_graph_def(&mut indented, set, &meta, opts)?;
            }
            None => writeln!(w, "  meta_graph_def: {}", bytes_text(g, opts))?,
        }
    }
    // The other fields (session_log, log_message, tagged_run_metadata,
    // source_metadata, unknown ones) as the field tree.
    let shown = [
        Event::STEP,
        Event::WALL_TIME,
        Event::FILE_VERSION,
        Event::SUMMARY,
        Event::GRAPH_DEF,
        Event::META_GRAPH_DEF,
    ];
    let is_shown = |slot: Option<usize>| slot.is_some_and(|s| shown.iter().any(|x| x.slot == s));
    if m.fields.iter().any(|f| !is_shown(f.slot)) {
        let rest = Message {
            def: m.def,
            offset: m.offset,
            end: m.end,
            fields: m
                .fields
                .iter()
                .filter(|f| !is_shown(f.slot))
                .cloned()
                .collect(),
        };
        let mut indented = Indented::new(w);
        super::tree::message_fields(&mut indented, set, &rest, 0, opts)?;
    }
    Ok(())
}

/// Where the graph's bytes start in the stream: the offset of the event's
/// `graph_def` field value.
fn r_base(m: &Message<'_>, g: &[u8]) -> u64 {
    m.fields
        .iter()
        .find(|f| matches!(f.value, crate::decode::Value::Bytes(b) if std::ptr::eq(b, g)))
        .map_or(0, |f| f.value_offset)
}

/// A writer that indents every line but empty ones.
struct Indented<'w> {
    out: &'w mut dyn Write,
    prefix: &'static [u8],
    at_line_start: bool,
}

impl<'w> Indented<'w> {
    /// Lines one level in (a record's payload under its record line).
    fn new(out: &'w mut dyn Write) -> Self {
        Indented {
            out,
            prefix: b"  ",
            at_line_start: true,
        }
    }

    /// Lines two levels in (a graph under its event's `graph_def` line).
    fn twice(out: &'w mut dyn Write) -> Self {
        Indented {
            prefix: b"    ",
            ..Indented::new(out)
        }
    }
}

impl Write for Indented<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut rest = buf;
        while !rest.is_empty() {
            // Blank lines stay empty.
            if self.at_line_start && rest.first() != Some(&b'\n') {
                self.out.write_all(self.prefix)?;
            }
            self.at_line_start = false;
            match rest.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    let (line, tail) = rest.split_at(i + 1);
                    self.out.write_all(line)?;
                    self.at_line_start = true;
                    rest = tail;
                }
                None => {
                    self.out.write_all(rest)?;
                    rest = &[];
                }
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}
