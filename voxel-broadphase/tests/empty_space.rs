//! Empty space costs (almost) nothing: a broadphase's memory follows the chunks holding solid or
//! water, not the region it was built over.
//!
//! A counting allocator measures what a build keeps and the peak it reaches. One test function
//! only, so no other test of this binary allocates while it measures.

use glam::{IVec3, Vec3};
use voxel_broadphase::Broadphase;
use voxel_core::{Aabb, Voxel, VoxelBox, VoxelSource};
use voxel_store::{VoxelStore, generate};

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

/// Before: an empty 2048 x 256 x 2048 region kept 8.7 MB (a 4-byte entry per chunk) and peaked at
/// about 670 MB (a 150-byte result per chunk, twice); a source without bounds paid the same.
#[test]
fn empty_space_costs_almost_nothing() {
    let region = VoxelBox::new(IVec3::ZERO, IVec3::new(2048, 256, 2048));
    // Warm-up: the first build starts rayon's threads and seeds the hasher, kept for the process.
    Broadphase::build(&VoxelStore::new(), region).unwrap();
    // An empty store says it holds nothing: nothing is visited.
    let (bp, kept, peak) = BYTES.measure(|| Broadphase::build(&VoxelStore::new(), region));
    let bp = bp.unwrap();
    assert!(kept <= 16 * KIB && peak <= 256 * KIB, "empty store: kept {kept}, peak {peak}");
    assert_eq!(bp.chunk_count(), 0);
    drop(bp);

    // A small sphere in a corner of the big region: the chunks around it, not the region.
    let store = generate::sphere(Vec3::new(1900.0, 200.0, 100.0), 6.0).unwrap();
    let (bp, kept, peak) = BYTES.measure(|| Broadphase::build(&store, region));
    let bp = bp.unwrap();
    // Kept: the chunks around the sphere, and the block-read scratch (34^3 voxels, 77 KiB) that
    // the reading thread keeps for later builds.
    assert!(kept <= 128 * KIB && peak <= 512 * KIB, "sphere: kept {kept}, peak {peak}");
    let mut hits = Vec::new();
    bp.query(&Aabb::new(Vec3::new(1905.5, 199.5, 99.5), Vec3::new(1907.0, 200.5, 100.5)), &mut hits).unwrap();
    assert!(hits.iter().any(|h| h.solid), "the sphere is there: {hits:?}");
    drop(bp);

    // A source without bounds is visited chunk by chunk, but a uniform block of 64 chunks costs
    // one result while it is built: the peak is the chunk table (4 bytes a chunk) and little more.
    let region = VoxelBox::new(IVec3::ZERO, IVec3::new(1024, 256, 1024));
    let chunks = region.grow(1).chunk_keys(8).volume() as usize;
    let (bp, kept, peak) = BYTES.measure(|| Broadphase::build(&Unbounded, region));
    assert_eq!(bp.unwrap().chunk_count(), 0);
    assert!(kept <= 4 * chunks + 96 * KIB, "unbounded: kept {kept} for {chunks} chunks");
    assert!(peak <= 4 * chunks + 2048 * KIB, "unbounded: peak {peak} for {chunks} chunks");
}
