//! One ray through the occupancy: Amanatides-Woo kept inside the current working chunk, with empty
//! chunks and bricks crossed in one step.
//!
//! Seed `002_eedd96a2ecd47c19.txt`, "Ray Marching": J. Amanatides and A. Woo, "A Fast Voxel
//! Traversal Algorithm for Ray Tracing" (Eurographics 1987), optimised by keeping a reference to the
//! current working chunk, chunk-relative coordinates and an access index stepped incrementally,
//! looking the chunk up only when the ray leaves it, and two early exits (the ray misses the world;
//! the ray starts and ends in the same voxel).
//!
//! Beyond the seed, a chunk the table marks empty, or an empty 16^3 brick of a stored chunk, is
//! crossed in one step: the exit time is the nearest exit plane, and the cells on the other axes
//! are found from the same plane crossing times the voxel walk uses (a guess from the exit point,
//! corrected by a search), so skipping changes no result, bit for bit.
//!
//! # The walk's definition
//!
//! The ray crosses the plane `x = k` at `t = (k - origin.x) / dir.x`, computed as
//! `(k as f32 - origin.x) * (1 / dir.x)` (the same for `y` and `z`); it visits the voxels in order
//! of these crossing times, and crossings at the same time in the order x, y, z. A voxel is
//! entered at the time of the crossing that leads into it; the walk stops at the first solid voxel
//! entered at `t <= max_t`. The property tests compare every result with a plain per-voxel walk that
//! follows this definition.
//!
//! A ray whose origin lies more than [`FAR_ORIGIN`](crate::FAR_ORIGIN) voxels outside the solid
//! bounds is first restarted on its own line a voxel before it enters them (in `f64`), and that
//! restarted ray is walked by the same definition in a frame counted from a chunk corner next to
//! it (`origin` and `k` relative to the corner): see [`Occupancy::cast_far`].

use glam::{BVec3A, IVec3, Vec3, Vec3A};
use voxel_core::{Aabb, Ray};

use crate::far::restart;
use crate::lanes::{self, F4, I4};
use crate::occupancy::{BRICK_EDGE, CHUNK_BITS, CHUNK_EDGE, CHUNK_WORDS, MAX_COORDINATE, Occupancy};

/// A coordinate axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Axis {
    /// The x axis.
    X = 0,
    /// The y axis (up).
    Y = 1,
    /// The z axis.
    Z = 2,
}

impl Axis {
    /// The axis of index 0, 1 or 2 (x, y, z); indices above 2 give z.
    #[inline]
    pub const fn from_index(index: usize) -> Axis {
        match index {
            0 => Axis::X,
            1 => Axis::Y,
            _ => Axis::Z,
        }
    }

    /// 0, 1 or 2.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// The face of a voxel through which a ray entered it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Face {
    /// The axis the face is perpendicular to (the axis whose plane the ray crossed).
    pub axis: Axis,
    /// True when the face's outward normal points along `+axis` (the ray travelled towards
    /// `-axis` when it crossed it).
    pub positive: bool,
}

impl Face {
    /// The outward unit normal of the face: a particle that hits it reflects its velocity's
    /// component along [`Face::axis`], as in the seed.
    #[inline]
    pub fn normal(self) -> IVec3 {
        let mut n = IVec3::ZERO;
        n[self.axis.index()] = if self.positive { 1 } else { -1 };
        n
    }
}

/// Where a ray met the first solid voxel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// The solid voxel (the unit cell `[voxel, voxel + 1)`).
    pub voxel: IVec3,
    /// The face the ray entered it through; `None` when the ray starts inside it (`t = 0`).
    pub face: Option<Face>,
    /// The ray parameter of the entry: the point is `origin + t * dir`.
    pub t: f32,
    /// The entry point, with its coordinate along the face's axis exactly on the face plane.
    pub point: Vec3,
}

/// Marker of "no face" (the ray starts in the voxel).
const NO_FACE: usize = 3;

/// A ray's state while it walks: the current cell and the next plane crossing on each axis.
struct Walk {
    origin: Vec3A,
    /// The ray direction, for guesses only (crossing times use `inv`).
    dir: Vec3A,
    /// `1 / dir`, zero on axes the ray is parallel to.
    inv: Vec3A,
    /// +1, -1, or 0 on an axis the ray is parallel to (zero or subnormal direction component).
    step: [i32; 3],
    /// `step` in lanes.
    step_lanes: Vec3A,
    cell: [i32; 3],
    /// Entry time of `cell`.
    t: f32,
    /// Axis crossed into `cell`, or [`NO_FACE`].
    face: usize,
    /// Coordinate of the next plane on each axis.
    plane: Vec3A,
    /// Crossing time of `plane`; infinite on parallel axes.
    t_next: Vec3A,
}

impl Walk {
    /// The time the ray crosses plane `k` of axis `a` (the walk's one formula for it).
    #[inline(always)]
    fn cross_time(&self, a: usize, k: f32) -> f32 {
        (k - self.origin[a]) * self.inv[a]
    }

