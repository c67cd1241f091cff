//! Values implied by TensorFlow's padding rule (a short typed field repeats
//! its last value up to the shape): a 61-byte Const of shape [2^34] holds
//! one stored value and 2^34 - 1 implied ones. Statistics come from the
//! stored values and the repeat count, every size limit is checked before
//! any pass over the values, printing stops at a cap (lifted by
//! `--allow-implied`) and `--npy` refuses such a tensor over 1 GiB.
//!
//! Each case runs the binary under a watchdog: a version that iterates the
//! implied values would run for minutes to hours, and the watchdog turns
//! that into a failure instead of a hang. Nothing asserts how fast it is.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

mod common;

use common::Msg;
use common::json::{self, Json};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A GraphDef with one Const node `big` of the given shape whose
/// `float_val` holds `values`.
fn const_graph(dims: &[u64], values: &[f32]) -> Vec<u8> {
    let mut shape = Msg::new();
    for &d in dims {
        shape = shape.message(2, &Msg::new().varint(1, d));
    }
    let bits: Vec<u32> = values.iter().map(|v| v.to_bits()).collect();
    let tensor = Msg::new()
        .varint(1, 1)
        .message(2, &shape)
        .packed_fixed32(5, &bits);
    let attr = Msg::new()
        .string(1, "value")
        .message(2, &Msg::new().message(8, &tensor));
    let node = Msg::new()
        .string(1, "big")
        .string(2, "Const")
        .message(5, &attr);
    Msg::new().message(1, &node).bytes()
}

fn write_fixture(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pbdecode-implied-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write fixture");
    path
}

struct Run {
    status: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
}

/// CPU seconds a run may use: each takes milliseconds; one that iterates
/// 2^34 implied values needs hours. A CPU-time limit (not a wall-clock
/// one) does not depend on how busy the machine is.
const CPU_SECONDS: u32 = 120;

/// Runs decode under the CPU-time limit (the kernel stops it past that)
/// and stops reading once it has printed more than `max_out` bytes (it then
/// meets a closed pipe).
fn run(args: &[&str], max_out: usize) -> Run {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -t {CPU_SECONDS} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_decode"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run decode");
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let mut chunk = vec![0u8; 1 << 16];
        while let Ok(n) = out.read(&mut chunk) {
            if n == 0 || buf.len() > max_out {
                break;
            }
            buf.extend_from_slice(&chunk[..n]);
        }
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let status = child.wait().expect("wait");
    assert!(
        status.code().is_some(),
        "decode {args:?} was stopped at its {CPU_SECONDS} s CPU limit ({status}): it iterates the implied values"
    );
    let status = status.code();
    let stdout = reader.join().expect("reader");
    assert!(
        stdout.len() <= max_out,
        "decode {args:?} printed over {max_out} bytes"
    );
    Run {
        status,
        stdout,
        stderr: err_reader.join().expect("stderr reader"),
    }
}

