//! Meshes a generated terrain chunk by chunk and writes one OBJ file per surface (solid, water),
//! ready for any mesh viewer.
//!
//! ```text
//! cargo run --release -p voxel-mesh --example terrain_obj -- [out-dir] [blocky]
//! ```
//!
//! Without `out-dir` the files (about 8 MB) go to `target/terrain_obj/` (under `CARGO_TARGET_DIR`
//! when it is set), never into the repository.

use std::fs::File;
use std::io::{BufWriter, Write};

use glam::IVec3;
use voxel_core::VoxelBox;
use voxel_mesh::{Mesh, MeshOptions, Mesher, Surface};
use voxel_store::generate::{self, Terrain};

/// Where the files go when no folder is named: cargo's target folder, not the source tree.
fn default_out_dir() -> std::path::PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(workspace_target, Into::into).join("terrain_obj")
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out_dir = std::env::args().nth(1).map_or_else(default_out_dir, Into::into);
    std::fs::create_dir_all(&out_dir)?;
    let blocky = std::env::args().nth(2).is_some_and(|a| a == "blocky");
    let size = IVec3::new(128, 64, 128);
    let world = generate::terrain(&Terrain::new(size, 5))?;
    let mut mesher = Mesher::new();
    let mut chunk_mesh = Mesh::new();
    for (name, surface) in [("solid", Surface::Solid), ("water", Surface::Liquid)] {
        let options = MeshOptions { surface, ..MeshOptions::default() };
        // One OBJ for the whole region: chunk meshes appended with their indices offset.
        let mut positions = Vec::new();
        let mut normals = Vec::new();
        let mut faces = Vec::new();
        for key in VoxelBox::new(IVec3::ZERO, size).chunk_keys(32).iter() {
            let chunk = VoxelBox::chunk(key, 32);
            if blocky {
                mesher.blocky(&world, chunk, &options, &mut chunk_mesh)?;
            } else {
                mesher.surface_nets(&world, chunk, &options, &mut chunk_mesh)?;
            }
            let base = positions.len() as u32;
            positions.extend_from_slice(chunk_mesh.positions());
            normals.extend_from_slice(chunk_mesh.normals());
            faces.extend((0..chunk_mesh.quad_count()).map(|q| chunk_mesh.quad(q).map(|i| i + base)));
        }
        let path = out_dir.join(format!("terrain-{name}.obj"));
        let mut w = BufWriter::new(File::create(&path)?);
        for p in &positions {
            writeln!(w, "v {} {} {}", p.x, p.y, p.z)?;
        }
        for n in &normals {
            writeln!(w, "vn {} {} {}", n.x, n.y, n.z)?;
        }
        for [a, b, c, d] in &faces {
            let [a, b, c, d] = [a + 1, b + 1, c + 1, d + 1];
            writeln!(w, "f {a}//{a} {b}//{b} {c}//{c} {d}//{d}")?;
        }
        println!("{}: {} vertices, {} quads", path.display(), positions.len(), faces.len());
    }
    Ok(())
}

/// The workspace's `target/` folder (this crate's parent folder holds the workspace).
fn workspace_target() -> std::path::PathBuf {
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).join("target")
}
