//! Every figure of seed 001 ("Contact generation for meshes") as a unit test, plus the
//! disjoint-mesh case of its section 6.

mod common;

use common::facing;
use glam::Vec3;
use voxel_contacts::{Candidates, ContactGenerator, ContactOptions, ContactReport, FeatureKeys, Shape, Sphere};
use voxel_core::{Contact, Feature};

fn v(x: f32, z: f32) -> Vec3 {
    Vec3::new(x, 0.0, z)
}

/// Runs a sphere query over `tris` (each with vertex ids), unreduced.
fn run(
    center: Vec3,
    radius: f32,
    distance: f32,
    tris: &[([Vec3; 3], [u32; 3])],
    keys: FeatureKeys,
) -> (Vec<Contact>, ContactReport) {
    let mut set = Candidates::new();
    for (i, (p, ids)) in tris.iter().enumerate() {
        set.push(i as u32, *p, *ids);
    }
    let mut out = Vec::new();
    let options = ContactOptions { contact_distance: distance, keys, max_points: 0 };
    let report =
        ContactGenerator::new().generate(&Shape::Sphere(Sphere { center, radius }), &set, &options, &mut out).unwrap();
    (out, report)
}

/// Both candidate orders must give the same contacts (the algorithm's order comes from the
/// passes and the sort, never from the midphase).
fn run_both_orders(
    center: Vec3,
    radius: f32,
    distance: f32,
    tris: &[([Vec3; 3], [u32; 3])],
) -> (Vec<Contact>, ContactReport) {
    let (a, ra) = run(center, radius, distance, tris, FeatureKeys::Indices);
    let reversed: Vec<_> = tris.iter().rev().copied().collect();
    let (b, rb) = run(center, radius, distance, &reversed, FeatureKeys::Indices);
    assert_eq!(a.len(), b.len(), "candidate order changed the result");
    for (x, y) in a.iter().zip(&b) {
        assert_eq!((x.point, x.normal, x.depth, x.feature), (y.point, y.normal, y.depth, y.feature));
    }
    assert_eq!((ra.voided, ra.faces, ra.delayed), (rb.voided, rb.faces, rb.delayed));
    // Position keys agree with index keys on a clean mesh.
    let (c, _) = run(center, radius, distance, tris, FeatureKeys::Positions);
    assert_eq!(a, c);
    (a, ra)
}

#[test]
fn figure_1_far_triangle_is_ignored() {
    let t = facing([v(0.0, 0.0), v(1.0, 0.0), v(0.0, 1.0)], Vec3::Y);
    let (out, report) = run(Vec3::new(0.2, 0.6, 0.2), 0.5, 0.05, &[(t, [0, 1, 2])], FeatureKeys::Indices);
    assert!(out.is_empty());
    assert_eq!(report.far, 1);
    // Within the inflated radius it is a contact with a negative depth.
    let (out, _) = run(Vec3::new(0.2, 0.54, 0.2), 0.5, 0.05, &[(t, [0, 1, 2])], FeatureKeys::Indices);
    assert_eq!(out.len(), 1);
    assert!((out[0].depth + 0.04).abs() < 1e-6);
}

#[test]
fn figure_2_face_contact() {
    let t = facing([v(0.0, 0.0), v(2.0, 0.0), v(0.0, 2.0)], Vec3::Y);
    let center = Vec3::new(0.5, 0.4, 0.5);
    let (out, report) = run_both_orders(center, 0.5, 0.0, &[(t, [0, 1, 2])]);
    assert_eq!(out.len(), 1);
    let c = out[0];
    assert_eq!(c.feature, Feature::Face);
    assert_eq!(c.normal, Vec3::Y);
    assert!((c.point - v(0.5, 0.5)).length() < 1e-6);
    assert!((c.depth - 0.1).abs() < 1e-6);
    assert_eq!(report.faces, 1);
}

#[test]
fn back_faces_are_culled() {
    let t = facing([v(0.0, 0.0), v(2.0, 0.0), v(0.0, 2.0)], Vec3::Y);
    let (out, report) = run(Vec3::new(0.5, -0.1, 0.5), 0.5, 0.0, &[(t, [0, 1, 2])], FeatureKeys::Indices);
    assert!(out.is_empty());
    assert_eq!(report.culled, 1);
}

