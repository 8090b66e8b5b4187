//! Ray casts against the smooth surface (Kapoulkine's "Voxel Terrain: Physics", "Narrowphase: analysis &
//! plan": "when performing raycasts, a simple ray-AABB tree query is ran; each matching leaf node
//! is intersected with the ray. The closest point is kept and returned as the result"), over the
//! 8^3 chunks a ray crosses.
//!
//! The walk is Amanatides and Woo's over chunk boxes of 8 voxels. A chunk's mesh reaches one voxel
//! below the chunk (its quads are those of the grid edges whose lower end lies in it), so the
//! geometry inside box `k` belongs to the meshes of the chunks `k + {0, 1}^3`: the walk asks those
//! eight on entering the first box and the four new ones on each step (the path is monotone on
//! every axis, so no owner comes back). A ray that starts on a chunk plane, or runs inside one
//! (straight down at integer coordinates), also asks the owners on the plane's lower side. Owners
//! the broadphase proves empty are skipped without a cache lookup. Each owner's kD tree is cast
//! over the whole remaining ray, cut off at the best hit so far; the walk stops once the best hit
//! lies before the current box's exit, since every point before it lies in a box already visited,
//! whose owners were all asked.
//!
//! Precision: `t` is computed from the ray's origin in `f32`, as the kD tree does. An origin more
//! than [`FAR_ORIGIN`] voxels outside the geometry's box takes another path: the point one voxel
//! before the box on the ray's line is found in `f64` (`voxel_raymarch::restart`, shared with
//! voxel-raymarch's far rays), the chunk walk runs in `f64` from that point, and each owner's
//! triangles are tested in `f64` relative to it (no kD tree: their stored `f32` positions taken
//! exactly), so the far ray keeps its own line anywhere within
//! [`MAX_WORLD_COORDINATE`](crate::MAX_WORLD_COORDINATE). An `f32` ray restarted there would not:
//! near `2^20` an `f32` coordinate is only a multiple of 1/16 voxel, so its line moved by up to
//! 1/32 voxel. A far hit's `t` is the restart's `f64` `t` plus the local one, rounded to `f32`
//! once (only as fine as an `f32` of that size), and its point is computed on the line in `f64`.
//! An origin so far that even `f64` cannot place the entry within 1/1024 voxel (about 2^40 voxels
//! off on an axis the ray does not enter through) hits nothing. The mesh itself is only as fine
//! as `f32` positions at its coordinates (1/16 voxel near the limit).

use std::sync::Arc;

use glam::{DVec3, IVec3, Vec3};
use rayon::prelude::*;
use voxel_core::{Aabb, Ray, TriangleSource};
use voxel_kdtree::{Scratch, triangle_is_usable};
use voxel_raymarch::{Cast, FAR_ORIGIN, restart};

use crate::TerrainCollider;
use crate::cache::{ChunkShape, PHYSICS_CHUNK_EDGE};

/// Where a ray met the smooth terrain surface.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TerrainHit {
    /// The ray parameter: the point is `origin + t * dir`.
    pub t: f32,
    /// The hit point, in voxel units.
    pub point: Vec3,
    /// The unit normal of the triangle hit, pointing out of the solid (whichever side the ray came
    /// from).
    pub normal: Vec3,
    /// The triangle's material (the dominant material of its corners' cubes).
    pub material: u8,
    /// The physics chunk whose mesh holds the triangle.
    pub chunk: IVec3,
    /// The triangle's index in that chunk's mesh ([`ChunkShape::mesh`](crate::ChunkShape::mesh)).
    pub triangle: u32,
}

/// Reusable buffers of the ray casts (the kD tree's traversal stack); one per thread.
#[derive(Clone, Debug, Default)]
pub struct RayScratch {
    kd: Scratch,
}

impl RayScratch {
    /// Empty buffers; they grow on the first casts and are then reused.
    pub fn new() -> Self {
        Self::default()
    }
}

