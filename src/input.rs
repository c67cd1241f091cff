//! Getting bytes in. [`open_read`] is the one place that opens a path to
//! read, without ever blocking on the open; [`open_input`] decides how a
//! path is read: a regular file is memory-mapped (the only `unsafe` in the
//! project besides the fault handler of [`exit_on_mapping_fault`] and
//! [`recover_from_mapping_faults`]), a pipe or character device
//! (`decode <(cat x.pb)`, `/dev/stdin`) is read as a stream up to
//! [`MAX_STREAM_BYTES`] (a pipe with no writer is an error, not a wait), a
//! directory is refused by name. Every file read, standard input included,
//! is remembered ([`was_read`]) so that the output layer never replaces a
//! file this process is reading. Without Unix (wasm32) a regular file is
//! read into memory instead of mapped.

#[cfg(unix)]
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
    /// A regular file's map.
    #[cfg(unix)]
    Mapped(Mapping),
    Owned(Vec<u8>),
}

/// A regular file mapped read-only, with the file it maps (for copying a
/// range of it in the kernel), watched for faults (see
/// [`recover_from_mapping_faults`]).
#[cfg(unix)]
pub struct Mapping {
    // Declared before `map`: the watch ends before the map is unmapped.
    watch: Option<fault::Watch>,
    map: Mmap,
    file: File,
}

#[cfg(unix)]
impl Mapping {
    fn new(map: Mmap, file: File) -> Mapping {
        Mapping {
            watch: fault::Watch::new(map.as_ptr() as usize, map.len()),
            map,
            file,
        }
    }
}

impl InputBytes {
    pub fn bytes(&self) -> &[u8] {
        match self {
            #[cfg(unix)]
            InputBytes::Mapped(m) => &m.map,
            InputBytes::Owned(v) => v,
        }
    }

    /// Where `part`, a slice of these bytes, lies in the file they were
    /// mapped from: the open file and the offset. None for bytes that
    /// were read rather than mapped, or a slice from elsewhere.
    #[cfg(unix)]
    pub fn file_range(&self, part: &[u8]) -> Option<(&File, u64)> {
        let InputBytes::Mapped(m) = self else {
            return None;
        };
        // Addresses only: which part of the map `part` is, if any.
        let offset = (part.as_ptr() as usize).checked_sub(m.map.as_ptr() as usize)?;
        let end = offset.checked_add(part.len())?;
        (end <= m.map.len()).then_some((&m.file, offset as u64))
    }

    /// Without maps there is no file behind the bytes.
    #[cfg(not(unix))]
    pub fn file_range(&self, _part: &[u8]) -> Option<(&File, u64)> {
        None
    }

    /// Whether the file was cut short under this map and a read of the
    /// part that was gone was recovered (it read zeros from there on): the
    /// bytes are no longer the file's, and what was made of them is wrong.
    /// Only under [`recover_from_mapping_faults`].
    pub fn cut_short(&self) -> bool {
        match self {
            #[cfg(unix)]
            InputBytes::Mapped(m) => m.watch.as_ref().is_some_and(fault::Watch::cut_short),
            InputBytes::Owned(_) => false,
        }
    }
}

/// The identity of every regular file this process has opened for
/// reading: the input and the external-data files of its tensors.
static READ_FILES: Mutex<Vec<FileId>> = Mutex::new(Vec::new());

/// Device, inode and the inode's change time: a file deleted after it was
/// read may have its inode number reused by a new file, which the change
/// time tells apart.
pub type FileId = (u64, u64, i64, i64);

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
    map_nonempty(file)
}

/// Reads a non-empty regular file into memory, where there are no maps.
#[cfg(not(unix))]
fn map_nonempty(file: &File) -> io::Result<InputBytes> {
    let mut buf = Vec::new();
    let mut reader = file;
    reader.read_to_end(&mut buf)?;
    Ok(InputBytes::Owned(buf))
}

/// Maps a non-empty regular file.
#[cfg(unix)]
fn map_nonempty(file: &File) -> io::Result<InputBytes> {
    // SAFETY: the map is read-only and private to this process. Another
    // process truncating the file while we read it raises SIGBUS, which the
    // `decode` binary turns into a message and exit status 2 (see
    // `exit_on_mapping_fault`) and the explorer into a failed request (see
    // `recover_from_mapping_faults`); that is the price of not copying
    // multi-gigabyte files into memory.
    let map = unsafe { Mmap::map(file)? };
    Ok(InputBytes::Mapped(Mapping::new(map, file.try_clone()?)))
}

