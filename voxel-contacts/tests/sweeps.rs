//! Sliding and rolling sweeps over flat ground: a sphere, a capsule and a box moved in small steps
//! across a finely tessellated plane, across two separate meshes meeting at a seam, and across
//! Surface Nets chunk meshes of a flat field. Every contact's normal must be the plane's normal
//! (to 1e-4 rad): any other is a ghost.

mod common;

use common::{Soup, angle, gather_all, plane, surface_nets_chunks};
use glam::{IVec3, Quat, Vec3};
use voxel_contacts::{
    Candidates, Capsule, ContactGenerator, ContactOptions, ConvexPolyhedron, Cuboid, FeatureKeys, Pose, Shape, Sphere,
};
use voxel_core::{Contact, VoxelBox};

const PRESS: f32 = 0.01;

/// A convex polyhedron as plain data: a hexagonal prism of radius 0.3 and height 0.3, centred.
static PRISM: std::sync::LazyLock<ConvexPolyhedron> = std::sync::LazyLock::new(|| {
    let mut points = Vec::new();
    for y in [-0.15, 0.15] {
        for k in 0..6 {
            let a = k as f32 * core::f32::consts::TAU / 6.0;
            points.push(Vec3::new(0.3 * a.cos(), y, 0.3 * a.sin()));
        }
    }
    // Sides counter-clockwise from outside; bottom seen from below, top from above.
    let mut faces: Vec<Vec<u32>> = (0..6u32).map(|k| vec![k, 6 + k, 6 + (k + 1) % 6, (k + 1) % 6]).collect();
    faces.push((0..6).collect());
    faces.push((6..12).rev().collect());
    ConvexPolyhedron::new(points, &faces).unwrap()
});
const DISTANCE: f32 = 0.02;

/// The shapes of one sweep step at `(x, z)` on ground at height `ground`, all pressed `PRESS`
/// into it.
fn shapes(x: f32, z: f32, ground: f32, step: usize) -> Vec<Shape<'static>> {
    let yaw = step as f32 * 0.37;
    let r = 0.3;
    let mut v = vec![Shape::Sphere(Sphere { center: Vec3::new(x, ground + r - PRESS, z), radius: r })];
    // Capsules lying flat at a turning angle, tilted, and standing.
    let half = Quat::from_rotation_y(yaw) * Vec3::new(0.4, 0.0, 0.0);
    let c = Vec3::new(x, ground + 0.2 - PRESS, z);
    v.push(Shape::Capsule(Capsule { a: c - half, b: c + half, radius: 0.2 }));
    let tilt = Quat::from_rotation_y(yaw) * Vec3::new(0.4, 0.1, 0.0);
    let low = Vec3::new(x, ground + 0.2 - PRESS, z);
    v.push(Shape::Capsule(Capsule { a: low, b: low + 2.0 * tilt, radius: 0.2 }));
    v.push(Shape::Capsule(Capsule { a: low, b: low + Vec3::Y * 0.5, radius: 0.2 }));
    // Boxes flat at a turning yaw.
    let h = Vec3::new(0.35, 0.2, 0.25);
    let pose = Pose::new(Quat::from_rotation_y(yaw), Vec3::new(x, ground + h.y - PRESS, z));
    v.push(Shape::Cuboid(Cuboid { half_extents: h, pose }));
    // Boxes tilted 5 and 20 degrees about their x axis, one long edge down.
    for pitch in [0.087, 0.35] {
        let tilt = Quat::from_rotation_y(yaw) * Quat::from_rotation_x(pitch);
        let lowest = (tilt * Vec3::new(0.0, -h.y, -h.z)).y.min((tilt * Vec3::new(0.0, -h.y, h.z)).y);
        let pose = Pose::new(tilt, Vec3::new(x, ground - lowest - PRESS, z));
        v.push(Shape::Cuboid(Cuboid { half_extents: h, pose }));
    }
    // The convex prism, flat and tilted 10 degrees.
    for pitch in [0.0f32, 0.17] {
        let rotation = Quat::from_rotation_y(yaw) * Quat::from_rotation_x(pitch);
        let lowest = PRISM.points().iter().map(|&p| (rotation * p).y).fold(f32::INFINITY, f32::min);
        let pose = Pose::new(rotation, Vec3::new(x, ground - lowest - PRESS, z));
        v.push(Shape::Convex { hull: &PRISM, pose });
    }
    v
}

struct Tally {
    queries: usize,
    contacts: usize,
    ghosts: Vec<(usize, Contact)>,
}

