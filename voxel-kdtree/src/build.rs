//! Tree construction, as seed `000_ce04cac11e01e96d.txt` describes it ("Loose kD tree:
//! construction"): longest axis of the node's volume, split at the mean of the primitives'
//! midpoints, primitives sorted to a side by midpoint, the two planes refitted from every vertex,
//! and halves of the midpoint order when a side would get under 25% of the primitives. Recursion
//! stops at two primitives or fewer.

use glam::{BVec4A, Vec3, Vec4};
use voxel_core::{Aabb, TriangleSource, validate_triangles};

use crate::node::{MAX_INDEX, Node};
use crate::{KdTree, KdTreeError};

mod quality;

/// How a tree chooses its splits ([`KdTree::build_with`]). Both builds make the same nodes (at
/// most one per primitive), answer every query the same, and are deterministic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BuildOptions {
    quality: bool,
}

impl BuildOptions {
    /// The seed's build (longest axis, mean of the midpoints, at least a quarter per side): the
    /// fastest to build, for small, often rebuilt chunks. [`KdTree::build`] uses it.
    pub const FAST: Self = Self { quality: false };
    /// Each node's axis and planes by a binned surface-area cost over the volumes the queries
    /// test: slower to build, fewer nodes and triangles visited per query, for meshes queried
    /// much more often than they are rebuilt. Its depth stays within 63 rather than
    /// [`depth_bound`].
    pub const QUALITY: Self = Self { quality: true };

    /// True for [`BuildOptions::QUALITY`].
    pub fn is_quality(&self) -> bool {
        self.quality
    }

    /// The deepest a tree over `count` primitives built so can be.
    pub(crate) fn depth_limit(&self, count: usize) -> u32 {
        if self.quality { quality::MAX_DEPTH } else { depth_bound(count) }
    }
}

/// Most primitives a tree takes: the 30-bit child index must address the nodes (about one per
/// primitive, at most two), with room to spare.
pub const MAX_PRIMITIVES: usize = 1 << 28;

/// One primitive while building: its bounds and its id, 32 bytes (two SIMD words).
///
/// The build partitions arrays of these instead of a bare index array: the bounds travel with the
/// id, so every pass reads memory in order instead of gathering from the source by id. Two such
/// arrays (the records and one spare copy) are freed when the build returns. The id rides in the
/// fourth lane of `lo` (see [`encode_id`]) and `hi`'s fourth lane is zero, so a record is two
/// aligned `Vec4`s that the partition moves, adds and compares whole.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Record {
    lo: Vec4,
    hi: Vec4,
}

impl Record {
    /// Padding for the fixed-size arrays of the small-node path; never read as a primitive.
    const EMPTY: Record = Record { lo: Vec4::ZERO, hi: Vec4::ZERO };

    /// The record of primitive `id` with the box `min..max`. `id` must have bits 28 and 29 clear
    /// (ids stay below [`MAX_PRIMITIVES`]; the quad tree's flags are bits 30 and 31).
    #[inline]
    pub(crate) fn new(min: Vec3, max: Vec3, id: u32) -> Self {
        Self { lo: min.extend(encode_id(id)), hi: max.extend(0.0) }
    }

    /// The primitive's id.
    #[inline(always)]
    fn id(&self) -> u32 {
        decode_id(self.lo.w)
    }

    /// Twice the box centre (`min + max`) in the first three lanes; the fourth is the encoded id,
    /// which no sum or comparison reads.
    #[inline(always)]
    fn doubled_mid(&self) -> Vec4 {
        self.lo + self.hi
    }
}

/// Offset that makes every encoded id the bit pattern of a normal float, so the id lane of the
/// `lo + hi` in [`Record::doubled_mid`] never starts from a subnormal, which some processors
/// handle in microcode. (Sums of that lane can still cancel into one where a quad's flag makes
/// an id negative; the lane is masked off afterwards, so only speed could suffer.)
const ID_BIAS: u32 = 1 << 23;

