//! The arguments as clap parses them (the low level), and what they ask
//! for (the high level: [`Args::plan`], one mode from the tables of
//! [`super::plan`], or a usage error naming a flag the mode would not
//! read).

use super::convert::ConvertArgs;
use super::plan::{self, Mode};
use super::serve::ServeArgs;
use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory, Parser, Subcommand};
use pbdecode::diff;
use pbdecode::formats::AsFormat;
use pbdecode::render::RenderOptions;
use std::io::{self, IsTerminal};
use std::path::{Path, PathBuf};

/// The first line of `decode --help`: every format family it reads.
pub(crate) const ABOUT: &str = "Decode the files of machine learning: ONNX (tensors, sequences, maps, sparse tensors, models, test data), TensorFlow (SavedModels, GraphDefs, checkpoints, TFRecord and event files), PaddlePaddle programs, and any Protocol Buffers message, with your .proto schema or without one; binary or protobuf text format (.pbtxt, .prototxt).";

/// What `decode` alone prints (exit 2).
pub(crate) const SHORT_USAGE: &str =
    "decode: shows what is in the files of machine learning (ONNX, TensorFlow, any protobuf)

usage: decode [OPTIONS] FILE|-           a file's format, summary, fields and tensors
       decode serve [PATH...]            the explorer: a local web page, with a Graph tab
       decode diff EXPECTED ACTUAL       do two tensors, models or folders agree
       decode convert IN OUT             binary to protobuf text format, or back

decode --help lists every option; decode serve --help, decode diff --help and decode convert --help their own.";

/// The headings `decode --help` groups its options under.
const INPUT: &str = "Input";
const OUTPUT: &str = "Output";
const TENSORS: &str = "Tensors and export";
const GRAPHS: &str = "Graphs";
const TESTDATA: &str = "Test data";
const SCHEMAS: &str = "Schemas";

