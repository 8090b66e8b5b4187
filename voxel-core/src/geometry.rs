//! Axis-aligned boxes and rays, with the robust slab test every crate's ray query starts from.

use glam::Vec3;

use crate::Error;

/// An axis-aligned box in world units, `min` and `max` both included.
///
/// [`Aabb::EMPTY`] (min `+inf`, max `-inf`) is the identity of [`Aabb::union`]; a box with
/// `min > max` on any axis, or with a NaN coordinate, is empty and overlaps nothing.
///
/// ```
/// use glam::Vec3;
/// use voxel_core::Aabb;
///
/// let a = Aabb::from_points([Vec3::ZERO, Vec3::new(1.0, 2.0, -1.0)]);
/// assert_eq!(a.min, Vec3::new(0.0, 0.0, -1.0));
/// assert!(a.overlaps(&Aabb::new(Vec3::new(1.0, 1.0, -3.0), Vec3::splat(3.0))));
/// assert!(!a.overlaps(&Aabb::new(Vec3::splat(1.0), Vec3::splat(3.0))));
/// assert!(!a.overlaps(&Aabb::EMPTY));
/// ```
///
/// The layout is `#[repr(C)]`: six `f32`, `min` first, so that SIMD code can load the corners
/// directly.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct Aabb {
    /// Smallest corner.
    pub min: Vec3,
    /// Largest corner.
    pub max: Vec3,
}

impl Aabb {
    /// The empty box: contains nothing, overlaps nothing, and `EMPTY.union(b) == b`.
    pub const EMPTY: Aabb = Aabb { min: Vec3::INFINITY, max: Vec3::NEG_INFINITY };

    /// The box from `min` to `max`, as given (not reordered).
    #[inline]
    pub const fn new(min: Vec3, max: Vec3) -> Self {
        Self { min, max }
    }

    /// The smallest box containing all `points`; [`Aabb::EMPTY`] for none. NaN coordinates are
    /// skipped (`f32::min` and `f32::max` ignore a NaN operand).
    pub fn from_points(points: impl IntoIterator<Item = Vec3>) -> Self {
        points.into_iter().fold(Self::EMPTY, |b, p| Aabb { min: b.min.min(p), max: b.max.max(p) })
    }

    /// True when the box contains no point (inverted on an axis, or NaN).
    #[inline]
    pub fn is_empty(&self) -> bool {
        // Written as a negation so that NaN coordinates count as empty.
        !(self.min.cmple(self.max).all())
    }

    /// True when every coordinate is finite and `min <= max`.
    #[inline]
    pub fn is_valid(&self) -> bool {
        self.min.is_finite() && self.max.is_finite() && !self.is_empty()
    }

    /// Centre of the box.
    #[inline]
    pub fn center(&self) -> Vec3 {
        (self.min + self.max) * 0.5
    }

    /// Edge lengths.
    #[inline]
    pub fn size(&self) -> Vec3 {
        self.max - self.min
    }

    /// The smallest box containing both.
    #[inline]
    pub fn union(&self, other: &Aabb) -> Aabb {
        Aabb { min: self.min.min(other.min), max: self.max.max(other.max) }
    }

    /// The box grown by `margin` on every side.
    #[inline]
    pub fn grow(&self, margin: f32) -> Aabb {
        Aabb { min: self.min - Vec3::splat(margin), max: self.max + Vec3::splat(margin) }
    }

    /// True when the boxes share a point (touching faces count). Empty boxes overlap nothing.
    #[inline]
    pub fn overlaps(&self, other: &Aabb) -> bool {
        self.min.cmple(other.max).all() && other.min.cmple(self.max).all() && !self.is_empty() && !other.is_empty()
    }

    /// True when `p` lies inside or on the box.
    #[inline]
    pub fn contains_point(&self, p: Vec3) -> bool {
        p.cmpge(self.min).all() && p.cmple(self.max).all()
    }

