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

/// Hull points past this many are reduced to the support points along [`HULL_DIRECTIONS`]
/// directions: contacts against a convex polyhedron cost about its faces times the triangles
/// near it, and an island's hull of Surface Nets vertices has hundreds.
const MAX_HULL_POINTS: usize = 64;
/// Directions (spread by the golden angle over the sphere) whose support points stand for a
/// large hull.
const HULL_DIRECTIONS: usize = 96;

/// `points`, or the support points of `points` along [`HULL_DIRECTIONS`] directions when there
/// are more than [`MAX_HULL_POINTS`] (their hull lies inside the full one and touches it in each
/// of those directions).
fn reduce_hull_points(points: Vec<Vector>) -> Vec<Vector> {
    if points.len() <= MAX_HULL_POINTS {
        return points;
    }
    let golden = core::f32::consts::PI * (3.0 - 5f32.sqrt());
    let mut picked: Vec<usize> = (0..HULL_DIRECTIONS)
        .filter_map(|i| {
            let y = 1.0 - 2.0 * (i as f32 + 0.5) / HULL_DIRECTIONS as f32;
            let r = (1.0 - y * y).max(0.0).sqrt();
            let a = golden * i as f32;
            let d = Vec3::new(r * a.cos(), y, r * a.sin());
            (0..points.len()).max_by(|&a, &b| points[a].dot(d).total_cmp(&points[b].dot(d)))
        })
        .collect();
    picked.sort_unstable();
    picked.dedup();
    picked.into_iter().map(|i| points[i]).collect()
}

/// A dynamic body for a detached `island` (from
/// [`TerrainCollider::detach_islands`](voxel_physics::TerrainCollider::detach_islands)), placed
/// at its centre of mass with its hull, or a compound of its decomposition's hulls (hulls of
/// more than 64 points reduced to their support points along 96 directions); `terrain` is
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
    let local = |points: &[Vec3]| reduce_hull_points(points.iter().map(|&p| p - center).collect::<Vec<Vector>>());
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
