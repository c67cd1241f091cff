//! TensorFlow's record files (`tf.io.TFRecordWriter`, TensorBoard's event
//! files): the framing (`tensorflow/core/lib/io/record_writer.cc`), each
//! record `u64 length`, the masked CRC32C of those 8 bytes, the data, the
//! masked CRC32C of the data; the whole stream optionally GZIP or ZLIB
//! compressed. Records are read one at a time, borrowed from the input
//! when it is not compressed and decompressed streaming (one record in
//! memory) when it is, so a file of millions of records is never held
//! whole. Each record's payload is read as an Event (in an event file), a
//! SequenceExample, an Example, a TensorProto, or without a schema.

use super::base::{Body, Format, FormatOptions, decode_builtin, is_text};
use super::records::{FileKind, Record, RecordFile, RecordReader};
use super::summary::{self, Summary, Value as SummaryValue};
use super::tensorflow;
use super::tf_example::{self, Entry, ExampleColumns, FeatureValues, Shape};
use crate::decode::{DecodeContext, Message, Value};
use crate::error::{DecodeError, Result};
use crate::fields::tensorflow::{
    BytesList, Event, Example, FeatureList, FeatureLists, Features, FloatList, HistogramProto,
    Int64List, SequenceExample, Summary as SummaryProto, SummaryMetadata, TensorProto,
};
use crate::schema::SchemaSet;
use crate::schemaless::{self, RawMessage};
use std::ops::ControlFlow;

/// `tf-record.proto`: Example, SequenceExample, Event, Summary.
pub const RECORD_FILE: (&str, &str) = (
    "tf-record.proto",
    include_str!("../../schemas/tf-record.proto"),
);

/// The id of the format.
pub const ID: &str = "tf-record";

pub const FORMAT: Format = Format {
    id: ID,
    title: "TensorFlow records (TFRecord, event file)",
    schema_files: &[tensorflow::FRAMEWORK_FILE, RECORD_FILE],
    roots: &[],
    decode: decode_records,
    tensor_adapters: &[],
    tensor_namers: &[],
    line: super::base::no_line,
    summary: summary::no_summary,
    views: &[],
    side_tensors: super::base::no_side_tensors,
};

fn decode_records<'a>(bytes: &'a [u8], _opts: &FormatOptions) -> Result<Body<'a>> {
    record_file(bytes).map(Body::Records)
}

/// The bytes as a record file: its compression (from its first bytes) and
/// kind (an event file when its first record is a `file_version` Event),
/// once its first record's header holds.
pub fn record_file(bytes: &[u8]) -> Result<RecordFile<'_>> {
    let compression = super::records::first_header(bytes)?;
    let kind = match RecordReader::new(bytes, compression, None).next() {
        Some(Ok(first)) if is_file_version_event(&first.data) => FileKind::Events,
        _ => FileKind::Records,
    };
    Ok(RecordFile::new(bytes, compression, kind))
}

/// An Event whose `file_version` is `brain.Event:N`: the first record of
/// every event file TensorFlow writes.
fn is_file_version_event(data: &[u8]) -> bool {
    let set = SchemaSet::builtin();
    decode_builtin("tensorflow.Event", data, DecodeContext::strict())
        .ok()
        .and_then(|m| {
            m.str(set, Event::FILE_VERSION)
                .map(|v| v.starts_with("brain.Event:"))
        })
        .unwrap_or(false)
}

/// What a record holds.
pub enum Payload<'r> {
    /// An Event (of an event file).
    Event(Message<'r>),
    /// A SequenceExample with feature lists.
    SequenceExample(Message<'r>),
    /// An Example (the same bytes are a SequenceExample without feature
    /// lists).
    Example(Message<'r>),
    /// A TensorFlow TensorProto (`tf.io.serialize_tensor`).
    Tensor(Message<'r>),
    /// A protobuf message of no known type.
    Schemaless(RawMessage<'r>),
    /// Bytes that are no protobuf message (text, an image, nothing).
    Bytes(&'r [u8]),
}

impl Payload<'_> {
    /// The payload's type name (`tensorflow.Example`; `protobuf` without a
    /// schema, `bytes` for no message).
    pub fn type_name(&self) -> &'static str {
        match self {
            Payload::Event(_) => "tensorflow.Event",
            Payload::SequenceExample(_) => "tensorflow.SequenceExample",
            Payload::Example(_) => "tensorflow.Example",
            Payload::Tensor(_) => "tensorflow.TensorProto",
            Payload::Schemaless(_) => "protobuf",
            Payload::Bytes(_) => "bytes",
        }
    }

    /// The other types the same bytes are equally valid as.
    pub fn also(&self) -> &'static [&'static str] {
        match self {
            Payload::Example(_) => &["tensorflow.SequenceExample"],
            _ => &[],
        }
    }

    /// The decoded message, for the payloads read with a schema.
    pub fn message(&self) -> Option<&Message<'_>> {
        match self {
            Payload::Event(m)
            | Payload::SequenceExample(m)
            | Payload::Example(m)
            | Payload::Tensor(m) => Some(m),
            Payload::Schemaless(_) | Payload::Bytes(_) => None,
        }
    }
}

/// Reads one record's data as what it holds: an Event in an event file;
/// else a SequenceExample when its field 2 (`feature_lists`) is present, an
/// Example, a TensorProto that keeps TensorFlow's rules, a message without
/// a schema, or plain bytes. `base` is the data's offset in the stream.
pub fn read_payload(kind: FileKind, data: &[u8], base: u64) -> Payload<'_> {
    let set = SchemaSet::builtin();
    let strict = |name: &str| {
        decode_builtin(name, data, DecodeContext::strict())
            .ok()
            .map(|m| rebase(m, base))
    };
    if kind == FileKind::Events {
        if let Some(m) = strict("tensorflow.Event") {
            return Payload::Event(m);
        }
    } else if !data.is_empty() {
        if let Some(m) = strict("tensorflow.SequenceExample") {
            if m.has(set, SequenceExample::FEATURE_LISTS) {
                return Payload::SequenceExample(m);
            }
            if let Some(m) = strict("tensorflow.Example") {
                return Payload::Example(m);
            }
        }
        if let Some(m) = strict("tensorflow.TensorProto")
            && m.has(set, TensorProto::DTYPE)
            && (tensorflow::TENSOR_ADAPTER.validate)(set, &m).is_ok()
        {
            return Payload::Tensor(m);
        }
    }
    let opts = schemaless::Options {
        max_depth: schemaless::DEFAULT_MAX_DEPTH,
    };
    let text = is_text(data);
    match schemaless::decode(data, base, opts) {
        Ok(raw) if !data.is_empty() && !text && raw.fault.is_none() => Payload::Schemaless(raw),
        _ => Payload::Bytes(data),
    }
}

