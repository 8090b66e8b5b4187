//! A voxel source whose own `read_region` hands back a buffer of the wrong length: a typed error
//! from the build and from both refresh paths, never a panic or bits from misplaced voxels, and a
//! failed refresh changes nothing.

use std::panic::{AssertUnwindSafe, catch_unwind};

use glam::{IVec3, Vec3};
use voxel_core::{PhaseTable, Ray, Voxel, VoxelBox, VoxelGrid, VoxelSource};
use voxel_raymarch::{Occupancy, RayHit, RaymarchError};

/// Rock in a hashed pattern (a third of the voxels), empty elsewhere.
fn pattern(world: VoxelBox, seed: u32) -> VoxelGrid {
    VoxelGrid::from_fn(world, |p| {
        let h = (p.x as u32).wrapping_mul(0x9E37_79B1) ^ (p.y as u32).wrapping_mul(0x85EB_CA77) ^ (p.z as u32) ^ seed;
        let h = h ^ (h >> 15);
        if h.is_multiple_of(3) { Voxel::new(-20, 1) } else { Voxel::EMPTY }
    })
    .unwrap()
}

/// The grid's voxels, then `delta` voxels more (solid) or fewer.
struct Miscounting<'a> {
    grid: &'a VoxelGrid,
    delta: isize,
}

impl VoxelSource for Miscounting<'_> {
    fn fill_region(&self, region: VoxelBox, out: &mut [Voxel]) {
        self.grid.fill_region(region, out);
    }

    fn phase_table(&self) -> &PhaseTable {
        self.grid.phase_table()
    }

    fn bounds(&self) -> Option<VoxelBox> {
        self.grid.bounds()
    }

    fn read_region(&self, region: VoxelBox, out: &mut Vec<Voxel>) -> Result<(), voxel_core::Error> {
        self.grid.read_region(region, out)?;
        let len = (out.len() as isize + self.delta).max(0) as usize;
        out.resize(len, Voxel::new(-20, 1));
        Ok(())
    }
}

fn is_mismatch<T>(r: &Result<T, RaymarchError>, delta: isize) -> bool {
    matches!(r, Err(RaymarchError::Source(voxel_core::Error::LengthMismatch { expected, actual }))
        if *actual == (*expected as isize + delta).max(0) as usize && actual != expected)
}

#[test]
fn a_read_of_the_wrong_length_is_an_error_that_changes_nothing() {
    let world = VoxelBox::new(IVec3::new(-40, -20, -40), IVec3::new(60, 40, 60));
    let grid = pattern(world, 1);
    let occ = Occupancy::build(&grid, world).unwrap();
    // The voxels change; a refresh from the miscounting source must not store any of it.
    let edited = pattern(world, 2);
    let probe = |o: &Occupancy| -> Vec<bool> { world.iter().map(|p| o.is_solid(p)).collect() };
    let rays: Vec<Ray> = (0..200)
        .map(|i| {
            let f = i as f32;
            let origin = Vec3::new(-50.0 + (f * 7.3) % 110.0, 50.0, -50.0 + (f * 3.1) % 110.0);
            Ray::new(origin, Vec3::new((f * 0.37).sin(), -1.0, (f * 0.61).cos()))
        })
        .collect();
    let casts = |o: &Occupancy| -> Vec<Option<RayHit>> { rays.iter().map(|r| o.cast(r, 500.0)).collect() };
    let (want_solid, want_casts) = (probe(&occ), casts(&occ));
    for delta in [-1isize, -100, -4000, 1, 100, 40_000] {
        let source = Miscounting { grid: &edited, delta };
        let built = catch_unwind(AssertUnwindSafe(|| Occupancy::build(&source, world).map(|o| o.stored_chunks())));
        assert!(built.as_ref().is_ok_and(|r| is_mismatch(r, delta)), "build, {delta} voxels off: {built:?}");
        for dirty in [
            VoxelBox::new(IVec3::new(1, 1, 1), IVec3::new(2, 2, 2)), // patch path, one voxel
            VoxelBox::new(IVec3::new(-5, -5, -5), IVec3::new(5, 5, 5)), // patch path, a box
            VoxelBox::new(IVec3::new(-10, -10, -10), IVec3::new(40, 30, 40)), // chunk rebuild
        ] {
            let mut after = occ.clone();
            let result = catch_unwind(AssertUnwindSafe(|| after.refresh(&source, dirty)));
            assert!(result.as_ref().is_ok_and(|r| is_mismatch(r, delta)), "{dirty:?}, {delta} off: {result:?}");
            assert!(probe(&after) == want_solid, "{dirty:?}, {delta} off: solid voxels changed");
            assert_eq!(casts(&after), want_casts, "{dirty:?}, {delta} off");
            assert_eq!(after.stored_chunks(), occ.stored_chunks());
        }
    }
    // The same refreshes from an honest source do change the occupancy (the probe can fail).
    let mut after = occ.clone();
    after.refresh(&edited, world).unwrap();
    assert!(probe(&after) != want_solid);
}
