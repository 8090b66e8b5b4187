//! Real edges must stay: shapes pushed against a 90-degree ledge get the edge's normal, and the
//! voiding never removes it.

mod common;

use common::angle;
use glam::{Quat, Vec3};
use voxel_contacts::{Candidates, Capsule, ContactGenerator, ContactOptions, Cuboid, FeatureKeys, Pose, Shape, Sphere};
use voxel_core::{Contact, Feature};

/// One clean mesh: a top face (y = 0, x < 0) and a wall (x = 0, y < 0) sharing the edge along z,
/// both two cells deep in z, with vertex ids.
fn ledge() -> Candidates {
    let mut set = Candidates::new();
    let mut id = 0;
    for k in 0..4 {
        let (z0, z1) = (k as f32 * 0.5, (k + 1) as f32 * 0.5);
        // Vertex ids: edge vertices 100 + k, top-back 200 + k, wall-bottom 300 + k.
        let (e0, e1) = (100 + k, 101 + k);
        let (b0, b1) = (200 + k, 201 + k);
        let (w0, w1) = (300 + k, 301 + k);
        let e = |z: f32| Vec3::new(0.0, 0.0, z);
        let b = |z: f32| Vec3::new(-1.0, 0.0, z);
        let w = |z: f32| Vec3::new(0.0, -1.0, z);
        // Top, counter-clockwise from +Y.
        set.push(id, [b(z0), b(z1), e(z1)], [b0, b1, e1]);
        set.push(id + 1, [b(z0), e(z1), e(z0)], [b0, e1, e0]);
        // Wall, counter-clockwise from +X.
        set.push(id + 2, [e(z0), e(z1), w(z1)], [e0, e1, w1]);
        set.push(id + 3, [e(z0), w(z1), w(z0)], [e0, w1, w0]);
        id += 4;
    }
    set
}

fn contacts(shape: &Shape<'_>, keys: FeatureKeys, max_points: usize) -> Vec<Contact> {
    let mut out = Vec::new();
    let options = ContactOptions { contact_distance: 0.01, keys, max_points };
    ContactGenerator::new().generate(shape, &ledge(), &options, &mut out).unwrap();
    out
}

const DIAGONAL: Vec3 = Vec3::new(core::f32::consts::FRAC_1_SQRT_2, core::f32::consts::FRAC_1_SQRT_2, 0.0);

fn assert_edge_normal(name: &str, out: &[Contact]) {
    assert!(!out.is_empty(), "{name}: the ledge's edge made no contact");
    for c in out {
        assert!(angle(c.normal, DIAGONAL) < 1e-3, "{name}: {c:?} is not the edge's normal");
        assert!(c.point.x.abs() < 1e-5 && c.point.y.abs() < 1e-5, "{name}: {c:?} is not on the edge");
        assert!(matches!(c.feature, Feature::Edge(..) | Feature::Vertex(..)), "{name}: {c:?}");
    }
}

#[test]
fn sphere_against_the_ledge_gets_the_edge_normal() {
    for keys in [FeatureKeys::Indices, FeatureKeys::Positions] {
        for z in [0.25, 0.5, 0.9, 1.0] {
            let center = Vec3::new(0.0, 0.0, z) + DIAGONAL * 0.28;
            let out = contacts(&Shape::Sphere(Sphere { center, radius: 0.3 }), keys, 0);
            assert_edge_normal("sphere", &out);
            assert_eq!(out.len(), 1, "one edge, one contact: {out:?}");
            assert!((out[0].depth - 0.02).abs() < 1e-5);
        }
    }
}

#[test]
fn capsule_along_the_ledge_gets_the_edge_normal() {
    let off = DIAGONAL * 0.18;
    let capsule = Capsule { a: Vec3::new(0.0, 0.0, 0.3) + off, b: Vec3::new(0.0, 0.0, 1.7) + off, radius: 0.2 };
    let out = contacts(&Shape::Capsule(capsule), FeatureKeys::Positions, 4);
    assert_edge_normal("capsule", &out);
}

