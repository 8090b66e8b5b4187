//! Concavity error from uniform surface samples (the article, "Concavity Error
//! Calculation").
//!
//! Every triangle is sampled on a grid of a fixed spacing (not a fixed count per triangle, which
//! leaves large triangles with blind spots), and the samples go into a dense spatial grid. A
//! candidate hull gathers the samples in its bounding box, keeps those inside it, and casts a ray
//! from each along its surface normal to the hull's far side: the longest ray is the error. A hull
//! that only wraps the surface gives rays of length zero; a hull that seals a cavity gives rays as
//! long as the cavity is deep. The scan stops as soon as one ray exceeds the limit.
//!
//! Flat hulls have no inside for these rays; their error is the square root of the area they add
//! to the two hulls they merge (the article's trick), computed by the caller.

use glam::DVec3;

use crate::metrics::closest_on_triangle;
use crate::quantize::Prepared;
use crate::quickhull::Plane;

/// Surface samples sorted by grid cell, with the cell ranges.
#[derive(Clone, Debug, Default)]
pub(crate) struct Samples {
    positions: Vec<DVec3>,
    normals: Vec<DVec3>,
    /// The triangle (of the prepared mesh) each sample lies on.
    triangles: Vec<u32>,
    /// The direction bin of each sample's normal ([`direction_bin`]), computed once.
    bins: Vec<u16>,
    origin: DVec3,
    inv_cell: f64,
    dims: [usize; 3],
    /// `cell_start[c]..cell_start[c + 1]` are the samples of cell `c` (x fastest, then y, then z).
    cell_start: Vec<u32>,
}

/// What [`Samples::surface_nearest`] finds.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Nearest {
    /// The distance to the surface (see [`Samples::surface_within`]).
    pub distance: f64,
    /// The triangle at that distance and its point nearest the query, when a triangle is nearer
    /// than the nearest sample (else the distance is the sample's).
    pub triangle: Option<(u32, DVec3)>,
}

/// Triangles already measured by one [`Samples::surface_within`] query: a stamp per triangle,
/// so that a query clears nothing.
#[derive(Clone, Debug, Default)]
pub(crate) struct Visited {
    marks: Vec<u32>,
    stamp: u32,
}

impl Visited {
    /// Starts a query over `n` triangles.
    fn start(&mut self, n: usize) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 || self.marks.len() != n {
            self.marks.clear();
            self.marks.resize(n, 0);
            self.stamp = 1;
        }
    }

    /// Marks triangle `t`; false when it was marked already in this query.
    fn insert(&mut self, t: u32) -> bool {
        let fresh = self.marks[t as usize] != self.stamp;
        self.marks[t as usize] = self.stamp;
        fresh
    }
}

/// Buffers of [`Samples::concavity`], reused across calls.
#[derive(Clone, Debug, Default)]
pub(crate) struct ScanScratch {
    /// The planes' normals and offsets in columns, padded to a multiple of [`LANES`] with planes
    /// that settle nothing.
    nx: Vec<f64>,
    ny: Vec<f64>,
    nz: Vec<f64>,
    offset: Vec<f64>,
    /// Per direction bin: the call's stamp and the last plane that settled a sample whose normal
    /// falls in the bin.
    by_direction: Vec<(u32, u32)>,
    stamp: u32,
}

/// Planes tested together (a block the compiler vectorizes, without branches inside).
const LANES: usize = 8;

/// Direction bins per side of a cube face: 6 x 16 x 16 bins of about 6 degrees.
const DIRECTION_BINS: usize = 16;

