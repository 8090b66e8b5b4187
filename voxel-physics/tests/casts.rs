//! Shape casts against the terrain: the chunk walk equals one sweep over every triangle of every
//! chunk mesh, a zero-radius ball is a ray, chunk seams never snag, batches are deterministic, and
//! contacts at a hit's pose agree with it.

mod common;

use std::sync::OnceLock;

use common::{BruteWorld, Rng, collider, flat, terrain};
use glam::{IVec3, Quat, Vec3};
use voxel_contacts::{Candidates, Capsule, CastOptions, ContactOptions, Cuboid, Pose, ShapeCaster, Sphere};
use voxel_core::{Contact, Ray, TriangleSource};
use voxel_physics::{CastScratch, ContactScratch, PhysicsError, Shape, ShapeCast, TerrainCollider};

struct Fixture {
    collider: TerrainCollider,
    everything: Candidates,
}

/// A 48 x 40 x 48 world with hills, caves and water, and every triangle of it in one set.
fn hills() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let (store, world) = terrain(IVec3::new(48, 40, 48), 11);
        let brute = BruteWorld::new(&store, world);
        let mut everything = Candidates::new();
        let mut base = 0;
        for (_, mesh) in &brute.chunks {
            for t in 0..mesh.triangle_count() as u32 {
                everything.push(
                    everything.len() as u32,
                    mesh.triangle_positions(t),
                    mesh.triangle(t).map(|v| v + base),
                );
            }
            base += mesh.vertex_count() as u32;
        }
        Fixture { collider: collider(store, world), everything }
    })
}

fn random_shape(rng: &mut Rng, at: Vec3) -> Shape<'static> {
    match rng.next_u64() % 3 {
        0 => Shape::Sphere(Sphere { center: at, radius: rng.range(0.2, 1.5) }),
        1 => {
            let half = rng.direction() * rng.range(0.1, 1.0);
            Shape::Capsule(Capsule { a: at - half, b: at + half, radius: rng.range(0.2, 0.8) })
        }
        _ => {
            let rotation = Quat::from_axis_angle(rng.direction(), rng.range(0.0, 3.0));
            let half_extents = rng.vec(Vec3::splat(0.2), Vec3::splat(1.0));
            Shape::Cuboid(Cuboid { half_extents, pose: Pose::new(rotation, at) })
        }
    }
}

#[test]
fn casts_over_the_chunk_walk_equal_one_sweep_over_every_triangle() {
    let f = hills();
    let mut rng = Rng(21);
    let mut scratch = CastScratch::new();
    let mut caster = ShapeCaster::new();
    let mut hits = 0;
    for i in 0..300 {
        let start = rng.vec(Vec3::new(2.0, 30.0, 2.0), Vec3::new(46.0, 44.0, 46.0));
        let shape = random_shape(&mut rng, start);
        // Mostly down, some long and diagonal (several pieces), some short.
        let motion = Vec3::new(rng.range(-1.0, 1.0), rng.range(-1.5, -0.3), rng.range(-1.0, 1.0));
        let max_t = if i % 4 == 0 { 5.0 } else { 60.0 };
        let skin = if i % 3 == 0 { 0.0 } else { 0.02 };
        let options = CastOptions { max_t, skin, ..CastOptions::default() };
        let ours = f.collider.cast_shape(&shape, motion, &options, &mut scratch).unwrap();
        let reference = caster.cast(&shape, motion, &f.everything, &options).unwrap();
        match (ours, reference) {
            (None, None) => {}
            (Some(a), Some(b)) => {
                hits += 1;
                assert!((a.hit.t - b.t).abs() <= 1e-4 * (1.0 + b.t), "{shape:?} {motion}: {} vs {}", a.hit.t, b.t);
                if b.feature == voxel_core::Feature::Face && a.hit.feature == voxel_core::Feature::Face {
                    assert!((a.hit.normal - b.normal).length() < 1e-4, "{shape:?}: {} vs {}", a.hit.normal, b.normal);
                }
            }
            (a, b) => panic!("{shape:?} along {motion} max_t {max_t}: {a:?} vs {b:?}"),
        }
    }
    assert!(hits > 100, "many casts land ({hits})");
}

