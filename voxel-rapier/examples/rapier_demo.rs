//! The terrain in a rapier world: 300 mixed bodies dropped on generated hills, a pit dug under
//! some of them, a rock cut loose as a dynamic hull body, and a capsule character walking across
//! the chunk seams. Prints the per-step time and contact counts of each phase.
//!
//! `cargo run --release -p voxel-rapier --example rapier_demo`

use std::time::Instant;

use glam::{IVec3, Quat, Vec3};
use parry3d::math::Pose;
use parry3d::shape::SharedShape;
use rapier3d::control::{CharacterLength, KinematicCharacterController};
use rapier3d::prelude::*;
use voxel_physics::voxel_core::Ray;
use voxel_physics::voxel_store::generate::{self, materials};
use voxel_physics::{Brush, ColliderOptions, IslandOptions, TerrainCollider, VoxelBox};
use voxel_rapier::{TerrainDispatcher, TerrainShape, island_body, snap_to_ground, terrain_changed};

const SIZE: IVec3 = IVec3::new(96, 48, 96);

fn surface(terrain: &TerrainShape, x: f32, z: f32) -> f32 {
    terrain.read().raycast(&Ray::new(Vec3::new(x, 200.0, z), Vec3::NEG_Y), 400.0).map_or(0.0, |h| h.point.y)
}

fn shape(i: usize) -> SharedShape {
    match i % 3 {
        0 => SharedShape::ball(0.5),
        1 => SharedShape::cuboid(0.4, 0.3, 0.5),
        _ => SharedShape::capsule_y(0.4, 0.3),
    }
}

