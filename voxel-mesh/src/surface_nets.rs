//! Naive Surface Nets (seed 004): one vertex per cube the surface crosses, one quad per grid edge
//! whose ends differ in sign.
//!
//! Seams: a region owns the grid edges whose lower end lies in it, and emits exactly their quads.
//! Every edge has one lower end, so chunks that tile space emit every quad once (seed 004's "3 of
//! the 6 boundaries"). A quad's four cubes reach one voxel below the region and its edge one voxel
//! above, hence the one-voxel padding on every side. A vertex and its normal depend only on its
//! cube's eight corners, so the same cube gives bit-identical results in every chunk that meshes it.
//!
//! Speed: inside bits are packed 64 to a word per x row, so an x row's sign-changing edges along
//! all three axes come from three XORs per word; only edges that change sign do real work, and a
//! cube's vertex is computed the first time a quad needs it.

use glam::{IVec3, Vec3};
use voxel_core::{VoxelBox, VoxelSource};

use crate::mesher::Padded;
use crate::{Mesh, MeshError, MeshOptions, Mesher, VertexBlend};

const NONE: u32 = u32::MAX;

/// Cube corner `k` sits at offset `(k & 1, k >> 1 & 1, k >> 2 & 1)`.
const CORNERS: [Vec3; 8] = {
    let mut c = [Vec3::ZERO; 8];
    let mut k = 0;
    while k < 8 {
        c[k] = Vec3::new((k & 1) as f32, ((k >> 1) & 1) as f32, ((k >> 2) & 1) as f32);
        k += 1;
    }
    c
};

/// The 12 cube edges as corner pairs, four per axis (x, then y, then z).
const EDGES: [(usize, usize); 12] =
    [(0, 1), (2, 3), (4, 5), (6, 7), (0, 2), (1, 3), (4, 6), (5, 7), (0, 4), (1, 5), (2, 6), (3, 7)];

const AXES: [Vec3; 3] = [Vec3::X, Vec3::Y, Vec3::Z];

/// For each 8-bit inside mask of a cube, the set of its edges whose ends differ.
const CROSSING: [u16; 256] = {
    let mut table = [0u16; 256];
    let mut mask = 0;
    while mask < 256 {
        let mut e = 0;
        while e < 12 {
            let (a, b) = EDGES[e];
            if ((mask >> a) & 1) != ((mask >> b) & 1) {
                table[mask] |= 1 << e;
            }
            e += 1;
        }
        mask += 1;
    }
    table
};

impl Mesher {
    /// Meshes the surface in `region` with Naive Surface Nets, reading one voxel of padding around it.
    ///
    /// The mesh holds the quads of every sign-changing grid edge whose lower end lies in `region`,
    /// so meshes of chunks that tile space join with no crack and no duplicate. Voxel `p` is the
    /// grid point `p`; vertices lie inside the unit cubes the surface crosses.
    ///
    /// Vertices: the mean of the edge crossings, each interpolated linearly from the two quantized
    /// distances (a voxel inside another phase counts as outside at its distance's magnitude). Normals:
    /// the gradient of the trilinear interpolation of the cube's corners at the vertex, normalized;
    /// where it vanishes, the gradient of the corners' inside/outside signs; where that vanishes too,
    /// `+Y`. Materials: the dominant material of the cube's inside corners (ties to the lower id).
    ///
    /// An empty region, a region the source calls uniform, and one with no surface give an empty
    /// mesh without reading every voxel.
    ///
    /// # Errors
    ///
    /// [`MeshError::CoordinateOutOfRange`] beyond [`MAX_COORDINATE`](crate::MAX_COORDINATE),
    /// [`MeshError::RegionTooLarge`] beyond [`MAX_MESH_VOLUME`](crate::MAX_MESH_VOLUME), and the
    /// source's own read error. `out` is empty after an error.
    pub fn surface_nets<S: VoxelSource + ?Sized>(
        &mut self,
        source: &S,
        region: VoxelBox,
        options: &MeshOptions,
        out: &mut Mesh,
    ) -> Result<(), MeshError> {
        let Some(g) = self.prepare(source, region, options.surface, out)? else {
            return Ok(());
        };
        let (ncx, ncz) = (g.nx - 1, g.nz - 1);
        self.cubes.clear();
        self.cubes.resize(2 * ncx * ncz, NONE);
        out.begin(ncx * (g.ny - 1) * ncz);
        let mut nets = Nets {
            g,
            voxels: &self.voxels,
            rows: &self.rows,
            cubes: &mut self.cubes,
            inside: &self.inside,
            layer: ncx * ncz,
            ncx,
            normals: options.normals,
            blend: options.blend,
            out,
        };
        nets.run();
        out.finish();
        Ok(())
    }
}

