//! `voxel-raymarch` benches beside parry3d's `Voxels` (8^3 chunks under a chunk BVH, a DDA per
//! chunk) built from the same solid voxels, and beside the seed's original walk that looks the
//! chunk up on every step (`baseline-lookup-per-step`). World: `voxel_store::generate::terrain`
//! 512x64x512, seed 1.

use std::hint::black_box;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group};
use glam::{IVec3, Vec3};
use parry3d::query::RayCast;
use parry3d::shape::Voxels;
use voxel_bench::{config, figure, workloads::Rng};
use voxel_core::{Phase, Ray, VoxelBox, VoxelSource};
use voxel_raymarch::{Cast, Occupancy};
use voxel_store::VoxelStore;
use voxel_store::generate::{self, Terrain};
use voxel_testdata::ByteCounter;

#[global_allocator]
static ALLOC: ByteCounter = ByteCounter::new();

const WORLD: IVec3 = IVec3::new(512, 64, 512);
/// Rays per set: enough to leave the caches cold between rays of a set, few enough that the
/// slowest set (parry's long rays) keeps a sample under a second.
const RAYS: usize = 10_000;

struct Scene {
    store: VoxelStore,
    occ: Occupancy,
    parry: Voxels,
    coords: Vec<IVec3>,
    /// Height of the first empty voxel of each column (x + 512 z).
    ground: Vec<i32>,
}

fn scene() -> Scene {
    scene_with(true)
}

