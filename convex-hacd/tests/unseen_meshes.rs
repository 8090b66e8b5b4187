//! An audit of the README's promises on generated meshes nobody tuned the crate on (the test and
//! shared meshes are not used here): at the defaults and with `merge_through_inside: false`, on
//! rayon pools of 1 and 2 threads,
//!
//! 1. coverage: every corner of a hull's source triangles is inside it or within `2 s` of it
//!    (`s` = `Decomposition::quantization`, in input units), and every vertex of a kept triangle
//!    is in some hull within the same tolerance;
//! 2. every hull closed, convex and outward (checked in `f64` from its triangles alone), its
//!    vertices input vertices (within `s`);
//! 3. the source triangles partition the kept triangles (the rest counted as skipped);
//! 4. the same bits on 1 and 2 threads;
//! 5. no panic, and bad input gives a typed error or the documented counts;
//! 6. a shape missing 1-3 triangles (small holes) gets at most twice the hulls of its closed
//!    twin at the defaults;
//!
//! and beside them: hulls of a closed input stay within 2% of its diagonal (the docs of
//! `max_protrusion`), sealed cavities are filled, inside-out shells get their outward twins'
//! partition, and `convex_hull` keeps every point within its tolerance.
//!
//! `UNSEEN_CASES=N` runs the property tests over N random shapes (16 by default, fixed seed;
//! `UNSEEN_SEED` picks another); `survey_random_shapes` (ignored) is the long run. The last
//! four tests hold defects this audit found: three fixed since, one (ignored) open.

mod common;
mod unseen;

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use common::point_triangle_distance;
use convex_hacd::{DecomposeError, DecomposeOptions, Decomposition, HullError, convex_hull, decompose};
use glam::{DVec3, Quat, Vec3};
use proptest::prelude::*;
use unseen::{
    Rng, Shape, bent_plate, book, box_shell, box_union, capsule, cell_prism, l_extrusion, rounded_box, star_prism,
    star_ring_prism, terrain, torus, uv_sphere,
};
use voxel_core::{IndexedMesh, TriangleSource};

/// Rayon pools of 1 and 2 threads, built once.
fn pools() -> &'static [rayon::ThreadPool; 2] {
    static POOLS: OnceLock<[rayon::ThreadPool; 2]> = OnceLock::new();
    POOLS.get_or_init(|| [1, 2].map(|n| rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap()))
}

/// The two merge modes the README documents.
fn modes() -> [(&'static str, DecomposeOptions); 2] {
    [
        ("defaults", DecomposeOptions::default()),
        ("surface", DecomposeOptions { merge_through_inside: false, ..Default::default() }),
    ]
}

/// Everything a decomposition promises bit for bit.
#[allow(clippy::type_complexity)]
fn bits(d: &Decomposition) -> (Vec<(Vec<[u32; 3]>, Vec<[u32; 3]>, Vec<u32>, bool, u32, u32)>, [usize; 4], u32) {
    let hulls = d
        .hulls
        .iter()
        .map(|h| {
            let v = h.vertices.iter().map(|p| p.to_array().map(f32::to_bits)).collect();
            (v, h.triangles.clone(), h.source_triangles.clone(), h.flat, h.error.to_bits(), h.cap_error.to_bits())
        })
        .collect();
    let counts = [d.non_finite_triangles, d.degenerate_triangles, d.samples, d.protrusion_splits];
    (hulls, counts, d.quantization.to_bits())
}

/// `decompose` on the 1-thread and the 2-thread pool: the 1-thread result, and a problem when
/// the two differ in any bit (or one fails where the other does not).
fn decompose_both<T: TriangleSource + Sync + ?Sized>(
    mesh: &T,
    options: &DecomposeOptions,
    problems: &mut Vec<String>,
) -> Result<Decomposition, DecomposeError> {
    let [one, two] = pools();
    let run = |pool: &rayon::ThreadPool| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| pool.install(|| decompose(mesh, options))))
    };
    let (a, b) = match (run(one), run(two)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => {
            let message = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(ToString::to_string))
                .unwrap_or_default();
            problems.push(format!("panicked: {message}"));
            return Err(DecomposeError::InvalidOptions("(the test's marker for a panic)"));
        }
    };
    match (&a, &b) {
        (Ok(x), Ok(y)) if bits(x) != bits(y) => {
            let first = x.hulls.iter().zip(&y.hulls).position(|(p, q)| {
                p.source_triangles != q.source_triangles || p.vertices != q.vertices || p.triangles != q.triangles
            });
            problems.push(format!(
                "1 and 2 threads differ: {} vs {} hulls, first differing hull {first:?}",
                x.hulls.len(),
                y.hulls.len()
            ));
        }
        (Err(x), Err(y)) if x != y => problems.push(format!("1 thread: {x:?}, 2 threads: {y:?}")),
        (Ok(_), Err(e)) | (Err(e), Ok(_)) => problems.push(format!("one pool failed, the other did not: {e:?}")),
        _ => {}
    }
    a
}

/// Generalized winding number of a closed surface at `p` (sum of the triangles' solid angles,
/// Van Oosterom and Strackee): 1 inside an outward closed surface, 0 outside.
fn winding_number(p: DVec3, v: &[DVec3], triangles: &[[u32; 3]]) -> f64 {
    let mut total = 0.0;
    for t in triangles {
        let [a, b, c] = t.map(|k| v[k as usize] - p);
        let (la, lb, lc) = (a.length(), b.length(), c.length());
        let numerator = a.dot(b.cross(c));
        let denominator = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
        total += 2.0 * numerator.atan2(denominator);
    }
    total / (4.0 * std::f64::consts::PI)
}

/// A hull in `f64`, with its box.
struct DHull {
    v: Vec<DVec3>,
    t: Vec<[u32; 3]>,
    flat: bool,
    lo: DVec3,
    hi: DVec3,
    /// Each triangle's unit normal and a corner (triangles without area left out).
    planes: Vec<(DVec3, DVec3)>,
}

impl DHull {
    fn new(h: &convex_hacd::ConvexHull) -> Self {
        Self::from_parts(&h.vertices, &h.triangles, h.flat)
    }

    fn from_parts(vertices: &[Vec3], triangles: &[[u32; 3]], flat: bool) -> Self {
        let v: Vec<DVec3> = vertices.iter().map(|p| p.as_dvec3()).collect();
        let (lo, hi) = v.iter().fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), p| (lo.min(*p), hi.max(*p)));
        let planes = triangles
            .iter()
            .filter_map(|t| {
                let [a, b, c] = t.map(|i| v[i as usize]);
                let n = (b - a).cross(c - a);
                (n.length() > 0.0).then(|| (n / n.length(), a))
            })
            .collect();
        Self { v, t: triangles.to_vec(), flat, lo, hi, planes }
    }

    /// How far `p` is outside the hull: 0 inside a solid hull, else its distance to the surface
    /// (exact for a convex hull: the nearest point of the solid outside it is on its surface).
    fn outside(&self, p: DVec3, tolerance: f64) -> f64 {
        let gap = (self.lo - p).max(p - self.hi).max_element();
        if gap > tolerance {
            return gap;
        }
        // Behind every face's plane: in the kernel of the closed surface, so inside it.
        if !self.flat && !self.planes.is_empty() && self.planes.iter().all(|(n, a)| n.dot(p - *a) <= 0.0) {
            return 0.0;
        }
        let near = self
            .t
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|k| self.v[k as usize]);
                point_triangle_distance(p, a, b, c)
            })
            .fold(f64::INFINITY, f64::min);
        if near <= tolerance || self.flat || self.t.is_empty() {
            return near;
        }
        if winding_number(p, &self.v, &self.t) > 0.5 { 0.0 } else { near }
    }
}

