//! How far a set of convex hulls sticks out of the mesh it approximates (the tightness
//! figure), for any decomposition: ours, parry's V-HACD, CoACD.
//!
//! [`tightness`] spreads a fixed number of samples over the hulls' surfaces, in proportion to
//! area, and asks of each how far it lies from the input surface and whether it lies outside the
//! input. A sample is *outside* by `d` when it is outside the input and its distance to the input
//! surface is `d`; the figures are the share of samples outside by more than a threshold (1% of
//! the input's bounding-box diagonal by default) and the farthest `d`, both relative to the
//! diagonal.
//!
//! # Inside or outside an open, cracked or double-sided mesh
//!
//! "Outside the input" is judged by the generalized winding number `w` of the input triangles
//! (Jacobson et al. 2013, the sum of the signed solid angles over 4 pi): a sample is outside when
//! `|w| < 0.5`. On a closed, consistently wound mesh that is the exact inside test (either
//! orientation). It degrades gracefully on what real meshes are:
//!
//! - **Cracks and small holes** (STL files with T-junctions, a bunny with a few holes, the Newell
//!   teapot's patches): `w` stays near 1 inside and near 0 outside away from the holes, so hull
//!   faces that cut through the solid count as inside, as they should.
//! - **Open sheets** (a single-sided plane, a shell without thickness): a sheet covers less than
//!   half of the sphere of directions from any point farther from it than the threshold, so
//!   `|w| < 0.5` there and the test becomes *distance alone*: a hull surface farther than the
//!   threshold from the sheet sticks out.
//! - **Double-sided surfaces** (every triangle present with both windings): the solid angles
//!   cancel, `w` is 0 everywhere, and the test is again distance alone.
//!
//! The limit: a single-sided sheet that wraps a cavity (a cup modelled as one sheet without
//! thickness) gives `|w| > 0.5` deep inside the cavity, so hulls that seal such a cavity are not
//! counted there. The distance to the surface is exact; the winding number is exact for the
//! triangles near the sample and a first-order far-field sum (Barill et al. 2018) for clusters of
//! triangles at least three cluster radii away.

use glam::{DVec3, Vec3};
use voxel_core::TriangleSource;

pub use crate::error::TightnessError;

/// Settings of [`tightness`].
#[derive(Clone, Debug, PartialEq)]
pub struct TightnessOptions {
    /// How many samples to spread over the hulls' surfaces (by area). Default 20 000.
    pub samples: usize,
    /// A sample counts as outside when it lies outside the input by more than this fraction of the
    /// input's bounding-box diagonal. Default 0.01 (1%).
    pub threshold: f32,
}

impl Default for TightnessOptions {
    fn default() -> Self {
        Self { samples: 20_000, threshold: 0.01 }
    }
}

/// The result of [`tightness`]. Distances are fractions of [`Tightness::diagonal`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tightness {
    /// Samples taken on the hulls' surfaces (0 when the hulls have no area).
    pub samples: usize,
    /// Samples outside the input by more than the threshold.
    pub outside: usize,
    /// `outside / samples` (0 when there are no samples).
    pub outside_share: f32,
    /// The largest distance of a sample outside the input from the input surface, as a fraction of
    /// the diagonal (0 when no sample is outside).
    pub farthest: f32,
    /// The input's bounding-box diagonal, in input units.
    pub diagonal: f32,
}

