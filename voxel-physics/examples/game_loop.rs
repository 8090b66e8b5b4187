//! A game loop over the terrain collider, to copy into a game: balls dropped on a generated
//! world, moved each frame (`update_objects`), their pair events read, contacts asked for the
//! objects whose pairs touch solid (`object_contacts`), a simple reaction (push out, bounce,
//! friction), and a crater dug under a ball every second (the edit refreshes everything).
//!
//! ```sh
//! cargo run --release -p voxel-physics --example game_loop
//! ```
//!
//! The root README shows the code between the `README` markers; a test in xtask checks that the
//! two stay the same, and `cargo test` compiles this example.

// README start
use voxel_physics::glam::{IVec3, Vec3};
use voxel_physics::voxel_contacts::Sphere;
use voxel_physics::voxel_store::generate::{self, Terrain};
use voxel_physics::{Aabb, Brush, ColliderOptions, ContactOptions, ContactScratch, PairKind, Ray, Shape};
use voxel_physics::{TerrainCollider, VoxelBox};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A generated world (hills, caves, water); 64 balls (position, velocity), tracked with a margin.
    let size = IVec3::new(96, 48, 96);
    let store = generate::terrain(&Terrain::new(size, 7))?;
    let mut collider = TerrainCollider::new(store, VoxelBox::new(IVec3::ZERO, size), ColliderOptions::default())?;
    let radius = 0.5;
    let tracked = |p: Vec3| Aabb::new(p - Vec3::splat(radius + 0.25), p + Vec3::splat(radius + 0.25));
    let mut balls: Vec<(Vec3, Vec3)> = (0..64)
        .map(|i| (Vec3::new(10.0 + (i % 8 * 10) as f32, 46.0, 10.0 + (i / 8 * 10) as f32), Vec3::ZERO))
        .collect();
    let mut events = Vec::new();
    for (id, &(p, _)) in balls.iter().enumerate() {
        collider.insert_object(id as u32, tracked(p), &mut events)?;
    }
    let (dt, gravity, options) = (1.0 / 60.0, Vec3::new(0.0, -30.0, 0.0), ContactOptions::default());
    let (mut scratch, mut contacts, mut moves, mut splashes) = (ContactScratch::new(), Vec::new(), Vec::new(), 0);
    for frame in 1..=300 {
        // 1. Move (< 0.3 voxel a frame: no tunnelling), update the broadphase in one batch, read events.
        moves.clear();
        for (id, (p, v)) in balls.iter_mut().enumerate() {
            *v = (*v + gravity * dt).clamp_length_max(18.0);
            *p += *v * dt;
            moves.push((id as u32, tracked(*p)));
        }
        events.clear();
        collider.update_objects(&moves, &mut events)?;
        splashes += events.iter().filter(|e| e.added && e.kind == PairKind::Water).count();
        // 2. Contacts for the balls whose pairs touch solid: push out, bounce at half strength, friction.
        for (id, (p, v)) in balls.iter_mut().enumerate() {
            let pairs = collider.object_pairs(id as u32).unwrap_or_default();
            if !pairs.iter().any(|pair| pair.solid && !pair.full) {
                continue;
            }
            contacts.clear();
            let ball = Shape::Sphere(Sphere { center: *p, radius });
            collider.object_contacts(id as u32, &ball, &options, &mut scratch, &mut contacts)?;
            for c in contacts.iter().filter(|c| c.depth > 0.0) {
                *p += c.normal * c.depth;
                let into = v.dot(c.normal);
                if into < 0.0 {
                    *v -= c.normal * into * 1.5;
                    *v -= (*v - c.normal * v.dot(c.normal)) * 0.1;
                }
            }
        }
        // 3. Edit: once a second, dig a crater under ball 0 (the edit refreshes everything).
        if frame % 60 == 0 {
            let Some(ground) = collider.raycast(&Ray::new(balls[0].0, Vec3::NEG_Y), 100.0) else { continue };
            let dig = collider.subtract(&Brush::Sphere { center: ground.point, radius: 4.0 })?;
            println!("frame {frame}: {splashes} water pairs gained; dug {} voxels", dig.report.changed_voxels);
        }
    }
    let on_ground = |p: Vec3| collider.raycast(&Ray::new(p, Vec3::NEG_Y), radius + 0.5).is_some();
    let resting = balls.iter().filter(|&&(p, v)| v.length() < 1.0 && on_ground(p)).count();
    println!("after 5 s, {resting} of {} balls rest on the ground", balls.len());
    Ok(())
}
// README end
