//! One chunk of voxels in one of three forms: uniform, dense, or row-packed.
//!
//! Seed 004 ("Voxel Data Structures") keeps chunks in a hash map and lets vacant chunks take no
//! memory. Two more forms make terrain cheap: a chunk whose voxels are all equal is one voxel, and a
//! chunk crossed by the surface is stored row by row, where a row along `x` whose voxels are all
//! equal (deep rock, open air: most rows) is one voxel. That is the "row packing" with which Roblox
//! reaches 0.49 bytes per voxel. Edits work on the dense form; [`Chunk::compact`] packs again.
//!
//! ```text
//!  row r = z + EDGE * y            uniform bit per row          data
//!  ┌────────────────────┐          r0 1  ───────────────────►  [v]
//!  │ r0  ░░░░░░░░░░░░░░ │ uniform  r1 0  ───────────────────►  [v v v ... v]  (EDGE voxels)
//!  │ r1  ░░░▓▓▓▒▒▒░░░░░ │ mixed    r2 1  ───────────────────►  [v]
//!  │ r2  ▓▓▓▓▓▓▓▓▓▓▓▓▓▓ │ uniform  offset(r) = r + (EDGE - 1) * (mixed rows before r)
//!  └────────────────────┘
//! ```

use voxel_core::Voxel;

/// log2 of the chunk edge. 32 was chosen by measurement over 16 (see the crate README): the same
/// region read speed, half the row-table overhead per voxel, and an eighth of the hash map entries.
pub const CHUNK_BITS: u32 = 5;
/// Chunk edge in voxels.
pub const CHUNK_EDGE: i32 = 1 << CHUNK_BITS;

pub(crate) const EDGE: usize = CHUNK_EDGE as usize;
pub(crate) const VOLUME: usize = EDGE * EDGE * EDGE;
pub(crate) const ROWS: usize = EDGE * EDGE;
const WORDS: usize = ROWS.div_ceil(64);

/// A chunk's voxels.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Chunk {
    /// Every voxel equals this one.
    Uniform(Voxel),
    /// `VOLUME` voxels in the workspace's axis order; the form edits work on.
    Dense(Box<[Voxel]>),
    /// Rows along `x`, a uniform row stored as one voxel.
    Packed(Packed),
}

/// One row of a chunk, as stored.
pub(crate) enum Row<'a> {
    Uniform(Voxel),
    Voxels(&'a [Voxel]),
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Packed {
    /// Bit `r` set: row `r` is uniform and takes one voxel of `data`.
    uniform: [u64; WORDS],
    /// Mixed rows in the words before each word, so a row's offset is one popcount away.
    mixed_before: [u16; WORDS],
    data: Box<[Voxel]>,
}

impl Packed {
    fn pack(dense: &[Voxel]) -> Packed {
        debug_assert_eq!(dense.len(), VOLUME);
        let mut uniform = [0u64; WORDS];
        let mut mixed_before = [0u16; WORDS];
        let mut data = Vec::new();
        let mut mixed = 0u16;
        for (r, row) in dense.chunks_exact(EDGE).enumerate() {
            if r % 64 == 0 {
                mixed_before[r / 64] = mixed;
            }
            if row.iter().all(|v| *v == row[0]) {
                uniform[r / 64] |= 1 << (r % 64);
                data.push(row[0]);
            } else {
                data.extend_from_slice(row);
                mixed += 1;
            }
        }
        Packed { uniform, mixed_before, data: data.into_boxed_slice() }
    }

    #[inline]
    fn row(&self, r: usize) -> Row<'_> {
        let (w, b) = (r / 64, r % 64);
        let below = (!self.uniform[w] & ((1u64 << b) - 1)).count_ones() as usize;
        let offset = r + (EDGE - 1) * (usize::from(self.mixed_before[w]) + below);
        if self.uniform[w] >> b & 1 == 1 {
            Row::Uniform(self.data[offset])
        } else {
            Row::Voxels(&self.data[offset..offset + EDGE])
        }
    }

    fn mixed_rows(&self) -> usize {
        self.uniform.iter().map(|w| w.count_zeros() as usize).sum::<usize>() - (WORDS * 64 - ROWS)
    }
}

