//! Writing files without losing data: every file the tool writes goes
//! through here.
//!
//! - Nothing is created before there is something to write: the caller
//!   validates, [`Output::write`] creates its temporary file on the first
//!   byte.
//! - A regular file is written to a temporary file in the target's folder
//!   (created exclusively, never through a link), synced, then renamed over
//!   the target, so a failure leaves the target as it was. On failure only
//!   that temporary file is removed: never a path the tool did not create.
//! - Standard output (`-`, `/dev/stdout`, `/dev/fd/1`) and character devices
//!   or pipes named by a path under `/dev/` or `/proc/self/fd/` (such as
//!   `/dev/null` or bash's `>(...)`) are written in place, never created,
//!   truncated or removed. Any other non-regular file (a FIFO elsewhere, a
//!   socket, a block device, a directory) is refused.
//! - A file this process reads (the input, its external data: see
//!   [`crate::input::was_read`]) is never replaced, whatever path names it.
//! - [`Policy::in_folder`] (for files the tool names itself, as in
//!   `--npy-dir`) follows no link at the final name and refuses an existing
//!   entry unless told to replace it; [`Policy::named`] (a path the user
//!   typed) follows links to the file they name and replaces it.

use crate::input::{kind_name, was_read};
use crate::progress::{Progress, THRESHOLD_BYTES};
use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// How an output path is treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    /// Follow a symbolic link at the path to the file it names (a path the
    /// user typed); otherwise a link is an entry like any other.
    pub follow_links: bool,
    /// Replace an existing regular file (or, without `follow_links`, a
    /// link); otherwise an existing entry is refused.
    pub replace: bool,
}

impl Policy {
    /// A path the user named: links followed, an existing file replaced.
    pub fn named() -> Self {
        Policy {
            follow_links: true,
            replace: true,
        }
    }

    /// A name the tool chose inside a folder: no link followed; an existing
    /// entry replaced only if `replace`.
    pub fn in_folder(replace: bool) -> Self {
        Policy {
            follow_links: false,
            replace,
        }
    }
}

/// Why an output was refused or failed. Every variant names the path.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The path is not a regular file.
    #[error(
        "{path}: is {kind}; only regular files are written (and, by a path under /dev/, a character device or pipe)"
    )]
    NotRegular { path: PathBuf, kind: &'static str },
    /// The path is a file the command reads.
    #[error(
        "{path}: is a file this command reads (the input or its external data); not replacing it"
    )]
    IsInput { path: PathBuf },
    /// The path exists and replacing was not asked for.
    #[error("{path}: already exists")]
    Exists { path: PathBuf },
    /// The path is a symbolic link whose target does not exist.
    #[error("{path}: is a symbolic link to nothing")]
    DanglingLink { path: PathBuf },
    /// Creating, writing or renaming failed.
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

