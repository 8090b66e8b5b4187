//! The final check beyond the article ([`DecomposeOptions::max_protrusion`](crate::DecomposeOptions)):
//! whether a hull's surface lies outside the input farther than a bound, judged as
//! [`tightness`](crate::tightness) judges it (distance to the input surface, and outside where the
//! generalized winding number is under one half), at points `sample_spacing` apart on every hull
//! face.
//!
//! The article's error is the depth a surface sample's ray runs into what a hull seals. A hull can
//! stick out where no sample's ray looks: a plate's face reaching over a notch beside its
//! triangles, whose samples' rays leave through other faces. The check looks at the final hulls
//! only, instead of at every evaluation (which cost up to 6.6x the run when it was measured), and
//! the caller splits a hull that fails it back into the hulls it was merged from.

use glam::DVec3;

use crate::concavity::{Nearest, Samples, Visited, sample_triangle};
use crate::metrics::{Surface, bounds, closest_on_triangle};
use crate::quantize::Prepared;

/// The most grid cells (two bits each). With the default bound (a fraction of the diagonal) about
/// 2 million at most are needed, on a cube.
const MAX_CELLS: usize = 1 << 24;

/// How many cells around a sample's own (per axis) are near it: the cells are sized so that
/// every point of them lies within the limit of the sample.
const NEAR_REACH: usize = 1;

/// Clusters of input triangles farther than this many of their radii from a point count by their
/// dipole term in its winding number (the scorer's 3 costs twice the time; this far from the
/// surface the number is near a whole one, and only which side of one half it lies matters).
const FAR_FIELD: f64 = 2.0;

/// The most cells from a point, per axis, that one inside point marks.
const MARK_REACH: i64 = 4;

/// One bit per cell of a grid, rows along x padded to whole words.
struct Bits {
    /// Words per row.
    row: usize,
    words: Vec<u64>,
}

impl Bits {
    fn new(dims: [usize; 3]) -> Self {
        let row = dims[0].div_ceil(64);
        Bits { row, words: vec![0; row * dims[1] * dims[2]] }
    }

    /// Bit `x` of row `r` (`y + dims[1] * z`).
    #[inline]
    fn get(&self, r: usize, x: usize) -> bool {
        self.words[r * self.row + x / 64] >> (x % 64) & 1 != 0
    }

    #[inline]
    fn set(&mut self, r: usize, x: usize) {
        self.words[r * self.row + x / 64] |= 1 << (x % 64);
    }

    /// Every set cell's 26 neighbours set too (bits past a row's end may be set; nothing reads them).
    fn dilate(&mut self, dims: [usize; 3]) {
        let w = self.row;
        // Along x, word by word with the carries between words.
        for r in self.words.chunks_exact_mut(w) {
            let mut carry_in = 0u64;
            for i in 0..w {
                let v = r[i];
                let next = if i + 1 < w { r[i + 1] } else { 0 };
                r[i] = v | v << 1 | v >> 1 | carry_in >> 63 | next << 63;
                carry_in = v;
            }
        }
        // Along y, then z: a row ORs its two neighbours (from a copy).
        for (stride, count, outer) in [(w, dims[1], dims[2]), (w * dims[1], dims[2], 1)] {
            let old = self.words.clone();
            for o in 0..outer {
                let base = o * stride * count;
                for k in 0..count {
                    for i in 0..stride {
                        let at = base + k * stride + i;
                        let mut v = old[at];
                        if k > 0 {
                            v |= old[at - stride];
                        }
                        if k + 1 < count {
                            v |= old[at + stride];
                        }
                        self.words[at] = v;
                    }
                }
            }
        }
    }
}

