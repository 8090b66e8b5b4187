//! A hash of every bit of a decomposition (FNV-1a, stable across Rust versions): every hull's
//! vertices, triangles, source triangles, flag, error and cap error, the counters and, with
//! `record`, every recorded step. Shared by `tests/hull_hashes.rs` and the `hull_hashes` example.

use convex_hacd::{Decomposition, RecordedHull};

struct Fnv(u64);

impl Fnv {
    fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn u32(&mut self, v: u32) {
        self.bytes(&v.to_le_bytes());
    }
    fn f32(&mut self, v: f32) {
        self.u32(v.to_bits());
    }
    fn recorded(&mut self, h: &RecordedHull) {
        self.u32(h.vertices.len() as u32);
        h.vertices.iter().flat_map(glam::Vec3::to_array).for_each(|x| self.f32(x));
        self.u32(h.triangles.len() as u32);
        h.triangles.iter().flatten().for_each(|&i| self.u32(i));
    }
}

pub(crate) fn hash(d: &Decomposition) -> u64 {
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    for c in [d.non_finite_triangles, d.degenerate_triangles, d.samples, d.protrusion_splits] {
        h.u32(c as u32);
    }
    h.f32(d.quantization);
    for hull in &d.hulls {
        h.u32(hull.vertices.len() as u32);
        hull.vertices.iter().flat_map(glam::Vec3::to_array).for_each(|x| h.f32(x));
        h.u32(hull.triangles.len() as u32);
        hull.triangles.iter().flatten().for_each(|&i| h.u32(i));
        h.u32(hull.source_triangles.len() as u32);
        hull.source_triangles.iter().for_each(|&t| h.u32(t));
        h.u32(u32::from(hull.flat));
        h.f32(hull.error);
        h.f32(hull.cap_error);
    }
    if let Some(r) = &d.recording {
        for s in &r.steps {
            h.recorded(&s.a);
            h.recorded(&s.b);
            h.recorded(&s.merged);
            h.f32(s.error);
        }
        r.hulls.iter().for_each(|x| h.recorded(x));
    }
    h.0
}
