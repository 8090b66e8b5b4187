//! `hacd`: bakes OBJ and STL meshes into convex hull files with `convex-hacd`, for asset
//! pipelines. Files and whole folders go in; per mesh, `NAME.hulls.obj` (one object per hull)
//! and `NAME.hulls.json` (hull vertices and faces) come out, in parallel across files (rayon),
//! with a progress bar, the same bytes whatever the thread count. A bad file gets a message and
//! makes the exit code non-zero; the others are still written.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use clap::{Arg, ArgAction, ArgMatches, Command, value_parser};
use convex_hacd::{DecomposeOptions, Decomposition, decompose};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use voxel_core::TriangleSource;

mod load;
mod parse;
mod write;

/// What one input file became.
struct Baked {
    hulls: usize,
    vertices: usize,
    triangles: usize,
    skipped: usize,
    seconds: f64,
}

fn command() -> Command {
    let number = |name: &'static str, help: String| {
        Arg::new(name)
            .long(name)
            .value_name("X")
            .value_parser(value_parser!(f32))
            .allow_negative_numbers(true)
            .help(help)
    };
    let defaults = DecomposeOptions::default();
    // The defaults shown in --help are DecomposeOptions::default()'s, so they cannot drift.
    let help = |text: &str, value: f32| -> String { format!("{text} [default: {value}]") };
    Command::new("hacd")
        .version(env!("CARGO_PKG_VERSION"))
        .about("Decompose OBJ/STL meshes (files or folders) into convex hulls: NAME.hulls.obj and NAME.hulls.json")
        .arg(
            Arg::new("inputs")
                .value_name("INPUT")
                .num_args(1..)
                .required(true)
                .value_parser(value_parser!(PathBuf))
                .help("mesh files (.obj, .stl) or folders, searched recursively"),
        )
        .arg(
            Arg::new("out")
                .short('o')
                .long("out")
                .value_name("DIR")
                .default_value("hulls")
                .value_parser(value_parser!(PathBuf))
                .help("output folder; a folder's meshes keep their sub-folders under it"),
        )
        .arg(
            Arg::new("format")
                .long("format")
                .value_parser(["obj", "json", "both"])
                .default_value("both")
                .help("which hull files to write"),
        )
        .arg(
            Arg::new("jobs")
                .short('j')
                .long("jobs")
                .value_name("N")
                .value_parser(value_parser!(usize))
                .help("threads (default: all cores); the output is the same for any count"),
        )
        .arg(Arg::new("quiet").short('q').long("quiet").action(ArgAction::SetTrue).help("no progress bar, no summary"))
        .arg(number("cube", help("side of the cube the mesh is scaled into first", defaults.cube)))
        .arg(number("quantization", help("welding and flatness distance s, in the cube", defaults.quantization)))
        .arg(number("concavity", help("largest concavity error of a collapse, in the cube", defaults.concavity)))
        .arg(number("sample-spacing", help("spacing of the surface samples, in the cube", defaults.sample_spacing)))
        .arg(number(
            "merge-distance",
            help(
                "second phase: merge hulls whose new surface stays this close to the input (0: off)",
                defaults.merge_distance,
            ),
        ))
        .arg(
            Arg::new("merge-through-inside")
                .long("merge-through-inside")
                .action(ArgAction::SetTrue)
                .overrides_with("merge-over-surface")
                .help("new surface inside the input does not count in the second phase (the default)"),
        )
        .arg(
            Arg::new("merge-over-surface")
                .long("merge-over-surface")
                .action(ArgAction::SetTrue)
                .overrides_with("merge-through-inside")
                .help("merge_through_inside off: all new surface counts (more hulls, less time)"),
        )
        .arg(number(
            "max-protrusion",
            help(
                "split hulls sticking out farther than this fraction of their diagonal (0: off)",
                defaults.max_protrusion,
            ),
        ))
        .arg(
            Arg::new("max-hulls")
                .long("max-hulls")
                .value_name("N")
                .value_parser(value_parser!(usize))
                .help("keep merging, cheapest first, until at most N hulls per mesh"),
        )
        .arg(
            Arg::new("max-vertices-per-hull")
                .long("max-vertices-per-hull")
                .value_name("N")
                .value_parser(value_parser!(usize))
                .help("simplify each hull to at most N vertices (at least 4)"),
        )
}

