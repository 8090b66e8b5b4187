//! The narrowphase cache: built lazily, bounded in bytes (least recently used out), invalidated by
//! edits, and never a cause of a different answer.

mod common;

use common::{BruteWorld, collider, flat, rays, terrain};
use glam::{IVec3, Vec3};
use voxel_core::{Ray, VoxelBox};
use voxel_physics::{Brush, Cast, ColliderOptions, PhysicsError, RayScratch, TerrainCollider};

fn casts(world: VoxelBox, n: usize, seed: u64) -> Vec<Cast> {
    rays(world, n, seed).into_iter().map(|ray| Cast { ray, max_t: 200.0 }).collect()
}

#[test]
fn nothing_is_built_before_a_query_needs_it() {
    let (store, world) = terrain(IVec3::new(48, 32, 48), 2);
    let c = collider(store, world);
    assert_eq!(c.cache_stats().entries, 0);
    let hit = c.raycast(&Ray::new(Vec3::new(20.5, 40.0, 20.5), Vec3::NEG_Y), 100.0).unwrap();
    let stats = c.cache_stats();
    assert!(stats.entries >= 1 && stats.entries <= 27, "a straight-down ray builds a column's owners: {stats:?}");
    assert!(c.is_cached(hit.chunk));
    assert!(stats.bytes > 0 && stats.triangles > 0);
    // The same ray again is answered from the cache.
    let before = c.cache_stats().misses;
    c.raycast(&Ray::new(Vec3::new(20.5, 40.0, 20.5), Vec3::NEG_Y), 100.0).unwrap();
    assert_eq!(c.cache_stats().misses, before);
    assert!(c.cache_stats().hits > stats.hits);
}

/// A small shape inside one chunk, away from its borders, builds that chunk's mesh alone: the
/// meshes of the neighbours above (which own geometry of the chunk's box only within one voxel of
/// its lower faces) cannot reach it.
#[test]
fn a_small_contact_query_builds_one_mesh() {
    use voxel_physics::voxel_contacts::Sphere;
    use voxel_physics::{ContactOptions, ContactScratch, Shape};
    let (store, world) = flat(IVec3::new(32, 32, 32), 12);
    let c = collider(store.clone(), world);
    // The surface lies near y = 12 in chunk (1, 1, 1), voxels 8..16 on each axis (found on
    // another collider, so this one's cache stays empty).
    let down = Ray::new(Vec3::new(12.0, 30.0, 12.0), Vec3::NEG_Y);
    let y = collider(store, world).raycast(&down, 100.0).unwrap().point.y;
    assert!(y > 9.5 && y < 14.5, "{y}");
    let ball = Shape::Sphere(Sphere { center: Vec3::new(12.0, y + 0.49, 12.0), radius: 0.5 });
    let options = ContactOptions { contact_distance: 0.05, ..ContactOptions::default() };
    let mut out = Vec::new();
    c.contacts(&ball, &options, &mut ContactScratch::new(), &mut out).unwrap();
    assert!(!out.is_empty(), "the ball touches the ground");
    assert_eq!(c.cache_stats().misses, 1, "{:?}", c.cache_stats());
    assert!(c.is_cached(IVec3::ONE));
}

#[test]
fn the_bound_is_respected_and_answers_do_not_change() {
    let (store, world) = terrain(IVec3::new(64, 40, 64), 4);
    let roomy = collider(store.clone(), world);
    // Room for a few dozen chunks only: the render-like batch below needs hundreds.
    let bound = 96 << 10;
    let tight = TerrainCollider::new(store, world, ColliderOptions { cache_bytes: bound }).unwrap();
    let batch = casts(world, 3000, 8);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    roomy.raycast_batch(&batch, &mut a);
    tight.raycast_batch(&batch, &mut b);
    assert_eq!(a, b, "a tight cache gives the same answers");
    let stats = tight.cache_stats();
    assert!(stats.evictions > 0, "{stats:?}");
    assert!(stats.bytes <= bound && stats.peak_bytes <= bound, "{stats:?}");
    assert!(roomy.cache_stats().entries > stats.entries);
    assert_eq!(roomy.cache_stats().evictions, 0);
    // Triangles and entries add up to what the shapes hold.
    let mut triangles = 0;
    for key in world.grow(1).chunk_keys(8).iter() {
        if tight.is_cached(key) {
            triangles += tight.chunk_shape(key).unwrap().mesh().triangles().len();
        }
    }
    assert_eq!(triangles, tight.cache_stats().triangles);
}

