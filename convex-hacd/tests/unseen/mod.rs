//! Shapes for `unseen_meshes.rs`, generated from seeds: none of them is a test or shared mesh the
//! crate was tuned on. Closed shapes come out outward and consistently wound (checked by that
//! file's `the_generated_shapes_are_what_they_claim`).

#![allow(dead_code, unreachable_pub)]

use std::collections::HashMap;
use std::f32::consts::{PI, TAU};

use glam::{DVec3, Quat, Vec2, Vec3};
use voxel_core::IndexedMesh;

/// A small deterministic random generator (SplitMix64).
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    pub fn rotation(&mut self) -> Quat {
        let axis = Vec3::new(self.range(-1.0, 1.0), self.range(-1.0, 1.0), self.range(-1.0, 1.0));
        let axis = if axis.length() < 1e-3 { Vec3::Z } else { axis.normalize() };
        Quat::from_axis_angle(axis, self.range(0.0, TAU))
    }
}

/// A triangle soup with shared indices.
#[derive(Clone, Debug, Default)]
pub struct Shape {
    pub positions: Vec<Vec3>,
    pub triangles: Vec<[u32; 3]>,
}

impl Shape {
    pub fn mesh(&self) -> IndexedMesh {
        IndexedMesh::new(self.positions.clone(), self.triangles.clone()).expect("generated indices are in range")
    }

    /// `other`'s vertices and triangles after this shape's.
    pub fn append(&mut self, other: &Shape) {
        let base = self.positions.len() as u32;
        self.positions.extend_from_slice(&other.positions);
        self.triangles.extend(other.triangles.iter().map(|t| t.map(|i| i + base)));
    }

    pub fn map(mut self, f: impl Fn(Vec3) -> Vec3) -> Shape {
        for p in &mut self.positions {
            *p = f(*p);
        }
        self
    }

    /// Every triangle wound the other way (a closed shape turned inside out).
    pub fn flipped(mut self) -> Shape {
        for t in &mut self.triangles {
            t.swap(1, 2);
        }
        self
    }

    /// The shape without the triangles at `removed`.
    pub fn without(&self, removed: &[usize]) -> Shape {
        let triangles =
            self.triangles.iter().enumerate().filter(|(i, _)| !removed.contains(i)).map(|(_, t)| *t).collect();
        Shape { positions: self.positions.clone(), triangles }
    }

    /// Six times the signed volume, in f64.
    pub fn volume6(&self) -> f64 {
        let c = self.positions.iter().fold(DVec3::ZERO, |a, p| a + p.as_dvec3()) / self.positions.len().max(1) as f64;
        self.triangles
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| self.positions[i as usize].as_dvec3() - c);
                a.dot(b.cross(c))
            })
            .sum()
    }

    /// Whether every directed edge is used once and its reverse once (closed, consistently wound).
    pub fn closed_and_consistent(&self) -> bool {
        let mut directed: HashMap<(u32, u32), u32> = HashMap::new();
        for t in &self.triangles {
            for k in 0..3 {
                *directed.entry((t[k], t[(k + 1) % 3])).or_default() += 1;
            }
        }
        directed.iter().all(|(&(a, b), &n)| n == 1 && directed.get(&(b, a)) == Some(&1))
    }

    /// Turned outward when its signed volume is negative (for generators whose winding is
    /// consistent but whose sign depends on the parametrization).
    fn outward(self) -> Shape {
        if self.volume6() < 0.0 { self.flipped() } else { self }
    }
}

/// Builds a shape from lattice-keyed quads: shared lattice points become shared vertices.
struct Lattice<F: Fn([i32; 3]) -> Vec3> {
    place: F,
    index: HashMap<[i32; 3], u32>,
    shape: Shape,
}

impl<F: Fn([i32; 3]) -> Vec3> Lattice<F> {
    fn new(place: F) -> Self {
        Self { place, index: HashMap::new(), shape: Shape::default() }
    }
    fn vertex(&mut self, k: [i32; 3]) -> u32 {
        if let Some(&i) = self.index.get(&k) {
            return i;
        }
        let i = self.shape.positions.len() as u32;
        self.shape.positions.push((self.place)(k));
        self.index.insert(k, i);
        i
    }
    /// The quad `c` (in order around it) as two triangles whose lattice normal points along `out`.
    fn quad(&mut self, c: [[i32; 3]; 4], out: [i32; 3]) {
        let v = |k: [i32; 3]| Vec3::new(k[0] as f32, k[1] as f32, k[2] as f32);
        let n = (v(c[1]) - v(c[0])).cross(v(c[2]) - v(c[0]));
        let c = if n.dot(v(out)) < 0.0 { [c[0], c[3], c[2], c[1]] } else { c };
        let i = c.map(|k| self.vertex(k));
        self.shape.triangles.push([i[0], i[1], i[2]]);
        self.shape.triangles.push([i[0], i[2], i[3]]);
    }
}

