//! Project chores, run as `cargo xtask <command>` from anywhere in the repository.
//!
//! - `bench [--quick] [FILTER]`: the criterion benches of `voxel-bench`, then
//!   `target/bench-report.md` (median, throughput, ours/peer ratios, and the printed figures).
//! - `demo [--size X,Y,Z] [--seed N] [--cache-mib N] [--image N] [--mesh FILE] [--out DIR] [--quick] [--rapier]`:
//!   checks the flags (with the demo's own parser, `voxel-physics/examples/demo/args.rs`), builds
//!   the `voxel-physics` demo in release with cargo's progress shown, and runs every composed path
//!   over a generated world, printing a table per stage and writing the pictures, `index.html`
//!   and `report.md` to `target/demo/`. The demo is an example of `voxel-physics`, so this crate
//!   stays std-only.
//! - `ci`: exactly what CI runs (`.ci/run`).
//! - `test-data [--data DIR]`: the whole test suite over the full shared data set (default
//!   `../shared/data` beside the repository); fails loudly when the folder is missing.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Instant, SystemTime};

mod coacd;
// The demo's own flag parser, so xtask checks the flags exactly as the demo will.
#[path = "../../voxel-physics/examples/demo/args.rs"]
mod demo_args;

const USAGE: &str = "usage: cargo xtask <command>

commands:
  demo [--size X,Y,Z] [--seed N] [--cache-mib N] [--image N] [--mesh FILE] [--out DIR] [--quick] [--rapier]
                             the main job: the terrain physics demo, every stage timed,
                             pictures and index.html in target/demo/ (demo --help for the flags)
  bench [--quick] [FILTER]   run the criterion benches of voxel-bench and write target/bench-report.md
  ci                         run exactly what CI runs (.ci/run)
  coacd [--timeout S] [--threads N] [MESH...]
                             optional: CoACD (Python package) beside convex-hacd, same tightness metric
  test-data [--data DIR]     run the tests over the whole shared data set (default ../shared/data)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("bench") => bench(&args[1..]),
        Some("demo") => demo(&args[1..]),
        Some("ci") => run(Command::new("bash").arg(root().join(".ci/run")).current_dir(root())),
        Some("test-data") => test_data(&args[1..]),
        Some("coacd") => coacd::coacd(&args[1..]),
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            Ok(())
        }
        _ => Err(USAGE.to_owned()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root (this crate's parent folder).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives in the workspace").to_path_buf()
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root().join("target"), PathBuf::from)
}

fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.current_dir(root());
    cmd
}

fn run(cmd: &mut Command) -> Result<(), String> {
    let status = cmd.status().map_err(|e| format!("could not start {cmd:?}: {e}"))?;
    if status.success() { Ok(()) } else { Err(format!("{cmd:?} failed ({status})")) }
}

fn test_data(args: &[String]) -> Result<(), String> {
    let dir = match args {
        [] => root().join("../shared/data"),
        [flag, dir] if flag == "--data" => PathBuf::from(dir),
        _ => return Err(USAGE.to_owned()),
    };
    let dir = dir.canonicalize().map_err(|e| {
        format!("the shared data folder {} is missing ({e}); pass --data DIR to name it", dir.display())
    })?;
    if !dir.is_dir() {
        return Err(format!("{} is not a folder", dir.display()));
    }
    println!("xtask: running the tests over the whole data set in {}", dir.display());
    run(cargo().args(["test", "--workspace"]).env("VOXEL_SHARED_DATA", &dir))
}