/// The cube-map bin of unit direction `d`.
#[inline]
fn direction_bin(d: DVec3) -> usize {
    let a = d.abs();
    let (face, u, v, m) = if a.x >= a.y && a.x >= a.z {
        (usize::from(d.x < 0.0), d.y, d.z, a.x)
    } else if a.y >= a.z {
        (2 + usize::from(d.y < 0.0), d.x, d.z, a.y)
    } else {
        (4 + usize::from(d.z < 0.0), d.x, d.y, a.z)
    };
    let half_n = 0.5 * DIRECTION_BINS as f64;
    let inv_m = 1.0 / m;
    let cell = |x: f64| (((x * inv_m + 1.0) * half_n) as usize).min(DIRECTION_BINS - 1);
    (face * DIRECTION_BINS + cell(u)) * DIRECTION_BINS + cell(v)
}

/// The most cells per axis: 64^3 cells of 4 bytes is 1 MiB, and finer cells stop paying once a
/// cell holds a handful of samples.
const MAX_CELLS_PER_AXIS: usize = 64;

impl Samples {
    /// Samples every triangle of `mesh` on a grid of about `spacing` (at least one sample per
    /// triangle, at its centre when it is smaller than the spacing).
    pub(crate) fn new(mesh: &Prepared, spacing: f64) -> Self {
        let mut raw: Vec<(DVec3, DVec3)> = Vec::new();
        let mut owner: Vec<u32> = Vec::new();
        for (t, tri) in mesh.triangles.iter().enumerate() {
            let [a, b, c] = tri.map(|v| mesh.positions[v as usize]);
            sample_triangle(a, b, c, spacing, &mut raw);
            owner.resize(raw.len(), t as u32);
        }
        Self::from_samples(&raw, &owner, spacing)
    }

    /// The grid of the samples `raw` (position, normal) at `spacing`, each on triangle
    /// `owner[i]`.
    fn from_samples(raw: &[(DVec3, DVec3)], owner: &[u32], spacing: f64) -> Self {
        let (mut lo, mut hi) = (DVec3::INFINITY, DVec3::NEG_INFINITY);
        for (p, _) in raw {
            lo = lo.min(*p);
            hi = hi.max(*p);
        }
        if raw.is_empty() {
            return Self::default();
        }
        let extent = (hi - lo).max_element().max(spacing);
        // About two samples' spacing per cell, but never more than MAX_CELLS_PER_AXIS.
        let cell = (2.0 * spacing).max(extent / MAX_CELLS_PER_AXIS as f64);
        let dims = ((hi - lo) / cell).floor().as_uvec3().to_array().map(|d| (d as usize + 1).min(MAX_CELLS_PER_AXIS));
        let mut grid = Samples { origin: lo, inv_cell: 1.0 / cell, dims, ..Self::default() };
        let mut keyed: Vec<(u32, u32)> =
            raw.iter().enumerate().map(|(i, (p, _))| (grid.cell_index(*p), i as u32)).collect();
        // Sorting by (cell, sample) keeps the order deterministic.
        keyed.sort_unstable();
        let n_cells = dims[0] * dims[1] * dims[2];
        grid.cell_start = vec![0; n_cells + 1];
        for &(c, _) in &keyed {
            grid.cell_start[c as usize + 1] += 1;
        }
        for c in 0..n_cells {
            grid.cell_start[c + 1] += grid.cell_start[c];
        }
        grid.positions = keyed.iter().map(|&(_, i)| raw[i as usize].0).collect();
        grid.normals = keyed.iter().map(|&(_, i)| raw[i as usize].1).collect();
        grid.triangles = keyed.iter().map(|&(_, i)| owner[i as usize]).collect();
        grid.bins = grid.normals.iter().map(|&d| direction_bin(d) as u16).collect();
        grid
    }

    /// The samples' positions.
    pub(crate) fn positions(&self) -> &[DVec3] {
        &self.positions
    }

    /// Number of samples.
    pub(crate) fn len(&self) -> usize {
        self.positions.len()
    }

