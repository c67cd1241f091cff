//! ONNX test data as its users work with it (tests/fixtures/onnx-testdata,
//! made by scripts/make_testdata_fixtures.py): test folders read with their
//! model, files named by it and checked against the declared types;
//! `decode diff` reports and exit codes; batches of many files.
//!
//! What this suite checks, in full: the test folders of `tests/fixtures/onnx-testdata` (a tensor
//! test with an initializer input, optional, sequence and map tests, one
//! whose data does not match its declaration): folder views, per-file
//! naming and JSON, `--strict`, `--model`; `decode diff` reports
//! (identical, within and out of tolerance, shape and type mismatch, NaN
//! positions, strings, sequences, models, data sets, the picture) and exit
//! codes; batches (each line equal to the single-file JSON, the table,
//! failures as lines).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use crate::common;

use common::json::{self, Json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/onnx-testdata")
}

/// Runs decode in the fixture folder, so paths in the output are relative.
fn decode(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_decode"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("run decode")
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The closing summary of a batch without its time.
fn summary(o: &Output) -> String {
    let e = err(o);
    let last = e.lines().last().unwrap_or("").to_string();
    match (last.find(" in "), last.find(" s: ")) {
        (Some(a), Some(b)) if a < b => format!("{} in (time) s: {}", &last[..a], &last[b + 4..]),
        _ => last,
    }
}

fn parse(line: &str) -> Json {
    json::parse(line).unwrap_or_else(|e| panic!("bad JSON {e}: {line}"))
}

macro_rules! snap {
    ($name:expr, $value:expr) => {
        crate::common::snapshot_settings().bind(|| {
            insta::assert_snapshot!(format!("testdata__{}", $name), $value);
        });
    };
}

const FOLDERS: [&str; 5] = [
    "test_add_bias",
    "test_optional_has_element",
    "test_sequence_length",
    "test_map_identity",
    "test_mismatch",
];

#[test]
fn folder_views() {
    for dir in FOLDERS {
        let o = decode(&[dir]);
        assert_eq!(o.status.code(), Some(0), "{dir}: {}", err(&o));
        let text = out(&o);
        assert!(
            text.starts_with(&format!("model:  {dir}/model.onnx\ninputs:\n")),
            "{text}"
        );
        snap!(format!("folder_{dir}"), text);
    }
}

#[test]
fn initializer_inputs_are_skipped() {
    // Graph inputs x, bias (an initializer), y: input_1.pb is y.
    let o = decode(&["--json", "test_add_bias/test_data_set_0/input_1.pb"]);
    let v = parse(out(&o).trim());
    let m = v.get("model").expect("model");
    assert_eq!(m.get("name").and_then(Json::as_str), Some("y"));
    assert_eq!(
        m.get("declared_type").and_then(Json::as_str),
        Some("FLOAT[N, 4]")
    );
    assert_eq!(m.get("index").and_then(Json::as_f64), Some(1.0));
    assert!(m.get("warnings").is_none());
    let text = decode(&["test_add_bias/test_data_set_0/input_1.pb"]);
    assert!(out(&text).starts_with(
        "model:  test_add_bias/model.onnx\ninput 1 \"y\": FLOAT[N, 4]\n\nformat: onnx-tensor"
    ));
    let folder = out(&decode(&["test_add_bias"]));
    assert!(folder.contains("(also graph inputs, fed by initializers: bias)"));
}

#[test]
fn per_file_naming() {
    let files = [
        (
            "optional_input",
            "test_optional_has_element/test_data_set_0/input_0.pb",
            "onnx.OptionalProto",
        ),
        (
            "optional_empty",
            "test_optional_has_element/test_data_set_1/input_0.pb",
            "onnx.OptionalProto",
        ),
        (
            "sequence_input",
            "test_sequence_length/test_data_set_0/input_0.pb",
            "onnx.SequenceProto",
        ),
        (
            "map_input",
            "test_map_identity/test_data_set_0/input_0.pb",
            "onnx.MapProto",
        ),
        (
            "mismatch_input",
            "test_mismatch/test_data_set_0/input_0.pb",
            "onnx.TensorProto",
        ),
        (
            "mismatch_output",
            "test_mismatch/test_data_set_0/output_0.pb",
            "onnx.TensorProto",
        ),
        (
            "not_in_model",
            "test_mismatch/test_data_set_0/input_2.pb",
            "onnx.TensorProto",
        ),
    ];
    for (name, file, ty) in files {
        let j = decode(&["--json", file]);
        assert_eq!(j.status.code(), Some(0), "{file}");
        let v = parse(out(&j).trim());
        assert_eq!(v.get("type").and_then(Json::as_str), Some(ty), "{file}");
        // The declaration decides: no "also" left.
        assert!(v.get("also").is_none(), "{file}");
        let m = v.get("model").expect("model object");
        assert_eq!(
            m.get("path").and_then(Json::as_str),
            Some(format!("{}/model.onnx", file.split('/').next().unwrap_or("")).as_str())
        );
        if ty != "onnx.TensorProto" {
            assert!(m.get("type_from_model").is_some(), "{file}");
        }
        let t = decode(&[file]);
        snap!(
            format!("file_{name}"),
            format!("{}\n--- json model ---\n{}", out(&t), {
                let s = out(&j);
                s.find("\"model\": ")
                    .map(|i| s[i..].trim_end().to_string())
                    .unwrap_or_default()
            })
        );
    }
}

#[test]
fn mismatches_warn_and_strict_fails() {
    let o = decode(&["test_mismatch/test_data_set_0/input_1.pb"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        err(&o).contains("warning: input 1 \"y\": declared FLOAT[N, 3], file holds FLOAT[2, 4]"),
        "{}",
        err(&o)
    );
    let o = decode(&["--strict", "test_mismatch/test_data_set_0/input_1.pb"]);
    assert_eq!(o.status.code(), Some(1));
    let o = decode(&["--strict", "test_mismatch"]);
    assert_eq!(o.status.code(), Some(1));
    // ONNX's own kind of data: no warnings.
    for dir in &FOLDERS[..4] {
        let o = decode(&["--strict", dir]);
        assert_eq!(o.status.code(), Some(0), "{dir}: {}", err(&o));
        assert!(!err(&o).contains("warning"), "{dir}: {}", err(&o));
    }
}

#[test]
fn explicit_model() {
    // A file copied out of its folder, named with --model.
    let o = decode(&[
        "--model",
        "test_sequence_length/model.onnx",
        "--json",
        "test_sequence_length/test_data_set_0/input_0.pb",
    ]);
    let v = parse(out(&o).trim());
    assert_eq!(
        v.get("type").and_then(Json::as_str),
        Some("onnx.SequenceProto")
    );
    // Without a model the same bytes are also an OptionalProto.
    let tmp = std::env::temp_dir().join(format!("pbdecode-testdata-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let copy = tmp.join("input_0.pb");
    std::fs::copy(
        root().join("test_sequence_length/test_data_set_0/input_0.pb"),
        &copy,
    )
    .unwrap();
    let plain = decode(&["--json", copy.to_str().unwrap()]);
    let v = parse(out(&plain).trim());
    assert!(v.get("also").is_some());
    assert!(v.get("model").is_none());
    let named = decode(&[
        "--json",
        "--model",
        "test_optional_has_element/model.onnx",
        copy.to_str().unwrap(),
    ]);
    let v = parse(out(&named).trim());
    assert_eq!(
        v.get("type").and_then(Json::as_str),
        Some("onnx.OptionalProto")
    );
    std::fs::remove_dir_all(&tmp).ok();
}

fn diff(args: &[&str]) -> Output {
    let mut all = vec!["diff"];
    all.extend_from_slice(args);
    decode(&all)
}

#[test]
fn diff_reports() {
    let cases: [(&str, &[&str], i32); 11] = [
        ("equal", &["diff/expected.pb", "diff/same.pb"], 0),
        ("within", &["diff/expected.pb", "diff/within.pb"], 0),
        ("out", &["diff/expected.pb", "diff/out.pb"], 1),
        (
            "out_values1",
            &["--values", "1", "diff/expected.pb", "diff/out.pb"],
            1,
        ),
        (
            "loose",
            &[
                "--rtol",
                "0.01",
                "--atol",
                "0.02",
                "diff/expected.pb",
                "diff/out.pb",
            ],
            1,
        ),
        ("shape", &["diff/expected.pb", "diff/shape.pb"], 1),
        ("type", &["diff/expected.pb", "diff/type.pb"], 1),
        ("nan_same", &["diff/nan_expected.pb", "diff/nan_same.pb"], 0),
        (
            "nan_positions",
            &["diff/nan_expected.pb", "diff/nan_actual.pb"],
            1,
        ),
        (
            "strings",
            &["diff/str_expected.pb", "diff/str_actual.pb"],
            1,
        ),
        (
            "sequence",
            &["diff/seq_expected.pb", "diff/seq_actual.pb"],
            1,
        ),
    ];
    for (name, args, code) in cases {
        let o = diff(args);
        assert_eq!(o.status.code(), Some(code), "{name}: {}", err(&o));
        let text = out(&o);
        let j = {
            let mut a = vec!["--json"];
            a.extend_from_slice(args);
            diff(&a)
        };
        assert_eq!(j.status.code(), Some(code));
        let v = parse(out(&j).trim());
        assert_eq!(v.get("passed"), Some(&Json::Bool(code == 0)), "{name}");
        snap!(
            format!("diff_{name}"),
            format!("{text}\n--- json ---\n{}", out(&j))
        );
    }
}

#[test]
fn diff_numbers() {
    let v = parse(out(&diff(&["--json", "diff/expected.pb", "diff/out.pb"])).trim());
    let t = &v.get("entries").and_then(Json::as_array).unwrap()[0];
    let t = t.get("tensor").unwrap();
    // Three elements changed: +0.01, a sign flip, and 3e-3 relative.
    assert_eq!(t.get("mismatches").and_then(Json::as_f64), Some(3.0));
    assert_eq!(t.get("compared").and_then(Json::as_f64), Some(24.0));
    let max = t.get("max_abs_diff").unwrap();
    let idx: Vec<f64> = max
        .get("index")
        .and_then(Json::as_array)
        .unwrap()
        .iter()
        .filter_map(Json::as_f64)
        .collect();
    assert_eq!(idx, vec![1.0, 2.0, 3.0]);
    let (e, a) = (
        max.get("expected").and_then(Json::as_f64).unwrap(),
        max.get("actual").and_then(Json::as_f64).unwrap(),
    );
    assert_eq!(e, -a);
    // A loose enough tolerance passes everything but the sign flip.
    let v = parse(
        out(&diff(&[
            "--json",
            "--rtol",
            "0.01",
            "--atol",
            "0.02",
            "diff/expected.pb",
            "diff/out.pb",
        ]))
        .trim(),
    );
    let t = v.get("entries").and_then(Json::as_array).unwrap()[0]
        .get("tensor")
        .unwrap()
        .clone();
    assert_eq!(t.get("mismatches").and_then(Json::as_f64), Some(1.0));
    // Each file against itself passes.
    for f in [
        "diff/expected.pb",
        "diff/nan_expected.pb",
        "diff/str_expected.pb",
        "diff/seq_expected.pb",
        "diff/model_a.onnx",
    ] {
        assert_eq!(diff(&[f, f]).status.code(), Some(0), "{f}");
    }
}

#[test]
fn diff_models_and_folders() {
    let o = diff(&["diff/model_a.onnx", "diff/model_b.onnx"]);
    assert_eq!(o.status.code(), Some(1));
    let text = out(&o);
    assert!(text.contains("\"gone\": only in expected"));
    assert!(text.contains("\"new\": only in actual"));
    assert!(text.contains("attribute alpha 0.1 -> 0.2"), "{text}");
    snap!("diff_models", text);
    let j = diff(&["--json", "diff/model_a.onnx", "diff/model_b.onnx"]);
    parse(out(&j).trim());
    // Two data sets of one test, file by file.
    let o = diff(&[
        "test_add_bias/test_data_set_0",
        "test_add_bias/test_data_set_1",
    ]);
    assert_eq!(o.status.code(), Some(1));
    snap!("diff_data_sets", out(&o));
    let o = diff(&["test_add_bias", "test_add_bias"]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    // Usage and I/O errors are exit 2.
    assert_eq!(diff(&["diff/expected.pb"]).status.code(), Some(2));
    assert_eq!(
        diff(&["diff/expected.pb", "diff/missing.pb"]).status.code(),
        Some(2)
    );
    assert_eq!(diff(&["diff", "diff/expected.pb"]).status.code(), Some(2));
    assert_eq!(
        diff(&["--rtol", "-1", "diff/expected.pb", "diff/same.pb"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn diff_picture() {
    let tmp = std::env::temp_dir().join(format!("pbdecode-diffpic-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let png = tmp.join("d.png");
    let o = diff(&[
        "--picture",
        png.to_str().unwrap(),
        "diff/img_expected.pb",
        "diff/img_actual.pb",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&png).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (8, 8));
    // Only the red channel of the changed 3x3 patch is lit.
    let px = |x: usize, y: usize| &buf[(y * 8 + x) * 3..(y * 8 + x) * 3 + 3];
    assert_eq!(px(3, 3), &[255, 0, 0]);
    assert_eq!(px(0, 0), &[0, 0, 0]);
    // No temporary file is left beside it.
    let left: Vec<_> = std::fs::read_dir(&tmp)
        .unwrap()
        .filter_map(|e| e.ok())
        .collect();
    assert_eq!(left.len(), 1);
    assert_eq!(
        diff(&[
            "--picture",
            png.to_str().unwrap(),
            "diff/str_expected.pb",
            "diff/str_actual.pb"
        ])
        .status
        .code(),
        Some(2)
    );
    std::fs::remove_dir_all(&tmp).ok();
}

#[test]
fn batch_lines_equal_single_files() {
    let mut args = vec!["-r", "--jsonl", "diff"];
    args.extend(FOLDERS);
    args.sort();
    let o = decode(&args);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let text = out(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 40);
    let mut files = Vec::new();
    for line in &lines {
        let v = parse(line);
        let file = v
            .get("file")
            .and_then(Json::as_str)
            .expect("file")
            .to_string();
        let single = out(&decode(&["--json", &file]));
        let want = format!("{{\"file\": {:?}, {}", file, &single[1..]);
        assert_eq!(format!("{line}\n"), want, "{file}");
        files.push(file);
    }
    let mut sorted = files.clone();
    sorted.sort();
    assert_eq!(files, sorted, "output in input order");
    snap!("batch_summary", summary(&o));
}

#[test]
fn batch_table_and_errors() {
    // The README is not protobuf: one row turned down, exit 1.
    let o = decode(&["-r", "."]);
    assert_eq!(o.status.code(), Some(1));
    snap!("batch_table", out(&o));
    // Files named one by one, one missing and one not protobuf: the batch
    // goes on, failures are lines of their own.
    let readme = "README.md";
    let o = decode(&[
        "--jsonl",
        "diff/expected.pb",
        "diff/missing.pb",
        readme,
        "test_mismatch/test_data_set_0/input_0.pb",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let text = out(&o);
    let lines: Vec<Json> = text.lines().map(parse).collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(
        lines[1]
            .get("error")
            .and_then(|e| e.get("check"))
            .and_then(Json::as_str),
        Some("io")
    );
    assert_eq!(
        lines[2]
            .get("error")
            .and_then(|e| e.get("check"))
            .and_then(Json::as_str),
        // The README is text: told so before any wire check.
        Some("text")
    );
    assert!(
        lines[3]
            .get("model")
            .and_then(|m| m.get("warnings"))
            .is_some()
    );
    snap!(
        "batch_errors",
        format!("{text}\n--- stderr ---\n{}", summary(&o))
    );
    // A folder without -r is a usage error; a test folder with --json is
    // JSON Lines.
    assert_eq!(decode(&["--jsonl", "./diff"]).status.code(), Some(2));
    let o = decode(&["--json", "test_optional_has_element"]);
    assert_eq!(o.status.code(), Some(0));
    let lines: Vec<Json> = out(&o).lines().map(parse).collect();
    assert_eq!(lines.len(), 4);
    assert!(lines.iter().all(|l| l.get("model").is_some()));
}
