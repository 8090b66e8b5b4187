//! Compact occupancy: one bit per voxel in 32^3 chunks, with an 8-bit brick mask per chunk and no
//! storage at all for empty chunks.
//!
//! Memory and build time follow the solid chunks, not the world box: chunks are aligned to the
//! origin (chunk `k` is voxels `32 k..32 k + 32`), the build visits only the part of the world box
//! the source's [`VoxelSource::bounds`] says holds anything, and the chunk table is dense only over
//! the box of the stored chunks while that box is small next to them (at most
//! [`GRID_CHUNKS_PER_STORED`] entries per stored chunk, or [`GRID_MIN_CHUNKS`]); chunks outside it
//! (a far edit) sit in a hash map. So an empty world box of any size costs nothing, and growing the
//! box ([`Occupancy::grow_world`]) reads nothing.
//!
//! Seed `002_eedd96a2ecd47c19.txt`, "Map Structure": the world is cut into 32^3 chunks, a chunk
//! that holds no block is left uninitialised, and blocks inside a chunk sit in one flat array. Here
//! a block is one bit (solid or not: all the traversal needs), and the chunk array is the
//! workspace's axis order, so the seed's incremental access offsets become +-1 (x), +-32 (z) and
//! +-1024 (y).

use std::collections::HashMap;

use glam::{IVec3, UVec3, Vec3A};
use voxel_core::{CoordinateLimit, Phase, PhaseTable, RegionHint, Voxel, VoxelBox, VoxelSource};

use crate::RaymarchError;

/// Log2 of [`CHUNK_EDGE`].
pub const CHUNK_BITS: i32 = 5;
/// Edge of an occupancy chunk in voxels: 32, as in the seed. A chunk of bits is 4 KiB, the size
/// of a page; the chunk table stays small (4 bytes per 32768 voxels).
pub const CHUNK_EDGE: i32 = 1 << CHUNK_BITS;
/// Edge of a brick, the unit of empty-space skipping inside a chunk: 16, so a chunk has 2^3
/// bricks and their emptiness fits one byte.
///
/// Chosen by measurement (the crate README, "Brick size"): on two generated terrains, 16^3 bricks
/// made the long and the above-ground rays 9-15% faster than 8^3 bricks, whose many skips cost
/// more than the voxel steps they saved.
pub const BRICK_EDGE: i32 = 16;
/// `u64` words of bits per chunk.
pub(crate) const CHUNK_WORDS: usize = (CHUNK_EDGE * CHUNK_EDGE * CHUNK_EDGE) as usize / 64;
/// World box coordinates must lie within `+-MAX_COORDINATE` (2^23): voxel planes are then exact
/// `f32` integers, with room for the plane one past the last voxel.
pub const MAX_COORDINATE: CoordinateLimit = CoordinateLimit::new(1 << 23);
/// Largest number of chunks one build may visit (2^24, 2^39 voxels): the chunks of the world box
/// that the source's bounds overlap. The world box itself may be larger (up to
/// [`MAX_COORDINATE`]) when the source says where its voxels are.
pub const MAX_CHUNKS: u64 = 1 << 24;
/// The chunk table stays dense over the box of the stored chunks while that box has at most this
/// many chunks per stored chunk (4 bytes each: 256 bytes beside a stored chunk's 4 KiB of bits)...
pub const GRID_CHUNKS_PER_STORED: u64 = 64;
/// ...or at most this many chunks in all (16 KiB of table).
pub const GRID_MIN_CHUNKS: u64 = 4096;
/// Keys visited per batch of a build: the reads' results are held one batch at a time.
const BUILD_BATCH: usize = 4096;
/// Largest dirty box (in voxels, 64^3) a refresh patches from one read of the box itself rather
/// than re-reading its chunks whole.
const PATCH_MAX_VOXELS: u64 = 1 << 18;

/// Chunk table entry of a chunk with no solid voxel.
const EMPTY: u32 = u32::MAX;

