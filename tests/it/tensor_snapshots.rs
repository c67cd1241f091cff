//! One test and one snapshot per ONNX tensor fixture (how `--as auto` reads
//! it, whether `--as onnx-tensor` takes it, the text and the pretty-printed
//! JSON output), with the invariants checked first; the fixtures' values checked against expected
//! numbers written out by hand; and the check that the committed fixtures
//! are exactly what the generator in tests/common/fixtures.rs makes.
//!
//! What this suite checks, in full: every ONNX tensor fixture (all 28 data types in `raw_data` and
//! in the typed fields, special values, every code of the
//! float8/float6/float4 types, scalars, empty tensors, rank 6, packed and
//! one-per-field encodings, fields out of order, a segment, external data,
//! and one malformed file per check) decoded with `--as auto` and `--as
//! onnx-tensor`: one test per file (`fixture::NAME`, so a failure names the
//! file) and one insta snapshot per file in `snapshots/` (text, then the
//! JSON pretty-printed), after invariants are checked (the JSON parses, the
//! element fields are replaced by `values`, the count matches the shape,
//! each bad file fails the check it is named for, with an offset). Values
//! are also compared with numbers written out by hand, and the worked
//! examples of the TensorProto field table are asserted (FLOAT16 0x3864 =
//! 0.548828; INT4 int32 136 = -8, -8; 1.764052 as the first value of `x`).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use crate::common;

use common::fixtures::{self, TYPES};
use common::json::{self, JsonExt};
use common::{Outcome, run_as, run_auto, tensor_dir};
use pbdecode::render::RenderOptions;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Rewrites tests/fixtures/onnx-tensor from the generator. Run it after
/// changing the generator, then review and commit the files and snapshots.
#[test]
#[ignore]
fn regenerate_fixtures() {
    let dir = tensor_dir();
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        std::fs::remove_file(entry.path()).unwrap();
    }
    for f in fixtures::all() {
        std::fs::write(dir.join(&f.name), &f.bytes).unwrap();
    }
}

#[test]
fn committed_fixtures_match_the_generator() {
    let dir = tensor_dir();
    let generated = fixtures::all();
    let mut names: Vec<String> = generated.iter().map(|f| f.name.clone()).collect();
    names.sort();
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    assert_eq!(
        on_disk, names,
        "tests/fixtures/onnx-tensor differs from the generator: run \
         `cargo test --test it -- --ignored tensor_snapshots::regenerate_fixtures`"
    );
    for f in generated {
        let bytes = std::fs::read(dir.join(&f.name)).unwrap();
        assert!(bytes == f.bytes, "{} differs from the generator", f.name);
    }
}

/// The fixtures to snapshot: every .pb of onnx-tensor, and the example
/// tensor from ONNX's test data.
fn snapshot_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(tensor_dir())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "pb"))
        .collect();
    files.sort();
    files.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/example_x_3x4x5.pb"));
    files
}

fn opts() -> RenderOptions {
    RenderOptions {
        // Relative, so messages naming the side file are the same on every
        // machine (cargo runs tests from the package root).
        dir: Some(PathBuf::from("tests/fixtures/onnx-tensor").into()),
        ..RenderOptions::default()
    }
}

fn stem(path: &Path) -> String {
    path.file_stem().unwrap().to_string_lossy().into_owned()
}

/// The check each malformed fixture must be turned down by (`--as
/// onnx-tensor`), as named in the error message.
fn expected_check(stem: &str) -> Option<&'static str> {
    Some(match stem {
        "bad_varint_too_long" | "bad_varint_overflow" => "varint",
        "bad_field_0" | "bad_field_15" | "bad_field_17" => "field",
        "bad_wire_type_6" | "bad_wire_type_7" | "bad_wire_type_fixed32_dims" => "wire",
        "bad_data_type_as_len" | "bad_group_unclosed" => "wire",
        "bad_data_type_0" | "bad_data_type_29" | "bad_data_type_negative" => "data_type",
        "bad_no_data_type" => "data_type",
        "bad_negative_dim" | "bad_dims_overflow" | "bad_dims_bytes_overflow" => "dims",
        "bad_raw_for_string" => "string",
        "bad_raw_too_long" | "bad_raw_too_short" | "bad_raw_too_short_int4" => "size",
        "bad_typed_count" | "bad_typed_count_int4" | "bad_typed_count_complex" => "size",
        "bad_two_places" | "bad_raw_and_external" | "bad_wrong_typed_field" => "place",
        "bad_uint32_in_int32_data" | "bad_values_missing" => "place",
        "bad_string_utf8" | "bad_name_utf8" => "utf-8",
        "bad_external_no_location" => "external-location",
        "bad_packed_float_length" | "bad_truncated_raw" | "bad_len_past_end" => "length",
        "bad_packed_varint_truncated" => "truncated",
        "bad_deep_nesting" => "field",
        // No bytes: the empty check, whatever format is asked for.
        "notpb_empty" => "empty",
        // "h" (0x68) reads as field 13 (external_data) with a VARINT.
        "notpb_text" => "wire",
        _ => return None,
    })
}

