//! Edits between steps: telling rapier the terrain changed, waking the bodies it touched, and
//! turning detached islands into dynamic bodies.

use glam::Vec3;
use parry3d::bounding_volume::{Aabb, BoundingVolume};
use parry3d::math::{Pose, Vector};
use parry3d::shape::SharedShape;
use rapier3d::prelude::{
    ColliderBuilder, ColliderHandle, ColliderSet, RigidBodyBuilder, RigidBodyHandle, RigidBodySet,
};
use voxel_physics::{Island, VoxelBox};

/// After an edit of the terrain behind collider `terrain` (a [`TerrainShape`](crate::TerrainShape)
/// collider), before the next step: marks the collider's shape changed (the same handle is set
/// again, nothing is rebuilt), so rapier recomputes every contact pair with the terrain instead of
/// recycling last step's contacts and refreshes its bounding box; and wakes every body with a
/// collider whose box comes within `margin` of `dirty` (the edit's dirty box, in voxels), so a
/// body resting on dug-out ground falls and one that filled voxels reach is pushed out. Returns
/// the number of bodies woken; 0 and no change for an unknown handle.
pub fn terrain_changed(
    colliders: &mut ColliderSet,
    bodies: &mut RigidBodySet,
    terrain: ColliderHandle,
    dirty: VoxelBox,
    margin: f32,
) -> usize {
    let Some(collider) = colliders.get_mut(terrain) else {
        return 0;
    };
    let shape = collider.shared_shape().clone();
    collider.set_shape(shape);
    if dirty.is_empty() {
        return 0;
    }
    let pose = *collider.position();
    let margin = if margin.is_finite() { margin.max(0.0) } else { 0.0 };
    let local = Aabb::new(dirty.min.as_vec3() - Vec3::ONE, dirty.max.as_vec3()).loosened(margin);
    let world = local.transform_by(&pose);
    let mut woken = 0;
    let touched: Vec<_> = colliders
        .iter()
        .filter(|(h, c)| *h != terrain && c.compute_aabb().intersects(&world))
        .filter_map(|(_, c)| c.parent())
        .collect();
    for handle in touched {
        if let Some(body) = bodies.get_mut(handle)
            && body.is_dynamic()
        {
            body.wake_up(true);
            woken += 1;
        }
    }
    woken
}

/// A dynamic body for a detached `island` (from
/// [`TerrainCollider::detach_islands`](voxel_physics::TerrainCollider::detach_islands)), placed
/// at its centre of mass with its hull, or a compound of its decomposition's hulls; `terrain` is
/// the terrain collider's pose (island coordinates are the terrain's voxels). `None` when the
/// island has neither a hull nor a decomposition that parry accepts (a flat sliver).
pub fn island_body(
    island: &Island,
    terrain: &Pose,
    density: f32,
    bodies: &mut RigidBodySet,
    colliders: &mut ColliderSet,
) -> Option<(RigidBodyHandle, ColliderHandle)> {
    let center = island.center;
    let local = |points: &[Vec3]| points.iter().map(|&p| p - center).collect::<Vec<Vector>>();
    let shape = if let Some(hull) = &island.hull {
        SharedShape::convex_hull(&local(&hull.vertices))?
    } else if let Some(d) = &island.decomposition {
        let parts: Vec<(Pose, SharedShape)> = d
            .hulls
            .iter()
            .filter_map(|h| SharedShape::convex_hull(&local(&h.vertices)).map(|s| (Pose::IDENTITY, s)))
            .collect();
        if parts.is_empty() {
            return None;
        }
        SharedShape::compound(parts)
    } else {
        return None;
    };
    let pose = *terrain * Pose::from_translation(center);
    let body = bodies.insert(RigidBodyBuilder::dynamic().pose(pose).build());
    let density = if density.is_finite() && density > 0.0 { density } else { 1.0 };
    let collider = colliders.insert_with_parent(ColliderBuilder::new(shape).density(density).build(), body, bodies);
    Some((body, collider))
}
