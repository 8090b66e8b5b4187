//! The terrain collider: a voxel-store world with the broadphase, the narrowphase cache and the ray
//! marcher's occupancy kept current with it (Kapoulkine's "Voxel Terrain: Physics", the whole article).

use std::sync::Arc;

use glam::IVec3;
use voxel_broadphase::{Broadphase, ChunkClass, ChunkHit, PairEvent};
use voxel_core::{Aabb, CoordinateLimit, Ray, VoxelBox, VoxelSource};
use voxel_raymarch::{Cast, Occupancy};
use voxel_store::{Brush, DIRTY_PADDING, EditReport, StoreError, VoxelStore};

use crate::PhysicsError;
use crate::cache::{CacheStats, ChunkShape, PHYSICS_CHUNK_EDGE, ShapeCache};

/// The largest coordinate (in voxels, either sign, on every axis) a collider's world may reach:
/// `voxel-mesh`'s bound less one chunk of margin. Past it `f32` positions lose the fraction
/// Surface Nets vertices need.
pub const MAX_WORLD_COORDINATE: CoordinateLimit = voxel_mesh::MAX_COORDINATE.shrunk(2 * PHYSICS_CHUNK_EDGE as u32);

/// Settings of a [`TerrainCollider`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColliderOptions {
    /// The most bytes the narrowphase cache may hold (meshes, trees and the table): least
    /// recently used chunks are evicted past it. Default 64 MiB, which holds the surface of a
    /// 256 x 96 x 256 world several times over.
    pub cache_bytes: usize,
}

impl Default for ColliderOptions {
    fn default() -> Self {
        Self { cache_bytes: 64 << 20 }
    }
}

/// What an edit changed, and what the collider refreshed because of it.
#[derive(Clone, Debug, PartialEq)]
pub struct EditOutcome {
    /// The store's report: changed voxels and the dirty box (grown by the 1-voxel padding).
    pub report: EditReport,
    /// Broadphase chunks rebuilt.
    pub rebuilt_chunks: usize,
    /// Pairs of tracked objects that appeared or disappeared because the terrain changed.
    pub pair_events: Vec<PairEvent>,
}

/// Voxel terrain physics over a [`VoxelStore`]: the article's bit broadphase, a lazily built and
/// bounded narrowphase (one Surface Nets mesh and kD tree per 8^3 chunk), ray casts on the
/// smooth surface, ray marching on the blocky view, contacts and detached islands.
///
/// Queries take `&self` and run from many threads at once (the cache fills behind a lock);
/// edits take `&mut self`, so no query ever sees half an edit, and refresh everything the edit's
/// dirty box touches before returning. Every answer depends on the voxels alone, never on what the
/// cache holds or on the thread count.
///
/// ```
/// use glam::{IVec3, Vec3};
/// use voxel_core::{Ray, VoxelBox};
/// use voxel_physics::{Brush, ColliderOptions, TerrainCollider};
/// use voxel_store::generate;
///
/// let world = VoxelBox::new(IVec3::ZERO, IVec3::splat(32));
/// let store = generate::cuboid(Vec3::new(16.0, 4.0, 16.0), Vec3::new(16.0, 4.0, 16.0))?;
/// let mut collider = TerrainCollider::new(store, world, ColliderOptions::default())?;
///
/// // The slab's top is at y = 8.
/// let down = Ray::new(Vec3::new(10.3, 20.0, 12.7), Vec3::NEG_Y);
/// let hit = collider.raycast(&down, 100.0).unwrap();
/// assert!((hit.point.y - 8.0).abs() < 0.05 && hit.normal.y > 0.99);
///
/// // Dig a pit: the next ray goes deeper.
/// collider.subtract(&Brush::Sphere { center: Vec3::new(10.0, 8.0, 12.0), radius: 3.0 })?;
/// assert!(collider.raycast(&down, 100.0).unwrap().point.y < 7.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct TerrainCollider {
    pub(crate) store: VoxelStore,
    pub(crate) world: VoxelBox,
    pub(crate) broadphase: Broadphase,
    pub(crate) occupancy: Occupancy,
    pub(crate) cache: ShapeCache,
    options: ColliderOptions,
}

