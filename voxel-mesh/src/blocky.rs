//! Blocky meshing: the visible faces of inside voxels, merged greedily per material (the 0fps
//! greedy mesher that "Smooth Voxel Mapping", Fairbanks 2020, started from).
//!
//! Voxel `p` is the unit cube `[p, p + 1)`. A face is visible where an inside voxel meets one that
//! is not; it belongs to the region that owns the inside voxel, so chunks that tile space emit every
//! face once. Faces come from the packed inside bits (an AND-NOT of two rows gives 64 faces), and
//! merging visits only faces, never empty cells.

use glam::{IVec3, Vec3};
use voxel_core::{Voxel, VoxelBox, VoxelSource};

use crate::greedy::{GreedyScratch, Order};
use crate::mesher::Padded;
use crate::{Mesh, MeshError, MeshOptions, Mesher, Surface, VertexBlend};

/// block-mesh's `greedy_quads` order over our x slices (rows along z, one per y): it scans an x
/// slice y-fastest (our columns) and grows along z (our `u`, the columns' `v`) first. From
/// block-mesh 0.2.0's source: `RIGHT_HANDED_Y_UP_CONFIG` meshes x faces with `AxisPermutation::Xzy`
/// (u = z, v = y), `greedy_quads_for_face` visits a slice in ilattice's `Extent::iter3` order
/// (z outermost, then y, then x), and `VoxelMerger::find_quad` grows along its u first.
const BLOCK_MESH_X: Order = Order { columns: true, v_first: true };

impl Mesher {
    /// Meshes the visible faces of the inside voxels of `region`, merged greedily into
    /// rectangles of one material: per slice, the fewer of two ascending greedy scans, ours and
    /// block-mesh's `greedy_quads` order, so never more quads than `greedy_quads` (or the fewest
    /// of all four scan orders with [`MeshOptions::fewest_quads`]).
    ///
    /// The output is the same [`Mesh`] as [`Mesher::surface_nets`]: each rectangle is a quad with its
    /// own four vertices, normals are the face normals, and every vertex carries the face's
    /// material. Faces at the region's border are emitted only for the region's own voxels, so
    /// chunks join with no gap and no duplicate. Merged rectangles do not share vertices, so
    /// they meet in T-junctions (harmless for physics; a renderer may see pixel-wide gaps, which
    /// [`Mesher::visible_faces`] avoids at four times the quads).
    ///
    /// # Errors
    ///
    /// As [`Mesher::surface_nets`].
    pub fn blocky<S: VoxelSource + ?Sized>(
        &mut self,
        source: &S,
        region: VoxelBox,
        options: &MeshOptions,
        out: &mut Mesh,
    ) -> Result<(), MeshError> {
        self.greedy_faces(source, region, options, out)
    }

    /// As [`Mesher::blocky`], one quad per visible voxel face, without merging: faster to make,
    /// about four times the quads on terrain.
    ///
    /// # Errors
    ///
    /// As [`Mesher::surface_nets`].
    pub fn visible_faces<S: VoxelSource + ?Sized>(
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
        // The options are constants inside the face loop, so a face costs no test for them.
        match (options.normals, options.blend) {
            (false, false) => unit_faces::<false, false>(g, &self.rows, &self.voxels, out),
            (true, false) => unit_faces::<true, false>(g, &self.rows, &self.voxels, out),
            (false, true) => unit_faces::<false, true>(g, &self.rows, &self.voxels, out),
            (true, true) => unit_faces::<true, true>(g, &self.rows, &self.voxels, out),
        }
        out.push_unit_quads();
        Ok(())
    }