/// The id as the bits of a normal `f32`: the low 28 bits plus [`ID_BIAS`] (exponent 1 to 32),
/// bit 30 moved to bit 29 (exponent up to 96), bit 31 kept as the sign. Never 0, subnormal,
/// infinite or NaN.
#[inline(always)]
fn encode_id(id: u32) -> f32 {
    debug_assert!(id & (3 << 28) == 0, "id {id:#x} uses bits 28-29");
    f32::from_bits(((id & 0x0FFF_FFFF) + ID_BIAS) | ((id >> 1) & (1 << 29)) | (id & (1 << 31)))
}

/// The inverse of [`encode_id`].
#[inline(always)]
fn decode_id(lane: f32) -> u32 {
    let bits = lane.to_bits();
    ((bits & 0x1FFF_FFFF) - ID_BIAS) | ((bits & (1 << 29)) << 1) | (bits & (1 << 31))
}

/// The deepest a tree over `count` primitives can be (root at depth 0).
///
/// A split keeps at least a quarter of the primitives on each side (the seed's 25% rule; the
/// fallback halves keep more), so a child holds at most `n - ceil(n / 4)` of its parent's `n`;
/// nodes of two or fewer are leaves. For 2^28 primitives the bound is 63.
pub fn depth_bound(count: usize) -> u32 {
    let (mut n, mut depth) = (count, 0);
    while n > 2 {
        n -= n.div_ceil(4);
        depth += 1;
    }
    depth
}

/// True when a triangle can be stored: every corner finite and the area not zero (an exactly
/// zero cross product: repeated corners, collinear corners, or sides so short the product
/// underflows). Left-out triangles are counted in [`KdTree::skipped`].
#[inline]
pub fn triangle_is_usable(tri: [Vec3; 3]) -> bool {
    let [a, b, c] = tri;
    a.is_finite() && b.is_finite() && c.is_finite() && (b - a).cross(c - a) != Vec3::ZERO
}

/// Records of the usable triangles of `source`, and how many were left out.
pub(crate) fn triangle_records<S: TriangleSource + ?Sized>(source: &S) -> Result<(Vec<Record>, usize), KdTreeError> {
    let (count, vertices) = (source.triangle_count(), source.vertex_count());
    if count > MAX_PRIMITIVES {
        return Err(KdTreeError::TooManyPrimitives { count, limit: MAX_PRIMITIVES });
    }
    if u32::try_from(vertices).is_err() {
        // `validate_triangles` words the error.
        validate_triangles(source)?;
    }
    // Twice the count: the build's spare buffer is the second half. One allocation instead of
    // two also keeps glibc from handing the memory back to the system after every build (its
    // trim threshold follows the largest block freed): two half-size blocks freed together page
    // faulted afresh on each 8k-triangle build, a tenth of its time in the kernel.
    let mut records = Vec::with_capacity(2 * count);
    for id in 0..count as u32 {
        // The indices are checked here rather than in a pass of their own before.
        let corners = source.triangle(id);
        if let Some(&index) = corners.iter().find(|&&v| v as usize >= vertices) {
            let error = voxel_core::Error::IndexOutOfRange { triangle: id as usize, index, vertex_count: vertices };
            return Err(KdTreeError::Source(error));
        }
        // `triangle` and `vertex` rather than `triangle_positions`, which the compiler kept as a
        // call returning the corners through the stack, read back at another width (a failed
        // store forward per triangle: a third of this loop's time in `perf`).
        let tri = corners.map(|v| source.vertex(v));
        if triangle_is_usable(tri) {
            let [a, b, c] = tri;
            records.push(Record::new(a.min(b).min(c), a.max(b).max(c), id));
        }
    }
    let skipped = count - records.len();
    Ok((records, skipped))
}

