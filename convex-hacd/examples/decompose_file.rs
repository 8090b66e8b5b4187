//! Decomposes one OBJ or STL file and prints hull counts, the time and the tightness figure:
//! `cargo run --release -p convex-hacd --example decompose_file -- path/to/mesh.obj [repeats] [--time-only]
//! [--concavity X] [--merge-distance X] [--max-protrusion X] [--max-vertices N]` (`--time-only` skips
//! the score; `--concavity`, `--merge-distance`, `--max-protrusion` and `--max-vertices` override the
//! defaults).
//!
//! With `--score HULLS.obj` it decomposes nothing and scores the hulls of that OBJ file instead
//! (one hull per `o` or `g` group), as `cargo xtask coacd` does for CoACD's output:
//! `decompose_file path/to/mesh.obj --score hulls.obj`.

use std::time::Instant;

use convex_hacd::{DecomposeOptions, TightnessOptions, decompose, tightness};
use glam::Vec3;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: decompose_file <mesh.obj|mesh.stl> [repeats | --score hulls.obj]");
        return;
    };
    let mesh = match voxel_testdata::load_mesh(std::path::Path::new(path)) {
        Ok(mesh) => mesh,
        Err(e) => {
            eprintln!("{e}");
            return;
        }
    };
    if args.get(1).map(String::as_str) == Some("--score") {
        let Some(hulls_path) = args.get(2) else {
            eprintln!("--score needs an OBJ file");
            return;
        };
        let hulls = match std::fs::read_to_string(hulls_path) {
            Ok(text) => read_hulls(&text),
            Err(e) => {
                eprintln!("{hulls_path}: {e}");
                return;
            }
        };
        match tightness(&mesh, hulls.iter().map(|(v, t)| (&v[..], &t[..])), &TightnessOptions::default()) {
            Ok(t) => println!(
                "{path}: {} hulls, {} vertices, outside {:.2}%, farthest {:.2}%",
                hulls.len(),
                hulls.iter().map(|h| h.0.len()).sum::<usize>(),
                100.0 * t.outside_share,
                100.0 * t.farthest
            ),
            Err(e) => eprintln!("{e}"),
        }
        return;
    }
    let repeats: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(1);
    // `--time-only` skips the tightness score (for profiling the decomposition alone).
    let score = !args.iter().any(|a| a == "--time-only");
    // `--concavity X` overrides the default concavity limit.
    let mut options = DecomposeOptions::default();
    if let Some(k) = args.iter().position(|a| a == "--concavity") {
        options.concavity = args.get(k + 1).and_then(|c| c.parse().ok()).unwrap_or(options.concavity);
    }
    // `--max-protrusion X` overrides the final check's bound (0 turns it off).
    if let Some(k) = args.iter().position(|a| a == "--max-protrusion") {
        options.max_protrusion = args.get(k + 1).and_then(|c| c.parse().ok()).unwrap_or(options.max_protrusion);
    }
    // `--merge-distance X` overrides the second phase's distance (0 turns it off).
    if let Some(k) = args.iter().position(|a| a == "--merge-distance") {
        options.merge_distance = args.get(k + 1).and_then(|c| c.parse().ok()).unwrap_or(options.merge_distance);
    }
    // `--inside` lets the distance phase merge through the inside of the input.
    options.merge_through_inside = args.iter().any(|a| a == "--inside");
    // `--max-vertices N` caps the vertices per hull.
    if let Some(k) = args.iter().position(|a| a == "--max-vertices") {
        options.max_vertices_per_hull = args.get(k + 1).and_then(|c| c.parse().ok());
    }
    for _ in 0..repeats {
        let start = Instant::now();
        match decompose(&mesh, &options) {
            Ok(d) => {
                let elapsed = start.elapsed();
                let (outside, farthest) = if score {
                    let hulls = d.hulls.iter().map(|h| (&h.vertices[..], &h.triangles[..]));
                    tightness(&mesh, hulls, &TightnessOptions::default())
                        .map_or((f32::NAN, f32::NAN), |t| (t.outside_share, t.farthest))
                } else {
                    (f32::NAN, f32::NAN)
                };
                println!(
                    "{path}: {} hulls ({} split), {} vertices, {} samples, {:.1?}, outside {:.2}%, farthest {:.2}%",
                    d.hulls.len(),
                    d.protrusion_splits,
                    d.hulls.iter().map(|h| h.vertices.len()).sum::<usize>(),
                    d.samples,
                    elapsed,
                    100.0 * outside,
                    100.0 * farthest
                );
            }
            Err(e) => eprintln!("{e}"),
        }
    }
}

/// The hulls of an OBJ file: one per `o` or `g` line (the vertices before the first group form
/// one too), with faces fanned into triangles and indices made local to the hull.
fn read_hulls(text: &str) -> Vec<(Vec<Vec3>, Vec<[u32; 3]>)> {
    let mut all: Vec<Vec3> = Vec::new();
    let mut groups: Vec<Vec<Vec<usize>>> = vec![Vec::new()];
    for line in text.lines() {
        let mut words = line.split_whitespace();
        match words.next() {
            Some("v") => {
                let c: Vec<f32> = words.take(3).filter_map(|w| w.parse().ok()).collect();
                if c.len() == 3 {
                    all.push(Vec3::new(c[0], c[1], c[2]));
                }
            }
            Some("o" | "g") => groups.push(Vec::new()),
            Some("f") => {
                let face: Vec<usize> = words
                    .filter_map(|w| w.split('/').next()?.parse::<i64>().ok())
                    .map(|i| if i < 0 { (all.len() as i64 + i) as usize } else { (i - 1) as usize })
                    .collect();
                if let Some(g) = groups.last_mut() {
                    g.push(face);
                }
            }
            _ => {}
        }
    }
    let mut hulls = Vec::new();
    for faces in groups.into_iter().filter(|g| !g.is_empty()) {
        let mut local = std::collections::BTreeMap::new();
        let mut vertices = Vec::new();
        let mut triangles = Vec::new();
        let mut index = |i: usize, vertices: &mut Vec<Vec3>| {
            *local.entry(i).or_insert_with(|| {
                vertices.push(all.get(i).copied().unwrap_or(Vec3::NAN));
                vertices.len() as u32 - 1
            })
        };
        for face in faces {
            for k in 1..face.len().saturating_sub(1) {
                triangles.push([
                    index(face[0], &mut vertices),
                    index(face[k], &mut vertices),
                    index(face[k + 1], &mut vertices),
                ]);
            }
        }
        hulls.push((vertices, triangles));
    }
    hulls
}
