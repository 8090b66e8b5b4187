//! Bad input gets a typed error or a documented no-op, never a panic or NaN contacts.

use core::ops::ControlFlow;

use glam::{Quat, Vec3};
use voxel_contacts::{
    Candidates, Capsule, ContactError, ContactGenerator, ContactOptions, ConvexPolyhedron, Cuboid, Pose, Shape, Sphere,
};
use voxel_core::{Contact, FnSink};

fn floor() -> Candidates {
    let mut set = Candidates::new();
    let v =
        [Vec3::new(-1.0, 0.0, -1.0), Vec3::new(-1.0, 0.0, 1.0), Vec3::new(1.0, 0.0, 1.0), Vec3::new(1.0, 0.0, -1.0)];
    set.push(0, [v[0], v[1], v[2]], [0, 1, 2]);
    set.push(1, [v[0], v[2], v[3]], [0, 2, 3]);
    set
}

#[test]
fn non_finite_or_negative_shapes_are_refused() {
    let bad = [
        Shape::Sphere(Sphere { center: Vec3::new(f32::NAN, 0.0, 0.0), radius: 1.0 }),
        Shape::Sphere(Sphere { center: Vec3::ZERO, radius: -1.0 }),
        Shape::Sphere(Sphere { center: Vec3::ZERO, radius: f32::INFINITY }),
        Shape::Capsule(Capsule { a: Vec3::ZERO, b: Vec3::splat(f32::INFINITY), radius: 0.5 }),
        Shape::Capsule(Capsule { a: Vec3::ZERO, b: Vec3::Y, radius: f32::NAN }),
        Shape::Cuboid(Cuboid { half_extents: Vec3::new(1.0, -1.0, 1.0), pose: Pose::IDENTITY }),
        Shape::Cuboid(Cuboid {
            half_extents: Vec3::ONE,
            pose: Pose::new(Quat::from_xyzw(0.0, 0.0, 0.0, 2.0), Vec3::ZERO),
        }),
        Shape::Cuboid(Cuboid { half_extents: Vec3::ONE, pose: Pose::from_translation(Vec3::new(0.0, f32::NAN, 0.0)) }),
    ];
    let mut generator = ContactGenerator::new();
    for shape in bad {
        let mut out: Vec<Contact> = Vec::new();
        let r = generator.generate(&shape, &floor(), &ContactOptions::default(), &mut out);
        assert_eq!(r, Err(ContactError::InvalidShape), "{shape:?}");
        assert!(out.is_empty());
        assert!(shape.aabb().is_empty(), "a bad shape's box is empty");
    }
}

#[test]
fn huge_finite_shapes_are_refused_not_turned_into_nan() {
    let big = voxel_contacts::MAX_SHAPE_COORDINATE.as_f32() * 2.0;
    let bad = [
        Shape::Sphere(Sphere { center: Vec3::new(0.1, 1e20, 0.2), radius: 1e20 }),
        Shape::Sphere(Sphere { center: Vec3::ZERO, radius: big }),
        Shape::Capsule(Capsule { a: Vec3::new(-3e38, 0.5, -3e38), b: Vec3::new(3e38, 0.5, 3e38), radius: 0.5 }),
        Shape::Cuboid(Cuboid {
            half_extents: Vec3::splat(2e38),
            pose: Pose::new(Quat::from_rotation_x(0.3), Vec3::ZERO),
        }),
        Shape::Cuboid(Cuboid { half_extents: Vec3::ONE, pose: Pose::from_translation(Vec3::new(big, 0.0, 0.0)) }),
    ];
    for shape in bad {
        let mut out: Vec<Contact> = Vec::new();
        assert_eq!(
            ContactGenerator::new().generate(&shape, &floor(), &ContactOptions::default(), &mut out),
            Err(ContactError::InvalidShape),
            "{shape:?}"
        );
        assert!(out.is_empty());
    }
    // Within the limit, far from the origin: finite contacts.
    let far = Vec3::new(1e6, 0.0, -1e6);
    let mut set = Candidates::new();
    set.push(
        0,
        [far + Vec3::new(-4.0, 0.0, -4.0), far + Vec3::new(-4.0, 0.0, 4.0), far + Vec3::new(4.0, 0.0, 0.0)],
        [0, 1, 2],
    );
    let mut out: Vec<Contact> = Vec::new();
    let ball = Shape::Sphere(Sphere { center: far + Vec3::new(0.0, 0.4, 0.0), radius: 0.5 });
    ContactGenerator::new().generate(&ball, &set, &ContactOptions::default(), &mut out).unwrap();
    assert_eq!(out.len(), 1);
    assert!(out[0].point.is_finite() && (out[0].depth - 0.1).abs() < 0.07);
}

