//! What each fuzz target does with one input, shared by the targets in
//! `fuzz/fuzz_targets/` and by `tests/it/fuzz_regressions.rs` (which includes
//! this file), so a crashing input replays through exactly the same calls.
//!
//! Only `api` touches the file system (it serves its input from a
//! temporary folder of its own); elsewhere external data has no folder
//! (`dir: None`), outputs go to memory through a writer that counts and caps
//! what it is given.
//!
//! Inputs of three classes whose work or output follows a size the file
//! declares rather than its length are passed over rather than rendered, so
//! the fuzzer spends its time on new ground: TensorFlow tensors padded far past their stored values
//! (`implied_too_large`), dense views of large sparse tensors (`--dense` is
//! only set when every sparse tensor is small), and deeply nested `.proto`
//! declarations (`proto_too_deep`).

#![allow(dead_code)]

use pbdecode::decode::Message;
use pbdecode::explore::{self, Response};
use pbdecode::fields::onnx::SparseTensorProto;
use pbdecode::formats::{self, Body, Decoded, FormatOptions, REGISTRY};
use pbdecode::render::{RenderOptions, json, text, tree};
use pbdecode::schema::SchemaSet;
use pbdecode::server::http::{self, Request};
use pbdecode::server::{Config, Handler};
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
            let size = m
                .scalars(set, SparseTensorProto::DIMS)
                .try_fold(1u64, |acc, d| {
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
        // A bundle's values are in side files, which a fuzz input has none of.
        Body::Schemaless(_) | Body::Records(_) | Body::Bundle(_) => true,
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
        syntax: Default::default(),
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
            let _ = tree::tensor_block(&mut w, set, t.message, 0, &ropts, true);
            out.add(&w);
            let mut w = Capped::default();
            let mut json = pbdecode::json_writer::JsonWriter::new(&mut w);
            let _ = json::write_root_message(&mut json, set, t.message, &ropts);
            out.add(&w);
            if let Ok(pic) = picture::picture(&view, None) {
                let mut w = Capped::default();
                let _ = pic.write_png(&mut w);
                let _ = pic.describe();
                out.add(&w);
            }
        }
        let _ = npy::export_set(tensors, |t| t.initializer);
    }
    out
}

/// The `Host` the `api` target's requests name (the handler's port).
const API_PORT: u16 = 8765;
/// The session token of the `api` target's handler.
const API_TOKEN: &str = "fuzz-session-token";
/// The most requests one `api` input makes.
const API_REQUESTS: usize = 12;
/// The largest upload the `api` target's handler takes (so that no upload
/// goes to a temporary file).
const API_MAX_UPLOAD: u64 = 1 << 20;
/// What a response body may hold beyond `API_OUTPUT_PER_BYTE` bytes per
/// input byte: the page's script, a full page of values (at most 4 MiB of
/// values, `MAX_VALUES_BYTES` in `src/server/api.rs`).
pub const API_OUTPUT_BASE: u64 = 8 << 20;
pub const API_OUTPUT_PER_BYTE: u64 = 256;

/// Where the served copy of an `api` input lives: a folder of its own
/// (a process id and a counter: tests replay inputs on several threads),
/// removed when the input is done.
struct ServedDir(std::path::PathBuf);

impl ServedDir {
    fn new() -> Option<ServedDir> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("pbdecode-fuzz-api-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).ok()?;
        Some(ServedDir(dir))
    }
}

