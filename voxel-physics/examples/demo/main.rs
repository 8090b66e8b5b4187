//! The terrain physics demo that `cargo xtask demo` runs: every composed path of the collider over
//! a generated world, each stage timed with its rate and memory, and pictures in `target/demo/`.
//!
//! ```sh
//! cargo xtask demo                          # 256 x 96 x 256, seed 7
//! cargo xtask demo --size 512,128,512 --seed 3
//! cargo run --release -p voxel-physics --example demo -- --quick --out /tmp/demo
//! ```

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use convex_hacd::{DecomposeOptions, convex_hull, decompose};
use glam::{IVec3, Quat, Vec3};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use voxel_contacts::{Capsule, ConvexPolyhedron, Cuboid, Pose, Sphere};
use voxel_core::{Aabb, Contact, IndexedMesh, Ray, TriangleSource, VoxelBox};
use voxel_kdtree::{KdTree, Scratch};
use voxel_physics::{
    Brush, Cast, CastOptions, CastScratch, ColliderOptions, ContactOptions, ContactScratch, IslandOptions, IslandShape,
    PairKind, RayScratch, Shape, ShapeCast, TerrainCollider,
};
use voxel_store::generate::{self, Terrain, materials};

mod args;

type Error = Box<dyn std::error::Error>;

/// The checked flags, in the demo's types.
struct Args {
    size: IVec3,
    seed: u64,
    out: PathBuf,
    quick: bool,
    mesh: PathBuf,
    cache_bytes: usize,
    image: Option<u32>,
}

impl Args {
    fn new(a: &args::DemoArgs) -> Self {
        Self {
            size: IVec3::from_array(a.size),
            seed: a.seed,
            out: a.out.clone().unwrap_or_else(|| target_dir().join("demo")),
            quick: a.quick,
            mesh: a.mesh.clone().unwrap_or_else(|| voxel_testdata::testdata_file("meshes/classic/bunny-lowpoly.obj")),
            cache_bytes: a.cache_bytes(),
            image: a.image,
        }
    }
}

/// Where cargo puts its output: `CARGO_TARGET_DIR` when set, else the workspace's `target/`.
fn target_dir() -> PathBuf {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap_or(Path::new("."));
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| workspace.join("target"), PathBuf::from)
}

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

/// One row of the stage table.
struct Row {
    stage: String,
    time: Duration,
    items: u64,
    unit: &'static str,
    memory: usize,
    note: String,
}

#[derive(Default)]
struct Table {
    rows: Vec<Row>,
}

impl Table {
    fn push(&mut self, row: Row) {
        if self.rows.is_empty() {
            println!("{}", header());
        }
        println!("{}", format_row(&row));
        self.rows.push(row);
    }

    fn markdown(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "| stage | time | items | items/s | memory | notes |");
        let _ = writeln!(s, "| --- | ---: | ---: | ---: | ---: | --- |");
        for r in &self.rows {
            let _ = writeln!(
                s,
                "| {} | {} | {} {} | {} | {} | {} |",
                r.stage,
                human_time(r.time),
                human_count(r.items as f64),
                r.unit,
                rate(r),
                human_bytes(r.memory),
                r.note
            );
        }
        s
    }
}

fn header() -> String {
    format!("{:<34} {:>9} {:>18} {:>12} {:>10}  notes", "stage", "time", "items", "items/s", "memory")
}

fn format_row(r: &Row) -> String {
    format!(
        "{:<34} {:>9} {:>18} {:>12} {:>10}  {}",
        r.stage,
        human_time(r.time),
        format!("{} {}", human_count(r.items as f64), r.unit),
        rate(r),
        human_bytes(r.memory),
        r.note
    )
}

fn rate(r: &Row) -> String {
    human_count(r.items as f64 / r.time.as_secs_f64().max(1e-9))
}

fn human_time(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 1e-3 {
        format!("{:.0} us", s * 1e6)
    } else if s < 1.0 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{s:.2} s")
    }
}

fn human_count(n: f64) -> String {
    if n >= 1e9 {
        format!("{:.2} G", n / 1e9)
    } else if n >= 1e6 {
        format!("{:.2} M", n / 1e6)
    } else if n >= 1e4 {
        format!("{:.1} k", n / 1e3)
    } else {
        format!("{n:.0}")
    }
}

fn human_bytes(b: usize) -> String {
    let b = b as f64;
    if b >= 1024.0 * 1024.0 {
        format!("{:.1} MiB", b / (1024.0 * 1024.0))
    } else if b >= 1024.0 {
        format!("{:.1} KiB", b / 1024.0)
    } else {
        format!("{b:.0} B")
    }
}

fn progress(name: &str, len: u64) -> ProgressBar {
    let bar = ProgressBar::new(len).with_prefix(name.to_owned());
    let style = ProgressStyle::with_template("{prefix:>34} [{bar:32}] {percent:>3}% {elapsed_precise}")
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
    bar.set_style(style);
    bar
}

/// A small deterministic generator (SplitMix64), so runs repeat exactly.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `[lo, hi)`.
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.next_u64() >> 40) as f32 / (1u64 << 24) as f32)
    }
    fn unit_vector(&mut self) -> Vec3 {
        loop {
            let v = Vec3::new(self.range(-1.0, 1.0), self.range(-1.0, 1.0), self.range(-1.0, 1.0));
            let l = v.length_squared();
            if l > 1e-4 && l <= 1.0 {
                return v / l.sqrt();
            }
        }
    }
}

/// A pinhole camera: one ray per pixel.
struct Camera {
    eye: Vec3,
    forward: Vec3,
    right: Vec3,
    up: Vec3,
    tan_half: f32,
}

impl Camera {
    fn look_at(eye: Vec3, target: Vec3, fov_degrees: f32) -> Self {
        let forward = (target - eye).normalize();
        let right = forward.cross(Vec3::Y).normalize();
        let up = right.cross(forward);
        Self { eye, forward, right, up, tan_half: (fov_degrees.to_radians() * 0.5).tan() }
    }

    fn ray(&self, x: u32, y: u32, width: u32, height: u32) -> Ray {
        let aspect = width as f32 / height as f32;
        let u = ((x as f32 + 0.5) / width as f32 * 2.0 - 1.0) * self.tan_half * aspect;
        let v = (1.0 - (y as f32 + 0.5) / height as f32 * 2.0) * self.tan_half;
        Ray::new(self.eye, (self.forward + self.right * u + self.up * v).normalize())
    }
}

