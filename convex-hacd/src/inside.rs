//! Whether a point away from the input surface lies inside the input, for the distance phase
//! ([`DecomposeOptions::merge_distance`](crate::DecomposeOptions)): a merged hull's new surface
//! that runs through the inside of a solid part (a cut through a bunny's body between two of its
//! hulls) does not stick out, however far it lies from the surface.
//!
//! A ray from a point crosses the surface when it leaves it more often than it enters it, or
//! the other way round (a signed count of the triangles crossed, by their facing): from inside a
//! closed part every ray counts one, from outside none, and a double-sided sheet's two faces
//! cancel. Where every part of the input is closed (and faces outward), the ray up `x` decides.
//! Elsewhere a ray can leave through a hole, so the rays up `x`, `y` and `z` decide when they
//! agree, and when they do not, the six rays up and down the axes vote: inside when four or more
//! cross. An inside point near a hole (one ray out through it) is still inside; an outside point
//! is called inside only when most of its rays enter through holes. A ray through an edge shared
//! by two triangles crosses one of them (rasterization's top-left rule, with each edge's
//! function computed in one order for both).
//!
//! Each axis has a grid of columns across the other two; a column lists the triangles whose
//! projection overlaps it, so a ray reads one list. (The winding number, which the scorer uses,
//! cost 63 000 instructions per point on angle-block; a ray walk through the scorer's 3D grid,
//! where long CAD triangles fill many cells, cost 45 000.)

use glam::DVec3;

/// The most columns per axis of a grid.
const MAX_COLUMNS: usize = 256;

/// A triangle in a column's list: its box across the axis and its highest coordinate along it
/// (the lists run from the highest down, so a ray stops reading at the first below its start).
#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    top: f64,
    lo: [f64; 2],
    hi: [f64; 2],
    triangle: u32,
}

/// The triangles by column, for rays along one axis.
struct Columns {
    /// The corner of the grid, in the axes across (`u = axis + 1`, `v = axis + 2`, mod 3).
    lo: [f64; 2],
    inv_cell: [f64; 2],
    dims: [usize; 2],
    /// `start[c]..start[c + 1]` index `entries`, the triangles whose projected box overlaps
    /// column `c` (`u` fastest).
    start: Vec<u32>,
    entries: Vec<Entry>,
    /// Each triangle's corners as `[u, v, axis]` coordinates.
    corners: Vec<[[f64; 3]; 3]>,
}

