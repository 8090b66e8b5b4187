//! Shape casts against an independent reference: conservative advancement on parry3d's exact
//! distance over every triangle (the gap shrinks by at most the distance travelled, so stepping
//! by the gap never steps over the first touch), on random Surface Nets terrain and on real
//! meshes; and a property test that the shape before the hit is clear and after it within the skin.

mod common;

use common::{Soup, surface_nets_chunks};
use glam::{IVec3, Quat, Vec3};
use parry3d::math::Pose as ParryPose;
use parry3d::shape::{Ball, Capsule as ParryCapsule, Cuboid as ParryCuboid, Shape as ParryShape, Triangle};
use proptest::prelude::*;
use voxel_contacts::{Candidates, Capsule, CastOptions, Cuboid, Pose, Shape, ShapeCaster, Sphere};
use voxel_core::{Aabb, Feature, TriangleSource, VoxelBox};
use voxel_testdata::Rng;

/// One of our shapes and its parry twin (shape and pose at the cast's start).
struct Twin {
    ours: Shape<'static>,
    parry: Box<dyn ParryShape>,
    pose: ParryPose,
}

fn sphere(at: Vec3, r: f32) -> Twin {
    Twin {
        ours: Shape::Sphere(Sphere { center: at, radius: r }),
        parry: Box::new(Ball::new(r)),
        pose: ParryPose::from_translation(at),
    }
}

fn capsule(at: Vec3, half: Vec3, r: f32) -> Twin {
    Twin {
        ours: Shape::Capsule(Capsule { a: at - half, b: at + half, radius: r }),
        parry: Box::new(ParryCapsule::new(-half, half, r)),
        pose: ParryPose::from_translation(at),
    }
}

fn cuboid(at: Vec3, half: Vec3, rotation: Quat) -> Twin {
    Twin {
        ours: Shape::Cuboid(Cuboid { half_extents: half, pose: Pose::new(rotation, at) }),
        parry: Box::new(ParryCuboid::new(half)),
        pose: ParryPose::from_parts(at, rotation),
    }
}

/// The exact gap between the twin moved by `offset` and the nearest triangle, and that
/// triangle's index.
fn gap(twin: &Twin, offset: Vec3, tris: &[[Vec3; 3]]) -> (f32, usize) {
    let pose = ParryPose::from_parts(twin.pose.translation + offset, twin.pose.rotation);
    let mut best = (f32::INFINITY, 0);
    for (i, t) in tris.iter().enumerate() {
        let tri = Triangle::new(t[0], t[1], t[2]);
        let d = parry3d::query::distance(&ParryPose::IDENTITY, &tri, &pose, twin.parry.as_ref()).unwrap().distance;
        if d < best.0 {
            best = (d, i);
        }
    }
    best
}

/// The first `t` at which the gap reaches `skin`, by conservative advancement; `None` when it
/// stays above it up to `max_t` or the advance stalls (a graze).
fn reference_toi(twin: &Twin, motion: Vec3, max_t: f32, skin: f32, tris: &[[Vec3; 3]]) -> Option<(f32, usize)> {
    let speed = motion.length();
    let mut t = 0.0f32;
    for _ in 0..20000 {
        let (g, i) = gap(twin, motion * t, tris);
        let ahead = g - skin;
        if ahead <= 2e-6 {
            return Some((t, i));
        }
        t += ahead / speed;
        if t > max_t {
            return None;
        }
    }
    None
}

/// The triangles of a scene whose box the cast's swept box (grown) reaches.
fn near(all: &[[Vec3; 3]], start: &Aabb, motion: Vec3, max_t: f32) -> Vec<[Vec3; 3]> {
    let end = Aabb::new(start.min + motion * max_t, start.max + motion * max_t);
    let swept = start.union(&end).grow(0.1);
    all.iter().copied().filter(|t| Aabb::from_points(*t).overlaps(&swept)).collect()
}

fn candidates(meshes: &[Soup]) -> (Candidates, Vec<[Vec3; 3]>) {
    let mut set = Candidates::new();
    common::gather_all(meshes, &Aabb::new(Vec3::splat(-1e6), Vec3::splat(1e6)), &mut set);
    let tris = (0..set.len()).map(|i| set.positions(i)).collect();
    (set, tris)
}

