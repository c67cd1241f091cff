//! Tensors as pictures: PNG files decoded back with the png crate (size,
//! colour type, pixel values), every numeric data type, grids, NaN markers,
//! named tensors in models and TensorFlow graphs, the `--picture` and
//! `--tensor` flags of the binary, and snapshots of the colour preview.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use crate::common;

use common::build;
use pbdecode::formats::named_tensors;
use pbdecode::formats::{self, Body, FormatOptions};
use pbdecode::picture::{self, PictureError};
use pbdecode::render::{RenderOptions, text};
use pbdecode::schema::SchemaSet;
use std::path::PathBuf;
use std::process::Command;

/// The PNG of the root tensor (`name` None) or of a named tensor.
fn png_of(bytes: &[u8], name: Option<&str>) -> Result<Vec<u8>, PictureError> {
    let decoded = formats::detect(bytes, &FormatOptions::default()).expect("decodes");
    let Body::Message { message, .. } = &decoded.body else {
        panic!("not a message")
    };
    let set = SchemaSet::builtin();
    let tensors = named_tensors(set, message);
    let t = match name {
        Some(n) => tensors.iter().find(|t| t.name == n).expect("named tensor"),
        None => tensors
            .iter()
            .find(|t| std::ptr::eq(t.message, message))
            .expect("root tensor"),
    };
    picture::png_bytes(&t.view(set).expect("a tensor"), None)
}

struct Png {
    width: u32,
    height: u32,
    colour: png::ColorType,
    data: Vec<u8>,
}

impl Png {
    fn channels(&self) -> usize {
        match self.colour {
            png::ColorType::Grayscale => 1,
            png::ColorType::Rgb => 3,
            png::ColorType::Rgba => 4,
            other => panic!("unexpected colour type {other:?}"),
        }
    }

    fn pixel(&self, x: usize, y: usize) -> &[u8] {
        let c = self.channels();
        let at = (y * self.width as usize + x) * c;
        &self.data[at..at + c]
    }
}

fn read_png(bytes: &[u8]) -> Png {
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().expect("a PNG header");
    let mut buf = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut buf).expect("a frame");
    buf.truncate(info.buffer_size());
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    Png {
        width: info.width,
        height: info.height,
        colour: info.color_type,
        data: buf,
    }
}