/// Builds the nodes over `records`, using the vector's spare capacity (callers reserve twice the
/// record count, see [`triangle_records`]) for the partition's second buffer.
pub(crate) fn build(
    mut records: Vec<Record>,
    source_primitives: usize,
    skipped: usize,
    options: BuildOptions,
) -> KdTree {
    let mut tree = KdTree {
        nodes: Vec::new(),
        bounds: Aabb::EMPTY,
        depth: 0,
        primitives: records.len(),
        source_primitives,
        skipped,
    };
    if records.is_empty() {
        return tree;
    }
    let (lo, hi, sum) = summarize(&records);
    let bounds = Aabb::new(lo.truncate(), hi.truncate());
    tree.bounds = bounds;
    // Every split but the fallback of one odd count leaves both sides even (see `split_records`),
    // so every leaf but at most one holds two primitives: `n - 1` nodes for even `n`, `n` for
    // odd. Reserved exactly, so the array is never copied or shrunk.
    let mut nodes = Vec::with_capacity(records.len());
    nodes.push(Node::leaf(&[0]));
    let mut builder = Builder { nodes, depth: 0, bits: Vec::with_capacity(records.len().div_ceil(64)) };
    // Each split reads its records from one buffer and writes both sides into the other (the
    // children then read from there): one spare copy per build, none per node, in the same
    // allocation as the records.
    let n = records.len();
    records.resize(2 * n, Record::EMPTY);
    let (records, spare) = records.split_at_mut(n);
    if options.quality {
        builder.split_quality(records, spare, 0, bounds, 0);
    } else {
        builder.split(records, spare, 0, bounds, sum, 0);
    }
    let Builder { nodes, depth, .. } = builder;
    debug_assert!(nodes.len() <= records.len().max(1), "{} nodes for {} primitives", nodes.len(), records.len());
    debug_assert!(depth <= options.depth_limit(records.len()), "depth {depth} over the bound");
    debug_assert!(nodes.len() <= MAX_INDEX as usize);
    tree.nodes = nodes;
    tree.depth = depth;
    tree
}

/// Nodes of at most this many primitives are split by [`Builder::split_small`]: sorted on the
/// axis in registers instead of partitioned through the spare array. Two thirds of the branches
/// of a terrain tree hold 4 to 7 triangles.
const SMALL: usize = 8;

struct Builder {
    nodes: Vec<Node>,
    depth: u32,
    /// One bit per record of the node being partitioned (see [`partition`]).
    bits: Vec<u64>,
}

/// The longest axis of `volume` (x on ties, then y).
#[inline(always)]
fn longest_axis(volume: &Aabb) -> usize {
    let size = volume.size();
    if size.x >= size.y && size.x >= size.z {
        0
    } else if size.y >= size.z {
        1
    } else {
        2
    }
}

/// The first three lanes: sums of doubled midpoints keep their fourth lane (ids) at zero.
const XYZ: BVec4A = BVec4A::new(true, true, true, false);

/// A key that orders records by doubled midpoint on axis `A`, then by id: the order in which the
/// left side of every split is a prefix (ids are unique, so no two keys are equal).
#[inline(always)]
fn sort_key<const A: usize>(r: &Record) -> u64 {
    let bits = r.doubled_mid()[A].to_bits();
    // The IEEE bits of a finite float, made to sort as unsigned integers sort.
    let ordered = bits ^ ((((bits as i32) >> 31) as u32) | (1 << 31));
    // Ties go by the encoded id: the id itself for triangles, a fixed order for flagged quads.
    (u64::from(ordered) << 32) | u64::from(r.lo.w.to_bits())
}

