//! The `decode` command. The library decodes and renders; this layer parses
//! the arguments ([`args`]: clap, with `serve` and `diff` as commands),
//! decides what they ask for before any file is read ([`plan`]: one mode,
//! and a usage error for a flag that mode would not read), opens the
//! files, runs the mode and turns its [`Outcome`] into the exit status
//! ([`exit_code`]).

#[macro_use]
mod stderr;
mod args;
mod batch;
pub mod convert;
pub mod diff;
mod graph;
mod outcome;
mod plan;
mod progress;
mod schema;
pub mod serve;
mod tensors;
mod testdata;

use args::{Args, Command};
use outcome::Outcome;
use pbdecode::error::DecodeError;
use pbdecode::escape::{TextLines, plain};
use pbdecode::formats::{self, Body, Decoded, FormatOptions};
use pbdecode::input::{InputBytes, exit_on_mapping_fault, open_input, read_stdin};
use pbdecode::render::{RenderOptions, json, text};
use pbdecode::syntax::WireInput;
use pbdecode::testdata::Naming;
use plan::Mode;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use stderr::{show_line, usage};

/// Exit status 1 for an input that was turned down; with `--json` the
/// reason also goes to stdout as `{"error": {...}}`, so a script reading
/// stdout sees why.
fn turned_down(args: &Args, e: &DecodeError) -> io::Result<Outcome> {
    if args.json {
        let mut out = io::stdout().lock();
        json::write_error(&mut out, e)?;
        out.write_all(b"\n")?;
        out.flush()?;
    }
    Ok(Outcome::Rejected)
}

/// The exit status of a command's outcome; an I/O error is said on
/// stderr after `program` and is exit 2, except a closed pipe (the
/// reader had enough), which is exit 0.
pub fn exit_code(program: &str, result: io::Result<Outcome>) -> ExitCode {
    match result {
        Ok(Outcome::Done) => ExitCode::SUCCESS,
        Ok(Outcome::Rejected) => ExitCode::from(1),
        Ok(Outcome::Usage | Outcome::Failed) => ExitCode::from(2),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            say!("{program}: {e}");
            ExitCode::from(2)
        }
    }
}

/// The whole program: the arguments parsed (`decode serve ...` and
/// `decode diff ...` as commands of their own), then the command run.
pub fn main() -> ExitCode {
    // `decode` alone: what it does and how to start, not clap's error about
    // a missing FILE.
    if std::env::args_os().len() <= 1 {
        for line in args::SHORT_USAGE.lines() {
            say!("{line}");
        }
        return ExitCode::from(2);
    }
    let (mut args, matches) = match stderr::parse_args::<Args>(std::env::args_os().collect()) {
        Ok(parsed) => parsed,
        Err(outcome) => return exit_code("decode", Ok(outcome)),
    };
    // `decode DIR` on a SavedModel's folder: its saved_model.pb, whose
    // variables/ is beside it (a folder of many files still needs -r).
    if args.command.is_none() && !args.recursive {
        let model = Path::new(&args.file).join("saved_model.pb");
        if model.is_file() && !Path::new(&args.file).join("model.onnx").exists() {
            args.file = model.to_string_lossy().into_owned();
        }
    }
    match &args.command {
        Some(Command::Serve(serve)) => exit_code("decode serve", serve::run(serve)),
        Some(Command::Diff(diff)) => exit_code("decode diff", diff::run(diff)),
        Some(Command::Convert(convert)) => exit_code("decode convert", convert::run(convert)),
        None => exit_code("decode", decode(&args, &args::given(&matches))),
    }
}

