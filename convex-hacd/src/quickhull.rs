//! Quickhull in 3D with thick planes, and in 2D for flat point sets (the article,
//! "Convex Hull Generation: Quickhull" and "Consistent Floating Point Treatment").
//!
//! Quickhull is sensitive to rounding when neighbouring triangles are nearly coplanar: one of them
//! may say a point is outside while the other says inside, and the horizon then makes inverted or
//! folded triangles (Valve's coplanar problem, quoted in the article). Here every triangle belongs to
//! a *thick plane*: a fixed normal and offset, shared by all triangles that were created within the
//! tolerance `eps` of it. The inside/outside question is asked once per plane and iteration, so
//! triangles of one plane can never disagree, while each triangle stays its own face (the article
//! keeps triangles apart, unlike Gregorius' face merging).
//!
//! Point sets that fit in a slab of width `eps` go to the 2D path (Andrew's monotone chain in the
//! slab's plane), as the article demands: running 3D Quickhull on them deletes input vertices.
//!
//! Everything is computed in `f64`; `eps` is the only tolerance, and callers derive it from the
//! quantization distance `s` (never below the float floor of the input).

use glam::DVec3;

use crate::metrics::bounds;

mod flat;

use flat::build_flat;

/// A plane `normal . p = offset`, `normal` of unit length and pointing out of the hull.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Plane {
    pub normal: DVec3,
    pub offset: f64,
}

impl Plane {
    #[inline]
    pub(crate) fn distance(&self, p: DVec3) -> f64 {
        self.normal.dot(p) - self.offset
    }
}

/// Why no hull with volume or area exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Degeneracy {
    /// Fewer than three points.
    TooFew,
    /// All points within `eps` of one point (per axis).
    Coincident,
    /// All points within `eps` of one line.
    Collinear,
    /// The 3D hull folded a face over a neighbour even with planes `eps / 4` thick (never seen on
    /// the test sets; the caller gets no hull rather than a wrong one).
    Folded,
}

/// A hull over indices of the input points.
#[derive(Clone, Debug, Default)]
pub(crate) struct RawHull {
    /// Input indices of the hull's vertices, ascending.
    pub vertices: Vec<u32>,
    /// Triangles as input indices, counter-clockwise seen from outside.
    pub triangles: Vec<[u32; 3]>,
    /// The thick plane of each triangle (index into `planes`).
    pub triangle_planes: Vec<u32>,
    /// For a solid hull: `adjacency[t][k]` is the triangle across the edge `k -> k + 1` of
    /// triangle `t`.
    pub adjacency: Vec<[u32; 3]>,
    /// The distinct planes bounding the hull. For a flat hull: its two sides, then one plane per
    /// polygon edge (a prism of zero thickness).
    pub planes: Vec<Plane>,
    /// Whether the points fit in a slab of width `eps` (a double-sided polygon).
    pub flat: bool,
    /// Area of the polygon when flat, else 0.
    pub flat_area: f64,
    /// How many of the first `triangles` are faces of the part the hull was grown from
    /// ([`grow_hull`]), with its planes unchanged; 0 for a hull built afresh.
    pub kept: usize,
}

impl RawHull {
    fn clear(&mut self) {
        self.vertices.clear();
        self.triangles.clear();
        self.triangle_planes.clear();
        self.adjacency.clear();
        self.planes.clear();
        self.flat = false;
        self.flat_area = 0.0;
        self.kept = 0;
    }
}

const NONE: u32 = u32::MAX;

/// The thickness of the 3D path's planes, from `eps` and the extent of the points.
///
/// A point found within the thickness of a plane is dropped as inside. Where two planes meet at a
/// shallow angle `theta` (a slab a little thicker than `eps`, seen from its rim), a plane distance
/// of `tau` is a distance of up to `tau / sin(theta)` along the surface, and `sin(theta)` can be
/// as small as about `eps / extent` before the set counts as flat. So `tau = eps^2 / (4 extent)`
/// keeps dropped points within about `eps / 4` of the surface (with `eps` at 1e-4 of the extent,
/// tau is 2.5e-9 of it, far above `f64` rounding). It is never below the `f32` float floor of the
/// coordinates, under which coplanar input faces would split on the input's own rounding. Flatness
/// (the 2D path) is still decided at the full `eps`, as the article says.
fn plane_thickness(eps: f64, extent: f64, max_abs: f64) -> f64 {
    (eps * eps / (4.0 * extent)).min(eps * 0.25).max(3.0 * f64::from(f32::EPSILON) * max_abs)
}

#[derive(Clone, Debug, Default)]
struct Face {
    v: [u32; 3],
    /// `adj[k]` is the face across the edge `v[k] -> v[k + 1]`.
    adj: [u32; 3],
    plane: u32,
    alive: bool,
    outside: Vec<u32>,
}

/// Reusable buffers of the hull builders: after a few calls of similar size, building a hull does
/// not allocate.
#[derive(Clone, Debug, Default)]
pub(crate) struct HullScratch {
    faces: Vec<Face>,
    used: usize,
    planes: Vec<Plane>,
    plane_stamp: Vec<u32>,
    plane_visible: Vec<bool>,
    face_stamp: Vec<u32>,
    face_visible: Vec<bool>,
    stamp: u32,
    pending: Vec<u32>,
    visible: Vec<u32>,
    horizon: Vec<(u32, u32, u32)>,
    vertex_edge: Vec<u32>,
    vertex_stamp: Vec<u32>,
    ordered: Vec<usize>,
    new_faces: Vec<u32>,
    /// The planes of `new_faces`, in the same order.
    new_planes: Vec<Plane>,
    orphans: Vec<u32>,
    plane_map: Vec<u32>,
    /// Face -> position among the output triangles.
    face_map: Vec<u32>,
    // 2D
    coords: Vec<(f64, f64, u32)>,
    chain: Vec<(f64, f64, u32)>,
    polygon: Vec<(f64, f64, u32)>,
    flat_indices: Vec<u32>,
    // Growing: the part's planes in columns (normal x, y, z, offset), and each plane's first face.
    columns: [Vec<f64>; 4],
    first_face: Vec<u32>,
    /// Eyes that could not be added because the visible region was not a disc (counted for tests).
    pub(crate) skipped_eyes: usize,
    /// How many hulls were rebuilt with thicker planes after a fold (a count for tests).
    pub(crate) fold_rebuilds: usize,
}