/// What the check needs of the input: its samples (most hull points lie near one), its triangles
/// (the winding number and the exact distance of the rest), and grids of what is settled.
pub(crate) struct Protrusion<'a> {
    samples: &'a Samples,
    mesh: &'a Prepared,
    /// The input's triangles.
    tris: &'a [[DVec3; 3]],
    /// The input's triangles and the lids over the small holes of its closed parts
    /// ([`Prepared::lids`]), for the winding number's [`Surface`], built when first needed.
    closed: &'a [[DVec3; 3]],
    surface: Option<Surface<'a>>,
    seen: Visited,
    /// The largest distance outside the input a hull point may lie at.
    limit: f64,
    /// Spacing of the points checked on the hull faces.
    spacing: f64,
    /// Cells over the input's box every point of which lies within the limit of an input
    /// sample. A hull lies in the input's box (its corners are input vertices), so every point
    /// checked has a cell.
    near: Bits,
    /// Cells every point of which lies inside a closed part of the input, away from its surface.
    inside: Bits,
    origin: DVec3,
    cell: f64,
    dims: [usize; 3],
}

impl<'a> Protrusion<'a> {
    /// The check of hulls against the prepared input `mesh` (its triangles' corners in `tris`)
    /// and its `samples`, with a bound of `fraction` of the input's box diagonal at points
    /// `spacing` apart. `closed` is `tris` followed by the mesh's lids.
    pub(crate) fn new(
        samples: &'a Samples,
        mesh: &'a Prepared,
        tris: &'a [[DVec3; 3]],
        closed: &'a [[DVec3; 3]],
        fraction: f64,
        spacing: f64,
    ) -> Self {
        let (lo, hi) = bounds(tris.iter().flatten());
        let limit = fraction * (hi - lo).length();
        // Cells small enough that the 27 around a sample's are within the limit of it (a point
        // of a cell one cell away per axis is within 2 sqrt(3) cells of the sample), or larger
        // when that would take more than MAX_CELLS.
        let fine = 0.99 * limit / ((NEAR_REACH + 1) as f64 * 3f64.sqrt());
        // Cells along each axis (saturating), and their product; doubled until at most
        // MAX_CELLS (a flat input has one cell across, so the volume says nothing).
        let dims_for = |cell: f64| ((hi - lo) / cell).floor().to_array().map(|d| (d as usize).saturating_add(1));
        let count = |dims: [usize; 3]| dims[0].saturating_mul(dims[1]).saturating_mul(dims[2]);
        let mut cell = fine.max((hi - lo).max_element() / MAX_CELLS as f64).max(f64::MIN_POSITIVE);
        while count(dims_for(cell)) > MAX_CELLS {
            cell *= 2.0;
        }
        let dims = dims_for(cell);
        let mut check = Protrusion {
            samples,
            mesh,
            tris,
            closed,
            surface: None,
            seen: Visited::default(),
            limit,
            spacing,
            near: Bits::new(dims),
            inside: Bits::new(dims),
            origin: lo,
            cell,
            dims,
        };
        if cell == fine {
            for &p in samples.positions() {
                let (r, x) = check.cell_of(p);
                check.near.set(r, x);
            }
            for _ in 0..NEAR_REACH {
                check.near.dilate(dims);
            }
        }
        check
    }

    /// Whether the cell of `p` is settled (near or inside). A point off the grid has none (a
    /// hull's points lie in the input's box, but for rounding).
    #[inline]
    fn settled(&self, p: DVec3) -> bool {
        let c = (p - self.origin) / self.cell;
        let inside = c.cmpge(DVec3::ZERO) & c.cmplt(DVec3::from_array(self.dims.map(|d| d as f64)));
        if !inside.all() {
            return false;
        }
        let (row, x) = (c.y as usize + self.dims[1] * c.z as usize, c.x as usize);
        self.near.get(row, x) || self.inside.get(row, x)
    }

    /// The largest distance outside the input a hull point may lie at.
    pub(crate) fn limit(&self) -> f64 {
        self.limit
    }

    /// The cell of `p` as (row, x), clamped to the grid.
    #[inline]
    fn cell_of(&self, p: DVec3) -> (usize, usize) {
        let [x, y, z] = self.coords(p);
        (y as usize + self.dims[1] * z as usize, x as usize)
    }

