//! The one error type of `voxel-broadphase`.

use core::fmt;

/// What went wrong in a broadphase call; nothing changes when a call fails.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum BroadphaseError {
    /// A box or region is NaN, infinite, inverted, or beyond `MAX_COORDINATE`.
    InvalidAabb,
    /// A box or region spans more chunks than `MAX_QUERY_CHUNKS`.
    TooLarge,
    /// `insert` with an id already tracked.
    DuplicateId(u32),
    /// `update` or `remove` of an id not tracked.
    UnknownId(u32),
    /// The voxel source refused a region read during `build` or `refresh` (a streaming world
    /// whose page failed to load, say), or its `read_region` handed back another number of voxels
    /// than the region holds ([`voxel_core::Error::LengthMismatch`], from
    /// [`voxel_core::read_exact`]): the source's error for the first refused read in block
    /// order, the same on any thread count. Nothing is built or stored and no pair events are
    /// emitted: an unread chunk is never taken for empty space.
    Source(voxel_core::Error),
}

impl fmt::Display for BroadphaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BroadphaseError::InvalidAabb => f.write_str("box is NaN, infinite, inverted or out of range"),
            BroadphaseError::TooLarge => f.write_str("box spans too many chunks"),
            BroadphaseError::DuplicateId(id) => write!(f, "object {id} is already tracked"),
            BroadphaseError::UnknownId(id) => write!(f, "object {id} is not tracked"),
            // The inner error is `source()`, not repeated here.
            BroadphaseError::Source(_) => f.write_str("the voxel source refused a region read"),
        }
    }
}

impl std::error::Error for BroadphaseError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BroadphaseError::Source(e) => Some(e),
            _ => None,
        }
    }
}