    /// The parameter interval `[t_enter, t_exit]` in which `ray` is inside the box, clipped to
    /// `[min_t, max_t]`, or `None` when it misses.
    ///
    /// Robust where the textbook version is not:
    /// - a direction component that is zero (either sign) never multiplies an infinity by zero: the
    ///   ray is parallel to that slab, and hits only if its origin lies within it (boundary
    ///   included);
    /// - the far distance is widened by `1 + 2γ₃` (Ize, "Robust BVH Ray Traversal", 2013), so a
    ///   ray through a box's edge or corner is not lost to rounding;
    /// - a degenerate ray (NaN or zero direction, non-finite origin) or a NaN interval hits nothing.
    ///
    /// ```
    /// use glam::Vec3;
    /// use voxel_core::{Aabb, Ray};
    ///
    /// let unit = Aabb::new(Vec3::ZERO, Vec3::ONE);
    /// let ray = Ray::new(Vec3::new(-1.0, 0.5, 0.5), Vec3::X);
    /// let (t0, t1) = unit.intersect_ray(&ray, 0.0, f32::INFINITY).unwrap();
    /// assert!((t0 - 1.0).abs() < 1e-6 && (t1 - 2.0).abs() < 1e-6);
    /// // Parallel to the x faces and outside them: no hit.
    /// assert!(unit.intersect_ray(&Ray::new(Vec3::new(2.0, 0.5, -1.0), Vec3::Z), 0.0, 10.0).is_none());
    /// // Zero direction: no hit, no panic.
    /// assert!(unit.intersect_ray(&Ray::new(Vec3::splat(0.5), Vec3::ZERO), 0.0, 10.0).is_none());
    /// ```
    #[inline]
    pub fn intersect_ray(&self, ray: &Ray, min_t: f32, max_t: f32) -> Option<(f32, f32)> {
        // Negated comparison: a NaN bound counts as an empty interval.
        // `is_empty` also rejects NaN and inverted boxes, so no NaN reaches the slabs.
        if !ray.is_valid() || !(min_t <= max_t) || self.is_empty() {
            return None;
        }
        let (mut t0, mut t1) = (min_t, max_t);
        let inside = slab(ray.origin.x, ray.inv_dir.x, self.min.x, self.max.x, &mut t0, &mut t1)
            & slab(ray.origin.y, ray.inv_dir.y, self.min.y, self.max.y, &mut t0, &mut t1)
            & slab(ray.origin.z, ray.inv_dir.z, self.min.z, self.max.z, &mut t0, &mut t1);
        if inside && t0 <= t1 { Some((t0, t1)) } else { None }
    }
}

/// Clips `[t0, t1]` to one slab. Returns `false` only for a parallel ray outside the slab; an empty
/// interval shows as `t0 > t1` at the end.
///
/// The min/max are written as comparisons so they compile to single `minss`/`maxss` instructions
/// (`f32::min` adds NaN fix-ups); NaN cannot reach them: NaN boxes are rejected before, and
/// `0 * inf` is the parallel case handled first.
#[inline(always)]
fn slab(o: f32, inv: f32, lo: f32, hi: f32, t0: &mut f32, t1: &mut f32) -> bool {
    // A zero (or subnormal) component has an infinite inverse: the ray is parallel to this slab and
    // inside it for every t or for none.
    if inv.is_infinite() {
        return o >= lo && o <= hi;
    }
    let a = (lo - o) * inv;
    let b = (hi - o) * inv;
    let (near, far) = if a < b { (a, b) } else { (b, a) };
    let far = far * ROBUST_FAR_SCALE;
    *t0 = if near > *t0 { near } else { *t0 };
    *t1 = if far < *t1 { far } else { *t1 };
    true
}

/// `1 + 2 γ₃` with `γₙ = n ε / (1 - n ε)` and `ε = f32::EPSILON / 2`: Ize's bound on the rounding of
/// a slab distance, applied to the far plane.
const ROBUST_FAR_SCALE: f32 = 1.0 + 2.0 * (3.0 * 0.5 * f32::EPSILON) / (1.0 - 3.0 * 0.5 * f32::EPSILON);

/// A ray: an origin, a direction (not necessarily normalized) and the direction's inverse.
///
/// Points on the ray are `origin + t * dir`. Distances `t` are in units of `dir`'s length; pass a
/// normalized direction to get world distances.
///
/// [`Ray::new`] accepts anything and marks a ray whose origin is not finite or whose direction is
/// NaN, infinite or zero as degenerate: such a ray hits nothing. [`Ray::try_new`] reports the reason.
///
/// ```
/// use glam::Vec3;
/// use voxel_core::{Error, Ray};
///
/// assert!(Ray::new(Vec3::ZERO, Vec3::Y).is_valid());
/// assert!(!Ray::new(Vec3::ZERO, Vec3::ZERO).is_valid());
/// assert_eq!(Ray::try_new(Vec3::ZERO, Vec3::new(f32::NAN, 0.0, 1.0)), Err(Error::NonFinite));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    /// Where the ray starts (`t = 0`).
    pub origin: Vec3,
    /// Direction of travel.
    pub dir: Vec3,
    /// `1 / dir` per component (infinite where `dir` is zero), precomputed for slab tests, which
    /// read it instead of `dir`: after changing `dir`, build the ray again with [`Ray::new`].
    pub inv_dir: Vec3,
}