#[test]
fn grey_h_x_w_maps_min_max_to_0_255() {
    let t = build::onnx_f32("", &[2, 3], &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    let p = read_png(&png_of(&t, None).expect("picture"));
    assert_eq!(
        (p.width, p.height, p.colour),
        (3, 2, png::ColorType::Grayscale)
    );
    assert_eq!(p.pixel(0, 0), [0]);
    assert_eq!(p.pixel(1, 0), [51]);
    assert_eq!(p.pixel(2, 1), [255]);
    assert_eq!(p.data, [0, 51, 102, 153, 204, 255]);
}

#[test]
fn rgb_c_h_w_uint8_taken_as_is() {
    // 3 x 2 x 2 UINT8: red plane 10.., green 100.., blue 200..
    let raw = [10u8, 11, 12, 13, 100, 101, 102, 103, 200, 201, 202, 203];
    let t = build::onnx_raw("", &[3, 2, 2], 2, &raw);
    let p = read_png(&png_of(&t, None).expect("picture"));
    assert_eq!((p.width, p.height, p.colour), (2, 2, png::ColorType::Rgb));
    assert_eq!(p.pixel(0, 0), [10, 100, 200]);
    assert_eq!(p.pixel(1, 0), [11, 101, 201]);
    assert_eq!(p.pixel(1, 1), [13, 103, 203]);
}

#[test]
fn rgb_h_w_c_and_rgba_batch_of_one() {
    // 2 x 2 x 3 INT32 in 0..255: pixels stored together.
    let vals: Vec<i32> = (0..12).map(|i| i * 20).collect();
    let raw: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
    let t = build::onnx_raw("", &[2, 2, 3], 6, &raw);
    let p = read_png(&png_of(&t, None).expect("picture"));
    assert_eq!((p.width, p.height, p.colour), (2, 2, png::ColorType::Rgb));
    assert_eq!(p.pixel(0, 0), [0, 20, 40]);
    assert_eq!(p.pixel(1, 1), [180, 200, 220]);
    // 1 x 2 x 1 x 2 x 4 is not a shape; 1 x 4 x 1 x 2 is RGBA C x H x W.
    let vals = [0.0f32, 1.0, 0.5, 0.5, 1.0, 0.0, 0.25, 1.0];
    let t = build::onnx_f32("", &[1, 4, 1, 2], &vals);
    let p = read_png(&png_of(&t, None).expect("picture"));
    assert_eq!((p.width, p.height, p.colour), (2, 1, png::ColorType::Rgba));
    assert_eq!(p.pixel(0, 0), [0, 128, 255, 64]);
    assert_eq!(p.pixel(1, 0), [255, 128, 0, 255]);
    // 1 x H x W x C.
    let t = build::onnx_f32("", &[1, 2, 2, 1], &[-1.0, 1.0, 1.0, -1.0]);
    let p = read_png(&png_of(&t, None).expect("picture"));
    assert_eq!(
        (p.width, p.height, p.colour),
        (2, 2, png::ColorType::Grayscale)
    );
    assert_eq!(p.data, [0, 255, 255, 0]);
}

#[test]
fn nan_is_magenta_and_infinities_clamp() {
    let t = build::onnx_f32(
        "",
        &[2, 2],
        &[f32::NAN, 0.0, f32::INFINITY, f32::NEG_INFINITY],
    );
    let p = read_png(&png_of(&t, None).expect("picture"));
    // Grey with a NaN is written as RGB so the marker shows.
    assert_eq!((p.width, p.height, p.colour), (2, 2, png::ColorType::Rgb));
    assert_eq!(p.pixel(0, 0), picture::NAN_COLOUR);
    // A constant finite range is mid-grey; +Inf is white, -Inf black.
    assert_eq!(p.pixel(1, 0), [128, 128, 128]);
    assert_eq!(p.pixel(0, 1), [255, 255, 255]);
    assert_eq!(p.pixel(1, 1), [0, 0, 0]);
}

#[test]
fn batch_is_a_grid_with_gaps() {
    // 5 x 1 x 2 x 2: 3 columns, 2 rows of 2 x 2 tiles, 1-pixel gaps.
    let vals: Vec<f32> = (0..20).map(|i| i as f32).collect();
    let t = build::onnx_f32("", &[5, 1, 2, 2], &vals);
    let p = read_png(&png_of(&t, None).expect("picture"));
    assert_eq!(
        (p.width, p.height, p.colour),
        (8, 5, png::ColorType::Grayscale)
    );
    assert_eq!(p.pixel(0, 0), [0]);
    // Tile 1 starts at x = 3; its first value is 4 of 0..19.
    assert_eq!(p.pixel(3, 0), [(4.0f64 * 255.0 / 19.0).round() as u8]);
    // The gap column and the empty sixth tile are grey 64.
    assert_eq!(p.pixel(2, 0), [64]);
    assert_eq!(p.pixel(7, 4), [64]);
    // Tile 4 (second row, second column) ends with the maximum.
    assert_eq!(p.pixel(4, 4), [255]);
}

#[test]
fn every_numeric_data_type_draws() {
    for code in 1..=28u64 {
        if code == 8 {
            continue;
        }
        let elem = pbdecode::formats::onnx_tensor::onnx_type(code as i64)
            .expect("type")
            .elem;
        let bytes = pbdecode::tensor::raw_size(elem, 4).expect("size") as usize;
        let raw: Vec<u8> = (0..bytes).map(|i| (i * 37 + 11) as u8).collect();
        let t = build::onnx_raw("", &[2, 2], code, &raw);
        let p = read_png(&png_of(&t, None).unwrap_or_else(|e| panic!("type {code}: {e}")));
        assert_eq!((p.width, p.height), (2, 2), "type {code}");
    }
}

#[test]
fn string_and_non_image_shapes_are_refused() {
    let t = build::onnx_f32("", &[4], &[1.0, 2.0, 3.0, 4.0]);
    assert!(matches!(png_of(&t, None), Err(PictureError::NotImage(_))));
    let t = build::onnx_f32("", &[2, 5, 1, 1], &[0.0; 10]);
    assert!(matches!(png_of(&t, None), Err(PictureError::NotImage(_))));
    let t = build::onnx_strings("", &[1, 2], &[b"a", b"b"]);
    assert!(matches!(png_of(&t, None), Err(PictureError::NotImage(_))));
}

#[test]
fn named_tensors_in_models_and_graphs() {
    let a = build::onnx_f32("conv1.weight", &[1, 2], &[0.0, 1.0]);
    let b = build::onnx_f32("image", &[3, 1, 1], &[1.0, 0.0, 0.5]);
    let model = build::onnx_model(&[a, b]);
    let p = read_png(&png_of(&model, Some("image")).expect("picture"));
    assert_eq!((p.width, p.height, p.colour), (1, 1, png::ColorType::Rgb));
    assert_eq!(p.pixel(0, 0), [255, 0, 128]);
    // TensorFlow: a Const node's tensor is named by the node (DT_UINT8 4).
    let t = build::tf_tensor(4, &[2, 2, 1], &[1, 2, 3, 250]);
    let graph = build::tf_graph(&[("pixels", t)]);
    let p = read_png(&png_of(&graph, Some("pixels")).expect("picture"));
    assert_eq!(
        (p.width, p.height, p.colour),
        (2, 2, png::ColorType::Grayscale)
    );
    assert_eq!(p.data, [1, 2, 3, 250]);
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pbdecode-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn decode_bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_decode"))
}

#[test]
fn cli_picture_and_tensor() {
    let dir = temp_dir("pictures-cli");
    let model = build::onnx_model(&[
        build::onnx_f32("bias", &[3], &[1.0, 2.0, 3.0]),
        build::onnx_f32("img", &[2, 2], &[0.0, 1.0, 2.0, 3.0]),
    ]);
    let input = dir.join("m.onnx");
    std::fs::write(&input, &model).expect("write");
    let out = dir.join("img.png");
    let run = decode_bin()
        .arg("--picture")
        .arg(&out)
        .arg("--tensor")
        .arg("img")
        .arg(&input)
        .output()
        .expect("runs");
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    // A model's 2-D initializer is a weight matrix: a heat map, white at
    // zero, red at the largest value.
    assert!(String::from_utf8_lossy(&run.stderr).contains("2 x 2 RGB: matrix heat map"));
    let p = read_png(&std::fs::read(&out).expect("png written"));
    assert_eq!(p.pixel(0, 0), [255, 255, 255]);
    assert_eq!(p.pixel(1, 1), [178, 24, 43]);
    // Not image-shaped: exit 1, no file.
    let bad = dir.join("bias.png");
    let run = decode_bin()
        .arg("--picture")
        .arg(&bad)
        .args(["--tensor", "bias"])
        .arg(&input)
        .output()
        .expect("runs");
    assert_eq!(run.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&run.stderr).contains("not image-shaped"));
    assert!(!bad.exists());
    // Unknown name: exit 1 and the names that exist.
    let run = decode_bin()
        .arg("--picture")
        .arg(&bad)
        .args(["--tensor", "nope"])
        .arg(&input)
        .output()
        .expect("runs");
    assert_eq!(run.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&run.stderr).contains("\"img\""));
    // A model without --tensor: a usage error.
    let run = decode_bin()
        .arg("--picture")
        .arg(&bad)
        .arg(&input)
        .output()
        .expect("runs");
    assert_eq!(run.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn committed_gradient_fixture() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/images/gradient_rgb_3x32x32.pb"
    );
    let bytes = build::gradient_rgb();
    if std::env::var_os("PBDECODE_REGENERATE").is_some() {
        std::fs::write(path, &bytes).expect("write fixture");
    }
    assert_eq!(
        std::fs::read(path).expect("fixture"),
        bytes,
        "regenerate with PBDECODE_REGENERATE=1"
    );
    let p = read_png(&png_of(&bytes, None).expect("picture"));
    assert_eq!((p.width, p.height, p.colour), (32, 32, png::ColorType::Rgb));
    assert_eq!(p.pixel(0, 0), [0, 0, 255]);
    assert_eq!(p.pixel(31, 0), picture::NAN_COLOUR);
    assert_eq!(p.pixel(30, 31), [247, 255, 0]);
}