/// The product of the dims in a tensor's JSON value (1 for a scalar).
fn json_elements(value: &Value) -> Option<i128> {
    match value.get("dims") {
        None => Some(1),
        Some(d) => d
            .as_array()?
            .iter()
            .try_fold(1i128, |acc, x| acc.checked_mul(x.as_i128()?)),
    }
}

/// Invariants of one outcome, before it is snapshotted.
fn check_invariants(name: &str, out: &Outcome, as_tensor: &Result<&str, String>) {
    let malformed = name.starts_with("bad_") || name.starts_with("notpb_");
    if malformed {
        let err = as_tensor
            .as_ref()
            .expect_err(&format!("{name}: taken as a tensor"));
        let check = expected_check(name)
            .unwrap_or_else(|| panic!("{name}: add the check it fails to expected_check"));
        assert!(
            err.starts_with(&format!("{check} check failed")),
            "{name}: expected the {check} check, got: {err}"
        );
        // The message names the offset.
        assert!(err.contains("@0x"), "{name}: no offset in {err}");
    } else {
        assert_eq!(out.format, Some("onnx-tensor"), "{name}: {:?}", out.error);
        assert!(as_tensor.is_ok(), "{name}: {as_tensor:?}");
    }
    let Some(format) = out.format else {
        let err = out.error.as_deref().unwrap_or("");
        assert!(err.contains("@0x"), "{name}: {err}");
        if name == "notpb_text" {
            assert!(err.starts_with("text check failed"), "{err}");
        }
        return;
    };
    assert!(out.text.starts_with("format: "), "{name}: {}", out.text);
    assert!(
        out.json.ends_with("}\n"),
        "{name}: JSON does not end with a newline"
    );
    let doc =
        json::value(&out.json).unwrap_or_else(|e| panic!("{name}: bad JSON ({e}): {}", out.json));
    assert_eq!(doc.get("format").and_then(Value::as_str), Some(format));
    if format == "tf-record" {
        // An empty file: a record file of no records.
        assert_eq!(
            doc.get("records"),
            Some(&Value::Array(Vec::new())),
            "{name}"
        );
        return;
    }
    let value = doc
        .get("value")
        .unwrap_or_else(|| panic!("{name}: no value"));
    if format != "onnx-tensor" {
        return;
    }
    assert_eq!(
        doc.get("type").and_then(Value::as_str),
        Some("onnx.TensorProto")
    );
    // The element fields are replaced by `values`.
    for f in pbdecode::formats::onnx_tensor::VALUE_FIELDS {
        assert!(value.get(f.name).is_none(), "{name}: {f} in the JSON");
    }
    let data_type = value.get("data_type").and_then(Value::as_str).unwrap();
    assert!(
        TYPES.iter().any(|t| t.name == data_type),
        "{name}: {data_type}"
    );
    let values = value
        .get("values")
        .unwrap_or_else(|| panic!("{name}: no values"));
    let segment = value.get("segment").is_some();
    match values {
        Value::Null => assert!(name.starts_with("external_"), "{name}: values null"),
        Value::Array(items) if !segment => {
            assert_eq!(Some(items.len() as i128), json_elements(value), "{name}");
        }
        Value::Array(_) => {}
        other => panic!("{name}: values is {other:?}"),
    }
}

/// The snapshot of one fixture: how `--as auto` reads it, whether `--as
/// onnx-tensor` takes it, then the text output and the JSON output
/// (pretty-printed, as sections of one snapshot), after the invariants.
fn snapshot(name: &str) {
    let path = snapshot_files()
        .into_iter()
        .find(|p| stem(p) == name)
        .unwrap_or_else(|| panic!("no fixture {name}.pb"));
    let bytes = std::fs::read(&path).unwrap();
    let out = run_auto(&bytes, &opts());
    let as_tensor = run_as("onnx-tensor", &bytes);
    check_invariants(name, &out, &as_tensor);
    let mut snap = format!(
        "file: {} ({} bytes)\n",
        path.file_name().unwrap().to_string_lossy(),
        bytes.len()
    );
    match (&out.format, &out.error) {
        (Some(f), _) => snap.push_str(&format!("--as auto: {f}\n")),
        (None, e) => snap.push_str(&format!(
            "--as auto: turned down: {}\n",
            e.as_deref().unwrap_or("")
        )),
    }
    match &as_tensor {
        Ok(_) => snap.push_str("--as onnx-tensor: ok\n"),
        Err(e) => snap.push_str(&format!("--as onnx-tensor: {e}\n")),
    }
    if out.format.is_some() {
        snap.push_str("--- text ---\n");
        snap.push_str(&out.text);
        snap.push_str("--- json ---\n");
        snap.push_str(&json::pretty(&out.json));
    }
    crate::common::snapshot_settings_without_expression().bind(|| {
        insta::assert_snapshot!(format!("tensor_snapshots__{name}"), snap);
    });
}

