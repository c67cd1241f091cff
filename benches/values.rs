//! `cargo bench`: the whole-tensor kernels on 16 Mi values in memory, in
//! nanoseconds per value (median of 7 runs), next to their limits measured
//! in the same run: a memory copy of the same bytes for statistics and
//! decoding, `ryu` alone for formatting. A plain harness on the standard
//! library (no benchmark crate, so `cargo test` builds nothing more).
//!
//! `cargo bench -- NAME` runs the benchmarks whose name contains NAME.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use pbdecode::json_writer::JsonWriter;
use pbdecode::progress::Silent;
use pbdecode::render::json::write_value_list;
use pbdecode::stats::kernel;
use pbdecode::tensor::{Elem, Elements, LoadedValues, Source};
use std::hint::black_box;
use std::time::Instant;

const N: usize = 1 << 24;

fn bytes(len: usize) -> Vec<u8> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// Floats of a normal spread (finite, as real weights are), as bytes.
fn float_bytes(elem: Elem, n: usize) -> Vec<u8> {
    let mut x: u64 = 1;
    let mut out = Vec::with_capacity(n * 8);
    for _ in 0..n {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let v = ((x >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 6.0;
        match elem {
            Elem::F64 => out.extend_from_slice(&v.to_le_bytes()),
            Elem::F16 => out.extend_from_slice(&half::f16::from_f64(v).to_le_bytes()),
            _ => out.extend_from_slice(&(v as f32).to_le_bytes()),
        }
    }
    out
}

fn median_ns(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..runs)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64() * 1e9
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[runs / 2]
}

fn report(name: &str, per_value: f64, limit_name: &str, limit: f64) {
    println!(
        "{name:<34} {per_value:>8.2} ns/value   {limit_name:<14} {limit:>7.2} ns/value   ratio {:>6.2}",
        per_value / limit
    );
}

fn main() {
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let wanted = |name: &str| filter.as_deref().is_none_or(|f| name.contains(f));
    let runs = 7;

    // Statistics of one thread and of every core, per type family, against
    // a copy of the same bytes.
    for (name, elem) in [
        ("stats FLOAT", Elem::F32),
        ("stats DOUBLE", Elem::F64),
        ("stats FLOAT16", Elem::F16),
        ("stats INT8", Elem::I8),
        ("stats INT32", Elem::I32),
        ("stats FLOAT8E4M3FN", Elem::F8E4M3FN),
    ] {
        if !wanted(name) {
            continue;
        }
        let raw = match elem {
            Elem::F32 | Elem::F64 | Elem::F16 => float_bytes(elem, N),
            _ => bytes(N * (elem.bits() / 8) as usize),
        };
        let mut copy = vec![0u8; raw.len()];
        let memcpy = median_ns(runs, || copy.copy_from_slice(black_box(&raw))) / N as f64;
        for threads in [1, pbdecode::progress::threads()] {
            let t = median_ns(runs, || {
                black_box(kernel::raw_stats(elem, &raw, N as u64, threads, &|_| {}));
            }) / N as f64;
            report(&format!("{name} ({threads} thread)"), t, "memcpy", memcpy);
        }
    }

    // Element decoding through the generic reader, per type family.
    for (name, elem) in [
        ("decode FLOAT", Elem::F32),
        ("decode FLOAT16", Elem::F16),
        ("decode BFLOAT16", Elem::BF16),
        ("decode FLOAT8E5M2", Elem::F8E5M2),
        ("decode INT4", Elem::I4),
        ("decode INT64", Elem::I64),
        ("decode COMPLEX64", Elem::C64),
    ] {
        if !wanted(name) {
            continue;
        }
        let raw = bytes((N as u64 * elem.bits()).div_ceil(8) as usize);
        let mut copy = vec![0u8; raw.len()];
        let memcpy = median_ns(runs, || copy.copy_from_slice(black_box(&raw))) / N as f64;
        let t = median_ns(runs, || {
            for e in Elements::new(elem, Source::Raw(&raw), N as u64) {
                black_box(e);
            }
        }) / N as f64;
        report(name, t, "memcpy", memcpy);
    }

    // Formatting every value as JSON, against ryu alone on the same floats.
    if wanted("format FLOAT") {
        let raw = float_bytes(Elem::F32, N);
        let values: Vec<f32> = raw
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let ryu_alone = median_ns(3, || {
            let mut b = ryu::Buffer::new();
            let mut len = 0usize;
            for &v in &values {
                len += b.format_finite(v).len();
            }
            black_box(len);
        }) / N as f64;
        for threads in [1, pbdecode::progress::threads()] {
            let t = median_ns(3, || {
                let mut out = Vec::with_capacity(N * 12);
                let mut loaded = LoadedValues::Ready(
                    Elements::new(Elem::F32, Source::Raw(&raw), N as u64),
                    N as u64,
                );
                let mut w = JsonWriter::new(&mut out);
                let _ = w.begin_array();
                let _ = write_value_list(&mut w, &mut loaded, u64::MAX, threads, &Silent);
                let _ = w.end_array();
                black_box(out.len());
            }) / N as f64;
            report(
                &format!("format FLOAT JSON ({threads} thread)"),
                t,
                "ryu alone",
                ryu_alone,
            );
        }
    }
}
