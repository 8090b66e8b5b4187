//! The chunk map: building masks from a `VoxelSource` and rebuilding them after edits.
//!
//! Seed `000_ce04cac11e01e96d.txt`, "Bit broadphase: construction": per chunk, a 10^3 read
//! dilated into two 8^3 masks; chunks full of one phase are tagged, empty ones not stored.

use ahash::AHashMap;
use glam::IVec3;
use voxel_core::{CoordinateLimit, RegionHint, Voxel, VoxelBox, VoxelSource};

use crate::index::{self, ChunkIndex, FIRST_SLOT};
use crate::masks::{self, BlockRows, Built, CHUNK_EDGE, SliceMask};
use crate::pairs::Object;
use crate::{BroadphaseError, Reach};

const _: () = assert!(FIRST_SLOT == 2, "slots 0 (empty) and 1 (full) come before the partial chunks' slots");

/// How far past an object's box the test looks, in voxels (the issue's "grow by one voxel"): a
/// contact margin, so pairs appear one voxel before the surfaces touch.
pub const QUERY_MARGIN: f32 = 1.0;

/// The most chunks one query may cover; larger boxes get [`BroadphaseError::TooLarge`] instead of
/// a loop over millions of chunks.
pub const MAX_QUERY_CHUNKS: u64 = 1 << 16;

/// Coordinates beyond this (in voxels) are refused: far past any world, and small enough that
/// voxel and chunk arithmetic never overflows `i32`.
pub const MAX_COORDINATE: CoordinateLimit = CoordinateLimit::new(1 << 28);

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
    /// Masks of partial chunks, one cache line each: a chunk's solid mask, then its water mask
    /// when it has water (most chunks have none, and a query then reads one line per chunk).
    /// Slot 0 stays empty and slot 1 full, for the tags ([`index::Code`]); freed slots are reused.
    pub(crate) masks: Vec<Slot>,
    /// Freed single slots (chunks without water) and freed pairs (chunks with water).
    free_single: Vec<u32>,
    free_pair: Vec<u32>,
    pub(crate) reach: Reach,
    pub(crate) objects: AHashMap<u32, Object>,
    /// Scratch for the block reads.
    scratch: Vec<Voxel>,
}

/// One mask on its own cache line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(align(64))]
pub(crate) struct Slot(pub [u64; 8]);

/// Memory of the chunk data, from [`Broadphase::memory`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryStats {
    /// Chunks tagged full.
    pub full_chunks: usize,
    /// Chunks with masks.
    pub partial_chunks: usize,
    /// Bytes of masks: 64 per partial chunk without water (1 bit per voxel), 128 with water.
    pub mask_bytes: usize,
    /// Bytes of masks, the chunk map and the free list together.
    pub bytes: usize,
}

impl Broadphase {
    /// An empty broadphase (no chunks, no objects).
    pub fn new() -> Self {
        Self {
            chunks: ChunkIndex::default(),
            // The empty and the full slot of the tags (`index::Code`), below FIRST_SLOT.
            masks: vec![Slot::default(), Slot([u64::MAX; 8])],
            free_single: Vec::new(),
            free_pair: Vec::new(),
            reach: Reach::default(),
            objects: AHashMap::new(),
            scratch: Vec::new(),
        }
    }

    /// Which mask bits queries test ([`Reach::SurfaceNets`] unless set).
    pub fn reach(&self) -> Reach {
        self.reach
    }

    /// Makes queries test the mask bits of `reach`, and re-tests every tracked object: pairs that
    /// appear or disappear go to `events` (in id order).
    pub fn set_reach(&mut self, reach: Reach, events: &mut Vec<crate::PairEvent>) {
        if reach != self.reach {
            self.reach = reach;
            self.refresh_objects_touching(None, events);
        }
    }

