//! TensorFlow SavedModels and GraphDefs: text and JSON snapshots of the
//! fixtures in tests/fixtures/tf (made by scripts/make_tf_fixtures.py, see
//! its README.md), the decoys that must stay `protobuf`, and the validation
//! rules, on messages hand-encoded here.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use crate::common;

use common::{Msg, build};
use pbdecode::formats::{self, FormatOptions};
use pbdecode::render::{RenderOptions, json, text};
use std::path::Path;

const DIR: &str = "tests/fixtures/tf";

fn read(name: &str) -> Vec<u8> {
    let path = Path::new(DIR).join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn text_of(bytes: &[u8], opts: &RenderOptions) -> String {
    let decoded = formats::detect(bytes, &FormatOptions::default())
        .unwrap_or_else(|r| panic!("not decoded: {}", r.error));
    let mut out = Vec::new();
    text::write_decoded(&mut out, &decoded, opts).expect("write to a Vec");
    String::from_utf8(out).expect("UTF-8 text")
}

fn json_of(bytes: &[u8]) -> String {
    let decoded = formats::detect(bytes, &FormatOptions::default())
        .unwrap_or_else(|r| panic!("not decoded: {}", r.error));
    let mut out = Vec::new();
    json::write_decoded(&mut out, &decoded, &RenderOptions::default()).expect("write to a Vec");
    String::from_utf8(out).expect("UTF-8 JSON")
}

fn format_of(bytes: &[u8]) -> Option<&'static str> {
    formats::detect(bytes, &FormatOptions::default())
        .ok()
        .map(|d| d.format.id)
}

/// Why `--as auto` does not take the input as `id`: the error `--as id`
/// gives, or, for a tensor that breaks a size rule (which `--as id` shows
/// anyway), the problems reported with it.
fn rejection(id: &str, bytes: &[u8]) -> String {
    assert_ne!(
        format_of(bytes),
        Some(id),
        "--as auto took the input as {id}"
    );
    let format = formats::find(id).expect("registered format");
    match formats::decode_as(format, bytes, &FormatOptions::default()) {
        Ok(d) => {
            let problems = formats::tensor_problems(&d.body);
            assert!(
                !problems.is_empty(),
                "--as {id} accepted the input with no problem"
            );
            let texts: Vec<String> = problems.iter().map(ToString::to_string).collect();
            texts.join("; ")
        }
        Err(e) => e.to_string(),
    }
}

fn snapshot(name: &str, value: String) {
    crate::common::snapshot_settings().bind(|| {
        insta::assert_snapshot!(format!("tf_formats__{name}"), value);
    });
}

// ---------------------------------------------------------------------------
// Hand-made messages, with the tests' encoder (tests/common).

/// A tensorflow.TensorProto: dtype, shape, then the value fields given.
fn tensor(dtype: u64, dims: &[i64], values: Msg) -> Msg {
    build::tf_tensor_fields(dtype, dims, &values)
}

/// A GraphDef with one Const node (`c`) holding `t`.
fn graph_with_const(t: &Msg) -> Vec<u8> {
    build::tf_graph(&[("c", t.buf.clone())])
}

fn const_values(graph: &[u8]) -> String {
    let j = json_of(graph);
    let start = j.find("\"values\": ").expect("values in the JSON");
    let rest = &j[start..];
    // The list ends where its brackets balance.
    let mut depth = 0i32;
    let mut end = rest.len();
    for (i, c) in rest.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    end = i + 1;
                    break;
                }
            }
            _ => {}
        }
    }
    rest[..end].to_string()
}

// ---------------------------------------------------------------------------
// Fixtures made with TensorFlow

#[test]
fn graph_all_forms() {
    let bytes = read("graph_all_forms.pb");
    assert_eq!(format_of(&bytes), Some("tf-graph-def"));
    snapshot(
        "graph_all_forms_text",
        text_of(&bytes, &RenderOptions::default()),
    );
    let all = RenderOptions {
        values: Some(u64::MAX),
        ..RenderOptions::default()
    };
    snapshot("graph_all_forms_values_all", text_of(&bytes, &all));
    snapshot(
        "graph_all_forms_json",
        common::json::pretty(&json_of(&bytes)),
    );
}

