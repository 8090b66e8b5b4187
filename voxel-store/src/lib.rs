//! Sparse chunked voxel storage for terrain: quantized signed distance plus palette material per
//! voxel (seed `004_5249947f555dbe3d.txt`, "Voxel Data Structures" and "Voxel Representation"),
//! grown into what a game needs from its terrain store.
//!
//! - **Sparse chunks** of [`CHUNK_EDGE`]³ voxels in a hash map: empty chunks take no entry, uniform
//!   chunks one voxel, surface chunks are row-packed ([`VoxelStore::compact`]).
//! - **[`VoxelSource`](voxel_core::VoxelSource)** reads by whole rows, and a uniform hint answered
//!   from chunk metadata.
//! - **Edits** ([`VoxelStore::set`], [`VoxelStore::fill_box`], CSG [`VoxelStore::add`] /
//!   [`VoxelStore::subtract`] / [`VoxelStore::paint`] with [`Brush`]es), each reporting its
//!   [`EditReport::dirty`] region, already grown by the 1-voxel padding meshers and the broadphase
//!   read.
//! - **[`SharedStore`]**: readers on many threads while a writer edits; no reader sees half an edit.
//! - **[`generate`]**: deterministic terrain with caves and water, test shapes, `from_fn`.
//! - **Save and load** ([`VoxelStore::save`], [`VoxelStore::load`]): versioned, run-length encoded,
//!   checksummed, written atomically.
//! - **MagicaVoxel import** ([`vox`], feature `vox`).
//!
//! ```
//! use glam::{IVec3, Vec3};
//! use voxel_core::{Phase, VoxelSource};
//! use voxel_store::{Brush, VoxelStore};
//!
//! let mut store = VoxelStore::new();
//! let rock = store.palette_mut().add("rock", Phase::Solid, [128, 128, 128, 255])?;
//! let report = store.add(&Brush::Sphere { center: Vec3::new(0.0, 0.0, 0.0), radius: 8.0 }, rock)?;
//! assert!(store.get(IVec3::ZERO).is_inside());
//! assert!(!store.get(IVec3::new(0, 12, 0)).is_inside());
//! // The dirty region covers the changed voxels plus the 1-voxel padding.
//! assert!(report.dirty.contains(IVec3::new(-9, 0, 0)) && report.dirty.contains(IVec3::new(9, 0, 0)));
//! store.compact();
//! # Ok::<(), voxel_store::StoreError>(())
//! ```
//!
//! # Conventions
//!
//! - Voxel coordinates are `i32`, negative included; buffers use `voxel-core`'s axis order (`x`,
//!   then `z`, then `y`); `y` is up.
//! - Distances are in voxel units, quantized by [`quantize`] with [`DISTANCE_SCALE`] = 50.8 steps per
//!   voxel over a ±[`DISTANCE_BAND`] = 2.5 voxel band (the module docs of `quantize` derive it).
//! - Material 0 is air ([`voxel_core::Phase::Empty`]); [`voxel_core::Voxel::EMPTY`] is
//!   `{ distance: 127, material: 0 }` and is what reads outside stored chunks return.
//! - Bad input (NaN or infinite brush parameters, huge regions, unknown materials, malformed files)
//!   gives a [`StoreError`]; nothing stored is changed by a failed call.
//! - Edits leave the chunks they touch dense (2 bytes per voxel) until [`VoxelStore::compact`].
//!
//! # Figures
//!
//! From `cargo xtask bench --quick store` (benches `store/*` in `voxel-bench`), on a generated
//! 512x128x512 world with caves and water: 0.49 bytes per voxel in memory, 0.19 on disk (0.17 and
//! 0.067 without caves), a radius-8 sphere edit in about 70 us (130 M voxels of its box per second),
//! a 64^3 region read in 84-141 us (0.11-0.2x a memcpy of the same bytes). The crate README lists every
//! figure with its goal.

#![forbid(unsafe_code)]

mod chunk;
mod edit;
mod error;
pub mod generate;
mod io;
mod palette;
mod quantize;
mod shared;
mod store;
#[cfg(feature = "vox")]
pub mod vox;

pub use chunk::{CHUNK_BITS, CHUNK_EDGE};
pub use edit::{Brush, DIRTY_PADDING, EditReport, MAX_BRUSH_COORDINATE, MAX_BRUSH_EXTENT, MAX_EDIT_CHUNKS};
pub use error::StoreError;
pub use io::FORMAT_VERSION;
pub use palette::{Material, Palette};
pub use quantize::{DISTANCE_BAND, DISTANCE_SCALE, dequantize, quantize};
pub use shared::{SharedEdit, SharedStore};
pub use store::{MemoryStats, VoxelStore};
