//! Shape casts: analytic drops and ledges, skins, starts in contact, bad input, and the snag scenes
//! (shapes resting on, or a skin above, tessellated ground swept sideways must never hit, and a
//! hit on a flat or concave stretch carries the face's normal).

mod common;

use common::{Soup, angle, gather_all, plane, surface_nets_chunks};
use glam::{IVec3, Quat, Vec3};
use voxel_contacts::{
    Candidates, Capsule, CastHit, CastOptions, ContactError, ConvexPolyhedron, Cuboid, Pose, Shape, ShapeCaster, Sphere,
};
use voxel_core::{Aabb, Feature, VoxelBox};

/// A hexagonal prism of radius 0.3 and height 0.3, centred.
static PRISM: std::sync::LazyLock<ConvexPolyhedron> = std::sync::LazyLock::new(|| {
    let mut points = Vec::new();
    for y in [-0.15, 0.15] {
        for k in 0..6 {
            let a = k as f32 * core::f32::consts::TAU / 6.0;
            points.push(Vec3::new(0.3 * a.cos(), y, 0.3 * a.sin()));
        }
    }
    let mut faces: Vec<Vec<u32>> = (0..6u32).map(|k| vec![k, 6 + k, 6 + (k + 1) % 6, (k + 1) % 6]).collect();
    faces.push((0..6).collect());
    faces.push((6..12).rev().collect());
    ConvexPolyhedron::new(points, &faces).unwrap()
});

fn cast(shape: &Shape<'_>, motion: Vec3, set: &Candidates, options: &CastOptions) -> Option<CastHit> {
    ShapeCaster::new().cast(shape, motion, set, options).unwrap()
}

fn all(meshes: &[Soup]) -> Candidates {
    let mut set = Candidates::new();
    gather_all(meshes, &Aabb::new(Vec3::splat(-1e6), Vec3::splat(1e6)), &mut set);
    set
}

fn opts(max_t: f32, skin: f32) -> CastOptions {
    CastOptions { max_t, skin, ..CastOptions::default() }
}

/// A grid of `nx` x `nz` quads of size `cell` from `origin`, height `h(x)` added, facing up.
fn height_grid(origin: Vec3, nx: usize, nz: usize, cell: f32, h: impl Fn(f32) -> f32) -> Soup {
    let mut s = Soup::default();
    for z in 0..=nz {
        for x in 0..=nx {
            let (px, pz) = (origin.x + x as f32 * cell, origin.z + z as f32 * cell);
            s.positions.push(Vec3::new(px, origin.y + h(px), pz));
        }
    }
    let id = |x: usize, z: usize| (z * (nx + 1) + x) as u32;
    for z in 0..nz {
        for x in 0..nx {
            let (a, b, c, d) = (id(x, z), id(x + 1, z), id(x + 1, z + 1), id(x, z + 1));
            if (x + z) % 2 == 0 {
                s.triangles.extend([[a, d, c], [a, c, b]]);
            } else {
                s.triangles.extend([[a, d, b], [b, d, c]]);
            }
        }
    }
    s
}

// ---------------------------------------------------------------------------------------------
// Analytic

