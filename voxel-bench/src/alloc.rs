//! A counting global allocator, for memory figures measured rather than estimated.
//!
//! A bench binary installs it once and measures what a build retains with [`retained_bytes`]:
//!
//! ```
//! #[global_allocator]
//! static ALLOC: voxel_bench::alloc::CountingAlloc = voxel_bench::alloc::CountingAlloc;
//!
//! fn main() {
//!     let (v, bytes) = voxel_bench::alloc::retained_bytes(|| vec![0u32; 1000]);
//!     assert_eq!(v.len(), 1000);
//!     assert!(bytes >= 4000);
//! }
//! ```
//! Counts are process-wide: measure
//! outside criterion's timing loops, on one thread.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

static LIVE: AtomicIsize = AtomicIsize::new(0);

/// The system allocator, counting the bytes currently allocated.
pub struct CountingAlloc;

// SAFETY: every method forwards to `System` with the caller's arguments unchanged, so `System`'s
// guarantees hold; the counter is a relaxed atomic and never affects the returned memory.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is; the caller upholds `GlobalAlloc::alloc`'s contract.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by this allocator (so by `System`) with `layout`.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded as is; `ptr` came from `System` with `layout`.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_add(new_size as isize - layout.size() as isize, Ordering::Relaxed);
        }
        p
    }
}

/// Bytes currently allocated through [`CountingAlloc`] (0 when it is not installed).
pub fn live_bytes() -> isize {
    LIVE.load(Ordering::Relaxed)
}

/// Runs `build` and returns its result with the bytes it left allocated: what the result (and
/// anything else `build` kept) retains, scratch freed before returning excluded.
pub fn retained_bytes<T>(build: impl FnOnce() -> T) -> (T, usize) {
    let before = live_bytes();
    let value = build();
    let after = live_bytes();
    (value, (after - before).max(0) as usize)
}
