//! Deterministic inputs by seed, shared by all benches so ours and a peer see the same data.
//!
//! The generator is the workspace's SplitMix64: tiny, fast and identical on every platform, so a
//! workload named `(kind, seed, size)` is the same bytes everywhere.

use glam::{IVec3, Vec3};
use voxel_core::{Aabb, Ray};
use voxel_store::VoxelStore;

/// The workspace's SplitMix64 (`voxel_testdata::Rng`) with the workloads' own sampling rules,
/// which stay as they are so every bench input is the one its figures were measured on.
#[derive(Clone, Debug)]
pub struct Rng(voxel_testdata::Rng);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        Self(voxel_testdata::Rng(seed))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A float uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f32 {
        self.0.unit()
    }

    /// A float uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        self.0.range(lo, hi)
    }

    /// A point uniform in the box.
    pub fn point_in(&mut self, b: &Aabb) -> Vec3 {
        Vec3::new(self.range(b.min.x, b.max.x), self.range(b.min.y, b.max.y), self.range(b.min.z, b.max.z))
    }

    /// A unit vector uniform on the sphere.
    pub fn direction(&mut self) -> Vec3 {
        loop {
            let v = Vec3::new(self.range(-1.0, 1.0), self.range(-1.0, 1.0), self.range(-1.0, 1.0));
            let l = v.length_squared();
            if l > 1e-4 && l <= 1.0 {
                return v / l.sqrt();
            }
        }
    }
}

/// `n` boxes of `size` resting near the ground of `world` (whose voxels span `0..extent`): at a
/// random column at least 8 voxels from the sides, 0 to 3 voxels above its highest inside voxel.
/// The broadphase benches' character boxes.
pub fn boxes_near_surface(world: &VoxelStore, extent: IVec3, n: usize, size: Vec3, seed: u64) -> Vec<Aabb> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let x = rng.range(8.0, extent.x as f32 - 8.0);
            let z = rng.range(8.0, extent.z as f32 - 8.0);
            let top =
                (0..extent.y).rev().find(|&y| world.get(IVec3::new(x as i32, y, z as i32)).is_inside()).unwrap_or(0);
            let p = Vec3::new(x, top as f32 + rng.range(0.0, 3.0), z);
            Aabb::new(p, p + size)
        })
        .collect()
}

/// `n` boxes with centres in a 100-unit cube and edges from 0.5 to 8 units.
pub fn scattered_boxes(n: usize, seed: u64) -> Vec<Aabb> {
    let mut rng = Rng::new(seed);
    let world = Aabb::new(Vec3::ZERO, Vec3::splat(100.0));
    (0..n)
        .map(|_| {
            let c = rng.point_in(&world);
            let h = Vec3::new(rng.range(0.25, 4.0), rng.range(0.25, 4.0), rng.range(0.25, 4.0));
            Aabb::new(c - h, c + h)
        })
        .collect()
}

/// One ray per box, from a random point of the 100-unit cube towards a random point of the box
/// grown to twice its size, so about half the pairs hit. One ray in eight has a direction component
/// zeroed, so the parallel-slab path is exercised.
pub fn rays_towards(boxes: &[Aabb], seed: u64) -> Vec<Ray> {
    let mut rng = Rng::new(seed);
    let world = Aabb::new(Vec3::ZERO, Vec3::splat(100.0));
    boxes
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let origin = rng.point_in(&world);
            let around = Aabb::new(b.center() - b.size(), b.center() + b.size());
            let mut d = (rng.point_in(&around) - origin).normalize_or(Vec3::Y);
            if i % 8 == 0 {
                d[(i / 8) % 3] = 0.0;
            }
            Ray::new(origin, d)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workloads_are_deterministic_by_seed() {
        assert_eq!(scattered_boxes(64, 7), scattered_boxes(64, 7));
        assert_ne!(scattered_boxes(64, 7), scattered_boxes(64, 8));
        assert!(scattered_boxes(64, 7).iter().all(Aabb::is_valid));
        assert!(rays_towards(&scattered_boxes(64, 7), 3).iter().all(Ray::is_valid));
    }

    #[test]
    fn unit_stays_in_range() {
        let mut rng = Rng::new(1);
        for _ in 0..10_000 {
            let u = rng.unit();
            assert!((0.0..1.0).contains(&u));
        }
    }
}
