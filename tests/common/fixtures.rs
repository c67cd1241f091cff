//! The generator of tests/fixtures/onnx-tensor: every file there is made by
//! [`all`] from the encoder in this module's parent, so each fixture is
//! readable as code. `cargo test --test it -- --ignored
//! tensor_snapshots::regenerate_fixtures` rewrites the folder; a normal test checks the
//! committed files still equal what this produces.

use super::{LEN, Msg, SGROUP, key};
use sha1::{Digest, Sha1};

/// One generated file: its name in tests/fixtures/onnx-tensor and bytes.
pub struct Fixture {
    pub name: String,
    pub bytes: Vec<u8>,
}

// TensorProto field numbers (onnx 1.23).
const DIMS: u64 = 1;
const DATA_TYPE: u64 = 2;
const SEGMENT: u64 = 3;
const FLOAT_DATA: u64 = 4;
const INT32_DATA: u64 = 5;
const STRING_DATA: u64 = 6;
const INT64_DATA: u64 = 7;
const NAME: u64 = 8;
const RAW_DATA: u64 = 9;
const DOUBLE_DATA: u64 = 10;
const UINT64_DATA: u64 = 11;
const DOC_STRING: u64 = 12;
const EXTERNAL_DATA: u64 = 13;
const DATA_LOCATION: u64 = 14;
const METADATA_PROPS: u64 = 16;

/// One ONNX data type: its code, name, bits per element in raw_data.
#[derive(Clone, Copy)]
pub struct Ty {
    pub code: u64,
    pub name: &'static str,
    pub bits: u32,
}

pub const TYPES: [Ty; 28] = [
    Ty {
        code: 1,
        name: "FLOAT",
        bits: 32,
    },
    Ty {
        code: 2,
        name: "UINT8",
        bits: 8,
    },
    Ty {
        code: 3,
        name: "INT8",
        bits: 8,
    },
    Ty {
        code: 4,
        name: "UINT16",
        bits: 16,
    },
    Ty {
        code: 5,
        name: "INT16",
        bits: 16,
    },
    Ty {
        code: 6,
        name: "INT32",
        bits: 32,
    },
    Ty {
        code: 7,
        name: "INT64",
        bits: 64,
    },
    Ty {
        code: 8,
        name: "STRING",
        bits: 0,
    },
    Ty {
        code: 9,
        name: "BOOL",
        bits: 8,
    },
    Ty {
        code: 10,
        name: "FLOAT16",
        bits: 16,
    },
    Ty {
        code: 11,
        name: "DOUBLE",
        bits: 64,
    },
    Ty {
        code: 12,
        name: "UINT32",
        bits: 32,
    },
    Ty {
        code: 13,
        name: "UINT64",
        bits: 64,
    },
    Ty {
        code: 14,
        name: "COMPLEX64",
        bits: 64,
    },
    Ty {
        code: 15,
        name: "COMPLEX128",
        bits: 128,
    },
    Ty {
        code: 16,
        name: "BFLOAT16",
        bits: 16,
    },
    Ty {
        code: 17,
        name: "FLOAT8E4M3FN",
        bits: 8,
    },
    Ty {
        code: 18,
        name: "FLOAT8E4M3FNUZ",
        bits: 8,
    },
    Ty {
        code: 19,
        name: "FLOAT8E5M2",
        bits: 8,
    },
    Ty {
        code: 20,
        name: "FLOAT8E5M2FNUZ",
        bits: 8,
    },
    Ty {
        code: 21,
        name: "UINT4",
        bits: 4,
    },
    Ty {
        code: 22,
        name: "INT4",
        bits: 4,
    },
    Ty {
        code: 23,
        name: "FLOAT4E2M1",
        bits: 4,
    },
    Ty {
        code: 24,
        name: "FLOAT8E8M0",
        bits: 8,
    },
    Ty {
        code: 25,
        name: "UINT2",
        bits: 2,
    },
    Ty {
        code: 26,
        name: "INT2",
        bits: 2,
    },
    Ty {
        code: 27,
        name: "FLOAT6E2M3",
        bits: 6,
    },
    Ty {
        code: 28,
        name: "FLOAT6E3M2",
        bits: 6,
    },
];

pub fn ty(code: u64) -> Ty {
    TYPES[(code - 1) as usize]
}

fn f32b(v: f32) -> u128 {
    u128::from(v.to_bits())
}

fn f64b(v: f64) -> u128 {
    u128::from(v.to_bits())
}

fn c64(re: f32, im: f32) -> u128 {
    f32b(re) | (f32b(im) << 32)
}

fn c128(re: f64, im: f64) -> u128 {
    f64b(re) | (f64b(im) << 64)
}

/// Two's complement bit pattern of `v` in `bits` bits.
fn signed(v: i64, bits: u32) -> u128 {
    u128::from(v as u64) & ((1u128 << bits) - 1)
}

