//! The compact form is conservative: it never misses a hit or a box overlap the full form finds,
//! and its closest hit is no later than the full one's triangle allows. Random meshes near the
//! origin and far from it (where `f32` spacing beats the 16-bit grid), and Surface Nets chunks.

use glam::{IVec3, Vec3};
use proptest::prelude::*;
use voxel_core::{Aabb, IndexedMesh, Ray, TriangleSource, VoxelBox};
use voxel_kdtree::{BuildOptions, CompactTree, KdTree, KdTreeError, Scratch};
use voxel_mesh::{Mesh, MeshOptions, Mesher};
use voxel_store::generate::{self, Terrain};

struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f32 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 40) as f32) / (1u64 << 24) as f32
    }
    fn point(&mut self, b: &Aabb) -> Vec3 {
        b.min + (b.max - b.min) * Vec3::new(self.unit(), self.unit(), self.unit())
    }
}

fn soup(seed: u64, n: usize, offset: Vec3, extent: f32) -> IndexedMesh {
    let mut r = Rng(seed);
    let b = Aabb::new(offset, offset + Vec3::splat(extent));
    let mut positions = Vec::new();
    let mut tris = Vec::new();
    for i in 0..n as u32 {
        let c = r.point(&b);
        let size = extent * 0.1;
        for _ in 0..3 {
            positions.push(c + (r.point(&Aabb::new(Vec3::ZERO, Vec3::ONE)) - 0.5) * size);
        }
        tris.push([3 * i, 3 * i + 1, 3 * i + 2]);
    }
    IndexedMesh::new(positions, tris).unwrap()
}

fn check<S: TriangleSource>(mesh: &S, seed: u64) {
    check_from(mesh, seed, 0.3);
}

