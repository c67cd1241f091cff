//! `decode`: parse arguments, call the library, write the result. Exit
//! status 0 when decoded, 1 when the input is turned down, 2 for usage and
//! I/O errors.

use clap::Parser;
use pbdecode::formats::{self, FormatOptions};
use pbdecode::formats::{Body, Decoded};
use pbdecode::input::{map_file, read_stdin};
use pbdecode::render::{RenderOptions, json, text};
use pbdecode::schema::SchemaSet;
use pbdecode::{npy, picture};
use std::collections::{BTreeMap, HashSet};
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
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
    /// Decode with this .proto schema (name the message with --type);
    /// imports are found beside it or in -I folders.
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
    /// Sparse tensors: also show the dense tensor.
    #[arg(long)]
    dense: bool,
    /// Statistics for every tensor of a model, not only the ones printed in
    /// full (reads every value).
    #[arg(long)]
    stats: bool,
    /// Colour previews of image-shaped tensors: never, always, or auto (when
    /// standard output is a colour terminal).
    #[arg(long, default_value = "auto", value_name = "WHEN")]
    color: String,
    /// Add a text histogram to each numeric tensor.
    #[arg(long)]
    histogram: bool,
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
    // User schemas, and --as protobuf (which prints what it read up to a
    // fault before reporting it).
    let tensor_flags = args.picture.is_some()
        || args.npy.is_some()
        || args.npy_dir.is_some()
        || args.tensor.is_some();
    let schemaless_only = format.is_some_and(|f| f.id == "protobuf") && !tensor_flags;
    if args.schema.is_some() || args.descriptor_set.is_some() || schemaless_only {
        let ropts = RenderOptions {
            values,
            dir: dir.clone(),
            offsets: args.offsets,
            dense: args.dense,
            histogram: args.histogram,
            stats: args.stats,
            ..RenderOptions::default()
        };
        return decode_schema_or_schemaless(args, bytes, &fopts, &ropts);
    }
    if args.type_name.is_some() {
        return usage("--type goes with --schema or --descriptor-set");
    }
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
        "auto" => {
            io::stdout().is_terminal()
                && std::env::var_os("NO_COLOR").is_none()
                && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
        }
        other => {
            return usage(&format!(
                "--color takes never, always or auto, not {other:?}"
            ));
        }
    };
    let ropts = RenderOptions {
        values,
        dir,
        offsets: args.offsets,
        dense: args.dense,
        color,
        histogram: args.histogram,
        stats: args.stats,
    };
    if args.picture.is_some()
        || args.npy.is_some()
        || args.npy_dir.is_some()
        || args.tensor.is_some()
    {
        return tensor_outputs(args, &decoded, &ropts);
    }
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

