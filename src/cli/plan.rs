//! What a `decode` command line asks for, decided from the flags given
//! before any file is read: one [`Mode`], and for each mode the flags it
//! reads. A flag given that the chosen mode would not read is refused
//! (exit 2), so a command never ends well having quietly done less than
//! asked (a decoding with `--schema` writes no tensors: `--npy` beside it
//! is refused rather than left unwritten).
//!
//! The tables are data, free of clap and of the library: `src/cli/args.rs`
//! turns clap's matches into the flags given, and `tests/it/cli_plan.rs`
//! includes this file to run every (mode, flag it does not read) pair.

/// A flag of `decode` (`serve` and `diff` have their own).
#[derive(Debug, PartialEq, Eq)]
pub struct Flag {
    /// clap's id of the argument (its field in `Args`).
    pub id: &'static str,
    /// As typed: `--npy-dir`, `-I`.
    pub name: &'static str,
}

const fn flag(id: &'static str, name: &'static str) -> Flag {
    Flag { id, name }
}

/// Every flag of `decode`, in `--help` order (a unit test of the binary
/// compares it with the arguments clap knows).
pub const FLAGS: &[Flag] = &[
    flag("recursive", "--recursive"),
    flag("jsonl", "--jsonl"),
    flag("model", "--model"),
    flag("strict", "--strict"),
    flag("format", "--as"),
    flag("json", "--json"),
    flag("values", "--values"),
    flag("offsets", "--offsets"),
    flag("max_depth", "--max-depth"),
    flag("schema", "--schema"),
    flag("descriptor_set", "--descriptor-set"),
    flag("type_name", "--type"),
    flag("include", "-I"),
    flag("dump_schema", "--dump-schema"),
    flag("dense", "--dense"),
    flag("stats", "--stats"),
    flag("color", "--color"),
    flag("histogram", "--histogram"),
    flag("allow_implied", "--allow-implied"),
    flag("picture", "--picture"),
    flag("tensor", "--tensor"),
    flag("npy", "--npy"),
    flag("npy_dir", "--npy-dir"),
    flag("force", "--force"),
    flag("graph", "--graph"),
    flag("graph_id", "--graph-id"),
    flag("fold", "--fold"),
    flag("output", "--output"),
];

/// The flag of that id.
pub fn flag_named(id: &str) -> Option<&'static Flag> {
    FLAGS.iter().find(|f| f.id == id)
}

/// When a mode reads a flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    Always,
    /// Only beside one of these flags (`--force` writes over files of
    /// `--npy-dir` only).
    With(&'static [&'static str]),
    /// Not beside this flag (`--histogram` draws in the text view, not in
    /// `--json`).
    Without(&'static str),
}

/// What a command line does; [`mode`] picks one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `--dump-schema`: print the schema read from --schema/--descriptor-set.
    DumpSchema,
    /// Several files or `-r`: a table, one row per file.
    Batch,
    /// Several files or `-r` with `--jsonl` or `--json`: a JSON line per file.
    BatchJsonLines,
    /// An ONNX test folder (or one of its test_data_set_N folders).
    TestFolder,
    /// A user schema (--schema, --descriptor-set) or `--as protobuf`.
    Schema,
    /// `--tensor` alone: that tensor shown.
    ShowTensor,
    /// `--picture`, `--npy` or `--npy-dir`: files written.
    WriteTensors,
    /// `--graph`: the model's graph drawn.
    Graph,
    /// The file detected (or read as --as says) and printed.
    View,
}

use When::{Always, With, Without};

/// The render options of a view, all read by the text view; the JSON view
/// draws no histogram and no colour.
const VIEW: &[(&str, When)] = &[
    ("json", Always),
    ("values", Always),
    ("dense", Always),
    ("stats", Always),
    ("allow_implied", Always),
    ("histogram", Without("json")),
    ("color", Without("json")),
];

impl Mode {
    /// Every mode.
    #[allow(dead_code)] // read by the tests
    pub const ALL: [Mode; 9] = [
        Mode::DumpSchema,
        Mode::Batch,
        Mode::BatchJsonLines,
        Mode::TestFolder,
        Mode::Schema,
        Mode::ShowTensor,
        Mode::WriteTensors,
        Mode::Graph,
        Mode::View,
    ];

