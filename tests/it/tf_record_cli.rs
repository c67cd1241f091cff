//! The `decode` command on TensorFlow record files: `--jsonl` on one
//! record file writes a line per record (a first line on the file, the
//! records, a last line with the count, summary and fault), streamed, while
//! a batch keeps one line per file.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use crate::common;

use pbdecode::checksum::{crc32c, mask};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const DIR: &str = "tests/fixtures/tf-record";

/// `decode ARGS` run in the record fixtures' folder.
fn decode_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_decode"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run decode")
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(DIR)
}

fn snapshot(name: &str, value: String) {
    insta::with_settings!({snapshot_path => "../../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!(format!("tf_record_cli__{name}"), value);
    });
}

/// The lines of `decode --jsonl FILE`, each parsed, with its exit status.
fn jsonl(dir: &Path, args: &[&str]) -> (Vec<Value>, Option<i32>) {
    let out = decode_in(dir, args);
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let lines = text
        .lines()
        .map(|l| common::json::value(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    (lines, out.status.code())
}

/// Every line laid out, and the exit status; checks the lines' shape on
/// the way: the file on each, the first line's format, the records in
/// order from 0, the last line's count.
fn jsonl_snapshot(name: &str) -> String {
    let out = decode_in(&fixtures(), &["--jsonl", name]);
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() >= 2, "{name}: {text}");
    let parsed: Vec<Value> = lines
        .iter()
        .map(|l| common::json::value(l).unwrap())
        .collect();
    for v in &parsed {
        assert_eq!(v["file"], name);
    }
    assert_eq!(parsed[0]["format"], "tf-record");
    let records = &parsed[1..parsed.len() - 1];
    for (k, r) in records.iter().enumerate() {
        assert_eq!(r["record"], k as u64, "{name}");
    }
    let last = &parsed[parsed.len() - 1];
    assert_eq!(last["records_total"], records.len() as u64, "{name}");
    assert_eq!(last["summary"]["records"], records.len() as u64, "{name}");
    let status = out.status.code();
    assert_eq!(status == Some(1), last.get("fault").is_some(), "{name}");
    let mut s = format!("exit status {status:?}\n");
    for l in lines {
        s.push_str(&common::json::pretty(l));
    }
    s
}

macro_rules! jsonl_snapshots {
    ($($test:ident => $file:literal,)*) => {$(
        #[test]
        fn $test() {
            snapshot(stringify!($test), jsonl_snapshot($file));
        }
    )*};
}

jsonl_snapshots! {
    jsonl_examples => "examples.tfrecord",
    jsonl_examples_gz => "examples.tfrecord.gz",
    jsonl_examples_zlib => "examples.tfrecord.zlib",
    jsonl_sequence_examples => "sequence_examples.tfrecord",
    jsonl_tensors => "tensors.tfrecord",
    jsonl_strings => "strings.tfrecord",
    jsonl_tf2_events => "tf2.tfevents",
    jsonl_tf1_events => "tf1.tfevents",
    jsonl_cut => "cut.tfrecord",
    jsonl_bad_data_crc => "bad_data_crc.tfrecord",
    jsonl_bad_length_crc => "bad_length_crc.tfrecord",
    jsonl_huge_length => "huge_length.tfrecord",
}

/// A record line is the record's object of `--json`'s `"records"`, with
/// `"file"` first and its index as `"record"`.
#[test]
fn a_record_line_is_the_records_object_of_json() {
    let dir = fixtures();
    for name in ["examples.tfrecord", "tf2.tfevents", "strings.tfrecord"] {
        let whole = decode_in(&dir, &["--json", name]);
        let whole = common::json::value(std::str::from_utf8(&whole.stdout).unwrap()).unwrap();
        let (lines, status) = jsonl(&dir, &["--jsonl", name]);
        assert_eq!(status, Some(0));
        let records = whole["records"].as_array().unwrap();
        assert_eq!(lines.len(), records.len() + 2, "{name}");
        for (line, record) in lines[1..].iter().zip(records) {
            let mut line = line.as_object().unwrap().clone();
            assert_eq!(line.shift_remove("file").unwrap(), name);
            let index = line.shift_remove("record").unwrap();
            let mut expected = record.as_object().unwrap().clone();
            assert_eq!(expected.shift_remove("index").unwrap(), index);
            assert_eq!(line, expected, "{name}");
        }
        let last = &lines[lines.len() - 1];
        assert_eq!(last["summary"], whole["summary"], "{name}");
        for key in ["compression", "kind", "format", "type"] {
            assert_eq!(lines[0][key], whole[key], "{name} {key}");
        }
    }
}

/// The bytes of one record: length, its masked CRC, data, its masked CRC.
fn record(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let len = (data.len() as u64).to_le_bytes();
    out.extend_from_slice(&len);
    out.extend_from_slice(&mask(crc32c(&len)).to_le_bytes());
    out.extend_from_slice(data);
    out.extend_from_slice(&mask(crc32c(data)).to_le_bytes());
    out
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pbdecode-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// 200,000 records: 200,002 lines, each one JSON object, the records in
/// order; `--values N` writes N of them and still counts every one.
#[test]
fn jsonl_of_many_records_is_a_line_per_record() {
    const N: u64 = 200_000;
    let dir = temp_dir("many-records");
    let mut file = Vec::new();
    for i in 0..N as u32 {
        file.extend(record(&i.to_le_bytes()));
    }
    std::fs::write(dir.join("many.tfrecord"), &file).unwrap();
    let out = decode_in(&dir, &["--jsonl", "many.tfrecord"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let mut count = 0u64;
    for (k, line) in text.lines().enumerate() {
        let v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("line {k}: {e}"));
        assert_eq!(v["file"], "many.tfrecord");
        if k == 0 {
            assert_eq!(v["format"], "tf-record");
        } else if (k as u64) <= N {
            assert_eq!(v["record"], k as u64 - 1);
        } else {
            assert_eq!(v["records_total"], N);
        }
        count += 1;
    }
    assert_eq!(count, N + 2);
    let (lines, status) = jsonl(&dir, &["--jsonl", "--values", "5", "many.tfrecord"]);
    assert_eq!(status, Some(0));
    assert_eq!(lines.len(), 7);
    assert_eq!(lines[5]["record"], 4);
    assert_eq!(lines[6]["records_total"], N);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Several files (or -r) stay one line per file, a record file included.
#[test]
fn a_batch_keeps_one_line_per_file() {
    let dir = fixtures();
    let (lines, status) = jsonl(&dir, &["--jsonl", "examples.tfrecord", "tf1.tfevents"]);
    assert_eq!(status, Some(0));
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["records"].as_array().unwrap().len(), 4);
    assert_eq!(lines[1]["file"], "tf1.tfevents");
    let (lines, _) = jsonl(&dir, &["--jsonl", "-r", "."]);
    let files = std::fs::read_dir(&dir)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().is_file())
        .count();
    assert_eq!(lines.len(), files);
    assert!(lines.iter().all(|l| l.get("record").is_none()));
    // A file that is no record file: its one line, as before.
    let onnx = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/onnx-model");
    let (lines, _) = jsonl(&onnx, &["--jsonl", "everything.onnx"]);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["format"], "onnx-model");
}
