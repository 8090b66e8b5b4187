//! The broadphase against brute force over voxels, pair tracking, edits and bad input.

use glam::{IVec3, Vec3};
use proptest::prelude::*;
use voxel_broadphase::{Broadphase, BroadphaseError, ChunkClass, ChunkHit, PairEvent, PairKind, Reach};
use voxel_core::{Aabb, Phase, TriangleSource, Voxel, VoxelBox, VoxelSource};
use voxel_mesh::{Mesh, MeshOptions, Mesher};
use voxel_store::generate::{self, materials};
use voxel_store::{Brush, VoxelStore};

/// The hit of a chunk whose 10^3 read is all solid or all water, whatever part of it a box covers.
fn full_hit(world: &VoxelStore, key: IVec3) -> Option<ChunkHit> {
    let phase = |p: IVec3| world.get(p).phase(world.phase_table());
    let read = VoxelBox::chunk(key, 8).grow(1);
    let solid_all = read.iter().all(|p| phase(p) == Phase::Solid);
    let water_all = read.iter().all(|p| phase(p) == Phase::Liquid);
    (solid_all || water_all).then_some(ChunkHit { chunk: key, solid: solid_all, water: water_all, full: true })
}

/// The hit of chunk `key` when any voxel of `voxels` is solid or water.
fn scan_hit(world: &VoxelStore, key: IVec3, voxels: impl Iterator<Item = IVec3>) -> Option<ChunkHit> {
    let (mut solid, mut water) = (false, false);
    for p in voxels {
        match world.get(p).phase(world.phase_table()) {
            Phase::Solid => solid = true,
            Phase::Liquid => water = true,
            Phase::Empty => {}
        }
    }
    (solid || water).then_some(ChunkHit { chunk: key, solid, water, full: false })
}

/// Brute force of [`Reach::SurfaceNets`]: per chunk, the cubes of the grown (closed) box,
/// `ceil(lo) - 1 ..= floor(hi)`, that lie in the chunk, and the cube before them along an axis
/// where they are one cube wide; a cube counts when one of its 8 corner voxels is solid (water).
fn naive_query_surface_nets(world: &VoxelStore, aabb: &Aabb) -> Vec<ChunkHit> {
    // ceil(min - 1) - 1 ..= floor(max + 1), in whole numbers (exact).
    let cubes =
        VoxelBox::new(aabb.min.ceil().as_ivec3() - IVec3::splat(2), aabb.max.floor().as_ivec3() + IVec3::splat(2));
    let mut hits = Vec::new();
    for key in cubes.chunk_keys(8).iter() {
        if let Some(hit) = full_hit(world, key) {
            hits.push(hit);
            continue;
        }
        let share = cubes.intersection(&VoxelBox::chunk(key, 8));
        let min = share.min - IVec3::from((share.max - share.min).cmpeq(IVec3::ONE)).abs();
        // Cubes min..max have corners min..=max.
        if let Some(hit) = scan_hit(world, key, VoxelBox::new(min, share.max + IVec3::ONE).iter()) {
            hits.push(hit);
        }
    }
    hits
}

/// Brute force of [`Reach::Neighbours`]: for every chunk the grown box touches, scan its cells and
/// their 27 neighbours.
fn naive_query(world: &VoxelStore, aabb: &Aabb) -> Vec<ChunkHit> {
    // floor(min - 1) ..= floor(max + 1), in whole numbers (exact).
    let cells = VoxelBox::new(aabb.min.floor().as_ivec3() - IVec3::ONE, aabb.max.floor().as_ivec3() + IVec3::splat(2));
    let phase = |p: IVec3| world.get(p).phase(world.phase_table());
    let mut hits = Vec::new();
    for key in cells.chunk_keys(8).iter() {
        let chunk = VoxelBox::chunk(key, 8);
        let read = chunk.grow(1);
        let solid_all = read.iter().all(|p| phase(p) == Phase::Solid);
        let water_all = read.iter().all(|p| phase(p) == Phase::Liquid);
        if solid_all || water_all {
            hits.push(ChunkHit { chunk: key, solid: solid_all, water: water_all, full: true });
            continue;
        }
        let (mut solid, mut water) = (false, false);
        for c in cells.intersection(&chunk).iter() {
            for n in VoxelBox::new(c - IVec3::ONE, c + IVec3::splat(2)).iter() {
                match phase(n) {
                    Phase::Solid => solid = true,
                    Phase::Liquid => water = true,
                    Phase::Empty => {}
                }
            }
        }
        if solid || water {
            hits.push(ChunkHit { chunk: key, solid, water, full: false });
        }
    }
    hits
}