/// Hilly Surface Nets terrain over 24 x 24 voxels in 8^3 chunks.
fn terrain(seed: u64) -> Vec<Soup> {
    let mut rng = Rng(seed);
    let (a, b, c) = (rng.range(0.2, 0.5), rng.range(0.15, 0.4), rng.range(1.0, 3.0));
    surface_nets_chunks(VoxelBox::new(IVec3::new(0, -8, 0), IVec3::new(24, 16, 24)), 8, move |p| {
        p.y - c * ((p.x * a).sin() + (p.z * b).cos() + 0.5 * (p.x * b + p.z * a).sin())
    })
}

/// Compares our cast with the reference on one cast; returns whether it landed.
fn compare(twin: &Twin, motion: Vec3, max_t: f32, skin: f32, set: &Candidates, all: &[[Vec3; 3]]) -> bool {
    let tris = near(all, &twin.ours.aabb(), motion, max_t);
    let options = CastOptions { max_t, skin, ..CastOptions::default() };
    let ours = ShapeCaster::new().cast(&twin.ours, motion, set, &options).unwrap();
    let reference = reference_toi(twin, motion, max_t, skin, &tris);
    match (ours, reference) {
        (Some(hit), Some((t, i))) => {
            let along = (hit.t - t).abs() * motion.length();
            // Near a tangent touch `t` is ill-conditioned (the gap barely changes with it): there
            // the gap at our `t` must be the skin.
            let tangent = || (gap(twin, motion * hit.t, &tris).0 - skin).abs() <= 2e-5;
            assert!(
                along <= 1e-4 || tangent(),
                "{:?} along {motion}: ours {} reference {t} ({along} apart)",
                twin.ours,
                hit.t
            );
            if hit.feature == Feature::Face {
                let tri = tris[i];
                let n = (tri[1] - tri[0]).cross(tri[2] - tri[0]).normalize();
                // The reference's nearest triangle may be a neighbour in the same plane.
                assert!(
                    (hit.normal - n).length() < 1e-4 || (gap(twin, motion * t, &tris).0 - skin).abs() < 1e-4,
                    "{:?}: normal {} vs the nearest face's {n}",
                    twin.ours,
                    hit.normal
                );
            }
            true
        }
        (None, None) => false,
        // A reference that stalls on a graze, or grazes within its tolerance.
        (None, Some((t, _))) => {
            let g = gap(twin, motion * t, &tris).0;
            assert!(g >= skin - 1e-4, "{:?} along {motion}: missed a hit at {t} (gap {g})", twin.ours);
            false
        }
        (Some(hit), None) => {
            let g = gap(twin, motion * hit.t, &tris).0;
            assert!((g - skin).abs() <= 1e-4, "{:?} along {motion}: hit at {} where the gap is {g}", twin.ours, hit.t);
            true
        }
    }
}

fn random_twin(rng: &mut Rng, at: Vec3, polytopes: bool) -> Twin {
    match rng.next_u64() % if polytopes { 3 } else { 2 } {
        0 => sphere(at, rng.range(0.2, 1.2)),
        1 => {
            let half = Vec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)) * 0.6;
            capsule(at, half, rng.range(0.15, 0.7))
        }
        _ => {
            let axis =
                Vec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)).normalize_or(Vec3::Y);
            let half = Vec3::new(rng.range(0.2, 0.9), rng.range(0.2, 0.9), rng.range(0.2, 0.9));
            cuboid(at, half, Quat::from_axis_angle(axis, rng.range(0.0, 3.0)))
        }
    }
}

#[test]
fn casts_on_random_terrain_equal_conservative_advancement_on_exact_distance() {
    let mut landed = 0;
    for seed in 1..=3 {
        let (set, all) = candidates(&terrain(seed));
        let mut rng = Rng(100 + seed);
        for i in 0..40 {
            let start = Vec3::new(rng.range(4.0, 20.0), rng.range(9.0, 12.0), rng.range(4.0, 20.0));
            let motion = Vec3::new(rng.range(-0.6, 0.6), -1.0, rng.range(-0.6, 0.6));
            // Round shapes with and without a skin; boxes measure their skin along axes, so the
            // Euclidean reference checks them without one.
            let polytopes = i % 2 == 0;
            let twin = random_twin(&mut rng, start, polytopes);
            let skin = if matches!(twin.ours, Shape::Cuboid(_)) || i % 3 == 0 { 0.0 } else { 0.02 };
            landed += usize::from(compare(&twin, motion, 16.0, skin, &set, &all));
        }
    }
    assert!(landed > 80, "{landed} of 120 casts landed");
}

