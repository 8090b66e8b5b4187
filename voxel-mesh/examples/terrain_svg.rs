//! Draws a generated terrain region meshed chunk by chunk as an SVG picture: Surface Nets on the
//! left (neighbouring chunks in different tints, so the seams show where there are none), greedy blocky quads
//! on the right (each quad outlined, so the merging shows). The README's picture comes from this:
//!
//! ```text
//! cargo run --release -p voxel-mesh --example terrain_svg -- out.svg [seed]
//! ```
//!
//! Without `out.svg` the picture goes to `target/terrain.svg` (under `CARGO_TARGET_DIR` when it is
//! set), never into the repository.
//!
//! Flat shading and the painter's algorithm (triangles sorted far to near by their centres).

use std::fmt::Write as _;

use glam::{IVec3, Mat3, Vec3};
use voxel_core::{TriangleSource, VoxelBox};
use voxel_mesh::{Mesh, MeshOptions, Mesher};
use voxel_store::generate::{self, Terrain};

/// A polygon to draw: its corners on the page, depth, fill and outline colours.
struct Shape {
    corners: Vec<(f32, f32)>,
    depth: f32,
    fill: [u8; 3],
    stroke: [u8; 3],
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let output: std::path::PathBuf = std::env::args().nth(1).map_or_else(
        || std::env::var_os("CARGO_TARGET_DIR").map_or_else(workspace_target, Into::into).join("terrain.svg"),
        Into::into,
    );
    let seed: u64 = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(5);
    // A 32 x 40 x 32 region cut from a larger world of steeper hills than the generator's
    // default (so the region's sides are cuts, with no surface, and the top shows relief).
    let world_size = IVec3::new(64, 40, 64);
    let terrain = Terrain { frequency: 1.0 / 28.0, amplitude: 12.0, octaves: 3, ..Terrain::new(world_size, seed) };
    let world = generate::terrain(&terrain)?;
    let size = IVec3::new(32, 40, 32);
    let region = VoxelBox::from_min_size(IVec3::new(16, 0, 16), size);
    let (mut mesher, mut mesh) = (Mesher::new(), Mesh::new());
    let view = Mat3::from_rotation_x(30f32.to_radians()) * Mat3::from_rotation_y(35f32.to_radians());
    // Framed on the ground surface (about the generator's mean height), not the whole column.
    let centre = region.min.as_vec3() + Vec3::new(16.0, 20.0, 16.0);
    let radius = 21.0;
    // Each panel is 320 x 300 units; y grows downwards on the page.
    let page = |p: Vec3, panel: f32| {
        let q = view * (p - centre) / radius;
        ((panel * 320.0 + 160.0 + q.x * 150.0, 150.0 - q.y * 150.0), q.z)
    };
    let light = Vec3::new(-0.4, 0.7, 0.6).normalize();
    let mut shapes = Vec::new();
    let mut counts = [0usize; 2];
    for (panel, blocky) in [(0.0, false), (1.0, true)] {
        for key in region.chunk_keys(16).iter() {
            let chunk = VoxelBox::chunk(key, 16).intersection(&region);
            if blocky {
                mesher.blocky(&world, chunk, &MeshOptions::default(), &mut mesh)?;
            } else {
                mesher.surface_nets(&world, chunk, &MeshOptions::default(), &mut mesh)?;
            }
            counts[usize::from(blocky)] += if blocky { mesh.quad_count() } else { mesh.triangle_count() };
            // Blocky: whole quads, outlined; Surface Nets: triangles, tinted per chunk.
            let polygons: Vec<Vec<u32>> = if blocky {
                (0..mesh.quad_count()).map(|q| mesh.quad(q).to_vec()).collect()
            } else {
                (0..mesh.triangle_count()).map(|t| mesh.triangle(t as u32).to_vec()).collect()
            };
            // Neighbouring chunks, along any axis, in different tints.
            let tint = if (key.x + key.y + key.z).rem_euclid(2) == 0 { 1.0 } else { 0.88 };
            for polygon in polygons {
                let corners: Vec<Vec3> = polygon.iter().map(|&i| mesh.positions()[i as usize]).collect();
                let n = view * (corners[1] - corners[0]).cross(corners[2] - corners[0]);
                // Front faces only (the camera looks down -z).
                let Some(n) = n.try_normalize().filter(|n| n.z > 0.0) else { continue };
                let shade = (0.35 + 0.65 * n.dot(light).max(0.0)) * tint;
                let base = colour(mesh.materials()[polygon[0] as usize]);
                let fill = base.map(|c| (f32::from(c) * shade) as u8);
                let projected: Vec<_> = corners.iter().map(|&p| page(p, panel)).collect();
                shapes.push(Shape {
                    depth: projected.iter().map(|(_, z)| z).sum::<f32>() / projected.len() as f32,
                    corners: projected.into_iter().map(|(c, _)| c).collect(),
                    fill,
                    stroke: if blocky { fill.map(|c| c / 2) } else { fill },
                });
            }
        }
    }
    shapes.sort_by(|a, b| a.depth.total_cmp(&b.depth));
    let mut svg = String::new();
    let _ = writeln!(svg, r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 640 320" width="640" height="320">"#);
    let _ = writeln!(svg, r#"<rect width="640" height="320" fill="white"/>"#);
    for s in &shapes {
        let mut d = String::new();
        for (i, (x, y)) in s.corners.iter().enumerate() {
            let _ = write!(d, "{}{x:.1} {y:.1}", if i == 0 { "M" } else { "L" });
        }
        let ([r, g, b], [sr, sg, sb]) = (s.fill, s.stroke);
        let _ = writeln!(
            svg,
            r##"<path d="{d}Z" fill="#{r:02x}{g:02x}{b:02x}" stroke="#{sr:02x}{sg:02x}{sb:02x}" stroke-width="0.3"/>"##
        );
    }
    let label = |x: u32, text: String| {
        format!(r#"<text x="{x}" y="312" font-family="sans-serif" font-size="12" text-anchor="middle">{text}</text>"#)
    };
    let _ = writeln!(svg, "{}", label(160, format!("Surface Nets, 16^3 chunks: {} triangles", counts[0])));
    let _ = writeln!(svg, "{}", label(480, format!("greedy blocky, 16^3 chunks: {} quads", counts[1])));
    svg.push_str("</svg>\n");
    if let Some(folder) = output.parent() {
        std::fs::create_dir_all(folder)?;
    }
    std::fs::write(&output, svg)?;
    println!("wrote {}", output.display());
    Ok(())
}

/// A colour per material id: the generator's materials in their own tones, grey for any other.
fn colour(material: u8) -> [u8; 3] {
    use voxel_store::generate::materials::{DIRT, GRASS, ROCK, WATER};
    match material {
        GRASS => [95, 165, 70],
        DIRT => [145, 105, 65],
        ROCK => [150, 150, 150],
        WATER => [70, 120, 200],
        _ => [190, 190, 190],
    }
}

/// The workspace's `target/` folder (this crate's parent folder holds the workspace).
fn workspace_target() -> std::path::PathBuf {
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).join("target")
}
