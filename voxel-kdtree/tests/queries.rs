//! Every query against brute force over all triangles: random soups (with repeated, degenerate
//! and non-finite triangles), height fields (shared edges, planes on integer coordinates), and
//! rays along axes, through vertices, from inside the bounds and parallel to split planes.

use glam::Vec3;
use proptest::prelude::*;
use voxel_core::{Aabb, IndexedMesh, Ray, TriangleSource};
use voxel_kdtree::raw::NodeKind;
use voxel_kdtree::{
    BoxResults, BuildOptions, KdTree, QuadTree, RayHit, Scratch, depth_bound, ray_triangle, triangle_is_usable,
    triangle_overlaps_aabb,
};

/// A small deterministic generator (tests must not depend on a crate's random stream changing).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn unit(&mut self) -> f32 {
        (self.next() & 0xFF_FFFF) as f32 / (1 << 24) as f32
    }
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn point(&mut self, b: &Aabb) -> Vec3 {
        Vec3::new(self.range(b.min.x, b.max.x), self.range(b.min.y, b.max.y), self.range(b.min.z, b.max.z))
    }
    fn dir(&mut self) -> Vec3 {
        loop {
            let d = Vec3::new(self.range(-1.0, 1.0), self.range(-1.0, 1.0), self.range(-1.0, 1.0));
            if d.length() > 0.1 {
                return d;
            }
        }
    }
}

/// A soup over a shared vertex pool, with some repeated, degenerate and non-finite triangles.
fn soup(seed: u64, triangles: usize) -> IndexedMesh {
    let mut r = Rng(seed);
    let extent = Aabb::new(Vec3::splat(-10.0), Vec3::splat(10.0));
    let vertex_count = (triangles * 3 / 2).max(3);
    let mut positions: Vec<Vec3> = (0..vertex_count)
        .map(|_| {
            let mut p = r.point(&extent);
            // Snap some coordinates to integers, so planes and rays line up exactly.
            if r.below(3) == 0 {
                p = p.round();
            }
            p
        })
        .collect();
    positions.push(Vec3::new(f32::NAN, 0.0, 0.0));
    positions.push(Vec3::new(0.0, f32::INFINITY, 0.0));
    let n = positions.len() as u32;
    let mut tris = Vec::with_capacity(triangles);
    for i in 0..triangles {
        // Local triangles: pick a vertex and two neighbours in the pool, so sizes vary.
        let a = r.below(vertex_count) as u32;
        let mut t =
            [a, (a + 1 + r.below(4) as u32) % vertex_count as u32, (a + 2 + r.below(7) as u32) % vertex_count as u32];
        match i % 17 {
            3 => t[2] = t[1],                   // degenerate: repeated corner
            7 => t[0] = n - 1 - (i as u32 % 2), // non-finite corner
            11 if i > 0 => t = tris[i - 1],     // duplicate
            _ => {}
        }
        tris.push(t);
    }
    IndexedMesh::new(positions, tris).unwrap()
}

/// A height field on the integer grid, as quads split [q0, q1, q2] + [q0, q2, q3].
fn height_field(seed: u64, n: usize) -> IndexedMesh {
    let mut r = Rng(seed);
    let mut positions = Vec::new();
    for z in 0..=n {
        for x in 0..=n {
            let h = if r.below(4) == 0 { 0.0 } else { r.below(3) as f32 * 0.5 };
            positions.push(Vec3::new(x as f32, h, z as f32));
        }
    }
    let id = |x: usize, z: usize| (z * (n + 1) + x) as u32;
    let mut tris = Vec::new();
    for z in 0..n {
        for x in 0..n {
            let q = [id(x, z), id(x, z + 1), id(x + 1, z + 1), id(x + 1, z)];
            tris.push([q[0], q[1], q[2]]);
            tris.push([q[0], q[2], q[3]]);
        }
    }
    IndexedMesh::new(positions, tris).unwrap()
}

fn usable(mesh: &IndexedMesh) -> impl Iterator<Item = (u32, [Vec3; 3])> + '_ {
    (0..mesh.triangle_count() as u32).map(|t| (t, mesh.triangle_positions(t))).filter(|(_, p)| triangle_is_usable(*p))
}

fn brute_closest(mesh: &IndexedMesh, ray: &Ray, max_t: f32) -> Option<RayHit> {
    let mut best: Option<RayHit> = None;
    for (id, tri) in usable(mesh) {
        if let Some(t) = ray_triangle(ray, tri, max_t) {
            if best.is_none_or(|b| t < b.t || (t == b.t && id < b.triangle)) {
                best = Some(RayHit { t, triangle: id });
            }
        }
    }
    best
}

