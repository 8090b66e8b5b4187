//! Quads as primitives (seed `000_ce04cac11e01e96d.txt`, "Future work": "if you store quads as a
//! first class primitive, the raycasts can be up to 2x more efficient"). The same tree, built over
//! the quads of a mesh whose triangles `2q` and `2q + 1` are quad `q` (the `voxel-mesh`
//! convention): half the leaves, four vertex transforms per quad instead of six for its two
//! triangles, and hits bit for bit those of the triangle tree.

use voxel_core::{Aabb, Ray, TriangleSource, validate_triangles};

use crate::build::{self, BuildOptions, MAX_PRIMITIVES, Record, triangle_is_usable};
use crate::intersect::{
    box_centre, box_half, quad_projected, triangle_overlaps_box, triangle_projected, with_major_axis,
};
use crate::query::walk_ray;
use crate::{KdTree, KdTreeError, RayHit, Scratch};

/// Set in a stored quad id when its first half (`[q0, q1, q2]`) is unusable and must not be hit.
const SKIP_FIRST: u32 = 1 << 31;
/// The same for the second half (`[q0, q2, q3]`).
const SKIP_SECOND: u32 = 1 << 30;
const QUAD_MASK: u32 = SKIP_SECOND - 1;

/// A loose kD tree over quads: ray and box queries that answer with triangle ids, equal to a
/// [`KdTree`]'s over the same mesh.
///
/// ```
/// use glam::Vec3;
/// use voxel_core::{IndexedMesh, Ray};
/// use voxel_kdtree::{QuadTree, Scratch};
///
/// // One quad on y = 0, split as voxel-mesh splits it: [q0, q1, q2] and [q0, q2, q3].
/// let mesh = IndexedMesh::new(
///     vec![Vec3::ZERO, Vec3::Z, Vec3::new(1.0, 0.0, 1.0), Vec3::X],
///     vec![[0, 1, 2], [0, 2, 3]],
/// )?;
/// let tree = QuadTree::build(&mesh)?;
/// let hit = tree.cast_ray(&mesh, &Ray::new(Vec3::new(0.8, 1.0, 0.1), Vec3::NEG_Y), 10.0, &mut Scratch::new());
/// assert_eq!(hit.map(|h| h.triangle), Some(1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct QuadTree {
    tree: KdTree,
}

impl QuadTree {
    /// Builds the tree over the quads of `source`. Triangles with a non-finite corner or zero
    /// area are never hit and are counted in [`QuadTree::skipped`]; a quad with both halves
    /// unusable is left out.
    ///
    /// # Errors
    ///
    /// [`KdTreeError::NotQuads`] when the triangles do not pair into quads (a `voxel-mesh`
    /// Surface Nets mesh with lone triangles, from voxels at distance 0, does not: build a
    /// [`KdTree`] over it); [`KdTreeError::Source`] and [`KdTreeError::TooManyPrimitives`] as
    /// [`KdTree::build`].
    pub fn build<S: TriangleSource + ?Sized>(source: &S) -> Result<Self, KdTreeError> {
        Self::build_with(source, BuildOptions::FAST)
    }

