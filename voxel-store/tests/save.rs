//! Saves to one path from several threads while others load it: every load sees one whole save.

use std::sync::atomic::{AtomicUsize, Ordering};

use glam::{IVec3, Vec3};
use voxel_store::{VoxelStore, generate};

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("voxel-store-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

struct Done<'a>(&'a AtomicUsize);

impl Drop for Done<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// Two savers write two different worlds to the same path, over and over, while two readers load
/// it. Each read must be byte for byte one of the two saves, every save must succeed, and no
/// temporary file may stay behind. With one fixed temporary name the savers wrote into each other's
/// file and readers loaded torn files.
#[test]
fn concurrent_saves_leave_one_whole_file() {
    let dir = temp_dir("concurrent-save");
    let path = dir.join("world.vxs");
    let a = generate::sphere(Vec3::ZERO, 20.0).unwrap();
    let b = generate::terrain(&generate::Terrain::new(IVec3::new(96, 48, 96), 7)).unwrap();
    let (mut a_bytes, mut b_bytes) = (Vec::new(), Vec::new());
    a.write_to(&mut a_bytes).unwrap();
    b.write_to(&mut b_bytes).unwrap();
    assert_ne!(a_bytes, b_bytes);
    a.save(&path).unwrap();
    let rounds = 60;
    let savers_done = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for first in [&a, &b] {
            let (path, savers_done) = (&path, &savers_done);
            let second = if std::ptr::eq(first, &a) { &b } else { &a };
            s.spawn(move || {
                // Counted on drop, so a failing saver stops the readers too.
                let _done = Done(savers_done);
                for round in 0..rounds {
                    let store = if round % 2 == 0 { first } else { second };
                    store.save(path).unwrap();
                }
            });
        }
        for _ in 0..2 {
            let (path, savers_done, a_bytes, b_bytes) = (&path, &savers_done, &a_bytes, &b_bytes);
            s.spawn(move || {
                // Bounded: stop when both savers are done, or after many reads whatever happens.
                for _ in 0..100_000 {
                    if savers_done.load(Ordering::SeqCst) == 2 {
                        break;
                    }
                    let bytes = std::fs::read(path).unwrap();
                    assert!(
                        bytes == *a_bytes || bytes == *b_bytes,
                        "a reader saw a torn file of {} bytes",
                        bytes.len()
                    );
                    VoxelStore::from_bytes(&bytes).unwrap();
                }
            });
        }
    });
    let last = std::fs::read(&path).unwrap();
    assert!(last == a_bytes || last == b_bytes, "the final file is neither save");
    let names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, [std::ffi::OsString::from("world.vxs")], "temporary files left behind");
    std::fs::remove_dir_all(&dir).unwrap();
}
