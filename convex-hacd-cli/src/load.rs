//! OBJ and STL files into one indexed mesh (tobj and stl_io, with the fixes real exporters need).

use voxel_core::IndexedMesh;
use voxel_core::glam::Vec3;

use crate::parse::{obj_text, stl_corners, stl_triangles};

/// Loads an OBJ or STL file as one indexed mesh: every OBJ object merged, polygons fanned into
/// triangles, texture and normal indices checked but not loaded; STL binary (by its size) or
/// ASCII (several `solid` blocks, any whitespace after `solid`), its corners welded by exact
/// value. The error is a message for the user.
pub(crate) fn load_mesh(path: &std::path::Path) -> Result<IndexedMesh, String> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or_default().to_ascii_lowercase();
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let (positions, triangles) = match ext.as_str() {
        "obj" => obj_triangles(&bytes)?,
        "stl" => stl_triangles(&stl_corners(&bytes)?),
        _ => return Err("not an .obj or .stl file".to_owned()),
    };
    IndexedMesh::new(positions, triangles).map_err(|e| crate::chain(&e))
}

type Lists = (Vec<Vec3>, Vec<[u32; 3]>);

fn obj_triangles(bytes: &[u8]) -> Result<Lists, String> {
    let text = obj_text(bytes).map_err(|e| format!("not a readable OBJ file ({e})"))?;
    let options = tobj::LoadOptions { triangulate: true, single_index: false, ..Default::default() };
    let (models, _) = tobj::load_obj_buf(&mut text.as_bytes(), &options, |_| Err(tobj::LoadError::OpenFileFailed))
        .map_err(|e| format!("not a readable OBJ file ({e})"))?;
    let mut positions = Vec::new();
    let mut triangles = Vec::new();
    for model in models {
        let base = u32::try_from(positions.len()).map_err(|_| "too many vertices")?;
        positions.extend(model.mesh.positions.chunks_exact(3).map(|p| Vec3::new(p[0], p[1], p[2])));
        triangles.extend(model.mesh.indices.chunks_exact(3).map(|t| [base + t[0], base + t[1], base + t[2]]));
    }
    Ok((positions, triangles))
}
