//! Input preparation (the article, "Consistent Floating Point Treatment" and
//! the settings `ScaleFactor` and `ConnectDist`): the mesh is scaled into a fixed cube, vertices
//! closer than the quantization distance `s` are welded, and triangles that collapse or fit on a
//! line within `s` are dropped. Every later tolerance is this one `s`.

use ahash::AHashMap;

use glam::DVec3;
use voxel_core::TriangleSource;

use crate::hull::float_floor;

/// A mesh in the working cube.
#[derive(Clone, Debug, Default)]
pub(crate) struct Prepared {
    /// Welded vertex positions in the working cube (centred on the origin).
    pub positions: Vec<DVec3>,
    /// Kept triangles over `positions`.
    pub triangles: Vec<[u32; 3]>,
    /// The input index of each kept triangle.
    pub source: Vec<u32>,
    /// Triangles left out for a non-finite corner.
    pub non_finite: usize,
    /// Triangles left out because they collapse within `s`.
    pub degenerate: usize,
    /// Working position = (input - centre) * scale.
    pub centre: DVec3,
    /// See `centre`.
    pub scale: f64,
    /// The quantization distance in working units.
    pub s: f64,
    /// Per kept triangle: whether its part (triangles joined by shared edges) is closed enough,
    /// of one winding and holds a volume, so that it faces outward after preparation (see
    /// `orient_outward`), and none of its corners lies on a boundary edge; empty when there are
    /// no triangles.
    pub solid: Vec<bool>,
    /// Lids over the holes of the parts [`orient_outward`] may turn (closed but for small holes,
    /// of one winding, holding a volume): per boundary loop, a fan from the loop's centre, wound
    /// to close the part. Only the final protrusion check uses them (see `protrusion`).
    pub lids: Vec<[DVec3; 3]>,
}

/// Scales, welds and filters `mesh`. `cube` is the side of the working cube, `s` the quantization
/// distance in working units (raised to the float floor of the input when smaller).
pub(crate) fn prepare<T: TriangleSource + ?Sized>(mesh: &T, cube: f64, s: f64) -> Prepared {
    let mut out = Prepared { scale: 1.0, s, ..Prepared::default() };
    let n_tri = mesh.triangle_count() as u32;
    let mut finite = Vec::with_capacity(n_tri as usize);
    let (mut lo, mut hi) = (DVec3::INFINITY, DVec3::NEG_INFINITY);
    let mut max_abs = 0.0f32;
    for t in 0..n_tri {
        let corners = mesh.triangle_positions(t);
        if corners.iter().all(|p| p.is_finite()) {
            finite.push(t);
            for p in corners {
                lo = lo.min(p.as_dvec3());
                hi = hi.max(p.as_dvec3());
                max_abs = max_abs.max(p.abs().max_element());
            }
        } else {
            out.non_finite += 1;
        }
    }
    let extent = (hi - lo).max_element();
    if finite.is_empty() || !(extent > 0.0) {
        out.degenerate = finite.len();
        return out;
    }
    out.centre = (lo + hi) * 0.5;
    out.scale = cube / extent;
    // The input is f32: two corners closer than its rounding cannot be told apart, whatever `s` says.
    // A floor of its own for inputs whose float floor underflows (subnormal coordinates with
    // `quantization: 0` made `s = 0`, and the weld grid's cells infinite).
    out.s = s.max(f64::from(float_floor(max_abs)) * out.scale).max(cube * 1e-9);
    let s = out.s;

    // Weld: each vertex joins the lowest-index earlier representative within s, looked up in the
    // 27 cells of a hash grid of cell size s around it (deterministic: no hash-order iteration).
    let mut weld_of = vec![u32::MAX; mesh.vertex_count()];
    let mut cells: AHashMap<[i64; 3], Vec<u32>> = AHashMap::new();
    let cell_of = |p: DVec3| (p / s).floor().as_i64vec3().to_array();
    for &t in &finite {
        for v in mesh.triangle(t) {
            if weld_of[v as usize] != u32::MAX {
                continue;
            }
            let p = (mesh.vertex(v).as_dvec3() - out.centre) * out.scale;
            let c = cell_of(p);
            let mut found = u32::MAX;
            for dz in -1..=1 {
                for dy in -1..=1 {
                    for dx in -1..=1 {
                        if let Some(reps) = cells.get(&[c[0] + dx, c[1] + dy, c[2] + dz]) {
                            for &r in reps {
                                if r < found && out.positions[r as usize].distance(p) <= s {
                                    found = r;
                                }
                            }
                        }
                    }
                }
            }
            if found == u32::MAX {
                found = out.positions.len() as u32;
                out.positions.push(p);
                cells.entry(c).or_default().push(found);
            }
            weld_of[v as usize] = found;
        }
    }

    for &t in &finite {
        let tri = mesh.triangle(t).map(|v| weld_of[v as usize]);
        if tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2] {
            out.degenerate += 1;
            continue;
        }
        let [a, b, c] = tri.map(|v| out.positions[v as usize]);
        // Height over the longest edge: a triangle thinner than s is a segment at this resolution.
        let longest = (b - a).length().max((c - b).length()).max((a - c).length());
        let height = (b - a).cross(c - a).length() / longest;
        if !(height > s) {
            out.degenerate += 1;
            continue;
        }
        out.triangles.push(tri);
        out.source.push(t);
    }
    orient_outward(&mut out);
    out
}

