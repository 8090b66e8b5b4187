//! The overlap test: which chunks an object's box touches with solid or water.
//!
//! Seed `000_ce04cac11e01e96d.txt`, "Bit broadphase: overlap test": grow the object's box by one
//! voxel, floor/ceil it into a range of chunks, and per chunk build the XZ mask from two lookup
//! tables (`MASKS_X[min][max] & MASKS_Z[min][max]`), then AND it with the covered Y slices.
//!
//! Which bits a box must test depends on how far geometry made from a solid voxel can reach
//! ([`Reach`]). The masks are the seed's 27-neighbour dilation either way.
//!
//! ```text
//! one axis, Reach::SurfaceNets (voxel p is the grid point p, as in voxel-mesh):
//!
//! voxels (grid points)   0     1     2     3     4     5
//! cubes                  |  0  |  1  |  2  |  3  |  4  |
//! grown box                       [===========]        lo = 1.5, hi = 3.5
//! cubes it touches                1     2     3          ceil(lo) - 1 ..= floor(hi)
//! mask bits tested                   2     3             ceil(lo) ..= floor(hi)
//! (bit c, at voxel c: a voxel in c - 1 ..= c + 1 is solid, so cube c - 1 or cube c has a solid corner)
//! ```

use glam::{BVec3A, IVec3, Vec3A};
use voxel_core::Aabb;

use crate::BroadphaseError;
use crate::broadphase::{Broadphase, ChunkHit, MAX_COORDINATE, MAX_QUERY_CHUNKS, QUERY_MARGIN, Slot};
use crate::index::{self, Code};
use crate::masks::{MASKS_X, MASKS_Z};

#[cfg(target_arch = "x86_64")]
mod avx2;

/// How far the geometry made from solid voxels can reach, which decides the mask bits a box tests.
///
/// The masks are the same for both (a voxel's bit is set when any of its 27 neighbours is solid);
/// only the query's reading of them differs. Both never miss geometry of their mesher within the
/// box grown by [`QUERY_MARGIN`]: the precision bench counts 0 missed contacts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Reach {
    /// Geometry of a Naive Surface Nets mesher with voxel `p` at grid point `p` (this workspace's
    /// `voxel-mesh`): triangles lie in the unit cubes `[c, c + 1]` that have a solid corner, and
    /// a chunk's pair means its cubes hold geometry within the grown box. Mask bit `c` is set
    /// exactly when cube `c - 1` or cube `c` has a solid corner, so testing bits
    /// `ceil(lo) ..= floor(hi)` of the grown box `[lo, hi]` covers the cubes it touches with no
    /// extra ring, except where a chunk's share of the box is one cube wide along an axis: that
    /// bit also covers the cube before it.
    #[default]
    SurfaceNets,
    /// The seed's reading: geometry of a solid voxel may spill into any of its 27 neighbours
    /// (voxel `p` is the cell `[p, p + 1)`); the test looks for a set bit in the cells
    /// `floor(lo) ..= floor(hi)` of the grown box. One more ring of cells than Surface Nets needs,
    /// on the low side of every axis.
    Neighbours,
}

impl Broadphase {
    /// Every stored chunk the box `aabb` (world units = voxels, grown by [`QUERY_MARGIN`]) touches
    /// with solid or water, in key order (`y`, then `z`, then `x`), into `out` (cleared first).
    ///
    /// Which bits are tested is the broadphase's [`Reach`]: with either, a box whose test finds
    /// no bit touches no geometry. NaN, infinite or inverted boxes give
    /// [`BroadphaseError::InvalidAabb`]; boxes spanning more than [`MAX_QUERY_CHUNKS`] chunks give
    /// [`BroadphaseError::TooLarge`]; `out` is empty after an error. No allocation once `out`'s
    /// capacity is at least 8 (the most hits a box up to 5 voxels wide has) and at least the
    /// box's hit count.
    #[inline]
    pub fn query(&self, aabb: &Aabb, out: &mut Vec<ChunkHit>) -> Result<(), BroadphaseError> {
        out.clear();
        self.query_append(aabb, out)
    }

