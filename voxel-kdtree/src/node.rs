//! The 12-byte node of seed 000 ("Loose kD tree: construction"): a union of a branch (two split
//! planes on one axis, the first child's index) and a leaf (up to two primitive ids), told apart
//! by the axis value 3.

/// One node of a [`KdTree`](crate::KdTree), 12 bytes:
///
/// ```text
///            word 0 (u32)        word 1 (u32)        word 2 (u32)
/// branch:    left plane (f32)    right plane (f32)   first child << 2 | axis (0 = x, 1 = y, 2 = z)
/// leaf:      primitive id 0      primitive id 1      box << 4 | count << 2 | 3
/// ```
///
/// A leaf of the quality build also holds a box around its primitives in 24 bits: six 4-bit
/// codes (the lower x, y, z sides, then the upper ones), each side moved inwards from the leaf's
/// volume as the queries recover it (the root box cut by its ancestors' planes) by `code / 16`
/// of the volume's extent; zero means "no box" (the volume itself).
///
/// A branch's children sit at `first_child` (left: every point of its primitives has
/// `coordinate <= left plane`) and `first_child + 1` (right: `coordinate >= right plane`). The
/// planes are loose: they fit the children's primitives, so they may overlap or leave a gap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Node {
    a: u32,
    b: u32,
    tag: u32,
}

// The seed's memory figure (12 B per node, about one node per triangle) depends on this.
const _: () = assert!(size_of::<Node>() == 12);

/// The axis value that marks a leaf.
const LEAF_TAG: u32 = 3;

/// Largest first-child index the 30-bit field holds.
pub(crate) const MAX_INDEX: u32 = (1 << 30) - 1;

/// A leaf's box as six 4-bit codes (bits 0-11: the lower x, y, z sides, bits 12-23: the upper
/// ones), each side moved inwards from the leaf's volume by `code / 16` of the volume's extent:
///
/// ```text
/// min[a] = vmin[a] + (vmax[a] - vmin[a]) * (lo_code[a] / 16)
/// max[a] = vmax[a] - (vmax[a] - vmin[a]) * (hi_code[a] / 16)
/// ```
///
/// The builder checks the decoded box, computed exactly as the queries compute it, against its
/// primitives' bounds and writes a code only when the box holds them, so the box is
/// conservative bit for bit. Zero (every side at the volume's) marks a leaf without a box.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LeafBox(pub(crate) u32);

impl LeafBox {
    /// Fraction per code step.
    const STEP: f32 = 1.0 / 16.0;

    /// The box inside `volume` (given as its corners), decoded.
    #[inline(always)]
    pub(crate) fn decode(self, vmin: glam::Vec3A, vmax: glam::Vec3A) -> (glam::Vec3A, glam::Vec3A) {
        let c = self.0;
        let code = |shift: u32| ((c >> shift) & 15) as f32 * Self::STEP;
        let lo = glam::Vec3A::new(code(0), code(4), code(8));
        let hi = glam::Vec3A::new(code(12), code(16), code(20));
        let size = vmax - vmin;
        (vmin + size * lo, vmax - size * hi)
    }

    /// A box code whose decoded box holds `[lo, hi]` within `volume` (each side at most a step
    /// outside its bound), or zero (no box) when the volume is not finite. Not inlined: inlined
    /// into the leaf writes the build paths share, it slowed the fast build by 7%.
    pub(crate) fn encode(vmin: glam::Vec3A, vmax: glam::Vec3A, lo: glam::Vec3A, hi: glam::Vec3A) -> Self {
        let size = vmax - vmin;
        if !size.is_finite() || !vmin.is_finite() || !vmax.is_finite() {
            return Self(0);
        }
        // The fractions rounded down, checked by `decode` itself: almost always the answer.
        let per_unit = glam::Vec3A::select(size.cmpgt(glam::Vec3A::ZERO), 16.0 / size, glam::Vec3A::ZERO);
        let step = |d: glam::Vec3A| (d * per_unit).clamp(glam::Vec3A::ZERO, glam::Vec3A::splat(15.0)).as_uvec3();
        let (l, h) = (step(lo - vmin), step(vmax - hi));
        let first = Self(l.x | (l.y << 4) | (l.z << 8) | (h.x << 12) | (h.y << 16) | (h.z << 20));
        let (dlo, dhi) = first.decode(vmin, vmax);
        if dlo.cmple(lo).all() && dhi.cmpge(hi).all() {
            return first;
        }
        Self::encode_stepwise(vmin, vmax, lo, hi)
    }

