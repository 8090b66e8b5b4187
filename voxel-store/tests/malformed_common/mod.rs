//! Valid files to break, and the format knowledge to break them with: shared by the malformed-file
//! tests of `voxel-store` (each test binary uses a part).

#![allow(dead_code)]

use std::collections::HashMap;

use dot_vox::{Color, DotVoxData, Frame, Layer, Material, Model, SceneNode, ShapeModel, Size};
use glam::{IVec3, Vec3};
use voxel_core::{Phase, Voxel, VoxelBox};
use voxel_store::{CHUNK_EDGE, VoxelStore, generate};

/// A small world with every record kind: run-length chunks (a sphere's surface band), a uniform
/// chunk far from it, negative keys, and a palette with a multi-byte UTF-8 name and every phase.
pub(crate) fn sample_store() -> VoxelStore {
    let mut store = generate::sphere(Vec3::new(3.0, -2.0, 1.0), 7.0).unwrap();
    let water = store.palette_mut().add("wäter", Phase::Liquid, [10, 20, 200, 128]).unwrap();
    let ghost = store.palette_mut().add("", Phase::Empty, [0, 0, 0, 0]).unwrap();
    // A whole chunk of one voxel is saved as a uniform record.
    let far = VoxelBox::chunk(IVec3::new(-3, 2, 5), CHUNK_EDGE);
    store.fill_box(far, Voxel::new(-40, water)).unwrap();
    store.set(IVec3::new(100, 100, -100), Voxel::new(-5, ghost)).unwrap();
    store.compact();
    store
}

pub(crate) fn saved(store: &VoxelStore) -> Vec<u8> {
    let mut bytes = Vec::new();
    store.write_to(&mut bytes).unwrap();
    bytes
}

pub(crate) fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

