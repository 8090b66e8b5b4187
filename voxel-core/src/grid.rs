//! A dense voxel array over one box: the simplest [`VoxelSource`].

use glam::IVec3;

use crate::{Error, PhaseTable, RegionHint, Voxel, VoxelBox, VoxelSource};

/// A dense grid of voxels over a [`VoxelBox`], in the workspace's axis order, with its own
/// [`PhaseTable`]. Reads outside the box give [`Voxel::EMPTY`].
///
/// Meant for tests, small worlds and adapters; large worlds belong in `voxel-store`.
///
/// ```
/// use glam::IVec3;
/// use voxel_core::{Voxel, VoxelBox, VoxelGrid, VoxelSource};
///
/// let bounds = VoxelBox::new(IVec3::ZERO, IVec3::splat(4));
/// let grid = VoxelGrid::from_fn(bounds, |p| if p.y < 2 { Voxel::new(-10, 1) } else { Voxel::EMPTY }).unwrap();
/// assert_eq!(grid.get(IVec3::new(1, 0, 1)), Voxel::new(-10, 1));
/// assert_eq!(grid.get(IVec3::new(9, 0, 1)), Voxel::EMPTY);
///
/// let mut column = Vec::new();
/// grid.read_region(VoxelBox::new(IVec3::new(0, -1, 0), IVec3::new(1, 3, 1)), &mut column).unwrap();
/// assert_eq!(column, [Voxel::EMPTY, Voxel::new(-10, 1), Voxel::new(-10, 1), Voxel::EMPTY]);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct VoxelGrid {
    bounds: VoxelBox,
    voxels: Vec<Voxel>,
    phases: PhaseTable,
}

impl VoxelGrid {
    /// A grid over `bounds` filled with [`Voxel::EMPTY`], with [`PhaseTable::DEFAULT`].
    /// Fails with [`Error::RegionTooLarge`] past [`MAX_REGION_VOLUME`](crate::MAX_REGION_VOLUME).
    pub fn new(bounds: VoxelBox) -> Result<Self, Error> {
        let len = bounds.checked_len()?;
        Ok(Self { bounds, voxels: vec![Voxel::EMPTY; len], phases: PhaseTable::DEFAULT })
    }

    /// A grid over `bounds` whose voxel at `p` is `f(p)`, evaluated in buffer order.
    pub fn from_fn(bounds: VoxelBox, mut f: impl FnMut(IVec3) -> Voxel) -> Result<Self, Error> {
        let len = bounds.checked_len()?;
        let mut voxels = Vec::with_capacity(len);
        voxels.extend(bounds.iter().map(&mut f));
        Ok(Self { bounds, voxels, phases: PhaseTable::DEFAULT })
    }

    /// A grid over `bounds` from voxels already in buffer order. Fails with
    /// [`Error::LengthMismatch`] when the count is not the box's volume.
    pub fn from_voxels(bounds: VoxelBox, voxels: Vec<Voxel>) -> Result<Self, Error> {
        let len = bounds.checked_len()?;
        if voxels.len() != len {
            return Err(Error::LengthMismatch { expected: len, actual: voxels.len() });
        }
        Ok(Self { bounds, voxels, phases: PhaseTable::DEFAULT })
    }

    /// The same grid with another phase table.
    pub fn with_phases(mut self, phases: PhaseTable) -> Self {
        self.phases = phases;
        self
    }

    /// The box the grid covers.
    #[inline]
    pub fn grid_bounds(&self) -> VoxelBox {
        self.bounds
    }

    /// The voxel at `p`; [`Voxel::EMPTY`] outside the grid.
    #[inline]
    pub fn get(&self, p: IVec3) -> Voxel {
        self.bounds.index_of(p).map_or(Voxel::EMPTY, |i| self.voxels[i])
    }

    /// Sets the voxel at `p`. Returns `false` (and changes nothing) when `p` is outside the grid.
    #[inline]
    pub fn set(&mut self, p: IVec3, voxel: Voxel) -> bool {
        match self.bounds.index_of(p) {
            Some(i) => {
                self.voxels[i] = voxel;
                true
            }
            None => false,
        }
    }

