//! Save and load: a versioned binary format with per-chunk run-length encoding and checksums,
//! written atomically.
//!
//! ```text
//! header   "VXSTORE\0"  version u16  chunk_bits u8  0u8  palette_len u16  chunk_count u32
//!          palette_len × (phase u8, rgba [u8; 4], name_len u8, name)      crc32 u32 (of the header)
//! chunk    key 3 × i32  kind u8 (0 uniform, 1 run-length)  payload_len u32  payload  crc32 u32
//!          uniform payload: distance i8, material u8
//!          run-length payload: the distance plane, then the material plane, each PackBits-coded
//! ```
//!
//! All integers are little endian. Chunks are written in key order, so the same world always saves
//! to the same bytes. Distances and materials are coded as separate planes because their runs differ:
//! materials form long runs through the surface band where every distance differs.

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::Path;

use glam::IVec3;
use voxel_core::{Phase, Voxel};

use crate::chunk::{CHUNK_BITS, Chunk, VOLUME};
use crate::{Palette, StoreError, VoxelStore};

/// The format version this build writes and reads.
pub const FORMAT_VERSION: u16 = 1;

const MAGIC: &[u8; 8] = b"VXSTORE\0";
const KIND_UNIFORM: u8 = 0;
const KIND_RUNS: u8 = 1;
/// PackBits never grows a plane by more than one control byte per 128 bytes.
const MAX_PAYLOAD: usize = 2 * (VOLUME + VOLUME / 128 + 2);
/// Keys outside `MIN_KEY..=MAX_KEY` would put chunk boxes outside the `i32` voxel range.
const MAX_KEY: i32 = i32::MAX >> CHUNK_BITS;
const MIN_KEY: i32 = i32::MIN >> CHUNK_BITS;

