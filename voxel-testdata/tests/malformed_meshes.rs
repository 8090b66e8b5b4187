//! Hostile and malformed files through `load_mesh` (OBJ through tobj, STL through stl_io) and
//! `load_points` (JSON): every input starts as a small valid file written here and is broken by
//! byte flips, truncation, CRLF and tabs, non-UTF-8 bytes, out-of-range and overflowing indices,
//! NaN and infinite coordinates, and binary STL counts that lie. The contract: a `LoadError` or
//! a mesh whose triangles index its vertices, never a panic, abort, hang or huge allocation. A
//! case the loader fails is kept `#[ignore = "defect: ..."]`.
//!
//! `PROPTEST_CASES` raises the random case counts (the defaults keep the file to a few seconds).

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use voxel_core::{IndexedMesh, TriangleSource, validate_triangles};
use voxel_testdata::{LoadError, load_mesh, load_points};

fn config(default: u32) -> ProptestConfig {
    let mut config = ProptestConfig::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = default;
    }
    config
}

/// A fresh file name in this test run's temporary folder.
fn temp_path(ext: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!("voxel-testdata-malformed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!("{}.{ext}", NEXT.fetch_add(1, Ordering::Relaxed)))
}

/// `bytes` written to a file with extension `ext`, loaded, the file removed.
fn load(ext: &str, bytes: &[u8]) -> Result<IndexedMesh, LoadError> {
    let path = temp_path(ext);
    std::fs::write(&path, bytes).unwrap();
    let result = load_mesh(&path);
    std::fs::remove_file(&path).unwrap();
    result
}

fn points(bytes: &[u8]) -> Result<Vec<voxel_core::glam::Vec3>, LoadError> {
    let path = temp_path("json");
    std::fs::write(&path, bytes).unwrap();
    let result = load_points(&path);
    std::fs::remove_file(&path).unwrap();
    result
}

/// The contract for a hostile file of `len` bytes: an error that names the file, or a mesh whose
/// triangles all index its vertices and that is not larger than the file could describe.
fn check(result: Result<IndexedMesh, LoadError>, len: usize) -> Result<(), TestCaseError> {
    match result {
        Err(e) => {
            prop_assert!(!e.message.is_empty());
            prop_assert!(e.to_string().contains(&*e.path.to_string_lossy()));
        }
        Ok(mesh) => {
            prop_assert!(validate_triangles(&mesh).is_ok());
            // An OBJ face line of k indices gives k - 2 triangles; an STL facet is 50 bytes or more.
            prop_assert!(mesh.triangle_count() <= len, "{} triangles from {len} bytes", mesh.triangle_count());
            prop_assert!(mesh.vertex_count() <= 3 * mesh.triangle_count().max(len));
        }
    }
    Ok(())
}

/// Two objects; a triangle, a quad, a pentagon, negative (relative) indices, `v/vt/vn` forms,
/// a comment, a backslash continuation and a blank line.
const OBJ: &str = "# test\no first\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nvt 0 0\nvt 1 0\nvn 0 0 1\n\
f 1/1/1 2/2/1 3/1/1\nf 1//1 2//1 4//1 3//1\no second\nv 2 0 0\nv 3 0 0\nv 3 1 0\nv 2 1 0\nv 2.5 2 0\n\
f -5 -4 \\\n-3 -2 -1\n\nf -5/1 -4/2 -3/1\n";

/// Two facets; `{sep}` is what follows `solid`.
fn ascii_stl(sep: &str, newline: &str) -> String {
    let facet = |z: f32| {
        [
            "facet normal 0 0 1".to_owned(),
            " outer loop".to_owned(),
            format!("  vertex 0 0 {z}"),
            format!("  vertex 1 0 {z}"),
            format!("  vertex 0 1 {z}"),
            " endloop".to_owned(),
            "endfacet".to_owned(),
        ]
    };
    let mut lines = vec![format!("solid{sep}part")];
    lines.extend(facet(0.0));
    lines.extend(facet(1.0));
    lines.push("endsolid part".to_owned());
    lines.join(newline) + newline
}

/// A binary STL of `triangles`, its header starting with `solid` (as some exporters write).
fn binary_stl(triangles: &[[[f32; 3]; 3]]) -> Vec<u8> {
    binary_stl_with_header(b"solid binary header", triangles)
}

fn binary_stl_with_header(header: &[u8], triangles: &[[[f32; 3]; 3]]) -> Vec<u8> {
    let mut b = header.to_vec();
    b.resize(80, b' ');
    b.extend_from_slice(&(triangles.len() as u32).to_le_bytes());
    for t in triangles {
        b.extend_from_slice(&[0u8; 12]);
        for c in t.iter().flatten() {
            b.extend_from_slice(&c.to_le_bytes());
        }
        b.extend_from_slice(&[0, 0]);
    }
    b
}

const TWO: [[[f32; 3]; 3]; 2] =
    [[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]];

#[test]
fn the_valid_files_load_as_written() {
    // Object 1: a triangle and a quad (2 triangles); object 2: a pentagon (3) and a triangle.
    let obj = load("obj", OBJ.as_bytes()).unwrap();
    assert_eq!(obj.triangle_count(), 7);
    // CRLF line ends read the same.
    let crlf = load("obj", OBJ.replace('\n', "\r\n").as_bytes()).unwrap();
    assert_eq!(crlf, obj);
    let stl = load("stl", ascii_stl(" ", "\n").as_bytes()).unwrap();
    assert_eq!((stl.triangle_count(), stl.vertex_count()), (2, 6));
    // A tab, several spaces or nothing after `solid`, and CRLF: the same mesh.
    for (sep, newline) in [("\t", "\n"), ("   ", "\n"), (" ", "\r\n"), ("\t", "\r\n")] {
        assert_eq!(load("stl", ascii_stl(sep, newline).as_bytes()).unwrap(), stl, "{sep:?} {newline:?}");
    }
    let no_name = ascii_stl(" ", "\n").replace("solid part", "solid");
    assert_eq!(load("STL", no_name.as_bytes()).unwrap(), stl);
    // Binary, its header starting with "solid": read as binary by its size.
    let bin = load("stl", &binary_stl(&TWO)).unwrap();
    assert_eq!((bin.triangle_count(), bin.vertex_count()), (2, 4));
}

/// Truncation at every length of each valid file: an error or a smaller mesh, never a panic.
#[test]
fn every_truncation_is_handled() {
    let files: [(&str, Vec<u8>); 3] =
        [("obj", OBJ.as_bytes().to_vec()), ("stl", ascii_stl(" ", "\n").into_bytes()), ("stl", binary_stl(&TWO))];
    for (ext, bytes) in files {
        for len in 0..bytes.len() {
            check(load(ext, &bytes[..len]), len).unwrap_or_else(|e| panic!("{ext} cut to {len}: {e}"));
        }
    }
    assert!(load("obj", b"").unwrap().triangle_count() == 0, "an empty OBJ is an empty mesh");
}

/// Position indices out of range, zero, negative past the start, overflowing: each an error.
#[test]
fn bad_position_indices_are_errors() {
    let head = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
    for face in [
        "f 1 2 4",
        "f 0 1 2",
        "f 1 2 -4",
        "f 1 2 9223372036854775807",
        "f 1 2 -9223372036854775808",
        "f 1 2 99999999999999999999",
        "f 1 2 x",
        "f 1/2/3/4 2 3",
        "f 1 2 3 4",
    ] {
        let result = load("obj", format!("{head}{face}\n").as_bytes());
        assert!(result.is_err(), "{face}: {result:?}");
    }
    // An empty texture slot after a slash is tobj's lenient reading of `v/`.
    assert_eq!(load("obj", format!("{head}f 1 2 3/\n").as_bytes()).unwrap().triangle_count(), 1);
    // Points and lines are read as degenerate triangles (tobj's triangulation), not errors.
    for face in ["f 1", "f 1 2", "l 1 2"] {
        let mesh = load("obj", format!("{head}{face}\n").as_bytes()).unwrap();
        assert_eq!(mesh.triangle_count(), 1, "{face}");
    }
}

/// Texture and normal indices: the loader uses neither, but tobj checks them. tobj turns a
/// relative index reaching two or more before the first `vt`/`vn` into a huge `usize`
/// (`(count + i) as usize`), and a `vn` index above 2^64 / 3 stays huge: its bounds check
/// `vt * 2 + 1` / `vn * 3 + 2` then overflows, a panic ("attempt to multiply with overflow")
/// wherever overflow checks are on, which is every debug and test build (the workspace's profiles
/// keep them for dependencies too). The loader checks them itself and hands tobj the position
/// indices only; `l` lines take the same `v/vt` elements.
#[test]
fn overflowing_texture_and_normal_indices_are_errors() {
    let head = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\n";
    for face in [
        "f 1/-3 2/1 3/1",
        "f 1//-3 2//1 3//1",
        "f 1//7000000000000000000 2//1 3//1",
        "f 1/-9223372036854775808 2/1 3/1",
        "l 1/-3 2/1",
        "l 1/7000000000000000000 2/1",
    ] {
        let result = std::panic::catch_unwind(|| load("obj", format!("{head}{face}\n").as_bytes()));
        assert!(matches!(result, Ok(Err(_))), "{face}: {result:?}");
    }
}

/// Texture and normal indices that do not overflow. In range (from the top, or relative from the
/// face back): the triangle loads. Past the last line, zero, relative before the first line, or
/// naming a `vt`/`vn` the file does not have: an error, as for position indices (tobj read zero and
/// one before the first as "no index", and ignored indices of a kind the file has none of).
#[test]
fn texture_and_normal_indices_that_do_not_overflow() {
    let head = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\n";
    for face in ["f 1/1/1 2/1/1 3/1/1", "f 1/-1 2/1 3/1", "f 1//-1 2//1 3//1", "f 1/+1/ 2/1/ 3//", "l 1/1 2/-1"] {
        assert_eq!(load("obj", format!("{head}{face}\n").as_bytes()).unwrap().triangle_count(), 1, "{face}");
    }
    // A forward reference from the top (a `vt` below the face) is in range, as tobj read it.
    let later = load("obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/2 2/1 3/1\nvt 0 0\nvt 1 1\n");
    assert_eq!(later.unwrap().triangle_count(), 1);
    for face in [
        "f 1/2 2/1 3/1",
        "f 1//2 2//1 3//1",
        "f 1/1000000 2/1 3/1",
        "f 1/0 2/1 3/1",
        "f 1/-2 2/1 3/1",
        "f 1//0 2//1 3//1",
        "f 1//-2 2//1 3//1",
        "f 1/x 2/1 3/1",
        "f 1/1/1/1 2 3",
        "f /1 2/1 3/1",
    ] {
        let result = load("obj", format!("{head}{face}\n").as_bytes());
        assert!(result.is_err(), "{face}: {result:?}");
    }
    // A texture or normal index in a file without `vt` or `vn` lines names nothing.
    assert!(load("obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/1 2/1 3/1\n").is_err());
    assert!(load("obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1//1 2//1 3//1\n").is_err());
}

/// Non-finite and extreme coordinates. ASCII STL refuses non-finite values (stl_io checks);
/// binary STL and OBJ pass them through (a documented lenient result of `IndexedMesh`, which
/// holds any `f32`): consumers see NaN and infinity, never a panic here.
#[test]
fn non_finite_coordinates() {
    for v in ["nan", "inf", "-inf", "1e39", "3.4e38", "-0"] {
        let obj = format!("v {v} 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
        check(load("obj", obj.as_bytes()), 100).unwrap();
        let stl = ascii_stl(" ", "\n").replacen("vertex 0 0 0", &format!("vertex {v} 0 0"), 1);
        let result = load("stl", stl.as_bytes());
        if v.contains("inf") || v == "nan" || v == "1e39" {
            assert!(result.is_err(), "ASCII STL vertex {v}: {result:?}");
        } else {
            assert_eq!(result.unwrap().triangle_count(), 2);
        }
    }
    // `v x y z w` divides by w: w = 0 is refused by tobj, a tiny w gives infinities.
    assert!(load("obj", b"v 1 1 1 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n").is_err());
    check(load("obj", b"v 1 1 1 1e-45\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"), 100).unwrap();
    let bad = [[[f32::NAN, 0.0, 0.0], [f32::INFINITY, 0.0, 0.0], [0.0, f32::NEG_INFINITY, 0.0]]; 3];
    let mesh = load("stl", &binary_stl(&bad)).unwrap();
    assert_eq!(mesh.triangle_count(), 3);
    assert!(mesh.positions().iter().any(|p| !p.is_finite()));
}

/// Binary STL counts that lie: 0, one more or fewer than the records, 2^31, `u32::MAX`. The file
/// size decides binary or ASCII; whatever the count, nothing is allocated by it (a 2^32-record
/// claim over 184 bytes returns at once) and a mismatch is an error.
#[test]
fn lying_binary_stl_counts() {
    let good = binary_stl(&TWO);
    for (count, ok) in [(0u32, false), (1, false), (3, false), (1 << 31, false), (u32::MAX, false), (2, true)] {
        let mut b = good.clone();
        b[80..84].copy_from_slice(&count.to_le_bytes());
        let result = load("stl", &b);
        assert_eq!(result.is_ok(), ok, "count {count}: {result:?}");
    }
    // A header not starting with "solid": the same.
    let mut b = good.clone();
    b[..5].copy_from_slice(b"SOLID");
    b[80..84].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(load("stl", &b).is_err());
    // An 84-byte file claiming zero facets is an empty mesh; claiming 2^31 is an error.
    let mut empty = binary_stl_with_header(b"exported", &[]);
    assert_eq!(load("stl", &empty).unwrap().triangle_count(), 0);
    empty[80..84].copy_from_slice(&(1u32 << 31).to_le_bytes());
    assert!(load("stl", &empty).is_err());
}

/// The loader picks binary by the file's size, as its docs say, but then hands the bytes to
/// `stl_io::read_stl`, which decides again by the first line: a binary file whose header starts
/// with `solid ` and whose bytes up to the first `\n` are valid UTF-8 (coordinates such as 0,
/// 0.5, 2, 8: no byte >= 0x80) is read as ASCII and refused ("EOF while expecting facet or
/// endsolid", or "invalid facet header"). The same valid file with another header loads.
#[test]
fn a_binary_stl_with_a_solid_header_reads_as_binary() {
    let tri = [[[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 0.5, 8.0]]];
    assert_eq!(load("stl", &binary_stl_with_header(b"exported", &tri)).unwrap().triangle_count(), 1);
    for (header, tris) in [(&b"solid exported"[..], &tri[..]), (b"solid exported", &[])] {
        let result = load("stl", &binary_stl_with_header(header, tris));
        assert_eq!(result.map(|m| m.triangle_count()).ok(), Some(tris.len()), "{} facets", tris.len());
    }
}

/// A binary STL whose header does not start with `solid` and whose size does not match its
/// count (cut short, or the count one off): the loader takes it for ASCII, converts it with
/// `from_utf8_lossy` (each byte >= 0x80 becomes three bytes) and hands the mangled bytes to
/// stl_io, which reads them as binary: a mesh of made-up coordinates instead of an error.
/// One byte cut from the two-facet file gives two triangles with corners such as
/// (0, 0, -1.87) that the file never held.
#[test]
fn a_binary_stl_whose_size_does_not_match_its_count_is_an_error() {
    let tri =
        [[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]];
    let good = binary_stl_with_header(b"exported", &tri);
    assert_eq!(load("stl", &good).unwrap().triangle_count(), 2);
    let mut loaded = Vec::new();
    for cut in 1..=50 {
        if load("stl", &good[..good.len() - cut]).is_ok() {
            loaded.push(format!("cut {cut}"));
        }
    }
    for count in [1u32, 3] {
        let mut b = good.clone();
        b[80..84].copy_from_slice(&count.to_le_bytes());
        if load("stl", &b).is_ok() {
            loaded.push(format!("count {count}"));
        }
    }
    assert!(loaded.is_empty(), "loaded instead of refused: {loaded:?}");
    // The error names the size the count asks for and the size found.
    let message = load("stl", &good[..good.len() - 1]).unwrap_err().message;
    assert!(message.contains("binary STL of 2 triangles should be 184 bytes, is 183"), "{message}");
}

/// ASCII STL blocks: blank lines before and between `solid` blocks are skipped; other text
/// outside a block is an error (stl_io would read a block not starting with `solid ` as binary).
#[test]
fn text_between_ascii_stl_blocks() {
    let one = ascii_stl(" ", "\n");
    let two = load("stl", format!("\n\n{one}\n  \n{one}").as_bytes()).unwrap();
    assert_eq!((two.triangle_count(), two.vertex_count()), (4, 6));
    for bad in [format!("hello\n{one}"), format!("{one}hello\n{one}"), format!("{one}facet normal 0 0 1\n")] {
        assert!(load("stl", bad.as_bytes()).is_err(), "{bad}");
    }
}

/// Text that is not UTF-8, NUL bytes, a lone `solid`, `endsolid` without `solid`, a file
/// that is only a backslash, an unknown extension, a folder.
#[test]
fn odd_text() {
    for (ext, bytes) in [
        ("obj", b"v 0 0 0\xff\nv 1 0 0\nv 0 1 0\nf 1 2 3\n".to_vec()),
        ("obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\xc3\n".to_vec()),
        ("obj", b"\0\0\0\0".to_vec()),
        ("obj", b"\\".to_vec()),
        ("obj", b"f 1 2 3\n".to_vec()),
        ("obj", b"o\ng\nusemtl\nmtllib\n".to_vec()),
        ("stl", b"solid".to_vec()),
        ("stl", b"endsolid x\n".to_vec()),
        ("stl", b"solid a\nendsolid a\nsolid b\n".to_vec()),
        ("stl", b"solid \xff\xfe\nendsolid\n".to_vec()),
        ("stl", [b"solid x\n".as_slice(), &[0xC3; 200]].concat()),
        ("stl", vec![b'\n'; 300]),
    ] {
        check(load(ext, &bytes), bytes.len()).unwrap_or_else(|e| panic!("{ext} {bytes:?}: {e}"));
    }
    assert!(load("ply", b"ply\n").is_err());
    let dir = temp_path("obj");
    std::fs::create_dir_all(&dir).unwrap();
    assert!(load_mesh(&dir).is_err(), "a folder named .obj");
    std::fs::remove_dir(&dir).unwrap();
    assert!(load_mesh(&temp_path("stl")).is_err(), "a missing file");
}

#[test]
fn malformed_point_sets_are_errors() {
    assert_eq!(points(b"[[1, 2, 3], [4e0, -5.5, 6]]").unwrap().len(), 2);
    for bad in [
        &b""[..],
        b"{}",
        b"[[1, 2]]",
        b"[[1, 2, 3, 4]]",
        b"[[1, 2, \"3\"]]",
        b"[[1, 2, null]]",
        b"[[1, 2, 3]",
        b"[[1, 2, NaN]]",
        b"\xff",
    ] {
        assert!(points(bad).is_err(), "{}", String::from_utf8_lossy(bad));
    }
    // Nesting far beyond serde_json's recursion limit: an error, not a stack overflow.
    let deep = [vec![b'['; 100_000], vec![b']'; 100_000]].concat();
    assert!(points(&deep).is_err());
    // A number beyond f32 (and f64): an error or an infinity, never a panic.
    for big in ["[[1e39, 0, 0]]", "[[1e400, 0, 0]]", "[[-1e400, 0, 0]]"] {
        let _ = points(big.as_bytes());
    }
}

/// A mutation of a text or binary file: flip bits, set a byte to a character that matters to
/// the parsers, set a 4-byte field, delete or duplicate a span.
fn mutation() -> impl Strategy<Value = (prop::sample::Index, u8, u32)> {
    let values = prop_oneof![
        prop::sample::select(b"\r\n\t /-\\0123456789.eE+#fvsl\xff\x00".to_vec()).prop_map(u32::from),
        Just(u32::MAX),
        Just(1 << 31),
        any::<u32>()
    ];
    (any::<prop::sample::Index>(), 0u8..5, values)
}

fn apply(bytes: &mut Vec<u8>, (at, how, v): &(prop::sample::Index, u8, u32)) {
    if bytes.is_empty() {
        return;
    }
    let i = at.index(bytes.len());
    match how {
        0 => bytes[i] ^= (v | 1) as u8,
        1 => bytes[i] = *v as u8,
        2 if bytes.len() >= 4 => {
            let i = i.min(bytes.len() - 4);
            bytes[i..i + 4].copy_from_slice(&v.to_le_bytes());
        }
        3 => {
            let end = (i + (*v as usize % 16)).min(bytes.len());
            bytes.drain(i..end);
        }
        _ => {
            let end = (i + (*v as usize % 16)).min(bytes.len());
            let span = bytes[i..end].to_vec();
            bytes.splice(i..i, span);
        }
    }
}

/// An OBJ face index: valid, zero, relative, out of range, huge.
fn obj_index() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => (1i64..6).prop_map(|i| i.to_string()),
        2 => (-6i64..0).prop_map(|i| i.to_string()),
        1 => Just("0".to_owned()),
        1 => Just("9223372036854775807".to_owned()),
        1 => Just("-9223372036854775808".to_owned()),
        1 => any::<i64>().prop_map(|i| i.to_string()),
    ]
}

