//! The one error type of `voxel-physics`: the composed crates' errors, plus the collider's own.

use core::fmt;

use convex_hacd::{DecomposeError, HullError};
use voxel_broadphase::BroadphaseError;
use voxel_contacts::ContactError;
use voxel_mesh::MeshError;
use voxel_raymarch::RaymarchError;
use voxel_store::StoreError;

/// What went wrong in a collider operation. A failed operation changes nothing the collider holds.
#[derive(Debug)]
#[non_exhaustive]
pub enum PhysicsError {
    /// The world box is empty or reaches past [`MAX_WORLD_COORDINATE`](crate::MAX_WORLD_COORDINATE).
    InvalidWorld(&'static str),
    /// A parameter is NaN, infinite, out of range or too large.
    InvalidParameter(&'static str),
    /// The voxel store refused an edit.
    Store(StoreError),
    /// The broadphase refused a box or an object id.
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
            PhysicsError::Store(e) => write!(f, "voxel store: {e}"),
            PhysicsError::Broadphase(e) => write!(f, "broadphase: {e}"),
            PhysicsError::Raymarch(e) => write!(f, "ray marching: {e}"),
            PhysicsError::Mesh(e) => write!(f, "meshing: {e}"),
            PhysicsError::Hull(e) => write!(f, "convex hull: {e}"),
            PhysicsError::Decompose(e) => write!(f, "convex decomposition: {e}"),
            PhysicsError::Contacts(e) => write!(f, "contacts: {e}"),
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