/// Most boundary edges, as a share of its edges, that a part may have and still count as closed
/// for [`orient_outward`]: a few holes (bunny-open's bottom: 0.3%) or dropped slivers keep its
/// inside well defined; an open sheet has none.
const CLOSED_ENOUGH: f64 = 0.05;

/// Largest area of the lids that would close a part's holes, as a share of the part's area, for
/// [`orient_outward`] to turn the part: bunny-open's bottom is 1.5%. The lids' area is that of
/// the sum of the part's triangles' vector areas (zero for a closed surface; a hole's lid is
/// minus its boundary's). A terrain chunk's mesh (one boundary along the chunk's sides, 3% of its
/// edges: closed enough by the count) has lids of 50-100% of its area, a bowl about half: such
/// parts have no inside to judge by, and turning them by the sign of their volume would make
/// hulls fill valleys and rooms (up to 16% of the diagonal into the air on terrain chunks, 26%
/// in a hollow ball cut by the chunk box). Holes whose lids cancel (a pipe open at
/// both ends) still pass.
const LIDS_ENOUGH: f64 = 0.05;

/// Turns inside-out parts outward. The concavity rays run along the triangles' normals, so a
/// closed part wound inward is measured from the wrong side, and its hulls seal what they should
/// not (a stair wound inward: 6.5% of the diagonal out). A part (triangles joined by shared
/// edges) whose two-triangle edges all run in opposite directions, with few boundary edges
/// ([`CLOSED_ENOUGH`]) and small holes ([`LIDS_ENOUGH`]), and whose signed volume is negative has
/// every triangle reversed. Parts of mixed winding and open sheets are left as they are.
fn orient_outward(out: &mut Prepared) {
    let n = out.triangles.len();
    let mut parent: Vec<u32> = (0..n as u32).collect();
    fn root(parent: &mut [u32], mut x: u32) -> u32 {
        while parent[x as usize] != x {
            parent[x as usize] = parent[parent[x as usize] as usize];
            x = parent[x as usize];
        }
        x
    }
    // Per undirected edge: its first triangle, whether that one runs it low -> high, and uses.
    let mut edges: AHashMap<(u32, u32), (u32, bool, u32)> = AHashMap::with_capacity(3 * n / 2);
    let mut mixed = vec![false; n];
    for (t, tri) in out.triangles.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (tri[k], tri[(k + 1) % 3]);
            let entry = edges.entry((a.min(b), a.max(b))).or_insert((t as u32, a < b, 0));
            entry.2 += 1;
            if entry.2 == 2 {
                let (first, forward) = (entry.0, entry.1);
                let (ra, rb) = (root(&mut parent, first), root(&mut parent, t as u32));
                parent[ra.max(rb) as usize] = ra.min(rb);
                // Both triangles run the edge the same way: the part's winding is mixed.
                if forward == (a < b) {
                    mixed[first as usize] = true;
                }
            }
        }
    }
    let roots: Vec<usize> = (0..n as u32).map(|t| root(&mut parent, t) as usize).collect();
    // Per part (by root): the boundary and total edge counts, mixed winding, and the
    // area-weighted centre.
    let (mut boundary, mut total) = (vec![0u32; n], vec![0u32; n]);
    for &(first, _, uses) in edges.values() {
        let r = roots[first as usize];
        total[r] += 1;
        boundary[r] += u32::from(uses == 1);
    }
    let mut is_mixed = vec![false; n];
    let mut centre = vec![(DVec3::ZERO, 0.0f64); n];
    // Per part: the sum of its triangles' vector areas (twice), the lids over its holes.
    let mut lids = vec![DVec3::ZERO; n];
    for (t, &r) in roots.iter().enumerate() {
        is_mixed[r] |= mixed[t];
        let [a, b, c] = out.triangles[t].map(|v| out.positions[v as usize]);
        let normal = (b - a).cross(c - a);
        let area = normal.length();
        lids[r] += normal;
        centre[r].0 += (a + b + c) * area;
        centre[r].1 += 3.0 * area;
    }
    // The signed volume (six times it) about the part's centre: about a point `o`, an open
    // part's volume is that of the part closed by fans from `o` over its holes, which from the
    // centre stays positive for an outward part (a teapot's spout: two open ends, negative about
    // one of its own vertices).
    let mut volume = vec![0.0f64; n];
    for (t, &r) in roots.iter().enumerate() {
        let o = centre[r].0 / centre[r].1;
        let [a, b, c] = out.triangles[t].map(|v| out.positions[v as usize] - o);
        volume[r] += a.dot(b.cross(c));
    }
    // Corners of boundary edges: a triangle with one is not solid (near a hole, the side of a
    // face or a sample says nothing).
    let mut open = vec![false; out.positions.len()];
    for (&(a, b), &(_, _, uses)) in &edges {
        if uses == 1 {
            open[a as usize] = true;
            open[b as usize] = true;
        }
    }
    out.solid = Vec::with_capacity(n);
    let mut lidded = vec![false; n];
    for (tri, &r) in out.triangles.iter_mut().zip(&roots) {
        let closed = f64::from(boundary[r]) <= CLOSED_ENOUGH * f64::from(total[r]);
        // A volume that is rounding (a double-sided sheet's two sides cancel) says nothing: a
        // part must hold some volume for its size. Both sides of the test are six times the
        // true quantity: a 1000 x 1000 x 0.5 plate holds 7e-5 of `(6 area)^1.5`, a sphere 0.04.
        let holds = 1e-6 * centre[r].1.powf(1.5);
        // (`centre[r].1` is three times the sum of twice the areas.)
        let small_holes = lids[r].length() <= LIDS_ENOUGH * centre[r].1 / 3.0;
        if closed && small_holes && !is_mixed[r] && -volume[r] > holds {
            tri.swap(1, 2);
        }
        lidded[r] = closed && small_holes && !is_mixed[r] && volume[r].abs() > holds && boundary[r] > 0;
        out.solid.push(closed && !is_mixed[r] && volume[r].abs() > holds && !tri.iter().any(|&v| open[v as usize]));
    }
    // The lids: the boundary edges of lidded parts as their (now outward) triangles run them,
    // chained into loops in a fixed order (sorted), each closed by a fan from its centre that
    // runs every edge the other way.
    let mut rims: Vec<(u32, u32, usize)> = Vec::new();
    for (tri, &r) in out.triangles.iter().zip(&roots) {
        if lidded[r] {
            for k in 0..3 {
                let (a, b) = (tri[k], tri[(k + 1) % 3]);
                if edges.get(&(a.min(b), a.max(b))).is_some_and(|e| e.2 == 1) {
                    rims.push((a, b, r));
                }
            }
        }
    }
    rims.sort_unstable();
    let mut used = vec![false; rims.len()];
    let mut path: Vec<(u32, u32, usize)> = Vec::new();
    for start in 0..rims.len() {
        if used[start] {
            continue;
        }
        path.clear();
        let mut at = start;
        loop {
            used[at] = true;
            path.push(rims[at]);
            let to = rims[at].1;
            // A loop closes where the path comes back to a vertex it left: a pinched rim (two
            // holes touching at a corner) is cut there into simple loops, each lidded alone. One
            // fan over both, from their joint centre, sagged far below either hole (a sphere
            // missing two triangles that touch at a corner was split into 5 hulls).
            if let Some(i) = path.iter().position(|e| e.0 == to) {
                lid_loop(&path[i..], &out.positions, &centre, &mut out.lids);
                path.truncate(i);
            }
            // The first unused edge leaving `to` (a pinched rim has several).
            let from = rims.partition_point(|e| e.0 < to);
            match (from..rims.len()).take_while(|&k| rims[k].0 == to).find(|&k| !used[k]) {
                Some(next) => at = next,
                None => break,
            }
        }
        if !path.is_empty() {
            lid_loop(&path, &out.positions, &centre, &mut out.lids);
        }
    }
}

