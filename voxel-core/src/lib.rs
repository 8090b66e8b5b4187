//! The shared vocabulary of the voxel-physics workspace: three small traits and the plain types that
//! cross crate lines.
//!
//! Every other crate of the workspace depends on this one and on nothing else of the workspace
//! (see `ARCHITECTURE.md`), so a user who wants one algorithm takes one crate plus this one. An
//! engine plugs its own data in by implementing a trait in an afternoon:
//!
//! - [`VoxelSource`]: voxels by region (one required method, [`VoxelSource::fill_region`]).
//! - [`TriangleSource`]: indexed triangles with a material each.
//! - [`ContactSink`]: receives contacts one at a time and can say "stop".
//!
//! Ready-made implementations: [`VoxelGrid`] (dense voxels), [`IndexedMesh`] (triangles),
//! `Vec<Contact>` and [`FnSink`] (sinks).
//!
//! ```
//! use glam::{IVec3, Vec3};
//! use voxel_core::{Aabb, Phase, Ray, Voxel, VoxelBox, VoxelGrid, VoxelSource};
//!
//! // A 8^3 world, solid below y = 3.
//! let world = VoxelBox::new(IVec3::ZERO, IVec3::splat(8));
//! let grid = VoxelGrid::from_fn(world, |p| if p.y < 3 { Voxel::new(-64, 1) } else { Voxel::EMPTY })?;
//!
//! // Consumers read regions into a reused buffer, never one voxel at a time.
//! let mut buf = Vec::new();
//! grid.read_region(VoxelBox::new(IVec3::new(0, 2, 0), IVec3::new(8, 4, 8)), &mut buf)?;
//! let solid = buf.iter().filter(|v| v.phase(grid.phase_table()) == Phase::Solid).count();
//! assert_eq!(solid, 64);
//!
//! // The robust slab test.
//! let ray = Ray::new(Vec3::new(4.0, 10.0, 4.0), Vec3::NEG_Y);
//! let (t_enter, _) = Aabb::new(Vec3::ZERO, Vec3::new(8.0, 3.0, 8.0)).intersect_ray(&ray, 0.0, 100.0).unwrap();
//! assert_eq!(t_enter, 7.0);
//! # Ok::<(), voxel_core::Error>(())
//! ```
//!
//! # Conventions
//!
//! - **Axes.** `y` is up. Dense voxel buffers over a box are ordered `x` fastest, then `z`, then `y`:
//!   `index = x + size.x * (z + size.z * y)` ([`VoxelBox::index_of`]). One order, everywhere.
//! - **Voxel coordinates** are `i32`, negative included; boxes are half-open (`min` in, `max` out).
//!   Voxel `p` is the sample point at world position `p` (Surface Nets treats voxels as grid
//!   corners, seed 004).
//! - **Distances.** [`Voxel::distance`] is negative inside. A voxel is solid when inside and its
//!   material's phase ([`PhaseTable`]) is [`Phase::Solid`], water when inside and [`Phase::Liquid`].
//! - **Outside the world** every read gives [`Voxel::EMPTY`].
//! - **Triangles** are counter-clockwise seen from the front (outside of the solid).
//! - **Contacts**: the point is on the mesh, the normal is unit and points from the mesh towards the
//!   shape, the depth is positive when overlapping ([`Contact`]).
//! - **Bad input** never panics: constructors return [`Error`]; degenerate rays hit nothing; empty
//!   boxes overlap nothing; region reads past [`MAX_REGION_VOLUME`] are refused before allocating.
//!
//! # Figures
//!
//! `core/slab/batch` in `voxel-bench` times [`Aabb::intersect_ray`] over a batch of boxes beside
//! parry3d's ray-AABB cast on the same input; `cargo xtask bench core` prints both and their ratio.

#![forbid(unsafe_code)]

mod contact;
mod error;
mod geometry;
mod grid;
mod mesh;
mod region;
mod source;
mod voxel;

pub use contact::{Contact, ContactSink, Feature, FnSink};
pub use error::Error;
pub use geometry::{Aabb, Ray};
pub use grid::VoxelGrid;
pub use mesh::IndexedMesh;
pub use region::{MAX_REGION_VOLUME, VoxelBox};
pub use source::{RegionHint, TriangleSource, VoxelSource, validate_triangles};
pub use voxel::{Phase, PhaseTable, Voxel};

pub use glam;
