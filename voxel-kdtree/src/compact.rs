//! The compact form (seed `000_ce04cac11e01e96d.txt`, "Loose kD tree: construction", last
//! paragraphs: "packing positions using 16-bit integers and optimize the kD tree node in a similar
//! fashion, getting to ~6b per kD node and resulting in total triangle impact of 3.5b vertex + 6b
//! index + 6b tree = 15.5b"). A self-contained copy of a chunk-sized mesh: 16-bit vertex positions
//! on a grid over the tree bounds, 16-bit indices, and 6-byte nodes whose planes are rounded
//! outwards.
//!
//! Quantization moves vertices by up to half a grid step, so the queries are conservative rather
//! than exact: every test is widened by [`CompactTree::tolerance`], a hit the full form finds is
//! never missed (tested), and every reported hit lies within [`CompactTree::hit_tolerance`] of
//! its original triangle (tested on terrain chunks).

use glam::{DVec2, DVec3, Vec3};
use voxel_core::{Aabb, Ray, TriangleSource};

use crate::intersect::{Sheared, with_major_axis};
use crate::node::Node;
use crate::query::{NodeSource, walk_aabb, walk_ray};
use crate::{BuildOptions, KdTree, KdTreeError, RayHit, Scratch};

/// Most nodes a compact tree holds: the 14-bit child index (about 15k triangles; a 32^3 terrain
/// chunk has 2k to 12k).
pub const MAX_COMPACT_NODES: usize = 1 << 14;

/// Grid steps per axis over the bounds.
const STEPS: f32 = 65535.0;

/// A 6-byte node: two 16-bit planes and `first_child << 2 | axis`, or two 16-bit triangle ids and
/// `count << 2 | 3`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct CompactNode([u16; 3]);

const _: () = assert!(size_of::<CompactNode>() == 6);

/// A conservative, self-contained loose kD tree over one chunk-sized mesh, about 15.5 bytes per
/// triangle with the mesh included.
///
/// ```
/// use glam::Vec3;
/// use voxel_core::{IndexedMesh, Ray};
/// use voxel_kdtree::{CompactTree, Scratch};
///
/// let mesh = IndexedMesh::new(vec![Vec3::ZERO, Vec3::X, Vec3::Z], vec![[0, 2, 1]])?;
/// let tree = CompactTree::build(&mesh)?;
/// let hit = tree.cast_ray(&Ray::new(Vec3::new(0.2, 1.0, 0.2), Vec3::NEG_Y), 10.0, &mut Scratch::new());
/// assert!(hit.is_some_and(|h| (h.t - 1.0).abs() <= tree.tolerance() * 2.0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct CompactTree {
    nodes: Vec<CompactNode>,
    vertices: Vec<[u16; 3]>,
    triangles: Vec<[u16; 3]>,
    /// The grid: a position is `origin + q * step`.
    origin: Vec3,
    step: Vec3,
    /// How far a stored position may be from the original one, per coordinate, with rounding.
    tolerance: f32,
    bounds: Aabb,
    depth: u32,
    stored: usize,
}

impl CompactTree {
    /// Builds the compact form of `source` (the full tree first, then packed).
    ///
    /// # Errors
    ///
    /// [`KdTreeError::TooLargeForCompact`] past 65536 vertices or triangles or
    /// [`MAX_COMPACT_NODES`] nodes; [`KdTreeError::OutOfRangeForCompact`] for coordinates beyond a
    /// quarter of `f32::MAX`; [`KdTreeError::Source`] as [`KdTree::build`].
    pub fn build<S: TriangleSource + ?Sized>(source: &S) -> Result<Self, KdTreeError> {
        Self::build_with(source, BuildOptions::FAST)
    }

