//! Queries, as seed `000_ce04cac11e01e96d.txt` describes them ("Loose kD tree: queries"): stackless
//! traversal over a scratch buffer sized by the tree depth, box queries that descend into the
//! children whose half-space the box reaches, and segment-tree ray traversal that clips `[tmin,
//! tmax]` at the two planes of each branch, near child first, with early termination.

use voxel_core::{Aabb, Ray, TriangleSource};

use crate::intersect::{Sheared, triangle_overlaps_aabb, triangle_projected};
use crate::{KdTree, Node};

/// Relative widening of every segment bound, in units of the coordinates involved: 64 `f32`
/// epsilons. A plane distance `(s - o) / d` is off by about one epsilon of `(|s| + |o|) / |d|`,
/// and the watertight test's `t` by a few of the same; widening by more keeps the traversal from
/// pruning a node whose primitive gives the closest computed hit (the seed's "slightly expand the
/// segment on each branch").
const WIDEN: f32 = 64.0 * f32::EPSILON;

/// Reusable traversal buffers; a query reserves them for the tree's depth, so after the first
/// query on a tree (or after [`Scratch::for_tree`]) queries do not allocate.
///
/// One scratch serves any number of trees, one query at a time.
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    nodes: Vec<u32>,
    segments: Vec<Segment>,
}

/// A node to visit and the part of the ray inside its volume.
#[derive(Clone, Copy, Debug)]
struct Segment {
    node: u32,
    t_min: f32,
    t_max: f32,
}

impl Scratch {
    /// Empty buffers (they grow on the first query).
    pub fn new() -> Self {
        Self::default()
    }

    /// Buffers already sized for `tree`'s depth.
    pub fn for_tree(tree: &KdTree) -> Self {
        let mut s = Self::new();
        s.reserve(tree.depth());
        s
    }

    /// A traversal pops one entry and pushes at most two per level, so `depth + 1` entries hold
    /// any traversal.
    #[inline]
    fn reserve(&mut self, depth: u32) {
        let need = depth as usize + 2;
        self.nodes.clear();
        self.segments.clear();
        self.nodes.reserve(need);
        self.segments.reserve(need);
    }
}

/// A ray hit: where along the ray, and on which triangle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// The ray parameter: the hit point is `ray.origin + t * ray.dir`.
    pub t: f32,
    /// The triangle's index in the source.
    pub triangle: u32,
}

impl RayHit {
    /// Orders hits by `t`, then by triangle: the closest hit, ties to the lower index.
    #[inline]
    pub(crate) fn before(&self, other: &RayHit) -> bool {
        self.t < other.t || (self.t == other.t && self.triangle < other.triangle)
    }

    /// Keeps `self` in `best` when it comes first, lowering the traversal's `cutoff` to it.
    #[inline]
    pub(crate) fn keep_closest(self, best: &mut RayHit, cutoff: &mut f32) {
        if self.before(best) {
            *best = self;
            *cutoff = self.t;
        }
    }
}

impl KdTree {
    /// The triangles whose leaves' volumes overlap `query` (closed boxes: touching counts), in
    /// traversal order, written to `out` (cleared first). A superset of the triangles whose
    /// bounding boxes overlap `query`; filter with [`triangle_overlaps_aabb`] or call
    /// [`KdTree::query_aabb_exact`] for the exact set. An empty or NaN box gives nothing.
    ///
    /// The source is not needed: the candidates come from the tree alone.
    pub fn query_aabb(&self, query: &Aabb, scratch: &mut Scratch, out: &mut Vec<u32>) {
        out.clear();
        self.walk_aabb(query, scratch, |id| out.push(id));
    }

    /// The triangles of `source` that overlap `query` (exact separating-axis test), in traversal
    /// order, written to `out` (cleared first). `source` must be the one the tree was built from;
    /// another source with a different triangle count gets nothing.
    pub fn query_aabb_exact<S: TriangleSource + ?Sized>(
        &self,
        source: &S,
        query: &Aabb,
        scratch: &mut Scratch,
        out: &mut Vec<u32>,
    ) {
        out.clear();
        if !self.matches(source) || !query.is_valid() {
            return;
        }
        self.walk_aabb(query, scratch, |id| {
            if triangle_overlaps_aabb(source.triangle_positions(id), query) {
                out.push(id);
            }
        });
    }