#[derive(Parser, Debug)]
#[command(
    name = "decode",
    version,
    about = ABOUT,
    after_help = "The explorer, a local web page for the same files: decode serve [PATH...] (decode serve --help). Conversion between binary and protobuf's text format: decode convert IN OUT.",
    // `serve` and `diff` are commands only as the first argument: after
    // any other, a file or folder of that name (`decode -r diff`).
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    // `decode help` decodes a file named help.
    disable_help_subcommand = true
)]
pub struct Args {
    /// `serve` or `diff`; None: decode.
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
    /// The file to decode, or - for standard input; a test folder (with
    /// model.onnx) or one of its test_data_set_N folders.
    #[arg(
        required_unless_present = "dump_schema",
        default_value = "",
        hide_default_value = true
    )]
    pub(crate) file: String,
    /// More files: decoded as a batch (a table, or JSON Lines with --jsonl).
    pub(crate) more: Vec<String>,
    /// Decode every file under the folder(s), as a batch.
    #[arg(help_heading = INPUT, short = 'r', long)]
    pub(crate) recursive: bool,
    /// JSON Lines: in a batch (several files, -r) one object per file
    /// (with "file"); a record file named alone, a line per record between
    /// a first line on the file and a last with its summary.
    #[arg(help_heading = OUTPUT, long)]
    pub(crate) jsonl: bool,
    /// The format to read the file as: auto (detect it) or a format id;
    /// the ids are listed in the order detection tries them.
    #[arg(help_heading = INPUT, long = "as", default_value = AsFormat::AUTO, value_name = "FORMAT", value_parser = super::convert::as_format())]
    pub(crate) format: AsFormat,
    /// Print JSON instead of text.
    #[arg(help_heading = OUTPUT, long)]
    pub(crate) json: bool,
    /// How many values of each tensor to print: a number or `all`.
    /// Default: all in JSON; a preview in text.
    #[arg(help_heading = OUTPUT, long, value_name = "N|all", value_parser = parse_values)]
    pub(crate) values: Option<u64>,
    /// Show each field's byte range (schemaless reading).
    #[arg(help_heading = OUTPUT, long)]
    pub(crate) offsets: bool,
    /// Nesting limit of the schemaless reading.
    #[arg(help_heading = INPUT, long, default_value_t = pbdecode::schemaless::DEFAULT_MAX_DEPTH)]
    pub(crate) max_depth: u32,
    /// Sparse tensors: also show the dense tensor.
    #[arg(help_heading = OUTPUT, long)]
    pub(crate) dense: bool,
    /// Statistics for every tensor of a model, not only the ones printed in
    /// full (reads every value).
    #[arg(help_heading = OUTPUT, long)]
    pub(crate) stats: bool,
    /// Colour previews of image-shaped tensors: never, always, or auto (when
    /// standard output is a colour terminal).
    #[arg(help_heading = OUTPUT, long, value_enum, default_value_t = Color::Auto, value_name = "WHEN")]
    pub(crate) color: Color,
    /// Add a text histogram to each numeric tensor.
    #[arg(help_heading = OUTPUT, long)]
    pub(crate) histogram: bool,
    /// Print every value implied by TensorFlow's padding rule (a short typed
    /// field repeats its last value up to the shape; at most 1,048,576 are
    /// printed without it), and write .npy files of such tensors over 1 GiB.
    #[arg(help_heading = OUTPUT, long)]
    pub(crate) allow_implied: bool,
    /// Draw an image-shaped tensor as a PNG file (- for standard output);
    /// in a model or sequence, name it with --tensor. In a record file,
    /// write a picture a record holds as it is stored.
    #[arg(help_heading = TENSORS, long, value_name = "OUT.png")]
    pub(crate) picture: Option<PathBuf>,
    // The help as an attribute: rustdoc would take `[T]` for a link.
    #[arg(
        help_heading = TENSORS,
        long,
        value_name = "NAME",
        help = "The tensor to draw, export or show, by name (an ONNX tensor's name, a \
                TensorFlow Const node's name; a record file's picture, record/K/NAME or \
                record/K/LIST[T] for a feature list's step T)"
    )]
    pub(crate) tensor: Option<String>,
    /// Write the tensor as a NumPy .npy file (- for standard output).
    #[arg(help_heading = TENSORS, long, value_name = "OUT.npy")]
    pub(crate) npy: Option<PathBuf>,
    /// Write every initializer of a model (Const values of a TensorFlow
    /// graph; every tensor of a file that has neither) as DIR/NAME.npy.
    #[arg(help_heading = TENSORS, long, value_name = "DIR")]
    pub(crate) npy_dir: Option<PathBuf>,
    /// With --npy-dir: replace files that already exist in DIR (refused
    /// otherwise).
    #[arg(help_heading = TENSORS, long)]
    pub(crate) force: bool,
    /// Draw the model's graph (ONNX, TensorFlow GraphDef or SavedModel) as
    /// Graphviz DOT or as SVG (the explorer's layout), to standard output
    /// or --output.
    #[arg(help_heading = GRAPHS, long, value_enum, value_name = "dot|svg")]
    pub(crate) graph: Option<GraphFormat>,
    /// With --graph: which graph, by id (0 the main graph; subgraphs and
    /// functions as the explorer's Graph tab lists them).
    #[arg(help_heading = GRAPHS, long, value_name = "ID")]
    pub(crate) graph_id: Option<usize>,
    /// With --graph: fold name-scope groups into one box each: auto (when
    /// the graph has more than 1,500 nodes), none or all.
    #[arg(help_heading = GRAPHS, long, value_enum, default_value_t = FoldArg::Auto, value_name = "WHEN")]
    pub(crate) fold: FoldArg,
    /// With --graph: the file to write (- for standard output, the default).
    #[arg(help_heading = GRAPHS, short = 'o', long, value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,
    /// Read tensor files as test data of this model (the default: the
    /// model.onnx beside a test_data_set_N folder).
    #[arg(help_heading = TESTDATA, long, value_name = "FILE.onnx")]
    pub(crate) model: Option<PathBuf>,
    /// A value that does not match the model's declared type is an error
    /// (exit 1), not a warning.
    #[arg(help_heading = TESTDATA, long)]
    pub(crate) strict: bool,
    /// Decode with this .proto schema (name the message with --type);
    /// imports are found in the -I folders, then in its folder.
    #[arg(help_heading = SCHEMAS, long, value_name = "FILE.proto")]
    pub(crate) schema: Option<PathBuf>,
    /// Decode with a FileDescriptorSet (as `protoc -o FILE` writes).
    #[arg(help_heading = SCHEMAS, long, value_name = "FILE")]
    pub(crate) descriptor_set: Option<PathBuf>,
    /// The message to decode with --schema or --descriptor-set (full name,
    /// e.g. pkg.Message).
    #[arg(help_heading = SCHEMAS, long = "type", value_name = "NAME")]
    pub(crate) type_name: Option<String>,
    /// A folder to look for imported .proto files in (repeatable).
    #[arg(help_heading = SCHEMAS, short = 'I', value_name = "DIR")]
    pub(crate) include: Vec<PathBuf>,
    /// Print the schema read from --schema or --descriptor-set (every
    /// message's fields, numbers, types, labels, packedness; --json for
    /// JSON) instead of decoding a file.
    #[arg(help_heading = SCHEMAS, long)]
    pub(crate) dump_schema: bool,
}

