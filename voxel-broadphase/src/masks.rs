//! Dilated occupancy bitmasks of one 8^3 chunk, built from a 10^3 read with bit operations, and the
//! XZ lookup tables of the overlap test.
//!
//! Seed `000_ce04cac11e01e96d.txt`, "Bit broadphase: construction": occupancy of the 10^3 box as 10^2
//! rows of 10 bits, dilated along the row with shifts, then along the two other axes by OR-ing
//! neighbouring rows; the inner 8^2 rows of 8 bits are the chunk's mask. A voxel's bit is set when
//! any of its 27 neighbours is solid (or water), because the mesh a solid voxel makes can spill
//! into every neighbouring voxel.
//!
//! ```text
//!  one u64 per Y slice:          bit = x + 8 * z
//!  slice[y]  = row z=7 | ... | row z=1 | row z=0        row = 8 bits, bit x
//!              63    56        15     8  7      0
//! ```

use voxel_core::{Phase, PhaseTable, Voxel};

/// Edge of a broadphase chunk in voxels (seed 000: 8^3 chunks, one `u64` per Y slice).
pub const CHUNK_EDGE: i32 = 8;
/// Edge of the read a chunk's masks are built from: the chunk plus one voxel on every side.
pub const READ_EDGE: i32 = CHUNK_EDGE + 2;

const R: usize = READ_EDGE as usize;

/// One bit per voxel of an 8^3 chunk: `slices[y]` bit `x + 8 * z`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SliceMask(pub [u64; 8]);

impl SliceMask {
    /// Every bit set.
    pub const FULL: SliceMask = SliceMask([u64::MAX; 8]);

    /// True when no bit is set.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|s| *s == 0)
    }

    /// The bit of chunk-local voxel `(x, y, z)`, each in `0..8`.
    #[inline]
    pub fn get(&self, x: usize, y: usize, z: usize) -> bool {
        self.0[y] >> (x + 8 * z) & 1 == 1
    }

    /// True when any slice in `y0..y1` shares a bit with `xz` (the seed's one-instruction test per
    /// slice).
    #[inline]
    pub fn overlaps(&self, xz: u64, y0: usize, y1: usize) -> bool {
        self.0[y0..y1].iter().any(|s| s & xz != 0)
    }
}

/// Builds chunk masks from 10^3 reads, with the phase table turned into a per-material lookup once.
///
/// ```
/// use voxel_core::{PhaseTable, Voxel};
/// use voxel_broadphase::raw::MaskBuilder;
///
/// let mut read = vec![Voxel::EMPTY; 1000];
/// read[0] = Voxel::new(-5, 1); // solid, in the halo corner
/// let (solid, water) = MaskBuilder::new(&PhaseTable::DEFAULT).build(&read).unwrap();
/// assert!(solid.get(0, 0, 0) && !solid.get(1, 0, 0) && water.is_empty());
/// ```
#[derive(Clone, Debug)]
pub struct MaskBuilder {
    codes: [u8; 256],
}

impl MaskBuilder {
    /// A builder for voxels whose materials have the phases of `table`.
    pub fn new(table: &PhaseTable) -> Self {
        Self { codes: phase_codes(table) }
    }

    /// The dilated (solid, water) masks of the 8^3 chunk inside a 10^3 read (workspace axis
    /// order), or `None` when `read` does not hold exactly 1000 voxels.
    pub fn build(&self, read: &[Voxel]) -> Option<(SliceMask, SliceMask)> {
        (read.len() == R * R * R).then(|| {
            let b = build(read, &self.codes);
            (b.solid, b.water)
        })
    }
}

/// The dilated masks of one chunk, and whether its 10^3 read is all solid or all water.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Built {
    pub solid: SliceMask,
    pub water: SliceMask,
    /// Every voxel of the 10^3 read is solid.
    pub all_solid: bool,
    /// Every voxel of the 10^3 read is water.
    pub all_water: bool,
}