/// One test per fixture (named after it, in `fixture::`), so a failure
/// names the file and `cargo test --test it tensor_snapshots::fixture::NAME` runs one.
macro_rules! fixture_tests {
    ($($name:ident),* $(,)?) => {
        const FIXTURES: &[&str] = &[$(stringify!($name)),*];
        mod fixture {
            $(
                #[test]
                fn $name() {
                    super::snapshot(stringify!($name));
                }
            )*
        }
    };
}

fixture_tests! {
    all_codes_float4e2m1,
    all_codes_float6e2m3,
    all_codes_float6e3m2,
    all_codes_float8e4m3fn,
    all_codes_float8e4m3fnuz,
    all_codes_float8e5m2,
    all_codes_float8e5m2fnuz,
    all_codes_float8e8m0,
    bad_data_type_0,
    bad_data_type_29,
    bad_data_type_as_len,
    bad_data_type_negative,
    bad_deep_nesting,
    bad_dims_bytes_overflow,
    bad_dims_overflow,
    bad_external_no_location,
    bad_field_0,
    bad_field_15,
    bad_field_17,
    bad_group_unclosed,
    bad_len_past_end,
    bad_name_utf8,
    bad_negative_dim,
    bad_no_data_type,
    bad_packed_float_length,
    bad_packed_varint_truncated,
    bad_raw_and_external,
    bad_raw_for_string,
    bad_raw_too_long,
    bad_raw_too_short,
    bad_raw_too_short_int4,
    bad_string_utf8,
    bad_truncated_raw,
    bad_two_places,
    bad_typed_count,
    bad_typed_count_complex,
    bad_typed_count_int4,
    bad_uint32_in_int32_data,
    bad_values_missing,
    bad_varint_overflow,
    bad_varint_too_long,
    bad_wire_type_6,
    bad_wire_type_7,
    bad_wire_type_fixed32_dims,
    bad_wrong_typed_field,
    bfloat16_raw,
    bfloat16_typed,
    bool_raw,
    bool_typed,
    complex128_raw,
    complex128_typed,
    complex64_raw,
    complex64_typed,
    double_raw,
    double_typed,
    empty_float,
    empty_float_raw,
    empty_int4,
    empty_string,
    external,
    external_absolute,
    external_bad_sha1,
    external_dotdot,
    external_missing_file,
    external_no_length,
    external_past_end,
    float16_raw,
    float16_typed,
    float4e2m1_raw,
    float4e2m1_typed,
    float6e2m3_raw,
    float6e2m3_typed,
    float6e3m2_raw,
    float6e3m2_typed,
    float8e4m3fn_raw,
    float8e4m3fn_typed,
    float8e4m3fnuz_raw,
    float8e4m3fnuz_typed,
    float8e5m2_raw,
    float8e5m2_typed,
    float8e5m2fnuz_raw,
    float8e5m2fnuz_typed,
    float8e8m0_raw,
    float8e8m0_typed,
    float_raw,
    float_typed,
    form_data_location_default,
    form_doc_and_metadata,
    form_mixed_packed_unpacked,
    form_negative_varints,
    form_out_of_order,
    form_packed_dims,
    form_packed_dims_twice,
    form_segment,
    form_string_bad_utf8_past_4k,
    form_string_char_across_4k,
    form_uint32_in_uint64_data,
    form_uint64_above_2p63,
    form_unpacked_complex64,
    form_unpacked_double,
    form_unpacked_float_data,
    form_unpacked_int64,
    form_unpacked_int8,
    form_unpacked_uint64,
    int16_raw,
    int16_typed,
    int2_raw,
    int2_typed,
    int32_raw,
    int32_typed,
    int4_raw,
    int4_typed,
    int64_raw,
    int64_typed,
    int8_raw,
    int8_typed,
    notpb_empty,
    notpb_text,
    rank6_int16_raw,
    rank6_int16_typed,
    scalar_float_raw,
    scalar_int4_typed,
    scalar_int64_typed,
    scalar_string,
    seed_float16_output,
    seed_int4_5x5,
    seed_string_abc_def,
    string_typed,
    uint16_raw,
    uint16_typed,
    uint2_raw,
    uint2_typed,
    uint32_raw,
    uint32_typed,
    uint4_raw,
    uint4_typed,
    uint64_raw,
    uint64_typed,
    uint8_raw,
    uint8_typed,
    example_x_3x4x5,
}

