//! A record file's Examples and SequenceExamples as columns, in one pass
//! (tfx-bsl's `ExamplesToRecordBatchDecoder`): per feature, each record's
//! offset into one buffer of values and a validity bit (a record without
//! the feature is null, a feature with no values an empty list); a
//! SequenceExample's feature lists as lists of lists (record -> steps ->
//! values).
//!
//! Each record is read straight from the wire ([`read_example`]) into the
//! features it holds, in file order, borrowing names and values; the same
//! reading serves the columns, the summary of a record file and its JSON
//! lines. A record of a shape that reading does not take (a field merged
//! from several occurrences, a oneof set twice, a repeated name, an empty
//! packed field, a field the schema does not know) is read by the generic
//! decoder instead (`tf_record::read_payload`, whose features go in
//! through [`ExampleColumns::add_feature`]), so that both give the same
//! values.

use crate::error::{DecodeError, ErrorKind, Result};
use crate::fields::tensorflow::{
    BytesList, Example, Feature, FeatureList, FeatureLists, Features, FloatList, Int64List,
    SequenceExample,
};
use crate::wire;
use std::collections::HashMap;

/// The kind of a feature's values (the list its Feature sets).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Bytes,
    Float,
    Int64,
}

impl Kind {
    /// `bytes`, `float` or `int64`, as the summary names them.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Bytes => "bytes",
            Kind::Float => "float",
            Kind::Int64 => "int64",
        }
    }

    fn of(values: &FeatureValues<'_>) -> Option<Kind> {
        match values {
            FeatureValues::Bytes(_) => Some(Kind::Bytes),
            FeatureValues::Float(_) => Some(Kind::Float),
            FeatureValues::Int64(_) => Some(Kind::Int64),
            FeatureValues::Empty => None,
        }
    }
}

/// The values of one feature.
pub enum FeatureValues<'a> {
    Bytes(Vec<&'a [u8]>),
    Float(Vec<f32>),
    Int64(Vec<i64>),
    /// A Feature with no list set.
    Empty,
}

impl FeatureValues<'_> {
    /// `bytes`, `float`, `int64`, or `none` for a feature without a list.
    pub fn kind(&self) -> &'static str {
        Kind::of(self).map_or("none", Kind::name)
    }

    pub fn len(&self) -> usize {
        match self {
            FeatureValues::Bytes(v) => v.len(),
            FeatureValues::Float(v) => v.len(),
            FeatureValues::Int64(v) => v.len(),
            FeatureValues::Empty => 0,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What a record read by [`read_example`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Features only (the same bytes are a SequenceExample without lists).
    Example,
    /// A context and feature lists.
    SequenceExample,
}

impl Shape {
    /// The payload's type name.
    pub fn type_name(self) -> &'static str {
        match self {
            Shape::Example => "tensorflow.Example",
            Shape::SequenceExample => "tensorflow.SequenceExample",
        }
    }
}

/// One feature of a record, as the wire has it.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    pub name: &'a str,
    /// A feature list of a SequenceExample (its steps are Features).
    pub list: bool,
    /// The kind of its values (of every step, for a list); None for a
    /// Feature with no list set, or a list of no steps.
    pub kind: Option<Kind>,
    /// Its values; for a list, its steps.
    pub len: u64,
    /// The list message (BytesList, FloatList, Int64List), or for a feature
    /// list the FeatureList message.
    body: &'a [u8],
}

impl<'a> Entry<'a> {
    /// Each value of a bytes feature.
    pub fn bytes(&self) -> impl Iterator<Item = &'a [u8]> + 'a {
        let body = if self.kind == Some(Kind::Bytes) && !self.list {
            self.body
        } else {
            &[]
        };
        Fields::new(body).filter_map(|f| match f {
            Ok((_, Val::Len(b))) => Some(b),
            _ => None,
        })
    }

    /// Calls `f` with each value of a float feature.
    pub fn floats(&self, f: impl FnMut(f32)) {
        if self.kind == Some(Kind::Float) && !self.list {
            list_floats(self.body, f);
        }
    }

    /// Calls `f` with each value of an int64 feature.
    pub fn int64s(&self, f: impl FnMut(i64)) {
        if self.kind == Some(Kind::Int64) && !self.list {
            list_int64s(self.body, f);
        }
    }

