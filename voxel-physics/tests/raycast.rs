//! Ray casts against the smooth surface: the chunk walk with broadphase skips and per-chunk kD
//! trees equals brute force over every triangle of every chunk mesh.

mod common;

use std::sync::OnceLock;

use common::{BruteWorld, Rng, collider, flat, rays, terrain};
use glam::{IVec3, Vec3};
use voxel_core::{Ray, TriangleSource, VoxelBox};
use voxel_physics::{Cast, RayScratch, TerrainCollider};
use voxel_store::VoxelStore;

struct Fixture {
    collider: TerrainCollider,
    brute: BruteWorld,
}

/// A 48 x 40 x 48 world with hills, caves and water, built once for the file.
fn hills() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let (store, world) = terrain(IVec3::new(48, 40, 48), 11);
        let brute = BruteWorld::new(&store, world);
        Fixture { collider: collider(store, world), brute }
    })
}

/// Checks one ray against brute force: the same `t`, chunk and triangle, bit for bit.
fn check(fixture: &Fixture, ray: &Ray, max_t: f32, scratch: &mut RayScratch) {
    let ours = fixture.collider.raycast_with(ray, max_t, scratch);
    let reference = fixture.brute.raycast(ray, max_t);
    assert_eq!(ours.map(|h| (h.t, h.chunk, h.triangle)), reference, "ray {ray:?} max_t {max_t}");
    if let Some(h) = ours {
        assert_eq!(h.point, ray.at(h.t));
        assert!((h.normal.length() - 1.0).abs() < 1e-4, "unit normal: {h:?}");
    }
}

#[test]
fn raycast_equals_brute_force_over_all_chunk_meshes() {
    let f = hills();
    assert!(f.brute.triangle_count() > 5000, "the fixture has a real surface");
    let mut scratch = RayScratch::new();
    let world = f.collider.world();
    let mut hits = 0;
    for (i, ray) in rays(world, 1500, 1).iter().enumerate() {
        // Long rays and rays cut short.
        let max_t = if i % 5 == 0 { 7.5 } else { 500.0 };
        check(f, ray, max_t, &mut scratch);
        hits += usize::from(f.collider.raycast_with(ray, max_t, &mut scratch).is_some());
    }
    assert!(hits > 500, "most rays hit something ({hits})");
}

#[test]
fn rays_starting_inside_caves_and_under_ground() {
    let f = hills();
    let mut rng = Rng(5);
    let mut scratch = RayScratch::new();
    for _ in 0..400 {
        // Origins inside the world box: in rock, in caves, under water.
        let origin = rng.vec(Vec3::splat(1.0), Vec3::new(47.0, 39.0, 47.0));
        check(f, &Ray::new(origin, rng.direction()), 100.0, &mut scratch);
    }
}

#[test]
fn unnormalized_directions_count_t_in_direction_units() {
    let f = hills();
    let mut rng = Rng(9);
    let mut scratch = RayScratch::new();
    for _ in 0..200 {
        let origin = rng.vec(Vec3::new(0.0, 45.0, 0.0), Vec3::new(48.0, 50.0, 48.0));
        let dir = (rng.direction() - Vec3::Y * 1.5) * rng.range(0.01, 40.0);
        check(f, &Ray::new(origin, dir), 1000.0, &mut scratch);
    }
}

#[test]
fn batch_equals_serial_for_any_thread_count() {
    let f = hills();
    let casts: Vec<Cast> = rays(f.collider.world(), 600, 3).into_iter().map(|ray| Cast { ray, max_t: 300.0 }).collect();
    let serial: Vec<_> = casts.iter().map(|c| f.collider.raycast(&c.ray, c.max_t)).collect();
    for threads in [1, 3] {
        f.collider.clear_cache();
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let mut out = Vec::new();
        pool.install(|| f.collider.raycast_batch(&casts, &mut out));
        assert_eq!(out, serial, "{threads} threads");
    }
}

