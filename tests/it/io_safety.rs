//! Files in and out without losing data or leaving the folder: outputs
//! written through a temporary file and never over the input, non-regular
//! outputs refused, `--npy-dir` neither following links nor overwriting
//! without `--force`, external data kept inside the tensor's folder once
//! links are resolved and never read from a FIFO, pipes and `/dev/stdin`
//! read as streams, a directory named as such, and a fault on a mapped file
//! turned into a message. Each test runs the built binary in its own
//! temporary folder.
//!
//! What this suite checks, in full: outputs never over the input or its external data, kept intact
//! on failure, non-regular outputs refused, `--npy-dir` and links or
//! existing files, external data through links and FIFOs, pipes and
//! directories as FILE, a mapped file truncated while read (by a single
//! file, by `decode diff` and by a batch, each waiting in the read of a
//! FIFO it reads next, so that the truncation lands between its map and its
//! read; and recovered, in a child process).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use crate::common;

use common::Msg;
use common::json::{self, JsonExt};
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};

/// A fresh folder under the system's temporary folder, removed on drop
/// (`remove_dir_all` does not follow links out of it).
struct TempDir(PathBuf);

static NEXT: AtomicU64 = AtomicU64::new(0);

impl TempDir {
    fn new(tag: &str) -> Self {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("pbdecode-io-{tag}-{}-{n}", std::process::id()));
        let _ = fs::remove_dir_all(&path);
        fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.0.join(rel)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

struct Run {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
    /// Whether `decode` was seen waiting in the open of a FIFO.
    waited_on_fifo: bool,
}

/// Runs `decode` in `dir` with stdout and stderr in files (no pipe to fill
/// up). A FIFO a test makes is run beside ([`run_with_fifos`]) or has a
/// reader ([`FifoReader`]), so no run can block on one, whatever `decode`
/// does with it.
fn run_in(dir: &TempDir, args: &[&str], stdin: Stdio) -> Run {
    run_with_fifos(dir, args, stdin, &[])
}

fn run(dir: &TempDir, args: &[&str]) -> Run {
    run_in(dir, args, Stdio::null())
}

/// Runs `decode` as [`run_in`] does, beside `fifos` that no program holds
/// open for writing (empty ones, or ones [`fill_fifo`] filled). `decode`
/// must never wait on such a FIFO; if it does (an open that waits for a
/// writer, which none will be: the bug this guards against), the test must
/// fail, not hang. So, until the child has exited (no clock), this loop
/// notes whether the child sleeps in a FIFO's open (`waits_on_fifo`), then
/// opens each FIFO's write end without blocking, which succeeds only while
/// a reader has it open or waits in open, and closes it at once. A child
/// waiting in open is released that way and reads what the FIFO holds; a
/// child that opened the FIFO itself may see that short-lived writer and
/// reads the same bytes, which end when the writer is gone. So a poke never
/// changes a correct outcome, and a waiting open fails the test (through
/// `waited_on_fifo`, and through the outcome) instead of hanging it.
fn run_with_fifos(dir: &TempDir, args: &[&str], stdin: Stdio, fifos: &[&Path]) -> Run {
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let out_path = dir.path(&format!(".run{n}.out"));
    let err_path = dir.path(&format!(".run{n}.err"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_decode"))
        .args(args)
        .current_dir(&dir.0)
        .stdin(stdin)
        .stdout(fs::File::create(&out_path).unwrap())
        .stderr(fs::File::create(&err_path).unwrap())
        .spawn()
        .expect("run decode");
    let mut waited_on_fifo = false;
    let status = if fifos.is_empty() {
        child.wait().unwrap()
    } else {
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            waited_on_fifo |= waits_on_fifo(child.id());
            for fifo in fifos {
                drop(open_nonblocking(fifo, true));
            }
            std::thread::yield_now();
        }
    };
    let run = Run {
        code: status.code(),
        stdout: fs::read(&out_path).unwrap(),
        stderr: fs::read_to_string(&err_path).unwrap(),
        waited_on_fifo,
    };
    let _ = fs::remove_file(out_path);
    let _ = fs::remove_file(err_path);
    run
}

/// Whether a thread of process `pid` sleeps in the kernel's FIFO open,
/// waiting for the other end (`wait_for_partner` in Linux's `wchan`).
/// False where /proc does not tell; the outcome still shows it then.
fn waits_on_fifo(pid: u32) -> bool {
    let Ok(tasks) = fs::read_dir(format!("/proc/{pid}/task")) else {
        return false;
    };
    tasks.flatten().any(|t| {
        fs::read_to_string(t.path().join("wchan"))
            .is_ok_and(|w| w.contains("wait_for_partner") || w.contains("fifo_open"))
    })
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().unwrap().success();
    assert!(ok, "mkfifo {}", path.display());
}

fn open_nonblocking(path: &Path, write: bool) -> std::io::Result<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new()
        .read(!write)
        .write(write)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

/// Puts `data` (less than a pipe's 64 KiB buffer, so no write waits) in a
/// FIFO and closes the write end, as a writer that has finished would. The
/// returned read end, opened without blocking and never read, keeps the
/// bytes in the FIFO until it is dropped; run `decode` on it with
/// [`run_with_fifos`], as nothing holds the write end.
fn fill_fifo(path: &Path, data: &[u8]) -> fs::File {
    use std::io::Write;
    assert!(
        data.len() < 1 << 16,
        "{} bytes would fill the pipe",
        data.len()
    );
    let held = open_nonblocking(path, false).unwrap();
    // A reader is there, so this opens at once.
    let mut writer = fs::OpenOptions::new().write(true).open(path).unwrap();
    writer.write_all(data).unwrap();
    held
}

/// A reader on a FIFO `decode` must not write: a thread that opens it to
/// read it to its end. [`FifoReader::release`] lets it finish when
/// `decode` never opened the FIFO, as it should not.
struct FifoReader {
    path: PathBuf,
    thread: std::thread::JoinHandle<()>,
}

impl FifoReader {
    fn start(path: &Path) -> Self {
        let p = path.to_path_buf();
        let thread = std::thread::spawn(move || {
            use std::io::Read;
            if let Ok(mut f) = fs::File::open(&p) {
                let _ = f.read_to_end(&mut Vec::new());
            }
        });
        FifoReader {
            path: path.to_path_buf(),
            thread,
        }
    }

    fn release(self) {
        // Opening a FIFO for reading and writing never blocks on Linux, and
        // lets a reader waiting in open go on.
        drop(
            fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open(&self.path),
        );
        self.thread.join().unwrap();
    }
}

/// Names in a folder, sorted (to see that no temporary file is left).
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with(".run"))
        .collect();
    v.sort();
    v
}

