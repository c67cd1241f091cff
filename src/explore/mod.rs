//! The explorer's endpoints without a transport: a request (its path, its
//! query parameters and the file it names) in, a response (status, content
//! type, headers, body) out. The HTTP server (`server`, behind the
//! `server` feature) and the in-page WebAssembly build (`wasm/`) both
//! answer the page through [`file_answer`], so the two back ends give the
//! page the same bytes.
//!
//! A new endpoint that reads one file is one function of `endpoints`
//! and one line of [`file_handler`].

mod endpoints;
mod file;
mod message;

pub use endpoints::{PREVIEW_VALUES, file_document_for};
pub use file::ExploredFile;
pub use message::{
    Listed, Query, Response, closed_answer, file_key, files_answer, json_answer, listed_answer,
    parse_query, percent_decode,
};

/// An endpoint that reads one file.
pub type FileHandler = fn(&Query<'_>, &ExploredFile) -> Response;

/// The endpoint of a path, if it reads one file.
pub fn file_handler(path: &str) -> Option<FileHandler> {
    let handler: FileHandler = match path {
        "/api/open" => endpoints::open,
        "/api/text" => endpoints::text_view,
        "/api/source" => endpoints::source,
        "/api/hex" => endpoints::hex,
        "/api/fields" => endpoints::fields,
        "/api/tensor" => endpoints::tensor_info,
        "/api/values" => endpoints::values,
        "/api/stats" => endpoints::tensor_stats,
        #[cfg(feature = "picture")]
        "/api/picture" => endpoints::tensor_picture,
        "/api/graph" => endpoints::graph,
        "/api/series" => endpoints::record_series,
        _ => return None,
    };
    Some(handler)
}

/// The answer of an endpoint that reads one file, or None when `path` is
/// none of them.
pub fn file_answer(path: &str, query: &Query<'_>, file: &ExploredFile) -> Option<Response> {
    file_handler(path).map(|handler| handler(query, file))
}