/// The test values of each numeric type, as bit patterns (complex: real in
/// the low half), and the shape they are stored in. Every type gets zero,
/// its extremes and, for floats, -0, NaN, infinities (where the type has
/// them) and the smallest subnormal.
pub fn case(code: u64) -> (Vec<i64>, Vec<u128>) {
    let s = |v: &[i64]| v.to_vec();
    match code {
        1 => (
            s(&[3, 3]),
            vec![
                f32b(1.0),
                f32b(-0.0),
                0x7fc0_0000,
                f32b(f32::INFINITY),
                f32b(f32::NEG_INFINITY),
                1, // smallest subnormal
                f32b(f32::MAX),
                f32b(f32::MIN_POSITIVE),
                f32b(-2.5),
            ],
        ),
        2 => (s(&[5]), vec![0, 1, 127, 128, 255]),
        3 => (
            s(&[5]),
            [-128, -1, 0, 1, 127].map(|v| signed(v, 8)).to_vec(),
        ),
        4 => (s(&[2, 2]), vec![0, 1, 32768, 65535]),
        5 => (
            s(&[1, 5]),
            [-32768, -1, 0, 1, 32767].map(|v| signed(v, 16)).to_vec(),
        ),
        6 => (
            s(&[5]),
            [i64::from(i32::MIN), -1, 0, 1, i64::from(i32::MAX)]
                .map(|v| signed(v, 32))
                .to_vec(),
        ),
        7 => (
            s(&[5, 1]),
            [i64::MIN, -1, 0, 1, i64::MAX]
                .map(|v| signed(v, 64))
                .to_vec(),
        ),
        9 => (s(&[2, 3]), vec![1, 0, 1, 1, 0, 0]),
        10 => (
            s(&[2, 2, 2]),
            // 0x3864 is the seed's 0.548828; then 0.5, -0, Inf, -Inf, NaN,
            // the smallest subnormal and the largest finite (65504).
            vec![
                0x3864, 0x3800, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x0001, 0x7bff,
            ],
        ),
        11 => (
            s(&[2, 2, 2]),
            vec![
                f64b(1.0),
                f64b(-0.0),
                0x7ff8_0000_0000_0000,
                f64b(f64::INFINITY),
                f64b(f64::NEG_INFINITY),
                1,
                f64b(f64::MAX),
                f64b(0.1),
            ],
        ),
        12 => (s(&[4]), vec![0, 1, 1 << 31, u128::from(u32::MAX)]),
        13 => (
            s(&[5]),
            vec![0, 1, 1 << 63, (1 << 63) + 1, u128::from(u64::MAX)],
        ),
        14 => (
            s(&[3]),
            vec![c64(1.0, -1.0), c64(0.5, -0.0), c64(f32::NAN, f32::INFINITY)],
        ),
        15 => (
            s(&[1, 1, 1, 2]),
            vec![c128(1.0, -2.0), c128(f64::NEG_INFINITY, 1e-300)],
        ),
        16 => (
            s(&[1, 2, 2, 2]),
            // 1, -0, Inf, -Inf, NaN, smallest subnormal, largest, -2.5.
            vec![
                0x3f80, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0x0001, 0x7f7f, 0xc020,
            ],
        ),
        // 0, -0, smallest subnormal, largest (448), NaN, 1.0
        17 => (s(&[2, 3]), vec![0x00, 0x80, 0x01, 0x7e, 0x7f, 0x38]),
        // 0, NaN (0x80), smallest subnormal, 240, -240, 1.0
        18 => (s(&[2, 3]), vec![0x00, 0x80, 0x01, 0x7f, 0xff, 0x40]),
        // 0, -0, smallest subnormal, 57344, Inf, -Inf, NaN, 1.0
        19 => (
            s(&[2, 4]),
            vec![0x00, 0x80, 0x01, 0x7b, 0x7c, 0xfc, 0x7d, 0x3c],
        ),
        // 0, NaN (0x80), smallest subnormal, 57344, -57344, 1.0
        20 => (s(&[2, 3]), vec![0x00, 0x80, 0x01, 0x7f, 0xff, 0x40]),
        // An odd count, so the last byte / int32 is half used.
        21 => (s(&[3, 3]), vec![0, 1, 2, 7, 8, 9, 14, 15, 5]),
        // The seed's example: -9..15 saturated to INT4.
        22 => (
            s(&[5, 5]),
            (0..25)
                .map(|i| signed((i - 9i64).clamp(-8, 7), 4))
                .collect(),
        ),
        // 0, 0.5, 1, 6, -0, -6, -0.5
        23 => (s(&[7]), vec![0x0, 0x1, 0x2, 0x7, 0x8, 0xf, 0x9]),
        // 2^-127, 1, 2, 2^127, NaN
        24 => (s(&[5]), vec![0x00, 0x7f, 0x80, 0xfe, 0xff]),
        25 => (s(&[1, 1, 2, 1, 5]), vec![0, 1, 2, 3, 3, 2, 1, 0, 1, 2]),
        26 => (
            s(&[6]),
            [-2, -1, 0, 1, 1, -2].map(|v| signed(v, 2)).to_vec(),
        ),
        // 0, -0, smallest subnormal (0.125), 7.5, -7.5
        27 => (s(&[5]), vec![0x00, 0x20, 0x01, 0x1f, 0x3f]),
        // 0, 0.0625, 28, -0, -28, 1.0
        28 => (s(&[2, 3]), vec![0x00, 0x01, 0x1f, 0x20, 0x3f, 0x0c]),
        _ => (Vec::new(), Vec::new()),
    }
}

