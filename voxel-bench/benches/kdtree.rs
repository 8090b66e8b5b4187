//! `voxel-kdtree` benches beside `parry3d` (`TriMesh` and its BVH) and `obvhs` (PLOC BVH2,
//! `fastest_build` and `medium_build`) on Surface Nets terrain: a 4x2x4-chunk region (32^3 chunks,
//! one mesh) and a single 32^3 chunk. Build time, bytes per triangle (counting allocator), closest-
//! hit rays from above and from inside caves, 2x2x2 box queries near the surface (candidate counts
//! as figures), and quads against triangles on the same rays; and on three real meshes of
//! different kinds (`real_mesh_group`: build, rays from outside and inside, boxes).
//!
//! Every contender gets the mesh in its own layout, prepared outside the timed loop (parry: vertex
//! and index vectors, cloned per build; obvhs: a triangle array). Ray and box inputs are the same
//! for all, and each answers the same question: the closest hit's distance, or the triangles whose
//! boxes (nodes) a query box touches.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use glam::{IVec3, Vec3, Vec3A};
use obvhs::BvhBuildParams;
use obvhs::bvh2::Bvh2;
use obvhs::bvh2::builder::build_bvh2_from_tris;
use obvhs::ray::RayHit as ObvhsHit;
use parry3d::query::RayCast;
use parry3d::shape::TriMesh;
use voxel_bench::workloads::Rng;
use voxel_bench::{config, figure, shared_data, testdata};
use voxel_core::{Aabb, Ray, TriangleSource, VoxelBox};
use voxel_kdtree::{BuildOptions, CompactTree, KdTree, QuadTree, Scratch};
use voxel_mesh::{Mesh, MeshOptions, Mesher};
use voxel_store::VoxelStore;
use voxel_store::generate::{self, Terrain};
use voxel_testdata::ByteCounter;

#[global_allocator]
static ALLOC: ByteCounter = ByteCounter::new();

/// The generated world; the region is 4x2x4 chunks of 32^3 from it, around the mean ground height.
const WORLD: IVec3 = IVec3::new(256, 128, 256);
const REGION_MIN: IVec3 = IVec3::new(0, 32, 0);
const REGION: IVec3 = IVec3::new(128, 64, 128);
const RAYS: usize = 1024;
const BOXES: usize = 1024;
const MAX_T: f32 = 1000.0;

/// One mesh in every contender's layout, with its trees built once for the query benches.
struct Case {
    name: String,
    mesh: Mesh,
    vertices: Vec<Vec3>,
    indices: Vec<[u32; 3]>,
    obvhs_tris: Vec<obvhs::triangle::Triangle>,
    ours: KdTree,
    /// The quality build (binned surface-area cost) over the same mesh.
    quality: KdTree,
    quads: QuadTree,
    parry: TriMesh,
    fastest: Bvh2,
    medium: Bvh2,
}

fn obvhs_build(tris: &[obvhs::triangle::Triangle], params: BvhBuildParams) -> Bvh2 {
    let mut core_time = Duration::ZERO;
    build_bvh2_from_tris(tris, params, &mut core_time)
}

impl Case {
    fn new(name: String, mesh: Mesh) -> Self {
        let vertices = mesh.positions().to_vec();
        let indices: Vec<[u32; 3]> = (0..mesh.triangle_count() as u32).map(|t| mesh.triangle(t)).collect();
        let obvhs_tris: Vec<obvhs::triangle::Triangle> = (0..mesh.triangle_count() as u32)
            .map(|t| {
                let [a, b, c] = mesh.triangle_positions(t);
                obvhs::triangle::Triangle { v0: a.into(), v1: b.into(), v2: c.into() }
            })
            .collect();
        let ours = KdTree::build(&mesh).expect("a mesher's mesh");
        let quality = KdTree::build_with(&mesh, BuildOptions::QUALITY).expect("a mesher's mesh");
        let quads = QuadTree::build(&mesh).expect("voxel-mesh emits quads");
        let parry = TriMesh::new(vertices.clone(), indices.clone()).expect("valid mesh");
        let fastest = obvhs_build(&obvhs_tris, BvhBuildParams::fastest_build());
        let medium = obvhs_build(&obvhs_tris, BvhBuildParams::medium_build());
        Self { name, mesh, vertices, indices, obvhs_tris, ours, quality, quads, parry, fastest, medium }
    }

    fn triangles(&self) -> usize {
        self.mesh.triangle_count()
    }
}

fn obvhs_closest(bvh: &Bvh2, tris: &[obvhs::triangle::Triangle], ray: &Ray) -> f32 {
    let r = obvhs::ray::Ray::new(Vec3A::from(ray.origin), Vec3A::from(ray.dir), 0.0, MAX_T);
    let mut hit = ObvhsHit::none();
    // A miss leaves `t` at the ray's far end; report it as infinite like the others.
    if bvh.ray_traverse(r, &mut hit, |r, id| tris[bvh.primitive_indices[id] as usize].intersect(r)) {
        hit.t
    } else {
        f32::INFINITY
    }
}

fn obvhs_candidates(bvh: &Bvh2, query: &Aabb) -> usize {
    let b = obvhs::aabb::Aabb::new(Vec3A::from(query.min), Vec3A::from(query.max));
    let mut n = 0;
    bvh.aabb_traverse(b, |bvh, node| {
        n += bvh.nodes[node as usize].prim_count as usize;
        true
    });
    n
}

fn parry_aabb(query: &Aabb) -> parry3d::bounding_volume::Aabb {
    parry3d::bounding_volume::Aabb::new(query.min, query.max)
}