#[test]
fn a_zero_radius_ball_is_a_ray() {
    let f = hills();
    let mut rng = Rng(5);
    let mut scratch = CastScratch::new();
    let mut checked = 0;
    for _ in 0..400 {
        let origin = rng.vec(Vec3::new(1.0, 36.0, 1.0), Vec3::new(47.0, 39.5, 47.0));
        let dir = Vec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, -0.2), rng.range(-1.0, 1.0));
        let ray = Ray::new(origin, dir);
        let by_ray = f.collider.raycast(&ray, 100.0);
        let ball = Shape::Sphere(Sphere { center: origin, radius: 0.0 });
        let options = CastOptions { max_t: 100.0, ..CastOptions::default() };
        let by_cast = f.collider.cast_shape(&ball, dir, &options, &mut scratch).unwrap();
        match (by_ray, by_cast) {
            (None, None) => {}
            (Some(r), Some(c)) => {
                checked += 1;
                assert!((r.t - c.hit.t).abs() <= 1e-4 * (1.0 + r.t), "{ray:?}: ray {} cast {}", r.t, c.hit.t);
                assert!((r.normal - c.hit.normal).length() < 1e-4, "{ray:?}: {} vs {}", r.normal, c.hit.normal);
            }
            (r, c) => panic!("{ray:?}: ray {r:?} cast {c:?}"),
        }
    }
    assert!(checked > 120, "{checked} rays hit");
}

#[test]
fn shapes_sliding_across_chunk_seams_of_flat_ground_never_hit() {
    let (store, world) = flat(IVec3::new(64, 16, 64), 8);
    let collider = collider(store, world);
    // The surface lies half-way between voxel rows 7 and 8.
    let ground = 7.5;
    let mut scratch = CastScratch::new();
    let mut casts = 0;
    for (k, start) in
        [Vec3::new(3.3, 0.0, 4.1), Vec3::new(15.9, 0.0, 8.0), Vec3::new(8.0, 0.0, 31.7)].iter().enumerate()
    {
        for lift in [0.0, 0.01] {
            let y = ground + lift;
            let shapes = [
                Shape::Sphere(Sphere { center: *start + Vec3::Y * (y + 0.4), radius: 0.4 }),
                Shape::Capsule(Capsule {
                    a: *start + Vec3::new(-0.5, y + 0.3, 0.1),
                    b: *start + Vec3::new(0.5, y + 0.3, -0.1),
                    radius: 0.3,
                }),
                Shape::Cuboid(Cuboid {
                    half_extents: Vec3::new(0.6, 0.4, 0.3),
                    pose: Pose::new(Quat::from_rotation_y(0.3 * k as f32), *start + Vec3::Y * (y + 0.4)),
                }),
            ];
            for shape in shapes {
                for a in 0..12 {
                    let angle = a as f32 * core::f32::consts::TAU / 12.0 + 0.1;
                    // Long enough to cross several chunk borders and several cast pieces.
                    let motion = Vec3::new(angle.cos(), 0.0, angle.sin()) * 24.0;
                    let options = CastOptions { max_t: 1.0, skin: 0.01, ..CastOptions::default() };
                    let hit = collider.cast_shape(&shape, motion, &options, &mut scratch).unwrap();
                    // Paths that leave the world meet its cut edge: stop before that.
                    let end = shape.aabb().center() + motion;
                    let inside = end.x > 2.0 && end.x < 62.0 && end.z > 2.0 && end.z < 62.0;
                    if inside {
                        casts += 1;
                        assert_eq!(hit, None, "{shape:?} along {motion}");
                    }
                }
            }
        }
    }
    assert!(casts > 50);
}