fn options(m: &ArgMatches) -> DecomposeOptions {
    let mut o = DecomposeOptions::default();
    let f = |name: &str, slot: &mut f32| {
        if let Some(&v) = m.get_one::<f32>(name) {
            *slot = v;
        }
    };
    f("cube", &mut o.cube);
    f("quantization", &mut o.quantization);
    f("concavity", &mut o.concavity);
    f("sample-spacing", &mut o.sample_spacing);
    f("merge-distance", &mut o.merge_distance);
    f("max-protrusion", &mut o.max_protrusion);
    if m.get_flag("merge-over-surface") {
        o.merge_through_inside = false;
    }
    if m.get_flag("merge-through-inside") {
        o.merge_through_inside = true;
    }
    o.max_hulls = m.get_one::<usize>("max-hulls").copied();
    o.max_vertices_per_hull = m.get_one::<usize>("max-vertices-per-hull").copied();
    o
}

/// Every mesh named by `inputs`, sorted, each with the folder its output goes to (relative to the
/// output folder): a file's own name; a folder's meshes keep their path below it.
fn mesh_files(inputs: &[PathBuf]) -> Result<Vec<(PathBuf, PathBuf)>, String> {
    let mut files = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let mut found = Vec::new();
            walk(input, &mut found).map_err(|e| format!("{}: {e}", input.display()))?;
            found.sort();
            if found.is_empty() {
                return Err(format!("{}: no .obj or .stl files in this folder", input.display()));
            }
            for path in found {
                let below = path.strip_prefix(input).unwrap_or(&path).parent().map(Path::to_path_buf);
                files.push((path, below.unwrap_or_default()));
            }
        } else {
            // A missing or unreadable file is reported with the others when it is loaded.
            files.push((input.clone(), PathBuf::new()));
        }
    }
    Ok(files)
}

/// The meshes below `dir`. Symbolic links to folders are not followed (a link to the folder
/// itself or a parent would repeat the walk, two of them without end); links to files are meshes
/// like any other file. `entry.file_type()` does not follow links, `Path::is_dir` would.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let kind = entry.file_type()?;
        if kind.is_dir() {
            walk(&path, out)?;
        } else if kind.is_symlink() && path.is_dir() {
            // Not followed (above).
        } else if path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
            e.eq_ignore_ascii_case("obj") && !path.to_string_lossy().ends_with(".hulls.obj")
                || e.eq_ignore_ascii_case("stl")
        }) {
            out.push(path);
        }
    }
    Ok(())
}

/// The output path of `input` without the extension: `out/below/STEM.hulls`.
fn output_stem(out: &Path, below: &Path, input: &Path) -> PathBuf {
    let stem = input.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    out.join(below).join(format!("{stem}.hulls"))
}

/// An error and its causes, `outer: cause: ...`: each error's `Display` leaves its cause to
/// [`source`](std::error::Error::source), so printing only `e.to_string()` would hide it.
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