/// Solid voxels of a world box, one bit each, chunked; built from any [`VoxelSource`].
///
/// A voxel is solid when it is inside and its material's phase is [`Phase::Solid`] in the source's
/// [`PhaseTable`]; water and air are empty. Voxels outside the world box count as empty.
///
/// Memory follows the solid voxels: [`Occupancy::heap_bytes`] is at most about 4.4 KiB per chunk
/// holding a solid voxel plus 16 KiB, whatever the size of the world box (see the module docs).
///
/// ```text
///  chunk table (4 B per 32^3 chunk, dense over the box of the stored chunks; a map beyond it)
///     │  EMPTY ──► nothing stored; a ray crosses the chunk in one step
///     ▼
///  bits: 512 × u64 per non-empty chunk, bit (x + 32 z + 1024 y) of the chunk-relative voxel
///  bricks: 1 × u8 per non-empty chunk, bit (bx + 2 bz + 4 by) set when brick (bx, by, bz) of
///          16^3 voxels holds a solid voxel; an empty brick is crossed in one step
/// ```
#[derive(Clone, Debug)]
pub struct Occupancy {
    pub(crate) world: VoxelBox,
    /// The chunk keys the dense table covers.
    pub(crate) grid: VoxelBox,
    /// `grid`'s size in chunks (zero when it is empty), for the lookup's unsigned compares.
    grid_size: UVec3,
    /// Per chunk of `grid` (x fastest, then z, then y): [`EMPTY`] or the slot of its bits.
    pub(crate) table: Vec<u32>,
    /// Slots of the stored chunks outside `grid`.
    outside: HashMap<IVec3, u32>,
    /// A box holding the key of every stored chunk (exact after a regrid, grown since).
    key_bounds: VoxelBox,
    /// Chunks stored.
    stored: usize,
    /// [`CHUNK_WORDS`] words per slot.
    pub(crate) bits: Vec<u64>,
    /// One brick mask per slot.
    pub(crate) bricks: Vec<u8>,
    /// Per slot, the box of its solid voxels (voxel-exact, world coordinates).
    solid_boxes: Vec<VoxelBox>,
    /// Slots freed by refreshes that emptied a chunk, reused first.
    free: Vec<u32>,
    /// The box of every solid voxel (exact to the voxel): rays are clipped to it, so a ray that
    /// passes above the terrain costs a slab test (parry's chunk BVH root does the same).
    pub(crate) solid_bounds: VoxelBox,
    /// `solid_bounds` as floats, for the ray setup's lane compares (an empty box compares
    /// false everywhere).
    pub(crate) bounds_lo: Vec3A,
    pub(crate) bounds_hi: Vec3A,
    /// `solid_bounds` grown by [`FAR_ORIGIN`](crate::FAR_ORIGIN): origins outside it take the
    /// far path (every origin is inside when there is no solid voxel).
    pub(crate) far_lo: Vec3A,
    pub(crate) far_hi: Vec3A,
}

/// What one chunk's read produced: its bits, brick mask and the box of its solid voxels.
type ChunkBits = Option<(Box<[u64; CHUNK_WORDS]>, u8, VoxelBox)>;