fn sweep(meshes: &[Soup], keys: FeatureKeys, ground: f32, from: Vec3, to: Vec3, steps: usize) -> Tally {
    let mut set = Candidates::new();
    let mut generator = ContactGenerator::new();
    let mut out: Vec<Contact> = Vec::new();
    let mut tally = Tally { queries: 0, contacts: 0, ghosts: Vec::new() };
    for step in 0..steps {
        let p = from.lerp(to, step as f32 / (steps - 1) as f32);
        for (k, shape) in shapes(p.x, p.z, ground, step).iter().enumerate() {
            gather_all(meshes, &shape.aabb().grow(DISTANCE), &mut set);
            for max_points in [0, 4] {
                out.clear();
                let options = ContactOptions { contact_distance: DISTANCE, keys, max_points };
                generator.generate(shape, &set, &options, &mut out).unwrap();
                assert!(!out.is_empty(), "shape {k} at {p} pressed into the ground has no contact");
                let deepest = out.iter().fold(f32::MIN, |d, c| d.max(c.depth));
                assert!((deepest - PRESS).abs() < 1e-4, "shape {k}: deepest {deepest} instead of {PRESS}");
                tally.queries += 1;
                tally.contacts += out.len();
                for c in &out {
                    if angle(c.normal, Vec3::Y) > 1e-4 {
                        tally.ghosts.push((k, *c));
                    }
                    assert!((c.point.y - ground).abs() < 1e-4, "contact point off the ground: {c:?}");
                    assert!(c.depth >= -DISTANCE - 1e-5 && c.depth <= PRESS + 1e-4, "shape {k}: depth {}", c.depth);
                }
            }
        }
    }
    tally
}

fn assert_no_ghosts(name: &str, t: &Tally) {
    assert!(
        t.ghosts.is_empty(),
        "{name}: {} ghosts of {} contacts in {} queries, first {:?}",
        t.ghosts.len(),
        t.contacts,
        t.queries,
        &t.ghosts[..t.ghosts.len().min(3)]
    );
}

#[test]
fn finely_tessellated_plane() {
    // 32 x 32 quads of 0.125 (2048 triangles), mixed diagonals; the path crosses edges and
    // vertices at many angles.
    let ground = plane(Vec3::ZERO, 32, 0.125, 7);
    for keys in [FeatureKeys::Indices, FeatureKeys::Positions] {
        let t =
            sweep(std::slice::from_ref(&ground), keys, 0.0, Vec3::new(0.9, 0.0, 1.1), Vec3::new(3.1, 0.0, 2.95), 400);
        assert_no_ghosts("plane", &t);
    }
}

#[test]
fn two_meshes_meeting_at_a_seam() {
    let left = plane(Vec3::ZERO, 8, 0.25, 1);
    let right = plane(Vec3::new(2.0, 0.0, 0.0), 8, 0.25, 2);
    let meshes = [left, right];
    let t = sweep(&meshes, FeatureKeys::Positions, 0.0, Vec3::new(1.0, 0.0, 0.3), Vec3::new(3.0, 0.0, 1.7), 400);
    assert_no_ghosts("seam", &t);
    // Along the seam itself.
    let t = sweep(&meshes, FeatureKeys::Positions, 0.0, Vec3::new(2.0, 0.0, 0.5), Vec3::new(2.0, 0.0, 1.5), 100);
    assert_no_ghosts("along the seam", &t);
}

#[test]
fn surface_nets_chunks_of_a_flat_field() {
    // Ground at y = 4.25 (a quantized distance step exactly) over 32 x 32 voxels, meshed as 8^3 chunks: 16 disjoint chunk meshes.
    let region = VoxelBox::new(IVec3::new(0, 0, 0), IVec3::new(32, 8, 32));
    let meshes = surface_nets_chunks(region, 8, |p| p.y - 4.25);
    assert!(meshes.len() >= 16);
    let t = sweep(&meshes, FeatureKeys::Positions, 4.25, Vec3::new(3.0, 0.0, 5.0), Vec3::new(29.0, 0.0, 27.0), 600);
    assert_no_ghosts("surface nets chunks", &t);
    // Along a chunk seam.
    let t = sweep(&meshes, FeatureKeys::Positions, 4.25, Vec3::new(16.0, 0.0, 3.0), Vec3::new(16.0, 0.0, 29.0), 200);
    assert_no_ghosts("along a chunk seam", &t);
}
