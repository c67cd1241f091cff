//! The explorer's server (`decode serve`): every endpoint with and without
//! the token, the Host check, paths that try to leave the served folders,
//! uploads (too big, aborted, stalled), malformed and huge requests,
//! concurrent requests; and the JSON, values, statistics and pictures
//! compared with the command line's for the same file.
//!
//! What this suite checks, in full: the explorer's server in-process and as `decode serve`: every
//! endpoint with and without the token (a cookie or the query do not
//! count), nothing a plain listener on another port receives is usable, a
//! one-time code (also through `--open` and a stand-in `xdg-open`) works
//! once, foreign `Host` headers, `..`, absolute and symlink paths, a root
//! file swapped for a link, a file renamed over or cut short under a
//! request, uploads too big, aborted and stalled and their temporary file's
//! name, malformed and oversized requests, 40 concurrent requests beside a
//! stalled client, 8 and 16 idle connections, `accept` at the descriptor
//! limit (counted, in a child process); the JSON, values, statistics and
//! PNG compared with the command line's for the same files, the summary
//! lines with the text view's header.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use pbdecode::server::{Config, Server, Stopper};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const TOKEN: &str = "0123456789abcdef0123456789abcdef";

struct Running {
    addr: SocketAddr,
    stopper: Stopper,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stopper.stop();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn start_with(config: Config) -> Running {
    let server = Server::bind(Config {
        token: Some(TOKEN.into()),
        ..config
    })
    .expect("bind");
    let addr = server.local_addr().expect("addr");
    let stopper = server.stopper().expect("stopper");
    let thread = std::thread::spawn(move || {
        let _ = server.run();
    });
    Running {
        addr,
        stopper,
        thread: Some(thread),
    }
}

/// A server whose deadlines no request of a test comes near, however
/// loaded the machine: only a client that stalls on purpose meets them.
fn start(paths: Vec<PathBuf>) -> Running {
    start_with(Config {
        paths,
        head_timeout: Duration::from_secs(60),
        io_timeout: Duration::from_secs(60),
        ..Config::default()
    })
}

/// A server with short deadlines, for the tests of clients that stall:
/// their requests wait out the deadline whatever the machine's speed, and
/// every other request on it writes its whole head at once.
fn start_stalling(paths: Vec<PathBuf>) -> Running {
    start_with(Config {
        paths,
        head_timeout: Duration::from_secs(5),
        io_timeout: Duration::from_secs(5),
        ..Config::default()
    })
}

struct Reply {
    status: u16,
    head: String,
    body: Vec<u8>,
}

impl Reply {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
    fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|l| {
            let (n, v) = l.split_once(':')?;
            n.eq_ignore_ascii_case(name).then(|| v.trim().to_string())
        })
    }
}

/// Sends raw bytes, reads the whole reply (the server closes every
/// connection after one response).
fn raw(addr: SocketAddr, request: &[u8]) -> Reply {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    s.write_all(request).expect("write");
    read_reply(&mut s)
}

fn read_reply(s: &mut TcpStream) -> Reply {
    let mut all = Vec::new();
    let _ = s.read_to_end(&mut all);
    let split = all
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a response head");
    let head = String::from_utf8_lossy(&all[..split]).into_owned();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("status");
    Reply {
        status,
        head,
        body: all[split + 4..].to_vec(),
    }
}

fn host(addr: SocketAddr) -> String {
    format!("127.0.0.1:{}", addr.port())
}

/// A GET with the token in the Authorization header.
fn get(addr: SocketAddr, path: &str) -> Reply {
    raw(
        addr,
        format!(
            "GET {path} HTTP/1.1\r\nHost: {}\r\nAuthorization: token {TOKEN}\r\n\r\n",
            host(addr)
        )
        .as_bytes(),
    )
}

fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn cli(args: &[&str]) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_decode"))
        .args(args)
        .output()
        .expect("run decode");
    out.stdout
}

#[test]
fn token_and_host() {
    let s = start(vec![fixtures()]);
    let h = host(s.addr);
    // No token: 403 on every endpoint.
    for path in [
        "/api/files",
        "/api/open?f=0/example_x_3x4x5.pb",
        "/api/values?f=0/example_x_3x4x5.pb&t=0",
        "/api/stats?f=0/example_x_3x4x5.pb&t=0",
        "/api/picture?f=0/example_x_3x4x5.pb&t=0",
        "/api/tensor?f=0/example_x_3x4x5.pb&t=0",
        "/api/hex?f=0/example_x_3x4x5.pb",
        "/api/text?f=0/example_x_3x4x5.pb",
        "/api/series?f=0/tf-record/tf2.tfevents",
    ] {
        let r = raw(
            s.addr,
            format!("GET {path} HTTP/1.1\r\nHost: {h}\r\n\r\n").as_bytes(),
        );
        assert_eq!(r.status, 403, "{path} without the token");
        assert!(r.text().contains("needs the token"), "{}", r.text());
        // Only the header lets a request in: not a cookie, not the query.
        for wrong in [
            "Authorization: token nope\r\n".to_string(),
            format!("Cookie: pbdecode-{}={TOKEN}\r\n", s.addr.port()),
        ] {
            let r = raw(
                s.addr,
                format!("GET {path} HTTP/1.1\r\nHost: {h}\r\n{wrong}\r\n").as_bytes(),
            );
            assert_eq!(r.status, 403, "{path} with {wrong}");
        }
        let sep = if path.contains('?') { '&' } else { '?' };
        let r = raw(
            s.addr,
            format!("GET {path}{sep}token={TOKEN} HTTP/1.1\r\nHost: {h}\r\n\r\n").as_bytes(),
        );
        assert_eq!(r.status, 403, "{path} with the token in the query");
        let ok = get(s.addr, path);
        assert_eq!(ok.status, 200, "{path} with the token: {}", ok.text());
        assert!(ok.header("access-control-allow-origin").is_none());
        assert!(ok.header("set-cookie").is_none());
        assert_eq!(
            ok.header("x-content-type-options").as_deref(),
            Some("nosniff")
        );
    }
    // The page and its assets (every file of web/ but the static site's
    // glue of its WebAssembly module) hold no secret: served to anyone,
    // the page without a token in it.
    let mut paths = vec!["/".to_string()];
    for entry in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/web")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if !matches!(name.as_str(), "index.html" | "wasm.js" | "wasm-worker.js") {
            paths.push(format!("/{name}"));
        }
    }
    assert!(paths.len() > 5, "{paths:?}");
    for path in &paths {
        let r = raw(
            s.addr,
            format!("GET {path} HTTP/1.1\r\nHost: {h}\r\n\r\n").as_bytes(),
        );
        assert_eq!(r.status, 200, "{path}");
        assert!(!r.text().contains(TOKEN), "{path}");
    }
    let bare = raw(
        s.addr,
        format!("GET / HTTP/1.1\r\nHost: {h}\r\n\r\n").as_bytes(),
    );
    assert!(
        bare.text()
            .contains("<meta name=\"pbdecode-token\" content=\"\">")
    );
    // Opened with the token, the page carries it (and sets no cookie).
    let page = raw(
        s.addr,
        format!("GET /?token={TOKEN} HTTP/1.1\r\nHost: {h}\r\n\r\n").as_bytes(),
    );
    assert_eq!(page.status, 200);
    assert!(page.header("set-cookie").is_none());
    assert!(page.text().contains(&format!(
        "<meta name=\"pbdecode-token\" content=\"{TOKEN}\">"
    )));
    let wrong = raw(
        s.addr,
        format!("GET /?token=nope HTTP/1.1\r\nHost: {h}\r\n\r\n").as_bytes(),
    );
    assert_eq!(wrong.status, 403);
    assert!(!wrong.text().contains(TOKEN));
    // Host: a foreign name (DNS rebinding), another port, none at all.
    for bad in [
        "evil.example:1234".to_string(),
        format!("evil.example:{}", s.addr.port()),
        "127.0.0.1:1".to_string(),
    ] {
        let r = raw(
            s.addr,
            format!(
                "GET /api/files HTTP/1.1\r\nHost: {bad}\r\nAuthorization: token {TOKEN}\r\n\r\n"
            )
            .as_bytes(),
        );
        assert_eq!(r.status, 403, "Host {bad}");
    }
    let r = raw(
        s.addr,
        format!("GET /api/files HTTP/1.1\r\nAuthorization: token {TOKEN}\r\n\r\n").as_bytes(),
    );
    assert_eq!(r.status, 400);
    let r = raw(
        s.addr,
        format!(
            "GET /api/files HTTP/1.1\r\nHost: localhost:{}\r\nAuthorization: token {TOKEN}\r\n\r\n",
            s.addr.port()
        )
        .as_bytes(),
    );
    assert_eq!(r.status, 200);
}