    /// [`Broadphase::query`] of many boxes: the hits of box `i` are `hits[ends[i - 1]..ends[i]]`
    /// (from 0 for the first box); `hits` and `ends` are cleared first.
    ///
    /// The same hits as one [`Broadphase::query`] per box, with less overhead per box (with AVX2,
    /// the whole loop runs in one call). On error, `ends.len()` is the index of the failing box;
    /// the boxes before it have their hits. More than `u32::MAX` hits in all give
    /// [`BroadphaseError::TooLarge`] with `hits` and `ends` empty.
    ///
    /// ```
    /// use glam::{IVec3, Vec3};
    /// use voxel_core::{Aabb, VoxelBox};
    /// use voxel_broadphase::Broadphase;
    /// use voxel_store::generate;
    ///
    /// let world = generate::sphere(Vec3::new(16.0, 16.0, 16.0), 6.0).unwrap();
    /// let bp = Broadphase::build(&world, VoxelBox::new(IVec3::ZERO, IVec3::splat(32))).unwrap();
    /// let boxes = [
    ///     Aabb::new(Vec3::new(21.5, 15.5, 15.5), Vec3::new(22.5, 16.5, 16.5)), // at the surface
    ///     Aabb::new(Vec3::new(16.0, 25.0, 16.0), Vec3::new(17.0, 26.0, 17.0)), // in the air
    /// ];
    /// let (mut hits, mut ends) = (Vec::new(), Vec::new());
    /// bp.query_batch(&boxes, &mut hits, &mut ends).unwrap();
    /// assert!(hits[..ends[0] as usize].iter().any(|h| h.solid));
    /// assert_eq!(ends[1], ends[0]);
    /// ```
    pub fn query_batch(
        &self,
        boxes: &[Aabb],
        hits: &mut Vec<ChunkHit>,
        ends: &mut Vec<u32>,
    ) -> Result<(), BroadphaseError> {
        hits.clear();
        ends.clear();
        #[cfg(target_arch = "x86_64")]
        let result = if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above).
            #[allow(unsafe_code)]
            unsafe {
                avx2::query_batch(self, boxes, hits, ends)
            }
        } else {
            self.query_batch_portable(boxes, hits, ends)
        };
        #[cfg(not(target_arch = "x86_64"))]
        let result = self.query_batch_portable(boxes, hits, ends);
        // The ends are stored as `u32`; the lengths only grow, so the last one bounds them all.
        if u32::try_from(hits.len()).is_err() {
            hits.clear();
            ends.clear();
            return Err(BroadphaseError::TooLarge);
        }
        result
    }

    /// [`Broadphase::query_batch`] without AVX2.
    fn query_batch_portable(
        &self,
        boxes: &[Aabb],
        hits: &mut Vec<ChunkHit>,
        ends: &mut Vec<u32>,
    ) -> Result<(), BroadphaseError> {
        for aabb in boxes {
            self.query_portable(aabb, hits)?;
            // Truncation is checked once, after the loop (`query_batch`).
            ends.push(hits.len() as u32);
        }
        Ok(())
    }

    /// [`Broadphase::query`] without clearing `out`: the hits are appended, nothing is on error.
    ///
    /// Inlined into the caller up to the call of the AVX2 small query, which takes almost every
    /// character-sized box: the other paths, out of line, keep their register saves to themselves.
    #[inline]
    pub(crate) fn query_append(&self, aabb: &Aabb, out: &mut Vec<ChunkHit>) -> Result<(), BroadphaseError> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above).
            #[allow(unsafe_code)]
            if unsafe { avx2::query_small(self, aabb, out) } {
                return Ok(());
            }
        }
        self.query_portable(aabb, out)
    }

    /// [`Broadphase::query_append`] without AVX2, and of the boxes its small query leaves.
    #[inline(never)]
    pub(crate) fn query_portable(&self, aabb: &Aabb, out: &mut Vec<ChunkHit>) -> Result<(), BroadphaseError> {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        {
            let (min, max) = (Vec3A::from(aabb.min), Vec3A::from(aabb.max));
            // SAFETY: this is compiled only where the target enables SSE2, so the CPU has it.
            #[allow(unsafe_code)]
            let window = unsafe { sse2::small_window(min, max, reach_shift(self.reach), &self.chunks) };
            if let Some(window) = window {
                self.walk_small(&window, out);
                return Ok(());
            }
        }
        let cells = Cells::new(aabb, self.reach)?;
        if let Some(window) = self.small_window(cells) {
            self.walk_small(&window, out);
            return Ok(());
        }
        self.query_large(cells, out)
    }

    /// [`Broadphase::query`] of boxes [`Broadphase::small_window`] does not take, out of line so
    /// that the small path keeps its registers.
    #[inline(never)]
    fn query_large(&self, cells: Cells, out: &mut Vec<ChunkHit>) -> Result<(), BroadphaseError> {
        let span = QuerySpan::new(&cells);
        span.check_count()?;
        self.for_each_hit_in(&span, |hit| out.push(hit));
        Ok(())
    }

    /// The window of a box spanning at most two chunks per axis (every box up to 5 voxels wide)
    /// inside the dense grid; `None` for other boxes.
    ///
    /// Each axis's bit ranges in its one or two chunks come from a table indexed by the cells'
    /// ends, not from per-chunk arithmetic: a character-sized query is mostly set-up. With SSE2,
    /// `sse2::small_window` does the same in integer lanes, and this serves the boxes it leaves.
    #[inline(always)]
    fn small_window(&self, cells: Cells) -> Option<SmallWindow> {
        let k0 = cells.first >> 3i32;
        let two = (cells.last >> 3i32) - k0;
        // Each is 0 or more, so their OR is at most 1 only when each is.
        if (two.x | two.y | two.z) > 1 {
            return None;
        }
        let start = self.chunks.grid_start_small(k0, two)?;
        // Per axis, the cells' ends relative to the first chunk (`lo` in 0..8, `hi` in 0..16)
        // pick the bits of the first chunk and of the second from the pair tables.
        let lo = (cells.first & 7).to_array().map(|l| l as usize & 7);
        let hi = (cells.last - (k0 << 3i32)).to_array().map(|h| h as usize & 15);
        let shift = cells.shift & 1;
        Some(SmallWindow {
            k0,
            start,
            window: (two.x | two.z << 1 | two.y << 2) as usize,
            xs: &TABLES.x[pair_index(shift, lo[0], hi[0])],
            zs: &TABLES.z[pair_index(shift, lo[2], hi[2])],
            ys: TABLES.y[pair_index(shift, lo[1], hi[1])],
        })
    }

    /// Tests the one to eight chunks of `w` and pushes the hits to `out`, in key order.
    #[inline(always)]
    fn walk_small(&self, w: &SmallWindow, out: &mut Vec<ChunkHit>) {
        let (grid, [sx, sxz]) = self.chunks.grid_and_strides();
        let ys = w.ys.map(|bits| &TABLES.slices[usize::from(bits)].0);
        // The one to eight chunks as the bits `j = ix | iz << 1 | iy << 2` of the window's 2x2x2
        // keys that `w.window` allows, walked in increasing `j`, which is key order (y, then z,
        // then x). One loop instead of three nested ones of one or two turns each: fewer exits
        // for the branch predictor to miss and no loop state to spill.
        let window = w.window & 7;
        let mut j = 0usize;
        loop {
            let (ix, iz, iy) = (j & 1, j >> 1 & 1, j >> 2);
            let code = grid[w.start + ix + (sx & iz.wrapping_neg()) + (sxz & iy.wrapping_neg())];
            let (solid, water) = self.test(code, w.xs[ix] & w.zs[iz], ys[iy & 1]);
            if solid | water {
                let chunk = w.k0 + IVec3::new(ix as i32, iy as i32, iz as i32);
                out.push(ChunkHit { chunk, solid, water, full: is_full(code) });
            }
            if j == window {
                break;
            }
            // The next subset of `window`'s bits above `j`.
            j = ((j | !window) + 1) & window;
        }
    }

    /// Calls `f` for every chunk hit of `span`, in key order.
    fn for_each_hit_in(&self, span: &QuerySpan, mut f: impl FnMut(ChunkHit)) {
        let [ax, ay, az] = span.axes;
        let Some((grid, start, sx, sxz)) = self.chunks.grid_window(span.keys_min(), span.keys_max()) else {
            self.for_each_hit_outside_grid(span, f);
            return;
        };
        // The whole key range is inside the grid: walk its entries without per-key checks.
        let mut layer = start;
        for y in ay.k0..=ay.k1 {
            let slices = ay.slices(y);
            let mut row = layer;
            for z in az.k0..=az.k1 {
                let zmask = az.z_mask(z);
                for (x, &code) in (ax.k0..=ax.k1).zip(&grid[row..=row + (ax.k1 - ax.k0) as usize]) {
                    let (solid, water) = self.test(code, ax.x_mask(x) & zmask, slices);
                    if solid || water {
                        f(ChunkHit { chunk: IVec3::new(x, y, z), solid, water, full: is_full(code) });
                    }
                }
                row += sx;
            }
            layer += sxz;
        }
    }

    /// The query of a span not wholly inside the dense grid: each key looked up on its own.
    #[cold]
    fn for_each_hit_outside_grid(&self, span: &QuerySpan, mut f: impl FnMut(ChunkHit)) {
        let [ax, ay, az] = span.axes;
        for y in ay.k0..=ay.k1 {
            let slices = ay.slices(y);
            for z in az.k0..=az.k1 {
                let zmask = az.z_mask(z);
                for x in ax.k0..=ax.k1 {
                    let key = IVec3::new(x, y, z);
                    let code = self.chunks.get(key);
                    let (solid, water) = self.test(code, ax.x_mask(x) & zmask, slices);
                    if solid || water {
                        f(ChunkHit { chunk: key, solid, water, full: is_full(code) });
                    }
                }
            }
        }
    }

    /// The overlap test of a chunk with index entry `code`: (touches solid, touches water), its
    /// masks ANDed with the XZ mask `xz` in the slices `slices` selects (all ones for a covered
    /// slice, zero otherwise).
    ///
    /// All eight slices are tested, the uncovered ones masked to zero, and the masks of a tag are
    /// the empty slot 0 or the full slot 1 ([`index::Code`]): a fixed amount of work per chunk,
    /// with a branch only for the few chunks that have water.
    #[inline(always)]
    fn test(&self, code: Code, xz: u64, slices: &[u64; 8]) -> (bool, bool) {
        let covered = |mask: &[u64; 8]| mask.iter().zip(slices).fold(0, |acc, (m, s)| acc | m & s) & xz != 0;
        let solid = covered(&self.masks[index::solid_slot(code)].0);
        let water = code & 1 != 0 && covered(&self.masks[index::water_slot(code)].0);
        (solid, water)
    }
}

