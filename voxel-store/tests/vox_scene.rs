//! MagicaVoxel scenes as MagicaVoxel shows them: hidden nodes and layers left out, the animation
//! frame picked by its `_f` keys, `MATL` types mapped to phases. On small files written with
//! `dot_vox` here, so each rule is checked on its own.

#![cfg(feature = "vox")]

use std::collections::HashMap;

use dot_vox::{Color, DotVoxData, Frame, Layer, Material, Model, SceneNode, ShapeModel, Size};
use glam::IVec3;
use voxel_core::{Phase, VoxelSource};
use voxel_store::vox::{self, VoxOptions};
use voxel_store::{StoreError, VoxelStore};

fn dict(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// A 1x1x1 model whose one voxel has colour `i` (dot_vox's 0-based index).
fn one_voxel(i: u8) -> Model {
    Model { size: Size { x: 1, y: 1, z: 1 }, voxels: vec![dot_vox::Voxel { x: 0, y: 0, z: 0, i }] }
}

fn transform(child: u32, layer_id: u32, attributes: &[(&str, &str)], frames: Vec<Frame>) -> SceneNode {
    SceneNode::Transform { attributes: dict(attributes), frames, child, layer_id }
}

fn at(x: i32) -> Vec<Frame> {
    vec![Frame::new(dict(&[("_t", &format!("{x} 0 0"))]))]
}

fn shape(models: &[(u32, Option<u32>)]) -> SceneNode {
    let models = models
        .iter()
        .map(|&(model_id, f)| ShapeModel {
            model_id,
            attributes: f.map_or_else(HashMap::new, |f| dict(&[("_f", &f.to_string())])),
        })
        .collect();
    SceneNode::Shape { attributes: HashMap::new(), models }
}

/// Where a one-voxel model translated by `(x, 0, 0)` lands (the `.vox` z-up to y-up rotation).
fn landing(x: i32) -> IVec3 {
    IVec3::new(x, 0, -1)
}

/// A scene: a visible shape at x = 0 (model 0), a shape whose transform is `_hidden` at x = 10
/// (model 1), a shape on a hidden layer at x = 20 (model 2), a hidden group holding a shape at
/// x = 30 (model 5), and an animated shape whose keyframes are listed out of order: model 4 from
/// frame 5, model 3 from frame 2, with its transform at x = 40 until frame 5 and at x = 60 from
/// there. Colours: model 0 is `_glass`, model 6 (a visible shape at x = 80) is `_media`.
fn scene() -> Vec<u8> {
    let scenes = vec![
        transform(1, u32::MAX, &[], at(0)), // 0: root
        SceneNode::Group { attributes: HashMap::new(), children: vec![2, 4, 6, 8, 12, 14] }, // 1
        transform(3, 0, &[], at(0)),        // 2
        shape(&[(0, None)]),                // 3
        transform(5, 0, &[("_hidden", "1")], at(10)), // 4
        shape(&[(1, None)]),                // 5
        transform(7, 1, &[], at(20)),       // 6: on the hidden layer
        shape(&[(2, None)]),                // 7
        transform(9, 0, &[], at(30)),       // 8
        SceneNode::Group { attributes: dict(&[("_hidden", "1")]), children: vec![10] }, // 9
        transform(11, 0, &[], at(0)),       // 10
        shape(&[(5, None)]),                // 11
        transform(
            13,
            0,
            &[],
            vec![
                Frame::new(dict(&[("_t", "60 0 0"), ("_f", "5")])),
                Frame::new(dict(&[("_t", "40 0 0"), ("_f", "0")])),
            ],
        ), // 12
        shape(&[(4, Some(5)), (3, Some(2))]), // 13
        transform(15, 0, &[], at(80)),      // 14
        shape(&[(6, None)]),                // 15
    ];
    let data = DotVoxData {
        version: 150,
        index_map: (0..=255).collect(),
        models: (0..7).map(|m| one_voxel(if m == 6 { 1 } else { 0 })).collect(),
        palette: vec![Color { r: 200, g: 220, b: 255, a: 255 }; 256],
        materials: vec![
            Material { id: 1, properties: dict(&[("_type", "_glass")]) },
            Material { id: 2, properties: dict(&[("_type", "_media")]) },
        ],
        scenes,
        layers: vec![Layer { attributes: dict(&[("_name", "0")]) }, Layer { attributes: dict(&[("_hidden", "1")]) }],
    };
    let mut bytes = Vec::new();
    data.write_vox(&mut bytes).unwrap();
    bytes
}

fn phase_at(store: &VoxelStore, p: IVec3) -> Phase {
    store.get(p).phase(store.phase_table())
}

/// The x of every voxel the store holds that is not air.
fn filled(store: &VoxelStore) -> Vec<i32> {
    let mut xs: Vec<i32> = (-5..100).filter(|&x| store.get(landing(x)).is_inside()).collect();
    xs.sort_unstable();
    xs
}

#[test]
fn hidden_nodes_and_layers_are_left_out_unless_kept() {
    let bytes = scene();
    let store = vox::from_bytes(&bytes).unwrap();
    // The visible shape, the animated one at frame 0 (its earliest keyframe, model 3, at x = 40);
    // not the hidden transform (10), the hidden layer (20) or the hidden group (30); `_media` (80)
    // is empty by default.
    assert_eq!(filled(&store), [0, 40]);
    let all = vox::from_bytes_with(&bytes, &VoxOptions { keep_hidden: true, ..VoxOptions::default() }).unwrap();
    assert_eq!(filled(&all), [0, 10, 20, 30, 40]);
}

#[test]
fn the_caller_picks_the_animation_frame() {
    let bytes = scene();
    let at_frame = |frame| vox::from_bytes_with(&bytes, &VoxOptions { frame, ..VoxOptions::default() }).unwrap();
    // Frames 0-1: no keyframe yet at or before them, so the earliest (model 3 from frame 2).
    // Models 3 and 4 have the same one voxel; the transform says where they are: x = 40 before
    // frame 5, x = 60 from it.
    for (frame, x) in [(0, 40), (2, 40), (4, 40), (5, 60), (1000, 60)] {
        assert_eq!(filled(&at_frame(frame)), [0, x], "frame {frame}");
    }
}

/// The shape's model is the keyframe's, whatever the list order: model 3 has colour 2 here, model
/// 4 colour 3, told apart by their materials' names.
#[test]
fn each_frame_shows_its_own_model() {
    let mut data = dot_vox::load_bytes(&scene()).unwrap();
    data.models[3] = one_voxel(2);
    data.models[4] = one_voxel(3);
    let mut bytes = Vec::new();
    data.write_vox(&mut bytes).unwrap();
    let name_at = |frame| {
        let store = vox::from_bytes_with(&bytes, &VoxOptions { frame, ..VoxOptions::default() }).unwrap();
        let m = store.get(landing(if frame >= 5 { 60 } else { 40 })).material;
        store.palette().get(m).unwrap().name.clone()
    };
    assert_eq!(name_at(0), "vox-3");
    assert_eq!(name_at(3), "vox-3");
    assert_eq!(name_at(5), "vox-4");
    assert_eq!(name_at(9), "vox-4");
}

#[test]
fn material_types_map_to_phases() {
    let bytes = scene();
    let store = vox::from_bytes(&bytes).unwrap();
    assert_eq!(phase_at(&store, landing(0)), Phase::Solid, "glass is solid by default");
    assert!(!store.get(landing(80)).is_inside(), "media is left out by default");
    let options = VoxOptions {
        material_phases: vec![("_media".into(), Phase::Liquid), ("_glass".into(), Phase::Empty)],
        ..VoxOptions::default()
    };
    let store = vox::from_bytes_with(&bytes, &options).unwrap();
    assert_eq!(phase_at(&store, landing(80)), Phase::Liquid);
    assert!(!store.get(landing(0)).is_inside(), "glass mapped to empty is left out");
    // Everything solid, as before: no mapping at all.
    let store =
        vox::from_bytes_with(&bytes, &VoxOptions { material_phases: Vec::new(), ..VoxOptions::default() }).unwrap();
    assert_eq!(phase_at(&store, landing(80)), Phase::Solid);
}

/// Without a scene graph the models are an animation's frames: the caller's frame, the last one
/// past the end.
#[test]
fn files_without_a_scene_graph_pick_a_model_by_frame() {
    let data = DotVoxData {
        version: 150,
        index_map: (0..=255).collect(),
        models: vec![one_voxel(0), one_voxel(1), one_voxel(2)],
        palette: vec![Color { r: 1, g: 2, b: 3, a: 255 }; 256],
        materials: Vec::new(),
        scenes: Vec::new(),
        layers: Vec::new(),
    };
    let mut bytes = Vec::new();
    data.write_vox(&mut bytes).unwrap();
    for (frame, name) in [(0, "vox-1"), (1, "vox-2"), (2, "vox-3"), (7, "vox-3")] {
        let store = vox::from_bytes_with(&bytes, &VoxOptions { frame, ..VoxOptions::default() }).unwrap();
        let m = store.get(IVec3::new(0, 0, -1)).material;
        assert_eq!(store.palette().get(m).unwrap().name, name, "frame {frame}");
    }
    assert!(matches!(vox::from_bytes_with(b"VOX junk", &VoxOptions::default()), Err(StoreError::Vox(_))));
}