    fn cell_coords(&self, p: DVec3) -> [usize; 3] {
        let c = (p - self.origin) * self.inv_cell;
        // Clamped: points outside the grid's box read the border cells (their samples are tested
        // against the exact box anyway). The cast saturates negatives and NaN to 0 and truncates
        // the rest, which is their floor: the same cells as `floor` gave, without its libm call
        // (x86_64's baseline has no rounding instruction), a fifth of the distance phase's queries.
        [
            (c.x as usize).min(self.dims[0] - 1),
            (c.y as usize).min(self.dims[1] - 1),
            (c.z as usize).min(self.dims[2] - 1),
        ]
    }

    fn cell_index(&self, p: DVec3) -> u32 {
        let [x, y, z] = self.cell_coords(p);
        (x + self.dims[0] * (y + self.dims[1] * z)) as u32
    }

    /// The distance from `p` to the nearest sample when one lies within `radius`, else `None`.
    pub(crate) fn nearest_within(&self, p: DVec3, radius: f64) -> Option<f64> {
        self.search_until(p, radius, -1.0)
    }

    /// The distance from `p` to the sampled surface (the nearest triangle of `mesh`) when it is
    /// within `radius`, else `None`; never less than the true distance. The triangles tried are
    /// those with a sample within the nearest sample's distance plus `reach`. With `reach` at 1.5
    /// spacings the answer is exact wherever the samples cover their triangle that closely (rows
    /// and columns are at most 1.5 spacings apart); the far end of a needle, whose one row of
    /// samples runs at half its height and so along half its length, can be farther from its
    /// samples, and there the answer stays an upper bound (the unit test: exact on 97% or more of
    /// random points, never below the true distance).
    pub(crate) fn surface_within(
        &self,
        p: DVec3,
        radius: f64,
        reach: f64,
        mesh: &Prepared,
        seen: &mut Visited,
    ) -> Option<f64> {
        let nearest = self.nearest_within(p, radius + reach)?;
        let best = self.surface_near(p, nearest, nearest.min(radius) + reach, mesh, seen).distance;
        (best <= radius).then_some(best)
    }

    /// [`Samples::surface_within`] with the nearest triangle and its point nearest `p` (`None`
    /// when no sample lies within `radius`).
    pub(crate) fn surface_nearest(
        &self,
        p: DVec3,
        radius: f64,
        reach: f64,
        mesh: &Prepared,
        seen: &mut Visited,
    ) -> Option<Nearest> {
        let nearest = self.search_until(p, radius, -1.0)?;
        Some(self.surface_near(p, nearest, nearest + reach, mesh, seen))
    }

    /// The nearest of `nearest` (a sample's distance) and the triangles with a sample within `r`
    /// of `p`.
    fn surface_near(&self, p: DVec3, nearest: f64, r: f64, mesh: &Prepared, seen: &mut Visited) -> Nearest {
        let rr = r * r;
        let (lo, hi) = (self.cell_coords(p - DVec3::splat(r)), self.cell_coords(p + DVec3::splat(r)));
        seen.start(mesh.triangles.len());
        let mut best = nearest;
        let mut at = None;
        for z in lo[2]..=hi[2] {
            for y in lo[1]..=hi[1] {
                let row = self.dims[0] * (y + self.dims[1] * z);
                let (start, end) = (self.cell_start[row + lo[0]] as usize, self.cell_start[row + hi[0] + 1] as usize);
                for i in start..end {
                    if self.positions[i].distance_squared(p) > rr {
                        continue;
                    }
                    let t = self.triangles[i];
                    if !seen.insert(t) {
                        continue;
                    }
                    let [a, b, c] = mesh.triangles[t as usize].map(|v| mesh.positions[v as usize]);
                    let q = closest_on_triangle(p, a, b, c);
                    let d = p.distance(q);
                    if d <= best {
                        best = d;
                        at = Some((t, q));
                    }
                }
            }
        }
        Nearest { distance: best, triangle: at }
    }

