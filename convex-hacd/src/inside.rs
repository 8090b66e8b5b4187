//! Whether a point away from the input surface lies inside the input, for the distance phase
//! ([`DecomposeOptions::merge_distance`](crate::DecomposeOptions)): a merged hull's new surface
//! that runs through the inside of a solid part (a cut through a bunny's body between two of its
//! hulls) does not stick out, however far it lies from the surface.
//!
//! A ray from a point crosses the surface when it leaves it more often than it enters it, or
//! the other way round (a signed count of the triangles crossed, by their facing): from inside a
//! closed part every ray counts one, from outside none, and a double-sided sheet's two faces
//! cancel. Where every part of the input is closed (and faces outward) and no edge is a rim (used
//! by unequal numbers of triangles in its two directions: see [`rims`]), the ray up `x` decides.
//! Elsewhere a ray can leave through a hole, so the rays up `x`, `y` and `z` decide when they
//! agree, and when they do not, the six rays up and down the axes vote: inside when two thirds
//! of the rays that vote cross. An inside point near a hole (one ray out through it) is still
//! inside; an outside point is called inside only when most of its rays enter through holes. A
//! ray through an edge shared by two triangles crosses one of them (rasterization's top-left
//! rule, with each edge's function computed in one order for both; an edge used by two pairs, as
//! where two voxels touch along it, gives one crossing per pair); in the vote, an axis whose ray
//! crosses a triangle on a rim edge or a corner on a rim abstains, as the rule has no partner
//! triangle there, and a ray up an axis that meets a rim sends the point to the vote.
//!
//! Each axis has a grid of columns across the other two; a column lists the triangles whose
//! projection may overlap it, so a ray reads one list (and the short list of big triangles).
//! Most points the distance phase asks about lie deep inside a part or well outside it: a
//! coarse grid of cells (64 across the box) marks the cells that some triangle's plane may meet,
//! and a point in any other cell takes the answer at its cell's centre, tested once
//! ([`Inside::quick`]). (The winding number, which the scorer uses,
//! cost 63 000 instructions per point on angle-block; a ray walk through the scorer's 3D grid,
//! where long CAD triangles fill many cells, cost 45 000.)

use std::sync::atomic::{AtomicU8, Ordering};

use glam::DVec3;

use crate::metrics::bounds;

/// The most columns per axis of a grid.
const MAX_COLUMNS: usize = 256;

/// A triangle covering more columns than this goes to the list every ray reads (the
/// [`MAX_BIG`] covering the most).
const BIG: usize = 256;

/// The most triangles in the list every ray reads.
const MAX_BIG: usize = 64;

/// A triangle in a column's list: its box across the axis and its highest coordinate along it
/// (the lists run from the highest down, so a ray stops reading at the first below its start).
///
/// In `f32`, rounded outward (the box and the top only filter: the crossing itself is decided
/// from the corners in `f64`): 24 bytes instead of 48, which halves the lists' memory (8 MB on
/// featuretype's three grids) and the cache lines a ray reads.
#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    top: f32,
    lo: [f32; 2],
    hi: [f32; 2],
    triangle: u32,
}

impl Entry {
    /// The lists' order: the highest triangle first, ties by index.
    fn by_top(a: &Entry, b: &Entry) -> std::cmp::Ordering {
        b.top.total_cmp(&a.top).then(a.triangle.cmp(&b.triangle))
    }
}

/// `x` as the nearest `f32` at or below it (at or above it with `up`); infinite past the `f32`
/// range, which the working cube's coordinates never reach.
fn round_f32(x: f64, up: bool) -> f32 {
    let r = x as f32;
    let r64 = f64::from(r);
    if up && r64 < x {
        r.next_up()
    } else if !up && r64 > x {
        r.next_down()
    } else {
        r
    }
}

/// The triangles by column, for rays along one axis.
struct Columns {
    /// The corner of the grid, in the axes across (`u = axis + 1`, `v = axis + 2`, mod 3).
    lo: [f64; 2],
    inv_cell: [f64; 2],
    dims: [usize; 2],
    /// `start[c]..start[c + 1]` index `entries`, the triangles (but the big ones) whose
    /// projection may overlap column `c` (`u` fastest), highest first.
    start: Vec<u32>,
    entries: Vec<Entry>,
    /// The triangles covering the most columns (over [`BIG`]), read by every ray (highest
    /// first): a few big faces would otherwise coarsen the whole grid.
    big: Vec<Entry>,
    /// Each triangle's corners as `[u, v, axis]` coordinates.
    corners: Vec<[[f64; 3]; 3]>,
    /// Per triangle, bit `k`: its edge from corner `k` to corner `k + 1` is a rim (see [`rims`]);
    /// bit `3 + k`: its corner `k` lies on such an edge.
    rims: Vec<u8>,
}

