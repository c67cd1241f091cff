//! The values formatted straight from their bytes (floats, doubles and
//! integers of every width) at their extremes: i64::MIN, u64::MAX, -0.0,
//! NaN, the infinities, the longest float texts. The parallel path must
//! write what the one-thread element reader writes.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use pbdecode::json_writer::JsonWriter;
use pbdecode::progress::Silent;
use pbdecode::render::json::write_value_list;
use pbdecode::tensor::{Elem, Elements, LoadedValues, Source};

fn list(elem: Elem, raw: &[u8], n: u64, threads: usize) -> Vec<u8> {
    let mut loaded = LoadedValues::Ready(Elements::new(elem, Source::Raw(raw), n), n);
    let mut out = Vec::new();
    let mut w = JsonWriter::new(&mut out);
    w.begin_array().expect("open");
    write_value_list(&mut w, &mut loaded, u64::MAX, threads, &Silent).expect("write");
    w.end_array().expect("close");
    w.finish().expect("balanced");
    // The items, without the array's brackets.
    assert_eq!((out.first(), out.last()), (Some(&b'['), Some(&b']')));
    out[1..out.len() - 1].to_vec()
}

/// `edges` repeated past two formatting chunks, so threads share them.
fn check(elem: Elem, edges: &[Vec<u8>]) {
    let width = edges[0].len();
    let n = 3 * 65_536 + 5;
    let raw: Vec<u8> = (0..n)
        .flat_map(|i| edges[i % edges.len()].clone())
        .collect();
    assert_eq!(raw.len(), n * width);
    let one = list(elem, &raw, n as u64, 1);
    let two = list(elem, &raw, n as u64, 2);
    assert!(one == two, "{elem:?}: parallel text differs");
    assert!(!one.starts_with(b", ") && !one.ends_with(b", "));
}

#[test]
fn extreme_values_read_from_bytes_are_written_as_the_element_reader_does() {
    let f32s = [
        0.0f32,
        -0.0,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MIN,
        f32::MAX,
        f32::MIN_POSITIVE,
        1e-45,
        -1.1754942e-38,
        123456.79,
        1.0,
    ];
    check(Elem::F32, &f32s.map(|v| v.to_le_bytes().to_vec()));
    let f64s = [
        0.0f64,
        -0.0,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MIN,
        f64::MAX,
        5e-324,
        -2.2250738585072014e-308,
        0.1,
        1e21,
        1.0,
    ];
    check(Elem::F64, &f64s.map(|v| v.to_le_bytes().to_vec()));
    check(
        Elem::I64,
        &[i64::MIN, i64::MAX, 0, -1, 10, -10].map(|v| v.to_le_bytes().to_vec()),
    );
    check(
        Elem::U64,
        &[u64::MAX, 0, 1, 9, 10].map(|v| v.to_le_bytes().to_vec()),
    );
    check(
        Elem::I32,
        &[i32::MIN, i32::MAX, 0, -1].map(|v| v.to_le_bytes().to_vec()),
    );
    check(Elem::U32, &[u32::MAX, 0].map(|v| v.to_le_bytes().to_vec()));
    check(
        Elem::I16,
        &[i16::MIN, i16::MAX, 0].map(|v| v.to_le_bytes().to_vec()),
    );
    check(Elem::U16, &[u16::MAX, 0].map(|v| v.to_le_bytes().to_vec()));
    check(
        Elem::I8,
        &[i8::MIN, i8::MAX, 0, -1].map(|v| v.to_le_bytes().to_vec()),
    );
    check(Elem::U8, &[u8::MAX, 0].map(|v| v.to_le_bytes().to_vec()));
    // And the text itself for a few, from the one-thread path.
    let raw: Vec<u8> = [i64::MIN, -7, 0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    assert_eq!(list(Elem::I64, &raw, 3, 1), b"-9223372036854775808, -7, 0");
}