proptest! {
    #![proptest_config(config(48))]

    #[test]
    fn mutated_obj_files(mutations in prop::collection::vec(mutation(), 1..6), crlf in any::<bool>()) {
        let mut bytes = if crlf { OBJ.replace('\n', "\r\n") } else { OBJ.to_owned() }.into_bytes();
        for m in &mutations {
            apply(&mut bytes, m);
        }
        check(load("obj", &bytes), bytes.len())?;
    }

    #[test]
    fn mutated_ascii_stl_files(mutations in prop::collection::vec(mutation(), 1..6), tab in any::<bool>(), crlf in any::<bool>()) {
        let mut bytes = ascii_stl(if tab { "\t" } else { " " }, if crlf { "\r\n" } else { "\n" }).into_bytes();
        for m in &mutations {
            apply(&mut bytes, m);
        }
        check(load("stl", &bytes), bytes.len())?;
    }

    #[test]
    fn mutated_binary_stl_files(mutations in prop::collection::vec(mutation(), 1..6)) {
        let mut bytes = binary_stl(&TWO);
        for m in &mutations {
            apply(&mut bytes, m);
        }
        check(load("stl", &bytes), bytes.len())?;
    }

    /// OBJ files built from random vertices and faces with random position indices (zero,
    /// relative, out of range, `i64` extremes), random polygon sizes and `o` splits.
    #[test]
    fn random_obj_faces(vertices in 0usize..6, faces in prop::collection::vec((prop::collection::vec(obj_index(), 1..7), any::<bool>()), 0..6)) {
        let mut text = String::new();
        for k in 0..vertices {
            text.push_str(&format!("v {k} {} 0\n", k * k));
        }
        for (indices, new_object) in &faces {
            if *new_object {
                text.push_str("o part\n");
            }
            text.push_str(&format!("f {}\n", indices.join(" ")));
        }
        check(load("obj", text.as_bytes()), text.len())?;
    }

    /// Faces whose elements carry random texture and normal indices (`v/vt`, `v//vn`,
    /// `v/vt/vn`, each index valid, zero, relative, out of range or an `i64` extreme) over 0 to 2
    /// `vt` and `vn` lines: the contract holds, and an element naming a missing line is an error.
    #[test]
    fn random_texture_and_normal_indices(
        vt in 0usize..3,
        vn in 0usize..3,
        faces in prop::collection::vec(prop::collection::vec((obj_index(), obj_index(), 0u8..4), 1..5), 1..4),
    ) {
        let mut text = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 1 1 1\n".to_owned();
        text += &"vt 0.5 0.5\n".repeat(vt);
        text += &"vn 0 0 1\n".repeat(vn);
        let mut all_named = true;
        for face in &faces {
            text.push_str(if face.len() == 2 { "l" } else { "f" });
            for (k, (t, n, form)) in face.iter().enumerate() {
                let names = |i: &str, count: usize| i.parse::<i64>().is_ok_and(|i| i != 0 && i.unsigned_abs() <= count as u64);
                let element = match form {
                    0 => format!("{}", k + 1),
                    1 => { all_named &= names(t, vt); format!("{}/{t}", k + 1) }
                    2 => { all_named &= names(n, vn); format!("{}//{n}", k + 1) }
                    _ => { all_named &= names(t, vt) && names(n, vn); format!("{}/{t}/{n}", k + 1) }
                };
                text.push(' ');
                text.push_str(&element);
            }
            text.push('\n');
        }
        let result = load("obj", text.as_bytes());
        if !all_named {
            prop_assert!(result.is_err(), "{text}");
        }
        check(result, text.len())?;
    }

    #[test]
    fn mutated_point_sets(mutations in prop::collection::vec(mutation(), 1..6)) {
        let mut bytes = b"[[1, 2, 3], [4.5, -6e2, 0], [7, 8, 9]]".to_vec();
        for m in &mutations {
            apply(&mut bytes, m);
        }
        if let Ok(p) = points(&bytes) {
            prop_assert!(p.len() <= bytes.len());
        }
    }
}
