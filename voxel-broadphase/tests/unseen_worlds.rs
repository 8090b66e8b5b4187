//! An audit on worlds nobody tuned the crate on: every public query and operation against an
//! all-pairs brute force written here from the README (every object against every chunk, each
//! chunk's 10^3 read classified and dilated voxel by voxel), on generated worlds of kinds the
//! other tests do not build (sparse rock and water, carved caves with flooded floors, single
//! voxels, one-voxel walls and diagonal staircases, voxels packed on chunk seams, lake beds,
//! empty and full worlds), placed at the origin, across the fast path's edge (2^21) and against
//! both ends of `MAX_COORDINATE`, through random edit and move sequences and on 1 and 2 threads.
//!
//! Case counts are small by default; `PROPTEST_CASES=N` raises every property to `N` cases.

use std::collections::{BTreeSet, HashSet};

use glam::{IVec3, Vec3};
use proptest::prelude::*;
use voxel_broadphase::{
    Broadphase, BroadphaseError, CHUNK_EDGE, ChunkClass, ChunkHit, MAX_COORDINATE, MAX_QUERY_CHUNKS, PairEvent,
    PairKind, Reach,
};
use voxel_core::{Aabb, Phase, PhaseTable, Voxel, VoxelBox, VoxelGrid, VoxelSource};
use voxel_testdata::{Rng, mix};

/// Cases of a property: `PROPTEST_CASES` when set (for long runs), else `default`.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

const LIMIT: i32 = MAX_COORDINATE.get();
/// The edge of the crate's fast path (boxes within +-2^21 take the magic-number floors).
const FAST: i32 = 1 << 21;

/// Materials: 1 solid, 2 liquid, 3 an empty phase.
const ROCK: u8 = 1;
const WATER: u8 = 2;
const GAS: u8 = 3;

fn phases() -> PhaseTable {
    let mut t = PhaseTable::DEFAULT;
    t.set(WATER, Phase::Liquid);
    t.set(GAS, Phase::Empty);
    t
}

// ---------------------------------------------------------------------------------------------
// Worlds
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Sparse,
    Caves,
    Single,
    Walls,
    Stairs,
    Seams,
    LakeBed,
    Empty,
    FullRock,
    FullWater,
}

const KINDS: [Kind; 10] = [
    Kind::Sparse,
    Kind::Caves,
    Kind::Single,
    Kind::Walls,
    Kind::Stairs,
    Kind::Seams,
    Kind::LakeBed,
    Kind::Empty,
    Kind::FullRock,
    Kind::FullWater,
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    Origin,
    /// Straddling +2^21 or -2^21 on some axis: boxes on both sides of the fast path's edge.
    FastEdge,
    /// Built up to the largest region the limit allows, on the high side.
    High,
    /// The same on the low side.
    Low,
}

const PLACES: [Place; 4] = [Place::Origin, Place::FastEdge, Place::High, Place::Low];

fn hash(p: IVec3, seed: u64) -> u64 {
    let [x, y, z] = p.to_array().map(|c| u64::from(c as u32));
    mix(x ^ y << 21 ^ z << 42 ^ mix(seed ^ z >> 22 << 7)) % 1_000_000
}

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

/// A generated world: the voxels of `data` (a grid source), and the region the broadphase is
/// built over (sometimes smaller than the data, so chunks past it hold voxels nobody built).
struct World {
    grid: VoxelGrid,
    region: VoxelBox,
}

