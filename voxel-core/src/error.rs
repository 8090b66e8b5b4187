//! The one error type of `voxel-core`.

use core::fmt;

/// What went wrong when plain data entered a `voxel-core` type.
///
/// Geometry queries do not fail (a degenerate ray simply hits nothing); only constructors and
/// region reads that are handed unusable input return this.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// A region or grid would hold more voxels than [`MAX_REGION_VOLUME`](crate::MAX_REGION_VOLUME).
    RegionTooLarge {
        /// Voxels asked for (saturated at `u64::MAX`).
        volume: u64,
        /// The limit.
        limit: u64,
    },
    /// A buffer handed in does not have the length its region needs.
    LengthMismatch {
        /// The length the region needs.
        expected: usize,
        /// The length given.
        actual: usize,
    },
    /// A triangle names a vertex that does not exist.
    IndexOutOfRange {
        /// The triangle.
        triangle: usize,
        /// The vertex index it names.
        index: u32,
        /// The number of vertices.
        vertex_count: usize,
    },
    /// A triangle source holds more vertices or triangles than `u32` indices address.
    MeshTooLarge {
        /// Vertices in the source.
        vertex_count: usize,
        /// Triangles in the source.
        triangle_count: usize,
    },
    /// A coordinate or direction is NaN or infinite.
    NonFinite,
    /// A ray direction is zero (or so small its inverse overflows).
    ZeroDirection,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::RegionTooLarge { volume, limit } => {
                write!(f, "region of {volume} voxels exceeds the limit of {limit}")
            }
            Error::LengthMismatch { expected, actual } => {
                write!(f, "buffer holds {actual} elements, the region needs {expected}")
            }
            Error::IndexOutOfRange { triangle, index, vertex_count } => {
                write!(f, "triangle {triangle} names vertex {index}, but there are only {vertex_count} vertices")
            }
            Error::MeshTooLarge { vertex_count, triangle_count } => {
                write!(f, "mesh of {vertex_count} vertices and {triangle_count} triangles exceeds the u32 index range")
            }
            Error::NonFinite => f.write_str("a coordinate is NaN or infinite"),
            Error::ZeroDirection => f.write_str("the ray direction is zero"),
        }
    }
}

impl std::error::Error for Error {}
