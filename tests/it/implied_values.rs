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
//!
//! What this suite checks, in full: a 61-byte TensorFlow Const of shape [2^34] (and ones of [2^62]
//! and [2^63-1, 2]) through `--json`, `--stats`, `--histogram`, the colour
//! preview, `--tensor --values 8`, `--picture`, `--npy` and the explorer's
//! statistics and pages (at any offset, the last included): statistics
//! without iterating, the output cap and `--allow-implied`, limits checked
//! before any pass (each run under a CPU-time watchdog, so an
//! implementation that iterates fails instead of hanging). The element
//! reader's runs are counted (values pulled from storage, callbacks:
//! bounded by the stored values) and every pass over runs (statistics,
//! histogram, picture, preview, comparison, seeks) equals the
//! element-by-element one on small shapes of every picture layout.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use crate::common;

use common::Msg;
use common::json::{self, Json};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A GraphDef with one Const node `big` of the given shape whose
/// `float_val` holds `values`.
fn const_graph(dims: &[u64], values: &[f32]) -> Vec<u8> {
    let bits: Vec<u32> = values.iter().map(|v| v.to_bits()).collect();
    const_of(dims, Msg::new().varint(1, 1).packed_fixed32(5, &bits))
}

/// A GraphDef with one Const node `big` of the given shape whose
/// `string_val` holds `values`.
fn string_graph(dims: &[u64], values: &[&str]) -> Vec<u8> {
    let tensor = values
        .iter()
        .fold(Msg::new().varint(1, 7), |m, v| m.string(8, v));
    const_of(dims, tensor)
}

/// A GraphDef with one Const node `big`: `tensor` (its type and values)
/// with the given shape.
fn const_of(dims: &[u64], tensor: Msg) -> Vec<u8> {
    let mut shape = Msg::new();
    for &d in dims {
        shape = shape.message(2, &Msg::new().varint(1, d));
    }
    let tensor = tensor.message(2, &shape);
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

/// The count of the text histogram's bin `label`.
fn bin(text: &str, label: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.trim_start().strip_prefix(label))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
}

#[test]
fn histogram_and_preview_of_huge_shapes_end() {
    let file = write_fixture("hist62.pb", &const_graph(&[1 << 62], &[1.5, -2.0]));
    let r = run(&["--histogram", "--tensor", "big", p(&file)], 1 << 20);
    assert_eq!(r.status, Some(0), "{}", r.stderr);
    let text = String::from_utf8_lossy(&r.stdout);
    // -2.0 stored once and implied 2^62 - 2 times; 1.5 once.
    assert_eq!(
        bin(&text, "[-2, -1.78125)"),
        Some(4611686018427387903),
        "{text}"
    );
    assert_eq!(bin(&text, "[1.28125, 1.5]"), Some(1), "{text}");

    let file = write_fixture("hist63.pb", &const_graph(&[(1 << 63) - 1, 2], &[-2.0, 3.0]));
    let r = run(
        &["--histogram", "--values", "4", "--tensor", "big", p(&file)],
        1 << 20,
    );
    assert_eq!(r.status, Some(0), "{}", r.stderr);
    let text = String::from_utf8_lossy(&r.stdout);
    // -2.0 once, 3.0 stored once and implied 2^64 - 4 times.
    assert_eq!(bin(&text, "[-2, -1.6875)"), Some(1), "{text}");
    assert_eq!(
        bin(&text, "[2.6875, 3]"),
        Some(18446744073709551613),
        "{text}"
    );

    // The colour preview of a 2^31 x 2^31 picture: 2^62 values, one cell
    // at a time.
    let file = write_fixture(
        "square62.pb",
        &const_graph(&[1 << 31, 1 << 31], &[0.0, 1.0]),
    );
    let r = run(&["--color", "always", "--tensor", "big", p(&file)], 1 << 20);
    assert_eq!(r.status, Some(0), "{}", r.stderr);
    let text = String::from_utf8_lossy(&r.stdout);
    assert!(
        text.contains("picture:   grey 2147483648 x 2147483648, shown 1:67108864"),
        "{text}"
    );
}

