//! voxel-rapier beside rapier's own colliders for the same terrain, in one run:
//!
//! - `rapier/step_1000/*`: one step of 1000 mixed bodies (balls, boxes, capsules, hulls) resting
//!   and sliding on generated hills: ours, `TriMesh` per chunk with `FIX_INTERNAL_EDGES`, one
//!   stitched `TriMesh` with the flag.
//! - `rapier/dig_r3/*`: a radius-3 dig until the next step's contacts are right for the ball that
//!   rested where it digs. Ours: the collider's edit (store, broadphase, occupancy, cache
//!   invalidation), `terrain_changed`, and the ball's contact query, which rebuilds the chunk
//!   shapes it needs; `ours_all_touched_chunks` rebuilds every touched chunk's shape instead.
//!   Peer: the same edit on the store alone, Surface Nets of the touched chunks, their `TriMesh`
//!   with `FIX_INTERNAL_EDGES`, and the same query against them.
//!
//! Collision memory is printed before the groups run (a counting allocator measures the bytes
//! the `TriMesh` colliders hold; ours is the narrowphase cache's own count).

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use glam::{IVec3, Quat, Vec3};
use parry3d::bounding_volume::BoundingVolume;
use parry3d::math::Pose;
use parry3d::query::{ContactManifold, DefaultQueryDispatcher, PersistentQueryDispatcher};
use parry3d::shape::{SharedShape, TriMeshFlags};
use rapier3d::prelude::*;
use voxel_core::TriangleSource;
use voxel_physics::voxel_mesh::{Mesh, MeshOptions, Mesher};
use voxel_physics::{Brush, ColliderOptions, PHYSICS_CHUNK_EDGE, TerrainCollider, VoxelBox};
use voxel_rapier::{TerrainDispatcher, TerrainShape, reference, terrain_changed};
use voxel_store::generate;
use voxel_testdata::ByteCounter;

#[global_allocator]
static ALLOC: ByteCounter = ByteCounter::new();

const SIZE: IVec3 = IVec3::new(128, 48, 128);

fn collider() -> TerrainCollider {
    let mut store = generate::terrain(&generate::Terrain::new(SIZE, 3)).expect("terrain");
    store.compact();
    TerrainCollider::new(store, VoxelBox::new(IVec3::ZERO, SIZE), ColliderOptions::default()).expect("collider")
}

fn mixed_shape(i: usize) -> SharedShape {
    match i % 4 {
        0 => SharedShape::ball(0.4),
        1 => SharedShape::cuboid(0.35, 0.25, 0.4),
        2 => SharedShape::capsule_y(0.3, 0.25),
        _ => SharedShape::convex_hull(&[
            Vec3::new(-0.4, -0.25, -0.4),
            Vec3::new(0.4, -0.25, -0.3),
            Vec3::new(0.0, -0.25, 0.4),
            Vec3::new(0.05, 0.3, 0.0),
        ])
        .expect("hull"),
    }
}

/// A world with `ground` colliders and 1000 bodies (never sleeping) dropped on a grid over the
/// hills, settled for 2 s; some keep sliding down the slopes.
fn world(ground: &[SharedShape], ours: bool, terrain: &TerrainShape) -> PhysicsWorld {
    let mut physics = if ours {
        PhysicsWorld {
            narrow_phase: NarrowPhase::with_query_dispatcher(TerrainDispatcher::chained()),
            ..PhysicsWorld::default()
        }
    } else {
        PhysicsWorld::default()
    };
    for g in ground {
        physics.colliders.insert(ColliderBuilder::new(g.clone()).build());
    }
    let collider = terrain.read();
    for i in 0..1000 {
        let (x, z) = (4.0 + (i % 40) as f32 * 3.0, 4.0 + (i / 40) as f32 * 4.8);
        let ray = voxel_physics::voxel_core::Ray::new(Vec3::new(x, 200.0, z), Vec3::NEG_Y);
        let y = collider.raycast(&ray, 400.0).map_or(30.0, |h| h.point.y) + 1.0;
        let body = physics.bodies.insert(
            RigidBodyBuilder::dynamic()
                .pose(Pose::from_parts(Vec3::new(x, y, z), Quat::from_rotation_y(i as f32)))
                .can_sleep(false),
        );
        physics.colliders.insert_with_parent(ColliderBuilder::new(mixed_shape(i)).build(), body, &mut physics.bodies);
    }
    drop(collider);
    for _ in 0..120 {
        physics.step();
    }
    physics
}

