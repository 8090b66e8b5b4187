//! `voxel-store` benches: memory and disk bytes per voxel of a generated world, region reads beside
//! memcpy, brush edits, save and load.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use glam::{IVec3, Vec3};
use voxel_bench::{config, figure, workloads::Rng};
use voxel_core::{Voxel, VoxelBox, VoxelSource};
use voxel_store::generate::{self, Terrain, materials::ROCK};
use voxel_store::{Brush, SharedStore, VoxelStore};
use voxel_testdata::ByteCounter;

#[global_allocator]
static ALLOC: ByteCounter = ByteCounter::new();

const WORLD: IVec3 = IVec3::new(512, 128, 512);

fn world() -> (VoxelStore, Terrain) {
    let params = Terrain::new(WORLD, 1);
    (generate::terrain(&params).expect("valid parameters"), params)
}

/// Points on the ground surface of the world, for edits and reads where the chunks are mixed.
fn surface_points(store: &VoxelStore, n: usize, seed: u64) -> Vec<IVec3> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let x = 16 + (rng.unit() * (WORLD.x - 32) as f32) as i32;
            let z = 16 + (rng.unit() * (WORLD.z - 32) as f32) as i32;
            let y = (0..WORLD.y).rev().find(|&y| store.get(IVec3::new(x, y, z)).is_inside()).unwrap_or(0);
            IVec3::new(x, y, z)
        })
        .collect()
}

fn memory_and_disk(c: &mut Criterion) {
    let ((store, params), retained, _) = ALLOC.measure(world);
    let volume = VoxelBox::new(IVec3::ZERO, WORLD).volume() as f64;
    let stats = store.memory();
    figure("store/memory/512x128x512/bytes-per-voxel (counting allocator)", retained as f64 / volume, "B/voxel");
    figure("store/memory/512x128x512/bytes-per-voxel (MemoryStats)", stats.bytes as f64 / volume, "B/voxel");
    figure("store/memory/512x128x512/chunks uniform", stats.uniform_chunks as f64, "");
    figure("store/memory/512x128x512/chunks packed", stats.packed_chunks as f64, "");
    let mut bytes = Vec::new();
    store.write_to(&mut bytes).expect("writing to memory");
    figure("store/disk/512x128x512/bytes-per-voxel", bytes.len() as f64 / volume, "B/voxel");
    // The same hills without tunnels: caves add most of the surface a world has.
    let (no_caves, retained_no_caves, _) =
        ALLOC.measure(|| generate::terrain(&Terrain { cave_width: 0.0, ..params.clone() }).expect("valid parameters"));
    let mut no_caves_bytes = Vec::new();
    no_caves.write_to(&mut no_caves_bytes).expect("writing to memory");
    figure("store/memory/512x128x512-no-caves/bytes-per-voxel", retained_no_caves as f64 / volume, "B/voxel");
    figure("store/disk/512x128x512-no-caves/bytes-per-voxel", no_caves_bytes.len() as f64 / volume, "B/voxel");
    drop(no_caves);

    let mut group = c.benchmark_group("store/generate");
    group.sample_size(10);
    group.throughput(Throughput::Elements(volume as u64));
    group.bench_function("ours/512x128x512-terrain", |b| b.iter(|| generate::terrain(black_box(&params))));
    group.finish();

    let mut group = c.benchmark_group("store/save-load");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(retained as u64));
    group.bench_function("save/512x128x512-in-memory-bytes", |b| {
        let mut out = Vec::with_capacity(bytes.len());
        b.iter(|| {
            out.clear();
            store.write_to(&mut out).expect("writing to memory")
        });
    });
    group.bench_function("load/512x128x512-in-memory-bytes", |b| {
        b.iter(|| VoxelStore::from_bytes(black_box(&bytes)).expect("our own bytes"));
    });
    group.finish();
}

fn region_read(c: &mut Criterion) {
    let (store, _) = world();
    // 64^3 boxes around the ground surface: each covers uniform, packed and missing chunks.
    let boxes: Vec<VoxelBox> = surface_points(&store, 16, 5)
        .into_iter()
        .map(|p| VoxelBox::from_min_size(p - IVec3::splat(32), IVec3::splat(64)))
        .collect();
    let n = 64usize.pow(3);
    // The baseline copies the same number of bytes from 16 distinct buffers in turn, as the reads
    // visit 16 distinct places of the world: both see the same cache behaviour.
    let sources: Vec<Vec<Voxel>> = boxes
        .iter()
        .map(|b| {
            let mut v = Vec::new();
            store.read_region(*b, &mut v).expect("small region");
            v
        })
        .collect();
    let mut out = Vec::with_capacity(n);
    let mut group = c.benchmark_group("store/region-read");
    group.throughput(Throughput::Bytes((n * size_of::<Voxel>()) as u64));
    for (name, cycle) in [("64^3-mixed-16-places", boxes.len()), ("64^3-mixed-same-place", 1)] {
        group.bench_with_input(BenchmarkId::new("ours", name), &(), |b, ()| {
            let mut i = 0;
            b.iter(|| {
                i = (i + 1) % cycle;
                store.read_region(boxes[i], &mut out).expect("small region");
                out.len()
            });
        });
        group.bench_with_input(BenchmarkId::new("memcpy", name), &(), |b, ()| {
            let mut dst = vec![Voxel::EMPTY; n];
            let mut i = 0;
            b.iter(|| {
                i = (i + 1) % cycle;
                dst.copy_from_slice(black_box(&sources[i]));
                dst.len()
            });
        });
    }
    group.finish();
}

fn edits(c: &mut Criterion) {
    let (store, _) = world();
    let points = surface_points(&store, 256, 9);
    let radius = 8.0;
    // Voxels each edit visits: the brush's box grown by the distance band.
    let visited = {
        let e = (radius + voxel_store::DISTANCE_BAND).floor() as u64 * 2 + 1;
        e * e * e
    };
    let mut group = c.benchmark_group("store/sphere-edit");
    group.throughput(Throughput::Elements(visited));
    let mut plain = store.clone();
    group.bench_with_input(BenchmarkId::new("ours", "radius-8"), &(), |b, ()| {
        let mut i = 0;
        b.iter(|| {
            i += 1;
            let center = points[i % points.len()].as_vec3() + Vec3::new(0.3, 0.5, 0.7);
            let brush = Brush::Sphere { center, radius };
            // Alternate adding and carving so the world stays terrain-like.
            if i % 2 == 0 { plain.add(&brush, ROCK) } else { plain.subtract(&brush) }.expect("valid brush")
        });
    });
    let shared = SharedStore::new(store);
    group.bench_with_input(BenchmarkId::new("shared-store", "radius-8"), &(), |b, ()| {
        let mut i = 0;
        b.iter(|| {
            i += 1;
            let center = points[i % points.len()].as_vec3() + Vec3::new(0.3, 0.5, 0.7);
            let brush = Brush::Sphere { center, radius };
            shared.edit(|w| if i % 2 == 0 { w.add(&brush, ROCK) } else { w.subtract(&brush) }).expect("valid brush")
        });
    });
    group.finish();
    plain.compact();
    figure(
        "store/sphere-edit/after-compact/bytes-per-voxel",
        plain.memory().bytes as f64 / VoxelBox::new(IVec3::ZERO, WORLD).volume() as f64,
        "B/voxel",
    );
}

criterion_group! {
    name = benches;
    config = config();
    targets = memory_and_disk, region_read, edits
}
criterion_main!(benches);
