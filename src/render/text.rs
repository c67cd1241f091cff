//! Text output for people: a header naming the format and how the input was
//! read, then the message as an indented tree. Tensors show their type,
//! shape and values, row by row; long value lists are elided in the middle
//! with a count of what was left out (`--values all` prints everything).

use super::RenderOptions;
use crate::decode::Message;
use crate::formats::Syntax;
use crate::formats::{Body, Decoded, tensor_adapter};
use crate::schema::SchemaSet;
use std::io::{self, Write};

use super::tree::{message_fields, tensor_block};
use crate::escape::{plain, quoted};

/// A format-specific text view of a root message.
pub type TextView = fn(&mut dyn Write, &SchemaSet, &Message<'_>, &RenderOptions) -> io::Result<()>;

/// Text views by root message type; any other message is shown as the
/// generic field tree.
pub static TEXT_VIEWS: &[(&str, TextView)] = &[
    ("onnx.ModelProto", super::onnx_view::model),
    ("onnx.SequenceProto", super::onnx_view::sequence),
    ("onnx.MapProto", super::onnx_view::map),
    ("onnx.OptionalProto", super::onnx_view::optional),
    ("onnx.SparseTensorProto", super::onnx_view::sparse),
    ("tensorflow.SavedModel", super::tf_view::saved_model),
    ("tensorflow.GraphDef", super::tf_view::graph_def),
];

/// A root message without a view of its own: its format's summary (if
/// any) as the header, the field tree, then the tensors whose values the
/// format found in side files beside the input, each with its values.
fn generic(
    w: &mut dyn Write,
    decoded: &Decoded<'_>,
    set: &SchemaSet,
    message: &Message<'_>,
    opts: &RenderOptions,
) -> io::Result<()> {
    let summary = (decoded.format.summary)(set, message);
    if !summary.is_empty() {
        writeln!(w)?;
        for line in super::summary::lines(decoded.format.id, &summary, opts) {
            writeln!(w, "{}: {}", line.label, line.text)?;
        }
        writeln!(w)?;
    }
    message_fields(w, set, message, 0, opts)?;
    let Some(dir) = opts.dir.as_ref() else {
        return Ok(());
    };
    let side = (decoded.format.side_tensors)(set, message, dir);
    if side.is_empty() {
        return Ok(());
    }
    writeln!(w)?;
    writeln!(w, "side tensors: {}", side.len())?;
    for t in side {
        let view = t.values.view();
        let place = match t.values.file_offset() {
            Some((file, offset)) => format!("{} at {offset}", plain(file)),
            None => "not found".to_string(),
        };
        writeln!(
            w,
            "  {}  {} {}  ({place})",
            quoted(t.name.as_bytes()),
            view.type_name,
            super::tree::shape_text(&view),
        )?;
        let loaded = crate::render::load_values(&view, opts);
        super::tree::view_values(w, &view, loaded, 2, opts, false)?;
    }
    Ok(())
}

pub fn write_decoded(
    w: &mut dyn Write,
    decoded: &Decoded<'_>,
    opts: &RenderOptions,
) -> io::Result<()> {
    // A text-format file is read as its binary form: the sizes are that
    // form's.
    let size_of = if decoded.syntax == Syntax::Text {
        " (its binary form; the file is protobuf text format)"
    } else {
        ""
    };
    match &decoded.body {
        Body::Message {
            type_name,
            message,
            also,
        } => {
            writeln!(
                w,
                "format: {} ({})",
                decoded.format.id, decoded.format.title
            )?;
            write!(w, "type:   {type_name}")?;
            if !also.is_empty() {
                write!(w, "  (the same bytes are also a valid {})", also.join(", "))?;
            }
            writeln!(w)?;
            writeln!(w, "size:   {} bytes{size_of}", message.end - message.offset)?;
            let set = SchemaSet::builtin();
            let full_name = &message.def(set).full_name;
            if full_name == "onnx.SequenceProto" && also.is_empty() {
                // Read as a sequence by a model's declaration: not an optional.
                writeln!(w)?;
                super::onnx_view::sequence_only(w, set, message, opts)?;
            } else if let Some((_, view)) = TEXT_VIEWS.iter().find(|(name, _)| *full_name == *name)
            {
                writeln!(w)?;
                view(w, set, message, opts)?;
            } else if tensor_adapter(full_name).is_some() {
                writeln!(w)?;
                tensor_block(w, set, message, 0, opts, true)?;
            } else {
                generic(w, decoded, set, message, opts)?;
            }
        }
        Body::Bundle(b) => {
            writeln!(
                w,
                "format: {} ({})",
                decoded.format.id, decoded.format.title
            )?;
            writeln!(w, "size:   {} bytes", b.bytes.len())?;
            super::bundle_view::text(w, b, opts)?;
        }
        Body::Schemaless(msg) => {
            writeln!(
                w,
                "format: {} ({})",
                decoded.format.id, decoded.format.title
            )?;
            writeln!(w, "size:   {} bytes{size_of}", msg.end - msg.offset)?;
            super::schemaless::write_text_body(w, msg, opts)?;
        }
        Body::Records(file) => {
            writeln!(
                w,
                "format: {} ({})",
                decoded.format.id, decoded.format.title
            )?;
            super::tf_record_view::write_text(w, file, opts)?;
        }
        Body::UserMessage {
            set,
            type_name,
            message,
        } => {
            writeln!(
                w,
                "format: {} ({})",
                decoded.format.id, decoded.format.title
            )?;
            writeln!(w, "type:   {}", plain(type_name))?;
            writeln!(w, "size:   {} bytes{size_of}", message.end - message.offset)?;
            message_fields(w, set, message, 0, opts)?;
        }
    }
    Ok(())
}
