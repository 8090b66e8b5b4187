//! Draws a decomposition as an SVG picture, each hull in its own colour, beside the input mesh:
//! `cargo run --release -p convex-hacd --example render_svg -- mesh.obj out.svg [yaw pitch]`
//! (degrees; default 35 and 25). The README's pictures come from this.
//!
//! Flat shading and the painter's algorithm: the input (grey, left) face by face far to near,
//! the hulls (right) whole, far to near by their centres, each hull's front faces together. A
//! hull is convex, so it is drawn exactly; where hulls overlap in depth the order is approximate.

use std::fmt::Write as _;

use convex_hacd::{DecomposeOptions, decompose};
use glam::{Mat3, Vec3};

/// A face to draw: its corners on the page, depth (of the face, or of its hull's centre), and
/// fill colour.
struct Face {
    corners: [(f32, f32); 3],
    depth: f32,
    fill: [u8; 3],
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(input), Some(output)) = (args.first(), args.get(1)) else {
        eprintln!("usage: render_svg <mesh.obj|mesh.stl> <out.svg> [yaw pitch]");
        return;
    };
    let yaw: f32 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(35.0);
    let pitch: f32 = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(25.0);
    let mesh = match voxel_testdata::load_mesh(std::path::Path::new(input)) {
        Ok(mesh) => mesh,
        Err(e) => {
            eprintln!("{e}");
            return;
        }
    };
    let parts = match decompose(&mesh, &DecomposeOptions::default()) {
        Ok(parts) => parts,
        Err(e) => {
            eprintln!("{e}");
            return;
        }
    };
    let view = Mat3::from_rotation_x(pitch.to_radians()) * Mat3::from_rotation_y(yaw.to_radians());
    let (lo, hi) =
        mesh.positions().iter().fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), p| (lo.min(*p), hi.max(*p)));
    let centre = (lo + hi) * 0.5;
    let radius = (hi - lo).length() * 0.5;
    // Each panel is 300 x 300 units; y grows downwards on the page.
    let page = |p: Vec3, panel: f32| {
        let q = view * (p - centre) / radius;
        ((panel * 300.0 + 150.0 + q.x * 140.0, 150.0 - q.y * 140.0), q.z)
    };
    let light = Vec3::new(-0.4, 0.6, 0.7).normalize();
    let mut faces = Vec::new();
    let mut push = |tri: [Vec3; 3], colour: [u8; 3], panel: f32, depth: Option<f32>| {
        let n = view * (tri[1] - tri[0]).cross(tri[2] - tri[0]);
        // Front faces only (the camera looks down -z).
        let Some(n) = n.try_normalize().filter(|n| n.z > 0.0) else { return };
        let shade = 0.35 + 0.65 * n.dot(light).max(0.0);
        let projected = tri.map(|p| page(p, panel));
        faces.push(Face {
            corners: projected.map(|(c, _)| c),
            depth: depth.unwrap_or(projected.iter().map(|(_, z)| z).sum::<f32>() / 3.0),
            fill: colour.map(|c| (f32::from(c) * shade) as u8),
        });
    };
    for t in 0..mesh.triangles().len() {
        let tri = mesh.triangles()[t].map(|v| mesh.positions()[v as usize]);
        push(tri, [200, 200, 200], 0.0, None);
    }
    for (h, hull) in parts.hulls.iter().enumerate() {
        let colour = palette(h);
        let middle = hull.vertices.iter().copied().sum::<Vec3>() / hull.vertices.len().max(1) as f32;
        let depth = page(middle, 1.0).1;
        for t in &hull.triangles {
            push(t.map(|v| hull.vertices[v as usize]), colour, 1.0, Some(depth));
        }
    }
    // Stable: a hull's faces stay together among equal depths.
    faces.sort_by(|a, b| a.depth.total_cmp(&b.depth));
    let mut svg = String::new();
    let name = std::path::Path::new(input).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let _ = writeln!(svg, r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 600 320" width="600" height="320">"#);
    let _ = writeln!(svg, r#"<rect width="600" height="320" fill="white"/>"#);
    for f in &faces {
        let [(ax, ay), (bx, by), (cx, cy)] = f.corners;
        let [r, g, b] = f.fill;
        let _ = writeln!(
            svg,
            r##"<path d="M{ax:.1} {ay:.1}L{bx:.1} {by:.1}L{cx:.1} {cy:.1}Z" fill="#{r:02x}{g:02x}{b:02x}" stroke="#{r:02x}{g:02x}{b:02x}" stroke-width="0.3"/>"##
        );
    }
    let _ = writeln!(
        svg,
        r#"<text x="150" y="312" font-family="sans-serif" font-size="12" text-anchor="middle">{name}: {} triangles</text>"#,
        mesh.triangles().len()
    );
    let _ = writeln!(
        svg,
        r#"<text x="450" y="312" font-family="sans-serif" font-size="12" text-anchor="middle">{} hulls</text>"#,
        parts.hulls.len()
    );
    svg.push_str("</svg>\n");
    if let Err(e) = std::fs::write(output, svg) {
        eprintln!("{output}: {e}");
    }
}

/// A colour per hull: hues spread by the golden angle, fairly saturated.
fn palette(i: usize) -> [u8; 3] {
    let h = (i as f32 * 137.507_77) % 360.0 / 60.0;
    let (s, v) = (0.6, 0.95);
    let c = v * s;
    let x = c * (1.0 - (h % 2.0 - 1.0).abs());
    let (r, g, b) = match h as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = v - c;
    [r, g, b].map(|u| ((u + m) * 255.0) as u8)
}