/// A small world of random brushes, with rock and water.
fn arb_world() -> impl Strategy<Value = VoxelStore> {
    let brush = (prop::array::uniform3(-4.0f32..36.0), 0.5f32..7.0, any::<bool>(), any::<bool>());
    prop::collection::vec(brush, 1..8).prop_map(|brushes| {
        let mut world = VoxelStore::with_palette(generate::palette());
        for (c, r, water, carve) in brushes {
            let b = Brush::Sphere { center: Vec3::from(c), radius: r };
            if carve {
                world.subtract(&b).unwrap();
            } else {
                world.add(&b, if water { materials::WATER } else { materials::ROCK }).unwrap();
            }
        }
        world
    })
}

fn arb_box() -> impl Strategy<Value = Aabb> {
    (prop::array::uniform3(-8.0f32..40.0), prop::array::uniform3(0.0f32..12.0), any::<bool>()).prop_map(
        |(min, size, snap)| {
            // Snapped boxes put faces on voxel planes, where floor and ceil differ.
            let snap = |v: Vec3| if snap { v.round() } else { v };
            let min = snap(Vec3::from(min));
            Aabb::new(min, min + snap(Vec3::from(size)))
        },
    )
}

/// The Surface Nets mesh of every 8^3 chunk of the test region, as `voxel-physics` meshes them.
fn chunk_meshes(world: &VoxelStore) -> Vec<(IVec3, Mesh)> {
    let mut mesher = Mesher::new();
    VoxelBox::new(IVec3::splat(-2), IVec3::splat(6))
        .iter()
        .filter_map(|key| {
            let mut mesh = Mesh::new();
            mesher.surface_nets(world, VoxelBox::chunk(key, 8), &MeshOptions::PHYSICS, &mut mesh).unwrap();
            (mesh.triangle_count() > 0).then_some((key, mesh))
        })
        .collect()
}

/// True when a point of the triangle lies in the closed box (sampled on a barycentric grid, so
/// "true" is always right and a grazing touch may be missed).
fn triangle_meets(t: [Vec3; 3], b: &Aabb) -> bool {
    const N: usize = 12;
    (0..=N).any(|i| {
        (0..=N - i).any(|j| {
            let (u, v) = (i as f32 / N as f32, j as f32 / N as f32);
            b.contains_point(t[0] + (t[1] - t[0]) * u + (t[2] - t[0]) * v)
        })
    })
}

