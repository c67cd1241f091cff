//! The `decode` command: its arguments and what each combination does. The
//! library decodes and renders; this layer opens files, picks the action and
//! turns outcomes into messages and exit codes.

#[macro_use]
mod stderr;
mod batch;
pub mod diff;
mod progress;
mod schema;
pub mod serve;
mod tensors;
mod testdata;

use clap::Parser;
use pbdecode::error::DecodeError;
use pbdecode::formats::{self, AsFormat, Decoded, FormatOptions};
use pbdecode::input::{InputBytes, exit_on_mapping_fault, open_input, read_stdin};
use pbdecode::render::fmt::TextLines;
use pbdecode::render::{RenderOptions, json, text};
use pbdecode::testdata::Naming;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "decode",
    version,
    about = "Decode the Protocol Buffers files of machine learning: ONNX tensors, sequences and models, TensorFlow SavedModels and GraphDefs, and any protobuf without a schema.",
    after_help = "The explorer, a local web page for the same files: decode serve [PATH...] (decode serve --help)."
)]
pub struct Args {
    /// The file to decode, or - for standard input; a test folder (with
    /// model.onnx) or one of its test_data_set_N folders.
    #[arg(
        required_unless_present = "dump_schema",
        default_value = "",
        hide_default_value = true
    )]
    file: String,
    /// More files: decoded as a batch (a table, or JSON Lines with --jsonl).
    more: Vec<String>,
    /// Decode every file under the folder(s), as a batch.
    #[arg(short = 'r', long)]
    recursive: bool,
    /// One JSON object per line per file (with "file"), for batches.
    #[arg(long)]
    jsonl: bool,
    /// Read tensor files as test data of this model (the default: the
    /// model.onnx beside a test_data_set_N folder).
    #[arg(long, value_name = "FILE.onnx")]
    model: Option<PathBuf>,
    /// A value that does not match the model's declared type is an error
    /// (exit 1), not a warning.
    #[arg(long)]
    strict: bool,
    /// The format to read the file as: auto (detect it) or a format id;
    /// the ids are listed in the order detection tries them.
    #[arg(long = "as", default_value = AsFormat::AUTO, value_name = "FORMAT", value_parser = as_format())]
    format: AsFormat,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// How many values of each tensor to print: a number or `all`.
    /// Default: all in JSON; a preview in text.
    #[arg(long, value_name = "N|all", value_parser = parse_values)]
    values: Option<u64>,
    /// Show each field's byte range (schemaless reading).
    #[arg(long)]
    offsets: bool,
    /// Nesting limit of the schemaless reading.
    #[arg(long, default_value_t = pbdecode::schemaless::DEFAULT_MAX_DEPTH)]
    max_depth: u32,
    /// Decode with this .proto schema (name the message with --type);
    /// imports are found in the -I folders, then in its folder.
    #[arg(long, value_name = "FILE.proto")]
    schema: Option<PathBuf>,
    /// Decode with a FileDescriptorSet (as `protoc -o FILE` writes).
    #[arg(long, value_name = "FILE")]
    descriptor_set: Option<PathBuf>,
    /// The message to decode with --schema or --descriptor-set (full name,
    /// e.g. pkg.Message).
    #[arg(long = "type", value_name = "NAME")]
    type_name: Option<String>,
    /// A folder to look for imported .proto files in (repeatable).
    #[arg(short = 'I', value_name = "DIR")]
    include: Vec<PathBuf>,
    /// Print the schema read from --schema or --descriptor-set (every
    /// message's fields, numbers, types, labels, packedness; --json for
    /// JSON) instead of decoding a file.
    #[arg(long)]
    dump_schema: bool,
    /// Sparse tensors: also show the dense tensor.
    #[arg(long)]
    dense: bool,
    /// Statistics for every tensor of a model, not only the ones printed in
    /// full (reads every value).
    #[arg(long)]
    stats: bool,
    /// Colour previews of image-shaped tensors: never, always, or auto (when
    /// standard output is a colour terminal).
    #[arg(long, value_enum, default_value_t = Color::Auto, value_name = "WHEN")]
    color: Color,
    /// Add a text histogram to each numeric tensor.
    #[arg(long)]
    histogram: bool,
    /// Print every value implied by TensorFlow's padding rule (a short typed
    /// field repeats its last value up to the shape; at most 1,048,576 are
    /// printed without it), and write .npy files of such tensors over 1 GiB.
    #[arg(long)]
    allow_implied: bool,
    /// Draw an image-shaped tensor as a PNG file (- for standard output);
    /// in a model or sequence, name it with --tensor.
    #[arg(long, value_name = "OUT.png")]
    picture: Option<PathBuf>,
    /// The tensor to draw, export or show, by name (an ONNX tensor's name, a
    /// TensorFlow Const node's name).
    #[arg(long, value_name = "NAME")]
    tensor: Option<String>,
    /// Write the tensor as a NumPy .npy file (- for standard output).
    #[arg(long, value_name = "OUT.npy")]
    npy: Option<PathBuf>,
    /// Write every initializer of a model (Const values of a TensorFlow
    /// graph; every tensor of a file that has neither) as DIR/NAME.npy.
    #[arg(long, value_name = "DIR")]
    npy_dir: Option<PathBuf>,
    /// With --npy-dir: replace files that already exist in DIR (refused
    /// otherwise).
    #[arg(long)]
    force: bool,
}

