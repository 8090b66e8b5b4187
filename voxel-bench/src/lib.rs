//! The shared bench harness of the voxel-physics workspace.
//!
//! Every crate's criterion benches live in this crate's `benches/` and use:
//!
//! - [`config`]: one criterion configuration for all benches (`cargo xtask bench --quick` shortens
//!   it from the command line);
//! - [`workloads`]: deterministic inputs by seed, so ours and a peer see the same data;
//! - `voxel_testdata::ByteCounter` as the bench binary's global allocator, for "bytes per voxel /
//!   triangle / node" figures (`ALLOC.measure(|| build())` gives the bytes kept and the peak);
//! - [`figure`]: prints a measured figure in the one line format `cargo xtask bench` collects.
//!
//! # Naming
//!
//! A bench id names its workload: `group/function/parameter`, for example
//! `core/slab/ours/4096-boxes`. Benches that come in pairs put ours and the named peer in the
//! same group with the same parameter: the function `ours` is ours, every other function is a
//! peer named by its crate (`parry3d`) or a `baseline` kept for comparison. `cargo xtask bench`
//! reports the ratio `peer time / our time` for each pair (above 1: we are faster).

pub mod workloads;

use std::time::Duration;

use criterion::Criterion;

/// The criterion configuration every bench uses: 1 s warm-up, 3 s of measurement, 50 samples.
/// Command-line flags (`--warm-up-time`, `--measurement-time`, `--sample-size`) override it, which
/// is how `cargo xtask bench --quick` shortens a run.
pub fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(50)
        .noise_threshold(0.03)
}

/// Prints one measured figure as `figure: <name> = <value> <unit>`, the line `cargo xtask bench`
/// collects into `target/bench-report.md`. Name figures like bench ids (`store/bytes-per-voxel`).
pub fn figure(name: &str, value: f64, unit: &str) {
    println!("figure: {name} = {value:.4} {unit}");
}

/// The shared data folder (`../shared/data` beside the repository, or the folder the
/// `VOXEL_SHARED_DATA` variable names), when it exists. Benches run on the whole set when it is
/// there and on the repository's `testdata/` copies otherwise.
pub fn shared_data() -> Option<std::path::PathBuf> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = match std::env::var_os("VOXEL_SHARED_DATA") {
        Some(given) => root.join(given),
        None => root.join("..").join("shared").join("data"),
    };
    dir.is_dir().then_some(dir)
}

/// The repository's `testdata/` folder.
pub fn testdata() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("testdata")
}