#[test]
fn saved_model_two_signatures() {
    let bytes = read("saved_model_two_signatures.pb");
    assert_eq!(format_of(&bytes), Some("tf-saved-model"));
    let t = text_of(&bytes, &RenderOptions::default());
    // What saved_model_cli shows first: tags, then each signature.
    let tags = t.find("tag-set: {serve}").expect("tags");
    let sig = t.find("signature_def[\"classify\"]").expect("signature");
    let lib = t.find("function library").expect("library");
    assert!(tags < sig && sig < lib);
    assert!(t.contains("x: DT_FLOAT [?, 3] <- serving_default_x:0"));
    assert!(t.contains("variable w: DT_FLOAT [3, 2] trainable"));
    snapshot("saved_model_two_signatures_text", t);
    snapshot(
        "saved_model_two_signatures_json",
        common::json::pretty(&json_of(&bytes)),
    );
}

#[test]
fn saved_model_tf1_sparse() {
    let bytes = read("saved_model_tf1_sparse.pb");
    assert_eq!(format_of(&bytes), Some("tf-saved-model"));
    let t = text_of(&bytes, &RenderOptions::default());
    assert!(t.contains("sp: DT_FLOAT [?, 4] <- sparse (values sp/values:0"));
    assert!(t.contains("tag-set: {train, gpu}"));
    snapshot("saved_model_tf1_sparse_text", t);
    snapshot(
        "saved_model_tf1_sparse_json",
        common::json::pretty(&json_of(&bytes)),
    );
}

/// Values TensorFlow gives (expect_values.json, from parse_tensor and
/// make_ndarray), for the storage forms that are easy to get wrong.
#[test]
fn values_match_tensorflow() {
    let j = json_of(&read("graph_all_forms.pb"));
    for (name, values) in [
        ("content_int4", "[7, -8, -1, 1]"),
        ("content_f4e2m1", "[0.5, 6.0, -6.0, -0.0]"),
        (
            "half_val",
            "[1.0, \"Infinity\", \"-Infinity\", \"NaN\", 5.9604645e-8]",
        ),
        ("half_val_bf16", "[1.0, -2.0]"),
        ("int_val_int2", "[-2, -1, 0, 1]"),
        ("scomplex_val", "[[1.0, 2.0], [3.0, -4.0]]"),
        ("pad_scomplex", "[[1.0, -1.0], [1.0, -1.0], [1.0, -1.0]]"),
        ("pad_string", "[\"a\", \"z\", \"z\"]"),
        ("pad_int", "[1, 2, 2, 2]"),
        ("zeros_c128", "[[0.0, 0.0], [0.0, 0.0]]"),
        ("float8_val_e4m3b11fnuz", "[1.0, \"NaN\"]"),
        ("uint64_val", "[1, 18446744073709551615]"),
    ] {
        let at = j
            .find(&format!("\"name\": \"{name}\""))
            .unwrap_or_else(|| panic!("{name} in the JSON"));
        let tail = &j[at..];
        let v = tail.find("\"values\": ").expect("values");
        assert!(
            tail[v + 10..].starts_with(values),
            "{name}: {}",
            &tail[v..(v + 80).min(tail.len())]
        );
    }
}

// ---------------------------------------------------------------------------
// Decoys: protobufs TensorFlow writes that are neither format.

#[test]
fn decoys_are_protobuf() {
    for name in [
        "fingerprint.pb",
        "keras_metadata.pb",
        "example.pb",
        "sequence_example.pb",
        "sequence_example_no_context.pb",
        "event_graph.pb",
        "event_graph_no_time.pb",
        "event_summary.pb",
        "event_file_version.pb",
        "decoy_node_without_op.pb",
        "decoy_function_without_name.pb",
    ] {
        assert_eq!(format_of(&read(name)), Some("protobuf"), "{name}");
    }
}

#[test]
fn decoys_say_why() {
    let why = |name: &str, id: &str| rejection(id, &read(name));
    assert!(why("fingerprint.pb", "tf-saved-model").contains("wire type"));
    assert!(why("event_graph_no_time.pb", "tf-graph-def").contains("VersionDef"));
    assert!(why("decoy_node_without_op.pb", "tf-graph-def").contains("NodeDef has no op"));
    assert!(
        why("decoy_function_without_name.pb", "tf-graph-def")
            .contains("FunctionDef has no signature name")
    );
    // Its bytes are also a schema-valid SavedModel whose only meta graph
    // has no graph (and an Any without a type URL).
    assert!(
        why("decoy_function_without_name.pb", "tf-saved-model")
            .contains("MetaGraphDef has no graph_def")
    );
    // The example's float bytes are no UTF-8 name.
    assert!(why("example.pb", "tf-graph-def").contains("UTF-8"));
}

