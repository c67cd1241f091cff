//! Getting bytes in. [`open_read`] is the one place that opens a path to
//! read, without ever blocking on the open; [`open_input`] decides how a
//! path is read: a regular file is memory-mapped (the only `unsafe` in the
//! project besides [`exit_on_mapping_fault`]), a pipe or character device
//! (`decode <(cat x.pb)`, `/dev/stdin`) is read as a stream up to
//! [`MAX_STREAM_BYTES`] (a pipe with no writer is an error, not a wait), a
//! directory is refused by name. Every file read, standard input included,
//! is remembered ([`was_read`]) so that the output layer never replaces a
//! file this process is reading.

use memmap2::Mmap;
use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Read};
use std::path::Path;
use std::sync::Mutex;

/// The most bytes read from a pipe, a character device or standard input
/// (a file that large should be given as a file, which is mapped).
pub const MAX_STREAM_BYTES: u64 = 1 << 30;

/// Input bytes, mapped or owned.
pub enum InputBytes {
    /// A regular file's map, with the file it maps (for copying a range
    /// of it in the kernel).
    Mapped(Mmap, File),
    Owned(Vec<u8>),
}

impl InputBytes {
    pub fn bytes(&self) -> &[u8] {
        match self {
            InputBytes::Mapped(m, _) => m,
            InputBytes::Owned(v) => v,
        }
    }

    /// Where `part`, a slice of these bytes, lies in the file they were
    /// mapped from: the open file and the offset. None for bytes that
    /// were read rather than mapped, or a slice from elsewhere.
    pub fn file_range(&self, part: &[u8]) -> Option<(&File, u64)> {
        let InputBytes::Mapped(map, file) = self else {
            return None;
        };
        // Addresses only: which part of the map `part` is, if any.
        let offset = (part.as_ptr() as usize).checked_sub(map.as_ptr() as usize)?;
        let end = offset.checked_add(part.len())?;
        (end <= map.len()).then_some((file, offset as u64))
    }
}

/// The identity of every regular file this process has opened for
/// reading: the input and the external-data files of its tensors.
static READ_FILES: Mutex<Vec<FileId>> = Mutex::new(Vec::new());

/// Device, inode and the inode's change time: a file deleted after it was
/// read may have its inode number reused by a new file, which the change
/// time tells apart.
type FileId = (u64, u64, i64, i64);

/// A file's identity: its device and inode (and change time).
#[cfg(unix)]
pub fn identity(meta: &Metadata) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino(), meta.ctime(), meta.ctime_nsec()))
}

#[cfg(not(unix))]
pub fn identity(_meta: &Metadata) -> Option<FileId> {
    None
}

fn remember(meta: &Metadata) {
    if let Some(id) = identity(meta)
        && let Ok(mut files) = READ_FILES.lock()
        && !files.contains(&id)
    {
        files.push(id);
    }
}

/// Whether the file `meta` describes is one this process has read (the
/// same device and inode, whatever path or hard link names it).
pub fn was_read(meta: &Metadata) -> bool {
    match (identity(meta), READ_FILES.lock()) {
        (Some(id), Ok(files)) => files.contains(&id),
        _ => false,
    }
}

/// What kind of file a path is, in words, for messages.
pub fn kind_name(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a directory";
    }
    if t.is_file() {
        return "a regular file";
    }
    if t.is_symlink() {
        return "a symbolic link";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "not a regular file"
}

/// Maps an open regular file (an empty one is read: mapping zero bytes
/// fails on some systems).
fn map_open_file(file: &File, meta: &Metadata) -> io::Result<InputBytes> {
    if meta.len() == 0 {
        return Ok(InputBytes::Owned(Vec::new()));
    }
    // SAFETY: the map is read-only and private to this process. Another
    // process truncating the file while we read it raises SIGBUS, which the
    // `decode` binary turns into a message and exit status 2 (see
    // `exit_on_mapping_fault`); that is the price of not copying
    // multi-gigabyte files into memory.
    let map = unsafe { Mmap::map(file)? };
    Ok(InputBytes::Mapped(map, file.try_clone()?))
}