    /// All voxels, in buffer order.
    #[inline]
    pub fn voxels(&self) -> &[Voxel] {
        &self.voxels
    }

    /// All voxels, mutable, in buffer order.
    #[inline]
    pub fn voxels_mut(&mut self) -> &mut [Voxel] {
        &mut self.voxels
    }

    /// The phase table, mutable.
    #[inline]
    pub fn phases_mut(&mut self) -> &mut PhaseTable {
        &mut self.phases
    }
}

impl VoxelSource for VoxelGrid {
    fn fill_region(&self, region: VoxelBox, out: &mut [Voxel]) {
        let inside = region.intersection(&self.bounds);
        let len = usize::try_from(region.volume()).unwrap_or(usize::MAX);
        if out.len() != len {
            // Outside the contract of `fill_region`; a documented no-op rather than a panic.
            return;
        }
        if inside.is_empty() {
            out.fill(Voxel::EMPTY);
            return;
        }
        if inside != region {
            out.fill(Voxel::EMPTY);
        }
        // The whole grid, or whole y slabs (x and z spans equal in both boxes): one contiguous
        // copy per slab instead of one small copy per row.
        let size = inside.size();
        let spans = |b: &VoxelBox| {
            b.min.x == inside.min.x && b.max.x == inside.max.x && b.min.z == inside.min.z && b.max.z == inside.max.z
        };
        if spans(&region) && spans(&self.bounds) {
            let slab = (size.x * size.z) as usize;
            let start = IVec3::new(inside.min.x, inside.min.y, inside.min.z);
            if let (Some(src), Some(dst)) = (self.bounds.index_of(start), region.index_of(start)) {
                let len = slab * size.y as usize;
                out[dst..dst + len].copy_from_slice(&self.voxels[src..src + len]);
                return;
            }
        }
        // Copy whole x rows of the overlap: one memcpy per (y, z).
        let row = size.x as usize;
        for y in inside.min.y..inside.max.y {
            for z in inside.min.z..inside.max.z {
                let start = IVec3::new(inside.min.x, y, z);
                let (Some(src), Some(dst)) = (self.bounds.index_of(start), region.index_of(start)) else {
                    continue;
                };
                out[dst..dst + row].copy_from_slice(&self.voxels[src..src + row]);
            }
        }
    }

    fn region_hint(&self, region: VoxelBox) -> RegionHint {
        if !region.overlaps(&self.bounds) { RegionHint::Uniform(Voxel::EMPTY) } else { RegionHint::Unknown }
    }

    fn phase_table(&self) -> &PhaseTable {
        &self.phases
    }