impl Builder {
    /// Makes `node` the subtree over `records`, whose sum of `min + max` is `sum` (fourth lane
    /// zero); `volume` is the node's volume as a query recovers it (the root box cut by the
    /// planes of the ancestors).
    ///
    /// The split axis is the longest of that volume, not of the records' own box: on the
    /// 4x2x4-chunk terrain the records' box made rays from above test 37.6 triangles each instead
    /// of 16.5 (counted, before even splits), as the leaves' volumes grew tall (17 units on
    /// average against 1.5).
    ///
    /// `spare` is as long as `records`; the split writes the two sides into it, and the children
    /// split them from there back into `records`.
    fn split(
        &mut self,
        records: &mut [Record],
        spare: &mut [Record],
        node: usize,
        volume: Aabb,
        sum: Vec4,
        depth: u32,
    ) {
        let n = records.len();
        if n <= SMALL {
            self.split_small(records, node, volume, sum, depth);
            return;
        }
        let axis = longest_axis(&volume);
        // Midpoints are compared doubled (`min + max`), so the mean is the doubled sum over n.
        let split = sum[axis] / n as f32;
        let parts = match axis {
            0 => split_records::<0>(records, spare, split, &mut self.bits, n.div_ceil(4)),
            1 => split_records::<1>(records, spare, split, &mut self.bits, n.div_ceil(4)),
            _ => split_records::<2>(records, spare, split, &mut self.bits, n.div_ceil(4)),
        };
        let (left_volume, right_volume) = self.branch(node, axis, [parts.left_max, parts.right_min], &volume);
        let first_child = self.nodes.len() - 2;
        let (left, right) = spare.split_at_mut(parts.left);
        let (left_spare, right_spare) = records.split_at_mut(parts.left);
        // Both sides keep at least a quarter of `n > SMALL`, so neither is a leaf.
        self.split(left, left_spare, first_child, left_volume, parts.left_sum, depth + 1);
        self.split(right, right_spare, first_child + 1, right_volume, parts.right_sum, depth + 1);
    }

    /// Makes `node` a branch on `axis` with `planes` and appends its two children (filled in
    /// later); returns the children's volumes.
    #[inline(always)]
    fn branch(&mut self, node: usize, axis: usize, planes: [f32; 2], volume: &Aabb) -> (Aabb, Aabb) {
        let first_child = self.nodes.len();
        self.nodes.push(Node::EMPTY_LEAF);
        self.nodes.push(Node::EMPTY_LEAF);
        self.nodes[node] = Node::branch(axis, planes, first_child as u32);
        let (mut left_volume, mut right_volume) = (*volume, *volume);
        left_volume.max[axis] = planes[0].min(volume.max[axis]);
        right_volume.min[axis] = planes[1].max(volume.min[axis]);
        (left_volume, right_volume)
    }

    /// [`Builder::split`] for 3 to [`SMALL`] records (or a leaf for fewer): the records are
    /// sorted on the split axis into a local array (an all-pairs rank count, no branch on the
    /// data), where the rules' left side is a prefix, and the children recurse on that array.
    /// Nothing is written back: below this point only the ids in the leaves are kept.
    fn split_small(&mut self, records: &[Record], node: usize, volume: Aabb, sum: Vec4, depth: u32) {
        if records.len() <= 2 {
            self.nodes[node] = leaf(records);
            self.depth = self.depth.max(depth);
            return;
        }
        match longest_axis(&volume) {
            0 => self.small::<0>(records, node, volume, sum, depth),
            1 => self.small::<1>(records, node, volume, sum, depth),
            _ => self.small::<2>(records, node, volume, sum, depth),
        }
    }

    fn small<const A: usize>(&mut self, records: &[Record], node: usize, volume: Aabb, sum: Vec4, depth: u32) {
        // The record count as a constant, so the all-pairs sort unrolls.
        match records.len() {
            3 => self.small_n::<A, 3>(records, node, volume, sum, depth),
            4 => self.small_n::<A, 4>(records, node, volume, sum, depth),
            5 => self.small_n::<A, 5>(records, node, volume, sum, depth),
            6 => self.small_n::<A, 6>(records, node, volume, sum, depth),
            7 => self.small_n::<A, 7>(records, node, volume, sum, depth),
            _ => self.small_n::<A, SMALL>(records, node, volume, sum, depth),
        }
    }

