//! The step recorder, the article's "visual debugger" (the article, "Visual
//! Debugging"): every collapse with its two hulls, the result and its error, and the final hulls,
//! exported as OBJ files (one colour per hull, as vertex colours) and as one self-contained HTML
//! page that steps through the collapses in a browser (no scripts or styles from elsewhere).

use std::fmt::Write as _;
use std::path::Path;

use glam::{DVec3, Vec3};

use crate::ConvexHull;
use crate::hacd::Shape;
use crate::quantize::Prepared;

/// A hull as recorded, in the input's units.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RecordedHull {
    /// Vertices.
    pub vertices: Vec<Vec3>,
    /// Triangles over `vertices`, counter-clockwise seen from outside.
    pub triangles: Vec<[u32; 3]>,
}

/// One edge collapse: the two hulls it joined, the hull it made, and that hull's concavity error.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Step {
    /// The first hull.
    pub a: RecordedHull,
    /// The second hull.
    pub b: RecordedHull,
    /// Their merged hull.
    pub merged: RecordedHull,
    /// The error of the merge, in input units: the concavity error for the article's collapses, the
    /// distance for [`DecomposeOptions::merge_distance`](crate::DecomposeOptions::merge_distance)'s
    /// merges (which come after them).
    pub error: f32,
}

/// Every collapse of one [`decompose`](crate::decompose) run, in order, and the final hulls.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recorder {
    /// The collapses in the order they happened.
    pub steps: Vec<Step>,
    /// The final hulls.
    pub hulls: Vec<RecordedHull>,
}

impl Recorder {
    pub(crate) fn push(&mut self, a: &Shape, b: &Shape, merged: &Shape, error: f64, prep: &Prepared) {
        let record = |s: &Shape| RecordedHull {
            vertices: s.points.iter().map(|&p: &DVec3| (p / prep.scale + prep.centre).as_vec3()).collect(),
            triangles: s.triangles.clone(),
        };
        self.steps.push(Step {
            a: record(a),
            b: record(b),
            merged: record(merged),
            error: (error / prep.scale) as f32,
        });
    }

    /// The final hulls as one OBJ text: an object per hull (`o hull_<i>`), each in its own colour
    /// given as vertex colours (`v x y z r g b`, read by MeshLab and Blender).
    pub fn final_obj(&self) -> String {
        let mut out = String::from("# convex-hacd: final hulls, one colour each\n");
        let mut base = 1;
        for (i, hull) in self.hulls.iter().enumerate() {
            write_obj_object(&mut out, &format!("hull_{i}"), hull, colour(i), &mut base);
        }
        out
    }

    /// One collapse as OBJ text: the two hulls it joined (`a` blue, `b` green) and the result
    /// (`merged` red), with the error in a comment; `None` past the last step.
    pub fn step_obj(&self, step: usize) -> Option<String> {
        let s = self.steps.get(step)?;
        let mut out = format!("# convex-hacd: collapse {step} of {}, error {}\n", self.steps.len(), s.error);
        let mut base = 1;
        write_obj_object(&mut out, "a", &s.a, [0.2, 0.4, 1.0], &mut base);
        write_obj_object(&mut out, "b", &s.b, [0.2, 0.8, 0.3], &mut base);
        write_obj_object(&mut out, "merged", &s.merged, [1.0, 0.25, 0.2], &mut base);
        Some(out)
    }

    /// One self-contained HTML page: a slider steps through the collapses (the two hulls filled,
    /// the merged hull as a wireframe, the error printed), its last position shows the final hulls
    /// in their colours; drag to turn the view. Everything is inline, so the file can be mailed.
    pub fn html(&self) -> String {
        let mut data = String::from("{\"hulls\":[");
        for (i, hull) in self.hulls.iter().enumerate() {
            if i > 0 {
                data.push(',');
            }
            push_json_hull(&mut data, hull);
        }
        data.push_str("],\"steps\":[");
        for (i, s) in self.steps.iter().enumerate() {
            if i > 0 {
                data.push(',');
            }
            data.push_str("{\"a\":");
            push_json_hull(&mut data, &s.a);
            data.push_str(",\"b\":");
            push_json_hull(&mut data, &s.b);
            data.push_str(",\"m\":");
            push_json_hull(&mut data, &s.merged);
            let _ = write!(data, ",\"e\":{}}}", json_number(s.error));
        }
        data.push_str("]}");
        HTML_TEMPLATE.replace("/*DATA*/null", &data)
    }

