//! `--schema`, `--descriptor-set` and `--as protobuf`: decode with the
//! user's tables or none, print what was read, then any fault.

use super::args::Args;
use super::outcome::Outcome;
use super::stderr::usage;
use pbdecode::formats::{self, AsFormat, Body, Decoded, FormatOptions};
use pbdecode::render::{RenderOptions, json, text};
use std::io::{self, BufWriter, Write};

/// The user's schema, loaded from --schema or --descriptor-set.
fn load_user_schema(
    args: &Args,
) -> Option<Result<pbdecode::schema::SchemaSet, pbdecode::user_schema::LoadError>> {
    use pbdecode::user_schema;
    if let Some(path) = &args.schema {
        Some(user_schema::load_proto(path, &args.include))
    } else {
        args.descriptor_set.as_ref().map(|path| {
            user_schema::read_user_file(path, user_schema::MAX_DESCRIPTOR_SET_BYTES).and_then(
                |data| {
                    user_schema::load_descriptor_set(&data)
                        .map_err(|e| user_schema::LoadError(format!("{}: {e}", path.display())))
                },
            )
        })
    }
}

/// --dump-schema: print the schema as read (text, or JSON with --json).
pub(crate) fn dump_schema(args: &Args) -> io::Result<Outcome> {
    if args.schema.is_some() && args.descriptor_set.is_some() {
        return usage("give --schema or --descriptor-set, not both");
    }
    if !args.file.is_empty() {
        return usage("--dump-schema prints the schema; it takes no FILE");
    }
    let set = match load_user_schema(args) {
        None => return usage("--dump-schema needs --schema or --descriptor-set"),
        Some(Err(e)) => {
            say!("decode: {e}");
            return Ok(Outcome::Failed);
        }
        Some(Ok(set)) => set,
    };
    let mut out = BufWriter::with_capacity(1 << 16, pbdecode::output::stdout_stream());
    if args.json {
        pbdecode::render::schema_view::write_schema_json(&mut out, &set)?;
    } else {
        pbdecode::render::schema_view::write_schema_text(&mut out, &set)?;
    }
    out.flush()?;
    Ok(Outcome::Done)
}

/// --schema / --descriptor-set (decode with the user's tables), or --as
/// protobuf: print what was decoded, and for input cut short or corrupt,
/// the fault (exit 1).
pub(crate) fn decode_schema_or_schemaless(
    args: &Args,
    bytes: &[u8],
    fopts: &FormatOptions,
    ropts: &RenderOptions,
) -> io::Result<Outcome> {
    use pbdecode::user_schema;
    if args.schema.is_some() && args.descriptor_set.is_some() {
        return usage("give --schema or --descriptor-set, not both");
    }
    if args.format != AsFormat::Auto && !args.format.is_schemaless() {
        return usage("--schema and --descriptor-set decode as protobuf: leave out --as");
    }
    let loaded = load_user_schema(args);
    let user_set = match loaded {
        None => None,
        Some(Ok(set)) => Some(set),
        Some(Err(e)) => {
            // Messages may quote the schema file (names, paths): escaped.
            say!("decode: {e}");
            return Ok(Outcome::Failed);
        }
    };
    let mut fault = None;
    // A text-format input read with the user's tables: its binary form.
    let mut text_binary: Vec<u8> = Vec::new();
    let mut syntax = formats::Syntax::Binary;
    let decoded = match &user_set {
        Some(set) => {
            let names = user_schema::type_names(set);
            let Some(type_name) = args
                .type_name
                .as_deref()
                .filter(|t| set.find_message(t).is_some())
            else {
                let shown: Vec<String> = names.iter().take(20).map(|n| n.to_string()).collect();
                let more = names.len().saturating_sub(shown.len());
                let what = match &args.type_name {
                    Some(t) => format!("the schema has no message {t:?}"),
                    None => "name the message to decode with --type".to_string(),
                };
                let more = if more > 0 {
                    format!(", … {more} more")
                } else {
                    String::new()
                };
                return usage(&format!("{what}; messages: {}{more}", shown.join(", ")));
            };
            if fopts.max_depth > pbdecode::decode::MAX_NESTING {
                say!(
                    "decode: note: --max-depth {} is capped at {} levels with a schema (deeper messages are shown without it)",
                    fopts.max_depth,
                    pbdecode::decode::MAX_NESTING
                );
            }
            let mut reading = None;
            if pbdecode::text_format::looks_like_text(bytes) {
                match pbdecode::syntax::read_text_as(set, type_name, bytes) {
                    Ok(mut r) => {
                        text_binary = std::mem::take(&mut r.binary);
                        syntax = formats::Syntax::Text;
                        reading = Some(r);
                    }
                    Err(e) => {
                        say!("decode: {}: not {type_name}: {e}", args.file);
                        super::stderr::show_line(bytes, &e);
                        return Ok(Outcome::Rejected);
                    }
                }
            }
            let read = if reading.is_some() {
                &text_binary[..]
            } else {
                bytes
            };
            match user_schema::decode(set, type_name, read, fopts.max_depth) {
                Ok(d) => d,
                Err(e) => {
                    let e = match &reading {
                        Some(r) => r.place(set, bytes, e),
                        None => e,
                    };
                    say!("decode: {}: not {type_name}: {e}", args.file);
                    return Ok(Outcome::Rejected);
                }
            }
        }
        None => {
            let Some(format) = formats::find(formats::SCHEMALESS_ID) else {
                return usage("no protobuf format");
            };
            if bytes.is_empty() {
                say!("decode: {}: not protobuf: the input is empty", args.file);
                return Ok(Outcome::Rejected);
            }
            let opts = pbdecode::schemaless::Options {
                max_depth: fopts.max_depth,
            };
            let tree = pbdecode::schemaless::decode_partial(bytes, 0, opts);
            fault = tree.fault.clone();
            Decoded {
                format,
                body: Body::Schemaless(tree),
                passed_over: Vec::new(),
                syntax: formats::Syntax::Binary,
            }
        }
    };
    let decoded = Decoded { syntax, ..decoded };
    let mut out = BufWriter::with_capacity(1 << 16, pbdecode::output::stdout_stream());
    if args.json {
        json::write_decoded(&mut out, &decoded, ropts)?;
    } else {
        text::write_decoded(&mut out, &decoded, ropts)?;
    }
    out.flush()?;
    if let Some(e) = fault {
        say!("decode: {}: not protobuf: {e}", args.file);
        return Ok(Outcome::Rejected);
    }
    Ok(Outcome::Done)
}