/// What [`audit`] found: problems (empty when every promise holds) and the worst margins.
#[derive(Debug, Default)]
struct Audit {
    problems: Vec<String>,
    /// The farthest a source corner lies outside its hull, in units of `s`.
    worst_corner: f64,
    /// The farthest a hull vertex lies in front of a face's plane, in units of `s`.
    worst_plane: f64,
}

impl Audit {
    fn fail(&mut self, m: String) {
        if self.problems.len() < 12 {
            self.problems.push(m);
        }
    }
}

/// Checks promises 1-3 of the file's doc on `d`, the decomposition of `mesh` with `options`,
/// recomputing everything from the triangles in `f64`.
fn audit<T: TriangleSource + ?Sized>(mesh: &T, d: &Decomposition, options: &DecomposeOptions) -> Audit {
    let mut out = Audit::default();
    let n = mesh.triangle_count();
    let s = f64::from(d.quantization);
    let tolerance = 2.0 * s * (1.0 + 1e-6);
    let finite: Vec<bool> = (0..n as u32).map(|t| mesh.triangle_positions(t).iter().all(|p| p.is_finite())).collect();

    // `s`: `quantization / cube` of the largest side (1e-4 at the defaults), raised to the
    // float floor of the input.
    let (mut lo, mut hi, mut max_abs) = (DVec3::INFINITY, DVec3::NEG_INFINITY, 0.0f64);
    for t in (0..n as u32).filter(|&t| finite[t as usize]) {
        for p in mesh.triangle_positions(t) {
            let p = p.as_dvec3();
            (lo, hi, max_abs) = (lo.min(p), hi.max(p), max_abs.max(p.abs().max_element()));
        }
    }
    let side = (hi - lo).max_element();
    if side > 0.0 {
        let least = f64::from(options.quantization) / f64::from(options.cube) * side;
        let most = least.max(4.0 * f64::from(f32::EPSILON) * max_abs);
        if !(s >= least * (1.0 - 1e-5) && s <= most * (1.0 + 1e-5)) {
            out.fail(format!("s = {s} is not {least} (from the largest side {side}) or the float floor of {max_abs}"));
        }
    }
    let expected_non_finite = finite.iter().filter(|f| !**f).count();
    if d.non_finite_triangles != expected_non_finite {
        out.fail(format!(
            "non_finite_triangles {} where {expected_non_finite} have a bad corner",
            d.non_finite_triangles
        ));
    }

    // Promise 3: each kept triangle in exactly one hull, the rest counted.
    let mut owner = vec![usize::MAX; n];
    for (h, hull) in d.hulls.iter().enumerate() {
        if hull.source_triangles.is_empty() {
            out.fail(format!("hull {h} has no source triangle"));
        }
        if hull.source_triangles.windows(2).any(|w| w[0] >= w[1]) {
            out.fail(format!("hull {h}'s source triangles are not strictly ascending"));
        }
        for &t in &hull.source_triangles {
            match owner.get(t as usize) {
                None => out.fail(format!("hull {h} names triangle {t} of {n}")),
                Some(&o) if o != usize::MAX => out.fail(format!("triangle {t} is in hulls {o} and {h}")),
                Some(_) if !finite[t as usize] => out.fail(format!("hull {h} keeps non-finite triangle {t}")),
                Some(_) => owner[t as usize] = h,
            }
        }
    }
    // `Decomposition::hulls`: "in order of their lowest source triangle".
    let firsts: Vec<u32> = d.hulls.iter().filter_map(|h| h.source_triangles.first().copied()).collect();
    if firsts.windows(2).any(|w| w[0] >= w[1]) {
        out.fail("hulls are not in order of their lowest source triangle".to_string());
    }
    let placed = owner.iter().filter(|&&o| o != usize::MAX).count();
    if placed + d.degenerate_triangles + d.non_finite_triangles != n {
        out.fail(format!(
            "{placed} placed + {} degenerate + {} non-finite != {n} triangles",
            d.degenerate_triangles, d.non_finite_triangles
        ));
    }
    // A triangle whose every altitude exceeds 6 s cannot collapse within s: it must be placed.
    for t in (0..n as u32).filter(|&t| finite[t as usize] && owner[t as usize] == usize::MAX) {
        let [a, b, c] = mesh.triangle_positions(t).map(Vec3::as_dvec3);
        let longest = (b - a).length().max((c - b).length()).max((a - c).length());
        let altitude = (b - a).cross(c - a).length() / longest;
        if altitude > 6.0 * s {
            out.fail(format!("triangle {t} (altitude {:.1} s) is in no hull", altitude / s));
        }
    }

    // Promise 2: closed, convex, outward.
    let hulls: Vec<DHull> = d.hulls.iter().map(DHull::new).collect();
    let inputs: Vec<DVec3> = (0..mesh.vertex_count() as u32).map(|i| mesh.vertex(i).as_dvec3()).collect();
    for (h, hull) in hulls.iter().enumerate() {
        if hull.v.is_empty() || hull.t.is_empty() || hull.v.iter().any(|p| !p.is_finite()) {
            out.fail(format!("hull {h} is empty or has a non-finite vertex"));
            continue;
        }
        if hull.t.iter().flatten().any(|&i| i as usize >= hull.v.len()) {
            out.fail(format!("hull {h} has a triangle index out of range"));
            continue;
        }
        let mut directed: HashMap<(u32, u32), u32> = HashMap::new();
        for t in &hull.t {
            for k in 0..3 {
                *directed.entry((t[k], t[(k + 1) % 3])).or_default() += 1;
            }
        }
        if let Some((e, c)) = directed.iter().find(|&(&(a, b), &c)| c != 1 || directed.get(&(b, a)) != Some(&1)) {
            out.fail(format!("hull {h} (flat {}) is not a closed surface: edge {e:?} used {c} times", hull.flat));
        }
        let used: HashSet<u32> = hull.t.iter().flatten().copied().collect();
        if used.len() != hull.v.len() {
            out.fail(format!("hull {h}: {} of its {} vertices unused", hull.v.len() - used.len(), hull.v.len()));
        }
        // Hull vertices are input vertices after welding (within s of one).
        for (i, p) in hull.v.iter().enumerate() {
            let nearest = inputs.iter().map(|q| q.distance(*p)).fold(f64::INFINITY, f64::min);
            if nearest > s * (1.0 + 1e-6) {
                out.fail(format!("hull {h} vertex {i} is {:.2} s from every input vertex", nearest / s));
            }
        }
        let centroid = hull.v.iter().copied().sum::<DVec3>() / hull.v.len() as f64;
        let diameter = hull.v.iter().map(|p| p.distance(centroid)).fold(0.0, f64::max) * 2.0;
        let (mut volume6, mut area) = (0.0, DVec3::ZERO);
        for t in &hull.t {
            let [a, b, c] = t.map(|i| hull.v[i as usize]);
            volume6 += (a - centroid).dot((b - centroid).cross(c - centroid));
            let normal = (b - a).cross(c - a);
            area += normal;
            let longest = (b - a).length().max((c - b).length()).max((a - c).length());
            let height = normal.length() / longest;
            if height <= 4.0 * s {
                continue;
            }
            // A plane s thick: a triangle of altitude h with corners within it may tilt by 2 s / h.
            let (unit, mid) = (normal / normal.length(), (a + b + c) / 3.0);
            for (i, p) in hull.v.iter().enumerate() {
                let ahead = unit.dot(*p - mid);
                let allowed = s + 2.0 * s * p.distance(mid) / height + 1e-9 * diameter;
                out.worst_plane = out.worst_plane.max(ahead / s);
                if ahead > allowed {
                    out.fail(format!(
                        "hull {h}: vertex {i} is {:.3} s in front of triangle {t:?} (allowed {:.3} s)",
                        ahead / s,
                        allowed / s
                    ));
                }
            }
        }
        if !hull.flat && !(volume6 > 0.0) {
            out.fail(format!("solid hull {h} has signed volume {volume6} (inward or empty)"));
        }
        let total: f64 = hull
            .t
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| hull.v[i as usize]);
                (b - a).cross(c - a).length()
            })
            .sum();
        if hull.flat && area.length() > 1e-6 * total {
            out.fail(format!("flat hull {h}'s sides do not cancel: area sum {} of {total}", area.length()));
        }
    }

    // Promise 1: corners inside their own hull, vertices of kept triangles in some hull.
    let mut uncovered = Vec::new();
    for (h, hull) in d.hulls.iter().enumerate() {
        let corners: HashSet<u32> = hull.source_triangles.iter().flat_map(|&t| mesh.triangle(t)).collect();
        let mut corners: Vec<u32> = corners.into_iter().collect();
        corners.sort_unstable();
        for v in corners {
            let p = inputs[v as usize];
            let away = hulls[h].outside(p, tolerance);
            out.worst_corner = out.worst_corner.max(away / s);
            if away > tolerance {
                out.fail(format!(
                    "vertex {v} {p} of a source triangle of hull {h} (of {}) is {:.3} s outside it (tolerance 2 s, s = {s})",
                    d.hulls.len(),
                    away / s
                ));
                uncovered.push(v);
            }
        }
    }
    for v in uncovered {
        let p = inputs[v as usize];
        if hulls.iter().all(|hull| hull.outside(p, tolerance) > tolerance) {
            out.fail(format!("vertex {v} {p} of a kept triangle is in no hull"));
        }
    }
    out
}