    /// The visible faces of the inside voxels of `region` as a compact list, 8 bytes per face:
    /// the voxel (relative to `region.min`), the direction and the material, no vertex written.
    ///
    /// The same faces as [`Mesher::visible_faces`], in the same order (face `i` is quad `i` of
    /// that mesh; [`Face::corners`] gives its corners in the same order), for engines that build
    /// their own vertex format (a GPU face buffer, instancing) and would otherwise copy out of a
    /// [`Mesh`]. This is the output block-mesh's `visible_block_faces` makes. `out` is cleared
    /// first.
    ///
    /// # Errors
    ///
    /// As [`Mesher::surface_nets`], and [`MeshError::AxisTooLong`] for a region longer than
    /// [`Face::MAX_AXIS`] on an axis (a face stores 16-bit offsets); `out` is left empty.
    ///
    /// ```
    /// use glam::IVec3;
    /// use voxel_core::{Voxel, VoxelBox, VoxelGrid};
    /// use voxel_mesh::{Mesher, Surface};
    ///
    /// let region = VoxelBox::new(IVec3::splat(10), IVec3::splat(14));
    /// let one_block = VoxelGrid::from_fn(region.grow(1), |p| {
    ///     if p == IVec3::splat(11) { Voxel::new(-50, 7) } else { Voxel::EMPTY }
    /// })
    /// .unwrap();
    /// let mut faces = Vec::new();
    /// Mesher::new().face_list(&one_block, region, Surface::Solid, &mut faces).unwrap();
    /// assert_eq!(faces.len(), 6);
    /// assert!(faces.iter().all(|f| f.voxel(region.min) == IVec3::splat(11) && f.material() == 7));
    /// ```
    pub fn face_list<S: VoxelSource + ?Sized>(
        &mut self,
        source: &S,
        region: VoxelBox,
        surface: Surface,
        out: &mut Vec<Face>,
    ) -> Result<(), MeshError> {
        out.clear();
        // After the checks every mesher makes (an empty region is empty, whatever its length),
        // before any read.
        let longest = region.size().max_element();
        if !region.is_empty() && longest > Face::MAX_AXIS {
            self.check(region)?;
            return Err(MeshError::AxisTooLong { length: longest, limit: Face::MAX_AXIS });
        }
        let Some(g) = self.prepare(source, region, surface, true)? else {
            return Ok(());
        };
        face_rows(g, &self.rows, &self.voxels, out);
        Ok(())
    }

    fn greedy_faces<S: VoxelSource + ?Sized>(
        &mut self,
        source: &S,
        region: VoxelBox,
        options: &MeshOptions,
        out: &mut Mesh,
    ) -> Result<(), MeshError> {
        out.clear();
        let Some(g) = self.prepare(source, region, options.surface, true)? else {
            return Ok(());
        };
        out.begin(0);
        let owned_x = |w: usize| range_in_word(w, 1, g.nx - 1);
        let mut emit = Emitter { origin: g.origin.as_vec3(), out, normals: options.normals, blend: options.blend };
        let Mesher { voxels, rows, slices, greedy, .. } = self;
        let material = |x: usize, y: usize, z: usize| voxels[g.voxel(x, y, z)].material;
        let words = g.words;
        // Models of one material (and chunks of one) merge on the face bits alone: every inside
        // voxel of the padded read has one material (found while packing the inside bits).
        let only = g.only;

        // Faces across y (slice y, one row along x per z), then across z (slice z, one row per y).
        let all = options.fewest_quads;
        layer_faces::<1>(g, rows, slices, greedy, only, all, &material, &mut emit);
        layer_faces::<2>(g, rows, slices, greedy, only, all, &material, &mut emit);
        // Faces across x: found within each x row, then transposed into slices x with rows along z,
        // one row per y.
        let zwords = g.nz.div_ceil(64);
        for positive in [false, true] {
            slices.clear();
            slices.resize(g.nx * g.ny * zwords, 0);
            for y in 1..g.ny - 1 {
                for z in 1..g.nz - 1 {
                    let r = g.row(y, z);
                    for w in 0..words {
                        let s = rows[r + w];
                        let neighbour = if positive {
                            let next = if w + 1 < words { rows[r + w + 1] } else { 0 };
                            (s >> 1) | (next << 63)
                        } else {
                            let prev = if w > 0 { rows[r + w - 1] } else { 0 };
                            (s << 1) | (prev >> 63)
                        };
                        let mut f = s & !neighbour & owned_x(w);
                        while f != 0 {
                            let x = w * 64 + f.trailing_zeros() as usize;
                            f &= f - 1;
                            slices[(x * g.ny + y) * zwords + z / 64] |= 1 << (z % 64);
                        }
                    }
                }
            }
            for x in 1..g.nx - 1 {
                let slice = &mut slices[x * g.ny * zwords..(x + 1) * g.ny * zwords];
                if slice.iter().all(|&b| b == 0) {
                    continue;
                }
                for r in
                    greedy.merge(slice, zwords, g.nz, 1..g.ny - 1, only, BLOCK_MESH_X, all, |u, v| material(x, v, u))
                {
                    let [u0, u1, v0, v1] = [r.u0, r.u1, r.v0, r.v1].map(|c| c as usize);
                    emit.quad(0, positive, x, [2, u0, u1], [1, v0, v1], r.material);
                }
            }
        }
        out.finish();
        Ok(())
    }
}

