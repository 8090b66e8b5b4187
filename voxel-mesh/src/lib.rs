#![doc = include_str!("../README.md")]

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
