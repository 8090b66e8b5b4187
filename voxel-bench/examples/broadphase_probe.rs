//! The overlap-test probe behind `voxel-broadphase`'s README figure: 1024 character-sized
//! (1x2x1) boxes near the surface of the bench's generated 512x128x512 world, timed as the
//! minimum over many rounds, which a shared machine disturbs less than criterion's mean.
//!
//! ```text
//! cargo run --release -p voxel-bench --example broadphase_probe                 # one query per box
//! BATCH=1 cargo run --release -p voxel-bench --example broadphase_probe         # query_batch
//! SET=repeat cargo run --release -p voxel-bench --example broadphase_probe      # one box, 1024 times
//! ROUNDS=20000 ...                                                              # rounds (default 2000)
//! SEED=7 ...                                                                    # another world and boxes
//! cargo run --release -p voxel-bench --example broadphase_probe -- count        # 100 passes, no timing
//! ```
//!
//! `count` runs a fixed amount of work for `valgrind --tool=callgrind` instruction counts.

use std::hint::black_box;
use std::time::Instant;

use glam::{IVec3, Vec3};
use voxel_bench::workloads;
use voxel_broadphase::Broadphase;
use voxel_core::VoxelBox;
use voxel_store::generate::{self, Terrain};

const WORLD: IVec3 = IVec3::new(512, 128, 512);

fn main() {
    // Seed 1 (world) and 3 (boxes) are the bench's; `SEED` picks another world and box set.
    let seed: Option<u64> = std::env::var("SEED").ok().and_then(|s| s.parse().ok());
    let world = generate::terrain(&Terrain::new(WORLD, seed.unwrap_or(1))).expect("valid parameters");
    let bp = Broadphase::build(&world, VoxelBox::new(IVec3::ZERO, WORLD)).expect("bounded region");
    // The same boxes as the `broadphase/overlap/*/1x2x1` benches (seed 3).
    let scattered = workloads::boxes_near_surface(&world, WORLD, 1024, Vec3::new(1.0, 2.0, 1.0), seed.unwrap_or(3));
    let set = match std::env::var("SET").as_deref() {
        Ok("repeat") => vec![scattered[5]; scattered.len()],
        _ => scattered,
    };
    let (mut hits, mut ends) = (Vec::new(), Vec::new());
    let single = |hits: &mut Vec<_>| {
        let mut n = 0;
        for b in &set {
            bp.query(black_box(b), hits).expect("valid box");
            n += hits.len();
        }
        n
    };
    let total = single(&mut hits);
    println!("{:.3} hits per box", total as f64 / set.len() as f64);
    let batch = std::env::var("BATCH").is_ok();
    if std::env::args().nth(1).as_deref() == Some("count") {
        for _ in 0..100 {
            if batch {
                bp.query_batch(black_box(&set), &mut hits, &mut ends).expect("valid boxes");
            } else {
                black_box(single(&mut hits));
            }
        }
        return;
    }
    let rounds: usize = std::env::var("ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(2000);
    let mut best = f64::MAX;
    for _ in 0..rounds {
        let start = Instant::now();
        if batch {
            bp.query_batch(black_box(&set), &mut hits, &mut ends).expect("valid boxes");
            black_box(hits.len());
        } else {
            black_box(single(&mut hits));
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    let what = if batch { "query_batch" } else { "query" };
    println!("{what}: {:.2} ns per box (minimum of {rounds} rounds)", best * 1e9 / set.len() as f64);
}