/// A small query's chunks: at most two per axis, all inside the dense grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SmallWindow {
    /// The first chunk's key.
    k0: IVec3,
    /// The first chunk's index in the grid.
    start: usize,
    /// Two chunks along x, z and y: bits 0, 1 and 2.
    window: usize,
    /// The XZ-mask factors of the first and second chunk along x, and along z.
    xs: &'static [u64; 2],
    zs: &'static [u64; 2],
    /// The slices of the first and second chunk along y, as indices of `TABLES.slices`.
    ys: [u8; 2],
}

/// The `shift` of [`Cells`] for `reach`.
#[inline(always)]
fn reach_shift(reach: Reach) -> usize {
    match reach {
        Reach::SurfaceNets => 1,
        Reach::Neighbours => 0,
    }
}

/// [`Broadphase::small_window`] in SSE2 integer lanes.
///
/// The portable path's set-up is a chain of float floors, lane moves and scalar steps; measured
/// on its own it took about 20 ns of a 37 ns query. Here the box stays in one vector per corner
/// from the floors to the grid check, and lanes leave the vectors once, at the end.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod sse2 {
    use core::arch::x86_64::{
        __m128, __m128i, _mm_add_epi32, _mm_and_ps, _mm_and_si128, _mm_andnot_si128, _mm_castps_si128,
        _mm_castsi128_ps, _mm_cmpeq_epi32, _mm_cmpeq_ps, _mm_cmpge_ps, _mm_cmpgt_epi32, _mm_cmple_ps, _mm_cmplt_epi32,
        _mm_cmplt_ps, _mm_cvtepi32_ps, _mm_cvtsi128_si32, _mm_cvttps_epi32, _mm_movemask_ps, _mm_set_epi32,
        _mm_set1_epi32, _mm_set1_ps, _mm_shuffle_epi32, _mm_slli_epi32, _mm_srai_epi32, _mm_sub_epi32, _mm_xor_si128,
    };

    use glam::{IVec3, Vec3A};

    use super::{FAST, MARGIN, SmallWindow, TABLES};
    use crate::index::ChunkIndex;

    /// The small window of the box `min..max` (lane 3 ignored) under the reach's `shift`, or
    /// `None` for boxes the portable path must take: NaN, inverted, beyond the fast range, over
    /// two chunks along an axis, or not wholly inside the dense grid.
    #[target_feature(enable = "sse2")]
    #[inline]
    pub(super) fn small_window(min: Vec3A, max: Vec3A, shift: usize, chunks: &ChunkIndex) -> Option<SmallWindow> {
        let (min, max) = (__m128::from(min), __m128::from(max));
        let fast = _mm_set1_ps(FAST);
        // As `Cells::new`'s fast path: ordered and within ±FAST; NaN fails every comparison.
        let ok = _mm_and_ps(
            _mm_and_ps(_mm_cmple_ps(min, max), _mm_cmpge_ps(min, _mm_set1_ps(-FAST))),
            _mm_cmplt_ps(max, fast),
        );
        if _mm_movemask_ps(ok) & 7 != 7 {
            return None;
        }
        // Floors: truncation, one less where truncation went up (negative non-integers). Below
        // FAST every value converts exactly.
        let floor = |v: __m128| {
            let t = _mm_cvttps_epi32(v);
            let back = _mm_cvtepi32_ps(t);
            (_mm_add_epi32(t, _mm_castps_si128(_mm_cmplt_ps(v, back))), _mm_castps_si128(_mm_cmpeq_ps(v, back)))
        };
        let ((min_floor, min_is_integer), (max_floor, _)) = (floor(min), floor(max));
        let margin = _mm_set1_epi32(MARGIN);
        // `min_is_integer` is all ones where min is an integer: ANDed with -shift, it adds -shift.
        let first = _mm_sub_epi32(
            _mm_add_epi32(min_floor, _mm_and_si128(min_is_integer, _mm_set1_epi32(-(shift as i32)))),
            margin,
        );
        let last = _mm_add_epi32(max_floor, margin);
        let k0 = _mm_srai_epi32::<3>(first);
        let two = _mm_sub_epi32(_mm_srai_epi32::<3>(last), k0);
        let one = _mm_set1_epi32(1);
        if _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpgt_epi32(two, one))) & 7 != 0 {
            return None;
        }
        // Inside the grid: 0 <= k0 - keys.min < size - two, compared unsigned (a key below the
        // grid wraps to a huge value).
        let (keys_min, size) = chunks.grid_lanes();
        let v = |a: [i32; 4]| _mm_set_epi32(a[3], a[2], a[1], a[0]);
        let d = _mm_sub_epi32(k0, v(keys_min));
        let sign = _mm_set1_epi32(i32::MIN);
        // `size - two` is -1 where there is no grid (size 0): clamped to 0, nothing is inside.
        let limit = _mm_sub_epi32(v(size), two);
        let limit = _mm_andnot_si128(_mm_srai_epi32::<31>(limit), limit);
        let inside = _mm_cmplt_epi32(_mm_xor_si128(d, sign), _mm_xor_si128(limit, sign));
        if _mm_movemask_ps(_mm_castsi128_ps(inside)) & 7 != 7 {
            return None;
        }
        // Table index per axis: lo * 16 + hi, lo in 0..8 and hi in 0..16 (the pair tables).
        let lo = _mm_and_si128(first, _mm_set1_epi32(7));
        let hi = _mm_sub_epi32(last, _mm_slli_epi32::<3>(k0));
        let index = _mm_add_epi32(_mm_slli_epi32::<4>(lo), hi);
        let lanes = |v: __m128i| {
            [
                _mm_cvtsi128_si32(v),
                _mm_cvtsi128_si32(_mm_shuffle_epi32::<0x55>(v)),
                _mm_cvtsi128_si32(_mm_shuffle_epi32::<0xaa>(v)),
            ]
        };
        let [ix, iy, iz] = lanes(index).map(|i| i as usize & 127);
        let [dx, dy, dz] = lanes(d).map(|i| i as usize);
        let doubled = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(two, one))) as usize;
        let [sx, sxz] = chunks.strides();
        let shift = shift & 1;
        Some(SmallWindow {
            k0: IVec3::from_array(lanes(k0)),
            start: dx + sx * dz + sxz * dy,
            // Movemask bits are x, y, z; the window's are x, z, y.
            window: doubled & 1 | (doubled >> 2 & 1) << 1 | (doubled >> 1 & 1) << 2,
            xs: &TABLES.x[shift << 7 | ix],
            zs: &TABLES.z[shift << 7 | iz],
            ys: TABLES.y[shift << 7 | iy],
        })
    }
}