fn bake(input: &Path, stem: &Path, options: &DecomposeOptions, obj: bool, json: bool) -> Result<Baked, String> {
    let mesh = load::load_mesh(input)?;
    if mesh.triangle_count() == 0 {
        return Err("no triangles (empty, or no faces this loader understands)".to_owned());
    }
    let start = Instant::now();
    let d: Decomposition = decompose(&mesh, options).map_err(|e| chain(&e))?;
    let seconds = start.elapsed().as_secs_f64();
    if d.hulls.is_empty() {
        return Err(format!(
            "no hulls: all {} triangles are degenerate ({}) or have non-finite corners ({})",
            mesh.triangle_count(),
            d.degenerate_triangles,
            d.non_finite_triangles
        ));
    }
    if let Some(dir) = stem.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let name = input.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let save = |ext: &str, text: String| {
        let path = stem.with_extension(ext);
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
    if obj {
        save("hulls.obj", write::obj(&name, &d))?;
    }
    if json {
        save("hulls.json", write::json(&name, &d))?;
    }
    Ok(Baked {
        hulls: d.hulls.len(),
        vertices: d.hulls.iter().map(|h| h.vertices.len()).sum(),
        triangles: mesh.triangle_count(),
        skipped: d.degenerate_triangles + d.non_finite_triangles,
        seconds,
    })
}

fn main() -> ExitCode {
    let matches = command().get_matches();
    let inputs: Vec<PathBuf> = matches.get_many::<PathBuf>("inputs").into_iter().flatten().cloned().collect();
    let out = matches.get_one::<PathBuf>("out").cloned().unwrap_or_else(|| PathBuf::from("hulls"));
    let format = matches.get_one::<String>("format").map_or("both", String::as_str);
    let (obj, json) = (format != "json", format != "obj");
    let quiet = matches.get_flag("quiet");
    let options = options(&matches);
    // Bad options are one message, not one per file.
    if let Err(e) = decompose(&voxel_core::IndexedMesh::default(), &options) {
        eprintln!("hacd: {}", chain(&e));
        return ExitCode::from(2);
    }
    let files = match mesh_files(&inputs) {
        Ok(files) => files,
        Err(e) => {
            eprintln!("hacd: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Two inputs that would write the same file (a.obj and a.stl side by side) are both refused.
    let stems: Vec<PathBuf> = files.iter().map(|(input, below)| output_stem(&out, below, input)).collect();
    let mut sorted: Vec<&PathBuf> = stems.iter().collect();
    sorted.sort();
    let clash = |s: &PathBuf| sorted.get(sorted.partition_point(|x| *x < s) + 1) == Some(&s);
    let pool = match rayon::ThreadPoolBuilder::new()
        .num_threads(matches.get_one::<usize>("jobs").copied().unwrap_or(0))
        .build()
    {
        Ok(pool) => pool,
        Err(e) => {
            eprintln!("hacd: cannot start the threads: {e}");
            return ExitCode::FAILURE;
        }
    };
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::with_draw_target(Some(files.len() as u64), ProgressDrawTarget::stderr())
    };
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {wide_msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    let failed = AtomicBool::new(false);
    // Larger files first, so the last file to finish is a small one; the results keep the input
    // order, and each file's bytes depend on that file alone.
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by_key(|&k| std::cmp::Reverse(std::fs::metadata(&files[k].0).map_or(0, |m| m.len())));
    let mut results: Vec<(usize, Result<Baked, String>)> = pool.install(|| {
        order
            .par_iter()
            .with_max_len(1)
            .map(|&k| {
                let (input, _) = &files[k];
                let result = if clash(&stems[k]) {
                    Err(format!("another input writes the same {}.* files", stems[k].display()))
                } else {
                    bake(input, &stems[k], &options, obj, json)
                };
                if let Err(e) = &result {
                    failed.store(true, Ordering::Relaxed);
                    bar.suspend(|| eprintln!("hacd: {}: {e}", input.display()));
                }
                bar.set_message(input.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
                bar.inc(1);
                (k, result)
            })
            .collect()
    });
    bar.finish_and_clear();
    results.sort_by_key(|r| r.0);
    if !quiet {
        for (k, result) in &results {
            if let Ok(b) = result {
                println!(
                    "{} -> {}.*: {} triangles ({} skipped) -> {} hulls, {} vertices, {:.2} s",
                    files[*k].0.display(),
                    stems[*k].display(),
                    b.triangles,
                    b.skipped,
                    b.hulls,
                    b.vertices,
                    b.seconds
                );
            }
        }
        let bad = results.iter().filter(|r| r.1.is_err()).count();
        println!("hacd: {} of {} files baked into {}, {bad} failed", results.len() - bad, results.len(), out.display());
    }
    if failed.load(Ordering::Relaxed) { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_is_printed_with_its_causes() {
        let inner = voxel_core::Error::IndexOutOfRange { triangle: 0, index: 7, vertex_count: 3 };
        let e = convex_hacd::DecomposeError::Mesh(inner.clone());
        assert_eq!(chain(&e), format!("unusable mesh: {inner}"));
        // A leaf error is its own text.
        assert_eq!(chain(&inner), inner.to_string());
    }

    #[test]
    fn the_command_is_well_formed() {
        command().debug_assert();
    }

    #[test]
    fn options_mirror_decompose_options() {
        let m = command()
            .try_get_matches_from([
                "hacd",
                "a.obj",
                "--concavity",
                "20",
                "--max-hulls",
                "8",
                "--merge-over-surface",
                "--max-vertices-per-hull",
                "32",
                "--merge-distance",
                "0",
            ])
            .unwrap();
        let o = options(&m);
        assert_eq!(
            o,
            DecomposeOptions {
                concavity: 20.0,
                max_hulls: Some(8),
                merge_through_inside: false,
                max_vertices_per_hull: Some(32),
                merge_distance: 0.0,
                ..DecomposeOptions::default()
            }
        );
        let none = command().try_get_matches_from(["hacd", "a.obj"]).unwrap();
        assert_eq!(options(&none), DecomposeOptions::default());
        // The last of the two merge flags wins; `--merge-through-inside` is the default.
        let both = command().try_get_matches_from(["hacd", "a.obj", "--merge-over-surface", "--merge-through-inside"]);
        assert!(options(&both.unwrap()).merge_through_inside);
        let off = command().try_get_matches_from(["hacd", "a.obj", "--merge-through-inside", "--merge-over-surface"]);
        assert!(!options(&off.unwrap()).merge_through_inside);
        assert!(command().try_get_matches_from(["hacd", "a.obj", "--concavity", "ten"]).is_err());
    }
}
