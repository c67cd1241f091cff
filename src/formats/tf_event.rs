//! An event file's summaries as tables (what tbparse reads with
//! TensorBoard's EventAccumulator): scalars as columns (step, wall time,
//! tag, value as float32: TF 1's and tensorboardX's `simple_value`, and
//! TF 2's scalar tensors of the `scalars` plugin); histograms, pictures,
//! texts and other tensors as rows.
//!
//! Most events of a long run hold scalars only, and are read straight
//! from the wire; an event of another shape (a histogram, a picture, a
//! field merged from several occurrences) is read by the generic decoder,
//! with the same result.

use super::records::{FileKind, RecordFile};
use super::tf_record::{self, Payload, TagValue};
use crate::decode::{Message, ScalarValue};
use crate::error::{Check, DecodeError, Result};
use crate::fields::tensorflow::{
    Event, Summary as SummaryProto, SummaryMetadata, TensorProto, TensorShapeProto,
};
use crate::schema::SchemaSet;
use crate::wire;
use std::collections::HashMap;

/// Scalars, one entry per value in each column.
#[non_exhaustive]
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScalarColumns {
    pub step: Vec<i64>,
    pub wall_time: Vec<f64>,
    /// The tag's index in [`EventTable::tags`].
    pub tag: Vec<u32>,
    pub value: Vec<f32>,
}

/// What one summary value other than a scalar holds.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub enum EventValue {
    /// A histogram's buckets: each bucket's right edge and count (the
    /// first bucket starts at the histogram's minimum).
    Histogram { limits: Vec<f64>, counts: Vec<f64> },
    /// A picture, encoded (PNG, JPEG, GIF).
    Image(Vec<u8>),
    /// A text (the first string of a `text` tensor).
    Text(Vec<u8>),
    /// Another tensor: its data type's name (`DT_FLOAT`), shape (None
    /// when unknown) and values (None when they cannot be read, or a
    /// padding rule implies far more than the file holds).
    Tensor {
        type_name: String,
        shape: Option<Vec<i64>>,
        values: Option<TensorValues>,
    },
}

/// A tensor's values, flat, at the width that holds each type exactly.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub enum TensorValues {
    /// Floats (float16, bfloat16 and float32 values are all exact here).
    Float(Vec<f64>),
    /// Signed integers and bools.
    Int(Vec<i64>),
    UInt(Vec<u64>),
    Str(Vec<Vec<u8>>),
}

/// One summary value other than a scalar.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub struct EventRow {
    pub step: i64,
    pub wall_time: f64,
    pub tag: u32,
    pub value: EventValue,
}

/// An event file's summaries.
#[non_exhaustive]
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EventTable {
    /// Every tag, in order of first appearance.
    pub tags: Vec<String>,
    /// Each tag's plugin (`scalars`, `histograms`, ...; empty for TF 1).
    pub plugins: Vec<String>,
    pub scalars: ScalarColumns,
    /// Histograms, pictures, texts and other tensors, in file order.
    pub rows: Vec<EventRow>,
    /// The cut that ended the file after its last whole record.
    pub fault: Option<DecodeError>,
    index: HashMap<String, u32>,
}

impl EventTable {
    fn tag(&mut self, tag: &str, plugin: &[u8]) -> u32 {
        if let Some(&i) = self.index.get(tag) {
            if let Some(p) = self.plugins.get_mut(i as usize)
                && p.is_empty()
                && !plugin.is_empty()
            {
                *p = String::from_utf8_lossy(plugin).into_owned();
            }
            return i;
        }
        let i = self.tags.len() as u32;
        self.tags.push(tag.to_string());
        self.plugins
            .push(String::from_utf8_lossy(plugin).into_owned());
        self.index.insert(tag.to_string(), i);
        i
    }

    fn plugin(&self, tag: u32) -> &str {
        self.plugins.get(tag as usize).map_or("", String::as_str)
    }

    fn push_scalar(&mut self, step: i64, wall_time: f64, tag: u32, value: f32) {
        let s = &mut self.scalars;
        s.step.push(step);
        s.wall_time.push(wall_time);
        s.tag.push(tag);
        s.value.push(value);
    }
}