impl Drop for ServedDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// One request of an `api` input: a block of lines, `METHOD TARGET`, then
/// `Name: value` header lines, then optionally a line `--` and the body.
/// The handler's own Host and Authorization headers follow the block's
/// (a block's own header, found first, wins), and Content-Length when the
/// block has a body.
fn api_request(block: &[u8]) -> Option<Request> {
    let (head, body) = match block.windows(4).position(|w| w == b"\n--\n") {
        Some(at) => (block.get(..at)?, block.get(at + 4..)?),
        None => (block, &[][..]),
    };
    let head = String::from_utf8_lossy(head);
    let mut lines = head.split('\n');
    let mut first = lines.next()?.split(' ');
    let method = first.next()?.to_string();
    let target = first.next().unwrap_or("/");
    // As the server's head parser splits and decodes the target.
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let path = explore::percent_decode(path)?;
    let query = explore::parse_query(query)?;
    let mut headers: Vec<(String, String)> = lines
        .filter(|l| !l.is_empty())
        .map(|l| match l.split_once(':') {
            Some((n, v)) => (n.to_string(), v.trim().to_string()),
            None => (l.to_string(), String::new()),
        })
        .collect();
    headers.push(("Host".into(), format!("127.0.0.1:{API_PORT}")));
    headers.push(("Authorization".into(), format!("token {API_TOKEN}")));
    if method == "POST" {
        headers.push(("Content-Length".into(), body.len().to_string()));
    }
    Some(Request {
        method,
        path,
        query,
        headers,
        body_start: body.to_vec(),
    })
}

/// How many header lines a response carries with no headers of its own.
fn base_header_count() -> usize {
    let mut head = Vec::new();
    let _ = Response::new(200, "text/plain", Vec::new()).write_to(&mut head, false);
    head.windows(2)
        .filter(|w| w == b"\r\n")
        .count()
        .saturating_sub(2)
}

/// The invariants of every response: a status with its reason phrase, a
/// head that parses back to the same status, headers and length (nothing
/// a file or request controls breaks a line), JSON that parses, UTF-8
/// where the type says so, a PNG where it says so, and a body bounded by
/// the input's size.
fn check_response(req: &Request, resp: &Response, input_len: usize, base_headers: usize) {
    let what = format!("{} {} {:?}", req.method, req.path, req.query);
    assert!(
        (100..=599).contains(&resp.status) && http::reason(resp.status) != "Status",
        "{what}: status {}",
        resp.status
    );
    let head_only = req.method == "HEAD";
    let mut wire = Vec::new();
    resp.write_to(&mut wire, head_only)
        .unwrap_or_else(|e| panic!("{what}: writing the response: {e}"));
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut parsed = httparse::Response::new(&mut headers);
    let head_len = match parsed.parse(&wire) {
        Ok(httparse::Status::Complete(n)) => n,
        other => panic!("{what}: the response head does not parse: {other:?}"),
    };
    assert_eq!(parsed.code, Some(resp.status), "{what}: status on the wire");
    assert_eq!(
        parsed.headers.len(),
        base_headers + resp.headers.len(),
        "{what}: header lines on the wire"
    );
    let length = parsed
        .headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case("content-length"))
        .and_then(|h| std::str::from_utf8(h.value).ok())
        .and_then(|v| v.parse::<usize>().ok());
    assert_eq!(length, Some(resp.body.len()), "{what}: Content-Length");
    let sent = if head_only { 0 } else { resp.body.len() };
    assert_eq!(wire.len() - head_len, sent, "{what}: body on the wire");
    if resp.content_type.starts_with("application/json") {
        let mut de = serde_json::Deserializer::from_slice(&resp.body);
        // The decoder's depth limit bounds the nesting.
        de.disable_recursion_limit();
        let mut values = de.into_iter::<serde_json::Value>();
        let first = values.next();
        if !matches!(first, Some(Ok(_))) || values.next().is_some() {
            panic!(
                "{what}: not one JSON value ({first:?}): {}",
                String::from_utf8_lossy(resp.body.get(..4096.min(resp.body.len())).unwrap_or(&[]))
            );
        }
    }
    if resp.content_type.contains("charset=utf-8") {
        assert!(
            std::str::from_utf8(&resp.body).is_ok(),
            "{what}: {} body not UTF-8",
            resp.content_type
        );
    }
    if resp.content_type == "image/png" {
        assert!(
            resp.body.starts_with(b"\x89PNG\r\n\x1a\n"),
            "{what}: not a PNG"
        );
    }
    let bound =
        API_OUTPUT_BASE.saturating_add((input_len as u64).saturating_mul(API_OUTPUT_PER_BYTE));
    assert!(
        resp.body.len() as u64 <= bound,
        "{what}: {} bytes of response from {input_len} bytes of input",
        resp.body.len()
    );
}