impl Occupancy {
    /// Builds the occupancy of `world` from `source`, reading one chunk at a time (chunks in
    /// parallel with the `parallel` feature; the result is the same whatever the thread count).
    /// Only the chunks of `world` that the source's [`VoxelSource::bounds`] overlap are visited,
    /// and of those, chunks the source's [`VoxelSource::region_hint`] calls uniform are not read.
    ///
    /// Fails when `world` is empty, reaches beyond [`MAX_COORDINATE`], would visit more than
    /// [`MAX_CHUNKS`] chunks, or when the source refuses a read.
    pub fn build<S: VoxelSource + Sync>(source: &S, world: VoxelBox) -> Result<Self, RaymarchError> {
        check_world(world)?;
        let visit = match source.bounds() {
            Some(b) => world.intersection(&b),
            None => world,
        };
        let keys = visit.chunk_keys(CHUNK_EDGE);
        let chunks = keys.volume();
        if chunks > MAX_CHUNKS {
            return Err(RaymarchError::WorldTooLarge { chunks });
        }
        let mut occ = Occupancy {
            world,
            grid: keys,
            grid_size: grid_size(keys),
            table: vec![EMPTY; chunks as usize],
            outside: HashMap::new(),
            key_bounds: VoxelBox::EMPTY,
            stored: 0,
            bits: Vec::new(),
            bricks: Vec::new(),
            solid_boxes: Vec::new(),
            free: Vec::new(),
            solid_bounds: VoxelBox::EMPTY,
            bounds_lo: Vec3A::ZERO,
            bounds_hi: Vec3A::ZERO,
            far_lo: Vec3A::NEG_INFINITY,
            far_hi: Vec3A::INFINITY,
        };
        // In batches: the reads' results of a whole large world at once took tens of bytes per
        // chunk of the box on top of the table.
        let mut batch = Vec::with_capacity(BUILD_BATCH.min(chunks as usize));
        let mut all = keys.iter();
        loop {
            batch.clear();
            batch.extend(all.by_ref().take(BUILD_BATCH));
            if batch.is_empty() {
                break;
            }
            occ.rebuild_chunks(source, &batch)?;
        }
        // The table shrinks to the stored chunks' box (above the terrain, nothing is stored).
        occ.key_bounds = occ.stored_key_box();
        occ.regrid();
        occ.update_solid_bounds();
        Ok(occ)
    }

    /// Grows the world box to hold `world` as well, reading nothing: the voxels it adds count as
    /// empty until a [`Occupancy::refresh`] reads them (as after an edit there). Costs nothing
    /// however far the box grows.
    ///
    /// Fails (and changes nothing) when the grown box reaches beyond [`MAX_COORDINATE`].
    pub fn grow_world(&mut self, world: VoxelBox) -> Result<(), RaymarchError> {
        if world.is_empty() {
            return Ok(());
        }
        let grown = self.world.union(&world);
        check_world(grown)?;
        self.world = grown;
        Ok(())
    }

    /// Re-reads every chunk that `dirty` touches (for example an edit's `EditReport::dirty` from
    /// `voxel-store`), so the occupancy matches `source` again. The part of `dirty` outside the
    /// world box is ignored; an empty or outside region is a no-op.
    ///
    /// On error (the source refused a read) nothing changes.
    pub fn refresh<S: VoxelSource + Sync>(&mut self, source: &S, dirty: VoxelBox) -> Result<(), RaymarchError> {
        let dirty = dirty.intersection(&self.world);
        if dirty.is_empty() {
            return Ok(());
        }
        let keys: Vec<IVec3> = dirty.chunk_keys(CHUNK_EDGE).iter().collect();
        // A small edit (a dig of radius 3 touches up to eight chunks, 262,144 voxels, for its
        // 1,000) re-reads its own voxels only; a large one re-reads whole chunks in parallel.
        let chunk_volume = (CHUNK_EDGE * CHUNK_EDGE * CHUNK_EDGE) as u64;
        if dirty.volume() <= PATCH_MAX_VOXELS && dirty.volume() * 4 <= keys.len() as u64 * chunk_volume {
            self.patch(source, dirty, &keys)?;
        } else {
            self.rebuild_chunks(source, &keys)?;
        }
        if !self.outside.is_empty() && self.grid_fits(self.key_bounds) {
            self.key_bounds = self.stored_key_box();
            self.regrid();
        }
        self.update_solid_bounds();
        Ok(())
    }

    /// True when a dense table over `keys` stays within the bound of the module docs.
    fn grid_fits(&self, keys: VoxelBox) -> bool {
        keys.volume() <= GRID_MIN_CHUNKS.max(GRID_CHUNKS_PER_STORED.saturating_mul(self.stored as u64))
    }

