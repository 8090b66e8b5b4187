//! Edits between and beside queries: after every edit, every composed query (ray casts, ray
//! marching, contacts, broadphase pairs) answers as a collider built fresh from the edited voxels.

mod common;

use common::{Rng, collider, flat, rays, terrain};
use glam::{IVec3, Vec3};
use rayon::prelude::*;
use voxel_contacts::{Capsule, Sphere};
use voxel_core::{Aabb, Contact, Ray, VoxelBox};
use voxel_physics::{
    Brush, Cast, ColliderOptions, ContactOptions, ContactScratch, PairKind, PhysicsError, Shape, TerrainCollider,
};
use voxel_store::generate::materials;

fn casts(world: VoxelBox, n: usize, seed: u64) -> Vec<Cast> {
    rays(world, n, seed).into_iter().map(|ray| Cast { ray, max_t: 150.0 }).collect()
}

/// Spheres and capsules scattered about the ground.
fn shapes(world: VoxelBox, n: usize, seed: u64) -> Vec<Shape<'static>> {
    let mut rng = Rng(seed);
    let hi = world.max.as_vec3();
    (0..n)
        .map(|i| {
            let c = rng.vec(Vec3::ZERO, hi);
            let r = rng.range(0.3, 2.5);
            if i % 2 == 0 {
                Shape::Sphere(Sphere { center: c, radius: r })
            } else {
                Shape::Capsule(Capsule { a: c, b: c + rng.direction() * 3.0, radius: r * 0.5 })
            }
        })
        .collect()
}

/// Every contact of every shape, in parallel, in shape order.
fn all_contacts(c: &TerrainCollider, shapes: &[Shape<'_>]) -> Vec<Vec<Contact>> {
    let options = ContactOptions { contact_distance: 0.1, ..ContactOptions::default() };
    shapes
        .par_iter()
        .map_init(ContactScratch::new, |scratch, s| {
            let mut out = Vec::new();
            c.contacts(s, &options, scratch, &mut out).unwrap();
            out
        })
        .collect()
}

/// Every query of the batch on `c` equals the same query on a collider built from `c`'s voxels.
fn check_against_fresh(c: &TerrainCollider, batch: &[Cast], shapes: &[Shape<'_>], round: usize) {
    let fresh = TerrainCollider::new(c.store().clone(), c.world(), ColliderOptions::default()).unwrap();
    let (mut ours, mut expect) = (Vec::new(), Vec::new());
    c.raycast_batch(batch, &mut ours);
    fresh.raycast_batch(batch, &mut expect);
    assert_eq!(ours, expect, "ray casts after round {round}");
    let (mut ours, mut expect) = (Vec::new(), Vec::new());
    c.raymarch_batch(batch, &mut ours);
    fresh.raymarch_batch(batch, &mut expect);
    assert_eq!(ours, expect, "ray marching after round {round}");
    assert_eq!(all_contacts(c, shapes), all_contacts(&fresh, shapes), "contacts after round {round}");
}

#[test]
fn edits_between_parallel_query_batches() {
    let (store, world) = terrain(IVec3::new(48, 32, 48), 21);
    let mut c = collider(store, world);
    let batch = casts(world, 800, 4);
    let shapes = shapes(world, 300, 5);
    let mut rng = Rng(77);
    let mut invalidated = 0;
    for round in 0..6 {
        // Warm the cache with the queries first, so the edit has cached chunks to invalidate.
        let mut out = Vec::new();
        c.raycast_batch(&batch, &mut out);
        let contacts = all_contacts(&c, &shapes);
        assert!(contacts.iter().any(|v| !v.is_empty()), "some shapes touch the ground");
        let center = rng.vec(Vec3::new(8.0, 8.0, 8.0), Vec3::new(40.0, 28.0, 40.0));
        let outcome = match round % 3 {
            0 => c.subtract(&Brush::Sphere { center, radius: rng.range(3.0, 8.0) }),
            1 => c.add(&Brush::Capsule { a: center, b: center + rng.direction() * 10.0, radius: 2.5 }, materials::ROCK),
            _ => c.edit(|s| {
                // Several store edits in one closure: their reports merged.
                let a = s.subtract(&Brush::Box { center, half_extents: Vec3::new(6.0, 2.0, 3.0) })?;
                let b = s.add(&Brush::Sphere { center: center + Vec3::X * 12.0, radius: 3.0 }, materials::DIRT)?;
                Ok(a.merge(&b))
            }),
        }
        .unwrap();
        assert!(outcome.report.changed_voxels > 0, "round {round} changed something");
        assert!(outcome.rebuilt_chunks > 0);
        assert!(c.cache_stats().invalidations > invalidated, "round {round} dropped cached chunks");
        invalidated = c.cache_stats().invalidations;
        check_against_fresh(&c, &batch, &shapes, round);
    }
}

#[test]
fn queries_racing_on_a_cold_cache_agree() {
    let (store, world) = terrain(IVec3::new(48, 32, 48), 8);
    let shared = collider(store.clone(), world);
    let reference = collider(store, world);
    let batch = casts(world, 400, 12);
    let expect: Vec<_> = batch.iter().map(|c| reference.raycast(&c.ray, c.max_t)).collect();
    // Four threads cast the same rays at once on a cold cache: they miss the same chunks together.
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| s.spawn(|| batch.iter().map(|c| shared.raycast(&c.ray, c.max_t)).collect::<Vec<_>>()))
            .collect();
        for h in handles {
            assert_eq!(h.join().unwrap(), expect);
        }
    });
    let stats = shared.cache_stats();
    assert_eq!(stats.entries, reference.cache_stats().entries, "one entry per chunk, however many built it");
}