#[test]
fn every_fixture_has_a_snapshot_test() {
    let mut on_disk: Vec<String> = snapshot_files().iter().map(|p| stem(p)).collect();
    let mut listed: Vec<String> = FIXTURES.iter().map(|s| s.to_string()).collect();
    on_disk.sort();
    listed.sort();
    assert_eq!(
        on_disk, listed,
        "add the new fixture to `fixture_tests!` in tests/it/tensor_snapshots.rs"
    );
}

/// The decoded JSON value of a fixture (it must be a tensor).
fn tensor_json(file: &str) -> Value {
    let bytes = std::fs::read(tensor_dir().join(file)).unwrap();
    let out = run_auto(&bytes, &opts());
    assert_eq!(out.format, Some("onnx-tensor"), "{file}: {:?}", out.error);
    json::value(&out.json)
        .unwrap()
        .get("value")
        .unwrap()
        .clone()
}

fn values(file: &str) -> Vec<Value> {
    tensor_json(file)
        .get("values")
        .unwrap()
        .as_array()
        .unwrap()
        .to_vec()
}

/// What one element must decode to.
#[derive(Debug, Clone, Copy)]
enum E {
    /// A float narrower than double: compared as float32.
    F(f32),
    D(f64),
    I(i128),
    B(bool),
    C(f32, f32),
    C2(f64, f64),
}

const NAN: f32 = f32::NAN;
const INF: f32 = f32::INFINITY;

fn f32_matches(j: &Value, want: f32) -> bool {
    match j {
        Value::String(s) if want.is_nan() => s == "NaN",
        Value::String(s) if want == f32::INFINITY => s == "Infinity",
        Value::String(s) if want == f32::NEG_INFINITY => s == "-Infinity",
        Value::Number(n) => n
            .to_string()
            .parse::<f32>()
            .is_ok_and(|v| v.to_bits() == want.to_bits()),
        _ => false,
    }
}

fn f64_matches(j: &Value, want: f64) -> bool {
    match j {
        Value::String(s) if want.is_nan() => s == "NaN",
        Value::String(s) if want == f64::INFINITY => s == "Infinity",
        Value::String(s) if want == f64::NEG_INFINITY => s == "-Infinity",
        Value::Number(n) => n
            .to_string()
            .parse::<f64>()
            .is_ok_and(|v| v.to_bits() == want.to_bits()),
        _ => false,
    }
}

fn matches(j: &Value, want: E) -> bool {
    match want {
        E::F(w) => f32_matches(j, w),
        E::D(w) => f64_matches(j, w),
        E::I(w) => j.as_i128() == Some(w),
        E::B(w) => *j == Value::Bool(w),
        E::C(re, im) => j
            .as_array()
            .is_some_and(|p| p.len() == 2 && f32_matches(&p[0], re) && f32_matches(&p[1], im)),
        E::C2(re, im) => j
            .as_array()
            .is_some_and(|p| p.len() == 2 && f64_matches(&p[0], re) && f64_matches(&p[1], im)),
    }
}

/// The values of each type's case, written out by hand from the spec (not
/// computed by the decoder's code).
fn expected(code: u64) -> Vec<E> {
    use E::*;
    let f = |v: &[f32]| v.iter().map(|&x| F(x)).collect::<Vec<_>>();
    let i = |v: &[i128]| v.iter().map(|&x| I(x)).collect::<Vec<_>>();
    match code {
        1 => f(&[
            1.0,
            -0.0,
            NAN,
            INF,
            -INF,
            1e-45,
            f32::MAX,
            f32::MIN_POSITIVE,
            -2.5,
        ]),
        2 => i(&[0, 1, 127, 128, 255]),
        3 => i(&[-128, -1, 0, 1, 127]),
        4 => i(&[0, 1, 32768, 65535]),
        5 => i(&[-32768, -1, 0, 1, 32767]),
        6 => i(&[-2147483648, -1, 0, 1, 2147483647]),
        7 => i(&[-9223372036854775808, -1, 0, 1, 9223372036854775807]),
        9 => [true, false, true, true, false, false].map(B).to_vec(),
        10 => f(&[
            0.5488281, // 0x3864, exactly 0.548828125
            0.5,
            -0.0,
            INF,
            -INF,
            NAN,
            5.9604645e-8,
            65504.0,
        ]),
        11 => vec![
            D(1.0),
            D(-0.0),
            D(f64::NAN),
            D(f64::INFINITY),
            D(f64::NEG_INFINITY),
            D(5e-324),
            D(f64::MAX),
            D(0.1),
        ],
        12 => i(&[0, 1, 2147483648, 4294967295]),
        13 => i(&[
            0,
            1,
            9223372036854775808,
            9223372036854775809,
            18446744073709551615,
        ]),
        14 => vec![C(1.0, -1.0), C(0.5, -0.0), C(NAN, INF)],
        15 => vec![C2(1.0, -2.0), C2(f64::NEG_INFINITY, 1e-300)],
        16 => f(&[1.0, -0.0, INF, -INF, NAN, 9.18355e-41, 3.3895314e38, -2.5]),
        17 => f(&[0.0, -0.0, 0.001953125, 448.0, NAN, 1.0]),
        18 => f(&[0.0, NAN, 0.0009765625, 240.0, -240.0, 1.0]),
        19 => f(&[0.0, -0.0, 1.5258789e-5, 57344.0, INF, -INF, NAN, 1.0]),
        20 => f(&[0.0, NAN, 7.6293945e-6, 57344.0, -57344.0, 1.0]),
        21 => i(&[0, 1, 2, 7, 8, 9, 14, 15, 5]),
        22 => (0..25).map(|k| I((k - 9i128).clamp(-8, 7))).collect(),
        23 => f(&[0.0, 0.5, 1.0, 6.0, -0.0, -6.0, -0.5]),
        24 => f(&[5.877472e-39, 1.0, 2.0, 1.7014118e38, NAN]),
        25 => i(&[0, 1, 2, 3, 3, 2, 1, 0, 1, 2]),
        26 => i(&[-2, -1, 0, 1, 1, -2]),
        27 => f(&[0.0, -0.0, 0.125, 7.5, -7.5]),
        28 => f(&[0.0, 0.0625, 28.0, -0.0, -28.0, 1.0]),
        _ => Vec::new(),
    }
}

