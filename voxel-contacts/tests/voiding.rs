//! Property test: no emitted contact comes from a voided feature.
//!
//! The oracle restates the paper's rule from the outside, with its own closest-point code: a
//! delayed (edge or vertex) contact at distance `D` from triangle `T` must not exist if another
//! candidate triangle containing that edge or vertex was processed before it, that is, if that
//! triangle faces the sphere, is within reach, and either makes a face contact (first pass) or is
//! closer than `D` (the sorted delayed pass). A triangle facing away from the centre voids too
//! when it is within reach and closer: its closer point proves the contact no local minimum.

mod common;

use common::closest_point;
use glam::Vec3;
use proptest::prelude::*;
use voxel_contacts::{Candidates, ContactGenerator, ContactOptions, FeatureKeys, Shape, Sphere};
use voxel_core::{Contact, Feature};

/// A jagged height field: `n` x `n` cells of size 1, random heights, one clean mesh.
fn jagged(n: usize, heights: &[f32]) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let mut p = Vec::new();
    for z in 0..=n {
        for x in 0..=n {
            p.push(Vec3::new(x as f32, heights[(z * (n + 1) + x) % heights.len()], z as f32));
        }
    }
    let id = |x: usize, z: usize| (z * (n + 1) + x) as u32;
    let mut t = Vec::new();
    for z in 0..n {
        for x in 0..n {
            t.push([id(x, z), id(x, z + 1), id(x + 1, z + 1)]);
            t.push([id(x, z), id(x + 1, z + 1), id(x + 1, z)]);
        }
    }
    (p, t)
}

/// Strictly a face contact by the oracle's own test: the centre's foot inside the triangle,
/// away from its edges by `margin`.
fn clearly_face(center: Vec3, t: [Vec3; 3], margin: f32) -> bool {
    let n = (t[1] - t[0]).cross(t[2] - t[0]).normalize();
    let foot = center - n * n.dot(center - t[0]);
    (0..3).all(|k| {
        let e = t[(k + 1) % 3] - t[k];
        n.cross(e).normalize().dot(foot - t[k]) > margin
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn no_contact_from_a_voided_feature(
        heights in proptest::collection::vec(-0.6f32..0.6, 25),
        cx in 0.5f32..3.5, cz in 0.5f32..3.5, lift in -0.1f32..0.6,
        radius in 0.2f32..1.2, distance in 0.0f32..0.5,
        positions in any::<bool>(),
    ) {
        let (p, tris) = jagged(4, &heights);
        let center = Vec3::new(cx, 0.6 + lift, cz);
        let mut set = Candidates::new();
        for (i, t) in tris.iter().enumerate() {
            set.push(i as u32, t.map(|v| p[v as usize]), *t);
        }
        let keys = if positions { FeatureKeys::Positions } else { FeatureKeys::Indices };
        let mut out: Vec<Contact> = Vec::new();
        let options = ContactOptions { contact_distance: distance, keys, max_points: 0 };
        ContactGenerator::new().generate(&Shape::Sphere(Sphere { center, radius }), &set, &options, &mut out).unwrap();

        let reach = radius + distance;
        for c in &out {
            let needed: &[u32] = match &c.feature {
                Feature::Face => continue,
                Feature::Edge(a, b) => &[*a, *b],
                Feature::Vertex(a) => &[*a],
            };
            let d = c.point.distance(center);
            for (j, t) in tris.iter().enumerate() {
                if j as u32 == c.triangle || !needed.iter().all(|v| t.contains(v)) {
                    continue;
                }
                let pos = t.map(|v| p[v as usize]);
                let n = (pos[1] - pos[0]).cross(pos[2] - pos[0]);
                let facing = n.dot(center - pos[0]) >= 0.0;
                let dj = closest_point(center, pos).distance(center);
                if dj > reach - 1e-5 {
                    continue; // out of reach (or too close to call)
                }
                prop_assert!(
                    !(facing && clearly_face(center, pos, 1e-4)),
                    "{c:?} comes from a feature voided by face triangle {j}"
                );
                prop_assert!(
                    !(dj < d - 1e-5),
                    "{c:?} (distance {d}) comes from a feature voided by triangle {j}, processed before it (distance {dj})"
                );
            }
        }
    }
}
