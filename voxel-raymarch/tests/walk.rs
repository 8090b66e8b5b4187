//! The walk against a plain per-voxel reference on random worlds, hand-built fixtures with known
//! answers, bad input, refresh after edits and batches.

mod common;

use common::{Rng, random_ray, random_world, reference};
use glam::{IVec3, Vec3};
use proptest::prelude::*;
use voxel_core::{Ray, Voxel, VoxelBox, VoxelGrid, VoxelSource};
use voxel_raymarch::{Axis, Cast, Face, Occupancy, RaymarchError};

fn check(occ: &Occupancy, solid: &[bool], ray: &Ray, max_t: f32) {
    let ours = occ.cast(ray, max_t);
    let expected = reference(occ.world(), solid, ray, max_t);
    let ours_cmp = ours.map(|h| (h.voxel, h.face.map(|f| (f.axis.index(), f.positive)), h.t));
    assert_eq!(ours_cmp, expected, "ray {ray:?} max_t {max_t}");
    if let Some(h) = ours {
        // The entry point lies on the ray (up to rounding) and on the face of the hit voxel.
        let on_ray = ray.at(h.t);
        assert!((on_ray - h.point).abs().max_element() <= 1e-3 * (1.0 + on_ray.abs().max_element()), "{h:?}");
        if let Some(f) = h.face {
            let a = f.axis.index();
            assert_eq!(h.point[a], (h.voxel[a] + i32::from(f.positive)) as f32);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn every_ray_equals_the_reference_walk(
        seed in any::<u64>(),
        min in prop::array::uniform3(-70i32..40),
        size in prop::array::uniform3(1i32..100),
    ) {
        let (grid, solid) = random_world(seed, IVec3::from(min), IVec3::from(size));
        let occ = Occupancy::build(&grid, grid.grid_bounds()).unwrap();
        let mut rng = Rng(seed ^ 0xABCD);
        for _ in 0..300 {
            let (ray, max_t) = random_ray(&mut rng, occ.world());
            check(&occ, &solid, &ray, max_t);
        }
    }
}

#[test]
fn occupancy_bits_equal_the_source() {
    for seed in 0..8 {
        let (grid, solid) = random_world(seed, IVec3::new(-37, 5, -3), IVec3::new(70, 41, 66));
        let occ = Occupancy::build(&grid, grid.grid_bounds()).unwrap();
        for (p, s) in grid.grid_bounds().iter().zip(&solid) {
            assert_eq!(occ.is_solid(p), *s, "{p}");
        }
        assert!(!occ.is_solid(grid.grid_bounds().max));
        assert!(!occ.is_solid(IVec3::splat(i32::MIN)));
    }
}

/// Two solid voxels that share only an edge: a ray aimed exactly at the edge must not slip between.
#[test]
fn edge_between_diagonal_neighbours_stops_the_ray() {
    let world = VoxelBox::new(IVec3::ZERO, IVec3::splat(8));
    let grid = VoxelGrid::from_fn(world, |p| {
        if p == IVec3::new(3, 4, 2) || p == IVec3::new(4, 3, 2) { Voxel::new(-1, 1) } else { Voxel::EMPTY }
    })
    .unwrap();
    let occ = Occupancy::build(&grid, world).unwrap();
    // From (1.0, 1.0, 2.5) along (1, 1, 0): through the edge x = y = 4 at z = 2.5... the cells
    // (3, 3), then (4, 3) first (x before y).
    let hit = occ.cast(&Ray::new(Vec3::new(1.0, 1.0, 2.5), Vec3::new(1.0, 1.0, 0.0)), 100.0).unwrap();
    assert_eq!(hit.voxel, IVec3::new(4, 3, 2));
    assert_eq!(hit.face, Some(Face { axis: Axis::X, positive: false }));
    assert_eq!(hit.t, 3.0);
    // Going the other way the y neighbour comes after the x one: (4, 4) -> (3, 4) first.
    let hit = occ.cast(&Ray::new(Vec3::new(7.0, 7.0, 2.5), Vec3::new(-1.0, -1.0, 0.0)), 100.0).unwrap();
    assert_eq!(hit.voxel, IVec3::new(3, 4, 2));
    assert_eq!(hit.face, Some(Face { axis: Axis::X, positive: true }));
}

#[test]
fn start_inside_solid_is_a_hit_at_zero_without_face() {
    let world = VoxelBox::new(IVec3::ZERO, IVec3::splat(40));
    let grid = VoxelGrid::from_fn(world, |p| if p.y < 20 { Voxel::new(-1, 1) } else { Voxel::EMPTY }).unwrap();
    let occ = Occupancy::build(&grid, world).unwrap();
    let hit = occ.cast(&Ray::new(Vec3::new(3.5, 19.5, 3.5), Vec3::Y), 10.0).unwrap();
    assert_eq!((hit.voxel, hit.face, hit.t), (IVec3::new(3, 19, 3), None, 0.0));
    // On the top face of the ground moving down: the cell above owns the face point, so the ray
    // starts in air and enters (3, 19, 3) at t = 0 through its top face.
    let hit = occ.cast(&Ray::new(Vec3::new(3.5, 20.0, 3.5), Vec3::NEG_Y), 10.0).unwrap();
    assert_eq!((hit.voxel, hit.t), (IVec3::new(3, 19, 3), 0.0));
    // +0.0, not the -0.0 of `(20 - 20) * -1`: the walk's lanes ignore the sign, the hit must not.
    assert_eq!(hit.t.to_bits(), 0.0f32.to_bits());
    assert_eq!(hit.face.unwrap().normal(), IVec3::Y);
    // Moving up from the same point: nothing.
    assert!(occ.cast(&Ray::new(Vec3::new(3.5, 20.0, 3.5), Vec3::Y), 100.0).is_none());
    // The seed's second early exit: a resting particle whose step ends in its own voxel.
    assert!(occ.cast(&Ray::new(Vec3::new(3.5, 20.01, 3.5), Vec3::new(0.1, -0.1, 0.0)), 0.05).is_none());
}

#[test]
fn rays_from_outside_the_world_are_clipped() {
    let world = VoxelBox::new(IVec3::new(-40, 0, -40), IVec3::new(40, 16, 40));
    let grid = VoxelGrid::from_fn(world, |p| if p.y < 4 { Voxel::new(-1, 1) } else { Voxel::EMPTY }).unwrap();
    let occ = Occupancy::build(&grid, world).unwrap();
    let hit = occ.cast(&Ray::new(Vec3::new(0.5, 1000.0, 0.5), Vec3::NEG_Y), f32::INFINITY).unwrap();
    assert_eq!(hit.voxel, IVec3::new(0, 3, 0));
    assert_eq!(hit.t, 996.0);
    // From below the world, going up: enters through the bottom face.
    let hit = occ.cast(&Ray::new(Vec3::new(0.5, -5.0, 0.5), Vec3::Y), 100.0).unwrap();
    assert_eq!((hit.voxel, hit.t), (IVec3::new(0, 0, 0), 5.0));
    assert_eq!(hit.face.unwrap().normal(), IVec3::NEG_Y);
    // Pointing away, or too short to arrive: nothing.
    assert!(occ.cast(&Ray::new(Vec3::new(0.5, 1000.0, 0.5), Vec3::Y), f32::INFINITY).is_none());
    assert!(occ.cast(&Ray::new(Vec3::new(0.5, 1000.0, 0.5), Vec3::NEG_Y), 900.0).is_none());
}

#[test]
fn bad_rays_hit_nothing_and_never_hang() {
    let world = VoxelBox::new(IVec3::ZERO, IVec3::splat(64));
    let grid = VoxelGrid::from_fn(world, |p| if p.y < 30 { Voxel::new(-1, 1) } else { Voxel::EMPTY }).unwrap();
    let occ = Occupancy::build(&grid, world).unwrap();
    let o = Vec3::new(10.5, 40.5, 10.5);
    let nan = f32::NAN;
    let inf = f32::INFINITY;
    for (origin, dir, max_t) in [
        (o, Vec3::ZERO, 100.0),
        (o, Vec3::new(-0.0, 0.0, -0.0), 100.0),
        (o, Vec3::splat(1e-45), 100.0),
        (o, Vec3::new(nan, -1.0, 0.0), 100.0),
        (o, Vec3::new(inf, -1.0, 0.0), 100.0),
        (Vec3::new(nan, 40.0, 1.0), Vec3::NEG_Y, 100.0),
        (Vec3::new(inf, 40.0, 1.0), Vec3::NEG_Y, 100.0),
        (o, Vec3::NEG_Y, nan),
        (o, Vec3::NEG_Y, -1.0),
        (o, Vec3::NEG_Y, -inf),
        // No moving axis from inside a solid voxel (the same-voxel exit would report it).
        (Vec3::splat(10.5), Vec3::ZERO, 100.0),
        (Vec3::splat(10.5), Vec3::splat(1e-45), inf),
        // Non-finite origins with a moving axis (entering from outside would start from them).
        (Vec3::new(nan, 20.5, 10.5), Vec3::new(1.0, -1.0, 0.5), inf),
        (Vec3::new(-inf, 20.5, 10.5), Vec3::new(1.0, -1.0, 0.5), inf),
        (Vec3::new(10.5, nan, 10.5), Vec3::new(1.0, -1.0, 0.5), inf),
    ] {
        assert!(occ.cast(&Ray::new(origin, dir), max_t).is_none(), "{origin} {dir} {max_t}");
        // The same values set on a valid ray's public fields after it was built.
        let mut changed = Ray::new(o, Vec3::NEG_Y);
        (changed.origin, changed.dir) = (origin, dir);
        assert!(occ.cast(&changed, max_t).is_none(), "changed: {origin} {dir} {max_t}");
        let mut out = Vec::new();
        occ.march(&[voxel_raymarch::Cast { ray: changed, max_t }], &mut out);
        assert_eq!(out, [None], "march: {origin} {dir} {max_t}");
    }
    // Huge coordinates and tiny or huge directions: a valid answer, quickly.
    let far = Vec3::new(1e30, 1e30, -1e30);
    assert!(occ.cast(&Ray::new(far, Vec3::NEG_Y), inf).is_none());
    let _ = occ.cast(&Ray::new(far, Vec3::new(32.0, 10.0, 32.0) - far), inf);
    let _ = occ.cast(&Ray::new(Vec3::new(3e7, 40.0, 3e7), Vec3::new(-1.0, -1e-3, -1.0)), inf);
    let tiny = occ.cast(&Ray::new(o, Vec3::new(1e-30, -1e-38, 0.0)), inf);
    let expected = reference(world, &grid_solid(&grid), &Ray::new(o, Vec3::new(1e-30, -1e-38, 0.0)), f32::MAX);
    assert_eq!(tiny.map(|h| h.voxel), expected.map(|h| h.0));
    // A huge diagonal direction from a cell centre runs through edges: at the edge x = 21, y = 30
    // the x crossing comes first, so the ray enters (21, 29, 10) from (21, 30, 10) above it.
    let hit = occ.cast(&Ray::new(o, Vec3::new(1e30, -1e30, 0.0)), inf).unwrap();
    assert_eq!(hit.voxel, IVec3::new(21, 29, 10));
    assert_eq!(hit.face.unwrap().normal(), IVec3::Y);
}

fn grid_solid(grid: &VoxelGrid) -> Vec<bool> {
    grid.grid_bounds().iter().map(|p| grid.get(p).is_inside() && grid.get(p).material != 0).collect()
}

#[test]
fn bad_world_boxes_are_errors() {
    let grid = VoxelGrid::new(VoxelBox::new(IVec3::ZERO, IVec3::ONE)).unwrap();
    assert_eq!(Occupancy::build(&grid, VoxelBox::EMPTY).unwrap_err(), RaymarchError::EmptyWorld);
    let far = VoxelBox::new(IVec3::ZERO, IVec3::new(1 << 24, 1, 1));
    assert_eq!(Occupancy::build(&grid, far).unwrap_err(), RaymarchError::CoordinateOutOfRange);
    // `i32::MIN` (whose absolute value wraps) and `i32::MAX` corners.
    for (min, max) in [(IVec3::new(i32::MIN, 0, 0), IVec3::ONE), (IVec3::ZERO, IVec3::new(1, i32::MAX, 1))] {
        let result = Occupancy::build(&grid, VoxelBox::new(min, max));
        assert_eq!(result.unwrap_err(), RaymarchError::CoordinateOutOfRange, "{min} {max}");
    }
    // A huge box is refused when the source cannot say where its voxels are...
    let huge = VoxelBox::new(IVec3::splat(-(1 << 23)), IVec3::splat(1 << 23));
    assert!(matches!(Occupancy::build(&Unbounded, huge), Err(RaymarchError::WorldTooLarge { .. })));
    // ...and costs one chunk's visit when it can (the grid's bounds are one voxel).
    let occ = Occupancy::build(&grid, huge).unwrap();
    assert_eq!(occ.world(), huge);
    assert_eq!(occ.stored_chunks(), 0);
}

/// A source of empty space that does not know its bounds.
struct Unbounded;

impl VoxelSource for Unbounded {
    fn fill_region(&self, _: VoxelBox, out: &mut [Voxel]) {
        out.fill(Voxel::EMPTY);
    }
}

#[test]
fn refresh_after_edits_equals_a_fresh_build() {
    use voxel_store::Brush;
    use voxel_store::generate::{Terrain, terrain};
    let size = IVec3::new(96, 48, 80);
    let mut store = terrain(&Terrain::new(size, 5)).unwrap();
    let world = VoxelBox::new(IVec3::ZERO, size);
    let mut occ = Occupancy::build(&store, world).unwrap();
    let mut rng = Rng(17);
    for i in 0..12 {
        let center = Vec3::new(rng.range(0.0, 96.0), rng.range(10.0, 40.0), rng.range(0.0, 80.0));
        let brush = Brush::Sphere { center, radius: rng.range(2.0, 12.0) };
        let report = if i % 2 == 0 { store.subtract(&brush) } else { store.add(&brush, 3) }.unwrap();
        occ.refresh(&store, report.dirty).unwrap();
    }
    // A refresh that reaches past the world and one entirely outside it are harmless.
    occ.refresh(&store, VoxelBox::new(IVec3::splat(-50), IVec3::splat(5))).unwrap();
    occ.refresh(&store, VoxelBox::new(IVec3::splat(500), IVec3::splat(600))).unwrap();
    let fresh = Occupancy::build(&store, world).unwrap();
    for p in world.iter() {
        assert_eq!(occ.is_solid(p), fresh.is_solid(p), "{p}");
    }
    let solid: Vec<bool> = world.iter().map(|p| fresh.is_solid(p)).collect();
    for _ in 0..2000 {
        let (ray, max_t) = random_ray(&mut rng, world);
        let r = reference(world, &solid, &ray, max_t);
        assert_eq!(occ.cast(&ray, max_t).map(|h| h.voxel), r.map(|h| h.0));
    }
}

#[test]
fn batches_equal_single_casts_on_any_thread_count() {
    let (grid, _) = random_world(99, IVec3::new(-20, -10, 0), IVec3::new(90, 60, 70));
    let occ = Occupancy::build(&grid, grid.grid_bounds()).unwrap();
    let mut rng = Rng(3);
    let casts: Vec<Cast> = (0..5000)
        .map(|_| {
            let (ray, max_t) = random_ray(&mut rng, occ.world());
            Cast { ray, max_t }
        })
        .collect();
    let single: Vec<_> = casts.iter().map(|c| occ.cast(&c.ray, c.max_t)).collect();
    for threads in [1, 2, 3] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let mut out = Vec::new();
        pool.install(|| occ.march(&casts, &mut out));
        assert_eq!(out, single, "{threads} threads");
    }
    assert!(single.iter().any(Option::is_some) && single.iter().any(Option::is_none));
}

#[test]
fn memory_is_at_most_one_bit_per_voxel_plus_tables() {
    use voxel_store::generate::{Terrain, terrain};
    let size = IVec3::new(256, 64, 256);
    let store = terrain(&Terrain::new(size, 1)).unwrap();
    let occ = Occupancy::build(&store, VoxelBox::new(IVec3::ZERO, size)).unwrap();
    assert!(occ.bytes_per_voxel() <= 0.13, "{}", occ.bytes_per_voxel());
    assert!(occ.stored_chunks() > 0);
}

/// A ray from far away (10^5 to 10^12 voxels) enters the same voxel through the same face as the
/// ray on the same line from 200 voxels off, on random worlds off the origin; its `t` is the near
/// ray's plus the distance between their origins. From `x = 1e8` the `f32` walk could not tell
/// voxels 8 apart.
#[test]
fn far_origins_get_the_near_answer() {
    let mut rng = Rng(77);
    let mut hits = 0;
    for seed in 0..6 {
        let min = IVec3::new(rng.int(-80, 40), rng.int(-40, 20), rng.int(-80, 40));
        let size = IVec3::new(rng.int(20, 70), rng.int(10, 40), rng.int(20, 70));
        let (grid, _) = random_world(seed, min, size);
        let world = VoxelBox::from_min_size(min, size);
        let occ = Occupancy::build(&grid, world).unwrap();
        for i in 0..120 {
            let target = min.as_vec3() + Vec3::new(rng.unit(), rng.unit(), rng.unit()) * size.as_vec3();
            let dir = Vec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0));
            if dir.length() < 0.1 {
                continue;
            }
            let dir = dir.normalize();
            let far = [1e5f32, 1e7, 1e9, 1e12][i % 4];
            let ray = Ray::new(target - dir * far, dir);
            // The same line (from the far ray's own f32 origin, in f64) 200 voxels before the
            // point nearest to the target.
            let (o, d) = (ray.origin.as_dvec3(), ray.dir.as_dvec3());
            let t_near = (target.as_dvec3() - o).dot(d) / d.length_squared() - 200.0;
            let p = o + d * t_near;
            let near = Ray::new(Vec3::new(p.x as f32, p.y as f32, p.z as f32), dir);
            match (occ.cast(&ray, f32::INFINITY), occ.cast(&near, f32::INFINITY)) {
                (Some(a), Some(b)) => {
                    hits += 1;
                    assert_eq!((a.voxel, a.face), (b.voxel, b.face), "{ray:?}");
                    assert!((a.point - b.point).abs().max_element() < 1e-3, "{ray:?}: {a:?} {b:?}");
                    let t = t_near + f64::from(b.t);
                    assert!((f64::from(a.t) - t).abs() <= 1e-6 * t, "{ray:?}: t {} against {t}", a.t);
                }
                (a, b) => assert_eq!(a.map(|h| h.voxel), b.map(|h| h.voxel), "{ray:?}"),
            }
        }
    }
    assert!(hits > 40, "enough rays hit to prove something ({hits})");
}