/// A UINT8 tensor of `n` values kept in the side file `location`.
fn external_tensor(name: &str, n: u64, location: &str) -> Msg {
    Msg::new()
        .varint(1, n)
        .varint(2, 2)
        .string(8, name)
        .message(13, &Msg::new().string(1, "location").string(2, location))
        .varint(14, 1)
}

/// A FLOAT tensor [2] stored in raw_data.
fn small_tensor(name: &str) -> Msg {
    let raw: Vec<u8> = [1.5f32, -2.0]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    Msg::new()
        .varint(1, 2)
        .varint(2, 1)
        .string(8, name)
        .len_field(9, &raw)
}

/// A model whose graph holds these initializers.
fn model(initializers: &[Msg]) -> Vec<u8> {
    let mut graph = Msg::new().string(2, "g");
    for t in initializers {
        graph = graph.message(5, t);
    }
    Msg::new()
        .varint(1, 8)
        .message(7, &graph)
        .message(8, &Msg::new().varint(2, 13))
        .bytes()
}

fn tensor_json(run: &Run) -> Value {
    let text = String::from_utf8_lossy(&run.stdout);
    json::value(&text).unwrap_or_else(|e| panic!("{e}: {text} / {}", run.stderr))
}

// ---- 1. outputs never lose data ----