#[test]
fn shapes_dropped_on_a_plane_stop_at_the_exact_time_with_the_face_normal() {
    let set = all(&[plane(Vec3::new(-4.0, 0.0, -4.0), 32, 0.25, 7)]);
    let c = Vec3::new(0.31, 2.0, -0.27);
    let tilted = Quat::from_rotation_z(core::f32::consts::FRAC_PI_4) * Quat::from_rotation_y(0.3);
    let cases: Vec<(Shape<'_>, f32)> = vec![
        (Shape::Sphere(Sphere { center: c, radius: 0.5 }), 1.5),
        (Shape::Capsule(Capsule { a: c - Vec3::X * 0.5, b: c + Vec3::X * 0.5, radius: 0.3 }), 1.7),
        (Shape::Capsule(Capsule { a: c, b: c + Vec3::new(0.2, 1.0, 0.1), radius: 0.3 }), 1.7),
        (
            Shape::Cuboid(Cuboid {
                half_extents: Vec3::new(0.4, 0.3, 0.2),
                pose: Pose::new(Quat::from_rotation_y(0.5), c),
            }),
            1.7,
        ),
        (
            Shape::Cuboid(Cuboid { half_extents: Vec3::new(0.4, 0.3, 0.2), pose: Pose::new(tilted, c) }),
            // The lowest corner of the tilted box: 2 - (0.4 + 0.3) sin 45 - ... measured below.
            f32::NAN,
        ),
        (Shape::Convex { hull: &PRISM, pose: Pose::from_translation(c) }, 1.85),
    ];
    for (shape, expected) in cases {
        let expected = if expected.is_nan() {
            // Height of the lowest corner, from the box's own corners.
            let Shape::Cuboid(b) = shape else { unreachable!() };
            let m = glam::Mat3::from_quat(b.pose.rotation);
            let low = (0..8)
                .map(|i| {
                    let s = Vec3::new(
                        if i & 1 == 0 { -1.0 } else { 1.0 },
                        if i & 2 == 0 { -1.0 } else { 1.0 },
                        if i & 4 == 0 { -1.0 } else { 1.0 },
                    );
                    (m * (s * b.half_extents)).y
                })
                .fold(f32::INFINITY, f32::min);
            2.0 + low
        } else {
            expected
        };
        for skin in [0.0, 0.02] {
            let hit = cast(&shape, Vec3::NEG_Y, &set, &opts(5.0, skin)).expect("lands");
            assert!(
                (hit.t - (expected - skin)).abs() < 1e-5,
                "{shape:?} skin {skin}: t {} vs {}",
                hit.t,
                expected - skin
            );
            assert!(angle(hit.normal, Vec3::Y) < 1e-6, "{shape:?}: normal {}", hit.normal);
            assert!((hit.depth + skin).abs() < 1e-6);
            assert!(hit.point.y.abs() < 1e-5, "the point is on the plane: {}", hit.point);
        }
        // Too short a cast: no hit.
        assert!(cast(&shape, Vec3::NEG_Y, &set, &opts(expected * 0.99, 0.0)).is_none());
    }
}

/// Floor at y = 0 for x < 0, a riser at x = 0 facing -X, a ledge top at y = 1 for x > 0; every
/// part its own mesh (the riser's edges meet the floor and the top at the same positions).
fn ledge() -> Vec<Soup> {
    let floor = height_grid(Vec3::new(-6.0, 0.0, -3.0), 12, 12, 0.5, |_| 0.0);
    let top = height_grid(Vec3::new(0.0, 1.0, -3.0), 12, 12, 0.5, |_| 0.0);
    let mut riser = Soup::default();
    for k in 0..=12 {
        let z = -3.0 + k as f32 * 0.5;
        riser.positions.extend([Vec3::new(0.0, 0.0, z), Vec3::new(0.0, 1.0, z)]);
    }
    for k in 0..12u32 {
        let (a, b, c, d) = (2 * k, 2 * k + 1, 2 * k + 3, 2 * k + 2);
        // Facing -X.
        riser.triangles.extend([
            common::facing_ids(&riser, [a, b, c], Vec3::NEG_X),
            common::facing_ids(&riser, [a, c, d], Vec3::NEG_X),
        ]);
    }
    vec![floor, riser, top]
}

