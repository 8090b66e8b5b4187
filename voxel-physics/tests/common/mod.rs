//! Fixtures and brute-force references shared by the scenario tests (each test file uses a part).
#![allow(dead_code, unreachable_pub)]

use glam::{IVec3, Vec3};
use voxel_core::{Ray, TriangleSource, Voxel, VoxelBox};
use voxel_kdtree::{ray_triangle, triangle_is_usable, triangle_overlaps_aabb};
use voxel_mesh::{Mesh, MeshOptions, Mesher};
use voxel_physics::{ColliderOptions, TerrainCollider};
use voxel_store::VoxelStore;
use voxel_store::generate::{self, Terrain, materials};

/// A small generated world with hills, caves and water, and its box.
pub fn terrain(size: IVec3, seed: u64) -> (VoxelStore, VoxelBox) {
    let mut store = generate::terrain(&Terrain::new(size, seed)).unwrap();
    store.compact();
    (store, VoxelBox::new(IVec3::ZERO, size))
}

/// A world whose ground is flat: solid rock below `y = height` (the surface sits half-way between
/// the voxel rows `height - 1` and `height`), over `size`.
pub fn flat(size: IVec3, height: i32) -> (VoxelStore, VoxelBox) {
    let mut store = VoxelStore::with_palette(generate::palette());
    let world = VoxelBox::new(IVec3::ZERO, size);
    generate::from_fn(&mut store, world, |p| {
        if p.y < height { Voxel::new(-64, materials::ROCK) } else { Voxel::new(64, materials::AIR) }
    })
    .unwrap();
    store.compact();
    (store, world)
}

pub fn collider(store: VoxelStore, world: VoxelBox) -> TerrainCollider {
    TerrainCollider::new(store, world, ColliderOptions::default()).unwrap()
}

/// Every physics chunk mesh of a world, meshed independently of the collider: the reference the
/// collider's composed answers must equal.
pub struct BruteWorld {
    /// (chunk key, mesh), in key order (`y`, `z`, `x`).
    pub chunks: Vec<(IVec3, Mesh)>,
}

impl BruteWorld {
    pub fn new(store: &VoxelStore, world: VoxelBox) -> Self {
        let mut mesher = Mesher::new();
        let mut chunks = Vec::new();
        // Chunk meshes reach one voxel below their chunk, so the chunks just outside the world's
        // lower faces can hold triangles; the keys below are in `y`, `z`, `x` order.
        let keys = world.grow(1).chunk_keys(8);
        for key in keys.iter() {
            let mut mesh = Mesh::new();
            mesher.surface_nets(store, VoxelBox::chunk(key, 8), &MeshOptions::PHYSICS, &mut mesh).unwrap();
            if !mesh.is_empty() {
                chunks.push((key, mesh));
            }
        }
        Self { chunks }
    }

    /// The first hit over every triangle of every chunk: (t, chunk, triangle), ties to the chunk
    /// first in key order, then the lower triangle.
    pub fn raycast(&self, ray: &Ray, max_t: f32) -> Option<(f32, IVec3, u32)> {
        let mut best: Option<(f32, IVec3, u32)> = None;
        for (key, mesh) in &self.chunks {
            for t in 0..mesh.triangle_count() as u32 {
                let tri = mesh.triangle_positions(t);
                if !triangle_is_usable(tri) {
                    continue;
                }
                if let Some(hit) = ray_triangle(ray, tri, max_t)
                    && best.is_none_or(|b| hit < b.0)
                {
                    best = Some((hit, *key, t));
                }
            }
        }
        best
    }

    /// Every (chunk, triangle) overlapping `bounds`.
    pub fn overlapping(&self, bounds: &voxel_core::Aabb) -> Vec<(IVec3, u32)> {
        let mut out = Vec::new();
        for (key, mesh) in &self.chunks {
            for t in 0..mesh.triangle_count() as u32 {
                if triangle_overlaps_aabb(mesh.triangle_positions(t), bounds) {
                    out.push((*key, t));
                }
            }
        }
        out
    }

    pub fn triangle_count(&self) -> usize {
        self.chunks.iter().map(|(_, m)| m.triangle_count()).sum()
    }
}

/// A small deterministic generator (SplitMix64, shared by the workspace's tests).
pub use voxel_testdata::Rng;

/// Random rays about a world: from outside and inside, some axis-aligned, some in chunk planes.
pub fn rays(world: VoxelBox, count: usize, seed: u64) -> Vec<Ray> {
    let mut rng = Rng(seed);
    let lo = world.min.as_vec3() - Vec3::splat(6.0);
    let hi = world.max.as_vec3() + Vec3::splat(6.0);
    (0..count)
        .map(|i| {
            let mut origin = rng.vec(lo, hi);
            let mut dir = rng.direction();
            match i % 6 {
                // Straight down from above.
                0 => {
                    origin.y = hi.y;
                    dir = Vec3::NEG_Y;
                }
                // In a chunk plane (x a multiple of 8), grazing along it.
                1 => {
                    origin.x = (origin.x / 8.0).round() * 8.0;
                    dir.x = 0.0;
                }
                // Along an axis.
                2 => dir = [Vec3::X, Vec3::NEG_Z, Vec3::Z, Vec3::NEG_X][(i / 6) % 4],
                // Through a chunk corner line.
                3 => {
                    origin.x = (origin.x / 8.0).round() * 8.0;
                    origin.z = (origin.z / 8.0).round() * 8.0;
                    dir = Vec3::new(0.0, -1.0, 0.0);
                }
                _ => {}
            }
            Ray::new(origin, dir)
        })
        .collect()
}

/// A cube as a convex polyhedron, half side `h`.
pub fn cube(h: f32) -> voxel_contacts::ConvexPolyhedron {
    let points: Vec<Vec3> = (0..8)
        .map(|i| {
            Vec3::new(if i & 1 == 0 { -h } else { h }, if i & 2 == 0 { -h } else { h }, if i & 4 == 0 { -h } else { h })
        })
        .collect();
    let faces = vec![
        vec![0, 2, 3, 1],
        vec![4, 5, 7, 6],
        vec![0, 1, 5, 4],
        vec![2, 6, 7, 3],
        vec![0, 4, 6, 2],
        vec![1, 3, 7, 5],
    ];
    voxel_contacts::ConvexPolyhedron::new(points, &faces).unwrap()
}
