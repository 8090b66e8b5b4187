//! MagicaVoxel import on real files: `testdata/`, and every `.vox` of the shared set in
//! `cargo xtask test-data`.

#![cfg(feature = "vox")]

use voxel_core::{Phase, VoxelSource};
use voxel_store::{StoreError, VoxelStore, vox};
use voxel_testdata::{data_files, testdata_file};

/// Filled-voxel counts of single-model files, from the data set's README (measured upstream).
const DOCUMENTED: &[(&str, usize)] = &[
    ("chr-knight.vox", 398),
    ("chr-cat.vox", 563),
    ("dragon-scan.vox", 40265),
    ("teapot-scan.vox", 28411),
    ("menger.vox", 160000),
    ("maze.vox", 10990),
    ("monu1-castle.vox", 156942),
    ("monu9-scene.vox", 32832),
    ("monu3-large.vox", 848469),
    ("dotvox-placeholder.vox", 4),
];

fn solid_voxels(store: &VoxelStore) -> usize {
    let mut buf = Vec::new();
    store.read_region(store.bounds().unwrap(), &mut buf).unwrap();
    buf.iter().filter(|v| v.phase(store.phase_table()) == Phase::Solid).count()
}

#[test]
fn every_vox_file_imports() {
    let mut checked = 0;
    for path in data_files("voxels/vox", &["vox"]) {
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        let result = vox::load(&path);
        if name == "dotvox-not-a-vox.vox" {
            assert!(matches!(result, Err(StoreError::Vox(_))), "{name}");
            continue;
        }
        let store = result.unwrap_or_else(|e| panic!("{name}: {e}"));
        let solid = solid_voxels(&store);
        assert!(solid > 0, "{name}");
        if let Some((_, n)) = DOCUMENTED.iter().find(|(f, _)| *f == name) {
            assert_eq!(solid, *n, "{name}");
            checked += 1;
        }
    }
    assert!(checked >= 1);
}

#[test]
fn multi_model_scene_places_models_apart() {
    // 41 models of at most 8 voxels on a side, placed by the scene graph: the imported scene spans
    // far more than one model.
    let store = vox::load(testdata_file("voxels/vox/ogt-multiple-model-scene.vox")).unwrap();
    let size = store.bounds().unwrap().size();
    assert!(size.max_element() > 3 * 32, "scene bounds {size}");
}

#[test]
fn instanced_scene_uses_every_shape() {
    // axes.vox: 10 shape nodes over 4 models; instancing puts more voxels in the world than the
    // largest single model has.
    let store = vox::load(testdata_file("voxels/vox/dotvox-axes.vox")).unwrap();
    assert!(solid_voxels(&store) > 1200, "{}", solid_voxels(&store));
}

#[test]
fn colours_become_solid_materials() {
    let store = vox::load(testdata_file("voxels/vox/dotvox-placeholder.vox")).unwrap();
    assert!(store.palette().len() >= 2);
    for m in &store.palette().materials()[1..] {
        assert_eq!(m.phase, Phase::Solid);
        assert!(m.name.starts_with("vox-"));
    }
}

#[test]
fn garbage_is_a_typed_error() {
    assert!(matches!(vox::from_bytes(b"VOX \x96\0\0\0MAIN"), Err(StoreError::Vox(_))));
    assert!(matches!(vox::from_bytes(&[]), Err(StoreError::Vox(_))));
    let real = std::fs::read(testdata_file("voxels/vox/dotvox-axes.vox")).unwrap();
    for len in (0..real.len()).step_by(211) {
        // Truncations either parse to something or fail with a typed error; never a panic.
        let _ = vox::from_bytes(&real[..len]);
    }
}

/// Voxels of every placed shape instance (a transform whose child is a shape node, counting the
/// shape's first model), summed straight from `dot_vox`'s parse: what a correct placement of
/// non-overlapping instances must import.
fn voxels_in_instances(path: &std::path::Path) -> usize {
    let data = dot_vox::load_bytes(&std::fs::read(path).unwrap()).unwrap();
    let shape_voxels = |node: u32| match &data.scenes[node as usize] {
        dot_vox::SceneNode::Shape { models, .. } => {
            models.first().map_or(0, |m| data.models[m.model_id as usize].voxels.len())
        }
        _ => 0,
    };
    data.scenes
        .iter()
        .map(|n| match n {
            dot_vox::SceneNode::Transform { child, .. } => shape_voxels(*child),
            _ => 0,
        })
        .sum()
}

#[test]
fn scene_instances_are_all_placed() {
    // axes.vox: 10 instances of 4 models, apart from each other: every voxel lands.
    let path = testdata_file("voxels/vox/dotvox-axes.vox");
    assert_eq!(solid_voxels(&vox::load(&path).unwrap()), voxels_in_instances(&path));
    // The ogt scene's 104 instances (every one reached once, see the unit test of the walk) touch
    // and overlap where props stand on each other: all but a few percent of their voxels land on
    // distinct positions, which a wrong transform would not give.
    let path = testdata_file("voxels/vox/ogt-multiple-model-scene.vox");
    let (solid, all) = (solid_voxels(&vox::load(&path).unwrap()), voxels_in_instances(&path));
    assert!(solid <= all && solid * 100 >= all * 95, "{solid} of {all}");
}
