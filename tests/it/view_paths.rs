//! View paths no committed fixture reaches, run here (with debug
//! assertions, so every field constant the views read is checked against
//! the message it is read from): the SavedObject kinds asset, constant, resource and
//! captured tensor, a variable's synchronization and aggregation, a
//! composite signature input, signature defaults inline and as a block;
//! an ONNX attribute whose type has fields the one-line type cannot show and
//! a sparse attribute whose values tensor has fields the line does not show.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use crate::common;

use common::Msg;
use pbdecode::formats::{self, FormatOptions};
use pbdecode::render::RenderOptions;

fn render_as(id: &str, bytes: &[u8]) -> String {
    let format = formats::find(id).unwrap();
    let decoded = formats::decode_as(format, bytes, &FormatOptions::default()).unwrap();
    common::render(&decoded, &RenderOptions::default()).0
}

fn snap(name: &str, out: &str) {
    crate::common::snapshot_settings().bind(|| {
        insta::assert_snapshot!(format!("view_paths__{name}"), out);
    });
}

fn entry(key: &str, value: &Msg) -> Msg {
    Msg::new().string(1, key).message(2, value)
}

/// tensorflow.TensorProto: DT_FLOAT, shape `dims`, float_val.
fn tf_floats(dims: &[i64], values: &[f32]) -> Msg {
    let bits: Vec<u32> = values.iter().map(|v| v.to_bits()).collect();
    Msg::new()
        .varint(1, 1)
        .message(2, &common::build::tf_shape(dims))
        .packed_fixed32(5, &bits)
}

fn saved_model() -> Vec<u8> {
    let component = Msg::new().string(1, "rt/values:0").varint(2, 3);
    let spec = Msg::new().varint(1, 3).varint(4, 1);
    let composite = Msg::new().message(1, &spec).message(2, &component);
    let input = Msg::new()
        .message(5, &composite)
        .varint(2, 3)
        .message(3, &common::build::tf_shape(&[-1, -1]));
    let big: Vec<f32> = (0..20).map(|i| i as f32).collect();
    let sig = Msg::new()
        .message(1, &entry("rt", &input))
        .string(3, "tensorflow/serving/predict")
        .message(4, &entry("scale", &tf_floats(&[], &[0.5])))
        .message(4, &entry("table", &tf_floats(&[4, 5], &big)));
    let kinds = [
        Msg::new().message(5, &Msg::new().varint(1, 2)),
        Msg::new().message(9, &Msg::new().string(1, "Const_7")),
        Msg::new().message(10, &Msg::new().string(1, "/cpu:0")),
        Msg::new().message(12, &Msg::new().string(1, "t").string(2, "f")),
        Msg::new().message(
            7,
            &Msg::new()
                .varint(1, 1)
                .varint(4, 1)
                .varint(5, 2)
                .string(6, "v")
                .string(7, "/gpu:0"),
        ),
    ];
    let og = kinds.iter().fold(Msg::new(), |og, k| og.message(1, k));
    let mg = Msg::new()
        .message(1, &Msg::new().string(4, "serve"))
        .len_field(2, &[])
        .message(5, &entry("serving_default", &sig))
        .message(7, &og);
    Msg::new().int(1, 1).message(2, &mg).buf
}

#[test]
fn saved_model_object_kinds_composite_inputs_and_defaults() {
    let out = render_as("tf-saved-model", &saved_model());
    for line in [
        "[0] asset asset_file_def[2]",
        "[1] constant Const_7",
        "[2] resource @/cpu:0",
        "[3] captured_tensor t from f",
        "[4] variable v: DT_FLOAT [] VARIABLE_SYNCHRONIZATION_NONE VARIABLE_AGGREGATION_MEAN @/gpu:0",
        "rt: DT_INT32 [?, ?] <- composite RAGGED_TENSOR_SPEC (1 flat components), 1 components:",
        "[0]: DT_INT32 [] <- rt/values:0",
        "scale: DT_FLOAT [] {0.5}",
    ] {
        assert!(out.contains(line), "{line}\n{out}");
    }
    snap("saved_model", &out);
}

/// A ModelProto whose node has a `tp` attribute with a field the schema
/// does not know (so the one-line type is followed by the type in full) and
/// a sparse attribute whose values tensor has a doc_string.
fn onnx_model() -> Vec<u8> {
    let tensor_type = Msg::new().varint(1, 1);
    let tp = Msg::new().message(1, &tensor_type).varint(99, 5);
    let tp_attr = Msg::new().string(1, "ty").message(14, &tp).varint(20, 13);
    let values = Msg {
        buf: common::build::onnx_f32("sv", &[1], &[3.0]),
    }
    .string(12, "the non-zeros");
    let indices = Msg {
        buf: common::build::onnx_raw("", &[1], 7, &2i64.to_le_bytes()),
    };
    let sparse = Msg::new()
        .message(1, &values)
        .message(2, &indices)
        .varint(3, 4);
    let sp_attr = Msg::new()
        .string(1, "sp")
        .message(22, &sparse)
        .varint(20, 11);
    let node = Msg::new()
        .string(2, "y")
        .string(4, "Custom")
        .message(5, &tp_attr)
        .message(5, &sp_attr)
        .string(7, "com.example");
    let g = Msg::new().message(1, &node).string(2, "g");
    Msg::new()
        .varint(1, 10)
        .message(7, &g)
        .message(8, &Msg::new().int(2, 21))
        .message(8, &Msg::new().string(1, "com.example").int(2, 1))
        .buf
}

#[test]
fn onnx_attribute_types_and_sparse_parts_in_full() {
    let out = render_as("onnx-model", &onnx_model());
    for line in [
        "ty type (in full) {",
        "99 (VARINT, not in the schema)",
        "sp sparse tensor {",
        "doc_string: \"the non-zeros\"",
    ] {
        assert!(out.contains(line), "{line}\n{out}");
    }
    snap("onnx_model", &out);
}
