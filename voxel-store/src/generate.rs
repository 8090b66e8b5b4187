//! Procedural worlds, deterministic by seed: noise terrain with caves and water, test shapes, and
//! [`from_fn`] to fill a region from any closure.
//!
//! Every generator builds whole chunks independently (in parallel with the `parallel` feature) and
//! inserts them in key order, so the result is the same bit for bit whatever the thread count.

use glam::{IVec3, Vec2, Vec3};
use voxel_core::{MAX_REGION_VOLUME, Phase, Voxel, VoxelBox};

use crate::chunk::{CHUNK_EDGE, Chunk, EDGE, VOLUME};
use crate::{Brush, DIRTY_PADDING, DISTANCE_BAND, EditReport, Palette, StoreError, VoxelStore, quantize};

/// Material indices of [`palette`].
pub mod materials {
    /// Air (empty), index 0.
    pub const AIR: u8 = 0;
    /// Grass, the top voxel of the terrain.
    pub const GRASS: u8 = 1;
    /// Dirt, the few voxels under the grass.
    pub const DIRT: u8 = 2;
    /// Rock, everything deeper.
    pub const ROCK: u8 = 3;
    /// Water, liquid.
    pub const WATER: u8 = 4;
}

/// The palette the generators use: air, grass, dirt, rock (solid) and water (liquid), at the
/// indices of [`materials`].
pub fn palette() -> Palette {
    let mut p = Palette::new();
    for (name, phase, color) in [
        ("grass", Phase::Solid, [86, 150, 60, 255]),
        ("dirt", Phase::Solid, [120, 85, 55, 255]),
        ("rock", Phase::Solid, [128, 128, 128, 255]),
        ("water", Phase::Liquid, [40, 90, 200, 160]),
    ] {
        p.add(name, phase, color).expect("five materials fit in a palette");
    }
    p
}

/// Parameters of [`terrain`]. Lengths are in voxels.
#[derive(Clone, Debug, PartialEq)]
pub struct Terrain {
    /// Seed of every noise.
    pub seed: u64,
    /// The world box, from the origin: `(0, 0, 0)` to `size` (excluded).
    pub size: IVec3,
    /// Mean height of the ground.
    pub base_height: f32,
    /// Height of the hills above and below the mean.
    pub amplitude: f32,
    /// Frequency of the first noise octave, in cycles per voxel.
    pub frequency: f32,
    /// Noise octaves (each doubles the frequency and halves the amplitude).
    pub octaves: u32,
    /// Tunnel radius in noise units (0 disables caves; 0.08 gives tunnels a few voxels wide).
    pub cave_width: f32,
    /// Frequency of the cave noise, in cycles per voxel.
    pub cave_frequency: f32,
    /// Empty voxels below this height fill with water; `None` for no water.
    pub water_level: Option<f32>,
    /// The world's floor: every voxel with `y < floor` is rock that caves do not carve, so no
    /// column of the world is empty (a ray looking down always lands). `0.0` for no floor.
    pub floor: f32,
}

impl Terrain {
    /// Rolling hills with caves and a water level, scaled to `size`.
    pub fn new(size: IVec3, seed: u64) -> Self {
        let h = size.y as f32;
        Self {
            seed,
            size,
            base_height: 0.5 * h,
            amplitude: 0.25 * h,
            frequency: 1.0 / 160.0,
            octaves: 4,
            cave_width: 0.12,
            cave_frequency: 1.0 / 96.0,
            water_level: Some(0.4 * h),
            floor: 3.0,
        }
    }

    fn validate(&self) -> Result<(), StoreError> {
        let finite =
            [self.base_height, self.amplitude, self.frequency, self.cave_width, self.cave_frequency, self.floor]
                .iter()
                .chain(self.water_level.as_ref())
                .all(|v| v.is_finite());
        if !finite {
            return Err(StoreError::InvalidParameter("terrain parameters must be finite"));
        }
        // Above one cycle per voxel noise only aliases; bounding it also keeps noise lattice
        // coordinates inside `i32` for every voxel coordinate.
        if !(0.0..=1.0).contains(&self.frequency) || !(0.0..=1.0).contains(&self.cave_frequency) {
            return Err(StoreError::InvalidParameter("noise frequencies must be in 0..=1 cycles per voxel"));
        }
        if self.size.cmplt(IVec3::ZERO).any() || self.octaves > 16 {
            return Err(StoreError::InvalidParameter("terrain size must be >= 0 and octaves <= 16"));
        }
        if VoxelBox::new(IVec3::ZERO, self.size).volume() > MAX_REGION_VOLUME * 16 {
            return Err(StoreError::RegionTooLarge);
        }
        Ok(())
    }

