//! Where each chunk's data lives: a dense grid over the region the broadphase was built for, and a
//! hash map for chunks outside it.
//!
//! The overlap test visits 1 to 8 chunks for a character-sized box; a hash lookup per chunk cost
//! more than the mask tests themselves, so the built region gets a flat array of 4-byte entries
//! (0.06 bit per voxel).

use ahash::AHashMap;
use glam::IVec3;
use voxel_core::VoxelBox;

/// Grids larger than this many chunks (16 MiB of entries) are not allocated; such worlds use the map.
const MAX_GRID_CHUNKS: u64 = 1 << 22;

/// A chunk entry: `EMPTY`, `FULL_SOLID`, `FULL_WATER`, or a partial chunk's `slot << 1 | has_water`
/// with `slot >= FIRST_SLOT`: its solid mask at `slot`, its water mask at `slot + 1` when it has one.
///
/// The encoding lets the overlap test find both masks without a branch: `code >> 1` is the solid
/// slot and `(code & 1) * ((code >> 1) + 1)` the water slot ([`solid_slot`], [`water_slot`]).
/// For the three tags these land on slot 0, which always holds an empty mask, and slot 1, which
/// always holds a full one: `FULL_SOLID`'s solid slot and `FULL_WATER`'s water slot. So a tag
/// needs no test of its own: the box's bits in a full chunk are never empty, and they meet a
/// full mask.
pub(crate) type Code = u32;
pub(crate) const EMPTY: Code = 0;
pub(crate) const FULL_WATER: Code = 1;
pub(crate) const FULL_SOLID: Code = 2;
/// The first mask slot a partial chunk can use: slot 0 stays empty, slot 1 full.
pub(crate) const FIRST_SLOT: u32 = 2;

/// The code of a partial chunk whose masks start at `slot`.
#[inline]
pub(crate) fn partial(slot: u32, has_water: bool) -> Code {
    debug_assert!(slot >= FIRST_SLOT);
    slot << 1 | Code::from(has_water)
}

#[inline]
pub(crate) fn is_partial(code: Code) -> bool {
    code >= FIRST_SLOT << 1
}

/// The slot of the solid mask of `code` (the full slot for `FULL_SOLID`, the empty one for the
/// other tags).
#[inline]
pub(crate) fn solid_slot(code: Code) -> usize {
    (code >> 1) as usize
}

/// The byte offset of `code`'s solid mask in the slot array, `solid_slot(code) * 64` (a slot is
/// 64 bytes) as one AND and one shift; a chunk with water has its water mask 64 bytes after it.
#[inline(always)]
pub(crate) fn solid_offset(code: Code) -> usize {
    ((code & !1) as usize) << 5
}

/// The slot of the water mask of `code` (the full slot for `FULL_WATER`, the empty one for the
/// other tags and for chunks without water).
#[inline]
pub(crate) fn water_slot(code: Code) -> usize {
    ((code & 1) * ((code >> 1) + 1)) as usize
}

#[derive(Clone, Debug, Default)]
pub(crate) struct ChunkIndex {
    keys: VoxelBox,
    /// The grid's size in keys, and its row and slice strides.
    size: IVec3,
    strides: [usize; 2],
    /// `keys.min` and `size` again, as four lanes each: the SSE2 small query loads each in one
    /// move, where building them from the `IVec3`s took a few lane inserts per query.
    keys_min_lanes: [i32; 4],
    size_lanes: [i32; 4],
    grid: Vec<Code>,
    outside: AHashMap<IVec3, Code>,
    stored: usize,
}

impl ChunkIndex {
    /// An index with a dense grid over `keys` (chunk keys), when that is small enough.
    pub(crate) fn with_grid(keys: VoxelBox) -> Self {
        let volume = keys.volume();
        if volume == 0 || volume > MAX_GRID_CHUNKS {
            return Self::default();
        }
        let size = keys.max - keys.min;
        let strides = [size.x as usize, (size.x * size.z) as usize];
        Self {
            keys,
            size,
            strides,
            keys_min_lanes: [keys.min.x, keys.min.y, keys.min.z, 0],
            size_lanes: [size.x, size.y, size.z, 0],
            grid: vec![EMPTY; volume as usize],
            outside: AHashMap::new(),
            stored: 0,
        }
    }

