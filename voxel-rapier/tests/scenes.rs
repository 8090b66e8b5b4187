//! Scenes in rapier's own solver (dt 1/60, no time asserted): flat seams, rough generated terrain,
//! resting bodies, edits between steps, determinism and bad input (issue 30, tests 2-4 and 6-8).

mod common;

use common::*;
use glam::{IVec3, Quat, Vec3};
use parry3d::math::Pose;
use parry3d::query::{PersistentQueryDispatcher, QueryDispatcher, ShapeCastOptions, Unsupported};
use parry3d::shape::SharedShape;
use voxel_physics::{Brush, IslandOptions};
use voxel_rapier::{TerrainDispatcher, TerrainShape, island_body, terrain_changed};
use voxel_store::generate::materials;

/// Balls rolling and boxes and capsules sliding across many chunk borders, diagonally and along a
/// seam line: once landed, nothing moves up faster than 0.05 m/s, as on a cuboid ground.
#[test]
fn flat_seams_give_no_upward_velocity() {
    let terrain = TerrainShape::new(flat(IVec3::new(64, 16, 64)));
    let surface = 7.5;
    let shapes = [SharedShape::ball(0.5), SharedShape::cuboid(0.4, 0.3, 0.5), SharedShape::capsule_z(0.4, 0.3)];
    let heights = [0.5, 0.3, 0.3];
    // (start, velocity): diagonal across borders, along the seam line at x = 15.5, across x.
    let runs = [
        (Vec3::new(4.0, 0.0, 4.0), Vec3::new(3.0, 0.0, 3.0)),
        (Vec3::new(SEAM_X, 0.0, 4.0), Vec3::new(0.0, 0.0, 4.0)),
        (Vec3::new(4.0, 0.0, 23.5), Vec3::new(5.0, 0.0, 0.0)),
    ];
    let mut checked = 0;
    for (shape, h) in shapes.iter().zip(heights) {
        for (start, v) in runs {
            let mut sim = Sim::ours(&terrain);
            let body = sim.add(shape.clone(), start + Vec3::Y * (surface + h + 0.001), Quat::IDENTITY, v, Vec3::ZERO);
            for step in 0..240 {
                sim.step();
                let vel = sim.linvel(body);
                if step >= 10 {
                    assert!(vel.y <= 0.05, "{shape:?} from {start} at {v}: step {step} moves up at {}", vel.y);
                    checked += 1;
                }
            }
            let p = sim.pose(body).translation;
            assert!(p.y > surface, "{shape:?} ended below the surface");
            assert!((p - start).length() > 1.0, "{shape:?} from {start} did not move");
        }
    }
    assert!(checked > 2000);
}

/// Balls dropped on generated hills across seams: none ends inside the surface deeper than the
/// crease bound or below it.
#[test]
fn rough_terrain_drops() {
    let collider = hills(IVec3::new(64, 40, 64), 11);
    let stick = stitched(&collider);
    let terrain = TerrainShape::new(collider);
    let mut sim = Sim::ours(&terrain);
    let mut rng = Rng(0x9e37_79b9);
    let mut drops = Vec::new();
    while drops.len() < 60 {
        let (x, z) = (rng.range(4.0, 60.0), rng.range(4.0, 60.0));
        let r = rng.range(0.3, 0.6);
        let Some(y) = surface_y(&terrain, x, z) else { continue };
        let body = sim.add(SharedShape::ball(r), Vec3::new(x, y + 2.0 + r, z), Quat::IDENTITY, Vec3::ZERO, Vec3::ZERO);
        // Far apart enough that the balls do not stack (a ball's spacing is checked loosely).
        drops.push((body, r));
    }
    let mut deepest = 0.0f32;
    for step in 0..180 {
        sim.step();
        for &(body, r) in &drops {
            let pose = sim.pose(body);
            let p = pose.translation;
            assert!(p.is_finite());
            if step > 60 {
                deepest = deepest.max(depth_inside(&stick, &SharedShape::ball(r), &pose));
            }
            if step == 179 {
                // Still above the surface under it: a ray from high above meets the surface below
                // the ball's centre.
                let ground = surface_y(&terrain, p.x, p.z).unwrap_or(f32::NEG_INFINITY);
                assert!(p.y > ground, "ball at {p} ended below the surface ({ground})");
            }
        }
    }
    println!("deepest {:.2} mm", deepest * 1000.0);
    assert!(deepest <= 0.006, "a ball ended {deepest} inside the surface");
}