#[test]
fn npy_of_implied_strings_is_refused_at_once() {
    // The width of a string array is found from the runs, then the size
    // check refuses it (2^62 strings).
    let file = write_fixture("strings.pb", &string_graph(&[1 << 62], &["ab", "xyz"]));
    let out = file.with_extension("npy");
    let r = run(&["--npy", p(&out), "--tensor", "big", p(&file)], 1 << 20);
    assert_eq!(r.status, Some(1), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("4611686018427387904 strings of up to 3 characters exceed"),
        "{}",
        r.stderr
    );
    // A small one is written as the stored strings padded.
    let file = write_fixture("few_strings.pb", &string_graph(&[5], &["ab", "xyz"]));
    let out = file.with_extension("npy");
    let r = run(&["--npy", p(&out), "--tensor", "big", p(&file)], 1 << 20);
    assert_eq!(r.status, Some(0), "{}", r.stderr);
    let written = std::fs::read(&out).expect("npy written");
    let body = &written[written.len() - 5 * 3 * 4..];
    let chars: String = body
        .chunks(4)
        .map(|c| char::from(c[0]))
        .filter(|&c| c != '\0')
        .collect();
    assert_eq!(chars, "abxyzxyzxyzxyz");
}

/// `decode serve DIR` under the CPU-time limit, and its address and token.
struct Explorer {
    child: std::process::Child,
    /// Kept open: the server writes to it.
    _stdout: std::io::BufReader<std::process::ChildStdout>,
    port: u16,
    token: String,
}

impl Explorer {
    fn start(dir: &Path) -> Explorer {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(format!("ulimit -t {CPU_SECONDS} && exec \"$0\" \"$@\""))
            .arg(env!("CARGO_BIN_EXE_decode"))
            .args(["serve", "--port", "0", p(dir)])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("run decode serve");
        let mut out = std::io::BufReader::new(child.stdout.take().expect("stdout"));
        let mut line = String::new();
        std::io::BufRead::read_line(&mut out, &mut line).expect("address line");
        let url = line.split_whitespace().last().expect("url").to_string();
        let rest = url.strip_prefix("http://127.0.0.1:").expect("local url");
        let (port, token) = rest.split_once("/?token=").expect("token");
        let (port, token) = (port.to_string(), token.to_string());
        Explorer {
            child,
            _stdout: out,
            port: port.parse().expect("port"),
            token,
        }
    }

    /// The body of a GET answered 200 (a server stopped at its CPU limit
    /// closes the connection and the test fails here).
    fn get(&self, path: &str) -> String {
        let mut s = std::net::TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        let request = format!(
            "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: token {}\r\n\r\n",
            self.port, self.token
        );
        std::io::Write::write_all(&mut s, request.as_bytes()).expect("send");
        let mut reply = String::new();
        let _ = s.read_to_string(&mut reply);
        let (head, body) = reply.split_once("\r\n\r\n").unwrap_or((&reply, ""));
        assert!(
            head.starts_with("HTTP/1.1 200"),
            "{path}: {head:?} (no answer: the server iterated the implied values)"
        );
        body.to_string()
    }
}