/// Closes one loop of rim edges `(a, b, part)` with a fan that runs every edge the other way,
/// when the lid is small for its part (as the part's lids together are: holes whose lids cancel
/// in the part's sum, a pipe's two open ends, stay open here). The fan is from the loop's centre
/// or from one of its corners, whichever lid lies farthest out (the most volume about the part's
/// centre; the centre's on ties): a hole over a bend (two triangles across a box's rounded edge)
/// folds, and a fan from its centre sagged below the hull spanning it.
fn lid_loop(chain: &[(u32, u32, usize)], positions: &[DVec3], centre: &[(DVec3, f64)], lids: &mut Vec<[DVec3; 3]>) {
    let mid = chain.iter().map(|e| positions[e.0 as usize]).sum::<DVec3>() / chain.len() as f64;
    let o = centre[chain[0].2].0 / centre[chain[0].2].1;
    let fan = |c: DVec3| {
        chain
            .iter()
            .map(move |&(a, b, _)| [c, positions[b as usize], positions[a as usize]])
            .filter(move |t| t[1] != c && t[2] != c)
    };
    let volume = |c: DVec3| fan(c).map(|[p, q, r]| (p - o).dot((q - o).cross(r - o))).sum::<f64>();
    // A corner's fan over a flat hole (a triangle's) has the centre's volume but for rounding.
    let tie = 1e-9 * fan(mid).map(|[p, q, r]| (p - o).dot((q - o).cross(r - o)).abs()).sum::<f64>();
    let mut best = (mid, volume(mid) + tie);
    for &(a, _, _) in chain {
        let c = positions[a as usize];
        let v = volume(c);
        if v > best.1 {
            best = (c, v);
        }
    }
    let area: f64 = fan(best.0).map(|[c, b, a]| 0.5 * (b - c).cross(a - c).length()).sum();
    if area <= LIDS_ENOUGH * centre[chain[0].2].1 / 6.0 {
        lids.extend(fan(best.0));
    }
}