fn sky(dir: Vec3) -> [u8; 3] {
    let t = (dir.y * 0.5 + 0.5).clamp(0.0, 1.0);
    let c = Vec3::new(0.85, 0.9, 0.97).lerp(Vec3::new(0.35, 0.55, 0.85), t);
    to_rgb(c)
}

fn to_rgb(c: Vec3) -> [u8; 3] {
    let c = c.clamp(Vec3::ZERO, Vec3::ONE) * 255.0;
    [c.x as u8, c.y as u8, c.z as u8]
}

fn write_png(path: &Path, width: u32, height: u32, rgb: &[u8]) -> Result<(), Error> {
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut encoder = png::Encoder::new(file, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(rgb)?;
    writer.finish()?;
    Ok(())
}

/// The sun, and how a lit surface of colour `base` with normal `n` looks.
const SUN: Vec3 = Vec3::new(0.6, 0.55, -0.25);

fn shade(base: Vec3, n: Vec3, lit: bool) -> Vec3 {
    let sun = SUN.normalize();
    let diffuse = if lit { n.dot(sun).max(0.0) } else { 0.0 };
    let sky_light = 0.5 + 0.5 * n.y;
    base * (0.25 + 0.25 * sky_light + 0.7 * diffuse)
}

fn size_y(size: IVec3) -> f32 {
    size.y as f32
}

fn material_colour(collider: &TerrainCollider, material: u8) -> Vec3 {
    let c = collider.store().palette().get(material).map_or([255, 0, 255, 255], |m| m.color);
    Vec3::new(f32::from(c[0]), f32::from(c[1]), f32::from(c[2])) / 255.0
}

/// A free body drawn into a render: a mesh, its kD tree, where it is drawn (added to its
/// coordinates) and its colour.
struct Body<'a> {
    mesh: &'a IndexedMesh,
    tree: &'a KdTree,
    offset: Vec3,
    colour: Vec3,
}

/// What a smooth render needs besides the collider.
struct View<'a> {
    camera: &'a Camera,
    width: u32,
    height: u32,
    shadows: bool,
    body: Option<Body<'a>>,
    water: Option<Water>,
}

/// The water surface: the collider's queries see solid voxels only, so the renders draw the water
/// as the plane `y = surface` over every column whose voxel just below it is water.
#[derive(Clone, Copy)]
struct Water {
    /// Height of the drawn plane: the water level for the smooth view (where the Surface Nets of
    /// the water's distances would put it), the top of the highest water cell for the blocky one.
    surface: f32,
    /// `y` of the voxels just below the surface.
    voxel_y: i32,
    /// Whether voxel `p` is the cell `[p, p + 1)` (blocky view) or the grid point `p` (smooth).
    cells: bool,
}

impl Water {
    fn new(level: f32, cells: bool) -> Self {
        let voxel_y = level.ceil() as i32 - 1;
        Self { surface: if cells { (voxel_y + 1) as f32 } else { level }, voxel_y, cells }
    }

    /// The ray parameter where `ray` meets the water surface before `max_t`, if it does.
    fn hit(&self, collider: &TerrainCollider, ray: &Ray, max_t: f32) -> Option<f32> {
        if !(ray.dir.y < 0.0 && ray.origin.y > self.surface) {
            return None;
        }
        let t = (self.surface - ray.origin.y) / ray.dir.y;
        if !(t < max_t) {
            return None;
        }
        let p = ray.at(t);
        let (x, z) = if self.cells { (p.x.floor(), p.z.floor()) } else { (p.x.round(), p.z.round()) };
        let voxel = IVec3::new(x as i32, self.voxel_y, z as i32);
        let inside = collider.world().contains(voxel);
        (inside && collider.store().get(voxel).material == materials::WATER).then_some(t)
    }
}

/// The colour of the water surface at `point` seen along `dir`, over what lies `depth` below it
/// along the ray (`None`: nothing before the far plane).
fn water_colour(collider: &TerrainCollider, dir: Vec3, under: Option<(Vec3, f32)>, lit: bool) -> Vec3 {
    let water = material_colour(collider, materials::WATER);
    let body = match under {
        // Shallow water shows the ground through it; deep water is the water's own colour.
        Some((ground, depth)) => ground.lerp(water * 0.55, 1.0 - (-depth * 0.12).exp()),
        None => water * 0.55,
    };
    // More sky reflected at grazing angles (Schlick's approximation of Fresnel's).
    let fresnel = 0.02 + 0.98 * (1.0 - (-dir.y).clamp(0.0, 1.0)).powi(5);
    let reflected = Vec3::from_array(sky(Vec3::new(dir.x, -dir.y, dir.z)).map(|c| f32::from(c) / 255.0));
    let c = body.lerp(reflected, fresnel.max(0.15));
    if lit { c } else { c * 0.6 }
}

