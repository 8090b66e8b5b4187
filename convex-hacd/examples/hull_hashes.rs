//! Prints one hash of the decomposition's bits per mesh and option set, on one and on two rayon
//! threads: the check that a refactor or a speed-up gives the same hulls bit for bit. The hash
//! (FNV-1a, stable across Rust versions) covers every hull's vertices, triangles, source
//! triangles, flag, error and cap error, the counters and, with `record`, every recorded step.
//!
//! ```text
//! cargo run --release -p convex-hacd --example hull_hashes > before.txt
//! # ...change the code...
//! cargo run --release -p convex-hacd --example hull_hashes > after.txt && diff before.txt after.txt
//! ```
//!
//! The meshes are those below `meshes/` and `peer/degenerate-meshes/` of `testdata/`, or of the
//! shared set when `VOXEL_SHARED_DATA` names it. A line ends in `THREADS DIFFER` when one and
//! two threads disagree.

#[path = "../tests/hash/mod.rs"]
mod hash;

use convex_hacd::{DecomposeOptions, decompose};
use hash::hash;
use voxel_testdata::{data_files, load_mesh};

fn main() {
    let mut files = data_files("meshes", &["obj", "stl"]);
    files.extend(data_files("peer/degenerate-meshes", &["obj", "stl"]));
    let sets: [(&str, DecomposeOptions); 4] = [
        ("default", DecomposeOptions::default()),
        ("surface", DecomposeOptions { merge_through_inside: false, ..Default::default() }),
        ("record", DecomposeOptions { record: true, ..Default::default() }),
        ("caps", DecomposeOptions { max_hulls: Some(4), max_vertices_per_hull: Some(12), ..Default::default() }),
    ];
    let pools = [1, 2].map(|n| rayon::ThreadPoolBuilder::new().num_threads(n).build().expect("a pool"));
    for path in files {
        let Ok(mesh) = load_mesh(&path) else {
            println!("{}: not readable", path.display());
            continue;
        };
        for (name, options) in &sets {
            let [one, two] = pools.each_ref().map(|pool| pool.install(|| decompose(&mesh, options).map(|d| hash(&d))));
            let flag = if one == two { "" } else { " THREADS DIFFER" };
            println!("{} {name}: {one:016x?}{flag}", path.display());
        }
    }
}
