//! One chunk of voxels in one of three forms: uniform, dense, or row-packed.
//!
//! Seed 004 ("Voxel Data Structures") keeps chunks in a hash map and lets vacant chunks take no
//! memory. Two more forms make terrain cheap: a chunk whose voxels are all equal is one voxel, and a
//! chunk crossed by the surface is stored row by row (the "row packing" with which Roblox reaches
//! 0.49 bytes per voxel), each row along `x` in the cheapest of three kinds:
//!
//! - **uniform**: all voxels equal (deep rock, open air: most rows), one voxel, 2 bytes;
//! - **one material**: distances vary, the material does not (the surface band and tunnel walls of
//!   one rock), one material and `EDGE` distances, 33 bytes;
//! - **mixed**: `EDGE` voxels, 64 bytes.
//!
//! Edits work on the dense form; [`Chunk::compact`] packs again.
//!
//! ```text
//!  row r = z + EDGE * y      kind bits        arrays (each kind's rows in row order)
//!  ┌────────────────────┐
//!  │ r0  ░░░░░░░░░░░░░░ │    uniform    ──►  uniform:    [v0, v2]
//!  │ r1  ░░▒▒▒▓▓▓▓▓▓▓▓▓ │    one mat.   ──►  materials:  [m1]   distances: [d1 × EDGE]
//!  │ r2  ▓▓▓▓▓▓▓▓▓▓▓▓▓▓ │    uniform        mixed:      [v × EDGE per mixed row]
//!  └────────────────────┘    a row's index in its array = rows of its kind before it
//!                            (a popcount of the kind bits, once per walk)
//! ```

use voxel_core::Voxel;

/// log2 of the chunk edge. 32 was chosen by measurement over 16 (see the crate README).
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
    /// Rows along `x`, each stored in the cheapest of three kinds (boxed: its row tables are 400
    /// bytes, which the other forms should not pay for).
    Packed(Box<Packed>),
}

/// One row of a chunk, as stored.
pub(crate) enum Row<'a> {
    /// Every voxel of the row is this one.
    Uniform(Voxel),
    /// One material, `EDGE` distances.
    OneMaterial(u8, &'a [i8]),
    /// `EDGE` voxels.
    Voxels(&'a [Voxel]),
}

impl Row<'_> {
    /// Voxel `x` of the row.
    #[inline]
    pub(crate) fn at(&self, x: usize) -> Voxel {
        match *self {
            Row::Uniform(v) => v,
            Row::OneMaterial(m, d) => Voxel::new(d[x], m),
            Row::Voxels(src) => src[x],
        }
    }

    /// Writes voxels `x0..x0 + out.len()` of the row into `out`.
    #[inline]
    pub(crate) fn copy_to(&self, x0: usize, out: &mut [Voxel]) {
        // One voxel (a region whose edge cuts the chunk's first or last column, as a halo
        // does): no run loop at all.
        if let [o] = out {
            *o = self.at(x0);
            return;
        }
        match *self {
            Row::Uniform(v) => fill_run(out, v),
            Row::OneMaterial(m, d) => {
                for (o, &d) in out.iter_mut().zip(&d[x0..]) {
                    *o = Voxel::new(d, m);
                }
            }
            Row::Voxels(src) => copy_run(out, &src[x0..]),
        }
    }
}

/// Fills `dst` with `v`. A whole row is assigned as an array, which compiles to vector stores;
/// `slice::fill` on a two-byte struct stays a scalar loop (it was a tenth of a region read).
#[inline(always)]
pub(crate) fn fill_run(dst: &mut [Voxel], v: Voxel) {
    if let Ok(d) = <&mut [Voxel; EDGE]>::try_from(&mut *dst) {
        *d = [v; EDGE];
    } else {
        let mut d = dst.chunks_exact_mut(8);
        for d in &mut d {
            let d: &mut [Voxel; 8] = d.try_into().expect("chunks of 8");
            *d = [v; 8];
        }
        d.into_remainder().fill(v);
    }
}