fn assert_values(file: &str, want: &[E]) {
    let got = values(file);
    assert_eq!(got.len(), want.len(), "{file}: {got:?}");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            matches(g, *w),
            "{file}: element {k} is {g:?}, expected {w:?}"
        );
    }
}

#[test]
fn every_type_decodes_to_its_expected_values_in_both_forms() {
    for t in TYPES {
        let lower = t.name.to_lowercase();
        if t.code == 8 {
            let v = values(&format!("{lower}_typed.pb"));
            let want = [
                "abc",
                "",
                "h\u{e9}llo w\u{f6}rld \u{2713}",
                "tab\tquote\"newline\n",
            ];
            assert_eq!(v, want.map(json::str).to_vec());
            continue;
        }
        let want = expected(t.code);
        assert_values(&format!("{lower}_raw.pb"), &want);
        assert_values(&format!("{lower}_typed.pb"), &want);
        let raw = tensor_json(&format!("{lower}_raw.pb"));
        let typed = tensor_json(&format!("{lower}_typed.pb"));
        assert_eq!(raw.get("data_type"), typed.get("data_type"));
        assert_eq!(raw.get("data_type").and_then(Value::as_str), Some(t.name));
        assert_eq!(raw.get("dims"), typed.get("dims"));
    }
}

/// A file of every code, its code count, and (code, value) spot checks.
type SmallFloatCase = (&'static str, usize, &'static [(usize, f32)]);

