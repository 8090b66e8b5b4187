//! `insta` snapshot of a small tree's structure: one line per node, planes to 3 decimals.

use std::fmt::Write;

use glam::Vec3;
use voxel_core::IndexedMesh;
use voxel_kdtree::KdTree;
use voxel_kdtree::raw::NodeKind;

fn describe(tree: &KdTree) -> String {
    let b = tree.bounds();
    let mut s = format!(
        "{} triangles, {} skipped, {} nodes, depth {}, bounds {:?}..{:?}\n",
        tree.len(),
        tree.skipped(),
        tree.nodes().len(),
        tree.depth(),
        b.min.to_array(),
        b.max.to_array()
    );
    let axis = ["x", "y", "z"];
    for (i, node) in tree.nodes().iter().enumerate() {
        match node.kind() {
            NodeKind::Branch { axis: a, planes, first_child } => writeln!(
                s,
                "n{i:<2} branch {}: left <= {:.3}, right >= {:.3}, children n{first_child} n{}",
                axis[a],
                planes[0] + 0.0,
                planes[1] + 0.0,
                first_child + 1
            ),
            NodeKind::Leaf { count, ids } => writeln!(s, "n{i:<2} leaf {:?}", &ids[..count]),
        }
        .unwrap();
    }
    s
}

/// A 4x2 strip of unit quads on a gentle slope, one triangle degenerate (repeated corner).
#[test]
fn strip_of_quads() {
    let mut positions = Vec::new();
    for z in 0..3 {
        for x in 0..5 {
            positions.push(Vec3::new(x as f32, 0.25 * x as f32, z as f32));
        }
    }
    let id = |x: u32, z: u32| z * 5 + x;
    let mut tris = Vec::new();
    for z in 0..2 {
        for x in 0..4 {
            tris.push([id(x, z), id(x, z + 1), id(x + 1, z + 1)]);
            tris.push([id(x, z), id(x + 1, z + 1), id(x + 1, z)]);
        }
    }
    tris.push([0, 0, 1]);
    let mesh = IndexedMesh::new(positions, tris).unwrap();
    insta::assert_snapshot!(describe(&KdTree::build(&mesh).unwrap()));
}