impl OutputError {
    fn io(path: &Path, source: io::Error) -> Self {
        OutputError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

impl From<OutputError> for io::Error {
    fn from(e: OutputError) -> io::Error {
        let kind = match &e {
            OutputError::Io { source, .. } => source.kind(),
            OutputError::Exists { .. } => io::ErrorKind::AlreadyExists,
            _ => io::ErrorKind::InvalidInput,
        };
        io::Error::new(kind, e.to_string())
    }
}

/// Where the bytes go, decided (and checked) before anything is created.
#[derive(Debug)]
pub enum Output {
    /// Standard output.
    Stdout,
    /// A character device or pipe, written in place.
    Device(PathBuf),
    /// A regular file, written through a temporary file and renamed.
    File {
        /// The path as given, for messages.
        shown: PathBuf,
        /// The entry that will be replaced or created.
        target: PathBuf,
        /// The permissions of the file it replaces, kept.
        replaces: Option<std::fs::Permissions>,
    },
}

/// Paths that mean standard output.
fn is_stdout_name(path: &Path) -> bool {
    matches!(
        path.to_str(),
        Some("-" | "/dev/stdout" | "/dev/fd/1" | "/proc/self/fd/1")
    )
}

/// Paths under which a user names devices and pipes on purpose.
fn is_device_name(path: &Path) -> bool {
    path.starts_with("/dev") || path.starts_with("/proc/self/fd")
}

fn is_stream(meta: &Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        t.is_char_device() || t.is_fifo()
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        false
    }
}

impl Output {
    /// Checks `path` under `policy` and says where the bytes will go.
    /// Creates nothing.
    pub fn plan(path: &Path, policy: Policy) -> Result<Output, OutputError> {
        if is_stdout_name(path) {
            return Ok(Output::Stdout);
        }
        let entry = match std::fs::symlink_metadata(path) {
            Ok(m) => Some(m),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(OutputError::io(path, e)),
        };
        let Some(entry) = entry else {
            return Ok(Output::File {
                shown: path.to_path_buf(),
                target: path.to_path_buf(),
                replaces: None,
            });
        };
        let (meta, target) = if entry.file_type().is_symlink() && policy.follow_links {
            match std::fs::metadata(path) {
                Ok(m) => {
                    let target =
                        std::fs::canonicalize(path).map_err(|e| OutputError::io(path, e))?;
                    (m, target)
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    return Err(OutputError::DanglingLink {
                        path: path.to_path_buf(),
                    });
                }
                Err(e) => return Err(OutputError::io(path, e)),
            }
        } else {
            (entry, path.to_path_buf())
        };
        if is_stream(&meta) && is_device_name(path) {
            return Ok(Output::Device(path.to_path_buf()));
        }
        let t = meta.file_type();
        if !(t.is_file() || t.is_symlink()) {
            return Err(OutputError::NotRegular {
                path: path.to_path_buf(),
                kind: kind_name(&meta),
            });
        }
        if !policy.replace {
            return Err(OutputError::Exists {
                path: path.to_path_buf(),
            });
        }
        if t.is_file() && was_read(&meta) {
            return Err(OutputError::IsInput {
                path: path.to_path_buf(),
            });
        }
        Ok(Output::File {
            shown: path.to_path_buf(),
            target,
            replaces: t.is_file().then(|| meta.permissions()),
        })
    }

    /// Plans `path` under `policy` and writes what `produce` writes there.
    /// The outer error is the output's; the inner result is `produce`'s (on
    /// its error the target is untouched and nothing is left behind).
    pub fn write_path<T, E>(
        path: &Path,
        policy: Policy,
        produce: impl FnOnce(&mut dyn Write) -> Result<T, E>,
    ) -> Result<Result<T, E>, OutputError> {
        Output::plan(path, policy)?.write(produce)
    }

    /// Writes `head` and then `body`, the bytes of `source` (an open file
    /// and the offset of `body` in it) when known. To a file the body is
    /// copied in the kernel (`copy_file_range`, as `cp` does), so it never
    /// passes through this process; elsewhere it is written from memory.
    /// Either way in pieces, so that progress can be told.
    pub fn write_copy(
        &self,
        what: &str,
        head: &[u8],
        body: &[u8],
        source: Option<(&File, u64)>,
        progress: Option<&dyn Progress>,
    ) -> Result<(), OutputError> {
        let (
            Output::File {
                shown,
                target,
                replaces,
            },
            Some((from, offset)),
        ) = (self, source)
        else {
            return self
                .write(|w| -> io::Result<()> {
                    w.write_all(head)?;
                    write_pieces(w, what, body, progress)
                })?
                .map_err(|e| OutputError::io(self.shown(), e));
        };
        let err = |e| OutputError::io(shown, e);
        let mut temp = TempFile::new(target, replaces.as_ref());
        let to = temp.create().map_err(err)?;
        to.write_all(head).map_err(err)?;
        let mut from = from;
        from.seek(SeekFrom::Start(offset)).map_err(err)?;
        pieces(what, body.len() as u64, progress, |n| {
            // `Read::take` of a `&File` into a `File`: std's `io::copy`
            // uses `copy_file_range` (or `sendfile`) for this pair.
            let copied = io::copy(&mut Read::take(from, n), to)?;
            if copied == n {
                Ok(())
            } else {
                Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the input file became shorter while it was copied",
                ))
            }
        })
        .map_err(err)?;
        temp.commit(shown)
    }

    /// The output's name, for messages.
    fn shown(&self) -> &Path {
        match self {
            Output::Stdout => Path::new("standard output"),
            Output::Device(path) => path,
            Output::File { shown, .. } => shown,
        }
    }

    /// Writes what `produce` writes to this output. For a file: a
    /// temporary file beside the target, created on the first byte; on
    /// success synced and renamed over the target; on any failure removed.
    pub fn write<T, E>(
        &self,
        produce: impl FnOnce(&mut dyn Write) -> Result<T, E>,
    ) -> Result<Result<T, E>, OutputError> {
        match self {
            Output::Stdout => {
                let mut w = BufWriter::with_capacity(1 << 16, stdout_stream());
                let result = produce(&mut w);
                w.flush()
                    .map_err(|e| OutputError::io(Path::new("standard output"), e))?;
                Ok(result)
            }
            Output::Device(path) => {
                // Never created or truncated: the device or pipe exists.
                let file = OpenOptions::new()
                    .write(true)
                    .open(path)
                    .map_err(|e| OutputError::io(path, e))?;
                let mut w = BufWriter::with_capacity(1 << 16, file);
                let result = produce(&mut w);
                w.flush().map_err(|e| OutputError::io(path, e))?;
                Ok(result)
            }
            Output::File {
                shown,
                target,
                replaces,
            } => {
                let mut temp = TempFile::new(target, replaces.as_ref());
                let result = {
                    let mut w = BufWriter::with_capacity(1 << 16, &mut temp);
                    let result = produce(&mut w);
                    if result.is_ok() {
                        w.flush().map_err(|e| OutputError::io(shown, e))?;
                    }
                    result
                };
                match result {
                    Ok(v) => {
                        temp.commit(shown)?;
                        Ok(Ok(v))
                    }
                    // `temp` is removed when dropped.
                    Err(e) => Ok(Err(e)),
                }
            }
        }
    }
}

