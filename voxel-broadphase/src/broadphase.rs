//! The chunk map: building masks from a `VoxelSource`, rebuilding after edits, and the overlap test.
//!
//! Seed `000_ce04cac11e01e96d.txt`, "Bit broadphase: overlap test": the object's box in voxel space,
//! per chunk an XZ mask from two lookup tables, then one AND per covered Y slice.

use ahash::AHashMap;
use glam::{IVec3, Vec3};
use voxel_core::{Aabb, RegionHint, Voxel, VoxelBox, VoxelSource};

use crate::BroadphaseError;
use crate::index::{self, ChunkIndex};
use crate::masks::{self, Built, CHUNK_EDGE, MASKS_X, MASKS_Z, READ_EDGE, SliceMask};
use crate::pairs::Object;

/// How far past an object's box the test looks, in voxels (the issue's "grow by one voxel"): a
/// contact margin, so pairs appear one voxel before the surfaces touch.
pub const QUERY_MARGIN: f32 = 1.0;

/// The most chunks one query may cover; larger boxes get [`BroadphaseError::TooLarge`] instead of
/// a loop over millions of chunks.
pub const MAX_QUERY_CHUNKS: u64 = 1 << 16;

/// Coordinates beyond this (in voxels) are refused: far past any world, and small enough that
/// voxel and chunk arithmetic never overflows `i32`.
pub const MAX_COORDINATE: f32 = (1 << 28) as f32;

/// What a chunk holds, as the broadphase keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChunkClass {
    /// Every voxel of the 10^3 read is solid: no geometry inside, but "inside rock" is answerable.
    FullSolid,
    /// Every voxel of the 10^3 read is water: no geometry, "fully submerged".
    FullWater,
    /// Anything else with some solid or water: dilated masks. This includes chunks where every
    /// voxel is solid or water with both present, which the seed tags without masks: its mesher
    /// makes no polygons between rock and water, but a solid-phase mesher (this workspace's) does
    /// make the lake bed, and objects must not fall through it.
    Partial,
}

/// One chunk an object's box touches, and with what.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ChunkHit {
    /// Chunk key (voxel coordinates divided by 8, floored).
    pub chunk: IVec3,
    /// The box touches dilated solid voxels: a solid pair.
    pub solid: bool,
    /// The box touches dilated water voxels: a water pair.
    pub water: bool,
    /// The chunk is full (solid and/or water everywhere): it has no geometry for a narrowphase.
    pub full: bool,
}

/// The bit broadphase over a voxel world.
///
/// ```
/// use glam::{IVec3, Vec3};
/// use voxel_core::{Aabb, VoxelBox};
/// use voxel_broadphase::Broadphase;
/// use voxel_store::generate;
///
/// let world = generate::sphere(Vec3::new(16.0, 16.0, 16.0), 6.0).unwrap();
/// let bp = Broadphase::build(&world, VoxelBox::new(IVec3::ZERO, IVec3::splat(32))).unwrap();
/// let mut hits = Vec::new();
/// // A box touching the sphere's surface: a solid pair with its chunk.
/// bp.query(&Aabb::new(Vec3::new(21.5, 15.5, 15.5), Vec3::new(22.5, 16.5, 16.5)), &mut hits).unwrap();
/// assert!(hits.iter().any(|h| h.solid));
/// // A box in the air 3 voxels away overlaps the sphere's chunk but touches no dilated voxel.
/// bp.query(&Aabb::new(Vec3::new(16.0, 25.0, 16.0), Vec3::new(17.0, 26.0, 17.0)), &mut hits).unwrap();
/// assert!(hits.is_empty());
/// ```
#[derive(Clone, Debug)]
pub struct Broadphase {
    pub(crate) chunks: ChunkIndex,
    /// Solid and water masks of partial chunks, by index; freed slots are reused.
    pub(crate) masks: Vec<[SliceMask; 2]>,
    pub(crate) free: Vec<u32>,
    pub(crate) objects: AHashMap<u32, Object>,
    /// Scratch for the 10^3 reads.
    scratch: Vec<Voxel>,
}