fn build(world: &VoxelStore) -> Broadphase {
    Broadphase::build(world, VoxelBox::new(IVec3::splat(-16), IVec3::splat(48))).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn query_equals_brute_force(world in arb_world(), boxes in prop::collection::vec(arb_box(), 1..8)) {
        let mut bp = build(&world);
        assert_eq!(bp.reach(), Reach::SurfaceNets);
        let mut neighbours = bp.clone();
        neighbours.set_reach(Reach::Neighbours, &mut Vec::new());
        let (mut hits, mut wider) = (Vec::new(), Vec::new());
        for b in boxes {
            bp.query(&b, &mut hits).unwrap();
            prop_assert_eq!(&hits, &naive_query_surface_nets(&world, &b), "box {:?}", b);
            neighbours.query(&b, &mut wider).unwrap();
            prop_assert_eq!(&wider, &naive_query(&world, &b), "box {:?}", b);
            // Surface Nets reach never asks for more than the seed's reading, except where the
            // grown box's low face lies on a voxel plane: the closed box touches the cube below
            // it, which the seed's half-open cells leave out.
            let lo = b.grow(1.0).min;
            let on_plane = lo.cmpeq(lo.floor()).any();
            for h in hits.iter().filter(|_| !on_plane) {
                prop_assert!(wider.iter().any(|w| w.chunk == h.chunk && w.solid >= h.solid && w.water >= h.water));
            }
        }
        bp.set_reach(Reach::SurfaceNets, &mut Vec::new());
    }

    /// A batch gives each box the hits of its own query, in order; a bad box stops the batch
    /// with its error and `ends` says which box it was.
    #[test]
    fn batch_queries_equal_single_queries(
        world in arb_world(),
        boxes in prop::collection::vec(arb_box(), 0..40),
        bad_at in any::<prop::sample::Index>(),
        with_bad in any::<bool>(),
    ) {
        let bp = build(&world);
        let (mut hits, mut ends, mut one) = (Vec::new(), Vec::new(), Vec::new());
        bp.query_batch(&boxes, &mut hits, &mut ends).unwrap();
        prop_assert_eq!(ends.len(), boxes.len());
        let mut from = 0;
        for (b, &end) in boxes.iter().zip(&ends) {
            bp.query(b, &mut one).unwrap();
            prop_assert_eq!(&hits[from..end as usize], &one[..], "box {:?}", b);
            from = end as usize;
        }
        prop_assert_eq!(from, hits.len());
        if with_bad && !boxes.is_empty() {
            let mut boxes = boxes;
            let i = bad_at.index(boxes.len());
            boxes[i].max.y = f32::NAN;
            prop_assert_eq!(bp.query_batch(&boxes, &mut hits, &mut ends), Err(BroadphaseError::InvalidAabb));
            prop_assert_eq!(ends.len(), i);
            prop_assert_eq!(hits.len(), ends.last().map_or(0, |e| *e as usize));
        }
    }

    /// The claim [`Reach::SurfaceNets`] rests on, against real meshes: every triangle of
    /// `voxel-mesh` within the grown box comes from a chunk that `voxel-physics` asks for a solid
    /// hit (a hit's chunk and the chunks one above it on each axis, whose meshes reach one cube
    /// down). Boxes are placed around mesh vertices, where the surface is.
    #[test]
    fn no_surface_nets_triangle_in_reach_is_missed(
        world in arb_world(),
        boxes in prop::collection::vec((any::<prop::sample::Index>(), prop::array::uniform3(-3.0f32..3.0), prop::array::uniform3(0.0f32..2.5), any::<bool>()), 1..24),
    ) {
        let bp = build(&world);
        let meshes = chunk_meshes(&world);
        let vertices: Vec<Vec3> = meshes.iter().flat_map(|(_, m)| (0..m.vertex_count() as u32).map(|v| m.vertex(v))).collect();
        prop_assume!(!vertices.is_empty());
        let mut hits = Vec::new();
        for (at, offset, size, snap) in boxes {
            let snap = |v: Vec3| if snap { (v * 2.0).round() * 0.5 } else { v };
            let min = snap(*at.get(&vertices) + Vec3::from(offset));
            let b = Aabb::new(min, min + snap(Vec3::from(size)));
            bp.query(&b, &mut hits).unwrap();
            let grown = b.grow(1.0);
            for (owner, mesh) in &meshes {
                let asked = hits.iter().any(|h| {
                    let d = *owner - h.chunk;
                    h.solid && !h.full && d.cmpge(IVec3::ZERO).all() && d.cmple(IVec3::ONE).all()
                });
                if asked {
                    continue;
                }
                for t in 0..mesh.triangle_count() as u32 {
                    prop_assert!(!triangle_meets(mesh.triangle_positions(t), &grown), "box {:?}: triangle {} of chunk {} missed", b, t, owner);
                }
            }
        }
    }

    /// Chunks outside the dense grid (built by a rebuild past the first region) live in the hash
    /// map; queries across the grid's edge take the per-key path and must agree too.
    #[test]
    fn queries_across_the_grid_edge_equal_brute_force(world in arb_world(), boxes in prop::collection::vec(arb_box(), 1..8)) {
        let mut bp = Broadphase::build(&world, VoxelBox::new(IVec3::splat(8), IVec3::splat(24))).unwrap();
        bp.refresh(&world, VoxelBox::new(IVec3::splat(-16), IVec3::splat(48)), &mut Vec::new()).unwrap();
        let mut neighbours = bp.clone();
        neighbours.set_reach(Reach::Neighbours, &mut Vec::new());
        let mut hits = Vec::new();
        for b in boxes {
            bp.query(&b, &mut hits).unwrap();
            prop_assert_eq!(&hits, &naive_query_surface_nets(&world, &b), "box {:?}", b);
            neighbours.query(&b, &mut hits).unwrap();
            prop_assert_eq!(&hits, &naive_query(&world, &b), "box {:?}", b);
        }
    }

    /// Replaying the events of any sequence of moves gives exactly the current pairs, and a batch
    /// gives the same events as the same moves one by one.
    #[test]
    fn events_replay_to_the_current_pairs(world in arb_world(), moves in prop::collection::vec((0u32..4, arb_box()), 1..16)) {
        let mut one = build(&world);
        let mut batch = one.clone();
        let mut events = Vec::new();
        let mut batch_events = Vec::new();
        for id in 0..4 {
            let start = Aabb::new(Vec3::splat(-100.0), Vec3::splat(-99.0));
            one.insert(id, start, &mut events).unwrap();
            batch.insert(id, start, &mut batch_events).unwrap();
        }
        for (id, b) in &moves {
            one.update(*id, *b, &mut events).unwrap();
        }
        // One batch per move keeps the order of updates to the same id.
        for m in &moves {
            batch.update_batch(std::slice::from_ref(m), &mut batch_events).unwrap();
        }
        prop_assert_eq!(&events, &batch_events);
        // Switching the reach re-tests every object; its events keep the replay exact.
        one.set_reach(Reach::Neighbours, &mut events);
        let mut replay = std::collections::HashSet::new();
        for e in &events {
            let key = (e.object, e.chunk.to_array(), e.kind);
            if e.added { prop_assert!(replay.insert(key)) } else { prop_assert!(replay.remove(&key)) }
        }
        for id in 0..4 {
            for hit in one.pairs(id).unwrap() {
                prop_assert_eq!(replay.contains(&(id, hit.chunk.to_array(), PairKind::Solid)), hit.solid);
                prop_assert_eq!(replay.contains(&(id, hit.chunk.to_array(), PairKind::Water)), hit.water);
            }
        }
        let total: usize = (0..4).map(|id| one.pairs(id).unwrap().iter().map(|h| usize::from(h.solid) + usize::from(h.water)).sum::<usize>()).sum();
        prop_assert_eq!(replay.len(), total);
    }

    /// After an edit, rebuilding the dirty region gives the same broadphase as building afresh.
    #[test]
    fn rebuild_after_edit_equals_a_fresh_build(mut world in arb_world(), c in prop::array::uniform3(0.0f32..32.0), r in 0.5f32..6.0, carve in any::<bool>()) {
        let mut bp = build(&world);
        let brush = Brush::Sphere { center: Vec3::from(c), radius: r };
        let report = if carve { world.subtract(&brush) } else { world.add(&brush, materials::ROCK) }.unwrap();
        let mut events = Vec::new();
        bp.refresh(&world, report.dirty, &mut events).unwrap();
        let fresh = build(&world);
        for key in VoxelBox::new(IVec3::splat(-2), IVec3::splat(6)).iter() {
            prop_assert_eq!(bp.chunk_class(key), fresh.chunk_class(key), "{}", key);
            prop_assert_eq!(bp.chunk_masks(key), fresh.chunk_masks(key), "{}", key);
        }
    }
}

