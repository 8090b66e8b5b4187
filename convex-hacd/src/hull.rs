//! The public convex hull of a point set (the article, "Convex Hull
//! Generation: Quickhull"): [`convex_hull`] and [`convex_hull_with_tolerance`] over
//! [`quickhull`](crate::quickhull).

use glam::{DVec3, Vec3};

use crate::HullError;
use crate::quantize::weld_points;
use crate::quickhull::{Degeneracy, HullScratch, RawHull, build_hull};

/// The tolerance [`convex_hull`] uses, relative to the largest side of the points' bounding box:
/// the article's `ConnectDist 0.1` over `ScaleFactor 1000`.
pub const DEFAULT_RELATIVE_TOLERANCE: f32 = 1e-4;

/// A convex hull: vertices taken from the input points and outward triangles over them.
///
/// A *flat* hull (all points within the tolerance of one plane) is a polygon emitted twice, once
/// per side, so that it is still a closed surface with outward triangles (`V - E + F = 2` holds).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Hull {
    /// The hull's vertices, a subset of the input points, in input order.
    pub vertices: Vec<Vec3>,
    /// Triangles over `vertices`, counter-clockwise seen from outside.
    pub triangles: Vec<[u32; 3]>,
    /// Whether the points fit in a slab as wide as the tolerance (2D hull, double-sided polygon).
    pub flat: bool,
    /// The tolerance used: no input point lies farther than this outside the hull, and faces that
    /// agree within it share one plane.
    pub tolerance: f32,
}

/// The float floor of a set of coordinates: below about 3 ulps of the largest magnitude, a
/// distance is rounding noise, so no tolerance may be smaller.
pub(crate) fn float_floor(max_abs: f32) -> f32 {
    3.0 * f32::EPSILON * max_abs
}

/// The convex hull of `points` with the default tolerance, [`DEFAULT_RELATIVE_TOLERANCE`] times the
/// largest side of their bounding box (never below the float floor of their coordinates).
///
/// ```
/// use glam::Vec3;
/// use convex_hacd::{HullError, convex_hull};
///
/// let cube: Vec<Vec3> = (0..8).map(|i| Vec3::new((i & 1) as f32, ((i >> 1) & 1) as f32, (i >> 2) as f32)).collect();
/// let hull = convex_hull(&cube)?;
/// assert_eq!((hull.vertices.len(), hull.triangles.len()), (8, 12));
/// assert_eq!(convex_hull(&[Vec3::ZERO, Vec3::X, Vec3::X * 2.0]), Err(HullError::Collinear));
/// # Ok::<(), HullError>(())
/// ```
pub fn convex_hull(points: &[Vec3]) -> Result<Hull, HullError> {
    let (lo, hi) = bounds(points)?;
    // In f64: the extent of points at +-f32::MAX overflows f32 (an infinite tolerance made every
    // point one).
    let extent = (hi.as_dvec3() - lo.as_dvec3()).max_element();
    hull_with(points, (lo, hi), (f64::from(DEFAULT_RELATIVE_TOLERANCE) * extent) as f32, &mut HullScratch::default())
}

/// The convex hull of `points` with tolerance `tolerance` (in the points' units; raised to the
/// float floor, about 3 `f32::EPSILON` times the largest coordinate magnitude, when smaller).
pub fn convex_hull_with_tolerance(points: &[Vec3], tolerance: f32) -> Result<Hull, HullError> {
    if !(tolerance >= 0.0 && tolerance.is_finite()) {
        return Err(HullError::InvalidTolerance);
    }
    let bounds = bounds(points)?;
    hull_with(points, bounds, tolerance, &mut HullScratch::default())
}

fn bounds(points: &[Vec3]) -> Result<(Vec3, Vec3), HullError> {
    if let Some(index) = points.iter().position(|p| !p.is_finite()) {
        return Err(HullError::NonFinite { index });
    }
    if points.len() < 3 {
        return Err(HullError::TooFewPoints { count: points.len() });
    }
    Ok(points.iter().fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), p| (lo.min(*p), hi.max(*p))))
}

/// The hull of `points`, whose bounding box is `(lo, hi)`.
fn hull_with(
    points: &[Vec3],
    (lo, hi): (Vec3, Vec3),
    tolerance: f32,
    scratch: &mut HullScratch,
) -> Result<Hull, HullError> {
    let max_abs = lo.abs().max(hi.abs()).max_element();
    let tolerance = tolerance.max(float_floor(max_abs));
    // Built about the points' centre: the planes' thickness has a floor at the rounding of the
    // coordinates it is given, which far from the origin (a cloud of radius 100 at 1e5) was as
    // thick as the tolerance itself and folded hulls. The input's own rounding still sets the
    // tolerance's floor (above).
    let centre = (lo.as_dvec3() + hi.as_dvec3()) * 0.5;
    let all: Vec<DVec3> = points.iter().map(|p| p.as_dvec3() - centre).collect();
    // Points within the tolerance of an earlier point are the same point (the article's welding);
    // only representatives enter the hull.
    let reps = weld_points(&all, f64::from(tolerance));
    if let [a, b] = reps[..] {
        // Two representatives, every other point within the tolerance of one of them: all lie
        // within the tolerance of the line through the two (points at 0 and 1e30 with a few near
        // the origin, welded at the tolerance of 1e30's extent), and coincide only when the two
        // do per axis, as `AllCoincident` says.
        let spread = (all[a as usize] - all[b as usize]).abs().max_element();
        return Err(if spread <= f64::from(tolerance) { HullError::AllCoincident } else { HullError::Collinear });
    }
    let wide: Vec<DVec3> = reps.iter().map(|&i| all[i as usize]).collect();
    let mut raw = RawHull::default();
    build_hull(&wide, f64::from(tolerance), scratch, &mut raw).map_err(|d| match d {
        Degeneracy::TooFew => HullError::AllCoincident,
        Degeneracy::Coincident => HullError::AllCoincident,
        Degeneracy::Collinear => HullError::Collinear,
        Degeneracy::Folded => HullError::Unstable,
    })?;
    // Renumber: representative index -> position in `vertices` (vertices are ascending).
    let local = |i: u32| raw.vertices.binary_search(&i).map_or(0, |k| k as u32);
    Ok(Hull {
        vertices: raw.vertices.iter().map(|&i| points[reps[i as usize] as usize]).collect(),
        triangles: raw.triangles.iter().map(|t| t.map(local)).collect(),
        flat: raw.flat,
        tolerance,
    })
}