#[test]
fn every_code_of_the_small_floats() {
    // (file, count, spot checks: code -> value)
    let cases: &[SmallFloatCase] = &[
        (
            "all_codes_float8e4m3fn.pb",
            256,
            &[
                (0x00, 0.0),
                (0x80, -0.0),
                (0x01, 0.001953125),
                (0x08, 0.015625),
                (0x38, 1.0),
                (0x7e, 448.0),
                (0x7f, NAN),
                (0xfe, -448.0),
                (0xff, NAN),
            ],
        ),
        (
            "all_codes_float8e4m3fnuz.pb",
            256,
            &[
                (0x00, 0.0),
                (0x80, NAN),
                (0x01, 0.0009765625),
                (0x40, 1.0),
                (0x7f, 240.0),
                (0xff, -240.0),
                (0x81, -0.0009765625),
            ],
        ),
        (
            "all_codes_float8e5m2.pb",
            256,
            &[
                (0x00, 0.0),
                (0x80, -0.0),
                (0x01, 1.5258789e-5),
                (0x3c, 1.0),
                (0x7b, 57344.0),
                (0x7c, INF),
                (0xfc, -INF),
                (0x7d, NAN),
                (0x7f, NAN),
                (0xff, NAN),
            ],
        ),
        (
            "all_codes_float8e5m2fnuz.pb",
            256,
            &[
                (0x00, 0.0),
                (0x80, NAN),
                (0x01, 7.6293945e-6),
                (0x40, 1.0),
                (0x7f, 57344.0),
                (0xff, -57344.0),
            ],
        ),
        (
            "all_codes_float8e8m0.pb",
            256,
            &[
                (0x00, 5.877472e-39),
                (0x7f, 1.0),
                (0x80, 2.0),
                (0x7e, 0.5),
                (0xfe, 1.7014118e38),
                (0xff, NAN),
            ],
        ),
        (
            "all_codes_float4e2m1.pb",
            16,
            &[
                (0, 0.0),
                (1, 0.5),
                (2, 1.0),
                (3, 1.5),
                (4, 2.0),
                (5, 3.0),
                (6, 4.0),
                (7, 6.0),
                (8, -0.0),
                (15, -6.0),
            ],
        ),
        (
            "all_codes_float6e2m3.pb",
            64,
            &[
                (0, 0.0),
                (1, 0.125),
                (7, 0.875),
                (8, 1.0),
                (0x1f, 7.5),
                (0x20, -0.0),
                (0x3f, -7.5),
            ],
        ),
        (
            "all_codes_float6e3m2.pb",
            64,
            &[
                (0, 0.0),
                (1, 0.0625),
                (3, 0.1875),
                (4, 0.25),
                (0x0c, 1.0),
                (0x1f, 28.0),
                (0x20, -0.0),
                (0x3f, -28.0),
            ],
        ),
    ];
    for (file, count, spots) in cases {
        let v = values(file);
        assert_eq!(v.len(), *count, "{file}");
        for &(code, want) in *spots {
            assert!(
                f32_matches(&v[code], want),
                "{file}: code {code:#x} is {:?}, expected {want}",
                v[code]
            );
        }
        // Outside the special codes the values rise with the code within
        // each sign half (a check of every code, not only the spots).
        let half = count / 2;
        let nums = |r: std::ops::Range<usize>| -> Vec<f32> {
            r.filter_map(|k| match &v[k] {
                Value::Number(n) => n.to_string().parse::<f32>().ok(),
                _ => None,
            })
            .collect()
        };
        let unsigned = file.contains("e8m0");
        let positive = if unsigned {
            nums(0..*count)
        } else {
            nums(0..half)
        };
        assert!(
            positive
                .windows(2)
                .all(|w| w[0] < w[1] || (w[0] == 0.0 && w[1] == 0.0)),
            "{file}: {positive:?}"
        );
        if !unsigned {
            let negative = nums(half..*count);
            assert!(
                negative
                    .windows(2)
                    .all(|w| w[0] > w[1] || (w[0] == 0.0 && w[1] == 0.0)),
                "{file}: {negative:?}"
            );
        }
    }
}

#[test]
fn seed_worked_examples() {
    // FLOAT in raw_data: the 3x4x5 tensor `x` of ONNX's test data.
    let x = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/example_x_3x4x5.pb"),
    )
    .unwrap();
    assert_eq!(x.len(), 254);
    assert!(x.starts_with(fixtures::SEED_FLOAT_X_PREFIX));
    let out = run_auto(&x, &opts());
    let doc = json::value(&out.json).unwrap();
    let value = doc.get("value").unwrap();
    assert_eq!(value.get("name"), Some(&json::str("x")));
    assert_eq!(
        value.get("data_type").and_then(Value::as_str),
        Some("FLOAT")
    );
    let dims: Vec<i128> = value
        .get("dims")
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_i128().unwrap())
        .collect();
    assert_eq!(dims, [3, 4, 5]);
    let v = value.get("values").unwrap().as_array().unwrap();
    assert_eq!(v.len(), 60);
    assert!(
        (v[0].as_f64().unwrap() - 1.764052).abs() < 1e-6,
        "{:?}",
        v[0]
    );
    assert!(out.text.contains("1.7640524"));

    // FLOAT16 in raw_data: 0x3864 = 0.548828.
    let f16 = std::fs::read(tensor_dir().join("seed_float16_output.pb")).unwrap();
    assert!(f16.starts_with(fixtures::SEED_FLOAT16_PREFIX));
    let v = values("seed_float16_output.pb");
    assert_eq!(v.len(), 12);
    assert!(
        (v[0].as_f64().unwrap() - 0.548828).abs() < 1e-6,
        "{:?}",
        v[0]
    );

    // STRING in string_data: the seed's bytes exactly.
    let s = std::fs::read(tensor_dir().join("seed_string_abc_def.pb")).unwrap();
    assert_eq!(s, fixtures::SEED_STRING);
    assert_eq!(
        values("seed_string_abc_def.pb"),
        vec![json::str("abc"), json::str("def")]
    );

    // INT4 in int32_data: 17 bytes of packed int32s, the first 136 = -8, -8.
    let i4 = std::fs::read(tensor_dir().join("seed_int4_5x5.pb")).unwrap();
    assert!(i4.starts_with(fixtures::SEED_INT4_PREFIX));
    let v = values("seed_int4_5x5.pb");
    assert_eq!(v.len(), 25);
    assert_eq!(v[0].as_i128(), Some(-8));
    assert_eq!(v[1].as_i128(), Some(-8));
    assert_eq!(v[2].as_i128(), Some(-7));
    assert_eq!(v[24].as_i128(), Some(7));
}