/// The phase code of a solid material.
pub(crate) const SOLID: u8 = 0x01;
/// The phase code of a liquid (water) material: four bits above [`SOLID`], so that the codes of
/// four voxels shifted by 0..4 and ORed give a nibble of solid bits and a nibble of water bits.
pub(crate) const WATER: u8 = 0x10;

/// Phase code per material ([`SOLID`], [`WATER`] or 0). Built once from a phase table, so the
/// per-voxel work is one table load.
pub(crate) fn phase_codes(table: &PhaseTable) -> [u8; 256] {
    let mut codes = [0u8; 256];
    for (m, code) in codes.iter_mut().enumerate() {
        *code = match table.phase(m as u8) {
            Phase::Solid => SOLID,
            Phase::Liquid => WATER,
            Phase::Empty => 0,
        };
    }
    codes
}

/// Builds the dilated solid and water masks from the 10^3 voxels around a chunk (workspace axis
/// order: `x` fastest, then `z`, then `y`): a block of one chunk.
pub(crate) fn build(voxels: &[Voxel], codes: &[u8; 256]) -> Built {
    debug_assert_eq!(voxels.len(), R * R * R);
    let mut rows = BlockRows::<{ R * R }>::default();
    rows.fill(voxels, [R, R, R], codes);
    rows.chunk([0, 0, 0])
}

/// The most voxels a block read may span along `x`: one row is one `u64`.
pub(crate) const MAX_BLOCK_ROW: usize = 64;

/// Occupancy of a block read (the chunks of a block and their one-voxel halo) as rows of bits,
/// and the rows dilated once for the whole block.
///
/// Seed 000 dilates each chunk's 10^3 read on its own; chunks of a block share their halos, so
/// doing the shifts and ORs once per block does each voxel's work once instead of up to eight
/// times, and a chunk's masks are then 64 row extractions (`broadphase/mask-build`).
///
/// `N` is the capacity in rows (`ny * nz`); rows are indexed `y * nz + z`, bit `x`.
pub(crate) struct BlockRows<const N: usize> {
    size: [usize; 3],
    /// Whether any row has solid, water: the dilation of a phase the block lacks is skipped.
    has: [bool; 2],
    solid: [u64; N],
    water: [u64; N],
    /// The block's solid and water bits in read order (voxel `i` at bit `i`), before they are
    /// cut into rows: the SSE2 classification works on the voxels as one stream, 16 at a time,
    /// whatever the row length. Room for `N` rows of up to 64 voxels.
    stream: [[u64; N]; 2],
    /// The rows dilated along all three axes ([`dilate_rows`]).
    solid_dilated: [u64; N],
    water_dilated: [u64; N],
}

impl<const N: usize> Default for BlockRows<N> {
    fn default() -> Self {
        Self {
            size: [0; 3],
            has: [false; 2],
            solid: [0; N],
            water: [0; N],
            stream: [[0; N]; 2],
            solid_dilated: [0; N],
            water_dilated: [0; N],
        }
    }
}

