//! The explorer's local HTTP server (`decode serve`): the page (embedded
//! from `web/`), the decoded file as the JSON contract, and lazy endpoints
//! for what the page shows (a page of values, statistics, the picture,
//! bytes as hex).
//!
//! Security, after Jupyter's: loopback by default; the `Host` header must
//! be `localhost` or an IP address (a DNS-rebinding page's name is
//! neither). A random per-run token, given in the printed URL, is the one
//! credential: every API request must carry it in an `Authorization:
//! token ...` header. The page gets it embedded when it is opened with
//! `?token=` or with a one-time `?code=` (what `--open` hands the browser,
//! so that the token never shows on a command line), keeps it in the
//! origin's localStorage (which, unlike a cookie, no server on another port
//! of the same host ever sees) and sends it in that header; the page itself
//! and its script, style and icon are public and hold nothing. No cookie is
//! set, and no CORS header is ever sent, so no other site's page can send
//! the header. Only the PATHs given are served (see [`files`]).
//!
//! Concurrency: one thread accepts connections and gathers request heads
//! (see [`intake`]), so idle connections hold no worker; a fixed pool of
//! worker threads serves one request per connection, with a deadline on
//! each read of a body and each write.
//!
//! A served file cut short by another program while a request reads it
//! fails that request (409) and the server serves on (see
//! [`crate::input::recover_from_mapping_faults`]).
//!
//! The server prints nothing; the command line prints its URL.

mod api;
pub mod files;
pub mod http;
pub mod intake;
mod secret;
mod state;

use secret::{random_token, same_secret};
use state::State;
pub use state::{Config, DEFAULT_MAX_UPLOAD};

use crate::explore::Response;
use files::{Files, UploadSink};
use http::Request;
use intake::{Counters, Intake};
use std::io::{self, Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

/// A bound server, ready to run.
pub struct Server {
    listener: TcpListener,
    reserve: std::fs::File,
    state: Arc<State>,
    stop: Arc<AtomicBool>,
    counters: Arc<Counters>,
}

/// Stops a running server from another thread.
#[derive(Clone)]
pub struct Stopper {
    stop: Arc<AtomicBool>,
    addr: SocketAddr,
}

impl Stopper {
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the connection loop.
        let mut addr = self.addr;
        if addr.ip().is_unspecified() {
            addr.set_ip(IpAddr::V4(Ipv4Addr::LOCALHOST));
        }
        let _ = TcpStream::connect_timeout(&addr, Duration::from_secs(1));
    }
}

/// Whether a parsed size string is valid: `123`, `64K`, `512M`, `8G`
/// (binary units).
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (num, mul) = match s.char_indices().last()? {
        (i, 'k' | 'K') => (s.get(..i)?, 1u64 << 10),
        (i, 'm' | 'M') => (s.get(..i)?, 1 << 20),
        (i, 'g' | 'G') => (s.get(..i)?, 1 << 30),
        (i, 't' | 'T') => (s.get(..i)?, 1 << 40),
        _ => (s, 1),
    };
    num.trim().parse::<u64>().ok()?.checked_mul(mul)
}

/// A server's state: the files checked, the token made.
fn new_state(config: Config, files: Files, port: u16) -> io::Result<State> {
    let token = match &config.token {
        Some(t) => t.clone(),
        None => random_token()?,
    };
    Ok(State {
        files,
        token,
        codes: Mutex::new(Vec::new()),
        port,
        config,
    })
}

impl Server {
    /// Checks the paths and binds the listening socket. Makes faults on
    /// mapped files recoverable in this process (see
    /// [`crate::input::recover_from_mapping_faults`]).
    pub fn bind(config: Config) -> io::Result<Server> {
        crate::input::recover_from_mapping_faults()?;
        let files = Files::new(&config.paths)?;
        let listener = TcpListener::bind(SocketAddr::new(config.bind, config.port))?;
        let port = listener.local_addr()?.port();
        Ok(Server {
            listener,
            reserve: intake::reserve()?,
            state: Arc::new(new_state(config, files, port)?),
            stop: Arc::new(AtomicBool::new(false)),
            counters: Arc::new(Counters::default()),
        })
    }

    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    pub fn token(&self) -> &str {
        &self.state.token
    }

    /// Whether the server listens only on the loopback interface.
    pub fn is_loopback(&self) -> bool {
        self.state.config.bind.is_loopback()
    }

    fn base_url(&self) -> String {
        let host = match self.state.config.bind {
            ip if ip.is_unspecified() || ip.is_loopback() => "127.0.0.1".to_string(),
            IpAddr::V6(ip) => format!("[{ip}]"),
            ip => ip.to_string(),
        };
        format!("http://{host}:{}/", self.state.port)
    }

    /// The URL to open: the token in the query, as Jupyter prints it.
    pub fn url(&self) -> String {
        format!("{}?token={}", self.base_url(), self.state.token)
    }

    /// A URL that opens the page once: its code is traded for the token on
    /// the first visit and is worthless after (for a browser started with
    /// the URL on its command line, where other users can read it).
    pub fn one_time_url(&self) -> io::Result<String> {
        let code = random_token()?;
        if let Ok(mut codes) = self.state.codes.lock() {
            codes.push(code.clone());
        }
        Ok(format!("{}?code={code}", self.base_url()))
    }