    /// The distance from `p` to the nearest sample within `radius`, except that the search
    /// stops at the first sample found within `enough` (a negative `enough`: never) and returns
    /// that sample's distance (then at most `enough`, but not necessarily the nearest). `None`
    /// when no sample lies within `radius`.
    ///
    /// Searches shells of cells outward from `p`'s own, and stops once no farther shell can hold
    /// a nearer sample, so the cost follows the distance found, not `radius`.
    /// Cells whose box lies farther from `p` than the nearest sample found so far are not read:
    /// rows by their distance across the row, the cells of a row by their distance along it,
    /// and whole shells by the distance from `p` to the boundary of the shells already read. All
    /// three bounds are padded against rounding (a millionth of a cell, plus the rounding of
    /// `p`'s grid coordinates, which grows with its distance from the grid), so the nearest
    /// distance is the one a full scan finds, bit for bit.
    pub(crate) fn search_until(&self, p: DVec3, radius: f64, enough: f64) -> Option<f64> {
        if self.positions.is_empty() || !(radius >= 0.0) {
            return None;
        }
        let r = DVec3::splat(radius);
        // The cells within `radius` of `p` (clamped to the grid) and `p`'s own.
        let (lo, hi) = (self.cell_coords(p - r), self.cell_coords(p + r));
        let centre = self.cell_coords(p);
        let cell = 1.0 / self.inv_cell;
        // `p` relative to the grid, in units of cells; the distance from `p` to cell row `k`'s
        // slab on an axis is `gap(axis, k)` (0 inside it).
        let q = (p - self.origin) * self.inv_cell;
        // The cell boxes' own rounding, and that of `q` (relative to its magnitude).
        let pad = (1e-6 + 1e-13 * q.abs().max_element()) * cell;
        let q = q.to_array();
        let gap =
            |axis: usize, k: usize| ((k as f64 - q[axis]).max(q[axis] - (k + 1) as f64).max(0.0) * cell - pad).max(0.0);
        let mut best = radius * radius;
        let mut found = false;
        let enough = if enough < 0.0 { -1.0 } else { enough * enough };
        let reach = (0..3).map(|k| (centre[k] - lo[k]).max(hi[k] - centre[k])).max().unwrap_or(0);
        for shell in 0..=reach {
            if found && shell > 0 {
                // Every sample in this shell or beyond lies outside the box of the shells read
                // so far: at least the distance from `p` to that box's boundary (or `shell - 1`
                // cells, where `p` lies outside its clamped centre cell).
                let inner = shell - 1;
                let to_boundary = (0..3)
                    .map(|k| {
                        let below = q[k] - (centre[k] as f64 - inner as f64);
                        let above = (centre[k] + inner + 1) as f64 - q[k];
                        below.min(above)
                    })
                    .fold(f64::INFINITY, f64::min);
                let near = ((to_boundary * cell).max(inner as f64 * cell) - pad).max(0.0);
                if near * near > best {
                    break;
                }
            }
            let span = |k: usize| (centre[k].saturating_sub(shell).max(lo[k]), (centre[k] + shell).min(hi[k]));
            let ((x0, x1), (y0, y1), (z0, z1)) = (span(0), span(1), span(2));
            for z in z0..=z1 {
                let gz = gap(2, z);
                let gz = gz * gz;
                if gz > best {
                    continue;
                }
                for y in y0..=y1 {
                    let gy = gap(1, y);
                    let across = gz + gy * gy;
                    if across > best {
                        continue;
                    }
                    let row = self.dims[0] * (y + self.dims[1] * z);
                    let scan = |x0: usize, x1: usize, best: &mut f64, found: &mut bool| {
                        let start = self.cell_start[row + x0] as usize;
                        let end = self.cell_start[row + x1 + 1] as usize;
                        // A branch-free minimum (it vectorizes). An empty cell's infinity
                        // finds nothing, even when `best` is infinite (a radius whose square
                        // overflows).
                        let nearest =
                            self.positions[start..end].iter().fold(f64::INFINITY, |m, q| m.min(q.distance_squared(p)));
                        if start < end && nearest <= *best {
                            *best = nearest;
                            *found = true;
                        }
                    };
                    if z.abs_diff(centre[2]) == shell || y.abs_diff(centre[1]) == shell {
                        // A face of the shell: the row's cells within `best` along x.
                        let w = ((best - across).sqrt() + pad) * self.inv_cell;
                        // (Truncation is the floor here; below zero it saturates to cell 0,
                        // which at worst reads one cell more.)
                        let (xa, xb) = (q[0] - w, q[0] + w);
                        let xa = if xa > x0 as f64 { xa as usize } else { x0 };
                        let xb = if xb < x1 as f64 { xb as usize } else { x1 };
                        if xa <= xb {
                            scan(xa, xb, &mut best, &mut found);
                        }
                    } else {
                        // Inside the shell's y-z square: its two ends, when they are in the grid.
                        if centre[0] >= shell && centre[0] - shell >= lo[0] {
                            let x = centre[0] - shell;
                            let gx = gap(0, x);
                            if across + gx * gx <= best {
                                scan(x, x, &mut best, &mut found);
                            }
                        }
                        if shell > 0 && centre[0] + shell <= hi[0] {
                            let x = centre[0] + shell;
                            let gx = gap(0, x);
                            if across + gx * gx <= best {
                                scan(x, x, &mut best, &mut found);
                            }
                        }
                    }
                    if found && best <= enough {
                        return Some(best.sqrt());
                    }
                }
            }
        }
        found.then(|| best.sqrt())
    }