    /// [`LeafBox::encode`] side by side, for the rare box whose rounded-down fractions do not
    /// hold their bounds.
    #[cold]
    fn encode_stepwise(vmin: glam::Vec3A, vmax: glam::Vec3A, lo: glam::Vec3A, hi: glam::Vec3A) -> Self {
        let size = vmax - vmin;
        // Per side, a first guess from the fraction, then outwards a step at a time until the
        // side holds the bound. The scalar arithmetic is the decode's, lane for lane (the same
        // IEEE operations in the same order), so the check is exact; code 0 is the volume's
        // side, which holds every bound inside the volume (and ends the loop if one is not).
        let mut code = 0u32;
        for axis in 0..3 {
            let (v0, v1, extent) = (vmin[axis], vmax[axis], size[axis]);
            let per_unit = if extent > 0.0 { 16.0 / extent } else { 0.0 };
            let guess = |d: f32| (d * per_unit).clamp(0.0, 15.0) as u32;
            let mut l = guess(lo[axis] - v0);
            while l > 0 && v0 + extent * (l as f32 * Self::STEP) > lo[axis] {
                l -= 1;
            }
            let mut h = guess(v1 - hi[axis]);
            while h > 0 && v1 - extent * (h as f32 * Self::STEP) < hi[axis] {
                h -= 1;
            }
            code |= (l << (4 * axis)) | (h << (12 + 4 * axis));
        }
        Self(code)
    }
}

/// What a [`Node`] holds, decoded.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NodeKind {
    /// Two split planes on one axis; children at `first_child` and `first_child + 1`.
    Branch {
        /// 0 = x, 1 = y, 2 = z.
        axis: usize,
        /// Every point of the left child's primitives has `coordinate <= planes[0]`, every point
        /// of the right child's has `coordinate >= planes[1]`.
        planes: [f32; 2],
        /// Index of the left child; the right child follows it.
        first_child: u32,
    },
    /// Up to two primitives (triangles, or quads in a [`QuadTree`](crate::QuadTree)).
    Leaf {
        /// How many of `ids` are used (0 only in an empty tree's root, which is never stored).
        count: usize,
        /// Primitive ids; the first `count` are meaningful.
        ids: [u32; 2],
    },
}

impl Node {
    /// A leaf with no primitive: what an out-of-range index reads as.
    pub(crate) const EMPTY_LEAF: Node = Node { a: 0, b: 0, tag: LEAF_TAG };

    /// A branch; `first_child <= MAX_INDEX` and `axis < 3` are the builder's to keep.
    #[inline]
    pub(crate) fn branch(axis: usize, planes: [f32; 2], first_child: u32) -> Self {
        debug_assert!(axis < 3 && first_child <= MAX_INDEX);
        Self { a: planes[0].to_bits(), b: planes[1].to_bits(), tag: (first_child << 2) | axis as u32 }
    }

    /// A leaf with `ids.len()` (1 or 2) primitives.
    #[inline]
    pub(crate) fn leaf(ids: &[u32]) -> Self {
        debug_assert!(!ids.is_empty() && ids.len() <= 2);
        let second = ids.get(1).copied().unwrap_or(0);
        Self { a: ids[0], b: second, tag: ((ids.len() as u32) << 2) | LEAF_TAG }
    }

    /// This leaf with `bounds` as its box.
    #[inline]
    pub(crate) fn with_box(self, bounds: LeafBox) -> Self {
        debug_assert!(self.is_leaf() && bounds.0 < 1 << 24);
        Self { tag: (self.tag & 15) | (bounds.0 << 4), ..self }
    }

    /// A leaf's box code (zero: none).
    #[inline(always)]
    pub(crate) fn leaf_box(&self) -> LeafBox {
        LeafBox(self.tag >> 4)
    }

    /// True for a leaf.
    #[inline]
    pub fn is_leaf(&self) -> bool {
        self.tag & 3 == LEAF_TAG
    }

    /// The axis of a branch (3 for a leaf).
    #[inline]
    pub(crate) fn axis(&self) -> usize {
        (self.tag & 3) as usize
    }

    /// The first child of a branch, or the count of a leaf.
    #[inline]
    pub(crate) fn index(&self) -> u32 {
        self.tag >> 2
    }

    /// The planes of a branch.
    #[inline]
    pub(crate) fn planes(&self) -> (f32, f32) {
        (f32::from_bits(self.a), f32::from_bits(self.b))
    }

    /// The primitive ids of a leaf: `(ids, count)`.
    #[inline]
    pub(crate) fn ids(&self) -> ([u32; 2], usize) {
        ([self.a, self.b], ((self.tag >> 2) & 3) as usize)
    }

