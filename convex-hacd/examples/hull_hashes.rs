//! Prints one hash of the decomposition's bits per mesh and option set, on one and on two rayon
//! threads: the check that a refactor or a speed-up gives the same hulls bit for bit. The hash
//! (FNV-1a, stable across Rust versions) covers every hull's vertices, triangles, source
//! triangles, flag, error and cap error, the counters and, with `record`, every recorded step.
//!
//! ```text
//! cargo run --release -p convex-hacd --example hull_hashes > before.txt
//! # ...change the code...
//! cargo run --release -p convex-hacd --example hull_hashes > after.txt && diff before.txt after.txt
//! ```
//!
//! The meshes are those below `meshes/` and `peer/degenerate-meshes/` of `testdata/`, or of the
//! shared set when `VOXEL_SHARED_DATA` names it. A line ends in `THREADS DIFFER` when one and
//! two threads disagree.

use convex_hacd::{DecomposeOptions, Decomposition, RecordedHull, decompose};
use voxel_testdata::{data_files, load_mesh};

struct Fnv(u64);

impl Fnv {
    fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn u32(&mut self, v: u32) {
        self.bytes(&v.to_le_bytes());
    }
    fn f32(&mut self, v: f32) {
        self.u32(v.to_bits());
    }
    fn recorded(&mut self, h: &RecordedHull) {
        self.u32(h.vertices.len() as u32);
        h.vertices.iter().flat_map(glam::Vec3::to_array).for_each(|x| self.f32(x));
        self.u32(h.triangles.len() as u32);
        h.triangles.iter().flatten().for_each(|&i| self.u32(i));
    }
}

fn hash(d: &Decomposition) -> u64 {
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    for c in [d.non_finite_triangles, d.degenerate_triangles, d.samples, d.protrusion_splits] {
        h.u32(c as u32);
    }
    h.f32(d.quantization);
    for hull in &d.hulls {
        h.u32(hull.vertices.len() as u32);
        hull.vertices.iter().flat_map(glam::Vec3::to_array).for_each(|x| h.f32(x));
        h.u32(hull.triangles.len() as u32);
        hull.triangles.iter().flatten().for_each(|&i| h.u32(i));
        h.u32(hull.source_triangles.len() as u32);
        hull.source_triangles.iter().for_each(|&t| h.u32(t));
        h.u32(u32::from(hull.flat));
        h.f32(hull.error);
        h.f32(hull.cap_error);
    }
    if let Some(r) = &d.recording {
        for s in &r.steps {
            h.recorded(&s.a);
            h.recorded(&s.b);
            h.recorded(&s.merged);
            h.f32(s.error);
        }
        r.hulls.iter().for_each(|x| h.recorded(x));
    }
    h.0
}

fn main() {
    let mut files = data_files("meshes", &["obj", "stl"]);
    files.extend(data_files("peer/degenerate-meshes", &["obj", "stl"]));
    let sets: [(&str, DecomposeOptions); 4] = [
        ("default", DecomposeOptions::default()),
        ("inside", DecomposeOptions { merge_through_inside: true, ..Default::default() }),
        ("record", DecomposeOptions { record: true, ..Default::default() }),
        ("caps", DecomposeOptions { max_hulls: Some(4), max_vertices_per_hull: Some(12), ..Default::default() }),
    ];
    let pools = [1, 2].map(|n| rayon::ThreadPoolBuilder::new().num_threads(n).build().expect("a pool"));
    for path in files {
        let Ok(mesh) = load_mesh(&path) else {
            println!("{}: not readable", path.display());
            continue;
        };
        for (name, options) in &sets {
            let [one, two] = pools.each_ref().map(|pool| pool.install(|| decompose(&mesh, options).map(|d| hash(&d))));
            let flag = if one == two { "" } else { " THREADS DIFFER" };
            println!("{} {name}: {one:016x?}{flag}", path.display());
        }
    }
}