/// How far the hulls stick out of a closed `mesh`, as a fraction of its bounding-box diagonal:
/// points on a barycentric grid over every hull triangle (about `budget` over all hulls, by
/// area), each outside the input when the input's winding number there is under one half in
/// magnitude (either orientation), and then as far out as its distance to the input surface.
fn farthest_out<T: TriangleSource + ?Sized>(mesh: &T, d: &Decomposition, budget: f64) -> f64 {
    let tris: Vec<[DVec3; 3]> = (0..mesh.triangle_count() as u32)
        .map(|t| mesh.triangle_positions(t).map(Vec3::as_dvec3))
        .filter(|c| c.iter().all(|p| p.is_finite()))
        .collect();
    let (lo, hi) =
        tris.iter().flatten().fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), p| (lo.min(*p), hi.max(*p)));
    let diagonal = (hi - lo).length();
    let flat: Vec<DVec3> = tris.iter().flatten().copied().collect();
    let indices: Vec<[u32; 3]> = (0..tris.len() as u32).map(|t| [3 * t, 3 * t + 1, 3 * t + 2]).collect();
    let area = |[a, b, c]: [DVec3; 3]| (b - a).cross(c - a).length() / 2.0;
    let hull_tris: Vec<[DVec3; 3]> =
        d.hulls.iter().flat_map(|h| h.triangles.iter().map(|t| t.map(|i| h.vertices[i as usize].as_dvec3()))).collect();
    let total: f64 = hull_tris.iter().map(|t| area(*t)).sum();
    let mut worst = 0.0f64;
    for t in &hull_tris {
        let k = ((area(*t) / total.max(f64::MIN_POSITIVE) * budget * 2.0).sqrt().ceil() as u32).clamp(1, 40);
        for i in 0..=k {
            for j in 0..=k - i {
                let (u, v) = (f64::from(i) / f64::from(k), f64::from(j) / f64::from(k));
                let p = t[0] + (t[1] - t[0]) * u + (t[2] - t[0]) * v;
                let near =
                    tris.iter().map(|[a, b, c]| point_triangle_distance(p, *a, *b, *c)).fold(f64::INFINITY, f64::min);
                if near <= worst * diagonal || near < 1e-9 * diagonal {
                    continue;
                }
                if winding_number(p, &flat, &indices).abs() < 0.5 {
                    worst = near / diagonal;
                }
            }
        }
    }
    worst
}

/// The farthest a hull may stick out of a closed input, as a fraction of its diagonal: the
/// docs of `DecomposeOptions::max_protrusion` call 2% "the promised 2%".
const PROMISED_FARTHEST: f64 = 0.02;

/// Decomposes `mesh` in both modes on both pools and audits each result: the problems found,
/// and the hull count in each mode. On a `closed` input, the hulls must also stay within
/// [`PROMISED_FARTHEST`] of it.
fn check(label: &str, mesh: &IndexedMesh, closed: bool) -> (Vec<String>, [usize; 2]) {
    let mut problems = Vec::new();
    let mut counts = [0; 2];
    for (k, (mode, options)) in modes().iter().enumerate() {
        let mut found = Vec::new();
        match decompose_both(mesh, options, &mut found) {
            Ok(d) => {
                let a = audit(mesh, &d, options);
                counts[k] = d.hulls.len();
                let out = if closed && !d.hulls.is_empty() { farthest_out(mesh, &d, 1200.0) } else { 0.0 };
                if out > PROMISED_FARTHEST {
                    found.push(format!("a hull sticks out {:.2}% of the diagonal (promised 2%)", 100.0 * out));
                }
                if std::env::var_os("UNSEEN_VERBOSE").is_some() {
                    eprintln!(
                        "{label} [{mode}]: {} triangles, {} hulls, s {:e}, worst corner {:.3} s, worst plane {:.3} s, \
                         out {:.2}%, skipped {}+{}",
                        mesh.triangle_count(),
                        d.hulls.len(),
                        d.quantization,
                        a.worst_corner,
                        a.worst_plane,
                        100.0 * out,
                        d.degenerate_triangles,
                        d.non_finite_triangles
                    );
                }
                found.extend(a.problems);
            }
            Err(e) => {
                if found.is_empty() {
                    found.push(format!("refused: {e:?}"));
                }
            }
        }
        problems.extend(found.into_iter().map(|p| format!("{label} [{mode}]: {p}")));
    }
    (problems, counts)
}