fn text_view(bytes: &[u8], color: bool) -> String {
    let decoded = formats::detect(bytes, &FormatOptions::default()).expect("decodes");
    let opts = RenderOptions {
        color,
        values: Some(4),
        ..RenderOptions::default()
    };
    let mut out = Vec::new();
    text::write_decoded(&mut out, &decoded, &opts).expect("renders");
    String::from_utf8(out).expect("UTF-8")
}

#[test]
fn preview_snapshots() {
    // RGB 4 x 3: a red-to-green ramp over a blue row.
    let mut v = Vec::new();
    for c in 0..3 {
        for y in 0..3 {
            for x in 0..4 {
                v.push(match c {
                    0 => x as f32 / 3.0,
                    1 => 1.0 - x as f32 / 3.0,
                    _ => f32::from(u8::from(y == 2)),
                });
            }
        }
    }
    let rgb = build::onnx_f32("", &[3, 3, 4], &v);
    // A 1 x 8 x 70 grey ramp with one NaN: shrunk 1:3 to 24 x 3.
    let mut g: Vec<f32> = (0..560).map(|i| (i % 70) as f32).collect();
    g[0] = f32::NAN;
    let wide = build::onnx_f32("", &[1, 8, 70], &g);
    let plain = text_view(&rgb, false);
    assert!(!plain.contains('\u{1b}'), "no escapes without colour");
    crate::common::snapshot_settings().bind(|| {
        insta::assert_snapshot!("pictures__preview_rgb", text_view(&rgb, true));
        insta::assert_snapshot!("pictures__preview_shrunk_with_nan", text_view(&wide, true));
    });
}