impl TerrainCollider {
    /// A collider over `store`, answering for the voxels of `world` (and whatever later edits add
    /// next to it: the world box grows to hold every changed voxel; voxels outside `world` that no
    /// edit changed are not read). Builds the broadphase and the ray marcher's occupancy now;
    /// chunk meshes are built when first needed.
    ///
    /// Empty space costs (almost) nothing: only the part of `world` inside the store's
    /// [`bounds`](voxel_core::VoxelSource::bounds) is visited, and what is kept follows the chunks that hold
    /// solid or water: the broadphase's 64 or 128 bytes per 8^3 chunk with some plus 4 bytes per
    /// 8^3 chunk of that part, the occupancy's 4.4 KiB per 32^3 chunk with a solid voxel. An empty
    /// 2048 x 256 x 2048 world keeps about 19 KB (`tests/empty_space.rs`).
    ///
    /// # Errors
    ///
    /// [`PhysicsError::InvalidWorld`] for an empty box or one past [`MAX_WORLD_COORDINATE`];
    /// [`PhysicsError::InvalidParameter`] for a cache bound of 0;
    /// [`PhysicsError::Broadphase`] with [`TooLarge`](voxel_broadphase::BroadphaseError::TooLarge)
    /// when the part of `world` inside the store's bounds spans more than 2^22 broadphase chunks
    /// (2^31 voxels: a store with voxels all over 2048 x 512 x 2048 does); nothing is built then.
    pub fn new(store: VoxelStore, world: VoxelBox, options: ColliderOptions) -> Result<Self, PhysicsError> {
        check_world(world)?;
        if options.cache_bytes == 0 {
            return Err(PhysicsError::InvalidParameter("cache_bytes must be above 0"));
        }
        let broadphase = Broadphase::build(&store, world)?;
        let occupancy = Occupancy::build(&store, world)?;
        Ok(Self { store, world, broadphase, occupancy, cache: ShapeCache::new(options.cache_bytes), options })
    }

    /// A collider over every voxel `store` holds (its bounds).
    ///
    /// # Errors
    ///
    /// As [`TerrainCollider::new`]; an empty store has no world ([`PhysicsError::InvalidWorld`]).
    pub fn from_store(store: VoxelStore, options: ColliderOptions) -> Result<Self, PhysicsError> {
        let world = store.bounds().unwrap_or(VoxelBox::EMPTY);
        Self::new(store, world, options)
    }

    /// The voxels.
    pub fn store(&self) -> &VoxelStore {
        &self.store
    }

    /// The store, giving up the collider.
    pub fn into_store(self) -> VoxelStore {
        self.store
    }

    /// The box of voxels the collider answers for.
    pub fn world(&self) -> VoxelBox {
        self.world
    }

    /// The options it was made with.
    pub fn options(&self) -> ColliderOptions {
        self.options
    }

    /// The bit broadphase (read only: objects go through [`TerrainCollider::insert_object`] and
    /// friends, terrain changes through the edits).
    pub fn broadphase(&self) -> &Broadphase {
        &self.broadphase
    }

    /// The ray marcher's occupancy bits (the blocky view).
    pub fn occupancy(&self) -> &Occupancy {
        &self.occupancy
    }

    /// What the narrowphase cache holds and did.
    pub fn cache_stats(&self) -> CacheStats {
        self.cache.stats()
    }

    /// Heap bytes the collider holds: the store, the broadphase, the occupancy bits and the
    /// narrowphase cache (tracked objects and scratch aside). The cache's share changes as queries
    /// build chunks and its bound evicts them.
    pub fn heap_bytes(&self) -> usize {
        self.store.heap_bytes() + self.broadphase.heap_bytes() + self.occupancy.heap_bytes() + self.cache.stats().bytes
    }

    /// True when chunk `key`'s shape is in the cache (looking does not count as a use).
    pub fn is_cached(&self, key: IVec3) -> bool {
        self.cache.contains(key)
    }

    /// Drops every cached chunk shape (they are rebuilt on demand).
    pub fn clear_cache(&self) {
        self.cache.clear();
    }

    /// The narrowphase shape of physics chunk `key` (mesh and kD tree), from the cache or built
    /// now. `None` when the broadphase knows the chunk has no surface (empty, or full of solid or
    /// water), without building anything.
    pub fn chunk_shape(&self, key: IVec3) -> Option<Arc<ChunkShape>> {
        if !self.may_have_surface(key) {
            return None;
        }
        Some(self.cache.get_or_build(&self.store, key))
    }