/// [`check`] with ray origins and boxes up to `reach` mesh sizes around the mesh.
fn check_from<S: TriangleSource>(mesh: &S, seed: u64, reach: f32) {
    let full = KdTree::build(mesh).unwrap();
    let compact = CompactTree::build(mesh).unwrap();
    assert_eq!(compact.len(), full.len());
    let mut r = Rng(seed);
    let b = full.bounds();
    if !b.is_valid() {
        return;
    }
    let around = b.grow(b.size().max_element() * reach + 0.5);
    let (mut s1, mut s2) = (Scratch::new(), Scratch::new());
    let (mut all_full, mut all_compact) = (Vec::new(), Vec::new());
    let tol = compact.tolerance();
    for i in 0..300 {
        let origin = r.point(&around);
        let target = if i % 2 == 0 {
            r.point(&b)
        } else {
            // Straight at a vertex or an edge midpoint, where quantization matters most.
            let t = (i as u32 / 2) % mesh.triangle_count() as u32;
            let [p, q, _] = mesh.triangle_positions(t);
            if i % 4 == 1 { p } else { (p + q) * 0.5 }
        };
        let ray = Ray::new(origin, target - origin);
        let expect = full.cast_ray(mesh, &ray, 10.0, &mut s1);
        let got = compact.cast_ray(&ray, 10.0, &mut s2);
        if let Some(e) = expect {
            let g = got.unwrap_or_else(|| panic!("compact missed {e:?} of {ray:?}"));
            // No later than the far side of the full hit's triangle box, grown by the tolerance
            // and the ray's rounding at that distance (as the compact test grows it), doubled.
            let tight = Aabb::from_points(compact.triangle_positions(e.triangle));
            let reach = (tight.min - ray.origin).abs().max((tight.max - ray.origin).abs()).max_element();
            let tri = tight.grow(2.0 * (tol + 16.0 * f32::EPSILON * reach));
            let far = tri.intersect_ray(&ray, 0.0, 10.0).map_or(e.t, |(_, exit)| exit);
            assert!(g.t <= far.max(e.t) * (1.0 + 1e-5) + 1e-5, "compact {g:?} later than {e:?} (far side {far})");
        }
        assert!(!full.any_hit(mesh, &ray, 10.0, &mut s1) || compact.any_hit(&ray, 10.0, &mut s2));
        full.all_hits(mesh, &ray, 10.0, &mut s1, &mut all_full);
        compact.all_hits(&ray, 10.0, &mut s2, &mut all_compact);
        for h in &all_full {
            assert!(all_compact.iter().any(|c| c.triangle == h.triangle), "all-hits lost {h:?}");
        }
    }
    let (mut a, mut c) = (Vec::new(), Vec::new());
    for _ in 0..200 {
        let centre = r.point(&around);
        let h = r.point(&Aabb::new(Vec3::ZERO, Vec3::splat(b.size().max_element() * 0.1)));
        let query = Aabb::new(centre - h, centre + h);
        full.query_aabb(&query, &mut s1, &mut a);
        compact.query_aabb(&query, &mut s2, &mut c);
        for id in &a {
            assert!(c.contains(id), "candidate {id} lost");
        }
        full.query_aabb_exact(mesh, &query, &mut s1, &mut a);
        compact.query_aabb_exact(&query, &mut s2, &mut c);
        for id in &a {
            assert!(c.contains(id), "overlap {id} lost");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn compact_is_conservative_near_the_origin(seed in any::<u64>(), n in 1usize..300) {
        check(&soup(seed, n, Vec3::ZERO, 30.0), seed);
    }

    #[test]
    fn compact_is_conservative_far_away(seed in any::<u64>(), n in 1usize..300) {
        check(&soup(seed, n, Vec3::new(70000.0, -3000.0, 25000.0), 32.0), seed);
    }

    /// Rays from up to 1e4 mesh sizes away, where the `f32` rounding of the ray's own arithmetic
    /// outgrows the grid's tolerance (before the test allowed for it, 3% of the rays aimed at the
    /// vertices of a 10-unit triangle from 1e4 away were missed).
    #[test]
    fn compact_is_conservative_for_far_rays(seed in any::<u64>(), n in 1usize..40, reach in prop::sample::select(vec![100.0f32, 1000.0, 10000.0])) {
        check_from(&soup(seed, n, Vec3::new(-3.0, 2.0, 5.0), 10.0), seed, reach);
    }
}

#[test]
fn compact_on_surface_nets_chunks() {
    let world = generate::terrain(&Terrain::new(IVec3::new(64, 64, 64), 8)).unwrap();
    let mut mesher = Mesher::new();
    let mut mesh = Mesh::new();
    for key in [IVec3::ZERO, IVec3::new(1, 0, 1), IVec3::new(1, 1, 0)] {
        mesher.surface_nets(&world, VoxelBox::chunk(key, 32), &MeshOptions::PHYSICS, &mut mesh).unwrap();
        if mesh.triangle_count() > 0 {
            check(&mesh, 7);
            let compact = CompactTree::build(&mesh).unwrap();
            let bytes = compact.heap_bytes() as f64 / mesh.triangle_count() as f64;
            assert!(bytes < 17.0, "{bytes} B per triangle");
        }
    }
}

#[test]
fn too_large_is_an_error() {
    let mesh = soup(1, 20000, Vec3::ZERO, 100.0);
    assert!(matches!(CompactTree::build(&mesh), Err(KdTreeError::TooLargeForCompact { .. })));
    // An extent beyond `f32::MAX` (its grid step would be infinite, every stored vertex NaN), and
    // coordinates within it but so large that decoded vertices would overflow.
    let positions = vec![
        Vec3::ZERO,
        Vec3::X,
        Vec3::Z,
        Vec3::splat(3e38),
        Vec3::new(-3e38, 3e38, -3e38),
        Vec3::new(3e38, -3e38, 0.0),
    ];
    let huge = IndexedMesh::new(positions, vec![[0, 2, 1], [3, 4, 5]]).unwrap();
    assert!(matches!(CompactTree::build(&huge), Err(KdTreeError::OutOfRangeForCompact { .. })));
    assert!(KdTree::build(&huge).is_ok());
    let high = IndexedMesh::new(
        vec![Vec3::new(f32::MAX / 2.0, 0.0, 0.0), Vec3::new(f32::MAX, 0.0, 0.0), Vec3::new(f32::MAX, 1.0, 0.0)],
        vec![[0, 1, 2]],
    )
    .unwrap();
    assert!(matches!(CompactTree::build(&high), Err(KdTreeError::OutOfRangeForCompact { .. })));
}

/// The distance from `p` to the triangle `tri`, in double precision (closest point on a triangle,
/// Ericson, "Real-Time Collision Detection", 5.1.5).
fn point_triangle_distance(p: Vec3, tri: [Vec3; 3]) -> f64 {
    let [p, a, b, c] = [p, tri[0], tri[1], tri[2]].map(Vec3::as_dvec3);
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    let closest = if d1 <= 0.0 && d2 <= 0.0 {
        a
    } else {
        let bp = p - b;
        let (d3, d4) = (ab.dot(bp), ac.dot(bp));
        let cp = p - c;
        let (d5, d6) = (ab.dot(cp), ac.dot(cp));
        let vc = d1 * d4 - d3 * d2;
        let vb = d5 * d2 - d1 * d6;
        let va = d3 * d6 - d5 * d4;
        if d3 >= 0.0 && d4 <= d3 {
            b
        } else if d6 >= 0.0 && d5 <= d6 {
            c
        } else if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
            a + ab * (d1 / (d1 - d3))
        } else if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
            a + ac * (d2 / (d2 - d6))
        } else if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
            b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)))
        } else {
            let denom = 1.0 / (va + vb + vc);
            a + ab * (vb * denom) + ac * (vc * denom)
        }
    };
    (p - closest).length()
}