/// --schema / --descriptor-set (decode with the user's tables), or --as
/// protobuf: print what was decoded, and for input cut short or corrupt,
/// the fault (exit 1).
fn decode_schema_or_schemaless(
    args: &Args,
    bytes: &[u8],
    fopts: &FormatOptions,
    ropts: &RenderOptions,
) -> io::Result<ExitCode> {
    use pbdecode::user_schema;
    if args.schema.is_some() && args.descriptor_set.is_some() {
        return usage("give --schema or --descriptor-set, not both");
    }
    if !matches!(args.format.as_str(), "auto" | "protobuf") {
        return usage("--schema and --descriptor-set decode as protobuf: leave out --as");
    }
    let loaded = if let Some(path) = &args.schema {
        Some(user_schema::load_proto(path, &args.include))
    } else if let Some(path) = &args.descriptor_set {
        let data = std::fs::read(path)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        Some(
            user_schema::load_descriptor_set(&data)
                .map_err(|e| user_schema::LoadError(format!("{}: {e}", path.display()))),
        )
    } else {
        None
    };
    let user_set = match loaded {
        None => None,
        Some(Ok(set)) => Some(set),
        Some(Err(e)) => {
            eprintln!("decode: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let mut fault = None;
    let decoded = match &user_set {
        Some(set) => {
            let names = user_schema::type_names(set);
            let Some(type_name) = args
                .type_name
                .as_deref()
                .filter(|t| set.find_message(t).is_some())
            else {
                let shown: Vec<&str> = names.iter().copied().take(20).collect();
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
            match user_schema::decode(set, type_name, bytes, fopts.max_depth) {
                Ok(d) => d,
                Err(e) => {
                    eprintln!("decode: {}: not {type_name}: {e}", args.file);
                    return Ok(ExitCode::from(1));
                }
            }
        }
        None => {
            let Some(format) = formats::find("protobuf") else {
                return usage("no protobuf format");
            };
            if bytes.is_empty() {
                eprintln!("decode: {}: not protobuf: the input is empty", args.file);
                return Ok(ExitCode::from(1));
            }
            let opts = pbdecode::schemaless::Options {
                max_depth: fopts.max_depth,
            };
            let tree = pbdecode::schemaless::decode_partial(bytes, 0, opts);
            fault = tree.fault.clone();
            Decoded {
                format,
                body: Body::Schemaless(tree),
            }
        }
    };
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    if args.json {
        json::write_decoded(&mut out, &decoded, ropts)?;
    } else {
        text::write_decoded(&mut out, &decoded, ropts)?;
    }
    out.flush()?;
    if let Some(e) = fault {
        eprintln!("decode: {}: not protobuf: {e}", args.file);
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// Opens the output of --picture or --npy (- is standard output).
fn create_output(path: &Path) -> io::Result<Box<dyn Write>> {
    if path.as_os_str() == "-" {
        return Ok(Box::new(BufWriter::new(io::stdout().lock())));
    }
    let file = File::create(path)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    Ok(Box::new(BufWriter::new(file)))
}

/// Removes a partly written output after a failure (not standard output).
fn discard_output(path: &Path) {
    if path.as_os_str() != "-" {
        let _ = std::fs::remove_file(path);
    }
}

/// Up to ten tensor names, for messages.
fn some_names(tensors: &[npy::NamedTensor<'_, '_>]) -> String {
    let mut names: Vec<String> = tensors
        .iter()
        .take(10)
        .map(|t| format!("{:?}", t.name))
        .collect();
    if tensors.len() > 10 {
        names.push(format!("… {} in all", tensors.len()));
    }
    names.join(", ")
}

/// --picture, --npy, --npy-dir and --tensor: pick the tensor(s), write the
/// files; with --tensor alone, show that tensor.
fn tensor_outputs(
    args: &Args,
    decoded: &Decoded<'_>,
    ropts: &RenderOptions,
) -> io::Result<ExitCode> {
    let set = SchemaSet::builtin();
    let Body::Message { message: root, .. } = &decoded.body else {
        eprintln!(
            "decode: {}: read without a schema, so it has no tensors to pick",
            args.file
        );
        return Ok(ExitCode::from(1));
    };
    let tensors = npy::named_tensors(set, root);
    let dir = ropts.dir.as_deref();
    let single = args.picture.is_some() || args.npy.is_some() || args.npy_dir.is_none();
    if single {
        let chosen = match &args.tensor {
            Some(name) => match tensors.iter().find(|t| &t.name == name) {
                Some(t) => t,
                None if tensors.is_empty() => {
                    eprintln!(
                        "decode: {}: no tensor {name:?}: the file has no tensors",
                        args.file
                    );
                    return Ok(ExitCode::from(1));
                }
                None => {
                    eprintln!(
                        "decode: {}: no tensor {name:?}; tensors: {}",
                        args.file,
                        some_names(&tensors)
                    );
                    return Ok(ExitCode::from(1));
                }
            },
            None => match tensors.iter().find(|t| std::ptr::eq(t.message, root)) {
                Some(t) => t,
                None if tensors.is_empty() => {
                    eprintln!("decode: {}: the file has no tensors", args.file);
                    return Ok(ExitCode::from(1));
                }
                None => {
                    eprintln!(
                        "decode: {}: the file holds {} tensors: name one with --tensor NAME ({})",
                        args.file,
                        tensors.len(),
                        some_names(&tensors)
                    );
                    return Ok(ExitCode::from(2));
                }
            },
        };
        let Some(view) = chosen.view(set) else {
            eprintln!("decode: {}: {:?} is not a tensor", args.file, chosen.name);
            return Ok(ExitCode::from(1));
        };
        let what = if std::ptr::eq(chosen.message, root) {
            args.file.clone()
        } else {
            format!("{}: tensor {:?}", args.file, chosen.name)
        };
        if let Some(path) = &args.picture {
            let pic = match picture::picture(&view, dir) {
                Ok(p) => p,
                Err(picture::PictureError::Io(e)) => return Err(e),
                Err(e) => {
                    eprintln!("decode: {what}: no picture: {e}");
                    return Ok(ExitCode::from(1));
                }
            };
            let mut out = create_output(path)?;
            match pic.write_png(&mut out).and_then(|()| Ok(out.flush()?)) {
                Ok(()) => eprintln!("decode: wrote {}: {}", path.display(), pic.describe()),
                Err(e) => {
                    drop(out);
                    discard_output(path);
                    return Err(io::Error::other(format!("{}: {e}", path.display())));
                }
            }
        }
        if let Some(path) = &args.npy {
            let mut out = create_output(path)?;
            match npy::write_npy(&view, dir, &mut out) {
                Ok(info) => {
                    if let Some(note) = &info.note {
                        eprintln!("decode: note: {note}");
                    }
                    eprintln!(
                        "decode: wrote {}: {} {:?}",
                        path.display(),
                        info.descr,
                        info.shape
                    );
                }
                Err(npy::NpyError::Io(e)) => {
                    drop(out);
                    discard_output(path);
                    return Err(io::Error::new(e.kind(), format!("{}: {e}", path.display())));
                }
                Err(e) => {
                    drop(out);
                    discard_output(path);
                    eprintln!("decode: {what}: {e}");
                    return Ok(ExitCode::from(1));
                }
            }
        }
        if args.picture.is_none() && args.npy.is_none() {
            // --tensor alone: show that tensor as the root.
            let stdout = io::stdout();
            let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
            let full_name = &chosen.message.def(set).full_name;
            if args.json {
                write!(out, "{{\"format\": ")?;
                json::string(&mut out, decoded.format.id)?;
                write!(out, ", \"type\": ")?;
                json::string(&mut out, full_name)?;
                write!(out, ", \"tensor\": ")?;
                json::string(&mut out, &chosen.name)?;
                write!(out, ", \"value\": ")?;
                json::write_root_message(&mut out, set, chosen.message, ropts)?;
                writeln!(out, "}}")?;
            } else {
                writeln!(
                    out,
                    "format: {} ({})",
                    decoded.format.id, decoded.format.title
                )?;
                writeln!(out, "tensor: {:?}  ({full_name})", chosen.name)?;
                writeln!(out)?;
                text::tensor_block(&mut out, set, chosen.message, 0, ropts, true)?;
            }
            out.flush()?;
        }
    }
    let Some(out_dir) = &args.npy_dir else {
        return Ok(ExitCode::SUCCESS);
    };
    let export = npy::export_set(tensors);
    if export.is_empty() {
        eprintln!("decode: {}: the file has no tensors to export", args.file);
        return Ok(ExitCode::from(1));
    }
    std::fs::create_dir_all(out_dir)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", out_dir.display())))?;
    let mut used = HashSet::new();
    let mut notes: BTreeMap<String, u64> = BTreeMap::new();
    let (mut written, mut failed) = (0u64, 0u64);
    for t in &export {
        let Some(view) = t.view(set) else { continue };
        let path = out_dir.join(npy::file_name(&t.name, &mut used));
        let mut out = create_output(&path)?;
        match npy::write_npy(&view, dir, &mut out) {
            Ok(info) => {
                written += 1;
                if let Some(note) = info.note {
                    *notes.entry(note).or_default() += 1;
                }
            }
            Err(npy::NpyError::Io(e)) => {
                drop(out);
                discard_output(&path);
                return Err(io::Error::new(e.kind(), format!("{}: {e}", path.display())));
            }
            Err(e) => {
                drop(out);
                discard_output(&path);
                failed += 1;
                eprintln!(
                    "decode: {}: tensor {:?} not written: {e}",
                    args.file, t.name
                );
            }
        }
    }
    for (note, n) in &notes {
        let files = if *n == 1 { "file" } else { "files" };
        eprintln!("decode: note: {note} ({n} {files})");
    }
    eprintln!(
        "decode: wrote {written} of {} tensors to {}",
        export.len(),
        out_dir.display()
    );
    Ok(if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
