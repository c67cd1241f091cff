//! PaddlePaddle programs: text and JSON snapshots of the fixtures in
//! tests/fixtures/paddle (made by scripts/make_paddle_fixtures.py, see its
//! README.md) with their parameters read from the tensor stream beside
//! them, the facade's tensors, the graph; damaged parameter files (made
//! here from the fixtures' bytes) by what they say; the validation rules
//! on programs hand-encoded here; no other fixture read as a program.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use crate::common;

use common::Msg;
use pbdecode::Folder;
use pbdecode::formats::{self, FormatOptions};
use pbdecode::render::{RenderOptions, json, text};
use std::path::{Path, PathBuf};

const DIR: &str = "tests/fixtures/paddle";

fn path(rel: &str) -> PathBuf {
    Path::new(DIR).join(rel)
}

fn opts_in(folder: &Path) -> RenderOptions {
    RenderOptions {
        dir: Some(Folder::Disk(folder.to_path_buf())),
        ..RenderOptions::default()
    }
}

fn text_of(file: &Path) -> String {
    let bytes = std::fs::read(file).unwrap();
    let decoded = formats::detect(&bytes, &FormatOptions::default())
        .unwrap_or_else(|r| panic!("not decoded: {}", r.error));
    assert_eq!(decoded.format.id, "paddle-model");
    let mut out = Vec::new();
    text::write_decoded(&mut out, &decoded, &opts_in(file.parent().unwrap())).unwrap();
    String::from_utf8(out).unwrap()
}

fn json_text(file: &Path) -> String {
    let bytes = std::fs::read(file).unwrap();
    let decoded = formats::detect(&bytes, &FormatOptions::default()).unwrap();
    let mut out = Vec::new();
    let opts = RenderOptions {
        values: Some(4),
        ..opts_in(file.parent().unwrap())
    };
    json::write_decoded(&mut out, &decoded, &opts).unwrap();
    String::from_utf8(out).unwrap()
}

fn json_of(file: &Path) -> serde_json::Value {
    common::json::value(&json_text(file)).unwrap()
}

fn snapshot(name: &str, value: String) {
    insta::with_settings!({snapshot_path => "../../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!(format!("paddle__{name}"), value);
    });
}

/// Text with `--values` default and the JSON (four values a tensor) of
/// each fixture, one snapshot each; every parameter read.
#[test]
fn fixtures_as_text_and_json() {
    for (name, file, params) in [
        ("small", "small/inference.pdmodel", 8),
        ("dtypes", "dtypes/inference.pdmodel", 8),
        ("branch", "branch/inference.pdmodel", 8),
    ] {
        let file = path(file);
        let jt = json_text(&file);
        let j = json_of(&file);
        let side = j["side_tensors"].as_array().unwrap();
        assert_eq!(side.len(), params, "{name}");
        for t in side {
            assert!(t["values"].is_array(), "{name}: {t}");
            assert_eq!(t["file"], "inference.pdiparams");
        }
        snapshot(
            name,
            format!(
                "{}\n---- JSON ----\n{}",
                text_of(&file),
                common::json::pretty(&jt)
            ),
        );
    }
}

/// Paddle 1.x's names: `__model__` reads `__params__` beside it.
#[test]
fn legacy_names_read_their_parameters() {
    let legacy = json_of(&path("legacy/__model__"));
    let small = json_of(&path("small/inference.pdmodel"));
    let side = legacy["side_tensors"].as_array().unwrap();
    assert_eq!(side.len(), 8);
    for (a, b) in side.iter().zip(small["side_tensors"].as_array().unwrap()) {
        assert_eq!(a["file"], "__params__");
        assert_eq!(a["values"], b["values"]);
        assert_eq!(a["name"], b["name"]);
    }
}