/// Rays per rayon task of a batch: enough that scheduling is noise next to the casts.
const RAYS_PER_TASK: usize = 128;

/// The best hit so far: the hit order is `t`, then the chunk in key order (`y`, `z`, `x`), then
/// the triangle (the kD tree's own tie rule), so equal-`t` hits on a seam resolve the same way
/// whatever the walk's order.
struct Best {
    t: f32,
    chunk: IVec3,
    triangle: u32,
    shape: Arc<ChunkShape>,
}

#[inline]
fn key_order(k: IVec3) -> (i32, i32, i32) {
    (k.y, k.z, k.x)
}

impl TerrainCollider {
    /// The first point of the smooth (Surface Nets) terrain surface along `ray` at `t` in
    /// `[0, max_t]`, with its normal and material; `None` when the ray misses. Invalid rays (see
    /// [`Ray::is_valid`]) and NaN or negative `max_t` hit nothing.
    ///
    /// Allocates a [`RayScratch`]; loops call [`TerrainCollider::raycast_with`] with one scratch.
    pub fn raycast(&self, ray: &Ray, max_t: f32) -> Option<TerrainHit> {
        self.raycast_with(ray, max_t, &mut RayScratch::new())
    }

    /// [`TerrainCollider::raycast`] with caller-owned buffers: no allocation once they have grown
    /// (cache misses excepted, which build a chunk's mesh and tree).
    pub fn raycast_with(&self, ray: &Ray, max_t: f32, scratch: &mut RayScratch) -> Option<TerrainHit> {
        if !ray.is_valid() || !(max_t >= 0.0) {
            return None;
        }
        // Every mesh lies in the world grown by one voxel below (see the module docs).
        let geometry = Aabb::new((self.world.min - IVec3::ONE).as_vec3(), self.world.max.as_vec3());
        let outside = (geometry.min - ray.origin).max(ray.origin - geometry.max).max_element();
        if outside > FAR_ORIGIN {
            return self.raycast_far(ray, max_t, geometry);
        }
        let (t0, t1) = geometry.intersect_ray(ray, 0.0, max_t)?;
        let edge = PHYSICS_CHUNK_EDGE;
        let kmin = (self.world.min - IVec3::ONE).div_euclid(IVec3::splat(edge));
        let kmax = self.world.max.div_euclid(IVec3::splat(edge));

        let o = ray.origin.to_array();
        let d = ray.dir.to_array();
        let inv = ray.inv_dir.to_array();
        let start = (ray.at(t0) / edge as f32).floor().as_ivec3().clamp(kmin, kmax);
        let cell = start.to_array();
        let step: [i32; 3] = core::array::from_fn(|a| {
            if d[a] > 0.0 {
                1
            } else if d[a] < 0.0 {
                -1
            } else {
                0
            }
        });
        let crossing = |a: usize, c: i32| -> f32 {
            if step[a] == 0 {
                f32::INFINITY
            } else {
                let plane = (c + i32::from(step[a] > 0)) * edge;
                (plane as f32 - o[a]) * inv[a]
            }
        };
        let t_next: [f32; 3] = core::array::from_fn(|a| crossing(a, cell[a]));
        // Hits within this much of a box's exit may be beaten by an owner of the next box: float
        // rounding of `t` is a few ulps of the coordinates involved, in units of the direction.
        let scale = ray.origin.abs().max_element() + geometry.min.abs().max(geometry.max.abs()).max_element();
        let eps = 64.0 * f32::EPSILON * scale / ray.dir.abs().max_element();
        // The walk crosses each chunk plane of the geometry box at most once per axis.
        let max_boxes = (kmax - kmin + IVec3::ONE).element_sum() + 1;

        let mut best: Option<Best> = None;
        let mut ask = |owner: IVec3, best: &mut Option<Best>| {
            if !self.may_have_surface(owner) {
                return;
            }
            let shape = self.cache.get_or_build(&self.store, owner);
            if shape.is_empty() {
                return;
            }
            let cutoff = best.as_ref().map_or(t1, |b| b.t);
            if let Some(h) = shape.tree().cast_ray(shape.mesh(), ray, cutoff, &mut scratch.kd) {
                let better = match best {
                    None => true,
                    Some(b) => h.t < b.t || (h.t == b.t && key_order(owner) < key_order(b.chunk)),
                };
                if better {
                    *best = Some(Best { t: h.t, chunk: owner, triangle: h.triangle, shape });
                }
            }
        };

        // A point on a chunk plane lies in the boxes on both sides. The walk visits both when it
        // crosses the plane, but not when the ray starts on it (the box below is never entered)
        // or runs inside it (parallel): there the owners of the box below are asked too. Rays
        // straight down at integer coordinates are common, so this is no corner case.
        let p0 = ray.at(t0).to_array();
        let on_plane: [bool; 3] = core::array::from_fn(|a| p0[a] == (cell[a] * edge) as f32);
        let start_low: [i32; 3] = core::array::from_fn(|a| i32::from(on_plane[a]));
        let walk_low: [i32; 3] = core::array::from_fn(|a| i32::from(on_plane[a] && step[a] == 0));
        let walk = Walk { cell, step, kmin, kmax, start_low, walk_low, max_boxes };
        walk.run(
            t_next,
            t1,
            crossing,
            &mut best,
            |b, t_exit| b.as_ref().is_some_and(|b| b.t <= t_exit - eps),
            &mut ask,
        );

        let best = best?;
        let shape = &best.shape;
        let [p0, p1, p2] = shape.mesh().triangle_positions(best.triangle);
        Some(TerrainHit {
            t: best.t,
            point: ray.at(best.t),
            normal: (p1 - p0).cross(p2 - p0).normalize_or_zero(),
            material: shape.mesh().triangle_material(best.triangle),
            chunk: best.chunk,
            triangle: best.triangle,
        })
    }

