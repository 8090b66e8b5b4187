#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

mod chunk;
mod edit;
mod error;
pub mod generate;
mod io;
mod palette;
mod quantize;
mod shared;
mod store;
#[cfg(feature = "vox")]
pub mod vox;

pub use chunk::{CHUNK_BITS, CHUNK_EDGE};
pub use edit::{Brush, DIRTY_PADDING, EditReport, MAX_BRUSH_COORDINATE, MAX_BRUSH_EXTENT, MAX_EDIT_CHUNKS};
pub use error::StoreError;
pub use io::FORMAT_VERSION;
pub use palette::{Material, Palette};
pub use quantize::{DISTANCE_BAND, DISTANCE_SCALE, dequantize, quantize};
pub use shared::{SharedEdit, SharedStore};
pub use store::{MemoryStats, VoxelStore};
