//! A global allocator that counts allocation calls, for the tests proving a hot path allocates
//! nothing after warm-up.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};

/// The system allocator, counting `alloc` and `realloc` calls (`alloc_zeroed` goes through
/// `alloc`). Install it in a test binary and compare [`CountingAllocator::allocations`] around the
/// code under test:
///
/// ```ignore
/// #[global_allocator]
/// static ALLOCATOR: voxel_testdata::CountingAllocator = voxel_testdata::CountingAllocator::new();
///
/// let before = ALLOCATOR.allocations();
/// // ... the warm hot path ...
/// assert_eq!(ALLOCATOR.allocations() - before, 0);
/// ```
///
/// The count is global to the binary: keep such tests in their own test file with one test
/// function, so no other test thread allocates while it measures.
#[derive(Debug)]
pub struct CountingAllocator {
    calls: AtomicUsize,
}

impl CountingAllocator {
    /// A counter at zero.
    pub const fn new() -> Self {
        CountingAllocator { calls: AtomicUsize::new(0) }
    }

    /// Allocation calls so far.
    pub fn allocations(&self) -> usize {
        self.calls.load(Ordering::Relaxed)
    }
}

impl Default for CountingAllocator {
    fn default() -> Self {
        Self::new()
    }
}

// SAFETY: forwards to the system allocator unchanged; only counts calls.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        self.calls.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        self.calls.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// The system allocator, counting the bytes live and the peak since the last
/// [`ByteCounter::measure`]: for tests that bound what a build keeps and the most it holds at once.
///
/// ```ignore
/// #[global_allocator]
/// static BYTES: voxel_testdata::ByteCounter = voxel_testdata::ByteCounter::new();
///
/// let (value, kept, peak) = BYTES.measure(|| build());
/// ```
///
/// The counts are global to the binary: keep such tests in a file with one test function.
#[derive(Debug)]
pub struct ByteCounter {
    live: AtomicIsize,
    peak: AtomicIsize,
}

impl ByteCounter {
    /// Counters at zero.
    pub const fn new() -> Self {
        ByteCounter { live: AtomicIsize::new(0), peak: AtomicIsize::new(0) }
    }

    /// Runs `f`; returns its value, the bytes it left allocated and the most it had allocated at
    /// once (both above what was live before).
    pub fn measure<T>(&self, f: impl FnOnce() -> T) -> (T, usize, usize) {
        let before = self.live.load(Ordering::SeqCst);
        self.peak.store(before, Ordering::SeqCst);
        let value = f();
        let after = self.live.load(Ordering::SeqCst);
        let peak = self.peak.load(Ordering::SeqCst);
        (value, (after - before).max(0) as usize, (peak - before).max(0) as usize)
    }

    fn grow(&self, bytes: isize) {
        let live = self.live.fetch_add(bytes, Ordering::SeqCst) + bytes;
        self.peak.fetch_max(live, Ordering::SeqCst);
    }
}

impl Default for ByteCounter {
    fn default() -> Self {
        Self::new()
    }
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged; the counters
// are atomics and never affect the memory returned.
unsafe impl GlobalAlloc for ByteCounter {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            self.grow(layout.size() as isize);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            self.grow(layout.size() as isize);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` with `layout`.
        unsafe { System.dealloc(ptr, layout) };
        self.live.fetch_sub(layout.size() as isize, Ordering::SeqCst);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded as is; `ptr` came from `System` with `layout`.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            self.grow(new_size as isize - layout.size() as isize);
        }
        p
    }
}