// ---------------------------------------------------------------------------
// Validation and the TensorProto rules, on hand-encoded messages.

#[test]
fn empty_tensor_content_reads_the_typed_field() {
    // TensorFlow: `if tensor.tensor_content` / `!tensor_content().empty()`.
    let t = tensor(
        1,
        &[2],
        Msg::new().len_field(4, &[]).packed_floats(5, &[1.5]),
    );
    assert_eq!(
        const_values(&graph_with_const(&t)),
        "\"values\": [1.5, 1.5]"
    );
}

#[test]
fn tensor_content_size_is_exact() {
    let t = tensor(1, &[2], Msg::new().len_field(4, &[0; 7]));
    let g = graph_with_const(&t);
    assert_eq!(format_of(&g), Some("protobuf"));
    let why = rejection("tf-graph-def", &g);
    assert!(why.contains("tensor_content") || why.contains("8"), "{why}");
    // Sub-byte types take a byte each.
    let t = tensor(29, &[3], Msg::new().len_field(4, &[1, 2, 0xf]));
    assert_eq!(
        const_values(&graph_with_const(&t)),
        "\"values\": [1, 2, -1]"
    );
}

#[test]
fn typed_fields_longer_than_the_shape_are_refused() {
    let t = tensor(1, &[2], Msg::new().packed_floats(5, &[1.0, 2.0, 3.0]));
    let why = rejection("tf-graph-def", &graph_with_const(&t));
    assert!(
        why.contains("float_val holds 3 values, the shape needs 2"),
        "{why}"
    );
}

#[test]
fn complex_values_count_in_pairs() {
    // 5 values for 2 elements: two pairs and a dropped value, as TensorFlow.
    let five = tensor(
        8,
        &[2],
        Msg::new().packed_floats(9, &[1.0, 2.0, 3.0, 4.0, 9.0]),
    );
    assert_eq!(
        const_values(&graph_with_const(&five)),
        "\"values\": [[1.0, 2.0], [3.0, 4.0]]"
    );
    // A lone value is no pair at all: zeros.
    let one = tensor(8, &[2], Msg::new().packed_floats(9, &[7.0]));
    assert_eq!(
        const_values(&graph_with_const(&one)),
        "\"values\": [[0.0, 0.0], [0.0, 0.0]]"
    );
    // 3 pairs for 2 elements: too many.
    let six = tensor(8, &[2], Msg::new().packed_floats(9, &[1.0; 6]));
    let why = rejection("tf-graph-def", &graph_with_const(&six));
    assert!(why.contains("pairs"), "{why}");
}

#[test]
fn short_float8_val_is_padded_with_its_last_value() {
    // TensorFlow repeats the last value of a short float8_val (a bytes field).
    let t = tensor(25, &[3], Msg::new().len_field(18, &[0x38]));
    let j = json_of(&graph_with_const(&t));
    assert!(j.contains("\"values\": [1.0, 1.0, 1.0]"), "{j}");
}

#[test]
fn odd_complex_lists_drop_the_unpaired_value_before_padding() {
    // 3 values for 3 elements: one pair, the lone 9.0 dropped, then the
    // pair repeated.
    let t = tensor(8, &[3], Msg::new().packed_floats(9, &[1.0, -1.0, 9.0]));
    let j = json_of(&graph_with_const(&t));
    assert!(
        j.contains("\"values\": [[1.0, -1.0], [1.0, -1.0], [1.0, -1.0]]"),
        "{j}"
    );
}

#[test]
fn string_tensors_in_tensor_content_are_refused() {
    let t = tensor(7, &[1], Msg::new().len_field(4, &[1, b'a']));
    let why = rejection("tf-graph-def", &graph_with_const(&t));
    assert!(why.contains("string_val"), "{why}");
}

#[test]
fn nodes_need_a_name() {
    let g = Msg::new().message(1, &Msg::new().string(2, "NoOp")).buf;
    assert_eq!(format_of(&g), Some("protobuf"));
    assert!(rejection("tf-graph-def", &g).contains("NodeDef has no name"));
}

#[test]
fn any_needs_a_type_url() {
    let meta_info = Msg::new()
        .string(4, "serve")
        .message(3, &Msg::new().string(1, "no-slash"));
    let graph = Msg::new().message(1, &Msg::new().string(1, "n").string(2, "NoOp"));
    let sm = Msg::new()
        .varint(1, 1)
        .message(2, &Msg::new().message(1, &meta_info).message(2, &graph))
        .buf;
    assert!(rejection("tf-saved-model", &sm).contains("type_url"));
}

