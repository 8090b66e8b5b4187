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
const ROW_BITS: u16 = (1 << R) - 1;

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
/// use voxel_broadphase::MaskBuilder;
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

/// What a 10^3 read holds, and the dilated masks of its inner 8^3.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Built {
    pub solid: SliceMask,
    pub water: SliceMask,
    /// Solid voxels in the 10^3 read.
    pub solid_count: u32,
    /// Water voxels in the 10^3 read.
    pub water_count: u32,
}

/// Phase code per material: bit 0 solid, bit 1 water. Built once from a phase table, so the
/// per-voxel work is one table load.
pub(crate) fn phase_codes(table: &PhaseTable) -> [u8; 256] {
    let mut codes = [0u8; 256];
    for (m, code) in codes.iter_mut().enumerate() {
        *code = match table.phase(m as u8) {
            Phase::Solid => 1,
            Phase::Liquid => 2,
            Phase::Empty => 0,
        };
    }
    codes
}

/// Builds the dilated solid and water masks from the 10^3 voxels around a chunk (workspace axis
/// order: `x` fastest, then `z`, then `y`).
pub(crate) fn build(voxels: &[Voxel], codes: &[u8; 256]) -> Built {
    debug_assert_eq!(voxels.len(), R * R * R);
    build_strided(voxels, 0, R, R, codes)
}

/// [`build`] over the 10^3 box of a larger buffer: its voxel (0, 0, 0) at `origin`, rows `sx`
/// voxels apart and slices `sx * sz` apart (a block read shared by many chunks).
pub(crate) fn build_strided(voxels: &[Voxel], origin: usize, sx: usize, sz: usize, codes: &[u8; 256]) -> Built {
    // Occupancy rows: rows[y][z] has bit x set when voxel (x, y, z) of the read is solid / water.
    let mut solid = [[0u16; R]; R];
    let mut water = [[0u16; R]; R];
    let (mut solid_count, mut water_count) = (0u32, 0u32);
    for row_index in 0..R * R {
        let (y, z) = (row_index / R, row_index % R);
        let start = origin + sx * (z + sz * y);
        let row = &voxels[start..start + R];
        let (mut s, mut w) = (0u16, 0u16);
        // Most rows are open air or one rock: decide those from the signs and one material, which
        // vectorizes, before the per-voxel table lookups.
        let first = row[0];
        if row.iter().all(|v| v.distance >= 0) {
        } else if row.iter().all(|v| v.distance < 0 && v.material == first.material) {
            let code = codes[usize::from(first.material)];
            s = if code & 1 != 0 { ROW_BITS } else { 0 };
            w = if code & 2 != 0 { ROW_BITS } else { 0 };
        } else {
            for (x, v) in row.iter().enumerate() {
                // Outside voxels are empty whatever their material: mask the code by the sign.
                let code = codes[usize::from(v.material)] & (0u8.wrapping_sub(u8::from(v.distance < 0)));
                s |= u16::from(code & 1) << x;
                w |= u16::from(code >> 1) << x;
            }
        }
        solid_count += s.count_ones();
        water_count += w.count_ones();
        solid[y][z] = s;
        water[y][z] = w;
    }
    Built { solid: dilate(&solid), water: dilate(&water), solid_count, water_count }
}

/// Dilates 10^2 rows of 10 bits by one voxel along all three axes and keeps the inner 8^3.
// Rows are read at their neighbours' indices (z - 1, z + 1, y - 1, y + 1): index loops say that best.
#[allow(clippy::needless_range_loop)]
fn dilate(rows: &[[u16; R]; R]) -> SliceMask {
    // Along x: each row ORed with itself shifted one bit either way.
    let mut x_dilated = [[0u16; R]; R];
    for y in 0..R {
        for z in 0..R {
            let r = rows[y][z];
            x_dilated[y][z] = (r | r << 1 | r >> 1) & ROW_BITS;
        }
    }
    // Along z, for the inner rows only (the outer ones are discarded at the end).
    let mut xz_dilated = [[0u16; R]; R];
    for y in 0..R {
        for z in 1..R - 1 {
            xz_dilated[y][z] = x_dilated[y][z - 1] | x_dilated[y][z] | x_dilated[y][z + 1];
        }
    }
    // Along y, and extraction of the inner 8 bits of the inner 8x8 rows.
    let mut out = SliceMask::default();
    for y in 1..R - 1 {
        let mut slice = 0u64;
        for z in 1..R - 1 {
            let r = xz_dilated[y - 1][z] | xz_dilated[y][z] | xz_dilated[y + 1][z];
            slice |= u64::from((r >> 1) & 0xFF) << (8 * (z - 1));
        }
        out.0[y - 1] = slice;
    }
    out
}

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
            let count = |p: Phase| voxels.iter().filter(|v| v.phase(&table) == p).count() as u32;
            prop_assert_eq!(built.solid_count, count(Phase::Solid));
            prop_assert_eq!(built.water_count, count(Phase::Liquid));
        }
    }

    #[test]
    fn outside_voxels_never_count_whatever_their_material() {
        let voxels = vec![Voxel::new(5, 1); 1000];
        let built = build(&voxels, &phase_codes(&PhaseTable::DEFAULT));
        assert!(built.solid.is_empty() && built.solid_count == 0);
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