/// The faces across `AXIS` (1: y, 2: z), one slice per layer of that axis, rows along x, one row
/// per voxel of the remaining axis; merged and emitted. The axis is a constant so the
/// row arithmetic and the emitter's indexing fold away.
#[allow(clippy::too_many_arguments)] // Private; the x faces' loop in `greedy_faces` shares them.
fn layer_faces<const AXIS: usize>(
    g: Padded,
    rows: &[u64],
    slices: &mut Vec<u64>,
    greedy: &mut GreedyScratch,
    only: Option<u8>,
    all: bool,
    material: &impl Fn(usize, usize, usize) -> u8,
    emit: &mut Emitter<'_>,
) {
    // block-mesh's `greedy_quads` (right-handed, y up; `Yzx` and `Zxy`, see `BLOCK_MESH_X`)
    // scans a y slice x-fastest (our rows) and grows along z (our v) first; a z slice x-fastest,
    // growing along x (our u) first, which is the order every merge tries first: z slices get
    // one scan.
    let block_mesh = Order { columns: false, v_first: AXIS == 1 };
    let words = g.words;
    let owned_x = |w: usize| range_in_word(w, 1, g.nx - 1);
    // (layer, other) to (y, z), and the other axis's extent.
    let yz = |layer: usize, other: usize| if AXIS == 1 { (layer, other) } else { (other, layer) };
    let (layers, others, other_axis) = if AXIS == 1 { (g.ny, g.nz, 2) } else { (g.nz, g.ny, 1) };
    for positive in [false, true] {
        for layer in 1..layers - 1 {
            let next = if positive { layer + 1 } else { layer - 1 };
            slices.clear();
            slices.resize(others * words, 0);
            let mut any = 0;
            for other in 1..others - 1 {
                let ((y, z), (ny, nz)) = (yz(layer, other), yz(next, other));
                for w in 0..words {
                    let f = rows[g.row(y, z) + w] & !rows[g.row(ny, nz) + w] & owned_x(w);
                    slices[other * words + w] = f;
                    any |= f;
                }
            }
            if any != 0 {
                let rects = greedy.merge(slices, words, g.nx, 1..others - 1, only, block_mesh, all, |u, v| {
                    let (y, z) = yz(layer, v);
                    material(u, y, z)
                });
                for r in rects {
                    let [u0, u1, v0, v1] = [r.u0, r.u1, r.v0, r.v1].map(|c| c as usize);
                    emit.quad(AXIS, positive, layer, [0, u0, u1], [other_axis, v0, v1], r.material);
                }
            }
        }
    }
}