/// The PNG the facade draws (as `decode --picture` does) of a named tensor.
fn weight_png(bytes: &[u8], name: &str) -> Png {
    let doc = pbdecode::read(bytes.to_vec()).expect("decodes");
    let t = doc.tensor_by_name(name).expect("named tensor");
    read_png(&t.picture().expect("a picture").png_bytes().expect("PNG"))
}

fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// The grey level of `v` on a 0..=max scale, as the picture code rounds it.
fn level(v: f32, max: f32) -> u8 {
    ((v / max) * 255.0).round() as u8
}

#[test]
fn tensorflow_hwio_kernel_is_one_rgb_tile_per_output_channel() {
    // [H 2, W 2, in 3, out 4]: the value at [h, w, i, o] is o*12 + i*4 + h*2 + w.
    let mut values = Vec::new();
    for h in 0..2 {
        for w in 0..2 {
            for i in 0..3 {
                for o in 0..4 {
                    values.push((o * 12 + i * 4 + h * 2 + w) as f32);
                }
            }
        }
    }
    let t = build::tf_tensor(1, &[2, 2, 3, 4], &f32_bytes(&values));
    let graph = build::tf_graph(&[("conv/kernel", t)]);
    let p = weight_png(&graph, "conv/kernel");
    // Four 2 x 2 tiles in a 2 x 2 grid with 1-pixel gaps.
    assert_eq!((p.width, p.height, p.colour), (5, 5, png::ColorType::Rgb));
    // Output channel 3 is the bottom-right tile; its pixel (w 1, h 0) holds
    // the three in-channels as R, G, B.
    let want: Vec<u8> = (0..3)
        .map(|i| level((3 * 12 + i * 4 + 1) as f32, 47.0))
        .collect();
    assert_eq!(p.pixel(4, 3), want.as_slice());
    // Output channel 0, pixel (w 0, h 1).
    let want: Vec<u8> = (0..3).map(|i| level((i * 4 + 2) as f32, 47.0)).collect();
    assert_eq!(p.pixel(0, 1), want.as_slice());
}

#[test]
fn onnx_oihw_kernel_is_a_grid_of_out_by_in_heat_maps() {
    // [out 2, in 2, H 2, W 2]: zero but for [1, 0, 0, 0] = -2 and [0, 1, 1, 1] = 2.
    let mut values = [0f32; 16];
    values[8] = -2.0;
    values[7] = 2.0;
    let model = build::onnx_model(&[build::onnx_f32("conv.weight", &[2, 2, 2, 2], &values)]);
    let p = weight_png(&model, "conv.weight");
    // A row per output channel, a column per in-channel: 2 x 2 tiles.
    assert_eq!((p.width, p.height, p.colour), (5, 5, png::ColorType::Rgb));
    assert_eq!(p.pixel(0, 0), [255, 255, 255]);
    // Output 1, in 0 (row 1, column 0), pixel (0, 0): the most negative.
    assert_eq!(p.pixel(0, 3), [33, 102, 172]);
    // Output 0, in 1 (row 0, column 1), pixel (1, 1): the most positive.
    assert_eq!(p.pixel(4, 1), [178, 24, 43]);
    // The gaps stay grey.
    assert_eq!(p.pixel(2, 0), [64, 64, 64]);
}