    /// The box of the keys of every stored chunk.
    fn stored_key_box(&self) -> VoxelBox {
        let mut keys = VoxelBox::EMPTY;
        for (i, &slot) in self.table.iter().enumerate() {
            if slot != EMPTY {
                let key = self.grid.point_at(i).expect("a table index lies in the grid");
                keys = keys.union(&VoxelBox::from_min_size(key, IVec3::ONE));
            }
        }
        for key in self.outside.keys() {
            keys = keys.union(&VoxelBox::from_min_size(*key, IVec3::ONE));
        }
        keys
    }

    /// Makes the table dense over `key_bounds` (every stored chunk inside it, the map empty) when
    /// that box fits the bound. Otherwise a table that itself no longer fits (a build over a
    /// large box whose few solid chunks lie far apart) gives way to the map; one that fits stays.
    fn regrid(&mut self) {
        let grid = if self.grid_fits(self.key_bounds) {
            self.key_bounds
        } else if self.grid_fits(self.grid) {
            return;
        } else {
            VoxelBox::EMPTY
        };
        if grid == self.grid && self.outside.is_empty() {
            return;
        }
        let mut table = vec![EMPTY; grid.volume() as usize];
        let mut outside = HashMap::new();
        let old = self
            .table
            .iter()
            .enumerate()
            .filter(|(_, s)| **s != EMPTY)
            .map(|(i, &slot)| (self.grid.point_at(i).expect("a table index lies in the grid"), slot));
        for (key, slot) in old.chain(self.outside.iter().map(|(k, s)| (*k, *s))) {
            match grid.index_of(key) {
                Some(i) => table[i] = slot,
                None => {
                    outside.insert(key, slot);
                }
            }
        }
        self.grid = grid;
        self.grid_size = grid_size(grid);
        self.table = table;
        self.outside = outside;
    }

    /// Recomputes the box of the solid voxels and its float copy for the ray setup.
    fn update_solid_bounds(&mut self) {
        self.solid_bounds = self.voxel_bounds();
        (self.bounds_lo, self.bounds_hi) = if self.solid_bounds.is_empty() {
            (Vec3A::ZERO, Vec3A::ZERO)
        } else {
            (self.solid_bounds.min.as_vec3a(), self.solid_bounds.max.as_vec3a())
        };
        (self.far_lo, self.far_hi) = if self.solid_bounds.is_empty() {
            (Vec3A::NEG_INFINITY, Vec3A::INFINITY)
        } else {
            (self.bounds_lo - crate::FAR_ORIGIN, self.bounds_hi + crate::FAR_ORIGIN)
        };
    }

    /// Reads the chunks `keys` and stores their bits, all or nothing.
    fn rebuild_chunks<S: VoxelSource + Sync>(&mut self, source: &S, keys: &[IVec3]) -> Result<(), RaymarchError> {
        let solid = solid_materials(source.phase_table());
        let world = self.world;
        let read = |buf: &mut Vec<Voxel>, key: IVec3| chunk_bits(source, &solid, world, key, buf);
        #[cfg(feature = "parallel")]
        let results: Vec<Result<ChunkBits, RaymarchError>> = {
            use rayon::prelude::*;
            keys.par_iter().map_init(Vec::new, |buf, &key| read(buf, key)).collect()
        };
        #[cfg(not(feature = "parallel"))]
        let results: Vec<Result<ChunkBits, RaymarchError>> = {
            let mut buf = Vec::new();
            keys.iter().map(|&key| read(&mut buf, key)).collect()
        };
        // Check every read before storing any, so a failed refresh leaves the occupancy as it was.
        let results: Vec<ChunkBits> = results.into_iter().collect::<Result<_, _>>()?;
        // Stored in key order, so slots (and memory) do not depend on the thread count.
        for (key, result) in keys.iter().zip(results) {
            self.store_chunk(*key, result);
        }
        Ok(())
    }

