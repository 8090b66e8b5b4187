//! The hull files: OBJ (one object per hull) and JSON (hull vertices and faces). Numbers are
//! written in Rust's shortest round-trip form, so the bytes depend on the hulls alone.

use std::fmt::Write as _;

use convex_hacd::Decomposition;
use serde_json::{Value, json};

/// An OBJ file with one object (`o hull_K`) per hull, outward counter-clockwise faces, indices
/// counted from 1 over the whole file.
pub(crate) fn obj(source: &str, d: &Decomposition) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {} convex hulls of {source} (hacd {})", d.hulls.len(), env!("CARGO_PKG_VERSION"));
    let mut base = 1usize;
    for (k, hull) in d.hulls.iter().enumerate() {
        let _ = writeln!(out, "o hull_{k}");
        for v in &hull.vertices {
            let _ = writeln!(out, "v {} {} {}", v.x, v.y, v.z);
        }
        for t in &hull.triangles {
            let [a, b, c] = t.map(|i| base + i as usize);
            let _ = writeln!(out, "f {a} {b} {c}");
        }
        base += hull.vertices.len();
    }
    out
}

/// A JSON object: `source`, `quantization` (the tolerance used, in the mesh's units) and `hulls`,
/// each with `vertices` (`[x, y, z]`), `faces` (outward counter-clockwise `[a, b, c]` into its
/// vertices), `source_triangles` (input triangle indices), `flat` and `error`.
pub(crate) fn json(source: &str, d: &Decomposition) -> String {
    let hulls: Vec<Value> = d
        .hulls
        .iter()
        .map(|h| {
            json!({
                "vertices": h.vertices.iter().map(|v| [short(v.x), short(v.y), short(v.z)]).collect::<Vec<_>>(),
                "faces": h.triangles,
                "source_triangles": h.source_triangles,
                "flat": h.flat,
                "error": short(h.error),
            })
        })
        .collect();
    let doc = json!({
        "source": source,
        "generator": format!("hacd {}", env!("CARGO_PKG_VERSION")),
        "quantization": short(d.quantization),
        "hulls": hulls,
    });
    let mut text = serde_json::to_string(&doc).unwrap_or_default();
    text.push('\n');
    text
}

/// `v` as the `f64` of its shortest decimal form, which JSON then prints as short as the OBJ does
/// (`0.1`, not `0.10000000149011612`) and which reads back as the same `f32`.
fn short(v: f32) -> f64 {
    v.to_string().parse().unwrap_or(f64::from(v))
}