/// The surface of a box subdivided `n[a]` times along each axis, lattice point `k` placed at
/// `place(k)` (an orientation-preserving map keeps it outward).
pub fn grid_box(n: [i32; 3], place: impl Fn([i32; 3]) -> Vec3) -> Shape {
    let mut lattice = Lattice::new(place);
    for axis in 0..3 {
        let (b, c) = ((axis + 1) % 3, (axis + 2) % 3);
        for side in [0, n[axis]] {
            let mut out = [0; 3];
            out[axis] = if side == 0 { -1 } else { 1 };
            for u in 0..n[b] {
                for w in 0..n[c] {
                    let at = |du: i32, dw: i32| {
                        let mut k = [0; 3];
                        k[axis] = side;
                        k[b] = u + du;
                        k[c] = w + dw;
                        k
                    };
                    lattice.quad([at(0, 0), at(1, 0), at(1, 1), at(0, 1)], out);
                }
            }
        }
    }
    lattice.shape
}

/// A box of half extents `half` centred at `centre`, rotated by `rotation` (12 triangles).
pub fn box_shell(centre: Vec3, half: Vec3, rotation: Quat) -> Shape {
    grid_box([1, 1, 1], |k| {
        let unit = Vec3::new(k[0] as f32, k[1] as f32, k[2] as f32) * 2.0 - 1.0;
        centre + rotation * (half * unit)
    })
}

/// A box of half extents `half` with edges rounded to `radius`, `n` cells per side.
pub fn rounded_box(half: Vec3, radius: f32, n: i32) -> Shape {
    grid_box([n; 3], |k| {
        let p = half * (Vec3::new(k[0] as f32, k[1] as f32, k[2] as f32) / n as f32 * 2.0 - 1.0);
        let inner = p.clamp(-(half - radius), half - radius);
        let d = p - inner;
        if d.length() < 1e-6 { p } else { inner + d.normalize() * radius }
    })
}

/// A surface of revolution about z: `profile` runs from the north pole (radius 0) down to the
/// south pole (radius 0) as (radius, z).
pub fn lathe(profile: &[(f32, f32)], segments: u32) -> Shape {
    let rings = profile.len() as u32 - 2;
    let mut positions = vec![Vec3::new(0.0, 0.0, profile[0].1)];
    for &(r, z) in &profile[1..profile.len() - 1] {
        for j in 0..segments {
            let phi = TAU * j as f32 / segments as f32;
            positions.push(Vec3::new(r * phi.cos(), r * phi.sin(), z));
        }
    }
    positions.push(Vec3::new(0.0, 0.0, profile[profile.len() - 1].1));
    let ring = |i: u32, j: u32| 1 + (i - 1) * segments + j % segments;
    let south = positions.len() as u32 - 1;
    let mut triangles = Vec::new();
    for j in 0..segments {
        triangles.push([0, ring(1, j), ring(1, j + 1)]);
        triangles.push([ring(rings, j), south, ring(rings, j + 1)]);
    }
    for i in 1..rings {
        for j in 0..segments {
            let (a, b, c, d) = (ring(i, j), ring(i + 1, j), ring(i + 1, j + 1), ring(i, j + 1));
            triangles.extend([[a, b, c], [a, c, d]]);
        }
    }
    Shape { positions, triangles }
}

/// A UV sphere: `segments` around, `rings` bands from pole to pole.
pub fn uv_sphere(segments: u32, rings: u32, radius: f32) -> Shape {
    let profile: Vec<(f32, f32)> = (0..=rings)
        .map(|i| {
            let theta = PI * i as f32 / rings as f32;
            if i == 0 || i == rings {
                (0.0, radius * theta.cos())
            } else {
                (radius * theta.sin(), radius * theta.cos())
            }
        })
        .collect();
    lathe(&profile, segments)
}

