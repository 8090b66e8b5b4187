#![doc = include_str!("../README.md")]
// `unsafe` only on x86_64, each block with its `SAFETY` note: the calls into the SSE2 small query
// and the SSE2 voxel classification (SSE2 is part of the x86_64 baseline) and into the AVX2 query
// (after run-time detection); in `query/avx2.rs` the box's two loads from the `#[repr(C)]` `Aabb`,
// the aligned 256-bit loads of a 64-byte mask slot, one `vptest` in inline assembly, the
// unchecked grid and slot reads of a small window and the length update of its reserved hits; in
// `masks.rs` the unaligned loads of a block read's `#[repr(C)]` voxels.
#![deny(unsafe_code)]

mod broadphase;
mod error;
mod index;
mod masks;
mod pairs;
mod query;

pub use broadphase::{Broadphase, ChunkClass, ChunkHit, MAX_COORDINATE, MAX_QUERY_CHUNKS, MemoryStats, QUERY_MARGIN};
pub use error::BroadphaseError;
pub use masks::CHUNK_EDGE;

/// The mask building blocks under [`Broadphase`], public for benches and tools that build or
/// inspect masks without one. Not covered by semantic versioning: they may change in any release.
pub mod raw {
    pub use crate::masks::{MaskBuilder, READ_EDGE, SliceMask};
}
pub use pairs::{PairEvent, PairKind};
pub use query::Reach;