/// Copies `dst.len()` voxels from the start of `src`; a whole row is copied as a fixed-size array so
/// it compiles to a few vector moves instead of a `memcpy` call.
#[inline(always)]
fn copy_run(dst: &mut [Voxel], src: &[Voxel]) {
    if let (Ok(d), Some(s)) = (<&mut [Voxel; EDGE]>::try_from(&mut *dst), src.first_chunk::<EDGE>()) {
        *d = *s;
    } else {
        // Partial rows (a region's edge cuts the chunk) in fixed blocks of 8 voxels: inline
        // 16-byte moves instead of a `memcpy` call per row.
        let src = &src[..dst.len()];
        let mut d = dst.chunks_exact_mut(8);
        let mut s = src.chunks_exact(8);
        for (d, s) in (&mut d).zip(&mut s) {
            let d: &mut [Voxel; 8] = d.try_into().expect("chunks of 8");
            *d = *<&[Voxel; 8]>::try_from(s).expect("chunks of 8");
        }
        for (d, s) in d.into_remainder().iter_mut().zip(s.remainder()) {
            *d = *s;
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Packed {
    /// Bit `r` set: row `r` is uniform.
    uniform: [u64; WORDS],
    /// Bit `r` set: row `r` has one material (never set together with `uniform`).
    one_material: [u64; WORDS],
    /// Rows of each kind (uniform, one material, mixed) in the words before each word.
    before: [[u16; 3]; WORDS],
    uniform_rows: Box<[Voxel]>,
    materials: Box<[u8]>,
    distances: Box<[i8]>,
    mixed: Box<[Voxel]>,
}

/// A position in a walk over consecutive rows of a packed chunk: the row and how many rows of each
/// kind precede it.
#[derive(Clone, Copy)]
pub(crate) struct RowCursor {
    r: usize,
    counts: [usize; 3],
}

impl Packed {
    fn pack(dense: &[Voxel]) -> Packed {
        debug_assert_eq!(dense.len(), VOLUME);
        let mut p = Packed {
            uniform: [0; WORDS],
            one_material: [0; WORDS],
            before: [[0; 3]; WORDS],
            uniform_rows: Box::new([]),
            materials: Box::new([]),
            distances: Box::new([]),
            mixed: Box::new([]),
        };
        let (mut uniform_rows, mut materials, mut distances, mut mixed) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (r, row) in dense.chunks_exact(EDGE).enumerate() {
            if r % 64 == 0 {
                p.before[r / 64] = [uniform_rows.len(), materials.len(), mixed.len() / EDGE].map(|n| n as u16);
            }
            if row.iter().all(|v| *v == row[0]) {
                p.uniform[r / 64] |= 1 << (r % 64);
                uniform_rows.push(row[0]);
            } else if row.iter().all(|v| v.material == row[0].material) {
                p.one_material[r / 64] |= 1 << (r % 64);
                materials.push(row[0].material);
                distances.extend(row.iter().map(|v| v.distance));
            } else {
                mixed.extend_from_slice(row);
            }
        }
        p.uniform_rows = uniform_rows.into_boxed_slice();
        p.materials = materials.into_boxed_slice();
        p.distances = distances.into_boxed_slice();
        p.mixed = mixed.into_boxed_slice();
        p
    }

    /// A cursor at row `r`: three popcounts (the default x86-64 target has no `popcnt`
    /// instruction, so each is a dozen instructions); walks then step with [`Packed::advance`].
    #[inline]
    pub(crate) fn cursor(&self, r: usize) -> RowCursor {
        let (w, b) = (r / 64, r % 64);
        let below = (1u64 << b) - 1;
        let u = (self.uniform[w] & below).count_ones() as usize;
        let m = (self.one_material[w] & below).count_ones() as usize;
        let [bu, bm, bx] = self.before[w].map(usize::from);
        RowCursor { r, counts: [bu + u, bm + m, bx + b - u - m] }
    }

    #[inline]
    fn kind(&self, r: usize) -> usize {
        let (w, b) = (r / 64, r % 64);
        if self.uniform[w] >> b & 1 == 1 {
            0
        } else if self.one_material[w] >> b & 1 == 1 {
            1
        } else {
            2
        }
    }

    /// The row under the cursor, moving the cursor to the next row.
    #[inline]
    pub(crate) fn next_row(&self, c: &mut RowCursor) -> Row<'_> {
        let kind = self.kind(c.r);
        let i = c.counts[kind];
        c.counts[kind] += 1;
        c.r += 1;
        match kind {
            0 => Row::Uniform(self.uniform_rows[i]),
            1 => Row::OneMaterial(self.materials[i], &self.distances[i * EDGE..(i + 1) * EDGE]),
            _ => Row::Voxels(&self.mixed[i * EDGE..(i + 1) * EDGE]),
        }
    }

    #[inline]
    fn row(&self, r: usize) -> Row<'_> {
        self.next_row(&mut self.cursor(r))
    }

    fn mixed_rows(&self) -> usize {
        ROWS - self.uniform_rows.len()
    }

    fn heap_bytes(&self) -> usize {
        self.uniform_rows.len() * size_of::<Voxel>()
            + self.materials.len()
            + self.distances.len()
            + self.mixed.len() * size_of::<Voxel>()
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
        self.row(i / EDGE).at(i % EDGE)
    }

    /// Copies voxels `x0..x0 + out.len()` of row `r` into `out`.
    #[inline]
    pub(crate) fn copy_row(&self, r: usize, x0: usize, out: &mut [Voxel]) {
        self.row(r).copy_to(x0, out);
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
                let mut c = p.cursor(0);
                for dst in out.chunks_exact_mut(EDGE) {
                    p.next_row(&mut c).copy_to(0, dst);
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
        if packed.heap_bytes() + size_of::<Packed>() < VOLUME * size_of::<Voxel>() {
            *self = Chunk::Packed(Box::new(packed));
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
            Chunk::Packed(p) => size_of::<Packed>() + p.heap_bytes(),
        }
    }

    /// Non-uniform rows: all of them for dense, none for uniform.
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
        let Chunk::Packed(p) = &chunk else { unreachable!() };
        // Rows whose material is constant along x use the one-material kind.
        assert!(!p.materials.is_empty() || !p.mixed.is_empty());
        for (i, v) in dense.iter().enumerate() {
            assert_eq!(chunk.get(i), *v, "voxel {i}");
        }
        assert_eq!(chunk.to_dense(), dense);
        let mut row = vec![Voxel::EMPTY; 5];
        chunk.copy_row(10 * EDGE + 3, 4, &mut row);
        assert_eq!(row, dense[(10 * EDGE + 3) * EDGE + 4..][..5]);
    }

    #[test]
    fn one_material_rows_store_distances_only() {
        let dense: Box<[Voxel]> = (0..VOLUME).map(|i| Voxel::new((i % 11) as i8 - 5, 4)).collect();
        let mut chunk = Chunk::Dense(dense.clone());
        chunk.compact();
        let Chunk::Packed(p) = &chunk else { panic!("one-material rows pack") };
        assert_eq!((p.uniform_rows.len(), p.materials.len(), p.mixed.len()), (0, ROWS, 0));
        assert_eq!(chunk.heap_bytes(), size_of::<Packed>() + ROWS * (EDGE + 1));
        assert_eq!(chunk.to_dense(), dense);
        for i in (0..VOLUME).step_by(97) {
            assert_eq!(chunk.get(i), dense[i]);
        }
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
        let dense: Box<[Voxel]> = (0..VOLUME).map(|i| Voxel::new((i % 5) as i8, (i % 3) as u8)).collect();
        let mut chunk = Chunk::Dense(dense);
        chunk.compact();
        assert!(matches!(chunk, Chunk::Dense(_)));
    }
}
