//! Tensor statistics: snapshots of the text view (statistics lines, the
//! histogram, complex magnitudes, a tensor inside a model) and the "stats"
//! object of the JSON output.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use crate::common;

use common::build;
use pbdecode::formats::{self, FormatOptions};
use pbdecode::render::{RenderOptions, json, text, tree};
use std::io::Write;

fn render(bytes: &[u8], opts: &RenderOptions, as_json: bool) -> String {
    let decoded = formats::detect(bytes, &FormatOptions::default()).expect("decodes");
    let mut out = Vec::new();
    if as_json {
        json::write_decoded(&mut out, &decoded, opts).expect("renders");
    } else {
        text::write_decoded(&mut out, &decoded, opts).expect("renders");
    }
    String::from_utf8(out).expect("UTF-8")
}

fn text_of(bytes: &[u8], histogram: bool) -> String {
    let opts = RenderOptions {
        histogram,
        ..RenderOptions::default()
    };
    render(bytes, &opts, false)
}

/// The JSON "stats" object of the root tensor, as text.
fn json_stats(bytes: &[u8], values: Option<u64>) -> Option<String> {
    let opts = RenderOptions {
        values,
        ..RenderOptions::default()
    };
    let out = render(bytes, &opts, true);
    let at = out.find("\"stats\": ")?;
    let rest = &out[at + 9..];
    let end = rest.find('}')?;
    Some(rest[..=end].to_string())
}

fn specials() -> Vec<u8> {
    build::onnx_f32(
        "specials",
        &[2, 4],
        &[
            1.5,
            -2.0,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            0.0,
            -0.0,
            4.5,
        ],
    )
}

#[test]
fn float_specials() {
    let t = specials();
    assert_eq!(
        json_stats(&t, None).as_deref(),
        Some(
            "{\"count\": 8, \"min\": -2.0, \"max\": 4.5, \"mean\": 0.8, \"std\": 2.1587033144922905, \
             \"nan\": 1, \"pos_inf\": 1, \"neg_inf\": 1, \"zeros\": 2}"
        )
    );
    crate::common::snapshot_settings().bind(|| {
        insta::assert_snapshot!("stats__float_specials", text_of(&t, false));
    });
}

#[test]
fn histograms() {
    // INT8 with 5 distinct values: one bin per value.
    let raw = [0u8, 1, 1, 2, 2, 2, 3, 3, 3, 3, 0xff, 0xff];
    let ints = build::onnx_raw("", &[12], 3, &raw);
    // A float ramp 0..99: 16 equal bins.
    let ramp: Vec<f32> = (0..100).map(|i| i as f32).collect();
    let floats = build::onnx_f32("", &[10, 10], &ramp);
    crate::common::snapshot_settings().bind(|| {
        insta::assert_snapshot!("stats__histogram_int8", text_of(&ints, true));
        insta::assert_snapshot!("stats__histogram_float", text_of(&floats, true));
    });
    assert!(!text_of(&floats, false).contains("histogram:"));
}

#[test]
fn complex_is_by_magnitude() {
    let vals = [3.0f32, 4.0, 0.0, 0.0, -6.0, 8.0];
    let raw: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
    let t = build::onnx_raw("", &[3], 14, &raw);
    let stats = json_stats(&t, None).expect("stats");
    assert!(
        stats.starts_with("{\"count\": 3, \"min\": 0.0, \"max\": 10.0, \"mean\": 5.0,"),
        "{stats}"
    );
    assert!(
        stats.ends_with("\"zeros\": 1, \"of\": \"magnitude\"}"),
        "{stats}"
    );
    crate::common::snapshot_settings().bind(|| {
        insta::assert_snapshot!("stats__complex64", text_of(&t, false));
    });
}

#[test]
fn strings_have_no_stats() {
    let t = build::onnx_strings("", &[2], &[b"a", b"b"]);
    assert!(json_stats(&t, None).is_none());
    assert!(!text_of(&t, true).contains("stats"));
}

#[test]
fn stats_cover_every_value_past_the_limit() {
    let vals: Vec<f32> = (1..=10).map(|i| i as f32).collect();
    let t = build::onnx_f32("", &[10], &vals);
    let stats = json_stats(&t, Some(2)).expect("stats");
    assert!(
        stats.starts_with("{\"count\": 10, \"min\": 1.0, \"max\": 10.0, \"mean\": 5.5,"),
        "{stats}"
    );
    // An empty numeric tensor: a count of zero and no extremes.
    let empty = build::onnx_raw("", &[0], 1, &[]);
    assert_eq!(
        json_stats(&empty, None).as_deref(),
        Some(
            "{\"count\": 0, \"min\": null, \"max\": null, \"mean\": null, \"std\": null, \
             \"nan\": 0, \"pos_inf\": 0, \"neg_inf\": 0, \"zeros\": 0}"
        )
    );
}

