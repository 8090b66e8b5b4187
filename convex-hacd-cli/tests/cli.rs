//! The `hacd` binary on the repository's test meshes and on bad files: exit codes, messages, the
//! files written, and the same bytes for one and two threads.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn hacd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hacd")).args(args).output().expect("hacd runs")
}

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/meshes")
}

/// A fresh folder under the system's temporary folder.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hacd-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn files_below(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_below(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// The OBJ's hulls: per `o` line, its vertex count and its faces (as global 1-based indices).
fn obj_hulls(text: &str) -> Vec<(usize, Vec<[usize; 3]>)> {
    let mut hulls: Vec<(usize, Vec<[usize; 3]>)> = Vec::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.first() {
            Some(&"o") => hulls.push((0, Vec::new())),
            Some(&"v") => {
                assert!(words[1..].iter().all(|w| w.parse::<f32>().is_ok_and(f32::is_finite)), "{line}");
                hulls.last_mut().expect("a vertex inside an object").0 += 1;
            }
            Some(&"f") => {
                let f: Vec<usize> = words[1..].iter().map(|w| w.parse().unwrap()).collect();
                hulls.last_mut().expect("a face inside an object").1.push([f[0], f[1], f[2]]);
            }
            _ => {}
        }
    }
    hulls
}

#[test]
fn bakes_the_test_meshes_folder() {
    let out = scratch("folder");
    let run = hacd(&[testdata().to_str().unwrap(), "-o", out.to_str().unwrap(), "-q"]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let mut inputs = Vec::new();
    files_below(&testdata(), &mut inputs);
    let meshes: Vec<&PathBuf> =
        inputs.iter().filter(|p| p.extension().is_some_and(|e| e == "obj" || e == "stl")).collect();
    let mut written = Vec::new();
    files_below(&out, &mut written);
    assert_eq!(written.len(), 2 * meshes.len());
    // The cup (testdata/meshes/concave/cup.obj) keeps its folder; OBJ and JSON agree.
    let obj = std::fs::read_to_string(out.join("concave/cup.hulls.obj")).unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("concave/cup.hulls.json")).unwrap()).unwrap();
    let hulls = obj_hulls(&obj);
    let json_hulls = json["hulls"].as_array().unwrap();
    assert!(hulls.len() > 1, "the cup's cavity needs several hulls");
    assert_eq!(hulls.len(), json_hulls.len());
    assert_eq!(json["source"], "cup.obj");
    let mut first = 1;
    for ((vertices, faces), h) in hulls.iter().zip(json_hulls) {
        assert_eq!(*vertices, h["vertices"].as_array().unwrap().len());
        assert_eq!(faces.len(), h["faces"].as_array().unwrap().len());
        // Each object's faces use its own vertices only, and every vertex.
        let used: std::collections::BTreeSet<usize> = faces.iter().flatten().copied().collect();
        assert_eq!(used, (first..first + vertices).collect());
        first += vertices;
    }
}

#[test]
fn the_same_bytes_on_one_and_two_threads() {
    let (one, two) = (scratch("j1"), scratch("j2"));
    let folder = testdata().join("classic");
    for (dir, jobs) in [(&one, "1"), (&two, "2")] {
        let run = hacd(&[folder.to_str().unwrap(), "-o", dir.to_str().unwrap(), "-q", "-j", jobs]);
        assert!(run.status.success());
    }
    let mut files = Vec::new();
    files_below(&one, &mut files);
    assert!(files.len() >= 2);
    for file in files {
        let other = two.join(file.strip_prefix(&one).unwrap());
        assert!(std::fs::read(&file).unwrap() == std::fs::read(&other).unwrap(), "{}", file.display());
    }
}

#[test]
fn bad_files_get_a_message_each_and_a_failing_exit_code() {
    let dir = scratch("bad");
    let facet = "facet normal 0 0 1\n outer loop\n  vertex 0 0 0\n  vertex 1 0 0\n  vertex 0 1 0\n endloop\nendfacet\n";
    let tetra = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 2 3 4\nf 1 4 3\n";
    std::fs::write(dir.join("tab.stl"), format!("solid\tpart\n{facet}endsolid part\n")).unwrap();
    std::fs::write(dir.join("empty.obj"), "").unwrap();
    std::fs::write(dir.join("garbage.obj"), "hello, not a mesh\n").unwrap();
    std::fs::write(dir.join("broken.stl"), "solid x\nfacet normal 0 0 1\n outer loop\n  vertex 0 0\n").unwrap();
    std::fs::write(dir.join("tetra.obj"), tetra).unwrap();
    let out = dir.join("out");
    let run = hacd(&[dir.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    for bad in ["empty.obj", "garbage.obj", "broken.stl"] {
        let line = stderr.lines().find(|l| l.contains(bad)).unwrap_or_else(|| panic!("no message for {bad}: {stderr}"));
        assert!(line.starts_with("hacd: "), "{line}");
    }
    assert!(stderr.contains("empty.obj: no triangles"), "{stderr}");
    // The good files are still written: the tab after `solid` reads, the tetrahedron is one hull.
    assert!(!stderr.contains("tab.stl"), "{stderr}");
    let tetra_json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tetra.hulls.json")).unwrap()).unwrap();
    assert_eq!(tetra_json["hulls"].as_array().unwrap().len(), 1);
    assert!(out.join("tab.hulls.obj").is_file());
    assert!(!out.join("empty.hulls.obj").exists());
    assert!(String::from_utf8_lossy(&run.stdout).contains("2 of 5 files baked"));

    // A missing file, and a bad option value, are errors too.
    let run = hacd(&[dir.join("missing.obj").to_str().unwrap(), "-o", out.to_str().unwrap(), "-q"]);
    assert_eq!(run.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&run.stderr).contains("missing.obj"));
    let run = hacd(&[dir.join("tetra.obj").to_str().unwrap(), "--concavity", "-1", "-q"]);
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("invalid option"));
    let run = hacd(&[]);
    assert_eq!(run.status.code(), Some(2));
}

#[test]
fn max_hulls_caps_the_count() {
    let out = scratch("cap");
    let cup = testdata().join("concave/cup.obj");
    let run = hacd(&[cup.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q", "--max-hulls", "3", "--format", "json"]);
    assert!(run.status.success());
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("cup.hulls.json")).unwrap()).unwrap();
    let n = json["hulls"].as_array().unwrap().len();
    assert!((1..=3).contains(&n), "{n} hulls");
    assert!(!out.join("cup.hulls.obj").exists());
}

#[test]
fn two_inputs_writing_the_same_files_are_both_refused() {
    let dir = scratch("clash");
    let tetra = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 2 3 4\nf 1 4 3\n";
    std::fs::write(dir.join("part.obj"), tetra).unwrap();
    std::fs::copy(testdata().join("cad/angle-block.stl"), dir.join("part.stl")).unwrap();
    std::fs::write(dir.join("other.obj"), tetra).unwrap();
    let out = dir.join("out");
    let run = hacd(&[dir.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1));
    assert_eq!(stderr.matches("another input writes the same").count(), 2, "{stderr}");
    assert!(out.join("other.hulls.obj").is_file() && !out.join("part.hulls.obj").exists());
}
