//! The HTTP layer: one request per connection (`Connection: close`), the
//! request head parsed by `httparse` with a size cap (the server's
//! connection loop gathers its bytes and keeps its deadline), bodies read
//! only as far as `Content-Length` says, responses written whole.

use crate::explore::{Response, parse_query, percent_decode};
use std::io::{self, Write};

/// The largest request head (request line and headers) accepted.
pub const MAX_HEAD: usize = 32 * 1024;
/// The most header lines accepted.
const MAX_HEADERS: usize = 64;

/// A parsed request head; the body is left on the stream.
#[derive(Debug)]
pub struct Request {
    pub method: String,
    /// The path, percent-decoded, without the query.
    pub path: String,
    pub query: Vec<(String, String)>,
    pub headers: Vec<(String, String)>,
    /// Bytes of the body already read with the head.
    pub body_start: Vec<u8>,
}

impl Request {
    /// A header's value (names compare case-insensitively).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// A query parameter's value.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Why a request head could not be read: the status to answer with.
#[derive(Debug)]
pub struct HeadError {
    pub status: u16,
    pub message: &'static str,
}

fn head_error(status: u16, message: &'static str) -> HeadError {
    HeadError { status, message }
}

/// Parses a request head from the bytes received so far: None while it is
/// incomplete (and within [`MAX_HEAD`]); the bytes after it are the
/// body's start.
pub fn parse_head(buf: &[u8]) -> Result<Option<Request>, HeadError> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut req = httparse::Request::new(&mut headers);
    match req.parse(buf) {
        Ok(httparse::Status::Complete(len)) => {
            let method = req.method.unwrap_or("").to_string();
            let target = req.path.unwrap_or("");
            let (path, query) = match target.split_once('?') {
                Some((p, q)) => (p, q),
                None => (target, ""),
            };
            let path = percent_decode(path).ok_or_else(|| head_error(400, "bad path"))?;
            let query = parse_query(query).ok_or_else(|| head_error(400, "bad query"))?;
            let headers = req
                .headers
                .iter()
                .map(|h| {
                    (
                        h.name.to_string(),
                        String::from_utf8_lossy(h.value).into_owned(),
                    )
                })
                .collect();
            let body_start = buf.get(len..).unwrap_or(&[]).to_vec();
            Ok(Some(Request {
                method,
                path,
                query,
                headers,
                body_start,
            }))
        }
        Ok(httparse::Status::Partial) if buf.len() > MAX_HEAD => {
            Err(head_error(431, "request head too large"))
        }
        Ok(httparse::Status::Partial) => Ok(None),
        Err(httparse::Error::TooManyHeaders) => Err(head_error(431, "too many headers")),
        Err(_) => Err(head_error(400, "malformed request")),
    }
}

impl Response {
    /// Writes the response with the headers every response carries: no
    /// caching, no sniffing, no framing, a content policy that allows only
    /// this server, and no CORS headers at all.
    pub fn write_to(&self, w: &mut dyn Write, head_only: bool) -> io::Result<()> {
        let mut head = format!(
            "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\
             Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nX-Frame-Options: DENY\r\n\
             Referrer-Policy: no-referrer\r\nCross-Origin-Resource-Policy: same-origin\r\n\
             Content-Security-Policy: default-src 'self'; img-src 'self' blob: data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; form-action 'none'; base-uri 'none'\r\n",
            self.status,
            reason(self.status),
            self.content_type,
            self.body.len()
        );
        for (n, v) in &self.headers {
            // Header values come from this server; strip line breaks anyway.
            let v: String = v.chars().filter(|c| *c != '\r' && *c != '\n').collect();
            head.push_str(&format!("{n}: {v}\r\n"));
        }
        head.push_str("\r\n");
        w.write_all(head.as_bytes())?;
        if !head_only {
            w.write_all(&self.body)?;
        }
        w.flush()
    }
}

pub fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        302 => "Found",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        411 => "Length Required",
        413 => "Content Too Large",
        422 => "Unprocessable Content",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}