/// One quad per visible face, appended to `out` without indices (`Mesh::push_unit_quads` writes
/// them once every face is in).
///
/// One pass over the packed rows: per word, six AND-NOTs give the faces toward the six
/// directions, and a word with none costs nothing more. A face costs its four corners (each
/// coordinate is its voxel's or the next one's, both made once per row or per face), its material
/// and, when asked, its normal and blend weights. Faces come in (y, z, x word, direction, x) order.
fn unit_faces<const NORMALS: bool, const BLEND: bool>(g: Padded, rows: &[u64], voxels: &[Voxel], out: &mut Mesh) {
    let words = g.words;
    let owned = (range_in_word(0, 1, g.nx - 1), range_in_word(words - 1, 1, g.nx - 1));
    // Local coordinates are below 2^24 and the origin within 2^21: every sum below is an exact
    // integer in f32, so the corners are the same bits whatever the order of the additions.
    #[allow(clippy::cast_precision_loss)]
    let f = |i: usize| i as f32;
    let origin = g.origin.as_vec3();
    for y in 1..g.ny - 1 {
        let fy = origin.y + f(y);
        for z in 1..g.nz - 1 {
            let r = g.row(y, z);
            let fz = origin.z + f(z);
            let row = Row {
                y: [fy, fy + 1.0],
                z: [fz, fz + 1.0],
                origin_x: origin.x,
                voxels: &voxels[g.voxel(0, y, z)..g.voxel(0, y, z) + g.nx],
            };
            for w in 0..words {
                let Some(faces) = word_faces(g, rows, r, w, owned) else {
                    continue;
                };
                row.emit::<0, NORMALS, BLEND>(faces[0], w, out);
                row.emit::<1, NORMALS, BLEND>(faces[1], w, out);
                row.emit::<2, NORMALS, BLEND>(faces[2], w, out);
                row.emit::<3, NORMALS, BLEND>(faces[3], w, out);
                row.emit::<4, NORMALS, BLEND>(faces[4], w, out);
                row.emit::<5, NORMALS, BLEND>(faces[5], w, out);
            }
        }
    }
}

/// [`Mesher::face_list`]: the pass of [`unit_faces`], writing one [`Face`] per face.
fn face_rows(g: Padded, rows: &[u64], voxels: &[Voxel], out: &mut Vec<Face>) {
    // One material for every face (one-material models and chunks): no read per face.
    match g.only {
        Some(m) => face_rows_of::<true>(g, rows, voxels, u64::from(m) << 56, out),
        None => face_rows_of::<false>(g, rows, voxels, 0, out),
    }
}

/// [`face_rows`], with every face of material `one_material` (the top byte) when `ONE`.
fn face_rows_of<const ONE: bool>(g: Padded, rows: &[u64], voxels: &[Voxel], one_material: u64, out: &mut Vec<Face>) {
    let words = g.words;
    let owned = (range_in_word(0, 1, g.nx - 1), range_in_word(words - 1, 1, g.nx - 1));
    let direction_bits: [u64; 6] = core::array::from_fn(|d| (d as u64) << 48);
    for y in 1..g.ny - 1 {
        for z in 1..g.nz - 1 {
            let r = g.row(y, z);
            let row_voxels = &voxels[g.voxel(0, y, z)..g.voxel(0, y, z) + g.nx];
            // Offsets from the region's min (padded local minus one) fit 16 bits: `face_list`
            // checked the axes.
            let row_bits = ((y as u64 - 1) << 16) | ((z as u64 - 1) << 32);
            for w in 0..words {
                let Some(faces) = word_faces(g, rows, r, w, owned) else {
                    continue;
                };
                // Room for the word's faces first, then each face one 8-byte store at an index
                // kept in a register: pushing reloads the length through memory every face, and
                // zeroing the room first (the safe `resize`) cost 15% on face-dense models
                // (menger: 940-960 us against 800-810 us).
                let start = out.len();
                let count = faces.iter().map(|f| f.count_ones() as usize).sum::<usize>();
                out.reserve(count);
                let slots = &mut out.spare_capacity_mut()[..count];
                let mut k = 0;
                // The row's voxels from this word's first: bit `b` of a face word is voxel `b` here.
                let word_voxels = &row_voxels[w * 64..];
                // Offset x of bit `b` is `w * 64 + b - 1`: the sum wraps below zero only for
                // `w == 0`, where `b >= 1` (bit 0 is padding) brings it back.
                let x_bits = (w as u64 * 64).wrapping_sub(1);
                for (direction, mut f) in direction_bits.into_iter().zip(faces) {
                    let base = (row_bits | direction).wrapping_add(x_bits);
                    while f != 0 {
                        let b = f.trailing_zeros() as usize;
                        f &= f - 1;
                        debug_assert!(w * 64 + b < g.nx - 1 && k < count);
                        // SAFETY: face bits are set only for the region's own voxels, so voxel
                        // `w * 64 + b` lies inside the row (`word_faces` masks bit 0 of the first
                        // word and every bit from `nx - 1` on); `k < count`, the number of set
                        // bits of `faces`, of which this is the `k`-th.
                        let (voxel, slot) = unsafe { (word_voxels.get_unchecked(b), slots.get_unchecked_mut(k)) };
                        let material = if ONE { one_material } else { u64::from(voxel.material) << 56 };
                        slot.write(Face(base.wrapping_add(b as u64) | material));
                        k += 1;
                    }
                }
                debug_assert_eq!(k, count);
                // SAFETY: `count` is the number of set bits in `faces`, and the loops above wrote
                // slot `k` for each of them in turn (unchecked, `k < count` argued there), so all
                // `count` slots past the old length are initialized.
                unsafe {
                    out.set_len(start + count);
                }
            }
        }
    }
}

