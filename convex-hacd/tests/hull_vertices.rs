//! An `insta` snapshot of a small decomposition's hull vertices: a change to any hull of the
//! notched cube shows up in review as a diff of coordinates.
//!
//! Coordinates are rounded to 4 decimals with `-0.0` printed as `0.0`. The vertices of a hull are a
//! set (their order comes from Quickhull's internals), so each hull's lines are sorted, and the
//! hulls are sorted by their vertex lists: the snapshot compares hulls, not the order of the work.

use convex_hacd::{DecomposeOptions, decompose};
use voxel_testdata::{load_mesh, testdata_file};

fn round(x: f32) -> String {
    let s = format!("{x:.4}");
    if s.parse::<f64>() == Ok(0.0) { format!("{:.4}", 0.0) } else { s }
}

#[test]
fn notched_cube_hull_vertices() {
    let mesh = load_mesh(&testdata_file("meshes/cad/cube-notch.obj")).unwrap();
    let d = decompose(&mesh, &DecomposeOptions::default()).unwrap();
    let mut hulls: Vec<(bool, Vec<String>)> = d
        .hulls
        .iter()
        .map(|h| {
            let mut lines: Vec<String> =
                h.vertices.iter().map(|v| format!("{} {} {}", round(v.x), round(v.y), round(v.z))).collect();
            lines.sort();
            lines.dedup();
            (h.flat, lines)
        })
        .collect();
    hulls.sort_by(|a, b| a.1.cmp(&b.1));
    let mut s = format!("{} hulls\n", hulls.len());
    for (i, (flat, lines)) in hulls.iter().enumerate() {
        s += &format!("hull {i}: {} vertices{}\n", lines.len(), if *flat { ", flat" } else { "" });
        for line in lines {
            s += &format!("  {line}\n");
        }
    }
    insta::assert_snapshot!(s);
}