    /// The steps of a feature list, each as an entry of its own (named as
    /// the list).
    pub fn steps(&self) -> impl Iterator<Item = Entry<'a>> + 'a {
        let (name, body) = if self.list {
            (self.name, self.body)
        } else {
            ("", &[][..])
        };
        Fields::new(body).filter_map(move |f| match f {
            Ok((_, Val::Len(b))) => read_feature(name, b),
            _ => None,
        })
    }
}

/// A field's value as the wire has it.
#[derive(Clone, Copy)]
enum Val<'a> {
    Varint(u64),
    Fixed32(u32),
    Len(&'a [u8]),
    Other,
}

/// The fields of a message, in order; an error ends them.
struct Fields<'a> {
    rest: &'a [u8],
}

impl<'a> Fields<'a> {
    fn new(rest: &'a [u8]) -> Self {
        Fields { rest }
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = std::result::Result<(u32, Val<'a>), ()>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let field = self.read();
        if field.is_err() {
            self.rest = &[];
        }
        Some(field)
    }
}

impl<'a> Fields<'a> {
    /// One field, by the wire's rules (as [`wire::key`] and its value
    /// readers: a key's number in 1..2^29-1, wire types 0 to 5, varints of
    /// at most 10 bytes that fit 64 bits, lengths within the bytes left),
    /// with the one-byte varints of keys and lengths read inline.
    fn read(&mut self) -> std::result::Result<(u32, Val<'a>), ()> {
        let key = self.varint()?;
        let number = key >> 3;
        if number == 0 || number > wire::MAX_FIELD_NUMBER {
            return Err(());
        }
        let number = number as u32;
        Ok(match key & 7 {
            0 => (number, Val::Varint(self.varint()?)),
            1 => {
                self.skip(8)?;
                (number, Val::Other)
            }
            2 => {
                let len = self.varint()?;
                let len = usize::try_from(len).map_err(|_| ())?;
                let (value, rest) = self.rest.split_at_checked(len).ok_or(())?;
                self.rest = rest;
                (number, Val::Len(value))
            }
            3 | 4 => (number, Val::Other),
            5 => {
                let (b, rest) = self.rest.split_first_chunk::<4>().ok_or(())?;
                self.rest = rest;
                (number, Val::Fixed32(u32::from_le_bytes(*b)))
            }
            _ => return Err(()),
        })
    }

    fn varint(&mut self) -> std::result::Result<u64, ()> {
        if let Some((&b, rest)) = self.rest.split_first()
            && b < 0x80
        {
            self.rest = rest;
            return Ok(u64::from(b));
        }
        let (rest, v) = wire::varint(self.rest).map_err(|_| ())?;
        self.rest = rest;
        Ok(v)
    }

    fn skip(&mut self, n: usize) -> std::result::Result<(), ()> {
        self.rest = self.rest.get(n..).ok_or(())?;
        Ok(())
    }
}

/// Reads an Example or a SequenceExample into `entries` (cleared first):
/// its features in file order, then its feature lists. None when the
/// record is not of the shape this reading takes (see the module's
/// documentation): the generic decoder reads it then.
pub fn read_example<'a>(data: &'a [u8], entries: &mut Vec<Entry<'a>>) -> Option<Shape> {
    const CONTEXT: u32 = SequenceExample::CONTEXT.number;
    const LISTS: u32 = SequenceExample::FEATURE_LISTS.number;
    const _: () = assert!(Example::FEATURES.number == CONTEXT);
    entries.clear();
    let (mut context, mut lists) = (None, None);
    for f in Fields::new(data) {
        match f.ok()? {
            (CONTEXT, Val::Len(b)) if context.is_none() => context = Some(b),
            (LISTS, Val::Len(b)) if lists.is_none() => lists = Some(b),
            _ => return None,
        }
    }
    if let Some(body) = context {
        read_map(body, Features::FEATURE.number, false, entries)?;
    }
    if let Some(body) = lists {
        read_map(body, FeatureLists::FEATURE_LIST.number, true, entries)?;
    }
    if has_repeated_name(entries) {
        return None;
    }
    Some(if lists.is_some() {
        Shape::SequenceExample
    } else {
        Shape::Example
    })
}