/// Maps an open file read-only (the explorer's uploads, kept in a temporary
/// file that is already unlinked). An empty file is read.
pub fn map_handle(file: &File) -> std::io::Result<InputBytes> {
    if file.metadata()?.len() == 0 {
        return Ok(InputBytes::Owned(Vec::new()));
    }
    map_private(file)
}

/// Where there are no maps, the file is read like any other.
#[cfg(not(unix))]
fn map_private(file: &File) -> io::Result<InputBytes> {
    map_nonempty(file)
}

/// Maps a non-empty file private to this process.
#[cfg(unix)]
fn map_private(file: &File) -> io::Result<InputBytes> {
    // SAFETY: as in map_open_file; the file is private to this process
    // (nameless or unlinked at once, mode 0600), so only this user, through
    // /proc, can truncate it, which faults as there.
    let map = unsafe { Mmap::map(file)? };
    Ok(InputBytes::Mapped(Mapping::new(map, file.try_clone()?)))
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

/// Where an open file really is (Linux: `/proc/self/fd`), to check that no
/// folder on the way was swapped for a link between resolving and opening
/// (external data, the explorer's files).
#[cfg(target_os = "linux")]
pub fn opened_path(file: &File) -> Option<std::path::PathBuf> {
    use std::os::fd::AsRawFd;
    std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())).ok()
}

