//! `voxel-broadphase` benches: mask builds, the overlap test beside a per-voxel scan and a
//! chunk-box-only broadphase, memory, and precision with 10k objects in a cave world.
//!
//! `BROADPHASE_SEED=<n>` generates another world (seed 1 by default) for checking the figures on
//! a world the figures were not tuned on.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use glam::{IVec3, Vec3};
use voxel_bench::workloads::{self, Rng};
use voxel_bench::{config, figure};
use voxel_broadphase::raw::MaskBuilder;
use voxel_broadphase::{Broadphase, Reach};
use voxel_core::{Aabb, Phase, Voxel, VoxelBox, VoxelSource};
use voxel_store::VoxelStore;
use voxel_store::generate::{self, Terrain};
use voxel_testdata::ByteCounter;

#[global_allocator]
static ALLOC: ByteCounter = ByteCounter::new();

const WORLD: IVec3 = IVec3::new(512, 128, 512);

fn world() -> VoxelStore {
    let seed = std::env::var("BROADPHASE_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    generate::terrain(&Terrain::new(WORLD, seed)).expect("valid parameters")
}

/// Object boxes of the given size, anywhere in the world box (air, caves, ground).
fn boxes(n: usize, size: Vec3, seed: u64) -> Vec<Aabb> {
    let mut rng = Rng::new(seed);
    let room = Aabb::new(Vec3::ZERO, WORLD.as_vec3() - size);
    (0..n).map(|_| rng.point_in(&room)).map(|p| Aabb::new(p, p + size)).collect()
}

/// The cells a box grown by one voxel touches, `floor(min - 1)..=floor(max + 1)`, in whole
/// numbers.
fn cells(b: &Aabb) -> VoxelBox {
    VoxelBox::new(b.min.floor().as_ivec3() - IVec3::ONE, b.max.floor().as_ivec3() + IVec3::splat(2))
}

/// The naive test: read the grown box plus the dilation halo and look for a solid voxel.
fn naive_touches_solid(world: &VoxelStore, b: &Aabb, buf: &mut Vec<Voxel>) -> bool {
    world.read_region(cells(b).grow(1), buf).expect("small box");
    let phases = world.phase_table();
    buf.iter().any(|v| v.phase(phases) == Phase::Solid)
}

/// A chunk-box-only broadphase: every stored (non-empty) chunk whose box the grown box overlaps.
fn chunk_box_pairs(bp: &Broadphase, b: &Aabb) -> usize {
    cells(b).chunk_keys(8).iter().filter(|k| bp.chunk_class(*k).is_some()).count()
}

fn builds(c: &mut Criterion) {
    let world = world();
    let region = VoxelBox::new(IVec3::ZERO, WORLD);
    let (bp, retained, _) = ALLOC.measure(|| Broadphase::build(&world, region).expect("bounded region"));
    let volume = region.volume() as f64;
    let m = bp.memory();
    figure(
        "broadphase/memory/512x128x512/bits-per-voxel (counting allocator)",
        retained as f64 * 8.0 / volume,
        "bit/voxel",
    );
    figure("broadphase/memory/512x128x512/partial-chunks", m.partial_chunks as f64, "");
    figure("broadphase/memory/512x128x512/full-chunks", m.full_chunks as f64, "");
    figure(
        "broadphase/memory/512x128x512/bits-per-voxel-of-partial-chunks",
        m.bytes as f64 * 8.0 / (m.partial_chunks.max(1) * 512) as f64,
        "bit/voxel",
    );

    // Mask build of one chunk from a 10^3 read already in memory, and with the read.
    let keys: Vec<IVec3> = VoxelBox::new(IVec3::ZERO, WORLD / 8)
        .iter()
        .filter(|k| bp.chunk_class(*k) == Some(voxel_broadphase::ChunkClass::Partial))
        .take(256)
        .collect();
    let reads: Vec<Vec<Voxel>> = keys
        .iter()
        .map(|k| {
            let mut v = Vec::new();
            world.read_region(VoxelBox::chunk(*k, 8).grow(1), &mut v).expect("small read");
            v
        })
        .collect();
    let builder = MaskBuilder::new(world.phase_table());
    let mut group = c.benchmark_group("broadphase/mask-build");
    group.throughput(Throughput::Elements(keys.len() as u64));
    group.bench_function("ours/read-excluded/256-surface-chunks", |b| {
        b.iter(|| reads.iter().map(|r| builder.build(black_box(r)).expect("1000 voxels").0.0[3]).fold(0, |a, s| a ^ s));
    });
    group.finish();
    // With the reads: one thread builds every chunk of a 64^3 region at the surface and its halo
    // (10^3 chunks, read in blocks of 4^3 chunks as `Broadphase::build` does).
    let one_thread = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a pool");
    let corner = (keys[keys.len() / 2] * 8).with_y(40) & !31;
    let surface = VoxelBox::from_min_size(corner, IVec3::splat(64));
    let built_chunks = surface.grow(1).chunk_keys(8).volume();
    let mut group = c.benchmark_group("broadphase/mask-build");
    group.throughput(Throughput::Elements(built_chunks));
    group.bench_function("ours/read-included/64^3-surface-region-1-thread", |b| {
        b.iter(|| one_thread.install(|| Broadphase::build(&world, surface).expect("bounded")).chunk_count());
    });
    group.finish();
    let mut group = c.benchmark_group("broadphase/build");
    group.sample_size(10);
    group.throughput(Throughput::Elements(VoxelBox::new(IVec3::ZERO, WORLD).grow(1).chunk_keys(8).volume()));
    group.bench_function("ours/512x128x512-all-chunks", |b| {
        b.iter(|| Broadphase::build(&world, region).expect("bounded"));
    });
    group.finish();
}

fn queries(c: &mut Criterion) {
    let world = world();
    let bp = Broadphase::build(&world, VoxelBox::new(IVec3::ZERO, WORLD)).expect("bounded region");
    for (name, size) in [("1x2x1", Vec3::new(1.0, 2.0, 1.0)), ("20^3", Vec3::splat(20.0))] {
        // Boxes resting near the ground surface: the interesting case for a terrain broadphase.
        let set = workloads::boxes_near_surface(&world, WORLD, 1024, size, 3);
        let mut group = c.benchmark_group("broadphase/overlap");
        group.throughput(Throughput::Elements(set.len() as u64));
        let mut hits = Vec::new();
        group.bench_with_input(BenchmarkId::new("ours", name), &(), |b, ()| {
            b.iter(|| {
                let mut n = 0;
                for q in &set {
                    bp.query(q, &mut hits).expect("valid box");
                    n += hits.len();
                }
                n
            });
        });
        // The same 1024 boxes in one `query_batch` call (hits of all boxes in one list).
        let (mut batch_hits, mut ends) = (Vec::new(), Vec::new());
        group.bench_with_input(BenchmarkId::new("ours", format!("{name}-batch")), &(), |b, ()| {
            b.iter(|| {
                bp.query_batch(black_box(&set), &mut batch_hits, &mut ends).expect("valid boxes");
                batch_hits.len()
            });
        });
        // The same 1024 boxes, each queried 8 times in a row: an object tested again the next
        // frame finds its chunk masks in cache (the scattered pass above mostly misses them).
        group.throughput(Throughput::Elements(8 * set.len() as u64));
        group.bench_with_input(BenchmarkId::new("ours", format!("{name}-each-8-times")), &(), |b, ()| {
            b.iter(|| {
                let mut n = 0;
                for q in &set {
                    for _ in 0..8 {
                        bp.query(black_box(q), &mut hits).expect("valid box");
                        n += hits.len();
                    }
                }
                n
            });
        });
        group.throughput(Throughput::Elements(set.len() as u64));
        let mut buf = Vec::new();
        group.bench_with_input(BenchmarkId::new("baseline-per-voxel", name), &(), |b, ()| {
            b.iter(|| set.iter().filter(|q| naive_touches_solid(&world, q, &mut buf)).count());
        });
        group.bench_with_input(BenchmarkId::new("baseline-chunk-boxes", name), &(), |b, ()| {
            b.iter(|| set.iter().map(|q| chunk_box_pairs(&bp, q)).sum::<usize>());
        });
        group.finish();
    }
}

/// The reference for "real contact": the box grown by the same one-voxel contact margin touches
/// a cell with a solid corner (`surface`: with a solid and a non-solid corner), so the Surface
/// Nets surface (which lies in exactly the cells with a sign change) can be within the margin.
fn really_touches(world: &VoxelStore, b: &Aabb, chunk: IVec3, surface: bool, buf: &mut Vec<Voxel>) -> bool {
    let part = cells(b).intersection(&VoxelBox::chunk(chunk, 8));
    if part.is_empty() {
        return false;
    }
    // Cell p has corners p..=p + 1.
    let corners = VoxelBox::new(part.min, part.max + IVec3::ONE);
    world.read_region(corners, buf).expect("small box");
    let solid: Vec<bool> = buf.iter().map(|v| v.phase(world.phase_table()) == Phase::Solid).collect();
    let size = corners.size();
    let at = |p: IVec3| {
        let d = p - corners.min;
        solid[(d.x + size.x * (d.z + size.z * d.y)) as usize]
    };
    part.iter().any(|c| {
        let corners = VoxelBox::new(c, c + IVec3::splat(2));
        let any_solid = corners.iter().any(at);
        any_solid && !(surface && corners.iter().all(at))
    })
}

fn precision(_c: &mut Criterion) {
    let world = world();
    let bp = Broadphase::build(&world, VoxelBox::new(IVec3::ZERO, WORLD)).expect("bounded region");
    // 10k objects where objects can be: in open space (air, caves, water), never inside rock.
    let mut buf = Vec::new();
    let objects: Vec<Aabb> = boxes(60_000, Vec3::new(1.0, 2.0, 1.0), 17)
        .into_iter()
        .filter(|o| {
            let inside = VoxelBox::new(o.min.floor().as_ivec3(), o.max.floor().as_ivec3() + IVec3::ONE);
            world.read_region(inside, &mut buf).expect("small box");
            buf.iter().all(|v| v.phase(world.phase_table()) != Phase::Solid)
        })
        .take(10_000)
        .collect();
    // The seed's reading of the same masks, for comparison (the default is Surface Nets reach).
    let mut seed_reading = bp.clone();
    seed_reading.set_reach(Reach::Neighbours, &mut Vec::new());
    let mut hits = Vec::new();
    let (mut chunk_box, mut bit, mut real, mut bit_real, mut surface) = (0usize, 0usize, 0usize, 0usize, 0usize);
    let (mut neighbours, mut neighbours_real) = (0usize, 0usize);
    for o in &objects {
        // The chunk-box broadphase: every chunk with solid geometry whose box the grown box overlaps.
        chunk_box += cells(o)
            .chunk_keys(8)
            .iter()
            .filter(|k| bp.chunk_masks(*k).is_some_and(|(solid, _)| !solid.is_empty()))
            .count();
        seed_reading.query(o, &mut hits).expect("valid box");
        let seed_hits = hits.clone();
        neighbours += seed_hits.iter().filter(|h| h.solid).count();
        bp.query(o, &mut hits).expect("valid box");
        bit += hits.iter().filter(|h| h.solid).count();
        for key in cells(o).chunk_keys(8).iter() {
            if really_touches(&world, o, key, false, &mut buf) {
                real += 1;
                bit_real += usize::from(hits.iter().any(|h| h.chunk == key && h.solid));
                neighbours_real += usize::from(seed_hits.iter().any(|h| h.chunk == key && h.solid));
                surface += usize::from(really_touches(&world, o, key, true, &mut buf));
            }
        }
    }
    let name = "broadphase/precision/10k-objects-in-open-space";
    figure(&format!("{name}/pairs-chunk-boxes"), chunk_box as f64, "pairs");
    figure(&format!("{name}/pairs-bit-broadphase"), bit as f64, "pairs");
    figure(&format!("{name}/pairs-with-real-contact"), real as f64, "pairs");
    figure(&format!("{name}/real-contacts-missed"), (real - bit_real) as f64, "pairs");
    let cut = |bit: usize, real: usize| {
        let redundant = |pairs: usize| pairs.saturating_sub(real) as f64;
        100.0 * (1.0 - redundant(bit) / redundant(chunk_box).max(1.0))
    };
    figure(&format!("{name}/redundant-pairs-cut"), cut(bit, real), "%");
    // The stricter reading: only cells with a sign change hold Surface Nets triangles.
    figure(&format!("{name}/pairs-with-surface-cell"), surface as f64, "pairs");
    figure(&format!("{name}/redundant-pairs-cut-against-surface-cells"), cut(bit, surface), "%");
    figure(&format!("{name}/neighbours-reach/pairs-bit-broadphase"), neighbours as f64, "pairs");
    figure(&format!("{name}/neighbours-reach/real-contacts-missed"), (real - neighbours_real) as f64, "pairs");
    figure(&format!("{name}/neighbours-reach/redundant-pairs-cut"), cut(neighbours, real), "%");
}

criterion_group! {
    name = benches;
    config = config();
    targets = builds, queries, precision
}
criterion_main!(benches);