#[test]
fn flat_ground_across_seams_and_corners() {
    // Ground at y = 12 (surface half-way between rows 11 and 12), rays down chunk seams and corners.
    let (store, world) = flat(IVec3::new(32, 24, 32), 12);
    let c = collider(store, world);
    for x in [1.0f32, 7.999, 8.0, 8.001, 15.5, 16.0, 24.0] {
        for z in [2.5f32, 8.0, 16.0, 23.75] {
            let hit = c.raycast(&Ray::new(Vec3::new(x, 30.0, z), Vec3::NEG_Y), 100.0).unwrap();
            assert!((hit.point.y - 11.5).abs() < 1e-4, "({x}, {z}): {hit:?}");
            assert!(hit.normal.abs_diff_eq(Vec3::Y, 1e-6), "({x}, {z}): {hit:?}");
            assert_eq!(hit.material, voxel_store::generate::materials::ROCK);
        }
    }
    // A ray lying in the seam plane x = 8, sloping down: it still finds the ground.
    let hit = c.raycast(&Ray::new(Vec3::new(8.0, 20.0, 2.0), Vec3::new(0.0, -1.0, 1.0)), 100.0).unwrap();
    assert!((hit.point.y - 11.5).abs() < 1e-4 && (hit.point.z - 10.5).abs() < 1e-4, "{hit:?}");
}

#[test]
fn bad_rays_hit_nothing() {
    let f = hills();
    let c = &f.collider;
    let down = Ray::new(Vec3::new(20.0, 60.0, 20.0), Vec3::NEG_Y);
    assert!(c.raycast(&down, 100.0).is_some());
    assert!(c.raycast(&down, f32::INFINITY).is_some(), "an infinite max_t is fine");
    assert!(c.raycast(&down, f32::NAN).is_none());
    assert!(c.raycast(&down, -1.0).is_none());
    assert!(c.raycast(&down, 0.0).is_none());
    assert!(c.raycast(&Ray::new(Vec3::new(20.0, 60.0, 20.0), Vec3::ZERO), 100.0).is_none());
    assert!(c.raycast(&Ray::new(Vec3::new(f32::NAN, 60.0, 20.0), Vec3::NEG_Y), 100.0).is_none());
    assert!(c.raycast(&Ray::new(Vec3::new(20.0, 60.0, 20.0), Vec3::new(0.0, f32::INFINITY, 0.0)), 100.0).is_none());
    // Huge coordinates: a quick answer, no walk over a billion chunks (precision that far from
    // the world is the caller's: t is computed from the ray's origin in f32).
    assert!(c.raycast(&Ray::new(Vec3::splat(3e9), Vec3::ONE), f32::INFINITY).is_none());
    let _ = c.raycast(&Ray::new(Vec3::splat(-3e9), Vec3::ONE), f32::INFINITY);
    let _ = c.raycast(&Ray::new(Vec3::new(-f32::MAX, 20.0, 20.0), Vec3::X), f32::INFINITY);
    // Up into the sky: nothing.
    assert!(c.raycast(&Ray::new(Vec3::new(20.0, 60.0, 20.0), Vec3::Y), f32::INFINITY).is_none());
}