#[test]
fn an_object_in_a_cave_gets_no_pair() {
    // Solid rock with a big spherical cave carved out: the object floats in the middle, inside the
    // chunk boxes of rock chunks, but its grown box touches no dilated voxel.
    let mut world = generate::cuboid(Vec3::splat(32.0), Vec3::splat(32.0)).unwrap();
    world.subtract(&Brush::Sphere { center: Vec3::splat(32.0), radius: 12.0 }).unwrap();
    let bp = Broadphase::build(&world, VoxelBox::new(IVec3::ZERO, IVec3::splat(64))).unwrap();
    let mut hits = Vec::new();
    let crate_box = Aabb::new(Vec3::splat(31.0), Vec3::splat(33.0));
    bp.query(&crate_box, &mut hits).unwrap();
    assert!(hits.is_empty(), "{hits:?}");
    // Moved next to the cave wall it touches rock.
    bp.query(&Aabb::new(Vec3::new(41.0, 31.0, 31.0), Vec3::new(43.0, 33.0, 33.0)), &mut hits).unwrap();
    assert!(hits.iter().any(|h| h.solid && !h.full));
}

/// Full-solid chunks report solid (and full) to any box that reaches them: their solid mask is
/// the all-ones slot, not a test of its own.
#[test]
fn full_solid_chunks_answer_inside_rock() {
    let mut world = VoxelStore::with_palette(generate::palette());
    world.fill_box(VoxelBox::new(IVec3::ZERO, IVec3::splat(64)), Voxel::new(-127, materials::ROCK)).unwrap();
    let bp = Broadphase::build(&world, VoxelBox::new(IVec3::ZERO, IVec3::splat(64))).unwrap();
    assert_eq!(bp.chunk_class(IVec3::new(3, 3, 3)), Some(ChunkClass::FullSolid));
    let mut hits = Vec::new();
    // Boxes inside one full chunk and across full chunks on every axis, both reaches.
    for reach in [Reach::SurfaceNets, Reach::Neighbours] {
        let mut bp = bp.clone();
        bp.set_reach(reach, &mut Vec::new());
        for (min, size) in [(28.5, 1.0), (30.0, 2.0), (31.5, 0.5), (24.0, 9.0)] {
            bp.query(&Aabb::new(Vec3::splat(min), Vec3::splat(min + size)), &mut hits).unwrap();
            assert!(!hits.is_empty());
            assert!(hits.iter().all(|h| h.solid && !h.water && h.full), "{reach:?} {hits:?}");
        }
    }
}