/// Whether any reading of `bytes` holds one of the known slow classes
/// (see the top of this file): every endpoint that reads values would
/// walk them.
fn known_slow(bytes: &[u8]) -> bool {
    let fopts = FormatOptions::default();
    let set = SchemaSet::builtin();
    let decodings = formats::detect(bytes, &fopts).ok().into_iter().chain(
        REGISTRY
            .iter()
            .filter_map(|f| formats::decode_as(f, bytes, &fopts).ok()),
    );
    for d in decodings {
        let (set, message) = match &d.body {
            Body::Message { message, .. } => (set, message),
            Body::UserMessage { set, message, .. } => (*set, message),
            Body::Schemaless(_) | Body::Records(_) | Body::Bundle(_) => continue,
        };
        if implied_too_large(set, message, bytes.len()) || !sparse_small(set, message) {
            return true;
        }
    }
    false
}

/// Target `api`: the explorer's request handler (`decode serve`) called
/// directly, without sockets. The input is a flags byte, a little-endian
/// u16 length, that many bytes of up to `API_REQUESTS` requests separated
/// by empty lines (see [`api_request`]), then the file (last, so that an
/// input cut short loses the end of the file, not the requests).
/// Flag 1 serves the file (key `0/file.pb` in a served folder, `1` as a
/// file given by itself); flag 2 uploads it first (key `u1`). Every
/// response is checked by [`check_response`].
pub fn api(bytes: &[u8]) -> Outcome {
    let mut out = Outcome::default();
    let (flags, requests, file) = match bytes {
        [flags, a, b, rest @ ..] => {
            let n = usize::from(u16::from_le_bytes([*a, *b])).min(rest.len());
            let (requests, file) = rest.split_at(n);
            (*flags, requests, file)
        }
        _ => return out,
    };
    if known_slow(file) {
        out.skipped = true;
        return out;
    }
    let Some(dir) = ServedDir::new() else {
        return out;
    };
    let mut paths = Vec::new();
    if flags & 1 != 0 {
        let path = dir.0.join("file.pb");
        if std::fs::write(&path, file).is_err() {
            return out;
        }
        paths.push(dir.0.clone());
        paths.push(path);
    }
    let Ok(handler) = Handler::new(Config {
        paths,
        port: API_PORT,
        max_upload: API_MAX_UPLOAD,
        token: Some(API_TOKEN.to_string()),
        ..Config::default()
    }) else {
        return out;
    };
    let base_headers = base_header_count();
    let answer = |req: &Request, out: &mut Outcome| {
        let resp = handler.respond(req);
        check_response(req, &resp, bytes.len(), base_headers);
        out.rendered += 1;
        out.largest_output = out.largest_output.max(resp.body.len() as u64);
        out.decoded += u32::from(resp.status == 200);
    };
    if flags & 2 != 0
        && let Some(mut upload) = api_request(b"POST /api/upload?name=file.pb")
    {
        upload.body_start = file.to_vec();
        if let Some((_, len)) = upload
            .headers
            .iter_mut()
            .find(|(n, _)| n == "Content-Length")
        {
            *len = file.len().to_string();
        }
        answer(&upload, &mut out);
    }
    for block in requests
        .split(|&b| b == b'\n')
        .collect::<Vec<_>>()
        .split(|l| l.is_empty())
        .take(API_REQUESTS)
    {
        let block = block.join(&b'\n');
        if let Some(req) = api_request(&block) {
            answer(&req, &mut out);
        }
    }
    out
}

// TensorFlow readers: the tensor bundle's table (`tf_bundle`) and record
// files (`tf_record`). Both formats carry masked CRC32Cs that a mutated
// input almost never keeps, so each target can seal its input first (a
// flag bit), to reach what lies behind the checks as well as the checks.

/// A varint64 at `at` in `bytes`: its value and the offset after it.
fn varint_at(bytes: &[u8], mut at: usize) -> Option<(u64, usize)> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(at)?;
        at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some((v, at));
        }
    }
    None
}