    /// The concavity error of the solid hull bounded by `planes`, over the samples in the box
    /// `lo..hi`: the longest ray from a sample inside (within `eps`) along its normal to the
    /// hull's far side, or `start.max(eps)` when no ray is longer (rays up to `eps` are rounding:
    /// the caller counts them as 0; rays up to `start` are known not to matter). Returns as soon
    /// as a ray is longer than `limit` (the value is then that ray's length).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn concavity(
        &self,
        planes: &[Plane],
        lo: DVec3,
        hi: DVec3,
        eps: f64,
        start: f64,
        limit: f64,
        scratch: &mut ScanScratch,
    ) -> f64 {
        if self.positions.is_empty() || planes.is_empty() {
            return start.max(eps);
        }
        let (lo, hi) = (lo - DVec3::splat(eps), hi + DVec3::splat(eps));
        let c0 = self.cell_coords(lo);
        let c1 = self.cell_coords(hi);
        // Rays up to `eps` long are rounding (a sample on the hull's own face): starting from
        // `eps`, they settle as soon as a plane they leave through is found.
        let mut worst = start.max(eps);
        // A sample matters only if it is inside and its ray is longer than the worst so far, so
        // one plane that puts it outside, or that its ray leaves through within `worst`, settles
        // it. Neighbouring samples (the grid keeps them together) are usually settled by the
        // same plane: the last plane that settled one is tried first. A sample on the hull's own
        // surface (the bulk of them) is settled by the face it lies on, whose normal is the
        // sample's: the last plane that settled a sample of the same normal direction (a cube-map
        // bin) is tried before that. Such samples then cost one or two planes instead of all.
        let ScanScratch { nx, ny, nz, offset, by_direction, stamp } = scratch;
        let n = planes.len().div_ceil(LANES) * LANES;
        for (k, column) in [&mut *nx, &mut *ny, &mut *nz, &mut *offset].into_iter().enumerate() {
            column.clear();
            column.extend(planes.iter().map(|pl| if k < 3 { pl.normal[k] } else { pl.offset }));
            // Padding: distance -infinity (inside), no exit.
            column.resize(n, if k < 3 { 0.0 } else { f64::INFINITY });
        }
        *stamp = stamp.wrapping_add(1);
        if *stamp == 0 || by_direction.is_empty() {
            by_direction.clear();
            by_direction.resize(6 * DIRECTION_BINS * DIRECTION_BINS, (0, 0));
            *stamp = 1;
        }
        let stamp = *stamp;
        let settles = |plane: &Plane, p: DVec3, d: DVec3, worst: f64| {
            let dist = plane.distance(p);
            if dist > eps {
                return true;
            }
            let along = plane.normal.dot(d);
            along > 0.0 && (-dist).max(0.0) <= worst * along
        };
        // The block that settled the last sample is tried first.
        let blocks = n / LANES;
        let mut first_block = 0;
        let mut last = 0u32;
        for z in c0[2]..=c1[2] {
            for y in c0[1]..=c1[1] {
                let row = self.dims[0] * (y + self.dims[1] * z);
                let start = self.cell_start[row + c0[0]] as usize;
                let end = self.cell_start[row + c1[0] + 1] as usize;
                for i in start..end {
                    let p = self.positions[i];
                    if !(p.cmpge(lo).all() && p.cmple(hi).all()) {
                        continue;
                    }
                    let d = self.normals[i];
                    let bin = usize::from(self.bins[i]);
                    let (seen, guess) = by_direction[bin];
                    if seen == stamp && settles(&planes[guess as usize], p, d, worst) {
                        last = guess;
                        continue;
                    }
                    // Then the plane that settled the previous sample (often on the same
                    // triangle: the grid keeps a triangle's samples together).
                    if (seen != stamp || last != guess) && settles(&planes[last as usize], p, d, worst) {
                        by_direction[bin] = (stamp, last);
                        continue;
                    }
                    // Blocks of planes: the largest distance (outside by more than eps?) and the
                    // largest exit slack `worst * along - max(-dist, 0)` over planes the ray
                    // leaves through (an exit within `worst`?), branch-free within a block.
                    let mut settled = false;
                    let mut block = first_block;
                    for _ in 0..blocks {
                        let range = block * LANES..(block + 1) * LANES;
                        // Fixed-size blocks and non-short-circuit tests: the compiler vectorizes
                        // the lanes without bounds checks or branches.
                        let lanes = |column: &[f64]| -> [f64; LANES] {
                            let mut out = [0.0; LANES];
                            out.copy_from_slice(&column[range.clone()]);
                            out
                        };
                        let (bx, by, bz, bo) = (lanes(nx), lanes(ny), lanes(nz), lanes(offset));
                        let mut hit = false;
                        for k in 0..LANES {
                            let dist = bx[k] * p.x + by[k] * p.y + bz[k] * p.z - bo[k];
                            let along = bx[k] * d.x + by[k] * d.y + bz[k] * d.z;
                            let depth = if dist < 0.0 { -dist } else { 0.0 };
                            let exits = (along > 0.0) & (depth <= worst * along);
                            hit |= exits | (dist > eps);
                        }
                        if hit {
                            settled = true;
                            first_block = block;
                            if let Some(k) = (block * LANES..block * LANES + LANES)
                                .find(|&k| k < planes.len() && settles(&planes[k], p, d, worst))
                            {
                                by_direction[bin] = (stamp, k as u32);
                                last = k as u32;
                            }
                            break;
                        }
                        block = if block + 1 == blocks { 0 } else { block + 1 };
                    }
                    if settled {
                        continue;
                    }
                    // Inside, and its ray leaves farther than `worst`: the exact exit.
                    let mut t_exit = f64::INFINITY;
                    for plane in planes {
                        let along = plane.normal.dot(d);
                        if along > 0.0 {
                            t_exit = t_exit.min((-plane.distance(p)).max(0.0) / along);
                        }
                    }
                    if t_exit.is_finite() {
                        worst = t_exit;
                        if worst > limit {
                            return worst;
                        }
                    }
                }
            }
        }
        worst
    }
}

