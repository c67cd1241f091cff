//! `decode`: parse arguments, call the library, write the result. Exit
//! status 0 when decoded, 1 when the input is turned down, 2 for usage and
//! I/O errors.

use clap::Parser;
use pbdecode::formats::{self, FormatOptions};
use pbdecode::input::{map_file, read_stdin};
use pbdecode::render::{RenderOptions, json, text};
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "decode",
    version,
    about = "Decode the Protocol Buffers files of machine learning: ONNX tensors, sequences and models, TensorFlow SavedModels and GraphDefs, and any protobuf without a schema."
)]
struct Args {
    /// The file to decode, or - for standard input.
    file: String,
    /// The format: auto (try each in the seed's order) or one of the format ids.
    #[arg(long = "as", default_value = "auto", value_name = "FORMAT")]
    format: String,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// How many values of each tensor to print: a number or `all`.
    /// Default: all in JSON; a preview in text.
    #[arg(long, value_name = "N|all")]
    values: Option<String>,
    /// Show each field's byte range (schemaless reading).
    #[arg(long)]
    offsets: bool,
    /// Nesting limit of the schemaless reading.
    #[arg(long, default_value_t = pbdecode::schemaless::DEFAULT_MAX_DEPTH)]
    max_depth: u32,
    /// Sparse tensors: also show the dense tensor.
    #[arg(long)]
    dense: bool,
    /// Colour previews of image-shaped tensors: never, always, or auto (when
    /// standard output is a colour terminal).
    #[arg(long, default_value = "auto", value_name = "WHEN")]
    color: String,
    /// Add a text histogram to each numeric tensor.
    #[arg(long)]
    histogram: bool,
}

fn main() -> ExitCode {
    let args = match Args::try_parse() {
        Ok(a) => a,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match run(&args) {
        Ok(code) => code,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("decode: {e}");
            ExitCode::from(2)
        }
    }
}

fn usage(msg: &str) -> io::Result<ExitCode> {
    eprintln!("decode: {msg}");
    Ok(ExitCode::from(2))
}

fn run(args: &Args) -> io::Result<ExitCode> {
    let values = match args.values.as_deref() {
        None => None,
        Some("all") => Some(u64::MAX),
        Some(n) => match n.parse::<u64>() {
            Ok(n) => Some(n),
            Err(_) => return usage(&format!("--values takes a number or `all`, not {n:?}")),
        },
    };
    let format = match args.format.as_str() {
        "auto" => None,
        id => match formats::find(id) {
            Some(f) => Some(f),
            None => {
                return usage(&format!(
                    "unknown format {id:?}; one of: auto, {}",
                    formats::ids().join(", ")
                ));
            }
        },
    };
    let (input, dir) = if args.file == "-" {
        (read_stdin()?, None)
    } else {
        let path = PathBuf::from(&args.file);
        let input =
            map_file(&path).map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", args.file)))?;
        let dir = path.parent().map(|p| {
            if p.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                p.to_path_buf()
            }
        });
        (input, dir)
    };
    let bytes = input.bytes();
    let fopts = FormatOptions {
        max_depth: args.max_depth,
        ..FormatOptions::default()
    };
    let decoded = match format {
        None => match formats::detect(bytes, &fopts) {
            Ok(d) => d,
            Err(rejection) => {
                eprintln!("decode: {}: not decoded: {}", args.file, rejection.error);
                for (id, e) in &rejection.tried {
                    eprintln!("  {id}: {e}");
                }
                return Ok(ExitCode::from(1));
            }
        },
        Some(f) => match formats::decode_as(f, bytes, &fopts) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("decode: {}: not {}: {e}", args.file, f.id);
                return Ok(ExitCode::from(1));
            }
        },
    };
    let color = match args.color.as_str() {
        "always" => true,
        "never" => false,
        "auto" => io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
        other => return usage(&format!("--color takes never, always or auto, not {other:?}")),
    };
    let ropts = RenderOptions {
        values,
        dir,
        offsets: args.offsets,
        dense: args.dense,
        color,
        histogram: args.histogram,
    };
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    if args.json {
        json::write_decoded(&mut out, &decoded, &ropts)?;
    } else {
        text::write_decoded(&mut out, &decoded, &ropts)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
