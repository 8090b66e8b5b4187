//! The small query with AVX2, chosen at run time: boxes within two chunks per axis, inside the
//! dense grid (every character-sized box away from the grid's edge).
//!
//! Against the SSE2 path (`query::sse2` and `walk_small`) it halves the instructions of a
//! character-sized query (403 -> 208) and cuts its time by about 40% (31.5 -> 18.1-19.5 ns in
//! the probe): floors in one instruction (`roundps`), the range and grid checks in one branch, one
//! flat table index per axis, the one to eight chunks unrolled (constant offsets, a branch per
//! doubled axis: a jump table over the eight window shapes mispredicted more), and each chunk's
//! test in three 256-bit ANDs (its XZ mask from the two broadcast rows, the mask's two halves
//! with the Y slices), an OR and a `vptest`.
//!
//! A query is bound by its chain of dependent loads (box, tables, slices, grid, masks) more than
//! by its instruction count: cutting 232 instructions to 208 gained 3%, while computing the grid
//! index before the tables (no spill and reload on the chain) gained 8%. Hence the order below.

use core::arch::x86_64::{
    __m128i, __m256i, _mm_add_epi32, _mm_and_ps, _mm_and_si128, _mm_castps_si128, _mm_castsi128_ps, _mm_cmpeq_epi32,
    _mm_cmpeq_ps, _mm_cmpge_ps, _mm_cmpgt_epi32, _mm_cmple_ps, _mm_cmplt_ps, _mm_cvttps_epi32, _mm_extract_epi32,
    _mm_floor_ps, _mm_loadu_ps, _mm_max_epu32, _mm_movemask_ps, _mm_or_si128, _mm_permute_ps, _mm_set_epi32,
    _mm_set1_epi32, _mm_set1_ps, _mm_slli_epi32, _mm_srai_epi32, _mm_sub_epi32, _mm_xor_si128, _mm256_and_si256,
    _mm256_load_si256, _mm256_or_si256, _mm256_set1_epi64x,
};

use core::mem::MaybeUninit;

use glam::IVec3;
use voxel_core::Aabb;

use super::{FAST, MARGIN, TABLES, is_full, reach_shift};
use crate::broadphase::{Broadphase, ChunkHit, Slot};
use crate::index;

/// The mask (or slice selection) `slot` as two 256-bit lanes.
#[target_feature(enable = "avx2")]
#[inline]
fn lanes(slot: &Slot) -> [__m256i; 2] {
    // SAFETY: a `Slot` is 64 bytes aligned to 64.
    #[allow(unsafe_code)]
    unsafe {
        lanes_at(core::ptr::from_ref(slot).cast())
    }
}

/// Whether the box's bits (`slices`, the Y slices it covers, and `xz`, its XZ mask) meet the
/// mask `m`: two ANDs, an OR and a `vptest`.
#[target_feature(enable = "avx2")]
#[inline]
fn touches(m: [__m256i; 2], slices: [__m256i; 2], xz: __m256i) -> bool {
    overlaps(_mm256_or_si256(_mm256_and_si256(m[0], slices[0]), _mm256_and_si256(m[1], slices[1])), xz)
}

