//! Per-triangle sweep kernels: when a shape moving along `d` (position `start + d t`) first comes
//! within `skin` of one triangle, which feature of the triangle it reaches, and when it first
//! reaches the triangle's face (the face's own region, not its boundary).
//!
//! Round shapes are exact in closed form: a sphere's centre against the triangle inflated by the
//! radius (plane, edge cylinders, corner balls); a capsule as its two end balls, its side against
//! the triangle's edges (the distance of two lines is linear in `t`) and the triangle's corners
//! against its side. Polytopes use the separating-axis test swept in time: on every candidate
//! axis the shape's interval moves linearly, so the times it overlaps the triangle's are one
//! interval, and the shapes touch from the latest entry to the earliest exit. That is exact for
//! translation (no iteration, no tolerance to converge to) and costs one pass over the same axes
//! the contact kernel tests; the axis that enters last names the triangle's feature, as it does
//! for contacts. Conservative advancement was the alternative: its iteration count grows as the
//! shape grazes a surface, which is the case this crate exists for.
//!
//! The face event is what the no-snag rule needs after an edge or vertex event is voided (a shape
//! sliding on a floor reaches the next, rising triangle's shared edge first and its face later).
//! It is the first time the shape's support feature towards the plane lies over the triangle
//! (a 2D swept separating-axis test in the plane) while the shape is within `skin` of the plane
//! and not wholly behind it.

use glam::{Mat3, Vec3};

use crate::closest::{closest_on_triangle, closest_segments, triangle_normal};
use crate::kernel::Local;
use crate::sat::Placed;

/// One event: the first time a feature of a triangle comes within the skin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Touch {
    pub(crate) t: f32,
    pub(crate) feature: Local,
    /// Unit, from the triangle towards the shape.
    pub(crate) normal: Vec3,
    /// On the triangle.
    pub(crate) point: Vec3,
    /// The shape's penetration at `t` along `normal` (negative when separated).
    pub(crate) depth: f32,
    /// At `t` the shape lies within the skin of the triangle's plane (to rounding) and the motion
    /// slides along or away from that plane: a touch of the triangle's boundary then is a shape
    /// gliding onto a face of the same plane, never a hit.
    pub(crate) slides: bool,
}

/// The motion goes against a normal when their cosine is below this: sliding along a face whose
/// normal is off by rounding is not approaching it.
pub(crate) const APPROACH_COS: f32 = -1e-5;

/// Whether a shape whose lowest point lies `gap` over a triangle's plane (normal `n`) at some
/// time, moving along `d`, slides on that plane.
#[inline]
fn slides(gap: f32, n: Vec3, d: Vec3, skin: f32, tol: f32, approach: f32) -> bool {
    gap >= -tol && gap <= skin + tol && n.dot(d) >= approach * d.length()
}

/// A triangle's events: the first touch, and the first face touch when the first is not one.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Events {
    pub(crate) first: Option<Touch>,
    pub(crate) face: Option<Touch>,
}

/// The motion and limits of one sweep.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Motion {
    pub(crate) d: Vec3,
    pub(crate) max_t: f32,
    pub(crate) skin: f32,
    /// The motion goes against a triangle's plane when the cosine of their angle is below this
    /// (negative): it allows for the rounding of the triangle's normal (see `approach_cos`).
    pub(crate) approach: f32,
}

/// The approach threshold of a triangle for a motion along `dir` (unit): `APPROACH_COS`, or looser
/// where the rounding of the triangle's coordinates alone could tilt its plane that much. Such a
/// tilt is at most the rounding over the triangle's smallest height (a sliver's normal is loose
/// across it), and gliding across the triangle along `dir` rises by the cosine times the
/// triangle's extent along `dir`; a cosine explained by either is rounding, not a slope. A wall
/// the motion runs into has a cosine far beyond both.
pub(crate) fn approach_cos(t: &[Vec3; 3], dir: Vec3) -> f32 {
    let coord = t[0].abs().max(t[1].abs()).max(t[2].abs()).max_element();
    let rounding = 32.0 * f32::EPSILON * (1.0 + coord);
    let span = t[0].distance(t[1]).max(t[1].distance(t[2])).max(t[2].distance(t[0]));
    let area2 = (t[1] - t[0]).cross(t[2] - t[0]).length();
    let height = if span > 0.0 { area2 / span } else { 0.0 };
    let (lo, hi) = tri_project(t, dir);
    let loose = |r: f32, over: f32| if over > 0.0 { r / over } else { f32::INFINITY };
    -loose(rounding, height).min(loose(rounding, hi - lo)).clamp(-APPROACH_COS, 1.0)
}