impl Drop for Explorer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn explorer_pages_statistics_and_last_values_of_huge_shapes() {
    let dir = std::env::temp_dir().join(format!("pbdecode-implied-serve-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("big.pb"), const_graph(&[1 << 62], &[1.5, -2.0])).expect("write");
    let server = Explorer::start(&dir);
    let t = "f=0/big.pb&t=0";
    let stats = server.get(&format!("/api/stats?{t}"));
    assert!(stats.contains("\"count\": 4611686018427387904"), "{stats}");
    assert!(stats.contains("\"histogram\""), "{stats}");
    // More requests than the server has workers, each deep in the tail.
    for offset in [0u64, 1, 1_000_000_000, 1 << 61, (1 << 62) - 1] {
        for _ in 0..2 {
            let page = server.get(&format!("/api/values?{t}&offset={offset}&count=3"));
            let want = match offset {
                0 => "[[\"1.5\", \"-2.0\", \"-2.0\"]]",
                o if o == (1 << 62) - 1 => "[[\"-2.0\"]]",
                _ => "[[\"-2.0\", \"-2.0\", \"-2.0\"]]",
            };
            assert!(
                page.contains(&format!("\"values\": {want}")),
                "{offset}: {page}"
            );
        }
    }
    // A window of rows far apart.
    let page = server.get(&format!(
        "/api/values?{t}&offset=0&count=2&rows=3&stride={}",
        1u64 << 60
    ));
    assert!(
        page.contains(
            "\"values\": [[\"1.5\", \"-2.0\"], [\"-2.0\", \"-2.0\"], [\"-2.0\", \"-2.0\"]]"
        ),
        "{page}"
    );
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
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

// ---------------------------------------------------------------- runs
//
// Every pass that summarises values (statistics, histogram, pictures,
// comparison, paging) reads them as runs: a stored value is a run of 1,
// the values implied by padding one run. The tests below count the work
// (values pulled from storage, callbacks) and compare each pass with the
// same values stored one by one.

use pbdecode::decode::{Field, Value};
use pbdecode::tensor::{
    Elem, Element, Elements, LoadedValues, Source, TensorData, TensorView, for_each_run,
};
use pbdecode::wire::WireType;
use std::cell::Cell;
use std::rc::Rc;

/// Typed fields holding `values` (float32 bits), one field each.
fn float_fields(values: &[f32]) -> Vec<Field<'static>> {
    values
        .iter()
        .map(|v| Field {
            slot: None,
            number: 5,
            offset: 0,
            value_offset: 0,
            end: 0,
            value: Value::Scalar(u64::from(v.to_bits())),
        })
        .collect()
}

/// A float32 tensor of shape `dims` whose typed field holds `fields`,
/// padded by TensorFlow's rule when `pad`.
fn typed_view<'m>(
    dims: &[i64],
    fields: &'m [Field<'static>],
    pad: bool,
) -> TensorView<'m, 'static> {
    TensorView {
        type_name: "DT_FLOAT".into(),
        elem: Some(Elem::F32),
        dims: Some(dims.to_vec()),
        byte_aligned: false,
        elements: dims.iter().map(|&d| d as u64).product(),
        data: TensorData::Typed {
            fields,
            wire: WireType::Fixed32,
            pad,
        },
    }
}

/// The elements padding implies: `stored`, then its last value repeated.
fn padded_reference(stored: &[f32], n: usize) -> Vec<f32> {
    (0..n).map(|i| stored[i.min(stored.len() - 1)]).collect()
}

/// A reader of `n` float32 elements over `stored`, padded, that counts the
/// values it pulls from storage.
fn counting_reader(stored: &[f32], n: u64, pulled: &Rc<Cell<u64>>) -> Elements<'static> {
    let bits: Vec<u64> = stored.iter().map(|v| u64::from(v.to_bits())).collect();
    let pulled = pulled.clone();
    let source = bits
        .into_iter()
        .inspect(move |_| pulled.set(pulled.get() + 1));
    Elements::new(Elem::F32, Source::Typed(Box::new(source)), n).padded(stored.len() as u64)
}