fn p(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

const BIG: u64 = 1 << 34;

#[test]
fn tiny_file_of_2_pow_34_values() {
    let bytes = const_graph(&[BIG], &[1.5]);
    assert!(bytes.len() < 64, "{} bytes", bytes.len());
    let file = write_fixture("big.pb", &bytes);

    // --json: the stored value plus at most 2^20 implied ones, the cap
    // said in the output; statistics over all 2^34.
    let r = run(&["--json", p(&file)], 64 << 20);
    assert_eq!(r.status, Some(0), "{}", r.stderr);
    let text = String::from_utf8(r.stdout).expect("utf-8");
    let doc = json::parse(&text).expect("JSON");
    let tensor = find_tensor(&doc).expect("the Const's tensor");
    let values = tensor
        .get("values")
        .and_then(Json::as_array)
        .expect("values");
    assert_eq!(values.len() as u64, 1 + (1 << 20));
    assert!(values.iter().all(|v| v.as_f64() == Some(1.5)));
    assert_eq!(
        tensor.get("values_total").and_then(Json::as_i128),
        Some(i128::from(BIG))
    );
    let capped = tensor
        .get("values_capped")
        .and_then(Json::as_str)
        .expect("cap");
    assert!(capped.contains("--allow-implied"), "{capped}");

    // --stats (text): statistics of all 2^34 values without iterating.
    let r = run(&["--stats", p(&file)], 1 << 20);
    assert_eq!(r.status, Some(0), "{}", r.stderr);
    let text = String::from_utf8_lossy(&r.stdout);
    assert!(
        text.contains("count 17179869184  min 1.5  max 1.5  mean 1.5  std 0.0"),
        "{text}"
    );

    // --tensor big --values 8: eight values and the statistics.
    let r = run(&["--tensor", "big", "--values", "8", p(&file)], 1 << 20);
    assert_eq!(r.status, Some(0), "{}", r.stderr);
    let text = String::from_utf8_lossy(&r.stdout);
    assert!(text.contains("count 17179869184"), "{text}");
    assert!(text.contains("values left out"), "{text}");

    // --npy: refused (64 GiB of values implied by one stored float).
    let out = file.with_extension("npy");
    let r = run(&["--npy", p(&out), "--tensor", "big", p(&file)], 1 << 20);
    assert_eq!(r.status, Some(1), "{}", r.stderr);
    assert!(r.stderr.contains("--allow-implied"), "{}", r.stderr);
    assert!(r.stderr.contains("implied by TensorFlow's padding rule"));
}

#[test]
fn picture_size_is_checked_before_any_pass() {
    let file = write_fixture("square.pb", &const_graph(&[1 << 20, 1 << 20], &[0.5]));
    let out = file.with_extension("png");
    let r = run(
        &["--picture", p(&out), "--tensor", "big", p(&file)],
        1 << 20,
    );
    assert_eq!(r.status, Some(1), "{}", r.stderr);
    assert!(r.stderr.contains("larger than the limit"), "{}", r.stderr);
}

#[test]
fn shape_near_2_pow_64_ends() {
    let file = write_fixture("huge.pb", &const_graph(&[(1 << 63) - 1, 2], &[-2.0, 3.0]));
    let r = run(&["--stats", p(&file)], 1 << 20);
    assert_eq!(r.status, Some(0), "{}", r.stderr);
    let text = String::from_utf8_lossy(&r.stdout);
    // Two stored values, then 3.0 repeated: min -2, max 3.
    assert!(
        text.contains("count 18446744073709551614  min -2.0  max 3.0"),
        "{text}"
    );
    let r = run(&["--json", "--stats", "--values", "4", p(&file)], 1 << 20);
    assert_eq!(r.status, Some(0), "{}", r.stderr);
    let text = String::from_utf8_lossy(&r.stdout);
    assert!(text.contains("\"values\": [-2.0, 3.0, 3.0, 3.0]"), "{text}");
    assert!(text.contains("\"count\": 18446744073709551614"), "{text}");
}

#[test]
fn allow_implied_lifts_the_cap() {
    let n = (1u64 << 20) + 5;
    let file = write_fixture("lifted.pb", &const_graph(&[n], &[7.0]));
    let r = run(&["--json", "--allow-implied", p(&file)], 64 << 20);
    assert_eq!(r.status, Some(0), "{}", r.stderr);
    let doc = json::parse(&String::from_utf8_lossy(&r.stdout)).expect("JSON");
    let tensor = find_tensor(&doc).expect("tensor");
    let values = tensor
        .get("values")
        .and_then(Json::as_array)
        .expect("values");
    assert_eq!(values.len() as u64, n);
    assert!(tensor.get("values_capped").is_none());
    // Under 1 GiB of values, --npy writes it without the flag.
    let out = file.with_extension("npy");
    let r = run(&["--npy", p(&out), "--tensor", "big", p(&file)], 1 << 20);
    assert_eq!(r.status, Some(0), "{}", r.stderr);
    let written = std::fs::read(&out).expect("npy written");
    assert_eq!(written.len() as u64, 128 + 4 * n);
}

/// The first object with a "values" key, depth first.
fn find_tensor(doc: &Json) -> Option<&Json> {
    let mut stack = vec![doc];
    while let Some(j) = stack.pop() {
        if j.get("values").is_some() {
            return Some(j);
        }
        match j {
            Json::Obj(members) => stack.extend(members.iter().rev().map(|(_, v)| v)),
            Json::Arr(items) => stack.extend(items.iter().rev()),
            _ => {}
        }
    }
    None
}
