//! The loose kD tree of Roblox's terrain physics (Arseny Kapoulkine, "Voxel Terrain:
//! Physics", Roblox 2018: "Loose kD tree: construction" and "queries"), over any [`TriangleSource`].
//!
//! A binary tree whose branches hold two split planes on one axis (the left child's primitives lie
//! below the first, the right child's above the second) in 12-byte nodes, at most one node per
//! triangle (splits keep both sides even, so leaves hold two triangles): 12 bytes per triangle,
//! where a BVH node with a full box takes 32 to 64. Queries recover each node's volume on the way
//! down and walk the tree over a fixed stack bounded by the tree depth ("stackless" as the article
//! uses the word, in a reusable [`Scratch`]): box queries, closest-hit, any-hit and
//! all-hits ray casts with a watertight ray-triangle test, batch forms with rayon, a tree over the
//! quads of a `voxel-mesh` mesh ([`QuadTree`]), and a compact form ([`CompactTree`]).
//!
//! ```
//! use glam::Vec3;
//! use voxel_core::{Aabb, IndexedMesh, Ray};
//! use voxel_kdtree::{KdTree, Scratch};
//!
//! // A unit square on y = 0, two triangles.
//! let mesh = IndexedMesh::new(
//!     vec![Vec3::ZERO, Vec3::X, Vec3::new(1.0, 0.0, 1.0), Vec3::Z],
//!     vec![[0, 2, 1], [0, 3, 2]],
//! )?;
//! let tree = KdTree::build(&mesh)?;
//! let mut scratch = Scratch::for_tree(&tree); // reused: queries do not allocate
//!
//! let hit = tree.cast_ray(&mesh, &Ray::new(Vec3::new(0.75, 5.0, 0.25), Vec3::NEG_Y), 100.0, &mut scratch);
//! assert_eq!(hit.map(|h| (h.t, h.triangle)), Some((5.0, 0)));
//!
//! let mut found = Vec::new();
//! tree.query_aabb_exact(&mesh, &Aabb::new(Vec3::new(0.0, -0.1, 0.8), Vec3::new(0.1, 0.1, 0.9)), &mut scratch, &mut found);
//! assert_eq!(found, [1]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Two builds
//!
//! [`KdTree::build`] follows the article (longest axis, mean of the midpoints): the fastest build,
//! for small chunks rebuilt on every edit. [`KdTree::build_with`] and
//! [`BuildOptions::QUALITY`] choose each split by a binned surface-area cost instead: a slower
//! build and fewer nodes and triangles per query, for large meshes queried far more often than
//! they change. Both give the same nodes, answers and guarantees.
//!
//! # Layout
//!
//! ```text
//! nodes: Vec<Node>, 12 bytes each, root at 0, the two children of a branch side by side
//!
//!   [0] branch x: left <= 4.0, right >= 3.5, children at 1
//!   [1] branch z ...   children at 3        [2] leaf: triangles 7, 2
//!   [3] leaf: 0, 5     [4] leaf: 1
//! ```
//!
//! See [`raw::Node`] for the bit layout. The tree also keeps its root box, for early rejection of boxes
//! and rays that miss it, and its depth (never above [`depth_bound`], which the [`Scratch`]'s
//! fixed stack holds for any tree).
//!
//! # Conventions
//!
//! - The tree stores triangle ids, not positions: queries take the source the tree was built from
//!   (a source with another triangle count gets no results). [`CompactTree`] keeps its own
//!   quantized copy instead.
//! - Boxes are closed (touching counts). Ray hits are at `t` in `[0, max_t]`, either side of a
//!   triangle; the closest hit breaks ties by the lower triangle index.
//! - Ray-triangle tests are watertight (Woop, Benthin and Wald 2013): a ray through an edge or a
//!   vertex shared by triangles of a closed mesh hits one of them.
//! - Bad input never panics: triangles with a non-finite corner or zero area are left out and
//!   counted ([`KdTree::skipped`]); degenerate rays, NaN `max_t` and empty or NaN boxes hit
//!   nothing; only the build returns errors ([`KdTreeError`]: unusable indices, more than
//!   [`MAX_PRIMITIVES`]).
//! - Deterministic: the same source gives the same tree and the same answers, and batch queries
//!   give the serial answers in input order for any thread count.
//!
//! # Figures
//!
//! The benches `kdtree/*` in `voxel-bench` measure build, memory and queries beside `parry3d` and
//! `obvhs`; the crate README lists them.