fn make_world(rng: &mut Rng, kind: Kind, place: Place) -> World {
    let size = IVec3::new(rng.int(1, 44), rng.int(1, 36), rng.int(1, 44));
    let mut min = IVec3::new(rng.int(-40, 40), rng.int(-40, 40), rng.int(-40, 40));
    match place {
        Place::Origin => {
            if rng.int(0, 2) == 0 {
                min = (min / 8) * 8 + IVec3::new(rng.int(-1, 2), rng.int(-1, 2), rng.int(-1, 2));
            }
        }
        Place::FastEdge => {
            let a = rng.int(0, 3) as usize;
            min[a] = if rng.int(0, 2) == 0 { FAST } else { -FAST } - rng.int(1, size[a] + 1);
        }
        // The largest region the halo allows ends at LIMIT - 1 (high) and starts at -LIMIT + 1.
        Place::High => min = IVec3::splat(LIMIT - 1) - size - IVec3::new(rng.int(0, 3), rng.int(0, 3), rng.int(0, 3)),
        Place::Low => min = IVec3::splat(-LIMIT + 1) + IVec3::new(rng.int(0, 3), rng.int(0, 3), rng.int(0, 3)),
    }
    let data = VoxelBox::from_min_size(min, size);
    let seed = rng.next_u64();
    let axis = rng.int(0, 3) as usize;
    let mut wall = data.min[axis] + rng.int(0, size[axis]);
    if rng.int(0, 2) == 0 {
        let snapped = wall.div_euclid(8) * 8 + rng.int(0, 2) * 7;
        if data.min[axis] <= snapped && snapped < data.max[axis] {
            wall = snapped;
        }
    }
    let level = data.min.y + rng.int(0, size.y + 1);
    let density = [3_000, 20_000, 80_000][rng.int(0, 3) as usize];
    let single = data.min + IVec3::new(rng.int(0, size.x), rng.int(0, size.y), rng.int(0, size.z));
    let off = rng.int(-6, 6);
    let rock = Voxel::new(-30, ROCK);
    let water = Voxel::new(-30, WATER);
    let filler = |p: IVec3| -> Voxel {
        // Voxels that must not count: inside but of an empty phase, outside with solid material.
        match hash(p, seed ^ 99) % 16 {
            0 => Voxel::new(-30, GAS),
            1 => Voxel::new(0, ROCK),
            2 => Voxel::new(9, WATER),
            _ => Voxel::EMPTY,
        }
    };
    let r = |p: IVec3| p - data.min;
    let grid = VoxelGrid::from_fn(data, |p| match kind {
        Kind::Sparse => match hash(p, seed) {
            h if h < density => rock,
            h if h < 2 * density => water,
            _ => filler(p),
        },
        Kind::Caves => {
            let h = size.y as f32 * (0.3 + 0.6 * noise3(IVec3::new(p.x, 0, p.z), 16, seed));
            if (r(p).y as f32) < h && noise3(p, 8, seed ^ 1) < 0.55 {
                rock
            } else if p.y < level {
                water
            } else {
                filler(p)
            }
        }
        Kind::Single => {
            if p == single {
                if seed.is_multiple_of(2) { rock } else { water }
            } else {
                Voxel::EMPTY
            }
        }
        Kind::Walls => {
            if p[axis] == wall && hash(p, seed) >= 50_000 {
                rock
            } else if p[(axis + 1) % 3] == wall && hash(p, seed) < 500_000 {
                water
            } else {
                filler(p)
            }
        }
        Kind::Stairs => {
            let q = r(p);
            let on = match seed % 3 {
                0 => q.y == q.x + off,
                1 => q.y == q.x + q.z + off,
                _ => q.y <= (q.x + off).div_euclid(2),
            };
            if on { rock } else { filler(p) }
        }
        Kind::Seams => {
            let on = |v: i32| matches!(v.rem_euclid(8), 7 | 0);
            if (on(p.x) || on(p.y) || on(p.z)) && hash(p, seed) < 3 * density {
                if hash(p, seed ^ 5).is_multiple_of(3) { water } else { rock }
            } else {
                Voxel::EMPTY
            }
        }
        Kind::LakeBed => {
            if p.y < level {
                rock
            } else {
                water
            }
        }
        Kind::Empty => filler(p),
        Kind::FullRock => rock,
        Kind::FullWater => water,
    })
    .expect("small grid")
    .with_phases(phases());
    // The region: the data box, or a part of it, or more than it.
    let region = match rng.int(0, 3) {
        0 => data,
        1 => VoxelBox::new(data.min + data.size() / 3, data.max.max(data.min + data.size() / 3 + IVec3::ONE)),
        _ => data.grow(rng.int(1, 9)),
    };
    let region = region.intersection(&VoxelBox::new(IVec3::splat(-LIMIT + 1), IVec3::splat(LIMIT - 1)));
    World { grid, region }
}

// ---------------------------------------------------------------------------------------------
// The brute force
// ---------------------------------------------------------------------------------------------

/// Phases (0 empty, 1 solid, 2 water) and their 27-neighbour dilation, voxel by voxel, over the
/// data box grown by 2; the keys of the chunks the broadphase has built.
struct Truth {
    area: VoxelBox,
    phase: Vec<u8>,
    /// Bit 0: some neighbour (or the voxel) solid; bit 1: water.
    dilated: Vec<u8>,
    built: HashSet<IVec3>,
}

impl Truth {
    fn new(grid: &VoxelGrid, region: VoxelBox) -> Self {
        let area = grid.grid_bounds().grow(2);
        let table = grid.phase_table().clone();
        let phase: Vec<u8> = area
            .iter()
            .map(|p| match grid.get(p).phase(&table) {
                Phase::Solid => 1,
                Phase::Liquid => 2,
                Phase::Empty => 0,
            })
            .collect();
        let mut t = Truth { area, phase, dilated: Vec::new(), built: HashSet::new() };
        t.redilate();
        t.build(region);
        t
    }

    fn redilate(&mut self) {
        self.dilated = self
            .area
            .iter()
            .map(|p| {
                let mut bits = 0u8;
                for n in VoxelBox::new(p - IVec3::ONE, p + IVec3::splat(2)).iter() {
                    match self.phase_at(n) {
                        1 => bits |= 1,
                        2 => bits |= 2,
                        _ => {}
                    }
                }
                bits
            })
            .collect();
    }

    /// Records a build or refresh over `region`: its chunks and their halo's.
    fn build(&mut self, region: VoxelBox) {
        if region.is_empty() {
            return;
        }
        self.built.extend(region.grow(1).chunk_keys(CHUNK_EDGE).iter());
    }

    fn phase_at(&self, p: IVec3) -> u8 {
        self.area.index_of(p).map_or(0, |i| self.phase[i])
    }

    fn dilated_at(&self, p: IVec3) -> u8 {
        // Beyond the area every neighbour is empty.
        self.area.index_of(p).map_or(0, |i| self.dilated[i])
    }

    /// The class a chunk should have: `None` when empty or never built.
    fn class(&self, key: IVec3) -> Option<ChunkClass> {
        if !self.built.contains(&key) {
            return None;
        }
        let read = VoxelBox::chunk(key, CHUNK_EDGE).grow(1);
        let first = self.phase_at(read.min);
        if first != 0 && read.iter().all(|p| self.phase_at(p) == first) {
            return Some(if first == 1 { ChunkClass::FullSolid } else { ChunkClass::FullWater });
        }
        let any = VoxelBox::chunk(key, CHUNK_EDGE).iter().any(|p| self.dilated_at(p) != 0);
        any.then_some(ChunkClass::Partial)
    }

