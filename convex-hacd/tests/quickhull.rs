//! `convex_hull` on the quickhull peer point sets and on random near-coplanar, duplicate-heavy and
//! integer-lattice sets, checked by brute force (`common::check_hull`): closed, Euler, outward,
//! convex, every input point inside or within `s` of the surface.

mod common;

use common::{Rng, check_hull};
use convex_hacd::{Hull, HullError, convex_hull, convex_hull_with_tolerance};
use glam::Vec3;
use proptest::prelude::*;
use voxel_testdata::{load_points, testdata_file};

fn check(name: &str, points: &[Vec3], hull: &Hull) {
    let report = check_hull(&hull.vertices, &hull.triangles, hull.flat, points, hull.tolerance);
    assert!(report.problems.is_empty(), "{name}: {:#?}", report.problems);
    // Every hull vertex is an input point.
    for v in &hull.vertices {
        assert!(points.contains(v), "{name}: vertex {v} is not an input point");
    }
}

fn flat_by_brute_force(points: &[Vec3], hull: &Hull) -> bool {
    // The area-weighted normal of one side of the polygon (the triangles facing like the first);
    // the points' width along it must be about the tolerance. A single triangle's plane would not
    // do: its corners may sit at different heights of the slab, which tilts it.
    let corners = |t: &[u32; 3]| t.map(|i| hull.vertices[i as usize].as_dvec3());
    let cross = |t: &[u32; 3]| {
        let [a, b, c] = corners(t);
        (b - a).cross(c - a)
    };
    let first = cross(&hull.triangles[0]);
    let n = hull.triangles.iter().map(cross).filter(|c| c.dot(first) > 0.0).sum::<glam::DVec3>().normalize();
    let d: Vec<f64> = points.iter().map(|p| n.dot(p.as_dvec3())).collect();
    let (lo, hi) = d.iter().fold((f64::MAX, f64::MIN), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    hi - lo <= f64::from(hull.tolerance) * 1.5
}

#[test]
fn peer_issue3_integer_lattice_on_31_levels() {
    let points = load_points(&testdata_file("peer/quickhull/qh3d-issue3.json")).unwrap();
    assert_eq!(points.len(), 2666);
    let hull = convex_hull(&points).unwrap();
    assert!(!hull.flat);
    check("issue3", &points, &hull);
}

#[test]
fn peer_issue5_all_on_one_plane_is_flat() {
    let points = load_points(&testdata_file("peer/quickhull/qh3d-issue5.json")).unwrap();
    let hull = convex_hull(&points).unwrap();
    assert!(hull.flat);
    assert!(flat_by_brute_force(&points, &hull));
    check("issue5", &points, &hull);
}

#[test]
fn peer_issue38_cube_corners_three_times() {
    let points = load_points(&testdata_file("peer/quickhull/qh3d-issue38.json")).unwrap();
    let hull = convex_hull(&points).unwrap();
    check("issue38", &points, &hull);
    // 8 distinct corners: the hull keeps one copy of each.
    let mut distinct = hull.vertices.clone();
    distinct.sort_by(|a, b| a.to_array().partial_cmp(&b.to_array()).unwrap());
    distinct.dedup();
    assert_eq!((distinct.len(), hull.vertices.len(), hull.triangles.len()), (8, 8, 12));
}

#[test]
fn bad_input_gives_typed_errors() {
    assert_eq!(convex_hull(&[]), Err(HullError::TooFewPoints { count: 0 }));
    assert_eq!(convex_hull(&[Vec3::ONE, Vec3::X]), Err(HullError::TooFewPoints { count: 2 }));
    assert_eq!(convex_hull(&[Vec3::ONE, Vec3::NAN, Vec3::X]), Err(HullError::NonFinite { index: 1 }));
    assert_eq!(convex_hull(&[Vec3::ONE, Vec3::X, Vec3::INFINITY]), Err(HullError::NonFinite { index: 2 }));
    assert_eq!(convex_hull(&[Vec3::splat(3.0); 50]), Err(HullError::AllCoincident));
    let line: Vec<Vec3> = (0..20).map(|i| Vec3::new(1.0, 2.0, 3.0) * i as f32).collect();
    assert_eq!(convex_hull(&line), Err(HullError::Collinear));
    // Almost coincident within the tolerance.
    let blob: Vec<Vec3> = (0..20).map(|i| Vec3::splat(1.0) + Vec3::X * 1e-4 * i as f32).collect();
    assert_eq!(convex_hull_with_tolerance(&blob, 0.01), Err(HullError::AllCoincident));
    for bad in [-1.0, f32::NAN, f32::INFINITY] {
        assert_eq!(convex_hull_with_tolerance(&blob, bad), Err(HullError::InvalidTolerance));
    }
    // All points at the origin: the float floor is zero, and still no hull.
    assert_eq!(convex_hull(&[Vec3::ZERO; 4]), Err(HullError::AllCoincident));
}

#[test]
fn a_huge_offset_raises_the_tolerance_to_the_float_floor() {
    let o = Vec3::splat(1.0e6);
    let points: Vec<Vec3> =
        (0..8).map(|i| o + Vec3::new((i & 1) as f32, ((i >> 1) & 1) as f32, (i >> 2) as f32)).collect();
    let hull = convex_hull_with_tolerance(&points, 0.0).unwrap();
    assert!(hull.tolerance >= 3.0 * f32::EPSILON * 1.0e6);
    check("offset cube", &points, &hull);
}

/// Points on a tilted plane with out-of-plane noise from well below to well above the tolerance.
/// Seed 101 once found a slab whose 3D hull left a point 14 s beside its rim; the flat polygon is
/// now built from every point.
#[test]
fn near_coplanar_sets() {
    for seed in [7, 101] {
        near_coplanar_sets_with(seed);
    }
}

fn near_coplanar_sets_with(seed: u64) {
    let mut rng = Rng(seed);
    for case in 0..240 {
        let noise = [0.0, 1e-6, 1e-5, 1e-4, 4e-4, 1e-3, 2e-3, 1e-2][case % 8];
        let normal = Vec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)).normalize();
        let (u, v) = normal.any_orthonormal_pair();
        let n = 4 + (rng.next_u64() % 200) as usize;
        let points: Vec<Vec3> = (0..n)
            .map(|_| u * rng.range(-10.0, 10.0) + v * rng.range(-10.0, 10.0) + normal * rng.range(-noise, noise))
            .collect();
        let s = 1e-3;
        let hull = convex_hull_with_tolerance(&points, s).unwrap();
        check(&format!("near-coplanar {seed}/{case} noise {noise}"), &points, &hull);
        if 2.0 * noise <= s * 0.99 {
            assert!(hull.flat, "case {case}: noise {noise} fits in the slab");
        }
        if hull.flat {
            assert!(flat_by_brute_force(&points, &hull), "case {case}");
        }
    }
}