/// The entries of a `map<string, Feature>` (or `FeatureList`) message.
fn read_map<'a>(body: &'a [u8], field: u32, list: bool, out: &mut Vec<Entry<'a>>) -> Option<()> {
    const KEY: u32 = Features::FeatureEntry::KEY.number;
    const VALUE: u32 = Features::FeatureEntry::VALUE.number;
    const _: () = assert!(FeatureLists::FeatureListEntry::KEY.number == KEY);
    const _: () = assert!(FeatureLists::FeatureListEntry::VALUE.number == VALUE);
    for f in Fields::new(body) {
        let Ok((number, Val::Len(entry))) = f else {
            return None;
        };
        if number != field {
            return None;
        }
        // Exactly a key, then a value.
        let mut fields = Fields::new(entry);
        let (Some(Ok((KEY, Val::Len(key)))), Some(Ok((VALUE, Val::Len(value)))), None) =
            (fields.next(), fields.next(), fields.next())
        else {
            return None;
        };
        let name = std::str::from_utf8(key).ok()?;
        out.push(if list {
            read_feature_list(name, value)?
        } else {
            read_feature(name, value)?
        });
    }
    Some(())
}

/// A Feature: at most one field, a list whose values are all of its type.
fn read_feature<'a>(name: &'a str, body: &'a [u8]) -> Option<Entry<'a>> {
    const BYTES: u32 = Feature::BYTES_LIST.number;
    const FLOAT: u32 = Feature::FLOAT_LIST.number;
    const INT64: u32 = Feature::INT64_LIST.number;
    let mut fields = Fields::new(body);
    let (kind, list) = match (fields.next(), fields.next()) {
        (None, _) => {
            return Some(Entry {
                name,
                list: false,
                kind: None,
                len: 0,
                body: &[],
            });
        }
        (Some(Ok((BYTES, Val::Len(b)))), None) => (Kind::Bytes, b),
        (Some(Ok((FLOAT, Val::Len(b)))), None) => (Kind::Float, b),
        (Some(Ok((INT64, Val::Len(b)))), None) => (Kind::Int64, b),
        _ => return None,
    };
    let len = count_values(kind, list)?;
    Some(Entry {
        name,
        list: false,
        kind: Some(kind),
        len,
        body: list,
    })
}

/// The values of a list message, checked: every field is the list's
/// `value`, of a wire type its type allows (packed or not), and a packed
/// run is not empty.
fn count_values(kind: Kind, list: &[u8]) -> Option<u64> {
    const B: u32 = BytesList::VALUE.number;
    const F: u32 = FloatList::VALUE.number;
    const I: u32 = Int64List::VALUE.number;
    let mut n: u64 = 0;
    for f in Fields::new(list) {
        n += match (kind, f.ok()?) {
            (Kind::Bytes, (B, Val::Len(_))) => 1,
            (Kind::Float, (F, Val::Fixed32(_))) => 1,
            (Kind::Float, (F, Val::Len(p))) if !p.is_empty() && p.len() % 4 == 0 => {
                (p.len() / 4) as u64
            }
            (Kind::Int64, (I, Val::Varint(_))) => 1,
            (Kind::Int64, (I, Val::Len(p))) if !p.is_empty() => {
                wire::count_packed_varints(p, 0).ok()?
            }
            _ => return None,
        };
    }
    Some(n)
}

/// A FeatureList: its steps, each a Feature, all of one kind.
fn read_feature_list<'a>(name: &'a str, body: &'a [u8]) -> Option<Entry<'a>> {
    const STEP: u32 = FeatureList::FEATURE.number;
    let mut kind = None;
    let mut steps: u64 = 0;
    for f in Fields::new(body) {
        let Ok((STEP, Val::Len(b))) = f else {
            return None;
        };
        let step = read_feature(name, b)?;
        if steps > 0 && step.kind != kind {
            return None;
        }
        kind = step.kind;
        steps += 1;
    }
    Some(Entry {
        name,
        list: true,
        kind,
        len: steps,
        body,
    })
}