/// The message with its offsets moved to where its data is in the stream.
fn rebase(mut m: Message<'_>, base: u64) -> Message<'_> {
    let mut stack: Vec<&mut Message<'_>> = vec![&mut m];
    while let Some(msg) = stack.pop() {
        msg.offset = msg.offset.saturating_add(base);
        msg.end = msg.end.saturating_add(base);
        for f in &mut msg.fields {
            f.offset = f.offset.saturating_add(base);
            f.value_offset = f.value_offset.saturating_add(base);
            f.end = f.end.saturating_add(base);
            if let Value::Message(sub) = &mut f.value {
                stack.push(sub);
            }
        }
    }
    m
}

/// The values of a decoded `tensorflow.Feature` (its last list set, as
/// protobuf's oneof keeps).
pub fn feature_values<'a>(set: &SchemaSet, f: &Message<'a>) -> FeatureValues<'a> {
    let last = f.fields.iter().rev().find_map(|field| match &field.value {
        Value::Message(m) => Some(m.as_ref()),
        _ => None,
    });
    let Some(list) = last else {
        return FeatureValues::Empty;
    };
    let name = &list.def(set).full_name;
    if name == "tensorflow.BytesList" {
        FeatureValues::Bytes(
            list.field(set, BytesList::VALUE)
                .iter()
                .filter_map(|v| match v.value {
                    Value::Bytes(b) => Some(b),
                    _ => None,
                })
                .collect(),
        )
    } else if name == "tensorflow.FloatList" {
        FeatureValues::Float(
            list.scalars(set, FloatList::VALUE)
                .filter_map(|v| match v {
                    crate::decode::ScalarValue::F32(x) => Some(x),
                    _ => None,
                })
                .collect(),
        )
    } else {
        FeatureValues::Int64(
            list.scalars(set, Int64List::VALUE)
                .filter_map(crate::decode::ScalarValue::as_i64)
                .collect(),
        )
    }
}

/// The entries of a `Features` message: each feature's name and message,
/// in file order.
pub fn features<'m, 'a>(
    set: &SchemaSet,
    features: &'m Message<'a>,
) -> Vec<(&'a [u8], &'m Message<'a>)> {
    features
        .messages(set, Features::FEATURE)
        .filter_map(|entry| {
            let key = entry.bytes(set, Features::FeatureEntry::KEY).unwrap_or(b"");
            entry
                .message(set, Features::FeatureEntry::VALUE)
                .map(|v| (key, v))
        })
        .collect()
}

/// The feature lists of a `FeatureLists` message: each name and its
/// features, in file order.
pub fn feature_lists<'m, 'a>(
    set: &SchemaSet,
    lists: &'m Message<'a>,
) -> Vec<(&'a [u8], Vec<&'m Message<'a>>)> {
    lists
        .messages(set, FeatureLists::FEATURE_LIST)
        .filter_map(|entry| {
            let key = entry
                .bytes(set, FeatureLists::FeatureListEntry::KEY)
                .unwrap_or(b"");
            entry
                .message(set, FeatureLists::FeatureListEntry::VALUE)
                .map(|v| (key, v.messages(set, FeatureList::FEATURE).collect()))
        })
        .collect()
}

/// The Features of an Example or the context of a SequenceExample.
pub fn example_features<'m, 'a>(
    set: &SchemaSet,
    payload: &'m Payload<'a>,
) -> Option<&'m Message<'a>> {
    match payload {
        Payload::Example(m) => m.message(set, Example::FEATURES),
        Payload::SequenceExample(m) => m.message(set, SequenceExample::CONTEXT),
        _ => None,
    }
}

/// A picture's format and size, from its signature and header (PNG's IHDR,
/// JPEG's start-of-frame).
pub fn image_size(bytes: &[u8]) -> Option<(&'static str, u32, u32)> {
    let be32 = |at: usize| {
        bytes
            .get(at..at + 4)
            .and_then(|b| <[u8; 4]>::try_from(b).ok())
            .map(u32::from_be_bytes)
    };
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.get(12..16) == Some(b"IHDR") {
        return Some(("PNG", be32(16)?, be32(20)?));
    }
    if bytes.starts_with(&[0xff, 0xd8]) {
        // Segments from byte 2: marker, length, until a start-of-frame.
        let mut at = 2usize;
        while let (Some(0xff), Some(&marker)) = (bytes.get(at), bytes.get(at + 1)) {
            let len = usize::from(u16::from_be_bytes([
                *bytes.get(at + 2)?,
                *bytes.get(at + 3)?,
            ]));
            let sof = matches!(marker, 0xc0..=0xcf) && !matches!(marker, 0xc4 | 0xc8 | 0xcc);
            if sof {
                let h = u16::from_be_bytes([*bytes.get(at + 5)?, *bytes.get(at + 6)?]);
                let w = u16::from_be_bytes([*bytes.get(at + 7)?, *bytes.get(at + 8)?]);
                return Some(("JPEG", u32::from(w), u32::from(h)));
            }
            at = at.checked_add(2)?.checked_add(len)?;
        }
        return None;
    }
    if bytes.starts_with(b"GIF8") {
        let w = u16::from_le_bytes([*bytes.get(6)?, *bytes.get(7)?]);
        let h = u16::from_le_bytes([*bytes.get(8)?, *bytes.get(9)?]);
        return Some(("GIF", u32::from(w), u32::from(h)));
    }
    None
}

/// The most rows a schema or tag table keeps: a file of as many distinct
/// names is summarized by its first ones and a count of the rest.
pub const MAX_TABLE_ROWS: usize = 1000;

/// One feature of the feature schema over all records.
#[derive(Debug, Clone, PartialEq)]
pub struct FeatureColumn {
    pub name: Vec<u8>,
    /// `bytes`, `float`, `int64`, `none`; `mixed` when records disagree.
    pub kind: &'static str,
    pub min_len: u64,
    pub max_len: u64,
    /// How many records have it.
    pub present: u64,
    /// Whether it is a feature list of a SequenceExample (else a feature of
    /// an Example or a SequenceExample's context).
    pub list: bool,
}

