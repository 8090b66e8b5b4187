//! The two read traits that cross crate lines: voxels by region, triangles by index.

use glam::Vec3;

use crate::{Error, PhaseTable, Voxel, VoxelBox};

/// What a source knows about a region without reading it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegionHint {
    /// Nothing known: read the region.
    Unknown,
    /// Every voxel of the region equals this one. A source must never answer this unless it is
    /// true; consumers skip the read.
    Uniform(Voxel),
}

/// Read access to voxels by region.
///
/// One method is required: [`VoxelSource::fill_region`], which copies the voxels of a box into a
/// dense buffer in the workspace's axis order (see [`VoxelBox`]). Voxels outside the source's world
/// read as [`Voxel::EMPTY`]. The other methods have defaults that are always correct.
///
/// Consumers call [`VoxelSource::read_region`] (checked, resizes a reusable buffer), never one voxel
/// at a time in a hot loop. They are generic over the trait, so calls inline.
///
/// ```
/// use glam::IVec3;
/// use voxel_core::{Voxel, VoxelBox, VoxelSource};
///
/// /// A world that is solid below y = 0.
/// struct Ground;
///
/// impl VoxelSource for Ground {
///     fn fill_region(&self, region: VoxelBox, out: &mut [Voxel]) {
///         for (p, v) in region.iter().zip(out.iter_mut()) {
///             *v = if p.y < 0 { Voxel::new(-50, 1) } else { Voxel::EMPTY };
///         }
///     }
/// }
///
/// let mut buf = Vec::new();
/// let region = VoxelBox::new(IVec3::new(0, -1, 0), IVec3::new(2, 1, 1));
/// Ground.read_region(region, &mut buf).unwrap();
/// assert_eq!(buf, [Voxel::new(-50, 1), Voxel::new(-50, 1), Voxel::EMPTY, Voxel::EMPTY]);
/// ```
pub trait VoxelSource {
    /// Writes the voxels of `region` into `out`, in the workspace's axis order (`x` fastest, then
    /// `z`, then `y`), with [`Voxel::EMPTY`] for voxels outside the world.
    ///
    /// Callers pass a non-empty `region` and `out.len() == region.volume()`; the checked entry point
    /// [`VoxelSource::read_region`] guarantees both. Implementations should copy whole rows (or
    /// larger runs), not voxel by voxel.
    fn fill_region(&self, region: VoxelBox, out: &mut [Voxel]);

    /// A cheap hint about `region`, answered from metadata without reading voxels.
    ///
    /// The default, [`RegionHint::Unknown`], is always correct. A source that answers
    /// [`RegionHint::Uniform`] promises that a read of the region gives that voxel everywhere.
    #[inline]
    fn region_hint(&self, region: VoxelBox) -> RegionHint {
        let _ = region;
        RegionHint::Unknown
    }

    /// The phase of each material this source uses. Defaults to [`PhaseTable::DEFAULT`] (material 0
    /// empty, all others solid).
    #[inline]
    fn phase_table(&self) -> &PhaseTable {
        &PhaseTable::DEFAULT
    }

    /// A box containing every voxel that is not [`Voxel::EMPTY`], if the source knows one. `None`
    /// (the default) means unknown or unbounded.
    #[inline]
    fn bounds(&self) -> Option<VoxelBox> {
        None
    }

    /// Reads `region` into `out`, resizing it to the region's volume (its capacity is kept, so a
    /// reused buffer stops allocating after warm-up).
    ///
    /// An empty region gives an empty buffer. A region larger than
    /// [`MAX_REGION_VOLUME`](crate::MAX_REGION_VOLUME) gives [`Error::RegionTooLarge`] and leaves
    /// `out` untouched. When the hint says the region is uniform the buffer is filled without calling
    /// [`VoxelSource::fill_region`].
    fn read_region(&self, region: VoxelBox, out: &mut Vec<Voxel>) -> Result<(), Error> {
        let len = region.checked_len()?;
        if len == 0 {
            out.clear();
            return Ok(());
        }
        match self.region_hint(region) {
            RegionHint::Uniform(v) => {
                out.clear();
                out.resize(len, v);
            }
            RegionHint::Unknown => {
                // `fill_region` writes every voxel, so a buffer reused at the same size is not
                // cleared first: that fill cost as much as the read itself (store/region-read).
                out.resize(len, Voxel::EMPTY);
                self.fill_region(region, out);
            }
        }
        Ok(())
    }
}