    /// Rewrites the bits of the voxels of `dirty` (inside the world box; its chunks are `keys`)
    /// from one read of that box, then recomputes the brick mask and solid box of each chunk from
    /// its bits. The read is the only step that can fail, so a failed patch changes nothing.
    fn patch<S: VoxelSource>(&mut self, source: &S, dirty: VoxelBox, keys: &[IVec3]) -> Result<(), RaymarchError> {
        let solid = solid_materials(source.phase_table());
        let is_solid = |v: Voxel| v.distance < 0 && solid[v.material as usize];
        let mut buf = Vec::new();
        voxel_core::read_exact(source, dirty, &mut buf).map_err(RaymarchError::Source)?;
        let size = dirty.size();
        let (sx, sz) = (size.x as usize, size.z as usize);
        for &key in keys {
            let min = key * CHUNK_EDGE;
            let part = VoxelBox::from_min_size(min, IVec3::splat(CHUNK_EDGE)).intersection(&dirty);
            // Row `z + 32 y` of the part, as the bits of its x range (`range`) and its solid voxels.
            let x0 = (part.min.x - dirty.min.x) as usize;
            let width = (part.max.x - part.min.x) as usize;
            let shift = part.min.x - min.x;
            let range = (u32::MAX >> (32 - width)) << shift;
            let rows = (part.min.y..part.max.y).flat_map(|y| (part.min.z..part.max.z).map(move |z| (y, z)));
            let row_bits = |(y, z): (i32, i32)| {
                let start = x0 + sx * ((z - dirty.min.z) as usize + sz * (y - dirty.min.y) as usize);
                let word = buf[start..start + width]
                    .iter()
                    .enumerate()
                    .fold(0u32, |w, (x, v)| w | u32::from(is_solid(*v)) << x);
                ((z - min.z) as usize + CHUNK_EDGE as usize * (y - min.y) as usize, word << shift)
            };
            let mut slot = self.slot(key);
            if slot == EMPTY {
                // Nothing stored: only new solid voxels need a slot.
                if rows.clone().all(|r| row_bits(r).1 == 0) {
                    continue;
                }
                slot = self.take_slot(key);
                self.bits[slot as usize * CHUNK_WORDS..][..CHUNK_WORDS].fill(0);
            }
            let words = &mut self.bits[slot as usize * CHUNK_WORDS..][..CHUNK_WORDS];
            for (row, word) in rows.map(row_bits) {
                let half = 32 * (row & 1);
                let w = &mut words[row >> 1];
                *w = (*w & !(u64::from(range) << half)) | u64::from(word) << half;
            }
            match summarize(words) {
                None => self.release_slot(key, slot),
                Some((mask, lo, hi)) => {
                    self.bricks[slot as usize] = mask;
                    self.solid_boxes[slot as usize] = VoxelBox::new(min + lo, min + hi);
                }
            }
        }
        Ok(())
    }

    /// The box of every solid voxel: one pass over the chunk table.
    fn voxel_bounds(&self) -> VoxelBox {
        let mut bounds = VoxelBox::EMPTY;
        for &slot in self.table.iter().chain(self.outside.values()) {
            if slot != EMPTY {
                bounds = bounds.union(&self.solid_boxes[slot as usize]);
            }
        }
        bounds
    }

    fn store_chunk(&mut self, key: IVec3, result: ChunkBits) {
        let old = self.slot(key);
        match result {
            None => {
                if old != EMPTY {
                    self.release_slot(key, old);
                }
            }
            Some((bits, mask, solid_box)) => {
                let slot = if old != EMPTY { old } else { self.take_slot(key) };
                let start = slot as usize * CHUNK_WORDS;
                self.bits[start..start + CHUNK_WORDS].copy_from_slice(&bits[..]);
                self.bricks[slot as usize] = mask;
                self.solid_boxes[slot as usize] = solid_box;
            }
        }
    }

