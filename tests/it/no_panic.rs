//! No input makes the library panic or overflow the stack: every prefix and
//! many single-byte corruptions of every fixture go through `--as auto`,
//! every format's `--as`, and both renderers; hostile inputs (a 1 GiB length
//! in a 100-byte file, 10,000 nested messages) do too.
//!
//! What this suite checks, in full: every prefix and thousands of one-byte corruptions, deletions
//! and insertions of every fixture through every format and both renderers,
//! plus hostile inputs (a 1 GiB length in a 100-byte file, 10,000 nested
//! messages and groups). The sample is fixed (the same on every run,
//! whatever the machine's load); `PBDECODE_NO_PANIC_SCALE=50 cargo test
//! --release --test it no_panic::` runs a wider sample.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use crate::common;

use common::{Msg, all_fixture_files, render};
use pbdecode::formats::{self, FormatOptions, REGISTRY};
use pbdecode::render::RenderOptions;
use pbdecode::schemaless;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

fn opts() -> RenderOptions {
    RenderOptions {
        dir: Some(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/onnx-tensor")
                .into(),
        ),
        ..RenderOptions::default()
    }
}

/// Everything the binary can do with one input, minus the printing; a
/// text-format input also as its binary form.
fn exercise(bytes: &[u8], fopts: &FormatOptions, ropts: &RenderOptions) {
    if pbdecode::text_format::looks_like_text(bytes) {
        let input = std::sync::Arc::new(pbdecode::input::InputBytes::Owned(bytes.to_vec()));
        if let Ok(w) = pbdecode::syntax::WireInput::new(input, formats::AsFormat::Auto) {
            exercise_binary(w.binary.bytes(), fopts, ropts);
        }
    }
    exercise_binary(bytes, fopts, ropts);
}

fn exercise_binary(bytes: &[u8], fopts: &FormatOptions, ropts: &RenderOptions) {
    if let Ok(d) = formats::detect(bytes, fopts) {
        let (text, json) = render(&d, ropts);
        assert!(!text.is_empty() && !json.is_empty());
    }
    for format in REGISTRY {
        if let Ok(d) = formats::decode_as(format, bytes, fopts) {
            render(&d, ropts);
        }
    }
}

/// One change to a fixture.
#[derive(Debug, Clone, Copy)]
enum Mutation {
    /// Keep the first n bytes.
    Prefix(usize),
    /// Set the byte at a position.
    Set(usize, u8),
    /// Remove the byte at a position (every later key shifts).
    Delete(usize),
    /// Insert 0x80 (a continuation byte) at a position.
    Insert(usize),
}

impl Mutation {
    fn apply(self, bytes: &[u8]) -> Vec<u8> {
        let mut b = bytes.to_vec();
        match self {
            Mutation::Prefix(n) => b.truncate(n),
            Mutation::Set(at, v) => b[at] = v,
            Mutation::Delete(at) => {
                b.remove(at);
            }
            Mutation::Insert(at) => b.insert(at, 0x80),
        }
        b
    }
}

/// Values a byte is set to: ones that change a varint's length, a key's
/// wire type or field number, or a length prefix.
fn corruptions(old: u8) -> Vec<u8> {
    let mut vals = vec![0x00, 0xff, 0x80, old ^ 0x01, old ^ 0x07];
    vals.sort_unstable();
    vals.dedup();
    vals.retain(|&v| v != old);
    vals
}

