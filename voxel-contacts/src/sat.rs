//! Per-triangle kernel for boxes and convex polyhedra: the separating-axis test, then clipping.
//!
//! Why SAT and not GJK/EPA: against a single triangle the candidate axes are few (the triangle's
//! normal, the shape's face normals, and shape edge x triangle edge), the answer is exact for
//! polytopes when overlapping, deterministic, and has no iteration limit or degenerate simplex to
//! fail on; the winning axis also names the triangle feature the voiding pass needs (triangle
//! normal: face; shape face: the triangle's deepest vertex or edge; edge pair: the triangle edge),
//! which GJK would have to recover afterwards. When separated by less than the contact distance,
//! the contact comes from the exact closest features (shape vertex against the triangle, triangle
//! vertex against a shape face, edge against edge), so delayed contacts are ordered by true
//! distance.

use glam::{Mat3, Vec3};

use crate::closest::{closest_on_triangle, closest_segments, triangle_normal};
use crate::kernel::{Local, Outcome, RawPoint};
use crate::shape::PolyView;

/// Reused clipping buffers.
#[derive(Clone, Debug, Default)]
pub(crate) struct ClipScratch {
    a: Vec<Vec3>,
    b: Vec<Vec3>,
    /// The polygon is `a[..len]`; the buffers are sized once per shape and written by index
    /// (pushes re-checked capacity and stored the length through memory on every vertex).
    len: usize,
}

impl ClipScratch {
    /// Loads a polygon that will be clipped by at most `planes` planes (each adds a vertex at
    /// most).
    fn start(&mut self, points: impl ExactSizeIterator<Item = Vec3>, planes: usize) {
        let room = points.len() + planes + 1;
        if self.a.len() < room {
            self.a.resize(room, Vec3::ZERO);
            self.b.resize(room, Vec3::ZERO);
        }
        self.len = 0;
        for (slot, p) in self.a.iter_mut().zip(points) {
            *slot = p;
            self.len += 1;
        }
    }

    fn points(&self) -> &[Vec3] {
        &self.a[..self.len]
    }

    /// Clips the polygon by the half-space `side . (x - origin) >= 0`.
    fn clip(&mut self, side: Vec3, origin: Vec3) {
        let (src, dst) = (&self.a[..self.len], &mut self.b);
        let Some(&last) = src.last() else { return };
        // Walk the edges (previous, current) without an index modulo (a division per vertex).
        let offset = side.dot(origin);
        let mut p = last;
        let mut dp = side.dot(p) - offset;
        let mut k = 0;
        for &q in src {
            let dq = side.dot(q) - offset;
            // A convex loop gains one vertex per plane at most (`start` made room for that);
            // the guard keeps a malformed one from writing past the buffer.
            if (dp >= 0.0) != (dq >= 0.0) && k < dst.len() {
                let s = dp / (dp - dq);
                dst[k] = p + (q - p) * s;
                k += 1;
            }
            if dq >= 0.0 && k < dst.len() {
                dst[k] = q;
                k += 1;
            }
            p = q;
            dp = dq;
        }
        self.len = k;
        core::mem::swap(&mut self.a, &mut self.b);
    }
}

/// A polytope placed in the mesh's frame, with its rotation's inverse computed once per query.
pub(crate) struct Placed<'a> {
    pub(crate) poly: PolyView<'a>,
    pub(crate) rotation: Mat3,
    pub(crate) inverse: Mat3,
    pub(crate) translation: Vec3,
    /// Size of the shape, for tolerances.
    pub(crate) scale: f32,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Axis {
    Triangle,
    Face(usize),
    /// Direction class and the axis itself (local frame, triangle towards shape).
    Edge(usize, Vec3),
}

/// Clips the shape's face most opposed to `n` (the incident face) to the triangle's prism, into
/// the scratch.
fn incident_over_triangle(poly: &PolyView<'_>, t: &[Vec3; 3], n: Vec3, scratch: &mut ClipScratch) {
    clip_face(poly, incident_face(poly, n), t, n, scratch);
}

