//! The one error type of `voxel-mesh`.

use core::fmt;

use voxel_core::VoxelBox;

/// Why a region could not be meshed; the output mesh is left empty.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum MeshError {
    /// The region reaches beyond [`MAX_COORDINATE`](crate::MAX_COORDINATE), where `f32` positions
    /// lose too much of their fraction.
    CoordinateOutOfRange(VoxelBox),
    /// The padded region holds more voxels than [`MAX_MESH_VOLUME`](crate::MAX_MESH_VOLUME).
    RegionTooLarge {
        /// Voxels the padded region holds.
        volume: u64,
        /// The limit.
        limit: u64,
    },
    /// The region is longer on an axis than [`Face::MAX_AXIS`](crate::Face::MAX_AXIS), which
    /// [`Mesher::face_list`](crate::Mesher::face_list)'s 16-bit offsets cannot address.
    AxisTooLong {
        /// The region's longest axis, in voxels.
        length: i32,
        /// The limit.
        limit: i32,
    },
    /// The voxel source refused the read, or its `read_region` handed back another number of voxels
    /// than the region holds ([`voxel_core::Error::LengthMismatch`], from [`voxel_core::read_exact`]).
    Source(voxel_core::Error),
}

impl fmt::Display for MeshError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MeshError::CoordinateOutOfRange(b) => {
                write!(f, "region {:?}..{:?} reaches beyond the meshable coordinate range", b.min, b.max)
            }
            MeshError::RegionTooLarge { volume, limit } => {
                write!(f, "padded region of {volume} voxels exceeds the mesher's limit of {limit}")
            }
            MeshError::AxisTooLong { length, limit } => {
                write!(f, "region {length} voxels long on an axis; a face list addresses at most {limit}")
            }
            // The inner error is `source()`, not repeated here.
            MeshError::Source(_) => f.write_str("the voxel source refused the read"),
        }
    }
}

impl std::error::Error for MeshError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            MeshError::Source(e) => Some(e),
            _ => None,
        }
    }
}

impl From<voxel_core::Error> for MeshError {
    fn from(e: voxel_core::Error) -> Self {
        MeshError::Source(e)
    }
}