#[test]
fn only_the_given_paths() {
    let dir = std::env::temp_dir().join(format!("pbdecode-serve-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let inside = dir.join("served");
    std::fs::create_dir_all(inside.join("sub")).expect("mkdir");
    std::fs::write(dir.join("secret.pb"), b"\x08\x01").expect("write");
    std::fs::write(inside.join("sub/a.pb"), b"\x08\x01").expect("write");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(dir.join("secret.pb"), inside.join("escape.pb")).expect("link");
        std::os::unix::fs::symlink(inside.join("sub/a.pb"), inside.join("alias.pb")).expect("link");
    }
    let single = fixtures().join("example_x_3x4x5.pb");
    let s = start(vec![inside.clone(), single]);
    let files = get(s.addr, "/api/files").text();
    assert!(files.contains("\"0/sub/a.pb\""), "{files}");
    assert!(files.contains("\"1\""), "{files}");
    assert!(!files.contains("secret"), "{files}");
    assert_eq!(get(s.addr, "/api/hex?f=0/sub/a.pb").status, 200);
    assert_eq!(get(s.addr, "/api/hex?f=1").status, 200);
    for (key, want) in [
        ("0/../secret.pb", 403),
        ("0/sub/../../secret.pb", 403),
        ("0/./sub/a.pb", 403),
        ("0//etc/passwd", 403),
        ("/etc/passwd", 404),
        (dir.join("secret.pb").to_str().unwrap_or_default(), 404),
        ("0/sub\\..\\..\\secret.pb", 403),
        ("0/missing.pb", 404),
        ("1/x", 404),
        ("7", 404),
        ("0", 404),
    ] {
        let r = get(s.addr, &format!("/api/open?f={}", enc(key)));
        assert_eq!(r.status, want, "{key}: {}", r.text());
    }
    #[cfg(unix)]
    {
        assert_eq!(get(s.addr, "/api/open?f=0/escape.pb").status, 403);
        assert_eq!(get(s.addr, "/api/open?f=0/alias.pb").status, 200);
    }
    // A request path with .. is just not a page.
    assert_eq!(get(s.addr, "/../../etc/passwd").status, 404);
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Two files whose names differ only in bytes that are not UTF-8 get keys
/// of their own, and each key opens its own file; a byte written `%XX`
/// cannot smuggle in `..` or `/`.
#[cfg(unix)]
#[test]
fn names_that_are_not_utf8_keep_distinct_keys() {
    use std::os::unix::ffi::OsStrExt;
    let dir = std::env::temp_dir().join(format!("pbdecode-serve-bytes-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let names: [&[u8]; 3] = [b"a\xff.pb", b"a\xfe.pb", b"100%25.pb"];
    for (k, name) in names.iter().enumerate() {
        let path = dir.join(std::ffi::OsStr::from_bytes(name));
        // Each file of its own length: 2, 4 and 6 bytes.
        std::fs::write(path, vec![0x08u8; 2 * (k + 1)]).unwrap();
    }
    std::fs::write(dir.join("sub/secret.pb"), [8u8, 1]).unwrap();
    let s = start(vec![dir.join("sub").join(".."), dir.join("sub")]);
    let listed = get(s.addr, "/api/files").text();
    let doc: serde_json::Value = serde_json::from_str(&listed).unwrap();
    let files = doc
        .get("files")
        .and_then(|f| f.as_array())
        .unwrap_or_else(|| panic!("{listed}"));
    let mut sizes = Vec::new();
    for f in files {
        let key = f.get("key").and_then(|k| k.as_str()).unwrap();
        if !key.starts_with("0/") || key.contains("sub") {
            continue;
        }
        let r = get(s.addr, &format!("/api/hex?f={}", enc(key)));
        assert_eq!(r.status, 200, "{key}: {}", r.text());
        let size = f.get("size").and_then(|n| n.as_u64()).unwrap();
        sizes.push((key.to_string(), size));
    }
    sizes.sort_by_key(|(_, n)| *n);
    let keys: Vec<&str> = sizes.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        keys,
        ["0/a%FF.pb", "0/a%FE.pb", "0/100%2525.pb"],
        "{listed}"
    );
    // Escapes that would spell a separator, a NUL or a step out are refused.
    for key in [
        "0/%2E%2E/sub/secret.pb",
        "0/sub%2Fsecret.pb",
        "0/a%00.pb",
        "0/a%F.pb",
        "0/a%+f.pb",
    ] {
        let r = get(s.addr, &format!("/api/hex?f={}", enc(key)));
        assert_eq!(r.status, 403, "{key}: {}", r.text());
    }
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The summary lines /api/open sends the page are the header of the
/// command line's text view, label and text, in order.
#[test]
fn summary_lines_are_the_text_header() {
    let s = start(vec![fixtures()]);
    for (key, titled) in [
        ("onnx-model/everything.onnx", true),
        ("onnx-model/constants.onnx", true),
        ("tf/graph_all_forms.pb", false),
        ("tf/saved_model_two_signatures.pb", false),
    ] {
        let path = fixtures().join(key);
        let text = String::from_utf8(cli(&[path.to_str().unwrap_or_default()])).unwrap();
        // After the format/type/size block, to the first blank line; a
        // model's lines under its title, indented two spaces.
        let mut lines = text.lines().skip_while(|l| !l.is_empty()).skip(1);
        if titled {
            assert_eq!(lines.next(), Some("ONNX model"));
        }
        let want: Vec<(String, String)> = lines
            .take_while(|l| !l.is_empty())
            .filter_map(|l| {
                let (label, rest) = l.trim_start().split_once(':')?;
                Some((label.to_string(), rest.trim_start().to_string()))
            })
            .collect();
        let r = get(s.addr, &format!("/api/open?f={}", enc(&format!("0/{key}"))));
        assert_eq!(r.status, 200);
        let body: serde_json::Value = serde_json::from_str(&r.text()).unwrap();
        let got: Vec<(String, String)> = body["summary_lines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                (
                    l["label"].as_str().unwrap().to_string(),
                    l["text"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert!(!got.is_empty(), "{key}");
        assert_eq!(got, want, "{key}");
    }
}

/// /api/open says what the page shows of a file from what the file holds:
/// its overview and whether the Graph tab has graphs (the page names no
/// format).
#[test]
fn open_says_which_views_a_file_has() {
    let s = start(vec![fixtures()]);
    for (key, overview, graph) in [
        ("example_x_3x4x5.pb", "tensor", false),
        ("onnx-model/everything.onnx", "model", true),
        (
            "schemaless/sample/tf_fg_dense_frozen_frozen_graph.pb",
            "model",
            true,
        ),
        ("tf/saved_model_two_signatures.pb", "model", true),
        ("onnx-containers/seq_nested.pb", "summary", false),
        ("tf-checkpoint/train/ckpt.index", "checkpoint", false),
        ("tf-record/examples.tfrecord", "records", false),
        ("onnx-tensor/bad_values_missing.pb", "fields", false),
    ] {
        let r = get(s.addr, &format!("/api/open?f={}", enc(&format!("0/{key}"))));
        assert_eq!(r.status, 200, "{key}");
        let body: serde_json::Value = serde_json::from_str(&r.text()).unwrap();
        assert_eq!(body["overview"], overview, "{key}");
        assert_eq!(body["graph"], graph, "{key}");
    }
}

/// The JSON of /api/open (every value) holds the command line's `--json`
/// output verbatim.
#[test]
fn json_matches_the_command_line() {
    let s = start(vec![fixtures()]);
    for (key, extra) in [
        ("example_x_3x4x5.pb", &[][..]),
        ("onnx-model/everything.onnx", &[][..]),
        ("onnx-model/external.onnx", &[][..]),
        ("onnx-containers/seq_nested.pb", &[][..]),
        ("onnx-containers/sparse_coo.pb", &[][..]),
        ("onnx-containers/map_string_keys.pb", &[][..]),
        ("onnx-tensor/complex64_raw.pb", &[][..]),
        ("onnx-tensor/int4_typed.pb", &[][..]),
        ("onnx-tensor/string_typed.pb", &[][..]),
        ("tf/graph_all_forms.pb", &[][..]),
        ("tf/saved_model_two_signatures.pb", &[][..]),
    ] {
        let path = fixtures().join(key);
        let p = path.to_str().unwrap_or_default();
        let mut args = vec!["--json", p];
        args.extend_from_slice(extra);
        let want = cli(&args);
        assert!(!want.is_empty(), "{key}: the command line printed nothing");
        // (A file read without a schema comes as a field tree a page at
        // a time: the_field_tree_is_the_command_lines_reading.)
        let r = get(
            s.addr,
            &format!("/api/open?f={}&values=all", enc(&format!("0/{key}"))),
        );
        assert_eq!(r.status, 200);
        let body = r.text();
        let want = String::from_utf8_lossy(&want);
        assert!(
            body.contains(&format!("\"decoded\": {want}")),
            "{key}: {body}\n---\n{want}"
        );
    }
    // --as: the same reason as the command line.
    let r = get(s.addr, "/api/open?f=0/example_x_3x4x5.pb&as=onnx-model");
    let body = r.text();
    assert!(body.contains("\"ok\": false"), "{body}");
    let err = Command::new(env!("CARGO_BIN_EXE_decode"))
        .args(["--as", "onnx-model"])
        .arg(fixtures().join("example_x_3x4x5.pb"))
        .output()
        .expect("decode");
    let stderr = String::from_utf8_lossy(&err.stderr);
    let reason = stderr
        .trim()
        .rsplit_once(": not onnx-model: ")
        .map(|(_, r)| r.to_string())
        .unwrap_or_default();
    assert!(!reason.is_empty(), "{stderr}");
    assert!(
        body.contains(&format!("\"message\": \"{reason}\"")),
        "{body}\n{reason}"
    );
    // A file no format takes: the check, the path and the offset.
    let r = get(s.addr, "/api/open?f=0/onnx-tensor/bad_truncated_raw.pb");
    let body = r.text();
    assert!(body.contains("\"ok\": false"), "{body}");
    assert!(body.contains("\"check\": \"length\""), "{body}");
    assert!(body.contains("\"offset\": 7"), "{body}");
    assert!(body.contains("\"tried\": ["), "{body}");
    let r = get(s.addr, "/api/open?f=0/example_x_3x4x5.pb&as=nope");
    assert!(r.text().contains("unknown format"));
    // The text view is the command line's.
    let r = get(s.addr, "/api/text?f=0/onnx-model/everything.onnx");
    let want = cli(&[
        "--dense",
        fixtures()
            .join("onnx-model/everything.onnx")
            .to_str()
            .unwrap_or_default(),
    ]);
    assert_eq!(r.text(), String::from_utf8_lossy(&want));
}

/// The values the command line prints, taken from its JSON.
fn cli_values(file: &Path) -> Vec<String> {
    let out =
        String::from_utf8_lossy(&cli(&["--json", file.to_str().unwrap_or_default()])).into_owned();
    let start = out.find("\"values\": [").expect("values") + "\"values\": [".len();
    let end = start + out[start..].find(']').expect("end");
    out[start..end].split(", ").map(str::to_string).collect()
}

/// The values in a /api/values reply: each a JSON string holding the
/// contract's text of the value.
fn api_values(body: &str) -> Vec<Vec<String>> {
    api_list(body, "values")
}

/// A list of rows of strings in a /api/values reply (`values` or `text`).
fn api_list(body: &str, key: &str) -> Vec<Vec<String>> {
    let reply: serde_json::Value = serde_json::from_str(body).expect("JSON");
    reply[key]
        .as_array()
        .expect("list")
        .iter()
        .map(|row| {
            row.as_array()
                .expect("row")
                .iter()
                .map(|v| v.as_str().expect("string").to_string())
                .collect()
        })
        .collect()
}

#[test]
fn values_stats_picture_and_hex() {
    let s = start(vec![fixtures()]);
    let file = fixtures().join("example_x_3x4x5.pb");
    let want = cli_values(&file);
    assert_eq!(want.len(), 60);
    // Every value, in pages of 7.
    let mut got = Vec::new();
    for offset in (0..60).step_by(7) {
        let r = get(
            s.addr,
            &format!("/api/values?f=0/example_x_3x4x5.pb&t=0&offset={offset}&count=7"),
        );
        assert_eq!(r.status, 200);
        got.extend(api_values(&r.text()).concat());
    }
    assert_eq!(got, want);
    // A window: rows 1..3 of the second 4 x 5 plane, columns 2..4.
    let r = get(
        s.addr,
        "/api/values?f=0/example_x_3x4x5.pb&t=0&offset=27&count=3&rows=2&stride=5",
    );
    let rows = api_values(&r.text());
    assert_eq!(rows, vec![want[27..30].to_vec(), want[32..35].to_vec()]);
    // By name, and past the end.
    let r = get(
        s.addr,
        "/api/values?f=0/example_x_3x4x5.pb&name=x&offset=59&count=10",
    );
    assert_eq!(api_values(&r.text()), vec![vec![want[59].clone()]]);
    assert!(r.text().contains("\"total\": 60"));
    assert_eq!(
        get(s.addr, "/api/values?f=0/example_x_3x4x5.pb&name=nope").status,
        404
    );
    assert_eq!(
        get(
            s.addr,
            "/api/values?f=0/example_x_3x4x5.pb&t=0&count=1000000"
        )
        .status,
        400
    );
    assert_eq!(
        get(s.addr, "/api/values?f=0/example_x_3x4x5.pb&t=zz").status,
        404
    );
    // A model's initializer, a sub-byte type and an external tensor.
    for (key, name) in [
        ("onnx-model/everything.onnx", None),
        ("onnx-tensor/int4_raw.pb", None),
        ("onnx-tensor/external.pb", None),
        ("onnx-tensor/float8e4m3fn_typed.pb", None),
        ("onnx-tensor/complex128_typed.pb", None),
        ("onnx-model/external.onnx", Some("W")),
    ] {
        let r = get(s.addr, &format!("/api/open?f={}", enc(&format!("0/{key}"))));
        assert!(r.text().contains("\"ok\": true"), "{key}");
        let t = match name {
            Some(n) => format!("name={n}"),
            None => "t=0".into(),
        };
        let v = get(
            s.addr,
            &format!("/api/values?f={}&{t}&count=1000", enc(&format!("0/{key}"))),
        );
        assert_eq!(v.status, 200, "{key}: {}", v.text());
        assert!(!api_values(&v.text()).concat().is_empty(), "{key}");
    }
    // The text view's forms too: complex as the command line prints it.
    let v = get(s.addr, "/api/values?f=0/onnx-tensor/complex64_raw.pb&t=0");
    assert_eq!(
        api_list(&v.text(), "text"),
        vec![vec![
            "1.0-1.0i".to_string(),
            "0.5-0.0i".into(),
            "NaN+infi".into()
        ]]
    );
    let direct = cli_values(&fixtures().join("onnx-tensor/int4_raw.pb"));
    let v = get(
        s.addr,
        "/api/values?f=0/onnx-tensor/int4_raw.pb&t=0&count=1000",
    );
    assert_eq!(api_values(&v.text()).concat(), direct);
    // Statistics: the command line's object.
    let out =
        String::from_utf8_lossy(&cli(&["--json", file.to_str().unwrap_or_default()])).into_owned();
    let stats = &out[out.find("\"stats\": ").expect("stats")..];
    let stats = &stats[..stats.find('}').expect("}") + 1];
    let r = get(s.addr, "/api/stats?f=0/example_x_3x4x5.pb&t=0");
    assert!(r.text().contains(stats), "{}\n{stats}", r.text());
    assert!(r.text().contains("\"histogram\": {\"bins\": [{\"label\": "));
    // The mean and std as the text view writes them.
    let reply = json(&r);
    let text = String::from_utf8_lossy(&cli(&[file.to_str().unwrap_or_default()])).into_owned();
    for key in ["mean", "std"] {
        let shown = reply["text"][key].as_str().expect("a string");
        assert!(
            text.contains(&format!("  {key} {shown}")),
            "{key} {shown}\n{text}"
        );
    }
    // The picture is --picture's PNG.
    let r = get(s.addr, "/api/picture?f=0/example_x_3x4x5.pb&t=0");
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type").as_deref(), Some("image/png"));
    let png = cli(&["--picture", "-", file.to_str().unwrap_or_default()]);
    assert_eq!(r.body, png);
    let r = get(s.addr, "/api/tensor?f=0/example_x_3x4x5.pb&t=0");
    assert!(r.text().contains("\"layout\": \"CHW\""), "{}", r.text());
    assert!(r.text().contains("\"dims\": [3, 4, 5]"));
    let r = get(s.addr, "/api/picture?f=0/onnx-tensor/string_typed.pb&t=0");
    assert_eq!(r.status, 422);
    // Hex: the file's bytes.
    let bytes = std::fs::read(&file).expect("read");
    let r = get(
        s.addr,
        "/api/hex?f=0/example_x_3x4x5.pb&offset=250&count=100",
    );
    let want: String = bytes[250..].iter().map(|b| format!("{b:02x}")).collect();
    assert!(
        r.text().contains(&format!(
            "\"offset\": 250, \"size\": 254, \"hex\": \"{want}\""
        )),
        "{}",
        r.text()
    );
}

fn post(addr: SocketAddr, path: &str, headers: &str, body: &[u8]) -> Reply {
    let mut req = format!(
        "POST {path} HTTP/1.1\r\nHost: {}\r\n{headers}Content-Length: {}\r\n\r\n",
        host(addr),
        body.len()
    )
    .into_bytes();
    req.extend_from_slice(body);
    raw(addr, &req)
}

fn upload_files_left() -> usize {
    let prefix = format!("pbdecode-upload-{}-", std::process::id());
    std::fs::read_dir(std::env::temp_dir())
        .map(|d| {
            d.flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
                .count()
        })
        .unwrap_or(0)
}

#[test]
fn uploads() {
    let s = start_with(Config {
        paths: vec![],
        max_upload: 200 << 20,
        head_timeout: Duration::from_secs(60),
        io_timeout: Duration::from_secs(60),
        ..Config::default()
    });
    let bytes = std::fs::read(fixtures().join("example_x_3x4x5.pb")).expect("read");
    let auth = format!("Authorization: token {TOKEN}\r\n");
    // Only the Authorization header changes state.
    assert_eq!(
        post(
            s.addr,
            &format!("/api/upload?name=x.pb&token={TOKEN}"),
            "",
            &bytes
        )
        .status,
        403
    );
    assert_eq!(
        post(s.addr, "/api/upload?name=x.pb", "", &bytes).status,
        403
    );
    let r = post(s.addr, "/api/upload?name=x.pb", &auth, &bytes);
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.text().contains("\"key\": \"u1\""), "{}", r.text());
    let open = get(s.addr, "/api/open?f=u1&values=all").text();
    let want = cli(&[
        "--json",
        fixtures()
            .join("example_x_3x4x5.pb")
            .to_str()
            .unwrap_or_default(),
    ]);
    assert!(open.contains(&String::from_utf8_lossy(&want).into_owned()));
    assert!(get(s.addr, "/api/files").text().contains("\"u1\""));
    // A GET cannot close; a POST with the token can.
    assert_eq!(get(s.addr, "/api/close?f=u1").status, 404);
    assert_eq!(post(s.addr, "/api/close?f=u1", &auth, b"").status, 200);
    assert_eq!(get(s.addr, "/api/open?f=u1").status, 404);
    assert_eq!(post(s.addr, "/api/close?f=u1", &auth, b"").status, 404);
    // Too big: refused before any byte is read.
    let r = raw(
        s.addr,
        format!(
            "POST /api/upload HTTP/1.1\r\nHost: {}\r\n{auth}Content-Length: {}\r\n\r\n",
            host(s.addr),
            300u64 << 20
        )
        .as_bytes(),
    );
    assert_eq!(r.status, 413);
    // No length.
    let r = raw(
        s.addr,
        format!(
            "POST /api/upload HTTP/1.1\r\nHost: {}\r\n{auth}Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            host(s.addr)
        )
        .as_bytes(),
    );
    assert_eq!(r.status, 411);
    // Aborted: 100 MiB announced (a temporary file), 1 MiB sent, then the
    // client stops sending.
    let mut c = TcpStream::connect(s.addr).expect("connect");
    c.write_all(
        format!(
            "POST /api/upload?name=big.pb HTTP/1.1\r\nHost: {}\r\n{auth}Content-Length: {}\r\n\r\n",
            host(s.addr),
            100u64 << 20
        )
        .as_bytes(),
    )
    .expect("write");
    c.write_all(&vec![0u8; 1 << 20]).expect("write");
    c.shutdown(std::net::Shutdown::Write).expect("shutdown");
    let r = read_reply(&mut c);
    assert_eq!(r.status, 400);
    assert!(
        r.text()
            .contains("upload aborted after 1048576 of 104857600 bytes"),
        "{}",
        r.text()
    );
    // Stalled: the server gives up after its deadline (a server with a
    // short one), and serves on.
    let s = start_with(Config {
        paths: vec![],
        max_upload: 200 << 20,
        head_timeout: Duration::from_secs(5),
        io_timeout: Duration::from_secs(5),
        ..Config::default()
    });
    let mut c = TcpStream::connect(s.addr).expect("connect");
    c.write_all(
        format!(
            "POST /api/upload HTTP/1.1\r\nHost: {}\r\n{auth}Content-Length: 1000\r\n\r\nabc",
            host(s.addr)
        )
        .as_bytes(),
    )
    .expect("write");
    let r = read_reply(&mut c);
    assert_eq!(r.status, 408, "{}", r.text());
    // Nothing is left behind, nothing new is open, and the server serves on.
    assert_eq!(upload_files_left(), 0);
    assert!(!get(s.addr, "/api/files").text().contains("\"u2\""));
    assert_eq!(get(s.addr, "/api/files").status, 200);
}

#[test]
fn bad_requests_and_concurrency() {
    let s = start_stalling(vec![fixtures()]);
    let h = host(s.addr);
    assert_eq!(raw(s.addr, b"GARBAGE\r\n\r\n").status, 400);
    assert_eq!(raw(s.addr, b"GET /%zz HTTP/1.1\r\n\r\n").status, 400);
    // Huge headers.
    let big = format!(
        "GET /api/files HTTP/1.1\r\nHost: {h}\r\nX-Big: {}\r\n\r\n",
        "a".repeat(64 * 1024)
    );
    assert_eq!(raw(s.addr, big.as_bytes()).status, 431);
    let many: String = (0..100).map(|i| format!("X-{i}: 1\r\n")).collect();
    assert_eq!(
        raw(
            s.addr,
            format!("GET /api/files HTTP/1.1\r\nHost: {h}\r\n{many}\r\n").as_bytes()
        )
        .status,
        431
    );
    let r = raw(
        s.addr,
        format!("DELETE /api/files HTTP/1.1\r\nHost: {h}\r\nAuthorization: token {TOKEN}\r\n\r\n")
            .as_bytes(),
    );
    assert_eq!(r.status, 405);
    // A client that sends its request and closes its side at once is
    // answered.
    let mut c = TcpStream::connect(s.addr).expect("connect");
    c.write_all(
        format!("GET /api/files HTTP/1.1\r\nHost: {h}\r\nAuthorization: token {TOKEN}\r\n\r\n")
            .as_bytes(),
    )
    .expect("write");
    c.shutdown(std::net::Shutdown::Write).expect("shutdown");
    assert_eq!(read_reply(&mut c).status, 200);
    // A slow client (half a request head) holds one worker until its
    // deadline; meanwhile 40 requests from 8 threads are all served.
    let mut slow = TcpStream::connect(s.addr).expect("connect");
    slow.write_all(b"GET /api/files HTTP/1.1\r\nHo")
        .expect("write");
    let addr = s.addr;
    let threads: Vec<_> = (0..8)
        .map(|i| {
            std::thread::spawn(move || {
                (0..5)
                    .map(|k| {
                        let r = get(
                            addr,
                            &format!(
                                "/api/values?f=0/example_x_3x4x5.pb&t=0&offset={}&count=1",
                                (i * 5 + k) % 60
                            ),
                        );
                        r.status
                    })
                    .collect::<Vec<u16>>()
            })
        })
        .collect();
    for t in threads {
        assert!(t.join().expect("thread").iter().all(|&st| st == 200));
    }
    let r = read_reply(&mut slow);
    assert_eq!(r.status, 408);
    assert_eq!(get(s.addr, "/api/files").status, 200);
}

/// `decode serve` as a command: prints its address, serves, and `decode
/// FILE` still works.
#[test]
fn the_serve_command() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_decode"))
        .arg("serve")
        .arg(fixtures().join("example_x_3x4x5.pb"))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("decode serve");
    let mut out = child.stdout.take().expect("stdout");
    let mut seen = Vec::new();
    let mut byte = [0u8; 1];
    while !seen.ends_with(b"\n") && out.read(&mut byte).unwrap_or(0) == 1 {
        seen.push(byte[0]);
    }
    let line = String::from_utf8_lossy(&seen).into_owned();
    let url = line
        .trim()
        .rsplit(' ')
        .next()
        .unwrap_or_default()
        .to_string();
    assert!(
        url.starts_with("http://127.0.0.1:") && url.contains("/?token="),
        "{line}"
    );
    let port: u16 = url["http://127.0.0.1:".len()..]
        .split('/')
        .next()
        .and_then(|p| p.parse().ok())
        .expect("port");
    let token = url.rsplit('=').next().unwrap_or_default();
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let r = raw(
        addr,
        format!("GET /api/open?f=0 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: token {token}\r\n\r\n").as_bytes(),
    );
    assert_eq!(r.status, 200);
    assert!(r.text().contains("\"format\": \"onnx-tensor\""));
    let _ = child.kill();
    let _ = child.wait();
    let bad = Command::new(env!("CARGO_BIN_EXE_decode"))
        .args(["serve", "--max-upload", "lots"])
        .output()
        .expect("decode serve");
    assert_eq!(bad.status.code(), Some(2));
    let missing = Command::new(env!("CARGO_BIN_EXE_decode"))
        .args(["serve", "/no/such/folder"])
        .output()
        .expect("decode serve");
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        !cli(&[fixtures()
            .join("example_x_3x4x5.pb")
            .to_str()
            .unwrap_or_default()])
        .is_empty()
    );
}

/// A fresh folder for one test, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("pbdecode-serve-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("mkdir");
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A root file named on the command line and swapped for a link to a file
/// outside after the start is refused, as the same file in a served folder
/// is; the file put back is served again.
#[test]
fn a_root_file_swapped_for_a_link_is_refused() {
    let d = Scratch::new("rootlink");
    let served = d.0.join("model.pb");
    let secret = d.0.join("secret.pb");
    std::fs::write(&served, b"\x08\x01").expect("write");
    std::fs::write(&secret, b"\x08\x02SECRET").expect("write");
    let s = start(vec![served.clone()]);
    assert_eq!(get(s.addr, "/api/hex?f=0").status, 200);
    std::fs::rename(&served, d.0.join("kept.pb")).expect("rename");
    std::os::unix::fs::symlink(&secret, &served).expect("link");
    for path in ["/api/hex?f=0", "/api/open?f=0"] {
        let r = get(s.addr, path);
        assert_eq!(r.status, 403, "{path}: {}", r.text());
        assert!(!r.text().contains("SECRET") && !r.text().contains("53 45 43"));
    }
    assert!(!get(s.addr, "/api/files").text().contains("\"size\": 8"));
    std::fs::remove_file(&served).expect("unlink");
    std::fs::rename(d.0.join("kept.pb"), &served).expect("rename");
    assert_eq!(get(s.addr, "/api/hex?f=0").status, 200);
}

/// An ONNX FLOAT tensor of `n` elements in raw_data, values 1.0.
fn float_tensor(n: u64) -> Vec<u8> {
    fn varint(mut v: u64, out: &mut Vec<u8>) {
        while v >= 0x80 {
            out.push((v as u8) | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }
    let mut t = vec![0x08];
    varint(n, &mut t);
    t.extend_from_slice(&[0x10, 0x01, 0x4a]);
    varint(n * 4, &mut t);
    let start = t.len();
    t.resize(start + (n * 4) as usize, 0);
    for v in t[start..].chunks_exact_mut(4) {
        v.copy_from_slice(&1.0f32.to_le_bytes());
    }
    t
}

/// A served file replaced (renamed over) by another of the same length and
/// time, the old one then cut short: the server maps the new file, it
/// never reads the old map.
#[test]
fn a_replaced_file_is_mapped_again() {
    let d = Scratch::new("replaced");
    let path = d.0.join("t.pb");
    let old = d.0.join("old.pb");
    let bytes = float_tensor(1 << 16);
    std::fs::write(&path, &bytes).expect("write");
    let s = start(vec![d.0.clone()]);
    let offset = bytes.len() - 64;
    let hex = |s: &Running| {
        get(
            s.addr,
            &format!("/api/hex?f=0/t.pb&offset={offset}&count=16"),
        )
    };
    assert_eq!(hex(&s).status, 200);
    let mtime = std::fs::metadata(&path)
        .expect("stat")
        .modified()
        .expect("mtime");
    std::fs::rename(&path, &old).expect("rename");
    let mut fresh = bytes.clone();
    fresh[offset] = 0x7e;
    std::fs::write(&path, &fresh).expect("write");
    std::fs::File::options()
        .write(true)
        .open(&path)
        .expect("open")
        .set_modified(mtime)
        .expect("set mtime");
    std::fs::File::options()
        .write(true)
        .open(&old)
        .expect("open")
        .set_len(0)
        .expect("truncate");
    let r = hex(&s);
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.text().contains("7e"), "{}", r.text());
    // Cut short between requests: the next request reads what is left
    // and says what is wrong with it; the server serves on.
    std::fs::File::options()
        .write(true)
        .open(&path)
        .expect("open")
        .set_len(100)
        .expect("truncate");
    let r = get(s.addr, "/api/open?f=0/t.pb");
    assert!(r.text().contains("\"ok\": false"), "{}", r.text());
    assert_eq!(get(s.addr, "/api/files").status, 200);
}

/// A mapped file cut short under a request: that request fails with 409,
/// the server serves on, and later requests for that file say it was cut
/// short. Run in a process of its own: recovered faults are counted per
/// process, so a request of another test running beside it would be
/// answered 409 too.
#[test]
fn a_file_cut_short_under_a_request_fails_that_request() {
    let out = Command::new(std::env::current_exe().expect("exe"))
        .args(["--exact", "server_api::cut_short_child", "--nocapture"])
        .env("PBDECODE_CUT_SHORT_CHILD", "1")
        .output()
        .expect("child");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("cut short and served on"), "{text}");
}

/// In a child process (see
/// `a_file_cut_short_under_a_request_fails_that_request`). The file is a
/// dropped one, kept in a private temporary file the test truncates
/// through /proc; a served file would be cut by another program at any
/// moment, which a test cannot time.
#[test]
fn cut_short_child() {
    if std::env::var_os("PBDECODE_CUT_SHORT_CHILD").is_none() {
        return;
    }
    let s = start_with(Config {
        paths: vec![fixtures().join("example_x_3x4x5.pb")],
        max_upload: 200 << 20,
        head_timeout: Duration::from_secs(60),
        io_timeout: Duration::from_secs(60),
        ..Config::default()
    });
    // 65 MiB and a few bytes: past the in-memory limit, and a size no
    // other test uses.
    let bytes = float_tensor((65 << 18) + 3);
    let auth = format!("Authorization: token {TOKEN}\r\n");
    let r = post(s.addr, "/api/upload?name=big.pb", &auth, &bytes);
    assert_eq!(r.status, 200, "{}", r.text());
    let key = r
        .text()
        .split("\"key\": \"")
        .nth(1)
        .and_then(|t| t.split('"').next())
        .unwrap_or_default()
        .to_string();
    let fd = std::fs::read_dir("/proc/self/fd")
        .expect("fds")
        .flatten()
        .map(|e| e.path())
        .find(|p| std::fs::metadata(p).is_ok_and(|m| m.len() == bytes.len() as u64))
        .expect("the upload's temporary file");
    std::fs::File::options()
        .write(true)
        .open(&fd)
        .expect("open")
        .set_len(4096)
        .expect("truncate");
    let r = get(
        s.addr,
        &format!("/api/hex?f={key}&offset=50000000&count=16"),
    );
    assert_eq!(r.status, 409, "{}", r.text());
    assert!(r.text().contains("cut short"), "{}", r.text());
    assert_eq!(get(s.addr, "/api/files").status, 200);
    assert_eq!(get(s.addr, "/api/open?f=0").status, 200);
    let r = get(s.addr, &format!("/api/open?f={key}"));
    assert_eq!(r.status, 409, "{}", r.text());
    println!("cut short and served on");
}

/// A dropped file too big for memory goes to a temporary file whose name
/// (if it has one at all) has nothing of the token in it.
#[test]
fn an_upload_file_name_holds_no_part_of_the_token() {
    let s = start_with(Config {
        paths: vec![],
        max_upload: 200 << 20,
        head_timeout: Duration::from_secs(60),
        io_timeout: Duration::from_secs(60),
        ..Config::default()
    });
    let size = (65 << 20) + 11;
    let r = post(
        s.addr,
        "/api/upload?name=big.bin",
        &format!("Authorization: token {TOKEN}\r\n"),
        &vec![0u8; size],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    // Six hex digits of the token, with a letter among them (so that no
    // process id or inode number in a link matches by chance).
    let parts: Vec<&str> = TOKEN
        .as_bytes()
        .windows(6)
        .filter(|w| w.iter().any(u8::is_ascii_alphabetic))
        .map(|w| std::str::from_utf8(w).unwrap_or_default())
        .collect();
    let mut found = 0;
    for e in std::fs::read_dir("/proc/self/fd").expect("fds").flatten() {
        let Ok(link) = std::fs::read_link(e.path()) else {
            continue;
        };
        let link = link.to_string_lossy().into_owned();
        for part in &parts {
            assert!(!link.contains(part), "{link} holds {part} of the token");
        }
        if std::fs::metadata(e.path()).is_ok_and(|m| m.len() == size as u64) {
            found += 1;
        }
    }
    assert_eq!(found, 1, "the upload's temporary file");
}

/// Browsers send a host's cookies to every port of it: whatever the page
/// keeps must not be something another server on 127.0.0.1 receives and
/// can use here. The page's flow (opened with the token, or a one-time
/// code) sets nothing that travels: a request as the browser would send it
/// to another port, caught by a plain listener, holds nothing of the
/// token, and replayed here it gets 403.
#[test]
fn another_port_gets_nothing_it_can_use() {
    let s = start(vec![fixtures()]);
    let h = host(s.addr);
    let mut cookies: Vec<String> = Vec::new();
    for opening in [format!("/?token={TOKEN}"), "/".to_string()] {
        let r = raw(
            s.addr,
            format!("GET {opening} HTTP/1.1\r\nHost: {h}\r\n\r\n").as_bytes(),
        );
        cookies.extend(r.head.lines().filter_map(|l| {
            let (n, v) = l.split_once(':')?;
            n.eq_ignore_ascii_case("set-cookie")
                .then(|| v.trim().split(';').next().unwrap_or_default().to_string())
        }));
    }
    let other = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let other_port = other.local_addr().expect("addr").port();
    let cookie_header = if cookies.is_empty() {
        String::new()
    } else {
        format!("Cookie: {}\r\n", cookies.join("; "))
    };
    let sent = std::thread::spawn(move || {
        let mut c = TcpStream::connect(("127.0.0.1", other_port)).expect("connect");
        c.write_all(
            format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{other_port}\r\n{cookie_header}\r\n")
                .as_bytes(),
        )
        .expect("write");
    });
    let (mut conn, _) = other.accept().expect("accept");
    let mut caught = Vec::new();
    let _ = conn.read_to_end(&mut caught);
    sent.join().expect("client");
    let caught = String::from_utf8_lossy(&caught).into_owned();
    assert!(
        !caught.contains(TOKEN),
        "another port received the token: {caught}"
    );
    // Its headers replayed here, with this server's Host.
    let replay: String = caught
        .lines()
        .skip(1)
        .filter(|l| !l.is_empty() && !l.to_ascii_lowercase().starts_with("host:"))
        .map(|l| format!("{l}\r\n"))
        .collect();
    let r = raw(
        s.addr,
        format!("GET /api/files HTTP/1.1\r\nHost: {h}\r\n{replay}\r\n").as_bytes(),
    );
    assert_eq!(r.status, 403, "{}", r.text());
}

/// A one-time address opens the page once (with the token in it); the
/// same code again, or a made-up one, gets 403.
#[test]
fn a_one_time_code_works_once() {
    let server = Server::bind(Config {
        paths: vec![fixtures()],
        token: Some(TOKEN.into()),
        ..Config::default()
    })
    .expect("bind");
    let url = server.one_time_url().expect("code");
    assert!(!url.contains(TOKEN), "{url}");
    let path = url
        .split_once("://")
        .and_then(|(_, rest)| rest.split_once('/'))
        .map(|(_, p)| format!("/{p}"))
        .expect("path");
    assert!(path.starts_with("/?code="), "{path}");
    let addr = server.local_addr().expect("addr");
    let stopper = server.stopper().expect("stopper");
    let s = Running {
        addr,
        stopper,
        thread: Some(std::thread::spawn(move || {
            let _ = server.run();
        })),
    };
    let h = host(s.addr);
    let visit = |p: &str| {
        raw(
            s.addr,
            format!("GET {p} HTTP/1.1\r\nHost: {h}\r\n\r\n").as_bytes(),
        )
    };
    let first = visit(&path);
    assert_eq!(first.status, 200);
    assert!(first.text().contains(&format!("content=\"{TOKEN}\"")));
    let again = visit(&path);
    assert_eq!(again.status, 403);
    assert!(!again.text().contains(TOKEN));
    assert_eq!(visit("/?code=0123").status, 403);
}

/// Connections that send nothing hold no worker: with 8 and with 16 of
/// them open (as many as the workers, and twice), a request is answered
/// while they are all still open.
#[test]
fn idle_connections_do_not_hold_the_workers() {
    let s = start(vec![fixtures()]);
    for idle_count in [8, 16] {
        let idle: Vec<TcpStream> = (0..idle_count)
            .map(|_| TcpStream::connect(s.addr).expect("connect"))
            .collect();
        let r = get(
            s.addr,
            "/api/values?f=0/example_x_3x4x5.pb&t=0&offset=0&count=1",
        );
        assert_eq!(r.status, 200, "{}", r.text());
        for c in &idle {
            c.set_nonblocking(true).expect("nonblocking");
            let mut byte = [0u8; 1];
            let still_open = matches!(
                (&*c).read(&mut byte),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock
            );
            assert!(still_open, "an idle connection was closed or answered");
        }
    }
}

/// In a child process (see `accept_at_the_descriptor_limit_backs_off`): a
/// server in a process with no descriptor left. A client that connects
/// then is closed at once (the server lets its reserve descriptor go,
/// accepts and closes), in a bounded number of `accept` calls, not a loop
/// that spins on EMFILE; once descriptors are free again it serves.
///
/// Only this thread may open descriptors while they are counted and
/// filled: a thread's first allocation makes glibc read
/// `/sys/devices/system/cpu/online` to size its arenas, and a worker doing
/// that during the filling would leave one descriptor free when it closes
/// it (the server then accepts normally and the client waits for the head
/// timeout). So the server has one worker, and one request through the
/// accept loop and that worker comes first.
#[test]
fn descriptor_limit_child() {
    if std::env::var_os("PBDECODE_FD_LIMIT_CHILD").is_none() {
        return;
    }
    let server = Server::bind(Config {
        paths: vec![fixtures()],
        token: Some(TOKEN.into()),
        workers: 1,
        ..Config::default()
    })
    .expect("bind");
    let addr = server.local_addr().expect("addr");
    let counters = server.counters();
    std::thread::spawn(move || {
        let _ = server.run();
    });
    // Every thread of the server has run (and allocated) before the
    // descriptors are counted.
    assert_eq!(get(addr, "/api/files").status, 200);
    // The limit: a few above the highest descriptor open now; then fill
    // every free one.
    let highest = std::fs::read_dir("/proc/self/fd")
        .expect("fds")
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u64>().ok())
        .max()
        .expect("some descriptor");
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    assert_eq!(
        unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) },
        0
    );
    limit.rlim_cur = highest + 16;
    assert_eq!(unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) }, 0);
    let mut filler = Vec::new();
    loop {
        match std::fs::File::open("/dev/null") {
            Ok(f) => filler.push(f),
            Err(e) => {
                assert_eq!(e.raw_os_error(), Some(libc::EMFILE), "{e}");
                break;
            }
        }
    }
    // One descriptor for the client; none left for the server.
    filler.pop();
    let accepts_before = counters.accept_calls();
    let mut client = TcpStream::connect(addr).expect("connect");
    client
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    let mut buf = [0u8; 16];
    let closed = matches!(client.read(&mut buf), Ok(0))
        || matches!(client.read(&mut buf), Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset);
    let calls = counters.accept_calls() - accepts_before;
    println!(
        "accept calls: {calls}, closed at the limit: {}",
        counters.closed_at_limit()
    );
    assert!(closed, "the connection was not closed");
    assert!(calls <= 8, "{calls} accept calls for one connection");
    assert_eq!(counters.closed_at_limit(), 1);
    drop(client);
    drop(filler);
    let r = get(addr, "/api/files");
    assert_eq!(r.status, 200);
    println!("served on");
}