/// A Surface Nets chunk of a random terrain, moved by `offset` (the report's chunk lay near
/// x 690, y 35, z 120, where the tolerance is mostly the `f32` spacing of the coordinates).
fn terrain_chunk(seed: u64, key: IVec3, offset: Vec3) -> IndexedMesh {
    let world = generate::terrain(&Terrain::new(IVec3::new(64, 64, 64), seed)).unwrap();
    let mut mesh = Mesh::new();
    Mesher::new().surface_nets(&world, VoxelBox::chunk(key, 32), &MeshOptions::PHYSICS, &mut mesh).unwrap();
    let positions = (0..mesh.vertex_count() as u32).map(|v| mesh.vertex(v) + offset).collect();
    let triangles = (0..mesh.triangle_count() as u32).map(|t| mesh.triangle(t)).collect();
    IndexedMesh::new(positions, triangles).unwrap()
}

/// Every compact hit (closest and all-hits) lies within [`CompactTree::hit_tolerance`] of its
/// original triangle, and the compact tree finds every hit the full tree finds, on random rays
/// from above and from inside the chunk (caves).
fn check_hits_are_on_the_mesh(mesh: &IndexedMesh, seed: u64, options: BuildOptions) {
    let full = KdTree::build(mesh).unwrap();
    let compact = CompactTree::build_with(mesh, options).unwrap();
    let b = full.bounds();
    if !b.is_valid() {
        return;
    }
    let mut r = Rng(seed);
    let (mut s1, mut s2) = (Scratch::new(), Scratch::new());
    let mut all = Vec::new();
    let max_t = 2.0 * b.size().max_element();
    for i in 0..2000 {
        let ray = if i % 2 == 0 {
            let mut origin = r.point(&b);
            origin.y = b.max.y + 1.0;
            let target = r.point(&b);
            Ray::new(origin, Vec3::new(target.x - origin.x, -(b.size().y + 1.0), target.z - origin.z) * 0.05)
        } else {
            let origin = r.point(&b);
            Ray::new(origin, r.point(&b) - origin)
        };
        let on_mesh = |h: voxel_kdtree::RayHit, what: &str| {
            let point = ray.origin + ray.dir * h.t;
            let distance = point_triangle_distance(point, mesh.triangle_positions(h.triangle));
            let allowed = compact.hit_tolerance(&ray, h.triangle);
            assert!(
                distance <= f64::from(allowed),
                "{what} {h:?} of {ray:?} is {distance} from its triangle (tolerance {allowed})"
            );
        };
        let expect = full.cast_ray(mesh, &ray, max_t, &mut s1);
        let got = compact.cast_ray(&ray, max_t, &mut s2);
        if let Some(g) = got {
            on_mesh(g, "closest hit");
        }
        if let Some(e) = expect {
            assert!(got.is_some(), "compact missed {e:?} of {ray:?}");
        }
        compact.all_hits(&ray, max_t, &mut s2, &mut all);
        for &h in &all {
            on_mesh(h, "hit");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn compact_hits_lie_on_terrain_chunks(
        seed in any::<u64>(),
        key in prop::sample::select(vec![IVec3::ZERO, IVec3::new(1, 0, 1), IVec3::new(0, 1, 1), IVec3::new(1, 1, 0)]),
        offset in prop::sample::select(vec![Vec3::ZERO, Vec3::new(658.0, 3.0, 88.0), Vec3::new(-4000.0, 60.0, 12000.0)]),
    ) {
        let mesh = terrain_chunk(seed, key, offset);
        check_hits_are_on_the_mesh(&mesh, seed, BuildOptions::FAST);
        check_hits_are_on_the_mesh(&mesh, seed ^ 3, BuildOptions::QUALITY);
    }
}