/// Welds `points` within `s`: each point joins the lowest-index earlier representative within `s`
/// (27 cells of a hash grid of cell size `s`). Returns the input index of every representative,
/// ascending.
pub(crate) fn weld_points(points: &[DVec3], s: f64) -> Vec<u32> {
    let mut reps: Vec<u32> = Vec::new();
    if !(s > 0.0) {
        reps.extend(0..points.len() as u32);
        return reps;
    }
    let mut cells: AHashMap<[i64; 3], Vec<u32>> = AHashMap::new();
    for (i, &p) in points.iter().enumerate() {
        let c = (p / s).floor().as_i64vec3().to_array();
        let mut found = false;
        'search: for dz in -1..=1 {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    if let Some(list) = cells.get(&[c[0] + dx, c[1] + dy, c[2] + dz]) {
                        if list.iter().any(|&r| points[r as usize].distance(p) <= s) {
                            found = true;
                            break 'search;
                        }
                    }
                }
            }
        }
        if !found {
            cells.entry(c).or_default().push(i as u32);
            reps.push(i as u32);
        }
    }
    reps
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;
    use voxel_core::IndexedMesh;

    #[test]
    fn welds_close_vertices_and_drops_slivers() {
        // Two triangles sharing an edge, the second's copy of the edge moved by 1e-5 of the size;
        // a third triangle is a sliver of relative height 1e-5.
        let mesh = IndexedMesh::new(
            vec![
                Vec3::ZERO,
                Vec3::X,
                Vec3::Y,
                Vec3::new(1.0, 1e-5, 0.0),
                Vec3::new(0.0, 1.0 + 1e-5, 0.0),
                Vec3::new(1.0, 1.0, 0.0),
                Vec3::new(0.5, 1e-5, 0.0),
            ],
            vec![[0, 1, 2], [3, 5, 4], [0, 1, 6]],
        )
        .unwrap();
        let p = prepare(&mesh, 1000.0, 0.1);
        assert_eq!(p.positions.len(), 5);
        assert_eq!(p.triangles, [[0, 1, 2], [1, 3, 2]]);
        assert_eq!((p.degenerate, p.non_finite), (1, 0));
        assert!((p.scale - 1000.0).abs() < 0.1);
    }

    #[test]
    fn non_finite_and_empty() {
        let mesh = IndexedMesh::new(vec![Vec3::ZERO, Vec3::X, Vec3::NAN], vec![[0, 1, 2]]).unwrap();
        let p = prepare(&mesh, 1000.0, 0.1);
        assert_eq!((p.non_finite, p.triangles.len()), (1, 0));
        let p = prepare(&IndexedMesh::default(), 1000.0, 0.1);
        assert!(p.triangles.is_empty());
    }

    /// A unit cube's 12 triangles, outward.
    fn cube() -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let v = (0..8).map(|i| Vec3::new((i & 1) as f32, (i >> 1 & 1) as f32, (i >> 2 & 1) as f32)).collect();
        let quads = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]];
        let t = quads.iter().flat_map(|&[a, b, c, d]| [[a, b, c], [a, c, d]]).collect();
        (v, t)
    }

    /// Corners as rounded positions, rotated to start at the smallest.
    fn canonical(c: [[i64; 3]; 3]) -> [[i64; 3]; 3] {
        let k = (0..3).min_by_key(|&k| c[k]).unwrap_or(0);
        [c[k], c[(k + 1) % 3], c[(k + 2) % 3]]
    }

    /// The prepared triangles as corner positions (welding renumbers the vertices), in order.
    fn prepared(v: &[Vec3], t: Vec<[u32; 3]>) -> Vec<[[i64; 3]; 3]> {
        let p = prepare(&IndexedMesh::new(v.to_vec(), t).unwrap(), 1000.0, 0.1);
        let at = |i: u32| p.positions[i as usize].round().as_i64vec3().to_array();
        p.triangles.iter().map(|tri| canonical(tri.map(at))).collect()
    }

    /// `t` as given, in the working cube of a mesh whose box is the unit cube's (times `width`
    /// along x): centred and scaled to 1000 on its longest side.
    fn as_given(v: &[Vec3], t: &[[u32; 3]], width: f32) -> Vec<[[i64; 3]; 3]> {
        let centre = Vec3::new(width, 1.0, 1.0) * 0.5;
        let at = |i: u32| ((v[i as usize] - centre) * (1000.0 / width)).round().as_i64vec3().to_array();
        t.iter().map(|tri| canonical(tri.map(at))).collect()
    }

    #[test]
    fn inside_out_parts_are_turned_outward() {
        let (v, t) = cube();
        let flipped: Vec<[u32; 3]> = t.iter().map(|&[a, b, c]| [a, c, b]).collect();
        assert_eq!(prepared(&v, flipped.clone()), as_given(&v, &t, 1.0));
        // Two cubes, the second inverted: each part on its own.
        let mut v2 = v.clone();
        v2.extend(v.iter().map(|p| *p + Vec3::X * 3.0));
        let mut both = t.clone();
        both.extend(flipped.iter().map(|tri| tri.map(|i| i + 8)));
        let mut expected = t.clone();
        expected.extend(t.iter().map(|tri| tri.map(|i| i + 8)));
        assert_eq!(prepared(&v2, both), as_given(&v2, &expected, 4.0));
    }

    /// A tube of radius 1 and length 4 (64 segments, 40 rings), outward; with `caps`, closed by
    /// a fan at each end.
    fn tube(caps: bool) -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let (n, m) = (64u32, 40u32);
        let mut v = Vec::new();
        for i in 0..=m {
            for j in 0..n {
                let phi = std::f32::consts::TAU * j as f32 / n as f32;
                v.push(Vec3::new(phi.cos(), phi.sin(), 4.0 * i as f32 / m as f32));
            }
        }
        let at = |i: u32, j: u32| i * n + j % n;
        let mut t = Vec::new();
        for i in 0..m {
            for j in 0..n {
                t.extend([[at(i, j), at(i, j + 1), at(i + 1, j + 1)], [at(i, j), at(i + 1, j + 1), at(i + 1, j)]]);
            }
        }
        if caps {
            let (bottom, top) = (v.len() as u32, v.len() as u32 + 1);
            v.extend([Vec3::ZERO, Vec3::Z * 4.0]);
            for j in 0..n {
                t.push([bottom, at(0, j + 1), at(0, j)]);
                t.push([top, at(m, j), at(m, j + 1)]);
            }
        }
        (v, t)
    }

    /// Lids (for the final protrusion check) close the small holes of closed parts only: a capped
    /// tube missing one triangle gets that triangle's hole closed; the tube open at both ends
    /// (its two lids cancel in the part's sum, so the part counts as closed but for small holes)
    /// gets none, each end being an eighth of its area; a closed tube has no holes.
    #[test]
    fn lids_close_small_holes_only() {
        let lid_area = |p: &Prepared| p.lids.iter().map(|[a, b, c]| 0.5 * (b - a).cross(c - a).length()).sum::<f64>();
        let (v, t) = tube(true);
        assert!(prepare(&IndexedMesh::new(v.clone(), t.clone()).unwrap(), 1000.0, 0.1).lids.is_empty());
        let missing = t[100];
        let holed: Vec<[u32; 3]> = t.iter().copied().filter(|&x| x != missing).collect();
        let p = prepare(&IndexedMesh::new(v.clone(), holed).unwrap(), 1000.0, 0.1);
        let [a, b, c] = missing.map(|i| v[i as usize].as_dvec3() * p.scale);
        let area = 0.5 * (b - a).cross(c - a).length();
        assert_eq!(p.lids.len(), 3);
        assert!((lid_area(&p) - area).abs() <= 1e-6 * area, "{} against {area}", lid_area(&p));
        let (v, t) = tube(false);
        assert!(prepare(&IndexedMesh::new(v, t).unwrap(), 1000.0, 0.1).lids.is_empty());
    }

    /// A fine open sheet (a 40 x 40 grid: 3% of its edges on its one boundary, closed enough by
    /// the count) shaped as a valley or a hill, facing up: a terrain chunk's mesh. Its holes' lid
    /// is most of its area, so it is left as given whatever the sign of its volume (turned to face
    /// down, the valley would be filled by the hulls).
    #[test]
    fn open_sheets_with_large_holes_are_left_alone() {
        for sign in [1.0f32, -1.0] {
            let n = 40u32;
            let v: Vec<Vec3> = (0..=n)
                .flat_map(|z| {
                    (0..=n).map(move |x| {
                        let (dx, dz) = (x as f32 - 20.0, z as f32 - 20.0);
                        Vec3::new(x as f32, sign * (dx * dx + dz * dz) / 20.0, z as f32)
                    })
                })
                .collect();
            let at = |x: u32, z: u32| x + (n + 1) * z;
            // Counter-clockwise seen from above (+y).
            let t: Vec<[u32; 3]> = (0..n)
                .flat_map(|z| {
                    (0..n).flat_map(move |x| {
                        [[at(x, z), at(x, z + 1), at(x + 1, z)], [at(x + 1, z), at(x, z + 1), at(x + 1, z + 1)]]
                    })
                })
                .collect();
            let p = prepare(&IndexedMesh::new(v, t).unwrap(), 1000.0, 0.1);
            assert_eq!(p.triangles.len(), 2 * 40 * 40);
            let up = p.triangles.iter().filter(|tri| {
                let [a, b, c] = tri.map(|i| p.positions[i as usize]);
                (b - a).cross(c - a).y > 0.0
            });
            assert_eq!(up.count(), p.triangles.len(), "the {} faces down", if sign > 0.0 { "valley" } else { "hill" });
        }
    }

    #[test]
    fn mixed_open_and_double_sided_parts_are_left_alone() {
        let (v, t) = cube();
        // Mixed winding: one face outward, the rest inverted.
        let mut mixed: Vec<[u32; 3]> = t.iter().map(|&[a, b, c]| [a, c, b]).collect();
        mixed[..2].copy_from_slice(&t[..2]);
        assert_eq!(prepared(&v, mixed.clone()), as_given(&v, &mixed, 1.0));
        // An open box (no top), wound inward: 4 of its 17 edges are boundary.
        let open: Vec<[u32; 3]> = t[..10].iter().map(|&[a, b, c]| [a, c, b]).collect();
        assert_eq!(prepared(&v, open.clone()), as_given(&v, &open, 1.0));
        // A double-sided slanted square (over the whole box, so that its working cube is the
        // cube's): its volume is rounding.
        let sheet = vec![[0, 3, 7], [0, 7, 4], [0, 7, 3], [0, 4, 7]];
        assert_eq!(prepared(&v, sheet.clone()), as_given(&v, &sheet, 1.0));
    }

    #[test]
    fn double_sided_triangles_are_left_alone() {
        // Each triangle with its reverse, listed from another corner: the two volumes cancel up
        // to rounding, which must not decide anything.
        let mut seed = 12345u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64 * 1000.0 - 500.0
        };
        let mut p = Prepared::default();
        for k in 0..50u32 {
            p.positions.extend((0..3).map(|_| DVec3::new(next(), next(), next())));
            p.triangles.push([3 * k, 3 * k + 1, 3 * k + 2]);
            p.triangles.push([3 * k + 2, 3 * k + 1, 3 * k]);
        }
        let before = p.triangles.clone();
        orient_outward(&mut p);
        assert_eq!(p.triangles, before);
    }

    #[test]
    fn tolerance_never_below_float_floor() {
        // A tiny mesh far from the origin: its f32 rounding is large against its size.
        let o = Vec3::splat(1.0e4);
        let mesh = IndexedMesh::new(vec![o, o + Vec3::X * 0.01, o + Vec3::Y * 0.01], vec![[0, 1, 2]]).unwrap();
        let p = prepare(&mesh, 1000.0, 0.1);
        assert!(p.s > 0.1, "{}", p.s);
    }
}