    #[inline(always)]
    fn small_n<const A: usize, const N: usize>(
        &mut self,
        records: &[Record],
        node: usize,
        volume: Aabb,
        sum: Vec4,
        depth: u32,
    ) {
        let Some(records) = records.first_chunk::<N>() else { return };
        let sorted = sort_small::<A, N>(records);
        let mid = |i: usize| sorted[i].doubled_mid()[A];
        // For 3 to 5 records every outcome of the rules (a split at the mean, the odd fix, the
        // halves) puts the two smallest midpoints on the left; from 6 on the mean decides.
        let left = if N <= 5 {
            2
        } else {
            let split = sum[A] / N as f32;
            let below = sorted.iter().filter(|r| r.doubled_mid()[A] < split).count();
            left_count(N, below, split, mid)
        };
        let (l, r) = sorted.split_at(left.min(N));
        let left_max = l.iter().fold(f32::NEG_INFINITY, |m, r| m.max(r.hi[A]));
        let right_min = r.iter().fold(f32::INFINITY, |m, r| m.min(r.lo[A]));
        let (left_volume, right_volume) = self.branch(node, A, [left_max, right_min], &volume);
        let first_child = self.nodes.len() - 2;
        // Leaves are written here rather than in a call: most children of a small node are
        // leaves.
        for (side, child, volume) in [(l, first_child, left_volume), (r, first_child + 1, right_volume)] {
            if side.len() <= 2 {
                self.nodes[child] = leaf(side);
                self.depth = self.depth.max(depth + 1);
            } else {
                let sum = if side.len() >= 6 { sum_mid(side) } else { Vec4::ZERO };
                self.split_small(side, child, volume, sum, depth + 1);
            }
        }
    }
}

/// `records` sorted by [`sort_key`]: each record's rank is the number of smaller keys, counted
/// over all pairs without a branch.
#[inline(always)]
fn sort_small<const A: usize, const N: usize>(records: &[Record; N]) -> [Record; N] {
    let keys = records.map(|r| sort_key::<A>(&r));
    let mut rank = [0usize; N];
    for i in 1..N {
        for j in 0..i {
            let less = keys[j] < keys[i];
            rank[i] += usize::from(less);
            rank[j] += usize::from(!less);
        }
    }
    let mut sorted = [Record::EMPTY; N];
    for (r, &k) in records.iter().zip(&rank) {
        sorted[k % N] = *r;
    }
    sorted
}

/// Sum of `min + max` over `records`, fourth lane zero.
#[inline(always)]
fn sum_mid(records: &[Record]) -> Vec4 {
    let sum = records.iter().fold(Vec4::ZERO, |s, r| s + r.doubled_mid());
    Vec4::select(XYZ, sum, Vec4::ZERO)
}

/// The left side's size for `n` records of which `below` have their doubled midpoint under
/// `split`, given the doubled midpoints in sorted order (`mid(i)`), by the two rules of
/// [`split_records`].
#[inline(always)]
fn left_count(n: usize, below: usize, split: f32, mid: impl Fn(usize) -> f32) -> usize {
    let (lo, hi) = (n.div_ceil(4), n - n.div_ceil(4));
    if below < lo || below > hi {
        // Halves, rounded up to an even left count (still within [lo, hi] for n >= 3).
        (n / 2 + 1) & !1
    } else if below.is_multiple_of(2) {
        below
    } else {
        let (can_give, can_take) = (below > lo, below < hi);
        if can_give && (!can_take || split - mid(below - 1) <= mid(below) - split) { below - 1 } else { below + 1 }
    }
}

/// The leaf over one or two records.
#[inline(always)]
fn leaf(records: &[Record]) -> Node {
    let n = records.len().clamp(1, 2);
    let ids = [records.first().map_or(0, Record::id), records.get(1).map_or(0, Record::id)];
    Node::leaf(&ids[..n])
}

