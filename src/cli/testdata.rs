//! Test data read with its model: a single `input_K.pb`/`output_K.pb`
//! named by the model, and `decode DIR` on a test folder.

use super::args::Args;
use super::outcome::Outcome;
use pbdecode::escape::TextLines;
use pbdecode::formats::{Decoded, FormatOptions, Rejection};
use pbdecode::json_writer::JsonWriter;
use pbdecode::render::{RenderOptions, text, tree};
use pbdecode::testdata::{self, FileContext, ModelCache, Naming};
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// The model context of the file named on the command line.
pub fn context(args: &Args) -> Option<FileContext> {
    if args.file == "-" {
        return None;
    }
    let path = Path::new(&args.file);
    let ctx = testdata::file_context(path, args.model.as_deref(), &ModelCache::default());
    if ctx.is_none() && args.model.is_some() {
        say!(
            "decode: {}: note: --model names input_K.pb and output_K.pb files only",
            args.file
        );
    }
    ctx
}

pub fn detect<'a>(
    bytes: &'a [u8],
    fopts: &FormatOptions,
    ctx: Option<&FileContext>,
    naming: &mut Option<Naming>,
) -> Result<Decoded<'a>, Rejection> {
    let (d, n) = testdata::decode_file(bytes, ctx, fopts);
    *naming = n;
    d
}

pub fn warn(file: &str, naming: &Naming) {
    for m in &naming.mismatches {
        say!("decode: {file}: warning: {m}");
    }
}

pub fn json_tail(w: &mut JsonWriter<'_>, naming: Option<&Naming>) -> io::Result<()> {
    testdata::json_tail(w, naming)
}

/// `decode DIR`: a test folder's model signature, then every input and
/// output file of every data set, named. `--json`: JSON Lines.
pub fn folder(args: &Args, values: Option<u64>) -> io::Result<Outcome> {
    let dir = Path::new(&args.file);
    let Some((model, files)) = testdata::test_files(dir)? else {
        return super::stderr::usage(&format!(
            "{}: is a directory, and not an ONNX test folder (model.onnx and test_data_set_N/); use -r to decode every file in it",
            args.file
        ));
    };
    let model_arg = args.model.clone().unwrap_or(model);
    if args.json {
        return super::batch::run_files(
            args,
            values,
            files,
            Default::default(),
            Some(&model_arg),
            false,
        );
    }
    let mut stdout = BufWriter::with_capacity(1 << 16, pbdecode::output::stdout_stream());
    let mut out = TextLines::new(&mut stdout);
    let cache = ModelCache::default();
    let sig = cache.get(&model_arg);
    out.line(format_args!("model:  {}", model_arg.display()))?;
    match sig.as_ref() {
        Ok(s) => s.write_text(&mut out)?,
        Err(e) => {
            say!("decode: {e}");
            return Ok(Outcome::Rejected);
        }
    }
    let fopts = FormatOptions {
        max_depth: args.max_depth,
        ..FormatOptions::default()
    };
    let mut code = Outcome::Done;
    for file in &files {
        let shown = file.strip_prefix(dir).unwrap_or(file).display();
        out.blank()?;
        let input = match pbdecode::input::open_input(file) {
            Ok(i) => i,
            Err(e) => {
                out.line(format_args!("== {shown}: not read: {e}"))?;
                code = Outcome::Failed;
                continue;
            }
        };
        let ctx = testdata::file_context(file, Some(&model_arg), &cache);
        let (decoded, naming) = testdata::decode_file(input.bytes(), ctx.as_ref(), &fopts);
        match &naming {
            Some(n) => {
                let declared = n
                    .port
                    .as_ref()
                    .map_or("not in the model".to_string(), |p| p.declared.text());
                out.line(format_args!("== {shown}: {}: {declared}", n.label()))?;
                if let Some(r) = &n.resolved {
                    out.line(format_args!("{r}"))?;
                }
                for m in &n.mismatches {
                    out.line(format_args!("warning: {m}"))?;
                    say!("decode: {}: warning: {m}", file.display());
                }
                if args.strict && !n.mismatches.is_empty() {
                    code = Outcome::Rejected;
                }
            }
            None => out.line(format_args!("== {shown}"))?,
        }
        match decoded {
            Ok(d) => {
                let ropts = RenderOptions {
                    values: values.or(Some(tree::DEFAULT_NESTED_VALUES)),
                    dir: file
                        .parent()
                        .map(|d| pbdecode::Folder::Disk(d.to_path_buf())),
                    ..RenderOptions::default()
                };
                text::write_decoded(out.view(), &d, &ropts)?;
            }
            Err(r) => {
                out.line(format_args!("not decoded: {}", r.error))?;
                code = Outcome::Rejected;
            }
        }
    }
    drop(out);
    stdout.flush()?;
    Ok(code)
}