    /// What a query of `aabb` should give: the error the README documents, or the hits of every
    /// built chunk, per the README's reading of the masks for `reach`.
    fn query(&self, aabb: &Aabb, reach: Reach) -> Result<Vec<ChunkHit>, BroadphaseError> {
        let (first, last) = cells(aabb, reach)?;
        let keys_lo = first.div_euclid(IVec3::splat(CHUNK_EDGE));
        let keys_hi = last.div_euclid(IVec3::splat(CHUNK_EDGE));
        let count: i64 = (0..3).map(|a| i64::from(keys_hi[a] - keys_lo[a]) + 1).product();
        if count > MAX_QUERY_CHUNKS as i64 {
            return Err(BroadphaseError::TooLarge);
        }
        let shift = i32::from(reach == Reach::SurfaceNets);
        let mut hits = Vec::new();
        for key in VoxelBox::new(keys_lo, keys_hi + IVec3::ONE).iter() {
            match self.class(key) {
                None => {}
                Some(ChunkClass::FullSolid) => {
                    hits.push(ChunkHit { chunk: key, solid: true, water: false, full: true });
                }
                Some(ChunkClass::FullWater) => {
                    hits.push(ChunkHit { chunk: key, solid: false, water: true, full: true });
                }
                Some(ChunkClass::Partial) => {
                    // Per axis: the chunk's share l..=h of the cells, tested at min(l + shift, h)..=h.
                    let l = first.max(key * CHUNK_EDGE);
                    let h = last.min(key * CHUNK_EDGE + IVec3::splat(CHUNK_EDGE - 1));
                    let lo = (l + IVec3::splat(shift)).min(h);
                    let bits = VoxelBox::new(lo, h + IVec3::ONE).iter().fold(0, |b, p| b | self.dilated_at(p));
                    if bits != 0 {
                        hits.push(ChunkHit { chunk: key, solid: bits & 1 != 0, water: bits & 2 != 0, full: false });
                    }
                }
            }
        }
        Ok(hits)
    }
}

/// The cells of the box grown by one voxel, as the README defines them, with f64 floors and
/// ceilings (exact for every f32): Surface Nets `ceil(min - 1) - 1 ..= floor(max + 1)`, the seed's
/// reading `floor(min - 1) ..= floor(max + 1)`. NaN, infinite, inverted, or beyond
/// `MAX_COORDINATE`: `InvalidAabb`.
fn cells(aabb: &Aabb, reach: Reach) -> Result<(IVec3, IVec3), BroadphaseError> {
    let limit = f64::from(LIMIT);
    for a in 0..3 {
        let (lo, hi) = (f64::from(aabb.min[a]), f64::from(aabb.max[a]));
        if !(lo <= hi && -limit <= lo && hi <= limit) {
            return Err(BroadphaseError::InvalidAabb);
        }
    }
    // The margin is a whole voxel: added after rounding, exactly (adding it in floating point
    // first would round a tiny coordinate such as -1e-38 + 1 up to 1).
    let f = |v: Vec3, g: fn(f64) -> f64| IVec3::from_array(v.to_array().map(|c| g(f64::from(c)) as i32));
    let first = match reach {
        Reach::SurfaceNets => f(aabb.min, f64::ceil) - IVec3::splat(2),
        Reach::Neighbours => f(aabb.min, f64::floor) - IVec3::ONE,
    };
    Ok((first, f(aabb.max, f64::floor) + IVec3::ONE))
}

