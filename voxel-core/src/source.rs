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
/// Consumers read through [`read_exact`] (which calls [`VoxelSource::read_region`], resizes a
/// reusable buffer and checks its length), never one voxel at a time in a hot loop. They are
/// generic over the trait, so calls inline.
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
    ///
    /// A source may override this (to copy from its own layout, or to refuse a read with an
    /// error); an override must leave exactly `region.volume()` voxels in `out`. Consumers do not
    /// trust that: they read through [`read_exact`], which turns a buffer of any other length
    /// into [`Error::LengthMismatch`] instead of a panic or a wrong read.
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
            fn read_region(&self, region: VoxelBox, out: &mut Vec<Voxel>) -> Result<(), Error> {
                (**self).read_region(region, out)
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

/// Reads `region` from `source` into `out` with [`VoxelSource::read_region`], then checks that
/// `out` holds exactly the region's volume: the entry point for code that takes any
/// [`VoxelSource`] and indexes the buffer by position.
///
/// Fails with the source's error, with [`Error::RegionTooLarge`] (before asking the source) for a
/// region over [`MAX_REGION_VOLUME`](crate::MAX_REGION_VOLUME), or with
/// [`Error::LengthMismatch`] when an overridden `read_region` left another number of voxels; `out`
/// is empty after a length mismatch (its capacity is kept). The check is one comparison: no
/// allocation beyond the read's own.
///
/// ```
/// use glam::IVec3;
/// use voxel_core::{Error, Voxel, VoxelBox, VoxelSource, read_exact};
///
/// /// A source whose own read forgets the last voxel.
/// struct Short;
///
/// impl VoxelSource for Short {
///     fn fill_region(&self, _: VoxelBox, out: &mut [Voxel]) {
///         out.fill(Voxel::EMPTY);
///     }
///     fn read_region(&self, region: VoxelBox, out: &mut Vec<Voxel>) -> Result<(), Error> {
///         out.clear();
///         out.resize(region.volume() as usize - 1, Voxel::EMPTY);
///         Ok(())
///     }
/// }
///
/// let mut buf = Vec::new();
/// let region = VoxelBox::new(IVec3::ZERO, IVec3::splat(2));
/// assert_eq!(read_exact(&Short, region, &mut buf), Err(Error::LengthMismatch { expected: 8, actual: 7 }));
/// assert!(buf.is_empty());
/// ```
#[inline]
pub fn read_exact<S: VoxelSource + ?Sized>(source: &S, region: VoxelBox, out: &mut Vec<Voxel>) -> Result<(), Error> {
    let expected = region.checked_len()?;
    source.read_region(region, out)?;
    if out.len() != expected {
        let actual = out.len();
        out.clear();
        return Err(Error::LengthMismatch { expected, actual });
    }
    Ok(())
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use glam::IVec3;
    use proptest::prelude::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// The voxel at `p`, distinct enough that a shifted read shows.
    fn voxel_at(p: IVec3) -> Voxel {
        let h = (p.x as u32).wrapping_mul(0x9E37_79B1) ^ (p.y as u32).wrapping_mul(0x85EB_CA77) ^ (p.z as u32);
        Voxel::new((h & 0xff) as u8 as i8, (h >> 8) as u8)
    }

    /// A source whose own `read_region` leaves `region.volume() + delta` voxels, counting calls.
    struct Off {
        delta: isize,
        calls: AtomicUsize,
    }

    impl VoxelSource for Off {
        fn fill_region(&self, region: VoxelBox, out: &mut [Voxel]) {
            for (p, v) in region.iter().zip(out.iter_mut()) {
                *v = voxel_at(p);
            }
        }
        fn read_region(&self, region: VoxelBox, out: &mut Vec<Voxel>) -> Result<(), Error> {
            self.calls.fetch_add(1, Ordering::Relaxed);
            out.clear();
            out.extend(region.iter().map(voxel_at));
            let len = (out.len() as isize + self.delta).max(0) as usize;
            out.resize(len, Voxel::new(-1, 7));
            Ok(())
        }
    }

    fn off(delta: isize) -> Off {
        Off { delta, calls: AtomicUsize::new(0) }
    }

    #[test]
    fn a_wrong_length_is_a_length_mismatch_through_every_pointer() {
        let region = VoxelBox::new(IVec3::new(-3, 0, 2), IVec3::new(2, 4, 5));
        let volume = 60;
        for delta in [-60isize, -59, -1, 1, 100] {
            let want = Err(Error::LengthMismatch { expected: volume, actual: (volume as isize + delta) as usize });
            let mut buf = vec![Voxel::new(3, 3); 5];
            let source = off(delta);
            assert_eq!(read_exact(&source, region, &mut buf), want, "delta {delta}");
            assert!(buf.is_empty(), "delta {delta}: a mismatched buffer is cleared");
            // Forwarding impls reach the override, so the check sees its length too.
            assert_eq!(read_exact(&&source, region, &mut buf), want, "&&, delta {delta}");
            let boxed: Box<dyn VoxelSource> = Box::new(off(delta));
            assert_eq!(read_exact(&boxed, region, &mut buf), want, "Box, delta {delta}");
            assert_eq!(read_exact(&Arc::new(off(delta)), region, &mut buf), want, "Arc, delta {delta}");
            assert_eq!(source.calls.load(Ordering::Relaxed), 2);
        }
    }

    #[test]
    fn a_region_too_large_is_refused_before_the_source_is_asked() {
        let source = off(0);
        let mut buf = vec![Voxel::new(3, 3); 5];
        let huge = VoxelBox::new(IVec3::splat(-100_000), IVec3::splat(100_000));
        assert!(matches!(read_exact(&source, huge, &mut buf), Err(Error::RegionTooLarge { .. })));
        assert_eq!(source.calls.load(Ordering::Relaxed), 0);
        assert_eq!(buf.len(), 5, "a refused read leaves the buffer as it was");
    }

    #[test]
    fn a_source_error_passes_through() {
        struct Refuses;
        impl VoxelSource for Refuses {
            fn fill_region(&self, _: VoxelBox, out: &mut [Voxel]) {
                out.fill(Voxel::EMPTY);
            }
            fn read_region(&self, _: VoxelBox, _: &mut Vec<Voxel>) -> Result<(), Error> {
                Err(Error::NonFinite)
            }
        }
        let mut buf = Vec::new();
        assert_eq!(read_exact(&Refuses, VoxelBox::new(IVec3::ZERO, IVec3::ONE), &mut buf), Err(Error::NonFinite));
    }

    proptest! {
        /// A source that keeps the contract reads the same voxels as through `read_region`, in
        /// the axis order, for any region (empty ones give an empty buffer).
        #[test]
        fn a_correct_read_is_unchanged(min in prop::array::uniform3(-20i32..20),
                                       size in prop::array::uniform3(-2i32..7),
                                       prior in 0usize..300) {
            let min = IVec3::from_array(min);
            let region = VoxelBox::new(min, min + IVec3::from_array(size));
            let mut buf = vec![Voxel::new(9, 9); prior];
            read_exact(&off(0), region, &mut buf).unwrap();
            let want: Vec<Voxel> = region.iter().map(voxel_at).collect();
            prop_assert_eq!(&buf, &want);
            // The trait's default read, through the checked entry, too.
            struct Default;
            impl VoxelSource for Default {
                fn fill_region(&self, region: VoxelBox, out: &mut [Voxel]) {
                    for (p, v) in region.iter().zip(out.iter_mut()) {
                        *v = voxel_at(p);
                    }
                }
            }
            let mut buf = vec![Voxel::new(9, 9); prior];
            read_exact(&Default, region, &mut buf).unwrap();
            prop_assert_eq!(buf, want);
        }
    }
}
