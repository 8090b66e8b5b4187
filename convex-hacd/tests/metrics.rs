//! `tightness` on shapes whose answer is known by hand: a convex shape scored against its own hull,
//! the hull of an L-shaped prism (the notch it fills sticks out by a known amount over a known
//! area), an open sheet (distance alone), a double-sided sheet, and bad input.

use convex_hacd::{TightnessError, TightnessOptions, convex_hull, tightness};
use glam::Vec3;
use voxel_core::IndexedMesh;

/// A prism over the counter-clockwise polygon `outline` (a fan from its first corner must cover
/// it), from z = 0 to z = `height`, outward triangles.
fn prism(outline: &[(f32, f32)], height: f32) -> IndexedMesh {
    let n = outline.len() as u32;
    let mut positions: Vec<Vec3> = outline.iter().map(|&(x, y)| Vec3::new(x, y, 0.0)).collect();
    positions.extend(outline.iter().map(|&(x, y)| Vec3::new(x, y, height)));
    let mut triangles = Vec::new();
    for k in 1..n - 1 {
        triangles.push([0, k + 1, k]);
        triangles.push([n, n + k, n + k + 1]);
    }
    for k in 0..n {
        let j = (k + 1) % n;
        triangles.push([k, j, n + j]);
        triangles.push([k, n + j, n + k]);
    }
    IndexedMesh::new(positions, triangles).unwrap()
}

const L: [(f32, f32); 6] = [(0.0, 0.0), (2.0, 0.0), (2.0, 1.0), (1.0, 1.0), (1.0, 2.0), (0.0, 2.0)];

#[test]
fn a_convex_shape_scored_against_its_own_hull_has_nothing_outside() {
    let mesh = prism(&[(0.0, 0.0), (3.0, 0.0), (3.0, 1.0), (0.0, 2.0)], 1.5);
    let hull = convex_hull(mesh.positions()).unwrap();
    let score = tightness(&mesh, [(&hull.vertices[..], &hull.triangles[..])], &TightnessOptions::default()).unwrap();
    assert_eq!(score.samples, 20_000);
    assert_eq!(score.outside, 0);
    assert!(score.farthest < 1e-5, "{score:?}");
    assert!((score.diagonal - (9.0f32 + 4.0 + 2.25).sqrt()).abs() < 1e-5);
}

#[test]
fn the_hull_of_an_l_shape_sticks_out_as_computed_by_hand() {
    // The hull adds the prism over the triangle (1,1) (2,1) (1,2). A point of it at in-plane
    // offsets u = x - 1, v = y - 1 is min(u, v) from the L; the farthest is the middle of the
    // slanted face, (1.5, 1.5): 0.5. The diagonal is 3, so the farthest is 1/6 of it.
    //
    // Outside by more than 1% (0.03): on the slanted face (area sqrt 2) the middle 94%, on each
    // cap the triangle u, v > 0.03, u + v < 1 (area 0.94^2 / 2). The hull's area: caps 2 x 3.5,
    // sides 2 + 2 + 1 + 1, slanted face sqrt 2. Share = (0.94 sqrt 2 + 0.94^2) / (13 + sqrt 2).
    let mesh = prism(&L, 1.0);
    let hull = convex_hull(mesh.positions()).unwrap();
    let score = tightness(&mesh, [(&hull.vertices[..], &hull.triangles[..])], &TightnessOptions::default()).unwrap();
    let share = (0.94 * 2f64.sqrt() + 0.94 * 0.94) / (13.0 + 2f64.sqrt());
    assert!((f64::from(score.outside_share) - share).abs() < 0.005, "{score:?} vs {share}");
    assert!(score.farthest <= 1.0 / 6.0 + 1e-6 && score.farthest > 0.99 / 6.0, "{score:?}");

    // Split into its two boxes, the same L has nothing outside.
    let a = prism(&[(0.0, 0.0), (2.0, 0.0), (2.0, 1.0), (0.0, 1.0)], 1.0);
    let b = prism(&[(0.0, 1.0), (1.0, 1.0), (1.0, 2.0), (0.0, 2.0)], 1.0);
    let parts = [convex_hull(a.positions()).unwrap(), convex_hull(b.positions()).unwrap()];
    let score =
        tightness(&mesh, parts.iter().map(|h| (&h.vertices[..], &h.triangles[..])), &TightnessOptions::default())
            .unwrap();
    assert_eq!(score.outside, 0, "{score:?}");
    assert!(score.farthest < 1e-5, "{score:?}");
}

