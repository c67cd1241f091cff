//! Tiny inputs that used to blow up: a sparse tensor whose dense view was
//! collected in memory, a sparse tensor of rank 200,000 (quadratic
//! strides), 100,000 nested groups (each group's body walked again at every
//! level), a model of 100,000 initializers (a linear search per tensor
//! listed), and deep nesting indented with the square of its depth. Each
//! test asserts on memory, output size or results, never on time; the
//! quadratic ones took minutes before and take a moment now. Also: the
//! warning for a segment that does not fit, and errors worded for people.
//!
//! What this suite checks, in full: tiny inputs that used to take quadratic time, output or memory
//! (a 2^20-element dense view, rank 200,000, 100,000 nested groups, 20,000
//! nested messages, 100,000 initializers), checked by memory, output size
//! and results.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use crate::common;

use common::{LEN, Msg, SGROUP};
use pbdecode::formats::{self, FormatOptions};
use pbdecode::render::{RenderOptions, fmt, text};
use pbdecode::schema::SchemaSet;
use std::io::{self, Write};

use crate::counting_alloc::peak_during;

/// Counts output bytes and lines, keeping none; refuses past `cap` bytes.
struct Sink {
    bytes: u64,
    lines: u64,
    cap: u64,
}

impl Sink {
    fn new(cap: u64) -> Self {
        Sink {
            bytes: 0,
            lines: 0,
            cap,
        }
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.bytes += buf.len() as u64;
        self.lines += buf.iter().filter(|&&b| b == b'\n').count() as u64;
        if self.bytes > self.cap {
            return Err(io::Error::other("output cap reached"));
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// An ONNX TensorProto: dims, data_type, name, raw_data.
fn tensor(dims: &[u64], data_type: u64, name: &str, raw: &[u8]) -> Msg {
    let mut t = Msg::new();
    for &d in dims {
        t = t.varint(1, d);
    }
    t = t.varint(2, data_type);
    if !name.is_empty() {
        t = t.string(8, name);
    }
    t.len_field(9, raw)
}

/// A SparseTensorProto with one FLOAT non-zero at linear index `at`.
fn sparse(dims: &[u64], at: u64) -> Vec<u8> {
    let values = tensor(&[1], 1, "", &1.5f32.to_le_bytes());
    let indices = tensor(&[1], 7, "", &at.to_le_bytes());
    Msg::new()
        .message(1, &values)
        .message(2, &indices)
        .packed_varints(3, dims)
        .bytes()
}

fn text_of(bytes: &[u8], opts: &RenderOptions, cap: u64) -> (Sink, io::Result<()>) {
    let decoded = formats::detect(bytes, &FormatOptions::default()).expect("decodes");
    let mut sink = Sink::new(cap);
    let r = text::write_decoded(&mut sink, &decoded, opts);
    (sink, r)
}

#[test]
fn dense_view_of_a_sparse_tensor_streams() {
    // 36 bytes; the dense tensor has 2^20 elements, all printed.
    let n = 1u64 << 20;
    let bytes = sparse(&[n], 5);
    assert!(bytes.len() < 40);
    let opts = RenderOptions {
        dense: true,
        values: None,
        ..RenderOptions::default()
    };
    let opts = RenderOptions {
        values: Some(u64::MAX),
        ..opts
    };
    // The built-in schema tables are parsed once per process; do that
    // before measuring.
    let _ = text_of(&bytes, &RenderOptions::default(), 1 << 16);
    let ((sink, r), peak) = peak_during(|| text_of(&bytes, &opts, u64::MAX));
    r.expect("renders");
    // Every dense value was written: 2^20 values, 10 a line.
    assert!(sink.lines >= n / 10, "{} lines", sink.lines);
    assert!(sink.bytes >= 4 * n, "{} bytes", sink.bytes);
    // ... with memory for one line, not for 2^20 strings (32+ MiB before).
    assert!(peak < 256 << 10, "peak heap {peak} bytes");
}

#[test]
fn sparse_tensor_of_rank_200k() {
    // 200 KB of dims of 1: strides and coordinates in one pass.
    let rank = 200_000usize;
    let bytes = sparse(&vec![1u64; rank], 0);
    let opts = RenderOptions {
        dense: true,
        ..RenderOptions::default()
    };
    let (sink, r) = text_of(&bytes, &opts, u64::MAX);
    r.expect("renders");
    // The shape, the non-zero's coordinates and the dense row: each a line
    // of about `rank` numbers; nothing grows with rank squared.
    assert!(sink.bytes > 3 * 3 * rank as u64);
    assert!(sink.bytes < 10 * 3 * rank as u64, "{} bytes", sink.bytes);
}

/// `depth` nested fields 1, as groups or as LEN messages.
fn nested(depth: usize, groups: bool) -> Vec<u8> {
    if groups {
        let mut b = Vec::new();
        for _ in 0..depth {
            b.extend(common::key(1, SGROUP));
        }
        for _ in 0..depth {
            b.extend(common::key(1, common::EGROUP));
        }
        return b;
    }
    let mut m = Msg::new().varint(2, 7);
    for _ in 0..depth {
        m = Msg::new().message(1, &m);
    }
    let _ = LEN;
    m.bytes()
}

fn schemaless_text(bytes: &[u8], max_depth: u32, cap: u64) -> (Sink, io::Result<()>) {
    let tree =
        pbdecode::schemaless::decode_partial(bytes, 0, pbdecode::schemaless::Options { max_depth });
    let mut sink = Sink::new(cap);
    let r =
        pbdecode::render::schemaless::write_text_body(&mut sink, &tree, &RenderOptions::default());
    (sink, r)
}

#[test]
fn hundred_thousand_nested_groups() {
    // Before: every level walked its whole body again (68 s in release).
    let depth = 100_000usize;
    let bytes = nested(depth, true);
    let tree = pbdecode::schemaless::decode_partial(
        &bytes,
        0,
        pbdecode::schemaless::Options {
            max_depth: 1_000_000,
        },
    );
    assert!(tree.fault.is_none(), "{:?}", tree.fault);
    assert_eq!(tree.nodes.len(), depth);
    let (sink, r) = schemaless_text(&bytes, 1_000_000, 64 << 20);
    r.expect("text within the cap");
    // An opening and a closing line a level; the innermost, empty, is one.
    assert_eq!(sink.lines, 2 * depth as u64 - 1);
}

#[test]
fn deep_nesting_is_indented_up_to_a_width() {
    // Before: 20,000 levels made 800 MB of text (the cap below stops it).
    let depth = 20_000usize;
    let bytes = nested(depth, false);
    let (sink, r) = schemaless_text(&bytes, 1_000_000, 64 << 20);
    r.expect("text within the cap");
    let per_line = sink.bytes / sink.lines;
    assert!(per_line < 120, "{per_line} bytes a line");
    // The deepest line says its depth.
    let tree = pbdecode::schemaless::decode_partial(
        &bytes,
        0,
        pbdecode::schemaless::Options {
            max_depth: 1_000_000,
        },
    );
    let mut out = Vec::new();
    pbdecode::render::schemaless::write_text_body(&mut out, &tree, &RenderOptions::default())
        .expect("renders");
    let out = String::from_utf8_lossy(&out);
    assert!(
        out.contains(&format!("[depth {depth}] 2 varint = 7")),
        "{}",
        &out[out.len() - 500..]
    );
    // However deep, a line is no wider than the capped indentation, the
    // depth and the field (with its runners-up).
    let widest = out.lines().map(str::len).max().unwrap_or(0);
    assert!(widest < 200, "{widest}");
}

#[test]
fn indentation_primitive() {
    let mut out = Vec::new();
    fmt::indent(&mut out, 2).expect("writes");
    assert_eq!(out, b"    ");
    assert_eq!(fmt::pad(fmt::INDENT_LEVELS).len(), 2 * fmt::INDENT_LEVELS);
    assert_eq!(
        fmt::pad(240),
        format!("{}[depth 240] ", " ".repeat(2 * fmt::INDENT_LEVELS))
    );
}

#[test]
fn hundred_thousand_initializers_listed_once_each() {
    let n = 100_000usize;
    let mut graph = Msg::new();
    for i in 0..n {
        graph = graph.message(5, &tensor(&[1], 1, &format!("w{i}"), &1.0f32.to_le_bytes()));
    }
    graph = graph.string(2, "g");
    let model = Msg::new()
        .varint(1, 8)
        .message(7, &graph)
        .message(8, &Msg::new().varint(2, 17))
        .bytes();
    let decoded = formats::detect(&model, &FormatOptions::default()).expect("decodes");
    assert_eq!(decoded.format.id, "onnx-model");
    let formats::Body::Message { message, .. } = &decoded.body else {
        panic!("not a message");
    };
    let tensors = pbdecode::formats::named_tensors(SchemaSet::builtin(), message);
    assert_eq!(tensors.len(), n);
    assert!(tensors.iter().any(|t| t.name == "w5"));
}

/// shape [2], segment `begin..end`, the given floats.
fn segment_tensor(begin: u64, end: u64, values: &[f32]) -> Vec<u8> {
    Msg::new()
        .varint(1, 2)
        .varint(2, 1)
        .message(3, &Msg::new().varint(1, begin).varint(2, end))
        .packed_fixed32(4, &values.iter().map(|v| v.to_bits()).collect::<Vec<_>>())
        .bytes()
}

#[test]
fn segment_that_does_not_fit_is_warned() {
    let opts = RenderOptions::default();
    let bad = common::run_auto(
        &segment_tensor(0, 2, &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]),
        &opts,
    );
    assert_eq!(bad.format, Some("onnx-tensor"));
    let warning = "the segment 0..2 holds 2 elements, the data 6";
    assert!(
        bad.text.contains(&format!("warning:   {warning}")),
        "{}",
        bad.text
    );
    let json = common::json::parse(&bad.json).expect("JSON");
    let value = json.get("value").expect("value");
    assert_eq!(value.get("warning").and_then(|w| w.as_str()), Some(warning));
    // Past the shape.
    let past = common::run_auto(&segment_tensor(1, 3, &[1.0, 2.0]), &opts);
    assert!(
        past.text
            .contains("the segment 1..3 runs past the shape's 2 elements")
    );
    // A segment that fits says nothing.
    let good = common::run_auto(&segment_tensor(0, 2, &[1.0, 2.0]), &opts);
    assert!(!good.text.contains("warning"), "{}", good.text);
    assert!(!good.json.contains("warning"), "{}", good.json);
}

#[test]
fn group_errors_in_words() {
    for (bytes, expected) in [
        (
            vec![0x0b, 0x14],
            "end-group for field 2 inside the group of field 1",
        ),
        (vec![0x0c], "end-group for field 1 where no group is open"),
    ] {
        let out = common::run_auto(&bytes, &RenderOptions::default());
        let error = out.error.expect("turned down");
        assert!(error.contains(expected), "{error}");
        assert!(
            !error.contains("Some(") && !error.contains("None"),
            "{error}"
        );
    }
}