impl Columns {
    fn new(tris: &[[DVec3; 3]], rims: &[u8], axis: usize, lo: DVec3, hi: DVec3) -> Self {
        let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
        let extent = (hi[u] - lo[u]).max(hi[v] - lo[v]).max(f64::MIN_POSITIVE);
        let corners: Vec<[[f64; 3]; 3]> = tris.iter().map(|t| t.map(|p| [p[u], p[v], p[axis]])).collect();
        let (lo2, hi2) = ([lo[u], lo[v]], [hi[u], hi[v]]);
        // The columns of a triangle at `side` columns across the longer extent, row by row: for
        // each row of cells its projection meets, `f(row, first, last)` with the columns that the
        // part of it within the row's band spans. Band and span are widened by a millionth of a
        // cell, and the columns are found as `coords` finds a point's, so that a point's column
        // is among those of every triangle that holds it. (A sliver seen askew covers a few
        // columns per row, where its box would cover a rectangle: a rotated chess table's 300
        // long triangles had coarsened the whole grid to 33 x 32 columns.)
        let rows = |side: usize, t: &[[f64; 3]; 3], f: &mut dyn FnMut(usize, usize, usize)| {
            let cell = extent / side as f64;
            let inv = 1.0 / cell;
            let dims = [0, 1].map(|k| (((hi2[k] - lo2[k]) / cell) as usize + 1).min(side));
            let at = |x: f64, k: usize| (((x - lo2[k]) * inv).max(0.0) as usize).min(dims[k] - 1);
            let pad = 1e-6 * cell;
            let (vmin, vmax) = (t[0][1].min(t[1][1]).min(t[2][1]), t[0][1].max(t[1][1]).max(t[2][1]));
            for y in at(vmin, 1)..=at(vmax, 1) {
                let b0 = if y == 0 { f64::NEG_INFINITY } else { lo2[1] + y as f64 * cell - pad };
                let b1 = if y + 1 == dims[1] { f64::INFINITY } else { lo2[1] + (y + 1) as f64 * cell + pad };
                let (mut umin, mut umax) = (f64::INFINITY, f64::NEG_INFINITY);
                for k in 0..3 {
                    let (p, q) = (t[k], t[(k + 1) % 3]);
                    if p[1] >= b0 && p[1] <= b1 {
                        umin = umin.min(p[0]);
                        umax = umax.max(p[0]);
                    }
                    for b in [b0, b1] {
                        if (p[1] - b) * (q[1] - b) < 0.0 {
                            let x = p[0] + (b - p[1]) / (q[1] - p[1]) * (q[0] - p[0]);
                            umin = umin.min(x);
                            umax = umax.max(x);
                        }
                    }
                }
                if umin <= umax {
                    f(y, at(umin - pad, 0), at(umax + pad, 0));
                }
            }
        };
        let covers = |side: usize, t: &[[f64; 3]; 3]| {
            let mut n = 0usize;
            rows(side, t, &mut |_, x0, x1| n = n.saturating_add(x1 - x0 + 1));
            n
        };
        let entry = |i: usize, t: &[[f64; 3]; 3]| Entry {
            top: round_f32(t[0][2].max(t[1][2]).max(t[2][2]), true),
            lo: [0, 1].map(|k| round_f32(t[0][k].min(t[1][k]).min(t[2][k]), false)),
            hi: [0, 1].map(|k| round_f32(t[0][k].max(t[1][k]).max(t[2][k]), true)),
            triangle: i as u32,
        };
        // About eight columns per triangle. The few triangles that would each cover many (a CAD
        // part's big faces seen along their normal) go to a list of their own; past that, the
        // grid coarsens until the lists hold at most about 24 entries per triangle.
        let mut side = ((8.0 * tris.len() as f64).sqrt().ceil() as usize).clamp(1, MAX_COLUMNS);
        let fine = side;
        // Each triangle's rows at the fine side, `(row, first, last)`, found once: the counts
        // below, and the lists when the grid stays fine, read them.
        let mut spans: Vec<[u32; 3]> = Vec::with_capacity(4 * corners.len());
        let mut span_start: Vec<u32> = Vec::with_capacity(corners.len() + 1);
        span_start.push(0);
        for t in &corners {
            rows(fine, t, &mut |y, x0, x1| spans.push([y as u32, x0 as u32, x1 as u32]));
            span_start.push(spans.len() as u32);
        }
        let spans_of = |i: usize| &spans[span_start[i] as usize..span_start[i + 1] as usize];
        let fine_covers = |i: usize| spans_of(i).iter().map(|s| (s[2] - s[1]) as usize + 1).sum::<usize>();
        // The MAX_BIG triangles covering the most columns (over BIG; ties by index).
        let mut by_cover: Vec<(usize, usize)> =
            (0..corners.len()).map(|i| (fine_covers(i), i)).filter(|&(c, _)| c > BIG).collect();
        by_cover.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut is_big = vec![false; corners.len()];
        for &(_, i) in by_cover.iter().take(MAX_BIG) {
            is_big[i] = true;
        }
        let in_grid = |i: usize| !is_big[i];
        let mut big: Vec<Entry> =
            corners.iter().enumerate().filter(|&(i, _)| !in_grid(i)).map(|(i, t)| entry(i, t)).collect();
        big.sort_unstable_by(Entry::by_top);
        let budget = 24 * tris.len() + 4096;
        let entries_at = |side: usize| {
            (0..corners.len()).filter(|&i| in_grid(i)).fold(0usize, |n, i| {
                n.saturating_add(if side == fine { fine_covers(i) } else { covers(side, &corners[i]) })
            })
        };
        // The rows of triangle `i` at the chosen side.
        let for_rows = |side: usize, i: usize, f: &mut dyn FnMut(usize, usize, usize)| {
            if side == fine {
                for s in spans_of(i) {
                    f(s[0] as usize, s[1] as usize, s[2] as usize);
                }
            } else {
                rows(side, &corners[i], f);
            }
        };
        while side > 1 && entries_at(side) > budget {
            side /= 2;
        }
        let cell = extent / side as f64;
        let dims = [u, v].map(|k| (((hi[k] - lo[k]) / cell) as usize + 1).min(side));
        // Counting sort by column, triangles ascending within one.
        let mut start = vec![0u32; dims[0] * dims[1] + 1];
        for i in (0..corners.len()).filter(|&i| in_grid(i)) {
            for_rows(side, i, &mut |y, x0, x1| {
                for x in x0..=x1 {
                    start[x + dims[0] * y + 1] += 1;
                }
            });
        }
        for c in 0..dims[0] * dims[1] {
            start[c + 1] += start[c];
        }
        let mut next = start.clone();
        let mut entries = vec![Entry::default(); start[dims[0] * dims[1]] as usize];
        // Filled from the highest triangle down (ties by index), so every list comes out in that
        // order without a sort of its own.
        let mut order: Vec<Entry> =
            corners.iter().enumerate().filter(|&(i, _)| in_grid(i)).map(|(i, t)| entry(i, t)).collect();
        order.sort_unstable_by(Entry::by_top);
        for entry in order {
            for_rows(side, entry.triangle as usize, &mut |y, x0, x1| {
                for x in x0..=x1 {
                    let c = x + dims[0] * y;
                    entries[next[c] as usize] = entry;
                    next[c] += 1;
                }
            });
        }
        Columns {
            lo: [lo[u], lo[v]],
            inv_cell: [1.0 / cell; 2],
            dims,
            start,
            entries,
            big,
            corners,
            rims: rims.to_vec(),
        }
    }

    /// The column of `(pu, pv)`, clamped to the grid.
    fn coords(&self, pu: f64, pv: f64) -> [usize; 2] {
        let c = |x: f64, k: usize| (((x - self.lo[k]) * self.inv_cell[k]).max(0.0) as usize).min(self.dims[k] - 1);
        [c(pu, 0), c(pv, 1)]
    }

    /// The signed number of triangles the ray from `p` (as `[u, v, axis]`) along `+axis`
    /// crosses: +1 for each it leaves through (facing `+axis`), -1 for each it enters through;
    /// when `both`, the same for the ray along `-axis` (else 0); and whether a ray crossed a
    /// triangle on one of its rim edges.
    fn crossings(&self, p: [f64; 3], both: bool) -> Crossings {
        let [x, y] = self.coords(p[0], p[1]);
        let c = x + self.dims[0] * y;
        let mut out = Crossings::default();
        for list in [&self.entries[self.start[c] as usize..self.start[c + 1] as usize], &self.big[..]] {
            self.cross_list(list, p, both, &mut out);
        }
        out
    }