/// A few distinct points, each repeated many times with jitter below the tolerance.
#[test]
fn duplicate_heavy_sets() {
    let mut rng = Rng(11);
    for case in 0..40 {
        let distinct: Vec<Vec3> =
            (0..4 + case % 9).map(|_| Vec3::new(rng.unit(), rng.unit(), rng.unit()) * 100.0).collect();
        let mut points = Vec::new();
        for _ in 0..300 {
            let p = distinct[(rng.next_u64() % distinct.len() as u64) as usize];
            let jitter = Vec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)) * 1e-4;
            points.push(if rng.unit() < 0.5 { p } else { p + jitter });
        }
        match convex_hull_with_tolerance(&points, 1e-2) {
            Ok(hull) => {
                check(&format!("duplicates {case}"), &points, &hull);
                assert!(hull.vertices.len() <= distinct.len() * 2, "case {case}: {} vertices", hull.vertices.len());
            }
            // Four random points can be nearly coplanar; only a flat or degenerate answer is
            // acceptable then, and degenerate needs the distinct points collinear.
            Err(e) => panic!("case {case}: {e}"),
        }
    }
}

/// Subsets of a small integer lattice: many exactly coplanar and collinear points.
#[test]
fn integer_lattice_sets() {
    let mut rng = Rng(3);
    for case in 0..80 {
        let side = 2 + case % 5;
        let mut points = Vec::new();
        for x in 0..=side {
            for y in 0..=side {
                for z in 0..=side {
                    if rng.unit() < 0.4 {
                        points.push(Vec3::new(x as f32, y as f32, z as f32));
                    }
                }
            }
        }
        match convex_hull(&points) {
            Ok(hull) => check(&format!("lattice {case}"), &points, &hull),
            Err(HullError::TooFewPoints { .. } | HullError::Collinear | HullError::AllCoincident) => {}
            Err(e) => panic!("lattice {case}: {e}"),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random clouds, some squashed flat along a random axis and some snapped to a coarse grid.
    #[test]
    fn random_clouds(
        raw in prop::collection::vec((-100i32..100, -100i32..100, -100i32..100), 3..300),
        squash in 0usize..4,
        snap in prop::bool::ANY,
    ) {
        let points: Vec<Vec3> = raw.iter().map(|&(x, y, z)| {
            let mut p = Vec3::new(x as f32, y as f32, z as f32) * 0.37;
            if snap { p = (p / 8.0).round() * 8.0; }
            if squash < 3 { p[squash] *= 1e-7; }
            p
        }).collect();
        match convex_hull(&points) {
            Ok(hull) => check("random", &points, &hull),
            Err(HullError::Collinear | HullError::AllCoincident) => {}
            Err(e) => prop_assert!(false, "{e}"),
        }
    }
}