#[test]
fn figures_3_and_4_fear_of_the_wireframe() {
    // T1 and T2 share the edge V2-V3 (ids 1, 2). The sphere is over T1's interior, close to the
    // edge: T2's closest point is on the shared edge, a tilted "ghost" normal.
    let (v1, v2, v3, v4) = (v(-1.0, 0.5), v(0.0, 0.0), v(0.0, 1.0), v(1.0, 0.5));
    let t1 = tri([v1, v2, v3], [0, 1, 2]);
    let t2 = tri([v2, v4, v3], [1, 3, 2]);
    let center = Vec3::new(-0.1, 0.45, 0.5);

    // Alone, T2 gives the ghost edge contact the figure warns about.
    let (alone, _) = run(center, 0.5, 0.0, &[t2], FeatureKeys::Indices);
    assert_eq!(alone.len(), 1);
    assert_eq!(alone[0].feature, Feature::edge(1, 2));
    assert!(alone[0].normal.x < -0.1, "the lone edge contact is tilted");

    let (out, report) = run_both_orders(center, 0.5, 0.0, &[t1, t2]);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].feature, Feature::Face);
    assert_eq!(out[0].normal, Vec3::Y);
    assert_eq!(report.voided, 1);
}

/// Vertex ids follow the positions through `facing`'s swap.
fn tri(p: [Vec3; 3], ids: [u32; 3]) -> ([Vec3; 3], [u32; 3]) {
    let f = facing(p, Vec3::Y);
    if f == p { (p, ids) } else { (f, [ids[0], ids[2], ids[1]]) }
}

#[test]
fn figures_5_and_6_vertex_contact_voided_by_an_edge_contact() {
    // T1 = V3 V4 V5 has its closest point on its boundary edge V3-V5; T2 shares only V3 with
    // the edge and its closest point is V3 itself, farther away.
    let (v3, v4, v5, v2) = (v(0.0, 0.0), v(-1.0, 0.5), v(0.0, 1.0), v(-0.5, -1.0));
    let t1 = tri([v3, v4, v5], [3, 4, 5]);
    let t2 = tri([v3, v2, v4], [3, 2, 4]);
    let center = Vec3::new(0.3, 0.2, 0.2);

    let (alone, _) = run(center, 0.5, 0.0, &[t2], FeatureKeys::Indices);
    assert_eq!(alone.len(), 1);
    assert_eq!(alone[0].feature, Feature::Vertex(3));

    let (out, report) = run_both_orders(center, 0.5, 0.0, &[t1, t2]);
    assert_eq!(out.len(), 1, "{out:?}");
    let c = out[0];
    assert_eq!(c.feature, Feature::edge(3, 5));
    assert!((c.point - v(0.0, 0.2)).length() < 1e-6);
    let expected = (center - v(0.0, 0.2)).normalize();
    assert!((c.normal - expected).length() < 1e-6, "a real boundary edge keeps its edge normal");
    assert_eq!(report.voided, 1);
}

#[test]
fn figure_7_large_contact_distance_in_both_orders() {
    // T1 face; T2 shares V2-V3 with T1 and is closer than T3, which shares V3-V4 with T2 only.
    // Only when T2 voids its features although its own contact is dropped, and T2 comes before
    // T3 (sorted by distance), is T3's contact dropped.
    let (v1, v2, v3, v4, v5) = (v(-1.0, -0.5), v(0.0, -1.0), v(0.0, 0.0), v(1.0, -1.0), v(1.0, 0.5));
    let t1 = tri([v1, v2, v3], [1, 2, 3]);
    let t2 = tri([v2, v4, v3], [2, 4, 3]);
    let t3 = tri([v3, v4, v5], [3, 4, 5]);
    let center = Vec3::new(-0.2, 0.45, -0.4);
    let (alone, _) = run(center, 0.5, 0.5, &[t3], FeatureKeys::Indices);
    assert_eq!(alone[0].feature, Feature::edge(3, 4), "T3's closest feature is the edge V3-V4");

    for order in [[t1, t2, t3], [t1, t3, t2], [t3, t2, t1], [t2, t3, t1]] {
        let (out, report) = run_both_orders(center, 0.5, 0.5, &order);
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(out[0].feature, Feature::Face);
        assert_eq!(out[0].normal, Vec3::Y);
        assert_eq!((report.faces, report.delayed, report.voided), (1, 2, 2));
    }
}