/// True when some of the shape's underside (its downward faces) over the triangle (inside its
/// prism) lies lower than `threshold` over the triangle's plane. Faces whose every vertex is
/// higher are not clipped; the incident face is clipped last, so when the answer is false its
/// clip is left in the scratch as `incident_over_triangle` leaves it.
fn underside_below(poly: &PolyView<'_>, t: &[Vec3; 3], n: Vec3, threshold: f32, scratch: &mut ClipScratch) -> bool {
    let inc = incident_face(poly, n);
    let d0 = n.dot(t[0]);
    let below = |p: &Vec3| n.dot(*p) - d0 < threshold;
    for (f, &m) in poly.normals.iter().enumerate() {
        if f == inc || !(m.dot(n) < 0.0) {
            continue;
        }
        let face = &poly.face_indices[poly.face_starts[f] as usize..poly.face_starts[f + 1] as usize];
        if !face.iter().any(|&i| below(&poly.points[i as usize])) {
            continue;
        }
        clip_face(poly, f, t, n, scratch);
        if scratch.points().iter().any(below) {
            return true;
        }
    }
    clip_face(poly, inc, t, n, scratch);
    scratch.points().iter().any(below)
}

/// The shape's face most opposed to `n`.
fn incident_face(poly: &PolyView<'_>, n: Vec3) -> usize {
    let mut inc = 0;
    let mut lowest = f32::INFINITY;
    for (f, &m) in poly.normals.iter().enumerate() {
        let d = m.dot(n);
        if d < lowest {
            lowest = d;
            inc = f;
        }
    }
    inc
}

/// Face `f` clipped to the prism of triangle `t` (normal `n`), into the scratch.
fn clip_face(poly: &PolyView<'_>, f: usize, t: &[Vec3; 3], n: Vec3, scratch: &mut ClipScratch) {
    let face = &poly.face_indices[poly.face_starts[f] as usize..poly.face_starts[f + 1] as usize];
    scratch.start(face.iter().map(|&i| poly.points[i as usize]), 3);
    for k in 0..3 {
        scratch.clip(n.cross(t[(k + 1) % 3] - t[k]), t[k]);
    }
}

/// When overlapping, another axis replaces the triangle's normal only if it needs less push than
/// the normal by more than this fraction of its own (shapes tilted up to about 35 degrees on flat
/// ground keep the ground's normal).
const FACE_PREFERENCE: f32 = 0.2;

/// The closest features of a polytope and a triangle known to be disjoint: distance, the point
/// on the triangle, the point on the shape, and the triangle's feature. For disjoint convex
/// polytopes the closest pair is a shape vertex against the triangle, a triangle vertex against
/// a shape face, or an edge against an edge; all three families are tried. `axis` separates the
/// two (the triangle's side of it ends at `top`), so a feature's height over `top` along it is a
/// lower bound of its distance, and features that cannot beat the best pair so far are skipped.
fn closest_features(poly: &PolyView<'_>, t: &[Vec3; 3], axis: Vec3, top: f32) -> (f32, Vec3, Vec3, Local) {
    let mut best = (f32::INFINITY, t[0], poly.points[0], Local::Vertex(0));
    let beaten = |lower: f32, best: f32| lower > 0.0 && lower * lower >= best;
    for &v in poly.points {
        if beaten(axis.dot(v) - top, best.0) {
            continue;
        }
        let (q, f) = closest_on_triangle(v, t);
        let d = v.distance_squared(q);
        if d < best.0 {
            best = (d, q, v, f);
        }
    }
    for (f, &m) in poly.normals.iter().enumerate() {
        let face = &poly.face_indices[poly.face_starts[f] as usize..poly.face_starts[f + 1] as usize];
        for (i, &p) in t.iter().enumerate() {
            let h = m.dot(p) - poly.offsets[f];
            if !(h > 0.0) || h * h >= best.0 {
                continue;
            }
            let foot = p - m * h;
            let inside = face.iter().enumerate().all(|(k, &a)| {
                let a = poly.points[a as usize];
                let b = poly.points[face[(k + 1) % face.len()] as usize];
                m.cross(b - a).dot(foot - a) >= 0.0
            });
            if inside {
                best = (h * h, p, foot, Local::Vertex(i as u8));
            }
        }
    }
    for edge in poly.edges {
        let (a, b) = (poly.points[edge[0] as usize], poly.points[edge[1] as usize]);
        if beaten(axis.dot(a).min(axis.dot(b)) - top, best.0) {
            continue;
        }
        for k in 0..3 {
            let j = (k + 1) % 3;
            let (u, _, on_tri, on_shape) = closest_segments(t[k], t[j], a, b);
            let d = on_tri.distance_squared(on_shape);
            if d < best.0 {
                let f = if u <= 0.0 {
                    Local::Vertex(k as u8)
                } else if u >= 1.0 {
                    Local::Vertex(j as u8)
                } else {
                    Local::edge(k as u8, j as u8)
                };
                best = (d, on_tri, on_shape, f);
            }
        }
    }
    (best.0.sqrt(), best.1, best.2, best.3)
}

