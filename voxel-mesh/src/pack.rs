//! Inside bits of voxel rows: the one pass over every voxel of a padded region.
//!
//! On x86_64 the common case (a phase table that leaves out at most two materials, like air and
//! water) takes 16 voxels per step with SSE2 (part of the x86_64 baseline): distance signs and
//! material comparisons become bit masks with `movemask`. Everything else, and other targets, use
//! the portable path. Both give the same bits (tested).

use voxel_core::Voxel;

/// Which materials count as inside, in the shape the fast path takes: a range of material ids
/// without up to two exceptions. Most phase tables have it (air 0, then solids, maybe water).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MaterialSet {
    /// First material of the range.
    pub(crate) lo: u8,
    /// Last material of the range (inclusive).
    pub(crate) hi: u8,
    /// Materials inside the range that are not in the set; `None` slots match nothing.
    pub(crate) except: [Option<u8>; 2],
}

impl MaterialSet {
    /// The set `inside[m]` describes, when it has the fast path's shape and is not empty.
    pub(crate) fn from_table(inside: &[bool; 256]) -> Option<MaterialSet> {
        let lo = inside.iter().position(|&i| i)?;
        let hi = inside.iter().rposition(|&i| i)?;
        let mut except = [None; 2];
        let holes = inside.iter().enumerate().take(hi + 1).skip(lo).filter(|(_, i)| !**i);
        for (slot, (m, _)) in holes.enumerate() {
            *except.get_mut(slot)? = Some(m as u8);
        }
        #[allow(clippy::cast_possible_truncation)]
        Some(MaterialSet { lo: lo as u8, hi: hi as u8, except })
    }

    #[inline]
    fn contains(&self, m: u8) -> bool {
        (self.lo..=self.hi).contains(&m) && self.except[0] != Some(m) && self.except[1] != Some(m)
    }
}

/// The smallest and largest material among the inside voxels (`lo > hi` when none is inside).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct InsideMaterials {
    pub(crate) lo: u8,
    pub(crate) hi: u8,
}

impl InsideMaterials {
    pub(crate) const NONE: InsideMaterials = InsideMaterials { lo: u8::MAX, hi: 0 };

    /// The material of every inside voxel, when they share one.
    pub(crate) fn only(self) -> Option<u8> {
        (self.lo == self.hi).then_some(self.lo)
    }

    fn add(&mut self, inside: bool, m: u8) {
        // Branch-free, so the flag loop stays vectorized.
        self.lo = self.lo.min(if inside { m } else { u8::MAX });
        self.hi = self.hi.max(if inside { m } else { 0 });
    }
}

