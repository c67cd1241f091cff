//! The library facade (`pbdecode::open`, `Document`, `Tensor`, `Values`),
//! used as a library user would: every fixture opened, every tensor's
//! values read and compared with what `decode --json` prints for it.
//!
//! What this suite checks, in full: the library facade against the command: every fixture (models,
//! containers, TensorFlow files, test folders' inputs and outputs, external
//! data) opened with `pbdecode::open`, every tensor's values equal to
//! `decode --json`'s (the same reason where they are unavailable, the same
//! check where the file is turned down), `write_json`/`write_text` byte for
//! byte the command's output, `write_npy` the same file as `--npy`;
//! `raw_le` of raw FLOAT data points into the document's bytes; INT8 comes
//! back as `i8`. The crate documentation's example runs as a doc test.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use crate::common;

use common::Msg;

use pbdecode::{DataType, Error, JsonOptions, Step, Storage, TextOptions, Values};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Every file under tests/fixtures, in name order.
fn fixtures() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![PathBuf::from("tests/fixtures")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// What `decode ARGS FILE` prints on standard output.
fn cli(args: &[&str], path: &Path) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_decode"))
        .args(args)
        .arg(path)
        .output()
        .unwrap();
    out.stdout
}

/// What `decode --json FILE` prints, parsed.
fn cli_json(path: &Path) -> Value {
    common::json::value(&String::from_utf8(cli(&["--json"], path)).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A scratch folder of this test process.
fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pbdecode-facade-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A variable's object in the JSON output: a checkpoint's tensor by its
/// key (`"tensors"`), a SavedModel's variable by its name (`"variables"`).
fn variable<'j>(json: &'j Value, r: &pbdecode::TensorRef) -> Option<&'j Value> {
    if r.role != pbdecode::Role::Variable {
        return None;
    }
    let (list, key) = if json["format"] == "tf-checkpoint" {
        (&json["tensors"], "key")
    } else if json.get("side_tensors").is_some() {
        // A format's side tensors (a Paddle program's parameters).
        (&json["side_tensors"], "name")
    } else {
        (&json["variables"], "name")
    };
    let list = list.as_array()?;
    let named = |key: &str| {
        list.iter()
            .find(|t| t[key].as_str() == Some(r.name.as_str()))
    };
    // A V1 checkpoint's keys are slice keys: its tensors go by their name.
    named(key).or_else(|| named("slice_of"))
}

/// The object at a tensor's path in the JSON output's `value`.
fn at<'j>(root: &'j Value, path: &[Step]) -> &'j Value {
    path.iter().fold(root, |v, step| match step {
        Step::Field(f) | Step::Key(f) => &v[f.as_str()],
        Step::Index(i) => &v[*i],
    })
}

/// One value as the test compares it.
#[derive(Debug, Clone, PartialEq)]
enum V {
    Int(i128),
    F32(f32),
    F64(f64),
    Bool(bool),
    C64([f32; 2]),
    C128([f64; 2]),
    Bytes(Vec<u8>),
}

/// The facade's values, one `V` each (coded types widened).
fn flat(values: Values) -> Vec<V> {
    let ints = |v: Vec<i128>| v.into_iter().map(V::Int).collect();
    match values.widen() {
        Values::Bool(v) => v.into_iter().map(V::Bool).collect(),
        Values::I8(v) => ints(v.into_iter().map(i128::from).collect()),
        Values::I16(v) => ints(v.into_iter().map(i128::from).collect()),
        Values::I32(v) => ints(v.into_iter().map(i128::from).collect()),
        Values::I64(v) => ints(v.into_iter().map(i128::from).collect()),
        Values::U8(v) => ints(v.into_iter().map(i128::from).collect()),
        Values::U16(v) => ints(v.into_iter().map(i128::from).collect()),
        Values::U32(v) => ints(v.into_iter().map(i128::from).collect()),
        Values::U64(v) => ints(v.into_iter().map(i128::from).collect()),
        Values::F16(v) => v.into_iter().map(|x| V::F32(x.to_f32())).collect(),
        Values::BF16(v) => v.into_iter().map(|x| V::F32(x.to_f32())).collect(),
        Values::F32(v) => v.into_iter().map(V::F32).collect(),
        Values::F64(v) => v.into_iter().map(V::F64).collect(),
        Values::C64(v) => v.into_iter().map(V::C64).collect(),
        Values::C128(v) => v.into_iter().map(V::C128).collect(),
        Values::Str(v) => v.into_iter().map(|b| V::Bytes(b.to_vec())).collect(),
        other => panic!("not widened: {other:?}"),
    }
}

