//! The text and bytes of OBJ and STL files, for the `hacd` command's loader and for the
//! workspace's test loader (voxel-testdata includes this file by path: it cannot be a
//! dependency of this published crate, and this crate has no library).

use voxel_core::glam::Vec3;

/// The OBJ text handed to tobj: backslash continuations joined (Rhino writes them, tobj does not
/// join them), material lines dropped (an empty `usemtl` fails tobj; materials do not matter
/// here), and each `f`/`l` element cut to its position index. tobj's own checks of texture and
/// normal indices overflow (a panic where overflow checks are on) on a relative index two or more
/// before the first `vt`/`vn` or an index above `usize::MAX / 3`, so they are checked here: an
/// element of more than three parts, a part that is not an integer, an empty position, or a
/// texture or normal index naming no `vt`/`vn` line is an error, as a bad position index is.
pub(crate) fn obj_text(bytes: &[u8]) -> Result<String, String> {
    let joined = String::from_utf8_lossy(bytes).replace("\\\r\n", " ").replace("\\\n", " ");
    fn keyword(line: &str) -> Option<&str> {
        line.split_whitespace().next()
    }
    let total = |k: &str| joined.lines().filter(|l| keyword(l) == Some(k)).count();
    let (vt_total, vn_total) = (total("vt"), total("vn"));
    let (mut vt_before, mut vn_before) = (0, 0);
    let mut text = String::with_capacity(joined.len());
    for line in joined.lines() {
        match keyword(line) {
            Some("usemtl" | "mtllib") => continue,
            Some("vt") => vt_before += 1,
            Some("vn") => vn_before += 1,
            Some(k @ ("f" | "l")) => {
                text.push_str(k);
                for element in line.split_whitespace().skip(1) {
                    let mut parts = element.split('/');
                    let position = parts.next().unwrap_or_default();
                    let texture = parts.next().unwrap_or_default();
                    let normal = parts.next().unwrap_or_default();
                    if position.is_empty() || parts.next().is_some() {
                        return Err(format!("face element `{element}` is not v, v/vt, v//vn or v/vt/vn"));
                    }
                    if !names_a_line(texture, vt_before, vt_total) {
                        return Err(format!("face element `{element}` names no `vt` line ({vt_total} in the file)"));
                    }
                    if !names_a_line(normal, vn_before, vn_total) {
                        return Err(format!("face element `{element}` names no `vn` line ({vn_total} in the file)"));
                    }
                    text.push(' ');
                    text.push_str(position);
                }
                text.push('\n');
                continue;
            }
            _ => {}
        }
        text.push_str(line);
        text.push('\n');
    }
    Ok(text)
}

/// Whether `index` (a face element's texture or normal part) is empty or names one of the
/// `total` lines of its kind: from 1 counting from the top, or from -1 counting back from the
/// `before` lines above the face.
fn names_a_line(index: &str, before: usize, total: usize) -> bool {
    index.is_empty()
        || index.parse::<i64>().is_ok_and(|i| match i {
            1.. => i.unsigned_abs() <= total as u64,
            ..0 => i.unsigned_abs() <= before as u64,
            0 => false,
        })
}

/// The triangles of an STL file as corner triples. A file of `84 + 50 * count` bytes (`count`
/// at bytes 80..84) is binary whatever its header says (exporters write headers that start with
/// `solid`) and is read here, not by stl_io, which would decide again by the first line. Any
/// other file is ASCII if it has a `facet` or `endsolid` line; otherwise it is a binary file cut
/// short or whose count lies, an error (read as text, its bytes would be invented triangles).
pub(crate) fn stl_corners(bytes: &[u8]) -> Result<Vec<[Vec3; 3]>, String> {
    let count = match bytes.get(80..84) {
        Some(&[a, b, c, d]) => Some(u32::from_le_bytes([a, b, c, d])),
        _ => None,
    };
    if let (Some(n), Some(facets)) = (count, bytes.get(84..)) {
        if facets.len() as u64 == 50 * u64::from(n) {
            // Each facet: normal, three corners (little-endian f32), a 2-byte attribute.
            let corner = |f: &[u8], at: usize| {
                let x = |o: usize| f32::from_le_bytes([f[o], f[o + 1], f[o + 2], f[o + 3]]);
                Vec3::new(x(at), x(at + 4), x(at + 8))
            };
            return Ok(facets.chunks_exact(50).map(|f| [12, 24, 36].map(|at| corner(f, at))).collect());
        }
    }
    let text = String::from_utf8_lossy(bytes);
    if !text.lines().any(|l| matches!(l.split_whitespace().next(), Some("facet" | "endsolid"))) {
        return Err(match count {
            Some(n) => format!(
                "not ASCII STL (no `facet` or `endsolid` line), and a binary STL of {n} triangles should be {} bytes, is {}",
                84 + 50 * u64::from(n),
                bytes.len()
            ),
            None => format!(
                "not ASCII STL (no `facet` or `endsolid` line), and {} bytes is shorter than a binary STL",
                bytes.len()
            ),
        });
    }
    // stl_io reads one `solid` block and wants `solid` and one space: a tab or nothing after it
    // (both valid) would make it read the text as binary. Each block goes to it alone, its first
    // line rewritten; blank lines between blocks are skipped, any other text there is an error.
    let mut corners = Vec::new();
    let mut block = String::new();
    for line in text.lines() {
        match line.trim_start().strip_prefix("solid") {
            Some(name) if name.is_empty() || name.starts_with(char::is_whitespace) => {
                block.push_str("solid ");
                block.push_str(name.trim());
            }
            _ if block.is_empty() && line.trim().is_empty() => continue,
            _ if block.is_empty() => return Err("not a readable STL file (text outside a `solid` block)".to_owned()),
            _ => block.push_str(line),
        }
        block.push('\n');
        if line.trim_start().starts_with("endsolid") {
            read_ascii_stl_block(&block, &mut corners)?;
            block.clear();
        }
    }
    if !block.is_empty() {
        read_ascii_stl_block(&block, &mut corners)?;
    }
    Ok(corners)
}

/// One `solid` block, which starts with `solid ` so that stl_io reads it as ASCII.
fn read_ascii_stl_block(block: &str, out: &mut Vec<[Vec3; 3]>) -> Result<(), String> {
    let mesh = stl_io::read_stl(&mut std::io::Cursor::new(block.as_bytes()))
        .map_err(|e| format!("not a readable STL file ({e})"))?;
    for face in &mesh.faces {
        if face.vertices.iter().any(|&i| i >= mesh.vertices.len()) {
            return Err("not a readable STL file (a face names a missing vertex)".to_owned());
        }
        out.push(face.vertices.map(|i| Vec3::from_array(mesh.vertices[i].0)));
    }
    Ok(())
}

/// STL corners welded by exact value (bit pattern after turning -0.0 into +0.0); nearly equal
/// corners stay apart, since tolerance welding is each consumer's own choice.
pub(crate) fn stl_triangles(corners: &[[Vec3; 3]]) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let mut positions = Vec::new();
    let mut slot_of = std::collections::HashMap::new();
    let mut index = |p: Vec3| -> u32 {
        let p = p + Vec3::ZERO; // adding +0.0 turns -0.0 into +0.0
        *slot_of.entry(p.to_array().map(f32::to_bits)).or_insert_with(|| {
            positions.push(p);
            positions.len() as u32 - 1
        })
    };
    let triangles = corners.iter().map(|t| t.map(&mut index)).collect();
    (positions, triangles)
}
