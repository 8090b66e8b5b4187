//! Voxel terrain physics the way Roblox describes it (Arseny Kapoulkine, "Voxel Terrain: Physics",
//! Roblox blog, 2018): the umbrella over the workspace's crates, and the [`TerrainCollider`] that
//! composes them.
//!
//! Depend on this crate alone and every piece is here, under its own crate's name
//! ([`voxel_core`], [`voxel_store`], [`voxel_mesh`], [`voxel_broadphase`], [`voxel_kdtree`],
//! [`voxel_contacts`], [`voxel_raymarch`], [`convex_hacd`]); take one of those crates instead when
//! one piece is all an engine needs. The collider holds a [`VoxelStore`] and keeps three things
//! current with it through edits: the bit broadphase (two dilated bitmasks per 8^3 chunk), the
//! narrowphase cache (a Surface Nets mesh and a loose kD tree per 8^3 chunk, built the first time
//! a query needs it, bounded in bytes, least recently used out) and the ray marcher's occupancy
//! bits. On top: ray casts against the smooth surface, ray marching on the blocky view, contacts
//! for spheres, capsules, boxes and convex hulls without ghost contacts on chunk seams, and the
//! islands an edit cuts loose, with their meshes and convex hulls.
//!
//! ```
//! use voxel_physics::glam::{IVec3, Vec3};
//! use voxel_physics::voxel_contacts::Capsule;
//! use voxel_physics::voxel_store::generate::{self, materials};
//! use voxel_physics::{Brush, CastOptions, CastScratch, ColliderOptions, IslandOptions, Ray, Shape};
//! use voxel_physics::{TerrainCollider, VoxelBox};
//!
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     // A 64 x 32 x 64 world of hills; physics chunks are built lazily.
//!     let size = IVec3::new(64, 32, 64);
//!     let store = generate::terrain(&generate::Terrain::new(size, 7))?;
//!     let mut collider = TerrainCollider::new(store, VoxelBox::new(IVec3::ZERO, size), ColliderOptions::default())?;
//!
//!     // A ray from the sky lands on the smooth surface.
//!     let hit = collider.raycast(&Ray::new(Vec3::new(20.5, 40.0, 30.5), Vec3::NEG_Y), 100.0).expect("ground");
//!     assert!(hit.normal.y > 0.0 && hit.point.y < 32.0);
//!
//!     // A character's capsule dropped there stops where it touches the ground (a shape cast).
//!     let (feet, head) = (hit.point + Vec3::Y * 5.0, hit.point + Vec3::Y * 6.0);
//!     let capsule = Shape::Capsule(Capsule { a: feet, b: head, radius: 0.4 });
//!     let options = CastOptions { max_t: 1.0, skin: 0.02, ..CastOptions::default() };
//!     let fall = collider.cast_shape(&capsule, Vec3::new(0.0, -10.0, 0.0), &options, &mut CastScratch::new())?;
//!     assert!(fall.expect("it lands").hit.t <= 0.47); // at most 4.6 voxels down
//!
//!     // A rock on a thin stalk; cut the stalk and the rock is an island.
//!     collider.add(&Brush::Capsule { a: Vec3::new(20.0, 20.0, 30.0), b: Vec3::new(20.0, 40.0, 30.0), radius: 1.5 }, materials::ROCK)?;
//!     collider.add(&Brush::Sphere { center: Vec3::new(20.0, 44.0, 30.0), radius: 5.0 }, materials::ROCK)?;
//!     let cut = collider.subtract(&Brush::Box { center: Vec3::new(20.0, 36.0, 30.0), half_extents: Vec3::new(4.0, 1.0, 4.0) })?;
//!     let (islands, _) = collider.detach_islands(cut.report.dirty, &IslandOptions::default())?;
//!     assert_eq!(islands.len(), 1);
//!     assert!(islands[0].hull.is_some() && islands[0].center.y > 38.0);
//!     Ok(())
//! }
//! ```
//!
//! # How a query flows
//!
//! ```text
//! edit ──► VoxelStore ──dirty box──► Broadphase::refresh (+ pair events) ─┐
//!                         │        ─► Occupancy::refresh                  │ all inside the edit
//!                         │        ─► cache: drop the chunks it touches ──┘ (&mut self)
//!                         ▼
//! contacts(shape) ─► broadphase chunks touched ─► cached chunk shapes (mesh + kD tree, built on
//!                    first need) ─► kD tree box query in each ─► ONE candidate set ─► voxel-contacts
//! raycast(ray)    ─► walk 8^3 chunk boxes, skip the broadphase's empty ones ─► kD tree ray per chunk
//! raymarch(ray)   ─► voxel-raymarch over the occupancy bits (blocky, no mesh)
//! detach_islands  ─► best-first search for components off the anchor ─► mesh + convex hull / HACD
//! ```
//!
//! # Conventions
//!
//! - Voxel units, `y` up, the workspace's axis order. Surface Nets treat voxel `p` as the grid
//!   point `p` (meshes, ray casts, contacts); the blocky view treats it as the cell `[p, p + 1)`
//!   (ray marching).
//! - Physics chunks are 8^3 voxels (the article's), keyed by voxel coordinates divided by 8, floored;
//!   chunk `k`'s mesh holds the quads of the grid edges whose lower end lies in it, so its triangles
//!   reach one voxel below the chunk. Neighbouring chunk meshes share no vertex ids: contacts gather
//!   the candidate triangles of every chunk a shape touches into one set and recognise shared edges
//!   by position ([`voxel_contacts::FeatureKeys::Positions`]), so seams make no ghost contacts.
//! - Ray hits order by `t`, then chunk key (`y`, `z`, `x`), then triangle index: the answer is the
//!   same whatever the walk order, the cache state or the thread count.
//! - Bad input never panics: invalid rays hit nothing, invalid shapes, boxes, brushes and options
//!   get a [`PhysicsError`], and a failed call changes nothing.
//! - The world box grows to hold every voxel an edit changes (up to [`MAX_WORLD_COORDINATE`]); the
//!   collider answers for the voxels inside it.
//!
//! # Figures
//!
//! `cargo xtask demo` runs every composed path over a generated 256 x 96 x 256 world and prints
//! each stage's time, rate and memory; the crate README quotes a run. From one on this project's
//! 2-core machine (shared with another build): the whole demo in 5.2 s; 0.6 M smooth-surface ray
//! casts per second while the cache fills and evicts; contacts for 9868 shapes in 112 ms; the
//! cache at 30 B per triangle (mesh, kD tree and table), its peak at the configured 8 MiB bound;
//! 0 off-surface contact normals across the seams of a flat pad.

