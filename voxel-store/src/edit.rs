//! Edits: single voxels, boxes, and CSG brushes on the distance field, each reporting its dirty
//! region.
//!
//! Brushes combine with the stored field as CSG on signed distances (union = min, difference =
//! max), so surfaces stay smooth. Quantization is monotonic, so doing the min/max on the `i8`
//! values gives exactly the quantized result of doing it on floats.

use glam::{IVec3, Vec3};
use voxel_core::{Aabb, CoordinateLimit, MAX_REGION_VOLUME, Voxel, VoxelBox};

use crate::chunk::{CHUNK_EDGE, Chunk, EDGE};
use crate::{DISTANCE_BAND, StoreError, VoxelStore, quantize};

/// How far an edit's changes reach into neighbouring consumers: a changed voxel dirties every
/// voxel within this distance. 1, because a Surface Nets cube reads the voxels at its 8 corners and
/// the broadphase reads a 1-voxel halo around each chunk (seed 004: "any voxels adjacent to boundary
/// voxels will also affect the meshes of adjacent chunks").
pub const DIRTY_PADDING: i32 = 1;

/// Brushes, grown by [`DISTANCE_BAND`](crate::DISTANCE_BAND) (the voxels an edit can change), must
/// lie within this distance of the origin (2^24 voxels): beyond it `f32` no longer holds every
/// integer, and brush shapes would come out wrong (a sphere ending at 2^24 carved rock two voxels
/// beyond it before the band was counted).
pub const MAX_BRUSH_COORDINATE: CoordinateLimit = CoordinateLimit::new(1 << 24);

/// The most chunks one edit may touch (4096, at most 256 MiB of dense chunks): a long thin box
/// passes the voxel-count limit but would unpack a chunk per 32 voxels of its length.
pub const MAX_EDIT_CHUNKS: u64 = 4096;

/// Refuses regions over [`MAX_REGION_VOLUME`] voxels or [`MAX_EDIT_CHUNKS`] chunks.
fn check_region(region: VoxelBox) -> Result<(), StoreError> {
    if region.volume() > MAX_REGION_VOLUME || region.chunk_keys(CHUNK_EDGE).volume() > MAX_EDIT_CHUNKS {
        return Err(StoreError::RegionTooLarge);
    }
    Ok(())
}

/// Largest brush extent accepted, in voxels: larger brushes are refused with a typed error (an
/// edit that large would exceed [`MAX_EDIT_CHUNKS`] anyway).
pub const MAX_BRUSH_EXTENT: f32 = 4096.0;

/// What an edit changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EditReport {
    /// Voxels whose value changed.
    pub changed_voxels: u64,
    /// The box of changed voxels grown by [`DIRTY_PADDING`]: every consumer whose input overlaps it
    /// must refresh. Empty when nothing changed.
    pub dirty: VoxelBox,
}

impl EditReport {
    const NONE: EditReport = EditReport { changed_voxels: 0, dirty: VoxelBox::EMPTY };

    /// Keys of the chunks of edge `edge` the dirty region touches (for physics, `edge` = 8).
    pub fn dirty_chunks(&self, edge: i32) -> VoxelBox {
        self.dirty.chunk_keys(edge)
    }

    /// Both reports' changes together.
    pub fn merge(&self, other: &EditReport) -> EditReport {
        EditReport {
            changed_voxels: self.changed_voxels.saturating_add(other.changed_voxels),
            dirty: self.dirty.union(&other.dirty),
        }
    }
}

/// A shape for CSG edits, in voxel units (voxel `p` is the sample at position `p`).
///
/// A brush without volume (a sphere or capsule of radius 0, a box with a half-extent of 0: see
/// [`Brush::is_zero_size`]) is a no-op for every edit: [`VoxelStore::add`], [`VoxelStore::subtract`]
/// and [`VoxelStore::paint`] check its parameters as for any brush, then change nothing. Taken as a
/// distance field it would still reach the voxels within the distance band of its centre: a
/// radius-0 subtract would empty the voxel under it and pull the 80 around it towards the surface.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Brush {
    /// A ball.
    Sphere {
        /// Centre.
        center: Vec3,
        /// Radius, >= 0.
        radius: f32,
    },
    /// An axis-aligned box.
    Box {
        /// Centre.
        center: Vec3,
        /// Half the edge lengths, each >= 0.
        half_extents: Vec3,
    },
    /// A segment from `a` to `b` swept by a ball.
    Capsule {
        /// One end of the axis.
        a: Vec3,
        /// The other end.
        b: Vec3,
        /// Radius, >= 0.
        radius: f32,
    },
}

