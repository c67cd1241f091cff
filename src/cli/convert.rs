//! `decode convert IN OUT`: a protobuf message written in the other
//! syntax through the same tables: binary to protobuf's text format (as
//! protobuf's Python runtime writes it), text to binary (as protobuf's
//! serializers write it), or either to itself (normalized).

use super::outcome::Outcome;
use super::stderr::show_line;
use pbdecode::decode::{DecodeContext, Message, decode_message};
use pbdecode::formats::{self, AsFormat, Body, FormatOptions};
use pbdecode::input::{InputBytes, exit_on_mapping_fault, open_input, read_stdin};
use pbdecode::output::{Output, Policy};
use pbdecode::render::binary::write_binary;
use pbdecode::render::textproto::{TextWriteError, write_text_format};
use pbdecode::schema::SchemaSet;
use pbdecode::syntax::{WireInput, read_text_as};
use pbdecode::user_schema;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The arguments of `decode convert` (its help text is the doc comment of
/// `Command::Convert`).
#[derive(clap::Args, Debug)]
pub struct ConvertArgs {
    /// The file to convert, or - for standard input.
    input: String,
    /// The file to write, or - for standard output.
    output: PathBuf,
    /// The syntax to write; by default OUT's extension says it (.pb .onnx
    /// .binpb .bin: binary; .pbtxt .txtpb .textproto .prototxt .textpb:
    /// text).
    #[arg(long, value_enum, value_name = "binary|text")]
    to: Option<ToSyntax>,
    /// The format to read IN as: auto (detect it) or a format id (see
    /// decode --help).
    #[arg(long = "as", default_value = AsFormat::AUTO, value_name = "FORMAT", value_parser = as_format())]
    format: AsFormat,
    /// Read IN with this .proto schema (name the message with --type).
    #[arg(long, value_name = "FILE.proto")]
    schema: Option<PathBuf>,
    /// Read IN with a FileDescriptorSet (as `protoc -o FILE` writes).
    #[arg(long, value_name = "FILE")]
    descriptor_set: Option<PathBuf>,
    /// The message IN holds, with --schema or --descriptor-set (full name,
    /// e.g. pkg.Message).
    #[arg(long = "type", value_name = "NAME")]
    type_name: Option<String>,
    /// A folder to look for imported .proto files in (repeatable).
    #[arg(short = 'I', value_name = "DIR")]
    include: Vec<PathBuf>,
}

/// `--to`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ToSyntax {
    Binary,
    Text,
}

/// The syntax a file name's extension stands for.
fn syntax_of_name(path: &Path) -> Option<ToSyntax> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "pb" | "onnx" | "binpb" | "bin" => Some(ToSyntax::Binary),
        "pbtxt" | "txtpb" | "textproto" | "prototxt" | "textpb" => Some(ToSyntax::Text),
        _ => None,
    }
}

/// Runs `decode convert`.
pub fn run(args: &ConvertArgs) -> io::Result<Outcome> {
    let Some(to) = args.to.or_else(|| syntax_of_name(&args.output)) else {
        say!(
            "decode convert: {}: say --to binary or --to text (the name's extension does not say which)",
            args.output.display()
        );
        return Ok(Outcome::Usage);
    };
    let user = args.schema.is_some() || args.descriptor_set.is_some();
    if args.schema.is_some() && args.descriptor_set.is_some() {
        say!("decode convert: give --schema or --descriptor-set, not both");
        return Ok(Outcome::Usage);
    }
    if user && args.format != AsFormat::Auto {
        say!(
            "decode convert: --schema and --descriptor-set name the message with --type: leave out --as"
        );
        return Ok(Outcome::Usage);
    }
    if user != args.type_name.is_some() {
        say!("decode convert: --type names the message of --schema or --descriptor-set; give both");
        return Ok(Outcome::Usage);
    }
    exit_on_mapping_fault(
        "decode convert: the file being converted was cut short by another program (truncated while mapped); stopped\n".into(),
    )?;
    let input = if args.input == "-" {
        read_stdin()?
    } else {
        open_input(Path::new(&args.input))
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", args.input)))?
    };
    let input = Arc::new(input);
    if user {
        let set = match load_schema(args) {
            Ok(set) => set,
            Err(e) => {
                say!("decode convert: {e}");
                return Ok(Outcome::Failed);
            }
        };
        let type_name = args.type_name.as_deref().unwrap_or("");
        return convert_user(args, &input, &set, type_name, to);
    }
    let source = match WireInput::new(input.clone(), args.format) {
        Ok(s) => s,
        Err(r) => {
            say!("decode convert: {}: not read: {}", args.input, r.error);
            show_line(input.bytes(), &r.error);
            return Ok(Outcome::Rejected);
        }
    };
    // The message type: the one a text was read as; else detection's, or
    // that of the format asked for. A conversion changes the syntax only:
    // the formats' rules (a tensor's size) are not checked.
    let set = SchemaSet::builtin();
    let bytes = source.binary.bytes();
    let root = match (&source.text, args.format.format()) {
        (Some(t), _) => Ok(t.reading.root),
        (None, Some(f)) => root_of(set, f.roots, bytes).ok_or_else(|| {
            format!(
                "{} has no message ({}) this file reads as",
                f.id,
                f.roots.join(", ")
            )
        }),
        (None, None) => match formats::detect(bytes, &FormatOptions::default()) {
            Ok(d) => match &d.body {
                Body::Message { message, .. } => Ok(message.def),
                _ => Err(format!(
                    "read as {} ({}), no message of the built-in schemas: convert writes a message read with a schema (--as FORMAT names one, --schema FILE.proto --type pkg.Msg gives one)",
                    d.format.id, d.format.title
                )),
            },
            Err(r) => Err(r.error.to_string()),
        },
    };
    let root = match root {
        Ok(root) => root,
        Err(why) => {
            say!("decode convert: {}: not read: {why}", args.input);
            return Ok(Outcome::Rejected);
        }
    };
    match decode_message(set, root, bytes, 0, DecodeContext::lenient()) {
        Ok(message) => write(args, set, &message, to),
        Err(e) => {
            let e = source.place(e);
            say!("decode convert: {}: not read: {e}", args.input);
            Ok(Outcome::Rejected)
        }
    }
}