#[test]
fn accept_at_the_descriptor_limit_backs_off() {
    let out = Command::new(std::env::current_exe().expect("exe"))
        .args([
            "--exact",
            "server_api::descriptor_limit_child",
            "--nocapture",
        ])
        .env("PBDECODE_FD_LIMIT_CHILD", "1")
        .output()
        .expect("child");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && text.contains("served on"), "{text}");
}

/// `decode serve --open` hands the browser (here a stand-in `xdg-open`
/// first on PATH, which passes on its argument) a one-time address: no
/// token on a command line other users can read; it opens the page once.
#[test]
fn serve_open_hands_the_browser_a_one_time_address() {
    use std::os::unix::fs::PermissionsExt;
    let d = Scratch::new("open");
    let fifo = d.0.join("opened");
    let c_fifo = std::ffi::CString::new(fifo.to_str().unwrap_or_default()).expect("path");
    assert_eq!(unsafe { libc::mkfifo(c_fifo.as_ptr(), 0o600) }, 0);
    let script = d.0.join("xdg-open");
    std::fs::write(
        &script,
        "#!/bin/sh\nprintf '%s\\n' \"$1\" > \"$PBDECODE_OPENED\"\n",
    )
    .expect("write");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let path_var = format!(
        "{}:{}",
        d.0.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_decode"))
        .args(["serve", "--open"])
        .arg(fixtures().join("example_x_3x4x5.pb"))
        .env("PATH", path_var)
        .env("PBDECODE_OPENED", &fifo)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("decode serve");
    let mut out = child.stdout.take().expect("stdout");
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    while !line.ends_with(b"\n") && out.read(&mut byte).unwrap_or(0) == 1 {
        line.push(byte[0]);
    }
    let printed = String::from_utf8_lossy(&line).trim().to_string();
    let token = printed
        .rsplit("?token=")
        .next()
        .unwrap_or_default()
        .to_string();
    assert_eq!(token.len(), 48, "{printed}");
    // What the stand-in browser got (the FIFO waits for it).
    let (tx, rx) = std::sync::mpsc::channel();
    let reader_fifo = fifo.clone();
    std::thread::spawn(move || {
        let _ = tx.send(std::fs::read_to_string(&reader_fifo).unwrap_or_default());
    });
    let opened = rx.recv_timeout(Duration::from_secs(60));
    if opened.is_err() {
        // Let the reader go before failing.
        let _ = std::fs::OpenOptions::new().write(true).open(&fifo);
    }
    let opened = opened.expect("xdg-open was run").trim().to_string();
    assert!(!opened.contains(&token), "{opened}");
    let (base, code) = opened.split_once("/?code=").expect("a one-time code");
    let port: u16 = base
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .expect("port");
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let visit = || {
        raw(
            addr,
            format!("GET /?code={code} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n").as_bytes(),
        )
    };
    let first = visit();
    assert_eq!(first.status, 200);
    assert!(first.text().contains(&format!("content=\"{token}\"")));
    assert_eq!(visit().status, 403);
    let _ = child.kill();
    let _ = child.wait();
}

/// `"hello"` (field 15), a message (field 14) of `nested` one-byte varints,
/// then `root` one-byte varints (field 15): two bytes a field.
fn tiny_fields(root: usize, nested: usize) -> Vec<u8> {
    let varint = |mut n: usize, out: &mut Vec<u8>| {
        while n >= 0x80 {
            out.push((n as u8 & 0x7f) | 0x80);
            n >>= 7;
        }
        out.push(n as u8);
    };
    let mut b = vec![0x7a, 5];
    b.extend_from_slice(b"hello");
    b.push(0x72);
    varint(nested * 2, &mut b);
    for i in 0..nested {
        b.extend_from_slice(&[0x08, (i % 100) as u8]);
    }
    for i in 0..root {
        b.extend_from_slice(&[0x78, (i % 100) as u8]);
    }
    b
}

fn json(r: &Reply) -> serde_json::Value {
    serde_json::from_slice(&r.body).unwrap_or_else(|e| panic!("{e}: {}", r.text()))
}

/// The members of a field tree's page, stripped: what is left is the
/// contract's array of fields.
fn strip_paging(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            for k in ["branch", "fields", "first", "next"] {
                m.shift_remove(k);
            }
            m.values_mut().for_each(strip_paging);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(strip_paging),
        _ => {}
    }
}

