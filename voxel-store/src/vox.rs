//! MagicaVoxel `.vox` import (feature `vox`), parsed by the `dot_vox` crate.
//!
//! Filled voxels become solid voxels deep inside (`distance -127`), everything else stays empty
//! (`+127`), so a smooth mesher puts the surface halfway between a filled and an empty voxel. Each
//! palette colour the model uses becomes a solid material named `vox-<index>` with that colour.
//!
//! Axes: MagicaVoxel is z-up and right-handed; this workspace is y-up and right-handed. A voxel at
//! `.vox` coordinates `(x, y, z)` lands at `(x, z, -1 - y)`: a rotation, not a mirror, so models
//! keep their handedness.
//!
//! Scenes: when the file has a scene graph (`nTRN`, `nGRP`, `nSHP`), every shape is placed by the
//! product of the transforms above it (first frame's `_t` and `_r`), with the model's centre
//! (`size / 2`, rounded down) at the translation, as MagicaVoxel places it. A shape listing several
//! models (an animation) contributes its first. A file without a scene graph (older versions, and
//! animation packs whose models are frames) imports model 0 at the origin.

use std::path::Path;

use dot_vox::{DotVoxData, SceneNode};
use glam::IVec3;
use voxel_core::{Phase, Voxel};

use crate::{Palette, StoreError, VoxelStore};

/// Nested transforms deeper than this are treated as a malformed (cyclic) scene graph.
const MAX_SCENE_DEPTH: usize = 64;
/// Scene translations beyond 2^26 voxels are refused: far beyond any real scene, and small enough
/// that rotating and adding them never overflows `i32`.
const MAX_TRANSLATION: i32 = 1 << 26;

/// Loads a `.vox` file into a new store. A file that is not a `.vox` gives [`StoreError::Vox`].
///
/// ```
/// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/voxels/vox/dotvox-placeholder.vox");
/// let store = voxel_store::vox::load(path).unwrap();
/// assert!(store.chunk_count() > 0);
/// ```
pub fn load(path: impl AsRef<Path>) -> Result<VoxelStore, StoreError> {
    from_bytes(&std::fs::read(path)?)
}

/// Reads `.vox` bytes into a new store.
pub fn from_bytes(bytes: &[u8]) -> Result<VoxelStore, StoreError> {
    let data = dot_vox::load_bytes(bytes).map_err(|e| StoreError::Vox(e.to_owned()))?;
    let mut placements = Vec::new();
    if data.scenes.is_empty() {
        if !data.models.is_empty() {
            placements.push((0usize, Turn::IDENTITY, IVec3::ZERO, false));
        }
    } else {
        walk(&data, 0, Turn::IDENTITY, IVec3::ZERO, 0, &mut placements)?;
    }
    let mut store = VoxelStore::new();
    let mut material_of = [None::<u8>; 256];
    for (model_index, rotation, translation, centred) in placements {
        let Some(model) = data.models.get(model_index) else {
            return Err(StoreError::Vox(format!("scene names model {model_index}, which the file lacks")));
        };
        let size = IVec3::new(model.size.x as i32, model.size.y as i32, model.size.z as i32);
        let pivot = if centred { size / 2 } else { IVec3::ZERO };
        for v in &model.voxels {
            let local = IVec3::new(i32::from(v.x), i32::from(v.y), i32::from(v.z)) - pivot;
            let p = rotation.apply(local) + translation; // .vox space, z up
            let world = IVec3::new(p.x, p.z, -1 - p.y);
            let material = match material_of[usize::from(v.i)] {
                Some(m) => m,
                None => {
                    let color = data.palette.get(usize::from(v.i)).map_or([255; 4], |c| [c.r, c.g, c.b, c.a]);
                    let m = add_material(store.palette_mut(), v.i, color)?;
                    material_of[usize::from(v.i)] = Some(m);
                    m
                }
            };
            store.set(world, Voxel::new(-127, material))?;
        }
    }
    store.compact();
    Ok(store)
}

fn add_material(palette: &mut Palette, index: u8, color: [u8; 4]) -> Result<u8, StoreError> {
    palette.add(format!("vox-{}", u16::from(index) + 1), Phase::Solid, color)
}

