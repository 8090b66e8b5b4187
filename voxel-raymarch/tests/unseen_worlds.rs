//! An audit on worlds nobody tuned the crate on: every public query against a brute-force
//! voxel-by-voxel walk written here from the README's definition, on generated worlds of kinds
//! the other tests do not build (sparse noise, carved caves, single voxels, one-voxel walls,
//! diagonal staircases, voxels packed on chunk and brick seams, empty and full worlds), placed
//! at the origin and against both ends of `MAX_COORDINATE`, after random edit sequences through
//! both refresh paths, and on 1 and 2 threads.
//!
//! Case counts are small by default; `PROPTEST_CASES=N` raises every property to `N` cases.

use glam::{DVec3, IVec3, Vec3};
use proptest::prelude::*;
use voxel_core::{Phase, PhaseTable, Ray, Voxel, VoxelBox, VoxelGrid, VoxelSource};
use voxel_raymarch::{CHUNK_EDGE, Cast, MAX_COORDINATE, Occupancy, RayHit, RaymarchError};
use voxel_store::{VoxelStore, generate};
use voxel_testdata::{Rng, mix};

/// Cases of a property: `PROPTEST_CASES` when set (for long runs), else `default`.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// The limit as a voxel coordinate.
const LIMIT: i32 = MAX_COORDINATE.get();

// ---------------------------------------------------------------------------------------------
// Worlds
// ---------------------------------------------------------------------------------------------

/// Materials of the grid worlds: 1 solid, 2 liquid, 3 an empty phase.
const ROCK: u8 = 1;
const WATER: u8 = 2;
const GAS: u8 = 3;

fn grid_phases() -> PhaseTable {
    let mut t = PhaseTable::DEFAULT;
    t.set(WATER, Phase::Liquid);
    t.set(GAS, Phase::Empty);
    t
}

/// What a world is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Independent voxels, 0.2% to 6% solid.
    Sparse,
    /// Ground under a height field with caves carved by 3D value noise.
    Caves,
    /// One solid voxel.
    Single,
    /// One-voxel walls perpendicular to an axis, with holes, some on chunk or brick seams.
    Walls,
    /// Diagonal one-voxel sheets and staircases (edge- and corner-connected voxels).
    Stairs,
    /// Voxels packed on the planes of chunk and brick seams.
    Seams,
    /// Nothing solid.
    Empty,
    /// Everything solid.
    Full,
}

const KINDS: [Kind; 8] =
    [Kind::Sparse, Kind::Caves, Kind::Single, Kind::Walls, Kind::Stairs, Kind::Seams, Kind::Empty, Kind::Full];

/// Where a world sits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    /// Near the origin, any alignment.
    Origin,
    /// Touching (or within 3 of) `+MAX_COORDINATE` on every axis.
    High,
    /// Touching (or within 3 of) `-MAX_COORDINATE` on every axis.
    Low,
    /// Per axis one of the above.
    Mixed,
}

const PLACES: [Place; 4] = [Place::Origin, Place::High, Place::Low, Place::Mixed];

/// Hash of a voxel and a seed, in `0..1_000_000`.
fn hash(p: IVec3, seed: u64) -> u64 {
    let [x, y, z] = p.to_array().map(|c| u64::from(c as u32));
    mix(x ^ y << 21 ^ z << 42 ^ mix(seed ^ z >> 22 << 7)) % 1_000_000
}

/// Value noise in `0..1` on a lattice of `cell` voxels, trilinear.
fn noise3(p: IVec3, cell: i32, seed: u64) -> f32 {
    let base = p.div_euclid(IVec3::splat(cell));
    let f = (p - base * cell).as_vec3() / cell as f32;
    let v = |d: IVec3| hash(base + d, seed) as f32 / 1e6;
    let lerp = |a: f32, b: f32, t: f32| a + (b - a) * t;
    let x00 = lerp(v(IVec3::new(0, 0, 0)), v(IVec3::new(1, 0, 0)), f.x);
    let x10 = lerp(v(IVec3::new(0, 1, 0)), v(IVec3::new(1, 1, 0)), f.x);
    let x01 = lerp(v(IVec3::new(0, 0, 1)), v(IVec3::new(1, 0, 1)), f.x);
    let x11 = lerp(v(IVec3::new(0, 1, 1)), v(IVec3::new(1, 1, 1)), f.x);
    lerp(lerp(x00, x10, f.y), lerp(x01, x11, f.y), f.z)
}

/// A world's solid set, as a pure function of the voxel (so any source can be filled from it).
#[derive(Clone, Copy, Debug)]
struct Recipe {
    kind: Kind,
    world: VoxelBox,
    seed: u64,
    /// Kind-specific parameters.
    a: i32,
    b: i32,
    c: i32,
    density: u64,
}

impl Recipe {
    fn new(rng: &mut Rng, kind: Kind, world: VoxelBox) -> Self {
        let size = world.size();
        let axis = rng.int(0, 3);
        // A coordinate along `axis` inside the world, often on a chunk or brick seam.
        let mut c = world.min[axis as usize] + rng.int(0, size[axis as usize]);
        if rng.int(0, 2) == 0 {
            let seam = [31, 0, 15, 16][rng.int(0, 4) as usize];
            let snapped = c.div_euclid(32) * 32 + seam;
            if world.min[axis as usize] <= snapped && snapped < world.max[axis as usize] {
                c = snapped;
            }
        }
        Recipe {
            kind,
            world,
            seed: rng.next_u64(),
            a: axis,
            b: rng.int(-8, 8),
            c,
            density: [2_000, 10_000, 30_000, 60_000][rng.int(0, 4) as usize],
        }
    }

