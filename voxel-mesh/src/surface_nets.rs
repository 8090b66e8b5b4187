//! Naive Surface Nets ("Smooth Voxel Mapping", Fairbanks 2020): one vertex per cube the surface
//! crosses, one quad per grid edge whose ends differ in sign.
//!
//! Seams: a region owns the grid edges whose lower end lies in it, and emits exactly their quads.
//! Every edge has one lower end, so chunks that tile space emit every quad once (the article's "3
//! of the 6 boundaries"). A quad's four cubes reach one voxel below the region and its edge one voxel
//! above, hence the one-voxel padding on every side. A vertex and its normal depend only on its
//! cube's eight corners, so the same cube gives bit-identical results in every chunk that meshes it.
//!
//! Speed: inside bits are packed 64 to a word per x row, so an x row's sign-changing edges along
//! all three axes come from three XORs per word; only edges that change sign do real work, and a
//! cube's vertex is computed the first time a quad needs it.

use glam::{IVec3, Vec3, Vec4};
use voxel_core::{Voxel, VoxelBox, VoxelSource};

use crate::mesher::Padded;
use crate::{Mesh, MeshError, MeshOptions, Mesher, VertexBlend};

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
    /// An empty region and a region the source calls uniform give an empty mesh without reading a
    /// voxel; a region read whole and found all inside or all outside gives one before any vertex
    /// work.
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
        out.clear();
        let Some(g) = self.prepare(source, region, options.surface, false)? else {
            return Ok(());
        };
        let (ncx, ncz) = (g.nx - 1, g.nz - 1);
        self.cubes.clear();
        self.cubes.resize(2 * ncx * ncz, 0);
        out.begin(ncx * (g.ny - 1) * ncz);
        scan_edges(g, &self.rows, &mut self.cubes, &mut self.quads, &mut self.pending);
        make_vertices(g, &self.voxels, &self.rows, &self.pending, options, out);
        split_quads(&self.quads, out);
        out.finish();
        Ok(())
    }
}