fn memory(terrain: &TerrainShape) {
    let c = terrain.read();
    let (per_chunk, per_chunk_bytes, _) =
        ALLOC.measure(|| reference::trimesh_per_chunk(&c, TriMeshFlags::FIX_INTERNAL_EDGES));
    let (plain, plain_bytes, _) = ALLOC.measure(|| reference::trimesh_per_chunk(&c, TriMeshFlags::empty()));
    let (stitched, stitched_bytes, _) =
        ALLOC.measure(|| reference::stitched_trimesh(&c, TriMeshFlags::FIX_INTERNAL_EDGES));
    let stats = c.cache_stats();
    let tris = stats.triangles.max(1) as f64;
    println!(
        "collision memory, {} triangles in {} chunks: ours (cache) {} B = {:.1} B/triangle; TriMesh per chunk {:.1} B/triangle, with FIX_INTERNAL_EDGES {:.1}; stitched with the flag {:.1}",
        stats.triangles,
        stats.entries,
        stats.bytes,
        stats.bytes as f64 / tris,
        plain_bytes as f64 / tris,
        per_chunk_bytes as f64 / tris,
        stitched_bytes as f64 / tris
    );
    drop((per_chunk, plain, stitched));
}

fn step(c: &mut Criterion) {
    let terrain = TerrainShape::new(collider());
    let (per_chunk, stitched) = {
        let c = terrain.read();
        (
            reference::trimesh_per_chunk(&c, TriMeshFlags::FIX_INTERNAL_EDGES),
            vec![reference::stitched_trimesh(&c, TriMeshFlags::FIX_INTERNAL_EDGES).expect("surface")],
        )
    };
    memory(&terrain);
    let mut group = c.benchmark_group("rapier/step_1000");
    group.sample_size(20).measurement_time(Duration::from_secs(8));
    // No body sleeps (a resting body would cost almost nothing and the measured steps would
    // change as more fall asleep): every step is 1000 bodies' contacts and solve.
    let awake = |w: &PhysicsWorld| w.islands.active_bodies().count();
    let mut ours = world(&[terrain.shared_shape()], true, &terrain);
    let before = awake(&ours);
    group.bench_function("ours", |b| b.iter(|| ours.step()));
    println!("ours: {before} of 1000 bodies awake after settling, {} after the measurement", awake(&ours));
    let mut chunked = world(&per_chunk, false, &terrain);
    let before = awake(&chunked);
    group.bench_function("trimesh_per_chunk_fixed", |b| b.iter(|| chunked.step()));
    println!("per chunk: {before} of 1000 bodies awake after settling, {} after", awake(&chunked));
    let mut one = world(&stitched, false, &terrain);
    let before = awake(&one);
    group.bench_function("trimesh_stitched_fixed", |b| b.iter(|| one.step()));
    println!("stitched: {before} of 1000 bodies awake after settling, {} after", awake(&one));
    group.finish();
    for (name, w) in [("ours", &mut ours), ("per chunk + flag", &mut chunked), ("stitched + flag", &mut one)] {
        narrow_phase_share(name, w);
    }
}

/// Prints the narrow phase's share of a step (rapier's own stage timers, summed over 60 steps).
fn narrow_phase_share(name: &str, w: &mut PhysicsWorld) {
    w.physics_pipeline.counters.enable();
    let (mut narrow, mut total) = (0.0, 0.0);
    for _ in 0..60 {
        w.step();
        narrow += w.physics_pipeline.counters.narrow_phase_time_ms();
        total += w.physics_pipeline.counters.step_time_ms();
    }
    w.physics_pipeline.counters.disable();
    println!(
        "{name}: narrow phase {:.2} ms of a {:.2} ms step ({:.0}%), rapier's timers over 60 steps",
        narrow / 60.0,
        total / 60.0,
        100.0 * narrow / total.max(1e-9)
    );
}

/// The dig sites of `rapier/dig_r3/*`: 400 points on a 20 x 20 grid over the hills, each with a
/// ball of radius 0.4 resting on the surface there before the dig.
fn dig_sites(terrain: &TerrainShape) -> Vec<(Vec3, Pose)> {
    let c = terrain.read();
    (0..400)
        .map(|i| {
            let k = i as f32;
            let at = Vec3::new(8.0 + (k % 20.0) * 5.6, 0.0, 8.0 + (k / 20.0).floor() * 5.6);
            let ray = voxel_physics::voxel_core::Ray::new(at + Vec3::Y * 100.0, Vec3::NEG_Y);
            let y = c.raycast(&ray, 200.0).map_or(20.0, |h| h.point.y);
            (at.with_y(y), Pose::from_translation(at.with_y(y + DIG_BALL)))
        })
        .collect()
}

const DIG_BALL: f32 = 0.4;
const PREDICTION: f32 = 0.02;