    /// The closest hit of `ray` with a triangle of `source` at `t` in `[0, t_max]` (ties to the
    /// lower triangle index), or `None`. Degenerate rays, NaN or negative `t_max` and a source
    /// other than the tree's (different triangle count) give `None`.
    pub fn cast_ray<S: TriangleSource + ?Sized>(
        &self,
        source: &S,
        ray: &Ray,
        t_max: f32,
        scratch: &mut Scratch,
    ) -> Option<RayHit> {
        if !self.matches(source) {
            return None;
        }
        let mut best = RayHit { t: f32::INFINITY, triangle: u32::MAX };
        self.walk_ray(ray, t_max, scratch, |shear, id, cutoff| {
            let [a, b, c] = source.triangle_positions(id);
            if let Some(t) = triangle_projected(shear.project(a), shear.project(b), shear.project(c), *cutoff) {
                RayHit { t, triangle: id }.keep_closest(&mut best, cutoff);
            }
            false
        });
        (best.triangle != u32::MAX).then_some(best)
    }

    /// True when `ray` hits any triangle of `source` at `t` in `[0, t_max]`; stops at the first
    /// hit found. Same rules for bad input as [`KdTree::cast_ray`].
    pub fn any_hit<S: TriangleSource + ?Sized>(
        &self,
        source: &S,
        ray: &Ray,
        t_max: f32,
        scratch: &mut Scratch,
    ) -> bool {
        if !self.matches(source) {
            return false;
        }
        let mut found = false;
        self.walk_ray(ray, t_max, scratch, |shear, id, cutoff| {
            let [a, b, c] = source.triangle_positions(id);
            found = triangle_projected(shear.project(a), shear.project(b), shear.project(c), *cutoff).is_some();
            found
        });
        found
    }

    /// Every hit of `ray` with the triangles of `source` at `t` in `[0, t_max]`, sorted by `t`
    /// then triangle, written to `out` (cleared first). Same rules for bad input as
    /// [`KdTree::cast_ray`].
    pub fn all_hits<S: TriangleSource + ?Sized>(
        &self,
        source: &S,
        ray: &Ray,
        t_max: f32,
        scratch: &mut Scratch,
        out: &mut Vec<RayHit>,
    ) {
        out.clear();
        if !self.matches(source) {
            return;
        }
        self.walk_ray(ray, t_max, scratch, |shear, id, cutoff| {
            let [a, b, c] = source.triangle_positions(id);
            if let Some(t) = triangle_projected(shear.project(a), shear.project(b), shear.project(c), *cutoff) {
                out.push(RayHit { t, triangle: id });
            }
            false
        });
        out.sort_unstable_by(|a, b| a.t.total_cmp(&b.t).then(a.triangle.cmp(&b.triangle)));
    }

    /// True when `source` can be the one this tree was built over.
    #[inline]
    pub(crate) fn matches<S: TriangleSource + ?Sized>(&self, source: &S) -> bool {
        source.triangle_count() == self.source_primitives
    }

    /// Calls `visit` for every primitive of the leaves whose volumes overlap `query`.
    pub(crate) fn walk_aabb(&self, query: &Aabb, scratch: &mut Scratch, visit: impl FnMut(u32)) {
        walk_aabb(self, query, scratch, visit);
    }

    /// The segment traversal; see [`walk_ray`].
    pub(crate) fn walk_ray(
        &self,
        ray: &Ray,
        t_max: f32,
        scratch: &mut Scratch,
        visit: impl FnMut(&Sheared, u32, &mut f32) -> bool,
    ) {
        walk_ray(self, ray, t_max, scratch, visit);
    }
}

/// A tree the walkers can traverse: the full form, or the compact form decoding its nodes.
pub(crate) trait NodeSource {
    /// Node `index`, decoded (an empty leaf when out of range).
    fn node(&self, index: u32) -> Node;
    /// The root box ([`Aabb::EMPTY`] for an empty tree, which every query misses).
    fn root_bounds(&self) -> Aabb;
    /// The deepest leaf's depth.
    fn tree_depth(&self) -> u32;
}

impl NodeSource for KdTree {
    #[inline(always)]
    fn node(&self, index: u32) -> Node {
        // Child indices come from the builder and are in range; `get` keeps a corrupted index
        // from panicking (it reads as an empty leaf).
        self.nodes.get(index as usize).copied().unwrap_or(Node::EMPTY_LEAF)
    }
    #[inline]
    fn root_bounds(&self) -> Aabb {
        self.bounds
    }
    #[inline]
    fn tree_depth(&self) -> u32 {
        self.depth
    }
}

/// Calls `visit` for every primitive of the leaves whose volumes overlap `query`.
pub(crate) fn walk_aabb<T: NodeSource>(tree: &T, query: &Aabb, scratch: &mut Scratch, mut visit: impl FnMut(u32)) {
    // `overlaps` is false for empty and NaN boxes and for an empty tree, and rejects boxes
    // outside the tree early.
    if !query.overlaps(&tree.root_bounds()) {
        return;
    }
    let (lo, hi) = (query.min.to_array(), query.max.to_array());
    scratch.reserve(tree.tree_depth());
    let stack = &mut scratch.nodes;
    stack.push(0);
    while let Some(index) = stack.pop() {
        let node = tree.node(index);
        if node.is_leaf() {
            let (ids, count) = node.ids();
            for &id in &ids[..count] {
                visit(id);
            }
            continue;
        }
        let (left, right) = node.planes();
        let (axis, first) = (node.axis(), node.index());
        if right <= hi[axis] {
            stack.push(first + 1);
        }
        if left >= lo[axis] {
            stack.push(first);
        }
    }
}

