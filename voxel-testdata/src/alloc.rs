//! A global allocator that counts allocation calls, for the tests proving a hot path allocates
//! nothing after warm-up.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

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
