//! The one error type of `voxel-broadphase`.

use core::fmt;

/// What went wrong in a broadphase call; nothing changes when a call fails.
#[derive(Clone, Debug, PartialEq, Eq)]
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
}

impl fmt::Display for BroadphaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BroadphaseError::InvalidAabb => f.write_str("box is NaN, infinite, inverted or out of range"),
            BroadphaseError::TooLarge => f.write_str("box spans too many chunks"),
            BroadphaseError::DuplicateId(id) => write!(f, "object {id} is already tracked"),
            BroadphaseError::UnknownId(id) => write!(f, "object {id} is not tracked"),
        }
    }
}

impl std::error::Error for BroadphaseError {}
