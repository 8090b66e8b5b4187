//! Allocation bombs: a few-kB file whose counts and lengths claim 2^31 or 2^32 elements must not
//! make `VoxelStore::from_bytes` or `vox::from_bytes` allocate by the claim. Each hostile file's
//! peak allocation is measured (with the counting allocator of `voxel-testdata`) against what
//! the valid file it came from takes; one test function, since the counts are global to the
//! binary.

use voxel_store::{StoreError, VoxelStore, vox};
use voxel_testdata::ByteCounter;

mod malformed_common;
use malformed_common::*;

#[global_allocator]
static BYTES: ByteCounter = ByteCounter::new();

/// Values a count or length field is set to.
const LIES: [u32; 5] = [1 << 31, u32::MAX, u32::MAX - 1, 1 << 30, 0x00FF_FFFF];

#[test]
fn hostile_counts_allocate_no_more_than_valid_files() {
    // Save format: chunk count, palette length, name lengths, record payload lengths.
    let bytes = saved(&sample_store());
    let (valid, _, valid_peak) = BYTES.measure(|| VoxelStore::from_bytes(&bytes));
    assert!(valid.is_ok());
    let limit = 2 * valid_peak + (1 << 20);
    let l = layout(&bytes);
    let mut fields: Vec<(usize, usize)> = vec![(COUNT_AT, 4), (PALETTE_LEN_AT, 2)];
    fields.extend(l.name_lens.iter().map(|&at| (at, 1)));
    fields.extend(l.records.iter().map(|&(_, len_at, _)| (len_at, 4)));
    let mut cases = 0;
    for &(at, width) in &fields {
        for v in LIES {
            let mut b = bytes.clone();
            b[at..at + width].copy_from_slice(&v.to_le_bytes()[..width]);
            fix_checksums(&mut b);
            let (result, _, peak) = BYTES.measure(|| VoxelStore::from_bytes(&b));
            assert!(peak <= limit, "store field at {at} = {v}: peak {peak} bytes, valid file {valid_peak}");
            assert!(matches!(result, Err(StoreError::Corrupt(_))) || width == 1, "field at {at} = {v}: {result:?}");
            cases += 1;
        }
    }

    // .vox: every chunk size and every u32 of every chunk's content (voxel, dictionary, string,
    // frame, child and model counts).
    let bytes = vox_bytes(&sample_vox_data());
    let (valid, _, valid_peak) = BYTES.measure(|| vox::from_bytes(&bytes));
    assert!(valid.is_ok());
    let limit = 2 * valid_peak + (1 << 20);
    for at in vox_u32_fields(&bytes) {
        for v in LIES {
            let mut b = bytes.clone();
            put_u32(&mut b, at, v);
            let (_, _, peak) = BYTES.measure(|| vox::from_bytes(&b));
            assert!(peak <= limit, "vox u32 at {at} = {v}: peak {peak} bytes, valid file {valid_peak}");
            cases += 1;
        }
    }
    assert!(cases > 300, "{cases}");
}