impl Brush {
    /// Exact signed distance from `p` to the brush surface, negative inside.
    #[inline]
    pub fn distance(&self, p: Vec3) -> f32 {
        match *self {
            Brush::Sphere { center, radius } => (p - center).length() - radius,
            Brush::Box { center, half_extents } => {
                let q = (p - center).abs() - half_extents;
                q.max(Vec3::ZERO).length() + q.max_element().min(0.0)
            }
            Brush::Capsule { a, b, radius } => {
                let ab = b - a;
                let len2 = ab.length_squared();
                let t = if len2 > 0.0 { ((p - a).dot(ab) / len2).clamp(0.0, 1.0) } else { 0.0 };
                (p - (a + ab * t)).length() - radius
            }
        }
    }

    /// True when the brush has no volume: a sphere or capsule of radius 0, or a box with a
    /// half-extent of 0 on some axis. Edits with such a brush change nothing.
    pub fn is_zero_size(&self) -> bool {
        match *self {
            Brush::Sphere { radius, .. } | Brush::Capsule { radius, .. } => radius == 0.0,
            Brush::Box { half_extents, .. } => half_extents.min_element() == 0.0,
        }
    }

    /// The brush's bounding box.
    pub fn aabb(&self) -> Aabb {
        match *self {
            Brush::Sphere { center, radius } => Aabb::new(center - radius, center + radius),
            Brush::Box { center, half_extents } => Aabb::new(center - half_extents, center + half_extents),
            Brush::Capsule { a, b, radius } => Aabb::new(a.min(b) - radius, a.max(b) + radius),
        }
    }

    /// A conservative interval of `x` outside which the brush's distance at `(x, y, z)` is at least
    /// `margin` (empty when `lo > hi`). Edits skip the voxels outside it: there the quantized brush
    /// distance is clamped and leaves the field unchanged.
    fn x_span(&self, y: f32, z: f32, margin: f32) -> (f32, f32) {
        match *self {
            Brush::Sphere { center, radius } => {
                let r = radius + margin;
                let h2 = r * r - (y - center.y).powi(2) - (z - center.z).powi(2);
                if h2 < 0.0 {
                    return (f32::INFINITY, f32::NEG_INFINITY);
                }
                let h = h2.sqrt();
                (center.x - h, center.x + h)
            }
            Brush::Box { center, half_extents } => {
                let h = half_extents + margin;
                if (y - center.y).abs() > h.y || (z - center.z).abs() > h.z {
                    return (f32::INFINITY, f32::NEG_INFINITY);
                }
                (center.x - h.x, center.x + h.x)
            }
            Brush::Capsule { .. } => {
                let b = self.aabb().grow(margin);
                (b.min.x, b.max.x)
            }
        }
    }

    fn validate(&self) -> Result<(), StoreError> {
        let (finite, sizes_ok) = match *self {
            Brush::Sphere { center, radius } => (center.is_finite() && radius.is_finite(), radius >= 0.0),
            Brush::Box { center, half_extents } => {
                (center.is_finite() && half_extents.is_finite(), half_extents.cmpge(Vec3::ZERO).all())
            }
            Brush::Capsule { a, b, radius } => (a.is_finite() && b.is_finite() && radius.is_finite(), radius >= 0.0),
        };
        if !finite {
            return Err(StoreError::InvalidParameter("brush coordinates must be finite"));
        }
        if !sizes_ok {
            return Err(StoreError::InvalidParameter("brush radius and extents must be >= 0"));
        }
        let b = self.aabb();
        let reach = b.grow(DISTANCE_BAND);
        if !MAX_BRUSH_COORDINATE.contains_aabb(&reach) {
            return Err(StoreError::InvalidParameter("brush lies beyond MAX_BRUSH_COORDINATE"));
        }
        if b.size().max_element() > MAX_BRUSH_EXTENT {
            return Err(StoreError::InvalidParameter("brush larger than MAX_BRUSH_EXTENT"));
        }
        Ok(())
    }

