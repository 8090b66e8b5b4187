//! One function per stage of the demo, in the order the demo runs them. Each times its work,
//! adds its row to the table (which prints it) and its picture, if it draws one, to the report.

use std::time::Duration;

use convex_hacd::{DecomposeOptions, decompose};
use glam::{IVec3, Vec3};
use rayon::prelude::*;
use voxel_core::{Aabb, Contact, IndexedMesh, Ray, TriangleSource};
use voxel_kdtree::KdTree;
use voxel_physics::{
    Brush, CastOptions, CastScratch, ColliderOptions, ContactOptions, ContactScratch, EditOutcome, Island,
    IslandOptions, IslandShape, PairKind, Shape, ShapeCast, TerrainCollider, VoxelStore,
};
use voxel_store::generate::{self, Terrain, materials};

use crate::render::{self, Body, Camera, View, Water};
use crate::report::{Report, Row, Timer, human_bytes, human_count, human_time, peak_rss};
use crate::scene::{self, Pad};
use crate::{Args, Demo, Error, size_label};

/// Generates the terrain, hillier than the generator's default so the pictures have relief.
/// Returns the store and the water level the generator filled to.
pub(crate) fn generate_terrain(args: &Args, report: &mut Report) -> Result<(VoxelStore, Option<f32>), Error> {
    let params =
        Terrain { amplitude: 0.32 * args.size.y as f32, frequency: 1.0 / 110.0, ..Terrain::new(args.size, args.seed) };
    let timer = Timer::start("generate terrain", 1);
    let mut store = generate::terrain(&params)?;
    store.compact();
    let time = timer.stop();
    let mem = store.memory();
    report.push(Row {
        stage: "generate terrain".into(),
        time,
        items: args.world().volume(),
        unit: "voxels",
        memory: mem.bytes,
        note: format!("{} store chunks, {:.2} B/voxel", store.chunk_count(), mem.bytes_per_voxel(args.world())),
    });
    Ok((store, params.water_level))
}

