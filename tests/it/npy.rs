//! Export to .npy: every ONNX data type with its header and data bytes
//! checked byte for byte, shapes (scalar, 1-D, N-D), TensorFlow tensors,
//! file names under `--npy-dir`, the `--npy` flag, and (outside `cargo
//! test`, as it needs Python: `cargo test --test it npy:: -- --ignored`)
//! numpy.load on every file.

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
use pbdecode::npy::{self, NpyInfo};
use pbdecode::schema::SchemaSet;
use std::path::PathBuf;
use std::process::Command;

/// The .npy bytes of the root tensor of `bytes`, or of the named one.
fn npy_of(bytes: &[u8], name: Option<&str>) -> (Vec<u8>, NpyInfo) {
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
    npy::npy_bytes(&t.view(set).expect("a tensor"), None).expect("exports")
}

/// The header numpy writes for this dtype and shape.
fn expected_header(descr: &str, shape: &str) -> Vec<u8> {
    let mut dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while (10 + dict.len() + 1) % 64 != 0 {
        dict.push(' ');
    }
    dict.push('\n');
    let mut h = b"\x93NUMPY\x01\x00".to_vec();
    h.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    h.extend_from_slice(dict.as_bytes());
    h
}

fn le<T: Copy, const N: usize>(vals: &[T], f: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    vals.iter().flat_map(|&v| f(v)).collect()
}

/// One case: an ONNX type code, its raw_data (strings: none), the dtype
/// and data bytes expected, and the values as Python literals.
struct Case {
    code: u64,
    name: &'static str,
    raw: Vec<u8>,
    strings: Vec<&'static [u8]>,
    descr: &'static str,
    data: Vec<u8>,
    python: &'static str,
    widened: bool,
}

fn case(
    code: u64,
    name: &'static str,
    raw: Vec<u8>,
    descr: &'static str,
    data: Vec<u8>,
    python: &'static str,
) -> Case {
    Case {
        code,
        name,
        raw,
        strings: Vec::new(),
        descr,
        data,
        python,
        widened: false,
    }
}

fn widened(mut c: Case) -> Case {
    c.widened = true;
    c
}

