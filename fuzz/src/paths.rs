//! What each fuzz target does with one input, shared by the targets in
//! `fuzz/fuzz_targets/` and by `tests/fuzz_regressions.rs` (which includes
//! this file), so a crashing input replays through exactly the same calls.
//!
//! Nothing here touches the file system: external data has no folder
//! (`dir: None`), outputs go to memory through a writer that counts and caps
//! what it is given.
//!
//! Inputs of three classes known to be slow or huge (issue 12, being fixed
//! elsewhere) are passed over rather than rendered, so the fuzzer spends its
//! time on new ground: TensorFlow tensors padded far past their stored values
//! (`implied_too_large`), dense views of large sparse tensors (`--dense` is
//! only set when every sparse tensor is small), and deeply nested `.proto`
//! declarations (`proto_too_deep`).

#![allow(dead_code)]

use pbdecode::decode::Message;
use pbdecode::formats::{self, Body, Decoded, FormatOptions, REGISTRY};
use pbdecode::render::{RenderOptions, json, text};
use pbdecode::schema::SchemaSet;
use pbdecode::tensor::TensorData;
use pbdecode::{npy, picture, schemaless, user_schema};
use std::io::{self, Write};

/// The most output one rendering may produce before it is cut off.
pub const OUTPUT_CAP: u64 = 64 << 20;

/// A writer that counts bytes and fails past `OUTPUT_CAP`.
#[derive(Default)]
pub struct Capped {
    pub written: u64,
    pub hit_cap: bool,
}