/// Queries `aabb` as [`Broadphase::query`] does and returns true, when the box is small (two
/// chunks or fewer per axis, coordinates below `FAST`, inside the dense grid); returns false,
/// leaving `out` alone, for every other box (bad ones included), which the portable paths take.
///
/// Hits are appended to `out`. Callers outside an AVX2 context call it in `unsafe`, having checked
/// that the CPU supports AVX2.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn query_small(bp: &Broadphase, aabb: &Aabb, out: &mut Vec<ChunkHit>) -> bool {
    // Two overlapping loads, lanes 0-2 the corners; lane 3 (`max.x`, then `max.z`) is never
    // read below. Gathered from the fields, the corners took five instructions and a few more
    // cycles of the query's latency chain.
    let p = core::ptr::from_ref(aabb).cast::<f32>();
    // SAFETY: `Aabb` is `#[repr(C)]`, six `f32` (checked below `query_small`): bytes 0..16 and
    // 8..24 lie inside it; the loads are unaligned.
    #[allow(unsafe_code)]
    let (min, max) = unsafe { (_mm_loadu_ps(p), _mm_permute_ps::<0b11_11_10_01>(_mm_loadu_ps(p.add(2)))) };
    // Ordered and within ±FAST; NaN fails every comparison. Checked together with the window
    // below (the lanes computed meanwhile from a bad box are not used).
    let in_range = _mm_castps_si128(_mm_and_ps(
        _mm_and_ps(_mm_cmple_ps(min, max), _mm_cmpge_ps(min, _mm_set1_ps(-FAST))),
        _mm_cmplt_ps(max, _mm_set1_ps(FAST)),
    ));
    // The cells as `Cells::new`'s fast path computes them (below FAST every step is exact).
    let neg_shift = vector(TABLES.neg_shift[reach_shift(bp.reach)]);
    let (floor_min, floor_max) = (_mm_floor_ps(min), _mm_floor_ps(max));
    let min_is_integer = _mm_castps_si128(_mm_cmpeq_ps(floor_min, min));
    let margin = _mm_set1_epi32(MARGIN);
    let first =
        _mm_sub_epi32(_mm_add_epi32(_mm_cvttps_epi32(floor_min), _mm_and_si128(min_is_integer, neg_shift)), margin);
    let last = _mm_add_epi32(_mm_cvttps_epi32(floor_max), margin);
    let k0 = _mm_srai_epi32::<3>(first);
    // `two` is 0 or more (last > first); at most 1 per axis, and the keys `k0..=k0 + two` inside
    // the grid: `d` and `d + two` below the size, unsigned (a key below the grid wraps to a huge
    // offset, and `d + two` wraps only from there, which the max keeps). No grid: size 0.
    let two = _mm_sub_epi32(_mm_srai_epi32::<3>(last), k0);
    let (keys_min, size) = bp.chunks.grid_lanes();
    let d = _mm_sub_epi32(k0, vector(keys_min));
    let far = _mm_max_epu32(d, _mm_add_epi32(d, two));
    let one = _mm_set1_epi32(1);
    let sign = _mm_set1_epi32(i32::MIN);
    let ok = _mm_and_si128(
        _mm_and_si128(in_range, _mm_cmpeq_epi32(_mm_max_epu32(two, one), one)),
        _mm_cmpgt_epi32(_mm_xor_si128(vector(size), sign), _mm_xor_si128(far, sign)),
    );
    if _mm_movemask_ps(_mm_castsi128_ps(ok)) & 7 != 7 {
        return false;
    }
    // A window has at most 8 chunks: room for all of them, then one length update at the end.
    let len = out.len();
    out.reserve(8);
    let Some(spare): Option<&mut [MaybeUninit<ChunkHit>; 8]> = out.spare_capacity_mut().first_chunk_mut() else {
        // Never taken: `reserve(8)` made room. The portable path would give the same hits.
        return false;
    };
    let mut n = 0usize;
    // The window's first grid index and its shape first, so that `d` and `two` die early: kept
    // until the chunks, they were spilled, and the grid index waited for the reload.
    let (grid, [sx, sxz]) = bp.chunks.grid_and_strides();
    let start = _mm_extract_epi32::<0>(d) as u32 as usize
        + sx * _mm_extract_epi32::<2>(d) as u32 as usize
        + sxz * _mm_extract_epi32::<1>(d) as u32 as usize;
    // The window's shape: two chunks along x (bit 0), y (bit 1), z (bit 2), walked in key order
    // (y, then z, then x).
    let shape = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(two, one)));
    let (wx, wy, wz) = (shape & 1 != 0, shape & 2 != 0, shape & 4 != 0);
    // Per axis, the pair tables' index `shift << 7 | l << 4 | h` (`super::pair_index`).
    let index = _mm_or_si128(
        _mm_or_si128(
            _mm_slli_epi32::<4>(_mm_and_si128(first, _mm_set1_epi32(7))),
            _mm_sub_epi32(last, _mm_slli_epi32::<3>(k0)),
        ),
        _mm_and_si128(neg_shift, _mm_set1_epi32(1 << 7)),
    );
    let xs = &TABLES.x[_mm_extract_epi32::<0>(index) as usize & 255];
    let ys = TABLES.y[_mm_extract_epi32::<1>(index) as usize & 255];
    let zs = &TABLES.z[_mm_extract_epi32::<2>(index) as usize & 255];
    let slices = [lanes(&TABLES.slices[usize::from(ys[0])]), lanes(&TABLES.slices[usize::from(ys[1])])];
    let key = IVec3::new(_mm_extract_epi32::<0>(k0), _mm_extract_epi32::<1>(k0), _mm_extract_epi32::<2>(k0));
    let masks = &bp.masks;
    let base = masks.as_ptr().cast::<u8>();
    // Each axis's one or two rows, broadcast: a chunk's XZ mask is one AND of two of them.
    let bx = [_mm256_set1_epi64x(xs[0] as i64), _mm256_set1_epi64x(xs[1] as i64)];
    let bz = [_mm256_set1_epi64x(zs[0] as i64), _mm256_set1_epi64x(zs[1] as i64)];

    // One chunk of the window: `ix`, `iy`, `iz` are 0 or 1, constants in each arm below.
    macro_rules! chunk {
        ($ix:literal, $iy:literal, $iz:literal) => {{
            // SAFETY: the window check above put every key of the window inside the grid.
            #[allow(unsafe_code)]
            let code = unsafe { *grid.get_unchecked(start + $ix + sx * $iz + sxz * $iy) };
            let xz = _mm256_and_si256(bx[$ix], bz[$iz]);
            // The solid mask's byte offset; the water mask is the next slot.
            let offset = index::solid_offset(code);
            debug_assert!(offset / 64 + usize::from(code & 1 != 0) < masks.len());
            // SAFETY: every code in the grid names allocated slots (`index::Code`;
            // `Broadphase::set_chunk` allocates before it stores a code), the solid one at
            // `code >> 1` and, when `code & 1` is set, the water one after it; the offset is a
            // multiple of 64 and the slots (`Slot`, 64 bytes) are aligned to 64.
            #[allow(unsafe_code)]
            let solid = touches(unsafe { lanes_at(base.add(offset)) }, slices[$iy], xz);
            // Few chunks have water: a branch that is rarely taken costs less than a second test.
            let water = code & 1 != 0 && {
                // SAFETY: as above, with the water bit set.
                #[allow(unsafe_code)]
                let water = unsafe { lanes_at(base.add(offset + 64)) };
                touches(water, slices[$iy], xz)
            };
            // A branch per chunk: writing every chunk's record and counting only the hits
            // made the next chunk's loads wait for the count (25 ns a query instead of 21).
            if solid | water {
                let chunk = key + IVec3::new($ix, $iy, $iz);
                spare[n & 7].write(ChunkHit { chunk, solid, water, full: is_full(code) });
                n += 1;
            }
        }};
    }
    chunk!(0, 0, 0);
    if wx {
        chunk!(1, 0, 0);
    }
    if wz {
        chunk!(0, 0, 1);
        if wx {
            chunk!(1, 0, 1);
        }
    }
    if wy {
        chunk!(0, 1, 0);
        if wx {
            chunk!(1, 1, 0);
        }
        if wz {
            chunk!(0, 1, 1);
            if wx {
                chunk!(1, 1, 1);
            }
        }
    }
    // SAFETY: the places `len..len + n` were written above, in order.
    #[allow(unsafe_code)]
    unsafe {
        out.set_len(len + n);
    }
    true
}

