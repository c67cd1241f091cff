//! Whole messages the tests decode, built with [`Msg`]: ONNX tensors and
//! models, TensorFlow tensors, shapes and GraphDefs with Const nodes, and
//! the committed example picture tensor. Each writes its fields in the
//! order given here (the committed gradient fixture depends on it).

use super::Msg;

/// An ONNX TensorProto with its values in raw_data.
pub fn onnx_raw(name: &str, dims: &[u64], data_type: u64, raw: &[u8]) -> Vec<u8> {
    let mut t = Msg::new();
    for &d in dims {
        t = t.varint(1, d);
    }
    t = t.varint(2, data_type);
    if !name.is_empty() {
        t = t.string(8, name);
    }
    t.len_field(9, raw).buf
}

/// An ONNX FLOAT tensor (raw_data).
pub fn onnx_f32(name: &str, dims: &[u64], values: &[f32]) -> Vec<u8> {
    let raw: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    onnx_raw(name, dims, 1, &raw)
}

/// An ONNX STRING tensor (string_data).
pub fn onnx_strings(name: &str, dims: &[u64], values: &[&[u8]]) -> Vec<u8> {
    let mut t = Msg::new();
    for &d in dims {
        t = t.varint(1, d);
    }
    t = t.varint(2, 8);
    for v in values {
        t = t.len_field(6, v);
    }
    if !name.is_empty() {
        t = t.string(8, name);
    }
    t.buf
}

/// An ONNX ModelProto (ir_version 8) whose graph `g` has these
/// initializers.
pub fn onnx_model(initializers: &[Vec<u8>]) -> Vec<u8> {
    let mut g = Msg::new().string(2, "g");
    for t in initializers {
        g = g.len_field(5, t);
    }
    Msg::new().varint(1, 8).message(7, &g).buf
}

/// A tensorflow.TensorShapeProto with these dims (-1: unknown).
pub fn tf_shape(dims: &[i64]) -> Msg {
    dims.iter().fold(Msg::new(), |shape, &d| {
        shape.message(2, &Msg::new().int(1, d))
    })
}

/// A tensorflow.TensorProto with tensor_content.
pub fn tf_tensor(dtype: u64, dims: &[u64], content: &[u8]) -> Vec<u8> {
    let dims: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
    tf_tensor_fields(dtype, &dims, &Msg::new().len_field(4, content)).buf
}

/// A tensorflow.TensorProto: dtype, shape, then the value fields given
/// (tensor_content, a typed `*_val` field, or a malformed mix).
pub fn tf_tensor_fields(dtype: u64, dims: &[i64], values: &Msg) -> Msg {
    Msg::new()
        .varint(1, dtype)
        .message(2, &tf_shape(dims))
        .raw(&values.buf)
}

/// A GraphDef of Const nodes, each (name, tensorflow.TensorProto).
pub fn tf_graph(consts: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut g = Msg::new();
    for (name, tensor) in consts {
        let attr_value = Msg::new().len_field(8, tensor);
        let entry = Msg::new().string(1, "value").message(2, &attr_value);
        let node = Msg::new()
            .string(1, name)
            .string(2, "Const")
            .message(5, &entry);
        g = g.message(1, &node);
    }
    g.buf
}

/// The committed example picture tensor: a 3 x 32 x 32 FLOAT RGB gradient
/// (red rises left to right, green top to bottom, blue is a diagonal
/// stripe) with one NaN pixel at row 0, column 31.
pub fn gradient_rgb() -> Vec<u8> {
    let (h, w) = (32usize, 32usize);
    let mut v = vec![0f32; 3 * h * w];
    for y in 0..h {
        for x in 0..w {
            v[y * w + x] = x as f32 / (w - 1) as f32;
            v[h * w + y * w + x] = y as f32 / (h - 1) as f32;
            v[2 * h * w + y * w + x] = if (x + y) % 16 < 4 { 1.0 } else { 0.0 };
        }
    }
    v[w - 1] = f32::NAN;
    onnx_f32("gradient", &[3, h as u64, w as u64], &v)
}

/// The bytes of one TFRecord: the length, its masked CRC32C, the data, its
/// masked CRC32C.
pub fn tf_record(data: &[u8]) -> Vec<u8> {
    use pbdecode::checksum::{crc32c, mask};
    let mut out = Vec::new();
    let len = (data.len() as u64).to_le_bytes();
    out.extend_from_slice(&len);
    out.extend_from_slice(&mask(crc32c(&len)).to_le_bytes());
    out.extend_from_slice(data);
    out.extend_from_slice(&mask(crc32c(data)).to_le_bytes());
    out
}