/// Samples of one triangle on rows parallel to its longest edge, `spacing` apart, each row split
/// evenly at about `spacing`: about area / spacing^2 samples, at least one.
pub(crate) fn sample_triangle(a: DVec3, b: DVec3, c: DVec3, spacing: f64, out: &mut Vec<(DVec3, DVec3)>) {
    let Some(normal) = (b - a).cross(c - a).try_normalize() else { return };
    // Rotate the corners so that a -> b is the longest edge.
    let (a, b, c) = {
        let (ab, bc, ca) = ((b - a).length_squared(), (c - b).length_squared(), (a - c).length_squared());
        if ab >= bc && ab >= ca {
            (a, b, c)
        } else if bc >= ca {
            (b, c, a)
        } else {
            (c, a, b)
        }
    };
    let length = (b - a).length();
    let u = (b - a) / length;
    let w = normal.cross(u);
    let cx = (c - a).dot(u);
    let height = (c - a).dot(w);
    if !(height > 0.0 && length > 0.0) {
        return;
    }
    let rows = ((height / spacing).round() as usize).max(1);
    for r in 0..rows {
        let y = (r as f64 + 0.5) * height / rows as f64;
        let f = y / height;
        let (x0, x1) = (cx * f, length + (cx - length) * f);
        let n = (((x1 - x0) / spacing).round() as usize).max(1);
        for k in 0..n {
            let x = x0 + (k as f64 + 0.5) * (x1 - x0) / n as f64;
            out.push((a + u * x + w * y, normal));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triangle_samples_are_inside_and_about_area_over_spacing_squared() {
        let (a, b, c) = (DVec3::ZERO, DVec3::new(100.0, 0.0, 0.0), DVec3::new(30.0, 0.0, 80.0));
        let mut out = Vec::new();
        sample_triangle(a, b, c, 5.0, &mut out);
        let area = 0.5 * 100.0 * 80.0;
        let expected = area / 25.0;
        assert!((out.len() as f64 - expected).abs() < 0.15 * expected, "{} vs {expected}", out.len());
        for (p, n) in out {
            // Barycentric check against the original corners.
            let v0 = b - a;
            let v1 = c - a;
            let v2 = p - a;
            let d = v0.x * v1.z - v1.x * v0.z;
            let s = (v2.x * v1.z - v1.x * v2.z) / d;
            let t = (v0.x * v2.z - v2.x * v0.z) / d;
            assert!(s >= 0.0 && t >= 0.0 && s + t <= 1.0, "{p}");
            assert!(p.y.abs() < 1e-12);
            assert!((n - DVec3::NEG_Y).length() < 1e-12);
        }
    }

    /// Two cases a review found (the second also failed before the pruning): a radius whose
    /// square overflows made an empty cell "found" at infinity, and a point within a millionth
    /// of a cell of its cell's face lost the shell bound's padding, so a sample two cells over,
    /// nearer by an ulp, was not read.
    #[test]
    fn search_edge_cases_equal_brute_force() {
        let spacing = 0.8022797067694057;
        let points = [
            DVec3::splat(-17.48700120784075),
            DVec3::splat(30.649781198323595),
            DVec3::new(12.999627649396666, -0.6391273656832261, -0.6391273656832261),
            DVec3::new(14.604187062935477, 0.9654320478555852, -0.6391273656832261),
        ];
        let raw: Vec<(DVec3, DVec3)> = points.iter().map(|&p| (p, DVec3::Z)).collect();
        let samples = Samples::from_samples(&raw, &[0; 4], spacing);
        let brute = |p: DVec3| points.iter().map(|q| q.distance(p)).fold(f64::INFINITY, f64::min);
        let p = DVec3::new(14.604187062935477, -0.6391273656832261, -0.6391273656832261);
        assert_eq!(samples.nearest_within(p, 160.5), Some(brute(p)));
        // An empty cell near the middle, and radii whose squares overflow.
        let p = DVec3::splat(6.0);
        for (radius, enough) in [(1e200, 1e199), (f64::INFINITY, f64::INFINITY), (1e200, -1.0)] {
            let d = samples.search_until(p, radius, enough).expect("a sample within the radius");
            assert!(d.is_finite() && d >= brute(p) && (d == brute(p) || d <= enough), "{radius} {enough}: {d}");
        }
    }

    /// The shell search finds what a scan of every sample finds, for points inside, at the edge
    /// of and outside the grid, with radii from 0 to beyond the grid.
    #[test]
    fn nearest_within_equals_brute_force() {
        use glam::Vec3;
        let mut seed = 12345u64;
        let mut next = move || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 40) as f32 / (1u64 << 24) as f32
        };
        let mut positions = Vec::new();
        let mut triangles = Vec::new();
        for k in 0..60u32 {
            let c = Vec3::new(next(), next(), next()) * 100.0;
            for _ in 0..3 {
                positions.push(c + Vec3::new(next(), next(), next()) * 20.0);
            }
            triangles.push([3 * k, 3 * k + 1, 3 * k + 2]);
        }
        let mesh = voxel_core::IndexedMesh::new(positions, triangles).expect("a valid mesh");
        let prep = crate::quantize::prepare(&mesh, 1000.0, 0.1);
        let samples = Samples::new(&prep, 10.0);
        assert!(samples.len() > 500);
        let (mut exact, mut found) = (0, 0);
        for k in 0..3000 {
            let unit = DVec3::new(f64::from(next()), f64::from(next()), f64::from(next()));
            // Two thirds in and around the samples' box (the pruned searches), the rest far out.
            let p = if k % 3 == 0 { (unit - 0.5) * 1400.0 } else { (unit - 0.1) * 150.0 };
            let brute = samples.positions.iter().map(|q| q.distance(p)).fold(f64::INFINITY, f64::min);
            for radius in [0.0, 5.0, 20.0, 60.0, 300.0, 3000.0] {
                let want = (brute <= radius).then_some(brute);
                assert_eq!(samples.nearest_within(p, radius), want, "{p} within {radius}");
                for enough in [0.0, 3.0, 10.0, 40.0] {
                    // The nearest, or a sample within `enough` when one exists.
                    match samples.search_until(p, radius, enough) {
                        Some(d) => assert!(
                            brute <= radius && (d == brute || (brute <= enough && d >= brute && d <= enough)),
                            "{p} within {radius} until {enough}: {d}, nearest {brute}"
                        ),
                        None => assert!(brute > radius, "{p}: none within {radius}, a sample at {brute}"),
                    }
                }
                let truth = prep
                    .triangles
                    .iter()
                    .map(|t| {
                        let [a, b, c] = t.map(|v| prep.positions[v as usize]);
                        p.distance(closest_on_triangle(p, a, b, c))
                    })
                    .fold(f64::INFINITY, f64::min);
                // Never below the true distance nor above the nearest sample's; exact unless the
                // nearest triangle is a needle whose far end has no sample near.
                let got = samples.surface_within(p, radius, 15.0, &prep, &mut Visited::default());
                match got {
                    Some(d) => {
                        assert!(d >= truth - 1e-9 && d <= brute.min(radius) + 1e-9, "{p}: {d} vs {truth}, {brute}");
                        exact += usize::from(d == truth);
                    }
                    None => assert!(brute > radius, "{p}: none within {radius}, a sample at {brute}"),
                }
                found += usize::from(got.is_some());
            }
        }
        assert!(exact as f64 >= 0.97 * found as f64, "{exact} of {found} exact");
    }

    #[test]
    fn a_tiny_triangle_gets_one_sample() {
        let mut out = Vec::new();
        sample_triangle(DVec3::ZERO, DVec3::X, DVec3::Y, 10.0, &mut out);
        assert_eq!(out.len(), 1);
    }
}