/// Runs `steps` steps and prints the mean step time and the contact pairs with points.
fn run(physics: &mut PhysicsWorld, steps: usize, phase: &str) {
    let t0 = Instant::now();
    for _ in 0..steps {
        physics.step();
    }
    let per_step = t0.elapsed().as_secs_f64() * 1e3 / steps as f64;
    let pairs = physics.narrow_phase.contact_pairs().filter(|p| p.has_any_active_contact()).count();
    let points: usize = physics
        .narrow_phase
        .contact_pairs()
        .flat_map(rapier3d::geometry::ContactPair::manifolds)
        .map(|m| m.points.len())
        .sum();
    println!(
        "{phase:<38} {steps:>4} steps, {per_step:>6.3} ms/step, {pairs:>4} touching pairs, {points:>5} contact points"
    );
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut store = generate::terrain(&generate::Terrain::new(SIZE, 7))?;
    store.compact();
    let terrain =
        TerrainShape::new(TerrainCollider::new(store, VoxelBox::new(IVec3::ZERO, SIZE), ColliderOptions::default())?);
    let mut physics = PhysicsWorld {
        narrow_phase: NarrowPhase::with_query_dispatcher(TerrainDispatcher::chained()),
        ..PhysicsWorld::default()
    };
    let ground = physics.colliders.insert(ColliderBuilder::new(terrain.shared_shape()).build());

    // 1. Bodies dropped on the hills.
    let mut bodies = Vec::new();
    for i in 0..300 {
        let (x, z) = (6.0 + (i % 20) as f32 * 4.2, 6.0 + (i / 20) as f32 * 5.5);
        let y = surface(&terrain, x, z) + 2.0;
        let body = physics.bodies.insert(
            RigidBodyBuilder::dynamic().pose(Pose::from_parts(Vec3::new(x, y, z), Quat::from_rotation_y(i as f32))),
        );
        physics.colliders.insert_with_parent(ColliderBuilder::new(shape(i)).build(), body, &mut physics.bodies);
        bodies.push(body);
    }
    run(&mut physics, 180, "300 bodies dropped and settling");

    // 2. A pit dug under the bodies near the middle.
    let at = Vec3::new(48.0, surface(&terrain, 48.0, 48.0), 48.0);
    let t0 = Instant::now();
    let dug = terrain.write().subtract(&Brush::Sphere { center: at, radius: 6.0 })?;
    let woken = terrain_changed(&mut physics.colliders, &mut physics.bodies, ground, dug.report.dirty, 0.5);
    println!("pit of radius 6 dug in {:.3} ms, {woken} bodies woken", t0.elapsed().as_secs_f64() * 1e3);
    run(&mut physics, 120, "bodies falling into the pit");

    // 3. A rock on a stalk, cut loose: an island body.
    let rock = Vec3::new(20.0, surface(&terrain, 20.0, 80.0), 80.0);
    {
        let mut t = terrain.write();
        t.add(&Brush::Capsule { a: rock, b: rock + Vec3::Y * 10.0, radius: 1.5 }, materials::ROCK)?;
        t.add(&Brush::Sphere { center: rock + Vec3::Y * 14.0, radius: 4.0 }, materials::ROCK)?;
    }
    let cut = terrain
        .write()
        .subtract(&Brush::Box { center: rock + Vec3::Y * 8.0, half_extents: Vec3::new(3.0, 1.0, 3.0) })?;
    let (islands, removed) = terrain.write().detach_islands(cut.report.dirty, &IslandOptions::default())?;
    terrain_changed(
        &mut physics.colliders,
        &mut physics.bodies,
        ground,
        cut.report.dirty.union(&removed.report.dirty),
        0.5,
    );
    for island in &islands {
        if let Some((body, _)) = island_body(island, &Pose::IDENTITY, 2.0, &mut physics.bodies, &mut physics.colliders)
        {
            println!(
                "island of {} voxels is a dynamic hull body at {:.1}",
                island.voxels.len(),
                physics.bodies[body].translation()
            );
            run(&mut physics, 150, "the island falling and landing");
            println!("  it came to rest at {:.1}", physics.bodies[body].translation());
        }
    }

    // 4. A capsule character walking 20 m across the seams.
    let controller = KinematicCharacterController {
        offset: CharacterLength::Absolute(0.02),
        snap_to_ground: Some(CharacterLength::Absolute(0.3)),
        ..KinematicCharacterController::default()
    };
    let character = SharedShape::capsule_y(0.5, 0.3);
    let mut pose = Pose::from_translation(Vec3::new(70.0, surface(&terrain, 70.0, 10.0) + 1.0, 10.0));
    let dt = physics.integration_parameters.dt;
    let t0 = Instant::now();
    let mut fall = 0.0f32;
    for _ in 0..300 {
        let queries = physics.broad_phase.as_query_pipeline(
            physics.narrow_phase.query_dispatcher(),
            &physics.bodies,
            &physics.colliders,
            QueryFilter::default(),
        );
        let walk =
            controller.move_shape(dt, &queries, character.as_ref(), &pose, Vec3::new(0.0, 0.0, 4.0 * dt), |_| {});
        pose.translation += walk.translation;
        fall = (fall - 9.81 * dt).max(-20.0);
        let drop =
            controller.move_shape(dt, &queries, character.as_ref(), &pose, Vec3::new(0.0, fall * dt, 0.0), |_| {});
        pose.translation += drop.translation;
        if drop.translation.y > fall * dt * 0.5 {
            fall = 0.0;
            if let Some(snap) = snap_to_ground(&queries, character.as_ref(), &pose, Vec3::Y, 0.3, 0.02) {
                pose.translation += snap;
            }
        }
    }
    println!(
        "character walked to {:.1} in 300 frames, {:.3} ms per frame (two moves)",
        pose.translation,
        t0.elapsed().as_secs_f64() * 1e3 / 300.0
    );
    let stats = terrain.read().cache_stats();
    println!(
        "narrowphase cache: {} chunks, {} triangles, {} B ({:.1} B/triangle)",
        stats.entries,
        stats.triangles,
        stats.bytes,
        stats.bytes as f64 / stats.triangles.max(1) as f64
    );
    Ok(())
}
