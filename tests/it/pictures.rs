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
    assert!(String::from_utf8_lossy(&run.stderr).contains("2 x 2 grey"));
    let p = read_png(&std::fs::read(&out).expect("png written"));
    assert_eq!(p.data, [0, 85, 170, 255]);
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
    insta::with_settings!({snapshot_path => "../../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!("pictures__preview_rgb", text_view(&rgb, true));
        insta::assert_snapshot!("pictures__preview_shrunk_with_nan", text_view(&wide, true));
    });
}
