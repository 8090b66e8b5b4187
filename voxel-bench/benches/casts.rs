//! Shape casts against terrain: `TerrainCollider::cast_shape` beside parry3d's `cast_shapes`
//! against one `TriMesh` per 8^3 chunk (with and without `TriMeshFlags::FIX_INTERNAL_EDGES`), on
//! the same world, the same casts and the same chunk meshes (parry's meshes are the collider's own).
//!
//! - `casts/terrain/{sphere,capsule,box}/*`: 1024 casts each from above a 64 x 48 x 64 generated
//!   world, down at a slant, 12 voxels of travel, skin 0.01. Ours includes its midphase (broadphase,
//!   chunk walk, kD trees, candidate gathering); parry's includes the chunk lookup over the swept
//!   box and its own BVH traversal per chunk mesh. The chunk meshes are built before timing for
//!   both.
//! - `casts/batch/ours`: the same 3072 casts through `cast_shapes` (rayon).
//!
//! Figures (counted, not timed), on a flat Surface Nets floor spanning 8 x 8 chunks:
//!
//! - `casts/snags/<shape>/{resting,hovering}/<contender>`: casts of shapes resting on the floor
//!   (gap 0, skin 0.01) or hovering 0.02 over it, swept sideways across chunk seams: every hit is a
//!   snag (parry reports a shape that starts within its target distance as hit at once, whatever
//!   the direction, so its resting count measures that rule, not its edges);
//! - `casts/edge-normals/<shape>/<contender>`: slanted landings on the floor whose hit normal is
//!   more than 1e-4 rad off the floor's.

use std::collections::HashMap;
use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group};
use glam::{IVec3, Quat, Vec3};
use parry3d::math::Pose;
use parry3d::query::ShapeCastOptions;
use parry3d::shape::{
    Ball, Capsule as ParryCapsule, Cuboid as ParryCuboid, Shape as ParryShape, TriMesh, TriMeshFlags,
};
use voxel_bench::workloads::Rng;
use voxel_bench::{config, figure};
use voxel_contacts::{Capsule, CastOptions, Cuboid, Shape, Sphere};
use voxel_core::{Voxel, VoxelBox};
use voxel_physics::{CastScratch, ColliderOptions, PHYSICS_CHUNK_EDGE, ShapeCast, TerrainCollider};
use voxel_store::VoxelStore;
use voxel_store::generate::{self, Terrain, materials};

const SKIN: f32 = 0.01;
const CASTS: usize = 1024;

/// One cast in both contenders' forms.
struct Twin {
    ours: Shape<'static>,
    parry: Box<dyn ParryShape>,
    pose: Pose,
}

fn twin(kind: usize, at: Vec3, yaw: f32) -> Twin {
    match kind {
        0 => Twin {
            ours: Shape::Sphere(Sphere { center: at, radius: 0.5 }),
            parry: Box::new(Ball::new(0.5)),
            pose: Pose::from_translation(at),
        },
        1 => {
            let half = Quat::from_rotation_y(yaw) * Vec3::new(0.5, 0.0, 0.0);
            Twin {
                ours: Shape::Capsule(Capsule { a: at - half, b: at + half, radius: 0.3 }),
                parry: Box::new(ParryCapsule::new(-half, half, 0.3)),
                pose: Pose::from_translation(at),
            }
        }
        _ => {
            let half = Vec3::new(0.5, 0.3, 0.4);
            let rotation = Quat::from_rotation_y(yaw);
            Twin {
                ours: Shape::Cuboid(Cuboid { half_extents: half, pose: voxel_contacts::Pose::new(rotation, at) }),
                parry: Box::new(ParryCuboid::new(half)),
                pose: Pose::from_parts(at, rotation),
            }
        }
    }
}

const KINDS: [&str; 3] = ["sphere", "capsule", "box"];

/// The collider's chunk meshes as parry trimeshes, by chunk key.
struct ParryChunks {
    plain: HashMap<IVec3, TriMesh>,
    fixed: HashMap<IVec3, TriMesh>,
}

impl ParryChunks {
    fn new(collider: &TerrainCollider) -> Self {
        let (mut plain, mut fixed) = (HashMap::new(), HashMap::new());
        for key in collider.world().grow(1).chunk_keys(PHYSICS_CHUNK_EDGE).iter() {
            let Some(shape) = collider.chunk_shape(key) else { continue };
            let mesh = shape.mesh();
            if shape.is_empty() {
                continue;
            }
            let v = mesh.positions().to_vec();
            let t: Vec<[u32; 3]> = mesh.triangles().iter().map(|t| t.map(u32::from)).collect();
            plain.insert(key, TriMesh::with_flags(v.clone(), t.clone(), TriMeshFlags::empty()).expect("valid"));
            fixed.insert(key, TriMesh::with_flags(v, t, TriMeshFlags::FIX_INTERNAL_EDGES).expect("valid"));
        }
        Self { plain, fixed }
    }