impl<const N: usize> BlockRows<N> {
    /// Reads the occupancy of `voxels` (size `[nx, ny, nz]`, workspace axis order) and dilates it.
    /// Needs `nx <= MAX_BLOCK_ROW`, `ny * nz <= N` and every size at least 3.
    pub(crate) fn fill(&mut self, voxels: &[Voxel], size: [usize; 3], codes: &[u8; 256]) {
        let [nx, ny, nz] = size;
        debug_assert!(nx <= MAX_BLOCK_ROW && ny * nz <= N && nx.min(ny).min(nz) >= 3);
        debug_assert_eq!(voxels.len(), nx * ny * nz);
        self.size = size;
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        {
            let words = voxels.len().div_ceil(64);
            let [solid, water] = &mut self.stream;
            // SAFETY: compiled only where the target enables SSE2, so the CPU has it.
            #[allow(unsafe_code)]
            unsafe {
                sse2::classify(voxels, codes, &mut solid[..words], &mut water[..words]);
            }
            for (r, (s, w)) in self.solid[..ny * nz].iter_mut().zip(&mut self.water[..ny * nz]).enumerate() {
                *s = bits_at(solid, r * nx, nx);
                *w = bits_at(water, r * nx, nx);
            }
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
        for ((row, s), w) in voxels.chunks_exact(nx).zip(&mut self.solid[..ny * nz]).zip(&mut self.water[..ny * nz]) {
            (*s, *w) = row_bits(row, codes);
        }
        self.dilate();
    }

    /// Dilates the occupancy rows (of `self.size`).
    fn dilate(&mut self) {
        let [_, ny, nz] = self.size;
        let any = |rows: &[u64]| rows.iter().fold(0, |acc, r| acc | r) != 0;
        // Most blocks have no water (and many no solid): their dilation is all zeros.
        self.has = [any(&self.solid[..ny * nz]), any(&self.water[..ny * nz])];
        if self.has[0] {
            dilate_rows(&self.solid[..ny * nz], ny, nz, &mut self.solid_dilated[..ny * nz]);
        }
        if self.has[1] {
            dilate_rows(&self.water[..ny * nz], ny, nz, &mut self.water_dilated[..ny * nz]);
        }
    }

    /// The chunk whose 10^3 read starts at voxel `[x0, y0, z0]` of the block.
    pub(crate) fn chunk(&self, [x0, y0, z0]: [usize; 3]) -> Built {
        let nz = self.size[2];
        debug_assert!(x0 + R <= self.size[0] && y0 + R <= self.size[1] && z0 + R <= nz);
        let extract = |dilated: &[u64; N], has: bool| {
            let mut mask = SliceMask::default();
            if !has {
                return mask;
            }
            for (y, slice) in mask.0.iter_mut().enumerate() {
                let first = (y0 + 1 + y) * nz + z0 + 1;
                for (z, row) in dilated[first..first + 8].iter().enumerate() {
                    *slice |= (row >> (x0 + 1) & 0xFF) << (8 * z);
                }
            }
            mask
        };
        // Every 10^3 read voxel has an inner voxel among its neighbours, so a read with any solid
        // has a non-empty solid mask, and an all-solid read has a full one: the row scan for
        // "every voxel solid" runs only for chunks whose dilated mask is full.
        let all_set = |rows: &[u64; N]| {
            let window = ((1u64 << R) - 1) << x0;
            (y0..y0 + R).all(|y| rows[y * nz + z0..y * nz + z0 + R].iter().all(|r| r & window == window))
        };
        let (solid, water) = (extract(&self.solid_dilated, self.has[0]), extract(&self.water_dilated, self.has[1]));
        let all_solid = solid == SliceMask::FULL && water.is_empty() && all_set(&self.solid);
        let all_water = water == SliceMask::FULL && solid.is_empty() && all_set(&self.water);
        Built { solid, water, all_solid, all_water }
    }
}

/// The low bit of each 16-bit lane of a word of four voxels (`distance` byte, then `material`).
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2", not(test)), allow(dead_code))]
const LANES: u64 = 0x0001_0001_0001_0001;
/// Multiplying a word's lane bits (0, 16, 32, 48) by this gathers them at bits 48..52: the other
/// products land at bits 3, 18, 19, 33, 34, 35 or past bit 63, so no carry reaches bit 48.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2", not(test)), allow(dead_code))]
const GATHER: u64 = 1 << 48 | 1 << 33 | 1 << 18 | 1 << 3;

/// Four voxels as one word, voxel `i` in bits `16 i..16 i + 16` (distance low, material high).
/// Built from whole 16-bit voxels, so the compiler loads the word at once.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2", not(test)), allow(dead_code))]
#[inline(always)]
fn word(v: &[Voxel]) -> u64 {
    let lane = |v: Voxel| u64::from(u16::from(v.distance as u8) | u16::from(v.material) << 8);
    lane(v[0]) | lane(v[1]) << 16 | lane(v[2]) << 32 | lane(v[3]) << 48
}

/// Solid and water bits of one row of voxels (bit `x` for `row[x]`, at most 64 voxels).
///
/// Four voxels per word (SWAR): the sign bits give the inside voxels, and the OR and the AND of
/// the inside voxels' materials tell whether they share one material (equal when they do), as
/// most rows that are not open air do (rock, water): one phase lookup for the row then, instead
/// of one per voxel.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2", not(test)), allow(dead_code))]
#[inline]
fn row_bits(row: &[Voxel], codes: &[u8; 256]) -> (u64, u64) {
    let split = row.len() & !3;
    let (body, tail) = row.split_at(split);
    // Open air first: one OR per word.
    let signs = body.chunks_exact(4).fold(0, |acc, c| acc | word(c)) & LANES << 7;
    if signs == 0 && tail.iter().all(|v| v.distance >= 0) {
        return (0, 0);
    }
    let mut inside = 0u64;
    // Material bytes of inside voxels: ORed into `any`, ANDed into `all` (outside lanes add 0
    // to the OR and ones to the AND).
    let (mut any, mut all) = (0u64, !0u64);
    for (i, c) in body.chunks_exact(4).enumerate() {
        let w = word(c);
        let sign = w >> 7 & LANES;
        inside |= (sign.wrapping_mul(GATHER) >> 48) << (4 * i);
        let material = sign * 0xFF00;
        any |= w & material;
        all &= w | !material;
    }
    for (x, v) in tail.iter().enumerate() {
        let sign = u64::from(v.distance < 0);
        inside |= sign << (split + x);
        let material = sign * 0xFF00;
        let w = u64::from(v.material) << 8;
        any |= w & material;
        all &= w | !material;
    }
    let any = (any | any >> 32 | any >> 16 | any >> 48) & 0xFF00;
    let all = all & all >> 32 & all >> 16 & all >> 48 & 0xFF00;
    if any == all {
        let code = codes[(any >> 8) as usize];
        let pick = |bit: u8| if code & bit != 0 { inside } else { 0 };
        return (pick(SOLID), pick(WATER));
    }
    // Several materials: four phase lookups per word, their codes shifted into a nibble of solid
    // bits and a nibble of water bits; outside voxels are masked off at the end.
    let (mut s, mut w) = (0u64, 0u64);
    for (i, c) in body.chunks_exact(4).enumerate() {
        let word = word(c);
        let code = |lane: u32| u64::from(codes[(word >> (16 * lane + 8)) as u8 as usize]) << lane;
        let nibbles = code(0) | code(1) | code(2) | code(3);
        s |= (nibbles & 0xF) << (4 * i);
        w |= (nibbles >> 4 & 0xF) << (4 * i);
    }
    for (x, v) in tail.iter().enumerate() {
        let code = u64::from(codes[usize::from(v.material)]);
        s |= (code & 1) << (split + x);
        w |= (code >> 4 & 1) << (split + x);
    }
    (s & inside, w & inside)
}

/// Bits `at..at + len` of a bit stream (`len` at most 64), as the low bits of a word.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn bits_at(stream: &[u64], at: usize, len: usize) -> u64 {
    let (word, bit) = (at / 64, at % 64);
    let low = stream[word] >> bit;
    // The next word holds the rest when the bits cross a word boundary.
    let high = if bit + len > 64 { stream[word + 1] << (64 - bit) } else { 0 };
    let mask = if len == 64 { u64::MAX } else { (1u64 << len) - 1 };
    (low | high) & mask
}