    /// Sets the next planes from `cell`.
    #[inline]
    fn set_planes(&mut self) {
        for a in 0..3 {
            if self.step[a] == 0 {
                self.t_next[a] = f32::INFINITY;
            } else {
                let k = (self.cell[a] + i32::from(self.step[a] > 0)) as f32;
                self.plane[a] = k;
                self.t_next[a] = self.cross_time(a, k);
            }
        }
    }

    /// The cell on axis `a` (not parallel) right after the crossing of axis `e` at time `at`,
    /// given that `known` was reached before it and the answer lies between `known` and `limit`
    /// (the last cell of the region along the ray's direction).
    ///
    /// A crossing at time `t` on axis `a` happened before when `t < at`, or `t == at` and `a < e`
    /// (ties go in axis order). Crossing times grow monotonically along the ray, so the answer is
    /// the last cell whose entry crossing happened before; the exit point's floor guesses it and a
    /// search over `known..=limit` corrects the guess, so rounding cannot make a skip disagree
    /// with the voxel walk.
    fn cell_at(&self, a: usize, known: i32, limit: i32, at: f32, e: usize, guess: i32) -> i32 {
        let before = |t: f32| t < at || (t == at && a < e);
        if self.step[a] > 0 {
            // Cell c is entered through plane c.
            last_true(known, limit, guess, |c| before(self.cross_time(a, c as f32)))
        } else {
            // Cell c is entered through plane c + 1; walk in u = -c so cells still grow.
            -last_true(-known, -limit, guess.saturating_neg(), |u| before(self.cross_time(a, (1 - u) as f32)))
        }
    }

    /// [`Walk::skip`] in lanes: the exit axis by the step's own nearest-time choice, the cells on
    /// the other axes guessed from the exit point and checked with two crossing times each (the
    /// entry of the guessed cell came before the exit, its leaving did not); when a guess fails
    /// the check (rounding near a plane), the exact per-axis [`Walk::skip`] decides.
    fn skip_lanes(&mut self, lo: IVec3, hi: IVec3, max_t: f32) -> bool {
        let up = self.step_lanes.cmpgt(Vec3A::ZERO);
        let moving = self.step_lanes.cmpne(Vec3A::ZERO);
        let (lo_f, hi_f) = (lo.as_vec3a(), hi.as_vec3a());
        let up_one = Vec3A::select(up, Vec3A::ONE, Vec3A::ZERO);
        // The plane each axis leaves the region through, and when.
        let exit = Vec3A::select(up, hi_f + Vec3A::ONE, lo_f);
        let t_exit = Vec3A::select(moving, (exit - self.origin) * self.inv + Vec3A::ZERO, Vec3A::INFINITY);
        let nearest = lanes::nearest(F4::from_vec(t_exit).bits());
        let e_bits = nearest.movemask() & 7;
        let e = e_bits.trailing_zeros() as usize;
        // The exit lane holds the smallest time (infinite lanes never win): no branch on `e`.
        let at = t_exit.min_element();
        if !(at <= max_t) {
            return false;
        }
        let cell = IVec3::from_array(self.cell).as_vec3a();
        let limit = Vec3A::select(up, hi_f, lo_f);
        let guess = (self.origin + self.dir * at).floor();
        let guess = Vec3A::select(up, guess.max(cell).min(limit), guess.min(cell).max(limit));
        // Crossing times of the plane into the guessed cell and of the plane out of it.
        let t_in = (guess + Vec3A::ONE - up_one - self.origin) * self.inv + Vec3A::ZERO;
        let plane_out = guess + up_one;
        let t_out = (plane_out - self.origin) * self.inv + Vec3A::ZERO;
        // "Crossed before the exit": t < at, or t == at on an axis below e (ties go in axis
        // order), on the bits: at + [axis below e] > t.
        let at_bits = I4::splat(at.to_bits() as i32).add(I4::new(i32::from(e_bits > 1), i32::from(e_bits > 2), 0, 0));
        let in_before = at_bits.gt(F4::from_vec(t_in).bits()).movemask();
        let out_before = at_bits.gt(F4::from_vec(t_out).bits()).movemask();
        let ok = (guess.cmpeq(cell).bitmask() | in_before) & (guess.cmpeq(limit).bitmask() | !out_before);
        let need = moving.bitmask() & !e_bits;
        if ok & need != need {
            return self.skip(lo.to_array(), hi.to_array(), max_t);
        }
        let e_cell = Vec3A::select(up, hi_f + Vec3A::ONE, lo_f - Vec3A::ONE);
        let others = Vec3A::select(moving, guess, cell);
        let cell = nearest.select(F4::from_vec(e_cell).bits(), F4::from_vec(others).bits()).floats().to_vec();
        let plane = cell + up_one;
        self.cell = lanes::truncate(cell).to_array();
        self.plane = plane;
        self.t_next = Vec3A::select(moving, (plane - self.origin) * self.inv, Vec3A::INFINITY);
        self.t = at;
        self.face = e;
        true
    }

