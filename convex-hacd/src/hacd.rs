//! Hierarchical approximate convex decomposition by dual-graph edge collapse (the article,
//! "Algorithm Overview", steps 1 to 7).
//!
//! One node per triangle, one edge per shared mesh edge. Every edge holds the hull its collapse
//! would make and that hull's concavity error; a binary heap with lazy invalidation (a version per
//! edge) hands out the cheapest edge, and the edges around each merged node are re-costed when
//! they reach the top. Every edge's first cost is evaluated in parallel with rayon. Costs depend
//! only on the two nodes, and collapses happen one at a time in heap order (ties broken by
//! clean-before-dirty, then edge index), so any thread count gives the same result bit for bit.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
#[cfg(feature = "parallel")]
use std::time::Instant;

use glam::{DVec3, Vec3};
use voxel_core::{TriangleSource, validate_triangles};

use crate::concavity::{Samples, ScanScratch, Visited};
use crate::distance::{merge_by_distance, merge_close};
use crate::graph::{CLEAN, DIRTY, Edge, Graph, MergeTree, Node, absorb, relink};
use crate::inside::Inside;
use crate::metrics::closest_on_triangle;
use crate::protrusion::Protrusion;
use crate::quantize::{Prepared, prepare};
use crate::quickhull::{HullScratch, Plane, RawHull, build_hull, grow_hull};
use crate::{DecomposeError, Recorder};

/// Settings of [`decompose`], in the units of the working cube (the article's names in brackets).
#[derive(Clone, Debug, PartialEq)]
pub struct DecomposeOptions {
    /// Side of the cube the mesh is scaled into before anything else (the article's `ScaleFactor`). Default 1000.
    pub cube: f32,
    /// Quantization distance `s` (the article's `ConnectDist`): vertices closer than this are welded, points
    /// within it of a plane are on the plane, and a set that fits in a slab this wide is flat.
    /// Raised to the float floor of the input when smaller (and never below 1e-9 of the cube, for
    /// inputs whose float floor underflows). Default 0.1.
    pub quantization: f32,
    /// The largest concavity error an edge collapse may add (the article's `Concavity`). Default 10 (1% of the
    /// cube, the article's). 20 gives about a third fewer hulls, a little looser and slower on smooth
    /// meshes (measured in the README). Raised to four times the quantization distance `s` when
    /// smaller (errors within a few `s` are rounding).
    pub concavity: f32,
    /// Spacing of the uniform surface samples. Default 10: about one sample per 100 square units of
    /// surface, so a closed cube of side 1000 gets 60 000. A spacing that would take more than
    /// [`MAX_SAMPLES`] samples for the mesh is an error.
    pub sample_spacing: f32,
    /// After the article's collapses, neighbouring hulls are merged, roughly closest first, while every sample
    /// of the merged hull's new surface (the part on neither hull, sampled at `sample_spacing`)
    /// lies within this distance of the input surface: a bound on how far the merge
    /// sticks out, as CoACD measures, where the article's error measures how deep a ray runs into
    /// what it seals (refusing, for example, a cup's neighbouring wall segments, whose merged
    /// hull lies within 13 units of the wall but over floor samples whose rays run up to the rim).
    /// Default 20 (2% of the cube); 0 turns the merging off.
    pub merge_distance: f32,
    /// Beyond the article: in the `merge_distance` phase, new surface that lies inside the input
    /// does not count, so the limit bounds only how far a merge sticks out of it. Without this,
    /// a merged hull whose new faces cut through the body of a closed part (two hulls of a
    /// bunny's back, joined through its inside) is refused wherever the cut runs farther than
    /// the limit from the surface, and a part with a hole (a plate's bores, a shell missing a
    /// few triangles) keeps many hulls where its closed twin gets few. Inside is decided by rays
    /// along the axes (one when every part of the input is closed and every edge shared by two
    /// triangles, or when the only other edges are the sides of cracks narrower than 20 `s`, as
    /// T-junctions leave; else the three up the axes when they agree, and the six up and down
    /// them by vote when they do not). Default true: fewer hulls on inputs with a body (plate-holes
    /// 19 -> 1, bunny-lowpoly 47 -> 21, chess-table 47 -> 17, octagonal-pocket 78 -> 48), every
    /// shared test mesh still within 2% of the diagonal. It costs time: on the shared test
    /// meshes up to 1.8x that of `false` (the inside test and the merges it allows), 3.3x on
    /// chess-table, whose openings send points to the six rays' vote; an open cylinder can get
    /// more hulls. `false` is the behaviour before the option existed. Figures in the crate's
    /// `docs/measurements.md`.
    pub merge_through_inside: bool,
    /// Beyond the article: the farthest the hulls may stick out of the input, as a fraction of its
    /// bounding-box diagonal. At the end, every hull is checked at points `sample_spacing` apart on
    /// its faces, as [`tightness`](crate::tightness) scores a hull (the distance to the input
    /// surface where the generalized winding number is under one half); a hull with a point
    /// farther out is split back into the two hulls it was merged from, and those are checked in
    /// turn. It catches what neither phase measures: a plate-like hull whose face reaches over a
    /// notch beside its triangles, where no sample's ray runs. Between the points checked, a face
    /// can stand up to about 0.7 spacings farther out. After splits, the distance phase runs again
    /// over the parts (merging what does not stick out), and the hulls it merged are checked again.
    /// A part closed but for small holes (the parts turned outward when wound inward) is judged
    /// by its closed twin: the lids over its holes count as surface, so a hull spanning a small
    /// hole is not split (a sphere missing three triangles: 1 hull, as closed, where splitting
    /// made 44 to 135; [`tightness`](crate::tightness) still counts the lid as outside).
    /// The recorder keeps the collapses a split undid. Default 0.016 (leaving 0.4% of the
    /// diagonal below the promised 2% for the faces between the points checked); 0 turns the
    /// check off, and so does [`max_hulls`](Self::max_hulls) (a split would break the cap).
    pub max_protrusion: f32,
    /// Keep collapsing past the concavity limit, cheapest first, until at most this many hulls are
    /// left (only across shared edges: parts of the mesh that share no edge are never joined).
    pub max_hulls: Option<usize>,
    /// Simplify each output hull to at most this many vertices (at least 4) by keeping the points
    /// that stick out farthest: the hull shrinks, by [`ConvexHull::cap_error`].
    pub max_vertices_per_hull: Option<usize>,
    /// Record every collapse for the step exporter ([`Decomposition::recording`]).
    pub record: bool,
}

impl Default for DecomposeOptions {
    fn default() -> Self {
        Self {
            cube: 1000.0,
            quantization: 0.1,
            concavity: 10.0,
            sample_spacing: 10.0,
            merge_distance: 20.0,
            merge_through_inside: true,
            max_protrusion: 0.016,
            max_hulls: None,
            max_vertices_per_hull: None,
            record: false,
        }
    }
}

/// One convex piece of a decomposition, in the input's units.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexHull {
    /// The hull's vertices (input vertices after welding).
    pub vertices: Vec<Vec3>,
    /// Triangles over `vertices`, counter-clockwise seen from outside. A flat hull is a polygon
    /// emitted once per side.
    pub triangles: Vec<[u32; 3]>,
    /// The input triangles this hull covers, ascending.
    pub source_triangles: Vec<u32>,
    /// Whether the hull is flat (fits in a slab of width `s`).
    pub flat: bool,
    /// The largest error of the collapses that built it, in input units: the concavity error of
    /// the article's collapses, the distance of [`DecomposeOptions::merge_distance`]'s merges.
    pub error: f32,
    /// How far the dropped vertices lie outside the hull when
    /// [`DecomposeOptions::max_vertices_per_hull`] simplified it, in input units (else 0).
    pub cap_error: f32,
}

/// The result of [`decompose`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Decomposition {
    /// The hulls, in order of their lowest source triangle.
    pub hulls: Vec<ConvexHull>,
    /// Triangles left out for a NaN or infinite corner.
    pub non_finite_triangles: usize,
    /// Triangles left out because they collapse to a point or a segment within `s`.
    pub degenerate_triangles: usize,
    /// The quantization distance used, in input units.
    pub quantization: f32,
    /// The number of surface samples.
    pub samples: usize,
    /// How many hulls [`DecomposeOptions::max_protrusion`]'s check split back into the two they
    /// were merged from.
    pub protrusion_splits: usize,
    /// The collapses, when [`DecomposeOptions::record`] was set.
    pub recording: Option<Recorder>,
}