#[test]
fn a_ball_rolling_into_a_ledge_stops_on_its_edge_with_the_true_normal() {
    let set = all(&ledge());
    // Centre 0.2 above the ledge's height: it meets the convex edge at x = -sqrt(0.25 - 0.04).
    let ball = Shape::Sphere(Sphere { center: Vec3::new(-3.0, 1.2, 0.1), radius: 0.5 });
    let hit = cast(&ball, Vec3::X, &set, &opts(10.0, 0.0)).expect("stops at the edge");
    let x = -(0.21f32).sqrt();
    assert!((hit.t - (3.0 + x)).abs() < 1e-5, "t {}", hit.t);
    let expected = Vec3::new(x, 0.2, 0.0) / 0.5;
    assert!(angle(hit.normal, expected) < 1e-4, "normal {} vs {expected}", hit.normal);
    assert!(matches!(hit.feature, Feature::Edge(..)));
    // Lower, it meets the riser's face.
    let low = Shape::Sphere(Sphere { center: Vec3::new(-3.0, 0.6, 0.1), radius: 0.5 });
    let hit = cast(&low, Vec3::X, &set, &opts(10.0, 0.0)).expect("stops at the riser");
    assert!((hit.t - 2.5).abs() < 1e-5);
    assert!(angle(hit.normal, Vec3::NEG_X) < 1e-6);
    assert_eq!(hit.feature, Feature::Face);
    // Higher than the ledge plus the radius: it passes.
    let high = Shape::Sphere(Sphere { center: Vec3::new(-3.0, 1.51, 0.1), radius: 0.5 });
    assert!(cast(&high, Vec3::X, &set, &opts(10.0, 0.0)).is_none());
}

#[test]
fn boxes_and_capsules_sliding_into_a_ledge_stop_on_the_riser() {
    let set = all(&ledge());
    let resting_box = Shape::Cuboid(Cuboid {
        half_extents: Vec3::new(0.5, 0.5, 0.3),
        pose: Pose::from_translation(Vec3::new(-3.0, 0.5, 0.2)),
    });
    let resting_capsule =
        Shape::Capsule(Capsule { a: Vec3::new(-3.0, 0.3, -0.5), b: Vec3::new(-3.0, 0.3, 0.5), radius: 0.3 });
    for (shape, front) in [(resting_box, 0.5), (resting_capsule, 0.3)] {
        for skin in [0.0, 0.01] {
            let hit = cast(&shape, Vec3::X, &set, &opts(10.0, skin)).expect("stops");
            assert!((hit.t - (3.0 - front - skin)).abs() < 1e-5, "{shape:?}: t {}", hit.t);
            assert!(angle(hit.normal, Vec3::NEG_X) < 1e-6, "{shape:?}: normal {}", hit.normal);
        }
    }
    // A box whose bottom clears the ledge's top passes over it.
    let above = Shape::Cuboid(Cuboid {
        half_extents: Vec3::new(0.5, 0.5, 0.3),
        pose: Pose::from_translation(Vec3::new(-3.0, 1.51, 0.2)),
    });
    assert!(cast(&above, Vec3::X, &set, &opts(10.0, 0.0)).is_none());
}

#[test]
fn a_graze_at_exactly_the_skin_is_no_hit_and_a_deeper_pass_is() {
    // A vertical post's convex corner at the origin: faces x = 0 (facing -X) and z = 0 (facing -Z).
    let mut post = Soup::default();
    post.positions = vec![
        Vec3::new(0.0, -2.0, 2.0),
        Vec3::new(0.0, 2.0, 2.0),
        Vec3::new(0.0, -2.0, 0.0),
        Vec3::new(0.0, 2.0, 0.0),
        Vec3::new(2.0, -2.0, 0.0),
        Vec3::new(2.0, 2.0, 0.0),
    ];
    post.triangles = vec![
        common::facing_ids(&post, [0, 1, 3], Vec3::NEG_X),
        common::facing_ids(&post, [0, 3, 2], Vec3::NEG_X),
        common::facing_ids(&post, [2, 3, 5], Vec3::NEG_Z),
        common::facing_ids(&post, [2, 5, 4], Vec3::NEG_Z),
    ];
    let set = all(&[post]);
    let skin = 0.05;
    // Moving +X past the corner with the gap at its closest exactly the skin: tangent, no hit.
    let pass = |gap: f32| {
        let ball = Shape::Sphere(Sphere { center: Vec3::new(-2.0, 0.0, -(0.5 + gap)), radius: 0.5 });
        cast(&ball, Vec3::X, &set, &opts(4.0, skin))
    };
    assert!(pass(skin + 1e-4).is_none());
    assert!(pass(skin).is_none());
    // Within the skin of the wall beside its path, it glides along the wall: no hit.
    assert!(pass(0.02).is_none());
    // Into the wall's plane, the corner stops it when the gap to the corner reaches the skin.
    let hit = pass(-0.1).expect("the corner is reached");
    // Distance from the corner: sqrt(x^2 + 0.4^2) = 0.55.
    let x = -(0.55f32 * 0.55 - 0.4 * 0.4).sqrt();
    assert!((hit.t - (2.0 + x)).abs() < 1e-4, "t {}", hit.t);
    assert!(matches!(hit.feature, Feature::Edge(..)));
}