/// Memory of the chunk data, from [`Broadphase::memory`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryStats {
    /// Chunks tagged full.
    pub full_chunks: usize,
    /// Chunks with masks.
    pub partial_chunks: usize,
    /// Bytes of masks (128 per partial chunk: 2 bits per voxel).
    pub mask_bytes: usize,
    /// Bytes of masks, the chunk map and the free list together.
    pub bytes: usize,
}

impl Broadphase {
    /// An empty broadphase (no chunks, no objects).
    pub fn new() -> Self {
        Self {
            chunks: ChunkIndex::default(),
            masks: Vec::new(),
            free: Vec::new(),
            objects: AHashMap::new(),
            scratch: Vec::new(),
        }
    }

    /// Builds the chunks covering `region` (voxel coordinates) and its one-voxel halo from `source`
    /// (a chunk just outside the region can touch geometry made from voxels inside it). Chunks are
    /// built in blocks, in parallel with the `parallel` feature.
    pub fn build<S: VoxelSource + Sync>(source: &S, region: VoxelBox) -> Result<Self, BroadphaseError> {
        let mut bp = Self::new();
        // Chunks just outside the region read voxels inside it through their halo.
        let keys = region.grow(1).chunk_keys(CHUNK_EDGE);
        bp.chunks = ChunkIndex::with_grid(keys);
        bp.rebuild_chunks(source, keys)?;
        Ok(bp)
    }

    /// Rebuilds every chunk whose 10^3 read overlaps `dirty` (a dirty region in voxel coordinates,
    /// as `voxel-store` reports it), and re-tests the objects whose boxes touch those chunks.
    /// Pair changes go to `events`. Returns the number of chunks rebuilt.
    pub fn rebuild<S: VoxelSource + Sync>(
        &mut self,
        source: &S,
        dirty: VoxelBox,
        events: &mut Vec<crate::PairEvent>,
    ) -> Result<usize, BroadphaseError> {
        if dirty.is_empty() {
            return Ok(0);
        }
        // A chunk reads one voxel past its box, so it depends on `dirty` grown by one.
        let keys = dirty.grow(1).chunk_keys(CHUNK_EDGE);
        let rebuilt = self.rebuild_chunks(source, keys)?;
        // Keys were checked against MAX_COORDINATE above, so this cannot overflow.
        let touched = VoxelBox::new(keys.min * CHUNK_EDGE, keys.max * CHUNK_EDGE);
        self.refresh_objects_touching(&touched, events);
        Ok(rebuilt)
    }

    fn rebuild_chunks<S: VoxelSource + Sync>(&mut self, source: &S, keys: VoxelBox) -> Result<usize, BroadphaseError> {
        // Chunks beyond MAX_COORDINATE are refused, so chunk and voxel arithmetic cannot overflow.
        let limit = IVec3::splat((MAX_COORDINATE as i32) / CHUNK_EDGE);
        if keys.min.cmplt(-limit).any() || keys.max.cmpgt(limit).any() {
            return Err(BroadphaseError::InvalidAabb);
        }
        if keys.volume() > MAX_QUERY_CHUNKS * 64 {
            return Err(BroadphaseError::TooLarge);
        }
        let codes = masks::phase_codes(source.phase_table());
        let built = build_blocks(source, keys, &codes, &mut self.scratch);
        let count = built.len();
        for (key, result) in built {
            self.set_chunk(key, result);
        }
        Ok(count)
    }

