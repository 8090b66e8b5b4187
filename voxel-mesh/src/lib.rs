//! Seamless Naive Surface Nets and greedy blocky meshing over any
//! [`VoxelSource`](voxel_core::VoxelSource) (seed `004_5249947f555dbe3d.txt`).
//!
//! Name a region (a chunk); the [`Mesher`] reads it with one voxel of padding, and writes a [`Mesh`]:
//! shared vertices, normals, the dominant material per vertex (the byte physics needs), optional
//! splatting weights for four materials, and triangles in quad pairs. Surface Nets meshes of
//! chunks that tile space join with no crack and no duplicate quad, and a vertex on a chunk border
//! has the same position and normal in both chunks, bit for bit. Blocky meshes tile with no gap
//! and no duplicate face; [`Mesher::face_list`] gives the same faces as 8-byte [`Face`] words
//! instead of a mesh.
//!
//! ```
//! use glam::{IVec3, Vec3};
//! use voxel_core::{TriangleSource, VoxelBox};
//! use voxel_mesh::{Mesh, MeshOptions, Mesher};
//!
//! let world = voxel_store::generate::sphere(Vec3::splat(16.0), 10.0).unwrap();
//! let mut mesher = Mesher::new(); // scratch, reused across calls
//! let mut chunk_mesh = Mesh::new(); // output buffer, reused across calls
//! let mut triangles = 0;
//! for key in VoxelBox::new(IVec3::ZERO, IVec3::splat(2)).iter() {
//!     let chunk = VoxelBox::chunk(key, 16);
//!     mesher.surface_nets(&world, chunk, &MeshOptions::default(), &mut chunk_mesh).unwrap();
//!     triangles += chunk_mesh.triangle_count();
//! }
//! assert!(triangles > 2000);
//! ```
//!
//! # Conventions
//!
//! - Surface Nets treat voxel `p` as the grid point `p`; blocky meshing as the cube `[p, p + 1)`.
//! - Triangles wind counter-clockwise seen from outside the solid; normals point out of it.
//! - A voxel is inside when its distance is negative and its material's phase is the [`Surface`]
//!   asked for; solid and water surfaces are meshed separately.
//! - Positions are `f32` world coordinates; regions are limited to [`MAX_COORDINATE`] and
//!   [`MAX_MESH_VOLUME`], and bad regions get a [`MeshError`], never a panic.

mod blocky;
mod error;
mod greedy;
mod mesh;
mod mesher;
mod pack;
mod snapshot;
mod surface_nets;

pub use blocky::Face;
pub use error::MeshError;
pub use mesh::{Indices, Mesh, MeshMemory, VertexBlend};
pub use mesher::{MAX_COORDINATE, MAX_MESH_VOLUME, MeshOptions, Mesher, Surface};
pub use snapshot::{MAX_SNAPSHOT_DECIMALS, MeshSnapshot, SnapshotVertex};
