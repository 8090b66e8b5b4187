//! A plain indexed triangle mesh: the simplest [`TriangleSource`].

use glam::Vec3;

use crate::{Aabb, Error, TriangleSource, validate_triangles};

/// Vertex positions, triangles as vertex indices, and an optional material per triangle.
///
/// The constructor checks that every index names a vertex, so queries over the mesh never index
/// out of bounds. Positions are not checked for finiteness: consumers skip (and count) triangles
/// with non-finite or degenerate corners instead of failing the whole mesh.
///
/// ```
/// use glam::Vec3;
/// use voxel_core::{Error, IndexedMesh, TriangleSource};
///
/// let quad = IndexedMesh::new(
///     vec![Vec3::ZERO, Vec3::X, Vec3::new(1.0, 0.0, 1.0), Vec3::Z],
///     vec![[0, 2, 1], [0, 3, 2]],
/// )
/// .unwrap()
/// .with_materials(vec![4, 4])
/// .unwrap();
/// assert_eq!(quad.triangle_material(1), 4);
/// assert!(matches!(IndexedMesh::new(vec![Vec3::ZERO], vec![[0, 0, 1]]), Err(Error::IndexOutOfRange { .. })));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IndexedMesh {
    positions: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
    materials: Vec<u8>,
}

impl IndexedMesh {
    /// A mesh from positions and triangles; fails with [`Error::IndexOutOfRange`] when a triangle
    /// names a missing vertex.
    pub fn new(positions: Vec<Vec3>, triangles: Vec<[u32; 3]>) -> Result<Self, Error> {
        let mesh = Self { positions, triangles, materials: Vec::new() };
        validate_triangles(&mesh)?;
        Ok(mesh)
    }

    /// The same mesh with one material per triangle; fails with [`Error::LengthMismatch`] when the
    /// count differs from the triangle count.
    pub fn with_materials(mut self, materials: Vec<u8>) -> Result<Self, Error> {
        if materials.len() != self.triangles.len() {
            return Err(Error::LengthMismatch { expected: self.triangles.len(), actual: materials.len() });
        }
        self.materials = materials;
        Ok(self)
    }

    /// A copy of any triangle source.
    pub fn from_source<T: TriangleSource + ?Sized>(source: &T) -> Result<Self, Error> {
        validate_triangles(source)?;
        let positions = (0..source.vertex_count() as u32).map(|i| source.vertex(i)).collect();
        let n = source.triangle_count() as u32;
        let triangles = (0..n).map(|t| source.triangle(t)).collect();
        let materials = (0..n).map(|t| source.triangle_material(t)).collect();
        Ok(Self { positions, triangles, materials })
    }

    /// Vertex positions.
    #[inline]
    pub fn positions(&self) -> &[Vec3] {
        &self.positions
    }

    /// Triangles as vertex indices.
    #[inline]
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }

    /// Per-triangle materials; empty when the mesh has none (every triangle reads material 0).
    #[inline]
    pub fn materials(&self) -> &[u8] {
        &self.materials
    }

    /// The box around all vertices; [`Aabb::EMPTY`] for a mesh without vertices.
    pub fn aabb(&self) -> Aabb {
        Aabb::from_points(self.positions.iter().copied())
    }
}

impl TriangleSource for IndexedMesh {
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
        self.triangles.len()
    }
    #[inline]
    fn triangle(&self, index: u32) -> [u32; 3] {
        self.triangles[index as usize]
    }
    #[inline]
    fn triangle_material(&self, index: u32) -> u8 {
        self.materials.get(index as usize).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_mesh_is_valid() {
        let m = IndexedMesh::new(Vec::new(), Vec::new()).unwrap();
        assert_eq!(m.triangle_count(), 0);
        assert_eq!(m.aabb(), Aabb::EMPTY);
    }

    #[test]
    fn materials_must_match_triangles() {
        let m = IndexedMesh::new(vec![Vec3::ZERO; 3], vec![[0, 1, 2]]).unwrap();
        assert_eq!(m.clone().with_materials(vec![]), Err(Error::LengthMismatch { expected: 1, actual: 0 }));
        assert_eq!(m.triangle_material(0), 0);
    }

    #[test]
    fn from_source_copies_everything() {
        let m = IndexedMesh::new(vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z], vec![[0, 1, 2], [0, 2, 3]])
            .unwrap()
            .with_materials(vec![3, 9])
            .unwrap();
        assert_eq!(IndexedMesh::from_source(&m).unwrap(), m);
        assert_eq!(m.triangle_positions(1), [Vec3::ZERO, Vec3::Y, Vec3::Z]);
    }
}