/// Gives a quad to every sign-changing edge the region owns, and an id to every cube a quad
/// needs, in order of first use; `pending` gets each such cube, `quads` each quad, oriented and
/// waiting for its split. `cubes` holds two cube layers of ids, all 0 on entry.
///
/// Every buffer is an argument (and the vectors locals while the loop runs): the compiler then
/// knows that writing one never changes another, and keeps lengths and row offsets in registers.
fn scan_edges(g: Padded, rows: &[u64], cubes: &mut [u32], quads: &mut Vec<[u32; 4]>, pending: &mut Vec<[u32; 3]>) {
    let mut ids = CubeIds { cubes, pending: core::mem::take(pending), first: [1; 2] };
    ids.pending.clear();
    let mut quads_out = core::mem::take(quads);
    quads_out.clear();
    let (words, ncx) = (g.words, g.nx - 1);
    let layer = ncx * (g.nz - 1);
    // Edge origins the region owns: local x in [1, nx - 1).
    let owned = |w: usize| crate::blocky::range_in_word(w, 1, g.nx - 1);
    let (own_first, own_last) = (owned(0), owned(words - 1));
    for y in 1..g.ny - 1 {
        ids.start_layer(y);
        for z in 1..g.nz - 1 {
            let (r, ry, rz) = (g.row(y, z), g.row(y + 1, z), g.row(y, z + 1));
            // Slots of x = 0 in the four cube rows around the edges of this row: (y - 1, z - 1),
            // (y, z - 1), (y, z), (y - 1, z).
            let below = ((y - 1) & 1) * layer;
            let here = (y & 1) * layer;
            let rows4 = [below + ncx * (z - 1), here + ncx * (z - 1), here + ncx * z, below + ncx * z];
            let cube = |slot: usize, x: usize, cy: usize, cz: usize| (slot + x, [x, cy, cz]);
            for w in 0..words {
                // Only the first and the last word hold cubes the region does not own.
                let own = if w == 0 { own_first } else { u64::MAX } & if w + 1 == words { own_last } else { u64::MAX };
                let s = rows[r + w];
                let next = if w + 1 < words { rows[r + w + 1] } else { 0 };
                let mut xe = (s ^ ((s >> 1) | (next << 63))) & own;
                let mut ye = (s ^ rows[ry + w]) & own;
                let mut ze = (s ^ rows[rz + w]) & own;
                // Quads come counter-clockwise seen from the edge's positive end, and reversed
                // when the edge's origin is outside (the front then faces -axis). The split
                // waits for `split_quads`, so this loop never waits on a vertex it just made.
                let mut quad = |q: [u32; 4], x: usize| {
                    let origin_inside = s >> (x % 64) & 1 != 0;
                    quads_out.push(if origin_inside { q } else { [q[0], q[3], q[2], q[1]] });
                };
                while xe != 0 {
                    let x = w * 64 + xe.trailing_zeros() as usize;
                    xe &= xe - 1;
                    let q = [
                        ids.get(cube(rows4[0], x, y - 1, z - 1)),
                        ids.get(cube(rows4[1], x, y, z - 1)),
                        ids.get(cube(rows4[2], x, y, z)),
                        ids.get(cube(rows4[3], x, y - 1, z)),
                    ];
                    quad(q, x);
                }
                while ye != 0 {
                    let x = w * 64 + ye.trailing_zeros() as usize;
                    ye &= ye - 1;
                    let q = [
                        ids.get(cube(rows4[1], x - 1, y, z - 1)),
                        ids.get(cube(rows4[2], x - 1, y, z)),
                        ids.get(cube(rows4[2], x, y, z)),
                        ids.get(cube(rows4[1], x, y, z - 1)),
                    ];
                    quad(q, x);
                }
                while ze != 0 {
                    let x = w * 64 + ze.trailing_zeros() as usize;
                    ze &= ze - 1;
                    let q = [
                        ids.get(cube(rows4[3], x - 1, y - 1, z)),
                        ids.get(cube(rows4[3], x, y - 1, z)),
                        ids.get(cube(rows4[2], x, y, z)),
                        ids.get(cube(rows4[2], x - 1, y, z)),
                    ];
                    quad(q, x);
                }
            }
        }
    }
    *quads = quads_out;
    *pending = ids.pending;
}

/// Vertex ids of the cubes of two y layers, handed out on first use.
///
/// Ids grow in order of first use, and a layer's cubes get theirs while the scan is at that layer
/// or the next: so an entry is current when it is at least the first id handed out since the
/// scan reached its layer, and stale (a layer two below) otherwise. No entry is ever reset.
struct CubeIds<'a> {
    /// Id + 1 per cube of layers `y & 1` (0: never set).
    cubes: &'a mut [u32],
    /// The cubes given ids, in id order.
    pending: Vec<[u32; 3]>,
    /// Per layer parity, the first id + 1 of the layer there now.
    first: [u32; 2],
}

impl CubeIds<'_> {
    /// The scan reached layer `y`: ids from now on may belong to its cubes.
    fn start_layer(&mut self, y: usize) {
        #[allow(clippy::cast_possible_truncation)]
        {
            self.first[y & 1] = self.pending.len() as u32 + 1;
        }
    }

    /// The vertex id of the cube in `slot`, local min corner `[cx, cy, cz]`, given on first use;
    /// the vertex itself is made later by `make_vertices`, in a loop of independent iterations
    /// that the CPU overlaps, instead of here in the middle of the edge scan.
    #[inline(always)]
    fn get(&mut self, (slot, [cx, cy, cz]): (usize, [usize; 3])) -> u32 {
        let v = self.cubes[slot];
        if v >= self.first[cy & 1] {
            return v - 1;
        }
        // Fewer vertices than cubes, and cubes below MAX_MESH_VOLUME (2^24): ids fit.
        #[allow(clippy::cast_possible_truncation)]
        let id = self.pending.len() as u32;
        #[allow(clippy::cast_possible_truncation)]
        self.pending.push([cx as u32, cy as u32, cz as u32]);
        self.cubes[slot] = id + 1;
        id
    }
}