    /// True unless the broadphase proves chunk `key`'s mesh empty: no solid voxel in its 10^3
    /// read (the mesher's padded read), or solid everywhere in it.
    #[inline]
    pub(crate) fn may_have_surface(&self, key: IVec3) -> bool {
        match self.broadphase.chunk_class(key) {
            Some(ChunkClass::Partial) => self.broadphase.chunk_masks(key).is_some_and(|(solid, _)| !solid.is_empty()),
            _ => false,
        }
    }

    // ---- edits -------------------------------------------------------------------------------

    /// Runs `edit` on the store and refreshes everything its report's dirty box touches: the
    /// broadphase chunks (and the pairs of tracked objects), the occupancy bits, the cached chunk
    /// shapes. The closure must return the report of every change it made (merge several with
    /// [`EditReport::merge`]). Changes outside the world box grow it (up to
    /// [`MAX_WORLD_COORDINATE`]); only what the edit changed is read, so an edit far from the world
    /// costs what it touches, not the box between them.
    ///
    /// # Errors
    ///
    /// The closure's own [`StoreError`] (the store then changed only as much as the store's
    /// failed call leaves it: nothing); a dirty box the broadphase refuses, which cannot happen for
    /// boxes inside [`MAX_WORLD_COORDINATE`].
    pub fn edit(
        &mut self,
        edit: impl FnOnce(&mut VoxelStore) -> Result<EditReport, StoreError>,
    ) -> Result<EditOutcome, PhysicsError> {
        let report = edit(&mut self.store)?;
        self.apply(report)
    }

    /// CSG union of `brush` with `material` ([`VoxelStore::add`]), then the refresh of
    /// [`TerrainCollider::edit`]. Brushes reaching past [`MAX_WORLD_COORDINATE`] are refused
    /// before anything changes.
    pub fn add(&mut self, brush: &Brush, material: u8) -> Result<EditOutcome, PhysicsError> {
        self.check_brush(brush)?;
        self.edit(|s| s.add(brush, material))
    }

    /// CSG difference ([`VoxelStore::subtract`]), then the refresh.
    pub fn subtract(&mut self, brush: &Brush) -> Result<EditOutcome, PhysicsError> {
        self.check_brush(brush)?;
        self.edit(|s| s.subtract(brush))
    }

    /// Paints `material` inside `brush` ([`VoxelStore::paint`]), then the refresh.
    pub fn paint(&mut self, brush: &Brush, material: u8) -> Result<EditOutcome, PhysicsError> {
        self.check_brush(brush)?;
        self.edit(|s| s.paint(brush, material))
    }

    /// Sets every voxel of `region` ([`VoxelStore::fill_box`]), then the refresh.
    pub fn fill_box(&mut self, region: VoxelBox, voxel: voxel_core::Voxel) -> Result<EditOutcome, PhysicsError> {
        if !region.is_empty() {
            check_world(region)?;
        }
        self.edit(|s| s.fill_box(region, voxel))
    }

    /// Packs the chunks edits left dense ([`VoxelStore::compact`]); call it when a burst of edits
    /// is over. Changes no voxel, so nothing is refreshed.
    pub fn compact(&mut self) {
        self.store.compact();
    }

    /// Refreshes the derived data for an edit already made to the store.
    pub(crate) fn apply(&mut self, report: EditReport) -> Result<EditOutcome, PhysicsError> {
        let mut outcome = EditOutcome { report, rebuilt_chunks: 0, pair_events: Vec::new() };
        if report.dirty.is_empty() {
            return Ok(outcome);
        }
        // The changed voxels are the dirty box less its padding; the world grows to hold them,
        // clamped to the range the mesher can place vertices in.
        let changed = report.dirty.grow(-DIRTY_PADDING);
        let limit = VoxelBox::new(IVec3::splat(-MAX_WORLD_COORDINATE.get()), IVec3::splat(MAX_WORLD_COORDINATE.get()));
        let grown = self.world.union(&changed.intersection(&limit));
        let dirty = report.dirty.intersection(&limit.grow(DIRTY_PADDING));
        outcome.rebuilt_chunks = self.broadphase.refresh(&self.store, dirty, &mut outcome.pair_events)?;
        // Growing the occupancy's box reads nothing (its table is sparse), so an edit far away
        // costs what the edit touches, not the box between it and the world.
        self.occupancy.grow_world(grown)?;
        self.occupancy.refresh(&self.store, dirty)?;
        self.world = grown;
        // A chunk's mesh reads one voxel around it, so it depends on the changed voxels grown by
        // one: exactly the dirty box.
        self.cache.invalidate(dirty.chunk_keys(PHYSICS_CHUNK_EDGE));
        Ok(outcome)
    }