/// The voxels' phases with SSE2, 16 voxels at a time, as bit streams (voxel `i` at bit `i`).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod sse2 {
    use core::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_packs_epi16, _mm_packus_epi16, _mm_set1_epi8,
        _mm_slli_epi16, _mm_srli_epi16,
    };

    use voxel_core::Voxel;

    use super::{SOLID, WATER};

    // The per-voxel path shifts the codes' bits into place: solid is bit 0, water bit 4.
    const _: () = assert!(SOLID == 1 && WATER == 1 << 4);

    // The loads below read each `Voxel` as two bytes: distance, then material.
    const _: () = assert!(
        size_of::<Voxel>() == 2
            && core::mem::offset_of!(Voxel, distance) == 0
            && core::mem::offset_of!(Voxel, material) == 1
    );

    /// Writes the solid and water bits of `voxels` into `solid` and `water` (each
    /// `voxels.len().div_ceil(64)` words; bits past the voxels are zero).
    ///
    /// Per 16 voxels: the distance bytes packed with signed saturation into one vector (one
    /// `movemask` gives the inside bits; 16 voxels of open air stop there), and when any is
    /// inside, the material bytes packed into another and compared with the first inside one:
    /// one phase lookup for the 16 when their inside voxels share a material (rock, water, a
    /// surface of one material), one per voxel when they do not.
    #[target_feature(enable = "sse2")]
    pub(super) fn classify(voxels: &[Voxel], codes: &[u8; 256], solid: &mut [u64], water: &mut [u64]) {
        debug_assert!(solid.len() == voxels.len().div_ceil(64) && water.len() == solid.len());
        solid.fill(0);
        water.fill(0);
        let groups = voxels.len() / 16;
        let p = voxels.as_ptr().cast::<__m128i>();
        for g in 0..groups {
            // SAFETY: voxels 16 g .. 16 g + 16 lie in `voxels` (g < len / 16); `Voxel` is
            // `#[repr(C)]`, two bytes (distance, material), so they are these 32 bytes, read
            // unaligned.
            #[allow(unsafe_code)]
            let (v0, v1) = unsafe { (_mm_loadu_si128(p.add(2 * g)), _mm_loadu_si128(p.add(2 * g + 1))) };
            // Distances to the high byte of each 16-bit lane; signed saturation keeps the sign.
            let inside = _mm_movemask_epi8(_mm_packs_epi16(_mm_slli_epi16::<8>(v0), _mm_slli_epi16::<8>(v1))) as u64;
            if inside == 0 {
                continue;
            }
            let materials = _mm_packus_epi16(_mm_srli_epi16::<8>(v0), _mm_srli_epi16::<8>(v1));
            // Only the inside voxels' materials count: grass next to air is one material.
            let first = voxels[16 * g + inside.trailing_zeros() as usize].material;
            let equal = _mm_movemask_epi8(_mm_cmpeq_epi8(materials, _mm_set1_epi8(first as i8))) as u64;
            let same = (equal | !inside) & 0xFFFF == 0xFFFF;
            let (s, w) = if same {
                let code = codes[usize::from(first)];
                let pick = |bit: u8| if code & bit != 0 { inside } else { 0 };
                (pick(SOLID), pick(WATER))
            } else {
                let (mut s, mut w) = (0u64, 0u64);
                for (i, v) in voxels[16 * g..16 * g + 16].iter().enumerate() {
                    let code = u64::from(codes[usize::from(v.material)]);
                    s |= (code & u64::from(SOLID)) << i;
                    w |= (code >> 4 & 1) << i;
                }
                (s & inside, w & inside)
            };
            let (word, shift) = (g / 4, 16 * (g % 4));
            solid[word] |= s << shift;
            water[word] |= w << shift;
        }
        for (i, v) in voxels.iter().enumerate().skip(16 * groups) {
            if v.distance < 0 {
                let code = codes[usize::from(v.material)];
                solid[i / 64] |= u64::from(code & SOLID != 0) << (i % 64);
                water[i / 64] |= u64::from(code & WATER != 0) << (i % 64);
            }
        }
    }
}

