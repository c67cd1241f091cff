//! A global allocator that counts the live heap bytes of each thread and
//! their peak (per thread, so tests running in parallel do not disturb each
//! other), and of the whole process (for work spread over threads, in a
//! test binary that runs nothing else at the time). A test binary that
//! measures memory includes this module with
//! `#[path = "common/counting_alloc.rs"] mod counting_alloc;` (from
//! `tests/`; `"../common/counting_alloc.rs"` from a folder of it) and
//! installs it with `#[global_allocator] static ALLOC: Counting = Counting;`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicIsize, Ordering};

pub struct Counting;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

static PROCESS_LIVE: AtomicIsize = AtomicIsize::new(0);
static PROCESS_PEAK: AtomicIsize = AtomicIsize::new(0);

fn note(delta: isize) {
    let now = PROCESS_LIVE.fetch_add(delta, Ordering::Relaxed) + delta;
    PROCESS_PEAK.fetch_max(now, Ordering::Relaxed);
    // try_with: a thread being torn down has no counters left.
    let _ = LIVE.try_with(|live| {
        let now = live.get() + delta;
        live.set(now);
        let _ = PEAK.try_with(|peak| {
            if now > peak.get() {
                peak.set(now);
            }
        });
    });
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            note(layout.size() as isize);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            note(layout.size() as isize);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        note(-(layout.size() as isize));
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            note(new_size as isize - layout.size() as isize);
        }
        p
    }
}

/// Peak heap bytes of this thread while `f` runs, above what was live when
/// it started, with what `f` returned.
#[allow(dead_code)] // used by the tests that run on one thread
pub fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let out = f();
    let peak = PEAK.with(Cell::get);
    (out, usize::try_from(peak - base).unwrap_or(0))
}

/// Peak heap bytes of the whole process while `f` runs, above what was
/// live when it started, with what `f` returned.
#[allow(dead_code)] // used by the tests that spread work over threads
pub fn process_peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = PROCESS_LIVE.load(Ordering::Relaxed);
    PROCESS_PEAK.store(base, Ordering::Relaxed);
    let out = f();
    let peak = PROCESS_PEAK.load(Ordering::Relaxed);
    (out, usize::try_from(peak - base).unwrap_or(0))
}
