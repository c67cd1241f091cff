//! Requests and answers as the page sends and reads them, whatever carries
//! them: query parameters, responses, and the answers about files.

use crate::json_writer::JsonWriter;

/// An answer to one request, whole.
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
}

/// A request's query parameters, decoded (see [`parse_query`]).
#[derive(Clone, Copy)]
pub struct Query<'q>(pub &'q [(String, String)]);

impl<'q> Query<'q> {
    /// A parameter's value (the first, if given twice).
    pub fn param(&self, name: &str) -> Option<&'q str> {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A file as the file list shows it.
#[derive(Debug, Clone)]
pub struct Listed {
    /// The key the page uses (the server's: `N` for the N-th root file,
    /// `N/rel/path` for a file in the N-th root folder; `uN` for an upload).
    pub key: String,
    pub name: String,
    pub size: u64,
}

/// The file a request names (`f=KEY`), or the answer that asks which.
pub fn file_key<'q>(query: &Query<'q>) -> Result<&'q str, Response> {
    query
        .param("f")
        .ok_or_else(|| Response::error(400, "which file? (f=KEY)"))
}

/// An answer of one JSON object on a line, written by `write` (an error
/// in writing it is answered 500).
pub fn json_answer(
    status: u16,
    write: impl FnOnce(&mut JsonWriter<'_>) -> std::io::Result<()>,
) -> Response {
    let mut body = Vec::new();
    let mut w = JsonWriter::new(&mut body);
    match write(&mut w)
        .and_then(|()| w.end_line())
        .and_then(|()| w.finish())
    {
        Ok(()) => Response::new(status, "application/json; charset=utf-8", body),
        Err(e) => Response::error(500, &e.to_string()),
    }
}

fn listed_json(w: &mut JsonWriter<'_>, l: &Listed) -> std::io::Result<()> {
    w.begin_object()?;
    w.member("key", &l.key)?;
    w.member("name", &l.name)?;
    w.member("size", l.size)?;
    w.end_object()
}

/// `/api/upload`'s answer: the file added.
pub fn listed_answer(l: &Listed) -> Response {
    json_answer(200, |w| listed_json(w, l))
}

/// `/api/close`'s answer when the file was closed.
pub fn closed_answer() -> Response {
    json_answer(200, |w| {
        w.begin_object()?;
        w.member("closed", true)?;
        w.end_object()
    })
}

/// `/api/files`: the roots given (for display), whether the list was cut
/// short, and the files.
pub fn files_answer(roots: &[String], truncated: bool, files: &[Listed]) -> Response {
    json_answer(200, |w| {
        w.begin_object()?;
        w.key("roots")?;
        w.begin_array()?;
        for r in roots {
            w.value(r.as_str())?;
        }
        w.end_array()?;
        w.member("truncated", truncated)?;
        w.key("files")?;
        w.begin_array()?;
        for l in files {
            listed_json(w, l)?;
        }
        w.end_array()?;
        w.end_object()
    })
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

/// A path with its `%XX` escapes decoded.
pub fn percent_decode(s: &str) -> Option<String> {
    decode_component(s, false)
}

/// A query string (`a=1&b=x+y`) as its decoded pairs.
pub fn parse_query(q: &str) -> Option<Vec<(String, String)>> {
    q.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            Some((decode_component(k, true)?, decode_component(v, true)?))
        })
        .collect()
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
