//! `voxel-mesh` benches: Surface Nets beside `fast-surface-nets`, blocky meshing beside
//! `block-mesh`, on generated terrain chunks, a sphere chunk and MagicaVoxel models; bytes per
//! triangle and triangle counts as figures.
//!
//! Peers get their input in their own layout (x, then y, then z; `f32` distances for
//! fast-surface-nets), prepared outside the timed loop; ours reads the same padded voxels through
//! `VoxelSource` from a dense grid. A separate group times ours reading from the store itself.

use std::path::PathBuf;

use block_mesh::ndshape::{RuntimeShape as BlockShape, Shape as _};
use block_mesh::{GreedyQuadsBuffer, MergeVoxel, RIGHT_HANDED_Y_UP_CONFIG, UnitQuadBuffer, VoxelVisibility};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use fast_surface_nets::ndshape::RuntimeShape as NetsShape;
use fast_surface_nets::{SurfaceNetsBuffer, surface_nets};
use glam::{IVec3, Vec3};
use voxel_bench::workloads::Rng;
use voxel_bench::{config, figure, shared_data, testdata};
use voxel_core::{TriangleSource, Voxel, VoxelBox, VoxelGrid, VoxelSource};
use voxel_mesh::{Face, Mesh, MeshOptions, Mesher, Surface};
use voxel_store::VoxelStore;
use voxel_store::generate::{self, Terrain};

const WORLD: IVec3 = IVec3::new(256, 128, 256);

/// One region to mesh, in every layout the contenders take.
struct Case {
    region: VoxelBox,
    /// The padded voxels as a dense `VoxelSource`.
    grid: VoxelGrid,
    /// fast-surface-nets input: distances of the solid surface, x then y then z.
    sdf: Vec<f32>,
    /// block-mesh input, same order.
    blocks: Vec<Block>,
    size: [u32; 3],
}

#[derive(Clone, Copy, PartialEq, Eq)]
struct Block(u8, bool);

impl block_mesh::Voxel for Block {
    fn get_visibility(&self) -> VoxelVisibility {
        if self.1 { VoxelVisibility::Opaque } else { VoxelVisibility::Empty }
    }
}

impl MergeVoxel for Block {
    type MergeValue = u8;
    fn merge_value(&self) -> u8 {
        self.0
    }
}

impl Case {
    fn new(source: &impl VoxelSource, region: VoxelBox) -> Self {
        let padded = region.grow(1);
        let mut voxels = Vec::new();
        source.read_region(padded, &mut voxels).expect("bounded region");
        let grid = VoxelGrid::from_voxels(padded, voxels).expect("sized").with_phases(source.phase_table().clone());
        let size = padded.size().as_uvec3();
        let mut sdf = vec![0.0; padded.volume() as usize];
        let mut blocks = vec![Block(0, false); padded.volume() as usize];
        for p in padded.iter() {
            let v = grid.get(p);
            let inside = v.phase(source.phase_table()) == voxel_core::Phase::Solid;
            let magnitude = f32::from(i16::from(v.distance).abs());
            let l = (p - padded.min).as_uvec3();
            let i = (l.x + size.x * (l.y + size.y * l.z)) as usize;
            sdf[i] = if inside { -magnitude } else { magnitude };
            blocks[i] = Block(v.material, inside);
        }
        Self { region, grid, sdf, blocks, size: size.to_array() }
    }

    fn fast_surface_nets(&self, out: &mut SurfaceNetsBuffer) {
        let shape = NetsShape::<u32, 3>::new(self.size);
        surface_nets(&self.sdf, &shape, [0; 3], self.size.map(|s| s - 1), out);
    }

    fn greedy_quads(&self, out: &mut GreedyQuadsBuffer) {
        let shape = BlockShape::<u32, 3>::new(self.size);
        out.reset(shape.usize());
        block_mesh::greedy_quads(
            &self.blocks,
            &shape,
            [0; 3],
            self.size.map(|s| s - 1),
            &RIGHT_HANDED_Y_UP_CONFIG.faces,
            out,
        );
    }