/// The last value of a tag, for the tag table.
#[derive(Debug, Clone, PartialEq)]
pub enum TagValue {
    /// A scalar of a double tensor.
    Scalar(f64),
    /// A float scalar: TF 1's `simple_value`, a TF 2 float tensor (shown
    /// as the shortest float32 text).
    Scalar32(f32),
    /// A histogram and its bucket count.
    Histogram(u64),
    /// An image (format, width, height; 0 when unknown).
    Image(&'static str, u32, u32),
    /// A text (the first string of a string tensor).
    Text(Vec<u8>),
    /// Audio.
    Audio,
    /// A tensor of another kind: its data type name and element count.
    Tensor(String, u64),
    /// Nothing that is shown.
    Other,
}

impl TagValue {
    /// The value as the tag table shows it: `0.2`, `histogram, 6 buckets`,
    /// `<PNG 8x8>`, a text in quotes.
    pub fn text(&self) -> String {
        match self {
            TagValue::Scalar(x) => format!("{x:?}"),
            TagValue::Scalar32(x) => format!("{x:?}"),
            TagValue::Histogram(b) => format!("histogram, {b} buckets"),
            TagValue::Image(f, wd, h) if !f.is_empty() => format!("<{f} {wd}x{h}>"),
            TagValue::Image(..) => "image".to_string(),
            TagValue::Text(t) => crate::escape::quoted(t),
            TagValue::Audio => "audio".to_string(),
            TagValue::Tensor(t, n) => format!("{} tensor, {n} values", crate::escape::plain(t)),
            TagValue::Other => "-".to_string(),
        }
    }
}

/// One tag of an event file.
#[derive(Debug, Clone, PartialEq)]
pub struct TagRow {
    pub tag: Vec<u8>,
    /// The plugin that wrote it (`scalars`, `histograms`, `images`), empty
    /// for TF 1 summaries.
    pub plugin: Vec<u8>,
    pub count: u64,
    pub first_step: i64,
    pub last_step: i64,
    pub last: TagValue,
}

/// What one pass over a record file found: counts by payload type, the
/// feature schema of its Examples, the tags of its events.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overview {
    pub records: u64,
    pub payload_bytes: u64,
    /// Payload type names and their counts, in order of first appearance.
    pub types: Vec<(&'static str, u64)>,
    /// Records holding features (Examples, SequenceExamples).
    pub feature_records: u64,
    pub features: Vec<FeatureColumn>,
    pub tags: Vec<TagRow>,
    /// Names or tags past [`MAX_TABLE_ROWS`], not kept.
    pub dropped_rows: u64,
    /// The first fault, after the last whole record.
    pub fault: Option<DecodeError>,
}

impl Overview {
    /// The summary items of the text header and the JSON `"summary"`.
    pub fn summary(&self, file: &RecordFile<'_>) -> Summary {
        let mut s = Summary {
            title: "",
            items: Vec::new(),
        };
        s.push(
            "compression",
            "compression",
            SummaryValue::Text(file.compression.name().as_bytes().to_vec()),
        );
        s.push("records", "records", SummaryValue::Count(self.records));
        s.push(
            "payload_types",
            "payload types",
            SummaryValue::Fields(
                self.types
                    .iter()
                    .map(|(t, n)| (*t, SummaryValue::Count(*n)))
                    .collect(),
            ),
        );
        s.push(
            "payload_bytes",
            "payload bytes",
            SummaryValue::Count(self.payload_bytes),
        );
        if !self.features.is_empty() {
            let columns = self
                .features
                .iter()
                .map(|c| {
                    let mut parts = vec![
                        ("name", SummaryValue::Text(c.name.clone())),
                        ("kind", SummaryValue::Text(c.kind.as_bytes().to_vec())),
                        ("min_length", SummaryValue::Count(c.min_len)),
                        ("max_length", SummaryValue::Count(c.max_len)),
                        (
                            "missing",
                            SummaryValue::Count(self.feature_records.saturating_sub(c.present)),
                        ),
                    ];
                    if c.list {
                        parts.push(("feature_list", SummaryValue::Count(1)));
                    }
                    SummaryValue::Fields(parts)
                })
                .collect();
            s.push("features", "features", SummaryValue::List(columns));
        }
        if !self.tags.is_empty() {
            let tags = self
                .tags
                .iter()
                .map(|t| {
                    SummaryValue::Fields(vec![
                        ("tag", SummaryValue::Text(t.tag.clone())),
                        ("plugin", SummaryValue::Text(t.plugin.clone())),
                        ("values", SummaryValue::Count(t.count)),
                        ("first_step", SummaryValue::Int(t.first_step)),
                        ("last_step", SummaryValue::Int(t.last_step)),
                        ("last_value", SummaryValue::Text(t.last.text().into_bytes())),
                    ])
                })
                .collect();
            s.push("tags", "tags", SummaryValue::List(tags));
        }
        s
    }
}

/// The batch table's summary: the record count and payload types
/// (`4 records: 4 tensorflow.Example`).
pub fn line(file: &RecordFile<'_>) -> String {
    let o = overview(file);
    let types: Vec<String> = o.types.iter().map(|(t, n)| format!("{n} {t}")).collect();
    let mut s = format!("{} records", o.records);
    if !types.is_empty() {
        s.push_str(": ");
        s.push_str(&types.join(", "));
    }
    if let Some(e) = &o.fault {
        s.push_str(&format!("; then {}", e.check()));
    }
    s
}

/// One pass over every record: the [`Overview`].
pub fn overview(file: &RecordFile<'_>) -> Overview {
    let mut o = Overview::default();
    for r in file.records() {
        match r {
            Ok(r) => {
                let mut entries = Vec::new();
                match read_example(file.kind, &r.data, &mut entries) {
                    Some(shape) => o.add_example(&r, shape, &entries),
                    None => {
                        let payload = read_payload(file.kind, &r.data, r.data_offset());
                        o.add(&r, &payload);
                    }
                }
            }
            Err(e) => {
                o.fault = Some(e);
                break;
            }
        }
    }
    o
}

/// A record of a file of records (not events) read straight from the wire
/// as an Example or SequenceExample ([`tf_example::read_example`]); None
/// where [`read_payload`] must read it (an empty record is bytes).
pub fn read_example<'a>(
    kind: FileKind,
    data: &'a [u8],
    entries: &mut Vec<Entry<'a>>,
) -> Option<Shape> {
    if kind != FileKind::Records || data.is_empty() {
        return None;
    }
    tf_example::read_example(data, entries)
}

