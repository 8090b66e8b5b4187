//! Agreement with the workspace's mesh path: `voxel-mesh`'s blocky mesh of the same world (the
//! faces between solid and non-solid voxels, greedily merged) cast through `voxel-kdtree`'s
//! watertight closest-hit query. The ray marcher's hit is the first solid voxel entered; the mesh's
//! is the first face crossed: the same place, found by a different algorithm on a different
//! representation.

mod common;

use common::Rng;
use glam::{IVec3, Vec3};
use voxel_core::{Ray, VoxelBox, VoxelSource};
use voxel_kdtree::{KdTree, Scratch};
use voxel_mesh::{Mesh, MeshOptions, Mesher};
use voxel_raymarch::Occupancy;
use voxel_store::generate::{self, Terrain};

/// Casts `n` rays from random empty voxels of the world, in random directions, through both, and
/// checks that they agree: both miss, or both hit at the same `t` (within rounding), the mesh's
/// hit point lying on the ray marcher's voxel. Returns the number of hits.
fn agree(store: &(impl VoxelSource + Sync), world: VoxelBox, n: usize, seed: u64) -> usize {
    let occ = Occupancy::build(store, world).unwrap();
    let mut mesh = Mesh::new();
    Mesher::new().blocky(store, world, &MeshOptions::default(), &mut mesh).unwrap();
    let tree = KdTree::build(&mesh).unwrap();
    let mut scratch = Scratch::for_tree(&tree);
    let mut rng = Rng(seed);
    let (lo, hi) = (world.min.as_vec3(), world.max.as_vec3());
    let mut hits = 0;
    let mut cast = 0;
    while cast < n {
        let origin = Vec3::new(rng.range(lo.x, hi.x), rng.range(lo.y, hi.y), rng.range(lo.z, hi.z));
        if occ.is_solid(origin.floor().as_ivec3()) {
            continue;
        }
        let dir = Vec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0));
        if dir.length() < 0.1 {
            continue;
        }
        cast += 1;
        let ray = Ray::new(origin, dir.normalize());
        let max_t = rng.range(1.0, 120.0);
        let ours = occ.cast(&ray, max_t);
        let mesh_hit = tree.cast_ray(&mesh, &ray, max_t, &mut scratch);
        match (ours, mesh_hit) {
            (None, None) => {}
            (Some(a), Some(b)) => {
                hits += 1;
                assert!((a.t - b.t).abs() <= 1e-3 * (1.0 + a.t), "ray {ray:?}: t {} against the mesh's {}", a.t, b.t);
                // The mesh's hit point is on a face of the ray marcher's voxel.
                let p = ray.at(b.t);
                let (v0, v1) = (a.voxel.as_vec3() - 1e-3, (a.voxel + IVec3::ONE).as_vec3() + 1e-3);
                assert!(p.cmpge(v0).all() && p.cmple(v1).all(), "ray {ray:?}: mesh hit {p} off voxel {}", a.voxel);
            }
            // A hit within rounding of max_t may fall on either side.
            (Some(a), None) => assert!(a.t > max_t - 1e-3, "ray {ray:?}: only the ray marcher hits, at t {}", a.t),
            (None, Some(b)) => assert!(b.t > max_t - 1e-3, "ray {ray:?}: only the mesh hits, at t {}", b.t),
        }
    }
    hits
}

#[test]
fn agrees_with_kdtree_casts_on_the_blocky_mesh_of_generated_terrain() {
    let size = IVec3::new(96, 48, 96);
    let store = generate::terrain(&Terrain::new(size, 5)).unwrap();
    let hits = agree(&store, VoxelBox::new(IVec3::ZERO, size), 3000, 11);
    // Rays from the air and the caves of a hilly world mostly end on the ground.
    assert!(hits > 600, "only {hits} of 3000 rays hit: the test would prove little");
}

#[test]
fn agrees_with_kdtree_casts_on_a_world_off_the_origin() {
    // Negative coordinates, a box that cuts chunks and bricks.
    let world = VoxelBox::new(IVec3::new(-37, -5, -60), IVec3::new(29, 27, 3));
    let store = generate::sphere(Vec3::new(-4.0, 11.0, -28.0), 14.5).unwrap();
    let hits = agree(&store, world, 2000, 23);
    assert!(hits > 140, "only {hits} of 2000 rays hit");
}
