//! Tree construction, as seed `000_ce04cac11e01e96d.txt` describes it ("Loose kD tree:
//! construction"): longest axis of the node's volume, split at the mean of the primitives'
//! midpoints, primitives sorted to a side by midpoint, the two planes refitted from every vertex,
//! and halves of the midpoint order when a side would get under 25% of the primitives. Recursion
//! stops at two primitives or fewer.

use glam::Vec3;
use voxel_core::{Aabb, TriangleSource, validate_triangles};

use crate::node::{MAX_INDEX, Node};
use crate::{KdTree, KdTreeError};

/// Most primitives a tree takes: the 30-bit child index must address the nodes (about one per
/// primitive, at most two), with room to spare.
pub const MAX_PRIMITIVES: usize = 1 << 28;

/// One primitive while building: its bounds and its id, 32 bytes.
///
/// The build partitions arrays of these instead of a bare index array: the bounds travel with the
/// id, so every pass reads memory in order instead of gathering from the source by id. Two such
/// arrays (the records and one spare copy) are freed when the build returns. Aligned to 16 so a
/// record is two aligned 16-byte words: at 28 bytes, records written and read back through
/// overlapping stores defeated store forwarding (8.9 -> 8.0 ms on the 4x2x4-chunk terrain with the
/// in-place partition, one probe run).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(16))]
pub(crate) struct Record {
    pub(crate) min: Vec3,
    pub(crate) id: u32,
    pub(crate) max: Vec3,
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
    validate_triangles(source)?;
    let count = source.triangle_count();
    if count > MAX_PRIMITIVES {
        return Err(KdTreeError::TooManyPrimitives { count, limit: MAX_PRIMITIVES });
    }
    let mut records = Vec::with_capacity(count);
    for id in 0..count as u32 {
        let tri = source.triangle_positions(id);
        if triangle_is_usable(tri) {
            let [a, b, c] = tri;
            records.push(Record { min: a.min(b).min(c), id, max: a.max(b).max(c) });
        }
    }
    let skipped = count - records.len();
    Ok((records, skipped))
}

/// Builds the nodes over `records` (reordered in place).
pub(crate) fn build(records: &mut [Record], source_primitives: usize, skipped: usize) -> KdTree {
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
    let (bounds, sum) = summarize(records);
    tree.bounds = bounds;
    // Every split but the fallback of one odd count leaves both sides even (see `split_records`),
    // so every leaf but at most one holds two primitives: `n - 1` nodes for even `n`, `n` for
    // odd. Reserved exactly, so the array is never copied or shrunk.
    let mut nodes = Vec::with_capacity(records.len());
    nodes.push(Node::leaf(&[0]));
    let mut builder = Builder { nodes, depth: 0 };
    // Each split reads its records from one buffer and writes both sides into the other (the
    // children then read from there): one spare copy per build, none per node.
    let mut spare = records.to_vec();
    builder.split(records, &mut spare, 0, bounds, sum, 0);
    let Builder { nodes, depth } = builder;
    debug_assert!(nodes.len() <= records.len().max(1), "{} nodes for {} primitives", nodes.len(), records.len());
    debug_assert!(depth <= depth_bound(records.len()), "depth {depth} over the bound");
    debug_assert!(nodes.len() <= MAX_INDEX as usize);
    tree.nodes = nodes;
    tree.depth = depth;
    tree
}

struct Builder {
    nodes: Vec<Node>,
    depth: u32,
}

impl Builder {
    /// Makes `node` the subtree over `records`, whose sum of `min + max` is given; `volume` is the
    /// node's volume as a query recovers it (the root box cut by the planes of the ancestors).
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
        sum: Vec3,
        depth: u32,
    ) {
        let n = records.len();
        if n <= 2 {
            self.nodes[node] = leaf(records);
            self.depth = self.depth.max(depth);
            return;
        }
        let size = volume.size();
        let axis = if size.x >= size.y && size.x >= size.z {
            0
        } else if size.y >= size.z {
            1
        } else {
            2
        };
        // Midpoints are compared doubled (`min + max`), so the mean is the doubled sum over n.
        let split = sum[axis] / n as f32;
        let parts = match axis {
            0 => split_records::<0>(records, spare, split),
            1 => split_records::<1>(records, spare, split),
            _ => split_records::<2>(records, spare, split),
        };
        let first_child = self.nodes.len();
        self.nodes.push(Node::leaf(&[0]));
        self.nodes.push(Node::leaf(&[0]));
        let planes = [parts.left_max, parts.right_min];
        self.nodes[node] = Node::branch(axis, planes, first_child as u32);
        let (mut left_volume, mut right_volume) = (volume, volume);
        left_volume.max[axis] = planes[0].min(volume.max[axis]);
        right_volume.min[axis] = planes[1].max(volume.min[axis]);
        let (left, right) = spare.split_at_mut(parts.left);
        let (left_spare, right_spare) = records.split_at_mut(parts.left);
        // Leaves are written here rather than in a call (half the splits make two leaves).
        if left.len() <= 2 && right.len() <= 2 {
            self.nodes[first_child] = leaf(left);
            self.nodes[first_child + 1] = leaf(right);
            self.depth = self.depth.max(depth + 1);
            return;
        }
        self.split(left, left_spare, first_child, left_volume, parts.left_sum, depth + 1);
        self.split(right, right_spare, first_child + 1, right_volume, parts.right_sum, depth + 1);
    }
}

