//! `--dump-schema`: the schema read from `--schema` or `--descriptor-set`
//! as text or JSON. Names from a descriptor set may hold any character;
//! they are escaped by the one escaping of [`super::fmt`].

use crate::escape::plain;
use crate::json_writer::JsonWriter;
use crate::schema::{FieldDef, FieldType, FullName, Label, SchemaSet};
use std::io::Write;

/// The type of a field as `--dump-schema` shows it: a scalar keyword, or
/// `message`, `group` or `enum` with the full name of its type.
fn field_type<'s>(set: &'s SchemaSet, f: &FieldDef) -> (&'static str, Option<&'s FullName>) {
    match f.ty {
        FieldType::Scalar(s) => (s.name(), None),
        FieldType::Enum(e) => ("enum", Some(&set.enum_def(e).full_name)),
        FieldType::Message(m) => (
            if f.group { "group" } else { "message" },
            Some(&set.message(m).full_name),
        ),
    }
}

fn label_name(f: &FieldDef) -> &'static str {
    match f.label {
        Label::Optional => "optional",
        Label::Repeated => "repeated",
        Label::Required => "required",
    }
}

/// Writes the resolved schema as text, one line per field:
/// `  3 repeated int64 ids [packed]` under `message pkg.Name`, enums with
/// their values (`--dump-schema`).
pub fn write_schema_text(w: &mut dyn Write, set: &SchemaSet) -> std::io::Result<()> {
    // Names from a descriptor set may hold any character: escaped.
    let esc = |s: &str| plain(s).into_owned();
    // A full name's dotted string is made only here, one line at a time.
    let esc_name = |n: &FullName| plain(&n.to_string()).into_owned();
    for m in &set.messages {
        let what = if m.map_entry { "map entry" } else { "message" };
        writeln!(w, "{what} {}", esc_name(&m.full_name))?;
        for f in &m.fields {
            let (ty, name) = field_type(set, f);
            let ty = match name {
                Some(n) if ty == "message" => esc_name(n),
                Some(n) => format!("{ty} {}", esc_name(n)),
                None => ty.to_string(),
            };
            write!(w, "  {} {} {ty} {}", f.number, label_name(f), esc(&f.name))?;
            if f.packed {
                write!(w, " [packed]")?;
            }
            if f.proto3_optional {
                write!(w, " (proto3 optional)")?;
            }
            if let Some(o) = &f.oneof {
                write!(w, " (oneof {})", esc(o))?;
            }
            writeln!(w)?;
        }
    }
    for e in &set.enums {
        writeln!(w, "enum {}", esc_name(&e.full_name))?;
        for (name, n) in &e.values {
            writeln!(w, "  {} = {n}", esc(name))?;
        }
    }
    Ok(())
}

/// Writes the resolved schema as JSON (`--dump-schema --json`):
/// `{"messages": [{"name", "map_entry", "fields": [{"name", "number",
/// "label", "type", "type_name", "packed", "oneof", "proto3_optional",
/// "map"}]}], "enums": [{"name", "values": [{"name", "number"}]}]}`, in
/// declaration order; `type` is a scalar keyword, `message`, `group` or
/// `enum`.
pub fn write_schema_json(w: &mut dyn Write, set: &SchemaSet) -> std::io::Result<()> {
    let mut w = JsonWriter::new(w);
    w.begin_object()?;
    w.key("messages")?;
    // One message (and one enum) per line.
    w.begin_array_lines()?;
    for m in &set.messages {
        w.begin_object()?;
        w.member("name", &*m.full_name.to_string())?;
        w.member("map_entry", m.map_entry)?;
        w.key("fields")?;
        w.begin_array()?;
        for f in &m.fields {
            let (ty, type_name) = field_type(set, f);
            let is_map = matches!(f.ty, FieldType::Message(e) if set.message(e).map_entry);
            w.begin_object()?;
            w.member("name", &f.name)?;
            w.member("number", f.number)?;
            w.member("label", label_name(f))?;
            w.member("type", ty)?;
            w.member("type_name", type_name.map(|n| n.to_string()).as_ref())?;
            w.member("packed", f.packed)?;
            w.member("oneof", f.oneof.as_deref())?;
            w.member("proto3_optional", f.proto3_optional)?;
            w.member("map", is_map)?;
            w.end_object()?;
        }
        w.end_array()?;
        w.end_object()?;
    }
    w.end_array()?;
    w.key("enums")?;
    w.begin_array_lines()?;
    for e in &set.enums {
        w.begin_object()?;
        w.member("name", &*e.full_name.to_string())?;
        w.key("values")?;
        w.begin_array()?;
        for (name, n) in &e.values {
            w.begin_object()?;
            w.member("name", name)?;
            w.member("number", *n)?;
            w.end_object()?;
        }
        w.end_array()?;
        w.end_object()?;
    }
    w.end_array()?;
    w.end_object()?;
    w.end_line()?;
    w.finish()
}
