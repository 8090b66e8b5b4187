//! Volumes generated in the test and references written from the README's conventions alone, for
//! `unseen_volumes.rs`: nothing here calls the mesher.

use std::collections::BTreeMap;

use glam::{DVec3, IVec3, Vec3};
use voxel_core::{Phase, PhaseTable, Voxel, VoxelBox, VoxelGrid};
use voxel_mesh::Surface;

/// SplitMix64 finalizer.
pub(crate) fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

pub(crate) fn hash(seed: u64, p: IVec3) -> u64 {
    let [x, y, z] = p.to_array().map(|c| u64::from(c as u32));
    mix(seed ^ mix(x | (y << 32)) ^ mix(z ^ 0xA5A5))
}

/// The phase table of every generated volume: 0 empty, 1-3 solid, 4 liquid.
pub(crate) fn phases() -> PhaseTable {
    let mut t = PhaseTable::DEFAULT;
    t.set(4, Phase::Liquid);
    t
}

/// The README's "inside": negative distance and a material of the asked phase.
pub(crate) fn counts(surface: Surface, v: Voxel, table: &PhaseTable) -> bool {
    if v.distance >= 0 {
        return false;
    }
    match (surface, table.phase(v.material)) {
        (_, Phase::Empty) => false,
        (Surface::All, _) => true,
        (Surface::Solid, p) => p == Phase::Solid,
        (Surface::Liquid, p) => p == Phase::Liquid,
    }
}

/// A shape, in local coordinates `0..n` of its box; the volume is the shape translated by `origin`.
#[derive(Clone, Debug)]
pub(crate) enum Shape {
    /// Union of balls (one ball: a sphere), as a real signed distance scaled by `scale` per voxel.
    Balls { balls: Vec<(Vec3, f32)>, scale: f32 },
    /// A ball with caves carved by value noise (cell `cell`): inside where the ball is and the noise
    /// is above `threshold`.
    Caves { center: Vec3, radius: f32, cell: i32, threshold: u8 },
    /// A one-voxel pillar along `axis` at `(u, v)` from `lo` to `hi`.
    Pillar { axis: usize, at: [i32; 2], lo: i32, hi: i32 },
    /// A wall (sheet) `thickness` voxels thick across `axis` at `layer`, over `[lo, hi)` on the other two.
    Wall { axis: usize, layer: i32, thickness: i32, lo: [i32; 2], hi: [i32; 2] },
    /// A diagonal staircase: inside where `p[a] + p[b] <= k` (steps along two axes), cut to its box.
    Stairs { a: usize, b: usize, k: i32, width: [i32; 2] },
    /// A 3D checkerboard over `[lo, hi)`.
    Checker { lo: IVec3, hi: IVec3 },
    /// Single voxels.
    Points { points: Vec<IVec3> },
    /// Random occupancy of `[lo, hi)` at `density`/256.
    Random { lo: IVec3, hi: IVec3, density: u8 },
}

/// A generated volume: the shape, where it sits, and how its voxels get distances and materials.
#[derive(Clone, Debug)]
pub(crate) struct Volume {
    pub(crate) shape: Shape,
    /// The shape's box is `origin..origin + n` on every axis.
    pub(crate) origin: IVec3,
    pub(crate) n: i32,
    pub(crate) seed: u64,
    /// Materials 1..=materials (4 is liquid).
    pub(crate) materials: u8,
    /// When set, about one outside voxel in four has distance 0 (on the surface, still outside).
    pub(crate) zero_outside: bool,
}

impl Volume {
    /// The box every inside voxel lies in.
    pub(crate) fn inner(&self) -> VoxelBox {
        VoxelBox::from_min_size(self.origin, IVec3::splat(self.n))
    }

    /// The whole-volume meshing region: one voxel around the inner box, so the surface is closed
    /// in it (edges owned by their lower end reach the inner box's lower faces).
    pub(crate) fn region(&self) -> VoxelBox {
        self.inner().grow(1)
    }

