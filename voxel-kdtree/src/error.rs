//! The one error type of `voxel-kdtree`.

use core::fmt;

/// Why a tree could not be built. Queries never fail: bad rays and boxes hit nothing.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum KdTreeError {
    /// The source holds more primitives than [`MAX_PRIMITIVES`](crate::MAX_PRIMITIVES) (the
    /// node's 30-bit child index must address about two nodes per primitive).
    TooManyPrimitives {
        /// Primitives in the source.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// The source's triangles do not pair into quads: triangle `2q + 1` must be
    /// `[q0, q2, q3]` when triangle `2q` is `[q0, q1, q2]` (the `voxel-mesh` convention), and
    /// the triangle count must be even.
    NotQuads {
        /// The first triangle that does not pair.
        triangle: usize,
    },
    /// The compact form's 16-bit fields cannot hold this tree (more than
    /// [`MAX_COMPACT_NODES`](crate::MAX_COMPACT_NODES) nodes, or more than 65536 vertices or
    /// triangles); build it per chunk.
    TooLargeForCompact {
        /// What overflowed: `"nodes"`, `"vertices"` or `"triangles"`.
        what: &'static str,
        /// How many there are.
        count: usize,
    },
    /// A vertex coordinate of the mesh lies beyond a quarter of `f32::MAX` in magnitude: the
    /// compact form's grid (65535 steps across the bounds, decoded as `origin + q * step`) could
    /// overflow. The full [`KdTree`](crate::KdTree) takes it.
    OutOfRangeForCompact {
        /// The largest coordinate magnitude.
        magnitude: f32,
    },
    /// The source's indices are unusable (a vertex index out of range, counts beyond `u32`).
    Source(voxel_core::Error),
}

impl fmt::Display for KdTreeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KdTreeError::TooManyPrimitives { count, limit } => {
                write!(f, "{count} primitives exceed the tree's limit of {limit}")
            }
            KdTreeError::NotQuads { triangle } => write!(f, "triangle {triangle} does not pair into a quad"),
            KdTreeError::TooLargeForCompact { what, count } => {
                write!(f, "{count} {what} do not fit the compact form's 16-bit fields")
            }
            KdTreeError::OutOfRangeForCompact { magnitude } => {
                write!(f, "a coordinate of magnitude {magnitude:e} is out of the compact form's range")
            }
            // The inner error is `source()`, not repeated here.
            KdTreeError::Source(_) => f.write_str("the triangle source is unusable"),
        }
    }
}

impl std::error::Error for KdTreeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            KdTreeError::Source(e) => Some(e),
            _ => None,
        }
    }
}

impl From<voxel_core::Error> for KdTreeError {
    fn from(e: voxel_core::Error) -> Self {
        KdTreeError::Source(e)
    }
}
