//! Shape casts against the terrain surface: the chunks the swept box touches (the broadphase
//! skips the ones it proves empty), the candidate triangles of all their meshes gathered into one
//! set as for contacts, and voxel-contacts' sweep over it with position keys, so a chunk seam is
//! never hit.
//!
//! A long cast is cut into pieces of at most [`CAST_PIECE`] voxels of travel, each with its own
//! swept box, so a diagonal cast gathers the triangles along its path, not the whole box around
//! it. The pieces run in order and the first hit wins.

use glam::Vec3;
use rayon::prelude::*;
use voxel_contacts::{CastHit, CastOptions, ShapeCaster};
use voxel_core::Aabb;

use crate::contacts::{CandidateTriangle, Gather};
use crate::{PhysicsError, Shape, TerrainCollider};

/// The most travel, in voxels, of one piece of a cast (see the module docs).
pub const CAST_PIECE: f32 = 8.0;

/// Where a cast against the terrain stops, and which triangle of which chunk it touched.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TerrainCastHit {
    /// The sweep's answer; its `triangle` indexes nothing outside the query: use `source`.
    pub hit: CastHit,
    /// The chunk, triangle and material touched.
    pub source: CandidateTriangle,
}

/// One cast of a batch: a shape and its motion.
#[derive(Clone, Copy, Debug)]
pub struct ShapeCast<'a> {
    /// The shape at `t = 0`, in voxel units.
    pub shape: Shape<'a>,
    /// Where it moves: `shape + motion * t`.
    pub motion: Vec3,
}

/// Reusable buffers of shape casts, one per thread.
#[derive(Debug, Default)]
pub struct CastScratch {
    gather: Gather,
    caster: ShapeCaster,
}

impl CastScratch {
    /// Empty buffers; they grow on the first casts and are then reused.
    pub fn new() -> Self {
        Self::default()
    }
}

