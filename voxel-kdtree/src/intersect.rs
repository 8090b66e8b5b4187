//! Primitive tests: the watertight ray-triangle test of Woop, Benthin and Wald ("Watertight
//! Ray/Triangle Intersection", JCGT 2013), its quad form (seed 000, "Future work": quads as
//! primitives), and the separating-axis triangle-box test (Akenine-Möller, "Fast 3D Triangle-Box
//! Overlap Testing", 2001).

use glam::{DVec2, DVec3, Vec3};
use voxel_core::{Aabb, Ray};

/// A ray prepared for the watertight test: `KZ` is the axis of the direction's largest component
/// (a constant, so the coordinate permutation costs nothing per vertex), and the shear maps the
/// direction onto `+z`.
///
/// Every vertex is transformed on its own ([`Sheared::project`]), and an edge's 2D edge function
/// depends only on its two transformed ends, computed in the same order for both triangles that
/// share the edge (with opposite signs). So a ray through a shared edge or vertex gets an edge
/// function of exactly zero on one side and the same value negated on the other: it cannot slip
/// between them.
///
/// The paper swaps the two other axes when the major component is negative, to keep the winding
/// for back-face culling; the test here is two-sided, and the swap would only negate all three
/// edge functions and the determinant exactly (same decision, same `t`), so it is left out.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sheared<const KZ: usize> {
    origin: Vec3,
    sx: f32,
    sy: f32,
    sz: f32,
}

/// A vertex in the ray's sheared frame: the ray is the `+z` axis through `(0, 0)`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Projected {
    pub(crate) x: f32,
    pub(crate) y: f32,
    pub(crate) z: f32,
}

/// The axis of the largest component of `dir` (the first on ties): the `KZ` of [`Sheared`].
#[inline]
pub(crate) fn major_axis(dir: Vec3) -> usize {
    let a = dir.abs();
    if a.x >= a.y && a.x >= a.z {
        0
    } else if a.y >= a.z {
        1
    } else {
        2
    }
}

/// Runs `$body` with the constant `$k` set to the major axis of `$ray`'s direction (0, 1 or 2):
/// the one place where the per-ray axis becomes a compile-time constant.
macro_rules! with_major_axis {
    ($ray:expr, $k:ident => $body:expr) => {
        match $crate::intersect::major_axis($ray.dir) {
            0 => {
                const $k: usize = 0;
                $body
            }
            1 => {
                const $k: usize = 1;
                $body
            }
            _ => {
                const $k: usize = 2;
                $body
            }
        }
    };
}
pub(crate) use with_major_axis;

impl<const KZ: usize> Sheared<KZ> {
    const KX: usize = (KZ + 1) % 3;
    const KY: usize = (KZ + 2) % 3;

    /// The shear of a valid ray whose major axis is `KZ`.
    #[inline]
    pub(crate) fn new(ray: &Ray) -> Self {
        // Components with an infinite inverse (zero, and subnormals below about 3e-39) are zero,
        // as for `Ray` itself and the tree's slab tests: sheared by a subnormal, a ray in a
        // triangle's plane got edge functions of a few bits and a hit behind its origin.
        let d = Vec3::select(ray.dir.recip().is_finite_mask(), ray.dir, Vec3::ZERO);
        Self { origin: ray.origin, sx: d[Self::KX] / d[KZ], sy: d[Self::KY] / d[KZ], sz: 1.0 / d[KZ] }
    }

    /// `v` in the sheared frame.
    #[inline(always)]
    pub(crate) fn project(&self, v: Vec3) -> Projected {
        let p = v - self.origin;
        let z = p[KZ];
        Projected { x: p[Self::KX] - self.sx * z, y: p[Self::KY] - self.sy * z, z: self.sz * z }
    }
}

/// The edge function of the edge from `p` to `q` at the ray (the sheared origin): negated exactly
/// when the ends are swapped.
#[inline(always)]
fn edge(p: Projected, q: Projected) -> f32 {
    q.x * p.y - q.y * p.x
}