/// A capsule along z: hemispheres of `radius` (with `half_rings` bands each) joined by a
/// cylinder of length `2 half_length`.
pub fn capsule(radius: f32, half_length: f32, segments: u32, half_rings: u32) -> Shape {
    let mut profile = Vec::new();
    for i in 0..=half_rings {
        let theta = PI / 2.0 * i as f32 / half_rings as f32;
        let r = if i == 0 { 0.0 } else { radius * theta.sin() };
        profile.push((r, half_length + radius * theta.cos()));
    }
    for i in 0..=half_rings {
        let theta = PI / 2.0 + PI / 2.0 * i as f32 / half_rings as f32;
        let r = if i == half_rings { 0.0 } else { radius * theta.sin() };
        profile.push((r, -half_length + radius * theta.cos()));
    }
    lathe(&profile, segments)
}

/// A torus about z.
pub fn torus(major: f32, minor: f32, major_segments: u32, minor_segments: u32) -> Shape {
    let mut positions = Vec::new();
    for i in 0..major_segments {
        let u = TAU * i as f32 / major_segments as f32;
        for j in 0..minor_segments {
            let v = TAU * j as f32 / minor_segments as f32;
            let r = major + minor * v.cos();
            positions.push(Vec3::new(r * u.cos(), r * u.sin(), minor * v.sin()));
        }
    }
    let at = |i: u32, j: u32| (i % major_segments) * minor_segments + j % minor_segments;
    let mut triangles = Vec::new();
    for i in 0..major_segments {
        for j in 0..minor_segments {
            let (a, b, c, d) = (at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
            triangles.extend([[a, b, c], [a, c, d]]);
        }
    }
    Shape { positions, triangles }.outward()
}

/// A planar region extruded along z from `z0` to `z1` with `levels` bands on its sides: `points`
/// and `triangles` (counter-clockwise seen from +z) triangulate it, `loops` are its boundary
/// loops (indices into `points`), each with the region on its left.
pub fn extrude(points: &[Vec2], triangles: &[[u32; 3]], loops: &[Vec<u32>], z0: f32, z1: f32, levels: u32) -> Shape {
    let mut shape = Shape::default();
    let n = points.len() as u32;
    // Top and bottom caps: vertices 0..n at z1, n..2n at z0.
    shape.positions.extend(points.iter().map(|p| p.extend(z1)));
    shape.positions.extend(points.iter().map(|p| p.extend(z0)));
    for t in triangles {
        shape.triangles.push(*t);
        shape.triangles.push([t[0] + n, t[2] + n, t[1] + n]);
    }
    let mut side: HashMap<(u32, u32), u32> = HashMap::new();
    let mut vertex = |shape: &mut Shape, p: u32, level: u32| -> u32 {
        if level == 0 {
            return p + n;
        }
        if level == levels {
            return p;
        }
        *side.entry((p, level)).or_insert_with(|| {
            shape.positions.push(points[p as usize].extend(z0 + (z1 - z0) * level as f32 / levels as f32));
            shape.positions.len() as u32 - 1
        })
    };
    for lp in loops {
        for k in 0..lp.len() {
            let (a, b) = (lp[k], lp[(k + 1) % lp.len()]);
            for level in 0..levels {
                let (a0, b0) = (vertex(&mut shape, a, level), vertex(&mut shape, b, level));
                let (a1, b1) = (vertex(&mut shape, a, level + 1), vertex(&mut shape, b, level + 1));
                shape.triangles.push([a0, b0, b1]);
                shape.triangles.push([a0, b1, a1]);
            }
        }
    }
    shape
}

/// Points along the closed polygon `corners`, each edge cut into `cuts` pieces.
fn subdivide(corners: &[Vec2], cuts: u32) -> Vec<Vec2> {
    let mut out = Vec::new();
    for k in 0..corners.len() {
        let (a, b) = (corners[k], corners[(k + 1) % corners.len()]);
        for c in 0..cuts {
            out.push(a.lerp(b, c as f32 / cuts as f32));
        }
    }
    out
}

/// A polygon star-shaped around `kernel`, fanned from it, extruded.
fn extrude_star_shaped(boundary: &[Vec2], kernel: Vec2, height: f32, levels: u32) -> Shape {
    let mut points = vec![kernel];
    points.extend_from_slice(boundary);
    let m = boundary.len() as u32;
    let triangles: Vec<[u32; 3]> = (0..m).map(|k| [0, 1 + k, 1 + (k + 1) % m]).collect();
    let lp: Vec<u32> = (1..=m).collect();
    extrude(&points, &triangles, &[lp], 0.0, height, levels)
}

/// An L-shaped prism: the union of [0, 2] x [0, 1] and [0, 1] x [0, 2], `height` tall, edges cut
/// into `cuts` pieces.
pub fn l_extrusion(height: f32, cuts: u32, levels: u32) -> Shape {
    let corners = [
        Vec2::new(0.0, 0.0),
        Vec2::new(2.0, 0.0),
        Vec2::new(2.0, 1.0),
        Vec2::new(1.0, 1.0),
        Vec2::new(1.0, 2.0),
        Vec2::new(0.0, 2.0),
    ];
    extrude_star_shaped(&subdivide(&corners, cuts), Vec2::new(0.5, 0.5), height, levels)
}

/// A concave star polygon (random radii in [0.35, 1] at `m` angles) extruded.
pub fn star_prism(rng: &mut Rng, m: u32, height: f32) -> Shape {
    let boundary: Vec<Vec2> = (0..m)
        .map(|k| {
            let a = TAU * k as f32 / m as f32;
            Vec2::from_angle(a) * rng.range(0.35, 1.0)
        })
        .collect();
    extrude_star_shaped(&boundary, Vec2::ZERO, height, 2)
}

/// A concave star polygon with a round hole (radius 0.2 to 0.3, the outer radii 0.45 to 1),
/// extruded: strips between the two loops at the same `m` angles.
pub fn star_ring_prism(rng: &mut Rng, m: u32, height: f32) -> Shape {
    let hole = rng.range(0.2, 0.3);
    let mut points = Vec::new();
    for k in 0..m {
        let a = Vec2::from_angle(TAU * k as f32 / m as f32);
        points.push(a * rng.range(0.45, 1.0));
        points.push(a * hole);
    }
    let (outer, inner) = (|k: u32| 2 * (k % m), |k: u32| 2 * (k % m) + 1);
    let area = |t: [u32; 3]| {
        let [a, b, c] = t.map(|i| points[i as usize]);
        (b - a).perp_dot(c - a)
    };
    let mut triangles = Vec::new();
    for k in 0..m {
        let (o0, o1, i0, i1) = (outer(k), outer(k + 1), inner(k), inner(k + 1));
        let first = [[o0, o1, i1], [o0, i1, i0]];
        let pair = if first.iter().all(|t| area(*t) > 0.0) { first } else { [[o0, o1, i0], [o1, i1, i0]] };
        assert!(pair.iter().all(|t| area(*t) > 0.0), "star ring strip {k} cannot be split");
        triangles.extend(pair);
    }
    let outer_loop: Vec<u32> = (0..m).map(outer).collect();
    let inner_loop: Vec<u32> = (0..m).rev().map(inner).collect();
    extrude(&points, &triangles, &[outer_loop, inner_loop], 0.0, height, 1)
}

/// A random set of cells of a `w` x `h` grid (about `fill` of them) extruded one cell tall:
/// rectilinear, concave, often with holes, and non-manifold where cells touch only at a corner.
pub fn cell_prism(rng: &mut Rng, w: i32, h: i32, fill: f32) -> Shape {
    let cells: Vec<bool> = (0..w * h).map(|_| rng.unit() < fill).collect();
    let at = |x: i32, y: i32| x >= 0 && y >= 0 && x < w && y < h && cells[(y * w + x) as usize];
    let mut lattice = Lattice::new(|k: [i32; 3]| Vec3::new(k[0] as f32, k[1] as f32, k[2] as f32 * 1.5));
    for y in 0..h {
        for x in 0..w {
            if !at(x, y) {
                continue;
            }
            lattice.quad([[x, y, 1], [x + 1, y, 1], [x + 1, y + 1, 1], [x, y + 1, 1]], [0, 0, 1]);
            lattice.quad([[x, y, 0], [x + 1, y, 0], [x + 1, y + 1, 0], [x, y + 1, 0]], [0, 0, -1]);
            if !at(x - 1, y) {
                lattice.quad([[x, y, 0], [x, y + 1, 0], [x, y + 1, 1], [x, y, 1]], [-1, 0, 0]);
            }
            if !at(x + 1, y) {
                lattice.quad([[x + 1, y, 0], [x + 1, y + 1, 0], [x + 1, y + 1, 1], [x + 1, y, 1]], [1, 0, 0]);
            }
            if !at(x, y - 1) {
                lattice.quad([[x, y, 0], [x + 1, y, 0], [x + 1, y, 1], [x, y, 1]], [0, -1, 0]);
            }
            if !at(x, y + 1) {
                lattice.quad([[x, y + 1, 0], [x + 1, y + 1, 0], [x + 1, y + 1, 1], [x, y + 1, 1]], [0, 1, 0]);
            }
        }
    }
    lattice.shape
}

/// A plate `length` x `width` x `thickness` (x, y, z) bent about the y axis at x = 0 by `angle`
/// around a bend of inner `radius`, `cells` cells along x.
pub fn bent_plate(length: f32, width: f32, thickness: f32, angle: f32, radius: f32, cells: i32) -> Shape {
    let plate = grid_box([cells, (cells / 4).max(1), 1], |k| {
        Vec3::new(
            length * (k[0] as f32 / cells as f32 - 0.5),
            width * k[1] as f32 / (cells / 4).max(1) as f32,
            thickness * (k[2] as f32 - 0.5),
        )
    });
    let r = radius + thickness / 2.0;
    plate.map(|p| {
        if p.x <= 0.0 {
            return p;
        }
        let phi = (p.x / r).min(angle);
        let extra = p.x - phi * r;
        let centre = Vec3::new(0.0, p.y, r);
        let out = Vec3::new(phi.sin(), 0.0, -phi.cos());
        let along = Vec3::new(phi.cos(), 0.0, phi.sin());
        centre + out * (r - p.z) + along * extra
    })
}

/// An open height field over [0, size]^2 (`n` x `n` cells), wound counter-clockwise seen from
/// above: a terrain chunk.
pub fn terrain(rng: &mut Rng, n: u32, size: f32, amplitude: f32) -> Shape {
    let waves: Vec<(Vec2, f32, f32)> = (0..4)
        .map(|_| {
            (Vec2::from_angle(rng.range(0.0, TAU)) * rng.range(0.5, 3.0), rng.range(0.0, TAU), rng.range(0.2, 1.0))
        })
        .collect();
    let mut positions = Vec::new();
    for y in 0..=n {
        for x in 0..=n {
            let p = Vec2::new(x as f32, y as f32) / n as f32;
            let z: f32 = waves.iter().map(|(k, phase, a)| a * (TAU * k.dot(p) + phase).sin()).sum();
            positions.push((p * size).extend(amplitude * z));
        }
    }
    let at = |x: u32, y: u32| y * (n + 1) + x;
    let mut triangles = Vec::new();
    for y in 0..n {
        for x in 0..n {
            let (a, b, c, d) = (at(x, y), at(x + 1, y), at(x + 1, y + 1), at(x, y + 1));
            triangles.extend([[a, b, c], [a, c, d]]);
        }
    }
    Shape { positions, triangles }
}

/// `pages` triangles sharing the edge from the origin to +z (a non-manifold fan, "book").
pub fn book(pages: u32, size: f32) -> Shape {
    let mut positions = vec![Vec3::ZERO, Vec3::new(0.0, 0.0, size)];
    let mut triangles = Vec::new();
    for k in 0..pages {
        let a = TAU * k as f32 / pages as f32 + 0.3;
        positions.push(Vec3::new(a.cos() * size, a.sin() * size, size * 0.4));
        triangles.push([0, 1, 2 + k]);
    }
    Shape { positions, triangles }
}

/// Random boxes, each its own closed shell: some axis-aligned and touching the previous one face
/// to face, some rotated and overlapping it.
pub fn box_union(rng: &mut Rng, count: u32) -> Shape {
    let mut shape = Shape::default();
    let mut last = (Vec3::ZERO, Vec3::ONE);
    for k in 0..count {
        let half = Vec3::new(rng.range(0.2, 1.0), rng.range(0.2, 1.0), rng.range(0.2, 1.0));
        let (centre, rotation) = if k == 0 {
            (Vec3::ZERO, Quat::IDENTITY)
        } else if rng.unit() < 0.5 {
            // Touching: on the +x face of the last (axis-aligned) box.
            (last.0 + Vec3::new(last.1.x + half.x, rng.range(-0.3, 0.3), rng.range(-0.3, 0.3)), Quat::IDENTITY)
        } else {
            let offset = Vec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)) * last.1;
            (last.0 + offset, rng.rotation())
        };
        shape.append(&box_shell(centre, half, rotation));
        if rotation == Quat::IDENTITY {
            last = (centre, half);
        }
    }
    shape
}