/// Times when `[lo + v t, hi + v t]` overlaps `[min - grow, max + grow]`; `None` when never.
#[inline]
fn slab(lo: f32, hi: f32, min: f32, max: f32, v: f32, grow: f32) -> Option<(f32, f32)> {
    let (a, b) = (min - grow - hi, max + grow - lo);
    if v == 0.0 {
        return if a <= 0.0 && b >= 0.0 { Some((f32::NEG_INFINITY, f32::INFINITY)) } else { None };
    }
    let (t0, t1) = (a / v, b / v);
    Some(if v > 0.0 { (t0, t1) } else { (t1, t0) })
}

#[inline]
fn tri_project(t: &[Vec3; 3], axis: Vec3) -> (f32, f32) {
    let (a, b, c) = (axis.dot(t[0]), axis.dot(t[1]), axis.dot(t[2]));
    (a.min(b).min(c), a.max(b).max(c))
}

/// Times in `[lo, hi]` when the convex polygon `poly` (a point, a segment or a loop, lying in
/// planes parallel to the triangle's), moving along `d`, overlaps the triangle seen along its
/// normal `n`: a 2D swept separating-axis test. Boundaries count, to `eps`.
fn overlap_window(poly: &[Vec3], d: Vec3, t: &[Vec3; 3], n: Vec3, lo: f32, hi: f32, eps: f32) -> Option<(f32, f32)> {
    let (mut t0, mut t1) = (lo, hi);
    let mut axis = |m: Vec3| -> bool {
        let Some(m) = m.try_normalize() else { return true };
        let (a, b) = tri_project(t, m);
        let (p, q) = poly.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(p, q), v| {
            let x = m.dot(*v);
            (p.min(x), q.max(x))
        });
        match slab(p, q, a, b, m.dot(d), eps) {
            Some((a, b)) => {
                t0 = t0.max(a);
                t1 = t1.min(b);
                t0 <= t1
            }
            None => false,
        }
    };
    for k in 0..3 {
        if !axis(n.cross(t[(k + 1) % 3] - t[k])) {
            return None;
        }
    }
    if poly.len() >= 2 {
        for k in 0..poly.len() {
            let e = poly[(k + 1) % poly.len()] - poly[k];
            // Tiny edges of the polygon add no axis worth testing.
            if e.length_squared() > eps * eps && !axis(n.cross(e)) {
                return None;
            }
            if poly.len() == 2 {
                break;
            }
        }
    }
    Some((t0, t1))
}

/// The face event of a shape whose support feature towards the plane is `support` (at `t = 0`):
/// within `[after, max_t]`, the first time the support lies over the triangle, its height over
/// the plane is at most `reach` and the shape's far side (`far` over the plane) is not behind it.
#[allow(clippy::too_many_arguments)]
fn face_event(
    support: &[Vec3],
    near: f32,
    far: f32,
    reach: f32,
    t: &[Vec3; 3],
    n: Vec3,
    m: &Motion,
    after: f32,
    eps: f32,
) -> Option<f32> {
    let v = n.dot(m.d);
    // near + v t <= reach and far + v t >= 0.
    let (h0, h1) = slab(near, far, 0.0, reach, v, 0.0)?;
    let (w0, w1) = overlap_window(support, m.d, t, n, after.max(h0), m.max_t.min(h1), eps)?;
    (w0 <= w1).then_some(w0)
}