/// The claim under the bits, checked cube by cube (Surface Nets): every unit cube `[c, c + 1]`
/// the closed grown box touches that has a solid corner is covered by a solid hit of a chunk
/// holding voxel `c` or `c + 1` (the two mask bits that cover that cube).
fn check_cubes(truth: &Truth, aabb: &Aabb, hits: &[ChunkHit]) {
    let Ok((first, last)) = cells(aabb, Reach::SurfaceNets) else { return };
    if (last - first).max_element() > 24 {
        return;
    }
    for c in VoxelBox::new(first, last + IVec3::ONE).iter() {
        let corners = VoxelBox::new(c, c + IVec3::splat(2));
        if !corners.iter().any(|p| truth.phase_at(p) == 1) {
            continue;
        }
        let chunk = |v: IVec3| v.div_euclid(IVec3::splat(CHUNK_EDGE));
        if !truth.built.contains(&chunk(c)) || !truth.built.contains(&chunk(c + IVec3::ONE)) {
            continue;
        }
        let covered = hits.iter().any(|h| {
            h.solid
                && (0..3).all(|a| {
                    let k = h.chunk[a];
                    c[a].div_euclid(CHUNK_EDGE) == k || (c[a] + 1).div_euclid(CHUNK_EDGE) == k
                })
        });
        assert!(covered, "cube {c} with a solid corner in reach of {aabb:?} has no solid hit: {hits:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// Boxes
// ---------------------------------------------------------------------------------------------

/// A random object box around `area`, with faces on voxel planes, halves and chunk seams.
fn gen_box(rng: &mut Rng, area: VoxelBox) -> Aabb {
    let span = area.grow(10);
    let mut min = Vec3::new(
        rng.int(span.min.x, span.max.x) as f32,
        rng.int(span.min.y, span.max.y) as f32,
        rng.int(span.min.z, span.max.z) as f32,
    );
    match rng.int(0, 6) {
        0 => min += rng.vec(Vec3::ZERO, Vec3::ONE),
        1 => min += Vec3::splat(0.5),
        2 => min = (min / 8.0).floor() * 8.0,
        3 => {
            // Just below a chunk seam (the last float under a multiple of 8).
            let a = rng.int(0, 3) as usize;
            let s = (min[a] / 8.0).floor() * 8.0;
            min[a] = f32::from_bits(s.to_bits().wrapping_add(if s > 0.0 { u32::MAX } else { 1 }));
            if s == 0.0 {
                min[a] = -f32::MIN_POSITIVE;
            }
        }
        _ => {}
    }
    let size = match rng.int(0, 8) {
        0 => Vec3::ZERO,
        1 => Vec3::splat(rng.int(0, 3) as f32),
        2 | 3 => rng.vec(Vec3::ZERO, Vec3::splat(3.0)),
        4 | 5 => rng.vec(Vec3::ZERO, Vec3::splat(6.0)),
        6 => rng.vec(Vec3::ZERO, Vec3::splat(20.0)).round(),
        _ => rng.vec(Vec3::ZERO, Vec3::new(60.0, 30.0, 60.0)),
    };
    Aabb::new(min, min + size)
}

/// A box of [`gen_box`] that both reaches accept (near the limit some are past it).
fn valid_box(rng: &mut Rng, area: VoxelBox, truth: &Truth) -> Aabb {
    loop {
        let b = gen_box(rng, area);
        if truth.query(&b, Reach::SurfaceNets).is_ok() && truth.query(&b, Reach::Neighbours).is_ok() {
            return b;
        }
    }
}

/// Boxes the README says are errors, and boxes at the edge of acceptance.
fn edge_boxes() -> Vec<Aabb> {
    let l = LIMIT as f32;
    let next = |v: f32| f32::from_bits(v.to_bits() + 1);
    let nan = f32::NAN;
    let inf = f32::INFINITY;
    vec![
        Aabb::new(Vec3::new(nan, 0.0, 0.0), Vec3::ONE),
        Aabb::new(Vec3::ZERO, Vec3::new(1.0, 1.0, nan)),
        Aabb::new(Vec3::new(-inf, 0.0, 0.0), Vec3::ONE),
        Aabb::new(Vec3::ZERO, Vec3::new(1.0, inf, 1.0)),
        Aabb::new(Vec3::ONE, Vec3::ZERO),
        Aabb::new(Vec3::new(0.0, 2.0, 0.0), Vec3::new(1.0, 1.999, 1.0)),
        Aabb::new(Vec3::splat(l - 64.0), Vec3::splat(l)),
        Aabb::new(Vec3::splat(l - 64.0), Vec3::splat(next(l))),
        Aabb::new(Vec3::splat(-l), Vec3::splat(-l + 64.0)),
        Aabb::new(Vec3::splat(-next(l)), Vec3::splat(-l + 64.0)),
        Aabb::new(Vec3::splat(l), Vec3::splat(l)),
        Aabb::new(Vec3::splat(-l), Vec3::splat(-l)),
        Aabb::new(Vec3::splat(-1e5), Vec3::splat(1e5)),
        Aabb::new(Vec3::new(-1e8, 0.0, 0.0), Vec3::new(1e8, 1.0, 1.0)),
        Aabb::new(Vec3::new(0.0, 0.0, 0.0), Vec3::new(2040.0, 200.0, 8.0)),
        Aabb::new(Vec3::new(0.0, 0.0, 0.0), Vec3::new(2040.0, 240.0, 0.0)),
        Aabb::new(Vec3::splat(FAST as f32 - 2.0), Vec3::splat(FAST as f32 + 2.0)),
        Aabb::new(Vec3::splat(-FAST as f32 - 0.5), Vec3::splat(-FAST as f32 + 0.5)),
    ]
}

/// Checks every query path of `bp` against the truth on `boxes`.
fn check_queries(bp: &Broadphase, truth: &Truth, boxes: &[Aabb]) {
    let reach = bp.reach();
    let mut hits = Vec::new();
    let mut valid = Vec::new();
    for b in boxes {
        let expected = truth.query(b, reach);
        let got = bp.query(b, &mut hits).map(|()| hits.clone());
        assert_eq!(got, expected, "{b:?} {reach:?}");
        if let Ok(h) = &got {
            if reach == Reach::SurfaceNets {
                check_cubes(truth, b, h);
            }
            valid.push((*b, h.clone()));
        } else {
            assert!(hits.is_empty(), "hits left after an error: {b:?}");
        }
    }
    // The batch equals single queries, and stops at the first bad box with its error.
    let (mut all, mut ends) = (Vec::new(), Vec::new());
    let result = bp.query_batch(boxes, &mut all, &mut ends);
    let first_bad = boxes.iter().position(|b| truth.query(b, reach).is_err());
    match first_bad {
        None => assert_eq!(result, Ok(())),
        Some(i) => {
            assert_eq!(result, truth.query(&boxes[i], reach).map(|_| ()));
            assert_eq!(ends.len(), i);
        }
    }
    let mut from = 0;
    for (b, end) in boxes.iter().zip(&ends) {
        assert_eq!(&all[from..*end as usize], &truth.query(b, reach).unwrap()[..], "batch {b:?}");
        from = *end as usize;
    }
}

/// The classes and masks of every chunk in and around the built keys equal the brute force.
fn check_chunks(bp: &Broadphase, truth: &Truth) {
    let mut keys: BTreeSet<[i32; 3]> = BTreeSet::new();
    for k in &truth.built {
        for n in VoxelBox::new(*k - IVec3::ONE, *k + IVec3::splat(2)).iter() {
            keys.insert(n.to_array());
        }
    }
    let mut stored = 0;
    for k in keys {
        let key = IVec3::from_array(k);
        let class = truth.class(key);
        assert_eq!(bp.chunk_class(key), class, "class of {key}");
        stored += usize::from(class.is_some());
        let masks = bp.chunk_masks(key);
        assert_eq!(masks.is_some(), class.is_some(), "masks of {key}");
        if let (Some((solid, water)), Some(ChunkClass::Partial)) = (masks, class) {
            for p in VoxelBox::chunk(key, CHUNK_EDGE).iter() {
                let l = (p - key * CHUNK_EDGE).as_uvec3();
                let d = truth.dilated_at(p);
                let (x, y, z) = (l.x as usize, l.y as usize, l.z as usize);
                assert_eq!((solid.get(x, y, z), water.get(x, y, z)), (d & 1 != 0, d & 2 != 0), "bit {p} of {key}");
            }
        }
    }
    assert_eq!(bp.chunk_count(), stored, "stored chunks");
    let memory = bp.memory();
    assert_eq!(memory.full_chunks + memory.partial_chunks, stored);
    assert!(memory.mask_bytes >= 64 * memory.partial_chunks && memory.bytes >= memory.mask_bytes);
}

/// Replays `events` onto `pairs` (object, chunk, kind), checking each is consistent.
fn replay(pairs: &mut HashSet<(u32, [i32; 3], PairKind)>, events: &[PairEvent]) {
    for e in events {
        let key = (e.object, e.chunk.to_array(), e.kind);
        if e.added {
            assert!(pairs.insert(key), "added twice: {e:?}");
        } else {
            assert!(pairs.remove(&key), "removed but absent: {e:?}");
        }
    }
}

/// Every tracked object's pairs equal the brute-force query of its box, and the replayed events.
fn check_objects(
    bp: &Broadphase,
    truth: &Truth,
    objects: &[(u32, Aabb)],
    replayed: &HashSet<(u32, [i32; 3], PairKind)>,
) {
    assert_eq!(bp.object_count(), objects.len());
    let mut total = 0;
    for (id, b) in objects {
        let expected = truth.query(b, bp.reach()).expect("tracked boxes are valid");
        assert_eq!(bp.pairs(*id).expect("tracked"), &expected[..], "pairs of {id} at {b:?}");
        for h in &expected {
            assert_eq!(replayed.contains(&(*id, h.chunk.to_array(), PairKind::Solid)), h.solid);
            assert_eq!(replayed.contains(&(*id, h.chunk.to_array(), PairKind::Water)), h.water);
            total += usize::from(h.solid) + usize::from(h.water);
        }
    }
    assert_eq!(replayed.len(), total, "replayed pairs of objects no longer tracked");
}

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(48), failure_persistence: None, ..ProptestConfig::default() })]

    /// Built worlds of every kind at every place: chunk classes, every mask bit, every query
    /// (both reaches, valid and invalid boxes) and batches equal the brute force; the build is
    /// the same on one and two threads.
    #[test]
    fn queries_equal_brute_force(seed in any::<u64>(), kind in 0usize..10, place in 0usize..4) {
        let mut rng = Rng(seed);
        let world = make_world(&mut rng, KINDS[kind], PLACES[place]);
        let truth = Truth::new(&world.grid, world.region);
        let build = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a pool");
            pool.install(|| Broadphase::build(&world.grid, world.region)).expect("region within the limit")
        };
        let mut bp = build(2);
        check_chunks(&bp, &truth);
        let one = build(1);
        check_chunks(&one, &truth);
        let mut boxes: Vec<Aabb> = (0..60).map(|_| gen_box(&mut rng, world.grid.grid_bounds())).collect();
        boxes.extend(edge_boxes());
        // The valid boxes first, so the batch runs through them; the edge boxes after.
        check_queries(&bp, &truth, &boxes[..60]);
        check_queries(&bp, &truth, &boxes);
        bp.set_reach(Reach::Neighbours, &mut Vec::new());
        check_queries(&bp, &truth, &boxes[..60]);
        check_queries(&bp, &truth, &boxes);
        // With no dense grid (every chunk in the map): a refresh of an empty broadphase.
        let mut mapped = Broadphase::new();
        mapped.refresh(&world.grid, world.region, &mut Vec::new()).expect("in range");
        check_chunks(&mapped, &truth);
        check_queries(&mapped, &truth, &boxes);
        mapped.set_reach(Reach::Neighbours, &mut Vec::new());
        check_queries(&mapped, &truth, &boxes);
    }

    /// Objects inserted, moved one by one and in batches (on one and two threads), removed, with
    /// bad boxes and ids among them, the reach switched, and the world edited and refreshed: the
    /// replayed events always equal the tracked pairs, which equal the brute force of each
    /// object's box; failed calls (a source refusing a read among them) change nothing; the
    /// refreshed chunks equal the brute force.
    #[test]
    fn objects_and_edits_equal_brute_force(seed in any::<u64>(), kind in 0usize..10, place in 0usize..4) {
        let mut rng = Rng(seed);
        let mut world = make_world(&mut rng, KINDS[kind], PLACES[place]);
        let mut truth = Truth::new(&world.grid, world.region);
        let mut bp = Broadphase::build(&world.grid, world.region).expect("in range");
        let data = world.grid.grid_bounds();
        let mut objects: Vec<(u32, Aabb)> = Vec::new();
        let mut replayed = HashSet::new();
        let mut events = Vec::new();
        let mut next_id = [0u32, 1, 7, u32::MAX, u32::MAX - 1, 1 << 31][rng.int(0, 6) as usize];
        for step in 0..30 {
            events.clear();
            match rng.int(0, 9) {
                0 | 1 => {
                    let b = valid_box(&mut rng, data, &truth);
                    let id = next_id;
                    next_id = next_id.wrapping_add(1);
                    if objects.iter().any(|(i, _)| *i == id) {
                        prop_assert_eq!(bp.insert(id, b, &mut events), Err(BroadphaseError::DuplicateId(id)));
                    } else {
                        bp.insert(id, b, &mut events).expect("a valid box");
                        objects.push((id, b));
                    }
                }
                2 | 3 if !objects.is_empty() => {
                    let i = (rng.next_u64() % objects.len() as u64) as usize;
                    let b = valid_box(&mut rng, data, &truth);
                    bp.update(objects[i].0, b, &mut events).expect("a valid box");
                    objects[i].1 = b;
                }
                4 if !objects.is_empty() => {
                    // A batch of moves, on one thread and on two: the same events.
                    let moves: Vec<(u32, Aabb)> = (0..rng.int(1, 12))
                        .map(|_| (objects[(rng.next_u64() % objects.len() as u64) as usize].0, valid_box(&mut rng, data, &truth)))
                        .collect();
                    let mut twin = bp.clone();
                    let mut twin_events = Vec::new();
                    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a pool");
                    pool.install(|| twin.update_batch(&moves, &mut twin_events)).expect("valid moves");
                    // One by one (ids may repeat within a batch): the same events.
                    let mut single = bp.clone();
                    let mut single_events = Vec::new();
                    for (id, b) in &moves {
                        single.update(*id, *b, &mut single_events).expect("valid move");
                    }
                    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("a pool");
                    pool.install(|| bp.update_batch(&moves, &mut events)).expect("valid moves");
                    prop_assert_eq!(&events, &twin_events);
                    prop_assert_eq!(&events, &single_events);
                    for (id, b) in moves {
                        objects.iter_mut().find(|(i, _)| *i == id).expect("tracked").1 = b;
                    }
                }
                5 if !objects.is_empty() => {
                    let i = (rng.next_u64() % objects.len() as u64) as usize;
                    bp.remove(objects[i].0, &mut events).expect("tracked");
                    objects.remove(i);
                }
                6 => {
                    // Bad calls: nothing changes, no event.
                    let before: Vec<_> = objects.iter().map(|(id, _)| bp.pairs(*id).map(<[_]>::to_vec)).collect();
                    let bad = edge_boxes()[rng.int(0, 6) as usize];
                    if let Some((id, _)) = objects.first() {
                        prop_assert!(bp.update(*id, bad, &mut events).is_err());
                        let ok = valid_box(&mut rng, data, &truth);
                        prop_assert!(bp.update_batch(&[(*id, ok), (*id, bad)], &mut events).is_err());
                    }
                    prop_assert!(bp.insert(next_id.wrapping_add(1000), bad, &mut events).is_err());
                    let unknown = 123_456_789;
                    if !objects.iter().any(|(i, _)| *i == unknown) {
                        prop_assert_eq!(bp.remove(unknown, &mut events), Err(BroadphaseError::UnknownId(unknown)));
                        let ok = valid_box(&mut rng, data, &truth);
                        prop_assert_eq!(bp.update(unknown, ok, &mut events), Err(BroadphaseError::UnknownId(unknown)));
                        let moves: Vec<(u32, Aabb)> = objects.iter().map(|(id, _)| (*id, ok)).chain([(unknown, ok)]).collect();
                        prop_assert_eq!(bp.update_batch(&moves, &mut events), Err(BroadphaseError::UnknownId(unknown)));
                    }
                    // A refresh past the limit, or over too many chunks: typed errors, no change.
                    let masks: Vec<_> = truth.built.iter().map(|k| bp.chunk_masks(*k)).collect();
                    let far = VoxelBox::new(IVec3::splat(LIMIT), IVec3::splat(LIMIT + 8));
                    prop_assert_eq!(bp.refresh(&world.grid, far, &mut events), Err(BroadphaseError::InvalidAabb));
                    let vast = VoxelBox::new(IVec3::splat(-4096), IVec3::splat(4096));
                    prop_assert_eq!(bp.refresh(&world.grid, vast, &mut events), Err(BroadphaseError::TooLarge));
                    prop_assert_eq!(masks, truth.built.iter().map(|k| bp.chunk_masks(*k)).collect::<Vec<_>>());
                    prop_assert!(events.is_empty());
                    let after: Vec<_> = objects.iter().map(|(id, _)| bp.pairs(*id).map(<[_]>::to_vec)).collect();
                    prop_assert_eq!(before, after);
                }
                7 => {
                    let reach = if bp.reach() == Reach::SurfaceNets { Reach::Neighbours } else { Reach::SurfaceNets };
                    bp.set_reach(reach, &mut events);
                }
                _ => {
                    // An edit: a voxel or a box set to rock, water, air or gas, then refreshed
                    // with exactly the changed box (the crate grows it by its halo).
                    let span = data.grow(3);
                    let min = IVec3::new(
                        rng.int(span.min.x, span.max.x),
                        rng.int(span.min.y, span.max.y),
                        rng.int(span.min.z, span.max.z),
                    );
                    let size = if rng.int(0, 2) == 0 { IVec3::ONE } else { IVec3::new(rng.int(1, 20), rng.int(1, 12), rng.int(1, 20)) };
                    let edit = VoxelBox::from_min_size(min, size).intersection(&data);
                    let v = [Voxel::new(-20, ROCK), Voxel::new(-20, WATER), Voxel::EMPTY, Voxel::new(-20, GAS)][rng.int(0, 4) as usize];
                    for p in edit.iter() {
                        world.grid.set(p, v);
                    }
                    if !edit.is_empty() {
                        // First through a source refusing one voxel the refresh must read: a typed
                        // error, and the broadphase still holds the world before the edit.
                        let at = IVec3::new(
                            rng.int(edit.min.x - 1, edit.max.x + 1),
                            rng.int(edit.min.y - 1, edit.max.y + 1),
                            rng.int(edit.min.z - 1, edit.max.z + 1),
                        );
                        let refusing = Refusing { grid: &world.grid, refused: VoxelBox::from_min_size(at, IVec3::ONE) };
                        let touched: Vec<IVec3> = edit.grow(2).chunk_keys(CHUNK_EDGE).iter().chain(truth.built.iter().copied()).collect();
                        let masks: Vec<_> = touched.iter().map(|k| bp.chunk_masks(*k)).collect();
                        let (count, memory) = (bp.chunk_count(), bp.memory());
                        let pairs: Vec<_> = objects.iter().map(|(id, _)| bp.pairs(*id).map(<[_]>::to_vec)).collect();
                        let result = bp.refresh(&refusing, edit, &mut events);
                        prop_assert!(is_refusal(&result), "{:?}", result);
                        prop_assert!(events.is_empty());
                        prop_assert_eq!(masks, touched.iter().map(|k| bp.chunk_masks(*k)).collect::<Vec<_>>());
                        prop_assert_eq!((count, memory), (bp.chunk_count(), bp.memory()));
                        prop_assert_eq!(pairs, objects.iter().map(|(id, _)| bp.pairs(*id).map(<[_]>::to_vec)).collect::<Vec<_>>());
                        check_objects(&bp, &truth, &objects, &replayed);
                    }
                    bp.refresh(&world.grid, edit, &mut events).expect("in range");
                    truth = Truth { built: std::mem::take(&mut truth.built), ..Truth::new(&world.grid, VoxelBox::EMPTY) };
                    truth.build(edit);
                    check_chunks(&bp, &truth);
                }
            }
            replay(&mut replayed, &events);
            check_objects(&bp, &truth, &objects, &replayed);
            let _ = step;
        }
        // Finally every query path on the edited world.
        let boxes: Vec<Aabb> = (0..40).map(|_| gen_box(&mut rng, data)).collect();
        check_queries(&bp, &truth, &boxes);
    }
}