    pub fn stopper(&self) -> io::Result<Stopper> {
        Ok(Stopper {
            stop: self.stop.clone(),
            addr: self.listener.local_addr()?,
        })
    }

    /// What the connection loop has done so far.
    pub fn counters(&self) -> Arc<Counters> {
        self.counters.clone()
    }

    /// Serves until stopped.
    pub fn run(self) -> io::Result<()> {
        let workers_wanted = self.state.config.workers.max(1);
        // Requests waiting for a worker; more are answered 503.
        let (tx, rx) = mpsc::sync_channel::<(TcpStream, Request)>(workers_wanted.saturating_mul(8));
        let rx = Arc::new(Mutex::new(rx));
        let mut workers = Vec::new();
        for _ in 0..workers_wanted {
            let rx = rx.clone();
            let state = self.state.clone();
            workers.push(std::thread::spawn(move || {
                loop {
                    let next = match rx.lock() {
                        Ok(r) => r.recv(),
                        Err(_) => return,
                    };
                    match next {
                        // A request that panicked loses its connection, not
                        // the worker.
                        Ok((stream, req)) => {
                            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                                handle_request(&state, stream, &req)
                            }));
                        }
                        Err(_) => return,
                    }
                }
            }));
        }
        let result = Intake {
            listener: &self.listener,
            reserve: Some(self.reserve),
            head_timeout: self.state.config.head_timeout,
            stop: &self.stop,
            queue: tx,
            counters: &self.counters,
        }
        .run();
        for w in workers {
            let _ = w.join();
        }
        result
    }
}

/// The server's request handling without a socket, for the fuzz target
/// (`fuzz/`) and tests: a request built in memory, its body whole in
/// `body_start`, answered exactly as a connection's would be.
pub struct Handler {
    state: State,
}

impl Handler {
    /// Checks the paths as [`Server::bind`] does; `config.port` is the port
    /// a request's Host header must name.
    pub fn new(config: Config) -> io::Result<Handler> {
        let files = Files::new(&config.paths)?;
        let port = config.port;
        Ok(Handler {
            state: new_state(config, files, port)?,
        })
    }

    /// The response (a HEAD request's body is left to the writer, as
    /// [`Response::write_to`] does on a connection).
    pub fn respond(&self, req: &Request) -> Response {
        // Past `body_start` the body has ended; `100 Continue` goes nowhere.
        answer(&self.state, req, &mut io::empty())
    }
}

/// `localhost` or an IP address, on this server's port (a DNS-rebinding
/// attack needs a name of its own).
fn host_allowed(state: &State, host: &str) -> bool {
    let (name, port) = if let Some(rest) = host.strip_prefix('[') {
        match rest.split_once(']') {
            Some((ip, tail)) => (ip, tail.strip_prefix(':')),
            None => return false,
        }
    } else {
        match host.rsplit_once(':') {
            Some((n, p)) => (n, Some(p)),
            None => (host, None),
        }
    };
    if let Some(p) = port
        && p.parse::<u16>().ok() != Some(state.port)
    {
        return false;
    }
    let local_name = name.eq_ignore_ascii_case("localhost");
    let ip = name.parse::<IpAddr>().ok();
    match ip {
        Some(ip) => {
            state.config.bind.is_unspecified() || ip.is_loopback() || ip == state.config.bind
        }
        None => local_name,
    }
}

/// Whether the request carries the token in its `Authorization` header,
/// the only way an API request is let in.
fn authorized(state: &State, req: &Request) -> bool {
    req.header("authorization")
        .and_then(|h| h.strip_prefix("token "))
        .is_some_and(|t| same_secret(t.trim(), &state.token))
}

/// Takes a one-time code: true once per code issued.
fn take_code(state: &State, code: &str) -> bool {
    let Ok(mut codes) = state.codes.lock() else {
        return false;
    };
    match codes.iter().position(|c| same_secret(c, code)) {
        Some(i) => {
            codes.swap_remove(i);
            true
        }
        None => false,
    }
}

fn handle_request(state: &State, mut stream: TcpStream, req: &Request) {
    let _ = stream.set_write_timeout(Some(state.config.io_timeout));
    let _ = stream.set_nodelay(true);
    let head_only = req.method == "HEAD";
    // What follows the head (an upload's body) is read under this deadline.
    let _ = stream.set_read_timeout(Some(state.config.io_timeout));
    let resp = answer(state, req, &mut stream);
    let _ = resp.write_to(&mut stream, head_only);
    let _ = stream.shutdown(std::net::Shutdown::Write);
}

/// The response to one request; `stream` holds the rest of its body (and
/// takes an upload's `100 Continue`).
fn answer(state: &State, req: &Request, stream: &mut (impl Read + Write)) -> Response {
    let faults = crate::input::mapping_faults();
    let resp = respond(state, req, stream);
    // A mapped file was cut short while this request ran (this request's,
    // or, rarely, another's at the same moment): what was read from it
    // may be zeros, so the answer is not sent.
    if crate::input::mapping_faults() != faults {
        return Response::error(
            409,
            "a file was cut short by another program while it was read; reload to read it again",
        );
    }
    resp
}