/// A JSON float as written by the contract ("NaN", "Infinity" or a number).
fn float(j: &Value) -> f64 {
    match j.as_str() {
        Some("NaN") => f64::NAN,
        Some("Infinity") => f64::INFINITY,
        Some("-Infinity") => f64::NEG_INFINITY,
        _ => j.to_string().parse().unwrap(),
    }
}

/// Whether a JSON value is the same number as an f32 (the text is the
/// shortest that reads back as that float32) or f64.
fn same_f32(j: &Value, x: f32) -> bool {
    let text = j.as_str().map_or_else(|| j.to_string(), str::to_string);
    let y = match text.as_str() {
        "NaN" => f32::NAN,
        "Infinity" => f32::INFINITY,
        "-Infinity" => f32::NEG_INFINITY,
        t => t.parse().unwrap(),
    };
    y.to_bits() == x.to_bits() || (x.is_nan() && y.is_nan())
}

fn same_f64(j: &Value, x: f64) -> bool {
    let y = float(j);
    y.to_bits() == x.to_bits() || (x.is_nan() && y.is_nan())
}

/// Whether one facade value is what the JSON output says.
fn same(j: &Value, v: &V) -> bool {
    match v {
        V::Int(x) => j.to_string().parse::<i128>().ok() == Some(*x),
        V::Bool(b) => j.as_bool() == Some(*b),
        V::F32(x) => same_f32(j, *x),
        V::F64(x) => same_f64(j, *x),
        V::C64([re, im]) => same_f32(&j[0], *re) && same_f32(&j[1], *im),
        V::C128([re, im]) => same_f64(&j[0], *re) && same_f64(&j[1], *im),
        V::Bytes(b) => match std::str::from_utf8(b) {
            Ok(s) => j.as_str() == Some(s),
            Err(_) => j["base64"].as_str() == Some(base64(b).as_str()),
        },
    }
}

fn base64(bytes: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for c in bytes.chunks(3) {
        let n = c
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for k in 0..4 {
            let pad = k > c.len();
            s.push(if pad {
                '='
            } else {
                A[(n >> (18 - 6 * k) & 63) as usize] as char
            });
        }
    }
    s
}

/// Every fixture: opened through the facade, every tensor read, each
/// value equal to the CLI's JSON; a file the CLI turns down is turned down
/// with the same check, and a tensor whose values JSON says are
/// unavailable (or capped) fails with that reason.
#[test]
fn every_tensor_of_every_fixture_has_the_values_the_cli_prints() {
    let (mut files, mut tensors, mut values) = (0, 0, 0);
    for path in fixtures() {
        let json = cli_json(&path);
        let doc = match pbdecode::open(&path) {
            Ok(doc) => doc,
            Err(Error::Decode(e)) => {
                assert_eq!(json["error"]["check"], e.check(), "{}", path.display());
                continue;
            }
            Err(e) => panic!("{}: {e}", path.display()),
        };
        files += 1;
        assert_eq!(json["format"], doc.format().id, "{}", path.display());
        for r in doc.tensors() {
            let what = format!("{}: {} at {}", path.display(), r.name, r.path_text());
            let expected = match variable(&json, r) {
                Some(v) => v,
                None => at(&json["value"], &r.path),
            };
            // A bundle's strings, partitioned variables and V1 tensors
            // included (the library once left them out).
            let got = doc.tensor(r).and_then(|t| t.values());
            tensors += 1;
            match got {
                Err(Error::Unavailable { reason, .. }) => {
                    assert_eq!(expected["values_unavailable"], reason.as_str(), "{what}")
                }
                Err(Error::Implied { .. }) => {
                    assert!(expected.get("values_capped").is_some(), "{what}")
                }
                Err(e) => panic!("{what}: {e}"),
                Ok(v) => {
                    let list = expected["values"].as_array().expect(&what);
                    let got = flat(v);
                    assert_eq!(list.len(), got.len(), "{what}");
                    for (k, (j, v)) in list.iter().zip(&got).enumerate() {
                        assert!(same(j, v), "{what}: value {k}: {j} vs {v:?}");
                    }
                    values += got.len();
                }
            }
        }
    }
    // The fixtures hold models, containers, TensorFlow files and test folders.
    assert!(
        files > 150 && tensors > 200 && values > 5000,
        "{files} {tensors} {values}"
    );
}