/// Scores how far `hulls` (each its vertices and triangles) stick out of `mesh`: see the
/// [module documentation](self) for the definition and how open meshes are judged.
///
/// Triangles of `mesh` with a non-finite corner are ignored. Hulls may be flat or empty; their
/// triangles' orientation does not matter. Deterministic (the sample positions depend only on the
/// hulls and the options).
///
/// ```
/// use glam::Vec3;
/// use convex_hacd::{TightnessOptions, convex_hull, tightness};
/// use voxel_core::IndexedMesh;
///
/// // A cube approximated by its own convex hull: nothing sticks out.
/// let corners: Vec<Vec3> = (0..8).map(|i| Vec3::new((i & 1) as f32, ((i >> 1) & 1) as f32, (i >> 2) as f32)).collect();
/// let hull = convex_hull(&corners)?;
/// let cube = IndexedMesh::new(hull.vertices.clone(), hull.triangles.clone())?;
/// let score = tightness(&cube, [(&hull.vertices[..], &hull.triangles[..])], &TightnessOptions::default())?;
/// assert_eq!(score.outside, 0);
/// assert!(score.farthest < 1e-4);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn tightness<'a, T, I>(mesh: &T, hulls: I, options: &TightnessOptions) -> Result<Tightness, TightnessError>
where
    T: TriangleSource + ?Sized,
    I: IntoIterator<Item = (&'a [Vec3], &'a [[u32; 3]])>,
{
    if options.samples == 0 || !(options.threshold >= 0.0 && options.threshold.is_finite()) {
        return Err(TightnessError::InvalidOptions);
    }
    voxel_core::validate_triangles(mesh).map_err(|_| TightnessError::BadMesh)?;
    let mut tris: Vec<[DVec3; 3]> = Vec::with_capacity(mesh.triangle_count());
    for t in 0..mesh.triangle_count() as u32 {
        let c = mesh.triangle_positions(t);
        if c.iter().all(|p| p.is_finite()) {
            tris.push(c.map(Vec3::as_dvec3));
        }
    }
    let (lo, hi) = bounds(tris.iter().flatten());
    let diagonal = (hi - lo).length();
    if tris.is_empty() || !(diagonal > 0.0) {
        return Err(TightnessError::EmptyInput);
    }

    // Hull triangles with their cumulative areas.
    let mut hull_tris: Vec<[DVec3; 3]> = Vec::new();
    let mut cumulative: Vec<f64> = Vec::new();
    let mut total = 0.0;
    for (h, (vertices, triangles)) in hulls.into_iter().enumerate() {
        if vertices.iter().any(|p| !p.is_finite()) {
            return Err(TightnessError::NonFiniteHull { hull: h });
        }
        for t in triangles {
            let [a, b, c] = t.map(|k| vertices.get(k as usize).map(|p| p.as_dvec3()));
            let (Some(a), Some(b), Some(c)) = (a, b, c) else { return Err(TightnessError::BadHullIndex { hull: h }) };
            let area = 0.5 * (b - a).cross(c - a).length();
            if area > 0.0 {
                total += area;
                hull_tris.push([a, b, c]);
                cumulative.push(total);
            }
        }
    }
    let threshold = f64::from(options.threshold) * diagonal;
    let mut score = Tightness { samples: 0, outside: 0, outside_share: 0.0, farthest: 0.0, diagonal: diagonal as f32 };
    if hull_tris.is_empty() {
        return Ok(score);
    }

    let surface = Surface::new(&tris, lo, hi);
    // Closer than this the winding number is not asked: a sample this near the surface is on it.
    let on_surface = 1e-3 * diagonal;
    let n = options.samples;
    let mut farthest = 0.0f64;
    for k in 0..n {
        // Systematic sampling by area (stratified: every triangle gets its share within one
        // sample), a hashed uniform point inside the chosen triangle.
        let at = (k as f64 + 0.5) / n as f64 * total;
        let t = cumulative.partition_point(|&c| c <= at).min(hull_tris.len() - 1);
        let [a, b, c] = hull_tris[t];
        let (u1, u2) = unit_pair(k as u64);
        let r = u1.sqrt();
        let p = a * (1.0 - r) + b * (r * (1.0 - u2)) + c * (r * u2);
        let d = surface.distance(p);
        if d <= on_surface || surface.winding_number(p).abs() >= 0.5 {
            continue;
        }
        farthest = farthest.max(d);
        if d > threshold {
            score.outside += 1;
        }
    }
    score.samples = n;
    score.outside_share = (score.outside as f64 / n as f64) as f32;
    score.farthest = (farthest / diagonal) as f32;
    Ok(score)
}

