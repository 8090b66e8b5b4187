//! `convex-hacd` benches: decomposition time, hull counts and hull vertices beside parry3d's
//! VHACD (default parameters) on the same meshes, one thread each.
//!
//! The meshes are the repository's `testdata/` copies of small concave shapes (the cavity cases
//! the issue names) and a low-poly bunny; the tightness figures of the issue (hull-surface samples
//! outside the input) are not measured here yet.

use convex_hacd::{DecomposeOptions, decompose};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use parry3d::transformation::vhacd::{VHACD, VHACDParameters};
use voxel_bench::{config, figure, testdata};
use voxel_core::IndexedMesh;

const MESHES: [&str; 5] =
    ["concave/cup.obj", "concave/funnel.obj", "concave/glass.obj", "torus/torus.obj", "classic/bunny-lowpoly.obj"];

fn parry(mesh: &IndexedMesh) -> Vec<(Vec<glam::Vec3>, Vec<[u32; 3]>)> {
    VHACD::decompose(&VHACDParameters::default(), mesh.positions(), mesh.triangles(), false).compute_convex_hulls(4)
}

fn meshes(c: &mut Criterion) {
    let one_thread = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a pool");
    for relative in MESHES {
        let path = testdata().join("meshes").join(relative);
        let mesh = voxel_testdata::load_mesh(&path).expect("testdata mesh");
        let name = relative.rsplit('/').next().unwrap_or(relative).trim_end_matches(".obj").to_string();
        let options = DecomposeOptions::default();
        let ours = one_thread.install(|| decompose(&mesh, &options)).expect("decomposes");
        let theirs = parry(&mesh);
        let vertices = |counts: &mut dyn Iterator<Item = usize>| counts.sum::<usize>() as f64;
        figure(&format!("hacd/{name}/hulls/ours"), ours.hulls.len() as f64, "");
        figure(&format!("hacd/{name}/hulls/parry3d"), theirs.len() as f64, "");
        figure(
            &format!("hacd/{name}/hull-vertices/ours"),
            vertices(&mut ours.hulls.iter().map(|h| h.vertices.len())),
            "",
        );
        figure(&format!("hacd/{name}/hull-vertices/parry3d"), vertices(&mut theirs.iter().map(|h| h.0.len())), "");

        let mut group = c.benchmark_group("hacd/decompose");
        group.sample_size(10);
        group.bench_with_input(BenchmarkId::new("ours", &name), &(), |b, ()| {
            b.iter(|| one_thread.install(|| decompose(&mesh, &options)).map(|d| d.hulls.len()));
        });
        group.bench_with_input(BenchmarkId::new("parry3d", &name), &(), |b, ()| b.iter(|| parry(&mesh).len()));
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = config();
    targets = meshes
}
criterion_main!(benches);
