//! Progress of long work (whole-tensor passes, exports of many tensors):
//! the library reports through this trait and never prints; the binary
//! draws a bar on a terminal.

/// Work over at least this many bytes reports its progress (a pass over
/// ~100 MB takes about a second where values are formatted as text).
pub const THRESHOLD_BYTES: u64 = 100 << 20;

/// Told of the progress of long work. Calls may come from several threads.
pub trait Progress: Sync {
    /// Work named `what` starts, `total` units long (elements, bytes or
    /// tensors).
    fn start(&self, what: &str, total: u64);
    /// `done` more units are finished.
    fn advance(&self, done: u64);
    /// The work is over.
    fn finish(&self);
}

/// Reports nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl Progress for Silent {
    fn start(&self, _: &str, _: u64) {}
    fn advance(&self, _: u64) {}
    fn finish(&self) {}
}

/// Threads for whole-tensor passes: the cores this process may use (at most
/// 16), asked once.
pub fn threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, |t| t.get().min(16)))
}