#[test]
fn starting_in_contact_or_overlapping() {
    let set = all(&[plane(Vec3::new(-4.0, 0.0, -4.0), 16, 0.5, 3)]);
    let resting = Shape::Sphere(Sphere { center: Vec3::new(0.1, 0.5, 0.2), radius: 0.5 });
    let sunk = Shape::Sphere(Sphere { center: Vec3::new(0.1, 0.4, 0.2), radius: 0.5 });
    let side = Vec3::new(1.0, 0.0, 0.4);
    for stop in [false, true] {
        let o = CastOptions { max_t: 2.0, skin: 0.01, stop_at_penetration: stop, ..CastOptions::default() };
        // Pressing into it is a hit at once, with the face's normal and the current depth.
        let hit = cast(&resting, Vec3::NEG_Y, &set, &o).expect("pressing in");
        assert_eq!(hit.t, 0.0);
        assert!(angle(hit.normal, Vec3::Y) < 1e-6);
        assert!(hit.depth.abs() < 1e-6);
        let hit = cast(&sunk, Vec3::new(0.3, -1.0, 0.0), &set, &o).expect("pressing deeper");
        assert_eq!(hit.t, 0.0);
        assert!((hit.depth - 0.1).abs() < 1e-6);
        // Leaving or sliding on it: never when resting.
        assert!(cast(&resting, Vec3::Y, &set, &o).is_none());
        assert!(cast(&resting, side, &set, &o).is_none());
        // Overlapping and sliding: a hit at once only when asked to stop at penetration.
        let hit = cast(&sunk, side, &set, &o);
        assert_eq!(hit.is_some(), stop);
        if let Some(hit) = hit {
            assert_eq!(hit.t, 0.0);
            assert!(angle(hit.normal, Vec3::Y) < 1e-6);
            assert!((hit.depth - 0.1).abs() < 1e-6);
        }
    }
}

#[test]
fn bad_input_is_refused_with_a_typed_error() {
    let set = all(&[plane(Vec3::ZERO, 2, 1.0, 0)]);
    let ball = Shape::Sphere(Sphere { center: Vec3::Y, radius: 0.5 });
    let mut caster = ShapeCaster::new();
    let o = CastOptions::default();
    for motion in [Vec3::ZERO, Vec3::NAN, Vec3::new(f32::INFINITY, 0.0, 0.0), Vec3::splat(1e30)] {
        assert!(matches!(caster.cast(&ball, motion, &set, &o), Err(ContactError::InvalidOptions(_))), "{motion}");
    }
    for (max_t, skin) in [(-1.0, 0.0), (f32::NAN, 0.0), (f32::INFINITY, 0.0), (1.0, -0.1), (1.0, f32::NAN)] {
        let o = CastOptions { max_t, skin, ..o };
        assert!(matches!(caster.cast(&ball, Vec3::X, &set, &o), Err(ContactError::InvalidOptions(_))));
    }
    let bad = Shape::Sphere(Sphere { center: Vec3::NAN, radius: 0.5 });
    assert_eq!(caster.cast(&bad, Vec3::X, &set, &o), Err(ContactError::InvalidShape));
    // Degenerate and non-finite triangles are skipped.
    let mut junk = Candidates::new();
    junk.push(0, [Vec3::ZERO; 3], [0, 1, 2]);
    junk.push(1, [Vec3::NAN, Vec3::X, Vec3::Z], [3, 4, 5]);
    junk.push(2, [Vec3::ZERO, Vec3::X, Vec3::X * 2.0], [6, 7, 8]);
    assert_eq!(caster.cast(&ball, Vec3::NEG_Y, &junk, &opts(5.0, 0.0)), Ok(None));
    // Empty set.
    assert_eq!(caster.cast(&ball, Vec3::NEG_Y, &Candidates::new(), &opts(5.0, 0.0)), Ok(None));
}

