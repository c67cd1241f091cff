//! The endpoints that read one file, each a function of the request's
//! parameters and the file ([`super::FileHandler`]). Everything decoded is
//! written by the library's renderers (the JSON contract, the text view,
//! the picture code), so the page shows what the command line shows.

use super::file::ExploredFile;
use super::message::{Query, Response, json_answer};
use crate::api::{self, Document, Reading};
use crate::decode::Message;
use crate::error::DecodeError;
use crate::formats::{self, AsFormat, Body, Decoded, FormatOptions, Syntax};
use crate::json_writer::{JsonWriter, Null, WrittenJson};
use crate::render::schemaless::{PageLimits, write_json_page};
use crate::render::{RenderOptions, fmt, json, text};
use crate::schema::{FullName, SchemaSet};
use crate::schemaless::{self, Branch};
use crate::syntax::WireInput;
use crate::tensor::{Element, Elements, LoadedValues, Source, TensorData, TensorView, load_values};
use crate::{picture, stats};

/// Values sent per tensor in the decoded file's JSON (the page fetches the
/// rest page by page).
/// Values per tensor `/api/open` shows when the request does not say.
pub const PREVIEW_VALUES: u64 = 8;
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

/// A decode error as the page reads it: `{"check", "path", "offset",
/// "reason", "message"}`.
fn error_json(w: &mut JsonWriter<'_>, e: &DecodeError) -> std::io::Result<()> {
    w.begin_object()?;
    error_fields(
        w,
        e.check(),
        &e.path_string(),
        e.offset(),
        &e.message(),
        &e.to_string(),
    )?;
    // In a text-format file: the line and column (1-based).
    if let Some((line, column)) = e.line_column() {
        w.member("line", line)?;
        w.member("column", column)?;
    }
    w.end_object()
}

fn error_members(
    w: &mut JsonWriter<'_>,
    check: &str,
    path: &str,
    offset: u64,
    reason: &str,
    message: &str,
) -> std::io::Result<()> {
    w.begin_object()?;
    error_fields(w, check, path, offset, reason, message)?;
    w.end_object()
}

fn error_fields(
    w: &mut JsonWriter<'_>,
    check: &str,
    path: &str,
    offset: u64,
    reason: &str,
    message: &str,
) -> std::io::Result<()> {
    w.member("check", check)?;
    w.member("path", path)?;
    w.member("offset", offset)?;
    w.member("reason", reason)?;
    w.member("message", message)
}

/// Why a file did not decode as asked.
#[derive(Clone)]
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
fn decode<'a>(req: &Query<'_>, wire: &'a WireInput, tree: bool) -> Result<Decoded<'a>, Failure> {
    let fopts = FormatOptions {
        tree,
        ..FormatOptions::default()
    };
    let bytes = wire.binary.bytes();
    let decoded =
        match as_format(req)? {
            AsFormat::Auto => formats::detect(bytes, &fopts)
                .map_err(|r| Failure::Rejected(wire.place_rejection(r))),
            AsFormat::Format(f) => formats::decode_as(f, bytes, &fopts)
                .map_err(|e| Failure::NotThis(f.id, wire.place(e))),
        }?;
    Ok(Decoded {
        syntax: wire.syntax(),
        ..decoded
    })
}

/// The format the request asks for.
fn as_format(req: &Query<'_>) -> Result<AsFormat, Failure> {
    AsFormat::parse(asked(req)).ok_or_else(|| {
        Failure::BadFormat(format!(
            "unknown format {:?}; one of: {}",
            asked(req),
            AsFormat::all()
                .map(AsFormat::id)
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })
}

/// The bytes the decoders read for the request: the file's own, or a
/// text-format file's binary form.
fn wire_of(req: &Query<'_>, file: &ExploredFile) -> Result<WireInput, Failure> {
    file.wire(as_format(req)?).map_err(Failure::Rejected)
}

/// The `as` parameter: `auto` or a format id (`auto` when absent).
fn asked<'q>(req: &Query<'q>) -> &'q str {
    req.param("as").unwrap_or(AsFormat::AUTO)
}

/// Whether the format is detected (`as` absent or `auto`).
fn detected(req: &Query<'_>) -> bool {
    asked(req) == AsFormat::AUTO
}