/// Builds the collider over the store: the broadphase's chunk bits and the occupancy bits.
pub(crate) fn build_collider(store: VoxelStore, args: &Args, report: &mut Report) -> Result<TerrainCollider, Error> {
    let timer = Timer::start("broadphase + occupancy build", 1);
    let collider = TerrainCollider::new(store, args.world(), ColliderOptions { cache_bytes: args.cache_bytes })?;
    let time = timer.stop();
    let bp = collider.broadphase().memory();
    let occ = collider.occupancy().heap_bytes();
    report.push(Row {
        stage: "broadphase + occupancy build".into(),
        time,
        items: args.world().grow(1).chunk_keys(8).volume(),
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
    Ok(collider)
}

/// Makes the flat pad with three brushes: clears the air above it, lays a rock slab, and paints
/// its top rock.
pub(crate) fn edit_flat_pad(demo: &mut Demo<'_>) -> Result<(), Error> {
    let Pad { center, top, half } = demo.pad;
    let collider = &mut demo.collider;
    let timer = Timer::start("edit: flat pad", 3);
    let air = Brush::Box { center: center + Vec3::Y * (top + 20.0), half_extents: Vec3::new(half, 20.0, half) };
    let clear = collider.subtract(&air)?;
    timer.bar.inc(1);
    let slab = Brush::Box { center: center + Vec3::Y * (top - 8.0), half_extents: Vec3::new(half, 8.0, half) };
    let slab = collider.add(&slab, materials::ROCK)?;
    let skin =
        Brush::Box { center: center + Vec3::Y * (top - 1.0), half_extents: Vec3::new(half + 1.0, 3.0, half + 1.0) };
    let paint = collider.paint(&skin, materials::ROCK)?;
    let time = timer.stop();
    let edits = [clear, slab, paint];
    demo.report.push(Row {
        stage: "edit: flat pad (3 brushes)".into(),
        time,
        items: edits.iter().map(|e| e.report.changed_voxels).sum(),
        unit: "voxels",
        memory: collider.store().memory().bytes,
        note: format!("{} broadphase chunks rebuilt", edits.iter().map(|e| e.rebuilt_chunks).sum::<usize>()),
    });
    Ok(())
}

/// The scattered objects: their boxes (object `id`'s at index `id`), and the ids of those whose
/// broadphase pairs include a partly solid chunk.
pub(crate) struct Objects {
    pub(crate) boxes: Vec<Aabb>,
    pub(crate) touching_solid: Vec<u32>,
}

/// Scatters the objects and inserts them into the broadphase, which pairs them with chunks.
pub(crate) fn insert_objects(demo: &mut Demo<'_>) -> Result<Objects, Error> {
    let count = demo.args.objects;
    let collider = &mut demo.collider;
    let boxes = scene::scatter_boxes(collider, &mut demo.rng, demo.args.size.as_vec3(), count);
    let timer = Timer::start("insert objects", count as u64);
    let mut events = Vec::new();
    for (id, b) in boxes.iter().enumerate() {
        collider.insert_object(id as u32, *b, &mut events)?;
        timer.bar.inc(1);
    }
    let time = timer.stop();
    let added = |kind| events.iter().filter(|e| e.added && e.kind == kind).count();
    let touching_solid: Vec<u32> = (0..count as u32)
        .filter(|&id| collider.object_pairs(id).is_some_and(|p| p.iter().any(|h| h.solid && !h.full)))
        .collect();
    // Each object's pairs, and its record beside them: its box and its pair list's header (48 B).
    let pair_bytes: usize = (0..count as u32).map(|id| collider.object_pairs(id).map_or(0, size_of_val) + 48).sum();
    demo.report.push(Row {
        stage: format!("{}k objects + broadphase pairs", count / 1000),
        time,
        items: count as u64,
        unit: "objects",
        memory: pair_bytes,
        note: format!(
            "{} solid + {} water pairs, {} objects touch solid",
            added(PairKind::Solid),
            added(PairKind::Water),
            touching_solid.len()
        ),
    });
    Ok(Objects { boxes, touching_solid })
}

/// Contacts of every object shape that touches solid terrain (a batch on every core), then the
/// seam check. Returns the seam check's count of off-surface normals, which must be 0.
pub(crate) fn contacts(demo: &mut Demo<'_>, shapes: &[(u32, Shape<'_>)], seam: &[Shape<'_>]) -> Result<usize, Error> {
    let collider = &demo.collider;
    let options = ContactOptions { contact_distance: 0.05, ..ContactOptions::default() };
    let timer = Timer::start("contacts", shapes.len() as u64);
    let bar = &timer.bar;
    // (contacts, candidate triangles) per shape.
    let per_object: Vec<(usize, usize)> = shapes
        .par_iter()
        .map_init(
            || (ContactScratch::new(), Vec::<Contact>::new()),
            |(scratch, contacts), (id, shape)| {
                contacts.clear();
                let report = collider.object_contacts(*id, shape, &options, scratch, contacts);
                bar.inc(1);
                report.map_or((0, 0), |r| (contacts.len(), r.candidates))
            },
        )
        .collect();
    let time = timer.stop();
    let contact_count: usize = per_object.iter().map(|c| c.0).sum();
    let candidate_count: usize = per_object.iter().map(|c| c.1).sum();
    let touching = per_object.iter().filter(|c| c.0 > 0).count();
    let (seam_contacts, off_surface) = seam_contacts(collider, seam, &options)?;
    demo.report.push(Row {
        stage: "contacts for all solid pairs".into(),
        time,
        items: shapes.len() as u64,
        unit: "shapes",
        memory: collider.cache_stats().bytes,
        note: format!(
            "{contact_count} contacts on {touching} shapes from {candidate_count} candidate triangles; \
             seam check: {seam_contacts} contacts of {} shapes on the flat pad, {off_surface} off-surface normals",
            seam.len()
        ),
    });
    Ok(off_surface)
}

/// The contacts of the shapes resting on the flat pad across its chunk seams, and how many of
/// them have a normal that is not straight up (a seam showing through).
fn seam_contacts(
    collider: &TerrainCollider,
    seam: &[Shape<'_>],
    options: &ContactOptions,
) -> Result<(usize, usize), Error> {
    let mut scratch = ContactScratch::new();
    let mut contacts = Vec::new();
    let (mut count, mut off_surface) = (0, 0);
    for shape in seam {
        contacts.clear();
        collider.contacts(shape, options, &mut scratch, &mut contacts)?;
        count += contacts.len();
        off_surface += contacts.iter().filter(|c| c.normal.dot(Vec3::Y) < 0.999).count();
    }
    Ok((count, off_surface))
}

/// Shape casts: every object's shape swept 8 voxels down at a slant (a batch on every core), and
/// the seam check's shapes slid 16 voxels sideways over the flat pad's chunk seams, where any hit
/// would be a snag.
pub(crate) fn shape_casts(demo: &mut Demo<'_>, shapes: &[(u32, Shape<'_>)], seam: &[Shape<'_>]) -> Result<(), Error> {
    let collider = &demo.collider;
    let casts: Vec<ShapeCast<'_>> =
        shapes.iter().map(|(_, shape)| ShapeCast { shape: *shape, motion: Vec3::new(0.3, -1.0, 0.2) * 8.0 }).collect();
    let options = CastOptions { max_t: 1.0, skin: 0.02, ..CastOptions::default() };
    let timer = Timer::start("shape casts", casts.len() as u64);
    let mut out = Vec::new();
    collider.cast_shapes(&casts, &options, &mut out);
    let time = timer.stop();
    let mut hits = 0;
    for r in &out {
        hits += usize::from(r.as_ref().map_err(|e| format!("shape cast: {e}"))?.is_some());
    }
    let mut scratch = CastScratch::new();
    let Pad { center, top, half } = demo.pad;
    // Slides run up to 16 voxels past the pad's edge, where uncut terrain may stand higher (its
    // smooth foot reaches a voxel into the square): a hit there is a wall, not a snag. A snag is
    // a hit on the pad's top, away from its edges.
    let on_pad =
        |p: Vec3| (p.x - center.x).abs() < half - 1.5 && (p.z - center.z).abs() < half - 1.5 && (p.y - top).abs() < 0.1;
    let (mut slides, mut snags, mut walls) = (0, 0, 0);
    for shape in seam {
        for motion in [Vec3::X * 16.0, Vec3::Z * 16.0, Vec3::new(11.3, 0.0, -11.3)] {
            // The seam shapes are pressed 0.02-0.05 into the pad: lifted to rest on it.
            let lifted = match shape {
                Shape::Sphere(_) => shape.translated(Vec3::Y * 0.05),
                Shape::Cuboid(_) => shape.translated(Vec3::Y * 0.03),
                _ => shape.translated(Vec3::Y * 0.02),
            };
            slides += 1;
            if let Some(hit) = collider.cast_shape(&lifted, motion, &options, &mut scratch)? {
                if on_pad(hit.hit.point) { snags += 1 } else { walls += 1 }
            }
        }
    }
    demo.report.push(Row {
        stage: "shape casts (sweeps)".into(),
        time,
        items: casts.len() as u64,
        unit: "casts",
        memory: 0,
        note: format!(
            "{hits} of {} landed (8 voxels down at a slant, skin 0.02); seam check: {snags} snags in {slides} \
             slides of 16 voxels across the flat pad's chunk seams ({walls} stopped by terrain past its edge)",
            casts.len()
        ),
    });
    Ok(())
}

/// The camera of the two overview pictures: high over one corner, looking across the world.
fn overview_camera(size: IVec3) -> Camera {
    let size = size.as_vec3();
    Camera::look_at(
        Vec3::new(-0.25 * size.x, 1.6 * size.y + 0.2 * size.x, -0.25 * size.z),
        Vec3::new(0.55 * size.x, 0.3 * size.y, 0.55 * size.z),
        55.0,
    )
}

/// The overview drawn with the collider's own ray casts on the smooth surface, with shadows: the
/// ray-cast stage, and the narrowphase cache's first real load.
pub(crate) fn smooth_render(demo: &mut Demo<'_>) -> Result<(), Error> {
    let (args, collider) = (demo.args, &demo.collider);
    let (side, camera) = (args.image_side, overview_camera(args.size));
    let timer = Timer::start("ray casts (smooth render)", u64::from(side));
    let water = demo.water_level.map(Water::smooth);
    let view = View { camera: &camera, width: side, height: side, shadows: true, body: None, water };
    let (image, rays) = render::render_smooth(collider, &view, &timer.bar);
    let time = timer.stop();
    render::write_png(&args.out.join("terrain_smooth.png"), side, side, &image)?;
    let water_note = if water.is_some() {
        " The water is drawn where a ray meets the water level over a water voxel (the collider's queries see only \
         solid voxels), the ground showing through the shallows."
    } else {
        ""
    };
    demo.report.picture(
        "terrain_smooth.png",
        format!(
            "The generated {} world (seed {}), drawn with the collider's own ray casts on the smooth surface: \
             {} rays, one per pixel and a shadow ray towards the sun per hit.{water_note}",
            size_label(args.size),
            args.seed,
            human_count(rays as f64)
        ),
    );
    let cache = collider.cache_stats();
    demo.report.push(Row {
        stage: format!("{} ray casts (smooth render)", human_count(rays as f64)),
        time,
        items: rays,
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
    Ok(())
}

/// Particles falling for one second, marched as one straight step each over the blocky view.
pub(crate) fn march_particles(demo: &mut Demo<'_>) {
    let count = demo.args.particles;
    let casts = scene::particles(&mut demo.rng, demo.args.size.as_vec3(), count);
    let timer = Timer::start("particles marched", 1);
    let mut marched = Vec::new();
    demo.collider.raymarch_batch(&casts, &mut marched);
    let time = timer.stop();
    let landed = marched.iter().filter(|h| h.is_some()).count();
    demo.report.push(Row {
        stage: format!("{}k particles marched", count / 1000),
        time,
        items: count as u64,
        unit: "rays",
        memory: demo.collider.occupancy().heap_bytes(),
        note: format!("{landed} landed within one step (blocky view, voxel-raymarch)"),
    });
}

/// The overview again as voxels: voxel-raymarch over the occupancy bits, with shadows.
pub(crate) fn blocky_render(demo: &mut Demo<'_>) -> Result<(), Error> {
    let (args, collider) = (demo.args, &demo.collider);
    let (side, camera) = (args.image_side, overview_camera(args.size));
    let timer = Timer::start("blocky render", u64::from(side));
    let water = demo.water_level.map(Water::blocky);
    let view = View { camera: &camera, width: side, height: side, shadows: true, body: None, water };
    let (image, rays) = render::render_blocky(collider, &view, &timer.bar);
    let time = timer.stop();
    render::write_png(&args.out.join("terrain_blocky.png"), side, side, &image)?;
    demo.report.picture(
        "terrain_blocky.png",
        format!(
            "The same world as voxels (the blocky view): voxel-raymarch over the occupancy bits, no mesh, {} rays.",
            human_count(rays as f64)
        ),
    );
    demo.report.push(Row {
        stage: "blocky render (voxel-raymarch)".into(),
        time,
        items: rays,
        unit: "rays",
        memory: (side * side * 3) as usize,
        note: "a primary ray per pixel, a shadow ray per hit".into(),
    });
    Ok(())
}

/// What the tunnel stage leaves for the close-up: where it dug, whether the tunnel is open, and
/// the islands the cut detached.
pub(crate) struct Tunnel {
    /// The wall's centre on the ground plane (`y` is 0).
    site: Vec3,
    /// Ground height at the site, where the wall stands.
    ground: f32,
    open: bool,
    islands: Vec<Island>,
}

/// A rock wall on the ground with a tunnel bored through it, and a boulder on a stalk standing
/// on the wall; a second, narrower bore cuts the stalk and the boulder is an island.
pub(crate) fn edit_tunnel_and_island(demo: &mut Demo<'_>) -> Result<Tunnel, Error> {
    let size = demo.args.size.as_vec3();
    let collider = &mut demo.collider;
    let site = Vec3::new(0.62 * size.x, 0.0, 0.3 * size.z).round();
    let ground = scene::ground(collider, site.x, site.z).unwrap_or(0.5 * size.y).round();
    let timer = Timer::start("edit: tunnel + island", 6);
    let (islands, changed) = dig_tunnel(collider, site, ground, &timer)?;
    let time = timer.stop();
    collider.compact();
    // The tunnel is open: a ray along its axis crosses the wall without a hit.
    let probe = Ray::new(Vec3::new(site.x - 2.0, ground + 4.0, site.z - 7.0), Vec3::Z);
    let open = collider.raycast(&probe, 14.0).is_none();
    let island_note = islands.first().map_or("no island".to_owned(), |i| {
        format!(
            "island of {} voxels, {} triangles, hull of {} vertices",
            i.voxels.len(),
            i.mesh.triangle_count(),
            i.hull.as_ref().map_or(0, |h| h.vertices.len())
        )
    });
    demo.report.push(Row {
        stage: "edit: tunnel + detach island".into(),
        time,
        items: changed,
        unit: "voxels",
        memory: islands.iter().map(|i| i.mesh.positions().len() * 12 + i.mesh.triangle_count() * 13).sum(),
        note: format!(
            "6 edits; {} detached ({island_note}); tunnel {}; {} cached chunks invalidated so far",
            islands.len(),
            if open { "open" } else { "blocked" },
            collider.cache_stats().invalidations
        ),
    });
    Ok(Tunnel { site, ground, open, islands })
}

/// The tunnel stage's six edits and the island detachment. Returns the islands and the voxels
/// changed in all.
fn dig_tunnel(collider: &mut TerrainCollider, site: Vec3, g: f32, timer: &Timer) -> Result<(Vec<Island>, u64), Error> {
    let stalk_at = Vec3::new(site.x + 12.0, g + 18.0, site.z);
    let tunnel_y = g + 4.0;
    let mut changed = 0;
    let mut edit = |outcome: EditOutcome| {
        changed += outcome.report.changed_voxels;
        timer.bar.inc(1);
        outcome
    };
    edit(collider.add(
        &Brush::Box { center: Vec3::new(site.x, g + 8.0, site.z), half_extents: Vec3::new(24.0, 11.0, 5.0) },
        materials::ROCK,
    )?);
    edit(collider.add(&Brush::Capsule { a: stalk_at, b: stalk_at + Vec3::Y * 12.0, radius: 1.8 }, materials::ROCK)?);
    edit(collider.add(&Brush::Sphere { center: stalk_at + Vec3::Y * 15.0, radius: 6.0 }, materials::DIRT)?);
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
    Ok((islands, changed + removal.report.changed_voxels))
}

/// A close look at the edit, with shadows; the detached boulder drawn as a free body, fallen a
/// little and tinted.
pub(crate) fn close_up_render(demo: &mut Demo<'_>, tunnel: &Tunnel) -> Result<(), Error> {
    let (site, g) = (tunnel.site, tunnel.ground);
    let camera = Camera::look_at(
        Vec3::new(site.x - 32.0, g + 30.0, site.z - 50.0),
        Vec3::new(site.x + 2.0, g + 12.0, site.z),
        55.0,
    );
    let island = tunnel.islands.first();
    let island_tree = island.map(|i| KdTree::build(&i.mesh)).transpose()?;
    let body = island.zip(island_tree.as_ref()).map(|(i, tree)| Body {
        mesh: &i.mesh,
        tree,
        offset: Vec3::new(0.0, -5.0, -2.0),
        colour: Vec3::new(0.85, 0.45, 0.2),
    });
    let side = demo.args.image_side / 8 * 5;
    let timer = Timer::start("close-up render", u64::from(side));
    let water = demo.water_level.map(Water::smooth);
    let view = View { camera: &camera, width: side, height: side, shadows: true, body, water };
    let (image, rays) = render::render_smooth(&demo.collider, &view, &timer.bar);
    let time = timer.stop();
    render::write_png(&demo.args.out.join("tunnel_closeup.png"), side, side, &image)?;
    let (note, caption) = close_up_text(tunnel);
    demo.report.push(Row {
        stage: "close-up render (shadows)".into(),
        time,
        items: rays,
        unit: "rays",
        memory: demo.collider.cache_stats().bytes,
        note,
    });
    demo.report.picture("tunnel_closeup.png", caption);
    Ok(())
}

/// The close-up's table note and caption, from what happened (a small or odd world may leave the
/// tunnel blocked or detach no island).
fn close_up_text(tunnel: &Tunnel) -> (String, String) {
    let bore = if tunnel.open {
        "a tunnel bored through a rock wall (a ray along its axis crosses the wall)"
    } else {
        "a rock wall whose tunnel is still blocked (a ray along its axis hits rock)"
    };
    match tunnel.islands.first() {
        Some(i) => (
            "after the edits: the tunnel, and the detached boulder as a free body".to_owned(),
            format!(
                "After the edits: {bore}, and a boulder whose stalk was cut: the detached island ({} voxels, its \
                 mesh of {} triangles) drawn in orange as a free body, 5 voxels below where it was.",
                i.voxels.len(),
                i.mesh.triangle_count()
            ),
        ),
        None => (
            "after the edits: the tunnel; the cut detached no island".to_owned(),
            format!(
                "After the edits: {bore}. Cutting the boulder's stalk detached no island here (0 islands), so no \
                 free body is drawn."
            ),
        ),
    }
}

/// convex-hacd on the mesh of `--mesh`, and a picture of its hulls.
pub(crate) fn decompose_mesh(demo: &mut Demo<'_>, mesh: &IndexedMesh) -> Result<(), Error> {
    let args = demo.args;
    let timer = Timer::start("convex-hacd", 1);
    let parts = decompose(mesh, &DecomposeOptions::default())?;
    let time = timer.stop();
    let mesh_name = args.mesh.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    if parts.hulls.is_empty() {
        return Err(format!("--mesh {}: convex-hacd found no hull in it", args.mesh.display()).into());
    }
    let hull_vertices: usize = parts.hulls.iter().map(|h| h.vertices.len()).sum();
    demo.report.push(Row {
        stage: "convex-hacd (testdata mesh)".into(),
        time,
        items: mesh.triangle_count() as u64,
        unit: "triangles",
        memory: parts.hulls.iter().map(|h| h.vertices.len() * 12 + h.triangles.len() * 12).sum(),
        note: format!("{mesh_name}: {} hulls, {hull_vertices} hull vertices", parts.hulls.len()),
    });
    render::render_hulls(&parts.hulls, mesh, &args.out.join("decomposition.png"), args.image_side / 2)?;
    demo.report.picture(
        "decomposition.png",
        format!(
            "convex-hacd on {mesh_name} ({} triangles): {} convex hulls, one colour per hull.",
            mesh.triangle_count(),
            parts.hulls.len()
        ),
    );
    Ok(())
}

/// Writes `report.md` and `index.html` and prints the closing lines: the narrowphase cache at the
/// end, the seam check's verdict, the peak memory and the total time.
pub(crate) fn summary(demo: &Demo<'_>, total: Duration, threads: usize, off_surface: usize) -> Result<(), Error> {
    let args = demo.args;
    let cache = demo.collider.cache_stats();
    let title =
        format!("World {}, seed {}, {threads} threads, total {}.", size_label(args.size), args.seed, human_time(total));
    let rss = peak_rss().map_or_else(|| "not known here".to_owned(), human_bytes);
    let per_triangle = cache.bytes as f64 / cache.triangles.max(1) as f64;
    let closing = [
        format!(
            "Narrowphase cache at the end: {} chunks, {} ({} triangles, {per_triangle:.1} B per triangle with the \
             trees and the table), peak {} of the {} bound.",
            cache.entries,
            human_bytes(cache.bytes),
            human_count(cache.triangles as f64),
            human_bytes(cache.peak_bytes),
            human_bytes(cache.limit)
        ),
        format!("Peak resident memory of the whole run: {rss}."),
    ];
    demo.report.write(&args.out, &title, &closing)?;
    println!(
        "\nnarrowphase cache: {} chunks, {} now ({per_triangle:.1} B per triangle), peak {} (bound {}); off-surface \
         seam normals: {off_surface}",
        cache.entries,
        human_bytes(cache.bytes),
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
