//! Islands: solid components an edit cuts off from the anchor, found, meshed, hulled and removed.

mod common;

use std::collections::{HashSet, VecDeque};

use common::{collider, flat};
use glam::{IVec3, Vec3};
use voxel_core::{Phase, Ray, TriangleSource, VoxelBox};
use voxel_physics::{Anchor, Brush, IslandOptions, IslandShape, PhysicsError, TerrainCollider};
use voxel_store::VoxelStore;
use voxel_store::generate::{self, materials};

/// Flat ground (top row 7) with a rock on a stalk: the stalk from the ground up to y = 22, a ball
/// of radius 5 around (20, 26, 20).
fn mushroom() -> TerrainCollider {
    let (store, world) = flat(IVec3::new(40, 40, 40), 8);
    let mut c = collider(store, world);
    c.add(
        &Brush::Capsule { a: Vec3::new(20.0, 5.0, 20.0), b: Vec3::new(20.0, 24.0, 20.0), radius: 1.6 },
        materials::ROCK,
    )
    .unwrap();
    c.add(&Brush::Sphere { center: Vec3::new(20.0, 26.0, 20.0), radius: 5.0 }, materials::DIRT).unwrap();
    c
}

/// Brute force: the face-connected solid component of `seed`, by breadth-first flood over single
/// voxel reads.
fn flood(store: &VoxelStore, world: VoxelBox, seed: IVec3) -> HashSet<IVec3> {
    let solid = |p: IVec3| {
        let v = store.get(p);
        world.contains(p) && v.is_inside() && store.palette().phases().phase(v.material) == Phase::Solid
    };
    let mut seen = HashSet::from([seed]);
    let mut queue = VecDeque::from([seed]);
    while let Some(p) = queue.pop_front() {
        for d in [IVec3::X, IVec3::NEG_X, IVec3::Y, IVec3::NEG_Y, IVec3::Z, IVec3::NEG_Z] {
            if solid(p + d) && seen.insert(p + d) {
                queue.push_back(p + d);
            }
        }
    }
    seen
}

fn cut_stalk(c: &mut TerrainCollider) -> VoxelBox {
    c.subtract(&Brush::Box { center: Vec3::new(20.0, 15.0, 20.0), half_extents: Vec3::new(4.0, 1.0, 4.0) })
        .unwrap()
        .report
        .dirty
}

#[test]
fn cutting_the_stalk_detaches_the_rock() {
    let mut c = mushroom();
    let dirty = cut_stalk(&mut c);
    let expect = flood(c.store(), c.world(), IVec3::new(20, 26, 20));
    let before = c.store().clone();
    let (islands, outcome) = c.detach_islands(dirty, &IslandOptions::default()).unwrap();
    assert_eq!(islands.len(), 1, "{islands:?}");
    let island = &islands[0];
    let voxels: HashSet<IVec3> = island.voxels.iter().copied().collect();
    assert_eq!(voxels, expect, "the island is the rock and the upper stalk, face-connected");
    assert!(island.voxels.windows(2).all(|w| (w[0].y, w[0].z, w[0].x) < (w[1].y, w[1].z, w[1].x)), "sorted");
    assert!(island.bounds.min.y >= 16 && island.bounds.max.y <= 32, "{:?}", island.bounds);
    assert!((island.center - Vec3::new(20.0, 26.0, 20.0)).length() < 1.0, "{:?}", island.center);
    // Its voxels are gone from the world, nothing else changed.
    assert_eq!(outcome.report.changed_voxels, voxels.len() as u64);
    for p in &island.voxels {
        assert!(!c.store().get(*p).is_inside());
        assert!(before.get(*p).is_inside());
        assert_eq!(island.grid.get(*p), before.get(*p), "the island keeps its voxels");
    }
    // The ray that hit the rock now reaches the stump; the blocky view agrees.
    let down = Ray::new(Vec3::new(20.3, 39.0, 20.2), Vec3::NEG_Y);
    let hit = c.raycast(&down, 100.0).unwrap();
    assert!(hit.point.y < 15.0, "{hit:?}");
    assert!(c.raymarch(&down, 100.0).unwrap().voxel.y < 15);
    // A second search finds nothing left to detach.
    assert!(c.find_islands(dirty, &IslandOptions::default()).unwrap().is_empty());
}

#[test]
fn the_island_mesh_is_closed_and_inside_its_hull() {
    let mut c = mushroom();
    let dirty = cut_stalk(&mut c);
    let islands = c.find_islands(dirty, &IslandOptions::default()).unwrap();
    let island = &islands[0];
    let mesh = &island.mesh;
    assert!(mesh.triangle_count() > 100);
    // Closed: every edge is used exactly twice, once each way.
    let mut edges = std::collections::HashMap::new();
    for t in 0..mesh.triangle_count() as u32 {
        let [a, b, c] = mesh.triangle(t);
        for (u, v) in [(a, b), (b, c), (c, a)] {
            *edges.entry((u, v)).or_insert(0) += 1;
        }
    }
    assert!(edges.iter().all(|(&(u, v), &n)| n == 1 && edges.get(&(v, u)) == Some(&1)), "watertight");
    assert!(mesh.materials().contains(&materials::DIRT) && mesh.materials().contains(&materials::ROCK));
    // Every mesh vertex is inside the hull (within its tolerance).
    let hull = island.hull.as_ref().unwrap();
    for p in mesh.positions() {
        for t in &hull.triangles {
            let [a, b, c] = t.map(|i| hull.vertices[i as usize]);
            let n = (b - a).cross(c - a).normalize();
            assert!(n.dot(*p - a) <= hull.tolerance + 1e-3, "{p} outside the hull");
        }
    }
    assert!(island.decomposition.is_none());
}

