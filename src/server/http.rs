//! The HTTP layer: one request per connection (`Connection: close`), the
//! request head parsed by `httparse` with a size cap (the server's
//! connection loop gathers its bytes and keeps its deadline), bodies read
//! only as far as `Content-Length` says, responses written whole.

use crate::json_writer::JsonWriter;
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

fn hex_digit(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Decodes `%XX` escapes (and `+` as a space when `plus` is set); None for a
/// bad escape or text that is not UTF-8.
fn decode_component(s: &str, plus: bool) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'%' => {
                let hi = hex_digit(*bytes.get(i + 1)?)?;
                let lo = hex_digit(*bytes.get(i + 2)?)?;
                out.push(hi * 16 + lo);
                i += 3;
            }
            b'+' if plus => {
                out.push(b' ');
                i += 1;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

pub fn percent_decode(s: &str) -> Option<String> {
    decode_component(s, false)
}

pub fn parse_query(q: &str) -> Option<Vec<(String, String)>> {
    q.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            Some((decode_component(k, true)?, decode_component(v, true)?))
        })
        .collect()
}

/// A response, written whole.
pub struct Response {
    pub status: u16,
    pub content_type: &'static str,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    pub fn new(status: u16, content_type: &'static str, body: Vec<u8>) -> Self {
        Response {
            status,
            content_type,
            headers: Vec::new(),
            body,
        }
    }

    /// An error as JSON: `{"status": CODE, "error": MESSAGE}`.
    pub fn error(status: u16, message: &str) -> Self {
        let mut body = Vec::new();
        let mut w = JsonWriter::new(&mut body);
        // Into a Vec, in the writer's order: nothing can fail.
        let _ = w
            .begin_object()
            .and_then(|()| w.member("status", status))
            .and_then(|()| w.member("error", message))
            .and_then(|()| w.end_object())
            .and_then(|()| w.end_line());
        Response::new(status, "application/json; charset=utf-8", body)
    }

    pub fn with_header(mut self, name: &str, value: impl Into<String>) -> Self {
        self.headers.push((name.to_string(), value.into()));
        self
    }

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_and_escapes() {
        assert_eq!(
            parse_query("f=0%2Fa+b.pb&t=3&x"),
            Some(vec![
                ("f".into(), "0/a b.pb".into()),
                ("t".into(), "3".into()),
                ("x".into(), String::new())
            ])
        );
        assert_eq!(parse_query("f=%zz"), None);
        assert_eq!(percent_decode("/a%20b"), Some("/a b".into()));
        assert_eq!(percent_decode("%ff"), None);
    }
}
