//! `insta` snapshots of small meshes in the public text form `Mesh::snapshot` (one line per vertex:
//! position and normal to 3 decimals, material, blend; one line per quad), as a user would write
//! them.

use std::fmt::Write;

use glam::{IVec3, Vec3};
use voxel_core::{Voxel, VoxelBox, VoxelGrid};
use voxel_mesh::{Mesh, MeshOptions, Mesher};

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
    insta::assert_snapshot!(mesh.snapshot(3));
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
    insta::assert_snapshot!(mesh.snapshot(3));
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
        write!(out, "{}", mesh.snapshot(3)).unwrap();
    }
    insta::assert_snapshot!(out);
}

#[test]
fn blocky_vox_model() {
    let store = voxel_store::vox::load(voxel_testdata::testdata_file("voxels/vox/dotvox-placeholder.vox")).unwrap();
    let region = voxel_core::VoxelSource::bounds(&store).unwrap();
    let mut mesh = Mesh::new();
    Mesher::new().blocky(&store, region, &MeshOptions::default(), &mut mesh).unwrap();
    insta::assert_snapshot!(mesh.snapshot(3));
}

/// With the `serde` feature, the same snapshot serializes for insta's YAML and JSON snapshots.
#[cfg(feature = "serde")]
#[test]
fn snapshot_serializes() {
    let field = sphere_field(Vec3::new(1.5, 1.5, 1.5), 0.9, VoxelBox::new(IVec3::splat(-1), IVec3::splat(4)));
    let mut mesh = Mesh::new();
    Mesher::new()
        .surface_nets(&field, VoxelBox::new(IVec3::ZERO, IVec3::splat(3)), &MeshOptions::default(), &mut mesh)
        .unwrap();
    let snapshot = mesh.snapshot(2);
    let json = serde_json::to_value(&snapshot).unwrap();
    assert_eq!(json["index_width"], "u16");
    assert_eq!(json["vertices"].as_array().unwrap().len(), mesh.positions().len());
    assert_eq!(json["quads"].as_array().unwrap().len(), mesh.quad_count());
    let v0 = &json["vertices"][0];
    assert_eq!(v0["position"][0].as_f64().unwrap(), snapshot.vertices[0].position[0]);
    assert!(v0.get("normal").is_some() && v0.get("blend").is_none());
}
