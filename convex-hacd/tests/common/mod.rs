//! Brute-force checks shared by the tests: they recompute everything from the triangles in `f64`
//! and never ask the crate's own planes.

#![allow(dead_code, unreachable_pub)]

use std::collections::HashMap;

use glam::{DVec3, Vec3};

/// Closest distance from `p` to the triangle `a b c` (Ericson, "Real-Time Collision Detection" 5.1.5).
pub fn point_triangle_distance(p: DVec3, a: DVec3, b: DVec3, c: DVec3) -> f64 {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return p.distance(a);
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return p.distance(b);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return p.distance(a + ab * (d1 / (d1 - d3)));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return p.distance(c);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return p.distance(a + ac * (d2 / (d2 - d6)));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        return p.distance(b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6))));
    }
    let denom = 1.0 / (va + vb + vc);
    p.distance(a + ab * (vb * denom) + ac * (vc * denom))
}

/// Generalized winding number of a closed triangle surface at `p` (Van Oosterom and Strackee's
/// solid angle per triangle): 1 inside a closed outward surface, 0 outside.
pub fn winding_number(p: DVec3, v: &[DVec3], triangles: &[[u32; 3]]) -> f64 {
    let mut total = 0.0;
    for t in triangles {
        let [a, b, c] = t.map(|k| v[k as usize] - p);
        let (la, lb, lc) = (a.length(), b.length(), c.length());
        let numerator = a.dot(b.cross(c));
        let denominator = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
        total += 2.0 * numerator.atan2(denominator);
    }
    total / (4.0 * std::f64::consts::PI)
}

/// Problems found by [`check_hull`], empty when the hull is good.
#[derive(Debug, Default)]
pub struct Report {
    pub problems: Vec<String>,
}

/// Checks a closed hull (`vertices`, `triangles`) against `points` with tolerance `s`:
///
/// - closed 2-manifold: every directed edge once, its reverse once; Euler `V - E + F = 2`;
/// - outward: the signed volume is positive (or, for a flat hull, each side's area cancels), and
///   the hull's vertex centroid is behind every well-shaped triangle (height > 4 s);
/// - convex: every vertex is behind every well-shaped triangle's own plane, within s plus the tilt
///   a triangle of height h may have against its thick plane (2 s over h, times the distance);
/// - covering: every point is within s of the surface, or inside it (winding number).
pub fn check_hull(vertices: &[Vec3], triangles: &[[u32; 3]], flat: bool, points: &[Vec3], s: f32) -> Report {
    let mut report = Report::default();
    let mut fail = |m: String| {
        if report.problems.len() < 20 {
            report.problems.push(m);
        }
    };
    let s = f64::from(s);
    let v: Vec<DVec3> = vertices.iter().map(|p| p.as_dvec3()).collect();
    if triangles.iter().flatten().any(|&i| i as usize >= v.len()) {
        fail("index out of range".into());
        return report;
    }
    let mut directed: HashMap<(u32, u32), usize> = HashMap::new();
    for t in triangles {
        for k in 0..3 {
            *directed.entry((t[k], t[(k + 1) % 3])).or_default() += 1;
        }
    }
    for (&(a, b), &n) in &directed {
        if n != 1 || directed.get(&(b, a)) != Some(&1) {
            fail(format!("edge {a}-{b} used {n} times, reverse {:?}", directed.get(&(b, a))));
        }
    }
    let used: std::collections::HashSet<u32> = triangles.iter().flatten().copied().collect();
    let euler = used.len() as i64 - (directed.len() / 2) as i64 + triangles.len() as i64;
    if euler != 2 {
        fail(format!("Euler V - E + F = {euler}"));
    }
    let centroid = v.iter().copied().sum::<DVec3>() / v.len().max(1) as f64;
    let diameter = v.iter().map(|p| p.distance(centroid)).fold(0.0, f64::max) * 2.0;
    let mut volume6 = 0.0;
    let mut planes = Vec::new();
    for t in triangles {
        let [a, b, c] = t.map(|i| v[i as usize]);
        volume6 += a.dot(b.cross(c));
        let n = (b - a).cross(c - a);
        let longest = (b - a).length().max((c - b).length()).max((a - c).length());
        let height = n.length() / longest;
        if height > 4.0 * s && !flat {
            let n = n.normalize();
            let mid = (a + b + c) / 3.0;
            // The centroid is inside, so it is behind every face plane; within the same
            // tolerance as the convexity check below (a slab only a few s thick keeps its
            // centroid that close to its faces).
            let allowed = s + 2.0 * s * centroid.distance(mid) / height;
            if n.dot(centroid - mid) > allowed {
                fail(format!("triangle {t:?} faces inward"));
            }
            planes.push((n, mid, height));
        }
    }
    if !flat && !(volume6 > 0.0) {
        fail(format!("signed volume {volume6} is not positive"));
    }
    for (i, p) in v.iter().enumerate() {
        for (n, mid, h) in &planes {
            let allowed = s + 2.0 * s * p.distance(*mid) / h + 1e-9 * diameter;
            let d = n.dot(*p - *mid);
            if d > allowed {
                fail(format!("vertex {i} is {d} in front of a face (allowed {allowed})"));
            }
        }
    }
    for (i, p) in points.iter().enumerate() {
        let p = p.as_dvec3();
        let near = triangles.iter().any(|t| {
            let [a, b, c] = t.map(|k| v[k as usize]);
            point_triangle_distance(p, a, b, c) <= s * 1.0001 + 1e-9 * diameter
        });
        if !near {
            if flat {
                fail(format!("point {i} is off the flat hull"));
            } else {
                // Far from the surface: the point must be inside it, by winding number (the
                // solid angles of the triangles sum to 4 pi inside a closed surface, 0 outside).
                let winding = winding_number(p, &v, triangles);
                if !(winding > 0.5) {
                    let nearest = triangles
                        .iter()
                        .map(|t| {
                            let [a, b, c] = t.map(|k| v[k as usize]);
                            point_triangle_distance(p, a, b, c)
                        })
                        .fold(f64::INFINITY, f64::min);
                    fail(format!("point {i} {p} is outside, {nearest} from the surface (winding {winding})"));
                }
            }
        }
    }
    report
}

/// A small deterministic random generator (xorshift64*), so tests need no extra crate.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }
}