impl Ray {
    /// A ray from `origin` along `dir`. Degenerate input gives a ray that hits nothing.
    #[inline]
    pub fn new(origin: Vec3, dir: Vec3) -> Self {
        Self { origin, dir, inv_dir: dir.recip() }
    }

    /// A ray from `origin` along `dir`, or the reason it would be degenerate.
    #[inline]
    pub fn try_new(origin: Vec3, dir: Vec3) -> Result<Self, Error> {
        Self::check(origin, dir)?;
        Ok(Self { origin, dir, inv_dir: dir.recip() })
    }

    fn check(origin: Vec3, dir: Vec3) -> Result<(), Error> {
        if !origin.is_finite() || !dir.is_finite() {
            return Err(Error::NonFinite);
        }
        // Subnormal components have infinite inverses; a direction made only of them is no direction.
        if !dir.recip().is_finite_mask().any() {
            return Err(Error::ZeroDirection);
        }
        Ok(())
    }

    /// False for a degenerate ray (non-finite origin, or NaN, infinite or zero direction).
    /// Checked on the fields as they are now: they are public, and a ray changed after it was
    /// built is judged by its new values.
    #[inline]
    pub fn is_valid(&self) -> bool {
        Self::check(self.origin, self.dir).is_ok()
    }

    /// The point at parameter `t`.
    #[inline]
    pub fn at(&self, t: f32) -> Vec3 {
        self.origin + self.dir * t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn unit() -> Aabb {
        Aabb::new(Vec3::ZERO, Vec3::ONE)
    }

    #[test]
    fn ray_starting_inside_enters_at_t_min() {
        let r = Ray::new(Vec3::splat(0.5), Vec3::new(0.0, 0.0, -1.0));
        let (t0, t1) = unit().intersect_ray(&r, 0.0, 100.0).unwrap();
        assert_eq!(t0, 0.0);
        assert!((t1 - 0.5).abs() < 1e-6);
    }

    #[test]
    fn ray_pointing_away_misses() {
        let r = Ray::new(Vec3::new(2.0, 0.5, 0.5), Vec3::X);
        assert!(unit().intersect_ray(&r, 0.0, 100.0).is_none());
    }

    #[test]
    fn parallel_ray_on_a_face_plane_hits_boundary_included() {
        // Lies in the plane x = 0 of a face: the textbook slab test computes 0 * inf = NaN here.
        for origin in [Vec3::new(0.0, 0.5, -1.0), Vec3::new(1.0, 0.5, -1.0), Vec3::new(0.0, 0.0, -1.0)] {
            let r = Ray::new(origin, Vec3::Z);
            let (t0, t1) = unit().intersect_ray(&r, 0.0, 100.0).expect("grazing ray on a face");
            assert!((t0 - 1.0).abs() < 1e-6 && (t1 - 2.0).abs() < 1e-5, "{t0} {t1}");
        }
        // Negative zero is parallel too.
        let r = Ray::new(Vec3::new(0.5, 0.5, -1.0), Vec3::new(-0.0, 0.0, 1.0));
        assert!(unit().intersect_ray(&r, 0.0, 100.0).is_some());
    }

    #[test]
    fn parallel_ray_just_outside_misses() {
        let r = Ray::new(Vec3::new(1.0 + 1e-6, 0.5, -1.0), Vec3::Z);
        assert!(unit().intersect_ray(&r, 0.0, 100.0).is_none());
    }

    #[test]
    fn degenerate_rays_hit_nothing() {
        let bad = [
            Ray::new(Vec3::splat(0.5), Vec3::ZERO),
            Ray::new(Vec3::splat(0.5), Vec3::new(f32::NAN, 1.0, 0.0)),
            Ray::new(Vec3::splat(0.5), Vec3::new(f32::INFINITY, 0.0, 0.0)),
            Ray::new(Vec3::new(f32::NAN, 0.5, 0.5), Vec3::X),
            Ray::new(Vec3::new(f32::NEG_INFINITY, 0.5, 0.5), Vec3::X),
        ];
        for r in bad {
            assert!(!r.is_valid());
            assert!(unit().intersect_ray(&r, 0.0, f32::INFINITY).is_none(), "{r:?}");
        }
        assert_eq!(Ray::try_new(Vec3::ZERO, Vec3::ZERO), Err(Error::ZeroDirection));
        assert_eq!(Ray::try_new(Vec3::ZERO, Vec3::splat(1e-45)), Err(Error::ZeroDirection));
    }

    #[test]
    fn a_ray_changed_after_it_was_built_is_judged_by_its_new_fields() {
        let mut r = Ray::new(Vec3::splat(0.5), Vec3::X);
        r.origin.x = f32::NAN;
        assert!(!r.is_valid());
        assert!(unit().intersect_ray(&r, 0.0, f32::INFINITY).is_none());
        let mut r = Ray::new(Vec3::splat(0.5), Vec3::X);
        r.dir = Vec3::ZERO;
        assert!(!r.is_valid());
        let mut r = Ray::new(Vec3::splat(0.5), Vec3::ZERO);
        r.dir = Vec3::Y;
        assert!(r.is_valid());
    }

    #[test]
    fn subnormal_component_counts_as_parallel() {
        // 1e-45 has an infinite inverse; on the face plane the textbook test gives 0 * inf = NaN.
        let r = Ray::new(Vec3::new(0.0, 0.5, -1.0), Vec3::new(1e-45, 0.0, 1.0));
        assert!(r.is_valid());
        assert!(unit().intersect_ray(&r, 0.0, 100.0).is_some());
    }

    #[test]
    fn nan_interval_and_nan_box_miss() {
        let r = Ray::new(Vec3::new(-1.0, 0.5, 0.5), Vec3::X);
        assert!(unit().intersect_ray(&r, f32::NAN, 10.0).is_none());
        let nan_box = Aabb::new(Vec3::new(f32::NAN, 0.0, 0.0), Vec3::ONE);
        assert!(nan_box.is_empty());
        assert!(!nan_box.overlaps(&unit()));
        assert!(nan_box.intersect_ray(&r, 0.0, 10.0).is_none());
    }

    #[test]
    fn interval_is_clipped_to_the_query_range() {
        let r = Ray::new(Vec3::new(-1.0, 0.5, 0.5), Vec3::X);
        assert!(unit().intersect_ray(&r, 0.0, 0.5).is_none());
        let (t0, t1) = unit().intersect_ray(&r, 1.5, 10.0).unwrap();
        assert_eq!(t0, 1.5);
        assert!((t1 - 2.0).abs() < 1e-6);
    }

    #[test]
    fn ray_through_an_edge_is_not_lost() {
        // Aimed exactly at the edge x = 1, y = 1 of the box, from a far diagonal.
        let target = Vec3::new(1.0, 1.0, 0.5);
        let origin = Vec3::new(1001.0, 1001.0, 0.5);
        let r = Ray::new(origin, target - origin);
        assert!(unit().intersect_ray(&r, 0.0, 2.0).is_some());
    }

    #[test]
    fn empty_box_union_identity() {
        let b = Aabb::new(Vec3::splat(-1.0), Vec3::splat(2.0));
        assert_eq!(Aabb::EMPTY.union(&b), b);
        assert!(Aabb::EMPTY.is_empty());
        assert!(!Aabb::EMPTY.contains_point(Vec3::ZERO));
        assert_eq!(Aabb::from_points([]), Aabb::EMPTY);
    }

    /// Brute-force reference: march the segment finely and see whether any sample is inside.
    fn sampled_hit(b: &Aabb, r: &Ray, max_t: f32) -> bool {
        let steps = 4000;
        (0..=steps).any(|i| b.grow(1e-3).contains_point(r.at(max_t * i as f32 / steps as f32)))
    }

    proptest! {
        #[test]
        fn slab_test_agrees_with_sampling(
            lo in prop::array::uniform3(-4.0f32..4.0),
            ext in prop::array::uniform3(0.1f32..3.0),
            o in prop::array::uniform3(-8.0f32..8.0),
            d in prop::array::uniform3(-1.0f32..1.0),
            zero_axis in 0usize..4,
        ) {
            let b = Aabb::new(Vec3::from(lo), Vec3::from(lo) + Vec3::from(ext));
            let mut dir = Vec3::from(d);
            if zero_axis < 3 { dir[zero_axis] = 0.0; }
            prop_assume!(dir.length() > 0.05);
            let r = Ray::new(Vec3::from(o), dir);
            let max_t = 20.0;
            match b.intersect_ray(&r, 0.0, max_t) {
                Some((t0, t1)) => {
                    prop_assert!(t0 <= t1);
                    // The midpoint of the reported interval lies in the (slightly grown) box.
                    prop_assert!(b.grow(1e-3).contains_point(r.at(0.5 * (t0 + t1))));
                }
                None => prop_assert!(!sampled_hit(&b.grow(-2e-3), &r, max_t)),
            }
        }
    }
}