    // ---- objects -----------------------------------------------------------------------------

    /// Starts tracking object `id` with box `aabb` (voxel units); its solid and water pairs with
    /// chunks go to `events`. See [`Broadphase::insert`].
    pub fn insert_object(&mut self, id: u32, aabb: Aabb, events: &mut Vec<PairEvent>) -> Result<(), PhysicsError> {
        Ok(self.broadphase.insert(id, aabb, events)?)
    }

    /// Moves object `id` to `aabb`; pairs gained and lost go to `events`. See
    /// [`Broadphase::update`].
    pub fn update_object(&mut self, id: u32, aabb: Aabb, events: &mut Vec<PairEvent>) -> Result<(), PhysicsError> {
        Ok(self.broadphase.update(id, aabb, events)?)
    }

    /// Moves many objects at once (in parallel; events in the order of `moves`). See
    /// [`Broadphase::update_batch`].
    pub fn update_objects(&mut self, moves: &[(u32, Aabb)], events: &mut Vec<PairEvent>) -> Result<(), PhysicsError> {
        Ok(self.broadphase.update_batch(moves, events)?)
    }

    /// Stops tracking object `id`; its pairs go to `events` as removed.
    pub fn remove_object(&mut self, id: u32, events: &mut Vec<PairEvent>) -> Result<(), PhysicsError> {
        Ok(self.broadphase.remove(id, events)?)
    }

    /// The chunks object `id` touches, with solid and water flags; `None` for an unknown id.
    pub fn object_pairs(&self, id: u32) -> Option<&[ChunkHit]> {
        self.broadphase.pairs(id)
    }

    // ---- ray marching ------------------------------------------------------------------------

    /// The first solid voxel along `ray` within `max_t`, on the blocky view (voxel-raymarch's
    /// [`Occupancy::cast`]): for particles and projectiles, no mesh needed. Invalid rays and NaN
    /// or negative `max_t` hit nothing.
    pub fn raymarch(&self, ray: &Ray, max_t: f32) -> Option<voxel_raymarch::RayHit> {
        self.occupancy.cast(ray, max_t)
    }

    /// Marches a batch of rays in parallel: `out[i]` is `raymarch(casts[i])` (`out` is cleared and
    /// refilled), the same whatever the thread count.
    pub fn raymarch_batch(&self, casts: &[Cast], out: &mut Vec<Option<voxel_raymarch::RayHit>>) {
        self.occupancy.march(casts, out);
    }
}

/// Checks that `world` is non-empty and within [`MAX_WORLD_COORDINATE`].
fn check_world(world: VoxelBox) -> Result<(), PhysicsError> {
    if world.is_empty() {
        return Err(PhysicsError::InvalidWorld("the world box is empty"));
    }
    if !MAX_WORLD_COORDINATE.contains_box(world) {
        return Err(PhysicsError::InvalidWorld("the world box reaches past MAX_WORLD_COORDINATE"));
    }
    Ok(())
}

impl TerrainCollider {
    /// Refuses brushes whose box is not finite or reaches past [`MAX_WORLD_COORDINATE`].
    fn check_brush(&self, brush: &Brush) -> Result<(), PhysicsError> {
        let b = brush.aabb();
        if !(b.min.is_finite() && b.max.is_finite()) {
            return Err(PhysicsError::InvalidParameter("brush parameters must be finite"));
        }
        // Inverted boxes (negative radii) are the store's to refuse, with its own error.
        if !MAX_WORLD_COORDINATE.shrunk(4).contains_aabb(&b) {
            return Err(PhysicsError::InvalidParameter("brush reaches past MAX_WORLD_COORDINATE"));
        }
        Ok(())
    }
}