    /// Inside test and signed distance (negative inside) of the shape at local `p`.
    fn sample(&self, p: IVec3) -> (bool, Option<f32>) {
        let n = self.n;
        let in_box = p.cmpge(IVec3::ZERO).all() && p.cmplt(IVec3::splat(n)).all();
        if !in_box {
            return (false, None);
        }
        match &self.shape {
            Shape::Balls { balls, scale } => {
                let d = balls.iter().map(|(c, r)| (p.as_vec3() - *c).length() - r).fold(f32::INFINITY, f32::min);
                (d < 0.0 && (d * scale).round() <= -1.0, Some(d * scale))
            }
            Shape::Caves { center, radius, cell, threshold } => {
                let ball = (p.as_vec3() - *center).length() - radius;
                let noise = value_noise(self.seed, p, *cell);
                (ball < 0.0 && noise > f32::from(*threshold) / 255.0, None)
            }
            Shape::Pillar { axis, at, lo, hi } => {
                let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
                (p[u] == at[0] && p[v] == at[1] && p[*axis] >= *lo && p[*axis] < *hi, None)
            }
            Shape::Wall { axis, layer, thickness, lo, hi } => {
                let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
                let on = p[*axis] >= *layer && p[*axis] < layer + thickness;
                (on && p[u] >= lo[0] && p[u] < hi[0] && p[v] >= lo[1] && p[v] < hi[1], None)
            }
            Shape::Stairs { a, b, k, width } => {
                let c = 3 - a - b;
                (p[*a] + p[*b] <= *k && p[c] >= width[0] && p[c] < width[1], None)
            }
            Shape::Checker { lo, hi } => {
                let inb = p.cmpge(*lo).all() && p.cmplt(*hi).all();
                (inb && (p.x + p.y + p.z).rem_euclid(2) == 0, None)
            }
            Shape::Points { points } => (points.contains(&p), None),
            Shape::Random { lo, hi, density } => {
                let inb = p.cmpge(*lo).all() && p.cmplt(*hi).all();
                (inb && (hash(self.seed ^ 77, p) & 0xff) < u64::from(*density), None)
            }
        }
    }

    /// The voxel at world `p`.
    pub(crate) fn voxel(&self, p: IVec3) -> Voxel {
        let local = p - self.origin;
        let (inside, sdf) = self.sample(local);
        // Local coordinates: the same shape at another origin is the same voxels, translated.
        let h = hash(self.seed, local);
        let material = 1 + (h >> 40) as u8 % self.materials.max(1);
        if inside {
            let d = match sdf {
                Some(d) => d.round().clamp(-128.0, -1.0) as i8,
                None => -(1 + (h % 127) as i8),
            };
            Voxel::new(d, material)
        } else {
            let mut d = match sdf {
                Some(d) => d.round().clamp(1.0, 127.0) as i8,
                None => 1 + ((h >> 8) % 127) as i8,
            };
            if self.zero_outside && (h >> 20).is_multiple_of(4) {
                d = 0;
            }
            // Outside voxels keep a material: an outside voxel's material must not matter.
            Voxel::new(d, if (h >> 30).is_multiple_of(2) { 0 } else { material })
        }
    }

    /// The volume as a grid over `bounds` (voxels beyond it read as `Voxel::EMPTY`).
    pub(crate) fn grid(&self, bounds: VoxelBox) -> VoxelGrid {
        VoxelGrid::from_fn(bounds, |p| self.voxel(p)).unwrap().with_phases(phases())
    }
}

/// Trilinear value noise in [0, 1) with lattice cell `cell`.
fn value_noise(seed: u64, p: IVec3, cell: i32) -> f32 {
    let cell = cell.max(1);
    let base = p.div_euclid(IVec3::splat(cell));
    let f = (p - base * cell).as_vec3() / cell as f32;
    let corner = |k: i32| {
        let c = base + IVec3::new(k & 1, (k >> 1) & 1, (k >> 2) & 1);
        (hash(seed ^ 0xC0FFEE, c) % 1024) as f32 / 1024.0
    };
    let lerp = |a: f32, b: f32, t: f32| a + (b - a) * t;
    let x00 = lerp(corner(0), corner(1), f.x);
    let x10 = lerp(corner(2), corner(3), f.x);
    let x01 = lerp(corner(4), corner(5), f.x);
    let x11 = lerp(corner(6), corner(7), f.x);
    lerp(lerp(x00, x10, f.y), lerp(x01, x11, f.y), f.z)
}

/// One reference Surface Nets vertex: position, gradient (unnormalized), dominant material, blend.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RefVertex {
    pub(crate) position: DVec3,
    pub(crate) gradient: DVec3,
    pub(crate) material: u8,
    pub(crate) ids: [u8; 4],
    pub(crate) weights: [u8; 4],
}

/// Reference Naive Surface Nets from the README and the `surface_nets` docs, in f64: cubes keyed
/// by min corner, quads as 4 cube keys counter-clockwise seen from outside the solid.
pub(crate) struct RefSurfaceNets {
    pub(crate) vertices: BTreeMap<[i32; 3], RefVertex>,
    pub(crate) quads: Vec<[[i32; 3]; 4]>,
}

pub(crate) fn corner_offset(k: usize) -> IVec3 {
    IVec3::new((k & 1) as i32, ((k >> 1) & 1) as i32, ((k >> 2) & 1) as i32)
}

