#![allow(missing_docs)]
use glam::{IVec3, Quat, Vec3};
use parry3d::math::Pose;
use parry3d::shape::SharedShape;
use rapier3d::prelude::*;
use voxel_physics::{ColliderOptions, TerrainCollider, VoxelBox};
use voxel_rapier::{TerrainDispatcher, TerrainShape};
fn main() {
    let size = IVec3::new(128, 48, 128);
    let mut store = voxel_physics::voxel_store::generate::terrain(&voxel_physics::voxel_store::generate::Terrain::new(size, 3)).unwrap();
    store.compact();
    let terrain = TerrainShape::new(TerrainCollider::new(store, VoxelBox::new(IVec3::ZERO, size), ColliderOptions::default()).unwrap());
    let mut physics = PhysicsWorld { narrow_phase: NarrowPhase::with_query_dispatcher(TerrainDispatcher::chained()), ..PhysicsWorld::default() };
    physics.colliders.insert(ColliderBuilder::new(terrain.shared_shape()).build());
    for i in 0..1000 {
        let (x, z) = (4.0 + (i % 40) as f32 * 3.0, 4.0 + (i / 40) as f32 * 4.8);
        let y = terrain.read().raycast(&voxel_physics::voxel_core::Ray::new(Vec3::new(x, 200.0, z), Vec3::NEG_Y), 400.0).map_or(30.0, |h| h.point.y) + 1.0;
        let body = physics.bodies.insert(RigidBodyBuilder::dynamic().pose(Pose::from_parts(Vec3::new(x, y, z), Quat::from_rotation_y(i as f32))));
        let s = match i % 4 { 0 => SharedShape::ball(0.4), 1 => SharedShape::cuboid(0.35, 0.25, 0.4), 2 => SharedShape::capsule_y(0.3, 0.25), _ => SharedShape::convex_hull(&[Vec3::new(-0.4, -0.25, -0.4), Vec3::new(0.4, -0.25, -0.3), Vec3::new(0.0, -0.25, 0.4), Vec3::new(0.05, 0.3, 0.0)]).unwrap() };
        physics.colliders.insert_with_parent(ColliderBuilder::new(s).build(), body, &mut physics.bodies);
    }
    for _ in 0..120 { physics.step(); }
    let t = std::time::Instant::now();
    for _ in 0..60 { physics.step(); }
    println!("{:.3} ms/step", t.elapsed().as_secs_f64() * 1e3 / 60.0);
}
