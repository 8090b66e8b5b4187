use glam::{IVec3, Vec3};
use voxel_contacts::*;
use voxel_core::{TriangleSource, Voxel, VoxelBox, VoxelGrid};
use voxel_kdtree::{KdTree, Scratch};
use voxel_mesh::{Mesh, MeshOptions, Mesher};
fn main() {
    let region = VoxelBox::new(IVec3::ZERO, IVec3::new(32, 32, 32));
    let grid = VoxelGrid::from_fn(region.grow(2), |p| {
        let p = p.as_vec3();
        let d = p.y - (16.0 + 3.0 * (0.3 * p.x).sin() * (0.2 * p.z).cos() + (0.7 * p.x + 0.4 * p.z).sin());
        Voxel::new((d * 32.0).clamp(-127.0, 127.0) as i8, 1)
    }).unwrap();
    let mut mesh = Mesh::new();
    Mesher::new().surface_nets(&grid, region, &MeshOptions::PHYSICS, &mut mesh).unwrap();
    let tree = KdTree::build(&mesh).unwrap();
    let mut scratch = Scratch::for_tree(&tree);
    let mut found = Vec::new();
    let mut set = Candidates::new();
    let mut generator = ContactGenerator::new();
    let mut out: Vec<Contact> = Vec::new();
    let mut probes = Vec::new();
    let mut s = 1u64;
    let kind = std::env::args().nth(1).unwrap_or("ball".into());
    for _ in 0..5000 {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let t = (s >> 33) as u32 % mesh.triangle_count() as u32;
        let [a, b, c] = mesh.triangle(t).map(|i| mesh.vertex(i));
        let n = (b - a).cross(c - a).normalize();
        let p = (a + b + c) / 3.0;
        if n.is_finite() { probes.push(p + n * 0.45); }
    }
    let rounds: usize = std::env::args().nth(2).map_or(200, |r| r.parse().unwrap());
    let t1 = std::time::Instant::now();
    let mut n = 0;
    for _ in 0..rounds { for &p in &probes { tree.query_aabb(&voxel_core::Aabb::new(p - 0.52, p + 0.52), &mut scratch, &mut found); n += found.len(); } }
    println!("query only {} ns, {} found/query, depth {}", t1.elapsed().as_nanos() as f64 / (rounds * probes.len()) as f64, n as f64 / (rounds * probes.len()) as f64, tree.depth());
    let t0 = std::time::Instant::now();
    let mut total = 0;
    let mut stats = [0usize; 6];
    for _ in 0..rounds {
        for &p in &probes {
            let shape = match kind.as_str() {
                "box" => Shape::Cuboid(Cuboid { half_extents: Vec3::new(0.5, 0.4, 0.45), pose: Pose::new(glam::Quat::from_rotation_y(0.3), p) }),
                _ => Shape::Sphere(Sphere { center: p, radius: 0.5 }),
            };
            let q = shape.aabb().grow(0.02);
            set.clear();
            tree.query_aabb(&q, &mut scratch, &mut found);
            for &t in &found {
                let ids = mesh.triangle(t);
                set.push(t, ids.map(|i| mesh.vertex(i)), ids);
            }
            for i in 0..set.len() { let p = set.positions(i); if voxel_core::Aabb::from_points(p).overlaps(&q) { stats[5] += 1; } }
            out.clear();
            let r = generator.generate(&shape, &set, &ContactOptions { contact_distance: 0.02, keys: FeatureKeys::Positions, max_points: 4 }, &mut out).unwrap();
            total += out.len();
            stats[0] += r.candidates; stats[1] += r.far; stats[2] += r.culled; stats[3] += r.faces; stats[4] += r.delayed; 
        }
    }
    println!("cands far culled faces delayed aabb-pass per query: {:?}", stats.map(|x| x as f64 / (rounds * probes.len()) as f64));
    println!("{} ns/query, {total}", t0.elapsed().as_nanos() as f64 / (rounds * probes.len()) as f64);
}
