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
    /// Runs `f` (which prints a message) with the bar out of its way.
    fn suspend(&self, f: &mut dyn FnMut()) {
        f()
    }
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

/// One piece of a longer piece of work that has its own bar (a tensor of
/// an export of many): the piece's steps move the outer bar, its own start
/// and end are not shown. `done` says how far the piece told it got, so
/// that the caller can move the outer bar past the rest of the piece.
pub struct Part<'p> {
    outer: &'p dyn Progress,
    done: std::sync::atomic::AtomicU64,
}

impl<'p> Part<'p> {
    pub fn new(outer: &'p dyn Progress) -> Self {
        Part {
            outer,
            done: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// Units the piece reported done.
    pub fn done(&self) -> u64 {
        self.done.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl Progress for Part<'_> {
    fn start(&self, _: &str, _: u64) {}
    fn advance(&self, done: u64) {
        self.done
            .fetch_add(done, std::sync::atomic::Ordering::Relaxed);
        self.outer.advance(done);
    }
    fn finish(&self) {}
    fn suspend(&self, f: &mut dyn FnMut()) {
        self.outer.suspend(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[derive(Default)]
    struct Log(Mutex<Vec<String>>);

    impl Progress for Log {
        fn start(&self, what: &str, total: u64) {
            self.0.lock().unwrap().push(format!("start {what} {total}"));
        }
        fn advance(&self, done: u64) {
            self.0.lock().unwrap().push(format!("advance {done}"));
        }
        fn finish(&self) {
            self.0.lock().unwrap().push("finish".into());
        }
    }

    #[test]
    fn a_part_moves_the_outer_bar_only() {
        let log = Log::default();
        log.start("writing .npy files", 100);
        let part = Part::new(&log);
        part.start("writing .npy", 60);
        part.advance(20);
        part.advance(30);
        part.finish();
        assert_eq!(part.done(), 50);
        log.finish();
        assert_eq!(
            *log.0.lock().unwrap(),
            [
                "start writing .npy files 100",
                "advance 20",
                "advance 30",
                "finish"
            ]
        );
    }
}
