//! The quality build ([`BuildOptions::QUALITY`](crate::BuildOptions::QUALITY)): each node's axis
//! and two planes chosen by a binned surface-area cost over the volumes the traversal tests (the
//! node's volume cut by one plane per child), over the same records, nodes and partition as the
//! seed's build.
//!
//! The cost of a split is `n_left * area(left volume) + n_right * area(right volume)`: a ray
//! that crosses a node's volume enters a child with a probability in proportion to the child's
//! surface area. The children's volumes are the node's volume with one side moved to the plane,
//! as the queries recover them, not the children's own boxes: a loose kD tree only narrows a
//! volume on the axes it splits.

use glam::Vec4;
use voxel_core::Aabb;

use super::{Builder, Record, SMALL, XYZ, depth_bound, leaf, longest_axis, sort_key, split_records};

/// Bins per axis of the large nodes' cost sweep; half as many below [`LARGE`] records, where
/// clearing and sweeping the bins costs as much as filling them.
const BINS: usize = 16;
const LARGE: usize = 64;

/// Below this many records the seed's split rule takes over for the whole subtree: on the
/// 4x2x4-chunk terrain it costs 1.3% more box candidates and saves a third of the quality
/// build's instructions (callgrind: 282 -> 191 M per build, the seed's build 70 M).
const SEED_BELOW: usize = 32;

/// The deepest a quality tree may be: the [`Scratch`](crate::Scratch) stack holds 64 levels. A
/// split may leave a side smaller than the seed's quarter while the depth that leaves to the
/// bigger side still holds it split by the seed's rule (which [`depth_bound`] counts).
pub(super) const MAX_DEPTH: u32 = 63;

/// The split cost's area terms on `axis` of a volume of (scaled) size `size`: half the surface
/// area of the volume with that axis' extent set to `e` is `e * sum + product`.
#[derive(Clone, Copy)]
struct Area {
    sum: f32,
    product: f32,
}

impl Area {
    #[inline(always)]
    fn new(size: Vec4, axis: usize) -> Self {
        let (a, b) = (size[(axis + 1) % 3], size[(axis + 2) % 3]);
        Self { sum: a + b, product: a * b }
    }

    #[inline(always)]
    fn of(&self, extent: f32) -> f32 {
        extent.max(0.0) * self.sum + self.product
    }
}

impl Builder {
    /// Makes `node` the subtree over `records` by the surface-area cost. `spare` and `volume` as
    /// in [`Builder::split`].
    pub(super) fn split_quality(
        &mut self,
        records: &mut [Record],
        spare: &mut [Record],
        node: usize,
        volume: Aabb,
        depth: u32,
    ) {
        let n = records.len();
        if n <= SMALL {
            self.small_quality(records, node, volume, depth);
            return;
        }
        if n < SEED_BELOW {
            self.split(records, spare, node, volume, super::sum_mid(records), depth);
            return;
        }
        // A side of one is allowed while the other side's seed bound fits in the depth left.
        let min_side = if depth + 1 + depth_bound(n - 1) <= MAX_DEPTH { 1 } else { n.div_ceil(4) };
        // No usable bin boundary (every midpoint equal): the halves of the seed's fallback.
        let best = if n >= LARGE {
            best_binned_split::<BINS>(records, &volume, min_side)
        } else {
            best_binned_split::<{ BINS / 2 }>(records, &volume, min_side)
        };
        let (axis, split) = best.unwrap_or((longest_axis(&volume), f32::INFINITY));
        let parts = match axis {
            0 => split_records::<0>(records, spare, split, &mut self.bits, min_side),
            1 => split_records::<1>(records, spare, split, &mut self.bits, min_side),
            _ => split_records::<2>(records, spare, split, &mut self.bits, min_side),
        };
        let (left_volume, right_volume) = self.branch(node, axis, [parts.left_max, parts.right_min], &volume);
        let first_child = self.nodes.len() - 2;
        let (left, right) = spare.split_at_mut(parts.left);
        let (left_spare, right_spare) = records.split_at_mut(parts.left);
        self.split_quality(left, left_spare, first_child, left_volume, depth + 1);
        self.split_quality(right, right_spare, first_child + 1, right_volume, depth + 1);
    }

