//! ONNX models, sequences/optionals/maps and sparse tensors: text and JSON
//! snapshots of the fixtures in tests/fixtures/onnx-model and
//! tests/fixtures/onnx-containers (made by scripts/make_onnx_fixtures.py),
//! and the validation rules of those formats.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use crate::common;

use pbdecode::formats::{self, FormatOptions};
use pbdecode::render::{RenderOptions, json, text};
use std::path::{Path, PathBuf};

const MODEL_DIR: &str = "tests/fixtures/onnx-model";
const CONT_DIR: &str = "tests/fixtures/onnx-containers";

fn read(dir: &str, name: &str) -> Vec<u8> {
    let path = Path::new(dir).join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn opts(dir: &str) -> RenderOptions {
    RenderOptions {
        dir: Some(PathBuf::from(dir).into()),
        ..RenderOptions::default()
    }
}

fn render_text(dir: &str, name: &str, opts: &RenderOptions) -> String {
    let bytes = read(dir, name);
    let decoded = formats::detect(&bytes, &FormatOptions::default())
        .unwrap_or_else(|r| panic!("{name}: not decoded: {}", r.error));
    let mut out = Vec::new();
    text::write_decoded(&mut out, &decoded, opts).expect("write to a Vec");
    String::from_utf8(out).expect("UTF-8 text")
}

fn render_json(dir: &str, name: &str, opts: &RenderOptions) -> String {
    let bytes = read(dir, name);
    let decoded = formats::detect(&bytes, &FormatOptions::default())
        .unwrap_or_else(|r| panic!("{name}: not decoded: {}", r.error));
    let mut out = Vec::new();
    json::write_decoded(&mut out, &decoded, opts).expect("write to a Vec");
    String::from_utf8(out).expect("UTF-8 JSON")
}

fn format_of(bytes: &[u8]) -> Option<&'static str> {
    formats::detect(bytes, &FormatOptions::default())
        .ok()
        .map(|d| d.format.id)
}

fn rejection(id: &str, bytes: &[u8]) -> String {
    let format = formats::find(id).expect("registered format");
    match formats::decode_as(format, bytes, &FormatOptions::default()) {
        Ok(_) => panic!("--as {id} accepted the input"),
        Err(e) => e.to_string(),
    }
}

/// Snapshots `name` (text, JSON, `--values 3`) under `stem`.
fn snapshots(dir: &str, name: &str, stem: &str) {
    let o = opts(dir);
    let three = RenderOptions {
        values: Some(3),
        ..opts(dir)
    };
    crate::common::snapshot_settings().bind(|| {
        insta::assert_snapshot!(
            format!("onnx_formats__{stem}_text"),
            render_text(dir, name, &o)
        );
        insta::assert_snapshot!(
            format!("onnx_formats__{stem}_json"),
            common::json::pretty(&render_json(dir, name, &o))
        );
        insta::assert_snapshot!(
            format!("onnx_formats__{stem}_values3"),
            render_text(dir, name, &three)
        );
    });
}

#[test]
fn model_everything() {
    snapshots(MODEL_DIR, "everything.onnx", "model_everything");
}

#[test]
fn model_external() {
    snapshots(MODEL_DIR, "external.onnx", "model_external");
}

#[test]
fn model_constants() {
    snapshots(MODEL_DIR, "constants.onnx", "model_constants");
}

#[test]
fn model_unknown_field() {
    snapshots(MODEL_DIR, "unknown_field.onnx", "model_unknown_field");
}

#[test]
fn seq_nested() {
    snapshots(CONT_DIR, "seq_nested.pb", "seq_nested");
}

#[test]
fn map_string_keys() {
    snapshots(CONT_DIR, "map_string_keys.pb", "map_string_keys");
}

#[test]
fn map_int_keys() {
    snapshots(CONT_DIR, "map_int_keys.pb", "map_int_keys");
}

#[test]
fn opt_empty() {
    snapshots(CONT_DIR, "opt_empty.pb", "opt_empty");
}

#[test]
fn opt_tensor() {
    snapshots(CONT_DIR, "opt_tensor.pb", "opt_tensor");
}