    /// [`Columns::crossings`] over one list, sorted from the highest triangle down.
    fn cross_list(&self, list: &[Entry], p: [f64; 3], both: bool, out: &mut Crossings) {
        let [pu, pv, pw] = p;
        for e in list {
            if f64::from(e.top) <= pw && !both {
                // The rest of the list lies wholly below the ray's start.
                break;
            }
            if pu < f64::from(e.lo[0]) || pu > f64::from(e.hi[0]) || pv < f64::from(e.lo[1]) || pv > f64::from(e.hi[1])
            {
                continue;
            }
            let [a, b, cc] = self.corners[e.triangle as usize];
            // Edge functions at `p` of the triangle projected along the axis, each computed from
            // its endpoints in one order, so that a shared edge gives exactly opposite values in
            // its two triangles.
            let raw = |s: [f64; 3], e: [f64; 3]| (e[0] - s[0]) * (pv - s[1]) - (e[1] - s[1]) * (pu - s[0]);
            let edge = |s: [f64; 3], e: [f64; 3]| if (s[0], s[1]) > (e[0], e[1]) { -raw(e, s) } else { raw(s, e) };
            let (w0, w1, w2) = (edge(b, cc), edge(cc, a), edge(a, b));
            let area = w0 + w1 + w2;
            if area == 0.0 {
                continue;
            }
            // On an edge, the point belongs to the one triangle of the two that sees it as a
            // top-left edge.
            let sign = area.signum();
            let owns = |w: f64, s: [f64; 3], e: [f64; 3]| {
                let (du, dv) = ((e[0] - s[0]) * sign, (e[1] - s[1]) * sign);
                w * sign > 0.0 || (w == 0.0 && (dv > 0.0 || (dv == 0.0 && du < 0.0)))
            };
            if !(owns(w0, b, cc) && owns(w1, cc, a) && owns(w2, a, b)) {
                continue;
            }
            // The crossing's coordinate along the axis, from the barycentric weights; `area` has
            // the sign of the normal's component along the axis.
            let sign = if area > 0.0 { 1 } else { -1 };
            // (Clamped to the list's order key, which rounding could pass by an ulp.)
            let w = ((w0 * a[2] + w1 * b[2] + w2 * cc[2]) / area).min(f64::from(e.top));
            if w > pw {
                out.up += sign;
            } else if w < pw && both {
                // The ray down the axis enters where the one up leaves.
                out.down -= sign;
            } else {
                continue;
            }
            // `w0` is the function of edge 1 (b to c), `w1` of edge 2, `w2` of edge 0.
            let rim = self.rims.get(e.triangle as usize).copied().unwrap_or(0);
            let (z0, z1, z2) = (w0 == 0.0, w1 == 0.0, w2 == 0.0);
            // Through corner `a` both functions of its edges are zero (`w1` and `w2`), and so on.
            let corner = (z1 && z2 && rim & 8 != 0) || (z2 && z0 && rim & 16 != 0) || (z0 && z1 && rim & 32 != 0);
            out.on_rim |= (z0 && rim & 2 != 0) || (z1 && rim & 4 != 0) || (z2 && rim & 1 != 0) || corner;
        }
    }
}

/// What the rays from a point along one axis cross (see [`Columns::crossings`]).
#[derive(Clone, Copy, Debug, Default)]
struct Crossings {
    up: i32,
    down: i32,
    on_rim: bool,
}

/// The inside test of the prepared input.
pub(crate) struct Inside {
    columns: [Columns; 3],
    lo: DVec3,
    hi: DVec3,
    /// How many axes have rays: one when every part of the input is closed, faces outward and
    /// has no rim edge (any ray decides), else three.
    axes: usize,
    /// Answers per cell of a grid over the box, for cells that no triangle's plane meets.
    cells: Cells,
}

/// A grid over the input's box whose cells clear of the surface (no triangle's plane meets them
/// within the triangle's box) keep the answer at their centre, asked once: no surface separates
/// two points of such a cell, so their rays cross it alike.
struct Cells {
    lo: DVec3,
    inv_cell: f64,
    cell: f64,
    dims: [usize; 3],
    /// [`NEAR`], [`UNKNOWN`], [`OUTSIDE`] or [`INSIDE`] per cell (x fastest). Atomic so that
    /// threads share the answers; an answer depends on the cell alone, so which thread asks
    /// first changes nothing.
    state: Vec<AtomicU8>,
}

/// A cell that a triangle's plane may meet: every point there is tested on its own.
const NEAR: u8 = 0;
/// A clear cell whose centre has not been tested yet.
const UNKNOWN: u8 = 1;
/// A clear cell whose centre is outside.
const OUTSIDE: u8 = 2;
/// A clear cell whose centre is inside.
const INSIDE: u8 = 3;

/// The most cells per axis of [`Cells`]. Measured with the option on (callgrind, one thread):
/// at 32 / 48 / 64 / 96 / 128 cells featuretype took 1.12 / 1.04 / 1.02 / 1.07 / 1.16 G
/// instructions and chess-table 0.74 / 0.66 / 0.54 / 0.59 / 0.63 G: finer cells answer more
/// points near the surface but each new cell costs a test of its centre.
const MAX_CELLS: usize = 64;

impl Cells {
    /// No cell kept: every point takes the rays.
    fn none(lo: DVec3) -> Self {
        Cells { lo, inv_cell: 0.0, cell: 0.0, dims: [0; 3], state: Vec::new() }
    }

    fn new(tris: &[[DVec3; 3]], lo: DVec3, hi: DVec3) -> Self {
        let extent = (hi - lo).max_element();
        if tris.is_empty() || !(extent > 0.0) {
            return Cells::none(lo);
        }
        let cell = extent / MAX_CELLS as f64;
        let inv_cell = 1.0 / cell;
        let dims = [0, 1, 2].map(|k| (((hi[k] - lo[k]) * inv_cell) as usize + 1).min(MAX_CELLS));
        let mut state = vec![UNKNOWN; dims[0] * dims[1] * dims[2]];
        let at = |x: f64, k: usize| (((x - lo[k]) * inv_cell).max(0.0) as usize).min(dims[k] - 1);
        // Padded against rounding: a cell is clear only when the plane misses it by far more.
        let pad = 1e-6 * cell;
        // The cells each triangle's box covers bound the marking's work. A soup of large
        // triangles (each over much of the box) would make it quadratic: past a budget of
        // 64 cells per triangle plus 2^21, no cell is kept and every point takes the rays.
        // (The shared meshes need at most 530 per triangle on a few hundred triangles, 0.37 M.)
        let work = tris.iter().fold(0usize, |sum, t| {
            let (tlo, thi) = bounds(t.iter());
            sum.saturating_add((0..3).map(|k| at(thi[k] + pad, k) - at(tlo[k] - pad, k) + 1).product::<usize>())
        });
        if work > 64 * tris.len() + (1 << 21) {
            return Cells::none(lo);
        }
        for t in tris {
            let (tlo, thi) = bounds(t.iter());
            let n = (t[1] - t[0]).cross(t[2] - t[0]);
            // Across the plane's steepest axis `k`, each column of cells over the triangle's box
            // holds the plane between its heights at the column's corners.
            let k = if n.x.abs() >= n.y.abs() && n.x.abs() >= n.z.abs() {
                0
            } else if n.y.abs() >= n.z.abs() {
                1
            } else {
                2
            };
            let (u, v) = ((k + 1) % 3, (k + 2) % 3);
            let flat = !(n[k].abs() > 0.0);
            let height = |pu: f64, pv: f64| t[0][k] - (n[u] * (pu - t[0][u]) + n[v] * (pv - t[0][v])) / n[k];
            // The triangle's edges seen along `k`, each as an outward normal and a point on it: a
            // column wholly outside one of them (by more than the pad) misses the triangle. Its
            // box alone marks a sliver's whole diagonal band (a long CAD triangle across the box
            // marked a rectangle of columns, and every point there took the rays).
            let edges: [([f64; 2], [f64; 2]); 3] = [0, 1, 2].map(|e| {
                let (a, b, c) = (t[e], t[(e + 1) % 3], t[(e + 2) % 3]);
                let normal = [b[v] - a[v], a[u] - b[u]];
                let side = normal[0] * (c[u] - a[u]) + normal[1] * (c[v] - a[v]);
                // (A zero `side` is an edge seen end-on: no test.)
                let s = if side > 0.0 {
                    -1.0
                } else if side < 0.0 {
                    1.0
                } else {
                    0.0
                };
                ([normal[0] * s, normal[1] * s], [a[u], a[v]])
            });
            let misses = |u0: f64, v0: f64| {
                edges.iter().any(|&(nrm, a)| {
                    // The column's corner nearest the inside of the edge.
                    let cu = if nrm[0] > 0.0 { u0 } else { u0 + cell };
                    let cv = if nrm[1] > 0.0 { v0 } else { v0 + cell };
                    nrm[0] * (cu - a[0]) + nrm[1] * (cv - a[1]) > 2.0 * pad * (nrm[0].abs() + nrm[1].abs())
                })
            };
            for i in at(tlo[u] - pad, u)..=at(thi[u] + pad, u) {
                for j in at(tlo[v] - pad, v)..=at(thi[v] + pad, v) {
                    let (u0, v0) = (lo[u] + i as f64 * cell, lo[v] + j as f64 * cell);
                    if !flat && misses(u0, v0) {
                        continue;
                    }
                    let (mut h0, mut h1) = (tlo[k], thi[k]);
                    if !flat {
                        let hs = [
                            height(u0, v0),
                            height(u0 + cell, v0),
                            height(u0, v0 + cell),
                            height(u0 + cell, v0 + cell),
                        ];
                        h0 = h0.max(hs.iter().fold(f64::INFINITY, |m, &h| m.min(h)));
                        h1 = h1.min(hs.iter().fold(f64::NEG_INFINITY, |m, &h| m.max(h)));
                    }
                    // (Within the pad, heights out of order by rounding still mark their cell.)
                    if !(h0 - pad <= h1 + pad) {
                        continue;
                    }
                    for c in at(h0 - pad, k)..=at(h1 + pad, k) {
                        let mut idx = [0; 3];
                        idx[k] = c;
                        idx[u] = i;
                        idx[v] = j;
                        state[idx[0] + dims[0] * (idx[1] + dims[1] * idx[2])] = NEAR;
                    }
                }
            }
        }
        Cells { lo, inv_cell, cell, dims, state: state.into_iter().map(AtomicU8::new).collect() }
    }
}