    /// Builds the chunks covering `region` (voxel coordinates) and its one-voxel halo from `source`
    /// (a chunk just outside the region can touch geometry made from voxels inside it). Chunks are
    /// built in blocks, in parallel with the `parallel` feature.
    ///
    /// Only the part of `region` that the source's [`VoxelSource::bounds`] overlaps is visited
    /// (grown by the halo), and a block of chunks the source's hint calls uniform costs a few bytes
    /// while it is built, so empty space costs (almost) nothing: memory follows the chunks holding
    /// solid or water (64 or 128 bytes each) plus a 4-byte entry per chunk of the visited box.
    ///
    /// # Errors
    ///
    /// [`BroadphaseError::InvalidAabb`] for a region reaching past [`MAX_COORDINATE`];
    /// [`BroadphaseError::TooLarge`] when the visited box (the region grown by one voxel, cut to
    /// the source's bounds grown by one) spans more than 64 x [`MAX_QUERY_CHUNKS`] = 2^22 chunks
    /// (2^31 voxels, for example a store with voxels all over 2048 x 512 x 2048);
    /// [`BroadphaseError::Source`] when the source refuses a read (nothing is built: a chunk that
    /// could not be read is not taken for empty space).
    pub fn build<S: VoxelSource + Sync>(source: &S, region: VoxelBox) -> Result<Self, BroadphaseError> {
        let mut bp = Self::new();
        // Chunks just outside the region read voxels inside it through their halo; chunks whose
        // read misses the source's bounds are empty.
        let mut visit = region.grow(1);
        check_keys(visit.chunk_keys(CHUNK_EDGE))?;
        if let Some(bounds) = source.bounds() {
            visit = visit.intersection(&bounds.grow(1));
        }
        let keys = visit.chunk_keys(CHUNK_EDGE);
        bp.chunks = ChunkIndex::with_grid(keys);
        bp.rebuild_chunks(source, keys)?;
        // The mask slots grew by doubling; a built world keeps only what it uses.
        bp.masks.shrink_to_fit();
        Ok(bp)
    }

    /// Rebuilds every chunk whose 10^3 read overlaps `dirty` (a dirty region in voxel coordinates,
    /// as `voxel-store` reports it), and re-tests the objects whose boxes touch those chunks.
    /// Pair changes go to `events`. Returns the number of chunks rebuilt.
    ///
    /// Named like `voxel-raymarch`'s `Occupancy::refresh`: both bring derived data up to date
    /// after an edit.
    ///
    /// # Errors
    ///
    /// [`BroadphaseError::InvalidAabb`] for chunks reaching past [`MAX_COORDINATE`];
    /// [`BroadphaseError::TooLarge`] when they number more than 64 x [`MAX_QUERY_CHUNKS`];
    /// [`BroadphaseError::Source`] when the source refuses a read. Every read is done before
    /// anything is stored, so on an error the chunks, objects and pairs are as they were and
    /// `events` gets nothing.
    pub fn refresh<S: VoxelSource + Sync>(
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
        self.refresh_objects_touching(Some(&keys), events);
        Ok(rebuilt)
    }

    fn rebuild_chunks<S: VoxelSource + Sync>(&mut self, source: &S, keys: VoxelBox) -> Result<usize, BroadphaseError> {
        check_keys(keys)?;
        if keys.volume() > MAX_QUERY_CHUNKS * 64 {
            return Err(BroadphaseError::TooLarge);
        }
        let codes = masks::phase_codes(source.phase_table());
        // Every block is read before any chunk is stored, so a refused read changes nothing.
        let built = build_blocks(source, keys, &codes, &mut self.scratch).map_err(BroadphaseError::Source)?;
        let mut count = 0;
        for block in built {
            match block {
                BlockBuilt::Uniform(block_keys, code) => {
                    let built = uniform_built(code);
                    for key in block_keys.iter() {
                        self.set_chunk(key, built);
                        count += 1;
                    }
                }
                BlockBuilt::Chunks(block_keys, chunks) => {
                    // `chunks` holds the non-empty chunks in key order; the others are empty.
                    let mut chunks = chunks.into_iter().peekable();
                    for key in block_keys.iter() {
                        let built = chunks.next_if(|(k, _)| *k == key).map(|(_, b)| b);
                        self.set_chunk(key, built);
                        count += 1;
                    }
                }
            }
        }
        Ok(count)
    }