/// Pending far children of a ray traversal: one per level at most, so the depth bound of the
/// largest tree (63, see [`depth_bound`](crate::depth_bound)) plus margin.
const RAY_STACK: usize = 66;

/// The segment traversal. `visit(shear, primitive, cutoff)` tests one primitive; it may lower
/// `cutoff` (nodes whose segment starts beyond it are skipped) and returns `true` to stop.
///
/// The current segment stays in registers: at a branch the near child becomes the current one
/// and only the far child is pushed, onto a fixed array on the call stack. Popping what was just
/// pushed (three 4-byte stores read back as one wider load) stalled on store forwarding and cost
/// most of the traversal's time.
pub(crate) fn walk_ray<T: NodeSource>(
    tree: &T,
    ray: &Ray,
    t_max: f32,
    _scratch: &mut Scratch,
    mut visit: impl FnMut(&Sheared, u32, &mut f32) -> bool,
) {
    if !ray.is_valid() || !(t_max >= 0.0) {
        return;
    }
    let bounds = tree.root_bounds();
    // An empty tree's box is empty: the ray misses it.
    let Some((enter, exit)) = bounds.intersect_ray(ray, 0.0, t_max) else { return };
    let shear = Sheared::new(ray);
    let (origin, inv) = (ray.origin.to_array(), ray.inv_dir.to_array());
    // The root's entry moves back by the widening at the scale of the tree's coordinates.
    let scale = bounds.min.abs().max(bounds.max.abs()).max_element() + ray.origin.abs().max_element();
    let enter = (enter - WIDEN * (enter.abs() + scale / ray.dir.abs().max_element())).max(0.0);
    let mut cutoff = t_max;
    let mut stack = [Segment { node: 0, t_min: 0.0, t_max: 0.0 }; RAY_STACK];
    let mut depth = 0;
    let mut current = Some(Segment { node: 0, t_min: enter, t_max: exit });
    loop {
        let seg = match current.take() {
            Some(seg) => seg,
            None if depth > 0 => {
                depth -= 1;
                stack[depth]
            }
            None => return,
        };
        // Strict, so a node starting exactly at the best hit is still visited for ties.
        if seg.t_min > cutoff {
            continue;
        }
        let node = tree.node(seg.node);
        if node.is_leaf() {
            let (ids, count) = node.ids();
            for &id in &ids[..count] {
                if visit(&shear, id, &mut cutoff) {
                    return;
                }
            }
            continue;
        }
        let (left, right) = node.planes();
        let (axis, first) = (node.axis(), node.index());
        let (o, inv) = (origin[axis], inv[axis]);
        let (near, far) = if inv.is_infinite() {
            // Parallel to the planes: a child holds the whole segment or none of it.
            (
                (o <= left).then_some(Segment { node: first, ..seg }),
                (o >= right).then_some(Segment { node: first + 1, ..seg }),
            )
        } else {
            let pad = WIDEN * (left.abs().max(right.abs()) + o.abs()) * inv.abs();
            let t_left = (left - o) * inv;
            let t_right = (right - o) * inv;
            if inv > 0.0 {
                // Left (coordinate <= left plane) comes first along the ray: t <= t_left; the
                // right child is t >= t_right.
                (
                    (t_left + pad >= seg.t_min).then_some(Segment {
                        node: first,
                        t_min: seg.t_min,
                        t_max: seg.t_max.min(t_left + pad),
                    }),
                    (t_right - pad <= seg.t_max).then_some(Segment {
                        node: first + 1,
                        t_min: seg.t_min.max(t_right - pad),
                        t_max: seg.t_max,
                    }),
                )
            } else {
                // Going down the axis: the right child comes first, t <= t_right; left is t >= t_left.
                (
                    (t_right + pad >= seg.t_min).then_some(Segment {
                        node: first + 1,
                        t_min: seg.t_min,
                        t_max: seg.t_max.min(t_right + pad),
                    }),
                    (t_left - pad <= seg.t_max).then_some(Segment {
                        node: first,
                        t_min: seg.t_min.max(t_left - pad),
                        t_max: seg.t_max,
                    }),
                )
            }
        };
        if let Some(far) = far {
            // At most one far child per level is pending, and the depth is bounded.
            if let Some(slot) = stack.get_mut(depth) {
                *slot = far;
                depth += 1;
            }
        }
        current = near;
    }
}