fn has_repeated_name(entries: &[Entry<'_>]) -> bool {
    entries.iter().enumerate().any(|(i, e)| {
        entries
            .get(i + 1..)
            .unwrap_or(&[])
            .iter()
            .any(|o| o.list == e.list && o.name == e.name)
    })
}

fn list_floats(list: &[u8], mut f: impl FnMut(f32)) {
    for field in Fields::new(list) {
        match field {
            Ok((_, Val::Fixed32(v))) => f(f32::from_bits(v)),
            Ok((_, Val::Len(p))) => {
                for c in p.chunks_exact(4) {
                    let b: [u8; 4] = c.try_into().unwrap_or([0; 4]);
                    f(f32::from_le_bytes(b));
                }
            }
            _ => {}
        }
    }
}

fn list_int64s(list: &[u8], mut f: impl FnMut(i64)) {
    for field in Fields::new(list) {
        match field {
            Ok((_, Val::Varint(v))) => f(v as i64),
            Ok((_, Val::Len(p))) => {
                for v in wire::PackedVarints::new(p) {
                    match v {
                        Some(v) => f(v as i64),
                        None => break,
                    }
                }
            }
            _ => {}
        }
    }
}

/// A column's values, in one buffer.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub enum ColumnValues {
    /// No record gave the feature a kind yet (every one present is empty).
    Unknown,
    /// Each value's end in `data` after a first 0 (Arrow's `large_binary`).
    Bytes {
        offsets: Vec<i64>,
        data: Vec<u8>,
    },
    Float(Vec<f32>),
    Int64(Vec<i64>),
}

impl ColumnValues {
    /// How many values.
    pub fn len(&self) -> u64 {
        match self {
            ColumnValues::Unknown => 0,
            ColumnValues::Bytes { offsets, .. } => offsets.len().saturating_sub(1) as u64,
            ColumnValues::Float(v) => v.len() as u64,
            ColumnValues::Int64(v) => v.len() as u64,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The kind, once known.
    pub fn kind(&self) -> Option<Kind> {
        match self {
            ColumnValues::Unknown => None,
            ColumnValues::Bytes { .. } => Some(Kind::Bytes),
            ColumnValues::Float(_) => Some(Kind::Float),
            ColumnValues::Int64(_) => Some(Kind::Int64),
        }
    }

    fn truncate(&mut self, n: u64) {
        let n = usize::try_from(n).unwrap_or(usize::MAX);
        match self {
            ColumnValues::Unknown => {}
            ColumnValues::Bytes { offsets, data } => {
                offsets.truncate(n.saturating_add(1));
                let end = offsets.last().copied().unwrap_or(0);
                data.truncate(usize::try_from(end).unwrap_or(0));
            }
            ColumnValues::Float(v) => v.truncate(n),
            ColumnValues::Int64(v) => v.truncate(n),
        }
    }

    /// No values, of the kind of `other`.
    fn empty_like(other: &ColumnValues) -> ColumnValues {
        match other {
            ColumnValues::Unknown => ColumnValues::Unknown,
            ColumnValues::Bytes { .. } => ColumnValues::Bytes {
                offsets: vec![0],
                data: Vec::new(),
            },
            ColumnValues::Float(_) => ColumnValues::Float(Vec::new()),
            ColumnValues::Int64(_) => ColumnValues::Int64(Vec::new()),
        }
    }

    /// Appends the values of `other` (of the same kind, or none).
    fn append(&mut self, other: ColumnValues) {
        match (self, other) {
            (ColumnValues::Float(v), ColumnValues::Float(x)) => v.extend_from_slice(&x),
            (ColumnValues::Int64(v), ColumnValues::Int64(x)) => v.extend_from_slice(&x),
            (
                ColumnValues::Bytes { offsets, data },
                ColumnValues::Bytes {
                    offsets: o,
                    data: d,
                },
            ) => {
                let base = data.len() as i64;
                offsets.extend(o.iter().skip(1).map(|x| x + base));
                data.extend_from_slice(&d);
            }
            _ => {}
        }
    }

    fn push_bytes(&mut self, b: &[u8]) {
        if let ColumnValues::Bytes { offsets, data } = self {
            data.extend_from_slice(b);
            offsets.push(data.len() as i64);
        }
    }

    /// Appends one Feature's values (of this column's kind).
    fn push_entry(&mut self, e: &Entry<'_>) {
        match self {
            ColumnValues::Unknown => {}
            ColumnValues::Bytes { .. } => {
                for b in e.bytes() {
                    self.push_bytes(b);
                }
            }
            ColumnValues::Float(v) => e.floats(|x| v.push(x)),
            ColumnValues::Int64(v) => e.int64s(|x| v.push(x)),
        }
    }

    fn push_values(&mut self, values: &FeatureValues<'_>) {
        match (self, values) {
            (ColumnValues::Float(v), FeatureValues::Float(x)) => v.extend_from_slice(x),
            (ColumnValues::Int64(v), FeatureValues::Int64(x)) => v.extend_from_slice(x),
            (this @ ColumnValues::Bytes { .. }, FeatureValues::Bytes(x)) => {
                for b in x {
                    this.push_bytes(b);
                }
            }
            _ => {}
        }
    }
}

/// A bitmap of validity, least significant bit first (Arrow's).
#[non_exhaustive]
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Bitmap {
    pub bits: Vec<u8>,
    pub len: u64,
    pub nulls: u64,
}

impl Bitmap {
    fn push(&mut self, valid: bool) {
        let bit = (self.len % 8) as u8;
        if bit == 0 {
            self.bits.push(0);
        }
        if valid {
            if let Some(last) = self.bits.last_mut() {
                *last |= 1 << bit;
            }
        } else {
            self.nulls += 1;
        }
        self.len += 1;
    }

    fn pop(&mut self) {
        if self.len == 0 {
            return;
        }
        self.len -= 1;
        let bit = (self.len % 8) as u8;
        let valid = self.get(self.len);
        if !valid {
            self.nulls -= 1;
        }
        if bit == 0 {
            self.bits.pop();
        } else if let Some(last) = self.bits.last_mut() {
            *last &= !(1 << bit);
        }
    }

    /// Appends the bits of `other`.
    fn append(&mut self, other: &Bitmap) {
        if self.len.is_multiple_of(8) {
            self.bits.extend_from_slice(&other.bits);
            self.len += other.len;
            self.nulls += other.nulls;
            return;
        }
        for i in 0..other.len {
            self.push(other.get(i));
        }
    }

    /// Whether row `i` is valid.
    pub fn get(&self, i: u64) -> bool {
        usize::try_from(i / 8)
            .ok()
            .and_then(|b| self.bits.get(b))
            .is_some_and(|byte| byte >> (i % 8) & 1 == 1)
    }
}

/// One feature over every record.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub name: String,
    /// A SequenceExample's feature list: each record a list of steps.
    pub list: bool,
    /// Which records hold the feature.
    pub validity: Bitmap,
    /// Each record's start in `values` (in `steps` for a list), and the
    /// end: one more than the records.
    pub offsets: Vec<i64>,
    /// For a list: each step's start in `values`, and the end.
    pub steps: Vec<i64>,
    pub values: ColumnValues,
}

impl Column {
    fn new(name: &str, list: bool) -> Self {
        Column {
            name: name.to_string(),
            list,
            validity: Bitmap::default(),
            offsets: vec![0],
            steps: if list { vec![0] } else { Vec::new() },
            values: ColumnValues::Unknown,
        }
    }

