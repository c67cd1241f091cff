//! A message and the fields of it a view has printed so far. A view reads
//! fields through [`Shown`]: each accessor marks the field it reads as
//! printed, and [`Shown::rest`] prints every other field (and unknown
//! fields) with the generic field tree, so whatever a view does not print
//! is shown raw, never lost. The names go through the checked accessors of
//! [`Message`], so a name the schema table does not hold fails in tests.

use super::RenderOptions;
use super::tree::message_fields;
use crate::decode::{Field, Message, ScalarValue, Value};
use crate::schema::SchemaSet;
use std::io::{self, Write};

pub struct Shown<'s, 'm, 'a> {
    set: &'s SchemaSet,
    msg: &'m Message<'a>,
    /// Slots of the fields marked printed.
    taken: Vec<usize>,
}

impl<'s, 'm, 'a> Shown<'s, 'm, 'a> {
    pub fn new(set: &'s SchemaSet, msg: &'m Message<'a>) -> Self {
        Shown {
            set,
            msg,
            taken: Vec::new(),
        }
    }

    pub fn set(&self) -> &'s SchemaSet {
        self.set
    }

    /// The message, to read without marking anything (counting, walking).
    pub fn msg(&self) -> &'m Message<'a> {
        self.msg
    }

    /// Marks `name` printed and gives the message to read it from (for
    /// helpers that take the message and read that field).
    pub fn take(&mut self, name: &str) -> &'m Message<'a> {
        let def = self.msg.def(self.set);
        debug_assert!(
            def.field_by_name(name).is_some(),
            "{} has no field {name}",
            def.full_name
        );
        if let Some((slot, _)) = def.field_by_name(name)
            && !self.taken.contains(&slot)
        {
            self.taken.push(slot);
        }
        self.msg
    }

    /// The occurrences of a field, marked printed.
    pub fn field(&mut self, name: &str) -> &'m [Field<'a>] {
        self.take(name).field(self.set, name)
    }

    pub fn has(&mut self, name: &str) -> bool {
        self.take(name).has(self.set, name)
    }

    pub fn int(&mut self, name: &str) -> Option<i64> {
        self.take(name).int(self.set, name)
    }

    pub fn scalar(&mut self, name: &str) -> Option<ScalarValue> {
        self.take(name).scalar(self.set, name)
    }

    pub fn scalars(&mut self, name: &str) -> Vec<ScalarValue> {
        self.take(name).scalars(self.set, name).collect()
    }

    pub fn bytes(&mut self, name: &str) -> Option<&'a [u8]> {
        self.take(name).bytes(self.set, name)
    }

    pub fn str(&mut self, name: &str) -> Option<&'a str> {
        self.take(name).str(self.set, name)
    }

    /// The bytes of every occurrence of a repeated string/bytes field.
    pub fn strings(&mut self, name: &str) -> Vec<&'a [u8]> {
        self.field(name)
            .iter()
            .filter_map(|f| match f.value {
                Value::Bytes(b) => Some(b),
                _ => None,
            })
            .collect()
    }

    pub fn message(&mut self, name: &str) -> Option<&'m Message<'a>> {
        self.take(name).message(self.set, name)
    }

    pub fn messages(&mut self, name: &str) -> Vec<&'m Message<'a>> {
        self.take(name).messages(self.set, name).collect()
    }

    /// Whether `name` was marked printed.
    pub fn marked(&self, name: &str) -> bool {
        self.msg
            .def(self.set)
            .field_by_name(name)
            .is_some_and(|(slot, _)| self.taken.contains(&slot))
    }

    fn printed(&self, f: &Field<'_>) -> bool {
        f.slot.is_some_and(|s| self.taken.contains(&s))
    }

    /// Whether any field is left to print raw.
    pub fn has_rest(&self) -> bool {
        self.msg.fields.iter().any(|f| !self.printed(f))
    }

    /// A copy of the message with only the fields not marked printed
    /// (what [`Shown::rest`] prints).
    pub fn leftover(&self) -> Message<'a> {
        Message {
            def: self.msg.def,
            offset: self.msg.offset,
            end: self.msg.end,
            fields: self
                .msg
                .fields
                .iter()
                .filter(|f| !self.printed(f))
                .cloned()
                .collect(),
        }
    }

    /// Prints the fields not marked, with the generic field tree. Only
    /// those fields are copied, so this costs what they print.
    pub fn rest(&self, w: &mut dyn Write, depth: usize, opts: &RenderOptions) -> io::Result<()> {
        if !self.has_rest() {
            return Ok(());
        }
        message_fields(w, self.set, &self.leftover(), depth, opts)
    }
}

#[cfg(test)]
mod tests {
    use super::Shown;
    use crate::decode::DecodeContext;
    use crate::formats::decode_builtin;
    use crate::render::RenderOptions;
    use crate::schema::SchemaSet;

    #[test]
    fn shown_prints_what_was_not_taken() -> Result<(), Box<dyn std::error::Error>> {
        let set = SchemaSet::builtin();
        // ir_version 8, producer_name "x".
        let bytes = [0x08, 0x08, 0x12, 0x01, b'x'];
        let m = decode_builtin("onnx.ModelProto", &bytes, DecodeContext::strict())?;
        let mut s = Shown::new(set, &m);
        assert_eq!(s.int("ir_version"), Some(8));
        assert!(s.has_rest());
        let mut out = Vec::new();
        s.rest(&mut out, 0, &RenderOptions::default())?;
        let text = String::from_utf8(out)?;
        assert!(
            text.contains("producer_name") && !text.contains("ir_version"),
            "{text}"
        );
        assert_eq!(s.bytes("producer_name"), Some(&b"x"[..]));
        assert!(!s.has_rest());
        let mut out = Vec::new();
        s.rest(&mut out, 0, &RenderOptions::default())?;
        assert!(out.is_empty());
        Ok(())
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "onnx.ModelProto has no field producer")]
    fn a_name_not_in_the_schema_fails() {
        let set = SchemaSet::builtin();
        let m = decode_builtin("onnx.ModelProto", &[0x08, 0x08], DecodeContext::strict());
        if let Ok(m) = m {
            let mut s = Shown::new(set, &m);
            let _ = s.bytes("producer");
        }
    }
}