/// `decode [FLAGS] FILE...`: the mode the flags ask for, run.
fn decode(args: &Args, given: &[&str]) -> io::Result<Outcome> {
    let mode = match args.plan(given) {
        Ok(mode) => mode,
        Err(msg) => return usage(&msg),
    };
    // Every command maps the files it reads (batches, test folders,
    // --npy-dir, models and external data alike): a file cut short by
    // another program meanwhile faults on access, which ends the command
    // with this message and status 2 rather than a death by SIGBUS.
    exit_on_mapping_fault(
        "decode: a file being read was cut short by another program (truncated while mapped); stopped\n".into(),
    )?;
    match mode {
        Mode::DumpSchema => schema::dump_schema(args),
        Mode::Batch | Mode::BatchJsonLines => batch::run(args, args.values),
        Mode::TestFolder => testdata::folder(args, args.values),
        Mode::Schema => with_input(args, |input, fopts, ropts| {
            schema::decode_schema_or_schemaless(args, input.bytes(), fopts, ropts)
        }),
        Mode::ShowTensor | Mode::WriteTensors => {
            with_decoded(args, |input, decoded, _, fopts, ropts| {
                tensors::tensor_outputs(args, input, decoded, fopts, ropts)
            })
        }
        Mode::Graph => with_decoded(args, |_, decoded, _, _, _| graph::run(args, decoded)),
        Mode::View => with_decoded(args, |_, decoded, naming, _, ropts| {
            print(args, decoded, naming, ropts)
        }),
    }
}

/// Runs `then` on the input with the options of the arguments.
fn with_input(
    args: &Args,
    then: impl FnOnce(&Arc<InputBytes>, &FormatOptions, &RenderOptions) -> io::Result<Outcome>,
) -> io::Result<Outcome> {
    let (input, dir) = open(args)?;
    // Shared with the facade's document of --tensor, --npy and --npy-dir.
    let input = Arc::new(input);
    let fopts = FormatOptions {
        max_depth: args.max_depth,
        ..FormatOptions::default()
    };
    then(&input, &fopts, &args.render_options(dir))
}

/// Runs `then` on the input decoded as its detected format (or the one
/// --as names); a turned-down input ends with its exit status.
fn with_decoded(
    args: &Args,
    then: impl FnOnce(
        &Arc<InputBytes>,
        &Decoded<'_>,
        Option<&Naming>,
        &FormatOptions,
        &RenderOptions,
    ) -> io::Result<Outcome>,
) -> io::Result<Outcome> {
    with_input(args, |input, fopts, ropts| {
        // A text-format file is read as the binary form of its message.
        let source = match WireInput::new(input.clone(), args.format) {
            Ok(source) => source,
            Err(rejection) => {
                say!("decode: {}: not decoded: {}", args.file, rejection.error);
                for (id, e) in &rejection.tried {
                    say!("  {id}: {e}");
                }
                show_line(input.bytes(), &rejection.error);
                return turned_down(args, &rejection.error);
            }
        };
        match detect(args, &source, fopts)? {
            Ok((decoded, naming)) => then(&source.binary, &decoded, naming.as_ref(), fopts, ropts),
            Err(code) => Ok(code),
        }
    })
}

/// The input: standard input, or the file mapped (with the folder its
/// external data is looked for in).
fn open(args: &Args) -> io::Result<(InputBytes, Option<PathBuf>)> {
    if args.file == "-" {
        return Ok((read_stdin()?, None));
    }
    let path = PathBuf::from(&args.file);
    // A mapped file cut short by another program faults on access: say
    // so and exit 2 rather than die by SIGBUS.
    // Written by a signal handler, past the escaping of `say!`: escaped here.
    exit_on_mapping_fault(format!(
        "decode: {}: a file being read (this one or its external data) was cut short by another program; stopped\n",
        plain(&args.file)
    ))?;
    let input =
        open_input(&path).map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", args.file)))?;
    let dir = path.parent().map(|p| {
        if p.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            p.to_path_buf()
        }
    });
    Ok((input, dir))
}