// ---------------------------------------------------------------------------------------------
// Snag scenes

/// The test shapes resting with their lowest point at height `y` over `(x, z)`.
fn resting_shapes(x: f32, z: f32, y: f32, yaw: f32) -> Vec<Shape<'static>> {
    let half = Quat::from_rotation_y(yaw) * Vec3::new(0.4, 0.0, 0.0);
    let c = Vec3::new(x, y + 0.2, z);
    let tilt = Quat::from_rotation_y(yaw) * Vec3::new(0.4, 0.1, 0.0);
    vec![
        Shape::Sphere(Sphere { center: Vec3::new(x, y + 0.3, z), radius: 0.3 }),
        Shape::Capsule(Capsule { a: c - half, b: c + half, radius: 0.2 }),
        Shape::Capsule(Capsule { a: c, b: c + 2.0 * tilt, radius: 0.2 }),
        Shape::Capsule(Capsule { a: c, b: c + Vec3::Y * 0.5, radius: 0.2 }),
        Shape::Cuboid(Cuboid {
            half_extents: Vec3::new(0.35, 0.2, 0.25),
            pose: Pose::new(Quat::from_rotation_y(yaw), Vec3::new(x, y + 0.2, z)),
        }),
        Shape::Convex { hull: &PRISM, pose: Pose::new(Quat::from_rotation_y(yaw), Vec3::new(x, y + 0.15, z)) },
    ]
}

/// Sweeps every shape, resting and a skin above ground at height `ground(x, z)`, sideways in 16
/// directions and four distances; returns the hits (there should be none).
fn sideways_hits(set: &Candidates, area: (Vec3, Vec3), ground: impl Fn(f32, f32) -> f32) -> Vec<String> {
    let skin = 0.01;
    let mut caster = ShapeCaster::new();
    let mut hits = Vec::new();
    let mut step = 0;
    for gz in 0..5 {
        for gx in 0..5 {
            let x = area.0.x + (area.1.x - area.0.x) * (gx as f32 + 0.37) / 5.0;
            let z = area.0.z + (area.1.z - area.0.z) * (gz as f32 + 0.61) / 5.0;
            for lift in [0.0, skin] {
                step += 1;
                for shape in resting_shapes(x, z, ground(x, z) + lift, step as f32 * 0.37) {
                    for k in 0..16 {
                        let a = k as f32 * core::f32::consts::TAU / 16.0 + 0.05;
                        for dist in [0.13, 0.5, 1.0, 1.7] {
                            let motion = Vec3::new(a.cos(), 0.0, a.sin()) * dist;
                            let o = CastOptions { max_t: 1.0, skin, ..CastOptions::default() };
                            if let Some(hit) = caster.cast(&shape, motion, set, &o).unwrap() {
                                hits.push(format!("{shape:?} lift {lift} along {motion}: {hit:?}"));
                            }
                        }
                    }
                }
            }
        }
    }
    hits
}