/// The same in double precision, where every product of two `f32`s is exact.
#[inline(always)]
fn edge_f64(p: Projected, q: Projected) -> f32 {
    let (p, q) = (DVec2::new(f64::from(p.x), f64::from(p.y)), DVec2::new(f64::from(q.x), f64::from(q.y)));
    (q.x * p.y - q.y * p.x) as f32
}

/// The three edge functions of triangle `(a, b, c)` (transformed). An exactly zero one may be a
/// rounding artefact: then all three are redone exactly (the paper's fallback), so that the
/// decision on an edge is the same from both sides.
#[inline(always)]
fn edge_functions(a: Projected, b: Projected, c: Projected) -> [f32; 3] {
    let e = [edge(b, c), edge(c, a), edge(a, b)];
    if e.contains(&0.0) { [edge_f64(b, c), edge_f64(c, a), edge_f64(a, b)] } else { e }
}

/// Whether the edge functions have both signs: the ray passes outside the triangle.
/// (`|` and `&` rather than `||` and `&&`: one branch instead of a chain of unpredictable ones.)
#[inline(always)]
fn straddles([u, v, w]: [f32; 3]) -> bool {
    ((u < 0.0) | (v < 0.0) | (w < 0.0)) & ((u > 0.0) | (v > 0.0) | (w > 0.0))
}

/// The hit parameter `t` of the ray with triangle `(a, b, c)` (transformed), both sides, when it
/// lies in `[0, max_t]`.
#[inline(always)]
pub(crate) fn triangle_projected(a: Projected, b: Projected, c: Projected, max_t: f32) -> Option<f32> {
    let [u, v, w] = edge_functions(a, b, c);
    if straddles([u, v, w]) {
        return None;
    }
    let det = u + v + w;
    if !(det.abs() >= SMALL_DET) {
        // Edge-on, or so small across the ray that `t`'s products underflow.
        if let Some(small) = triangle_small(a, b, c, max_t) {
            return small;
        }
        if det == 0.0 {
            return None;
        }
    }
    let mut t = (u * a.z + v * b.z + w * c.z) / det;
    if !t.is_finite() {
        // A product overflowed (a direction of 1e-31 puts the hit at 1e35): again in `f64`.
        let f = f64::from;
        t = ((f(u) * f(a.z) + f(v) * f(b.z) + f(w) * f(c.z)) / f(det)) as f32;
    }
    // Written so that a NaN `t` is a miss; an infinite one (a hit beyond `f32::MAX`) is too.
    if t >= 0.0 && t <= max_t && t < f32::INFINITY { Some(t) } else { None }
}

/// Twice the projected area (the determinant) under which [`triangle_small`] decides: 2^-60,
/// the area of a triangle about 2^-30 across the ray, whose `t` formula multiplies three such
/// lengths (under 2^-90) near `f32`'s underflow (2^-126).
const SMALL_DET: f32 = 1.0 / (1u64 << 60) as f32;