/// The 4x2x4-chunk region as one mesh, and the single 32^3 chunk of it with the most triangles.
fn cases(world: &VoxelStore) -> Vec<Case> {
    let mut mesher = Mesher::new();
    let mut region = Mesh::new();
    let start = std::time::Instant::now();
    mesher
        .surface_nets(world, VoxelBox::new(REGION_MIN, REGION_MIN + REGION), &MeshOptions::PHYSICS, &mut region)
        .expect("region");
    let region_ms = start.elapsed().as_secs_f64() * 1e3;
    figure("kdtree/terrain-4x2x4-chunks/meshing-time-once", region_ms, "ms");
    let mut chunk = Mesh::new();
    let mut best = (0, VoxelBox::new(REGION_MIN, REGION_MIN + IVec3::splat(32)));
    for key in VoxelBox::new(REGION_MIN, REGION_MIN + REGION).chunk_keys(32).iter() {
        let b = VoxelBox::chunk(key, 32);
        mesher.surface_nets(world, b, &MeshOptions::PHYSICS, &mut chunk).expect("chunk");
        if chunk.triangle_count() > best.0 {
            best = (chunk.triangle_count(), b);
        }
    }
    mesher.surface_nets(world, best.1, &MeshOptions::PHYSICS, &mut chunk).expect("chunk");
    vec![Case::new("terrain-4x2x4-chunks".into(), region), Case::new("terrain-32^3-chunk".into(), chunk)]
}

/// Rays from above the surface, downwards with up to about 45 degrees of tilt.
fn rays_from_above(case: &Case, seed: u64) -> Vec<Ray> {
    let b = case.ours.bounds();
    let mut rng = Rng::new(seed);
    (0..RAYS)
        .map(|_| {
            let origin = Vec3::new(rng.range(b.min.x, b.max.x), b.max.y + 5.0, rng.range(b.min.z, b.max.z));
            let dir = Vec3::new(rng.range(-1.0, 1.0), -1.0, rng.range(-1.0, 1.0)).normalize();
            Ray::new(origin, dir)
        })
        .collect()
}

/// Rays in every direction from air voxels with rock above them (caves and overhangs): the
/// origin is empty and a ray straight up from it hits the mesh.
fn rays_from_caves(case: &Case, world: &VoxelStore, seed: u64) -> Vec<Ray> {
    let b = case.ours.bounds();
    let mut rng = Rng::new(seed);
    let mut scratch = Scratch::new();
    let mut rays = Vec::with_capacity(RAYS);
    let mut attempts = 0;
    while rays.len() < RAYS && attempts < 1_000_000 {
        attempts += 1;
        let p = rng.point_in(&b.grow(-0.5));
        if world.get(p.round().as_ivec3()).is_inside() {
            continue;
        }
        if !case.ours.any_hit(&case.mesh, &Ray::new(p, Vec3::Y), MAX_T, &mut scratch) {
            continue;
        }
        rays.push(Ray::new(p, rng.direction()));
    }
    rays
}

/// 2x2x2 boxes centred within one unit of surface points (where rays from above hit).
fn boxes_near_surface(case: &Case, seed: u64) -> Vec<Aabb> {
    let mut scratch = Scratch::new();
    let mut rng = Rng::new(seed);
    rays_from_above(case, seed)
        .iter()
        .filter_map(|r| case.ours.cast_ray(&case.mesh, r, MAX_T, &mut scratch).map(|h| r.at(h.t)))
        .take(BOXES)
        .map(|p| {
            let c = p + Vec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0));
            Aabb::new(c - Vec3::ONE, c + Vec3::ONE)
        })
        .collect()
}

