//! Surface Nets: seams, normals, winding, materials, bad input, and the fast-surface-nets oracle.

use std::collections::HashMap;

use glam::{IVec3, Vec3};
use proptest::prelude::*;
use voxel_core::{Phase, PhaseTable, RegionHint, TriangleSource, Voxel, VoxelBox, VoxelGrid, VoxelSource};
use voxel_mesh::{Indices, Mesh, MeshError, MeshOptions, Mesher, Surface};
use voxel_store::generate::{self, Terrain};
use voxel_testdata::mix;

/// SplitMix64 steps over the coordinates, so fields come from a seed.
fn hash(seed: u64, p: IVec3) -> u64 {
    mix(seed ^ mix(p.x as u64 ^ mix(p.y as u64 ^ mix(p.z as u64))))
}

/// A random field: distances uniform in i8, inside with probability `density`/256, materials 1..=3.
fn random_field(seed: u64, bounds: VoxelBox, density: u8) -> VoxelGrid {
    VoxelGrid::from_fn(bounds, |p| {
        let h = hash(seed, p);
        let inside = (h & 0xff) < u64::from(density);
        let magnitude = ((h >> 8) % 128) as i8;
        let material = 1 + ((h >> 16) % 3) as u8;
        if inside { Voxel::new(-magnitude - 1, material) } else { Voxel::new(magnitude, material) }
    })
    .unwrap()
}

fn mesh(source: &impl VoxelSource, region: VoxelBox, options: &MeshOptions) -> Mesh {
    let mut out = Mesh::new();
    Mesher::new().surface_nets(source, region, options, &mut out).unwrap();
    out
}

/// Triangles as bit patterns of each corner's position and normal, rotated so the smallest corner
/// comes first (keeps winding), sorted.
fn triangle_keys(m: &Mesh) -> Vec<[[u32; 6]; 3]> {
    let mut keys: Vec<[[u32; 6]; 3]> = (0..m.triangle_count() as u32)
        .map(|t| {
            let k = m.triangle(t).map(|v| {
                let (p, n) = (m.positions()[v as usize], m.normals().get(v as usize).copied().unwrap_or_default());
                [p.x, p.y, p.z, n.x, n.y, n.z].map(f32::to_bits)
            });
            let first = (0..3).min_by_key(|&i| k[i]).unwrap();
            [k[first], k[(first + 1) % 3], k[(first + 2) % 3]]
        })
        .collect();
    keys.sort_unstable();
    keys
}