/// Regions at the limit: the largest ones the halo allows are built; one voxel further is a typed
/// error (the README: "far boxes ... a typed BroadphaseError").
#[test]
fn regions_at_the_limit() {
    let grid =
        VoxelGrid::from_fn(VoxelBox::new(IVec3::splat(LIMIT - 9), IVec3::splat(LIMIT - 1)), |_| Voxel::new(-9, ROCK))
            .unwrap()
            .with_phases(phases());
    let high = VoxelBox::new(IVec3::splat(LIMIT - 20), IVec3::splat(LIMIT - 1));
    let bp = Broadphase::build(&grid, high).expect("ends at LIMIT - 1");
    let truth = Truth::new(&grid, high);
    check_chunks(&bp, &truth);
    check_queries(&bp, &truth, &edge_boxes());
    for bad in [
        VoxelBox::new(IVec3::splat(LIMIT - 20), IVec3::new(LIMIT + 1, LIMIT - 1, LIMIT - 1)),
        VoxelBox::new(IVec3::new(-LIMIT - 1, 0, 0), IVec3::ONE),
        VoxelBox::new(IVec3::splat(i32::MIN), IVec3::splat(i32::MAX)),
    ] {
        assert_eq!(Broadphase::build(&grid, bad).err(), Some(BroadphaseError::InvalidAabb), "{bad:?}");
    }
}