/// `--graph`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GraphFormat {
    Dot,
    Svg,
}

/// `--fold`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FoldArg {
    Auto,
    None,
    All,
}

/// `--values`: a number, or `all` (every value).
pub(crate) fn parse_values(s: &str) -> Result<u64, String> {
    match s {
        "all" => Ok(u64::MAX),
        n => n
            .parse::<u64>()
            .map_err(|_| "a number or `all` is expected".to_string()),
    }
}

/// `--color`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Color {
    Never,
    Always,
    Auto,
}

/// The commands besides decoding, each with arguments of its own.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// `decode serve [PATH...]`.
    #[command(
        about = "Open the explorer: a local web page that shows a file's shape, type, every value and its picture, and a model's graph in its Graph tab. Prints the address to open (with its access token)."
    )]
    Serve(ServeArgs),
    /// `decode diff EXPECTED ACTUAL`.
    #[command(
        about = "Compare two tensor files (sequences, maps, optionals element by element), two models (initializers and nodes), or two folders file by file, as ONNX's backend tests do: |actual - expected| <= atol + rtol * |expected|, NaN equal to NaN."
    )]
    Diff(DiffArgs),
    /// `decode convert IN OUT`.
    #[command(
        about = "Write a protobuf file in the other syntax through the same schema tables: binary to protobuf's text format (.pbtxt, .prototxt, .textproto: as protobuf's Python runtime writes it), text to binary (as protobuf's serializers write it). OUT's extension says which, or --to; - is standard input or output."
    )]
    Convert(ConvertArgs),
}

/// The arguments of `decode diff` (its help text is the doc comment of
/// `Command::Diff`).
#[derive(clap::Args, Debug)]
pub struct DiffArgs {
    /// The expected file or folder (the reference output).
    pub(crate) expected: PathBuf,
    /// The actual file or folder (your runtime's output).
    pub(crate) actual: PathBuf,
    /// Relative tolerance (onnx's runner: 1e-3).
    #[arg(long, default_value_t = diff::DEFAULT_RTOL)]
    pub(crate) rtol: f64,
    /// Absolute tolerance (onnx's runner: 1e-7).
    #[arg(long, default_value_t = diff::DEFAULT_ATOL)]
    pub(crate) atol: f64,
    /// How many mismatching elements to list: a number or `all`.
    #[arg(long, default_value = "10", value_name = "K|all", value_parser = parse_values)]
    pub(crate) values: u64,
    /// Print JSON (JSON Lines for folders).
    #[arg(long)]
    pub(crate) json: bool,
    /// Draw |actual - expected| of two image-shaped tensors as a PNG.
    #[arg(long, value_name = "OUT.png")]
    pub(crate) picture: Option<PathBuf>,
}