    /// The node, decoded.
    pub fn kind(&self) -> NodeKind {
        if self.is_leaf() {
            let (ids, count) = self.ids();
            NodeKind::Leaf { count, ids }
        } else {
            let (left, right) = self.planes();
            NodeKind::Branch { axis: self.axis(), planes: [left, right], first_child: self.index() }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3A;

    /// Every encoded box, decoded as the queries decode it, holds the bounds it was made for,
    /// on random volumes from tiny to huge and far from the origin; most boxes are tighter than
    /// their volume. Fails when `encode` rounds a side past its bound (checked by encoding one
    /// step outside).
    #[test]
    fn leaf_boxes_hold_their_bounds() {
        let mut rng = voxel_testdata::Rng(0x9E37_79B9_7F4A_7C15);
        let mut unit = || rng.unit();
        let mut tighter = 0;
        for case in 0..20_000 {
            let scale = [1e-6f32, 0.37, 3.0, 1e4, 3e7][case % 5];
            let offset = [0.0f32, -1e3, 7e5][case % 3];
            let vmin = Vec3A::new(unit(), unit(), unit()) * scale + Vec3A::splat(offset);
            let vmax = vmin + Vec3A::new(unit(), unit(), unit()) * scale;
            let a = vmin + (vmax - vmin) * Vec3A::new(unit(), unit(), unit());
            let b = vmin + (vmax - vmin) * Vec3A::new(unit(), unit(), unit());
            // Bounds within the volume (rounding may put them an ulp outside; clamp as a
            // volume recovered from planes refitted to the bounds would be).
            let (lo, hi) = (a.min(b).max(vmin), a.max(b).min(vmax));
            let code = LeafBox::encode(vmin, vmax, lo, hi);
            let (dlo, dhi) = code.decode(vmin, vmax);
            assert!(dlo.cmple(lo).all() && dhi.cmpge(hi).all(), "{vmin} {vmax} {lo} {hi}: {dlo} {dhi}");
            // The side-by-side path `encode` falls back to, on its own.
            let (slo, shi) = LeafBox::encode_stepwise(vmin, vmax, lo, hi).decode(vmin, vmax);
            assert!(slo.cmple(lo).all() && shi.cmpge(hi).all(), "{vmin} {vmax} {lo} {hi}: {slo} {shi}");
            tighter += usize::from(code.0 != 0);
        }
        // Tiny volumes far from the origin round to zero size (no box): about a tenth.
        assert!(tighter > 16_000, "{tighter}");
        // A flat volume, bounds equal to the volume, and a non-finite volume.
        let (vmin, vmax) = (Vec3A::new(0.0, 2.0, 0.0), Vec3A::new(4.0, 2.0, 4.0));
        let flat = LeafBox::encode(vmin, vmax, Vec3A::new(1.0, 2.0, 3.0), Vec3A::new(1.5, 2.0, 3.5));
        assert_eq!(flat.decode(vmin, vmax), (Vec3A::new(1.0, 2.0, 3.0), Vec3A::new(1.5, 2.0, 3.5)));
        assert_eq!(LeafBox::encode(vmin, vmax, vmin, vmax), LeafBox(0));
        let huge = Vec3A::splat(f32::MAX);
        assert_eq!(LeafBox::encode(-huge, huge, Vec3A::ZERO, Vec3A::ONE), LeafBox(0));
    }

    #[test]
    fn a_leaf_keeps_its_ids_and_count_with_a_box() {
        let l = Node::leaf(&[7, u32::MAX]).with_box(LeafBox((1 << 24) - 1));
        assert_eq!(l.kind(), NodeKind::Leaf { count: 2, ids: [7, u32::MAX] });
        assert_eq!(l.leaf_box(), LeafBox((1 << 24) - 1));
        let one = Node::leaf(&[3]).with_box(LeafBox(0x00A5_5A01));
        assert_eq!(one.kind(), NodeKind::Leaf { count: 1, ids: [3, 0] });
        assert_eq!(Node::leaf(&[3]).leaf_box(), LeafBox(0));
    }

    #[test]
    fn branch_and_leaf_round_trip() {
        let b = Node::branch(2, [1.5, -0.25], MAX_INDEX);
        assert_eq!(b.kind(), NodeKind::Branch { axis: 2, planes: [1.5, -0.25], first_child: MAX_INDEX });
        assert!(!b.is_leaf());
        let l = Node::leaf(&[7, u32::MAX]);
        assert_eq!(l.kind(), NodeKind::Leaf { count: 2, ids: [7, u32::MAX] });
        assert_eq!(Node::leaf(&[9]).kind(), NodeKind::Leaf { count: 1, ids: [9, 0] });
    }
}
