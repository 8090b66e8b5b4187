//! Per-triangle kernels for the round shapes: closest points and the closest feature of the
//! triangle (Terdiman, "Contact generation for meshes", section 4a).

use glam::Vec3;

use crate::kernel::{Local, Outcome, RawPoint};

/// The closest point of triangle `t` to `p` and the triangle feature it lies on (Ericson's
/// Voronoi-region walk, "Real-Time Collision Detection" 5.1.5). Ties go to the lower-dimensional
/// feature, so a point exactly over an edge reports the edge.
pub(crate) fn closest_on_triangle(p: Vec3, t: &[Vec3; 3]) -> (Vec3, Local) {
    let [a, b, c] = *t;
    let ab = b - a;
    let ac = c - a;
    let ap = p - a;
    let d1 = ab.dot(ap);
    let d2 = ac.dot(ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, Local::Vertex(0));
    }
    let bp = p - b;
    let d3 = ab.dot(bp);
    let d4 = ac.dot(bp);
    if d3 >= 0.0 && d4 <= d3 {
        return (b, Local::Vertex(1));
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return (a + v * ab, Local::Edge(0, 1));
    }
    let cp = p - c;
    let d5 = ab.dot(cp);
    let d6 = ac.dot(cp);
    if d6 >= 0.0 && d5 <= d6 {
        return (c, Local::Vertex(2));
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return (a + w * ac, Local::Edge(0, 2));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return (b + w * (c - b), Local::Edge(1, 2));
    }
    let denom = 1.0 / (va + vb + vc);
    (a + ab * (vb * denom) + ac * (vc * denom), Local::Face)
}

/// Closest points of segments `p1 + s (q1 - p1)` and `p2 + t (q2 - p2)`, `s, t` in `[0, 1]`
/// (Ericson 5.1.9). Returns `(s, t, c1, c2)`.
pub(crate) fn closest_segments(p1: Vec3, q1: Vec3, p2: Vec3, q2: Vec3) -> (f32, f32, Vec3, Vec3) {
    let d1 = q1 - p1;
    let d2 = q2 - p2;
    let r = p1 - p2;
    let a = d1.dot(d1);
    let e = d2.dot(d2);
    let f = d2.dot(r);
    let tiny = f32::MIN_POSITIVE;
    let (s, t);
    if a <= tiny && e <= tiny {
        return (0.0, 0.0, p1, p2);
    }
    if a <= tiny {
        s = 0.0;
        t = (f / e).clamp(0.0, 1.0);
    } else {
        let c = d1.dot(r);
        if e <= tiny {
            t = 0.0;
            s = (-c / a).clamp(0.0, 1.0);
        } else {
            let b = d1.dot(d2);
            let denom = a * e - b * b;
            let s0 = if denom > 0.0 { ((b * f - c * e) / denom).clamp(0.0, 1.0) } else { 0.0 };
            let t0 = (b * s0 + f) / e;
            if t0 < 0.0 {
                t = 0.0;
                s = (-c / a).clamp(0.0, 1.0);
            } else if t0 > 1.0 {
                t = 1.0;
                s = ((b - c) / a).clamp(0.0, 1.0);
            } else {
                t = t0;
                s = s0;
            }
        }
    }
    (s, t, p1 + d1 * s, p2 + d2 * t)
}

/// The unit normal of a counter-clockwise triangle, `None` when it has no area.
#[inline]
pub(crate) fn triangle_normal(t: &[Vec3; 3]) -> Option<Vec3> {
    (t[1] - t[0]).cross(t[2] - t[0]).try_normalize()
}

/// The paper's case: sphere against one triangle.
pub(crate) fn sphere(center: Vec3, radius: f32, margin: f32, t: &[Vec3; 3], out: &mut Vec<RawPoint>) -> Outcome {
    // Unnormalized until a contact is certain: culling needs only the sign, reach only squares.
    let n = (t[1] - t[0]).cross(t[2] - t[0]);
    let (cp, feature) = closest_on_triangle(center, t);
    let delta = center - cp;
    let reach = radius + margin;
    let within = delta.length_squared() <= reach * reach;
    // Back-face culling: the centre in the negative half-space of the triangle's plane.
    if n.dot(center - t[0]) < 0.0 {
        return if within { Outcome::Behind { distance: delta.length() } } else { Outcome::Culled };
    }
    if !within {
        return Outcome::Far;
    }
    let Some(n) = n.try_normalize() else { return Outcome::Degenerate };
    let d = delta.length();
    let normal = match feature {
        Local::Face => n,
        // "If that vector is null ... we instead use the triangle's normal."
        _ => delta.try_normalize().unwrap_or(n),
    };
    out.push(RawPoint { point: cp, normal, depth: radius - d });
    Outcome::Touch { feature, distance: d }
}