fn brute_all(mesh: &IndexedMesh, ray: &Ray, max_t: f32) -> Vec<RayHit> {
    let mut all: Vec<RayHit> = usable(mesh)
        .filter_map(|(id, tri)| ray_triangle(ray, tri, max_t).map(|t| RayHit { t, triangle: id }))
        .collect();
    all.sort_by(|a, b| a.t.total_cmp(&b.t).then(a.triangle.cmp(&b.triangle)));
    all
}

/// Rays of every kind the issue lists, around `bounds`.
fn rays(mesh: &IndexedMesh, seed: u64, count: usize) -> Vec<Ray> {
    let mut r = Rng(seed);
    let b = mesh.aabb();
    let b = if b.is_valid() { b } else { Aabb::new(Vec3::ZERO, Vec3::ONE) };
    let around = b.grow(b.size().max_element() * 0.5 + 1.0);
    let finite: Vec<Vec3> = mesh.positions().iter().copied().filter(|p| p.is_finite()).collect();
    let axes = [Vec3::X, Vec3::NEG_X, Vec3::Y, Vec3::NEG_Y, Vec3::Z, Vec3::NEG_Z];
    (0..count)
        .map(|i| {
            let inside = r.point(&b);
            let outside = r.point(&around);
            match i % 6 {
                0 => Ray::new(outside, r.dir()),
                1 => Ray::new(inside, r.dir()),
                2 => Ray::new(if r.below(2) == 0 { inside } else { outside.round() }, axes[r.below(6)]),
                3 if !finite.is_empty() => {
                    let v = finite[r.below(finite.len())];
                    Ray::new(outside, v - outside)
                }
                4 => {
                    // Parallel to one axis' planes.
                    let mut d = r.dir();
                    d[r.below(3)] = 0.0;
                    Ray::new(if r.below(2) == 0 { inside } else { outside }, d)
                }
                _ => Ray::new(inside.round(), r.dir()),
            }
        })
        .collect()
}

fn boxes(mesh: &IndexedMesh, seed: u64, count: usize) -> Vec<Aabb> {
    let mut r = Rng(seed);
    let b = mesh.aabb();
    let b = if b.is_valid() { b.grow(1.0) } else { Aabb::new(Vec3::ZERO, Vec3::ONE) };
    (0..count)
        .map(|i| {
            let c = r.point(&b);
            let h = Vec3::new(r.range(0.0, 2.0), r.range(0.0, 2.0), r.range(0.0, 2.0));
            match i % 5 {
                0 => Aabb::new(c.round(), c.round() + h.round()),
                1 => Aabb::new(c, c), // a point
                _ => Aabb::new(c - h, c + h),
            }
        })
        .collect()
}

/// The checks every mesh goes through, for both builds.
fn check(mesh: &IndexedMesh, seed: u64) {
    let fast = KdTree::build(mesh).unwrap();
    check_tree(&fast, mesh, seed, depth_bound(fast.len()));
    let quality = KdTree::build_with(mesh, BuildOptions::QUALITY).unwrap();
    // The quality build may go deeper than the seed's bound, up to what the stack holds.
    check_tree(&quality, mesh, seed, 63);
    assert_eq!(quality, KdTree::build_with(mesh, BuildOptions::QUALITY).unwrap(), "deterministic");
    // The same answers as the seed's build (closest hits exactly, box queries as sets).
    let (mut s1, mut s2) = (Scratch::new(), Scratch::new());
    for ray in rays(mesh, seed ^ 5, 40) {
        assert_eq!(quality.cast_ray(mesh, &ray, 50.0, &mut s1), fast.cast_ray(mesh, &ray, 50.0, &mut s2), "{ray:?}");
    }
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for query in boxes(mesh, seed ^ 9, 20) {
        quality.query_aabb_exact(mesh, &query, &mut s1, &mut a);
        fast.query_aabb_exact(mesh, &query, &mut s2, &mut b);
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b, "{query:?}");
    }
}

