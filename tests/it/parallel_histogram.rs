//! The histogram of a big tensor in raw storage is counted on every core,
//! straight from the bytes: its counts must equal those of pushing every
//! element one at a time, for every numeric type.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use crate::common;

use pbdecode::stats::{Histogram, compute, histogram};
use pbdecode::tensor::{Elem, Elements, Source, TensorData, TensorView};

fn bytes(len: usize) -> Vec<u8> {
    common::pattern_bytes(len, 0x853c_49e6_748f_ea9b, 101, 5)
}

#[test]
fn parallel_histogram_counts_equal_one_push_at_a_time() {
    for elem in [
        Elem::F32,
        Elem::F64,
        Elem::F16,
        Elem::BF16,
        Elem::F8E4M3FN,
        Elem::I8,
        Elem::U8,
        Elem::I16,
        Elem::U16,
        Elem::I32,
        Elem::U32,
        Elem::I64,
        Elem::U64,
        Elem::Bool,
        Elem::C64,
    ] {
        // Two blocks of 262,144 values and a bit: the parallel pass.
        let n: u64 = 2 * 262_144 + 77;
        let mut raw = bytes(usize::try_from(n * elem.bits() / 8).unwrap());
        if elem == Elem::I8 {
            // A small range: one bin per integer value.
            for b in &mut raw {
                *b %= 9;
            }
        }
        let view = TensorView {
            type_name: format!("{elem:?}"),
            elem: Some(elem),
            dims: Some(vec![n as i64]),
            byte_aligned: false,
            elements: n,
            data: TensorData::Raw(&raw),
        };
        let stats = compute(&view, None).unwrap();
        let fast = histogram(&view, None, &stats).unwrap();
        let mut slow = Histogram::new(&stats).unwrap();
        for e in Elements::new(elem, Source::Raw(&raw), n) {
            slow.push(&e);
        }
        assert_eq!(fast.counts, slow.counts, "{elem:?}");
        assert!(fast.counts.iter().sum::<u64>() > 0, "{elem:?}");
    }
}