/// The members of an answer for a file that did not decode as asked.
fn failure_json(w: &mut JsonWriter<'_>, f: &Failure) -> std::io::Result<()> {
    w.member("ok", false)?;
    match f {
        Failure::Rejected(r) => {
            w.key("error")?;
            error_json(w, &r.error)?;
            w.key("tried")?;
            w.begin_array()?;
            for (id, e) in &r.tried {
                w.begin_object()?;
                w.member("format", *id)?;
                w.key("error")?;
                error_json(w, e)?;
                w.end_object()?;
            }
            w.end_array()
        }
        Failure::NotThis(id, e) => {
            w.member("format", *id)?;
            w.key("error")?;
            error_json(w, e)
        }
        Failure::BadFormat(m) => {
            w.key("error")?;
            error_members(w, "usage", "", 0, m, m)
        }
    }
}

fn values_param(req: &Query<'_>, default: Option<u64>) -> Result<Option<u64>, Response> {
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
        TensorData::Strings { .. } | TensorData::StringRanges { .. } => "strings",
        TensorData::External(_) => "external",
        TensorData::Zeros => "zeros",
        TensorData::Unavailable(_) => "unavailable",
        TensorData::None => "none",
    }
}

/// The short facts of a tensor (no values read).
fn tensor_head_json(
    w: &mut JsonWriter<'_>,
    index: usize,
    name: &str,
    initializer: bool,
    view: &TensorView<'_, '_>,
    full_name: &FullName,
) -> std::io::Result<()> {
    let head = Head {
        index,
        name,
        initializer,
        message: full_name.to_string(),
        dtype: &view.type_name,
        dims: view.dims.as_deref(),
        elements: view.elements,
        storage: storage(view),
    };
    head.write(w)
}

/// [`tensor_head_json`] of a tensor bundle's variable, from the facts its
/// index gives (its values are read when it is shown).
fn variable_head_json(
    w: &mut JsonWriter<'_>,
    index: usize,
    entry: &crate::api::TensorRef,
    t: &crate::api::Tensor<'_>,
) -> std::io::Result<()> {
    use crate::api::Storage;
    let head = Head {
        index,
        name: &entry.name,
        initializer: entry.weight,
        message: t.message().def(SchemaSet::builtin()).full_name.to_string(),
        dtype: t.type_name(),
        dims: t.dims(),
        elements: t.len(),
        storage: match t.storage() {
            Storage::Raw => "raw",
            Storage::Typed => "typed",
            Storage::External => "external",
            Storage::Implied => "zeros",
            Storage::Empty => "none",
            Storage::Unavailable => "unavailable",
        },
    };
    head.write(w)
}

/// A tensor's entry in `/api/open`'s list.
struct Head<'a> {
    index: usize,
    name: &'a str,
    initializer: bool,
    message: String,
    dtype: &'a str,
    dims: Option<&'a [i64]>,
    elements: u64,
    storage: &'static str,
}

impl Head<'_> {
    fn write(&self, w: &mut JsonWriter<'_>) -> std::io::Result<()> {
        w.begin_object()?;
        w.member("index", self.index)?;
        w.member("name", self.name)?;
        w.member("initializer", self.initializer)?;
        w.member("message", &*self.message)?;
        w.member("dtype", self.dtype)?;
        w.key("dims")?;
        match self.dims {
            None => w.null()?,
            Some(dims) => {
                w.begin_array()?;
                for d in dims {
                    w.value(*d)?;
                }
                w.end_array()?;
            }
        }
        w.member("elements", self.elements)?;
        w.member("storage", self.storage)?;
        w.end_object()
    }
}

