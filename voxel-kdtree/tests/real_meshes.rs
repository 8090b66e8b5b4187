//! Real meshes: the test data (and with `VOXEL_SHARED_DATA` set, the whole shared set) load,
//! build and query; rays aimed exactly at shared vertices and edge midpoints never slip through
//! (testdata meshes, a Surface Nets sphere from its centre, Surface Nets terrain chunks).

use std::collections::HashMap;

use glam::{IVec3, Vec3};
use proptest::prelude::*;
use voxel_core::{Aabb, IndexedMesh, Ray, TriangleSource, VoxelBox};
use voxel_kdtree::{
    BuildOptions, KdTree, QuadTree, RayHit, Scratch, ray_triangle, triangle_is_usable, triangle_overlaps_aabb,
};
use voxel_mesh::{Mesh, MeshOptions, Mesher};
use voxel_store::generate::{self, Terrain};
use voxel_testdata::{data_files, load_mesh};

/// Rays aimed at the points where triangles meet: the midpoint of every edge shared by exactly two
/// triangles, and every vertex whose edges are all shared by two. Each ray comes from outside
/// against the mean normal, tilted by up to about 20 degrees, and only where every face around
/// the target is within 60 degrees of that normal: the ray then crosses the surface at the target
/// instead of grazing a corner (where rounding of the direction could legitimately pass outside).
/// It must hit something no later than the target.
fn check_watertight<S: TriangleSource>(mesh: &S, name: &str, limit: usize) -> usize {
    let tree = KdTree::build(mesh).unwrap();
    let mut edges: HashMap<(u32, u32), Vec<Vec3>> = HashMap::new();
    let mut around_vertex = vec![Vec::new(); mesh.vertex_count()];
    for t in 0..mesh.triangle_count() as u32 {
        let pos = mesh.triangle_positions(t);
        if !triangle_is_usable(pos) {
            continue;
        }
        let Some(n) = (pos[1] - pos[0]).cross(pos[2] - pos[0]).try_normalize() else { continue };
        let idx = mesh.triangle(t);
        for k in 0..3 {
            let (a, b) = (idx[k], idx[(k + 1) % 3]);
            edges.entry((a.min(b), a.max(b))).or_default().push(n);
            around_vertex[idx[k] as usize].push(n);
        }
    }
    let mut manifold_vertex = vec![true; mesh.vertex_count()];
    for (&(a, b), normals) in &edges {
        if normals.len() != 2 {
            manifold_vertex[a as usize] = false;
            manifold_vertex[b as usize] = false;
        }
    }
    let mut targets: Vec<(Vec3, &[Vec3])> = Vec::new();
    let mut sorted: Vec<_> = edges.iter().filter(|(_, n)| n.len() == 2).collect();
    sorted.sort_by_key(|(k, _)| **k);
    for (&(a, b), normals) in sorted {
        targets.push(((mesh.vertex(a) + mesh.vertex(b)) * 0.5, normals));
    }
    for v in 0..mesh.vertex_count() {
        if manifold_vertex[v] && !around_vertex[v].is_empty() {
            targets.push((mesh.vertex(v as u32), &around_vertex[v]));
        }
    }
    let step = (targets.len() / limit).max(1);
    let extent = tree.bounds().size().max_element().max(1.0);
    let mut scratch = Scratch::new();
    let mut seed = 99u64;
    let mut tested = 0;
    for (target, normals) in targets.into_iter().step_by(step) {
        let Some(n) = normals.iter().sum::<Vec3>().try_normalize() else { continue };
        if normals.iter().any(|f| f.dot(n) < 0.5) {
            continue;
        }
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let jitter = Vec3::new((seed >> 40 & 255) as f32, (seed >> 48 & 255) as f32, (seed >> 56) as f32) / 255.0 - 0.5;
        let origin = target + (n + jitter * 0.4).normalize() * extent;
        let ray = Ray::new(origin, target - origin);
        let hit = tree.cast_ray(mesh, &ray, 2.0, &mut scratch);
        assert!(hit.is_some_and(|h| h.t <= 1.0 + 1e-4), "{name}: ray from {origin} slipped through {target} ({hit:?})");
        tested += 1;
    }
    tested
}