/// Makes the vertices of the cubes in `pending`, in id order.
fn make_vertices(
    g: Padded,
    voxels: &[Voxel],
    rows: &[u64],
    pending: &[[u32; 3]],
    options: &MeshOptions,
    out: &mut Mesh,
) {
    // Four vertices per step, one per Vec4 lane: every edge and every gradient term is one
    // vector operation for all four, with no shuffles or horizontal sums. Lanes compute
    // independently, so a cube's vertex is the same bits whatever lane or chunk it lands in.
    let mut batch = Batch::default();
    let mut quads = pending.chunks_exact(4);
    for four in &mut quads {
        for (lane, &[cx, cy, cz]) in four.iter().enumerate() {
            load_corners(g, voxels, rows, cx as usize, cy as usize, cz as usize, lane, &mut batch);
        }
        finish_batch(&batch, 4, options.normals, options.blend, out);
    }
    let rest = quads.remainder();
    if !rest.is_empty() {
        for (lane, &[cx, cy, cz]) in rest.iter().enumerate() {
            load_corners(g, voxels, rows, cx as usize, cy as usize, cz as usize, lane, &mut batch);
        }
        finish_batch(&batch, rest.len(), options.normals, options.blend, out);
    }
}

/// Fills lane `lane` of `batch` with cube `(cx, cy, cz)`: its corners' effective distances,
/// inside mask, materials and position.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn load_corners(
    g: Padded,
    voxels: &[Voxel],
    rows: &[u64],
    cx: usize,
    cy: usize,
    cz: usize,
    lane: usize,
    batch: &mut Batch,
) {
    // Inside bits of the 8 corners (bit k: corner (k & 1, k >> 1 & 1, k >> 2 & 1)) straight
    // from the packed rows: two adjacent bits per row, four rows. When bit cx is a word's last,
    // the next word of the row exists (cx + 1 < nx).
    let b = cx % 64;
    let pair = |r: usize| -> usize {
        let high = if b == 63 { rows[r + 1] << 1 } else { 0 };
        ((rows[r] >> b | high) & 3) as usize
    };
    let r = g.row(cy, cz) + cx / 64;
    let (ry, rz) = (g.nz * g.words, g.words);
    let mask = pair(r) | pair(r + ry) << 2 | pair(r + rz) << 4 | pair(r + ry + rz) << 6;

    let (dy, dz) = (g.nx * g.nz, g.nx);
    let base = g.voxel(cx, cy, cz);
    // One bounds check for the whole cube: every corner offset is below the block's length.
    let block = &voxels[base..base + dy + dz + 2];
    let offsets = [0, 1, dy, dy + 1, dz, dz + 1, dy + dz, dy + dz + 1];
    let mut materials = [0u8; 8];
    for k in 0..8 {
        let v = block[offsets[k]];
        batch.e[k][lane] = EFFECTIVE[((mask >> k) & 1) << 8 | usize::from(v.distance as u8)];
        materials[k] = v.material;
    }
    batch.mask[lane] = mask;
    batch.inv[lane] = INV_CROSSINGS[mask];
    batch.materials[lane] = u64::from_le_bytes(materials);
    // Local coordinates are below 2^24, world ones within 2^21: exact in i32 and f32.
    #[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap)]
    let corner = (g.origin + IVec3::new(cx as i32, cy as i32, cz as i32)).as_vec3();
    for axis in 0..3 {
        batch.corner[axis][lane] = corner[axis];
    }
}

/// Up to four cubes on their way to vertices, one per lane.
#[derive(Default)]
struct Batch {
    /// Effective distance of corner k (bit 0: x, bit 1: y, bit 2: z) of each lane's cube.
    e: [[f32; 4]; 8],
    mask: [usize; 4],
    inv: [f32; 4],
    materials: [u64; 4],
    /// World position of each lane's cube's min corner, per axis.
    corner: [[f32; 4]; 3],
}

