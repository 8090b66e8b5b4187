//! The sparse chunk map and its `VoxelSource` reads.

use std::sync::Arc;

use ahash::AHashMap;
use glam::IVec3;
use voxel_core::{PhaseTable, RegionHint, Voxel, VoxelBox, VoxelSource};

use crate::Palette;
use crate::chunk::{CHUNK_BITS, CHUNK_EDGE, Chunk, EDGE, Row, fill_run};

/// A sparse voxel world: a hash map from chunk key to chunk, plus the material palette.
///
/// Chunks are [`CHUNK_EDGE`]³ voxels. A chunk that reads as [`Voxel::EMPTY`] everywhere takes no
/// entry; a chunk of one repeated voxel is stored as that voxel; a chunk the surface crosses is
/// row-packed after [`VoxelStore::compact`] (edits work on a dense copy until then). World
/// coordinates are `i32` voxel coordinates, negative included.
///
/// Reads take `&self`, edits `&mut self`; for readers on other threads while a writer edits, see
/// [`SharedStore`](crate::SharedStore).
///
/// ```
/// use glam::IVec3;
/// use voxel_core::{Phase, Voxel, VoxelBox, VoxelSource};
/// use voxel_store::VoxelStore;
///
/// let mut store = VoxelStore::new();
/// let rock = store.palette_mut().add("rock", Phase::Solid, [128, 128, 128, 255]).unwrap();
/// store.set(IVec3::new(-1, 5, 40), Voxel::new(-20, rock)).unwrap();
/// assert_eq!(store.get(IVec3::new(-1, 5, 40)), Voxel::new(-20, rock));
/// assert_eq!(store.get(IVec3::new(9, 9, 9)), Voxel::EMPTY);
///
/// let mut buf = Vec::new();
/// store.read_region(VoxelBox::new(IVec3::new(-2, 5, 40), IVec3::new(1, 6, 41)), &mut buf).unwrap();
/// assert_eq!(buf, [Voxel::EMPTY, Voxel::new(-20, rock), Voxel::EMPTY]);
/// ```
#[derive(Clone, Debug, Default)]
pub struct VoxelStore {
    pub(crate) chunks: AHashMap<IVec3, Arc<Chunk>>,
    pub(crate) palette: Palette,
    /// Union of the boxes of every chunk ever stored; grows, never shrinks (still a valid bound).
    pub(crate) bounds: VoxelBox,
    /// Chunks turned dense by edits since the last `compact`.
    pub(crate) hot: Vec<IVec3>,
}

/// Where a store's memory goes, from [`VoxelStore::memory`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryStats {
    /// Chunks stored as one voxel.
    pub uniform_chunks: usize,
    /// Row-packed chunks.
    pub packed_chunks: usize,
    /// Dense chunks (edited since the last compaction, or too mixed to pack).
    pub dense_chunks: usize,
    /// Mixed rows over all chunks (a dense chunk counts all its rows).
    pub mixed_rows: usize,
    /// Bytes in use: chunk data, packing tables, chunk slots and the hash map's table.
    pub bytes: usize,
}

impl MemoryStats {
    /// Bytes per voxel of `world`.
    pub fn bytes_per_voxel(&self, world: VoxelBox) -> f64 {
        self.bytes as f64 / world.volume().max(1) as f64
    }
}

/// Chunk key of a voxel (floor division by the edge, so negative coordinates work).
#[inline]
pub(crate) fn chunk_key(p: IVec3) -> IVec3 {
    p >> CHUNK_BITS as i32
}

/// Index of a voxel inside its chunk.
#[inline]
pub(crate) fn local_index(p: IVec3) -> usize {
    let l = p & (CHUNK_EDGE - 1);
    l.x as usize + EDGE * (l.z as usize + EDGE * l.y as usize)
}

impl VoxelStore {
    /// An empty world with a palette of one material (0, air).
    pub fn new() -> Self {
        Self::with_palette(Palette::new())
    }

    /// An empty world with the given palette.
    pub fn with_palette(palette: Palette) -> Self {
        Self { chunks: AHashMap::new(), palette, bounds: VoxelBox::EMPTY, hot: Vec::new() }
    }

    /// The palette.
    #[inline]
    pub fn palette(&self) -> &Palette {
        &self.palette
    }

    /// The palette, to add materials. Materials cannot be removed, so stored indices stay valid.
    #[inline]
    pub fn palette_mut(&mut self) -> &mut Palette {
        &mut self.palette
    }