fn load_all() -> Vec<(String, IndexedMesh)> {
    data_files("meshes", &["obj", "stl"])
        .into_iter()
        .map(|p| {
            let mesh = load_mesh(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p.display().to_string(), mesh)
        })
        .collect()
}

#[test]
fn data_meshes_build_and_query() {
    let mut scratch = Scratch::new();
    let mut out = Vec::new();
    for (name, mesh) in load_all() {
        let tree = KdTree::build(&mesh).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(tree.len() + tree.skipped(), mesh.triangle_count(), "{name}");
        assert!(tree.depth() <= voxel_kdtree::depth_bound(tree.len()));
        let b = tree.bounds();
        if tree.is_empty() {
            continue;
        }
        // Down the middle: a ray through the centre hits when the centre column has a triangle.
        let c = b.center();
        let ray = Ray::new(Vec3::new(c.x, b.max.y + 1.0, c.z), Vec3::NEG_Y);
        let hit = tree.cast_ray(&mesh, &ray, f32::INFINITY, &mut scratch);
        let brute = (0..mesh.triangle_count() as u32)
            .filter(|&t| triangle_is_usable(mesh.triangle_positions(t)))
            .filter_map(|t| ray_triangle(&ray, mesh.triangle_positions(t), f32::INFINITY))
            .fold(f32::INFINITY, f32::min);
        assert_eq!(hit.map_or(f32::INFINITY, |h| h.t), brute, "{name}");
        tree.query_aabb_exact(&mesh, &Aabb::new(b.min, c), &mut scratch, &mut out);
    }
}

#[test]
fn data_meshes_are_watertight_at_vertices_and_edges() {
    let mut tested = 0;
    for (name, mesh) in load_all() {
        tested += check_watertight(&mesh, &name, 3000);
    }
    assert!(tested > 1000, "only {tested} rays");
}

#[test]
fn surface_nets_sphere_from_its_centre() {
    // From inside a closed surface every ray leaves it: aim at every vertex and edge midpoint.
    let center = Vec3::new(16.3, 15.7, 16.1);
    let ball = generate::sphere(center, 11.0).unwrap();
    let mut mesh = Mesh::new();
    Mesher::new()
        .surface_nets(&ball, VoxelBox::new(IVec3::ZERO, IVec3::splat(32)), &MeshOptions::PHYSICS, &mut mesh)
        .unwrap();
    assert!(mesh.triangle_count() > 1000);
    let tree = KdTree::build(&mesh).unwrap();
    let quads = QuadTree::build(&mesh).unwrap();
    let mut scratch = Scratch::new();
    let mut targets: Vec<Vec3> = mesh.positions().to_vec();
    for t in 0..mesh.triangle_count() as u32 {
        let [a, b, c] = mesh.triangle_positions(t);
        targets.extend([(a + b) * 0.5, (b + c) * 0.5, (c + a) * 0.5]);
    }
    for target in targets {
        let ray = Ray::new(center, target - center);
        let hit = tree.cast_ray(&mesh, &ray, 2.0, &mut scratch);
        assert!(hit.is_some_and(|h| h.t <= 1.0 + 1e-4), "slipped through at {target}: {hit:?}");
        assert_eq!(quads.cast_ray(&mesh, &ray, 2.0, &mut scratch), hit);
    }
    assert!(check_watertight(&mesh, "sphere", usize::MAX) > 1000);
}

#[test]
fn surface_nets_terrain_chunks() {
    let world = generate::terrain(&Terrain::new(IVec3::new(96, 64, 64), 3)).unwrap();
    let mut mesher = Mesher::new();
    let mut mesh = Mesh::new();
    let mut tested = 0;
    for key in [IVec3::new(0, 0, 0), IVec3::new(1, 0, 1), IVec3::new(2, 1, 0)] {
        mesher.surface_nets(&world, VoxelBox::chunk(key, 32), &MeshOptions::PHYSICS, &mut mesh).unwrap();
        tested += check_watertight(&mesh, &format!("chunk {key}"), 4000);
    }
    assert!(tested > 1000, "only {tested} rays");
}