/// Three elements of every ONNX data type.
fn cases() -> Vec<Case> {
    let nan = f32::NAN;
    let f32s = |v: &[f32]| le(v, f32::to_le_bytes);
    let mut utf32 = Vec::new();
    for s in ["a", "héllo", ""] {
        let mut chars: Vec<u32> = s.chars().map(u32::from).collect();
        chars.resize(5, 0);
        utf32.extend(le(&chars, u32::to_le_bytes));
    }
    // 6-bit values, a little-endian bit stream: 3 values in 3 bytes.
    let six = |a: u32, b: u32, c: u32| (a | (b << 6) | (c << 12)).to_le_bytes()[..3].to_vec();
    vec![
        case(
            1,
            "FLOAT",
            f32s(&[1.5, -2.0, nan]),
            "<f4",
            f32s(&[1.5, -2.0, nan]),
            "[1.5, -2.0, nan]",
        ),
        case(
            2,
            "UINT8",
            vec![0, 7, 255],
            "|u1",
            vec![0, 7, 255],
            "[0, 7, 255]",
        ),
        case(
            3,
            "INT8",
            vec![0x80, 0x7f, 0xff],
            "|i1",
            vec![0x80, 0x7f, 0xff],
            "[-128, 127, -1]",
        ),
        case(
            4,
            "UINT16",
            le(&[0u16, 65535, 258], u16::to_le_bytes),
            "<u2",
            le(&[0u16, 65535, 258], u16::to_le_bytes),
            "[0, 65535, 258]",
        ),
        case(
            5,
            "INT16",
            le(&[i16::MIN, i16::MAX, -1], i16::to_le_bytes),
            "<i2",
            le(&[i16::MIN, i16::MAX, -1], i16::to_le_bytes),
            "[-32768, 32767, -1]",
        ),
        case(
            6,
            "INT32",
            le(&[i32::MIN, i32::MAX, -1], i32::to_le_bytes),
            "<i4",
            le(&[i32::MIN, i32::MAX, -1], i32::to_le_bytes),
            "[-2147483648, 2147483647, -1]",
        ),
        case(
            7,
            "INT64",
            le(&[i64::MIN, i64::MAX, -1], i64::to_le_bytes),
            "<i8",
            le(&[i64::MIN, i64::MAX, -1], i64::to_le_bytes),
            "[-9223372036854775808, 9223372036854775807, -1]",
        ),
        Case {
            strings: vec![b"a", "héllo".as_bytes(), b""],
            ..case(8, "STRING", Vec::new(), "<U5", utf32, "['a', 'héllo', '']")
        },
        case(
            9,
            "BOOL",
            vec![1, 0, 1],
            "|b1",
            vec![1, 0, 1],
            "[True, False, True]",
        ),
        case(
            10,
            "FLOAT16",
            le(&[0x3c00u16, 0xc000, 0x7c00], u16::to_le_bytes),
            "<f2",
            le(&[0x3c00u16, 0xc000, 0x7c00], u16::to_le_bytes),
            "[1.0, -2.0, inf]",
        ),
        case(
            11,
            "DOUBLE",
            le(&[1.5f64, -2.25, 1e300], f64::to_le_bytes),
            "<f8",
            le(&[1.5f64, -2.25, 1e300], f64::to_le_bytes),
            "[1.5, -2.25, 1e300]",
        ),
        case(
            12,
            "UINT32",
            le(&[0u32, u32::MAX, 5], u32::to_le_bytes),
            "<u4",
            le(&[0u32, u32::MAX, 5], u32::to_le_bytes),
            "[0, 4294967295, 5]",
        ),
        case(
            13,
            "UINT64",
            le(&[0u64, u64::MAX, 5], u64::to_le_bytes),
            "<u8",
            le(&[0u64, u64::MAX, 5], u64::to_le_bytes),
            "[0, 18446744073709551615, 5]",
        ),
        case(
            14,
            "COMPLEX64",
            f32s(&[1.0, 2.0, -3.0, 0.5, 0.0, 0.0]),
            "<c8",
            f32s(&[1.0, 2.0, -3.0, 0.5, 0.0, 0.0]),
            "[1+2j, -3+0.5j, 0j]",
        ),
        case(
            15,
            "COMPLEX128",
            le(&[1.0f64, 2.0, -3.0, 0.5, 0.0, 0.0], f64::to_le_bytes),
            "<c16",
            le(&[1.0f64, 2.0, -3.0, 0.5, 0.0, 0.0], f64::to_le_bytes),
            "[1+2j, -3+0.5j, 0j]",
        ),
        widened(case(
            16,
            "BFLOAT16",
            le(&[0x3f80u16, 0xc000, 0x7fc0], u16::to_le_bytes),
            "<f4",
            f32s(&[1.0, -2.0, nan]),
            "[1.0, -2.0, nan]",
        )),
        widened(case(
            17,
            "FLOAT8E4M3FN",
            vec![0x38, 0x7e, 0xb8],
            "<f4",
            f32s(&[1.0, 448.0, -1.0]),
            "[1.0, 448.0, -1.0]",
        )),
        widened(case(
            18,
            "FLOAT8E4M3FNUZ",
            vec![0x40, 0x80, 0xc0],
            "<f4",
            f32s(&[1.0, nan, -1.0]),
            "[1.0, nan, -1.0]",
        )),
        widened(case(
            19,
            "FLOAT8E5M2",
            vec![0x3c, 0x7c, 0xbc],
            "<f4",
            f32s(&[1.0, f32::INFINITY, -1.0]),
            "[1.0, inf, -1.0]",
        )),
        widened(case(
            20,
            "FLOAT8E5M2FNUZ",
            vec![0x40, 0x80, 0xc0],
            "<f4",
            f32s(&[1.0, nan, -1.0]),
            "[1.0, nan, -1.0]",
        )),
        widened(case(
            21,
            "UINT4",
            vec![0x0f, 0x09],
            "|u1",
            vec![15, 0, 9],
            "[15, 0, 9]",
        )),
        widened(case(
            22,
            "INT4",
            vec![0x78, 0x0f],
            "|i1",
            vec![0xf8, 0x07, 0xff],
            "[-8, 7, -1]",
        )),
        widened(case(
            23,
            "FLOAT4E2M1",
            vec![0x72, 0x0f],
            "<f4",
            f32s(&[1.0, 6.0, -6.0]),
            "[1.0, 6.0, -6.0]",
        )),
        widened(case(
            24,
            "FLOAT8E8M0",
            vec![127, 128, 0xff],
            "<f4",
            f32s(&[1.0, 2.0, nan]),
            "[1.0, 2.0, nan]",
        )),
        widened(case(
            25,
            "UINT2",
            vec![0x23],
            "|u1",
            vec![3, 0, 2],
            "[3, 0, 2]",
        )),
        widened(case(
            26,
            "INT2",
            vec![0x36],
            "|i1",
            vec![0xfe, 0x01, 0xff],
            "[-2, 1, -1]",
        )),
        widened(case(
            27,
            "FLOAT6E2M3",
            six(0x08, 0x1f, 0x28),
            "<f4",
            f32s(&[1.0, 7.5, -1.0]),
            "[1.0, 7.5, -1.0]",
        )),
        widened(case(
            28,
            "FLOAT6E3M2",
            six(0x0c, 0x1f, 0x2c),
            "<f4",
            f32s(&[1.0, 28.0, -1.0]),
            "[1.0, 28.0, -1.0]",
        )),
    ]
}