#[test]
fn the_world_grows_to_hold_edits_outside_it() {
    let (store, world) = flat(IVec3::new(32, 24, 32), 8);
    let mut c = collider(store, world);
    let ray = Ray::new(Vec3::new(50.0, 30.0, 10.0), Vec3::NEG_Y);
    assert!(c.raycast(&ray, 100.0).is_none() && c.raymarch(&ray, 100.0).is_none());
    c.add(&Brush::Sphere { center: Vec3::new(50.0, 12.0, 10.0), radius: 4.0 }, materials::ROCK).unwrap();
    assert!(c.world().contains(IVec3::new(50, 12, 10)), "{:?}", c.world());
    let hit = c.raycast(&ray, 100.0).unwrap();
    assert!((hit.point.y - 16.0).abs() < 0.3, "{hit:?}");
    let marched = c.raymarch(&ray, 100.0).unwrap();
    assert_eq!(marched.voxel.y, 15);
    // Contacts find it too.
    let mut out = Vec::new();
    let ball = Shape::Sphere(Sphere { center: Vec3::new(50.0, 16.3, 10.0), radius: 0.6 });
    let mut scratch = ContactScratch::new();
    let report = c.contacts(&ball, &ContactOptions::default(), &mut scratch, &mut out).unwrap();
    assert!(!out.is_empty(), "{hit:?} {report:?} {:?} {:?}", scratch.chunk_hits(), scratch.candidates().len());
}

#[test]
fn terrain_edits_move_object_pairs() {
    let (store, world) = flat(IVec3::new(32, 24, 32), 8);
    let mut c = collider(store, world);
    let mut events = Vec::new();
    // A crate resting on the ground (surface at y = 7.5).
    c.insert_object(1, Aabb::new(Vec3::new(10.0, 7.5, 10.0), Vec3::new(11.0, 8.5, 11.0)), &mut events).unwrap();
    assert!(events.iter().any(|e| e.added && e.kind == PairKind::Solid));
    assert!(c.object_pairs(1).unwrap().iter().any(|h| h.solid));
    // Dig the ground out from under it: its solid pairs go.
    let dig =
        c.subtract(&Brush::Box { center: Vec3::new(10.5, 4.0, 10.5), half_extents: Vec3::new(6.0, 5.0, 6.0) }).unwrap();
    assert!(dig.pair_events.iter().any(|e| !e.added && e.kind == PairKind::Solid && e.object == 1), "{dig:?}");
    assert!(c.object_pairs(1).unwrap().iter().all(|h| !h.solid));
    // Fill it back: they return.
    let fill = c
        .add(
            &Brush::Box { center: Vec3::new(10.5, 4.0, 10.5), half_extents: Vec3::new(6.0, 3.6, 6.0) },
            materials::ROCK,
        )
        .unwrap();
    assert!(fill.pair_events.iter().any(|e| e.added && e.kind == PairKind::Solid && e.object == 1), "{fill:?}");
    // Moving and removing go through the broadphase.
    events.clear();
    c.update_objects(&[(1, Aabb::new(Vec3::splat(20.0), Vec3::splat(21.0)))], &mut events).unwrap();
    assert!(events.iter().all(|e| !e.added));
    c.remove_object(1, &mut events).unwrap();
    assert!(c.object_pairs(1).is_none());
    assert!(matches!(c.remove_object(1, &mut events), Err(PhysicsError::Broadphase(_))));
    assert!(matches!(
        c.insert_object(2, Aabb::new(Vec3::splat(f32::NAN), Vec3::ONE), &mut events),
        Err(PhysicsError::Broadphase(_))
    ));
}

#[test]
fn failed_edits_change_nothing() {
    let (store, world) = terrain(IVec3::new(32, 24, 32), 3);
    let mut c = collider(store, world);
    let batch = casts(world, 200, 6);
    let mut before = Vec::new();
    c.raycast_batch(&batch, &mut before);
    let cached = c.cache_stats().entries;
    let unknown = c.add(&Brush::Sphere { center: Vec3::splat(10.0), radius: 4.0 }, 200);
    assert!(matches!(unknown, Err(PhysicsError::Store(_))), "{unknown:?}");
    let nan = c.subtract(&Brush::Sphere { center: Vec3::new(f32::NAN, 1.0, 1.0), radius: 4.0 });
    assert!(matches!(nan, Err(PhysicsError::InvalidParameter(_))), "{nan:?}");
    let far = c.subtract(&Brush::Sphere { center: Vec3::splat(2.0e6), radius: 4.0 });
    assert!(matches!(far, Err(PhysicsError::InvalidParameter(_))), "{far:?}");
    let negative = c.subtract(&Brush::Sphere { center: Vec3::splat(10.0), radius: -1.0 });
    assert!(matches!(negative, Err(PhysicsError::Store(_))), "{negative:?}");
    let huge = c.fill_box(VoxelBox::new(IVec3::splat(-(1 << 21)), IVec3::ZERO), voxel_core::Voxel::EMPTY);
    assert!(huge.is_err());
    assert_eq!(c.cache_stats().entries, cached);
    assert_eq!(c.world(), world);
    let mut after = Vec::new();
    c.raycast_batch(&batch, &mut after);
    assert_eq!(before, after);
    // An edit that changes nothing refreshes nothing.
    let same = c.subtract(&Brush::Sphere { center: Vec3::new(16.0, 200.0, 16.0), radius: 3.0 }).unwrap();
    assert_eq!(same.report.changed_voxels, 0);
    assert_eq!(same.rebuilt_chunks, 0);
}
