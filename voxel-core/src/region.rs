//! Integer boxes of voxel coordinates, and the one axis order every buffer uses.

use glam::IVec3;

use crate::Error;

/// The largest number of voxels one region read may cover: 2^30 (2 GiB of [`Voxel`](crate::Voxel)s).
///
/// Larger regions are refused with [`Error::RegionTooLarge`] before anything is allocated, so a
/// corrupted or hostile box cannot make a consumer allocate without bound.
pub const MAX_REGION_VOLUME: u64 = 1 << 30;

/// A half-open box of voxel coordinates: `min` is included, `max` is excluded.
///
/// A box with `max <= min` on any axis is empty. Dense buffers over a box use **one axis order**,
/// everywhere in the workspace: `x` varies fastest, then `z`, then `y`
/// (`index = x + size.x * (z + size.z * y)`). `y` is up, so a buffer is a stack of horizontal
/// slices; this is the order of `voxel-broadphase`'s bit masks (one `u64` per Y slice, one byte
/// per X row).
///
/// ```text
///   y ^            index of (x, y, z) in a box of size (sx, sy, sz):
///     |  z           x + sx * (z + sz * y)
///     | /
///     |/____> x     rows run along x, a slice is sz rows, the buffer is sy slices
/// ```
///
/// ```
/// use glam::IVec3;
/// use voxel_core::VoxelBox;
///
/// let b = VoxelBox::new(IVec3::new(-2, 0, 0), IVec3::new(2, 3, 5));
/// assert_eq!(b.size(), IVec3::new(4, 3, 5));
/// assert_eq!(b.volume(), 60);
/// assert_eq!(b.index_of(IVec3::new(-2, 0, 0)), Some(0));
/// assert_eq!(b.index_of(IVec3::new(-1, 0, 0)), Some(1));
/// assert_eq!(b.index_of(IVec3::new(-2, 0, 1)), Some(4));
/// assert_eq!(b.index_of(IVec3::new(-2, 1, 0)), Some(20));
/// assert_eq!(b.index_of(IVec3::new(2, 0, 0)), None);
/// ```
/// The default is [`VoxelBox::EMPTY`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct VoxelBox {
    /// Smallest voxel inside the box.
    pub min: IVec3,
    /// One past the largest voxel inside the box on each axis.
    pub max: IVec3,
}

impl VoxelBox {
    /// The empty box at the origin.
    pub const EMPTY: VoxelBox = VoxelBox { min: IVec3::ZERO, max: IVec3::ZERO };

    /// The box from `min` (included) to `max` (excluded).
    #[inline]
    pub const fn new(min: IVec3, max: IVec3) -> Self {
        Self { min, max }
    }

    /// The box of `size` voxels starting at `min`; saturates at the `i32` range instead of
    /// overflowing.
    #[inline]
    pub fn from_min_size(min: IVec3, size: IVec3) -> Self {
        Self { min, max: min.saturating_add(size) }
    }

    /// The cube of edge `edge` whose minimum corner is `key * edge`: the chunk `key` of a world cut
    /// into chunks of that edge. Saturates at the `i32` range.
    #[inline]
    pub fn chunk(key: IVec3, edge: i32) -> Self {
        let min = key.saturating_mul(IVec3::splat(edge));
        Self::from_min_size(min, IVec3::splat(edge))
    }

