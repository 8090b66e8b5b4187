//! Voxel terrain as a rapier3d collider: [`TerrainShape`], a parry
//! [`Shape`](parry3d::shape::Shape) over the shared
//! [`TerrainCollider`](voxel_physics::TerrainCollider), and [`TerrainDispatcher`], the query
//! dispatcher whose contacts come from voxel-contacts (voided features, position keys across chunk
//! seams), so no body loses its contact on a convex edge that lies on a chunk border.
//!
//! rapier3d 0.36 and parry3d 0.31 use glam 0.33 (through glamx), as this workspace does: vectors
//! cross the boundary without conversion.
//!
//! ```
//! use glam::{IVec3, Vec3};
//! use rapier3d::prelude::*;
//! use voxel_physics::{ColliderOptions, TerrainCollider, VoxelBox};
//! use voxel_physics::voxel_store::generate;
//! use voxel_rapier::{TerrainDispatcher, TerrainShape};
//!
//! // A 32 x 8 x 32 slab whose top is at y = 8.
//! let store = generate::cuboid(Vec3::new(16.0, 4.0, 16.0), Vec3::new(16.0, 4.0, 16.0))?;
//! let world = VoxelBox::new(IVec3::ZERO, IVec3::splat(32));
//! let terrain = TerrainShape::new(TerrainCollider::new(store, world, ColliderOptions::default())?);
//!
//! let mut physics = PhysicsWorld {
//!     narrow_phase: NarrowPhase::with_query_dispatcher(TerrainDispatcher::chained()),
//!     ..PhysicsWorld::default()
//! };
//! physics.colliders.insert(ColliderBuilder::new(terrain.shared_shape()).build());
//! let ball = physics.bodies.insert(RigidBodyBuilder::dynamic().translation(Vec3::new(8.0, 10.0, 8.0)).build());
//! physics.colliders.insert_with_parent(ColliderBuilder::ball(0.5).build(), ball, &mut physics.bodies);
//! for _ in 0..120 {
//!     physics.step();
//! }
//! let y = physics.bodies[ball].translation().y;
//! assert!((y - 8.5).abs() < 0.02, "the ball rests on the slab: {y}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Conventions
//!
//! - The terrain's coordinates are the collider's voxel units (one voxel per unit), in the rapier
//!   collider's frame: put the terrain collider at the identity (on no body, or a fixed one) to
//!   have world units be voxels.
//! - Edits happen between steps, through [`TerrainShape::write`]; then call
//!   [`terrain_changed`] so rapier drops the contacts it would otherwise recycle and wakes the
//!   bodies the edit touched.
//! - Queries the dispatcher does not answer for terrain pairs return
//!   [`Unsupported`](parry3d::query::Unsupported) (see [`TerrainDispatcher`]); nothing panics on
//!   non-finite or huge bodies: they get no contact.
//!
//! # Figures
//!
//! The example `creases` runs 78 scenes on ridges of 2, 10 and 30 degrees whose apex is a chunk
//! seam (or mid-chunk) in rapier's solver: on ours no body falls through and none gets deeper
//! than 5.50 mm; on rapier's `TriMesh` per chunk with `FIX_INTERNAL_EDGES` 15 fall through; on
//! one stitched `TriMesh` with the flag none does, 5.75 mm deep at most. The bench `rapier`:
//! 29.1 B of collision memory per triangle against 154.0 for `TriMesh` per chunk with the flag;
//! a 1000-body step 9.0 ms against 10.6 ms (one run on a loaded 2-core machine).

#![forbid(unsafe_code)]

mod character;
mod dispatcher;
mod edit;
pub mod reference;
mod shape;

pub use character::snap_to_ground;
pub use dispatcher::TerrainDispatcher;
pub use edit::{island_body, terrain_changed};
pub use shape::TerrainShape;

pub use parry3d;
pub use rapier3d;
pub use voxel_physics;