struct Nets<'a> {
    g: Padded,
    voxels: &'a [voxel_core::Voxel],
    rows: &'a [u64],
    cubes: &'a mut [u32],
    inside: &'a [bool; 256],
    layer: usize,
    ncx: usize,
    normals: bool,
    blend: bool,
    out: &'a mut Mesh,
}

impl Nets<'_> {
    fn run(&mut self) {
        let g = self.g;
        let words = g.words;
        // Edge origins the region owns: local x in [1, nx - 1).
        let owned = |w: usize| -> u64 {
            let lo = w * 64;
            (0..64).filter(|b| (1..g.nx - 1).contains(&(lo + b))).fold(0, |m, b| m | 1 << b)
        };
        for y in 1..g.ny - 1 {
            if y >= 2 {
                // The slot of cube layer y last held layer y - 2.
                let slot = (y & 1) * self.layer;
                self.cubes[slot..slot + self.layer].fill(NONE);
            }
            for z in 1..g.nz - 1 {
                let (r, ry, rz) = (g.row(y, z), g.row(y + 1, z), g.row(y, z + 1));
                for w in 0..words {
                    let own = if w == 0 || w + 1 == words { owned(w) } else { u64::MAX };
                    let s = self.rows[r + w];
                    let next = if w + 1 < words { self.rows[r + w + 1] } else { 0 };
                    let mut xe = (s ^ ((s >> 1) | (next << 63))) & own;
                    let mut ye = (s ^ self.rows[ry + w]) & own;
                    let mut ze = (s ^ self.rows[rz + w]) & own;
                    while xe != 0 {
                        let x = w * 64 + xe.trailing_zeros() as usize;
                        xe &= xe - 1;
                        let q = [
                            self.vertex(x, y - 1, z - 1),
                            self.vertex(x, y, z - 1),
                            self.vertex(x, y, z),
                            self.vertex(x, y - 1, z),
                        ];
                        self.quad(q, s >> (x % 64) & 1 != 0);
                    }
                    while ye != 0 {
                        let x = w * 64 + ye.trailing_zeros() as usize;
                        ye &= ye - 1;
                        let q = [
                            self.vertex(x - 1, y, z - 1),
                            self.vertex(x - 1, y, z),
                            self.vertex(x, y, z),
                            self.vertex(x, y, z - 1),
                        ];
                        self.quad(q, s >> (x % 64) & 1 != 0);
                    }
                    while ze != 0 {
                        let x = w * 64 + ze.trailing_zeros() as usize;
                        ze &= ze - 1;
                        let q = [
                            self.vertex(x - 1, y - 1, z),
                            self.vertex(x, y - 1, z),
                            self.vertex(x, y, z),
                            self.vertex(x - 1, y, z),
                        ];
                        self.quad(q, s >> (x % 64) & 1 != 0);
                    }
                }
            }
        }
    }

    /// Emits a quad given counter-clockwise seen from the edge's positive end; `origin_inside`
    /// says the edge leaves the solid there, so the front faces +axis; otherwise it is reversed.
    #[inline]
    fn quad(&mut self, q: [u32; 4], origin_inside: bool) {
        let [a, b, c, d] = if origin_inside { q } else { [q[0], q[3], q[2], q[1]] };
        let p = &self.out.positions;
        let (pa, pb, pc, pd) = (p[a as usize], p[b as usize], p[c as usize], p[d as usize]);
        // Split along the shorter diagonal: the two triangles stay closer to the surface.
        if pa.distance_squared(pc) <= pb.distance_squared(pd) {
            self.out.push_quad([a, b, c, d]);
        } else {
            self.out.push_quad([b, c, d, a]);
        }
    }

    /// The vertex of cube `(cx, cy, cz)` (local min corner), computed on first use.
    #[inline]
    fn vertex(&mut self, cx: usize, cy: usize, cz: usize) -> u32 {
        let slot = (cy & 1) * self.layer + cx + self.ncx * cz;
        let v = self.cubes[slot];
        if v != NONE {
            return v;
        }
        let v = self.make_vertex(cx, cy, cz);
        self.cubes[slot] = v;
        v
    }

    fn make_vertex(&mut self, cx: usize, cy: usize, cz: usize) -> u32 {
        let g = self.g;
        let (dy, dz) = (g.nx * g.nz, g.nx);
        let base = g.voxel(cx, cy, cz);
        let offsets = [0, 1, dy, dy + 1, dz, dz + 1, dy + dz, dy + dz + 1];
        let mut e = [0f32; 8];
        let mut materials = [0u8; 8];
        let mut mask = 0usize;
        for k in 0..8 {
            let v = self.voxels[base + offsets[k]];
            let inside = (v.distance < 0) & self.inside[v.material as usize];
            let magnitude = f32::from(i16::from(v.distance).abs());
            e[k] = if inside { -magnitude } else { magnitude };
            materials[k] = v.material;
            mask |= usize::from(inside) << k;
        }

        let mut crossing = CROSSING[mask];
        let mut sum = Vec3::ZERO;
        let mut count = 0u32;
        while crossing != 0 {
            let i = crossing.trailing_zeros() as usize;
            crossing &= crossing - 1;
            let (a, b) = EDGES[i];
            let t = e[a] / (e[a] - e[b]);
            sum += CORNERS[a] + AXES[i / 4] * t;
            count += 1;
        }
        // The cube is mixed (a sign-changing edge of a quad runs through it), so count >= 1.
        #[allow(clippy::cast_precision_loss)]
        let s = sum / count.max(1) as f32;
        let cube = g.origin + IVec3::new(cx as i32, cy as i32, cz as i32);
        let index = self.out.positions.len() as u32;
        self.out.positions.push(cube.as_vec3() + s);
        if self.normals {
            self.out.normals.push(normal(&e, mask, s));
        }
        let (dominant, blend) = corner_materials(mask, &materials, self.blend);
        self.out.materials.push(dominant);
        if self.blend {
            self.out.blend.push(blend);
        }
        index
    }
}

