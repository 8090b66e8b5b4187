//! Decomposes one OBJ or STL file and prints hull counts and the time:
//! `cargo run --release -p convex-hacd --example decompose_file -- path/to/mesh.obj`.

use std::time::Instant;

use convex_hacd::{DecomposeOptions, decompose};

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: decompose_file <mesh.obj|mesh.stl> [repeats]");
        return;
    };
    let repeats: usize = std::env::args().nth(2).and_then(|r| r.parse().ok()).unwrap_or(1);
    let mesh = match voxel_testdata::load_mesh(std::path::Path::new(&path)) {
        Ok(mesh) => mesh,
        Err(e) => {
            eprintln!("{e}");
            return;
        }
    };
    for _ in 0..repeats {
        let start = Instant::now();
        match decompose(&mesh, &DecomposeOptions::default()) {
            Ok(d) => println!(
                "{path}: {} hulls, {} vertices, {} samples, {:.1?}",
                d.hulls.len(),
                d.hulls.iter().map(|h| h.vertices.len()).sum::<usize>(),
                d.samples,
                start.elapsed()
            ),
            Err(e) => eprintln!("{e}"),
        }
    }
}