fn build_group(c: &mut Criterion, case: &Case) {
    let tris = case.triangles() as f64;
    let (tree, ours_bytes, _) = ALLOC.measure(|| KdTree::build(&case.mesh).expect("mesh"));
    drop(tree);
    let (tree, quality_bytes, _) =
        ALLOC.measure(|| KdTree::build_with(&case.mesh, BuildOptions::QUALITY).expect("mesh"));
    drop(tree);
    let (quads, quad_bytes, _) = ALLOC.measure(|| QuadTree::build(&case.mesh).expect("mesh"));
    drop(quads);
    let (parry, parry_bytes, _) =
        ALLOC.measure(|| TriMesh::new(case.vertices.clone(), case.indices.clone()).expect("mesh"));
    drop(parry);
    let (fastest, fastest_bytes, _) = ALLOC.measure(|| obvhs_build(&case.obvhs_tris, BvhBuildParams::fastest_build()));
    drop(fastest);
    let (medium, medium_bytes, _) = ALLOC.measure(|| obvhs_build(&case.obvhs_tris, BvhBuildParams::medium_build()));
    drop(medium);
    let name = &case.name;
    figure(&format!("kdtree/{name}/triangles"), tris, "");
    figure(&format!("kdtree/{name}/nodes-per-triangle/ours"), case.ours.nodes().len() as f64 / tris, "");
    figure(&format!("kdtree/{name}/depth/ours"), f64::from(case.ours.depth()), "");
    figure(&format!("kdtree/{name}/nodes-per-triangle/ours-quality"), case.quality.nodes().len() as f64 / tris, "");
    figure(&format!("kdtree/{name}/depth/ours-quality"), f64::from(case.quality.depth()), "");
    figure(&format!("kdtree/{name}/bytes-per-triangle/ours"), ours_bytes as f64 / tris, "B");
    figure(&format!("kdtree/{name}/bytes-per-triangle/ours-quality"), quality_bytes as f64 / tris, "B");
    figure(&format!("kdtree/{name}/bytes-per-triangle/ours-quads"), quad_bytes as f64 / tris, "B");
    figure(&format!("kdtree/{name}/bytes-per-triangle/parry3d-with-mesh"), parry_bytes as f64 / tris, "B");
    if let (Ok(compact), bytes, _) = ALLOC.measure(|| CompactTree::build(&case.mesh)) {
        // Tree, 16-bit positions and 16-bit indices together.
        figure(&format!("kdtree/{name}/bytes-per-triangle/ours-compact-with-mesh"), bytes as f64 / tris, "B");
        drop(compact);
    }
    figure(&format!("kdtree/{name}/bytes-per-triangle/obvhs-fastest"), fastest_bytes as f64 / tris, "B");
    figure(&format!("kdtree/{name}/bytes-per-triangle/obvhs-medium"), medium_bytes as f64 / tris, "B");

    {
        let mut ours = || KdTree::build(&case.mesh).expect("mesh").len() as f64;
        let mut quality = || KdTree::build_with(&case.mesh, BuildOptions::QUALITY).expect("mesh").len() as f64;
        let mut parry = || {
            let mesh = TriMesh::new(case.vertices.clone(), case.indices.clone()).expect("mesh");
            mesh.indices().len() as f64
        };
        let mut fastest = || obvhs_build(&case.obvhs_tris, BvhBuildParams::fastest_build()).nodes.len() as f64;
        let mut medium = || obvhs_build(&case.obvhs_tris, BvhBuildParams::medium_build()).nodes.len() as f64;
        // Per triangle: the parry row includes cloning its input, as its criterion row does not.
        alternating_min(
            &format!("kdtree/build/{name}/min-ns-per-triangle"),
            case.triangles(),
            &mut [
                ("ours", &mut ours),
                ("ours-quality", &mut quality),
                ("parry3d-with-input-clone", &mut parry),
                ("obvhs-fastest", &mut fastest),
                ("obvhs-medium", &mut medium),
            ],
        );
    }

    let mut group = c.benchmark_group("kdtree/build");
    group.throughput(Throughput::Elements(case.triangles() as u64));
    group.sample_size(10);
    group.bench_with_input(BenchmarkId::new("ours", name), &(), |b, ()| {
        b.iter(|| KdTree::build(&case.mesh).expect("mesh").nodes().len());
    });
    group.bench_with_input(BenchmarkId::new("ours-quality", name), &(), |b, ()| {
        b.iter(|| KdTree::build_with(&case.mesh, BuildOptions::QUALITY).expect("mesh").nodes().len());
    });
    group.bench_with_input(BenchmarkId::new("parry3d", name), &(), |b, ()| {
        b.iter_batched(
            || (case.vertices.clone(), case.indices.clone()),
            |(v, i)| TriMesh::new(v, i).expect("mesh"),
            BatchSize::LargeInput,
        );
    });
    group.bench_with_input(BenchmarkId::new("obvhs-fastest", name), &(), |b, ()| {
        b.iter(|| obvhs_build(&case.obvhs_tris, BvhBuildParams::fastest_build()).nodes.len());
    });
    group.bench_with_input(BenchmarkId::new("obvhs-medium", name), &(), |b, ()| {
        b.iter(|| obvhs_build(&case.obvhs_tris, BvhBuildParams::medium_build()).nodes.len());
    });
    group.finish();

    let mut group = c.benchmark_group("kdtree/build-quads");
    group.throughput(Throughput::Elements(case.triangles() as u64));
    group.sample_size(10);
    group.bench_with_input(BenchmarkId::new("ours", name), &(), |b, ()| {
        b.iter(|| QuadTree::build(&case.mesh).expect("mesh").len());
    });
    group.bench_with_input(BenchmarkId::new("baseline", name), &(), |b, ()| {
        b.iter(|| KdTree::build(&case.mesh).expect("mesh").len());
    });
    group.finish();
}

/// Rounds of [`alternating_min`].
const ROUNDS: usize = 30;

/// Each contender's fastest of [`ROUNDS`] runs, the contenders taking turns in every round, as
/// figures `{prefix}/{contender}` in nanoseconds per query. On a shared machine the minimum of
/// interleaved runs moves far less with the other load than criterion's mean: every contender
/// meets the same quiet moments.
fn alternating_min(prefix: &str, queries: usize, contenders: &mut [(&str, &mut dyn FnMut() -> f64)]) {
    let mut best = vec![f64::INFINITY; contenders.len()];
    for _ in 0..ROUNDS {
        for ((_, run), best) in contenders.iter_mut().zip(&mut best) {
            let start = std::time::Instant::now();
            black_box(run());
            *best = best.min(start.elapsed().as_secs_f64());
        }
    }
    for ((name, _), best) in contenders.iter().zip(&best) {
        figure(&format!("{prefix}/{name}"), best * 1e9 / queries as f64, "ns per query (min of interleaved runs)");
    }
}