/// Every value through the facade equals the stream's bytes read by hand
/// (the fixture's README gives the layout): the dtypes fixture's
/// parameters, each its own type.
#[test]
fn facade_values_are_the_streams() {
    let doc = pbdecode::open(path("dtypes/inference.pdmodel")).unwrap();
    let names: Vec<&str> = doc.tensors().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "p_bool",
            "p_float16",
            "p_float32",
            "p_float64",
            "p_int32",
            "p_int64",
            "p_int8",
            "p_uint8"
        ]
    );
    let t = doc.tensor_by_name("p_int64").unwrap();
    assert_eq!(t.shape(), Some(&[3u64][..]));
    match t.values().unwrap() {
        pbdecode::Values::I64(v) => assert_eq!(v.as_ref(), [i64::MIN, i64::MAX, 42]),
        other => panic!("{other:?}"),
    }
    let t = doc.tensor_by_name("p_float16").unwrap();
    assert_eq!(t.type_name(), "FP16");
    match t.values().unwrap() {
        pbdecode::Values::F16(v) => {
            let v: Vec<f32> = v.iter().map(|x| x.to_f32()).collect();
            assert_eq!(v, [0.0, -0.0, 65504.0, -1.0, 5.9604645e-8, 0.099975586]);
        }
        other => panic!("{other:?}"),
    }
    let t = doc.tensor_by_name("p_bool").unwrap();
    match t.values().unwrap() {
        pbdecode::Values::Bool(v) => assert_eq!(v.as_ref(), [true, false, true]),
        other => panic!("{other:?}"),
    }
    // The parameters' own bytes, mapped from the side file.
    let t = doc.tensor_by_name("p_float32").unwrap();
    let raw = t.raw_le().unwrap();
    let want: Vec<u8> = [0.0f32, -0.0, 1.5, -2.25, 3.4028235e38, 1.1754944e-38]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    assert_eq!(raw, &want[..]);
}

/// The graph: one node per op of each block, the sub-block a subgraph of
/// the conditional_block op, parameters as weights.
#[test]
fn graph_has_every_op() {
    let doc = pbdecode::open(path("branch/inference.pdmodel")).unwrap();
    let model = doc.graphs().unwrap().unwrap();
    assert_eq!(model.graphs.len(), 2);
    let main = &model.graphs[0];
    assert_eq!(main.nodes.len(), 12);
    assert_eq!(model.graphs[1].nodes.len(), 1);
    let cond = main
        .nodes
        .iter()
        .find(|n| n.op == "conditional_block")
        .unwrap();
    assert_eq!(cond.subgraphs, [1]);
    let conv = main.nodes.iter().position(|n| n.op == "conv2d").unwrap();
    let weights: Vec<&str> = main
        .weights(conv)
        .iter()
        .map(|(_, formal, v)| {
            assert!(v.weight.as_ref().unwrap().tensor.is_some());
            *formal
        })
        .collect();
    assert_eq!(weights, ["Filter"]);
    // batch_norm writes its mean again (MeanOut): a new value, no cycle.
    let bn = main
        .nodes
        .iter()
        .position(|n| n.op == "batch_norm")
        .unwrap();
    let node = &main.nodes[bn];
    for out in &node.outputs {
        let v = &main.values[out.value.unwrap()];
        assert!(
            !v.consumers.contains(&pbdecode::graph::End::Node(bn)),
            "{}",
            v.name
        );
    }
}

/// A copy of `small` in a temporary folder with its parameters replaced
/// by `params`.
fn with_params(tag: &str, params: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pbdecode-paddle-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        path("small/inference.pdmodel"),
        dir.join("inference.pdmodel"),
    )
    .unwrap();
    std::fs::write(dir.join("inference.pdiparams"), params).unwrap();
    dir
}