/// Rewrites the trailer CRC of the block at `offset` of `size` bytes (its
/// contents and type byte), when the block and trailer lie before the
/// footer.
fn reseal_block(table: &mut [u8], offset: u64, size: u64) {
    use pbdecode::checksum::{crc32c, crc32c_extend, mask};
    let blocks_end = table.len().saturating_sub(48) as u64;
    let (Ok(offset), Ok(size)) = (usize::try_from(offset), usize::try_from(size)) else {
        return;
    };
    let Some(type_at) = offset.checked_add(size) else {
        return;
    };
    if (type_at as u64).saturating_add(5) > blocks_end {
        return;
    }
    let (Some(contents), Some(&kind)) = (table.get(offset..type_at), table.get(type_at)) else {
        return;
    };
    let crc = mask(crc32c_extend(crc32c(contents), &[kind]));
    if let Some(slot) = table.get_mut(type_at + 1..type_at + 5) {
        slot.copy_from_slice(&crc.to_le_bytes());
    }
}

/// The block handles (offset, size) an index block's values hold.
fn index_handles(block: &[u8]) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let Some(n) = block
        .len()
        .checked_sub(4)
        .and_then(|at| block.get(at..))
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map(u32::from_le_bytes)
    else {
        return out;
    };
    let Some(end) = (n as usize)
        .checked_mul(4)
        .and_then(|r| r.checked_add(4))
        .and_then(|r| block.len().checked_sub(r))
    else {
        return out;
    };
    let mut at = 0usize;
    while at < end && out.len() < 4096 {
        let Some((_, a)) = varint_at(block, at) else {
            break;
        };
        let Some((own, a)) = varint_at(block, a) else {
            break;
        };
        let Some((len, a)) = varint_at(block, a) else {
            break;
        };
        let Some(value_at) = usize::try_from(own).ok().and_then(|o| a.checked_add(o)) else {
            break;
        };
        let Some(next) = usize::try_from(len)
            .ok()
            .and_then(|l| value_at.checked_add(l))
        else {
            break;
        };
        if let Some((offset, b)) = varint_at(block, value_at)
            && let Some((size, _)) = varint_at(block, b)
        {
            out.push((offset, size));
        }
        at = next;
    }
    out
}

/// Seals a table: the footer's metaindex and index blocks and every block
/// the index names get the CRC their bytes call for.
pub fn reseal_table(table: &mut [u8]) {
    let Some(footer) = table.len().checked_sub(48) else {
        return;
    };
    let Some((meta_off, a)) = varint_at(table, footer) else {
        return;
    };
    let Some((meta_size, a)) = varint_at(table, a) else {
        return;
    };
    let Some((index_off, a)) = varint_at(table, a) else {
        return;
    };
    let Some((index_size, _)) = varint_at(table, a) else {
        return;
    };
    reseal_block(table, meta_off, meta_size);
    reseal_block(table, index_off, index_size);
    let handles = usize::try_from(index_off)
        .ok()
        .zip(usize::try_from(index_size).ok())
        .and_then(|(o, s)| table.get(o..o.checked_add(s)?))
        .map(index_handles)
        .unwrap_or_default();
    for (offset, size) in handles {
        reseal_block(table, offset, size);
    }
}

/// A folder of its own for the files of one `tf_bundle` input.
struct BundleDir(std::path::PathBuf);

impl BundleDir {
    fn new() -> Option<BundleDir> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("pbdecode-fuzz-bundle-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).ok()?;
        Some(BundleDir(dir))
    }
}