    fn solid(&self, p: IVec3) -> bool {
        if !self.world.contains(p) {
            return false;
        }
        let r = p - self.world.min;
        match self.kind {
            Kind::Sparse => hash(p, self.seed) < self.density,
            Kind::Caves => {
                let h = self.world.size().y as f32 * (0.3 + 0.5 * noise3(IVec3::new(p.x, 0, p.z), 16, self.seed));
                (r.y as f32) < h && noise3(p, 8, self.seed ^ 1) < 0.55
            }
            Kind::Single => {
                let s = self.world.size();
                let q = IVec3::new(
                    (self.seed % s.x as u64) as i32,
                    (self.seed / 7 % s.y as u64) as i32,
                    (self.seed / 131 % s.z as u64) as i32,
                );
                r == q
            }
            Kind::Walls => {
                let a = self.a as usize;
                // A second wall on the next axis, 5 further on (wrapped into the world).
                let second = (self.c - self.world.min[(a + 1) % 3] + 5)
                    .rem_euclid(self.world.size()[(a + 1) % 3].max(1))
                    + self.world.min[(a + 1) % 3];
                let on = p[a] == self.c || p[(a + 1) % 3] == second;
                on && hash(p, self.seed) >= 40_000
            }
            Kind::Stairs => match self.seed % 3 {
                // An edge-connected diagonal sheet: y = x + b (every z).
                0 => r.y == r.x + self.b,
                // A corner-connected diagonal line sheet: y = x + z + b.
                1 => r.y == r.x + r.z + self.b,
                // A staircase: filled below y = (x + b) / 2.
                _ => r.y <= (r.x + self.b).div_euclid(2),
            },
            Kind::Seams => {
                let on = |v: i32| matches!(v.rem_euclid(32), 31 | 0) || matches!(v.rem_euclid(16), 15 | 0);
                (on(p.x) || on(p.y) || on(p.z)) && hash(p, self.seed) < 5 * self.density
            }
            Kind::Empty => false,
            Kind::Full => true,
        }
    }

    /// The voxel a grid world stores at `p`: solid ones in rock, the others mostly empty, some
    /// inside but liquid or of an empty phase, some of a solid material but outside; none of
    /// those may count as solid.
    fn voxel(&self, p: IVec3) -> Voxel {
        if self.solid(p) {
            return Voxel::new(-(1 + (hash(p, 9) % 100) as i8), ROCK);
        }
        match hash(p, self.seed ^ 77) % 20 {
            0 => Voxel::new(-20, WATER),
            1 => Voxel::new(-20, GAS),
            2 => Voxel::new(0, ROCK),
            3 => Voxel::new(40, ROCK),
            _ => Voxel::EMPTY,
        }
    }
}

/// A world box of the given place.
fn world_box(rng: &mut Rng, place: Place) -> VoxelBox {
    let size = IVec3::new(rng.int(1, 72), rng.int(1, 56), rng.int(1, 72));
    let axis = |rng: &mut Rng, place: Place, s: i32| -> i32 {
        match place {
            Place::Origin => {
                if rng.int(0, 2) == 0 {
                    rng.int(-4, 4) * 32 + rng.int(-1, 2)
                } else {
                    rng.int(-80, 50)
                }
            }
            Place::High => LIMIT - rng.int(0, 4) - s,
            Place::Low => -LIMIT + rng.int(0, 4),
            Place::Mixed => unreachable!(),
        }
    };
    let mut min = IVec3::ZERO;
    for a in 0..3 {
        let p = if place == Place::Mixed {
            [Place::Origin, Place::High, Place::Low][rng.int(0, 3) as usize]
        } else {
            place
        };
        min[a] = axis(rng, p, size[a]);
    }
    VoxelBox::from_min_size(min, size)
}

/// A grid source over `recipe`'s world, sometimes a few voxels larger than it (the occupancy
/// must count the voxels outside its world box as empty).
fn grid_of(recipe: &Recipe, grow: i32) -> VoxelGrid {
    let bounds = recipe.world.grow(grow);
    VoxelGrid::from_fn(bounds, |p| {
        if recipe.world.contains(p) {
            recipe.voxel(p)
        } else if hash(p, 5).is_multiple_of(2) {
            Voxel::new(-50, ROCK)
        } else {
            Voxel::EMPTY
        }
    })
    .expect("small grid")
    .with_phases(grid_phases())
}

// ---------------------------------------------------------------------------------------------
// The brute-force reference
// ---------------------------------------------------------------------------------------------

/// A face as (axis index, outward normal along +axis).
type FaceKey = (usize, bool);

/// A hit as the README defines it: voxel, face, t.
type Expected = (IVec3, Option<FaceKey>, f32);

/// The exact (f64) walk's hit: voxel, face, t, and how clear of the entry face's edges it entered.
type ExactHit = (IVec3, Option<FaceKey>, f64, f64);

/// The README's walk, one voxel at a time, with nothing skipped or clipped: voxel `p` is the cell
/// `[p, p + 1)`; the ray crosses plane `k` of axis `a` at `(k - o_a) * (1 / d_a)` (f32); voxels
/// are visited by crossing time, ties in axis order x, y, z; a ray starting in a solid voxel hits
/// it at `t = 0` with no face; the first solid voxel entered at `t <= max_t` is the hit. Invalid
/// rays (non-finite origin or direction, no component with a finite inverse), NaN or negative
/// `max_t`: none. `solid` must be false outside `world`.
fn brute_cast(world: VoxelBox, solid: &dyn Fn(IVec3) -> bool, ray: &Ray, max_t: f32) -> Option<Expected> {
    let (o, d) = (ray.origin, ray.dir);
    if !o.is_finite() || !d.is_finite() || !(max_t >= 0.0) {
        return None;
    }
    let mut step = [0i64; 3];
    let mut inv = [0f32; 3];
    for a in 0..3 {
        let i = 1.0 / d[a];
        if i.is_finite() {
            inv[a] = i;
            step[a] = if d[a] > 0.0 { 1 } else { -1 };
        }
    }
    if step == [0; 3] {
        return None;
    }
    let mut cell: [i64; 3] = [0, 1, 2].map(|a| o[a].floor() as i64);
    let next_plane = |cell: i64, s: i64| cell + i64::from(s > 0);
    let time = |a: usize, k: i64| (k as f32 - o[a]) * inv[a];
    let mut next: [f32; 3] =
        [0, 1, 2].map(|a| if step[a] == 0 { f32::INFINITY } else { time(a, next_plane(cell[a], step[a])) });
    let lo = [world.min.x, world.min.y, world.min.z].map(i64::from);
    let hi = [world.max.x, world.max.y, world.max.z].map(|v| i64::from(v) - 1);
    let mut entered: Option<(usize, bool)> = None;
    let mut t = 0.0f32;
    loop {
        if (0..3).all(|a| lo[a] <= cell[a] && cell[a] <= hi[a]) {
            let p = IVec3::new(cell[0] as i32, cell[1] as i32, cell[2] as i32);
            if solid(p) {
                return Some((p, entered, t + 0.0));
            }
        }
        if (0..3).any(|a| (cell[a] < lo[a] && step[a] <= 0) || (cell[a] > hi[a] && step[a] >= 0)) {
            return None;
        }
        let mut a = 0;
        if next[1] < next[a] {
            a = 1;
        }
        if next[2] < next[a] {
            a = 2;
        }
        if next[a] == f32::INFINITY || !(next[a] <= max_t) {
            return None;
        }
        t = next[a];
        cell[a] += step[a];
        entered = Some((a, step[a] < 0));
        next[a] = time(a, next_plane(cell[a], step[a]));
    }
}