#[test]
fn batches_equal_single_casts_for_any_thread_count() {
    let f = hills();
    let mut rng = Rng(77);
    let casts: Vec<ShapeCast<'static>> = (0..500)
        .map(|_| {
            let at = rng.vec(Vec3::new(2.0, 25.0, 2.0), Vec3::new(46.0, 42.0, 46.0));
            let shape = random_shape(&mut rng, at);
            ShapeCast { shape, motion: Vec3::new(rng.range(-1.0, 1.0), -1.0, rng.range(-1.0, 1.0)) * 20.0 }
        })
        .collect();
    let options = CastOptions { max_t: 1.0, skin: 0.01, ..CastOptions::default() };
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let mut out = Vec::new();
        f.collider.clear_cache();
        pool.install(|| f.collider.cast_shapes(&casts, &options, &mut out));
        out.into_iter().map(|r| r.unwrap()).collect::<Vec<_>>()
    };
    let one = run(1);
    assert_eq!(one, run(2));
    let mut scratch = CastScratch::new();
    for (c, expected) in casts.iter().zip(&one) {
        assert_eq!(&f.collider.cast_shape(&c.shape, c.motion, &options, &mut scratch).unwrap(), expected);
    }
    assert!(one.iter().filter(|h| h.is_some()).count() > 250);
}

#[test]
fn contacts_at_the_hit_pose_agree_with_the_hit() {
    let f = hills();
    let mut rng = Rng(3);
    let mut scratch = CastScratch::new();
    let mut contact_scratch = ContactScratch::new();
    let skin = 0.02;
    let mut checked = 0;
    for _ in 0..200 {
        let at = rng.vec(Vec3::new(2.0, 30.0, 2.0), Vec3::new(46.0, 40.0, 46.0));
        let radius = rng.range(0.3, 1.2);
        let ball = Sphere { center: at, radius };
        let motion = Vec3::new(rng.range(-0.5, 0.5), -1.0, rng.range(-0.5, 0.5));
        let options = CastOptions { max_t: 60.0, skin, ..CastOptions::default() };
        let Some(hit) = f.collider.cast_shape(&Shape::Sphere(ball), motion, &options, &mut scratch).unwrap() else {
            continue;
        };
        // Placed at the hit and moved the skin towards the surface, it touches: the deepest
        // contact's normal is the hit's.
        let center = at + motion * hit.hit.t - hit.hit.normal * skin;
        let placed = Shape::Sphere(Sphere { center, radius });
        let mut contacts: Vec<Contact> = Vec::new();
        let o = ContactOptions { contact_distance: 1e-3, max_points: 0, ..ContactOptions::default() };
        f.collider.contacts(&placed, &o, &mut contact_scratch, &mut contacts).unwrap();
        let deepest = contacts.iter().max_by(|a, b| a.depth.total_cmp(&b.depth)).expect("it touches");
        assert!(deepest.depth.abs() < 2e-3, "touching: {deepest:?}");
        // An edge or vertex hit's normal lies between its faces' normals; at a near tie with a
        // face beside it (nearly coplanar facets, 1 degree apart) the pose's deepest contact can
        // be that face's, as one sweep over every triangle also reports the edge there.
        let tolerance = if hit.hit.feature == voxel_core::Feature::Face { 2e-3 } else { 0.02 };
        assert!((deepest.normal - hit.hit.normal).length() < tolerance, "{:?} vs {deepest:?}", hit.hit);
        checked += 1;
    }
    assert!(checked > 100);
}