    /// Crosses the region of cells `lo..=hi` (which holds `cell` and no solid voxel) in one step:
    /// leaves `cell` on the first cell past the region and `t` at its entry. Returns `false` when
    /// that entry lies beyond `max_t`.
    fn skip(&mut self, lo: [i32; 3], hi: [i32; 3], max_t: f32) -> bool {
        let (mut e, mut at) = (NO_FACE, f32::INFINITY);
        let mut exit_plane = [0i32; 3];
        for a in 0..3 {
            if self.step[a] == 0 {
                continue;
            }
            exit_plane[a] = if self.step[a] > 0 { hi[a] + 1 } else { lo[a] };
            let t = self.cross_time(a, exit_plane[a] as f32);
            // Strict: on a tie the lower axis crosses first, so it is the one that leaves.
            if t < at {
                (e, at) = (a, t);
            }
        }
        if !(at <= max_t) || e == NO_FACE {
            return false;
        }
        for a in 0..3 {
            if self.step[a] == 0 {
                // Parallel: the cell stays, and so does the infinite crossing time.
                continue;
            }
            let up = self.step[a] > 0;
            // Cell c is entered through plane `c + !up` and left through plane `c + up`.
            let cell = if a == e {
                exit_plane[e] - i32::from(!up)
            } else {
                let (known, limit) = (self.cell[a], if up { hi[a] } else { lo[a] });
                let guess = saturate_i32(floor_i64(self.origin[a] + at * self.dir[a]));
                let guess = if up { guess.max(known).min(limit) } else { guess.min(known).max(limit) };
                // The guess is right when its entry crossing came before the exit and the
                // crossing that leaves it did not: checked with the walk's own crossing times,
                // whose second one is the next crossing time the walk needs anyway.
                let before = |t: f32| t < at || (t == at && a < e);
                let leave_t = self.cross_time(a, (guess + i32::from(up)) as f32);
                if (guess == known || before(self.cross_time(a, (guess + i32::from(!up)) as f32)))
                    && (guess == limit || !before(leave_t))
                {
                    self.cell[a] = guess;
                    self.plane[a] = (guess + i32::from(up)) as f32;
                    self.t_next[a] = leave_t;
                    continue;
                }
                self.cell_at(a, known, limit, at, e, guess)
            };
            self.cell[a] = cell;
            let k = (cell + i32::from(up)) as f32;
            self.plane[a] = k;
            self.t_next[a] = self.cross_time(a, k);
        }
        self.t = at;
        self.face = e;
        true
    }
}

/// `x.floor()` as an integer, saturating far outside the `i64` range (and 0 for NaN, which no
/// caller passes). Baseline x86-64 has no floor instruction, and `f32::floor` is a libm call that
/// cost a third of a clear-air ray's instructions.
#[inline(always)]
fn floor_i64(x: f32) -> i64 {
    let i = x as i64;
    // Truncation rounds towards zero: one less for negative non-integers. Beyond 2^23 every f32
    // is an integer, so `i as f32` is exact wherever the comparison can be true.
    i.saturating_sub(i64::from((i as f32) > x))
}

#[inline(always)]
fn saturate_i32(x: i64) -> i32 {
    x.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
}