#[test]
fn an_attached_rock_is_no_island() {
    let c = mushroom();
    let region = VoxelBox::new(IVec3::new(14, 14, 14), IVec3::new(26, 32, 26));
    assert!(c.find_islands(region, &IslandOptions::default()).unwrap().is_empty());
}

#[test]
fn anchors_and_size_limits() {
    // A ball floating in an otherwise empty world: an island for the floor anchor.
    let store = generate::sphere(Vec3::new(16.0, 16.0, 16.0), 5.0).unwrap();
    let c = TerrainCollider::from_store(store, Default::default()).unwrap();
    let region = VoxelBox::new(IVec3::splat(10), IVec3::splat(22));
    assert_eq!(c.find_islands(region, &IslandOptions::default()).unwrap().len(), 1);
    // Held by an anchor box touching it: attached.
    let held = IslandOptions {
        anchor: Anchor::Region(VoxelBox::new(IVec3::new(16, 20, 16), IVec3::new(17, 22, 17))),
        ..Default::default()
    };
    assert!(c.find_islands(region, &held).unwrap().is_empty());
    // An anchor box elsewhere holds nothing.
    let elsewhere =
        IslandOptions { anchor: Anchor::Region(VoxelBox::new(IVec3::ZERO, IVec3::ONE)), ..Default::default() };
    assert_eq!(c.find_islands(region, &elsewhere).unwrap().len(), 1);
    // Too big to be a body: attached, whatever the anchor.
    let small = IslandOptions { anchor: Anchor::Nothing, max_voxels: 100, ..Default::default() };
    assert!(c.find_islands(region, &small).unwrap().is_empty());
    let any = IslandOptions { anchor: Anchor::Nothing, ..Default::default() };
    assert_eq!(c.find_islands(region, &any).unwrap().len(), 1);
    // A region missing the ball finds nothing.
    assert!(c.find_islands(VoxelBox::new(IVec3::ZERO, IVec3::splat(4)), &any).unwrap().is_empty());
}

#[test]
fn islands_can_be_decomposed() {
    let mut c = mushroom();
    let dirty = cut_stalk(&mut c);
    let options = IslandOptions { shape: IslandShape::Decomposition(Default::default()), ..Default::default() };
    let islands = c.find_islands(dirty, &options).unwrap();
    let parts = islands[0].decomposition.as_ref().unwrap();
    assert!(!parts.hulls.is_empty());
    assert!(islands[0].hull.is_none());
    let mesh_only = IslandOptions { shape: IslandShape::MeshOnly, ..Default::default() };
    let islands = c.find_islands(dirty, &mesh_only).unwrap();
    assert!(islands[0].hull.is_none() && islands[0].decomposition.is_none() && islands[0].mesh.triangle_count() > 0);
}

#[test]
fn two_islands_from_one_cut() {
    let (store, world) = flat(IVec3::new(48, 32, 48), 6);
    let mut c = collider(store, world);
    // Two rocks on one bar held up by a pillar in the middle; cutting the pillar frees the bar with
    // both rocks (one island), cutting the bar on both sides of the pillar frees two.
    c.add(&Brush::Box { center: Vec3::new(24.0, 12.0, 24.0), half_extents: Vec3::new(1.5, 7.0, 1.5) }, materials::ROCK)
        .unwrap();
    c.add(
        &Brush::Box { center: Vec3::new(24.0, 19.0, 24.0), half_extents: Vec3::new(16.0, 1.5, 1.5) },
        materials::ROCK,
    )
    .unwrap();
    let a = c
        .subtract(&Brush::Box { center: Vec3::new(18.0, 19.0, 24.0), half_extents: Vec3::new(1.0, 3.0, 3.0) })
        .unwrap();
    let b = c
        .subtract(&Brush::Box { center: Vec3::new(30.0, 19.0, 24.0), half_extents: Vec3::new(1.0, 3.0, 3.0) })
        .unwrap();
    let region = a.report.dirty.union(&b.report.dirty);
    let (islands, _) = c.detach_islands(region, &IslandOptions::default()).unwrap();
    assert_eq!(islands.len(), 2, "{:?}", islands.iter().map(|i| i.bounds).collect::<Vec<_>>());
    assert!(islands[0].bounds.max.x <= 18 && islands[1].bounds.min.x >= 30, "seed order: x first");
    // The middle of the bar stays on its pillar.
    assert!(c.store().get(IVec3::new(24, 19, 24)).is_inside());
}

#[test]
fn bad_regions() {
    let c = mushroom();
    let empty = c.find_islands(VoxelBox::EMPTY, &IslandOptions::default()).unwrap();
    assert!(empty.is_empty());
    let huge = VoxelBox::new(IVec3::splat(-100_000), IVec3::splat(100_000));
    // Clipped to the world first: a search over the whole (small) world is fine.
    assert!(c.find_islands(huge, &IslandOptions::default()).is_ok());
    let bad_anchor = IslandOptions { anchor: Anchor::Region(VoxelBox::EMPTY), ..Default::default() };
    assert!(matches!(c.find_islands(huge, &bad_anchor), Err(PhysicsError::InvalidParameter(_))));
}
