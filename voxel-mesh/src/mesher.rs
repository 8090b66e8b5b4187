//! The reusable mesher: options, limits, and the padded read both algorithms start from.

use glam::IVec3;
use voxel_core::{CoordinateLimit, Phase, PhaseTable, RegionHint, Voxel, VoxelBox, VoxelSource};

use crate::greedy::GreedyScratch;
use crate::{MeshError, pack};

/// Largest coordinate a meshed region may reach, in voxels from the origin on every axis.
///
/// Positions are `f32` world coordinates: their fraction shrinks with the distance from the
/// origin, to 1/8 voxel at this bound (2^20), where Surface Nets vertices visibly snap. A region
/// beyond it is refused rather than meshed with coarser corners; engines with larger worlds mesh
/// relative to a local origin (offset the source).
pub const MAX_COORDINATE: CoordinateLimit = CoordinateLimit::new(1 << 20);

/// Most voxels a padded region may hold (256^3): the mesher's scratch grows with it.
pub const MAX_MESH_VOLUME: u64 = 1 << 24;

/// Which voxels count as inside the surface being meshed.
///
/// A voxel is inside when its distance is negative and its material's phase (from the source's
/// [`PhaseTable`](voxel_core::PhaseTable)) is the one asked for. Physics wants the solid surface
/// only; water has its own surface, meshed separately.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Surface {
    /// Solid materials only (what collides).
    #[default]
    Solid,
    /// Liquid materials only (the water surface).
    Liquid,
    /// Every material that is not empty, solid and liquid together.
    All,
}

impl Surface {
    fn counts(self, phase: Phase) -> bool {
        match self {
            Surface::Solid => phase == Phase::Solid,
            Surface::Liquid => phase == Phase::Liquid,
            Surface::All => phase != Phase::Empty,
        }
    }
}

/// What to mesh and which vertex attributes to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MeshOptions {
    /// The surface to mesh. Default: [`Surface::Solid`].
    pub surface: Surface,
    /// Write a unit normal per vertex. Default: `true`.
    pub normals: bool,
    /// Write four splatting weights per vertex ([`VertexBlend`](crate::VertexBlend)). Default:
    /// `false` (physics needs only the dominant material, which is always written).
    pub blend: bool,
    /// Blocky meshing: try all four greedy scan orders per slice instead of two (ours and
    /// block-mesh's), for up to about 1% fewer quads on ragged models (scans, fractals) at
    /// 1.4-1.6x the meshing time. Default: `false`; either way no slice gets more quads than
    /// block-mesh's `greedy_quads` gives it.
    pub fewest_quads: bool,
}

impl Default for MeshOptions {
    fn default() -> Self {
        Self { surface: Surface::Solid, normals: true, blend: false, fewest_quads: false }
    }
}

impl MeshOptions {
    /// Positions and dominant materials only: what physics keeps.
    pub const PHYSICS: MeshOptions =
        MeshOptions { surface: Surface::Solid, normals: false, blend: false, fewest_quads: false };
}

/// Scratch buffers reused across calls, so meshing many chunks allocates nothing after warm-up.
///
/// One `Mesher` per thread; it holds no result between calls.
#[derive(Clone, Debug)]
pub struct Mesher {
    /// The padded region as read.
    pub(crate) voxels: Vec<Voxel>,
    /// One byte per voxel, 1 when inside, on the way to `stream` (the portable packing path).
    pub(crate) flags: Vec<u8>,
    /// The inside bits of every voxel laid end to end, on the way to `rows`.
    pub(crate) stream: Vec<u64>,
    /// One bit per voxel, set when inside: `words` `u64`s per x row, rows in (z, y) order.
    pub(crate) rows: Vec<u64>,
    /// Surface Nets: vertex index + 1 per cube, two y layers.
    pub(crate) cubes: Vec<u32>,
    /// Surface Nets: oriented quads waiting for their diagonal split.
    pub(crate) quads: Vec<[u32; 4]>,
    /// Surface Nets: the cubes whose vertices were handed out, in id order.
    pub(crate) pending: Vec<[u32; 3]>,
    /// Blocky: face bits of the slices being merged.
    pub(crate) slices: Vec<u64>,
    /// Blocky: the greedy merge's buffers.
    pub(crate) greedy: GreedyScratch,
    /// `inside[m]`: material `m` belongs to the surface being meshed.
    pub(crate) inside: [bool; 256],
    /// The same set in the SSE2 path's shape, when it has that shape.
    pub(crate) set: Option<pack::MaterialSet>,
    /// The surface and phase table `inside` and `set` were computed for.
    pub(crate) classified: Option<(Surface, PhaseTable)>,
}

impl Default for Mesher {
    fn default() -> Self {
        Self::new()
    }
}