#[test]
fn rotations_slightly_off_unit_still_give_unit_normals() {
    // |q| = 1.0009: accepted (within 1e-3), normalized before use.
    let q = Quat::from_rotation_z(core::f32::consts::FRAC_PI_4) * 1.0009;
    let slab =
        Shape::Cuboid(Cuboid { half_extents: Vec3::new(0.3, 0.3, 0.3), pose: Pose::new(q, Vec3::new(0.0, 0.4, 0.0)) });
    let mut out: Vec<Contact> = Vec::new();
    ContactGenerator::new().generate(&slab, &floor(), &ContactOptions::default(), &mut out).unwrap();
    assert!(!out.is_empty());
    for c in &out {
        assert!((c.normal.length() - 1.0).abs() < 1e-5, "{c:?}");
        assert!(c.normal.cross(Vec3::Y).length() < 1e-5, "{c:?}");
    }
}

#[test]
fn bad_options_are_refused() {
    let ball = Shape::Sphere(Sphere { center: Vec3::new(0.0, 0.4, 0.0), radius: 0.5 });
    let mut generator = ContactGenerator::new();
    for options in [
        ContactOptions { contact_distance: f32::NAN, ..ContactOptions::default() },
        ContactOptions { contact_distance: -0.1, ..ContactOptions::default() },
        ContactOptions { contact_distance: f32::INFINITY, ..ContactOptions::default() },
        ContactOptions { max_points: 5, ..ContactOptions::default() },
    ] {
        let mut out: Vec<Contact> = Vec::new();
        assert!(matches!(
            generator.generate(&ball, &floor(), &options, &mut out),
            Err(ContactError::InvalidOptions(_))
        ));
        assert!(out.is_empty());
    }
}

#[test]
fn degenerate_and_non_finite_triangles_are_skipped_and_counted() {
    let mut set = floor();
    set.push(2, [Vec3::ZERO, Vec3::X, Vec3::X * 2.0], [4, 5, 6]); // no area
    set.push(3, [Vec3::ZERO, Vec3::ZERO, Vec3::ZERO], [7, 7, 7]); // a point
    set.push(4, [Vec3::new(f32::NAN, 0.0, 0.0), Vec3::X, Vec3::Z], [8, 9, 10]);
    set.push(5, [Vec3::splat(f32::INFINITY), Vec3::X, Vec3::Z], [11, 12, 13]);
    let hull = ConvexPolyhedron::new(
        vec![
            Vec3::new(0.0, -0.2, 0.0),
            Vec3::new(0.3, 0.2, 0.0),
            Vec3::new(-0.2, 0.2, 0.2),
            Vec3::new(-0.2, 0.2, -0.2),
        ],
        &[vec![0, 1, 2], vec![0, 2, 3], vec![0, 3, 1], vec![1, 3, 2]],
    )
    .unwrap();
    let shapes = [
        Shape::Sphere(Sphere { center: Vec3::new(0.1, 0.4, 0.1), radius: 0.5 }),
        Shape::Capsule(Capsule { a: Vec3::new(-0.3, 0.15, 0.0), b: Vec3::new(0.3, 0.15, 0.0), radius: 0.2 }),
        Shape::Cuboid(Cuboid {
            half_extents: Vec3::splat(0.2),
            pose: Pose::from_translation(Vec3::new(0.0, 0.19, 0.0)),
        }),
        Shape::Convex { hull: &hull, pose: Pose::from_translation(Vec3::new(0.0, 0.19, 0.0)) },
    ];
    let mut generator = ContactGenerator::new();
    for shape in shapes {
        let mut out: Vec<Contact> = Vec::new();
        let report = generator.generate(&shape, &set, &ContactOptions::default(), &mut out).unwrap();
        assert_eq!(report.degenerate, 4, "{shape:?}");
        assert!(!out.is_empty(), "{shape:?}");
        for c in &out {
            assert!(c.point.is_finite() && c.normal.is_finite() && c.depth.is_finite(), "{c:?}");
            assert!((c.normal.length() - 1.0).abs() < 1e-5);
        }
    }
}

