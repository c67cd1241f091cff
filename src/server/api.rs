//! The endpoints. Everything decoded is written by the library's renderers
//! (the JSON contract, the text view, the picture code), so the page shows
//! what the command line shows.

use super::files::{Listed, OpenFile, Refusal};
use super::http::{Request, Response};
use super::state::State;
use crate::api::{self, Document, Reading};
use crate::decode::Message;
use crate::error::DecodeError;
use crate::formats::{self, AsFormat, Body, Decoded, FormatOptions};
use crate::render::schemaless::{PageLimits, write_json_page};
use crate::render::{RenderOptions, json, text};
use crate::schema::{FullName, SchemaSet};
use crate::schemaless::{self, Branch};
use crate::tensor::{Element, Elements, LoadedValues, Source, TensorData, TensorView, load_values};
use crate::{picture, stats};
use std::io::Write;

const INDEX_HTML: &str = include_str!("../../web/index.html");
const APP_JS: &str = include_str!("../../web/app.js");
const APP_CSS: &str = include_str!("../../web/app.css");
const ICON_SVG: &str = include_str!("../../web/icon.svg");

/// Values sent per tensor in the decoded file's JSON (the page fetches the
/// rest page by page).
const PREVIEW_VALUES: u64 = 8;
/// The most values one request returns.
const MAX_PAGE: u64 = 100_000;
/// The most bytes one hex request returns.
const MAX_HEX: u64 = 1 << 16;
/// The schemaless field tree, sent a page at a time whatever the file's
/// size: fields of one level per page (the most a request may ask for)...
const TREE_PAGE: usize = 200;
const MAX_TREE_PAGE: usize = 1000;
/// ... fields in one answer (nested pages included)...
const TREE_ANSWER: usize = 1000;
/// ... and bytes of one string or bytes value (the hex view has the rest).
const TREE_VALUE_BYTES: usize = 256;
/// Levels below the root whose first page comes with the file.
const TREE_OPEN_LEVELS: u32 = 2;
/// The most bytes of values (both arrays) one values request returns:
/// the padding rule repeats a stored string, so a page of `MAX_PAGE` values
/// is no bound by itself.
const MAX_VALUES_BYTES: usize = 4 << 20;

/// The page, with the token for its requests (empty: the page uses the
/// one it kept).
pub(super) fn page(token: &str) -> Response {
    Response::new(
        200,
        "text/html; charset=utf-8",
        INDEX_HTML.replace("{{TOKEN}}", token).into_bytes(),
    )
}

/// The page's script, style and icon: the same for everyone, no secret.
pub(super) fn is_asset(path: &str) -> bool {
    matches!(path, "/app.js" | "/app.css" | "/icon.svg")
}

pub(super) fn get(state: &State, req: &Request) -> Response {
    match req.path.as_str() {
        "/app.js" => Response::new(
            200,
            "text/javascript; charset=utf-8",
            APP_JS.as_bytes().to_vec(),
        ),
        "/app.css" => Response::new(200, "text/css; charset=utf-8", APP_CSS.as_bytes().to_vec()),
        "/icon.svg" => Response::new(200, "image/svg+xml", ICON_SVG.as_bytes().to_vec()),
        "/api/files" => files(state),
        "/api/open" => with_file(state, req, open),
        "/api/text" => with_file(state, req, text_view),
        "/api/hex" => with_file(state, req, hex),
        "/api/fields" => with_file(state, req, fields),
        "/api/tensor" => with_file(state, req, tensor_info),
        "/api/values" => with_file(state, req, values),
        "/api/stats" => with_file(state, req, tensor_stats),
        "/api/picture" => with_file(state, req, tensor_picture),
        _ => Response::error(404, "no such page"),
    }
}

fn refusal(r: Refusal) -> Response {
    match r {
        Refusal::NotFound(m) => Response::error(404, &m),
        Refusal::Forbidden(m) => Response::error(403, &m),
        Refusal::CutShort(m) => Response::error(409, &m),
        Refusal::Io(e) => Response::error(500, &e.to_string()),
    }
}

fn with_file(
    state: &State,
    req: &Request,
    f: fn(&State, &Request, &OpenFile) -> Response,
) -> Response {
    let Some(key) = req.param("f") else {
        return Response::error(400, "which file? (f=KEY)");
    };
    match state.files.open(key) {
        Ok(file) => f(state, req, &file),
        Err(r) => refusal(r),
    }
}