    fn set_chunk(&mut self, key: IVec3, built: Option<Built>) {
        let class = built.as_ref().and_then(classify);
        let code = match (class, built) {
            (Some(ChunkClass::Partial), Some(b)) => {
                let slot = [b.solid, b.water];
                let i = match self.free.pop() {
                    Some(i) => {
                        self.masks[i as usize] = slot;
                        i
                    }
                    None => {
                        self.masks.push(slot);
                        (self.masks.len() - 1) as u32
                    }
                };
                index::PARTIAL_BASE + i
            }
            (Some(ChunkClass::FullSolid), _) => index::FULL_SOLID,
            (Some(_), _) => index::FULL_WATER,
            (None, _) => index::EMPTY,
        };
        let old = self.chunks.set(key, code);
        if old >= index::PARTIAL_BASE {
            self.free.push(old - index::PARTIAL_BASE);
        }
    }

    /// The class of chunk `key`, or `None` when it is empty (not stored).
    pub fn chunk_class(&self, key: IVec3) -> Option<ChunkClass> {
        match self.chunks.get(key) {
            index::EMPTY => None,
            index::FULL_SOLID => Some(ChunkClass::FullSolid),
            index::FULL_WATER => Some(ChunkClass::FullWater),
            _ => Some(ChunkClass::Partial),
        }
    }

    /// The dilated (solid, water) masks of chunk `key`: all ones for the phase of a full chunk,
    /// `None` for an empty one.
    pub fn chunk_masks(&self, key: IVec3) -> Option<(SliceMask, SliceMask)> {
        let pick = |on: bool| if on { SliceMask::FULL } else { SliceMask::default() };
        match self.chunks.get(key) {
            index::EMPTY => None,
            index::FULL_SOLID => Some((SliceMask::FULL, SliceMask::default())),
            index::FULL_WATER => Some((SliceMask::default(), pick(true))),
            code => {
                let [s, w] = self.masks[(code - index::PARTIAL_BASE) as usize];
                Some((s, w))
            }
        }
    }

    /// Number of stored (non-empty) chunks.
    pub fn chunk_count(&self) -> usize {
        self.chunks.len()
    }

    /// Memory of the chunk data.
    pub fn memory(&self) -> MemoryStats {
        let partial_chunks = self.chunks.codes().filter(|c| *c >= index::PARTIAL_BASE).count();
        let mask_bytes = self.masks.capacity() * size_of::<[SliceMask; 2]>();
        MemoryStats {
            full_chunks: self.chunks.len() - partial_chunks,
            partial_chunks,
            mask_bytes,
            bytes: mask_bytes + self.chunks.bytes() + self.free.capacity() * 4,
        }
    }

    /// Every stored chunk the box `aabb` (world units = voxels, grown by [`QUERY_MARGIN`]) touches
    /// with solid or water, in key order (`y`, then `z`, then `x`), into `out` (cleared first).
    ///
    /// A voxel `p` stands for the cell `[p, p + 1)`; with the dilation, any surface a mesher makes
    /// from the voxels lies in marked cells, so a box that touches no marked cell touches no
    /// geometry. NaN, infinite or inverted boxes give [`BroadphaseError::InvalidAabb`]; boxes
    /// spanning more than [`MAX_QUERY_CHUNKS`] chunks give [`BroadphaseError::TooLarge`].
    pub fn query(&self, aabb: &Aabb, out: &mut Vec<ChunkHit>) -> Result<(), BroadphaseError> {
        out.clear();
        self.for_each_hit(aabb, |hit| out.push(hit))
    }