/// The largest `c` in `first..=last` with `pred(c)`, for `pred` true up to some point and false
/// after it, with `pred(first)` taken as true; `guess` is probed first.
fn last_true(first: i32, last: i32, guess: i32, pred: impl Fn(i32) -> bool) -> i32 {
    let (mut lo, mut hi) = (first, last.max(first));
    let g = guess.clamp(lo, hi);
    if g > lo {
        if pred(g) {
            lo = g;
        } else {
            hi = g - 1;
            if hi > lo && pred(hi) {
                return hi;
            }
        }
    }
    if lo == g && lo < hi && !pred(lo + 1) {
        return lo;
    }
    while lo < hi {
        let mid = lo + (hi - lo + 1) / 2;
        if pred(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

impl Occupancy {
    /// The first solid voxel the ray enters at `t` in `0..=max_t`, or `None`.
    ///
    /// `t` is in units of `ray.dir` (pass a unit direction for world distances, or a velocity and
    /// `max_t = dt` for one step of a particle). A ray that starts in a solid voxel hits it at
    /// `t = 0` with no face. A ray starting outside the world box is clipped to it (no hit when it
    /// misses the box).
    ///
    /// Bad input is a documented no-hit, never a panic or a hang: an invalid [`Ray`] (origin not
    /// finite; direction NaN, infinite, or zero or subnormal in every component; see
    /// [`Ray::try_new`] for the reason; a single subnormal component counts as zero),
    /// a NaN or negative `max_t`. An infinite `max_t` walks to the world's edge.
    ///
    /// Allocation-free; the walk is bounded by the world box. On x86_64 CPUs with AVX2 (detected
    /// at run time) the same code runs compiled for AVX2: the same results, bit for bit.
    #[inline]
    pub fn cast(&self, ray: &Ray, max_t: f32) -> Option<RayHit> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above).
            #[allow(unsafe_code)]
            return unsafe { self.cast_avx2(ray, max_t) };
        }
        self.cast_any(ray, max_t)
    }

    /// [`Occupancy::cast`] compiled for AVX2. The walk's lane code is SSE2 intrinsics; with AVX2
    /// they take the three-operand VEX forms (no register copies) and the lane selects become
    /// blends, which cuts the instructions of a voxel step by about a fifth.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    pub(crate) fn cast_avx2(&self, ray: &Ray, max_t: f32) -> Option<RayHit> {
        self.cast_any(ray, max_t)
    }

    /// [`Occupancy::cast`] for whatever target features the caller is compiled with.
    #[inline(always)]
    pub(crate) fn cast_any(&self, ray: &Ray, max_t: f32) -> Option<RayHit> {
        self.cast_in::<false>(ray, max_t, IVec3::ZERO)
    }

    /// The cast in a frame: with `FAR`, the ray and every cell and plane of the walk are counted
    /// from `base` (a chunk corner, so chunk-relative cells and bricks are the world's), and the
    /// hit's voxel, `t` and point are the frame's ([`Occupancy::cast_far`] maps them back).
    /// Without `FAR`, `base` is ignored: the world's own frame, with no work added to the walk.
    #[inline(always)]
    fn cast_in<const FAR: bool>(&self, ray: &Ray, max_t: f32, base: IVec3) -> Option<RayHit> {
        if !(max_t >= 0.0) {
            return None;
        }
        // Every crossing time is finite or +inf; comparing against a finite bound stops the walk
        // at an overflowed (infinite) crossing even when the caller passed an infinite max_t.
        // `+ 0.0` makes a -0.0 bound +0.0 (the walk compares the bits of times).
        let max_t = max_t.min(f32::MAX) + 0.0;
        let origin = Vec3A::from(ray.origin);
        let dir = Vec3A::from(ray.dir);
        // One division for the three axes; zero (either sign) and subnormal components give an
        // infinite inverse: the ray is parallel to that axis's planes. Not `ray.inv_dir`: the
        // fields are public, and a ray built field by field may carry a stale one.
        let inv = Vec3A::ONE / dir;
        let moving = inv.is_finite_mask();
        // `Ray::is_valid`, checked on the lanes at hand in three places so that the common path
        // pays for one compare (the check itself costs 10 instructions a ray): a finite
        // direction here; a finite origin by the bounds test below (NaN and infinities fail it)
        // or in `enter_from_outside`; a direction with a finite inverse on some axis at the
        // same-voxel exit (a ray with no moving axis always takes it) or in `enter_from_outside`.
        if !dir.is_finite_mask().all() {
            return None;
        }
        let up = dir.cmpgt(Vec3A::ZERO) & moving;
        let down = dir.cmplt(Vec3A::ZERO) & moving;
        let step_lanes = Vec3A::select(up, Vec3A::ONE, Vec3A::ZERO) - Vec3A::select(down, Vec3A::ONE, Vec3A::ZERO);
        // Exact below 2^31 in magnitude; anything larger lands outside the solid bounds (which
        // lie within 2^23), where `enter` floors the origin again on its own.
        let cell = F4::from_vec(origin).floor().to_vec();
        let mut walk = Walk {
            origin,
            dir,
            inv: Vec3A::select(moving, inv, Vec3A::ZERO),
            step: lanes::truncate(step_lanes).to_array(),
            step_lanes,
            cell: [0; 3],
            t: 0.0,
            face: NO_FACE,
            plane: Vec3A::ZERO,
            t_next: Vec3A::INFINITY,
        };
        // Every solid voxel lies in `solid_bounds`: the walk starts where the ray enters it and
        // ends where it leaves it (the seed's "outside the map" exit, on a tighter box). The
        // common case, an origin inside, in lanes: the cell, the next planes and their crossing
        // times with the same formula as `set_planes`.
        let (bounds_lo, bounds_hi) = if FAR {
            // Exact: integers of at most 2^24 in magnitude.
            (self.bounds_lo - base.as_vec3a(), self.bounds_hi - base.as_vec3a())
        } else {
            (self.bounds_lo, self.bounds_hi)
        };
        let in_bounds = cell.cmpge(bounds_lo) & cell.cmplt(bounds_hi);
        if in_bounds.all() {
            walk.plane = cell + Vec3A::select(up, Vec3A::ONE, Vec3A::ZERO);
            walk.t_next = Vec3A::select(moving, (walk.plane - origin) * walk.inv, Vec3A::INFINITY);
            // Inside the bounds every coordinate is below 2^23: exact as an i32.
            walk.cell = lanes::truncate(cell).to_array();
            // Early exit of the seed: the ray ends in the voxel it starts in (a particle at
            // rest). Only the one voxel is read, no chunk is entered.
            if walk.t_next.min_element() > max_t {
                let cell = in_world::<FAR>(walk.cell, base);
                return (moving.any() && self.is_solid(IVec3::from_array(cell))).then(|| hit(&walk, ray));
            }
        } else {
            // An origin far outside (or not finite): the walk's f32 times could not tell voxels
            // apart there, so the ray starts again next to the solid bounds. Two lane compares
            // here; the rest out of line. (A frame's origin lies next to the bounds already.)
            if !FAR && !(origin.cmpge(self.far_lo) & origin.cmplt(self.far_hi)).all() {
                return self.cast_far(ray, max_t);
            }
            if !self.enter_from_outside::<FAR>(&mut walk, in_bounds, moving, max_t, base) {
                return None;
            }
        }
        self.walk::<FAR>(&mut walk, ray, max_t, base)
    }

    /// Casts a ray whose origin lies more than [`FAR_ORIGIN`](crate::FAR_ORIGIN) voxels outside
    /// the solid bounds: restarted one voxel before where it enters them, on its own line (in
    /// `f64`, see `far`), and walked in a frame counted from a chunk corner next to that point;
    /// the hit is given the original ray's `t` and a point on the original line.
    ///
    /// Not [`clip_far_ray`](crate::clip_far_ray)'s `f32` ray: near the coordinate limit an `f32`
    /// point is only as fine as half a voxel, so a walk restarted there would leave the ray's
    /// line by up to that much (and miss voxels the line enters). In the frame the restart point
    /// is a small number, rounded to `f32` within `2e-6` voxel, and the planes are exact
    /// integers (at most 2^24 in magnitude: `base` lies within the limit, and so does every plane
    /// of the bounds).
    #[inline(never)]
    fn cast_far(&self, ray: &Ray, max_t: f32) -> Option<RayHit> {
        if !ray.is_valid() || self.solid_bounds.is_empty() {
            return None;
        }
        let b = self.solid_bounds;
        let start = restart(ray, max_t, Aabb::new(b.min.as_vec3(), b.max.as_vec3()))?;
        // The restart point lies within a voxel of the bounds (so well within i32).
        let limit = IVec3::splat(MAX_COORDINATE.get());
        let base = (start.point.floor().as_ivec3() & !(CHUNK_EDGE - 1)).clamp(-limit, limit);
        let local = (start.point - base.as_dvec3()).as_vec3();
        let mut hit = self.cast_in::<true>(&Ray::new(local, ray.dir), start.max_t as f32, base)?;
        hit.voxel += base;
        let t = start.shift + f64::from(hit.t);
        // The point from the original ray in f64, the face's coordinate exactly on its plane.
        let mut point = ray.origin.as_dvec3() + ray.dir.as_dvec3() * t;
        if let Some(face) = hit.face {
            let a = face.axis.index();
            point[a] = f64::from(hit.voxel[a] + i32::from(face.positive));
        }
        // Rounding of the sum may pass max_t by an ulp; the hit was entered within it.
        hit.t = (t as f32).min(max_t);
        hit.point = point.as_vec3();
        Some(hit)
    }

    /// Puts a walk whose origin lies outside the solid bounds on the cell where it enters them;
    /// `false` when it never does within `max_t`. Rare for particles: kept out of line.
    #[inline(never)]
    fn enter_from_outside<const FAR: bool>(
        &self,
        walk: &mut Walk,
        in_bounds: BVec3A,
        moving: BVec3A,
        max_t: f32,
        base: IVec3,
    ) -> bool {
        let bounds = self.solid_bounds;
        // An invalid ray (see `cast_any`): a non-finite origin, or no moving axis.
        if !walk.origin.is_finite() || !moving.any() {
            return false;
        }
        // Outside the bounds' slab on an axis the ray is parallel to (a horizontal ray above
        // the terrain): it never enters.
        if bounds.is_empty() || (!in_bounds & !moving).any() {
            return false;
        }
        let lo = in_frame::<FAR>(bounds.min, base).to_array();
        let hi = in_frame::<FAR>(bounds.max - IVec3::ONE, base).to_array();
        if !self.enter(walk, lo, hi, max_t) {
            return false;
        }
        walk.set_planes();
        true
    }

    /// Puts the walk on its first cell inside the world box (the origin's, or where the ray enters
    /// the box). `false` when the ray misses the box within `max_t`.
    fn enter(&self, walk: &mut Walk, lo: [i32; 3], hi: [i32; 3], max_t: f32) -> bool {
        // Saturating: a huge origin lands far outside, and is handled as any outside origin.
        let start = walk.origin.to_array().map(floor_i64);
        let mut at = -1.0f32;
        let mut e = NO_FACE;
        for a in 0..3 {
            let entry = if start[a] < i64::from(lo[a]) {
                if walk.step[a] <= 0 {
                    return false;
                }
                lo[a]
            } else if start[a] > i64::from(hi[a]) {
                if walk.step[a] >= 0 {
                    return false;
                }
                hi[a] + 1
            } else {
                continue;
            };
            let t = walk.cross_time(a, entry as f32);
            // `>=`: on a tie the higher axis crosses last, and that crossing enters the box.
            if t >= at {
                (e, at) = (a, t);
            }
        }
        if e == NO_FACE {
            walk.cell = start.map(|s| s as i32);
            return true;
        }
        if !(at <= max_t) {
            return false;
        }
        // The ray must still be inside every other slab after entering.
        for a in 0..3 {
            if a == e || walk.step[a] == 0 {
                continue;
            }
            let exit = if walk.step[a] > 0 { hi[a] + 1 } else { lo[a] };
            let t = walk.cross_time(a, exit as f32);
            if t < at || (t == at && a < e) {
                return false;
            }
        }
        for a in 0..3 {
            if a == e {
                walk.cell[a] = if walk.step[a] > 0 { lo[a] } else { hi[a] };
            } else if walk.step[a] == 0 {
                walk.cell[a] = start[a] as i32;
            } else {
                let (known, limit) = if walk.step[a] > 0 {
                    (start[a].max(i64::from(lo[a])) as i32, hi[a])
                } else {
                    (start[a].min(i64::from(hi[a])) as i32, lo[a])
                };
                let guess = saturate_i32(floor_i64(walk.origin[a] + at * walk.dir[a]));
                walk.cell[a] = walk.cell_at(a, known, limit, at, e, guess);
            }
        }
        walk.t = at;
        walk.face = e;
        true
    }

    /// The voxel walk from the walk's current cell, which lies inside the world box.
    ///
    /// Inside a stored chunk the walk keeps, in registers: the next crossing time on each axis
    /// (`t`, as the bits of non-negative floats), the two after it (computed two steps ahead so
    /// that the choice of the next axis waits on nothing but the compares and a blend), the
    /// planes that give them, the bit index in the chunk and the chunk-relative cell packed as three
    /// 8-bit fields. One step: the nearest axis as a lane mask (integer compares on the times'
    /// bits, see `lanes`), its crossing checked against `max_t` in the same mask, the times
    /// blended, the index and the packed cell moved by the axis's precomputed stride, one test for
    /// "left the chunk" (bit 5 of a field), one shift for the brick's bit. A step takes no branch
    /// but the loop's exits: a random ray's crossing order defeats a branch predictor.
    ///
    /// With `FAR`, the walk's cells are counted from the chunk corner `base` (see
    /// [`Occupancy::cast_in`]): only the chunk lookups and the bounds checks add it.
    #[inline(always)]
    fn walk<const FAR: bool>(&self, walk: &mut Walk, ray: &Ray, max_t: f32, base: IVec3) -> Option<RayHit> {
        let origin = F4::from_vec(walk.origin);
        let inv = F4::from_vec(walk.inv);
        let step = F4::from_vec(walk.step_lanes);
        // A crossing at time t is within reach when bits(max_t) + 1 > bits(t): `max_t` is a
        // non-negative float no larger than f32::MAX, so the sum does not overflow.
        let reach = I4::splat(max_t.to_bits() as i32 + 1);
        // By the step's axis, what one step adds to the bit index (x fastest, then z, then y) and
        // to the packed cell.
        // The steps (-1, 0, +1) times the strides, exact in floats, converted in lanes.
        let index_delta = step.mul(F4::from_vec(Vec3A::new(1.0, (CHUNK_EDGE * CHUNK_EDGE) as f32, CHUNK_EDGE as f32)));
        let index_delta = index_delta.truncate_lanes();
        let packed_delta = step.mul(F4::from_vec(Vec3A::new(1.0, 256.0, 65536.0))).truncate_lanes().map(|d| d as u32);
        'chunks: loop {
            let cell = IVec3::from_array(walk.cell);
            let key = cell >> CHUNK_BITS;
            let chunk_min = key * CHUNK_EDGE;
            let slot = self.slot(if FAR { key + (base >> CHUNK_BITS) } else { key });
            if slot == u32::MAX {
                if !walk.skip_lanes(chunk_min, chunk_min + IVec3::splat(CHUNK_EDGE - 1), max_t)
                    || !self.in_solid_bounds(in_world::<FAR>(walk.cell, base))
                {
                    return None;
                }
                continue 'chunks;
            }
            // The current working chunk.
            let bricks = u32::from(self.bricks[slot as usize]);
            let local = cell & (CHUNK_EDGE - 1);
            // The cell, chunk-relative, plus 64 in each byte (x, y, z): a step of +-1 never
            // borrows from or carries into the next field, bit 5 of a field is set exactly when
            // the step left the chunk (63 or 96), and bit 4 is the brick on that axis.
            let mut packed = (local.x + 64) as u32 | ((local.y + 64) as u32) << 8 | ((local.z + 64) as u32) << 16;
            if bricks >> packed_brick(packed) & 1 == 0 {
                if !self.skip_brick::<FAR>(walk, chunk_min, local, max_t, base) {
                    return None;
                }
                continue 'chunks;
            }
            let start = slot as usize * CHUNK_WORDS;
            let words: &[u64; CHUNK_WORDS] =
                self.bits[start..start + CHUNK_WORDS].try_into().expect("a slot holds CHUNK_WORDS words");
            let mut index = local.x + CHUNK_EDGE * (local.z + CHUNK_EDGE * local.y);
            // `+ 0.0` turns a -0.0 crossing time (an origin on a plane, stepping down) into +0.0,
            // so that the bits order as the floats do.
            let mut t = F4::from_vec(walk.t_next + Vec3A::ZERO).bits();
            // The crossing times of the next plane (`t`), the one after (`after`) and the one
            // after that (`far`, of plane `plane_far`). A step takes `after` into `t` and `far`
            // into `after` on its axis: the float work of a new time (add, subtract, multiply)
            // has two steps to finish before the compares wait on it. Planes past the next one
            // lie strictly ahead of the origin, so their times are never -0.0.
            let twice = step.add(step);
            let mut after = F4::from_vec(walk.plane).add(step).sub(origin).mul(inv).bits();
            let mut plane_far = F4::from_vec(walk.plane).add(twice);
            let mut far = plane_far.sub(origin).mul(inv).bits();
            let mut t_before = t;
            let mut lane_bits = 0u32;
            loop {
                // The cell's bit; a new brick's mask was checked on entry.
                if words[(index >> 6) as usize & (CHUNK_WORDS - 1)] >> (index & 63) & 1 != 0 {
                    walk.cell = (chunk_min + unpack(packed)).to_array();
                    if lane_bits != 0 {
                        walk.face = lane_bits.trailing_zeros() as usize;
                        // The chosen lane holds the smallest of the three times: the minimum is
                        // its time with no branch on the axis (a random axis mispredicts).
                        walk.t = t_before.floats().to_vec().min_element();
                    }
                    return Some(hit(walk, ray));
                }
                let nearest = lanes::nearest(t);
                let bits = nearest.and(reach.gt(t)).movemask();
                if bits == 0 {
                    // The nearest crossing lies beyond max_t.
                    return None;
                }
                t_before = t;
                lane_bits = bits;
                t = nearest.select(after, t);
                after = nearest.select(far, after);
                plane_far = plane_far.add(step.masked(nearest));
                far = plane_far.sub(origin).mul(inv).bits();
                // Bits 1, 2, 4 -> entries 0, 1, 2.
                let lane = (bits >> 1) as usize & 3;
                index += index_delta[lane];
                packed = packed.wrapping_add(packed_delta[lane]);
                let left_chunk = packed & 0x20_2020 != 0;
                if !left_chunk && bricks >> packed_brick(packed) & 1 != 0 {
                    continue;
                }
                walk.cell = (chunk_min + unpack(packed)).to_array();
                walk.face = bits.trailing_zeros() as usize;
                walk.t = t_before.floats().to_vec().min_element();
                walk.t_next = t.floats().to_vec();
                walk.plane = plane_far.sub(twice).to_vec();
                if left_chunk {
                    // Left the working chunk: look the next one up (or leave the world).
                    if !self.in_solid_bounds(in_world::<FAR>(walk.cell, base)) {
                        return None;
                    }
                    continue 'chunks;
                }
                if !self.skip_brick::<FAR>(walk, chunk_min, unpack(packed), max_t, base) {
                    return None;
                }
                continue 'chunks;
            }
        }
    }

    /// True when `cell` lies in the solid bounds (out of line: read once per chunk crossing, it
    /// would otherwise keep six loop-invariant bounds in registers or on the stack).
    #[inline(never)]
    fn in_solid_bounds(&self, cell: [i32; 3]) -> bool {
        self.solid_bounds.contains(IVec3::from_array(cell))
    }

    /// Crosses the empty brick of chunk-relative cell `local` in one step; `false` when the ray
    /// leaves the solid bounds or reaches `max_t` first.
    #[inline(never)]
    fn skip_brick<const FAR: bool>(
        &self,
        walk: &mut Walk,
        chunk_min: IVec3,
        local: IVec3,
        max_t: f32,
        base: IVec3,
    ) -> bool {
        let brick_min = chunk_min + (local & !(BRICK_EDGE - 1));
        let brick_max = brick_min + IVec3::splat(BRICK_EDGE - 1);
        walk.skip_lanes(brick_min, brick_max, max_t) && self.in_solid_bounds(in_world::<FAR>(walk.cell, base))
    }
}