    /// The records filled so far.
    fn rows(&self) -> u64 {
        self.validity.len
    }

    fn last_offset(&self) -> i64 {
        self.offsets.last().copied().unwrap_or(0)
    }

    /// Nulls up to record `row`.
    fn pad_to(&mut self, row: u64) {
        let end = self.last_offset();
        while self.rows() < row {
            self.offsets.push(end);
            self.validity.push(false);
        }
    }

    /// Takes back record `row` (a repeated name: the last one is kept, as
    /// protobuf's maps keep it).
    fn unfill(&mut self, row: u64) {
        if self.rows() != row + 1 {
            return;
        }
        self.offsets.pop();
        self.validity.pop();
        let start = self.last_offset();
        if self.list {
            self.steps
                .truncate(usize::try_from(start).unwrap_or(0).saturating_add(1));
            let values = self.steps.last().copied().unwrap_or(0);
            self.values.truncate(u64::try_from(values).unwrap_or(0));
        } else {
            self.values.truncate(u64::try_from(start).unwrap_or(0));
        }
    }

    /// Sets the kind of the values on the first record that has one; a
    /// later record of another kind is an error.
    fn take_kind(&mut self, kind: Option<Kind>, record: u64, offset: u64) -> Result<()> {
        let Some(kind) = kind else {
            return Ok(());
        };
        match self.values.kind() {
            None => {
                self.values = match kind {
                    Kind::Bytes => ColumnValues::Bytes {
                        offsets: vec![0],
                        data: Vec::new(),
                    },
                    Kind::Float => ColumnValues::Float(Vec::new()),
                    Kind::Int64 => ColumnValues::Int64(Vec::new()),
                };
                Ok(())
            }
            Some(k) if k == kind => Ok(()),
            Some(k) => Err(DecodeError::new(
                ErrorKind::FeatureKind {
                    name: self.name.clone(),
                    was: k.name(),
                    now: kind.name(),
                },
                offset,
            )
            .within(format!("record[{record}]"))),
        }
    }