/// The crate's answer in the reference's terms, after checking what the reference does not
/// give: the entry point (on the face plane exactly, on the ray up to rounding; the origin
/// without a face).
fn answer(hit: Option<RayHit>, ray: &Ray) -> Option<Expected> {
    let h = hit?;
    match h.face {
        None => assert_eq!(h.point, ray.origin, "no face: the point is the origin, {h:?}"),
        Some(f) => {
            let a = f.axis.index();
            assert_eq!(h.point[a], (h.voxel[a] + i32::from(f.positive)) as f32, "point on the face plane, {h:?}");
            let on_ray = ray.origin.as_dvec3() + ray.dir.as_dvec3() * f64::from(h.t);
            let err = (on_ray - h.point.as_dvec3()).abs().max_element();
            let scale =
                1.0 + f64::from(ray.origin.abs().max_element()) + f64::from((ray.dir * h.t).abs().max_element());
            assert!(err <= 1e-5 * scale, "point off the ray by {err}, {h:?} {ray:?}");
        }
    }
    Some((h.voxel, h.face.map(|f| (f.axis.index(), f.positive)), h.t))
}

fn bits(e: Option<Expected>) -> Option<(IVec3, Option<FaceKey>, u32)> {
    e.map(|(v, f, t)| (v, f, t.to_bits()))
}

// ---------------------------------------------------------------------------------------------
// Rays
// ---------------------------------------------------------------------------------------------

/// Tiny components: nearly axis-parallel rays (1e-7 and friends), and components whose inverse
/// overflows (subnormal: counted as zero) or nearly does.
const TINY: [f32; 9] = [1e-7, -1e-7, 3e-8, -2.5e-6, 1e-30, -1e-38, 3e-39, -1e-40, 0.0];

/// A random ray for `world` (origins within 6 voxels of it), with the special cases of the brief.
fn gen_ray(rng: &mut Rng, world: VoxelBox, solids: &[IVec3]) -> (Ray, f32) {
    let lo = world.min.as_vec3() - 6.0;
    let hi = world.max.as_vec3() + 6.0;
    let pick = |rng: &mut Rng| -> Option<IVec3> {
        (!solids.is_empty()).then(|| solids[(rng.next_u64() % solids.len() as u64) as usize])
    };
    let mut o = rng.vec(lo, hi);
    match rng.int(0, 10) {
        // On a voxel face, edge or corner.
        0 => o.x = o.x.floor(),
        1 => o = Vec3::new(o.x.floor(), o.y, o.z.floor()),
        2 => o = o.floor(),
        3 => o = o.floor() + 0.5,
        // Inside a solid voxel, anywhere in it or on its corner.
        4 => {
            if let Some(s) = pick(rng) {
                o = s.as_vec3() + if rng.int(0, 3) == 0 { Vec3::ZERO } else { rng.vec(Vec3::ZERO, Vec3::ONE) };
            }
        }
        // On a face of a solid voxel, from outside it.
        5 => {
            if let Some(s) = pick(rng) {
                let a = rng.int(0, 3) as usize;
                o = s.as_vec3() + Vec3::splat(0.5);
                o[a] = (s[a] + rng.int(0, 2)) as f32;
            }
        }
        // 20 to 4,000 voxels out towards a solid voxel: still the f32 walk (no far path),
        // crossing empty chunks and bricks.
        6 => {
            if let Some(s) = pick(rng) {
                o = s.as_vec3() + 0.5 - rng.direction() * rng.range(20.0, 4000.0);
            }
        }
        _ => {}
    }
    let target = pick(rng)
        .map(|s| s.as_vec3() + [Vec3::splat(0.5), Vec3::ZERO, Vec3::new(0.5, 0.0, 1.0)][rng.int(0, 3) as usize]);
    let sign = |rng: &mut Rng| if rng.int(0, 2) == 0 { 1.0f32 } else { -1.0 };
    let mut d = rng.direction();
    match rng.int(0, 10) {
        // Axis-parallel, the other components +0 or -0.
        0 => {
            let a = rng.int(0, 3) as usize;
            d = Vec3::new(0.0 * sign(rng), 0.0 * sign(rng), 0.0 * sign(rng));
            d[a] = sign(rng);
        }
        // Nearly axis-parallel.
        1 | 2 => {
            let a = rng.int(0, 3) as usize;
            d = Vec3::new(TINY[rng.int(0, 9) as usize], TINY[rng.int(0, 9) as usize], TINY[rng.int(0, 9) as usize]);
            d[a] = sign(rng);
        }
        // Exact diagonals and face diagonals: through edges and corners.
        3 => d = Vec3::new(sign(rng), sign(rng), sign(rng)),
        4 => {
            d = Vec3::new(sign(rng), sign(rng), sign(rng));
            d[rng.int(0, 3) as usize] = 0.0;
        }
        // Aimed at a solid voxel's centre, corner or edge.
        5 | 6 => {
            if let Some(t) = target {
                if t != o {
                    d = t - o;
                }
            }
        }
        // Huge and tiny magnitudes.
        7 => d *= [1e30, 1e-30, 3e38, 1e-36][rng.int(0, 4) as usize],
        _ => {}
    }
    let max_t = match rng.int(0, 12) {
        0 => 0.0,
        1 => -0.0,
        2 => rng.range(0.0, 1.5),
        3 => f32::INFINITY,
        4 => f32::MAX,
        5 => 1e30,
        6 => rng.range(0.0, 40.0).floor(),
        _ => rng.range(0.0, 200.0),
    };
    let max_t = if d.length() < 1e-6 || d.length() > 1e6 { f32::INFINITY } else { max_t };
    (Ray::new(o, d), max_t)
}