fn check_tree(tree: &KdTree, mesh: &IndexedMesh, seed: u64, max_depth: u32) {
    let usable_count = usable(mesh).count();
    assert_eq!(tree.len(), usable_count);
    assert_eq!(tree.skipped(), mesh.triangle_count() - usable_count);
    assert!(tree.depth() <= max_depth, "depth {} over {max_depth}", tree.depth());
    check_structure(tree, mesh);
    // Even splits: every leaf holds two triangles but one when the count is odd, so at most one
    // node per triangle (12 bytes per triangle).
    let singles = tree.nodes().iter().filter(|n| matches!(n.kind(), NodeKind::Leaf { count: 1, .. })).count();
    assert_eq!(singles, tree.len() % 2, "leaves with one triangle");
    assert!(tree.nodes().len() <= tree.len(), "{} nodes for {} triangles", tree.nodes().len(), tree.len());
    assert!(tree.heap_bytes() <= 12 * tree.len(), "{} bytes for {} triangles", tree.heap_bytes(), tree.len());

    let mut scratch = Scratch::new();
    let mut found = Vec::new();
    let mut all = Vec::new();
    for (i, ray) in rays(mesh, seed, 60).iter().enumerate() {
        let max_t = if i % 7 == 0 { 3.0 } else { f32::INFINITY };
        let expect = brute_closest(mesh, ray, max_t);
        assert_eq!(tree.cast_ray(mesh, ray, max_t, &mut scratch), expect, "ray {ray:?}");
        assert_eq!(tree.any_hit(mesh, ray, max_t, &mut scratch), expect.is_some(), "any-hit {ray:?}");
        tree.all_hits(mesh, ray, max_t, &mut scratch, &mut all);
        assert_eq!(all, brute_all(mesh, ray, max_t), "all-hits {ray:?}");
    }
    for query in boxes(mesh, seed ^ 1, 40) {
        tree.query_aabb(&query, &mut scratch, &mut found);
        let mut candidates = found.clone();
        candidates.sort_unstable();
        assert!(candidates.windows(2).all(|w| w[0] < w[1]), "a triangle reported twice");
        for (id, tri) in usable(mesh) {
            if Aabb::from_points(tri).overlaps(&query) {
                assert!(candidates.binary_search(&id).is_ok(), "candidate {id} missing for {query:?}");
            }
        }
        tree.query_aabb_exact(mesh, &query, &mut scratch, &mut found);
        found.sort_unstable();
        let expect: Vec<u32> =
            usable(mesh).filter(|(_, t)| triangle_overlaps_aabb(*t, &query)).map(|(id, _)| id).collect();
        assert_eq!(found, expect, "exact {query:?}");
        // Bounding-box candidates: exactly the stored triangles whose boxes touch the query.
        tree.query_aabb_bounds(mesh, &query, &mut scratch, &mut found);
        found.sort_unstable();
        let expect: Vec<u32> =
            usable(mesh).filter(|(_, t)| Aabb::from_points(*t).overlaps(&query)).map(|(id, _)| id).collect();
        assert_eq!(found, expect, "bounds {query:?}");
    }
}

/// Every triangle lies in its leaf's volume as the planes recover it, and appears once.
fn check_structure(tree: &KdTree, mesh: &IndexedMesh) {
    let mut seen = vec![0u32; mesh.triangle_count()];
    if tree.nodes().is_empty() {
        assert_eq!(tree.len(), 0);
        return;
    }
    let mut stack = vec![(0u32, tree.bounds())];
    while let Some((i, volume)) = stack.pop() {
        match tree.nodes()[i as usize].kind() {
            NodeKind::Leaf { count, ids } => {
                assert!((1..=2).contains(&count));
                for &id in &ids[..count] {
                    seen[id as usize] += 1;
                    for p in mesh.triangle_positions(id) {
                        assert!(volume.contains_point(p), "triangle {id} outside its leaf");
                    }
                }
            }
            NodeKind::Branch { axis, planes, first_child } => {
                let (mut left, mut right) = (volume, volume);
                left.max[axis] = left.max[axis].min(planes[0]);
                right.min[axis] = right.min[axis].max(planes[1]);
                stack.push((first_child, left));
                stack.push((first_child + 1, right));
            }
        }
    }
    for (id, tri) in usable(mesh) {
        assert_eq!(seen[id as usize], 1, "triangle {id} {tri:?}");
    }
    assert_eq!(seen.iter().sum::<u32>() as usize, tree.len());
}

