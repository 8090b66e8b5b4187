//! The picture of the crate: a ball resting exactly on, and one rolling along, a convex crease of
//! 10 degrees that lies on a chunk border, on our collider beside rapier's `TriMesh` per chunk with
//! `FIX_INTERNAL_EDGES`. Plots the height of the ball's centre above the crease over 4 s and
//! writes `voxel-rapier/docs/crease.png`. The plot has no text (plotters renders text only with
//! a font feature, and criterion's plots, built with the same plotters, then panic without a
//! registered font): blue is ours at rest, green ours rolling at 2 m/s, red and orange the same on
//! `TriMesh` per chunk with the flag; x is 0-4 s, y is -1.5 to 1 m with grid lines every 0.5 m.
//!
//! `cargo run --release -p voxel-rapier --example crease_plot [-- out.png]`

#[path = "../tests/common/mod.rs"]
mod common;

use common::*;
use glam::{Quat, Vec3};
use parry3d::shape::{SharedShape, TriMeshFlags};
use plotters::prelude::*;
use voxel_rapier::{TerrainShape, reference};

const W: u32 = 960;
const H: u32 = 540;
const SECONDS: f32 = 4.0;

fn heights(sim: Sim, velocity: Vec3, h: impl Fn(f32) -> f32) -> Vec<(f32, f32)> {
    let mut sim = sim;
    let r = 0.5;
    let start = Vec3::new(SEAM_X, h(SEAM_X) + r + 0.002, 8.0);
    let body = sim.add(SharedShape::ball(r), start, Quat::IDENTITY, velocity, Vec3::new(velocity.z / r, 0.0, 0.0));
    (0..(SECONDS * 60.0) as usize)
        .map(|i| {
            sim.step();
            let p = sim.pose(body).translation;
            ((i + 1) as f32 / 60.0, p.y - h(p.x))
        })
        .collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args().nth(1).unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/docs/crease.png").into());
    let (collider, h) = ridge(10.0, SEAM_X);
    let per_chunk = reference::trimesh_per_chunk(&collider, TriMeshFlags::FIX_INTERNAL_EDGES);
    let terrain = TerrainShape::new(collider);
    let series = [
        ("ours, at rest on the crease", heights(Sim::ours(&terrain), Vec3::ZERO, h), RGBColor(0, 90, 200)),
        (
            "ours, rolling along it at 2 m/s",
            heights(Sim::ours(&terrain), Vec3::new(0.0, 0.0, 2.0), h),
            RGBColor(0, 170, 90),
        ),
        (
            "TriMesh per chunk + FIX_INTERNAL_EDGES, at rest",
            heights(Sim::meshes(&per_chunk), Vec3::ZERO, h),
            RGBColor(220, 40, 40),
        ),
        (
            "TriMesh per chunk + FIX_INTERNAL_EDGES, rolling",
            heights(Sim::meshes(&per_chunk), Vec3::new(0.0, 0.0, 2.0), h),
            RGBColor(240, 150, 0),
        ),
    ];
    for (name, s, _) in &series {
        let last = s.last().map_or(0.0, |p| p.1);
        println!("{name}: centre {last:.3} m above the crease after {SECONDS} s");
    }

    let mut rgb = vec![0u8; (W * H * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (W, H)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root).margin(16).build_cartesian_2d(0f32..SECONDS, -1.5f32..1.0f32)?;
        // Grid lines only (no labels: no font); every 0.5 s and 0.5 m, the zero line darker.
        for k in 0..=8 {
            let t = k as f32 * 0.5;
            chart.draw_series(LineSeries::new([(t, -1.5), (t, 1.0)], RGBColor(225, 225, 225).stroke_width(1)))?;
        }
        for k in 0..=5 {
            let y = -1.5 + k as f32 * 0.5;
            let c = if y == 0.0 { RGBColor(120, 120, 120) } else { RGBColor(225, 225, 225) };
            chart.draw_series(LineSeries::new([(0.0, y), (SECONDS, y)], c.stroke_width(1)))?;
        }
        for (i, (_, s, color)) in series.iter().enumerate() {
            // At rest wide, rolling narrow on top: the pairs overlap almost exactly.
            let width = if i % 2 == 0 { 7 } else { 2 };
            let clipped: Vec<(f32, f32)> = s.iter().map(|&(t, y)| (t, y.max(-1.5))).collect();
            chart.draw_series(LineSeries::new(clipped, color.stroke_width(width)))?;
        }
        root.present()?;
    }
    let file = std::io::BufWriter::new(std::fs::File::create(&out)?);
    let mut encoder = png::Encoder::new(file, W, H);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.write_header()?.write_image_data(&rgb)?;
    println!("wrote {out}");
    Ok(())
}