/// Tolerance for "on the boundary" tests around points of size `scale`.
#[inline]
fn eps_for(scale: f32) -> f32 {
    1e-6 * (1.0 + scale)
}

/// The earliest `t` in `[0, max_t]` at which the point `c + d t` is at distance `r` from the
/// infinite line through `a` along `e`, approaching it, with its foot inside the segment.
fn point_cylinder(c: Vec3, d: Vec3, a: Vec3, e: Vec3, r: f32, max_t: f32) -> Option<f32> {
    let ee = e.length_squared();
    if !(ee > 0.0) || !(r > 0.0) {
        return None;
    }
    let m = c - a;
    let mp = m - e * (m.dot(e) / ee);
    let dp = d - e * (d.dot(e) / ee);
    let qa = dp.length_squared();
    if !(qa > 0.0) {
        return None;
    }
    let qb = mp.dot(dp);
    let qc = mp.length_squared() - r * r;
    if qc < 0.0 || qb >= 0.0 {
        return None;
    }
    let disc = qb * qb - qa * qc;
    if disc < 0.0 {
        return None;
    }
    let t = (-qb - disc.sqrt()) / qa;
    if !(t >= 0.0 && t <= max_t) {
        return None;
    }
    let u = (m + d * t).dot(e) / ee;
    (0.0..=1.0).contains(&u).then_some(t)
}

/// The earliest `t` in `[0, max_t]` at which `c + d t` is at distance `r` from `p`, approaching.
fn point_ball(c: Vec3, d: Vec3, p: Vec3, r: f32, max_t: f32) -> Option<f32> {
    let m = c - p;
    let qa = d.length_squared();
    let qb = m.dot(d);
    let qc = m.length_squared() - r * r;
    if !(qa > 0.0) || qc < 0.0 || qb >= 0.0 || !(r > 0.0) {
        return None;
    }
    let disc = qb * qb - qa * qc;
    if disc < 0.0 {
        return None;
    }
    let t = (-qb - disc.sqrt()) / qa;
    (t >= 0.0 && t <= max_t).then_some(t)
}

/// A ball's first touch of the triangle after `t = 0`, given it starts farther than `reach`:
/// `(t, feature)` of the earliest of the face, the edges and the corners.
fn ball_first(c: Vec3, reach: f32, m: &Motion, t: &[Vec3; 3], n: Vec3, eps: f32) -> Option<(f32, Local)> {
    let mut best: Option<(f32, Local)> = None;
    let offer = |time: f32, f: Local, best: &mut Option<(f32, Local)>| {
        if best.is_none_or(|(b, _)| time < b) {
            *best = Some((time, f));
        }
    };
    let h0 = n.dot(c - t[0]);
    let v = n.dot(m.d);
    if h0 > reach && v < 0.0 {
        let time = (h0 - reach) / -v;
        if time <= m.max_t {
            let p = c + m.d * time;
            let (q, f) = closest_on_triangle(p, t);
            let foot = p - n * n.dot(p - t[0]);
            // The foot on the boundary (to rounding) is a face touch: rays graze edges so.
            if f == Local::Face || q.distance_squared(foot) <= eps * eps {
                offer(time, Local::Face, &mut best);
            }
        }
    }
    for k in 0..3 {
        let j = (k + 1) % 3;
        if let Some(time) = point_cylinder(c, m.d, t[k], t[j] - t[k], reach, m.max_t) {
            offer(time, Local::edge(k as u8, j as u8), &mut best);
        }
        if let Some(time) = point_ball(c, m.d, t[k], reach, m.max_t) {
            offer(time, Local::Vertex(k as u8), &mut best);
        }
    }
    best
}

/// The point of feature `f` of triangle `t` closest to `p`.
fn on_feature(p: Vec3, t: &[Vec3; 3], f: Local) -> Vec3 {
    match f {
        Local::Vertex(k) => t[k as usize],
        Local::Edge(a, b) => {
            let (a, b) = (t[a as usize], t[b as usize]);
            let e = b - a;
            let ee = e.length_squared();
            if ee > 0.0 { a + e * ((p - a).dot(e) / ee).clamp(0.0, 1.0) } else { a }
        }
        Local::Face => closest_on_triangle(p, t).0,
    }
}

