//! Prints what a generated world is made of: chunk forms, mixed rows, bytes per voxel in memory and
//! on disk. `cargo run --release -p voxel-store --example world_stats -- 512 128 512`
use glam::IVec3;
use voxel_core::VoxelBox;
use voxel_store::generate::{Terrain, terrain};

fn main() {
    let args: Vec<i32> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let size = if args.len() == 3 { IVec3::new(args[0], args[1], args[2]) } else { IVec3::new(512, 128, 512) };
    let mut params = Terrain::new(size, 1);
    if std::env::var_os("NO_CAVES").is_some() {
        params.cave_width = 0.0;
    }
    if std::env::var_os("NO_WATER").is_some() {
        params.water_level = None;
    }
    let world = terrain(&params).expect("valid parameters");
    let m = world.memory();
    let volume = VoxelBox::new(IVec3::ZERO, size).volume() as f64;
    let mut disk = Vec::new();
    world.write_to(&mut disk).expect("in memory");
    println!("{size}: {m:?}");
    println!("memory {:.3} B/voxel, disk {:.4} B/voxel", m.bytes as f64 / volume, disk.len() as f64 / volume);
}