/// Makes the vertices of the first `lanes` lanes of `batch` and appends them to `out`.
#[inline(always)]
fn finish_batch(batch: &Batch, lanes: usize, normals: bool, blend: bool, out: &mut Mesh) {
    let e: [Vec4; 8] = core::array::from_fn(|k| Vec4::from_array(batch.e[k]));
    // Per edge from corner a to corner b: `t` where it changes sign (0 elsewhere), and 1 where it
    // changes sign. Inside corners are negative, the others >= 0, so a crossing edge never divides
    // by zero; other lanes may, and are masked out.
    let edge = |a: usize, b: usize| {
        let crossing = e[a].cmplt(Vec4::ZERO) ^ e[b].cmplt(Vec4::ZERO);
        (Vec4::select(crossing, e[a] / (e[a] - e[b]), Vec4::ZERO), Vec4::select(crossing, Vec4::ONE, Vec4::ZERO))
    };
    let [(x0, _), (x2, mx2), (x4, mx4), (x6, mx6)] = [edge(0, 1), edge(2, 3), edge(4, 5), edge(6, 7)];
    let [(y0, _), (y1, my1), (y4, my4), (y5, my5)] = [edge(0, 2), edge(1, 3), edge(4, 6), edge(5, 7)];
    let [(z0, _), (z1, mz1), (z2, mz2), (z3, mz3)] = [edge(0, 4), edge(1, 5), edge(2, 6), edge(3, 7)];
    // Sum of the crossing points per axis: an edge adds its `t` on its own axis and its start
    // corner's offset (0 or 1) on the other two; starts with x = 1 are corners 1, 3, 5, 7, with
    // y = 1 corners 2, 3, 6, 7, with z = 1 corners 4, 5, 6, 7.
    let sum = [
        (x0 + x2) + (x4 + x6) + (my1 + my5) + (mz1 + mz3),
        (y0 + y1) + (y4 + y5) + (mx2 + mx6) + (mz2 + mz3),
        (z0 + z1) + (z2 + z3) + (mx4 + mx6) + (my4 + my5),
    ];
    let inv = Vec4::from_array(batch.inv);
    let (sx, sy, sz) = (sum[0] * inv, sum[1] * inv, sum[2] * inv);
    let corner = |axis: usize| Vec4::from_array(batch.corner[axis]);
    let position = [(corner(0) + sx).to_array(), (corner(1) + sy).to_array(), (corner(2) + sz).to_array()];
    // Written lane by lane into one array literal: building each `Vec3` apart and pushing it
    // spilled its floats to the stack and read them back as wider words, a store-forwarding stall
    // per vertex.
    let lane3 = |v: [[f32; 4]; 3], l: usize| Vec3::new(v[0][l], v[1][l], v[2][l]);
    if lanes == 4 {
        out.positions.extend_from_slice(&[
            lane3(position, 0),
            lane3(position, 1),
            lane3(position, 2),
            lane3(position, 3),
        ]);
    } else {
        out.positions.extend((0..lanes).map(|l| lane3(position, l)));
    }
    if normals {
        let [mut gx, mut gy, mut gz] = trilinear_gradient(e, [sx, sy, sz], Vec4::ONE);
        let mut length_squared = gx * gx + gy * gy + gz * gz;
        let vanishing = !length_squared.cmpge(Vec4::splat(MIN_GRADIENT_SQUARED)).bitmask() & ((1 << lanes) - 1);
        if vanishing != 0 {
            let (mut x, mut y, mut z) = (gx.to_array(), gy.to_array(), gz.to_array());
            let (sx, sy, sz) = (sx.to_array(), sy.to_array(), sz.to_array());
            for l in (0..lanes).filter(|l| vanishing >> l & 1 != 0) {
                [x[l], y[l], z[l]] = sign_normal(batch.mask[l], Vec3::new(sx[l], sy[l], sz[l])).to_array();
            }
            (gx, gy, gz) = (Vec4::from_array(x), Vec4::from_array(y), Vec4::from_array(z));
            length_squared = gx * gx + gy * gy + gz * gz;
        }
        // Every lane is at least `MIN_GRADIENT_SQUARED` long or a unit fallback: the division is
        // safe. Lane by lane this is `Vec3::normalize`'s arithmetic, so the bits do not depend on
        // the lane.
        let scale = length_squared.sqrt().recip();
        let normal = [(gx * scale).to_array(), (gy * scale).to_array(), (gz * scale).to_array()];
        if lanes == 4 {
            out.normals.extend_from_slice(&[lane3(normal, 0), lane3(normal, 1), lane3(normal, 2), lane3(normal, 3)]);
        } else {
            out.normals.extend((0..lanes).map(|l| lane3(normal, l)));
        }
    }
    for lane in 0..lanes {
        let (dominant, weights) = corner_materials(batch.mask[lane], batch.materials[lane], blend);
        out.materials.push(dominant);
        if blend {
            out.blend.push(weights);
        }
    }
}

