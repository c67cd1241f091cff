//! The `decode` command on TensorFlow record files: `--jsonl` on one
//! record file writes a line per record (a first line on the file, the
//! records, a last line with the count, summary and fault), streamed, while
//! a batch keeps one line per file; `--picture` writes a picture a record
//! holds (an event's summary image, a picture in an Example's bytes
//! feature), named `record/K/NAME[/J]`, as it is stored.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use crate::common::{self, build};

use common::Msg;

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
    crate::common::snapshot_settings().bind(|| {
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
/// `"file"` first and its index as `"record"`, whatever the flags both
/// read (`--values`, `--stats`: a tensor inside a record has statistics in
/// both or in neither).
#[test]
fn a_record_line_is_the_records_object_of_json() {
    let dir = fixtures();
    let names = [
        "examples.tfrecord",
        "tf2.tfevents",
        "tf1.tfevents",
        "strings.tfrecord",
        "tensors.tfrecord",
    ];
    let flag_sets: [&[&str]; 4] = [
        &[],
        &["--values", "2"],
        &["--stats"],
        &["--stats", "--values", "2"],
    ];
    for (name, flags) in names
        .iter()
        .flat_map(|n| flag_sets.iter().map(move |f| (*n, *f)))
    {
        let whole = decode_in(&dir, &[&["--json"], flags, &[name]].concat());
        let whole = common::json::value(std::str::from_utf8(&whole.stdout).unwrap()).unwrap();
        let (lines, status) = jsonl(&dir, &[&["--jsonl"], flags, &[name]].concat());
        assert_eq!(status, Some(0), "{name} {flags:?}");
        let records = whole["records"].as_array().unwrap();
        assert_eq!(lines.len(), records.len() + 2, "{name}");
        for (line, record) in lines[1..].iter().zip(records) {
            let mut line = line.as_object().unwrap().clone();
            assert_eq!(line.shift_remove("file").unwrap(), name);
            let index = line.shift_remove("record").unwrap();
            let mut expected = record.as_object().unwrap().clone();
            assert_eq!(expected.shift_remove("index").unwrap(), index);
            assert_eq!(line, expected, "{name} {flags:?}");
        }
        let last = &lines[lines.len() - 1];
        assert_eq!(last["summary"], whole["summary"], "{name}");
        for key in ["compression", "kind", "format", "type"] {
            assert_eq!(lines[0][key], whole[key], "{name} {key}");
        }
    }
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
        file.extend(build::tf_record(&i.to_le_bytes()));
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

/// `decode --picture OUT ARGS FILE` in `dir`: exit status, stderr, and
/// the bytes written (None when nothing was).
fn picture(
    dir: &Path,
    out: &Path,
    args: &[&str],
    file: &str,
) -> (Option<i32>, String, Option<Vec<u8>>) {
    let _ = std::fs::remove_file(out);
    let mut all = vec!["--picture", out.to_str().unwrap()];
    all.extend_from_slice(args);
    all.push(file);
    let o = decode_in(dir, &all);
    let err = String::from_utf8(o.stderr).unwrap();
    (o.status.code(), err, std::fs::read(out).ok())
}

/// Whether `needle` occurs in `haystack`.
fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn picture_writes_a_records_picture_as_it_is_stored() {
    let dir = fixtures();
    let tmp = temp_dir("record-pictures");
    let png = tmp.join("p.png");
    // An Example's image feature, named by record and feature.
    let (status, err, written) = picture(
        &dir,
        &png,
        &["--tensor", "record/1/image"],
        "examples.tfrecord",
    );
    assert_eq!(status, Some(0), "{err}");
    let written = written.unwrap();
    assert!(written.starts_with(b"\x89PNG\r\n\x1a\n"));
    assert!(contains(
        &std::fs::read(dir.join("examples.tfrecord")).unwrap(),
        &written
    ));
    assert!(err.contains("picture \"record/1/image\", PNG 8x8"), "{err}");
    // The same from the compressed copies.
    for copy in ["examples.tfrecord.gz", "examples.tfrecord.zlib"] {
        let (status, _, again) = picture(&dir, &png, &["--tensor", "record/1/image"], copy);
        assert_eq!(
            (status, again.as_ref()),
            (Some(0), Some(&written)),
            "{copy}"
        );
    }
    // A JPEG goes to a .jpg as it is.
    let jpg = tmp.join("p.JPG");
    let (status, err, written) = picture(
        &dir,
        &jpg,
        &["--tensor", "record/2/image"],
        "examples.tfrecord",
    );
    assert_eq!(status, Some(0), "{err}");
    assert!(written.unwrap().starts_with(&[0xff, 0xd8, 0xff]));
    // An event file's only picture, without --tensor: TF 1's image, TF 2's
    // `images` tensor.
    for (file, name) in [
        ("tf1.tfevents", "record/7/picture"),
        ("tf2.tfevents", "record/15/sample"),
    ] {
        let (status, err, written) = picture(&dir, &png, &[], file);
        assert_eq!(status, Some(0), "{file}: {err}");
        assert!(err.contains(&format!("picture {name:?}")), "{err}");
        let written = written.unwrap();
        assert!(written.starts_with(b"\x89PNG"), "{file}");
        assert!(contains(&std::fs::read(dir.join(file)).unwrap(), &written));
    }
    // The only picture before a fault is written, and the fault said.
    let (status, err, written) = picture(&dir, &png, &[], "bad_length_crc.tfrecord");
    assert_eq!(status, Some(1));
    assert!(written.is_some());
    assert!(err.contains("record-length-crc"), "{err}");
    std::fs::remove_dir_all(&tmp).unwrap();
}

/// A fake PNG: the signature and an IHDR of `w` x `h`.
fn png_bytes(w: u32, h: u32, tail: u8) -> Vec<u8> {
    let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    b.extend_from_slice(&w.to_be_bytes());
    b.extend_from_slice(&h.to_be_bytes());
    b.extend_from_slice(&[8, 2, 0, 0, 0, tail]);
    b
}

/// Several pictures in one value: each with its place, `/J`.
#[test]
fn pictures_of_one_value_are_numbered() {
    let tmp = temp_dir("record-pictures-numbered");
    let (a, b) = (png_bytes(2, 3, 1), png_bytes(4, 5, 2));
    // An event file: its version, then an event whose `images` tensor holds
    // width, height and two pictures.
    let version = Msg::new().double(1, 1.0).string(3, "brain.Event:2");
    let tensor = Msg::new()
        .varint(1, 7)
        .len_field(8, b"4")
        .len_field(8, b"5")
        .len_field(8, &a)
        .len_field(8, &b);
    let value = Msg::new()
        .string(1, "batch")
        .message(9, &Msg::new().message(1, &Msg::new().string(1, "images")))
        .message(8, &tensor);
    let event = Msg::new()
        .double(1, 2.0)
        .int(2, 3)
        .message(5, &Msg::new().message(1, &value));
    let events = [
        build::tf_record(&version.bytes()),
        build::tf_record(&event.bytes()),
    ]
    .concat();
    std::fs::write(tmp.join("events.out.tfevents.1"), events).unwrap();
    // An Example whose bytes feature holds text, then two pictures.
    let bytes_list = Msg::new()
        .len_field(1, b"text")
        .len_field(1, &a)
        .len_field(1, &b);
    let entry = Msg::new()
        .string(1, "frames")
        .message(2, &Msg::new().message(1, &bytes_list));
    let example = Msg::new().message(1, &Msg::new().message(1, &entry));
    std::fs::write(tmp.join("ex.tfrecord"), build::tf_record(&example.bytes())).unwrap();
    let out = tmp.join("p.png");
    let (status, err, _) = picture(&tmp, &out, &[], "events.out.tfevents.1");
    assert_eq!(status, Some(2));
    assert!(
        err.contains("(\"record/1/batch/0\", \"record/1/batch/1\")"),
        "{err}"
    );
    let (status, _, written) = picture(
        &tmp,
        &out,
        &["--tensor", "record/1/batch/1"],
        "events.out.tfevents.1",
    );
    assert_eq!((status, written), (Some(0), Some(b.clone())));
    let (status, err, _) = picture(&tmp, &out, &[], "ex.tfrecord");
    assert_eq!(status, Some(2));
    assert!(
        err.contains("(\"record/0/frames/1\", \"record/0/frames/2\")"),
        "{err}"
    );
    let (status, _, written) = picture(
        &tmp,
        &out,
        &["--tensor", "record/0/frames/1"],
        "ex.tfrecord",
    );
    assert_eq!((status, written), (Some(0), Some(a)));
    std::fs::remove_dir_all(&tmp).unwrap();
}

/// Standard base64 (with padding), as `--json` writes bytes.
fn unbase64(text: &str) -> Vec<u8> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in text.bytes().filter(|&c| c != b'=') {
        let v = ALPHABET.iter().position(|&a| a == c).unwrap() as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

/// A SequenceExample's feature lists hold pictures too: each step's, named
/// `LIST[T]`, `/J` added when the step holds several; the bytes written
/// are those `--json` shows at that place.
#[test]
fn a_sequence_examples_feature_list_pictures_are_named_by_step() {
    let dir = fixtures();
    let tmp = temp_dir("record-pictures-steps");
    let png = tmp.join("p.png");
    let file = "sequence_examples.tfrecord";
    let (status, err, written) = picture(&dir, &png, &[], file);
    assert_eq!((status, written), (Some(2), None), "{err}");
    assert!(
        err.contains(
            "the records hold 7 pictures: name one with --tensor NAME \
             (\"record/0/images[0]\", \"record/0/images[1]/0\", \"record/0/images[1]/1\", \
             \"record/1/images[0]\", \"record/1/images[1]/0\", \"record/1/images[1]/1\", \
             \"record/1/images[2]\")"
        ),
        "{err}"
    );
    let (lines, status) = jsonl(&dir, &["--jsonl", file]);
    assert_eq!(status, Some(0));
    for (record, step, j, name) in [
        (0, 0, 0, "record/0/images[0]"),
        (1, 1, 1, "record/1/images[1]/1"),
        (1, 2, 0, "record/1/images[2]"),
    ] {
        let (status, err, written) = picture(&dir, &png, &["--tensor", name], file);
        assert_eq!(status, Some(0), "{err}");
        assert!(err.contains(&format!("picture {name:?}, PNG 6x6")), "{err}");
        // The first line is the file's; then a line per record.
        let line = &lines[record + 1];
        assert_eq!(line["record"], record);
        let shown = &line["value"]["feature_lists"]["feature_list"]["images"]["feature"][step]["bytes_list"]
            ["value"][j];
        assert_eq!(
            written.unwrap(),
            unbase64(shown.as_str().unwrap()),
            "{name}"
        );
    }
    // A step's name alone is no picture when the step holds two.
    let (status, err, written) = picture(&dir, &png, &["--tensor", "record/1/images[1]"], file);
    assert_eq!((status, written), (Some(1), None), "{err}");
    assert!(err.contains("no picture \"record/1/images[1]\""), "{err}");
    std::fs::remove_dir_all(&tmp).unwrap();
}

/// What `--picture` says when it cannot choose or write, and its exit
/// status; nothing is written.
#[test]
fn picture_errors_name_the_pictures() {
    let dir = fixtures();
    let tmp = temp_dir("record-picture-errors");
    let png = tmp.join("p.png");
    let cases: &[(&[&str], &str)] = &[
        (&[], "examples.tfrecord"),
        (&["--tensor", "record/9/image"], "examples.tfrecord"),
        (&["--tensor", "record/2/image"], "examples.tfrecord"),
        (&[], "strings.tfrecord"),
        (&[], "bad_data_crc.tfrecord"),
    ];
    let mut s = String::new();
    for (args, file) in cases {
        let (status, err, written) = picture(&dir, &png, args, file);
        assert!(written.is_none(), "{file}");
        s.push_str(&format!(
            "--picture p.png {} {file}: exit {status:?}\n{err}\n",
            args.join(" ")
        ));
    }
    for args in [["--npy", "x.npy"], ["--tensor", "record/0/image"]] {
        let o = decode_in(&dir, &[args[0], args[1], "examples.tfrecord"]);
        s.push_str(&format!(
            "{} examples.tfrecord: exit {:?}\n{}\n",
            args.join(" "),
            o.status.code(),
            String::from_utf8(o.stderr).unwrap()
        ));
    }
    let s = s.replace(png.to_str().unwrap(), "p.png");
    snapshot("picture_errors", s);
    std::fs::remove_dir_all(&tmp).unwrap();
}