#[test]
fn full_water_chunks_answer_submerged() {
    let mut world = VoxelStore::with_palette(generate::palette());
    world.fill_box(VoxelBox::new(IVec3::ZERO, IVec3::splat(64)), Voxel::new(-127, materials::WATER)).unwrap();
    let bp = Broadphase::build(&world, VoxelBox::new(IVec3::ZERO, IVec3::splat(64))).unwrap();
    assert_eq!(bp.chunk_class(IVec3::new(3, 3, 3)), Some(ChunkClass::FullWater));
    assert_eq!(bp.chunk_class(IVec3::ZERO), Some(ChunkClass::Partial), "the border chunk sees air in its halo");
    let mut hits = Vec::new();
    bp.query(&Aabb::new(Vec3::splat(28.0), Vec3::splat(29.0)), &mut hits).unwrap();
    assert!(hits.iter().all(|h| h.water && !h.solid && h.full), "{hits:?}");
    assert!(!hits.is_empty());
}

#[test]
fn a_lake_bed_keeps_its_solid_pairs() {
    // Rock below y = 16, water above: every chunk at the bed is all solid-or-water, and the rock
    // surface must still give solid pairs.
    let mut world = VoxelStore::with_palette(generate::palette());
    world.fill_box(VoxelBox::new(IVec3::ZERO, IVec3::new(64, 16, 64)), Voxel::new(-127, materials::ROCK)).unwrap();
    world.fill_box(VoxelBox::new(IVec3::new(0, 16, 0), IVec3::splat(64)), Voxel::new(-127, materials::WATER)).unwrap();
    let bp = Broadphase::build(&world, VoxelBox::new(IVec3::ZERO, IVec3::splat(64))).unwrap();
    let mut hits = Vec::new();
    bp.query(&Aabb::new(Vec3::new(30.0, 16.5, 30.0), Vec3::new(31.0, 17.5, 31.0)), &mut hits).unwrap();
    assert!(hits.iter().any(|h| h.solid && h.water && !h.full), "{hits:?}");
}