#[test]
fn forms_decode_to_their_values() {
    let f = |file: &str, want: &[E]| assert_values(file, want);
    let floats12: Vec<E> = (0..12).map(|k| E::F(k as f32 - 5.5)).collect();
    f("form_packed_dims.pb", &floats12);
    f("form_out_of_order.pb", &floats12);
    f("form_packed_dims_twice.pb", &floats12);
    let dims = |file: &str| -> Vec<i128> {
        tensor_json(file)
            .get("dims")
            .unwrap()
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_i128().unwrap())
            .collect()
    };
    assert_eq!(dims("form_packed_dims.pb"), [3, 4]);
    assert_eq!(dims("form_out_of_order.pb"), [3, 4]);
    assert_eq!(dims("form_packed_dims_twice.pb"), [1, 2, 2, 3]);
    f(
        "form_unpacked_float_data.pb",
        &[E::F(1.5), E::F(-0.0), E::F(NAN), E::F(1e-40)],
    );
    f(
        "form_unpacked_int8.pb",
        &[E::I(-128), E::I(-1), E::I(0), E::I(127)],
    );
    f(
        "form_unpacked_int64.pb",
        &[
            E::I(i128::from(i64::MIN)),
            E::I(-1),
            E::I(1 << 40),
            E::I(i128::from(i64::MAX)),
        ],
    );
    f(
        "form_unpacked_double.pb",
        &[E::D(0.1), E::D(-1e308), E::D(f64::INFINITY)],
    );
    f(
        "form_unpacked_complex64.pb",
        &[E::C(1.0, 2.0), E::C(-3.0, 0.25)],
    );
    f(
        "form_unpacked_uint64.pb",
        &[E::I(i128::from(u64::MAX)), E::I(1 << 63), E::I(7)],
    );
    f(
        "form_mixed_packed_unpacked.pb",
        &[E::I(1), E::I(2), E::I(-3), E::I(4), E::I(5)],
    );
    f(
        "form_negative_varints.pb",
        &[E::I(-1), E::I(i128::from(i32::MIN)), E::I(-1), E::I(-7)],
    );
    f(
        "form_uint64_above_2p63.pb",
        &[
            E::I((1 << 63) + 12345),
            E::I(i128::from(u64::MAX) - 1),
            E::I(1 << 63),
        ],
    );
    f(
        "form_uint32_in_uint64_data.pb",
        &[E::I(4294967295), E::I(65536)],
    );
    f("form_segment.pb", &[E::F(2.0), E::F(3.0), E::F(4.0)]);
    f("form_data_location_default.pb", &[E::F(1.0), E::F(2.0)]);
    f("scalar_float_raw.pb", &[E::F(3.25)]);
    f("scalar_int64_typed.pb", &[E::I(-42)]);
    f("scalar_int4_typed.pb", &[E::I(-1)]);
    f("empty_float.pb", &[]);
    f("empty_float_raw.pb", &[]);
    f("empty_int4.pb", &[]);
    let r6: Vec<E> = (0..24).map(|k| E::I(k - 12)).collect();
    f("rank6_int16_raw.pb", &r6);
    f("rank6_int16_typed.pb", &r6);
    assert_eq!(dims("rank6_int16_raw.pb"), [1, 2, 1, 3, 2, 2]);

    let doc = tensor_json("form_doc_and_metadata.pb");
    assert_eq!(
        doc.get("doc_string").and_then(Value::as_str),
        Some("A *Markdown* doc string.\nSecond line.")
    );
    let props = doc.get("metadata_props").unwrap().as_array().unwrap();
    assert_eq!(props.len(), 2);
    assert_eq!(
        props[1].get("value").and_then(Value::as_str),
        Some("\u{fc}nicode \u{2713}")
    );
    let seg = tensor_json("form_segment.pb");
    assert_eq!(
        seg.get("segment")
            .and_then(|s| s.get("end"))
            .and_then(Value::as_i128),
        Some(5)
    );

    // A string not UTF-8 past 4 KB is accepted and shown as base64.
    let v = values("form_string_bad_utf8_past_4k.pb");
    assert_eq!(v[0], json::str("ok"));
    assert!(v[1].get("base64").is_some(), "{:?}", v[1]);
    let v = values("form_string_char_across_4k.pb");
    assert!(v[0].get("base64").is_some());
}