#[test]
fn casts_on_real_meshes_equal_conservative_advancement_on_exact_distance() {
    let mut landed = 0;
    for file in ["meshes/classic/bunny-lowpoly.obj", "meshes/cad/featuretype.stl"] {
        let mesh = voxel_testdata::load_mesh(&voxel_testdata::testdata_file(file)).unwrap();
        // Scaled to a few units across: parry's distance tolerances are absolute.
        let scale = 6.0 / mesh.aabb().size().max_element();
        let soup = Soup {
            positions: mesh.positions().iter().map(|&p| p * scale).collect(),
            triangles: (0..mesh.triangle_count() as u32).map(|t| mesh.triangle(t)).collect(),
        };
        let (set, all) = candidates(&[soup]);
        let bounds = Aabb::new(mesh.aabb().min * scale, mesh.aabb().max * scale);
        let (centre, radius) = (bounds.center(), bounds.size().length() * 0.5);
        let mut rng = Rng(7);
        for i in 0..40 {
            // From outside the bounding sphere towards a point near the middle.
            let dir = Vec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)).normalize_or(Vec3::X);
            let size = radius * 0.08;
            let start = centre + dir * (radius + 3.0 * size);
            let aim =
                centre + Vec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)) * radius * 0.3;
            let twin = match i % 3 {
                0 => sphere(start, size),
                1 => capsule(start, dir.cross(Vec3::Y).normalize_or(Vec3::X) * size, size * 0.5),
                _ => cuboid(start, Vec3::new(size, size * 0.7, size * 0.5), Quat::from_rotation_x(i as f32)),
            };
            let skin = if i % 3 == 2 { 0.0 } else { size * 0.05 };
            landed += usize::from(compare(&twin, aim - start, 2.0, skin, &set, &all));
        }
    }
    assert!(landed > 50, "{landed} of 80 casts landed");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Just before the reported `t` the shape is clear of every triangle by at least (about) the
    /// skin; just after it, within the skin of one.
    #[test]
    fn before_the_hit_clear_after_it_within_the_skin(
        seed in 1u64..1000,
        x in 6.0f32..18.0, z in 6.0f32..18.0,
        dx in -0.3f32..0.3, dz in -0.3f32..0.3,
        kind in 0u32..3, skin in prop_oneof![Just(0.0f32), 0.005f32..0.05],
    ) {
        let (set, all) = candidates(&terrain(seed % 4));
        let mut rng = Rng(seed);
        let start = Vec3::new(x, 11.0, z);
        let twin = match kind {
            0 => sphere(start, rng.range(0.2, 1.0)),
            1 => capsule(start, Vec3::new(rng.range(-0.5, 0.5), rng.range(-0.5, 0.5), 0.3), rng.range(0.2, 0.5)),
            _ => cuboid(start, Vec3::new(0.5, 0.3, 0.4), Quat::from_rotation_y(rng.range(0.0, 3.0))),
        };
        let skin = if kind == 2 { 0.0 } else { skin };
        let motion = Vec3::new(dx, -1.0, dz);
        let options = CastOptions { max_t: 20.0, skin, ..CastOptions::default() };
        let hit = ShapeCaster::new().cast(&twin.ours, motion, &set, &options).unwrap();
        let tris = near(&all, &twin.ours.aabb(), motion, 20.0);
        let hit = hit.expect("terrain below every start");
        let eps = 1e-3;
        let before = gap(&twin, motion * (hit.t - eps).max(0.0), &tris).0;
        let after = gap(&twin, motion * (hit.t + eps), &tris).0;
        prop_assert!(before >= skin - 1e-4, "before: gap {} skin {}", before, skin);
        prop_assert!(after <= skin + 1e-4 || after < before, "after: gap {} skin {}", after, skin);
        prop_assert!(gap(&twin, motion * hit.t, &tris).0 >= skin - 1e-4);
    }
}