#[test]
fn bad_boxes_and_ids_are_errors_that_change_nothing() {
    let world = generate::sphere(Vec3::splat(8.0), 5.0).unwrap();
    let mut bp = Broadphase::build(&world, VoxelBox::new(IVec3::ZERO, IVec3::splat(16))).unwrap();
    let mut events = Vec::new();
    let good = Aabb::new(Vec3::splat(7.0), Vec3::splat(9.0));
    bp.insert(1, good, &mut events).unwrap();
    let pairs = bp.pairs(1).unwrap().to_vec();
    events.clear();
    let nan = f32::NAN;
    for bad in [
        Aabb::new(Vec3::new(nan, 0.0, 0.0), Vec3::ONE),
        Aabb::new(Vec3::ZERO, Vec3::new(f32::INFINITY, 1.0, 1.0)),
        Aabb::new(Vec3::ONE, Vec3::ZERO),
        Aabb::new(Vec3::splat(1e12), Vec3::splat(1e12 + 1.0)),
    ] {
        assert_eq!(bp.update(1, bad, &mut events), Err(BroadphaseError::InvalidAabb), "{bad:?}");
        assert_eq!(bp.query(&bad, &mut Vec::new()), Err(BroadphaseError::InvalidAabb));
    }
    let huge = Aabb::new(Vec3::splat(-100_000.0), Vec3::splat(100_000.0));
    assert_eq!(bp.update(1, huge, &mut events), Err(BroadphaseError::TooLarge));
    // Chunks per axis within the coordinate limit, but their product over i64: still an error.
    let vast = Aabb::new(Vec3::splat(-1.0e8), Vec3::splat(1.0e8));
    assert_eq!(bp.query(&vast, &mut Vec::new()), Err(BroadphaseError::TooLarge));
    assert_eq!(bp.update(1, vast, &mut events), Err(BroadphaseError::TooLarge));
    assert_eq!(bp.insert(1, good, &mut events), Err(BroadphaseError::DuplicateId(1)));
    assert_eq!(bp.update(9, good, &mut events), Err(BroadphaseError::UnknownId(9)));
    assert_eq!(bp.remove(9, &mut events), Err(BroadphaseError::UnknownId(9)));
    assert_eq!(bp.update_batch(&[(1, good), (9, good)], &mut events), Err(BroadphaseError::UnknownId(9)));
    assert!(events.is_empty());
    assert_eq!(bp.pairs(1).unwrap(), &pairs[..]);
    bp.remove(1, &mut events).unwrap();
    assert!(events.iter().all(|e: &PairEvent| !e.added));
    assert_eq!(events.len(), pairs.iter().map(|h| usize::from(h.solid) + usize::from(h.water)).sum::<usize>());
}

#[test]
fn edits_report_pairs_of_objects_whose_chunks_changed() {
    let mut world = VoxelStore::with_palette(generate::palette());
    world.fill_box(VoxelBox::new(IVec3::ZERO, IVec3::new(32, 8, 32)), Voxel::new(-127, materials::ROCK)).unwrap();
    let mut bp = Broadphase::build(&world, VoxelBox::new(IVec3::ZERO, IVec3::splat(32))).unwrap();
    let mut events = Vec::new();
    // A ball resting on the ground at y = 8.
    bp.insert(3, Aabb::new(Vec3::new(15.0, 8.0, 15.0), Vec3::new(17.0, 10.0, 17.0)), &mut events).unwrap();
    assert!(events.iter().any(|e| e.added && e.kind == PairKind::Solid));
    events.clear();
    // Dig a pit under it: its solid pairs go away.
    let report = world
        .subtract(&Brush::Box { center: Vec3::new(16.0, 6.0, 16.0), half_extents: Vec3::new(6.0, 6.0, 6.0) })
        .unwrap();
    bp.refresh(&world, report.dirty, &mut events).unwrap();
    assert!(!events.is_empty() && events.iter().all(|e| !e.added && e.object == 3), "{events:?}");
}