    fn visible_faces(&self, out: &mut UnitQuadBuffer) {
        let shape = BlockShape::<u32, 3>::new(self.size);
        out.reset();
        block_mesh::visible_block_faces(
            &self.blocks,
            &shape,
            [0; 3],
            self.size.map(|s| s - 1),
            &RIGHT_HANDED_Y_UP_CONFIG.faces,
            out,
        );
    }
}

/// Up to `n` chunks of `edge` whose solid surface is not empty, spread over the world.
fn surface_chunks(world: &VoxelStore, edge: i32, n: usize) -> Vec<VoxelBox> {
    let mut mesher = Mesher::new();
    let mut mesh = Mesh::new();
    let all: Vec<VoxelBox> = VoxelBox::new(IVec3::ZERO, WORLD)
        .chunk_keys(edge)
        .iter()
        .map(|k| VoxelBox::chunk(k, edge))
        .filter(|c| {
            mesher.surface_nets(world, *c, &MeshOptions::PHYSICS, &mut mesh).expect("chunk");
            mesh.triangle_count() > 0
        })
        .collect();
    let step = (all.len() / n).max(1);
    all.into_iter().step_by(step).take(n).collect()
}

/// Meshes every (source, region) with Surface Nets and counts the quads.
fn surface_quads<'a>(
    mesher: &mut Mesher,
    mesh: &mut Mesh,
    regions: impl Iterator<Item = (&'a VoxelGrid, VoxelBox)>,
    options: &MeshOptions,
) -> usize {
    regions
        .map(|(grid, region)| {
            mesher.surface_nets(grid, region, options, mesh).expect("chunk");
            mesh.quad_count()
        })
        .sum()
}

fn triangles(cases: &[Case], options: &MeshOptions) -> usize {
    let mut mesher = Mesher::new();
    let mut mesh = Mesh::new();
    cases
        .iter()
        .map(|c| {
            mesher.surface_nets(&c.grid, c.region, options, &mut mesh).expect("chunk");
            mesh.triangle_count()
        })
        .sum()
}

fn surface_nets_group(c: &mut Criterion, name: &str, world: &impl VoxelSource, cases: &[Case]) {
    let ours_tris = triangles(cases, &MeshOptions::default());
    let mut buffer = SurfaceNetsBuffer::default();
    let theirs: usize = cases
        .iter()
        .map(|case| {
            case.fast_surface_nets(&mut buffer);
            buffer.indices.len() / 3
        })
        .sum();
    figure(&format!("mesh/surface-nets/{name}/triangles-per-chunk/ours"), ours_tris as f64 / cases.len() as f64, "");
    figure(
        &format!("mesh/surface-nets/{name}/triangles-per-chunk/fast-surface-nets"),
        theirs as f64 / cases.len() as f64,
        "",
    );

    let mut group = c.benchmark_group("mesh/surface-nets");
    group.throughput(Throughput::Elements(ours_tris as u64));
    let mut mesher = Mesher::new();
    let mut mesh = Mesh::new();
    let options = MeshOptions::default();
    group.bench_with_input(BenchmarkId::new("ours", name), &(), |b, ()| {
        b.iter(|| {
            let mut n = 0;
            for case in cases {
                mesher.surface_nets(&case.grid, case.region, &options, &mut mesh).expect("chunk");
                n += mesh.indices().len();
            }
            n
        });
    });
    group.bench_with_input(BenchmarkId::new("fast-surface-nets", name), &(), |b, ()| {
        b.iter(|| {
            let mut n = 0;
            for case in cases {
                case.fast_surface_nets(&mut buffer);
                n += buffer.indices.len();
            }
            n
        });
    });
    group.finish();

    let mut group = c.benchmark_group("mesh/surface-nets-from-store");
    group.throughput(Throughput::Elements(ours_tris as u64));
    for (label, options) in [("normals", MeshOptions::default()), ("physics", MeshOptions::PHYSICS)] {
        group.bench_with_input(BenchmarkId::new(format!("ours-{label}"), name), &(), |b, ()| {
            b.iter(|| {
                let mut n = 0;
                for case in cases {
                    mesher.surface_nets(world, case.region, &options, &mut mesh).expect("chunk");
                    n += mesh.indices().len();
                }
                n
            });
        });
    }
    group.finish();
}