    /// A ray whose origin lies more than [`FAR_ORIGIN`] voxels outside `geometry`: restarted a
    /// voxel before the box in `f64` and walked in `f64` from that point, each owner's triangles
    /// tested in `f64` relative to it (no `f32` ray near the box, whose origin could be half a
    /// voxel off the line near 2^23). `t` counts along the original ray.
    fn raycast_far(&self, ray: &Ray, max_t: f32, geometry: Aabb) -> Option<TerrainHit> {
        let r = restart(ray, max_t, geometry)?;
        let (o, d) = (r.point, ray.dir.as_dvec3());
        let (lo, hi) = (geometry.min.as_dvec3(), geometry.max.as_dvec3());
        // The local ray's slabs: t counts from the restart point, up to what is left of max_t.
        let (mut t0, mut t1) = (0.0f64, r.max_t);
        for a in 0..3 {
            if d[a] == 0.0 {
                if o[a] < lo[a] || o[a] > hi[a] {
                    return None;
                }
                continue;
            }
            let (ta, tb) = ((lo[a] - o[a]) / d[a], (hi[a] - o[a]) / d[a]);
            t0 = t0.max(ta.min(tb));
            t1 = t1.min(ta.max(tb));
        }
        if !(t0 <= t1) {
            return None;
        }
        let edge = PHYSICS_CHUNK_EDGE;
        let kmin = (self.world.min - IVec3::ONE).div_euclid(IVec3::splat(edge));
        let kmax = self.world.max.div_euclid(IVec3::splat(edge));
        let p0 = o + d * t0;
        let start = (p0 / f64::from(edge)).floor().as_ivec3().clamp(kmin, kmax);
        let cell = start.to_array();
        let step: [i32; 3] = core::array::from_fn(|a| {
            if d[a] > 0.0 {
                1
            } else if d[a] < 0.0 {
                -1
            } else {
                0
            }
        });
        let crossing = |a: usize, c: i32| -> f64 {
            if step[a] == 0 { f64::INFINITY } else { (f64::from((c + i32::from(step[a] > 0)) * edge) - o[a]) / d[a] }
        };
        let t_next: [f64; 3] = core::array::from_fn(|a| crossing(a, cell[a]));
        // f64 rounding of t at coordinates below 2^31 is far below this (in direction units).
        let eps = 1e-6 / f64::from(ray.dir.abs().max_element());
        let max_boxes = (kmax - kmin + IVec3::ONE).element_sum() + 1;

        // (local t, chunk, triangle, shape): the near walk's hit order.
        let mut best: Option<(f64, IVec3, u32, Arc<ChunkShape>)> = None;
        let ask = |owner: IVec3, best: &mut Option<(f64, IVec3, u32, Arc<ChunkShape>)>| {
            if !self.may_have_surface(owner) {
                return;
            }
            let shape = self.cache.get_or_build(&self.store, owner);
            let mesh = shape.mesh();
            let mut found: Option<(f64, u32)> = None;
            for i in 0..mesh.triangle_count() as u32 {
                let cutoff = found.map_or(best.as_ref().map_or(t1, |b| b.0), |f| f.0);
                let tri = mesh.triangle_positions(i);
                if !triangle_is_usable(tri) {
                    continue;
                }
                let [a, b, c] = tri.map(|v| v.as_dvec3() - o);
                if let Some(t) = ray_triangle_f64(d, [a, b, c], cutoff) {
                    if found.is_none_or(|f| t < f.0) {
                        found = Some((t, i));
                    }
                }
            }
            if let Some((t, i)) = found {
                let better = match best {
                    None => true,
                    Some(b) => t < b.0 || (t == b.0 && key_order(owner) < key_order(b.1)),
                };
                if better {
                    *best = Some((t, owner, i, shape));
                }
            }
        };

        // As in the near walk: a start on a chunk plane, or a ray inside one, also asks the
        // owners below it.
        let p0 = p0.to_array();
        let on_plane: [bool; 3] = core::array::from_fn(|a| p0[a] == f64::from(cell[a] * edge));
        let start_low: [i32; 3] = core::array::from_fn(|a| i32::from(on_plane[a]));
        let walk_low: [i32; 3] = core::array::from_fn(|a| i32::from(on_plane[a] && step[a] == 0));
        let walk = Walk { cell, step, kmin, kmax, start_low, walk_low, max_boxes };
        walk.run(t_next, t1, crossing, &mut best, |b, t_exit| b.as_ref().is_some_and(|b| b.0 <= t_exit - eps), ask);

        let (t_local, chunk, triangle, shape) = best?;
        let t = (r.shift + t_local).min(f64::from(max_t));
        let [p0, p1, p2] = shape.mesh().triangle_positions(triangle);
        // From the restart point: `origin + t * dir` would cancel a huge origin against a huge step.
        let point = r.point + d * t_local;
        Some(TerrainHit {
            t: t as f32,
            point: Vec3::new(point.x as f32, point.y as f32, point.z as f32),
            normal: (p1 - p0).cross(p2 - p0).normalize_or_zero(),
            material: shape.mesh().triangle_material(triangle),
            chunk,
            triangle,
        })
    }