/// Every record of a file as columns ([`ExampleColumns`]), in one pass. A
/// cut ends the table after its last whole record (kept as its
/// [`ExampleColumns::fault`]: TensorFlow's reader stops there too); any
/// other fault, a record that is no Example, or a feature of two kinds is
/// the error. Where there are cores for it, the records are read as
/// pieces on other threads while this one reads their framing
/// (`example_columns_in_pieces`); the table is the same.
pub fn example_columns(file: &RecordFile<'_>) -> Result<ExampleColumns> {
    let threads = crate::progress::threads();
    if threads >= 2
        && file.bytes.len() as u64 >= BYTES_PER_PIECE
        && let Some(table) = example_columns_in_pieces(file, threads)
    {
        return Ok(table);
    }
    example_columns_in_order(file)
}

/// [`example_columns`] on this thread, record after record.
fn example_columns_in_order(file: &RecordFile<'_>) -> Result<ExampleColumns> {
    let mut table = ExampleColumns::new(file.bytes.len() as u64);
    table.compression = file.compression.name();
    for r in file.records() {
        let r = match r {
            Ok(r) => r,
            Err(e) if e.failed_check() == crate::error::Check::RecordCut => {
                table.fault = Some(e);
                break;
            }
            Err(e) => return Err(e),
        };
        add_record(&mut table, file.kind, &r)?;
    }
    table.finish()?;
    Ok(table)
}

/// The most records, and record bytes, of a piece of a file that one
/// thread reads into a table of its own.
const RECORDS_PER_PIECE: usize = 16 * 1024;
const BYTES_PER_PIECE: u64 = 2 << 20;

/// [`example_columns`] read in pieces on `threads` other threads, each
/// piece's table appended in file order ([`ExampleColumns::append`]). None
/// at the first error anywhere (a fault other than a cut, a record that
/// is no Example, a feature of two kinds, the table's bound): the reading
/// in one pass then gives the error, naming its record as it meets it.
fn example_columns_in_pieces(file: &RecordFile<'_>, threads: usize) -> Option<ExampleColumns> {
    let bytes = file.bytes.len() as u64;
    let kind = file.kind;
    let mut table = ExampleColumns::new(bytes);
    table.compression = file.compression.name();
    std::thread::scope(|s| {
        let mut inflight = std::collections::VecDeque::new();
        let mut records = file.records();
        let mut done = false;
        while !done {
            let mut piece = Vec::new();
            let mut size = 0u64;
            while piece.len() < RECORDS_PER_PIECE && size < BYTES_PER_PIECE {
                match records.next() {
                    Some(Ok(r)) => {
                        size = size.saturating_add(r.length);
                        piece.push(r);
                    }
                    Some(Err(e)) if e.failed_check() == crate::error::Check::RecordCut => {
                        table.fault = Some(e);
                        done = true;
                        break;
                    }
                    Some(Err(_)) => return None,
                    None => {
                        done = true;
                        break;
                    }
                }
            }
            if !piece.is_empty() {
                inflight.push_back(s.spawn(move || piece_columns(kind, &piece, bytes)));
            }
            while inflight.len() >= threads || (done && !inflight.is_empty()) {
                let part = inflight.pop_front()?.join().ok()??;
                table.append(part)?;
            }
        }
        Some(())
    })?;
    table.finish().ok()?;
    Some(table)
}

/// The table of some records (a piece of a file).
fn piece_columns(kind: FileKind, records: &[Record<'_>], bytes: u64) -> Option<ExampleColumns> {
    let mut table = ExampleColumns::new(bytes);
    for r in records {
        add_record(&mut table, kind, r).ok()?;
    }
    table.finish().ok()?;
    Some(table)
}

/// Adds one record to the table: read from the wire when it has the
/// shape of an Example, else by the generic decoder.
fn add_record(table: &mut ExampleColumns, kind: FileKind, r: &Record<'_>) -> Result<()> {
    let offset = r.data_offset();
    if r.data.is_empty() {
        // The empty message: an Example without features.
        table.end_record();
        return Ok(());
    }
    let mut entries = Vec::with_capacity(table.hint.len());
    if read_example(kind, &r.data, &mut entries).is_some() {
        return table.add_entries(&entries, offset);
    }
    let payload = read_payload(kind, &r.data, offset);
    add_payload(table, r.index, &payload, offset)
}

/// Adds a record that the generic decoder read to the table (an Example's
/// or SequenceExample's features; any other payload is the error).
pub fn add_payload(
    table: &mut ExampleColumns,
    record: u64,
    payload: &Payload<'_>,
    offset: u64,
) -> Result<()> {
    let set = SchemaSet::builtin();
    if !matches!(payload, Payload::Example(_) | Payload::SequenceExample(_)) {
        let kind = crate::error::ErrorKind::RecordPayload {
            record,
            found: payload.type_name(),
        };
        return Err(DecodeError::new(kind, offset).within(format!("record[{record}]")));
    }
    let mut i = 0;
    if let Some(features_msg) = example_features(set, payload) {
        for (name, f) in features(set, features_msg) {
            let name = String::from_utf8_lossy(name);
            table.add_feature(i, &name, &feature_values(set, f), offset)?;
            i += 1;
        }
    }
    if let Payload::SequenceExample(m) = payload
        && let Some(lists) = m.message(set, SequenceExample::FEATURE_LISTS)
    {
        for (name, steps) in feature_lists(set, lists) {
            let name = String::from_utf8_lossy(name);
            let steps: Vec<FeatureValues<'_>> =
                steps.iter().map(|f| feature_values(set, f)).collect();
            table.add_feature_list(i, &name, &steps, offset)?;
            i += 1;
        }
    }
    table.end_record();
    Ok(())
}

impl Overview {
    /// Counts one record read straight from the wire
    /// ([`read_example`]), as [`Overview::add`] counts it.
    pub fn add_example(&mut self, r: &Record<'_>, shape: Shape, entries: &[Entry<'_>]) {
        let o = self;
        o.records += 1;
        summary::add(&mut o.payload_bytes, r.length);
        let t = shape.type_name();
        match o.types.iter_mut().find(|(name, _)| *name == t) {
            Some((_, n)) => *n += 1,
            None => o.types.push((t, 1)),
        }
        o.feature_records += 1;
        let record_no = o.feature_records;
        for e in entries {
            let kind = e.kind.map_or("none", tf_example::Kind::name);
            add_column(o, e.name.as_bytes(), kind, e.len, e.list, record_no);
        }
    }

    /// Counts one record, whose payload the caller read (a pass that also
    /// writes the records reads each payload once).
    pub fn add(&mut self, r: &Record<'_>, payload: &Payload<'_>) {
        let set = SchemaSet::builtin();
        let o = self;
        o.records += 1;
        summary::add(&mut o.payload_bytes, r.length);
        let t = payload.type_name();
        match o.types.iter_mut().find(|(name, _)| *name == t) {
            Some((_, n)) => *n += 1,
            None => o.types.push((t, 1)),
        }
        if let Some(features_msg) = example_features(set, payload) {
            o.feature_records += 1;
            let record_no = o.feature_records;
            for (name, f) in features(set, features_msg) {
                let v = feature_values(set, f);
                add_column(o, name, v.kind(), v.len() as u64, false, record_no);
            }
        } else if matches!(payload, Payload::Example(_) | Payload::SequenceExample(_)) {
            o.feature_records += 1;
        }
        if let Payload::SequenceExample(m) = payload {
            let record_no = o.feature_records;
            if let Some(lists) = m.message(set, SequenceExample::FEATURE_LISTS) {
                for (name, items) in feature_lists(set, lists) {
                    let kind = items
                        .first()
                        .map_or("none", |f| feature_values(set, f).kind());
                    add_column(o, name, kind, items.len() as u64, true, record_no);
                }
            }
        }
        if let Payload::Event(m) = payload {
            event_tags(set, m, o);
        }
    }
}