/// Renders the smooth surface with the collider's own ray casts: one primary ray per pixel and,
/// with shadows, one shadow ray towards the sun per hit. Counts the rays in `rays`.
fn render_smooth(collider: &TerrainCollider, view: &View<'_>, bar: &ProgressBar, rays: &AtomicUsize) -> Vec<u8> {
    let sun = SUN.normalize();
    let (width, height) = (view.width, view.height);
    let mut image = vec![0u8; (width * height * 3) as usize];
    image.par_chunks_mut((width * 3) as usize).enumerate().for_each_init(
        || (RayScratch::new(), Scratch::new()),
        |(scratch, body_scratch), (y, row)| {
            let mut cast = 0;
            for x in 0..width {
                let ray = view.camera.ray(x, y as u32, width, height);
                cast += 1;
                let terrain = collider.raycast_with(&ray, 2000.0, scratch);
                // The free body, if one is drawn and it comes first.
                let body = view.body.as_ref().and_then(|b| {
                    let local = Ray::new(ray.origin - b.offset, ray.dir);
                    let hit = b.tree.cast_ray(b.mesh, &local, terrain.map_or(2000.0, |h| h.t), body_scratch)?;
                    let [p0, p1, p2] = b.mesh.triangle_positions(hit.triangle);
                    Some((hit.t, (p1 - p0).cross(p2 - p0).normalize_or_zero(), b.colour))
                });
                let (point, normal, base) = match (terrain, body) {
                    (_, Some((t, n, c))) => (ray.at(t), n, c),
                    (Some(h), None) => (h.point, h.normal, material_colour(collider, h.material)),
                    (None, None) => (Vec3::NAN, Vec3::NAN, Vec3::NAN),
                };
                let first_t = if point.is_nan() { 2000.0 } else { (point - ray.origin).length() };
                let surface = view.water.and_then(|w| w.hit(collider, &ray, first_t));
                let mut shadowed = |p: Vec3| {
                    view.shadows && {
                        cast += 1;
                        collider.raycast_with(&Ray::new(p, sun), 2000.0, scratch).is_some()
                    }
                };
                let (point, c) = match surface {
                    Some(t) => {
                        let at = ray.at(t);
                        let under = (!point.is_nan()).then(|| {
                            let lit = !shadowed(point + normal * 0.05);
                            (shade(base, normal, lit), first_t - t)
                        });
                        (at, water_colour(collider, ray.dir, under, !shadowed(at)))
                    }
                    None if point.is_nan() => {
                        row[(x * 3) as usize..(x * 3 + 3) as usize].copy_from_slice(&sky(ray.dir));
                        continue;
                    }
                    None => (point, shade(base, normal, !shadowed(point + normal * 0.05))),
                };
                // A little distance haze.
                let fog = ((point - view.camera.eye).length() / 900.0).clamp(0.0, 0.6);
                let colour = to_rgb(c.lerp(Vec3::new(0.8, 0.86, 0.93), fog));
                row[(x * 3) as usize..(x * 3 + 3) as usize].copy_from_slice(&colour);
            }
            rays.fetch_add(cast, Ordering::Relaxed);
            bar.inc(1);
        },
    );
    image
}

/// Renders the blocky view with voxel-raymarch: faces shaded by their axis.
fn render_blocky(collider: &TerrainCollider, view: &View<'_>, bar: &ProgressBar, rays: &AtomicUsize) -> Vec<u8> {
    let (camera, width, height) = (view.camera, view.width, view.height);
    let sun = SUN.normalize();
    let mut image = vec![0u8; (width * height * 3) as usize];
    image.par_chunks_mut((width * 3) as usize).enumerate().for_each(|(y, row)| {
        let mut cast = 0;
        for x in 0..width {
            cast += 1;
            let ray = camera.ray(x, y as u32, width, height);
            let hit = collider.raymarch(&ray, 2000.0);
            let first_t = hit.map_or(2000.0, |h| (h.point - ray.origin).length());
            let mut lit = |p: Vec3| {
                cast += 1;
                collider.raymarch(&Ray::new(p, sun), 2000.0).is_none()
            };
            let ground = hit.map(|hit| {
                let n = hit.face.map_or(Vec3::Y, |f| f.normal().as_vec3());
                let material = collider.store().get(hit.voxel).material;
                (hit.point, shade(material_colour(collider, material), n, lit(hit.point + n * 1e-3)))
            });
            let surface = view.water.and_then(|w| w.hit(collider, &ray, first_t));
            let colour = match (surface, ground) {
                (Some(t), _) => {
                    let at = ray.at(t);
                    let under = ground.map(|(_, c)| (c, first_t - t));
                    Some((at, water_colour(collider, ray.dir, under, lit(at + Vec3::Y * 1e-3))))
                }
                (None, g) => g,
            };
            let colour = match colour {
                None => sky(ray.dir),
                Some((point, c)) => {
                    let fog = ((point - camera.eye).length() / 900.0).clamp(0.0, 0.6);
                    to_rgb(c.lerp(Vec3::new(0.8, 0.86, 0.93), fog))
                }
            };
            row[(x * 3) as usize..(x * 3 + 3) as usize].copy_from_slice(&colour);
        }
        rays.fetch_add(cast, Ordering::Relaxed);
        bar.inc(1);
    });
    image
}

/// Ground height of column `(x, z)` by a ray marched down from above the world.
fn ground(collider: &TerrainCollider, x: f32, z: f32) -> Option<f32> {
    let top = collider.world().max.y as f32 + 1.0;
    collider.raycast(&Ray::new(Vec3::new(x, top, z), Vec3::NEG_Y), top + 2.0).map(|h| h.point.y)
}

/// A shape per object, fitted in its box: spheres, capsules, rotated boxes and convex polyhedra.
fn object_shape<'a>(id: u32, b: &Aabb, rng: &mut Rng, polys: &'a [ConvexPolyhedron]) -> Shape<'a> {
    let c = b.center();
    let h = b.size() * 0.5;
    let r = h.min_element();
    match id % 4 {
        0 => Shape::Sphere(Sphere { center: c, radius: r }),
        1 => Shape::Capsule(Capsule {
            a: c - Vec3::Y * (h.y - r).max(0.0),
            b: c + Vec3::Y * (h.y - r).max(0.0),
            radius: r,
        }),
        2 => Shape::Cuboid(Cuboid {
            half_extents: Vec3::splat(r / 3f32.sqrt()) * Vec3::new(1.0, 0.7, 0.9),
            pose: Pose::new(Quat::from_axis_angle(rng.unit_vector(), rng.range(0.0, std::f32::consts::TAU)), c),
        }),
        _ => {
            // The prebuilt polyhedron whose size is closest to the box's.
            let poly = polys.iter().min_by(|a, b| (a.radius() - r).abs().total_cmp(&(b.radius() - r).abs()));
            match poly {
                Some(hull) => Shape::Convex { hull, pose: Pose::new(Quat::from_axis_angle(rng.unit_vector(), 1.0), c) },
                None => Shape::Sphere(Sphere { center: c, radius: r }),
            }
        }
    }
}

/// A few convex polyhedra (hulls of random points) at the sizes the objects use.
fn polyhedra(rng: &mut Rng) -> Result<Vec<ConvexPolyhedron>, Error> {
    let mut out = Vec::new();
    for size in [0.4f32, 0.6, 0.9, 1.2] {
        let points: Vec<Vec3> = (0..24).map(|_| rng.unit_vector() * size).collect();
        let hull = convex_hull(&points)?;
        let faces: Vec<Vec<u32>> = hull.triangles.iter().map(|t| t.to_vec()).collect();
        out.push(ConvexPolyhedron::new(hull.vertices.clone(), &faces)?);
    }
    Ok(out)
}