/// Builds the demo example in release and runs it. Its flags are checked first (with the demo's
/// own parser), so a bad flag fails in a second, not after the build; the build shows cargo's
/// progress, since the first one compiles the whole workspace in release.
fn demo(args: &[String]) -> Result<(), String> {
    // `--rapier` adds the rapier stage (voxel-rapier's demo: bodies, a pit, an island body, a
    // character); it is xtask's own flag, the demo never sees it.
    let rapier = args.iter().any(|a| a == "--rapier");
    let args: Vec<String> = args.iter().filter(|a| *a != "--rapier").cloned().collect();
    let mut parsed = demo_args::parse(&args).map_err(|e| format!("demo: {e}"))?;
    if parsed.help {
        println!(
            "cargo xtask demo [flags]: the terrain physics demo, every stage timed, with pictures\n\n{}",
            demo_args::HELP
        );
        return Ok(());
    }
    if parsed.out.is_none() {
        parsed.out = Some(target_dir().join("demo"));
    }
    let cwd = std::env::current_dir().map_err(|e| format!("the current folder: {e}"))?;
    println!("xtask demo: building the demo in release (cargo build --release -p voxel-physics --example demo).");
    println!("  {BUILD_TIMES}");
    let started = Instant::now();
    run(cargo().args(["build", "--release", "-p", "voxel-physics", "--example", "demo"]))?;
    println!("xtask demo: built in {:.1} s; running it ({RUN_TIME}).\n", started.elapsed().as_secs_f64());
    // Already built: cargo only checks that nothing changed, quietly.
    let mut cmd = cargo();
    cmd.args(["run", "--release", "--quiet", "-p", "voxel-physics", "--example", "demo", "--"]);
    run(cmd.args(parsed.to_args(&cwd)))?;
    if rapier {
        println!(
            "\nxtask demo: the rapier stage (cargo run --release -p voxel-rapier --example rapier_demo; rapier3d's first release build takes minutes)."
        );
        run(cargo().args(["run", "--release", "-p", "voxel-rapier", "--example", "rapier_demo"]))?;
    }
    Ok(())
}

/// What the first and later builds of the demo cost, as measured (the README says how).
const BUILD_TIMES: &str = "The first time, this compiles about 80 crates in release: 5.4 min measured on 2 cores \
                           shared with other builds (105 s of CPU time); later runs rebuild only what changed \
                           (about a second when nothing did).";

/// What the default run costs, as measured.
const RUN_TIME: &str = "5 to 25 s at the default size on 2 cores, idle to busy";

fn bench(args: &[String]) -> Result<(), String> {
    let mut quick = false;
    let mut filter = None;
    for arg in args {
        match arg.as_str() {
            "--quick" => quick = true,
            a if a.starts_with('-') => return Err(format!("unknown flag {a}\n{USAGE}")),
            a => filter = Some(a.to_owned()),
        }
    }
    let started = SystemTime::now();
    let mut cmd = cargo();
    cmd.args(["bench", "-p", "voxel-bench", "--"]);
    if let Some(f) = &filter {
        cmd.arg(f);
    }
    if quick {
        cmd.args(["--warm-up-time", "0.3", "--measurement-time", "1", "--sample-size", "10"]);
    }
    // Echo the benches' output and keep the `figure:` lines they print.
    cmd.stdout(Stdio::piped());
    let mut child = cmd.spawn().map_err(|e| format!("could not start cargo bench: {e}"))?;
    let mut figures = Vec::new();
    if let Some(out) = child.stdout.take() {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            println!("{line}");
            if let Some(f) = line.strip_prefix("figure: ") {
                figures.push(f.to_owned());
            }
        }
    }
    let status = child.wait().map_err(|e| e.to_string())?;
    if !status.success() {
        return Err(format!("cargo bench failed with {status}"));
    }
    let rows = read_criterion(&target_dir().join("criterion"), started)?;
    let report = render_report(&rows, &figures, quick, filter.as_deref());
    let path = target_dir().join("bench-report.md");
    std::fs::write(&path, report).map_err(|e| format!("writing {}: {e}", path.display()))?;
    println!("xtask: wrote {} ({} benches, {} figures)", path.display(), rows.len(), figures.len());
    Ok(())
}

/// One measured bench, as criterion saved it.
struct Row {
    group: String,
    function: String,
    value: String,
    full_id: String,
    median_ns: f64,
    elements: Option<u64>,
    bytes: Option<u64>,
}

/// Reads every `new/benchmark.json` + `new/estimates.json` pair written since `since`.
fn read_criterion(dir: &Path, since: SystemTime) -> Result<Vec<Row>, String> {
    let mut found = Vec::new();
    find_named(dir, "benchmark.json", &mut found);
    let mut rows = Vec::new();
    for bench_file in found {
        let Some(new_dir) = bench_file.parent().filter(|d| d.ends_with("new")) else { continue };
        let fresh = std::fs::metadata(&bench_file).and_then(|m| m.modified()).is_ok_and(|t| t >= since);
        if !fresh {
            continue;
        }
        let id = read_json(&bench_file)?;
        let est = read_json(&new_dir.join("estimates.json"))?;
        let text = |k: &str| id.get(k).and_then(|v| v.as_str()).unwrap_or_default().to_owned();
        let median_ns = est
            .pointer("/median/point_estimate")
            .and_then(serde_json::Value::as_f64)
            .ok_or_else(|| format!("{}: no median", new_dir.display()))?;
        let throughput = id.get("throughput");
        let amount = |k: &str| throughput.and_then(|t| t.get(k)).and_then(serde_json::Value::as_u64);
        rows.push(Row {
            group: text("group_id"),
            function: text("function_id"),
            value: text("value_str"),
            full_id: text("full_id"),
            median_ns,
            elements: amount("Elements"),
            bytes: amount("Bytes"),
        });
    }
    rows.sort_by(|a, b| a.full_id.cmp(&b.full_id));
    Ok(rows)
}