fn ray_group(c: &mut Criterion, case: &Case, label: &str, rays: &[Ray]) {
    let name = format!("{}/{label}", case.name);
    let mut scratch = Scratch::for_tree(&case.ours);
    // Same answers: count hits and compare mean distances once, outside the timing.
    let ours: Vec<f32> = rays
        .iter()
        .map(|r| case.ours.cast_ray(&case.mesh, r, MAX_T, &mut scratch).map_or(f32::INFINITY, |h| h.t))
        .collect();
    let parry: Vec<f32> = rays
        .iter()
        .map(|r| {
            case.parry.cast_local_ray(&parry3d::query::Ray::new(r.origin, r.dir), MAX_T, true).unwrap_or(f32::INFINITY)
        })
        .collect();
    let medium: Vec<f32> = rays.iter().map(|r| obvhs_closest(&case.medium, &case.obvhs_tris, r)).collect();
    let quality: Vec<f32> = rays
        .iter()
        .map(|r| case.quality.cast_ray(&case.mesh, r, MAX_T, &mut scratch).map_or(f32::INFINITY, |h| h.t))
        .collect();
    assert_eq!(ours, quality, "the two builds answer the same");
    let hits = |v: &[f32]| v.iter().filter(|t| t.is_finite()).count() as f64;
    let disagree = ours.iter().zip(&parry).filter(|(a, b)| (**a - **b).abs() > 1e-3 * a.abs().max(1.0)).count();
    figure(&format!("kdtree/rays/{name}/hits/ours"), hits(&ours), &format!("of {}", rays.len()));
    figure(&format!("kdtree/rays/{name}/hits/parry3d"), hits(&parry), &format!("of {}", rays.len()));
    figure(&format!("kdtree/rays/{name}/hits/obvhs-medium"), hits(&medium), &format!("of {}", rays.len()));
    figure(&format!("kdtree/rays/{name}/distance-disagreements-with-parry3d"), disagree as f64, "");

    {
        let mut s2 = Scratch::new();
        let (mut ours, mut quality) = (
            || {
                rays.iter()
                    .map(|r| case.ours.cast_ray(&case.mesh, r, MAX_T, &mut scratch).map_or(0.0, |h| f64::from(h.t)))
                    .sum()
            },
            || {
                rays.iter()
                    .map(|r| case.quality.cast_ray(&case.mesh, r, MAX_T, &mut s2).map_or(0.0, |h| f64::from(h.t)))
                    .sum()
            },
        );
        let mut parry = || {
            rays.iter()
                .map(|r| {
                    let r = parry3d::query::Ray::new(r.origin, r.dir);
                    f64::from(case.parry.cast_local_ray(&r, MAX_T, true).unwrap_or(0.0))
                })
                .sum()
        };
        let mut fastest =
            || rays.iter().map(|r| f64::from(obvhs_closest(&case.fastest, &case.obvhs_tris, r).min(0.0))).sum();
        let mut medium =
            || rays.iter().map(|r| f64::from(obvhs_closest(&case.medium, &case.obvhs_tris, r).min(0.0))).sum();
        alternating_min(
            &format!("kdtree/rays/{name}/min-ns-per-ray"),
            rays.len(),
            &mut [
                ("ours", &mut ours),
                ("ours-quality", &mut quality),
                ("parry3d", &mut parry),
                ("obvhs-fastest", &mut fastest),
                ("obvhs-medium", &mut medium),
            ],
        );
    }

    let mut group = c.benchmark_group("kdtree/rays");
    group.throughput(Throughput::Elements(rays.len() as u64));
    group.bench_with_input(BenchmarkId::new("ours", &name), &(), |b, ()| {
        b.iter(|| {
            let mut sum = 0.0;
            for r in rays {
                sum += case.ours.cast_ray(&case.mesh, black_box(r), MAX_T, &mut scratch).map_or(0.0, |h| h.t);
            }
            sum
        });
    });
    group.bench_with_input(BenchmarkId::new("ours-quality", &name), &(), |b, ()| {
        b.iter(|| {
            let mut sum = 0.0;
            for r in rays {
                sum += case.quality.cast_ray(&case.mesh, black_box(r), MAX_T, &mut scratch).map_or(0.0, |h| h.t);
            }
            sum
        });
    });
    group.bench_with_input(BenchmarkId::new("parry3d", &name), &(), |b, ()| {
        b.iter(|| {
            let mut sum = 0.0;
            for r in rays {
                let r = parry3d::query::Ray::new(black_box(r).origin, r.dir);
                sum += case.parry.cast_local_ray(&r, MAX_T, true).unwrap_or(0.0);
            }
            sum
        });
    });
    for (label, bvh) in [("obvhs-fastest", &case.fastest), ("obvhs-medium", &case.medium)] {
        group.bench_with_input(BenchmarkId::new(label, &name), &(), |b, ()| {
            b.iter(|| {
                let mut sum = 0.0;
                for r in rays {
                    let t = obvhs_closest(bvh, &case.obvhs_tris, black_box(r));
                    sum += if t.is_finite() { t } else { 0.0 };
                }
                sum
            });
        });
    }
    group.finish();

    // Quads against triangles: the same tree code over half as many primitives.
    let mut group = c.benchmark_group("kdtree/rays-quads");
    group.throughput(Throughput::Elements(rays.len() as u64));
    group.bench_with_input(BenchmarkId::new("ours", &name), &(), |b, ()| {
        b.iter(|| {
            let mut sum = 0.0;
            for r in rays {
                sum += case.quads.cast_ray(&case.mesh, black_box(r), MAX_T, &mut scratch).map_or(0.0, |h| h.t);
            }
            sum
        });
    });
    group.bench_with_input(BenchmarkId::new("baseline", &name), &(), |b, ()| {
        b.iter(|| {
            let mut sum = 0.0;
            for r in rays {
                sum += case.ours.cast_ray(&case.mesh, black_box(r), MAX_T, &mut scratch).map_or(0.0, |h| h.t);
            }
            sum
        });
    });
    group.finish();
}