fn chunks(region: VoxelBox, edge: i32) -> Vec<VoxelBox> {
    region.chunk_keys(edge).iter().map(|k| VoxelBox::chunk(k, edge).intersection(&region)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Seed 004's seam rules: the chunks' triangles are exactly the whole region's, none missing
    /// and none twice, with bit-equal positions and normals, so a vertex on a border has the same
    /// position and normal in every chunk that holds it.
    #[test]
    fn chunks_tile_the_region_exactly(seed in any::<u64>(), density in 40u8..216, edge in 3i32..9,
                                      size in 6i32..20, offset in -40i32..40) {
        let region = VoxelBox::from_min_size(IVec3::new(offset, -offset / 2, 3), IVec3::new(size, size - 2, size + 1));
        let field = random_field(seed, region.grow(2), density);
        let whole = mesh(&field, region, &MeshOptions::default());
        let mut parts = Vec::new();
        let mut mesher = Mesher::new();
        let mut part = Mesh::new();
        for chunk in chunks(region, edge) {
            mesher.surface_nets(&field, chunk, &MeshOptions::default(), &mut part).unwrap();
            parts.extend(triangle_keys(&part));
        }
        parts.sort_unstable();
        prop_assert_eq!(triangle_keys(&whole), parts);
    }

    /// Closed surface: meshing a region that holds the whole field, every directed edge is used as
    /// often as its reverse (no crack, consistent winding; an edge is shared by four quads where a
    /// cube face has all four of its grid edges crossed, hence counts rather than exactly one).
    /// Edges are keyed by their ends' positions: distance-0 voxels put several cubes' vertices at
    /// one point, and a left-out triangle `p1, b, p2` (`p1`, `p2` at that point) leaves `p1 -> b`
    /// and `b -> p2` twinned only by position.
    #[test]
    fn closed_fields_give_closed_consistently_wound_meshes(seed in any::<u64>(), density in 30u8..226) {
        let inner = VoxelBox::new(IVec3::splat(1), IVec3::splat(11));
        // Outside voxels everywhere but the inner box, so the surface is closed within the region.
        let values = random_field(seed, inner, density);
        let field = VoxelGrid::from_fn(VoxelBox::new(IVec3::splat(-2), IVec3::splat(14)), |p| {
            if inner.contains(p) { values.get(p) } else { Voxel::EMPTY }
        }).unwrap();
        let m = mesh(&field, VoxelBox::new(IVec3::splat(-1), IVec3::splat(13)), &MeshOptions::default());
        let mut directed: HashMap<(u32, u32), i32> = HashMap::new();
        let mut by_position: HashMap<([u32; 3], [u32; 3]), i32> = HashMap::new();
        let at = |v: u32| m.positions()[v as usize].to_array().map(f32::to_bits);
        for t in 0..m.triangle_count() as u32 {
            let [a, b, c] = m.triangle(t);
            for (u, v) in [(a, b), (b, c), (c, a)] {
                *directed.entry((u, v)).or_default() += 1;
                *by_position.entry((at(u), at(v))).or_default() += 1;
            }
        }
        prop_assert!(!m.is_empty());
        for (&(u, v), &count) in &directed {
            prop_assert!(count <= 2, "directed edge {}->{} used {} times", u, v, count);
        }
        for (&(u, v), &count) in &by_position {
            prop_assert_eq!(by_position.get(&(v, u)), Some(&count), "edge {:?}->{:?} has no twin", u, v);
        }
    }

    /// Oracle: every vertex equals fast-surface-nets' vertex of the same cube, on the same
    /// distances (inside voxels negative, outside positive).
    #[test]
    fn vertices_agree_with_fast_surface_nets(seed in any::<u64>(), density in 40u8..216) {
        let region = VoxelBox::new(IVec3::new(-5, 2, 7), IVec3::new(9, 14, 20));
        let padded = region.grow(1);
        let field = random_field(seed, padded, density);
        let ours = mesh(&field, region, &MeshOptions::default());

        // fast-surface-nets wants x fastest, then y, then z, as f32.
        let size = padded.size().as_uvec3();
        let shape = fast_surface_nets::ndshape::RuntimeShape::<u32, 3>::new(size.to_array());
        let mut sdf = vec![0f32; padded.volume() as usize];
        for p in padded.iter() {
            let l = (p - padded.min).as_uvec3();
            sdf[(l.x + size.x * (l.y + size.y * l.z)) as usize] = f32::from(field.get(p).distance);
        }
        let mut buffer = fast_surface_nets::SurfaceNetsBuffer::default();
        fast_surface_nets::surface_nets(&sdf, &shape, [0; 3], (size - 1).to_array(), &mut buffer);
        let theirs: HashMap<[u32; 3], (Vec3, Vec3)> = buffer.surface_points.iter().zip(&buffer.positions).zip(&buffer.normals)
            .map(|((c, p), n)| (*c, (Vec3::from(*p) + padded.min.as_vec3(), Vec3::from(*n))))
            .collect();
        prop_assert!(!ours.positions().is_empty() || theirs.is_empty());
        for (p, n) in ours.positions().iter().zip(ours.normals()) {
            // The vertex lies in its cube, maybe on a face or corner of it, so up to 8 cubes are
            // candidates; two cubes can even give the same point, so one must match in both.
            let base = (*p - padded.min.as_vec3()).floor().as_ivec3();
            let matched = (0..8).any(|k| {
                let c = base - IVec3::new(k & 1, (k >> 1) & 1, (k >> 2) & 1);
                !c.cmplt(IVec3::ZERO).any() && theirs.get(&c.as_uvec3().to_array()).is_some_and(|(q, their_n)| {
                    q.distance(*p) < 1e-5 && their_n.try_normalize().is_none_or(|t| t.dot(*n) > 0.9999)
                })
            });
            prop_assert!(matched, "no fast-surface-nets vertex with the same position and normal at {}", p);
        }
    }
}

#[test]
fn sphere_normals_point_outward_and_triangles_agree() {
    let center = Vec3::new(10.3, 9.7, 10.1);
    let world = generate::sphere(center, 6.5).unwrap();
    let m = mesh(&world, VoxelBox::new(IVec3::ZERO, IVec3::splat(21)), &MeshOptions::default());
    assert!(m.triangle_count() > 500);
    for (p, n) in m.positions().iter().zip(m.normals()) {
        assert!((n.length() - 1.0).abs() < 1e-5);
        assert!(n.dot((*p - center).normalize()) > 0.9, "normal {n} at {p}");
        assert!(((*p - center).length() - 6.5).abs() < 0.3, "vertex {p} off the sphere");
    }
    for t in 0..m.triangle_count() as u32 {
        let [a, b, c] = m.triangle_positions(t);
        let face = (b - a).cross(c - a);
        let centroid = (a + b + c) / 3.0;
        assert!(face.dot(centroid - center) > 0.0, "triangle {t} winds inward");
    }
}

#[test]
fn quads_split_along_the_shorter_diagonal() {
    let world = generate::sphere(Vec3::splat(8.2), 5.3).unwrap();
    let m = mesh(&world, VoxelBox::new(IVec3::ZERO, IVec3::splat(17)), &MeshOptions::PHYSICS);
    assert!(m.quad_count() > 100);
    for q in 0..m.quad_count() {
        let [a, b, c, d] = m.quad(q).map(|i| m.positions()[i as usize]);
        assert!(a.distance_squared(c) <= b.distance_squared(d), "quad {q} split along the longer diagonal");
        assert_eq!(m.triangle(2 * q as u32)[0], m.quad(q)[0]);
    }
    assert!(m.normals().is_empty() && m.blend().is_empty(), "PHYSICS writes no normals or blend");
}

#[test]
fn dominant_material_and_blend_weights() {
    // Rock below y = 5.5, grass from 5.5 up to the surface at y = 8.4: vertices near the boundary
    // blend the two, vertices far from it are pure.
    let bounds = VoxelBox::new(IVec3::splat(-1), IVec3::splat(13));
    let field = VoxelGrid::from_fn(bounds, |p| {
        let d = ((p.y as f32 - 8.4) * 40.0).clamp(-127.0, 127.0) as i8;
        let x = p.x as f32 + 0.5 * p.z as f32;
        let material = if (p.y as f32) < 5.5 + 0.4 * x { 3 } else { 1 };
        Voxel::new(d, material)
    })
    .unwrap();
    let options = MeshOptions { blend: true, ..MeshOptions::default() };
    let m = mesh(&field, VoxelBox::new(IVec3::ZERO, IVec3::splat(12)), &options);
    assert_eq!(m.blend().len(), m.positions().len());
    let mut mixed = 0;
    for ((p, &dominant), blend) in m.positions().iter().zip(m.materials()).zip(m.blend()) {
        assert_eq!(blend.ids[0], dominant);
        assert_eq!(blend.weights.iter().map(|&w| u32::from(w)).sum::<u32>(), 255);
        let x = p.x.floor() + 0.5 * p.z.floor();
        // Inside corners of this cube lie at y = 8 (floor of the vertex y).
        let expected = if 8.0 < 5.5 + 0.4 * x { 3 } else { 1 };
        if blend.weights[0] == 255 {
            assert_eq!(dominant, expected, "pure vertex at {p}");
        } else {
            mixed += 1;
            assert!(blend.ids[..2].contains(&1) && blend.ids[..2].contains(&3));
        }
    }
    assert!(mixed > 0, "the material boundary crosses the surface, some vertices blend");
}

#[test]
fn solid_and_water_are_meshed_separately() {
    let terrain = generate::terrain(&Terrain::new(IVec3::new(64, 48, 64), 7)).unwrap();
    let region = VoxelBox::new(IVec3::ZERO, IVec3::new(64, 48, 64));
    let solid = mesh(&terrain, region, &MeshOptions::default());
    let water = mesh(&terrain, region, &MeshOptions { surface: Surface::Liquid, ..MeshOptions::default() });
    let all = mesh(&terrain, region, &MeshOptions { surface: Surface::All, ..MeshOptions::default() });
    assert!(!solid.is_empty() && !water.is_empty() && !all.is_empty());
    let water_level = 0.4 * 48.0;
    let phases = terrain.phase_table();
    assert!(solid.materials().iter().all(|&m| phases.phase(m) == Phase::Solid));
    assert!(water.materials().iter().all(|&m| phases.phase(m) == Phase::Liquid));
    // Water is never above its level, and its top is flat at the level (the rest of its surface
    // lies against the lake beds and the flooded caves).
    assert!(water.positions().iter().all(|p| p.y <= water_level + 0.5));
    let flat = water.positions().iter().filter(|p| (p.y - water_level).abs() < 0.5).count();
    assert!(flat > 50, "{flat} of {} water vertices at the level", water.positions().len());
    assert!(solid.triangle_count() > 1000);
}

#[test]
fn index_width_follows_the_vertex_count() {
    let world = generate::sphere(Vec3::splat(8.0), 5.0).unwrap();
    let small = mesh(&world, VoxelBox::new(IVec3::ZERO, IVec3::splat(16)), &MeshOptions::default());
    assert!(matches!(small.indices(), Indices::U16(_)));
    // A checkerboard of 70^3 corners has a vertex in every cube: more than 65,536.
    let bounds = VoxelBox::new(IVec3::splat(-1), IVec3::splat(71));
    let board =
        VoxelGrid::from_fn(bounds, |p| Voxel::new(if (p.x + p.y + p.z) % 2 == 0 { -10 } else { 10 }, 1)).unwrap();
    let big = mesh(&board, VoxelBox::new(IVec3::ZERO, IVec3::splat(70)), &MeshOptions::PHYSICS);
    assert!(big.vertex_count() > 1 << 16);
    assert!(matches!(big.indices(), Indices::U32(_)));
    voxel_core::validate_triangles(&big).unwrap();
    assert_eq!(big.memory().indices, 4 * big.indices().len());
    assert_eq!(big.heap_bytes(), big.memory().total());
}

/// A source that answers "uniform" and must not be read.
struct Uniform(Voxel);

impl VoxelSource for Uniform {
    fn fill_region(&self, _: VoxelBox, _: &mut [Voxel]) {
        panic!("a uniform region must not be read");
    }
    fn region_hint(&self, _: VoxelBox) -> RegionHint {
        RegionHint::Uniform(self.0)
    }
}

#[test]
fn uniform_and_degenerate_regions_give_empty_meshes() {
    let mut mesher = Mesher::new();
    let mut out = Mesh::new();
    let region = VoxelBox::new(IVec3::ZERO, IVec3::splat(32));
    for v in [Voxel::EMPTY, Voxel::new(-127, 3)] {
        mesher.surface_nets(&Uniform(v), region, &MeshOptions::default(), &mut out).unwrap();
        assert!(out.is_empty());
        mesher.blocky(&Uniform(v), region, &MeshOptions::default(), &mut out).unwrap();
        assert!(out.is_empty());
    }
    // All solid but read voxel by voxel: no surface either.
    let solid = VoxelGrid::from_fn(region.grow(1), |_| Voxel::new(-5, 1)).unwrap();
    mesher.surface_nets(&solid, region, &MeshOptions::default(), &mut out).unwrap();
    assert!(out.is_empty());
    // Empty and inverted regions.
    for r in [VoxelBox::EMPTY, VoxelBox::new(IVec3::splat(5), IVec3::new(6, 2, 6))] {
        mesher.surface_nets(&solid, r, &MeshOptions::default(), &mut out).unwrap();
        assert!(out.is_empty());
    }
    // Water only, solid asked for.
    let lake = VoxelGrid::from_fn(region.grow(1), |p| if p.y < 10 { Voxel::new(-50, 4) } else { Voxel::EMPTY })
        .unwrap()
        .with_phases({
            let mut t = PhaseTable::DEFAULT;
            t.set(4, Phase::Liquid);
            t
        });
    mesher.surface_nets(&lake, region, &MeshOptions::default(), &mut out).unwrap();
    assert!(out.is_empty());
    mesher
        .surface_nets(&lake, region, &MeshOptions { surface: Surface::Liquid, ..MeshOptions::default() }, &mut out)
        .unwrap();
    assert!(!out.is_empty());
}

#[test]
fn bad_regions_get_typed_errors_and_leave_the_mesh_empty() {
    let world = generate::sphere(Vec3::splat(8.0), 5.0).unwrap();
    let mut mesher = Mesher::new();
    let mut out = Mesh::new();
    mesher
        .surface_nets(&world, VoxelBox::new(IVec3::ZERO, IVec3::splat(16)), &MeshOptions::default(), &mut out)
        .unwrap();
    assert!(!out.is_empty());
    let far = VoxelBox::new(IVec3::new(i32::MAX - 4, 0, 0), IVec3::new(i32::MAX, 4, 4));
    let err = mesher.surface_nets(&world, far, &MeshOptions::default(), &mut out).unwrap_err();
    assert!(matches!(err, MeshError::CoordinateOutOfRange(_)));
    assert!(out.is_empty());
    let max = voxel_mesh::MAX_COORDINATE.get();
    let inside = VoxelBox::new(IVec3::splat(-max), IVec3::splat(4 - max));
    mesher.surface_nets(&world, inside, &MeshOptions::default(), &mut out).unwrap();
    let edge = VoxelBox::new(IVec3::splat(max - 4), IVec3::splat(max + 1));
    assert!(matches!(
        mesher.blocky(&world, edge, &MeshOptions::default(), &mut out),
        Err(MeshError::CoordinateOutOfRange(_))
    ));
    let low = VoxelBox::new(IVec3::splat(i32::MIN), IVec3::splat(i32::MIN + 3));
    assert!(matches!(
        mesher.surface_nets(&world, low, &MeshOptions::default(), &mut out),
        Err(MeshError::CoordinateOutOfRange(_))
    ));
    let huge = VoxelBox::new(IVec3::ZERO, IVec3::splat(1000));
    let err = mesher.surface_nets(&world, huge, &MeshOptions::default(), &mut out).unwrap_err();
    assert!(matches!(err, MeshError::RegionTooLarge { .. }));
    assert!(!err.to_string().is_empty());
    // The mesher still works after errors.
    mesher
        .surface_nets(&world, VoxelBox::new(IVec3::ZERO, IVec3::splat(16)), &MeshOptions::default(), &mut out)
        .unwrap();
    assert!(!out.is_empty());
}

#[test]
fn meshing_is_deterministic_and_reuses_buffers() {
    let terrain = generate::terrain(&Terrain::new(IVec3::new(64, 64, 64), 3)).unwrap();
    let mut mesher = Mesher::new();
    let mut a = Mesh::new();
    let mut b = Mesh::new();
    let chunk = VoxelBox::new(IVec3::new(32, 0, 0), IVec3::new(64, 32, 32));
    mesher.surface_nets(&terrain, chunk, &MeshOptions::default(), &mut a).unwrap();
    mesher
        .surface_nets(&terrain, VoxelBox::new(IVec3::ZERO, IVec3::splat(32)), &MeshOptions::default(), &mut b)
        .unwrap();
    mesher.surface_nets(&terrain, chunk, &MeshOptions::default(), &mut b).unwrap();
    assert_eq!(a.positions(), b.positions());
    assert_eq!(a.normals(), b.normals());
    assert_eq!(a.indices(), b.indices());
    assert_eq!(a.materials(), b.materials());
}
