//! Project chores, run as `cargo xtask <command>` from anywhere in the repository.
//!
//! - `bench [--quick] [FILTER]`: the criterion benches of `voxel-bench`, then
//!   `target/bench-report.md` (median, throughput, ours/peer ratios, and the printed figures).
//! - `demo [--size X,Y,Z] [--seed N] [--cache-mib N] [--image N] [--mesh FILE] [--out DIR] [--quick]`: builds
//!   the `voxel-physics` demo in release and runs every composed path over a generated world,
//!   printing a table per stage and writing the pictures to `target/demo/`. The demo is an
//!   example of `voxel-physics`, so this crate stays std-only.
//! - `ci`: exactly what CI runs (`.ci/run`).
//! - `test-data [--data DIR]`: the whole test suite over the full shared data set (default
//!   `../shared/data` beside the repository); fails loudly when the folder is missing.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::SystemTime;

mod coacd;

const USAGE: &str = "usage: cargo xtask <command>

commands:
  demo [--size X,Y,Z] [--seed N] [--cache-mib N] [--image N] [--mesh FILE] [--out DIR] [--quick]
                             the main job: the terrain physics demo, every stage timed,
                             pictures in target/demo/ (--help for the flags)
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
    if status.success() { Ok(()) } else { Err(format!("{cmd:?} failed with {status}")) }
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

/// Runs the demo example in release; its own flags are checked here so a typo fails before the
/// build.
fn demo(args: &[String]) -> Result<(), String> {
    let mut it = args.iter();
    let mut out_given = false;
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--size" | "--seed" | "--cache-mib" | "--mesh" | "--out" | "--image" => {
                out_given |= arg == "--out";
                it.next().ok_or_else(|| format!("{arg} needs a value\n{USAGE}"))?;
            }
            "--quick" | "-h" | "--help" => {}
            a => return Err(format!("unknown demo argument {a}\n{USAGE}")),
        }
    }
    let mut cmd = cargo();
    cmd.args(["run", "--release", "--quiet", "-p", "voxel-physics", "--example", "demo", "--"]).args(args);
    if !out_given {
        cmd.arg("--out").arg(target_dir().join("demo"));
    }
    run(&mut cmd)
}

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