    /// [`CompactTree::build`] over a full tree built with `options`.
    ///
    /// # Errors
    ///
    /// As [`CompactTree::build`].
    pub fn build_with<S: TriangleSource + ?Sized>(source: &S, options: BuildOptions) -> Result<Self, KdTreeError> {
        for (what, count, limit) in
            [("vertices", source.vertex_count(), 1 << 16), ("triangles", source.triangle_count(), 1 << 16)]
        {
            if count > limit {
                return Err(KdTreeError::TooLargeForCompact { what, count });
            }
        }
        let full = KdTree::build_with(source, options)?;
        if full.nodes.len() > MAX_COMPACT_NODES {
            return Err(KdTreeError::TooLargeForCompact { what: "nodes", count: full.nodes.len() });
        }
        let bounds = full.bounds;
        // The grid's steps and `origin + q * step` (plus the tolerance) must stay finite: within a
        // quarter of `f32::MAX` the extent is at most half of it.
        let magnitude = bounds.min.abs().max(bounds.max.abs()).max_element();
        if bounds.is_valid() && !(magnitude <= f32::MAX / 4.0) {
            return Err(KdTreeError::OutOfRangeForCompact { magnitude });
        }
        let (origin, step) = if bounds.is_valid() {
            // A flat mesh has a zero extent on an axis; any positive step works there.
            (bounds.min, (bounds.size() / STEPS).max(Vec3::splat(f32::MIN_POSITIVE)))
        } else {
            (Vec3::ZERO, Vec3::ONE)
        };
        let max_abs = bounds.min.abs().max(bounds.max.abs()).max_element();
        // Half a step of rounding, plus the `f32` rounding of `origin + q * step` at these
        // coordinates (a few ulps), whichever grid is the coarser.
        let tolerance = if bounds.is_valid() { 0.5 * step.max_element() + 8.0 * f32::EPSILON * max_abs } else { 0.0 };
        let quantize = |v: Vec3| -> [u16; 3] {
            // Non-finite vertices belong to triangles the tree left out; any value will do.
            let q = ((v - origin) / step).round().clamp(Vec3::ZERO, Vec3::splat(STEPS));
            let q = if q.is_finite() { q } else { Vec3::ZERO };
            [q.x as u16, q.y as u16, q.z as u16]
        };
        let vertices = (0..source.vertex_count() as u32).map(|v| quantize(source.vertex(v))).collect();
        let triangles = (0..source.triangle_count() as u32).map(|t| source.triangle(t).map(|i| i as u16)).collect();
        let nodes = full
            .nodes
            .iter()
            .map(|n| {
                if n.is_leaf() {
                    let (ids, count) = n.ids();
                    CompactNode([ids[0] as u16, ids[1] as u16, ((count as u16) << 2) | 3])
                } else {
                    let (left, right) = n.planes();
                    let axis = n.axis();
                    let grid = |p: f32| (p - origin[axis]) / step[axis];
                    // Outwards: the left plane up, the right plane down.
                    let l = grid(left).ceil().clamp(0.0, STEPS) as u16;
                    let r = grid(right).floor().clamp(0.0, STEPS) as u16;
                    CompactNode([l, r, ((n.index() as u16) << 2) | axis as u16])
                }
            })
            .collect();
        Ok(Self {
            nodes,
            vertices,
            triangles,
            origin,
            step,
            tolerance,
            bounds,
            depth: full.depth,
            stored: full.primitives,
        })
    }

    /// How far (per coordinate, world units) a stored vertex may be from the original: half a grid
    /// step plus rounding. Every query is widened by it.
    pub fn tolerance(&self) -> f32 {
        self.tolerance
    }

    /// How far (world units) a hit of `ray` on triangle `triangle` that [`CompactTree::cast_ray`],
    /// [`CompactTree::any_hit`] or [`CompactTree::all_hits`] reports may lie from the original
    /// triangle: `4 * (tolerance + 16 * f32::EPSILON * reach)`, `reach` the largest coordinate
    /// distance from the ray's origin to the stored triangle's box (the rounding of the ray's own
    /// arithmetic there). The hit point `ray.origin + t * ray.dir` is within `sqrt(3)` times the
    /// bracket of the stored triangle, which is within as much of the original.
    pub fn hit_tolerance(&self, ray: &Ray, triangle: u32) -> f32 {
        4.0 * self.slack(ray, &Aabb::from_points(self.triangle_positions(triangle)))
    }

    /// The tolerance plus the ray's rounding at the box `tight` (see [`CompactTree::hit_tolerance`]).
    #[inline]
    fn slack(&self, ray: &Ray, tight: &Aabb) -> f32 {
        let reach = (tight.min - ray.origin).abs().max((tight.max - ray.origin).abs()).max_element();
        self.tolerance + 16.0 * f32::EPSILON * reach
    }

    /// Triangles stored in the tree.
    pub fn len(&self) -> usize {
        self.stored
    }

    /// True when the tree holds no triangle.
    pub fn is_empty(&self) -> bool {
        self.stored == 0
    }

