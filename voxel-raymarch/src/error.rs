//! The one error type of `voxel-raymarch`.

use core::fmt;

/// Why an occupancy could not be built or refreshed; a failed call changes nothing.
///
/// Ray casts never fail: a degenerate ray simply hits nothing (see [`Occupancy::cast`](crate::Occupancy::cast)).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum RaymarchError {
    /// The world box is empty.
    EmptyWorld,
    /// A world box coordinate lies beyond [`MAX_COORDINATE`](crate::MAX_COORDINATE) in magnitude.
    CoordinateOutOfRange,
    /// A build would visit more chunks than [`MAX_CHUNKS`](crate::MAX_CHUNKS) (the world box cut to
    /// the source's bounds).
    WorldTooLarge {
        /// Chunks the box needs (saturated).
        chunks: u64,
    },
    /// The voxel source refused a region read, or its `read_region` handed back another number of
    /// voxels than the region holds ([`voxel_core::Error::LengthMismatch`], from
    /// [`voxel_core::read_exact`]).
    Source(voxel_core::Error),
}

impl fmt::Display for RaymarchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RaymarchError::EmptyWorld => f.write_str("the world box is empty"),
            RaymarchError::CoordinateOutOfRange => f.write_str("a world box coordinate is out of range"),
            RaymarchError::WorldTooLarge { chunks } => write!(f, "the world box needs {chunks} chunks, too many"),
            // The inner error is `source()`, not repeated here.
            RaymarchError::Source(_) => f.write_str("the voxel source refused a region read"),
        }
    }
}

impl std::error::Error for RaymarchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RaymarchError::Source(e) => Some(e),
            _ => None,
        }
    }
}
