//! Protobuf's merge rules in the generic decoder: a field that is not
//! repeated may occur more than once, and what the message then holds is
//! what protobuf's runtimes parse (scalars: the last; oneofs: the member set
//! last; repeated fields: every occurrence, packed or not; messages: merged;
//! map entries: the last of a key). The fixtures (tests/fixtures/merge/,
//! made by scripts/make_merge_fixtures.py) were checked against onnx.load
//! and the protobuf Python runtime when written;
//! scripts/merge_crosscheck.py compares many random cases.
//!
//! What this suite checks, in full: fields that occur more than once merge as protobuf's runtimes
//! merge them (fixtures checked against onnx.load, TensorFlow's rule and
//! the protobuf Python runtime).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use crate::common;

use common::Msg;
use pbdecode::decode::{DecodeContext, Value, decode_message};
use pbdecode::fields::onnx::TensorProto;
use pbdecode::formats::{self, FormatOptions};
use pbdecode::render::{RenderOptions, json, text};
use pbdecode::schema::{FieldId, SchemaSet};
use pbdecode::user_schema;
use std::path::Path;

const DIR: &str = "tests/fixtures/merge";

fn read(name: &str) -> Vec<u8> {
    std::fs::read(Path::new(DIR).join(name)).unwrap()
}

fn render(decoded: &formats::Decoded<'_>) -> (String, Json) {
    let opts = RenderOptions::default();
    let mut t = Vec::new();
    text::write_decoded(&mut t, decoded, &opts).unwrap();
    let mut j = Vec::new();
    json::write_decoded(&mut j, decoded, &opts).unwrap();
    let j = String::from_utf8(j).unwrap();
    (String::from_utf8(t).unwrap(), Json(j))
}

/// The JSON output as text.
struct Json(String);

fn snap(name: &str, text: &str, json: &str) {
    let out = format!("{text}\n{json}");
    crate::common::snapshot_settings().bind(|| {
        insta::assert_snapshot!(format!("merge_rules__{name}"), out);
    });
}

fn parse_json(s: &str) -> common::json::Json {
    common::json::parse(s).unwrap()
}

#[test]
fn a_model_with_two_graphs_shows_the_nodes_of_both() {
    let bytes = read("two_graphs.onnx");
    let decoded = formats::detect(&bytes, &FormatOptions::default()).unwrap();
    assert_eq!(decoded.format.id, "onnx-model");
    let (t, j) = render(&decoded);
    // onnx.load: nodes "hidden" and "shown", initializers w1 and w2, the
    // graph's name from the second occurrence.
    assert!(t.contains("# hidden"), "{t}");
    assert!(t.contains("# shown"), "{t}");
    assert!(
        t.contains("graph \"second\"  (2 nodes, 2 initializers)"),
        "{t}"
    );
    let v = parse_json(&j.0);
    let graph = v.get("value").and_then(|v| v.get("graph")).unwrap();
    let names: Vec<&str> = graph
        .get("node")
        .and_then(|n| n.as_array())
        .unwrap()
        .iter()
        .filter_map(|n| n.get("name").and_then(|s| s.as_str()))
        .collect();
    assert_eq!(names, ["hidden", "shown"]);
    let inits = graph.get("initializer").and_then(|n| n.as_array()).unwrap();
    assert_eq!(inits.len(), 2);
    snap("two_graphs", &t, &j.0);
}

#[test]
fn a_tensorflow_shape_given_twice_is_merged_before_validation() {
    // tensor_shape {dim 2} then {dim 3}: TensorFlow reads [2, 3], which
    // makes the 24 bytes of tensor_content fit (a reader that kept the last
    // shape turned the file down: "24 bytes, the shape needs 12").
    let bytes = read("tf_shape_twice.pb");
    let decoded = formats::detect(&bytes, &FormatOptions::default()).unwrap();
    assert_eq!(decoded.format.id, "tf-graph-def");
    assert!(formats::tensor_problems(&decoded.body).is_empty());
    let (t, j) = render(&decoded);
    assert!(
        t.contains("DT_FLOAT [2, 3] {0.0, 1.0, 2.0, 3.0, 4.0, 5.0}"),
        "{t}"
    );
    snap("tf_shape_twice", &t, &j.0);
}