/// [`check`] over `cases`, failing with every problem found.
fn check_all(cases: Vec<(String, Shape)>, closed: bool) {
    let mut problems = Vec::new();
    for (label, shape) in cases {
        problems.extend(check(&label, &shape.mesh(), closed).0);
    }
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn the_generated_shapes_are_what_they_claim() {
    let mut rng = Rng(7);
    let closed = [
        ("sphere", uv_sphere(13, 9, 1.0)),
        ("capsule", capsule(0.5, 1.0, 12, 4)),
        ("rounded box", rounded_box(Vec3::new(1.0, 0.6, 0.4), 0.2, 6)),
        ("L", l_extrusion(0.7, 3, 2)),
        ("torus", torus(1.0, 0.3, 16, 8)),
        ("star", star_prism(&mut rng, 11, 0.4)),
        ("star ring", star_ring_prism(&mut rng, 13, 0.3)),
        ("plate", bent_plate(4.0, 1.0, 0.05, 1.2, 0.2, 12)),
        ("box", box_shell(Vec3::ONE, Vec3::new(1.0, 2.0, 3.0), rng.rotation())),
    ];
    for (label, shape) in &closed {
        assert!(shape.closed_and_consistent(), "{label} is not closed and consistently wound");
        assert!(shape.volume6() > 0.0, "{label} is not outward");
    }
    // Every cell prism is closed (it may be non-manifold at corner-touching cells: then an edge
    // is used twice each way) and outward.
    let cells = cell_prism(&mut rng, 6, 5, 0.6);
    assert!(cells.volume6() > 0.0);
    let union = box_union(&mut rng, 4);
    assert_eq!(union.triangles.len(), 48);
    assert!(union.volume6() > 0.0);
    assert!(!terrain(&mut rng, 6, 10.0, 1.0).closed_and_consistent());
}

#[test]
fn curved_closed_shapes_keep_every_promise() {
    check_all(
        vec![
            ("sphere 8x5".into(), uv_sphere(8, 5, 1.0)),
            ("sphere 23x11".into(), uv_sphere(23, 11, 2.5)),
            ("sphere 40x6 (long thin triangles)".into(), uv_sphere(40, 6, 1.0)),
            ("torus 24x8".into(), torus(1.0, 0.35, 24, 8)),
            ("torus 12x12 fat".into(), torus(1.0, 0.8, 12, 12)),
            ("torus 30x5 thin".into(), torus(2.0, 0.1, 30, 5)),
            ("capsule".into(), capsule(0.4, 1.5, 14, 4)),
            ("rounded box".into(), rounded_box(Vec3::new(1.5, 0.8, 0.3), 0.25, 6)),
        ],
        true,
    );
}

#[test]
fn box_unions_keep_every_promise() {
    let cases = (1..=6u64).map(|seed| (format!("box union seed {seed}"), box_union(&mut Rng(seed), 2 + seed as u32)));
    check_all(cases.collect(), true);
}

#[test]
fn extrusions_keep_every_promise() {
    let mut cases: Vec<(String, Shape)> = vec![("L".into(), l_extrusion(0.5, 4, 2))];
    for seed in 1..=3u64 {
        let mut rng = Rng(100 + seed);
        cases.push((format!("star prism seed {seed}"), star_prism(&mut rng, 9 + 4 * seed as u32, 0.3)));
        cases.push((format!("star ring seed {seed}"), star_ring_prism(&mut rng, 10 + 3 * seed as u32, 0.25)));
        cases.push((format!("cell prism seed {seed}"), cell_prism(&mut rng, 7, 6, 0.55)));
    }
    check_all(cases, true);
}

#[test]
fn thin_bent_plates_keep_every_promise() {
    check_all(
        vec![
            ("plate bent 60 degrees".into(), bent_plate(4.0, 1.5, 0.04, 1.05, 0.1, 16)),
            ("plate bent 150 degrees".into(), bent_plate(3.0, 1.0, 0.02, 2.6, 0.3, 20)),
            ("plate bent 10 degrees, 0.5% thick".into(), bent_plate(5.0, 2.0, 0.025, 0.17, 1.0, 12)),
        ],
        true,
    );
}

#[test]
fn open_terrain_sheets_keep_every_promise() {
    let cases = (1..=3u64).map(|seed| {
        let mut rng = Rng(200 + seed);
        (format!("terrain seed {seed}"), terrain(&mut rng, 8 + 4 * seed as u32, 32.0, 0.5 + seed as f32))
    });
    check_all(cases.collect(), false);
}

#[test]
fn inside_out_shells_get_the_partition_of_their_outward_twins() {
    let mut problems = Vec::new();
    let shapes = [
        ("sphere", uv_sphere(17, 9, 1.0)),
        ("torus", torus(1.0, 0.3, 20, 8)),
        ("L", l_extrusion(0.6, 3, 2)),
        ("box union", box_union(&mut Rng(31), 4)),
    ];
    for (label, shape) in shapes {
        let inward = shape.clone().flipped().mesh();
        problems.extend(check(&format!("{label} inside out"), &inward, true).0);
        for (mode, options) in modes() {
            let a = decompose(&shape.mesh(), &options).unwrap();
            let b = decompose(&inward, &options).unwrap();
            let parts = |d: &Decomposition| d.hulls.iter().map(|h| h.source_triangles.clone()).collect::<Vec<_>>();
            if parts(&a) != parts(&b) {
                problems.push(format!(
                    "{label} [{mode}]: inside out gives {} hulls, outward {}, partitions differ",
                    b.hulls.len(),
                    a.hulls.len()
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn non_manifold_fans_and_duplicates_keep_every_promise() {
    let mut cases = vec![("book of 3".into(), book(3, 1.0)), ("book of 7".into(), book(7, 2.0))];
    // A fan of three fins on an edge of a box.
    let mut finned = box_shell(Vec3::ZERO, Vec3::ONE, Quat::IDENTITY);
    finned.append(&book(3, 1.0).map(|p| p + Vec3::new(1.0, 1.0, -1.0)));
    cases.push(("box with a three-fin fan on an edge".into(), finned));
    // Every fifth triangle of a sphere twice (same indices), then a second copy with its own
    // vertices, then a double-sided square.
    let sphere = uv_sphere(14, 8, 1.0);
    let mut doubled = sphere.clone();
    doubled.triangles.extend(sphere.triangles.iter().step_by(5).copied());
    cases.push(("sphere with duplicated triangles".into(), doubled));
    let mut twice = sphere.clone();
    twice.append(&sphere);
    cases.push(("sphere twice, coincident".into(), twice));
    let mut twin_faced = rounded_box(Vec3::new(1.0, 1.0, 0.5), 0.2, 4);
    twin_faced.append(&twin_faced.clone().flipped());
    cases.push(("rounded box and its inside-out copy".into(), twin_faced));
    let square = Shape {
        positions: vec![Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.0), Vec3::Y],
        triangles: vec![[0, 1, 2], [0, 2, 3], [0, 2, 1], [0, 3, 2]],
    };
    cases.push(("double-sided square".into(), square));
    check_all(cases, false);
}

#[test]
fn scaled_and_translated_shapes_keep_every_promise() {
    let mut cases = Vec::new();
    let shapes = [
        ("sphere", uv_sphere(15, 8, 1.0)),
        ("torus", torus(1.0, 0.3, 18, 7)),
        ("L", l_extrusion(0.5, 2, 1)),
        ("box union", box_union(&mut Rng(41), 3)),
    ];
    for (label, shape) in shapes {
        cases.push((format!("{label} x 1e-3"), shape.clone().map(|p| p * 1e-3)));
        cases.push((format!("{label} x 1e4"), shape.clone().map(|p| p * 1e4)));
        cases.push((format!("{label} + 1e5"), shape.clone().map(|p| p + Vec3::new(1e5, -1e5, 1e5))));
    }
    check_all(cases, true);
}

/// The README: "A sealed cavity (a hollow part's inner shell) is filled": with an inward-wound
/// inner shell, points of the cavity (the inner shell's vertices pulled 5% towards the cavity's
/// core) are inside some hull, and every other promise holds. Hull counts are not promised:
/// the report lists them against the solid twin's.
#[test]
fn sealed_cavities_are_filled() {
    let mut problems = Vec::new();
    let core_of = |p: Vec3, torus: bool| if torus { (p * Vec3::new(1.0, 1.0, 0.0)).normalize() } else { Vec3::ZERO };
    let solids = [
        ("sphere", uv_sphere(18, 10, 1.0), uv_sphere(14, 8, 0.7), false),
        (
            "rounded box",
            rounded_box(Vec3::new(1.0, 0.8, 0.6), 0.2, 5),
            rounded_box(Vec3::new(0.8, 0.6, 0.4), 0.1, 4),
            false,
        ),
        ("torus", torus(1.0, 0.4, 20, 10), torus(1.0, 0.25, 16, 8), true),
    ];
    for (label, outer, inner, is_torus) in solids {
        let mut hollow = outer.clone();
        hollow.append(&inner.clone().flipped());
        let mesh = hollow.mesh();
        let (found, counts) = check(&format!("{label} hollow"), &mesh, false);
        problems.extend(found);
        let (_, solid) = check(&format!("{label} solid"), &outer.mesh(), true);
        if std::env::var_os("UNSEEN_VERBOSE").is_some() {
            eprintln!("{label}: hollow {counts:?} hulls (defaults, surface), solid {solid:?}");
        }
        for (mode, options) in modes() {
            let d = decompose(&mesh, &options).unwrap();
            let hulls: Vec<DHull> = d.hulls.iter().map(DHull::new).collect();
            let tolerance = 2.0 * f64::from(d.quantization);
            for p in &inner.positions {
                let q = p.lerp(core_of(*p, is_torus), 0.05).as_dvec3();
                if hulls.iter().all(|h| h.outside(q, tolerance) > tolerance) {
                    problems.push(format!("{label} [{mode}]: cavity point {q} is in no hull"));
                    break;
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A triangle source with indices out of range.
struct Indices(Vec<[u32; 3]>);

impl TriangleSource for Indices {
    fn vertex_count(&self) -> usize {
        4
    }
    fn vertex(&self, index: u32) -> Vec3 {
        [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z][index as usize]
    }
    fn triangle_count(&self) -> usize {
        self.0.len()
    }
    fn triangle(&self, index: u32) -> [u32; 3] {
        self.0[index as usize]
    }
}

#[test]
fn bad_input_gives_an_error_or_the_documented_counts() {
    let mut problems = Vec::new();
    // Out-of-range indices: a typed error, never a panic.
    for t in [[0, 1, 4], [0, u32::MAX, 2], [7, 7, 7]] {
        let bad = Indices(vec![[0, 2, 1], [0, 1, 3], t]);
        for (mode, options) in modes() {
            match decompose_both(&bad, &options, &mut problems) {
                Err(DecomposeError::Mesh(_)) => {}
                other => problems.push(format!("index {t:?} [{mode}]: {:?}", other.map(|d| d.hulls.len()))),
            }
        }
    }
    // Empty: no hull, no count.
    for (label, mesh) in [
        ("empty", IndexedMesh::default()),
        ("vertices, no triangle", IndexedMesh::new(vec![Vec3::ONE; 5], vec![]).unwrap()),
    ] {
        for (mode, options) in modes() {
            match decompose_both(&mesh, &options, &mut problems) {
                Ok(d) if d.hulls.is_empty() && d.non_finite_triangles == 0 && d.degenerate_triangles == 0 => {}
                other => problems.push(format!("{label} [{mode}]: {:?}", other.map(|d| d.hulls.len()))),
            }
        }
    }
    // NaN and infinite corners on a sphere: those triangles counted, the rest audited.
    let sphere = uv_sphere(16, 9, 1.0);
    let mut spoiled = sphere.clone();
    spoiled.positions[5] = Vec3::new(f32::NAN, 0.0, 0.0);
    spoiled.positions[40] = Vec3::new(0.0, f32::INFINITY, 0.0);
    spoiled.positions[77] = Vec3::splat(f32::NEG_INFINITY);
    problems.extend(check("sphere with NaN and infinite corners", &spoiled.mesh(), false).0);
    // Only NaN triangles: all counted, no hull.
    let nan = IndexedMesh::new(vec![Vec3::NAN; 3], vec![[0, 1, 2]; 3]).unwrap();
    for (mode, options) in modes() {
        match decompose_both(&nan, &options, &mut problems) {
            Ok(d) if d.hulls.is_empty() && d.non_finite_triangles == 3 => {}
            other => problems.push(format!("all NaN [{mode}]: {:?}", other.map(|d| d.non_finite_triangles))),
        }
    }
    // Zero-area triangles beside a torus: a repeated corner, three collinear corners, and a
    // corner within s/10 of the opposite edge: all three counted as degenerate.
    let mut torn = torus(1.0, 0.3, 16, 8);
    let base = torn.positions.len() as u32;
    torn.positions.extend([Vec3::new(3.0, 0.0, 0.0), Vec3::new(4.0, 0.0, 0.0), Vec3::new(5.0, 0.0, 0.0)]);
    torn.positions.push(Vec3::new(3.5, 1e-5, 0.0));
    torn.triangles.extend([[0, 0, 1], [base, base + 1, base + 2], [base, base + 2, base + 3]]);
    let mesh = torn.mesh();
    problems.extend(check("torus with zero-area triangles", &mesh, true).0);
    let d = decompose(&mesh, &DecomposeOptions::default()).unwrap();
    if d.degenerate_triangles != 3 {
        problems.push(format!("torus with zero-area triangles: {} degenerate, 3 made", d.degenerate_triangles));
    }
    // Only degenerate triangles: no hull.
    let flat = IndexedMesh::new(vec![Vec3::ZERO, Vec3::X, Vec3::X * 2.0], vec![[0, 1, 2], [2, 1, 0]]).unwrap();
    for (mode, options) in modes() {
        match decompose_both(&flat, &options, &mut problems) {
            Ok(d) if d.hulls.is_empty() && d.degenerate_triangles == 2 => {}
            other => problems.push(format!("collinear only [{mode}]: {:?}", other.map(|d| d.degenerate_triangles))),
        }
    }
    // Extreme scales and a mesh far from the origin.
    let torus = torus(1.0, 0.3, 16, 8);
    let l = l_extrusion(0.5, 2, 1);
    for (label, shape) in [
        ("sphere x 1e30", sphere.clone().map(|p| p * 1e30)),
        ("torus x 1e30", torus.clone().map(|p| p * 1e30)),
        ("sphere x 1e-30", sphere.clone().map(|p| p * 1e-30)),
        ("L x 1e-30", l.clone().map(|p| p * 1e-30)),
        ("sphere of radius 1000 at 1e7", sphere.clone().map(|p| p * 1000.0 + Vec3::splat(1e7))),
        ("torus of radius 100 at 1e7", torus.clone().map(|p| p * 100.0 + Vec3::new(1e7, 0.0, -1e7))),
        // Radius 1 at 1e7: the corners round to a lattice one unit apart; what is left must
        // still be covered or counted.
        ("sphere of radius 1 at 1e7", sphere.clone().map(|p| p + Vec3::splat(1e7))),
        ("sphere x 3e38 (near f32::MAX)", sphere.clone().map(|p| p * 3e38)),
    ] {
        problems.extend(check(label, &shape.mesh(), !label.contains("radius 1 at")).0);
    }
    // A unit torus beside one triangle 1e30 away: s follows the largest side, so the torus
    // collapses within s; every triangle must still be placed or counted.
    let mut lonely = torus.clone();
    let base = lonely.positions.len() as u32;
    lonely.positions.extend([Vec3::splat(1e30), Vec3::new(1e30, 2e30, 1e30), Vec3::new(2e30, 1e30, 1e30)]);
    lonely.triangles.push([base, base + 1, base + 2]);
    problems.extend(check("unit torus and a triangle at 1e30", &lonely.mesh(), false).0);
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
}

/// Promise 6: each shape missing 1-3 random triangles gets at most twice the hulls of the closed
/// shape at the defaults (the README: "a part with holes gets about the hulls of its closed
/// twin"), and every other promise still holds on it in both modes.
#[test]
fn almost_closed_shapes_decompose_like_their_closed_twins() {
    let shapes = [
        ("sphere", uv_sphere(20, 12, 1.0)),
        ("capsule", capsule(0.5, 1.0, 14, 4)),
        ("rounded box", rounded_box(Vec3::new(1.0, 0.7, 0.5), 0.2, 5)),
        ("L", l_extrusion(0.6, 4, 3)),
    ];
    let mut problems = Vec::new();
    let mut rng = Rng(2026);
    for (label, shape) in shapes {
        let (found, closed) = check(&format!("{label} closed"), &shape.mesh(), true);
        problems.extend(found);
        for missing in [1, 2, 3] {
            let mut removed = Vec::new();
            while removed.len() < missing {
                let t = rng.below(shape.triangles.len());
                if !removed.contains(&t) {
                    removed.push(t);
                }
            }
            let open = shape.without(&removed);
            let name = format!("{label} without {removed:?}");
            let (found, counts) = check(&name, &open.mesh(), false);
            problems.extend(found);
            if counts[0] > 2 * closed[0].max(1) {
                problems.push(format!("{name} [defaults]: {} hulls, closed twin {}", counts[0], closed[0]));
            }
        }
    }
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
}

/// One random shape of the kinds above, from a kind, a seed and a transform: its label, the
/// shape, whether it is closed, and the closed twin of a shape missing triangles.
fn random_shape(kind: u8, seed: u64, transform: u8) -> (String, Shape, bool, Option<Shape>) {
    let mut rng = Rng(seed);
    let mut g = Rng(seed ^ 0x5eed_5eed_5eed_5eed);
    let (label, shape) = match kind {
        0 => ("sphere", uv_sphere(5 + rng.below(20) as u32, 3 + rng.below(10) as u32, rng.range(0.5, 2.0))),
        1 => ("torus", torus(1.0, rng.range(0.05, 0.8), 6 + rng.below(20) as u32, 3 + rng.below(8) as u32)),
        2 => ("box union", box_union(&mut g, 2 + rng.below(5) as u32)),
        3 => ("star prism", star_prism(&mut g, 5 + rng.below(14) as u32, rng.range(0.05, 1.0))),
        4 => ("star ring", star_ring_prism(&mut g, 6 + rng.below(14) as u32, rng.range(0.05, 0.6))),
        5 => ("cell prism", cell_prism(&mut g, 3 + rng.below(6) as i32, 3 + rng.below(6) as i32, 0.6)),
        6 => {
            let (angle, thickness) = (rng.range(0.1, 2.8), rng.range(0.01, 0.2));
            ("bent plate", bent_plate(4.0, 1.0, thickness, angle, rng.range(0.05, 1.0), 8 + rng.below(10) as i32))
        }
        7 => ("terrain", terrain(&mut g, 4 + rng.below(10) as u32, 20.0, rng.range(0.1, 4.0))),
        8 => ("capsule", capsule(0.5, rng.range(0.1, 2.0), 6 + rng.below(12) as u32, 2 + rng.below(4) as u32)),
        _ => {
            let r = rng.range(0.05, 0.45);
            (
                "rounded box",
                rounded_box(Vec3::new(1.0, rng.range(0.5, 1.5), rng.range(0.5, 1.0)), r, 2 + rng.below(5) as i32),
            )
        }
    };
    // Some shapes lose one to four triangles (then the closed shape is their twin), some are
    // turned inside out.
    let (shape, closed, twin) = match rng.below(4) {
        0 if shape.triangles.len() > 8 => {
            let mut removed: Vec<usize> = (0..1 + rng.below(3)).map(|_| rng.below(shape.triangles.len())).collect();
            // Half the time the last one touches the first at a corner or an edge (a pinched
            // or folded hole, which the lids once mishandled).
            if rng.below(2) == 0 {
                let first = shape.triangles[removed[0]];
                let touching: Vec<usize> = (0..shape.triangles.len())
                    .filter(|&t| t != removed[0] && shape.triangles[t].iter().any(|v| first.contains(v)))
                    .collect();
                if !touching.is_empty() {
                    removed.push(touching[rng.below(touching.len())]);
                }
            }
            (shape.without(&removed), false, (kind != 7).then_some(shape))
        }
        1 => (shape.flipped(), kind != 7, None),
        _ => (shape, kind != 7, None),
    };
    let rotation = rng.rotation();
    let place = |shape: Shape| {
        let shape = shape.map(|p| rotation * p);
        match transform {
            0 => shape,
            1 => shape.map(|p| p * 1e-3),
            2 => shape.map(|p| p * 1e4),
            _ => shape.map(|p| p + Vec3::new(1e5, 3e4, -1e5)),
        }
    };
    let name = ["", " x 1e-3", " x 1e4", " + 1e5"][transform.min(3) as usize];
    let label = format!("{label} kind {kind} seed {seed}{name}{}", if twin.is_some() { " (open)" } else { "" });
    (label, place(shape), closed, twin.map(place))
}

/// Whether `shape`'s holes are clearly small: at most 4% of its edges on a boundary, and each
/// hole (boundary edges joined at their corners) closed by a fan from its centre of at most 4%
/// of the shape's area. The crate's own bounds for a part "closed but for small holes" are 5%
/// (`CLOSED_ENOUGH` and `LIDS_ENOUGH` in `src/quantize.rs`, each lid and all of them together);
/// the README gives no number. The margin keeps holes near the bound out (a capsule's cylinder
/// triangle of 5.01% of its area split it into 3-4 hulls, as a hole too large to be lidded).
fn small_holes(shape: &Shape) -> bool {
    let mut uses: HashMap<(u32, u32), u32> = HashMap::new();
    for t in &shape.triangles {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            *uses.entry((a.min(b), a.max(b))).or_default() += 1;
        }
    }
    let rims: Vec<(u32, u32)> = shape
        .triangles
        .iter()
        .flat_map(|t| (0..3).map(move |k| (t[k], t[(k + 1) % 3])))
        .filter(|&(a, b)| uses[&(a.min(b), a.max(b))] == 1)
        .collect();
    if rims.len() as f64 > 0.04 * uses.len() as f64 {
        return false;
    }
    let p = |i: u32| shape.positions[i as usize].as_dvec3();
    let area: f64 = shape
        .triangles
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(p);
            (b - a).cross(c - a).length() / 2.0
        })
        .sum();
    // Holes: rim edges joined by shared corners (union-find over corners).
    let mut parent: HashMap<u32, u32> = HashMap::new();
    fn root(parent: &mut HashMap<u32, u32>, mut x: u32) -> u32 {
        while let Some(&up) = parent.get(&x).filter(|&&up| up != x) {
            x = up;
        }
        x
    }
    for &(a, b) in &rims {
        parent.entry(a).or_insert(a);
        parent.entry(b).or_insert(b);
        let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
        parent.insert(ra.max(rb), ra.min(rb));
    }
    let mut holes: HashMap<u32, Vec<(u32, u32)>> = HashMap::new();
    for &(a, b) in &rims {
        holes.entry(root(&mut parent, a)).or_default().push((a, b));
    }
    holes.values().all(|edges| {
        let centre = edges.iter().map(|&(a, _)| p(a)).sum::<DVec3>() / edges.len() as f64;
        let fan: f64 = edges.iter().map(|&(a, b)| (p(b) - centre).cross(p(a) - centre).length() / 2.0).sum();
        fan <= 0.04 * area
    })
}

/// [`check`] on a random shape, and for one missing triangles (small holes only, see
/// [`small_holes`]), the README's "a part with holes gets about the hulls of its closed twin"
/// as at most twice the twin's hulls at the defaults.
fn check_random(kind: u8, seed: u64, transform: u8) -> Vec<String> {
    let (label, shape, closed, twin) = random_shape(kind, seed, transform);
    let (mut problems, counts) = check(&label, &shape.mesh(), closed);
    if let Some(twin) = twin.filter(|_| small_holes(&shape)) {
        let mut ignored = Vec::new();
        if let Ok(d) = decompose_both(&twin.mesh(), &DecomposeOptions::default(), &mut ignored) {
            if counts[0] > 2 * d.hulls.len().max(1) {
                problems.push(format!("{label} [defaults]: {} hulls, its closed twin {}", counts[0], d.hulls.len()));
            }
        }
    }
    problems
}

fn cases() -> u32 {
    std::env::var("UNSEEN_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(16)
}

/// The property tests' seed: fixed, so that the default run is the same every time (with a
/// random seed, a defect found by a longer run would fail CI now and then, as about 1 case in
/// 400 did before the fixes of d120a4d and 6574f16); `UNSEEN_SEED` picks another.
fn rng_seed() -> proptest::test_runner::RngSeed {
    let seed = std::env::var("UNSEEN_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(20261129);
    proptest::test_runner::RngSeed::Fixed(seed)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        rng_seed: rng_seed(),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Every promise on random shapes of every kind, rotated, some open, some inside out, some
    /// scaled or moved far from the origin.
    #[test]
    fn random_shapes_keep_every_promise(kind in 0u8..10, seed in any::<u64>(), transform in 0u8..4) {
        let problems = check_random(kind, seed, transform);
        prop_assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 4 * cases(),
        rng_seed: rng_seed(),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// `convex_hull` on the vertices of the same random shapes (and on them squashed flat or
    /// onto a line): a typed error, or a closed convex outward hull of input points with every
    /// input point inside it or within `Hull::tolerance` of it ("no input point lies farther
    /// than this outside the hull").
    #[test]
    fn convex_hull_of_random_shape_vertices(kind in 0u8..10, seed in any::<u64>(), transform in 0u8..4, squash in 0u8..4) {
        let (label, shape, _, _) = random_shape(kind, seed, transform);
        let points: Vec<Vec3> = match squash {
            0 => shape.positions.clone(),
            1 => shape.positions.iter().map(|p| Vec3::new(p.x, p.y, p.z * 1e-6)).collect(),
            2 => shape.positions.iter().map(|p| Vec3::new(p.x, p.x * 0.5, -p.x)).collect(),
            _ => shape.positions.iter().flat_map(|p| [*p, *p, *p * 1.000_001]).collect(),
        };
        match convex_hull(&points) {
            Err(HullError::Collinear | HullError::AllCoincident) if squash == 2 => {}
            Err(e) => prop_assert!(false, "{label} squash {squash}: {e:?}"),
            Ok(hull) => {
                let problems = hull_problems(&points, &hull);
                prop_assert!(problems.is_empty(), "{label} squash {squash}: {problems:#?}");
            }
        }
    }
}

/// What is wrong with `hull` as the convex hull of `points` (empty when nothing is).
fn hull_problems(points: &[Vec3], hull: &convex_hacd::Hull) -> Vec<String> {
    let mut problems = Vec::new();
    let set: HashSet<[u32; 3]> = points.iter().map(|p| p.to_array().map(f32::to_bits)).collect();
    if hull.vertices.iter().any(|v| !set.contains(&v.to_array().map(f32::to_bits))) {
        problems.push("a hull vertex is not an input point".to_string());
    }
    let dh = DHull::from_parts(&hull.vertices, &hull.triangles, hull.flat);
    let tolerance = f64::from(hull.tolerance) * (1.0 + 1e-6);
    for (i, p) in points.iter().enumerate() {
        let away = dh.outside(p.as_dvec3(), tolerance);
        if away > tolerance {
            problems.push(format!("point {i} {p} is {away} outside (tolerance {})", hull.tolerance));
            break;
        }
    }
    let centroid = dh.v.iter().copied().sum::<DVec3>() / dh.v.len().max(1) as f64;
    let volume6: f64 =
        dh.t.iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| dh.v[i as usize] - centroid);
                a.dot(b.cross(c))
            })
            .sum();
    if !hull.flat && !(volume6 > 0.0) {
        problems.push(format!("signed volume {volume6}"));
    }
    problems
}

/// The long run: `UNSEEN_CASES` (default 200) random shapes as in the property test, every
/// problem listed instead of stopping at the first (`cargo test -p convex-hacd --test
/// unseen_meshes -- --ignored survey --nocapture`).
#[test]
#[ignore = "long run, by hand"]
fn survey_random_shapes() {
    let n: u64 = std::env::var("UNSEEN_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(200);
    let mut rng = Rng(std::env::var("UNSEEN_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(1));
    let mut failed = Vec::new();
    let mut by_kind = [[0u32; 2]; 10];
    for case in 0..n {
        let (kind, seed, transform) = (rng.below(10) as u8, rng.next_u64(), rng.below(4) as u8);
        let problems = check_random(kind, seed, transform);
        by_kind[kind as usize][usize::from(!problems.is_empty())] += 1;
        if !problems.is_empty() {
            eprintln!("case {case} FAILED: {}", problems.join("\n    "));
            failed.push(format!("kind {kind} seed {seed} transform {transform}"));
        }
    }
    eprintln!("{} of {n} cases passed; by kind [passed, failed]: {by_kind:?}", n as usize - failed.len());
    assert!(failed.is_empty(), "{} failed: {failed:#?}", failed.len());
}

/// Found by this audit (fixed in 10a3b5f): the concavity phase's region scan could disagree
/// with the whole scan of the same merged hull when `s` is coarse in working units, either way,
/// and the debug assertion in `evaluate` then panicked (debug builds: `cargo test`, users' debug
/// builds): a 72-triangle capsule at the origin with `quantization` 5 to 8 ("region scan 8.03
/// against full scan 5"); the same capsule at the defaults moved to x = 1e5, where `s` is raised
/// to the float floor (7.15 working units; "8.86 against 7.15"); and a rotated 76-triangle cell
/// prism at 1e5 (`s` 7.1 working units) where the region scan missed a concavity the whole scan
/// finds ("7.12 against 398.47": in release builds such a merge was costed within the limit).
#[test]
fn a_coarse_quantization_does_not_trip_the_region_scan() {
    let capsule = capsule(0.5, 2.0, 6, 3);
    assert_eq!(capsule.triangles.len(), 72);
    let coarse = DecomposeOptions { quantization: 5.0, ..Default::default() };
    let far = capsule.clone().map(|p| p + Vec3::new(1e5, 0.0, 0.0));
    let (_, prism, _, _) = random_shape(5, 10929933143553468632, 3);
    assert_eq!(prism.triangles.len(), 76);
    let mut problems = Vec::new();
    for (label, mesh, options) in [
        ("quantization 5", capsule.mesh(), coarse),
        ("at x = 1e5", far.mesh(), DecomposeOptions::default()),
        ("cell prism at 1e5", prism.mesh(), DecomposeOptions::default()),
    ] {
        let mut found = Vec::new();
        match decompose_both(&mesh, &options, &mut found) {
            Ok(d) => found.extend(audit(&mesh, &d, &options).problems),
            Err(e) if found.is_empty() => found.push(format!("{e}")),
            Err(_) => {}
        }
        problems.extend(found.into_iter().map(|p| format!("{label}: {p}")));
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

/// With `s` near or above the concavity limit in working units (`quantization` 12 against
/// `concavity` 10 at the origin, or the float floor of a 2-unit sphere 7e4 from the origin at
/// the defaults, s = 12.5 working units), a 64-triangle UV sphere missing one triangle (a small
/// hole: 3 of 96 edges) keeps the closed sphere's 1 hull. Found by this audit: it got 5 to 9
/// (fixed in d120a4d, which keeps the concavity limit at least 2 s).
#[test]
fn a_small_hole_with_a_coarse_quantization_keeps_the_hull_count() {
    let sphere = uv_sphere(8, 5, 1.0);
    assert_eq!(sphere.triangles.len(), 64);
    let coarse = DecomposeOptions { quantization: 12.0, ..Default::default() };
    let far = sphere.clone().map(|p| p + Vec3::new(7e4, 0.0, 0.0));
    let mut problems = Vec::new();
    for (label, shape, options) in
        [("quantization 12", sphere, coarse), ("at x = 7e4", far, DecomposeOptions::default())]
    {
        let closed = decompose(&shape.mesh(), &options).unwrap().hulls.len();
        for k in [0, 33] {
            let open = shape.without(&[k]);
            assert!(small_holes(&open));
            let d = decompose(&open.mesh(), &options).unwrap();
            if d.hulls.len() > 2 * closed {
                problems.push(format!(
                    "{label}, triangle {k} removed: {} hulls ({} splits), closed {closed}",
                    d.hulls.len(),
                    d.protrusion_splits
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

/// A closed convex shape missing two triangles that touch at one corner (a pinched rim), or
/// that share an edge across a bend, keeps its closed twin's hull count in both modes. Found by
/// this audit (fixed in 6574f16): the protrusion check split a 144-triangle UV sphere (12 x 7)
/// without triangles 48 and 75 into 5 hulls (28 in the other mode), a 108-triangle rounded box
/// without 3 and 37 into 7, without 2 and 43 (sharing an edge) into 5; 39 of the sphere's 660
/// corner-sharing pairs and 50 of the rounded box's 624 touching pairs gave more than 2 hulls.
/// Here those three in both modes (audited), and every 20th touching pair at the defaults.
#[test]
fn two_missing_triangles_touching_at_a_corner_do_not_shatter_a_closed_shape() {
    let sphere = uv_sphere(12, 7, 1.0);
    let rounded = rounded_box(Vec3::new(1.0, 0.5, 0.5), 0.25, 3);
    assert_eq!((sphere.triangles.len(), rounded.triangles.len()), (144, 108));
    let mut problems = Vec::new();
    let mut cases = vec![("sphere", &sphere, [48, 75], true), ("rounded box", &rounded, [3, 37], true)];
    cases.push(("rounded box", &rounded, [2, 43], true));
    for (label, shape) in [("sphere", &sphere), ("rounded box", &rounded)] {
        let touching = (0..shape.triangles.len()).flat_map(|a| (a + 1..shape.triangles.len()).map(move |b| [a, b]));
        let touching = touching.filter(|[a, b]| shape.triangles[*a].iter().any(|v| shape.triangles[*b].contains(v)));
        cases.extend(touching.step_by(20).map(|pair| (label, shape, pair, false)));
    }
    let mut closed_counts: HashMap<(&str, &str), usize> = HashMap::new();
    for (label, shape, removed, both_modes) in cases {
        let open = shape.without(&removed);
        assert!(small_holes(&open));
        for (mode, options) in modes().into_iter().take(if both_modes { 2 } else { 1 }) {
            let closed = *closed_counts
                .entry((label, mode))
                .or_insert_with(|| decompose(&shape.mesh(), &options).unwrap().hulls.len());
            let d = decompose(&open.mesh(), &options).unwrap();
            if both_modes {
                problems.extend(audit(&open.mesh(), &d, &options).problems);
            }
            if d.hulls.len() > 2 * closed {
                problems.push(format!(
                    "{label} without {removed:?} [{mode}]: {} hulls ({} splits), closed {closed}",
                    d.hulls.len(),
                    d.protrusion_splits
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

/// A shape with a small hole 1e5 from the origin, where `s` is raised to its float floor
/// (0.036, 13-16 working units for these 2-4 unit shapes), keeps its closed twin's hull count
/// within 2x at the defaults. With the concavity limit floored at 2 `s` it got 2 to 8 times the
/// closed twin's hulls, with no protrusion split (the merge phases refused them: the `f32`
/// input rounds the corners by a good part of `s` there): a rotated bent plate
/// (`bent_plate(4, 1, 0.176, 1.79, 0.094, 13)`, 220 triangles) at (1e5, 3e4, -1e5) missing
/// triangle 109, 5 hulls against 2; three rotated rounded boxes missing one or two triangles, 7,
/// 8 and 8 against 1. All from the survey (4 of its 2000 cases with seed 7).
#[test]
fn a_small_hole_far_from_the_origin_keeps_the_hull_count() {
    let mut problems = Vec::new();
    let (_, _, _, plate) = random_shape(6, 157637049648583420, 3);
    let plate = plate.expect("this seed removes triangles");
    assert_eq!(plate.triangles.len(), 220);
    let mut cases = vec![("bent plate without 109".to_string(), plate.without(&[109]), plate)];
    for seed in [6353848000608806813, 14097673519832249638, 10761944429842877217] {
        let (label, open, _, closed) = random_shape(9, seed, 3);
        cases.push((label, open, closed.expect("this seed removes triangles")));
    }
    for (label, open, closed) in cases {
        assert!(small_holes(&open), "{label}");
        let whole = decompose(&closed.mesh(), &DecomposeOptions::default()).unwrap();
        let d = decompose_both(&open.mesh(), &DecomposeOptions::default(), &mut problems).unwrap();
        problems.extend(audit(&open.mesh(), &d, &DecomposeOptions::default()).problems);
        if d.hulls.len() > 2 * whole.hulls.len() {
            problems.push(format!(
                "{label}: {} hulls ({} splits), closed {}",
                d.hulls.len(),
                d.protrusion_splits,
                whole.hulls.len()
            ));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}