/// A walk's cell in world coordinates: `cell + base` in a far walk's frame, `cell` otherwise.
#[inline(always)]
fn in_world<const FAR: bool>(cell: [i32; 3], base: IVec3) -> [i32; 3] {
    if FAR { (IVec3::from_array(cell) + base).to_array() } else { cell }
}

/// A world cell in the walk's frame: `cell - base` in a far walk's frame, `cell` otherwise.
#[inline(always)]
fn in_frame<const FAR: bool>(cell: IVec3, base: IVec3) -> IVec3 {
    if FAR { cell - base } else { cell }
}

/// The bit of a chunk's brick mask (`bx + 2 bz + 4 by`) that holds a packed cell (see
/// [`Occupancy::walk`]), as a shift for the brick mask: bit 4 of the x, y and z bytes (packed bits
/// 4, 12 and 20) gathered by one multiplication into bits 21 (x), 22 (z) and 23 (y) of the product
/// (the other shifted copies land on bits 6, 14, 15, 29, 31 and 37: distinct, so nothing carries).
#[inline(always)]
fn packed_brick(packed: u32) -> u32 {
    let product = u64::from(packed & 0x10_1010) * ((1 << 17) | (1 << 11) | (1 << 2));
    (product >> 21) as u32 & 7
}

/// The chunk-relative cell of a packed one (see [`Occupancy::walk`]).
#[inline(always)]
fn unpack(packed: u32) -> IVec3 {
    IVec3::new((packed & 0xff) as i32, (packed >> 8 & 0xff) as i32, (packed >> 16 & 0xff) as i32) - IVec3::splat(64)
}
/// The hit at the walk's current cell.
fn hit(walk: &Walk, ray: &Ray) -> RayHit {
    let voxel = IVec3::from_array(walk.cell);
    if walk.face == NO_FACE {
        return RayHit { voxel, face: None, t: walk.t, point: ray.origin };
    }
    let a = walk.face;
    // Lane masks rather than indexing by the face's axis: a branch on a random axis mispredicts.
    let down = walk.dir.cmplt(Vec3A::ZERO);
    let positive = down.bitmask() >> a & 1 != 0;
    let on_face = BVec3A::new(a == 0, a == 1, a == 2);
    // `ray.at(t)`, lane for lane, with the face's coordinate exactly on the face plane whatever
    // the rounding of origin + t * dir.
    let plane = voxel.as_vec3a() + Vec3A::select(down, Vec3A::ONE, Vec3A::ZERO);
    let point = Vec3A::select(on_face, plane, walk.origin + walk.dir * walk.t);
    // `+ 0.0`: an origin on the face's plane crosses it at `t = -0.0` (a zero times a negative
    // inverse), which the walk's own order of times ignores; a hit reports it as `+0.0`.
    let t = walk.t + 0.0;
    RayHit { voxel, face: Some(Face { axis: Axis::from_index(a), positive }), t, point: point.into() }
}