/// One visible voxel face, as [`Mesher::face_list`] writes it: 8 bytes.
///
/// Bits 0-15, 16-31 and 32-47 hold the voxel's x, y and z offsets from the meshed region's
/// minimum, bits 48-55 the direction, bits 56-63 the material; [`Face::bits`] hands the word to a
/// GPU buffer as is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Face(u64);

impl Face {
    /// The longest region, on any axis, whose faces fit the 16-bit offsets.
    pub const MAX_AXIS: i32 = 1 << 16;

    /// A face of the voxel at `offset` from the region's minimum (each component taken modulo
    /// 2^16), toward `direction` (0 `-x`, 1 `+x`, 2 `-y`, 3 `+y`, 4 `-z`, 5 `+z`), of `material`.
    pub fn new(offset: [u16; 3], direction: u8, material: u8) -> Self {
        let [x, y, z] = offset.map(u64::from);
        Face(x | (y << 16) | (z << 32) | (u64::from(direction) << 48) | (u64::from(material) << 56))
    }

    /// The packed word.
    pub fn bits(self) -> u64 {
        self.0
    }

    /// The voxel's offset from the meshed region's minimum.
    pub fn offset(self) -> [u16; 3] {
        // The three 16-bit fields.
        #[allow(clippy::cast_possible_truncation)]
        [self.0 as u16, (self.0 >> 16) as u16, (self.0 >> 32) as u16]
    }

    /// The inside voxel the face belongs to, given the meshed region's minimum (wrapping past
    /// `i32::MAX`, which no meshable region reaches).
    pub fn voxel(self, region_min: IVec3) -> IVec3 {
        region_min.wrapping_add(IVec3::from_array(self.offset().map(i32::from)))
    }

    /// The direction the face looks toward: 0 `-x`, 1 `+x`, 2 `-y`, 3 `+y`, 4 `-z`, 5 `+z`.
    pub fn direction(self) -> u8 {
        // Bits 48-55.
        #[allow(clippy::cast_possible_truncation)]
        let d = (self.0 >> 48) as u8;
        d
    }

    /// The voxel's material.
    pub fn material(self) -> u8 {
        // Bits 56-63.
        #[allow(clippy::cast_possible_truncation)]
        let m = (self.0 >> 56) as u8;
        m
    }

    /// The outward unit normal (a direction past 5 is read modulo 6).
    pub fn normal(self) -> Vec3 {
        let d = self.direction() % 6;
        let mut n = Vec3::ZERO;
        n[usize::from(d / 2)] = if d % 2 == 1 { 1.0 } else { -1.0 };
        n
    }

