//! The command line refuses what it would ignore: for every mode of the
//! plan (`src/cli/plan.rs`, included here) and every flag of its table
//! that the mode does not read, `decode` exits 2 before reading a file,
//! says so in one line naming the flag and the mode, and writes nothing.
//! The pairs come from the plan's own tables, so a new flag or mode is
//! covered as soon as it is in them.
//!
//! What this suite checks, in full: every flag a mode does not read refused (exit 2, one line naming
//! the flag and the mode, nothing written), the pairs generated from the
//! plan's tables (`src/cli/plan.rs`, whose flag table a unit test of the
//! binary compares with clap's).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

#[path = "../../src/cli/plan.rs"]
#[allow(dead_code)]
mod plan;

use plan::{FLAGS, Flag, Mode, Selection};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A command line of one mode: flags (with their values) and files.
struct Base {
    flags: &'static [&'static str],
    files: &'static [&'static str],
    folder: bool,
}

const fn base(flags: &'static [&'static str], files: &'static [&'static str]) -> Base {
    Base {
        flags,
        files,
        folder: false,
    }
}

/// Command lines that choose `mode` (every mode has some: a new mode
/// fails to compile here until it has).
fn bases(mode: Mode) -> Vec<Base> {
    match mode {
        Mode::DumpSchema => vec![base(&["--dump-schema", "--schema", "s.proto"], &[])],
        Mode::Batch => vec![
            base(&[], &["x.pb", "y.pb"]),
            base(&["--recursive"], &["folder"]),
        ],
        Mode::BatchJsonLines => vec![
            base(&["--jsonl"], &["x.pb", "y.pb"]),
            base(&["--json"], &["x.pb", "y.pb"]),
        ],
        Mode::TestFolder => vec![Base {
            flags: &[],
            files: &["folder"],
            folder: true,
        }],
        Mode::Schema => vec![
            base(&["--as", "protobuf"], &["x.pb"]),
            base(&["--schema", "s.proto", "--type", "T"], &["x.pb"]),
            base(&["--descriptor-set", "d.pb", "--type", "T"], &["x.pb"]),
        ],
        Mode::ShowTensor => vec![base(&["--tensor", "t"], &["x.pb"])],
        Mode::WriteTensors => vec![
            base(&["--npy", "x.npy"], &["x.pb"]),
            base(&["--picture", "p.png"], &["x.pb"]),
            base(&["--npy-dir", "out"], &["x.pb"]),
        ],
        Mode::Graph => vec![base(&["--graph", "dot"], &["x.pb"])],
        Mode::View => vec![base(&[], &["x.pb"])],
    }
}

/// The flag ids a list of flags and values gives.
fn ids(flags: &[&str]) -> Vec<&'static str> {
    flags
        .iter()
        .filter_map(|a| FLAGS.iter().find(|f| f.name == *a))
        .map(|f| f.id)
        .collect()
}

fn selection<'a>(given: &'a [&'a str], b: &Base, flags: &[&str]) -> Selection<'a> {
    Selection {
        given,
        files: b.files.len(),
        folder: b.folder,
        as_schemaless: flags.windows(2).any(|w| w == ["--as", "protobuf"]),
    }
}

fn listing(dir: &Path) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p.clone());
            }
            out.insert(p);
        }
    }
    out
}

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_decode"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run decode")
}

#[test]
fn every_flag_a_mode_does_not_read_is_refused() {
    let dir = std::env::temp_dir().join(format!("pbdecode-cli-plan-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("folder")).unwrap();
    // Real inputs, so that a flag not refused would be acted on.
    let tensor = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/example_x_3x4x5.pb");
    for name in ["x.pb", "y.pb", "folder/x.pb"] {
        std::fs::copy(&tensor, dir.join(name)).unwrap();
    }
    let before = listing(&dir);
    let mut pairs = BTreeSet::new();
    for mode in Mode::ALL {
        for b in bases(mode) {
            // With and without --json where the mode reads it.
            let mut variants = vec![b.flags.to_vec()];
            if !b.flags.contains(&"--json") && mode.reads("json").is_some() {
                variants.push([b.flags, &["--json"]].concat());
            }
            for flags in variants {
                let given = ids(&flags);
                let s = selection(&given, &b, &flags);
                assert_eq!(plan::mode(&s), mode, "{flags:?} {:?}", b.files);
                assert!(mode.first_unread(&given).is_none(), "{flags:?}");
                for f in FLAGS.iter().filter(|f| !given.contains(&f.id)) {
                    let with: Vec<&str> = given.iter().copied().chain([f.id]).collect();
                    let s = selection(&with, &b, &flags);
                    // A flag that selects another mode is that mode's.
                    if plan::mode(&s) != mode {
                        continue;
                    }
                    let Some(unread) = mode.first_unread(&with) else {
                        continue;
                    };
                    assert_eq!(unread.flag, f);
                    check_refused(&dir, &flags, f, b.files, &unread.message());
                    pairs.insert((format!("{mode:?}"), f.name));
                    assert_eq!(listing(&dir), before, "{flags:?} {}", f.name);
                }
            }
        }
    }
    // Every mode refuses some flag, and the pairs are many.
    for mode in Mode::ALL {
        assert!(
            pairs.iter().any(|(m, _)| *m == format!("{mode:?}")),
            "{mode:?}"
        );
    }
    assert!(pairs.len() >= 80, "{}", pairs.len());
    std::fs::remove_dir_all(&dir).ok();
}

/// `decode FLAGS F [SAMPLE] FILES` exits 2 with `message` alone on
/// stderr and nothing on stdout.
fn check_refused(dir: &Path, flags: &[&str], f: &Flag, files: &[&str], message: &str) {
    let mut args = flags.to_vec();
    args.push(f.name);
    args.extend(plan::sample(f.id));
    args.extend(files);
    let o = run(dir, &args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err, format!("decode: {message}\n"), "{args:?}");
    assert!(err.contains(f.name), "{args:?}: {err}");
    assert!(o.stdout.is_empty(), "{args:?}");
}

/// The example of the plan's doc: a decoding with a schema writes no
/// tensors, so `--npy` beside it is refused, and no .npy appears.
#[test]
fn a_schema_decoding_refuses_npy() {
    let dir = std::env::temp_dir().join(format!("pbdecode-cli-plan-npy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tensor = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/example_x_3x4x5.pb");
    let onnx = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/onnx.proto");
    let o = run(
        &dir,
        &[
            "--schema",
            onnx.to_str().unwrap(),
            "--type",
            "onnx.TensorProto",
            "--npy",
            "x.npy",
            tensor.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "decode: --npy is not used by decoding with --schema, --descriptor-set or --as protobuf: leave it out\n"
    );
    assert!(o.stdout.is_empty());
    assert!(!dir.join("x.npy").exists());
    std::fs::remove_dir_all(&dir).ok();
}