impl Columns {
    fn new(tris: &[[DVec3; 3]], axis: usize, lo: DVec3, hi: DVec3) -> Self {
        let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
        let extent = (hi[u] - lo[u]).max(hi[v] - lo[v]).max(f64::MIN_POSITIVE);
        let corners: Vec<[[f64; 3]; 3]> = tris.iter().map(|t| t.map(|p| [p[u], p[v], p[axis]])).collect();
        // Each triangle's box in columns, for `side` columns across the longer extent.
        let span = |side: usize, t: &[[f64; 3]; 3]| {
            // As `coords` computes it, so that a point's column lies in the range of every
            // triangle whose box holds it.
            let cell = extent / side as f64;
            let inv = 1.0 / cell;
            let dims = [0, 1].map(|k| (((hi[[u, v][k]] - lo[[u, v][k]]) / cell) as usize + 1).min(side));
            let at = |x: f64, k: usize| (((x - lo[[u, v][k]]) * inv).max(0.0) as usize).min(dims[k] - 1);
            let range = |k: usize| {
                let (a, b) = (t[0][k].min(t[1][k]).min(t[2][k]), t[0][k].max(t[1][k]).max(t[2][k]));
                (at(a, k), at(b, k))
            };
            (range(0), range(1), dims)
        };
        // About eight columns per triangle, fewer where large triangles would each cover many
        // (a CAD part's big faces seen along their normal): at most about 24 entries per triangle.
        let mut side = ((8.0 * tris.len() as f64).sqrt().ceil() as usize).clamp(1, MAX_COLUMNS);
        let budget = 24 * tris.len() + 4096;
        let entries_at = |side: usize| {
            corners.iter().fold(0usize, |n, t| {
                let ((x0, x1), (y0, y1), _) = span(side, t);
                n.saturating_add((x1 - x0 + 1) * (y1 - y0 + 1))
            })
        };
        while side > 1 && entries_at(side) > budget {
            side /= 2;
        }
        let cell = extent / side as f64;
        let dims = [u, v].map(|k| (((hi[k] - lo[k]) / cell) as usize + 1).min(side));
        // Counting sort by column, triangles ascending within one.
        let mut start = vec![0u32; dims[0] * dims[1] + 1];
        for t in &corners {
            let ((x0, x1), (y0, y1), _) = span(side, t);
            for y in y0..=y1 {
                for x in x0..=x1 {
                    start[x + dims[0] * y + 1] += 1;
                }
            }
        }
        for c in 0..dims[0] * dims[1] {
            start[c + 1] += start[c];
        }
        let mut next = start.clone();
        let mut entries = vec![Entry::default(); start[dims[0] * dims[1]] as usize];
        for (i, t) in corners.iter().enumerate() {
            let ((x0, x1), (y0, y1), _) = span(side, t);
            let entry = Entry {
                top: t[0][2].max(t[1][2]).max(t[2][2]),
                lo: [0, 1].map(|k| t[0][k].min(t[1][k]).min(t[2][k])),
                hi: [0, 1].map(|k| t[0][k].max(t[1][k]).max(t[2][k])),
                triangle: i as u32,
            };
            for y in y0..=y1 {
                for x in x0..=x1 {
                    let c = x + dims[0] * y;
                    entries[next[c] as usize] = entry;
                    next[c] += 1;
                }
            }
        }
        for c in 0..dims[0] * dims[1] {
            entries[start[c] as usize..start[c + 1] as usize]
                .sort_unstable_by(|a, b| b.top.total_cmp(&a.top).then(a.triangle.cmp(&b.triangle)));
        }
        Columns { lo: [lo[u], lo[v]], inv_cell: [1.0 / cell; 2], dims, start, entries, corners }
    }

    /// The column of `(pu, pv)`, clamped to the grid.
    fn coords(&self, pu: f64, pv: f64) -> [usize; 2] {
        let c = |x: f64, k: usize| (((x - self.lo[k]) * self.inv_cell[k]).max(0.0) as usize).min(self.dims[k] - 1);
        [c(pu, 0), c(pv, 1)]
    }