impl VoxelStore {
    /// Saves the world to `path` atomically: it writes a temporary file with a unique name in the
    /// same folder, syncs it to disk, and renames it over `path`. Whatever else runs (a crash, another
    /// save to the same path, a reader loading it), `path` holds either the previous file or one
    /// complete new one, never a mix: each save has its own temporary file, and the rename replaces
    /// the whole file at once. Of concurrent saves, the last rename wins.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), StoreError> {
        self.save_with(path.as_ref(), |file| file)
    }

    /// [`VoxelStore::save`] with the file wrapped by `wrap` (tests interrupt the write through it).
    pub(crate) fn save_with<W: Write>(&self, path: &Path, wrap: impl FnOnce(File) -> W) -> Result<(), StoreError> {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let mut builder = tempfile::Builder::new();
        builder.prefix(".vxstore-").suffix(".tmp");
        // A plain `File::create` gives 0o666 less the umask; keep that rather than tempfile's 0o600,
        // so replacing a world does not make it private.
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        // Dropping `tmp` on any error below deletes the temporary file.
        let tmp = builder.tempfile_in(dir)?;
        let mut writer = BufWriter::new(wrap(tmp.as_file().try_clone()?));
        self.write_to(&mut writer)?;
        writer.flush()?;
        drop(writer);
        tmp.as_file().sync_all()?;
        tmp.persist(path).map_err(|e| e.error)?;
        // Make the rename itself durable; not every platform can open a folder, so best effort.
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }

    /// Loads a world saved by [`VoxelStore::save`]. A truncated, corrupted or foreign file gives
    /// [`StoreError::Corrupt`], another version [`StoreError::UnsupportedVersion`]; allocation is
    /// bounded by the file's size, whatever its header claims.
    pub fn load(path: impl AsRef<Path>) -> Result<VoxelStore, StoreError> {
        let mut bytes = Vec::new();
        File::open(path)?.read_to_end(&mut bytes)?;
        Self::from_bytes(&bytes)
    }

    /// Writes the world in the save format to any writer; returns the bytes written.
    pub fn write_to(&self, w: &mut impl Write) -> Result<u64, StoreError> {
        let mut header = Vec::new();
        header.extend_from_slice(MAGIC);
        header.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        header.push(CHUNK_BITS as u8);
        header.push(0);
        header.extend_from_slice(&(self.palette.len() as u16).to_le_bytes());
        header.extend_from_slice(&(self.chunks.len() as u32).to_le_bytes());
        for m in self.palette.materials() {
            header.push(m.phase as u8);
            header.extend_from_slice(&m.color);
            let name = truncate_utf8(&m.name, 255);
            header.push(name.len() as u8);
            header.extend_from_slice(name.as_bytes());
        }
        header.extend_from_slice(&crc32fast::hash(&header).to_le_bytes());
        w.write_all(&header)?;
        let mut written = header.len() as u64;
        let mut record = Vec::new();
        for key in self.chunk_keys() {
            record.clear();
            for c in key.to_array() {
                record.extend_from_slice(&c.to_le_bytes());
            }
            let chunk = &self.chunks[&key];
            if let Some(v) = chunk.uniform() {
                record.push(KIND_UNIFORM);
                record.extend_from_slice(&2u32.to_le_bytes());
                record.extend_from_slice(&[v.distance as u8, v.material]);
            } else {
                record.push(KIND_RUNS);
                record.extend_from_slice(&0u32.to_le_bytes());
                let start = record.len();
                let voxels = chunk.to_dense();
                pack_bits(voxels.iter().map(|v| v.distance as u8), &mut record);
                pack_bits(voxels.iter().map(|v| v.material), &mut record);
                let len = (record.len() - start) as u32;
                record[13..17].copy_from_slice(&len.to_le_bytes());
            }
            record.extend_from_slice(&crc32fast::hash(&record).to_le_bytes());
            w.write_all(&record)?;
            written += record.len() as u64;
        }
        Ok(written)
    }

    /// Reads a world from bytes in the save format.
    pub fn from_bytes(bytes: &[u8]) -> Result<VoxelStore, StoreError> {
        let mut r = Reader { bytes, pos: 0 };
        if r.take(8)? != MAGIC {
            return Err(StoreError::Corrupt("not a voxel-store file"));
        }
        let version = r.u16()?;
        if version != FORMAT_VERSION {
            return Err(StoreError::UnsupportedVersion(version));
        }
        if r.u8()? != CHUNK_BITS as u8 || r.u8()? != 0 {
            return Err(StoreError::Corrupt("chunk size differs from this build's"));
        }
        let palette_len = usize::from(r.u16()?);
        let chunk_count = r.u32()? as usize;
        if !(1..=256).contains(&palette_len) {
            return Err(StoreError::Corrupt("palette size out of range"));
        }
        let mut palette = Palette::new();
        for i in 0..palette_len {
            let phase = match r.u8()? {
                0 => Phase::Empty,
                1 => Phase::Solid,
                2 => Phase::Liquid,
                _ => return Err(StoreError::Corrupt("unknown material phase")),
            };
            let color: [u8; 4] = r.take(4)?.try_into().expect("took 4 bytes");
            let name_len = usize::from(r.u8()?);
            let name = String::from_utf8_lossy(r.take(name_len)?).into_owned();
            if i == 0 {
                // Material 0 exists in every palette; the file may have renamed or recoloured it.
                palette.replace_first(name, phase, color);
            } else {
                palette.add(name, phase, color)?;
            }
        }
        let header_end = r.pos;
        if r.u32()? != crc32fast::hash(&bytes[..header_end]) {
            return Err(StoreError::Corrupt("header checksum mismatch"));
        }
        // Each record takes at least 23 bytes: a count beyond that is a lie, refused before looping.
        if chunk_count > (bytes.len() - r.pos) / 23 {
            return Err(StoreError::Corrupt("chunk count exceeds the file's size"));
        }
        let mut store = VoxelStore::with_palette(palette);
        let mut planes = vec![0u8; 2 * VOLUME];
        for _ in 0..chunk_count {
            let start = r.pos;
            let key = IVec3::new(r.i32()?, r.i32()?, r.i32()?);
            let kind = r.u8()?;
            let len = r.u32()? as usize;
            if len > MAX_PAYLOAD {
                return Err(StoreError::Corrupt("chunk payload too long"));
            }
            let payload = r.take(len)?;
            let end = r.pos;
            if r.u32()? != crc32fast::hash(&bytes[start..end]) {
                return Err(StoreError::Corrupt("chunk checksum mismatch"));
            }
            if key.cmplt(IVec3::splat(MIN_KEY)).any() || key.cmpgt(IVec3::splat(MAX_KEY)).any() {
                return Err(StoreError::Corrupt("chunk key outside the i32 voxel range"));
            }
            if store.chunks.contains_key(&key) {
                return Err(StoreError::Corrupt("chunk stored twice"));
            }
            // The material check reads the material plane (or the one voxel) directly: decoding the
            // packed chunk again just to find its largest material doubled the load's work.
            let (chunk, max_material) = match (kind, payload) {
                (KIND_UNIFORM, &[d, m]) => (Chunk::Uniform(Voxel::new(d as i8, m)), m),
                (KIND_RUNS, _) => {
                    let used = unpack_bits(payload, &mut planes[..VOLUME])?;
                    if unpack_bits(&payload[used..], &mut planes[VOLUME..])? != payload.len() - used {
                        return Err(StoreError::Corrupt("trailing bytes after the chunk planes"));
                    }
                    let (d, m) = planes.split_at(VOLUME);
                    let voxels: Box<[Voxel]> = d.iter().zip(m).map(|(&d, &m)| Voxel::new(d as i8, m)).collect();
                    let mut chunk = Chunk::Dense(voxels);
                    chunk.compact();
                    (chunk, m.iter().copied().max().unwrap_or(0))
                }
                _ => return Err(StoreError::Corrupt("unknown chunk kind")),
            };
            if usize::from(max_material) >= store.palette.len() {
                return Err(StoreError::Corrupt("a voxel names a material beyond the palette"));
            }
            store.insert_chunk(key, chunk);
        }
        if r.pos != bytes.len() {
            return Err(StoreError::Corrupt("trailing bytes after the last chunk"));
        }
        Ok(store)
    }
}

