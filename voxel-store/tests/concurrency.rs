//! The shared store under readers and a writer, and determinism whatever the thread count.

use glam::IVec3;
use voxel_core::{Voxel, VoxelBox, VoxelSource};
use voxel_store::generate::{self, materials::ROCK};
use voxel_store::{SharedStore, VoxelStore};

/// A writer fills a box spanning 8 chunks with a new value each step; readers read it whole and must
/// always see one value (an edit entirely, or not at all).
#[test]
fn readers_never_see_half_an_edit() {
    let region = VoxelBox::new(IVec3::splat(-20), IVec3::splat(20));
    let shared = SharedStore::new(VoxelStore::with_palette(generate::palette()));
    shared.edit(|w| w.fill_box(region, Voxel::new(-1, ROCK))).unwrap();
    let steps = 60;
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                let mut buf = Vec::new();
                let mut seen = 0;
                while seen < steps {
                    shared.read_region(region, &mut buf).unwrap();
                    let first = buf[0];
                    assert!(buf.iter().all(|v| *v == first), "a reader saw a half-applied edit");
                    seen = -i32::from(first.distance);
                }
            });
        }
        for k in 2..=steps {
            shared.edit(|w| w.fill_box(region, Voxel::new(-(k as i8), ROCK))).unwrap();
        }
    });
}

#[test]
fn snapshots_do_not_change_under_later_edits() {
    let shared = SharedStore::new(generate::sphere(glam::Vec3::ZERO, 6.0).unwrap());
    let before = shared.snapshot();
    shared.edit(|w| w.set(IVec3::ZERO, Voxel::EMPTY)).unwrap();
    assert!(before.get(IVec3::ZERO).is_inside());
    assert!(!shared.read().get(IVec3::ZERO).is_inside());
}

#[test]
fn generation_is_identical_for_one_and_two_threads() {
    let params = generate::Terrain::new(IVec3::new(96, 64, 96), 11);
    let bytes_with = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let store = pool.install(|| generate::terrain(&params)).unwrap();
        let mut bytes = Vec::new();
        store.write_to(&mut bytes).unwrap();
        bytes
    };
    let one = bytes_with(1);
    assert_eq!(one, bytes_with(2));
    let other_seed = {
        let store = generate::terrain(&generate::Terrain { seed: 12, ..params.clone() }).unwrap();
        let mut bytes = Vec::new();
        store.write_to(&mut bytes).unwrap();
        bytes
    };
    assert_ne!(one, other_seed);
}

#[test]
fn terrain_has_ground_caves_and_water() {
    let params = generate::Terrain::new(IVec3::new(128, 64, 128), 2);
    let world = generate::terrain(&params).unwrap();
    let mut buf = Vec::new();
    world.read_region(VoxelBox::new(IVec3::ZERO, params.size), &mut buf).unwrap();
    let phases = world.phase_table();
    let count = |phase| buf.iter().filter(|v| v.phase(phases) == phase).count();
    let (solid, water) = (count(voxel_core::Phase::Solid), count(voxel_core::Phase::Liquid));
    assert!(solid > buf.len() / 5 && solid < buf.len() * 4 / 5, "solid {solid} of {}", buf.len());
    assert!(water > 0, "the water level is above some valleys");
    // Caves: empty voxels below the lowest ground height of their column exist somewhere.
    let size = params.size;
    let mut cave_voxels = 0;
    for z in 0..size.z {
        for x in 0..size.x {
            let column: Vec<Voxel> = (0..size.y).map(|y| buf[(x + size.x * (z + size.z * y)) as usize]).collect();
            let top = column.iter().rposition(|v| v.is_inside()).unwrap_or(0);
            cave_voxels += column[..top].iter().filter(|v| !v.is_inside()).count();
        }
    }
    assert!(cave_voxels > 100, "{cave_voxels} cave voxels");
}
