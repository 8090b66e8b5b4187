//! Decomposes one OBJ or STL file and prints hull counts, the time and the tightness figure:
//! `cargo run --release -p convex-hacd --example decompose_file -- path/to/mesh.obj [repeats] [--time-only]
//! [--concavity X] [--merge-distance X] [--max-protrusion X] [--max-vertices N] [--surface]` (`--time-only` skips
//! the score; `--concavity`, `--merge-distance`, `--max-protrusion` and `--max-vertices` override the
//! defaults; `--surface` turns `merge_through_inside` off).
//!
//! With `--score HULLS.obj` it decomposes nothing and scores the hulls of that OBJ file instead
//! (one hull per `o` or `g` group), as `cargo xtask coacd` does for CoACD's output:
//! `decompose_file path/to/mesh.obj --score hulls.obj`.

use std::process::ExitCode;
use std::time::Instant;

use convex_hacd::{DecomposeOptions, TightnessOptions, decompose, tightness};
use glam::Vec3;
use voxel_core::TriangleSource;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("decompose_file: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Every failure is an `Err` with a message naming the file (the process then exits non-zero).
fn run(args: &[String]) -> Result<(), String> {
    let Some(path) = args.first() else {
        return Err("usage: decompose_file <mesh.obj|mesh.stl> [repeats | --score hulls.obj]".to_owned());
    };
    let mesh = voxel_testdata::load_mesh(std::path::Path::new(path)).map_err(|e| e.to_string())?;
    if mesh.triangle_count() == 0 {
        // tobj reads a file with no `f` lines (or none it understands) as an empty mesh.
        return Err(format!("{path}: no triangles (empty, or not a mesh this loader understands)"));
    }
    if args.get(1).map(String::as_str) == Some("--score") {
        let Some(hulls_path) = args.get(2) else {
            return Err("--score needs an OBJ file".to_owned());
        };
        let text = std::fs::read_to_string(hulls_path).map_err(|e| format!("{hulls_path}: {e}"))?;
        let hulls = read_hulls(&text);
        let t = tightness(&mesh, hulls.iter().map(|(v, t)| (&v[..], &t[..])), &TightnessOptions::default())
            .map_err(|e| format!("{path}: scoring {hulls_path}: {e}"))?;
        println!(
            "{path}: {} hulls, {} vertices, outside {:.2}%, farthest {:.2}%",
            hulls.len(),
            hulls.iter().map(|h| h.0.len()).sum::<usize>(),
            100.0 * t.outside_share,
            100.0 * t.farthest
        );
        return Ok(());
    }
    let repeats: usize = match args.get(1).filter(|a| !a.starts_with("--")) {
        Some(r) => r.parse().map_err(|_| format!("repeats must be a number, not {r}"))?,
        None => 1,
    };
    // `--time-only` skips the tightness score (for profiling the decomposition alone).
    let score = !args.iter().any(|a| a == "--time-only");
    let value = |flag: &str| -> Result<Option<&str>, String> {
        match args.iter().position(|a| a == flag) {
            Some(k) => args.get(k + 1).map(|v| Some(v.as_str())).ok_or_else(|| format!("{flag} needs a value")),
            None => Ok(None),
        }
    };
    let number = |flag: &str, v: &str| -> Result<f32, String> {
        v.parse().map_err(|_| format!("{flag} needs a number, not {v}"))
    };
    let mut options = DecomposeOptions::default();
    // `--concavity X` overrides the default concavity limit.
    if let Some(v) = value("--concavity")? {
        options.concavity = number("--concavity", v)?;
    }
    // `--max-protrusion X` overrides the final check's bound (0 turns it off).
    if let Some(v) = value("--max-protrusion")? {
        options.max_protrusion = number("--max-protrusion", v)?;
    }
    // `--merge-distance X` overrides the second phase's distance (0 turns it off).
    if let Some(v) = value("--merge-distance")? {
        options.merge_distance = number("--merge-distance", v)?;
    }
    // `--surface` turns `merge_through_inside` off (`--inside`, the default, is accepted).
    options.merge_through_inside = !args.iter().any(|a| a == "--surface");
    // `--max-vertices N` caps the vertices per hull.
    if let Some(v) = value("--max-vertices")? {
        options.max_vertices_per_hull = Some(v.parse().map_err(|_| format!("--max-vertices needs a count, not {v}"))?);
    }
    for _ in 0..repeats {
        let start = Instant::now();
        let d = decompose(&mesh, &options).map_err(|e| format!("{path}: {e}"))?;
        let elapsed = start.elapsed();
        if d.hulls.is_empty() {
            return Err(format!(
                "{path}: no hulls: all {} triangles are degenerate ({}) or have non-finite corners ({})",
                mesh.triangle_count(),
                d.degenerate_triangles,
                d.non_finite_triangles
            ));
        }
        let (outside, farthest) = if score {
            let hulls = d.hulls.iter().map(|h| (&h.vertices[..], &h.triangles[..]));
            let t =
                tightness(&mesh, hulls, &TightnessOptions::default()).map_err(|e| format!("{path}: scoring: {e}"))?;
            (format!("{:.2}%", 100.0 * t.outside_share), format!("{:.2}%", 100.0 * t.farthest))
        } else {
            ("-".to_owned(), "-".to_owned())
        };
        println!(
            "{path}: {} hulls ({} split), {} vertices, {} samples, {:.1?}, outside {outside}, farthest {farthest}",
            d.hulls.len(),
            d.protrusion_splits,
            d.hulls.iter().map(|h| h.vertices.len()).sum::<usize>(),
            d.samples,
            elapsed,
        );
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::run;

    fn temp_file(name: &str, text: &str) -> String {
        let dir = std::env::temp_dir().join(format!("decompose-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_string_lossy().into_owned()
    }

    /// An empty or garbage OBJ printed "0 hulls, outside NaN%" and exited 0.
    #[test]
    fn empty_and_garbage_files_are_errors() {
        for (name, text) in
            [("empty.obj", ""), ("garbage.obj", "hello\nthis is not a mesh\n"), ("points.obj", "v 0 0 0\nv 1 0 0\n")]
        {
            let path = temp_file(name, text);
            let e = run(std::slice::from_ref(&path)).expect_err(name);
            assert!(e.contains(&path) && e.contains("no triangles"), "{name}: {e}");
        }
        let e = run(&["/does/not/exist.obj".to_owned()]).unwrap_err();
        assert!(e.contains("exist.obj"), "{e}");
        assert!(run(&[]).unwrap_err().starts_with("usage"));
    }

    #[test]
    fn only_degenerate_triangles_is_an_error() {
        let path = temp_file("flat.obj", "v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n");
        let e = run(&[path]).unwrap_err();
        assert!(e.contains("no hulls") && e.contains("degenerate (1)"), "{e}");
    }

    #[test]
    fn bad_flags_are_errors_and_a_tab_after_solid_loads() {
        let stl = "solid\tpart\nfacet normal 0 0 1\n outer loop\n  vertex 0 0 0\n  vertex 1 0 0\n  vertex 0 1 0\n endloop\nendfacet\nendsolid part\n";
        let path = temp_file("tab.stl", stl);
        run(std::slice::from_ref(&path)).unwrap();
        assert!(run(&[path.clone(), "--concavity".to_owned()]).unwrap_err().contains("needs a value"));
        assert!(run(&[path.clone(), "--concavity".to_owned(), "x".to_owned()]).unwrap_err().contains("number"));
        assert!(run(&[path, "--concavity".to_owned(), "-1".to_owned()]).unwrap_err().contains("invalid option"));
    }
}
