//! What a reader of real models sees in the text views: weights held by
//! Constant nodes counted with the parameters, attributes that hold a data
//! type named (`to=INT64`), one number style for counts, long strings and
//! long object lists elided (`--values all` shows them), and tensor
//! previews cut at whole rows. The inputs are built here with the test
//! encoder.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use crate::common;

use common::Msg;
use common::build::onnx_f32;
use pbdecode::formats::{self, FormatOptions};
use pbdecode::render::RenderOptions;

fn text(bytes: &[u8], opts: &RenderOptions) -> String {
    let decoded = formats::detect(bytes, &FormatOptions::default()).unwrap();
    common::render(&decoded, opts).0
}

fn snap(name: &str, out: &str) {
    crate::common::snapshot_settings().bind(|| {
        insta::assert_snapshot!(format!("views__{name}"), out);
    });
}

fn all_values() -> RenderOptions {
    RenderOptions {
        values: Some(u64::MAX),
        ..Default::default()
    }
}

/// An AttributeProto holding an int.
fn int_attr(name: &str, v: i64) -> Msg {
    Msg::new().string(1, name).int(3, v).varint(20, 2)
}

/// A NodeProto.
fn node(op: &str, inputs: &[&str], outputs: &[&str], attrs: &[Msg]) -> Msg {
    let mut n = Msg::new();
    for i in inputs {
        n = n.string(1, i);
    }
    for o in outputs {
        n = n.string(2, o);
    }
    n = n.string(4, op);
    for a in attrs {
        n = n.message(5, a);
    }
    n
}

/// A model whose weights are Constant nodes (as PaddleOCR and silero-vad
/// exports are), with a Cast and a RandomNormal, a long metadata value and
/// a [64,3,7,7] initializer next to a [4,3,1,1] one.
fn constant_model() -> Vec<u8> {
    let w: Vec<f32> = (0..192).map(|i| i as f32).collect();
    let weight = Msg {
        buf: onnx_f32("w", &[64, 3, 1, 1], &w),
    };
    let value = Msg::new()
        .string(1, "value")
        .message(5, &weight)
        .varint(20, 4);
    let floats = Msg::new()
        .string(1, "value_floats")
        .packed_fixed32(7, &[1.0f32.to_bits(), 2.0f32.to_bits()])
        .varint(20, 6);
    let conv: Vec<f32> = (0..64 * 3 * 7 * 7).map(|i| (i % 100) as f32).collect();
    let small: Vec<f32> = (0..12).map(|i| i as f32).collect();
    let g = Msg::new()
        .message(1, &node("Constant", &[], &["w"], &[value]))
        .message(1, &node("Constant", &[], &["scale"], &[floats]))
        .message(1, &node("Cast", &["x"], &["xi"], &[int_attr("to", 7)]))
        .message(
            1,
            &node(
                "RandomNormal",
                &[],
                &["noise"],
                &[int_attr("dtype", 1), int_attr("seed", 7)],
            ),
        )
        .string(2, "g")
        .len_field(5, &onnx_f32("conv", &[64, 3, 7, 7], &conv))
        .len_field(5, &onnx_f32("small", &[4, 3, 1, 1], &small));
    let long = "abcdefghij".repeat(100);
    let meta = Msg::new().string(1, "long").string(2, &long);
    let opset = Msg::new().int(2, 21);
    Msg::new()
        .varint(1, 10)
        .string(2, "views-test")
        .message(7, &g)
        .message(8, &opset)
        .message(14, &meta)
        .buf
}

#[test]
fn constants_data_types_long_metadata_and_whole_rows() {
    let bytes = constant_model();
    let out = text(&bytes, &RenderOptions::default());
    // 192 values of `w` and 2 of `scale`; 9,408 + 12 in initializers.
    assert!(
        out.contains("(and 2 Constant nodes holding 194 values)"),
        "{out}"
    );
    assert!(
        out.contains("parameters:     9,614 (with constants)"),
        "{out}"
    );
    assert!(out.contains("{to=INT64}"), "{out}");
    assert!(out.contains("{dtype=FLOAT, seed=7}"), "{out}");
    assert!(out.contains("(800 of 1,000 characters left out"), "{out}");
    snap("constant_model", &out);
    let all = text(&bytes, &all_values());
    assert!(all.contains(&"abcdefghij".repeat(100)));
    assert!(!all.contains("characters left out"));
}

#[test]
fn counts_use_thousands_separators() {
    let values: Vec<f32> = (0..66_048).map(|i| (i % 7) as f32).collect();
    let bytes = onnx_f32("big", &[66_048], &values);
    let out = text(&bytes, &RenderOptions::default());
    assert!(out.contains("… 65,848 values left out"), "{out}");
    assert!(!out.contains("65848"), "{out}");
    snap("counts_grouped", &out);
}

/// A SavedModel whose object graph has a node with 262 children.
fn wide_object_graph() -> Vec<u8> {
    let mut root = Msg::new();
    for i in 1..=262u64 {
        let r = Msg::new().varint(1, i).string(2, &format!("c{i}"));
        root = root.message(1, &r);
    }
    let mut og = Msg::new().message(1, &root);
    for _ in 0..262 {
        og = og.message(1, &Msg::new());
    }
    let mg = Msg::new().len_field(2, &[]).message(7, &og);
    Msg::new().int(1, 1).message(2, &mg).buf
}

#[test]
fn long_child_lists_are_elided() {
    let bytes = wide_object_graph();
    let saved_model = |opts: &RenderOptions| {
        let format = formats::find("tf-saved-model").unwrap();
        let decoded = formats::decode_as(format, &bytes, &FormatOptions::default()).unwrap();
        common::render(&decoded, opts).0
    };
    let out = saved_model(&RenderOptions::default());
    assert!(
        out.contains("c32=32, … 230 more (--values all shows them)"),
        "{out}"
    );
    assert!(!out.contains("c33=33"), "{out}");
    let children: Vec<&str> = out.lines().filter(|l| l.contains("children:")).collect();
    snap("wide_object_graph_children", &children.join("\n"));
    let all = saved_model(&all_values());
    assert!(all.contains("c261=261, c262=262"), "{all}");
}