    /// Calls `f` for every chunk hit of `aabb`, in key order. Plain loops over the keys: the
    /// iterator of `VoxelBox` was most of a small query's time.
    #[inline]
    pub(crate) fn for_each_hit(&self, aabb: &Aabb, mut f: impl FnMut(ChunkHit)) -> Result<(), BroadphaseError> {
        let cells = voxel_range(aabb)?;
        // Coordinates are bounded by MAX_COORDINATE, so nothing here overflows.
        // Arithmetic shifts floor like `div_euclid` by 8, without its division call.
        let lo = cells.min >> 3i32;
        let hi = (cells.max - IVec3::ONE) >> 3i32;
        let span = (hi - lo + IVec3::ONE).as_i64vec3();
        if span.x * span.y * span.z > MAX_QUERY_CHUNKS as i64 {
            return Err(BroadphaseError::TooLarge);
        }
        if let Some((grid, start, sx, sxz)) = self.chunks.grid_window(lo, hi) {
            // The whole key range is inside the grid: walk its entries without per-key checks.
            for y in lo.y..=hi.y {
                for z in lo.z..=hi.z {
                    let row = start + sxz * (y - lo.y) as usize + sx * (z - lo.z) as usize;
                    for (x, &code) in (lo.x..=hi.x).zip(&grid[row..=row + (hi.x - lo.x) as usize]) {
                        if code != index::EMPTY
                            && let Some(hit) = self.test_code(IVec3::new(x, y, z), code, &cells)
                        {
                            f(hit);
                        }
                    }
                }
            }
            return Ok(());
        }
        for y in lo.y..=hi.y {
            for z in lo.z..=hi.z {
                for x in lo.x..=hi.x {
                    if let Some(hit) = self.test_chunk(IVec3::new(x, y, z), &cells) {
                        f(hit);
                    }
                }
            }
        }
        Ok(())
    }

    /// The overlap test of one chunk against a box of cells.
    #[inline]
    pub(crate) fn test_chunk(&self, key: IVec3, cells: &VoxelBox) -> Option<ChunkHit> {
        self.test_code(key, self.chunks.get(key), cells)
    }

    /// The overlap test of chunk `key`, whose index entry is `code`.
    #[inline]
    fn test_code(&self, key: IVec3, code: index::Code, cells: &VoxelBox) -> Option<ChunkHit> {
        match code {
            index::EMPTY => None,
            index::FULL_SOLID => Some(ChunkHit { chunk: key, solid: true, water: false, full: true }),
            index::FULL_WATER => Some(ChunkHit { chunk: key, solid: false, water: true, full: true }),
            code => {
                let base = key * CHUNK_EDGE;
                let lo = (cells.min - base).clamp(IVec3::ZERO, IVec3::splat(CHUNK_EDGE)).as_uvec3();
                let hi = (cells.max - base).clamp(IVec3::ZERO, IVec3::splat(CHUNK_EDGE)).as_uvec3();
                let xz = MASKS_X[lo.x as usize][hi.x as usize] & MASKS_Z[lo.z as usize][hi.z as usize];
                let [s, w] = &self.masks[(code - index::PARTIAL_BASE) as usize];
                let (y0, y1) = (lo.y as usize, hi.y as usize);
                let solid = s.overlaps(xz, y0, y1);
                let water = w.overlaps(xz, y0, y1);
                (solid || water).then_some(ChunkHit { chunk: key, solid, water, full: false })
            }
        }
    }
}

impl Default for Broadphase {
    fn default() -> Self {
        Self::new()
    }
}

/// The cells (voxels) a box grown by [`QUERY_MARGIN`] touches: `floor(min)..=floor(max)`.
#[inline]
pub(crate) fn voxel_range(aabb: &Aabb) -> Result<VoxelBox, BroadphaseError> {
    let lo = aabb.min - Vec3::splat(QUERY_MARGIN);
    let hi = aabb.max + Vec3::splat(QUERY_MARGIN);
    // One combined check: ordered, and within ±MAX_COORDINATE. NaN fails every comparison and
    // infinities fail the range, so no separate finiteness test is needed.
    let limit = Vec3::splat(MAX_COORDINATE);
    if !(aabb.min.cmple(aabb.max).all() && lo.cmpge(-limit).all() && hi.cmple(limit).all()) {
        return Err(BroadphaseError::InvalidAabb);
    }
    Ok(VoxelBox::new(floor(lo), floor(hi) + IVec3::ONE))
}

/// `floor` as integers, for values within `MAX_COORDINATE`: truncate, then step down below zero.
/// (`f32::floor` is a library call on the default x86-64 target.)
#[inline]
fn floor(v: glam::Vec3) -> IVec3 {
    let t = v.as_ivec3();
    t - IVec3::from(v.cmplt(t.as_vec3())).abs()
}