    /// The deepest leaf's depth.
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// Bytes held on the heap: nodes, quantized vertices and indices.
    pub fn heap_bytes(&self) -> usize {
        self.nodes.capacity() * size_of::<CompactNode>()
            + self.vertices.capacity() * size_of::<[u16; 3]>()
            + self.triangles.capacity() * size_of::<[u16; 3]>()
    }

    /// Triangle `t` as stored (dequantized).
    pub fn triangle_positions(&self, t: u32) -> [Vec3; 3] {
        let Some(tri) = self.triangles.get(t as usize) else { return [Vec3::ZERO; 3] };
        tri.map(|i| self.vertex(i))
    }

    #[inline(always)]
    fn vertex(&self, i: u16) -> Vec3 {
        let q = self.vertices.get(i as usize).copied().unwrap_or([0; 3]);
        self.origin + Vec3::new(f32::from(q[0]), f32::from(q[1]), f32::from(q[2])) * self.step
    }

    /// Candidate triangles for `query`: a superset of the triangles the full tree's
    /// [`KdTree::query_aabb`] gives, in traversal order, in `out` (cleared first).
    pub fn query_aabb(&self, query: &Aabb, scratch: &mut Scratch, out: &mut Vec<u32>) {
        out.clear();
        walk_aabb(self, query, scratch, |id| out.push(id));
    }

    /// The triangles whose stored form overlaps `query` grown by the tolerance: a superset of
    /// what [`KdTree::query_aabb_exact`] gives over the original mesh.
    pub fn query_aabb_exact(&self, query: &Aabb, scratch: &mut Scratch, out: &mut Vec<u32>) {
        out.clear();
        if !query.is_valid() {
            return;
        }
        let grown = query.grow(self.tolerance);
        walk_aabb(self, &grown, scratch, |id| {
            if crate::triangle_overlaps_aabb(self.triangle_positions(id), &grown) {
                out.push(id);
            }
        });
    }

    /// A conservative closest hit: `Some` whenever the full form's [`KdTree::cast_ray`] finds a
    /// hit, at a `t` no later than the far side (along the ray) of the box around that triangle
    /// grown by twice the sum of the tolerance and a few ulps of its distance from the ray's
    /// origin (the rounding of the ray's arithmetic there). Every reported hit point lies within
    /// [`CompactTree::hit_tolerance`] of its original triangle. Bad rays hit nothing.
    pub fn cast_ray(&self, ray: &Ray, max_t: f32, scratch: &mut Scratch) -> Option<RayHit> {
        let mut best = RayHit { t: f32::INFINITY, triangle: u32::MAX };
        with_major_axis!(ray, K => walk_ray::<_, K>(self, ray, max_t, scratch, |shear, id, cutoff| {
            if let Some(t) = self.conservative_hit(ray, shear, id, *cutoff) {
                RayHit { t, triangle: id }.keep_closest(&mut best, cutoff);
            }
            false
        }));
        (best.triangle != u32::MAX).then_some(best)
    }

    /// True whenever the full form's [`KdTree::any_hit`] is (and possibly for near misses).
    pub fn any_hit(&self, ray: &Ray, max_t: f32, scratch: &mut Scratch) -> bool {
        let mut found = false;
        with_major_axis!(ray, K => walk_ray::<_, K>(self, ray, max_t, scratch, |shear, id, cutoff| {
            found = self.conservative_hit(ray, shear, id, *cutoff).is_some();
            found
        }));
        found
    }

    /// Every triangle the ray may hit (a superset of the full form's [`KdTree::all_hits`]),
    /// sorted by `t` then triangle, in `out` (cleared first).
    pub fn all_hits(&self, ray: &Ray, max_t: f32, scratch: &mut Scratch, out: &mut Vec<RayHit>) {
        out.clear();
        with_major_axis!(ray, K => walk_ray::<_, K>(self, ray, max_t, scratch, |shear, id, cutoff| {
            if let Some(t) = self.conservative_hit(ray, shear, id, *cutoff) {
                out.push(RayHit { t, triangle: id });
            }
            false
        }));
        out.sort_unstable_by(|a, b| a.t.total_cmp(&b.t).then(a.triangle.cmp(&b.triangle)));
    }