impl Face {
    /// Makes this slot a live face over `v` in thick plane `plane`, with no neighbours yet.
    #[inline]
    fn reset(&mut self, v: [u32; 3], plane: u32) {
        self.v = v;
        self.adj = [NONE; 3];
        self.plane = plane;
        self.alive = true;
        self.outside.clear();
    }
}

/// Appends `plane` with its per-iteration visibility slots; returns its index.
#[inline]
fn push_plane(planes: &mut Vec<Plane>, stamps: &mut Vec<u32>, visible: &mut Vec<bool>, plane: Plane) -> u32 {
    planes.push(plane);
    stamps.push(0);
    visible.push(false);
    (planes.len() - 1) as u32
}

impl HullScratch {
    /// Empties the face, plane and pending lists for a hull over `points` points (buffers keep
    /// their capacity), and sizes the per-point tables.
    fn start(&mut self, points: usize) {
        self.used = 0;
        self.planes.clear();
        self.plane_stamp.clear();
        self.plane_visible.clear();
        self.pending.clear();
        self.skipped_eyes = 0;
        if self.vertex_edge.len() < points {
            self.vertex_edge.resize(points, NONE);
            self.vertex_stamp.resize(points, 0);
        }
    }

    #[inline]
    fn new_face(&mut self, v: [u32; 3], plane: u32) -> u32 {
        let id = self.used;
        if id == self.faces.len() {
            self.faces.push(Face::default());
            self.face_stamp.push(0);
            self.face_visible.push(false);
        }
        self.faces[id].reset(v, plane);
        self.used += 1;
        id as u32
    }

    #[inline]
    fn new_plane(&mut self, plane: Plane) -> u32 {
        push_plane(&mut self.planes, &mut self.plane_stamp, &mut self.plane_visible, plane)
    }

    fn next_stamp(&mut self) -> u32 {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            // After 2^32 iterations old stamps could collide with new ones: clear them all.
            self.plane_stamp.iter_mut().for_each(|s| *s = 0);
            self.face_stamp.iter_mut().for_each(|s| *s = 0);
            self.vertex_stamp.iter_mut().for_each(|s| *s = 0);
            self.stamp = 1;
        }
        self.stamp
    }
}

/// A plane through the triangle `a b c` (counter-clockwise seen from its front); `None` when the
/// triangle has no usable normal.
fn triangle_plane(a: DVec3, b: DVec3, c: DVec3) -> Option<Plane> {
    let normal = (b - a).cross(c - a).try_normalize()?;
    Some(Plane { normal, offset: normal.dot((a + b + c) / 3.0) })
}

/// Builds the hull of `points` into `out` with tolerance `eps` (> 0, finite, points finite).
pub(crate) fn build_hull(
    points: &[DVec3],
    eps: f64,
    scratch: &mut HullScratch,
    out: &mut RawHull,
) -> Result<(), Degeneracy> {
    out.clear();
    if points.len() < 3 {
        return Err(Degeneracy::TooFew);
    }
    // Extreme points per axis; ties keep the lowest index so the result is order-stable.
    // The running extremes stay in registers (the points are finite, so `<` is a total order).
    let (mut min_v, mut max_v) = (points[0].to_array(), points[0].to_array());
    let (mut min_i, mut max_i) = ([0usize; 3], [0usize; 3]);
    let mut max_abs = 0.0f64;
    for (i, p) in points.iter().enumerate() {
        let p = p.to_array();
        for axis in 0..3 {
            if p[axis] < min_v[axis] {
                min_v[axis] = p[axis];
                min_i[axis] = i;
            }
            if p[axis] > max_v[axis] {
                max_v[axis] = p[axis];
                max_i[axis] = i;
            }
            max_abs = max_abs.max(p[axis].abs());
        }
    }
    let spread = |axis: usize| max_v[axis] - min_v[axis];
    let axis = (0..3).fold(0, |best, axis| if spread(axis) > spread(best) { axis } else { best });
    if spread(axis) <= eps {
        return Err(Degeneracy::Coincident);
    }
    let (a, b) = (min_i[axis], max_i[axis]);
    let dir = (points[b] - points[a]).normalize();
    let (mut c, mut best) = (usize::MAX, eps);
    for (i, p) in points.iter().enumerate() {
        let d = (*p - points[a]).cross(dir).length();
        if d > best {
            best = d;
            c = i;
        }
    }
    if c == usize::MAX {
        return Err(Degeneracy::Collinear);
    }
    let Some(base) = triangle_plane(points[a], points[b], points[c]) else {
        return Err(Degeneracy::Collinear);
    };
    let (mut lo, mut hi) = ((0usize, 0.0f64), (0usize, 0.0f64));
    for (i, p) in points.iter().enumerate() {
        let dist = base.distance(*p);
        if dist < lo.1 {
            lo = (i, dist);
        }
        if dist > hi.1 {
            hi = (i, dist);
        }
    }
    let d = if hi.1 >= -lo.1 { hi.0 } else { lo.0 };
    if hi.1 - lo.1 <= eps {
        // Every point lies in a slab of width eps parallel to the plane through a, b, c: the
        // article's flatness.
        let mut all = std::mem::take(&mut scratch.flat_indices);
        all.clear();
        all.extend(0..points.len() as u32);
        let result = build_flat(points, &all, base.normal, scratch, out);
        scratch.flat_indices = all;
        return result;
    }
    let tau = plane_thickness(eps, spread(axis), max_abs);
    build_3d(points, [a, b, c, d], base, tau, scratch, out)?;
    // A dropped eye (see `expand`) is a point the hull leaves outside: rebuilt as a fold is.
    if scratch.skipped_eyes > 0 || !faces_outward(points, out, eps) {
        // Planes far thinner than eps can fold a face over its neighbour where input points
        // scatter around one plane by more than the thickness but less than eps (fandisk: a CAD
        // face whose points lie within 4e-4 of one plane, 16 thicknesses). Planes eps / 4 thick
        // take those points in as coplanar; dropped points then stay within eps / 4 of the
        // surface, inside the tolerance promised.
        out.clear();
        scratch.fold_rebuilds += 1;
        build_3d(points, [a, b, c, d], base, (0.25 * eps).max(tau), scratch, out)?;
        if scratch.skipped_eyes > 0 || !faces_outward(points, out, eps) {
            return Err(Degeneracy::Folded);
        }
    }

    // Flatness is "fits in a slab of width eps" in any direction, not only the initial plane's:
    // a hull face whose plane has every vertex within eps behind it is such a slab.
    let mut slab = None;
    for plane in &out.planes {
        // Stops at the first vertex deeper than eps, which for a solid hull comes early.
        if out.vertices.iter().all(|&v| -plane.distance(points[v as usize]) <= eps) {
            // Confirmed on every point, not only the vertices: in a slab this thin, a point
            // within the planes' thickness can still lie well beside the 3D hull's rim.
            let (lo, hi) = points.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
                let d = plane.distance(*p);
                (lo.min(d), hi.max(d))
            });
            if hi - lo <= eps {
                slab = Some(plane.normal);
                break;
            }
        }
    }
    if let Some(normal) = slab {
        // All points, for the same reason: the polygon is then the exact hull of their
        // projections.
        let mut all = std::mem::take(&mut scratch.flat_indices);
        all.clear();
        all.extend(0..points.len() as u32);
        let result = build_flat(points, &all, normal, scratch, out);
        scratch.flat_indices = all;
        return result;
    }
    Ok(())
}

