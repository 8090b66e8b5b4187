//! Curved surfaces, where "ghost" has an exact meaning for a sphere: every contact point must be a
//! local minimum of the distance from the sphere's centre over the whole mesh surface. By the
//! convexity of that distance on each triangle, a point is one exactly when no triangle containing
//! it has a point closer to the centre, which `common::is_local_minimum` checks by brute force.

mod common;

use common::{Soup, angle, gather_all, is_local_minimum, plane, surface_nets_chunks};
use glam::{IVec3, Quat, Vec3};
use voxel_contacts::{Candidates, ContactGenerator, ContactOptions, FeatureKeys, Shape, Sphere};
use voxel_core::{Aabb, Contact, Feature, VoxelBox};
use voxel_testdata::Rng;

const DISTANCE: f32 = 0.02;
const TOL: f32 = 1e-4;
/// How near a triangle must pass to an edge or vertex contact's point to contain it: about 4 ulps
/// at the largest coordinates of these scenes (32).
const CONTAIN: f32 = 1e-5;

fn height(x: f32, z: f32) -> f32 {
    6.0 + 2.0 * (0.35 * x).sin() * (0.27 * z).cos() + 0.8 * (0.9 * x + 0.5 * z).sin()
}

/// Presses `queries` balls 0.05 into random points of the meshes' surface (radius 0.2 to 0.8,
/// centres kept outside the solid by `outside`) and checks every contact. Returns (contacts,
/// queries with contacts).
fn press(meshes: &[Soup], queries: usize, seed: u64, outside: impl Fn(Vec3) -> bool) -> (usize, usize) {
    let all: Vec<[Vec3; 3]> = meshes.iter().flat_map(|m| (0..m.triangles.len()).map(|t| m.tri(t))).collect();
    let mut rng = Rng(seed);
    let mut set = Candidates::new();
    let mut generator = ContactGenerator::new();
    let mut out: Vec<Contact> = Vec::new();
    let (mut contacts, mut touched, mut done) = (0, 0, 0);
    while done < queries {
        let t = all[(rng.next_u64() % all.len() as u64) as usize];
        let Some(n) = (t[1] - t[0]).cross(t[2] - t[0]).try_normalize() else { continue };
        let (mut u, mut v) = (rng.unit(), rng.unit());
        if u + v > 1.0 {
            (u, v) = (1.0 - u, 1.0 - v);
        }
        let p = t[0] + (t[1] - t[0]) * u + (t[2] - t[0]) * v;
        let radius = rng.range(0.2, 0.8);
        let center = p + n * (radius - 0.05);
        if !outside(center) {
            continue;
        }
        done += 1;
        let ball = Shape::Sphere(Sphere { center, radius });
        let reach = Aabb::new(center - radius - DISTANCE, center + radius + DISTANCE);
        gather_all(meshes, &reach, &mut set);
        let near: Vec<[Vec3; 3]> =
            all.iter().copied().filter(|t| Aabb::from_points(*t).overlaps(&reach.grow(0.1))).collect();
        out.clear();
        let options = ContactOptions { contact_distance: DISTANCE, keys: FeatureKeys::Positions, max_points: 0 };
        generator.generate(&ball, &set, &options, &mut out).unwrap();
        touched += usize::from(!out.is_empty());
        for c in &out {
            contacts += 1;
            if c.feature == Feature::Face {
                // A face contact is a local minimum when it is the foot of the perpendicular from
                // the centre, inside its own triangle (it may lie a few ulps from an edge in a
                // valley, where the triangle across the crease is closer: two true minima).
                let own = meshes[(c.triangle >> 20) as usize].tri((c.triangle & 0xF_FFFF) as usize);
                let n = (own[1] - own[0]).cross(own[2] - own[0]).normalize();
                assert!(angle(c.normal, n) < 1e-5, "face contact with a normal not its triangle's: {c:?}");
                let foot = center - n * n.dot(center - own[0]);
                assert!(foot.distance(c.point) < TOL, "face contact off the perpendicular's foot: {c:?}");
                assert!(
                    common::closest_point(foot, own).distance(foot) < CONTAIN,
                    "face contact outside its triangle: {c:?}"
                );
            } else {
                assert!(
                    is_local_minimum(c, center, &near, CONTAIN, TOL),
                    "ghost: centre {center:?} radius {radius}: {c:?} is not a local minimum of the distance"
                );
                let toward = (center - c.point).normalize();
                assert!(angle(c.normal, toward) < 1e-3, "edge/vertex normal must point at the centre: {c:?}");
            }
        }
    }
    (contacts, touched)
}

#[test]
fn surface_nets_terrain_one_mesh_and_chunks() {
    let region = VoxelBox::new(IVec3::new(0, 0, 0), IVec3::new(32, 16, 32));
    let field = |p: Vec3| p.y - height(p.x, p.z);
    let inside_margin = |c: Vec3| field(c) > 0.1 && c.x > 1.0 && c.z > 1.0 && c.x < 31.0 && c.z < 31.0;
    let whole = surface_nets_chunks(region, 32, field);
    assert_eq!(whole.len(), 1);
    let (contacts, touched) = press(&whole, 3000, 1, inside_margin);
    assert!(touched > 2850 && contacts >= touched, "{touched} of 3000 queries touched, {contacts} contacts");

    let chunks = surface_nets_chunks(region, 8, field);
    assert!(chunks.len() > 8);
    let (contacts, touched) = press(&chunks, 10000, 9, inside_margin);
    assert!(touched > 9500 && contacts >= touched, "{touched} of 10000 queries touched, {contacts} contacts");
}

