//! Voxel ray marching for particles and projectiles (seed `002_eedd96a2ecd47c19.txt`, "Optimised
//! CPU Ray Marching in a Voxel World"): the Amanatides-Woo traversal kept inside the current
//! working chunk, over compact occupancy bits built from any [`VoxelSource`](voxel_core::VoxelSource),
//! with empty chunks and bricks crossed in one step.
//!
//! An [`Occupancy`] holds one bit per voxel of a world box in 32^3 chunks (empty chunks take no
//! storage; each stored chunk has an 8-bit mask of its non-empty 16^3 bricks). [`Occupancy::cast`]
//! walks one ray to the first solid voxel and reports the voxel, the face it entered through
//! (axis and sign, to reflect a particle's velocity as the seed does), the ray parameter and the
//! entry point. [`Occupancy::march`] casts a batch with rayon. [`Occupancy::refresh`] re-reads
//! what an edit's dirty region touches.
//!
//! ```
//! use glam::{IVec3, Vec3};
//! use voxel_core::{Ray, Voxel, VoxelBox, VoxelGrid};
//! use voxel_raymarch::{Axis, Occupancy};
//!
//! // A 64^3 world, solid below y = 10.
//! let world = VoxelBox::new(IVec3::ZERO, IVec3::splat(64));
//! let grid = VoxelGrid::from_fn(world, |p| if p.y < 10 { Voxel::new(-64, 1) } else { Voxel::EMPTY })?;
//! let occ = Occupancy::build(&grid, world)?;
//!
//! // A particle 0.8 above the ground falling at 30 voxels per second: no hit in one 1/60 s step.
//! let ray = Ray::new(Vec3::new(5.5, 10.8, 5.5), Vec3::new(0.0, -30.0, 0.0));
//! assert!(occ.cast(&ray, 1.0 / 60.0).is_none());
//! // A longer ray lands on the top face of voxel (5, 9, 5).
//! let hit = occ.cast(&Ray::new(Vec3::new(5.5, 40.0, 5.5), Vec3::NEG_Y), 100.0).unwrap();
//! assert_eq!(hit.voxel, IVec3::new(5, 9, 5));
//! assert_eq!(hit.face.unwrap().axis, Axis::Y);
//! assert_eq!(hit.face.unwrap().normal(), IVec3::Y);
//! assert_eq!(hit.t, 30.0);
//! assert_eq!(hit.point, Vec3::new(5.5, 10.0, 5.5));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Conventions
//!
//! - **Voxels are unit cells:** voxel `p` is `[p, p + 1)` on each axis, so a point on a face belongs
//!   to the voxel above it. A voxel is solid when it is inside and its material's phase is
//!   [`Phase::Solid`](voxel_core::Phase::Solid); water and air are empty, as is everything outside
//!   the world box given to [`Occupancy::build`].
//! - **`t`** is in units of the ray's direction (`point = origin + t * dir`), as for
//!   [`voxel_core::Ray`]; pass a unit direction for distances.
//! - **Ties** (a ray through an edge or a corner) are walked in axis order x, y, z: the ray visits
//!   the edge's neighbours one axis at a time, so it never slips diagonally between two solid
//!   voxels that share only an edge.
//! - **Far origins** (more than [`FAR_ORIGIN`] voxels outside the solid voxels' box) are moved next
//!   to that box in `f64` first ([`clip_far_ray`]), so a ray from `x = 1e8` finds what a ray from
//!   nearby finds; only its `t` keeps the precision of a large number. An origin so far that even
//!   `f64` cannot place the entry within 1/1024 voxel (about 2^40 voxels off on an axis the ray
//!   does not enter through) hits nothing.
//! - **Starting inside** a solid voxel is a hit at `t = 0` with no face. A ray that starts outside
//!   the world box is clipped to it; this extends the seed's "start outside the map: no hit" exit,
//!   which assumed no ray enters the map from outside (a camera or a projectile from the sky does).
//! - **Bad input** never panics or hangs: invalid rays (non-finite origin, NaN, infinite or zero
//!   direction), NaN or negative `max_t` hit nothing; building from an empty, too large or
//!   out-of-range box is a [`RaymarchError`].
//!
//! # Figures
//!
//! Benches `raymarch/*` in `voxel-bench`, beside parry3d's `Voxels` on the same solid voxels; the
//! crate README lists each figure with its goal.

// `unsafe` only on x86_64, each with its `SAFETY` note: the SSE2 lanes (`lanes.rs`) and the calls
// into the AVX2 builds of `cast` and `march` after run-time detection.
#![deny(unsafe_code)]

mod batch;
mod error;
mod far;
mod lanes;
mod march;
mod occupancy;

pub use batch::{Cast, cast_of};
pub use error::RaymarchError;
pub use far::{FAR_ORIGIN, FarRay, clip_far_ray};
pub use march::{Axis, Face, RayHit};
pub use occupancy::{
    BRICK_EDGE, CHUNK_BITS, CHUNK_EDGE, GRID_CHUNKS_PER_STORED, GRID_MIN_CHUNKS, MAX_CHUNKS, MAX_COORDINATE, Occupancy,
};
