//! The terrain physics demo that `cargo xtask demo` runs: every composed path of the collider over
//! a generated world, each stage timed with its rate and memory, and pictures in `target/demo/`.
//!
//! ```sh
//! cargo xtask demo                          # 256 x 96 x 256, seed 7
//! cargo xtask demo --size 512,128,512 --seed 3
//! cargo run --release -p voxel-physics --example demo -- --quick --out /tmp/demo
//! ```
//!
//! `run` drives the stages of `stages.rs` in order; `scene.rs` says what goes into the world,
//! `render.rs` draws the pictures, and `report.rs` prints the table and writes the report.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use glam::IVec3;
use voxel_core::{IndexedMesh, TriangleSource, VoxelBox};
use voxel_physics::TerrainCollider;
use voxel_testdata::Rng;

mod args;
mod render;
mod report;
mod scene;
mod stages;

use report::Report;
use scene::Pad;

type Error = Box<dyn std::error::Error>;

/// The checked flags, in the demo's types, with the sizes `--quick` and `--image` choose.
struct Args {
    size: IVec3,
    seed: u64,
    out: PathBuf,
    mesh: PathBuf,
    cache_bytes: usize,
    /// Side of the overview pictures in pixels (the close-up and the hulls are drawn smaller).
    image_side: u32,
    objects: usize,
    particles: usize,
}

impl Args {
    fn new(a: &args::DemoArgs) -> Self {
        let (objects, image_side, particles) = if a.quick { (2_000, 384, 20_000) } else { (10_000, 1024, 100_000) };
        Self {
            size: IVec3::from_array(a.size),
            seed: a.seed,
            out: a.out.clone().unwrap_or_else(|| target_dir().join("demo")),
            mesh: a.mesh.clone().unwrap_or_else(|| voxel_testdata::testdata_file("meshes/classic/bunny-lowpoly.obj")),
            cache_bytes: a.cache_bytes(),
            image_side: a.image.unwrap_or(image_side),
            objects,
            particles,
        }
    }

    /// The generated world: every voxel the terrain covers.
    fn world(&self) -> VoxelBox {
        VoxelBox::new(IVec3::ZERO, self.size)
    }
}

/// `X`x`Y`x`Z`, as the banner, the title and the captions name the world.
fn size_label(size: IVec3) -> String {
    format!("{}x{}x{}", size.x, size.y, size.z)
}

/// Where cargo puts its output: `CARGO_TARGET_DIR` when set, else the workspace's `target/`.
fn target_dir() -> PathBuf {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap_or(Path::new("."));
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| workspace.join("target"), PathBuf::from)
}

/// Exits 2 on a bad flag, 1 when a stage fails, 0 otherwise.
fn main() -> ExitCode {
    let raw: Vec<String> = std::env::args().skip(1).collect();
    let parsed = match args::parse(&raw) {
        Ok(a) => a,
        Err(message) => {
            eprintln!("demo: {message}");
            return ExitCode::from(2);
        }
    };
    if parsed.help {
        println!(
            "voxel-physics demo: every composed path of the terrain collider, timed, with pictures\n\n{}",
            args::HELP
        );
        return ExitCode::SUCCESS;
    }
    match run(&Args::new(&parsed)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("demo: {e}");
            ExitCode::FAILURE
        }
    }
}

/// What the stages share once the collider exists.
struct Demo<'a> {
    args: &'a Args,
    collider: TerrainCollider,
    report: Report,
    /// One stream for the scattered objects, the polyhedra and the particles, drawn in that
    /// order, so a seed gives the same run.
    rng: Rng,
    /// The level the generator filled water to: the renders draw it, the collider's queries see
    /// solid voxels only.
    water_level: Option<f32>,
    pad: Pad,
}

/// Runs the stages in order. What one stage makes for later ones (the object shapes, which borrow
/// the polyhedra, and the tunnel's islands) passes through here; the rest lives in `Demo`.
fn run(args: &Args) -> Result<(), Error> {
    // Everything that can be checked is checked before the first stage.
    std::fs::create_dir_all(&args.out).map_err(|e| format!("--out {}: {e}", args.out.display()))?;
    let mesh = load_mesh(&args.mesh)?;
    let started = Instant::now();
    let threads = rayon::current_num_threads();
    println!(
        "voxel-physics demo: world {}, seed {}, {threads} threads, pictures in {}\n",
        size_label(args.size),
        args.seed,
        args.out.display()
    );
    let mut report = Report::default();
    let (store, water_level) = stages::generate_terrain(args, &mut report)?;
    let collider = stages::build_collider(store, args, &mut report)?;
    let rng = Rng(args.seed ^ 0xD3E0_0000_0000_0001);
    let mut demo = Demo { args, collider, report, rng, water_level, pad: Pad::new(args.size) };
    stages::edit_flat_pad(&mut demo)?;
    let objects = stages::insert_objects(&mut demo)?;
    let polys = scene::polyhedra(&mut demo.rng)?;
    let shapes = scene::object_shapes(&objects.touching_solid, &objects.boxes, args.seed, &polys);
    let seam = demo.pad.seam_shapes();
    let off_surface = stages::contacts(&mut demo, &shapes, &seam)?;
    stages::shape_casts(&mut demo, &shapes, &seam)?;
    stages::smooth_render(&mut demo)?;
    stages::march_particles(&mut demo);
    stages::blocky_render(&mut demo)?;
    let tunnel = stages::edit_tunnel_and_island(&mut demo)?;
    stages::close_up_render(&mut demo, &tunnel)?;
    stages::decompose_mesh(&mut demo, &mesh)?;
    stages::summary(&demo, started.elapsed(), threads, off_surface)
}

/// The mesh of `--mesh`, refused before any work when it would decompose into nothing: no
/// triangles, or none with area.
fn load_mesh(path: &Path) -> Result<IndexedMesh, Error> {
    let mesh = voxel_testdata::load_mesh(path).map_err(|e| format!("--mesh {}: {e}", path.display()))?;
    if mesh.triangle_count() == 0 {
        return Err(format!("--mesh {}: no triangles in it", path.display()).into());
    }
    let has_area = |t: u32| {
        let [a, b, c] = mesh.triangle_positions(t);
        (b - a).cross(c - a).length_squared() > 0.0
    };
    if !(0..mesh.triangle_count() as u32).any(has_area) {
        return Err(format!("--mesh {}: every triangle has zero area", path.display()).into());
    }
    Ok(mesh)
}
