//! `insta` snapshots of hull counts, vertex counts and errors for a few meshes at the default
//! options: a change in the decomposition shows up in review as a diff of these lines.

use std::fmt::Write;

use convex_hacd::{DecomposeOptions, decompose};
use voxel_testdata::{load_mesh, testdata_file};

#[test]
fn hull_counts() {
    let mut s = String::new();
    for file in [
        "meshes/cad/box-thick.obj",
        "meshes/cad/cube-notch.obj",
        "meshes/cad/cube-subdivided.obj",
        "meshes/concave/cup.obj",
        "meshes/torus/torus.obj",
        "meshes/furniture/chair-gothic.obj",
    ] {
        let mesh = load_mesh(&testdata_file(file)).unwrap();
        let d = decompose(&mesh, &DecomposeOptions::default()).unwrap();
        let vertices: usize = d.hulls.iter().map(|h| h.vertices.len()).sum();
        let flat = d.hulls.iter().filter(|h| h.flat).count();
        let worst = d.hulls.iter().map(|h| h.error).fold(0.0f32, f32::max);
        // Errors relative to the bounding box's largest side, 3 decimals (in % of it).
        let (lo, hi) = mesh
            .positions()
            .iter()
            .fold((glam::Vec3::INFINITY, glam::Vec3::NEG_INFINITY), |(lo, hi), p| (lo.min(*p), hi.max(*p)));
        let size = (hi - lo).max_element();
        writeln!(
            s,
            "{file}: {} hulls ({flat} flat), {vertices} vertices, worst error {:.3}% of the size",
            d.hulls.len(),
            100.0 * worst / size + 0.0
        )
        .unwrap();
    }
    insta::assert_snapshot!(s);
}
