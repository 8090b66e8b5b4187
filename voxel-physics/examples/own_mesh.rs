//! Bring your own triangles: implement `TriangleSource` for an engine's own mesh, build the loose
//! kD tree over it, cast rays, and generate contacts from the triangles a box query returns.
//!
//! ```sh
//! cargo run --release -p voxel-physics --example own_mesh
//! ```

use glam::Vec3;
use voxel_physics::voxel_contacts::{Candidates, ContactGenerator, ContactOptions, FeatureKeys, Shape, Sphere};
use voxel_physics::voxel_core::{Aabb, Contact, Ray, TriangleSource};
use voxel_physics::voxel_kdtree::{KdTree, Scratch};

/// An engine's own mesh: interleaved `[f32; 3]` positions and a flat `u32` index list, as a
/// renderer would upload them.
struct EngineMesh {
    positions: Vec<[f32; 3]>,
    indices: Vec<u32>,
}

impl EngineMesh {
    /// A bumpy grid of `n` x `n` quads, counter-clockwise seen from above; neighbouring triangles
    /// share vertex indices (what contact generation needs to recognise internal edges).
    fn bumpy_grid(n: u32) -> Self {
        let mut positions = Vec::new();
        for z in 0..=n {
            for x in 0..=n {
                let (fx, fz) = (x as f32, z as f32);
                positions.push([fx, 0.3 * (fx * 0.7).sin() * (fz * 0.5).cos(), fz]);
            }
        }
        let mut indices = Vec::new();
        let at = |x: u32, z: u32| x + (n + 1) * z;
        for z in 0..n {
            for x in 0..n {
                indices.extend_from_slice(&[at(x, z), at(x, z + 1), at(x + 1, z + 1)]);
                indices.extend_from_slice(&[at(x, z), at(x + 1, z + 1), at(x + 1, z)]);
            }
        }
        Self { positions, indices }
    }
}

/// Four required methods; the material defaults to 0.
impl TriangleSource for EngineMesh {
    fn vertex_count(&self) -> usize {
        self.positions.len()
    }
    fn vertex(&self, index: u32) -> Vec3 {
        Vec3::from_array(self.positions[index as usize])
    }
    fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }
    fn triangle(&self, index: u32) -> [u32; 3] {
        let i = 3 * index as usize;
        [self.indices[i], self.indices[i + 1], self.indices[i + 2]]
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mesh = EngineMesh::bumpy_grid(32);

    // The tree stores triangle ids only: queries take the mesh it was built from.
    let tree = KdTree::build(&mesh)?;
    let mut scratch = Scratch::for_tree(&tree);
    println!(
        "voxel-kdtree: {} triangles, {} nodes of 12 bytes, depth {}",
        tree.len(),
        tree.nodes().len(),
        tree.depth()
    );

    let ray = Ray::new(Vec3::new(10.3, 5.0, 7.7), Vec3::new(0.2, -1.0, 0.1).normalize());
    let hit = tree.cast_ray(&mesh, &ray, 100.0, &mut scratch).ok_or("the ray missed")?;
    println!("ray hit triangle {} at {:.3}", hit.triangle, ray.at(hit.t));

    // Contacts: the triangles near the ball (a box query), then voxel-contacts over them. One clean
    // mesh with shared indices, so vertex-id keys recognise its internal edges.
    let ball = Shape::Sphere(Sphere { center: Vec3::new(12.0, 0.35, 12.0), radius: 0.5 });
    let options = ContactOptions { contact_distance: 0.01, keys: FeatureKeys::Indices, ..ContactOptions::default() };
    let mut found = Vec::new();
    let query: Aabb = ball.aabb().grow(options.contact_distance);
    tree.query_aabb_exact(&mesh, &query, &mut scratch, &mut found);
    let mut candidates = Candidates::new();
    for &t in &found {
        candidates.push(t, mesh.triangle_positions(t), mesh.triangle(t));
    }
    let mut contacts: Vec<Contact> = Vec::new();
    let report = ContactGenerator::new().generate(&ball, &candidates, &options, &mut contacts)?;
    println!(
        "voxel-contacts: {} candidate triangles, {} contact(s), {} delayed edge or vertex contacts voided",
        report.candidates,
        contacts.len(),
        report.voided
    );
    for c in &contacts {
        println!("  point {:.3} normal {:.3} depth {:.3} on triangle {}", c.point, c.normal, c.depth, c.triangle);
    }
    Ok(())
}