    /// The signed number of triangles the ray from `p` (as `[u, v, axis]`) along `+axis`
    /// crosses: +1 for each it leaves through (facing `+axis`), -1 for each it enters through;
    /// and, when `both`, the same for the ray along `-axis` (else 0).
    fn crossings(&self, p: [f64; 3], both: bool) -> (i32, i32) {
        let [pu, pv, pw] = p;
        let [x, y] = self.coords(pu, pv);
        let c = x + self.dims[0] * y;
        let (mut up, mut down) = (0, 0);
        for e in &self.entries[self.start[c] as usize..self.start[c + 1] as usize] {
            if e.top <= pw && !both {
                // The rest of the column lies wholly below the ray's start.
                break;
            }
            if pu < e.lo[0] || pu > e.hi[0] || pv < e.lo[1] || pv > e.hi[1] {
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
            let w = (w0 * a[2] + w1 * b[2] + w2 * cc[2]) / area;
            if w > pw {
                up += sign;
            } else if w < pw {
                // The ray down the axis enters where the one up leaves.
                down -= sign;
            }
        }
        (up, down)
    }
}

/// The inside test of the prepared input.
pub(crate) struct Inside {
    columns: [Columns; 3],
    lo: DVec3,
    hi: DVec3,
    /// How many axes have rays: one when every part of the input is closed and faces outward
    /// (any ray decides), else three.
    axes: usize,
}

impl Inside {
    /// The test over the input triangles `tris` (corners in the working cube, finite); `closed`
    /// says every part of them is closed and faces outward ([`Prepared::solid`] on every
    /// triangle).
    ///
    /// [`Prepared::solid`]: crate::quantize::Prepared
    pub(crate) fn new(tris: &[[DVec3; 3]], closed: bool) -> Self {
        let (lo, hi) = if tris.is_empty() {
            (DVec3::ZERO, DVec3::ZERO)
        } else {
            tris.iter().flatten().fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), p| (lo.min(*p), hi.max(*p)))
        };
        let axes = if closed { 1 } else { 3 };
        let columns = [0, 1, 2].map(|axis| Columns::new(if axis < axes { tris } else { &[] }, axis, lo, hi));
        Inside { columns, lo, hi, axes }
    }

    /// Whether `p` lies inside the input (false for a point outside its box or not finite).
    pub(crate) fn contains(&self, p: DVec3) -> bool {
        if !(p.cmpge(self.lo) & p.cmple(self.hi)).all() {
            return false;
        }
        if self.axes == 1 {
            return self.columns[0].crossings([p.y, p.z, p.x], false).0 != 0;
        }
        // The rays up the three axes first (their lists stop early); when they disagree, the rays
        // down them too: inside when four or more of the six cross the surface.
        let at = |axis: usize| {
            let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
            [p[u], p[v], p[axis]]
        };
        let up = (0..3).filter(|&axis| self.columns[axis].crossings(at(axis), false).0 != 0).count();
        if up == 0 || up == 3 {
            return up == 3;
        }
        let crossed: usize = (0..3)
            .map(|axis| {
                let (up, down) = self.columns[axis].crossings(at(axis), true);
                usize::from(up != 0) + usize::from(down != 0)
            })
            .sum();
        crossed >= 4
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec3;
    use voxel_core::IndexedMesh;

    use super::*;
    use crate::quantize::prepare;

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
        let inside = Inside::new(&tris, closed);
        let mut ins = 0;
        for i in -7..=7 {
            for j in -7..=7 {
                for k in -7..=7 {
                    let p = DVec3::new(f64::from(i), f64::from(j), f64::from(k)) * 73.0 + 1.5;
                    let expected = !open && p.abs().max_element() < 500.0;
                    assert_eq!(inside.contains(p), expected, "{p} (closed {closed})");
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
        let inside = Inside::new(&tris, false);
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
    fn a_double_sided_box_has_no_inside() {
        // Every face twice, once each way: the rays' crossings cancel, as the winding number's do.
        let cube = cube(false);
        let mut triangles = cube.triangles().to_vec();
        triangles.extend(cube.triangles().iter().map(|&[a, b, c]| [a, c, b]));
        let tris: Vec<[DVec3; 3]> =
            triangles.iter().map(|t| t.map(|v| cube.positions()[v as usize].as_dvec3() * 1000.0 - 500.0)).collect();
        let inside = Inside::new(&tris, false);
        for p in [DVec3::ZERO, DVec3::splat(250.5), DVec3::new(-300.0, 100.0, 7.0)] {
            assert!(!inside.contains(p), "{p}");
        }
    }

    #[test]
    fn big_faces_stay_within_the_entry_budget() {
        // 2000 triangles each spanning the whole box across z: at eight columns per triangle
        // (127 per side) each would fill 16k columns of the z grid, 32 M entries.
        let tris: Vec<[DVec3; 3]> = (0..2000)
            .map(|i| {
                let z = f64::from(i);
                [DVec3::new(0.0, 0.0, z), DVec3::new(1000.0, 0.0, z), DVec3::new(0.0, 1000.0, z)]
            })
            .collect();
        let inside = Inside::new(&tris, false);
        for columns in &inside.columns {
            assert!(columns.entries.len() <= 24 * tris.len() + 4096, "{}", columns.entries.len());
        }
        // Stacked sheets of one facing: a ray up from below crosses all 2000 (counts 2000, not
        // none), but the rays across them cross none, so the point is outside.
        assert!(!inside.contains(DVec3::new(10.0, 10.0, 0.5)));
    }

    #[test]
    fn empty_input_has_no_inside() {
        let inside = Inside::new(&[], false);
        assert!(!inside.contains(DVec3::ZERO));
        assert!(!inside.contains(DVec3::splat(f64::NAN)));
    }
}
