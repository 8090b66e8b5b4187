//! Rays from far away: moved next to the box they can hit before any `f32` walk starts.
//!
//! A ray's crossing times are `(plane - origin) / dir` in `f32`: from an origin `1e8` voxels away
//! they are about `1e8` with a step of 8, so an `f32` walk cannot tell one voxel from the next (a
//! ray from `x = 1e8` towards a 64-wide world landed at `x = 72`). [`restart`] computes where the
//! ray enters the box in `f64`, puts the axis it enters through exactly on the face, and takes the
//! point a voxel before it on the same line, with the original ray's `t` there.
//!
//! [`clip_far_ray`] returns that point as an `f32` ray (add [`FarRay::Moved`]'s `shift` to a moved
//! ray's `t`): on the line within the `f32` rounding of a coordinate of the box, which is fine near
//! the origin but up to half a voxel beyond 2^22, so a walk of the moved ray near the coordinate
//! limit can leave the original line. `Occupancy::cast` does not go through the `f32` point: it
//! walks a far ray in a frame whose origin is a chunk corner next to the restart point (cells and
//! planes counted from there, exact integers), so the walk's origin is the restart point minus an
//! integer, rounded to `f32` below 64 in magnitude (within `2e-6` voxel), anywhere within
//! `MAX_COORDINATE`. The `f64` point itself is off the line by the rounding of `origin + t * dir`:
//! about `4e-16` times the origin's distance (`4e-7` voxel from `1e9` voxels out).

use glam::{DVec3, Vec3};
use voxel_core::{Aabb, Ray};

/// Origins farther than this from a box (in voxels, on some axis) are moved next to it; nearer
/// ones are walked as they are (at 4096 an `f32` coordinate still has 11 bits below the voxel).
pub const FAR_ORIGIN: f32 = 4096.0;

/// What [`clip_far_ray`] made of a ray.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FarRay {
    /// The origin is near the box: cast the ray as it is.
    Near,
    /// The origin is far: cast `ray` with `max_t` instead; the original ray's `t` of a hit is
    /// `shift` plus the moved ray's (`shift` in units of the original direction, which `ray` keeps).
    Moved {
        /// The same line, starting one voxel before the box: its origin is the `f64` point on the
        /// line rounded to `f32` (up to half a voxel off the line where the box's coordinates
        /// pass 2^22).
        ray: Ray,
        /// What is left of the original `max_t`.
        max_t: f32,
        /// The original ray's `t` at the moved origin.
        shift: f64,
    },
    /// The ray cannot reach the box within `max_t`, or its origin is so far that even `f64` cannot
    /// place its entry within 1/1024 voxel (beyond about 2^40 voxels on an axis it does not enter
    /// through): no hit.
    Miss,
}

/// Moves a ray whose origin lies more than [`FAR_ORIGIN`] voxels outside `bounds` to one voxel
/// before where it enters `bounds` (computed in `f64`, rounded to `f32` once: see
/// [`FarRay::Moved`] for what that costs near the coordinate limit). Call it with a valid ray and
/// a non-negative `max_t`; an empty box is [`FarRay::Miss`] for far rays.
pub fn clip_far_ray(ray: &Ray, max_t: f32, bounds: Aabb) -> FarRay {
    let outside = (bounds.min - ray.origin).max(ray.origin - bounds.max).max_element();
    if !(outside > FAR_ORIGIN) {
        return FarRay::Near;
    }
    move_next_to(ray, max_t, bounds)
}

/// [`clip_far_ray`] without the distance test: the ray moved next to `bounds` however near it is
/// ([`FarRay::Moved`] or [`FarRay::Miss`]).
fn move_next_to(ray: &Ray, max_t: f32, bounds: Aabb) -> FarRay {
    match restart(ray, max_t, bounds) {
        Some(r) => FarRay::Moved { ray: Ray::new(as_vec3(r.point), ray.dir), max_t: r.max_t as f32, shift: r.shift },
        None => FarRay::Miss,
    }
}

/// Where a far ray starts again, all in `f64` on the original ray's line (for voxel-physics's
/// smooth-surface raycast, which walks far rays in `f64`; not a stable API).
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Restart {
    /// `origin + shift * dir`, one voxel (along the fastest axis) before the ray enters the box.
    pub point: DVec3,
    /// The original ray's `t` at `point`.
    pub shift: f64,
    /// What is left of the original `max_t` (at most `f32::MAX`).
    pub max_t: f64,
}

/// The [`Restart`] of a ray moved next to `bounds`, or `None` when it cannot reach the box within
/// `max_t` (or its entry cannot be placed within 1/1024 voxel, see [`FarRay::Miss`]).
#[doc(hidden)]
pub fn restart(ray: &Ray, max_t: f32, bounds: Aabb) -> Option<Restart> {
    if bounds.is_empty() {
        return None;
    }
    let (o, d) = (ray.origin.as_dvec3(), ray.dir.as_dvec3());
    let (lo, hi) = (bounds.min.as_dvec3(), bounds.max.as_dvec3());
    // Slabs in f64: the entry time and the axis it enters through.
    let (mut t0, mut t1, mut axis) = (0.0f64, f64::from(max_t), usize::MAX);
    for a in 0..3 {
        if d[a] == 0.0 {
            if o[a] < lo[a] || o[a] > hi[a] {
                return None;
            }
            continue;
        }
        let (near, far) = if d[a] > 0.0 { (lo[a], hi[a]) } else { (hi[a], lo[a]) };
        let (tn, tf) = ((near - o[a]) / d[a], (far - o[a]) / d[a]);
        if tn > t0 {
            (t0, axis) = (tn, a);
        }
        t1 = t1.min(tf);
    }
    if !(t0 <= t1) || axis == usize::MAX {
        return None;
    }
    // The entry point: exactly on the face on the entry axis; on the others the sum of a large
    // origin and a large step cancels, so its rounding is checked.
    let mut entry = o + d * t0;
    entry[axis] = if d[axis] > 0.0 { lo[axis] } else { hi[axis] };
    for a in 0..3 {
        if a != axis && 4.0 * f64::EPSILON * (o[a].abs() + (d[a] * t0).abs()) > 1.0 / 1024.0 {
            return None;
        }
    }
    // Back one voxel along the ray (on the axis it moves fastest), so the walk starts outside the
    // box and enters it as a near ray would.
    let back = 1.0 / d.abs().max_element();
    let shift = t0 - back;
    Some(Restart { point: entry - d * back, shift, max_t: (f64::from(max_t) - shift).min(f64::from(f32::MAX)) })
}

fn as_vec3(v: DVec3) -> Vec3 {
    Vec3::new(v.x as f32, v.y as f32, v.z as f32)
}