/// 100 mixed bodies resting on the terrain stay put: under 1 mm of drift over 10 s.
#[test]
fn resting_bodies_stay() {
    let terrain = TerrainShape::new(flat(IVec3::new(48, 16, 48)));
    let mut sim = Sim::ours(&terrain);
    for i in 0..100 {
        let (x, z) = (4.0 + (i % 10) as f32 * 4.0, 4.0 + (i / 10) as f32 * 4.0);
        sim.add(mixed_shape(i, 1.0), Vec3::new(x, 9.0, z), Quat::IDENTITY, Vec3::ZERO, Vec3::ZERO);
    }
    for _ in 0..120 {
        sim.step();
    }
    let before: Vec<Vec3> = sim.bodies.iter().map(|&b| sim.pose(b).translation).collect();
    for _ in 0..600 {
        sim.step();
    }
    for (&b, p0) in sim.bodies.iter().zip(&before) {
        let p = sim.pose(b).translation;
        assert!(p.distance(*p0) < 1e-3, "a body drifted {} m", p.distance(*p0));
        assert!(p.y > 7.5, "a body sank below the surface");
    }
}

/// Digging under a resting body makes it fall; filling voxels into a body pushes it out upward.
#[test]
fn edits_between_steps() {
    let terrain = TerrainShape::new(flat(IVec3::new(32, 16, 32)));
    let mut sim = Sim::ours(&terrain);
    let ball = sim.add(SharedShape::ball(0.5), Vec3::new(10.0, 8.01, 10.0), Quat::IDENTITY, Vec3::ZERO, Vec3::ZERO);
    let cube = sim.add(
        SharedShape::cuboid(0.5, 0.5, 0.5),
        Vec3::new(22.0, 8.01, 22.0),
        Quat::IDENTITY,
        Vec3::ZERO,
        Vec3::ZERO,
    );
    for _ in 0..200 {
        sim.step();
    }
    assert!(sim.physics.bodies[ball].is_sleeping(), "the ball rests (and sleeps) before the dig");
    let rest = sim.pose(ball).translation.y;

    // Dig a pit of radius 3 under the ball.
    let dug = terrain.write().subtract(&Brush::Sphere { center: Vec3::new(10.0, 7.5, 10.0), radius: 3.0 }).unwrap();
    let woken =
        terrain_changed(&mut sim.physics.colliders, &mut sim.physics.bodies, sim.terrain, dug.report.dirty, 0.5);
    assert!(woken >= 1);
    for _ in 0..90 {
        sim.step();
    }
    let fallen = sim.pose(ball).translation.y;
    assert!(fallen < rest - 2.0, "the ball fell into the pit: {rest} -> {fallen}");
    assert!(fallen > 4.0 - 0.01, "and rests on its floor (4.5 minus the radius), not through it: {fallen}");

    // Raise the ground under the cube by 0.6: the cube is pushed out, never through.
    let filled = terrain
        .write()
        .add(
            &Brush::Box { center: Vec3::new(22.0, 7.6, 22.0), half_extents: Vec3::new(3.0, 0.5, 3.0) },
            materials::ROCK,
        )
        .unwrap();
    terrain_changed(&mut sim.physics.colliders, &mut sim.physics.bodies, sim.terrain, filled.report.dirty, 0.5);
    for step in 0..120 {
        sim.step();
        assert!(sim.pose(cube).translation.y > 7.5, "step {step}: the cube tunnelled down");
    }
    let y = sim.pose(cube).translation.y;
    assert!((y - 8.6).abs() < 0.02, "the cube rests on the raised ground (top 8.1): {y}");
}

/// A rock on a stalk: cutting the stalk detaches an island, which becomes a dynamic body with a
/// hull, falls and lands on the ground.
#[test]
fn a_detached_island_falls_and_lands() {
    let terrain = TerrainShape::new(flat(IVec3::new(48, 48, 48)));
    {
        let mut t = terrain.write();
        t.add(
            &Brush::Capsule { a: Vec3::new(24.0, 7.0, 24.0), b: Vec3::new(24.0, 20.0, 24.0), radius: 1.5 },
            materials::ROCK,
        )
        .unwrap();
        t.add(&Brush::Sphere { center: Vec3::new(24.0, 24.0, 24.0), radius: 4.0 }, materials::ROCK).unwrap();
    }
    let mut sim = Sim::ours(&terrain);
    let cut = terrain
        .write()
        .subtract(&Brush::Box { center: Vec3::new(24.0, 15.0, 24.0), half_extents: Vec3::new(3.0, 1.0, 3.0) })
        .unwrap();
    let (islands, removed) = terrain.write().detach_islands(cut.report.dirty, &IslandOptions::default()).unwrap();
    assert_eq!(islands.len(), 1);
    terrain_changed(&mut sim.physics.colliders, &mut sim.physics.bodies, sim.terrain, removed.report.dirty, 0.5);
    let (body, _) =
        island_body(&islands[0], &Pose::IDENTITY, 1.0, &mut sim.physics.bodies, &mut sim.physics.colliders).unwrap();
    sim.bodies.push(body);
    let start = sim.pose(body).translation.y;
    for _ in 0..240 {
        sim.step();
    }
    let end = sim.pose(body).translation;
    let speed = sim.linvel(body).length();
    // It fell onto the stump (top near y = 14) and the ground, and came to rest above them.
    assert!(end.y < start - 1.0, "the island fell: {start} -> {}", end.y);
    assert!(end.y > 7.5, "the island did not go through the ground: {}", end.y);
    assert!(speed < 0.5, "the island landed: {speed} m/s");
}