/// `/api/open?f&as&values`: the file decoded as the command line decodes
/// it, as `{"file", "as", "formats", "ok", ...}` with the contract JSON
/// under `decoded`, the tensors it holds, and what detection passed over.
pub(super) fn open(req: &Query<'_>, file: &ExploredFile) -> Response {
    let values = match values_param(req, Some(PREVIEW_VALUES)) {
        Ok(v) => v,
        Err(r) => return r,
    };
    let (wire, failed) = match wire_of(req, file) {
        Ok(w) => (Some(w), None),
        Err(f) => (None, Some(f)),
    };
    let decoded = match (&wire, failed) {
        (Some(w), _) => decode(req, w, false),
        (None, Some(f)) => Err(f),
        (None, None) => Err(Failure::BadFormat("no input".into())),
    };
    let bytes = wire
        .as_ref()
        .map_or_else(|| file.bytes.bytes(), |w| w.binary.bytes());
    // A text-format file (also one no message reads): the page shows its
    // lines (`/api/source`).
    let syntax = match &wire {
        Some(w) => w.syntax(),
        None if crate::text_format::looks_like_text(file.bytes.bytes()) => Syntax::Text,
        None => Syntax::Binary,
    };
    json_answer(200, |w| {
        w.begin_object()?;
        w.key("file")?;
        w.begin_object()?;
        w.member("key", &file.key)?;
        w.member("name", &file.name)?;
        w.member("size", file.bytes.bytes().len())?;
        w.member("syntax", syntax.name())?;
        w.end_object()?;
        w.member("as", asked(req))?;
        w.key("formats")?;
        w.begin_array()?;
        for f in formats::REGISTRY {
            w.begin_object()?;
            w.member("id", f.id)?;
            w.member("title", f.title)?;
            w.end_object()?;
        }
        w.end_array()?;
        let decoded = match &decoded {
            Ok(d) => d,
            Err(f) => {
                if let Failure::Rejected(_) = f {
                    looks_like_json(w, req, file)?;
                }
                failure_json(w, f)?;
                return w.end_object();
            }
        };
        if decoded.format.id == formats::SCHEMALESS_ID {
            looks_like_json(w, req, file)?;
        }
        w.member("ok", true)?;
        w.member("format", decoded.format.id)?;
        w.member("title", decoded.format.title)?;
        w.key("passed_over")?;
        w.begin_array()?;
        for (f, e) in &decoded.passed_over {
            w.begin_object()?;
            w.member("format", f.id)?;
            w.key("error")?;
            error_json(w, e)?;
            w.end_object()?;
        }
        w.end_array()?;
        w.key("notes")?;
        w.begin_array()?;
        if decoded.format.id == formats::SCHEMALESS_ID && detected(req) {
            for (f, e, shown) in formats::near_misses(decoded, bytes, &FormatOptions::default()) {
                let hint = if shown {
                    format!(" ({} shows it anyway)", f.id)
                } else {
                    String::new()
                };
                w.value(&*format!("not read as {}: {e}{hint}", f.id))?;
            }
        }
        // Only a format named with `as` can take a file whose tensors break
        // its rules (as on the command line).
        if !detected(req) {
            for problem in formats::tensor_problems(&decoded.body) {
                w.value(&*format!(
                    "shown as {} anyway: {problem}",
                    decoded.format.id
                ))?;
            }
        }
        w.end_array()?;
        // The document, kept for the requests for tensors that follow.
        let doc = match &decoded.body {
            Body::Message { .. } | Body::Bundle(_) => {
                wire.as_ref().map(|wi| document_of(req, file, wi, decoded))
            }
            Body::Schemaless(_) | Body::UserMessage { .. } | Body::Records(_) => None,
        };
        // What the page shows of the file, from what the file holds (the
        // page names no format): whether the Graph tab has graphs to draw,
        // and which overview the file opens on.
        let graph = crate::graph::model_of(decoded).is_some();
        w.member("graph", graph)?;
        w.member("overview", overview(decoded, doc.as_ref(), graph))?;
        // The summary as the text view prints it, for the page to draw as
        // it is (typed, it is under `decoded`, as in --json).
        w.key("summary_lines")?;
        w.begin_array()?;
        if let Some(doc) = &doc {
            let lines = crate::render::summary::lines(
                decoded.format.id,
                doc.summary(),
                &RenderOptions::default(),
            );
            for line in &lines {
                w.begin_object()?;
                w.member("key", line.key)?;
                w.member("label", line.label)?;
                w.member("text", &line.text)?;
                w.end_object()?;
            }
        }
        w.end_array()?;
        w.key("tensors")?;
        w.begin_array()?;
        let set = SchemaSet::builtin();
        if let Some(doc) = doc {
            let named = match &decoded.body {
                Body::Message { message, .. } => formats::named_tensors(set, message),
                _ => Vec::new(),
            };
            for (i, t) in named.iter().enumerate() {
                match t.view(set) {
                    Some(view) => tensor_head_json(
                        w,
                        i,
                        &t.name,
                        t.initializer,
                        &view,
                        &t.message.def(set).full_name,
                    )?,
                    None => w.null()?,
                }
            }
            // A tensor bundle's variables, and a SavedModel's (their values
            // in `variables/` beside it, after its tensors): their facts
            // from the index, no value read until one is shown.
            for (i, entry) in doc.tensors().iter().enumerate().skip(named.len()) {
                match doc.tensor(entry) {
                    Ok(t) => variable_head_json(w, i, entry, &t)?,
                    Err(_) => w.null()?,
                }
            }
            file.keep(asked(req), doc);
        }
        w.end_array()?;
        w.key("decoded")?;
        let ropts = RenderOptions {
            values,
            dir: file.dir.clone(),
            ..RenderOptions::default()
        };
        write_decoded_preview(w, bytes, decoded, &ropts)?;
        // The decoded file's object ends its line, as `decode --json` does.
        w.line_break()?;
        w.end_object()
    })
}