    fn set_chunk(&mut self, key: IVec3, built: Option<Built>) {
        let class = built.as_ref().and_then(classify);
        let code = match (class, built) {
            (Some(ChunkClass::Partial), Some(b)) => {
                let has_water = !b.water.is_empty();
                let (free, count) = if has_water { (&mut self.free_pair, 2) } else { (&mut self.free_single, 1) };
                let slot = match free.pop() {
                    Some(slot) => slot,
                    None => {
                        let slot = self.masks.len() as u32;
                        self.masks.resize(self.masks.len() + count, Slot::default());
                        slot
                    }
                };
                self.masks[slot as usize] = Slot(b.solid.0);
                if has_water {
                    self.masks[slot as usize + 1] = Slot(b.water.0);
                }
                index::partial(slot, has_water)
            }
            (Some(ChunkClass::FullSolid), _) => index::FULL_SOLID,
            (Some(ChunkClass::FullWater), _) => index::FULL_WATER,
            // A class comes only from a built chunk, so `(Some(Partial), None)` never happens.
            _ => index::EMPTY,
        };
        let old = self.chunks.set(key, code);
        if index::is_partial(old) {
            let slot = index::solid_slot(old) as u32;
            if index::water_slot(old) != 0 { self.free_pair.push(slot) } else { self.free_single.push(slot) }
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
        match self.chunks.get(key) {
            index::EMPTY => None,
            index::FULL_SOLID => Some((SliceMask::FULL, SliceMask::default())),
            index::FULL_WATER => Some((SliceMask::default(), SliceMask::FULL)),
            code => {
                let mask = |slot: usize| SliceMask(self.masks[slot].0);
                Some((mask(index::solid_slot(code)), mask(index::water_slot(code))))
            }
        }
    }

    /// Number of stored (non-empty) chunks.
    pub fn chunk_count(&self) -> usize {
        self.chunks.len()
    }

    /// Bytes of the chunk data (`memory().bytes`): the total every crate of the workspace reports
    /// as `heap_bytes`; [`Broadphase::memory`] breaks it down.
    pub fn heap_bytes(&self) -> usize {
        self.memory().bytes
    }

    /// Memory of the chunk data.
    pub fn memory(&self) -> MemoryStats {
        let partial_chunks = self.chunks.codes().filter(|c| index::is_partial(*c)).count();
        let mask_bytes = self.masks.capacity() * size_of::<Slot>();
        MemoryStats {
            full_chunks: self.chunks.len() - partial_chunks,
            partial_chunks,
            mask_bytes,
            bytes: mask_bytes + self.chunks.bytes() + (self.free_single.capacity() + self.free_pair.capacity()) * 4,
        }
    }
}

impl Default for Broadphase {
    fn default() -> Self {
        Self::new()
    }
}

/// Refuses chunk keys beyond MAX_COORDINATE, so chunk and voxel arithmetic cannot overflow.
fn check_keys(keys: VoxelBox) -> Result<(), BroadphaseError> {
    let limit = IVec3::splat(MAX_COORDINATE.get() / CHUNK_EDGE);
    if keys.min.cmplt(-limit).any() || keys.max.cmpgt(limit).any() {
        return Err(BroadphaseError::InvalidAabb);
    }
    Ok(())
}

/// The class of a built chunk: empty when neither mask has a bit (no solid or water anywhere in
/// the 10^3 read), full when the whole read is one phase.
fn classify(b: &Built) -> Option<ChunkClass> {
    if b.all_solid {
        Some(ChunkClass::FullSolid)
    } else if b.all_water {
        Some(ChunkClass::FullWater)
    } else if b.solid.is_empty() && b.water.is_empty() {
        None
    } else {
        Some(ChunkClass::Partial)
    }
}

/// The result of a chunk whose whole read is voxels of phase code `code` (0: empty).
fn uniform_built(code: u8) -> Option<Built> {
    let pick = |bit: u8| if code & bit != 0 { SliceMask::FULL } else { SliceMask::default() };
    let (solid, water) = (code & masks::SOLID != 0, code & masks::WATER != 0);
    (code != 0).then_some(Built {
        solid: pick(masks::SOLID),
        water: pick(masks::WATER),
        all_solid: solid,
        all_water: water,
    })
}

/// Chunks are built in blocks of `BLOCK`^3: one read of the block plus its 1-voxel halo serves all
/// of them, instead of a 10^3 read per chunk (a 10^3 read cost more than the mask build itself:
/// `broadphase/mask-build`), and its rows are dilated once for all of them.
const BLOCK: i32 = 4;

/// Rows of a block read: `(8 * BLOCK + 2)^2`.
const BLOCK_ROWS: usize = ((CHUNK_EDGE * BLOCK + 2) * (CHUNK_EDGE * BLOCK + 2)) as usize;

/// Per-thread scratch of the block builds.
#[derive(Default)]
struct BlockScratch {
    voxels: Vec<Voxel>,
    rows: Box<BlockRows<BLOCK_ROWS>>,
}

/// What one block's build gave.
enum BlockBuilt {
    /// Every chunk of these keys is the same (the source's hint said the block's read is uniform):
    /// the voxels' phase code for all of them, so a block of empty space takes a few bytes, not 64
    /// results.
    Uniform(VoxelBox, u8),
    /// The block's keys, and the result of each chunk of them that is not empty (in key order):
    /// a block of mostly empty chunks read from a source without hints costs what it holds.
    Chunks(VoxelBox, Vec<(IVec3, Built)>),
}

/// Builds the masks of every chunk key in `keys`, block by block (in parallel with the `parallel`
/// feature), in block order then key order. Uniform reads (the source's hint) are classified
/// without reading. A read the source refuses fails the whole build with the source's error:
/// the first in block order, whatever the thread count.
fn build_blocks<S: VoxelSource + Sync>(
    source: &S,
    keys: VoxelBox,
    codes: &[u8; 256],
    scratch: &mut Vec<Voxel>,
) -> Result<Vec<BlockBuilt>, voxel_core::Error> {
    let blocks: Vec<IVec3> = VoxelBox::new(
        keys.min.div_euclid(IVec3::splat(BLOCK)),
        (keys.max - IVec3::ONE).div_euclid(IVec3::splat(BLOCK)) + IVec3::ONE,
    )
    .iter()
    .collect();
    let one = |block: &IVec3, scratch: &mut BlockScratch| -> Result<BlockBuilt, voxel_core::Error> {
        let block_keys = VoxelBox::from_min_size(*block * BLOCK, IVec3::splat(BLOCK)).intersection(&keys);
        let read = VoxelBox::new(block_keys.min * CHUNK_EDGE, block_keys.max * CHUNK_EDGE).grow(1);
        // A uniform read (the source's hint, from its metadata) needs no voxels and no masks.
        if let RegionHint::Uniform(v) = source.region_hint(read) {
            let code = if v.distance < 0 { codes[usize::from(v.material)] } else { 0 };
            return Ok(BlockBuilt::Uniform(block_keys, code));
        }
        voxel_core::read_exact(source, read, &mut scratch.voxels)?;
        let size = read.size().as_uvec3();
        scratch.rows.fill(&scratch.voxels, [size.x as usize, size.y as usize, size.z as usize], codes);
        Ok(BlockBuilt::Chunks(
            block_keys,
            block_keys
                .iter()
                .map(|k| {
                    let at = (k * CHUNK_EDGE - IVec3::ONE - read.min).as_uvec3();
                    (k, scratch.rows.chunk([at.x as usize, at.y as usize, at.z as usize]))
                })
                .filter(|(_, built)| classify(built).is_some())
                .collect(),
        ))
    };
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        let _ = scratch;
        // Collected whole, then the first error in block order taken (in place, no second
        // vector): rayon's own `Result` collect returns whichever failed block a thread met first.
        let built: Vec<Result<BlockBuilt, voxel_core::Error>> =
            blocks.par_iter().map_init(BlockScratch::default, |s, b| one(b, s)).collect();
        built.into_iter().collect()
    }
    #[cfg(not(feature = "parallel"))]
    {
        let mut s = BlockScratch { voxels: std::mem::take(scratch), ..BlockScratch::default() };
        // Stops at the first refused read, in block order.
        let built = blocks.iter().map(|b| one(b, &mut s)).collect();
        *scratch = s.voxels;
        built
    }
}
