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
// The OBJ and STL parsing of the `hacd` command, one copy for both (that crate is a binary).
#[path = "../../convex-hacd-cli/src/parse.rs"]
mod parse;
mod rng;

pub use alloc::{ByteCounter, CountingAllocator};
pub use rng::{Rng, mix};

use std::fmt;
use std::path::{Path, PathBuf};

use voxel_core::IndexedMesh;
use voxel_core::glam::Vec3;

use crate::parse::{obj_text, stl_corners, stl_triangles};

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
///
/// OBJ texture and normal indices are checked (each must name a `vt`/`vn` line) but not loaded.
/// An STL file of `84 + 50 * count` bytes is binary whatever its header says; any other size is
/// ASCII when it has a `facet` or `endsolid` line, and an error otherwise.
pub fn load_mesh(path: &Path) -> Result<IndexedMesh, LoadError> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or_default().to_ascii_lowercase();
    let bytes = std::fs::read(path).map_err(|e| error(path, e))?;
    let (positions, triangles) = match ext.as_str() {
        "obj" => obj_triangles(path, &bytes)?,
        "stl" => stl_triangles(&stl_corners(&bytes).map_err(|e| error(path, e))?),
        _ => return Err(error(path, "not an .obj or .stl file")),
    };
    IndexedMesh::new(positions, triangles).map_err(|e| error(path, e))
}

fn obj_triangles(path: &Path, bytes: &[u8]) -> Result<(Vec<Vec3>, Vec<[u32; 3]>), LoadError> {
    let text = obj_text(bytes).map_err(|e| error(path, e))?;
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