fn find_named(dir: &Path, name: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            find_named(&path, name, out);
        } else if path.file_name().is_some_and(|n| n == name) {
            out.push(path);
        }
    }
}

fn read_json(path: &Path) -> Result<serde_json::Value, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

fn render_report(rows: &[Row], figures: &[String], quick: bool, filter: Option<&str>) -> String {
    let mut md = String::from("# Bench report\n\n");
    let _ = writeln!(
        md,
        "Written by `cargo xtask bench{}{}`. Median of criterion's samples; ratio = peer time / our time \
         on the same input in the same run (above 1: ours is faster).\n",
        if quick { " --quick" } else { "" },
        filter.map(|f| format!(" {f}")).unwrap_or_default()
    );
    // Our median per (group, parameter), for the ratio column.
    let ours: BTreeMap<(&str, &str), f64> = rows
        .iter()
        .filter(|r| r.function == "ours")
        .map(|r| ((r.group.as_str(), r.value.as_str()), r.median_ns))
        .collect();
    md.push_str("| bench | median | throughput | ratio vs ours |\n| --- | ---: | ---: | ---: |\n");
    for r in rows {
        let throughput = match (r.elements, r.bytes) {
            (Some(n), _) => format!("{:.2} M/s", n as f64 / r.median_ns * 1e3),
            (None, Some(b)) => format!("{:.1} MB/s", b as f64 / r.median_ns * 1e3),
            _ => String::new(),
        };
        let ratio = match ours.get(&(r.group.as_str(), r.value.as_str())) {
            Some(o) if r.function != "ours" => format!("{:.2}x", r.median_ns / o),
            _ => String::new(),
        };
        let _ = writeln!(md, "| `{}` | {} | {throughput} | {ratio} |", r.full_id, human_time(r.median_ns));
    }
    if !figures.is_empty() {
        md.push_str("\n## Figures printed by the benches\n\n");
        for f in figures {
            let _ = writeln!(md, "- `{f}`");
        }
    }
    md
}