/// The plugins whose tensors are not "other tensors" (tbparse's).
const KNOWN_PLUGINS: &[&str] = &[
    "scalars",
    "histograms",
    "images",
    "text",
    "audio",
    "hparams",
];

/// Every event of an event file, in one pass. A cut ends the table after
/// its last whole record (kept as [`EventTable::fault`]); any other fault
/// is the error. A file of records that are no events gives an empty
/// table.
pub fn event_table(file: &RecordFile<'_>) -> Result<EventTable> {
    let mut t = EventTable::default();
    if file.kind != FileKind::Events {
        return Ok(t);
    }
    for r in file.records() {
        let r = match r {
            Ok(r) => r,
            Err(e) if e.failed_check() == Check::RecordCut => {
                t.fault = Some(e);
                break;
            }
            Err(e) => return Err(e),
        };
        let mut values = Vec::new();
        if let Some((step, wall_time)) = read_scalar_event(&r.data, &mut values) {
            add_scalars(&mut t, step, wall_time, &values);
            continue;
        }
        if let Payload::Event(m) = tf_record::read_payload(file.kind, &r.data, r.data_offset()) {
            add_event(&mut t, &m, &r.data);
        }
    }
    Ok(t)
}

/// A summary value read from the wire: its tag, its plugin, and its
/// scalar (a `simple_value`, or a float scalar tensor).
struct ScalarValue32<'a> {
    tag: &'a str,
    plugin: &'a [u8],
    value: f32,
    /// A tensor, a scalar only when its tag's plugin is `scalars`.
    tensor: bool,
}

fn add_scalars(t: &mut EventTable, step: i64, wall_time: f64, values: &[ScalarValue32<'_>]) {
    for v in values {
        let tag = t.tag(v.tag, v.plugin);
        if !v.tensor || t.plugin(tag) == "scalars" {
            t.push_scalar(step, wall_time, tag, v.value);
        } else {
            // A float scalar tensor of another plugin: one of the other
            // tensors.
            t.rows.push(EventRow {
                step,
                wall_time,
                tag,
                value: EventValue::Tensor {
                    type_name: "DT_FLOAT".to_string(),
                    shape: Some(Vec::new()),
                    values: Some(TensorValues::Float(vec![f64::from(v.value)])),
                },
            });
        }
    }
}

/// The fields of a message as (number, wire value), or None at the first
/// fault.
fn fields(buf: &[u8]) -> impl Iterator<Item = Option<(u32, wire::WireValue<'_>)>> + '_ {
    wire::FieldReader::new(buf, 0).map(|f| f.ok().map(|f| (f.number, f.value)))
}

/// An Event that holds scalars only, each field once: its step, wall time
/// and values. None for any other event (read by the generic decoder).
fn read_scalar_event<'a>(data: &'a [u8], out: &mut Vec<ScalarValue32<'a>>) -> Option<(i64, f64)> {
    use wire::WireValue as W;
    const WALL_TIME: u32 = Event::WALL_TIME.number;
    const STEP: u32 = Event::STEP.number;
    const SUMMARY: u32 = Event::SUMMARY.number;
    let (mut wall_time, mut step, mut summary) = (None, None, None);
    for f in fields(data) {
        match f? {
            (WALL_TIME, W::Fixed64(v)) if wall_time.is_none() => {
                wall_time = Some(f64::from_bits(v))
            }
            (STEP, W::Varint(v)) if step.is_none() => step = Some(v as i64),
            (SUMMARY, W::Len(b)) if summary.is_none() => summary = Some(b),
            _ => return None,
        }
    }
    for f in fields(summary?) {
        let (number, value) = f?;
        let W::Len(v) = value else { return None };
        if number != SummaryProto::VALUE.number {
            return None;
        }
        out.push(read_scalar_value(v)?);
    }
    Some((step.unwrap_or(0), wall_time.unwrap_or(0.0)))
}

fn read_scalar_value(v: &[u8]) -> Option<ScalarValue32<'_>> {
    use wire::WireValue as W;
    const TAG: u32 = SummaryProto::Value::TAG.number;
    const SIMPLE: u32 = SummaryProto::Value::SIMPLE_VALUE.number;
    const TENSOR: u32 = SummaryProto::Value::TENSOR.number;
    const METADATA: u32 = SummaryProto::Value::METADATA.number;
    let (mut tag, mut plugin, mut value, mut tensor) = (None, None, None, false);
    for f in fields(v) {
        match f? {
            (TAG, W::Len(b)) if tag.is_none() => tag = Some(std::str::from_utf8(b).ok()?),
            (SIMPLE, W::Fixed32(x)) if value.is_none() => value = Some(f32::from_bits(x)),
            (TENSOR, W::Len(b)) if value.is_none() => {
                value = Some(read_float_scalar(b)?);
                tensor = true;
            }
            (METADATA, W::Len(b)) if plugin.is_none() => plugin = Some(read_plugin(b)?),
            _ => return None,
        }
    }
    Some(ScalarValue32 {
        tag: tag.unwrap_or(""),
        plugin: plugin.unwrap_or(b""),
        value: value?,
        tensor,
    })
}