#[test]
fn box_against_the_ledge_gets_the_edge_normal() {
    // A box turned 45 degrees about z, one face flat against the edge, pressed 0.02 into it.
    let h = Vec3::new(0.3, 0.3, 0.6);
    let rotation = Quat::from_rotation_z(core::f32::consts::FRAC_PI_4);
    let center = Vec3::new(0.0, 0.0, 1.0) + DIAGONAL * (0.3 - 0.02);
    for keys in [FeatureKeys::Indices, FeatureKeys::Positions] {
        for max_points in [0, 4] {
            let shape = Shape::Cuboid(Cuboid { half_extents: h, pose: Pose::new(rotation, center) });
            let out = contacts(&shape, keys, max_points);
            assert_edge_normal("box", &out);
            assert!(out.iter().all(|c| (c.depth - 0.02).abs() < 1e-4), "{out:?}");
        }
    }
}

#[test]
fn box_resting_on_top_near_the_ledge_gets_the_top_normal() {
    // The same mesh does not turn a resting box's contacts toward the edge.
    let h = Vec3::new(0.3, 0.2, 0.3);
    let shape = Shape::Cuboid(Cuboid { half_extents: h, pose: Pose::from_translation(Vec3::new(-0.32, 0.19, 1.0)) });
    let out = contacts(&shape, FeatureKeys::Indices, 4);
    assert_eq!(out.len(), 4, "{out:?}");
    assert!(out.iter().all(|c| angle(c.normal, Vec3::Y) < 1e-5 && (c.depth - 0.01).abs() < 1e-5), "{out:?}");
}

#[test]
fn a_small_step_far_from_the_origin_keeps_its_edge() {
    // Three separate meshes (position keys): floor (y = 0, x <= x0), a wall facing -x up to h,
    // and the top (y = h, x >= x0). A ball resting on the floor and pressed 5 mm into the step's
    // top edge must get that edge's contact, however far from the origin the step is (the
    // T-junction rule voids only spots within a few ulps of a voided edge).
    for x0 in [0.0f32, 1000.0, 10000.0] {
        let h = 0.02;
        let mut set = Candidates::new();
        let quad = |set: &mut Candidates, id: u32, p: [Vec3; 4]| {
            set.push(id, [p[0], p[1], p[2]], [id * 4, id * 4 + 1, id * 4 + 2]);
            set.push(id + 100, [p[0], p[2], p[3]], [id * 4, id * 4 + 2, id * 4 + 3]);
        };
        let v = |x: f32, y: f32, z: f32| Vec3::new(x0 + x, y, z);
        quad(&mut set, 1, [v(-2.0, 0.0, -1.0), v(-2.0, 0.0, 1.0), v(0.0, 0.0, 1.0), v(0.0, 0.0, -1.0)]);
        quad(&mut set, 2, [v(0.0, 0.0, -1.0), v(0.0, 0.0, 1.0), v(0.0, h, 1.0), v(0.0, h, -1.0)]);
        quad(&mut set, 3, [v(0.0, h, -1.0), v(0.0, h, 1.0), v(2.0, h, 1.0), v(2.0, h, -1.0)]);
        let center = v(-0.125, 0.499, 0.1);
        let mut out: Vec<Contact> = Vec::new();
        let options = ContactOptions { contact_distance: 0.0, keys: FeatureKeys::Positions, max_points: 0 };
        ContactGenerator::new()
            .generate(&Shape::Sphere(Sphere { center, radius: 0.5 }), &set, &options, &mut out)
            .unwrap();
        let corner = out.iter().find(|c| c.normal.x < -0.1);
        let corner = corner.unwrap_or_else(|| panic!("x0 = {x0}: the step's edge was voided: {out:?}"));
        assert!((corner.point.y - h).abs() < 1e-3 && (corner.point.x - x0).abs() < 2e-3, "{corner:?}");
        assert!(out.iter().any(|c| c.normal == Vec3::Y), "x0 = {x0}: the floor's face contact: {out:?}");
    }
}