/// A sphere of `radius` at `c`.
pub(crate) fn sphere(c: Vec3, radius: f32, m: &Motion, t: &[Vec3; 3]) -> Events {
    let Some(n) = triangle_normal(t) else { return Events::default() };
    let eps = eps_for(c.abs().max_element() + t[0].abs().max_element());
    let tol = 1e-5 * (1.0 + radius);
    // One-sided: a centre behind the plane never touches the front.
    if n.dot(c - t[0]) < 0.0 {
        return Events::default();
    }
    let reach = radius + m.skin;
    let (q, f) = closest_on_triangle(c, t);
    let first = if c.distance_squared(q) <= reach * reach {
        let normal = if f == Local::Face { n } else { (c - q).try_normalize().unwrap_or(n) };
        let gap = n.dot(c - t[0]) - radius;
        let slides = slides(gap, n, m.d, m.skin, tol, m.approach);
        Touch { t: 0.0, feature: f, normal, point: q, depth: radius - c.distance(q), slides }
    } else {
        let Some((time, f)) = ball_first(c, reach, m, t, n, eps) else { return Events::default() };
        let p = c + m.d * time;
        if n.dot(p - t[0]) < -eps {
            // Reached from behind the plane.
            return Events::default();
        }
        let (point, normal) = if f == Local::Face {
            (p - n * n.dot(p - t[0]), n)
        } else {
            let q = on_feature(p, t, f);
            (q, (p - q).try_normalize().unwrap_or(n))
        };
        let slides = slides(n.dot(p - t[0]) - radius, n, m.d, m.skin, tol, m.approach);
        Touch { t: time, feature: f, normal, point, depth: -m.skin, slides }
    };
    let mut out = Events { first: Some(first), face: None };
    if first.feature != Local::Face {
        let h = n.dot(c - t[0]);
        if let Some(time) = face_event(&[c], h, h, reach, t, n, m, first.t, eps) {
            let p = c + m.d * time;
            let height = n.dot(p - t[0]);
            out.face = Some(Touch {
                t: time,
                feature: Local::Face,
                normal: n,
                point: p - n * height,
                depth: radius - height,
                slides: slides(height - radius, n, m.d, m.skin, tol, m.approach),
            });
        }
    }
    out
}

/// The distance of segment `a`-`b` from triangle `t` (normal `n`), the points on the segment and
/// on the triangle, and the triangle's feature. As the contact kernel decides: the part of the
/// segment over the triangle (clipped to its prism) makes a face touch when it is at least as
/// close as the segment's approach to the triangle's edges.
fn segment_triangle(a: Vec3, b: Vec3, t: &[Vec3; 3], n: Vec3) -> (f32, Vec3, Vec3, Local) {
    let (ha, hb) = (n.dot(a - t[0]), n.dot(b - t[0]));
    let d = b - a;
    let (mut s0, mut s1) = (0.0f32, 1.0f32);
    for k in 0..3 {
        let side = n.cross(t[(k + 1) % 3] - t[k]);
        let num = side.dot(a - t[k]);
        let den = side.dot(d);
        if den == 0.0 {
            if num < 0.0 {
                s1 = -1.0;
                break;
            }
        } else {
            let s = -num / den;
            if den > 0.0 { s0 = s0.max(s) } else { s1 = s1.min(s) }
        }
    }
    let mut face = None;
    if s0 <= s1 {
        let (h0, h1) = (ha + (hb - ha) * s0, ha + (hb - ha) * s1);
        let (s, h) = if (h0 <= 0.0) != (h1 <= 0.0) && h0 != h1 {
            (s0 + (s1 - s0) * (h0 / (h0 - h1)), 0.0)
        } else if h0.abs() <= h1.abs() {
            (s0, h0.abs())
        } else {
            (s1, h1.abs())
        };
        let p = a + d * s;
        face = Some((h, p, p - n * n.dot(p - t[0])));
    }
    let mut best = (f32::INFINITY, a, a, Local::Face);
    for k in 0..3 {
        let j = (k + 1) % 3;
        let (_, u, on_seg, on_edge) = closest_segments(a, b, t[k], t[j]);
        let dist = on_seg.distance(on_edge);
        if dist < best.0 {
            let f = if u <= 0.0 {
                Local::Vertex(k as u8)
            } else if u >= 1.0 {
                Local::Vertex(j as u8)
            } else {
                Local::edge(k as u8, j as u8)
            };
            best = (dist, on_seg, on_edge, f);
        }
    }
    if let Some((h, p, q)) = face {
        let tie = 1e-6 * (1.0 + h + d.length());
        if h <= best.0 + tie {
            return (h, p, q, Local::Face);
        }
    }
    best
}

