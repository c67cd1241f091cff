//! The page and the routing of its requests: the page's own files, the file
//! list, and each endpoint that reads one file, answered by the
//! transport-free [`crate::explore`] once the file is opened here.

use super::files::Refusal;
use super::http::Request;
use super::state::State;
use crate::explore::Response;
use crate::explore::{self, FileHandler, Query};

const INDEX_HTML: &str = include_str!("../../web/index.html");

/// The page's modules, style and icon (`web/`, but the static site's
/// WebAssembly glue), by the path the page asks for them at: the same for
/// everyone, no secret.
const ASSETS: &[(&str, &str, &str)] = &[
    ("/main.js", JS, include_str!("../../web/main.js")),
    ("/state.js", JS, include_str!("../../web/state.js")),
    ("/backend.js", JS, include_str!("../../web/backend.js")),
    ("/dom.js", JS, include_str!("../../web/dom.js")),
    ("/format.js", JS, include_str!("../../web/format.js")),
    ("/escape.js", JS, include_str!("../../web/escape.js")),
    ("/files.js", JS, include_str!("../../web/files.js")),
    ("/search.js", JS, include_str!("../../web/search.js")),
    ("/model.js", JS, include_str!("../../web/model.js")),
    (
        "/tensor-list.js",
        JS,
        include_str!("../../web/tensor-list.js"),
    ),
    ("/tensor.js", JS, include_str!("../../web/tensor.js")),
    ("/grid.js", JS, include_str!("../../web/grid.js")),
    ("/records.js", JS, include_str!("../../web/records.js")),
    (
        "/checkpoint.js",
        JS,
        include_str!("../../web/checkpoint.js"),
    ),
    ("/text.js", JS, include_str!("../../web/text.js")),
    ("/fields.js", JS, include_str!("../../web/fields.js")),
    ("/bytes.js", JS, include_str!("../../web/bytes.js")),
    ("/graph-tab.js", JS, include_str!("../../web/graph-tab.js")),
    (
        "/graph-view.js",
        JS,
        include_str!("../../web/graph-view.js"),
    ),
    (
        "/graph-input.js",
        JS,
        include_str!("../../web/graph-input.js"),
    ),
    (
        "/graph-data.js",
        JS,
        include_str!("../../web/graph-data.js"),
    ),
    (
        "/graph-model.js",
        JS,
        include_str!("../../web/graph-model.js"),
    ),
    (
        "/graph-geometry.js",
        JS,
        include_str!("../../web/graph-geometry.js"),
    ),
    (
        "/graph-paint.js",
        JS,
        include_str!("../../web/graph-paint.js"),
    ),
    ("/graph-svg.js", JS, include_str!("../../web/graph-svg.js")),
    (
        "/node-panel.js",
        JS,
        include_str!("../../web/node-panel.js"),
    ),
    (
        "/app.css",
        "text/css; charset=utf-8",
        include_str!("../../web/app.css"),
    ),
    (
        "/icon.svg",
        "image/svg+xml",
        include_str!("../../web/icon.svg"),
    ),
];
const JS: &str = "text/javascript; charset=utf-8";

/// The page, with the token for its requests (empty: the page uses the
/// one it kept).
pub(super) fn page(token: &str) -> Response {
    Response::new(
        200,
        "text/html; charset=utf-8",
        INDEX_HTML.replace("{{TOKEN}}", token).into_bytes(),
    )
}

/// Whether `path` is one of the page's own files ([`ASSETS`]).
pub(super) fn is_asset(path: &str) -> bool {
    ASSETS.iter().any(|(p, _, _)| *p == path)
}

pub(super) fn get(state: &State, req: &Request) -> Response {
    if let Some((_, kind, body)) = ASSETS.iter().find(|(p, _, _)| *p == req.path) {
        return Response::new(200, kind, body.as_bytes().to_vec());
    }
    match req.path.as_str() {
        "/api/files" => files(state),
        path => match explore::file_handler(path) {
            Some(handler) => with_file(state, req, handler),
            None => Response::error(404, "no such page"),
        },
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

/// Opens the file the request names and answers with `handler`.
fn with_file(state: &State, req: &Request, handler: FileHandler) -> Response {
    let query = Query(&req.query);
    let key = match explore::file_key(&query) {
        Ok(k) => k,
        Err(r) => return r,
    };
    match state.files.open(key) {
        Ok(file) => handler(&query, &file),
        Err(r) => refusal(r),
    }
}

pub(super) fn close(state: &State, req: &Request) -> Response {
    let key = match explore::file_key(&Query(&req.query)) {
        Ok(k) => k,
        Err(r) => return r,
    };
    if state.files.close(key) {
        explore::closed_answer()
    } else {
        Response::error(404, &format!("no open upload {key:?}"))
    }
}

fn files(state: &State) -> Response {
    let (list, truncated) = state.files.list();
    let roots: Vec<String> = state
        .files
        .roots
        .iter()
        .map(|r| r.given.display().to_string())
        .collect();
    explore::files_answer(&roots, truncated, &list)
}