#[cfg(not(target_os = "linux"))]
pub fn opened_path(_file: &File) -> Option<std::path::PathBuf> {
    None
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
/// binary's commands, which own the process; a library user that cannot
/// exit should not call it.
///
/// This is the one justified exception to "no `unsafe` beyond the memory
/// map": a fault on a mapping cannot be prevented (no lock stops another
/// process from truncating a file), so the handler does one of two sound
/// things with async-signal-safe calls only: here, `write` of a message
/// stored before the handler is installed and never freed, then `_exit`.
#[cfg(unix)]
pub fn exit_on_mapping_fault(message: String) -> io::Result<()> {
    fault::install(fault::Mode::Exit(message))
}

/// Elsewhere a fault on a mapping stays a signal.
#[cfg(not(unix))]
pub fn exit_on_mapping_fault(_message: String) -> io::Result<()> {
    Ok(())
}

/// Makes a fault on a mapping this module made (another process truncated
/// the file) recoverable, for a server that must outlive one file: the
/// handler puts zero pages where the file's pages were gone (`mmap` with
/// `MAP_FIXED` over the rest of that mapping, one system call), marks the
/// mapping cut short ([`crate::Document::cut_short`]), counts the fault
/// (`mapping_faults`) and returns, so the read completes with zeros.
/// The caller then throws away what it made of those bytes. A fault
/// anywhere else stays the signal it was (the default action).
///
/// Unwinding or jumping out of a signal handler is not sound in Rust, and
/// reading a 1 GiB model into memory to avoid the map costs a copy of it:
/// finishing the read with zeros and discarding the result is what is
/// left.
#[cfg(target_os = "linux")]
pub fn recover_from_mapping_faults() -> io::Result<()> {
    fault::install(fault::Mode::Recover)
}

/// Elsewhere a fault on a mapping stays a signal.
#[cfg(not(target_os = "linux"))]
pub fn recover_from_mapping_faults() -> io::Result<()> {
    Ok(())
}

/// How many faults on mappings were recovered in this process (see
/// [`recover_from_mapping_faults`]): a request that sees it change while
/// it runs may have read zeros instead of a file's bytes.
pub fn mapping_faults() -> u64 {
    fault::FAULTS.load(std::sync::atomic::Ordering::Acquire)
}

/// Where each live mapping is, in a table the signal handler can read
/// without locks or allocation: chunks of slots that are never freed, a
/// slot per mapping while it lives.
#[cfg(unix)]
mod fault {
    use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering};

    /// Recovered faults, process-wide.
    pub(super) static FAULTS: AtomicU64 = AtomicU64::new(0);

    const SLOTS: usize = 64;

    struct Slot {
        /// 0: free; 1: being written; 2: in use.
        state: AtomicUsize,
        /// Changes with every use of the slot, so that the handler can
        /// tell a slot that changed hands while it read it.
        generation: AtomicU64,
        start: AtomicUsize,
        len: AtomicUsize,
        cut: AtomicBool,
    }

    const FREE: usize = 0;
    const WRITING: usize = 1;
    const IN_USE: usize = 2;

    impl Slot {
        const fn new() -> Slot {
            Slot {
                state: AtomicUsize::new(FREE),
                generation: AtomicU64::new(0),
                start: AtomicUsize::new(0),
                len: AtomicUsize::new(0),
                cut: AtomicBool::new(false),
            }
        }
    }

    struct Chunk {
        slots: [Slot; SLOTS],
        next: AtomicPtr<Chunk>,
    }

    impl Chunk {
        const fn new() -> Chunk {
            Chunk {
                slots: [const { Slot::new() }; SLOTS],
                next: AtomicPtr::new(std::ptr::null_mut()),
            }
        }
    }

    static FIRST: Chunk = Chunk::new();

    /// The chunks in order: the static one, then leaked ones (never freed,
    /// so a handler may read them at any time).
    fn chunks() -> impl Iterator<Item = &'static Chunk> {
        std::iter::successors(Some(&FIRST), |c| {
            // SAFETY: `next` is null or a leaked, never freed Chunk.
            unsafe { c.next.load(Ordering::Acquire).as_ref() }
        })
    }

    /// A live mapping's slot, freed when the mapping goes.
    pub(super) struct Watch {
        slot: &'static Slot,
    }

    impl Watch {
        /// Takes a free slot for the mapping at `start` (page-aligned, as
        /// every map of a whole file is), adding a chunk when all are
        /// taken. None for an empty or unaligned range, which stays
        /// unwatched.
        pub(super) fn new(start: usize, len: usize) -> Option<Watch> {
            if len == 0 || !start.is_multiple_of(page_size()) {
                return None;
            }
            let slot = loop {
                let free = chunks().flat_map(|c| c.slots.iter()).find(|s| {
                    s.state
                        .compare_exchange(FREE, WRITING, Ordering::AcqRel, Ordering::Relaxed)
                        .is_ok()
                });
                if let Some(s) = free {
                    break s;
                }
                // All taken: append a chunk to the last one (another thread
                // may append first; then look again).
                let last = chunks().last().unwrap_or(&FIRST);
                let fresh: &'static mut Chunk = Box::leak(Box::new(Chunk::new()));
                let fresh_ptr: *mut Chunk = fresh;
                if last
                    .next
                    .compare_exchange(
                        std::ptr::null_mut(),
                        fresh_ptr,
                        Ordering::AcqRel,
                        Ordering::Acquire,
                    )
                    .is_err()
                {
                    // SAFETY: `fresh` was never shared; it is freed once.
                    drop(unsafe { Box::from_raw(fresh_ptr) });
                }
            };
            slot.generation.fetch_add(1, Ordering::AcqRel);
            slot.start.store(start, Ordering::Release);
            slot.len.store(len, Ordering::Release);
            slot.cut.store(false, Ordering::Release);
            slot.state.store(IN_USE, Ordering::Release);
            Some(Watch { slot })
        }

        pub(super) fn cut_short(&self) -> bool {
            self.slot.cut.load(Ordering::Acquire)
        }
    }

    impl Drop for Watch {
        fn drop(&mut self) {
            self.slot.generation.fetch_add(1, Ordering::AcqRel);
            self.slot.state.store(FREE, Ordering::Release);
        }
    }

    static PAGE: AtomicUsize = AtomicUsize::new(0);

    fn page_size() -> usize {
        let known = PAGE.load(Ordering::Relaxed);
        if known != 0 {
            return known;
        }
        // SAFETY: sysconf has no preconditions.
        let size = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) })
            .ok()
            .filter(|&p| p.is_power_of_two())
            .unwrap_or(4096);
        PAGE.store(size, Ordering::Relaxed);
        size
    }

    /// The live mapping that holds `addr`: its slot and its range.
    fn watched(addr: usize) -> Option<(&'static Slot, usize, usize)> {
        chunks().flat_map(|c| c.slots.iter()).find_map(|s| {
            let generation = s.generation.load(Ordering::Acquire);
            if s.state.load(Ordering::Acquire) != IN_USE {
                return None;
            }
            let (start, len) = (
                s.start.load(Ordering::Acquire),
                s.len.load(Ordering::Acquire),
            );
            let steady = s.state.load(Ordering::Acquire) == IN_USE
                && s.generation.load(Ordering::Acquire) == generation;
            (steady && addr >= start && addr - start < len).then_some((s, start, len))
        })
    }

    pub(super) enum Mode {
        Exit(String),
        #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
        Recover,
    }

    /// The exit message (leaked: valid whenever the signal comes); null in
    /// recover mode.
    static MESSAGE: AtomicPtr<Vec<u8>> = AtomicPtr::new(std::ptr::null_mut());

    /// Puts zero pages over the rest of the watched mapping that holds
    /// `addr`, from its page on; false when `addr` is in none.
    #[cfg(target_os = "linux")]
    fn zero_fill(addr: usize) -> bool {
        let Some((slot, start, len)) = watched(addr) else {
            return false;
        };
        let page = PAGE.load(Ordering::Relaxed);
        if page == 0 {
            return false;
        }
        let from = addr & !(page - 1);
        let Some(end) = start
            .checked_add(len)
            .and_then(|e| e.checked_add(page - 1))
            .map(|e| e & !(page - 1))
        else {
            return false;
        };
        // SAFETY: [from, end) lies inside a live read-only map of this
        // process (the watch ends before the map is unmapped); MAP_FIXED
        // replaces those pages with zero pages in one step. mmap is a
        // plain system call on Linux, safe in a signal handler.
        let got = unsafe {
            libc::mmap(
                from as *mut libc::c_void,
                end - from,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                -1,
                0,
            )
        };
        if got == libc::MAP_FAILED {
            return false;
        }
        slot.cut.store(true, Ordering::Release);
        FAULTS.fetch_add(1, Ordering::AcqRel);
        true
    }

    #[cfg(target_os = "linux")]
    fn fault_address(info: *mut libc::siginfo_t) -> Option<usize> {
        // SAFETY: the kernel passes a valid siginfo with SA_SIGINFO; a
        // fault it raised (si_code > 0) carries the address.
        unsafe {
            let info = info.as_ref()?;
            (info.si_code > 0).then(|| info.si_addr() as usize)
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn zero_fill(_addr: usize) -> bool {
        false
    }

    #[cfg(not(target_os = "linux"))]
    fn fault_address(_info: *mut libc::siginfo_t) -> Option<usize> {
        None
    }

    extern "C" fn on_sigbus(
        _signal: libc::c_int,
        info: *mut libc::siginfo_t,
        _context: *mut libc::c_void,
    ) {
        let message = MESSAGE.load(Ordering::Acquire);
        if message.is_null() {
            if fault_address(info).is_some_and(zero_fill) {
                // The read is retried and finds zeros.
                return;
            }
            // Not a file cut short under a watched map: the fault is what
            // it was. Back to the default action, which the retried access
            // then takes.
            // SAFETY: signal(2) with SIG_DFL is async-signal-safe.
            unsafe {
                libc::signal(libc::SIGBUS, libc::SIG_DFL);
            }
            return;
        }
        // SAFETY: `message` is a leaked, never freed and never mutated
        // Vec; write(2) and _exit(2) are async-signal-safe.
        unsafe {
            if let Some(m) = message.as_ref() {
                let _ = libc::write(2, m.as_ptr().cast(), m.len());
            }
            libc::_exit(2);
        }
    }

    pub(super) fn install(mode: Mode) -> std::io::Result<()> {
        page_size();
        let message = match mode {
            Mode::Exit(m) => {
                let leaked: &'static mut Vec<u8> = Box::leak(Box::new(m.into_bytes()));
                let ptr: *mut Vec<u8> = leaked;
                ptr
            }
            Mode::Recover => std::ptr::null_mut(),
        };
        MESSAGE.store(message, Ordering::Release);
        // SAFETY: a zeroed sigaction is a valid "no flags, empty mask"
        // value; the handler is an extern "C" fn of the SA_SIGINFO
        // signature.
        let rc = unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_sigbus
                as extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void)
                as libc::sighandler_t;
            action.sa_flags = libc::SA_SIGINFO;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut())
        };
        if rc == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    }
}

/// Without Unix there are no maps, so no faults on them.
#[cfg(not(unix))]
mod fault {
    use std::sync::atomic::AtomicU64;

    pub(super) static FAULTS: AtomicU64 = AtomicU64::new(0);
}