/// The external-data fixtures: values from the side file, and the same
/// reason as the CLI's when it fails its checks (also covered above; here
/// each case is named).
#[test]
fn external_data_through_the_facade() {
    let doc = pbdecode::open("tests/fixtures/onnx-tensor/external.pb").unwrap();
    let t = doc.tensor(&doc.tensors()[0]).unwrap();
    assert_eq!(t.storage(), Storage::External);
    let raw = t.raw_le().expect("mapped side file");
    assert_eq!(raw.len() as u64, t.len() * 4);
    let bad = pbdecode::open("tests/fixtures/onnx-tensor/external_bad_sha1.pb").unwrap();
    let t = bad.tensor(&bad.tensors()[0]).unwrap();
    assert!(t.raw_le().is_none());
    assert!(
        matches!(t.values(), Err(Error::Unavailable { reason, .. }) if reason.contains("SHA-1"))
    );
}

/// raw_le of raw FLOAT data is the document's own bytes, not a copy.
#[test]
fn raw_le_borrows_from_the_document() {
    let doc = pbdecode::open("tests/fixtures/onnx-tensor/float_raw.pb").unwrap();
    let t = doc.tensor(&doc.tensors()[0]).unwrap();
    assert_eq!(
        (t.data_type(), t.storage()),
        (Some(DataType::Float), Storage::Raw)
    );
    let raw = t.raw_le().unwrap();
    let input = doc.bytes().as_ptr_range();
    assert!(input.contains(&raw.as_ptr()) && raw.len() as u64 == t.len() * 4);
    assert!(raw.as_ptr_range().end <= input.end);
    let Values::F32(v) = t.values().unwrap() else {
        panic!()
    };
    assert_eq!(v[0].to_le_bytes(), raw[..4]);
}

/// INT8 values come back as i8, at their own width, in raw and typed
/// storage.
#[test]
fn int8_values_are_i8() {
    for file in ["int8_raw.pb", "int8_typed.pb"] {
        let doc = pbdecode::open(Path::new("tests/fixtures/onnx-tensor").join(file)).unwrap();
        let t = doc.tensor(&doc.tensors()[0]).unwrap();
        assert_eq!(t.data_type().map(DataType::numpy_name), Some("int8"));
        let Values::I8(v) = t.values().unwrap() else {
            panic!("{file}")
        };
        assert_eq!(v.len() as u64, t.len());
        assert!(v.iter().any(|&x| x < 0), "{file}: {v:?}");
    }
}

/// write_json and write_text are the command's output, byte for byte, for
/// every fixture that decodes (test-folder files with their model's lines).
#[test]
fn json_and_text_are_the_commands_output() {
    let mut compared = 0;
    for path in fixtures() {
        let Ok(doc) = pbdecode::open(&path) else {
            continue;
        };
        let (mut json, mut text) = (Vec::new(), Vec::new());
        doc.write_json(&mut json, &JsonOptions::default()).unwrap();
        doc.write_text(&mut text, &TextOptions::default()).unwrap();
        assert!(json == cli(&["--json"], &path), "{}", path.display());
        assert!(
            text == cli(&["--color", "never"], &path),
            "{}",
            path.display()
        );
        compared += 1;
    }
    assert!(compared > 150, "{compared}");
}