fn blocky_group(c: &mut Criterion, name: &str, cases: &[Case]) {
    let mut mesher = Mesher::new();
    let mut mesh = Mesh::new();
    let options = MeshOptions { normals: false, ..MeshOptions::default() };
    let ours_quads: usize = cases
        .iter()
        .map(|case| {
            mesher.blocky(&case.grid, case.region, &options, &mut mesh).expect("region");
            mesh.quad_count()
        })
        .sum();
    let mut greedy = GreedyQuadsBuffer::new(0);
    let mut faces = UnitQuadBuffer::new();
    let (mut greedy_quads, mut unit_quads) = (0, 0);
    for case in cases {
        case.greedy_quads(&mut greedy);
        greedy_quads += greedy.quads.num_quads();
        case.visible_faces(&mut faces);
        unit_quads += faces.num_quads();
    }
    let per = |n: usize| n as f64 / cases.len() as f64;
    figure(&format!("mesh/blocky/{name}/quads/ours-greedy"), per(ours_quads), "");
    let fewest = MeshOptions { fewest_quads: true, ..options };
    let fewest_quads: usize = cases
        .iter()
        .map(|case| {
            mesher.blocky(&case.grid, case.region, &fewest, &mut mesh).expect("region");
            mesh.quad_count()
        })
        .sum();
    figure(&format!("mesh/blocky/{name}/quads/ours-greedy-fewest-quads"), per(fewest_quads), "");
    figure(&format!("mesh/blocky/{name}/quads/block-mesh-greedy"), per(greedy_quads), "");
    figure(&format!("mesh/blocky/{name}/quads/block-mesh-visible-faces"), per(unit_quads), "");

    let greedy_case = |case: &Case, out: &mut GreedyQuadsBuffer| {
        case.greedy_quads(out);
        out.quads.num_quads()
    };
    let faces_case = |case: &Case, out: &mut UnitQuadBuffer| {
        case.visible_faces(out);
        out.num_quads()
    };
    let blocky = |m: &mut Mesher, case: &Case, out: &mut Mesh| {
        m.blocky(&case.grid, case.region, &options, out).expect("region");
        out.quad_count()
    };
    let unmerged = |m: &mut Mesher, case: &Case, out: &mut Mesh| {
        m.visible_faces(&case.grid, case.region, &options, out).expect("region");
        out.quad_count()
    };
    pair(c, "mesh/blocky-greedy", name, cases, (&mut mesher, &mut mesh, blocky), (&mut greedy, greedy_case));
    pair(c, "mesh/blocky-faces", name, cases, (&mut mesher, &mut mesh, unmerged), (&mut faces, faces_case));
    // All four scan orders per slice (`MeshOptions::fewest_quads`): what the fewer quads cost.
    let mut group = c.benchmark_group("mesh/blocky-greedy-fewest-quads");
    group.throughput(Throughput::Elements(cases.len() as u64));
    if cases.len() == 1 {
        group.sample_size(20);
    }
    group.bench_with_input(BenchmarkId::new("ours", name), &(), |b, ()| {
        b.iter(|| {
            let mut n = 0;
            for case in cases {
                mesher.blocky(&case.grid, case.region, &fewest, &mut mesh).expect("region");
                n += mesh.quad_count();
            }
            n
        });
    });
    group.finish();
    // The same faces without vertices, the output block-mesh's `visible_block_faces` makes.
    let listed = |m: &mut Mesher, case: &Case, out: &mut Vec<Face>| {
        m.face_list(&case.grid, case.region, Surface::Solid, out).expect("region");
        out.len()
    };
    pair(c, "mesh/blocky-face-list", name, cases, (&mut mesher, &mut Vec::new(), listed), (&mut faces, faces_case));
}