#[test]
fn empty_candidates_and_zero_radius_are_no_ops_that_work() {
    let mut out: Vec<Contact> = Vec::new();
    let ball = Shape::Sphere(Sphere { center: Vec3::Y, radius: 0.5 });
    let report =
        ContactGenerator::new().generate(&ball, &Candidates::new(), &ContactOptions::default(), &mut out).unwrap();
    assert_eq!(report.emitted, 0);
    assert!(out.is_empty());
    // A point (radius 0) on the floor touches it, within a contact distance (exactly touching is
    // a matter of rounding).
    let point = Shape::Sphere(Sphere { center: Vec3::new(0.2, 0.0, 0.1), radius: 0.0 });
    let near = ContactOptions { contact_distance: 1e-4, ..ContactOptions::default() };
    ContactGenerator::new().generate(&point, &floor(), &near, &mut out).unwrap();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].normal, Vec3::Y);
    // A zero-length capsule is a sphere; a zero-size box is a point.
    out.clear();
    let capsule = Shape::Capsule(Capsule { a: Vec3::new(0.2, 0.3, 0.1), b: Vec3::new(0.2, 0.3, 0.1), radius: 0.35 });
    ContactGenerator::new().generate(&capsule, &floor(), &ContactOptions::default(), &mut out).unwrap();
    assert_eq!(out.len(), 1);
    assert!((out[0].depth - 0.05).abs() < 1e-6);
    out.clear();
    let dot =
        Shape::Cuboid(Cuboid { half_extents: Vec3::ZERO, pose: Pose::from_translation(Vec3::new(0.2, 0.005, 0.1)) });
    let near = ContactOptions { contact_distance: 0.01, ..ContactOptions::default() };
    ContactGenerator::new().generate(&dot, &floor(), &near, &mut out).unwrap();
    assert!(!out.is_empty());
    assert!(out.iter().all(|c| c.normal == Vec3::Y && (c.depth + 0.005).abs() < 1e-6), "{out:?}");
    // Below the floor, the point is behind it: culled, no contact.
    out.clear();
    let below =
        Shape::Cuboid(Cuboid { half_extents: Vec3::ZERO, pose: Pose::from_translation(Vec3::new(0.2, -0.005, 0.1)) });
    let report = ContactGenerator::new().generate(&below, &floor(), &near, &mut out).unwrap();
    assert!(out.is_empty());
    assert_eq!(report.culled, 2);
}

#[test]
fn the_sink_can_stop_the_query() {
    let slab = Shape::Cuboid(Cuboid {
        half_extents: Vec3::new(0.5, 0.1, 0.5),
        pose: Pose::from_translation(Vec3::new(0.0, 0.09, 0.0)),
    });
    let mut seen = 0;
    let mut sink = FnSink(|_: Contact| {
        seen += 1;
        ControlFlow::Break(())
    });
    for max_points in [0, 4] {
        let options = ContactOptions { max_points, ..ContactOptions::default() };
        let report = ContactGenerator::new().generate(&slab, &floor(), &options, &mut sink).unwrap();
        assert!(report.stopped);
        assert_eq!(report.emitted, 1);
    }
    assert_eq!(seen, 2);
}

#[test]
fn malformed_polyhedra_are_refused() {
    let cube: Vec<Vec3> =
        (0..8).map(|i| Vec3::new((i & 1) as f32, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32)).collect();
    let faces = vec![
        vec![1, 3, 7, 5],
        vec![0, 4, 6, 2],
        vec![2, 6, 7, 3],
        vec![0, 1, 5, 4],
        vec![4, 5, 7, 6],
        vec![0, 2, 3, 1],
    ];
    assert!(ConvexPolyhedron::new(cube.clone(), &faces).is_ok());
    let inverted: Vec<Vec<u32>> = faces.iter().map(|f| f.iter().rev().copied().collect()).collect();
    let mut dented = cube.clone();
    dented[7] = Vec3::splat(0.6);
    let mut nan = cube.clone();
    nan[3].y = f32::NAN;
    for (name, points, faces) in [
        ("inverted faces", cube.clone(), inverted),
        ("not convex", dented, faces.clone()),
        ("non-finite point", nan, faces.clone()),
        ("index out of range", cube.clone(), vec![vec![0, 1, 99], vec![0, 1, 2], vec![0, 2, 3], vec![1, 2, 3]]),
        ("two-point face", cube.clone(), vec![vec![0, 1], vec![0, 1, 2], vec![0, 2, 3], vec![1, 2, 3]]),
        ("too few faces", cube.clone(), faces[..3].to_vec()),
        ("flat face", cube.clone(), vec![vec![0, 1, 1], vec![0, 1, 2], vec![0, 2, 3], vec![1, 2, 3]]),
        ("a face looping twice", cube.clone(), {
            let mut f = faces.clone();
            f[2] = vec![2, 6, 7, 3, 2, 6, 7, 3];
            f
        }),
        ("a self-crossing face", cube.clone(), {
            let mut f = faces.clone();
            f[2] = vec![2, 7, 6, 3];
            f
        }),
        (
            "open: top and bottom missing",
            cube.clone(),
            vec![faces[0].clone(), faces[1].clone(), faces[4].clone(), faces[5].clone()],
        ),
        ("huge point", cube.iter().map(|&p| p * 1e10).collect(), faces.clone()),
    ] {
        assert!(matches!(ConvexPolyhedron::new(points, &faces), Err(ContactError::InvalidPolyhedron(_))), "{name}");
    }
}