/// The page's overview of a decoded file: `tensor` (the file is one
/// tensor), `fields` (read without a schema: the field tree beside the
/// bytes), `records` (a record file), `checkpoint` (a tensor bundle's
/// variables), `model` (a file with graphs: its nodes) or `summary` (its
/// summary, tensors and text).
fn overview(decoded: &Decoded<'_>, doc: Option<&Document>, graph: bool) -> &'static str {
    match &decoded.body {
        Body::Schemaless(_) => "fields",
        Body::Records(_) => "records",
        Body::Bundle(_) => "checkpoint",
        Body::Message { .. } | Body::UserMessage { .. } => {
            if doc.is_some_and(|d| d.root_tensor().is_some()) {
                "tensor"
            } else if graph {
                "model"
            } else {
                "summary"
            }
        }
    }
}

/// `looks_like` when detection turned the file down or read it
/// without a schema and its bytes (or name) are those of a known file that
/// is not protobuf: the command line's hint (`this looks like ..`).
fn looks_like_json(
    w: &mut JsonWriter<'_>,
    req: &Query<'_>,
    file: &ExploredFile,
) -> std::io::Result<()> {
    if !detected(req) {
        return Ok(());
    }
    let name = file.name.rsplit('/').next();
    match formats::other_files::looks_like(file.bytes.bytes(), name) {
        Some(what) => w.member("looks_like", &*what),
        None => Ok(()),
    }
}

/// The contract JSON. With every value (`values=all`) exactly the command
/// line's `--json`; with a preview, the root message is written as a
/// nested one, so that a tensor file's statistics are not computed here
/// (a pass over 64M values): the page asks /api/stats for them.
fn write_decoded_preview(
    w: &mut JsonWriter<'_>,
    bytes: &[u8],
    decoded: &Decoded<'_>,
    ropts: &RenderOptions,
) -> std::io::Result<()> {
    let message = match &decoded.body {
        Body::Message { message, .. } if ropts.values.is_some() => message,
        // The field tree's first page, never the whole tree.
        Body::Schemaless(_) => {
            w.begin_object()?;
            json::write_head(w, decoded)?;
            let level =
                schemaless::read_level(bytes, Branch::root(bytes.len() as u64), tree_options())
                    .map_err(|e| std::io::Error::other(e.to_string()))?;
            let mut budget = TREE_ANSWER;
            let limits = tree_limits(TREE_PAGE, TREE_OPEN_LEVELS);
            write_json_page(w, bytes, &level, 0, limits, &mut budget, &tree_render())?;
            return w.end_object();
        }
        Body::Message { .. } | Body::UserMessage { .. } | Body::Records(_) | Body::Bundle(_) => {
            return json::write_decoded_object(w, decoded, ropts, None, &mut |_| Ok(()));
        }
    };
    w.begin_object()?;
    json::write_head(w, decoded)?;
    w.key("value")?;
    json::write_message(w, SchemaSet::builtin(), message, ropts)?;
    w.end_object()
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
pub(super) fn fields(req: &Query<'_>, file: &ExploredFile) -> Response {
    let wire = match wire_of(req, file) {
        Ok(w) => w,
        Err(f) => {
            return json_answer(422, |w| {
                w.begin_object()?;
                failure_json(w, &f)?;
                w.end_object()
            });
        }
    };
    let bytes = wire.binary.bytes();
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
            return json_answer(422, |w| {
                w.begin_object()?;
                w.member("ok", false)?;
                w.key("error")?;
                error_json(w, &e)?;
                w.end_object()
            });
        }
    };
    json_answer(200, |w| {
        w.begin_object()?;
        let mut budget = TREE_ANSWER;
        let limits = tree_limits(count, 0);
        write_json_page(w, bytes, &level, from, limits, &mut budget, &tree_render())?;
        w.end_object()
    })
}