    /// Voxels the brush can change: its box grown by the distance band (beyond it the brush's
    /// quantized distance is clamped and min/max leave the field as it is); none for a brush
    /// without volume.
    fn voxel_box(&self) -> Result<VoxelBox, StoreError> {
        self.validate()?;
        if self.is_zero_size() {
            return Ok(VoxelBox::EMPTY);
        }
        let b = self.aabb().grow(DISTANCE_BAND);
        let region = VoxelBox::new(b.min.ceil().as_ivec3(), b.max.floor().as_ivec3() + IVec3::ONE);
        check_region(region)?;
        Ok(region)
    }
}

impl VoxelStore {
    /// Sets one voxel. Fails with [`StoreError::UnknownMaterial`] for a material not in the palette,
    /// and with [`StoreError::InvalidParameter`] for a coordinate equal to `i32::MAX` (boxes are
    /// half-open, so the store's voxels are `i32::MIN..i32::MAX` on each axis).
    pub fn set(&mut self, p: IVec3, voxel: Voxel) -> Result<EditReport, StoreError> {
        if p.cmpeq(IVec3::splat(i32::MAX)).any() {
            return Err(StoreError::InvalidParameter("voxel coordinates must be below i32::MAX"));
        }
        self.fill_box(VoxelBox::from_min_size(p, IVec3::ONE), voxel)
    }

    /// Sets every voxel of `region` to `voxel`.
    pub fn fill_box(&mut self, region: VoxelBox, voxel: Voxel) -> Result<EditReport, StoreError> {
        self.palette.check(voxel.material)?;
        check_region(region)?;
        Ok(self.edit_rows(region, |_, row| {
            let mut changed = RowChange::default();
            for (i, v) in row.iter_mut().enumerate() {
                if *v != voxel {
                    *v = voxel;
                    changed.mark(i);
                }
            }
            changed
        }))
    }

    /// CSG union: the brush's solid added with `material` (`distance = min(stored, brush)`). Voxels
    /// where the brush's distance is the smaller take its material.
    pub fn add(&mut self, brush: &Brush, material: u8) -> Result<EditReport, StoreError> {
        self.palette.check(material)?;
        let region = brush.voxel_box()?;
        Ok(self.edit_brush(region, brush, |v, q| if q < v.distance { Voxel::new(q, material) } else { v }))
    }

    /// CSG difference: the brush's solid carved out (`distance = max(stored, -brush)`); materials are
    /// kept.
    pub fn subtract(&mut self, brush: &Brush) -> Result<EditReport, StoreError> {
        let region = brush.voxel_box()?;
        Ok(self.edit_brush(region, brush, |v, q| {
            let carved = q.saturating_neg();
            if carved > v.distance { Voxel::new(carved, v.material) } else { v }
        }))
    }

    /// Paints `material` on every voxel inside the brush; distances are kept.
    pub fn paint(&mut self, brush: &Brush, material: u8) -> Result<EditReport, StoreError> {
        self.palette.check(material)?;
        let region = brush.voxel_box()?;
        Ok(self.edit_brush(region, brush, |v, q| if q < 0 { Voxel::new(v.distance, material) } else { v }))
    }

    /// Runs `combine(stored, quantized brush distance)` over the brush's region. The brush kind is
    /// matched once, so each per-voxel loop is specialized (a `match` per voxel cost a tenth).
    fn edit_brush(&mut self, region: VoxelBox, brush: &Brush, combine: impl Fn(Voxel, i8) -> Voxel) -> EditReport {
        match *brush {
            Brush::Sphere { center, radius } => {
                self.edit_field(region, brush, combine, |p| (p - center).length() - radius)
            }
            Brush::Box { .. } | Brush::Capsule { .. } => {
                let brush = *brush;
                self.edit_field(region, &brush, combine, |p| brush.distance(p))
            }
        }
    }

    fn edit_field(
        &mut self,
        region: VoxelBox,
        brush: &Brush,
        combine: impl Fn(Voxel, i8) -> Voxel,
        distance: impl Fn(Vec3) -> f32,
    ) -> EditReport {
        self.edit_rows(region, |start, row| {
            let mut changed = RowChange::default();
            let (lo, hi) = brush.x_span(start.y as f32, start.z as f32, DISTANCE_BAND);
            // Voxels of the row within the span, by index; the 0.5 margin keeps rounding out of it.
            let first = (lo - 0.5 - start.x as f32).ceil().max(0.0) as usize;
            let last = ((hi + 0.5 - start.x as f32).floor() + 1.0).clamp(0.0, row.len() as f32) as usize;
            let mut p = start.as_vec3() + Vec3::X * first as f32;
            for (i, v) in row.iter_mut().enumerate().take(last).skip(first) {
                let new = combine(*v, quantize(distance(p)));
                if new != *v {
                    *v = new;
                    changed.mark(i);
                }
                p.x += 1.0;
            }
            changed
        })
    }