/// Full classes and empty chunks are decided from the counts of the 10^3 read.
fn classify(b: &Built) -> Option<ChunkClass> {
    let all = (READ_EDGE * READ_EDGE * READ_EDGE) as u32;
    match (b.solid_count, b.water_count) {
        (0, 0) => None,
        (s, 0) if s == all => Some(ChunkClass::FullSolid),
        (0, w) if w == all => Some(ChunkClass::FullWater),
        _ => Some(ChunkClass::Partial),
    }
}

/// Chunks are built in blocks of `BLOCK`^3: one read of the block plus its 1-voxel halo serves all
/// of them, instead of a 10^3 read per chunk (a 10^3 read cost more than the mask build itself:
/// `broadphase/mask-build`).
const BLOCK: i32 = 4;

/// Builds the masks of every chunk key in `keys`, block by block (in parallel with the `parallel`
/// feature), in block order then key order. Uniform reads (the source's hint) are classified
/// without reading.
fn build_blocks<S: VoxelSource + Sync>(
    source: &S,
    keys: VoxelBox,
    codes: &[u8; 256],
    scratch: &mut Vec<Voxel>,
) -> Vec<(IVec3, Option<Built>)> {
    let blocks: Vec<IVec3> = VoxelBox::new(
        keys.min.div_euclid(IVec3::splat(BLOCK)),
        (keys.max - IVec3::ONE).div_euclid(IVec3::splat(BLOCK)) + IVec3::ONE,
    )
    .iter()
    .collect();
    let one = |block: &IVec3, buf: &mut Vec<Voxel>| -> Vec<(IVec3, Option<Built>)> {
        let block_keys = VoxelBox::from_min_size(*block * BLOCK, IVec3::splat(BLOCK)).intersection(&keys);
        let read = VoxelBox::new(block_keys.min * CHUNK_EDGE, block_keys.max * CHUNK_EDGE).grow(1);
        let all = (READ_EDGE * READ_EDGE * READ_EDGE) as u32;
        // A uniform read (the source's hint, from its metadata) needs no voxels and no masks.
        let from_hint = |region: VoxelBox| match source.region_hint(region) {
            RegionHint::Uniform(v) => {
                let code = if v.distance < 0 { codes[usize::from(v.material)] } else { 0 };
                let pick = |bit: u8| if code & bit != 0 { (SliceMask::FULL, all) } else { (SliceMask::default(), 0) };
                let ((solid, solid_count), (water, water_count)) = (pick(1), pick(2));
                Some((code != 0).then_some(Built { solid, water, solid_count, water_count }))
            }
            RegionHint::Unknown => None,
        };
        if let Some(built) = from_hint(read) {
            return block_keys.iter().map(|k| (k, built)).collect();
        }
        if source.read_region(read, buf).is_err() {
            return block_keys.iter().map(|k| (k, None)).collect();
        }
        let size = read.size();
        block_keys
            .iter()
            .map(|k| {
                // Inside a mixed block many chunks are still all air or all rock.
                if let Some(built) = from_hint(VoxelBox::chunk(k, CHUNK_EDGE).grow(1)) {
                    return (k, built);
                }
                let at = k * CHUNK_EDGE - IVec3::ONE - read.min;
                let origin = at.x as usize + size.x as usize * (at.z as usize + size.z as usize * at.y as usize);
                (k, Some(masks::build_strided(buf, origin, size.x as usize, size.z as usize, codes)))
            })
            .collect()
    };
    #[cfg(feature = "parallel")]
    let per_block: Vec<Vec<(IVec3, Option<Built>)>> = {
        use rayon::prelude::*;
        let _ = scratch;
        blocks.par_iter().map_init(Vec::new, |buf, b| one(b, buf)).collect()
    };
    #[cfg(not(feature = "parallel"))]
    let per_block: Vec<Vec<(IVec3, Option<Built>)>> = blocks.iter().map(|b| one(b, scratch)).collect();
    per_block.into_iter().flatten().collect()
}
