//! Hostile and malformed input to the two file readers of `voxel-store`: the save format
//! (`VoxelStore::from_bytes` / `load`) and MagicaVoxel `.vox` (`vox::from_bytes_with` / `load`).
//!
//! Every input starts as a valid file written here (a saved store with uniform and run-length
//! chunks; a `.vox` with two models, a scene graph, layers and materials) and is then broken:
//! random byte flips (with and without the checksums repaired, so the mutation reaches the
//! parser behind them), truncation at every length, count and length fields set to 0, `u32::MAX`
//! and other lies, duplicated and reordered records, cyclic and deep scene graphs. The contract
//! checked: a typed error or a file that loads and saves back stably, never a panic, abort, hang
//! or huge allocation. A case the readers fail is kept `#[ignore = "defect: ..."]`.
//!
//! `PROPTEST_CASES` raises the random case counts (the defaults keep the file to a few seconds).

use std::collections::HashMap;

use dot_vox::{Color, Frame, Material, SceneNode, ShapeModel, Size};
use glam::IVec3;
use proptest::prelude::*;
use voxel_core::{Phase, VoxelBox, VoxelSource};
use voxel_store::vox::{self, VoxOptions};
use voxel_store::{CHUNK_EDGE, StoreError, VoxelStore};

mod malformed_common;
use malformed_common::*;

/// `default` random cases, or `PROPTEST_CASES` when set (for a long run).
fn config(default: u32) -> ProptestConfig {
    let mut config = ProptestConfig::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = default;
    }
    config
}

// ---------------------------------------------------------------------------------------------
// The save format
// ---------------------------------------------------------------------------------------------

/// The contract for whatever a mutated file gave: a typed format error, or a world that is
/// internally consistent (every voxel names a palette material) and saves back to bytes that
/// load to the same bytes again.
fn check_store_result(result: Result<VoxelStore, StoreError>) -> Result<(), TestCaseError> {
    match result {
        Err(StoreError::Corrupt(_) | StoreError::UnsupportedVersion(_) | StoreError::PaletteFull) => Ok(()),
        Err(other) => Err(TestCaseError::fail(format!("unexpected error kind: {other:?}"))),
        Ok(store) => {
            let palette_len = store.palette().len();
            let mut buf = Vec::new();
            for key in store.chunk_keys() {
                store.read_region(VoxelBox::chunk(key, CHUNK_EDGE), &mut buf).unwrap();
                prop_assert!(buf.iter().all(|v| usize::from(v.material) < palette_len), "chunk {key}");
            }
            let again = saved(&store);
            let reloaded = VoxelStore::from_bytes(&again);
            prop_assert!(reloaded.is_ok(), "a loaded world saves to a file it cannot load: {reloaded:?}");
            prop_assert_eq!(saved(&reloaded.unwrap()), again, "save -> load -> save is not stable");
            Ok(())
        }
    }
}

#[test]
fn the_sample_store_round_trips() {
    let store = sample_store();
    let bytes = saved(&store);
    let l = layout(&bytes);
    // Both record kinds are present (kind byte at start + 12): the attacks below reach both.
    let kinds: Vec<u8> = l.records.iter().map(|&(s, _, _)| bytes[s + 12]).collect();
    assert!(kinds.contains(&0) && kinds.contains(&1), "{kinds:?}");
    assert_eq!(l.records.len(), store.chunk_count());
    assert_eq!(l.records.last().unwrap().2, bytes.len());
    assert_eq!(saved(&VoxelStore::from_bytes(&bytes).unwrap()), bytes);
}

/// Every truncation of a valid file, byte by byte, is `Corrupt` (the empty file and one byte
/// included), as is the file with a byte appended.
#[test]
fn every_truncation_is_corrupt() {
    let bytes = saved(&sample_store());
    for len in 0..bytes.len() {
        match VoxelStore::from_bytes(&bytes[..len]) {
            Err(StoreError::Corrupt(_)) => {}
            other => panic!("truncated to {len} of {}: {other:?}", bytes.len()),
        }
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(VoxelStore::from_bytes(&longer), Err(StoreError::Corrupt(_))));
}

