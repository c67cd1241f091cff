//! Shared helpers of the integration tests: the one protobuf encoder of the
//! tests (`Msg`, so every input is made from readable code, not opaque
//! bytes), whole messages built with it (`build`), the ONNX tensor fixture
//! generator (`fixtures`), JSON parsing and snapshot layout over serde_json
//! (`json`), the snapshot settings (`snapshot_settings`), and a runner that
//! decodes and renders like the binary does.
//!
//! Each test module uses only part of this module.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]
#![allow(dead_code)]

pub mod build;
pub mod fixtures;
pub mod json;
pub mod table;

use pbdecode::formats::{self, Decoded, FormatOptions};
use pbdecode::render::{RenderOptions, json as json_render, text};
use std::path::{Path, PathBuf};

/// The settings of every snapshot of the integration tests: the files in
/// the repository's `snapshots/` (the path is relative to `tests/it/`,
/// where the assertions are), named without the module's prefix (each
/// test names its snapshot `MODULE__NAME` itself). Used as
/// `common::snapshot_settings().bind(|| insta::assert_snapshot!(..))`.
pub fn snapshot_settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../../snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings
}

/// [`snapshot_settings`] for snapshots whose header leaves out the
/// expression that made them (one per fixture, all made by one call).
pub fn snapshot_settings_without_expression() -> insta::Settings {
    let mut settings = snapshot_settings();
    settings.set_omit_expression(true);
    settings
}

/// Deterministic bytes with every kind of bit pattern (NaN, Inf, zeros,
/// subnormals, extremes) for the tests that compare a parallel path with
/// the one-thread one: a xorshift generator started at `seed`, with
/// `zeros` zero bytes at the start of every `period` bytes (for zeros and
/// subnormals).
pub fn pattern_bytes(len: usize, seed: u64, period: usize, zeros: usize) -> Vec<u8> {
    let mut x = seed;
    (0..len)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if i % period < zeros { 0 } else { x as u8 }
        })
        .collect()
}

/// Element types of every family stored as raw bytes: floats of each
/// width, float8, integers of each width and sign, bool, complex and
/// sub-byte types.
pub const RAW_TYPES: [pbdecode::tensor::Elem; 19] = {
    use pbdecode::tensor::Elem::*;
    [
        F32, F64, F16, BF16, F8E4M3FN, F8E5M2, I8, U8, I16, U16, I32, U32, I64, U64, Bool, C64,
        C128, I4, U2,
    ]
};

/// Protobuf wire types, by their bits.
pub const VARINT: u8 = 0;
pub const I64: u8 = 1;
pub const LEN: u8 = 2;
pub const SGROUP: u8 = 3;
pub const EGROUP: u8 = 4;
pub const I32: u8 = 5;

/// Appends `v` as a varint (7 bits a byte, lowest first).
pub fn put_varint(buf: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        buf.push((v as u8) | 0x80);
        v >>= 7;
    }
    buf.push(v as u8);
}

pub fn varint(v: u64) -> Vec<u8> {
    let mut b = Vec::new();
    put_varint(&mut b, v);
    b
}

/// A field key: the number shifted left three bits, or'd with the wire type.
/// Takes any u64 so tests can write invalid numbers (0, 2^29).
pub fn key(number: u64, wire: u8) -> Vec<u8> {
    varint((number << 3) | u64::from(wire))
}

/// Builds one message field by field, in the order the calls are made (so
/// tests can write fields out of order, repeated or malformed).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Msg {
    pub buf: Vec<u8>,
}

impl Msg {
    pub fn new() -> Self {
        Msg::default()
    }

    pub fn bytes(&self) -> Vec<u8> {
        self.buf.clone()
    }

    pub fn len(&self) -> usize {
        self.buf.len()
    }

    pub fn key(mut self, number: u64, wire: u8) -> Self {
        self.buf.extend(key(number, wire));
        self
    }

    /// A VARINT field holding the raw 64-bit value.
    pub fn varint(self, number: u64, v: u64) -> Self {
        let mut m = self.key(number, VARINT);
        put_varint(&mut m.buf, v);
        m
    }

    /// An int32/int64 field: negative values take ten bytes (sign-extended
    /// to 64 bits, as protobuf writes them).
    pub fn int(self, number: u64, v: i64) -> Self {
        self.varint(number, v as u64)
    }

    pub fn fixed32(mut self, number: u64, v: u32) -> Self {
        self = self.key(number, I32);
        self.buf.extend(v.to_le_bytes());
        self
    }

    pub fn fixed64(mut self, number: u64, v: u64) -> Self {
        self = self.key(number, I64);
        self.buf.extend(v.to_le_bytes());
        self
    }

    pub fn float(self, number: u64, v: f32) -> Self {
        self.fixed32(number, v.to_bits())
    }

    pub fn double(self, number: u64, v: f64) -> Self {
        self.fixed64(number, v.to_bits())
    }

    /// A LEN field: length prefix, then the bytes.
    pub fn len_field(mut self, number: u64, payload: &[u8]) -> Self {
        self = self.key(number, LEN);
        put_varint(&mut self.buf, payload.len() as u64);
        self.buf.extend_from_slice(payload);
        self
    }