/// Sweeps every shape from above down at a slant onto the ground; every hit normal must be the
/// face normal `up` (the ground is flat or the shapes land on one flat side).
fn slanted_landings(set: &Candidates, area: (Vec3, Vec3), up: Vec3, ground: impl Fn(f32, f32) -> f32) -> usize {
    let mut caster = ShapeCaster::new();
    let mut count = 0;
    for gz in 0..6 {
        for gx in 0..6 {
            let x = area.0.x + (area.1.x - area.0.x) * (gx as f32 + 0.29) / 6.0;
            let z = area.0.z + (area.1.z - area.0.z) * (gz as f32 + 0.53) / 6.0;
            for (i, shape) in resting_shapes(x, z, ground(x, z) + 0.4, (gx * 7 + gz) as f32).into_iter().enumerate() {
                let a = (gx * 6 + gz + i) as f32 * 0.9;
                let motion = Vec3::new(a.cos() * 0.3, -1.0, a.sin() * 0.3);
                let o = CastOptions { max_t: 1.0, skin: 0.01, ..CastOptions::default() };
                let hit = caster.cast(&shape, motion, set, &o).unwrap().expect("lands");
                assert!(angle(hit.normal, up) < 1e-4, "{shape:?} along {motion}: normal {} vs {up}", hit.normal);
                assert_eq!(hit.feature, Feature::Face, "{shape:?}");
                count += 1;
            }
        }
    }
    count
}

#[test]
fn no_snag_on_a_finely_tessellated_plane() {
    let set = all(&[plane(Vec3::new(-4.0, 0.0, -4.0), 64, 0.125, 11)]);
    let area = (Vec3::new(-1.5, 0.0, -1.5), Vec3::new(1.5, 0.0, 1.5));
    let hits = sideways_hits(&set, area, |_, _| 0.0);
    assert!(hits.is_empty(), "{} snags, first: {}", hits.len(), hits[0]);
    assert!(slanted_landings(&set, area, Vec3::Y, |_, _| 0.0) > 0);
}

#[test]
fn no_snag_across_a_seam_and_t_junctions_between_two_meshes() {
    // Two meshes meet at x = 0; the right one's cells are twice as large, so every other left
    // vertex on the seam lies inside a right edge (a T-junction).
    let left = height_grid(Vec3::new(-4.0, 0.0, -4.0), 16, 32, 0.25, |_| 0.0);
    let right = height_grid(Vec3::new(0.0, 0.0, -4.0), 8, 16, 0.5, |_| 0.0);
    let set = all(&[left, right]);
    let area = (Vec3::new(-1.5, 0.0, -1.5), Vec3::new(1.5, 0.0, 1.5));
    let hits = sideways_hits(&set, area, |_, _| 0.0);
    assert!(hits.is_empty(), "{} snags, first: {}", hits.len(), hits[0]);
    assert!(slanted_landings(&set, area, Vec3::Y, |_, _| 0.0) > 0);
}

#[test]
fn no_snag_on_flat_surface_nets_terrain_across_many_chunks() {
    let meshes = surface_nets_chunks(VoxelBox::new(IVec3::new(0, -8, 0), IVec3::new(32, 8, 32)), 8, |p| p.y - 0.3);
    assert!(meshes.len() >= 16, "{} chunk meshes", meshes.len());
    let ys: Vec<f32> = meshes.iter().flat_map(|m| m.positions.iter().map(|p| p.y)).collect();
    let ground = ys.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    assert!(ys.iter().all(|&y| (y - ground).abs() < 1e-6), "the terrain is flat");
    let set = all(&meshes);
    let area = (Vec3::new(4.0, 0.0, 4.0), Vec3::new(28.0, 0.0, 28.0));
    let hits = sideways_hits(&set, area, |_, _| ground);
    assert!(hits.is_empty(), "{} snags, first: {}", hits.len(), hits[0]);
    assert!(slanted_landings(&set, area, Vec3::Y, |_, _| ground) > 0);
}