    /// The voxel at `p`.
    #[inline]
    pub fn get(&self, p: IVec3) -> Voxel {
        self.chunks.get(&chunk_key(p)).map_or(Voxel::EMPTY, |c| c.get(local_index(p)))
    }

    /// Number of chunks stored.
    #[inline]
    pub fn chunk_count(&self) -> usize {
        self.chunks.len()
    }

    /// Keys of all stored chunks, sorted (so iteration order never depends on the hash map).
    pub fn chunk_keys(&self) -> Vec<IVec3> {
        let mut keys: Vec<IVec3> = self.chunks.keys().copied().collect();
        keys.sort_unstable_by_key(|k| (k.y, k.z, k.x));
        keys
    }

    /// Packs every chunk edited since the last call into its smallest form, and drops chunks that
    /// became empty. Call it when a burst of edits is over (edits work on dense chunks, 2 bytes per
    /// voxel; packed terrain chunks take a small fraction of that).
    pub fn compact(&mut self) {
        for key in std::mem::take(&mut self.hot) {
            self.compact_chunk(key);
        }
    }

    pub(crate) fn compact_chunk(&mut self, key: IVec3) {
        let Some(chunk) = self.chunks.get_mut(&key) else { return };
        Arc::make_mut(chunk).compact();
        if chunk.uniform() == Some(Voxel::EMPTY) {
            self.chunks.remove(&key);
        }
    }

    /// Bytes in use (`memory().bytes`): the total every crate of the workspace reports as
    /// `heap_bytes`; [`VoxelStore::memory`] breaks it down.
    pub fn heap_bytes(&self) -> usize {
        self.memory().bytes
    }

    /// Memory in use, counted from the chunk forms (the bench checks it against a counting
    /// allocator).
    pub fn memory(&self) -> MemoryStats {
        let mut stats = MemoryStats::default();
        for chunk in self.chunks.values() {
            match **chunk {
                Chunk::Uniform(_) => stats.uniform_chunks += 1,
                Chunk::Packed(_) => stats.packed_chunks += 1,
                Chunk::Dense(_) => stats.dense_chunks += 1,
            }
            stats.mixed_rows += chunk.mixed_rows();
            // Arc header (two counters) + the enum + what it owns.
            stats.bytes += 2 * size_of::<usize>() + size_of::<Chunk>() + chunk.heap_bytes();
        }
        let slot = size_of::<IVec3>() + size_of::<Arc<Chunk>>() + 1;
        stats.bytes += self.chunks.capacity() * slot + self.hot.capacity() * size_of::<IVec3>();
        stats
    }

    /// Inserts a chunk, growing the bounds; an all-empty uniform chunk is removed instead.
    pub(crate) fn insert_chunk(&mut self, key: IVec3, chunk: Chunk) {
        if chunk.uniform() == Some(Voxel::EMPTY) {
            self.chunks.remove(&key);
            return;
        }
        self.bounds = self.bounds.union(&VoxelBox::chunk(key, CHUNK_EDGE));
        self.chunks.insert(key, Arc::new(chunk));
    }

    /// The chunk at `key` as dense voxels, created (empty) when missing and recorded as hot.
    pub(crate) fn dense_chunk_mut(&mut self, key: IVec3) -> &mut [Voxel] {
        let chunk = self.chunks.entry(key).or_insert_with(|| Arc::new(Chunk::Uniform(Voxel::EMPTY)));
        let chunk = Arc::make_mut(chunk);
        if !matches!(chunk, Chunk::Dense(_)) {
            self.hot.push(key);
            self.bounds = self.bounds.union(&VoxelBox::chunk(key, CHUNK_EDGE));
        }
        chunk.make_dense()
    }

    pub(crate) fn chunk(&self, key: IVec3) -> Option<&Chunk> {
        self.chunks.get(&key).map(|c| &**c)
    }
}

/// Past this many chunks, the region hint answers `Unknown` instead of visiting them all.
const HINT_CHUNK_LIMIT: u64 = 4096;

impl VoxelSource for VoxelStore {
    fn fill_region(&self, region: VoxelBox, out: &mut [Voxel]) {
        fill_region_from(|k| self.chunk(k), region, out);
    }

    fn region_hint(&self, region: VoxelBox) -> RegionHint {
        hint_from(|k| self.chunk(k), region)
    }

    fn phase_table(&self) -> &PhaseTable {
        self.palette.phases()
    }

    fn bounds(&self) -> Option<VoxelBox> {
        Some(self.bounds)
    }
}