/// Gradient of the trilinear interpolation of `e` at `s`, normalized, with the documented fallbacks.
fn normal(e: &[f32; 8], mask: usize, s: Vec3) -> Vec3 {
    let g = trilinear_gradient(e, s);
    if let Some(n) = g.try_normalize() {
        return n;
    }
    // Distances that cancel out (all corners at equal magnitude, say): use the signs alone.
    let signs = core::array::from_fn(|k| if (mask >> k) & 1 != 0 { -1.0 } else { 1.0 });
    trilinear_gradient(&signs, s).try_normalize().unwrap_or(Vec3::Y)
}

fn trilinear_gradient(e: &[f32; 8], s: Vec3) -> Vec3 {
    let n = Vec3::ONE - s;
    let gx =
        n.y * n.z * (e[1] - e[0]) + s.y * n.z * (e[3] - e[2]) + n.y * s.z * (e[5] - e[4]) + s.y * s.z * (e[7] - e[6]);
    let gy =
        n.x * n.z * (e[2] - e[0]) + s.x * n.z * (e[3] - e[1]) + n.x * s.z * (e[6] - e[4]) + s.x * s.z * (e[7] - e[5]);
    let gz =
        n.x * n.y * (e[4] - e[0]) + s.x * n.y * (e[5] - e[1]) + n.x * s.y * (e[6] - e[2]) + s.x * s.y * (e[7] - e[3]);
    Vec3::new(gx, gy, gz)
}