/// One group: ours and block-mesh over the same cases, each run counting quads.
fn pair<O, B>(
    c: &mut Criterion,
    group: &str,
    name: &str,
    cases: &[Case],
    (mesher, mesh, ours): (&mut Mesher, &mut O, impl Fn(&mut Mesher, &Case, &mut O) -> usize),
    (buffer, peer): (&mut B, impl Fn(&Case, &mut B) -> usize),
) {
    let mut group = c.benchmark_group(group);
    group.throughput(Throughput::Elements(cases.len() as u64));
    if cases.len() == 1 {
        group.sample_size(20);
    }
    group.bench_with_input(BenchmarkId::new("ours", name), &(), |b, ()| {
        b.iter(|| cases.iter().map(|case| ours(mesher, case, mesh)).sum::<usize>());
    });
    group.bench_with_input(BenchmarkId::new("block-mesh", name), &(), |b, ()| {
        b.iter(|| cases.iter().map(|case| peer(case, buffer)).sum::<usize>());
    });
    group.finish();
}

/// The `unsafe` of voxel-mesh's packing: inside bits packed with SSE2. The baseline meshes the same
/// voxels under a phase table with two extra solid materials that never occur (250, 252), which
/// gives the same mesh but has too many holes for the SSE2 path, so it takes the portable loop.
fn inside_bits_group(c: &mut Criterion, name: &str, cases: &[Case]) {
    let portable: Vec<VoxelGrid> = cases
        .iter()
        .map(|case| {
            let mut table = case.grid.phase_table().clone();
            table.set(250, voxel_core::Phase::Solid);
            table.set(252, voxel_core::Phase::Solid);
            case.grid.clone().with_phases(table)
        })
        .collect();
    let mut mesher = Mesher::new();
    let mut mesh = Mesh::new();
    let options = MeshOptions::PHYSICS;
    let mut group = c.benchmark_group("mesh/surface-nets-inside-bits");
    group.bench_with_input(BenchmarkId::new("ours", name), &(), |b, ()| {
        b.iter(|| surface_quads(&mut mesher, &mut mesh, cases.iter().map(|k| (&k.grid, k.region)), &options));
    });
    group.bench_with_input(BenchmarkId::new("baseline-portable", name), &(), |b, ()| {
        b.iter(|| {
            surface_quads(&mut mesher, &mut mesh, cases.iter().zip(&portable).map(|(k, g)| (g, k.region)), &options)
        });
    });
    group.finish();
}

fn terrain(c: &mut Criterion) {
    let world = generate::terrain(&Terrain::new(WORLD, 1)).expect("valid parameters");
    for edge in [16, 32] {
        let cases: Vec<Case> = surface_chunks(&world, edge, 64).into_iter().map(|r| Case::new(&world, r)).collect();
        let name = format!("terrain-{edge}^3-x{}", cases.len());
        surface_nets_group(c, &name, &world, &cases);
        if edge == 32 {
            blocky_group(c, &name, &cases);
            inside_bits_group(c, &name, &cases);
            // Bytes of what physics keeps (positions, materials, indices) and of the render mesh.
            let mut mesher = Mesher::new();
            let mut mesh = Mesh::new();
            let (mut physics, mut total, mut tris) = (0, 0, 0);
            for case in &cases {
                let options = MeshOptions { blend: true, ..MeshOptions::default() };
                mesher.surface_nets(&case.grid, case.region, &options, &mut mesh).expect("chunk");
                physics += mesh.memory().physics();
                total += mesh.memory().total();
                tris += mesh.triangle_count();
            }
            figure("mesh/surface-nets/terrain-32^3/bytes-per-triangle/physics", physics as f64 / tris as f64, "B");
            figure(
                "mesh/surface-nets/terrain-32^3/bytes-per-triangle/with-normals-and-blend",
                total as f64 / tris as f64,
                "B",
            );
        }
    }
    // Water: its own surface.
    let cases: Vec<Case> = surface_chunks(&world, 32, 16).into_iter().map(|r| Case::new(&world, r)).collect();
    let mut mesher = Mesher::new();
    let mut mesh = Mesh::new();
    let water = MeshOptions { surface: Surface::Liquid, ..MeshOptions::default() };
    let mut group = c.benchmark_group("mesh/surface-nets-water");
    group.bench_function(format!("ours/terrain-32^3-x{}", cases.len()), |b| {
        b.iter(|| surface_quads(&mut mesher, &mut mesh, cases.iter().map(|k| (&k.grid, k.region)), &water));
    });
    group.finish();
}