/// The leaf over one or two records.
#[inline(always)]
fn leaf(records: &[Record]) -> Node {
    let n = records.len().clamp(1, 2);
    let ids = [records.first().map_or(0, |r| r.id), records.get(1).map_or(0, |r| r.id)];
    Node::leaf(&ids[..n])
}

/// The two sides of a split: `records[..left]` and the rest, the left side's largest coordinate
/// and the right side's smallest on the split axis (the planes), and their sums of `min + max`
/// (the children's split values come from these without another pass).
struct Parts {
    left: usize,
    left_max: f32,
    left_sum: Vec3,
    right_min: f32,
    right_sum: Vec3,
}

/// Splits `records` on axis `A` at the doubled midpoint `split` (seed: midpoints below the mean
/// go left), with two rules on the counts:
///
/// - **25%** (seed): when a side would get fewer than a quarter of the records (or every
///   midpoint is on one side: equal midpoints, a split lost to rounding), the midpoint order is
///   split in halves instead;
/// - **even left side** (this crate): when the left side's count is odd, the record whose
///   midpoint is nearest the split value crosses over (from the side that keeps the 25% rule),
///   so both sides are even when `n` is. Leaves then hold two primitives each but one, and a
///   tree over `n` primitives has at most `n` nodes (12 bytes per primitive); the planes are
///   refitted after the move, so they stay exact.
///
/// Ties in the midpoint order are broken by id (`select_nth_unstable_by` is deterministic), so the
/// tree does not depend on the input order beyond the ids.
#[inline(always)]
fn split_records<const A: usize>(src: &[Record], records: &mut [Record], split: f32) -> Parts {
    let n = src.len();
    // Valid left counts: each side keeps at least ceil(n / 4).
    let (lo, hi) = (n.div_ceil(4), n - n.div_ceil(4));
    let p = partition::<A>(src, records, split);
    if p.left < lo || p.left > hi {
        // Halves, rounded up to an even left count (still within [lo, hi] for n >= 3).
        let k = (n / 2 + 1) & !1;
        let key = |r: &Record| r.min[A] + r.max[A];
        records.select_nth_unstable_by(k, |a, b| key(a).total_cmp(&key(b)).then(a.id.cmp(&b.id)));
        let (left, right) = records.split_at(k);
        let (left_max, _, left_sum) = extremes::<A>(left);
        let (_, right_min, right_sum) = extremes::<A>(right);
        return Parts { left: k, left_max, left_sum, right_min, right_sum };
    }
    if p.left.is_multiple_of(2) {
        return Parts {
            left: p.left,
            left_max: p.left_max,
            left_sum: p.left_sum,
            right_min: p.right_min,
            right_sum: p.right_sum,
        };
    }
    let can_give = p.left > lo;
    let can_take = p.left < hi;
    // The nearer of the left side's last midpoint and the right side's first crosses.
    let give = can_give && (!can_take || split - p.left_nearest <= p.right_nearest - split);
    let (left, moved) = if give {
        let i = nearest::<A, true>(&records[..p.left]);
        records.swap(i, p.left - 1);
        (p.left - 1, records[p.left - 1])
    } else {
        let i = p.left + nearest::<A, false>(&records[p.left..]);
        records.swap(i, p.left);
        (p.left + 1, records[p.left])
    };
    let doubled = moved.min + moved.max;
    if give {
        let (left_max, _, _) = extremes::<A>(&records[..left]);
        Parts {
            left,
            left_max,
            left_sum: p.left_sum - doubled,
            right_min: p.right_min.min(moved.min[A]),
            right_sum: p.right_sum + doubled,
        }
    } else {
        let (_, right_min, _) = extremes::<A>(&records[left..]);
        Parts {
            left,
            left_max: p.left_max.max(moved.max[A]),
            left_sum: p.left_sum + doubled,
            right_min,
            right_sum: p.right_sum - doubled,
        }
    }
}