/// `/api/text?f&as&values`: the command line's text view (with the dense
/// view of sparse tensors).
pub(super) fn text_view(req: &Query<'_>, file: &ExploredFile) -> Response {
    let values = match values_param(req, None) {
        Ok(v) => v,
        Err(r) => return r,
    };
    let wire = wire_of(req, file);
    let decoded = match wire
        .as_ref()
        .map_err(Clone::clone)
        .and_then(|w| decode(req, w, true))
    {
        Ok(d) => d,
        Err(f) => {
            return json_answer(422, |w| {
                w.begin_object()?;
                failure_json(w, &f)?;
                w.end_object()
            });
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

/// The most lines `/api/source` answers at once, and the most characters
/// of a line it shows.
const MAX_SOURCE_LINES: u64 = 1000;
const MAX_SOURCE_LINE: usize = 4000;

/// `/api/source?f&from&count`: lines of a file in protobuf's text format,
/// as written: `count` lines (200 by default, at most 1000) from line
/// `from` (1-based), each cut at 4,000 characters, with the number of
/// lines of the file; 422 for a file that is not text.
pub(super) fn source(req: &Query<'_>, file: &ExploredFile) -> Response {
    let bytes = file.bytes.bytes();
    if !crate::text_format::looks_like_text(bytes) {
        return Response::error(422, "the file is not in protobuf's text format");
    }
    let (from, count) = match (num_param(req, "from", 1), num_param(req, "count", 200)) {
        (Ok(f), Ok(c)) => (f.max(1), c.min(MAX_SOURCE_LINES)),
        (Err(r), _) | (_, Err(r)) => return r,
    };
    let total = bytes.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    json_answer(200, |w| {
        w.begin_object()?;
        w.member("from", from)?;
        w.member("total", total)?;
        w.key("lines")?;
        w.begin_array()?;
        let skip = usize::try_from(from - 1).unwrap_or(usize::MAX);
        let take = usize::try_from(count).unwrap_or(0);
        for line in bytes.split(|&b| b == b'\n').skip(skip).take(take) {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let text = String::from_utf8_lossy(line);
            match text.char_indices().nth(MAX_SOURCE_LINE) {
                Some((cut, _)) => w.value(&*format!("{}…", text.get(..cut).unwrap_or(""))),
                None => w.value(&*text),
            }?;
        }
        w.end_array()?;
        w.end_object()
    })
}

fn num_param(req: &Query<'_>, name: &str, default: u64) -> Result<u64, Response> {
    match req.param(name) {
        None => Ok(default),
        Some(v) => v
            .parse::<u64>()
            .map_err(|_| Response::error(400, &format!("{name} takes a number"))),
    }
}

/// `/api/hex?f&offset&count`: raw bytes as hex (at most 64 KiB).
pub(super) fn hex(req: &Query<'_>, file: &ExploredFile) -> Response {
    let bytes = file.bytes.bytes();
    let (offset, count) = match (num_param(req, "offset", 0), num_param(req, "count", 4096)) {
        (Ok(o), Ok(c)) => (o, c.min(MAX_HEX)),
        (Err(r), _) | (_, Err(r)) => return r,
    };
    let size = bytes.len() as u64;
    let start = offset.min(size);
    let end = start.saturating_add(count).min(size);
    let slice = bytes.get(start as usize..end as usize).unwrap_or(&[]);
    let mut hex = String::with_capacity(slice.len() * 2);
    for b in slice {
        // Writing to a String cannot fail.
        let _ = std::fmt::Write::write_fmt(&mut hex, format_args!("{b:02x}"));
    }
    json_answer(200, |w| {
        w.begin_object()?;
        w.member("offset", start)?;
        w.member("size", size)?;
        w.member("hex", &hex)?;
        w.end_object()
    })
}

/// Finds the tensor a request names (`t=INDEX` or `name=NAME`) in the
/// file's document and runs `f` on its view, decoding only that tensor's
/// message.
fn with_tensor(
    req: &Query<'_>,
    file: &ExploredFile,
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
        drawing: tensor.drawing(),
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
    /// How the picture code draws it (as `decode --picture` does).
    drawing: picture::Drawing,
    message: &'m Message<'a>,
    view: &'r TensorView<'m, 'a>,
    full_name: &'r FullName,
}

/// The file as a document over `decoded` (its bytes read as the request
/// asks).
fn document_of(
    req: &Query<'_>,
    file: &ExploredFile,
    wire: &WireInput,
    decoded: &Decoded<'_>,
) -> Document {
    let reading = Reading {
        asked: AsFormat::parse(asked(req)).unwrap_or(AsFormat::Auto),
        options: FormatOptions::default(),
    };
    Document::from_decoded(wire.binary.clone(), file.dir.clone(), reading, decoded)
        .with_text(wire.text.clone())
}

/// The file's document for the format asked for, made once per file and
/// format.
fn file_document(req: &Query<'_>, file: &ExploredFile) -> Result<Document, Response> {
    let key = asked(req).to_string();
    if let Some(d) = file.cached(&key) {
        return Ok(d);
    }
    let wire = wire_of(req, file);
    let decoded = wire
        .as_ref()
        .map_err(Clone::clone)
        .and_then(|w| decode(req, w, false))
        .map_err(|_| {
            Response::error(
                422,
                "the file does not decode as asked, so it has no tensors",
            )
        })?;
    let Ok(wire) = &wire else {
        return Err(Response::error(422, "the file does not decode as asked"));
    };
    let doc = document_of(req, file, wire, &decoded);
    file.keep(&key, doc.clone());
    Ok(doc)
}

/// The document of `file` for the format `req` asks for, made and kept
/// when no request made it yet; None when the file does not decode so.
pub fn file_document_for(req: &Query<'_>, file: &ExploredFile) -> Option<Document> {
    file_document(req, file).ok()
}

/// `/api/tensor`: a tensor's facts, its message as the contract writes it
/// (without values), and how it would be drawn.
pub(super) fn tensor_info(req: &Query<'_>, file: &ExploredFile) -> Response {
    with_tensor(req, file, &mut |t| {
        let view = t.view;
        json_answer(200, |w| {
            w.begin_object()?;
            w.key("tensor")?;
            tensor_head_json(w, t.index, t.name, t.initializer, view, t.full_name)?;
            w.key("unavailable")?;
            match load_values(view, file.dir.as_ref()) {
                LoadedValues::Unavailable(why) => w.value(&why)?,
                _ => w.null()?,
            }
            w.key("picture")?;
            let drawable = view
                .elem
                .is_some_and(|e| e.is_numeric() || e == crate::tensor::Elem::Bool);
            let layout = view.dims.as_deref().and_then(|d| t.drawing.layout(d));
            match layout {
                Some(l) if drawable && l.elements() == Some(view.elements) => {
                    picture_layout_json(w, &l)?;
                }
                _ => w.null()?,
            }
            // A tensor of rank 3 or more drawn by its 2-D slices instead
            // (`/api/picture?slice=N`): the first slice's layout.
            w.key("slice_picture")?;
            let first = view
                .dims
                .as_deref()
                .and_then(|d| picture::slice_layout(d, 0, t.drawing));
            match first {
                Some((l, _)) if drawable && layout.is_none() => picture_layout_json(w, &l)?,
                _ => w.null()?,
            }
            w.key("value")?;
            let set = SchemaSet::builtin();
            let ropts = RenderOptions {
                values: Some(0),
                dir: file.dir.clone(),
                ..RenderOptions::default()
            };
            // The message through the contract, values left out (the page
            // fetches them by page).
            json::write_message(w, set, t.message, &ropts)?;
            w.end_object()
        })
    })
}

/// How a picture lays the tensor out, for the page to draw it and to find
/// the element under a pixel: `element = tile / inner * strides.tile + tile
/// % inner * strides.tile_inner + channel * strides.channel + y * strides.y
/// + x * strides.x` (plus the slice's first element for a slice).
fn picture_layout_json(w: &mut JsonWriter<'_>, l: &picture::Layout) -> std::io::Result<()> {
    let (cw, ch) = l.canvas().unwrap_or((0, 0));
    w.begin_object()?;
    w.member("layout", l.order.name())?;
    w.member("describe", &*l.describe())?;
    w.member("tiles", l.tiles)?;
    w.member("inner", l.inner)?;
    w.member("channels", l.channels)?;
    w.member("heat", l.heat)?;
    w.member("height", l.height)?;
    w.member("width", l.width)?;
    w.member("columns", l.columns)?;
    w.member("rows", l.rows)?;
    let st = l.strides();
    w.key("strides")?;
    w.begin_object()?;
    w.member("tile", st.tile)?;
    w.member("tile_inner", st.tile_inner)?;
    w.member("channel", st.channel)?;
    w.member("y", st.y)?;
    w.member("x", st.x)?;
    w.end_object()?;
    w.key("canvas")?;
    w.begin_array()?;
    w.value(cw)?;
    w.value(ch)?;
    w.end_array()?;
    w.end_object()
}

/// Element `e` as its contract JSON text, as a JSON string (so that
/// 64-bit integers reach the page exactly).
fn element_string(e: Element<'_>) -> std::io::Result<WrittenJson> {
    let contract = WrittenJson::of(|w| json::element(w, e))?;
    WrittenJson::of(|w| w.value(&*String::from_utf8_lossy(contract.as_bytes())))
}

/// `/api/values?f&as&t&offset&count&rows&stride`: `rows` runs of `count`
/// values, the r-th starting at `offset + r * stride` (a window of the
/// grid), as the contract writes each value.
pub(super) fn values(req: &Query<'_>, file: &ExploredFile) -> Response {
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
        let window = Window {
            offset,
            count,
            rows,
            stride,
            total,
        };
        // Declared first, dropped last: the iterator borrows it.
        let external;
        let loaded = load_values(view, file.dir.as_ref());
        let mut it: Box<dyn Iterator<Item = Element<'_>> + '_> = match loaded {
            LoadedValues::Ready(it, _) => Box::new(it),
            LoadedValues::External(bytes, elem, n) => {
                external = bytes;
                Box::new(Elements::new(elem, Source::Raw(external.bytes()), n))
            }
            LoadedValues::Unavailable(why) => {
                return Response::error(422, &format!("values unavailable: {why}"));
            }
            LoadedValues::Nothing => Box::new(std::iter::empty()),
        };
        json_answer(200, |w| {
            w.begin_object()?;
            w.member("offset", offset)?;
            w.member("count", count)?;
            w.member("rows", rows)?;
            w.member("stride", stride)?;
            w.member("total", total)?;
            write_rows(w, &mut it, &window)?;
            w.end_object()
        })
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
/// rows stop at the first value that would take the two members past
/// `MAX_VALUES_BYTES` (`truncated`).
fn write_rows<'e>(
    w: &mut JsonWriter<'_>,
    it: &mut dyn Iterator<Item = Element<'e>>,
    win: &Window,
) -> std::io::Result<()> {
    let mut truncated = false;
    w.key("values")?;
    // The two members' size counts from the key.
    let values_start = w
        .bytes_written()
        .saturating_sub(JsonWriter::key_len("values") as u64);
    w.begin_array()?;
    // The text array is written aside (its size counts from the start) and
    // placed after the values.
    let text_key = JsonWriter::key_len("text");
    let texts = WrittenJson::of(|texts| {
        texts.begin_array()?;
        // The index of the element `it` yields next.
        let mut pos = 0u64;
        'rows: for r in 0..win.rows {
            let Some(start) = win.offset.checked_add(r.saturating_mul(win.stride)) else {
                break;
            };
            if start >= win.total {
                break;
            }
            w.begin_array()?;
            texts.begin_array()?;
            let n = win.count.min(win.total - start);
            for k in 0..n {
                let e = if k == 0 {
                    it.nth(usize::try_from(start - pos).unwrap_or(usize::MAX))
                } else {
                    it.next()
                };
                let Some(e) = e else { break };
                let value = element_string(e)?;
                let text = WrittenJson::of(|t| t.value(&*fmt::element_text(e)))?;
                let used = w.bytes_written().saturating_sub(values_start);
                let after = [
                    text_key as u64,
                    texts.bytes_written(),
                    value.len() as u64,
                    text.len() as u64,
                ]
                .iter()
                .fold(used, |a, n| a.saturating_add(*n));
                if after > MAX_VALUES_BYTES as u64 {
                    truncated = true;
                    w.end_array()?;
                    texts.end_array()?;
                    break 'rows;
                }
                w.written_value(&value)?;
                texts.written_value(&text)?;
            }
            pos = start + n;
            w.end_array()?;
            texts.end_array()?;
        }
        texts.end_array()
    })?;
    w.end_array()?;
    w.key("text")?;
    w.written_value(&texts)?;
    w.member("truncated", truncated)
}

/// `/api/stats`: the statistics and histogram of every value (the
/// command line's `--stats --histogram`).
pub(super) fn tensor_stats(req: &Query<'_>, file: &ExploredFile) -> Response {
    with_tensor(req, file, &mut |t| {
        let view = t.view;
        let dir = file.dir.as_ref();
        json_answer(200, |w| {
            w.begin_object()?;
            w.key("stats")?;
            match stats::compute(view, dir) {
                Some(s) if s.is_numeric() => {
                    s.write_json(w)?;
                    // The mean and std as the text view writes them (the
                    // contract's numbers carry every digit).
                    w.key("text")?;
                    w.begin_object()?;
                    w.member(
                        "mean",
                        s.mean().map(stats::short).unwrap_or_default().as_str(),
                    )?;
                    w.member(
                        "std",
                        s.std().map(stats::short).unwrap_or_default().as_str(),
                    )?;
                    w.end_object()?;
                    w.key("histogram")?;
                    match stats::histogram(view, dir, &s) {
                        Some(h) => h.write_json(w)?,
                        None => w.null()?,
                    }
                }
                _ => {
                    w.null()?;
                    w.member("text", Null)?;
                    w.member("histogram", Null)?;
                }
            }
            w.end_object()
        })
    })
}

/// `/api/picture`: the PNG `--picture` writes; with `slice=N`, the N-th
/// 2-D slice (last two axes) of a tensor of rank 3 or more.
#[cfg(feature = "picture")]
pub(super) fn tensor_picture(req: &Query<'_>, file: &ExploredFile) -> Response {
    let slice = match req.param("slice").map(str::parse::<u64>) {
        None => None,
        Some(Ok(n)) => Some(n),
        Some(Err(_)) => return Response::error(400, "slice= takes a slice number"),
    };
    with_tensor(req, file, &mut |t| {
        let view = t.view;
        let dir = file.dir.as_ref();
        let drawn = match slice {
            None => picture::picture_as(view, dir, t.drawing),
            Some(n) => picture::slice_picture(view, dir, t.drawing, n),
        };
        match drawn {
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

/// `/api/graph`: the document's graph answer (docs/json-contract.md, "The
/// graph of a model"), written by the facade from the parameters.
pub(super) fn graph(req: &Query<'_>, file: &ExploredFile) -> Response {
    use crate::graph::query::{Query as GraphQuery, QueryError};
    let doc = match file_document(req, file) {
        Ok(d) => d,
        Err(r) => return r,
    };
    let query = GraphQuery {
        graph: req.param("g"),
        fold: req.param("fold"),
        open: req.param("open"),
        tensor: req.param("tensor"),
        value: req.param("value"),
    };
    match doc.graph_json(&query) {
        Ok(body) => Response::new(200, "application/json; charset=utf-8", body),
        Err(e) => {
            let status = match &e {
                QueryError::NotAModel(_) | QueryError::Decode(_) => 422,
                QueryError::BadParameter { .. } => 400,
                QueryError::NoSuchGraph(_) | QueryError::NoSuchTensor(_) => 404,
                QueryError::Io(_) => 500,
            };
            Response::error(status, &e.to_string())
        }
    }
}

/// The most points of one scalar tag `/api/series` sends.
const SERIES_POINTS: usize = 10_000;

/// `/api/series`: what the page draws of an event file (an empty answer
/// for any other file).
pub(super) fn record_series(req: &Query<'_>, file: &ExploredFile) -> Response {
    let wire = wire_of(req, file);
    let decoded = match wire
        .as_ref()
        .map_err(Clone::clone)
        .and_then(|w| decode(req, w, false))
    {
        Ok(d) => d,
        Err(f) => {
            return json_answer(422, |w| {
                w.begin_object()?;
                failure_json(w, &f)?;
                w.end_object()
            });
        }
    };
    json_answer(200, |w| series_json(w, &decoded))
}

/// The series of a decoded file as JSON: `{"scalars": [{"tag", "points":
/// [[step, value]]}], "dropped_points", "histograms": [{"tag", "step",
/// "buckets": [[left, right, count]]}], "images": [{"tag", "step",
/// "format", "base64"}]}`.
pub fn series_json(w: &mut JsonWriter<'_>, decoded: &Decoded<'_>) -> std::io::Result<()> {
    let series = match &decoded.body {
        Body::Records(file) => formats::tf_record::series(file, SERIES_POINTS),
        _ => formats::tf_record::Series::default(),
    };
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    w.begin_object()?;
    w.key("scalars")?;
    w.begin_array()?;
    for (tag, points) in &series.scalars {
        w.begin_object()?;
        w.member("tag", &*text(tag))?;
        w.key("points")?;
        w.begin_array()?;
        for (step, value) in points {
            w.begin_array()?;
            w.value(*step)?;
            w.value(*value)?;
            w.end_array()?;
        }
        w.end_array()?;
        w.end_object()?;
    }
    w.end_array()?;
    w.member("dropped_points", series.dropped_points)?;
    w.key("histograms")?;
    w.begin_array()?;
    for (tag, step, buckets) in &series.histograms {
        w.begin_object()?;
        w.member("tag", &*text(tag))?;
        w.member("step", *step)?;
        w.key("buckets")?;
        w.begin_array()?;
        for (l, r, n) in buckets {
            w.begin_array()?;
            w.value(*l)?;
            w.value(*r)?;
            w.value(*n)?;
            w.end_array()?;
        }
        w.end_array()?;
        w.end_object()?;
    }
    w.end_array()?;
    w.key("images")?;
    w.begin_array()?;
    for (tag, step, picture) in &series.images {
        w.begin_object()?;
        w.member("tag", &*text(tag))?;
        w.member("step", *step)?;
        let format = formats::tf_record::image_size(picture).map_or("", |(f, _, _)| f);
        w.member("format", format)?;
        w.member("base64", &*crate::escape::base64(picture))?;
        w.end_object()?;
    }
    w.end_array()?;
    w.end_object()
}
