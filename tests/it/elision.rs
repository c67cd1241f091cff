//! Long strings and long repeated lists are cut in every text view, like
//! tensor values: in the generic field tree (fields a view does not show
//! itself), in a node's doc string, in a repeated field; `--values all`
//! shows them whole, and JSON output is never cut.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use crate::common;

use common::Msg;
use common::build::onnx_f32;
use pbdecode::formats::{self, FormatOptions};
use pbdecode::render::RenderOptions;

fn render(bytes: &[u8], opts: &RenderOptions) -> (String, String) {
    let decoded = formats::detect(bytes, &FormatOptions::default()).unwrap();
    common::render(&decoded, opts)
}

fn snap(name: &str, out: &str) {
    crate::common::snapshot_settings().bind(|| {
        insta::assert_snapshot!(format!("elision__{name}"), out);
    });
}

fn all_values() -> RenderOptions {
    RenderOptions {
        values: Some(u64::MAX),
        ..Default::default()
    }
}

/// 300 characters: past the 256 a text view shows whole.
fn long_text(what: &str) -> String {
    format!("{what}:").repeat(300).chars().take(300).collect()
}

/// A model with one node whose doc string is long, an attribute whose type
/// says INT but which also holds 100 ints (shown raw, as a repeated list in
/// the field tree), and an initializer with a long doc string (also shown
/// by the field tree).
fn model() -> Vec<u8> {
    let ints: Vec<u64> = (0..100).collect();
    let attr = Msg::new()
        .string(1, "k")
        .int(3, 1)
        .packed_varints(8, &ints)
        .varint(20, 2);
    let node = Msg::new()
        .string(1, "x")
        .string(2, "y")
        .string(4, "Relu")
        .message(5, &attr)
        .string(6, &long_text("node"));
    let tensor = Msg {
        buf: onnx_f32("w", &[2], &[1.0, 2.0]),
    }
    .string(12, &long_text("tensor"));
    let g = Msg::new()
        .message(1, &node)
        .string(2, "g")
        .message(5, &tensor);
    Msg::new()
        .varint(1, 10)
        .message(7, &g)
        .message(8, &Msg::new().int(2, 21))
        .buf
}

#[test]
fn long_strings_and_lists_are_cut_in_text() {
    let bytes = model();
    let (text, json) = render(&bytes, &RenderOptions::default());
    // The node's doc string (the node view) and the tensor's (the tree).
    assert_eq!(
        text.matches("(100 of 300 characters left out: --values all shows them)")
            .count(),
        2,
        "{text}"
    );
    // The 100 ints of the attribute, in the field tree: the first 64.
    assert!(text.contains(", 63, … 36 more]"), "{text}");
    snap("model", &text);
    // JSON is never cut.
    assert!(json.contains(&long_text("node")), "{json}");
    assert!(json.contains(&long_text("tensor")), "{json}");
    assert!(!json.contains("left out"), "{json}");
}

#[test]
fn values_all_shows_them_whole() {
    let bytes = model();
    let (text, _) = render(&bytes, &all_values());
    assert!(text.contains(&long_text("node")), "{text}");
    assert!(text.contains(&long_text("tensor")), "{text}");
    assert!(text.contains(", 98, 99]"), "{text}");
    assert!(!text.contains("left out"), "{text}");
    assert!(!text.contains("more]"), "{text}");
    snap("model_values_all", &text);
}

#[test]
fn values_n_cuts_lists_at_n() {
    let bytes = model();
    let opts = RenderOptions {
        values: Some(3),
        ..Default::default()
    };
    let (text, _) = render(&bytes, &opts);
    assert!(text.contains("[0, 1, 2, … 97 more]"), "{text}");
}

/// A SavedModel whose concrete function is bound to 100 inputs.
fn saved_model() -> Vec<u8> {
    let bound: Vec<u64> = (0..100).collect();
    let f = Msg::new().packed_varints(2, &bound);
    let og = Msg::new().message(2, &Msg::new().string(1, "f").message(2, &f));
    let mg = Msg::new().len_field(2, &[]).message(7, &og);
    Msg::new().int(1, 1).message(2, &mg).buf
}

#[test]
fn long_integer_lists_of_a_view_are_cut() {
    let bytes = saved_model();
    let saved_model = |opts: &RenderOptions| {
        let format = formats::find("tf-saved-model").unwrap();
        let decoded = formats::decode_as(format, &bytes, &FormatOptions::default()).unwrap();
        common::render(&decoded, opts).0
    };
    let out = saved_model(&RenderOptions::default());
    let line = out.lines().find(|l| l.contains("bound inputs")).unwrap();
    assert!(line.ends_with(", 62, 63, … 36 more]"), "{line}");
    snap("bound_inputs", line);
    let all = saved_model(&all_values());
    assert!(all.contains(", 98, 99]"), "{all}");
}