    /// Writes `final.obj`, `step_00000.obj`, ... (one per collapse) and `steps.html` into `dir`,
    /// which must exist.
    pub fn write_to(&self, dir: &Path) -> std::io::Result<()> {
        std::fs::write(dir.join("final.obj"), self.final_obj())?;
        for step in 0..self.steps.len() {
            if let Some(obj) = self.step_obj(step) {
                std::fs::write(dir.join(format!("step_{step:05}.obj")), obj)?;
            }
        }
        std::fs::write(dir.join("steps.html"), self.html())
    }

    pub(crate) fn finish(&mut self, hulls: &[ConvexHull]) {
        self.hulls = hulls
            .iter()
            .map(|h| RecordedHull { vertices: h.vertices.clone(), triangles: h.triangles.clone() })
            .collect();
    }
}

/// A distinct, stable colour per index: hues a golden angle apart.
fn colour(i: usize) -> [f32; 3] {
    let hue = (i as f32 * 0.618_034).fract() * 6.0;
    let x = 1.0 - (hue % 2.0 - 1.0).abs();
    let (r, g, b) = match hue as u32 {
        0 => (1.0, x, 0.0),
        1 => (x, 1.0, 0.0),
        2 => (0.0, 1.0, x),
        3 => (0.0, x, 1.0),
        4 => (x, 0.0, 1.0),
        _ => (1.0, 0.0, x),
    };
    // Pastel: readable with shading on either a dark or a light background.
    [0.3 + 0.7 * r, 0.3 + 0.7 * g, 0.3 + 0.7 * b]
}

fn write_obj_object(out: &mut String, name: &str, hull: &RecordedHull, rgb: [f32; 3], base: &mut usize) {
    let _ = writeln!(out, "o {name}");
    for v in &hull.vertices {
        let _ = writeln!(out, "v {} {} {} {:.3} {:.3} {:.3}", v.x, v.y, v.z, rgb[0], rgb[1], rgb[2]);
    }
    for t in &hull.triangles {
        let _ = writeln!(out, "f {} {} {}", *base + t[0] as usize, *base + t[1] as usize, *base + t[2] as usize);
    }
    *base += hull.vertices.len();
}

/// A finite `f32` as JSON (recorded values are finite; anything else becomes 0).
fn json_number(x: f32) -> String {
    if x.is_finite() { format!("{}", x + 0.0) } else { "0".to_owned() }
}

fn push_json_hull(out: &mut String, hull: &RecordedHull) {
    out.push_str("{\"v\":[");
    for (i, v) in hull.vertices.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "{},{},{}", json_number(v.x), json_number(v.y), json_number(v.z));
    }
    out.push_str("],\"t\":[");
    for (i, t) in hull.triangles.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "{},{},{}", t[0], t[1], t[2]);
    }
    out.push_str("]}");
}

