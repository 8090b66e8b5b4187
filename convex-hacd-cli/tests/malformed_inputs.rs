//! The `hacd` binary on a folder of malformed and hostile meshes mixed with good ones, against the
//! README's contract: each bad file gets one `hacd: PATH: why` line on stderr and writes nothing,
//! the good files are still baked, the exit code is 1; never a panic, abort or hang. Cases the
//! binary fails are kept `#[ignore = "defect: ..."]`.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A fresh folder under the system's temporary folder.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hacd-malformed-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `hacd args` with its output in files beside `dir`; `None` when it is still running after
/// `limit` (then it is killed): a hang guard for inputs that could loop, far above the
/// sub-second runs these small files take.
fn hacd(dir: &Path, args: &[&str], limit: Duration) -> Option<Run> {
    let (out_path, err_path) = (dir.with_extension("stdout"), dir.with_extension("stderr"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_hacd"))
        .args(args)
        .stdout(Stdio::from(File::create(&out_path).unwrap()))
        .stderr(Stdio::from(File::create(&err_path).unwrap()))
        .spawn()
        .expect("hacd runs");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if start.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let read = |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned();
    let run = Run { code: status.and_then(|s| s.code()), stdout: read(&out_path), stderr: read(&err_path) };
    std::fs::remove_file(out_path).unwrap();
    std::fs::remove_file(err_path).unwrap();
    status.map(|_| run)
}

const LIMIT: Duration = Duration::from_secs(120);

const TETRA: &str = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 2 3 4\nf 1 4 3\n";

/// The tetrahedron of `TETRA` with `zero` and `one` written for its coordinates 0 and 1.
fn tetra_obj(zero: &str, one: &str) -> Vec<u8> {
    let (v, f) = TETRA.split_at(TETRA.find('f').unwrap());
    (v.replace('0', "Z").replace('1', one).replace('Z', zero) + f).into_bytes()
}

/// The tetrahedron's four faces as corner triples.
fn tetra_triangles(scale: f32, offset: f32) -> Vec<[[f32; 3]; 3]> {
    let v = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
        .map(|p: [f32; 3]| p.map(|c| c * scale + offset));
    [[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2]].iter().map(|t| t.map(|i| v[i])).collect()
}

fn ascii_stl(after_solid: &str, triangles: &[[[f32; 3]; 3]], newline: &str) -> String {
    let mut s = format!("solid{after_solid}part{newline}");
    for t in triangles {
        s += &format!("facet normal 0 0 0{newline} outer loop{newline}");
        for c in t {
            s += &format!("  vertex {} {} {}{newline}", c[0], c[1], c[2]);
        }
        s += &format!(" endloop{newline}endfacet{newline}");
    }
    s + "endsolid part" + newline
}

fn binary_stl(header: &[u8], count: u32, triangles: &[[[f32; 3]; 3]]) -> Vec<u8> {
    let mut b = header.to_vec();
    b.resize(80, 0);
    b.extend_from_slice(&count.to_le_bytes());
    for t in triangles {
        b.extend_from_slice(&[0; 12]);
        for c in t.iter().flatten() {
            b.extend_from_slice(&c.to_le_bytes());
        }
        b.extend_from_slice(&[0, 0]);
    }
    b
}

/// Files by name (below the input folder) and content.
type Files = Vec<(&'static str, Vec<u8>)>;

/// The files of the test folder: good ones, bad ones, and hostile ones that may go either way.
fn files() -> (Files, Files, Files) {
    let tetra = tetra_triangles(1.0, 0.0);
    let good = vec![
        ("good-tetra.obj", TETRA.as_bytes().to_vec()),
        ("good-crlf.obj", TETRA.replace('\n', "\r\n").into_bytes()),
        ("good-tab.stl", ascii_stl("\t", &tetra, "\n").into_bytes()),
        ("good-crlf-ascii.stl", ascii_stl(" ", &tetra, "\r\n").into_bytes()),
        ("good-binary.stl", binary_stl(b"exported by a CAD tool", 4, &tetra)),
        ("sub/deep/good-nested.obj", TETRA.replace("v 0 0 1", "v 0 0 2").into_bytes()),
        // A tetrahedron among NaN triangles: the bad triangles are skipped, the hull is written.
        ("good-mixed.obj", format!("{TETRA}v nan 0 0\nv 0 nan 0\nv 0 0 inf\nf 5 6 7\n").into_bytes()),
    ];
    let garbage: Vec<u8> = (0u32..777).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    let bad = vec![
        ("bad-empty.obj", Vec::new()),
        ("bad-one-byte.stl", b"s".to_vec()),
        ("bad-83-bytes.stl", vec![0; 83]),
        ("bad-zero-facets.stl", binary_stl(b"exported", 0, &[])),
        ("bad-count-max.stl", binary_stl(b"exported", u32::MAX, &tetra)),
        ("bad-count-2-31.stl", binary_stl(b"exported", 1 << 31, &tetra)),
        ("bad-inf.stl", ascii_stl(" ", &tetra, "\n").replacen("vertex 0 0 0", "vertex inf 0 0", 1).into_bytes()),
        ("bad-no-endsolid.stl", ascii_stl(" ", &tetra, "\n").replace("endsolid part\n", "").into_bytes()),
        ("bad-garbage-stl.stl", garbage.clone()),
        ("bad-garbage.obj", garbage),
        ("bad-index.obj", format!("{TETRA}f 1 2 9\n").into_bytes()),
        ("bad-zero-index.obj", format!("{TETRA}f 0 1 2\n").into_bytes()),
        ("bad-huge-index.obj", format!("{TETRA}f 1 2 -9223372036854775808\n").into_bytes()),
        (
            "bad-not-utf8.obj",
            TETRA.replace("v 0 1 0", "v 0 # 0").bytes().map(|b| if b == b'#' { 0xFF } else { b }).collect(),
        ),
        ("bad-all-nan.obj", TETRA.replace(['0', '1'], "nan").replace("f nan", "f 1").into_bytes()),
        ("bad-flat.obj", b"v 0 0 0\nv 1 0 0\nv 2 0 0\nv 3 0 0\nf 1 2 3\nf 2 3 4\n".to_vec()),
        ("bad-lines-only.obj", b"v 0 0 0\nv 1 0 0\nl 1 2\n".to_vec()),
        ("bad-nul.obj", vec![0; 64]),
        ("bad-w-zero.obj", b"v 1 1 1 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n".to_vec()),
    ];
    let either = vec![
        ("either-huge.obj", tetra_obj("0", "3e38")),
        ("either-overflowing.obj", tetra_obj("-3.4e38", "3.4e38")),
        ("either-tiny.obj", tetra_obj("0", "1e-40")),
        ("either-far.stl", ascii_stl(" ", &tetra_triangles(1.0, 1e30), "\n").into_bytes()),
        ("either-dense.stl", ascii_stl(" ", &tetra_triangles(1e-30, 1.0), "\n").into_bytes()),
        ("either-nonfinite-binary.stl", binary_stl(b"exported", 4, &tetra_triangles(f32::INFINITY, 0.0))),
    ];
    (good, bad, either)
}

fn outputs(out: &Path, name: &str) -> [PathBuf; 2] {
    let stem = name.rsplit_once('.').unwrap().0;
    [out.join(format!("{stem}.hulls.obj")), out.join(format!("{stem}.hulls.json"))]
}

fn write_all(dir: &Path, files: &[(&str, Vec<u8>)]) {
    for (name, bytes) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
}

/// The stderr lines that name `name` (by its path below the input folder).
fn lines_for<'a>(stderr: &'a str, name: &str) -> Vec<&'a str> {
    let needle = format!("{}:", Path::new(name).display());
    stderr.lines().filter(|l| l.contains(&needle)).collect()
}

#[test]
fn a_folder_of_bad_files_gets_one_line_each_and_the_good_ones_are_baked() {
    let dir = scratch("mixed");
    let input = dir.join("in");
    let out = dir.join("out");
    let (good, bad, either) = files();
    for set in [&good, &bad, &either] {
        write_all(&input, set);
    }
    let run = hacd(&dir, &[input.to_str().unwrap(), "-o", out.to_str().unwrap(), "-j", "2"], LIMIT).expect("hacd hung");
    let stderr = &run.stderr;
    assert_eq!(run.code, Some(1), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for (name, _) in &bad {
        let lines = lines_for(stderr, name);
        assert_eq!(lines.len(), 1, "{name}: {lines:?}\n{stderr}");
        assert!(lines[0].starts_with("hacd: "), "{}", lines[0]);
        assert!(outputs(&out, name).iter().all(|p| !p.exists()), "{name} wrote files");
    }
    for (name, _) in &good {
        assert!(lines_for(stderr, name).is_empty(), "{name}: {stderr}");
        let [obj, json] = outputs(&out, name);
        assert!(obj.is_file(), "{name}: no {}", obj.display());
        let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
        assert_eq!(json["hulls"].as_array().unwrap().len(), 1, "{name}");
    }
    // The hostile-but-readable files: baked (both files, finite vertices) or one line, no files.
    let mut baked = good.len();
    for (name, _) in &either {
        let lines = lines_for(stderr, name);
        let [obj, json] = outputs(&out, name);
        if lines.is_empty() {
            let text = std::fs::read_to_string(&obj).unwrap_or_else(|_| panic!("{name}: neither baked nor reported"));
            assert!(json.is_file(), "{name}");
            for line in text.lines().filter(|l| l.starts_with("v ")) {
                assert!(line[2..].split(' ').all(|w| w.parse::<f32>().is_ok_and(f32::is_finite)), "{name}: {line}");
            }
            baked += 1;
        } else {
            assert_eq!(lines.len(), 1, "{name}: {lines:?}");
            assert!(!obj.exists() && !json.exists(), "{name} reported and written");
        }
    }
    let total = good.len() + bad.len() + either.len();
    // Every line on stderr is one of the per-file lines: nothing else (no panic text, no dumps).
    assert_eq!(stderr.lines().count(), total - baked, "{stderr}");
    assert!(run.stdout.contains(&format!("{baked} of {total} files baked")), "{}", run.stdout);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Each bad file alone: exit code 1, one line, nothing written (the output folder may be
/// created, but holds no file).
#[test]
fn each_bad_file_alone_exits_1() {
    let dir = scratch("alone");
    let (_, bad, _) = files();
    write_all(&dir.join("in"), &bad);
    for (name, _) in &bad {
        let out = dir.join("out");
        let path = dir.join("in").join(name);
        let run = hacd(&dir, &[path.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q"], LIMIT).expect("hacd hung");
        assert_eq!(run.code, Some(1), "{name}: {}", run.stderr);
        assert_eq!(run.stderr.lines().count(), 1, "{name}: {}", run.stderr);
        assert!(run.stderr.starts_with(&format!("hacd: {}: ", path.display())), "{name}: {}", run.stderr);
        assert!(outputs(&out, name).iter().all(|p| !p.exists()), "{name}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A binary STL one byte short: its size does not match its count and it is not ASCII STL, so it
/// is one line naming the sizes. (The loader used to take it for ASCII, convert it with
/// `from_utf8_lossy` and hand the mangled bytes to stl_io, which read them as binary: a hull of
/// made-up coordinates was written and the run succeeded.)
#[test]
fn a_truncated_binary_stl_is_one_line() {
    let dir = scratch("truncated");
    let input = dir.join("in");
    let mut truncated = binary_stl(b"exported", 4, &tetra_triangles(1.0, 0.0));
    truncated.pop();
    write_all(&input, &[("good.obj", TETRA.as_bytes().to_vec()), ("truncated.stl", truncated)]);
    let out = dir.join("out");
    let run = hacd(&dir, &[input.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q"], LIMIT).expect("hacd hung");
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let lines = lines_for(&run.stderr, "truncated.stl");
    assert_eq!(lines.len(), 1, "{}", run.stderr);
    assert!(lines[0].contains("binary STL of 4 triangles should be 284 bytes, is 283"), "{}", lines[0]);
    assert!(!out.join("truncated.hulls.obj").exists());
    assert!(out.join("good.hulls.obj").is_file());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An OBJ whose face names texture coordinate -3 with one `vt` line: one line. (tobj computes
/// `vt * 2 + 1` on `(1 - 3) as usize` and overflows: in debug builds the rayon worker panicked and
/// took the whole run down with exit code 101, no `hacd: PATH:` line and no summary. The loader
/// now checks texture and normal indices itself and hands tobj the position indices only.)
#[test]
fn an_overflowing_texture_index_is_one_line() {
    let dir = scratch("overflow");
    let input = dir.join("in");
    write_all(
        &input,
        &[
            ("good.obj", TETRA.as_bytes().to_vec()),
            ("texture.obj", format!("vt 0 0\n{TETRA}f 1/-3 2/1 3/1\n").into_bytes()),
        ],
    );
    let out = dir.join("out");
    let run = hacd(&dir, &[input.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q"], LIMIT).expect("hacd hung");
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    assert_eq!(run.code, Some(1));
    assert_eq!(lines_for(&run.stderr, "texture.obj").len(), 1);
    assert!(out.join("good.hulls.obj").is_file());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A valid binary STL whose 80-byte header starts with `solid ` and whose bytes up to the first
/// newline are valid UTF-8 (coordinates 0, 0.5, 2, 8...) is baked. (The loader picked binary by
/// size, then `stl_io::read_stl` picked ASCII by the first line and refused it; the loader now
/// reads binary facets itself.)
#[test]
fn a_binary_stl_with_a_solid_header_is_baked() {
    let dir = scratch("solid-header");
    let input = dir.join("in");
    let tetra = tetra_triangles(2.0, 0.0);
    write_all(&input, &[("part.stl", binary_stl(b"solid part exported by a CAD tool", 4, &tetra))]);
    let out = dir.join("out");
    let run = hacd(&dir, &[input.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q"], LIMIT).expect("hacd hung");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(out.join("part.hulls.obj").is_file());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A folder holding a symbolic link to itself: a walk that follows it (`Path::is_dir` follows
/// links) goes on to the kernel's 40-link limit, so every mesh was baked 41 times into
/// `out/loop/loop/.../`. Links to folders are not followed: each file once.
#[cfg(unix)]
#[test]
fn a_folder_linking_to_itself_bakes_each_mesh_once() {
    let dir = scratch("self-link");
    let input = dir.join("in");
    write_all(&input, &[("part.obj", TETRA.as_bytes().to_vec())]);
    std::os::unix::fs::symlink(".", input.join("loop")).unwrap();
    let out = dir.join("out");
    let run = hacd(&dir, &[input.to_str().unwrap(), "-o", out.to_str().unwrap()], LIMIT).expect("hacd hung");
    let summary = run.stdout.lines().last().unwrap_or_default();
    assert!(summary.contains("1 of 1 files baked"), "{summary}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Two symbolic links to the folder itself: a walk that follows both at every level has 2^40
/// paths before the kernel's link limit stops it, and `hacd DIR` never finished.
#[cfg(unix)]
#[test]
fn a_folder_with_two_links_to_itself_does_not_hang() {
    let dir = scratch("two-links");
    let input = dir.join("in");
    write_all(&input, &[("part.obj", TETRA.as_bytes().to_vec())]);
    std::os::unix::fs::symlink(".", input.join("a")).unwrap();
    std::os::unix::fs::symlink(".", input.join("b")).unwrap();
    let out = dir.join("out");
    let run = hacd(&dir, &[input.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q"], Duration::from_secs(60));
    assert!(run.is_some(), "hacd still walking the folder after 60 s");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The README's rule for links below an input folder: a link to a file is baked like the file
/// (under the link's name), a link to a folder is not followed; a broken link is one bad file.
#[cfg(unix)]
#[test]
fn links_to_files_are_baked_links_to_folders_are_not() {
    let dir = scratch("links");
    let input = dir.join("in");
    write_all(&input, &[("part.obj", TETRA.as_bytes().to_vec())]);
    write_all(&dir.join("elsewhere"), &[("other.obj", TETRA.as_bytes().to_vec())]);
    std::os::unix::fs::symlink(dir.join("elsewhere/other.obj"), input.join("linked.obj")).unwrap();
    std::os::unix::fs::symlink(dir.join("elsewhere"), input.join("linked-folder")).unwrap();
    let out = dir.join("out");
    let run = hacd(&dir, &[input.to_str().unwrap(), "-o", out.to_str().unwrap()], LIMIT).expect("hacd hung");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.contains("2 of 2 files baked"), "{}", run.stdout);
    assert!(out.join("part.hulls.obj").is_file() && out.join("linked.hulls.obj").is_file());
    assert!(!out.join("linked-folder").exists());
    // A link to a missing file: one line, the other files still baked.
    std::os::unix::fs::symlink(dir.join("missing.obj"), input.join("broken.obj")).unwrap();
    let run = hacd(&dir, &[input.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q"], LIMIT).expect("hacd hung");
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert_eq!(lines_for(&run.stderr, "broken.obj").len(), 1, "{}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    std::fs::remove_dir_all(&dir).unwrap();
}
