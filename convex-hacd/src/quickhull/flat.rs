//! Quickhull's 2D path: point sets that fit in a slab of width `eps` are hulled in the slab's
//! plane (Andrew's monotone chain), because 3D Quickhull on them deletes input vertices.

use glam::DVec3;

use super::{Degeneracy, HullScratch, Plane, RawHull};

/// 2D hull of `indices` projected on the plane with unit `normal`: Andrew's monotone chain with the
/// exact `f64` turn test (collinear points dropped). No in-plane tolerance is applied, so every
/// point is within the slab's width of the polygon. The polygon is emitted once per side.
pub(super) fn build_flat(
    points: &[DVec3],
    indices: &[u32],
    normal: DVec3,
    s: &mut HullScratch,
    out: &mut RawHull,
) -> Result<(), Degeneracy> {
    out.clear();
    out.flat = true;
    let (mut u, mut v) = normal.any_orthonormal_pair();
    if u.cross(v).dot(normal) < 0.0 {
        std::mem::swap(&mut u, &mut v);
    }
    s.coords.clear();
    s.coords.extend(indices.iter().map(|&i| {
        let p = points[i as usize];
        (u.dot(p), v.dot(p), i)
    }));
    s.coords.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2)));
    let cross = |o: (f64, f64, u32), a: (f64, f64, u32), b: (f64, f64, u32)| {
        (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
    };
    s.chain.clear();
    for pass in 0..2 {
        let start = s.chain.len();
        for k in 0..s.coords.len() {
            let p = if pass == 0 { s.coords[k] } else { s.coords[s.coords.len() - 1 - k] };
            while s.chain.len() >= start + 2 && cross(s.chain[s.chain.len() - 2], s.chain[s.chain.len() - 1], p) <= 0.0
            {
                s.chain.pop();
            }
            s.chain.push(p);
        }
        // The last point of each half is the first of the other.
        s.chain.pop();
    }
    s.polygon.clear();
    s.polygon.extend_from_slice(&s.chain);
    let n = s.polygon.len();
    if n < 3 {
        return Err(Degeneracy::Collinear);
    }
    let mut area2 = 0.0;
    for k in 0..n {
        area2 += cross(s.polygon[0], s.polygon[k], s.polygon[(k + 1) % n]);
    }
    if !(area2 > 0.0) {
        return Err(Degeneracy::Collinear);
    }
    out.flat_area = 0.5 * area2;
    let heights = s.polygon.iter().map(|q| normal.dot(points[q.2 as usize]));
    let (lo, hi) = heights.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), h| (lo.min(h), hi.max(h)));
    out.planes.push(Plane { normal, offset: hi });
    out.planes.push(Plane { normal: -normal, offset: -lo });
    for k in 0..n {
        let (a, b) = (s.polygon[k], s.polygon[(k + 1) % n]);
        let dir = (b.0 - a.0) * u + (b.1 - a.1) * v;
        // Outward in the plane: to the right of a counter-clockwise edge.
        if let Some(side) = dir.cross(normal).try_normalize() {
            let offset = side.dot(points[a.2 as usize]).max(side.dot(points[b.2 as usize]));
            out.planes.push(Plane { normal: side, offset });
        }
    }
    // Front: a fan from vertex 0. Back: a fan from vertex 1, reversed. Different diagonals on the
    // two sides make the double cover a closed 2-manifold (a sphere: V - E + F = 2), so consumers
    // that walk edges see every edge exactly twice, once per direction.
    let at = |k: usize| s.polygon[k % n].2;
    for k in 1..n - 1 {
        out.triangles.push([at(0), at(k), at(k + 1)]);
        out.triangle_planes.push(0);
    }
    for k in 2..n {
        out.triangles.push([at(1), at(k + 1), at(k)]);
        out.triangle_planes.push(1);
    }
    out.vertices.extend(s.polygon.iter().map(|q| q.2));
    out.vertices.sort_unstable();
    Ok(())
}
