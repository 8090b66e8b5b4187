//! The 12-byte node of seed 000 ("Loose kD tree: construction"): a union of a branch (two split
//! planes on one axis, the first child's index) and a leaf (up to two primitive ids), told apart
//! by the axis value 3.

/// One node of a [`KdTree`](crate::KdTree), 12 bytes:
///
/// ```text
///            word 0 (u32)        word 1 (u32)        word 2 (u32)
/// branch:    left plane (f32)    right plane (f32)   first child << 2 | axis (0 = x, 1 = y, 2 = z)
/// leaf:      primitive id 0      primitive id 1      count << 2       | 3
/// ```
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

/// Largest first-child index and leaf count the 30-bit field holds.
pub(crate) const MAX_INDEX: u32 = (1 << 30) - 1;

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
        ([self.a, self.b], self.index() as usize)
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