/// The two sides of a split: `records[..left]` and the rest, the left side's largest coordinate
/// and the right side's smallest on the split axis (the planes), and their sums of `min + max`
/// (the children's split values come from these without another pass).
struct Parts {
    left: usize,
    left_max: f32,
    left_sum: Vec4,
    right_min: f32,
    right_sum: Vec4,
}

/// Splits `src` into `dst` on axis `A` at the doubled midpoint `split` (seed: midpoints below the
/// mean go left), with two rules on the counts:
///
/// - **25%** (seed; `min_side` is the quarter, rounded up, or smaller in the quality build where
///   the depth allows): when a side would get fewer than a quarter of the records (or every
///   midpoint is on one side: equal midpoints, a split lost to rounding), the midpoint order is
///   split in halves instead;
/// - **even left side** (this crate): when the left side's count is odd, the record whose
///   midpoint is nearest the split value crosses over (from the side that keeps the 25% rule),
///   so both sides are even when `n` is. Leaves then hold two primitives each but one, and a
///   tree over `n` primitives has at most `n` nodes (12 bytes per primitive); the planes are
///   refitted after the move, so they stay exact.
///
/// Whatever the case, the left side is a prefix of the records ordered by [`sort_key`] (midpoint,
/// then id), so the tree depends on the primitives and their ids, not on the input order.
#[inline(always)]
fn split_records<const A: usize>(
    src: &[Record],
    dst: &mut [Record],
    split: f32,
    bits: &mut Vec<u64>,
    min_side: usize,
) -> Parts {
    let n = src.len().min(dst.len());
    let p = partition::<A>(src, dst, split, bits);
    let below = p.left;
    let (lo, hi) = (min_side, n.saturating_sub(min_side));
    if below < lo || below > hi {
        return halves::<A>(&mut dst[..n]);
    }
    let mut parts = Parts {
        left: below,
        left_max: p.left_hi[A],
        left_sum: p.left_sum,
        right_min: p.right_lo[A],
        right_sum: p.right_sum,
    };
    if below.is_multiple_of(2) {
        return parts;
    }
    let (can_give, can_take) = (below > lo, below < hi);
    // The side whose midpoint is nearer the split value gives it up (the partition kept both
    // sides' extreme midpoints); one pass over that side finds the record (ties by id) and the
    // side's plane without it.
    let give = can_give && (!can_take || split - p.left_mid_max[A] <= p.right_mid_min[A] - split);
    if give {
        let l = extreme::<A, true>(&dst[..below]);
        dst.swap(l.index, below - 1);
        let moved = dst[below - 1];
        let doubled = Vec4::select(XYZ, moved.doubled_mid(), Vec4::ZERO);
        parts.left = below - 1;
        parts.left_max = l.others;
        parts.left_sum -= doubled;
        parts.right_min = parts.right_min.min(moved.lo[A]);
        parts.right_sum += doubled;
    } else if can_take {
        let f = extreme::<A, false>(&dst[below..n]);
        dst.swap(below + f.index, below);
        let moved = dst[below];
        let doubled = Vec4::select(XYZ, moved.doubled_mid(), Vec4::ZERO);
        parts.left = below + 1;
        parts.left_max = parts.left_max.max(moved.hi[A]);
        parts.left_sum += doubled;
        parts.right_min = f.others;
        parts.right_sum -= doubled;
    }
    parts
}

/// The fallback of [`split_records`]: the records in halves by [`sort_key`], the left count
/// rounded up to even.
#[cold]
fn halves<const A: usize>(records: &mut [Record]) -> Parts {
    let n = records.len();
    let k = (n / 2 + 1) & !1;
    records.select_nth_unstable_by_key(k, sort_key::<A>);
    let (left, right) = records.split_at(k);
    Parts {
        left: k,
        left_max: left.iter().fold(f32::NEG_INFINITY, |m, r| m.max(r.hi[A])),
        left_sum: sum_mid(left),
        right_min: right.iter().fold(f32::INFINITY, |m, r| m.min(r.lo[A])),
        right_sum: sum_mid(right),
    }
}

