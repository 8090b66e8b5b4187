//! The Roblox bit broadphase for voxel terrain (seed `000_ce04cac11e01e96d.txt`, "Bit broadphase:
//! construction" and "overlap test"), over any [`VoxelSource`](voxel_core::VoxelSource).
//!
//! Its reason to exist is precision at almost no memory: an object hanging in a cave must not get a
//! narrowphase pair just because its box overlaps a chunk's box. Per 8^3 chunk the broadphase keeps
//! two dilated bitmasks (solid, water; one `u64` per Y slice, 8 bits per X row), built from a 10^3
//! read with shifts and ORs; an object's box becomes an XZ mask from two lookup tables, then one AND
//! per Y slice answers "touches solid" and "touches water".
//!
//! ```
//! use glam::{IVec3, Vec3};
//! use voxel_core::{Aabb, VoxelBox};
//! use voxel_broadphase::{Broadphase, PairKind};
//! use voxel_store::generate;
//!
//! let world = generate::cuboid(Vec3::new(16.0, 4.0, 16.0), Vec3::new(16.0, 4.0, 16.0)).unwrap();
//! let mut bp = Broadphase::build(&world, VoxelBox::new(IVec3::splat(-8), IVec3::splat(40))).unwrap();
//! let mut events = Vec::new();
//! // A crate resting on the slab's top face (y = 8) gets solid pairs...
//! bp.insert(7, Aabb::new(Vec3::new(10.0, 8.0, 10.0), Vec3::new(11.0, 9.0, 11.0)), &mut events).unwrap();
//! assert!(events.iter().all(|e| e.added && e.kind == PairKind::Solid));
//! // ...and loses them when it is lifted well clear.
//! events.clear();
//! bp.update(7, Aabb::new(Vec3::new(10.0, 20.0, 10.0), Vec3::new(11.0, 21.0, 11.0)), &mut events).unwrap();
//! assert!(!events.is_empty() && events.iter().all(|e| !e.added));
//! ```
//!
//! # Conventions
//!
//! - Chunks are 8^3 voxels, keyed by voxel coordinates divided by 8 (floored).
//! - A chunk's mask bit is set when any of the voxel's 27 neighbours is solid (water), as seed 000
//!   dilates.
//! - Queries grow the box by [`QUERY_MARGIN`] (one voxel) and test the bits of the broadphase's
//!   [`Reach`]: by default [`Reach::SurfaceNets`] (voxel `p` is the grid point `p`, geometry lies
//!   in the unit cubes with a solid corner, as `voxel-mesh` makes it), or [`Reach::Neighbours`],
//!   the seed's reading (voxel `p` is the cell `[p, p + 1)` and its geometry may spill into its 27
//!   neighbours). With either, a box whose test finds no bit touches no geometry of that mesher.
//! - A solid pair with chunk `k` means geometry in `k`'s cubes may lie within the margin; Surface
//!   Nets meshes that geometry into the chunk `k` and the chunks one above it on each axis.
//! - Chunk classes: empty (not stored), full of solid, full of water (tags, no masks, no geometry)
//!   and partial (masks: 1 bit per voxel, 2 with water). The seed also tags chunks full of solid
//!   and water together; here they keep masks, because a solid-phase mesher makes the lake bed
//!   between them ([`ChunkClass::Partial`]).
//! - Results come in chunk order (`y`, then `z`, then `x`); batch updates give the same events for
//!   any thread count.
//! - Bad input (NaN, infinite or inverted boxes, boxes over [`MAX_QUERY_CHUNKS`] chunks, unknown or
//!   reused ids) gives a [`BroadphaseError`] and changes nothing.
//!
//! # Figures
//!
//! From `cargo bench -p voxel-bench --bench broadphase` (benches `broadphase/*`) and its
//! `broadphase_probe` example on a generated 512x128x512 world with caves, on a shared 2-core
//! machine: a character-sized query in 18.1-19.5 ns with AVX2 (15.5-15.9 ns per box in
//! [`Broadphase::query_batch`]; 31 ns on the SSE2 path; about 40x faster than a per-voxel scan,
//! about 1.6x faster than a chunk-box-only test), masks built in 0.69 us per chunk with the read
//! (0.80-0.87 us on other generated worlds), 0.61 bits per voxel of the world, and of 10k objects
//! in open space, 1155 bit-broadphase pairs against 3994 chunk-box pairs and 1073 real contacts,
//! none missed (97% of the redundant pairs cut). The crate README lists every figure with its
//! goal.

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
pub use masks::{CHUNK_EDGE, MaskBuilder, READ_EDGE, SliceMask};
pub use pairs::{PairEvent, PairKind};
pub use query::Reach;