fn human_time(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.1} ns")
    } else if ns < 1e6 {
        format!("{:.2} us", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

#[cfg(test)]
mod tests {
    use super::demo_args::{DemoArgs, MAX_VOXELS, parse};
    use super::root;
    use std::path::Path;

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_owned).collect()
    }

    /// The error for `text`, which must name `flag`.
    fn refused(text: &str, flag: &str) -> String {
        let message = parse(&args(text)).expect_err(text);
        assert!(message.contains(flag), "{text}: {message:?} does not name {flag}");
        message
    }

    #[test]
    fn defaults_and_every_flag() {
        assert_eq!(parse(&[]).unwrap(), DemoArgs::default());
        let bunny = root().join("testdata/meshes/classic/bunny-lowpoly.obj");
        let line = format!(
            "--size 64,32,48 --seed 3 --cache-mib 65536 --image 64 --quick --mesh {} --out {}",
            bunny.display(),
            std::env::temp_dir().display()
        );
        let a = parse(&args(&line)).unwrap();
        assert_eq!(a.size, [64, 32, 48]);
        assert_eq!((a.seed, a.cache_mib, a.image, a.quick, a.help), (3, 65536, Some(64), true, false));
        assert_eq!(a.cache_bytes(), 1 << 36);
        assert_eq!(a.mesh.as_deref(), Some(bunny.as_path()));
        assert!(parse(&args("--help")).unwrap().help);
        // `to_args` round-trips, with relative paths made absolute.
        assert_eq!(parse(&a.to_args(Path::new("/elsewhere"))).unwrap(), a);
        let relative = DemoArgs { out: Some("pictures".into()), ..DemoArgs::default() };
        let again = relative.to_args(Path::new("/home/me"));
        assert!(again.windows(2).any(|w| w[0] == "--out" && Path::new(&w[1]) == Path::new("/home/me/pictures")));
    }

    #[test]
    fn sizes_out_of_range_fail_before_any_work() {
        // The issue's run: 402 s of generation, then Broadphase(TooLarge).
        let message = refused("--size 4096,512,4096", "--size");
        assert!(message.contains("2^30"), "{message}");
        refused("--size 2048,257,2048", "--size");
        assert_eq!(parse(&args("--size 2048,256,2048")).unwrap().size, [2048, 256, 2048]);
        assert_eq!(2048u64 * 256 * 2048, MAX_VOXELS);
        refused("--size 31,64,64", "--size (x)");
        refused("--size 64,1025,64", "--size (y)");
        refused("--size 64,64,-64", "--size (z)");
        refused("--size 64,64", "--size");
        refused("--size 64,64,64,64", "--size");
        refused("--size 64,fifty,64", "--size (y)");
        refused("--size 99999999999,64,64", "--size (x)");
    }

    #[test]
    fn numbers_out_of_range_name_their_flag() {
        // 2^44 MiB: shifted into bytes it wrapped to 0 and failed after the generation.
        refused("--cache-mib 17592186044416", "--cache-mib");
        refused("--cache-mib 0", "--cache-mib");
        refused("--cache-mib 65537", "--cache-mib");
        refused("--cache-mib -1", "--cache-mib");
        refused("--image 63", "--image");
        refused("--image 4097", "--image");
        refused("--seed -1", "--seed");
        refused("--seed 18446744073709551616", "--seed");
        assert_eq!(parse(&args("--seed 18446744073709551615")).unwrap().seed, u64::MAX);
    }

    #[test]
    fn files_are_checked_before_any_work() {
        refused("--mesh /no/such/mesh.obj", "--mesh");
        refused("--mesh Cargo.toml", "--mesh");
        let folder = std::env::temp_dir().join("xtask-demo-args-test.obj");
        std::fs::create_dir_all(&folder).unwrap();
        refused(&format!("--mesh {}", folder.display()), "--mesh");
        let manifest = root().join("Cargo.toml");
        refused(&format!("--out {}", manifest.display()), "--out");
        // A folder that does not exist yet is fine: the demo creates it.
        assert!(parse(&args("--out /tmp/xtask-demo-args-test/new")).is_ok());
    }

    /// The text between the lines `start` and `end` (excluded) of `text`, if both are there.
    fn between<'a>(text: &'a str, start: &str, end: &str) -> Option<&'a str> {
        let from = text.find(start)? + start.len();
        let len = text[from..].find(end)?;
        Some(&text[from..from + len])
    }

    fn read(path: &str) -> String {
        std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    #[test]
    fn the_readme_game_loop_is_the_compiled_example() {
        let example = read("voxel-physics/examples/game_loop.rs");
        let compiled = between(&example, "// README start\n", "// README end\n").expect("the markers");
        let readme = read("README.md");
        let section = between(&readme, "## A game loop\n", "\n## ").expect("the README's game loop section");
        let shown = between(section, "```rust\n", "```\n").expect("a rust block");
        assert!(compiled.contains("update_objects") && compiled.contains("object_contacts"));
        assert_eq!(shown, compiled, "README.md's game loop differs from voxel-physics/examples/game_loop.rs");
    }

    #[test]
    fn the_collider_readme_example_is_the_crate_doctest() {
        // The crate's first doc example is a doctest; the README shows it without the hidden lines.
        let lib = read("voxel-physics/src/lib.rs");
        let docs: String = lib
            .lines()
            .filter_map(|l| l.strip_prefix("//!"))
            .map(|l| format!("{}\n", l.strip_prefix(' ').unwrap_or(l)))
            .collect();
        let doctest = between(&docs, "```\n", "```\n").expect("a doc example");
        let visible: String = doctest.lines().filter(|l| !l.starts_with("# ")).map(|l| format!("{l}\n")).collect();
        let readme = read("voxel-physics/README.md");
        let shown = between(&readme, "```rust\n", "```\n").expect("a rust block");
        assert!(visible.contains("TerrainCollider::new"));
        assert_eq!(shown, visible, "voxel-physics/README.md's example differs from the crate's doctest");
    }

    #[test]
    fn missing_values_and_unknown_flags() {
        refused("--size", "--size");
        refused("--mesh", "--mesh");
        refused("--seed 1 --out", "--out");
        refused("--sizes 64,64,64", "--sizes");
        refused("64,64,64", "64,64,64");
    }
}