/// A hull in the working cube.
#[derive(Clone, Debug, Default)]
pub(crate) struct Shape {
    pub points: Vec<DVec3>,
    pub triangles: Vec<[u32; 3]>,
    pub planes: Vec<Plane>,
    /// The plane of each triangle (index into `planes`).
    pub triangle_planes: Vec<u32>,
    /// The neighbouring triangle across each edge (solid hulls).
    pub adjacency: Vec<[u32; 3]>,
    pub flat: bool,
    pub area: f64,
    /// The longest ray of the concavity scan of this (solid) hull, over every sample inside it,
    /// when known: it lets the scan of a larger hull made from this one skip the samples whose
    /// rays leave through faces the two share ([`changed_region`]). `None` for flat hulls and
    /// hulls whose scan stopped early.
    pub scan: Option<f64>,
    /// Whether the hull was grown from a part's hull ([`grow_hull`]) rather than built afresh:
    /// it may keep vertices within the planes' thickness of a face, which the final hulls drop.
    pub grown: bool,
}

/// Per-thread buffers of the cost evaluation.
#[derive(Default)]
pub(crate) struct Scratch {
    pub(crate) hull: HullScratch,
    pub(crate) raw: RawHull,
    pub(crate) points: Vec<DVec3>,
    /// Input index -> hull vertex, for [`Shape::from_raw`].
    pub(crate) local: Vec<u32>,
    pub(crate) scan: ScanScratch,
    /// Samples of a merged hull's new surface (`distance_cost`).
    pub(crate) surface: Vec<(DVec3, DVec3)>,
    /// Triangles already measured by one distance query ([`Samples::surface_within`]).
    pub(crate) seen: Visited,
    /// Hulls no longer needed, whose buffers [`Shape::from_raw`] fills again instead of
    /// allocating (most evaluations keep their hull, and most kept hulls are dropped unused).
    pub(crate) spare: Vec<Shape>,
    /// Bounds of the duplicate edges a collapse drops, by the neighbour they led to ([`absorb`]).
    pub(crate) dropped: Vec<(u32, f64)>,
}

/// The most hulls [`Scratch::spare`] keeps for reuse.
const SPARE_SHAPES: usize = 64;

impl Scratch {
    /// Keeps `shape`'s buffers for a later [`Shape::from_raw`].
    pub(crate) fn recycle(&mut self, shape: Shape) {
        if self.spare.len() < SPARE_SHAPES && shape.points.capacity() > 0 {
            self.spare.push(shape);
        }
    }
}

impl Shape {
    /// The hull of `points` (copied out of `scratch.points`), or `None` when degenerate.
    pub(crate) fn from_scratch(scratch: &mut Scratch, eps: f64) -> Option<Shape> {
        build_hull(&scratch.points, eps, &mut scratch.hull, &mut scratch.raw).ok()?;
        Some(Shape::from_raw(scratch))
    }

    /// The hull last built into `scratch.raw`, over `scratch.points`.
    pub(crate) fn from_raw(scratch: &mut Scratch) -> Shape {
        let raw = &scratch.raw;
        // Input index -> position among the hull's vertices (every triangle corner is a vertex).
        let local = &mut scratch.local;
        local.clear();
        local.resize(scratch.points.len(), 0);
        for (k, &i) in raw.vertices.iter().enumerate() {
            local[i as usize] = k as u32;
        }
        // A spare large enough for all its lists, else any (each list grows once).
        let fits = |s: &Shape| {
            s.points.capacity() >= raw.vertices.len()
                && s.triangles.capacity() >= raw.triangles.len()
                && s.planes.capacity() >= raw.planes.len()
                && s.adjacency.capacity() >= raw.adjacency.len()
        };
        let mut shape = match scratch.spare.iter().rposition(fits) {
            Some(k) => scratch.spare.swap_remove(k),
            None => scratch.spare.pop().unwrap_or_default(),
        };
        // A list too small for its new contents is replaced, not grown: growing would copy its
        // old (dead) contents along.
        fn room<T>(list: &mut Vec<T>, n: usize) {
            list.clear();
            if list.capacity() < n {
                *list = Vec::with_capacity(n);
            }
        }
        room(&mut shape.points, raw.vertices.len());
        shape.points.extend(raw.vertices.iter().map(|&i| scratch.points[i as usize]));
        room(&mut shape.triangles, raw.triangles.len());
        shape.triangles.extend(raw.triangles.iter().map(|t| t.map(|i| local[i as usize])));
        room(&mut shape.planes, raw.planes.len());
        shape.planes.extend_from_slice(&raw.planes);
        room(&mut shape.triangle_planes, raw.triangle_planes.len());
        shape.triangle_planes.extend_from_slice(&raw.triangle_planes);
        room(&mut shape.adjacency, raw.adjacency.len());
        shape.adjacency.extend_from_slice(&raw.adjacency);
        shape.flat = raw.flat;
        shape.area = raw.flat_area;
        shape.scan = None;
        shape.grown = false;
        shape
    }
}

/// The result of one edge's evaluation.
struct Evaluation {
    /// The concavity error (infinite when no hull exists).
    cost: f64,
    /// What of `cost` stays a lower bound of the cost after either node grows: the scan of a
    /// solid hull (a larger solid hull seals every cavity the smaller one sealed, as deep), but
    /// neither the flat area error nor the thin-plate gap ([`thin_gap`]), which shrink when the
    /// parts come to cover more of the hull. 0 for flat and missing hulls.
    bound: f64,
    /// The merged hull, kept only when it may be used (the cost is within the limit, or a hull
    /// count cap may collapse past it) and [`Context::keep`] says so.
    merged: Option<Shape>,
    /// The scan of the merged hull ([`Shape::scan`]).
    scan: Option<f64>,
}

/// A result whose merged hull can be reused once the result is dropped.
pub(crate) trait Spare {
    /// The merged hull the result holds, if any.
    fn into_shape(self) -> Option<Shape>;
}

impl Spare for Evaluation {
    fn into_shape(self) -> Option<Shape> {
        self.merged
    }
}

impl Spare for Option<(f64, Shape)> {
    fn into_shape(self) -> Option<Shape> {
        self.map(|(_, shape)| shape)
    }
}

/// A speculative evaluation kept for later.
struct Kept<R> {
    edge: u32,
    /// The edge's two nodes and their versions when it was evaluated.
    nodes: [u32; 2],
    versions: [u32; 2],
    evaluation: R,
    /// How long it took, in seconds (what taking it saves).
    seconds: f64,
}

/// Speculative evaluations kept for later, oldest first.
struct Speculation<R> {
    kept: Vec<Kept<R>>,
}

impl<R: Spare> Speculation<R> {
    /// The most results kept (the oldest goes first).
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    const KEPT: usize = 4;

    /// The kept result for `edge`, and its evaluation time, if its nodes are still `nodes` at
    /// `versions`.
    fn take(&mut self, edge: u32, nodes: [u32; 2], versions: [u32; 2]) -> Option<(R, f64)> {
        let kept = self.kept.remove(self.find(edge, nodes, versions)?);
        Some((kept.evaluation, kept.seconds))
    }

    /// Where the result for `edge` with its nodes at `nodes` and `versions` is kept.
    fn find(&self, edge: u32, nodes: [u32; 2], versions: [u32; 2]) -> Option<usize> {
        self.kept.iter().position(|k| k.edge == edge && k.nodes == nodes && k.versions == versions)
    }

    /// Whether a result for `edge` with its nodes at `nodes` and `versions` is kept.
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    fn holds(&self, edge: u32, nodes: [u32; 2], versions: [u32; 2]) -> bool {
        self.find(edge, nodes, versions).is_some()
    }

    /// Keeps `evaluation` (which took `seconds`) in place of an older result for the same edge,
    /// or of the oldest when [`Self::KEPT`] are kept; returns the merged hull of the one it
    /// replaces (for reuse).
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    fn keep(&mut self, edge: u32, nodes: [u32; 2], versions: [u32; 2], evaluation: R, seconds: f64) -> Option<Shape> {
        let old = match self.kept.iter().position(|k| k.edge == edge) {
            Some(k) => Some(self.kept.remove(k)),
            None if self.kept.len() >= Self::KEPT => Some(self.kept.remove(0)),
            None => None,
        };
        self.kept.push(Kept { edge, nodes, versions, evaluation, seconds });
        old.and_then(|k| k.evaluation.into_shape())
    }
}