/// Bad input: the crate documents a no-hit for each.
fn bad_rays(world: VoxelBox) -> Vec<(Ray, f32)> {
    let c = world.min.as_vec3() + world.size().as_vec3() * 0.5;
    let nan = f32::NAN;
    let inf = f32::INFINITY;
    let mut v = Vec::new();
    for dir in [
        Vec3::ZERO,
        Vec3::new(-0.0, 0.0, -0.0),
        Vec3::splat(1e-40),
        Vec3::new(nan, 1.0, 0.0),
        Vec3::new(0.0, inf, 0.0),
        Vec3::new(-inf, 1.0, 1.0),
    ] {
        for max_t in [0.0, 10.0, inf] {
            v.push((Ray::new(c, dir), max_t));
        }
    }
    for origin in [Vec3::new(nan, c.y, c.z), Vec3::new(c.x, inf, c.z), Vec3::new(c.x, c.y, -inf)] {
        v.push((Ray::new(origin, Vec3::new(0.3, -1.0, 0.2)), inf));
        v.push((Ray::new(origin, Vec3::X), 5.0));
    }
    for max_t in [nan, -1.0, -inf, -1e-45] {
        v.push((Ray::new(c, Vec3::NEG_Y), max_t));
    }
    v
}

/// Checks `occ` against the truth: every voxel of the world and a ring around it, and `n`
/// random rays (plus the bad ones) against the reference walk and the batch.
fn check_against_truth(occ: &Occupancy, truth: &dyn Fn(IVec3) -> bool, rng: &mut Rng, n: usize) {
    let world = occ.world();
    let mut solids = Vec::new();
    for p in world.grow(2).iter() {
        let t = truth(p);
        assert_eq!(occ.is_solid(p), t, "is_solid({p}) in world {world:?}");
        if t {
            solids.push(p);
        }
    }
    // Storage follows the solid chunks exactly.
    let chunks: std::collections::HashSet<IVec3> =
        solids.iter().map(|p| p.div_euclid(IVec3::splat(CHUNK_EDGE))).collect();
    assert_eq!(occ.stored_chunks(), chunks.len(), "stored chunks");
    let mut casts: Vec<Cast> = (0..n)
        .map(|_| {
            let (ray, max_t) = gen_ray(rng, world, &solids);
            Cast { ray, max_t }
        })
        .collect();
    casts.extend(bad_rays(world).into_iter().map(|(ray, max_t)| Cast { ray, max_t }));
    let mut hits = 0;
    for c in &casts {
        let got = answer(occ.cast(&c.ray, c.max_t), &c.ray);
        let expected = brute_cast(world, truth, &c.ray, c.max_t);
        assert_eq!(bits(got), bits(expected), "ray {:?} max_t {} in world {world:?}", c.ray, c.max_t);
        hits += usize::from(got.is_some());
    }
    // The batch equals the single casts, on one and two threads.
    let single: Vec<_> = casts.iter().map(|c| occ.cast(&c.ray, c.max_t)).collect();
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a pool");
        let mut out = vec![None; 3];
        pool.install(|| occ.march(&casts, &mut out));
        assert_eq!(out, single, "march on {threads} threads");
    }
    // Worlds with solid voxels must produce hits, or the comparison proves little.
    if solids.len() > 20 {
        assert!(hits > 0, "no hit among {} rays on {} solid voxels", casts.len(), solids.len());
    }
}

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(48), failure_persistence: None, ..ProptestConfig::default() })]

    /// Every kind of world at every place: occupancy bits and casts equal the brute force; the
    /// batch equals single casts on 1 and 2 threads; the build is the same on 1 and 2 threads.
    #[test]
    fn casts_equal_brute_force(seed in any::<u64>(), kind in 0usize..8, place in 0usize..4, grow in -1i32..3) {
        let mut rng = Rng(seed);
        let world = world_box(&mut rng, PLACES[place]);
        let recipe = Recipe::new(&mut rng, KINDS[kind], world);
        // The source's box: the world grown, or shrunk (then voxels of the world it lacks read as
        // empty).
        let grow = if world.grow(grow).is_empty() { 0 } else { grow };
        let grid = grid_of(&recipe, grow);
        let occ = Occupancy::build(&grid, world).expect("a world within the limit");
        let truth = |p: IVec3| world.contains(p) && grid.get(p).phase(grid.phase_table()) == Phase::Solid;
        check_against_truth(&occ, &truth, &mut rng, 600);
        // Built on one thread: the same answers (checked on the rays of a fresh stream).
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a pool");
        let one = pool.install(|| Occupancy::build(&grid, world)).expect("same world");
        prop_assert_eq!(one.stored_chunks(), occ.stored_chunks());
        let mut r1 = Rng(seed ^ 3);
        for _ in 0..200 {
            let (ray, max_t) = gen_ray(&mut r1, world, &[]);
            prop_assert_eq!(one.cast(&ray, max_t), occ.cast(&ray, max_t));
        }
    }

    /// Random edit sequences on a `VoxelStore` (single voxels set and cleared, boxes filled with
    /// rock, air or water, small ones through the patch path and large ones through the chunk
    /// rebuild), each followed by `refresh` with the edit's dirty box: the occupancy equals the
    /// store voxel for voxel, a fresh build ray for ray (bit for bit), and the brute force.
    #[test]
    fn edits_equal_a_fresh_build_and_brute_force(seed in any::<u64>(), kind in 0usize..8, place in 0usize..4) {
        let mut rng = Rng(seed);
        let world = world_box(&mut rng, PLACES[place]);
        let recipe = Recipe::new(&mut rng, KINDS[kind], world);
        let rock = Voxel::new(-60, generate::materials::ROCK);
        let water = Voxel::new(-60, generate::materials::WATER);
        let mut store = VoxelStore::with_palette(generate::palette());
        generate::from_fn(&mut store, world, |p| if recipe.solid(p) { rock } else { Voxel::EMPTY }).expect("small world");
        let mut occ = Occupancy::build(&store, world).expect("in range");
        let truth = |store: &VoxelStore, p: IVec3| {
            world.contains(p) && store.get(p).phase(store.phase_table()) == Phase::Solid
        };
        let edits = rng.int(1, 7);
        for _ in 0..edits {
            // A box inside the world grown by 4 (edits past the world box are ignored by it).
            let area = world.grow(4);
            let min = IVec3::new(
                rng.int(area.min.x, area.max.x),
                rng.int(area.min.y, area.max.y),
                rng.int(area.min.z, area.max.z),
            );
            let size = match rng.int(0, 4) {
                0 => IVec3::ONE,
                1 => IVec3::new(rng.int(1, 6), rng.int(1, 6), rng.int(1, 6)),
                2 => IVec3::new(rng.int(1, 40), rng.int(1, 40), rng.int(1, 40)),
                _ => IVec3::new(rng.int(1, 90), rng.int(1, 3), rng.int(1, 90)),
            };
            let region = VoxelBox::from_min_size(min, size);
            let v = [rock, Voxel::EMPTY, water, Voxel::new(-3, generate::materials::AIR)][rng.int(0, 4) as usize];
            let report = store.fill_box(region, v).expect("small edit");
            // The dirty box as reported, or just the changed voxels' box (a consumer may pass
            // either), or a larger box.
            let dirty = match rng.int(0, 3) {
                0 => report.dirty,
                1 => if report.dirty.is_empty() { report.dirty } else { region },
                _ => report.dirty.grow(rng.int(1, 20)),
            };
            occ.refresh(&store, dirty).expect("refresh");
        }
        let fresh = Occupancy::build(&store, world).expect("in range");
        prop_assert_eq!(occ.stored_chunks(), fresh.stored_chunks());
        check_against_truth(&occ, &|p| truth(&store, p), &mut rng, 200);
        let mut r = Rng(seed ^ 11);
        for _ in 0..300 {
            let (ray, max_t) = gen_ray(&mut r, world, &[]);
            let (a, b) = (occ.cast(&ray, max_t), fresh.cast(&ray, max_t));
            prop_assert_eq!(a.map(|h| (h.voxel, h.face, h.t.to_bits(), h.point.to_array().map(f32::to_bits))),
                b.map(|h| (h.voxel, h.face, h.t.to_bits(), h.point.to_array().map(f32::to_bits))), "{:?} {}", ray, max_t);
        }
    }

    /// A world built over part of the store, grown (`grow_world`) and refreshed over the rest,
    /// equals a build over the whole: the grown part reads nothing until it is refreshed.
    #[test]
    fn grown_worlds_equal_a_fresh_build(seed in any::<u64>(), kind in 0usize..8, place in 0usize..4) {
        let mut rng = Rng(seed);
        let world = world_box(&mut rng, PLACES[place]);
        let recipe = Recipe::new(&mut rng, KINDS[kind], world);
        let grid = grid_of(&recipe, 0);
        let cut = rng.int(world.min.y, world.max.y);
        let part = VoxelBox::new(world.min, IVec3::new(world.max.x, cut.max(world.min.y + 1), world.max.z));
        let mut occ = Occupancy::build(&grid, part).expect("in range");
        occ.grow_world(world).expect("in range");
        prop_assert_eq!(occ.world(), world);
        // Not yet read: the grown part is empty.
        for p in world.iter().filter(|p| !part.contains(*p)).take(4096) {
            prop_assert!(!occ.is_solid(p), "{}", p);
        }
        occ.refresh(&grid, world).expect("refresh");
        check_against_truth(&occ, &|p| recipe.solid(p), &mut rng, 150);
    }

    /// Far origins (4,200 to 30,000 voxels outside the solid bounds, so the crate's f64 far path
    /// runs) into worlds at every place, against both ends of the limit included: the hit voxel
    /// lies on the exact line of the ray (f64), and where the exact line enters a voxel clear of
    /// its edges, it is the exact walk's voxel, entered through the same face, at its `t`. A
    /// `max_t` just past that `t` gives the same hit; one just before it, no hit at or past it.
    #[test]
    fn far_origins_hit_voxels_on_the_ray(seed in any::<u64>(), kind in 0usize..6, place in 0usize..4) {
        let mut rng = Rng(seed);
        let world = world_box(&mut rng, PLACES[place]);
        let recipe = Recipe::new(&mut rng, KINDS[kind], world);
        let grid = grid_of(&recipe, 0);
        let occ = Occupancy::build(&grid, world).expect("in range");
        let solids: Vec<IVec3> = world.iter().filter(|p| recipe.solid(*p)).collect();
        prop_assume!(!solids.is_empty());
        for _ in 0..40 {
            let s = solids[(rng.next_u64() % solids.len() as u64) as usize];
            let target = s.as_vec3() + rng.vec(Vec3::splat(0.05), Vec3::splat(0.95));
            let mut dir = rng.direction();
            // Some in an axis plane, or nearly (a subnormal component counts as zero).
            match rng.int(0, 8) {
                0 => dir[rng.int(0, 3) as usize] = 0.0,
                1 => dir[rng.int(0, 3) as usize] = TINY[rng.int(0, 9) as usize],
                _ => {}
            }
            let dist = rng.range(4200.0, 30_000.0);
            let origin = target - dir * dist;
            let ray = Ray::new(origin, dir);
            let got = occ.cast(&ray, f32::INFINITY);
            let exact = exact_cast(world, &|p| recipe.solid(p), &ray);
            check_far(got, exact, &ray)?;
            if let (Some(h), Some((_, _, t, clear))) = (got, exact) {
                if clear > 0.01 {
                    let after = (t + 0.05) as f32;
                    prop_assert_eq!(occ.cast(&ray, after), got, "max_t {} just past the hit", after);
                    let before = (t - 0.05) as f32;
                    let cut = occ.cast(&ray, before);
                    prop_assert!(cut.is_none_or(|c| c.t <= before && c.t < h.t), "max_t {} before {:?}: {:?}", before, h, cut);
                }
            }
        }
    }

    /// Edits scattered over the whole coordinate range (both ends of the limit included), each
    /// grown into the world with `grow_world` and refreshed: voxels, stored chunks and rays
    /// (short ones, so the brute force stays cheap in a world millions of voxels wide) equal the
    /// brute force, through clusters added, cleared and added again.
    #[test]
    fn scattered_edits_across_the_range(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let rock = Voxel::new(-60, generate::materials::ROCK);
        let mut store = VoxelStore::with_palette(generate::palette());
        let start = VoxelBox::new(IVec3::splat(-8), IVec3::splat(8));
        store.fill_box(VoxelBox::new(IVec3::splat(-2), IVec3::splat(2)), rock).unwrap();
        let mut occ = Occupancy::build(&store, start).unwrap();
        let mut sites: Vec<VoxelBox> = vec![VoxelBox::new(IVec3::splat(-2), IVec3::splat(2))];
        for _ in 0..rng.int(2, 10) {
            let r = rng.int(0, 4);
            let site = if r == 0 && sites.len() > 1 {
                // Back to an earlier site: clear it or refill it.
                sites[(rng.next_u64() % sites.len() as u64) as usize]
            } else {
                let c = |rng: &mut Rng| match rng.int(0, 4) {
                    0 => LIMIT - rng.int(1, 40),
                    1 => -LIMIT + rng.int(0, 40),
                    _ => rng.int(-LIMIT + 40, LIMIT - 40),
                };
                let min = IVec3::new(c(&mut rng), c(&mut rng), c(&mut rng));
                let size = IVec3::new(rng.int(1, 12), rng.int(1, 12), rng.int(1, 12));
                let b = VoxelBox::from_min_size(min, size).intersection(&VoxelBox::new(IVec3::splat(-LIMIT), IVec3::splat(LIMIT)));
                sites.push(b);
                b
            };
            let v = if rng.int(0, 3) == 0 { Voxel::EMPTY } else { rock };
            let report = store.fill_box(site, v).unwrap();
            let grown = occ.world().union(&report.dirty);
            if MAX_COORDINATE.contains_box(grown) {
                occ.grow_world(report.dirty).unwrap();
            } else {
                // Past the limit: refused, and nothing changes.
                let before = occ.world();
                prop_assert_eq!(occ.grow_world(report.dirty), Err(RaymarchError::CoordinateOutOfRange));
                prop_assert_eq!(occ.world(), before);
                occ.grow_world(report.dirty.intersection(&VoxelBox::new(IVec3::splat(-LIMIT), IVec3::splat(LIMIT)))).unwrap();
            }
            occ.refresh(&store, report.dirty).unwrap();
        }
        let world = occ.world();
        let truth = |p: IVec3| world.contains(p) && store.get(p).phase(store.phase_table()) == Phase::Solid;
        let mut chunks = std::collections::HashSet::new();
        let mut solids = Vec::new();
        for site in &sites {
            for p in site.grow(2).iter() {
                prop_assert_eq!(occ.is_solid(p), truth(p), "{}", p);
                if truth(p) {
                    chunks.insert(p.div_euclid(IVec3::splat(CHUNK_EDGE)));
                    solids.push(p);
                }
            }
        }
        prop_assert_eq!(occ.stored_chunks(), chunks.len());
        for site in &sites {
            for _ in 0..60 {
                let (ray, max_t) = gen_ray(&mut rng, *site, &solids);
                // At most 300 voxels along the ray (directions run from 1e-36 to 3e38 long).
                let max_t = if max_t.is_nan() || max_t < 0.0 { max_t } else { max_t.min(300.0 / ray.dir.length().max(1e-30)) };
                let got = answer(occ.cast(&ray, max_t), &ray);
                prop_assert_eq!(bits(got), bits(brute_cast(world, &truth, &ray, max_t)), "{:?} {}", ray, max_t);
            }
        }
    }

    /// `clip_far_ray` on its own: a ray within `FAR_ORIGIN` of the box is `Near`; a far one is
    /// `Moved` onto the same line (within the f32 rounding of its new origin) one voxel before
    /// where the exact (f64) line enters the box, with the rest of `max_t`, or `Miss` when the
    /// exact line misses the box or ends before it.
    #[test]
    fn clip_far_ray_keeps_the_line(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let min = IVec3::new(rng.int(-100, 100), rng.int(-100, 100), rng.int(-100, 100));
        let bounds = voxel_core::Aabb::new(min.as_vec3(), (min + IVec3::new(rng.int(1, 64), rng.int(1, 64), rng.int(1, 64))).as_vec3());
        for _ in 0..200 {
            let target = rng.vec(bounds.min - 20.0, bounds.max + 20.0);
            let dir = rng.direction();
            let dist = if rng.int(0, 4) == 0 { rng.range(0.0, 4000.0) } else { rng.range(4200.0, 1e6) };
            let ray = Ray::new(target - dir * dist, dir);
            let max_t = [f32::INFINITY, dist * rng.unit(), dist + 50.0][rng.int(0, 3) as usize];
            let (o, d) = (ray.origin.as_dvec3(), ray.dir.as_dvec3());
            let outside = (bounds.min - ray.origin).max(ray.origin - bounds.max).max_element();
            // The exact entry time (slabs in f64).
            let (mut t0, mut t1) = (0.0f64, f64::from(max_t));
            for a in 0..3 {
                let (ta, tb) = ((f64::from(bounds.min[a]) - o[a]) / d[a], (f64::from(bounds.max[a]) - o[a]) / d[a]);
                t0 = t0.max(ta.min(tb));
                t1 = t1.min(ta.max(tb));
            }
            match voxel_raymarch::clip_far_ray(&ray, max_t, bounds) {
                voxel_raymarch::FarRay::Near => prop_assert!(outside <= voxel_raymarch::FAR_ORIGIN, "{:?}", ray),
                voxel_raymarch::FarRay::Miss => {
                    prop_assert!(outside > voxel_raymarch::FAR_ORIGIN);
                    // Rounding may decide a grazing ray: only clear entries must not be missed.
                    prop_assert!(!(t0 + 1e-3 < t1 - 1e-3), "missed a ray entering at {} (leaving {}): {:?} {}", t0, t1, ray, max_t);
                }
                voxel_raymarch::FarRay::Moved { ray: moved, max_t: rest, shift } => {
                    prop_assert!(outside > voxel_raymarch::FAR_ORIGIN);
                    prop_assert!(t0 <= t1 + 1e-3, "moved a ray that misses: {:?}", ray);
                    prop_assert_eq!(moved.dir, ray.dir);
                    let on_line = o + d * shift;
                    let spacing = 1e-6 * (1.0 + on_line.abs().max_element());
                    prop_assert!((moved.origin.as_dvec3() - on_line).abs().max_element() <= spacing, "{:?} {:?} {}", ray, moved, shift);
                    // One voxel (along the fastest axis) before the entry.
                    let back = 1.0 / d.abs().max_element();
                    prop_assert!((shift - (t0 - back)).abs() <= 1e-6 * t0.abs() + 1e-6, "{} {}", shift, t0);
                    prop_assert!((f64::from(rest) - (f64::from(max_t).min(f64::from(f32::MAX)) - shift)).abs() <= 1e-6 * f64::from(max_t).min(1e30) + 1e-3);
                }
            }
        }
    }
}

