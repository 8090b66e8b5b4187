//! The dual graph of the decomposition: one node per triangle (later per merged part), one edge
//! per pair of parts that share a mesh edge or touch within `s`, and the merge tree that lets the
//! protrusion check split a part back into the two it was made from.

use glam::DVec3;

use crate::hacd::{Scratch, Shape};
use crate::metrics::{bounds, closest_on_triangle};
use crate::quantize::Prepared;

/// The graph the phases of [`decompose`](crate::decompose) collapse, with what they share.
pub(crate) struct Graph {
    pub(crate) nodes: Vec<Node>,
    pub(crate) edges: Vec<Edge>,
    /// The two triangles of every first edge, which [`relink`] links again after splits.
    pub(crate) first_edges: Vec<(u32, u32)>,
    /// Per node, the last collapsed edge whose merged node links to it ([`absorb`]).
    pub(crate) mark: Vec<u32>,
    pub(crate) tree: MergeTree,
    /// The number of live nodes.
    pub(crate) alive: usize,
    /// Kept triangles whose hull could not be built (counted with the degenerate ones).
    pub(crate) lost: usize,
}

impl Graph {
    /// One node per triangle, its hull the triangle itself, and the edges of [`dual_graph`].
    pub(crate) fn new(prep: &Prepared, scratch: &mut Scratch) -> Graph {
        let eps = prep.s;
        let node = |scratch: &mut Scratch, (t, tri): (usize, &[u32; 3])| {
            scratch.points.clear();
            scratch.points.extend(tri.iter().map(|&v| prep.positions[v as usize]));
            // Kept triangles are taller than s, so their hull exists; a failure would leave the
            // triangle out rather than panic.
            let shape = Shape::from_scratch(scratch, eps);
            let alive = shape.is_some();
            Node {
                shape: shape.unwrap_or_default(),
                triangles: vec![t as u32],
                edges: Vec::new(),
                error: 0.0,
                alive,
                checked: false,
            }
        };
        let serial = |scratch: &mut Scratch| prep.triangles.iter().enumerate().map(|job| node(scratch, job)).collect();
        // Each node depends on its triangle alone: the same nodes on any number of threads.
        #[cfg(feature = "parallel")]
        let mut nodes: Vec<Node> = if rayon::current_num_threads() > 1 {
            use rayon::prelude::*;
            prep.triangles.par_iter().enumerate().with_min_len(256).map_init(Scratch::default, node).collect()
        } else {
            serial(scratch)
        };
        #[cfg(not(feature = "parallel"))]
        let mut nodes: Vec<Node> = serial(scratch);
        // A kept triangle whose hull fails after all (it cannot, barring rounding at the extremes
        // of the options) is left out, and counted with the degenerate ones.
        let lost = nodes.iter().filter(|n| !n.alive).count();
        let edges = dual_graph(prep, &nodes);
        for (e, edge) in edges.iter().enumerate() {
            nodes[edge.a as usize].edges.push(e as u32);
            nodes[edge.b as usize].edges.push(e as u32);
        }
        let first_edges = edges.iter().map(|e| (e.a, e.b)).collect();
        let n = nodes.len();
        Graph {
            alive: n - lost,
            mark: vec![u32::MAX; n],
            tree: MergeTree { current: (0..n as u32).collect(), leaves: n as u32, merges: Vec::new() },
            nodes,
            edges,
            first_edges,
            lost,
        }
    }
}

pub(crate) struct Node {
    pub(crate) shape: Shape,
    pub(crate) triangles: Vec<u32>,
    pub(crate) edges: Vec<u32>,
    pub(crate) error: f64,
    pub(crate) alive: bool,
    /// Passed `refine`'s check (and not merged since).
    pub(crate) checked: bool,
}

