//! A V1 checkpoint's tensor saved in slices is read slice by slice: its
//! text view (8 values), its statistics and histogram, and the facade's
//! statistics take memory for a few values and per slice, never a buffer
//! of the whole tensor (which the views used to assemble first: 2 MiB
//! here, 1 GiB from a 1 MB file whose slices shared bytes). The tables are
//! built here as TensorFlow's V1 writer lays them out.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use crate::common::Msg;
use crate::common::table::{block, entry, table};
use crate::counting_alloc::peak_during;
use pbdecode::formats::{self, FormatOptions};
use pbdecode::render::{RenderOptions, json, text};

/// A table entry under `key`, no bytes shared with the one before.
fn key_value(key: &[u8], value: &[u8]) -> Vec<u8> {
    let mut e = entry(0, key.len() as u64, value.len() as u64, key);
    e.extend_from_slice(value);
    e
}

/// A V1 checkpoint of the float tensor `p` of shape [rows, cols], element
/// [r, c] = r * cols + c, saved as `parts` slices along `axis` (0: bands
/// of rows, 1: bands of columns), each its values packed.
fn v1_checkpoint(rows: u64, cols: u64, axis: usize, parts: u64) -> Vec<u8> {
    let dims = Msg::new()
        .message(2, &Msg::new().varint(1, rows))
        .message(2, &Msg::new().varint(1, cols));
    let extents = |k: u64| {
        let (mut r, mut c) = ((0, rows), (0, cols));
        let band = [rows, cols][axis] / parts;
        if axis == 0 {
            r = (k * band, band);
        } else {
            c = (k * band, band);
        }
        let ext = |(s, l): (u64, u64)| Msg::new().varint(1, s).varint(2, l);
        (Msg::new().message(1, &ext(r)).message(1, &ext(c)), r, c)
    };
    let mut listed = Msg::new().string(1, "p").message(2, &dims).varint(3, 1);
    for k in 0..parts {
        listed = listed.message(4, &extents(k).0);
    }
    let header = Msg::new().message(1, &Msg::new().message(1, &listed));
    let mut entries = key_value(b"", &header.bytes());
    for k in 0..parts {
        let (ext, (r0, rl), (c0, cl)) = extents(k);
        let values: Vec<f32> = (r0..r0 + rl)
            .flat_map(|r| (c0..c0 + cl).map(move |c| (r * cols + c) as f32))
            .collect();
        let data = Msg::new().varint(1, 1).packed_floats(5, &values);
        let slice = Msg::new().string(1, "p").message(2, &ext).message(3, &data);
        let value = Msg::new().message(2, &slice).bytes();
        entries.extend(key_value(format!("p{k:04}").as_bytes(), &value));
    }
    table(&block(&entries, &[0], 1))
}

fn text_of(bytes: &[u8], opts: &RenderOptions) -> String {
    let decoded = formats::detect(bytes, &FormatOptions::default()).expect("decodes");
    let mut out = Vec::new();
    text::write_decoded(&mut out, &decoded, opts).expect("renders");
    String::from_utf8(out).unwrap()
}

fn json_of(bytes: &[u8], opts: &RenderOptions) -> String {
    let decoded = formats::detect(bytes, &FormatOptions::default()).expect("decodes");
    let mut out = Vec::new();
    json::write_decoded(&mut out, &decoded, opts).expect("renders");
    String::from_utf8(out).unwrap()
}

#[test]
fn a_tensor_saved_in_slices_is_shown_without_assembling_it() {
    // 524,288 floats (2 MiB assembled) in 16 slices, by rows and by
    // columns (a row of the tensor then crosses every slice).
    let (rows, cols) = (32u64, 16_384u64);
    let whole = (rows * cols * 4) as usize;
    for axis in [0, 1] {
        let bytes = v1_checkpoint(rows, cols, axis, 16);
        // The built-in schema tables are parsed once per process.
        let _ = text_of(&bytes, &RenderOptions::default());

        let (t, peak) = peak_during(|| text_of(&bytes, &RenderOptions::default()));
        assert!(
            t.contains("tensor \"p\" (assembled from its slices)"),
            "{t}"
        );
        assert!(
            t.contains("[0,0] 0.0  1.0  2.0  3.0  4.0  5.0  6.0  7.0"),
            "{t}"
        );
        assert!(
            peak < whole / 16,
            "axis {axis}: text view, peak heap {peak} bytes"
        );

        // Statistics, histogram and the last rows read every value, slice
        // by slice.
        let opts = RenderOptions {
            stats: true,
            histogram: true,
            ..RenderOptions::default()
        };
        let (t, peak) = peak_during(|| text_of(&bytes, &opts));
        let n = rows * cols;
        let tail = t.rsplit_once("tensor \"p\" (assembled").unwrap().1;
        assert!(
            tail.contains("stats:     count 524288  min 0.0  max 524287.0  mean 262144"),
            "{tail}"
        );
        // The tail's last line ends with the last element.
        assert!(tail.contains("  524287.0\n"), "{tail}");
        assert!(t.contains("histogram:"), "{t}");
        assert!(
            peak < whole / 8,
            "axis {axis}: --stats, peak heap {peak} bytes"
        );

        // JSON with --values 8 --stats: 8 values read, the statistics
        // from every value, one chunk at a time.
        let opts = RenderOptions {
            values: Some(8),
            stats: true,
            ..RenderOptions::default()
        };
        let (j, peak) = peak_during(|| json_of(&bytes, &opts));
        let p = j.rsplit_once("\"key\": \"p\"").unwrap().1;
        assert!(p.contains("\"values_total\": 524288"), "{p}");
        assert!(p.contains("\"mean\": 262143.5"), "{p}");
        assert!(
            peak < whole / 8,
            "axis {axis}: JSON, peak heap {peak} bytes"
        );

        // The facade's statistics (Python's Tensor.stats()) likewise; its
        // values are the tensor assembled, in row-major order.
        let doc = pbdecode::read(bytes.clone()).unwrap();
        let p = doc.tensor_by_name("p").unwrap();
        let (stats, peak) = peak_during(|| p.stats().unwrap());
        assert_eq!((stats.count, stats.mean()), (n, Some((n - 1) as f64 / 2.0)));
        assert!(
            peak < whole / 16,
            "axis {axis}: stats(), peak heap {peak} bytes"
        );
        let pbdecode::Values::F32(v) = p.values().unwrap() else {
            panic!("not floats");
        };
        assert!(v.iter().enumerate().all(|(i, &x)| x == i as f32));
    }
}
