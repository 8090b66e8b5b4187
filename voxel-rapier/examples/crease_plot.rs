//! The picture of the crate: a ball resting exactly on, and one rolling along, a convex crease of
//! 10 degrees that lies on a chunk border, on our collider beside rapier's `TriMesh` per chunk with
//! `FIX_INTERNAL_EDGES`. Plots the height of the ball's centre above the crease over 4 s and
//! writes `voxel-rapier/docs/crease.png` (labels need a TrueType font: `DejaVuSans.ttf` is looked
//! for in the usual places, or name one in `VOXEL_PLOT_FONT`; without one the plot has no text).
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

fn font() -> Option<Vec<u8>> {
    let mut paths: Vec<String> = std::env::var("VOXEL_PLOT_FONT").into_iter().collect();
    paths.extend(
        [
            "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
            "/usr/share/fonts/TTF/DejaVuSans.ttf",
            "/Library/Fonts/Arial.ttf",
        ]
        .map(String::from),
    );
    paths.iter().find_map(|p| std::fs::read(p).ok())
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

    let text = font();
    if let Some(bytes) = &text {
        plotters::style::register_font("sans-serif", FontStyle::Normal, Box::leak(bytes.clone().into_boxed_slice()))
            .map_err(|_| "bad font")?;
    }
    let mut rgb = vec![0u8; (W * H * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (W, H)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut builder = ChartBuilder::on(&root);
        builder.margin(16).x_label_area_size(40).y_label_area_size(56);
        if text.is_some() {
            builder.caption("Ball (r = 0.5 m) on a 10-degree crease that lies on a chunk border", ("sans-serif", 22));
        }
        let mut chart = builder.build_cartesian_2d(0f32..SECONDS, -1.5f32..1.0f32)?;
        let mut mesh = chart.configure_mesh();
        if text.is_some() {
            mesh.x_desc("time (s)").y_desc("centre above the crease (m; the fall, clipped here, reaches -77 m)");
        } else {
            mesh.disable_x_mesh().disable_y_mesh().x_labels(0).y_labels(0);
        }
        mesh.draw()?;
        for (i, (name, s, color)) in series.iter().enumerate() {
            // At rest wide, rolling narrow on top: the pairs overlap almost exactly.
            let width = if i % 2 == 0 { 7 } else { 2 };
            let clipped: Vec<(f32, f32)> = s.iter().map(|&(t, y)| (t, y.max(-1.5))).collect();
            let line = chart.draw_series(LineSeries::new(clipped, color.stroke_width(width)))?;
            if text.is_some() {
                let c = *color;
                line.label(*name).legend(move |(x, y)| PathElement::new([(x, y), (x + 24, y)], c.stroke_width(width)));
            }
        }
        if text.is_some() {
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.9))
                .border_style(BLACK)
                .position(SeriesLabelPosition::LowerLeft)
                .label_font(("sans-serif", 16))
                .draw()?;
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