    /// The edit driver: visits `region` chunk by chunk and row by row. `f(first voxel, row)` edits
    /// a row in place and says which voxels changed. Rows of missing or non-dense chunks are edited
    /// in a scratch row first, so a chunk is created or unpacked only when something changes.
    fn edit_rows(&mut self, region: VoxelBox, mut f: impl FnMut(IVec3, &mut [Voxel]) -> RowChange) -> EditReport {
        if region.is_empty() {
            return EditReport::NONE;
        }
        let mut changes = Changes { count: 0, lo: IVec3::MAX, hi: IVec3::MIN };
        let mut scratch = [Voxel::EMPTY; EDGE];
        let keys = region.chunk_keys(CHUNK_EDGE);
        for key in keys.iter() {
            let inside = region.intersection(&VoxelBox::chunk(key, CHUNK_EDGE));
            if inside.is_empty() {
                continue;
            }
            let len = (inside.max.x - inside.min.x) as usize;
            let x0 = (inside.min.x & (CHUNK_EDGE - 1)) as usize;
            // Rows of a non-dense (or missing) chunk are edited in a scratch row, read through a
            // shared handle; the chunk is made dense (once) only when a row changes, and the rows
            // after it are edited in place. One map lookup per chunk, not per row.
            let size = inside.size();
            let (nz, rows) = (size.z as usize, (size.y * size.z) as usize);
            let row_at = |k: usize| {
                let (y, z) = (inside.min.y + (k / nz) as i32, inside.min.z + (k % nz) as i32);
                let r = (z & (CHUNK_EDGE - 1)) as usize + EDGE * (y & (CHUNK_EDGE - 1)) as usize;
                (IVec3::new(inside.min.x, y, z), r * EDGE + x0..r * EDGE + x0 + len)
            };
            let mut k = 0;
            let mut in_scratch = false;
            let source = self.chunks.get(&key).cloned();
            if !matches!(source.as_deref(), Some(Chunk::Dense(_))) {
                while k < rows {
                    let (start, at) = row_at(k);
                    let row = &mut scratch[..len];
                    match source.as_deref() {
                        Some(c) => c.copy_row(at.start / EDGE, x0, row),
                        None => row.fill(Voxel::EMPTY),
                    }
                    let change = f(start, row);
                    k += 1;
                    if change.count > 0 {
                        changes.record(start, change);
                        in_scratch = true;
                        break;
                    }
                }
                if !in_scratch {
                    continue; // nothing changed in this chunk
                }
            }
            // Drop the extra handle first, or make_mut would copy the chunk.
            drop(source);
            let dense = self.dense_chunk_mut(key);
            if in_scratch {
                // The row that changed first was edited in scratch.
                let (_, at) = row_at(k - 1);
                dense[at].copy_from_slice(&scratch[..len]);
            }
            while k < rows {
                let (start, at) = row_at(k);
                let change = f(start, &mut dense[at]);
                changes.record(start, change);
                k += 1;
            }
        }
        let Changes { count: changed_voxels, lo, hi } = changes;
        if changed_voxels == 0 {
            return EditReport::NONE;
        }
        EditReport { changed_voxels, dirty: VoxelBox::new(lo, hi + IVec3::ONE).grow(DIRTY_PADDING) }
    }
}

/// What an edit changed so far.
struct Changes {
    count: u64,
    lo: IVec3,
    hi: IVec3,
}

impl Changes {
    #[inline]
    fn record(&mut self, start: IVec3, change: RowChange) {
        if change.count > 0 {
            self.count += u64::from(change.count);
            self.lo = self.lo.min(start + IVec3::X * change.first as i32);
            self.hi = self.hi.max(start + IVec3::X * change.last as i32);
        }
    }
}

/// Which voxels of a row an edit changed.
#[derive(Clone, Copy, Default)]
struct RowChange {
    count: u32,
    first: u32,
    last: u32,
}

impl RowChange {
    #[inline]
    fn mark(&mut self, i: usize) {
        if self.count == 0 {
            self.first = i as u32;
        }
        self.last = i as u32;
        self.count += 1;
    }
}
