//! `insta` snapshots of small meshes in a reviewable text form: one line per vertex (position and
//! normal to 3 decimals, material, blend), one line per quad.

use std::fmt::Write;

use glam::{IVec3, Vec3};
use voxel_core::{TriangleSource, Voxel, VoxelBox, VoxelGrid};
use voxel_mesh::{Indices, Mesh, MeshOptions, Mesher};

fn describe(mesh: &Mesh) -> String {
    let width = if matches!(mesh.indices(), Indices::U16(_)) { "u16" } else { "u32" };
    let mut s = format!(
        "{} vertices, {} quads, {} triangles, {width} indices\n",
        mesh.vertex_count(),
        mesh.quad_count(),
        mesh.triangle_count()
    );
    let r = |v: Vec3| format!("{:7.3} {:7.3} {:7.3}", v.x, v.y, v.z);
    for (i, p) in mesh.positions().iter().enumerate() {
        write!(s, "v{i:<3} {}  m{}", r(*p), mesh.materials()[i]).unwrap();
        if let Some(n) = mesh.normals().get(i) {
            write!(s, "  n {}", r(*n)).unwrap();
        }
        if let Some(b) = mesh.blend().get(i) {
            write!(s, "  blend {:?}x{:?}", b.ids, b.weights).unwrap();
        }
        s.push('\n');
    }
    for q in 0..mesh.quad_count() {
        writeln!(s, "q{q:<3} {:?}", mesh.quad(q)).unwrap();
    }
    s
}

fn sphere_field(center: Vec3, radius: f32, bounds: VoxelBox) -> VoxelGrid {
    VoxelGrid::from_fn(bounds, |p| {
        let d = (p.as_vec3().distance(center) - radius) * 50.0;
        Voxel::new(d.clamp(-127.0, 127.0) as i8, 3)
    })
    .unwrap()
}

#[test]
fn sphere_in_a_small_chunk() {
    let field = sphere_field(Vec3::new(3.6, 3.4, 3.5), 2.2, VoxelBox::new(IVec3::splat(-1), IVec3::splat(9)));
    let mut mesh = Mesh::new();
    Mesher::new()
        .surface_nets(&field, VoxelBox::new(IVec3::ZERO, IVec3::splat(8)), &MeshOptions::default(), &mut mesh)
        .unwrap();
    insta::assert_snapshot!(describe(&mesh));
}

#[test]
fn two_material_blend() {
    // Ground at y = 2.4; grass (1) for x < 3, rock (3) from x = 3.
    let field = VoxelGrid::from_fn(VoxelBox::new(IVec3::splat(-1), IVec3::splat(6)), |p| {
        Voxel::new(((p.y as f32 - 2.4) * 50.0) as i8, if p.x < 3 { 1 } else { 3 })
    })
    .unwrap();
    let mut mesh = Mesh::new();
    let options = MeshOptions { blend: true, ..MeshOptions::default() };
    Mesher::new().surface_nets(&field, VoxelBox::new(IVec3::ZERO, IVec3::splat(5)), &options, &mut mesh).unwrap();
    insta::assert_snapshot!(describe(&mesh));
}

#[test]
fn seam_between_two_chunks() {
    // A small ball across the plane x = 4 between chunks [0, 4) and [4, 8): the left chunk owns
    // the quads whose edges start left of the plane, the right chunk the rest; the vertices on the
    // plane's cubes appear in both with equal positions and normals.
    let field = sphere_field(Vec3::new(4.1, 2.5, 2.5), 1.4, VoxelBox::new(IVec3::splat(-1), IVec3::new(9, 6, 6)));
    let mut mesher = Mesher::new();
    let mut out = String::new();
    for x in [0, 4] {
        let mut mesh = Mesh::new();
        let chunk = VoxelBox::new(IVec3::new(x, 0, 0), IVec3::new(x + 4, 5, 5));
        mesher.surface_nets(&field, chunk, &MeshOptions::default(), &mut mesh).unwrap();
        writeln!(out, "chunk x = {x}..{}", x + 4).unwrap();
        out.push_str(&describe(&mesh));
    }
    insta::assert_snapshot!(out);
}

#[test]
fn blocky_vox_model() {
    let store = voxel_store::vox::load(voxel_testdata::testdata_file("voxels/vox/dotvox-placeholder.vox")).unwrap();
    let region = voxel_core::VoxelSource::bounds(&store).unwrap();
    let mut mesh = Mesh::new();
    Mesher::new().blocky(&store, region, &MeshOptions::default(), &mut mesh).unwrap();
    insta::assert_snapshot!(describe(&mesh));
}