    /// What it is called in messages.
    pub fn name(self) -> &'static str {
        match self {
            Mode::DumpSchema => "--dump-schema",
            Mode::Batch => "a batch table (several files or -r)",
            Mode::BatchJsonLines => "a batch in JSON Lines (several files or -r, with --jsonl)",
            Mode::TestFolder => "a test folder",
            Mode::Schema => "decoding with --schema, --descriptor-set or --as protobuf",
            Mode::ShowTensor => "--tensor shown alone",
            Mode::WriteTensors => "writing tensors (--picture, --npy, --npy-dir)",
            Mode::Graph => "drawing a graph (--graph)",
            Mode::View => "the view of one file",
        }
    }

    /// The flags it reads besides [`VIEW`]'s, and when.
    fn own(self) -> &'static [(&'static str, When)] {
        match self {
            Mode::DumpSchema => &[
                ("dump_schema", Always),
                ("schema", Always),
                ("descriptor_set", Always),
                ("include", With(&["schema"])),
                ("json", Always),
            ],
            Mode::Batch => &[
                ("recursive", Always),
                ("model", Always),
                ("strict", Always),
                ("max_depth", Always),
            ],
            Mode::BatchJsonLines => &[
                ("recursive", Always),
                ("jsonl", Always),
                ("json", Always),
                ("model", Always),
                ("strict", Always),
                ("max_depth", Always),
                ("values", Always),
                ("stats", Always),
            ],
            Mode::TestFolder => &[
                ("model", Always),
                ("strict", Always),
                ("max_depth", Always),
                ("values", Always),
                ("json", Always),
            ],
            Mode::Schema => &[
                ("schema", Always),
                ("descriptor_set", Always),
                ("include", With(&["schema"])),
                ("type_name", With(&["schema", "descriptor_set"])),
                ("format", Always),
                ("offsets", Always),
                ("max_depth", Always),
            ],
            Mode::ShowTensor => &[
                ("tensor", Always),
                ("format", Always),
                ("model", Always),
                ("max_depth", Always),
            ],
            Mode::WriteTensors => &[
                ("picture", Always),
                ("npy", Always),
                ("npy_dir", Always),
                ("force", With(&["npy_dir"])),
                ("allow_implied", With(&["npy", "npy_dir"])),
                ("tensor", Always),
                ("format", Always),
                ("model", Always),
                ("max_depth", Always),
            ],
            Mode::Graph => &[
                ("graph", Always),
                ("graph_id", Always),
                ("fold", Always),
                ("output", Always),
                ("format", Always),
                ("max_depth", Always),
            ],
            Mode::View => &[
                ("format", Always),
                ("model", Always),
                ("strict", Always),
                ("offsets", Always),
                ("max_depth", Always),
            ],
        }
    }

    /// Whether its output is a view of decoded values (with [`VIEW`]'s
    /// options).
    fn is_view(self) -> bool {
        matches!(self, Mode::Schema | Mode::ShowTensor | Mode::View)
    }

    /// When it reads flag `id` (None: never).
    pub fn reads(self, id: &str) -> Option<When> {
        let view: &[(&str, When)] = if self.is_view() { VIEW } else { &[] };
        self.own()
            .iter()
            .chain(view)
            .find(|(f, _)| *f == id)
            .map(|&(_, when)| when)
    }

    /// The first flag of `given` (ids) that it would not read, and why.
    pub fn first_unread(self, given: &[&str]) -> Option<Unread> {
        let has = |id: &str| given.contains(&id);
        given.iter().find_map(|&id| {
            let flag = flag_named(id)?;
            match self.reads(id) {
                None => Some(Unread {
                    flag,
                    mode: self,
                    when: None,
                }),
                Some(Always) => None,
                Some(w @ With(others)) if !others.iter().any(|o| has(o)) => Some(Unread {
                    flag,
                    mode: self,
                    when: Some(w),
                }),
                Some(w @ Without(other)) if has(other) => Some(Unread {
                    flag,
                    mode: self,
                    when: Some(w),
                }),
                Some(_) => None,
            }
        })
    }
}

/// A flag the chosen mode would not read.
#[derive(Debug)]
pub struct Unread {
    pub flag: &'static Flag,
    pub mode: Mode,
    /// The condition it is read under, when there is one.
    pub when: Option<When>,
}

