//! A format's summary of a file: the facts a person reads first (a model's
//! IR version, opsets, producer, node and initializer counts, parameters;
//! a SavedModel's meta graphs, signatures, variables; a GraphDef's nodes
//! and constants), computed once from the decoded message by the function
//! each format's record names (the types are here). The text view prints
//! it as its header, `--json` writes it as `"summary"`, and the explorer
//! draws the lines the server makes of it: all three show the same numbers
//! because none of them counts anything itself.

use crate::decode::{Message, Value as DecodedValue};
use crate::schema::SchemaSet;
use std::borrow::Cow;

/// The summary of a file: ordered items, each one line of the text
/// header and one key of the JSON `"summary"` object.
#[non_exhaustive]
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    /// What the file is, for people (`ONNX model`); empty for a format
    /// whose header has no title line.
    pub title: &'static str,
    /// The items, in the order they are shown.
    pub items: Vec<Item>,
}

/// One fact of a [`Summary`].
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// Its JSON key (`ir_version`, `nodes`).
    pub key: &'static str,
    /// Its label in the text header and the explorer (`IR version`).
    pub label: &'static str,
    /// The value, typed.
    pub value: Value,
}

/// The value of a summary [`Item`]. Built by the project's own code, never
/// nested deeper than the formats' summaries make it (three levels).
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A number the file states (an IR version, a producer version).
    Int(i64),
    /// A count of things in the file (written with thousands separators).
    Count(u64),
    /// A string from the file, as stored: UTF-8 unless a lenient reading
    /// (`--as`) let other bytes through.
    Text(Vec<u8>),
    /// A list (JSON array).
    List(Vec<Value>),
    /// Named parts (JSON object), in order.
    Fields(Vec<(&'static str, Value)>),
}

impl Value {
    /// A text value as a string, bytes that are not UTF-8 as U+FFFD.
    pub fn text(&self) -> Option<Cow<'_, str>> {
        match self {
            Value::Text(b) => Some(String::from_utf8_lossy(b)),
            _ => None,
        }
    }

    /// The number of an [`Value::Int`] or [`Value::Count`].
    pub fn number(&self) -> Option<i128> {
        match self {
            Value::Int(n) => Some(i128::from(*n)),
            Value::Count(n) => Some(i128::from(*n)),
            _ => None,
        }
    }

    /// The count of a [`Value::Count`].
    pub fn count(&self) -> Option<u64> {
        match self {
            Value::Count(n) => Some(*n),
            _ => None,
        }
    }

    /// The part of a [`Value::Fields`] named `key`.
    pub fn part(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Fields(parts) => parts.iter().find(|(k, _)| *k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The count of a [`Value::Count`] or of the part `key` of a
    /// [`Value::Fields`] that is one.
    pub fn count_of(&self, key: &str) -> Option<u64> {
        match self.part(key) {
            Some(Value::Count(n)) => Some(*n),
            _ => None,
        }
    }

    /// Every number in the value, depth first (what a reader of the text
    /// header or the page must find there).
    pub fn numbers(&self) -> Vec<i128> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(v) = stack.pop() {
            match v {
                Value::Int(_) | Value::Count(_) => out.extend(v.number()),
                Value::List(items) => stack.extend(items.iter().rev()),
                Value::Fields(parts) => stack.extend(parts.iter().rev().map(|(_, v)| v)),
                Value::Text(_) => {}
            }
        }
        out
    }
}

impl Summary {
    /// The item of that key.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.items.iter().find(|i| i.key == key).map(|i| &i.value)
    }

    /// Whether there is nothing to show.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub(crate) fn push(&mut self, key: &'static str, label: &'static str, value: Value) {
        self.items.push(Item { key, label, value });
    }
}

/// Computes the summary of a decoded root message of a format.
pub type SummaryFn = fn(&SchemaSet, &Message<'_>) -> Summary;

/// The summary of a format that has none.
pub fn no_summary(_: &SchemaSet, _: &Message<'_>) -> Summary {
    Summary::default()
}

/// A counter that never wraps (counts of a crafted file saturate).
pub(crate) fn add(total: &mut u64, n: u64) {
    *total = total.saturating_add(n);
}

/// The bytes of a string/bytes field occurrence.
pub(crate) fn bytes_of<'a>(v: &DecodedValue<'a>) -> Option<&'a [u8]> {
    match v {
        DecodedValue::Bytes(b) => Some(b),
        _ => None,
    }
}