/// The result of [`partition`]: the left count, the largest `max` of the left side and the
/// smallest `min` of the right side, the left side's largest doubled midpoint and the right
/// side's smallest (every lane), and both sides' sums of `min + max`.
struct Sides {
    left: usize,
    left_hi: Vec4,
    right_lo: Vec4,
    left_mid_max: Vec4,
    right_mid_min: Vec4,
    left_sum: Vec4,
    right_sum: Vec4,
}

/// Writes the records of `src` whose doubled midpoint on axis `A` is below `split` to the front
/// of `dst` and the others after them (each side in input order), and sums up both sides on the
/// way. `bits` is scratch for one bit per record.
///
/// Two passes, neither branching on the data. The first only compares, and packs the outcomes
/// into 64-bit words (which side a record goes to is a coin flip for the branch predictor: the
/// in-place loop that swapped left records forward mispredicted about half the records on every
/// level of the tree). The second walks each word's set bits, then its clear bits, and copies
/// each record once to the end of its side, accumulating that side's extremes and sums without
/// masks. The copy-to-both-ends loop it replaces stored every record twice (four 16-byte stores,
/// the bottleneck in `perf`) and needed a third pass for the sums.
#[inline(always)]
fn partition<const A: usize>(src: &[Record], dst: &mut [Record], split: f32, bits: &mut Vec<u64>) -> Sides {
    let n = src.len().min(dst.len());
    let src = &src[..n];
    bits.clear();
    let mut left = 0usize;
    for chunk in src.chunks(64) {
        let mut word = 0u64;
        for (i, r) in chunk.iter().enumerate() {
            word |= u64::from(r.lo[A] + r.hi[A] < split) << i;
        }
        left += word.count_ones() as usize;
        bits.push(word);
    }
    let (to_left, to_right) = dst[..n].split_at_mut(left);
    let (mut l, mut r) = (0usize, 0usize);
    let (mut left_hi, mut right_lo) = (Vec4::NEG_INFINITY, Vec4::INFINITY);
    let (mut left_sum, mut right_sum) = (Vec4::ZERO, Vec4::ZERO);
    let (mut left_mid_max, mut right_mid_min) = (Vec4::NEG_INFINITY, Vec4::INFINITY);
    for (&word, chunk) in bits.iter().zip(src.chunks(64)) {
        let mut goes_left = word;
        while goes_left != 0 {
            let record = chunk[goes_left.trailing_zeros() as usize];
            goes_left &= goes_left - 1;
            to_left[l] = record;
            l += 1;
            left_hi = left_hi.max(record.hi);
            let mid = record.doubled_mid();
            left_mid_max = left_mid_max.max(mid);
            left_sum += mid;
        }
        let mut goes_right = !word & (u64::MAX >> (64 - chunk.len()));
        while goes_right != 0 {
            let record = chunk[goes_right.trailing_zeros() as usize];
            goes_right &= goes_right - 1;
            to_right[r] = record;
            r += 1;
            right_lo = right_lo.min(record.lo);
            let mid = record.doubled_mid();
            right_mid_min = right_mid_min.min(mid);
            right_sum += mid;
        }
    }
    let (left_sum, right_sum) = (Vec4::select(XYZ, left_sum, Vec4::ZERO), Vec4::select(XYZ, right_sum, Vec4::ZERO));
    Sides { left, left_hi, right_lo, left_mid_max, right_mid_min, left_sum, right_sum }
}

/// The record of `records` (not empty) that comes last (`LARGEST`) or first by [`sort_key`] on
/// axis `A` (its index), and the side's plane without it: the largest `max` (or the
/// smallest `min`) of the others.
#[derive(Clone, Copy)]
struct Extreme {
    index: usize,
    others: f32,
}

