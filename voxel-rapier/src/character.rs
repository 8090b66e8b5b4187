//! Ground snapping for rapier's `KinematicCharacterController` on the terrain.
//!
//! rapier 0.36's controller decides whether the character is grounded (which gates its
//! `snap_to_ground`) with a hard-coded `DefaultQueryDispatcher` (`character_controller.rs`,
//! "TODO: allow custom dispatchers"), which cannot see a custom shape: on the terrain it never
//! snaps. Its shape casts (moving, sliding, climbing, walls) do go through the pipeline's
//! dispatcher, so they work. [`snap_to_ground`] does the snapping with a cast through the
//! pipeline: call it after `move_shape` when the character is walking.

use glam::Vec3;
use parry3d::math::Pose;
use parry3d::query::ShapeCastOptions;
use parry3d::shape::Shape;
use rapier3d::pipeline::QueryPipeline;

/// The translation that puts `shape` at `pose` back onto the ground below it: a cast along
/// `-up` (unit) of at most `distance`, stopping `offset` short of the surface (the controller's
/// offset). `None` when no ground lies within `distance` (the character is in the air: let it
/// fall), for a bad `up`, `distance` or `offset`, or when the ground is already within `offset`.
pub fn snap_to_ground(
    queries: &QueryPipeline<'_>,
    shape: &dyn Shape,
    pose: &Pose,
    up: Vec3,
    distance: f32,
    offset: f32,
) -> Option<Vec3> {
    let up = up.try_normalize()?;
    if !(distance.is_finite() && distance > 0.0 && offset.is_finite() && offset >= 0.0) {
        return None;
    }
    let options = ShapeCastOptions {
        max_time_of_impact: distance,
        target_distance: offset,
        stop_at_penetration: false,
        compute_impact_geometry_on_penetration: false,
    };
    let (_, hit) = queries.cast_shape(pose, -up, shape, options)?;
    (hit.time_of_impact > 0.0).then(|| -up * hit.time_of_impact)
}