/// Maps an open file read-only (the explorer's uploads, kept in a temporary
/// file that is already unlinked). An empty file is read.
pub fn map_handle(file: &File) -> std::io::Result<InputBytes> {
    if file.metadata()?.len() == 0 {
        return Ok(InputBytes::Owned(Vec::new()));
    }
    // SAFETY: as in map_open_file; the file is private to this process
    // (created exclusively with mode 0600, then unlinked), so nothing else
    // can truncate it.
    let map = unsafe { Mmap::map(file)? };
    Ok(InputBytes::Mapped(map, file.try_clone()?))
}

/// Reads a stream to its end, refusing more than `cap` bytes.
pub fn read_stream<R: Read>(reader: R, cap: u64, what: &str) -> io::Result<InputBytes> {
    let mut buf = Vec::new();
    reader.take(cap.saturating_add(1)).read_to_end(&mut buf)?;
    if buf.len() as u64 > cap {
        return Err(io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!(
                "{what} is larger than {cap} bytes, the most read from a pipe or device; save it to a file and give its path"
            ),
        ));
    }
    Ok(InputBytes::Owned(buf))
}

/// A pipe's stream rule: once every writer is gone a read ends at once, so
/// a pipe that gave nothing had no writer (a FIFO nobody opened for
/// writing, or a writer that wrote nothing): an error, not an empty input.
fn pipe_stream(bytes: InputBytes, meta: &Metadata, what: &str) -> io::Result<InputBytes> {
    if is_pipe(meta) && bytes.bytes().is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("{what} with no writer: nothing was written to it"),
        ));
    }
    Ok(bytes)
}

#[cfg(unix)]
fn is_pipe(meta: &Metadata) -> bool {
    use std::os::unix::fs::FileTypeExt;
    meta.file_type().is_fifo()
}

#[cfg(not(unix))]
fn is_pipe(_meta: &Metadata) -> bool {
    false
}

/// Whether [`open_read`] follows a symbolic link in the last component.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    Follow,
    /// The link itself is refused (external data, checked beforehand).
    NoFollow,
}

/// A file opened by [`open_read`], with what it is.
pub struct Opened {
    file: File,
    meta: Metadata,
}

/// Opens a path to read: the one place this crate opens an input (the
/// file to decode, models, `decode diff` sides, batch files, served files,
/// external data, `.proto` files). The open never blocks (`O_NONBLOCK`: a
/// FIFO without a writer opens at once, where a plain open waits for one
/// forever); a pipe or device is then switched back to blocking reads, so
/// a writer that is there is waited for. A directory is refused by name.
/// Every file opened is remembered ([`was_read`]).
pub fn open_read(path: &Path, link: Link) -> io::Result<Opened> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let no_follow = match link {
            Link::Follow => 0,
            Link::NoFollow => libc::O_NOFOLLOW,
        };
        options.custom_flags(libc::O_NONBLOCK | no_follow);
    }
    #[cfg(not(unix))]
    let _ = link;
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory, not a file",
        ));
    }
    if !meta.is_file() {
        set_blocking(&file)?;
    }
    remember(&meta);
    Ok(Opened { file, meta })
}

#[cfg(unix)]
fn set_blocking(file: &File) -> io::Result<()> {
    use rustix::fs::{OFlags, fcntl_getfl, fcntl_setfl};
    let flags = fcntl_getfl(file).map_err(io::Error::from)?;
    fcntl_setfl(file, flags.difference(OFlags::NONBLOCK)).map_err(io::Error::from)
}

#[cfg(not(unix))]
fn set_blocking(_file: &File) -> io::Result<()> {
    Ok(())
}

impl Opened {
    pub fn file(&self) -> &File {
        &self.file
    }

    pub fn metadata(&self) -> &Metadata {
        &self.meta
    }

    /// A regular file mapped; anything else refused unread.
    pub fn map(self) -> io::Result<InputBytes> {
        if !self.meta.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("is {}, not a regular file", kind_name(&self.meta)),
            ));
        }
        map_open_file(&self.file, &self.meta)
    }

    /// A regular file mapped; a pipe, character device or socket read as a
    /// stream of at most `cap` bytes (a pipe that gives nothing had no
    /// writer: an error).
    pub fn read(self, cap: u64) -> io::Result<InputBytes> {
        if self.meta.is_file() {
            return map_open_file(&self.file, &self.meta);
        }
        let what = kind_name(&self.meta);
        let bytes = read_stream(&self.file, cap, what)?;
        pipe_stream(bytes, &self.meta, what)
    }
}