    fn bounds(&self) -> Option<VoxelBox> {
        Some(self.bounds)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn noise_grid(bounds: VoxelBox, seed: u32) -> VoxelGrid {
        VoxelGrid::from_fn(bounds, |p| {
            let h = (p.x as u32).wrapping_mul(0x9E37_79B1)
                ^ (p.y as u32).wrapping_mul(0x85EB_CA77)
                ^ (p.z as u32).wrapping_mul(0xC2B2_AE3D)
                ^ seed;
            let h = h ^ (h >> 15);
            Voxel::new((h & 0xff) as u8 as i8, (h >> 8) as u8)
        })
        .unwrap()
    }

    #[test]
    fn reads_outside_the_world_are_empty() {
        let g = noise_grid(VoxelBox::new(IVec3::ZERO, IVec3::splat(4)), 1);
        let mut buf = Vec::new();
        g.read_region(VoxelBox::new(IVec3::splat(10), IVec3::splat(12)), &mut buf).unwrap();
        assert_eq!(buf, vec![Voxel::EMPTY; 8]);
        g.read_region(VoxelBox::new(IVec3::splat(-1), IVec3::splat(0)), &mut buf).unwrap();
        assert_eq!(buf, vec![Voxel::EMPTY]);
    }

    #[test]
    fn huge_or_empty_regions_do_not_allocate() {
        let g = noise_grid(VoxelBox::new(IVec3::ZERO, IVec3::splat(2)), 1);
        let mut buf = vec![Voxel::new(1, 1); 3];
        let huge = VoxelBox::new(IVec3::splat(-100_000), IVec3::splat(100_000));
        assert!(matches!(g.read_region(huge, &mut buf), Err(Error::RegionTooLarge { .. })));
        assert_eq!(buf.len(), 3, "a refused read leaves the buffer as it was");
        g.read_region(VoxelBox::new(IVec3::ONE, IVec3::ZERO), &mut buf).unwrap();
        assert!(buf.is_empty());
    }

    #[test]
    fn wrong_buffer_length_is_a_no_op() {
        let g = noise_grid(VoxelBox::new(IVec3::ZERO, IVec3::splat(2)), 1);
        let mut out = [Voxel::new(5, 5); 3];
        g.fill_region(VoxelBox::new(IVec3::ZERO, IVec3::splat(2)), &mut out);
        assert_eq!(out, [Voxel::new(5, 5); 3]);
    }

    #[test]
    fn constructors_check_sizes() {
        let b = VoxelBox::new(IVec3::ZERO, IVec3::splat(2));
        assert_eq!(
            VoxelGrid::from_voxels(b, vec![Voxel::EMPTY; 7]),
            Err(Error::LengthMismatch { expected: 8, actual: 7 })
        );
        let huge = VoxelBox::new(IVec3::ZERO, IVec3::splat(2000));
        assert!(matches!(VoxelGrid::new(huge), Err(Error::RegionTooLarge { .. })));
        let mut g = VoxelGrid::new(b).unwrap();
        assert!(!g.set(IVec3::splat(2), Voxel::new(-1, 1)));
        assert!(g.set(IVec3::splat(1), Voxel::new(-1, 1)));
        assert_eq!(g.get(IVec3::splat(1)), Voxel::new(-1, 1));
    }

    /// Reads whose x and z spans match the grid's take the contiguous slab path: the whole grid,
    /// a y range of it, and a taller region (EMPTY above and below).
    #[test]
    fn slab_reads_equal_per_voxel_get() {
        let bounds = VoxelBox::new(IVec3::new(-3, 2, 5), IVec3::new(4, 9, 11));
        let g = noise_grid(bounds, 7);
        for (lo, hi) in [(2, 9), (4, 7), (-1, 14), (8, 20)] {
            let region = VoxelBox::new(IVec3::new(-3, lo, 5), IVec3::new(4, hi, 11));
            let mut buf = Vec::new();
            g.read_region(region, &mut buf).unwrap();
            let expected: Vec<Voxel> = region.iter().map(|p| g.get(p)).collect();
            assert_eq!(buf, expected, "y {lo}..{hi}");
        }
    }

    proptest! {
        /// Every region read equals a voxel-by-voxel `get`, and the hint never lies.
        #[test]
        fn region_read_equals_per_voxel_get(
            gmin in prop::array::uniform3(-5i32..5),
            gsize in prop::array::uniform3(1i32..7),
            rmin in prop::array::uniform3(-9i32..9),
            rsize in prop::array::uniform3(0i32..9),
            seed in any::<u32>(),
        ) {
            let g = noise_grid(VoxelBox::from_min_size(IVec3::from(gmin), IVec3::from(gsize)), seed);
            let region = VoxelBox::from_min_size(IVec3::from(rmin), IVec3::from(rsize));
            let mut buf = Vec::new();
            g.read_region(region, &mut buf).unwrap();
            let expected: Vec<Voxel> = region.iter().map(|p| g.get(p)).collect();
            prop_assert_eq!(&buf, &expected);
            if let RegionHint::Uniform(v) = g.region_hint(region) {
                prop_assert!(expected.iter().all(|e| *e == v));
            }
        }
    }
}