/// The dominant material of the inside corners and, when asked, the top four with weights.
fn corner_materials(mask: usize, materials: &[u8; 8], want_blend: bool) -> (u8, VertexBlend) {
    let first = materials[mask.trailing_zeros() as usize & 7];
    let uniform = (0..8).all(|k| (mask >> k) & 1 == 0 || materials[k] == first);
    if uniform {
        return (first, VertexBlend { ids: [first, 0, 0, 0], weights: [255, 0, 0, 0] });
    }
    let mut ids = [0u8; 8];
    let mut counts = [0u32; 8];
    let mut n = 0;
    for k in (0..8).filter(|k| (mask >> k) & 1 != 0) {
        let m = materials[k];
        match ids[..n].iter().position(|&id| id == m) {
            Some(i) => counts[i] += 1,
            None => {
                ids[n] = m;
                counts[n] = 1;
                n += 1;
            }
        }
    }
    // Heaviest first, ties to the lower id: deterministic whatever the corner order.
    let mut order: [usize; 8] = core::array::from_fn(|i| i);
    order[..n].sort_unstable_by(|&a, &b| counts[b].cmp(&counts[a]).then(ids[a].cmp(&ids[b])));
    let dominant = ids[order[0]];
    if !want_blend {
        return (dominant, VertexBlend::default());
    }
    let top = n.min(4);
    let total: u32 = order[..top].iter().map(|&i| counts[i]).sum();
    let mut blend = VertexBlend::default();
    let mut given = 0u32;
    for (slot, &i) in order[..top].iter().enumerate() {
        blend.ids[slot] = ids[i];
        let w = counts[i] * 255 / total;
        // w <= 255 because counts[i] <= total.
        #[allow(clippy::cast_possible_truncation)]
        {
            blend.weights[slot] = w as u8;
        }
        given += w;
    }
    #[allow(clippy::cast_possible_truncation)]
    {
        blend.weights[0] += (255 - given) as u8;
    }
    (dominant, blend)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crossing_table_matches_edges() {
        assert_eq!(CROSSING[0], 0);
        assert_eq!(CROSSING[255], 0);
        // Corner 0 alone inside: its three edges cross.
        assert_eq!(CROSSING[1], (1 << 0) | (1 << 4) | (1 << 8));
    }

    #[test]
    fn blend_weights_sum_to_255_and_rank() {
        // Corners 0..3 inside: materials 5, 5, 2, 9.
        let (dominant, blend) = corner_materials(0b1111, &[5, 5, 2, 9, 0, 0, 0, 0], true);
        assert_eq!(dominant, 5);
        assert_eq!(blend.ids[..3], [5, 2, 9]);
        assert_eq!(blend.weights.iter().map(|&w| u32::from(w)).sum::<u32>(), 255);
        assert!(blend.weights[0] > blend.weights[1]);
        assert_eq!(blend.weights[1], blend.weights[2]);
    }

    #[test]
    fn vanishing_gradient_has_a_defined_normal() {
        // All magnitudes equal and a symmetric sign pattern: the distance gradient is zero at the
        // centre, so the sign gradient decides; a fully symmetric pattern falls back to +Y.
        let e = [-1.0, 1.0, 1.0, -1.0, 1.0, -1.0, -1.0, 1.0];
        let n = normal(&e, 0b1001_0110 ^ 0xff, Vec3::splat(0.5));
        assert_eq!(n, Vec3::Y);
        let e = [-2.0, 3.0, -2.0, 3.0, -2.0, 3.0, -2.0, 3.0];
        assert!(normal(&e, 0b0101_0101, Vec3::splat(0.5)).abs_diff_eq(Vec3::X, 1e-6));
    }
}
