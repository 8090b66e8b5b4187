//! Scenes and brute-force checks shared by the scenario tests.
#![allow(dead_code)]

use glam::{IVec3, Vec3};
use voxel_contacts::Candidates;
use voxel_core::{Aabb, Contact, TriangleSource, Voxel, VoxelBox, VoxelGrid};
use voxel_mesh::{Mesh, MeshOptions, Mesher};

/// A triangle soup with vertex ids: one "mesh".
#[derive(Clone, Debug, Default)]
pub(crate) struct Soup {
    pub(crate) positions: Vec<Vec3>,
    pub(crate) triangles: Vec<[u32; 3]>,
}

impl Soup {
    pub(crate) fn tri(&self, t: usize) -> [Vec3; 3] {
        self.triangles[t].map(|i| self.positions[i as usize])
    }

    pub(crate) fn from_mesh(m: &Mesh) -> Soup {
        Soup {
            positions: (0..m.vertex_count() as u32).map(|i| m.vertex(i)).collect(),
            triangles: (0..m.triangle_count() as u32).map(|t| m.triangle(t)).collect(),
        }
    }

    /// Pushes every triangle overlapping `b` (by its bounding box), vertex ids offset by `offset`,
    /// triangle ids `id_base + t`.
    pub(crate) fn gather(&self, b: &Aabb, offset: u32, id_base: u32, set: &mut Candidates) {
        for (t, ids) in self.triangles.iter().enumerate() {
            let p = self.tri(t);
            if Aabb::from_points(p).overlaps(b) {
                set.push(id_base + t as u32, p, ids.map(|i| i + offset));
            }
        }
    }
}

/// Makes a triangle counter-clockwise seen from `up`.
pub(crate) fn facing(mut t: [Vec3; 3], up: Vec3) -> [Vec3; 3] {
    if (t[1] - t[0]).cross(t[2] - t[0]).dot(up) < 0.0 {
        t.swap(1, 2);
    }
    t
}

/// An `n` x `n` grid of quads of size `cell` from `origin` in the XZ plane at height `y`, split
/// along alternating diagonals (seeded), facing +Y.
pub(crate) fn plane(origin: Vec3, n: usize, cell: f32, seed: u64) -> Soup {
    let mut s = Soup::default();
    for z in 0..=n {
        for x in 0..=n {
            s.positions.push(origin + Vec3::new(x as f32 * cell, 0.0, z as f32 * cell));
        }
    }
    let id = |x: usize, z: usize| (z * (n + 1) + x) as u32;
    let mut r = seed;
    for z in 0..n {
        for x in 0..n {
            r = r.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let (a, b, c, d) = (id(x, z), id(x + 1, z), id(x + 1, z + 1), id(x, z + 1));
            // Counter-clockwise from +Y: a -> d -> c is (x,z)->(x,z+1)->(x+1,z+1).
            if r >> 63 == 0 {
                s.triangles.push([a, d, c]);
                s.triangles.push([a, c, b]);
            } else {
                s.triangles.push([a, d, b]);
                s.triangles.push([b, d, c]);
            }
        }
    }
    s
}

/// Surface Nets chunk meshes (`edge`^3 chunks over `region`) of the field `d(p)` (world units,
/// negative inside), quantized as voxel-store does (32 steps per unit).
pub(crate) fn surface_nets_chunks(region: VoxelBox, edge: i32, d: impl Fn(Vec3) -> f32) -> Vec<Soup> {
    let padded = VoxelBox::new(region.min - IVec3::splat(2), region.max + IVec3::splat(2));
    let grid = VoxelGrid::from_fn(padded, |p| {
        let v = (d(p.as_vec3()) * 32.0).round().clamp(-127.0, 127.0) as i8;
        Voxel::new(v, 1)
    })
    .unwrap();
    let mut mesher = Mesher::new();
    let mut mesh = Mesh::new();
    let mut out = Vec::new();
    let chunks = VoxelBox::new(
        region.min.div_euclid(IVec3::splat(edge)),
        (region.max + edge - 1).div_euclid(IVec3::splat(edge)),
    );
    for key in chunks.iter() {
        let chunk = VoxelBox::chunk(key, edge);
        mesher.surface_nets(&grid, chunk, &MeshOptions::PHYSICS, &mut mesh).unwrap();
        if !mesh.is_empty() {
            out.push(Soup::from_mesh(&mesh));
        }
    }
    out
}

/// Gathers the candidates of several meshes around `b`, each mesh with its own vertex-id range.
pub(crate) fn gather_all(meshes: &[Soup], b: &Aabb, set: &mut Candidates) {
    set.clear();
    let mut offset = 0;
    for (m, soup) in meshes.iter().enumerate() {
        soup.gather(b, offset, (m as u32) << 20, set);
        offset += soup.positions.len() as u32;
    }
}

/// Closest point of triangle `t` to `p`: projection when inside, else the closest of the three
/// edges. Written independently of the crate's region walk.
pub(crate) fn closest_point(p: Vec3, t: [Vec3; 3]) -> Vec3 {
    let n = (t[1] - t[0]).cross(t[2] - t[0]);
    let nn = n.length_squared();
    if nn > 0.0 {
        let q = p - n * (n.dot(p - t[0]) / nn);
        let inside = (0..3).all(|k| (t[(k + 1) % 3] - t[k]).cross(q - t[k]).dot(n) >= 0.0);
        if inside {
            return q;
        }
    }
    let mut best = t[0];
    for k in 0..3 {
        let (a, b) = (t[k], t[(k + 1) % 3]);
        let ab = b - a;
        let s = if ab.length_squared() > 0.0 { ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0) } else { 0.0 };
        let q = a + ab * s;
        if q.distance_squared(p) < best.distance_squared(p) {
            best = q;
        }
    }
    best
}

/// True when the contact point is a local minimum of the distance from `center` over the surface
/// made of `triangles`: by convexity of the distance on each triangle, it is one exactly when no
/// triangle containing the point has a point closer to `center`.
///
/// `contain` is how near a triangle must come to the point to contain it (the point is computed in
/// floats: a few ulps of the coordinates), `tol` how much closer it must come to the centre.
pub(crate) fn is_local_minimum(c: &Contact, center: Vec3, triangles: &[[Vec3; 3]], contain: f32, tol: f32) -> bool {
    let d = c.point.distance(center);
    for &t in triangles {
        if closest_point(c.point, t).distance(c.point) > contain {
            continue;
        }
        if closest_point(center, t).distance(center) < d - tol {
            return false;
        }
    }
    true
}

/// Angle in radians between two vectors (atan2 of sine and cosine: accurate near 0, where
/// `acos` of a dot product of unit vectors is not).
pub(crate) fn angle(a: Vec3, b: Vec3) -> f32 {
    a.cross(b).length().atan2(a.dot(b))
}

/// The triangle `ids` of `soup`, reordered to be counter-clockwise seen from `up`.
pub(crate) fn facing_ids(soup: &Soup, mut ids: [u32; 3], up: Vec3) -> [u32; 3] {
    let p = ids.map(|i| soup.positions[i as usize]);
    if (p[1] - p[0]).cross(p[2] - p[0]).dot(up) < 0.0 {
        ids.swap(1, 2);
    }
    ids
}