/// A temporary file beside the target, created exclusively on the first
/// write and removed when dropped unless committed.
/// Standard output for a long stream of text: on Unix a duplicate of its
/// descriptor, so that each buffer goes straight to a `write` (the
/// standard library's stdout is line-buffered and scans every buffer for
/// its last newline, 4% of a `--json` dump); elsewhere, or if the
/// descriptor cannot be duplicated, standard output itself.
pub fn stdout_stream() -> Box<dyn Write> {
    let stdout = io::stdout();
    // Nothing written before may come after what is written here.
    let _ = stdout.lock().flush();
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        if let Ok(fd) = stdout.as_fd().try_clone_to_owned() {
            return Box::new(File::from(fd));
        }
    }
    Box::new(stdout)
}

/// Creates the folder `path` and its missing parents (`--npy-dir DIR`);
/// one that exists is kept as it is.
pub fn create_folder(path: &Path) -> Result<(), OutputError> {
    std::fs::create_dir_all(path).map_err(|e| OutputError::io(path, e))
}

/// A scratch file for bytes that arrive before they can be read (the
/// explorer's large uploads), private to this process, leaving nothing on
/// disk however the process ends: a file that never has a name (Linux
/// `O_TMPFILE` in the system's temporary folder, mode 0600), or where the
/// file system cannot make one, a file created exclusively under a random
/// name, mode 0600, and unlinked at once. The name owes nothing to any
/// secret of the caller (it takes none).
pub fn unlinked_scratch_file() -> io::Result<File> {
    let dir = std::env::temp_dir();
    if let Some(file) = nameless_file(&dir) {
        return Ok(file);
    }
    let mut random = [0u8; 16];
    File::open("/dev/urandom")?.read_exact(&mut random)?;
    let name: String = random.iter().map(|b| format!("{b:02x}")).collect();
    let path = dir.join(format!("pbdecode-scratch-{name}"));
    let mut options = OpenOptions::new();
    options.read(true).write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let file = options.open(&path)?;
    // The open handle keeps the data; the name goes now. Only the entry
    // this call created is removed.
    std::fs::remove_file(&path)?;
    Ok(file)
}

/// A file in `dir` that never has a name (Linux `O_TMPFILE`, mode 0600);
/// None where the kernel or the file system cannot make one.
#[cfg(target_os = "linux")]
fn nameless_file(dir: &Path) -> Option<File> {
    use std::os::unix::fs::OpenOptionsExt;
    OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_TMPFILE)
        .mode(0o600)
        .open(dir)
        .ok()
}

#[cfg(not(target_os = "linux"))]
fn nameless_file(_dir: &Path) -> Option<File> {
    None
}

/// Bytes written or copied at a time, so that progress moves.
const PIECE: u64 = 16 << 20;