fn box_group(c: &mut Criterion, case: &Case, boxes: &[Aabb]) {
    let name = format!("{}/2x2x2-near-surface", case.name);
    let mut scratch = Scratch::for_tree(&case.ours);
    let mut found = Vec::new();
    let (mut ours, mut exact, mut parry, mut fastest, mut medium, mut quality) = (0, 0, 0, 0, 0, 0);
    let mut quality_bounds = 0;
    for b in boxes {
        case.ours.query_aabb(b, &mut scratch, &mut found);
        ours += found.len();
        case.quality.query_aabb(b, &mut scratch, &mut found);
        quality += found.len();
        case.quality.query_aabb_bounds(&case.mesh, b, &mut scratch, &mut found);
        quality_bounds += found.len();
        case.ours.query_aabb_exact(&case.mesh, b, &mut scratch, &mut found);
        exact += found.len();
        parry += case.parry.bvh().intersect_aabb(&parry_aabb(b)).count();
        fastest += obvhs_candidates(&case.fastest, b);
        medium += obvhs_candidates(&case.medium, b);
    }
    let per = |n: usize| n as f64 / boxes.len() as f64;
    figure(&format!("kdtree/boxes/{name}/candidates/ours"), per(ours), "per box");
    figure(&format!("kdtree/boxes/{name}/candidates/ours-quality"), per(quality), "per box");
    figure(&format!("kdtree/boxes/{name}/candidates/ours-quality-bounds"), per(quality_bounds), "per box");
    figure(&format!("kdtree/boxes/{name}/candidates/parry3d"), per(parry), "per box");
    figure(&format!("kdtree/boxes/{name}/candidates/obvhs-fastest"), per(fastest), "per box");
    figure(&format!("kdtree/boxes/{name}/candidates/obvhs-medium"), per(medium), "per box");
    figure(&format!("kdtree/boxes/{name}/exact-triangle-box-hits"), per(exact), "per box");

    {
        let (mut f1, mut f2, mut s2) = (Vec::new(), Vec::new(), Scratch::new());
        let mut ours = || {
            boxes
                .iter()
                .map(|b| {
                    case.ours.query_aabb(b, &mut scratch, &mut f1);
                    f1.len() as f64
                })
                .sum()
        };
        let mut quality = || {
            boxes
                .iter()
                .map(|b| {
                    case.quality.query_aabb(b, &mut s2, &mut f2);
                    f2.len() as f64
                })
                .sum()
        };
        let (mut f3, mut s3) = (Vec::new(), Scratch::new());
        // Triangle-box candidates, the same set as parry's.
        let mut quality_bounds = || {
            boxes
                .iter()
                .map(|b| {
                    case.quality.query_aabb_bounds(&case.mesh, b, &mut s3, &mut f3);
                    f3.len() as f64
                })
                .sum()
        };
        let mut parry = || boxes.iter().map(|b| case.parry.bvh().intersect_aabb(&parry_aabb(b)).count() as f64).sum();
        let mut fastest = || boxes.iter().map(|b| obvhs_candidates(&case.fastest, b) as f64).sum();
        let mut medium = || boxes.iter().map(|b| obvhs_candidates(&case.medium, b) as f64).sum();
        alternating_min(
            &format!("kdtree/boxes/{name}/min-ns-per-box"),
            boxes.len(),
            &mut [
                ("ours", &mut ours),
                ("ours-quality", &mut quality),
                ("ours-quality-bounds", &mut quality_bounds),
                ("parry3d", &mut parry),
                ("obvhs-fastest", &mut fastest),
                ("obvhs-medium", &mut medium),
            ],
        );
    }

    let mut group = c.benchmark_group("kdtree/boxes");
    group.throughput(Throughput::Elements(boxes.len() as u64));
    group.bench_with_input(BenchmarkId::new("ours", &name), &(), |bench, ()| {
        bench.iter(|| {
            let mut n = 0;
            for b in boxes {
                case.ours.query_aabb(black_box(b), &mut scratch, &mut found);
                n += found.len();
            }
            n
        });
    });
    group.bench_with_input(BenchmarkId::new("ours-quality", &name), &(), |bench, ()| {
        bench.iter(|| {
            let mut n = 0;
            for b in boxes {
                case.quality.query_aabb(black_box(b), &mut scratch, &mut found);
                n += found.len();
            }
            n
        });
    });
    group.bench_with_input(BenchmarkId::new("parry3d", &name), &(), |bench, ()| {
        bench.iter(|| {
            let mut n = 0;
            for b in boxes {
                n += case.parry.bvh().intersect_aabb(&parry_aabb(black_box(b))).count();
            }
            n
        });
    });
    for (label, bvh) in [("obvhs-fastest", &case.fastest), ("obvhs-medium", &case.medium)] {
        group.bench_with_input(BenchmarkId::new(label, &name), &(), |bench, ()| {
            bench.iter(|| boxes.iter().map(|b| obvhs_candidates(bvh, black_box(b))).sum::<usize>());
        });
    }
    group.finish();

    // Candidates plus the exact triangle-box test (ours only: the peers have no such query).
    let mut group = c.benchmark_group("kdtree/boxes-exact");
    group.throughput(Throughput::Elements(boxes.len() as u64));
    group.bench_with_input(BenchmarkId::new("ours", &name), &(), |bench, ()| {
        bench.iter(|| {
            let mut n = 0;
            for b in boxes {
                case.ours.query_aabb_exact(&case.mesh, black_box(b), &mut scratch, &mut found);
                n += found.len();
            }
            n
        });
    });
    group.finish();
}

/// Rays and boxes per 8^3 chunk in [`chunk_group`].
const PER_CHUNK: usize = 16;