/// A ray from far away hits where a ray from nearby on the same line hits, for the smooth surface
/// and for ray marching. From `x = 1e8` towards a 64-wide world the smooth hit was at `x = 72`
/// (the world's side is at 63.3) and from `1e30` nothing was hit.
#[test]
fn far_origins_get_the_near_answer() {
    let (store, world) = flat(IVec3::new(64, 24, 64), 16);
    let c = collider(store, world);
    // Straight along -x, below the ground's top, onto the world's side face: the answer of the
    // same ray from x = 100.
    let near = Ray::new(Vec3::new(100.0, 10.3, 20.7), Vec3::NEG_X);
    let expect = c.raycast(&near, f32::INFINITY).unwrap();
    assert!(expect.normal.x > 0.99 && (expect.point.x - 63.4).abs() < 0.2, "{expect:?}");
    let expect_voxel = c.raymarch(&near, f32::INFINITY).unwrap();
    assert_eq!((expect_voxel.voxel, expect_voxel.point), (IVec3::new(63, 10, 20), Vec3::new(64.0, 10.3, 20.7)));
    for far in [1e5f32, 1e8, 1e12, 1e30] {
        let ray = Ray::new(Vec3::new(far, 10.3, 20.7), Vec3::NEG_X);
        let hit = c.raycast(&ray, f32::INFINITY).unwrap_or_else(|| panic!("from {far}: no hit"));
        assert!((hit.point - expect.point).abs().max_element() < 1e-4, "from {far}: {hit:?}");
        assert_eq!((hit.chunk, hit.triangle, hit.normal), (expect.chunk, expect.triangle, expect.normal), "from {far}");
        let t = f64::from(far) - 100.0 + f64::from(expect.t);
        assert!((f64::from(hit.t) - t).abs() <= 1e-6 * t, "from {far}: t {} against {t}", hit.t);
        let marched = c.raymarch(&ray, f32::INFINITY).unwrap_or_else(|| panic!("from {far}: no voxel"));
        assert_eq!(
            (marched.voxel, marched.point, marched.face),
            (expect_voxel.voxel, expect_voxel.point, expect_voxel.face)
        );
        // max_t still counts from the far origin.
        let short = far * 0.999;
        assert!(c.raycast(&ray, short).is_none() && c.raymarch(&ray, short).is_none(), "from {far}");
    }
    // Slanted rays from far corners: the answer of a ray on the same line from 300 voxels off,
    // computed from the far ray's own (f32) origin and direction in f64.
    let mut rng = Rng(41);
    let mut hits = 0;
    for i in 0..200 {
        let target = Vec3::new(rng.range(4.0, 60.0), rng.range(0.0, 16.0), rng.range(4.0, 60.0));
        let far = [1e6f32, 1e8, 3e9][i % 3];
        let dir = Vec3::new(rng.range(-1.0, 1.0), -rng.range(0.2, 1.0), rng.range(-1.0, 1.0)).normalize();
        let ray = Ray::new(target - dir * far, dir);
        let (o, d) = (ray.origin.as_dvec3(), ray.dir.as_dvec3());
        // The far ray's line 300 voxels before the point nearest to the target (above the ground).
        let t_near = (target.as_dvec3() - o).dot(d) / d.length_squared() - 300.0 / d.length();
        let p = o + d * t_near;
        let near = Ray::new(Vec3::new(p.x as f32, p.y as f32, p.z as f32), dir);
        let (a, b) = (c.raycast(&ray, f32::INFINITY), c.raycast(&near, f32::INFINITY));
        match (a, b) {
            (Some(a), Some(b)) => {
                hits += 1;
                assert!((a.point - b.point).abs().max_element() < 1e-2, "{ray:?}: {a:?} against {b:?}");
                let t = t_near + f64::from(b.t);
                assert!((f64::from(a.t) - t).abs() <= 1e-6 * t, "{ray:?}: t {} against {t}", a.t);
            }
            (None, None) => {}
            _ => panic!("{ray:?}: far {a:?}, near {b:?}"),
        }
        let (a, b) = (c.raymarch(&ray, f32::INFINITY), c.raymarch(&near, f32::INFINITY));
        assert_eq!(a.map(|h| h.voxel), b.map(|h| h.voxel), "{ray:?}");
    }
    assert!(hits > 100, "most slanted rays land on the ground ({hits})");
}

