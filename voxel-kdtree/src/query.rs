//! Queries, as seed `000_ce04cac11e01e96d.txt` describes them ("Loose kD tree: queries"): stackless
//! traversal over a scratch buffer sized by the tree depth, box queries that descend into the
//! children whose half-space the box reaches, and segment-tree ray traversal that clips `[tmin,
//! tmax]` at the two planes of each branch, near child first, with early termination.

use voxel_core::{Aabb, Ray, TriangleSource};

use crate::intersect::{Sheared, box_centre, box_half, triangle_overlaps_box, triangle_projected, with_major_axis};
use crate::{KdTree, Node};

/// Relative widening of every segment bound, in units of the coordinates involved: 64 `f32`
/// epsilons. A plane distance `(s - o) / d` is off by about one epsilon of `(|s| + |o|) / |d|`,
/// and the watertight test's `t` by a few of the same; widening by more keeps the traversal from
/// pruning a node whose primitive gives the closest computed hit (the seed's "slightly expand the
/// segment on each branch").
const WIDEN: f32 = 64.0 * f32::EPSILON;

/// Reusable traversal state: the fixed stack of pending nodes both walks use (one entry per tree
/// level at most, so the depth bound of the largest tree fits). Queries never allocate.
///
/// One scratch serves any number of trees, one query at a time.
#[derive(Clone, Debug)]
pub struct Scratch {
    /// Pending nodes and, for rays, their segments, one array per field: an entry is written and
    /// read back as separate 4-byte words, which store forwarding handles (a 12-byte struct read
    /// back as one wider load stalled on it).
    ray: RayStack,
}

/// Pending nodes of a traversal: at most one per level, so the depth bound of the largest tree
/// (63, see [`depth_bound`](crate::depth_bound)) fits; indices are taken modulo the size, so no
/// access can go out of bounds.
const RAY_STACK: usize = 64;

#[derive(Clone, Debug)]
struct RayStack {
    node: [u32; RAY_STACK],
    min_t: [f32; RAY_STACK],
    max_t: [f32; RAY_STACK],
}

impl RayStack {
    /// Pops the next segment that starts before `cutoff` (a segment starting exactly at it is
    /// still taken, for ties), dropping the ones that start after it; `None` when none is left.
    #[inline(always)]
    fn pop(&self, depth: &mut usize, cutoff: f32) -> Option<(u32, f32, f32)> {
        while *depth > 0 {
            *depth -= 1;
            let slot = *depth % RAY_STACK;
            let min_t = self.min_t[slot];
            if !(min_t > cutoff) {
                return Some((self.node[slot], min_t, self.max_t[slot]));
            }
        }
        None
    }
}

impl Default for Scratch {
    fn default() -> Self {
        Self { ray: RayStack { node: [0; RAY_STACK], min_t: [0.0; RAY_STACK], max_t: [0.0; RAY_STACK] } }
    }
}

impl Scratch {
    /// A scratch for any tree.
    pub fn new() -> Self {
        Self::default()
    }