/// The earliest `t` at which the side of the capsule (segment `a`-`b`, radius `r`) moving along
/// `d` touches the edge `p`-`q`, with both closest points inside their segments.
fn side_edge(a: Vec3, b: Vec3, p: Vec3, q: Vec3, r: f32, m: &Motion) -> Option<f32> {
    let (u, e) = (b - a, q - p);
    let w = u.cross(e);
    let ww = w.length_squared();
    if !(ww > 1e-12 * u.length_squared() * e.length_squared()) || !(r > 0.0) {
        return None;
    }
    let w = w / ww.sqrt();
    let s0 = w.dot(a - p);
    let v = w.dot(m.d);
    // |s0 + v t| = r, approaching from the side the segment starts on.
    if s0.abs() <= r || s0 * v >= 0.0 {
        return None;
    }
    let time = (s0.signum() * r - s0) / v;
    if !(time >= 0.0 && time <= m.max_t) {
        return None;
    }
    let (su, se, ..) = closest_segments(a + m.d * time, b + m.d * time, p, q);
    (su > 0.0 && su < 1.0 && se > 0.0 && se < 1.0).then_some(time)
}

/// A capsule: segment `a`-`b` with `radius`.
pub(crate) fn capsule(a: Vec3, b: Vec3, radius: f32, m: &Motion, t: &[Vec3; 3]) -> Events {
    if a == b {
        return sphere(a, radius, m, t);
    }
    let Some(n) = triangle_normal(t) else { return Events::default() };
    let eps = eps_for(a.abs().max(b.abs()).max_element() + t[0].abs().max_element());
    let tol = 1e-5 * (1.0 + radius + a.distance(b));
    let (ha, hb) = (n.dot(a - t[0]), n.dot(b - t[0]));
    let gap_at = |time: f32| ha.min(hb) + n.dot(m.d) * time - radius;
    if ha < 0.0 && hb < 0.0 {
        return Events::default();
    }
    let reach = radius + m.skin;
    // Most triangles of a cast are far from its start: their boxes say so without a distance.
    let (lo, hi) = (a.min(b) - reach, a.max(b) + reach);
    let near = lo.cmple(t[0].max(t[1]).max(t[2])).all() && hi.cmpge(t[0].min(t[1]).min(t[2])).all();
    let (dist, on_seg, on_tri, f) =
        if near { segment_triangle(a, b, t, n) } else { (f32::INFINITY, a, a, Local::Face) };
    let first = if dist <= reach {
        let normal = if f == Local::Face { n } else { (on_seg - on_tri).try_normalize().unwrap_or(n) };
        let slides = slides(gap_at(0.0), n, m.d, m.skin, tol, m.approach);
        Touch { t: 0.0, feature: f, normal, point: on_tri, depth: radius - dist, slides }
    } else {
        let mut best: Option<(f32, Local)> = None;
        let mut offer = |time: f32, f: Local| {
            if best.is_none_or(|(b, _)| time < b) {
                best = Some((time, f));
            }
        };
        for end in [a, b] {
            if let Some((time, f)) = ball_first(end, reach, m, t, n, eps) {
                offer(time, f);
            }
        }
        for k in 0..3 {
            let j = (k + 1) % 3;
            if let Some(time) = side_edge(a, b, t[k], t[j], reach, m) {
                offer(time, Local::edge(k as u8, j as u8));
            }
            // A corner of the triangle against the side: the corner moving along -d.
            if let Some(time) = point_cylinder(t[k], -m.d, a, b - a, reach, m.max_t) {
                offer(time, Local::Vertex(k as u8));
            }
        }
        let Some((time, f)) = best else { return Events::default() };
        let (pa, pb) = (a + m.d * time, b + m.d * time);
        let (_, on_seg, on_tri, closest) = segment_triangle(pa, pb, t, n);
        // Ties between end balls and side resolve to the face when the ends say so.
        let f = if f == Local::Face || closest == Local::Face { Local::Face } else { f };
        if n.dot(on_seg - t[0]) < -eps {
            return Events::default();
        }
        let normal = if f == Local::Face { n } else { (on_seg - on_tri).try_normalize().unwrap_or(n) };
        let point = if f == Local::Face { on_seg - n * n.dot(on_seg - t[0]) } else { on_feature(on_seg, t, f) };
        Touch {
            t: time,
            feature: f,
            normal,
            point,
            depth: -m.skin,
            slides: slides(gap_at(time), n, m.d, m.skin, tol, m.approach),
        }
    };
    let mut out = Events { first: Some(first), face: None };
    if first.feature != Local::Face {
        // The support towards the plane: both ends when the segment lies parallel to it.
        let parallel = (ha - hb).abs() <= eps * (1.0 + (b - a).length());
        let low = if ha <= hb { a } else { b };
        let support: &[Vec3] = if parallel { &[a, b] } else { core::slice::from_ref(&low) };
        let (near, far) = (ha.min(hb), ha.max(hb));
        if let Some(time) = face_event(support, near, far, reach, t, n, m, first.t, eps) {
            let p = low + m.d * time;
            let height = n.dot(p - t[0]);
            let on = if parallel {
                // The middle of the part of the segment over the triangle.
                let (pa, pb) = (a + m.d * time, b + m.d * time);
                let (q, _) = closest_on_triangle((pa + pb) * 0.5, t);
                q
            } else {
                p - n * height
            };
            out.face = Some(Touch {
                t: time,
                feature: Local::Face,
                normal: n,
                point: on,
                depth: radius - height,
                slides: slides(height - radius, n, m.d, m.skin, tol, m.approach),
            });
        }
    }
    out
}

