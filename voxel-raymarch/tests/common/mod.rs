//! Shared by the test files: random worlds and the plain per-voxel reference walk.

#![allow(dead_code, unreachable_pub)]

use glam::{IVec3, Vec3};
use voxel_core::{Ray, Voxel, VoxelBox, VoxelGrid};

/// SplitMix64 (shared by the workspace's tests), so worlds and rays are reproducible from a
/// proptest seed.
pub use voxel_testdata::Rng;

/// A random world: a few boxes of random solid voxels (density per box) in a box of `size` at
/// `min`, so that empty chunks, empty bricks, sparse and dense regions all occur. Material 2 is
/// solid; some voxels are inside but of an empty material (0) or outside with a solid material,
/// which must not count as solid.
pub fn random_world(seed: u64, min: IVec3, size: IVec3) -> (VoxelGrid, Vec<bool>) {
    let mut rng = Rng(seed);
    let world = VoxelBox::from_min_size(min, size);
    let blobs: Vec<(VoxelBox, f32)> = (0..rng.int(1, 6))
        .map(|_| {
            let lo = IVec3::new(rng.int(0, size.x), rng.int(0, size.y), rng.int(0, size.z));
            let ext = IVec3::new(rng.int(1, 24), rng.int(1, 24), rng.int(1, 24));
            (VoxelBox::from_min_size(min + lo, ext), rng.range(0.02, 0.6))
        })
        .collect();
    let mut solid = Vec::new();
    let grid = VoxelGrid::from_fn(world, |p| {
        let inside_blob = blobs.iter().any(|(b, d)| b.contains(p) && rng.unit() < *d);
        let v = if inside_blob {
            Voxel::new(-10, 2)
        } else {
            match rng.next_u64() % 16 {
                0 => Voxel::new(-10, 0), // inside, empty material
                1 => Voxel::new(5, 2),   // solid material, outside
                _ => Voxel::EMPTY,
            }
        };
        solid.push(inside_blob);
        v
    })
    .unwrap();
    (grid, solid)
}

/// What the reference walk reports: voxel, face (axis, positive), t.
pub type RefHit = (IVec3, Option<(usize, bool)>, f32);

/// The plain walk of the crate's definition: one voxel at a time from the origin's cell, crossing
/// times `(k - o) * (1 / d)`, ties in axis order x, y, z, a solid voxel entered at `t <= max_t`
/// is the hit. No chunks, no skipping, no clipping: voxels outside `world` are empty.
pub fn reference(world: VoxelBox, solid: &[bool], ray: &Ray, max_t: f32) -> Option<RefHit> {
    if !ray.is_valid() || !(max_t >= 0.0) {
        return None;
    }
    let o = ray.origin.to_array();
    let mut inv = [0.0f32; 3];
    let mut step = [0i64; 3];
    let mut cell = [0i64; 3];
    let mut next = [f32::INFINITY; 3];
    let mut plane = [0i64; 3];
    for a in 0..3 {
        let i = 1.0 / ray.dir[a];
        cell[a] = o[a].floor() as i64;
        if i.is_finite() {
            inv[a] = i;
            step[a] = if ray.dir[a] > 0.0 { 1 } else { -1 };
            plane[a] = cell[a] + i64::from(step[a] > 0);
            next[a] = (plane[a] as f32 - o[a]) * inv[a];
        }
    }
    let (lo, hi) = (world.min.as_i64vec3().to_array(), (world.max - IVec3::ONE).as_i64vec3().to_array());
    let mut t = 0.0f32;
    let mut face = None;
    loop {
        let inside = (0..3).all(|a| cell[a] >= lo[a] && cell[a] <= hi[a]);
        if inside {
            let p = IVec3::new(cell[0] as i32, cell[1] as i32, cell[2] as i32);
            if solid[world.index_of(p).unwrap()] {
                return Some((p, face, t));
            }
        }
        // Outside and moving away (or parallel) on some axis: the ray never comes back.
        for a in 0..3 {
            if (cell[a] < lo[a] && step[a] <= 0) || (cell[a] > hi[a] && step[a] >= 0) {
                return None;
            }
        }
        let mut a = 0;
        for b in 1..3 {
            if next[b] < next[a] {
                a = b;
            }
        }
        if !(next[a] <= max_t) || next[a] == f32::INFINITY {
            return None;
        }
        t = next[a];
        cell[a] += step[a];
        face = Some((a, step[a] < 0));
        plane[a] += step[a];
        next[a] = (plane[a] as f32 - o[a]) * inv[a];
    }
}

/// A random ray for `world`: origins inside or a little outside, often on voxel boundaries or
/// half-way points (so rays run through edges and corners), directions random, axis-aligned,
/// diagonal, with signed zeros; lengths short, long or infinite.
pub fn random_ray(rng: &mut Rng, world: VoxelBox) -> (Ray, f32) {
    let lo = world.min.as_vec3() - 6.0;
    let hi = world.max.as_vec3() + 6.0;
    let mut o = Vec3::new(rng.range(lo.x, hi.x), rng.range(lo.y, hi.y), rng.range(lo.z, hi.z));
    match rng.next_u64() % 4 {
        0 => o = o.floor(),
        1 => o = o.floor() + 0.5,
        2 => {
            let a = (rng.next_u64() % 3) as usize;
            o[a] = o[a].floor();
        }
        _ => {}
    }
    let mut d = Vec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0));
    match rng.next_u64() % 6 {
        0 => {
            // Along an axis, either sign, the other components +0 or -0.
            let a = (rng.next_u64() % 3) as usize;
            let v = if rng.next_u64().is_multiple_of(2) { 1.0 } else { -1.0 };
            d = Vec3::new(0.0, -0.0, 0.0);
            d[a] = v;
        }
        1 => d = d.signum(), // exact diagonals: through corners from a cell corner or centre
        2 => {
            let a = (rng.next_u64() % 3) as usize;
            d[a] = 0.0;
            d = d.signum();
            d[a] = 0.0; // face diagonals: through edges
        }
        3 => d[(rng.next_u64() % 3) as usize] = 0.0,
        _ => {}
    }
    if d == Vec3::ZERO {
        d = Vec3::X;
    }
    let max_t = match rng.next_u64() % 4 {
        0 => rng.range(0.0, 3.0),
        1 => f32::INFINITY,
        _ => rng.range(0.0, 150.0),
    };
    (Ray::new(o, d), max_t)
}