/// write_npy writes what `decode --npy` writes: raw, typed, float16 and
/// string tensors, and a model's initializer by name.
#[test]
fn write_npy_is_the_commands_npy() {
    let dir = scratch("npy");
    let cases = [
        ("onnx-tensor/float_raw.pb", None),
        ("onnx-tensor/int8_typed.pb", None),
        ("onnx-tensor/float16_raw.pb", None),
        ("onnx-tensor/string_typed.pb", None),
        ("onnx-model/everything.onnx", Some("w_half")),
    ];
    for (k, (file, name)) in cases.into_iter().enumerate() {
        let path = Path::new("tests/fixtures").join(file);
        let doc = pbdecode::open(&path).unwrap();
        let t = match name {
            Some(n) => doc.tensor_by_name(n).unwrap(),
            None => doc.tensor(&doc.tensors()[0]).unwrap(),
        };
        let ours = dir.join(format!("{k}.npy"));
        t.write_npy(&ours).unwrap();
        let mut args = vec!["--npy", "-"];
        args.extend(name.map(|n| ["--tensor", n]).into_iter().flatten());
        assert_eq!(std::fs::read(&ours).unwrap(), cli(&args, &path), "{file}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// A 61-byte TensorFlow Const of shape [2^34] whose one stored float
/// implies the rest: values() refuses it before any pass, and says how many
/// are implied; a short one reads its repeats.
#[test]
fn implied_values_are_refused_past_the_cap() {
    let graph = |d: u64| {
        let shape = Msg::new().message(2, &Msg::new().varint(1, d));
        let tensor = Msg::new()
            .varint(1, 1)
            .message(2, &shape)
            .packed_fixed32(5, &[0x3f80_0000]);
        let attr = Msg::new()
            .string(1, "value")
            .message(2, &Msg::new().message(8, &tensor));
        let node = Msg::new()
            .string(1, "big")
            .string(2, "Const")
            .message(5, &attr);
        Msg::new().message(1, &node).bytes()
    };
    let doc = pbdecode::read(graph(1 << 34)).unwrap();
    let t = doc.tensor_by_name("big").unwrap();
    assert_eq!((t.len(), t.implied_len()), (1 << 34, (1 << 34) - 1));
    assert!(matches!(t.values(), Err(Error::Implied { implied, .. }) if implied == (1 << 34) - 1));
    let doc = pbdecode::read(graph(3)).unwrap();
    let v = doc.tensor_by_name("big").unwrap().values().unwrap();
    assert_eq!(v, Values::F32(vec![1.0; 3]));
}

/// Strings are borrowed from the document's bytes, not copied.
#[test]
fn strings_borrow_from_the_document() {
    let bytes: std::sync::Arc<[u8]> = std::fs::read("tests/fixtures/onnx-tensor/string_typed.pb")
        .unwrap()
        .into();
    let doc = pbdecode::read_shared(bytes.clone()).unwrap();
    let t = doc.tensor(&doc.tensors()[0]).unwrap();
    let Values::Str(v) = t.values().unwrap() else {
        panic!()
    };
    let input = bytes.as_ptr_range();
    assert!(
        !v.is_empty()
            && v.iter()
                .all(|s| input.contains(&s.as_ptr()) || s.is_empty())
    );
}

/// A binding hands documents between threads.
#[test]
fn documents_are_send_and_sync() {
    fn shared<T: Send + Sync + Clone>() {}
    shared::<pbdecode::Document>();
    shared::<pbdecode::TensorRef>();
}

/// Each tensor's role, from where it is in the file.
#[test]
fn roles_say_what_each_tensor_is() {
    use pbdecode::Role::*;
    let cases = [
        ("onnx-model/everything.onnx", "w_float", Initializer),
        ("onnx-model/everything.onnx", "cval", Constant),
        ("onnx-model/everything.onnx", "eye", Attribute),
        ("onnx-model/everything.onnx", "sp", SparseValues),
        ("onnx-model/everything.onnx", "sp_idx", SparseIndices),
        ("tf/graph_all_forms.pb", "content_f32", Constant),
        ("tf/graph_all_forms.pb", "all_kinds/tensor", Attribute),
        ("onnx-containers/map_int_keys.pb", "tensor0", MapValue),
        (
            "onnx-testdata/test_add_bias/test_data_set_0/input_0.pb",
            "x",
            TestInput,
        ),
        (
            "onnx-testdata/test_optional_has_element/test_data_set_0/input_0.pb",
            "tensor0",
            OptionalValue,
        ),
        (
            "onnx-testdata/test_add_bias/test_data_set_0/output_0.pb",
            "z",
            TestOutput,
        ),
        ("onnx-tensor/float_raw.pb", "float_raw", TensorFile),
    ];
    for (file, name, role) in cases {
        let doc = pbdecode::open(Path::new("tests/fixtures").join(file)).unwrap();
        let found = doc.tensors().iter().find(|t| t.name == name);
        assert_eq!(found.map(|t| t.role), Some(role), "{file}: {name}");
    }
    let seq = pbdecode::open("tests/fixtures/onnx-containers/seq_nested.pb").unwrap();
    assert!(seq.tensors().iter().all(|t| t.role == SequenceElement));
}

/// A document over an input its caller decoded (as the command line and
/// the explorer make one): the same index as `open` gives, no tensor lost
/// when the format is forced, the file's own tensor found, the weights
/// `--npy-dir` writes, and a .npy into an output planned beforehand equal
/// to `write_npy`'s.
#[test]
fn a_document_over_what_the_caller_decoded() {
    use pbdecode::formats::{self, AsFormat, FormatOptions};
    use pbdecode::input::open_input;
    use std::sync::Arc;
    let dir = scratch("from-decoded");
    for file in [
        "onnx-model/everything.onnx",
        "tf/graph_all_forms.pb",
        "onnx-tensor/float_raw.pb",
    ] {
        let path = Path::new("tests/fixtures").join(file);
        let opened = pbdecode::open(&path).unwrap();
        let input = Arc::new(open_input(&path).unwrap());
        let reading = pbdecode::Reading {
            asked: AsFormat::parse(opened.format().id).unwrap(),
            options: FormatOptions::default(),
        };
        let Some(f) = reading.asked.format() else {
            panic!("{file}: a format")
        };
        let decoded = formats::decode_as(f, input.bytes(), &reading.options).unwrap();
        let doc = pbdecode::Document::from_decoded(
            input.clone(),
            path.parent()
                .map(|d| pbdecode::Folder::Disk(d.to_path_buf())),
            reading,
            &decoded,
        );
        drop(decoded);
        assert_eq!(doc.format(), opened.format(), "{file}");
        let names = |d: &pbdecode::Document| {
            d.tensors()
                .iter()
                .map(|t| (t.name.clone(), t.range.clone(), t.weight))
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&doc), names(&opened), "{file}");
        // Written whole again as it was read.
        let json = |d: &pbdecode::Document| {
            let mut w = Vec::new();
            d.write_json(&mut w, &JsonOptions::default()).unwrap();
            w
        };
        assert_eq!(json(&doc), json(&opened), "{file}");
        let is_tensor_file = file.starts_with("onnx-tensor/");
        assert_eq!(doc.root_tensor().is_some(), is_tensor_file, "{file}");
        let export = doc.export_set();
        assert!(!export.is_empty(), "{file}");
        if !is_tensor_file {
            // A model's or graph's weights, not its other tensors.
            assert!(export.iter().all(|t| t.weight), "{file}");
            assert!(export.len() < doc.tensors().len(), "{file}");
        }
        let t = doc.tensor(export[0]).unwrap();
        let (planned, direct) = (dir.join("planned.npy"), dir.join("direct.npy"));
        let target =
            pbdecode::output::Output::plan(&planned, pbdecode::output::Policy::named()).unwrap();
        t.write_npy_to(&target, &pbdecode::npy::NpyOptions::default())
            .unwrap();
        t.write_npy(&direct).unwrap();
        assert_eq!(
            std::fs::read(&planned).unwrap(),
            std::fs::read(&direct).unwrap(),
            "{file}"
        );
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// A tensor's stored array outlives the tensor and the document it came
/// from (a binding's array views keep it), for raw data and side files.
#[test]
fn stored_array_owns_what_it_borrows() {
    let doc = pbdecode::open("tests/fixtures/onnx-tensor/float_raw.pb").unwrap();
    let t = doc.tensor(&doc.tensors()[0]).unwrap();
    let borrowed = t.raw_le().unwrap().to_vec();
    let stored = t.stored_array().unwrap();
    drop(t);
    drop(doc);
    assert_eq!(stored.bytes(), &borrowed[..]);
    let doc = pbdecode::open("tests/fixtures/onnx-tensor/external.pb").unwrap();
    let t = doc.tensor(&doc.tensors()[0]).unwrap();
    let borrowed = t.raw_le().unwrap().to_vec();
    let stored = t.stored_array().unwrap();
    drop(t);
    drop(doc);
    assert_eq!(stored.bytes(), &borrowed[..]);
    // Typed storage is no array of bytes; a failing side file gives none.
    let doc = pbdecode::open("tests/fixtures/onnx-tensor/float_typed.pb").unwrap();
    assert!(
        doc.tensor(&doc.tensors()[0])
            .unwrap()
            .stored_array()
            .is_none()
    );
    let doc = pbdecode::open("tests/fixtures/onnx-tensor/external_bad_sha1.pb").unwrap();
    assert!(
        doc.tensor(&doc.tensors()[0])
            .unwrap()
            .stored_array()
            .is_none()
    );
}

/// `open_as` reads as `decode --as FORMAT` does: the error it prints for a
/// file detection reads as `protobuf`, and `passed_over` keeps why
/// detection turned each format down.
#[test]
fn open_as_and_passed_over_say_what_the_cli_says() {
    let path = Path::new("tests/fixtures/onnx-tensor/bad_raw_too_short.pb");
    let auto = pbdecode::open(path).unwrap();
    assert_eq!(auto.format().id, "protobuf");
    let (first, why) = &auto.passed_over()[0];
    assert_eq!((*first, why.check()), ("onnx-tensor", "size"));
    let Err(Error::Decode(e)) = pbdecode::open_as(path, "onnx-tensor") else {
        panic!("read as onnx-tensor")
    };
    let printed = String::from_utf8(cli(&["--as", "onnx-tensor", "--json"], path)).unwrap();
    let printed = common::json::value(&printed).unwrap();
    assert_eq!(printed["error"]["check"], e.check());
    assert_eq!(printed["error"]["offset"].as_u64(), Some(e.offset()));
    // A good file: the same document as detection's, JSON byte for byte.
    let good = Path::new("tests/fixtures/onnx-model/everything.onnx");
    let doc = pbdecode::open_as(good, "onnx-model").unwrap();
    assert!(doc.passed_over().is_empty());
    let mut json = Vec::new();
    doc.write_json(&mut json, &JsonOptions::default()).unwrap();
    assert_eq!(json, cli(&["--as", "onnx-model", "--json"], good));
    assert!(matches!(
        pbdecode::open_as(good, "onnx-modle"),
        Err(Error::NoSuchFormat(_))
    ));
}

/// Bytes read with a folder find their external data there, under the
/// file rules; without one they have none.
#[test]
fn read_shared_in_reads_external_data_from_the_folder() {
    let bytes: std::sync::Arc<[u8]> = std::fs::read("tests/fixtures/onnx-tensor/external.pb")
        .unwrap()
        .into();
    let doc = pbdecode::read_shared_in(bytes.clone(), "tests/fixtures/onnx-tensor").unwrap();
    assert!(doc.tensor(&doc.tensors()[0]).unwrap().values().is_ok());
    let doc = pbdecode::read_shared(bytes.clone()).unwrap();
    assert!(doc.tensor(&doc.tensors()[0]).unwrap().values().is_err());
    let doc = pbdecode::read_shared_in(bytes, "tests/fixtures/onnx-model").unwrap();
    assert!(doc.tensor(&doc.tensors()[0]).unwrap().values().is_err());
}

/// `Document::diff` reports as `decode diff` does: its text is the
/// command's output after the `expected:`/`actual:` lines, its verdict
/// the command's exit status, for tensors, NaN, strings and sequences.
#[test]
fn diff_is_the_commands_report() {
    let dir = Path::new("tests/fixtures/onnx-testdata/diff");
    for (x, y) in [
        ("expected.pb", "same.pb"),
        ("expected.pb", "within.pb"),
        ("expected.pb", "out.pb"),
        ("expected.pb", "shape.pb"),
        ("expected.pb", "type.pb"),
        ("nan_expected.pb", "nan_actual.pb"),
        ("nan_expected.pb", "nan_same.pb"),
        ("str_expected.pb", "str_actual.pb"),
        ("seq_expected.pb", "seq_actual.pb"),
    ] {
        let (xp, yp) = (dir.join(x), dir.join(y));
        let out = Command::new(env!("CARGO_BIN_EXE_decode"))
            .arg("diff")
            .args([&xp, &yp])
            .output()
            .unwrap();
        let printed = String::from_utf8(out.stdout).unwrap();
        let body: String = printed.split_inclusive('\n').skip(2).collect();
        let d = pbdecode::open(&xp)
            .unwrap()
            .diff(
                &pbdecode::open(&yp).unwrap(),
                &pbdecode::DiffOptions::default(),
            )
            .unwrap();
        let mut text = Vec::new();
        d.write_text(&mut text).unwrap();
        assert_eq!(String::from_utf8(text).unwrap(), body, "{x} {y}");
        assert_eq!(d.passes(), out.status.code() == Some(0), "{x} {y}");
        let mut json = Vec::new();
        d.write_json(&mut json).unwrap();
        let json = common::json::value(&String::from_utf8(json).unwrap()).unwrap();
        assert_eq!(json["passed"].as_bool(), Some(d.passes()));
    }
    let model = pbdecode::open(dir.join("model_a.onnx")).unwrap();
    assert!(matches!(
        model.diff(&model, &pbdecode::DiffOptions::default()),
        Err(Error::NotComparable(_))
    ));
}

/// A tensor's external data as the facade's documented type: the side
/// file, offset and length as numbers, the SHA-1 as the model gives it.
#[test]
fn external_data_is_a_documented_type() {
    let doc = pbdecode::open("tests/fixtures/onnx-model/external.onnx").unwrap();
    let b = doc.tensors().iter().find(|t| t.name == "B").unwrap();
    let x = b.external_data().expect("B's values are in the side file");
    assert_eq!(x.location.as_deref(), Some("external.onnx.data"));
    assert_eq!((x.offset, x.length), (Some(48), Some(12)));
    assert!(
        x.checksum.as_deref().is_some_and(|c| c.len() == 40),
        "{x:?}"
    );
    let w = doc.tensors().iter().find(|t| t.name == "W").unwrap();
    assert_eq!(w.external_data().and_then(|x| x.checksum), None);
    let inline = doc.tensors().iter().find(|t| t.external_data().is_none());
    assert!(inline.is_some(), "the inline initializer has none");
}

#[test]
fn bytes_read_with_their_test_folder_are_read_as_its_file() {
    // An ONNX test folder's optional: detection alone reads the bytes as a
    // sequence (the same field numbers); the folder's model says optional.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/onnx-testdata");
    for set in [
        "test_optional_has_element/test_data_set_0",
        "test_optional_has_element/test_data_set_1",
    ] {
        let dir = root.join(set);
        for name in ["input_0.pb", "output_0.pb"] {
            let path = dir.join(name);
            let opened = pbdecode::open(&path).unwrap();
            let bytes: std::sync::Arc<[u8]> = std::fs::read(&path).unwrap().into();
            let read = pbdecode::read_shared_in(bytes.clone(), &dir).unwrap();
            assert_eq!(
                read.format().message_type,
                opened.format().message_type,
                "{set}/{name}"
            );
            let alone = pbdecode::read_shared(bytes.clone()).unwrap();
            if name == "input_0.pb" {
                assert_eq!(
                    opened.format().message_type.as_deref(),
                    Some("onnx.OptionalProto")
                );
                assert_eq!(
                    alone.format().message_type.as_deref(),
                    Some("onnx.SequenceProto")
                );
            }
            // Named explicitly, an optional reads as one.
            let named = pbdecode::read_shared_as(bytes, "onnx-optional", None);
            if let Ok(doc) = named {
                assert_eq!(
                    doc.format().message_type.as_deref(),
                    Some("onnx.OptionalProto")
                );
                assert_eq!(doc.format().id, "onnx-optional");
            } else {
                assert_ne!(name, "input_0.pb", "{named:?}");
            }
        }
    }
}