/// True for the tags of full chunks.
#[inline(always)]
fn is_full(code: Code) -> bool {
    code.wrapping_sub(index::FULL_WATER) <= index::FULL_SOLID - index::FULL_WATER
}

/// The small query's lookup tables in one static, so that a query needs one base address instead
/// of one per table (in the bench's position-independent executables, each was a load through
/// the GOT; elsewhere a `lea`, and fewer address registers).
#[repr(C)]
struct Tables {
    /// `slices[bits].0[y]`: all ones for the Y slices `y` whose bit is set in `bits`, zero for
    /// the others; each on its own cache line, as a mask is.
    slices: [Slot; 256],
    /// `x[pair_index(shift, l, h)]`: the XZ-mask factors along `x` of the two chunks
    /// ([`pair_ranges`]).
    x: [[u64; 2]; 256],
    /// `z[pair_index(shift, l, h)]`: the XZ-mask factors along `z` of the two chunks.
    z: [[u64; 2]; 256],
    /// `y[pair_index(shift, l, h)]`: the slices (one bit each, an index of `slices`) of the two
    /// chunks.
    y: [[u8; 2]; 256],
    /// `neg_shift[shift]`: `-shift` in every lane.
    neg_shift: [[i32; 4]; 2],
}

static TABLES: Tables = Tables {
    slices: SLICES,
    x: pair_table(&MASKS_X),
    z: pair_table(&MASKS_Z),
    y: PAIRS_Y,
    neg_shift: [[0; 4], [-1; 4]],
};

const SLICES: [Slot; 256] = {
    let mut t = [Slot([0u64; 8]); 256];
    let mut bits = 0;
    while bits < 256 {
        let mut y = 0;
        while y < 8 {
            if bits >> y & 1 == 1 {
                t[bits].0[y] = u64::MAX;
            }
            y += 1;
        }
        bits += 1;
    }
    t
};

