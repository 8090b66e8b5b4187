#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

mod contact;
mod error;
mod geometry;
mod grid;
mod limit;
mod mesh;
mod region;
mod source;
mod voxel;

pub use contact::{Contact, ContactSink, Feature, FnSink};
pub use error::Error;
pub use geometry::{Aabb, Ray};
pub use grid::VoxelGrid;
pub use limit::CoordinateLimit;
pub use mesh::IndexedMesh;
pub use region::{MAX_REGION_VOLUME, VoxelBox};
pub use source::{RegionHint, TriangleSource, VoxelSource, read_exact, validate_triangles};
pub use voxel::{Phase, PhaseTable, Voxel};

pub use glam;