/// The quad tree answers as the triangle tree does.
fn check_quads(mesh: &IndexedMesh, seed: u64) {
    let tree = KdTree::build(mesh).unwrap();
    let quads = QuadTree::build(mesh).unwrap();
    // The quality build over quads too.
    let quality = QuadTree::build_with(mesh, BuildOptions::QUALITY).unwrap();
    assert_eq!(quads.skipped(), tree.skipped());
    let mut scratch = Scratch::new();
    for ray in rays(mesh, seed, 60) {
        let expect = brute_closest(mesh, &ray, 1e6);
        assert_eq!(quads.cast_ray(mesh, &ray, 1e6, &mut scratch), expect, "{ray:?}");
        assert_eq!(quality.cast_ray(mesh, &ray, 1e6, &mut scratch), expect, "{ray:?}");
    }
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for query in boxes(mesh, seed, 30) {
        quads.query_aabb_exact(mesh, &query, &mut scratch, &mut a);
        tree.query_aabb_exact(mesh, &query, &mut scratch, &mut b);
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b);
    }
}

/// Batch queries give the serial answers in input order.
fn check_batches(mesh: &IndexedMesh, seed: u64) {
    let tree = KdTree::build(mesh).unwrap();
    let mut scratch = Scratch::new();
    let rays = rays(mesh, seed, 300);
    let mut hits = Vec::new();
    tree.cast_rays(mesh, &rays, 50.0, &mut hits);
    let serial: Vec<_> = rays.iter().map(|r| tree.cast_ray(mesh, r, 50.0, &mut scratch)).collect();
    assert_eq!(hits, serial);
    let mut any = Vec::new();
    tree.any_hits(mesh, &rays, 50.0, &mut any);
    assert_eq!(any, serial.iter().map(Option::is_some).collect::<Vec<_>>());

    let boxes = boxes(mesh, seed, 300);
    let mut results = BoxResults::new();
    tree.query_aabbs(&boxes, &mut results);
    assert_eq!(results.len(), boxes.len());
    let mut found = Vec::new();
    for (i, b) in boxes.iter().enumerate() {
        tree.query_aabb(b, &mut scratch, &mut found);
        assert_eq!(results.get(i), &found[..]);
    }
    tree.query_aabbs_exact(mesh, &boxes, &mut results);
    for (i, b) in boxes.iter().enumerate() {
        tree.query_aabb_exact(mesh, b, &mut scratch, &mut found);
        assert_eq!(results.get(i), &found[..]);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn soups_equal_brute_force(seed in any::<u64>(), n in 0usize..400) {
        check(&soup(seed, n), seed);
    }

    #[test]
    fn height_fields_equal_brute_force(seed in any::<u64>(), n in 1usize..14) {
        let mesh = height_field(seed, n);
        check(&mesh, seed);
        check_quads(&mesh, seed);
    }

    #[test]
    fn batches_equal_serial(seed in any::<u64>(), n in 0usize..300) {
        check_batches(&soup(seed, n), seed);
    }
}

#[test]
fn empty_and_all_degenerate_meshes() {
    let empty = IndexedMesh::new(Vec::new(), Vec::new()).unwrap();
    let tree = KdTree::build(&empty).unwrap();
    assert!(tree.is_empty() && tree.nodes().is_empty());
    let mut s = Scratch::new();
    assert_eq!(tree.cast_ray(&empty, &Ray::new(Vec3::ZERO, Vec3::X), 1.0, &mut s), None);
    let flat = IndexedMesh::new(vec![Vec3::ZERO, Vec3::X, Vec3::X * 2.0], vec![[0, 1, 2], [0, 0, 0]]).unwrap();
    let tree = KdTree::build(&flat).unwrap();
    assert_eq!((tree.len(), tree.skipped()), (0, 2));
    let mut out = vec![7];
    tree.query_aabb(&Aabb::new(Vec3::splat(-9.0), Vec3::splat(9.0)), &mut s, &mut out);
    assert!(out.is_empty());
}

#[test]
fn bad_rays_and_boxes_hit_nothing() {
    let mesh = height_field(3, 6);
    let tree = KdTree::build(&mesh).unwrap();
    let mut s = Scratch::new();
    let good = Ray::new(Vec3::new(2.5, 5.0, 2.5), Vec3::NEG_Y);
    assert!(tree.cast_ray(&mesh, &good, 100.0, &mut s).is_some());
    for max_t in [f32::NAN, -1.0] {
        assert!(tree.cast_ray(&mesh, &good, max_t, &mut s).is_none());
    }
    for ray in [
        Ray::new(Vec3::new(2.5, 5.0, 2.5), Vec3::ZERO),
        Ray::new(Vec3::new(f32::NAN, 5.0, 2.5), Vec3::NEG_Y),
        Ray::new(Vec3::new(2.5, 5.0, 2.5), Vec3::new(0.0, f32::NEG_INFINITY, 0.0)),
    ] {
        assert!(tree.cast_ray(&mesh, &ray, 100.0, &mut s).is_none());
        assert!(!tree.any_hit(&mesh, &ray, 100.0, &mut s));
    }
    let mut out = Vec::new();
    for b in [Aabb::EMPTY, Aabb::new(Vec3::splat(f32::NAN), Vec3::ONE), Aabb::new(Vec3::ONE, Vec3::ZERO)] {
        tree.query_aabb(&b, &mut s, &mut out);
        assert!(out.is_empty());
        tree.query_aabb_exact(&mesh, &b, &mut s, &mut out);
        assert!(out.is_empty());
        tree.query_aabb_bounds(&mesh, &b, &mut s, &mut out);
        assert!(out.is_empty());
    }
    // Another source (different triangle count) gets nothing rather than a panic.
    let other = height_field(3, 2);
    assert!(tree.cast_ray(&other, &good, 100.0, &mut s).is_none());
    tree.query_aabb_bounds(&other, &Aabb::new(Vec3::splat(-99.0), Vec3::splat(99.0)), &mut s, &mut out);
    assert!(out.is_empty());
}

#[test]
fn not_quads_is_an_error() {
    let mesh = IndexedMesh::new(vec![Vec3::ZERO, Vec3::X, Vec3::Z, Vec3::ONE], vec![[0, 1, 2], [1, 2, 3]]).unwrap();
    assert!(matches!(QuadTree::build(&mesh), Err(voxel_kdtree::KdTreeError::NotQuads { triangle: 1 })));
    let odd = IndexedMesh::new(vec![Vec3::ZERO, Vec3::X, Vec3::Z], vec![[0, 1, 2]]).unwrap();
    assert!(QuadTree::build(&odd).is_err());
}

#[test]
fn deep_degenerate_distributions_stay_within_the_depth_bound() {
    // Many triangles with one midpoint (a fan of slivers) and geometric sizes: the 25% fallback
    // must keep the depth bounded.
    let mut positions = vec![Vec3::ZERO];
    let mut tris = Vec::new();
    for i in 0..2000u32 {
        let s = 1.0 + i as f32;
        let k = 1.5f32.powi((i % 60) as i32);
        let base = positions.len() as u32;
        positions.extend([Vec3::new(s, 0.0, 1.0), Vec3::new(-s, 0.0, -1.0), Vec3::new(k, k, 0.0)]);
        tris.push([0, base, base + 1]);
        tris.push([0, base, base + 2]);
    }
    let mesh = IndexedMesh::new(positions, tris).unwrap();
    let tree = KdTree::build(&mesh).unwrap();
    assert!(tree.depth() <= depth_bound(tree.len()));
    check(&mesh, 5);
}

/// Triangles of geometric sizes from one corner: the surface-area cost peels the largest off a
/// few at a time, past the seed's depth bound (43 levels against 18); the quality build must stay
/// within the stack's 63 levels and still answer as brute force.
#[test]
fn quality_build_stays_within_the_stack_on_geometric_sizes() {
    let mut positions = Vec::new();
    let mut tris = Vec::new();
    for i in 0..600u32 {
        let k = 1.05f32.powi(i as i32);
        let base = positions.len() as u32;
        positions.extend([Vec3::ZERO, Vec3::new(k, 0.1 * k, 0.0), Vec3::new(0.0, 0.2 * k, k)]);
        tris.push([base, base + 1, base + 2]);
    }
    let mesh = IndexedMesh::new(positions, tris).unwrap();
    let tree = KdTree::build_with(&mesh, BuildOptions::QUALITY).unwrap();
    assert!(tree.depth() <= 63 && tree.depth() > depth_bound(tree.len()), "depth {}", tree.depth());
    check(&mesh, 11);
}

/// Rays parallel to split planes and starting exactly on them (height field vertices lie on the
/// planes), with `+0` and `-0` direction components (infinite inverses of both signs): a plane
/// distance is NaN there, and the ray must still see both closed children. Equal to brute force.
#[test]
fn rays_on_split_planes_with_signed_zero_directions() {
    for (seed, options) in (0..6).flat_map(|seed| [(seed, BuildOptions::FAST), (seed, BuildOptions::QUALITY)]) {
        let mesh = height_field(seed, 9);
        let tree = KdTree::build_with(&mesh, options).unwrap();
        let mut scratch = Scratch::new();
        let zeros = [0.0f32, -0.0];
        let mut checked = 0;
        for v in mesh.positions().iter().step_by(3) {
            for &zx in &zeros {
                for &zz in &zeros {
                    for &zy in &zeros {
                        let rays = [
                            // Straight down through the vertex.
                            Ray::new(*v + Vec3::Y, Vec3::new(zx, -1.0, zz)),
                            // Along x and along z at the vertex's height, from outside.
                            Ray::new(Vec3::new(-1.0, v.y, v.z), Vec3::new(1.0, zy, zz)),
                            Ray::new(Vec3::new(v.x, v.y, 10.0), Vec3::new(zx, zy, -1.0)),
                            // Diagonal in the xz plane, on a y plane.
                            Ray::new(Vec3::new(v.x - 2.0, v.y, v.z - 2.0), Vec3::new(1.0, zy, 1.0)),
                        ];
                        for ray in rays {
                            let expect = brute_closest(&mesh, &ray, f32::INFINITY);
                            assert_eq!(tree.cast_ray(&mesh, &ray, f32::INFINITY, &mut scratch), expect, "{ray:?}");
                            assert_eq!(tree.any_hit(&mesh, &ray, f32::INFINITY, &mut scratch), expect.is_some());
                            checked += usize::from(expect.is_some());
                        }
                    }
                }
            }
        }
        assert!(checked > 100, "too few hits to mean anything: {checked}");
    }
}

/// A hit at exactly `max_t` on the root box's surface: the computed entry into the box (1.0)
/// lies an ulp past the hit (0.99999994), and the tree clipped the ray to the box with `max_t`
/// before widening, so the hit brute force finds was lost (an audit's single triangle; 422
/// cases over its meshes). Every hit is then cast again with `max_t` at its own distance.
#[test]
fn a_hit_at_t_max_on_the_root_box_is_found() {
    let mesh = IndexedMesh::new(
        vec![Vec3::new(-1.0, 0.3, 2.0), Vec3::new(4.0, 1.0, -2.5), Vec3::new(0.5, 3.7, 0.25)],
        vec![[0, 1, 2]],
    )
    .unwrap();
    let tree = KdTree::build(&mesh).unwrap();
    let mut scratch = Scratch::new();
    let ray = Ray::new(Vec3::new(6.3625426, -0.83105606, -3.0132043), Vec3::new(-7.3625426, 1.1310561, 5.0132046));
    let hit = ray_triangle(&ray, mesh.triangle_positions(0), f32::INFINITY).expect("the ray hits the triangle");
    assert_eq!(tree.cast_ray(&mesh, &ray, hit, &mut scratch).map(|h| h.t), Some(hit));
    assert!(tree.any_hit(&mesh, &ray, hit, &mut scratch));
    let mut rng = Rng(99);
    let mut hits = 0;
    // Both builds: their leaves' volumes differ, and the hits lie on those volumes' faces too.
    for (seed, options) in (0..4).flat_map(|seed| [(seed, BuildOptions::FAST), (seed, BuildOptions::QUALITY)]) {
        let mesh = height_field(seed, 9);
        let tree = KdTree::build_with(&mesh, options).unwrap();
        for _ in 0..3000 {
            let from = Vec3::new(rng.range(-2.0, 12.0), rng.range(-3.0, 6.0), rng.range(-2.0, 12.0));
            let to = Vec3::new(rng.range(0.0, 9.0), rng.range(-1.0, 2.0), rng.range(0.0, 9.0));
            let ray = Ray::new(from, to - from);
            let Some(expect) = brute_closest(&mesh, &ray, f32::INFINITY) else { continue };
            hits += 1;
            assert_eq!(brute_closest(&mesh, &ray, expect.t), Some(expect));
            assert_eq!(tree.cast_ray(&mesh, &ray, expect.t, &mut scratch), Some(expect), "{ray:?}");
            assert!(tree.any_hit(&mesh, &ray, expect.t, &mut scratch), "{ray:?}");
        }
    }
    assert!(hits > 2000, "{hits}");
}

/// Soups far below and far above unit size (an audit found the tree missing hits at 1e-20 and
/// taking the farther of two triangles at 1e-16, where the ray test's products underflowed):
/// every query still equals brute force.
#[test]
fn tiny_and_huge_soups_equal_brute_force() {
    for scale in [1e-20f32, 1e-16, 1e-12, 1e12, 1e15] {
        for seed in 0..4 {
            let mesh = soup(seed, 200);
            let scaled =
                IndexedMesh::new(mesh.positions().iter().map(|&p| p * scale).collect(), mesh.triangles().to_vec())
                    .expect("a valid mesh");
            check(&scaled, seed);
        }
    }
}
