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

/// Points at the origin and at 1e30 (issue 32): at the tolerance of that extent the points near
/// the origin weld into one, two points are left, and the answer was `AllCoincident`. Two points
/// farther apart than the tolerance are a line.
#[test]
fn two_far_apart_points_left_after_welding_are_a_line() {
    let far = Vec3::new(0.0, 1e30, 0.0);
    assert_eq!(convex_hull(&[Vec3::ZERO, far, Vec3::X, Vec3::Z, Vec3::ONE]), Err(HullError::Collinear));
    assert_eq!(convex_hull_with_tolerance(&[Vec3::ZERO, far, Vec3::X, Vec3::Z], 0.1), Err(HullError::Collinear));
    assert_eq!(convex_hull(&[Vec3::ZERO, far, far]), Err(HullError::Collinear));
    // Three far corners still make a triangle, four a tetrahedron.
    let hull = convex_hull(&[Vec3::ZERO, far, Vec3::new(1e30, 0.0, 0.0), Vec3::X]).unwrap();
    assert!(hull.flat && hull.vertices.len() == 3);
    let hull = convex_hull(&[Vec3::ZERO, far, Vec3::new(1e30, 0.0, 0.0), Vec3::new(0.0, 0.0, 1e30)]).unwrap();
    assert!(!hull.flat && hull.vertices.len() == 4);
    // Two points within the tolerance per axis but farther apart than it along the diagonal
    // (welding keeps both) still coincide, as `AllCoincident` says.
    let d = Vec3::new(0.8, 0.8, 0.0);
    assert_eq!(convex_hull_with_tolerance(&[Vec3::ZERO, d, Vec3::ZERO], 1.0), Err(HullError::AllCoincident));
}

