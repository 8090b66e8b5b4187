//! Agreement with an independent implementation, parry3d's `Voxels` (a DDA per 8^3 chunk under a
//! chunk BVH), built from the same solid voxels; and MagicaVoxel models from `testdata/` (all of
//! the shared set in `cargo xtask test-data`) as worlds.

mod common;

use common::{Rng, random_ray, random_world, reference};
use glam::{IVec3, Vec3};
use parry3d::query::RayCast;
use parry3d::shape::Voxels;
use voxel_core::{Phase, Ray, VoxelBox, VoxelSource};
use voxel_raymarch::Occupancy;
use voxel_testdata::data_files;

/// parry's hit voxel and `t`, if any.
fn parry_cast(voxels: &Voxels, ray: &Ray, max_t: f32) -> Option<(IVec3, f32)> {
    let hit = voxels.cast_local_ray_and_get_normal(&parry3d::query::Ray::new(ray.origin, ray.dir), max_t, true)?;
    Some((voxels.voxel_at_flat_id(hit.subshape)?, hit.time_of_impact))
}

/// Casts `n` random rays (random directions, origins inside the world) with both and returns the
/// number of rays on which they disagree for a reason other than a tie: a hit within 1e-3 of
/// `max_t` (rounding decides), or two hits at the same `t` through a shared edge or corner.
fn disagreements(occ: &Occupancy, voxels: &Voxels, n: usize, seed: u64) -> (usize, usize) {
    let mut rng = Rng(seed);
    let world = occ.world();
    let (mut hard, mut ties) = (0, 0);
    for _ in 0..n {
        let lo = world.min.as_vec3();
        let hi = world.max.as_vec3();
        let o = Vec3::new(rng.range(lo.x, hi.x), rng.range(lo.y, hi.y), rng.range(lo.z, hi.z));
        let d = Vec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0));
        if d.length() < 1e-3 {
            continue;
        }
        let ray = Ray::new(o, d.normalize());
        let max_t = if rng.unit() < 0.3 { rng.range(0.0, 4.0) } else { rng.range(0.0, 300.0) };
        let ours = occ.cast(&ray, max_t).map(|h| (h.voxel, h.t));
        let theirs = parry_cast(voxels, &ray, max_t);
        match (ours, theirs) {
            (Some(a), Some(b)) if a.0 == b.0 => {
                assert!((a.1 - b.1).abs() <= 1e-3 * (1.0 + a.1), "t {a:?} {b:?}");
            }
            (None, None) => {}
            (Some(a), Some(b)) if (a.1 - b.1).abs() <= 1e-4 => ties += 1,
            (Some((_, t)), None) | (None, Some((_, t))) if (t - max_t).abs() <= 1e-3 => ties += 1,
            (a, b) => {
                eprintln!("disagree: ray {ray:?} max_t {max_t}: ours {a:?} parry {b:?}");
                hard += 1;
            }
        }
    }
    (hard, ties)
}

fn solid_coords<S: VoxelSource>(source: &S, world: VoxelBox) -> Vec<IVec3> {
    let mut buf = Vec::new();
    source.read_region(world, &mut buf).unwrap();
    world.iter().zip(&buf).filter(|(_, v)| v.phase(source.phase_table()) == Phase::Solid).map(|(p, _)| p).collect()
}

#[test]
fn agrees_with_parry_voxels_on_random_worlds() {
    for seed in 0..12 {
        let (grid, _) = random_world(seed, IVec3::new(-45, -20, 7), IVec3::new(90, 64, 77));
        let world = grid.grid_bounds();
        let occ = Occupancy::build(&grid, world).unwrap();
        let voxels = Voxels::new(Vec3::ONE, &solid_coords(&grid, world));
        let (hard, ties) = disagreements(&occ, &voxels, 3000, seed);
        assert_eq!(hard, 0, "seed {seed}");
        assert!(ties <= 3, "seed {seed}: {ties} ties");
    }
}

#[test]
fn agrees_with_parry_voxels_on_generated_terrain() {
    use voxel_store::generate::{Terrain, terrain};
    let size = IVec3::new(160, 64, 128);
    let store = terrain(&Terrain::new(size, 11)).unwrap();
    let world = VoxelBox::new(IVec3::ZERO, size);
    let occ = Occupancy::build(&store, world).unwrap();
    let voxels = Voxels::new(Vec3::ONE, &solid_coords(&store, world));
    let (hard, ties) = disagreements(&occ, &voxels, 20_000, 5);
    assert_eq!(hard, 0);
    assert!(ties <= 10, "{ties} ties");
}

#[test]
fn vox_models_as_worlds() {
    let mut models = 0;
    for path in data_files("voxels/vox", &["vox"]) {
        let Ok(store) = voxel_store::vox::load(&path) else {
            continue; // the data set holds a deliberately broken file; voxel-store tests it
        };
        // Two voxels of air around the model, so rays start outside it too.
        let world = store.bounds().unwrap().grow(2);
        let occ = Occupancy::build(&store, world).unwrap();
        let coords = solid_coords(&store, world);
        let solid: Vec<bool> = {
            let mut s = vec![false; world.volume() as usize];
            for p in &coords {
                s[world.index_of(*p).unwrap()] = true;
            }
            s
        };
        for p in world.iter() {
            assert_eq!(occ.is_solid(p), solid[world.index_of(p).unwrap()]);
        }
        let mut rng = Rng(models);
        let mut hits = 0;
        for _ in 0..4000 {
            let (ray, max_t) = random_ray(&mut rng, world);
            let ours = occ.cast(&ray, max_t);
            let expected = reference(world, &solid, &ray, max_t);
            assert_eq!(
                ours.map(|h| (h.voxel, h.face.map(|f| (f.axis.index(), f.positive)), h.t)),
                expected,
                "{}: {ray:?} {max_t}",
                path.display()
            );
            hits += usize::from(ours.is_some());
        }
        assert!(hits > 0, "{}", path.display());
        let voxels = Voxels::new(Vec3::ONE, &coords);
        let (hard, _) = disagreements(&occ, &voxels, 2000, models);
        assert_eq!(hard, 0, "{}", path.display());
        models += 1;
    }
    assert!(models >= 3);
}