#[test]
fn batch_updates_are_the_same_on_one_and_two_threads() {
    let world = generate::terrain(&generate::Terrain::new(IVec3::new(96, 64, 96), 4)).unwrap();
    let base = Broadphase::build(&world, VoxelBox::new(IVec3::ZERO, IVec3::new(96, 64, 96))).unwrap();
    let moves: Vec<(u32, Aabb)> = (0..300u32)
        .map(|i| {
            let p = Vec3::new((i * 37 % 90) as f32, (i * 11 % 60) as f32, (i * 53 % 90) as f32);
            (i, Aabb::new(p, p + Vec3::new(1.0, 2.0, 1.0)))
        })
        .collect();
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let mut bp = base.clone();
            let mut events = Vec::new();
            for (id, _) in &moves {
                bp.insert(*id, Aabb::new(Vec3::splat(-50.0), Vec3::splat(-49.0)), &mut events).unwrap();
            }
            bp.update_batch(&moves, &mut events).unwrap();
            events
        })
    };
    let one = run(1);
    assert!(one.len() > 50, "the workload makes pairs: {}", one.len());
    assert_eq!(one, run(2));
}

/// Chunks outside the region the broadphase was first built over live in a hash map: rebuilding
/// there must give what a build over a larger region gives.
#[test]
fn rebuild_outside_the_first_region_uses_the_map_correctly() {
    let mut world = VoxelStore::with_palette(generate::palette());
    let mut bp = Broadphase::build(&world, VoxelBox::new(IVec3::ZERO, IVec3::splat(16))).unwrap();
    let mut events = Vec::new();
    for (i, c) in [Vec3::new(-30.0, -5.0, 40.0), Vec3::new(60.0, 3.0, -20.0), Vec3::new(-30.0, -5.0, 44.0)]
        .into_iter()
        .enumerate()
    {
        let b = Brush::Sphere { center: c, radius: 5.0 };
        let report = if i == 2 { world.subtract(&b) } else { world.add(&b, materials::ROCK) }.unwrap();
        bp.refresh(&world, report.dirty, &mut events).unwrap();
    }
    let fresh = Broadphase::build(&world, VoxelBox::new(IVec3::splat(-48), IVec3::splat(80))).unwrap();
    for key in VoxelBox::new(IVec3::splat(-7), IVec3::splat(11)).iter() {
        assert_eq!(bp.chunk_masks(key), fresh.chunk_masks(key), "{key}");
    }
    let probe = Aabb::new(Vec3::new(-25.5, -5.0, 40.0), Vec3::new(-24.5, -4.0, 41.0));
    let (mut a, mut b) = (Vec::new(), Vec::new());
    bp.query(&probe, &mut a).unwrap();
    fresh.query(&probe, &mut b).unwrap();
    assert_eq!(a, b);
}

#[test]
fn extreme_keys_and_regions_do_not_overflow() {
    let world = generate::sphere(Vec3::splat(8.0), 5.0).unwrap();
    let mut bp = Broadphase::build(&world, VoxelBox::new(IVec3::splat(-8), IVec3::splat(40))).unwrap();
    assert_eq!(bp.chunk_class(IVec3::splat(i32::MAX)), None);
    assert_eq!(bp.chunk_masks(IVec3::splat(i32::MIN)), None);
    let near_max = VoxelBox::new(IVec3::splat(i32::MAX - 16), IVec3::splat(i32::MAX));
    assert_eq!(Broadphase::build(&world, near_max).err(), Some(BroadphaseError::InvalidAabb));
    let near_min = VoxelBox::new(IVec3::splat(i32::MIN), IVec3::splat(i32::MIN + 8));
    assert_eq!(bp.refresh(&world, near_min, &mut Vec::new()), Err(BroadphaseError::InvalidAabb));
    assert_eq!(bp.refresh(&world, VoxelBox::EMPTY, &mut Vec::new()), Ok(0));
}