    /// Appends the rows of `other` (the same feature, of later records).
    fn append(&mut self, other: Column) -> Option<()> {
        if other.list != self.list {
            return None;
        }
        match (self.values.kind(), other.values.kind()) {
            (Some(a), Some(b)) if a != b => return None,
            (None, Some(_)) => self.values = ColumnValues::empty_like(&other.values),
            _ => {}
        }
        let base = self.last_offset();
        self.offsets
            .extend(other.offsets.iter().skip(1).map(|o| o + base));
        if self.list {
            let values = self.steps.last().copied().unwrap_or(0);
            self.steps
                .extend(other.steps.iter().skip(1).map(|o| o + values));
        }
        self.validity.append(&other.validity);
        self.values.append(other.values);
        Some(())
    }

    fn close_step(&mut self) {
        self.steps.push(self.values.len() as i64);
    }

    fn close_row(&mut self) {
        let end = if self.list {
            self.steps.len().saturating_sub(1) as i64
        } else {
            self.values.len() as i64
        };
        self.offsets.push(end);
        self.validity.push(true);
    }
}

/// The most cells (records times features) a table may have per byte of
/// its file, plus a floor: each record costs every column an offset, so a
/// file of many records and many features each in one record would
/// otherwise ask for memory far beyond its size.
const CELLS_PER_BYTE: u64 = 16;
const CELLS_FLOOR: u64 = 1 << 24;

/// How far from its place in the previous record a feature is looked for.
const HINT_REACH: usize = 8;

/// The features of a record file's Examples as columns.
#[non_exhaustive]
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExampleColumns {
    /// The records read (the rows).
    pub rows: u64,
    /// Every feature, in order of first appearance (a feature list after
    /// the features of its record).
    pub columns: Vec<Column>,
    /// The fault that ended the file after its last whole record (a cut).
    pub fault: Option<DecodeError>,
    /// The file's compression: `none`, `gzip` or `zlib`.
    pub compression: &'static str,
    /// The column of each feature name, and of each feature list name.
    features: HashMap<String, usize>,
    lists: HashMap<String, usize>,
    /// The columns of the previous record's entries, in order: most
    /// records name the same features in the same order.
    pub(super) hint: Vec<usize>,
    /// The nulls the table may still add (of `cells_limit`).
    cells_left: u64,
    cells_limit: u64,
}

impl ExampleColumns {
    /// An empty table for a file of `bytes` bytes.
    pub fn new(bytes: u64) -> Self {
        let limit = bytes
            .saturating_mul(CELLS_PER_BYTE)
            .saturating_add(CELLS_FLOOR);
        ExampleColumns {
            cells_left: limit,
            cells_limit: limit,
            ..ExampleColumns::default()
        }
    }

    fn column(&mut self, i: usize, name: &str, list: bool) -> usize {
        let is = |c: usize| {
            self.columns
                .get(c)
                .is_some_and(|col| col.list == list && col.name == name)
        };
        if let Some(&c) = self.hint.get(i)
            && is(c)
        {
            return c;
        }
        // The previous record's features in another order (a writer's
        // map order changes with the set of names: looked for near `i`
        // only, so that a record of many features costs no more than its
        // features), else the index.
        let near = self
            .hint
            .get(i.saturating_sub(HINT_REACH)..)
            .unwrap_or(&[])
            .iter()
            .take(2 * HINT_REACH + 1);
        let c = match near.copied().find(|&c| is(c)) {
            Some(c) => c,
            None => self.named_column(name, list),
        };
        if let Some(h) = self.hint.get_mut(i) {
            *h = c;
        } else {
            self.hint.push(c);
        }
        c
    }

    /// The column of a feature (or feature list) `name`, added when new.
    fn named_column(&mut self, name: &str, list: bool) -> usize {
        let index = if list {
            &mut self.lists
        } else {
            &mut self.features
        };
        match index.get(name) {
            Some(&c) => c,
            None => {
                let c = self.columns.len();
                self.columns.push(Column::new(name, list));
                index.insert(name.to_string(), c);
                c
            }
        }
    }