pub(crate) fn put_u32(bytes: &mut [u8], at: usize, v: u32) {
    bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// Where the parts of a saved file lie, read from the documented layout (not from `io.rs`):
/// the header's checksum, then per record `(start, payload length field, end)` with `end` one
/// past its checksum.
#[derive(Debug)]
pub(crate) struct Layout {
    /// Offsets of the palette entries' name-length bytes.
    pub(crate) name_lens: Vec<usize>,
    pub(crate) header_crc: usize,
    pub(crate) records: Vec<(usize, usize, usize)>,
}

pub(crate) const COUNT_AT: usize = 14;
pub(crate) const PALETTE_LEN_AT: usize = 12;

/// The layout of `bytes` as far as its fields can be followed (stops at the first impossible one).
pub(crate) fn layout(bytes: &[u8]) -> Layout {
    let mut name_lens = Vec::new();
    let palette_len = bytes.get(12..14).map_or(0, |b| usize::from(u16::from_le_bytes([b[0], b[1]])));
    let mut pos = 18;
    for _ in 0..palette_len {
        let at = pos + 5;
        let Some(&n) = bytes.get(at) else { break };
        name_lens.push(at);
        pos = at + 1 + usize::from(n);
    }
    let header_crc = pos;
    let count = u32_at(bytes, COUNT_AT).unwrap_or(0) as usize;
    let mut records = Vec::new();
    let mut at = header_crc + 4;
    for _ in 0..count.min(10_000) {
        let Some(len) = u32_at(bytes, at + 13) else { break };
        let end = at.saturating_add(17).saturating_add(len as usize).saturating_add(4);
        if end > bytes.len() {
            break;
        }
        records.push((at, at + 13, end));
        at = end;
    }
    Layout { name_lens, header_crc, records }
}

/// Recomputes the header and record checksums where the layout can be followed, so a mutation
/// reaches the parser behind the checksum gates.
pub(crate) fn fix_checksums(bytes: &mut [u8]) {
    let l = layout(bytes);
    if l.header_crc + 4 <= bytes.len() {
        let crc = crc32fast::hash(&bytes[..l.header_crc]);
        put_u32(bytes, l.header_crc, crc);
    }
    for (start, _, end) in l.records {
        let crc = crc32fast::hash(&bytes[start..end - 4]);
        put_u32(bytes, end - 4, crc);
    }
}

pub(crate) fn dict(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

pub(crate) fn model(size: u32, colours: &[u8]) -> Model {
    let voxels = colours
        .iter()
        .enumerate()
        .map(|(k, &i)| dot_vox::Voxel { x: (k % 4) as u8, y: (k / 4 % 4) as u8, z: (k / 16) as u8, i })
        .collect();
    Model { size: Size { x: size, y: size, z: size }, voxels }
}

/// A small valid scene: a root transform, a group of two placed shapes (one rotated, one
/// animated over two models), a hidden layer, two `MATL` types.
pub(crate) fn sample_vox_data() -> DotVoxData {
    let t = |child: u32, layer: u32, frames: Vec<Frame>| SceneNode::Transform {
        attributes: HashMap::new(),
        frames,
        child,
        layer_id: layer,
    };
    let shape = |models: &[(u32, &str)]| SceneNode::Shape {
        attributes: HashMap::new(),
        models: models.iter().map(|&(model_id, f)| ShapeModel { model_id, attributes: dict(&[("_f", f)]) }).collect(),
    };
    DotVoxData {
        version: 150,
        index_map: (0..=255).collect(),
        models: vec![model(4, &[0, 1, 2, 3, 4, 5, 6, 7, 8]), model(2, &[9, 9, 10])],
        palette: (0..=255u8).map(|i| Color { r: i, g: 255 - i, b: 7, a: 255 }).collect(),
        materials: vec![
            Material { id: 2, properties: dict(&[("_type", "_glass")]) },
            Material { id: 10, properties: dict(&[("_type", "_media")]) },
        ],
        scenes: vec![
            t(1, u32::MAX, vec![Frame::new(HashMap::new())]),
            SceneNode::Group { attributes: HashMap::new(), children: vec![2, 4] },
            t(3, 0, vec![Frame::new(dict(&[("_t", "5 -3 2"), ("_r", "40")]))]),
            shape(&[(0, "0")]),
            t(
                5,
                1,
                vec![
                    Frame::new(dict(&[("_t", "-8 1 0"), ("_f", "0")])),
                    Frame::new(dict(&[("_t", "9 9 9"), ("_f", "3")])),
                ],
            ),
            shape(&[(0, "0"), (1, "2")]),
        ],
        layers: vec![Layer { attributes: dict(&[("_name", "a")]) }, Layer { attributes: dict(&[("_hidden", "1")]) }],
    }
}

pub(crate) fn vox_bytes(data: &DotVoxData) -> Vec<u8> {
    let mut bytes = Vec::new();
    data.write_vox(&mut bytes).unwrap();
    bytes
}

/// One raw chunk: id, content and children sizes, content, children.
pub(crate) fn chunk(id: &[u8; 4], content: &[u8], children: &[u8]) -> Vec<u8> {
    let mut c = id.to_vec();
    c.extend_from_slice(&(content.len() as u32).to_le_bytes());
    c.extend_from_slice(&(children.len() as u32).to_le_bytes());
    c.extend_from_slice(content);
    c.extend_from_slice(children);
    c
}

/// A whole file around `main_children`.
pub(crate) fn vox_file(main_children: &[u8]) -> Vec<u8> {
    let mut f = b"VOX ".to_vec();
    f.extend_from_slice(&150u32.to_le_bytes());
    f.extend_from_slice(&chunk(b"MAIN", &[], main_children));
    f
}

/// Offsets of every u32 a mutation should attack: each chunk's two size fields, and each
/// 4-byte step of each chunk's content (voxel, dictionary, string, frame, child and model
/// counts, node and model ids live there).
pub(crate) fn vox_u32_fields(bytes: &[u8]) -> Vec<usize> {
    let mut out = vec![12, 16];
    let Some(content) = u32_at(bytes, 12) else { return out };
    let mut pos = 20 + content as usize;
    while let (Some(c), Some(k)) = (u32_at(bytes, pos + 4), u32_at(bytes, pos + 8)) {
        out.extend([pos + 4, pos + 8]);
        let body = pos + 12;
        let end = body.saturating_add(c as usize).saturating_add(k as usize);
        out.extend((body..body.saturating_add(c as usize).min(bytes.len().saturating_sub(3))).step_by(4));
        if end > bytes.len() {
            break;
        }
        pos = end;
    }
    out
}