#[test]
fn runs_are_bounded_by_the_stored_values() {
    let stored = [1.5f32, -2.0, 4.0];
    for n in [1u64 << 62, u64::MAX - 1] {
        // A whole pass: one callback per stored value and one for the tail,
        // each stored value pulled once.
        let pulled = Rc::new(Cell::new(0));
        let mut loaded = LoadedValues::Ready(counting_reader(&stored, n, &pulled), n);
        let (mut calls, mut total) = (0u64, 0u64);
        let _ = for_each_run(&mut loaded, |e, count| -> Result<(), ()> {
            calls += 1;
            total += count;
            if count > 1 {
                assert_eq!(e, Element::F32(4.0));
            }
            Ok(())
        });
        assert_eq!((calls, total, pulled.get()), (4, n, 3));

        // A seek to any offset, the last included: at most the stored
        // values pulled.
        for offset in [0, 2, 3, 1_000_000_000, n / 2, n - 1] {
            let pulled = Rc::new(Cell::new(0));
            let mut it = counting_reader(&stored, n, &pulled);
            let want = padded_reference(&stored, 4)[offset.min(3) as usize];
            assert_eq!(it.nth(offset as usize), Some(Element::F32(want)));
            assert!(
                pulled.get() <= 3,
                "offset {offset}: {} pulled",
                pulled.get()
            );
            assert_eq!(it.next().is_some(), offset + 1 < n);
        }
    }
    // A tensor without values (all zeros): one run.
    let zeros = TensorView {
        type_name: "DT_FLOAT".into(),
        elem: Some(Elem::F32),
        dims: Some(vec![1 << 62]),
        byte_aligned: false,
        elements: 1 << 62,
        data: TensorData::Zeros,
    };
    let mut loaded = pbdecode::tensor::load_values(&zeros, None);
    let mut runs = Vec::new();
    let _ = for_each_run(&mut loaded, |e, count| -> Result<(), ()> {
        runs.push((format!("{e:?}"), count));
        Ok(())
    });
    assert_eq!(runs, vec![("F32(0.0)".to_string(), 1 << 62)]);
}

#[test]
fn runs_and_seeks_equal_the_elements() {
    let values = [0.5f32, -1.0, 3.0, 7.25];
    for stored in 1..=values.len() {
        for n in 0..=9usize {
            let want = padded_reference(&values[..stored], n);
            let pulled = Rc::new(Cell::new(0));
            let reader = || counting_reader(&values[..stored], n as u64, &pulled);
            let got: Vec<f32> = reader()
                .map(|e| match e {
                    Element::F32(v) => v,
                    other => panic!("{other:?}"),
                })
                .collect();
            assert_eq!(got, want, "{stored} stored, n {n}");
            // Runs expanded are the elements.
            let mut it = reader();
            let mut expanded = Vec::new();
            while let Some((e, count)) = it.next_run() {
                for _ in 0..count {
                    expanded.push(e);
                }
            }
            let want_elements: Vec<Element<'_>> = want.iter().map(|&v| Element::F32(v)).collect();
            assert_eq!(expanded, want_elements);
            // A seek from every position to every later one.
            for from in 0..=n {
                for to in from..=n {
                    let mut it = reader();
                    it.advance(from as u64);
                    assert_eq!(it.next_index(), from as u64);
                    let got = it.nth(to - from);
                    assert_eq!(got, want_elements.get(to).copied(), "{from} -> {to}");
                }
            }
        }
    }
}

/// The same tensor twice: its last value implied by padding, and every
/// value stored.
fn padded_and_stored(dims: &[i64], stored: &[f32]) -> (Vec<Field<'static>>, Vec<Field<'static>>) {
    let n = dims.iter().product::<i64>() as usize;
    (
        float_fields(stored),
        float_fields(&padded_reference(stored, n)),
    )
}