/// Which axis a swept separating-axis test entered on.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Axis {
    Triangle,
    /// A shape face; the axis from the triangle towards the shape.
    Face(Vec3),
    /// Triangle edge `k`.
    Edge(u8, Vec3),
}

/// Local-frame state of one polytope sweep.
struct Sweep {
    enter: f32,
    exit: f32,
    axis: Axis,
    /// Separation at `t = 0` on the axis that separates most (for shapes starting in touch).
    sep: f32,
    sep_axis: Axis,
}

impl Sweep {
    /// Folds one axis `a` (unit, local frame) into the sweep. Ties within `tie` keep the earlier
    /// axis, so the triangle's normal (tested first) wins over shape faces and edges.
    #[allow(clippy::too_many_arguments)]
    fn axis(&mut self, a: Vec3, shape: (f32, f32), tri: (f32, f32), v: f32, skin: f32, kind: Axis, tie: f32) -> bool {
        let Some((t0, t1)) = slab(shape.0, shape.1, tri.0, tri.1, v, skin) else { return false };
        let (side, sep) =
            if shape.0 - tri.1 >= tri.0 - shape.1 { (1.0, shape.0 - tri.1) } else { (-1.0, tri.0 - shape.1) };
        // Direction from the triangle towards the shape at the entry.
        let toward = if v != 0.0 { if v < 0.0 { a } else { -a } } else { a * side };
        let kind = match kind {
            Axis::Triangle => Axis::Triangle,
            Axis::Face(_) => Axis::Face(toward),
            Axis::Edge(k, _) => Axis::Edge(k, toward),
        };
        if t0 > self.enter + tie / v.abs().max(f32::MIN_POSITIVE) {
            self.enter = t0;
            self.axis = kind;
        }
        self.exit = self.exit.min(t1);
        if sep > self.sep + tie {
            self.sep = sep;
            self.sep_axis = match kind {
                Axis::Triangle => Axis::Triangle,
                Axis::Face(_) => Axis::Face(a * side),
                Axis::Edge(k, _) => Axis::Edge(k, a * side),
            };
        }
        self.enter <= self.exit
    }
}