#[test]
fn no_snag_along_a_ten_degree_valley_and_face_normals_across_it() {
    let slope = 5f32.to_radians().tan();
    let valley = height_grid(Vec3::new(-4.0, 0.0, -4.0), 32, 32, 0.25, |x| x.abs() * slope);
    let set = all(&[valley]);
    let (left, right) = (Vec3::new(slope, 1.0, 0.0).normalize(), Vec3::new(-slope, 1.0, 0.0).normalize());
    let mut caster = ShapeCaster::new();
    let skin = 0.01;
    let o = CastOptions { max_t: 1.0, skin, ..CastOptions::default() };
    // A ball resting in the valley touches both sides: along the valley it never hits.
    let r = 0.3;
    let cos = 5f32.to_radians().cos();
    for z in [-1.3f32, 0.0, 0.77] {
        for lift in [0.0, skin] {
            let ball = Shape::Sphere(Sphere { center: Vec3::new(0.0, r / cos + lift, z), radius: r });
            for dist in [0.3, 1.0, 2.5] {
                for dir in [Vec3::Z, Vec3::NEG_Z] {
                    assert_eq!(caster.cast(&ball, dir * dist, &set, &o).unwrap(), None, "z {z} lift {lift}");
                }
            }
            // Across: it presses into one side at once, with that side's normal.
            for (dir, side) in [(Vec3::X, right), (Vec3::NEG_X, left)] {
                let hit = caster.cast(&ball, dir, &set, &o).unwrap().expect("presses into the side");
                assert!(angle(hit.normal, side) < 1e-4, "normal {} vs {side}", hit.normal);
            }
        }
    }
    // Every shape sliding down the valley's side towards the crease meets the other side on its
    // face, never on the crease's edges.
    for (x, z) in [(-2.0f32, 0.3f32), (-1.5, -1.0), (-2.5, 1.1)] {
        let ground = x.abs() * slope;
        for shape in resting_shapes(x, z, ground + 0.06, 0.4) {
            // Along the left side's downhill direction, then on across.
            let motion = Vec3::new(1.0, -slope, 0.0) * 4.0;
            if let Some(hit) = caster.cast(&shape, motion, &set, &o).unwrap() {
                assert!(angle(hit.normal, right) < 1e-4, "{shape:?}: normal {} vs {right}", hit.normal);
                assert_eq!(hit.feature, Feature::Face);
            } else {
                panic!("{shape:?} must meet the other side");
            }
        }
    }
    // Sideways on each flat side, parallel to it: nothing.
    for shape in resting_shapes(-2.0, 0.0, 2.0 * slope, 0.2) {
        for dir in [Vec3::Z, Vec3::NEG_Z] {
            assert_eq!(caster.cast(&shape, dir * 2.0, &set, &o).unwrap(), None, "{shape:?}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Cases from an independent audit (minimal repros, exact values)

fn set_of(tris: &[[Vec3; 3]]) -> Candidates {
    let mut s = Candidates::new();
    for (i, t) in tris.iter().enumerate() {
        let k = 3 * i as u32;
        s.push(i as u32, *t, [k, k + 1, k + 2]);
    }
    s
}

/// A floor at y = 0 for x < 0, a riser at x = 0 of height `h`, a top at y = `h` for x > 0.
fn step(h: f32) -> Vec<[Vec3; 3]> {
    let w = 5.0;
    let v = |x: f32, y: f32, z: f32| Vec3::new(x, y, z);
    vec![
        [v(-w, 0., -w), v(-w, 0., w), v(0., 0., w)],
        [v(-w, 0., -w), v(0., 0., w), v(0., 0., -w)],
        [v(0., 0., -w), v(0., 0., w), v(0., h, w)],
        [v(0., 0., -w), v(0., h, w), v(0., h, -w)],
        [v(0., h, -w), v(0., h, w), v(w, h, w)],
        [v(0., h, -w), v(w, h, w), v(w, h, -w)],
    ]
}

#[test]
fn a_turned_box_sliding_over_a_flat_sliver_does_not_snag() {
    // Its normal computed from the corners turned into the box's frame was off by 1.5e-5 rad.
    let tris = vec![[
        Vec3::new(-0.40479338, 0.0, -2.7905524),
        Vec3::new(-0.40479338, 0.0, -2.785847),
        Vec3::new(1.0360559, 0.0, -2.7905524),
    ]];
    let shape = Shape::Cuboid(Cuboid {
        half_extents: Vec3::new(0.48513845, 0.5730925, 0.9784053),
        pose: Pose::new(
            Quat::from_xyzw(0.340586, -0.83761585, 0.41479236, 0.10172546),
            Vec3::new(-1.4111764, 1.2264562, -1.2958806),
        ),
    });
    let hit = cast(&shape, Vec3::new(3.1924393, 0.0, -4.7458034), &set_of(&tris), &opts(1.0, 0.0));
    assert_eq!(hit, None);
}

#[test]
fn a_tilted_box_resting_on_the_floor_stops_at_a_one_millimetre_step() {
    // The floor voided the riser's bottom edge; the riser then voided its own top edge, and the
    // box passed through the step.
    let shape = Shape::Cuboid(Cuboid {
        half_extents: Vec3::new(0.4183512, 0.35963362, 0.9677861),
        pose: Pose::new(
            Quat::from_xyzw(0.043683946, 0.12245067, 0.07340188, 0.98879206),
            Vec3::new(-1.8624815, 0.48579723, 0.30627406),
        ),
    });
    let hit = cast(&shape, Vec3::new(5.2572103, 0.0, 2.6694193), &set_of(&step(0.0010391427)), &opts(1.0, 0.0));
    let hit = hit.expect("the step stops it");
    // The reference (conservative advancement on parry3d's exact distance): 0.37431216.
    assert!((hit.t - 0.37431216).abs() * 5.9 < 1e-3, "t {}", hit.t);
}

#[test]
fn a_box_sliding_into_a_steep_crease_wall_stops_with_or_without_a_skin() {
    let tris = vec![
        [
            Vec3::new(-0.5479227, 0.27263805, 0.29153067),
            Vec3::new(-0.006333786, -0.0076935785, -0.004304941),
            Vec3::new(-0.8222258, -0.9987483, -0.55884945),
        ],
        [
            Vec3::new(-0.8222258, -0.9987483, -0.55884945),
            Vec3::new(-0.006333786, -0.0076935785, -0.004304941),
            Vec3::new(-0.5653515, -0.80175024, -1.2888495),
        ],
    ];
    let shape = Shape::Cuboid(Cuboid {
        half_extents: Vec3::new(0.29952732, 0.58453417, 0.17814891),
        pose: Pose::new(
            Quat::from_xyzw(0.46809697, -0.28066042, 0.06272694, -0.8355719),
            Vec3::new(-4.0207677, 0.3777368, 0.2619599),
        ),
    });
    let motion = Vec3::new(7.1117334, -1.1588562, -2.0997417);
    let mut last = f32::INFINITY;
    for skin in [0.0, 0.01, 0.05] {
        let hit = cast(&shape, motion, &set_of(&tris), &opts(1.0, skin)).expect("the wall stops it");
        // At skin 0 the reference gives 0.44840223; a skin stops it no later.
        assert!(hit.t <= 0.44840223 + 1e-5, "skin {skin}: t {}", hit.t);
        assert!(hit.t <= last + 1e-6);
        last = hit.t;
    }
}

#[test]
fn a_step_lower_than_the_gap_the_shape_glides_at_is_glided_over_and_a_higher_one_stops_it() {
    // A ball gliding a skin (0.05) over the floor: a step up of less than that gap is within the
    // skin band it already glides in; a higher one is a ledge.
    let ball = Shape::Sphere(Sphere { center: Vec3::new(-1.0, 0.55, 0.0), radius: 0.5 });
    let o = opts(1.0, 0.05);
    for h in [0.001, 0.02, 0.049] {
        assert_eq!(cast(&ball, Vec3::new(2.0, 0.0, 0.0), &set_of(&step(h)), &o), None, "step {h}");
    }
    let hit = cast(&ball, Vec3::new(2.0, 0.0, 0.0), &set_of(&step(0.06)), &o).expect("a ledge");
    assert!((hit.t - 0.37510005).abs() < 1e-5, "t {}", hit.t);
}