/// A failed `load` from a path changes nothing on disk (there is no load-into-existing-store
/// API: every load builds a new store, so a failure cannot touch a world already in memory).
#[test]
fn a_failed_load_leaves_the_file_as_it_was() {
    let dir = std::env::temp_dir().join(format!("voxel-store-malformed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.vxs");
    let mut bytes = saved(&sample_store());
    bytes.truncate(bytes.len() / 2);
    std::fs::write(&path, &bytes).unwrap();
    let world = sample_store();
    let before = saved(&world);
    assert!(matches!(VoxelStore::load(&path), Err(StoreError::Corrupt(_))));
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
    assert_eq!(saved(&world), before);
    // A folder is not a file: an I/O error, not a panic.
    assert!(matches!(VoxelStore::load(&dir), Err(StoreError::Io(_))));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Count and length fields set to lies, with the checksums repaired so the lie is believed as
/// far as the checksums go: each is `Corrupt`, and none allocates by the claimed size (a
/// 2^31-chunk or 4 GiB-payload claim in a file of a few kB would abort or take gigabytes).
#[test]
fn lying_counts_and_lengths_are_corrupt() {
    let bytes = saved(&sample_store());
    let l = layout(&bytes);
    let count = u32_at(&bytes, COUNT_AT).unwrap();
    let mut cases: Vec<(String, Vec<u8>)> = Vec::new();
    for v in [0, count - 1, count + 1, 1 << 31, u32::MAX, (bytes.len() / 23) as u32] {
        let mut b = bytes.clone();
        put_u32(&mut b, COUNT_AT, v);
        cases.push((format!("chunk count {v}"), b));
    }
    for v in [0u16, 257, u16::MAX] {
        let mut b = bytes.clone();
        b[PALETTE_LEN_AT..PALETTE_LEN_AT + 2].copy_from_slice(&v.to_le_bytes());
        cases.push((format!("palette length {v}"), b));
    }
    for (k, &at) in l.name_lens.iter().enumerate() {
        let mut b = bytes.clone();
        b[at] = 255;
        cases.push((format!("name length 255 of material {k}"), b));
    }
    for (k, &(start, len_at, _)) in l.records.iter().enumerate() {
        for v in [0, 1, 3, (1 << 31), u32::MAX, 2 * (32 * 32 * 32 + 32 * 32 * 32 / 128 + 2) as u32 + 1] {
            let mut b = bytes.clone();
            put_u32(&mut b, len_at, v);
            cases.push((format!("record {k} payload length {v}"), b));
        }
        for kind in [2u8, 255] {
            let mut b = bytes.clone();
            b[start + 12] = kind;
            cases.push((format!("record {k} kind {kind}"), b));
        }
    }
    for (what, mut b) in cases {
        fix_checksums(&mut b);
        match VoxelStore::from_bytes(&b) {
            Err(StoreError::Corrupt(_)) => {}
            other => panic!("{what}: {other:?}"),
        }
    }
}

/// Record-level edits with the checksums repaired: a record stored twice is refused; records out
/// of key order load (the reader does not require the order the writer keeps) to the same world;
/// keys at the edges of the `i32` voxel range load or are refused by name, never overflow.
#[test]
fn duplicated_reordered_and_extreme_records() {
    let bytes = saved(&sample_store());
    let l = layout(&bytes);
    let header = &bytes[..l.header_crc + 4];
    let records: Vec<&[u8]> = l.records.iter().map(|&(s, _, e)| &bytes[s..e]).collect();
    let file = |records: &[&[u8]]| {
        let mut b = header.to_vec();
        put_u32(&mut b, COUNT_AT, records.len() as u32);
        for r in records {
            b.extend_from_slice(r);
        }
        fix_checksums(&mut b);
        b
    };
    // Duplicated, at both ends and adjacent.
    for k in [0, records.len() - 1] {
        let mut twice = records.clone();
        twice.insert(k, records[k]);
        assert!(matches!(VoxelStore::from_bytes(&file(&twice)), Err(StoreError::Corrupt(_))), "record {k} twice");
    }
    // Reversed order: the same world.
    let mut reversed = records.clone();
    reversed.reverse();
    let loaded = VoxelStore::from_bytes(&file(&reversed)).unwrap();
    assert_eq!(saved(&loaded), bytes);
    // No records at all: an empty world with the palette.
    let empty = VoxelStore::from_bytes(&file(&[])).unwrap();
    assert_eq!(empty.chunk_count(), 0);
    assert_eq!(empty.palette().len(), sample_store().palette().len());
    // Keys at and beyond the edges of the voxel range.
    let max_key = i32::MAX >> 5;
    let min_key = i32::MIN >> 5;
    for (key, ok) in [
        ([max_key, 0, 0], true),
        ([min_key, min_key, min_key], true),
        ([max_key + 1, 0, 0], false),
        ([0, min_key - 1, 0], false),
        ([i32::MAX, i32::MIN, 0], false),
    ] {
        let mut r = records[0].to_vec();
        for (i, c) in key.iter().enumerate() {
            r[4 * i..4 * i + 4].copy_from_slice(&c.to_le_bytes());
        }
        let result = VoxelStore::from_bytes(&file(&[&r]));
        if ok {
            let store = result.unwrap_or_else(|e| panic!("key {key:?}: {e}"));
            assert_eq!(store.chunk_keys(), [IVec3::from_array(key)]);
            assert_eq!(saved(&VoxelStore::from_bytes(&saved(&store)).unwrap()), saved(&store));
        } else {
            assert!(matches!(result, Err(StoreError::Corrupt(_))), "key {key:?}: {result:?}");
        }
    }
}

/// Hand-made run-length payloads: planes that overflow the chunk, stop early, leave trailing
/// bytes, or name a material past the palette; and a uniform record naming one.
#[test]
fn hostile_payloads_are_corrupt() {
    let bytes = saved(&VoxelStore::new());
    let volume = 32 * 32 * 32;
    let record = |kind: u8, payload: &[u8]| {
        let mut b = bytes.clone();
        put_u32(&mut b, COUNT_AT, 1);
        b.extend_from_slice(&[0; 12]);
        b.push(kind);
        b.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        b.extend_from_slice(payload);
        b.extend_from_slice(&[0; 4]);
        fix_checksums(&mut b);
        b
    };
    // A plane of `n` bytes of `v` in runs of 130.
    let plane = |v: u8, n: usize| {
        let mut p = Vec::new();
        let mut left = n;
        while left >= 3 {
            let run = left.min(130);
            p.extend_from_slice(&[(run + 125) as u8, v]);
            left -= run;
        }
        for _ in 0..left {
            p.extend_from_slice(&[0, v]);
        }
        p
    };
    let good = [plane(0, volume), plane(0, volume)].concat();
    assert!(VoxelStore::from_bytes(&record(1, &good)).is_ok(), "the hand-made record itself is valid");
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("material 1 past a 1-entry palette", [plane(0, volume), plane(1, volume)].concat()),
        ("one voxel too many", [plane(0, volume + 1), plane(0, volume)].concat()),
        ("one voxel short", [plane(0, volume), plane(0, volume - 1)].concat()),
        ("trailing byte", [good.clone(), vec![0]].concat()),
        ("a run ending the payload without its byte", [plane(0, volume), vec![255]].concat()),
        ("a literal cut short", [plane(0, volume), vec![127, 1, 2]].concat()),
        ("empty payload", Vec::new()),
    ];
    for (what, payload) in cases {
        assert!(matches!(VoxelStore::from_bytes(&record(1, &payload)), Err(StoreError::Corrupt(_))), "{what}");
    }
    assert!(matches!(VoxelStore::from_bytes(&record(0, &[0, 1])), Err(StoreError::Corrupt(_))), "uniform material");
    assert!(matches!(VoxelStore::from_bytes(&record(0, &[0])), Err(StoreError::Corrupt(_))), "uniform too short");
    assert!(matches!(VoxelStore::from_bytes(&record(0, &[0, 0, 0])), Err(StoreError::Corrupt(_))), "uniform too long");
    assert!(VoxelStore::from_bytes(&record(0, &[0x80, 0])).is_ok(), "uniform distance -128 is a valid i8");
}

/// A hostile palette: an unknown phase, names that are not UTF-8 (read lossily: a documented
/// lenient result), 256 entries (the most a palette holds).
#[test]
fn hostile_palettes() {
    let bytes = saved(&sample_store());
    let mut phase = bytes.clone();
    phase[18] = 3;
    fix_checksums(&mut phase);
    assert!(matches!(VoxelStore::from_bytes(&phase), Err(StoreError::Corrupt(_))));

    let l = layout(&bytes);
    let mut not_utf8 = bytes.clone();
    let at = l.name_lens[1]; // "rock"-like name of material 1, at least one byte long
    assert!(not_utf8[at] > 0);
    not_utf8[at + 1] = 0xFF;
    fix_checksums(&mut not_utf8);
    let store = VoxelStore::from_bytes(&not_utf8).unwrap();
    assert!(store.palette().get(1).unwrap().name.contains('\u{FFFD}'));

    let mut full = VoxelStore::new();
    for i in 1..256 {
        full.palette_mut().add(format!("m{i}"), Phase::Solid, [i as u8; 4]).unwrap();
    }
    let mut b = saved(&full);
    assert_eq!(VoxelStore::from_bytes(&b).unwrap().palette().len(), 256);
    b[PALETTE_LEN_AT..PALETTE_LEN_AT + 2].copy_from_slice(&257u16.to_le_bytes());
    fix_checksums(&mut b);
    assert!(matches!(VoxelStore::from_bytes(&b), Err(StoreError::Corrupt(_))));
}

/// A mutation: where (an index into the file) and what (flip bits, set a byte, set a u32).
fn mutation() -> impl Strategy<Value = (prop::sample::Index, u8, u32)> {
    let values = prop_oneof![Just(0u32), Just(1), Just(u32::MAX), Just(1 << 31), Just(i32::MAX as u32), any::<u32>()];
    (any::<prop::sample::Index>(), 0u8..3, values)
}

fn apply(bytes: &mut [u8], (at, how, v): &(prop::sample::Index, u8, u32)) {
    let i = at.index(bytes.len());
    match how {
        0 => bytes[i] ^= (v | 1) as u8,
        1 => bytes[i] = *v as u8,
        _ => {
            let i = i.min(bytes.len().saturating_sub(4));
            put_u32(bytes, i, *v);
        }
    }
}

proptest! {
    #![proptest_config(config(96))]

    /// Random mutations of a valid file, checksums left as they are.
    #[test]
    fn mutated_store_files(mutations in prop::collection::vec(mutation(), 1..6), cut in any::<prop::sample::Index>(), truncate in any::<bool>()) {
        let mut bytes = saved(&sample_store());
        for m in &mutations {
            apply(&mut bytes, m);
        }
        if truncate {
            let len = cut.index(bytes.len());
            bytes.truncate(len);
        }
        check_store_result(VoxelStore::from_bytes(&bytes))?;
    }

    /// Random mutations with every checksum repaired afterwards, so they reach the palette,
    /// key, kind, length and PackBits parsing behind the checksum gates.
    #[test]
    fn mutated_store_files_behind_the_checksums(mutations in prop::collection::vec(mutation(), 1..6)) {
        let mut bytes = saved(&sample_store());
        for m in &mutations {
            apply(&mut bytes, m);
        }
        fix_checksums(&mut bytes);
        check_store_result(VoxelStore::from_bytes(&bytes))?;
    }

    /// Mutations aimed at the fields: any count, length, kind or key set to a random or extreme
    /// value, checksums repaired.
    #[test]
    fn mutated_store_fields(field in any::<prop::sample::Index>(), v in prop_oneof![Just(0u32), Just(1), Just(u32::MAX), Just(1 << 31), Just(23), any::<u32>()]) {
        let mut bytes = saved(&sample_store());
        let l = layout(&bytes);
        let mut fields: Vec<(usize, usize)> = vec![(COUNT_AT, 4), (PALETTE_LEN_AT, 2), (8, 2), (10, 1), (11, 1)];
        fields.extend(l.name_lens.iter().map(|&at| (at, 1)));
        for &(start, len_at, _) in &l.records {
            fields.extend([(start, 4), (start + 4, 4), (start + 8, 4), (start + 12, 1), (len_at, 4), (len_at + 4, 1)]);
        }
        let (at, width) = fields[field.index(fields.len())];
        bytes[at..at + width].copy_from_slice(&v.to_le_bytes()[..width]);
        fix_checksums(&mut bytes);
        check_store_result(VoxelStore::from_bytes(&bytes))?;
    }

    /// Arbitrary bytes behind a valid magic and version.
    #[test]
    fn random_bytes_after_a_valid_magic(tail in prop::collection::vec(any::<u8>(), 0..400)) {
        let mut bytes = b"VXSTORE\0\x01\x00\x05\x00".to_vec();
        bytes.extend_from_slice(&tail);
        check_store_result(VoxelStore::from_bytes(&bytes))?;
        fix_checksums(&mut bytes);
        check_store_result(VoxelStore::from_bytes(&bytes))?;
    }
}

// ---------------------------------------------------------------------------------------------
// MagicaVoxel .vox
// ---------------------------------------------------------------------------------------------

/// What a `.vox` read may give: a store or a typed error, never `Io` (it read no file) or a
/// panic. A store must save and load back.
fn check_vox_result(result: Result<VoxelStore, StoreError>) -> Result<(), TestCaseError> {
    match result {
        Err(StoreError::Io(e)) => Err(TestCaseError::fail(format!("an I/O error from bytes: {e}"))),
        Err(_) => Ok(()),
        Ok(store) => {
            let bytes = saved(&store);
            prop_assert!(VoxelStore::from_bytes(&bytes).is_ok());
            Ok(())
        }
    }
}

fn options(frame: u32, keep_hidden: bool) -> VoxOptions {
    VoxOptions { frame, keep_hidden, ..VoxOptions::default() }
}

#[test]
fn the_sample_vox_imports() {
    let bytes = vox_bytes(&sample_vox_data());
    let store = vox::from_bytes(&bytes).unwrap();
    assert!(store.chunk_count() > 0);
    // The chunk walker finds the size fields of every chunk the writer wrote.
    assert!(vox_u32_fields(&bytes).len() > 40);
}

#[test]
fn every_vox_truncation_is_handled() {
    let bytes = vox_bytes(&sample_vox_data());
    for len in 0..bytes.len() {
        for o in [options(0, false), options(3, true)] {
            check_vox_result(vox::from_bytes_with(&bytes[..len], &o)).unwrap_or_else(|e| panic!("length {len}: {e}"));
        }
    }
}

/// Every u32 field of the file (chunk sizes, counts, ids) set to each hostile value in turn.
#[test]
fn every_vox_field_set_to_a_hostile_value() {
    let bytes = vox_bytes(&sample_vox_data());
    let fields = vox_u32_fields(&bytes);
    let mut cases = 0;
    for &at in &fields {
        for v in
            [0, 1, 2, 0xFF, 1 << 31, u32::MAX - 1, u32::MAX, (bytes.len() - at) as u32, (bytes.len() - at) as u32 + 1]
        {
            let mut b = bytes.clone();
            put_u32(&mut b, at, v);
            check_vox_result(vox::from_bytes(&b)).unwrap_or_else(|e| panic!("u32 at {at} = {v}: {e}"));
            cases += 1;
        }
    }
    assert!(cases > 300, "{cases}");
}

/// Chunks duplicated and out of order: `SIZE`/`XYZI` pairs split, `RGBA` and `MATL` twice, scene
/// nodes before the models, a `MAIN` inside `MAIN`.
#[test]
fn duplicated_and_reordered_vox_chunks() {
    let size = |n: u32| chunk(b"SIZE", &[n.to_le_bytes(), n.to_le_bytes(), n.to_le_bytes()].concat(), &[]);
    let xyzi = |voxels: &[[u8; 4]]| {
        let mut c = (voxels.len() as u32).to_le_bytes().to_vec();
        c.extend(voxels.iter().flatten());
        chunk(b"XYZI", &c, &[])
    };
    let rgba = chunk(b"RGBA", &[7; 1024], &[]);
    let one = xyzi(&[[0, 0, 0, 1]]);
    let files = [
        vox_file(&[one.clone(), size(1)].concat()), // voxels before their size
        vox_file(&[size(1), one.clone(), one.clone()].concat()), // two XYZI for one SIZE
        vox_file(&[size(1), size(2), one.clone(), rgba.clone(), rgba.clone()].concat()),
        vox_file(&[size(1), one.clone(), chunk(b"MAIN", &[], &[size(1), one.clone()].concat())].concat()),
        vox_file(&[size(0), xyzi(&[[255, 255, 255, 0]; 3])].concat()), // voxels outside a size-0 model
        vox_file(&[size(u32::MAX), xyzi(&[[1, 2, 3, 4]])].concat()),   // a 2^32-wide model
        vox_file(&chunk(b"RGBA", &[1, 2, 3], &[])),                    // a palette of 3 bytes
        vox_file(&[]),
    ];
    for (k, f) in files.iter().enumerate() {
        for o in [options(0, false), options(u32::MAX, true)] {
            check_vox_result(vox::from_bytes_with(f, &o)).unwrap_or_else(|e| panic!("file {k}: {e}"));
        }
    }
    // Huge model sizes in a scene: the pivot (size / 2) must not overflow the placement.
    for s in [u32::MAX, 1 << 31, (1 << 31) - 1] {
        let mut data = sample_vox_data();
        data.models[0].size = Size { x: s, y: s, z: s };
        check_vox_result(vox::from_bytes(&vox_bytes(&data))).unwrap_or_else(|e| panic!("size {s}: {e}"));
    }
}

/// Scene graphs that are not trees: a transform naming itself, a group naming its ancestor or
/// itself, a shape as the root's child's child's parent... Each must end with a typed error
/// (the depth limit) or a result, not recurse without end.
#[test]
fn cyclic_scene_graphs_end() {
    let t = |child: u32| SceneNode::Transform {
        attributes: HashMap::new(),
        frames: vec![Frame::new(dict(&[("_t", "1 0 0")]))],
        child,
        layer_id: 0,
    };
    let g = |children: &[u32]| SceneNode::Group { attributes: HashMap::new(), children: children.to_vec() };
    let s = SceneNode::Shape {
        attributes: HashMap::new(),
        models: vec![ShapeModel { model_id: 0, attributes: HashMap::new() }],
    };
    let graphs: Vec<(&str, Vec<SceneNode>)> = vec![
        ("transform naming itself", vec![t(0)]),
        ("group naming itself", vec![t(1), g(&[1])]),
        ("group naming the root", vec![t(1), g(&[2, 0]), t(3), s.clone()]),
        ("transform naming its grandparent", vec![t(1), g(&[2]), t(1)]),
        ("group naming itself first, a shape after", vec![t(1), g(&[1, 2]), s.clone()]),
        ("a shape after a cycle in a sibling", vec![g(&[1, 3]), t(2), g(&[1]), s.clone()]),
        ("missing child", vec![t(7)]),
        ("child u32::MAX", vec![g(&[u32::MAX])]),
    ];
    for (what, scenes) in graphs {
        let mut data = sample_vox_data();
        data.scenes = scenes;
        let bytes = vox_bytes(&data);
        for keep_hidden in [false, true] {
            let result = vox::from_bytes_with(&bytes, &options(0, keep_hidden));
            assert!(matches!(result, Err(StoreError::Vox(_))), "{what}: {result:?}");
        }
    }
}

/// A chain of 100 000 transforms (a tree, no cycle, but far deeper than any real scene): a
/// typed error from the depth limit, not a stack overflow.
#[test]
fn a_very_deep_scene_is_an_error() {
    let n = 100_000u32;
    let mut data = sample_vox_data();
    data.scenes = (0..n)
        .map(|i| SceneNode::Transform {
            attributes: HashMap::new(),
            frames: vec![Frame::new(HashMap::new())],
            child: i + 1,
            layer_id: 0,
        })
        .chain([SceneNode::Shape {
            attributes: HashMap::new(),
            models: vec![ShapeModel { model_id: 0, attributes: HashMap::new() }],
        }])
        .collect();
    let result = vox::from_bytes(&vox_bytes(&data));
    assert!(matches!(result, Err(StoreError::Vox(_))), "{result:?}");
}

/// A scene graph that is a DAG rather than a tree: `levels` groups, each listing the next one
/// twice, the last one a shape. 2^levels paths reach the shape, all within the depth limit.
fn doubling_scene(levels: u32) -> Vec<u8> {
    let mut data = sample_vox_data();
    data.scenes = (0..levels)
        .map(|i| SceneNode::Group { attributes: HashMap::new(), children: vec![i + 1, i + 1] })
        .chain([SceneNode::Shape {
            attributes: HashMap::new(),
            models: vec![ShapeModel { model_id: 1, attributes: HashMap::new() }],
        }])
        .collect();
    vox_bytes(&data)
}

/// A 1 kB file whose scene graph shares nodes (each group lists the next one twice) has 2^levels
/// paths to its shape: walked path by path, 40 levels would be 2^40 placements (tens of
/// terabytes, or hours of stamping the same voxels). MagicaVoxel scene graphs are trees, so a
/// group or transform reached twice is refused before its subgraph is walked again.
#[test]
fn a_scene_graph_sharing_nodes_is_refused_or_walked_once() {
    let bytes = doubling_scene(40);
    assert!(bytes.len() < 4096);
    for keep_hidden in [false, true] {
        let result = vox::from_bytes_with(&bytes, &options(0, keep_hidden));
        assert!(matches!(result, Err(StoreError::Vox(_))), "{result:?}");
    }
}

/// The same shape of file at 2 and 12 levels, small enough to walk path by path: refused too (a
/// node reached twice, not a count of paths, is what the reader refuses).
#[test]
fn a_small_scene_graph_sharing_nodes_is_refused() {
    for levels in [2, 12] {
        let result = vox::from_bytes(&doubling_scene(levels));
        assert!(matches!(result, Err(StoreError::Vox(_))), "{levels} levels: {result:?}");
    }
}

/// Instancing stays: a tree whose transforms (and a group, twice) all name one shape node places
/// the shape at each transform; a group naming one transform twice is refused.
#[test]
fn a_shape_node_shared_by_many_transforms_is_placed_by_each() {
    let t = |child: u32, x: i32| SceneNode::Transform {
        attributes: HashMap::new(),
        frames: vec![Frame::new(dict(&[("_t", &format!("{x} 0 0"))]))],
        child,
        layer_id: 0,
    };
    let g = |children: &[u32]| SceneNode::Group { attributes: HashMap::new(), children: children.to_vec() };
    let shape = SceneNode::Shape {
        attributes: HashMap::new(),
        models: vec![ShapeModel { model_id: 0, attributes: HashMap::new() }],
    };
    let mut data = sample_vox_data();
    data.models = vec![model(1, &[5])];
    data.scenes = vec![t(1, 0), g(&[2, 3, 4, 5, 5]), t(5, 0), t(5, 40), t(5, 80), shape];
    let store = vox::from_bytes(&vox_bytes(&data)).unwrap();
    // Model size 1: its centre is its voxel, which lands at (x, 0, -1) (z up turned to y up).
    let mut filled = Vec::new();
    for x in -100..200 {
        if store.get(IVec3::new(x, 0, -1)).is_inside() {
            filled.push(x);
        }
    }
    assert_eq!(filled, [0, 40, 80]);
    assert_eq!(store.chunk_count(), 3);

    data.scenes[1] = g(&[2, 3, 3]);
    assert!(matches!(vox::from_bytes(&vox_bytes(&data)), Err(StoreError::Vox(_))));
}

/// `dot_vox` parses child chunks recursively, one stack frame chain per nesting level, with no
/// depth limit: a 1.2 MB file of 100 000 nested chunks would overflow the stack and abort the
/// process (no error, no unwinding). `vox::from_bytes` walks the chunk headers first and refuses
/// nesting deeper than `vox::MAX_CHUNK_DEPTH`.
#[test]
fn deeply_nested_vox_chunks_are_an_error() {
    let bytes = nested_chunks(100_000);
    assert!(bytes.len() < 2_000_000);
    let result = vox::from_bytes(&bytes);
    assert!(matches!(result, Err(StoreError::Vox(_))), "{result:?}");
}

/// `MAIN` holding `depth` chunks nested one in the other, the innermost a `SIZE`.
fn nested_chunks(depth: usize) -> Vec<u8> {
    // Headers first, then the innermost chunk: each header's children size is everything after it.
    let innermost = chunk(b"SIZE", &[1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0], &[]);
    let mut body = Vec::with_capacity(depth * 12 + innermost.len());
    for level in 0..depth {
        let children = (depth - level - 1) * 12 + innermost.len();
        body.extend_from_slice(b"NEST");
        body.extend_from_slice(&0u32.to_le_bytes());
        body.extend_from_slice(&(children as u32).to_le_bytes());
    }
    body.extend_from_slice(&innermost);
    vox_file(&body)
}

/// Nesting up to `vox::MAX_CHUNK_DEPTH` (`MAIN` is 1, the innermost `SIZE` is `levels + 2`) is
/// read, the unknown chunks skipped; one level more is refused.
#[test]
fn nesting_up_to_the_limit_is_read() {
    let levels = vox::MAX_CHUNK_DEPTH - 2;
    let store = vox::from_bytes(&nested_chunks(levels)).unwrap();
    assert_eq!(store.chunk_count(), 0);
    let result = vox::from_bytes(&nested_chunks(levels + 1));
    assert!(matches!(result, Err(StoreError::Vox(_))), "{result:?}");
}

/// Chunk sizes that overrun the chunk holding them (a child longer than `MAIN`'s children, a
/// content size past the file) or leave a partial header are refused; a chunk after the
/// top-level one is ignored, as `dot_vox` does.
#[test]
fn chunk_sizes_are_checked_against_their_parent() {
    let size = chunk(b"SIZE", &[1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0], &[]);
    let xyzi = chunk(b"XYZI", &[1, 0, 0, 0, 0, 0, 0, 1], &[]);
    let good = vox_file(&[size.clone(), xyzi.clone()].concat());
    assert_eq!(vox::from_bytes(&good).unwrap().chunk_count(), 1);
    let mut trailing = good.clone();
    trailing.extend_from_slice(&chunk(b"JUNK", &[1, 2, 3], &[]));
    assert_eq!(vox::from_bytes(&trailing).unwrap().chunk_count(), 1);

    // XYZI's content size one past MAIN's children (the file then ends with one more byte).
    let mut overrun = [size.clone(), xyzi.clone()].concat();
    let at = size.len() + 4;
    let content = u32_at(&overrun, at).unwrap();
    put_u32(&mut overrun, at, content + 1);
    let mut f = vox_file(&overrun);
    f.push(0);
    // Three stray bytes after the last child: a header cut short.
    let partial = vox_file(&[size.clone(), xyzi.clone(), vec![0; 3]].concat());
    let mut huge = good.clone();
    put_u32(&mut huge, 8 + 12 + 4, u32::MAX); // SIZE's content size
    for (what, bytes) in [("overrun", f), ("partial header", partial), ("u32::MAX content", huge)] {
        assert!(matches!(vox::from_bytes(&bytes), Err(StoreError::Vox(_))), "{what}");
    }
}

/// A scene node: a transform, a group or a shape, with ids drawn from a small range (so they
/// hit real nodes, themselves and their ancestors) and a few hostile values.
fn node_strategy(n: u32) -> impl Strategy<Value = SceneNode> {
    let id = prop_oneof![8 => 0..n + 1, 1 => Just(u32::MAX), 1 => any::<u32>()];
    let attr = |key: &'static str, values: Vec<&'static str>| {
        prop::option::of(prop::sample::select(values)).prop_map(move |v| v.map(|v| (key.to_owned(), v.to_owned())))
    };
    let frame = (
        attr(
            "_t",
            vec![
                "0 0 0",
                "1 2 3",
                "-5 7 -9",
                "67108864 0 0",
                "67108865 0 0",
                "-2147483648 0 0",
                "2147483647 2147483647 2147483647",
                "1 2",
                "x y z",
                "",
            ],
        ),
        attr("_r", vec!["4", "40", "0", "3", "15", "255", "256", "-1", " 4", "4 ", "+4", "x"]),
        attr("_f", vec!["0", "1", "3", "4294967295", "4294967296", "-1", "x", ""]),
    )
        .prop_map(|(t, r, f)| Frame::new([t, r, f].into_iter().flatten().collect()));
    let hidden = prop::option::of(prop::sample::select(vec!["0", "1", " 1 ", "x"]))
        .prop_map(|h| h.map(|h| dict(&[("_hidden", h)])).unwrap_or_default());
    let layer = prop_oneof![0u32..3, Just(u32::MAX)];
    let model = (prop_oneof![0u32..3, Just(u32::MAX)], attr("_f", vec!["0", "2", "9", "x"]))
        .prop_map(|(model_id, f)| ShapeModel { model_id, attributes: f.into_iter().collect() });
    prop_oneof![
        (id.clone(), layer, hidden.clone(), prop::collection::vec(frame, 0..3)).prop_map(
            |(child, layer_id, attributes, frames)| SceneNode::Transform { attributes, frames, child, layer_id }
        ),
        (prop::collection::vec(id, 0..4), hidden.clone())
            .prop_map(|(children, attributes)| SceneNode::Group { attributes, children }),
        (prop::collection::vec(model, 0..3), hidden)
            .prop_map(|(models, attributes)| SceneNode::Shape { attributes, models }),
    ]
}

proptest! {
    #![proptest_config(config(64))]

    /// Random byte mutations and truncations of a valid `.vox`, read at a random frame.
    #[test]
    fn mutated_vox_files(mutations in prop::collection::vec(mutation(), 1..6), cut in any::<prop::sample::Index>(), truncate in any::<bool>(), frame in prop_oneof![0u32..5, Just(u32::MAX)], keep_hidden in any::<bool>()) {
        let mut bytes = vox_bytes(&sample_vox_data());
        for m in &mutations {
            apply(&mut bytes, m);
        }
        if truncate {
            let len = cut.index(bytes.len());
            bytes.truncate(len);
        }
        check_vox_result(vox::from_bytes_with(&bytes, &options(frame, keep_hidden)))?;
    }

    /// Random u32 fields of a valid `.vox` set to random or extreme values.
    #[test]
    fn mutated_vox_fields(fields in prop::collection::vec((any::<prop::sample::Index>(), prop_oneof![Just(0u32), Just(u32::MAX), Just(1 << 31), 0u32..64, any::<u32>()]), 1..4)) {
        let mut bytes = vox_bytes(&sample_vox_data());
        let offsets = vox_u32_fields(&bytes);
        for (at, v) in fields {
            put_u32(&mut bytes, offsets[at.index(offsets.len())], v);
        }
        check_vox_result(vox::from_bytes(&bytes))?;
    }

    /// Random scene graphs of up to 10 nodes (cycles, self references, shared nodes, missing
    /// nodes and models, hostile `_t`, `_r`, `_f`, `_hidden` values, missing layers), written
    /// by `dot_vox` and read at a random frame.
    #[test]
    fn random_scene_graphs(scenes in prop::collection::vec(node_strategy(10), 1..11), frame in prop_oneof![0u32..5, Just(u32::MAX)], keep_hidden in any::<bool>()) {
        let mut data = sample_vox_data();
        data.scenes = scenes;
        check_vox_result(vox::from_bytes_with(&vox_bytes(&data), &options(frame, keep_hidden)))?;
    }

    /// Random `MATL` ids and types, palettes of any length, voxel colours of any index (dot_vox
    /// cannot write index 255, which is file colour 256; byte mutations above reach it).
    #[test]
    fn random_materials_and_palettes(ids in prop::collection::vec(any::<u32>(), 0..4), palette_len in 0usize..300, colours in prop::collection::vec(0u8..255, 1..64)) {
        let mut data = sample_vox_data();
        data.materials = ids.iter().map(|&id| Material { id, properties: dict(&[("_type", "_media")]) }).collect();
        data.palette.resize(palette_len, Color { r: 1, g: 2, b: 3, a: 4 });
        data.models[1] = model(4, &colours);
        check_vox_result(vox::from_bytes(&vox_bytes(&data)))?;
    }
}
