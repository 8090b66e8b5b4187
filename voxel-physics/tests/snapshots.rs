//! `insta` snapshots of composed answers in a reviewable text form: the contact manifold of a box
//! resting across a chunk corner, and ray hits over a small generated terrain. A change to the
//! meshing, the trees or the contact rules shows up in review as a diff of these lines.
//!
//! Numbers are rounded to 3 decimals with `-0.0` printed as `0.0`; contacts are sorted (their order
//! within a manifold is not part of the contract), ray hits keep the rays' order.

mod common;

use common::{collider, cube, flat, terrain};
use glam::{IVec3, Quat, Vec3};
use voxel_contacts::Pose;
use voxel_core::{Feature, Ray};
use voxel_physics::{ContactOptions, ContactScratch, Shape};

fn num(x: f32) -> String {
    let s = format!("{x:.3}");
    if s.parse::<f64>() == Ok(0.0) { format!("{:.3}", 0.0) } else { s }
}

fn vec3(v: Vec3) -> String {
    format!("{} {} {}", num(v.x), num(v.y), num(v.z))
}

#[test]
fn box_manifold_across_a_chunk_corner() {
    // Flat ground, surface at y = 11.5; x = 16 and z = 16 are chunk seams. The box sinks 0.05
    // into the ground, turned a little about y, its centre on the corner where four chunks meet.
    let (store, world) = flat(IVec3::new(32, 20, 32), 12);
    let c = collider(store, world);
    let poly = cube(0.75);
    let pose = Pose { translation: Vec3::new(16.0, 11.5 + 0.7, 16.0), rotation: Quat::from_rotation_y(0.3) };
    let shape = Shape::Convex { hull: &poly, pose };
    let mut scratch = ContactScratch::new();
    let mut contacts = Vec::new();
    c.contacts(
        &shape,
        &ContactOptions { contact_distance: 0.02, ..ContactOptions::default() },
        &mut scratch,
        &mut contacts,
    )
    .unwrap();
    let mut lines: Vec<String> = contacts
        .iter()
        .map(|k| {
            let feature = match k.feature {
                Feature::Face => "face",
                Feature::Edge(..) => "edge",
                Feature::Vertex(_) => "vertex",
            };
            format!("point {}  normal {}  depth {}  {feature}", vec3(k.point), vec3(k.normal), num(k.depth))
        })
        .collect();
    lines.sort();
    let chunks = scratch.chunk_hits().len();
    let manifold = format!("{} contacts from {chunks} chunks\n{}\n", lines.len(), lines.join("\n"));
    insta::assert_snapshot!(manifold);
}

#[test]
fn ray_hits_over_a_small_terrain() {
    let (store, world) = terrain(IVec3::new(32, 24, 32), 5);
    let c = collider(store, world);
    let mut s = String::new();
    // Straight down on a grid, then slanted rays across chunk seams, and one from below the world.
    let mut rays: Vec<Ray> = (0..4)
        .flat_map(|i| (0..4).map(move |j| (i, j)))
        .map(|(i, j)| Ray::new(Vec3::new(3.3 + 8.0 * i as f32, 30.0, 2.7 + 8.0 * j as f32), Vec3::NEG_Y))
        .collect();
    for k in 0..6 {
        let a = k as f32 * 1.1;
        let dir = Vec3::new(a.cos(), -1.5, a.sin()).normalize();
        rays.push(Ray::new(Vec3::new(16.0, 26.0, 16.0), dir));
    }
    rays.push(Ray::new(Vec3::new(5.5, -4.0, 5.5), Vec3::Y));
    for (i, ray) in rays.iter().enumerate() {
        let line = match c.raycast(ray, 100.0) {
            Some(h) => format!(
                "ray {i:<2} t {}  point {}  normal {}  material {}  chunk {:?}",
                num(h.t),
                vec3(h.point),
                vec3(h.normal),
                h.material,
                h.chunk.to_array()
            ),
            None => format!("ray {i:<2} miss"),
        };
        s += &line;
        s.push('\n');
    }
    insta::assert_snapshot!(s);
}