/// Shape of the padded region in scratch: local voxel `(0, 0, 0)` is world `origin`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Padded {
    pub(crate) origin: IVec3,
    pub(crate) nx: usize,
    pub(crate) ny: usize,
    pub(crate) nz: usize,
    /// `u64` words per x row of inside bits.
    pub(crate) words: usize,
    /// The material of every inside voxel of the padded read, when they share one: blocky
    /// meshing then reads no material per face.
    pub(crate) only: Option<u8>,
}

impl Padded {
    /// First word of the inside bits of row `(y, z)`.
    #[inline]
    pub(crate) fn row(&self, y: usize, z: usize) -> usize {
        (z + self.nz * y) * self.words
    }

    /// Index of local voxel `(x, y, z)` (the one axis order: x, then z, then y).
    #[inline]
    pub(crate) fn voxel(&self, x: usize, y: usize, z: usize) -> usize {
        x + self.nx * (z + self.nz * y)
    }
}

impl Mesher {
    /// A mesher with empty scratch; buffers grow to the largest region meshed.
    pub fn new() -> Self {
        Self {
            voxels: Vec::new(),
            rows: Vec::new(),
            flags: Vec::new(),
            stream: Vec::new(),
            cubes: Vec::new(),
            quads: Vec::new(),
            pending: Vec::new(),
            slices: Vec::new(),
            greedy: GreedyScratch::default(),
            inside: [false; 256],
            set: None,
            classified: None,
        }
    }

    /// The coordinate check every mesher makes on a non-empty region.
    pub(crate) fn check(&self, region: VoxelBox) -> Result<(), MeshError> {
        if !MAX_COORDINATE.contains_box(region) {
            return Err(MeshError::CoordinateOutOfRange(region));
        }
        Ok(())
    }

    /// Checks `region`, reads it with one voxel of padding on every side and packs the inside bits.
    ///
    /// Returns `None` when there is nothing to mesh: an empty region, a region the source calls
    /// uniform (not read at all), or one that is all inside or all outside. Callers clear their
    /// output first, so it is empty then and after an error. With `materials`, the grid's
    /// [`Padded::only`] says whether every inside voxel has one material (else it is `None`).
    pub(crate) fn prepare<S: VoxelSource + ?Sized>(
        &mut self,
        source: &S,
        region: VoxelBox,
        surface: Surface,
        materials: bool,
    ) -> Result<Option<Padded>, MeshError> {
        if region.is_empty() {
            return Ok(None);
        }
        self.check(region)?;
        let padded = region.grow(1);
        let volume = padded.volume();
        if volume > MAX_MESH_VOLUME {
            return Err(MeshError::RegionTooLarge { volume, limit: MAX_MESH_VOLUME });
        }
        if let RegionHint::Uniform(_) = source.region_hint(padded) {
            // One voxel everywhere: no sign change, no surface.
            return Ok(None);
        }
        voxel_core::read_exact(source, padded, &mut self.voxels)?;

        // Classify the materials once per phase table and surface, not once per chunk.
        let table = source.phase_table();
        if self.classified.as_ref().is_none_or(|(s, t)| *s != surface || t != table) {
            for (m, inside) in self.inside.iter_mut().enumerate() {
                *inside = surface.counts(table.phase(m as u8));
            }
            self.set = pack::MaterialSet::from_table(&self.inside);
            self.classified = Some((surface, table.clone()));
        }
        let size = padded.size();
        // Sizes are positive and bounded by MAX_MESH_VOLUME.
        #[allow(clippy::cast_sign_loss)]
        let (nx, ny, nz) = (size.x as usize, size.y as usize, size.z as usize);
        let words = nx.div_ceil(64);
        let mut grid = Padded { origin: padded.min, nx, ny, nz, words, only: None };
        // Most tables leave out at most two materials (air, water): then the test needs no table
        // lookup per voxel and the loop vectorizes.
        let (voxels, flags, stream, inside) = (&self.voxels, &mut self.flags, &mut self.stream, &self.inside);
        let inside = |v: Voxel| (v.distance < 0) & inside[v.material as usize];
        let range = match (self.set, materials) {
            (Some(set), true) => pack::stream_set::<true>(voxels, flags, stream, set),
            (Some(set), false) => pack::stream_set::<false>(voxels, flags, stream, set),
            (None, true) => pack::stream_with::<true>(voxels, flags, stream, inside),
            (None, false) => pack::stream_with::<false>(voxels, flags, stream, inside),
        };
        grid.only = range.only();
        let (any_inside, any_outside) = pack::any_set_and_clear(&self.stream, self.voxels.len());
        if !any_inside || !any_outside {
            return Ok(None);
        }
        // Every word is written: no clearing first.
        self.rows.resize(words * ny * nz, 0);
        pack::unstream(&self.stream, &mut self.rows, nx, words);
        Ok(Some(grid))
    }
}