/// Runs `step` (work named `what`) over `len` bytes in pieces of at most [`PIECE`], telling
/// `progress` when there are more than [`THRESHOLD_BYTES`].
fn pieces(
    what: &str,
    len: u64,
    progress: Option<&dyn Progress>,
    mut step: impl FnMut(u64) -> io::Result<()>,
) -> io::Result<()> {
    let progress = progress.filter(|_| len >= THRESHOLD_BYTES);
    if let Some(p) = progress {
        p.start(what, len);
    }
    let mut left = len;
    while left > 0 {
        let n = left.min(PIECE);
        step(n)?;
        left -= n;
        if let Some(p) = progress {
            p.advance(n);
        }
    }
    if let Some(p) = progress {
        p.finish();
    }
    Ok(())
}

/// Writes `body` in pieces, telling `progress` of a big one.
pub fn write_pieces(
    w: &mut dyn Write,
    what: &str,
    body: &[u8],
    progress: Option<&dyn Progress>,
) -> io::Result<()> {
    let mut rest = body;
    pieces(what, body.len() as u64, progress, |n| {
        let (piece, after) =
            rest.split_at(usize::try_from(n).unwrap_or(rest.len()).min(rest.len()));
        rest = after;
        w.write_all(piece)
    })
}

struct TempFile {
    target: PathBuf,
    folder: PathBuf,
    /// The permissions of the file replaced: the temporary file is created
    /// with no more than these (never readable by more people than the
    /// file it replaces, even while it is written) and gets them exactly
    /// when it is committed.
    replaces: Option<std::fs::Permissions>,
    path: Option<PathBuf>,
    file: Option<File>,
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl TempFile {
    fn new(target: &Path, replaces: Option<&std::fs::Permissions>) -> Self {
        let folder = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        TempFile {
            target: target.to_path_buf(),
            folder,
            replaces: replaces.cloned(),
            path: None,
            file: None,
        }
    }

    fn create(&mut self) -> io::Result<&mut File> {
        if self.file.is_none() {
            let name = self
                .target
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let short: String = name.chars().take(100).collect();
            let mut tries = 0u32;
            loop {
                let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
                let path = self
                    .folder
                    .join(format!(".{short}.{}.{n}.part", std::process::id()));
                // create_new: O_EXCL, which also refuses to go through a link.
                let mut options = OpenOptions::new();
                options.write(true).create_new(true);
                #[cfg(unix)]
                if let Some(p) = &self.replaces {
                    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
                    options.mode(p.mode() & 0o777);
                }
                match options.open(&path) {
                    Ok(f) => {
                        self.path = Some(path);
                        self.file = Some(f);
                        break;
                    }
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists && tries < 100 => {
                        tries += 1;
                    }
                    Err(e) => return Err(e),
                }
            }
        }
        self.file
            .as_mut()
            .ok_or_else(|| io::Error::other("temporary file not open"))
    }

    /// Renames the temporary file over the target, after checking again
    /// that the target is not a file this process read. When it replaces
    /// a file, its bytes are synced to disk first, so that a crash cannot
    /// leave the old file's name on a file whose data never reached the
    /// disk; a new file is not synced (as `cp` does not), which keeps an
    /// export at copying speed.
    fn commit(mut self, shown: &Path) -> Result<(), OutputError> {
        let err = |e| OutputError::io(shown, e);
        let permissions = self.replaces.clone();
        let file = self.create().map_err(err)?;
        if let Some(p) = permissions {
            file.set_permissions(p).map_err(err)?;
            file.sync_all().map_err(err)?;
        }
        // External data read while writing counts too.
        if let Ok(meta) = std::fs::symlink_metadata(&self.target)
            && meta.is_file()
            && was_read(&meta)
        {
            return Err(OutputError::IsInput {
                path: shown.to_path_buf(),
            });
        }
        let Some(path) = self.path.clone() else {
            return Err(err(io::Error::other("temporary file not created")));
        };
        std::fs::rename(&path, &self.target).map_err(err)?;
        self.path = None;
        // Best effort: make the rename itself durable.
        if let Ok(dir) = File::open(&self.folder) {
            let _ = dir.sync_all();
        }
        Ok(())
    }
}

impl Write for TempFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.create()?.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        match self.file.as_mut() {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        self.file = None;
        if let Some(path) = self.path.take() {
            // Only the file this value created.
            let _ = std::fs::remove_file(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("pbdecode-out-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn names(d: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_range_of_a_mapped_file_is_copied_after_the_head() {
        let d = folder("copy");
        let source = d.join("in.pb");
        let content: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&source, &content).unwrap();
        let input = crate::input::open_input(&source).unwrap();
        let body = &input.bytes()[1_000..90_000];
        let range = input.file_range(body);
        assert_eq!(range.map(|(_, o)| o), Some(1_000));
        // A slice from elsewhere is no range of the file.
        assert!(input.file_range(&content[1_000..2_000]).is_none());
        let target = d.join("out.npy");
        std::fs::write(&target, b"old").unwrap();
        Output::plan(&target, Policy::named())
            .unwrap()
            .write_copy("writing", b"HEAD", body, range, None)
            .unwrap();
        let mut want = b"HEAD".to_vec();
        want.extend_from_slice(&content[1_000..90_000]);
        assert_eq!(std::fs::read(&target).unwrap(), want);
        // Without a range (bytes read, not mapped) the same bytes.
        let other = d.join("other.npy");
        Output::plan(&other, Policy::named())
            .unwrap()
            .write_copy("writing", b"HEAD", body, None, None)
            .unwrap();
        assert_eq!(std::fs::read(&other).unwrap(), want);
        // A range past the file's end (the file cut short since it was
        // mapped) fails and leaves the target as it was.
        let file = std::fs::File::open(&source).unwrap();
        let e = Output::plan(&target, Policy::named())
            .unwrap()
            .write_copy("writing", b"HEAD", body, Some((&file, 50_000)), None)
            .unwrap_err();
        assert!(e.to_string().contains("shorter"), "{e}");
        assert_eq!(std::fs::read(&target).unwrap(), want);
        drop(input);
        assert_eq!(names(&d), ["in.pb", "other.npy", "out.npy"]);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_failure_after_writing_leaves_the_target_and_no_temporary_file() {
        let d = folder("fail");
        let target = d.join("t.npy");
        std::fs::write(&target, b"keep").unwrap();
        let r = Output::write_path(&target, Policy::named(), |w| -> Result<(), String> {
            w.write_all(&[1u8; 200_000]).map_err(|e| e.to_string())?;
            Err("values ran out".into())
        })
        .unwrap();
        assert_eq!(r, Err("values ran out".to_string()));
        assert_eq!(std::fs::read(&target).unwrap(), b"keep");
        assert_eq!(names(&d), ["t.npy"]);
        // Success replaces it whole.
        let r = Output::write_path(&target, Policy::named(), |w| w.write_all(b"new"));
        assert!(matches!(r, Ok(Ok(()))));
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        assert_eq!(names(&d), ["t.npy"]);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    #[cfg(unix)]
    fn a_link_planted_at_a_temporary_name_is_never_followed() {
        let d = folder("plant");
        let victim = d.join("victim");
        std::fs::write(&victim, b"keep").unwrap();
        let target = d.join("d.png");
        // Links at the temporary names this process is about to use.
        let next = TEMP_COUNTER.load(Ordering::Relaxed);
        for n in next..next + 20 {
            let name = format!(".d.png.{}.{n}.part", std::process::id());
            std::os::unix::fs::symlink(&victim, d.join(name)).unwrap();
        }
        let r = Output::write_path(&target, Policy::named(), |w| w.write_all(b"png"));
        assert!(matches!(r, Ok(Ok(()))), "{r:?}");
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
        assert_eq!(std::fs::read(&target).unwrap(), b"png");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn in_folder_refuses_what_exists_unless_replacing() {
        let d = folder("exists");
        let target = d.join("a.npy");
        std::fs::write(&target, b"old").unwrap();
        let e = Output::plan(&target, Policy::in_folder(false)).unwrap_err();
        assert!(matches!(e, OutputError::Exists { .. }), "{e}");
        assert!(Output::plan(&target, Policy::in_folder(true)).is_ok());
        let sub = d.join("sub");
        std::fs::create_dir(&sub).unwrap();
        let e = Output::plan(&sub, Policy::in_folder(true)).unwrap_err();
        assert!(e.to_string().contains("is a directory"), "{e}");
        // Nothing planned is created.
        let fresh = d.join("fresh.npy");
        assert!(Output::plan(&fresh, Policy::named()).is_ok());
        assert_eq!(names(&d), ["a.npy", "sub"]);
        let _ = std::fs::remove_dir_all(&d);
    }
}