    /// parry's first hit over the chunk meshes the swept box touches: (toi, normal on the mesh).
    fn cast(&self, fixed: bool, twin: &Twin, motion: Vec3, max_t: f32) -> Option<(f32, Vec3)> {
        let meshes = if fixed { &self.fixed } else { &self.plain };
        let b = twin.ours.aabb();
        let swept = b.union(&voxel_core::Aabb::new(b.min + motion * max_t, b.max + motion * max_t)).grow(SKIN);
        let edge = PHYSICS_CHUNK_EDGE as f32;
        let (lo, hi) = ((swept.min / edge).floor().as_ivec3(), (swept.max / edge).floor().as_ivec3());
        let options = ShapeCastOptions {
            max_time_of_impact: max_t,
            target_distance: SKIN,
            stop_at_penetration: false,
            compute_impact_geometry_on_penetration: true,
        };
        let mut best: Option<(f32, Vec3)> = None;
        // Meshes reach one voxel below their chunk: the chunk below the box may hold its floor.
        for key in VoxelBox::new(lo - IVec3::ONE, hi + IVec3::ONE).iter() {
            let Some(mesh) = meshes.get(&key) else { continue };
            let hit = parry3d::query::cast_shapes(
                &Pose::IDENTITY,
                Vec3::ZERO,
                mesh,
                &twin.pose,
                motion,
                twin.parry.as_ref(),
                options,
            );
            if let Ok(Some(hit)) = hit
                && best.is_none_or(|b| hit.time_of_impact < b.0)
            {
                best = Some((hit.time_of_impact, hit.normal1));
            }
        }
        best
    }
}

fn world() -> TerrainCollider {
    let size = IVec3::new(64, 48, 64);
    let mut store = generate::terrain(&Terrain::new(size, 1)).expect("generates");
    store.compact();
    TerrainCollider::new(store, VoxelBox::new(IVec3::ZERO, size), ColliderOptions::default()).expect("a collider")
}

/// Casts from above the world, down at a slant.
fn terrain_casts(kind: usize) -> Vec<(Twin, Vec3)> {
    let mut rng = Rng::new(40 + kind as u64);
    (0..CASTS)
        .map(|_| {
            let at = Vec3::new(rng.range(4.0, 60.0), rng.range(30.0, 44.0), rng.range(4.0, 60.0));
            let motion = Vec3::new(rng.range(-0.5, 0.5), -1.0, rng.range(-0.5, 0.5)).normalize() * 12.0;
            (twin(kind, at, rng.range(0.0, 3.0)), motion)
        })
        .collect()
}

fn terrain(c: &mut Criterion) {
    let collider = world();
    let chunks = ParryChunks::new(&collider);
    let mut group = c.benchmark_group("casts/terrain");
    group.throughput(Throughput::Elements(CASTS as u64));
    let options = CastOptions { max_t: 1.0, skin: SKIN, ..CastOptions::default() };
    for (kind, name) in KINDS.iter().enumerate() {
        let casts = terrain_casts(kind);
        let mut scratch = CastScratch::new();
        // Warm the cache: both contenders meet built chunk meshes.
        let mut agree = 0;
        for (twin, motion) in &casts {
            let ours = collider.cast_shape(&twin.ours, *motion, &options, &mut scratch).unwrap();
            let theirs = chunks.cast(true, twin, *motion, 1.0);
            agree += usize::from(match (ours, theirs) {
                (Some(a), Some(b)) => (a.hit.t - b.0).abs() * motion.length() < 1e-2,
                (None, None) => true,
                _ => false,
            });
        }
        figure(&format!("casts/terrain/{name}/agreement-with-parry-fixed"), agree as f64 / CASTS as f64, "share");
        group.bench_function(BenchmarkId::new(format!("{name}/ours"), CASTS), |b| {
            b.iter(|| {
                for (twin, motion) in &casts {
                    black_box(collider.cast_shape(&twin.ours, *motion, &options, &mut scratch).unwrap());
                }
            });
        });
        for (fixed, peer) in [(false, "parry3d"), (true, "parry3d-fix-internal-edges")] {
            group.bench_function(BenchmarkId::new(format!("{name}/{peer}"), CASTS), |b| {
                b.iter(|| {
                    for (twin, motion) in &casts {
                        black_box(chunks.cast(fixed, twin, *motion, 1.0));
                    }
                });
            });
        }
    }
    group.finish();

    let all: Vec<ShapeCast<'static>> =
        (0..3).flat_map(terrain_casts).map(|(twin, motion)| ShapeCast { shape: twin.ours, motion }).collect();
    let mut group = c.benchmark_group("casts/batch");
    group.throughput(Throughput::Elements(all.len() as u64));
    let mut out = Vec::new();
    group.bench_function(BenchmarkId::new("ours", all.len()), |b| {
        b.iter(|| collider.cast_shapes(&all, &options, &mut out));
    });
    group.finish();
}