/// Whether every triangle of the solid hull `raw` (over `points`) faces away from the centroid
/// of its vertices, with the tolerance of a slab a few `eps` thick (triangles thinner than
/// `4 eps` are not judged), and the hull is convex within `eps` (see [`faces_outward_from`]). A
/// face folded over its neighbour faces into the hull.
fn faces_outward(points: &[DVec3], raw: &RawHull, eps: f64) -> bool {
    faces_outward_from(points, raw, eps, 0)
}

/// [`faces_outward`] for the triangles from `first` on (a grown hull's new faces: the part's
/// own faces were checked when its hull was built), then convexity: every triangle taller than
/// `4 eps` faces the way its plane does, and every edge of these triangles is convex, seen from
/// both sides. The centroid test alone let a fold through: a triangle flipped within a nearly
/// flat patch kept facing away from the centroid by less than its tolerance (13 points of a
/// chess-table collapse: a hull vertex 4.83 in front of a face, with `eps` 0.1).
fn faces_outward_from(points: &[DVec3], raw: &RawHull, eps: f64, first: usize) -> bool {
    if raw.vertices.is_empty() {
        return true;
    }
    let centroid = raw.vertices.iter().map(|&i| points[i as usize]).sum::<DVec3>() / raw.vertices.len() as f64;
    let first = first.min(raw.triangles.len());
    let facing = raw.triangles[first..].iter().zip(&raw.triangle_planes[first..]).all(|(t, &pl)| {
        let [a, b, c] = t.map(|i| points[i as usize]);
        let n = (b - a).cross(c - a);
        let longest = || (b - a).length().max((c - b).length()).max((a - c).length());
        if n.dot(raw.planes[pl as usize].normal) <= 0.0 && n.length() > 4.0 * eps * longest() {
            // A triangle tall enough to have a direction faces against its plane.
            return false;
        }
        let mid = (a + b + c) / 3.0;
        if n.dot(centroid - mid) <= 0.0 {
            // Facing away from the centroid: outward whatever the tolerance (the common case,
            // decided without a square root).
            return true;
        }
        let height = n.length() / longest();
        if !(height > 4.0 * eps) {
            return true;
        }
        n.dot(centroid - mid) / n.length() <= eps + 2.0 * eps * centroid.distance(mid) / height
    });
    if !facing || raw.adjacency.len() != raw.triangles.len() {
        return facing;
    }
    // Every edge convex: the far corner `w` of the triangle across it lies within `eps` behind
    // the plane of this one. Where it lies within `eps` of that plane (the two nearly coplanar),
    // it lies beyond the edge; or over this triangle, which is either a knife edge of a hull
    // thinner than `eps` there (fandisk's nearly flat parts: about a tenth of its builds) or a
    // triangle folded over its neighbour: then every vertex must lie within `eps` behind both
    // planes. A closed surface convex at every edge is convex.
    let behind_all = |pl: &Plane| raw.vertices.iter().all(|&v| pl.distance(points[v as usize]) <= eps);
    // Edge `k` of triangle `t` (to triangle `g`, whose edge `j` it is) seen from `t`: the far
    // corner of `g` and its distance `d` from the plane of `t`; `convex_from` judges a corner not
    // well behind (`d >= -eps`).
    let far = |t: usize, g: usize, j: usize| {
        let w = points[raw.triangles[g][(j + 2) % 3] as usize];
        (w, raw.planes[raw.triangle_planes[t] as usize].distance(w))
    };
    let convex_from = |t: usize, k: usize, g: usize, (w, d): (DVec3, f64)| {
        if d > eps {
            return false;
        }
        let tri = raw.triangles[t];
        let pl = &raw.planes[raw.triangle_planes[t] as usize];
        let (a, b) = (points[tri[k] as usize], points[tri[(k + 1) % 3] as usize]);
        let edge = b - a;
        edge.cross(w - a).dot(pl.normal) <= eps * edge.length()
            || (behind_all(pl) && behind_all(&raw.planes[raw.triangle_planes[g] as usize]))
    };
    let n = raw.triangles.len();
    for t in first..n {
        for k in 0..3 {
            let g = raw.adjacency[t][k] as usize;
            // Each edge once (new triangles' edges to the part's triangles, and between new
            // triangles from the lower index), but from both sides: with the tolerance, a small
            // triangle's far corner can lie within `eps` of a large neighbour's plane while the
            // large one's far corner lies well in front of the small one's.
            if g >= n || (g >= first && g < t) {
                continue;
            }
            let Some(j) = raw.adjacency[g].iter().position(|&x| x as usize == t) else { return false };
            // The common case, a far corner well behind the other plane, decided here.
            let from_t = far(t, g, j);
            if from_t.1 >= -eps && !convex_from(t, k, g, from_t) {
                return false;
            }
            let from_g = far(g, t, k);
            if from_g.1 >= -eps && !convex_from(g, j, t, from_g) {
                return false;
            }
        }
    }
    true
}