    /// [`Builder::split_quality`] for up to [`SMALL`] records: every even left count on every
    /// axis, by the exact cost over the records sorted on that axis.
    fn small_quality(&mut self, records: &[Record], node: usize, volume: Aabb, depth: u32) {
        let n = records.len().min(SMALL);
        if n <= 2 {
            self.nodes[node] = leaf(records);
            self.depth = self.depth.max(depth);
            return;
        }
        let size = scaled_size(&volume);
        let scale = 1.0 / volume.size().max_element();
        // Only trees near the stack's depth need the check per candidate.
        let deep = depth + 1 + depth_bound(n - 1) > MAX_DEPTH;
        let (mut best_cost, mut best_axis, mut best_k, mut best_order) = (f32::INFINITY, usize::MAX, 0, [0u8; SMALL]);
        for axis in 0..3 {
            let order = order_small(&records[..n], axis);
            // Prefix largest `max` and suffix smallest `min` on the axis.
            let mut left_max = [f32::NEG_INFINITY; SMALL];
            let mut right_min = [f32::INFINITY; SMALL + 1];
            let mut m = f32::NEG_INFINITY;
            for i in 0..n {
                m = m.max(records[usize::from(order[i]) % n].hi[axis]);
                left_max[i] = m;
            }
            for i in (0..n).rev() {
                right_min[i] = right_min[i + 1].min(records[usize::from(order[i]) % n].lo[axis]);
            }
            let area = Area::new(size, axis);
            for k in (2..n).step_by(2) {
                if deep && depth + 1 + depth_bound(k.max(n - k)) > MAX_DEPTH {
                    continue;
                }
                let left = (left_max[k - 1].min(volume.max[axis]) - volume.min[axis]) * scale;
                let right = (volume.max[axis] - right_min[k].max(volume.min[axis])) * scale;
                let cost = k as f32 * area.of(left) + (n - k) as f32 * area.of(right);
                if best_axis == usize::MAX || cost < best_cost {
                    (best_cost, best_axis, best_k, best_order) = (cost, axis, k, order);
                }
            }
        }
        if best_axis == usize::MAX {
            // Not reached (the seed's split of the halves always fits the depth); kept total.
            best_axis = longest_axis(&volume);
            best_order = order_small(&records[..n], best_axis);
            best_k = (n / 2 + 1) & !1;
        }
        let (axis, k) = (best_axis, best_k);
        let mut sorted = [Record::EMPTY; SMALL];
        for (slot, &i) in sorted.iter_mut().zip(&best_order[..n]) {
            *slot = records[usize::from(i) % n];
        }
        let (l, r) = sorted[..n].split_at(k.min(n));
        let left_max = l.iter().fold(f32::NEG_INFINITY, |m, r| m.max(r.hi[axis]));
        let right_min = r.iter().fold(f32::INFINITY, |m, r| m.min(r.lo[axis]));
        let (left_volume, right_volume) = self.branch(node, axis, [left_max, right_min], &volume);
        let first_child = self.nodes.len() - 2;
        self.small_quality(l, first_child, left_volume, depth + 1);
        self.small_quality(r, first_child + 1, right_volume, depth + 1);
    }
}

/// The volume's size in units of its largest extent, fourth lane zero.
#[inline]
fn scaled_size(volume: &Aabb) -> Vec4 {
    let size = volume.size();
    let largest = size.max_element();
    if largest > 0.0 && largest.is_finite() { (size / largest).extend(0.0) } else { Vec4::new(1.0, 1.0, 1.0, 0.0) }
}

/// The order of up to [`SMALL`] records by [`sort_key`] on `axis`: each record's rank is the
/// number of smaller keys, counted over all pairs without a branch.
#[inline]
fn order_small(records: &[Record], axis: usize) -> [u8; SMALL] {
    let n = records.len().min(SMALL);
    let mut keys = [0u64; SMALL];
    for (k, r) in keys.iter_mut().zip(&records[..n]) {
        *k = match axis {
            0 => sort_key::<0>(r),
            1 => sort_key::<1>(r),
            _ => sort_key::<2>(r),
        };
    }
    let mut rank = [0usize; SMALL];
    for i in 1..n {
        for j in 0..i {
            let less = keys[j] < keys[i];
            rank[i] += usize::from(less);
            rank[j] += usize::from(!less);
        }
    }
    let mut order = [0u8; SMALL];
    for (i, &r) in rank[..n].iter().enumerate() {
        order[r % SMALL] = i as u8;
    }
    order
}