fn forbidden_page(message: &str) -> Response {
    let mut body = b"<!doctype html><meta charset=utf-8><title>pbdecode</title><p>403: ".to_vec();
    body.extend_from_slice(message.as_bytes());
    body.extend_from_slice(b"</p>\n");
    Response::new(403, "text/html; charset=utf-8", body)
}

fn respond(state: &State, req: &Request, stream: &mut (impl Read + Write)) -> Response {
    let Some(host) = req.header("host") else {
        return Response::error(400, "no Host header");
    };
    if !host_allowed(state, host) {
        return Response::error(
            403,
            "Host not allowed: open the explorer by its printed address",
        );
    }
    let reading = matches!(req.method.as_str(), "GET" | "HEAD");
    // The page: with the token embedded when it is opened with the token
    // or a one-time code, else bare (the page then uses the token it kept).
    if reading && matches!(req.path.as_str(), "/" | "/index.html") {
        if let Some(code) = req.param("code") {
            if !take_code(state, code) {
                return forbidden_page(
                    "this one-time link was used already. Open the address <code>decode serve</code> printed (it ends with <code>?token=...</code>).",
                );
            }
            return api::page(&state.token);
        }
        if let Some(token) = req.param("token") {
            if !same_secret(token, &state.token) {
                return forbidden_page(
                    "wrong token. Open the address <code>decode serve</code> printed (it ends with <code>?token=...</code>).",
                );
            }
            return api::page(&state.token);
        }
        return api::page("");
    }
    if reading && api::is_asset(&req.path) {
        return api::get(state, req);
    }
    if !authorized(state, req) {
        return Response::error(
            403,
            "this request needs the token: open the address decode serve printed (it ends with ?token=...)",
        );
    }
    // The token travels only in a header, which no other site's page can
    // send here (that would need CORS, never granted): no XSRF token is
    // needed for the requests that change state.
    match req.method.as_str() {
        "GET" | "HEAD" => api::get(state, req),
        "POST" => match req.path.as_str() {
            "/api/upload" => upload(state, req, stream),
            "/api/close" => api::close(state, req),
            _ => Response::error(404, "no such endpoint"),
        },
        _ => Response::error(405, "method not allowed").with_header("Allow", "GET, HEAD, POST"),
    }
}

/// Reads an upload's body (Content-Length only, at most `max_upload`) into
/// memory or a private temporary file.
fn upload(state: &State, req: &Request, stream: &mut (impl Read + Write)) -> Response {
    if req.header("transfer-encoding").is_some() {
        return Response::error(411, "an upload needs a Content-Length");
    }
    let Some(len) = req
        .header("content-length")
        .and_then(|l| l.trim().parse::<u64>().ok())
    else {
        return Response::error(411, "an upload needs a Content-Length");
    };
    let max = state.config.max_upload;
    if len > max {
        return Response::error(
            413,
            &format!("the file is {len} bytes; this server takes up to {max} (--max-upload)"),
        );
    }
    let name = req.param("name").unwrap_or("dropped file");
    if req
        .header("expect")
        .is_some_and(|e| e.eq_ignore_ascii_case("100-continue"))
    {
        let _ = stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n");
    }
    let mut sink = match UploadSink::new(len) {
        Ok(s) => s,
        Err(e) => return Response::error(500, &format!("no room for the upload: {e}")),
    };
    let first = req
        .body_start
        .get(..len.min(req.body_start.len() as u64) as usize);
    let mut got = 0u64;
    if let Some(first) = first {
        if let Err(e) = sink.write(first) {
            return Response::error(500, &format!("storing the upload: {e}"));
        }
        got = first.len() as u64;
    }
    let mut buf = vec![0u8; 1 << 16];
    while got < len {
        let want = (len - got).min(buf.len() as u64) as usize;
        let Some(slot) = buf.get_mut(..want) else {
            break;
        };
        match stream.read(slot) {
            Ok(0) => {
                return Response::error(400, &format!("upload aborted after {got} of {len} bytes"));
            }
            Ok(n) => {
                if let Err(e) = sink.write(slot.get(..n).unwrap_or(&[])) {
                    return Response::error(500, &format!("storing the upload: {e}"));
                }
                got += n as u64;
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                return Response::error(408, &format!("upload stalled after {got} of {len} bytes"));
            }
            Err(e) => {
                return Response::error(
                    400,
                    &format!("upload aborted after {got} of {len} bytes: {e}"),
                );
            }
        }
    }
    match sink.finish() {
        Ok(bytes) => {
            let listed = state.files.add_upload(name, bytes);
            crate::explore::listed_answer(&listed)
        }
        Err(e) => Response::error(500, &format!("storing the upload: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("8G"), Some(8 << 30));
        assert_eq!(parse_size("512m"), Some(512 << 20));
        assert_eq!(parse_size("100"), Some(100));
        assert_eq!(parse_size("x"), None);
        assert_eq!(parse_size("99999999999T"), None);
    }
}
