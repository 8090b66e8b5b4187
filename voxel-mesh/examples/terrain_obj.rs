//! Meshes a generated terrain chunk by chunk and writes one OBJ file per surface (solid, water),
//! ready for any mesh viewer.
//!
//! ```text
//! cargo run --release -p voxel-mesh --example terrain_obj -- [out-dir] [blocky]
//! ```

use std::fs::File;
use std::io::{BufWriter, Write};

use glam::IVec3;
use voxel_core::VoxelBox;
use voxel_mesh::{Mesh, MeshOptions, Mesher, Surface};
use voxel_store::generate::{self, Terrain};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out_dir = std::env::args().nth(1).unwrap_or_else(|| ".".into());
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
        let path = std::path::Path::new(&out_dir).join(format!("terrain-{name}.obj"));
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
