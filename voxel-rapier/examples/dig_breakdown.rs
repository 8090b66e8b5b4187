//! Where a radius-3 dig's time goes, phase by phase, beside the `TriMesh` build a per-chunk
//! world adds: 400 digs on the hills of the `rapier` bench (128 x 48 x 128 voxels), the median
//! and mean of each phase in microseconds. The median is the figure to read on a shared machine:
//! the mean carries every preemption.
//!
//! `cargo run --release -p voxel-rapier --example dig_breakdown`

use std::hint::black_box;
use std::time::{Duration, Instant};

use glam::{IVec3, Vec3};
use parry3d::math::Pose;
use parry3d::query::{ContactManifold, PersistentQueryDispatcher};
use parry3d::shape::{SharedShape, TriMeshFlags};
use rapier3d::prelude::*;
use voxel_core::TriangleSource;
use voxel_physics::voxel_broadphase::Broadphase;
use voxel_physics::voxel_kdtree::KdTree;
use voxel_physics::voxel_mesh::{Mesh, MeshOptions, Mesher};
use voxel_physics::voxel_raymarch::Occupancy;
use voxel_physics::{Brush, ColliderOptions, PHYSICS_CHUNK_EDGE, TerrainCollider, VoxelBox};
use voxel_rapier::{TerrainDispatcher, TerrainShape, terrain_changed};
use voxel_store::generate;

const SIZE: IVec3 = IVec3::new(128, 48, 128);
const PHASES: [&str; 9] = [
    "store edit alone",
    "broadphase refresh",
    "occupancy refresh",
    "collider edit (all three + cache invalidation)",
    "terrain_changed",
    "next contact query of the ball there (lazy rebuild)",
    "Surface Nets of every touched chunk",
    "kD trees of every touched chunk",
    "TriMesh + FIX_INTERNAL_EDGES of every touched chunk",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut store = generate::terrain(&generate::Terrain::new(SIZE, 3))?;
    store.compact();
    let world = VoxelBox::new(IVec3::ZERO, SIZE);
    let mut bare = store.clone();
    let mut broadphase = Broadphase::build(&store, world)?;
    let mut occupancy = Occupancy::build(&store, world)?;
    let terrain = TerrainShape::new(TerrainCollider::new(store, world, ColliderOptions::default())?);
    let shape = terrain.shared_shape();
    let mut physics = PhysicsWorld::default();
    let handle = physics.colliders.insert(ColliderBuilder::new(shape.clone()).build());
    let ball = SharedShape::ball(0.4);
    let (mut mesher, mut mesh, mut meshes) = (Mesher::default(), Mesh::default(), Vec::<Mesh>::new());
    let mut manifolds: Vec<ContactManifold<(), ()>> = Vec::new();
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); PHASES.len()];
    let (mut chunks, mut triangles) = (0, 0);
    let mut timed = |phase: usize, f: &mut dyn FnMut()| {
        let t = Instant::now();
        f();
        times[phase].push(t.elapsed());
    };
    for i in 0..400 {
        let k = i as f32;
        let at = Vec3::new(8.0 + (k % 20.0) * 5.6, 0.0, 8.0 + (k / 20.0).floor() * 5.6);
        let ray = voxel_core::Ray::new(at + Vec3::Y * 100.0, Vec3::NEG_Y);
        let y = terrain.read().raycast(&ray, 200.0).map_or(20.0, |h| h.point.y);
        let brush = Brush::Sphere { center: at.with_y(y), radius: 3.0 };
        let pose = Pose::from_translation(at.with_y(y + 0.4));

        let mut dirty = VoxelBox::EMPTY;
        timed(0, &mut || dirty = bare.subtract(&brush).expect("dig").dirty);
        timed(1, &mut || drop(broadphase.refresh(&bare, dirty, &mut Vec::new())));
        timed(2, &mut || drop(occupancy.refresh(&bare, dirty)));
        timed(3, &mut || drop(terrain.write().subtract(&brush)));
        timed(4, &mut || {
            black_box(terrain_changed(&mut physics.colliders, &mut physics.bodies, handle, dirty, 0.5));
        });
        timed(5, &mut || {
            let query = TerrainDispatcher.contact_manifolds(
                &pose,
                shape.as_ref(),
                ball.as_ref(),
                0.02,
                &mut manifolds,
                &mut None,
            );
            black_box(query.is_ok());
        });
        let keys: Vec<IVec3> = dirty.chunk_keys(PHYSICS_CHUNK_EDGE).iter().collect();
        chunks += keys.len();
        timed(6, &mut || {
            meshes.clear();
            for &key in &keys {
                let region = VoxelBox::chunk(key, PHYSICS_CHUNK_EDGE);
                mesher.surface_nets(&bare, region, &MeshOptions::PHYSICS, &mut mesh).expect("mesh");
                meshes.push(mesh.clone());
            }
        });
        triangles += meshes.iter().map(TriangleSource::triangle_count).sum::<usize>();
        timed(7, &mut || meshes.iter().for_each(|m| drop(black_box(KdTree::build(m)))));
        timed(8, &mut || {
            for m in meshes.iter().filter(|m| m.triangle_count() > 0) {
                let idx = (0..m.triangle_count() as u32).map(|t| m.triangle(t)).collect();
                let flags = TriMeshFlags::FIX_INTERNAL_EDGES | TriMeshFlags::DELETE_DEGENERATE_TRIANGLES;
                drop(black_box(SharedShape::trimesh_with_flags(m.positions().to_vec(), idx, flags)));
            }
        });
    }
    println!(
        "400 digs: {:.1} touched chunks and {:.0} triangles per dig",
        chunks as f64 / 400.0,
        triangles as f64 / 400.0
    );
    for (name, mut t) in PHASES.iter().zip(times) {
        t.sort_unstable();
        let mean = t.iter().sum::<Duration>().as_secs_f64() * 1e6 / t.len() as f64;
        println!("{name:>52}: median {:7.1} us, mean {mean:7.1} us", t[t.len() / 2].as_secs_f64() * 1e6);
    }
    Ok(())
}
