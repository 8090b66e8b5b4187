//! The mesh both meshers write: shared vertices, per-vertex materials, triangles in quad pairs.

use std::io;

use glam::Vec3;
use voxel_core::{Aabb, TriangleSource};

/// Up to four materials of a vertex with their weights, for texture splatting (as in "Smooth Voxel
/// Mapping", Fairbanks 2020).
///
/// `weights` sum to 255; unused slots have weight 0. Slots are ordered by weight, heaviest first,
/// ties by lower material id, so `ids[0]` is the vertex's dominant material.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct VertexBlend {
    /// Material ids, heaviest first.
    pub ids: [u8; 4],
    /// Weight of each id; the four sum to 255.
    pub weights: [u8; 4],
}

/// The index buffer of a [`Mesh`]: `u16` when every vertex index fits, `u32` otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Indices<'a> {
    /// Narrow indices (65,536 vertices or fewer).
    U16(&'a [u16]),
    /// Wide indices.
    U32(&'a [u32]),
}

impl Indices<'_> {
    /// Number of indices (three per triangle).
    pub fn len(&self) -> usize {
        match self {
            Indices::U16(i) => i.len(),
            Indices::U32(i) => i.len(),
        }
    }

    /// True when there are no indices.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Index `i` widened to `u32`.
    ///
    /// # Panics
    ///
    /// When `i` is out of bounds, like slice indexing.
    #[inline]
    pub fn get(&self, i: usize) -> u32 {
        match self {
            Indices::U16(s) => u32::from(s[i]),
            Indices::U32(s) => s[i],
        }
    }
}

/// Heap bytes of a [`Mesh`], by attribute (lengths, not capacities).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MeshMemory {
    /// Vertex positions, 12 bytes each.
    pub positions: usize,
    /// Vertex normals, 12 bytes each (0 when not requested).
    pub normals: usize,
    /// Dominant material per vertex, 1 byte each.
    pub materials: usize,
    /// Blend weights, 8 bytes per vertex (0 when not requested).
    pub blend: usize,
    /// The index buffer, 2 or 4 bytes per index.
    pub indices: usize,
}

impl MeshMemory {
    /// What physics keeps: positions, dominant materials and indices (about 12.5 B per triangle by
    /// the estimate of "Smooth Voxel Mapping", Fairbanks 2020).
    pub fn physics(&self) -> usize {
        self.positions + self.materials + self.indices
    }

    /// Every attribute.
    pub fn total(&self) -> usize {
        self.physics() + self.normals + self.blend
    }
}

/// A triangle mesh made of quads: vertices shared within the mesh, two triangles per quad.
///
/// Triangles `2q` and `2q + 1` are quad `q`, split along the diagonal from its corner 0 to its
/// corner 2: `[q0, q1, q2]` and `[q0, q2, q3]`. So [`Mesh::quad`] costs nothing to store, and a
/// consumer that wants quads as primitives (the kD tree) reads them back exactly.
///
/// No triangle has two corners at one position (none has zero area from coincident corners). Where
/// Surface Nets vertices of several cubes meet at one point (a distance-0 voxel), a quad left with
/// three distinct corners is one triangle, and those lone triangles follow every quad:
/// triangles `2 * quad_count()..` ([`Mesh::lone_triangle_count`] of them); a quad whose corners
/// enclose no area (fewer than three distinct, or its diagonal's two ends at one point) is not
/// written. Blocky meshes have no lone triangles.
///
/// Triangles wind counter-clockwise seen from outside the solid (the front face), and normals
/// point out of the solid. A `Mesh` is a reusable buffer: meshing into it again reuses its
/// allocations.
///
/// ```
/// use glam::IVec3;
/// use voxel_core::{TriangleSource, VoxelBox};
/// use voxel_mesh::{Mesh, MeshOptions, Mesher};
///
/// let ball = voxel_store::generate::sphere(glam::Vec3::splat(8.0), 5.0).unwrap();
/// let mut mesher = Mesher::new();
/// let mut mesh = Mesh::new();
/// let chunk = VoxelBox::new(IVec3::ZERO, IVec3::splat(16));
/// mesher.surface_nets(&ball, chunk, &MeshOptions::default(), &mut mesh).unwrap();
/// assert_eq!(mesh.triangle_count(), 2 * mesh.quad_count());
/// assert!(mesh.quad_count() > 100);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Mesh {
    pub(crate) positions: Vec<Vec3>,
    pub(crate) normals: Vec<Vec3>,
    pub(crate) materials: Vec<u8>,
    pub(crate) blend: Vec<VertexBlend>,
    pub(crate) indices16: Vec<u16>,
    pub(crate) indices32: Vec<u32>,
    pub(crate) wide: bool,
    /// Triangles after the last quad, not paired into a quad.
    pub(crate) lone: usize,
}

impl Mesh {
    /// An empty mesh.
    pub fn new() -> Self {
        Self::default()
    }

