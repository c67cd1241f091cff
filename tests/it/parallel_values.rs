//! Every value of a big tensor is formatted in parallel chunks and written
//! in order: the output must be byte for byte that of the one-thread path,
//! for every raw element type, with and without a --values limit. Also:
//! statistics from the chunked, multi-threaded pass equal a plain
//! sequential computation.
//!
//! What this suite checks, in full: the JSON of every value formatted in parallel chunks is byte for
//! byte the one-thread output, for every raw element type; the chunked,
//! multi-threaded statistics equal a one-value-at-a-time pass.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use crate::common;

use pbdecode::json_writer::JsonWriter;
use pbdecode::progress::Silent;
use pbdecode::render::json::write_value_list;
use pbdecode::tensor::{Elem, Elements, LoadedValues, Source};

fn bytes(len: usize) -> Vec<u8> {
    common::pattern_bytes(len, 0x9e37_79b9_7f4a_7c15, 97, 9)
}

fn list(elem: Elem, raw: &[u8], n: u64, limit: u64, threads: usize) -> Vec<u8> {
    let mut loaded = LoadedValues::Ready(Elements::new(elem, Source::Raw(raw), n), n);
    let mut out = Vec::new();
    let mut w = JsonWriter::new(&mut out);
    w.begin_array().expect("open");
    let written =
        write_value_list(&mut w, &mut loaded, limit, threads, &Silent).expect("write to memory");
    w.end_array().expect("close");
    w.finish().expect("balanced");
    assert_eq!(written, n.min(limit));
    list_body(out)
}

/// The items of a JSON array, without its brackets.
fn list_body(array: Vec<u8>) -> Vec<u8> {
    assert_eq!((array.first(), array.last()), (Some(&b'['), Some(&b']')));
    array[1..array.len() - 1].to_vec()
}

#[test]
fn parallel_json_values_equal_sequential_ones() {
    let types = common::RAW_TYPES;
    for elem in types {
        // A little over four chunks of 65,536 values, so that the last
        // chunk is partial.
        let n: u64 = 4 * 65_536 + 1_234;
        let raw = bytes(usize::try_from((n * elem.bits()).div_ceil(8)).expect("size"));
        let one = list(elem, &raw, n, u64::MAX, 1);
        for threads in [2, 3, 8] {
            let many = list(elem, &raw, n, u64::MAX, threads);
            assert!(one == many, "{elem:?}: {threads} threads differ");
        }
        // A limit in the middle of a chunk.
        let limit = 65_536 * 2 + 17;
        let one = list(elem, &raw, n, limit, 1);
        let many = list(elem, &raw, n, limit, 4);
        assert!(one == many, "{elem:?}: limited output differs");
        assert!(!one.ends_with(b", "));
    }
}

#[test]
fn chunked_statistics_equal_a_sequential_pass() {
    use pbdecode::tensor::{TensorData, TensorView};
    use pbdecode::{Extreme, Stats};
    for elem in [
        Elem::F32,
        Elem::F64,
        Elem::F16,
        Elem::I8,
        Elem::U16,
        Elem::I32,
        Elem::U32,
        Elem::I64,
        Elem::U64,
    ] {
        let n: u64 = 3 * 262_144 + 999;
        let raw = bytes(usize::try_from(n * elem.bits() / 8).expect("size"));
        let view = TensorView {
            type_name: format!("{elem:?}"),
            elem: Some(elem),
            dims: Some(vec![n as i64]),
            byte_aligned: false,
            elements: n,
            data: TensorData::Raw(&raw),
        };
        let fast = pbdecode::stats::compute(&view, None).expect("stats");
        // The reference: every element pushed one at a time.
        let mut slow = Stats::new();
        for e in Elements::new(elem, Source::Raw(&raw), n) {
            slow.push(&e);
        }
        assert_eq!(
            (fast.count, fast.nan, fast.pos_inf, fast.neg_inf, fast.zeros),
            (slow.count, slow.nan, slow.pos_inf, slow.neg_inf, slow.zeros),
            "{elem:?}"
        );
        let same = |a: Option<Extreme>, b: Option<Extreme>| match (a, b) {
            (Some(Extreme::F32(x)), Some(Extreme::F32(y))) => x.to_bits() == y.to_bits(),
            (Some(Extreme::F64(x)), Some(Extreme::F64(y))) => x.to_bits() == y.to_bits(),
            (a, b) => a == b,
        };
        assert!(
            same(fast.min, slow.min),
            "{elem:?} min {:?} {:?}",
            fast.min,
            slow.min
        );
        assert!(
            same(fast.max, slow.max),
            "{elem:?} max {:?} {:?}",
            fast.max,
            slow.max
        );
        let close = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) => (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1e-300),
            (a, b) => a == b,
        };
        assert!(close(fast.mean(), slow.mean()), "{elem:?} mean");
        assert!(close(fast.std(), slow.std()), "{elem:?} std");
    }
}
