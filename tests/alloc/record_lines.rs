//! `decode --jsonl` on one record file streams: the heap it peaks at while
//! a file is written a line per record does not grow with the number of
//! records (records are read, written and dropped in chunks of a few
//! hundred, at most a few chunks at once).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stderr
)]

use crate::counting_alloc::peak_during;
use pbdecode::checksum::{crc32c, mask};
use pbdecode::formats::{self, Body, FormatOptions};
use pbdecode::render::{RenderOptions, json};
use std::io::{self, Write};
use std::path::Path;

/// A writer that keeps nothing, counting lines.
struct Lines(u64);

impl Write for Lines {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.iter().filter(|&&b| b == b'\n').count() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// `n` records, each a small Example-like message (field 1 holding a
/// 4-byte index), so every record is decoded, not just copied.
fn record_file(n: u32) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..n {
        let mut data = vec![0x0a, 4];
        data.extend_from_slice(&i.to_le_bytes());
        let len = (data.len() as u64).to_le_bytes();
        out.extend_from_slice(&len);
        out.extend_from_slice(&mask(crc32c(&len)).to_le_bytes());
        out.extend_from_slice(&data);
        out.extend_from_slice(&mask(crc32c(&data)).to_le_bytes());
    }
    out
}

/// The lines written and the heap peak of writing `bytes` a line per
/// record.
fn lines_and_peak(bytes: &[u8]) -> (u64, usize) {
    peak_during(|| {
        let d = formats::detect(bytes, &FormatOptions::default()).unwrap();
        let Body::Records(file) = &d.body else {
            panic!("not a record file")
        };
        let mut out = Lines(0);
        let fault = json::write_record_lines(
            &mut out,
            Path::new("f.tfrecord"),
            d.format,
            file,
            &RenderOptions::default(),
        )
        .unwrap();
        assert!(fault.is_none());
        out.0
    })
}

#[test]
fn record_lines_hold_one_record_at_a_time() {
    // The schema tables are built on first use: once, before measuring.
    lines_and_peak(&record_file(1));
    let small = record_file(2_000);
    let large = record_file(200_000);
    let (small_lines, small_peak) = lines_and_peak(&small);
    let (large_lines, large_peak) = lines_and_peak(&large);
    eprintln!("2,000 records: peak {small_peak} bytes; 200,000: peak {large_peak} bytes");
    assert_eq!(small_lines, 2_002);
    assert_eq!(large_lines, 200_002);
    // A hundred times the records, the same peak give or take a few KiB
    // (a record array held whole would be megabytes here: 200,000 lines
    // of about 200 bytes).
    assert!(
        large_peak <= small_peak + (16 << 10),
        "peak {large_peak} bytes for 200,000 records, {small_peak} for 2,000"
    );
    assert!(large_peak < 1 << 20, "peak {large_peak} bytes");
}