pub(super) fn close(state: &State, req: &Request) -> Response {
    let Some(key) = req.param("f") else {
        return Response::error(400, "which file? (f=KEY)");
    };
    if state.files.close(key) {
        Response::json(b"{\"closed\": true}\n".to_vec())
    } else {
        Response::error(404, &format!("no open upload {key:?}"))
    }
}

fn listed_json(w: &mut Vec<u8>, l: &Listed) {
    let _ = write!(w, "{{\"key\": ");
    let _ = json::string(w, &l.key);
    let _ = write!(w, ", \"name\": ");
    let _ = json::string(w, &l.name);
    let _ = write!(w, ", \"size\": {}}}", l.size);
}

pub(super) fn listed_response(l: &Listed) -> Response {
    let mut w = Vec::new();
    listed_json(&mut w, l);
    w.push(b'\n');
    Response::json(w)
}

fn files(state: &State) -> Response {
    let (list, truncated) = state.files.list();
    let mut w = Vec::new();
    let _ = write!(w, "{{\"roots\": [");
    for (i, r) in state.files.roots.iter().enumerate() {
        if i > 0 {
            w.extend_from_slice(b", ");
        }
        let _ = json::string(&mut w, &r.given.display().to_string());
    }
    let _ = write!(w, "], \"truncated\": {truncated}, \"files\": [");
    for (i, l) in list.iter().enumerate() {
        if i > 0 {
            w.extend_from_slice(b", ");
        }
        listed_json(&mut w, l);
    }
    let _ = writeln!(w, "]}}");
    Response::json(w)
}

fn error_json(w: &mut Vec<u8>, e: &DecodeError) {
    let _ = write!(w, "{{\"check\": ");
    let _ = json::string(w, e.check());
    let _ = write!(w, ", \"path\": ");
    let _ = json::string(w, &e.path_string());
    let _ = write!(w, ", \"offset\": {}, \"reason\": ", e.offset());
    let _ = json::string(w, &e.message());
    let _ = write!(w, ", \"message\": ");
    let _ = json::string(w, &e.to_string());
    let _ = write!(w, "}}");
}