#[inline(always)]
fn extreme<const A: usize, const LARGEST: bool>(records: &[Record]) -> Extreme {
    let none = if LARGEST { f32::NEG_INFINITY } else { f32::INFINITY };
    let (mut best_key, mut best, mut best_bound, mut others) = (if LARGEST { 0 } else { u64::MAX }, 0, none, none);
    for (i, r) in records.iter().enumerate() {
        let key = sort_key::<A>(r);
        let bound = if LARGEST { r.hi[A] } else { r.lo[A] };
        // Keys are unique and never 0 or `u64::MAX`, so the first record always wins.
        let better = if LARGEST { key > best_key } else { key < best_key };
        // The record that is not (or no longer) the extreme joins the others. Selects, not
        // branches: a new extreme turns up at random places in the side.
        let dropped = select_f32(better, best_bound, bound);
        others = if LARGEST { others.max(dropped) } else { others.min(dropped) };
        best_bound = select_f32(better, bound, best_bound);
        best_key = if better { key } else { best_key };
        best = if better { i } else { best };
    }
    Extreme { index: best, others }
}

/// `if condition { a } else { b }` through the bits, which the compiler keeps branch-free.
#[inline(always)]
fn select_f32(condition: bool, a: f32, b: f32) -> f32 {
    let mask = u32::from(condition).wrapping_neg();
    f32::from_bits((a.to_bits() & mask) | (b.to_bits() & !mask))
}

/// The box's corners (first three lanes) and the sum of `min + max` (fourth lane zero) of
/// `records`.
fn summarize(records: &[Record]) -> (Vec4, Vec4, Vec4) {
    let (lo, hi, sum) = records.iter().fold((Vec4::INFINITY, Vec4::NEG_INFINITY, Vec4::ZERO), |(lo, hi, s), r| {
        (lo.min(r.lo), hi.max(r.hi), s + r.doubled_mid())
    });
    (lo, hi, Vec4::select(XYZ, sum, Vec4::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_bound_small_counts() {
        assert_eq!(depth_bound(0), 0);
        assert_eq!(depth_bound(2), 0);
        assert_eq!(depth_bound(3), 1);
        assert_eq!(depth_bound(4), 2);
        assert_eq!(depth_bound(5), 2);
        assert_eq!(depth_bound(MAX_PRIMITIVES), 63);
    }

    /// A source whose second triangle names a vertex that does not exist.
    struct MissingVertex;

    impl TriangleSource for MissingVertex {
        fn vertex_count(&self) -> usize {
            3
        }
        fn vertex(&self, index: u32) -> Vec3 {
            [Vec3::ZERO, Vec3::X, Vec3::Y][index as usize]
        }
        fn triangle_count(&self) -> usize {
            3
        }
        fn triangle(&self, index: u32) -> [u32; 3] {
            [[0, 1, 2], [0, 7, 2], [0, 1, 9]][index as usize]
        }
    }

    #[test]
    fn missing_vertex_is_the_sources_error() {
        let expected = voxel_core::validate_triangles(&MissingVertex).unwrap_err();
        assert_eq!(expected, voxel_core::Error::IndexOutOfRange { triangle: 1, index: 7, vertex_count: 3 });
        assert_eq!(KdTree::build(&MissingVertex), Err(KdTreeError::Source(expected.clone())));
        assert_eq!(crate::QuadTree::build(&MissingVertex).err(), Some(KdTreeError::Source(expected)));
    }

    #[test]
    fn ids_round_trip_through_the_record() {
        for id in [0, 1, 2, (1 << 23) - 1, 1 << 23, (1 << 28) - 1, 1 << 30, 1 << 31, (3 << 30) | 12345] {
            let r = Record::new(Vec3::ZERO, Vec3::ONE, id);
            assert_eq!(r.id(), id);
            assert!(r.lo.w.is_normal(), "{id:#x}");
            assert!(r.doubled_mid().w.is_normal());
        }
    }
}