/// The result of [`partition`]: [`Parts`] plus the left side's largest doubled midpoint and the
/// right side's smallest.
struct Partition {
    left: usize,
    left_max: f32,
    left_sum: Vec3,
    left_nearest: f32,
    right_min: f32,
    right_sum: Vec3,
    right_nearest: f32,
}

/// Writes the records of `src` whose doubled midpoint on axis `A` is below `split` to the front
/// of `dst` and the others to the back (in reverse order), then sums up both sides. The axis is a
/// constant so the loops index no `Vec3` at run time.
///
/// Branch-free: each record is written to both free ends and the side it belongs to advances
/// (the other end's copy is overwritten later, or is the same slot at the last record). Which side
/// a record goes to is a coin flip for the branch predictor: the in-place loop that swapped left
/// records forward mispredicted about half the records on every level of the tree. The sums and
/// extremes come from two straight passes over the sides afterwards.
#[inline(always)]
fn partition<const A: usize>(src: &[Record], dst: &mut [Record], split: f32) -> Partition {
    let n = src.len().min(dst.len());
    let (mut left, mut right) = (0usize, n);
    for r in &src[..n] {
        let goes_left = r.min[A] + r.max[A] < split;
        // `left < right` holds before every record (the free slots are `left..right`).
        dst[left] = *r;
        dst[right - 1] = *r;
        left += usize::from(goes_left);
        right -= usize::from(!goes_left);
    }
    let l = side::<A>(&dst[..left]);
    let r = side::<A>(&dst[left..n]);
    Partition {
        left,
        left_max: l.max,
        left_sum: l.sum,
        left_nearest: l.max_mid,
        right_min: r.min,
        right_sum: r.sum,
        right_nearest: r.min_mid,
    }
}

/// What one side of a partition needs on axis `A`: its extremes, the extremes of its doubled
/// midpoints, and the sum of `min + max`.
struct Side {
    max: f32,
    min: f32,
    max_mid: f32,
    min_mid: f32,
    sum: Vec3,
}

#[inline(always)]
fn side<const A: usize>(records: &[Record]) -> Side {
    let mut s = Side {
        max: f32::NEG_INFINITY,
        min: f32::INFINITY,
        max_mid: f32::NEG_INFINITY,
        min_mid: f32::INFINITY,
        sum: Vec3::ZERO,
    };
    let mut sum = glam::Vec3A::ZERO;
    for r in records {
        let (lo, hi) = (r.min[A], r.max[A]);
        let d = lo + hi;
        // Comparisons rather than `f32::max`, so they compile to plain max/min instructions.
        s.max = if hi > s.max { hi } else { s.max };
        s.min = if lo < s.min { lo } else { s.min };
        s.max_mid = if d > s.max_mid { d } else { s.max_mid };
        s.min_mid = if d < s.min_mid { d } else { s.min_mid };
        sum += glam::Vec3A::from(r.min) + glam::Vec3A::from(r.max);
    }
    s.sum = sum.into();
    s
}

/// The index of the record with the largest (`LARGEST`) or smallest doubled midpoint on axis `A`,
/// the first on ties.
fn nearest<const A: usize, const LARGEST: bool>(records: &[Record]) -> usize {
    let mut best = 0;
    for (i, r) in records.iter().enumerate().skip(1) {
        let (d, b) = (r.min[A] + r.max[A], records[best].min[A] + records[best].max[A]);
        if if LARGEST { d > b } else { d < b } {
            best = i;
        }
    }
    best
}

/// The largest `max`, the smallest `min` on axis `A`, and the sum of `min + max` of `records`.
fn extremes<const A: usize>(records: &[Record]) -> (f32, f32, Vec3) {
    records.iter().fold((f32::NEG_INFINITY, f32::INFINITY, Vec3::ZERO), |(hi, lo, s), r| {
        (hi.max(r.max[A]), lo.min(r.min[A]), s + (r.min + r.max))
    })
}

/// Bounds and sum of `min + max` of `records`.
fn summarize(records: &[Record]) -> (Aabb, Vec3) {
    records.iter().fold((Aabb::EMPTY, Vec3::ZERO), |(b, s), r| {
        (Aabb::new(b.min.min(r.min), b.max.max(r.max)), s + (r.min + r.max))
    })
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
}