/// Every non-empty 8^3 chunk of the region, the chunks `TerrainCollider` builds a tree for on
/// first need: building all of them, and per chunk [`PER_CHUNK`] rays from above its surface and
/// 2x2x2 boxes near it, the collider's two queries (ray casts and contact candidates).
fn chunk_group(c: &mut Criterion, world: &VoxelStore) {
    let mut mesher = Mesher::new();
    let mut chunks = Vec::new();
    for key in VoxelBox::new(REGION_MIN, REGION_MIN + REGION).chunk_keys(8).iter() {
        let mut mesh = Mesh::new();
        mesher.surface_nets(world, VoxelBox::chunk(key, 8), &MeshOptions::PHYSICS, &mut mesh).expect("chunk");
        if mesh.triangle_count() > 0 {
            chunks.push(Case::new(format!("{key}"), mesh));
        }
    }
    let name = "terrain-8^3-chunks";
    let triangles: usize = chunks.iter().map(Case::triangles).sum();
    figure(&format!("kdtree/{name}/chunks"), chunks.len() as f64, "");
    figure(&format!("kdtree/{name}/triangles-per-chunk"), triangles as f64 / chunks.len() as f64, "");
    let mut scratch = Scratch::new();
    let mut rng = Rng::new(21);
    let queries: Vec<(Vec<Ray>, Vec<Aabb>)> = chunks
        .iter()
        .map(|case| {
            let b = case.ours.bounds();
            let rays: Vec<Ray> = (0..PER_CHUNK)
                .map(|_| {
                    let origin = Vec3::new(rng.range(b.min.x, b.max.x), b.max.y + 1.0, rng.range(b.min.z, b.max.z));
                    Ray::new(origin, Vec3::new(rng.range(-0.5, 0.5), -1.0, rng.range(-0.5, 0.5)).normalize())
                })
                .collect();
            let boxes = rays
                .iter()
                .map(|r| {
                    let hit = case.ours.cast_ray(&case.mesh, r, MAX_T, &mut scratch);
                    let c = hit.map_or_else(|| rng.point_in(&b), |h| r.at(h.t));
                    Aabb::new(c - Vec3::ONE, c + Vec3::ONE)
                })
                .collect();
            (rays, boxes)
        })
        .collect();
    let (mut ours, mut quality, mut parry) = (0, 0, 0);
    let mut found = Vec::new();
    for (case, (_, boxes)) in chunks.iter().zip(&queries) {
        for b in boxes {
            case.ours.query_aabb(b, &mut scratch, &mut found);
            ours += found.len();
            case.quality.query_aabb(b, &mut scratch, &mut found);
            quality += found.len();
            parry += case.parry.bvh().intersect_aabb(&parry_aabb(b)).count();
        }
    }
    let boxes = (chunks.len() * PER_CHUNK) as f64;
    figure(&format!("kdtree/boxes/{name}/2x2x2-near-surface/candidates/ours"), ours as f64 / boxes, "per box");
    figure(
        &format!("kdtree/boxes/{name}/2x2x2-near-surface/candidates/ours-quality"),
        quality as f64 / boxes,
        "per box",
    );
    figure(&format!("kdtree/boxes/{name}/2x2x2-near-surface/candidates/parry3d"), parry as f64 / boxes, "per box");

    {
        let mut ours = || chunks.iter().map(|c| KdTree::build(&c.mesh).expect("mesh").len() as f64).sum();
        let mut quality = || {
            chunks.iter().map(|c| KdTree::build_with(&c.mesh, BuildOptions::QUALITY).expect("mesh").len() as f64).sum()
        };
        let mut fastest = || {
            chunks.iter().map(|c| obvhs_build(&c.obvhs_tris, BvhBuildParams::fastest_build()).nodes.len() as f64).sum()
        };
        let mut medium = || {
            chunks.iter().map(|c| obvhs_build(&c.obvhs_tris, BvhBuildParams::medium_build()).nodes.len() as f64).sum()
        };
        alternating_min(
            &format!("kdtree/build/{name}/min-ns-per-triangle"),
            triangles,
            &mut [
                ("ours", &mut ours),
                ("ours-quality", &mut quality),
                ("obvhs-fastest", &mut fastest),
                ("obvhs-medium", &mut medium),
            ],
        );
        let (mut s1, mut s2, mut f1, mut f2) = (Scratch::new(), Scratch::new(), Vec::new(), Vec::new());
        let mut rays_ours = || {
            let mut sum = 0.0;
            for (case, (rays, _)) in chunks.iter().zip(&queries) {
                for r in rays {
                    sum += case.ours.cast_ray(&case.mesh, r, MAX_T, &mut s1).map_or(0.0, |h| f64::from(h.t));
                }
            }
            sum
        };
        let mut rays_quality = || {
            let mut sum = 0.0;
            for (case, (rays, _)) in chunks.iter().zip(&queries) {
                for r in rays {
                    sum += case.quality.cast_ray(&case.mesh, r, MAX_T, &mut s2).map_or(0.0, |h| f64::from(h.t));
                }
            }
            sum
        };
        alternating_min(
            &format!("kdtree/rays/{name}/from-above/min-ns-per-ray"),
            chunks.len() * PER_CHUNK,
            &mut [("ours", &mut rays_ours), ("ours-quality", &mut rays_quality)],
        );
        let (mut s1, mut s2) = (Scratch::new(), Scratch::new());
        let mut boxes_ours = || {
            let mut n = 0.0;
            for (case, (_, boxes)) in chunks.iter().zip(&queries) {
                for b in boxes {
                    case.ours.query_aabb_exact(&case.mesh, b, &mut s1, &mut f1);
                    n += f1.len() as f64;
                }
            }
            n
        };
        let mut boxes_quality = || {
            let mut n = 0.0;
            for (case, (_, boxes)) in chunks.iter().zip(&queries) {
                for b in boxes {
                    case.quality.query_aabb_exact(&case.mesh, b, &mut s2, &mut f2);
                    n += f2.len() as f64;
                }
            }
            n
        };
        alternating_min(
            &format!("kdtree/boxes-exact/{name}/2x2x2-near-surface/min-ns-per-box"),
            chunks.len() * PER_CHUNK,
            &mut [("ours", &mut boxes_ours), ("ours-quality", &mut boxes_quality)],
        );
    }

    let mut group = c.benchmark_group("kdtree/build");
    group.throughput(Throughput::Elements(triangles as u64));
    group.sample_size(10);
    for (label, options) in [("ours", BuildOptions::FAST), ("ours-quality", BuildOptions::QUALITY)] {
        group.bench_function(BenchmarkId::new(label, name), |b| {
            b.iter(|| chunks.iter().map(|c| KdTree::build_with(&c.mesh, options).expect("mesh").len()).sum::<usize>());
        });
    }
    group.bench_function(BenchmarkId::new("parry3d", name), |b| {
        b.iter_batched(
            || chunks.iter().map(|c| (c.vertices.clone(), c.indices.clone())).collect::<Vec<_>>(),
            |meshes| meshes.into_iter().map(|(v, i)| TriMesh::new(v, i).expect("mesh")).collect::<Vec<_>>(),
            BatchSize::LargeInput,
        );
    });
    for (label, params) in
        [("obvhs-fastest", BvhBuildParams::fastest_build()), ("obvhs-medium", BvhBuildParams::medium_build())]
    {
        group.bench_function(BenchmarkId::new(label, name), |b| {
            b.iter(|| chunks.iter().map(|c| obvhs_build(&c.obvhs_tris, params).nodes.len()).sum::<usize>());
        });
    }
    group.finish();

    let mut group = c.benchmark_group("kdtree/rays");
    group.throughput(Throughput::Elements(boxes as u64));
    let rays_of = |tree: fn(&Case) -> &KdTree, scratch: &mut Scratch| {
        let mut sum = 0.0;
        for (case, (rays, _)) in chunks.iter().zip(&queries) {
            for r in rays {
                sum += tree(case).cast_ray(&case.mesh, black_box(r), MAX_T, scratch).map_or(0.0, |h| h.t);
            }
        }
        sum
    };
    group.bench_function(BenchmarkId::new("ours", format!("{name}/from-above")), |b| {
        b.iter(|| rays_of(|c| &c.ours, &mut scratch));
    });
    group.bench_function(BenchmarkId::new("ours-quality", format!("{name}/from-above")), |b| {
        b.iter(|| rays_of(|c| &c.quality, &mut scratch));
    });
    group.bench_function(BenchmarkId::new("parry3d", format!("{name}/from-above")), |b| {
        b.iter(|| {
            let mut sum = 0.0;
            for (case, (rays, _)) in chunks.iter().zip(&queries) {
                for r in rays {
                    let r = parry3d::query::Ray::new(black_box(r).origin, r.dir);
                    sum += case.parry.cast_local_ray(&r, MAX_T, true).unwrap_or(0.0);
                }
            }
            sum
        });
    });
    group.finish();

    let mut group = c.benchmark_group("kdtree/boxes-exact");
    group.throughput(Throughput::Elements(boxes as u64));
    let boxes_of = |tree: fn(&Case) -> &KdTree, scratch: &mut Scratch, found: &mut Vec<u32>| {
        let mut n = 0;
        for (case, (_, boxes)) in chunks.iter().zip(&queries) {
            for b in boxes {
                tree(case).query_aabb_exact(&case.mesh, black_box(b), scratch, found);
                n += found.len();
            }
        }
        n
    };
    group.bench_function(BenchmarkId::new("ours", format!("{name}/2x2x2-near-surface")), |b| {
        b.iter(|| boxes_of(|c| &c.ours, &mut scratch, &mut found));
    });
    group.bench_function(BenchmarkId::new("ours-quality", format!("{name}/2x2x2-near-surface")), |b| {
        b.iter(|| boxes_of(|c| &c.quality, &mut scratch, &mut found));
    });
    group.finish();
}