#[test]
fn passes_over_runs_equal_the_element_by_element_ones() {
    // Image shapes of every layout: grey, C x H x W, H x W x C, and grids
    // with gaps and an unfilled last row (N = 5 in a 3 x 2 grid); stored
    // values ending in different preview cells.
    let shapes: [&[i64]; 6] = [
        &[6, 4],
        &[3, 5, 4],
        &[5, 4, 3],
        &[5, 1, 3, 4],
        &[5, 3, 7, 2],
        &[70, 90],
    ];
    for dims in shapes {
        for stored in [
            &[2.0f32][..],
            &[0.5, -1.0, 3.0],
            &[
                -4.0,
                1.0,
                2.0,
                3.0,
                0.25,
                9.0,
                -7.0,
                2.0,
                1.0,
                6.0,
                f32::NAN,
            ],
        ] {
            let (short, full) = padded_and_stored(dims, stored);
            let implied = typed_view(dims, &short, true);
            let every = typed_view(dims, &full, false);
            assert!(implied.implied_elements() > 0);
            assert_eq!(every.implied_elements(), 0);
            let what = format!("{dims:?} {stored:?}");

            let s1 = pbdecode::stats::compute(&implied, None).expect("stats");
            let s2 = pbdecode::stats::compute(&every, None).expect("stats");
            assert_eq!(
                (s1.count, s1.min, s1.max, s1.nan, s1.zeros),
                (s2.count, s2.min, s2.max, s2.nan, s2.zeros),
                "{what}"
            );
            let close = |a: Option<f64>, b: Option<f64>| {
                let (a, b) = (a.unwrap_or(0.0), b.unwrap_or(0.0));
                (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
            };
            assert!(close(s1.mean(), s2.mean()), "{what}");
            assert!(close(s1.std(), s2.std()), "{what}");

            let h1 = pbdecode::stats::histogram(&implied, None, &s1).expect("histogram");
            let h2 = pbdecode::stats::histogram(&every, None, &s2).expect("histogram");
            assert_eq!(h1.counts, h2.counts, "{what}");

            let p1 = pbdecode::picture::png_bytes(&implied, None).expect("picture");
            let p2 = pbdecode::picture::png_bytes(&every, None).expect("picture");
            assert!(p1 == p2, "{what}: pictures differ");

            let preview = |view: &TensorView<'_, '_>, stats| {
                let mut out = Vec::new();
                pbdecode::picture::write_preview(&mut out, "", view, None, stats).expect("preview");
                String::from_utf8(out).expect("utf-8")
            };
            let (v1, v2) = (preview(&implied, &s1), preview(&every, &s2));
            assert!(v1.contains("picture:"), "{v1}");
            assert_eq!(v1, v2, "{what}");

            // Comparisons: implied against implied, and against stored,
            // as the same values stored one by one.
            let (other_short, other_full) = padded_and_stored(dims, &[2.0, 5.0]);
            let other_implied = typed_view(dims, &other_short, true);
            let other_every = typed_view(dims, &other_full, false);
            let opts = pbdecode::diff::DiffOptions::default();
            let cmp = |a: &TensorView<'_, '_>, b: &TensorView<'_, '_>| {
                pbdecode::diff::compare_views(a, b, (None, None), &opts)
            };
            assert_eq!(
                cmp(&implied, &other_implied),
                cmp(&every, &other_every),
                "{what}"
            );
            assert_eq!(cmp(&implied, &other_every), cmp(&every, &other_every));
            assert_eq!(cmp(&other_every, &implied), cmp(&other_every, &every));
        }
    }
}

#[test]
fn all_implied_values_of_a_huge_shape_are_refused_at_once() {
    // numpy's answer to np.zeros(2**62, np.float32): the byte size is
    // checked before any value is read, and refused as too big for one
    // buffer (`ValueError: array is too big` in Python), never grown
    // until the allocation aborts the process.
    let doc = pbdecode::read(const_graph(&[1 << 62], &[7.0])).unwrap();
    let t = doc.tensor_by_name("big").unwrap();
    let mut opts = pbdecode::ValueOptions::default();
    opts.allow_implied = true;
    match t.values_with(opts) {
        Err(pbdecode::Error::Memory(e)) => assert_eq!(
            e,
            pbdecode::error::AllocError::TooBig {
                elements: 1 << 62,
                width: 4
            }
        ),
        other => panic!("{:?}", other.map(|v| v.len())),
    }
    // Strings too: one pointer an element.
    let doc = pbdecode::read(string_graph(&[1 << 61], &["x"])).unwrap();
    let t = doc.tensor_by_name("big").unwrap();
    assert!(matches!(
        t.values_with(opts),
        Err(pbdecode::Error::Memory(_))
    ));
}