impl Write for Capped {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.written = self.written.saturating_add(buf.len() as u64);
        if self.written > OUTPUT_CAP {
            self.hit_cap = true;
            return Err(io::Error::other("output cap"));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// What one input led to: how many readings succeeded and the largest
/// output of one rendering.
#[derive(Debug, Default, Clone, Copy)]
pub struct Outcome {
    pub decoded: u32,
    pub rendered: u32,
    pub largest_output: u64,
    pub hit_cap: bool,
    /// Passed over as one of the known slow classes.
    pub skipped: bool,
}

impl Outcome {
    fn add(&mut self, c: &Capped) {
        self.rendered += 1;
        self.largest_output = self.largest_output.max(c.written);
        self.hit_cap |= c.hit_cap;
    }
}

/// More elements than any tensor of `len` bytes can store (8 sub-byte
/// elements a byte) plus some slack: TensorFlow's padding rule at work.
fn implied_bound(len: usize) -> u64 {
    (len as u64).saturating_mul(8).saturating_add(1 << 16)
}

/// A tensor whose values are mostly implied (padded, zeros) and too many
/// for the input's size: the known padded-tensor class.
fn implied_too_large(set: &SchemaSet, root: &Message<'_>, len: usize) -> bool {
    formats::named_tensors(set, root).iter().any(|t| {
        t.view(set).is_some_and(|v| {
            let implied = matches!(
                v.data,
                TensorData::Typed { pad: true, .. }
                    | TensorData::Strings { pad: true, .. }
                    | TensorData::PaddedBytes(_)
                    | TensorData::Zeros
            );
            implied && v.elements > implied_bound(len)
        })
    })
}

/// Every sparse tensor's dense size is small (the dense view of a large one
/// is the known dense-sparse class).
fn sparse_small(set: &SchemaSet, root: &Message<'_>) -> bool {
    let Some(sparse) = set.find_message("onnx.SparseTensorProto") else {
        return true;
    };
    let mut small = true;
    let _ = formats::walk(root, &mut |m| {
        if m.def == sparse {
            let size = m.scalars(set, "dims").try_fold(1u64, |acc, d| {
                d.as_i64()
                    .and_then(|d| u64::try_from(d).ok())
                    .and_then(|d| acc.checked_mul(d))
            });
            small &= size.is_some_and(|s| s <= 1 << 16);
        }
        Ok(())
    });
    small
}

/// The option sets each decoded input is rendered with: the defaults, and
/// everything switched on.
fn option_sets(dense: bool) -> [RenderOptions; 2] {
    [
        RenderOptions::default(),
        RenderOptions {
            values: Some(3),
            dir: None,
            offsets: true,
            dense,
            color: true,
            histogram: true,
            stats: true,
            ..RenderOptions::default()
        },
    ]
}

/// Renders one decoded input as text and JSON with each option set.
fn render_all(d: &Decoded<'_>, len: usize, out: &mut Outcome) {
    let set = SchemaSet::builtin();
    let dense = match &d.body {
        Body::Message { message, .. } => {
            if implied_too_large(set, message, len) {
                out.skipped = true;
                return;
            }
            sparse_small(set, message)
        }
        Body::UserMessage { set, message, .. } => {
            if implied_too_large(set, message, len) {
                out.skipped = true;
                return;
            }
            sparse_small(set, message)
        }
        Body::Schemaless(_) => true,
    };
    for ropts in option_sets(dense) {
        let mut w = Capped::default();
        let _ = text::write_decoded(&mut w, d, &ropts);
        out.add(&w);
        let mut w = Capped::default();
        let _ = json::write_decoded(&mut w, d, &ropts);
        out.add(&w);
    }
}

/// Target `decode`: `--as auto` (with its near-miss notes) and every
/// `--as FORMAT`, each rendered as text and JSON.
pub fn decode_all(bytes: &[u8]) -> Outcome {
    let mut out = Outcome::default();
    let fopts = FormatOptions::default();
    if let Ok(d) = formats::detect(bytes, &fopts) {
        out.decoded += 1;
        let _ = formats::near_misses(&d, bytes, &fopts);
        render_all(&d, bytes.len(), &mut out);
    }
    for format in REGISTRY {
        if let Ok(d) = formats::decode_as(format, bytes, &fopts) {
            out.decoded += 1;
            let _ = formats::tensor_problems(&d.body);
            render_all(&d, bytes.len(), &mut out);
        }
    }
    out
}

/// Target `schemaless`: the schemaless reader (whole and partial) and its
/// text and JSON renderers, as `--as protobuf` runs them.
pub fn schemaless_all(bytes: &[u8]) -> Outcome {
    let mut out = Outcome::default();
    let Some(format) = formats::find(formats::SCHEMALESS_ID) else {
        return out;
    };
    let opts = schemaless::Options {
        max_depth: schemaless::DEFAULT_MAX_DEPTH,
    };
    if schemaless::decode(bytes, 0, opts).is_ok() {
        out.decoded += 1;
    }
    let _ = schemaless::message_fields(bytes);
    let _ = schemaless::is_text(bytes);
    let tree = schemaless::decode_partial(bytes, 0, opts);
    let d = Decoded {
        format,
        body: Body::Schemaless(tree),
        passed_over: Vec::new(),
    };
    render_all(&d, bytes.len(), &mut out);
    out
}

/// Nesting of braces deeper than this in a `.proto` text is the known
/// parser-recursion class.
const PROTO_DEPTH: usize = 64;

fn proto_too_deep(text: &str) -> bool {
    let mut depth = 0usize;
    for c in text.bytes() {
        match c {
            b'{' | b'<' | b'(' | b'[' => {
                depth += 1;
                if depth > PROTO_DEPTH {
                    return true;
                }
            }
            b'}' | b'>' | b')' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// Decodes `data` with up to four messages of a user schema, rendering each.
fn decode_with(set: &SchemaSet, data: &[u8], out: &mut Outcome) {
    let names: Vec<String> = user_schema::type_names(set)
        .into_iter()
        .take(4)
        .map(|n| n.to_string())
        .collect();
    for name in &names {
        if let Ok(d) = user_schema::decode(set, name, data, schemaless::DEFAULT_MAX_DEPTH) {
            out.decoded += 1;
            render_all(&d, data.len(), out);
        }
    }
}

/// Target `proto_schema`: the input is `.proto` text, then optionally a NUL
/// byte and a message to decode with it (as `--schema` reads it).
pub fn proto_schema(bytes: &[u8]) -> Outcome {
    let mut out = Outcome::default();
    let (text, data) = match bytes.iter().position(|&b| b == 0) {
        Some(at) => (&bytes[..at], &bytes[at + 1..]),
        None => (bytes, &[][..]),
    };
    let Ok(text) = std::str::from_utf8(text) else {
        return out;
    };
    if proto_too_deep(text) {
        out.skipped = true;
        return out;
    }
    if let Ok(set) = SchemaSet::from_files([("fuzz.proto".to_string(), text.to_string())]) {
        out.decoded += 1;
        decode_with(&set, data, &mut out);
    }
    out
}

/// Target `descriptor_set`: the input is a little-endian u16 length, that
/// many bytes of FileDescriptorSet (as `--descriptor-set` reads it; the
/// rest when shorter), then a message to decode with it.
pub fn descriptor_set(bytes: &[u8]) -> Outcome {
    let mut out = Outcome::default();
    let (set_bytes, data) = match bytes {
        [a, b, rest @ ..] => {
            let n = usize::from(u16::from_le_bytes([*a, *b])).min(rest.len());
            rest.split_at(n)
        }
        _ => return out,
    };
    if let Ok(set) = user_schema::load_descriptor_set(set_bytes) {
        out.decoded += 1;
        decode_with(&set, data, &mut out);
    }
    out
}

/// Target `tensor_outputs`: every tensor the input holds (under `--as auto`
/// and every `--as FORMAT`) written as .npy, drawn as a PNG, and shown on
/// its own (`--tensor NAME`), in memory.
pub fn tensor_outputs(bytes: &[u8]) -> Outcome {
    let mut out = Outcome::default();
    let fopts = FormatOptions::default();
    let set = SchemaSet::builtin();
    let decodings = formats::detect(bytes, &fopts).ok().into_iter().chain(
        REGISTRY
            .iter()
            .filter_map(|f| formats::decode_as(f, bytes, &fopts).ok()),
    );
    for d in decodings {
        let Body::Message { message, .. } = &d.body else {
            continue;
        };
        out.decoded += 1;
        let tensors = formats::named_tensors(set, message);
        let bound = implied_bound(bytes.len());
        let mut names = npy::FileNames::new();
        for t in &tensors {
            let Some(view) = t.view(set) else { continue };
            if view.elements > bound
                && matches!(
                    view.data,
                    TensorData::Typed { pad: true, .. }
                        | TensorData::Strings { pad: true, .. }
                        | TensorData::PaddedBytes(_)
                        | TensorData::Zeros
                )
            {
                out.skipped = true;
                continue;
            }
            let mut w = Capped::default();
            let _ = npy::write_npy(&view, None, &mut w);
            out.add(&w);
            let _ = names.name_for(&t.name);
            // `--tensor NAME` alone: the tensor shown as the root.
            let ropts = RenderOptions::default();
            let mut w = Capped::default();
            let _ = text::tensor_block(&mut w, set, t.message, 0, &ropts, true);
            out.add(&w);
            let mut w = Capped::default();
            let _ = json::write_root_message(&mut w, set, t.message, &ropts);
            out.add(&w);
            if let Ok(pic) = picture::picture(&view, None) {
                let mut w = Capped::default();
                let _ = pic.write_png(&mut w);
                let _ = pic.describe();
                out.add(&w);
            }
        }
        let _ = npy::export_set(tensors);
    }
    out
}