/// Damaged parameter files: each parameter before the damage reads, the
/// one where it is and those after it say why, in words that name the
/// file and the offset; nothing panics.
#[test]
fn damaged_parameters_say_why() {
    let good = std::fs::read(path("small/inference.pdiparams")).unwrap();
    let why = |dir: &Path| -> Vec<String> {
        let j = json_of(&dir.join("inference.pdmodel"));
        let _ = std::fs::remove_dir_all(dir);
        j["side_tensors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                t["values_unavailable"]
                    .as_str()
                    .map_or_else(|| "ok".to_string(), str::to_string)
            })
            .collect()
    };
    // Cut inside the last tensor's values (fc_0.w_0, 320 floats at 732).
    let cut = why(&with_params("cut", &good[..good.len() - 4]));
    assert_eq!(&cut[..7], ["ok"; 7]);
    assert_eq!(
        cut[7],
        "inference.pdiparams: the values of the tensor at offset 706 (1280 bytes at offset 732) run past the end (2008 bytes)"
    );
    // A version that is not 0 in the third tensor.
    let mut v = good.clone();
    v[104 - 24] = 1;
    let versioned = why(&with_params("version", &v));
    assert_eq!(&versioned[..2], ["ok"; 2]);
    assert_eq!(
        versioned[2],
        "inference.pdiparams: the LoD tensor at offset 80 has version 1 (Paddle writes 0)"
    );
    assert!(versioned[3..].iter().all(|w| *w == versioned[2]));
    // Bytes after the last tensor: the program does not list them all.
    let mut long = good.clone();
    long.extend_from_slice(&[0; 8]);
    let extra = why(&with_params("extra", &long));
    assert_eq!(&extra[..7], ["ok"; 7]);
    assert!(
        extra[7].contains("8 bytes after the last parameter's values"),
        "{}",
        extra[7]
    );
    // The dtypes fixture's stream under the small program: the first
    // tensor is another's.
    let other = std::fs::read(path("dtypes/inference.pdiparams")).unwrap();
    let wrong = why(&with_params("other", &other));
    assert!(
        wrong[0].contains("the stream does not follow the program"),
        "{}",
        wrong[0]
    );
    assert!(wrong.iter().all(|w| *w == wrong[0]));
    // A LoD level count of 2^60 in a 2 KB file.
    let mut lod = good.clone();
    lod[4..12].copy_from_slice(&(1u64 << 60).to_le_bytes());
    let levels = why(&with_params("lod", &lod));
    assert_eq!(
        levels[0],
        "inference.pdiparams: 1152921504606846976 LoD levels at offset 4 do not fit"
    );
    // No parameter file: no side tensors.
    let dir = with_params("none", &good);
    std::fs::remove_file(dir.join("inference.pdiparams")).unwrap();
    let j = json_of(&dir.join("inference.pdmodel"));
    assert!(j.get("side_tensors").is_none());
    let _ = std::fs::remove_dir_all(&dir);
}

/// What Paddle requires of a program, each rule by its check.
#[test]
fn validation_rules() {
    fn var(name: &str) -> Msg {
        Msg::new()
            .string(1, name)
            .message(2, &Msg::new().varint(1, 7))
    }
    fn op(ty: &str) -> Msg {
        Msg::new().string(3, ty)
    }
    fn block(idx: i64, parent: i64) -> Msg {
        Msg::new().int(1, idx).int(2, parent)
    }
    let check = |program: Msg| -> Result<(), String> {
        let bytes = program.bytes();
        let format = formats::find("paddle-model").unwrap();
        formats::decode_as(format, &bytes, &FormatOptions::default())
            .map(|_| ())
            .map_err(|e| format!("{}: {e}", e.check()))
    };
    let good = Msg::new().message(
        1,
        &block(0, -1).message(3, &var("x")).message(4, &op("relu")),
    );
    assert_eq!(check(good), Ok(()));
    let none = check(Msg::new().message(4, &Msg::new().varint(1, 1))).unwrap_err();
    assert!(
        none.starts_with("program-blocks:") && none.ends_with("ProgramDesc has no blocks"),
        "{none}"
    );
    assert!(
        check(Msg::new().message(1, &block(0, 0)))
            .unwrap_err()
            .starts_with("program-blocks:"),
    );
    assert!(
        check(
            Msg::new()
                .message(1, &block(0, -1))
                .message(1, &block(2, 0))
        )
        .unwrap_err()
        .starts_with("program-blocks:")
    );
    let nameless = Msg::new().message(1, &block(0, -1).message(4, &Msg::new().varint(5, 1)));
    assert!(
        check(nameless)
            .unwrap_err()
            .starts_with("program-required:")
    );
    let untyped = Msg::new().message(1, &block(0, -1).message(3, &Msg::new().string(1, "x")));
    assert!(check(untyped).unwrap_err().starts_with("program-required:"));
}

/// No other fixture of the repository is read as a Paddle program.
#[test]
fn no_other_fixture_is_a_program() {
    fn files(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                files(&p, out);
            } else {
                out.push(p);
            }
        }
    }
    let mut all = Vec::new();
    files(Path::new("tests/fixtures"), &mut all);
    let mut programs = 0;
    for p in all {
        let bytes = std::fs::read(&p).unwrap();
        let id = formats::detect(&bytes, &FormatOptions::default())
            .ok()
            .map(|d| d.format.id);
        let is_program = p.starts_with(DIR)
            && (p.extension().is_some_and(|x| x == "pdmodel")
                || p.file_name().is_some_and(|n| n == "__model__"));
        assert_eq!(id == Some("paddle-model"), is_program, "{}", p.display());
        programs += usize::from(is_program);
    }
    assert_eq!(programs, 4);
}