/// The meshing time of the region in the same run, for the "build <= 1x meshing" goal: Surface
/// Nets into a reused mesh with a reused mesher (warm, as the build benches are).
fn meshing_group(c: &mut Criterion, world: &VoxelStore) {
    let mut mesher = Mesher::new();
    let mut mesh = Mesh::new();
    let region = VoxelBox::new(REGION_MIN, REGION_MIN + REGION);
    let mut group = c.benchmark_group("kdtree/build");
    group.sample_size(10);
    group.bench_function(BenchmarkId::new("meshing-surface-nets", "terrain-4x2x4-chunks"), |b| {
        b.iter(|| {
            mesher.surface_nets(world, region, &MeshOptions::PHYSICS, &mut mesh).expect("region");
            mesh.triangle_count()
        });
    });
    group.finish();
}

/// Three real meshes of different kinds (a CAD part, a robot wheel, a scanned figure) from the
/// shared data, or the repository's copies of three others when it is absent.
fn real_mesh_files() -> Vec<std::path::PathBuf> {
    match shared_data() {
        Some(dir) => ["cad/rocker-arm.obj", "robot/husky-wheel.stl", "classic/dragon-lowpoly.obj"]
            .iter()
            .map(|f| dir.join("meshes").join(f))
            .collect(),
        None => ["cad/featuretype.stl", "classic/dragon-lowpoly.obj", "torus/knot.obj"]
            .iter()
            .map(|f| testdata().join("meshes").join(f))
            .collect(),
    }
}