#[test]
fn a_tensor_written_twice_validates_the_merged_dims_and_last_raw_data() {
    let bytes = read("tensor_dims_twice.pb");
    let decoded = formats::detect(&bytes, &FormatOptions::default()).unwrap();
    assert_eq!(decoded.format.id, "onnx-tensor");
    let (t, j) = render(&decoded);
    assert!(t.contains("shape:     [2, 3]  (6 elements)"), "{t}");
    let v = parse_json(&j.0);
    let values = v.get("value").and_then(|v| v.get("values")).unwrap();
    assert_eq!(values.as_array().map(<[_]>::len), Some(6));
    snap("tensor_dims_twice", &t, &j.0);
}

#[test]
fn validation_sees_a_bad_tensor_in_an_earlier_graph() {
    // The short raw_data sits in the first `graph`; the second is clean.
    let bytes = read("hidden_bad_tensor.onnx");
    let format = formats::find("onnx-model").unwrap();
    let decoded = formats::decode_as(format, &bytes, &FormatOptions::default()).unwrap();
    let problems = formats::tensor_problems(&decoded.body);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0]
            .to_string()
            .contains("raw_data is 12 bytes, the shape needs 16")
    );
    let auto = formats::detect(&bytes, &FormatOptions::default()).unwrap();
    assert_eq!(auto.format.id, "protobuf");
}

#[test]
fn a_user_schema_message_merges_like_the_python_runtime() {
    let set = user_schema::load_proto(&Path::new(DIR).join("merge.proto"), &[]).unwrap();
    let bytes = read("outer.pb");
    let decoded = user_schema::decode(&set, "mc.Outer", &bytes, 100).unwrap();
    let (t, j) = render(&decoded);
    // What protobuf's Python runtime parses (asserted by the generator):
    // MessageToDict(Outer.FromString(outer.pb)).
    let expected = r#"{"one": {"a": 1, "r": [1, 2, 3], "child": {"a": 4, "s": "kept"}, "os": "later member"}, "x": 2, "packed": [5, 6, 7, 8], "mi": {"1": {"s": "replaces"}}, "ms": {"k": "second", "j": "other"}, "c1": {"a": 9, "s": "message member"}, "g": {"ga": 1, "gr": [1, 2]}}"#;
    let got = parse_json(&j.0);
    assert_eq!(got.get("value"), Some(&parse_json(expected)));
    snap("user_schema_outer", &t, &j.0);
}

/// The generic decoder, built by hand: the message of onnx.TensorProto's
/// `segment` (begin = 1, end = 2) given as two occurrences.
#[test]
fn singular_messages_merge_and_scalars_keep_the_last() {
    let set = SchemaSet::builtin();
    let tensor = set.find_message("onnx.TensorProto").unwrap();
    let bytes = Msg::new()
        .varint(1, 3)
        .message(3, &Msg::new().varint(1, 4))
        .string(8, "first")
        .message(3, &Msg::new().varint(2, 6))
        .string(8, "second")
        .varint(1, 7)
        .buf;
    let m = decode_message(set, tensor, &bytes, 0, DecodeContext::strict()).unwrap();
    assert_eq!(m.str(set, TensorProto::NAME), Some("second"));
    assert_eq!(m.field(set, TensorProto::NAME).len(), 1);
    let seg: Vec<_> = m.messages(set, TensorProto::SEGMENT).collect();
    assert_eq!(seg.len(), 1);
    assert_eq!(seg[0].int(set, TensorProto::Segment::BEGIN), Some(4));
    assert_eq!(seg[0].int(set, TensorProto::Segment::END), Some(6));
    // The merged field starts at the first occurrence.
    let f = &m.field(set, TensorProto::SEGMENT)[0];
    assert_eq!(f.offset, 2);
    assert!(matches!(f.value, Value::Message(_)));
    let dims: Vec<i64> = m
        .scalars(set, TensorProto::DIMS)
        .filter_map(|v| v.as_i64())
        .collect();
    assert_eq!(dims, [3, 7]);
}