    /// Ground height at column `(x, z)`.
    fn height(&self, x: f32, z: f32) -> f32 {
        let mut sum = 0.0;
        let mut amp = 1.0;
        let mut freq = self.frequency;
        let mut norm = 0.0;
        for octave in 0..self.octaves {
            sum += amp * gradient_noise_2d(self.seed.wrapping_add(u64::from(octave)), Vec2::new(x, z) * freq);
            norm += amp;
            amp *= 0.5;
            freq *= 2.0;
        }
        self.base_height + self.amplitude * sum / norm.max(1e-6)
    }
}

/// A terrain world: multi-octave noise heightfield, 3D tunnels carved by ridged noise, water
/// below the water level, and a rock floor under it all. Uses [`palette`]'s materials.
/// Deterministic by `params.seed`.
///
/// ```
/// use glam::IVec3;
/// use voxel_store::generate::{Terrain, terrain};
///
/// let world = terrain(&Terrain::new(IVec3::new(64, 48, 64), 7)).unwrap();
/// assert!(world.chunk_count() > 0);
/// assert!(world.get(IVec3::new(10, 0, 10)).is_inside(), "the bottom of the world is rock");
/// assert!(!world.get(IVec3::new(10, 47, 10)).is_inside(), "the top is air");
/// // The floor: no column is empty, whatever the caves carve.
/// assert!((0..64).all(|x| (0..64).all(|z| world.get(IVec3::new(x, 0, z)).is_inside())));
/// ```
pub fn terrain(params: &Terrain) -> Result<VoxelStore, StoreError> {
    params.validate()?;
    let mut store = VoxelStore::with_palette(palette());
    let world = VoxelBox::new(IVec3::ZERO, params.size);
    fill_chunks(&mut store, world, |region, out| terrain_region(params, region, out));
    Ok(store)
}

fn terrain_region(t: &Terrain, region: VoxelBox, out: &mut [Voxel]) {
    let size = region.size();
    let (sx, sz) = (size.x as usize, size.z as usize);
    let heights: Vec<f32> = (0..sx * sz)
        .map(|i| t.height((region.min.x + (i % sx) as i32) as f32, (region.min.z + (i / sx) as i32) as f32))
        .collect();
    let cave_seed = t.seed ^ 0xC0FF_EE00_D15E_A5E5;
    // The cave noise's gradient is about 2 * frequency per voxel; dividing by it turns noise units
    // into approximate voxel distances, so tunnel walls quantize like the ground does.
    let cave_scale = 1.0 / (2.0 * t.cave_frequency.max(1e-6));
    for (i, v) in out.iter_mut().enumerate() {
        let x = i % sx;
        let z = (i / sx) % sz;
        let y = region.min.y + (i / (sx * sz)) as i32;
        let h = heights[x + sx * z];
        let p = Vec3::new((region.min.x + x as i32) as f32, y as f32, (region.min.z + z as i32) as f32);
        let mut d = p.y - h;
        // Carve only where the ground is inside or near the surface: elsewhere it cannot matter.
        // A tunnel is where two independent noises are both near zero: the intersection of two
        // thin sheets, a worm-like tube (one sheet alone would carve walls, not tunnels).
        if t.cave_width > 0.0 && d < DISTANCE_BAND {
            let a = gradient_noise_3d(cave_seed, p * t.cave_frequency).abs();
            if a < t.cave_width + DISTANCE_BAND / cave_scale {
                let b = gradient_noise_3d(cave_seed ^ 0x5EED, p * t.cave_frequency).abs();
                d = d.max((t.cave_width - a.max(b)) * cave_scale);
            }
        }
        // The floor joins the ground after the caves, so they never carve through the bottom.
        let floor = if t.floor > 0.0 { p.y + 0.5 - t.floor } else { f32::INFINITY };
        let on_floor = floor < d;
        d = d.min(floor);
        // Cave air keeps the rock's material: an outside voxel's material is never a phase (outside
        // is empty whatever it names), and one material per tunnel row packs rows at half the size.
        let air_material = if p.y < h { materials::ROCK } else { materials::AIR };
        *v = if d < 0.0 {
            let depth = h - p.y;
            let material = if on_floor {
                materials::ROCK
            } else if depth < 1.5 {
                materials::GRASS
            } else if depth < 4.0 {
                materials::DIRT
            } else {
                materials::ROCK
            };
            Voxel::new(quantize(d), material)
        } else {
            match t.water_level {
                // Below the water level, empty space is water: inside both the half-space under the
                // level and the complement of the ground.
                Some(level) if p.y < level => Voxel::new(quantize((p.y - level).max(-d)), materials::WATER),
                Some(level) => Voxel::new(quantize(d.min(p.y - level)), air_material),
                None => Voxel::new(quantize(d), air_material),
            }
        };
    }
}