/// Why a file did not decode as asked.
enum Failure {
    /// `--as auto` turned it down: the deciding error and each format's.
    Rejected(formats::Rejection),
    /// `--as FORMAT`: why it does not fit.
    NotThis(&'static str, DecodeError),
    BadFormat(String),
}

/// The format asked for (`as=auto` or an id), decoded as the command line
/// decodes it; a schemaless reading's tree is built only when `tree` says
/// so (the field tree's pages read it again a level at a time).
fn decode<'a>(req: &Request, bytes: &'a [u8], tree: bool) -> Result<Decoded<'a>, Failure> {
    let fopts = FormatOptions {
        tree,
        ..FormatOptions::default()
    };
    match AsFormat::parse(asked(req)) {
        Some(AsFormat::Auto) => formats::detect(bytes, &fopts).map_err(Failure::Rejected),
        Some(AsFormat::Format(f)) => {
            formats::decode_as(f, bytes, &fopts).map_err(|e| Failure::NotThis(f.id, e))
        }
        None => Err(Failure::BadFormat(format!(
            "unknown format {:?}; one of: {}",
            asked(req),
            AsFormat::all()
                .map(AsFormat::id)
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// The `as` parameter: `auto` or a format id (`auto` when absent).
fn asked(req: &Request) -> &str {
    req.param("as").unwrap_or(AsFormat::AUTO)
}

/// Whether the format is detected (`as` absent or `auto`).
fn detected(req: &Request) -> bool {
    asked(req) == AsFormat::AUTO
}

fn failure_json(w: &mut Vec<u8>, f: &Failure) {
    match f {
        Failure::Rejected(r) => {
            let _ = write!(w, "\"ok\": false, \"error\": ");
            error_json(w, &r.error);
            let _ = write!(w, ", \"tried\": [");
            for (i, (id, e)) in r.tried.iter().enumerate() {
                if i > 0 {
                    w.extend_from_slice(b", ");
                }
                let _ = write!(w, "{{\"format\": ");
                let _ = json::string(w, id);
                let _ = write!(w, ", \"error\": ");
                error_json(w, e);
                let _ = write!(w, "}}");
            }
            let _ = write!(w, "]");
        }
        Failure::NotThis(id, e) => {
            let _ = write!(w, "\"ok\": false, \"format\": ");
            let _ = json::string(w, id);
            let _ = write!(w, ", \"error\": ");
            error_json(w, e);
        }
        Failure::BadFormat(m) => {
            let _ = write!(
                w,
                "\"ok\": false, \"error\": {{\"check\": \"usage\", \"path\": \"\", \"offset\": 0, \"reason\": "
            );
            let _ = json::string(w, m);
            let _ = write!(w, ", \"message\": ");
            let _ = json::string(w, m);
            let _ = write!(w, "}}");
        }
    }
}

fn values_param(req: &Request, default: Option<u64>) -> Result<Option<u64>, Response> {
    match req.param("values") {
        None => Ok(default),
        Some("all") => Ok(None),
        Some(n) => n
            .parse::<u64>()
            .map(Some)
            .map_err(|_| Response::error(400, "values takes a number or `all`")),
    }
}

fn storage(view: &TensorView<'_, '_>) -> &'static str {
    match view.data {
        TensorData::Raw(_) => "raw",
        TensorData::Typed { .. } | TensorData::PaddedBytes(_) => "typed",
        TensorData::Strings { .. } => "strings",
        TensorData::External(_) => "external",
        TensorData::Zeros => "zeros",
        TensorData::Unavailable(_) => "unavailable",
        TensorData::None => "none",
    }
}

fn dims_json(w: &mut Vec<u8>, dims: &Option<Vec<i64>>) {
    match dims {
        None => w.extend_from_slice(b"null"),
        Some(d) => {
            let _ = write!(w, "[");
            for (i, x) in d.iter().enumerate() {
                if i > 0 {
                    w.extend_from_slice(b", ");
                }
                let _ = write!(w, "{x}");
            }
            let _ = write!(w, "]");
        }
    }
}

/// The short facts of a tensor (no values read).
fn tensor_head_json(
    w: &mut Vec<u8>,
    index: usize,
    name: &str,
    initializer: bool,
    view: &TensorView<'_, '_>,
    full_name: &FullName,
) {
    let _ = write!(w, "{{\"index\": {index}, \"name\": ");
    let _ = json::string(w, name);
    let _ = write!(w, ", \"initializer\": {initializer}, \"message\": ");
    let _ = json::string(w, &full_name.to_string());
    let _ = write!(w, ", \"dtype\": ");
    let _ = json::string(w, &view.type_name);
    let _ = write!(w, ", \"dims\": ");
    dims_json(w, &view.dims);
    let _ = write!(w, ", \"elements\": {}, \"storage\": ", view.elements);
    let _ = json::string(w, storage(view));
    let _ = write!(w, "}}");
}

/// `/api/open?f&as&values`: the file decoded as the command line decodes
/// it, as `{"file", "as", "formats", "ok", ...}` with the contract JSON
/// under `decoded`, the tensors it holds, and what detection passed over.
fn open(_state: &State, req: &Request, file: &OpenFile) -> Response {
    let values = match values_param(req, Some(PREVIEW_VALUES)) {
        Ok(v) => v,
        Err(r) => return r,
    };
    let bytes = file.bytes.bytes();
    let mut w = Vec::with_capacity(1 << 16);
    let _ = write!(w, "{{\"file\": {{\"key\": ");
    let _ = json::string(&mut w, &file.key);
    let _ = write!(w, ", \"name\": ");
    let _ = json::string(&mut w, &file.name);
    let _ = write!(w, ", \"size\": {}}}, \"as\": ", bytes.len());
    let _ = json::string(&mut w, asked(req));
    let _ = write!(w, ", \"formats\": [");
    for (i, f) in formats::REGISTRY.iter().enumerate() {
        if i > 0 {
            w.extend_from_slice(b", ");
        }
        let _ = write!(w, "{{\"id\": ");
        let _ = json::string(&mut w, f.id);
        let _ = write!(w, ", \"title\": ");
        let _ = json::string(&mut w, f.title);
        let _ = write!(w, "}}");
    }
    let _ = write!(w, "], ");
    let decoded = match decode(req, bytes, false) {
        Ok(d) => d,
        Err(f) => {
            failure_json(&mut w, &f);
            let _ = writeln!(w, "}}");
            return Response::json(w);
        }
    };
    let _ = write!(w, "\"ok\": true, \"format\": ");
    let _ = json::string(&mut w, decoded.format.id);
    let _ = write!(w, ", \"title\": ");
    let _ = json::string(&mut w, decoded.format.title);
    let _ = write!(w, ", \"passed_over\": [");
    for (i, (f, e)) in decoded.passed_over.iter().enumerate() {
        if i > 0 {
            w.extend_from_slice(b", ");
        }
        let _ = write!(w, "{{\"format\": ");
        let _ = json::string(&mut w, f.id);
        let _ = write!(w, ", \"error\": ");
        error_json(&mut w, e);
        let _ = write!(w, "}}");
    }
    let _ = write!(w, "], \"notes\": [");
    let mut notes: Vec<String> = Vec::new();
    if decoded.format.id == formats::SCHEMALESS_ID && detected(req) {
        for (f, e, shown) in formats::near_misses(&decoded, bytes, &FormatOptions::default()) {
            let hint = if shown {
                format!(" ({} shows it anyway)", f.id)
            } else {
                String::new()
            };
            notes.push(format!("not read as {}: {e}{hint}", f.id));
        }
    }
    // Only a format named with `as` can take a file whose tensors break
    // its rules (as on the command line).
    if !detected(req) {
        for problem in formats::tensor_problems(&decoded.body) {
            notes.push(format!("shown as {} anyway: {problem}", decoded.format.id));
        }
    }
    for (i, n) in notes.iter().enumerate() {
        if i > 0 {
            w.extend_from_slice(b", ");
        }
        let _ = json::string(&mut w, n);
    }
    let _ = write!(w, "], \"tensors\": [");
    let set = SchemaSet::builtin();
    if let Body::Message { message, .. } = &decoded.body {
        let named = formats::named_tensors(set, message);
        // The document, kept for the requests for tensors that follow.
        let doc = document_of(req, file, &decoded);
        if let Ok(mut c) = file.cache.lock() {
            c.insert(asked(req).to_string(), doc);
        }
        for (i, t) in named.iter().enumerate() {
            if i > 0 {
                w.extend_from_slice(b", ");
            }
            match t.view(set) {
                Some(view) => tensor_head_json(
                    &mut w,
                    i,
                    &t.name,
                    t.initializer,
                    &view,
                    &t.message.def(set).full_name,
                ),
                None => {
                    let _ = write!(w, "null");
                }
            }
        }
    }
    let _ = write!(w, "], \"decoded\": ");
    let ropts = RenderOptions {
        values,
        dir: file.dir.clone(),
        ..RenderOptions::default()
    };
    if let Err(e) = write_decoded_preview(&mut w, bytes, &decoded, &ropts) {
        return Response::error(500, &e.to_string());
    }
    let _ = writeln!(w, "}}");
    Response::json(w)
}

/// The contract JSON. With every value (`values=all`) exactly the command
/// line's `--json`; with a preview, the root message is written as a
/// nested one, so that a tensor file's statistics are not computed here
/// (a pass over 64M values): the page asks /api/stats for them.
fn write_decoded_preview(
    w: &mut Vec<u8>,
    bytes: &[u8],
    decoded: &Decoded<'_>,
    ropts: &RenderOptions,
) -> std::io::Result<()> {
    let (type_name, message, also) = match &decoded.body {
        Body::Message {
            type_name,
            message,
            also,
        } => (type_name, message, also),
        // The field tree's first page, never the whole tree.
        Body::Schemaless(_) => {
            write!(w, "{{\"format\": ")?;
            json::string(w, decoded.format.id)?;
            write!(w, ", \"type\": null, ")?;
            let level =
                schemaless::read_level(bytes, Branch::root(bytes.len() as u64), tree_options())
                    .map_err(|e| std::io::Error::other(e.to_string()))?;
            let mut budget = TREE_ANSWER;
            let limits = tree_limits(TREE_PAGE, TREE_OPEN_LEVELS);
            write_json_page(w, bytes, &level, 0, limits, &mut budget, &tree_render())?;
            return writeln!(w, "}}");
        }
        Body::UserMessage { .. } => return json::write_decoded(w, decoded, ropts),
    };
    if ropts.values.is_none() {
        return json::write_decoded(w, decoded, ropts);
    }
    write!(w, "{{\"format\": ")?;
    json::string(w, decoded.format.id)?;
    write!(w, ", \"type\": ")?;
    json::string(w, type_name)?;
    if !also.is_empty() {
        write!(w, ", \"also\": [")?;
        for (i, a) in also.iter().enumerate() {
            if i > 0 {
                write!(w, ", ")?;
            }
            json::string(w, a)?;
        }
        write!(w, "]")?;
    }
    write!(w, ", \"value\": ")?;
    json::write_message(w, SchemaSet::builtin(), message, ropts)?;
    writeln!(w, "}}")
}

/// The schemaless reading's options (the command line's defaults).
fn tree_options() -> schemaless::Options {
    schemaless::Options {
        max_depth: FormatOptions::default().max_depth,
    }
}

/// How the tree's fields are written: with their byte ranges, and a
/// packed field's first values only, whatever `values` the file asked for.
fn tree_render() -> RenderOptions {
    RenderOptions {
        values: Some(PREVIEW_VALUES),
        offsets: true,
        ..RenderOptions::default()
    }
}

fn tree_limits(per_level: usize, nested_levels: u32) -> PageLimits {
    PageLimits {
        per_level,
        per_answer: TREE_ANSWER,
        nested_levels,
        value_bytes: TREE_VALUE_BYTES,
    }
}

/// `/api/fields?f&branch&from&count`: a page of one level of the
/// schemaless field tree: `count` fields (at most 1000) from the first at
/// byte offset `from` or after it, of the level `branch` names (an address
/// the tree's answers carry; the root when absent). Only that level's
/// bytes are read, so a page costs what its level holds, never the file.
fn fields(_state: &State, req: &Request, file: &OpenFile) -> Response {
    let bytes = file.bytes.bytes();
    let branch = match req.param("branch") {
        None => Branch::root(bytes.len() as u64),
        Some(b) => match Branch::parse(b) {
            Some(b) => b,
            None => return Response::error(400, "branch takes KIND:DEPTH:OFFSET:LENGTH"),
        },
    };
    let (from, count) = match (
        num_param(req, "from", 0),
        num_param(req, "count", TREE_PAGE as u64),
    ) {
        (Ok(f), Ok(c)) => (
            f,
            usize::try_from(c).unwrap_or(usize::MAX).min(MAX_TREE_PAGE),
        ),
        (Err(r), _) | (_, Err(r)) => return r,
    };
    let level = match schemaless::read_level(bytes, branch, tree_options()) {
        Ok(l) => l,
        Err(e) => {
            let mut w = Vec::new();
            let _ = write!(w, "{{\"ok\": false, \"error\": ");
            error_json(&mut w, &e);
            let _ = writeln!(w, "}}");
            return Response::new(422, "application/json; charset=utf-8", w);
        }
    };
    let mut w = Vec::with_capacity(1 << 14);
    let _ = write!(w, "{{");
    let mut budget = TREE_ANSWER;
    let limits = tree_limits(count, 0);
    if let Err(e) = write_json_page(
        &mut w,
        bytes,
        &level,
        from,
        limits,
        &mut budget,
        &tree_render(),
    ) {
        return Response::error(500, &e.to_string());
    }
    let _ = writeln!(w, "}}");
    Response::json(w)
}

/// `/api/text?f&as&values`: the command line's text view (with the dense
/// view of sparse tensors).
fn text_view(_state: &State, req: &Request, file: &OpenFile) -> Response {
    let values = match values_param(req, None) {
        Ok(v) => v,
        Err(r) => return r,
    };
    let decoded = match decode(req, file.bytes.bytes(), true) {
        Ok(d) => d,
        Err(f) => {
            let mut w = Vec::new();
            let _ = write!(w, "{{");
            failure_json(&mut w, &f);
            let _ = writeln!(w, "}}");
            return Response::new(422, "application/json; charset=utf-8", w);
        }
    };
    let ropts = RenderOptions {
        values,
        dir: file.dir.clone(),
        dense: true,
        ..RenderOptions::default()
    };
    let mut w = Vec::new();
    if let Err(e) = text::write_decoded(&mut w, &decoded, &ropts) {
        return Response::error(500, &e.to_string());
    }
    Response::new(200, "text/plain; charset=utf-8", w)
}

fn num_param(req: &Request, name: &str, default: u64) -> Result<u64, Response> {
    match req.param(name) {
        None => Ok(default),
        Some(v) => v
            .parse::<u64>()
            .map_err(|_| Response::error(400, &format!("{name} takes a number"))),
    }
}

/// `/api/hex?f&offset&count`: raw bytes as hex (at most 64 KiB).
fn hex(_state: &State, req: &Request, file: &OpenFile) -> Response {
    let bytes = file.bytes.bytes();
    let (offset, count) = match (num_param(req, "offset", 0), num_param(req, "count", 4096)) {
        (Ok(o), Ok(c)) => (o, c.min(MAX_HEX)),
        (Err(r), _) | (_, Err(r)) => return r,
    };
    let size = bytes.len() as u64;
    let start = offset.min(size);
    let end = start.saturating_add(count).min(size);
    let slice = bytes.get(start as usize..end as usize).unwrap_or(&[]);
    let mut w = Vec::with_capacity(slice.len() * 2 + 64);
    let _ = write!(w, "{{\"offset\": {start}, \"size\": {size}, \"hex\": \"");
    for b in slice {
        let _ = write!(w, "{b:02x}");
    }
    let _ = writeln!(w, "\"}}");
    Response::json(w)
}

/// Finds the tensor a request names (`t=INDEX` or `name=NAME`) in the
/// file's document and runs `f` on its view, decoding only that tensor's
/// message.
fn with_tensor(
    req: &Request,
    file: &OpenFile,
    f: &mut dyn FnMut(&TensorRef<'_, '_, '_>) -> Response,
) -> Response {
    let doc = match file_document(req, file) {
        Ok(d) => d,
        Err(r) => return r,
    };
    let tensors = doc.tensors();
    let found = match (req.param("t"), req.param("name")) {
        (Some(t), _) => t
            .parse::<usize>()
            .ok()
            .and_then(|i| tensors.get(i).map(|e| (i, e))),
        (None, Some(n)) => tensors.iter().enumerate().find(|(_, e)| e.name == n),
        (None, None) => return Response::error(400, "which tensor? (t=INDEX or name=NAME)"),
    };
    let Some((index, entry)) = found else {
        return Response::error(404, "no such tensor in this file");
    };
    let tensor = match doc.tensor(entry) {
        Ok(t) => t,
        Err(api::Error::Decode(e)) => {
            return Response::error(500, &format!("the tensor no longer decodes: {e}"));
        }
        Err(_) => return Response::error(404, "not a tensor"),
    };
    let message = tensor.message();
    let view = tensor.view();
    f(&TensorRef {
        index,
        name: &entry.name,
        initializer: entry.weight,
        message,
        view: &view,
        full_name: &message.def(SchemaSet::builtin()).full_name,
    })
}

/// A tensor found by [`with_tensor`].
struct TensorRef<'r, 'm, 'a> {
    index: usize,
    name: &'r str,
    initializer: bool,
    message: &'m Message<'a>,
    view: &'r TensorView<'m, 'a>,
    full_name: &'r FullName,
}

/// The file as a document over `decoded` (its bytes read as the request
/// asks).
fn document_of(req: &Request, file: &OpenFile, decoded: &Decoded<'_>) -> Document {
    let reading = Reading {
        asked: AsFormat::parse(asked(req)).unwrap_or(AsFormat::Auto),
        options: FormatOptions::default(),
    };
    Document::from_decoded(file.bytes.clone(), file.dir.clone(), reading, decoded)
}

/// The file's document for the format asked for, made once per file and
/// format.
fn file_document(req: &Request, file: &OpenFile) -> Result<Document, Response> {
    let key = asked(req).to_string();
    if let Some(d) = file.cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
        return Ok(d);
    }
    let decoded = decode(req, file.bytes.bytes(), false).map_err(|_| {
        Response::error(
            422,
            "the file does not decode as asked, so it has no tensors",
        )
    })?;
    let doc = document_of(req, file, &decoded);
    if let Ok(mut c) = file.cache.lock() {
        c.insert(key, doc.clone());
    }
    Ok(doc)
}

/// `/api/tensor`: a tensor's facts, its message as the contract writes it
/// (without values), and how it would be drawn.
fn tensor_info(_state: &State, req: &Request, file: &OpenFile) -> Response {
    with_tensor(req, file, &mut |t| {
        let view = t.view;
        let mut w = Vec::new();
        let _ = write!(w, "{{\"tensor\": ");
        tensor_head_json(&mut w, t.index, t.name, t.initializer, view, t.full_name);
        let _ = write!(w, ", \"unavailable\": ");
        match load_values(view, file.dir.as_deref()) {
            LoadedValues::Unavailable(why) => {
                let _ = json::string(&mut w, &why);
            }
            _ => w.extend_from_slice(b"null"),
        }
        let _ = write!(w, ", \"picture\": ");
        let layout = view.dims.as_deref().and_then(picture::layout);
        match layout {
            Some(l)
                if view
                    .elem
                    .is_some_and(|e| e.is_numeric() || e == crate::tensor::Elem::Bool)
                    && l.elements() == Some(view.elements) =>
            {
                let (cw, ch) = l.canvas().unwrap_or((0, 0));
                let _ = write!(
                    w,
                    "{{\"layout\": \"{}\", \"describe\": ",
                    if l.channels_last { "HWC" } else { "CHW" }
                );
                let _ = json::string(&mut w, &l.describe());
                let _ = write!(
                    w,
                    ", \"tiles\": {}, \"channels\": {}, \"height\": {}, \"width\": {}, \"columns\": {}, \"rows\": {}, \"canvas\": [{cw}, {ch}]}}",
                    l.tiles, l.channels, l.height, l.width, l.columns, l.rows
                );
            }
            _ => w.extend_from_slice(b"null"),
        }
        let _ = write!(w, ", \"value\": ");
        let set = SchemaSet::builtin();
        let ropts = RenderOptions {
            values: Some(0),
            dir: file.dir.clone(),
            ..RenderOptions::default()
        };
        // The message through the contract, values left out (the page
        // fetches them by page).
        if json::write_message(&mut w, set, t.message, &ropts).is_err() {
            return Response::error(500, "writing the tensor failed");
        }
        let _ = writeln!(w, "}}");
        Response::json(w)
    })
}

/// Writes element `e` as its contract JSON text, as a JSON string (so that
/// 64-bit integers reach the page exactly).
fn element_string(w: &mut Vec<u8>, scratch: &mut Vec<u8>, e: Element<'_>) {
    scratch.clear();
    let _ = json::element(scratch, e);
    let _ = json::string(w, &String::from_utf8_lossy(scratch));
}

/// `/api/values?f&as&t&offset&count&rows&stride`: `rows` runs of `count`
/// values, the r-th starting at `offset + r * stride` (a window of the
/// grid), as the contract writes each value.
fn values(_state: &State, req: &Request, file: &OpenFile) -> Response {
    let p = (
        num_param(req, "offset", 0),
        num_param(req, "count", 1000),
        num_param(req, "rows", 1),
        num_param(req, "stride", 0),
    );
    let (offset, count, rows, stride) = match p {
        (Ok(a), Ok(b), Ok(c), Ok(d)) => (a, b, c.max(1), d),
        (Err(r), ..) | (_, Err(r), ..) | (_, _, Err(r), _) | (.., Err(r)) => return r,
    };
    if count.saturating_mul(rows) > MAX_PAGE {
        return Response::error(400, &format!("at most {MAX_PAGE} values per request"));
    }
    let stride = stride.max(count);
    with_tensor(req, file, &mut |t| {
        let view = t.view;
        let total = view.elements;
        let mut w = Vec::with_capacity(16 * (count * rows) as usize + 128);
        let _ = write!(
            w,
            "{{\"offset\": {offset}, \"count\": {count}, \"rows\": {rows}, \"stride\": {stride}, \"total\": {total}, "
        );
        let loaded = load_values(view, file.dir.as_deref());
        let window = Window {
            offset,
            count,
            rows,
            stride,
            total,
        };
        match loaded {
            LoadedValues::Ready(mut it, _) => write_rows(&mut w, &mut it, &window),
            LoadedValues::External(bytes, elem, n) => {
                let mut it = Elements::new(elem, Source::Raw(bytes.bytes()), n);
                write_rows(&mut w, &mut it, &window)
            }
            LoadedValues::Unavailable(why) => {
                return Response::error(422, &format!("values unavailable: {why}"));
            }
            LoadedValues::Nothing => write_rows(&mut w, &mut std::iter::empty(), &window),
        }
        let _ = writeln!(w, "}}");
        Response::json(w)
    })
}

/// A window of a tensor's values: `rows` runs of `count`.
struct Window {
    offset: u64,
    count: u64,
    rows: u64,
    stride: u64,
    total: u64,
}

/// Writes `"values": [[...], ...], "text": [[...], ...], "truncated": B`:
/// each value as the JSON contract writes it and as the text view prints
/// it, both as JSON strings (64-bit integers reach the page exactly). The
/// rows stop at the first value that would take the two arrays past
/// `MAX_VALUES_BYTES` (`truncated`).
fn write_rows<'e>(w: &mut Vec<u8>, it: &mut dyn Iterator<Item = Element<'e>>, win: &Window) {
    let mut scratch = Vec::with_capacity(64);
    let (mut value, mut text) = (Vec::with_capacity(64), Vec::with_capacity(64));
    let mut texts: Vec<u8> = Vec::new();
    let values_start = w.len();
    let mut truncated = false;
    w.extend_from_slice(b"\"values\": [");
    texts.extend_from_slice(b"\"text\": [");
    // The index of the element `it` yields next.
    let mut pos = 0u64;
    'rows: for r in 0..win.rows {
        let Some(start) = win.offset.checked_add(r.saturating_mul(win.stride)) else {
            break;
        };
        if start >= win.total {
            break;
        }
        if r > 0 {
            w.extend_from_slice(b", ");
            texts.extend_from_slice(b", ");
        }
        w.push(b'[');
        texts.push(b'[');
        let n = win.count.min(win.total - start);
        for k in 0..n {
            let e = if k == 0 {
                it.nth(usize::try_from(start - pos).unwrap_or(usize::MAX))
            } else {
                it.next()
            };
            let Some(e) = e else { break };
            value.clear();
            element_string(&mut value, &mut scratch, e);
            text.clear();
            let _ = json::string(&mut text, &text::element_text(e));
            let used = w.len().saturating_sub(values_start);
            let after = [texts.len(), value.len(), text.len()]
                .iter()
                .fold(used, |a, n| a.saturating_add(*n));
            if after > MAX_VALUES_BYTES {
                truncated = true;
                w.push(b']');
                texts.push(b']');
                break 'rows;
            }
            if k > 0 {
                w.extend_from_slice(b", ");
                texts.extend_from_slice(b", ");
            }
            w.extend_from_slice(&value);
            texts.extend_from_slice(&text);
        }
        pos = start + n;
        w.push(b']');
        texts.push(b']');
    }
    w.extend_from_slice(b"], ");
    w.extend_from_slice(&texts);
    let _ = write!(w, "], \"truncated\": {truncated}");
}

