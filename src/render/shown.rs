//! A message and the fields of it a view has printed so far. A view reads
//! fields through [`Shown`]: each accessor marks the field it reads as
//! printed, and [`Shown::rest`] prints every other field (and unknown
//! fields) with the generic field tree, so whatever a view does not print
//! is shown raw, never lost. The names go through the checked accessors of
//! [`Message`], so a name the schema table does not hold fails in tests.

use super::RenderOptions;
use super::tree::message_fields;
use crate::decode::{Field, Message, ScalarValue, Value};
use crate::schema::{FieldId, SchemaSet};
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

    /// Marks `id` printed and gives the message to read it from (for
    /// helpers that take the message and read that field).
    pub fn take(&mut self, id: FieldId) -> &'m Message<'a> {
        if let Some((slot, _)) = self.set.field(self.msg.def, id)
            && !self.taken.contains(&slot)
        {
            self.taken.push(slot);
        }
        self.msg
    }

    /// The occurrences of a field, marked printed.
    pub fn field(&mut self, id: FieldId) -> &'m [Field<'a>] {
        self.take(id).field(self.set, id)
    }

    pub fn has(&mut self, id: FieldId) -> bool {
        self.take(id).has(self.set, id)
    }

    pub fn int(&mut self, id: FieldId) -> Option<i64> {
        self.take(id).int(self.set, id)
    }

    pub fn scalar(&mut self, id: FieldId) -> Option<ScalarValue> {
        self.take(id).scalar(self.set, id)
    }

    pub fn scalars(&mut self, id: FieldId) -> Vec<ScalarValue> {
        self.take(id).scalars(self.set, id).collect()
    }

    pub fn bytes(&mut self, id: FieldId) -> Option<&'a [u8]> {
        self.take(id).bytes(self.set, id)
    }

    pub fn str(&mut self, id: FieldId) -> Option<&'a str> {
        self.take(id).str(self.set, id)
    }

    /// The bytes of every occurrence of a repeated string/bytes field.
    pub fn strings(&mut self, id: FieldId) -> Vec<&'a [u8]> {
        self.field(id)
            .iter()
            .filter_map(|f| match f.value {
                Value::Bytes(b) => Some(b),
                _ => None,
            })
            .collect()
    }

    pub fn message(&mut self, id: FieldId) -> Option<&'m Message<'a>> {
        self.take(id).message(self.set, id)
    }

    pub fn messages(&mut self, id: FieldId) -> Vec<&'m Message<'a>> {
        self.take(id).messages(self.set, id).collect()
    }

    /// Whether `id` was marked printed.
    pub fn marked(&self, id: FieldId) -> bool {
        self.set
            .field(self.msg.def, id)
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
    use crate::fields::onnx::{GraphProto, ModelProto};
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
        assert_eq!(s.int(ModelProto::IR_VERSION), Some(8));
        assert!(s.has_rest());
        let mut out = Vec::new();
        s.rest(&mut out, 0, &RenderOptions::default())?;
        let text = String::from_utf8(out)?;
        assert!(
            text.contains("producer_name") && !text.contains("ir_version"),
            "{text}"
        );
        assert_eq!(s.bytes(ModelProto::PRODUCER_NAME), Some(&b"x"[..]));
        assert!(!s.has_rest());
        let mut out = Vec::new();
        s.rest(&mut out, 0, &RenderOptions::default())?;
        assert!(out.is_empty());
        Ok(())
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "onnx.GraphProto.name read from a onnx.ModelProto")]
    fn a_field_of_another_message_fails() {
        let set = SchemaSet::builtin();
        let m = decode_builtin("onnx.ModelProto", &[0x08, 0x08], DecodeContext::strict());
        if let Ok(m) = m {
            let mut s = Shown::new(set, &m);
            let _ = s.bytes(GraphProto::NAME);
        }
    }
}