/// Two uniform numbers in `[0, 1)` from a counter (SplitMix64).
fn unit_pair(k: u64) -> (f64, f64) {
    let mix = |mut z: u64| {
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let x = mix(k.wrapping_mul(2).wrapping_add(1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let y = mix(k.wrapping_mul(2).wrapping_add(2).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    ((x >> 11) as f64 / (1u64 << 53) as f64, (y >> 11) as f64 / (1u64 << 53) as f64)
}

/// The input triangles in a uniform grid (for distances) and in coarse clusters (for the winding
/// number's far field).
pub(crate) struct Surface<'a> {
    tris: &'a [[DVec3; 3]],
    lo: DVec3,
    cell: f64,
    dims: [usize; 3],
    /// `start[c]..start[c + 1]` index `entries`, the triangles whose box overlaps cell `c`.
    start: Vec<u32>,
    entries: Vec<u32>,
    /// Coarse clusters; their `range` indexes `fine_clusters`.
    clusters: Vec<Cluster>,
    /// Fine clusters; their `range` indexes `cluster_tris`.
    fine_clusters: Vec<Cluster>,
    /// Triangles by cluster.
    cluster_tris: Vec<u32>,
}

struct Cluster {
    /// Sum of the triangles' area vectors (half the cross product of two edges).
    area: DVec3,
    /// Area-weighted centre of the triangles.
    centre: DVec3,
    /// The farthest corner from `centre`.
    radius: f64,
    range: (u32, u32),
}

impl Cluster {
    fn of(tris: &[[DVec3; 3]], members: &[u32], range: (u32, u32)) -> Cluster {
        let (mut area, mut weighted, mut weight) = (DVec3::ZERO, DVec3::ZERO, 0.0);
        for &t in members {
            let [a, b, c] = tris[t as usize];
            let v = 0.5 * (b - a).cross(c - a);
            area += v;
            weighted += (a + b + c) / 3.0 * v.length();
            weight += v.length();
        }
        let centre = if weight > 0.0 { weighted / weight } else { tris[members[0] as usize][0] };
        let radius = members.iter().flat_map(|&t| tris[t as usize]).map(|p| p.distance(centre)).fold(0.0, f64::max);
        Cluster { area, centre, radius, range }
    }

    /// The dipole term of the cluster at `p` when it is farther than `ratio` radii, else `None`.
    #[inline]
    fn far_field(&self, p: DVec3, ratio: f64) -> Option<f64> {
        let r = self.centre - p;
        let dist2 = r.length_squared();
        (dist2 > ratio * ratio * self.radius * self.radius).then(|| self.area.dot(r) / (dist2 * dist2.sqrt()))
    }
}

impl<'a> Surface<'a> {
    pub(crate) fn new(tris: &'a [[DVec3; 3]], lo: DVec3, hi: DVec3) -> Self {
        let extent = (hi - lo).max_element();
        // About two cells per triangle, at most 128 per axis.
        let per_axis = ((2.0 * tris.len() as f64).cbrt().ceil() as usize).clamp(1, 128);
        let cell = extent / per_axis as f64;
        let dims = ((hi - lo) / cell).floor().as_uvec3().to_array().map(|d| (d as usize + 1).min(per_axis));
        let coord = |x: f64, k: usize, lo: DVec3| (((x - lo[k]) / cell).floor().max(0.0) as usize).min(dims[k] - 1);
        let mut keyed: Vec<(u32, u32)> = Vec::new();
        for (t, tri) in tris.iter().enumerate() {
            let (tlo, thi) = (tri[0].min(tri[1]).min(tri[2]), tri[0].max(tri[1]).max(tri[2]));
            for z in coord(tlo.z, 2, lo)..=coord(thi.z, 2, lo) {
                for y in coord(tlo.y, 1, lo)..=coord(thi.y, 1, lo) {
                    for x in coord(tlo.x, 0, lo)..=coord(thi.x, 0, lo) {
                        keyed.push(((x + dims[0] * (y + dims[1] * z)) as u32, t as u32));
                    }
                }
            }
        }
        keyed.sort_unstable();
        let n_cells = dims[0] * dims[1] * dims[2];
        let mut start = vec![0u32; n_cells + 1];
        for &(c, _) in &keyed {
            start[c as usize + 1] += 1;
        }
        for c in 0..n_cells {
            start[c + 1] += start[c];
        }
        let entries = keyed.iter().map(|&(_, t)| t).collect();

        // Clusters: triangles by the fine cell (32 per axis) of their centroid, fine cells grouped
        // by the coarse cell (8 per axis) they lie in.
        const FINE: usize = 32;
        const GROUP: usize = 4;
        let fine = extent / FINE as f64;
        let fcoord = |x: f64, k: usize| (((x - lo[k]) / fine).floor().max(0.0) as usize).min(FINE - 1);
        let mut keyed: Vec<(u32, u32, u32)> = tris
            .iter()
            .enumerate()
            .map(|(t, tri)| {
                let m = (tri[0] + tri[1] + tri[2]) / 3.0;
                let f = [fcoord(m.x, 0), fcoord(m.y, 1), fcoord(m.z, 2)];
                let g = f.map(|x| x / GROUP);
                let coarse = g[0] + FINE * (g[1] + FINE * g[2]);
                (coarse as u32, (f[0] + FINE * (f[1] + FINE * f[2])) as u32, t as u32)
            })
            .collect();
        keyed.sort_unstable();
        let cluster_tris: Vec<u32> = keyed.iter().map(|k| k.2).collect();
        let mut fine_clusters = Vec::new();
        let mut i = 0;
        while i < keyed.len() {
            let j = i + keyed[i..].iter().take_while(|k| k.1 == keyed[i].1).count();
            fine_clusters.push(Cluster::of(tris, &cluster_tris[i..j], (i as u32, j as u32)));
            i = j;
        }
        // Coarse clusters: their range indexes `fine_clusters`.
        let mut clusters = Vec::new();
        let (mut i, mut f) = (0, 0);
        while i < keyed.len() {
            let j = i + keyed[i..].iter().take_while(|k| k.0 == keyed[i].0).count();
            let f_end = f + fine_clusters[f..].iter().take_while(|c: &&Cluster| (c.range.1 as usize) <= j).count();
            clusters.push(Cluster::of(tris, &cluster_tris[i..j], (f as u32, f_end as u32)));
            i = j;
            f = f_end;
        }
        Surface { tris, lo, cell, dims, start, entries, clusters, fine_clusters, cluster_tris }
    }

    /// Exact distance from `p` to the nearest triangle: rings of grid cells around `p`'s cell,
    /// until the next ring cannot hold anything nearer.
    fn distance(&self, p: DVec3) -> f64 {
        let c = [0, 1, 2].map(|k| (((p[k] - self.lo[k]) / self.cell).floor().max(0.0) as usize).min(self.dims[k] - 1));
        let mut best = f64::INFINITY;
        let max_ring = self.dims.iter().copied().max().unwrap_or(1);
        for ring in 0..=max_ring {
            let r = ring as isize;
            let range = |k: usize| {
                let lo = (c[k] as isize - r).max(0) as usize;
                let hi = ((c[k] as isize + r) as usize).min(self.dims[k] - 1);
                (lo, hi)
            };
            let ((x0, x1), (y0, y1), (z0, z1)) = (range(0), range(1), range(2));
            for z in z0..=z1 {
                for y in y0..=y1 {
                    let inner_yz = (z as isize - c[2] as isize).abs() < r && (y as isize - c[1] as isize).abs() < r;
                    let mut x = x0;
                    while x <= x1 {
                        if inner_yz && (x as isize - c[0] as isize).abs() < r {
                            // Inside the ring: already visited; jump to its far side.
                            x = (c[0] as isize + r) as usize;
                            continue;
                        }
                        let cell = x + self.dims[0] * (y + self.dims[1] * z);
                        for &t in &self.entries[self.start[cell] as usize..self.start[cell + 1] as usize] {
                            let [a, b, cc] = self.tris[t as usize];
                            best = best.min(p.distance(closest_on_triangle(p, a, b, cc)));
                        }
                        x += 1;
                    }
                }
            }
            // Every cell of the next ring is at least `ring` cells from `p` along some axis.
            if best <= ring as f64 * self.cell {
                break;
            }
        }
        best
    }

    /// The generalized winding number at `p`: exact solid angles for clusters near `p`, a dipole
    /// term for clusters farther than three radii.
    pub(crate) fn winding_number(&self, p: DVec3) -> f64 {
        self.winding_number_at(p, 3.0)
    }

    /// [`Surface::winding_number`] with the dipole term for clusters farther than `ratio` radii.
    pub(crate) fn winding_number_at(&self, p: DVec3, ratio: f64) -> f64 {
        let mut sum = 0.0;
        for coarse in &self.clusters {
            if let Some(w) = coarse.far_field(p, ratio) {
                sum += w;
                continue;
            }
            for fine in &self.fine_clusters[coarse.range.0 as usize..coarse.range.1 as usize] {
                if let Some(w) = fine.far_field(p, ratio) {
                    sum += w;
                    continue;
                }
                for &t in &self.cluster_tris[fine.range.0 as usize..fine.range.1 as usize] {
                    sum += solid_angle(self.tris[t as usize], p);
                }
            }
        }
        sum / (4.0 * std::f64::consts::PI)
    }
}

/// Signed solid angle of triangle `a b c` seen from `p` (Van Oosterom and Strackee), positive
/// when `p` is behind it (on the side its counter-clockwise normal points away from).
fn solid_angle([a, b, c]: [DVec3; 3], p: DVec3) -> f64 {
    let (a, b, c) = (a - p, b - p, c - p);
    let (la, lb, lc) = (a.length(), b.length(), c.length());
    let num = a.dot(b.cross(c));
    let den = la * lb * lc + a.dot(b) * lc + a.dot(c) * lb + b.dot(c) * la;
    2.0 * num.atan2(den)
}

/// The box of `points`: (infinity, -infinity) per axis when there are none.
#[inline]
pub(crate) fn bounds<'p>(points: impl IntoIterator<Item = &'p DVec3>) -> (DVec3, DVec3) {
    points.into_iter().fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), p| (lo.min(*p), hi.max(*p)))
}