#[test]
fn external_data() {
    let want: Vec<E> = (1..=12).map(|k| E::F(k as f32 * 0.5)).collect();
    assert_values("external.pb", &want);
    assert_values("external_no_length.pb", &want);
    for file in [
        "external_missing_file.pb",
        "external_bad_sha1.pb",
        "external_dotdot.pb",
        "external_absolute.pb",
        "external_past_end.pb",
    ] {
        let v = tensor_json(file);
        assert_eq!(
            v.get("values"),
            Some(&Value::Null),
            "{file}: values made up"
        );
        assert_eq!(
            v.get("data_location").and_then(Value::as_str),
            Some("EXTERNAL")
        );
    }
    // Without a folder (standard input) the values are not available either.
    let bytes = std::fs::read(tensor_dir().join("external.pb")).unwrap();
    let out = run_auto(&bytes, &RenderOptions::default());
    let doc = json::value(&out.json).unwrap();
    assert_eq!(doc.get("value").unwrap().get("values"), Some(&Value::Null));
}

#[test]
fn json_parser_is_strict() {
    for bad in [
        "{\"a\": NaN}",
        "[1,]",
        "01",
        "{\"a\" 1}",
        "\"\u{1}\"",
        "[1] x",
        "-",
        "1.",
    ] {
        assert!(json::value(bad).is_err(), "{bad}");
    }
    let v = json::value("{\"a\": [1, -2.5e3, \"\\u00e9\\n\", true, null, {}]}").unwrap();
    let a = v.get("a").unwrap().as_array().unwrap();
    assert_eq!(a[1].as_f64(), Some(-2500.0));
    assert_eq!(a[2].as_str(), Some("\u{e9}\n"));
    // Numbers keep their text and keys their order.
    let v = json::value(
        "{\"b\": 18446744073709551615, \"a\": -9223372036854775808, \"f\": 1.0e-45, \"g\": 3.5e38}",
    )
    .unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["b", "a", "f", "g"]);
    assert_eq!(
        v.get("b").and_then(Value::as_i128),
        Some(i128::from(u64::MAX))
    );
    assert_eq!(
        v.get("a").and_then(Value::as_i128),
        Some(i128::from(i64::MIN))
    );
    assert_eq!(
        v.get("f").and_then(Value::number_text).as_deref(),
        Some("1.0e-45")
    );
    assert_eq!(
        v.get("g").and_then(Value::number_text).as_deref(),
        Some("3.5e38")
    );
    // The enum interface of `json::parse` sees the same document.
    let old = json::parse("{\"b\": [18446744073709551615, 3.5e38, \"s\"], \"a\": null}").unwrap();
    assert_eq!(
        old,
        json::Json::Obj(vec![
            (
                "b".into(),
                json::Json::Arr(vec![
                    json::Json::Num("18446744073709551615".into()),
                    json::Json::Num("3.5e38".into()),
                    json::Json::Str("s".into()),
                ])
            ),
            ("a".into(), json::Json::Null),
        ])
    );
    let b = old.get("b").and_then(json::Json::as_array).unwrap();
    assert_eq!(b[0].as_i128(), Some(i128::from(u64::MAX)));
    assert_eq!(b[1].as_f64(), Some(3.5e38));
    assert!(json::parse("[1,]").is_err());
    // Deep nesting within bounds parses; past them it is refused, not a
    // stack overflow.
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    assert!(json::value(&deep(500)).is_ok());
    assert!(json::value(&deep(100_000)).is_err());
    // The snapshot layout: what fits in 100 columns on one line; longer
    // objects a member a line, longer arrays of objects an item a line,
    // longer arrays of scalars packed to 100 columns.
    let long: Vec<String> = (0..40).map(|k| (k * 1000).to_string()).collect();
    let text = format!(
        "{{\"a\": [1, 2.50, \"x\"], \"e\": {{}}, \"n\": [[], {{\"k\": null}}], \"o\": [{{\"name\": \
         \"the first item, with a name long enough to need a line of its own\", \"v\": 1}}, {{\"v\": 2}}], \
         \"l\": [{}]}}",
        long.join(",")
    );
    let pretty = json::pretty(&text);
    let want = [
        "{",
        "  \"a\": [1, 2.50, \"x\"],",
        "  \"e\": {},",
        "  \"n\": [[], {\"k\": null}],",
        "  \"o\": [",
        "    {\"name\": \"the first item, with a name long enough to need a line of its own\", \"v\": 1},",
        "    {\"v\": 2}",
        "  ],",
        "  \"l\": [",
        "    0, 1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000, 10000, 11000, 12000, 13000, 14000,",
        "    15000, 16000, 17000, 18000, 19000, 20000, 21000, 22000, 23000, 24000, 25000, 26000, 27000,",
        "    28000, 29000, 30000, 31000, 32000, 33000, 34000, 35000, 36000, 37000, 38000, 39000",
        "  ]",
        "}",
    ];
    assert_eq!(pretty, want.join("\n") + "\n");
    assert!(pretty.lines().all(|l| l.len() <= 100), "{pretty}");
    assert_eq!(json::value(&pretty), json::value(&text));
}
