#![doc = include_str!("../README.md")]
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