#[test]
fn least_recently_used_chunks_leave_first() {
    let (store, world) = flat(IVec3::new(128, 16, 32), 8);
    let probe = |x: f32| Ray::new(Vec3::new(x, 15.0, 12.5), Vec3::NEG_Y);
    // What one probe builds (its column's owners), then room for about four probes' worth: the
    // first probe's owners and the two latest probes' fit in the three quarters eviction keeps.
    let one = {
        let c = collider(store.clone(), world);
        c.raycast(&probe(4.5), 20.0).unwrap();
        c.cache_stats().bytes
    };
    let bound = one * 4;
    let c = TerrainCollider::new(store, world, ColliderOptions { cache_bytes: bound }).unwrap();
    let first = c.raycast(&probe(4.5), 20.0).unwrap().chunk;
    let mut scratch = RayScratch::new();
    for i in 1..16 {
        // Keep touching the first chunk between new ones: it stays.
        c.raycast_with(&probe(4.5), 20.0, &mut scratch).unwrap();
        c.raycast_with(&probe(4.5 + 8.0 * i as f32), 20.0, &mut scratch).unwrap();
        assert!(c.is_cached(first), "step {i}: {:?}", c.cache_stats());
        assert!(c.cache_stats().bytes <= bound);
    }
    let stats = c.cache_stats();
    assert!(stats.evictions > 0 && stats.peak_bytes <= bound, "{stats:?}");
    // The chunk under the probe of step 2 was last used at step 3 (as an owner of its
    // neighbour's column): long gone.
    assert!(!c.is_cached(IVec3::new(2, 0, 1)), "{stats:?}");
}

#[test]
fn edits_drop_exactly_the_chunks_they_touch() {
    let (store, world) = terrain(IVec3::new(48, 32, 48), 6);
    let mut c = collider(store, world);
    let batch = casts(world, 1500, 2);
    let mut out = Vec::new();
    c.raycast_batch(&batch, &mut out);
    let cached: Vec<IVec3> = world.grow(1).chunk_keys(8).iter().filter(|k| c.is_cached(*k)).collect();
    assert!(cached.len() > 20);
    let outcome = c.subtract(&Brush::Sphere { center: Vec3::new(20.0, 16.0, 24.0), radius: 7.0 }).unwrap();
    let dirty = outcome.report.dirty_chunks(8);
    assert!(!dirty.is_empty());
    for k in &cached {
        assert_eq!(c.is_cached(*k), !dirty.contains(*k), "chunk {k}, dirty chunks {dirty:?}");
    }
    assert!(c.cache_stats().invalidations > 0);
    // And the answers after the edit are those of the edited voxels.
    let brute = BruteWorld::new(c.store(), c.world());
    for cast in &batch {
        let ours = c.raycast(&cast.ray, cast.max_t).map(|h| (h.t, h.chunk, h.triangle));
        assert_eq!(ours, brute.raycast(&cast.ray, cast.max_t), "{:?}", cast.ray);
    }
}

#[test]
fn the_broadphase_answers_for_empty_and_full_chunks() {
    let (store, world) = flat(IVec3::new(32, 48, 32), 28);
    let c = collider(store, world);
    // Deep in rock, high in the air, far away: no shape, nothing built.
    assert!(c.chunk_shape(IVec3::new(1, 1, 1)).is_none());
    assert!(c.chunk_shape(IVec3::new(1, 5, 1)).is_none());
    assert!(c.chunk_shape(IVec3::new(40, 40, 40)).is_none());
    assert_eq!(c.cache_stats().misses, 0);
    let surface = c.chunk_shape(IVec3::new(1, 3, 1)).unwrap();
    assert!(!surface.is_empty() && surface.tree().len() == surface.mesh().triangles().len());
    assert_eq!(c.cache_stats().misses, 1);
}

#[test]
fn bad_options_and_worlds_are_refused() {
    let (store, world) = flat(IVec3::new(16, 16, 16), 4);
    let zero = TerrainCollider::new(store.clone(), world, ColliderOptions { cache_bytes: 0 });
    assert!(matches!(zero, Err(PhysicsError::InvalidParameter(_))));
    let empty = TerrainCollider::new(store.clone(), VoxelBox::EMPTY, ColliderOptions::default());
    assert!(matches!(empty, Err(PhysicsError::InvalidWorld(_))));
    let huge = VoxelBox::new(IVec3::splat(-(1 << 21)), IVec3::splat(16));
    assert!(matches!(
        TerrainCollider::new(store, huge, ColliderOptions::default()),
        Err(PhysicsError::InvalidWorld(_))
    ));
    let none = TerrainCollider::from_store(voxel_store::VoxelStore::new(), ColliderOptions::default());
    assert!(matches!(none, Err(PhysicsError::InvalidWorld(_))));
}

/// `heap_bytes` is the sum of what the collider's parts hold, and follows the cache: a query that
/// builds chunks adds their bytes, clearing the cache gives them back.
#[test]
fn heap_bytes_follow_the_cache() {
    let (store, world) = terrain(IVec3::new(48, 32, 48), 2);
    let c = collider(store, world);
    let parts = c.store().heap_bytes() + c.broadphase().heap_bytes() + c.occupancy().heap_bytes();
    assert!(parts > 0);
    assert_eq!(c.heap_bytes(), parts, "nothing cached yet");
    c.raycast(&Ray::new(Vec3::new(20.5, 40.0, 20.5), Vec3::NEG_Y), 100.0).unwrap();
    let cached = c.cache_stats().bytes;
    assert!(cached > 0);
    assert_eq!(c.heap_bytes(), parts + cached);
    c.clear_cache();
    assert_eq!(c.heap_bytes(), parts);
}