impl Inside {
    /// The test over the input triangles `tris` (corners in the working cube, finite), with
    /// their [`rims`]; `closed` says every part of them is closed and faces outward
    /// ([`Prepared::solid`] on every triangle) and no edge is a rim.
    ///
    /// [`Prepared::solid`]: crate::quantize::Prepared
    pub(crate) fn new(tris: &[[DVec3; 3]], rims: &[u8], closed: bool) -> Self {
        let (lo, hi) = if tris.is_empty() { (DVec3::ZERO, DVec3::ZERO) } else { bounds(tris.iter().flatten()) };
        let axes = if closed { 1 } else { 3 };
        let columns = [0, 1, 2].map(|axis| Columns::new(if axis < axes { tris } else { &[] }, rims, axis, lo, hi));
        let cells = Cells::new(tris, lo, hi);
        Inside { columns, lo, hi, axes, cells }
    }

    /// Whether `p` lies inside, when its cell is clear of the surface: the answer at the cell's
    /// centre (tested the first time it is asked, then kept). `Some(false)` outside the box, as
    /// [`Inside::contains`] has it; `None` for a point in a cell the surface may meet (then
    /// [`Inside::contains`] answers) or a non-finite one.
    ///
    /// Where one ray decides (a closed input), this is the answer [`Inside::contains`] gives at
    /// `p` itself: no surface lies between `p` and the centre, so their rays cross it alike. With
    /// holes, the rays' vote can change where no surface is (a ray leaves through a hole), and
    /// the cell takes its centre's vote.
    pub(crate) fn quick(&self, p: DVec3) -> Option<bool> {
        if !(p.cmpge(self.lo) & p.cmple(self.hi)).all() {
            return if p.is_finite() { Some(false) } else { None };
        }
        let c = &self.cells;
        if c.state.is_empty() {
            return None;
        }
        let at = |k: usize| (((p[k] - c.lo[k]) * c.inv_cell).max(0.0) as usize).min(c.dims[k] - 1);
        let idx = [at(0), at(1), at(2)];
        let state = &c.state[idx[0] + c.dims[0] * (idx[1] + c.dims[1] * idx[2])];
        match state.load(Ordering::Relaxed) {
            NEAR => None,
            OUTSIDE => Some(false),
            INSIDE => Some(true),
            _ => {
                // The centre of the cell's part within the box: the last layer of cells along a
                // shorter side reaches past the box, where a centre would be outside by the box
                // test alone (in a box with no lid, points inside its top layer would be called
                // outside).
                let corner = c.lo + DVec3::new(idx[0] as f64, idx[1] as f64, idx[2] as f64) * c.cell;
                let centre = (corner + (corner + c.cell).min(self.hi)) * 0.5;
                let inside = self.contains(centre);
                state.store(if inside { INSIDE } else { OUTSIDE }, Ordering::Relaxed);
                Some(inside)
            }
        }
    }

    /// Whether `p` lies inside the input (false for a point outside its box or not finite).
    pub(crate) fn contains(&self, p: DVec3) -> bool {
        if !(p.cmpge(self.lo) & p.cmple(self.hi)).all() {
            return false;
        }
        if self.axes == 1 {
            return self.columns[0].crossings([p.y, p.z, p.x], false).up != 0;
        }
        // The rays up the three axes first (their lists stop early); when they disagree, the rays
        // down them too: inside when four or more of the six cross the surface.
        let at = |axis: usize| {
            let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
            [p[u], p[v], p[axis]]
        };
        let (mut up, mut rim) = (0, false);
        for axis in 0..3 {
            let c = self.columns[axis].crossings(at(axis), false);
            up += usize::from(c.up != 0);
            rim |= c.on_rim;
        }
        // (A ray through a rim says nothing for sure: then the vote decides.)
        if (up == 0 || up == 3) && !rim {
            return up == 3;
        }
        // An axis whose rays cross a triangle on a rim edge abstains: there the top-left rule
        // counts the crossing for rays on one side of the rim's plane and not the other, so a
        // point in the plane of an opening facing up would count a crossing that one facing down
        // would not (an open cylinder would get twice the hulls).
        vote([0, 1, 2].map(|axis| self.columns[axis].crossings(at(axis), true)), up)
    }
}

/// The six rays' vote from the crossings along each axis (both ways): inside when at least two
/// thirds of the rays that vote cross the surface (4 of 6, 3 of 4, 2 of 2). An axis whose rays
/// meet a rim abstains; the threshold counts only the rays that vote (a fixed 4 of 6 would call
/// a point deep inside a closed voxel mesh outside when two axes abstain). When all
/// three abstain, the rays up the axes decide by majority (`up` of them crossed).
fn vote(axes: [Crossings; 3], up: usize) -> bool {
    let (mut crossed, mut voters) = (0usize, 0usize);
    for c in axes.iter().filter(|c| !c.on_rim) {
        voters += 2;
        crossed += usize::from(c.up != 0) + usize::from(c.down != 0);
    }
    if voters == 0 {
        return up >= 2;
    }
    3 * crossed >= 2 * voters
}