/// The triangle's feature farthest along `dir` (the one a shape face touches first).
fn support_feature(t: &[Vec3; 3], dir: Vec3, tol: f32) -> Local {
    let h = t.map(|p| dir.dot(p));
    let top = h[0].max(h[1]).max(h[2]);
    let on: [bool; 3] = core::array::from_fn(|k| h[k] >= top - tol);
    match on {
        [true, true, true] => Local::Face,
        [true, true, false] => Local::edge(0, 1),
        [false, true, true] => Local::edge(1, 2),
        [true, false, true] => Local::edge(0, 2),
        [false, false, true] => Local::Vertex(2),
        [false, true, false] => Local::Vertex(1),
        _ => Local::Vertex(0),
    }
}

/// Scratch of the polytope kernel: the support points towards a plane.
#[derive(Clone, Debug, Default)]
pub(crate) struct PolyScratch {
    support: Vec<Vec3>,
}

/// A box or convex polyhedron.
pub(crate) fn polytope(shape: &Placed<'_>, m: &Motion, world: &[Vec3; 3], scratch: &mut PolyScratch) -> Events {
    let poly = &shape.poly;
    let t = world.map(|p| shape.inverse * (p - shape.translation));
    let d = shape.inverse * m.d;
    let local = Motion { d, ..*m };
    // The normal from the triangle as given, turned into the shape's frame: computed from the
    // turned corners, a sliver's normal picks up the turn's rounding.
    let Some(world_n) = triangle_normal(world) else { return Events::default() };
    let n = (shape.inverse * world_n).normalize();
    let tol = 1e-5 * (1.0 + shape.scale);
    let eps = eps_for(shape.scale + t[0].abs().max_element());
    let d0 = n.dot(t[0]);
    let (pmin, pmax) = poly.project(n);
    // One-sided: a shape wholly behind the plane never reaches the front.
    if pmax < d0 {
        return Events::default();
    }
    let mut sweep = Sweep {
        enter: f32::NEG_INFINITY,
        exit: f32::INFINITY,
        axis: Axis::Triangle,
        sep: f32::NEG_INFINITY,
        sep_axis: Axis::Triangle,
    };
    let skin = m.skin;
    let (lo, hi) = (0.0f32, m.max_t);
    let tie = tol;
    if !sweep.axis(n, (pmin, pmax), (d0, d0), n.dot(d), skin, Axis::Triangle, tie) {
        return Events::default();
    }
    for &f in poly.normals {
        if !sweep.axis(f, poly.project(f), tri_project(&t, f), f.dot(d), skin, Axis::Face(f), tie) || sweep.enter > hi {
            return Events::default();
        }
    }
    for k in 0..3 {
        let e = t[(k + 1) % 3] - t[k];
        for &dir in poly.directions {
            // Edges (nearly) parallel add no axis the faces do not already test.
            let c = e.cross(dir);
            if c.length_squared() <= 1e-8 * e.length_squared() {
                continue;
            }
            let a = c.normalize();
            if !sweep.axis(a, poly.project(a), tri_project(&t, a), a.dot(d), skin, Axis::Edge(k as u8, a), tie) {
                return Events::default();
            }
        }
    }
    if sweep.enter > hi || sweep.exit < lo {
        return Events::default();
    }
    let start = sweep.enter <= 0.0;
    let (time, axis) = if start { (0.0, sweep.sep_axis) } else { (sweep.enter, sweep.axis) };
    let moved = d * time;
    // The triangle side's normal must face the shape: entering from behind is no touch.
    let (feature, normal) = match axis {
        Axis::Triangle => (Local::Face, n),
        Axis::Face(toward) => (support_feature(&t, toward, tol), toward),
        Axis::Edge(k, toward) => (Local::edge(k, (k + 1) % 3), toward),
    };
    if feature == Local::Face && normal.dot(n) < 0.0 {
        return Events::default();
    }
    if !start && pmax + n.dot(moved) < d0 {
        return Events::default();
    }
    let depth = if start { -sweep.sep } else { -skin };
    let point = contact_point(poly, &t, feature, normal, moved, tol, scratch);
    let first = Touch {
        t: time,
        feature,
        normal: if feature == Local::Face { world_n } else { shape.rotation * normal },
        point: shape.rotation * point + shape.translation,
        depth,
        slides: slides(pmin - d0 + n.dot(moved), n, d, skin, tol, m.approach),
    };
    let mut out = Events { first: Some(first), face: None };
    if feature != Local::Face {
        support_points(poly, -n, tol, &mut scratch.support);
        let near = pmin - d0;
        let far = pmax - d0;
        if let Some(time) = face_event(&scratch.support, near, far, skin, &t, n, &local, first.t, eps) {
            let moved = d * time;
            let height = near + n.dot(moved);
            let point = contact_point(poly, &t, Local::Face, n, moved, tol, scratch);
            out.face = Some(Touch {
                t: time,
                feature: Local::Face,
                normal: world_n,
                point: shape.rotation * point + shape.translation,
                depth: -height,
                slides: slides(height, n, d, skin, tol, m.approach),
            });
        }
    }
    out
}