/// A SavedModel with what the TensorFlow fixtures lack: a composite
/// (ragged) signature input, signature defaults, and under `--as` a field
/// newer than the tables.
fn hand_saved_model(unknown: bool) -> Vec<u8> {
    // A TensorInfo: name, dtype, shape.
    let info = |name: &str, dtype: u64, dims: &[i64]| {
        Msg::new()
            .string(1, name)
            .varint(2, dtype)
            .message(3, &build::tf_shape(dims))
    };
    let type_spec = Msg::new()
        .varint(1, 3)
        .string(3, "RaggedTensorSpec")
        .varint(4, 2);
    let composite = Msg::new()
        .message(1, &type_spec)
        .message(2, &info("r_values:0", 3, &[-1]))
        .message(2, &info("r_splits:0", 9, &[-1]));
    let r = Msg::new().message(5, &composite).varint(2, 3);
    let out = info("out:0", 1, &[-1, 2]);
    let default = tensor(1, &[], Msg::new().packed_floats(5, &[0.5]));
    // A map entry: key, value.
    let entry = |k: &str, v: &Msg| Msg::new().string(1, k).message(2, v);
    let sig = Msg::new()
        .message(1, &entry("r", &r))
        .message(2, &entry("y", &out))
        .string(3, "tensorflow/serving/predict")
        .message(4, &entry("scale", &default));
    let mut node = Msg::new().string(1, "r_values").string(2, "Placeholder");
    if unknown {
        node = node.varint(99, 7);
    }
    let graph = Msg::new().message(1, &node);
    let mg = Msg::new()
        .message(1, &Msg::new().string(4, "serve"))
        .message(2, &graph)
        .message(5, &entry("serving_default", &sig));
    Msg::new().varint(1, 1).message(2, &mg).buf
}

#[test]
fn composite_signature_and_defaults() {
    let sm = hand_saved_model(false);
    let t = text_of(&sm, &RenderOptions::default());
    assert!(t.contains(
        "r: DT_INT32 [] <- composite RaggedTensorSpec (2 flat components), 2 components:"
    ));
    assert!(t.contains("scale: DT_FLOAT [] {0.5}"));
    snapshot("hand_saved_model_text", t);
    snapshot("hand_saved_model_json", common::json::pretty(&json_of(&sm)));
}

#[test]
fn forced_shows_fields_newer_than_the_tables() {
    let sm = hand_saved_model(true);
    assert_eq!(format_of(&sm), Some("protobuf"));
    let format = formats::find("tf-saved-model").expect("registered");
    let decoded = formats::decode_as(format, &sm, &FormatOptions::default()).expect("forced");
    let mut out = Vec::new();
    text::write_decoded(&mut out, &decoded, &RenderOptions::default()).expect("write");
    let t = String::from_utf8(out).expect("UTF-8");
    assert!(t.contains("99 (VARINT, not in the schema)"), "{t}");
}

/// Prefixes and one-byte changes of a fixture: never a panic.
#[test]
fn damaged_inputs_never_panic() {
    let bytes = read("graph_all_forms.pb");
    // Whatever `--as auto` makes of a damaged GraphDef renders, and its
    // JSON parses; what it turns down is turned down with an offset.
    let mut formats_seen = std::collections::BTreeSet::new();
    let mut check = |b: &[u8]| match formats::detect(b, &FormatOptions::default()) {
        Ok(d) => {
            formats_seen.insert(d.format.id);
            let mut out = Vec::new();
            text::write_decoded(&mut out, &d, &RenderOptions::default()).expect("write");
            let mut j = Vec::new();
            json::write_decoded(&mut j, &d, &RenderOptions::default()).expect("write");
            let j = String::from_utf8(j).expect("UTF-8 JSON");
            common::json::parse(&j).unwrap_or_else(|e| panic!("bad JSON ({e}): {j}"));
        }
        Err(r) => {
            let e = r.error.to_string();
            assert!(e.contains("@0x"), "no offset in {e}");
        }
    };
    let step = (bytes.len() / 120).max(1);
    for cut in (0..bytes.len()).step_by(step) {
        check(&bytes[..cut]);
        let mut b = bytes.clone();
        b[cut] ^= 0xff;
        check(&b);
    }
    // Damage keeps some inputs GraphDefs and turns others into plain
    // protobuf.
    assert!(
        formats_seen.contains("tf-graph-def") && formats_seen.contains("protobuf"),
        "{formats_seen:?}"
    );
}