    #[inline]
    fn coords(&self, p: DVec3) -> [i64; 3] {
        let c = ((p - self.origin) / self.cell).max(DVec3::ZERO);
        let top = |k: usize| self.dims[k] as i64 - 1;
        [(c.x as i64).min(top(0)), (c.y as i64).min(top(1)), (c.z as i64).min(top(2))]
    }

    /// Marks inside the cells around `x`'s (at most [`MARK_REACH`] away per axis) that lie wholly
    /// within `radius` of it.
    fn mark_inside(&mut self, x: DVec3, radius: f64) {
        let c = self.coords(x);
        let reach = ((radius / self.cell).ceil() as i64).min(MARK_REACH);
        let span = |k: usize| ((c[k] - reach).max(0), (c[k] + reach).min(self.dims[k] as i64 - 1));
        let [(x0, x1), (y0, y1), (z0, z1)] = [span(0), span(1), span(2)];
        // Per axis and cell, the squared distance from `x` to the cell's farther side.
        let far = |k: usize, i: i64| {
            let lo = self.origin[k] + i as f64 * self.cell;
            let d = (x[k] - lo).max(lo + self.cell - x[k]);
            d * d
        };
        let mut fx = [0.0f64; 2 * MARK_REACH as usize + 1];
        for (f, i) in fx.iter_mut().zip(x0..=x1) {
            *f = far(0, i);
        }
        let rr = radius * radius;
        for z in z0..=z1 {
            let fz = far(2, z);
            for y in y0..=y1 {
                let fyz = fz + far(1, y);
                if fyz >= rr {
                    continue;
                }
                let r = y as usize + self.dims[1] * z as usize;
                for (i, &f) in (x0..=x1).zip(&fx) {
                    if fyz + f < rr {
                        self.inside.set(r, i as usize);
                    }
                }
            }
        }
    }

    /// Whether `x`, farther than the limit from the surface, is outside the input. Where its
    /// nearest point on the input lies inside a face (not on its edges) of a solid part (closed
    /// but for a few cracks, of one winding, holding a volume, and so facing outward), the face's
    /// side says inside. Else, and to confirm an outside, the winding number, as
    /// [`tightness`](crate::tightness) has it. (The nearest sample's side, where the nearest
    /// point lies on an edge, was wrong beside edges sharper than 90 degrees: a review found 75
    /// of 2000 points outside a 10-degree blade called inside.) Marks the cells around an
    /// inside point.
    fn outside(&mut self, x: DVec3, nearest: &Nearest) -> bool {
        let d = nearest.distance;
        if let Some((t, q)) = nearest.triangle {
            if self.mesh.solid.get(t as usize).copied().unwrap_or(false) {
                let [a, b, c] = self.tris[t as usize];
                if let Some(n) = (b - a).cross(c - a).try_normalize() {
                    if (x - q).dot(n) <= -0.999 * d {
                        // Inside: so is the ball of radius `d`, which the surface does not
                        // reach (less a spacing: `d` can overstate the distance by a little at
                        // a needle's far end). Deep inside, where a hull's face cuts through a
                        // solid part, one point settles the cells of many.
                        self.mark_inside(x, d - self.spacing);
                        return false;
                    }
                }
            }
        }
        self.winding_outside(x, nearest.distance)
    }

    /// Whether `x`, at least `d` from the surface, is outside the input by the winding number, as
    /// [`tightness`](crate::tightness) has it; marks the cells around a point well inside.
    fn winding_outside(&mut self, x: DVec3, d: f64) -> bool {
        let tris = self.closed;
        let surface = self.surface.get_or_insert_with(|| {
            let (lo, hi) = bounds(tris.iter().flatten());
            Surface::new(tris, lo, hi)
        });
        let w = surface.winding_number_at(x, FAR_FIELD).abs();
        // Well inside: a closed part's winding number is a whole number, constant off its surface;
        // near an open part's holes it is not, but it changes gradually this far from the
        // surface, and a point this deep inside settles its ball as above.
        if w > 0.9 {
            self.mark_inside(x, d);
        }
        w < 0.5
    }