/// The shape's points within `tol` of its lowest along `dir`, in loop order when they make a
/// face (the face whose normal is `-dir`).
fn support_points(poly: &crate::shape::PolyView<'_>, dir: Vec3, tol: f32, out: &mut Vec<Vec3>) {
    out.clear();
    let (lo, _) = poly.project(dir);
    for (f, &m) in poly.normals.iter().enumerate() {
        if m.dot(dir) <= -(1.0 - 1e-6) {
            let face = &poly.face_indices[poly.face_starts[f] as usize..poly.face_starts[f + 1] as usize];
            out.extend(face.iter().map(|&i| poly.points[i as usize]));
            return;
        }
    }
    for &p in poly.points {
        if dir.dot(p) <= lo + tol {
            out.push(p);
        }
    }
    if out.len() > 2 {
        // Not a face: an edge with points along it; its two ends are the support.
        let axis = out[1] - out[0];
        let (mut a, mut b) = (out[0], out[0]);
        for &p in out.iter() {
            if axis.dot(p) < axis.dot(a) {
                a = p;
            }
            if axis.dot(p) > axis.dot(b) {
                b = p;
            }
        }
        out.clear();
        out.extend([a, b]);
    }
}

/// A contact point on the triangle (local frame) for the shape moved by `moved`.
fn contact_point(
    poly: &crate::shape::PolyView<'_>,
    t: &[Vec3; 3],
    feature: Local,
    normal: Vec3,
    moved: Vec3,
    tol: f32,
    scratch: &mut PolyScratch,
) -> Vec3 {
    support_points(poly, -normal, tol, &mut scratch.support);
    let count = scratch.support.len().max(1) as f32;
    let centre = scratch.support.iter().fold(Vec3::ZERO, |s, &p| s + p) / count + moved;
    match feature {
        Local::Face => closest_on_triangle(centre, t).0,
        f => on_feature(centre, t, f),
    }
}

/// The shape of a polytope kernel call, placed.
pub(crate) fn placed<'a>(
    poly: crate::shape::PolyView<'a>,
    rotation: glam::Quat,
    translation: Vec3,
    scale: f32,
) -> Placed<'a> {
    let rotation = Mat3::from_quat(rotation.normalize());
    Placed { poly, rotation, inverse: rotation.transpose(), translation, scale }
}
