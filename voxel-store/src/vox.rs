//! MagicaVoxel `.vox` import (feature `vox`), parsed by the `dot_vox` crate.
//!
//! Filled voxels become voxels deep inside (`distance -127`), everything else stays empty
//! (`+127`), so a smooth mesher puts the surface halfway between a filled and an empty voxel. Each
//! palette colour the model uses becomes a material named `vox-<index>` with that colour, solid
//! unless its `MATL` type is mapped to another phase ([`VoxOptions::material_phases`]: by default
//! `_media`, MagicaVoxel's clouds and smoke, is left out as empty space; `_glass` stays solid).
//!
//! Axes: MagicaVoxel is z-up and right-handed; this workspace is y-up and right-handed. A voxel at
//! `.vox` coordinates `(x, y, z)` lands at `(x, z, -1 - y)`: a rotation, not a mirror, so models
//! keep their handedness.
//!
//! Scenes: when the file has a scene graph (`nTRN`, `nGRP`, `nSHP`), every shape is placed by the
//! product of the transforms above it (`_t` and `_r` of the transform's frame shown at
//! [`VoxOptions::frame`]), with the model's centre (`size / 2`, rounded down) at the translation,
//! as MagicaVoxel places it. Of a shape listing several models (an animation), the one MagicaVoxel
//! shows at that frame is imported: the last keyframe (`_f`) at or before it, or the first keyframe
//! when all come later. What MagicaVoxel hides is left out unless [`VoxOptions::keep_hidden`]: a
//! node whose `_hidden` attribute is `1`, with everything under it, and every node on a hidden
//! layer (`LAYR` with `_hidden = 1`). A file without a scene graph (older versions, and animation
//! packs whose models are frames) imports model [`VoxOptions::frame`] (the last one past the end)
//! at the origin.
//!
//! Limits: a malformed file is a [`StoreError::Vox`], never a panic, and so is a file past the
//! limits of what MagicaVoxel writes, each checked before the work it bounds:
//! - chunks nested deeper than [`MAX_CHUNK_DEPTH`] (16; the top-level `MAIN` is 1, its children
//!   2), or whose sizes overrun the chunk holding them or the file;
//! - a scene graph that is not a tree: a transform or group reached twice (a shared subgraph, or
//!   a cycle). Shape nodes may be shared (several transforms placing one shape is instancing), so
//!   every placement is a distinct transform or group entry of the file and a file of `n` bytes
//!   places at most `n / 4` shapes;
//! - scene nodes nested deeper than 64, and translations past 2^26 voxels.

use std::path::Path;

use dot_vox::{DotVoxData, SceneNode};
use glam::IVec3;
use voxel_core::{Phase, Voxel};

use crate::{Palette, StoreError, VoxelStore};

/// Nested transforms deeper than this are treated as a malformed scene graph.
const MAX_SCENE_DEPTH: usize = 64;
/// How deep `.vox` chunks may nest, the top-level `MAIN` counting as 1: files nest no deeper
/// than `MAIN` and its children (2), and `dot_vox` parses each level one recursion deeper, so
/// deeper files are refused before it sees them (a file of 100 000 nested chunks would otherwise
/// overflow the stack).
pub const MAX_CHUNK_DEPTH: usize = 16;
/// Scene translations beyond 2^26 voxels are refused: far beyond any real scene, and small enough
/// that rotating and adding them never overflows `i32`.
const MAX_TRANSLATION: i32 = 1 << 26;

/// How [`load_with`] and [`from_bytes_with`] read a file; the default is what MagicaVoxel shows at
/// frame 0.
#[derive(Clone, Debug, PartialEq)]
pub struct VoxOptions {
    /// Import what MagicaVoxel hides (nodes marked `_hidden`, nodes on hidden layers) too.
    /// Default `false`.
    pub keep_hidden: bool,
    /// The animation frame to import: picks each shape's model and each transform's frame by
    /// their `_f` keys (see the module docs). Default 0.
    pub frame: u32,
    /// The phase of the voxels of each `MATL` type (`_diffuse`, `_metal`, `_glass`, `_emit`,
    /// `_blend`, `_media`, ...), first match wins; types not listed, and colours without a `MATL`,
    /// are solid. [`Phase::Empty`] leaves those voxels out. Default: `_media` empty.
    pub material_phases: Vec<(String, Phase)>,
}

impl Default for VoxOptions {
    fn default() -> Self {
        Self { keep_hidden: false, frame: 0, material_phases: vec![("_media".to_owned(), Phase::Empty)] }
    }
}

impl VoxOptions {
    /// The phase of material type `kind` (`None`: no `MATL` for the colour).
    fn phase_of(&self, kind: Option<&str>) -> Phase {
        kind.and_then(|k| self.material_phases.iter().find(|(t, _)| t == k)).map_or(Phase::Solid, |(_, p)| *p)
    }
}