fn build_3d(
    points: &[DVec3],
    simplex: [usize; 4],
    base: Plane,
    eps: f64,
    s: &mut HullScratch,
    out: &mut RawHull,
) -> Result<(), Degeneracy> {
    s.start(points.len());
    let [a, mut b, mut c, d] = simplex.map(|i| i as u32);
    if base.distance(points[d as usize]) > 0.0 {
        // The base triangle must face away from the fourth point.
        std::mem::swap(&mut b, &mut c);
    }
    let tetra = [[a, b, c], [a, d, b], [a, c, d], [b, d, c]];
    for v in tetra {
        let [p0, p1, p2] = v.map(|i| points[i as usize]);
        // The four points are more than eps apart from each other's lines and planes, so every
        // face has a normal; the fallback only guards against the impossible.
        let plane = triangle_plane(p0, p1, p2).unwrap_or(base);
        let pl = s.new_plane(plane);
        s.new_face(v, pl);
    }
    // The faces across each edge of the tetrahedron above, by construction: face 0's edge a -> b
    // is face 1's b -> a, and so on (checked in debug builds).
    const ACROSS: [[u32; 3]; 4] = [[1, 3, 2], [2, 3, 0], [0, 3, 1], [1, 2, 0]];
    for (f, adj) in ACROSS.iter().enumerate() {
        s.faces[f].adj = *adj;
        #[cfg(debug_assertions)]
        for (k, &g) in adj.iter().enumerate() {
            let (from, to) = (s.faces[f].v[k], s.faces[f].v[(k + 1) % 3]);
            let gv = s.faces[g as usize].v;
            debug_assert!((0..3).any(|j| gv[j] == to && gv[(j + 1) % 3] == from), "tetrahedron adjacency");
        }
    }
    for (i, p) in points.iter().enumerate() {
        let i = i as u32;
        if tetra[0].contains(&i) || i == d {
            continue;
        }
        let mut best = (NONE, eps);
        for f in 0..4 {
            let dist = s.planes[s.faces[f].plane as usize].distance(*p);
            if dist > best.1 {
                best = (f as u32, dist);
            }
        }
        if best.0 != NONE {
            s.faces[best.0 as usize].outside.push(i);
        }
    }
    for f in (0..4).rev() {
        if !s.faces[f].outside.is_empty() {
            s.pending.push(f as u32);
        }
    }

    expand(points, eps, s);
    write_out(points, s, out);
    Ok(())
}

/// Planes per block when [`grow_hull`] assigns the added points.
const GROW_LANES: usize = 4;

/// Grows the solid hull of `points[..base]` (its triangles over those indices, each with the
/// index of its plane in `planes`) by the points after `base`, with the thickness a fresh build
/// of all `points` would use. `Err` when the grown hull folds (the caller builds it afresh then).
///
/// The planes must be numbered in the order of their first triangle (as [`write_out`] numbers
/// them, and as every solid hull it wrote keeps them): each added point goes to the first face of
/// the first plane it is farthest outside of, which is then the first such face.
#[allow(clippy::too_many_arguments)]
pub(crate) fn grow_hull(
    points: &[DVec3],
    base: usize,
    triangles: &[[u32; 3]],
    triangle_planes: &[u32],
    adjacency: &[[u32; 3]],
    planes: &[Plane],
    eps: f64,
    s: &mut HullScratch,
    out: &mut RawHull,
) -> Result<(), Degeneracy> {
    out.clear();
    if adjacency.len() != triangles.len() || triangle_planes.len() != triangles.len() {
        return Err(Degeneracy::Folded);
    }
    let (lo, hi) = bounds(points);
    let max_abs = points.iter().fold(0.0f64, |m, p| m.max(p.abs().max_element()));
    let tau = plane_thickness(eps, (hi - lo).max_element(), max_abs);
    s.start(points.len());
    for &plane in planes {
        s.new_plane(plane);
    }
    for (t, &pl) in triangles.iter().zip(triangle_planes) {
        s.new_face(*t, pl);
    }
    for (f, adj) in adjacency.iter().enumerate() {
        s.faces[f].adj = *adj;
    }
    // Each added point goes to the face it is farthest outside of (the first such face). Faces
    // of one plane are equally far, and the planes are numbered in the order of their first
    // face (as `write_out` numbers them), so that face is the first face of the first plane at
    // the largest distance: the distances are taken per plane, in columns and blocks the
    // compiler vectorizes, instead of per face.
    s.first_face.clear();
    s.first_face.resize(planes.len(), NONE);
    for (f, &pl) in triangle_planes.iter().enumerate() {
        if s.first_face[pl as usize] == NONE {
            s.first_face[pl as usize] = f as u32;
        }
    }
    debug_assert!(s.first_face.windows(2).all(|w| w[0] < w[1]), "planes not in first-use order");
    let padded = planes.len().div_ceil(GROW_LANES) * GROW_LANES;
    for (k, column) in s.columns.iter_mut().enumerate() {
        column.clear();
        column.extend(planes.iter().map(|pl| if k < 3 { pl.normal[k] } else { pl.offset }));
        // Padding: distance -infinity, never the farthest.
        column.resize(padded, if k < 3 { 0.0 } else { f64::INFINITY });
    }
    for (i, &p) in points.iter().enumerate().skip(base) {
        let [nx, ny, nz, offset] = &s.columns;
        let mut far = [f64::NEG_INFINITY; GROW_LANES];
        let mut at = [0u32; GROW_LANES];
        for block in 0..padded / GROW_LANES {
            let lane = |column: &[f64]| -> [f64; GROW_LANES] {
                let mut out = [0.0; GROW_LANES];
                out.copy_from_slice(&column[block * GROW_LANES..(block + 1) * GROW_LANES]);
                out
            };
            let (bx, by, bz, bo) = (lane(nx), lane(ny), lane(nz), lane(offset));
            for k in 0..GROW_LANES {
                // `Plane::distance`, term for term.
                let dist = bx[k] * p.x + by[k] * p.y + bz[k] * p.z - bo[k];
                if dist > far[k] {
                    far[k] = dist;
                    at[k] = (block * GROW_LANES + k) as u32;
                }
            }
        }
        // The largest distance; among lanes that reach it, the lowest plane.
        let mut best = (NONE, tau);
        for k in 0..GROW_LANES {
            if far[k] > best.1 || (far[k] == best.1 && best.0 != NONE && at[k] < best.0) {
                best = (at[k], far[k]);
            }
        }
        if best.0 != NONE {
            let f = s.first_face[best.0 as usize];
            s.faces[f as usize].outside.push(i as u32);
        }
    }
    for f in (0..s.used).rev() {
        if !s.faces[f].outside.is_empty() {
            s.pending.push(f as u32);
        }
    }
    expand(points, tau, s);
    if s.skipped_eyes > 0 {
        // An eye was dropped (see `expand`): the hull would leave that point outside, so the
        // caller builds it afresh instead.
        return Err(Degeneracy::Folded);
    }
    // The part's faces that survive come first in the output (faces are written in creation
    // order), the new faces after them.
    let kept = s.faces[..triangles.len()].iter().filter(|f| f.alive).count();
    write_out(points, s, out);
    out.kept = kept;
    if !faces_outward_from(points, out, eps, kept) {
        return Err(Degeneracy::Folded);
    }
    Ok(())
}

