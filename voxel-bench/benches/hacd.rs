//! `convex-hacd` benches: decomposition time, hull counts, hull vertices and tightness beside
//! parry3d's VHACD (default parameters) on the same meshes, one thread each (`ours-2-threads`:
//! ours on two threads, the same hulls; not a peer). `ours-over-surface` is ours with
//! `merge_through_inside` off (the defaults before it was one: more hulls, less time; not a peer
//! either).
//!
//! The meshes are the 21 of the shared data set (`../shared/data/meshes/`) when it is there, the
//! repository's `testdata/` copies otherwise. Tightness is the figure, computed by
//! `convex_hacd::tightness` for both decompositions: 20 000 area-weighted samples on the hull
//! surfaces, the share outside the input by more than 1% of the bounding diagonal and the farthest
//! one, in % of the diagonal (`hacd/<mesh>/outside-pct/...`, `hacd/<mesh>/farthest-pct/...`).
//! `cargo xtask coacd` prints the same figures for CoACD.

use std::path::PathBuf;

use convex_hacd::{DecomposeOptions, TightnessOptions, decompose, tightness};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use parry3d::transformation::vhacd::{VHACD, VHACDParameters};
use voxel_bench::{config, figure, shared_data, testdata};
use voxel_core::IndexedMesh;

fn parry(mesh: &IndexedMesh) -> Vec<(Vec<glam::Vec3>, Vec<[u32; 3]>)> {
    VHACD::decompose(&VHACDParameters::default(), mesh.positions(), mesh.triangles(), false).compute_convex_hulls(4)
}

fn mesh_files() -> Vec<PathBuf> {
    let dir = shared_data().map_or_else(|| testdata().join("meshes"), |d| d.join("meshes"));
    voxel_testdata::files_below(&dir, &["obj", "stl"])
}

fn meshes(c: &mut Criterion) {
    let one_thread = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a pool");
    let two_threads = rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("a pool");
    for path in mesh_files() {
        let Ok(mesh) = voxel_testdata::load_mesh(&path) else {
            eprintln!("skipping {}: not readable", path.display());
            continue;
        };
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let options = DecomposeOptions::default();
        let surface = DecomposeOptions { merge_through_inside: false, ..options.clone() };
        let ours = one_thread.install(|| decompose(&mesh, &options)).expect("decomposes");
        let over = one_thread.install(|| decompose(&mesh, &surface)).expect("decomposes");
        let theirs = parry(&mesh);
        let ours_hulls: Vec<_> = ours.hulls.iter().map(|h| (&h.vertices[..], &h.triangles[..])).collect();
        let over_hulls: Vec<_> = over.hulls.iter().map(|h| (&h.vertices[..], &h.triangles[..])).collect();
        let their_hulls: Vec<_> = theirs.iter().map(|(v, t)| (&v[..], &t[..])).collect();
        for (who, hulls) in [("ours", &ours_hulls), ("ours-over-surface", &over_hulls), ("parry3d", &their_hulls)] {
            figure(&format!("hacd/{name}/hulls/{who}"), hulls.len() as f64, "");
            figure(
                &format!("hacd/{name}/hull-vertices/{who}"),
                hulls.iter().map(|h| h.0.len()).sum::<usize>() as f64,
                "",
            );
            let score = tightness(&mesh, hulls.iter().copied(), &TightnessOptions::default()).expect("scores");
            figure(&format!("hacd/{name}/outside-pct/{who}"), 100.0 * f64::from(score.outside_share), "%");
            figure(&format!("hacd/{name}/farthest-pct/{who}"), 100.0 * f64::from(score.farthest), "% of diagonal");
        }

        let mut group = c.benchmark_group("hacd/decompose");
        group.sample_size(10);
        group.bench_with_input(BenchmarkId::new("ours", &name), &(), |b, ()| {
            b.iter(|| one_thread.install(|| decompose(&mesh, &options)).map(|d| d.hulls.len()));
        });
        group.bench_with_input(BenchmarkId::new("parry3d", &name), &(), |b, ()| b.iter(|| parry(&mesh).len()));
        // Not a peer: ours with `merge_through_inside` off.
        group.bench_with_input(BenchmarkId::new("ours-over-surface", &name), &(), |b, ()| {
            b.iter(|| one_thread.install(|| decompose(&mesh, &surface)).map(|d| d.hulls.len()));
        });
        // Not a peer: ours on two threads (the same hulls), to show what rayon adds.
        group.bench_with_input(BenchmarkId::new("ours-2-threads", &name), &(), |b, ()| {
            b.iter(|| two_threads.install(|| decompose(&mesh, &options)).map(|d| d.hulls.len()));
        });
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = config();
    targets = meshes
}
criterion_main!(benches);