/// Appends the quads to `out`, each split along its shorter diagonal (the two triangles stay
/// closer to the surface), the quad rotated so the split runs from its corner 0 to its corner 2.
///
/// A triangle with two corners at one position has no area and no normal, and is never written.
/// Corners meet only where cubes' vertices coincide: several cubes sharing a distance-0 outside
/// corner all put their vertex on it (each crossing ends at that corner), and far from the origin
/// `f32` rounding can merge neighbours. A quad left with three distinct corners in a row is one
/// real triangle, written after every whole quad (so triangles `2q` and `2q + 1` stay quad `q`);
/// one left with fewer, or with its two diagonal ends equal, encloses no area and is left out.
/// Leaving them out keeps the surface closed by position: a triangle with corners `p, p, b` has
/// the edges `p -> p`, `p -> b` and `b -> p`, each the reverse of another of its own.
fn split_quads(quads: &[[u32; 4]], out: &mut Mesh) {
    let positions = &out.positions;
    // The index buffer is sized once and written in place: no capacity or width check per quad.
    out.lone = if out.wide {
        write_quads(positions, quads, &mut out.indices32, |i| i)
    } else {
        // `Mesh::begin` chose narrow indices only when every vertex index fits.
        #[allow(clippy::cast_possible_truncation)]
        write_quads(positions, quads, &mut out.indices16, |i| i as u16)
    };
}

/// Writes the whole quads of `quads` to `indices` (six indices each), then the lone triangles of
/// quads that lost one half; returns the number of lone triangles.
#[inline(always)]
fn write_quads<I: Copy + Default>(
    positions: &[Vec3],
    quads: &[[u32; 4]],
    indices: &mut Vec<I>,
    narrow: impl Fn(u32) -> I + Copy,
) -> usize {
    let start = indices.len();
    indices.resize(start + 6 * quads.len(), I::default());
    let buf = &mut indices[start..];
    // Whole quads fill the buffer from the front, lone triangles from the back: a quad that is not
    // whole frees six slots and takes at most three, so the two never meet.
    let (mut front, mut back) = (0, buf.len());
    for &q in quads {
        let (six, whole) = split(positions, q);
        if whole {
            buf[front..front + 6].copy_from_slice(&six.map(narrow));
            front += 6;
            continue;
        }
        match halves(positions, six) {
            BOTH_HALVES => {
                buf[front..front + 6].copy_from_slice(&six.map(narrow));
                front += 6;
            }
            0 => {}
            one => {
                let half = if one == FIRST_HALF { [six[0], six[1], six[2]] } else { [six[3], six[4], six[5]] };
                back -= 3;
                buf[back..back + 3].copy_from_slice(&half.map(narrow));
            }
        }
    }
    // The lone triangles, last first at the back, move to right after the quads in quad order.
    // They land below `back`: `front + 3 * lone <= back` as each took half its quad's slots.
    let lone = (buf.len() - back) / 3;
    for k in 0..lone {
        let from = buf.len() - 3 * (k + 1);
        buf.copy_within(from..from + 3, front + 3 * k);
    }
    indices.truncate(start + front + 3 * lone);
    lone
}

/// True when `u` and `v` are one point; `&`, not `&&`: three compares and no branch.
#[inline(always)]
fn same(u: Vec3, v: Vec3) -> bool {
    (u.x == v.x) & (u.y == v.y) & (u.z == v.z)
}

/// `halves`' flags: the first half `[a, b, c]` has three distinct corners.
const FIRST_HALF: u8 = 1;
/// The second half `[a, c, d]` has three distinct corners.
const SECOND_HALF: u8 = 2;
const BOTH_HALVES: u8 = FIRST_HALF | SECOND_HALF;