impl TerrainCollider {
    /// Casts `shape` (in voxel units) along `motion` against the terrain surface: the first pose
    /// `shape + motion * t`, `t` in `[0, options.max_t]`, where the gap to the terrain reaches
    /// `options.skin` with the motion going against the surface there, or `None`. The no-snag
    /// rule and the options are [`ShapeCaster::cast`]'s; keep `options.keys` at its default,
    /// [`FeatureKeys::Positions`](voxel_contacts::FeatureKeys::Positions), or chunk seams snag.
    ///
    /// The answer does not depend on the cache's state or the thread: candidates are gathered in
    /// a fixed chunk order and ties are broken by it.
    ///
    /// ```
    /// use glam::{IVec3, Vec3};
    /// use voxel_physics::voxel_contacts::Capsule;
    /// use voxel_physics::voxel_store::generate::{self, materials};
    /// use voxel_physics::{CastOptions, CastScratch, ColliderOptions, Shape, TerrainCollider, Voxel, VoxelBox, VoxelStore};
    ///
    /// // Flat ground: rock below y = 8 (the surface lies at y = 7.5), over 32 x 16 x 32 voxels.
    /// let world = VoxelBox::new(IVec3::ZERO, IVec3::new(32, 16, 32));
    /// let mut store = VoxelStore::with_palette(generate::palette());
    /// generate::from_fn(&mut store, world, |p| {
    ///     if p.y < 8 { Voxel::new(-64, materials::ROCK) } else { Voxel::new(64, materials::AIR) }
    /// })?;
    /// let collider = TerrainCollider::new(store, world, ColliderOptions::default())?;
    ///
    /// // A character's capsule standing on the ground, moving 20 voxels forward across chunk seams:
    /// // nothing stops it.
    /// let (feet, head) = (Vec3::new(4.0, 7.9, 4.0), Vec3::new(4.0, 9.1, 4.0));
    /// let capsule = Shape::Capsule(Capsule { a: feet, b: head, radius: 0.4 });
    /// let forward = Vec3::new(1.0, 0.0, 0.8);
    /// let options = CastOptions { max_t: 1.0, skin: 0.02, ..CastOptions::default() };
    /// let mut scratch = CastScratch::new();
    /// assert!(collider.cast_shape(&capsule, forward * 20.0, &options, &mut scratch)?.is_none());
    ///
    /// // Falling, it lands a skin above the ground with the ground's normal.
    /// let hit = collider.cast_shape(&capsule, Vec3::new(0.0, -4.0, 0.0), &options, &mut scratch)?;
    /// let hit = hit.expect("it lands");
    /// assert_eq!(hit.hit.t, 0.0); // it already rests within the skin, pressing down
    /// assert!(hit.hit.normal.y > 0.9999);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`PhysicsError::Contacts`] for a bad shape, motion or options (as [`ShapeCaster::cast`]);
    /// [`PhysicsError::Broadphase`] for a shape too large for one broadphase query.
    pub fn cast_shape(
        &self,
        shape: &Shape<'_>,
        motion: Vec3,
        options: &CastOptions,
        scratch: &mut CastScratch,
    ) -> Result<Option<TerrainCastHit>, PhysicsError> {
        // Validates everything (a cast against no triangles still checks its input).
        scratch.caster.cast(shape, motion, &voxel_contacts::Candidates::new(), options)?;
        let base = shape.aabb();
        // Only the part of the path where the shape's box meets the geometry (the world grown by
        // one voxel below, as meshes reach) can hit anything.
        let geometry = Aabb::new((self.world.min - glam::IVec3::ONE).as_vec3(), self.world.max.as_vec3());
        let half = base.size() * 0.5 + options.skin + 1e-3;
        let reach = Aabb::new(geometry.min - half, geometry.max + half);
        let Some((start, end)) = reach.intersect_ray(&voxel_core::Ray::new(base.center(), motion), 0.0, options.max_t)
        else {
            return Ok(None);
        };
        let travel = motion.length() * (end - start);
        let pieces = (travel / CAST_PIECE).ceil().clamp(1.0, 1e6) as u32;
        let step = (end - start) / pieces as f32;
        // Every piece casts from one start: the shape where its path enters `reach` (there it
        // touches nothing, unless that is the cast's own start), so casts from far away keep
        // their precision. A piece started from the shape moved to the piece's start would take
        // what it overlaps there for a start contact and forget the features the motion had
        // passed: a shape leaving the solid through a back face was stopped at a piece boundary,
        // or by an edge behind it. A piece reports hits from its own start on only
        // (`cast_after`): before it, the earlier pieces judged with the triangles around the
        // path there (this piece's set can lack the neighbour that voids an edge touched there),
        // and from it on, every triangle the shape touches, and its neighbours across a touched
        // edge, overlap this piece's box.
        let from = 0.0f32.max(start);
        let base_shape = if from > 0.0 { shape.translated(motion * from) } else { *shape };
        for k in 0..pieces {
            let t0 = if k == 0 { from } else { start + step * k as f32 };
            let t1 = if k + 1 == pieces { end } else { start + step * (k + 1) as f32 };
            let (lo, hi) = (base.min + motion * t0, base.max + motion * t0);
            let swept = Aabb::new(lo, hi).union(&Aabb::new(lo + motion * (t1 - t0), hi + motion * (t1 - t0)));
            let bounds = swept.grow(options.skin + 1e-3);
            self.broadphase.query(&bounds, &mut scratch.gather.hits)?;
            self.gather_candidates(&bounds, &mut scratch.gather);
            let piece = CastOptions { max_t: t1 - from, ..*options };
            let candidates = &scratch.gather.candidates;
            if let Some(mut hit) = scratch.caster.cast_after(&base_shape, motion, candidates, &piece, t0 - from)? {
                let source = scratch.gather.table[hit.triangle as usize];
                hit.t += from;
                return Ok(Some(TerrainCastHit { hit, source }));
            }
        }
        Ok(None)
    }

    /// [`TerrainCollider::cast_shape`] for many casts in parallel (rayon); `out[i]` answers
    /// `casts[i]`, the same answers whatever the thread count.
    pub fn cast_shapes(
        &self,
        casts: &[ShapeCast<'_>],
        options: &CastOptions,
        out: &mut Vec<Result<Option<TerrainCastHit>, PhysicsError>>,
    ) {
        const CASTS_PER_TASK: usize = 64;
        out.clear();
        out.extend(casts.iter().map(|_| Ok(None)));
        out.par_chunks_mut(CASTS_PER_TASK).zip(casts.par_chunks(CASTS_PER_TASK)).for_each_init(
            CastScratch::new,
            |scratch, (out, casts)| {
                for (o, c) in out.iter_mut().zip(casts) {
                    *o = self.cast_shape(&c.shape, c.motion, options, scratch);
                }
            },
        );
    }
}