/// A world holding one rock sphere (test field).
pub fn sphere(center: Vec3, radius: f32) -> Result<VoxelStore, StoreError> {
    shape(Brush::Sphere { center, radius })
}

/// A world holding one rock box (test field).
pub fn cuboid(center: Vec3, half_extents: Vec3) -> Result<VoxelStore, StoreError> {
    shape(Brush::Box { center, half_extents })
}

fn shape(brush: Brush) -> Result<VoxelStore, StoreError> {
    let mut store = VoxelStore::with_palette(palette());
    store.add(&brush, materials::ROCK)?;
    store.compact();
    Ok(store)
}

/// Sets every voxel of `region` to `f(p)`, chunk by chunk (in parallel with the `parallel` feature;
/// `f` must be deterministic for the result to be). Fails without changing anything when `f`
/// returns a material the palette lacks, or when the region is too large.
///
/// ```
/// use glam::IVec3;
/// use voxel_core::{Voxel, VoxelBox};
/// use voxel_store::{VoxelStore, generate};
///
/// let mut store = VoxelStore::with_palette(generate::palette());
/// let region = VoxelBox::new(IVec3::ZERO, IVec3::splat(40));
/// generate::from_fn(&mut store, region, |p| {
///     if p.y < 10 { Voxel::new(-127, generate::materials::ROCK) } else { Voxel::EMPTY }
/// })
/// .unwrap();
/// assert!(store.get(IVec3::new(3, 9, 3)).is_inside());
/// ```
pub fn from_fn(
    store: &mut VoxelStore,
    region: VoxelBox,
    f: impl Fn(IVec3) -> Voxel + Sync,
) -> Result<EditReport, StoreError> {
    if region.volume() > MAX_REGION_VOLUME {
        return Err(StoreError::RegionTooLarge);
    }
    // Check materials first, so a failure leaves the store untouched. One pass of `f` more, paid
    // only by this convenience; the generators above produce known materials and skip it.
    let palette_len = store.palette().len();
    let chunks: Vec<VoxelBox> = region.chunk_keys(CHUNK_EDGE).iter().map(|k| VoxelBox::chunk(k, CHUNK_EDGE)).collect();
    let bad = map_ordered(&chunks, |c| {
        c.intersection(&region).iter().map(&f).find(|v| usize::from(v.material) >= palette_len).map(|v| v.material)
    });
    if let Some(m) = bad.into_iter().flatten().next() {
        return Err(StoreError::UnknownMaterial(m));
    }
    Ok(fill_chunks(store, region, |r, out| {
        for (p, v) in r.iter().zip(out.iter_mut()) {
            *v = f(p);
        }
    }))
}