#[test]
fn an_open_sheet_is_judged_by_distance_alone() {
    // A unit square (one side only) and a box of height 0.5 on it: the top and the upper part of
    // the sides stick out; the farthest is the top, 0.5 from the sheet, over a diagonal of sqrt 2.
    let sheet =
        IndexedMesh::new(vec![Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.0), Vec3::Y], vec![[0, 1, 2], [0, 2, 3]])
            .unwrap();
    let corners: Vec<Vec3> =
        (0..8).map(|i| Vec3::new((i & 1) as f32, ((i >> 1) & 1) as f32, 0.5 * (i >> 2) as f32)).collect();
    let hull = convex_hull(&corners).unwrap();
    for sheet in [sheet.clone(), double_sided(&sheet)] {
        let score =
            tightness(&sheet, [(&hull.vertices[..], &hull.triangles[..])], &TightnessOptions::default()).unwrap();
        assert!((score.farthest - 0.5 / 2f32.sqrt()).abs() < 1e-4, "{score:?}");
        // Of the hull's area 4: the top (1), and the four sides (1 x 0.5 each) above height 1% of
        // sqrt 2 (a side point is as far from the sheet as it is high); the bottom is on the sheet.
        let share = (1.0 + 4.0 * (0.5 - 0.01 * 2f32.sqrt())) / 4.0;
        assert!((score.outside_share - share).abs() < 0.01, "{score:?} vs {share}");
    }
}

fn double_sided(mesh: &IndexedMesh) -> IndexedMesh {
    let mut triangles = mesh.triangles().to_vec();
    triangles.extend(mesh.triangles().iter().map(|t| [t[0], t[2], t[1]]));
    IndexedMesh::new(mesh.positions().to_vec(), triangles).unwrap()
}

#[test]
fn bad_input_gives_typed_errors() {
    let mesh = prism(&L, 1.0);
    let hull = convex_hull(mesh.positions()).unwrap();
    let one = || [(&hull.vertices[..], &hull.triangles[..])];
    let zero = TightnessOptions { samples: 0, ..TightnessOptions::default() };
    assert_eq!(tightness(&mesh, one(), &zero), Err(TightnessError::InvalidOptions));
    let nan = TightnessOptions { threshold: f32::NAN, ..TightnessOptions::default() };
    assert_eq!(tightness(&mesh, one(), &nan), Err(TightnessError::InvalidOptions));
    let empty = IndexedMesh::default();
    assert_eq!(tightness(&empty, one(), &TightnessOptions::default()), Err(TightnessError::EmptyInput));
    let bad = [[0u32, 1, 99]];
    assert_eq!(
        tightness(&mesh, [(&hull.vertices[..], &bad[..])], &TightnessOptions::default()),
        Err(TightnessError::BadHullIndex { hull: 0 })
    );
    let nan_vertex = [Vec3::NAN, Vec3::X, Vec3::Y];
    assert_eq!(
        tightness(
            &mesh,
            [(&hull.vertices[..], &hull.triangles[..]), (&nan_vertex[..], &bad[..])],
            &TightnessOptions::default()
        ),
        Err(TightnessError::NonFiniteHull { hull: 1 })
    );
    // A source whose triangle names a vertex it does not have.
    struct Broken;
    impl voxel_core::TriangleSource for Broken {
        fn vertex_count(&self) -> usize {
            3
        }
        fn vertex(&self, index: u32) -> Vec3 {
            [Vec3::ZERO, Vec3::X, Vec3::Y][index as usize]
        }
        fn triangle_count(&self) -> usize {
            1
        }
        fn triangle(&self, _: u32) -> [u32; 3] {
            [0, 1, 7]
        }
    }
    assert_eq!(tightness(&Broken, one(), &TightnessOptions::default()), Err(TightnessError::BadMesh));
    // No hulls, or hulls without area: nothing sampled, nothing outside.
    let score = tightness(&mesh, std::iter::empty(), &TightnessOptions::default()).unwrap();
    assert_eq!((score.samples, score.outside, score.farthest), (0, 0, 0.0));
}

#[test]
fn the_decomposition_of_the_cup_is_tight_where_its_convex_hull_is_not() {
    // The cup's convex hull seals its cavity: a large share of its surface (the lid over the
    // opening) is far outside the cup. The decomposition keeps the cavity open, so no part of it
    // sticks out by more than 1% of the diagonal (the concavity limit is 1% of the largest side).
    let mesh = voxel_testdata::load_mesh(&voxel_testdata::testdata_file("meshes/concave/cup.obj")).unwrap();
    let options = TightnessOptions::default();
    let hull = convex_hull(mesh.positions()).unwrap();
    let sealed = tightness(&mesh, [(&hull.vertices[..], &hull.triangles[..])], &options).unwrap();
    assert!(sealed.outside_share > 0.05 && sealed.farthest > 0.1, "{sealed:?}");
    let parts = convex_hacd::decompose(&mesh, &convex_hacd::DecomposeOptions::default()).unwrap();
    let score = tightness(&mesh, parts.hulls.iter().map(|h| (&h.vertices[..], &h.triangles[..])), &options).unwrap();
    assert!(score.outside_share < 0.001 && score.farthest < 0.01, "{score:?}");
}