    /// The four corners in world coordinates, given the meshed region's minimum, wound
    /// counter-clockwise seen from outside, in the order [`Mesher::visible_faces`] writes the
    /// quad's vertices (a direction past 5 is read modulo 6).
    pub fn corners(self, region_min: IVec3) -> [Vec3; 4] {
        let d = self.direction() % 6;
        let offsets = unit_corners(usize::from(d / 2), d % 2 == 1);
        let voxel = self.voxel(region_min).as_vec3();
        offsets.map(|[x, y, z]| voxel + Vec3::new(f32::from(x as u8), f32::from(y as u8), f32::from(z as u8)))
    }
}

/// The visible faces in word `w` of row `r` toward the six directions (0: -x, 1: +x, 2: -y,
/// 3: +y, 4: -z, 5: +z): bit x is set when voxel x is inside, the region owns it and its
/// neighbour that way is not inside. `owned` holds the region's bits of the first and the last
/// word (the others are all owned). `None` when the word has no owned inside voxel.
#[inline(always)]
fn word_faces(g: Padded, rows: &[u64], r: usize, w: usize, owned: (u64, u64)) -> Option<[u64; 6]> {
    let words = g.words;
    // Words from a row to its neighbour rows across y and z.
    let (dy, dz) = (g.nz * words, words);
    let own = if w == 0 { owned.0 } else { u64::MAX } & if w + 1 == words { owned.1 } else { u64::MAX };
    let s = rows[r + w] & own;
    if s == 0 {
        return None;
    }
    let prev = if w > 0 { rows[r + w - 1] >> 63 } else { 0 };
    let next = if w + 1 < words { rows[r + w + 1] << 63 } else { 0 };
    // Bit x of each neighbour word holds the voxel beside voxel x in that direction.
    Some([
        s & !((rows[r + w] << 1) | prev),
        s & !((rows[r + w] >> 1) | next),
        s & !rows[r - dy + w],
        s & !rows[r + dy + w],
        s & !rows[r - dz + w],
        s & !rows[r + dz + w],
    ])
}

/// What the faces of one x row share: the y and z of their corners (the voxel's and the next
/// one's), and the row's voxels for the materials.
struct Row<'a> {
    y: [f32; 2],
    z: [f32; 2],
    origin_x: f32,
    voxels: &'a [Voxel],
}

impl Row<'_> {
    /// Emits the faces toward direction `D` (0: -x, 1: +x, 2: -y, 3: +y, 4: -z, 5: +z) of the
    /// voxels whose bits are set in word `w` of `faces`. Always inlined with a constant `D`, so the
    /// corner picks fold away.
    #[inline(always)]
    fn emit<const D: usize, const NORMALS: bool, const BLEND: bool>(&self, mut faces: u64, w: usize, out: &mut Mesh) {
        let offsets = unit_corners(D / 2, D % 2 == 1);
        let normal = {
            let mut n = Vec3::ZERO;
            n[D / 2] = if D % 2 == 1 { 1.0 } else { -1.0 };
            n
        };
        while faces != 0 {
            let x = w * 64 + faces.trailing_zeros() as usize;
            faces &= faces - 1;
            // x < 2^24: exact as i32 and as f32.
            #[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap, clippy::cast_precision_loss)]
            let fx = self.origin_x + x as i32 as f32;
            let xs = [fx, fx + 1.0];
            let corner = |[cx, cy, cz]: [usize; 3]| Vec3::new(xs[cx], self.y[cy], self.z[cz]);
            // Written out rather than `offsets.map(corner)`, which stays a call.
            let corners = [corner(offsets[0]), corner(offsets[1]), corner(offsets[2]), corner(offsets[3])];
            out.positions.extend_from_slice(&corners);
            let m = self.voxels[x].material;
            out.materials.extend_from_slice(&[m; 4]);
            if NORMALS {
                out.normals.extend_from_slice(&[normal; 4]);
            }
            if BLEND {
                let b = VertexBlend { ids: [m, 0, 0, 0], weights: [255, 0, 0, 0] };
                out.blend.extend_from_slice(&[b; 4]);
            }
        }
    }
}