/// A mixed scene on hills: run twice, bit-identical; and in rayon pools of 1 and 2 threads.
#[test]
fn deterministic() {
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let terrain = TerrainShape::new(hills(IVec3::new(48, 40, 48), 5));
            let mut sim = Sim::ours(&terrain);
            let mut rng = Rng(77);
            for i in 0..30 {
                let (x, z) = (rng.range(4.0, 44.0), rng.range(4.0, 44.0));
                let y = surface_y(&terrain, x, z).unwrap_or(30.0) + 2.0;
                sim.add(
                    mixed_shape(i, 0.8),
                    Vec3::new(x, y, z),
                    Quat::from_rotation_y(i as f32),
                    Vec3::ZERO,
                    Vec3::ZERO,
                );
            }
            for _ in 0..120 {
                sim.step();
            }
            sim.state_bits()
        })
    };
    let a = run(1);
    assert_eq!(a, run(1));
    assert_eq!(a, run(2));
}

/// Non-finite bodies near the terrain and huge velocities: no panic, no contact for the broken
/// body, the others unaffected.
#[test]
fn bad_bodies_do_not_panic() {
    let terrain = TerrainShape::new(flat(IVec3::new(32, 16, 32)));
    let mut sim = Sim::ours(&terrain);
    let good = sim.add(SharedShape::ball(0.5), Vec3::new(8.0, 8.01, 8.0), Quat::IDENTITY, Vec3::ZERO, Vec3::ZERO);
    sim.add(SharedShape::ball(0.5), Vec3::new(f32::NAN, 8.0, 20.0), Quat::IDENTITY, Vec3::ZERO, Vec3::ZERO);
    sim.add(
        SharedShape::cuboid(0.5, 0.5, 0.5),
        Vec3::new(20.0, 8.0, f32::INFINITY),
        Quat::IDENTITY,
        Vec3::ZERO,
        Vec3::ZERO,
    );
    sim.add(SharedShape::ball(0.5), Vec3::new(20.0, 9.0, 20.0), Quat::IDENTITY, Vec3::new(0.0, -1e7, 0.0), Vec3::ZERO);
    sim.add(
        SharedShape::capsule_y(0.5, 0.3),
        Vec3::new(12.0, 9.0, 12.0),
        Quat::IDENTITY,
        Vec3::splat(1e30),
        Vec3::splat(1e30),
    );
    for _ in 0..60 {
        sim.step();
    }
    let p = sim.pose(good).translation;
    assert!((p.y - 8.0).abs() < 0.01, "the good ball still rests: {p}");
}