    /// Casts every ray of `casts` in parallel (rayon): `out[i]` is `raycast(casts[i])`. `out` is
    /// cleared and refilled; the answers are the same whatever the thread count.
    pub fn raycast_batch(&self, casts: &[Cast], out: &mut Vec<Option<TerrainHit>>) {
        out.clear();
        out.resize(casts.len(), None);
        out.par_chunks_mut(RAYS_PER_TASK).zip(casts.par_chunks(RAYS_PER_TASK)).for_each_init(
            RayScratch::new,
            |scratch, (out, casts)| {
                for (o, c) in out.iter_mut().zip(casts) {
                    *o = self.raycast_with(&c.ray, c.max_t, scratch);
                }
            },
        );
    }
}

/// Möller and Trumbore's test in `f64` of the ray from the origin along `d` against a triangle
/// given relative to the ray's origin: `t` in `[0, max_t]`, edges included (a seam between two
/// triangles is hit by both; the caller keeps the lower index on equal `t`).
fn ray_triangle_f64(d: DVec3, [a, b, c]: [DVec3; 3], max_t: f64) -> Option<f64> {
    let (e1, e2) = (b - a, c - a);
    let pv = d.cross(e2);
    let det = e1.dot(pv);
    if !(det.abs() > 0.0) {
        return None;
    }
    let inv = 1.0 / det;
    let s = -a;
    let u = s.dot(pv) * inv;
    if !(0.0..=1.0).contains(&u) {
        return None;
    }
    let q = s.cross(e1);
    let v = d.dot(q) * inv;
    if !(v >= 0.0 && u + v <= 1.0) {
        return None;
    }
    let t = e2.dot(q) * inv;
    (t >= 0.0 && t <= max_t).then_some(t)
}