#[test]
fn onnx_kernel_of_three_in_channels_is_drawn_as_before() {
    // [out 2, in 3, 2, 2] was already a batch of RGB tiles: unchanged.
    let values: Vec<f32> = (0..24).map(|v| v as f32).collect();
    let tensor = build::onnx_f32("w", &[2, 3, 2, 2], &values);
    let model = build::onnx_model(std::slice::from_ref(&tensor));
    let as_weight = weight_png(&model, "w");
    let as_image = read_png(&png_of(&tensor, None).expect("picture"));
    assert_eq!((as_weight.width, as_weight.height), (5, 2));
    assert_eq!(as_weight.data, as_image.data);
}

#[test]
fn weight_matrix_is_a_heat_map_around_zero() {
    let model = build::onnx_model(&[build::onnx_f32(
        "fc.weight",
        &[2, 2],
        &[-1.0, 0.0, 0.5, 1.0],
    )]);
    let p = weight_png(&model, "fc.weight");
    assert_eq!((p.width, p.height, p.colour), (2, 2, png::ColorType::Rgb));
    assert_eq!(p.pixel(0, 0), [33, 102, 172]);
    assert_eq!(p.pixel(1, 0), [255, 255, 255]);
    assert_eq!(p.pixel(0, 1), [217, 140, 149]);
    assert_eq!(p.pixel(1, 1), [178, 24, 43]);
    // A 1 x 1 kernel is its out x in matrix: [out 3, in 2, 1, 1], 2 wide, 3 high.
    let model = build::onnx_model(&[build::onnx_f32(
        "pw",
        &[3, 2, 1, 1],
        &[0.0, 1.0, 0.0, 0.0, -1.0, 0.0],
    )]);
    let p = weight_png(&model, "pw");
    assert_eq!((p.width, p.height), (2, 3));
    assert_eq!(p.pixel(1, 0), [178, 24, 43]);
    assert_eq!(p.pixel(0, 2), [33, 102, 172]);
    // TensorFlow's [H 1, W 1, in 2, out 3]: the same out x in matrix.
    let t = build::tf_tensor(
        1,
        &[1, 1, 2, 3],
        &f32_bytes(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0]),
    );
    let p = weight_png(&build::tf_graph(&[("pw", t)]), "pw");
    assert_eq!((p.width, p.height), (2, 3));
    assert_eq!(p.pixel(1, 0), [178, 24, 43]);
}

#[test]
fn a_slice_of_a_3d_tensor_is_its_2d_picture() {
    // [2, 2, 5]: no picture of the whole (2 channels), each 2 x 5 slice grey,
    // scaled by the whole tensor's range.
    let values: Vec<f32> = (0..20).map(|v| v as f32).collect();
    let tensor = build::onnx_f32("x", &[2, 2, 5], &values);
    assert!(matches!(
        png_of(&tensor, None),
        Err(PictureError::NotImage(_))
    ));
    let doc = pbdecode::read(tensor.clone()).expect("decodes");
    let t = doc
        .tensors()
        .first()
        .map(|r| doc.tensor(r).expect("tensor"))
        .expect("one");
    let pic = picture::slice_picture(&t.view(), None, t.drawing(), 1).expect("slice 1");
    let p = read_png(&pic.png_bytes().expect("PNG"));
    assert_eq!(
        (p.width, p.height, p.colour),
        (5, 2, png::ColorType::Grayscale)
    );
    let want: Vec<u8> = (10..20).map(|v| level(v as f32, 19.0)).collect();
    assert_eq!(p.data, want);
    assert!(picture::slice_picture(&t.view(), None, t.drawing(), 2).is_err());
}