#[test]
fn the_field_tree_comes_a_page_at_a_time() {
    let dir = std::env::temp_dir().join(format!("pbdecode-serve-tree-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("mkdir");
    // 1M tiny fields (2 MB), and half as many.
    std::fs::write(dir.join("big.pb"), tiny_fields(800_000, 200_000)).expect("write");
    std::fs::write(dir.join("half.pb"), tiny_fields(400_000, 100_000)).expect("write");
    let s = start(vec![dir.clone()]);
    let big = get(s.addr, "/api/open?f=0/big.pb&values=all");
    assert_eq!(big.status, 200);
    let half = get(s.addr, "/api/open?f=0/half.pb&values=all");
    // The first answer is bounded: the same size for twice the fields
    // (give or take the digits of the counts), and small.
    assert!(big.body.len() < 128 << 10, "{} bytes", big.body.len());
    assert!(
        big.body.len().abs_diff(half.body.len()) < 64,
        "{} bytes for 1M fields, {} for 500k",
        big.body.len(),
        half.body.len()
    );
    let open = json(&big);
    let root = &open["decoded"];
    assert_eq!(root["format"], "protobuf");
    assert_eq!(root["fields"], 800_002);
    assert_eq!(root["first"], 0);
    let fields = root["value"].as_array().unwrap();
    assert_eq!(fields.len(), 200);
    assert_eq!(fields[0]["value"], "hello");
    // The nested message: its total, its first page inline, its address.
    let nested = &fields[1];
    assert_eq!(nested["kind"], "message");
    assert_eq!(nested["fields"], 200_000);
    assert_eq!(nested["value"].as_array().unwrap().len(), 200);
    assert_eq!(nested["branch"], "message:2:11:400000");
    // The next page of the nested message, from where the first ended.
    let next = nested["next"].as_u64().unwrap();
    let r = get(
        s.addr,
        &format!("/api/fields?f=0/big.pb&branch=message:2:11:400000&from={next}&count=50"),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.body.len() < 16 << 10, "{} bytes", r.body.len());
    let page = json(&r);
    assert_eq!(page["first"], 200);
    assert_eq!(page["fields"], 200_000);
    let got = page["value"].as_array().unwrap();
    assert_eq!(got.len(), 50);
    assert_eq!(got[0]["offset"], next);
    assert_eq!(got[0]["field"], 1);
    assert_eq!(got[0]["value"], 0);
    assert_eq!(got[1]["value"], 1);
    // More of the root, and its last page.
    let next = root["next"].as_u64().unwrap();
    let page = json(&get(s.addr, &format!("/api/fields?f=0/big.pb&from={next}")));
    assert_eq!(page["first"], 200);
    assert_eq!(page["value"].as_array().unwrap().len(), 200);
    let last = 2_000_011 - 2;
    let page = json(&get(s.addr, &format!("/api/fields?f=0/big.pb&from={last}")));
    assert_eq!(page["first"], 800_001);
    assert_eq!(page["value"].as_array().unwrap().len(), 1);
    assert_eq!(page["next"], serde_json::Value::Null);
    // A page asks for at most 1000 fields.
    let page = json(&get(s.addr, "/api/fields?f=0/big.pb&count=5000000"));
    assert_eq!(page["value"].as_array().unwrap().len(), 1000);
    // Addresses that name no level of the file.
    for bad in [
        "nope",
        "message:2:11",
        "message:2:1999999:400000",
        "message:2:2:5",
    ] {
        let r = get(s.addr, &format!("/api/fields?f=0/big.pb&branch={bad}"));
        assert!(matches!(r.status, 400 | 422), "{bad}: {}", r.text());
    }
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Fills in every nested page of a field tree's answer, the page's way:
/// a request for each level whose fields are not all there.
fn fill_tree(addr: SocketAddr, key: &str, fields: &mut serde_json::Value) {
    for f in fields.as_array_mut().unwrap() {
        let total = f["fields"].as_u64();
        if let Some(total) = total {
            let shown = f["value"].as_array().unwrap().len() as u64;
            if shown < total {
                let branch = f["branch"].as_str().unwrap().to_string();
                let r = get(
                    addr,
                    &format!("/api/fields?f={}&branch={branch}&count=1000", enc(key)),
                );
                let page = json(&r);
                assert_eq!(page["fields"].as_u64(), Some(total));
                assert_eq!(
                    page["next"],
                    serde_json::Value::Null,
                    "{key}: a level of over 1000 fields"
                );
                f["value"] = page["value"].clone();
            }
            fill_tree(addr, key, &mut f["value"]);
        }
        assert!(f.get("cut").is_none(), "{key}: a value was cut");
    }
}

/// The tree's fields, page by page, are the command line's reading: the
/// whole tree put together from the pages is `--json --offsets`.
#[test]
fn the_field_tree_is_the_command_lines_reading() {
    let s = start(vec![fixtures()]);
    for key in [
        "tf/fingerprint.pb",
        "schemaless/sample/forms_packed_dims.pb",
        "schemaless/sample/synth_STRING_7_typed.pb",
        "schemaless/sample/tf_fg_all_attr_kinds_frozen_graph.pb",
    ] {
        let path = fixtures().join(key);
        let key = format!("0/{key}");
        let r = get(s.addr, &format!("/api/open?f={}&as=protobuf", enc(&key)));
        let mut root = json(&r)["decoded"].clone();
        assert_eq!(root["next"], serde_json::Value::Null, "{key}");
        fill_tree(s.addr, &key, &mut root["value"]);
        strip_paging(&mut root);
        let want = cli(&[
            "--json",
            "--offsets",
            "--as",
            "protobuf",
            "--values",
            "8",
            path.to_str().unwrap(),
        ]);
        let want: serde_json::Value = serde_json::from_slice(&want).unwrap();
        assert_eq!(root["value"], want["value"], "{key}");
    }
}

/// A well-known file that is not protobuf: /api/open says what it looks
/// like, in the command line's words, whether detection turned it down or
/// read it without a schema; a protobuf file, or a format asked for by
/// name, gets no such hint.
#[test]
fn well_known_non_protobuf_files_get_the_command_line_hint() {
    let s = start_with(Config {
        paths: vec![],
        max_upload: 1 << 20,
        head_timeout: Duration::from_secs(60),
        io_timeout: Duration::from_secs(60),
        ..Config::default()
    });
    let auth = format!("Authorization: token {TOKEN}\r\n");
    let scratch = Scratch::new("looks-like");
    let example = std::fs::read(fixtures().join("example_x_3x4x5.pb")).expect("read");
    let files: [(&str, &[u8], Option<&str>); 4] = [
        (
            "x.npy",
            b"\x93NUMPY\x01\x00v\x00{'descr': '<f4'}",
            Some("NumPy"),
        ),
        ("cat.jpg", b"\xff\xd8\xff\xe0\x00\x10JFIF\x00", Some("JPEG")),
        ("meta.json", b"{\"a\": [1, 2]}\n", Some("JSON")),
        ("x.pb", &example, None),
    ];
    for (i, (name, bytes, want)) in files.iter().enumerate() {
        let r = post(s.addr, &format!("/api/upload?name={name}"), &auth, bytes);
        assert_eq!(r.status, 200, "{}", r.text());
        let key = format!("u{}", i + 1);
        let open = json(&get(s.addr, &format!("/api/open?f={key}")));
        let hint = open.get("looks_like").and_then(|v| v.as_str());
        let Some(want) = want else {
            assert_eq!(hint, None, "{open}");
            continue;
        };
        let hint = hint.unwrap_or_else(|| panic!("no hint for {name}: {open}"));
        assert!(hint.contains(want), "{hint}");
        // The command line's words, for the same bytes.
        let file = scratch.0.join(name);
        std::fs::write(&file, bytes).expect("write");
        let out = Command::new(env!("CARGO_BIN_EXE_decode"))
            .arg(&file)
            .output()
            .expect("run decode");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(&format!("looks like {hint}")), "{stderr}");
        // Asked to read it as one format: that format's error alone.
        let asked = json(&get(s.addr, &format!("/api/open?f={key}&as=onnx-tensor")));
        assert_eq!(asked.get("looks_like"), None, "{asked}");
    }
}

/// A weight is drawn by the server as `decode --picture` draws it (a
/// TensorFlow kernel in HWIO order), with the layout's strides for the
/// page; a tensor of rank 3 without a picture of its own is drawn a 2-D
/// slice at a time.
#[test]
fn weight_pictures_as_the_command_line_draws_them() {
    let s = start_with(Config {
        paths: vec![],
        ..Config::default()
    });
    let auth = format!("Authorization: token {TOKEN}\r\n");
    let values: Vec<u8> = (0..3 * 3 * 3 * 8)
        .flat_map(|k| ((k as f32) * 0.37).sin().to_le_bytes())
        .collect();
    let graph = crate::common::build::tf_graph(&[(
        "conv/kernel",
        crate::common::build::tf_tensor(1, &[3, 3, 3, 8], &values),
    )]);
    let r = post(s.addr, "/api/upload?name=k.pb", &auth, &graph);
    assert_eq!(r.status, 200, "{}", r.text());
    let info = json(&get(s.addr, "/api/tensor?f=u1&t=0"));
    let p = &info["picture"];
    assert_eq!(p["layout"], "HWIO", "{info}");
    assert_eq!(
        (p["tiles"].as_u64(), p["channels"].as_u64()),
        (Some(8), Some(3))
    );
    // [H, W, in, out]: a filter is 1 apart, a channel 8, a row 72.
    let st = &p["strides"];
    let strides: Vec<_> = ["tile", "channel", "y", "x"]
        .iter()
        .map(|k| st[k].as_u64())
        .collect();
    assert_eq!(strides, [Some(1), Some(8), Some(72), Some(24)]);
    assert!(info["slice_picture"].is_null());
    let dir = std::env::temp_dir().join(format!("pbdecode-weights-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("k.pb");
    std::fs::write(&file, &graph).expect("write");
    let png = cli(&[
        "--picture",
        "-",
        "--tensor",
        "conv/kernel",
        file.to_str().unwrap_or_default(),
    ]);
    let r = get(s.addr, "/api/picture?f=u1&t=0");
    assert_eq!(r.status, 200);
    assert_eq!(r.body, png);
    // A 3-D initializer of 2 leading slices: none whole, each slice its own.
    let stack = crate::common::build::onnx_f32("stack", &[2, 2, 5], &[0.5; 20]);
    let r = post(
        s.addr,
        "/api/upload?name=m.onnx",
        &auth,
        &crate::common::build::onnx_model(&[stack]),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let info = json(&get(s.addr, "/api/tensor?f=u2&t=0"));
    assert!(info["picture"].is_null(), "{info}");
    assert_eq!(info["slice_picture"]["layout"], "matrix");
    assert_eq!(info["slice_picture"]["canvas"], serde_json::json!([5, 2]));
    assert_eq!(get(s.addr, "/api/picture?f=u2&t=0").status, 422);
    let r = get(s.addr, "/api/picture?f=u2&t=0&slice=1");
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(
        r.header("x-picture")
            .is_some_and(|d| d.contains("heat map"))
    );
    assert_eq!(get(s.addr, "/api/picture?f=u2&t=0&slice=2").status, 422);
    assert_eq!(get(s.addr, "/api/picture?f=u2&t=0&slice=x").status, 400);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `/api/graph`: the facade's graph answer, byte for byte; 422 for a file
/// without a graph, 400 for a bad parameter, 404 for a graph not there.
#[test]
fn graph_endpoint() {
    use pbdecode::graph::query::Query;
    let s = start(vec![fixtures()]);
    let doc = pbdecode::open(fixtures().join("onnx-model/everything.onnx")).expect("open");
    for (params, query) in [
        ("", Query::default()),
        (
            "&g=1&fold=none",
            Query {
                graph: Some("1"),
                fold: Some("none"),
                ..Query::default()
            },
        ),
        (
            "&value=X",
            Query {
                value: Some("X"),
                ..Query::default()
            },
        ),
    ] {
        let r = get(
            s.addr,
            &format!("/api/graph?f=0/onnx-model/everything.onnx{params}"),
        );
        assert_eq!(r.status, 200, "{params}: {}", r.text());
        assert_eq!(r.body, doc.graph_json(&query).expect("answer"), "{params}");
    }
    for (path, status) in [
        ("/api/graph?f=0/example_x_3x4x5.pb", 422),
        ("/api/graph?f=0/onnx-model/everything.onnx&g=x", 400),
        ("/api/graph?f=0/onnx-model/everything.onnx&fold=x", 400),
        ("/api/graph?f=0/onnx-model/everything.onnx&g=99", 404),
        ("/api/graph?f=0/onnx-model/everything.onnx&tensor=999", 404),
    ] {
        let r = get(s.addr, path);
        assert_eq!(r.status, status, "{path}: {}", r.text());
    }
}