fn add_column(
    o: &mut Overview,
    name: &[u8],
    kind: &'static str,
    len: u64,
    list: bool,
    record_no: u64,
) {
    if let Some(c) = o
        .features
        .iter_mut()
        .find(|c| c.name == name && c.list == list)
    {
        // A feature repeated within one record counts once.
        if c.present < record_no {
            c.present += 1;
        }
        if c.kind != kind {
            c.kind = "mixed";
        }
        c.min_len = c.min_len.min(len);
        c.max_len = c.max_len.max(len);
    } else if o.features.len() < MAX_TABLE_ROWS {
        o.features.push(FeatureColumn {
            name: name.to_vec(),
            kind,
            min_len: len,
            max_len: len,
            present: 1,
            list,
        });
    } else {
        o.dropped_rows += 1;
    }
}

fn event_tags(set: &SchemaSet, event: &Message<'_>, o: &mut Overview) {
    let step = event.int(set, Event::STEP).unwrap_or(0);
    let Some(summary_msg) = event.message(set, Event::SUMMARY) else {
        return;
    };
    for v in summary_msg.messages(set, SummaryProto::VALUE) {
        let tag = v.bytes(set, SummaryProto::Value::TAG).unwrap_or(b"");
        let plugin = v
            .message(set, SummaryProto::Value::METADATA)
            .and_then(|m| m.message(set, SummaryMetadata::PLUGIN_DATA))
            .and_then(|p| p.bytes(set, SummaryMetadata::PluginData::PLUGIN_NAME))
            .unwrap_or(b"");
        let value = tag_value(set, v, plugin);
        if let Some(row) = o.tags.iter_mut().find(|r| r.tag == tag) {
            row.count += 1;
            row.first_step = row.first_step.min(step);
            row.last_step = step;
            row.last = value;
            if row.plugin.is_empty() {
                row.plugin = plugin.to_vec();
            }
        } else if o.tags.len() < MAX_TABLE_ROWS {
            o.tags.push(TagRow {
                tag: tag.to_vec(),
                plugin: plugin.to_vec(),
                count: 1,
                first_step: step,
                last_step: step,
                last: value,
            });
        } else {
            o.dropped_rows += 1;
        }
    }
}

/// What a summary value holds, as the tag table shows it: TF 1's
/// `simple_value`, `histo`, `image` and `audio`, and TF 2's tensors read by
/// their plugin (a scalar tensor is a number, `histograms` a [k, 3] tensor
/// of buckets, `images` a string tensor of width, height and encoded
/// pictures, `text` strings).
pub fn tag_value(set: &SchemaSet, v: &Message<'_>, plugin: &[u8]) -> TagValue {
    use crate::decode::ScalarValue;
    if let Some(ScalarValue::F32(x)) = v.scalar(set, SummaryProto::Value::SIMPLE_VALUE) {
        return TagValue::Scalar32(x);
    }
    if let Some(h) = v.message(set, SummaryProto::Value::HISTO) {
        return TagValue::Histogram(h.scalars(set, HistogramProto::BUCKET).count() as u64);
    }
    if let Some(img) = v.message(set, SummaryProto::Value::IMAGE) {
        let bytes = img
            .bytes(set, SummaryProto::Image::ENCODED_IMAGE_STRING)
            .unwrap_or(b"");
        return match image_size(bytes) {
            Some((f, w, h)) => TagValue::Image(f, w, h),
            None => TagValue::Image("", 0, 0),
        };
    }
    if v.has(set, SummaryProto::Value::AUDIO) {
        return TagValue::Audio;
    }
    let Some(t) = v.message(set, SummaryProto::Value::TENSOR) else {
        return TagValue::Other;
    };
    tensor_tag_value(set, t, plugin)
}

fn tensor_tag_value(set: &SchemaSet, t: &Message<'_>, plugin: &[u8]) -> TagValue {
    use crate::tensor::{Element, LoadedValues, for_each_element, load_values};
    let view = tensorflow::view(set, t);
    let elements = view.elements;
    let type_name = view.type_name.clone();
    let rank = view.dims.as_ref().map(Vec::len);
    let mut first: Vec<TagValue> = Vec::new();
    let mut strings: Vec<Vec<u8>> = Vec::new();
    let mut loaded = load_values(&view, None);
    if matches!(loaded, LoadedValues::Ready(..)) {
        let _ = for_each_element(&mut loaded, |e| {
            if let Element::Str(s) = e {
                strings.push(s.to_vec());
            } else {
                first.push(match e {
                    Element::F32(x) => TagValue::Scalar32(x),
                    other => other.as_f64().map_or(TagValue::Other, TagValue::Scalar),
                });
            }
            if first.len() + strings.len() >= 3 {
                Err(())
            } else {
                Ok(())
            }
        });
    }
    match plugin {
        b"histograms" if rank == Some(2) => TagValue::Histogram(elements / 3),
        b"images" => {
            let size = strings.get(2).and_then(|b| image_size(b));
            match size {
                Some((f, w, h)) => TagValue::Image(f, w, h),
                None => TagValue::Image("", 0, 0),
            }
        }
        b"text" => TagValue::Text(strings.into_iter().next().unwrap_or_default()),
        _ if elements == 1 && strings.is_empty() => {
            first.into_iter().next().unwrap_or(TagValue::Other)
        }
        _ => TagValue::Tensor(type_name, elements),
    }
}

