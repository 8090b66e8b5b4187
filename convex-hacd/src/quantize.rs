//! Input preparation (seed `003_a99cbdb76048d4ca.txt`, "Consistent Floating Point Treatment" and
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
    out
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

    #[test]
    fn tolerance_never_below_float_floor() {
        // A tiny mesh far from the origin: its f32 rounding is large against its size.
        let o = Vec3::splat(1.0e4);
        let mesh = IndexedMesh::new(vec![o, o + Vec3::X * 0.01, o + Vec3::Y * 0.01], vec![[0, 1, 2]]).unwrap();
        let p = prepare(&mesh, 1000.0, 0.1);
        assert!(p.s > 0.1, "{}", p.s);
    }
}