/// A SummaryMetadata's plugin name (its other fields skipped).
fn read_plugin(m: &[u8]) -> Option<&[u8]> {
    use wire::WireValue as W;
    let mut name: &[u8] = b"";
    for f in fields(m) {
        match f? {
            (n, W::Len(p)) if n == SummaryMetadata::PLUGIN_DATA.number => {
                for g in fields(p) {
                    match g? {
                        (n, W::Len(b)) if n == SummaryMetadata::PluginData::PLUGIN_NAME.number => {
                            name = b;
                        }
                        (_, W::Len(_) | W::Varint(_)) => {}
                        _ => return None,
                    }
                }
            }
            (_, W::Len(_) | W::Varint(_)) => {}
            _ => return None,
        }
    }
    std::str::from_utf8(name).ok()?;
    Some(name)
}

/// A DT_FLOAT scalar TensorProto (a shape without dimensions, one value
/// in `float_val` or `tensor_content`).
fn read_float_scalar(t: &[u8]) -> Option<f32> {
    use wire::WireValue as W;
    const DT_FLOAT: u64 = 1;
    let (mut dtype, mut value) = (None, None);
    for f in fields(t) {
        match f? {
            (n, W::Varint(d)) if n == TensorProto::DTYPE.number && dtype.is_none() => {
                dtype = Some(d)
            }
            (n, W::Len(s)) if n == TensorProto::TENSOR_SHAPE.number => {
                // No dimension (a scalar); `unknown_rank` false.
                if fields(s).any(|g| {
                    g.is_none_or(|(n, _)| {
                        n == TensorShapeProto::DIM.number
                            || n == TensorShapeProto::UNKNOWN_RANK.number
                    })
                }) {
                    return None;
                }
            }
            (n, W::Fixed32(x)) if n == TensorProto::FLOAT_VAL.number && value.is_none() => {
                value = Some(f32::from_bits(x))
            }
            (n, W::Len(p)) if n == TensorProto::FLOAT_VAL.number && value.is_none() => {
                value = Some(f32::from_le_bytes(<[u8; 4]>::try_from(p).ok()?))
            }
            (n, W::Len(p)) if n == TensorProto::TENSOR_CONTENT.number && value.is_none() => {
                value = Some(f32::from_le_bytes(<[u8; 4]>::try_from(p).ok()?))
            }
            _ => return None,
        }
    }
    (dtype? == DT_FLOAT).then_some(value?)
}