/// The picture an event's summary value holds, encoded: TF 1's `image`
/// or the third string of a TF 2 `images` tensor.
pub fn summary_image<'a>(set: &SchemaSet, v: &Message<'a>) -> Option<&'a [u8]> {
    if let Some(img) = v.message(set, SummaryProto::Value::IMAGE) {
        return img.bytes(set, SummaryProto::Image::ENCODED_IMAGE_STRING);
    }
    let t = v.message(set, SummaryProto::Value::TENSOR)?;
    crate::tensor::strings(t.field(set, TensorProto::STRING_VAL)).nth(2)
}

/// The format of a picture stored encoded, from its signature: `PNG`,
/// `JPEG` or `GIF` (what the explorer draws), else None.
pub fn picture_format(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("PNG")
    } else if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
        Some("JPEG")
    } else if bytes.starts_with(b"GIF8") {
        Some("GIF")
    } else {
        None
    }
}

/// A picture a record holds, encoded: an event's summary image (TF 1's
/// `image`, each picture of a TF 2 `images` tensor) or a bytes value of an
/// Example's feature (a SequenceExample's context, or a step of one of its
/// feature lists) that is a PNG, JPEG or GIF. Its name is `record/K/TAG`,
/// `record/K/FEATURE` or `record/K/LIST[T]` (K the record's index, as the
/// text view and the explorer number records; T the step), with `/J`
/// added when the value holds several (J the picture's place among a
/// tensor's pictures, or the bytes value's index in the feature's list).
pub struct RecordPicture<'p> {
    pub name: Vec<u8>,
    /// `PNG`, `JPEG` or `GIF`.
    pub format: &'static str,
    pub bytes: &'p [u8],
}

/// Calls `visit` with each picture of one record, in order, until it
/// breaks.
pub fn record_pictures(
    index: u64,
    payload: &Payload<'_>,
    visit: &mut dyn FnMut(RecordPicture<'_>) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let set = SchemaSet::builtin();
    let mut named = |label: &[u8], pictures: &[&[u8]], several: bool| {
        for (j, bytes) in pictures.iter().enumerate() {
            let Some(format) = picture_format(bytes) else {
                continue;
            };
            let mut name = format!("record/{index}/").into_bytes();
            name.extend_from_slice(label);
            if several {
                name.extend_from_slice(format!("/{j}").as_bytes());
            }
            visit(RecordPicture {
                name,
                format,
                bytes,
            })?;
        }
        ControlFlow::Continue(())
    };
    if let Payload::Event(event) = payload {
        let Some(summary_msg) = event.message(set, Event::SUMMARY) else {
            return ControlFlow::Continue(());
        };
        for v in summary_msg.messages(set, SummaryProto::VALUE) {
            let tag = v.bytes(set, SummaryProto::Value::TAG).unwrap_or(b"");
            if let Some(img) = v.message(set, SummaryProto::Value::IMAGE) {
                let bytes = img
                    .bytes(set, SummaryProto::Image::ENCODED_IMAGE_STRING)
                    .unwrap_or(b"");
                named(tag, &[bytes], false)?;
                continue;
            }
            let plugin = v
                .message(set, SummaryProto::Value::METADATA)
                .and_then(|m| m.message(set, SummaryMetadata::PLUGIN_DATA))
                .and_then(|p| p.bytes(set, SummaryMetadata::PluginData::PLUGIN_NAME));
            if let (Some(b"images"), Some(t)) =
                (plugin, v.message(set, SummaryProto::Value::TENSOR))
            {
                // Width, height, then the encoded pictures.
                let pictures: Vec<&[u8]> =
                    crate::tensor::strings(t.field(set, TensorProto::STRING_VAL))
                        .skip(2)
                        .collect();
                named(tag, &pictures, pictures.len() > 1)?;
            }
        }
    } else if let Some(features_msg) = example_features(set, payload) {
        for (name, f) in features(set, features_msg) {
            if let FeatureValues::Bytes(values) = feature_values(set, f) {
                named(name, &values, values.len() > 1)?;
            }
        }
    }
    if let Payload::SequenceExample(m) = payload
        && let Some(lists) = m.message(set, SequenceExample::FEATURE_LISTS)
    {
        for (name, steps) in feature_lists(set, lists) {
            for (t, f) in steps.iter().enumerate() {
                if let FeatureValues::Bytes(values) = feature_values(set, f) {
                    let mut label = name.to_vec();
                    label.extend_from_slice(format!("[{t}]").as_bytes());
                    named(&label, &values, values.len() > 1)?;
                }
            }
        }
    }
    ControlFlow::Continue(())
}

/// A scalar's (step, value).
pub type Point = (i64, f64);
/// A histogram bucket: (left edge, right edge, count).
pub type Bucket = (f64, f64, f64);

/// What the explorer draws of an event file: each scalar tag's points,
/// the last histogram and the last picture of each tag.
#[derive(Debug, Default)]
pub struct Series {
    /// (tag, points (step, value)), tags in order of first appearance; at
    /// most `max_points` points a tag (the first ones).
    pub scalars: Vec<(Vec<u8>, Vec<Point>)>,
    /// Points past `max_points`, not kept.
    pub dropped_points: u64,
    /// (tag, step, buckets (left edge, right edge, count)): the last of
    /// each tag.
    pub histograms: Vec<(Vec<u8>, i64, Vec<Bucket>)>,
    /// (tag, step, encoded picture): the last of each tag.
    pub images: Vec<(Vec<u8>, i64, Vec<u8>)>,
}

/// The [`Series`] of an event file, in one pass (for other files, empty).
/// Memory is bounded by the tags (at most [`MAX_TABLE_ROWS`]), the points
/// kept and one histogram and picture a tag.
pub fn series(file: &RecordFile<'_>, max_points: usize) -> Series {
    let set = SchemaSet::builtin();
    let mut s = Series::default();
    if file.kind != FileKind::Events {
        return s;
    }
    for r in file.records() {
        let Ok(r) = r else { break };
        let Payload::Event(event) = read_payload(file.kind, &r.data, r.data_offset()) else {
            continue;
        };
        let step = event.int(set, Event::STEP).unwrap_or(0);
        let Some(summary_msg) = event.message(set, Event::SUMMARY) else {
            continue;
        };
        for v in summary_msg.messages(set, SummaryProto::VALUE) {
            let tag = v
                .bytes(set, SummaryProto::Value::TAG)
                .unwrap_or(b"")
                .to_vec();
            let plugin = v
                .message(set, SummaryProto::Value::METADATA)
                .and_then(|m| m.message(set, SummaryMetadata::PLUGIN_DATA))
                .and_then(|p| p.bytes(set, SummaryMetadata::PluginData::PLUGIN_NAME))
                .unwrap_or(b"");
            match tag_value(set, v, plugin) {
                TagValue::Scalar(x) => push_point(&mut s, tag, step, x, max_points),
                TagValue::Scalar32(x) => push_point(&mut s, tag, step, f64::from(x), max_points),
                TagValue::Histogram(_) => {
                    let buckets = histogram_buckets(set, v);
                    keep_last(&mut s.histograms, (tag, step, buckets), |h| &h.0);
                }
                TagValue::Image(..) => {
                    let picture = summary_image(set, v).unwrap_or(b"").to_vec();
                    keep_last(&mut s.images, (tag, step, picture), |i| &i.0);
                }
                _ => {}
            }
        }
    }
    s
}

fn push_point(s: &mut Series, tag: Vec<u8>, step: i64, x: f64, max_points: usize) {
    match s.scalars.iter().position(|(t, _)| *t == tag) {
        Some(i) => match s.scalars.get_mut(i) {
            Some((_, points)) if points.len() < max_points => points.push((step, x)),
            _ => s.dropped_points += 1,
        },
        None if s.scalars.len() < MAX_TABLE_ROWS => s.scalars.push((tag, vec![(step, x)])),
        None => s.dropped_points += 1,
    }
}

/// Replaces the item of the same tag, or adds it while there are fewer
/// than [`MAX_TABLE_ROWS`].
fn keep_last<T>(list: &mut Vec<T>, item: T, tag: impl Fn(&T) -> &Vec<u8>) {
    match list.iter().position(|x| tag(x) == tag(&item)) {
        Some(i) => {
            if let Some(slot) = list.get_mut(i) {
                *slot = item;
            }
        }
        None if list.len() < MAX_TABLE_ROWS => list.push(item),
        None => {}
    }
}

/// A histogram's buckets as (left edge, right edge, count): TF 1's
/// `HistogramProto` (each bucket from the previous limit, the first from
/// `min`), or TF 2's [k, 3] tensor of rows (left, right, count).
pub fn histogram_buckets(set: &SchemaSet, v: &Message<'_>) -> Vec<Bucket> {
    use crate::decode::ScalarValue;
    let f = |x: ScalarValue| match x {
        ScalarValue::F64(x) => x,
        ScalarValue::F32(x) => f64::from(x),
        _ => 0.0,
    };
    if let Some(h) = v.message(set, SummaryProto::Value::HISTO) {
        let mut left = h.scalar(set, HistogramProto::MIN).map_or(0.0, f);
        let limits: Vec<f64> = h
            .scalars(set, HistogramProto::BUCKET_LIMIT)
            .map(f)
            .collect();
        let counts = h.scalars(set, HistogramProto::BUCKET).map(f);
        return limits
            .into_iter()
            .zip(counts)
            .map(|(right, count)| {
                let bucket = (left, right, count);
                left = right;
                bucket
            })
            .collect();
    }
    let Some(t) = v.message(set, SummaryProto::Value::TENSOR) else {
        return Vec::new();
    };
    use crate::tensor::{LoadedValues, for_each_element, load_values};
    let view = tensorflow::view(set, t);
    let mut flat: Vec<f64> = Vec::new();
    let mut loaded = load_values(&view, None);
    // The buckets a picture can show; more are not kept.
    const MAX_VALUES: usize = 3 * 1024;
    if matches!(loaded, LoadedValues::Ready(..)) {
        let _ = for_each_element(&mut loaded, |e| {
            flat.push(e.as_f64().unwrap_or(0.0));
            if flat.len() >= MAX_VALUES {
                Err(())
            } else {
                Ok(())
            }
        });
    }
    flat.chunks_exact(3)
        .filter_map(|c| match c {
            [l, r, n] => Some((*l, *r, *n)),
            _ => None,
        })
        .collect()
}

/// An event's `graph_def`: a serialized GraphDef, read leniently (as the
/// GraphDef format reads one; `base` is where its bytes start).
pub fn decode_graph_def(bytes: &[u8], base: u64) -> Option<Message<'_>> {
    decode_builtin("tensorflow.GraphDef", bytes, DecodeContext::lenient())
        .ok()
        .map(|m| rebase(m, base))
}