/// The triangle's feature nearest the shape along `a` (its vertices highest along `a`, within
/// `tol`), and the vertices' heights.
fn support(t: &[Vec3; 3], a: Vec3, tol: f32) -> (Local, [f32; 3]) {
    let h = t.map(|p| a.dot(p));
    let top = h[0].max(h[1]).max(h[2]);
    let near: [bool; 3] = core::array::from_fn(|i| h[i] >= top - tol);
    let feature = match near {
        [true, true, true] => Local::Face,
        [true, true, false] => Local::edge(0, 1),
        [true, false, true] => Local::edge(0, 2),
        [false, true, true] => Local::edge(1, 2),
        [true, false, false] => Local::Vertex(0),
        [false, true, false] => Local::Vertex(1),
        _ => Local::Vertex(2),
    };
    (feature, h)
}

#[inline]
pub(crate) fn project(points: &[Vec3], axis: Vec3) -> (f32, f32) {
    let mut lo = f32::INFINITY;
    let mut hi = f32::NEG_INFINITY;
    for &p in points {
        let d = axis.dot(p);
        lo = lo.min(d);
        hi = hi.max(d);
    }
    (lo, hi)
}

pub(crate) fn polytope(
    shape: &Placed<'_>,
    margin: f32,
    world: &[Vec3; 3],
    scratch: &mut ClipScratch,
    out: &mut Vec<RawPoint>,
) -> Outcome {
    let poly = &shape.poly;
    let t = world.map(|p| shape.inverse * (p - shape.translation));
    // The shape's own axes first, as boxes (its local bounds against the triangle's): the world
    // box of a turned shape is loose, and this rejects most of what it lets through for six
    // comparisons.
    let lo = t[0].min(t[1]).min(t[2]);
    let hi = t[0].max(t[1]).max(t[2]);
    let (bmin, bmax) = poly.bounds;
    if (lo - bmax).max_element() > margin || (bmin - hi).max_element() > margin {
        return Outcome::Far;
    }
    let Some(n) = triangle_normal(&t) else { return Outcome::Degenerate };
    let d0 = n.dot(t[0]);
    let (pmin, pmax) = poly.project(n);
    // The whole shape behind the triangle's plane.
    if pmax < d0 {
        if pmax < d0 - margin {
            return Outcome::Culled;
        }
        // Within reach behind the plane: the distance for the voiding pass. Wholly behind the
        // plane, the shape is disjoint from the triangle (or touches it), and -n separates them.
        let (distance, ..) = closest_features(poly, &t, -n, -d0);
        return if distance <= margin { Outcome::Behind { distance } } else { Outcome::Culled };
    }
    let tol = 1e-4 * (1.0 + shape.scale);
    let mut best_sep = pmin - d0;
    if best_sep > margin {
        return Outcome::Far;
    }
    let mut best = Axis::Triangle;
    // Shape faces, as axes from the triangle to the shape (-m); only those facing the triangle's
    // front, since the triangle is one-sided. A shape face must beat the triangle's normal by `tol`.
    let mut face_best = best_sep + tol;
    for (f, &m) in poly.normals.iter().enumerate() {
        if -m.dot(n) < -1e-4 {
            continue;
        }
        // A box's faces are the axes: the triangle's lowest point along one is a bound of its
        // local box, already at hand.
        let tmin = if poly.half_extents.is_some() {
            [lo.x, -hi.x, lo.y, -hi.y, lo.z, -hi.z][f]
        } else {
            m.dot(t[0]).min(m.dot(t[1])).min(m.dot(t[2]))
        };
        let s = tmin - poly.offsets[f];
        if s > margin {
            return Outcome::Far;
        }
        if s > face_best {
            face_best = s;
            best_sep = s;
            best = Axis::Face(f);
        }
    }
    // Edge pairs, which must beat the best face axis by `tol`.
    let mut edge_best = best_sep + tol;
    let g = [t[1] - t[0], t[2] - t[1], t[0] - t[2]];
    // Nearly parallel pairs (|e x g| under 1e-5 |g|) give no usable axis.
    let parallel = g.map(|g| 1e-10 * g.length_squared());
    for (c, &e) in poly.directions.iter().enumerate() {
        for k in 0..3 {
            let cross = e.cross(g[k]);
            let len2 = cross.length_squared();
            if !(len2 > parallel[k]) {
                continue;
            }
            let mut a = cross * len2.sqrt().recip();
            let an = a.dot(n);
            if an < 0.0 {
                a = -a;
            }
            let (lo, hi) = poly.project(a);
            let (tlo, thi) = project(&t, a);
            let mut s = lo - thi;
            // An axis in the triangle's plane may point either way.
            if an.abs() < 1e-4 && tlo - hi > s {
                s = tlo - hi;
                a = -a;
            }
            if s > margin {
                return Outcome::Far;
            }
            if s > edge_best {
                edge_best = s;
                best_sep = s;
                best = Axis::Edge(c, a);
            }
        }
    }
    let to_world = |p: Vec3| shape.rotation * p + shape.translation;
    let start = out.len();
    // Separated: the contact is the pair of closest features, found exactly, so that delayed
    // contacts are ordered by true distance (the voiding pass needs it: on flat ground a triangle
    // whose closest point lies on an edge then always has a neighbour at least as close across
    // it). A shape vertex over the triangle's interior makes a face contact, clipped as below.
    if best_sep > 0.0 {
        let axis = match best {
            Axis::Triangle => n,
            Axis::Face(f) => -poly.normals[f],
            Axis::Edge(_, a) => a,
        };
        let top = axis.dot(t[0]).max(axis.dot(t[1])).max(axis.dot(t[2]));
        let (distance, on_tri, on_shape, feature) = closest_features(poly, &t, axis, top);
        if !(distance <= margin) {
            return Outcome::Far;
        }
        if feature != Local::Face {
            // A shape resting on the triangle (a gap within `tol`: 1e-7 for a box on flat
            // ground) has a closest pair whose difference is rounding, in any direction (tens of
            // degrees off the ground's normal): the separating axis is the normal then.
            let normal = if distance > tol { (on_shape - on_tri).try_normalize().unwrap_or(n) } else { axis };
            out.push(RawPoint { point: to_world(on_tri), normal: shape.rotation * normal, depth: -distance });
            return Outcome::Touch { feature, distance };
        }
        best = Axis::Triangle;
        best_sep = distance;
        incident_over_triangle(poly, &t, n, scratch);
    } else {
        // Overlapping. Measured over the whole shape, the triangle's normal sees the shape's
        // deepest point even where it does not hang over this triangle (a tilted box's low edge
        // two triangles away), and a shape face tilted from the ground wins by a hair: a ghost
        // normal. Measured over the part of the shape above the triangle (its incident face
        // clipped to the triangle's prism), the normal is judged on what it pushes. It wins
        // unless another axis needs clearly less push: a box against a 90-degree ledge needs
        // 1/sqrt(2) of the push along the edge's diagonal, and keeps it.
        // The whole shape's depth along the normal bounds the underside's from below (and the
        // test is monotone in it): when even it passes, no face needs clipping but the incident.
        let passes = |local: f32| best_sep - local <= tol + FACE_PREFERENCE * -best_sep;
        if best == Axis::Triangle || passes(pmin - d0) {
            best = Axis::Triangle;
            incident_over_triangle(poly, &t, n, scratch);
        } else {
            let threshold = best_sep - tol - FACE_PREFERENCE * -best_sep;
            // Leaves the incident face's clip in the scratch when it returns false.
            if !underside_below(poly, &t, n, threshold, scratch) {
                best = Axis::Triangle;
                best_sep = best_sep.max(threshold.min(0.0));
            }
        }
    }
    match best {
        Axis::Triangle => {
            // The scratch holds the incident face clipped to the triangle's prism.
            // The world triangle's own normal, not the rotated local one: exact on flat ground.
            let normal = triangle_normal(world).unwrap_or(shape.rotation * n);
            for &p in scratch.points() {
                let sep = n.dot(p) - d0;
                if sep <= margin {
                    out.push(RawPoint { point: to_world(p - n * sep), normal, depth: -sep });
                }
            }
            if out.len() == start && !scratch.points().is_empty() {
                // All of the shape over the triangle is beyond reach.
                return Outcome::Far;
            }
            if out.len() == start {
                // The clipped face missed (a corner poking past an edge): the deepest point.
                let deepest =
                    poly.points.iter().copied().fold(poly.points[0], |a, b| if n.dot(b) < n.dot(a) { b } else { a });
                let (q, _) = closest_on_triangle(deepest, &t);
                out.push(RawPoint { point: to_world(q), normal, depth: -best_sep });
            }
            Outcome::Touch { feature: Local::Face, distance: best_sep }
        }
        Axis::Face(f) => {
            let m = poly.normals[f];
            let a = -m;
            let face = &poly.face_indices[poly.face_starts[f] as usize..poly.face_starts[f + 1] as usize];
            scratch.start(t.iter().copied(), face.len());
            for (i, &pi) in face.iter().enumerate() {
                let p = poly.points[pi as usize];
                let q = poly.points[face[(i + 1) % face.len()] as usize];
                scratch.clip(m.cross(q - p), p);
            }
            let normal = shape.rotation * a;
            for &x in scratch.points() {
                let depth = poly.offsets[f] - m.dot(x);
                if depth >= -margin {
                    out.push(RawPoint { point: to_world(x), normal, depth });
                }
            }
            let (feature, h) = support(&t, a, tol);
            if out.len() == start {
                let i = h.iter().enumerate().fold(0, |b, (i, &v)| if v > h[b] { i } else { b });
                out.push(RawPoint { point: world[i], normal, depth: -best_sep });
            }
            Outcome::Touch { feature, distance: best_sep }
        }
        Axis::Edge(c, a) => {
            // The shape's edge of this direction nearest the triangle along the axis.
            let mut pick = [0u32; 2];
            let mut lowest = f32::INFINITY;
            for (edge, &class) in poly.edges.iter().zip(poly.edge_direction) {
                if class as usize != c {
                    continue;
                }
                let mid = a.dot(poly.points[edge[0] as usize] + poly.points[edge[1] as usize]);
                if mid < lowest {
                    lowest = mid;
                    pick = *edge;
                }
            }
            // The axis came from triangle edge `k`, but the part of the triangle nearest the
            // shape along it may be a vertex or another edge: that part is the feature (voiding
            // must name what actually touches).
            let (p0, p1) = (poly.points[pick[0] as usize], poly.points[pick[1] as usize]);
            let (feature, _) = support(&t, a, tol);
            let on_tri = match feature {
                Local::Vertex(i) => t[i as usize],
                Local::Edge(i, j) => closest_segments(t[i as usize], t[j as usize], p0, p1).2,
                Local::Face => closest_on_triangle((p0 + p1) * 0.5, &t).0,
            };
            out.push(RawPoint { point: to_world(on_tri), normal: shape.rotation * a, depth: -best_sep });
            Outcome::Touch { feature, distance: best_sep }
        }
    }
}