/// Far rays into a world at the collider's coordinate limit (`2^20 - 16` on every axis) keep their own
/// line: the first hit of the far ray's exact line (its `f32` origin and direction taken in `f64`)
/// over every triangle of every chunk mesh, in `f64`. Restarting from an `f32` point next to the
/// world (where `f32` steps are 1/16 voxel) moved the line by up to 1/32 voxel per axis.
#[test]
fn far_rays_into_a_world_at_the_limit_keep_their_line() {
    let c0 = IVec3::splat((1 << 20) - 32);
    let world = VoxelBox::new(c0 - IVec3::splat(8), c0 + IVec3::splat(8));
    let mut store = VoxelStore::with_palette(voxel_store::generate::palette());
    voxel_store::generate::from_fn(&mut store, world, |p| {
        if (p - c0).abs().max_element() <= 1 {
            voxel_core::Voxel::new(-64, voxel_store::generate::materials::ROCK)
        } else {
            voxel_core::Voxel::new(64, voxel_store::generate::materials::AIR)
        }
    })
    .unwrap();
    store.compact();
    let brute = BruteWorld::new(&store, world);
    let tris: Vec<[glam::DVec3; 3]> = brute
        .chunks
        .iter()
        .flat_map(|(_, m)| (0..m.triangle_count() as u32).map(|t| m.triangle_positions(t).map(Vec3::as_dvec3)))
        .collect();
    assert!(tris.len() > 20, "the block has a surface ({})", tris.len());
    let c = collider(store, world);
    // The reference: Moller-Trumbore in f64 relative to the ray's origin, nearest hit.
    let reference = |ray: &Ray| -> Option<f64> {
        let (o, d) = (ray.origin.as_dvec3(), ray.dir.as_dvec3());
        let mut best: Option<f64> = None;
        for tri in &tris {
            let [a, b, cc] = tri.map(|v| v - o);
            let (e1, e2) = (b - a, cc - a);
            let p = d.cross(e2);
            let det = e1.dot(p);
            if det.abs() < 1e-12 {
                continue;
            }
            let (u, q) = ((-a).dot(p) / det, (-a).cross(e1));
            let v = d.dot(q) / det;
            let t = e2.dot(q) / det;
            if u >= 0.0 && v >= 0.0 && u + v <= 1.0 && t >= 0.0 && best.is_none_or(|b| t < b) {
                best = Some(t);
            }
        }
        best
    };
    let mut rng = Rng(23);
    let (mut hits, mut checked) = (0, 0);
    for _ in 0..300 {
        // Aimed at a point well inside a triangle, from 8000-16000 voxels away.
        let tri = tris[(rng.range(0.0, tris.len() as f32) as usize).min(tris.len() - 1)];
        let (u, v) = (rng.range(0.2, 0.6), rng.range(0.2, 0.6) * 0.5);
        let target = tri[0] + (tri[1] - tri[0]) * f64::from(u) + (tri[2] - tri[0]) * f64::from(v);
        let dir = Vec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)).normalize();
        let far = f64::from(rng.range(8000.0, 16000.0));
        let o = target - dir.as_dvec3() * far;
        let ray = Ray::new(Vec3::new(o.x as f32, o.y as f32, o.z as f32), dir);
        let Some(t) = reference(&ray) else { continue };
        // Rays whose line grazes a silhouette (another triangle within a hair) are not checked.
        let nudge = |dv: Vec3| reference(&Ray::new(ray.origin, (dir + dv * 1e-6).normalize()));
        let steady = [Vec3::X, Vec3::Y, Vec3::Z, -Vec3::X, -Vec3::Y, -Vec3::Z]
            .iter()
            .all(|&dv| nudge(dv).is_some_and(|t2| (t2 - t).abs() < 0.05));
        if !steady {
            continue;
        }
        checked += 1;
        let hit = c.raycast(&ray, f32::INFINITY);
        let Some(hit) = hit else { panic!("{ray:?}: no hit, the line hits at t {t}") };
        hits += 1;
        // t within the f32 rounding of t (at most 2^-11 below 2^14 voxels, 2^-10 below 2^15).
        assert!((f64::from(hit.t) - t).abs() <= 2e-3, "{ray:?}: t {} against {t}", hit.t);
        let p = ray.origin.as_dvec3() + ray.dir.as_dvec3() * t;
        assert!((hit.point.as_dvec3() - p).abs().max_element() <= 0.07, "{ray:?}: {hit:?} against {p}");
    }
    assert!(checked > 100 && hits == checked, "{hits} of {checked}");
}

#[test]
fn an_empty_world_hits_nothing() {
    let world = VoxelBox::new(IVec3::ZERO, IVec3::splat(16));
    let c = collider(VoxelStore::with_palette(voxel_store::generate::palette()), world);
    assert!(c.raycast(&Ray::new(Vec3::splat(-1.0), Vec3::ONE), 100.0).is_none());
    assert_eq!(c.cache_stats().misses, 0, "the broadphase answers without meshing");
}

#[test]
fn hits_name_their_chunk_shape() {
    let f = hills();
    let hit = f.collider.raycast(&Ray::new(Vec3::new(30.3, 60.0, 17.9), Vec3::NEG_Y), 100.0).unwrap();
    let shape = f.collider.chunk_shape(hit.chunk).unwrap();
    assert_eq!(shape.key(), hit.chunk);
    assert_eq!(shape.mesh().triangle_material(hit.triangle), hit.material);
    let [a, b, c] = shape.mesh().triangle_positions(hit.triangle);
    assert!(
        voxel_kdtree::ray_triangle(&Ray::new(Vec3::new(30.3, 60.0, 17.9), Vec3::NEG_Y), [a, b, c], 100.0).is_some()
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 256, ..Default::default() })]

    /// Any ray, including ones snapped to chunk planes and voxel corners, equals brute force.
    #[test]
    fn any_ray_equals_brute_force(
        origin in proptest::array::uniform3(-10.0f32..58.0),
        dir in proptest::array::uniform3(-1.0f32..1.0),
        snap in 0u8..4,
        max_t in 0.0f32..120.0,
    ) {
        let mut origin = Vec3::from_array(origin);
        let mut dir = Vec3::from_array(dir);
        match snap {
            // On a chunk plane, running in it.
            0 => { origin.z = (origin.z / 8.0).round() * 8.0; dir.z = 0.0; }
            // On voxel corners.
            1 => origin = origin.round(),
            // Axis-aligned.
            2 => dir = Vec3::new(0.0, dir.y.signum(), 0.0),
            _ => {}
        }
        let f = hills();
        check(f, &Ray::new(origin, dir), max_t, &mut RayScratch::new());
    }
}