/// Shapes the dispatcher does not handle get `Unsupported` (from the whole chain), never a panic,
/// in direct queries and in a rapier step.
#[test]
fn unsupported_shapes_and_queries() {
    let terrain = TerrainShape::new(flat(IVec3::new(16, 16, 16)));
    let t = terrain.shared_shape();
    let cylinder = SharedShape::cylinder(0.5, 0.5);
    let pose = Pose::from_translation(Vec3::new(8.0, 8.0, 8.0));
    let chain = TerrainDispatcher::chained();
    let mut manifolds: Vec<parry3d::query::ContactManifold<(), ()>> = Vec::new();
    let mut workspace = None;
    assert_eq!(
        chain.contact_manifolds(&pose, t.as_ref(), cylinder.as_ref(), 0.1, &mut manifolds, &mut workspace),
        Err(Unsupported)
    );
    assert_eq!(chain.contact(&pose, cylinder.as_ref(), t.as_ref(), 0.1).err(), Some(Unsupported));
    assert_eq!(TerrainDispatcher.distance(&pose, t.as_ref(), cylinder.as_ref()).err(), Some(Unsupported));
    assert_eq!(
        TerrainDispatcher.closest_points(&pose, t.as_ref(), SharedShape::ball(1.0).as_ref(), 1.0).err(),
        Some(Unsupported)
    );
    let nonlinear = parry3d::query::NonlinearRigidMotion::constant_position(Pose::IDENTITY);
    assert_eq!(
        TerrainDispatcher
            .cast_shapes_nonlinear(&nonlinear, t.as_ref(), &nonlinear, SharedShape::ball(1.0).as_ref(), 0.0, 1.0, true)
            .err(),
        Some(Unsupported)
    );
    // Terrain against terrain is not a pair this dispatcher answers.
    assert_eq!(TerrainDispatcher.intersection_test(&pose, t.as_ref(), t.as_ref()).err(), Some(Unsupported));
    let _ = ShapeCastOptions::default();

    // In a step: a cylinder and a triangle mesh body fall through (no contact), nothing panics.
    let mut sim = Sim::ours(&terrain);
    let cyl = sim.add(cylinder, Vec3::new(8.0, 9.0, 8.0), Quat::IDENTITY, Vec3::ZERO, Vec3::ZERO);
    let mesh = SharedShape::trimesh(
        vec![Vec3::ZERO, Vec3::X, Vec3::Z, Vec3::Y],
        vec![[0, 1, 2], [0, 3, 1], [0, 2, 3], [1, 3, 2]],
    )
    .unwrap();
    sim.add(mesh, Vec3::new(4.0, 9.0, 4.0), Quat::IDENTITY, Vec3::ZERO, Vec3::ZERO);
    for _ in 0..30 {
        sim.step();
    }
    assert!(sim.pose(cyl).translation.y < 8.0, "no contact for an unsupported shape");
}

/// Feature ids on the terrain side are stable from frame to frame (warm starting): the same ball
/// moved by a millimetre keeps its ids, and a resting ball's contact carries an impulse over.
#[test]
fn feature_ids_are_stable() {
    let (collider, h) = ridge(10.0, SEAM_X);
    let terrain = TerrainShape::new(collider);
    let t = terrain.shared_shape();
    let ball = SharedShape::ball(0.5);
    let ids = |x: f32| {
        let pose = Pose::from_translation(Vec3::new(x, h(x) + 0.49, 20.0));
        let mut manifolds: Vec<parry3d::query::ContactManifold<(), ()>> = Vec::new();
        TerrainDispatcher.contact_manifolds(&pose, t.as_ref(), ball.as_ref(), 0.05, &mut manifolds, &mut None).unwrap();
        manifolds.iter().flat_map(|m| m.points.iter().map(|p| p.fid1)).collect::<Vec<_>>()
    };
    let a = ids(SEAM_X);
    assert!(!a.is_empty());
    assert_eq!(a, ids(SEAM_X + 0.0005));
    // Flipped order: the terrain's ids move to the second side, unchanged.
    let pose = Pose::from_translation(Vec3::new(SEAM_X, h(SEAM_X) + 0.49, 20.0));
    let mut manifolds: Vec<parry3d::query::ContactManifold<(), ()>> = Vec::new();
    TerrainDispatcher
        .contact_manifolds(&pose.inverse(), ball.as_ref(), t.as_ref(), 0.05, &mut manifolds, &mut None)
        .unwrap();
    let flipped: Vec<_> = manifolds.iter().flat_map(|m| m.points.iter().map(|p| p.fid2)).collect();
    assert_eq!(a, flipped);
    assert!(manifolds.iter().all(|m| m.local_n2.y > 0.9 && m.local_n1.y < -0.9));

    // In rapier: the resting ball's contact is warm-started (its impulse carried over).
    let mut sim = Sim::ours(&terrain);
    let b = sim.add(ball.clone(), Vec3::new(SEAM_X, h(SEAM_X) + 0.5, 20.0), Quat::IDENTITY, Vec3::ZERO, Vec3::ZERO);
    for _ in 0..20 {
        sim.step();
    }
    let pair = sim.physics.narrow_phase.contact_pair(sim.terrain, sim.physics.bodies[b].colliders()[0]).unwrap();
    let warm = pair.manifolds().iter().flat_map(|m| &m.points).any(|p| p.data.warmstart_impulse > 0.0);
    assert!(warm, "the resting contact carries a warm-start impulse");
}

/// What a crowd of rolling balls did on one ground.
#[derive(Debug)]
struct Rolled {
    /// Steps where a ball's upward velocity jumped by more than [`KICK`] (a bump: rolling over
    /// the facets of these hills changes it by a fraction of that).
    kicks: usize,
    /// Steps where a ball moved up faster than 0.05 m/s (rolling up slopes does, legitimately).
    rising: usize,
    /// Deepest a ball got inside the surface (parry on one stitched mesh, no flag).
    deepest: f32,
    /// Ball-steps with the centre below the surface under it.
    below: usize,
}