pub(crate) struct Edge {
    pub(crate) a: u32,
    pub(crate) b: u32,
    pub(crate) alive: bool,
    /// Bumped whenever the edge is pushed again; heap entries with an older version are stale.
    pub(crate) version: u32,
    /// The concavity error of `merged`, or a lower bound of it while `dirty`.
    pub(crate) cost: f64,
    /// The part of `cost` that stays a lower bound when a node grows: a solid hull's scan, 0 for
    /// a flat or missing hull (see `Evaluation::bound`).
    pub(crate) bound: f64,
    /// One of the nodes grew since `cost` was computed.
    pub(crate) dirty: bool,
    /// The merged hull, when the evaluation kept it; else it is built again if the edge collapses.
    pub(crate) merged: Option<Shape>,
    /// The scan of the merged hull ([`Shape::scan`]), for a hull built again.
    pub(crate) scan: Option<f64>,
}

impl Edge {
    /// A live edge between nodes `a` and `b`, not costed yet.
    pub(crate) fn new(a: u32, b: u32) -> Self {
        Edge { a, b, alive: true, version: 0, cost: 0.0, bound: 0.0, dirty: false, merged: None, scan: None }
    }
}

/// Heap keys: among equal costs, clean edges (true costs) sort before dirty ones (lower bounds).
pub(crate) const CLEAN: u8 = 0;
/// See [`CLEAN`].
pub(crate) const DIRTY: u8 = 1;

/// Dual-graph edges between triangles that share a mesh edge (after welding), each pair once, in
/// a deterministic order. An edge shared by more than two triangles (non-manifold, or a
/// double-sided surface) links them in a chain, which keeps them connected without k^2 edges.
pub(crate) fn dual_graph(prep: &Prepared, nodes: &[Node]) -> Vec<Edge> {
    // Each triangle edge under its low vertex (a counting sort), as one integer (high vertex,
    // triangle) sorted within the vertex's few: the order of the (low, high, triangle) tuples.
    let mut start = vec![0u32; prep.positions.len() + 1];
    let edges = |tri: [u32; 3]| (0..3).map(move |k| (tri[k].min(tri[(k + 1) % 3]), tri[k].max(tri[(k + 1) % 3])));
    for (t, tri) in prep.triangles.iter().enumerate() {
        if nodes[t].alive {
            for (lo, _) in edges(*tri) {
                start[lo as usize + 1] += 1;
            }
        }
    }
    for v in 0..prep.positions.len() {
        start[v + 1] += start[v];
    }
    let mut fill = start.clone();
    let mut corners = vec![0u64; start[prep.positions.len()] as usize];
    for (t, tri) in prep.triangles.iter().enumerate() {
        if nodes[t].alive {
            for (lo, hi) in edges(*tri) {
                corners[fill[lo as usize] as usize] = u64::from(hi) << 32 | t as u64;
                fill[lo as usize] += 1;
            }
        }
    }
    let mut pairs: Vec<u64> = Vec::new();
    let pair = |a: u32, b: u32| u64::from(a.min(b)) << 32 | u64::from(a.max(b));
    for v in 0..prep.positions.len() {
        let bucket = &mut corners[start[v] as usize..start[v + 1] as usize];
        bucket.sort_unstable();
        for run in bucket.chunk_by(|x, y| x >> 32 == y >> 32) {
            for w in run.windows(2) {
                let (a, b) = (w[0] as u32, w[1] as u32);
                if a != b {
                    pairs.push(pair(a, b));
                }
            }
        }
    }
    link_touching(prep, nodes, &mut pairs);
    pairs.sort_unstable();
    pairs.dedup();
    pairs.into_iter().map(|p| Edge::new((p >> 32) as u32, p as u32)).collect()
}