#[test]
fn bad_casts_are_refused() {
    let f = hills();
    let mut scratch = CastScratch::new();
    let ball = Shape::Sphere(Sphere { center: Vec3::splat(20.0), radius: 0.5 });
    let o = CastOptions::default();
    for motion in [Vec3::ZERO, Vec3::NAN, Vec3::splat(f32::INFINITY)] {
        assert!(matches!(f.collider.cast_shape(&ball, motion, &o, &mut scratch), Err(PhysicsError::Contacts(_))));
    }
    let nan = Shape::Sphere(Sphere { center: Vec3::NAN, radius: 0.5 });
    assert!(matches!(f.collider.cast_shape(&nan, Vec3::X, &o, &mut scratch), Err(PhysicsError::Contacts(_))));
    // Far away from the world: nothing, quickly (no piece is walked).
    let far = Shape::Sphere(Sphere { center: Vec3::splat(1e8), radius: 0.5 });
    assert_eq!(f.collider.cast_shape(&far, Vec3::X, &CastOptions { max_t: 1e3, ..o }, &mut scratch).unwrap(), None);
    // From far away towards the world: the same answer as from near it.
    let near_start = Vec3::new(24.0, 60.0, 24.0);
    let near = Shape::Sphere(Sphere { center: near_start, radius: 0.5 });
    let far_start = near_start + Vec3::Y * 1e5;
    let from_far = Shape::Sphere(Sphere { center: far_start, radius: 0.5 });
    let a = f.collider.cast_shape(&near, Vec3::NEG_Y, &CastOptions { max_t: 100.0, ..o }, &mut scratch).unwrap();
    let b = f.collider.cast_shape(&from_far, Vec3::NEG_Y, &CastOptions { max_t: 2e5, ..o }, &mut scratch).unwrap();
    let (a, b) = (a.expect("lands"), b.expect("lands"));
    assert!((a.hit.t + 1e5 - b.hit.t).abs() < 0.02, "{} vs {}", a.hit.t, b.hit.t);
}

#[test]
fn shapes_sliding_along_a_slanted_plane_never_hit() {
    // A plane falling 20 degrees along (1, 0, 0.6): its mesh crosses seams on every axis, and the
    // quantized distances move its vertices up to about 0.01 off the plane.
    let down = Vec3::new(1.0, 0.0, 0.6).normalize();
    let tan = 20f32.to_radians().tan();
    let height = |x: f32, z: f32| 40.0 - tan * (x * down.x + z * down.z);
    let normal = Vec3::new(tan * down.x, 1.0, tan * down.z).normalize();
    let size = IVec3::new(96, 48, 64);
    let mut store = voxel_store::VoxelStore::with_palette(voxel_store::generate::palette());
    let world = voxel_core::VoxelBox::new(IVec3::ZERO, size);
    voxel_store::generate::from_fn(&mut store, world, |p| {
        let d = (p.y as f32 - height(p.x as f32, p.z as f32)) * normal.y;
        let material =
            if d < 0.0 { voxel_store::generate::materials::ROCK } else { voxel_store::generate::materials::AIR };
        voxel_core::Voxel::new(voxel_store::quantize(d), material)
    })
    .unwrap();
    let collider = collider(store, world);
    let along = Quat::from_rotation_arc(Vec3::Y, normal);
    let mut scratch = CastScratch::new();
    let mut rng = Rng(5);
    let mut casts = 0;
    while casts < 300 {
        let (x, z) = (rng.range(10.0, 86.0), rng.range(10.0, 54.0));
        // 3 cm of clearance from the plane: more than the vertices' offsets and the skin.
        let foot = Vec3::new(x, height(x, z), z) + normal * 0.03;
        let yaw = Quat::from_rotation_y(rng.range(0.0, 6.3));
        let shape = match casts % 3 {
            0 => Shape::Sphere(Sphere { center: foot + normal * 0.4, radius: 0.4 }),
            1 => {
                let half = along * yaw * Vec3::new(0.5, 0.0, 0.0);
                Shape::Capsule(Capsule { a: foot + normal * 0.3 - half, b: foot + normal * 0.3 + half, radius: 0.3 })
            }
            _ => Shape::Cuboid(Cuboid {
                half_extents: Vec3::new(0.6, 0.4, 0.3),
                pose: Pose::new(along * yaw, foot + normal * 0.4),
            }),
        };
        let angle = rng.range(0.0, 6.3);
        let motion = along * Vec3::new(angle.cos(), 0.0, angle.sin()) * 20.0;
        let end = foot + motion;
        if !(4.0..92.0).contains(&end.x) || !(4.0..60.0).contains(&end.z) {
            continue;
        }
        let options = CastOptions { max_t: 1.0, skin: 0.01, ..CastOptions::default() };
        let hit = collider.cast_shape(&shape, motion, &options, &mut scratch).unwrap();
        assert_eq!(hit, None, "{shape:?} along {motion}");
        casts += 1;
    }
}
