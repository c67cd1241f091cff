//! A batch's memory: the file whose turn it is streams to the output and
//! the others hold at most the window's bytes, so a batch of large tensors
//! peaks within a small constant of one file's `--json`. Counted over the
//! whole process (the workers are threads), so this binary holds this one
//! test and nothing runs beside it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod common;

use common::Msg;
use pbdecode::batch::{self, BatchOptions, Outcome, WINDOW_BYTES};
use pbdecode::formats::{self, FormatOptions};
use pbdecode::render::{RenderOptions, json};
use pbdecode::testdata::ModelCache;
use std::io::{self, Write};
use std::path::PathBuf;

#[path = "common/counting_alloc.rs"]
mod counting_alloc;

use counting_alloc::{Counting, process_peak_during};

#[global_allocator]
static ALLOC: Counting = Counting;

/// A writer that keeps nothing and counts what it is given.
struct Sink(u64);

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A FLOAT tensor of `n` values written as raw_data.
fn float_tensor(n: usize) -> Vec<u8> {
    let raw: Vec<u8> = (0..n)
        .flat_map(|k| (k as f32 * 0.37 - 1000.0).to_le_bytes())
        .collect();
    Msg::new()
        .int(1, n as i64)
        .varint(2, 1)
        .len_field(9, &raw)
        .buf
}

#[test]
fn a_batch_of_large_tensors_holds_one_window() {
    let dir = std::env::temp_dir().join(format!("pbdecode-batch-mem-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tensor = float_tensor(1 << 20);
    let files: Vec<PathBuf> = (0..4)
        .map(|k| {
            let p = dir.join(format!("t{k}.pb"));
            std::fs::write(&p, &tensor).unwrap();
            p
        })
        .collect();
    // One file as `decode --json` renders it.
    let (single_out, single) = process_peak_during(|| {
        let d = formats::detect(&tensor, &FormatOptions::default()).unwrap();
        let mut sink = Sink(0);
        json::write_decoded(&mut sink, &d, &RenderOptions::default()).unwrap();
        sink.0
    });
    // The four as `decode --jsonl` writes them, on two threads.
    let cache = ModelCache::default();
    let opts = BatchOptions {
        stats: false,
        formats: FormatOptions::default(),
        values: None,
        model: None,
        cache: &cache,
        not_read: Default::default(),
        record_lines: false,
    };
    let (batch_out, peak) = process_peak_during(|| {
        let mut sink = Sink(0);
        let mut done = 0;
        batch::parallel_streams(
            files.len(),
            2,
            32,
            WINDOW_BYTES,
            &mut sink,
            |i, w| batch::json_line(w, &files[i], &opts),
            |_, outcome: io::Result<Outcome>| {
                assert!(outcome?.format.is_some());
                done += 1;
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(done, files.len());
        sink.0
    });
    std::fs::remove_dir_all(&dir).unwrap();
    eprintln!(
        "one file: {single_out} bytes out, peak {single}; four: {batch_out} bytes out, peak {peak}"
    );
    assert!(batch_out > 4 * single_out);
    // Each of the two workers renders a file as `--json` does; beyond
    // that only the window, the turn's chunks and each worker's chunk
    // being filled. (Holding each file's line whole took over 10 MiB per
    // file more.)
    let bound = 2 * single + WINDOW_BYTES + (2 << 20);
    assert!(peak <= bound, "peak {peak} bytes, bound {bound}");
    assert!(
        batch_out < 4 * (bound as u64),
        "a line is larger than the bound"
    );
}