    /// Removes every vertex and triangle, keeping the allocations.
    pub fn clear(&mut self) {
        self.positions.clear();
        self.normals.clear();
        self.materials.clear();
        self.blend.clear();
        self.indices16.clear();
        self.indices32.clear();
        self.wide = false;
        self.lone = 0;
    }

    /// True when the mesh has no triangle.
    pub fn is_empty(&self) -> bool {
        self.indices16.is_empty() && self.indices32.is_empty()
    }

    /// Vertex positions in world units (voxel `p` sits at the point `p`).
    pub fn positions(&self) -> &[Vec3] {
        &self.positions
    }

    /// Unit normals, one per vertex, pointing out of the solid; empty unless
    /// [`MeshOptions::normals`](crate::MeshOptions::normals) was set.
    pub fn normals(&self) -> &[Vec3] {
        &self.normals
    }

    /// The dominant material of each vertex: the byte physics needs.
    pub fn materials(&self) -> &[u8] {
        &self.materials
    }

    /// Splatting weights per vertex; empty unless [`MeshOptions::blend`](crate::MeshOptions::blend)
    /// was set.
    pub fn blend(&self) -> &[VertexBlend] {
        &self.blend
    }

    /// The index buffer, three indices per triangle.
    pub fn indices(&self) -> Indices<'_> {
        if self.wide { Indices::U32(&self.indices32) } else { Indices::U16(&self.indices16) }
    }

    /// Number of quads: the triangles but the lone ones, halved.
    pub fn quad_count(&self) -> usize {
        (self.indices().len() - 3 * self.lone) / 6
    }

    /// Number of triangles after the quads that pair into no quad (see [`Mesh`]): 0 unless
    /// distance-0 voxels made Surface Nets vertices coincide.
    pub fn lone_triangle_count(&self) -> usize {
        self.lone
    }

    /// The four corners of quad `q`, in perimeter order, counter-clockwise from the front.
    ///
    /// # Panics
    ///
    /// When `q >= quad_count()`.
    pub fn quad(&self, q: usize) -> [u32; 4] {
        let i = self.indices();
        [i.get(6 * q), i.get(6 * q + 1), i.get(6 * q + 2), i.get(6 * q + 5)]
    }

    /// The box around every vertex ([`Aabb::EMPTY`] for an empty mesh).
    pub fn aabb(&self) -> Aabb {
        Aabb::from_points(self.positions.iter().copied())
    }

    /// Bytes held by every attribute (`memory().total()`): the total every crate of the workspace
    /// reports as `heap_bytes`; [`Mesh::memory`] breaks it down.
    pub fn heap_bytes(&self) -> usize {
        self.memory().total()
    }

    /// Bytes held, by attribute.
    pub fn memory(&self) -> MeshMemory {
        let index_bytes = if self.wide { 4 * self.indices32.len() } else { 2 * self.indices16.len() };
        MeshMemory {
            positions: size_of::<Vec3>() * self.positions.len(),
            normals: size_of::<Vec3>() * self.normals.len(),
            materials: self.materials.len(),
            blend: size_of::<VertexBlend>() * self.blend.len(),
            indices: index_bytes,
        }
    }

    /// Writes the mesh as Wavefront OBJ (positions, normals when present, 1-based faces).
    pub fn write_obj(&self, mut w: impl io::Write) -> io::Result<()> {
        for p in &self.positions {
            writeln!(w, "v {} {} {}", p.x, p.y, p.z)?;
        }
        for n in &self.normals {
            writeln!(w, "vn {} {} {}", n.x, n.y, n.z)?;
        }
        let has_normals = !self.normals.is_empty();
        let idx = self.indices();
        for t in 0..idx.len() / 3 {
            let [a, b, c] = [idx.get(3 * t) + 1, idx.get(3 * t + 1) + 1, idx.get(3 * t + 2) + 1];
            if has_normals {
                writeln!(w, "f {a}//{a} {b}//{b} {c}//{c}")?;
            } else {
                writeln!(w, "f {a} {b} {c}")?;
            }
        }
        Ok(())
    }

    /// Starts a new mesh whose vertex count will stay within `max_vertices`: picks `u16` indices
    /// when that bound allows.
    pub(crate) fn begin(&mut self, max_vertices: usize) {
        self.clear();
        self.wide = max_vertices > 1 << 16;
    }

    /// Appends the two triangles of the quad `[a, b, c, d]`, split along `a-c`.
    #[inline]
    pub(crate) fn push_quad(&mut self, [a, b, c, d]: [u32; 4]) {
        if self.wide {
            self.indices32.extend_from_slice(&[a, b, c, a, c, d]);
        } else {
            // `begin` chose narrow indices only when every vertex index fits.
            #[allow(clippy::cast_possible_truncation)]
            self.indices16.extend_from_slice(&[a as u16, b as u16, c as u16, a as u16, c as u16, d as u16]);
        }
    }

    /// Appends a quad whose corner indices may exceed `u16`: indices stay narrow until the first
    /// such quad, then the buffer widens once. For meshes whose vertex count is not bounded up
    /// front (blocky meshing), instead of writing `u32` and narrowing at the end.
    #[inline]
    pub(crate) fn push_quad_widening(&mut self, quad: [u32; 4]) {
        if !self.wide && quad.iter().any(|&i| i > u32::from(u16::MAX)) {
            self.indices32.clear();
            self.indices32.extend(self.indices16.iter().map(|&i| u32::from(i)));
            self.indices16.clear();
            self.wide = true;
        }
        self.push_quad(quad);
    }

    /// Writes the indices of a mesh made of separate quads, each its four vertices in order
    /// (quad `q` is vertices `4q..4q + 4`), in one pass once every vertex is in, with the
    /// narrowest index type the vertex count allows.
    pub(crate) fn push_unit_quads(&mut self) {
        let quads = self.positions.len() / 4;
        self.wide = self.positions.len() > 1 << 16;
        if self.wide {
            self.indices32.clear();
            self.indices32.resize(6 * quads, 0);
            for (q, six) in (0u32..).zip(self.indices32.chunks_exact_mut(6)) {
                let a = 4 * q;
                six.copy_from_slice(&[a, a + 1, a + 2, a, a + 2, a + 3]);
            }
        } else {
            // Four quads (24 indices) per step from a constant pattern plus a splat: a loop of
            // fixed length the compiler turns into a few 16-byte ORs and stores, where a quad at a
            // time cost a dozen scalar instructions per quad.
            const PATTERN: [u16; 24] = {
                let mut p = [0u16; 24];
                let mut i = 0;
                while i < 24 {
                    let corner = [0, 1, 2, 0, 2, 3][i % 6];
                    p[i] = (4 * (i / 6) + corner) as u16;
                    i += 1;
                }
                p
            };
            self.indices16.clear();
            self.indices16.resize(6 * quads, 0);
            let mut groups = self.indices16.chunks_exact_mut(24);
            let mut a = 0u16;
            for group in &mut groups {
                for (out, p) in group.iter_mut().zip(PATTERN) {
                    *out = a | p;
                }
                // At most 2^14 quads here: 4q + 3 fits in u16, and a multiple of 16 has its four
                // low bits clear, so OR is addition; the last step's wrap is never used.
                a = a.wrapping_add(16);
            }
            for (out, p) in groups.into_remainder().iter_mut().zip(PATTERN) {
                *out = a | p;
            }
        }
    }

    /// Narrows wide indices once the final vertex count is known to fit.
    pub(crate) fn finish(&mut self) {
        if self.wide && self.positions.len() <= 1 << 16 {
            self.indices16.clear();
            #[allow(clippy::cast_possible_truncation)]
            self.indices16.extend(self.indices32.iter().map(|&i| i as u16));
            self.indices32.clear();
            self.wide = false;
        }
    }
}

