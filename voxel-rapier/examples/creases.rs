//! The crease scenes of `tests/creases.rs` on four grounds: ours, rapier's `TriMesh` per chunk
//! without and with `FIX_INTERNAL_EDGES`, and one stitched `TriMesh` with the flag. Prints, per
//! scene, how deep the body got inside the surface once landed and whether it fell through.
//!
//! `cargo run --release -p voxel-rapier --example creases`

#[path = "../tests/common/mod.rs"]
mod common;

use common::*;
use parry3d::shape::TriMeshFlags;
use voxel_rapier::{TerrainShape, reference};

fn main() {
    let grounds = ["ours", "TriMesh per chunk", "per chunk + FIX_INTERNAL_EDGES", "stitched + FIX_INTERNAL_EDGES"];
    let mut fell = [0usize; 4];
    let mut worst = [0.0f32; 4];
    let mut bumps = [0usize; 4];
    for angle in [2.0, 10.0, 30.0] {
        for (apex, place) in [(SEAM_X, "seam"), (MID_X, "mid-chunk")] {
            let (collider, h) = ridge(angle, apex);
            let stick = stitched(&collider);
            let per_chunk = reference::trimesh_per_chunk(&collider, TriMeshFlags::empty());
            let per_chunk_fixed = reference::trimesh_per_chunk(&collider, TriMeshFlags::FIX_INTERNAL_EDGES);
            let one =
                vec![reference::stitched_trimesh(&collider, TriMeshFlags::FIX_INTERNAL_EDGES).expect("a surface")];
            let terrain = TerrainShape::new(collider);
            for scene in scenes(apex, h) {
                let mut line = format!("{angle:>2} deg {place:<9} {:<36}", scene.name);
                for g in 0..4 {
                    let sim = match g {
                        0 => Sim::ours(&terrain),
                        1 => Sim::meshes(&per_chunk),
                        2 => Sim::meshes(&per_chunk_fixed),
                        _ => Sim::meshes(&one),
                    };
                    let o = run_scene(sim, &scene, h, &stick);
                    fell[g] += usize::from(o.fell);
                    bumps[g] += o.bumps;
                    if !o.fell {
                        worst[g] = worst[g].max(o.deepest);
                    }
                    line += &if o.fell {
                        format!(" | {:>9}", "FELL")
                    } else {
                        format!(" | {:>6.2} mm", o.deepest * 1000.0)
                    };
                }
                println!("{line}");
            }
        }
    }
    println!();
    for g in 0..4 {
        println!(
            "{:<32} fell through: {:>2}   deepest of the others: {:>6.2} mm   upward-velocity steps: {}",
            grounds[g],
            fell[g],
            worst[g] * 1000.0,
            bumps[g]
        );
    }
}