/// Links triangles that touch without sharing an edge: a vertex within `s` of another triangle
/// that does not have it as a corner (T-junctions, where one part's edge is split by the other's
/// vertices; parts modelled apart that touch). Without these links such parts could never merge.
/// Triangles go into a uniform grid by their boxes; each vertex looks in its own cell.
fn link_touching(prep: &Prepared, nodes: &[Node], pairs: &mut Vec<u64>) {
    let s = prep.s;
    let mut first_triangle = vec![u32::MAX; prep.positions.len()];
    for (t, tri) in prep.triangles.iter().enumerate() {
        if nodes[t].alive {
            for &v in tri {
                first_triangle[v as usize] = first_triangle[v as usize].min(t as u32);
            }
        }
    }
    let (lo, hi) = bounds(&prep.positions);
    // 32 cells per axis: small enough to build fast, fine enough that a cell holds few triangles.
    const CELLS: usize = 32;
    let cell = ((hi - lo).max_element() / CELLS as f64).max(s);
    // Truncation is the floor here: negatives (and NaN) saturate to 0, as the clamp below 0 did.
    let coord = |x: f64, axis: usize| (((x - lo[axis]) / cell) as usize).min(CELLS - 1);
    let index = |c: [usize; 3]| c[0] + CELLS * (c[1] + CELLS * c[2]);
    let mut entries: Vec<(u32, u32)> = Vec::new();
    // Each triangle's box widened by s: a vertex outside it cannot be within s of the triangle,
    // which rejects most candidates of a cell before the closest-point test.
    let mut boxes = vec![(DVec3::ZERO, DVec3::ZERO); prep.triangles.len()];
    for (t, tri) in prep.triangles.iter().enumerate() {
        if !nodes[t].alive {
            continue;
        }
        let [a, b, c] = tri.map(|v| prep.positions[v as usize]);
        let (tlo, thi) = (a.min(b).min(c) - DVec3::splat(s), a.max(b).max(c) + DVec3::splat(s));
        boxes[t] = (tlo, thi);
        for z in coord(tlo.z, 2)..=coord(thi.z, 2) {
            for y in coord(tlo.y, 1)..=coord(thi.y, 1) {
                for x in coord(tlo.x, 0)..=coord(thi.x, 0) {
                    entries.push((index([x, y, z]) as u32, t as u32));
                }
            }
        }
    }
    // Counting sort by cell: the entries were made in triangle order, so each cell lists its
    // triangles ascending.
    let mut start = vec![0u32; CELLS * CELLS * CELLS + 1];
    for &(c, _) in &entries {
        start[c as usize + 1] += 1;
    }
    for c in 0..CELLS * CELLS * CELLS {
        start[c + 1] += start[c];
    }
    let mut cell_triangles = vec![0u32; entries.len()];
    let mut fill = start.clone();
    for &(c, t) in &entries {
        cell_triangles[fill[c as usize] as usize] = t;
        fill[c as usize] += 1;
    }
    for (v, &p) in prep.positions.iter().enumerate() {
        let own = first_triangle[v];
        if own == u32::MAX {
            continue;
        }
        let c = index([coord(p.x, 0), coord(p.y, 1), coord(p.z, 2)]);
        for &t in &cell_triangles[start[c] as usize..start[c + 1] as usize] {
            let (tlo, thi) = boxes[t as usize];
            if !(p.cmpge(tlo).all() && p.cmple(thi).all()) {
                continue;
            }
            let tri = prep.triangles[t as usize];
            if tri.contains(&(v as u32)) {
                continue;
            }
            let [a, b, cc] = tri.map(|k| prep.positions[k as usize]);
            if p.distance(closest_on_triangle(p, a, b, cc)) <= s {
                pairs.push(u64::from(own.min(t)) << 32 | u64::from(own.max(t)));
            }
        }
    }
}

/// How every node was merged, for `refine`: a binary tree per node whose leaves are its
/// triangles' first nodes.
pub(crate) struct MergeTree {
    /// Each node's tree: a first node (below `leaves`) or a merge (`leaves` + its index).
    pub(crate) current: Vec<u32>,
    /// The number of first nodes.
    pub(crate) leaves: u32,
    pub(crate) merges: Vec<Merge>,
}

