//! After warm-up, meshing allocates nothing: the mesher's scratch and the output mesh are reused.

use glam::IVec3;
use voxel_core::{VoxelBox, VoxelGrid, VoxelSource};
use voxel_mesh::{Mesh, MeshOptions, Mesher};
use voxel_store::generate::{self, Terrain};
use voxel_testdata::CountingAllocator;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator::new();

#[test]
fn meshing_allocates_nothing_after_warm_up() {
    let world = generate::terrain(&Terrain::new(IVec3::new(96, 64, 96), 9)).unwrap();
    // Dense copies, so the source's own reads do not count.
    let chunks: Vec<(VoxelBox, VoxelGrid)> = VoxelBox::new(IVec3::ZERO, IVec3::new(3, 2, 3))
        .iter()
        .map(|k| {
            let chunk = VoxelBox::chunk(k, 32);
            let mut voxels = Vec::new();
            world.read_region(chunk.grow(1), &mut voxels).unwrap();
            let grid = VoxelGrid::from_voxels(chunk.grow(1), voxels).unwrap().with_phases(world.phase_table().clone());
            (chunk, grid)
        })
        .collect();
    let mut mesher = Mesher::new();
    let mut mesh = Mesh::new();
    let options = MeshOptions { blend: true, ..MeshOptions::default() };
    let run = |mesher: &mut Mesher, mesh: &mut Mesh, faces: &mut Vec<voxel_mesh::Face>| {
        let mut quads = 0;
        for (chunk, grid) in &chunks {
            mesher.surface_nets(grid, *chunk, &options, mesh).unwrap();
            quads += mesh.quad_count();
            mesher.blocky(grid, *chunk, &options, mesh).unwrap();
            quads += mesh.quad_count();
            mesher.visible_faces(grid, *chunk, &options, mesh).unwrap();
            quads += mesh.quad_count();
            mesher.face_list(grid, *chunk, options.surface, faces).unwrap();
            quads += faces.len();
        }
        quads
    };
    let mut faces = Vec::new();
    let warm = run(&mut mesher, &mut mesh, &mut faces);
    let before = ALLOCATOR.allocations();
    let again = run(&mut mesher, &mut mesh, &mut faces);
    let allocations = ALLOCATOR.allocations() - before;
    assert!(warm > 1000);
    assert_eq!(warm, again);
    assert_eq!(allocations, 0, "meshing allocated after warm-up");
}
