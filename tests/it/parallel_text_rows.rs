//! The text views print every value (`--values all`) in rows formatted in
//! parallel runs of whole lines: the output must be byte for byte that of
//! the one-thread path (which formats each value with `{:?}` /
//! `to_string`), for every element type family and for the row layout of
//! multi-dimensional tensors, over whole tensors and over a tail that
//! starts in the middle.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::single_range_in_vec_init
)]

use crate::common;

use pbdecode::progress::Silent;
use pbdecode::render::tree::{RowsLayout, write_value_rows, write_value_rows_in};
use pbdecode::tensor::{Elem, Elements, LoadedValues, Source};

fn bytes(len: usize) -> Vec<u8> {
    common::pattern_bytes(len, 0x2545_f491_4f6c_dd1d, 89, 7)
}

fn rows(
    elem: Elem,
    raw: &[u8],
    dims: &[u64],
    ranges: &[std::ops::Range<u64>],
    threads: usize,
    run: u64,
) -> Vec<u8> {
    let n: u64 = dims.iter().product();
    let mut loaded = LoadedValues::Ready(Elements::new(elem, Source::Raw(raw), n), n);
    let mut out = Vec::new();
    for r in ranges {
        let layout = RowsLayout {
            depth: 2,
            dims,
            run,
        };
        write_value_rows_in(&mut out, &mut loaded, r.clone(), &layout, threads, &Silent)
            .expect("write to memory");
        out.extend_from_slice(b"-- gap --\n");
    }
    out
}

/// Values a thread formats in one run here: small, so that small tensors
/// split into many runs and batches.
const RUN: u64 = 1_000;

fn check(elem: Elem, dims: &[u64]) {
    let n: u64 = dims.iter().product();
    let raw = bytes(usize::try_from((n * elem.bits()).div_ceil(8)).expect("size"));
    // The whole tensor; then a head and a tail as an elided preview prints
    // them (the tail starting mid-row, or mid-line when rows are 0).
    let head = n / 2 + 3;
    let tail_from = head + n / 7;
    for ranges in [vec![0..n], vec![0..head, tail_from..n]] {
        let one = rows(elem, &raw, dims, &ranges, 1, RUN);
        for threads in [2, 3, 8] {
            let many = rows(elem, &raw, dims, &ranges, threads, RUN);
            if one != many {
                let at = one.iter().zip(&many).position(|(a, b)| a != b).unwrap_or(0);
                let from = at.saturating_sub(80);
                panic!(
                    "{elem:?} {dims:?} {threads} threads differ at byte {at}:\n{}\n---\n{}",
                    String::from_utf8_lossy(&one[from..(at + 80).min(one.len())]),
                    String::from_utf8_lossy(&many[from..(at + 80).min(many.len())]),
                );
            }
        }
        assert!(one.len() as u64 > n, "{elem:?}: every value printed");
    }
}

#[test]
fn parallel_text_rows_equal_sequential_ones() {
    // A little over 20 runs, so that the last is partial.
    let n: u64 = 20 * RUN + 123;
    for elem in common::RAW_TYPES {
        check(elem, &[n]);
    }
}

#[test]
fn parallel_text_rows_keep_the_row_layout() {
    // Rows of 7 (lines of 7), rows of 23 (lines of 10, 10, 3), rows of
    // trailing 1-axes (lines of 3), rows longer than a run, and rows of
    // one value (lines of 10).
    for dims in [
        vec![3, 1_500, 7],
        vec![1_000, 23],
        vec![9_000, 3, 1, 1],
        vec![2, 7_001],
        vec![25_000, 1],
        vec![2, 3, 4, 5, 6, 7],
    ] {
        check(Elem::F32, &dims);
    }
    check(Elem::I64, &[400, 3, 11]);
}

#[test]
fn runs_of_the_default_size_write_the_same() {
    let n = 2 * 262_144 + 5;
    let raw = bytes(n * 4);
    let dims = [n as u64 / 5, 5];
    let write = |threads| {
        let mut loaded = LoadedValues::Ready(
            Elements::new(Elem::F32, Source::Raw(&raw), n as u64),
            n as u64,
        );
        let mut out = Vec::new();
        write_value_rows(
            &mut out,
            &mut loaded,
            0..n as u64,
            1,
            &dims,
            threads,
            &Silent,
        )
        .unwrap();
        out
    };
    assert!(write(1) == write(2));
}

#[test]
fn floats_near_the_switch_to_exponent_form_read_as_debug_text() {
    // Powers of ten and their neighbours across the whole range, where ryu
    // and `{:?}` choose between 0.0001 and 1e-4 differently.
    let mut values: Vec<f64> = Vec::new();
    for p in -320..=308 {
        let v = 10f64.powi(p);
        for x in [v, -v, v * 1.5, v * 0.999_999_9, v * 1.000_000_1] {
            values.push(x);
        }
    }
    values.extend([0.0, -0.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY]);
    values.extend([f64::MIN_POSITIVE, f64::MAX, f64::EPSILON, 5e-324]);
    // Over several runs, so that the parallel path is taken.
    let n = values.len() + 5;
    let f64s: Vec<f64> = (0..n).map(|i| values[i % values.len()]).collect();
    let raw64: Vec<u8> = f64s.iter().flat_map(|v| v.to_le_bytes()).collect();
    let raw32: Vec<u8> = f64s
        .iter()
        .flat_map(|&v| (v as f32).to_le_bytes())
        .collect();
    let dims = [n as u64];
    let full = [0..n as u64];
    assert!(
        rows(Elem::F64, &raw64, &dims, &full, 1, RUN)
            == rows(Elem::F64, &raw64, &dims, &full, 2, RUN)
    );
    assert!(
        rows(Elem::F32, &raw32, &dims, &full, 1, RUN)
            == rows(Elem::F32, &raw32, &dims, &full, 2, RUN)
    );
}

#[test]
fn string_tensors_print_the_same_through_the_shared_entry() {
    // Strings are not raw storage: always the one-thread path, split at
    // the same places.
    let strings: Vec<&[u8]> = vec![b"a", b"b\n", b"\xff\x00", b"", b"long text"];
    let n = 300_000u64;
    let make = || {
        let it = strings.clone().into_iter().cycle();
        LoadedValues::Ready(
            Elements::new(Elem::Str, Source::Strings(Box::new(it)), n),
            n,
        )
    };
    let write = |threads| {
        let mut loaded = make();
        let mut out = Vec::new();
        write_value_rows(&mut out, &mut loaded, 0..1000, 1, &[n], threads, &Silent).unwrap();
        write_value_rows(
            &mut out,
            &mut loaded,
            n - 1000..n,
            1,
            &[n],
            threads,
            &Silent,
        )
        .unwrap();
        out
    };
    let one = write(1);
    assert_eq!(one, write(4));
    let text = String::from_utf8(one).unwrap();
    assert!(text.starts_with("  [0] \"a\"  \"b\\n\"  <2 bytes: ff 00>  \"\""));
    assert!(text.contains("\n  [299000] "));
}