    /// Whether `x` lies within the limit of a lid over a small hole of a closed part: such a
    /// point is on the surface of the part's closed twin. A hull spanning a small hole (a sphere
    /// missing three triangles) would otherwise be split, and its parts again, down to the
    /// triangles around the hole (135 hulls where the closed sphere has one).
    fn near_lid(&self, x: DVec3) -> bool {
        let lids = &self.closed[self.tris.len()..];
        let rr = self.limit * self.limit;
        lids.iter().any(|&[a, b, c]| x.distance_squared(closest_on_triangle(x, a, b, c)) <= rr)
    }

    /// Whether the hull (`triangles` over `points`, each corner an input vertex) has a point, of
    /// those checked, outside the input and farther than the limit from it. `buf` is scratch.
    pub(crate) fn sticks_out(
        &mut self,
        points: &[DVec3],
        triangles: &[[u32; 3]],
        buf: &mut Vec<(DVec3, DVec3)>,
    ) -> bool {
        let limit = self.limit;
        for tri in triangles {
            let [p, q, r] = tri.map(|i| points[i as usize]);
            // Every point of a triangle lies within its longest edge of a corner, and corners are
            // input vertices: on the surface.
            if p.distance_squared(q).max(q.distance_squared(r)).max(r.distance_squared(p)) <= limit * limit {
                continue;
            }
            buf.clear();
            sample_triangle(p, q, r, self.spacing, buf);
            for &(x, _) in buf.iter() {
                if self.settled(x)
                    || x.distance_squared(p).min(x.distance_squared(q)).min(x.distance_squared(r)) <= limit * limit
                {
                    continue;
                }
                // Near a sample: near the surface (a sample lies on it).
                if self.samples.search_until(x, limit, limit).is_some() {
                    continue;
                }
                // Farther from every sample: the distance to the surface (the samples' overstates
                // it by up to about a spacing; the triangles of the samples within 1.5 spacings
                // of the nearest one hold the nearest point), then inside or outside.
                // Searched within the reach of an inside point's marks: beyond it the distance
                // would only cost (an open box's missing lid: 500 units from any sample).
                let far = limit + MARK_REACH as f64 * self.cell * 3f64.sqrt();
                let nearest = self.samples.surface_nearest(x, far, 1.5 * self.spacing, self.mesh, &mut self.seen);
                let out = match nearest {
                    Some(nearest) => nearest.distance > limit && self.outside(x, &nearest),
                    None => self.winding_outside(x, far),
                };
                if out && !self.near_lid(x) {
                    return true;
                }
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec3;
    use voxel_core::IndexedMesh;

    use super::*;
    use crate::quantize::prepare;

    /// The 8 corners and 12 triangles of the box `lo..hi`.
    fn cuboid(lo: DVec3, hi: DVec3) -> (Vec<DVec3>, Vec<[u32; 3]>) {
        let corners =
            (0..8).map(|i| DVec3::select(glam::BVec3::new(i & 1 != 0, i & 2 != 0, i & 4 != 0), hi, lo)).collect();
        let faces = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]];
        let triangles = faces.iter().flat_map(|&[a, b, c, d]| [[a, b, c], [a, c, d]]).collect();
        (corners, triangles)
    }

    fn mesh(points: &[DVec3], triangles: &[[u32; 3]]) -> IndexedMesh {
        IndexedMesh::new(points.iter().map(|p| p.as_vec3()).collect::<Vec<Vec3>>(), triangles.to_vec()).unwrap()
    }

    /// The fraction of the diagonal of `tris`' box that is 25 units (the tests' bound).
    fn bound_25(tris: &[[DVec3; 3]]) -> f64 {
        let (lo, hi) = bounds(tris.iter().flatten());
        25.0 / (hi - lo).length()
    }

    /// Runs `f` with the check of the prepared `input` (cube 1000, spacing 10, bound 25).
    fn with_check(input: &IndexedMesh, f: impl FnOnce(&mut Protrusion)) {
        let prep = prepare(input, 1000.0, 0.1);
        let samples = Samples::new(&prep, 10.0);
        let tris: Vec<[DVec3; 3]> = prep.triangles.iter().map(|t| t.map(|v| prep.positions[v as usize])).collect();
        let mut check = Protrusion::new(&samples, &prep, &tris, &tris, bound_25(&tris), 10.0);
        assert!((check.limit() - 25.0).abs() < 1e-9);
        f(&mut check);
    }

    #[test]
    fn boxes_around_a_closed_cube() {
        let (points, triangles) = cuboid(DVec3::ZERO, DVec3::ONE);
        with_check(&mesh(&points, &triangles), |check| {
            let mut buf = Vec::new();
            // The prepared cube spans -500..500.
            let mut sticks_out = |lo: DVec3, hi: DVec3| {
                let (p, t) = cuboid(lo, hi);
                check.sticks_out(&p, &t, &mut buf)
            };
            assert!(!sticks_out(DVec3::splat(-500.0), DVec3::splat(500.0)), "the cube itself");
            assert!(sticks_out(DVec3::splat(-500.0), DVec3::new(600.0, 500.0, 500.0)), "100 out");
            assert!(sticks_out(DVec3::splat(-500.0), DVec3::new(540.0, 500.0, 500.0)), "40 out");
            assert!(!sticks_out(DVec3::splat(-500.0), DVec3::new(515.0, 500.0, 500.0)), "15 out: within 25");
            // Faces deep inside the solid (a hull's cut through it), and one grazing its surface.
            assert!(!sticks_out(DVec3::splat(-300.0), DVec3::splat(300.0)), "inside");
            assert!(!sticks_out(DVec3::splat(-450.0), DVec3::splat(450.0)), "inside, near the surface");
        });
    }

    #[test]
    fn inside_a_cube_with_a_hole_by_the_winding_number() {
        // One triangle gone: every triangle has a corner on the hole's rim, so none is solid and
        // the winding number (about 0.9 at the centre) decides.
        let (points, mut triangles) = cuboid(DVec3::ZERO, DVec3::ONE);
        triangles.pop();
        with_check(&mesh(&points, &triangles), |check| {
            let mut buf = Vec::new();
            let (p, t) = cuboid(DVec3::splat(-300.0), DVec3::splat(300.0));
            assert!(!check.sticks_out(&p, &t, &mut buf), "inside");
            let (p, t) = cuboid(DVec3::splat(-500.0), DVec3::new(600.0, 500.0, 500.0));
            assert!(check.sticks_out(&p, &t, &mut buf), "100 out");
        });
    }

    #[test]
    fn behind_an_open_sheet_is_outside() {
        // A square sheet: no inside (its winding number is about 0 off it), so a box reaching
        // 100 behind it sticks out, and a box within the bound of it does not.
        let points = [DVec3::ZERO, DVec3::X, DVec3::new(1.0, 1.0, 0.0), DVec3::Y];
        let input = mesh(&points, &[[0, 1, 2], [0, 2, 3]]);
        with_check(&input, |check| {
            let mut buf = Vec::new();
            // The prepared sheet spans -500..500 in x and y, at z = 0.
            let (p, t) = cuboid(DVec3::new(-500.0, -500.0, -100.0), DVec3::new(500.0, 500.0, 0.0));
            assert!(check.sticks_out(&p, &t, &mut buf), "100 behind");
            let (p, t) = cuboid(DVec3::new(-500.0, -500.0, -100.0), DVec3::new(500.0, 500.0, 0.0));
            assert!(check.sticks_out(&p, &t, &mut buf), "again, with the grid as the first left it");
            let (p, t) = cuboid(DVec3::new(-500.0, -500.0, -20.0), DVec3::new(500.0, 500.0, 0.0));
            assert!(!check.sticks_out(&p, &t, &mut buf), "20 behind: within 25");
        });
    }

    /// Beside an edge sharper than 90 degrees a point can lie behind one face's plane and still
    /// be outside: the nearest sample's side called 75 of 2000 such points inside around a
    /// 10-degree blade (a review), and marked cells outside as inside. Every far point is now
    /// classified as the winding number has it, and every cell marked inside is inside.
    #[test]
    fn beside_a_sharp_blade_outside_is_outside() {
        // A closed prism whose cross-section is a 10-degree wedge, its edge along z.
        let spread = (5f64.to_radians()).tan();
        let section = [DVec3::ZERO, DVec3::new(-1.0, spread, 0.0), DVec3::new(-1.0, -spread, 0.0)];
        let mut points: Vec<DVec3> = section.to_vec();
        points.extend(section.iter().map(|p| *p + DVec3::Z));
        let triangles = [[0, 2, 1], [3, 4, 5], [0, 1, 4], [0, 4, 3], [1, 2, 5], [1, 5, 4], [2, 0, 3], [2, 3, 5]];
        let input = mesh(&points, &triangles);
        let prep = prepare(&input, 1000.0, 0.1);
        let samples = Samples::new(&prep, 10.0);
        let tris: Vec<[DVec3; 3]> = prep.triangles.iter().map(|t| t.map(|v| prep.positions[v as usize])).collect();
        let (lo, hi) = bounds(tris.iter().flatten());
        let surface = Surface::new(&tris, lo, hi);
        let mut check = Protrusion::new(&samples, &prep, &tris, &tris, bound_25(&tris), 10.0);
        assert!((check.limit() - 25.0).abs() < 1e-9);
        // The blade's edge in the cube: the prepared prism spans x over 1000 units, the edge at
        // its largest x.
        let edge_x = hi.x;
        let mut seen = Visited::default();
        let (mut outside, mut checked) = (0, 0);
        for i in 0..40 {
            for j in 0..40 {
                let x =
                    DVec3::new(edge_x - 200.0 + 10.0 * f64::from(i), -200.0 + 10.0 * f64::from(j), 0.5 * (lo.z + hi.z));
                let Some(nearest) = samples.surface_nearest(x, 1e9, 15.0, &prep, &mut seen) else { continue };
                if nearest.distance <= 25.0 {
                    continue;
                }
                let expected = surface.winding_number(x).abs() < 0.5;
                assert_eq!(check.outside(x, &nearest), expected, "{x}");
                checked += 1;
                outside += usize::from(expected);
            }
        }
        assert!(checked > 1000 && outside > 1000, "{checked} {outside}");
        for z in 0..check.dims[2] {
            for y in 0..check.dims[1] {
                for x in 0..check.dims[0] {
                    if check.inside.get(y + check.dims[1] * z, x) {
                        let centre = check.origin + (DVec3::new(x as f64, y as f64, z as f64) + 0.5) * check.cell;
                        assert!(surface.winding_number(centre).abs() >= 0.5, "cell ({x}, {y}, {z}) marked inside");
                    }
                }
            }
        }
    }

    #[test]
    fn dilation_sets_the_26_neighbours() {
        let dims = [130, 5, 4];
        let mut bits = Bits::new(dims);
        // Cells at a word boundary (63, 64) and at the grid's edges.
        let set = [(63, 2, 1), (64, 0, 3), (0, 4, 0), (129, 1, 2)];
        for &(x, y, z) in &set {
            bits.set(y + dims[1] * z, x);
        }
        bits.dilate(dims);
        for z in 0..dims[2] {
            for y in 0..dims[1] {
                for x in 0..dims[0] {
                    let expected = set
                        .iter()
                        .any(|&(sx, sy, sz)| sx.abs_diff(x) <= 1 && sy.abs_diff(y) <= 1 && sz.abs_diff(z) <= 1);
                    assert_eq!(bits.get(y + dims[1] * z, x), expected, "({x}, {y}, {z})");
                }
            }
        }
    }
}