proptest! {
    /// Any cloud near the origin with one point far away on a random axis at a huge distance: a
    /// line at the tolerance of that extent (the cloud welds into one point), never coincident.
    #[test]
    fn a_cloud_and_one_far_point_are_a_line(
        cloud in prop::collection::vec((-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0), 1..20),
        axis in 0usize..3,
        exponent in 8i32..38,
    ) {
        let mut points: Vec<Vec3> = cloud.into_iter().map(|(x, y, z)| Vec3::new(x, y, z)).collect();
        let mut far = Vec3::ZERO;
        far[axis] = 10f32.powi(exponent);
        points.push(far);
        points.push(Vec3::ZERO);
        prop_assert_eq!(convex_hull(&points), Err(HullError::Collinear));
    }
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

/// Point sets on which the hull folded a triangle over its neighbour in a nearly flat patch
/// (found by a stress test on subdivided meshes): 13 points of a chess-table collapse (tolerance
/// 0.1; a hull vertex was 4.83 in front of a face) and 51 of a bunny collapse (a point 54 tolerances
/// outside the hull).
#[test]
fn nearly_flat_patches_do_not_fold() {
    let chess: [[f32; 3]; 13] = [
        [28.063688, -169.84381, -57.186424],
        [21.10524, -168.7461, -64.95554],
        [44.561176, -169.84381, -45.200348],
        [21.81858, -167.64836, -67.151],
        [10.90929, -165.45314, -67.151],
        [21.81858, -165.45314, -67.151],
        [48.295677, -167.64836, -47.91375],
        [55.254124, -168.7461, -40.14463],
        [39.469975, -165.45314, -54.326168],
        [53.386875, -169.84381, -38.78793],
        [30.64428, -165.45314, -60.738583],
        [30.64428, -163.25793, -60.738583],
        [39.469975, -165.45314, -54.326168],
    ];
    let bunny: [[f32; 3]; 51] = [
        [0.23294806, 0.10009201, 0.86937594],
        [0.2519161, 0.026820011, 0.94015193],
        [0.21484211, 0.013410006, 1.095176],
        [-0.07593086, 0.026820011, 1.163512],
        [0.15186413, 0.026820011, 1.1535159],
        [0.22779611, 0.026820011, 1.1435199],
        [1.53e-7, 0.063456014, 1.210146],
        [1.53e-7, 0.08177401, 1.228465],
        [-0.2325349, 0.045138013, 1.1612139],
        [-0.15186188, 0.026820011, 1.1535159],
        [-0.1630809, 0.125116, 1.232019],
        [-0.32616195, 0.15014, 1.2172539],
        [-0.32789695, 0.175164, 1.2237309],
        [-0.6334479, 0.175164, 1.0971658],
        [-0.70274293, 0.200188, 1.052372],
        [-0.6334479, 0.22521201, 1.0971658],
        [-0.69464993, 0.250236, 1.0418248],
        [0.22774306, 0.22521201, 0.84994495],
        [0.2907741, 0.386966, 1.085182],
        [0.2778201, 0.400376, 1.03684],
        [0.2519161, 0.373556, 0.94015193],
        [0.23294806, 0.300284, 0.86937594],
        [1.53e-7, 0.386966, 1.1234599],
        [0.07593214, 0.380261, 1.1384879],
        [1.53e-7, 0.400376, 1.073412],
        [-0.40307194, 0.22521201, 1.1925929],
        [-0.62339187, 0.300284, 1.0797479],
        [-0.40642393, 0.200188, 1.198399],
        [-0.63679993, 0.200188, 1.1029719],
        [-0.3978669, 0.300284, 1.173162],
        [-0.59591186, 0.355238, 1.0321529],
        [-0.82979584, 0.373556, 0.82979596],
        [-0.5867518, 0.373556, 1.0162879],
        [-0.7590159, 0.400376, 0.75902],
        [-0.59228194, 0.400376, 0.88695794],
        [-0.7059339, 0.380261, 0.70593494],
        [-1.110883, 0.300284, 0.548217],
        [-1.1029719, 0.200188, 0.636804],
        [-1.0162878, 0.373556, 0.586756],
        [-1.1478289, 0.27526, 0.47639498],
        [-1.2042999, 0.300284, 0.32269198],
        [-1.2149209, 0.300284, 0.24201898],
        [-1.2302039, 0.200188, 0.32963195],
        [-1.1925889, 0.175164, 0.40307194],
        [-1.186605, 0.318602, 0.31795096],
        [-1.1512148, 0.355238, 0.308469],
        [-1.1042118, 0.373556, 0.374485],
        [-1.2320179, 0.27526, 0.16308099],
        [-1.2072228, 0.318602, 0.16134599],
        [-1.2178438, 0.318602, 0.080672994],
        [-1.2255418, 0.300284, 0.16134599],
    ];
    for (name, points, tolerance) in [("chess", &chess[..], 0.1), ("bunny", &bunny[..], 0.0002547208)] {
        let points: Vec<Vec3> = points.iter().map(|&p| Vec3::from_array(p)).collect();
        let hull = convex_hull_with_tolerance(&points, tolerance).unwrap();
        check(name, &points, &hull);
    }
}

/// Clouds far from the origin (a stress test's: 200 points on a sphere of radius 100 at 1e5 folded
/// a face, a hull vertex 0.115 in front of it, 3.2 tolerances; at 1e7 every seed failed). The
/// planes' thickness has a floor at the rounding of the coordinates it works on, which there was
/// the whole tolerance: the hull is now built about the points' centre.
#[test]
fn clouds_far_from_the_origin_do_not_fold() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut f = || rng.range(-1.0, 1.0);
    for (radius, offset) in [(100.0, 1e5), (100.0, 1e7), (1000.0, 1e7), (1.0, 1e4)] {
        for round in 0..4 {
            let mut points = Vec::new();
            while points.len() < 200 {
                let v = Vec3::new(f(), f(), f());
                let l = v.length();
                if l > 0.1 && l <= 1.0 {
                    points.push(v / l * radius + Vec3::splat(offset));
                }
            }
            let name = format!("radius {radius} at {offset}, round {round}");
            check(&name, &points, &convex_hull(&points).unwrap_or_else(|e| panic!("{name}: {e}")));
        }
    }
}

/// The corners of a box at +-f32::MAX: the extent overflowed `f32`, the default tolerance became
/// infinite, and every point was one (`AllCoincident`).
#[test]
fn a_box_at_the_float_range_is_a_box() {
    let m = f32::MAX;
    let points: Vec<Vec3> = (0..8)
        .map(|i| {
            Vec3::new(if i & 1 == 0 { -m } else { m }, if i & 2 == 0 { -m } else { m }, if i & 4 == 0 { -m } else { m })
        })
        .collect();
    let hull = convex_hull(&points).expect("a hull");
    assert_eq!((hull.vertices.len(), hull.triangles.len()), (8, 12));
    assert!(hull.tolerance.is_finite());
}