/// One dig, timed, on each side; `sites` cycle and the world starts afresh every 400 digs.
fn dig(c: &mut Criterion) {
    let mut group = c.benchmark_group("rapier/dig_r3");
    group.sample_size(30).measurement_time(Duration::from_secs(5));
    let fresh = collider();
    let sites = dig_sites(&TerrainShape::new(collider()));
    let ball = SharedShape::ball(DIG_BALL);
    let brush = |at: Vec3| Brush::Sphere { center: at, radius: 3.0 };

    // Ours: the collider's edit (store, broadphase, occupancy, cache invalidation), then
    // `terrain_changed`, then the next step's contact query of the ball that rested there, which
    // rebuilds the chunk shapes it needs (mesh and kD tree); `all_touched` rebuilds every touched
    // chunk's shape instead of the query (the contacts of any body near the dig are then ready).
    for all_touched in [false, true] {
        let name = if all_touched { "ours_all_touched_chunks" } else { "ours" };
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                let mut terrain = TerrainShape::new(collider());
                let mut physics = PhysicsWorld::default();
                let handle = physics.colliders.insert(ColliderBuilder::new(terrain.shared_shape()).build());
                let mut shape = terrain.shared_shape();
                let mut manifolds: Vec<ContactManifold<(), ()>> = Vec::new();
                for i in 0..iters as usize {
                    if i > 0 && i % sites.len() == 0 {
                        terrain = TerrainShape::new(collider());
                        shape = terrain.shared_shape();
                        physics.colliders[handle].set_shape(shape.clone());
                    }
                    let (at, pose) = sites[i % sites.len()];
                    // The resting ball's contacts of the step before the dig: its chunks are cached.
                    TerrainDispatcher
                        .contact_manifolds(&pose, shape.as_ref(), ball.as_ref(), PREDICTION, &mut manifolds, &mut None)
                        .expect("a supported pair");
                    let t0 = Instant::now();
                    let dirty = terrain.write().subtract(&brush(at)).expect("dig").report.dirty;
                    terrain_changed(&mut physics.colliders, &mut physics.bodies, handle, dirty, 0.5);
                    if all_touched {
                        let t = terrain.read();
                        for key in dirty.chunk_keys(PHYSICS_CHUNK_EDGE).iter() {
                            black_box(t.chunk_shape(key));
                        }
                    } else {
                        TerrainDispatcher
                            .contact_manifolds(
                                &pose,
                                shape.as_ref(),
                                ball.as_ref(),
                                PREDICTION,
                                &mut manifolds,
                                &mut None,
                            )
                            .expect("a supported pair");
                        black_box(&manifolds);
                    }
                    total += t0.elapsed();
                }
                total
            });
        });
    }

    // rapier's own, per chunk: the same edit on the voxel store alone, Surface Nets of every
    // touched chunk (the collider's own mesher and options), a `TriMesh` with
    // `FIX_INTERNAL_EDGES` per touched chunk with triangles, and the same contact query of the
    // ball against the new meshes its box reaches.
    group.bench_function("trimesh_per_chunk_fixed", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            let mut store = fresh.store().clone();
            let mut mesher = Mesher::default();
            let mut mesh = Mesh::default();
            let mut manifolds: Vec<ContactManifold<(), ()>> = Vec::new();
            for i in 0..iters as usize {
                if i > 0 && i % sites.len() == 0 {
                    store = fresh.store().clone();
                }
                let (at, pose) = sites[i % sites.len()];
                let t0 = Instant::now();
                let dirty = store.subtract(&brush(at)).expect("dig").dirty;
                let reach = ball.compute_aabb(&pose).loosened(PREDICTION);
                for key in dirty.chunk_keys(PHYSICS_CHUNK_EDGE).iter() {
                    let region = VoxelBox::chunk(key, PHYSICS_CHUNK_EDGE);
                    mesher.surface_nets(&store, region, &MeshOptions::PHYSICS, &mut mesh).expect("mesh");
                    if mesh.triangle_count() == 0 {
                        continue;
                    }
                    let flags = TriMeshFlags::FIX_INTERNAL_EDGES | TriMeshFlags::DELETE_DEGENERATE_TRIANGLES;
                    let Ok(trimesh) =
                        SharedShape::trimesh_with_flags(mesh.positions().to_vec(), mesh_triangles(&mesh), flags)
                    else {
                        continue;
                    };
                    if trimesh.compute_aabb(&Pose::IDENTITY).intersects(&reach) {
                        DefaultQueryDispatcher
                            .contact_manifolds(
                                &pose,
                                trimesh.as_ref(),
                                ball.as_ref(),
                                PREDICTION,
                                &mut manifolds,
                                &mut None,
                            )
                            .expect("a supported pair");
                        black_box(&manifolds);
                    }
                    black_box(trimesh);
                }
                total += t0.elapsed();
            }
            total
        });
    });
    group.finish();
}

fn mesh_triangles(mesh: &Mesh) -> Vec<[u32; 3]> {
    (0..mesh.triangle_count() as u32).map(|t| mesh.triangle(t)).collect()
}

criterion_group!(benches, step, dig);
criterion_main!(benches);