    /// A slot for chunk `key`, which has none: a freed one or a new one at the end, registered as
    /// the chunk's. Its bits are the caller's to write.
    fn take_slot(&mut self, key: IVec3) -> u32 {
        let slot = match self.free.pop() {
            Some(slot) => slot,
            None => {
                self.bits.resize(self.bits.len() + CHUNK_WORDS, 0);
                self.bricks.push(0);
                self.solid_boxes.push(VoxelBox::EMPTY);
                self.bricks.len() as u32 - 1
            }
        };
        self.set_slot(key, slot);
        self.stored += 1;
        self.key_bounds = self.key_bounds.union(&VoxelBox::from_min_size(key, IVec3::ONE));
        slot
    }

    /// Chunk `key` holds no solid voxel any more: its slot goes back to the free list.
    fn release_slot(&mut self, key: IVec3, slot: u32) {
        self.free.push(slot);
        self.set_slot(key, EMPTY);
        self.stored -= 1;
    }

    /// The slot of chunk `key` (voxels `key * 32..key * 32 + 32`), or [`EMPTY`]. Read once per
    /// chunk a ray crosses: the grid test is three unsigned compares, the map out of line.
    #[inline(always)]
    pub(crate) fn slot(&self, key: IVec3) -> u32 {
        // A key below the grid wraps to a large unsigned value and fails the compare.
        let d = key.wrapping_sub(self.grid.min).as_uvec3();
        let size = self.grid_size;
        if d.x < size.x && d.y < size.y && d.z < size.z {
            self.table[(d.x + size.x * (d.z + size.z * d.y)) as usize]
        } else {
            self.slot_outside(key)
        }
    }

    #[inline(never)]
    fn slot_outside(&self, key: IVec3) -> u32 {
        if self.outside.is_empty() { EMPTY } else { self.outside.get(&key).copied().unwrap_or(EMPTY) }
    }

    fn set_slot(&mut self, key: IVec3, slot: u32) {
        match self.grid.index_of(key) {
            Some(i) => self.table[i] = slot,
            None if slot == EMPTY => {
                self.outside.remove(&key);
            }
            None => {
                self.outside.insert(key, slot);
            }
        }
    }

    /// The world box this occupancy covers; everything outside it is empty.
    #[inline]
    pub fn world(&self) -> VoxelBox {
        self.world
    }

    /// True when voxel `p` is solid. Looks the chunk up on every call: for single queries, not
    /// for walking along a ray (that is what [`Occupancy::cast`] is for).
    #[inline]
    pub fn is_solid(&self, p: IVec3) -> bool {
        if !self.world.contains(p) {
            return false;
        }
        let slot = self.slot(p >> CHUNK_BITS);
        if slot == EMPTY {
            return false;
        }
        let local = p & (CHUNK_EDGE - 1);
        let bit = (local.x + CHUNK_EDGE * (local.z + CHUNK_EDGE * local.y)) as usize;
        self.bits[slot as usize * CHUNK_WORDS + (bit >> 6)] >> (bit & 63) & 1 != 0
    }

    /// Chunks that hold at least one solid voxel (the others take no storage).
    pub fn stored_chunks(&self) -> usize {
        self.stored
    }

    /// Bytes held on the heap: the chunk table and map, the bits and brick masks of stored chunks
    /// (and of slots freed by refreshes, kept for reuse).
    pub fn heap_bytes(&self) -> usize {
        self.table.capacity() * 4
            + self.outside.capacity() * (size_of::<(IVec3, u32)>() + 1)
            + self.bits.capacity() * 8
            + self.bricks.capacity()
            + self.solid_boxes.capacity() * size_of::<VoxelBox>()
            + self.free.capacity() * 4
    }

    /// [`Occupancy::heap_bytes`] per voxel of the world box.
    pub fn bytes_per_voxel(&self) -> f64 {
        self.heap_bytes() as f64 / self.world.volume() as f64
    }
}

/// The size of a box of chunk keys, zero on every axis when it is empty.
fn grid_size(keys: VoxelBox) -> UVec3 {
    if keys.is_empty() { UVec3::ZERO } else { (keys.max - keys.min).as_uvec3() }
}