    /// True when the box holds no voxel.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.max.cmple(self.min).any()
    }

    /// Edge lengths, zero on axes where the box is empty. Computed in `i64`, so a box spanning the
    /// whole `i32` range reports its size without overflow; see [`VoxelBox::size_i64`].
    #[inline]
    pub fn size(&self) -> IVec3 {
        let s = self.size_i64();
        let clamp = |v: i64| v.min(i64::from(i32::MAX)) as i32;
        IVec3::new(clamp(s[0]), clamp(s[1]), clamp(s[2]))
    }

    /// Edge lengths as `i64`, never negative and never overflowing.
    #[inline]
    pub fn size_i64(&self) -> [i64; 3] {
        let d = |lo: i32, hi: i32| (i64::from(hi) - i64::from(lo)).max(0);
        [d(self.min.x, self.max.x), d(self.min.y, self.max.y), d(self.min.z, self.max.z)]
    }

    /// Number of voxels in the box (0 when empty). Up to 2^96 in theory, so this saturates at
    /// `u64::MAX`.
    #[inline]
    pub fn volume(&self) -> u64 {
        let [x, y, z] = self.size_i64();
        (x as u64).saturating_mul(y as u64).saturating_mul(z as u64)
    }

    /// The volume as a buffer length, or [`Error::RegionTooLarge`] past [`MAX_REGION_VOLUME`].
    pub fn checked_len(&self) -> Result<usize, Error> {
        let volume = self.volume();
        if volume > MAX_REGION_VOLUME {
            return Err(Error::RegionTooLarge { volume, limit: MAX_REGION_VOLUME });
        }
        Ok(volume as usize)
    }

    /// True when `p` lies inside the box.
    #[inline]
    pub fn contains(&self, p: IVec3) -> bool {
        p.cmpge(self.min).all() && p.cmplt(self.max).all()
    }

    /// True when every voxel of `other` lies inside `self` (an empty `other` is contained).
    #[inline]
    pub fn contains_box(&self, other: &VoxelBox) -> bool {
        other.is_empty() || (other.min.cmpge(self.min).all() && other.max.cmple(self.max).all())
    }

    /// The voxels both boxes contain; empty when they do not overlap.
    #[inline]
    pub fn intersection(&self, other: &VoxelBox) -> VoxelBox {
        VoxelBox { min: self.min.max(other.min), max: self.max.min(other.max) }
    }

    /// True when the boxes share at least one voxel.
    #[inline]
    pub fn overlaps(&self, other: &VoxelBox) -> bool {
        !self.intersection(other).is_empty()
    }

    /// The smallest box containing both; an empty operand is ignored.
    #[inline]
    pub fn union(&self, other: &VoxelBox) -> VoxelBox {
        if self.is_empty() {
            *other
        } else if other.is_empty() {
            *self
        } else {
            VoxelBox { min: self.min.min(other.min), max: self.max.max(other.max) }
        }
    }

    /// The box grown by `n` voxels on every side (shrunk for negative `n`), saturating at the
    /// `i32` range.
    #[inline]
    pub fn grow(&self, n: i32) -> VoxelBox {
        VoxelBox { min: self.min.saturating_sub(IVec3::splat(n)), max: self.max.saturating_add(IVec3::splat(n)) }
    }

    /// Index of `p` in a dense buffer over this box, in the workspace's axis order, or `None` when
    /// `p` lies outside.
    #[inline]
    pub fn index_of(&self, p: IVec3) -> Option<usize> {
        if !self.contains(p) {
            return None;
        }
        let [sx, _, sz] = self.size_i64();
        let d = [
            i64::from(p.x) - i64::from(self.min.x),
            i64::from(p.y) - i64::from(self.min.y),
            i64::from(p.z) - i64::from(self.min.z),
        ];
        usize::try_from(d[0] + sx * (d[2] + sz * d[1])).ok()
    }

    /// The voxel at `index` of a dense buffer over this box; the inverse of [`VoxelBox::index_of`].
    /// `None` past the end.
    #[inline]
    pub fn point_at(&self, index: usize) -> Option<IVec3> {
        let [sx, _, sz] = self.size_i64();
        if index as u64 >= self.volume() {
            return None;
        }
        let i = index as i64;
        let x = i % sx;
        let z = (i / sx) % sz;
        let y = i / (sx * sz);
        Some(IVec3::new(
            (i64::from(self.min.x) + x) as i32,
            (i64::from(self.min.y) + y) as i32,
            (i64::from(self.min.z) + z) as i32,
        ))
    }

    /// Every voxel of the box, in buffer order.
    pub fn iter(&self) -> impl Iterator<Item = IVec3> + '_ {
        let b = *self;
        let ok = !b.is_empty();
        (b.min.y..if ok { b.max.y } else { b.min.y }).flat_map(move |y| {
            (b.min.z..b.max.z).flat_map(move |z| (b.min.x..b.max.x).map(move |x| IVec3::new(x, y, z)))
        })
    }

    /// Keys of the chunks of edge `edge` that this box touches, as a box of chunk keys.
    /// Uses floor division, so negative coordinates map to negative keys. `edge` must be positive;
    /// a non-positive edge gives the empty box.
    #[inline]
    pub fn chunk_keys(&self, edge: i32) -> VoxelBox {
        if edge <= 0 || self.is_empty() {
            return VoxelBox::EMPTY;
        }
        let e = IVec3::splat(edge);
        let min = self.min.div_euclid(e);
        // max is exclusive: the last voxel is max - 1, whose chunk is included.
        let max = (self.max - IVec3::ONE).div_euclid(e) + IVec3::ONE;
        VoxelBox { min, max }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn axis_order_is_x_then_z_then_y() {
        let b = VoxelBox::new(IVec3::ZERO, IVec3::new(3, 5, 7));
        let mut expected = 0;
        for y in 0..5 {
            for z in 0..7 {
                for x in 0..3 {
                    assert_eq!(b.index_of(IVec3::new(x, y, z)), Some(expected));
                    expected += 1;
                }
            }
        }
        let visited: Vec<IVec3> = b.iter().collect();
        assert_eq!(visited.len(), 105);
        for (i, p) in visited.iter().enumerate() {
            assert_eq!(b.index_of(*p), Some(i));
            assert_eq!(b.point_at(i), Some(*p));
        }
        assert_eq!(b.point_at(105), None);
    }

    #[test]
    fn inverted_and_flat_boxes_are_empty() {
        let inverted = VoxelBox::new(IVec3::splat(4), IVec3::splat(1));
        assert!(inverted.is_empty());
        assert_eq!(inverted.volume(), 0);
        assert_eq!(inverted.size(), IVec3::ZERO);
        assert_eq!(inverted.iter().count(), 0);
        assert_eq!(inverted.index_of(IVec3::splat(2)), None);
        let flat = VoxelBox::new(IVec3::ZERO, IVec3::new(4, 0, 4));
        assert!(flat.is_empty());
        assert_eq!(flat.iter().count(), 0);
    }

    #[test]
    fn extreme_boxes_do_not_overflow() {
        let all = VoxelBox::new(IVec3::splat(i32::MIN), IVec3::splat(i32::MAX));
        assert_eq!(all.size(), IVec3::splat(i32::MAX));
        assert_eq!(all.volume(), u64::MAX);
        assert!(matches!(all.checked_len(), Err(Error::RegionTooLarge { .. })));
        assert_eq!(all.grow(5), all);
        let last = VoxelBox::chunk(IVec3::splat(i32::MAX), 16);
        assert!(last.is_empty(), "a chunk past the i32 range saturates to an empty box");
    }

    #[test]
    fn chunk_keys_floor_negative_coordinates() {
        let b = VoxelBox::new(IVec3::new(-1, 0, 15), IVec3::new(1, 1, 17));
        let keys = b.chunk_keys(16);
        assert_eq!(keys, VoxelBox::new(IVec3::new(-1, 0, 0), IVec3::new(1, 1, 2)));
        assert_eq!(b.chunk_keys(0), VoxelBox::EMPTY);
    }

    proptest! {
        #[test]
        fn chunk_keys_cover_exactly_the_touched_chunks(
            min in prop::array::uniform3(-40i32..40),
            size in prop::array::uniform3(0i32..20),
            edge in 1i32..9,
        ) {
            let b = VoxelBox::from_min_size(IVec3::from(min), IVec3::from(size));
            let keys = b.chunk_keys(edge);
            let mut touched = std::collections::HashSet::new();
            for p in b.iter() {
                touched.insert(p.div_euclid(IVec3::splat(edge)));
            }
            let listed: std::collections::HashSet<IVec3> = keys.iter().collect();
            prop_assert_eq!(touched, listed);
        }

        #[test]
        fn intersection_contains_exactly_the_common_voxels(
            a0 in prop::array::uniform3(-6i32..6), a1 in prop::array::uniform3(-6i32..6),
            b0 in prop::array::uniform3(-6i32..6), b1 in prop::array::uniform3(-6i32..6),
        ) {
            let a = VoxelBox::new(IVec3::from(a0), IVec3::from(a1));
            let b = VoxelBox::new(IVec3::from(b0), IVec3::from(b1));
            let i = a.intersection(&b);
            for p in VoxelBox::new(IVec3::splat(-7), IVec3::splat(7)).iter() {
                prop_assert_eq!(i.contains(p), a.contains(p) && b.contains(p));
                if a.contains(p) || b.contains(p) {
                    prop_assert!(a.union(&b).contains(p));
                }
            }
            prop_assert_eq!(a.overlaps(&b), !i.is_empty());
        }
    }
}