fn truncate_utf8(s: &str, max: usize) -> &str {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// PackBits: a control byte `c < 128` is followed by `c + 1` literal bytes; `c >= 128` by one byte
/// repeated `c - 125` times (3 to 130). Runs of two stay literal, which never costs more.
fn pack_bits(bytes: impl Iterator<Item = u8>, out: &mut Vec<u8>) {
    let data: Vec<u8> = bytes.collect();
    let mut i = 0;
    let mut literal_start = 0;
    let flush_literal = |out: &mut Vec<u8>, from: usize, to: usize| {
        for part in data[from..to].chunks(128) {
            out.push((part.len() - 1) as u8);
            out.extend_from_slice(part);
        }
    };
    while i < data.len() {
        let mut run = 1;
        while i + run < data.len() && data[i + run] == data[i] && run < 130 {
            run += 1;
        }
        if run >= 3 {
            flush_literal(out, literal_start, i);
            out.push((run + 125) as u8);
            out.push(data[i]);
            i += run;
            literal_start = i;
        } else {
            i += run;
        }
    }
    flush_literal(out, literal_start, data.len());
}

/// Decodes PackBits into exactly `out.len()` bytes; returns the input bytes used.
fn unpack_bits(input: &[u8], out: &mut [u8]) -> Result<usize, StoreError> {
    let (mut i, mut o) = (0, 0);
    while o < out.len() {
        let &c = input.get(i).ok_or(StoreError::Corrupt("run-length data ends early"))?;
        i += 1;
        if c < 128 {
            let n = usize::from(c) + 1;
            let src = input.get(i..i + n).ok_or(StoreError::Corrupt("run-length data ends early"))?;
            out.get_mut(o..o + n).ok_or(StoreError::Corrupt("run-length data overflows a chunk"))?.copy_from_slice(src);
            i += n;
            o += n;
        } else {
            let n = usize::from(c) - 125;
            let &v = input.get(i).ok_or(StoreError::Corrupt("run-length data ends early"))?;
            out.get_mut(o..o + n).ok_or(StoreError::Corrupt("run-length data overflows a chunk"))?.fill(v);
            i += 1;
            o += n;
        }
    }
    Ok(i)
}

/// A bounds-checked cursor: every read past the end is [`StoreError::Corrupt`].
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], StoreError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.bytes.len()).ok_or(StoreError::Corrupt("truncated"))?;
        let s = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8, StoreError> {
        Ok(self.take(1)?[0])
    }
    fn u16(&mut self) -> Result<u16, StoreError> {
        Ok(u16::from_le_bytes(self.take(2)?.try_into().expect("2 bytes")))
    }
    fn u32(&mut self) -> Result<u32, StoreError> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }
    fn i32(&mut self) -> Result<i32, StoreError> {
        Ok(i32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn pack_bits_round_trips(data in prop::collection::vec(prop_oneof![Just(0u8), Just(7u8), any::<u8>()], 0..2000)) {
            let mut packed = Vec::new();
            pack_bits(data.iter().copied(), &mut packed);
            let mut out = vec![0u8; data.len()];
            prop_assert_eq!(unpack_bits(&packed, &mut out).unwrap(), packed.len());
            prop_assert_eq!(out, data);
        }
    }

    #[test]
    fn unpack_refuses_overflow_and_truncation() {
        let mut out = [0u8; 4];
        assert!(unpack_bits(&[200, 1], &mut out).is_err(), "a run longer than the output");
        assert!(unpack_bits(&[5, 1, 2], &mut out).is_err(), "a literal cut short");
        assert!(unpack_bits(&[], &mut out).is_err());
    }
}