/// A source that refuses every read overlapping `refused` (a streaming world whose page failed
/// to load); elsewhere the grid's voxels.
struct Refusing<'a> {
    grid: &'a VoxelGrid,
    refused: VoxelBox,
}

impl VoxelSource for Refusing<'_> {
    fn fill_region(&self, region: VoxelBox, out: &mut [Voxel]) {
        self.grid.fill_region(region, out);
    }

    fn phase_table(&self) -> &PhaseTable {
        self.grid.phase_table()
    }

    fn bounds(&self) -> Option<VoxelBox> {
        self.grid.bounds()
    }

    fn read_region(&self, region: VoxelBox, out: &mut Vec<Voxel>) -> Result<(), voxel_core::Error> {
        if region.overlaps(&self.refused) {
            return Err(voxel_core::Error::RegionTooLarge { volume: region.volume(), limit: 0 });
        }
        let len = region.checked_len()?;
        out.clear();
        out.resize(len, Voxel::EMPTY);
        if len > 0 {
            self.grid.fill_region(region, out);
        }
        Ok(())
    }
}

/// A refused read is `RaymarchError::Source`, and a refresh that fails (through the patch path
/// or the chunk rebuild) changes nothing, even when the source's voxels changed meanwhile.
#[test]
fn refused_reads_are_errors_that_change_nothing() {
    let mut rng = Rng(4);
    let world = VoxelBox::new(IVec3::new(-40, -20, -40), IVec3::new(60, 40, 60));
    let recipe = Recipe::new(&mut rng, Kind::Caves, world);
    let mut grid = grid_of(&recipe, 0);
    let occ = Occupancy::build(&grid, world).unwrap();
    let refused = VoxelBox::new(IVec3::new(0, 0, 0), IVec3::new(3, 3, 3));
    let err = Occupancy::build(&Refusing { grid: &grid, refused }, world).unwrap_err();
    assert!(matches!(err, RaymarchError::Source(_)), "{err:?}");
    // Change the voxels, then refresh from a source that refuses part of the read.
    for p in VoxelBox::new(IVec3::new(-10, -10, -10), IVec3::new(20, 20, 20)).iter() {
        grid.set(p, if (p.x + p.y + p.z) % 3 == 0 { Voxel::new(-9, ROCK) } else { Voxel::EMPTY });
    }
    let probe = |o: &Occupancy| -> Vec<bool> { world.iter().map(|p| o.is_solid(p)).collect() };
    let rays: Vec<(Ray, f32)> = (0..400).map(|_| gen_ray(&mut rng, world, &[])).collect();
    let casts = |o: &Occupancy| -> Vec<Option<RayHit>> { rays.iter().map(|(r, t)| o.cast(r, *t)).collect() };
    for dirty in [
        VoxelBox::new(IVec3::new(1, 1, 1), IVec3::new(2, 2, 2)), // patch path, one voxel
        VoxelBox::new(IVec3::new(-5, -5, -5), IVec3::new(5, 5, 5)), // patch path, a box
        VoxelBox::new(IVec3::new(-10, -10, -10), IVec3::new(20, 20, 20)), // chunk rebuild
    ] {
        let mut edited = occ.clone();
        let result = edited.refresh(&Refusing { grid: &grid, refused }, dirty);
        assert!(matches!(result, Err(RaymarchError::Source(_))), "{dirty:?}: {result:?}");
        assert_eq!(probe(&edited), probe(&occ), "{dirty:?}");
        assert_eq!(casts(&edited), casts(&occ), "{dirty:?}");
        assert_eq!(edited.stored_chunks(), occ.stored_chunks());
    }
}