/// The merged hull of two nodes and its concavity error. The hull is built in `scratch` and
/// copied out only when [`Context::keep`] and (`keep_all` or the cost is within `limit`).
fn evaluate(na: &Node, nb: &Node, cx: &Context, scratch: &mut Scratch) -> Evaluation {
    let Context { samples, eps, limit, keep_all, keep, mesh, .. } = *cx;
    let Some((na, nb, grown)) = merge_hulls(na, nb, eps, scratch) else {
        return Evaluation { cost: f64::INFINITY, bound: 0.0, merged: None, scan: None };
    };
    let (a, b) = (&na.shape, &nb.shape);
    // (A hull with a folded face, which would hide concavities from the scan, is an error of
    // `build_hull`: no merge.)
    let raw = &scratch.raw;
    let mut scan = None;
    let mut bound = 0.0;
    let cost = if raw.flat {
        // The article: a flat hull that covers more than its two parts may close a concavity in its
        // plane; the square root of the extra area is the error. A solid part counts no area.
        let parts = if a.flat { a.area } else { 0.0 } + if b.flat { b.area } else { 0.0 };
        (raw.flat_area - parts).max(0.0).sqrt()
    } else {
        let (lo, hi) = raw.vertices.iter().fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), &i| {
            let p = scratch.points[i as usize];
            (lo.min(p), hi.max(p))
        });
        let diagonal = (hi - lo).length();
        #[cfg(debug_assertions)]
        let (hull_lo, hull_hi) = (lo, hi);
        let (start, lo, hi) = match changed_region(a, b, &scratch.points, raw, eps) {
            Some((start, rlo, rhi)) => (start, lo.max(rlo), hi.min(rhi)),
            None => (0.0, lo, hi),
        };
        let worst = if lo.cmple(hi).all() {
            samples.concavity(&raw.planes, lo, hi, eps, start, limit, &mut scratch.scan)
        } else {
            start.max(eps)
        };
        #[cfg(debug_assertions)]
        {
            // The region scan must find what the full scan from the same start finds (checked
            // in tests), up to the rounding of the planes. (The start, a part's own scan, can
            // exceed the merged hull's full scan by rounding, at most a few `s`: a sample a part's
            // face held by its thickness lies outside the merged hull.)
            let full = samples.concavity(&raw.planes, hull_lo, hull_hi, eps, start, limit, &mut scratch.scan);
            debug_assert!(
                (full > limit && worst > limit) || (full - worst).abs() <= 1e-2 * eps,
                "region scan {worst} against full scan {full}"
            );
        }
        if worst <= limit {
            scan = Some(worst);
        }
        bound = worst;
        let spans = if worst <= limit {
            thin_gap(&scratch.points, raw, diagonal, &na.triangles, &nb.triangles, mesh, limit)
        } else {
            0.0
        };
        worst.max(spans)
    };
    // Errors below the quantization distance are rounding (a sample on the hull's surface exits
    // after 1e-13); as exact zeros they tie, and ties go by edge index.
    let cost = if cost <= eps { 0.0 } else { cost };
    let merged = (keep && (keep_all || cost <= limit)).then(|| Shape { scan, grown, ..Shape::from_raw(scratch) });
    let bound = if cost <= eps { 0.0 } else { bound };
    Evaluation { cost, bound, merged, scan }
}

/// Builds the merged hull of two nodes into `scratch.raw` (over `scratch.points`: the first
/// returned node's points, then the second's) and says whether it was grown; `None` when no hull
/// exists. A solid part of some size grows by the other's points (most collapses absorb a small
/// part into a large one); otherwise the hull is built afresh. The larger part's points go first.
pub(crate) fn merge_hulls<'n>(
    na: &'n Node,
    nb: &'n Node,
    eps: f64,
    scratch: &mut Scratch,
) -> Option<(&'n Node, &'n Node, bool)> {
    let grow = |n: &Node| !n.shape.flat && n.shape.points.len() >= GROW_FROM;
    let (na, nb) = if grow(nb) && nb.shape.points.len() > na.shape.points.len() { (nb, na) } else { (na, nb) };
    let (a, b) = (&na.shape, &nb.shape);
    scratch.points.clear();
    scratch.points.extend_from_slice(&a.points);
    scratch.points.extend_from_slice(&b.points);
    let grown = grow(na)
        && grow_hull(
            &scratch.points,
            a.points.len(),
            &a.triangles,
            &a.triangle_planes,
            &a.adjacency,
            &a.planes,
            eps,
            &mut scratch.hull,
            &mut scratch.raw,
        )
        .is_ok();
    if !grown && build_hull(&scratch.points, eps, &mut scratch.hull, &mut scratch.raw).is_err() {
        return None;
    }
    Some((na, nb, grown))
}

/// The fewest points of a solid part that the merged hull grows from instead of being built
/// afresh. A grown hull keeps the part's vertices that lie within the planes' thickness of a
/// new face, which a fresh build drops, and its faces differ from a fresh build's by rounding;
/// a final hull that was grown is built afresh from its own vertices, which drops them again.
/// Tuned on the 21 shared meshes: from 16 points every mesh makes the same collapses
/// as from 64 (the same source triangles in every hull), with at most 0.4% more vertices and
/// often fewer (fandisk 1483 -> 1441, octagonal-pocket 2172 -> 2181); from 6, eight meshes'
/// collapses change.
/// Instructions with the rest unchanged: rocker-arm 2.65 G from 64, 2.30 G from 16; fandisk 1.11 G
/// and 0.97 G.
const GROW_FROM: usize = 16;

/// How thin a solid hull must be, in units of the concavity limit, for [`thin_gap`]. Tuned on the
/// 21 shared meshes: at 0.5 (5 units in the default cube) it catches the bottle's mouth (1.8
/// thick) and the chair's pierced back (1.5); at 2 it also caught the angle block's cut-out plate
/// (14.8) but made up to 2.4x the hulls (teapot-newell 56 -> 132) and octagonal-pocket 6.5% out.
const THIN: f64 = 0.5;

/// How thin a solid hull must be relative to its size (its box diagonal) for [`thin_gap`],
/// whatever [`THIN`] says: a plate is thin for its extent. Tuned on the 21 shared meshes: at 0.02
/// it catches the angle block's base plate (14.8 thick, a hull of it reaching over the bore's
/// opening: 3.21% of the diagonal out -> 0.56%) and moves the rest by at most two hulls each
/// (bunny-lowpoly 49 -> 51, teapot-newell 56 -> 57 with its farthest point 0.76% -> 0.92%);
/// 0.0166 is the least that catches the angle block, and at 0.03 glass went 80 -> 89 hulls and
/// bunny-open 47 -> 56.
const THIN_RELATIVE: f64 = 0.02;

/// The article's flat-hull area error, for a solid hull thinner than [`THIN`] times the limit or
/// [`THIN_RELATIVE`] times its box `diagonal`: such a hull can span a hole or a cut-out of a thin
/// plate (a bottle's mouth) where no sample's ray crosses the gap. Seen along the thin direction
/// (the normal of a face with every vertex within that thickness behind it), the square root of
/// the hull's shadow area that the two parts' triangles leave uncovered (each facing summed
/// apart, the larger taken: a closed or double-sided plate covers its shadow once per side). 0
/// when the hull is not that thin or the gap is within the limit.
fn thin_gap(
    points: &[DVec3],
    raw: &RawHull,
    diagonal: f64,
    ta: &[u32],
    tb: &[u32],
    mesh: &Prepared,
    limit: f64,
) -> f64 {
    let thin = (THIN * limit).max(THIN_RELATIVE * diagonal);
    let Some(plane) =
        raw.planes.iter().find(|pl| raw.vertices.iter().all(|&v| -pl.distance(points[v as usize]) <= thin))
    else {
        return 0.0;
    };
    let n = plane.normal;
    let shadow: f64 = raw
        .triangles
        .iter()
        .map(|t| {
            let [p, q, r] = t.map(|i| points[i as usize]);
            0.5 * (q - p).cross(r - p).dot(n).max(0.0)
        })
        .sum();
    let (mut front, mut back) = (0.0, 0.0);
    for &t in ta.iter().chain(tb) {
        let [p, q, r] = mesh.triangles[t as usize].map(|v| mesh.positions[v as usize]);
        let a = 0.5 * (q - p).cross(r - p).dot(n);
        if a > 0.0 {
            front += a;
        } else {
            back -= a;
        }
    }
    let gap = (shadow - f64::max(front, back)).max(0.0).sqrt();
    // Only a gap over the limit counts (it forbids the merge). Smaller ones would only reorder
    // the collapses, and on curved thin shells (a shadow a little wider than the surface) they
    // broke the runs of zero-cost collapses: 1.6x the evaluations on rocker-arm.
    if gap > limit { gap } else { 0.0 }
}