/// One merge of [`MergeTree`]: the node took the second part's triangles after its own.
pub(crate) struct Merge {
    /// The two parts' trees.
    pub(crate) parts: [u32; 2],
    /// The first part's triangle count (a prefix of the merged node's triangles).
    pub(crate) first: u32,
    /// The merged node's error.
    pub(crate) error: f64,
}

/// Links the nodes `refine` changed (`changed`) to their neighbours again: their old edges
/// die, and every pair of live nodes that holds a first edge's two triangles (`pairs`), one of
/// them changed, gets one new edge. The other edges keep their indices (and so their ties).
pub(crate) fn relink(
    nodes: &mut [Node],
    edges: &mut Vec<Edge>,
    mark: &mut Vec<u32>,
    pairs: &[(u32, u32)],
    changed: &[u32],
) {
    let mut is_changed = vec![false; nodes.len()];
    for &n in changed {
        is_changed[n as usize] = true;
    }
    for edge in edges.iter_mut() {
        if edge.alive && (is_changed[edge.a as usize] || is_changed[edge.b as usize]) {
            edge.alive = false;
            edge.merged = None;
        }
    }
    let mut owner = vec![u32::MAX; pairs.iter().map(|&(a, b)| a.max(b) as usize + 1).max().unwrap_or(0)];
    for (n, node) in nodes.iter().enumerate().filter(|(_, n)| n.alive) {
        for &t in &node.triangles {
            if let Some(o) = owner.get_mut(t as usize) {
                *o = n as u32;
            }
        }
    }
    let mut new: Vec<(u32, u32)> = pairs
        .iter()
        .map(|&(a, b)| (owner[a as usize], owner[b as usize]))
        .filter(|&(a, b)| {
            a != b && a != u32::MAX && b != u32::MAX && (is_changed[a as usize] || is_changed[b as usize])
        })
        .map(|(a, b)| (a.min(b), a.max(b)))
        .collect();
    new.sort_unstable();
    new.dedup();
    for node in nodes.iter_mut() {
        node.edges.retain(|&x| edges[x as usize].alive);
    }
    for (a, b) in new {
        let x = edges.len() as u32;
        edges.push(Edge::new(a, b));
        nodes[a as usize].edges.push(x);
        nodes[b as usize].edges.push(x);
    }
    mark.resize(nodes.len(), u32::MAX);
}