#![forbid(unsafe_code)]

mod batch;
mod build;
mod compact;
mod error;
mod intersect;
mod node;
mod quads;
mod query;

pub use batch::BoxResults;
pub use build::{BuildOptions, MAX_PRIMITIVES, depth_bound, triangle_is_usable};
pub use compact::{CompactTree, MAX_COMPACT_NODES};
pub use error::KdTreeError;
pub use intersect::{ray_triangle, triangle_overlaps_aabb};
use node::Node;

/// The tree's nodes as stored, for tools and tests that inspect a built tree
/// ([`KdTree::nodes`]). Not covered by semantic versioning: the layout may change in any release.
pub mod raw {
    pub use crate::node::{Node, NodeKind};
}
pub use quads::QuadTree;
pub use query::{RayHit, Scratch};

use voxel_core::{Aabb, TriangleSource};

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// A loose kD tree over the triangles of a [`TriangleSource`]. See the crate docs.
#[derive(Clone, Debug, PartialEq)]
pub struct KdTree {
    pub(crate) nodes: Vec<Node>,
    pub(crate) bounds: Aabb,
    pub(crate) depth: u32,
    /// Primitives stored in the tree.
    pub(crate) primitives: usize,
    /// Primitives of the source, stored or not.
    pub(crate) source_primitives: usize,
    pub(crate) skipped: usize,
}

impl KdTree {
    /// Builds the tree over the triangles of `source`. Triangles with a non-finite corner or zero
    /// area are left out and counted ([`KdTree::skipped`]).
    ///
    /// # Errors
    ///
    /// [`KdTreeError::Source`] when a triangle names a missing vertex or the counts exceed `u32`;
    /// [`KdTreeError::TooManyPrimitives`] beyond [`MAX_PRIMITIVES`] triangles.
    pub fn build<S: TriangleSource + ?Sized>(source: &S) -> Result<Self, KdTreeError> {
        Self::build_with(source, BuildOptions::FAST)
    }

    /// [`KdTree::build`] with the split rule of `options` ([`BuildOptions::QUALITY`] for fewer
    /// nodes visited per query at a higher build cost).
    ///
    /// # Errors
    ///
    /// As [`KdTree::build`].
    pub fn build_with<S: TriangleSource + ?Sized>(source: &S, options: BuildOptions) -> Result<Self, KdTreeError> {
        let (records, skipped) = build::triangle_records(source)?;
        Ok(build::build(records, source.triangle_count(), skipped, options))
    }

    /// The nodes, root first (empty for a tree without triangles).
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The box around every stored triangle ([`Aabb::EMPTY`] for an empty tree).
    pub fn bounds(&self) -> Aabb {
        self.bounds
    }

    /// The deepest leaf's depth (root at 0); never above [`depth_bound`] of the triangle count
    /// for [`BuildOptions::FAST`], nor above 63 (the [`Scratch`] stack) for either build.
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// Triangles stored in the tree.
    pub fn len(&self) -> usize {
        self.primitives
    }

    /// True when the tree holds no triangle.
    pub fn is_empty(&self) -> bool {
        self.primitives == 0
    }

    /// Triangles of the source left out (non-finite corner or zero area).
    pub fn skipped(&self) -> usize {
        self.skipped
    }

    /// Bytes the tree holds on the heap (its node array).
    pub fn heap_bytes(&self) -> usize {
        self.nodes.capacity() * size_of::<Node>()
    }
}