/// An event's `meta_graph_def`: a serialized MetaGraphDef, read leniently
/// (`base` is where its bytes start).
pub fn decode_meta_graph_def(bytes: &[u8], base: u64) -> Option<Message<'_>> {
    decode_builtin("tensorflow.MetaGraphDef", bytes, DecodeContext::lenient())
        .ok()
        .map(|m| rebase(m, base))
}

/// The message an event's bytes field `field` holds serialized, decoded
/// (`graph_def`: a GraphDef; `meta_graph_def`: a MetaGraphDef, as TF1's
/// FileWriter and Keras' TensorBoard callback write them); None for
/// another message or field, or bytes that do not read.
pub fn event_embedded<'a>(
    set: &SchemaSet,
    msg: &Message<'a>,
    f: &crate::decode::Field<'a>,
) -> Option<Message<'a>> {
    if msg.def(set).full_name != "tensorflow.Event" {
        return None;
    }
    let crate::decode::Value::Bytes(bytes) = f.value else {
        return None;
    };
    if f.number == Event::GRAPH_DEF.number {
        decode_graph_def(bytes, f.value_offset)
    } else if f.number == Event::META_GRAPH_DEF.number {
        decode_meta_graph_def(bytes, f.value_offset)
    } else {
        None
    }
}

/// The serialized graphs of an event file, in file order: each event's
/// `graph_def` (true: a GraphDef) and `meta_graph_def` (false: a
/// MetaGraphDef), copied out of their records (read one at a time). An
/// event file holds one graph, or one a run (Keras' callback).
pub fn event_graphs(file: &RecordFile<'_>) -> Vec<(bool, Vec<u8>)> {
    let set = SchemaSet::builtin();
    let mut out = Vec::new();
    if file.kind != FileKind::Events {
        return out;
    }
    for r in file.records() {
        let Ok(r) = r else { break };
        let Ok(event) = decode_builtin("tensorflow.Event", &r.data, DecodeContext::lenient())
        else {
            continue;
        };
        if let Some(g) = event.bytes(set, Event::GRAPH_DEF) {
            out.push((true, g.to_vec()));
        }
        if let Some(g) = event.bytes(set, Event::META_GRAPH_DEF) {
            out.push((false, g.to_vec()));
        }
    }
    out
}