    /// The widened test. A hit of the original triangle is within `tolerance` per coordinate of
    /// a point of the stored triangle (the same barycentric combination of the stored corners), so
    /// a ray that hits the original in `[0, max_t]` passes within `sqrt(3) * slack` of the stored
    /// triangle (`slack` adds the `f32` rounding of the ray's arithmetic at the triangle's
    /// distance, in this tree and in the full one) while inside the stored triangle's box grown
    /// by `slack`. Accepted exactly then, at the `t` where the ray's segment through that box
    /// comes closest to the stored triangle (on it, when it crosses it), so every reported hit
    /// lies within [`CompactTree::hit_tolerance`] of the original triangle.
    ///
    /// A 2D test in the ray's sheared frame first turns away most misses cheaply: there each
    /// stored vertex is within `2 * slack` of the original per coordinate (the shear adds at most
    /// the major axis' error once), so the ray's 2D point is within `2 * sqrt(2) * slack` of every
    /// edge, for either winding. It bounds the ray's line, not its segment: accepting on it alone
    /// (with the plane's `t` clamped into the box's interval) reported triangles behind the ray's
    /// origin at `t = 0`, up to 0.6 units from any triangle of a terrain chunk.
    ///
    /// Without the rounding term, rays from 1000 mesh sizes away missed hits the full tree found
    /// (3% of rays aimed at the vertices of a 10-unit triangle from 1e4 away).
    fn conservative_hit<const K: usize>(&self, ray: &Ray, shear: &Sheared<K>, id: u32, max_t: f32) -> Option<f32> {
        let tri = self.triangle_positions(id);
        let tight = Aabb::from_points(tri);
        let slack = self.slack(ray, &tight);
        let grown = tight.grow(slack);
        let (enter, exit) = grown.intersect_ray(ray, 0.0, max_t)?;
        let [a, b, c] = tri.map(|v| shear.project(v));
        let r = 2.0 * std::f32::consts::SQRT_2 * slack;
        let edge = |p: (f32, f32), q: (f32, f32)| {
            // Double precision: the products of `f32`s are exact, the margin needs no slack.
            let (p, q) = (DVec2::new(f64::from(p.0), f64::from(p.1)), DVec2::new(f64::from(q.0), f64::from(q.1)));
            (q.x * p.y - q.y * p.x, (q - p).length() * f64::from(r))
        };
        let (a2, b2, c2) = ((a.x, a.y), (b.x, b.y), (c.x, c.y));
        let edges = [edge(b2, c2), edge(c2, a2), edge(a2, b2)];
        let positive = edges.iter().all(|(u, m)| *u >= -m);
        let negative = edges.iter().all(|(u, m)| *u <= *m);
        if !(positive || negative) {
            return None;
        }
        let (u, v, w) = (edges[0].0, edges[1].0, edges[2].0);
        let det = u + v + w;
        let crosses = det != 0.0 && ((u >= 0.0 && v >= 0.0 && w >= 0.0) || (u <= 0.0 && v <= 0.0 && w <= 0.0));
        if crosses {
            let t = ((u * f64::from(a.z) + v * f64::from(b.z) + w * f64::from(c.z)) / det) as f32;
            if t >= enter && t <= exit {
                return Some(t);
            }
        }
        let (distance, t) = segment_triangle_closest(ray, enter, exit, tri);
        (distance <= 3f64.sqrt() * f64::from(slack)).then_some(t as f32)
    }
}

/// The distance between the segment `ray.origin + t * ray.dir`, `t` in `[t0, t1]`, and the
/// triangle `tri`, and the `t` of the segment's closest point, in double precision relative to the
/// triangle's first corner. Zero where the segment crosses the triangle; else the closest pair
/// has an end of the segment or lies on an edge ("Real-Time Collision Detection", 5.1.9-5.1.10).
fn segment_triangle_closest(ray: &Ray, t0: f32, t1: f32, tri: [Vec3; 3]) -> (f64, f64) {
    let base = tri[0].as_dvec3();
    let [a, b, c] = tri.map(|v| v.as_dvec3() - base);
    let dir = ray.dir.as_dvec3();
    let (t0, t1) = (f64::from(t0), f64::from(t1));
    let p0 = ray.origin.as_dvec3() - base + dir * t0;
    let seg = dir * (t1 - t0);
    // Crossing: the segment's ends on opposite sides of the plane and the crossing inside.
    let normal = (b - a).cross(c - a);
    let (s0, s1) = (normal.dot(p0 - a), normal.dot(p0 + seg - a));
    if s0 * s1 <= 0.0 && s0 != s1 {
        let f = s0 / (s0 - s1);
        let p = p0 + seg * f;
        if [(a, b), (b, c), (c, a)].iter().all(|&(p1, q1)| (q1 - p1).cross(p - p1).dot(normal) >= 0.0) {
            return (0.0, t0 + f * (t1 - t0));
        }
    }
    let mut best = (f64::INFINITY, t0);
    for (f, p) in [(0.0, p0), (1.0, p0 + seg)] {
        let d = (p - closest_on_triangle(p, a, b, c)).length();
        if d < best.0 {
            best = (d, t0 + f * (t1 - t0));
        }
    }
    for (p, q) in [(a, b), (b, c), (c, a)] {
        let (d, f) = segment_segment(p0, seg, p, q - p);
        if d < best.0 {
            best = (d, t0 + f * (t1 - t0));
        }
    }
    best
}