/// `--as`: `auto`, then the format ids in detection order (the
/// registry's), each with its title in `--help`; parsed to an [`AsFormat`].
fn as_format() -> impl clap::builder::TypedValueParser<Value = AsFormat> {
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

/// `--values`: a number, or `all` (every value).
fn parse_values(s: &str) -> Result<u64, String> {
    match s {
        "all" => Ok(u64::MAX),
        n => n
            .parse::<u64>()
            .map_err(|_| "a number or `all` is expected".to_string()),
    }
}

/// `--color`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Color {
    Never,
    Always,
    Auto,
}

pub(crate) fn usage(msg: &str) -> io::Result<ExitCode> {
    say!("decode: {msg}");
    Ok(ExitCode::from(2))
}

/// Exit status 1 for an input that was turned down; with `--json` the
/// reason also goes to stdout as `{"error": {...}}`, so a script reading
/// stdout sees why.
fn turned_down(args: &Args, e: &DecodeError) -> io::Result<ExitCode> {
    if args.json {
        let mut out = io::stdout().lock();
        json::write_error(&mut out, e)?;
        out.write_all(b"\n")?;
        out.flush()?;
    }
    Ok(ExitCode::from(1))
}

/// What a command line asks for: one mode, computed from the arguments
/// before any file is read, and one `match` on it in [`run`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// `--dump-schema`: print the schema read from --schema/--descriptor-set.
    DumpSchema,
    /// Several files, `-r` or `--jsonl`: a table or JSON Lines.
    Batch,
    /// An ONNX test folder (or one of its test_data_set_N folders).
    TestFolder,
    /// A user schema (--schema, --descriptor-set) or `--as protobuf`.
    Schema,
    /// `--picture`, `--npy`, `--npy-dir` or `--tensor`.
    TensorOutputs,
    /// Detect (or take --as) the format and print the file.
    Decode,
}

impl Args {
    fn mode(&self) -> Mode {
        let tensor_flags = self.picture.is_some()
            || self.npy.is_some()
            || self.npy_dir.is_some()
            || self.tensor.is_some();
        if self.dump_schema {
            Mode::DumpSchema
        } else if self.recursive || self.jsonl || !self.more.is_empty() {
            Mode::Batch
        } else if self.file != "-" && Path::new(&self.file).is_dir() {
            Mode::TestFolder
        } else if self.schema.is_some()
            || self.descriptor_set.is_some()
            || (self.format.is_schemaless() && !tensor_flags)
        {
            Mode::Schema
        } else if tensor_flags {
            Mode::TensorOutputs
        } else {
            Mode::Decode
        }
    }

    /// How to render, from the arguments (`dir`: the input's folder, where
    /// external data is looked for).
    fn render_options(&self, dir: Option<PathBuf>) -> RenderOptions {
        let color = match self.color {
            Color::Always => true,
            Color::Never => false,
            Color::Auto => {
                io::stdout().is_terminal()
                    && std::env::var_os("NO_COLOR").is_none()
                    && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
            }
        };
        RenderOptions {
            values: self.values,
            dir,
            offsets: self.offsets,
            dense: self.dense,
            color,
            histogram: self.histogram,
            stats: self.stats,
            allow_implied: self.allow_implied,
            progress: progress::handle(),
        }
    }
}

