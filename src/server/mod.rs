//! The explorer's local HTTP server (`decode serve`): the page (embedded
//! from `web/`), the decoded file as the JSON contract, and lazy endpoints
//! for what the page shows (a page of values, statistics, the picture,
//! bytes as hex).
//!
//! Security, after Jupyter's: loopback by default; the `Host` header must
//! be `localhost` or an IP address (a DNS-rebinding page's name is
//! neither); a random per-run token, given in the printed URL, is traded
//! for an HttpOnly, SameSite=Strict cookie; every request without the
//! cookie, an `Authorization: token ...` header or the token gets 403;
//! uploads and closing need the cookie plus the page's XSRF header (or the
//! Authorization header); no CORS headers are ever sent. Only the PATHs
//! given are served (see [`files`]).
//!
//! Concurrency: a fixed pool of worker threads, one request per connection,
//! with deadlines on reading the head and each read of a body, so a slow
//! client or a big upload holds one worker and the others keep serving.
//!
//! The server prints nothing; the command line prints its URL.

mod api;
pub mod files;
pub mod http;
mod state;

use state::State;
pub use state::{Config, DEFAULT_MAX_UPLOAD};

use files::{Files, UploadSink};
use http::{Request, Response};
use std::io::{self, Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

/// A bound server, ready to run.
pub struct Server {
    listener: TcpListener,
    state: Arc<State>,
    stop: Arc<AtomicBool>,
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
        // Wake the accept loop.
        let mut addr = self.addr;
        if addr.ip().is_unspecified() {
            addr.set_ip(IpAddr::V4(Ipv4Addr::LOCALHOST));
        }
        let _ = TcpStream::connect_timeout(&addr, Duration::from_secs(1));
    }
}

/// 32 random bytes as hex, from the operating system.
fn random_token() -> io::Result<String> {
    let mut buf = [0u8; 24];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut buf)?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
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

impl Server {
    /// Checks the paths and binds the listening socket.
    pub fn bind(config: Config) -> io::Result<Server> {
        let files = Files::new(&config.paths)?;
        let listener = TcpListener::bind(SocketAddr::new(config.bind, config.port))?;
        let port = listener.local_addr()?.port();
        let token = match &config.token {
            Some(t) => t.clone(),
            None => random_token()?,
        };
        let xsrf = random_token()?;
        Ok(Server {
            listener,
            state: Arc::new(State {
                files,
                token,
                xsrf,
                port,
                config,
            }),
            stop: Arc::new(AtomicBool::new(false)),
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

    /// The URL to open: the token in the query, as Jupyter prints it.
    pub fn url(&self) -> String {
        let host = match self.state.config.bind {
            ip if ip.is_unspecified() || ip.is_loopback() => "127.0.0.1".to_string(),
            IpAddr::V6(ip) => format!("[{ip}]"),
            ip => ip.to_string(),
        };
        format!(
            "http://{host}:{}/?token={}",
            self.state.port, self.state.token
        )
    }

    pub fn stopper(&self) -> io::Result<Stopper> {
        Ok(Stopper {
            stop: self.stop.clone(),
            addr: self.listener.local_addr()?,
        })
    }

    /// Serves until stopped.
    pub fn run(self) -> io::Result<()> {
        let (tx, rx) = mpsc::channel::<TcpStream>();
        let rx = Arc::new(Mutex::new(rx));
        let mut workers = Vec::new();
        for _ in 0..self.state.config.workers.max(1) {
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
                        Ok(stream) => {
                            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                                handle_connection(&state, stream)
                            }));
                        }
                        Err(_) => return,
                    }
                }
            }));
        }
        for conn in self.listener.incoming() {
            if self.stop.load(Ordering::SeqCst) {
                break;
            }
            match conn {
                Ok(stream) => {
                    if tx.send(stream).is_err() {
                        break;
                    }
                }
                // A connection that failed before it was accepted: go on.
                Err(_) => continue,
            }
        }
        drop(tx);
        for w in workers {
            let _ = w.join();
        }
        Ok(())
    }
}