/// A source that refuses every read overlapping `refused` (a streaming world whose page failed to
/// load); elsewhere the grid's voxels.
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

/// The 32^3 ground slab of the refused-read tests: rock below y = 8.
fn slab() -> VoxelGrid {
    let data = VoxelBox::new(IVec3::ZERO, IVec3::splat(32));
    VoxelGrid::from_fn(data, |p| if p.y < 8 { Voxel::new(-30, ROCK) } else { Voxel::EMPTY })
        .unwrap()
        .with_phases(phases())
}

/// The reads [`Refusing`] refuses in the refused-read tests: the rock under the resting object.
const REFUSED: VoxelBox = VoxelBox::new(IVec3::new(12, 0, 12), IVec3::new(20, 8, 20));

/// A ground slab, an object resting on it, and a refresh whose reads the source refuses.
fn refused_refresh() -> (Broadphase, Broadphase, Result<usize, BroadphaseError>, Vec<PairEvent>) {
    let grid = slab();
    let mut bp = Broadphase::build(&grid, grid.grid_bounds()).unwrap();
    let mut events = Vec::new();
    bp.insert(1, Aabb::new(Vec3::new(15.0, 8.0, 15.0), Vec3::new(17.0, 10.0, 17.0)), &mut events).unwrap();
    assert!(bp.pairs(1).unwrap().iter().any(|h| h.solid));
    let before = bp.clone();
    events.clear();
    let source = Refusing { grid: &grid, refused: REFUSED };
    // The voxels did not change; the refresh only re-reads them, and the reads fail.
    let result = bp.refresh(&source, VoxelBox::new(IVec3::new(14, 6, 14), IVec3::new(18, 8, 18)), &mut events);
    (before, bp, result, events)
}