// The box's two loads in `query_small` read bytes 0..16 and 8..24 of an `Aabb`.
const _: () =
    assert!(size_of::<Aabb>() == 24 && core::mem::offset_of!(Aabb, min) == 0 && core::mem::offset_of!(Aabb, max) == 12);

/// The two 256-bit lanes of the slot at `p`.
///
/// # Safety
///
/// `p` points at a [`Slot`] (64 bytes aligned to 64).
#[target_feature(enable = "avx2")]
#[inline]
#[allow(unsafe_code)]
unsafe fn lanes_at(p: *const u8) -> [__m256i; 2] {
    let p = p.cast::<__m256i>();
    // SAFETY: the caller's pointer is a whole, aligned slot; every bit pattern is a valid `__m256i`.
    unsafe { [_mm256_load_si256(p), _mm256_load_si256(p.add(1))] }
}

/// Whether `a` and `b` have a set bit in common: one `vptest`.
///
/// In assembly because LLVM lowers `_mm256_testz_si256` (now a plain reduction in `core::arch`)
/// to a horizontal OR into a general register wherever the flag is used twice, six
/// instructions and a longer dependency chain instead of one.
#[target_feature(enable = "avx2")]
#[inline]
fn overlaps(a: __m256i, b: __m256i) -> bool {
    let r: u8;
    // SAFETY: `vptest` and `setnz` read the two registers and write `r` and the flags only.
    #[allow(unsafe_code)]
    unsafe {
        core::arch::asm!(
            "vptest {a}, {b}",
            "setnz {r}",
            a = in(ymm_reg) a,
            b = in(ymm_reg) b,
            r = out(reg_byte) r,
            options(pure, nomem, nostack),
        );
    }
    r != 0
}

/// Four lanes as a vector.
#[target_feature(enable = "avx2")]
#[inline]
fn vector(a: [i32; 4]) -> __m128i {
    _mm_set_epi32(a[3], a[2], a[1], a[0])
}

/// [`crate::Broadphase::query_batch`] with AVX2: [`query_small`] inlined into the loop over the
/// boxes, so that the call, the register saves and the loads of the grid's and tables' addresses
/// are paid once per batch instead of once per box.
#[target_feature(enable = "avx2")]
pub(super) fn query_batch(
    bp: &Broadphase,
    boxes: &[Aabb],
    hits: &mut Vec<ChunkHit>,
    ends: &mut Vec<u32>,
) -> Result<(), crate::BroadphaseError> {
    ends.reserve(boxes.len());
    for aabb in boxes {
        if !query_small(bp, aabb, hits) {
            bp.query_portable(aabb, hits)?;
        }
        // Truncation is checked once, after the loop (`Broadphase::query_batch`).
        ends.push(hits.len() as u32);
    }
    Ok(())
}
