#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

mod concavity;
mod distance;
mod error;
mod graph;
mod hacd;
mod hull;
mod inside;
pub mod metrics;
mod protrusion;
mod quantize;
mod quickhull;
mod recorder;

pub use error::{DecomposeError, HullError, TightnessError};
pub use hacd::{ConvexHull, DecomposeOptions, Decomposition, MAX_SAMPLES, decompose};
pub use hull::{DEFAULT_RELATIVE_TOLERANCE, Hull, convex_hull, convex_hull_with_tolerance};
pub use metrics::{Tightness, TightnessOptions, tightness};
pub use recorder::{RecordedHull, Recorder, Step};