/// The closest point of the triangle `(a, b, c)` to `p` (Ericson 5.1.5).
fn closest_on_triangle(p: DVec3, a: DVec3, b: DVec3, c: DVec3) -> DVec3 {
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
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
    }
    let denom = va + vb + vc;
    if denom == 0.0 {
        // A degenerate (sliver) triangle: its edges hold the closest point.
        return [(a, b), (b, c), (c, a)]
            .map(|(p1, q1)| {
                let e = q1 - p1;
                let f =
                    if e.length_squared() > 0.0 { ((p - p1).dot(e) / e.length_squared()).clamp(0.0, 1.0) } else { 0.0 };
                p1 + e * f
            })
            .into_iter()
            .min_by(|x, y| (p - *x).length_squared().total_cmp(&(p - *y).length_squared()))
            .unwrap_or(a);
    }
    a + ab * (vb / denom) + ac * (vc / denom)
}

/// The distance between the segments `p1 + s * d1` and `p2 + u * d2` (`s`, `u` in `[0, 1]`) and
/// the first one's `s` at the closest pair (Ericson 5.1.9).
fn segment_segment(p1: DVec3, d1: DVec3, p2: DVec3, d2: DVec3) -> (f64, f64) {
    let r = p1 - p2;
    let (a, e, f) = (d1.dot(d1), d2.dot(d2), d2.dot(r));
    let (s, u) = if a <= 0.0 && e <= 0.0 {
        (0.0, 0.0)
    } else if a <= 0.0 {
        (0.0, (f / e).clamp(0.0, 1.0))
    } else {
        let c = d1.dot(r);
        if e <= 0.0 {
            ((-c / a).clamp(0.0, 1.0), 0.0)
        } else {
            let b = d1.dot(d2);
            let denom = a * e - b * b;
            let mut s = if denom > 0.0 { ((b * f - c * e) / denom).clamp(0.0, 1.0) } else { 0.0 };
            let mut u = (b * s + f) / e;
            if u < 0.0 {
                u = 0.0;
                s = (-c / a).clamp(0.0, 1.0);
            } else if u > 1.0 {
                u = 1.0;
                s = ((b - c) / a).clamp(0.0, 1.0);
            }
            (s, u)
        }
    };
    ((p1 + d1 * s - (p2 + d2 * u)).length(), s)
}

impl NodeSource for CompactTree {
    #[inline(always)]
    fn node(&self, index: u32) -> Node {
        let Some(&CompactNode([a, b, tag])) = self.nodes.get(index as usize) else { return Node::EMPTY_LEAF };
        let axis = usize::from(tag & 3);
        if axis == 3 {
            let ids = [u32::from(a), u32::from(b)];
            return match tag >> 2 {
                1 => Node::leaf(&ids[..1]),
                2 => Node::leaf(&ids),
                _ => Node::EMPTY_LEAF,
            };
        }
        // Planes widened by the tolerance, so rounding in the decode never tightens them.
        let plane = |q: u16| self.origin[axis] + f32::from(q) * self.step[axis];
        Node::branch(axis, [plane(a) + self.tolerance, plane(b) - self.tolerance], u32::from(tag >> 2))
    }
    #[inline]
    fn root_bounds(&self) -> Aabb {
        if self.stored == 0 { Aabb::EMPTY } else { self.bounds.grow(self.tolerance) }
    }
}
