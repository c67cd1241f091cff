//! TensorFlow record files (`tf-record`): text and JSON snapshots of the
//! fixtures in tests/fixtures/tf-record (made by
//! scripts/make_tf_record_fixtures.py with TensorFlow's own writers, see
//! its README.md); GZIP and ZLIB copies read as the plain file; damaged
//! copies showing every whole record, then the fault with its check, record
//! and offset, as does every fixture cut at each byte or with each record's
//! CRCs damaged; framing built here (huge lengths, cut headers, compressed
//! streams that claim more than they can hold, many records); and no other
//! fixture taken for a record file.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use crate::common::{self, build};

use pbdecode::checksum::{crc32c, mask};
use pbdecode::formats::records::{Compression, RecordReader};
use pbdecode::formats::{self, Body, FormatOptions};
use pbdecode::render::{RenderOptions, json, text};
use std::io::Write as _;
use std::path::Path;

const DIR: &str = "tests/fixtures/tf-record";

fn read(name: &str) -> Vec<u8> {
    let path = Path::new(DIR).join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn text_of(bytes: &[u8], opts: &RenderOptions) -> String {
    let decoded = formats::detect(bytes, &FormatOptions::default())
        .unwrap_or_else(|r| panic!("not decoded: {}", r.error));
    assert_eq!(decoded.format.id, "tf-record");
    let mut out = Vec::new();
    text::write_decoded(&mut out, &decoded, opts).expect("write to a Vec");
    String::from_utf8(out).expect("UTF-8 text")
}

fn json_of(bytes: &[u8], opts: &RenderOptions) -> String {
    let decoded = formats::detect(bytes, &FormatOptions::default())
        .unwrap_or_else(|r| panic!("not decoded: {}", r.error));
    let mut out = Vec::new();
    json::write_decoded(&mut out, &decoded, opts).expect("write to a Vec");
    String::from_utf8(out).expect("UTF-8 JSON")
}

/// The fault a whole pass over the records met, if any.
fn fault_of(bytes: &[u8]) -> Option<(String, u64, String)> {
    let decoded = formats::detect(bytes, &FormatOptions::default()).unwrap();
    let Body::Records(file) = &decoded.body else {
        panic!("not a record file")
    };
    file.check_framing()
        .map(|e| (e.check().to_string(), e.offset(), e.path_string()))
}

fn snapshot(name: &str, value: String) {
    crate::common::snapshot_settings().bind(|| {
        insta::assert_snapshot!(format!("tf_record__{name}"), value);
    });
}

/// Text, then the JSON laid out.
fn both(name: &str) -> String {
    let bytes = read(name);
    let text = text_of(&bytes, &RenderOptions::default());
    let json = json_of(&bytes, &RenderOptions::default());
    let value: serde_json::Value = serde_json::from_str(&json).expect("the JSON parses");
    assert_eq!(value["format"], "tf-record");
    format!("{text}\n---\n{}", common::json::pretty(&json))
}

macro_rules! fixture_snapshots {
    ($($test:ident => $file:literal,)*) => {$(
        #[test]
        fn $test() {
            snapshot(stringify!($test), both($file));
        }
    )*};
}

fixture_snapshots! {
    examples => "examples.tfrecord",
    sequence_examples => "sequence_examples.tfrecord",
    tensors => "tensors.tfrecord",
    strings => "strings.tfrecord",
    tf2_events => "tf2.tfevents",
    tf1_events => "tf1.tfevents",
    cut => "cut.tfrecord",
    bad_data_crc => "bad_data_crc.tfrecord",
    bad_length_crc => "bad_length_crc.tfrecord",
    huge_length => "huge_length.tfrecord",
    empty => "empty.tfrecord",
    empty_gzip => "empty.tfrecord.gz",
    empty_zlib => "empty.tfrecord.zlib",
}

#[test]
fn compressed_copies_read_as_the_plain_file() {
    let plain = read("examples.tfrecord");
    let opts = RenderOptions::default();
    for (name, compression) in [
        ("examples.tfrecord.gz", "gzip"),
        ("examples.tfrecord.zlib", "zlib"),
    ] {
        let bytes = read(name);
        let expected = text_of(&plain, &opts).replace(
            "compression:   none",
            &format!("compression:   {compression}"),
        );
        assert_eq!(text_of(&bytes, &opts), expected, "{name}");
        let expected = json_of(&plain, &opts).replace(
            "\"compression\": \"none\"",
            &format!("\"compression\": \"{compression}\""),
        );
        assert_eq!(json_of(&bytes, &opts), expected, "{name}");
    }
}

#[test]
fn damaged_files_show_their_whole_records_then_the_fault() {
    let cases = [
        // (file, check, records before the fault, path)
        ("cut.tfrecord", "record-cut", 3, "record[3]"),
        ("bad_data_crc.tfrecord", "record-data-crc", 0, "record[0]"),
        (
            "bad_length_crc.tfrecord",
            "record-length-crc",
            1,
            "record[1]",
        ),
        ("huge_length.tfrecord", "record-cut", 1, "record[1]"),
    ];
    for (name, check, whole, path) in cases {
        let bytes = read(name);
        let (got, _, got_path) = fault_of(&bytes).unwrap_or_else(|| panic!("{name}: no fault"));
        assert_eq!((got.as_str(), got_path.as_str()), (check, path), "{name}");
        let text = text_of(&bytes, &RenderOptions::default());
        assert_eq!(text.matches("\nrecord ").count(), whole, "{name}:\n{text}");
        assert!(
            text.contains(&format!("fault: {check} check failed at {path} @0x")),
            "{name}:\n{text}"
        );
        let json: serde_json::Value =
            serde_json::from_str(&json_of(&bytes, &RenderOptions::default())).unwrap();
        assert_eq!(json["records"].as_array().unwrap().len(), whole, "{name}");
        assert_eq!(json["fault"]["check"], check, "{name}");
    }
    for name in ["examples.tfrecord", "tf2.tfevents", "examples.tfrecord.gz"] {
        assert_eq!(fault_of(&read(name)), None, "{name}");
    }
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

#[test]
fn a_compressed_record_longer_than_its_stream_can_hold_is_refused_unread() {
    // A 12-byte header claiming 2^33 bytes, then 64 KiB of zeros: a few
    // hundred compressed bytes, which DEFLATE cannot expand past ~1032x.
    let len = (1u64 << 33).to_le_bytes();
    let mut stream = len.to_vec();
    stream.extend_from_slice(&mask(crc32c(&len)).to_le_bytes());
    stream.extend(std::iter::repeat_n(0u8, 1 << 16));
    let gz = gzip(&stream);
    assert!(gz.len() < 1024, "{}", gz.len());
    let e = RecordReader::new(&gz, Compression::Gzip, None)
        .next()
        .unwrap()
        .err()
        .unwrap();
    assert_eq!(e.check(), "record-length");
    assert!(
        e.to_string()
            .contains("the most the compressed stream can hold"),
        "{e}"
    );
    // A stream cut inside a record: the whole ones, then the cut.
    let mut stream = build::tf_record(b"first");
    stream.extend_from_slice(&build::tf_record(b"second")[..9]);
    let gz = gzip(&stream);
    let items: Vec<_> = RecordReader::new(&gz, Compression::Gzip, None).collect();
    assert_eq!(items.len(), 2);
    assert_eq!(&*items[0].as_ref().unwrap().data, b"first");
    assert_eq!(items[1].as_ref().err().unwrap().check(), "record-cut");
}

#[test]
fn a_damaged_compressed_stream_is_a_named_fault() {
    let mut gz = gzip(&[build::tf_record(b"one"), build::tf_record(b"two")].concat());
    let middle = gz.len() / 2;
    gz[middle] ^= 0x55;
    gz.truncate(gz.len() - 6);
    let last = RecordReader::new(&gz, Compression::Gzip, None)
        .last()
        .unwrap();
    let check = last.err().map(|e| e.check());
    assert!(
        matches!(
            check,
            Some("decompress" | "record-data-crc" | "record-cut" | "record-length-crc")
        ),
        "{check:?}"
    );
}

#[test]
fn many_records_stream_and_values_limits_the_records_shown() {
    let mut file = Vec::new();
    for i in 0..100_000u32 {
        file.extend(build::tf_record(&i.to_le_bytes()));
    }
    let opts = RenderOptions {
        values: Some(3),
        ..RenderOptions::default()
    };
    let text = text_of(&file, &opts);
    assert!(text.contains("records:       100,000"), "{text}");
    assert_eq!(text.matches("\nrecord ").count(), 3);
    assert!(text.contains("… 99,997 more records"), "{text}");
    let json: serde_json::Value = serde_json::from_str(&json_of(&file, &opts)).unwrap();
    assert_eq!(json["records"].as_array().unwrap().len(), 3);
    assert_eq!(json["records_total"], 100_000);
}

#[test]
fn a_record_file_of_no_records_reads_as_one() {
    // What TensorFlow's writer leaves when nothing is written: 0 bytes, or
    // a GZIP or ZLIB stream of nothing. TensorFlow reads 0 records.
    for name in ["empty.tfrecord", "empty.tfrecord.gz", "empty.tfrecord.zlib"] {
        let bytes = read(name);
        let d = formats::detect(&bytes, &FormatOptions::default())
            .unwrap_or_else(|r| panic!("{name}: {}", r.error));
        assert_eq!(d.format.id, "tf-record", "{name}");
        let json: serde_json::Value =
            serde_json::from_str(&json_of(&bytes, &RenderOptions::default())).unwrap();
        assert_eq!(json["records"], serde_json::json!([]), "{name}");
        assert!(
            json.get("fault").is_none_or(serde_json::Value::is_null),
            "{name}: {json}"
        );
        let text = text_of(&bytes, &RenderOptions::default());
        assert!(text.contains("records:       0\n"), "{name}: {text}");
        assert!(
            text.contains("\n0 records: the file holds none"),
            "{name}: {text}"
        );
    }
    // Any other format asked for names the empty input, not a missing field.
    for id in ["onnx-tensor", "onnx-model", "tf-graph-def", "tf-checkpoint"] {
        let format = formats::find(id).unwrap();
        let Err(e) = formats::decode_as(format, b"", &FormatOptions::default()) else {
            panic!("{id}: an empty input decoded");
        };
        assert_eq!(e.check(), "empty", "{id}: {e}");
    }
    let records = formats::find("tf-record").unwrap();
    assert!(formats::decode_as(records, b"", &FormatOptions::default()).is_ok());
    // A stream cut before its end, or with bytes after it, is no such file.
    let zlib = read("empty.tfrecord.zlib");
    for bad in [&zlib[..zlib.len() - 1], &[&zlib[..], b"x"].concat()[..]] {
        let as_records = formats::detect(bad, &FormatOptions::default())
            .is_ok_and(|d| d.format.id == "tf-record" && fault_of(bad).is_none());
        assert!(!as_records, "{bad:?}");
    }
    let gz = read("empty.tfrecord.gz");
    let cut = &gz[..gz.len() - 4];
    let fine = formats::detect(cut, &FormatOptions::default())
        .is_ok_and(|d| d.format.id == "tf-record" && fault_of(cut).is_none());
    assert!(!fine);
}

#[test]
fn only_record_files_are_taken_for_record_files() {
    let mut record_files = Vec::new();
    for (name, bytes) in common::all_fixture_files() {
        let is_record = formats::detect(&bytes, &FormatOptions::default())
            .is_ok_and(|d| d.format.id == "tf-record");
        if is_record {
            record_files.push(name);
        }
    }
    let mut expected: Vec<String> = [
        "bad_data_crc.tfrecord",
        "bad_length_crc.tfrecord",
        "cut.tfrecord",
        "empty.tfrecord",
        "empty.tfrecord.gz",
        "empty.tfrecord.zlib",
        "examples.tfrecord",
        "examples.tfrecord.gz",
        "examples.tfrecord.zlib",
        "huge_length.tfrecord",
        "sequence_examples.tfrecord",
        "strings.tfrecord",
        "tensors.tfrecord",
        "tf1.tfevents",
        "tf2.tfevents",
    ]
    .iter()
    .map(|n| format!("tf-record/{n}"))
    .collect();
    // An empty file is a record file of no records, whatever its name.
    expected.insert(0, "onnx-tensor/notpb_empty.pb".to_string());
    assert_eq!(record_files, expected);
}

#[test]
fn a_single_event_or_example_message_is_no_record_file() {
    // The decoys of tests/fixtures/tf: the messages without framing.
    for name in [
        "example.pb",
        "event_summary.pb",
        "event_file_version.pb",
        "sequence_example.pb",
    ] {
        let bytes = std::fs::read(Path::new("tests/fixtures/tf").join(name)).unwrap();
        let id = formats::detect(&bytes, &FormatOptions::default()).map(|d| d.format.id);
        assert_ne!(id.ok(), Some("tf-record"), "{name}");
    }
}

/// Where each record of a whole, uncompressed record file starts and ends,
/// read from its framing here (not by the reader under test).
fn record_spans(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let len = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
        let end = at + 12 + len + 4;
        spans.push((at, end));
        at = end;
    }
    assert_eq!(at, bytes.len());
    spans
}

/// Every record fixture cut at every byte, and with each record's length
/// CRC and data CRC damaged in turn: the records whole before the damage
/// are shown, then the fault names its check and record; no cut or flip
/// panics or reads past the bytes.
#[test]
fn every_cut_and_every_records_crc_of_each_fixture_is_a_named_fault() {
    let plain = [
        "examples.tfrecord",
        "sequence_examples.tfrecord",
        "tensors.tfrecord",
        "strings.tfrecord",
        "tf1.tfevents",
        "tf2.tfevents",
    ];
    for name in plain {
        let bytes = read(name);
        let spans = record_spans(&bytes);
        for cut in 1..bytes.len() {
            let prefix = &bytes[..cut];
            let whole = spans.iter().take_while(|&&(_, end)| end <= cut).count();
            let Ok(decoded) = formats::detect(prefix, &FormatOptions::default()) else {
                // Too short to tell: a record file needs its first header.
                assert!(cut < 12 + 4, "{name} cut at {cut}: not detected");
                continue;
            };
            if decoded.format.id != "tf-record" {
                assert!(
                    cut < 16,
                    "{name} cut at {cut}: read as {}",
                    decoded.format.id
                );
                continue;
            }
            if spans.iter().any(|&(_, end)| end == cut) {
                // Cut between records: a whole file of fewer records.
                assert_eq!(fault_of(prefix), None, "{name} cut at {cut}");
                continue;
            }
            let (check, offset, path) =
                fault_of(prefix).unwrap_or_else(|| panic!("{name} cut at {cut}: no fault"));
            assert_eq!(
                (check.as_str(), path),
                ("record-cut", format!("record[{whole}]")),
                "{name} cut at {cut}"
            );
            assert_eq!(offset, spans[whole].0 as u64, "{name} cut at {cut}");
            let Body::Records(file) = &decoded.body else {
                panic!("{name} cut at {cut}: not records")
            };
            let read_whole = file.records().filter(Result::is_ok).count();
            assert_eq!(read_whole, whole, "{name} cut at {cut}");
            let text = text_of(prefix, &RenderOptions::default());
            assert!(
                text.contains("fault: record-cut check failed"),
                "{name} cut at {cut}"
            );
        }
        for (k, &(start, end)) in spans.iter().enumerate() {
            // The fault's offset is that of the CRC that fails.
            for (at, check, crc_at) in [
                (start + 8, "record-length-crc", start + 8),
                (end - 1, "record-data-crc", end - 4),
            ] {
                let mut bad = bytes.clone();
                bad[at] ^= 0x20;
                let (got, offset, path) =
                    fault_of(&bad).unwrap_or_else(|| panic!("{name} record {k}: no fault"));
                assert_eq!(
                    (got.as_str(), path, offset),
                    (check, format!("record[{k}]"), crc_at as u64),
                    "{name} record {k}"
                );
            }
        }
    }
    // A compressed copy cut anywhere: its whole records, and a named fault
    // (the stream's end missing), or nothing taken for a record file.
    for name in ["examples.tfrecord.gz", "examples.tfrecord.zlib"] {
        let bytes = read(name);
        for cut in 1..bytes.len() {
            let prefix = &bytes[..cut];
            let Ok(decoded) = formats::detect(prefix, &FormatOptions::default()) else {
                continue;
            };
            if decoded.format.id != "tf-record" {
                continue;
            }
            let Body::Records(file) = &decoded.body else {
                panic!("{name} cut at {cut}: not records")
            };
            let read_whole = file.records().filter(Result::is_ok).count();
            // Cut in the stream's trailer, every record is whole.
            assert!(read_whole <= 4, "{name} cut at {cut}: {read_whole} records");
            let check = file.check_framing().map(|e| e.check());
            assert!(
                matches!(check, Some("decompress" | "record-cut")),
                "{name} cut at {cut}: {check:?}"
            );
        }
    }
}

#[test]
fn an_event_files_graphs_are_read_as_graphs() {
    // graph_def (TF1's FileWriter, Keras' callback) and meta_graph_def are
    // serialized GraphDef / MetaGraphDef bytes: their nodes in the JSON
    // and the text view, and the graph the Graph tab draws.
    let bytes = read("tf1.tfevents");
    let json: serde_json::Value =
        serde_json::from_str(&json_of(&bytes, &RenderOptions::default())).unwrap();
    let records = json["records"].as_array().unwrap();
    let graph = records
        .iter()
        .find_map(|r| r["value"].get("graph_def"))
        .expect("an event with a graph");
    let ops: Vec<&str> = graph["node"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["op"].as_str().unwrap())
        .collect();
    assert_eq!(ops, ["Placeholder", "Const", "Mul", "Identity"]);
    let meta = records
        .iter()
        .find_map(|r| r["value"].get("meta_graph_def"))
        .expect("an event with a meta graph");
    assert!(
        meta["graph_def"]["node"]
            .as_array()
            .is_some_and(|n| !n.is_empty()),
        "{meta}"
    );
    let text = text_of(&bytes, &RenderOptions::default());
    assert!(
        text.contains("  graph_def (") && text.contains("  meta_graph_def ("),
        "{text}"
    );
    let d = formats::detect(&bytes, &FormatOptions::default()).unwrap();
    let model = pbdecode::graph::model_of(&d).expect("the event file's graphs");
    assert_eq!(model.graphs.len(), 2);
    assert!(model.graphs.iter().all(|g| !g.nodes.is_empty()));
    let tf2 = read("tf2.tfevents");
    let d = formats::detect(&tf2, &FormatOptions::default()).unwrap();
    assert!(pbdecode::graph::model_of(&d).is_some_and(|m| !m.graphs.is_empty()));
    // A record file of Examples has none.
    let examples = read("examples.tfrecord");
    let d = formats::detect(&examples, &FormatOptions::default()).unwrap();
    assert!(pbdecode::graph::model_of(&d).is_none());
}
