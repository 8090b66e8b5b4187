//! rapier's own colliders for the same terrain, for comparisons (the crate's example, benches and
//! tests measure against them): one `TriMesh` per physics chunk, or one mesh stitched from all
//! chunks.

use ahash::AHashMap;
use glam::{IVec3, Vec3};
use parry3d::shape::{SharedShape, TriMeshFlags};
use voxel_core::TriangleSource;
use voxel_physics::{PHYSICS_CHUNK_EDGE, TerrainCollider};

/// The surface meshes of every physics chunk of `collider`'s world that has one (built through
/// the collider's cache), in key order (`y`, `z`, `x`): positions and triangles, as the
/// collider's contacts see them.
pub fn chunk_meshes(collider: &TerrainCollider) -> Vec<(IVec3, Vec<Vec3>, Vec<[u32; 3]>)> {
    let keys = collider.world().grow(1).chunk_keys(PHYSICS_CHUNK_EDGE);
    let mut out = Vec::new();
    for key in keys.iter() {
        let Some(chunk) = collider.chunk_shape(key) else {
            continue;
        };
        let mesh = chunk.mesh();
        if mesh.triangle_count() == 0 {
            continue;
        }
        let vertices = (0..mesh.vertex_count() as u32).map(|i| mesh.vertex(i)).collect();
        let triangles = (0..mesh.triangle_count() as u32).map(|t| mesh.triangle(t)).collect();
        out.push((key, vertices, triangles));
    }
    out
}

/// One parry `TriMesh` per chunk mesh, built with `flags` (degenerate triangles deleted); chunks
/// parry refuses are skipped.
pub fn trimesh_per_chunk(collider: &TerrainCollider, flags: TriMeshFlags) -> Vec<SharedShape> {
    chunk_meshes(collider)
        .into_iter()
        .filter_map(|(_, v, t)| {
            SharedShape::trimesh_with_flags(v, t, flags | TriMeshFlags::DELETE_DEGENERATE_TRIANGLES).ok()
        })
        .collect()
}

/// One parry `TriMesh` of every chunk mesh, vertices welded by exact position (so seams are
/// ordinary internal edges), built with `flags` (degenerate triangles deleted). `None` for an
/// empty surface.
pub fn stitched_trimesh(collider: &TerrainCollider, flags: TriMeshFlags) -> Option<SharedShape> {
    let (vertices, triangles) = stitched_mesh(collider);
    SharedShape::trimesh_with_flags(vertices, triangles, flags | TriMeshFlags::DELETE_DEGENERATE_TRIANGLES).ok()
}

/// The chunk meshes welded into one indexed mesh by exact vertex position.
pub fn stitched_mesh(collider: &TerrainCollider) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let mut ids: AHashMap<[u32; 3], u32> = AHashMap::new();
    let mut vertices = Vec::new();
    let mut triangles = Vec::new();
    for (_, v, t) in chunk_meshes(collider) {
        let map: Vec<u32> = v
            .iter()
            .map(|p| {
                *ids.entry(p.to_array().map(f32::to_bits)).or_insert_with(|| {
                    vertices.push(*p);
                    vertices.len() as u32 - 1
                })
            })
            .collect();
        triangles.extend(t.iter().map(|tri| tri.map(|i| map[i as usize])));
    }
    (vertices, triangles)
}