/// Where the concavity scan of the solid hull `raw` of `a` and `b` (over `points`, `a`'s first),
/// grown from `a`'s hull, has to look, and the longest ray of the samples it may skip: `None`
/// when the hull was built afresh or neither part's scan is known (scan everything).
///
/// Say the merged hull `H` grows from `a`'s hull `A`, whose scan found no ray longer than `r`.
/// The first [`RawHull::kept`] faces of `H` are faces of `A`, planes unchanged; every other face
/// is new. A sample inside `A` whose ray leaves `A` through a face that `H` keeps leaves `H` there
/// too, so its ray is no longer than `r`. Otherwise its ray leaves `A` through a face that `H`
/// swallowed, within `r` of the sample; a swallowed face's corners are either inside `H` (not
/// vertices of it) or corners of new faces (else `H` and `A` would coincide around them). Every
/// point of `b` is a dropped point or a corner of a new face (a face of `H` with a corner from
/// `b` was made by the growth). So every sample whose ray may be longer than `max(r_a, r_b)` lies
/// in the box of the new faces and the dropped points, widened by that length (samples inside
/// `H` but in neither part are inside the box too: that region is bounded by new and swallowed
/// faces). Only faces kept with their planes count as `A`'s: a face of a hull built afresh
/// whose corners all come from one part lies on that part's hull only within the planes'
/// thickness, and with a coarse `s` a ray grazing it ran hundreds of units past that part's own
/// face (a prism at 1e5 from the origin: 7.1 found where the full scan found 398). A part with no
/// scan (a flat one, or one whose scan stopped early) has its whole box scanned.
fn changed_region(a: &Shape, b: &Shape, points: &[DVec3], raw: &RawHull, eps: f64) -> Option<(f64, DVec3, DVec3)> {
    if raw.kept == 0 || (a.scan.is_none() && b.scan.is_none()) {
        return None;
    }
    let na = a.points.len();
    let (mut lo, mut hi) = (DVec3::INFINITY, DVec3::NEG_INFINITY);
    let mut add = |p: DVec3| {
        lo = lo.min(p);
        hi = hi.max(p);
    };
    let mut start = 0.0f64;
    for (part, range) in [(a, 0..na), (b, na..points.len())] {
        match part.scan {
            Some(r) => start = start.max(r),
            None => points[range].iter().for_each(|&p| add(p)),
        }
    }
    for t in &raw.triangles[raw.kept.min(raw.triangles.len())..] {
        t.iter().for_each(|&i| add(points[i as usize]));
    }
    // `raw.vertices` is ascending: the points between consecutive vertices were dropped.
    let mut next = 0;
    for &v in raw.vertices.iter().chain(std::iter::once(&(points.len() as u32))) {
        for i in next..v {
            add(points[i as usize]);
        }
        next = v + 1;
    }
    let widen = DVec3::splat(start + 2.0 * eps);
    Some((start, lo - widen, hi + widen))
}

/// Everything an evaluation reads besides the two nodes.
pub(crate) struct Context<'a> {
    pub(crate) samples: &'a Samples,
    /// For the distance phase: a sample inside the input does not stick out.
    pub(crate) inside: Option<&'a Inside>,
    pub(crate) mesh: &'a Prepared,
    pub(crate) eps: f64,
    pub(crate) limit: f64,
    pub(crate) keep_all: bool,
    /// Whether evaluations keep the merged hulls they may use. The first costs do not: most of
    /// those edges become dirty before they could collapse, and a hull of two triangles is
    /// cheaper to build again at the collapse than to copy out and free (rocker-arm: 30.1k first
    /// evaluations, 8.7k of them collapsed as evaluated; 21k fewer hulls allocated and freed,
    /// 8% less time).
    pub(crate) keep: bool,
}

impl<'a> Context<'a> {
    /// The context of the concavity phase (the article's steps 2 to 7).
    fn concavity(samples: &'a Samples, mesh: &'a Prepared, options: &DecomposeOptions) -> Self {
        Context {
            samples,
            inside: None,
            mesh,
            eps: mesh.s,
            // Errors within a few `s` are rounding of the welded points and thick planes: a
            // limit under 2 s (a coarse quantization) refused merges of a convex sphere (21
            // hulls where one is right, 5 where a hole opened it), and under 3 s merges of
            // shapes 1e5 from the origin, whose corners the `f32` input rounds by a good part of
            // their `s` (its float floor): a rounded box missing a triangle, 8 hulls for 1.
            limit: f64::from(options.concavity).max(4.0 * mesh.s),
            keep_all: options.max_hulls.is_some(),
            keep: true,
        }
    }
}

/// The first cost of every edge. With rayon, each worker keeps one [`Scratch`] across the edges
/// it evaluates (`map_init`); the results do not depend on which worker evaluated what.
fn evaluate_all(jobs: &[(u32, u32)], nodes: &[Node], cx: &Context, scratch: &mut Scratch) -> Vec<Evaluation> {
    let one =
        |scratch: &mut Scratch, &(a, b): &(u32, u32)| evaluate(&nodes[a as usize], &nodes[b as usize], cx, scratch);
    #[cfg(feature = "parallel")]
    if jobs.len() > 1 && rayon::current_num_threads() > 1 {
        use rayon::prelude::*;
        // Blocks of edges per task, so that a worker's scratch serves many evaluations.
        return jobs.par_iter().with_min_len(64).map_init(Scratch::default, one).collect();
    }
    jobs.iter().map(|job| one(scratch, job)).collect()
}

fn check_options(o: &DecomposeOptions) -> Result<(), DecomposeError> {
    let positive = |x: f32| x > 0.0 && x.is_finite();
    if !positive(o.cube) {
        return Err(DecomposeError::InvalidOptions("cube must be positive and finite"));
    }
    if !(o.quantization >= 0.0 && o.quantization.is_finite()) {
        return Err(DecomposeError::InvalidOptions("quantization must be non-negative and finite"));
    }
    if !(o.concavity >= 0.0 && o.concavity.is_finite()) {
        return Err(DecomposeError::InvalidOptions("concavity must be non-negative and finite"));
    }
    if !positive(o.sample_spacing) || o.sample_spacing < o.cube * 1e-4 {
        // Finer than 1/10000 of the cube would ask for billions of samples.
        return Err(DecomposeError::InvalidOptions("sample_spacing must be finite and at least cube / 10000"));
    }
    if !(o.merge_distance >= 0.0 && o.merge_distance.is_finite()) {
        return Err(DecomposeError::InvalidOptions("merge_distance must be non-negative and finite"));
    }
    if !(o.max_protrusion >= 0.0 && o.max_protrusion.is_finite()) {
        return Err(DecomposeError::InvalidOptions("max_protrusion must be non-negative and finite"));
    }
    if o.max_hulls == Some(0) {
        return Err(DecomposeError::InvalidOptions("max_hulls must be at least 1"));
    }
    if o.max_vertices_per_hull.is_some_and(|n| n < 4) {
        return Err(DecomposeError::InvalidOptions("max_vertices_per_hull must be at least 4"));
    }
    Ok(())
}

/// The most surface samples a decomposition takes (about 50 bytes each): a finer
/// [`DecomposeOptions::sample_spacing`] for the mesh's area is an error.
pub const MAX_SAMPLES: usize = 1 << 24;

