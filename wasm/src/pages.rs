//! The module's allocator: the standard one, except for big zeroed
//! buffers (a picked file's, [`crate::zeroed`]), which take fresh pages
//! from the memory. A new WebAssembly page is zero, so a gigabyte buffer
//! costs nothing until its slices are written; the standard allocator
//! clears what it hands out for a zeroed request, which for a 1 GiB file
//! took two seconds of the page's time.
//!
//! A buffer of fresh pages freed is kept for the next big zeroed request
//! that fits (cleared then, as it is no longer fresh): a memory cannot
//! shrink, and the standard allocator cannot take the pages over.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::UnsafeCell;

/// Zeroed requests at least this big take fresh pages.
const BIG: usize = 16 << 20;
const PAGE: usize = 64 << 10;
/// Buffers of fresh pages tracked at once (live or freed); beyond, the
/// standard allocator serves.
const SLOTS: usize = 64;

#[derive(Clone, Copy)]
struct Region {
    start: usize,
    len: usize,
    live: bool,
}

pub struct Pages {
    regions: UnsafeCell<[Option<Region>; SLOTS]>,
}

// SAFETY: a WebAssembly module of this target runs on one thread; the
// regions are never touched from two at once.
unsafe impl Sync for Pages {}

impl Pages {
    pub const fn new() -> Pages {
        Pages {
            regions: UnsafeCell::new([None; SLOTS]),
        }
    }

    /// # Safety
    /// One thread (see the `Sync` impl), and no other borrow of the
    /// regions alive: each method below takes and drops it.
    #[allow(clippy::mut_from_ref)]
    unsafe fn regions(&self) -> &mut [Option<Region>; SLOTS] {
        // SAFETY: as the function's contract says.
        unsafe { &mut *self.regions.get() }
    }

    /// The slot of the live region starting at `ptr`.
    unsafe fn live_slot(&self, ptr: *mut u8) -> Option<usize> {
        // SAFETY: one thread, no other borrow.
        let regions = unsafe { self.regions() };
        regions
            .iter()
            .position(|r| r.is_some_and(|r| r.live && r.start == ptr as usize))
    }
}

unsafe impl GlobalAlloc for Pages {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.size() < BIG || layout.align() > PAGE {
            // SAFETY: the caller's contract, passed on.
            return unsafe { System.alloc_zeroed(layout) };
        }
        // SAFETY: one thread, no other borrow (dropped before returning).
        let regions = unsafe { self.regions() };
        // A freed region that fits: cleared, as it held a buffer.
        if let Some(r) = regions
            .iter_mut()
            .flatten()
            .find(|r| !r.live && r.len >= layout.size())
        {
            r.live = true;
            let ptr = r.start as *mut u8;
            // SAFETY: the region is this allocator's, `len` bytes long
            // and used by no one (it was freed).
            unsafe { std::ptr::write_bytes(ptr, 0, layout.size()) };
            return ptr;
        }
        let Some(slot) = regions.iter().position(Option::is_none) else {
            // SAFETY: the caller's contract, passed on.
            return unsafe { System.alloc_zeroed(layout) };
        };
        let pages = layout.size().div_ceil(PAGE);
        let before = core::arch::wasm32::memory_grow(0, pages);
        if before == usize::MAX {
            return std::ptr::null_mut();
        }
        let start = before * PAGE;
        if let Some(s) = regions.get_mut(slot) {
            *s = Some(Region {
                start,
                len: pages * PAGE,
                live: true,
            });
        }
        start as *mut u8
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: one thread, no other borrow.
        match unsafe { self.live_slot(ptr) } {
            Some(slot) => {
                // SAFETY: one thread, no other borrow.
                if let Some(Some(r)) = unsafe { self.regions() }.get_mut(slot) {
                    r.live = false;
                }
            }
            // SAFETY: not a region of fresh pages: the standard
            // allocator's, under the caller's contract.
            None => unsafe { System.dealloc(ptr, layout) },
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: one thread, no other borrow.
        if unsafe { self.live_slot(ptr) }.is_none() {
            // SAFETY: the standard allocator's, under the caller's
            // contract.
            return unsafe { System.realloc(ptr, layout, new_size) };
        }
        // SAFETY: the caller's contract: `new_size` with `layout`'s
        // alignment is a valid layout.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        // SAFETY: a valid layout; the old region is `layout.size()`
        // bytes long and the new one `new_size`: the copy stays in both.
        unsafe {
            let new = System.alloc(new_layout);
            if !new.is_null() {
                std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
            new
        }
    }
}