/// The viewer: a canvas, a slider and about a hundred lines of script (orthographic projection,
/// painter's algorithm, flat shading). `/*DATA*/null` is replaced by the recording as JSON.
const HTML_TEMPLATE: &str = r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>convex-hacd steps</title>
<style>body{font:14px sans-serif;margin:12px;background:#f4f4f4}canvas{background:#fff;border:1px solid #bbb;cursor:grab}
#bar{display:flex;gap:12px;align-items:center;margin:8px 0}#step{flex:1}</style></head>
<body><div id="bar"><button id="prev">&lt;</button><input id="step" type="range" min="0" value="0"><button id="next">&gt;</button><span id="info"></span></div>
<canvas id="view" width="900" height="640"></canvas>
<p>Blue and green: the two hulls a collapse joins; red lines: the hull it makes. Last position: the final hulls. Drag to turn.</p>
<script>
const D = /*DATA*/null;
const canvas = document.getElementById('view'), ctx = canvas.getContext('2d');
const slider = document.getElementById('step'), info = document.getElementById('info');
slider.max = D.steps.length;
slider.value = D.steps.length;
let yaw = 0.6, pitch = 0.4;
const all = D.hulls.length ? D.hulls : D.steps.map(s => s.m);
let lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
for (const h of all) for (let i = 0; i < h.v.length; i += 3) for (let k = 0; k < 3; k++) { lo[k] = Math.min(lo[k], h.v[i + k]); hi[k] = Math.max(hi[k], h.v[i + k]); }
const centre = [0, 1, 2].map(k => (lo[k] + hi[k]) / 2), size = Math.max(1e-30, ...[0, 1, 2].map(k => hi[k] - lo[k]));
function colour(i) { const h = (i * 0.618034) % 1 * 6, x = 1 - Math.abs(h % 2 - 1); const c = [[1, x, 0], [x, 1, 0], [0, 1, x], [0, x, 1], [x, 0, 1], [1, 0, x]][Math.floor(h) % 6]; return c.map(v => 0.3 + 0.7 * v); }
function project(h) {
  const cy = Math.cos(yaw), sy = Math.sin(yaw), cp = Math.cos(pitch), sp = Math.sin(pitch), s = 0.8 * Math.min(canvas.width, canvas.height) / size, out = [];
  for (let i = 0; i < h.v.length; i += 3) {
    const x = h.v[i] - centre[0], y = h.v[i + 1] - centre[1], z = h.v[i + 2] - centre[2];
    const x1 = cy * x + sy * z, z1 = -sy * x + cy * z, y1 = cp * y - sp * z1, z2 = sp * y + cp * z1;
    out.push([canvas.width / 2 + s * x1, canvas.height / 2 - s * y1, z2]);
  }
  return out;
}
function faces(h, rgb, list, fill) {
  const p = project(h);
  for (let i = 0; i < h.t.length; i += 3) {
    const a = p[h.t[i]], b = p[h.t[i + 1]], c = p[h.t[i + 2]];
    const nz = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
    if (fill && nz > 0) continue;
    const area = Math.hypot(nz) + 1e-9, light = fill ? 0.35 + 0.65 * Math.min(1, Math.abs(nz) / area) : 1;
    list.push({ pts: [a, b, c], depth: (a[2] + b[2] + c[2]) / 3, rgb: rgb.map(v => Math.round(255 * v * light)), fill });
  }
}
function draw() {
  const i = +slider.value, list = [];
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  if (i >= D.steps.length) {
    D.hulls.forEach((h, k) => faces(h, colour(k), list, true));
    info.textContent = `final: ${D.hulls.length} hulls after ${D.steps.length} collapses`;
  } else {
    const s = D.steps[i];
    faces(s.a, [0.2, 0.4, 1], list, true); faces(s.b, [0.2, 0.8, 0.3], list, true); faces(s.m, [1, 0.25, 0.2], list, false);
    info.textContent = `collapse ${i + 1} of ${D.steps.length}: error ${s.e}`;
  }
  list.sort((x, y) => x.depth - y.depth);
  for (const f of list) {
    ctx.beginPath(); ctx.moveTo(f.pts[0][0], f.pts[0][1]); ctx.lineTo(f.pts[1][0], f.pts[1][1]); ctx.lineTo(f.pts[2][0], f.pts[2][1]); ctx.closePath();
    const c = `rgb(${f.rgb[0]},${f.rgb[1]},${f.rgb[2]})`;
    if (f.fill) { ctx.fillStyle = c; ctx.fill(); ctx.strokeStyle = 'rgba(0,0,0,0.15)'; ctx.stroke(); } else { ctx.strokeStyle = c; ctx.stroke(); }
  }
}
let drag = null;
canvas.onmousedown = e => drag = [e.clientX, e.clientY];
window.onmouseup = () => drag = null;
window.onmousemove = e => { if (!drag) return; yaw += (e.clientX - drag[0]) * 0.01; pitch += (e.clientY - drag[1]) * 0.01; drag = [e.clientX, e.clientY]; draw(); };
slider.oninput = draw;
document.getElementById('prev').onclick = () => { slider.value = +slider.value - 1; draw(); };
document.getElementById('next').onclick = () => { slider.value = +slider.value + 1; draw(); };
draw();
</script></body></html>
"#;