/// The error carries the source's own error (the one `Refusing` gives), as its `source()`.
fn is_refusal(result: &Result<impl std::fmt::Debug, BroadphaseError>) -> bool {
    match result {
        Err(e @ BroadphaseError::Source(voxel_core::Error::RegionTooLarge { limit: 0, .. })) => {
            std::error::Error::source(e).is_some()
        }
        _ => false,
    }
}

/// The crate's error type says "nothing changes when a call fails", as `voxel-raymarch` does with
/// `RaymarchError::Source`: a refused read is a typed error, not empty space (which made the
/// resting object lose its solid pairs, as if it could fall through the ground), and the chunks,
/// the object's pairs and the memory stay as they were, with no pair event.
#[test]
fn a_refused_read_is_an_error_not_empty_space() {
    let (before, mut after, result, events) = refused_refresh();
    assert!(is_refusal(&result), "{result:?}");
    assert!(events.is_empty(), "{events:?}");
    // The rock under the object is still there (the defect stored it as empty).
    assert!(after.chunk_class(IVec3::new(1, 0, 1)).is_some());
    for key in VoxelBox::new(IVec3::splat(-1), IVec3::splat(5)).iter() {
        assert_eq!(after.chunk_class(key), before.chunk_class(key), "class of {key} changed by a refused read");
        assert_eq!(after.chunk_masks(key), before.chunk_masks(key), "chunk {key} changed by a refused read");
    }
    assert_eq!(after.chunk_count(), before.chunk_count());
    assert_eq!(after.memory(), before.memory());
    assert_eq!(after.pairs(1), before.pairs(1));
    // Once the source reads again, the same refresh succeeds and finds nothing changed.
    let mut events = Vec::new();
    let dirty = VoxelBox::new(IVec3::new(14, 6, 14), IVec3::new(18, 8, 18));
    assert!(after.refresh(&slab(), dirty, &mut events).unwrap() > 0);
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(after.pairs(1), before.pairs(1));
}