/// The point of triangle `a b c` closest to `p` (Ericson, "Real-Time Collision Detection", 5.1.5).
pub(crate) fn closest_on_triangle(p: DVec3, a: DVec3, b: DVec3, c: DVec3) -> DVec3 {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return a;
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return b;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return a + ab * (d1 / (d1 - d3));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return a + ac * (d2 / (d2 - d6));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
    }
    let denom = 1.0 / (va + vb + vc);
    a + ab * (vb * denom) + ac * (vc * denom)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn winding_number_of_a_closed_box() {
        // An octahedron: inside 1, outside 0, with both the exact and the far-field terms.
        let v = [DVec3::X, DVec3::Y, DVec3::Z, -DVec3::X, -DVec3::Y, -DVec3::Z];
        let f = [[0, 1, 2], [1, 3, 2], [3, 4, 2], [4, 0, 2], [1, 0, 5], [3, 1, 5], [4, 3, 5], [0, 4, 5]];
        let tris: Vec<[DVec3; 3]> = f.iter().map(|t: &[usize; 3]| t.map(|k| v[k])).collect();
        let s = Surface::new(&tris, -DVec3::ONE, DVec3::ONE);
        assert!((s.winding_number(DVec3::splat(0.1)) - 1.0).abs() < 1e-9);
        assert!(s.winding_number(DVec3::splat(2.0)).abs() < 1e-3);
        assert!(s.winding_number(DVec3::new(0.0, 0.0, 40.0)).abs() < 1e-3);
        assert!((s.distance(DVec3::new(0.0, 0.0, 3.0)) - 2.0).abs() < 1e-12);
        assert!((s.distance(DVec3::ZERO) - 1.0 / 3f64.sqrt()).abs() < 1e-12);
    }
}
