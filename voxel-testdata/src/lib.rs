//! Test-only helpers: where the real test data lives, and loaders for it.
//!
//! Every crate's tests that read real files go through [`data_files`]:
//!
//! - by default it lists the small, permissively licensed copies in the repository's `testdata/`
//!   folder, so `cargo test --workspace` runs on a fresh clone with nothing else;
//! - when the environment variable [`SHARED_DATA_ENV`] names a folder (as `cargo xtask test-data`
//!   does), it lists the same sub-folder of that whole data set instead. A variable that names a
//!   missing folder fails the test loudly rather than silently testing less.
//!
//! Meshes load through `tobj` (OBJ) and `stl_io` (STL) into a [`voxel_core::IndexedMesh`]; point
//! sets are JSON arrays of `[x, y, z]`.
//!
//! The test kit: [`Rng`] (SplitMix64) for reproducible random inputs, and [`CountingAllocator`]
//! for the tests proving a path allocates nothing after warm-up.

mod alloc;
mod rng;

pub use alloc::{ByteCounter, CountingAllocator};
pub use rng::{Rng, mix};

use std::fmt;
use std::path::{Path, PathBuf};

use voxel_core::IndexedMesh;
use voxel_core::glam::Vec3;

/// The environment variable naming the whole shared data folder (`../shared/data` in CI).
pub const SHARED_DATA_ENV: &str = "VOXEL_SHARED_DATA";

/// The repository's `testdata/` folder.
pub fn testdata_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("testdata")
}

/// The whole shared data folder when [`SHARED_DATA_ENV`] is set. A relative path is taken from the workspace root.
///
/// # Panics
///
/// When the variable is set but does not name a folder: the caller asked for the extended run,
/// and quietly falling back would report a pass for tests that never ran.
pub fn shared_data_dir() -> Option<PathBuf> {
    let given = PathBuf::from(std::env::var_os(SHARED_DATA_ENV)?);
    // Tests run in their crate's folder; a relative path means relative to the workspace root.
    let dir = if given.is_relative() { Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(given) } else { given };
    assert!(dir.is_dir(), "{SHARED_DATA_ENV}={} is not a folder", dir.display());
    Some(dir)
}

/// Files below `subdir` (for example `"meshes"` or `"voxels/vox"`) whose extension is one of
/// `extensions` (lowercase, no dot), sorted by path: from the shared data set when
/// [`SHARED_DATA_ENV`] is set, else from `testdata/`.
///
/// # Panics
///
/// When no file matches: a data test over nothing would pass without testing.
pub fn data_files(subdir: &str, extensions: &[&str]) -> Vec<PathBuf> {
    let root = shared_data_dir().unwrap_or_else(testdata_dir).join(subdir);
    let files = files_below(&root, extensions);
    assert!(!files.is_empty(), "no {extensions:?} files below {}", root.display());
    files
}

/// Every file below `dir`, in any depth of folders, whose extension is one of `extensions`
/// (no dot, any case), sorted by path; empty when `dir` cannot be read.
pub fn files_below(dir: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    collect(dir, extensions, &mut files);
    files.sort();
    files
}

/// Path of one file of `testdata/` (always the repository copy).
pub fn testdata_file(relative: &str) -> PathBuf {
    testdata_dir().join(relative)
}

fn collect(dir: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, extensions, out);
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| extensions.iter().any(|x| x.eq_ignore_ascii_case(e)))
        {
            out.push(path);
        }
    }
}

/// Why a file did not load.
#[derive(Debug)]
pub struct LoadError {
    /// The file.
    pub path: PathBuf,
    /// What went wrong.
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for LoadError {}

fn error(path: &Path, message: impl fmt::Display) -> LoadError {
    LoadError { path: path.to_owned(), message: message.to_string() }
}

/// Loads an OBJ or STL file as one indexed mesh (all OBJ objects merged, polygons fan-triangulated,
/// STL vertices welded by exact position).
pub fn load_mesh(path: &Path) -> Result<IndexedMesh, LoadError> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or_default().to_ascii_lowercase();
    let bytes = std::fs::read(path).map_err(|e| error(path, e))?;
    let (positions, triangles) = match ext.as_str() {
        "obj" => obj_triangles(path, &bytes)?,
        "stl" => stl_triangles(path, &bytes)?,
        _ => return Err(error(path, "not an .obj or .stl file")),
    };
    IndexedMesh::new(positions, triangles).map_err(|e| error(path, e))
}

