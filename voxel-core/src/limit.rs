//! The one type every crate uses to publish how far from the origin it accepts coordinates.

use glam::{IVec3, Vec3};

use crate::{Aabb, VoxelBox};

/// A bound on coordinate magnitude, in voxel units, the same on every axis: a coordinate `c` is
/// within the limit when `-limit <= c <= limit`.
///
/// Crates that refuse far coordinates (where `f32` positions lose the precision their algorithm
/// needs, or integer arithmetic would overflow) publish their bound as a `CoordinateLimit`
/// constant, so a user reads, compares and checks them the same way: `voxel_mesh::MAX_COORDINATE`,
/// `voxel_raymarch::MAX_COORDINATE`, `voxel_broadphase::MAX_COORDINATE`,
/// `voxel_contacts::MAX_SHAPE_COORDINATE`, `voxel_store::MAX_BRUSH_COORDINATE` and
/// `voxel_physics::MAX_WORLD_COORDINATE`. A world that should work with every crate stays within
/// the smallest of the limits it uses.
///
/// ```
/// use glam::{IVec3, Vec3};
/// use voxel_core::{CoordinateLimit, VoxelBox};
///
/// const LIMIT: CoordinateLimit = CoordinateLimit::new(1 << 20);
/// assert_eq!(LIMIT.get(), 1 << 20);
/// assert!(LIMIT.contains_voxel(IVec3::new(-(1 << 20), 0, 1 << 20)));
/// assert!(!LIMIT.contains_voxel(IVec3::new(i32::MIN, 0, 0)));
/// assert!(LIMIT.contains_point(Vec3::new(1048576.0, -3.5, 0.0)));
/// assert!(!LIMIT.contains_point(Vec3::new(f32::NAN, 0.0, 0.0)));
/// assert!(LIMIT.contains_box(VoxelBox::new(IVec3::splat(-8), IVec3::splat(8))));
/// // Limits compare by size; `shrunk` leaves room for a margin.
/// assert!(LIMIT.shrunk(16) < LIMIT);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CoordinateLimit(i32);

impl CoordinateLimit {
    /// The limit `-max..=max`. Values above `i32::MAX` saturate to it, so any `u32` is accepted.
    pub const fn new(max: u32) -> Self {
        if max > i32::MAX as u32 { Self(i32::MAX) } else { Self(max as i32) }
    }

    /// The largest magnitude allowed, never negative.
    pub const fn get(self) -> i32 {
        self.0
    }

    /// The limit as an `f32` (exact for every limit the workspace publishes).
    pub const fn as_f32(self) -> f32 {
        self.0 as f32
    }

    /// A limit `margin` units smaller (never below zero): room for chunk padding or a query margin.
    pub const fn shrunk(self, margin: u32) -> Self {
        let m = if margin > i32::MAX as u32 { i32::MAX } else { margin as i32 };
        Self(if self.0 > m { self.0 - m } else { 0 })
    }

    /// True when every component of `p` lies in `-limit..=limit`.
    pub fn contains_voxel(self, p: IVec3) -> bool {
        // Compared, not `abs`: `i32::MIN.abs()` overflows.
        p.cmpge(IVec3::splat(-self.0)).all() && p.cmple(IVec3::splat(self.0)).all()
    }

    /// True when `p` is finite and every component lies in `-limit..=limit`.
    pub fn contains_point(self, p: Vec3) -> bool {
        let l = self.as_f32();
        // NaN fails both comparisons, infinities fail one.
        p.cmpge(Vec3::splat(-l)).all() && p.cmple(Vec3::splat(l)).all()
    }

    /// True when both corners of `b` (its `min` and its exclusive `max`) are within the limit.
    /// An empty box is within any limit only if its corners are.
    pub fn contains_box(self, b: VoxelBox) -> bool {
        self.contains_voxel(b.min) && self.contains_voxel(b.max)
    }

    /// True when both corners of `b` are finite and within the limit.
    pub fn contains_aabb(self, b: &Aabb) -> bool {
        self.contains_point(b.min) && self.contains_point(b.max)
    }
}

impl std::fmt::Display for CoordinateLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "+-{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_are_inclusive_and_saturate() {
        let l = CoordinateLimit::new(10);
        assert!(l.contains_voxel(IVec3::new(10, -10, 0)));
        assert!(!l.contains_voxel(IVec3::new(11, 0, 0)));
        assert!(!l.contains_voxel(IVec3::new(0, -11, 0)));
        assert!(!l.contains_voxel(IVec3::splat(i32::MIN)));
        assert_eq!(CoordinateLimit::new(u32::MAX).get(), i32::MAX);
        assert!(CoordinateLimit::new(u32::MAX).contains_voxel(IVec3::splat(i32::MAX)));
        assert_eq!(l.shrunk(4).get(), 6);
        assert_eq!(l.shrunk(40).get(), 0);
        assert_eq!(l.shrunk(u32::MAX).get(), 0);
        assert_eq!(l.to_string(), "+-10");
    }

    #[test]
    fn points_must_be_finite() {
        let l = CoordinateLimit::new(1 << 24);
        assert!(l.contains_point(Vec3::splat(16_777_216.0)));
        assert!(!l.contains_point(Vec3::new(16_777_218.0, 0.0, 0.0)));
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            assert!(!l.contains_point(Vec3::new(0.0, bad, 0.0)));
            assert!(!l.contains_aabb(&Aabb { min: Vec3::ZERO, max: Vec3::new(bad, 1.0, 1.0) }));
        }
        assert!(l.contains_aabb(&Aabb::new(Vec3::splat(-1.0), Vec3::ONE)));
    }

    #[test]
    fn boxes_check_both_corners() {
        let l = CoordinateLimit::new(8);
        assert!(l.contains_box(VoxelBox::new(IVec3::splat(-8), IVec3::splat(8))));
        assert!(!l.contains_box(VoxelBox::new(IVec3::splat(-8), IVec3::splat(9))));
        assert!(!l.contains_box(VoxelBox::new(IVec3::splat(-9), IVec3::splat(0))));
    }
}