#[test]
fn npy_over_its_own_input_is_refused() {
    let d = TempDir::new("self");
    let x = d.path("x.pb");
    fs::copy(fixture("example_x_3x4x5.pb"), &x).unwrap();
    let before = fs::read(&x).unwrap();
    let r = run(&d, &["--npy", s(&x), s(&x)]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(r.stderr.contains("reads (the input"), "{}", r.stderr);
    assert_eq!(fs::read(&x).unwrap(), before, "the input was changed");
    // A hard link is the same file by another name.
    let link = d.path("link.npy");
    fs::hard_link(&x, &link).unwrap();
    let r = run(&d, &["--picture", s(&link), s(&x)]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert_eq!(fs::read(&x).unwrap(), before);
    assert_eq!(names(&d.0), ["link.npy", "x.pb"]);
}

#[test]
fn npy_over_its_external_data_is_refused() {
    let d = TempDir::new("side");
    fs::write(d.path("w.bin"), [1u8, 2, 3, 4]).unwrap();
    fs::write(d.path("t.pb"), external_tensor("t", 4, "w.bin").bytes()).unwrap();
    let r = run(&d, &["--npy", s(&d.path("w.bin")), s(&d.path("t.pb"))]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(r.stderr.contains("reads (the input"), "{}", r.stderr);
    assert_eq!(fs::read(d.path("w.bin")).unwrap(), [1, 2, 3, 4]);
    assert_eq!(names(&d.0), ["t.pb", "w.bin"]);
}

#[test]
fn failed_npy_keeps_the_existing_file_and_leaves_nothing() {
    let d = TempDir::new("keep");
    let out = d.path("existing.npy");
    fs::write(&out, b"the user's data").unwrap();
    fs::write(
        d.path("t.pb"),
        external_tensor("t", 4, "missing.bin").bytes(),
    )
    .unwrap();
    let r = run(&d, &["--npy", s(&out), s(&d.path("t.pb"))]);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert_eq!(fs::read(&out).unwrap(), b"the user's data");
    // Nothing created when nothing could be written.
    let fresh = d.path("fresh.npy");
    let r = run(&d, &["--npy", s(&fresh), s(&d.path("t.pb"))]);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert_eq!(names(&d.0), ["existing.npy", "t.pb"]);
}

#[test]
fn npy_replaces_an_existing_file_whole() {
    let d = TempDir::new("replace");
    let out = d.path("x.npy");
    fs::write(&out, vec![b'z'; 100_000]).unwrap();
    let r = run(&d, &["--npy", s(&out), s(&fixture("example_x_3x4x5.pb"))]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let bytes = fs::read(&out).unwrap();
    assert!(bytes.starts_with(b"\x93NUMPY"));
    assert!(bytes.len() < 1000, "old bytes left: {}", bytes.len());
    assert_eq!(names(&d.0), ["x.npy"]);
}

#[test]
fn non_regular_outputs_are_refused_and_left_in_place() {
    let d = TempDir::new("fifo");
    let fifo = d.path("out.npy");
    mkfifo(&fifo);
    let sub = d.path("folder.png");
    fs::create_dir(&sub).unwrap();
    let x = fixture("example_x_3x4x5.pb");
    let partner = FifoReader::start(&fifo);
    let r = run(&d, &["--npy", s(&fifo), s(&x)]);
    partner.release();
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(r.stderr.contains("FIFO"), "{}", r.stderr);
    let r = run(
        &d,
        &[
            "--picture",
            s(&sub),
            s(&fixture("images/gradient_rgb_3x32x32.pb")),
        ],
    );
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(r.stderr.contains("directory"), "{}", r.stderr);
    use std::os::unix::fs::FileTypeExt;
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    assert!(sub.is_dir());
    assert_eq!(names(&d.0), ["folder.png", "out.npy"]);
}

#[test]
fn a_full_device_is_an_error_not_a_deletion() {
    let full = Path::new("/dev/full");
    if !full.exists() {
        return;
    }
    let d = TempDir::new("full");
    let r = run(
        &d,
        &[
            "--picture",
            "/dev/full",
            s(&fixture("images/gradient_rgb_3x32x32.pb")),
        ],
    );
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(r.stderr.contains("/dev/full"), "{}", r.stderr);
    use std::os::unix::fs::FileTypeExt;
    assert!(fs::metadata(full).unwrap().file_type().is_char_device());
}

#[test]
fn standard_output_by_name() {
    let d = TempDir::new("stdout");
    let x = fixture("example_x_3x4x5.pb");
    for name in ["-", "/dev/stdout"] {
        let r = run(&d, &["--npy", name, s(&x)]);
        assert_eq!(r.code, Some(0), "{name}: {}", r.stderr);
        assert!(r.stdout.starts_with(b"\x93NUMPY"), "{name}");
    }
}

// ---- 3. --npy-dir: no links followed, no silent overwrite ----

fn two_tensor_model(d: &TempDir) -> PathBuf {
    let m = d.path("m.onnx");
    fs::write(&m, model(&[small_tensor("a"), small_tensor("b")])).unwrap();
    m
}

#[test]
fn npy_dir_refuses_existing_files_unless_forced() {
    let d = TempDir::new("npydir");
    let m = two_tensor_model(&d);
    let out = d.path("out");
    fs::create_dir(&out).unwrap();
    fs::write(out.join("b.npy"), b"keep me").unwrap();
    let r = run(&d, &["--npy-dir", s(&out), s(&m)]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(r.stderr.contains("already exists"), "{}", r.stderr);
    assert!(r.stderr.contains("--force"), "{}", r.stderr);
    // Nothing written, not even the file that did not exist.
    assert_eq!(names(&out), ["b.npy"]);
    assert_eq!(fs::read(out.join("b.npy")).unwrap(), b"keep me");
    let r = run(&d, &["--npy-dir", s(&out), "--force", s(&m)]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(names(&out), ["a.npy", "b.npy"]);
    assert!(
        fs::read(out.join("b.npy"))
            .unwrap()
            .starts_with(b"\x93NUMPY")
    );
}

#[test]
fn npy_dir_follows_no_link() {
    let d = TempDir::new("npylink");
    let m = two_tensor_model(&d);
    let outside = d.path("outside.txt");
    fs::write(&outside, b"outside").unwrap();
    let out = d.path("out");
    fs::create_dir(&out).unwrap();
    std::os::unix::fs::symlink("../outside.txt", out.join("a.npy")).unwrap();
    std::os::unix::fs::symlink("../nowhere.npy", out.join("b.npy")).unwrap();
    let r = run(&d, &["--npy-dir", s(&out), s(&m)]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert_eq!(fs::read(&outside).unwrap(), b"outside");
    assert!(!d.path("nowhere.npy").exists());
    // --force replaces the links themselves, not what they point to.
    let r = run(&d, &["--npy-dir", s(&out), "--force", s(&m)]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(fs::read(&outside).unwrap(), b"outside");
    assert!(!d.path("nowhere.npy").exists());
    for name in ["a.npy", "b.npy"] {
        let meta = fs::symlink_metadata(out.join(name)).unwrap();
        assert!(meta.is_file(), "{name} is still a link");
    }
    assert_eq!(names(&out), ["a.npy", "b.npy"]);
}

// ---- 2. external data stays in the tensor's folder ----

/// A folder `t/` holding a tensor file and the given links, and a secret
/// file outside it.
fn escape_setup(d: &TempDir, location: &str) -> PathBuf {
    fs::create_dir(d.path("outside")).unwrap();
    fs::write(d.path("outside/secret.bin"), b"SECRET!!").unwrap();
    let t = d.path("t");
    fs::create_dir(&t).unwrap();
    std::os::unix::fs::symlink("../outside", t.join("sublink")).unwrap();
    std::os::unix::fs::symlink(d.path("outside/secret.bin"), t.join("abs.bin")).unwrap();
    std::os::unix::fs::symlink("/", t.join("root")).unwrap();
    fs::create_dir(t.join("inner")).unwrap();
    fs::write(t.join("inner/ok.bin"), b"ok!!").unwrap();
    std::os::unix::fs::symlink("inner", t.join("innerlink")).unwrap();
    let f = t.join("x.pb");
    fs::write(&f, external_tensor("x", 4, location).bytes()).unwrap();
    f
}

#[test]
fn external_data_through_a_link_out_of_the_folder_is_refused() {
    for location in [
        "sublink/secret.bin",
        "abs.bin",
        "root/etc/passwd",
        "sublink/../t/inner/ok.bin",
    ] {
        let d = TempDir::new("escape");
        let f = escape_setup(&d, location);
        let r = run(&d, &["--json", s(&f)]);
        assert_eq!(r.code, Some(0), "{location}: {}", r.stderr);
        let j = tensor_json(&r);
        let v = j.get("value").unwrap();
        assert_eq!(v.get("values"), Some(&Value::Null), "{location}");
        let why = v.get("values_unavailable").and_then(Value::as_str).unwrap();
        assert!(
            why.contains("out of the tensor's folder") || why.contains("escapes"),
            "{location}: {why}"
        );
        // --npy writes nothing either.
        let out = d.path("leak.npy");
        let r = run(&d, &["--npy", s(&out), s(&f)]);
        assert_eq!(r.code, Some(1), "{location}: {}", r.stderr);
        assert!(!out.exists(), "{location}");
    }
}

#[test]
fn external_data_through_a_link_inside_the_folder_is_read() {
    let d = TempDir::new("inside");
    let f = escape_setup(&d, "innerlink/ok.bin");
    let r = run(&d, &["--json", s(&f)]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let j = tensor_json(&r);
    let values = j.get("value").and_then(|v| v.get("values")).unwrap();
    let got: Vec<i128> = values
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i128().unwrap())
        .collect();
    assert_eq!(got, [111, 107, 33, 33]);
}

#[test]
fn model_initializer_through_a_link_is_refused() {
    let d = TempDir::new("modelesc");
    fs::write(d.path("secret.bin"), b"SECRET!!").unwrap();
    let m = d.path("m");
    fs::create_dir(&m).unwrap();
    std::os::unix::fs::symlink("..", m.join("up")).unwrap();
    let f = m.join("model.onnx");
    fs::write(
        &f,
        model(&[
            small_tensor("fine"),
            external_tensor("w", 8, "up/secret.bin"),
        ]),
    )
    .unwrap();
    let r = run(&d, &["--json", "--as", "onnx-model", s(&f)]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let text = String::from_utf8_lossy(&r.stdout);
    assert!(text.contains("out of the tensor's folder"), "{text}");
    assert!(!text.contains("83, 69, 67"), "secret bytes shown: {text}");
    let out = d.path("dir");
    let r = run(&d, &["--as", "onnx-model", "--npy-dir", s(&out), s(&f)]);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(r.stderr.contains("\"w\" not written"), "{}", r.stderr);
    assert_eq!(names(&out), ["fine.npy"]);
}

// ---- 10. FIFOs and pipes ----

#[test]
fn a_fifo_as_external_data_is_refused_without_blocking() {
    let d = TempDir::new("extfifo");
    mkfifo(&d.path("pipe.bin"));
    let f = d.path("x.pb");
    fs::write(&f, external_tensor("x", 4, "pipe.bin").bytes()).unwrap();
    let fifo = d.path("pipe.bin");
    let held = fill_fifo(&fifo, &[0; 4]);
    let r = run_with_fifos(&d, &["--json", s(&f)], Stdio::null(), &[&fifo]);
    drop(held);
    assert!(!r.waited_on_fifo);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let j = tensor_json(&r);
    let why = j
        .get("value")
        .and_then(|v| v.get("values_unavailable"))
        .and_then(Value::as_str)
        .unwrap()
        .to_string();
    assert!(
        why.contains("FIFO") && why.contains("not a regular file"),
        "{why}"
    );
}

#[test]
fn a_pipe_as_file_is_read() {
    let d = TempDir::new("pipein");
    let x = fixture("example_x_3x4x5.pb");
    // /dev/stdin naming a pipe.
    let mut child = Command::new(env!("CARGO_BIN_EXE_decode"))
        .args(["--json", "/dev/stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let bytes = fs::read(&x).unwrap();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let _ = stdin.write_all(&bytes);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("\"format\": \"onnx-tensor\""), "{text}");
    // A named pipe that a writer filled.
    let fifo = d.path("in.fifo");
    mkfifo(&fifo);
    let held = fill_fifo(&fifo, &fs::read(&x).unwrap());
    let r = run_with_fifos(&d, &["--json", s(&fifo)], Stdio::null(), &[&fifo]);
    drop(held);
    assert!(!r.waited_on_fifo);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(String::from_utf8_lossy(&r.stdout).contains("\"dims\": [3, 4, 5]"));
}

#[test]
fn streams_are_capped() {
    use pbdecode::input::{open_input_capped, read_stream};
    let e = read_stream(&[7u8; 101][..], 100, "standard input")
        .err()
        .unwrap();
    assert!(e.to_string().contains("larger than 100 bytes"), "{e}");
    let ok = read_stream(&[7u8; 100][..], 100, "standard input").unwrap();
    assert_eq!(ok.bytes().len(), 100);
    if Path::new("/dev/zero").exists() {
        let e = open_input_capped(Path::new("/dev/zero"), 4096)
            .err()
            .unwrap();
        assert!(
            e.to_string().contains("a character device is larger"),
            "{e}"
        );
    }
}

// ---- 16. a directory ----

#[test]
fn a_directory_as_file_says_so() {
    let d = TempDir::new("dir");
    let r = run(&d, &[s(&d.0)]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(r.stderr.contains("is a directory"), "{}", r.stderr);
    assert!(!r.stderr.contains("No such device"), "{}", r.stderr);
}

// ---- 12. a mapped file cut short ----

/// In a child process (see `a_mapped_file_cut_short_is_a_message`): maps a
/// file, truncates it and touches a page that is gone, which must end the
/// process with the installed message and exit status 2. Run directly, it
/// checks that a mapped file reads back what was written.
#[test]
fn mapping_fault_child() {
    let Some(path) = std::env::var_os("PBDECODE_MAPPING_FAULT_FILE") else {
        let d = TempDir::new("map");
        let f = d.path("data.bin");
        fs::write(&f, vec![9u8; 65536]).unwrap();
        let m = pbdecode::input::open_input(&f).unwrap();
        assert!(matches!(m, pbdecode::input::InputBytes::Mapped(..)));
        assert_eq!(m.bytes().len(), 65536);
        assert_eq!(m.bytes()[40000], 9);
        return;
    };
    pbdecode::input::exit_on_mapping_fault("pbdecode test: mapped file cut short\n".into())
        .unwrap();
    let m = pbdecode::input::open_input(Path::new(&path)).unwrap();
    fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(0)
        .unwrap();
    let byte = std::hint::black_box(m.bytes())[40000];
    panic!("read {byte} from a truncated mapping without a fault");
}

#[test]
fn a_mapped_file_cut_short_is_a_message() {
    let d = TempDir::new("fault");
    let f = d.path("data.bin");
    fs::write(&f, vec![9u8; 65536]).unwrap();
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "io_safety::mapping_fault_child", "--nocapture"])
        .env("PBDECODE_MAPPING_FAULT_FILE", &f)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("pbdecode test: mapped file cut short"),
        "{err}"
    );
}

// ---- every file written goes through src/output.rs ----

/// The code of a source file: its `#[cfg(test)] mod tests` left out, and
/// comments.
fn code_without_tests_and_comments(text: &str) -> String {
    let mut code = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim();
        if t == "#[cfg(test)]"
            && lines
                .peek()
                .is_some_and(|l| l.trim_start().starts_with("mod tests"))
        {
            break;
        }
        if t.starts_with("//") {
            continue;
        }
        code.push_str(line.split(" // ").next().unwrap_or(line));
        code.push('\n');
    }
    code
}

fn rust_sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            rust_sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Calls that create, change or remove a file system entry.
const WRITING_CALLS: &[&str] = &[
    "fs::write",
    "File::create",
    "File::options",
    "OpenOptions",
    "fs::copy",
    "fs::rename",
    "create_dir",
    "remove_file",
    "remove_dir",
    "set_permissions",
    "hard_link",
    "unix::fs::symlink",
    "set_len",
    "libc::open",
    "openat",
];

/// Files outside src/output.rs that may name one of [`WRITING_CALLS`], and
/// why: opens for reading only (the test checks they ask for nothing else).
const READ_ONLY_OPENS: &[(&str, &str, &str)] = &[(
    "src/input.rs",
    "OpenOptions",
    "open_read, the one open of inputs: read-only, O_NONBLOCK, O_NOFOLLOW on request",
)];

/// What an OpenOptions asks for besides reading.
const WRITE_OPTIONS: &[&str] = &[
    ".write(",
    ".append(",
    ".create(",
    ".create_new(",
    ".truncate(",
];

fn writing_calls_outside_output_rs(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_sources(&root.join("src"), &mut files);
    files.sort();
    let mut found = Vec::new();
    for file in &files {
        let rel = file
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if rel == "src/output.rs" {
            continue;
        }
        let code = code_without_tests_and_comments(&fs::read_to_string(file).unwrap());
        for call in WRITING_CALLS {
            let allowed = READ_ONLY_OPENS
                .iter()
                .any(|(f, c, _)| *f == rel && c == call);
            if code.contains(call) && !allowed {
                found.push(format!("{rel}: {call}"));
            }
        }
        if READ_ONLY_OPENS.iter().any(|(f, ..)| *f == rel) {
            for option in WRITE_OPTIONS {
                if code.contains(option) {
                    found.push(format!("{rel}: {option} in a read-only open"));
                }
            }
        }
    }
    found
}

#[test]
fn every_file_written_goes_through_output_rs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let found = writing_calls_outside_output_rs(root);
    assert!(
        found.is_empty(),
        "files written, changed or removed outside src/output.rs (its one writer keeps a temporary file, the rename, the permissions and the input checks):\n{}",
        found.join("\n")
    );
    // The scan sees what it looks for: the writer itself uses them, and a
    // test module is left out while code before it is not.
    let output =
        code_without_tests_and_comments(&fs::read_to_string(root.join("src/output.rs")).unwrap());
    assert!(output.contains("OpenOptions") && output.contains("fs::rename"));
    let code = code_without_tests_and_comments(
        "fn f() { std::fs::write(p, b) } // fs::copy\n#[cfg(test)]\nmod tests {\n fn g() { std::fs::copy(a, b) }\n}\n",
    );
    assert!(
        code.contains("fs::write") && !code.contains("fs::copy"),
        "{code}"
    );
}

/// Calls that open or read a file by its path.
const READING_CALLS: &[&str] = &[
    "File::open",
    "fs::read(",
    "fs::read_to_string",
    "OpenOptions",
    "File::options",
    "Mmap::map",
];

/// Files outside src/input.rs that may open a file to read, and why: none
/// of them opens an input.
const NOT_INPUTS: &[(&str, &str, &str)] = &[
    (
        "src/output.rs",
        "File::open",
        "the folder of a renamed output, opened to sync it; random bytes from /dev/urandom for a scratch file's name",
    ),
    ("src/output.rs", "OpenOptions", "the one writer"),
    (
        "src/server/secret.rs",
        "File::open",
        "the token's random bytes from /dev/urandom",
    ),
    (
        "src/server/intake.rs",
        "File::open",
        "/dev/null, the descriptor kept in reserve for the descriptor limit",
    ),
];

#[test]
fn every_input_is_opened_by_input_rs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_sources(&root.join("src"), &mut files);
    files.sort();
    let mut found = Vec::new();
    for file in &files {
        let rel = file
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if rel == "src/input.rs" {
            continue;
        }
        let code = code_without_tests_and_comments(&fs::read_to_string(file).unwrap());
        for call in READING_CALLS {
            let allowed = NOT_INPUTS.iter().any(|(f, c, _)| *f == rel && c == call);
            if code.contains(call) && !allowed {
                found.push(format!("{rel}: {call}"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "files opened outside src/input.rs (input::open_read never waits on a FIFO and remembers what was read, so that no output replaces it):\n{}",
        found.join("\n")
    );
    let input =
        code_without_tests_and_comments(&fs::read_to_string(root.join("src/input.rs")).unwrap());
    assert!(input.contains("OpenOptions") && input.contains("O_NONBLOCK"));
}

#[test]
fn diff_picture_is_written_by_the_one_writer() {
    let d = TempDir::new("diffpic");
    let img = fixture("images/gradient_rgb_3x32x32.pb");
    let (e, a) = (d.path("e.pb"), d.path("a.pb"));
    fs::copy(&img, &e).unwrap();
    fs::copy(&img, &a).unwrap();
    let before = fs::read(&e).unwrap();
    // Over one of its inputs: refused, the input kept.
    let r = run(&d, &["diff", s(&e), s(&a), "--picture", s(&e)]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(r.stderr.contains("reads (the input"), "{}", r.stderr);
    assert_eq!(fs::read(&e).unwrap(), before);
    // A FIFO is refused and left a FIFO.
    let fifo = d.path("d.png");
    mkfifo(&fifo);
    let partner = FifoReader::start(&fifo);
    let r = run(&d, &["diff", s(&e), s(&a), "--picture", s(&fifo)]);
    partner.release();
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(r.stderr.contains("FIFO"), "{}", r.stderr);
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    fs::remove_file(&fifo).unwrap();
    // A replaced file keeps its permission bits.
    let png = d.path("private.png");
    fs::write(&png, b"old").unwrap();
    fs::set_permissions(&png, fs::Permissions::from_mode(0o600)).unwrap();
    let r = run(&d, &["diff", s(&e), s(&a), "--picture", s(&png)]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(fs::read(&png).unwrap().starts_with(b"\x89PNG"));
    let mode = fs::metadata(&png).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "permissions of the replaced file: {mode:o}");
    // `-` is standard output, which carries the report: refused, and no
    // file named `-` appears.
    let r = run(&d, &["diff", s(&e), s(&a), "--picture", "-"]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(r.stderr.contains("standard output"), "{}", r.stderr);
    assert_eq!(names(&d.0), ["a.pb", "e.pb", "private.png"]);
}

#[test]
fn an_output_replacing_a_private_file_keeps_it_private() {
    let d = TempDir::new("mode");
    use std::os::unix::fs::PermissionsExt;
    let out = d.path("x.npy");
    fs::write(&out, b"secret").unwrap();
    fs::set_permissions(&out, fs::Permissions::from_mode(0o600)).unwrap();
    let r = run(&d, &["--npy", s(&out), s(&fixture("example_x_3x4x5.pb"))]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let mode = fs::metadata(&out).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "{mode:o}");
}

// ---- standard input is an input ----

#[test]
fn outputs_never_replace_the_file_on_standard_input() {
    let d = TempDir::new("stdinself");
    let x = d.path("x.pb");
    fs::copy(fixture("example_x_3x4x5.pb"), &x).unwrap();
    let img = d.path("img.pb");
    fs::copy(fixture("images/gradient_rgb_3x32x32.pb"), &img).unwrap();
    for (flag, input) in [("--npy", &x), ("--picture", &img)] {
        let before = fs::read(input).unwrap();
        let r = run_in(
            &d,
            &[flag, s(input), "-"],
            Stdio::from(fs::File::open(input).unwrap()),
        );
        assert_eq!(r.code, Some(2), "{flag}: {}", r.stderr);
        assert!(
            r.stderr.contains("reads (the input"),
            "{flag}: {}",
            r.stderr
        );
        assert_eq!(
            fs::read(input).unwrap(),
            before,
            "{flag}: the input was replaced"
        );
    }
    assert_eq!(names(&d.0), ["img.pb", "x.pb"]);
}

// ---- FIFOs: never a wait on open ----

/// A copy of the test folder test_add_bias.
fn test_folder(d: &TempDir) -> PathBuf {
    let src = fixture("onnx-testdata/test_add_bias");
    let t = d.path("t");
    for set in ["", "test_data_set_0", "test_data_set_1"] {
        fs::create_dir_all(t.join(set)).unwrap();
    }
    fs::copy(src.join("model.onnx"), t.join("model.onnx")).unwrap();
    for set in ["test_data_set_0", "test_data_set_1"] {
        for f in ["input_0.pb", "input_1.pb", "output_0.pb"] {
            fs::copy(src.join(set).join(f), t.join(set).join(f)).unwrap();
        }
    }
    t
}

const NO_WRITER: &str = "FIFO (named pipe) with no writer";

#[test]
fn a_fifo_without_a_writer_is_an_error_in_every_command() {
    let d = TempDir::new("nowriter");
    let t = test_folder(&d);
    let fifo = t.join("test_data_set_0/input_1.pb");
    fs::remove_file(&fifo).unwrap();
    mkfifo(&fifo);
    let x = fixture("example_x_3x4x5.pb");
    let model = t.join("model.onnx");
    let input0 = t.join("test_data_set_1/input_0.pb");
    let cases: Vec<Vec<&str>> = vec![
        vec![s(&t)],
        vec!["--json", s(&t)],
        vec!["--jsonl", s(&x), s(&fifo)],
        vec!["-r", s(&fifo), s(&x)],
        vec![s(&fifo)],
        vec!["--model", s(&fifo), s(&input0)],
        vec!["diff", s(&fifo), s(&x)],
        vec!["diff", s(&x), s(&fifo)],
    ];
    for args in &cases {
        let r = run_with_fifos(&d, args, Stdio::null(), &[&fifo]);
        assert!(!r.waited_on_fifo, "{args:?}: waited in the FIFO's open");
        let out = String::from_utf8_lossy(&r.stdout);
        assert!(
            r.stderr.contains(NO_WRITER) || out.contains(NO_WRITER),
            "{args:?}: {out}\n{}",
            r.stderr
        );
        if args[0] == "--model" {
            // The model is not read: a warning, the file still decoded.
            assert_eq!(r.code, Some(0), "{args:?}: {}", r.stderr);
            assert!(out.contains("FLOAT"), "{args:?}: {out}");
        } else {
            assert_eq!(r.code, Some(2), "{args:?}: {}", r.stderr);
        }
        // The other files of a folder or batch are decoded.
        if args.len() > 1 && args[0] != "diff" && args[0] != "--model" || args == &[s(&t)] {
            assert!(
                out.contains("onnx-tensor") || out.contains("FLOAT"),
                "{args:?}: {out}"
            );
        }
    }
    assert!(model.is_file());
}

#[test]
fn a_fifo_with_a_writer_is_read_by_every_command() {
    let d = TempDir::new("writer");
    let x = fixture("example_x_3x4x5.pb");
    let bytes = fs::read(&x).unwrap();
    let fifo = d.path("x.fifo");
    mkfifo(&fifo);
    for args in [
        vec!["--jsonl", s(&x), s(&fifo)],
        vec!["diff", s(&fifo), s(&x)],
        vec!["--json", s(&fifo)],
    ] {
        let held = fill_fifo(&fifo, &bytes);
        let r = run_with_fifos(&d, &args, Stdio::null(), &[&fifo]);
        drop(held);
        assert!(!r.waited_on_fifo, "{args:?}: waited in the FIFO's open");
        assert_eq!(r.code, Some(0), "{args:?}: {}", r.stderr);
        let out = String::from_utf8_lossy(&r.stdout);
        if args[0] == "--jsonl" {
            assert_eq!(out.matches("\"dims\": [3, 4, 5]").count(), 2, "{out}");
        }
    }
}

// ---- walking folders: names and depth ----

#[test]
fn names_that_are_not_utf8_keep_their_bytes_in_json_lines() {
    use std::os::unix::ffi::OsStrExt;
    let d = TempDir::new("bytes");
    fs::create_dir(d.path("n")).unwrap();
    let x = fs::read(fixture("example_x_3x4x5.pb")).unwrap();
    for name in [&b"a\xff.pb"[..], b"a\xfe.pb", b"b.pb"] {
        fs::write(d.path("n").join(std::ffi::OsStr::from_bytes(name)), &x).unwrap();
    }
    // A relative folder (the run is in `d`), so that the bytes are known.
    let r = run(&d, &["-r", "--jsonl", "n"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let out = String::from_utf8(r.stdout).unwrap();
    let lines: Vec<Value> = out.lines().map(|l| json::value(l).unwrap()).collect();
    let field = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_string);
    let files: Vec<(Option<String>, Option<String>)> = lines
        .iter()
        .map(|v| (field(v, "file"), field(v, "file_bytes")))
        .collect();
    let lossy = Some("n/a\u{fffd}.pb".to_string());
    assert_eq!(
        files,
        [
            (lossy.clone(), Some("bi9h/i5wYg==".to_string())),
            (lossy, Some("bi9h/y5wYg==".to_string())),
            (Some("n/b.pb".to_string()), None),
        ],
        "{out}"
    );
    // The key follows "file", then the decoded object as for any file.
    assert!(
        out.contains("\"file_bytes\": \"bi9h/i5wYg==\", \"format\""),
        "{out}"
    );
}

#[test]
fn a_folder_too_deep_for_a_path_is_one_line_and_the_rest_is_decoded() {
    let d = TempDir::new("deep");
    let top = d.path("top");
    fs::create_dir_all(top.join("sub")).unwrap();
    let x = fixture("example_x_3x4x5.pb");
    fs::copy(&x, top.join("a.pb")).unwrap();
    fs::copy(&x, top.join("sub/b.pb")).unwrap();
    // 30 nested folders of 200 bytes: paths of over 6,000 bytes, past
    // Linux's PATH_MAX (4,096). No path given to the system may be that
    // long, so two chains of 15 are made apart and one moved into the other.
    let name = "d".repeat(200);
    let chain: PathBuf = std::iter::repeat_n(name.as_str(), 15).collect();
    fs::create_dir_all(top.join("sub").join(&chain)).unwrap();
    fs::create_dir_all(d.path("apart").join(&chain)).unwrap();
    fs::rename(
        d.path("apart").join(&name),
        top.join("sub").join(&chain).join(&name),
    )
    .unwrap();
    let r = run(&d, &["-r", "--jsonl", s(&top)]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    let out = String::from_utf8(r.stdout).unwrap();
    let lines: Vec<Value> = out.lines().map(|l| json::value(l).unwrap()).collect();
    assert_eq!(lines.len(), 3, "{out}");
    let decoded: Vec<&str> = lines
        .iter()
        .filter(|v| v.get("format").is_some())
        .filter_map(|v| v.get("file").and_then(Value::as_str))
        .collect();
    assert_eq!(decoded, [s(&top.join("a.pb")), s(&top.join("sub/b.pb"))]);
    let failed: Vec<&Value> = lines.iter().filter(|v| v.get("error").is_some()).collect();
    assert_eq!(failed.len(), 1, "{out}");
    let file = failed[0].get("file").and_then(Value::as_str).unwrap();
    assert!(file.starts_with(s(&top.join("sub").join(&name))), "{file}");
    let message = failed[0]
        .get("error")
        .and_then(|e| e.get("message"))
        .and_then(Value::as_str)
        .unwrap();
    assert!(message.contains("PATH_MAX"), "{message}");
    // The table too: both files, and the folder not read.
    let r = run(&d, &["-r", s(&top)]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    let table = String::from_utf8_lossy(&r.stdout);
    assert_eq!(table.matches("onnx-tensor").count(), 2, "{table}");
    assert!(table.contains("folder not read"), "{table}");
}

/// Whether a thread of process `pid` waits in a read of a pipe.
fn reads_a_pipe(pid: u32) -> bool {
    let Ok(tasks) = fs::read_dir(format!("/proc/{pid}/task")) else {
        return false;
    };
    tasks
        .flatten()
        .any(|t| fs::read_to_string(t.path().join("wchan")).is_ok_and(|w| w.contains("pipe_read")))
}

/// Runs `decode ARGS` where `fifo` is a FIFO that `decode` reads (as a
/// stream) after it has mapped `cut`. The test holds the FIFO's write end,
/// so `decode` waits in that read, past the map and before any read of
/// `cut`; then `cut` is truncated to nothing and `content` written to the
/// FIFO and its end closed, so `decode` goes on to read a mapping whose
/// pages are gone.
fn cut_while_mapped(dir: &TempDir, args: &[&str], fifo: &Path, content: &[u8], cut: &Path) -> Run {
    use std::io::Write;
    mkfifo(fifo);
    // Read and write: opens at once on Linux, and keeps a writer there.
    let mut writer = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(fifo)
        .unwrap();
    let err_path = dir.path("cut.err");
    let mut child = Command::new(env!("CARGO_BIN_EXE_decode"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    // Until decode blocks reading the FIFO or ends: no bound in time, so a
    // slow machine only makes it wait longer (a decode that ended without
    // reading fails the test).
    loop {
        if reads_a_pipe(child.id()) {
            break;
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!(
                "decode ended ({status}) without reading the FIFO: {}",
                fs::read_to_string(&err_path).unwrap_or_default()
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    fs::OpenOptions::new()
        .write(true)
        .open(cut)
        .unwrap()
        .set_len(0)
        .unwrap();
    writer.write_all(content).unwrap();
    drop(writer);
    let status = child.wait().unwrap();
    Run {
        code: status.code(),
        stdout: Vec::new(),
        stderr: fs::read_to_string(&err_path).unwrap()
            + &std::os::unix::process::ExitStatusExt::signal(&status)
                .map_or(String::new(), |s| format!("(killed by signal {s})")),
        waited_on_fifo: false,
    }
}

/// A tensor of 64 Ki floats (256 KiB of raw data: many pages).
fn big_tensor() -> Vec<u8> {
    let values: Vec<f32> = (0..1 << 16).map(|i| i as f32).collect();
    common::build::onnx_f32("x", &[1 << 16], &values)
}

#[test]
fn diff_of_a_file_cut_short_is_a_message() {
    let d = TempDir::new("diffcut");
    let (x, y) = (d.path("x.pb"), d.path("y.pb"));
    fs::write(&x, big_tensor()).unwrap();
    // `decode diff` maps x, then reads y, a FIFO; x is cut meanwhile.
    let r = cut_while_mapped(&d, &["diff", s(&x), s(&y)], &y, &big_tensor(), &x);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(
        r.stderr.contains("decode diff: a file being compared")
            && r.stderr.contains("was cut short by another program"),
        "{}",
        r.stderr
    );
}

#[test]
fn batch_of_a_file_cut_short_is_a_message() {
    let d = TempDir::new("batchcut");
    let model = d.path("model.onnx");
    let input = d.path("input_0.pb");
    fs::write(&input, big_tensor()).unwrap();
    // The batch maps input_0.pb, then reads its model, a FIFO.
    let r = cut_while_mapped(
        &d,
        &["--jsonl", "--model", s(&model), s(&input)],
        &model,
        &common::build::onnx_model(&[]),
        &input,
    );
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("decode: a file being read was cut short by another program"),
        "{}",
        r.stderr
    );
}

/// In a child process (see `a_recovered_fault_reads_zeros`): under
/// `recover_from_mapping_faults`, a read of a mapped file's page that was
/// cut away reads zeros, the map says it was cut short, the fault is
/// counted, and the process goes on. Run directly, it does nothing.
#[test]
fn recovered_fault_child() {
    let Some(path) = std::env::var_os("PBDECODE_RECOVER_FAULT_FILE") else {
        return;
    };
    pbdecode::input::recover_from_mapping_faults().unwrap();
    let before = pbdecode::input::mapping_faults();
    let m = pbdecode::input::open_input(Path::new(&path)).unwrap();
    let other = pbdecode::input::open_input(Path::new(&path)).unwrap();
    assert_eq!(std::hint::black_box(m.bytes())[40000], 9);
    assert!(!m.cut_short());
    fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(4096)
        .unwrap();
    // The first page is still the file's; the rest reads zeros.
    assert_eq!(std::hint::black_box(m.bytes())[100], 9);
    assert_eq!(std::hint::black_box(m.bytes())[40000], 0);
    assert_eq!(std::hint::black_box(m.bytes())[65535], 0);
    assert!(m.cut_short());
    assert!(!other.cut_short(), "only the map that faulted is marked");
    assert_eq!(pbdecode::input::mapping_faults(), before + 1);
    println!("recovered");
}

#[test]
fn a_recovered_fault_reads_zeros() {
    let d = TempDir::new("recover");
    let f = d.path("data.bin");
    fs::write(&f, vec![9u8; 65536]).unwrap();
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "io_safety::recovered_fault_child", "--nocapture"])
        .env("PBDECODE_RECOVER_FAULT_FILE", &f)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?} {text}", out.status);
    assert!(text.contains("recovered"), "{text}");
}
