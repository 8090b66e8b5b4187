#![doc = include_str!("../README.md")]
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
#[doc(hidden)]
pub use far::{Restart, restart};
pub use march::{Axis, Face, RayHit};
pub use occupancy::{
    BRICK_EDGE, CHUNK_BITS, CHUNK_EDGE, GRID_CHUNKS_PER_STORED, GRID_MIN_CHUNKS, MAX_CHUNKS, MAX_COORDINATE, Occupancy,
};