#[test]
fn integers_stay_exact() {
    let vals = [i64::MAX, i64::MAX - 1, i64::MIN];
    let raw: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
    let t = build::onnx_raw("", &[3], 7, &raw);
    let stats = json_stats(&t, None).expect("stats");
    assert!(
        stats.starts_with(
            "{\"count\": 3, \"min\": -9223372036854775808, \"max\": 9223372036854775807,"
        ),
        "{stats}"
    );
}

#[test]
fn tensor_nested_in_a_model() {
    // The generic tensor block at depth 1 (how a nested tensor is shown
    // when no format view takes over): the statistics are indented with it.
    let model = build::onnx_model(&[
        build::onnx_f32("w", &[2, 2], &[1.0, 2.0, 3.0, 4.0]),
        build::onnx_raw("mask", &[4], 9, &[1, 0, 0, 1]),
    ]);
    let decoded = formats::detect(&model, &FormatOptions::default()).expect("decodes");
    let formats::Body::Message { message, .. } = &decoded.body else {
        panic!("not a message")
    };
    let set = pbdecode::schema::SchemaSet::builtin();
    let mut out = Vec::new();
    for t in pbdecode::formats::named_tensors(set, message) {
        writeln!(out, "{}:", t.name).expect("writes");
        tree::tensor_block(
            &mut out,
            set,
            t.message,
            1,
            &RenderOptions::default(),
            false,
        )
        .expect("renders");
    }
    crate::common::snapshot_settings().bind(|| {
        insta::assert_snapshot!("stats__nested", String::from_utf8(out).expect("UTF-8"));
    });
}

/// Values `base + k * step` with `k` an integer near N(0, 1) / step (a sum
/// of four uniforms from a fixed xorshift sequence): every value exact in
/// its type, so the exact standard deviation is a matter of integers,
/// `step * sqrt(n * sum(k^2) - sum(k)^2) / n`, whatever `base` is.
fn offset_values(n: usize, step_log2: i32) -> (Vec<i64>, f64) {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut uniform = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let per_unit = 2f64.powi(-step_log2);
    let ks: Vec<i64> = (0..n)
        .map(|_| {
            // Irwin-Hall: four uniforms, mean 2, variance 1/3.
            let z = (uniform() + uniform() + uniform() + uniform() - 2.0) * 3f64.sqrt();
            (z * per_unit).round() as i64
        })
        .collect();
    let nn = n as i128;
    let sum: i128 = ks.iter().map(|&k| i128::from(k)).sum();
    let squares: i128 = ks.iter().map(|&k| i128::from(k) * i128::from(k)).sum();
    let numerator = nn * squares - sum * sum;
    let exact = (numerator as f64).sqrt() / n as f64 * 2f64.powi(step_log2);
    (ks, exact)
}

/// The standard deviation of 300,000 values near a large offset, against
/// the exact one, to numpy's accuracy (numpy is within 2e-9 of it at 1e12,
/// 6e-6 at 1e14): the rounding of the chunks' means must not reach the
/// deviation.
#[test]
fn std_near_a_large_offset_is_exact_to_numpy_accuracy() {
    use pbdecode::tensor::{Elem, TensorData, TensorView};
    let n = 300_000usize;
    // (type, offset, log2 of the value spacing there, largest error)
    let cases = [
        (Elem::F64, 1e6, -32, 1e-12),
        (Elem::F64, 1e12, -13, 2e-9),
        (Elem::F64, 1e14, -6, 6e-6),
        (Elem::F32, 1e3, -13, 1e-9),
        (Elem::F32, 1e6, -3, 1e-9),
    ];
    for (elem, offset, step_log2, tolerance) in cases {
        let (ks, exact) = offset_values(n, step_log2);
        let step = 2f64.powi(step_log2);
        let mut bytes = Vec::new();
        for &k in &ks {
            let v = offset + k as f64 * step;
            if elem == Elem::F64 {
                bytes.extend_from_slice(&v.to_le_bytes());
            } else {
                assert_eq!(f64::from(v as f32), v, "{v} is not a float32");
                bytes.extend_from_slice(&(v as f32).to_le_bytes());
            }
        }
        let view = TensorView {
            type_name: format!("{elem:?}"),
            elem: Some(elem),
            dims: Some(vec![n as i64]),
            byte_aligned: false,
            elements: n as u64,
            data: TensorData::Raw(&bytes),
        };
        let std = pbdecode::stats::compute(&view, None)
            .and_then(|s| s.std())
            .expect("a standard deviation");
        let error = (std - exact).abs() / exact;
        assert!(
            error <= tolerance,
            "{elem:?} at {offset:e}: std {std} against the exact {exact}: relative error {error:e}"
        );
    }
}
