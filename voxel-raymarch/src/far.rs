//! Rays from far away: moved next to the box they can hit before any `f32` walk starts.
//!
//! A ray's crossing times are `(plane - origin) / dir` in `f32`: from an origin `1e8` voxels away
//! they are about `1e8` with a step of 8, so an `f32` walk cannot tell one voxel from the next (a
//! ray from `x = 1e8` towards a 64-wide world landed at `x = 72`). [`clip_far_ray`] computes where
//! the ray enters the box in `f64`, puts the axis it enters through exactly on the box's face, and
//! starts the ray again a voxel before it: the walk then runs on small numbers and finds what a
//! ray from nearby finds. Only the `t` of the answer keeps the precision of a large number (add
//! [`FarRay::Moved`]'s `shift` to a moved ray's `t`).

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
        /// The same line, starting one voxel before the box.
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
/// before where it enters `bounds` (computed in `f64`). Call it with a valid ray and a
/// non-negative `max_t`; an empty box is [`FarRay::Miss`] for far rays.
pub fn clip_far_ray(ray: &Ray, max_t: f32, bounds: Aabb) -> FarRay {
    let outside = (bounds.min - ray.origin).max(ray.origin - bounds.max).max_element();
    if !(outside > FAR_ORIGIN) {
        return FarRay::Near;
    }
    move_next_to(ray, max_t, bounds)
}

/// [`clip_far_ray`] without the distance test: the ray moved next to `bounds` however near it is
/// ([`FarRay::Moved`] or [`FarRay::Miss`]).
pub(crate) fn move_next_to(ray: &Ray, max_t: f32, bounds: Aabb) -> FarRay {
    if bounds.is_empty() {
        return FarRay::Miss;
    }
    let (o, d) = (ray.origin.as_dvec3(), ray.dir.as_dvec3());
    let (lo, hi) = (bounds.min.as_dvec3(), bounds.max.as_dvec3());
    // Slabs in f64: the entry time and the axis it enters through.
    let (mut t0, mut t1, mut axis) = (0.0f64, f64::from(max_t), usize::MAX);
    for a in 0..3 {
        if d[a] == 0.0 {
            if o[a] < lo[a] || o[a] > hi[a] {
                return FarRay::Miss;
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
        return FarRay::Miss;
    }
    // The entry point: exactly on the face on the entry axis; on the others the sum of a large
    // origin and a large step cancels, so its rounding is checked.
    let mut entry = o + d * t0;
    entry[axis] = if d[axis] > 0.0 { lo[axis] } else { hi[axis] };
    for a in 0..3 {
        if a != axis && 4.0 * f64::EPSILON * (o[a].abs() + (d[a] * t0).abs()) > 1.0 / 1024.0 {
            return FarRay::Miss;
        }
    }
    // Back one voxel along the ray (on the axis it moves fastest), so the walk starts outside the
    // box and enters it as a near ray would.
    let back = 1.0 / d.abs().max_element();
    let shift = t0 - back;
    let start = entry - d * back;
    let new_max = f64::from(max_t) - shift;
    FarRay::Moved { ray: Ray::new(as_vec3(start), ray.dir), max_t: new_max.min(f64::from(f32::MAX)) as f32, shift }
}

fn as_vec3(v: DVec3) -> Vec3 {
    Vec3::new(v.x as f32, v.y as f32, v.z as f32)
}
