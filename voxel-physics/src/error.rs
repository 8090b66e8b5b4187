//! The one error type of `voxel-physics`: the composed crates' errors, plus the collider's own.

use core::fmt;

use convex_hacd::{DecomposeError, HullError};
use voxel_broadphase::BroadphaseError;
use voxel_contacts::ContactError;
use voxel_mesh::MeshError;
use voxel_raymarch::RaymarchError;
use voxel_store::StoreError;

/// What went wrong in a collider operation. A failed operation changes nothing the collider holds.
///
/// A wrapped error of a composed crate is [`source()`](std::error::Error::source), not part of
/// this error's `Display`.
#[derive(Debug)]
#[non_exhaustive]
pub enum PhysicsError {
    /// The world box is empty or reaches past [`MAX_WORLD_COORDINATE`](crate::MAX_WORLD_COORDINATE).
    InvalidWorld(&'static str),
    /// A parameter is NaN, infinite, out of range or too large.
    InvalidParameter(&'static str),
    /// The voxel store refused an edit.
    Store(StoreError),
    /// The broadphase refused a box or an object id, or its voxel source refused a read.
    Broadphase(BroadphaseError),
    /// The ray marcher's occupancy could not be built.
    Raymarch(RaymarchError),
    /// A region could not be meshed.
    Mesh(MeshError),
    /// A convex hull could not be built.
    Hull(HullError),
    /// A convex decomposition was refused.
    Decompose(DecomposeError),
    /// A contact query was refused (bad shape or options).
    Contacts(ContactError),
}

impl fmt::Display for PhysicsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PhysicsError::InvalidWorld(why) => write!(f, "invalid world box: {why}"),
            PhysicsError::InvalidParameter(why) => write!(f, "invalid parameter: {why}"),
            // The inner error is the `source()`, not repeated here: a chain printer (anyhow's
            // `{:#}`, `Report`) then shows each cause once.
            PhysicsError::Store(_) => f.write_str("the voxel store refused the operation"),
            PhysicsError::Broadphase(_) => f.write_str("the broadphase refused the operation"),
            PhysicsError::Raymarch(_) => f.write_str("the ray marcher's occupancy could not be built"),
            PhysicsError::Mesh(_) => f.write_str("a region could not be meshed"),
            PhysicsError::Hull(_) => f.write_str("a convex hull could not be built"),
            PhysicsError::Decompose(_) => f.write_str("a convex decomposition was refused"),
            PhysicsError::Contacts(_) => f.write_str("a contact query was refused"),
        }
    }
}

impl std::error::Error for PhysicsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PhysicsError::Store(e) => Some(e),
            PhysicsError::Broadphase(e) => Some(e),
            PhysicsError::Raymarch(e) => Some(e),
            PhysicsError::Mesh(e) => Some(e),
            PhysicsError::Hull(e) => Some(e),
            PhysicsError::Decompose(e) => Some(e),
            PhysicsError::Contacts(e) => Some(e),
            PhysicsError::InvalidWorld(_) | PhysicsError::InvalidParameter(_) => None,
        }
    }
}

macro_rules! from_error {
    ($($variant:ident($ty:ty)),*) => {$(
        impl From<$ty> for PhysicsError {
            fn from(e: $ty) -> Self {
                PhysicsError::$variant(e)
            }
        }
    )*};
}

from_error!(
    Store(StoreError),
    Broadphase(BroadphaseError),
    Raymarch(RaymarchError),
    Mesh(MeshError),
    Hull(HullError),
    Decompose(DecomposeError),
    Contacts(ContactError)
);
