//! Empty space costs (almost) nothing: an occupancy's memory follows the chunks holding solid
//! voxels, not its world box, and growing the box reads nothing.
//!
//! A counting allocator measures what a build keeps and the peak it reaches. One test function
//! only, so no other test of this binary allocates while it measures.

use glam::{IVec3, Vec3};
use voxel_core::{Ray, Voxel, VoxelBox, VoxelSource};
use voxel_raymarch::Occupancy;
use voxel_store::{Brush, VoxelStore, generate};

#[global_allocator]
static BYTES: voxel_testdata::ByteCounter = voxel_testdata::ByteCounter::new();

const KIB: usize = 1 << 10;

/// A source of empty space that does not know its bounds: every chunk must be visited.
struct Unbounded;

impl VoxelSource for Unbounded {
    fn fill_region(&self, _: VoxelBox, out: &mut [Voxel]) {
        out.fill(Voxel::EMPTY);
    }
}

/// Before: the chunk table was dense over the world box (4 bytes per 32^3 chunk, kept) and a
/// build held a key and a result per chunk of the box at once (about 60 bytes each); a world grown
/// 90,000 voxels to hold a far edit meant a rebuild over the whole box (1.1 GB, seconds).
#[test]
fn empty_space_costs_almost_nothing() {
    let world = VoxelBox::new(IVec3::ZERO, IVec3::new(2048, 256, 2048));
    // Warm-up: the first build starts rayon's threads, kept for the process.
    Occupancy::build(&generate::sphere(Vec3::splat(8.0), 3.0).unwrap(), VoxelBox::new(IVec3::ZERO, IVec3::splat(16)))
        .unwrap();
    let (occ, kept, peak) = BYTES.measure(|| Occupancy::build(&VoxelStore::new(), world));
    let occ = occ.unwrap();
    assert!(kept <= 4 * KIB && peak <= 256 * KIB, "empty store: kept {kept}, peak {peak}");
    assert!(occ.cast(&Ray::new(Vec3::new(3.5, 200.0, 3.5), Vec3::NEG_Y), 1e4).is_none());
    drop(occ);

    // Without bounds every chunk is visited, in batches; nothing is kept for empty ones.
    let world = VoxelBox::new(IVec3::ZERO, IVec3::new(1024, 256, 1024));
    let chunks = world.chunk_keys(32).volume() as usize;
    Occupancy::build(&Unbounded, world).unwrap(); // warm-up: every rayon thread takes part
    let (occ, kept, peak) = BYTES.measure(|| Occupancy::build(&Unbounded, world));
    assert_eq!(occ.unwrap().stored_chunks(), 0);
    assert!(kept <= 4 * KIB, "unbounded: kept {kept} for {chunks} chunks");
    assert!(peak <= 4 * chunks + 512 * KIB, "unbounded: peak {peak} for {chunks} chunks");

    // Two solid voxels 40,000 apart: the build visits the box between them (the store's bounds
    // cover it), but keeps two chunks, not a table over the box.
    let mut store = VoxelStore::with_palette(generate::palette());
    let rock = Voxel::new(-50, generate::materials::ROCK);
    let (a, b) = (IVec3::new(0, 0, 0), IVec3::new(40_000, 3, 40_000));
    store.set(a, rock).unwrap();
    store.set(b, rock).unwrap();
    let (occ, kept, _) = BYTES.measure(|| Occupancy::build(&store, VoxelBox::new(a, b + IVec3::ONE)));
    let occ = occ.unwrap();
    assert!(kept <= 32 * KIB, "two far voxels: kept {kept}");
    assert!(occ.is_solid(a) && occ.is_solid(b) && !occ.is_solid(IVec3::new(20_000, 0, 20_000)));
    let hit = occ.cast(&Ray::new(b.as_vec3() + Vec3::new(0.5, 50.0, 0.5), Vec3::NEG_Y), 100.0).unwrap();
    assert_eq!(hit.voxel, b);
    drop(occ);

    // A far edit: the box grows by 130,000 voxels, and only the edit's chunks are read.
    let mut store = generate::sphere(Vec3::splat(32.0), 20.0).unwrap();
    let mut occ = Occupancy::build(&store, VoxelBox::new(IVec3::ZERO, IVec3::splat(64))).unwrap();
    let before = occ.heap_bytes();
    let far = Vec3::new(130_000.0, 10.0, 130_000.0);
    let report = store.add(&Brush::Sphere { center: far, radius: 2.0 }, generate::materials::ROCK).unwrap();
    let (result, kept, peak) = BYTES.measure(|| {
        occ.grow_world(report.dirty)?;
        occ.refresh(&store, report.dirty)
    });
    result.unwrap();
    assert!(kept <= 64 * KIB && peak <= 512 * KIB, "far edit: kept {kept}, peak {peak}");
    assert!(occ.heap_bytes() <= before + 64 * KIB, "{} bytes after, {before} before", occ.heap_bytes());
    assert!(occ.is_solid(IVec3::new(130_000, 10, 130_000)) && occ.is_solid(IVec3::new(32, 32, 32)));
    let hit = occ.cast(&Ray::new(far + Vec3::new(0.5, 30.0, 0.5), Vec3::NEG_Y), 100.0).unwrap();
    assert_eq!(hit.voxel, IVec3::new(130_000, 11, 130_000));
    // A ray from the old world towards the far rock crosses the empty box between them.
    let from = Vec3::new(40.5, 10.5, 40.5);
    let hit = occ.cast(&Ray::new(from, (far - from).normalize()), 2e5).unwrap();
    assert!(hit.voxel.x > 129_990, "{hit:?}");
}