/// Two planes meeting at the seam x = 2: the right one turned about the seam by `tilt` radians
/// (positive: a valley), lowered by `step`, and tessellated at `cells` per unit (a different
/// count from the left's 4 makes T-junctions all along the seam).
fn seam(tilt: f32, step: f32, cells: usize) -> Vec<Soup> {
    let left = plane(Vec3::ZERO, 8, 0.25, 3);
    let mut right = plane(Vec3::new(2.0, 0.0, 0.0), 2 * cells, 1.0 / cells as f32, 4);
    let turn = Quat::from_rotation_z(tilt);
    for p in &mut right.positions {
        *p = turn * (*p - Vec3::new(2.0, 0.0, 0.0)) + Vec3::new(2.0, -step, 0.0);
    }
    vec![left, right]
}

#[test]
fn seams_at_an_angle_with_a_step_and_at_t_junctions() {
    for (name, tilt, step, cells) in [
        ("valley 10 degrees", 10f32.to_radians(), 0.0, 4),
        ("ridge 10 degrees", -10f32.to_radians(), 0.0, 4),
        ("valley 30 degrees", 30f32.to_radians(), 0.0, 4),
        ("step down 0.02", 0.0, 0.02, 4),
        ("step up 0.02", 0.0, -0.02, 4),
        ("t-junctions", 0.0, 0.0, 8),
        ("t-junctions in a valley", 10f32.to_radians(), 0.0, 8),
        ("t-junctions on a ridge", -10f32.to_radians(), 0.0, 6),
    ] {
        let meshes = seam(tilt, step, cells);
        // Balls near the seam, centred over the ground on the left of the seam or over the
        // right plane.
        let above = |c: Vec3| {
            let rel = Quat::from_rotation_z(-tilt) * (c - Vec3::new(2.0, -step, 0.0));
            c.z > 0.3 && c.z < 1.7 && c.x > 1.0 && c.x < 3.0 && c.y > 0.0 && rel.y > 0.0
        };
        let (contacts, touched) = press(&meshes, 3000, 11, above);
        assert!(touched > 2850, "{name}: {touched} queries of 3000 touched ({contacts} contacts)");
    }
}

/// A jagged height field (cells of 1, random heights in +-0.6), one clean mesh: neighbours often
/// face away from a ball whose centre is outside the solid, and must still void (their closer
/// points prove a farther edge contact is no local minimum).
fn jagged(n: usize, seed: u64) -> (Soup, impl Fn(f32, f32) -> f32) {
    let mut rng = Rng(seed);
    let heights: Vec<f32> = (0..(n + 1) * (n + 1)).map(|_| rng.range(-0.6, 0.6)).collect();
    let mut soup = Soup::default();
    for z in 0..=n {
        for x in 0..=n {
            soup.positions.push(Vec3::new(x as f32, heights[z * (n + 1) + x], z as f32));
        }
    }
    let id = |x: usize, z: usize| (z * (n + 1) + x) as u32;
    for z in 0..n {
        for x in 0..n {
            soup.triangles.push([id(x, z), id(x, z + 1), id(x + 1, z + 1)]);
            soup.triangles.push([id(x, z), id(x + 1, z + 1), id(x + 1, z)]);
        }
    }
    // The surface's height at (x, z): the triangle of the cell under it, interpolated.
    let h = move |x: f32, z: f32| {
        let (cx, cz) = ((x.floor() as usize).min(n - 1), (z.floor() as usize).min(n - 1));
        let (fx, fz) = (x - cx as f32, z - cz as f32);
        let at = |i: usize, k: usize| heights[(cz + k) * (n + 1) + cx + i];
        if fz >= fx {
            // Triangle (0,0), (0,1), (1,1).
            at(0, 0) + (at(1, 1) - at(0, 1)) * fx + (at(0, 1) - at(0, 0)) * fz
        } else {
            // Triangle (0,0), (1,1), (1,0).
            at(0, 0) + (at(1, 0) - at(0, 0)) * fx + (at(1, 1) - at(1, 0)) * fz
        }
    };
    (soup, h)
}

#[test]
fn jagged_height_fields_with_faces_turned_away() {
    for seed in 0..6 {
        let (soup, h) = jagged(8, 40 + seed);
        let above = |c: Vec3| c.x > 1.0 && c.z > 1.0 && c.x < 7.0 && c.z < 7.0 && c.y > h(c.x, c.z) + 1e-3;
        let (contacts, touched) = press(std::slice::from_ref(&soup), 3000, 70 + seed, above);
        assert!(touched > 2500, "{touched} of 3000 queries touched ({contacts} contacts)");
    }
}