/// Dilates rows (`ny * nz` of them, index `y * nz + z`) by one voxel along all three axes, as
/// seed 000 does: each row ORed with itself shifted one bit either way, then with its neighbours
/// along `z`, then along `y`. Only inner rows (`1..ny - 1`, `1..nz - 1`) of `out` are meaningful;
/// the outer ones are the halo that no chunk keeps.
// Rows are read at their neighbours' indices (z - 1, z + 1, y - 1, y + 1): index loops say that best.
#[allow(clippy::needless_range_loop)]
fn dilate_rows(rows: &[u64], ny: usize, nz: usize, out: &mut [u64]) {
    // Along x and z into `out`; a row's bit x + 1 may pass the read's width: no chunk reads it.
    let x = |r: u64| r | r << 1 | r >> 1;
    for y in 0..ny {
        let row = y * nz;
        let mut below = x(rows[row]);
        let mut here = x(rows[row + 1]);
        for z in 1..nz - 1 {
            let above = x(rows[row + z + 1]);
            out[row + z] = below | here | above;
            below = here;
            here = above;
        }
    }
    // Along y, in place from the top down would overwrite rows still needed: keep the previous
    // layer's rows in a rolling copy of one layer instead.
    let mut previous = [0u64; MAX_LAYER];
    let layer = &mut previous[..nz];
    layer.copy_from_slice(&out[..nz]);
    for y in 1..ny - 1 {
        for z in 1..nz - 1 {
            let here = out[y * nz + z];
            out[y * nz + z] = layer[z] | here | out[(y + 1) * nz + z];
            layer[z] = here;
        }
    }
}