    pub fn string(self, number: u64, s: &str) -> Self {
        self.len_field(number, s.as_bytes())
    }

    pub fn message(self, number: u64, m: &Msg) -> Self {
        self.len_field(number, &m.buf)
    }

    /// Packed varints in one LEN field.
    pub fn packed_varints(self, number: u64, vs: &[u64]) -> Self {
        let mut p = Vec::new();
        for &v in vs {
            put_varint(&mut p, v);
        }
        self.len_field(number, &p)
    }

    pub fn packed_fixed32(self, number: u64, vs: &[u32]) -> Self {
        let p: Vec<u8> = vs.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.len_field(number, &p)
    }

    pub fn packed_fixed64(self, number: u64, vs: &[u64]) -> Self {
        let p: Vec<u8> = vs.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.len_field(number, &p)
    }

    /// Packed floats (little-endian, 4 bytes each) in one LEN field.
    pub fn packed_floats(self, number: u64, vs: &[f32]) -> Self {
        let p: Vec<u8> = vs.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.len_field(number, &p)
    }

    /// Packed doubles (little-endian, 8 bytes each) in one LEN field.
    pub fn packed_doubles(self, number: u64, vs: &[f64]) -> Self {
        let p: Vec<u8> = vs.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.len_field(number, &p)
    }

    /// A group: start key, the fields of `m`, end key.
    pub fn group(self, number: u64, m: &Msg) -> Self {
        self.key(number, SGROUP).raw(&m.buf).key(number, EGROUP)
    }

    /// A LEN key and a length prefix with no (or not enough) bytes after it:
    /// how a file claiming more than it holds is made.
    pub fn len_header(mut self, number: u64, claimed: u64) -> Self {
        self = self.key(number, LEN);
        put_varint(&mut self.buf, claimed);
        self
    }

    /// Appends bytes as they are (a truncated field, a bad key, ...).
    pub fn raw(mut self, bytes: &[u8]) -> Self {
        self.buf.extend_from_slice(bytes);
        self
    }
}

impl From<Msg> for Vec<u8> {
    fn from(m: Msg) -> Vec<u8> {
        m.buf
    }
}

/// The fixture folder of the ONNX tensor fixtures.
pub fn tensor_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/onnx-tensor")
}

/// Every file under tests/fixtures, sorted, as (path relative to
/// tests/fixtures, bytes).
pub fn all_fixture_files() -> Vec<(String, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(bytes) = std::fs::read(&path) {
                let rel = path
                    .strip_prefix(&root)
                    .map(|p| p.to_string_lossy().replace('\\', "/"))
                    .unwrap_or_default();
                out.push((rel, bytes));
            }
        }
    }
    out.sort();
    out
}

/// What the library made of an input, rendered: the outcome of `--as auto`,
/// then the text and JSON output (or the rejection).
pub struct Outcome {
    /// The format id chosen by detect, or None when turned down.
    pub format: Option<&'static str>,
    pub text: String,
    pub json: String,
    /// The rejection (deciding error, then each format's reason).
    pub error: Option<String>,
}

/// Renders a decoded input with both renderers.
pub fn render(decoded: &Decoded<'_>, opts: &RenderOptions) -> (String, String) {
    let mut t = Vec::new();
    let mut j = Vec::new();
    let tr = text::write_decoded(&mut t, decoded, opts);
    let jr = json_render::write_decoded(&mut j, decoded, opts);
    let mut text = String::from_utf8_lossy(&t).into_owned();
    let mut json = String::from_utf8_lossy(&j).into_owned();
    if let Err(e) = tr {
        text.push_str(&format!("\n<render error: {e}>"));
    }
    if let Err(e) = jr {
        json.push_str(&format!("\n<render error: {e}>"));
    }
    (text, json)
}

/// `--as auto` on bytes, rendered like the binary does.
pub fn run_auto(bytes: &[u8], opts: &RenderOptions) -> Outcome {
    match formats::detect(bytes, &FormatOptions::default()) {
        Ok(decoded) => {
            let (text, json) = render(&decoded, opts);
            Outcome {
                format: Some(decoded.format.id),
                text,
                json,
                error: None,
            }
        }
        Err(rejection) => {
            let mut error = format!("{}", rejection.error);
            for (id, e) in &rejection.tried {
                error.push_str(&format!("\n  {id}: {e}"));
            }
            Outcome {
                format: None,
                text: String::new(),
                json: String::new(),
                error: Some(error),
            }
        }
    }
}

/// `--as ID`: Ok(format id) or the error message.
pub fn run_as(id: &str, bytes: &[u8]) -> Result<&'static str, String> {
    let Some(format) = formats::find(id) else {
        return Err(format!("no format {id}"));
    };
    formats::decode_as(format, bytes, &FormatOptions::default())
        .map(|d| d.format.id)
        .map_err(|e| e.to_string())
}

/// Every `.rs` file under `dir`, depth first, in name order: what the
/// source scans of the tests (layers, registry, JSON by hand, field
/// constants) read.
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}