/// The corners of the unit face toward `axis` (`positive` or not) of a voxel, as 0/1 offsets from
/// the voxel, in the order [`Emitter::quad`] gives a one-voxel rectangle.
#[inline(always)]
const fn unit_corners(axis: usize, positive: bool) -> [[usize; 3]; 4] {
    // The (u, v) axes of `Emitter::quad`'s callers: (x, z) across y, (x, y) across z, (z, y)
    // across x.
    let (u, v) = match axis {
        0 => (2, 1),
        1 => (0, 2),
        _ => (0, 1),
    };
    let mut c = [[0; 3]; 4];
    let mut k = 0;
    while k < 4 {
        c[k][axis] = positive as usize;
        k += 1;
    }
    // Corner 2 is base + du + dv; corners 1 and 3 are base + du and base + dv, in the order that
    // winds counter-clockwise seen from the face's side.
    let (one, three) = if (axis == 2) == positive { (u, v) } else { (v, u) };
    c[1][one] = 1;
    c[2][u] = 1;
    c[2][v] = 1;
    c[3][three] = 1;
    c
}

/// Bits `[u0, u1)` that fall in word `w`.
#[inline]
pub(crate) fn range_in_word(w: usize, u0: usize, u1: usize) -> u64 {
    let lo = u0.max(w * 64) - w * 64;
    let hi = u1.min(w * 64 + 64).saturating_sub(w * 64);
    if hi <= lo {
        return 0;
    }
    let upper = if hi == 64 { u64::MAX } else { (1u64 << hi) - 1 };
    upper & !((1u64 << lo) - 1)
}

struct Emitter<'a> {
    /// World position of local voxel (0, 0, 0).
    origin: Vec3,
    out: &'a mut Mesh,
    normals: bool,
    blend: bool,
}

impl Emitter<'_> {
    /// Emits the rectangle `[u0, u1) x [v0, v1)` on the face of voxel layer `layer` along `axis`;
    /// `u` and `v` are `[axis, start, end]` in local coordinates. Always inlined: every call
    /// site names its axes with constants, so the per-axis indexing folds away.
    #[inline(always)]
    fn quad(&mut self, axis: usize, positive: bool, layer: usize, u: [usize; 3], v: [usize; 3], material: u8) {
        // Local coordinates are small integers and the origin is below 2^23: exact in f32.
        #[allow(clippy::cast_precision_loss)]
        let f = |i: usize| i as f32;
        let mut base = self.origin;
        base[axis] += f(layer + usize::from(positive));
        base[u[0]] += f(u[1]);
        base[v[0]] += f(v[1]);
        let (mut du, mut dv) = (Vec3::ZERO, Vec3::ZERO);
        du[u[0]] = f(u[2] - u[1]);
        dv[v[0]] = f(v[2] - v[1]);
        // (u, v) is (x, z) across y, (x, y) across z, (z, y) across x: u x v points along -y, +z
        // and -x, so the corners run counter-clockwise seen from the face's side when that
        // agrees with the face's direction, and are reversed otherwise.
        let corners = if (axis == 2) == positive {
            [base, base + du, base + du + dv, base + dv]
        } else {
            [base, base + dv, base + du + dv, base + du]
        };
        #[allow(clippy::cast_possible_truncation)]
        let first = self.out.positions.len() as u32;
        self.out.positions.extend_from_slice(&corners);
        self.out.materials.extend_from_slice(&[material; 4]);
        if self.normals {
            let mut n = Vec3::ZERO;
            n[axis] = if positive { 1.0 } else { -1.0 };
            self.out.normals.extend_from_slice(&[n; 4]);
        }
        if self.blend {
            let b = VertexBlend { ids: [material, 0, 0, 0], weights: [255, 0, 0, 0] };
            self.out.blend.extend_from_slice(&[b; 4]);
        }
        self.out.push_quad_widening([first, first + 1, first + 2, first + 3]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_in_words() {
        assert_eq!(range_in_word(0, 3, 5), 0b11000);
        assert_eq!(range_in_word(0, 60, 70), 0xF << 60);
        assert_eq!(range_in_word(1, 60, 70), 0b11_1111);
        assert_eq!(range_in_word(0, 0, 64), u64::MAX);
        assert_eq!(range_in_word(2, 0, 64), 0);
    }
}