/// A flat floor over 64 x 64 voxels (8 x 8 chunks), surface half-way between rows 7 and 8.
fn floor() -> TerrainCollider {
    let size = IVec3::new(64, 16, 64);
    let mut store = VoxelStore::with_palette(generate::palette());
    let world = VoxelBox::new(IVec3::ZERO, size);
    generate::from_fn(&mut store, world, |p| {
        if p.y < 8 { Voxel::new(-64, materials::ROCK) } else { Voxel::new(64, materials::AIR) }
    })
    .expect("fills");
    TerrainCollider::new(store, world, ColliderOptions::default()).expect("a collider")
}

/// Snag and edge-normal counts on the flat floor (figures).
fn snags() {
    let collider = floor();
    let chunks = ParryChunks::new(&collider);
    let ground = 7.5;
    let mut scratch = CastScratch::new();
    let options = CastOptions { max_t: 1.0, skin: SKIN, ..CastOptions::default() };
    let lowest = |kind: usize| match kind {
        0 => 0.5,
        1 => 0.3,
        _ => 0.3,
    };
    for (kind, name) in KINDS.iter().enumerate() {
        let mut rng = Rng::new(7 + kind as u64);
        for (lift, state) in [(0.0, "resting"), (2.0 * SKIN, "hovering")] {
            let (mut ours, mut plain, mut fixed, mut total) = (0, 0, 0, 0);
            for _ in 0..300 {
                let at = Vec3::new(rng.range(16.0, 48.0), ground + lowest(kind) + lift, rng.range(16.0, 48.0));
                let t = twin(kind, at, rng.range(0.0, 3.0));
                let a = rng.range(0.0, core::f32::consts::TAU);
                let motion = Vec3::new(a.cos(), 0.0, a.sin()) * rng.range(2.0, 12.0);
                total += 1;
                ours += usize::from(collider.cast_shape(&t.ours, motion, &options, &mut scratch).unwrap().is_some());
                plain += usize::from(chunks.cast(false, &t, motion, 1.0).is_some());
                fixed += usize::from(chunks.cast(true, &t, motion, 1.0).is_some());
            }
            let id = |who: &str| format!("casts/snags/{name}/{state}/{who}");
            figure(&id("ours"), ours as f64, &format!("of {total}"));
            figure(&id("parry3d"), plain as f64, &format!("of {total}"));
            figure(&id("parry3d-fix-internal-edges"), fixed as f64, &format!("of {total}"));
        }

        let (mut ours, mut plain, mut fixed, mut total) = (0, 0, 0, 0);
        let off = |n: Vec3| n.angle_between(Vec3::Y) > 1e-4;
        for _ in 0..600 {
            let at = Vec3::new(rng.range(16.0, 48.0), ground + 2.0, rng.range(16.0, 48.0));
            let t = twin(kind, at, rng.range(0.0, 3.0));
            let motion = Vec3::new(rng.range(-1.0, 1.0), -1.0, rng.range(-1.0, 1.0)) * 3.0;
            total += 1;
            let hit = collider.cast_shape(&t.ours, motion, &options, &mut scratch).unwrap();
            ours += usize::from(hit.is_none_or(|h| off(h.hit.normal)));
            plain += usize::from(chunks.cast(false, &t, motion, 1.0).is_none_or(|h| off(h.1)));
            fixed += usize::from(chunks.cast(true, &t, motion, 1.0).is_none_or(|h| off(h.1)));
        }
        figure(&format!("casts/edge-normals/{name}/ours"), ours as f64, &format!("of {total}"));
        figure(&format!("casts/edge-normals/{name}/parry3d"), plain as f64, &format!("of {total}"));
        figure(&format!("casts/edge-normals/{name}/parry3d-fix-internal-edges"), fixed as f64, &format!("of {total}"));
    }
}

criterion_group! {
    name = benches;
    config = config();
    targets = terrain
}

fn main() {
    snags();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