/// Forwarding impls, so a consumer generic over `S: VoxelSource` takes `&world`, `Box<World>` or
/// `Arc<World>` alike.
macro_rules! forward_voxel_source {
    ($($ptr:ty),*) => {$(
        impl<T: VoxelSource + ?Sized> VoxelSource for $ptr {
            #[inline]
            fn fill_region(&self, region: VoxelBox, out: &mut [Voxel]) {
                (**self).fill_region(region, out);
            }
            #[inline]
            fn region_hint(&self, region: VoxelBox) -> RegionHint {
                (**self).region_hint(region)
            }
            #[inline]
            fn phase_table(&self) -> &PhaseTable {
                (**self).phase_table()
            }
            #[inline]
            fn bounds(&self) -> Option<VoxelBox> {
                (**self).bounds()
            }
        }
    )*};
}

forward_voxel_source!(&T, &mut T, Box<T>, std::sync::Arc<T>);

/// Indexed triangles: vertex positions, triangles as three vertex indices, a material per triangle.
///
/// Neighbouring triangles of one mesh share vertex indices; contact generation relies on it to tell
/// an internal edge from a boundary. Counts fit in `u32`.
///
/// Callers pass indices below [`TriangleSource::triangle_count`] and
/// [`TriangleSource::vertex_count`]; implementations may panic otherwise, as slice indexing does.
/// Consumers check once, when they take a source in, that every triangle's indices are below
/// [`TriangleSource::vertex_count`] ([`validate_triangles`] does it).
///
/// ```
/// use glam::Vec3;
/// use voxel_core::{IndexedMesh, TriangleSource};
///
/// let mesh = IndexedMesh::new(vec![Vec3::ZERO, Vec3::X, Vec3::Z], vec![[0, 2, 1]]).unwrap();
/// assert_eq!(mesh.triangle_count(), 1);
/// assert_eq!(mesh.triangle_positions(0), [Vec3::ZERO, Vec3::Z, Vec3::X]);
/// ```
pub trait TriangleSource {
    /// Number of vertices.
    fn vertex_count(&self) -> usize;
    /// Position of vertex `index`.
    fn vertex(&self, index: u32) -> Vec3;
    /// Number of triangles.
    fn triangle_count(&self) -> usize;
    /// The three vertex indices of triangle `index`, counter-clockwise seen from the front.
    fn triangle(&self, index: u32) -> [u32; 3];
    /// The material of triangle `index`; 0 by default.
    #[inline]
    fn triangle_material(&self, index: u32) -> u8 {
        let _ = index;
        0
    }
    /// The three corner positions of triangle `index`.
    #[inline]
    fn triangle_positions(&self, index: u32) -> [Vec3; 3] {
        let [a, b, c] = self.triangle(index);
        [self.vertex(a), self.vertex(b), self.vertex(c)]
    }
}

impl<T: TriangleSource + ?Sized> TriangleSource for &T {
    #[inline]
    fn vertex_count(&self) -> usize {
        (**self).vertex_count()
    }
    #[inline]
    fn vertex(&self, index: u32) -> Vec3 {
        (**self).vertex(index)
    }
    #[inline]
    fn triangle_count(&self) -> usize {
        (**self).triangle_count()
    }
    #[inline]
    fn triangle(&self, index: u32) -> [u32; 3] {
        (**self).triangle(index)
    }
    #[inline]
    fn triangle_material(&self, index: u32) -> u8 {
        (**self).triangle_material(index)
    }
}

/// Checks that every triangle of `source` names existing vertices and that the counts fit in `u32`.
///
/// Consumers that take an arbitrary [`TriangleSource`] call this once at the entry, so their inner
/// loops can trust the indices.
pub fn validate_triangles<T: TriangleSource + ?Sized>(source: &T) -> Result<(), Error> {
    let vertex_count = source.vertex_count();
    let triangle_count = source.triangle_count();
    if u32::try_from(vertex_count).is_err() || u32::try_from(triangle_count).is_err() {
        return Err(Error::MeshTooLarge { vertex_count, triangle_count });
    }
    for t in 0..triangle_count as u32 {
        for index in source.triangle(t) {
            if index as usize >= vertex_count {
                return Err(Error::IndexOutOfRange { triangle: t as usize, index, vertex_count });
            }
        }
    }
    Ok(())
}