#[test]
fn sparse_coo() {
    snapshots(CONT_DIR, "sparse_coo.pb", "sparse_coo");
}

#[test]
fn sparse_linear() {
    snapshots(CONT_DIR, "sparse_linear.pb", "sparse_linear");
}

#[test]
fn dense_views() {
    let dense = RenderOptions {
        dense: true,
        ..opts(CONT_DIR)
    };
    let dense3 = RenderOptions {
        dense: true,
        values: Some(3),
        ..opts(CONT_DIR)
    };
    let model_dense = RenderOptions {
        dense: true,
        ..opts(MODEL_DIR)
    };
    crate::common::snapshot_settings().bind(|| {
        insta::assert_snapshot!(
            "onnx_formats__sparse_coo_dense",
            render_text(CONT_DIR, "sparse_coo.pb", &dense)
        );
        insta::assert_snapshot!(
            "onnx_formats__sparse_linear_dense",
            render_text(CONT_DIR, "sparse_linear.pb", &dense)
        );
        insta::assert_snapshot!(
            "onnx_formats__sparse_coo_dense_values3",
            render_text(CONT_DIR, "sparse_coo.pb", &dense3)
        );
        insta::assert_snapshot!(
            "onnx_formats__model_everything_dense",
            render_text(MODEL_DIR, "everything.onnx", &model_dense)
        );
    });
}

#[test]
fn detection() {
    let expect = [
        (MODEL_DIR, "everything.onnx", "onnx-model"),
        (MODEL_DIR, "external.onnx", "onnx-model"),
        (MODEL_DIR, "constants.onnx", "onnx-model"),
        // Fields 99 and 100 are newer than onnx 1.23: still a model.
        (MODEL_DIR, "unknown_field.onnx", "onnx-model"),
        (CONT_DIR, "seq_nested.pb", "onnx-sequence"),
        (CONT_DIR, "map_string_keys.pb", "onnx-sequence"),
        (CONT_DIR, "map_int_keys.pb", "onnx-sequence"),
        (CONT_DIR, "opt_empty.pb", "onnx-sequence"),
        (CONT_DIR, "opt_tensor.pb", "onnx-sequence"),
        (CONT_DIR, "sparse_coo.pb", "onnx-sparse-tensor"),
        (CONT_DIR, "sparse_linear.pb", "onnx-sparse-tensor"),
        // Invalid sparse tensors are only protobuf.
        (CONT_DIR, "sparse_unsorted.pb", "protobuf"),
        (CONT_DIR, "sparse_out_of_range.pb", "protobuf"),
    ];
    for (dir, name, id) in expect {
        assert_eq!(format_of(&read(dir, name)), Some(id), "{name}");
    }
}

#[test]
fn sparse_rules() {
    let e = rejection("onnx-sparse-tensor", &read(CONT_DIR, "sparse_unsorted.pb"));
    assert!(e.contains("ascending"), "{e}");
    let e = rejection(
        "onnx-sparse-tensor",
        &read(CONT_DIR, "sparse_out_of_range.pb"),
    );
    assert!(e.contains("outside the dense shape"), "{e}");
}

/// A MapProto with key_type and one INT64 key, its one value a scalar.
fn map_bytes(key_type: u8, key: &[u8]) -> Vec<u8> {
    let tensor = [0x10, 0x07, 0x38, 0x01]; // data_type INT64, int64_data [1]
    let mut seq = vec![0x10, 0x01, 0x1a, tensor.len() as u8]; // elem_type TENSOR
    seq.extend_from_slice(&tensor);
    let mut map = vec![0x10, key_type, 0x18];
    map.extend_from_slice(key);
    map.extend_from_slice(&[0x2a, seq.len() as u8]);
    map.extend_from_slice(&seq);
    map
}

#[test]
fn map_rules() {
    // INT8 key 100 fits; 300 does not.
    assert_eq!(format_of(&map_bytes(3, &[100])), Some("onnx-sequence"));
    let e = rejection("onnx-sequence", &map_bytes(3, &[0xac, 0x02]));
    assert!(e.contains("does not fit key_type"), "{e}");
    // A float key type is not a map key type.
    let e = rejection("onnx-sequence", &map_bytes(1, &[1]));
    assert!(e.contains("key_type"), "{e}");
    // Two keys, one value.
    let mut two = map_bytes(7, &[1]);
    two.extend_from_slice(&[0x18, 0x02]);
    let e = rejection("onnx-sequence", &two);
    assert!(e.contains("2 keys and 1 values"), "{e}");
}