impl Drop for BundleDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Target `tf_bundle`: a tensor bundle's index (`decode ckpt.index`),
/// alone or with a data shard beside it. The input is a flags byte (1:
/// seal the table's block CRCs first; 2: a data shard follows), a
/// little-endian u32 length, that many bytes of index, then the shard's
/// bytes. With a shard, both are written to a folder of their own
/// (`ckpt.index`, the shard as `ckpt.data-00000-of-N` for N = 1 and the
/// header's shard count up to 16); every reading of the index is rendered
/// as text and JSON with that folder, and every tensor of the library's
/// `open` read (values and statistics).
pub fn tf_bundle(bytes: &[u8]) -> Outcome {
    use pbdecode::formats::tf_checkpoint;
    let mut out = Outcome::default();
    let (flags, index, shard) = match bytes {
        [flags, a, b, c, d, rest @ ..] => {
            let n = usize::try_from(u32::from_le_bytes([*a, *b, *c, *d]))
                .unwrap_or(usize::MAX)
                .min(rest.len());
            let (index, shard) = rest.split_at(n);
            (*flags, index, shard)
        }
        _ => return out,
    };
    let mut index = index.to_vec();
    if flags & 1 != 0 {
        reseal_table(&mut index);
    }
    let fopts = FormatOptions::default();
    let folder = if flags & 2 != 0 {
        let Some(dir) = BundleDir::new() else {
            return out;
        };
        let mut shards = vec![1i64];
        if let Ok(b) = tf_checkpoint::read_bundle(&index, &fopts) {
            let n = tf_checkpoint::num_shards(SchemaSet::builtin(), &b.header);
            if (2..=16).contains(&n) {
                shards.push(n);
            }
        }
        let mut ok = std::fs::write(dir.0.join("ckpt.index"), &index).is_ok();
        for n in shards {
            let name = tf_checkpoint::shard_name("ckpt", 0, n);
            ok &= std::fs::write(dir.0.join(name), shard).is_ok();
        }
        if !ok {
            return out;
        }
        Some(dir)
    } else {
        None
    };
    let decodings = formats::detect(&index, &fopts).ok().into_iter().chain(
        formats::find("tf-checkpoint").and_then(|f| formats::decode_as(f, &index, &fopts).ok()),
    );
    for d in decodings {
        out.decoded += 1;
        for mut ropts in option_sets(true) {
            ropts.dir = folder.as_ref().map(|f| f.0.clone().into());
            let mut w = Capped::default();
            let _ = text::write_decoded(&mut w, &d, &ropts);
            out.add(&w);
            let mut w = Capped::default();
            let _ = json::write_decoded(&mut w, &d, &ropts);
            out.add(&w);
        }
    }
    if let Some(dir) = &folder
        && let Ok(doc) = pbdecode::open(dir.0.join("ckpt.index"))
    {
        for r in doc.tensors() {
            if let Ok(t) = doc.tensor(r) {
                let _ = t.values();
                let _ = t.stats();
            }
        }
    }
    out
}

/// The bytes of one record, its CRCs right: length, its masked CRC, data,
/// its masked CRC.
fn framed(data: &[u8]) -> Vec<u8> {
    use pbdecode::checksum::{crc32c, mask};
    let len = (data.len() as u64).to_le_bytes();
    let mut out = len.to_vec();
    out.extend_from_slice(&mask(crc32c(&len)).to_le_bytes());
    out.extend_from_slice(data);
    out.extend_from_slice(&mask(crc32c(data)).to_le_bytes());
    out
}

/// Target `tf_record`: a TensorFlow record file (`decode data.tfrecord`,
/// an event file). The input is a mode byte, then the stream: with mode
/// bit 4 the bytes as they are, else records as a little-endian u16 length
/// and that many bytes each, framed here with their CRCs (bytes after the
/// last whole one appended as they are: a cut record); mode & 3 then
/// compresses the stream (1 GZIP, 2 ZLIB). The file is rendered as text and
/// JSON, written as JSON Lines (`--jsonl`), its pictures (`--picture`),
/// series (the explorer's charts) and batch line read.
pub fn tf_record(bytes: &[u8]) -> Outcome {
    use flate2::Compression as Level;
    use pbdecode::formats::records::{Compression, RecordReader};
    use pbdecode::formats::tf_record;
    let mut out = Outcome::default();
    let Some((&mode, rest)) = bytes.split_first() else {
        return out;
    };
    let stream = if mode & 4 != 0 {
        rest.to_vec()
    } else {
        let mut stream = Vec::new();
        let mut left = rest;
        while let [a, b, tail @ ..] = left {
            let n = usize::from(u16::from_le_bytes([*a, *b]));
            let Some((data, after)) = tail.split_at_checked(n) else {
                break;
            };
            stream.extend(framed(data));
            left = after;
        }
        stream.extend_from_slice(left);
        stream
    };
    let file = match mode & 3 {
        1 => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), Level::fast());
            let _ = e.write_all(&stream);
            e.finish().unwrap_or_default()
        }
        2 => {
            let mut e = flate2::write::ZlibEncoder::new(Vec::new(), Level::fast());
            let _ = e.write_all(&stream);
            e.finish().unwrap_or_default()
        }
        _ => stream,
    };
    // The reader alone, as each compression, whatever the file looks like.
    for c in [Compression::None, Compression::Gzip, Compression::Zlib] {
        for r in RecordReader::new(&file, c, None).take(1 << 16) {
            if r.is_err() {
                break;
            }
        }
    }
    let fopts = FormatOptions::default();
    let decodings = formats::detect(&file, &fopts).ok().into_iter().chain(
        formats::find(tf_record::ID).and_then(|f| formats::decode_as(f, &file, &fopts).ok()),
    );
    for d in decodings {
        out.decoded += 1;
        render_all(&d, file.len(), &mut out);
        let Body::Records(records) = &d.body else {
            continue;
        };
        for ropts in option_sets(true) {
            let mut w = Capped::default();
            let path = std::path::Path::new("f.tfrecord");
            let _ = json::write_record_lines(&mut w, path, d.format, records, &ropts);
            out.add(&w);
        }
        let mut pictures = 0u64;
        for r in records.records() {
            let Ok(r) = r else { break };
            let payload = tf_record::read_payload(records.kind, &r.data, r.data_offset());
            let _ = tf_record::record_pictures(r.index, &payload, &mut |p| {
                pictures += 1;
                let _ = tf_record::image_size(p.bytes);
                std::ops::ControlFlow::Continue(())
            });
        }
        let _ = tf_record::series(records, 1000);
        let _ = tf_record::line(records);
    }
    out
}

