//! The dispatcher allocates nothing per pair once warm: contact manifolds (rapier's own manifold
//! types, reused from step to step as rapier does), contacts, intersection tests and shape casts
//! for every supported kind of shape, on both sides of the pair. One test function: the counter
//! is global to this binary.

mod common;

use common::flat;
use glam::{IVec3, Quat, Vec3};
use parry3d::math::Pose;
use parry3d::query::{PersistentQueryDispatcher, QueryDispatcher, ShapeCastOptions};
use parry3d::shape::SharedShape;
use rapier3d::geometry::ContactManifold;
use voxel_rapier::{TerrainDispatcher, TerrainShape};

#[global_allocator]
static ALLOCATOR: voxel_testdata::CountingAllocator = voxel_testdata::CountingAllocator::new();

#[test]
fn warm_queries_allocate_nothing() {
    let terrain = TerrainShape::new(flat(IVec3::new(32, 16, 32)));
    let t = terrain.shared_shape();
    let hull = SharedShape::convex_hull(&[
        Vec3::new(-0.4, -0.3, -0.4),
        Vec3::new(0.4, -0.3, -0.3),
        Vec3::new(0.0, -0.3, 0.4),
        Vec3::new(0.05, 0.3, 0.0),
    ])
    .unwrap();
    let compound = SharedShape::compound(vec![
        (Pose::from_translation(Vec3::new(-0.4, 0.0, 0.0)), SharedShape::cuboid(0.3, 0.3, 0.3)),
        (Pose::from_translation(Vec3::new(0.4, 0.0, 0.0)), SharedShape::ball(0.3)),
    ]);
    // Each resting on the ground (top at 7.5) across the seam at x = 15.5 or 16, slightly sunk.
    let bodies = [
        (SharedShape::ball(0.5), 0.5),
        (SharedShape::cuboid(0.4, 0.3, 0.5), 0.3),
        (SharedShape::capsule_x(0.5, 0.3), 0.3),
        (hull, 0.3),
        (compound, 0.3),
    ];
    let mut manifolds: Vec<Vec<ContactManifold>> = vec![Vec::new(); 2 * bodies.len()];
    let mut workspaces: Vec<_> = (0..2 * bodies.len()).map(|_| None).collect();
    let mut run = |frame: usize| {
        let mut contacts = 0;
        for (i, (shape, h)) in bodies.iter().enumerate() {
            // A body sliding a millimetre per frame, turning a little, as in a step.
            let at = Vec3::new(15.5 + frame as f32 * 1e-3, 7.5 + h - 0.002, 8.0 + 3.0 * i as f32);
            let pose = Pose::from_parts(at, Quat::from_rotation_y(frame as f32 * 1e-3));
            let d = TerrainDispatcher;
            d.contact_manifolds(&pose, t.as_ref(), shape.as_ref(), 0.02, &mut manifolds[2 * i], &mut workspaces[2 * i])
                .unwrap();
            let inv = pose.inverse();
            d.contact_manifolds(
                &inv,
                shape.as_ref(),
                t.as_ref(),
                0.02,
                &mut manifolds[2 * i + 1],
                &mut workspaces[2 * i + 1],
            )
            .unwrap();
            contacts += manifolds[2 * i].iter().chain(&manifolds[2 * i + 1]).map(|m| m.points.len()).sum::<usize>();
            assert!(d.intersection_test(&pose, t.as_ref(), shape.as_ref()).unwrap().intersecting);
            assert!(d.contact(&inv, shape.as_ref(), t.as_ref(), 0.02).unwrap().is_some());
            let up = pose * Pose::from_translation(Vec3::Y);
            let cast = d.cast_shapes(
                &up,
                Vec3::NEG_Y,
                t.as_ref(),
                shape.as_ref(),
                ShapeCastOptions::with_max_time_of_impact(2.0),
            );
            assert!(cast.unwrap().is_some());
        }
        contacts
    };
    for frame in 0..10 {
        assert!(run(frame) >= 2 * bodies.len());
    }
    // The counter is process-wide: let rayon's workers (started by the collider's build) finish
    // starting up, which allocates, before counting.
    rayon::broadcast(|_| ());
    let before = ALLOCATOR.allocations();
    for frame in 10..40 {
        run(frame);
    }
    let allocations = ALLOCATOR.allocations() - before;
    assert_eq!(allocations, 0, "{allocations} allocations in 30 warm frames of {} pairs", 2 * bodies.len());
}