/// Which halves of a split quad `[a, b, c, a, c, d]` have three distinct corners: the exact test
/// behind `split`'s quick one, for the rare quads that fail that.
#[cold]
#[inline(never)]
fn halves(positions: &[Vec3], six: [u32; 6]) -> u8 {
    let [pa, pb, pc, pd] = [six[0], six[1], six[2], six[5]].map(|i| positions[i as usize]);
    let diagonal = same(pa, pc);
    let first = !(diagonal | same(pa, pb) | same(pb, pc));
    let second = !(diagonal | same(pc, pd) | same(pd, pa));
    u8::from(first) | u8::from(second) << 1
}

/// The two triangles of quad `q`, split along its shorter diagonal, as `Mesh::push_quad` writes
/// them: rotated so the split runs from the quad's corner 0 to its corner 2; and whether no two
/// of its corners along the perimeter or across the split are one point (both halves have area).
#[inline(always)]
fn split(positions: &[Vec3], q: [u32; 4]) -> ([u32; 6], bool) {
    let p = [q[0], q[1], q[2], q[3]].map(|i| positions[i as usize]);
    let (d02, d13) = (p[0].distance_squared(p[2]), p[1].distance_squared(p[3]));
    // Branch-free (indexing, not `if`): which diagonal wins is a coin toss the predictor cannot
    // learn.
    let r = usize::from(d02 > d13);
    let [a, b, c, d] = [q[r], q[r + 1], q[r + 2], q[(r + 3) & 3]];
    // The split's diagonal is the shorter: length 0 when its ends are one point. One branch on
    // the result, almost never taken.
    let whole = !(same(p[0], p[1]) | same(p[1], p[2]) | same(p[2], p[3]) | same(p[3], p[0]) | (d02.min(d13) == 0.0));
    ([a, b, c, a, c, d], whole)
}

/// Below this squared length a gradient counts as vanishing (its direction is noise).
const MIN_GRADIENT_SQUARED: f32 = 1e-12;

/// 1 / (number of cube edges whose ends differ), per 8-bit corner mask (0 for uniform masks).
const INV_CROSSINGS: [f32; 256] = {
    let mut t = [0f32; 256];
    let mut mask = 1;
    while mask < 255 {
        let mut count = 0;
        let mut k = 0;
        while k < 8 {
            // Each corner's edges to its three neighbours (k ^ 1, k ^ 2, k ^ 4), counted once.
            let mut axis = 1;
            while axis < 8 {
                let other = k ^ axis;
                if k < other && ((mask >> k) & 1) != ((mask >> other) & 1) {
                    count += 1;
                }
                axis <<= 1;
            }
            k += 1;
        }
        t[mask] = 1.0 / count as f32;
        mask += 1;
    }
    t
};

/// Effective distance of a corner as `f32`, indexed by `inside << 8 | distance as u8`: inside
/// corners negative, every other corner (outside, or inside another phase) positive, each at its
/// distance's magnitude.
const EFFECTIVE: [f32; 512] = {
    let mut t = [0f32; 512];
    let mut i = 0;
    while i < 512 {
        let d = (i & 0xFF) as u8 as i8;
        let magnitude = d.unsigned_abs() as f32;
        t[i] = if i >= 256 { -magnitude } else { magnitude };
        i += 1;
    }
    t
};

/// Gradient at `s` of the trilinear interpolation of the 8 corner values `e` (corner bits: x, y,
/// z), for one vertex (`f32`) or four, one per lane (`Vec4`).
#[inline(always)]
fn trilinear_gradient<T>(e: [T; 8], [sx, sy, sz]: [T; 3], one: T) -> [T; 3]
where
    T: Copy + core::ops::Add<Output = T> + core::ops::Sub<Output = T> + core::ops::Mul<Output = T>,
{
    let (nx, ny, nz) = (one - sx, one - sy, one - sz);
    [
        ny * nz * (e[1] - e[0]) + sy * nz * (e[3] - e[2]) + ny * sz * (e[5] - e[4]) + sy * sz * (e[7] - e[6]),
        nx * nz * (e[2] - e[0]) + sx * nz * (e[3] - e[1]) + nx * sz * (e[6] - e[4]) + sx * sz * (e[7] - e[5]),
        nx * ny * (e[4] - e[0]) + sx * ny * (e[5] - e[1]) + nx * sy * (e[6] - e[2]) + sx * sy * (e[7] - e[3]),
    ]
}