/// An event read by the generic decoder: each summary value by its tag's
/// plugin.
fn add_event(t: &mut EventTable, m: &Message<'_>, data: &[u8]) {
    let set = SchemaSet::builtin();
    let step = m.int(set, Event::STEP).unwrap_or(0);
    let wall_time = match m.scalar(set, Event::WALL_TIME) {
        Some(ScalarValue::F64(x)) => x,
        _ => 0.0,
    };
    let Some(summary) = m.message(set, Event::SUMMARY) else {
        return;
    };
    for v in summary.messages(set, SummaryProto::VALUE) {
        let tag_text =
            String::from_utf8_lossy(v.bytes(set, SummaryProto::Value::TAG).unwrap_or(b""));
        let plugin = v
            .message(set, SummaryProto::Value::METADATA)
            .and_then(|md| md.message(set, SummaryMetadata::PLUGIN_DATA))
            .and_then(|p| p.bytes(set, SummaryMetadata::PluginData::PLUGIN_NAME))
            .unwrap_or(b"");
        let tag = t.tag(&tag_text, plugin);
        let plugin = t.plugin(tag).to_string();
        let simple = v.has(set, SummaryProto::Value::SIMPLE_VALUE);
        let tensor = v.message(set, SummaryProto::Value::TENSOR);
        let value = tf_record::tag_value(set, v, plugin.as_bytes());
        let row = match value {
            TagValue::Scalar32(x) if simple || plugin == "scalars" => {
                t.push_scalar(step, wall_time, tag, x);
                continue;
            }
            TagValue::Scalar(x) if plugin == "scalars" => {
                t.push_scalar(step, wall_time, tag, x as f32);
                continue;
            }
            TagValue::Histogram(_) => {
                let buckets = tf_record::histogram_buckets(set, v);
                EventValue::Histogram {
                    limits: buckets.iter().map(|b| b.1).collect(),
                    counts: buckets.iter().map(|b| b.2).collect(),
                }
            }
            TagValue::Image(..) => {
                EventValue::Image(tf_record::summary_image(set, v).unwrap_or(b"").to_vec())
            }
            TagValue::Text(s) => EventValue::Text(s),
            TagValue::Audio => continue,
            _ => match tensor {
                Some(tm) if !KNOWN_PLUGINS.contains(&plugin.as_str()) => {
                    tensor_value(set, tm, data.len())
                }
                _ => continue,
            },
        };
        t.rows.push(EventRow {
            step,
            wall_time,
            tag,
            value: row,
        });
    }
}

/// A tensor's type, shape and values (values read only when they are at
/// most a few per byte of the record: TensorFlow's padding rule can imply
/// billions from a few bytes).
fn tensor_value(set: &SchemaSet, tm: &Message<'_>, record_bytes: usize) -> EventValue {
    use crate::tensor::{Element, LoadedValues, for_each_element, load_values};
    let view = super::tensorflow::view(set, tm);
    let shape = view.dims.clone();
    let bound = (record_bytes as u64).saturating_mul(8).saturating_add(4096);
    let mut values = None;
    let mut loaded = load_values(&view, None);
    if view.elements <= bound && matches!(loaded, LoadedValues::Ready(..)) {
        let mut v: Option<TensorValues> = None;
        let ok = for_each_element(&mut loaded, |e| {
            let slot = v.get_or_insert_with(|| match e {
                Element::I64(_) | Element::Bool(_) => TensorValues::Int(Vec::new()),
                Element::U64(_) => TensorValues::UInt(Vec::new()),
                Element::Str(_) => TensorValues::Str(Vec::new()),
                _ => TensorValues::Float(Vec::new()),
            });
            match (slot, e) {
                (TensorValues::Int(x), Element::I64(n)) => x.push(n),
                (TensorValues::Int(x), Element::Bool(b)) => x.push(i64::from(b)),
                (TensorValues::UInt(x), Element::U64(n)) => x.push(n),
                (TensorValues::Str(x), Element::Str(b)) => x.push(b.to_vec()),
                (TensorValues::Float(x), e) => x.push(e.as_f64().unwrap_or(f64::NAN)),
                _ => return Err(()),
            }
            Ok(())
        });
        if ok.is_ok() {
            values = Some(v.unwrap_or(TensorValues::Float(Vec::new())));
        }
    }
    EventValue::Tensor {
        type_name: view.type_name.to_string(),
        shape,
        values,
    }
}