fn sphere(c: &mut Criterion) {
    let world = generate::sphere(Vec3::splat(16.3), 13.0).expect("valid sphere");
    let cases = vec![Case::new(&world, VoxelBox::new(IVec3::ZERO, IVec3::splat(32)))];
    surface_nets_group(c, "sphere-r13-32^3", &world, &cases);
    blocky_group(c, "sphere-r13-32^3", &cases);
}

/// The worst case for both meshers: random voxels (no surface to follow, little to merge) at 10%
/// density of one material, 50% of one and 50% of three; with random distances, and Surface Nets
/// on the one-material cases.
fn noise(c: &mut Criterion) {
    let region = VoxelBox::new(IVec3::ZERO, IVec3::splat(32));
    for (density, materials) in [(10u64, 1u64), (50, 1), (50, 3)] {
        let mut rng = Rng::new(density * 31 + materials);
        let grid = VoxelGrid::from_fn(region.grow(1), |_| {
            let d = (rng.range(-1.0, 1.0) * 120.0) as i8;
            let m = 1 + (rng.range(0.0, materials as f32) as u8).min(materials as u8 - 1);
            if rng.range(0.0, 100.0) < density as f32 {
                Voxel::new(-d.saturating_abs().max(1), m)
            } else {
                Voxel::new(d.saturating_abs().max(1), 0)
            }
        })
        .expect("bounded region");
        let cases = vec![Case::new(&grid, region)];
        let name = format!("noise-{density}%-{materials}-material{}-32^3", if materials == 1 { "" } else { "s" });
        if materials == 1 {
            surface_nets_group(c, &name, &grid, &cases);
        }
        blocky_group(c, &name, &cases);
    }
}

fn vox_models(c: &mut Criterion) {
    // Every model of the shared set (figures are checked on models nobody tuned for), or the
    // repository's one small copy.
    let files: Vec<PathBuf> = match shared_data() {
        Some(dir) => voxel_testdata::files_below(&dir.join("voxels/vox"), &["vox"]),
        None => vec![testdata().join("voxels/vox/ogt-multiple-model-scene.vox")],
    };
    for file in files {
        let Ok(store) = voxel_store::vox::load(&file) else {
            eprintln!("skipping {}: not readable", file.display());
            continue;
        };
        let Some(region) = store.bounds() else { continue };
        // Models too large for one mesh (the mesher's documented limit) are skipped here.
        if region.grow(1).volume() > voxel_mesh::MAX_MESH_VOLUME {
            eprintln!("skipping {}: larger than one mesh may be", file.display());
            continue;
        }
        let case = Case::new(&store, region);
        let name = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let size = region.size();
        blocky_group(c, &format!("{name}-{}x{}x{}", size.x, size.y, size.z), std::slice::from_ref(&case));
    }
}

criterion_group! {
    name = benches;
    config = config();
    targets = terrain, sphere, noise, vox_models
}
criterion_main!(benches);