/// Both builds answer random rays (from above and from inside) and boxes exactly as brute force
/// over every usable triangle, and so as each other; the quality tree keeps one node per
/// triangle at most.
fn check_builds_against_brute_force<S: TriangleSource>(mesh: &S, seed: u64, rays: usize) {
    let fast = KdTree::build(mesh).unwrap();
    let quality = KdTree::build_with(mesh, BuildOptions::QUALITY).unwrap();
    assert_eq!(quality.len(), fast.len());
    assert!(quality.nodes().len() <= quality.len().max(1), "{} nodes", quality.nodes().len());
    assert!(quality.depth() <= 63);
    let b = fast.bounds();
    if !b.is_valid() {
        return;
    }
    let usable: Vec<(u32, [Vec3; 3])> = (0..mesh.triangle_count() as u32)
        .map(|t| (t, mesh.triangle_positions(t)))
        .filter(|(_, p)| triangle_is_usable(*p))
        .collect();
    let mut state = seed | 1;
    let mut unit = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32
    };
    let point = |unit: &mut dyn FnMut() -> f32| b.min + b.size() * Vec3::new(unit(), unit(), unit());
    let mut scratch = Scratch::new();
    let (mut found, mut expect) = (Vec::new(), Vec::new());
    for i in 0..rays {
        let (origin, target) = (point(&mut unit), point(&mut unit));
        let origin = if i % 2 == 0 { Vec3::new(origin.x, b.max.y + 1.0, origin.z) } else { origin };
        let ray = Ray::new(origin, target - origin);
        let max_t = 1e4;
        let brute = usable
            .iter()
            .filter_map(|&(id, tri)| ray_triangle(&ray, tri, max_t).map(|t| RayHit { t, triangle: id }))
            .min_by(|x, y| x.t.total_cmp(&y.t).then(x.triangle.cmp(&y.triangle)));
        assert_eq!(quality.cast_ray(mesh, &ray, max_t, &mut scratch), brute, "quality {ray:?}");
        assert_eq!(fast.cast_ray(mesh, &ray, max_t, &mut scratch), brute, "fast {ray:?}");
        let centre = point(&mut unit);
        let half = b.size().max_element() * 0.05 * unit();
        let query = Aabb::new(centre - half, centre + half);
        expect.clear();
        expect.extend(usable.iter().filter(|(_, tri)| triangle_overlaps_aabb(*tri, &query)).map(|&(id, _)| id));
        for tree in [&quality, &fast] {
            tree.query_aabb_exact(mesh, &query, &mut scratch, &mut found);
            found.sort_unstable();
            assert_eq!(found, expect, "{query:?}");
        }
    }
}

#[test]
fn quality_build_on_data_meshes_equals_brute_force() {
    for (i, (name, mesh)) in load_all().into_iter().enumerate() {
        if mesh.triangle_count() > 200_000 {
            continue;
        }
        eprintln!("{name}: {} triangles", mesh.triangle_count());
        check_builds_against_brute_force(&mesh, i as u64 + 1, 100);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    #[test]
    fn quality_build_on_terrain_chunks_equals_brute_force(
        seed in any::<u64>(),
        key in prop::sample::select(vec![IVec3::ZERO, IVec3::new(1, 0, 1), IVec3::new(0, 1, 1)]),
    ) {
        let world = generate::terrain(&Terrain::new(IVec3::new(64, 64, 64), seed)).unwrap();
        let mut mesh = Mesh::new();
        Mesher::new().surface_nets(&world, VoxelBox::chunk(key, 32), &MeshOptions::PHYSICS, &mut mesh).unwrap();
        check_builds_against_brute_force(&mesh, seed, 150);
    }
}