    /// A scratch for `tree` (the same as [`Scratch::new`]: the stack is sized for any tree).
    pub fn for_tree(tree: &KdTree) -> Self {
        let _ = tree;
        Self::new()
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
    /// bounding boxes overlap `query`; filter with [`triangle_overlaps_aabb`](crate::triangle_overlaps_aabb) or call
    /// [`KdTree::query_aabb_exact`] for the exact set. An empty or NaN box gives nothing; a box
    /// with infinite bounds gives every triangle whose leaf it reaches (but nothing from
    /// [`KdTree::query_aabb_exact`], whose exact test takes finite boxes only).
    ///
    /// The source is not needed: the candidates come from the tree alone.
    pub fn query_aabb(&self, query: &Aabb, scratch: &mut Scratch, out: &mut Vec<u32>) {
        out.clear();
        self.walk_aabb(query, scratch, |id| out.push(id));
    }

    /// The triangles of `source` whose bounding boxes overlap `query` (closed boxes: touching
    /// counts), in traversal order, written to `out` (cleared first): the candidates a BVH over
    /// triangle boxes reports (parry's `TriMesh`), a subset of [`KdTree::query_aabb`]'s and a
    /// superset of [`KdTree::query_aabb_exact`]'s. Each leaf candidate costs three vertex reads
    /// and six comparisons, much less than the exact test, and drops the triangles a loose leaf
    /// volume reaches only on the axes its ancestors did not split. `source` must be the one the
    /// tree was built from (another triangle count gets nothing); an empty or NaN box gives
    /// nothing.
    pub fn query_aabb_bounds<S: TriangleSource + ?Sized>(
        &self,
        source: &S,
        query: &Aabb,
        scratch: &mut Scratch,
        out: &mut Vec<u32>,
    ) {
        out.clear();
        if !self.matches(source) {
            return;
        }
        let (lo, hi) = (query.min, query.max);
        self.walk_aabb(query, scratch, |id| {
            let [a, b, c] = source.triangle_positions(id);
            // Stored triangles are finite, so the comparisons decide. Written and dropped again
            // rather than pushed behind a branch: about half the candidates pass, and a
            // mispredicted branch also discards the next node's fetch.
            let keep = a.min(b).min(c).cmple(hi).all() & a.max(b).max(c).cmpge(lo).all();
            let len = out.len();
            out.push(id);
            out.truncate(len + usize::from(keep));
        });
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
        let (centre, half) = (box_centre(query), box_half(query));
        self.walk_aabb(query, scratch, |id| {
            if triangle_overlaps_box(source.triangle_positions(id), query, centre, half) {
                out.push(id);
            }
        });
    }

    /// The closest hit of `ray` with a triangle of `source` at `t` in `[0, max_t]` (ties to the
    /// lower triangle index), or `None`. Degenerate rays, NaN or negative `max_t` and a source
    /// other than the tree's (different triangle count) give `None`.
    pub fn cast_ray<S: TriangleSource + ?Sized>(
        &self,
        source: &S,
        ray: &Ray,
        max_t: f32,
        scratch: &mut Scratch,
    ) -> Option<RayHit> {
        if !self.matches(source) {
            return None;
        }
        let mut best = RayHit { t: f32::INFINITY, triangle: u32::MAX };
        with_major_axis!(ray, K => walk_ray::<_, K>(self, ray, max_t, scratch, |shear, id, cutoff| {
            if let Some(t) = triangle_hit(source, shear, id, *cutoff) {
                RayHit { t, triangle: id }.keep_closest(&mut best, cutoff);
            }
            false
        }));
        (best.triangle != u32::MAX).then_some(best)
    }

    /// True when `ray` hits any triangle of `source` at `t` in `[0, max_t]`; stops at the first
    /// hit found. Same rules for bad input as [`KdTree::cast_ray`].
    pub fn any_hit<S: TriangleSource + ?Sized>(
        &self,
        source: &S,
        ray: &Ray,
        max_t: f32,
        scratch: &mut Scratch,
    ) -> bool {
        if !self.matches(source) {
            return false;
        }
        let mut found = false;
        with_major_axis!(ray, K => walk_ray::<_, K>(self, ray, max_t, scratch, |shear, id, cutoff| {
            found = triangle_hit(source, shear, id, *cutoff).is_some();
            found
        }));
        found
    }

    /// Every hit of `ray` with the triangles of `source` at `t` in `[0, max_t]`, sorted by `t`
    /// then triangle, written to `out` (cleared first). Same rules for bad input as
    /// [`KdTree::cast_ray`].
    pub fn all_hits<S: TriangleSource + ?Sized>(
        &self,
        source: &S,
        ray: &Ray,
        max_t: f32,
        scratch: &mut Scratch,
        out: &mut Vec<RayHit>,
    ) {
        out.clear();
        if !self.matches(source) {
            return;
        }
        with_major_axis!(ray, K => walk_ray::<_, K>(self, ray, max_t, scratch, |shear, id, cutoff| {
            if let Some(t) = triangle_hit(source, shear, id, *cutoff) {
                out.push(RayHit { t, triangle: id });
            }
            false
        }));
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
}

/// The watertight test of triangle `id` of `source`: its hit `t` in `[0, max_t]`.
#[inline(always)]
fn triangle_hit<S: TriangleSource + ?Sized, const K: usize>(
    source: &S,
    shear: &Sheared<K>,
    id: u32,
    max_t: f32,
) -> Option<f32> {
    // `triangle` and `vertex` rather than `triangle_positions`, which the compiler kept as a call.
    let [a, b, c] = source.triangle(id).map(|v| shear.project(source.vertex(v)));
    triangle_projected(a, b, c, max_t)
}

/// A tree the walkers can traverse: the full form, or the compact form decoding its nodes.
pub(crate) trait NodeSource {
    /// Node `index`, decoded (an empty leaf when out of range).
    fn node(&self, index: u32) -> Node;
    /// The root box ([`Aabb::EMPTY`] for an empty tree, which every query misses).
    fn root_bounds(&self) -> Aabb;
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
}

/// Calls `visit` for every primitive of the leaves whose volumes overlap `query`.
///
/// The current node stays in a register: a branch descends into the left child when the box
/// reaches below the left plane, else into the right one, and pushes the right child (without a
/// branch: written always, kept when both are reached) onto the fixed stack of the [`Scratch`].
pub(crate) fn walk_aabb<T: NodeSource>(tree: &T, query: &Aabb, scratch: &mut Scratch, mut visit: impl FnMut(u32)) {
    // `overlaps` is false for empty and NaN boxes and for an empty tree, and rejects boxes
    // outside the tree early.
    if !query.overlaps(&tree.root_bounds()) {
        return;
    }
    let (lo, hi) = (query.min.to_array(), query.max.to_array());
    let stack = &mut scratch.ray.node;
    let mut depth = 0usize;
    let mut index = 0u32;
    loop {
        let node = tree.node(index);
        if node.is_leaf() {
            let (ids, count) = node.ids();
            for &id in &ids[..count.min(2)] {
                visit(id);
            }
        } else {
            let (left, right) = node.planes();
            let (axis, first) = (node.axis(), node.index());
            // Branches, not selects: the predicted child's node is fetched before the planes
            // are compared (a select made every fetch wait for the previous one: 760 -> 920 ns
            // per 2x2x2 box on the terrain).
            if left >= lo[axis] {
                if right <= hi[axis] {
                    // At most one pending right child per level: the depth bound holds them.
                    stack[depth % RAY_STACK] = first + 1;
                    depth += 1;
                }
                index = first;
                continue;
            }
            if right <= hi[axis] {
                index = first + 1;
                continue;
            }
        }
        if depth == 0 {
            return;
        }
        depth -= 1;
        index = stack[depth % RAY_STACK];
    }
}

/// The segment traversal. `visit(shear, primitive, cutoff)` tests one primitive; it may lower
/// `cutoff` (nodes whose segment starts beyond it are skipped) and returns `true` to stop.
///
/// Per ray, the child the ray meets first on each axis (`near[axis]`, 0 = left, 1 = right) and
/// the widening of plane distances on each axis are set up once; per branch the near plane
/// bounds the near child's segment from above and the far plane the far child's from below:
///
/// ```text
/// t_near = (near plane - o) / d + pad     near child: [min_t, min(max_t, t_near)], if t_near >= min_t
/// t_far  = (far plane - o) / d - pad      far child:  [max(min_t, t_far), max_t],  if t_far <= max_t
/// ```
///
/// A ray parallel to the planes has an infinite inverse: a plane distance is `+inf` or `-inf`
/// (the child holds the whole segment or none of it) or NaN for an origin exactly on the plane,
/// which the comparisons, written as negations, count as inside (the child is visited, as the
/// closed volume requires). The current segment stays in registers: the near child becomes the
/// current one, and only the far child is pushed, onto the fixed stack of the [`Scratch`], when
/// its segment starts before the cutoff; segments are checked again when popped (the cutoff may
/// have dropped since), and the near child starts where its parent did, which was checked. When
/// the ray misses the near child, the far one becomes the current node without a round trip
/// through the stack (3-10% per ray on terrain, caves gaining most).
pub(crate) fn walk_ray<T: NodeSource, const K: usize>(
    tree: &T,
    ray: &Ray,
    max_t: f32,
    scratch: &mut Scratch,
    mut visit: impl FnMut(&Sheared<K>, u32, &mut f32) -> bool,
) {
    if !ray.is_valid() || !(max_t >= 0.0) {
        return;
    }
    let bounds = tree.root_bounds();
    // Every plane lies within the root box, so `scale` bounds `|plane|` for the widening.
    let scale = bounds.min.abs().max(bounds.max.abs()).max_element();
    // The root's entry moves back by the widening at the scale of the tree's coordinates (below);
    // the box is clipped with `max_t` moved on by as much, so that a hit at `max_t` on the box's
    // surface, whose computed entry can lie a few ulps past it, is still reached.
    let root_pad = WIDEN * (scale + ray.origin.abs().max_element()) / ray.dir.abs().max_element();
    // An empty tree's box is empty: the ray misses it.
    let Some((enter, exit)) = bounds.intersect_ray(ray, 0.0, max_t + WIDEN * max_t + root_pad) else { return };
    let shear = Sheared::<K>::new(ray);
    let origin = ray.origin.to_array();
    let inv = ray.inv_dir.to_array();
    let pad =
        [0, 1, 2].map(|a| if inv[a].is_finite() { WIDEN * (scale + origin[a].abs()) * inv[a].abs() } else { 0.0 });
    let near = inv.map(|i| usize::from(i.is_sign_negative()));
    let enter = (enter - WIDEN * enter.abs() - root_pad).max(0.0);
    let mut cutoff = max_t;
    let stack = &mut scratch.ray;
    let mut depth = 0usize;
    let (mut node_index, mut t0, mut t1) = (0u32, enter, exit);
    loop {
        let node = tree.node(node_index);
        if node.is_leaf() {
            let (ids, count) = node.ids();
            for &id in &ids[..count.min(2)] {
                if visit(&shear, id, &mut cutoff) {
                    return;
                }
            }
            let Some(next) = stack.pop(&mut depth, cutoff) else { return };
            (node_index, t0, t1) = next;
            continue;
        }
        let axis = node.axis();
        let (left, right) = node.planes();
        let s = near[axis];
        let (near_plane, far_plane) = if s == 0 { (left, right) } else { (right, left) };
        let (o, i, p) = (origin[axis], inv[axis], pad[axis]);
        let t_near = (near_plane - o) * i + p;
        let t_far = (far_plane - o) * i - p;
        let first = node.index();
        // The far child, pushed unconditionally and kept when the ray reaches it before the
        // cutoff (a segment that starts after the best hit so far is never pushed).
        let far_min = if t_far > t0 { t_far } else { t0 };
        let far = !(t_far > t1) & !(far_min > cutoff);
        let slot = depth % RAY_STACK;
        stack.node[slot] = first + (s ^ 1) as u32;
        stack.min_t[slot] = far_min;
        stack.max_t[slot] = t1;
        depth += usize::from(far);
        if !(t_near < t0) {
            node_index = first + s as u32;
            t1 = if t_near < t1 { t_near } else { t1 };
        } else if far {
            // No near child: the far one is next, taken from the registers rather than read back
            // from the stack just written.
            depth -= 1;
            node_index = first + (s ^ 1) as u32;
            t0 = far_min;
        } else {
            let Some(next) = stack.pop(&mut depth, cutoff) else { return };
            (node_index, t0, t1) = next;
        }
    }
}