/// Reference Surface Nets of the edges owned by `region` (lower end in it), reading `voxel`.
pub(crate) fn reference_surface_nets(
    voxel: &dyn Fn(IVec3) -> Voxel,
    region: VoxelBox,
    surface: Surface,
    table: &PhaseTable,
) -> RefSurfaceNets {
    let inside = |p: IVec3| counts(surface, voxel(p), table);
    let effective = |p: IVec3| {
        let m = f64::from(voxel(p).distance.unsigned_abs());
        if inside(p) { -m } else { m }
    };
    let mut quads = Vec::new();
    let mut cubes = Vec::new();
    for p in region.iter() {
        for a in 0..3 {
            let mut e = IVec3::ZERO;
            e[a] = 1;
            let (pi, qi) = (inside(p), inside(p + e));
            if pi == qi {
                continue;
            }
            let (b, c) = ((a + 1) % 3, (a + 2) % 3);
            let cube = |i: i32, j: i32| {
                let mut q = p;
                q[b] -= i;
                q[c] -= j;
                q.to_array()
            };
            // Counter-clockwise in the (b, c) plane: the polygon's normal is +a.
            let mut quad = [cube(1, 1), cube(0, 1), cube(0, 0), cube(1, 0)];
            if !pi {
                // Outside at p, inside at p + a: outward is -a.
                quad = [quad[0], quad[3], quad[2], quad[1]];
            }
            cubes.extend_from_slice(&quad);
            quads.push(quad);
        }
    }
    let mut vertices = BTreeMap::new();
    for c in cubes {
        if vertices.contains_key(&c) {
            continue;
        }
        let base = IVec3::from_array(c);
        let e: [f64; 8] = core::array::from_fn(|k| effective(base + corner_offset(k)));
        let ins: [bool; 8] = core::array::from_fn(|k| inside(base + corner_offset(k)));
        let mut sum = DVec3::ZERO;
        let mut count = 0.0;
        for k in 0..8 {
            for axis in [1usize, 2, 4] {
                let other = k ^ axis;
                if k < other && ins[k] != ins[other] {
                    let t = e[k] / (e[k] - e[other]);
                    let from = corner_offset(k).as_dvec3();
                    let to = corner_offset(other).as_dvec3();
                    sum += from + (to - from) * t;
                    count += 1.0;
                }
            }
        }
        let s = sum / count;
        let (nx, ny, nz) = (1.0 - s.x, 1.0 - s.y, 1.0 - s.z);
        let gradient = DVec3::new(
            ny * nz * (e[1] - e[0]) + s.y * nz * (e[3] - e[2]) + ny * s.z * (e[5] - e[4]) + s.y * s.z * (e[7] - e[6]),
            nx * nz * (e[2] - e[0]) + s.x * nz * (e[3] - e[1]) + nx * s.z * (e[6] - e[4]) + s.x * s.z * (e[7] - e[5]),
            nx * ny * (e[4] - e[0]) + s.x * ny * (e[5] - e[1]) + nx * s.y * (e[6] - e[2]) + s.x * s.y * (e[7] - e[3]),
        );
        // Dominant material of the inside corners, ties to the lower id; top four weighted.
        let mut tally: BTreeMap<u8, u32> = BTreeMap::new();
        for k in (0..8).filter(|&k| ins[k]) {
            *tally.entry(voxel(base + corner_offset(k)).material).or_default() += 1;
        }
        let mut ranked: Vec<(u8, u32)> = tally.into_iter().collect();
        ranked.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
        let top = &ranked[..ranked.len().min(4)];
        let total: u32 = top.iter().map(|t| t.1).sum();
        let mut ids = [0u8; 4];
        let mut weights = [0u8; 4];
        for (slot, (id, n)) in top.iter().enumerate() {
            ids[slot] = *id;
            weights[slot] = (n * 255 / total) as u8;
        }
        let given: u32 = weights.iter().map(|&w| u32::from(w)).sum();
        weights[0] += (255 - given) as u8;
        vertices.insert(c, RefVertex { position: base.as_dvec3() + s, gradient, material: ranked[0].0, ids, weights });
    }
    RefSurfaceNets { vertices, quads }
}

/// Brute-force visible faces of `region` (README: a voxel is the cube `[p, p + 1)`; a face where an
/// inside voxel of the region meets a voxel that is not inside): (voxel, direction 0..6) to material.
pub(crate) fn reference_faces(
    voxel: &dyn Fn(IVec3) -> Voxel,
    region: VoxelBox,
    surface: Surface,
    table: &PhaseTable,
) -> BTreeMap<([i32; 3], u8), u8> {
    let inside = |p: IVec3| counts(surface, voxel(p), table);
    let mut faces = BTreeMap::new();
    for p in region.iter() {
        if !inside(p) {
            continue;
        }
        for d in 0..6u8 {
            if !inside(p + direction(d)) {
                faces.insert((p.to_array(), d), voxel(p).material);
            }
        }
    }
    faces
}

/// Direction `d` as the crate numbers them: 0 -x, 1 +x, 2 -y, 3 +y, 4 -z, 5 +z.
pub(crate) fn direction(d: u8) -> IVec3 {
    let mut v = IVec3::ZERO;
    v[usize::from(d / 2)] = if d % 2 == 1 { 1 } else { -1 };
    v
}