/// Decomposes `mesh` into convex hulls.
///
/// Triangles with a non-finite corner, and triangles that collapse within the quantization
/// distance, are skipped and counted; an empty or fully degenerate mesh gives no hulls. Errors only
/// for unusable indices or options.
///
/// Four phases run over the dual graph of the mesh (one node per triangle): the article's
/// concavity collapses, merges by distance ([`DecomposeOptions::merge_distance`]), the
/// protrusion check ([`DecomposeOptions::max_protrusion`]) and the output of the hulls.
pub fn decompose<T: TriangleSource + ?Sized>(
    mesh: &T,
    options: &DecomposeOptions,
) -> Result<Decomposition, DecomposeError> {
    check_options(options)?;
    validate_triangles(mesh)?;
    let prep = prepare(mesh, f64::from(options.cube), f64::from(options.quantization));
    let spacing = f64::from(options.sample_spacing);
    check_sample_count(&prep, spacing)?;
    let mut recorder = options.record.then(Recorder::default);
    let mut scratch = Scratch::default();
    // The input's triangles by their corners, for the inside test and the protrusion check.
    let tris: Vec<[DVec3; 3]> = if options.merge_through_inside || options.max_protrusion > 0.0 {
        prep.triangles.iter().map(|t| t.map(|v| prep.positions[v as usize])).collect()
    } else {
        Vec::new()
    };
    let distance = f64::from(options.merge_distance);

    // The inside test of the distance phase depends on the input alone: it is built beside the
    // concavity phase, on another worker when one is free (the same test on any thread count).
    let ((samples, mut graph), inside) = join(
        || {
            // Step 1 of the article: one node per triangle, one edge per shared mesh edge.
            let (samples, mut graph) = join(|| Samples::new(&prep, spacing), || Graph::new(&prep, &mut scratch));
            // Steps 2 to 7: collapse the cheapest edge while its concavity error is within the
            // limit.
            let cx = Context::concavity(&samples, &prep, options);
            collapse_by_concavity(&mut graph, &cx, options.max_hulls, &mut scratch, &mut recorder);
            (samples, graph)
        },
        || (options.merge_through_inside && distance > 0.0).then(|| inside_test(&prep, &tris)),
    );
    let concavity = Context::concavity(&samples, &prep, options);

    // Beyond the article: neighbouring hulls merged by distance (see `merge_distance`).
    let close = Context { limit: distance, inside: inside.as_ref(), ..concavity };
    merge_by_distance(&mut graph, &close, spacing, &mut scratch, &mut recorder);

    // Beyond the article: hulls that stick out too far are split back (see `max_protrusion`).
    let protrusion_splits = if options.max_protrusion > 0.0 && options.max_hulls.is_none() {
        let bound = f64::from(options.max_protrusion);
        split_protrusions(&mut graph, &close, bound, &tris, spacing, &mut scratch, &mut recorder)
    } else {
        0
    };

    let hulls = output_hulls(&mut graph, &prep, options.max_vertices_per_hull, &mut scratch);
    if let Some(rec) = recorder.as_mut() {
        rec.finish(&hulls);
    }
    Ok(Decomposition {
        hulls,
        non_finite_triangles: prep.non_finite,
        degenerate_triangles: prep.degenerate + graph.lost,
        quantization: (prep.s / prep.scale) as f32,
        samples: samples.len(),
        protrusion_splits,
        recording: recorder,
    })
}

/// `a()` and `b()`, on two rayon workers when the `parallel` feature is on and one is free.
fn join<A: Send, B: Send>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
    #[cfg(feature = "parallel")]
    return rayon::join(a, b);
    #[cfg(not(feature = "parallel"))]
    (a(), b())
}

/// Refuses a `spacing` that would take more than [`MAX_SAMPLES`] samples, counted before any is
/// made (a spacing of cube / 10000 on a closed cube asks for 6e8, 30 GB). An upper bound of
/// `sample_triangle`'s count: rows of about `spacing` across the height over the longest edge,
/// at least one, each at most that edge's length over the spacing plus one (a needle thinner
/// than the spacing still gets a row).
fn check_sample_count(prep: &Prepared, spacing: f64) -> Result<(), DecomposeError> {
    let mut bound = 0.0f64;
    for t in &prep.triangles {
        let [a, b, c] = t.map(|v| prep.positions[v as usize]);
        let longest = (b - a).length().max((c - b).length()).max((a - c).length());
        let height = if longest > 0.0 { (b - a).cross(c - a).length() / longest } else { 0.0 };
        bound += (height / spacing).round().max(1.0) * ((longest / spacing).round() + 1.0);
    }
    if !(bound <= MAX_SAMPLES as f64) {
        return Err(DecomposeError::InvalidOptions("sample_spacing too fine for this mesh (over 2^24 samples)"));
    }
    Ok(())
}

/// The widest crack, in quantization distances, that [`inside_test`] treats as closed. The shared
/// STL meshes' cracks are up to 13.5 `s` wide (octagonal-pocket: a sliver gap 2.3 long; featuretype
/// 5.9 `s`); with one ray instead of three their decompositions are the same bit for bit, in
/// 20% less time on featuretype. Real openings are far wider (chess-table's: 150 `s`).
const CRACK: f64 = 20.0;

/// The inside test of [`DecomposeOptions::merge_through_inside`] over the input's triangles.
fn inside_test(prep: &Prepared, tris: &[[DVec3; 3]]) -> Inside {
    let rims = crate::inside::rims(&prep.triangles);
    // One ray decides only where every part is closed, outward and manifold, or where the only
    // edges that break it are the two sides of cracks narrower than `CRACK` (T-junctions and
    // slivers dropped by the welding, as in CAD exporters' STL files: no opening a ray could
    // pass but within the crack), every triangle not known closed lying on one.
    let closed = prep.solid.iter().all(|&solid| solid) && rims.iter().all(|&r| r == 0)
        || (prep.solid.iter().zip(&rims).all(|(&solid, &r)| solid || r != 0)
            && crate::inside::cracks_only(&prep.positions, &prep.triangles, &rims, CRACK * prep.s));
    Inside::new(tris, &rims, closed)
}

/// The article's steps 2 to 7: every edge's predicted hull and concavity error, then the
/// cheapest edge collapsed while its error is within `cx.limit` (or the hull count is over
/// `max_hulls`); the edges around the merged node become dirty.
///
/// Re-costing is lazy. A solid hull only grows when a node grows, and the error of a larger
/// solid hull is never smaller (every sample inside the smaller one is inside the larger one,
/// and its ray leaves later), so a dirty edge keeps its old cost as a lower bound and is
/// evaluated only when that bound reaches the top of the heap. A clean edge at the top is then
/// the true minimum, as with eager re-costing; edges whose bound is already over the limit are
/// never evaluated again. When the absorbed node and the other one both link to a neighbour, the
/// edge kept to it takes the larger of the two edges' bounds (see [`absorb`]). A flat hull's area error has no such bound, so its edges start again
/// from 0. Among equal costs a clean edge goes first (then the lower edge index): its cost is
/// already the minimum, so the dirty ones behind it are not evaluated yet. This matters most
/// where it is most common: a patch growing over a smooth or flat surface, where every edge
/// around it costs 0 and each collapse would otherwise re-evaluate all of them.
///
/// The collapses happen one at a time in heap order, so their order depends only on the mesh
/// and the options, never on the thread count (rayon evaluates the initial costs of all edges,
/// and [`evaluate_dirty`] may evaluate the next edge ahead).
fn collapse_by_concavity(
    g: &mut Graph,
    cx: &Context,
    max_hulls: Option<usize>,
    scratch: &mut Scratch,
    recorder: &mut Option<Recorder>,
) {
    // The first costs keep no hulls (see `Context::keep`).
    let first = Context { keep: false, ..*cx };
    let mut heap = BinaryHeap::with_capacity(g.edges.len());
    for (e, ev) in evaluate_all(&g.first_edges, &g.nodes, &first, scratch).into_iter().enumerate() {
        let edge = &mut g.edges[e];
        edge.cost = ev.cost;
        edge.bound = ev.bound;
        edge.merged = ev.merged;
        edge.scan = ev.scan;
        heap.push(Reverse((ev.cost.to_bits(), CLEAN, e as u32, 0u32)));
    }
    let mut ahead = Lookahead::new(g.nodes.len());
    #[cfg(feature = "parallel")]
    let speculate = ahead.enabled();
    let mut collapse = || {
        while let Some(Reverse((bits, _, e, version))) = heap.pop() {
            let edge = &g.edges[e as usize];
            if !edge.alive || edge.version != version {
                continue;
            }
            let cost = f64::from_bits(bits);
            let over_cap = max_hulls.is_some_and(|m| g.alive > m);
            if !cost.is_finite() || (cost > cx.limit && !over_cap) {
                // Infinite costs sort last, and dirty costs are lower bounds: every remaining edge
                // is over the limit too.
                break;
            }
            if edge.dirty {
                // Evaluate it (or take the result evaluated ahead), then look again.
                let one = |na: &Node, nb: &Node, scratch: &mut Scratch| evaluate(na, nb, cx, scratch);
                let ev = evaluate_dirty(e, (&g.nodes, &g.edges), &mut heap, &mut ahead, &one, scratch);
                let ed = &mut g.edges[e as usize];
                ed.cost = ev.cost;
                ed.bound = ev.bound;
                ed.merged = ev.merged;
                ed.scan = ev.scan;
                ed.dirty = false;
                ed.version += 1;
                heap.push(Reverse((ev.cost.to_bits(), CLEAN, e, ed.version)));
                continue;
            }
            let (a, b) = (edge.a as usize, edge.b as usize);
            let scan = edge.scan;
            let merged = match g.edges[e as usize].merged.take() {
                Some(merged) => merged,
                // Not kept by its evaluation: the same hull again (a build depends on the two
                // nodes alone, which have not changed since).
                None => match merge_hulls(&g.nodes[a], &g.nodes[b], cx.eps, scratch) {
                    Some((_, _, grown)) => Shape { scan, grown, ..Shape::from_raw(scratch) },
                    None => break,
                },
            };
            if let Some(rec) = recorder.as_mut() {
                rec.push(&g.nodes[a].shape, &g.nodes[b].shape, &merged, cost, cx.mesh);
            }
            ahead.versions[a] += 1;
            ahead.versions[b] += 1;
            absorb(&mut g.nodes, &mut g.edges, &mut g.mark, &mut g.tree, e, merged, cost, scratch);
            g.alive -= 1;
            for &x in &g.nodes[a].edges {
                let ed = &mut g.edges[x as usize];
                // An edge that is still dirty keeps its bound (a flat or missing hull's is 0, set
                // below when it became dirty). Every live edge has one current heap entry: an edge
                // that was dirty already keeps it, which keeps stale entries out of the heap.
                if ed.dirty {
                    // A bound raised by the collapse (see `absorb`) moves its entry up.
                    if ed.bound > ed.cost {
                        ed.cost = ed.bound;
                        ed.version += 1;
                        heap.push(Reverse((ed.cost.to_bits(), DIRTY, x, ed.version)));
                    }
                    continue;
                }
                ed.cost = ed.bound;
                ed.dirty = true;
                if let Some(shape) = ed.merged.take() {
                    scratch.recycle(shape);
                }
                ed.version += 1;
                heap.push(Reverse((ed.cost.to_bits(), DIRTY, x, ed.version)));
            }
        }
    };
    // Inside the pool, the evaluations' `join`s stay on its workers (from outside, each one
    // would wait for a worker to wake up).
    #[cfg(feature = "parallel")]
    if speculate {
        rayon::scope(|_| collapse());
    } else {
        collapse();
    }
    #[cfg(not(feature = "parallel"))]
    collapse();
}