/// Fills `region` chunk by chunk: `f(part, out)` writes the voxels of `part` (one chunk's share of
/// the region) into `out` in buffer order. Each chunk is built from its stored voxels, overwritten
/// where the region covers it, compacted, and inserted in key order.
pub(crate) fn fill_chunks(
    store: &mut VoxelStore,
    region: VoxelBox,
    f: impl Fn(VoxelBox, &mut [Voxel]) + Sync,
) -> EditReport {
    let keys: Vec<IVec3> = region.chunk_keys(CHUNK_EDGE).iter().collect();
    let built = {
        let store = &*store;
        map_ordered(&keys, |&key| {
            let part = region.intersection(&VoxelBox::chunk(key, CHUNK_EDGE));
            let mut buf = vec![Voxel::EMPTY; part.volume() as usize];
            f(part, &mut buf);
            let mut voxels = match store.chunk(key) {
                Some(c) => c.to_dense(),
                None => vec![Voxel::EMPTY; VOLUME].into_boxed_slice(),
            };
            let mut changed = 0u64;
            let mut bounds = VoxelBox::EMPTY;
            let len = part.size().x as usize;
            let x0 = (part.min.x & (CHUNK_EDGE - 1)) as usize;
            for (row_in, src) in buf.chunks_exact(len.max(1)).enumerate() {
                let z = part.min.z + (row_in % part.size().z as usize) as i32;
                let y = part.min.y + (row_in / part.size().z as usize) as i32;
                let r = (z & (CHUNK_EDGE - 1)) as usize + EDGE * (y & (CHUNK_EDGE - 1)) as usize;
                let dst = &mut voxels[r * EDGE + x0..r * EDGE + x0 + len];
                let differs = |i: &usize| dst[*i] != src[*i];
                if let (Some(first), Some(last)) = ((0..len).find(differs), (0..len).rev().find(differs)) {
                    changed += (first..=last).filter(differs).count() as u64;
                    let lo = IVec3::new(part.min.x + first as i32, y, z);
                    bounds = bounds.union(&VoxelBox::new(lo, IVec3::new(part.min.x + last as i32 + 1, y + 1, z + 1)));
                }
                dst.copy_from_slice(src);
            }
            let mut chunk = Chunk::Dense(voxels);
            chunk.compact();
            (key, chunk, changed, bounds)
        })
    };
    let mut changed_voxels = 0;
    let mut changed_box = VoxelBox::EMPTY;
    for (key, chunk, changed, bounds) in built {
        changed_voxels += changed;
        changed_box = changed_box.union(&bounds);
        store.insert_chunk(key, chunk);
    }
    let dirty = if changed_voxels > 0 { changed_box.grow(DIRTY_PADDING) } else { VoxelBox::EMPTY };
    EditReport { changed_voxels, dirty }
}

/// `items.map(f)` in order, in parallel when the `parallel` feature is on.
fn map_ordered<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        items.par_iter().map(&f).collect()
    }
    #[cfg(not(feature = "parallel"))]
    {
        items.iter().map(f).collect()
    }
}