/// The strings of the STRING cases.
pub fn strings() -> Vec<Vec<u8>> {
    vec![
        b"abc".to_vec(),
        Vec::new(),
        "h\u{e9}llo w\u{f6}rld \u{2713}".as_bytes().to_vec(),
        b"tab\tquote\"newline\n".to_vec(),
    ]
}

/// Packs bit patterns as ONNX raw_data: a little-endian bit stream, each
/// element `bits` wide, first element lowest; padded with zero bits.
pub fn raw_bytes(bits: u32, elems: &[u128]) -> Vec<u8> {
    let total = elems.len() * bits as usize;
    let mut out = vec![0u8; total.div_ceil(8)];
    for (i, &e) in elems.iter().enumerate() {
        for b in 0..bits as usize {
            if (e >> b) & 1 == 1 {
                let at = i * bits as usize + b;
                out[at / 8] |= 1 << (at % 8);
            }
        }
    }
    out
}

/// Sign-extends a `bits`-wide pattern to i64.
fn sext(e: u128, bits: u32) -> i64 {
    let shift = 64 - bits;
    ((e as u64) << shift) as i64 >> shift
}

/// The values of the typed field for `code`, as the raw u64 of each entry
/// (a varint's value, or a fixed32/fixed64 bit pattern), and that field.
pub fn typed_values(code: u64, elems: &[u128]) -> (u64, Vec<u64>) {
    let lo = |e: &u128| *e as u64;
    match code {
        1 => (FLOAT_DATA, elems.iter().map(lo).collect()),
        14 => (
            FLOAT_DATA,
            elems
                .iter()
                .flat_map(|&e| [e as u64 & 0xffff_ffff, (e >> 32) as u64 & 0xffff_ffff])
                .collect(),
        ),
        11 => (DOUBLE_DATA, elems.iter().map(lo).collect()),
        15 => (
            DOUBLE_DATA,
            elems
                .iter()
                .flat_map(|&e| [e as u64, (e >> 64) as u64])
                .collect(),
        ),
        7 => (INT64_DATA, elems.iter().map(lo).collect()),
        12 | 13 => (UINT64_DATA, elems.iter().map(lo).collect()),
        // Signed types: the value itself, so negatives are 10-byte varints.
        3 | 5 | 6 => {
            let bits = ty(code).bits;
            (
                INT32_DATA,
                elems.iter().map(|&e| sext(e, bits) as u64).collect(),
            )
        }
        // Two 4-bit values per int32 (first in the low nibble), four 2-bit
        // values per int32 (first in the lowest two bits).
        21..=23 | 25 | 26 => {
            let bits = ty(code).bits as usize;
            let per = 8 / bits;
            (
                INT32_DATA,
                elems
                    .chunks(per)
                    .map(|c| {
                        c.iter()
                            .enumerate()
                            .fold(0u64, |acc, (i, &e)| acc | ((e as u64) << (i * bits)))
                    })
                    .collect(),
            )
        }
        // The rest: one int32 per element, the value or bit pattern.
        _ => (INT32_DATA, elems.iter().map(lo).collect()),
    }
}

fn dims(mut m: Msg, shape: &[i64]) -> Msg {
    for &d in shape {
        m = m.int(DIMS, d);
    }
    m
}

/// Writes a typed field packed (as ONNX's writers do).
fn typed_packed(m: Msg, field: u64, vals: &[u64]) -> Msg {
    match field {
        FLOAT_DATA => m.packed_fixed32(field, &vals.iter().map(|&v| v as u32).collect::<Vec<_>>()),
        DOUBLE_DATA => m.packed_fixed64(field, vals),
        _ => m.packed_varints(field, vals),
    }
}

/// Writes a typed field one value per field.
fn typed_unpacked(mut m: Msg, field: u64, vals: &[u64]) -> Msg {
    for &v in vals {
        m = match field {
            FLOAT_DATA => m.fixed32(field, v as u32),
            DOUBLE_DATA => m.fixed64(field, v),
            _ => m.varint(field, v),
        };
    }
    m
}