/// `/api/stats`: the statistics and histogram of every value (the
/// command line's `--stats --histogram`).
fn tensor_stats(_state: &State, req: &Request, file: &OpenFile) -> Response {
    with_tensor(req, file, &mut |t| {
        let view = t.view;
        let dir = file.dir.as_deref();
        let mut w = Vec::new();
        let _ = write!(w, "{{\"stats\": ");
        match stats::compute(view, dir) {
            Some(s) if s.is_numeric() => {
                let _ = s.write_json(&mut w);
                let _ = write!(w, ", \"histogram\": ");
                match stats::histogram(view, dir, &s) {
                    Some(h) => {
                        let _ = h.write_json(&mut w);
                    }
                    None => w.extend_from_slice(b"null"),
                }
            }
            _ => w.extend_from_slice(b"null, \"histogram\": null"),
        }
        let _ = writeln!(w, "}}");
        Response::json(w)
    })
}

/// `/api/picture`: the PNG `--picture` writes.
fn tensor_picture(_state: &State, req: &Request, file: &OpenFile) -> Response {
    with_tensor(req, file, &mut |t| {
        let view = t.view;
        match picture::picture(view, file.dir.as_deref()) {
            Ok(pic) => match pic.png_bytes() {
                Ok(png) => Response::new(200, "image/png", png)
                    .with_header("X-Picture", pic.describe())
                    .with_header("X-Nan-Pixels", pic.nan_pixels.to_string()),
                Err(e) => Response::error(500, &e.to_string()),
            },
            Err(e) => Response::error(422, &format!("no picture: {e}")),
        }
    })
}