/// Collects `(model, rotation, translation, centred)` for every shape under `node`.
fn walk(
    data: &DotVoxData,
    node: u32,
    rotation: Turn,
    translation: IVec3,
    depth: usize,
    out: &mut Vec<(usize, Turn, IVec3, bool)>,
) -> Result<(), StoreError> {
    if depth > MAX_SCENE_DEPTH {
        return Err(StoreError::Vox("scene graph too deep (cyclic?)".into()));
    }
    let Some(scene) = data.scenes.get(node as usize) else {
        return Err(StoreError::Vox(format!("scene names node {node}, which the file lacks")));
    };
    match scene {
        SceneNode::Transform { frames, child, .. } => {
            let frame = frames.first();
            let t = frame.and_then(dot_vox::Frame::position).map_or(IVec3::ZERO, |p| IVec3::new(p.x, p.y, p.z));
            // dot_vox asserts on a malformed rotation byte: check it before asking for the rotation.
            if let Some(raw) = frame.and_then(|f| f.attributes.get("_r")) {
                if !raw.trim().parse::<u8>().is_ok_and(valid_rotation) {
                    return Err(StoreError::Vox(format!("invalid scene rotation {raw:?}")));
                }
            }
            let r = frame.and_then(dot_vox::Frame::orientation).map_or(Turn::IDENTITY, |r| {
                let c = r.to_cols_array_2d();
                Turn(c.map(|col| IVec3::new(col[0] as i32, col[1] as i32, col[2] as i32)))
            });
            // Bounded so the integer transforms below cannot overflow, whatever the file says.
            if !within(t, MAX_TRANSLATION) {
                return Err(StoreError::Vox("scene translation out of range".into()));
            }
            // Child space to parent space: p_parent = r * p_child + t.
            let next = rotation.apply(t) + translation;
            if !within(next, MAX_TRANSLATION) {
                return Err(StoreError::Vox("scene translation out of range".into()));
            }
            walk(data, *child, rotation.then(r), next, depth + 1, out)
        }
        SceneNode::Group { children, .. } => {
            for &c in children {
                walk(data, c, rotation, translation, depth + 1, out)?;
            }
            Ok(())
        }
        SceneNode::Shape { models, .. } => {
            if let Some(m) = models.first() {
                out.push((m.model_id as usize, rotation, translation, true));
            }
            Ok(())
        }
    }
}

/// True when every component lies in `-limit..=limit` (no `abs`, which overflows at `i32::MIN`).
fn within(v: IVec3, limit: i32) -> bool {
    v.cmpge(IVec3::splat(-limit)).all() && v.cmple(IVec3::splat(limit)).all()
}

/// A `.vox` rotation byte names, in bits 0-1 and 2-3, the columns of the non-zero entries of the
/// first two rows: both below 3 and different.
fn valid_rotation(byte: u8) -> bool {
    let (a, b) = (byte & 3, (byte >> 2) & 3);
    a < 3 && b < 3 && a != b
}

/// A rotation by quarter turns (a signed permutation matrix), by columns: all `.vox` orientations
/// are of this kind, so integer voxel coordinates stay integers.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Turn([IVec3; 3]);

impl Turn {
    const IDENTITY: Turn = Turn([IVec3::X, IVec3::Y, IVec3::Z]);

    fn apply(&self, v: IVec3) -> IVec3 {
        self.0[0] * v.x + self.0[1] * v.y + self.0[2] * v.z
    }

    /// `self` after `inner`: the turn that applies `inner` first.
    fn then(&self, inner: Turn) -> Turn {
        Turn(inner.0.map(|c| self.apply(c)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_bytes_are_checked_before_dot_vox_sees_them() {
        assert!(valid_rotation(0b0000_0100), "identity");
        for bad in [0u8, 0b0000_0011, 0b0000_1100, 0b0000_0101] {
            assert!(!valid_rotation(bad), "{bad:#b}");
        }
        assert!(within(IVec3::splat(5), 5) && !within(IVec3::new(i32::MIN, 0, 0), 5));
    }

    /// A scene with one bad frame attribute fails with a typed error, not a panic.
    #[test]
    fn malformed_scene_attributes_are_errors() {
        let path = format!("{}/../testdata/voxels/vox/dotvox-axes.vox", env!("CARGO_MANIFEST_DIR"));
        let bytes = std::fs::read(path).unwrap();
        for (key, value) in [("_r", "0"), ("_r", "15"), ("_t", "-2147483648 0 0"), ("_t", "2147483647 2147483647 0")] {
            let mut bad = dot_vox::load_bytes(&bytes).unwrap();
            let Some(SceneNode::Transform { frames, .. }) =
                bad.scenes.iter_mut().find(|n| matches!(n, SceneNode::Transform { .. }))
            else {
                panic!("axes.vox has transforms")
            };
            frames[0].attributes.insert(key.to_owned(), value.to_owned());
            let mut placements = Vec::new();
            let result = walk(&bad, 0, Turn::IDENTITY, IVec3::ZERO, 0, &mut placements);
            assert!(matches!(result, Err(StoreError::Vox(_))), "{key}={value}");
        }
    }

    /// The walk reaches every shape instance of a scene exactly once.
    #[test]
    fn walk_reaches_every_instance_once() {
        for name in ["ogt-multiple-model-scene.vox", "dotvox-axes.vox", "dotvox-placeholder.vox"] {
            let path = format!("{}/../testdata/voxels/vox/{name}", env!("CARGO_MANIFEST_DIR"));
            let data = dot_vox::load_bytes(&std::fs::read(path).unwrap()).unwrap();
            let instances = data
                .scenes
                .iter()
                .filter(|n| match n {
                    SceneNode::Transform { child, .. } => {
                        matches!(data.scenes[*child as usize], SceneNode::Shape { .. })
                    }
                    _ => false,
                })
                .count();
            let mut placements = Vec::new();
            walk(&data, 0, Turn::IDENTITY, IVec3::ZERO, 0, &mut placements).unwrap();
            assert_eq!(placements.len(), instances, "{name}");
            let mut distinct: Vec<_> =
                placements.iter().map(|(m, r, t, _)| (*m, r.0.map(|c| c.to_array()), t.to_array())).collect();
            distinct.sort_unstable();
            distinct.dedup();
            assert_eq!(distinct.len(), instances, "{name}: two instances share a placement");
        }
    }
}