/// The bit ranges `[lo, hi)` a small query tests in the first and the second chunk along an axis,
/// for `shift` (0 or 1, [`Cells`]) and the cells' ends `l` (in the first chunk) and `h` (in the
/// first or the second, 8 and above): bits `min(l + shift, h)..=h` of the cells each chunk holds.
const fn pair_ranges(shift: usize, l: usize, h: usize) -> [(usize, usize); 2] {
    let h0 = if h < 7 { h } else { 7 };
    let first = if l + shift < h0 { l + shift } else { h0 };
    if h < 8 {
        // One chunk: the second range is empty.
        return [(first, h0 + 1), (0, 0)];
    }
    let h1 = h - 8;
    [(first, 8), (if shift < h1 { shift } else { h1 }, h1 + 1)]
}

/// The index of `(shift, l, h)` in the pair tables: `shift << 7 | l << 4 | h`, with `shift` in
/// 0..2, `l` in 0..8 and `h` in 0..16.
#[inline(always)]
const fn pair_index(shift: usize, l: usize, h: usize) -> usize {
    (shift & 1) << 7 | (l & 7) << 4 | (h & 15)
}

const PAIRS_Y: [[u8; 2]; 256] = {
    let mut t = [[0u8; 2]; 256];
    let mut i = 0;
    while i < 256 {
        let (shift, l, h) = (i >> 7, i >> 4 & 7, i & 15);
        if l <= h {
            let r = pair_ranges(shift, l, h);
            let mut c = 0;
            while c < 2 {
                t[i][c] = ((1u16 << r[c].1) - (1u16 << r[c].0)) as u8;
                c += 1;
            }
        }
        i += 1;
    }
    t
};

const fn pair_table(masks: &[[u64; 9]; 9]) -> [[u64; 2]; 256] {
    let mut t = [[0u64; 2]; 256];
    let mut i = 0;
    while i < 256 {
        let (shift, l, h) = (i >> 7, i >> 4 & 7, i & 15);
        if l <= h {
            let r = pair_ranges(shift, l, h);
            t[i] = [masks[r[0].0][r[0].1], masks[r[1].0][r[1].1]];
        }
        i += 1;
    }
    t
}

/// The cells (cubes) a query covers per axis, `first..=last`, and how the bits tested in a chunk
/// relate to its share `l..=h` of them: bits `min(l + shift, h)..=h`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cells {
    first: IVec3,
    last: IVec3,
    shift: usize,
}

impl Cells {
    /// The cells of `aabb` grown by [`QUERY_MARGIN`] under `reach`, after the checks of
    /// [`Broadphase::query`] (all but the chunk count, [`QuerySpan::check_count`]).
    #[inline(always)]
    pub(crate) fn new(aabb: &Aabb, reach: Reach) -> Result<Self, BroadphaseError> {
        let (min, max) = (Vec3A::from(aabb.min), Vec3A::from(aabb.max));
        let shift = reach_shift(reach);
        // Ordered, and within ±FAST (the usual case) or ±MAX_COORDINATE less the margin. NaN
        // fails every comparison and infinities fail the range, so no separate finiteness test
        // is needed.
        let ordered = min.cmple(max);
        let fast = Vec3A::splat(FAST);
        if (ordered & min.cmpge(-fast) & max.cmplt(fast)).all() {
            // The margin is a whole number of voxels, so the grown box's cells are the box's own
            // floors moved by it: exact, where adding the margin before the floor could round a
            // face inward. Surface Nets: the cubes the closed box touches start at ceil(lo) - 1,
            // which is floor(lo) less one where lo (so min) is an integer; their bits one higher
            // (module docs). Every step is exact in f32 (integers below 2^23), and the lanes
            // become integers once, at the end: a small query is mostly this set-up.
            let margin = Vec3A::splat(MARGIN as f32);
            let (min_floor, min_is_integer) = floor_fast(min);
            let shift_lanes = Vec3A::select(min_is_integer, Vec3A::splat(shift as f32), Vec3A::ZERO);
            let first = min_floor - margin - shift_lanes;
            let last = floor_fast(max).0 + margin;
            return Ok(Self { first: to_ivec3_exact(first), last: to_ivec3_exact(last), shift });
        }
        let limit = Vec3A::splat(MAX_COORDINATE.as_f32() - QUERY_MARGIN);
        if !(ordered & min.cmpge(-limit) & max.cmple(limit)).all() {
            return Err(BroadphaseError::InvalidAabb);
        }
        // Beyond FAST glam's floor is exact, and so are the casts of its whole results.
        let min_floor = min.floor();
        let min_is_integer = IVec3::from(min_floor.cmpeq(min));
        Ok(Self {
            first: min_floor.as_ivec3() - IVec3::splat(MARGIN) - min_is_integer * shift as i32,
            last: max.floor().as_ivec3() + IVec3::splat(MARGIN),
            shift,
        })
    }
}

/// [`QUERY_MARGIN`] in whole voxels.
const MARGIN: i32 = QUERY_MARGIN as i32;
const _: () =
    assert!((MARGIN as f32).to_bits() == QUERY_MARGIN.to_bits(), "the query margin is a whole number of voxels");

/// Boxes whose coordinates are below this in magnitude take [`floor_fast`] and
/// [`to_ivec3_exact`]: their cells, a few voxels further out, stay below 2^22 in magnitude.
const FAST: f32 = (1 << 21) as f32;

/// Adding this to an `f32` below 2^22 in magnitude rounds it to an integer that the sum's low
/// mantissa bits hold (1.5 * 2^23).
const MAGIC: f32 = 12_582_912.0;

/// `floor` of values below [`FAST`] in magnitude, and where a value was an integer already.
///
/// The magic-number rounding, one step down where it rounded up: a few SIMD operations, where
/// glam's `floor` is a call per lane on targets without SSE4.1.
#[inline(always)]
fn floor_fast(v: Vec3A) -> (Vec3A, BVec3A) {
    let rounded = (v + Vec3A::splat(MAGIC)) - Vec3A::splat(MAGIC);
    let floor = rounded - Vec3A::select(rounded.cmpgt(v), Vec3A::ONE, Vec3A::ZERO);
    (floor, floor.cmpeq(v))
}