/// Capsule (segment `a`-`b`, `radius`) against one triangle.
///
/// The segment is clipped to the triangle's prism (the triangle swept along its normal). When the
/// clipped part is at least as close as the segment's closest approach to the triangle's edges, the
/// contact is a face contact with the triangle's normal, one point per clipped end (two when the
/// capsule lies along the triangle). Otherwise the closest edge or vertex gives one delayed contact.
pub(crate) fn capsule(a: Vec3, b: Vec3, radius: f32, margin: f32, t: &[Vec3; 3], out: &mut Vec<RawPoint>) -> Outcome {
    let Some(n) = triangle_normal(t) else { return Outcome::Degenerate };
    let ha = n.dot(a - t[0]);
    let hb = n.dot(b - t[0]);
    let behind = ha < 0.0 && hb < 0.0;
    let reach = radius + margin;
    // Clip to the prism: inward side normals n x edge.
    let d = b - a;
    let (mut s0, mut s1) = (0.0f32, 1.0f32);
    for k in 0..3 {
        let p = t[k];
        let side = n.cross(t[(k + 1) % 3] - p);
        let num = side.dot(a - p);
        let den = side.dot(d);
        if den == 0.0 {
            if num < 0.0 {
                s1 = -1.0;
                break;
            }
        } else {
            let s = -num / den;
            if den > 0.0 { s0 = s0.max(s) } else { s1 = s1.min(s) }
        }
    }
    let in_prism = s0 <= s1;
    let (h0, h1) = (ha + (hb - ha) * s0, ha + (hb - ha) * s1);
    let prism_distance = if !in_prism {
        f32::INFINITY
    } else if (h0 <= 0.0) != (h1 <= 0.0) {
        0.0
    } else {
        h0.abs().min(h1.abs())
    };
    // Closest approach to the boundary.
    let mut best = (f32::INFINITY, 0usize, 0.0f32, Vec3::ZERO, Vec3::ZERO);
    for k in 0..3 {
        let (_, u, on_segment, on_edge) = closest_segments(a, b, t[k], t[(k + 1) % 3]);
        let dist = on_segment.distance(on_edge);
        if dist < best.0 {
            best = (dist, k, u, on_segment, on_edge);
        }
    }
    let distance = prism_distance.min(best.0);
    if behind {
        return if distance <= reach { Outcome::Behind { distance } } else { Outcome::Culled };
    }
    if !(distance <= reach) {
        return Outcome::Far;
    }
    let tie = 1e-6 * (1.0 + distance.abs() + d.length());
    if in_prism && prism_distance <= best.0 + tie {
        let start = out.len();
        for (s, h) in [(s0, h0), (s1, h1)] {
            if h <= reach {
                let p = a + d * s;
                out.push(RawPoint { point: p - n * h, normal: n, depth: radius - h });
            }
        }
        // A capsule standing on the triangle clips to one spot: keep the deeper end only.
        if out.len() == start + 2 && out[start].point.distance_squared(out[start + 1].point) <= tie * tie {
            let deeper = if out[start].depth >= out[start + 1].depth { out[start] } else { out[start + 1] };
            out.truncate(start);
            out.push(deeper);
        }
        if out.len() == start {
            return Outcome::Far;
        }
        return Outcome::Touch { feature: Local::Face, distance };
    }
    let (dist, k, u, on_segment, on_edge) = best;
    let j = ((k + 1) % 3) as u8;
    let feature = if u <= 0.0 {
        Local::Vertex(k as u8)
    } else if u >= 1.0 {
        Local::Vertex(j)
    } else {
        Local::edge(k as u8, j)
    };
    let normal = (on_segment - on_edge).try_normalize().unwrap_or(n);
    out.push(RawPoint { point: on_edge, normal, depth: radius - dist });
    Outcome::Touch { feature, distance: dist }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: [Vec3; 3] = [Vec3::ZERO, Vec3::new(0.0, 0.0, 1.0), Vec3::new(1.0, 0.0, 0.0)];

    #[test]
    fn regions() {
        assert_eq!(closest_on_triangle(Vec3::new(0.2, 1.0, 0.2), &T).1, Local::Face);
        assert_eq!(closest_on_triangle(Vec3::new(-1.0, 1.0, -1.0), &T).1, Local::Vertex(0));
        assert_eq!(closest_on_triangle(Vec3::new(0.0, 1.0, 2.0), &T).1, Local::Vertex(1));
        assert_eq!(closest_on_triangle(Vec3::new(2.0, 1.0, 0.0), &T).1, Local::Vertex(2));
        assert_eq!(closest_on_triangle(Vec3::new(-1.0, 1.0, 0.5), &T).1, Local::Edge(0, 1));
        assert_eq!(closest_on_triangle(Vec3::new(0.5, 1.0, -1.0), &T).1, Local::Edge(0, 2));
        assert_eq!(closest_on_triangle(Vec3::new(1.0, 1.0, 1.0), &T).1, Local::Edge(1, 2));
    }

    #[test]
    fn normal_is_up_for_ccw_from_above() {
        assert_eq!(triangle_normal(&T), Some(Vec3::Y));
    }

    #[test]
    fn segments() {
        let (s, t, c1, c2) = closest_segments(
            Vec3::new(-1.0, 1.0, 0.0),
            Vec3::new(1.0, 1.0, 0.0),
            Vec3::new(0.0, 0.0, -1.0),
            Vec3::new(0.0, 0.0, 1.0),
        );
        assert_eq!((s, t), (0.5, 0.5));
        assert_eq!(c1.distance(c2), 1.0);
    }
}