/// [`triangle_projected`] for a triangle that passed the edge tests with a determinant under
/// [`SMALL_DET`]: `Some(answer)` when its sheared `x` and `y` (across the ray) are all under
/// 2^-30, `None` to go on with the common formula (an edge-on triangle). Such a small triangle is
/// scaled by the power of two that brings the largest to `[1, 2)` and tested again: the scaling
/// is exact, so every sign is that of the unscaled numbers without their underflow, and `t`, a
/// ratio of edge functions with `z` left as it is, keeps its value (an audit found `t = 0` for
/// triangles 1e-16 across, so the farther of two stacked ones was the closest hit, and misses
/// at 1e-20). A power of two changes no sign, so two neighbours still agree on their shared
/// edge.
///
/// Below about 1e-19 across, the first edge tests multiply subnormal numbers: their signs are
/// right but a ray within about 1e-5 of the triangle's size from an edge may be decided wrongly
/// there (inlined, and reached only on a small determinant, this path costs rays on ordinary
/// meshes under 1% of their instructions; catching those cases too cost 7%).
#[inline(always)]
fn triangle_small(a: Projected, b: Projected, c: Projected, max_t: f32) -> Option<Option<f32>> {
    let largest = a.x.abs().max(a.y.abs()).max(b.x.abs()).max(b.y.abs()).max(c.x.abs()).max(c.y.abs());
    if !(largest < 1.0 / (1u64 << 30) as f32) || largest == 0.0 {
        return None;
    }
    // 2^(127 - e) for the biased exponent e of `largest` (under 97 here, 0 for subnormals).
    let scale = f32::from_bits((254 - (largest.to_bits() >> 23)) << 23);
    let s = |p: Projected| Projected { x: p.x * scale, y: p.y * scale, z: p.z };
    let (a, b, c) = (s(a), s(b), s(c));
    let [u, v, w] = edge_functions(a, b, c);
    if straddles([u, v, w]) {
        return Some(None);
    }
    let det = u + v + w;
    // The scaled coordinates are near 1, but `z` (the distance along the ray) may not be.
    let f = f64::from;
    let t = ((f(u) * f(a.z) + f(v) * f(b.z) + f(w) * f(c.z)) / f(det)) as f32;
    Some(if t >= 0.0 && t <= max_t && t < f32::INFINITY { Some(t) } else { None })
}

/// The watertight ray-triangle test: the hit parameter `t` in `[0, max_t]`, either side of the
/// triangle, or `None`. A degenerate ray (see [`Ray::is_valid`]) or triangle hits nothing.
///
/// A ray through an edge or a vertex shared by two triangles hits at least one of them: the test
/// never lets a ray slip through a closed mesh. A ray that starts exactly on a triangle may or
/// may not hit it (at `t = 0`), by rounding; offset the origin along the normal to leave a
/// surface. Direction components with an infinite inverse (zero or below about `3e-39`) count
/// as zero.
///
/// ```
/// use glam::Vec3;
/// use voxel_core::Ray;
/// use voxel_kdtree::ray_triangle;
///
/// let tri = [Vec3::ZERO, Vec3::X, Vec3::Z];
/// let down = Ray::new(Vec3::new(0.25, 2.0, 0.25), Vec3::NEG_Y);
/// assert_eq!(ray_triangle(&down, tri, f32::INFINITY), Some(2.0));
/// assert_eq!(ray_triangle(&down, tri, 1.0), None);
/// ```
#[inline]
pub fn ray_triangle(ray: &Ray, tri: [Vec3; 3], max_t: f32) -> Option<f32> {
    if !ray.is_valid() {
        return None;
    }
    with_major_axis!(ray, K => {
        let s = Sheared::<K>::new(ray);
        triangle_projected(s.project(tri[0]), s.project(tri[1]), s.project(tri[2]), max_t)
    })
}

/// The quad form: quad `[q0, q1, q2, q3]` as the triangles `[q0, q1, q2]` and `[q0, q2, q3]`
/// (the `voxel-mesh` split). Four vertex transforms instead of six; each half's decision and `t`
/// are bit for bit those of [`ray_triangle`]. Returns the hit and which half (0 or 1) it is on,
/// the nearer one (the first on a tie) when both halves hit a non-planar quad.
#[inline(always)]
pub(crate) fn quad_projected(p: [Projected; 4], max_t: f32) -> Option<(f32, u32)> {
    let first = triangle_projected(p[0], p[1], p[2], max_t);
    let second = triangle_projected(p[0], p[2], p[3], max_t);
    match (first, second) {
        (Some(a), Some(b)) => Some(if b < a { (b, 1) } else { (a, 0) }),
        (Some(a), None) => Some((a, 0)),
        (None, Some(b)) => Some((b, 1)),
        (None, None) => None,
    }
}