/// Whether every rim edge (see [`rims`]) is one side of a crack: used by one triangle only, and
/// covered along its whole length, within `eps` (the crack's width), by rim edges on the same
/// line running the other way. A T-junction (a long edge on one side, its two halves on the
/// other, as CAD exporters write STL files) leaves such a crack: the surface has no opening, and
/// one ray decides inside as on a closed mesh. An opening, a fin or a face turned against its
/// neighbour is not a crack. False past 2^14 rim edges (the pairing is quadratic).
pub(crate) fn cracks_only(positions: &[DVec3], triangles: &[[u32; 3]], rims: &[u8], eps: f64) -> bool {
    let mut uses: Vec<(u32, u32)> = Vec::new();
    for (tri, &r) in triangles.iter().zip(rims) {
        for k in 0..3 {
            if r & (1 << k) != 0 {
                uses.push((tri[k], tri[(k + 1) % 3]));
            }
        }
    }
    if uses.len() > 1 << 14 {
        return false;
    }
    let mut keys: Vec<(u32, u32)> = uses.iter().map(|&(a, b)| (a.min(b), a.max(b))).collect();
    keys.sort_unstable();
    if keys.windows(2).any(|w| w[0] == w[1]) {
        return false;
    }
    uses.iter().all(|&(a, b)| {
        let (p, q) = (positions[a as usize], positions[b as usize]);
        let length = p.distance(q);
        if !(length > eps) {
            // (A rim edge within the crack's width is inside the crack.)
            return length.is_finite();
        }
        let dir = (q - p) / length;
        let on_line = |x: DVec3| (x - p - dir * (x - p).dot(dir)).length() <= eps;
        let covered: f64 = uses
            .iter()
            .filter(|&&(c, d)| {
                let (r, w) = (positions[c as usize], positions[d as usize]);
                (w - r).dot(dir) < 0.0 && on_line(r) && on_line(w)
            })
            .map(|&(c, d)| {
                let (t0, t1) = ((positions[d as usize] - p).dot(dir), (positions[c as usize] - p).dot(dir));
                (t1.min(length) - t0.max(0.0)).max(0.0)
            })
            .sum();
        covered >= length - 2.0 * eps
    })
}

/// Per triangle of `triangles` (vertex indices), bit `k` set when its edge from corner `k` to
/// corner `k + 1` is a rim: used by unequal numbers of triangles in its two directions (an
/// opening's edge, a fin, a face turned against its neighbour), and bit `3 + k` when its corner `k`
/// lies on such an edge (of any triangle).
///
/// An edge used equally both ways is not a rim, however many triangles share it: two cubes of a
/// voxel mesh that touch along an edge give it four triangles, two each way, and the top-left rule
/// counts a ray through it once per pair, as it should (a rule of "not shared by exactly two"
/// would send such rays to the vote).
pub(crate) fn rims(triangles: &[[u32; 3]]) -> Vec<u8> {
    let mut edges: Vec<(u32, u32, u32)> = triangles
        .iter()
        .enumerate()
        .flat_map(|(t, tri)| {
            (0..3).map(move |k| {
                let (a, b) = (tri[k], tri[(k + 1) % 3]);
                (a.min(b), a.max(b), 3 * t as u32 + k as u32)
            })
        })
        .collect();
    edges.sort_unstable();
    let mut rims = vec![0u8; triangles.len()];
    let mut i = 0;
    while i < edges.len() {
        let j = i + edges[i..].iter().take_while(|e| (e.0, e.1) == (edges[i].0, edges[i].1)).count();
        // Uses from the lower vertex to the higher one.
        let forward = edges[i..j]
            .iter()
            .filter(|e| {
                let tri = triangles[(e.2 / 3) as usize];
                tri[(e.2 % 3) as usize] == e.0
            })
            .count();
        if 2 * forward != j - i {
            for e in &edges[i..j] {
                rims[(e.2 / 3) as usize] |= 1 << (e.2 % 3);
            }
        }
        i = j;
    }
    // Corners on a rim edge, of this triangle or another: a ray through one is as ambiguous as one
    // through the rim edge itself, whichever triangle's corner it meets there.
    let mut on_rim = vec![false; triangles.iter().flatten().map(|&v| v as usize + 1).max().unwrap_or(0)];
    for (tri, &r) in triangles.iter().zip(&rims) {
        for k in 0..3 {
            if r & (1 << k) != 0 {
                on_rim[tri[k] as usize] = true;
                on_rim[tri[(k + 1) % 3] as usize] = true;
            }
        }
    }
    for (tri, r) in triangles.iter().zip(&mut rims) {
        for k in 0..3 {
            if on_rim[tri[k] as usize] {
                *r |= 8 << k;
            }
        }
    }
    rims
}

#[cfg(test)]
mod tests {
    use glam::Vec3;
    use voxel_core::IndexedMesh;

    use super::*;
    use crate::quantize::prepare;

