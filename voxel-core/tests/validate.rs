//! `validate_triangles` names what is wrong with a triangle source.

use glam::Vec3;
use voxel_core::{Error, TriangleSource, validate_triangles};

/// Claims any counts without storing anything: every triangle is `[0, 1, 2]`.
struct Claimed {
    vertices: usize,
    triangles: usize,
}

impl TriangleSource for Claimed {
    fn vertex_count(&self) -> usize {
        self.vertices
    }
    fn vertex(&self, _index: u32) -> Vec3 {
        Vec3::ZERO
    }
    fn triangle_count(&self) -> usize {
        self.triangles
    }
    fn triangle(&self, _index: u32) -> [u32; 3] {
        [0, 1, 2]
    }
}

#[test]
fn too_many_vertices_or_triangles_is_its_own_error() {
    let over = u32::MAX as usize + 1;
    for (vertices, triangles) in [(over, 1), (3, over), (over, over)] {
        assert_eq!(
            validate_triangles(&Claimed { vertices, triangles }),
            Err(Error::MeshTooLarge { vertex_count: vertices, triangle_count: triangles })
        );
    }
}

#[test]
fn missing_vertex_names_the_triangle() {
    assert_eq!(
        validate_triangles(&Claimed { vertices: 2, triangles: 1 }),
        Err(Error::IndexOutOfRange { triangle: 0, index: 2, vertex_count: 2 })
    );
    assert_eq!(validate_triangles(&Claimed { vertices: 3, triangles: 4 }), Ok(()));
}