/// The first of a format's root messages the bytes decode as.
fn root_of(set: &SchemaSet, roots: &[&str], bytes: &[u8]) -> Option<pbdecode::schema::MsgId> {
    roots
        .iter()
        .filter_map(|r| set.find_message(r))
        .find(|&id| decode_message(set, id, bytes, 0, DecodeContext::strict()).is_ok())
}

/// IN read with the user's tables (text or binary), then written.
fn convert_user(
    args: &ConvertArgs,
    input: &InputBytes,
    set: &SchemaSet,
    type_name: &str,
    to: ToSyntax,
) -> io::Result<Outcome> {
    let Some(id) = set.find_message(type_name) else {
        say!("decode convert: the schema has no message {type_name:?}");
        return Ok(Outcome::Usage);
    };
    let bytes = input.bytes();
    let mut reading = None;
    let mut binary = Vec::new();
    if pbdecode::text_format::looks_like_text(bytes) {
        match read_text_as(set, type_name, bytes) {
            Ok(mut r) => {
                binary = std::mem::take(&mut r.binary);
                reading = Some(r);
            }
            Err(e) => {
                say!("decode convert: {}: not {type_name}: {e}", args.input);
                show_line(bytes, &e);
                return Ok(Outcome::Rejected);
            }
        }
    }
    let read = if reading.is_some() {
        &binary[..]
    } else {
        bytes
    };
    let message = match decode_message(set, id, read, 0, DecodeContext::lenient()) {
        Ok(m) => m,
        Err(e) => {
            let e = match &reading {
                Some(r) => r.place(set, bytes, e),
                None => e,
            };
            say!("decode convert: {}: not {type_name}: {e}", args.input);
            return Ok(Outcome::Rejected);
        }
    };
    write(args, set, &message, to)
}

/// The message written to OUT, through the one output writer.
fn write(
    args: &ConvertArgs,
    set: &SchemaSet,
    message: &Message<'_>,
    to: ToSyntax,
) -> io::Result<Outcome> {
    let written = Output::write_path(
        &args.output,
        Policy::named(),
        |w: &mut dyn Write| match to {
            ToSyntax::Binary => w
                .write_all(&write_binary(set, message))
                .map_err(TextWriteError::Io),
            ToSyntax::Text => write_text_format(w, set, message),
        },
    );
    match written {
        Ok(Ok(())) => Ok(Outcome::Done),
        Ok(Err(TextWriteError::Io(e))) => Err(e),
        Ok(Err(e)) => {
            say!("decode convert: {}: not written as text: {e}", args.input);
            Ok(Outcome::Rejected)
        }
        Err(e) => {
            say!("decode convert: {e}");
            Ok(Outcome::Failed)
        }
    }
}

/// The user's tables, from --schema or --descriptor-set.
fn load_schema(args: &ConvertArgs) -> Result<SchemaSet, user_schema::LoadError> {
    if let Some(path) = &args.schema {
        return user_schema::load_proto(path, &args.include);
    }
    let path = args.descriptor_set.as_deref().unwrap_or(Path::new(""));
    let data = user_schema::read_user_file(path, user_schema::MAX_DESCRIPTOR_SET_BYTES)?;
    user_schema::load_descriptor_set(&data)
        .map_err(|e| user_schema::LoadError(format!("{}: {e}", path.display())))
}

/// `--as`: `auto`, then the format ids in detection order (the
/// registry's), each with its title in `--help`; parsed to an [`AsFormat`].
pub(crate) fn as_format() -> impl clap::builder::TypedValueParser<Value = AsFormat> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(AsFormat::all().map(|a| {
        PossibleValue::new(a.id()).help(match a {
            AsFormat::Auto => "try each format in detection order",
            AsFormat::Format(f) => f.title,
        })
    }))
    // Only the values listed above get here, and each parses.
    .map(|id| AsFormat::parse(&id).unwrap_or(AsFormat::Auto))
}