impl Chunk {
    /// Row `r` (`r = z + EDGE * y`, chunk-local).
    #[inline]
    pub(crate) fn row(&self, r: usize) -> Row<'_> {
        match self {
            Chunk::Uniform(v) => Row::Uniform(*v),
            Chunk::Dense(d) => Row::Voxels(&d[r * EDGE..(r + 1) * EDGE]),
            Chunk::Packed(p) => p.row(r),
        }
    }

    /// The voxel at chunk-local index `i` (`x + EDGE * (z + EDGE * y)`).
    #[inline]
    pub(crate) fn get(&self, i: usize) -> Voxel {
        match self.row(i / EDGE) {
            Row::Uniform(v) => v,
            Row::Voxels(row) => row[i % EDGE],
        }
    }

    /// Copies voxels `x0..x1` of row `r` into `out` (`out.len() == x1 - x0`).
    #[inline]
    pub(crate) fn copy_row(&self, r: usize, x0: usize, out: &mut [Voxel]) {
        match self.row(r) {
            Row::Uniform(v) => out.fill(v),
            Row::Voxels(row) => out.copy_from_slice(&row[x0..x0 + out.len()]),
        }
    }

    /// The chunk as dense voxels, converting it first if needed.
    pub(crate) fn make_dense(&mut self) -> &mut [Voxel] {
        if !matches!(self, Chunk::Dense(_)) {
            let dense = self.to_dense();
            *self = Chunk::Dense(dense);
        }
        match self {
            Chunk::Dense(d) => d,
            _ => unreachable!("converted above"),
        }
    }

    /// All voxels, decoded.
    pub(crate) fn to_dense(&self) -> Box<[Voxel]> {
        match self {
            Chunk::Uniform(v) => vec![*v; VOLUME].into_boxed_slice(),
            Chunk::Dense(d) => d.clone(),
            Chunk::Packed(p) => {
                let mut out = vec![Voxel::EMPTY; VOLUME].into_boxed_slice();
                for (r, dst) in out.chunks_exact_mut(EDGE).enumerate() {
                    match p.row(r) {
                        Row::Uniform(v) => dst.fill(v),
                        Row::Voxels(src) => dst.copy_from_slice(src),
                    }
                }
                out
            }
        }
    }

    /// The smallest form for the chunk's voxels: uniform when all are equal, else packed when that
    /// is smaller than dense (it nearly always is: dense only wins when almost every row is mixed).
    pub(crate) fn compact(&mut self) {
        let Chunk::Dense(d) = self else { return };
        if d.iter().all(|v| *v == d[0]) {
            *self = Chunk::Uniform(d[0]);
            return;
        }
        let packed = Packed::pack(d);
        if packed.data.len() * size_of::<Voxel>() + size_of::<Packed>() < VOLUME * size_of::<Voxel>() {
            *self = Chunk::Packed(packed);
        }
    }

    /// The uniform voxel, if the chunk is stored as one.
    #[inline]
    pub(crate) fn uniform(&self) -> Option<Voxel> {
        match self {
            Chunk::Uniform(v) => Some(*v),
            _ => None,
        }
    }

    /// Heap bytes the chunk owns beyond its enum slot.
    pub(crate) fn heap_bytes(&self) -> usize {
        match self {
            Chunk::Uniform(_) => 0,
            Chunk::Dense(d) => d.len() * size_of::<Voxel>(),
            Chunk::Packed(p) => p.data.len() * size_of::<Voxel>(),
        }
    }

    /// Mixed (non-uniform) rows: all of them for dense, none for uniform.
    pub(crate) fn mixed_rows(&self) -> usize {
        match self {
            Chunk::Uniform(_) => 0,
            Chunk::Dense(_) => ROWS,
            Chunk::Packed(p) => p.mixed_rows(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(i: usize) -> Voxel {
        // Mixed rows in the middle slices, uniform rows elsewhere.
        let y = i / (EDGE * EDGE);
        if (10..12).contains(&y) { Voxel::new((i % 7) as i8 - 3, (i % 3) as u8) } else { Voxel::new(-127, 1) }
    }

    #[test]
    fn packed_round_trips_and_reads_every_voxel() {
        let dense: Box<[Voxel]> = (0..VOLUME).map(sample).collect();
        let mut chunk = Chunk::Dense(dense.clone());
        chunk.compact();
        assert!(matches!(chunk, Chunk::Packed(_)));
        assert_eq!(chunk.mixed_rows(), 2 * EDGE);
        for (i, v) in dense.iter().enumerate() {
            assert_eq!(chunk.get(i), *v, "voxel {i}");
        }
        assert_eq!(chunk.to_dense(), dense);
        let mut row = vec![Voxel::EMPTY; 5];
        chunk.copy_row(10 * EDGE + 3, 4, &mut row);
        assert_eq!(row, dense[(10 * EDGE + 3) * EDGE + 4..][..5]);
    }

    #[test]
    fn uniform_dense_compacts_to_one_voxel() {
        let mut chunk = Chunk::Dense(vec![Voxel::new(-5, 2); VOLUME].into_boxed_slice());
        chunk.compact();
        assert_eq!(chunk, Chunk::Uniform(Voxel::new(-5, 2)));
        assert_eq!(chunk.heap_bytes(), 0);
        chunk.make_dense()[7] = Voxel::EMPTY;
        assert_eq!(chunk.get(7), Voxel::EMPTY);
        assert_eq!(chunk.get(8), Voxel::new(-5, 2));
    }

    #[test]
    fn all_mixed_rows_stay_dense() {
        let dense: Box<[Voxel]> = (0..VOLUME).map(|i| Voxel::new((i % 5) as i8, 1)).collect();
        let mut chunk = Chunk::Dense(dense);
        chunk.compact();
        assert!(matches!(chunk, Chunk::Dense(_)));
    }
}