/// True when triangle `tri` and box `b` share a point (touching counts, a triangle lying in one
/// of the box's faces too): the 13 separating axes of Akenine-Möller, in `f64`. The three box
/// axes are tested on the raw coordinates, so a triangle that passes always has a bounding box
/// that overlaps `b`. An empty or non-finite box overlaps nothing; so does a triangle with a
/// non-finite corner.
///
/// ```
/// use glam::Vec3;
/// use voxel_core::Aabb;
/// use voxel_kdtree::triangle_overlaps_aabb;
///
/// let unit = Aabb::new(Vec3::ZERO, Vec3::ONE);
/// // A big triangle cutting the box's corner region diagonally, no vertex inside.
/// let cut = [Vec3::new(-1.0, 0.5, 0.5), Vec3::new(0.5, -1.0, 0.5), Vec3::new(0.5, 0.5, -1.0)];
/// assert!(triangle_overlaps_aabb(cut, &unit));
/// // Its bounding box overlaps this one, but the plane passes below it.
/// let far = [Vec3::new(-1.0, -1.0, 0.4), Vec3::new(0.4, -1.0, -1.0), Vec3::new(-1.0, 0.4, -1.0)];
/// assert!(!triangle_overlaps_aabb(far, &unit));
/// ```
pub fn triangle_overlaps_aabb(tri: [Vec3; 3], b: &Aabb) -> bool {
    b.is_valid() && triangle_overlaps_box(tri, b, box_centre(b), box_half(b))
}

/// The centre of `b` in `f64`: exact for `f32` corners.
#[inline]
pub(crate) fn box_centre(b: &Aabb) -> DVec3 {
    (b.min.as_dvec3() + b.max.as_dvec3()) * 0.5
}

/// Half the size of `b` in `f64`: exact for `f32` corners.
#[inline]
pub(crate) fn box_half(b: &Aabb) -> DVec3 {
    (b.max.as_dvec3() - b.min.as_dvec3()) * 0.5
}