fn tensor_of(c: &Case, dims: &[u64]) -> Vec<u8> {
    if c.code == 8 {
        build::onnx_strings("", dims, &c.strings)
    } else {
        build::onnx_raw("", dims, c.code, &c.raw)
    }
}

#[test]
fn every_data_type_header_and_data() {
    let all = cases();
    assert_eq!(all.len(), 28);
    for c in &all {
        let (bytes, info) = npy_of(&tensor_of(c, &[3]), None);
        let header = expected_header(c.descr, "(3,)");
        assert_eq!(info.descr, c.descr, "{}", c.name);
        assert_eq!(info.shape, [3], "{}", c.name);
        assert_eq!(
            &bytes[..header.len()],
            header.as_slice(),
            "{} header",
            c.name
        );
        assert_eq!(header.len() % 64, 0);
        assert_eq!(&bytes[header.len()..], c.data.as_slice(), "{} data", c.name);
        match &info.note {
            Some(note) => {
                assert!(c.widened, "{}: unexpected note {note}", c.name);
                assert!(
                    note.starts_with(&format!("{} values written as ", c.name)),
                    "{note}"
                );
            }
            None => assert!(!c.widened, "{}: no note", c.name),
        }
    }
}

#[test]
fn shapes_scalar_and_n_d() {
    let (bytes, info) = npy_of(&build::onnx_f32("", &[], &[2.5]), None);
    let header = expected_header("<f4", "()");
    assert_eq!(info.shape, Vec::<u64>::new());
    assert_eq!(&bytes[..header.len()], header.as_slice());
    assert_eq!(&bytes[header.len()..], 2.5f32.to_le_bytes());
    let vals: Vec<f32> = (0..60).map(|i| i as f32).collect();
    let (bytes, _) = npy_of(&build::onnx_f32("", &[3, 4, 5], &vals), None);
    let header = expected_header("<f4", "(3, 4, 5)");
    assert_eq!(&bytes[..header.len()], header.as_slice());
    assert_eq!(bytes.len(), header.len() + 240);
    // An empty tensor: shape (0, 2), no data.
    let (bytes, _) = npy_of(&build::onnx_raw("", &[0, 2], 1, &[]), None);
    assert_eq!(bytes, expected_header("<f4", "(0, 2)"));
}