/// A heap entry: cost bits, [`CLEAN`] or [`DIRTY`], edge index, edge version.
pub(crate) type HeapEntry = Reverse<(u64, u8, u32, u32)>;

/// What [`evaluate_dirty`] keeps between calls, for results of type `R`.
pub(crate) struct Lookahead<R> {
    /// Whether a second evaluation runs beside each one (more than one rayon thread).
    enabled: bool,
    /// Per node, bumped by every collapse that changes it.
    pub(crate) versions: Vec<u32>,
    kept: Speculation<R>,
    #[cfg(feature = "parallel")]
    scratch: Scratch,
    /// Whether speculating pays now.
    #[cfg(feature = "parallel")]
    pacer: Pacer,
    /// Heap entries looked at while searching for the next edge, pushed back unchanged.
    popped: Vec<HeapEntry>,
}

/// Whether the speculative evaluations of [`evaluate_dirty`] pay, judged on the wall clock over
/// windows of [`Pacer::WINDOW`] speculations: what the collapsing thread spent on them (the
/// time a `join` took beyond its own evaluation: running the speculation itself when no other
/// worker took it, or waiting for the worker that did) against what the results taken later
/// saved it (their evaluation time). A window that spent more turns speculation off for the
/// next [`Pacer::PAUSE`] evaluations. On a loaded machine the worker that took a speculation is
/// often descheduled in the middle of it, and the `join` waits for it: two threads were then
/// slower than one (rocker-arm 561 against 764 ms at load 5). Only when evaluations run
/// depends on it, never what they compute: the results are the same on any thread count.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(not(feature = "parallel"), allow(dead_code))]
pub(crate) struct Pacer {
    spent: f64,
    saved: f64,
    speculations: u32,
    /// Evaluations left without speculation.
    pause: u32,
}

#[cfg_attr(not(feature = "parallel"), allow(dead_code))]
impl Pacer {
    /// Speculations per judgement.
    const WINDOW: u32 = 32;
    /// Evaluations without speculation after a window that did not pay.
    const PAUSE: u32 = 512;

    /// Whether the next evaluation may speculate (counts a paused one).
    pub(crate) fn speculate(&mut self) -> bool {
        if self.pause > 0 {
            self.pause -= 1;
            return false;
        }
        true
    }

    /// A speculation cost the collapsing thread `spent` seconds beyond its own evaluation.
    pub(crate) fn spent(&mut self, spent: f64) {
        self.spent += spent;
        self.speculations += 1;
        if self.speculations == Self::WINDOW {
            if self.spent > self.saved {
                self.pause = Self::PAUSE;
            }
            *self = Pacer { pause: self.pause, ..Pacer::default() };
        }
    }

    /// A speculative result was taken, saving an evaluation of `saved` seconds.
    pub(crate) fn saved(&mut self, saved: f64) {
        self.saved += saved;
    }
}

impl<R: Spare + Send> Lookahead<R> {
    pub(crate) fn new(nodes: usize) -> Self {
        Lookahead {
            #[cfg(feature = "parallel")]
            enabled: rayon::current_num_threads() > 1,
            #[cfg(not(feature = "parallel"))]
            enabled: false,
            versions: vec![0; nodes],
            kept: Speculation { kept: Vec::new() },
            #[cfg(feature = "parallel")]
            scratch: Scratch::default(),
            #[cfg(feature = "parallel")]
            pacer: Pacer::default(),
            popped: Vec::new(),
        }
    }

    /// Whether a second evaluation runs beside each one.
    #[cfg(feature = "parallel")]
    pub(crate) fn enabled(&self) -> bool {
        self.enabled
    }
}