/// Build, closest-hit rays and box candidates on a real mesh, beside parry3d and obvhs
/// `medium_build`, as figures only (min of interleaved runs): rays from outside the bounds aimed
/// at a random point within them, rays in every direction from random points inside the bounds
/// (the cave case: many start inside the solid), and boxes two mean edge lengths wide centred
/// within one edge length of points where the outside rays hit.
fn real_mesh_group(path: &std::path::Path) {
    let Ok(mesh) = voxel_testdata::load_mesh(path) else {
        eprintln!("skipping {}: not readable", path.display());
        return;
    };
    let name = format!("mesh-{}", path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default());
    let vertices = mesh.positions().to_vec();
    let indices = mesh.triangles().to_vec();
    let Ok(parry) = TriMesh::new(vertices.clone(), indices.clone()) else {
        eprintln!("skipping {name}: parry3d refuses it");
        return;
    };
    let tris: Vec<obvhs::triangle::Triangle> = (0..mesh.triangle_count() as u32)
        .map(|t| {
            let [a, b, c] = mesh.triangle_positions(t);
            obvhs::triangle::Triangle { v0: a.into(), v1: b.into(), v2: c.into() }
        })
        .collect();
    let ours = KdTree::build(&mesh).expect("a loaded mesh");
    let quality = KdTree::build_with(&mesh, BuildOptions::QUALITY).expect("a loaded mesh");
    let medium = obvhs_build(&tris, BvhBuildParams::medium_build());
    let n = mesh.triangle_count();
    figure(&format!("kdtree/{name}/triangles"), n as f64, "");
    {
        let mut b_ours = || KdTree::build(&mesh).expect("mesh").len() as f64;
        let mut b_quality = || KdTree::build_with(&mesh, BuildOptions::QUALITY).expect("mesh").len() as f64;
        let mut b_parry = || TriMesh::new(vertices.clone(), indices.clone()).map_or(0.0, |m| m.indices().len() as f64);
        let mut b_medium = || obvhs_build(&tris, BvhBuildParams::medium_build()).nodes.len() as f64;
        alternating_min(
            &format!("kdtree/build/{name}/min-ns-per-triangle"),
            n,
            &mut [
                ("ours", &mut b_ours),
                ("ours-quality", &mut b_quality),
                ("parry3d-with-input-clone", &mut b_parry),
                ("obvhs-medium", &mut b_medium),
            ],
        );
    }
    let bounds = ours.bounds();
    let (centre, radius) = (bounds.center(), bounds.size().length());
    let mut rng = Rng::new(31);
    let outside: Vec<Ray> = (0..RAYS)
        .map(|_| {
            let origin = centre + rng.direction() * radius;
            Ray::new(origin, rng.point_in(&bounds) - origin)
        })
        .collect();
    let inside: Vec<Ray> = (0..RAYS).map(|_| Ray::new(rng.point_in(&bounds), rng.direction())).collect();
    let mut scratch = Scratch::new();
    for (label, rays) in [("from-outside", &outside), ("from-inside", &inside)] {
        let id = format!("{name}/{label}");
        let theirs: Vec<f32> = rays
            .iter()
            .map(|r| {
                parry.cast_local_ray(&parry3d::query::Ray::new(r.origin, r.dir), MAX_T, true).unwrap_or(f32::INFINITY)
            })
            .collect();
        let mine: Vec<f32> = rays
            .iter()
            .map(|r| quality.cast_ray(&mesh, r, MAX_T, &mut scratch).map_or(f32::INFINITY, |h| h.t))
            .collect();
        let disagree = mine.iter().zip(&theirs).filter(|(a, b)| (**a - **b).abs() > 1e-3 * a.abs().max(1.0)).count();
        figure(&format!("kdtree/rays/{id}/hits/ours"), mine.iter().filter(|t| t.is_finite()).count() as f64, "");
        figure(&format!("kdtree/rays/{id}/distance-disagreements-with-parry3d"), disagree as f64, "");
        let (mut s1, mut s2) = (Scratch::new(), Scratch::new());
        let mut r_ours =
            || rays.iter().map(|r| ours.cast_ray(&mesh, r, MAX_T, &mut s1).map_or(0.0, |h| f64::from(h.t))).sum();
        let mut r_quality =
            || rays.iter().map(|r| quality.cast_ray(&mesh, r, MAX_T, &mut s2).map_or(0.0, |h| f64::from(h.t))).sum();
        let mut r_parry = || {
            rays.iter()
                .map(|r| {
                    let r = parry3d::query::Ray::new(r.origin, r.dir);
                    f64::from(parry.cast_local_ray(&r, MAX_T, true).unwrap_or(0.0))
                })
                .sum()
        };
        let mut r_medium = || rays.iter().map(|r| f64::from(obvhs_closest(&medium, &tris, r).min(0.0))).sum();
        alternating_min(
            &format!("kdtree/rays/{id}/min-ns-per-ray"),
            rays.len(),
            &mut [
                ("ours", &mut r_ours),
                ("ours-quality", &mut r_quality),
                ("parry3d", &mut r_parry),
                ("obvhs-medium", &mut r_medium),
            ],
        );
    }
    let edge = (0..n as u32)
        .map(|t| {
            let [a, b, c] = mesh.triangle_positions(t);
            (a.distance(b) + b.distance(c) + c.distance(a)) / 3.0
        })
        .sum::<f32>()
        / n.max(1) as f32;
    let boxes: Vec<Aabb> = outside
        .iter()
        .filter_map(|r| quality.cast_ray(&mesh, r, MAX_T, &mut scratch).map(|h| r.at(h.t)))
        .map(|p| {
            let c = p + Vec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)) * edge;
            Aabb::new(c - Vec3::splat(edge), c + Vec3::splat(edge))
        })
        .collect();
    if boxes.is_empty() {
        return;
    }
    let id = format!("{name}/2-edges-near-surface");
    let mut found = Vec::new();
    let (mut c_quality, mut c_bounds, mut c_parry, mut c_medium) = (0, 0, 0, 0);
    for b in &boxes {
        quality.query_aabb(b, &mut scratch, &mut found);
        c_quality += found.len();
        quality.query_aabb_bounds(&mesh, b, &mut scratch, &mut found);
        c_bounds += found.len();
        c_parry += parry.bvh().intersect_aabb(&parry_aabb(b)).count();
        c_medium += obvhs_candidates(&medium, b);
    }
    let per = |k: usize| k as f64 / boxes.len() as f64;
    figure(&format!("kdtree/boxes/{id}/candidates/ours-quality"), per(c_quality), "per box");
    figure(&format!("kdtree/boxes/{id}/candidates/ours-quality-bounds"), per(c_bounds), "per box");
    figure(&format!("kdtree/boxes/{id}/candidates/parry3d"), per(c_parry), "per box");
    figure(&format!("kdtree/boxes/{id}/candidates/obvhs-medium"), per(c_medium), "per box");
    let (mut s1, mut s2, mut f1, mut f2) = (Scratch::new(), Scratch::new(), Vec::new(), Vec::new());
    let mut q_quality = || {
        boxes
            .iter()
            .map(|b| {
                quality.query_aabb(b, &mut s1, &mut f1);
                f1.len() as f64
            })
            .sum()
    };
    let mut q_bounds = || {
        boxes
            .iter()
            .map(|b| {
                quality.query_aabb_bounds(&mesh, b, &mut s2, &mut f2);
                f2.len() as f64
            })
            .sum()
    };
    let mut q_parry = || boxes.iter().map(|b| parry.bvh().intersect_aabb(&parry_aabb(b)).count() as f64).sum();
    let mut q_medium = || boxes.iter().map(|b| obvhs_candidates(&medium, b) as f64).sum();
    alternating_min(
        &format!("kdtree/boxes/{id}/min-ns-per-box"),
        boxes.len(),
        &mut [
            ("ours-quality", &mut q_quality),
            ("ours-quality-bounds", &mut q_bounds),
            ("parry3d", &mut q_parry),
            ("obvhs-medium", &mut q_medium),
        ],
    );
}

fn real_meshes(_: &mut Criterion) {
    for path in real_mesh_files() {
        real_mesh_group(&path);
    }
}

fn terrain(c: &mut Criterion) {
    let world = generate::terrain(&Terrain::new(WORLD, 1)).expect("valid parameters");
    meshing_group(c, &world);
    chunk_group(c, &world);
    for case in cases(&world) {
        build_group(c, &case);
        let above = rays_from_above(&case, 11);
        ray_group(c, &case, "from-above", &above);
        let caves = rays_from_caves(&case, &world, 12);
        figure(&format!("kdtree/rays/{}/from-caves/rays", case.name), caves.len() as f64, "");
        if !caves.is_empty() {
            ray_group(c, &case, "from-caves", &caves);
        }
        let boxes = boxes_near_surface(&case, 13);
        box_group(c, &case, &boxes);
    }
}

criterion_group! {
    name = benches;
    config = config();
    targets = terrain, real_meshes
}
criterion_main!(benches);