/// Checks that `world` is non-empty and within [`MAX_COORDINATE`].
fn check_world(world: VoxelBox) -> Result<(), RaymarchError> {
    if world.is_empty() {
        return Err(RaymarchError::EmptyWorld);
    }
    if !MAX_COORDINATE.contains_box(world) {
        return Err(RaymarchError::CoordinateOutOfRange);
    }
    Ok(())
}

/// Which of the 256 materials are solid.
fn solid_materials(table: &PhaseTable) -> [bool; 256] {
    core::array::from_fn(|m| table.phase(m as u8) == Phase::Solid)
}

/// A chunk's brick mask and the box of its solid voxels (chunk-relative: `lo` inclusive, `hi`
/// exclusive), grown row by row.
struct RowSummary {
    mask: u8,
    lo: IVec3,
    hi: IVec3,
}

impl RowSummary {
    const EMPTY: Self = Self { mask: 0, lo: IVec3::splat(CHUNK_EDGE), hi: IVec3::ZERO };

    /// Adds row `(z, y)` of the chunk, a non-zero word of its solid bits along x.
    fn add(&mut self, z: usize, y: usize, word: u32) {
        let row = IVec3::new(0, y as i32, z as i32);
        self.lo = self.lo.min(row.with_x(word.trailing_zeros() as i32));
        self.hi = self.hi.max((row + IVec3::ONE).with_x(32 - word.leading_zeros() as i32));
        // Two bricks of 16 along x (the mask layout `bx + 2 bz + 4 by` assumes 16^3 bricks).
        const { assert!(BRICK_EDGE == 16 && CHUNK_EDGE == 32) };
        for bx in 0..2 {
            if word >> (16 * bx) & 0xffff != 0 {
                self.mask |= 1 << (bx + 2 * (z / 16) + 4 * (y / 16));
            }
        }
    }

    /// The mask and box, or `None` when no row had a solid voxel.
    fn finish(self) -> Option<(u8, IVec3, IVec3)> {
        (self.mask != 0).then_some((self.mask, self.lo, self.hi))
    }
}

/// The brick mask and solid box of a chunk's stored bits; `None` when no bit is set.
fn summarize(words: &[u64]) -> Option<(u8, IVec3, IVec3)> {
    let mut summary = RowSummary::EMPTY;
    for (i, &pair) in words.iter().enumerate().filter(|(_, w)| **w != 0) {
        for half in 0..2 {
            let word = (pair >> (32 * half)) as u32;
            if word != 0 {
                let row_index = 2 * i + half;
                summary.add(row_index % CHUNK_EDGE as usize, row_index / CHUNK_EDGE as usize, word);
            }
        }
    }
    summary.finish()
}

/// The bits of chunk `key`, or `None` when it holds no solid voxel.
fn chunk_bits<S: VoxelSource>(
    source: &S,
    solid: &[bool; 256],
    world: VoxelBox,
    key: IVec3,
    buf: &mut Vec<Voxel>,
) -> Result<ChunkBits, RaymarchError> {
    let min = key * CHUNK_EDGE;
    // A chunk may reach past the world box; its outside part stays empty.
    let region = VoxelBox::from_min_size(min, IVec3::splat(CHUNK_EDGE)).intersection(&world);
    let is_solid = |v: Voxel| v.distance < 0 && solid[v.material as usize];
    if let RegionHint::Uniform(v) = source.region_hint(region) {
        if !is_solid(v) {
            return Ok(None);
        }
    }
    voxel_core::read_exact(source, region, buf).map_err(RaymarchError::Source)?;
    let size = region.size();
    let (sx, sz) = (size.x as usize, size.z as usize);
    // Where the read starts in the chunk: a world box that does not start on a chunk boundary
    // cuts its first chunks.
    let offset = region.min - min;
    let mut bits = Box::new([0u64; CHUNK_WORDS]);
    let mut summary = RowSummary::EMPTY;
    // One row of up to 32 voxels along x becomes one half of a word: rows z and z + 1 share it.
    for (r, row) in buf.chunks_exact(sx).enumerate() {
        let (z, y) = (r % sz + offset.z as usize, r / sz + offset.y as usize);
        let mut word = 0u32;
        for (x, v) in row.iter().enumerate() {
            word |= u32::from(is_solid(*v)) << (x + offset.x as usize);
        }
        if word == 0 {
            continue;
        }
        summary.add(z, y, word);
        let row_index = z + CHUNK_EDGE as usize * y;
        bits[row_index >> 1] |= u64::from(word) << (32 * (row_index & 1));
    }
    Ok(summary.finish().map(|(mask, lo, hi)| (bits, mask, VoxelBox::new(min + lo, min + hi))))
}