/// Sets `stream` to one bit per voxel (see [`unstream`]): distance negative and material in
/// `set`. `flags` is the portable path's scratch (targets without SSE2).
///
/// With `RANGE`, also returns the range of the inside voxels' materials (else
/// [`InsideMaterials::NONE`]): blocky meshing uses it, Surface Nets does not pay for it.
pub(crate) fn stream_set<const RANGE: bool>(
    voxels: &[Voxel],
    flags: &mut Vec<u8>,
    stream: &mut Vec<u64>,
    set: MaterialSet,
) -> InsideMaterials {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        let _ = flags;
        // SAFETY: this is compiled only where the target enables SSE2 (every x86_64 target but
        // the bare-metal ones that turn SIMD off), so the CPU running it has SSE2.
        unsafe { sse2::stream_set::<RANGE>(voxels, stream, set) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    stream_with::<RANGE>(voxels, flags, stream, |v| (v.distance < 0) & set.contains(v.material))
}

/// Sets `stream` to one bit per voxel, `inside(v)`: first one flag byte per voxel over the whole
/// buffer (a long loop the compiler vectorizes), then eight flags at a time become eight bits
/// with one multiply. With `RANGE`, also the inside materials' range, as [`stream_set`].
pub(crate) fn stream_with<const RANGE: bool>(
    voxels: &[Voxel],
    flags: &mut Vec<u8>,
    stream: &mut Vec<u64>,
    inside: impl Fn(Voxel) -> bool,
) -> InsideMaterials {
    flags.resize(voxels.len(), 0);
    let mut materials = InsideMaterials::NONE;
    for (f, v) in flags.iter_mut().zip(voxels) {
        let i = inside(*v);
        *f = u8::from(i);
        if RANGE {
            materials.add(i, v.material);
        }
    }
    stream.clear();
    stream.resize(voxels.len().div_ceil(64) + 1, 0);
    let mut run = [0u8; 64];
    for (part, out) in flags.chunks(64).zip(stream.iter_mut()) {
        run[..part.len()].copy_from_slice(part);
        run[part.len()..].fill(0);
        let mut b = 0u64;
        for (k, eight) in run.chunks_exact(8).enumerate() {
            let x = u64::from_le_bytes(eight.try_into().unwrap_or([0; 8]));
            // Byte i holds 0 or 1; the multiply gathers them into the top byte, bit i.
            b |= (x.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * k);
        }
        *out = b;
    }
    materials
}

/// Cuts the voxels' bits laid end to end (`stream`: bit `i % 64` of word `i / 64` is voxel `i`,
/// then at least one zero word) into rows of `nx` bits, `words` words per row.
///
/// Packing the whole buffer as one stream keeps the SIMD steps full: rows of 18 or 34 voxels (16^3
/// and 32^3 chunks with their padding) otherwise end in voxels packed one at a time.
pub(crate) fn unstream(stream: &[u64], rows: &mut [u64], nx: usize, words: usize) {
    let last_word = if nx.is_multiple_of(64) { u64::MAX } else { (1u64 << (nx % 64)) - 1 };
    // `<< 1 << (63 - shift)` is `<< (64 - shift)`, and 0 when a row starts on a word.
    let bits_at = |bit: usize| {
        let (i, shift) = (bit / 64, bit % 64);
        stream[i] >> shift | stream[i + 1] << 1 << (63 - shift)
    };
    if words == 1 {
        // Chunks up to 62 voxels wide: one word per row, no inner loop.
        for (r, row) in rows.iter_mut().enumerate() {
            *row = bits_at(r * nx) & last_word;
        }
        return;
    }
    for (r, row) in rows.chunks_exact_mut(words).enumerate() {
        for (w, out) in row.iter_mut().enumerate() {
            *out = bits_at(r * nx + 64 * w);
        }
        if let Some(last) = row.last_mut() {
            *last &= last_word;
        }
    }
}

/// Whether the first `len` bits of `stream` hold a set bit, and whether they hold a clear one.
pub(crate) fn any_set_and_clear(stream: &[u64], len: usize) -> (bool, bool) {
    let (full, rest) = (len / 64, len % 64);
    let (mut set, mut clear) = (0u64, 0u64);
    for &w in &stream[..full] {
        set |= w;
        clear |= !w;
    }
    if rest != 0 {
        let mask = (1u64 << rest) - 1;
        set |= stream[full] & mask;
        clear |= !stream[full] & mask;
    }
    (set != 0, clear != 0)
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod sse2 {
    use core::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_andnot_si128, _mm_cmpeq_epi8, _mm_cmplt_epi8, _mm_loadu_si128, _mm_max_epu8,
        _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128, _mm_packs_epi16, _mm_packus_epi16, _mm_set1_epi8,
        _mm_setzero_si128, _mm_slli_epi16, _mm_srli_epi16, _mm_storeu_si128, _mm_sub_epi8,
    };

    use super::{InsideMaterials, MaterialSet};
    use voxel_core::Voxel;

    /// The voxels as bytes: distance, material, distance, material, ...
    fn voxel_bytes(voxels: &[Voxel]) -> &[u8] {
        const { assert!(size_of::<Voxel>() == 2 && align_of::<Voxel>() == 1) };
        // SAFETY: `Voxel` is `repr(C)` with two one-byte fields and no padding (size 2, align 1,
        // checked above), so the slice is exactly `2 * len` initialized bytes, borrowed as long.
        unsafe { std::slice::from_raw_parts(voxels.as_ptr().cast::<u8>(), 2 * voxels.len()) }
    }

    /// The set as byte vectors: range start, range length, and per exception its value and an
    /// enable mask (all ones when the slot is used).
    struct Lanes {
        lo: __m128i,
        span: __m128i,
        a: __m128i,
        a_on: __m128i,
        b: __m128i,
        b_on: __m128i,
    }

    /// Per byte lane, the smallest and largest inside material seen (255 and 0 when none).
    struct Range {
        lo: __m128i,
        hi: __m128i,
    }

    /// Inside bits of the 16 voxels in `bytes`; their inside materials widen `range`.
    #[inline]
    #[target_feature(enable = "sse2")]
    fn sixteen<const RANGE: bool>(bytes: &[u8; 32], set: &Lanes, range: &mut Range) -> u64 {
        // SAFETY: both loads read 16 bytes inside the borrowed 32-byte array (unaligned loads).
        let (lo, hi) = unsafe {
            (_mm_loadu_si128(bytes.as_ptr().cast()), _mm_loadu_si128(bytes.as_ptr().add(16).cast::<__m128i>()))
        };
        // Distances sit in the low byte of each 16-bit lane, materials in the high byte. Shifted
        // up, a distance's lane has its sign, and the signed pack keeps it (saturating the rest).
        let distances = _mm_packs_epi16(_mm_slli_epi16(lo, 8), _mm_slli_epi16(hi, 8));
        let materials = _mm_packus_epi16(_mm_srli_epi16(lo, 8), _mm_srli_epi16(hi, 8));
        // m - lo <= hi - lo, unsigned: min(m - lo, span) == m - lo.
        let offset = _mm_sub_epi8(materials, set.lo);
        let in_range = _mm_cmpeq_epi8(_mm_min_epu8(offset, set.span), offset);
        let excluded = _mm_or_si128(
            _mm_and_si128(_mm_cmpeq_epi8(materials, set.a), set.a_on),
            _mm_and_si128(_mm_cmpeq_epi8(materials, set.b), set.b_on),
        );
        if !RANGE {
            // The distances' sign bits, kept where the material counts: one mask move.
            let inside = _mm_andnot_si128(excluded, _mm_and_si128(distances, in_range));
            return u64::from(_mm_movemask_epi8(inside) as u32);
        }
        // Negative distances where the material counts: all ones per inside voxel.
        let negative = _mm_cmplt_epi8(distances, _mm_setzero_si128());
        let inside = _mm_andnot_si128(excluded, _mm_and_si128(negative, in_range));
        // Outside lanes offer 255 to the minimum and 0 to the maximum.
        range.lo = _mm_min_epu8(range.lo, _mm_or_si128(materials, _mm_andnot_si128(inside, byte_ones())));
        range.hi = _mm_max_epu8(range.hi, _mm_and_si128(materials, inside));
        u64::from(_mm_movemask_epi8(inside) as u32)
    }

    #[inline]
    #[target_feature(enable = "sse2")]
    fn byte_ones() -> __m128i {
        _mm_set1_epi8(-1)
    }

    /// Sets `stream` to the inside bits of every voxel laid end to end, then one zero word:
    /// 64 voxels per word, 16 per SIMD step.
    #[target_feature(enable = "sse2")]
    pub(super) fn stream_set<const RANGE: bool>(
        voxels: &[Voxel],
        stream: &mut Vec<u64>,
        set: MaterialSet,
    ) -> InsideMaterials {
        let bytes = voxel_bytes(voxels);
        let byte = |v: u8| _mm_set1_epi8(v as i8);
        let on = |slot: Option<u8>| _mm_set1_epi8(if slot.is_some() { -1 } else { 0 });
        let lanes = Lanes {
            lo: byte(set.lo),
            span: byte(set.hi - set.lo),
            a: byte(set.except[0].unwrap_or(0)),
            a_on: on(set.except[0]),
            b: byte(set.except[1].unwrap_or(0)),
            b_on: on(set.except[1]),
        };
        let mut range = Range { lo: byte_ones(), hi: _mm_setzero_si128() };
        stream.clear();
        stream.resize(voxels.len().div_ceil(64) + 1, 0);
        // 64 voxels (128 bytes) per word, four SIMD steps written out; the last word takes what
        // is left.
        let mut blocks = bytes.chunks_exact(128);
        for (block, bits) in (&mut blocks).zip(stream.iter_mut()) {
            let mut step = |k: usize| {
                let group: &[u8; 32] = block[32 * k..32 * k + 32].try_into().unwrap_or(&[0; 32]);
                sixteen::<RANGE>(group, &lanes, &mut range) << (16 * k)
            };
            *bits = step(0) | step(1) | step(2) | step(3);
        }
        let mut materials = InsideMaterials::NONE;
        let tail = blocks.remainder();
        if let Some(bits) = stream.get_mut(bytes.len() / 128).filter(|_| !tail.is_empty()) {
            let block = tail;
            let mut groups = block.chunks_exact(32);
            let mut x = 0;
            for group in &mut groups {
                // x is a multiple of 16 below 64.
                *bits |= sixteen::<RANGE>(group.try_into().unwrap_or(&[0; 32]), &lanes, &mut range) << x;
                x += 16;
            }
            for pair in groups.remainder().chunks_exact(2) {
                let inside = (pair[0] as i8) < 0 && set.contains(pair[1]);
                *bits |= u64::from(inside) << x;
                if RANGE {
                    materials.add(inside, pair[1]);
                }
                x += 1;
            }
        }
        if !RANGE {
            return materials;
        }
        let (mut lo, mut hi) = ([0u8; 16], [0u8; 16]);
        // SAFETY: each store writes 16 bytes into a 16-byte array (unaligned store).
        unsafe {
            _mm_storeu_si128(lo.as_mut_ptr().cast(), range.lo);
            _mm_storeu_si128(hi.as_mut_ptr().cast(), range.hi);
        }
        for (l, h) in lo.into_iter().zip(hi) {
            materials.lo = materials.lo.min(l);
            materials.hi = materials.hi.max(h);
        }
        materials
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The SIMD path and the portable one agree on every row length around the 16 and 64 voxel
    /// steps, on every byte value of distance and material.
    #[test]
    fn material_sets_from_tables() {
        let table = |f: fn(usize) -> bool| -> [bool; 256] { core::array::from_fn(f) };
        assert_eq!(MaterialSet::from_table(&table(|_| false)), None);
        assert_eq!(
            MaterialSet::from_table(&table(|m| m != 0 && m != 4)),
            Some(MaterialSet { lo: 1, hi: 255, except: [Some(4), None] })
        );
        // Three holes: not the fast path's shape.
        assert_eq!(MaterialSet::from_table(&table(|m| m % 2 == 0 && m < 8)), None);
    }

    #[test]
    fn fast_path_equals_portable_path() {
        let mut seed = 0x1234_5678_9abc_def0_u64;
        for nx in [1usize, 2, 15, 16, 17, 31, 33, 34, 63, 64, 65, 66, 130] {
            let words = nx.div_ceil(64);
            let rows_count = 7;
            let voxels: Vec<Voxel> = (0..nx * rows_count)
                .map(|_| {
                    seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                    let bytes = (seed >> 40).to_le_bytes();
                    // Materials from a small set so the excluded ones occur often.
                    Voxel::new(bytes[0] as i8, bytes[1] % 6)
                })
                .collect();
            let tables: [&dyn Fn(u8) -> bool; 5] =
                [&|m| m != 0, &|m| m != 0 && m != 4, &|m| (1..=3).contains(&m), &|m| m == 4, &|m| m == 2 || m == 5];
            for table in tables {
                let inside: [bool; 256] = core::array::from_fn(|m| table(m as u8));
                let set = MaterialSet::from_table(&inside).expect("fast-path shape");
                let (mut fast, mut slow) = (vec![u64::MAX; 3], Vec::new());
                let fast_range = stream_set::<true>(&voxels, &mut Vec::new(), &mut fast, set);
                let slow_range = stream_with::<true>(&voxels, &mut Vec::new(), &mut slow, |v| {
                    (v.distance < 0) & inside[v.material as usize]
                });
                assert_eq!(fast, slow, "nx {nx}, set {set:?}");
                let counted =
                    voxels.iter().filter(|v| (v.distance < 0) & inside[v.material as usize]).map(|v| v.material);
                let want =
                    InsideMaterials { lo: counted.clone().min().unwrap_or(u8::MAX), hi: counted.max().unwrap_or(0) };
                assert_eq!(fast_range, want, "nx {nx}, set {set:?}");
                let mut no_range = Vec::new();
                let none = stream_set::<false>(&voxels, &mut Vec::new(), &mut no_range, set);
                assert_eq!((no_range, none), (fast.clone(), InsideMaterials::NONE), "nx {nx}, set {set:?}");
                assert_eq!(slow_range, want, "nx {nx}, set {set:?}");
                // Rows cut from the stream hold exactly their voxels' bits.
                let mut rows = vec![u64::MAX; words * rows_count];
                unstream(&fast, &mut rows, nx, words);
                for (i, v) in voxels.iter().enumerate() {
                    let (row, x) = (i / nx, i % nx);
                    let bit = rows[row * words + x / 64] >> (x % 64) & 1 != 0;
                    assert_eq!(bit, (v.distance < 0) & inside[v.material as usize], "nx {nx}, voxel {i}");
                }
                for (row, bits) in rows.chunks_exact(words).enumerate() {
                    let used = nx - 64 * (words - 1);
                    assert_eq!(bits[words - 1] >> 1 >> (used - 1), 0, "nx {nx}, row {row}: bits past the row");
                }
            }
        }
    }
}
