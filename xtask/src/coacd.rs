//! `cargo xtask coacd [--timeout SECONDS] [--threads N] [MESH...]`: CoACD (the Python package
//! `coacd`, default parameters) beside `convex-hacd` on the same meshes, scored with the same
//! tightness metric (`convex_hacd::tightness` through the `decompose_file` example).
//!
//! Optional: when `python3`, `numpy` or `coacd` is missing it says so and succeeds, so CI never
//! depends on it. CoACD runs in `xtask/coacd_run.py`, one process per mesh, killed after the
//! timeout (default 300 s: on a busy 2-core machine CoACD took 3-5 minutes on five of the
//! shared meshes and did not finish six within it), with `OMP_NUM_THREADS` set to the
//! thread count (default 1, like the bench's one-thread figures). Its hulls go to
//! `target/coacd/<mesh>.obj`. Without mesh arguments it runs the 22 meshes of
//! `../shared/data/meshes/` (or `testdata/meshes/` when the shared set is missing).

use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs the comparison; see the module documentation.
pub(crate) fn coacd(args: &[String]) -> Result<(), String> {
    let mut timeout = "300".to_owned();
    let mut threads = "1".to_owned();
    let mut meshes: Vec<PathBuf> = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--timeout" => timeout = it.next().ok_or("--timeout needs a number of seconds")?.clone(),
            "--threads" => threads = it.next().ok_or("--threads needs a count")?.clone(),
            a if a.starts_with('-') => return Err(format!("unknown coacd argument {a}\n{}", crate::USAGE)),
            a => meshes.push(PathBuf::from(a)),
        }
    }
    timeout.parse::<f64>().map_err(|_| format!("--timeout {timeout}: not a number"))?;
    threads.parse::<u32>().map_err(|_| format!("--threads {threads}: not a count"))?;
    let probe = Command::new("python3").args(["-c", "import numpy, coacd"]).output();
    match probe {
        Err(e) => {
            println!("xtask coacd: skipped, python3 is not available ({e})");
            return Ok(());
        }
        Ok(out) if !out.status.success() => {
            println!(
                "xtask coacd: skipped, the Python package coacd (or numpy) is missing; `pip install coacd` adds it\n{}",
                String::from_utf8_lossy(&out.stderr).lines().last().unwrap_or_default()
            );
            return Ok(());
        }
        Ok(_) => {}
    }
    if meshes.is_empty() {
        let shared = crate::root().join("../shared/data/meshes");
        let dir = if shared.is_dir() { shared } else { crate::root().join("testdata/meshes") };
        collect(&dir, &mut meshes);
        meshes.sort();
    }
    crate::run(crate::cargo().args([
        "build",
        "--release",
        "--quiet",
        "-p",
        "convex-hacd",
        "--example",
        "decompose_file",
    ]))?;
    let scorer = crate::target_dir().join("release/examples/decompose_file");
    let out_dir = crate::target_dir().join("coacd");

    println!(
        "| mesh | CoACD time | hulls | vertices | outside | farthest | ours time | hulls | vertices | outside | farthest |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for mesh in &meshes {
        let name = mesh.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let out = Command::new("python3")
            .arg(crate::root().join("xtask/coacd_run.py"))
            .arg(&out_dir)
            .arg(&timeout)
            .arg(mesh)
            .env("OMP_NUM_THREADS", &threads)
            .output()
            .map_err(|e| format!("could not run coacd_run.py: {e}"))?;
        let text = String::from_utf8_lossy(&out.stdout);
        let line = text.lines().find_map(|l| l.strip_prefix("coacd: ")).unwrap_or("error no output");
        let fields: Vec<&str> = line.split_whitespace().skip(1).collect();
        let theirs = match fields.as_slice() {
            [seconds, hulls, vertices] => {
                let score = score_line(
                    &scorer,
                    &[mesh.as_os_str(), "--score".as_ref(), out_dir.join(format!("{name}.obj")).as_os_str()],
                );
                format!("{seconds} s | {hulls} | {vertices} | {} | {}", score.0, score.1)
            }
            ["timeout", seconds] => format!("timeout ({seconds} s) | | | | "),
            other => format!("{} | | | | ", other.join(" ")),
        };
        let ours = ours_line(&scorer, mesh, &threads);
        println!("| {name} | {theirs} | {ours} |");
    }
    println!(
        "(outside: share of 20k hull-surface samples outside the input by > 1% of the diagonal; farthest: % of the diagonal)"
    );
    Ok(())
}

/// `(outside, farthest)` from a `decompose_file` line ending in `outside X%, farthest Y%`.
fn score_line(scorer: &Path, args: &[&std::ffi::OsStr]) -> (String, String) {
    let out = Command::new(scorer).args(args).output();
    let text = out.map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
    let pick = |key: &str| {
        text.split(key)
            .nth(1)
            .and_then(|r| r.split('%').next())
            .map_or_else(|| "?".to_owned(), |v| format!("{}%", v.trim()))
    };
    (pick("outside "), pick("farthest "))
}

/// Ours on `mesh`: time, hulls, vertices, outside, farthest.
fn ours_line(scorer: &Path, mesh: &Path, threads: &str) -> String {
    let out = Command::new(scorer).arg(mesh).env("RAYON_NUM_THREADS", threads).output();
    let text = out.map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
    // "<path>: H hulls, V vertices, S samples, T, outside X%, farthest Y%"
    let tail = text.rsplit(": ").next().unwrap_or_default();
    let parts: Vec<&str> = tail.split(", ").collect();
    let first = |k: usize| parts.get(k).and_then(|p| p.split_whitespace().next()).unwrap_or("?").to_owned();
    let pick = |key: &str| tail.split(key).nth(1).and_then(|r| r.split('%').next()).unwrap_or("?").trim().to_owned();
    format!("{} | {} | {} | {}% | {}%", first(3), first(0), first(1), pick("outside "), pick("farthest "))
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "obj" || e == "stl") {
            out.push(path);
        }
    }
}