/// The chunk boxes a ray crosses, for the near (`f32`) and far (`f64`) walks: the box `cell`
/// (in chunk units, clamped to `kmin..=kmax`) and the direction's signs `step`; `start_low` and
/// `walk_low` say, per axis, where the start box's and the later boxes' owners below a chunk plane
/// the ray starts on or runs in are asked too.
struct Walk {
    cell: [i32; 3],
    step: [i32; 3],
    kmin: IVec3,
    kmax: IVec3,
    start_low: [i32; 3],
    walk_low: [i32; 3],
    max_boxes: i32,
}

impl Walk {
    /// Asks the owners of each box the ray crosses (`ask`), in order, from `t_next` (where it
    /// leaves the start box on each axis; `crossing(a, c)` is where it leaves box `c` on axis
    /// `a`), until the ray ends at `t1`, it leaves the geometry, or `found(best, t_exit)` says the
    /// best hit so far comes before the box's exit.
    fn run<T: Copy + PartialOrd, B>(
        self,
        mut t_next: [T; 3],
        t1: T,
        crossing: impl Fn(usize, i32) -> T,
        best: &mut B,
        found: impl Fn(&B, T) -> bool,
        mut ask: impl FnMut(IVec3, &mut B),
    ) {
        let Walk { mut cell, step, kmin, kmax, start_low, walk_low, max_boxes } = self;
        let min = |a: T, b: T| if b < a { b } else { a };
        let base = IVec3::from_array(cell);
        for dy in -start_low[1]..=1 {
            for dz in -start_low[2]..=1 {
                for dx in -start_low[0]..=1 {
                    ask(base + IVec3::new(dx, dy, dz), best);
                }
            }
        }
        for _ in 0..max_boxes {
            let t_exit = min(min(min(t_next[0], t_next[1]), t_next[2]), t1);
            if found(best, t_exit) || t_exit >= t1 {
                break;
            }
            // Step the axis whose plane comes first (ties in axis order x, y, z).
            let a = if t_next[0] <= t_next[1] && t_next[0] <= t_next[2] {
                0
            } else if t_next[1] <= t_next[2] {
                1
            } else {
                2
            };
            cell[a] += step[a];
            if cell[a] < kmin[a] || cell[a] > kmax[a] {
                break;
            }
            t_next[a] = crossing(a, cell[a]);
            // The owners this box adds: on the stepped axis, its own layer when stepping down and
            // the layer above it when stepping up; on the other two, the box and the one above
            // (and the one below where the ray runs in a chunk plane).
            let mut base = IVec3::from_array(cell);
            if step[a] > 0 {
                base[a] += 1;
            }
            let (b, c) = ((a + 1) % 3, (a + 2) % 3);
            for db in -walk_low[b]..=1 {
                for dc in -walk_low[c]..=1 {
                    let mut owner = base;
                    owner[b] += db;
                    owner[c] += dc;
                    ask(owner, best);
                }
            }
        }
    }
}
