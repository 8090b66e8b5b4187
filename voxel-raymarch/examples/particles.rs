//! Thousands of particles falling and bouncing on a generated world, as in the seed's game: every
//! frame each particle casts one ray along its velocity for the frame's time step, and a particle
//! that hits a face reflects its velocity on that face's axis.
//!
//! `cargo run --release -p voxel-raymarch --example particles [particles] [frames]`

use std::time::Instant;

use glam::{IVec3, Vec3};
use voxel_core::{Ray, VoxelBox};
use voxel_raymarch::{Cast, Occupancy};
use voxel_store::generate::{Terrain, terrain};

/// SplitMix64: deterministic spawns without a dependency.
struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f32 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 40) as f32 / (1u64 << 24) as f32
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let count: usize = args.next().map_or(Ok(20_000), |s| s.parse())?;
    let frames: usize = args.next().map_or(Ok(600), |s| s.parse())?;
    let size = IVec3::new(256, 64, 256);
    let store = terrain(&Terrain::new(size, 7))?;
    let t0 = Instant::now();
    let occ = Occupancy::build(&store, VoxelBox::new(IVec3::ZERO, size))?;
    println!(
        "occupancy of {size}: built in {:.1} ms, {:.3} bytes per voxel",
        t0.elapsed().as_secs_f64() * 1e3,
        occ.bytes_per_voxel()
    );

    let mut rng = Rng(1);
    let mut pos: Vec<Vec3> = (0..count)
        .map(|_| Vec3::new(8.0 + 240.0 * rng.unit(), 60.0 + 3.0 * rng.unit(), 8.0 + 240.0 * rng.unit()))
        .collect();
    let mut vel: Vec<Vec3> =
        (0..count).map(|_| Vec3::new(rng.unit() - 0.5, rng.unit(), rng.unit() - 0.5) * 12.0).collect();
    let dt = 1.0 / 60.0;
    let gravity = Vec3::new(0.0, -25.0, 0.0);
    // Energy kept by a bounce on the reflected axis; the seed reflects without loss, which never
    // lets a particle settle.
    let restitution = 0.5;
    let (mut casts, mut hits) = (Vec::with_capacity(count), Vec::with_capacity(count));
    let (mut rays, mut bounces, mut marching) = (0u64, 0u64, 0.0f64);
    for _ in 0..frames {
        for v in &mut vel {
            *v += gravity * dt;
        }
        casts.clear();
        casts.extend(pos.iter().zip(&vel).map(|(&p, &v)| Cast { ray: Ray::new(p, v), max_t: dt }));
        let t = Instant::now();
        occ.march(&casts, &mut hits);
        marching += t.elapsed().as_secs_f64();
        rays += casts.len() as u64;
        for ((p, v), hit) in pos.iter_mut().zip(&mut vel).zip(&hits) {
            match hit {
                None => *p += *v * dt,
                Some(h) => match h.face {
                    Some(face) => {
                        let a = face.axis.index();
                        v[a] = -v[a] * restitution;
                        // Stay a hair outside the face: a point on a face's plane belongs to the
                        // voxel on its positive side, which for a bottom or -x/-z face is the solid one.
                        *p = h.point + face.normal().as_vec3() * 1e-3;
                        bounces += 1;
                    }
                    // Started inside a solid voxel (spawned in a hill): lift it out.
                    None => {
                        p.y = h.voxel.y as f32 + 1.001;
                        *v = Vec3::ZERO;
                    }
                },
            }
        }
        // Particles that leave the world fall forever; respawn them above it.
        for (p, v) in pos.iter_mut().zip(&mut vel) {
            if !(p.cmpge(Vec3::ZERO).all() && p.cmplt(size.as_vec3()).all()) {
                *p = Vec3::new(8.0 + 240.0 * rng.unit(), 62.0, 8.0 + 240.0 * rng.unit());
                *v = Vec3::ZERO;
            }
        }
    }
    let resting = vel.iter().filter(|v| v.length() < 1.0).count();
    let mean_height = pos.iter().map(|p| p.y).sum::<f32>() / count as f32;
    println!(
        "{count} particles, {frames} frames: {rays} rays, {bounces} bounces, {resting} at rest, mean height {mean_height:.1}"
    );
    println!(
        "march: {:.1} ns per ray, {:.1} M rays per second on {} threads",
        marching * 1e9 / rays as f64,
        rays as f64 / marching / 1e6,
        rayon::current_num_threads()
    );
    Ok(())
}
