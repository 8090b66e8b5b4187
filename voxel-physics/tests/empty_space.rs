//! Empty space costs (almost) nothing: memory in proportion to the surface, not to the world box.
//!
//! A counting allocator measures the bytes a collider keeps and the peak an edit reaches. One test
//! function only, so no other test of this binary allocates while it measures.

use glam::{IVec3, Vec3};
use voxel_broadphase::BroadphaseError;
use voxel_core::{Ray, Voxel, VoxelBox};
use voxel_physics::{Brush, ColliderOptions, PhysicsError, TerrainCollider, VoxelStore};
use voxel_store::generate;

#[global_allocator]
static BYTES: voxel_testdata::ByteCounter = voxel_testdata::ByteCounter::new();

const KIB: usize = 1 << 10;

/// A collider over an empty 2048 x 256 x 2048 box (2^30 voxels) held 9.2 MB and peaked at 674 MB
/// while it was built; a radius-2 sphere added 90,000 voxels from a 64^3 world took 6 s, peaked at
/// 1.1 GB and kept 63 MB (the ray marcher's table over the grown box), and at 130,000 voxels it was
/// refused. Now both cost what the voxels they hold cost.
#[test]
fn empty_space_costs_almost_nothing() {
    let world = VoxelBox::new(IVec3::ZERO, IVec3::new(2048, 256, 2048));
    // Warm-up: the first build starts rayon's threads and seeds the hasher, kept for the process.
    TerrainCollider::new(generate::sphere(Vec3::splat(8.0), 3.0).unwrap(), world, ColliderOptions::default()).unwrap();
    let (collider, kept, peak) =
        BYTES.measure(|| TerrainCollider::new(VoxelStore::new(), world, ColliderOptions::default()));
    let collider = collider.unwrap();
    assert!(kept <= 16 * KIB && peak <= 256 * KIB, "an empty world kept {kept} bytes, peaked at {peak}");
    // It still answers: nothing there.
    assert!(collider.raymarch(&Ray::new(Vec3::new(5.5, 200.0, 5.5), Vec3::NEG_Y), 1000.0).is_none());
    drop(collider);

    // A tiny edit far from a small world: the store's one dense chunk (64 KiB) and the derived data
    // of a few chunks, not the box between the world and the edit.
    let store = generate::sphere(Vec3::splat(32.0), 20.0).unwrap();
    let mut collider =
        TerrainCollider::new(store, VoxelBox::new(IVec3::ZERO, IVec3::splat(64)), ColliderOptions::default()).unwrap();
    let far = Vec3::new(130_000.0, 10.0, 130_000.0);
    let brush = Brush::Sphere { center: far, radius: 2.0 };
    let (outcome, kept, peak) = BYTES.measure(|| collider.add(&brush, generate::materials::ROCK));
    assert!(outcome.unwrap().report.changed_voxels > 0);
    assert!(kept <= 1024 * KIB && peak <= 2048 * KIB, "a far edit kept {kept} bytes, peaked at {peak}");
    assert!(collider.world().contains(far.as_ivec3()));
    // Every view sees the new rock: ray marching, the smooth surface, the broadphase.
    let down = Ray::new(far + Vec3::new(0.2, 20.0, 0.3), Vec3::NEG_Y);
    let marched = collider.raymarch(&down, 100.0).expect("the marcher sees the far rock");
    assert_eq!(marched.voxel, IVec3::new(130_000, 11, 130_000));
    let hit = collider.raycast(&down, 100.0).expect("the smooth surface is there");
    assert!((hit.point.y - 12.0).abs() < 0.5, "{hit:?}");
    // And the world near the origin still answers as before.
    let near = collider.raymarch(&Ray::new(Vec3::new(32.5, 60.0, 32.5), Vec3::NEG_Y), 100.0).unwrap();
    assert_eq!(near.voxel.y, 51);
    drop(collider);

    // The documented limit: voxels all over 2048 x 512 x 2048 (here two, at opposite corners, so
    // the store's bounds cover the box) span 2^22 broadphase chunks and more: a typed error, before
    // anything is built. The same box with nothing in it builds.
    let world = VoxelBox::new(IVec3::ZERO, IVec3::new(2048, 512, 2048));
    let mut store = VoxelStore::with_palette(generate::palette());
    let rock = Voxel::new(-50, generate::materials::ROCK);
    store.set(IVec3::ZERO, rock).unwrap();
    store.set(world.max - IVec3::ONE, rock).unwrap();
    let (result, _, peak) =
        BYTES.measure(|| TerrainCollider::new(store, world, ColliderOptions::default()).map(|_| ()));
    assert!(matches!(result, Err(PhysicsError::Broadphase(BroadphaseError::TooLarge))), "{result:?}");
    assert!(peak <= 1024 * KIB, "refusing took {peak} bytes");
    assert!(TerrainCollider::new(VoxelStore::new(), world, ColliderOptions::default()).is_ok());
}