/// Where the distance gradient vanishes (corners that cancel out), the gradient of the corners'
/// inside/outside signs; where that vanishes too, `+Y`.
#[cold]
fn sign_normal(mask: usize, s: Vec3) -> Vec3 {
    let signs = core::array::from_fn(|k| if (mask >> k) & 1 != 0 { -1.0 } else { 1.0 });
    let g = Vec3::from_array(trilinear_gradient(signs, s.to_array(), 1.0));
    if g.length_squared() >= MIN_GRADIENT_SQUARED { g.normalize() } else { Vec3::Y }
}

/// Each 8-bit corner mask spread to one byte per corner (0xFF where set).
const BYTE_MASK: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut m = 0;
    while m < 256 {
        let mut k = 0;
        while k < 8 {
            if (m >> k) & 1 != 0 {
                t[m] |= 0xFF << (8 * k);
            }
            k += 1;
        }
        m += 1;
    }
    t
};

/// The dominant material of the inside corners and, when asked, the top four with weights.
///
/// Inlined for the common case, one material among the inside corners; the counting is apart.
#[inline(always)]
fn corner_materials(mask: usize, packed: u64, want_blend: bool) -> (u8, VertexBlend) {
    #[allow(clippy::cast_possible_truncation)]
    let first = (packed >> (8 * (mask.trailing_zeros() & 7))) as u8;
    if (packed ^ (u64::from(first) * 0x0101_0101_0101_0101)) & BYTE_MASK[mask] == 0 {
        return (first, VertexBlend { ids: [first, 0, 0, 0], weights: [255, 0, 0, 0] });
    }
    mixed_materials(mask, packed, want_blend)
}

/// `corner_materials` where the inside corners hold more than one material.
#[inline(never)]
fn mixed_materials(mask: usize, packed: u64, want_blend: bool) -> (u8, VertexBlend) {
    let mut ids = [0u8; 8];
    let mut counts = [0u32; 8];
    let mut n = 0;
    let materials = packed.to_le_bytes();
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
    fn blend_weights_sum_to_255_and_rank() {
        // Corners 0..3 inside: materials 5, 5, 2, 9.
        let (dominant, blend) = corner_materials(0b1111, u64::from_le_bytes([5, 5, 2, 9, 0, 0, 0, 0]), true);
        assert_eq!(dominant, 5);
        assert_eq!(blend.ids[..3], [5, 2, 9]);
        assert_eq!(blend.weights.iter().map(|&w| u32::from(w)).sum::<u32>(), 255);
        assert!(blend.weights[0] > blend.weights[1]);
        assert_eq!(blend.weights[1], blend.weights[2]);
    }

    #[test]
    fn vanishing_gradient_has_a_defined_normal() {
        // A fully symmetric sign pattern: the sign gradient vanishes at the centre too: +Y.
        assert_eq!(sign_normal(0b0110_1001, Vec3::splat(0.5)), Vec3::Y);
        // Inside on the x = 0 face: the signs point along +X.
        assert!(sign_normal(0b0101_0101, Vec3::splat(0.5)).abs_diff_eq(Vec3::X, 1e-6));
    }

    #[test]
    fn crossing_counts() {
        assert_eq!(INV_CROSSINGS[0], 0.0);
        // Corner 0 alone inside: its three edges cross.
        assert_eq!(INV_CROSSINGS[1], 1.0 / 3.0);
        // The x = 0 face inside: the four x edges cross.
        assert_eq!(INV_CROSSINGS[0b0101_0101], 0.25);
    }

    #[test]
    fn byte_masks_spread_bits() {
        assert_eq!(BYTE_MASK[0], 0);
        assert_eq!(BYTE_MASK[0b1000_0001], 0xFF00_0000_0000_00FF);
    }
}