/// The axis and the doubled-midpoint split value of the cheapest boundary between [`BINS`] bins
/// of the records' midpoints on each axis, whose sides both hold at least `min_side` records;
/// `None` when no boundary separates any records.
fn best_binned_split<const B: usize>(records: &[Record], volume: &Aabb, min_side: usize) -> Option<(usize, f32)> {
    let n = records.len();
    let (cmin, cmax) = records.iter().fold((Vec4::INFINITY, Vec4::NEG_INFINITY), |(lo, hi), r| {
        let m = r.doubled_mid();
        (lo.min(m), hi.max(m))
    });
    let extent = cmax - cmin;
    // Bins per unit of doubled midpoint, slightly under `B / extent` so the largest midpoint
    // lands in the last bin.
    let per_unit = Vec4::select(extent.cmpgt(Vec4::ZERO), Vec4::splat(B as f32 * 0.999_99) / extent, Vec4::ZERO);
    // The fourth lanes (ids, floats near the smallest normal) are zeroed: their differences are
    // subnormal, which some processors handle in microcode (this loop ran 15x slower).
    let per_unit = Vec4::select(per_unit.is_finite_mask() & XYZ, per_unit, Vec4::ZERO);
    let cmin = Vec4::select(XYZ, cmin, Vec4::ZERO);
    // Per axis and bin: the count and the box around the records (whole `Vec4`s: one min and
    // one max per record and axis rather than a lane each).
    // Two sets of bins, for the even and the odd records: neighbouring records often share a
    // bin, and one set made every update wait for the previous one's store.
    let mut count = [[[0u32; B]; 3]; 2];
    let mut lo = [[[Vec4::INFINITY; B]; 3]; 2];
    let mut hi = [[[Vec4::NEG_INFINITY; B]; 3]; 2];
    let last = Vec4::splat((B - 1) as f32);
    for (i, r) in records.iter().enumerate() {
        let set = i & 1;
        let bin = ((r.doubled_mid() - cmin) * per_unit).max(Vec4::ZERO).min(last);
        for axis in 0..3 {
            let b = bin[axis] as usize % B;
            count[set][axis][b] += 1;
            lo[set][axis][b] = lo[set][axis][b].min(r.lo);
            hi[set][axis][b] = hi[set][axis][b].max(r.hi);
        }
    }
    for axis in 0..3 {
        for b in 0..B {
            count[0][axis][b] += count[1][axis][b];
            lo[0][axis][b] = lo[0][axis][b].min(lo[1][axis][b]);
            hi[0][axis][b] = hi[0][axis][b].max(hi[1][axis][b]);
        }
    }
    let (count, lo, hi) = (&count[0], &lo[0], &hi[0]);
    let size = scaled_size(volume);
    let scale = 1.0 / volume.size().max_element();
    let mut best: Option<(f32, usize, f32)> = None;
    for axis in 0..3 {
        if per_unit[axis] == 0.0 {
            continue;
        }
        let mut right_min = [f32::INFINITY; BINS + 1];
        for b in (0..B).rev() {
            right_min[b] = right_min[b + 1].min(lo[axis][b][axis]);
        }
        let area = Area::new(size, axis);
        let (mut left, mut left_max) = (0usize, f32::NEG_INFINITY);
        for b in 0..B - 1 {
            left += count[axis][b] as usize;
            left_max = left_max.max(hi[axis][b][axis]);
            let right = n - left;
            if left < min_side.max(1) || right < min_side.max(1) {
                continue;
            }
            let l = (left_max.min(volume.max[axis]) - volume.min[axis]) * scale;
            let r = (volume.max[axis] - right_min[b + 1].max(volume.min[axis])) * scale;
            let cost = left as f32 * area.of(l) + right as f32 * area.of(r);
            if best.is_none_or(|x| cost < x.0) {
                best = Some((cost, axis, cmin[axis] + (b + 1) as f32 / per_unit[axis]));
            }
        }
    }
    best.map(|(_, axis, split)| (axis, split))
}
