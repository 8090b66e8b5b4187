//! Bring your own voxels: implement `VoxelSource` for an engine's own array, then use the
//! workspace's crates on it directly (mesher, broadphase, ray marcher), or copy it into a
//! `VoxelStore` for the whole terrain collider.
//!
//! ```sh
//! cargo run --release -p voxel-physics --example own_voxels
//! ```

use glam::{IVec3, Vec3};
use voxel_physics::voxel_broadphase::Broadphase;
use voxel_physics::voxel_core::{Aabb, Ray, RegionHint, Voxel, VoxelBox, VoxelSource};
use voxel_physics::voxel_mesh::{Mesh, MeshOptions, Mesher};
use voxel_physics::voxel_raymarch::Occupancy;
use voxel_physics::voxel_store::{VoxelStore, generate};
use voxel_physics::{ColliderOptions, TerrainCollider};

/// An engine's own terrain: a height per column, in a flat `Vec` (x fastest), and one material.
struct HeightField {
    size: IVec3,
    heights: Vec<f32>,
    material: u8,
}

impl HeightField {
    fn new(size: IVec3) -> Self {
        let heights = (0..size.x * size.z)
            .map(|i| {
                let (x, z) = ((i % size.x) as f32, (i / size.x) as f32);
                0.4 * size.y as f32 + 4.0 * (x * 0.15).sin() + 3.0 * (z * 0.11).cos()
            })
            .collect();
        Self { size, heights, material: generate::materials::ROCK }
    }

    fn height(&self, x: i32, z: i32) -> f32 {
        self.heights[(x + self.size.x * z) as usize]
    }
}

/// The one required method fills a box in the workspace's axis order (x fastest, then z, then y),
/// with `Voxel::EMPTY` outside the world. Distances are signed, negative inside, in voxel units
/// scaled to `i8` (50 steps per voxel, as `voxel-store` quantizes them).
impl VoxelSource for HeightField {
    fn fill_region(&self, region: VoxelBox, out: &mut [Voxel]) {
        let world = VoxelBox::new(IVec3::ZERO, self.size);
        for (p, v) in region.iter().zip(out.iter_mut()) {
            *v = if world.contains(p) {
                let d = (p.y as f32 - self.height(p.x, p.z)) * 50.0;
                Voxel::new(d.clamp(-127.0, 127.0) as i8, if d < 0.0 { self.material } else { 0 })
            } else {
                Voxel::EMPTY
            };
        }
    }

    /// Optional: a cheap answer for boxes wholly above the highest column, so consumers skip them.
    fn region_hint(&self, region: VoxelBox) -> RegionHint {
        let top = self.heights.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
        if region.min.y as f32 > top + 3.0 { RegionHint::Uniform(Voxel::EMPTY) } else { RegionHint::Unknown }
    }

    fn bounds(&self) -> Option<VoxelBox> {
        Some(VoxelBox::new(IVec3::ZERO, self.size))
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let size = IVec3::new(64, 32, 64);
    let field = HeightField::new(size);
    let world = VoxelBox::new(IVec3::ZERO, size);

    // 1. One crate at a time, straight on the engine's data.
    let mut mesher = Mesher::new();
    let mut mesh = Mesh::new();
    mesher.surface_nets(&field, VoxelBox::new(IVec3::ZERO, IVec3::splat(16)), &MeshOptions::default(), &mut mesh)?;
    println!("voxel-mesh: a 16^3 chunk of the height field has {} triangles", mesh.quad_count() * 2);

    let broadphase = Broadphase::build(&field, world)?;
    let mut hits = Vec::new();
    // A crate resting on the ground, and the same crate lifted 6 voxels.
    let ground = field.height(30, 30);
    for lift in [0.0, 6.0] {
        let crate_box = Aabb::new(Vec3::new(30.0, ground + lift, 30.0), Vec3::new(31.0, ground + lift + 1.0, 31.0));
        broadphase.query(&crate_box, &mut hits)?;
        let solid = hits.iter().filter(|h| h.solid).count();
        println!("voxel-broadphase: a crate {lift} voxels above the ground has solid pairs with {solid} chunks");
    }

    let occupancy = Occupancy::build(&field, world)?;
    let drop = occupancy.cast(&Ray::new(Vec3::new(30.5, 31.0, 30.5), Vec3::NEG_Y), 40.0);
    println!("voxel-raymarch: a particle dropped at (30.5, 30.5) lands on voxel {:?}", drop.map(|h| h.voxel));

    // 2. The whole collider: copy the voxels into a store (the collider edits its own world).
    let mut store = VoxelStore::with_palette(generate::palette());
    let mut buf = Vec::new();
    field.read_region(world, &mut buf)?;
    generate::from_fn(&mut store, world, |p| world.index_of(p).map_or(Voxel::EMPTY, |i| buf[i]))?;
    store.compact();
    let collider = TerrainCollider::new(store, world, ColliderOptions::default())?;
    let hit = collider.raycast(&Ray::new(Vec3::new(30.5, 31.0, 30.5), Vec3::NEG_Y), 40.0).ok_or("no ground")?;
    println!(
        "voxel-physics: the smooth surface under (30.5, 30.5) is at y = {:.2} (the field says {:.2}), normal {:.2}",
        hit.point.y,
        field.height(30, 30),
        hit.normal
    );
    Ok(())
}