#[cfg(test)]
mod tests {
    use super::{floor_i64, packed_brick};
    use crate::occupancy::{BRICK_EDGE, CHUNK_EDGE};

    /// The multiplication trick of `packed_brick` names the brick of every chunk-relative cell.
    #[test]
    fn packed_brick_is_the_brick_index() {
        let bricks = CHUNK_EDGE / BRICK_EDGE;
        for y in 0..CHUNK_EDGE {
            for z in 0..CHUNK_EDGE {
                for x in 0..CHUNK_EDGE {
                    let packed = (x + 64) as u32 | ((y + 64) as u32) << 8 | ((z + 64) as u32) << 16;
                    let (bx, by, bz) = (x / BRICK_EDGE, y / BRICK_EDGE, z / BRICK_EDGE);
                    assert_eq!(packed_brick(packed), (bx + bricks * (bz + bricks * by)) as u32, "cell {x} {y} {z}");
                }
            }
        }
    }

    /// The AVX2 build of a cast gives the portable build's result bit for bit (hit, voxel, face,
    /// `t`, point) on a generated world with caves: rays from above, from inside, along axes,
    /// through edges and corners, long and short, and invalid ones.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_casts_equal_the_portable_ones() {
        use glam::{IVec3, Vec3};
        use voxel_core::{Ray, VoxelBox};
        if !std::arch::is_x86_feature_detected!("avx2") {
            eprintln!("skipped: this CPU has no AVX2, so every cast takes the portable build");
            return;
        }
        let size = IVec3::new(96, 48, 96);
        let world = voxel_store::generate::terrain(&voxel_store::generate::Terrain::new(size, 5)).expect("valid");
        let occ = crate::Occupancy::build(&world, VoxelBox::new(IVec3::ZERO, size)).expect("bounded");
        let mut seed = 0x5851_f42d_4c95_7f2d_u64;
        let mut next = move || {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) as u32
        };
        let mut unit = move || next() as f32 / u32::MAX as f32;
        let (mut hits, mut rays) = (0, 0);
        for i in 0..30_000 {
            let mut origin = Vec3::new(unit() * 110.0 - 7.0, unit() * 60.0 - 6.0, unit() * 110.0 - 7.0);
            let mut dir = Vec3::new(unit() - 0.5, unit() - 0.5, unit() - 0.5);
            match i % 6 {
                // On voxel edges and corners.
                0 => origin = origin.round(),
                1 => origin = origin.round() + Vec3::new(0.5, 0.0, 0.0),
                // Along an axis, or in an axis plane.
                2 => dir = [Vec3::X, Vec3::NEG_Y, Vec3::Z, Vec3::NEG_X][i / 6 % 4],
                3 => dir.y = 0.0,
                _ => {}
            }
            if i % 97 == 0 {
                dir = Vec3::new(f32::NAN, 1.0, 0.0);
            }
            let ray = Ray::new(origin, dir);
            let max_t = [2.0, 12.0, 400.0, f32::INFINITY][i % 4];
            // SAFETY: the CPU has AVX2 (checked at the top).
            #[allow(unsafe_code)]
            let avx2 = unsafe { occ.cast_avx2(&ray, max_t) };
            let portable = occ.cast_any(&ray, max_t);
            let bits = |h: &Option<crate::RayHit>| {
                h.map(|h| (h.voxel, h.face, h.t.to_bits(), h.point.to_array().map(f32::to_bits)))
            };
            assert_eq!(bits(&avx2), bits(&portable), "{ray:?} {max_t}");
            hits += usize::from(avx2.is_some());
            rays += 1;
        }
        // Both outcomes occur often enough to mean something.
        assert!(hits > rays / 5 && hits < rays * 4 / 5, "{hits} hits of {rays}");
    }

    #[test]
    fn floor_i64_equals_f32_floor() {
        let xs = [
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            1.5,
            -1.5,
            2.999_999_8,
            -2.999_999_8,
            8_388_607.5,
            -8_388_607.5,
            1e10,
            -1e10,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
            1e-45,
            -1e-45,
        ];
        for x in xs {
            assert_eq!(floor_i64(x), x.floor() as i64, "{x}");
        }
        assert_eq!(floor_i64(f32::MAX), i64::MAX);
        assert_eq!(floor_i64(f32::MIN), i64::MIN);
    }
}