impl Unread {
    /// The one-line message (after `decode: `).
    pub fn message(&self) -> String {
        let names = |ids: &[&str]| {
            ids.iter()
                .filter_map(|id| flag_named(id))
                .map(|f| f.name)
                .collect::<Vec<_>>()
                .join(" or ")
        };
        let condition = match self.when {
            Some(With(ids)) => format!(" without {}", names(ids)),
            Some(Without(id)) => format!(" with {}", names(&[id])),
            Some(Always) | None => String::new(),
        };
        format!(
            "{} is not used by {}{condition}: leave it out",
            self.flag.name,
            self.mode.name()
        )
    }
}

/// What decides the mode: the flags given (ids) and the files named.
#[derive(Debug)]
pub struct Selection<'a> {
    pub given: &'a [&'a str],
    /// How many files (FILE and MORE) are named.
    pub files: usize,
    /// Whether the one file named is a folder.
    pub folder: bool,
    /// Whether `--as` names the schemaless reading (`--as protobuf`).
    pub as_schemaless: bool,
}

/// The mode of a command line.
pub fn mode(s: &Selection<'_>) -> Mode {
    let has = |id: &str| s.given.contains(&id);
    let tensor_files = has("picture") || has("npy") || has("npy_dir");
    let tensors = tensor_files || has("tensor");
    if has("dump_schema") {
        Mode::DumpSchema
    } else if has("graph") {
        Mode::Graph
    } else if has("recursive") || has("jsonl") || s.files > 1 {
        if has("jsonl") || has("json") {
            Mode::BatchJsonLines
        } else {
            Mode::Batch
        }
    } else if s.folder {
        Mode::TestFolder
    } else if has("schema") || has("descriptor_set") || (s.as_schemaless && !tensors) {
        Mode::Schema
    } else if tensor_files {
        Mode::WriteTensors
    } else if tensors {
        Mode::ShowTensor
    } else {
        Mode::View
    }
}

/// The tests' values of the flags (in the unit tests, which may name
/// format ids).
#[cfg(test)]
pub(crate) use tests::sample;

#[cfg(test)]
mod tests {
    use super::*;

    /// A value flag `id` accepts other than its default (None for a
    /// switch), for the tests that give it; a flag added without one fails
    /// them.
    pub(crate) fn sample(id: &str) -> Option<&'static str> {
        match id {
            "recursive" => None,
            "jsonl" => None,
            "model" => Some("m.onnx"),
            "strict" => None,
            "format" => Some("onnx-tensor"),
            "json" => None,
            "values" => Some("3"),
            "offsets" => None,
            "max_depth" => Some("7"),
            "schema" => Some("s.proto"),
            "descriptor_set" => Some("d.pb"),
            "type_name" => Some("T"),
            "include" => Some("inc"),
            "dump_schema" => None,
            "dense" => None,
            "stats" => None,
            "color" => Some("always"),
            "histogram" => None,
            "allow_implied" => None,
            "picture" => Some("p.png"),
            "tensor" => Some("t"),
            "npy" => Some("x.npy"),
            "npy_dir" => Some("out"),
            "force" => None,
            "graph" => Some("svg"),
            "graph_id" => Some("1"),
            "fold" => Some("all"),
            "output" => Some("g.svg"),
            _ => panic!("no sample value for the flag {id}"),
        }
    }

    /// Every flag a mode reads, or reads beside, is in [`FLAGS`], and
    /// every flag is read by some mode.
    #[test]
    fn the_modes_name_flags_of_the_table() {
        let mut named = Vec::new();
        for mode in Mode::ALL {
            let view: &[(&str, When)] = if mode.is_view() { VIEW } else { &[] };
            for (id, when) in mode.own().iter().chain(view) {
                named.push(*id);
                let others: &[&str] = match when {
                    When::Always => &[],
                    When::With(ids) => ids,
                    When::Without(id) => std::slice::from_ref(id),
                };
                for o in std::iter::once(id).chain(others) {
                    assert!(flag_named(o).is_some(), "{mode:?}: {o}");
                }
            }
        }
        for f in FLAGS {
            assert!(named.contains(&f.id), "no mode reads {}", f.name);
        }
    }
}