impl TriangleSource for Mesh {
    #[inline]
    fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    #[inline]
    fn vertex(&self, index: u32) -> Vec3 {
        self.positions[index as usize]
    }

    #[inline]
    fn triangle_count(&self) -> usize {
        self.indices().len() / 3
    }

    #[inline]
    fn triangle(&self, index: u32) -> [u32; 3] {
        let t = 3 * index as usize;
        if self.wide {
            let s = &self.indices32[t..t + 3];
            [s[0], s[1], s[2]]
        } else {
            let s = &self.indices16[t..t + 3];
            [u32::from(s[0]), u32::from(s[1]), u32::from(s[2])]
        }
    }

    /// The dominant material shared by two of the triangle's vertices, else its first vertex's.
    #[inline]
    fn triangle_material(&self, index: u32) -> u8 {
        let [a, b, c] = self.triangle(index).map(|v| self.materials[v as usize]);
        if b == c { b } else { a }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Unit-quad indices at the `u16` limit (16384 quads, 65536 vertices), one quad over it, and
    /// counts that leave a remainder after the four-quad steps.
    #[test]
    fn unit_quad_indices_at_the_u16_limit_and_with_remainders() {
        for quads in [0usize, 1, 3, 4, 5, 7, 16383, 16384, 16385] {
            let mut mesh = Mesh::new();
            mesh.positions.resize(4 * quads, Vec3::ZERO);
            mesh.push_unit_quads();
            let indices: Vec<u32> = match mesh.indices() {
                Indices::U16(i) => {
                    assert!(quads <= 1 << 14, "{quads} quads in u16");
                    i.iter().map(|&i| u32::from(i)).collect()
                }
                Indices::U32(i) => {
                    assert!(quads > 1 << 14, "{quads} quads in u32");
                    i.to_vec()
                }
            };
            assert_eq!(indices.len(), 6 * quads);
            for (q, six) in indices.chunks_exact(6).enumerate() {
                let a = 4 * q as u32;
                assert_eq!(six, [a, a + 1, a + 2, a, a + 2, a + 3], "quad {q} of {quads}");
            }
        }
    }
}