fn obj_triangles(path: &Path, bytes: &[u8]) -> Result<(Vec<Vec3>, Vec<[u32; 3]>), LoadError> {
    // tobj does not join lines that end in a backslash (Rhino exports them), and fails on an empty
    // `usemtl`; materials are not shipped with the data, so their lines are dropped here.
    let joined = String::from_utf8_lossy(bytes).replace("\\\r\n", " ").replace("\\\n", " ");
    let text: String = joined
        .lines()
        .filter(|l| !matches!(l.split_whitespace().next(), Some("usemtl" | "mtllib")))
        .flat_map(|l| [l, "\n"])
        .collect();
    let options = tobj::LoadOptions { triangulate: true, single_index: false, ..Default::default() };
    // Material files are not shipped; the loader is told there are none.
    let (models, _) = tobj::load_obj_buf(&mut text.as_bytes(), &options, |_| Err(tobj::LoadError::OpenFileFailed))
        .map_err(|e| error(path, e))?;
    let mut positions = Vec::new();
    let mut triangles = Vec::new();
    for model in models {
        let base = positions.len() as u32;
        positions.extend(model.mesh.positions.chunks_exact(3).map(|p| Vec3::new(p[0], p[1], p[2])));
        triangles.extend(model.mesh.indices.chunks_exact(3).map(|t| [base + t[0], base + t[1], base + t[2]]));
    }
    Ok((positions, triangles))
}

fn stl_triangles(path: &Path, bytes: &[u8]) -> Result<(Vec<Vec3>, Vec<[u32; 3]>), LoadError> {
    // Binary or ASCII by size, not by a leading `solid` (binary headers may start with it).
    let binary = bytes.len() >= 84 && {
        let n = u32::from_le_bytes([bytes[80], bytes[81], bytes[82], bytes[83]]) as usize;
        bytes.len() == 84 + 50 * n
    };
    let mut corners = Vec::new();
    if binary {
        read_stl_block(path, bytes, &mut corners)?;
    } else {
        // stl_io reads one `solid` block; an ASCII file may hold several (multibody.stl).
        let text = String::from_utf8_lossy(bytes);
        let mut block = String::new();
        for line in text.lines() {
            // stl_io wants `solid` and one space; a tab or nothing after it (both valid ASCII
            // STL) read as binary, "failed to fill whole buffer".
            match line.trim_start().strip_prefix("solid") {
                Some(name) if name.is_empty() || name.starts_with(char::is_whitespace) => {
                    block.push_str("solid ");
                    block.push_str(name.trim());
                }
                _ => block.push_str(line),
            }
            block.push('\n');
            if line.trim_start().starts_with("endsolid") {
                read_stl_block(path, block.as_bytes(), &mut corners)?;
                block.clear();
            }
        }
        if !block.trim().is_empty() {
            read_stl_block(path, block.as_bytes(), &mut corners)?;
        }
    }
    // Weld by exact value (bit pattern after turning -0.0 into +0.0); nearly equal corners stay
    // apart, since tolerance welding is each consumer's own choice.
    let mut positions = Vec::new();
    let mut slot_of = std::collections::HashMap::new();
    let mut index = |p: Vec3| -> u32 {
        let p = p + Vec3::ZERO; // adding +0.0 turns -0.0 into +0.0
        *slot_of.entry(p.to_array().map(f32::to_bits)).or_insert_with(|| {
            positions.push(p);
            positions.len() as u32 - 1
        })
    };
    let triangles: Vec<[u32; 3]> = corners.into_iter().map(|t: [Vec3; 3]| t.map(&mut index)).collect();
    Ok((positions, triangles))
}

fn read_stl_block(path: &Path, bytes: &[u8], out: &mut Vec<[Vec3; 3]>) -> Result<(), LoadError> {
    let mesh = stl_io::read_stl(&mut std::io::Cursor::new(bytes)).map_err(|e| error(path, e))?;
    let at = |i: usize| Vec3::new(mesh.vertices[i][0], mesh.vertices[i][1], mesh.vertices[i][2]);
    out.extend(mesh.faces.iter().map(|f| f.vertices.map(at)));
    Ok(())
}

/// Loads a JSON array of `[x, y, z]` points.
pub fn load_points(path: &Path) -> Result<Vec<Vec3>, LoadError> {
    let bytes = std::fs::read(path).map_err(|e| error(path, e))?;
    let value: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| error(path, e))?;
    let array = value.as_array().ok_or_else(|| error(path, "not a JSON array"))?;
    array
        .iter()
        .map(|p| {
            let c = p.as_array().filter(|c| c.len() == 3).ok_or_else(|| error(path, "a point is not [x, y, z]"))?;
            let f = |v: &serde_json::Value| v.as_f64().map(|x| x as f32).ok_or_else(|| error(path, "not a number"));
            Ok(Vec3::new(f(&c[0])?, f(&c[1])?, f(&c[2])?))
        })
        .collect()
}