/// Merges node `b` of edge `e` into node `a` with the hull `merged` of the two, at `cost`: `a`
/// takes `b`'s triangles and edges (the collapsed one and duplicates of `a`'s own dropped, a
/// duplicate's [`Edge::bound`] raising `a`'s edge's), `b` dies.
#[allow(clippy::too_many_arguments)]
pub(crate) fn absorb(
    nodes: &mut [Node],
    edges: &mut [Edge],
    mark: &mut [u32],
    tree: &mut MergeTree,
    e: u32,
    merged: Shape,
    cost: f64,
    scratch: &mut Scratch,
) {
    let (a, b) = (edges[e as usize].a as usize, edges[e as usize].b as usize);
    edges[e as usize].alive = false;
    let first = nodes[a].triangles.len() as u32;
    let b_triangles = std::mem::take(&mut nodes[b].triangles);
    let b_edges = std::mem::take(&mut nodes[b].edges);
    let b_error = nodes[b].error;
    nodes[b].alive = false;
    scratch.recycle(std::mem::take(&mut nodes[b].shape));
    scratch.recycle(std::mem::replace(&mut nodes[a].shape, merged));
    let node = &mut nodes[a];
    node.triangles.extend_from_slice(&b_triangles);
    node.error = node.error.max(cost).max(b_error);
    tree.merges.push(Merge { parts: [tree.current[a], tree.current[b]], first, error: node.error });
    tree.current[a] = tree.leaves + tree.merges.len() as u32 - 1;

    // Re-link b's edges to a, dropping the one collapsed and duplicates of a's own (`mark` holds,
    // per node, the last collapsed edge whose merged node links to it).
    let mut dropped = std::mem::take(&mut scratch.dropped);
    nodes[a].edges.retain(|&x| edges[x as usize].alive);
    for &x in &nodes[a].edges {
        let ed = &edges[x as usize];
        mark[(ed.a + ed.b) as usize - a] = e;
    }
    for x in b_edges {
        let ed = &mut edges[x as usize];
        if !ed.alive {
            continue;
        }
        let other = if ed.a as usize == b { ed.b } else { ed.a } as usize;
        if other == a || mark[other] == e {
            ed.alive = false;
            if let Some(shape) = ed.merged.take() {
                scratch.recycle(shape);
            }
            if other != a && ed.bound > 0.0 {
                dropped.push((other as u32, ed.bound));
            }
            continue;
        }
        mark[other] = e;
        (ed.a, ed.b) = (a.min(other) as u32, a.max(other) as u32);
        nodes[a].edges.push(x);
    }
    nodes[a].edges.sort_unstable();
    // A dropped duplicate's bound carries over to `a`'s edge to the same neighbour: the hull of
    // the merged node and that neighbour holds the hull of `b` and it, so (solid, as a hull
    // holding a solid one is) its scan is no smaller. The edge then waits in the heap at the
    // larger of the two bounds instead of being evaluated at `a`'s old one (rocker-arm 21,620
    // -> 20,303 evaluations).
    for &(other, bound) in &dropped {
        if let Some(&x) = nodes[a].edges.iter().find(|&&x| {
            let ed = &edges[x as usize];
            ed.a == other || ed.b == other
        }) {
            let ed = &mut edges[x as usize];
            ed.bound = ed.bound.max(bound);
        }
    }
    dropped.clear();
    scratch.dropped = dropped;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(edges: &[u32]) -> Node {
        Node {
            shape: Shape::default(),
            triangles: vec![0],
            edges: edges.to_vec(),
            error: 0.0,
            alive: true,
            checked: false,
        }
    }

    fn edge(a: u32, b: u32, bound: f64) -> Edge {
        Edge { bound, cost: bound, ..Edge::new(a, b) }
    }

    /// When `b` is absorbed into `a` and both link to a neighbour, `b`'s edge to it is dropped and
    /// `a`'s keeps the larger bound of the two (a lower bound of the merged node's cost with that
    /// neighbour); an edge of `b` to a node `a` does not link to moves over with its own bound.
    #[test]
    fn a_dropped_duplicate_edge_raises_the_kept_edges_bound() {
        // Nodes a = 0, b = 1, x = 2, y = 3, z = 4. Edges: 0 a-b (collapsed), 1 a-x (bound 1),
        // 2 b-x (bound 3), 3 a-y (bound 4), 4 b-y (bound 0.5), 5 b-z (bound 2).
        let mut nodes = vec![node(&[0, 1, 3]), node(&[0, 2, 4, 5]), node(&[1, 2]), node(&[3, 4]), node(&[5])];
        let mut edges =
            vec![edge(0, 1, 0.0), edge(0, 2, 1.0), edge(1, 2, 3.0), edge(0, 3, 4.0), edge(1, 3, 0.5), edge(1, 4, 2.0)];
        let mut mark = vec![u32::MAX; nodes.len()];
        let mut tree = MergeTree { current: (0..5).collect(), leaves: 5, merges: Vec::new() };
        let mut scratch = Scratch::default();
        absorb(&mut nodes, &mut edges, &mut mark, &mut tree, 0, Shape::default(), 0.0, &mut scratch);
        assert!(!nodes[1].alive && !edges[0].alive);
        assert!(!edges[2].alive && !edges[4].alive, "the duplicates are dropped");
        assert_eq!(nodes[0].edges, vec![1, 3, 5]);
        assert_eq!(edges[1].bound, 3.0, "a-x takes b-x's larger bound");
        assert_eq!(edges[3].bound, 4.0, "a-y keeps its own, larger, bound");
        assert_eq!((edges[5].a, edges[5].b, edges[5].bound), (0, 4, 2.0), "b-z moves to a with its bound");
    }
}