/// Target `text_format`: the input read as protobuf's text format, as
/// `--as auto` and each `--as FORMAT` read it (a text file's binary form,
/// then detected, validated and rendered as a binary file is, its errors
/// placed in the text); then each message it reads as written back as
/// text (`decode convert`) and read again, which must give the same
/// message (a round trip is stable).
pub fn text_format(bytes: &[u8]) -> Outcome {
    use pbdecode::decode::{DecodeContext, decode_message};
    use pbdecode::formats::AsFormat;
    use pbdecode::input::InputBytes;
    use pbdecode::render::textproto::write_text_format;
    use pbdecode::syntax::WireInput;
    use std::sync::Arc;

    let mut out = Outcome::default();
    if !pbdecode::text_format::looks_like_text(bytes) {
        return out;
    }
    let input = Arc::new(InputBytes::Owned(bytes.to_vec()));
    let fopts = FormatOptions::default();
    let set = SchemaSet::builtin();
    let asks = std::iter::once(AsFormat::Auto).chain(REGISTRY.iter().map(AsFormat::Format));
    for asked in asks {
        let wire = match WireInput::new(input.clone(), asked) {
            Ok(w) => w,
            Err(r) => {
                // Every error of a text is placed at a line and column.
                let _ = r.error.line_column().expect("a text's error has a line");
                continue;
            }
        };
        let Some(text) = &wire.text else { continue };
        let binary = wire.binary.bytes();
        let decoded = match asked {
            AsFormat::Auto => {
                formats::detect(binary, &fopts).map_err(|r| wire.place_rejection(r).error)
            }
            AsFormat::Format(f) => formats::decode_as(f, binary, &fopts).map_err(|e| wire.place(e)),
        };
        match decoded {
            Ok(d) => {
                out.decoded += 1;
                render_all(&d, binary.len(), &mut out);
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
        // The round trip: the message as text, read again.
        let root = text.reading.root;
        let Ok(first) = decode_message(set, root, binary, 0, DecodeContext::lenient()) else {
            continue;
        };
        let mut written = Vec::new();
        if write_text_format(&mut written, set, &first).is_err() {
            continue;
        }
        let again =
            pbdecode::text_format::encode(set, root, &written, pbdecode::decode::DEFAULT_DEPTH)
                .unwrap_or_else(|e| {
                    panic!(
                        "the text written of a message does not read back: {e}\n{}",
                        String::from_utf8_lossy(&written)
                    )
                });
        let second = decode_message(set, root, &again, 0, DecodeContext::lenient())
            .expect("the text written of a message reads back as that message");
        // The same message: the same text (map entries are written sorted
        // by key, so a text whose entries were in another order gives
        // other bytes but the same text).
        let mut rewritten = Vec::new();
        write_text_format(&mut rewritten, set, &second)
            .expect("the message read back writes as text");
        assert!(
            written == rewritten,
            "a round trip through text changed the message:\n{}\n---\n{}",
            String::from_utf8_lossy(&written),
            String::from_utf8_lossy(&rewritten)
        );
    }
    out
}

/// Target `facade`: the calls the Python package makes (`python/src/lib.rs`
/// on the library's facade) on mutated input: the document opened from
/// bytes, or from a file in a folder with the input's second part as a
/// side file beside it (a bundle's shard, ONNX external data); then for
/// every tensor its facts, stored bytes, values (with `allow_implied` when
/// the flags say so), statistics, and the document's JSON and text. Meant
/// to run under an address-space limit (`ulimit -v`, without a sanitizer):
/// a buffer the input asks for that the system refuses is an error, never
/// an abort. The input: a flags byte (1: allow implied values; 2: open
/// from a folder), a little-endian u16 length, that many bytes of file,
/// then the side file.
pub fn facade(bytes: &[u8]) -> Outcome {
    let mut out = Outcome::default();
    let (flags, file, side) = match bytes {
        [flags, a, b, rest @ ..] => {
            let n = usize::from(u16::from_le_bytes([*a, *b])).min(rest.len());
            let (file, side) = rest.split_at(n);
            (*flags, file, side)
        }
        _ => return out,
    };
    let dir = if flags & 2 != 0 {
        let Some(dir) = BundleDir::new() else {
            return out;
        };
        let ok = std::fs::write(dir.0.join("model.ckpt.index"), file).is_ok()
            && std::fs::write(dir.0.join("model.ckpt.data-00000-of-00001"), side).is_ok()
            && std::fs::write(dir.0.join("weights.bin"), side).is_ok();
        if !ok {
            return out;
        }
        Some(dir)
    } else {
        None
    };
    let doc = match &dir {
        Some(d) => pbdecode::open(d.0.join("model.ckpt.index")),
        None => pbdecode::read_shared(std::sync::Arc::from(file)),
    };
    let Ok(doc) = doc else {
        return out;
    };
    out.decoded += 1;
    let mut opts = pbdecode::ValueOptions::default();
    opts.allow_implied = flags & 1 != 0;
    for r in doc.tensors() {
        let Ok(t) = doc.tensor(r) else {
            continue;
        };
        let _ = (
            t.name(),
            t.role(),
            t.data_type(),
            t.dims(),
            t.shape(),
            t.len(),
            t.storage(),
        );
        let _ = t.stored_array();
        let _ = t.stats();
        // Every value, unless they are many and implied (a 61-byte Const
        // of shape [2^34]): then only a size past any buffer, which must be
        // refused at once (numpy's "array is too big").
        let width = t
            .data_type()
            .and_then(|d| d.size_bits())
            .map_or(64, |b| u64::from(b.max(8)));
        let bytes_needed = t.len().saturating_mul(width / 8);
        if bytes_needed <= 64 << 20 || !opts.allow_implied {
            match t.values_with(opts) {
                Ok(v) => assert!(v.len() as u64 <= t.len(), "more values than elements"),
                Err(pbdecode::Error::Memory(_)) => {}
                Err(_) => {}
            }
        } else if bytes_needed > isize::MAX as u64 {
            assert!(
                matches!(t.values_with(opts), Err(pbdecode::Error::Memory(_))),
                "{} values of {} bytes were not refused as too big",
                t.len(),
                width / 8
            );
        }
    }
    for values in [Some(16), None] {
        let mut w = Capped::default();
        let mut opts = pbdecode::JsonOptions::default();
        (opts.values, opts.stats) = (values, true);
        let _ = doc.write_json(&mut w, &opts);
        out.add(&w);
    }
    let mut w = Capped::default();
    let mut opts = pbdecode::TextOptions::default();
    (opts.values, opts.stats, opts.histogram) = (Some(16), true, true);
    let _ = doc.write_text(&mut w, &opts);
    out.add(&w);
    out
}