    /// A xorshift generator of coordinates uniform in -500..500 (the working cube), from `seed`.
    fn coordinates(mut seed: u64) -> impl FnMut() -> f64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64 * 1000.0 - 500.0
        }
    }

    fn cube(open: bool) -> IndexedMesh {
        let corners: Vec<Vec3> =
            (0..8).map(|i| Vec3::new((i & 1) as f32, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32)).collect();
        let faces = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]];
        let mut triangles: Vec<[u32; 3]> = faces.iter().flat_map(|&[a, b, c, d]| [[a, b, c], [a, c, d]]).collect();
        if open {
            // The bottom face alone: an open sheet, inside nowhere.
            triangles.truncate(2);
        }
        IndexedMesh::new(corners, triangles).unwrap()
    }

    /// Points on a lattice through the prepared cube (-500..500) and beyond, with one ray or
    /// three. The lattice's diagonal points (x = y, ...) send their rays through the diagonals the
    /// cube's faces are split along: each must cross one of the two triangles there.
    fn check(open: bool, closed: bool) {
        let prep = prepare(&cube(open), 1000.0, 0.1);
        let tris: Vec<[DVec3; 3]> = prep.triangles.iter().map(|t| t.map(|v| prep.positions[v as usize])).collect();
        let inside = Inside::new(&tris, &rims(&prep.triangles), closed);
        let mut ins = 0;
        for i in -7..=7 {
            for j in -7..=7 {
                for k in -7..=7 {
                    let p = DVec3::new(f64::from(i), f64::from(j), f64::from(k)) * 73.0 + 1.5;
                    let expected = !open && p.abs().max_element() < 500.0;
                    assert_eq!(inside.contains(p), expected, "{p} (closed {closed})");
                    // One crossing, not two: rays through the faces' diagonals cross one of the
                    // two triangles there.
                    let up = inside.columns[0].crossings([p.y, p.z, p.x], false).up;
                    assert_eq!(up, i32::from(expected), "{p}");
                    ins += usize::from(expected);
                }
            }
        }
        assert_eq!(ins, if open { 0 } else { 13 * 13 * 13 });
    }

    #[test]
    fn inside_a_closed_cube_and_nowhere_by_a_sheet() {
        check(false, true);
        check(false, false);
        check(true, false);
    }

    #[test]
    fn inside_a_box_with_no_lid_by_the_six_rays_vote() {
        // The top (+z) face gone: from inside, the ray up z leaves through the hole and counts
        // none, the other five cross. From below, the ray up z enters and leaves through the hole
        // (one crossing); the other five miss.
        let mut open_top = cube(false).triangles().to_vec();
        open_top.drain(2..4);
        let mesh = IndexedMesh::new(cube(false).positions().to_vec(), open_top).unwrap();
        let prep = prepare(&mesh, 1000.0, 0.1);
        assert!(!prep.solid.iter().all(|&s| s));
        let tris: Vec<[DVec3; 3]> = prep.triangles.iter().map(|t| t.map(|v| prep.positions[v as usize])).collect();
        let inside = Inside::new(&tris, &rims(&prep.triangles), false);
        for i in -7..=7 {
            for j in -7..=7 {
                for k in -7..=7 {
                    let p = DVec3::new(f64::from(i), f64::from(j), f64::from(k)) * 73.0 + 1.5;
                    assert_eq!(inside.contains(p), p.abs().max_element() < 500.0, "{p}");
                }
            }
        }
    }

    #[test]
    fn a_point_in_the_plane_of_an_opening_is_outside_whichever_way_it_faces() {
        // A box with no lid (+z) and one with no floor (-z): a point in the plane of the opening,
        // 500 from the walls, has a winding number of one half. Its rays along x and y run along
        // the rim, where the top-left rule would count the walls for one facing and not the
        // other: those axes abstain, and both points are outside.
        for (drop, z) in [(2..4, 500.0), (0..2, -500.0)] {
            let mut triangles = cube(false).triangles().to_vec();
            triangles.drain(drop);
            let mesh = IndexedMesh::new(cube(false).positions().to_vec(), triangles).unwrap();
            let prep = prepare(&mesh, 1000.0, 0.1);
            let tris: Vec<[DVec3; 3]> = prep.triangles.iter().map(|t| t.map(|v| prep.positions[v as usize])).collect();
            let inside = Inside::new(&tris, &rims(&prep.triangles), false);
            for p in [DVec3::new(0.0, 0.0, z), DVec3::new(1.5, -2.5, z), DVec3::new(-200.0, 300.0, z)] {
                assert!(!inside.contains(p), "{p}");
            }
            assert!(inside.contains(DVec3::new(1.5, -2.5, 0.5 * z)), "inside, half way to the opening");
        }
    }

    /// A cube whose top face is split with a T-junction (its edge along y = 1 is halved on the top
    /// and whole on the side) has cracks only; with a top triangle missing it has an opening; a
    /// halved edge whose halves run the same way as the whole one (a turned face) is no crack.
    #[test]
    fn t_junctions_are_cracks_and_openings_are_not() {
        let mut positions: Vec<DVec3> =
            (0..8).map(|i| DVec3::new(f64::from(i & 1), f64::from((i >> 1) & 1), f64::from(i >> 2)) * 100.0).collect();
        positions.push(DVec3::new(50.0, 100.0, 100.0)); // 8: the middle of the top's edge 6-7
        let mut triangles: Vec<[u32; 3]> = vec![
            [0, 2, 3],
            [0, 3, 1], // bottom
            [0, 1, 5],
            [0, 5, 4], // y = 0
            [2, 6, 7],
            [2, 7, 3], // y = 1: its edge 7-6 whole
            [0, 4, 6],
            [0, 6, 2], // x = 0
            [1, 3, 7],
            [1, 7, 5], // x = 1
            [4, 5, 8],
            [5, 7, 8],
            [4, 8, 6], // top: 6-8 and 8-7 instead of 6-7
        ];
        let check = |triangles: &[[u32; 3]]| cracks_only(&positions, triangles, &rims(triangles), 0.1);
        assert!(rims(&triangles).iter().any(|&r| r != 0));
        assert!(check(&triangles));
        // The middle vertex 0.5 off the whole edge: a crack 0.5 wide, closed by a width of 1.
        let mut open = positions.clone();
        open[8].y -= 0.5;
        assert!(!cracks_only(&open, &triangles, &rims(&triangles), 0.1));
        assert!(cracks_only(&open, &triangles, &rims(&triangles), 1.0));
        let opening: Vec<[u32; 3]> = triangles[..12].to_vec();
        assert!(!check(&opening));
        // The side face turned over: its edge 6-7 now runs the way the top's halves do.
        triangles[4] = [2, 7, 6];
        triangles[5] = [2, 3, 7];
        assert!(!check(&triangles));
    }

    #[test]
    fn rims_are_edges_not_shared_by_two() {
        let closed = cube(false);
        assert!(rims(closed.triangles()).iter().all(|&r| r == 0));
        // The bottom face alone: its diagonal is shared, its four sides are rims.
        let sheet = cube(true);
        // Edges: [0, 2, 3] and [0, 3, 1] share 0-3; corners: all four lie on the rim.
        assert_eq!(rims(sheet.triangles()), [0b111_011, 0b111_110]);
        // A partition through the cube along a face diagonal: that diagonal is used three times.
        let mut partitioned = closed.triangles().to_vec();
        partitioned.extend([[0, 3, 7], [0, 7, 4]]);
        let r = rims(&partitioned);
        assert!(r[0] != 0 && r[1] != 0, "the bottom face's diagonal {:?}", &r[..2]);
        assert!(r[12] != 0 && r[13] != 0);
    }

    /// The boundary faces of the unit voxels `set` (outward, vertices shared by lattice point).
    fn voxel_mesh(set: &[[i32; 3]]) -> IndexedMesh {
        let mut index = std::collections::HashMap::new();
        let mut positions = Vec::new();
        let mut triangles = Vec::new();
        for &v in set {
            for k in 0..3 {
                for s in [0, 1] {
                    let mut n = v;
                    n[k] += 2 * s - 1;
                    if set.contains(&n) {
                        continue;
                    }
                    let (u, w) = ((k + 1) % 3, (k + 2) % 3);
                    let mut corner = |du: i32, dw: i32| {
                        let mut p = v;
                        p[k] += s;
                        p[u] += du;
                        p[w] += dw;
                        *index.entry(p).or_insert_with(|| {
                            positions.push(Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32));
                            positions.len() as u32 - 1
                        })
                    };
                    let q = [corner(0, 0), corner(1, 0), corner(1, 1), corner(0, 1)];
                    // Counter-clockwise seen from outside: u, w, k is right-handed.
                    if s == 1 {
                        triangles.extend([[q[0], q[1], q[2]], [q[0], q[2], q[3]]]);
                    } else {
                        triangles.extend([[q[0], q[2], q[1]], [q[0], q[3], q[2]]]);
                    }
                }
            }
        }
        IndexedMesh::new(positions, triangles).unwrap()
    }

    /// A voxel mesh: pairs of voxels stacked in z, and pairs that touch only along an
    /// edge (four triangles on it, two each way). Such edges are not rims, the input is closed,
    /// and points deep inside are inside however their rays meet those edges (with those edges
    /// as rims, two axes would abstain and a fixed vote of 4 of 6 would call the centre of a pair
    /// outside).
    #[test]
    fn voxels_touching_along_an_edge_are_closed_and_inside_is_inside() {
        let set = [[0, 0, 0], [0, 0, 1], [2, 0, 0], [3, 0, 1], [0, 2, 0], [0, 3, 1]];
        let mesh = voxel_mesh(&set);
        let r = rims(mesh.triangles());
        assert!(r.iter().all(|&r| r == 0), "{r:?}");
        let prep = prepare(&mesh, 1000.0, 0.1);
        let tris: Vec<[DVec3; 3]> = prep.triangles.iter().map(|t| t.map(|v| prep.positions[v as usize])).collect();
        let prepared_rims = rims(&prep.triangles);
        assert!(prepared_rims.iter().all(|&r| r == 0));
        for closed in [true, false] {
            let inside = Inside::new(&tris, &prepared_rims, closed);
            let at = |q: DVec3| inside.contains((q - prep.centre) * prep.scale);
            // The stacked pair's centre (its x and y rays run through the
            // edges the other pairs share), and off it.
            for q in [DVec3::new(0.5, 0.5, 1.0), DVec3::new(0.3, 0.6, 1.0), DVec3::new(0.5, 0.5, 0.5)] {
                assert!(at(q), "{q} (closed {closed})");
            }
            // Every voxel's centre and corners just inside it; a lattice of points outside.
            for v in set {
                let c = DVec3::new(f64::from(v[0]), f64::from(v[1]), f64::from(v[2]));
                assert!(at(c + 0.5), "{c} (closed {closed})");
                for d in [DVec3::splat(0.05), DVec3::splat(0.95), DVec3::new(0.05, 0.95, 0.5)] {
                    assert!(at(c + d), "{} (closed {closed})", c + d);
                }
            }
            for x in -1..5 {
                for y in -1..5 {
                    for z in -1..3 {
                        if !set.contains(&[x, y, z]) {
                            let q = DVec3::new(f64::from(x), f64::from(y), f64::from(z)) + 0.5;
                            assert!(!at(q), "{q} (closed {closed})");
                        }
                    }
                }
            }
        }
    }

    /// An edge is a rim when its two directions are used unequally: an edge of two triangles
    /// turned the same way (one face flipped) is one; an edge of two touching cubes is not.
    #[test]
    fn rims_count_each_direction() {
        let flipped = [[0, 1, 2], [1, 2, 3]];
        assert_eq!(rims(&flipped), [0b111_111, 0b111_111]);
        let touching = voxel_mesh(&[[0, 0, 0], [1, 1, 0]]);
        assert!(rims(touching.triangles()).iter().all(|&r| r == 0));
        // Three cubes around one edge: six triangles on it, three each way.
        let three = voxel_mesh(&[[0, 0, 0], [1, 1, 0], [0, 1, 0]]);
        assert!(rims(three.triangles()).iter().all(|&r| r == 0));
    }

    /// The vote counts only the rays that vote: two thirds of them must cross.
    #[test]
    fn the_vote_counts_the_rays_that_vote() {
        let c = |up: i32, down: i32, on_rim: bool| Crossings { up, down, on_rim };
        let rim = c(1, 1, true);
        // Two axes abstain: the third's two rays decide.
        assert!(vote([rim, rim, c(1, -1, false)], 0));
        assert!(!vote([rim, rim, c(1, 0, false)], 3));
        // One abstains: three of four.
        assert!(vote([c(1, 0, false), rim, c(1, -1, false)], 0));
        assert!(!vote([c(1, 0, false), rim, c(0, -1, false)], 3));
        // None abstains: four of six.
        assert!(vote([c(1, 0, false), c(0, -1, false), c(1, -1, false)], 0));
        assert!(!vote([c(1, 0, false), c(0, 0, false), c(1, 0, false)], 3));
        // All abstain: the rays up the axes, by majority.
        assert!(vote([rim, rim, rim], 2));
        assert!(!vote([rim, rim, rim], 1));
    }

    #[test]
    fn a_ray_through_a_rim_corner_is_on_the_rim() {
        // One triangle whose corner 0 lies on a rim (bit 3), its own edges not rims; both of that
        // corner's edges are top-left, so the triangle owns a ray through it. That ray reports
        // the rim; one through its inside does not.
        let tri = [[DVec3::new(0.0, 0.0, 0.0), DVec3::new(-10.0, 10.0, 1.0), DVec3::new(0.0, -10.0, 2.0)]];
        let columns = Columns::new(&tri, &[8], 2, DVec3::splat(-10.0), DVec3::splat(20.0));
        let at = |x: f64, y: f64| columns.crossings([x, y, -5.0], true);
        assert!(at(0.0, 0.0).on_rim && at(0.0, 0.0).up == 1);
        assert!(!at(-2.0, 1.0).on_rim && at(-2.0, 1.0).up == 1);
        let plain = Columns::new(&tri, &[0], 2, DVec3::splat(-10.0), DVec3::splat(20.0));
        assert!(!plain.crossings([0.0, 0.0, -5.0], true).on_rim);
        // A quad of two triangles: every corner lies on its rim, the diagonal 1-2 is shared.
        assert_eq!(rims(&[[0, 1, 2], [2, 1, 3]]), [0b111_101, 0b111_110]);
    }

    #[test]
    fn a_double_sided_box_has_no_inside() {
        // Every face twice, once each way: the rays' crossings cancel, as the winding number's do.
        let cube = cube(false);
        let mut triangles = cube.triangles().to_vec();
        triangles.extend(cube.triangles().iter().map(|&[a, b, c]| [a, c, b]));
        let tris: Vec<[DVec3; 3]> =
            triangles.iter().map(|t| t.map(|v| cube.positions()[v as usize].as_dvec3() * 1000.0 - 500.0)).collect();
        let inside = Inside::new(&tris, &rims(&triangles), false);
        for p in [DVec3::ZERO, DVec3::splat(250.5), DVec3::new(-300.0, 100.0, 7.0)] {
            assert!(!inside.contains(p), "{p}");
        }
    }

    #[test]
    fn big_faces_stay_within_the_entry_budget() {
        // 2000 triangles each spanning the whole box across z: at eight columns per triangle
        // (127 per side) each would fill about 8k columns of the z grid, 16 M entries.
        let tris: Vec<[DVec3; 3]> = (0..2000)
            .map(|i| {
                let z = f64::from(i);
                [DVec3::new(0.0, 0.0, z), DVec3::new(1000.0, 0.0, z), DVec3::new(0.0, 1000.0, z)]
            })
            .collect();
        let inside = Inside::new(&tris, &[], false);
        for columns in &inside.columns {
            assert!(columns.entries.len() <= 24 * tris.len() + 4096, "{}", columns.entries.len());
        }
        // Stacked sheets of one facing: the ray up from z = 0.5 crosses 1999 of them, but the rays
        // across them cross none, so the point is outside.
        assert!(!inside.contains(DVec3::new(10.0, 10.0, 0.5)));
        // The coarsened grid (64 sheets in the big list, the rest in its columns) still finds
        // every sheet a ray crosses.
        let points: Vec<[f64; 3]> = (0..500)
            .map(|i| [f64::from(i) * 1.99 + 0.3, f64::from(i % 37) * 13.7 + 0.1, f64::from(i) * 3.9 + 0.5])
            .collect();
        lists_find_every_triangle(&inside.columns[2], tris.len(), &points);
    }

    #[test]
    fn the_columns_find_what_every_triangle_finds() {
        // A soup of 300 random triangles, slivers and ones spanning the box among them, and rays from 3000
        // random points along each axis: the column lists must give the counts of all triangles.
        let mut next = coordinates(0x9e37_79b9_7f4a_7c15);
        let tris: Vec<[DVec3; 3]> = (0..300)
            .map(|i| {
                let a = DVec3::new(next(), next(), next());
                let scale = if i % 3 == 0 { 1.0 } else { 0.1 };
                let b = a + DVec3::new(next(), next(), next()) * scale;
                // Every fifth a sliver: its third corner near the first edge's middle.
                let c = if i % 5 == 0 {
                    a.lerp(b, 0.5) + DVec3::splat(0.01 * next())
                } else {
                    a + DVec3::new(next(), next(), next()) * scale
                };
                // Every seventh spans the box: the big ones every ray reads.
                if i % 7 == 0 { [a.with_x(-500.0), b.with_y(-500.0).with_x(500.0), c.with_y(500.0)] } else { [a, b, c] }
            })
            .collect();
        let inside = Inside::new(&tris, &[], false);
        for columns in &inside.columns {
            let points: Vec<[f64; 3]> = (0..3000).map(|_| [next(), next(), next()]).collect();
            lists_find_every_triangle(columns, tris.len(), &points);
        }
    }

    /// The rays from `points` read in `columns`' own lists count what they count over all `n`
    /// triangles.
    fn lists_find_every_triangle(columns: &Columns, n: usize, points: &[[f64; 3]]) {
        let mut all: Vec<Entry> = columns.entries.iter().chain(&columns.big).copied().collect();
        all.sort_unstable_by(Entry::by_top);
        all.dedup_by_key(|e| e.triangle);
        assert_eq!(all.len(), n, "every triangle listed");
        for &p in points {
            let mut brute = Crossings::default();
            columns.cross_list(&all, p, true, &mut brute);
            let grid = columns.crossings(p, true);
            assert_eq!((grid.up, grid.down), (brute.up, brute.down), "{p:?}");
            assert_eq!(columns.crossings(p, false).up, brute.up, "{p:?}");
        }
    }

    /// The lists' `f32` boxes and tops hold the `f64` values they filter for: rounded outward, to
    /// the nearest `f32` on that side.
    #[test]
    fn entries_round_outward() {
        let mut next = coordinates(7);
        for k in 0..20000 {
            let x = next() * 10f64.powi(k % 7 - 3);
            let (down, up) = (super::round_f32(x, false), super::round_f32(x, true));
            assert!(f64::from(down) <= x && f64::from(up) >= x, "{x}");
            assert!(f64::from(down.next_up()) > x && f64::from(up.next_down()) < x, "{x}: not the nearest");
        }
        for x in [0.0, -0.0, 1.0, -3.5, 1e-40] {
            assert!(f64::from(super::round_f32(x, true)) >= x && f64::from(super::round_f32(x, false)) <= x);
        }
    }

    #[test]
    fn empty_input_has_no_inside() {
        let inside = Inside::new(&[], &[], false);
        assert!(!inside.contains(DVec3::ZERO));
        assert!(!inside.contains(DVec3::splat(f64::NAN)));
        assert_eq!(inside.quick(DVec3::ZERO), None);
        assert_eq!(inside.quick(DVec3::splat(f64::NAN)), None);
        assert_eq!(inside.quick(DVec3::splat(1.0)), Some(false));
    }

    /// A soup of triangles that each span the box would cost the cells' marking the whole grid
    /// per triangle: past the budget no cell is kept, and points take the rays.
    #[test]
    fn a_soup_of_large_triangles_keeps_no_cells() {
        let mut next = coordinates(0x2545_f491_4f6c_dd1d);
        let big: Vec<[DVec3; 3]> = (0..400)
            .map(|_| {
                let (x, y) = (next(), next());
                [DVec3::new(-500.0, -500.0, x), DVec3::new(500.0, -500.0, y), DVec3::new(0.0, 500.0, next())]
            })
            .collect();
        let inside = Inside::new(&big, &[], false);
        assert!(inside.cells.state.is_empty());
        assert_eq!(inside.quick(DVec3::ZERO), None);
        // Four such triangles (at most a million cells) stay within it.
        let inside = Inside::new(&big[..4], &[], false);
        assert!(!inside.cells.state.is_empty());
    }

    /// A box with no lid, lower than a whole number of cells: the top layer of cells reaches
    /// above it, and a clear cell there takes the vote at the centre of its part within the box
    /// (five of the six rays from inside the box cross its walls), not outside.
    #[test]
    fn a_cell_past_the_box_is_asked_within_it() {
        let positions: Vec<Vec3> =
            (0..8).map(|i| Vec3::new((i & 1) as f32, ((i >> 1) & 1) as f32, 0.16 * ((i >> 2) & 1) as f32)).collect();
        let faces = [[0, 2, 3, 1], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]];
        let triangles: Vec<[u32; 3]> = faces.iter().flat_map(|&[a, b, c, d]| [[a, b, c], [a, c, d]]).collect();
        let prep = prepare(&IndexedMesh::new(positions, triangles).unwrap(), 1000.0, 0.1);
        let tris: Vec<[DVec3; 3]> = prep.triangles.iter().map(|t| t.map(|v| prep.positions[v as usize])).collect();
        let inside = Inside::new(&tris, &rims(&prep.triangles), false);
        // The box is 1000 x 1000 x 160 in the working cube: 64 x 64 x 11 cells of 15.625, the
        // last layer from 76.25 to 91.875 against the box's top at 80.
        assert_eq!(inside.cells.dims[2], 11);
        assert!(inside.cells.lo.z + 10.5 * inside.cells.cell > inside.hi.z);
        for z in [0.0, 40.0, 77.0, 78.5, 79.0, 79.99] {
            let p = DVec3::new(1.5, -2.5, z);
            assert!(inside.contains(p), "{p:?} inside by the vote");
            assert_eq!(inside.quick(p), Some(true), "{p:?}");
        }
    }

    /// On closed meshes, a clear cell's kept answer is what the ray test says at the point
    /// itself: on a lattice through the box, and just off the surface on both sides of every
    /// triangle (where a cell marked clear by mistake would give its centre's answer).
    #[test]
    fn a_clear_cell_answers_as_the_ray_at_the_point() {
        for file in ["meshes/torus/torus.obj", "meshes/torus/knot.obj", "meshes/classic/dragon-lowpoly.obj"] {
            let mesh = voxel_testdata::load_mesh(&voxel_testdata::testdata_file(file)).unwrap();
            let prep = prepare(&mesh, 1000.0, 0.1);
            let tris: Vec<[DVec3; 3]> = prep.triangles.iter().map(|t| t.map(|v| prep.positions[v as usize])).collect();
            let rims = rims(&prep.triangles);
            let closed = prep.solid.iter().all(|&s| s) && rims.iter().all(|&r| r == 0);
            assert!(closed, "{file} is closed");
            let inside = Inside::new(&tris, &rims, closed);
            let mut points: Vec<DVec3> = Vec::new();
            for i in 0..40 {
                for j in 0..40 {
                    for k in 0..40 {
                        let f = DVec3::new(f64::from(i), f64::from(j), f64::from(k)) / 39.0;
                        points.push(inside.lo + (inside.hi - inside.lo) * f + 0.013);
                    }
                }
            }
            for t in &tris {
                let n = (t[1] - t[0]).cross(t[2] - t[0]).normalize_or_zero();
                let c = (t[0] + t[1] + t[2]) / 3.0;
                for d in [0.05, 0.5, 3.0] {
                    points.extend([c + n * d, c - n * d]);
                }
            }
            let (mut known, mut near, mut ins) = (0, 0, 0);
            for &p in &points {
                match inside.quick(p) {
                    Some(q) => {
                        assert_eq!(q, inside.contains(p), "{file}: {p:?}");
                        known += 1;
                        ins += usize::from(q);
                    }
                    None => near += 1,
                }
            }
            // The test means something only if both kinds of cell were met, inside ones too.
            assert!(known > points.len() / 4 && near > points.len() / 20 && ins > 100, "{file}: {known} {near} {ins}");
        }
    }
}