/// [`triangle_overlaps_aabb`] for a valid box `b` with its centre `c` and half size `h`, which
/// a query computes once for all its candidates (in `f64`: from `f32` corners both are exact).
///
/// The separating-axis tests run in `f64`, where the corners relative to the exact centre, the
/// edges, and the nine edge axes' projections and radii are exact for coordinates within a few
/// million ulps of each other. So a triangle lying in a face of the box, or with a corner on it,
/// touches it: in `f32`, the rounded centre and half size moved that face by an ulp, and such
/// triangles were dropped (an audit found 16% of floor triangles in a box's bottom face lost).
#[inline(always)]
pub(crate) fn triangle_overlaps_box(tri: [Vec3; 3], b: &Aabb, c: DVec3, h: DVec3) -> bool {
    let [t0, t1, t2] = tri;
    // Box axes on raw coordinates: exactly the bounding-box overlap. First, as it rejects most
    // candidates of a box query; a non-finite corner can slip through it (`min` and `max` skip
    // NaN) but not through the check after it.
    if !(t0.min(t1).min(t2).cmple(b.max).all() && t0.max(t1).max(t2).cmpge(b.min).all()) {
        return false;
    }
    if !(t0.is_finite() && t1.is_finite() && t2.is_finite()) {
        return false;
    }
    let (v0, v1, v2) = (t0.as_dvec3() - c, t1.as_dvec3() - c, t2.as_dvec3() - c);
    let edges = [v1 - v0, v2 - v1, v0 - v2];
    // Nine cross-product axes: each edge crossed with each box axis. Each axis has a zero
    // component, left out of the dot products.
    let separated = |p: [f64; 3], r: f64| p[0].min(p[1]).min(p[2]) > r || p[0].max(p[1]).max(p[2]) < -r;
    let v = [v0, v1, v2];
    for e in edges {
        // Axis (0, -e.z, e.y).
        if separated(v.map(|v| -e.z * v.y + e.y * v.z), h.y * e.z.abs() + h.z * e.y.abs()) {
            return false;
        }
        // Axis (e.z, 0, -e.x).
        if separated(v.map(|v| e.z * v.x + -e.x * v.z), h.x * e.z.abs() + h.z * e.x.abs()) {
            return false;
        }
        // Axis (-e.y, e.x, 0).
        if separated(v.map(|v| -e.y * v.x + e.x * v.y), h.x * e.y.abs() + h.y * e.x.abs()) {
            return false;
        }
    }
    // The triangle's plane against the box, with the rounding of `n` and `d` allowed for (a
    // few ulps of `|e0| |e1| |v0|`): on a nearly collinear triangle `n` is rounding noise, and
    // its plane would separate boxes the triangle passes through.
    let n = edges[0].cross(edges[1]);
    let d = n.dot(v0);
    let r = h.dot(n.abs());
    let rounding = 8.0
        * f64::EPSILON
        * edges[0].abs().max_element()
        * edges[1].abs().max_element()
        * (v0.abs().max_element() + h.max_element());
    // Written so that a NaN distance (products overflowing `f64`, beyond about 1e100, which
    // `f32` corners never reach) counts as touching.
    !(d.abs() > r + rounding)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ray in a triangle's plane whose direction leaves it by a subnormal component (below the
    /// inverse's range) is the ray parallel to it: the same decisions and `t` as with that
    /// component zero. Before, the shear by the subnormal gave the triangle behind the origin a
    /// hit at `t = -0`, and the tree (whose slab tests treat the component as zero) disagreed with
    /// brute force (a stress test's 80k-triangle grid).
    #[test]
    fn a_subnormal_direction_component_is_zero() {
        let origin = Vec3::new(57.488052, 3.0, 27.009903);
        let tris = [
            [Vec3::new(57.0, 3.0, 26.0), Vec3::new(57.0, 3.0, 27.0), Vec3::new(58.0, 3.0, 27.0)],
            [Vec3::new(57.0, 3.0, 27.0), Vec3::new(58.0, 3.0, 28.0), Vec3::new(58.0, 3.0, 27.0)],
            [Vec3::new(56.0, 2.0, 30.0), Vec3::new(60.0, 2.0, 30.0), Vec3::new(58.0, 5.0, 30.0)],
        ];
        for tiny in [-1e-44, 1e-45, -1e-40, 2e-39] {
            let ray = Ray::new(origin, Vec3::new(0.27652848, tiny, 0.5319973));
            let flat = Ray::new(origin, Vec3::new(0.27652848, 0.0, 0.5319973));
            for tri in tris {
                assert_eq!(ray_triangle(&ray, tri, f32::INFINITY), ray_triangle(&flat, tri, f32::INFINITY), "{tiny}");
            }
        }
        assert_eq!(ray_triangle(&Ray::new(origin, Vec3::new(0.27652848, -1e-44, 0.5319973)), tris[0], 10.0), None);
        // The crossing triangle ahead is still hit.
        let ray = Ray::new(origin, Vec3::new(0.27652848, -1e-44, 0.5319973));
        assert!(ray_triangle(&ray, tris[2], f32::INFINITY).is_some());
    }

    #[test]
    fn a_nearly_collinear_triangle_overlaps_the_boxes_it_passes_through() {
        // p2 = 2 p1 - p0 in `f32`: the cross product of the edges rounds to (0, 3e-5, 0), and its
        // plane separated a box around a point on the triangle.
        let tri = [
            Vec3::new(5.4439235, 4.9286423, 6.0293627),
            Vec3::new(-2.2168493, -8.251932, -9.579487),
            Vec3::new(-9.877623, -21.432507, -25.188335),
        ];
        let on = tri[0] + 0.155 * (tri[2] - tri[0]);
        assert!(triangle_overlaps_aabb(tri, &Aabb::new(on - Vec3::splat(0.01), on + Vec3::splat(0.01))));
    }

    #[test]
    fn tiny_triangles_keep_their_distances() {
        // Two stacked triangles of size `s`, a ray from above: the products of three
        // coordinates in the `t` formula underflowed (t = 0 for both at 1e-16, so the farther
        // one won the closest hit), and at 1e-20 the edge functions did (misses).
        for s in [1e-9f32, 1e-12, 1e-16, 1e-20, 1e-30] {
            let tri = |y: f32| [Vec3::new(0.0, y, 0.0), Vec3::new(0.0, y, 1.0), Vec3::new(1.0, y, 0.0)].map(|v| v * s);
            let ray = Ray::new(Vec3::new(0.25, 3.0, 0.25) * s, Vec3::NEG_Y);
            for (y, expected) in [(1.0f32, 2.0 * s), (2.0, s)] {
                let t = ray_triangle(&ray, tri(y), f32::INFINITY).expect("a hit");
                assert!((t - expected).abs() <= 1e-5 * expected, "size {s:e}: t {t:e}, expected {expected:e}");
            }
            // Just beside the triangle's hypotenuse: a miss.
            let beside = Ray::new(Vec3::new(0.5001, 3.0, 0.5001) * s, Vec3::NEG_Y);
            assert_eq!(ray_triangle(&beside, tri(1.0), f32::INFINITY), None, "size {s:e}");
        }
        // A triangle 1e-20 across, one unit down the ray.
        let tri = [Vec3::new(0.0, -1.0, 0.0), Vec3::new(0.0, -1.0, 1e-20), Vec3::new(1e-20, -1.0, 0.0)];
        let t = ray_triangle(&Ray::new(Vec3::new(2.5e-21, 0.0, 2.5e-21), Vec3::NEG_Y), tri, f32::INFINITY);
        assert!(t.is_some_and(|t| (t - 1.0).abs() < 1e-6), "{t:?}");
        let beside = Ray::new(Vec3::new(6e-21, 0.0, 6e-21), Vec3::NEG_Y);
        assert_eq!(ray_triangle(&beside, tri, f32::INFINITY), None);
    }

    #[test]
    fn huge_coordinates_overlap_the_boxes_at_their_corners() {
        // The plane test's products of three coordinates overflowed `f32` (a NaN distance), so
        // a point box at a corner of this triangle was not overlapped.
        let tri = [Vec3::new(1e16, 0.0, 0.0), Vec3::new(0.0, 1e16, 0.0), Vec3::new(0.0, 0.0, 1e16)];
        let point = |p: Vec3| Aabb::new(p, p);
        for corner in tri {
            assert!(triangle_overlaps_aabb(tri, &point(corner)), "{corner}");
        }
        let inside = Vec3::splat(1e16 / 3.0);
        assert!(triangle_overlaps_aabb(tri, &Aabb::new(inside - 1e10, inside + 1e10)));
        // Outside the triangle's box, or across an edge: still no overlap.
        assert!(!triangle_overlaps_aabb(tri, &point(Vec3::splat(2e16))));
        assert!(!triangle_overlaps_aabb(tri, &point(Vec3::new(0.9e16, 0.9e16, 0.0))));
        // And near the top of the `f32` range.
        let big = tri.map(|v| v * 1e22);
        assert!(triangle_overlaps_aabb(big, &point(big[1])));
    }

    #[test]
    fn a_tiny_direction_gives_a_finite_t() {
        // The hit is at t = 9.9e34: the products of the `t` formula overflowed to an infinite t.
        let tri = [
            Vec3::new(100000.0, 0.0, 0.0),
            Vec3::new(95105.66, 26286.555, -16245.985),
            Vec3::new(95105.66, 26286.555, 16245.985),
        ];
        let ray = Ray::new(
            Vec3::new(151739.34, 118146.22, -97336.375),
            Vec3::new(-5.6827427e-31, -9.568696e-31, 9.50189e-31),
        );
        let t = ray_triangle(&ray, tri, f32::INFINITY).expect("a hit");
        assert!(t.is_finite() && t > 9e34 && t < 1.1e35, "{t}");
        assert_eq!(ray_triangle(&ray, tri, f32::MAX), Some(t));
    }

    #[test]
    fn watertight_at_a_shared_edge() {
        // Two triangles sharing the edge (0,0,0)-(1,0,1); rays at points of it (the vertex case
        // needs a closed fan: see tests/watertight.rs).
        let (a, b, c, d) = (Vec3::ZERO, Vec3::X, Vec3::new(1.0, 0.0, 1.0), Vec3::Z);
        for target in [Vec3::new(0.5, 0.0, 0.5), Vec3::new(0.3, 0.0, 0.3), Vec3::new(0.1, 0.0, 0.1)] {
            for origin in [Vec3::new(0.1, 3.0, -0.7), Vec3::new(-2.0, -1.0, 5.0), Vec3::new(0.37, 0.9, 0.11)] {
                let ray = Ray::new(origin, target - origin);
                let hit = ray_triangle(&ray, [a, b, c], 10.0).or(ray_triangle(&ray, [a, c, d], 10.0));
                assert!(hit.is_some(), "slipped through at {target} from {origin}");
            }
        }
    }

    #[test]
    fn degenerate_triangle_and_ray_miss() {
        let ray = Ray::new(Vec3::new(0.0, 1.0, 0.0), Vec3::NEG_Y);
        assert_eq!(ray_triangle(&ray, [Vec3::ZERO, Vec3::X, Vec3::X * 2.0], 10.0), None);
        let bad = Ray::new(Vec3::new(0.2, 1.0, 0.2), Vec3::ZERO);
        assert_eq!(ray_triangle(&bad, [Vec3::ZERO, Vec3::X, Vec3::Z], 10.0), None);
        let huge = [Vec3::splat(-3e38), Vec3::new(3e38, -3e38, 3e38), Vec3::new(-3e38, 3e38, 3e38)];
        let _ = ray_triangle(&ray, huge, f32::INFINITY);
    }

    /// The separating-axis test with full dot products (in `f64`), as it was before the zero
    /// components were left out.
    fn overlaps_with_full_dots(tri: [Vec3; 3], b: &Aabb) -> bool {
        let [t0, t1, t2] = tri;
        if !(t0.min(t1).min(t2).cmple(b.max).all() && t0.max(t1).max(t2).cmpge(b.min).all()) {
            return false;
        }
        let (c, h) = (box_centre(b), box_half(b));
        let (v0, v1, v2) = (t0.as_dvec3() - c, t1.as_dvec3() - c, t2.as_dvec3() - c);
        let edges = [v1 - v0, v2 - v1, v0 - v2];
        for e in edges {
            for axis in [DVec3::new(0.0, -e.z, e.y), DVec3::new(e.z, 0.0, -e.x), DVec3::new(-e.y, e.x, 0.0)] {
                let (p0, p1, p2) = (v0.dot(axis), v1.dot(axis), v2.dot(axis));
                let r = h.dot(axis.abs());
                if p0.min(p1).min(p2) > r || p0.max(p1).max(p2) < -r {
                    return false;
                }
            }
        }
        let n = edges[0].cross(edges[1]);
        n.dot(v0).abs() <= h.dot(n.abs())
    }

    #[test]
    fn box_test_equals_full_dot_products() {
        // Corners on a quarter grid around a unit box, so many triangles touch it exactly.
        let unit = Aabb::new(Vec3::ZERO, Vec3::ONE);
        let mut seed = 777u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((seed >> 40) % 17) as f32 * 0.25 - 1.5
        };
        let mut touching = 0;
        for _ in 0..20000 {
            let tri = [0; 3].map(|_| Vec3::new(next(), next(), next()));
            let expected = overlaps_with_full_dots(tri, &unit);
            assert_eq!(triangle_overlaps_aabb(tri, &unit), expected, "{tri:?}");
            touching += usize::from(expected);
        }
        assert!(touching > 1000, "{touching}");
        // A non-finite corner passes the bounding-box step (`min` and `max` skip NaN) and must
        // still be refused.
        let inside = [Vec3::splat(0.5), Vec3::new(0.6, 0.5, 0.5)];
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            let tri = [Vec3::new(bad, 0.5, 0.5), inside[0], inside[1]];
            assert!(!triangle_overlaps_aabb(tri, &unit), "{tri:?}");
        }
    }

    /// A triangle in a face of the box touches it, wherever the box lies: in `f32` the rounded
    /// centre and half size moved the face by an ulp (an audit's floor triangle, and 16% of
    /// random ones, were dropped).
    #[test]
    fn a_triangle_in_a_face_of_the_box_touches_it() {
        let tri = [
            Vec3::new(-3.6485415, -5.671218, 3.8871841),
            Vec3::new(-2.6485415, -5.671218, 3.8871841),
            Vec3::new(-3.6485415, -5.671218, 4.887184),
        ];
        let b = Aabb::new(Vec3::new(-3.9485414, -5.671218, 3.5871842), Vec3::new(-3.0485415, -3.6625512, 4.2871842));
        assert!(triangle_overlaps_aabb(tri, &b));
        let mut seed = 4242u64;
        let mut next = |scale: f32| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((seed >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * scale
        };
        for k in 0..20000 {
            let scale = [30.0, 3e4, 3e6][k % 3];
            let (lo, size) =
                (Vec3::new(next(scale), next(scale), next(scale)), Vec3::new(1.0, 2.0, 0.5) * scale.sqrt());
            let b = Aabb::new(lo, lo + size);
            let axis = k % 3;
            let face = if k % 2 == 0 { b.min[axis] } else { b.max[axis] };
            // Corners in the face, two of them inside its rectangle, one anywhere in its plane.
            let mut corner = |inside: bool| {
                let mut p = b.min + (b.max - b.min) * Vec3::new(next(1.0) + 0.5, next(1.0) + 0.5, next(1.0) + 0.5);
                if !inside {
                    p += Vec3::new(next(scale), next(scale), next(scale));
                }
                p[axis] = face;
                p.clamp(Vec3::splat(-f32::MAX), Vec3::splat(f32::MAX))
            };
            let tri = [corner(true), corner(true), corner(false)];
            assert!(triangle_overlaps_aabb(tri, &b), "{tri:?} in a face of {b:?}");
            // A corner strictly inside the box, anywhere: it overlaps.
            let (far0, far1) = (corner(false), corner(false));
            let inner = b.min + (b.max - b.min) * Vec3::new(next(0.98) + 0.5, next(0.98) + 0.5, next(0.98) + 0.5);
            let tri = [inner, far0, far1];
            assert!(triangle_overlaps_aabb(tri, &b), "{tri:?} with a corner inside {b:?}");
        }
    }

    #[test]
    fn box_test_agrees_with_dense_sampling() {
        // Points sampled on triangles in and out of the box: a sample inside means overlap.
        let unit = Aabb::new(Vec3::ZERO, Vec3::ONE);
        let mut seed = 12345u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((seed >> 40) as f32 / (1u64 << 24) as f32) * 4.0 - 1.5
        };
        for _ in 0..2000 {
            let tri = [
                Vec3::new(next(), next(), next()),
                Vec3::new(next(), next(), next()),
                Vec3::new(next(), next(), next()),
            ];
            let overlap = triangle_overlaps_aabb(tri, &unit);
            let n = 100;
            let mut sampled = false;
            let mut near = false;
            for i in 0..=n {
                for j in 0..=(n - i) {
                    let (u, v) = (i as f32 / n as f32, j as f32 / n as f32);
                    let p = tri[0] + (tri[1] - tri[0]) * u + (tri[2] - tri[0]) * v;
                    sampled |= unit.grow(-1e-3).contains_point(p);
                    near |= unit.grow(0.1).contains_point(p);
                }
            }
            if sampled {
                assert!(overlap, "{tri:?}");
            }
            if !near {
                assert!(!overlap, "{tri:?}");
            }
        }
    }
}