const KICK: f32 = 0.5;

/// 150 balls (radius 0.3-0.6) set down on the hills rolling at 1-5 m/s in random directions,
/// 4 s; they do not collide with each other (collision groups), only with the ground.
fn roll_balls(mut sim: Sim, terrain: &TerrainShape, stick: &SharedShape) -> Rolled {
    use rapier3d::prelude::{ColliderBuilder, Group, InteractionGroups, InteractionTestMode, RigidBodyBuilder};
    let mut rng = Rng(0x5eed);
    let mut balls = Vec::new();
    while balls.len() < 150 {
        let (x, z) = (rng.range(4.0, 60.0), rng.range(4.0, 60.0));
        let (r, a, v) = (rng.range(0.3, 0.6), rng.range(0.0, std::f32::consts::TAU), rng.range(1.0, 5.0));
        let Some(y) = surface_y(terrain, x, z) else { continue };
        let v = Vec3::new(a.cos() * v, 0.0, a.sin() * v);
        let body = RigidBodyBuilder::dynamic()
            .translation(Vec3::new(x, y + r + 0.05, z))
            .linvel(v)
            .angvel(Vec3::Y.cross(v) / r);
        let h = sim.physics.bodies.insert(body.build());
        let groups = InteractionGroups::new(Group::GROUP_1, Group::GROUP_2, InteractionTestMode::And);
        let ball = ColliderBuilder::ball(r).collision_groups(groups).build();
        sim.physics.colliders.insert_with_parent(ball, h, &mut sim.physics.bodies);
        balls.push((h, r, 0.0f32));
    }
    let mut out = Rolled { kicks: 0, rising: 0, deepest: 0.0, below: 0 };
    for step in 0..240 {
        sim.step();
        for (h, r, last_vy) in &mut balls {
            let pose = sim.pose(*h);
            let (p, vy) = (pose.translation, sim.linvel(*h).y);
            assert!(p.is_finite());
            // From the first landing on (set down 5 cm up: about 6 steps).
            if step >= 20 {
                out.kicks += usize::from(vy - *last_vy > KICK);
                out.rising += usize::from(vy > 0.05);
                out.deepest = out.deepest.max(depth_inside(stick, &SharedShape::ball(*r), &pose));
                out.below += usize::from(surface_y(terrain, p.x, p.z).is_some_and(|ground| p.y < ground));
            }
            *last_vy = vy;
        }
    }
    out
}

/// Rough terrain (issue 30, test 3): balls rolling over generated hills across many seams bump no
/// more often on ours than on one stitched `TriMesh` with `FIX_INTERNAL_EDGES` (counted here, in
/// the same scene), none ends below the surface, and none gets deeper inside it than on that mesh
/// (or 6 mm, the crease scenes' bound). `TriMesh` per chunk without the flag, in the same scene,
/// shows the count sees bumps.
#[test]
fn rough_terrain_bumps_no_more_than_one_stitched_mesh() {
    use parry3d::shape::TriMeshFlags;
    use voxel_rapier::reference;
    let collider = hills(IVec3::new(64, 40, 64), 11);
    let stick = stitched(&collider);
    let one = vec![reference::stitched_trimesh(&collider, TriMeshFlags::FIX_INTERNAL_EDGES).unwrap()];
    let per_chunk = reference::trimesh_per_chunk(&collider, TriMeshFlags::empty());
    let terrain = TerrainShape::new(collider);
    let ours = roll_balls(Sim::ours(&terrain), &terrain, &stick);
    let stitched = roll_balls(Sim::meshes(&one), &terrain, &stick);
    let bumpy = roll_balls(Sim::meshes(&per_chunk), &terrain, &stick);
    println!("ours {ours:?}\nstitched + flag {stitched:?}\nper chunk, no flag {bumpy:?}");
    assert!(bumpy.kicks > 10 * (stitched.kicks + 1), "the count sees ghost bumps: {bumpy:?}");
    assert!(ours.rising > 1000, "the balls rolled up and down the hills: {ours:?}");
    assert!(ours.kicks <= stitched.kicks, "ours bumps more than one stitched mesh: {ours:?} vs {stitched:?}");
    assert_eq!(ours.below, 0, "a ball went below the surface: {ours:?}");
    assert!(ours.deepest <= stitched.deepest.max(0.006), "{ours:?} vs {stitched:?}");
}