/// The evaluation of the dirty edge `e` at the top of the heap, with a speculative second one
/// beside it on more than one thread while the [`Pacer`] finds that this pays.
///
/// The speculative evaluation is of the next dirty edge in the heap that shares no node with
/// `e` and has no result kept already (among the next few entries, which go back unchanged: the
/// heap's order is total), and of the one after it when the worker finishes the first while
/// this thread is still evaluating `e`. Each result is kept (the last [`Speculation::KEPT`])
/// with the versions of its two nodes and used when that edge comes up for evaluation with both
/// nodes unchanged. The result is the same for any thread count because an
/// evaluation is a pure function of its two nodes (and the fixed samples and options): a kept
/// result whose nodes have not changed since is, bit for bit, what evaluating the edge now would
/// compute, and one whose nodes have changed is dropped. Speculation only decides *when* an
/// evaluation runs, never which edge collapses next, which the heap alone decides. With one
/// edge ahead (before the second and the skipping of kept results), 88% of rocker-arm's
/// speculative evaluations were used, and they were 46% of its evaluations (fandisk 41% and
/// 25%, teapot-newell 43% and 28%).
pub(crate) fn evaluate_dirty<R: Spare + Send>(
    e: u32,
    (nodes, edges): (&[Node], &[Edge]),
    heap: &mut BinaryHeap<HeapEntry>,
    ahead: &mut Lookahead<R>,
    evaluate: &(dyn Fn(&Node, &Node, &mut Scratch) -> R + Sync),
    scratch: &mut Scratch,
) -> R {
    let edge = &edges[e as usize];
    let (ea, eb) = (edge.a, edge.b);
    let (na, nb) = (&nodes[ea as usize], &nodes[eb as usize]);
    let versions = [ahead.versions[ea as usize], ahead.versions[eb as usize]];
    if let Some((ev, _seconds)) = ahead.kept.take(e, [ea, eb], versions) {
        #[cfg(feature = "parallel")]
        ahead.pacer.saved(_seconds);
        return ev;
    }
    #[cfg(feature = "parallel")]
    let speculate = ahead.enabled && ahead.pacer.speculate();
    #[cfg(not(feature = "parallel"))]
    let speculate = ahead.enabled;
    if !speculate {
        return evaluate(na, nb, scratch);
    }
    // Up to two edges to evaluate ahead: the first dirty ones in heap order that share no node
    // with `e` and whose result is not kept already.
    let mut next: [Option<(u32, [u32; 2])>; 2] = [None, None];
    while ahead.popped.len() < 8 && next[1].is_none() {
        let Some(entry) = heap.pop() else { break };
        let Reverse((_, _, x, xv)) = entry;
        ahead.popped.push(entry);
        let ex = &edges[x as usize];
        let xn = [ex.a, ex.b];
        if ex.alive
            && ex.version == xv
            && ex.dirty
            && !xn.iter().any(|n| [ea, eb].contains(n))
            && !ahead.kept.holds(x, xn, xn.map(|n| ahead.versions[n as usize]))
        {
            next[usize::from(next[0].is_some())] = Some((x, xn));
        }
    }
    heap.extend(ahead.popped.drain(..));
    #[cfg(feature = "parallel")]
    if let Some(first) = next[0] {
        use std::sync::atomic::{AtomicBool, Ordering};
        let timed = |scratch: &mut Scratch, (_, [xa, xb]): (u32, [u32; 2])| {
            let start = Instant::now();
            let r = evaluate(&nodes[xa as usize], &nodes[xb as usize], scratch);
            (r, start.elapsed().as_secs_f64())
        };
        // The second edge is evaluated only while this thread is still busy with its own, so a
        // join never waits for more than the evaluation under way.
        let done = AtomicBool::new(false);
        let start = Instant::now();
        let ((ev, own), (first_ev, second_ev)) = rayon::join(
            || {
                let start = Instant::now();
                let ev = evaluate(na, nb, scratch);
                done.store(true, Ordering::Relaxed);
                (ev, start.elapsed().as_secs_f64())
            },
            || {
                let first_ev = timed(&mut ahead.scratch, first);
                let second_ev = match next[1] {
                    Some(second) if !done.load(Ordering::Relaxed) => Some((second, timed(&mut ahead.scratch, second))),
                    _ => None,
                };
                (first_ev, second_ev)
            },
        );
        ahead.pacer.spent(start.elapsed().as_secs_f64() - own);
        for ((x, xn), (r, seconds)) in std::iter::once((first, first_ev)).chain(second_ev) {
            let xversions = xn.map(|n| ahead.versions[n as usize]);
            if let Some(old) = ahead.kept.keep(x, xn, xversions, r, seconds) {
                scratch.recycle(old);
            }
        }
        return ev;
    }
    evaluate(na, nb, scratch)
}

/// Beyond the article: hulls that stick out farther than `bound` of the diagonal (see
/// [`DecomposeOptions::max_protrusion`]) are split back ([`refine`]). The distance phase (`cx`)
/// then runs again over the parts, which it merges where that stays within 0.9 of the check's
/// bound, and the nodes it merged are checked again, for at most [`REFINE_ROUNDS`] rounds.
/// Returns the number of splits.
fn split_protrusions(
    g: &mut Graph,
    cx: &Context,
    bound: f64,
    tris: &[[DVec3; 3]],
    spacing: f64,
    scratch: &mut Scratch,
    recorder: &mut Option<Recorder>,
) -> usize {
    let prep = cx.mesh;
    if prep.triangles.is_empty() {
        return 0;
    }
    // The winding number of the check sees the lids over small holes: the part's closed twin.
    let closed: Vec<[DVec3; 3]> = tris.iter().chain(&prep.lids).copied().collect();
    let mut check = Protrusion::new(cx.samples, prep, tris, &closed, bound, spacing);
    // Merging again within the check's bound too: where the bound is below the phase's (a long
    // part's diagonal is near the cube's side, and 0.016 of it under 20), the phase would
    // merge what the check split.
    let distance = cx.limit;
    let again = Context { limit: distance.min(0.9 * check.limit()), ..*cx };
    let mut splits = 0;
    for round in 0..REFINE_ROUNDS {
        let before = g.nodes.len();
        let changed = refine(&mut g.nodes, &mut g.tree, prep, &mut check, cx.eps, scratch);
        let split = g.nodes.len() - before;
        splits += split;
        g.alive += split;
        // The last round's splits stay: the hulls returned have all passed the check.
        if changed.is_empty() || distance <= 0.0 || round + 1 == REFINE_ROUNDS {
            break;
        }
        relink(&mut g.nodes, &mut g.edges, &mut g.mark, &g.first_edges, &changed);
        let merged = g.tree.current.clone();
        g.alive -=
            merge_close(&mut g.nodes, &mut g.edges, &mut g.mark, &mut g.tree, &again, spacing, scratch, recorder);
        // Only the nodes this phase merged can stick out anew.
        for (n, node) in g.nodes.iter_mut().enumerate() {
            node.checked = node.checked && g.tree.current[n] == merged[n];
        }
    }
    splits
}

/// The live nodes' hulls in the input's units, in order of their lowest source triangle: a grown
/// hull built afresh from its own vertices, a hull over `cap` vertices simplified.
fn output_hulls(g: &mut Graph, prep: &Prepared, cap: Option<usize>, scratch: &mut Scratch) -> Vec<ConvexHull> {
    let eps = prep.s;
    let mut hulls = Vec::with_capacity(g.alive);
    // (A part whose hull could not be built again, which its triangles had before, has no
    // points: left out rather than returned empty.)
    for node in g.nodes.iter_mut().filter(|n| n.alive && !n.shape.points.is_empty()) {
        let mut source: Vec<u32> = node.triangles.iter().map(|&t| prep.source[t as usize]).collect();
        source.sort_unstable();
        if node.shape.grown {
            // A grown hull keeps the part's vertices that lie within the planes' thickness of a
            // new face; a fresh build of its own vertices drops them (the hull moves by less than
            // that thickness, far below s).
            scratch.points.clear();
            scratch.points.extend_from_slice(&node.shape.points);
            if let Some(fresh) = Shape::from_scratch(scratch, eps) {
                if !fresh.flat {
                    node.shape = Shape { scan: node.shape.scan, ..fresh };
                }
            }
        }
        let mut cap_error = 0.0;
        if let Some(cap) = cap {
            if node.shape.points.len() > cap {
                let (shape, depth) = cap_vertices(&node.shape, cap, eps, scratch);
                node.shape = shape;
                cap_error = depth;
            }
        }
        let back = |p: DVec3| (p / prep.scale + prep.centre).as_vec3();
        hulls.push(ConvexHull {
            vertices: node.shape.points.iter().map(|&p| back(p)).collect(),
            triangles: node.shape.triangles.clone(),
            source_triangles: source,
            flat: node.shape.flat,
            error: (node.error / prep.scale) as f32,
            cap_error: (cap_error / prep.scale) as f32,
        });
    }
    hulls.sort_by_key(|h| h.source_triangles[0]);
    hulls
}

/// Keeps at most `cap` vertices of `shape`: starting from the hull's own extreme tetrahedron, adds
/// the vertex farthest outside the current hull until `cap` are kept. Returns the smaller hull and
/// how far the farthest dropped vertex lies outside it.
fn cap_vertices(shape: &Shape, cap: usize, eps: f64, scratch: &mut Scratch) -> (Shape, f64) {
    let pts = &shape.points;
    // Seed the selection with extreme points along the axes (up to 6), then grow.
    let mut chosen: Vec<usize> = Vec::new();
    for axis in 0..3 {
        let lo = (0..pts.len()).min_by(|&i, &j| pts[i][axis].total_cmp(&pts[j][axis])).unwrap_or(0);
        let hi = (0..pts.len()).max_by(|&i, &j| pts[i][axis].total_cmp(&pts[j][axis])).unwrap_or(0);
        for i in [lo, hi] {
            if !chosen.contains(&i) && chosen.len() < cap {
                chosen.push(i);
            }
        }
    }
    loop {
        scratch.points.clear();
        scratch.points.extend(chosen.iter().map(|&i| pts[i]));
        let Some(hull) = Shape::from_scratch(scratch, eps) else {
            // The extremes alone are degenerate: add points in order until they are not.
            match (0..pts.len()).find(|i| !chosen.contains(i)) {
                Some(i) if chosen.len() < cap => {
                    chosen.push(i);
                    continue;
                }
                _ => return (shape.clone(), 0.0),
            }
        };
        let depth_of = |p: DVec3| hull.planes.iter().map(|pl| pl.distance(p)).fold(f64::NEG_INFINITY, f64::max);
        let (mut far, mut depth) = (usize::MAX, 0.0f64);
        for (i, p) in pts.iter().enumerate() {
            let d = depth_of(*p);
            if d > depth {
                depth = d;
                far = i;
            }
        }
        if far == usize::MAX || depth <= eps || chosen.len() >= cap {
            // Report the distance to the surface, not to the planes: at a corner of the smaller
            // hull a dropped vertex can be farther from it than from any one plane.
            let outside =
                pts.iter().filter(|p| depth_of(**p) > 0.0).map(|p| surface_distance(*p, &hull)).fold(0.0, f64::max);
            return (hull, outside);
        }
        chosen.push(far);
    }
}