/// Copies the alive faces of `s` into `out`: their planes renumbered densely, vertices ascending.
fn write_out(points: &[DVec3], s: &mut HullScratch, out: &mut RawHull) {
    let faces = &s.faces[..s.used];
    let mut next = 0u32;
    s.face_map.clear();
    s.face_map.extend(faces.iter().map(|f| {
        let at = if f.alive { next } else { NONE };
        next += u32::from(f.alive);
        at
    }));
    let alive = next as usize;
    s.plane_map.clear();
    s.plane_map.resize(s.planes.len(), NONE);
    out.triangles.reserve(alive);
    out.triangle_planes.reserve(alive);
    out.adjacency.reserve(alive);
    let face_map = &s.face_map[..];
    for face in faces.iter().filter(|f| f.alive) {
        let pl = face.plane as usize;
        let mut at = s.plane_map[pl];
        if at == NONE {
            at = out.planes.len() as u32;
            s.plane_map[pl] = at;
            out.planes.push(s.planes[pl]);
        }
        out.triangles.push(face.v);
        out.triangle_planes.push(at);
        out.adjacency.push(face.adj.map(|g| face_map[g as usize]));
    }
    // Vertices ascending: marked, then read off in index order (cheaper than sorting the
    // corners, three per triangle, and dropping the repeats).
    let stamp = s.next_stamp();
    for t in &out.triangles {
        for &v in t {
            s.vertex_stamp[v as usize] = stamp;
        }
    }
    out.vertices.extend((0..points.len() as u32).filter(|&i| s.vertex_stamp[i as usize] == stamp));
}