/// The file decoded as its detected format (or the one --as names), with
/// notes and warnings on stderr; `Err(exit code)` when it is turned down.
fn detect<'a>(
    args: &Args,
    source: &'a WireInput,
    fopts: &FormatOptions,
) -> io::Result<Result<(Decoded<'a>, Option<Naming>), Outcome>> {
    let bytes = source.binary.bytes();
    let shown_text = source.text.as_ref().map(|t| t.text.bytes());
    let format = args.format.format();
    let file_name = Path::new(&args.file).file_name().and_then(|n| n.to_str());
    let hint = formats::other_files::looks_like(shown_text.unwrap_or(bytes), file_name);
    let naming_ctx = match format {
        None => testdata::context(args),
        Some(_) => None,
    };
    let mut naming = None;
    let decoded = match format {
        None => match testdata::detect(bytes, fopts, naming_ctx.as_ref(), &mut naming) {
            Ok(d) => {
                if d.format.id == formats::SCHEMALESS_ID {
                    if let Some(what) = hint {
                        say!("decode: {}: note: this looks like {what}", args.file);
                    }
                    for (f, e, shown) in formats::near_misses(&d, bytes, fopts) {
                        let e = source.place(e);
                        let hint = if shown {
                            format!(" (--as {} shows it anyway)", f.id)
                        } else {
                            String::new()
                        };
                        say!(
                            "decode: {}: note: not read as {}: {e}{hint}",
                            args.file,
                            f.id
                        );
                    }
                }
                d
            }
            Err(rejection) => {
                let rejection = source.place_rejection(rejection);
                // What the file most likely is comes first: the reasons
                // each format gave are for someone who thought it was one.
                if let Some(what) = hint {
                    say!("decode: {}: this looks like {what}", args.file);
                }
                say!("decode: {}: not decoded: {}", args.file, rejection.error);
                for (id, e) in &rejection.tried {
                    say!("  {id}: {e}");
                }
                if let Some(text) = shown_text {
                    show_line(text, &rejection.error);
                }
                return turned_down(args, &rejection.error).map(Err);
            }
        },
        Some(f) => match formats::decode_as(f, bytes, fopts) {
            Ok(d) => {
                for problem in formats::tensor_problems(&d.body) {
                    let problem = source.place(problem);
                    say!(
                        "decode: {}: warning: shown as {} anyway: {problem}",
                        args.file,
                        f.id
                    );
                }
                d
            }
            Err(e) => {
                let e = source.place(e);
                say!("decode: {}: not {}: {e}", args.file, f.id);
                if let Some(text) = shown_text {
                    show_line(text, &e);
                }
                return turned_down(args, &e).map(Err);
            }
        },
    };
    let decoded = Decoded {
        syntax: source.syntax(),
        ..decoded
    };
    Ok(Ok((decoded, naming)))
}

/// The decoded file printed as text or JSON (with what an ONNX test
/// folder's model says of it).
fn print(
    args: &Args,
    decoded: &Decoded<'_>,
    naming: Option<&Naming>,
    ropts: &RenderOptions,
) -> io::Result<Outcome> {
    let mut out = BufWriter::with_capacity(1 << 16, pbdecode::output::stdout_stream());
    if let Some(n) = naming {
        testdata::warn(&args.file, n);
    }
    if args.json {
        json::write_decoded_with(&mut out, decoded, ropts, None, &mut |w| {
            testdata::json_tail(w, naming)
        })?;
    } else {
        if let Some(n) = naming {
            let mut lines = TextLines::new(&mut out);
            n.write_text(&mut lines)?;
            lines.blank()?;
        }
        text::write_decoded(&mut out, decoded, ropts)?;
    }
    out.flush()?;
    // A record file shows every whole record, then the fault that ended
    // it (a bad CRC, a file cut while written): not a clean read.
    if let Body::Records(file) = &decoded.body
        && let Some(e) = file.fault()
    {
        say!("decode: {}: {e}", args.file);
        return Ok(Outcome::Rejected);
    }
    if args.strict && naming.is_some_and(|n| !n.mismatches.is_empty()) {
        return Ok(Outcome::Rejected);
    }
    Ok(Outcome::Done)
}

#[cfg(test)]
mod tests {
    use super::{Outcome, exit_code};
    use std::io;
    use std::process::ExitCode;

    /// The exit statuses the guide's usage section lists, from the one
    /// mapping.
    #[test]
    fn each_outcome_has_its_exit_status() {
        let cases = [
            (Ok(Outcome::Done), ExitCode::SUCCESS),
            (Ok(Outcome::Rejected), ExitCode::from(1)),
            (Ok(Outcome::Usage), ExitCode::from(2)),
            (Ok(Outcome::Failed), ExitCode::from(2)),
            (Err(io::Error::other("disk full")), ExitCode::from(2)),
            // The reader of the output had enough.
            (Err(io::ErrorKind::BrokenPipe.into()), ExitCode::SUCCESS),
        ];
        for (result, code) in cases {
            let shown = format!("{result:?}");
            assert_eq!(exit_code("decode test", result), code, "{shown}");
        }
    }
}