/// The most rounds of [`refine`] and the distance phase after the first distance phase (the
/// last round's splits stay).
const REFINE_ROUNDS: usize = 3;

/// Splits every live node whose hull sticks out (see [`Protrusion`]) back into the two nodes it
/// was merged from, and those in turn, until none does (a single triangle never does). Returns
/// the slots it changed (split nodes keep theirs, their second parts take new ones). Nodes are
/// checked and split one at a time in index order.
fn refine(
    nodes: &mut Vec<Node>,
    tree: &mut MergeTree,
    prep: &Prepared,
    check: &mut Protrusion,
    eps: f64,
    scratch: &mut Scratch,
) -> Vec<u32> {
    let mut buf = std::mem::take(&mut scratch.surface);
    // One node after the other: the check's grid keeps what earlier points settled (hulls share
    // the faces that cut through a solid part between them).
    let out: Vec<bool> = nodes
        .iter_mut()
        .map(|n| {
            let check = n.alive
                && !n.checked
                && n.triangles.len() > 1
                && check.sticks_out(&n.shape.points, &n.shape.triangles, &mut buf);
            n.checked = n.alive && !check;
            check
        })
        .collect();
    // Slots to split, as a stack: a split's parts are split before the next node.
    let mut queue: Vec<usize> = (0..out.len()).rev().filter(|&n| out[n]).collect();
    let mut changed = Vec::new();
    while let Some(n) = queue.pop() {
        let Some(merge) = tree.current[n].checked_sub(tree.leaves).and_then(|m| tree.merges.get(m as usize)) else {
            continue;
        };
        let [first_tree, second_tree] = merge.parts;
        let triangles = std::mem::take(&mut nodes[n].triangles);
        let (first, second) = triangles.split_at((merge.first as usize).min(triangles.len()));
        // The second part's slot is new.
        let slot = nodes.len();
        nodes.push(Node {
            shape: Shape::default(),
            triangles: Vec::new(),
            edges: Vec::new(),
            error: 0.0,
            alive: true,
            checked: false,
        });
        tree.current.push(second_tree);
        tree.current[n] = first_tree;
        changed.extend([n as u32, slot as u32]);
        let mut pending = Vec::with_capacity(2);
        for (slot, tris) in [(n, first), (slot, second)] {
            let part = tree.current[slot];
            let error = part.checked_sub(tree.leaves).map_or(0.0, |m| tree.merges[m as usize].error);
            // The hull of the part's corners, as when the part was a node (its triangles are
            // taller than `s`, so a single one always has a hull).
            let mut corners: Vec<u32> = tris.iter().flat_map(|&t| prep.triangles[t as usize]).collect();
            corners.sort_unstable();
            corners.dedup();
            scratch.points.clear();
            scratch.points.extend(corners.iter().map(|&v| prep.positions[v as usize]));
            let shape = Shape::from_scratch(scratch, eps);
            let failed = shape.is_none();
            let node = &mut nodes[slot];
            let old = std::mem::replace(&mut node.shape, shape.unwrap_or_default());
            scratch.recycle(old);
            node.triangles = tris.to_vec();
            node.error = error;
            node.alive = true;
            if failed
                || (node.triangles.len() > 1 && check.sticks_out(&node.shape.points, &node.shape.triangles, &mut buf))
            {
                pending.push(slot);
            } else {
                node.checked = true;
            }
        }
        // The first part is split first.
        queue.extend(pending.into_iter().rev());
    }
    scratch.surface = buf;
    changed.sort_unstable();
    changed.dedup();
    changed
}

/// Distance from `p` to the surface of `shape` (closest point on any triangle).
fn surface_distance(p: DVec3, shape: &Shape) -> f64 {
    shape
        .triangles
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|k| shape.points[k as usize]);
            p.distance(closest_on_triangle(p, a, b, c))
        })
        .fold(f64::INFINITY, f64::min)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A result evaluated ahead is handed out only for its own edge and nodes at the versions it
    /// was evaluated at: after either node changed (a collapse bumps its version), the edge must be
    /// evaluated again, or a result from the old nodes would be used (different hulls on two
    /// threads than on one). A newer result for an edge replaces its older one, and past
    /// [`Speculation::KEPT`] results the oldest goes. Fails when `take` ignores the versions or
    /// the list outgrows its bound (checked).
    #[test]
    fn a_result_evaluated_ahead_is_used_only_while_its_nodes_are_unchanged() {
        let shape = |n: usize| Shape { points: vec![DVec3::ZERO; n], ..Shape::default() };
        let mut kept: Speculation<Option<(f64, Shape)>> = Speculation { kept: Vec::new() };
        assert!(kept.keep(7, [1, 2], [0, 0], Some((1.0, shape(4))), 0.5).is_none());
        assert!(kept.holds(7, [1, 2], [0, 0]));
        assert!(!kept.holds(7, [1, 2], [0, 1]), "node 2 changed since");
        assert!(kept.take(7, [1, 2], [0, 1]).is_none(), "node 2 changed since");
        assert!(kept.take(6, [1, 2], [0, 0]).is_none(), "another edge");
        assert!(kept.take(7, [1, 3], [0, 0]).is_none(), "other nodes");
        let (taken, seconds) = kept.take(7, [1, 2], [0, 0]).expect("unchanged nodes");
        assert_eq!(taken.map(|(cost, s)| (cost, s.points.len())), Some((1.0, 4)));
        assert_eq!(seconds, 0.5);
        assert!(kept.take(7, [1, 2], [0, 0]).is_none(), "handed out once");
        // A newer result for the same edge replaces the older one (returning its hull for reuse).
        assert!(kept.keep(8, [4, 5], [2, 2], Some((0.5, shape(5))), 0.0).is_none());
        let old = kept.keep(8, [4, 5], [2, 3], Some((0.7, shape(6))), 0.0);
        assert_eq!(old.map(|s| s.points.len()), Some(5));
        assert!(kept.take(8, [4, 5], [2, 2]).is_none(), "the older result is gone");
        // Past `KEPT` results the oldest goes.
        for k in 0..Speculation::<Option<(f64, Shape)>>::KEPT as u32 {
            kept.keep(10 + k, [20 + k, 30 + k], [0, 0], Some((0.0, shape(7))), 0.0);
        }
        assert!(kept.take(8, [4, 5], [2, 3]).is_none(), "evicted as the oldest");
        assert!(kept.take(10, [20, 30], [0, 0]).is_some());
    }

    /// A window of speculations that cost the collapsing thread more than their results saved it
    /// turns speculation off for [`Pacer::PAUSE`] evaluations, then on again; a window that paid
    /// keeps it on. Fails when the pacer never pauses (two threads then wait for descheduled
    /// workers), never resumes (two threads then never speculate), or judges the wrong way.
    #[test]
    fn speculation_pauses_after_a_window_that_did_not_pay() {
        let mut pacer = Pacer::default();
        // Paying: each speculation waited 1 ms and saved 2 ms.
        for _ in 0..3 * Pacer::WINDOW {
            assert!(pacer.speculate(), "a window that paid keeps speculating");
            pacer.saved(2e-3);
            pacer.spent(1e-3);
        }
        // Not paying: each waited 5 ms and saved 2 ms.
        for k in 0..Pacer::WINDOW {
            assert!(pacer.speculate(), "judged only at the end of a window ({k})");
            pacer.saved(2e-3);
            pacer.spent(5e-3);
        }
        for k in 0..Pacer::PAUSE {
            assert!(!pacer.speculate(), "paused ({k} of {})", Pacer::PAUSE);
        }
        assert!(pacer.speculate(), "on again after the pause");
        // The pause starts a fresh window: what the last one spent does not carry over.
        for _ in 0..Pacer::WINDOW - 1 {
            pacer.saved(1e-3);
            pacer.spent(1e-3);
        }
        pacer.spent(0.0);
        assert!(pacer.speculate(), "an even window keeps speculating");
    }
}
