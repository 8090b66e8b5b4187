//! The decomposition probe behind `convex-hacd`'s README table: ours on one and on two rayon
//! threads and parry3d's VHACD (default parameters, `compute_convex_hulls(4)`), alternated round
//! by round in one process, each timed as the minimum wall clock over the rounds, which a shared
//! machine disturbs less than criterion's mean. It also prints a hash of our hulls (vertices,
//! triangles, source triangles, error) on each thread count, so a speed-up can be checked to give
//! the same hulls.
//!
//! ```text
//! cargo run --release -p voxel-bench --example hacd_probe                      # every mesh, 5 rounds
//! cargo run --release -p voxel-bench --example hacd_probe -- 9 a.obj b.stl     # 9 rounds, these meshes
//! NOPARRY=1 ...                                                                # ours only
//! INSIDE=1 ...                                                                 # ours with merge_through_inside
//! ```
//!
//! The meshes are the shared data set's (`../shared/data/meshes/`) when it is there, the
//! repository's `testdata/` copies otherwise.

use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::time::Instant;

use convex_hacd::{DecomposeOptions, Decomposition, decompose};
use parry3d::transformation::vhacd::{VHACD, VHACDParameters};
use voxel_bench::{shared_data, testdata};

fn hash(d: &Decomposition) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for hull in &d.hulls {
        for v in &hull.vertices {
            v.to_array().map(f32::to_bits).hash(&mut h);
        }
        hull.triangles.hash(&mut h);
        hull.source_triangles.hash(&mut h);
        hull.error.to_bits().hash(&mut h);
    }
    h.finish()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rounds: usize = args.first().and_then(|r| r.parse().ok()).unwrap_or(5).max(1);
    let mut files: Vec<PathBuf> = args.iter().skip(1).map(PathBuf::from).collect();
    if files.is_empty() {
        let dir = shared_data().map_or_else(|| testdata().join("meshes"), |d| d.join("meshes"));
        files = voxel_testdata::files_below(&dir, &["obj", "stl"]);
    }
    let with_parry = std::env::var("NOPARRY").is_err();
    let pools = [1, 2].map(|n| rayon::ThreadPoolBuilder::new().num_threads(n).build().expect("a pool"));
    let options =
        DecomposeOptions { merge_through_inside: std::env::var("SURFACE").is_err(), ..DecomposeOptions::default() };
    for path in files {
        let Ok(mesh) = voxel_testdata::load_mesh(&path) else {
            eprintln!("skipping {}: not readable", path.display());
            continue;
        };
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let mut best = [f64::INFINITY; 3];
        let mut hashes = [0u64; 2];
        let mut hulls = 0;
        for _ in 0..rounds {
            for (k, pool) in pools.iter().enumerate() {
                let start = Instant::now();
                let d = pool.install(|| decompose(&mesh, &options)).expect("decomposes");
                best[k] = best[k].min(start.elapsed().as_secs_f64());
                hashes[k] = hash(&d);
                hulls = d.hulls.len();
            }
            if with_parry {
                let start = Instant::now();
                let theirs = VHACD::decompose(&VHACDParameters::default(), mesh.positions(), mesh.triangles(), false)
                    .compute_convex_hulls(4);
                best[2] = best[2].min(start.elapsed().as_secs_f64());
                std::hint::black_box(theirs);
            }
        }
        println!(
            "{name:20} ours {:8.1} ms  2 threads {:8.1} ms  parry3d {:8.1} ms  parry/ours {:5.2}x  on 2 threads {:5.2}x  \
             hulls {hulls:4}  hash {:016x} {}",
            1e3 * best[0],
            1e3 * best[1],
            1e3 * best[2],
            best[2] / best[0],
            best[2] / best[1],
            hashes[0],
            if hashes[0] == hashes[1] { "(same on 2 threads)" } else { "(DIFFERS on 2 threads)" },
        );
    }
}