#[cfg(test)]
mod tests {
    use glam::Vec3;
    use voxel_store::Brush;
    use voxel_store::generate::{Terrain, terrain};
    use voxel_testdata::Rng;

    use super::*;

    /// The brick mask and solid box of every stored chunk, by key, and the solid bounds.
    fn summary(occ: &Occupancy, keys: VoxelBox) -> (Vec<(IVec3, u8, VoxelBox)>, VoxelBox, usize) {
        let chunks = keys
            .iter()
            .filter_map(|k| {
                let slot = occ.slot(k);
                (slot != EMPTY).then(|| (k, occ.bricks[slot as usize], occ.solid_boxes[slot as usize]))
            })
            .collect();
        (chunks, occ.solid_bounds, occ.stored)
    }

    /// Small edits take the patch path: bits, brick masks, solid boxes and bounds equal a fresh
    /// build's, through digs that empty chunks and additions in chunks that held nothing.
    #[test]
    fn patched_refreshes_equal_a_fresh_build() {
        let size = IVec3::new(80, 64, 72);
        let mut store = terrain(&Terrain::new(size, 9)).unwrap();
        let world = VoxelBox::new(IVec3::ZERO, size);
        let mut occ = Occupancy::build(&store, world).unwrap();
        let keys = world.chunk_keys(CHUNK_EDGE);
        let mut rng = Rng(23);
        let mut patched = 0;
        for i in 0..60 {
            let center = Vec3::new(rng.range(0.0, 80.0), rng.range(0.0, 64.0), rng.range(0.0, 72.0));
            let brush = Brush::Sphere { center, radius: rng.range(0.5, 6.0) };
            // Every fourth edit adds in the air (chunks with nothing stored), the others dig and fill.
            let report = match i % 4 {
                0 => store.subtract(&brush),
                1 => store.add(&brush, 3),
                2 => store.subtract(&Brush::Box { center, half_extents: Vec3::new(40.0, 2.0, 1.5) }),
                _ => store.add(&Brush::Sphere { center: center.with_y(rng.range(50.0, 63.0)), radius: 2.0 }, 3),
            }
            .unwrap();
            let d = report.dirty.intersection(&world);
            if d.volume() * 4 <= d.chunk_keys(CHUNK_EDGE).volume() * (CHUNK_EDGE as u64).pow(3) {
                patched += 1;
            }
            occ.refresh(&store, report.dirty).unwrap();
            let fresh = Occupancy::build(&store, world).unwrap();
            assert_eq!(summary(&occ, keys), summary(&fresh, keys), "edit {i}");
            for k in keys.iter() {
                let (a, b) = (occ.slot(k), fresh.slot(k));
                if a != EMPTY {
                    let bits = |o: &Occupancy, s: u32| o.bits[s as usize * CHUNK_WORDS..][..CHUNK_WORDS].to_vec();
                    assert_eq!(bits(&occ, a), bits(&fresh, b), "edit {i}, chunk {k}");
                }
            }
        }
        assert!(patched >= 40, "{patched} of 60 edits took the patch path");
    }
}