#[test]
fn external_data_is_per_tensor() {
    let text = render_text(MODEL_DIR, "external.onnx", &opts(MODEL_DIR));
    // The good tensors decode, the broken ones say why, the rest goes on.
    assert!(text.contains("B: FLOAT[3]"), "{text}");
    assert!(text.contains("= [1.0, -1.0, 0.5]"), "{text}");
    assert!(text.contains("values not available: cannot read"), "{text}");
    assert!(text.contains("is short"), "{text}");
    assert!(
        text.contains("inline: FLOAT[1]  (1 element) = [2.0]"),
        "{text}"
    );
    // Standard input has no folder: every external tensor says so.
    let stdin = render_text(MODEL_DIR, "external.onnx", &RenderOptions::default());
    assert!(stdin.contains("the input has no folder"), "{stdin}");
}

#[test]
fn nothing_dropped_from_models() {
    // Every attribute kind is in the node line.
    let text = render_text(MODEL_DIR, "everything.onnx", &opts(MODEL_DIR));
    for needle in [
        "alpha=0.5",
        "count=3",
        "label=\"hello\"",
        "weights=tensor \"eye\" FLOAT[2, 2]",
        "body_graph=graph \"g_small\"",
        "sp=sparse \"sp\" FLOAT[2, 3]",
        "ty=type INT64[2, ?]",
        "floats=[1.0, 2.5]",
        "ints=[1, 2, 3]",
        "strings=[\"a\", \"b\"]",
        "tensors=[tensor \"t1\" INT32[2] [1, 2]",
        "graphs=[graph \"g_small\", graph \"g_small\"]",
        "sparses=[sparse \"sp2\" INT64[6]",
        "types=[type seq(FLOAT[?]), type map(STRING, INT64[])]",
        "alpha=@alpha",
        "doc_string: \"a float\"",
        "update_binding: w_float = \"w_new\"",
        "configuration:  mesh: 2 devices",
        "pipeline_stage: 1",
        "w_int8: SCALE_TENSOR = \"w_scale\"",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
    let unknown = render_text(MODEL_DIR, "unknown_field.onnx", &opts(MODEL_DIR));
    assert!(
        unknown.contains("99 (VARINT, not in the schema)"),
        "{unknown}"
    );
    assert!(
        unknown.contains("100 (LEN, not in the schema)"),
        "{unknown}"
    );
}

#[test]
fn values_all_prints_every_value() {
    let all = RenderOptions {
        values: Some(u64::MAX),
        ..opts(MODEL_DIR)
    };
    let text = render_text(MODEL_DIR, "everything.onnx", &all);
    assert!(!text.contains("left out"), "{text}");
    assert!(!text.contains(" more …"), "{text}");
}

/// Truncated and bit-flipped fixtures never panic in detection or rendering.
#[test]
fn damaged_inputs_never_panic() {
    let files = [
        (MODEL_DIR, "everything.onnx"),
        (MODEL_DIR, "external.onnx"),
        (CONT_DIR, "seq_nested.pb"),
        (CONT_DIR, "map_string_keys.pb"),
        (CONT_DIR, "sparse_coo.pb"),
        (CONT_DIR, "sparse_linear.pb"),
    ];
    let dense = RenderOptions {
        dense: true,
        values: Some(4),
        ..opts(MODEL_DIR)
    };
    // Each damaged input is either decoded, and then its JSON output parses,
    // or turned down with an error that names an offset.
    let (mut taken, mut refused) = (0u32, 0u32);
    let mut render = |bytes: &[u8]| {
        for id in ["onnx-model", "onnx-sequence", "onnx-sparse-tensor"] {
            let f = formats::find(id).expect("registered");
            match formats::decode_as(f, bytes, &FormatOptions::default()) {
                Ok(d) => {
                    taken += 1;
                    let mut out = Vec::new();
                    let _ = text::write_decoded(&mut out, &d, &dense);
                    let mut j = Vec::new();
                    if json::write_decoded(&mut j, &d, &dense).is_ok() {
                        let j = String::from_utf8(j).expect("UTF-8 JSON");
                        common::json::parse(&j)
                            .unwrap_or_else(|e| panic!("--as {id}: bad JSON ({e}): {j}"));
                    }
                }
                Err(e) => {
                    refused += 1;
                    let e = e.to_string();
                    assert!(e.contains("@0x"), "--as {id}: no offset in {e}");
                }
            }
        }
    };
    for (dir, name) in files {
        let bytes = read(dir, name);
        for cut in 0..bytes.len() {
            render(bytes.get(..cut).unwrap_or(&[]));
        }
        for i in (0..bytes.len()).step_by(3) {
            let mut b = bytes.clone();
            if let Some(x) = b.get_mut(i) {
                *x ^= 0x5a;
            }
            render(&b);
        }
    }
    // The sample reaches both outcomes.
    assert!(
        taken > 100 && refused > 100,
        "{taken} taken, {refused} refused"
    );
}

#[test]
fn empty_optional_with_undefined_elem_type() {
    // numpy_helper.from_optional(None) writes elem_type UNDEFINED (0) and
    // nothing else (ONNX's test_optional_has_element_empty_optional_input).
    let mut bytes = vec![0x0a, 14];
    bytes.extend_from_slice(b"optional_input");
    bytes.extend_from_slice(&[0x10, 0x00]);
    assert_eq!(format_of(&bytes), Some("onnx-sequence"));
    // UNDEFINED with an element after it is not valid.
    let mut with_tensor = bytes.clone();
    with_tensor.extend_from_slice(&[0x1a, 0x02, 0x10, 0x01]);
    let why = rejection("onnx-sequence", &with_tensor);
    assert!(why.contains("UNDEFINED"), "{why}");
}

/// ModelProto { ir_version: 10, graph { initializer { dims: [2], FLOAT,
/// name: "W", raw_data: 7 bytes } } }: one byte short of two floats.
fn model_with_short_initializer() -> Vec<u8> {
    let mut tensor = vec![0x08, 0x02, 0x10, 0x01, 0x42, 0x01, b'W', 0x4a, 0x07];
    tensor.extend_from_slice(&[0, 0, 0x80, 0x3f, 0, 0, 0]);
    let mut graph = vec![0x2a, tensor.len() as u8];
    graph.extend_from_slice(&tensor);
    let mut model = vec![0x08, 0x0a, 0x3a, graph.len() as u8];
    model.extend_from_slice(&graph);
    model
}

#[test]
fn a_bad_initializer_is_shown_under_as_onnx_model() {
    let bytes = model_with_short_initializer();
    // --as auto: the model's tensor breaks the tensor rules, so the file is
    // read without a schema, and the near miss says why.
    assert_eq!(format_of(&bytes), Some("protobuf"));
    let auto = formats::detect(&bytes, &FormatOptions::default()).expect("decoded");
    let misses = formats::near_misses(&auto, &bytes, &FormatOptions::default());
    let (format, error, shown) = misses.first().expect("a near miss");
    assert_eq!(format.id, "onnx-model");
    assert!(
        error
            .to_string()
            .contains("raw_data is 7 bytes, the shape needs 8"),
        "{error}"
    );
    assert!(shown);
    // --as onnx-model: the model, with the problem reported and the tensor's
    // view saying what is wrong.
    let model = formats::find("onnx-model").expect("registered");
    let decoded = formats::decode_as(model, &bytes, &FormatOptions::default()).expect("shown");
    let problems = formats::tensor_problems(&decoded.body);
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0].to_string().contains("tensor \"W\""),
        "{}",
        problems[0]
    );
    let mut out = Vec::new();
    text::write_decoded(&mut out, &decoded, &RenderOptions::default()).expect("text");
    let text = String::from_utf8(out).expect("UTF-8");
    assert!(
        text.contains("the shape holds 2 elements, the data only 1"),
        "{text}"
    );
}