/// The bytes of an event's `graph_def` (a serialized GraphDef).
pub fn graph_def_bytes<'a>(set: &SchemaSet, event: &Message<'a>) -> Option<&'a [u8]> {
    event.bytes(set, Event::GRAPH_DEF)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file_of(bytes: &[u8]) -> RecordFile<'_> {
        match decode_records(bytes, &FormatOptions::default()) {
            Ok(Body::Records(f)) => f,
            _ => panic!("not a record file"),
        }
    }

    fn framed(records: &[Vec<u8>]) -> Vec<u8> {
        use crate::checksum::{crc32c, mask};
        let mut out = Vec::new();
        for data in records {
            let len = (data.len() as u64).to_le_bytes();
            out.extend_from_slice(&len);
            out.extend_from_slice(&mask(crc32c(&len)).to_le_bytes());
            out.extend_from_slice(data);
            out.extend_from_slice(&mask(crc32c(data)).to_le_bytes());
        }
        out
    }

    fn len_field(n: u64, body: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        for v in [n << 3 | 2, body.len() as u64] {
            let mut v = v;
            while v >= 0x80 {
                out.push((v as u8) | 0x80);
                v >>= 7;
            }
            out.push(v as u8);
        }
        out.extend_from_slice(body);
        out
    }

    /// A record of record `i`'s features: some in every record, some in a
    /// few, one first seen late, their order changing; a SequenceExample's
    /// feature list now and then; an empty record.
    fn record(i: u64, bad_kind_at: Option<u64>) -> Vec<u8> {
        let feature = |name: &str, list: u64, values: &[u8]| {
            len_field(
                1,
                &[
                    len_field(1, name.as_bytes()),
                    len_field(2, &len_field(list, &len_field(1, values))),
                ]
                .concat(),
            )
        };
        if i % 997 == 5 {
            return Vec::new();
        }
        let mut entries = vec![
            feature("id", 1, format!("id-{i}").as_bytes()),
            feature("label", 3, &[(i % 100) as u8]),
        ];
        if !i.is_multiple_of(3) {
            entries.push(feature("score", 2, &(i as f32).to_le_bytes()));
        }
        if i.is_multiple_of(2) {
            entries.reverse();
        }
        if i > 40_000 && i.is_multiple_of(5) {
            let list = if bad_kind_at == Some(i) { 2 } else { 3 };
            entries.push(feature("late", list, &[1, 2, 3]));
        }
        let mut rec = len_field(1, &entries.concat());
        if i.is_multiple_of(11) {
            let step = len_field(1, &len_field(2, &len_field(1, &[7u8; 8])));
            let lists = len_field(
                1,
                &[
                    len_field(1, b"frames"),
                    len_field(2, &[step.clone(), step].concat()),
                ]
                .concat(),
            );
            rec.extend(len_field(2, &lists));
        }
        rec
    }

    #[test]
    fn example_columns_read_in_pieces_are_those_of_one_pass() {
        let records: Vec<Vec<u8>> = (0..50_000).map(|i| record(i, None)).collect();
        let mut bytes = framed(&records);
        assert!(bytes.len() as u64 >= BYTES_PER_PIECE && records.len() > 2 * RECORDS_PER_PIECE);
        // Whole, and cut inside its last record.
        for cut in [0, 7] {
            bytes.truncate(bytes.len() - cut);
            let file = file_of(&bytes);
            let one = example_columns_in_order(&file).unwrap();
            let pieces = example_columns_in_pieces(&file, 2).unwrap();
            assert_eq!(pieces.rows, one.rows);
            assert_eq!(pieces.columns, one.columns);
            assert_eq!(pieces.fault, one.fault);
            assert_eq!(pieces.compression, one.compression);
            assert_eq!(
                one.columns
                    .iter()
                    .map(|c| c.name.as_str())
                    .collect::<Vec<_>>(),
                ["label", "id", "frames", "score", "late"]
            );
            assert_eq!(one.fault.is_some(), cut > 0);
        }
    }

    #[test]
    fn a_feature_of_two_kinds_in_a_later_piece_is_the_error_of_one_pass() {
        let records: Vec<Vec<u8>> = (0..50_000).map(|i| record(i, Some(45_005))).collect();
        let bytes = framed(&records);
        let file = file_of(&bytes);
        assert!(example_columns_in_pieces(&file, 2).is_none());
        let e = example_columns(&file).unwrap_err();
        assert_eq!(e, example_columns_in_order(&file).unwrap_err());
        assert!(e.to_string().contains("record[45005]"), "{e}");
    }

    #[test]
    fn series_of_event_files() {
        let tf2 = include_bytes!("../../tests/fixtures/tf-record/tf2.tfevents");
        let s = series(&file_of(tf2), 10);
        let tags: Vec<&[u8]> = s.scalars.iter().map(|(t, _)| t.as_slice()).collect();
        assert_eq!(tags, [&b"loss"[..], b"accuracy"]);
        let loss = &s.scalars[0].1;
        assert_eq!(loss.len(), 5);
        assert_eq!(loss[0], (0, 1.0));
        assert_eq!(loss[4], (4, f64::from(0.2f32)));
        assert_eq!(s.histograms.len(), 1);
        let (tag, step, buckets) = &s.histograms[0];
        assert_eq!(
            (tag.as_slice(), *step, buckets.len()),
            (&b"weights"[..], 2, 6)
        );
        assert_eq!(buckets.iter().map(|b| b.2).sum::<f64>(), 50.0);
        assert_eq!(image_size(&s.images[0].2), Some(("PNG", 8, 8)));
        // At most `max_points` a tag; the rest counted.
        let s = series(&file_of(tf2), 3);
        assert_eq!(s.scalars[0].1.len(), 3);
        assert_eq!(s.dropped_points, 4);
        // TF 1: HistogramProto buckets from `min`, each from the last limit.
        let tf1 = include_bytes!("../../tests/fixtures/tf-record/tf1.tfevents");
        let s = series(&file_of(tf1), 10);
        let (_, _, buckets) = &s.histograms[0];
        assert_eq!(buckets.len(), 4);
        assert_eq!(buckets[0].0, 0.0);
        assert_eq!(buckets[1].0, buckets[0].1);
        assert_eq!(buckets.iter().map(|b| b.2).sum::<f64>(), 20.0);
        // A file of Examples has none.
        let ex = include_bytes!("../../tests/fixtures/tf-record/examples.tfrecord");
        assert!(series(&file_of(ex), 10).scalars.is_empty());
    }

    #[test]
    fn image_sizes() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        png.extend_from_slice(&8u32.to_be_bytes());
        png.extend_from_slice(&6u32.to_be_bytes());
        assert_eq!(image_size(&png), Some(("PNG", 8, 6)));
        assert_eq!(image_size(b"\xff\xd8\xff"), None);
    }
}