/// The bench world; `with_parry: false` leaves parry's `Voxels` empty (for instruction counts
/// under valgrind, where building it takes minutes).
fn scene_with(with_parry: bool) -> Scene {
    // `RAYMARCH_SEED=<n>` generates another world (seed 1 by default), to check the figures on a
    // world they were not tuned on.
    let seed = std::env::var("RAYMARCH_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    let store = generate::terrain(&Terrain::new(WORLD, seed)).expect("valid parameters");
    let world = VoxelBox::new(IVec3::ZERO, WORLD);
    let mut buf = Vec::new();
    store.read_region(world, &mut buf).expect("2^24 voxels fit a read");
    let phases = store.phase_table();
    let coords: Vec<IVec3> =
        world.iter().zip(&buf).filter(|(_, v)| v.phase(phases) == Phase::Solid).map(|(p, _)| p).collect();
    let mut ground = vec![0; (WORLD.x * WORLD.z) as usize];
    for p in &coords {
        let g = &mut ground[(p.x + WORLD.x * p.z) as usize];
        *g = (*g).max(p.y + 1);
    }
    let occ = Occupancy::build(&store, world).expect("bounded world");
    let parry = Voxels::new(Vec3::ONE, if with_parry { &coords[..] } else { &coords[..1] });
    Scene { store, occ, parry, coords, ground }
}

/// A random unit direction whose y component lies in `-max_y..max_y`.
fn direction(rng: &mut Rng, max_y: f32) -> Vec3 {
    let y = rng.range(-max_y, max_y);
    let angle = rng.range(0.0, std::f32::consts::TAU);
    let r = (1.0 - y * y).sqrt();
    Vec3::new(r * angle.cos(), y, r * angle.sin())
}

/// A random point in the air (an empty voxel) of the world, below `top`.
fn air_point(rng: &mut Rng, s: &Scene, top: f32) -> Vec3 {
    loop {
        let p = Vec3::new(rng.range(0.0, 512.0), rng.range(0.0, top), rng.range(0.0, 512.0));
        if !s.occ.is_solid(p.floor().as_ivec3()) {
            return p;
        }
    }
}

/// Rays from particles resting on (or just above) the ground of random columns, in random
/// directions, `max_t` in `min_t..max_t`.
fn on_the_ground(rng: &mut Rng, s: &Scene, min_t: f32, max_t: f32) -> Vec<Cast> {
    (0..RAYS)
        .map(|_| {
            let (x, z) = (rng.range(1.0, 511.0), rng.range(1.0, 511.0));
            let y = s.ground[(x as i32 + WORLD.x * z as i32) as usize] as f32 + rng.range(0.01, 0.5);
            Cast { ray: Ray::new(Vec3::new(x, y, z), rng.direction()), max_t: rng.range(min_t, max_t) }
        })
        .collect()
}

fn ray_sets(s: &Scene) -> Vec<(&'static str, Vec<Cast>)> {
    let mut rng = Rng::new(42);
    let highest = s.ground.iter().copied().max().unwrap_or(0) as f32;
    let short = on_the_ground(&mut rng, s, 1.0, 10.0);
    // Particles at rest or crawling: the same kind of starts, moving less than a voxel in the
    // step (the seed's "start and end in the same voxel" exit, or one crossing). Own generator,
    // so the other sets stay as they were.
    let resting = on_the_ground(&mut Rng::new(43), s, 0.0, 1.0);
    let long = (0..RAYS)
        .map(|_| Cast { ray: Ray::new(air_point(&mut rng, s, 64.0), rng.direction()), max_t: rng.range(200.0, 400.0) })
        .collect();
    let near_horizontal = (0..RAYS)
        .map(|_| Cast {
            ray: Ray::new(air_point(&mut rng, s, 64.0), direction(&mut rng, 0.1)),
            max_t: rng.range(200.0, 400.0),
        })
        .collect();
    // Above the highest ground: every chunk and brick the ray crosses is empty.
    let clear_air = (0..RAYS)
        .map(|_| {
            let o = Vec3::new(rng.range(0.0, 512.0), rng.range(highest + 0.5, 64.0), rng.range(0.0, 512.0));
            Cast { ray: Ray::new(o, direction(&mut rng, 0.0)), max_t: rng.range(200.0, 400.0) }
        })
        .collect();
    // Horizontal rays one voxel above the ground of their column: through stored chunks, until a
    // hill stops them.
    let above_ground = (0..RAYS)
        .map(|_| {
            let (x, z) = (rng.range(1.0, 511.0), rng.range(1.0, 511.0));
            let y = s.ground[(x as i32 + WORLD.x * z as i32) as usize] as f32 + 0.5;
            Cast { ray: Ray::new(Vec3::new(x, y, z), direction(&mut rng, 0.0)), max_t: rng.range(200.0, 400.0) }
        })
        .collect();
    vec![
        ("short-1-10", short),
        ("resting-0-1", resting),
        ("long-random-200-400", long),
        ("long-near-horizontal-200-400", near_horizontal),
        ("clear-air-horizontal-200-400", clear_air),
        ("horizontal-above-ground-200-400", above_ground),
    ]
}

/// The seed's original walk: the same Amanatides-Woo steps (same crossing times, same ties), with
/// the chunk looked up for every voxel (`Occupancy::is_solid`) and no empty-space skipping. Returns
/// the hit voxel and the number of steps taken.
fn lookup_per_step(occ: &Occupancy, ray: &Ray, max_t: f32) -> (Option<IVec3>, u32) {
    seed_walk(occ, ray, max_t, |_| {})
}

/// [`lookup_per_step`]'s walk, calling `visit` with every voxel it enters (the hit included).
#[inline(always)]
fn seed_walk(occ: &Occupancy, ray: &Ray, max_t: f32, mut visit: impl FnMut(IVec3)) -> (Option<IVec3>, u32) {
    let world = occ.world();
    let o = ray.origin.to_array();
    let mut cell = ray.origin.floor().as_ivec3().to_array();
    if !world.contains(IVec3::from_array(cell)) {
        return (None, 0);
    }
    let (mut inv, mut step, mut plane, mut next) = ([0.0f32; 3], [0i32; 3], [0.0f32; 3], [f32::INFINITY; 3]);
    for a in 0..3 {
        let i = 1.0 / ray.dir[a];
        if i.is_finite() {
            inv[a] = i;
            step[a] = if i > 0.0 { 1 } else { -1 };
            plane[a] = (cell[a] + i32::from(i > 0.0)) as f32;
            next[a] = (plane[a] - o[a]) * inv[a];
        }
    }
    let mut steps = 0;
    loop {
        let p = IVec3::from_array(cell);
        if !world.contains(p) {
            return (None, steps);
        }
        visit(p);
        if occ.is_solid(p) {
            return (Some(p), steps);
        }
        let a = if next[0] <= next[1] {
            if next[0] <= next[2] { 0 } else { 2 }
        } else if next[1] <= next[2] {
            1
        } else {
            2
        };
        if !(next[a] <= max_t) {
            return (None, steps);
        }
        cell[a] += step[a];
        plane[a] += step[a] as f32;
        next[a] = (plane[a] - o[a]) * inv[a];
        steps += 1;
    }
}

fn parry_hit(voxels: &Voxels, c: &Cast) -> Option<IVec3> {
    let hit =
        voxels.cast_local_ray_and_get_normal(&parry3d::query::Ray::new(c.ray.origin, c.ray.dir), c.max_t, true)?;
    voxels.voxel_at_flat_id(hit.subshape)
}

fn rays(c: &mut Criterion) {
    let s = scene();
    let sets = ray_sets(&s);
    for &(name, ref set) in &sets {
        // Agreement and work per set, printed beside the timings.
        let ours: Vec<Option<IVec3>> = set.iter().map(|c| s.occ.cast(&c.ray, c.max_t).map(|h| h.voxel)).collect();
        let walked: Vec<(Option<IVec3>, u32)> = set.iter().map(|c| lookup_per_step(&s.occ, &c.ray, c.max_t)).collect();
        let parry: Vec<Option<IVec3>> = set.iter().map(|c| parry_hit(&s.parry, c)).collect();
        let hits = ours.iter().filter(|h| h.is_some()).count();
        let steps: u64 = walked.iter().map(|w| u64::from(w.1)).sum();
        figure(&format!("raymarch/{name}/hits"), hits as f64, &format!("of {}", set.len()));
        figure(&format!("raymarch/{name}/voxel-steps-per-ray"), steps as f64 / set.len() as f64, "");
        figure(
            &format!("raymarch/{name}/disagreements-with-baseline"),
            ours.iter().zip(&walked).filter(|(a, b)| **a != b.0).count() as f64,
            "",
        );
        figure(
            &format!("raymarch/{name}/disagreements-with-parry3d"),
            ours.iter().zip(&parry).filter(|(a, b)| a != b).count() as f64,
            "",
        );

        let mut group = c.benchmark_group("raymarch/rays");
        ours_and_parry(&mut group, &s, name, set);
        group.bench_with_input(BenchmarkId::new("baseline-lookup-per-step", name), &(), |b, ()| {
            b.iter(|| set.iter().filter(|c| lookup_per_step(&s.occ, black_box(&c.ray), c.max_t).0.is_some()).count());
        });
        group.finish();
    }

    // The above-ground rays at an eighth of their lengths, beside the full lengths above:
    // (full - eighth) / (the steps per ray they add) leaves out the per-ray setup and exit, not
    // the larger share of skipped voxels in the added stretch (`RAYMARCH_SLOPE` prints it for
    // more fractions, and per voxel walked).
    if let Some((_, above)) = sets.iter().find(|(name, _)| *name == "horizontal-above-ground-200-400") {
        let eighth = scaled(above, STEP_FRACTIONS[0]);
        let steps: u64 = eighth.iter().map(|c| u64::from(lookup_per_step(&s.occ, &c.ray, c.max_t).1)).sum();
        let name = "horizontal-above-ground-eighth-length";
        figure(&format!("raymarch/{name}/voxel-steps-per-ray"), steps as f64 / eighth.len() as f64, "");
        let mut group = c.benchmark_group("raymarch/rays");
        ours_and_parry(&mut group, &s, name, &eighth);
        group.finish();
    }

    // Rays per second with rayon on all cores: the long random set through `march`.
    let Some((_, long)) = sets.iter().find(|(name, _)| *name == "long-random-200-400") else { return };
    let mut out = Vec::new();
    let mut group = c.benchmark_group("raymarch/march");
    group.throughput(Throughput::Elements(long.len() as u64));
    group.bench_with_input(
        BenchmarkId::new("ours", format!("long-random-200-400/{}-threads", rayon::current_num_threads())),
        &(),
        |b, ()| b.iter(|| s.occ.march(black_box(long), &mut out)),
    );
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a pool");
    group.bench_with_input(BenchmarkId::new("ours", "long-random-200-400/1-thread"), &(), |b, ()| {
        b.iter(|| one.install(|| s.occ.march(black_box(long), &mut out)));
    });
    group.finish();
}

/// `set` cast by ours and by parry3d, as `ours/<name>` and `parry3d/<name>` in `group`.
fn ours_and_parry(group: &mut BenchmarkGroup<'_, WallTime>, s: &Scene, name: &str, set: &[Cast]) {
    group.throughput(Throughput::Elements(set.len() as u64));
    group.bench_with_input(BenchmarkId::new("ours", name), &(), |b, ()| {
        b.iter(|| set.iter().filter(|c| s.occ.cast(black_box(&c.ray), c.max_t).is_some()).count());
    });
    group.bench_with_input(BenchmarkId::new("parry3d", name), &(), |b, ()| {
        b.iter(|| set.iter().filter(|c| parry_hit(&s.parry, black_box(c)).is_some()).count());
    });
}

fn builds(c: &mut Criterion) {
    let s = scene();
    let world = VoxelBox::new(IVec3::ZERO, WORLD);
    let volume = world.volume() as f64;
    let solid = s.coords.len() as f64;
    figure("raymarch/build/solid-voxels", solid, "");
    let (occ, ours_bytes, _) = ALLOC.measure(|| Occupancy::build(&s.store, world).expect("bounded"));
    let (parry, parry_bytes, _) = ALLOC.measure(|| Voxels::new(Vec3::ONE, &s.coords));
    figure("raymarch/memory/ours/bytes-per-voxel-of-world", ours_bytes as f64 / volume, "B");
    figure("raymarch/memory/ours/bytes-per-solid-voxel", ours_bytes as f64 / solid, "B");
    let chunks = world.chunk_keys(voxel_raymarch::CHUNK_EDGE).volume();
    figure("raymarch/memory/ours/stored-chunks", occ.stored_chunks() as f64, &format!("of {chunks}"));
    figure("raymarch/memory/parry3d/bytes-per-voxel-of-world", parry_bytes as f64 / volume, "B");
    figure("raymarch/memory/parry3d/bytes-per-solid-voxel", parry_bytes as f64 / solid, "B");
    drop((occ, parry));

    let mut group = c.benchmark_group("raymarch/build");
    group.sample_size(10);
    group.throughput(Throughput::Elements(world.volume()));
    group.bench_with_input(BenchmarkId::new("ours", "512x64x512"), &(), |b, ()| {
        b.iter(|| Occupancy::build(&s.store, world).expect("bounded"));
    });
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a pool");
    group.bench_with_input(BenchmarkId::new("ours", "512x64x512/1-thread"), &(), |b, ()| {
        b.iter(|| one.install(|| Occupancy::build(&s.store, world).expect("bounded")));
    });
    // parry builds from the solid voxel list (collected beforehand, not timed); ours reads the store.
    group.bench_with_input(BenchmarkId::new("parry3d", "512x64x512"), &(), |b, ()| {
        b.iter(|| Voxels::new(Vec3::ONE, black_box(&s.coords)));
    });
    group.finish();
}

/// Same-process timing for a loaded machine (`RAYMARCH_PROBE=<trials>`, run the bench binary
/// directly): every set's casts one by one, the same set through `march` on a one-thread pool, and
/// parry3d, interleaved trial by trial; each figure is the minimum over the trials of one pass's
/// wall-clock time per ray (the least disturbed pass).
fn probe(trials: usize) {
    let s = scene();
    let sets = ray_sets(&s);
    // Everything runs on the one thread of this pool, so `march` works on the calling thread
    // (installing into a pool from outside waits for another thread to wake: several
    // nanoseconds per ray of a 10k set on a loaded machine).
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a pool");
    one.install(|| {
        let mut out = Vec::new();
        for (name, set) in &sets {
            // march must equal cast on every ray before its time means anything.
            s.occ.march(set, &mut out);
            let single: Vec<_> = set.iter().map(|c| s.occ.cast(&c.ray, c.max_t)).collect();
            assert!(out == single, "{name}: march differs from cast");
            let mut best = [f64::INFINITY; 3];
            for trial in 0..trials {
                let mut time = |k: usize, f: &mut dyn FnMut() -> usize| {
                    let start = std::time::Instant::now();
                    black_box(f());
                    best[k] = best[k].min(start.elapsed().as_secs_f64() * 1e9 / set.len() as f64);
                };
                time(0, &mut || count_casts(&s.occ, set));
                time(1, &mut || count_march(&s.occ, set, &mut out));
                // parry is 10-30x slower: a third of the trials keep its minimum honest and the
                // run short.
                if trial % 3 == 0 {
                    time(2, &mut || set.iter().filter(|c| parry_hit(&s.parry, black_box(c)).is_some()).count());
                }
            }
            println!(
                "probe {name:32} cast {:7.1} ns  march {:7.1} ns  parry3d {:7.1} ns per ray (one thread, min of {trials})",
                best[0], best[1], best[2]
            );
        }
    });
}

/// The above-ground rays with every `max_t` scaled by these fractions: the time they add per
/// voxel step they add leaves out the per-ray setup and exit.
const STEP_FRACTIONS: [f32; 5] = [0.125, 0.25, 0.5, 0.75, 1.0];

/// The above-ground set with its lengths scaled by `f` (see [`STEP_FRACTIONS`]).
fn scaled(set: &[Cast], f: f32) -> Vec<Cast> {
    set.iter().map(|c| Cast { ray: c.ray, max_t: c.max_t * f }).collect()
}

/// The cost of a voxel step (`RAYMARCH_SLOPE=<trials>`, run the bench binary directly): the
/// above-ground rays cast at fractions of their lengths ([`STEP_FRACTIONS`]), each pass timed as
/// in [`probe`] (minimum over the trials; parry3d in a third of them); per fraction the seed's
/// voxel steps per ray and the time per ray, then the time each longer fraction adds per voxel
/// step it adds, and per voxel of a brick with a solid voxel it adds (the ones walked one by
/// one). The per-ray average (time over steps) also carries the per-ray setup, the first chunk
/// and the exit; the added time does not, but the added stretch, farther from the start, has
/// more of its voxels in empty bricks, which the walk skips.
fn slope(trials: usize) {
    let s = scene();
    let sets = ray_sets(&s);
    let Some((_, set)) = sets.iter().find(|(name, _)| *name == "horizontal-above-ground-200-400") else { return };
    // The seed's steps include voxels of empty bricks, which the walk crosses in one skip; the
    // voxels of bricks with a solid voxel are the ones it steps through one by one.
    let edge = voxel_raymarch::BRICK_EDGE;
    let mut brick_empty: std::collections::HashMap<IVec3, bool> = Default::default();
    let mut walked = Vec::new();
    let mut crossings = Vec::new();
    let rows: Vec<(f32, f64, usize, Vec<Cast>)> = STEP_FRACTIONS
        .iter()
        .map(|&f| {
            let casts = scaled(set, f);
            let hits = casts.iter().filter(|c| s.occ.cast(&c.ray, c.max_t).is_some()).count();
            let (mut steps, mut in_bricks, mut chunk_changes) = (0u64, 0u64, 0u64);
            for c in &casts {
                let mut last_chunk = None;
                steps += u64::from(
                    seed_walk(&s.occ, &c.ray, c.max_t, |p| {
                        let min = p.div_euclid(IVec3::splat(edge)) * edge;
                        let empty = *brick_empty.entry(min).or_insert_with(|| box_is_empty(&s.occ, min, edge));
                        in_bricks += u64::from(!empty);
                        let chunk = p.div_euclid(IVec3::splat(voxel_raymarch::CHUNK_EDGE));
                        chunk_changes += u64::from(last_chunk.is_some_and(|k| k != chunk));
                        last_chunk = Some(chunk);
                    })
                    .1,
                );
            }
            let n = casts.len() as f64;
            walked.push(in_bricks as f64 / n);
            crossings.push(chunk_changes as f64 / n);
            (f, steps as f64 / n, hits, casts)
        })
        .collect();
    let mut best = vec![[f64::INFINITY; 2]; rows.len()];
    for trial in 0..trials {
        for (k, (_, _, _, casts)) in rows.iter().enumerate() {
            let start = std::time::Instant::now();
            black_box(count_casts(&s.occ, casts));
            best[k][0] = best[k][0].min(start.elapsed().as_secs_f64() * 1e9 / casts.len() as f64);
            if trial % 3 == 0 {
                let start = std::time::Instant::now();
                black_box(casts.iter().filter(|c| parry_hit(&s.parry, black_box(c)).is_some()).count());
                best[k][1] = best[k][1].min(start.elapsed().as_secs_f64() * 1e9 / casts.len() as f64);
            }
        }
    }
    for (k, (f, steps, hits, casts)) in rows.iter().enumerate() {
        println!(
            "slope length x{f:<5} {steps:6.1} steps/ray ({:5.1} in bricks with a solid voxel, {:4.2} chunk crossings), {hits:5} of {} hit: ours {:7.1} ns/ray ({:4.2} ns/step), parry3d {:7.1} ns/ray",
            walked[k],
            crossings[k],
            casts.len(),
            best[k][0],
            best[k][0] / steps,
            best[k][1]
        );
    }
    for k in 1..rows.len() {
        let added = rows[k].1 - rows[k - 1].1;
        println!(
            "slope x{} -> x{}: ours {:4.2} ns, parry3d {:5.2} ns per added voxel step (one thread, min of {trials})",
            rows[k - 1].0,
            rows[k].0,
            (best[k][0] - best[k - 1][0]) / added,
            (best[k][1] - best[k - 1][1]) / added
        );
    }
    let (first, last) = (0, rows.len() - 1);
    println!(
        "slope x{} -> x{}: ours {:4.2} ns per added voxel step, {:4.2} ns per added step in bricks with a solid voxel",
        rows[first].0,
        rows[last].0,
        (best[last][0] - best[first][0]) / (rows[last].1 - rows[first].1),
        (best[last][0] - best[first][0]) / (walked[last] - walked[first])
    );
}

criterion_group! {
    name = benches;
    config = config();
    targets = rays, builds
}

/// One pass of `march` and one of the single casts over one ray set (`RAYMARCH_COUNT=<set>`),
/// for instruction counts: `valgrind --tool=callgrind --toggle-collect='*count_casts*'` (or
/// `'*count_march*'`) on the bench binary.
fn count(set_name: &str) {
    let s = scene_with(false);
    let sets = ray_sets(&s);
    let Some((_, set)) = sets.iter().find(|(name, _)| *name == set_name) else {
        let names: Vec<&str> = sets.iter().map(|(name, _)| *name).collect();
        println!("no ray set {set_name}; the sets: {names:?}");
        return;
    };
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a pool");
    let mut out = Vec::new();
    let march_hits = one.install(|| count_march(&s.occ, set, &mut out));
    println!("{set_name}: march {march_hits} hits, cast {} hits", count_casts(&s.occ, set));
}

#[inline(never)]
fn count_casts(occ: &Occupancy, set: &[Cast]) -> usize {
    set.iter().filter(|c| occ.cast(black_box(&c.ray), c.max_t).is_some()).count()
}

#[inline(never)]
fn count_march(occ: &Occupancy, set: &[Cast], out: &mut Vec<Option<voxel_raymarch::RayHit>>) -> usize {
    occ.march(black_box(set), out);
    out.iter().filter(|h| h.is_some()).count()
}

/// The brick-size study (`RAYMARCH_BRICKS=1`, run the bench binary directly): for every ray set,
/// the voxels the seed's walk visits, split by what an empty-space skip with bricks of edge `e`
/// would do with them. Per ray: voxels in empty chunks (crossed by the chunk skip, whatever the
/// brick size), skips (one per visit of an empty brick of a stored chunk: the voxels of one
/// brick in a row are one skip) and steps (voxels in bricks with a solid voxel, walked one by
/// one). The walk's cost is about `steps * step + skips * skip`; the crate's figures give both.
/// Chunks and bricks are anchored at the origin here, as `Occupancy` anchors them at the world
/// box's minimum: the same grid for this bench's world, which starts at the origin.
fn brick_study() {
    let s = scene_with(false);
    let sets = ray_sets(&s);
    let edges = [2, 4, 8, 16];
    // Memo of brick emptiness per edge: the brick's minimum corner.
    let mut empty: Vec<std::collections::HashMap<IVec3, bool>> = vec![Default::default(); edges.len()];
    let mut chunk_empty: std::collections::HashMap<IVec3, bool> = Default::default();
    for (name, set) in &sets {
        let mut in_empty_chunks = 0u64;
        let mut chunk_runs = 0u64;
        let mut steps = [0u64; 4];
        let mut skips = [0u64; 4];
        let mut cells = Vec::new();
        for c in set {
            cells.clear();
            visited(&s.occ, &c.ray, c.max_t, &mut cells);
            let mut last_chunk = None;
            let mut last_brick = [None; 4];
            for &p in &cells {
                let chunk = p.div_euclid(IVec3::splat(voxel_raymarch::CHUNK_EDGE));
                let ce = *chunk_empty.entry(chunk).or_insert_with(|| {
                    box_is_empty(&s.occ, chunk * voxel_raymarch::CHUNK_EDGE, voxel_raymarch::CHUNK_EDGE)
                });
                if ce {
                    in_empty_chunks += 1;
                    if last_chunk != Some(chunk) {
                        chunk_runs += 1;
                    }
                    last_chunk = Some(chunk);
                    last_brick = [None; 4];
                    continue;
                }
                last_chunk = None;
                for (k, &e) in edges.iter().enumerate() {
                    let min = p.div_euclid(IVec3::splat(e)) * e;
                    if *empty[k].entry(min).or_insert_with(|| box_is_empty(&s.occ, min, e)) {
                        if last_brick[k] != Some(min) {
                            skips[k] += 1;
                        }
                        last_brick[k] = Some(min);
                    } else {
                        steps[k] += 1;
                        last_brick[k] = None;
                    }
                }
            }
        }
        let n = set.len() as f64;
        println!(
            "bricks {name:32} voxels in empty chunks {:6.1} ({:4.2} chunk skips) per ray",
            in_empty_chunks as f64 / n,
            chunk_runs as f64 / n
        );
        for (k, e) in edges.iter().enumerate() {
            println!(
                "bricks {name:32} edge {e:2}: {:6.1} steps, {:5.2} skips per ray",
                steps[k] as f64 / n,
                skips[k] as f64 / n
            );
        }
    }
}

/// Whether the cube of `edge` voxels at `min` holds no solid voxel.
fn box_is_empty(occ: &Occupancy, min: IVec3, edge: i32) -> bool {
    !VoxelBox::new(min, min + IVec3::splat(edge)).iter().any(|p| occ.is_solid(p))
}

/// The voxels [`lookup_per_step`]'s walk visits, in order, up to its hit (included).
fn visited(occ: &Occupancy, ray: &Ray, max_t: f32, out: &mut Vec<IVec3>) {
    seed_walk(occ, ray, max_t, |p| out.push(p));
}

fn main() {
    if std::env::var("RAYMARCH_BRICKS").is_ok() {
        brick_study();
        return;
    }
    if let Ok(set) = std::env::var("RAYMARCH_COUNT") {
        count(&set);
        return;
    }
    if let Some(trials) = std::env::var("RAYMARCH_SLOPE").ok().and_then(|v| v.parse().ok()) {
        slope(trials);
        return;
    }
    if let Some(trials) = std::env::var("RAYMARCH_PROBE").ok().and_then(|v| v.parse().ok()) {
        probe(trials);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