/// The exact walk in f64 from the ray's own (f32) origin and direction: voxel, face, t, and the
/// distance of the entry point from the edges of the entry face (how clear the decision was).
fn exact_cast(world: VoxelBox, solid: &dyn Fn(IVec3) -> bool, ray: &Ray) -> Option<ExactHit> {
    let (o, d) = (ray.origin.as_dvec3(), ray.dir.as_dvec3());
    let mut cell = o.floor().as_i64vec3().to_array();
    let step: [i64; 3] = [0, 1, 2].map(|a| {
        if d[a] > 0.0 {
            1
        } else if d[a] < 0.0 {
            -1
        } else {
            0
        }
    });
    let time = |a: usize, k: i64| (k as f64 - o[a]) / d[a];
    let mut next: [f64; 3] =
        [0, 1, 2].map(|a| if step[a] == 0 { f64::INFINITY } else { time(a, cell[a] + i64::from(step[a] > 0)) });
    let lo = [world.min.x, world.min.y, world.min.z].map(i64::from);
    let hi = [world.max.x, world.max.y, world.max.z].map(|v| i64::from(v) - 1);
    let mut face = None;
    let mut t = 0.0;
    let mut clear = f64::INFINITY;
    loop {
        if (0..3).all(|a| lo[a] <= cell[a] && cell[a] <= hi[a]) {
            let p = IVec3::new(cell[0] as i32, cell[1] as i32, cell[2] as i32);
            if solid(p) {
                return Some((p, face, t, clear));
            }
        }
        if (0..3).any(|a| (cell[a] < lo[a] && step[a] <= 0) || (cell[a] > hi[a] && step[a] >= 0)) {
            return None;
        }
        let mut a = 0;
        if next[1] < next[a] {
            a = 1;
        }
        if next[2] < next[a] {
            a = 2;
        }
        t = next[a];
        // How far the entry point lies from the other axes' planes.
        let p: DVec3 = o + d * t;
        clear = (0..3).filter(|b| *b != a).map(|b| (p[b] - p[b].round()).abs()).fold(f64::INFINITY, f64::min);
        cell[a] += step[a];
        face = Some((a, step[a] < 0));
        next[a] = time(a, cell[a] + i64::from(step[a] > 0));
    }
}