/// The Quickhull loop: adds the farthest outside point of a pending face until none is left.
fn expand(points: &[DVec3], eps: f64, s: &mut HullScratch) {
    while let Some(f0) = s.pending.pop() {
        let f0 = f0 as usize;
        if !s.faces[f0].alive || s.faces[f0].outside.is_empty() {
            continue;
        }
        let plane0 = s.planes[s.faces[f0].plane as usize];
        let (mut eye_slot, mut best) = (0, f64::NEG_INFINITY);
        for (slot, &p) in s.faces[f0].outside.iter().enumerate() {
            let dist = plane0.distance(points[p as usize]);
            if dist > best {
                best = dist;
                eye_slot = slot;
            }
        }
        let eye = s.faces[f0].outside[eye_slot];
        let eye_p = points[eye as usize];
        let stamp = s.next_stamp();

        // Visible region: faces reachable from f0 whose thick plane sees the eye. The question
        // is answered once per plane, so coplanar triangles always agree.
        s.visible.clear();
        s.visible.push(f0 as u32);
        s.face_stamp[f0] = stamp;
        s.face_visible[f0] = true;
        let mut head = 0;
        let mut simple;
        loop {
            while head < s.visible.len() {
                let f = s.visible[head] as usize;
                head += 1;
                for k in 0..3 {
                    let nb = s.faces[f].adj[k] as usize;
                    if s.face_stamp[nb] == stamp {
                        continue;
                    }
                    s.face_stamp[nb] = stamp;
                    let pl = s.faces[nb].plane as usize;
                    if s.plane_stamp[pl] != stamp {
                        s.plane_stamp[pl] = stamp;
                        s.plane_visible[pl] = s.planes[pl].distance(eye_p) > eps;
                    }
                    s.face_visible[nb] = s.plane_visible[pl];
                    if s.face_visible[nb] {
                        s.visible.push(nb as u32);
                    }
                }
            }

            // Horizon: edges from a visible face to a hidden one, ordered into one loop below.
            s.horizon.clear();
            simple = true;
            for &f in &s.visible {
                let face = &s.faces[f as usize];
                for k in 0..3 {
                    let nb = face.adj[k] as usize;
                    if !(s.face_stamp[nb] == stamp && s.face_visible[nb]) {
                        let from = face.v[k];
                        if s.vertex_stamp[from as usize] == stamp {
                            // Two horizon edges leave one vertex: the region is pinched, not a disc.
                            simple = false;
                        }
                        s.vertex_stamp[from as usize] = stamp;
                        s.vertex_edge[from as usize] = s.horizon.len() as u32;
                        s.horizon.push((from, face.v[(k + 1) % 3], nb as u32));
                    }
                }
            }

            // A hidden neighbour whose thick plane holds the eye, with the eye beyond their
            // shared edge over it, is visible too: the new triangle on that edge would face
            // against it, folded over it (a point within the plane's thickness, seen by the face
            // on the other side of the edge but not by this one). It is removed with the visible
            // faces, and the search goes on from it.
            let before = s.visible.len();
            for &(from, to, nb) in &s.horizon {
                let nb = nb as usize;
                if s.face_visible[nb] {
                    continue;
                }
                let nb_pl = s.planes[s.faces[nb].plane as usize];
                if nb_pl.distance(eye_p) >= -eps
                    && triangle_plane(points[from as usize], points[to as usize], eye_p)
                        .is_some_and(|own| own.normal.dot(nb_pl.normal) <= 0.0)
                {
                    s.face_visible[nb] = true;
                    s.visible.push(nb as u32);
                }
            }
            if s.visible.len() == before {
                break;
            }
            for &(from, _, _) in &s.horizon {
                s.vertex_stamp[from as usize] = 0;
            }
        }
        s.ordered.clear();
        if simple && !s.horizon.is_empty() {
            let mut e = 0usize;
            loop {
                s.ordered.push(e);
                let to = s.horizon[e].1 as usize;
                if s.vertex_stamp[to] != stamp {
                    simple = false;
                    break;
                }
                e = s.vertex_edge[to] as usize;
                if e == 0 || s.ordered.len() > s.horizon.len() {
                    break;
                }
            }
            simple = simple && e == 0 && s.ordered.len() == s.horizon.len();
        }
        if !simple || s.horizon.is_empty() {
            // The visible region is not a disc. The fold rule above can make it so: an eye
            // nearly in the plane of a flat patch takes in patch faces whose thick planes hold
            // it, and those can ring a hidden face (a grown hull of the husky-wheel tyre's flat
            // side: a hidden face inside a ring of visible ones, the eye 16 units out).
            // Dropping the eye keeps the topology valid but leaves the point outside, so
            // `build_hull` and `grow_hull` refuse a hull with a dropped eye (counted here).
            s.faces[f0].outside.swap_remove(eye_slot);
            s.skipped_eyes += 1;
            if !s.faces[f0].outside.is_empty() {
                s.pending.push(f0 as u32);
            }
            continue;
        }

        // New faces from each horizon edge to the eye. The scratch is taken apart so that the
        // loop keeps its slices in registers instead of reloading them after every store.
        let HullScratch {
            faces,
            used,
            planes,
            plane_stamp,
            plane_visible,
            face_stamp,
            face_visible,
            horizon,
            ordered,
            new_faces,
            new_planes,
            ..
        } = &mut *s;
        new_faces.clear();
        new_planes.clear();
        let first_new_plane = planes.len() as u32;
        let mut prev_plane = NONE;
        // Room for every new face first, so the loop writes into a fixed slice.
        let n_new = ordered.len();
        if faces.len() < *used + n_new {
            faces.resize_with(*used + n_new, Face::default);
            face_stamp.resize(*used + n_new, 0);
            face_visible.resize(*used + n_new, false);
        }
        let faces = &mut faces[..];
        for &e in ordered.iter() {
            let (from, to, nb) = horizon[e];
            let nb_plane = faces[nb as usize].plane;
            let nb_pl = planes[nb_plane as usize];
            let on_nb_plane = nb_pl.distance(eye_p) >= -eps;
            let own = triangle_plane(points[from as usize], points[to as usize], eye_p);
            let plane = match own {
                // A triangle with no normal lies on its horizon edge: it belongs with the neighbour.
                None => nb_plane,
                // The eye lies in the neighbour's thick plane and the triangle extends it outward
                // (same facing): it joins that plane. In a slab barely thicker than eps, a bottom
                // triangle can lie within eps of the top plane; the facing keeps it apart.
                Some(own) if on_nb_plane && own.normal.dot(nb_pl.normal) > 0.0 => nb_plane,
                // Consecutive new triangles that fit one thick plane share it.
                Some(own)
                    if prev_plane != NONE
                        && prev_plane >= first_new_plane
                        && planes[prev_plane as usize].distance(points[to as usize]).abs() <= eps
                        && planes[prev_plane as usize].normal.dot(own.normal) > 0.0 =>
                {
                    prev_plane
                }
                Some(own) => push_plane(planes, plane_stamp, plane_visible, own),
            };
            prev_plane = plane;
            let id = *used;
            faces[id].reset([from, to, eye], plane);
            faces[id].adj[0] = nb;
            *used += 1;
            let nf = id as u32;
            let nbf = &mut faces[nb as usize];
            for j in 0..3 {
                if nbf.v[j] == to && nbf.v[(j + 1) % 3] == from {
                    nbf.adj[j] = nf;
                }
            }
            new_faces.push(nf);
            // The new faces' planes side by side, so the loop over orphans reads one array.
            new_planes.push(planes[plane as usize]);
        }
        let mut prev = s.new_faces[n_new - 1];
        for i in 0..n_new {
            let nf = s.new_faces[i];
            let next = s.new_faces[if i + 1 == n_new { 0 } else { i + 1 }];
            s.faces[nf as usize].adj[1] = next;
            s.faces[nf as usize].adj[2] = prev;
            prev = nf;
        }

        // Points outside the deleted faces go to the new face they are farthest outside of;
        // the rest are inside the grown hull (within eps) and are dropped for good.
        s.orphans.clear();
        for vi in 0..s.visible.len() {
            let f = s.visible[vi] as usize;
            s.faces[f].alive = false;
            let outside = std::mem::take(&mut s.faces[f].outside);
            s.orphans.extend(outside.iter().copied().filter(|&p| p != eye));
            s.faces[f].outside = outside;
            s.faces[f].outside.clear();
        }
        for oi in 0..s.orphans.len() {
            let p = s.orphans[oi];
            let pp = points[p as usize];
            let mut best = (NONE, eps);
            for (k, plane) in s.new_planes.iter().enumerate() {
                let dist = plane.distance(pp);
                if dist > best.1 {
                    best = (k as u32, dist);
                }
            }
            if best.0 != NONE {
                let nf = s.new_faces[best.0 as usize];
                s.faces[nf as usize].outside.push(p);
            }
        }
        for i in (0..n_new).rev() {
            let nf = s.new_faces[i];
            if !s.faces[nf as usize].outside.is_empty() {
                s.pending.push(nf);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hull(points: &[DVec3]) -> Result<RawHull, Degeneracy> {
        let mut out = RawHull::default();
        build_hull(points, 1e-6, &mut HullScratch::default(), &mut out).map(|()| out)
    }

    #[test]
    fn tetrahedron_has_four_faces() {
        let h = hull(&[DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z]).unwrap();
        assert_eq!(h.triangles.len(), 4);
        assert!(!h.flat);
    }

    #[test]
    fn cube_faces_share_six_planes() {
        let mut pts = Vec::new();
        for i in 0..27u8 {
            pts.push(DVec3::new(f64::from(i % 3), f64::from((i / 3) % 3), f64::from(i / 9)));
        }
        let h = hull(&pts).unwrap();
        // Exact ties may make a lattice point on an edge or face an eye; it then stays a vertex
        // (on the hull, not a corner), but it can never split a face's plane.
        assert_eq!(h.planes.len(), 6);
        for corner in [0, 2, 6, 8, 18, 20, 24, 26] {
            assert!(h.vertices.contains(&corner));
        }
    }

    #[test]
    fn square_is_flat() {
        let h = hull(&[DVec3::ZERO, DVec3::X, DVec3::new(1.0, 1.0, 0.0), DVec3::Y, DVec3::new(0.5, 0.5, 0.0)]).unwrap();
        assert!(h.flat);
        assert_eq!(h.vertices, [0, 1, 2, 3]);
        assert!((h.flat_area - 1.0).abs() < 1e-12);
    }

    #[test]
    fn degeneracies() {
        assert_eq!(hull(&[DVec3::ZERO, DVec3::X]).unwrap_err(), Degeneracy::TooFew);
        assert_eq!(hull(&[DVec3::ZERO; 5]).unwrap_err(), Degeneracy::Coincident);
        assert_eq!(hull(&[DVec3::ZERO, DVec3::X, DVec3::X * 2.0]).unwrap_err(), Degeneracy::Collinear);
    }

    /// Growing a hull by more points gives the fresh hull of all of them: the same vertices (for
    /// points in general position), every triangle outward, every point inside, and a closed
    /// adjacency.
    #[test]
    fn grown_hull_matches_a_fresh_build() {
        // A deterministic scatter on and inside a sphere (general position).
        let mut seed = 12345u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut points = Vec::new();
        for _ in 0..120 {
            let d = DVec3::new(next() - 0.5, next() - 0.5, next() - 0.5).normalize() * 100.0;
            points.push(d * if next() < 0.7 { 1.0 } else { 0.5 });
        }
        let eps = 0.01;
        let mut scratch = HullScratch::default();
        for base in [60, 100, 117] {
            let mut first = RawHull::default();
            build_hull(&points[..base], eps, &mut scratch, &mut first).unwrap();
            assert!(!first.flat);
            let mut grown = RawHull::default();
            grow_hull(
                &points,
                base,
                &first.triangles,
                &first.triangle_planes,
                &first.adjacency,
                &first.planes,
                eps,
                &mut scratch,
                &mut grown,
            )
            .unwrap();
            let mut fresh = RawHull::default();
            build_hull(&points, eps, &mut scratch, &mut fresh).unwrap();
            assert_eq!(grown.vertices, fresh.vertices, "grown from {base}");
            assert!(faces_outward(&points, &grown, eps));
            for p in &points {
                let outside = grown.planes.iter().map(|pl| pl.distance(*p)).fold(f64::NEG_INFINITY, f64::max);
                assert!(outside <= eps, "{p} is {outside} outside");
            }
            for (t, adj) in grown.triangles.iter().zip(&grown.adjacency) {
                for k in 0..3 {
                    let (from, to) = (t[k], t[(k + 1) % 3]);
                    let other = grown.triangles[adj[k] as usize];
                    assert!((0..3).any(|j| other[j] == to && other[(j + 1) % 3] == from));
                }
            }
        }
    }

    /// Twenty points of two parts of fandisk that the decomposition merged (sixteen of one hull,
    /// four of a triangle, three of them repeated): the hull had a folded face.
    #[test]
    fn fandisk_merge_has_no_folded_face() {
        let points = [
            DVec3::new(-460.28179858624634, 27.79093612100689, -6.961576809376249),
            DVec3::new(-444.7304597239227, 28.706150667262868, 0.5720318217533751),
            DVec3::new(-442.31383212313955, 27.295232792357222, -16.073989631690246),
            DVec3::new(-460.28198926218624, 26.055792627985927, -25.651647122511278),
            DVec3::new(-460.2821799381262, 29.411700526089252, 11.739904136140574),
            DVec3::new(-446.14870671392515, 29.773931278352695, 13.564673373148409),
            DVec3::new(-435.2811320692959, 26.684968533021824, -20.1601780022283),
            DVec3::new(-441.33642735736845, 26.055792627985927, -25.651647122511278),
            DVec3::new(-460.2821799381262, 7.426730556509725, -23.86120070402238),
            DVec3::new(-460.28198926218624, 30.89899235478538, 30.452841174725968),
            DVec3::new(-443.2319376849454, 31.261223107048824, 31.129750800880917),
            DVec3::new(-460.2821799381262, 32.271905095542905, 49.175324957535175),
            DVec3::new(-442.6017531209216, 32.767608424192574, 51.40621723989259),
            DVec3::new(-460.2821799381262, 12.23174330641394, 31.882920729109404),
            DVec3::new(-460.28198926218624, 33.530256905614706, 67.9096171537355),
            DVec3::new(-442.191419279459, 33.873576012177644, 67.88902346262414),
            DVec3::new(-460.2821799381262, 12.23174330641394, 31.882920729109404),
            DVec3::new(-460.2821799381262, 13.585562558723842, 50.48907061444846),
            DVec3::new(-460.2821799381262, 32.271905095542905, 49.175324957535175),
            DVec3::new(-460.28198926218624, 30.89899235478538, 30.452841174725968),
        ];
        let eps = 0.1;
        let mut out = RawHull::default();
        let mut scratch = HullScratch::default();
        // With planes eps^2 / (4 extent) thick alone, one triangle of the x = -460.28 face (its
        // points scatter by 4e-4 around it) folded over its neighbours, facing into the hull.
        build_hull(&points, eps, &mut scratch, &mut out).unwrap();
        // The thin planes did fold here, so this exercises the rebuild.
        assert_eq!(scratch.fold_rebuilds, 1);
        assert!(!out.flat);
        assert!(faces_outward(&points, &out, eps));
        assert_eq!(scratch.skipped_eyes, 0);
        for p in points {
            let outside = out.planes.iter().map(|pl| pl.distance(p)).fold(f64::NEG_INFINITY, f64::max);
            assert!(outside <= eps, "{p} is {outside} outside");
        }
    }

    #[test]
    fn an_eye_in_a_neighbours_plane_beyond_its_edge_removes_it() {
        // 12 points of a chess-table collapse, nearly flat around points 0, 1, 2, 3, 7, 9. Eye 2
        // lies within the thickness of the plane of the face across edge 9-1 and beyond that
        // edge, over the face: the new triangle 9-1-2 faced against it, and later eyes built a
        // fold on it (a vertex 4.83 in front of a face). The face is now removed with the
        // visible ones, so no fold is left for the check to catch.
        let points = [
            DVec3::new(28.063688278198242, -169.84381103515625, -57.186424255371094),
            DVec3::new(21.105239868164062, -168.74609375, -64.9555435180664),
            DVec3::new(44.56117630004883, -169.84381103515625, -45.200347900390625),
            DVec3::new(21.818580627441406, -167.6483612060547, -67.1510009765625),
            DVec3::new(10.909290313720703, -165.45314025878906, -67.1510009765625),
            DVec3::new(21.818580627441406, -165.45314025878906, -67.1510009765625),
            DVec3::new(48.295677185058594, -167.6483612060547, -47.91374969482422),
            DVec3::new(55.25412368774414, -168.74609375, -40.144630432128906),
            DVec3::new(39.469974517822266, -165.45314025878906, -54.326168060302734),
            DVec3::new(53.38687515258789, -169.84381103515625, -38.78792953491211),
            DVec3::new(30.64427947998047, -165.45314025878906, -60.738582611083984),
            DVec3::new(30.64427947998047, -163.2579345703125, -60.738582611083984),
        ];
        let eps = 0.1;
        let mut out = RawHull::default();
        let mut scratch = HullScratch::default();
        build_hull(&points, eps, &mut scratch, &mut out).unwrap();
        assert_eq!(scratch.fold_rebuilds, 0);
        assert_eq!(scratch.skipped_eyes, 0);
        assert!(faces_outward(&points, &out, eps));
        for (t, tri) in out.triangles.iter().enumerate() {
            let plane = out.planes[out.triangle_planes[t] as usize];
            for &v in &out.vertices {
                let d = plane.distance(points[v as usize]);
                assert!(d <= eps, "vertex {v} is {d} in front of triangle {tri:?}");
            }
        }
    }

    #[test]
    fn an_edge_is_judged_from_both_sides() {
        // A large triangle A B C and a small one B A W share the edge A-B. W lies 0.05 above the
        // large one's plane and beyond the edge, which passes from that side; but C lies 0.5 in
        // front of the small one's plane. D closes the surface below. Whichever comes first, the
        // surface is not convex within 0.1 (a review found the verdict depended on the order).
        let points = [
            DVec3::ZERO,
            DVec3::X,
            DVec3::new(0.5, 10.0, 0.0),
            DVec3::new(0.5, -1.0, 0.05),
            DVec3::new(0.5, 3.0, -5.0),
        ];
        let (a, b, c, w, d) = (0, 1, 2, 3, 4);
        let faces = [[a, b, c], [b, a, w], [c, b, d], [a, c, d], [w, a, d], [b, w, d]];
        for order in [[0, 1, 2, 3, 4, 5], [1, 0, 2, 3, 4, 5]] {
            let triangles: Vec<[u32; 3]> = order.iter().map(|&i| faces[i]).collect();
            let mut raw = RawHull { vertices: vec![0, 1, 2, 3, 4], ..RawHull::default() };
            for (i, t) in triangles.iter().enumerate() {
                raw.planes
                    .push(triangle_plane(points[t[0] as usize], points[t[1] as usize], points[t[2] as usize]).unwrap());
                raw.triangle_planes.push(i as u32);
                raw.adjacency.push([0, 1, 2].map(|k| {
                    let (from, to) = (t[k], t[(k + 1) % 3]);
                    let across = (0..3).find(|&j| triangles.iter().any(|u| u[j] == to && u[(j + 1) % 3] == from));
                    across.and_then(|j| triangles.iter().position(|u| u[j] == to && u[(j + 1) % 3] == from)).unwrap()
                        as u32
                }));
            }
            raw.triangles = triangles;
            assert!(!faces_outward(&points, &raw, 0.1), "order {order:?}");
        }
    }

    /// Grows the hull of `part` by `added` as a decomposition does (the part's hull in its own
    /// vertices first); on `Err`, builds all of them afresh. Either way, every point must lie within
    /// `eps` of the hull's planes, and the hull must be closed. Returns whether the grow refused.
    fn grow_or_build(part: &[DVec3], added: &[DVec3], eps: f64) -> bool {
        let mut scratch = HullScratch::default();
        let mut first = RawHull::default();
        if build_hull(part, eps, &mut scratch, &mut first).is_err() || first.flat {
            return false;
        }
        let points: Vec<DVec3> =
            first.vertices.iter().map(|&i| part[i as usize]).chain(added.iter().copied()).collect();
        let local = |i: u32| first.vertices.binary_search(&i).unwrap() as u32;
        let triangles: Vec<[u32; 3]> = first.triangles.iter().map(|t| t.map(local)).collect();
        let mut out = RawHull::default();
        let base = first.vertices.len();
        let grown = grow_hull(
            &points,
            base,
            &triangles,
            &first.triangle_planes,
            &first.adjacency,
            &first.planes,
            eps,
            &mut scratch,
            &mut out,
        );
        let refused = grown.is_err();
        if refused {
            build_hull(&points, eps, &mut scratch, &mut out).unwrap();
        }
        for p in &points {
            let outside = out.planes.iter().map(|pl| pl.distance(*p)).fold(f64::NEG_INFINITY, f64::max);
            assert!(outside <= eps, "{p} is {outside} outside (grow refused: {refused})");
        }
        for (t, adj) in out.triangles.iter().zip(&out.adjacency) {
            for k in 0..3 {
                let other = out.triangles[adj[k] as usize];
                assert!((0..3).any(|j| other[j] == t[(k + 1) % 3] && other[(j + 1) % 3] == t[k]));
            }
        }
        refused
    }

    /// Seven points of the husky-wheel tyre (its flat side at y = -22.326, scattered by 4e-5, and
    /// one point off it): growing the hull of the first five by the last two met a visible region
    /// that was not a disc (the fold rule took in flat-side faces ringing a hidden one), dropped
    /// the eye and returned a hull with a point 16 units outside (at the defaults, a hull of the
    /// tyre left eight of its triangles up to 0.91% of the diagonal outside). The grow now refuses,
    /// and the fresh build holds every point.
    #[test]
    fn a_grown_hull_never_drops_a_point() {
        let part = [
            DVec3::new(14.007521096868679, -22.326218292874806, 19.525411930564353),
            DVec3::new(56.60904379164142, -22.326252347461228, 0.85560314675276),
            DVec3::new(-0.9029233043770852, -22.326252347461228, 56.656363949265746),
            DVec3::new(23.81126545837222, -22.3262549670448, -3.666473949142524),
            DVec3::new(114.62455248082108, -4.465255053763495, 50.460304842407105),
        ];
        let added = [
            DVec3::new(55.38021809521151, -22.32628640204765, -112.12253582060488),
            DVec3::new(108.22790662077324, -22.32640428330834, 62.51323937536721),
        ];
        assert!(grow_or_build(&part, &added, 0.1), "the grow met the pinched region");
    }

    /// Generated cases of the same kind: a nearly flat patch (scattered by up to 1e-4, about twice
    /// the planes' thickness) with one point above it, grown by points far out in the patch's
    /// plane. About one case in 1500 meets a visible region that is not a disc.
    #[test]
    fn grown_hulls_of_nearly_flat_patches_hold_every_point() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut rnd = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut refused = 0;
        for _ in 0..20_000 {
            let noise = 1e-4 * rnd();
            let n = 4 + (rnd() * 8.0) as usize;
            let mut part: Vec<DVec3> =
                (0..n).map(|_| DVec3::new(rnd() * 120.0 - 60.0, (rnd() - 0.5) * noise, rnd() * 120.0 - 60.0)).collect();
            part.push(DVec3::new(rnd() * 100.0 - 50.0, 5.0 + 20.0 * rnd(), rnd() * 100.0 - 50.0));
            let m = 1 + (rnd() * 3.0) as usize;
            let added: Vec<DVec3> = (0..m)
                .map(|_| DVec3::new(rnd() * 300.0 - 150.0, (rnd() - 0.5) * noise, rnd() * 300.0 - 150.0))
                .collect();
            refused += usize::from(grow_or_build(&part, &added, 0.1));
        }
        // The generator does reach the case (else the test would test nothing).
        assert!(refused > 0);
    }
}