#[test]
fn tensorflow_tensors_by_node_name() {
    // DT_HALF (19): exact float16; DT_BFLOAT16 (14): float32 with a note.
    let half = build::tf_tensor(19, &[2], &[0x00, 0x3c, 0x00, 0xc0]);
    let bf = build::tf_tensor(14, &[1, 1], &[0x80, 0x3f]);
    let graph = build::tf_graph(&[("h", half), ("b", bf)]);
    let (bytes, info) = npy_of(&graph, Some("h"));
    assert_eq!(info.descr, "<f2");
    assert_eq!(&bytes[bytes.len() - 4..], [0x00, 0x3c, 0x00, 0xc0]);
    let (bytes, info) = npy_of(&graph, Some("b"));
    assert_eq!(
        (info.descr.as_str(), info.shape.as_slice()),
        ("<f4", &[1u64, 1][..])
    );
    assert_eq!(&bytes[bytes.len() - 4..], 1.0f32.to_le_bytes());
    assert!(
        info.note
            .is_some_and(|n| n.starts_with("DT_BFLOAT16 values written as float32"))
    );
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pbdecode-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

#[test]
fn cli_npy_dir_names_stay_inside() {
    let dir = temp_dir("npy-dir");
    let model = build::onnx_model(&[
        build::onnx_f32("a/b", &[1], &[1.0]),
        build::onnx_f32("../../escape", &[1], &[2.0]),
        build::onnx_f32("a:b", &[1], &[3.0]),
        build::onnx_raw("w.bf16", &[1], 16, &[0x80, 0x3f]),
    ]);
    let input = dir.join("m.onnx");
    std::fs::write(&input, model).expect("write");
    let out = dir.join("out");
    let run = Command::new(env!("CARGO_BIN_EXE_decode"))
        .arg("--npy-dir")
        .arg(&out)
        .arg(&input)
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("note: BFLOAT16 values written as float32"),
        "{stderr}"
    );
    assert!(stderr.contains("wrote 4 of 4 tensors"), "{stderr}");
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["_.._.._escape.npy", "a_b.npy", "a_b_2.npy", "w.bf16.npy"]
    );
    assert!(!dir.join("escape.npy").exists());
    // --npy with --tensor writes one file.
    let one = dir.join("one.npy");
    let run = Command::new(env!("CARGO_BIN_EXE_decode"))
        .arg("--npy")
        .arg(&one)
        .args(["--tensor", "a:b"])
        .arg(&input)
        .output()
        .expect("runs");
    assert_eq!(run.status.code(), Some(0));
    let bytes = std::fs::read(&one).expect("written");
    assert_eq!(&bytes[bytes.len() - 4..], 3.0f32.to_le_bytes());
    let _ = std::fs::remove_dir_all(&dir);
}

fn numpy_available() -> bool {
    Command::new("python3")
        .args(["-c", "import numpy"])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
#[ignore = "needs python3 with numpy: cargo test --test it npy:: -- --ignored"]
fn numpy_loads_every_file() {
    assert!(
        numpy_available(),
        "numpy is not installed (python3 -c \"import numpy\" failed)"
    );
    let dir = temp_dir("npy-numpy");
    let mut script = String::from(
        "import numpy as np, sys\n\
         nan, inf = float('nan'), float('inf')\n\
         bad = 0\n\
         def check(path, descr, shape, want):\n\
         \x20   global bad\n\
         \x20   a = np.load(path)\n\
         \x20   w = np.array(want, dtype=a.dtype).reshape(shape)\n\
         \x20   same = a.dtype.str == descr and a.shape == shape and (np.array_equal(a, w, equal_nan=True) if a.dtype.kind in 'fc' else np.array_equal(a, w))\n\
         \x20   if not same:\n\
         \x20       bad += 1\n\
         \x20       print(path, a.dtype.str, a.shape, a.tolist(), 'want', descr, shape, want)\n",
    );
    for c in cases() {
        for (dims, shape) in [(&[3u64][..], "(3,)"), (&[1, 3][..], "(1, 3)")] {
            let (bytes, _) = npy_of(&tensor_of(&c, dims), None);
            let path = dir.join(format!("{}_{}.npy", c.name, dims.len()));
            std::fs::write(&path, bytes).expect("write");
            script.push_str(&format!(
                "check({:?}, {:?}, {shape}, {})\n",
                path.to_string_lossy(),
                c.descr,
                c.python
            ));
        }
    }
    script.push_str("sys.exit(1 if bad else 0)\n");
    let run = Command::new("python3")
        .args(["-c", &script])
        .output()
        .expect("python3 runs");
    assert!(
        run.status.success(),
        "numpy disagrees:\n{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