    #[inline]
    pub(crate) fn get(&self, key: IVec3) -> Code {
        // Inside the grid the differences are small (MAX_GRID_CHUNKS); outside, any key is fine
        // because nothing is subtracted.
        if self.keys.contains(key) {
            let d = key - self.keys.min;
            let [sx, sxz] = self.strides;
            self.grid[d.x as usize + sx * d.z as usize + sxz * d.y as usize]
        } else if self.outside.is_empty() {
            EMPTY
        } else {
            self.outside.get(&key).copied().unwrap_or(EMPTY)
        }
    }

    /// The grid index of key `lo` when the keys `lo..=lo + two` (`two` 0 or 1 per axis) lie
    /// inside the grid: the small query's check, in unsigned compares against the stored size.
    #[inline(always)]
    pub(crate) fn grid_start_small(&self, lo: IVec3, two: IVec3) -> Option<usize> {
        let d = lo - self.keys.min;
        // A key below the grid wraps to a huge unsigned offset; `size - two` is -1 where there is
        // no grid (size 0), so it is clamped to 0 and nothing is inside.
        let inside = |i: usize| (d[i] as u32) < (self.size[i] - two[i]).max(0) as u32;
        if !(inside(0) & inside(1) & inside(2)) {
            return None;
        }
        let [sx, sxz] = self.strides;
        Some(d.x as usize + sx * d.z as usize + sxz * d.y as usize)
    }

    /// The grid (every entry) and its row and slice strides.
    #[inline(always)]
    pub(crate) fn grid_and_strides(&self) -> (&[Code], [usize; 2]) {
        (&self.grid, self.strides)
    }

    /// The grid's row and slice strides.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) fn strides(&self) -> [usize; 2] {
        self.strides
    }

    /// The grid's first key and its size in keys, as four lanes each (the last one 0); size 0
    /// when there is no grid.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) fn grid_lanes(&self) -> ([i32; 4], [i32; 4]) {
        (self.keys_min_lanes, self.size_lanes)
    }

    /// The grid and the index of key `lo` in it with the grid's row and slice strides, when every
    /// key in `lo..=hi` lies inside the grid: queries then walk the flat array directly.
    #[inline]
    pub(crate) fn grid_window(&self, lo: IVec3, hi: IVec3) -> Option<(&[Code], usize, usize, usize)> {
        if !(self.keys.contains(lo) && self.keys.contains(hi)) {
            return None;
        }
        let d = lo - self.keys.min;
        let [sx, sxz] = self.strides;
        Some((&self.grid, d.x as usize + sx * d.z as usize + sxz * d.y as usize, sx, sxz))
    }

    /// Sets the entry of `key`, returning the old one.
    pub(crate) fn set(&mut self, key: IVec3, code: Code) -> Code {
        let old = match self.keys.index_of(key) {
            Some(i) => std::mem::replace(&mut self.grid[i], code),
            None if code == EMPTY => self.outside.remove(&key).unwrap_or(EMPTY),
            None => self.outside.insert(key, code).unwrap_or(EMPTY),
        };
        self.stored = self.stored + usize::from(code != EMPTY) - usize::from(old != EMPTY);
        old
    }

    /// Number of non-empty entries.
    pub(crate) fn len(&self) -> usize {
        self.stored
    }

    /// Every non-empty code.
    pub(crate) fn codes(&self) -> impl Iterator<Item = Code> + '_ {
        self.grid.iter().copied().filter(|c| *c != EMPTY).chain(self.outside.values().copied())
    }

    pub(crate) fn bytes(&self) -> usize {
        let slot = size_of::<IVec3>() + size_of::<Code>() + 1;
        self.grid.capacity() * size_of::<Code>() + self.outside.capacity() * slot
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solid_offset_is_the_solid_slot_in_bytes() {
        let edge = [u32::MAX >> 1, (u32::MAX >> 1) - 1, 1 << 20, (1 << 20) + 1];
        for code in (0..1u32 << 16).chain(edge) {
            assert_eq!(solid_offset(code), solid_slot(code) * 64, "code {code}");
            if code & 1 != 0 {
                assert_eq!(water_slot(code), solid_slot(code) + 1, "code {code}");
            }
        }
    }
}