/// Region read over any chunk lookup: one pass over the chunks the region touches, with the chunk
/// form matched once per chunk (not per row) so each inner loop is a plain fill or copy per row.
pub(crate) fn fill_region_from<'a>(lookup: impl Fn(IVec3) -> Option<&'a Chunk>, region: VoxelBox, out: &mut [Voxel]) {
    if region.is_empty() || out.len() as u64 != region.volume() {
        return; // outside `fill_region`'s contract: a documented no-op
    }
    let keys = region.chunk_keys(CHUNK_EDGE);
    let size = region.size();
    let (sx, sz) = (size.x as usize, size.z as usize);
    for ky in keys.min.y..keys.max.y {
        for kz in keys.min.z..keys.max.z {
            for kx in keys.min.x..keys.max.x {
                let key = IVec3::new(kx, ky, kz);
                let inside = region.intersection(&VoxelBox::chunk(key, CHUNK_EDGE));
                if inside.is_empty() {
                    continue;
                }
                let len = (inside.max.x - inside.min.x) as usize;
                let x_local = (inside.min.x & (CHUNK_EDGE - 1)) as usize;
                let x_out = (inside.min.x - region.min.x) as usize;
                let (z0, z1) =
                    ((inside.min.z & (CHUNK_EDGE - 1)) as usize, ((inside.max.z - 1) & (CHUNK_EDGE - 1)) as usize + 1);
                let z_out = (inside.min.z - region.min.z) as usize;
                let part = Part {
                    y: inside.min.y..inside.max.y,
                    z0,
                    z1,
                    o0: x_out + sx * z_out,
                    sx,
                    sz,
                    y_out0: region.min.y,
                };
                match lookup(key) {
                    None => part.for_each_row(|_, o| fill_run(&mut out[o..o + len], Voxel::EMPTY)),
                    Some(Chunk::Uniform(v)) => part.for_each_row(|_, o| fill_run(&mut out[o..o + len], *v)),
                    Some(Chunk::Dense(d)) => part.for_each_row(|r, o| {
                        Row::Voxels(&d[r * EDGE..(r + 1) * EDGE]).copy_to(x_local, &mut out[o..o + len]);
                    }),
                    Some(Chunk::Packed(p)) => {
                        // Rows of one y slice are consecutive: one cursor per slice, then steps.
                        for y in inside.min.y..inside.max.y {
                            let mut cursor = p.cursor(EDGE * (y & (CHUNK_EDGE - 1)) as usize + z0);
                            let mut o = x_out + sx * (z_out + sz * (y - region.min.y) as usize);
                            for _ in z0..z1 {
                                p.next_row(&mut cursor).copy_to(x_local, &mut out[o..o + len]);
                                o += sx;
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The rows of one chunk that a region read covers.
struct Part {
    y: core::ops::Range<i32>,
    z0: usize,
    z1: usize,
    /// Output offset of the part's first row, before the y term.
    o0: usize,
    sx: usize,
    sz: usize,
    y_out0: i32,
}

impl Part {
    /// Calls `f(chunk-local row, output offset)` for every row. Plain nested loops, generic so `f`
    /// inlines: a `flat_map` here cost a third of the read, a `dyn FnMut` a fifth.
    #[inline(always)]
    fn for_each_row(&self, mut f: impl FnMut(usize, usize)) {
        for y in self.y.clone() {
            let r0 = EDGE * (y & (CHUNK_EDGE - 1)) as usize;
            let mut o = self.o0 + self.sx * self.sz * (y - self.y_out0) as usize;
            for z in self.z0..self.z1 {
                f(r0 + z, o);
                o += self.sx;
            }
        }
    }
}

/// The uniform hint from chunk metadata only: every touched chunk missing (empty) or uniform with
/// the same voxel.
pub(crate) fn hint_from<'a>(lookup: impl Fn(IVec3) -> Option<&'a Chunk>, region: VoxelBox) -> RegionHint {
    let keys = region.chunk_keys(CHUNK_EDGE);
    if region.is_empty() || keys.volume() > HINT_CHUNK_LIMIT {
        return RegionHint::Unknown;
    }
    let mut common = None;
    for key in keys.iter() {
        let voxel = match lookup(key) {
            None => Voxel::EMPTY,
            Some(chunk) => match chunk.uniform() {
                Some(v) => v,
                None => return RegionHint::Unknown,
            },
        };
        if *common.get_or_insert(voxel) != voxel {
            return RegionHint::Unknown;
        }
    }
    common.map_or(RegionHint::Unknown, RegionHint::Uniform)
}