/// The most rows along `z` a block read may have.
const MAX_LAYER: usize = 64;

/// `MASKS_X[min][max]`: bits `x` in `min..max` of every row (`max` exclusive, both in `0..=8`).
pub(crate) const MASKS_X: [[u64; 9]; 9] = {
    let mut t = [[0u64; 9]; 9];
    let mut lo = 0;
    while lo <= 8 {
        let mut hi = lo;
        while hi <= 8 {
            let row = ((1u64 << hi) - 1) & !((1u64 << lo) - 1);
            t[lo][hi] = row * 0x0101_0101_0101_0101;
            hi += 1;
        }
        lo += 1;
    }
    t
};

/// `MASKS_Z[min][max]`: every bit of rows `z` in `min..max` (`max` exclusive, both in `0..=8`).
pub(crate) const MASKS_Z: [[u64; 9]; 9] = {
    let mut t = [[0u64; 9]; 9];
    let mut lo = 0;
    while lo <= 8 {
        let mut hi = lo;
        while hi <= 8 {
            let mut m = 0u64;
            let mut z = lo;
            while z < hi {
                m |= 0xFF << (8 * z);
                z += 1;
            }
            t[lo][hi] = m;
            hi += 1;
        }
        lo += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The brute-force reference: a voxel is marked when any of its 27 neighbours in the read is set.
    fn dilate_naive(occupied: &dyn Fn(usize, usize, usize) -> bool) -> SliceMask {
        let mut m = SliceMask::default();
        for y in 0..8 {
            for z in 0..8 {
                for x in 0..8 {
                    let mut any = false;
                    for dy in 0..3 {
                        for dz in 0..3 {
                            for dx in 0..3 {
                                any |= occupied(x + dx, y + dy, z + dz);
                            }
                        }
                    }
                    if any {
                        m.0[y] |= 1 << (x + 8 * z);
                    }
                }
            }
        }
        m
    }

    proptest! {
        #[test]
        fn dilation_equals_the_27_neighbourhood(
            cells in prop::collection::vec(prop_oneof![6 => Just(0u8), 1 => Just(1u8), 1 => Just(2u8)], 1000),
            sparse in any::<bool>(),
        ) {
            let mut table = PhaseTable::DEFAULT;
            table.set(2, Phase::Liquid);
            let codes = phase_codes(&table);
            // Sparse fields keep most voxels empty, so the dilation is not trivially all ones.
            let voxels: Vec<Voxel> = cells
                .iter()
                .enumerate()
                .map(|(i, &m)| {
                    let keep = !sparse || i % 7 == 0;
                    if m == 0 || !keep { Voxel::EMPTY } else { Voxel::new(-10, m) }
                })
                .collect();
            let built = build(&voxels, &codes);
            let at = |x: usize, y: usize, z: usize| voxels[x + R * (z + R * y)];
            let solid = dilate_naive(&|x, y, z| at(x, y, z).phase(&table) == Phase::Solid);
            let water = dilate_naive(&|x, y, z| at(x, y, z).phase(&table) == Phase::Liquid);
            prop_assert_eq!(built.solid, solid);
            prop_assert_eq!(built.water, water);
            let all = |p: Phase| voxels.iter().all(|v| v.phase(&table) == p);
            prop_assert_eq!(built.all_solid, all(Phase::Solid));
            prop_assert_eq!(built.all_water, all(Phase::Liquid));
        }

        /// A block read shared by several chunks gives each chunk what its own 10^3 read gives,
        /// including the "all solid" and "all water" flags (mostly-full fields make them true).
        #[test]
        fn block_rows_equal_per_chunk_builds(
            cells in prop::collection::vec(prop_oneof![4 => Just(0u8), 4 => Just(1u8), 1 => Just(2u8)], 26 * 18 * 10),
            density in 0usize..4,
        ) {
            let mut table = PhaseTable::DEFAULT;
            table.set(2, Phase::Liquid);
            let codes = phase_codes(&table);
            // A block of 3 x 2 x 1 chunks: a 26 x 18 x 10 read (x, y, z).
            let [nx, ny, nz] = [26usize, 18, 10];
            let voxels: Vec<Voxel> = cells
                .iter()
                .enumerate()
                .map(|(i, &m)| match density {
                    0 => if m == 0 || i % 5 != 0 { Voxel::EMPTY } else { Voxel::new(-3, m) },
                    1 => Voxel::new(-3, 1 + u8::from(m == 2 && i % 13 == 0)),
                    2 => Voxel::new(-3, 2 - u8::from(m == 1 && i % 17 == 0)),
                    _ => if m == 0 { Voxel::new(4, 1) } else { Voxel::new(-3, m) },
                })
                .collect();
            let mut rows = Box::<BlockRows<{ 18 * 10 }>>::default();
            rows.fill(&voxels, [nx, ny, nz], &codes);
            for (cx, cy) in [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1)] {
                let read: Vec<Voxel> = (0..R * R * R)
                    .map(|i| {
                        let (x, z, y) = (i % R, i / R % R, i / (R * R));
                        voxels[8 * cx + x + nx * (z + nz * (8 * cy + y))]
                    })
                    .collect();
                prop_assert_eq!(rows.chunk([8 * cx, 8 * cy, 0]), build(&read, &codes), "chunk {} {}", cx, cy);
            }
        }
    }

    /// Materials of every phase, low and high (bytes 128 and up test the SIMD packing as
    /// unsigned), and their codes.
    fn many_materials() -> (PhaseTable, [u8; 256]) {
        let mut table = PhaseTable::DEFAULT;
        table.set(2, Phase::Liquid);
        table.set(4, Phase::Liquid);
        table.set(6, Phase::Empty);
        table.set(128, Phase::Liquid);
        table.set(129, Phase::Solid);
        table.set(200, Phase::Liquid);
        table.set(255, Phase::Solid);
        let codes = phase_codes(&table);
        (table, codes)
    }

    /// The materials [`many_materials`] gives phases to, and a few it leaves at the default.
    fn arb_material() -> impl Strategy<Value = u8> {
        prop_oneof![0u8..7, Just(127u8), Just(128), Just(129), Just(200), Just(255)]
    }

    /// Distances at the sign's edges: -128, -1 and below are inside; 0 and above outside.
    fn arb_distance() -> impl Strategy<Value = i8> {
        prop_oneof![Just(-128i8), Just(-1), -3i8..=3, Just(1), Just(127)]
    }

    /// `len` voxels from `(material, distance)` cells, each cell repeated `runs` times.
    fn runs_of_voxels(cells: &[(u8, i8)], runs: usize, len: usize) -> Vec<Voxel> {
        (0..len)
            .map(|i| {
                let (m, d) = cells[i / runs * runs % cells.len()];
                Voxel::new(d, m)
            })
            .collect()
    }

    proptest! {
        /// Rows of several materials per phase, and outside voxels of solid and liquid
        /// materials: the row classification's one-material and several-material paths and its
        /// tail voxels, against the per-voxel phase.
        #[test]
        fn rows_of_many_materials_classify_like_single_voxels(
            cells in prop::collection::vec((arb_material(), arb_distance()), 1000),
            runs in 1usize..12,
        ) {
            let (table, codes) = many_materials();
            // Runs of one voxel repeated make one-material rows common, as in terrain.
            let voxels = runs_of_voxels(&cells, runs, 1000);
            let built = build(&voxels, &codes);
            let at = |x: usize, y: usize, z: usize| voxels[x + R * (z + R * y)];
            prop_assert_eq!(built.solid, dilate_naive(&|x, y, z| at(x, y, z).phase(&table) == Phase::Solid));
            prop_assert_eq!(built.water, dilate_naive(&|x, y, z| at(x, y, z).phase(&table) == Phase::Liquid));
        }
    }

    proptest! {
        /// Block fills (on x86_64 the SSE2 stream of 16 voxels at a time, cut into rows) give
        /// every row the bits the per-row classification gives, for row lengths 3 to 64 (rows
        /// that straddle the stream's groups and words), runs of one material and mixed ones.
        /// Elsewhere block fills are `row_bits` itself, so the test runs where they differ.
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        #[test]
        fn block_fill_rows_equal_row_bits(
            nx in 3usize..=64,
            cells in prop::collection::vec((arb_material(), arb_distance()), 64 * 4 * 3),
            runs in 1usize..40,
        ) {
            let (_, codes) = many_materials();
            let [ny, nz] = [4usize, 3];
            let voxels = runs_of_voxels(&cells, runs, nx * ny * nz);
            let mut rows = Box::<BlockRows<{ 4 * 3 }>>::default();
            rows.fill(&voxels, [nx, ny, nz], &codes);
            for (r, row) in voxels.chunks_exact(nx).enumerate() {
                prop_assert_eq!((rows.solid[r], rows.water[r]), row_bits(row, &codes), "row {}", r);
            }
        }
    }

    #[test]
    fn outside_voxels_never_count_whatever_their_material() {
        let voxels = vec![Voxel::new(5, 1); 1000];
        let built = build(&voxels, &phase_codes(&PhaseTable::DEFAULT));
        assert!(built.solid.is_empty() && !built.all_solid);
    }

    #[test]
    fn one_corner_voxel_marks_one_chunk_voxel() {
        // Solid voxel at read (0, 0, 0), the halo corner: only chunk voxel (0, 0, 0) neighbours it.
        let mut voxels = vec![Voxel::EMPTY; 1000];
        voxels[0] = Voxel::new(-1, 1);
        let built = build(&voxels, &phase_codes(&PhaseTable::DEFAULT));
        let mut expected = SliceMask::default();
        expected.0[0] = 1;
        assert_eq!(built.solid, expected);
    }

    #[test]
    fn all_solid_needs_every_voxel_of_the_read() {
        let codes = phase_codes(&PhaseTable::DEFAULT);
        let mut voxels = vec![Voxel::new(-1, 1); 1000];
        assert!(build(&voxels, &codes).all_solid);
        // One halo corner of air: the masks stay full, but the chunk is not all solid.
        voxels[999] = Voxel::EMPTY;
        let built = build(&voxels, &codes);
        assert!(built.solid == SliceMask::FULL && !built.all_solid);
    }

    #[test]
    fn lookup_tables_cover_exactly_their_ranges() {
        for lo in 0..=8 {
            for hi in lo..=8 {
                for bit in 0..64 {
                    let (x, z) = (bit % 8, bit / 8);
                    assert_eq!(MASKS_X[lo][hi] >> bit & 1 == 1, (lo..hi).contains(&x));
                    assert_eq!(MASKS_Z[lo][hi] >> bit & 1 == 1, (lo..hi).contains(&z));
                }
            }
        }
    }
}