#[cfg(test)]
mod file_tests {
    use std::io::Write;

    use glam::Vec3;

    use crate::{StoreError, VoxelStore, generate};

    /// A writer that fails once `budget` bytes have gone through: a crash in the middle of a save.
    struct FailAfter<W> {
        inner: W,
        budget: usize,
    }

    impl<W: Write> Write for FailAfter<W> {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.budget == 0 {
                return Err(std::io::Error::other("simulated crash"));
            }
            let n = buf.len().min(self.budget);
            self.budget -= n;
            self.inner.write(&buf[..n])
        }
        fn flush(&mut self) -> std::io::Result<()> {
            self.inner.flush()
        }
    }

    fn temp_dir(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("voxel-store-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn interrupted_save_leaves_the_previous_file_intact() {
        let dir = temp_dir("interrupt");
        let path = dir.join("world.vxs");
        let old = generate::sphere(Vec3::ZERO, 10.0).unwrap();
        old.save(&path).unwrap();
        let old_bytes = std::fs::read(&path).unwrap();
        let new = generate::terrain(&generate::Terrain::new(glam::IVec3::new(64, 48, 64), 3)).unwrap();
        let mut full = Vec::new();
        let total = new.write_to(&mut full).unwrap() as usize;
        for budget in [0, 1, 30, total / 2, total - 1] {
            let result = new.save_with(&path, |f| FailAfter { inner: f, budget });
            assert!(matches!(result, Err(StoreError::Io(_))), "budget {budget}");
            assert_eq!(std::fs::read(&path).unwrap(), old_bytes, "budget {budget}: old file changed");
            let names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
            assert_eq!(names, [std::ffi::OsString::from("world.vxs")], "budget {budget}: temporary file left behind");
        }
        new.save_with(&path, |f| FailAfter { inner: f, budget: total }).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), full);
        assert_eq!(VoxelStore::load(&path).unwrap().chunk_keys(), new.chunk_keys());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn truncated_and_corrupted_files_are_typed_errors() {
        let store = generate::terrain(&generate::Terrain::new(glam::IVec3::new(40, 40, 40), 5)).unwrap();
        let mut bytes = Vec::new();
        store.write_to(&mut bytes).unwrap();
        // Every truncation fails cleanly.
        for len in (0..bytes.len()).step_by(97).chain([bytes.len() - 1]) {
            assert!(VoxelStore::from_bytes(&bytes[..len]).is_err(), "truncated at {len}");
        }
        // Every single-byte corruption is caught (checksums cover header and chunks).
        for i in (0..bytes.len()).step_by(53) {
            let mut bad = bytes.clone();
            bad[i] ^= 0x5A;
            assert!(VoxelStore::from_bytes(&bad).is_err(), "flipped byte {i}");
        }
        let mut extra = bytes.clone();
        extra.push(0);
        assert!(matches!(VoxelStore::from_bytes(&extra), Err(StoreError::Corrupt(_))));
        assert!(matches!(VoxelStore::from_bytes(b"not a store at all"), Err(StoreError::Corrupt(_))));
    }

    #[test]
    fn other_versions_are_refused_by_number() {
        let mut bytes = Vec::new();
        VoxelStore::new().write_to(&mut bytes).unwrap();
        bytes[8..10].copy_from_slice(&7u16.to_le_bytes());
        assert!(matches!(VoxelStore::from_bytes(&bytes), Err(StoreError::UnsupportedVersion(7))));
    }

    #[test]
    fn a_lying_chunk_count_allocates_nothing_big() {
        let mut bytes = Vec::new();
        VoxelStore::new().write_to(&mut bytes).unwrap();
        // Claim four billion chunks and fix the header checksum so the count itself is believed.
        let count_at = 14;
        bytes[count_at..count_at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        let header_end = bytes.len() - 4;
        let crc = crc32fast::hash(&bytes[..header_end]);
        bytes[header_end..].copy_from_slice(&crc.to_le_bytes());
        assert!(matches!(VoxelStore::from_bytes(&bytes), Err(StoreError::Corrupt(_))));
    }

    #[test]
    fn missing_file_is_an_io_error() {
        assert!(matches!(VoxelStore::load("/definitely/not/here.vxs"), Err(StoreError::Io(_))));
    }
}