/// Compares secrets in time independent of where they differ.
fn same_secret(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
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

enum Auth {
    /// The session cookie.
    Cookie,
    /// `Authorization: token ...` (scripts, tests).
    Header,
    /// `?token=...` in the URL.
    Query,
    None,
}

fn auth(state: &State, req: &Request) -> Auth {
    if req
        .cookie(&state.cookie_name())
        .is_some_and(|c| same_secret(c, &state.token))
    {
        return Auth::Cookie;
    }
    if req
        .header("authorization")
        .and_then(|h| h.strip_prefix("token "))
        .is_some_and(|t| same_secret(t.trim(), &state.token))
    {
        return Auth::Header;
    }
    if req
        .param("token")
        .is_some_and(|t| same_secret(t, &state.token))
    {
        return Auth::Query;
    }
    Auth::None
}

fn handle_connection(state: &State, mut stream: TcpStream) {
    let _ = stream.set_write_timeout(Some(state.config.io_timeout));
    let _ = stream.set_nodelay(true);
    let req = match http::read_head(&mut stream, state.config.head_timeout) {
        Ok(r) => r,
        Err(e) => {
            if let Some(status) = e.status {
                let _ = Response::error(status, e.message).write_to(&mut stream, false);
            }
            return;
        }
    };
    let head_only = req.method == "HEAD";
    let resp = respond(state, &req, &mut stream);
    let _ = resp.write_to(&mut stream, head_only);
    let _ = stream.shutdown(std::net::Shutdown::Write);
}

fn respond(state: &State, req: &Request, stream: &mut TcpStream) -> Response {
    let Some(host) = req.header("host") else {
        return Response::error(400, "no Host header");
    };
    if !host_allowed(state, host) {
        return Response::error(
            403,
            "Host not allowed: open the explorer by its printed address",
        );
    }
    let auth = auth(state, req);
    if matches!(auth, Auth::None) {
        return Response::new(
            403,
            "text/html; charset=utf-8",
            b"<!doctype html><meta charset=utf-8><title>pbdecode</title><p>403: this page needs the token. Open the address <code>decode serve</code> printed (it ends with <code>?token=...</code>).</p>\n".to_vec(),
        );
    }
    // The token in the URL is traded for a cookie, and the address bar
    // cleaned of it.
    if matches!(auth, Auth::Query) && req.method == "GET" && req.path == "/" {
        return Response::new(302, "text/plain; charset=utf-8", b"to /\n".to_vec())
            .with_header("Location", "/")
            .with_header(
                "Set-Cookie",
                format!(
                    "{}={}; Path=/; HttpOnly; SameSite=Strict",
                    state.cookie_name(),
                    state.token
                ),
            );
    }
    match req.method.as_str() {
        "GET" | "HEAD" => api::get(state, req),
        "POST" => {
            // Changes of state: the cookie plus the page's XSRF header, or
            // the Authorization header (which no other site can send).
            let allowed = match auth {
                Auth::Header => true,
                Auth::Cookie => req
                    .header("x-pbdecode-xsrf")
                    .is_some_and(|x| same_secret(x, &state.xsrf)),
                _ => false,
            };
            if !allowed {
                return Response::error(403, "this request needs the page's XSRF header");
            }
            match req.path.as_str() {
                "/api/upload" => upload(state, req, stream),
                "/api/close" => api::close(state, req),
                _ => Response::error(404, "no such endpoint"),
            }
        }
        _ => Response::error(405, "method not allowed").with_header("Allow", "GET, HEAD, POST"),
    }
}

/// Reads an upload's body (Content-Length only, at most `max_upload`) into
/// memory or a private temporary file.
fn upload(state: &State, req: &Request, stream: &mut TcpStream) -> Response {
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
    let mut sink = match UploadSink::new(len, &state.token) {
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
    let _ = stream.set_read_timeout(Some(state.config.io_timeout));
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
            api::listed_response(&listed)
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