/// The integers held by `v`, each a whole number below 2^22 in magnitude, without the
/// saturating checks of `as` casts.
#[inline(always)]
fn to_ivec3_exact(v: Vec3A) -> IVec3 {
    let t = (v + Vec3A::splat(MAGIC)).to_array();
    IVec3::from_array(t.map(|t| t.to_bits().wrapping_sub(MAGIC.to_bits()) as i32))
}

/// A query's chunk keys and, per axis, the mask bits it covers in each chunk.
#[derive(Clone, Copy, Debug)]
pub(crate) struct QuerySpan {
    pub axes: [AxisSpan; 3],
}

impl QuerySpan {
    pub(crate) fn new(cells: &Cells) -> Self {
        let axis = |i: usize| AxisSpan::new(cells.first[i], cells.last[i], cells.shift as i32);
        Self { axes: [axis(0), axis(1), axis(2)] }
    }

    /// [`BroadphaseError::TooLarge`] for spans over [`MAX_QUERY_CHUNKS`] chunks.
    #[inline]
    pub(crate) fn check_count(&self) -> Result<(), BroadphaseError> {
        // Each axis count is bounded by MAX_COORDINATE, but their product is not (2^25 chunks
        // per axis cubed overflows i64: a box of +-1e8 panicked): saturating.
        let count = |a: &AxisSpan| i64::from(a.k1 - a.k0) + 1;
        let [x, y, z] = &self.axes;
        if count(x).saturating_mul(count(y)).saturating_mul(count(z)) > MAX_QUERY_CHUNKS as i64 {
            return Err(BroadphaseError::TooLarge);
        }
        Ok(())
    }

    pub(crate) fn keys_min(&self) -> IVec3 {
        IVec3::new(self.axes[0].k0, self.axes[1].k0, self.axes[2].k0)
    }

    pub(crate) fn keys_max(&self) -> IVec3 {
        IVec3::new(self.axes[0].k1, self.axes[1].k1, self.axes[2].k1)
    }
}

/// One axis of a query: chunks `k0..=k1`, and the bits `[lo, hi)` tested in the first, middle and
/// last ones.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AxisSpan {
    pub k0: i32,
    pub k1: i32,
    first: (usize, usize),
    middle: (usize, usize),
    last: (usize, usize),
}

impl AxisSpan {
    /// Covers cells (cubes) `c0..=c1`; with `shift` 1, a chunk's share `l..=h` of them is tested
    /// at bits `min(l + 1, h)..=h` (Surface Nets), with 0 at bits `l..=h`.
    #[inline(always)]
    fn new(c0: i32, c1: i32, shift: i32) -> Self {
        let (k0, k1) = (c0 >> 3, c1 >> 3);
        let (l, h) = (c0 & 7, c1 & 7);
        let h0 = if k1 > k0 { 7 } else { h };
        let range = |lo: i32, hi: i32| ((lo + shift).min(hi) as usize, hi as usize + 1);
        Self { k0, k1, first: range(l, h0), middle: range(0, 7), last: range(0, h) }
    }

    #[inline]
    fn bits(&self, k: i32) -> (usize, usize) {
        if k == self.k0 {
            self.first
        } else if k == self.k1 {
            self.last
        } else {
            self.middle
        }
    }

    #[inline]
    fn x_mask(&self, k: i32) -> u64 {
        let (lo, hi) = self.bits(k);
        MASKS_X[lo][hi]
    }

    #[inline]
    fn z_mask(&self, k: i32) -> u64 {
        let (lo, hi) = self.bits(k);
        MASKS_Z[lo][hi]
    }

    /// The slice selection of chunk layer `k`.
    #[inline]
    fn slices(&self, k: i32) -> &'static [u64; 8] {
        let (lo, hi) = self.bits(k);
        &TABLES.slices[((1u16 << hi) - (1u16 << lo)) as usize].0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::ChunkIndex;
    use glam::Vec3;
    use proptest::prelude::*;

    /// The cells of the grown box by definition: for `lo = min - 1`, `ceil(lo) - 1 = ceil(min) - 2`
    /// (Surface Nets) or `floor(lo) = floor(min) - 1`, and `floor(max + 1) = floor(max) + 1`,
    /// with `f64`'s floor and ceil (exact on every `f32`).
    fn reference(aabb: &Aabb, reach: Reach) -> (IVec3, IVec3) {
        let f = |v: Vec3, g: fn(f64) -> f64| IVec3::from_array(v.to_array().map(|c| g(f64::from(c)) as i32));
        let first = match reach {
            Reach::SurfaceNets => f(aabb.min, f64::ceil) - IVec3::splat(2),
            Reach::Neighbours => f(aabb.min, f64::floor) - IVec3::ONE,
        };
        (first, f(aabb.max, f64::floor) + IVec3::ONE)
    }

    fn check_cells(aabb: Aabb) {
        for reach in [Reach::SurfaceNets, Reach::Neighbours] {
            let cells = Cells::new(&aabb, reach).unwrap();
            assert_eq!((cells.first, cells.last), reference(&aabb, reach), "{aabb:?} {reach:?}");
        }
    }

    #[test]
    fn cells_at_integers_halves_and_the_fast_range_edge() {
        let edge = FAST;
        // 1023 and a step: less one, it rounds to a power of two in f32 (the old inward rounding).
        let tie = f32::from_bits(1023f32.to_bits() + 1);
        for v in [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.5, -2.5, 7.999_999, -8.000_001, 1e-30, -1e-30, tie, -tie] {
            check_cells(Aabb::new(Vec3::splat(v), Vec3::splat(v)));
        }
        // Either side of the fast path's limit, and the slow path out to MAX_COORDINATE.
        for v in [
            edge - 2.0,
            edge - 1.5,
            edge - 1.0,
            edge - 0.5,
            edge,
            edge + 0.5,
            edge + 8.0,
            1e8,
            MAX_COORDINATE.as_f32() - 2.0,
        ] {
            check_cells(Aabb::new(Vec3::splat(v - 1.0), Vec3::splat(v)));
            check_cells(Aabb::new(Vec3::splat(-v), Vec3::splat(-v + 1.0)));
        }
    }