/// The far-ray criteria of [`far_origins_hit_voxels_on_the_ray`].
fn check_far(got: Option<RayHit>, exact: Option<ExactHit>, ray: &Ray) -> Result<(), TestCaseError> {
    let (o, d) = (ray.origin.as_dvec3(), ray.dir.as_dvec3());
    if let Some(h) = got {
        // The hit voxel's cube meets the exact line (slab test in f64, 0.01 voxel of slack).
        let lo = h.voxel.as_dvec3() - 0.01;
        let hi = h.voxel.as_dvec3() + 1.01;
        let (mut t0, mut t1) = (0.0f64, f64::INFINITY);
        for a in 0..3 {
            if d[a] == 0.0 {
                prop_assert!(lo[a] <= o[a] && o[a] <= hi[a], "parallel axis off the voxel: {:?} {:?}", h, ray);
                continue;
            }
            let (ta, tb) = ((lo[a] - o[a]) / d[a], (hi[a] - o[a]) / d[a]);
            t0 = t0.max(ta.min(tb));
            t1 = t1.min(ta.max(tb));
        }
        prop_assert!(t0 <= t1, "hit voxel {} is not on the ray {:?} (exact walk: {:?})", h.voxel, ray, exact);
    }
    if let Some((voxel, face, t, clear)) = exact {
        if clear > 0.01 {
            let h =
                got.ok_or_else(|| TestCaseError::fail(format!("missed: exact walk hits {voxel} at t {t}, {ray:?}")))?;
            prop_assert_eq!((h.voxel, h.face.map(|f| (f.axis.index(), f.positive))), (voxel, face), "{:?}", ray);
            // Rounding only: the walk's f32 times over the few voxels from the restart point, and
            // the f32 of t itself (4,200-30,000 voxels out).
            prop_assert!((f64::from(h.t) - t).abs() <= 1e-6 * t + 1e-3, "t {} against {}", h.t, t);
        }
    }
    Ok(())
}

