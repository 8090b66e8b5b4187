//! The demo's flags, parsed and checked before any work: the demo checks them before it generates
//! anything, and `cargo xtask demo` (which includes this file) before it builds the demo, so a bad
//! flag fails in a second with a message naming the flag. Standard library only, for xtask.

// Each of the two crates that include this file uses a part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The flags, as `--help` lists them.
pub(crate) const HELP: &str = "options:
  --size X,Y,Z     world size in voxels (default 256,96,256); each side from 32, x and z up to
                   4096, y up to 1024, and at most 2^30 voxels in all (e.g. 2048,256,2048)
  --seed N         terrain seed, a whole number (default 7)
  --cache-mib N    narrowphase cache bound in MiB, 1 to 65536 (default 8: small enough to see
                   evictions)
  --mesh FILE      an .obj or .stl mesh for convex-hacd (default
                   testdata/meshes/classic/bunny-lowpoly.obj)
  --out DIR        where the pictures, index.html and report.md go (default target/demo)
  --image N        side of the big pictures in pixels, 64 to 4096 (default 1024: about a
                   million rays; 384 with --quick)
  --quick          fewer objects, rays and particles
  -h, --help       this text";

/// The most voxels a demo world may hold: about 45 s of generation and 1 GiB of voxels on the
/// machine the README's figures come from. It also keeps the collider's broadphase (at most 2^22
/// chunks of 8^3 over the world grown by one voxel) in range for every allowed shape.
pub(crate) const MAX_VOXELS: u64 = 1 << 30;

/// The checked flags. `mesh` and `out` are `None` when not given (each program has its default).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct DemoArgs {
    pub(crate) size: [i32; 3],
    pub(crate) seed: u64,
    pub(crate) cache_mib: usize,
    pub(crate) mesh: Option<PathBuf>,
    pub(crate) out: Option<PathBuf>,
    pub(crate) image: Option<u32>,
    pub(crate) quick: bool,
    pub(crate) help: bool,
}

impl Default for DemoArgs {
    fn default() -> Self {
        Self {
            size: [256, 96, 256],
            seed: 7,
            cache_mib: 8,
            mesh: None,
            out: None,
            image: None,
            quick: false,
            help: false,
        }
    }
}

impl DemoArgs {
    /// The cache bound in bytes (cannot overflow: `cache_mib` is at most 65536).
    pub(crate) fn cache_bytes(&self) -> usize {
        self.cache_mib << 20
    }

    /// The flags again, for the demo's command line, with `mesh` and `out` made absolute against
    /// `cwd` (xtask runs the demo from the workspace root, not from where the user typed them).
    pub(crate) fn to_args(&self, cwd: &Path) -> Vec<String> {
        let [x, y, z] = self.size;
        let mut args = vec![
            "--size".to_owned(),
            format!("{x},{y},{z}"),
            "--seed".to_owned(),
            self.seed.to_string(),
            "--cache-mib".to_owned(),
            self.cache_mib.to_string(),
        ];
        for (flag, path) in [("--mesh", &self.mesh), ("--out", &self.out)] {
            if let Some(p) = path {
                args.push(flag.to_owned());
                args.push(cwd.join(p).to_string_lossy().into_owned());
            }
        }
        if let Some(side) = self.image {
            args.push("--image".to_owned());
            args.push(side.to_string());
        }
        if self.quick {
            args.push("--quick".to_owned());
        }
        args
    }
}

/// Parses and checks the demo's flags (without the program name). Files are checked too: the
/// mesh must be a readable `.obj` or `.stl` file, and `--out` must not name a file.
pub(crate) fn parse(args: &[String]) -> Result<DemoArgs, String> {
    let mut out = DemoArgs::default();
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let flag = flag.as_str();
        if matches!(flag, "--quick" | "-h" | "--help") {
            out.quick |= flag == "--quick";
            out.help |= flag != "--quick";
            continue;
        }
        let what = match flag {
            "--size" => "X,Y,Z",
            "--seed" => "a whole number",
            "--cache-mib" => "a number of MiB",
            "--mesh" => "a mesh file",
            "--out" => "a folder",
            "--image" => "a number of pixels",
            other => return Err(format!("unknown flag {other} (--help lists the flags)")),
        };
        let value = it.next().ok_or_else(|| format!("{flag} needs a value ({what})"))?;
        match flag {
            "--size" => out.size = parse_size(value)?,
            "--seed" => {
                out.seed = value
                    .parse()
                    .map_err(|_| format!("--seed wants a whole number from 0 to {}, got {value:?}", u64::MAX))?;
            }
            "--cache-mib" => out.cache_mib = parse_in_range(flag, value, 1, 65_536)?,
            "--image" => out.image = Some(parse_in_range(flag, value, 64, 4096)?),
            "--mesh" => out.mesh = Some(check_mesh(value)?),
            _ => out.out = Some(check_out(value)?),
        }
    }
    Ok(out)
}

fn parse_size(value: &str) -> Result<[i32; 3], String> {
    let parts: Vec<&str> = value.split([',', 'x']).collect();
    let [x, y, z] = parts[..] else { return Err(format!("--size wants three sides X,Y,Z, got {value:?}")) };
    let mut size = [0i32; 3];
    for ((side, text), (axis, max)) in size.iter_mut().zip([x, y, z]).zip([("x", 4096), ("y", 1024), ("z", 4096)]) {
        *side = parse_in_range(&format!("--size ({axis})"), text.trim(), 32, max)?;
    }
    let voxels = size.iter().map(|&s| s as u64).product::<u64>();
    if voxels > MAX_VOXELS {
        return Err(format!(
            "--size {value} is {voxels} voxels; the demo takes at most 2^30 = {MAX_VOXELS} (e.g. 2048,256,2048)"
        ));
    }
    Ok(size)
}

fn parse_in_range<T: std::str::FromStr + PartialOrd + std::fmt::Display + Copy>(
    flag: &str,
    value: &str,
    min: T,
    max: T,
) -> Result<T, String> {
    match value.parse::<T>() {
        Ok(v) if v >= min && v <= max => Ok(v),
        _ => Err(format!("{flag} wants a whole number from {min} to {max}, got {value:?}")),
    }
}

fn check_mesh(value: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(value);
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or_default().to_ascii_lowercase();
    if ext != "obj" && ext != "stl" {
        return Err(format!("--mesh {value}: not an .obj or .stl file"));
    }
    match std::fs::metadata(&path) {
        Ok(m) if m.is_file() => Ok(path),
        Ok(_) => Err(format!("--mesh {value}: not a file")),
        Err(e) => Err(format!("--mesh {value}: {e}")),
    }
}

fn check_out(value: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(value);
    if value.is_empty() {
        return Err("--out needs a folder, got \"\"".to_owned());
    }
    match std::fs::metadata(&path) {
        Ok(m) if !m.is_dir() => Err(format!("--out {value}: a file is there, not a folder")),
        _ => Ok(path),
    }
}