/// The whole program: `decode serve ...` and `decode diff ...` (detected on
/// the first argument, each with arguments of its own), else the decoder.
/// Maps the outcome to an exit status: 0 decoded, 1 the input was turned
/// down, 2 usage or I/O errors; a closed pipe is not an error.
pub fn main() -> ExitCode {
    let first = std::env::args_os().nth(1);
    if first.as_ref().is_some_and(|a| a == "serve") {
        return serve::main();
    }
    if first.as_ref().is_some_and(|a| a == "diff") {
        return diff::main();
    }
    // Every command maps the files it reads (batches, test folders,
    // --npy-dir, models and external data alike): a file cut short by
    // another program meanwhile faults on access, which ends the command
    // with this message and status 2 rather than a death by SIGBUS.
    if let Err(e) = exit_on_mapping_fault(
        "decode: a file being read was cut short by another program (truncated while mapped); stopped\n".into(),
    ) {
        say!("decode: {e}");
        return ExitCode::from(2);
    }
    let args = match stderr::parse_args::<Args>(std::env::args_os().collect()) {
        Ok(a) => a,
        Err(code) => return code,
    };
    match run(&args) {
        Ok(code) => code,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            say!("decode: {e}");
            ExitCode::from(2)
        }
    }
}

pub fn run(args: &Args) -> io::Result<ExitCode> {
    match args.mode() {
        Mode::DumpSchema => schema::dump_schema(args),
        Mode::Batch => batch::run(args, args.values),
        Mode::TestFolder => testdata::folder(args, args.values),
        Mode::Schema => with_input(args, |input, fopts, ropts| {
            schema::decode_schema_or_schemaless(args, input.bytes(), fopts, ropts)
        }),
        Mode::TensorOutputs => with_decoded(args, |input, decoded, _, ropts| {
            tensors::tensor_outputs(args, input, decoded, ropts)
        }),
        Mode::Decode => with_decoded(args, |_, decoded, naming, ropts| {
            print(args, decoded, naming, ropts)
        }),
    }
}

/// Runs `then` on the input with the options of the arguments.
fn with_input(
    args: &Args,
    then: impl FnOnce(&InputBytes, &FormatOptions, &RenderOptions) -> io::Result<ExitCode>,
) -> io::Result<ExitCode> {
    let (input, dir) = open(args)?;
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
        &InputBytes,
        &Decoded<'_>,
        Option<&Naming>,
        &RenderOptions,
    ) -> io::Result<ExitCode>,
) -> io::Result<ExitCode> {
    with_input(args, |input, fopts, ropts| {
        if args.type_name.is_some() {
            return usage("--type goes with --schema or --descriptor-set");
        }
        match detect(args, input.bytes(), fopts)? {
            Ok((decoded, naming)) => then(input, &decoded, naming.as_ref(), ropts),
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
        text::plain(&args.file)
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
    bytes: &'a [u8],
    fopts: &FormatOptions,
) -> io::Result<Result<(Decoded<'a>, Option<Naming>), ExitCode>> {
    let format = args.format.format();
    let file_name = Path::new(&args.file).file_name().and_then(|n| n.to_str());
    let hint = formats::other_files::looks_like(bytes, file_name);
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
                say!("decode: {}: not decoded: {}", args.file, rejection.error);
                for (id, e) in &rejection.tried {
                    say!("  {id}: {e}");
                }
                if let Some(what) = hint {
                    say!("decode: {}: this looks like {what}", args.file);
                }
                return turned_down(args, &rejection.error).map(Err);
            }
        },
        Some(f) => match formats::decode_as(f, bytes, fopts) {
            Ok(d) => {
                for problem in formats::tensor_problems(&d.body) {
                    say!(
                        "decode: {}: warning: shown as {} anyway: {problem}",
                        args.file,
                        f.id
                    );
                }
                d
            }
            Err(e) => {
                say!("decode: {}: not {}: {e}", args.file, f.id);
                return turned_down(args, &e).map(Err);
            }
        },
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
) -> io::Result<ExitCode> {
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
    if args.strict && naming.is_some_and(|n| !n.mismatches.is_empty()) {
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