/// Where a tensor's values go.
enum Data<'a> {
    None,
    Raw(&'a [u8]),
    Typed(u64, &'a [u64]),
    Strings(&'a [Vec<u8>]),
}

/// A tensor with its fields in field-number order, as ONNX's writers put
/// them.
fn tensor(shape: &[i64], code: u64, name: &str, data: Data<'_>) -> Msg {
    let mut m = dims(Msg::new(), shape).varint(DATA_TYPE, code);
    if let Data::Typed(f, v) = data
        && f < NAME
    {
        m = typed_packed(m, f, v);
    }
    if let Data::Strings(ss) = data {
        for s in ss {
            m = m.len_field(STRING_DATA, s);
        }
    }
    m = m.string(NAME, name);
    if let Data::Raw(r) = data {
        m = m.len_field(RAW_DATA, r);
    }
    if let Data::Typed(f, v) = data
        && f > NAME
    {
        m = typed_packed(m, f, v);
    }
    m
}

fn entry(k: &str, v: &str) -> Msg {
    Msg::new().string(1, k).string(2, v)
}

/// The side file of the external-data fixtures: a 16-byte header, then
/// twelve floats (0.5, 1.0, ... 6.0) little-endian.
pub fn weights_bin() -> Vec<u8> {
    let mut b = b"PBDECODE-WEIGHTS".to_vec();
    for i in 1..=12 {
        b.extend((i as f32 * 0.5).to_le_bytes());
    }
    b
}

fn sha1_hex(bytes: &[u8]) -> String {
    Sha1::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A FLOAT [3, 4] tensor whose values are in a side file.
fn external(name: &str, entries: &[(&str, &str)]) -> Msg {
    let mut m = dims(Msg::new(), &[3, 4])
        .varint(DATA_TYPE, 1)
        .string(NAME, name);
    for (k, v) in entries {
        m = m.message(EXTERNAL_DATA, &entry(k, v));
    }
    m.varint(DATA_LOCATION, 1)
}

/// Twelve floats for the forms fixtures.
fn floats12() -> Vec<u8> {
    raw_bytes(
        32,
        &(0..12).map(|i| f32b(i as f32 - 5.5)).collect::<Vec<_>>(),
    )
}

/// Every fixture, in a fixed order.
pub fn all() -> Vec<Fixture> {
    let mut out: Vec<Fixture> = Vec::new();
    let mut add = |name: &str, m: Msg| {
        out.push(Fixture {
            name: format!("{name}.pb"),
            bytes: m.buf,
        })
    };

    // --- every data type, in raw_data and in its typed field ---
    for t in TYPES {
        let lower = t.name.to_lowercase();
        if t.code == 8 {
            let ss = strings();
            let name = format!("{lower}_typed");
            add(&name, tensor(&[2, 2], 8, &name, Data::Strings(&ss)));
            continue;
        }
        let (shape, elems) = case(t.code);
        let raw = raw_bytes(t.bits, &elems);
        let name = format!("{lower}_raw");
        add(&name, tensor(&shape, t.code, &name, Data::Raw(&raw)));
        let (field, vals) = typed_values(t.code, &elems);
        let name = format!("{lower}_typed");
        add(
            &name,
            tensor(&shape, t.code, &name, Data::Typed(field, &vals)),
        );
    }

    // --- every code of the float8, float6 and float4 types, one tensor each ---
    for code in [17u64, 18, 19, 20, 24, 23, 27, 28] {
        let t = ty(code);
        let n = 1u32 << t.bits;
        let shape: Vec<i64> = match n {
            256 => vec![16, 16],
            64 => vec![8, 8],
            _ => vec![16],
        };
        let elems: Vec<u128> = (0..n).map(u128::from).collect();
        let name = format!("all_codes_{}", t.name.to_lowercase());
        let raw = raw_bytes(t.bits, &elems);
        add(&name, tensor(&shape, code, &name, Data::Raw(&raw)));
    }

    // --- shapes: scalars, empty tensors, rank 6 ---
    add(
        "scalar_float_raw",
        tensor(
            &[],
            1,
            "scalar_float_raw",
            Data::Raw(&raw_bytes(32, &[f32b(3.25)])),
        ),
    );
    add(
        "scalar_int64_typed",
        tensor(
            &[],
            7,
            "scalar_int64_typed",
            Data::Typed(INT64_DATA, &[(-42i64) as u64]),
        ),
    );
    add(
        "scalar_string",
        tensor(&[], 8, "scalar_string", Data::Strings(&[b"only".to_vec()])),
    );
    add(
        "scalar_int4_typed",
        // One element of a 4-bit type still takes a whole int32.
        tensor(
            &[],
            22,
            "scalar_int4_typed",
            Data::Typed(INT32_DATA, &[0x0f]),
        ),
    );
    add("empty_float", tensor(&[0], 1, "empty_float", Data::None));
    add(
        "empty_float_raw",
        tensor(&[2, 0, 3], 1, "empty_float_raw", Data::Raw(&[])),
    );
    add(
        "empty_string",
        tensor(&[3, 0], 8, "empty_string", Data::None),
    );
    add("empty_int4", tensor(&[0, 5], 22, "empty_int4", Data::None));
    let r6: Vec<u128> = (0..24).map(|i| signed(i - 12, 16)).collect();
    add(
        "rank6_int16_raw",
        tensor(
            &[1, 2, 1, 3, 2, 2],
            5,
            "rank6_int16_raw",
            Data::Raw(&raw_bytes(16, &r6)),
        ),
    );
    let (f, v) = typed_values(5, &r6);
    add(
        "rank6_int16_typed",
        tensor(
            &[1, 2, 1, 3, 2, 2],
            5,
            "rank6_int16_typed",
            Data::Typed(f, &v),
        ),
    );

    // --- forms ONNX's writers never produce but readers must accept ---
    add(
        "form_packed_dims",
        Msg::new()
            .packed_varints(DIMS, &[3, 4])
            .varint(DATA_TYPE, 1)
            .string(NAME, "form_packed_dims")
            .len_field(RAW_DATA, &floats12()),
    );
    add(
        "form_packed_dims_twice",
        // Two packed runs and a lone dim: all three are appended in order.
        Msg::new()
            .packed_varints(DIMS, &[1, 2])
            .varint(DATA_TYPE, 1)
            .int(DIMS, 2)
            .packed_varints(DIMS, &[3])
            .string(NAME, "form_packed_dims_twice")
            .len_field(RAW_DATA, &floats12()),
    );
    let fl: Vec<u64> = [1.5f32, -0.0, f32::NAN, 1e-40]
        .iter()
        .map(|f| u64::from(f.to_bits()))
        .collect();
    add(
        "form_unpacked_float_data",
        typed_unpacked(
            dims(Msg::new(), &[2, 2]).varint(DATA_TYPE, 1),
            FLOAT_DATA,
            &fl,
        )
        .string(NAME, "form_unpacked_float_data"),
    );
    let i8s: Vec<u64> = [-128i64, -1, 0, 127].iter().map(|&v| v as u64).collect();
    add(
        "form_unpacked_int8",
        typed_unpacked(
            dims(Msg::new(), &[4]).varint(DATA_TYPE, 3),
            INT32_DATA,
            &i8s,
        )
        .string(NAME, "form_unpacked_int8"),
    );
    let i64s: Vec<u64> = [i64::MIN, -1, 1 << 40, i64::MAX]
        .iter()
        .map(|&v| v as u64)
        .collect();
    add(
        "form_unpacked_int64",
        typed_unpacked(
            dims(Msg::new(), &[4]).varint(DATA_TYPE, 7),
            INT64_DATA,
            &i64s,
        )
        .string(NAME, "form_unpacked_int64"),
    );
    let dbl: Vec<u64> = [0.1f64, -1e308, f64::INFINITY]
        .iter()
        .map(|f| f.to_bits())
        .collect();
    add(
        "form_unpacked_double",
        typed_unpacked(
            dims(Msg::new(), &[3])
                .varint(DATA_TYPE, 11)
                .string(NAME, "form_unpacked_double"),
            DOUBLE_DATA,
            &dbl,
        ),
    );
    let c64s: Vec<u64> = [1.0f32, 2.0, -3.0, 0.25]
        .iter()
        .map(|f| u64::from(f.to_bits()))
        .collect();
    add(
        "form_unpacked_complex64",
        typed_unpacked(
            dims(Msg::new(), &[2]).varint(DATA_TYPE, 14),
            FLOAT_DATA,
            &c64s,
        )
        .string(NAME, "form_unpacked_complex64"),
    );
    add(
        "form_unpacked_uint64",
        typed_unpacked(
            dims(Msg::new(), &[3])
                .varint(DATA_TYPE, 13)
                .string(NAME, "form_unpacked_uint64"),
            UINT64_DATA,
            &[u64::MAX, 1 << 63, 7],
        ),
    );
    add(
        "form_mixed_packed_unpacked",
        // Packed runs and single values of one field are concatenated.
        dims(Msg::new(), &[5])
            .varint(DATA_TYPE, 6)
            .packed_varints(INT32_DATA, &[1, 2])
            .int(INT32_DATA, -3)
            .packed_varints(INT32_DATA, &[4, 5])
            .string(NAME, "form_mixed_packed_unpacked"),
    );
    add(
        "form_out_of_order",
        // Reverse order, and dims split around other fields: the dims keep
        // their order of appearance (3 then 4).
        Msg::new()
            .len_field(RAW_DATA, &floats12())
            .string(NAME, "form_out_of_order")
            .int(DIMS, 3)
            .varint(DATA_TYPE, 1)
            .int(DIMS, 4),
    );
    add(
        "form_negative_varints",
        // INT32 and INT64 negatives as 10-byte varints, and an INT32 -1
        // written as a 5-byte varint (only the low 32 bits count).
        dims(Msg::new(), &[4])
            .varint(DATA_TYPE, 6)
            .int(INT32_DATA, -1)
            .int(INT32_DATA, i64::from(i32::MIN))
            .varint(INT32_DATA, 0xffff_ffff)
            .int(INT32_DATA, -7)
            .string(NAME, "form_negative_varints"),
    );
    add(
        "form_uint64_above_2p63",
        tensor(
            &[3],
            13,
            "form_uint64_above_2p63",
            Data::Typed(UINT64_DATA, &[(1 << 63) + 12345, u64::MAX - 1, 1 << 63]),
        ),
    );
    add(
        "form_uint32_in_uint64_data",
        tensor(
            &[2],
            12,
            "form_uint32_in_uint64_data",
            Data::Typed(UINT64_DATA, &[u64::from(u32::MAX), 65536]),
        ),
    );
    add(
        "form_segment",
        // A chunk of a 10-element tensor holding elements 2..5: its size is
        // not checked against the shape.
        dims(Msg::new(), &[10])
            .varint(DATA_TYPE, 1)
            .message(SEGMENT, &Msg::new().int(1, 2).int(2, 5))
            .string(NAME, "form_segment")
            .len_field(RAW_DATA, &raw_bytes(32, &[f32b(2.0), f32b(3.0), f32b(4.0)])),
    );
    add(
        "form_doc_and_metadata",
        tensor(
            &[2],
            6,
            "form_doc_and_metadata",
            Data::Typed(INT32_DATA, &[10, 20]),
        )
        .string(DOC_STRING, "A *Markdown* doc string.\nSecond line.")
        .message(METADATA_PROPS, &entry("author", "pbdecode tests"))
        .message(METADATA_PROPS, &entry("note", "\u{fc}nicode \u{2713}")),
    );
    add(
        "form_data_location_default",
        tensor(
            &[2],
            1,
            "form_data_location_default",
            Data::Raw(&raw_bytes(32, &[f32b(1.0), f32b(2.0)])),
        )
        .varint(DATA_LOCATION, 0),
    );
    let mut long = vec![b'a'; 4096];
    long.extend([0xff, 0xfe, 0x00, 0x80, b'z']);
    add(
        "form_string_bad_utf8_past_4k",
        tensor(
            &[2],
            8,
            "form_string_bad_utf8_past_4k",
            Data::Strings(&[b"ok".to_vec(), long]),
        ),
    );
    let mut cut = vec![b'b'; 4095];
    cut.extend("\u{e9}".as_bytes());
    cut.extend([0xc0, 0x00]);
    add(
        "form_string_char_across_4k",
        // A two-byte character across the 4 KB mark, bad bytes after it.
        tensor(&[1], 8, "form_string_char_across_4k", Data::Strings(&[cut])),
    );

    // --- external data (tests/fixtures/onnx-tensor/weights.bin) ---
    let w = weights_bin();
    let sum = sha1_hex(&w[16..64]);
    add(
        "external",
        external(
            "external",
            &[
                ("location", "weights.bin"),
                ("offset", "16"),
                ("length", "48"),
                ("checksum", &sum),
            ],
        ),
    );
    add(
        "external_no_length",
        // No length: the values run from the offset for as long as the shape needs.
        external(
            "external_no_length",
            &[("location", "weights.bin"), ("offset", "16")],
        ),
    );
    add(
        "external_missing_file",
        external(
            "external_missing_file",
            &[
                ("location", "no_such_file.bin"),
                ("offset", "16"),
                ("length", "48"),
            ],
        ),
    );
    add(
        "external_bad_sha1",
        external(
            "external_bad_sha1",
            &[
                ("location", "weights.bin"),
                ("offset", "16"),
                ("length", "48"),
                ("checksum", "0000000000000000000000000000000000000000"),
            ],
        ),
    );
    add(
        "external_dotdot",
        external(
            "external_dotdot",
            &[
                ("location", "../onnx-tensor/weights.bin"),
                ("offset", "16"),
                ("length", "48"),
            ],
        ),
    );
    add(
        "external_absolute",
        external(
            "external_absolute",
            &[
                ("location", "/etc/passwd"),
                ("offset", "16"),
                ("length", "48"),
            ],
        ),
    );
    add(
        "external_past_end",
        external(
            "external_past_end",
            &[
                ("location", "weights.bin"),
                ("offset", "32"),
                ("length", "48"),
            ],
        ),
    );

    // --- the seed's worked examples ---
    add(
        "seed_float16_output",
        // 08 03 08 04 10 0A 42 06 "output" 4A 18 64 38 ...
        tensor(
            &[3, 4],
            10,
            "output",
            Data::Raw(&raw_bytes(
                16,
                &[
                    0x3864, 0x3c00, 0xbc00, 0x4000, 0x3555, 0x0000, 0x8000, 0x7bff, 0x0400, 0x03ff,
                    0x4248, 0xc500,
                ],
            )),
        ),
    );
    add(
        "seed_string_abc_def",
        // 08 02 10 08 32 03 61 62 63 32 03 64 65 66 42 01 78
        tensor(
            &[2],
            8,
            "x",
            Data::Strings(&[b"abc".to_vec(), b"def".to_vec()]),
        ),
    );
    let (_, int4) = case(22);
    let (_, int4_vals) = typed_values(22, &int4);
    add(
        "seed_int4_5x5",
        // 08 05 08 05 10 16 2A 11 88 01 A9 01 CB 01 ...
        tensor(&[5, 5], 22, "x", Data::Typed(INT32_DATA, &int4_vals)),
    );

    // --- malformed: each turned down as a tensor for one reason ---
    let head = || dims(Msg::new(), &[2]).varint(DATA_TYPE, 1);
    let two = raw_bytes(32, &[f32b(1.0), f32b(2.0)]);
    add(
        "bad_varint_too_long",
        // Eleven bytes: ten with the continuation bit, then 0x00.
        head().raw(&key(NAME, LEN)).raw(&[0x80; 10]).raw(&[0x00]),
    );
    add(
        "bad_varint_overflow",
        // Ten bytes whose last carries bits past 2^64.
        head()
            .raw(&key(14, 0))
            .raw(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02]),
    );
    add(
        "bad_field_0",
        head().len_field(RAW_DATA, &two).raw(&key(0, 0)).raw(&[1]),
    );
    add(
        "bad_field_15",
        head().len_field(RAW_DATA, &two).varint(15, 1),
    );
    add(
        "bad_field_17",
        head().len_field(RAW_DATA, &two).varint(17, 1),
    );
    add(
        "bad_wire_type_6",
        head()
            .len_field(RAW_DATA, &two)
            .raw(&key(NAME, 6))
            .raw(&[0]),
    );
    add(
        "bad_wire_type_7",
        head()
            .len_field(RAW_DATA, &two)
            .raw(&key(NAME, 7))
            .raw(&[0]),
    );
    add(
        "bad_wire_type_fixed32_dims",
        // dims is int64: a fixed32 there is the wrong wire type.
        Msg::new()
            .fixed32(DIMS, 2)
            .varint(DATA_TYPE, 1)
            .len_field(RAW_DATA, &two),
    );
    add(
        "bad_data_type_0",
        dims(Msg::new(), &[2])
            .varint(DATA_TYPE, 0)
            .len_field(RAW_DATA, &two),
    );
    add(
        "bad_data_type_29",
        dims(Msg::new(), &[2])
            .varint(DATA_TYPE, 29)
            .len_field(RAW_DATA, &two),
    );
    add(
        "bad_data_type_negative",
        dims(Msg::new(), &[2])
            .int(DATA_TYPE, -1)
            .len_field(RAW_DATA, &two),
    );
    add(
        "bad_data_type_as_len",
        dims(Msg::new(), &[2])
            .len_field(DATA_TYPE, &[1])
            .len_field(RAW_DATA, &two),
    );
    add(
        "bad_negative_dim",
        dims(Msg::new(), &[-1, 2])
            .varint(DATA_TYPE, 1)
            .len_field(RAW_DATA, &two),
    );
    add(
        "bad_dims_overflow",
        dims(Msg::new(), &[1 << 32, 1 << 32, 2])
            .varint(DATA_TYPE, 1)
            .len_field(RAW_DATA, &two),
    );
    add(
        "bad_dims_bytes_overflow",
        // The element count fits in 64 bits, the byte count does not.
        dims(Msg::new(), &[1 << 62])
            .varint(DATA_TYPE, 1)
            .len_field(RAW_DATA, &two),
    );
    add(
        "bad_no_data_type",
        dims(Msg::new(), &[2]).len_field(RAW_DATA, &two),
    );
    add(
        "bad_raw_for_string",
        tensor(&[2], 8, "bad_raw_for_string", Data::Raw(b"abcd")),
    );
    add(
        "bad_raw_too_long",
        tensor(
            &[2],
            1,
            "bad_raw_too_long",
            Data::Raw(&raw_bytes(32, &[0, 0, 0])),
        ),
    );
    add(
        "bad_raw_too_short",
        tensor(
            &[2],
            1,
            "bad_raw_too_short",
            Data::Raw(&[0, 0, 0, 0, 0, 0, 0]),
        ),
    );
    add(
        "bad_raw_too_short_int4",
        // 5 INT4 elements need 3 bytes.
        tensor(&[5], 22, "bad_raw_too_short_int4", Data::Raw(&[0x21, 0x43])),
    );
    add(
        "bad_typed_count",
        tensor(
            &[2, 2],
            1,
            "bad_typed_count",
            Data::Typed(FLOAT_DATA, &[0, 0, 0]),
        ),
    );
    add(
        "bad_typed_count_int4",
        // 5 INT4 elements need 3 int32 values (two per int32).
        tensor(
            &[5],
            22,
            "bad_typed_count_int4",
            Data::Typed(INT32_DATA, &[0x21, 0x43]),
        ),
    );
    add(
        "bad_typed_count_complex",
        // 2 COMPLEX64 elements need 4 floats.
        tensor(
            &[2],
            14,
            "bad_typed_count_complex",
            Data::Typed(FLOAT_DATA, &[0, 0]),
        ),
    );
    add(
        "bad_two_places",
        tensor(&[2], 1, "bad_two_places", Data::Raw(&two)).packed_fixed32(FLOAT_DATA, &[0, 0]),
    );
    add(
        "bad_raw_and_external",
        tensor(&[2], 1, "bad_raw_and_external", Data::Raw(&two))
            .message(EXTERNAL_DATA, &entry("location", "weights.bin"))
            .varint(DATA_LOCATION, 1),
    );
    add(
        "bad_wrong_typed_field",
        tensor(
            &[2],
            1,
            "bad_wrong_typed_field",
            Data::Typed(INT32_DATA, &[1, 2]),
        ),
    );
    add(
        "bad_uint32_in_int32_data",
        // UINT32 lives in uint64_data, not int32_data.
        tensor(
            &[2],
            12,
            "bad_uint32_in_int32_data",
            Data::Typed(INT32_DATA, &[1, 2]),
        ),
    );
    add(
        "bad_string_utf8",
        tensor(
            &[2],
            8,
            "bad_string_utf8",
            Data::Strings(&[b"ok".to_vec(), b"a\xffb".to_vec()]),
        ),
    );
    add(
        "bad_name_utf8",
        dims(Msg::new(), &[2])
            .varint(DATA_TYPE, 1)
            .len_field(NAME, b"\xc3(")
            .len_field(RAW_DATA, &two),
    );
    add(
        "bad_values_missing",
        dims(Msg::new(), &[2])
            .varint(DATA_TYPE, 1)
            .string(NAME, "bad_values_missing"),
    );
    add(
        "bad_external_no_location",
        external(
            "bad_external_no_location",
            &[("offset", "0"), ("length", "48")],
        ),
    );
    add(
        "bad_packed_float_length",
        // 7 bytes of packed floats: not a multiple of 4.
        dims(Msg::new(), &[2])
            .varint(DATA_TYPE, 1)
            .len_field(FLOAT_DATA, &[0; 7]),
    );
    add(
        "bad_packed_varint_truncated",
        // The last packed varint never ends.
        dims(Msg::new(), &[2])
            .varint(DATA_TYPE, 6)
            .len_field(INT32_DATA, &[1, 0x80]),
    );
    let mut trunc = dims(Msg::new(), &[3, 4])
        .varint(DATA_TYPE, 1)
        .len_header(RAW_DATA, 48)
        .buf;
    trunc.extend(&floats12()[..20]);
    add("bad_truncated_raw", Msg { buf: trunc });
    add(
        "bad_len_past_end",
        // A name that claims 1 GiB in a file of a few bytes.
        head().len_header(NAME, 1 << 30).raw(b"abc"),
    );
    add(
        "bad_group_unclosed",
        // A start-group key whose end-group never comes.
        head().raw(&key(NAME, SGROUP)).varint(1, 1),
    );
    let mut deep = Msg::new().int(1, 1);
    for _ in 0..150 {
        deep = Msg::new().message(SEGMENT, &deep);
    }
    add("bad_deep_nesting", head().raw(&deep.buf));

    // --- not protobuf at all ---
    add("notpb_empty", Msg::new());
    // Text whose first bytes also read as a field ('h' is field 13,
    // VARINT), so the printable-text check is what turns it down.
    add(
        "notpb_text",
        Msg::new().raw(b"hello: dims 3, data_type FLOAT\n"),
    );

    out.push(Fixture {
        name: "weights.bin".into(),
        bytes: weights_bin(),
    });
    out
}

/// The seed's byte prefixes, to check the generator reproduces them.
pub const SEED_FLOAT16_PREFIX: &[u8] = &[
    0x08, 0x03, 0x08, 0x04, 0x10, 0x0A, 0x42, 0x06, b'o', b'u', b't', b'p', b'u', b't', 0x4A, 0x18,
    0x64, 0x38,
];
pub const SEED_STRING: &[u8] = &[
    0x08, 0x02, 0x10, 0x08, 0x32, 0x03, 0x61, 0x62, 0x63, 0x32, 0x03, 0x64, 0x65, 0x66, 0x42, 0x01,
    0x78,
];
pub const SEED_INT4_PREFIX: &[u8] = &[
    0x08, 0x05, 0x08, 0x05, 0x10, 0x16, 0x2A, 0x11, 0x88, 0x01, 0xA9, 0x01, 0xCB, 0x01,
];
pub const SEED_FLOAT_X_PREFIX: &[u8] = &[
    0x08, 0x03, 0x08, 0x04, 0x08, 0x05, 0x10, 0x01, 0x42, 0x01, 0x78, 0x4A, 0xF0, 0x01, 0x78, 0xCC,
    0xE1, 0x3F,
];
