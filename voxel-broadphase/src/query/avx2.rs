//! The small query with AVX2, chosen at run time: boxes within two chunks per axis, inside the
//! dense grid (every character-sized box away from the grid's edge).
//!
//! Against the SSE2 path (`query::sse2` and `walk_small`) it cuts the instructions of a
//! character-sized query by a third and its time by a quarter: floors in one instruction
//! (`roundps`), the range and grid checks in one branch, one flat table index per axis, the one
//! to eight chunks unrolled (constant offsets, a branch per doubled axis: a jump table over the
//! eight window shapes mispredicted more), and each chunk's test in two 256-bit ANDs, an OR and a
//! `vptest` against the broadcast XZ mask.

use core::arch::x86_64::{
    __m128, __m128i, __m256i, _mm_add_epi32, _mm_and_ps, _mm_and_si128, _mm_castps_si128, _mm_castsi128_ps,
    _mm_cmpeq_epi32, _mm_cmpeq_ps, _mm_cmpge_ps, _mm_cmpgt_epi32, _mm_cmple_ps, _mm_cmplt_ps, _mm_cvttps_epi32,
    _mm_extract_epi32, _mm_floor_ps, _mm_max_epu32, _mm_movemask_ps, _mm_or_si128, _mm_set_epi32, _mm_set1_epi32,
    _mm_set1_ps, _mm_slli_epi32, _mm_srai_epi32, _mm_sub_epi32, _mm_xor_si128, _mm256_and_si256, _mm256_load_si256,
    _mm256_or_si256, _mm256_set1_epi64x, _mm256_testz_si256,
};

use core::mem::MaybeUninit;

use glam::{IVec3, Vec3A};
use voxel_core::Aabb;

use super::{FAST, MARGIN, PAIRS_X, PAIRS_Y, PAIRS_Z, SLICES, is_full, reach_shift};
use crate::broadphase::{Broadphase, ChunkHit, Slot};
use crate::index;

/// The mask (or slice selection) `slot` as two 256-bit lanes.
#[target_feature(enable = "avx2")]
#[inline]
fn lanes(slot: &Slot) -> [__m256i; 2] {
    let p = slot.0.as_ptr().cast::<__m256i>();
    // SAFETY: a `Slot` is 64 bytes aligned to 64, so both 32-byte loads are in bounds and aligned;
    // every bit pattern is a valid `__m256i`; AVX2 is this function's own feature.
    #[allow(unsafe_code)]
    unsafe {
        [_mm256_load_si256(p), _mm256_load_si256(p.add(1))]
    }
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
    let (min, max) = (__m128::from(Vec3A::from(aabb.min)), __m128::from(Vec3A::from(aabb.max)));
    // Ordered and within ±FAST; NaN fails every comparison. Checked together with the window
    // below (the lanes computed meanwhile from a bad box are not used).
    let in_range = _mm_castps_si128(_mm_and_ps(
        _mm_and_ps(_mm_cmple_ps(min, max), _mm_cmpge_ps(min, _mm_set1_ps(-FAST))),
        _mm_cmplt_ps(max, _mm_set1_ps(FAST)),
    ));
    // The cells as `Cells::new`'s fast path computes them (below FAST every step is exact).
    let shift = reach_shift(bp.reach);
    let (floor_min, floor_max) = (_mm_floor_ps(min), _mm_floor_ps(max));
    let min_is_integer = _mm_castps_si128(_mm_cmpeq_ps(floor_min, min));
    let margin = _mm_set1_epi32(MARGIN);
    let first = _mm_sub_epi32(
        _mm_add_epi32(_mm_cvttps_epi32(floor_min), _mm_and_si128(min_is_integer, _mm_set1_epi32(-(shift as i32)))),
        margin,
    );
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
    // Per axis, the pair tables' index `shift << 7 | l << 4 | h` (`super::pair_index`).
    let index = _mm_or_si128(
        _mm_or_si128(
            _mm_slli_epi32::<4>(_mm_and_si128(first, _mm_set1_epi32(7))),
            _mm_sub_epi32(last, _mm_slli_epi32::<3>(k0)),
        ),
        _mm_set1_epi32((shift << 7) as i32),
    );
    let xs = &PAIRS_X[_mm_extract_epi32::<0>(index) as usize & 255];
    let ys = PAIRS_Y[_mm_extract_epi32::<1>(index) as usize & 255];
    let zs = &PAIRS_Z[_mm_extract_epi32::<2>(index) as usize & 255];
    let (grid, [sx, sxz]) = bp.chunks.grid_and_strides();
    let start = _mm_extract_epi32::<0>(d) as u32 as usize
        + sx * _mm_extract_epi32::<2>(d) as u32 as usize
        + sxz * _mm_extract_epi32::<1>(d) as u32 as usize;
    let key = IVec3::new(_mm_extract_epi32::<0>(k0), _mm_extract_epi32::<1>(k0), _mm_extract_epi32::<2>(k0));
    let slices = [lanes(&SLICES[usize::from(ys[0])]), lanes(&SLICES[usize::from(ys[1])])];
    let masks = &bp.masks;
    // A window has at most 8 chunks: room for all of them, then one length update at the end.
    let len = out.len();
    out.reserve(8);
    let Some(spare): Option<&mut [MaybeUninit<ChunkHit>; 8]> = out.spare_capacity_mut().first_chunk_mut() else {
        // Never taken: `reserve(8)` made room. The portable path would give the same hits.
        return false;
    };
    let mut n = 0usize;

    // One chunk of the window: `ix`, `iy`, `iz` are 0 or 1, constants in each arm below.
    macro_rules! chunk {
        ($ix:literal, $iy:literal, $iz:literal) => {{
            // SAFETY: the window check above put every key of the window inside the grid.
            #[allow(unsafe_code)]
            let code = unsafe { *grid.get_unchecked(start + $ix + sx * $iz + sxz * $iy) };
            let xz = _mm256_set1_epi64x((xs[$ix] & zs[$iz]) as i64);
            let [s0, s1] = slices[$iy];
            // Macros, not closures: a closure would not inherit this function's AVX2.
            macro_rules! touches {
                ($slot:expr) => {{
                    debug_assert!($slot < masks.len());
                    // SAFETY: every code in the grid names allocated slots (`index::Code`;
                    // `Broadphase::set_chunk` allocates before it stores a code).
                    #[allow(unsafe_code)]
                    let [m0, m1] = lanes(unsafe { masks.get_unchecked($slot) });
                    _mm256_testz_si256(_mm256_or_si256(_mm256_and_si256(m0, s0), _mm256_and_si256(m1, s1)), xz) == 0
                }};
            }
            // Tags need no test of their own: their slots are the empty and the full mask
            // (`index::Code`).
            let solid = touches!(index::solid_slot(code));
            // Few chunks have water: a branch that is rarely taken costs less than a second test.
            let water = code & 1 != 0 && touches!(index::water_slot(code));
            if solid | water {
                let chunk = key + IVec3::new($ix, $iy, $iz);
                spare[n & 7].write(ChunkHit { chunk, solid, water, full: is_full(code) });
                n += 1;
            }
        }};
    }
    // The window's shape: two chunks along x (bit 0), y (bit 1), z (bit 2), walked in key order
    // (y, then z, then x).
    let shape = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(two, one)));
    let (wx, wy, wz) = (shape & 1 != 0, shape & 2 != 0, shape & 4 != 0);
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
