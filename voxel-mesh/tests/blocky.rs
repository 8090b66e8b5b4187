//! Blocky meshing: greedy quads cover exactly the visible faces, once, across chunk seams too.

use std::collections::BTreeMap;

use glam::{IVec3, Vec3};
use proptest::prelude::*;
use voxel_core::{PhaseTable, TriangleSource, Voxel, VoxelBox, VoxelGrid, VoxelSource};
use voxel_mesh::{Mesh, MeshOptions, Mesher};

/// Face directions: a face is keyed by its voxel and the index of its direction here.
const DIRS: [IVec3; 6] = [IVec3::NEG_X, IVec3::X, IVec3::NEG_Y, IVec3::Y, IVec3::NEG_Z, IVec3::Z];

fn random_blocks(seed: u64, bounds: VoxelBox, density: u64) -> VoxelGrid {
    VoxelGrid::from_fn(bounds, |p| {
        let mut h = seed ^ (p.x as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        h ^= (p.y as u64).wrapping_mul(0xBF58_476D_1CE4_E5B9) ^ (p.z as u64).wrapping_mul(0x94D0_49BB_1331_11EB);
        h = (h ^ (h >> 31)).wrapping_mul(0xD6E8_FEB8_6659_FD93);
        h ^= h >> 29;
        if h % 100 < density { Voxel::new(-100, 1 + (h >> 8) as u8 % 2) } else { Voxel::EMPTY }
    })
    .unwrap()
}

/// Brute force: every face of an inside voxel of `region` whose neighbour is not inside.
fn visible_faces(source: &VoxelGrid, region: VoxelBox) -> BTreeMap<(i32, i32, i32, usize), u8> {
    let phases = PhaseTable::DEFAULT;
    let inside = |p: IVec3| source.get(p).phase(&phases) == voxel_core::Phase::Solid;
    let mut faces = BTreeMap::new();
    for p in region.iter() {
        if !inside(p) {
            continue;
        }
        for (d, dir) in DIRS.iter().enumerate() {
            if !inside(p + *dir) {
                faces.insert((p.x, p.y, p.z, d), source.get(p).material);
            }
        }
    }
    faces
}

/// Splits every quad of `mesh` back into unit faces, checking each quad is a flat axis-aligned
/// rectangle wound counter-clockwise around its stored normal.
fn faces_of(mesh: &Mesh, out: &mut BTreeMap<(i32, i32, i32, usize), u8>) {
    for q in 0..mesh.quad_count() {
        let corners = mesh.quad(q).map(|i| mesh.positions()[i as usize]);
        let normal = mesh.normals()[mesh.quad(q)[0] as usize];
        let material = mesh.materials()[mesh.quad(q)[0] as usize];
        let winding = (corners[1] - corners[0]).cross(corners[3] - corners[0]);
        assert!(winding.normalize().abs_diff_eq(normal, 1e-6), "quad {q} winds against its normal");
        let d = DIRS.iter().position(|dir| dir.as_vec3() == normal).expect("axis normal");
        let lo = corners.iter().fold(Vec3::INFINITY, |a, c| a.min(*c)).as_ivec3();
        let hi = corners.iter().fold(Vec3::NEG_INFINITY, |a, c| a.max(*c)).as_ivec3();
        let axis = d / 2;
        let mut span = hi - lo;
        span[axis] = 1;
        for cell in VoxelBox::from_min_size(lo, span).iter() {
            // The face plane is the voxel's far side for +dir, its near side for -dir.
            let voxel = if d % 2 == 1 { cell - DIRS[d] } else { cell };
            let key = (voxel.x, voxel.y, voxel.z, d);
            assert!(out.insert(key, material).is_none(), "face {key:?} emitted twice");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Greedy quads cover exactly the brute-force visible faces with the right materials, and the
    /// faces of chunks that tile a region are those of the region, each once.
    #[test]
    fn greedy_quads_cover_the_visible_faces_once(seed in any::<u64>(), density in 5u64..95, edge in 2i32..9,
                                                 size in 3i32..14, wide in any::<bool>()) {
        // `wide` crosses the 64-bit word boundary of the packed rows.
        let x_size = if wide { 70 } else { size };
        let region = VoxelBox::from_min_size(IVec3::new(-3, 5, -7), IVec3::new(x_size, size, size + 1));
        let field = random_blocks(seed, region.grow(1), density);
        let mut mesher = Mesher::new();
        let mut whole = Mesh::new();
        mesher.blocky(&field, region, &MeshOptions::default(), &mut whole).unwrap();
        let mut got = BTreeMap::new();
        faces_of(&whole, &mut got);
        prop_assert_eq!(&got, &visible_faces(&field, region));

        let mut parts = BTreeMap::new();
        let mut part = Mesh::new();
        for key in region.chunk_keys(edge).iter() {
            let chunk = VoxelBox::chunk(key, edge).intersection(&region);
            mesher.blocky(&field, chunk, &MeshOptions::default(), &mut part).unwrap();
            faces_of(&part, &mut parts);
        }
        prop_assert_eq!(&parts, &got);

        // Unmerged: one quad per face, the same faces.
        let mut unit = Mesh::new();
        mesher.visible_faces(&field, region, &MeshOptions::default(), &mut unit).unwrap();
        let mut faces = BTreeMap::new();
        faces_of(&unit, &mut faces);
        prop_assert_eq!(unit.quad_count(), faces.len());
        prop_assert_eq!(&faces, &got);
        prop_assert!(whole.quad_count() <= unit.quad_count());
    }
}

/// block-mesh's voxel: material and whether it is inside.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Block(u8, bool);

impl block_mesh::Voxel for Block {
    fn get_visibility(&self) -> block_mesh::VoxelVisibility {
        if self.1 { block_mesh::VoxelVisibility::Opaque } else { block_mesh::VoxelVisibility::Empty }
    }
}

impl block_mesh::MergeVoxel for Block {
    type MergeValue = u8;
    fn merge_value(&self) -> u8 {
        self.0
    }
}

/// `field` with every inside voxel of material 3 (the merge's one-material path).
fn one_material_copy(field: &VoxelGrid) -> VoxelGrid {
    VoxelGrid::from_fn(field.grid_bounds(), |p| {
        let v = field.get(p);
        if v.distance < 0 { Voxel::new(v.distance, 3) } else { v }
    })
    .unwrap()
}

/// Quads per slice: (index in `DIRS` of the faces' direction, the layer of their voxels along
/// its axis) to the number of quads.
type SliceQuads = BTreeMap<(usize, i32), usize>;

fn slice_quads(mesh: &Mesh) -> SliceQuads {
    let mut out = SliceQuads::new();
    for q in 0..mesh.quad_count() {
        let corners = mesh.quad(q).map(|i| mesh.positions()[i as usize]);
        let normal = mesh.normals()[mesh.quad(q)[0] as usize];
        let d = DIRS.iter().position(|dir| dir.as_vec3() == normal).expect("axis normal");
        let lo = corners.iter().fold(Vec3::INFINITY, |a, c| a.min(*c)).as_ivec3();
        // The face plane is the voxel's far side for +dir, its near side for -dir.
        let layer = lo[d / 2] - i32::from(d % 2 == 1);
        *out.entry((d, layer)).or_default() += 1;
    }
    out
}

/// The first slice where `ours` has more quads than `peer`, if any.
fn slice_with_more(ours: &SliceQuads, peer: &SliceQuads) -> Option<String> {
    ours.iter().find_map(|(key, &n)| {
        let theirs = peer.get(key).copied().unwrap_or(0);
        (n > theirs).then(|| format!("slice {key:?}: {n} quads against block-mesh's {theirs}"))
    })
}

/// How many quads block-mesh's `greedy_quads` makes for the solid voxels of `region`, per slice.
fn block_mesh_greedy_quads(source: &impl VoxelSource, region: VoxelBox) -> SliceQuads {
    use block_mesh::ndshape::{RuntimeShape, Shape};
    let padded = region.grow(1);
    let size = padded.size().as_uvec3();
    let phases = source.phase_table();
    let mut voxels = Vec::new();
    source.read_region(padded, &mut voxels).unwrap();
    let mut blocks = vec![Block(0, false); voxels.len()];
    // block-mesh wants x, then y, then z; `read_region` gives x, then z, then y.
    for p in padded.iter() {
        let l = (p - padded.min).as_uvec3();
        let v = voxels[l.x as usize + size.x as usize * (l.z as usize + size.z as usize * l.y as usize)];
        blocks[(l.x + size.x * (l.y + size.y * l.z)) as usize] =
            Block(v.material, v.phase(phases) == voxel_core::Phase::Solid);
    }
    let shape = RuntimeShape::<u32, 3>::new(size.to_array());
    let mut buffer = block_mesh::GreedyQuadsBuffer::new(shape.usize());
    let faces = &block_mesh::RIGHT_HANDED_Y_UP_CONFIG.faces;
    block_mesh::greedy_quads(&blocks, &shape, [0; 3], size.to_array().map(|s| s - 1), faces, &mut buffer);
    let mut out = SliceQuads::new();
    // The groups follow `faces`: -x, -y, -z, +x, +y, +z; a quad's minimum is its first voxel.
    for (i, group) in buffer.quads.groups.iter().enumerate() {
        let axis = i % 3;
        for q in group {
            let layer = q.minimum[axis] as i32 + padded.min[axis];
            *out.entry((axis * 2 + usize::from(i >= 3), layer)).or_default() += 1;
        }
    }
    out
}

/// A blocky field of `boxes` random boxes of two materials over a sprinkling of single voxels:
/// the shapes where scan orders disagree (staircases, crosses, L-shapes).
fn random_boxes(seed: u64, bounds: VoxelBox, boxes: usize) -> VoxelGrid {
    let mut state = seed | 1;
    let mut next = move |n: i32| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as i32
    };
    let size = bounds.size();
    let shapes: Vec<(VoxelBox, u8)> = (0..boxes)
        .map(|_| {
            let min = bounds.min + IVec3::new(next(size.x), next(size.y), next(size.z));
            let extent = IVec3::new(1 + next(6), 1 + next(6), 1 + next(6));
            (VoxelBox::from_min_size(min, extent), 1 + next(2) as u8)
        })
        .collect();
    let sprinkle = random_blocks(seed.rotate_left(17), bounds, 3);
    VoxelGrid::from_fn(bounds, |p| {
        shapes.iter().find(|(b, _)| b.contains(p)).map_or(sprinkle.get(p), |&(_, m)| Voxel::new(-100, m))
    })
    .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The greedy merge keeps, per slice, the fewer rectangles of our scan order and block-mesh's
    /// (or the fewest of all four orders on request): it never makes more quads than
    /// `greedy_quads` on the same voxels.
    #[test]
    fn greedy_never_makes_more_quads_than_block_mesh(seed in any::<u64>(), boxes in 1usize..40, noise in any::<bool>(),
                                                     density in 5u64..95, size in 3i32..24, width in 0usize..3,
                                                     one_material in any::<bool>()) {
        // Rows of one, two and three words; one material takes the bits-only merge path.
        let x_size = [size + 3, 70, 130][width];
        let region = VoxelBox::from_min_size(IVec3::new(4, -2, 9), IVec3::new(x_size, size, size + 1));
        let mut field = if noise { random_blocks(seed, region.grow(1), density) } else { random_boxes(seed, region.grow(1), boxes) };
        if one_material {
            field = one_material_copy(&field);
        }
        let (mut mesh, mut fewest) = (Mesh::new(), Mesh::new());
        let mut mesher = Mesher::new();
        mesher.blocky(&field, region, &MeshOptions::default(), &mut mesh).unwrap();
        let all_orders = MeshOptions { fewest_quads: true, ..MeshOptions::default() };
        mesher.blocky(&field, region, &all_orders, &mut fewest).unwrap();
        let peer = block_mesh_greedy_quads(&field, region);
        let more = slice_with_more(&slice_quads(&mesh), &peer);
        prop_assert!(more.is_none(), "{}", more.unwrap_or_default());
        // Per slice the four orders include the two of the default.
        prop_assert!(fewest.quad_count() <= mesh.quad_count(), "{} quads against {}", fewest.quad_count(), mesh.quad_count());
        let faces = visible_faces(&field, region);
        for m in [&mesh, &fewest] {
            let mut got = BTreeMap::new();
            faces_of(m, &mut got);
            prop_assert_eq!(&faces, &got);
        }
    }
}

/// Greedy meshes `region` of `field`: its quads cover exactly the brute-force visible faces, and
/// no slice has more quads than block-mesh's `greedy_quads` gives it.
fn check_greedy(field: &VoxelGrid, region: VoxelBox, case: &str) {
    let mut mesh = Mesh::new();
    Mesher::new().blocky(field, region, &MeshOptions::default(), &mut mesh).unwrap();
    let mut got = BTreeMap::new();
    faces_of(&mesh, &mut got);
    assert_eq!(visible_faces(field, region), got, "{case}");
    let peer = block_mesh_greedy_quads(field, region);
    assert_eq!(slice_with_more(&slice_quads(&mesh), &peer), None, "{case}");
}

/// Plates one voxel thick across each axis: nearly all faces lie in the two big slices, where
/// the scan orders disagree most, so a wrong idea of block-mesh's order for one direction shows
/// as a slice with more quads than `greedy_quads` gives it.
#[test]
fn greedy_slices_of_plates_never_have_more_quads_than_block_mesh() {
    for axis in 0..3 {
        for seed in 1..300u64 {
            let mut size = IVec3::splat(14);
            size[axis] = 1;
            let region = VoxelBox::from_min_size(IVec3::new(-5, 2, 7), size);
            let seed_here = seed * 7 + axis as u64;
            let mut field = if seed % 2 == 0 {
                random_boxes(seed_here, region.grow(1), 6 + (seed % 9) as usize)
            } else {
                random_blocks(seed_here, region.grow(1), 40 + seed % 40)
            };
            if seed % 3 == 0 {
                field = one_material_copy(&field);
            }
            check_greedy(&field, region, &format!("axis {axis}, seed {seed}"));
        }
    }
}

/// Regions taller than 64 voxels: the x faces' slices, transposed to rows along y for
/// block-mesh's order, then hold two words per row.
#[test]
fn greedy_on_tall_regions() {
    for seed in 1..9u64 {
        let region = VoxelBox::from_min_size(IVec3::new(3, -40, -2), IVec3::new(9, 70, 11));
        let mut field = if seed % 2 == 0 {
            random_boxes(seed, region.grow(1), 60)
        } else {
            random_blocks(seed, region.grow(1), 30 + 5 * seed)
        };
        if seed % 3 == 0 {
            field = one_material_copy(&field);
        }
        check_greedy(&field, region, &format!("seed {seed}"));
    }
}

/// Rows past four words take the general scan (the narrow ones keep a row in registers).
#[test]
fn greedy_on_rows_of_many_words() {
    for seed in 1..6u64 {
        let region = VoxelBox::from_min_size(IVec3::new(-140, 0, 3), IVec3::new(300, 7, 9));
        let mut field = random_boxes(seed, region.grow(1), 400);
        if seed % 2 == 0 {
            field = one_material_copy(&field);
        }
        check_greedy(&field, region, &format!("seed {seed}"));
    }
}

/// Every readable `.vox` model of the test data that fits one mesh, with its bounds and greedy
/// mesh.
fn meshed_vox_models() -> Vec<(std::path::PathBuf, voxel_store::VoxelStore, VoxelBox, Mesh)> {
    let mut models = Vec::new();
    for file in voxel_testdata::data_files("voxels/vox", &["vox"]) {
        let Ok(store) = voxel_store::vox::load(&file) else {
            continue; // The deliberately malformed file is voxel-store's test.
        };
        let region = store.bounds().expect("bounds");
        let mut mesh = Mesh::new();
        match Mesher::new().blocky(&store, region, &MeshOptions::default(), &mut mesh) {
            Ok(()) => models.push((file, store, region, mesh)),
            Err(voxel_mesh::MeshError::RegionTooLarge { .. }) => {}
            Err(e) => panic!("{}: {e}", file.display()),
        }
    }
    assert!(!models.is_empty(), "no readable model");
    models
}

#[test]
fn greedy_on_vox_models_makes_no_more_quads_than_block_mesh() {
    for (file, store, region, mesh) in meshed_vox_models() {
        let peer = block_mesh_greedy_quads(&store, region);
        assert_eq!(slice_with_more(&slice_quads(&mesh), &peer), None, "{}", file.display());
    }
}

#[test]
fn greedy_merging_makes_one_quad_per_box_face() {
    let region = VoxelBox::new(IVec3::ZERO, IVec3::splat(16));
    let slab = VoxelBox::new(IVec3::new(2, 3, 4), IVec3::new(13, 7, 9));
    let field =
        VoxelGrid::from_fn(region.grow(1), |p| if slab.contains(p) { Voxel::new(-50, 7) } else { Voxel::EMPTY })
            .unwrap();
    let mut mesh = Mesh::new();
    Mesher::new().blocky(&field, region, &MeshOptions::default(), &mut mesh).unwrap();
    assert_eq!(mesh.quad_count(), 6);
    assert_eq!(mesh.vertex_count(), 24);
    assert!(mesh.materials().iter().all(|&m| m == 7));
    let aabb = mesh.aabb();
    assert_eq!((aabb.min, aabb.max), (slab.min.as_vec3(), slab.max.as_vec3()));
}

#[test]
fn vox_models_mesh_into_closed_face_sets() {
    for (file, _, _, mesh) in meshed_vox_models() {
        voxel_core::validate_triangles(&mesh).unwrap();
        // Closed surface: the face area towards +axis equals the area towards -axis.
        let mut area = [0f32; 6];
        for q in 0..mesh.quad_count() {
            let c = mesh.quad(q).map(|i| mesh.positions()[i as usize]);
            let n = mesh.normals()[mesh.quad(q)[0] as usize];
            let d = DIRS.iter().position(|dir| dir.as_vec3() == n).unwrap();
            area[d] += (c[1] - c[0]).cross(c[3] - c[0]).length();
        }
        for axis in 0..3 {
            assert_eq!(area[2 * axis], area[2 * axis + 1], "{}: open along axis {axis}", file.display());
        }
        assert!(mesh.quad_count() > 0, "{}", file.display());
    }
}

#[test]
fn indices_widen_when_faces_outgrow_u16() {
    // A checkerboard: no face merges, every inside voxel shows six faces.
    let region = VoxelBox::new(IVec3::ZERO, IVec3::splat(24));
    let field = VoxelGrid::from_fn(region.grow(1), |p| {
        if region.contains(p) && (p.x + p.y + p.z) % 2 == 0 { Voxel::new(-100, 2) } else { Voxel::EMPTY }
    })
    .unwrap();
    let inside = region.iter().filter(|p| (p.x + p.y + p.z) % 2 == 0).count();
    let mut mesher = Mesher::new();
    let mut small = Mesh::new();
    mesher.blocky(&field, VoxelBox::new(IVec3::ZERO, IVec3::splat(4)), &MeshOptions::default(), &mut small).unwrap();
    assert!(matches!(small.indices(), voxel_mesh::Indices::U16(_)));
    for merge in [true, false] {
        let mut mesh = Mesh::new();
        if merge {
            mesher.blocky(&field, region, &MeshOptions::default(), &mut mesh).unwrap();
        } else {
            mesher.visible_faces(&field, region, &MeshOptions::default(), &mut mesh).unwrap();
        }
        assert_eq!(mesh.quad_count(), 6 * inside);
        assert!(mesh.vertex_count() > 1 << 16);
        assert!(matches!(mesh.indices(), voxel_mesh::Indices::U32(_)));
        voxel_core::validate_triangles(&mesh).unwrap();
        let mut faces = BTreeMap::new();
        faces_of(&mesh, &mut faces);
        assert_eq!(faces, visible_faces(&field, region));
    }
}

/// `visible_faces` gives the same faces whatever the options; normals and blend weights are
/// there exactly when asked, each the face's outward normal and its material at full weight.
#[test]
fn visible_faces_options_only_add_their_streams() {
    let region = VoxelBox::new(IVec3::new(-3, 0, 5), IVec3::new(20, 9, 30));
    let field = random_blocks(7, region.grow(1), 45);
    let mut mesher = Mesher::new();
    let mut plain = Mesh::new();
    let options = |normals, blend| MeshOptions { normals, blend, ..MeshOptions::default() };
    mesher.visible_faces(&field, region, &options(false, false), &mut plain).unwrap();
    assert!(plain.quad_count() > 100);
    assert!(plain.normals().is_empty() && plain.blend().is_empty());
    for (normals, blend) in [(true, false), (false, true), (true, true)] {
        let mut mesh = Mesh::new();
        mesher.visible_faces(&field, region, &options(normals, blend), &mut mesh).unwrap();
        assert_eq!(mesh.positions(), plain.positions());
        assert_eq!(mesh.materials(), plain.materials());
        assert_eq!(
            (0..mesh.quad_count()).map(|q| mesh.quad(q)).collect::<Vec<_>>(),
            (0..plain.quad_count()).map(|q| plain.quad(q)).collect::<Vec<_>>()
        );
        assert_eq!(mesh.normals().len(), if normals { mesh.positions().len() } else { 0 });
        assert_eq!(mesh.blend().len(), if blend { mesh.positions().len() } else { 0 });
        for q in 0..mesh.quad_count() {
            let [a, b, c, d] = mesh.quad(q).map(|i| i as usize);
            let p = mesh.positions();
            let outward = (p[b] - p[a]).cross(p[c] - p[a]).normalize();
            for v in [a, b, c, d] {
                if normals {
                    assert_eq!(mesh.normals()[v], outward, "quad {q}");
                }
                if blend {
                    let w = mesh.blend()[v];
                    assert_eq!((w.ids[0], w.weights), (mesh.materials()[v], [255, 0, 0, 0]), "quad {q}");
                }
            }
        }
    }
}

/// The compact face list is `visible_faces` without the vertices: face `i` is quad `i`, with the
/// same corners, normal and material.
#[test]
fn face_list_matches_visible_faces() {
    let mut fields: Vec<(VoxelGrid, VoxelBox)> = Vec::new();
    for (seed, x_size) in [(3u64, 9), (4, 70), (5, 130)] {
        let region = VoxelBox::from_min_size(IVec3::new(-5, 2, 7), IVec3::new(x_size, 11, 13));
        fields.push((random_blocks(seed, region.grow(1), 40), region));
        fields.push((random_boxes(seed, region.grow(1), 30), region));
        // One material: the face list writes it without a read per face.
        fields.push((one_material_copy(&random_boxes(seed + 9, region.grow(1), 30)), region));
    }
    let (mut mesher, mut mesh, mut faces) = (Mesher::new(), Mesh::new(), Vec::new());
    for (field, region) in &fields {
        mesher.visible_faces(field, *region, &MeshOptions::default(), &mut mesh).unwrap();
        mesher.face_list(field, *region, voxel_mesh::Surface::Solid, &mut faces).unwrap();
        assert_eq!(faces.len(), mesh.quad_count());
        assert!(!faces.is_empty());
        for (q, face) in faces.iter().enumerate() {
            let quad = mesh.quad(q);
            let corners = quad.map(|i| mesh.positions()[i as usize]);
            assert_eq!(face.corners(region.min), corners, "face {q}: {face:?}");
            assert_eq!(face.normal(), mesh.normals()[quad[0] as usize]);
            assert_eq!(face.material(), mesh.materials()[quad[0] as usize]);
            assert!(region.contains(face.voxel(region.min)));
            let offset = face.offset();
            assert_eq!(voxel_mesh::Face::new(offset, face.direction(), face.material()), *face);
        }
    }
}

#[test]
fn face_list_of_bad_or_empty_regions() {
    let field = random_blocks(9, VoxelBox::from_min_size(IVec3::ZERO, IVec3::splat(8)), 50);
    let mut faces = vec![voxel_mesh::Face::new([1, 2, 3], 4, 5)];
    let far = VoxelBox::from_min_size(IVec3::splat(i32::MAX - 4), IVec3::splat(2));
    assert!(matches!(
        Mesher::new().face_list(&field, far, voxel_mesh::Surface::Solid, &mut faces),
        Err(voxel_mesh::MeshError::CoordinateOutOfRange(_))
    ));
    assert!(faces.is_empty());
    // Longer than a face's 16-bit offsets reach (no read happens: the check comes first).
    let long = VoxelBox::from_min_size(IVec3::ZERO, IVec3::new(1 << 17, 1, 1));
    let err = Mesher::new().face_list(&field, long, voxel_mesh::Surface::Solid, &mut faces).unwrap_err();
    assert_eq!(err, voxel_mesh::MeshError::AxisTooLong { length: 1 << 17, limit: voxel_mesh::Face::MAX_AXIS });
    assert!(faces.is_empty());
    let empty = VoxelBox::from_min_size(IVec3::ONE, IVec3::ZERO);
    Mesher::new().face_list(&field, empty, voxel_mesh::Surface::Solid, &mut faces).unwrap();
    assert!(faces.is_empty());
    // Offsets past i32::MAX wrap instead of panicking (no meshable region gets there).
    let wrapped = voxel_mesh::Face::new([65535, 0, 0], 1, 2).voxel(IVec3::splat(i32::MAX));
    assert_eq!(wrapped.x, i32::MIN + 65534);
    // Empty is empty, however long: as the other meshers.
    let long_and_empty = VoxelBox::new(IVec3::ZERO, IVec3::new(100_000, 0, 1));
    Mesher::new().face_list(&field, long_and_empty, voxel_mesh::Surface::Solid, &mut faces).unwrap();
    assert!(faces.is_empty());
}

/// The longest region a face list takes: the last voxel's offset is 65535; one voxel more is an
/// error.
#[test]
fn face_list_at_the_axis_limit() {
    let limit = voxel_mesh::Face::MAX_AXIS;
    let region = VoxelBox::from_min_size(IVec3::new(-7, 3, 5), IVec3::new(limit, 1, 1));
    let last = IVec3::new(region.max.x - 1, 3, 5);
    let field =
        VoxelGrid::from_fn(region.grow(2), |p| if p == last { Voxel::new(-50, 9) } else { Voxel::EMPTY }).unwrap();
    let mut faces = Vec::new();
    Mesher::new().face_list(&field, region, voxel_mesh::Surface::Solid, &mut faces).unwrap();
    assert_eq!(faces.len(), 6);
    assert!(faces.iter().all(|f| f.offset() == [65535, 0, 0] && f.voxel(region.min) == last && f.material() == 9));
    let longer = VoxelBox::from_min_size(region.min, IVec3::new(limit + 1, 1, 1));
    let err = Mesher::new().face_list(&field, longer, voxel_mesh::Surface::Solid, &mut faces).unwrap_err();
    assert_eq!(err, voxel_mesh::MeshError::AxisTooLong { length: limit + 1, limit });
    assert!(faces.is_empty());
}