    /// The column `c` made ready for record `row`: padded with nulls, a
    /// value of the same record taken back, its kind checked.
    fn ready(&mut self, c: usize, kind: Option<Kind>, offset: u64) -> Result<&mut Column> {
        let row = self.rows;
        let features = self.columns.len() as u64;
        let Some(col) = self.columns.get_mut(c) else {
            return Err(DecodeError::new(ErrorKind::NotAMessage, offset));
        };
        let pad = row.saturating_sub(col.rows());
        if pad > self.cells_left {
            return Err(DecodeError::new(
                ErrorKind::FeatureTable {
                    records: row,
                    features,
                },
                offset,
            )
            .within(format!("record[{row}]")));
        }
        self.cells_left -= pad;
        col.pad_to(row);
        col.unfill(row);
        col.take_kind(kind, row, offset)?;
        Ok(col)
    }

    /// Adds one record read from the wire.
    pub fn add_entries(&mut self, entries: &[Entry<'_>], offset: u64) -> Result<()> {
        for (i, e) in entries.iter().enumerate() {
            let c = self.column(i, e.name, e.list);
            let col = self.ready(c, e.kind, offset)?;
            if e.list {
                for step in e.steps() {
                    col.values.push_entry(&step);
                    col.close_step();
                }
            } else {
                col.values.push_entry(e);
            }
            col.close_row();
        }
        self.rows += 1;
        Ok(())
    }

    /// Adds a feature of the record being read by the generic decoder
    /// (the `i`th of its record; [`ExampleColumns::end_record`] closes
    /// the record).
    pub fn add_feature(
        &mut self,
        i: usize,
        name: &str,
        values: &FeatureValues<'_>,
        offset: u64,
    ) -> Result<()> {
        let c = self.column(i, name, false);
        let col = self.ready(c, Kind::of(values), offset)?;
        col.values.push_values(values);
        col.close_row();
        Ok(())
    }

    /// Adds a feature list of the record being read by the generic
    /// decoder: its steps' values.
    pub fn add_feature_list(
        &mut self,
        i: usize,
        name: &str,
        steps: &[FeatureValues<'_>],
        offset: u64,
    ) -> Result<()> {
        let row = self.rows;
        let c = self.column(i, name, true);
        let col = self.ready(c, None, offset)?;
        for values in steps {
            col.take_kind(Kind::of(values), row, offset)?;
            col.values.push_values(values);
            col.close_step();
        }
        col.close_row();
        Ok(())
    }

    /// Closes the record that [`ExampleColumns::add_feature`] and
    /// [`ExampleColumns::add_feature_list`] filled.
    pub fn end_record(&mut self) {
        self.rows += 1;
    }

    /// An empty record: an Example without features.
    pub fn add_empty(&mut self) {
        self.rows += 1;
    }

    /// Appends `other`, the table of the records that follow this table's
    /// (read on another thread; finished, so each of its columns has all
    /// its rows): each column's buffers copied after this one's, its
    /// offsets moved by what this one holds. None, and this table left
    /// part-way, when a feature's kind differs between the two or the
    /// nulls would pass the table's bound: a reading of the records in
    /// one pass then names the record where that happens.
    pub fn append(&mut self, other: ExampleColumns) -> Option<()> {
        // The nulls `other` holds count against this table's bound too.
        let spent = other.cells_limit.saturating_sub(other.cells_left);
        self.cells_left = self.cells_left.checked_sub(spent)?;
        let rows = self.rows;
        for oc in other.columns {
            let c = self.named_column(&oc.name, oc.list);
            let pad = rows.saturating_sub(self.columns.get(c)?.rows());
            self.cells_left = self.cells_left.checked_sub(pad)?;
            let col = self.columns.get_mut(c)?;
            col.pad_to(rows);
            col.append(oc)?;
        }
        self.rows = rows.checked_add(other.rows)?;
        Some(())
    }

    /// Pads every column to the last record.
    pub fn finish(&mut self) -> Result<()> {
        for c in &mut self.columns {
            let pad = self.rows.saturating_sub(c.rows());
            if pad > self.cells_left {
                return Err(DecodeError::new(
                    ErrorKind::FeatureTable {
                        records: self.rows,
                        features: self.columns.len() as u64,
                    },
                    0,
                ));
            }
            self.cells_left -= pad;
            c.pad_to(self.rows);
        }
        Ok(())
    }
}