fn run(args: &Args) -> Result<(), Error> {
    // Everything that can be checked is checked before the first stage: the output folder and
    // the mesh (a file that parses as no triangles would decompose into nothing).
    std::fs::create_dir_all(&args.out).map_err(|e| format!("--out {}: {e}", args.out.display()))?;
    let mesh = voxel_testdata::load_mesh(&args.mesh).map_err(|e| format!("--mesh {}: {e}", args.mesh.display()))?;
    if mesh.triangle_count() == 0 {
        return Err(format!("--mesh {}: no triangles in it", args.mesh.display()).into());
    }
    let has_area = |t: u32| {
        let [a, b, c] = mesh.triangle_positions(t);
        (b - a).cross(c - a).length_squared() > 0.0
    };
    if !(0..mesh.triangle_count() as u32).any(has_area) {
        return Err(format!("--mesh {}: every triangle has zero area", args.mesh.display()).into());
    }
    let started = Instant::now();
    let threads = rayon::current_num_threads();
    println!(
        "voxel-physics demo: world {}x{}x{}, seed {}, {threads} threads, pictures in {}\n",
        args.size.x,
        args.size.y,
        args.size.z,
        args.seed,
        args.out.display()
    );
    let mut table = Table::default();
    let mut rng = Rng(args.seed ^ 0xD3E0_0000_0000_0001);
    let world = VoxelBox::new(IVec3::ZERO, args.size);
    let (object_count, image_side, particles) = if args.quick { (2_000, 384, 20_000) } else { (10_000, 1024, 100_000) };
    let image_side = args.image.unwrap_or(image_side);

    // ---- 1. generation ---------------------------------------------------------------------------
    // Hillier than the generator's default, so the pictures have relief.
    let params =
        Terrain { amplitude: 0.32 * size_y(args.size), frequency: 1.0 / 110.0, ..Terrain::new(args.size, args.seed) };
    let bar = progress("generate terrain", 1);
    let t = Instant::now();
    let mut store = generate::terrain(&params)?;
    store.compact();
    let time = t.elapsed();
    bar.finish_and_clear();
    let mem = store.memory();
    table.push(Row {
        stage: "generate terrain".into(),
        time,
        items: world.volume(),
        unit: "voxels",
        memory: mem.bytes,
        note: format!("{} store chunks, {:.2} B/voxel", store.chunk_count(), mem.bytes_per_voxel(world)),
    });

    // A flat pad across chunk seams, for the seam check of the contact stage (its top at y = pad_y).
    let pad_y = (args.size.y as f32 * 0.55).round();
    let pad_center = Vec3::new(args.size.x as f32 * 0.3, 0.0, args.size.z as f32 * 0.7).round();
    let pad_half = 20.0;

    // ---- 2. broadphase + occupancy ---------------------------------------------------------------
    let bar = progress("broadphase + occupancy build", 1);
    let t = Instant::now();
    let options = ColliderOptions { cache_bytes: args.cache_bytes };
    let mut collider = TerrainCollider::new(store, world, options)?;
    let time = t.elapsed();
    bar.finish_and_clear();
    let bp = collider.broadphase().memory();
    let occ = collider.occupancy().heap_bytes();
    let chunks = world.grow(1).chunk_keys(8).volume();
    table.push(Row {
        stage: "broadphase + occupancy build".into(),
        time,
        items: chunks,
        unit: "chunks",
        memory: bp.bytes + occ,
        note: format!(
            "{} partial + {} full 8^3 chunks ({}), occupancy {}",
            bp.partial_chunks,
            bp.full_chunks,
            human_bytes(bp.bytes),
            human_bytes(occ)
        ),
    });

    // ---- 3. edit: the flat pad ---------------------------------------------------------------------
    let bar = progress("edit: flat pad", 3);
    let t = Instant::now();
    let clear = collider.subtract(&Brush::Box {
        center: pad_center + Vec3::Y * (pad_y + 20.0),
        half_extents: Vec3::new(pad_half, 20.0, pad_half),
    })?;
    bar.inc(1);
    let slab = collider.add(
        &Brush::Box { center: pad_center + Vec3::Y * (pad_y - 8.0), half_extents: Vec3::new(pad_half, 8.0, pad_half) },
        materials::ROCK,
    )?;
    let paint = collider.paint(
        &Brush::Box {
            center: pad_center + Vec3::Y * (pad_y - 1.0),
            half_extents: Vec3::new(pad_half + 1.0, 3.0, pad_half + 1.0),
        },
        materials::ROCK,
    )?;
    bar.finish_and_clear();
    table.push(Row {
        stage: "edit: flat pad (3 brushes)".into(),
        time: t.elapsed(),
        items: clear.report.changed_voxels + slab.report.changed_voxels + paint.report.changed_voxels,
        unit: "voxels",
        memory: collider.store().memory().bytes,
        note: format!(
            "{} broadphase chunks rebuilt",
            clear.rebuilt_chunks + slab.rebuilt_chunks + paint.rebuilt_chunks
        ),
    });

    // ---- 4. objects and pairs --------------------------------------------------------------------
    // Boxes of 0.6 to 3 voxels scattered over the world, most of them near the ground.
    let mut boxes = Vec::with_capacity(object_count);
    while boxes.len() < object_count {
        let x = rng.range(2.0, args.size.x as f32 - 2.0);
        let z = rng.range(2.0, args.size.z as f32 - 2.0);
        let Some(g) = ground(&collider, x, z) else { continue };
        let half = Vec3::new(rng.range(0.3, 1.5), rng.range(0.3, 1.5), rng.range(0.3, 1.5));
        let y = g + half.y + rng.range(-1.0, 3.0);
        boxes.push(Aabb::new(Vec3::new(x, y, z) - half, Vec3::new(x, y, z) + half));
    }
    let bar = progress("insert objects", object_count as u64);
    let t = Instant::now();
    let mut events = Vec::new();
    for (id, b) in boxes.iter().enumerate() {
        collider.insert_object(id as u32, *b, &mut events)?;
        bar.inc(1);
    }
    let time = t.elapsed();
    bar.finish_and_clear();
    let solid_pairs = events.iter().filter(|e| e.added && e.kind == PairKind::Solid).count();
    let water_pairs = events.iter().filter(|e| e.added && e.kind == PairKind::Water).count();
    let with_solid: Vec<u32> = (0..object_count as u32)
        .filter(|&id| collider.object_pairs(id).is_some_and(|p| p.iter().any(|h| h.solid && !h.full)))
        .collect();
    let pair_bytes: usize =
        (0..object_count as u32).map(|id| collider.object_pairs(id).map_or(0, size_of_val) + 48).sum();
    table.push(Row {
        stage: format!("{}k objects + broadphase pairs", object_count / 1000),
        time,
        items: object_count as u64,
        unit: "objects",
        memory: pair_bytes,
        note: format!("{solid_pairs} solid + {water_pairs} water pairs, {} objects touch solid", with_solid.len()),
    });

    // ---- 5. contacts for all solid pairs -----------------------------------------------------------
    let polys = polyhedra(&mut rng)?;
    let shapes: Vec<(u32, Shape<'_>)> = with_solid
        .iter()
        .map(|&id| {
            let mut r = Rng(args.seed ^ u64::from(id).wrapping_mul(0x9E37_79B9));
            (id, object_shape(id, &boxes[id as usize], &mut r, &polys))
        })
        .collect();
    let contact_options = ContactOptions { contact_distance: 0.05, ..ContactOptions::default() };
    let bar = progress("contacts", shapes.len() as u64);
    let t = Instant::now();
    let per_object: Vec<(usize, usize)> = shapes
        .par_iter()
        .map_init(
            || (ContactScratch::new(), Vec::<Contact>::new()),
            |(scratch, contacts), (id, shape)| {
                contacts.clear();
                let report = collider.object_contacts(*id, shape, &contact_options, scratch, contacts);
                bar.inc(1);
                report.map_or((0, 0), |r| (contacts.len(), r.candidates))
            },
        )
        .collect();
    let time = t.elapsed();
    bar.finish_and_clear();
    let contact_count: usize = per_object.iter().map(|c| c.0).sum();
    let candidate_count: usize = per_object.iter().map(|c| c.1).sum();
    let touching = per_object.iter().filter(|c| c.0 > 0).count();

    // The seam check: spheres, boxes and capsules resting on the flat pad, straddling chunk seams
    // (x or z a multiple of 8). Every contact normal must point straight up.
    let mut seam_shapes = Vec::new();
    let mut s = -pad_half + 4.0;
    while s < pad_half - 4.0 {
        // Chunk meshes meet half a voxel below each multiple of 8 (through the vertices of the
        // cubes there): the shapes sit on those seams, and at offsets around them.
        let x = ((pad_center.x + s) / 8.0).round() * 8.0 - 0.5;
        for dz in [-9.5f32, -3.0, 0.0, 4.25, 10.0] {
            let z = ((pad_center.z + dz) / 8.0).round() * 8.0 - 0.5 + dz.fract();
            seam_shapes.push(Shape::Sphere(Sphere { center: Vec3::new(x, pad_y + 0.45, z), radius: 0.5 }));
            seam_shapes.push(Shape::Cuboid(Cuboid {
                half_extents: Vec3::new(1.0, 0.5, 0.7),
                pose: Pose::from_translation(Vec3::new(x + 0.3, pad_y + 0.47, z)),
            }));
            seam_shapes.push(Shape::Capsule(Capsule {
                a: Vec3::new(x - 1.5, pad_y + 0.38, z),
                b: Vec3::new(x + 1.5, pad_y + 0.38, z),
                radius: 0.4,
            }));
        }
        s += 3.0;
    }
    let mut scratch = ContactScratch::new();
    let mut contacts = Vec::new();
    let (mut seam_contacts, mut off_surface) = (0, 0);
    for shape in &seam_shapes {
        contacts.clear();
        collider.contacts(shape, &contact_options, &mut scratch, &mut contacts)?;
        seam_contacts += contacts.len();
        off_surface += contacts.iter().filter(|c| c.normal.dot(Vec3::Y) < 0.999).count();
    }
    let cache = collider.cache_stats();
    table.push(Row {
        stage: "contacts for all solid pairs".into(),
        time,
        items: shapes.len() as u64,
        unit: "shapes",
        memory: cache.bytes,
        note: format!(
            "{contact_count} contacts on {touching} shapes from {candidate_count} candidate triangles; \
             seam check: {seam_contacts} contacts of {} shapes on the flat pad, {off_surface} off-surface normals",
            seam_shapes.len()
        ),
    });

    // ---- 5b. shape casts ---------------------------------------------------------------------------
    table.push(sweep_stage(&collider, &shapes, &seam_shapes)?);

    // ---- 6. ray casts: the smooth picture ------------------------------------------------------------
    let (w, h) = (image_side, image_side);
    let size = args.size.as_vec3();
    let camera = Camera::look_at(
        Vec3::new(-0.25 * size.x, 1.6 * size.y + 0.2 * size.x, -0.25 * size.z),
        Vec3::new(0.55 * size.x, 0.3 * size.y, 0.55 * size.z),
        55.0,
    );
    let bar = progress("ray casts (smooth render)", u64::from(h));
    let rays = AtomicUsize::new(0);
    let t = Instant::now();
    let smooth_water = params.water_level.map(|level| Water::new(level, false));
    let view = View { camera: &camera, width: w, height: h, shadows: true, body: None, water: smooth_water };
    let image = render_smooth(&collider, &view, &bar, &rays);
    let time = t.elapsed();
    bar.finish_and_clear();
    write_png(&args.out.join("terrain_smooth.png"), w, h, &image)?;
    let water_note = if params.water_level.is_some() {
        " The water is drawn where a ray meets the water level over a water voxel (the collider's queries see only \
         solid voxels), the ground showing through the shallows."
    } else {
        ""
    };
    let mut pictures = vec![(
        "terrain_smooth.png",
        format!(
            "The generated {}x{}x{} world (seed {}), drawn with the collider's own ray casts on the smooth surface: \
             {} rays, one per pixel and a shadow ray towards the sun per hit.{water_note}",
            args.size.x,
            args.size.y,
            args.size.z,
            args.seed,
            human_count(rays.load(Ordering::Relaxed) as f64)
        ),
    )];
    let cache = collider.cache_stats();
    table.push(Row {
        stage: format!("{} ray casts (smooth render)", human_count(rays.load(Ordering::Relaxed) as f64)),
        time,
        items: rays.load(Ordering::Relaxed) as u64,
        unit: "rays",
        memory: cache.bytes,
        note: format!(
            "cache: {} chunks, {} triangles, peak {} of {}, {} hits / {} builds / {} evictions",
            cache.entries,
            human_count(cache.triangles as f64),
            human_bytes(cache.peak_bytes),
            human_bytes(cache.limit),
            human_count(cache.hits as f64),
            human_count(cache.misses as f64),
            cache.evictions
        ),
    });

    // ---- 7. particles ------------------------------------------------------------------------------
    let casts: Vec<Cast> = (0..particles)
        .map(|_| {
            let p = Vec3::new(rng.range(0.0, size.x), rng.range(0.5 * size.y, size.y + 8.0), rng.range(0.0, size.z));
            let v = Vec3::new(rng.range(-20.0, 20.0), rng.range(-60.0, 5.0), rng.range(-20.0, 20.0));
            // One second of flight, as one straight step.
            Cast { ray: Ray::new(p, v), max_t: 1.0 }
        })
        .collect();
    let bar = progress("particles marched", 1);
    let t = Instant::now();
    let mut marched = Vec::new();
    collider.raymarch_batch(&casts, &mut marched);
    let time = t.elapsed();
    bar.finish_and_clear();
    let landed = marched.iter().filter(|h| h.is_some()).count();
    table.push(Row {
        stage: format!("{}k particles marched", particles / 1000),
        time,
        items: particles as u64,
        unit: "rays",
        memory: collider.occupancy().heap_bytes(),
        note: format!("{landed} landed within one step (blocky view, voxel-raymarch)"),
    });

    let bar = progress("blocky render", u64::from(h));
    let rays = AtomicUsize::new(0);
    let t = Instant::now();
    let blocky_view = View {
        camera: &camera,
        width: w,
        height: h,
        shadows: true,
        body: None,
        water: params.water_level.map(|level| Water::new(level, true)),
    };
    let image = render_blocky(&collider, &blocky_view, &bar, &rays);
    let time = t.elapsed();
    bar.finish_and_clear();
    write_png(&args.out.join("terrain_blocky.png"), w, h, &image)?;
    pictures.push((
        "terrain_blocky.png",
        format!(
            "The same world as voxels (the blocky view): voxel-raymarch over the occupancy bits, no mesh, {} rays.",
            human_count(rays.load(Ordering::Relaxed) as f64)
        ),
    ));
    table.push(Row {
        stage: "blocky render (voxel-raymarch)".into(),
        time,
        items: rays.load(Ordering::Relaxed) as u64,
        unit: "rays",
        memory: (w * h * 3) as usize,
        note: "a primary ray per pixel, a shadow ray per hit".into(),
    });

    // ---- 8. edit: a tunnel, and an island ------------------------------------------------------------
    // A rock wall on the ground with a tunnel bored through it, and a boulder on a stalk standing
    // on the wall; a second, narrower bore cuts the stalk and the boulder is an island.
    let site = Vec3::new(0.62 * size.x, 0.0, 0.3 * size.z).round();
    let g = ground(&collider, site.x, site.z).unwrap_or(0.5 * size.y).round();
    let stalk_at = Vec3::new(site.x + 12.0, g + 18.0, site.z);
    let bar = progress("edit: tunnel + island", 6);
    let t = Instant::now();
    let mut changed = 0;
    let mut edit = |outcome: voxel_physics::EditOutcome| {
        changed += outcome.report.changed_voxels;
        bar.inc(1);
        outcome
    };
    edit(collider.add(
        &Brush::Box { center: Vec3::new(site.x, g + 8.0, site.z), half_extents: Vec3::new(24.0, 11.0, 5.0) },
        materials::ROCK,
    )?);
    edit(collider.add(&Brush::Capsule { a: stalk_at, b: stalk_at + Vec3::Y * 12.0, radius: 1.8 }, materials::ROCK)?);
    edit(collider.add(&Brush::Sphere { center: stalk_at + Vec3::Y * 15.0, radius: 6.0 }, materials::DIRT)?);
    let tunnel_y = g + 4.0;
    edit(collider.subtract(&Brush::Capsule {
        a: Vec3::new(site.x - 2.0, tunnel_y, site.z - 14.0),
        b: Vec3::new(site.x - 2.0, tunnel_y, site.z + 14.0),
        radius: 5.0,
    })?);
    let cut = edit(collider.subtract(&Brush::Capsule {
        a: stalk_at + Vec3::new(0.0, 6.0, -8.0),
        b: stalk_at + Vec3::new(0.0, 6.0, 8.0),
        radius: 2.5,
    })?);
    let island_options = IslandOptions { shape: IslandShape::Hull, ..IslandOptions::default() };
    let (islands, removal) = collider.detach_islands(cut.report.dirty, &island_options)?;
    changed += removal.report.changed_voxels;
    let time = t.elapsed();
    bar.finish_and_clear();
    collider.compact();
    // The tunnel is open: a ray along its axis crosses the wall without a hit.
    let probe = Ray::new(Vec3::new(site.x - 2.0, tunnel_y, site.z - 7.0), Vec3::Z);
    let tunnel_open = collider.raycast(&probe, 14.0).is_none();
    let island_note = islands.first().map_or("no island".to_owned(), |i| {
        format!(
            "island of {} voxels, {} triangles, hull of {} vertices",
            i.voxels.len(),
            i.mesh.triangle_count(),
            i.hull.as_ref().map_or(0, |h| h.vertices.len())
        )
    });
    table.push(Row {
        stage: "edit: tunnel + detach island".into(),
        time,
        items: changed,
        unit: "voxels",
        memory: islands.iter().map(|i| i.mesh.positions().len() * 12 + i.mesh.triangle_count() * 13).sum(),
        note: format!(
            "6 edits; {} detached ({island_note}); tunnel {}; {} cached chunks invalidated so far",
            islands.len(),
            if tunnel_open { "open" } else { "blocked" },
            collider.cache_stats().invalidations
        ),
    });

    // A close look at the edit, with shadows; the detached boulder drawn as a free body, fallen a
    // little and tinted.
    let close = Camera::look_at(
        Vec3::new(site.x - 32.0, g + 30.0, site.z - 50.0),
        Vec3::new(site.x + 2.0, g + 12.0, site.z),
        55.0,
    );
    // What the close-up shows, from what happened (a small or odd world may leave no island).
    let tunnel = if tunnel_open {
        "a tunnel bored through a rock wall (a ray along its axis crosses the wall)"
    } else {
        "a rock wall whose tunnel is still blocked (a ray along its axis hits rock)"
    };
    let (close_note, close_caption) = match islands.first() {
        Some(i) => (
            "after the edits: the tunnel, and the detached boulder as a free body".to_owned(),
            format!(
                "After the edits: {tunnel}, and a boulder whose stalk was cut: the detached island ({} voxels, its \
                 mesh of {} triangles) drawn in orange as a free body, 5 voxels below where it was.",
                i.voxels.len(),
                i.mesh.triangle_count()
            ),
        ),
        None => (
            "after the edits: the tunnel; the cut detached no island".to_owned(),
            format!(
                "After the edits: {tunnel}. Cutting the boulder's stalk detached no island here (0 islands), so no \
                 free body is drawn."
            ),
        ),
    };
    let side = image_side / 8 * 5;
    let bar = progress("close-up render", u64::from(side));
    let rays = AtomicUsize::new(0);
    let island_tree = islands.first().map(|i| KdTree::build(&i.mesh)).transpose()?;
    let body = islands.first().zip(island_tree.as_ref()).map(|(i, tree)| Body {
        mesh: &i.mesh,
        tree,
        offset: Vec3::new(0.0, -5.0, -2.0),
        colour: Vec3::new(0.85, 0.45, 0.2),
    });
    let t = Instant::now();
    let view = View { camera: &close, width: side, height: side, shadows: true, body, water: smooth_water };
    let image = render_smooth(&collider, &view, &bar, &rays);
    let time = t.elapsed();
    bar.finish_and_clear();
    write_png(&args.out.join("tunnel_closeup.png"), side, side, &image)?;
    table.push(Row {
        stage: "close-up render (shadows)".into(),
        time,
        items: rays.load(Ordering::Relaxed) as u64,
        unit: "rays",
        memory: collider.cache_stats().bytes,
        note: close_note.clone(),
    });
    pictures.push(("tunnel_closeup.png", close_caption));

    // ---- 9. convex-hacd on a real mesh ----------------------------------------------------------------
    let bar = progress("convex-hacd", 1);
    let t = Instant::now();
    let parts = decompose(&mesh, &DecomposeOptions::default())?;
    let time = t.elapsed();
    bar.finish_and_clear();
    let mesh_name = args.mesh.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    if parts.hulls.is_empty() {
        return Err(format!("--mesh {}: convex-hacd found no hull in it", args.mesh.display()).into());
    }
    let hull_vertices: usize = parts.hulls.iter().map(|h| h.vertices.len()).sum();
    table.push(Row {
        stage: "convex-hacd (testdata mesh)".into(),
        time,
        items: mesh.triangle_count() as u64,
        unit: "triangles",
        memory: parts.hulls.iter().map(|h| h.vertices.len() * 12 + h.triangles.len() * 12).sum(),
        note: format!("{mesh_name}: {} hulls, {hull_vertices} hull vertices", parts.hulls.len()),
    });
    let side = image_side / 2;
    render_hulls(&parts.hulls, &mesh, &args.out.join("decomposition.png"), side)?;
    pictures.push((
        "decomposition.png",
        format!(
            "convex-hacd on {mesh_name} ({} triangles): {} convex hulls, one colour per hull.",
            mesh.triangle_count(),
            parts.hulls.len()
        ),
    ));

    // ---- summary -----------------------------------------------------------------------------------
    let cache = collider.cache_stats();
    let total = started.elapsed();
    let title = format!(
        "World {}x{}x{}, seed {}, {threads} threads, total {}.",
        args.size.x,
        args.size.y,
        args.size.z,
        args.seed,
        human_time(total)
    );
    let rss = peak_rss().map_or_else(|| "not known here".to_owned(), human_bytes);
    let closing = [
        format!(
            "Narrowphase cache at the end: {} chunks, {} ({} triangles, {:.1} B per triangle with the trees and the \
             table), peak {} of the {} bound.",
            cache.entries,
            human_bytes(cache.bytes),
            human_count(cache.triangles as f64),
            cache.bytes as f64 / cache.triangles.max(1) as f64,
            human_bytes(cache.peak_bytes),
            human_bytes(cache.limit)
        ),
        format!("Peak resident memory of the whole run: {rss}."),
    ];
    let mut report = format!("# voxel-physics demo\n\n{title}\n\n");
    report.push_str(&table.markdown());
    report.push('\n');
    for line in &closing {
        let _ = writeln!(report, "{line}");
    }
    report.push_str("\n## Pictures\n\n");
    for (file, caption) in &pictures {
        let _ = writeln!(report, "- `{file}`: {caption}");
    }
    std::fs::write(args.out.join("report.md"), &report)?;
    std::fs::write(args.out.join("index.html"), html_page(&title, &pictures, &table, &closing))?;
    println!(
        "\nnarrowphase cache: {} chunks, {} now ({:.1} B per triangle), peak {} (bound {}); off-surface seam normals: \
         {off_surface}",
        cache.entries,
        human_bytes(cache.bytes),
        cache.bytes as f64 / cache.triangles.max(1) as f64,
        human_bytes(cache.peak_bytes),
        human_bytes(cache.limit)
    );
    println!("peak resident memory of the run: {rss}");
    println!(
        "total {}; wrote terrain_smooth.png, terrain_blocky.png, tunnel_closeup.png, decomposition.png, report.md and \
         index.html (the pictures with their captions and this table) to {}",
        human_time(total),
        args.out.display()
    );
    Ok(())
}

/// `text` with the characters HTML gives a meaning escaped.
/// Shape casts: every object's shape swept 8 voxels down at a slant (a batch on every core), and
/// the seam check's shapes slid 16 voxels sideways over the flat pad's chunk seams, where any hit
/// would be a snag.
fn sweep_stage(collider: &TerrainCollider, shapes: &[(u32, Shape<'_>)], seam: &[Shape<'_>]) -> Result<Row, Error> {
    let casts: Vec<ShapeCast<'_>> =
        shapes.iter().map(|(_, shape)| ShapeCast { shape: *shape, motion: Vec3::new(0.3, -1.0, 0.2) * 8.0 }).collect();
    let options = CastOptions { max_t: 1.0, skin: 0.02, ..CastOptions::default() };
    let bar = progress("shape casts", casts.len() as u64);
    let t = Instant::now();
    let mut out = Vec::new();
    collider.cast_shapes(&casts, &options, &mut out);
    let time = t.elapsed();
    bar.finish_and_clear();
    let mut hits = 0;
    for r in &out {
        hits += usize::from(r.as_ref().map_err(|e| format!("shape cast: {e}"))?.is_some());
    }
    let mut scratch = CastScratch::new();
    let (mut slides, mut snags) = (0, 0);
    for shape in seam {
        for motion in [Vec3::X * 16.0, Vec3::Z * 16.0, Vec3::new(11.3, 0.0, -11.3)] {
            // The seam shapes are pressed 0.02-0.05 into the pad: lifted to rest on it.
            let lifted = match shape {
                Shape::Sphere(_) => shape.translated(Vec3::Y * 0.05),
                Shape::Cuboid(_) => shape.translated(Vec3::Y * 0.03),
                _ => shape.translated(Vec3::Y * 0.02),
            };
            slides += 1;
            snags += usize::from(collider.cast_shape(&lifted, motion, &options, &mut scratch)?.is_some());
        }
    }
    Ok(Row {
        stage: "shape casts (sweeps)".into(),
        time,
        items: casts.len() as u64,
        unit: "casts",
        memory: 0,
        note: format!(
            "{hits} of {} landed (8 voxels down at a slant, skin 0.02); seam check: {snags} snags in {slides} \
             slides of 16 voxels across the flat pad's chunk seams",
            casts.len()
        ),
    })
}

fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// The page beside the pictures: each picture with its caption, then the stage table.
fn html_page(title: &str, pictures: &[(&str, String)], table: &Table, closing: &[String]) -> String {
    let mut page = format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>voxel-physics demo</title>\n\
         <style>body{{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}}\
         figure{{margin:2em 0}}img{{max-width:100%}}figcaption{{margin-top:.5em}}\
         table{{border-collapse:collapse;font-size:90%}}td,th{{border:1px solid #ccc;padding:.2em .5em}}\
         td.n{{text-align:right;white-space:nowrap}}</style>\n</head>\n<body>\n<h1>voxel-physics demo</h1>\n<p>{}</p>\n",
        escape_html(title)
    );
    for (file, caption) in pictures {
        let _ = writeln!(
            page,
            "<figure>\n<img src=\"{file}\" alt=\"{file}\">\n<figcaption>{}</figcaption>\n</figure>",
            escape_html(caption)
        );
    }
    page.push_str("<h2>Stages</h2>\n<table>\n<tr><th>stage</th><th>time</th><th>items</th><th>items/s</th><th>memory</th><th>notes</th></tr>\n");
    for r in &table.rows {
        let _ = writeln!(
            page,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{} {}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td></tr>",
            escape_html(&r.stage),
            human_time(r.time),
            human_count(r.items as f64),
            r.unit,
            rate(r),
            human_bytes(r.memory),
            escape_html(&r.note)
        );
    }
    page.push_str("</table>\n");
    for line in closing {
        let _ = writeln!(page, "<p>{}</p>", escape_html(line));
    }
    page.push_str("</body>\n</html>\n");
    page
}

/// The process's peak resident set (Linux's `VmHWM`), when the system says.
fn peak_rss() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Renders the hulls of a decomposition, each in its own colour, by ray casts against a kD tree
/// over all hull triangles (material = hull index).
fn render_hulls(hulls: &[convex_hacd::ConvexHull], source: &IndexedMesh, path: &Path, side: u32) -> Result<(), Error> {
    let mut positions = Vec::new();
    let mut triangles = Vec::new();
    let mut owner = Vec::new();
    for (i, h) in hulls.iter().enumerate() {
        let base = positions.len() as u32;
        positions.extend_from_slice(&h.vertices);
        triangles.extend(h.triangles.iter().map(|t| t.map(|v| v + base)));
        owner.extend(std::iter::repeat_n(i as u32, h.triangles.len()));
    }
    let mesh = IndexedMesh::new(positions, triangles)?;
    let tree = KdTree::build(&mesh)?;
    let bounds = source.aabb();
    let centre = bounds.center();
    let radius = bounds.size().length() * 0.5;
    let camera = Camera::look_at(centre + Vec3::new(0.9, 0.55, 1.3).normalize() * radius * 2.6, centre, 40.0);
    let sun = SUN.normalize();
    let mut image = vec![0u8; (side * side * 3) as usize];
    image.par_chunks_mut((side * 3) as usize).enumerate().for_each_init(Scratch::new, |scratch, (y, row)| {
        for x in 0..side {
            let ray = camera.ray(x, y as u32, side, side);
            let colour = match tree.cast_ray(&mesh, &ray, f32::INFINITY, scratch) {
                None => [245, 245, 245],
                Some(hit) => {
                    let [a, b, c] = mesh.triangle_positions(hit.triangle);
                    let mut n = (b - a).cross(c - a).normalize_or_zero();
                    if n.dot(ray.dir) > 0.0 {
                        n = -n;
                    }
                    let base = hull_colour(owner[hit.triangle as usize]);
                    to_rgb(base * (0.35 + 0.65 * n.dot(sun).max(0.0)) + Vec3::splat(0.05))
                }
            };
            row[(x * 3) as usize..(x * 3 + 3) as usize].copy_from_slice(&colour);
        }
    });
    write_png(path, side, side, &image)
}

/// Well-separated colours by golden-ratio hue steps.
fn hull_colour(i: u32) -> Vec3 {
    let h = (i as f32 * 0.618_034).fract() * 6.0;
    let x = 1.0 - (h % 2.0 - 1.0).abs();
    let (r, g, b) = match h as u32 {
        0 => (1.0, x, 0.0),
        1 => (x, 1.0, 0.0),
        2 => (0.0, 1.0, x),
        3 => (0.0, x, 1.0),
        4 => (x, 0.0, 1.0),
        _ => (1.0, 0.0, x),
    };
    Vec3::new(r, g, b) * 0.75 + Vec3::splat(0.2)
}