#![forbid(unsafe_code)]

mod cache;
mod cast;
mod collider;
mod contacts;
mod error;
mod islands;
mod raycast;

pub use cache::{CacheStats, ChunkMesh, ChunkShape, PHYSICS_CHUNK_EDGE};
pub use cast::{CAST_PIECE, CastScratch, ShapeCast, TerrainCastHit};
pub use collider::{ColliderOptions, EditOutcome, MAX_WORLD_COORDINATE, TerrainCollider};
pub use contacts::{CandidateTriangle, ContactScratch};
pub use error::PhysicsError;
pub use islands::{Anchor, Island, IslandOptions, IslandShape, MAX_ISLAND_REGION};
pub use raycast::{RayScratch, TerrainHit};

// The crates it composes, whole.
pub use convex_hacd;
pub use voxel_broadphase;
pub use voxel_contacts;
pub use voxel_core;
pub use voxel_kdtree;
pub use voxel_mesh;
pub use voxel_raymarch;
pub use voxel_store;

// The types nearly every user of the collider names.
pub use voxel_broadphase::{ChunkHit, PairEvent, PairKind};
pub use voxel_contacts::{CastHit, CastOptions, ContactOptions, ContactReport, FeatureKeys, Shape};
pub use voxel_core::{Aabb, Contact, ContactSink, Ray, Voxel, VoxelBox, glam};
pub use voxel_raymarch::Cast;
pub use voxel_store::{Brush, EditReport, VoxelStore};