    /// A xorshift64 generator: the tests' random bits without a dependency.
    fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
    }

    /// A test coordinate from random `bits`: in `lo..lo + hundredths / 100`, a third of them at
    /// integers, a sixth at halves and a sixth at one of the `special` values.
    fn coordinate(bits: u64, lo: f32, hundredths: u64, special: &[f32]) -> f32 {
        let v = lo + (bits % hundredths) as f32 / 100.0;
        match bits >> 40 & 7 {
            0 | 1 => v.round(),
            2 => v.round() + 0.5,
            3 => special[(bits >> 44) as usize % special.len()],
            _ => v,
        }
    }

    /// The SSE2 set-up of a small query gives the portable path's window wherever it gives one,
    /// and declines every box the portable path declines (beyond the fast range it also declines
    /// boxes the portable path takes; `query` then falls back to it): around grids near the
    /// origin and near the fast range's ends, boxes inside, across and outside them, at
    /// integers, halves, -0 and the last floats below the range's ends, both reaches.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[test]
    fn sse2_small_window_equals_the_portable_one() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let edge = FAST;
        let below_edge = f32::from_bits(edge.to_bits() - 1);
        let (mut taken, mut declined) = (0, 0);
        for centre in [0.0f32, edge - 24.0, -edge + 24.0] {
            let mut bp = Broadphase::new();
            let key = (centre / 8.0) as i32;
            bp.chunks = ChunkIndex::with_grid(voxel_core::VoxelBox::new(IVec3::splat(key - 5), IVec3::splat(key + 5)));
            let special = [0.0, -0.0, below_edge, -below_edge, edge, -edge, edge - 0.25, -edge + 0.5, centre + 0.5];
            for _ in 0..100_000 {
                let r = next();
                let coordinate = |bits: u64| coordinate(bits, centre - 60.0, 12_000, &special);
                let min = Vec3::new(coordinate(r), coordinate(r >> 16), coordinate(next()));
                let size = Vec3::new((r >> 48) as f32 % 7.0, (r >> 52) as f32 % 7.0, (r >> 56) as f32 % 7.0);
                let aabb = Aabb::new(min, min + size);
                for reach in [Reach::SurfaceNets, Reach::Neighbours] {
                    let portable = Cells::new(&aabb, reach).ok().and_then(|cells| bp.small_window(cells));
                    let (lo, hi) = (Vec3A::from(aabb.min), Vec3A::from(aabb.max));
                    // SAFETY: compiled only where the target enables SSE2.
                    #[allow(unsafe_code)]
                    let simd = unsafe { sse2::small_window(lo, hi, reach_shift(reach), &bp.chunks) };
                    if simd.is_some() || portable.is_none() {
                        assert_eq!(simd, portable, "{aabb:?} {reach:?}");
                    } else {
                        // Declined by SSE2 only: outside its fast range.
                        assert!(aabb.min.abs().max(aabb.max.abs()).max_element() >= edge, "{aabb:?} {reach:?}");
                    }
                    if simd.is_some() { taken += 1 } else { declined += 1 }
                }
            }
        }
        // Both kinds occur often enough to mean something.
        assert!(taken > 50_000 && declined > 50_000, "{taken} taken, {declined} declined");
    }

    /// The AVX2 small query gives the portable paths' hits wherever it takes a box, and takes
    /// every small box inside the grid: a generated world with caves and water, boxes inside,
    /// across and outside the grid (built over part of the world, so chunks outside it sit in the
    /// map), at integers, halves and special values, NaN and inverted boxes, both reaches.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_small_query_equals_the_portable_paths() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            eprintln!("skipped: this CPU has no AVX2, so every query takes the portable paths");
            return;
        }
        let mut world = voxel_store::generate::terrain(&voxel_store::generate::Terrain::new(IVec3::new(64, 48, 64), 7))
            .expect("valid parameters");
        // A lake across the grid's edge, deep enough for full-water chunks and for chunks of
        // water and rock together, so both water paths and both tags are compared.
        let water = voxel_core::Voxel::new(-127, voxel_store::generate::materials::WATER);
        world
            .fill_box(voxel_core::VoxelBox::new(IVec3::new(0, 0, 0), IVec3::new(40, 44, 28)), water)
            .expect("in range");
        let mut bp = Broadphase::build(&world, voxel_core::VoxelBox::new(IVec3::new(8, 0, 8), IVec3::new(56, 48, 56)))
            .expect("bounded region");
        // Chunks outside the grid, in the map.
        bp.refresh(&world, voxel_core::VoxelBox::new(IVec3::ZERO, IVec3::new(64, 48, 64)), &mut Vec::new())
            .expect("bounded region");
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        let special = [0.0, -0.0, 8.0, 7.999_999, 56.0, 55.5, f32::NAN, 1e9, -1e9];
        let (mut taken, mut hits, mut water) = (0, 0, 0);
        let (mut simd, mut portable) = (Vec::new(), Vec::new());
        for reach in [Reach::SurfaceNets, Reach::Neighbours] {
            bp.set_reach(reach, &mut Vec::new());
            for _ in 0..40_000 {
                let r = next();
                let coordinate = |bits: u64| coordinate(bits, -8.0, 8_000, &special);
                let min = Vec3::new(coordinate(r), coordinate(r >> 16), coordinate(next()));
                // Mostly character-sized, some larger than the small window takes, some inverted.
                let size = Vec3::new((r >> 48) as f32 % 5.0, (r >> 52) as f32 % 7.0, (r >> 56) as f32 % 5.0)
                    - Vec3::splat(if r >> 60 == 0 { 2.0 } else { 0.0 });
                let aabb = Aabb { min, max: min + size };
                simd.clear();
                // SAFETY: the CPU has AVX2 (checked at the top).
                #[allow(unsafe_code)]
                let took = unsafe { avx2::query_small(&bp, &aabb, &mut simd) };
                portable.clear();
                let expected = bp.query_portable(&aabb, &mut portable);
                if took {
                    assert_eq!(expected, Ok(()), "{aabb:?}");
                    assert_eq!(simd, portable, "{aabb:?} {reach:?}");
                    taken += 1;
                    hits += simd.len();
                    water += simd.iter().filter(|h| h.water).count();
                } else {
                    assert!(simd.is_empty(), "{aabb:?}");
                    // Declined: not a small box inside the grid (or not a valid one).
                    let small_inside = Cells::new(&aabb, reach).ok().and_then(|cells| bp.small_window(cells));
                    assert!(small_inside.is_none(), "{aabb:?} {reach:?}");
                }
            }
        }
        // Enough boxes taken, with hits, to mean something, and every chunk class present.
        assert!(taken > 20_000 && hits > 10_000 && water > 1_000, "{taken} taken, {hits} hits, {water} water");
        let classes: Vec<_> = voxel_core::VoxelBox::new(IVec3::ZERO, IVec3::new(8, 6, 8))
            .iter()
            .filter_map(|key| bp.chunk_class(key))
            .collect();
        for class in [crate::ChunkClass::FullSolid, crate::ChunkClass::FullWater, crate::ChunkClass::Partial] {
            assert!(classes.contains(&class), "no {class:?} chunk");
        }
        // The batch paths agree too, on valid boxes of every kind.
        let boxes: Vec<Aabb> = (0..20_000)
            .map(|_| {
                let r = next();
                let min = Vec3::new(
                    (r % 7000) as f32 / 100.0 - 4.0,
                    (r >> 16) as f32 % 52.0 - 2.0,
                    (r >> 32) as f32 % 70.0 - 4.0,
                );
                let size = Vec3::new((r >> 48) as f32 % 4.0, (r >> 52) as f32 % 9.0, (r >> 56) as f32 % 4.0);
                Aabb::new(min, min + size)
            })
            .collect();
        let (mut a, mut a_ends, mut b, mut b_ends) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        // SAFETY: the CPU has AVX2 (checked at the top).
        #[allow(unsafe_code)]
        unsafe { avx2::query_batch(&bp, &boxes, &mut a, &mut a_ends) }.expect("valid boxes");
        bp.query_batch_portable(&boxes, &mut b, &mut b_ends).expect("valid boxes");
        assert_eq!((a, a_ends), (b, b_ends));
    }

    /// A broadphase with no chunk built has no grid: small boxes, across chunk borders on every
    /// axis too, find nothing (the grid check once let them index the empty grid).
    #[test]
    fn queries_without_a_grid_find_nothing() {
        let bp = Broadphase::new();
        let mut hits = vec![ChunkHit { chunk: IVec3::ZERO, solid: true, water: false, full: false }];
        for v in [-8.5f32, -0.5, 0.0, 7.5, 8.0, 1000.5] {
            for size in [0.0, 1.0, 3.0, 20.0] {
                let aabb = Aabb::new(Vec3::splat(v), Vec3::splat(v + size));
                assert_eq!(bp.query(&aabb, &mut hits), Ok(()), "{aabb:?}");
                assert!(hits.is_empty(), "{aabb:?}");
            }
        }
    }

    #[test]
    fn the_sse2_path_declines_bad_boxes() {
        let mut bp = Broadphase::new();
        bp.chunks = ChunkIndex::with_grid(voxel_core::VoxelBox::new(IVec3::splat(-5), IVec3::splat(5)));
        let mut hits = vec![ChunkHit { chunk: IVec3::ZERO, solid: true, water: false, full: false }];
        for (min, max) in [
            (Vec3::splat(f32::NAN), Vec3::ONE),
            (Vec3::ZERO, Vec3::new(1.0, f32::NAN, 1.0)),
            (Vec3::ONE, Vec3::ZERO),
            (Vec3::ZERO, Vec3::new(f32::INFINITY, 1.0, 1.0)),
            (Vec3::new(f32::NEG_INFINITY, 0.0, 0.0), Vec3::ONE),
        ] {
            assert_eq!(bp.query(&Aabb { min, max }, &mut hits), Err(BroadphaseError::InvalidAabb));
            assert!(hits.is_empty());
        }
    }

    proptest! {
        #[test]
        fn cells_equal_their_definition(
            min in prop::array::uniform3(-5e6f32..5e6),
            size in prop::array::uniform3(0.0f32..20.0),
            snap in any::<bool>(),
        ) {
            let min = if snap { Vec3::from(min).round() } else { Vec3::from(min) };
            check_cells(Aabb::new(min, min + Vec3::from(size)));
        }
    }

    /// The small path's tables give each chunk the bits the general path's per-axis spans give.
    #[test]
    fn pair_tables_match_the_axis_spans() {
        for shift in 0..2 {
            for c0 in 0..8 {
                for c1 in c0..16 {
                    let span = AxisSpan::new(c0, c1, shift);
                    let bits = |k: i32| {
                        let (lo, hi) = span.bits(k);
                        ((1u16 << hi) - (1u16 << lo)) as u8
                    };
                    let i = pair_index(shift as usize, c0 as usize, c1 as usize);
                    assert_eq!(TABLES.x[i][0], MASKS_X[span.first.0][span.first.1]);
                    assert_eq!(TABLES.z[i][0], MASKS_Z[span.first.0][span.first.1]);
                    assert_eq!(TABLES.y[i][0], bits(0));
                    if c1 >= 8 {
                        assert_eq!(TABLES.x[i][1], MASKS_X[span.last.0][span.last.1]);
                        assert_eq!(TABLES.z[i][1], MASKS_Z[span.last.0][span.last.1]);
                        assert_eq!(TABLES.y[i][1], bits(1));
                    }
                }
            }
        }
    }
}