/// Errors inside a merged message still point at the right byte: the
/// second occurrence holds a field TensorProto.Segment does not have.
#[test]
fn errors_in_a_merged_message_keep_their_offsets() {
    let set = SchemaSet::builtin();
    let tensor = set.find_message("onnx.TensorProto").unwrap();
    let bytes = Msg::new()
        .message(3, &Msg::new().varint(1, 4))
        .string(8, "abc")
        .message(3, &Msg::new().varint(2, 6).varint(9, 1))
        .buf;
    // 0: 1a 02 08 04 | 4: 42 03 61 62 63 | 9: 1a 04 | 11: 10 06 | 13: 48 01
    let e = decode_message(set, tensor, &bytes, 0, DecodeContext::strict()).unwrap_err();
    assert_eq!(e.offset(), 13, "{e}");
    assert!(e.to_string().contains("field 9"), "{e}");
}

/// 100,000 occurrences of one singular message are one merge, in linear
/// time: decoding them takes a bounded number of steps per byte, checked
/// through the size of the result (one message, all 100,000 dims).
#[test]
fn a_message_repeated_100k_times_merges_once() {
    let set = SchemaSet::builtin();
    let tensor = set.find_message("onnx.TensorProto").unwrap();
    let mut msg = Msg::new().varint(2, 1);
    for i in 0..100_000u64 {
        // TypeProto-like nesting is not in TensorProto; `segment` is.
        msg = msg.message(3, &Msg::new().varint(1, i));
    }
    let bytes = msg.buf;
    let m = decode_message(set, tensor, &bytes, 0, DecodeContext::strict()).unwrap();
    let seg: Vec<_> = m.messages(set, TensorProto::SEGMENT).collect();
    assert_eq!(seg.len(), 1);
    assert_eq!(seg[0].int(set, TensorProto::Segment::BEGIN), Some(99_999));
    assert_eq!(seg[0].field(set, TensorProto::Segment::BEGIN).len(), 1);
}

/// A field of a user's message, as the accessors take it (the constants of
/// `pbdecode::fields` cover the built-in tables).
fn user_field(set: &SchemaSet, message: &'static str, name: &'static str) -> FieldId {
    let id = set.find_message(message).unwrap();
    let (slot, def) = set.message(id).field_by_name(name).unwrap();
    FieldId {
        message,
        name,
        number: def.number,
        slot,
    }
}

/// Leniently (a user's schema), occurrences of a message field that cannot
/// be decoded together are all kept raw among the unknown fields, and the
/// rest of the message still decodes.
#[test]
fn occurrences_that_do_not_decode_together_are_kept_raw() {
    let set = user_schema::load_proto(&Path::new(DIR).join("merge.proto"), &[]).unwrap();
    // one {a: 1}, one {<a key cut short>}, x: 5
    let bytes = [0x0a, 0x02, 0x08, 0x01, 0x0a, 0x02, 0xff, 0xff, 0x18, 0x05];
    let decoded = user_schema::decode(&set, "mc.Outer", &bytes, 100).unwrap();
    let formats::Body::UserMessage { message, .. } = &decoded.body else {
        panic!("not a user message");
    };
    assert_eq!(
        message.int(&set, user_field(&set, "mc.Outer", "x")),
        Some(5)
    );
    assert!(!message.has(&set, user_field(&set, "mc.Outer", "one")));
    let unknown: Vec<(u32, u64)> = message
        .unknown()
        .iter()
        .map(|f| (f.number, f.offset))
        .collect();
    assert_eq!(unknown, [(1, 0), (1, 4)]);
}