/// A build whose reads the source refuses is the same typed error on one and two threads, while a
/// source whose refusals miss every read of the build builds what the grid builds.
#[test]
fn a_refused_read_fails_the_build() {
    let grid = slab();
    let data = grid.grid_bounds();
    let mut errors = Vec::new();
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a pool");
        // Several blocks' reads overlap the refused box: the first one's error on any thread count.
        let refusing = Refusing { grid: &grid, refused: REFUSED };
        let result = pool.install(|| Broadphase::build(&refusing, data));
        assert!(is_refusal(&result), "{threads} threads: {:?}", result.map(|bp| bp.chunk_count()));
        errors.push(result.err());
        // Only the block reads under the refused box fail; a box outside every read is harmless.
        let elsewhere = Refusing { grid: &grid, refused: VoxelBox::new(IVec3::splat(100), IVec3::splat(101)) };
        let bp = pool.install(|| Broadphase::build(&elsewhere, data)).expect("no read refused");
        check_chunks(&bp, &Truth::new(&grid, data));
    }
    assert_eq!(errors[0], errors[1]);
}

/// A source whose own `read_region` leaves `delta` voxels more (or fewer) than the region holds,
/// the grid's voxels first.
struct Miscounting<'a> {
    grid: &'a VoxelGrid,
    delta: isize,
}

impl VoxelSource for Miscounting<'_> {
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
        self.grid.read_region(region, out)?;
        let len = (out.len() as isize + self.delta).max(0) as usize;
        out.resize(len, Voxel::new(-30, ROCK));
        Ok(())
    }
}

/// A build or refresh from a source whose reads hand back a buffer of the wrong length (short or
/// long) is `BroadphaseError::Source(LengthMismatch)`, never a panic or masks from misplaced
/// voxels (the masks only debug-asserted the length), and a failed refresh changes nothing.
#[test]
fn a_read_of_the_wrong_length_is_an_error() {
    let grid = slab();
    let data = grid.grid_bounds();
    let dirty = VoxelBox::new(IVec3::new(14, 6, 14), IVec3::new(18, 8, 18));
    for delta in [-1isize, -100, 1, 100, 5000] {
        let source = Miscounting { grid: &grid, delta };
        let mismatch = |r: &Result<_, BroadphaseError>| {
            matches!(r, Err(BroadphaseError::Source(voxel_core::Error::LengthMismatch { expected, actual }))
                if *actual as isize - *expected as isize == delta)
        };
        let built = std::panic::catch_unwind(|| Broadphase::build(&source, data).map(|bp| bp.chunk_count()));
        assert!(built.as_ref().is_ok_and(mismatch), "build, {delta} voxels off: {built:?}");

        let mut bp = Broadphase::build(&grid, data).unwrap();
        let mut events = Vec::new();
        bp.insert(1, Aabb::new(Vec3::new(15.0, 8.0, 15.0), Vec3::new(17.0, 10.0, 17.0)), &mut events).unwrap();
        let before = bp.clone();
        events.clear();
        let refreshed =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| bp.refresh(&source, dirty, &mut events)));
        assert!(refreshed.as_ref().is_ok_and(mismatch), "refresh, {delta} voxels off: {refreshed:?}");
        assert!(events.is_empty(), "{events:?}");
        for key in VoxelBox::new(IVec3::splat(-1), IVec3::splat(5)).iter() {
            assert_eq!(bp.chunk_class(key), before.chunk_class(key), "{delta} off: class of {key} changed");
            assert_eq!(bp.chunk_masks(key), before.chunk_masks(key), "{delta} off: chunk {key} changed");
        }
        assert_eq!(bp.chunk_count(), before.chunk_count());
        assert_eq!(bp.memory(), before.memory());
        assert_eq!(bp.pairs(1), before.pairs(1));
    }
}

/// A region whose last voxel is `MAX_COORDINATE - 1` (its exclusive `max` on the limit) reaches
/// nothing past the limit, yet its one-voxel halo's chunk does (and so for a region starting on
/// `-MAX_COORDINATE`): the build refuses both, where the README documents refusals of regions
/// "reaching past MAX_COORDINATE".
#[test]
fn a_region_ending_on_the_limit() {
    let grid =
        VoxelGrid::from_fn(VoxelBox::new(IVec3::splat(LIMIT - 9), IVec3::splat(LIMIT - 1)), |_| Voxel::new(-9, ROCK))
            .unwrap()
            .with_phases(phases());
    let on_limit = VoxelBox::new(IVec3::splat(LIMIT - 20), IVec3::splat(LIMIT));
    let starts_on_limit = VoxelBox::new(IVec3::splat(-LIMIT), IVec3::splat(-LIMIT + 20));
    // Either built (then exact) or the typed error; never a panic. Today: both refused.
    for region in [on_limit, starts_on_limit] {
        match Broadphase::build(&grid, region) {
            Ok(bp) => check_chunks(&bp, &Truth::new(&grid, region)),
            Err(e) => assert_eq!(e, BroadphaseError::InvalidAabb, "{region:?}"),
        }
    }
}