/// Opens the file to decode: a regular file is mapped; a pipe, a character
/// device or a socket is read as a stream of at most [`MAX_STREAM_BYTES`];
/// a directory is refused ("is a directory"). Errors carry no path (the
/// caller adds it).
pub fn open_input(path: &Path) -> io::Result<InputBytes> {
    open_input_capped(path, MAX_STREAM_BYTES)
}

/// [`open_input`] with the stream cap given.
pub fn open_input_capped(path: &Path, cap: u64) -> io::Result<InputBytes> {
    open_read(path, Link::Follow)?.read(cap)
}

/// Maps a regular file; anything else (a FIFO, a device) is refused
/// without being read or blocked on.
pub fn map_file(path: &Path) -> io::Result<InputBytes> {
    open_read(path, Link::Follow)?.map()
}

/// Reads all of standard input, at most [`MAX_STREAM_BYTES`]. What it is
/// (a file redirected with `<`) is remembered as read, like any input, so
/// no output replaces it. Whoever started the process connected it, so an
/// empty one is an empty input, not a pipe missing its writer.
pub fn read_stdin() -> io::Result<InputBytes> {
    if let Some(meta) = stdin_metadata() {
        remember(&meta);
    }
    read_stream(io::stdin().lock(), MAX_STREAM_BYTES, "standard input")
}

/// fstat of descriptor 0.
#[cfg(unix)]
fn stdin_metadata() -> Option<Metadata> {
    use std::os::fd::AsFd;
    let fd = io::stdin().as_fd().try_clone_to_owned().ok()?;
    File::from(fd).metadata().ok()
}

#[cfg(not(unix))]
fn stdin_metadata() -> Option<Metadata> {
    None
}

/// Makes a fault on a mapped file (SIGBUS: another process truncated it
/// while it was read) write `message` to standard error and end the process
/// with exit status 2, instead of dying by a signal. For the `decode`
/// binary, which owns the process; a library user that cannot exit should
/// not call it.
///
/// This is the one justified exception to "no `unsafe` beyond the memory
/// map": a fault on a mapping cannot be prevented (no lock stops another
/// process from truncating a file) and cannot be recovered from without
/// unwinding through a signal frame, so the handler does the only sound
/// thing, two async-signal-safe calls (`write`, `_exit`), on a message
/// stored before the handler is installed and never freed.
#[cfg(unix)]
pub fn exit_on_mapping_fault(message: String) -> io::Result<()> {
    fault::install(message)
}

/// Elsewhere a fault on a mapping stays a signal.
#[cfg(not(unix))]
pub fn exit_on_mapping_fault(_message: String) -> io::Result<()> {
    Ok(())
}

#[cfg(unix)]
mod fault {
    use std::io;
    use std::sync::atomic::{AtomicPtr, Ordering};

    /// The message, leaked so that it is valid whenever the signal comes.
    static MESSAGE: AtomicPtr<Vec<u8>> = AtomicPtr::new(std::ptr::null_mut());

    extern "C" fn on_sigbus(_signal: libc::c_int) {
        let message = MESSAGE.load(Ordering::Acquire);
        // SAFETY: `message` is null or a leaked, never freed and never
        // mutated Vec; write(2) and _exit(2) are async-signal-safe.
        unsafe {
            if let Some(m) = message.as_ref() {
                let _ = libc::write(2, m.as_ptr().cast(), m.len());
            }
            libc::_exit(2);
        }
    }

    pub(super) fn install(message: String) -> io::Result<()> {
        let leaked: &'static mut Vec<u8> = Box::leak(Box::new(message.into_bytes()));
        MESSAGE.store(leaked, Ordering::Release);
        // SAFETY: a zeroed sigaction is a valid "no flags, empty mask"
        // value; the handler is an extern "C" fn of the right signature.
        let rc = unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_sigbus as extern "C" fn(libc::c_int) as libc::sighandler_t;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut())
        };
        if rc == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }
}