/// The flags given on the command line (clap ids, in `--help` order),
/// leaving out those whose value is their default (`--as auto`): they
/// ask for nothing a mode could leave undone.
pub(crate) fn given(matches: &ArgMatches) -> Vec<&'static str> {
    let cmd = Args::command();
    plan::FLAGS
        .iter()
        .filter(|f| matches.value_source(f.id) == Some(ValueSource::CommandLine))
        .filter(|f| {
            let default: Vec<&std::ffi::OsStr> = cmd
                .get_arguments()
                .find(|a| a.get_id() == f.id)
                .map(|a| {
                    a.get_default_values()
                        .iter()
                        .map(|v| v.as_os_str())
                        .collect()
                })
                .unwrap_or_default();
            let raw: Vec<&std::ffi::OsStr> = matches
                .get_raw(f.id)
                .map(|v| v.collect())
                .unwrap_or_default();
            default.is_empty() || raw != default
        })
        .map(|f| f.id)
        .collect()
}

impl Args {
    /// The mode of the command line, or the message of a usage error: a
    /// flag given that the mode would not read.
    pub(crate) fn plan(&self, given: &[&str]) -> Result<Mode, String> {
        let mode = plan::mode(&plan::Selection {
            given,
            files: usize::from(!self.file.is_empty()) + self.more.len(),
            folder: self.file != "-" && Path::new(&self.file).is_dir(),
            as_schemaless: self.format.is_schemaless(),
        });
        match mode.first_unread(given) {
            Some(unread) => Err(unread.message()),
            None => Ok(mode),
        }
    }

    /// How to render, from the arguments (`dir`: the input's folder, where
    /// external data is looked for).
    pub(crate) fn render_options(&self, dir: Option<PathBuf>) -> RenderOptions {
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
            dir: dir.map(pbdecode::Folder::Disk),
            offsets: self.offsets,
            dense: self.dense,
            color,
            histogram: self.histogram,
            stats: self.stats,
            allow_implied: self.allow_implied,
            progress: super::progress::handle(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plan's table of flags is clap's list of options, in order, each
    /// spelled as typed: a flag added to `Args` fails here until the plan
    /// says which modes read it.
    #[test]
    fn the_plan_knows_every_flag_clap_parses() {
        let cmd = Args::command();
        let parsed: Vec<(String, String)> = cmd
            .get_arguments()
            .filter(|a| !a.is_positional() && !matches!(a.get_id().as_str(), "help" | "version"))
            .map(|a| {
                let name = match (a.get_long(), a.get_short()) {
                    (Some(long), _) => format!("--{long}"),
                    (None, Some(short)) => format!("-{short}"),
                    (None, None) => String::new(),
                };
                (a.get_id().to_string(), name)
            })
            .collect();
        let mut planned: Vec<(String, String)> = plan::FLAGS
            .iter()
            .map(|f| (f.id.to_string(), f.name.to_string()))
            .collect();
        // `--help` orders the flags by heading; the plan by what reads them.
        let mut parsed = parsed;
        parsed.sort();
        planned.sort();
        assert_eq!(parsed, planned);
        // Each sample parses, and is not the default.
        for f in plan::FLAGS {
            let mut argv = vec!["decode", f.name];
            argv.extend(plan::sample(f.id));
            argv.push("x.pb");
            let m = Args::command()
                .try_get_matches_from(&argv)
                .unwrap_or_else(|e| panic!("{argv:?}: {e}"));
            assert_eq!(given(&m), [f.id], "{argv:?}");
        }
    }

    #[test]
    fn a_default_value_given_asks_for_nothing() {
        let m = Args::command()
            .try_get_matches_from(["decode", "--as", "auto", "--color", "auto", "-r", "x"])
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(given(&m), ["recursive"]);
    }

    /// `serve` and `diff` are commands as the first argument only; after
    /// another argument they are files (`decode -r diff`).
    #[test]
    fn commands_come_first() {
        let parse =
            |argv: &[&str]| Args::try_parse_from(argv).unwrap_or_else(|e| panic!("{argv:?}: {e}"));
        assert!(matches!(
            parse(&["decode", "diff", "a", "b"]).command,
            Some(Command::Diff(_))
        ));
        assert!(matches!(
            parse(&["decode", "serve"]).command,
            Some(Command::Serve(_))
        ));
        let files = parse(&["decode", "-r", "--jsonl", "diff", "serve"]);
        assert!(files.command.is_none());
        assert_eq!(
            (files.file.as_str(), &files.more[..]),
            ("diff", &["serve".to_string()][..])
        );
        assert!(parse(&["decode", "help"]).command.is_none());
    }
}