/// A well-mixed 32-bit hash of a lattice point and a seed.
#[inline]
fn hash(seed: u64, x: i32, y: i32, z: i32) -> u32 {
    let mut h = seed ^ u64::from(x as u32).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    h ^= u64::from(y as u32).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    h ^= u64::from(z as u32).wrapping_mul(0x1656_67B1_9E37_79F9);
    h = (h ^ (h >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    (h ^ (h >> 32)) as u32
}

#[inline]
fn fade(t: f32) -> f32 {
    t * t * t * (t * (t * 6.0 - 15.0) + 10.0)
}

/// Perlin's gradient noise in 2D (improved fade curve), in about [-1, 1].
fn gradient_noise_2d(seed: u64, p: Vec2) -> f32 {
    let cell = p.floor();
    let f = p - cell;
    let (ix, iz) = (cell.x as i32, cell.y as i32);
    let grad = |dx: i32, dz: i32| {
        let a =
            hash(seed, ix.wrapping_add(dx), 0, iz.wrapping_add(dz)) as f32 * (core::f32::consts::TAU / 4_294_967_296.0);
        Vec2::new(a.cos(), a.sin()).dot(f - Vec2::new(dx as f32, dz as f32))
    };
    let (u, v) = (fade(f.x), fade(f.y));
    let a = grad(0, 0) + u * (grad(1, 0) - grad(0, 0));
    let b = grad(0, 1) + u * (grad(1, 1) - grad(0, 1));
    (a + v * (b - a)) * core::f32::consts::SQRT_2
}

/// Perlin's gradient noise in 3D with the 12 edge gradients, in about [-1, 1].
fn gradient_noise_3d(seed: u64, p: Vec3) -> f32 {
    const GRADIENTS: [Vec3; 12] = [
        Vec3::new(1.0, 1.0, 0.0),
        Vec3::new(-1.0, 1.0, 0.0),
        Vec3::new(1.0, -1.0, 0.0),
        Vec3::new(-1.0, -1.0, 0.0),
        Vec3::new(1.0, 0.0, 1.0),
        Vec3::new(-1.0, 0.0, 1.0),
        Vec3::new(1.0, 0.0, -1.0),
        Vec3::new(-1.0, 0.0, -1.0),
        Vec3::new(0.0, 1.0, 1.0),
        Vec3::new(0.0, -1.0, 1.0),
        Vec3::new(0.0, 1.0, -1.0),
        Vec3::new(0.0, -1.0, -1.0),
    ];
    let cell = p.floor();
    let f = p - cell;
    let i = cell.as_ivec3();
    let grad = |d: IVec3| {
        let c = i.wrapping_add(d);
        GRADIENTS[(hash(seed, c.x, c.y, c.z) % 12) as usize].dot(f - d.as_vec3())
    };
    let (u, v, w) = (fade(f.x), fade(f.y), fade(f.z));
    let lerp = |a: f32, b: f32, t: f32| a + t * (b - a);
    let x00 = lerp(grad(IVec3::new(0, 0, 0)), grad(IVec3::new(1, 0, 0)), u);
    let x10 = lerp(grad(IVec3::new(0, 1, 0)), grad(IVec3::new(1, 1, 0)), u);
    let x01 = lerp(grad(IVec3::new(0, 0, 1)), grad(IVec3::new(1, 0, 1)), u);
    let x11 = lerp(grad(IVec3::new(0, 1, 1)), grad(IVec3::new(1, 1, 1)), u);
    lerp(lerp(x00, x10, v), lerp(x01, x11, v), w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn noise_is_continuous_and_bounded() {
        let mut prev = gradient_noise_3d(1, Vec3::new(0.0, 0.3, 0.7));
        for i in 1..2000 {
            let n = gradient_noise_3d(1, Vec3::new(i as f32 * 0.01, 0.3, 0.7));
            assert!(n.abs() <= 1.5, "{n}");
            assert!((n - prev).abs() < 0.1, "jump at {i}");
            prev = n;
            assert!(gradient_noise_2d(3, Vec2::new(i as f32 * 0.013, -4.2)).abs() <= 1.5);
        }
    }

    /// Columns `(x, z)` of `store` over `size` without one solid voxel (water is not solid).
    fn empty_columns(store: &VoxelStore, size: IVec3) -> usize {
        let solid = |p: IVec3| {
            let v = store.get(p);
            v.is_inside() && v.material != materials::WATER
        };
        (0..size.x)
            .flat_map(|x| (0..size.z).map(move |z| (x, z)))
            .filter(|&(x, z)| (0..size.y).all(|y| !solid(IVec3::new(x, y, z))))
            .count()
    }

    #[test]
    fn the_floor_leaves_no_column_empty() {
        // The demo's hilly world, whose caves reach the bottom of the world in places (without the
        // floor, 1314 of the 65536 columns of its 256 x 96 x 256 default had no solid voxel).
        let size = IVec3::new(160, 96, 160);
        let params = Terrain { amplitude: 0.32 * 96.0, frequency: 1.0 / 110.0, ..Terrain::new(size, 7) };
        let bare = terrain(&Terrain { floor: 0.0, ..params.clone() }).unwrap();
        assert!(empty_columns(&bare, size) > 100, "this world needs the floor: caves reach y = 0 without it");
        assert_eq!(bare.get(IVec3::new(100, 0, 0)).material, materials::WATER);
        let floored = terrain(&params).unwrap();
        assert_eq!(empty_columns(&floored, size), 0);
        for (x, z) in [(0, 0), (100, 0), (37, 121)] {
            let bottom = floored.get(IVec3::new(x, 0, z));
            assert!(bottom.is_inside() && bottom.material == materials::ROCK);
            assert!(floored.get(IVec3::new(x, 2, z)).is_inside(), "floor 3.0 is three voxels deep");
        }
        // Past the floor's distance band the world is the same voxels.
        for p in VoxelBox::new(IVec3::new(0, 6, 0), size).iter().step_by(97) {
            assert_eq!(bare.get(p), floored.get(p), "{p}");
        }
    }

    #[test]
    fn noise_depends_on_the_seed() {
        let p = Vec3::new(3.3, 1.7, -2.1);
        assert_ne!(gradient_noise_3d(1, p), gradient_noise_3d(2, p));
    }
}