/// Visits 0..m in a spread-out order (a stride coprime to m), so a sample
/// taken from the front still covers the whole file.
fn spread(m: usize) -> impl Iterator<Item = usize> {
    let mut stride = (m as f64 * 0.618) as usize | 1;
    while m > 1 && gcd(stride, m) != 1 {
        stride += 2;
    }
    (0..m).map(move |i| (i * stride) % m.max(1))
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// How many bytes of input each mutation family pushes through the
/// library, shared out over the files: a file of `len` bytes gets
/// `BYTES_PER_FILE / len` of its mutations (at least `MIN_PER_FILE`), picked
/// at a fixed stride over the whole file. The sample is the same on every
/// run, so the suite's outcome never depends on the machine's speed or
/// load; it stays well under a minute in a debug build.
/// `PBDECODE_NO_PANIC_SCALE=50 cargo test --release --test it no_panic::` widens
/// the sample (every mutation of most files).
const BYTES_PER_FILE: usize = 24 << 10;
const MIN_PER_FILE: usize = 4;

/// The ONNX tensor fixtures (this suite's own) get four times the share of
/// the others.
fn weight(name: &str) -> usize {
    if name.starts_with("onnx-tensor/") || name.starts_with("example_") {
        4
    } else {
        1
    }
}

fn scale() -> usize {
    std::env::var("PBDECODE_NO_PANIC_SCALE")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
        .filter(|s| *s > 0)
        .unwrap_or(1)
}

/// Applies a fixed sample of the mutations `make` lists for each fixture and
/// exercises each result; panics are collected and reported together.
/// Returns how many inputs ran and how many files got every mutation.
fn run_mutations(make: impl Fn(&[u8]) -> Vec<Mutation>) -> (usize, usize) {
    let fopts = FormatOptions::default();
    let ropts = opts();
    let mut files = all_fixture_files();
    assert!(files.len() > 100, "fixtures missing: {}", files.len());
    files.sort_by_key(|(name, b)| (b.len(), name.clone()));
    let mut failed = Vec::new();
    let (mut ran, mut complete) = (0, 0);
    for (name, bytes) in &files {
        let muts = make(bytes);
        let share = (BYTES_PER_FILE * weight(name) * scale() / bytes.len().max(1))
            .max(MIN_PER_FILE)
            .min(muts.len());
        for k in spread(muts.len()).take(share) {
            let m = muts[k];
            let input = m.apply(bytes);
            if catch_unwind(AssertUnwindSafe(|| exercise(&input, &fopts, &ropts))).is_err() {
                failed.push(format!("{name} {m:?}"));
            }
        }
        ran += share;
        if share == muts.len() {
            complete += 1;
        }
    }
    eprintln!(
        "ran {ran} inputs; every mutation for {complete} of {} files",
        files.len()
    );
    assert!(
        failed.is_empty(),
        "panicked on {} inputs: {:?}",
        failed.len(),
        &failed[..failed.len().min(20)]
    );
    (ran, complete)
}

#[test]
fn every_prefix_of_every_fixture() {
    let (ran, complete) = run_mutations(|b| (0..b.len()).map(Mutation::Prefix).collect());
    // Every prefix of every small fixture, a sample of the large ones.
    assert!(
        ran > 8_000 && complete > 100,
        "{ran} inputs, {complete} files complete"
    );
}

#[test]
fn single_byte_corruptions_of_every_fixture() {
    let (ran, complete) = run_mutations(|b| {
        b.iter()
            .enumerate()
            .flat_map(|(at, &old)| {
                corruptions(old)
                    .into_iter()
                    .map(move |v| Mutation::Set(at, v))
            })
            .collect()
    });
    assert!(
        ran > 10_000 && complete > 100,
        "{ran} inputs, {complete} files complete"
    );
}

#[test]
fn byte_deletions_and_insertions_of_every_fixture() {
    let (ran, complete) = run_mutations(|b| {
        (0..b.len())
            .flat_map(|at| [Mutation::Delete(at), Mutation::Insert(at)])
            .collect()
    });
    assert!(
        ran > 10_000 && complete > 100,
        "{ran} inputs, {complete} files complete"
    );
}

/// A 100-byte input whose first LEN field claims 1 GiB.
fn claims_gib(number: u64) -> Vec<u8> {
    let mut m = Msg::new().len_header(number, 1 << 30);
    let pad = 100 - m.len();
    m = m.raw(&vec![0x08; pad]);
    assert_eq!(m.len(), 100);
    m.buf
}

#[test]
fn a_100_byte_file_declaring_1_gib() {
    let fopts = FormatOptions::default();
    let ropts = opts();
    for number in [1u64, 2, 3, 5, 7, 8, 9, 16] {
        let bytes = claims_gib(number);
        exercise(&bytes, &fopts, &ropts);
        assert!(formats::detect(&bytes, &fopts).is_err(), "field {number}");
    }
    // The same claim one level down (a tensor inside a model's graph).
    let inner = claims_gib(9);
    let bytes = Msg::new().varint(1, 8).message(7, &Msg { buf: inner }).buf;
    exercise(&bytes, &fopts, &ropts);
}

/// `depth` messages, each field 1 of the next.
fn nested(depth: usize) -> Vec<u8> {
    let mut inner = Msg::new().varint(1, 1).buf;
    for _ in 0..depth {
        inner = Msg::new().len_field(1, &inner).buf;
    }
    inner
}

#[test]
fn ten_thousand_nested_messages() {
    let bytes = nested(10_000);
    // Schemaless, at the default depth limit: deeper levels become bytes.
    let msg = schemaless::decode(&bytes, 0, schemaless::Options::default());
    assert!(msg.is_ok());
    let fopts = FormatOptions::default();
    let ropts = opts();
    exercise(&bytes, &fopts, &ropts);
    let d = formats::detect(&bytes, &fopts)
        .map_err(|r| r.error)
        .unwrap();
    assert_eq!(d.format.id, "protobuf");
    // Groups nested 10,000 deep (start-group keys of field 1, then their
    // end-group keys).
    let mut groups = vec![0x0b; 10_000];
    groups.extend(std::iter::repeat_n(0x0c, 10_000));
    exercise(&groups, &fopts, &ropts);
    // The same with 10,000 open groups that are never closed.
    exercise(&groups[..10_000], &fopts, &ropts);
}

/// Ignored by default: the schemaless reading is quadratic in the nesting
/// depth (each level re-scans its payload as text, floats and varints), so
/// this takes ~17 s in a debug build.
#[test]
#[ignore]
fn ten_thousand_nested_messages_with_a_high_depth_limit() {
    // `decode --max-depth 10000`: the binary's main thread has 8 MiB of
    // stack; this runs with the same.
    let result = std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(|| {
            let bytes = nested(10_000);
            let fopts = FormatOptions {
                max_depth: 10_000,
                ..FormatOptions::default()
            };
            exercise(&bytes, &fopts, &opts());
        })
        .unwrap()
        .join();
    assert!(result.is_ok());
}
