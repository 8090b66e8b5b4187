//! OBJ and STL files into one indexed mesh (tobj and stl_io, with the fixes real exporters need).

use std::collections::HashMap;
use std::path::Path;

use voxel_core::IndexedMesh;
use voxel_core::glam::Vec3;

/// Loads an OBJ or STL file as one indexed mesh: every OBJ object merged, polygons fanned into
/// triangles; STL binary or ASCII (several `solid` blocks, any whitespace after `solid`), its
/// corners welded by exact value. The error is a message for the user.
pub(crate) fn load_mesh(path: &Path) -> Result<IndexedMesh, String> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or_default().to_ascii_lowercase();
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let (positions, triangles) = match ext.as_str() {
        "obj" => obj_triangles(&bytes)?,
        "stl" => stl_triangles(&bytes)?,
        _ => return Err("not an .obj or .stl file".to_owned()),
    };
    IndexedMesh::new(positions, triangles).map_err(|e| crate::chain(&e))
}

type Lists = (Vec<Vec3>, Vec<[u32; 3]>);

fn obj_triangles(bytes: &[u8]) -> Result<Lists, String> {
    // tobj does not join lines that end in a backslash (Rhino writes them) and fails on an empty
    // `usemtl`; materials do not matter for hulls, so their lines are dropped.
    let joined = String::from_utf8_lossy(bytes).replace("\\\r\n", " ").replace("\\\n", " ");
    let text: String = joined
        .lines()
        .filter(|l| !matches!(l.split_whitespace().next(), Some("usemtl" | "mtllib")))
        .flat_map(|l| [l, "\n"])
        .collect();
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

fn stl_triangles(bytes: &[u8]) -> Result<Lists, String> {
    // Binary or ASCII by size, not by a leading `solid` (binary headers may start with it).
    let binary = bytes.len() >= 84 && {
        let n = u32::from_le_bytes([bytes[80], bytes[81], bytes[82], bytes[83]]) as usize;
        bytes.len() == 84 + 50 * n
    };
    let mut corners = Vec::new();
    if binary {
        read_stl_block(bytes, &mut corners)?;
    } else {
        // stl_io reads one `solid` block and wants `solid` and one space: a tab or nothing after
        // it (both valid) read as binary. Each block goes to it alone, its first line rewritten.
        let text = String::from_utf8_lossy(bytes);
        let mut block = String::new();
        for line in text.lines() {
            match line.trim_start().strip_prefix("solid") {
                Some(name) if name.is_empty() || name.starts_with(char::is_whitespace) => {
                    block.push_str("solid ");
                    block.push_str(name.trim());
                }
                _ => block.push_str(line),
            }
            block.push('\n');
            if line.trim_start().starts_with("endsolid") {
                read_stl_block(block.as_bytes(), &mut corners)?;
                block.clear();
            }
        }
        if !block.trim().is_empty() {
            read_stl_block(block.as_bytes(), &mut corners)?;
        }
    }
    // Welded by exact value (-0.0 as +0.0); welding within a tolerance is the decomposition's.
    let mut positions = Vec::new();
    let mut slot_of = HashMap::new();
    let mut index = |p: Vec3| -> u32 {
        let p = p + Vec3::ZERO;
        *slot_of.entry(p.to_array().map(f32::to_bits)).or_insert_with(|| {
            positions.push(p);
            positions.len() as u32 - 1
        })
    };
    let triangles: Vec<[u32; 3]> = corners.into_iter().map(|t: [Vec3; 3]| t.map(&mut index)).collect();
    Ok((positions, triangles))
}

fn read_stl_block(bytes: &[u8], out: &mut Vec<[Vec3; 3]>) -> Result<(), String> {
    let mesh =
        stl_io::read_stl(&mut std::io::Cursor::new(bytes)).map_err(|e| format!("not a readable STL file ({e})"))?;
    let at = |i: usize| Vec3::new(mesh.vertices[i][0], mesh.vertices[i][1], mesh.vertices[i][2]);
    for face in &mesh.faces {
        if face.vertices.iter().any(|&i| i >= mesh.vertices.len()) {
            return Err("not a readable STL file (a face names a missing vertex)".to_owned());
        }
        out.push(face.vertices.map(at));
    }
    Ok(())
}