#[test]
fn figure_8_vertex_contacts_before_the_farther_edge_contact() {
    // Six triangles around V (id 0); the sphere's centre exactly above V: no face contact. T7
    // shares T1's outer edge; its closest point is on that edge, farther than V.
    let ring: Vec<Vec3> = (0..6)
        .map(|k| {
            let a = k as f32 * core::f32::consts::TAU / 6.0;
            v(a.cos(), a.sin())
        })
        .collect();
    let mut tris = Vec::new();
    for k in 0..6u32 {
        let j = (k + 1) % 6;
        tris.push(tri([Vec3::ZERO, ring[k as usize], ring[j as usize]], [0, 1 + k, 1 + j]));
    }
    let outer = (ring[0] + ring[1]) * 0.9;
    tris.push(tri([ring[0], outer, ring[1]], [1, 7, 2]));
    let center = Vec3::new(0.0, 0.5, 0.0);

    let (alone, _) = run(center, 1.0, 0.0, &tris[6..], FeatureKeys::Indices);
    assert_eq!(alone.len(), 1);
    assert_eq!(alone[0].feature, Feature::edge(1, 2), "T7 alone makes an edge contact");

    let (out, report) = run_both_orders(center, 1.0, 0.0, &tris);
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0].feature, Feature::Vertex(0));
    assert!((out[0].normal - Vec3::Y).length() < 1e-6);
    assert_eq!(report.faces, 0);
    assert_eq!((report.delayed, report.voided), (7, 6));
}

#[test]
fn section_6_disjoint_meshes_need_position_keys() {
    // Two meshes with their own vertices meet at x = 0; the ball is over the left one near the
    // seam. By index the seam edge is two different boundary edges; by position it is one.
    let left = [v(-1.0, 0.0), v(-1.0, 1.0), v(0.0, 1.0), v(0.0, 0.0)];
    let right = [v(0.0, 0.0), v(0.0, 1.0), v(1.0, 1.0), v(1.0, 0.0)];
    let tris = vec![
        tri([left[0], left[1], left[2]], [0, 1, 2]),
        tri([left[0], left[2], left[3]], [0, 2, 3]),
        tri([right[0], right[1], right[2]], [10, 11, 12]),
        tri([right[0], right[2], right[3]], [10, 12, 13]),
    ];
    let center = Vec3::new(-0.05, 0.49, 0.5);

    let (by_index, _) = run(center, 0.5, 0.0, &tris, FeatureKeys::Indices);
    assert!(by_index.iter().any(|c| c.normal.x < -0.01), "index keys miss the shared seam: a ghost");
    let (by_position, report) = run(center, 0.5, 0.0, &tris, FeatureKeys::Positions);
    assert_eq!(by_position.len(), 1, "{by_position:?}");
    assert_eq!(by_position[0].normal, Vec3::Y);
    assert_eq!(report.voided, 1);
}

#[test]
fn t_junctions_across_disjoint_meshes_are_voided_by_geometry() {
    // The right mesh splits the seam edge at z = 0.5 (a T-junction): no key of the left mesh's
    // seam edge matches the right mesh's two half edges or its middle vertex.
    let left = [v(-1.0, 0.0), v(-1.0, 1.0), v(0.0, 1.0), v(0.0, 0.0)];
    let (a, m, b) = (v(0.0, 0.0), v(0.0, 0.5), v(0.0, 1.0));
    let (c, d) = (v(1.0, 0.0), v(1.0, 1.0));
    let tris = vec![
        tri([left[0], left[1], left[2]], [0, 1, 2]),
        tri([left[0], left[2], left[3]], [0, 2, 3]),
        tri([a, m, c], [10, 11, 12]),
        tri([m, b, d], [11, 13, 14]),
        tri([m, d, c], [11, 14, 12]),
    ];
    for z in [0.25, 0.5, 0.7] {
        let center = Vec3::new(-0.05, 0.49, z);
        let (out, _) = run(center, 0.5, 0.0, &tris, FeatureKeys::Positions);
        assert!(!out.is_empty());
        for c in &out {
            assert!((c.normal - Vec3::Y).length() < 1e-6, "z = {z}: ghost {c:?}");
        }
    }
}