    /// [`QuadTree::build`] with the split rule of `options`.
    ///
    /// # Errors
    ///
    /// As [`QuadTree::build`].
    pub fn build_with<S: TriangleSource + ?Sized>(source: &S, options: BuildOptions) -> Result<Self, KdTreeError> {
        validate_triangles(source)?;
        let triangles = source.triangle_count();
        if !triangles.is_multiple_of(2) {
            return Err(KdTreeError::NotQuads { triangle: triangles - 1 });
        }
        let quads = triangles / 2;
        if quads > MAX_PRIMITIVES {
            return Err(KdTreeError::TooManyPrimitives { count: quads, limit: MAX_PRIMITIVES });
        }
        // Twice the count: the build uses the second half as its spare buffer.
        let mut records = Vec::with_capacity(2 * quads);
        let mut skipped = 0;
        for q in 0..quads as u32 {
            let (first, second) = (source.triangle(2 * q), source.triangle(2 * q + 1));
            if second[0] != first[0] || second[1] != first[2] {
                return Err(KdTreeError::NotQuads { triangle: 2 * q as usize + 1 });
            }
            let (a, b) = (source.triangle_positions(2 * q), source.triangle_positions(2 * q + 1));
            let (use_a, use_b) = (triangle_is_usable(a), triangle_is_usable(b));
            skipped += usize::from(!use_a) + usize::from(!use_b);
            let bounds = match (use_a, use_b) {
                (true, true) => Aabb::from_points(a.into_iter().chain(b)),
                (true, false) => Aabb::from_points(a),
                (false, true) => Aabb::from_points(b),
                (false, false) => continue,
            };
            let id = q | if use_a { 0 } else { SKIP_FIRST } | if use_b { 0 } else { SKIP_SECOND };
            records.push(Record::new(bounds.min, bounds.max, id));
        }
        Ok(Self { tree: build::build(records, triangles, skipped, options) })
    }

    /// The underlying tree; its leaves hold quad ids, with the two top bits marking unusable
    /// halves.
    pub fn tree(&self) -> &KdTree {
        &self.tree
    }

    /// Quads stored.
    pub fn len(&self) -> usize {
        self.tree.primitives
    }

    /// True when no quad is stored.
    pub fn is_empty(&self) -> bool {
        self.tree.primitives == 0
    }

    /// Triangles never hit (non-finite corner or zero area), as [`KdTree::skipped`] counts them.
    pub fn skipped(&self) -> usize {
        self.tree.skipped
    }

    /// Bytes the tree holds on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.tree.heap_bytes()
    }

    /// [`KdTree::cast_ray`] over quads: the same hit, bit for bit.
    pub fn cast_ray<S: TriangleSource + ?Sized>(
        &self,
        source: &S,
        ray: &Ray,
        max_t: f32,
        scratch: &mut Scratch,
    ) -> Option<RayHit> {
        if !self.tree.matches(source) {
            return None;
        }
        let mut best = RayHit { t: f32::INFINITY, triangle: u32::MAX };
        with_major_axis!(ray, K => walk_ray::<_, K>(&self.tree, ray, max_t, scratch, |shear, id, cutoff| {
            let q = id & QUAD_MASK;
            let (first, second) = (source.triangle(2 * q), source.triangle(2 * q + 1));
            let p = [first[0], first[1], first[2], second[2]].map(|v| shear.project(source.vertex(v)));
            let found = if id & (SKIP_FIRST | SKIP_SECOND) == 0 {
                quad_projected(p, *cutoff)
            } else if id & SKIP_FIRST == 0 {
                triangle_projected(p[0], p[1], p[2], *cutoff).map(|t| (t, 0))
            } else {
                triangle_projected(p[0], p[2], p[3], *cutoff).map(|t| (t, 1))
            };
            if let Some((t, half)) = found {
                RayHit { t, triangle: 2 * q + half }.keep_closest(&mut best, cutoff);
            }
            false
        }));
        (best.triangle != u32::MAX).then_some(best)
    }

    /// [`KdTree::query_aabb_exact`] over quads: the triangles (not quads) of `source` that
    /// overlap `query`, in traversal order, written to `out` (cleared first).
    pub fn query_aabb_exact<S: TriangleSource + ?Sized>(
        &self,
        source: &S,
        query: &Aabb,
        scratch: &mut Scratch,
        out: &mut Vec<u32>,
    ) {
        out.clear();
        if !self.tree.matches(source) || !query.is_valid() {
            return;
        }
        let (centre, half_size) = (box_centre(query), box_half(query));
        self.tree.walk_aabb(query, scratch, |id| {
            let q = id & QUAD_MASK;
            for (half, skip) in [(0, SKIP_FIRST), (1, SKIP_SECOND)] {
                let tri = source.triangle_positions(2 * q + half);
                if id & skip == 0 && triangle_overlaps_box(tri, query, centre, half_size) {
                    out.push(2 * q + half);
                }
            }
        });
    }
}