/// World boxes at the limit are accepted; one voxel past it is a typed error, and so is growing
/// past it (nothing changes); refreshing outside the world is a no-op.
#[test]
fn the_coordinate_limit_is_exact() {
    let grid =
        VoxelGrid::from_fn(VoxelBox::new(IVec3::splat(LIMIT - 4), IVec3::splat(LIMIT)), |_| Voxel::new(-9, ROCK))
            .unwrap();
    let edge = VoxelBox::new(IVec3::splat(LIMIT - 40), IVec3::splat(LIMIT));
    let mut occ = Occupancy::build(&grid, edge).expect("max == +limit is within it");
    assert!(occ.is_solid(IVec3::splat(LIMIT - 1)));
    let hit = occ.cast(&Ray::new(Vec3::splat(LIMIT as f32 - 20.0), Vec3::ONE), f32::INFINITY).unwrap();
    assert_eq!(hit.voxel, IVec3::splat(LIMIT - 4));
    for bad in [
        VoxelBox::new(IVec3::splat(LIMIT - 40), IVec3::new(LIMIT + 1, LIMIT, LIMIT)),
        VoxelBox::new(IVec3::new(0, -LIMIT - 1, 0), IVec3::ONE),
        VoxelBox::new(IVec3::new(0, 0, -LIMIT - 1), IVec3::new(1, 1, LIMIT + 1)),
    ] {
        assert_eq!(Occupancy::build(&grid, bad).unwrap_err(), RaymarchError::CoordinateOutOfRange, "{bad:?}");
        assert_eq!(occ.grow_world(bad), Err(RaymarchError::CoordinateOutOfRange));
        assert_eq!(occ.world(), edge);
    }
    let low = VoxelBox::new(IVec3::splat(-LIMIT), IVec3::splat(-LIMIT + 3));
    let low_grid =
        VoxelGrid::from_fn(low, |p| if p.y == -LIMIT { Voxel::new(-9, ROCK) } else { Voxel::EMPTY }).unwrap();
    let low_occ = Occupancy::build(&low_grid, low).expect("min == -limit is within it");
    let hit = low_occ
        .cast(&Ray::new(Vec3::new(-LIMIT as f32 + 1.5, -LIMIT as f32 + 2.5, -LIMIT as f32 + 0.5), Vec3::NEG_Y), 5.0);
    assert_eq!(hit.map(|h| (h.voxel, h.t)), Some((IVec3::new(-LIMIT + 1, -LIMIT, -LIMIT), 1.5)));
    // Refreshing outside the world box (and a box past the limit) changes nothing.
    let before: Vec<bool> = edge.iter().map(|p| occ.is_solid(p)).collect();
    occ.refresh(&grid, VoxelBox::new(IVec3::splat(LIMIT), IVec3::splat(LIMIT + 10))).unwrap();
    occ.refresh(&grid, VoxelBox::new(IVec3::splat(i32::MAX - 10), IVec3::splat(i32::MAX))).unwrap();
    occ.refresh(&grid, VoxelBox::EMPTY).unwrap();
    assert_eq!(before, edge.iter().map(|p| occ.is_solid(p)).collect::<Vec<_>>());
    // Sanity of the chunk edge the seam worlds assume.
    assert_eq!(CHUNK_EDGE, 32);
}

/// A far origin (more than `FAR_ORIGIN` outside the solid bounds) into a world near the
/// coordinate limit. The exact line of this ray (its own f32 origin and direction, walked in f64)
/// enters the one solid voxel 0.34 voxel clear of the entry face's edges. The far path used to
/// restart the ray from an f32 origin next to the world, where f32 spacing is a whole voxel, and
/// missed it (over 200 generated worlds at each place, 20 far rays each, 4,200-30,000 voxels out:
/// near the origin 0 of 3,868 clear rays differed; against +-2^23, 148 of 3,473 clear rays
/// missed, 710 hit another voxel and 285 another face, and 453 hit voxels off the exact line).
#[test]
fn far_origin_into_a_world_at_the_limit_hits_the_voxel_on_its_line() {
    let v = IVec3::splat(LIMIT - 4);
    let world = VoxelBox::new(IVec3::splat(LIMIT - 8), IVec3::splat(LIMIT));
    let grid = VoxelGrid::from_fn(world, |p| if p == v { Voxel::new(-9, ROCK) } else { Voxel::EMPTY }).unwrap();
    let occ = Occupancy::build(&grid, world).unwrap();
    let ray = Ray::new(Vec3::new(8394575.0, 8384354.0, 8390418.0), Vec3::new(-0.7908214, 0.56297034, -0.24013731));
    let (voxel, _, t, clear) = exact_cast(world, &|p| p == v, &ray).expect("the exact line meets the voxel");
    assert_eq!(voxel, v);
    assert!(clear > 0.3 && (t - 7549.847).abs() < 1e-2, "{t} {clear}");
    let got = occ.cast(&ray, f32::INFINITY);
    assert_eq!(got.map(|h| h.voxel), Some(v), "got {got:?}");
    let h = got.unwrap();
    assert!((f64::from(h.t) - t).abs() < 1e-2, "t {} against {t}", h.t);
}