/// Loads a `.vox` file into a new store, as MagicaVoxel shows it at frame 0
/// ([`VoxOptions::default`]). A file that is not a `.vox` gives [`StoreError::Vox`].
///
/// ```
/// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/voxels/vox/dotvox-placeholder.vox");
/// let store = voxel_store::vox::load(path).unwrap();
/// assert!(store.chunk_count() > 0);
/// ```
pub fn load(path: impl AsRef<Path>) -> Result<VoxelStore, StoreError> {
    load_with(path, &VoxOptions::default())
}

/// Loads a `.vox` file into a new store, read as `options` say.
pub fn load_with(path: impl AsRef<Path>, options: &VoxOptions) -> Result<VoxelStore, StoreError> {
    from_bytes_with(&std::fs::read(path)?, options)
}

/// Reads `.vox` bytes into a new store ([`VoxOptions::default`]).
pub fn from_bytes(bytes: &[u8]) -> Result<VoxelStore, StoreError> {
    from_bytes_with(bytes, &VoxOptions::default())
}

/// Reads `.vox` bytes into a new store, as `options` say.
pub fn from_bytes_with(bytes: &[u8], options: &VoxOptions) -> Result<VoxelStore, StoreError> {
    check_chunks(bytes)?;
    let data = dot_vox::load_bytes(bytes).map_err(|e| StoreError::Vox(e.to_owned()))?;
    let mut placements = Vec::new();
    if data.scenes.is_empty() {
        if !data.models.is_empty() {
            let frame = (options.frame as usize).min(data.models.len() - 1);
            placements.push((frame, Turn::IDENTITY, IVec3::ZERO, false));
        }
    } else {
        Walker::new(&data, options).walk(0, Turn::IDENTITY, IVec3::ZERO, 0, &mut placements)?;
    }
    // The phase of each colour: its MATL's type (a MATL's id is the file's colour index, which
    // is dot_vox's index plus one).
    let mut phase_of = [Phase::Solid; 256];
    for m in &data.materials {
        if let Some(i) = m.id.checked_sub(1).and_then(|i| usize::try_from(i).ok()).filter(|&i| i < 256) {
            phase_of[i] = options.phase_of(m.material_type());
        }
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
            let phase = phase_of[usize::from(v.i)];
            if phase == Phase::Empty {
                continue;
            }
            let local = IVec3::new(i32::from(v.x), i32::from(v.y), i32::from(v.z)) - pivot;
            let p = rotation.apply(local) + translation; // .vox space, z up
            let world = IVec3::new(p.x, p.z, -1 - p.y);
            let material = match material_of[usize::from(v.i)] {
                Some(m) => m,
                None => {
                    let color = data.palette.get(usize::from(v.i)).map_or([255; 4], |c| [c.r, c.g, c.b, c.a]);
                    let m = add_material(store.palette_mut(), v.i, phase, color)?;
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

/// Walks the chunk headers of a `.vox` file (id, content size, children size) without recursion
/// and refuses what `dot_vox` must not see: chunks nested deeper than [`MAX_CHUNK_DEPTH`] (its
/// parser recurses once per level, without a limit) and chunks whose sizes overrun the chunk
/// holding them or the file. Like `dot_vox`, it reads one top-level chunk and ignores what
/// follows it.
fn check_chunks(bytes: &[u8]) -> Result<(), StoreError> {
    const HEADER: usize = 12;
    let Some(body) = bytes.strip_prefix(b"VOX ").and_then(|b| b.get(4..)) else {
        return Err(StoreError::Vox("not a .vox file (no \"VOX \" header)".into()));
    };
    // The ends of the children of the chunks enclosing `pos`, outermost first: at most
    // MAX_CHUNK_DEPTH entries.
    let mut open: Vec<usize> = Vec::with_capacity(MAX_CHUNK_DEPTH);
    let size = |at: usize| u32::from_le_bytes([body[at], body[at + 1], body[at + 2], body[at + 3]]) as usize;
    let mut pos = 0;
    loop {
        let end = open.last().copied().unwrap_or(body.len());
        let depth = open.len() + 1;
        if depth > MAX_CHUNK_DEPTH {
            return Err(StoreError::Vox(format!("chunks nested deeper than {MAX_CHUNK_DEPTH}")));
        }
        if end - pos < HEADER {
            return Err(StoreError::Vox(format!("chunk header at byte {} cut short", pos + 8)));
        }
        let (content, children) = (size(pos + 4), size(pos + 8));
        let start = pos + HEADER;
        // Checked against what is left, so the sums below cannot overflow.
        if content > end - start || children > end - start - content {
            return Err(StoreError::Vox(format!("chunk at byte {} overruns its parent or the file", pos + 8)));
        }
        let children_start = start + content;
        pos = children_start + children;
        if children > 0 {
            open.push(pos);
            pos = children_start;
        }
        // Leave every chunk whose children are all read; done when the top-level one is.
        while open.last() == Some(&pos) {
            open.pop();
        }
        if open.is_empty() {
            return Ok(());
        }
    }
}

fn add_material(palette: &mut Palette, index: u8, phase: Phase, color: [u8; 4]) -> Result<u8, StoreError> {
    palette.add(format!("vox-{}", u16::from(index) + 1), phase, color)
}

/// True when a node's or layer's attributes say `_hidden = 1`.
fn hidden(attributes: &dot_vox::Dict) -> bool {
    attributes.get("_hidden").is_some_and(|v| v.trim() == "1")
}

/// Of items with keyframes (`_f`, 0 when absent), the index of the one shown at `frame`: the
/// last keyframe at or before it (the first listed of equal keys), or the earliest when all come
/// later. `None` for no items.
fn keyframe(keys: impl Iterator<Item = u32>, frame: u32) -> Option<usize> {
    let mut best: Option<(usize, u32)> = None;
    let mut earliest: Option<(usize, u32)> = None;
    for (i, k) in keys.enumerate() {
        if k <= frame && best.is_none_or(|(_, b)| k > b) {
            best = Some((i, k));
        }
        if earliest.is_none_or(|(_, e)| k < e) {
            earliest = Some((i, k));
        }
    }
    best.or(earliest).map(|(i, _)| i)
}

/// The scene walk: the file, the options, and which transforms and groups it has reached.
struct Walker<'a> {
    data: &'a DotVoxData,
    options: &'a VoxOptions,
    /// Per scene node: reached already. Only transforms and groups are marked, so each is walked
    /// once (a graph sharing them, even without a cycle, is refused: 40 groups each listing the
    /// next twice would otherwise be 2^40 paths).
    reached: Vec<bool>,
}

impl<'a> Walker<'a> {
    fn new(data: &'a DotVoxData, options: &'a VoxOptions) -> Self {
        Self { data, options, reached: vec![false; data.scenes.len()] }
    }

    /// Collects `(model, rotation, translation, centred)` for every shape under `node` shown at
    /// the options' frame (and visible, unless hidden ones are kept).
    fn walk(
        &mut self,
        node: u32,
        rotation: Turn,
        translation: IVec3,
        depth: usize,
        out: &mut Vec<(usize, Turn, IVec3, bool)>,
    ) -> Result<(), StoreError> {
        let data = self.data;
        if depth > MAX_SCENE_DEPTH {
            return Err(StoreError::Vox(format!("scene graph nested deeper than {MAX_SCENE_DEPTH}")));
        }
        let Some(scene) = data.scenes.get(node as usize) else {
            return Err(StoreError::Vox(format!("scene names node {node}, which the file lacks")));
        };
        // Marked before the hidden check, so the graph is refused or read whatever the options.
        if !matches!(scene, SceneNode::Shape { .. }) {
            if self.reached[node as usize] {
                return Err(StoreError::Vox(format!("scene node {node} is reached twice (not a tree)")));
            }
            self.reached[node as usize] = true;
        }
        if !self.options.keep_hidden {
            let on_hidden_layer = match scene {
                SceneNode::Transform { layer_id, .. } => {
                    data.layers.get(*layer_id as usize).is_some_and(|l| hidden(&l.attributes))
                }
                _ => false,
            };
            let attributes = match scene {
                SceneNode::Transform { attributes, .. }
                | SceneNode::Group { attributes, .. }
                | SceneNode::Shape { attributes, .. } => attributes,
            };
            if on_hidden_layer || hidden(attributes) {
                return Ok(());
            }
        }
        self.visit(scene, rotation, translation, depth, out)
    }

    fn visit(
        &mut self,
        scene: &SceneNode,
        rotation: Turn,
        translation: IVec3,
        depth: usize,
        out: &mut Vec<(usize, Turn, IVec3, bool)>,
    ) -> Result<(), StoreError> {
        let frame_key =
            |f: &dot_vox::Frame| f.attributes.get("_f").and_then(|v| v.trim().parse::<u32>().ok()).unwrap_or(0);
        match scene {
            SceneNode::Transform { frames, child, .. } => {
                let frame = keyframe(frames.iter().map(frame_key), self.options.frame).and_then(|i| frames.get(i));
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
                self.walk(*child, rotation.then(r), next, depth + 1, out)
            }
            SceneNode::Group { children, .. } => {
                for &c in children {
                    self.walk(c, rotation, translation, depth + 1, out)?;
                }
                Ok(())
            }
            SceneNode::Shape { models, .. } => {
                let shown = keyframe(models.iter().map(|m| m.frame_index().unwrap_or(0)), self.options.frame);
                if let Some(m) = shown.and_then(|i| models.get(i)) {
                    out.push((m.model_id as usize, rotation, translation, true));
                }
                Ok(())
            }
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
            let options = VoxOptions::default();
            let result = Walker::new(&bad, &options).walk(0, Turn::IDENTITY, IVec3::ZERO, 0, &mut placements);
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
            let options = VoxOptions { keep_hidden: true, ..VoxOptions::default() };
            Walker::new(&data, &options).walk(0, Turn::IDENTITY, IVec3::ZERO, 0, &mut placements).unwrap();
            assert_eq!(placements.len(), instances, "{name}");
            let mut distinct: Vec<_> =
                placements.iter().map(|(m, r, t, _)| (*m, r.0.map(|c| c.to_array()), t.to_array())).collect();
            distinct.sort_unstable();
            distinct.dedup();
            assert_eq!(distinct.len(), instances, "{name}: two instances share a placement");
        }
    }
}
