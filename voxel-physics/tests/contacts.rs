//! Contacts against the terrain: the candidates of every chunk a shape touches in one set, position
//! keys across seams, no ghost normals on flat ground, every shape kind.

mod common;

use common::{BruteWorld, Rng, collider, cube, flat, terrain};
use glam::{IVec3, Quat, Vec3};
use voxel_contacts::{Capsule, Cuboid, FeatureKeys, Pose, Sphere};
use voxel_core::{Contact, VoxelBox};
use voxel_physics::{ContactOptions, ContactScratch, PhysicsError, Shape, TerrainCollider};

/// Ground at y = 16 (surface at 15.5), in a 48^3 world.
fn ground() -> (TerrainCollider, BruteWorld) {
    let (store, world) = flat(IVec3::new(48, 32, 48), 16);
    let brute = BruteWorld::new(&store, world);
    (collider(store, world), brute)
}

const SURFACE: f32 = 15.5;

fn contacts_of(c: &TerrainCollider, shape: &Shape<'_>, options: &ContactOptions) -> (Vec<Contact>, ContactScratch) {
    let mut scratch = ContactScratch::new();
    let mut out = Vec::new();
    c.contacts(shape, options, &mut scratch, &mut out).unwrap();
    (out, scratch)
}

#[test]
fn shapes_on_flat_ground_across_seams_push_straight_up() {
    let (c, _) = ground();
    let options = ContactOptions { contact_distance: 0.02, ..ContactOptions::default() };
    let poly = cube(0.6);
    let mut checked = 0;
    // Every position in a 2x2 block of chunks at quarter-voxel steps, seams and corners included.
    for ix in 0..=32 {
        for iz in [0, 3, 4, 16, 31, 32] {
            let (x, z) = (8.0 + ix as f32 * 0.5, 8.0 + iz as f32 * 0.5);
            let shapes = [
                Shape::Sphere(Sphere { center: Vec3::new(x, SURFACE + 0.45, z), radius: 0.5 }),
                Shape::Capsule(Capsule {
                    a: Vec3::new(x - 1.0, SURFACE + 0.35, z),
                    b: Vec3::new(x + 1.0, SURFACE + 0.35, z + 0.5),
                    radius: 0.4,
                }),
                Shape::Cuboid(Cuboid {
                    half_extents: Vec3::new(0.9, 0.5, 0.6),
                    pose: Pose::from_translation(Vec3::new(x, SURFACE + 0.45, z)),
                }),
                Shape::Convex { hull: &poly, pose: Pose::from_translation(Vec3::new(x, SURFACE + 0.55, z)) },
            ];
            for shape in &shapes {
                let (contacts, _) = contacts_of(&c, shape, &options);
                assert!(!contacts.is_empty() && contacts.len() <= 4, "{shape:?}: {contacts:?}");
                for k in &contacts {
                    assert!(k.normal.abs_diff_eq(Vec3::Y, 1e-5), "ghost normal at ({x}, {z}): {shape:?} {k:?}");
                    assert!((k.point.y - SURFACE).abs() < 1e-4, "{k:?}");
                    assert!((k.depth - 0.05).abs() < 1e-3 || matches!(shape, Shape::Capsule(_)), "{shape:?} {k:?}");
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 700);
}

/// Boxes resting exactly on flat ground (a gap of rounding, about 1e-7), turned about the
/// vertical: the closest pair of a triangle whose nearest part is an edge differs by rounding, so
/// its direction would tilt the normal (2-31 degrees off vertical); the separating axis does not.
#[test]
fn boxes_resting_on_flat_ground_push_straight_up() {
    let (c, _) = ground();
    let options = ContactOptions { contact_distance: 0.01, ..ContactOptions::default() };
    let mut rng = Rng(7);
    let mut contacts_seen = 0;
    for _ in 0..600 {
        let he = Vec3::new(rng.range(0.2, 1.5), rng.range(0.2, 1.2), rng.range(0.2, 1.5));
        let yaw = Quat::from_rotation_y(rng.range(0.0, std::f32::consts::TAU));
        let (x, z) = (rng.range(10.0, 38.0), rng.range(10.0, 38.0));
        let shape = Shape::Cuboid(Cuboid { half_extents: he, pose: Pose::new(yaw, Vec3::new(x, SURFACE + he.y, z)) });
        let (contacts, _) = contacts_of(&c, &shape, &options);
        for k in &contacts {
            assert!(k.normal.abs_diff_eq(Vec3::Y, 1e-5), "ghost normal: {shape:?} {k:?}");
        }
        contacts_seen += contacts.len();
    }
    assert!(contacts_seen > 600, "{contacts_seen}");
}

#[test]
fn candidates_are_every_triangle_in_the_box_from_every_chunk() {
    let (store, world) = terrain(IVec3::new(48, 40, 48), 13);
    let brute = BruteWorld::new(&store, world);
    let c = collider(store, world);
    let options = ContactOptions { contact_distance: 0.1, ..ContactOptions::default() };
    let mut rng = Rng(3);
    let mut total = 0;
    for _ in 0..300 {
        let center = rng.vec(Vec3::splat(2.0), Vec3::new(46.0, 38.0, 46.0));
        let radius = rng.range(0.2, 4.0);
        let shape = Shape::Sphere(Sphere { center, radius });
        let (_, scratch) = contacts_of(&c, &shape, &options);
        let mut ours: Vec<(IVec3, u32)> = scratch.candidates().iter().map(|t| (t.chunk, t.triangle)).collect();
        let mut expect = brute.overlapping(&shape.aabb().grow(0.1));
        ours.sort_by_key(|(k, t)| (k.y, k.z, k.x, *t));
        expect.sort_by_key(|(k, t)| (k.y, k.z, k.x, *t));
        assert_eq!(ours, expect, "{shape:?}");
        total += ours.len();
        // Candidates name their material as the chunk mesh does.
        for t in scratch.candidates() {
            let shape = c.chunk_shape(t.chunk).unwrap();
            assert_eq!(shape.mesh().materials()[t.triangle as usize], t.material);
        }
    }
    assert!(total > 1000, "the spheres met the surface ({total} candidates)");
}

#[test]
fn contacts_are_deterministic_across_threads_and_cache_states() {
    let (store, world) = terrain(IVec3::new(40, 32, 40), 17);
    let c = collider(store, world);
    let mut rng = Rng(8);
    let shapes: Vec<Shape<'static>> = (0..200)
        .map(|_| {
            let p = rng.vec(Vec3::splat(2.0), Vec3::new(38.0, 30.0, 38.0));
            Shape::Cuboid(Cuboid {
                half_extents: Vec3::new(1.0, 0.6, 0.8),
                pose: Pose::new(Quat::from_axis_angle(rng.direction(), rng.range(0.0, 3.0)), p),
            })
        })
        .collect();
    let options = ContactOptions::default();
    let serial: Vec<Vec<Contact>> = shapes.iter().map(|s| contacts_of(&c, s, &options).0).collect();
    assert!(serial.iter().filter(|v| !v.is_empty()).count() > 20);
    c.clear_cache();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    let parallel: Vec<Vec<Contact>> = pool.install(|| {
        use rayon::prelude::*;
        shapes.par_iter().map(|s| contacts_of(&c, s, &options).0).collect()
    });
    assert_eq!(serial, parallel);
}

#[test]
fn tracked_objects_use_their_pairs() {
    let (mut c, _) = ground();
    let ball = Sphere { center: Vec3::new(16.0, SURFACE + 0.4, 16.0), radius: 0.5 };
    let mut events = Vec::new();
    let bounds = voxel_core::Aabb::new(ball.center - 0.5, ball.center + 0.5);
    c.insert_object(9, bounds, &mut events).unwrap();
    let options = ContactOptions::default();
    let (direct, _) = contacts_of(&c, &Shape::Sphere(ball), &options);
    let mut tracked = Vec::new();
    c.object_contacts(9, &Shape::Sphere(ball), &options, &mut ContactScratch::new(), &mut tracked).unwrap();
    assert_eq!(direct, tracked);
    assert!(!tracked.is_empty());
    let unknown = c.object_contacts(10, &Shape::Sphere(ball), &options, &mut ContactScratch::new(), &mut tracked);
    assert!(matches!(unknown, Err(PhysicsError::Broadphase(_))));
}

#[test]
fn index_keys_see_seams_as_borders() {
    // With vertex-id keys each chunk is its own mesh: a ball just past the seam gets a face
    // contact from its own chunk and a ghost contact on the seam edge of the other, pushing it
    // sideways. Position keys (the default) join the seam and void that edge. On flat ground the
    // seam between chunks 1 and 2 lies at x = 15.5, through the vertices of the cubes [15, 16].
    let (c, _) = ground();
    let ball = Shape::Sphere(Sphere { center: Vec3::new(15.7, SURFACE + 0.45, 12.3), radius: 0.5 });
    let by_index = ContactOptions { keys: FeatureKeys::Indices, max_points: 0, ..ContactOptions::default() };
    let by_position = ContactOptions { max_points: 0, ..ContactOptions::default() };
    let (a, _) = contacts_of(&c, &ball, &by_index);
    let (b, _) = contacts_of(&c, &ball, &by_position);
    assert!(a.len() >= b.len() && !b.is_empty(), "{a:?}\n{b:?}");
    assert!(a.iter().any(|k| !k.normal.abs_diff_eq(Vec3::Y, 1e-3)), "{a:?}");
    assert!(b.iter().all(|k| k.normal.abs_diff_eq(Vec3::Y, 1e-5)));
    assert!(a.iter().all(|k| k.normal.is_finite() && (k.normal.length() - 1.0).abs() < 1e-4));
}

#[test]
fn far_and_bad_shapes() {
    let (c, _) = ground();
    let options = ContactOptions::default();
    let (far, scratch) =
        contacts_of(&c, &Shape::Sphere(Sphere { center: Vec3::new(20.0, 28.0, 20.0), radius: 1.0 }), &options);
    assert!(far.is_empty() && scratch.chunk_hits().is_empty() && scratch.candidates().is_empty());
    // Inside solid rock: the chunk is full, there is no surface to touch.
    let (deep, _) =
        contacts_of(&c, &Shape::Sphere(Sphere { center: Vec3::new(20.0, 4.0, 20.0), radius: 1.0 }), &options);
    assert!(deep.is_empty());
    let mut out = Vec::new();
    let mut scratch = ContactScratch::new();
    let nan = Shape::Sphere(Sphere { center: Vec3::new(f32::NAN, 1.0, 1.0), radius: 1.0 });
    assert!(matches!(c.contacts(&nan, &options, &mut scratch, &mut out), Err(PhysicsError::Contacts(_))));
    let negative = Shape::Sphere(Sphere { center: Vec3::ONE, radius: -1.0 });
    assert!(matches!(c.contacts(&negative, &options, &mut scratch, &mut out), Err(PhysicsError::Contacts(_))));
    let bad_distance = ContactOptions { contact_distance: f32::NAN, ..options };
    let ball = Shape::Sphere(Sphere { center: Vec3::new(20.0, SURFACE, 20.0), radius: 1.0 });
    assert!(matches!(c.contacts(&ball, &bad_distance, &mut scratch, &mut out), Err(PhysicsError::Contacts(_))));
    let too_many = ContactOptions { max_points: 9, ..options };
    assert!(matches!(c.contacts(&ball, &too_many, &mut scratch, &mut out), Err(PhysicsError::Contacts(_))));
    let huge = Shape::Sphere(Sphere { center: Vec3::ZERO, radius: 1.0e6 });
    assert!(matches!(c.contacts(&huge, &options, &mut scratch, &mut out), Err(PhysicsError::Broadphase(_))));
    assert!(out.is_empty(), "nothing delivered on error");
    let _ = VoxelBox::EMPTY;
}
