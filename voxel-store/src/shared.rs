//! A store shared between reader threads and one writer.

use glam::IVec3;
use parking_lot::{Mutex, RwLock, RwLockReadGuard};
use voxel_core::{PhaseTable, RegionHint, Voxel, VoxelBox, VoxelSource};

use crate::{Brush, EditReport, StoreError, VoxelStore};

/// A [`VoxelStore`] that many threads read (rayon workers meshing chunks) while one thread edits.
///
/// Chunks are reference-counted and copied on write: [`SharedStore::edit`] applies its closure to a
/// private version of the store (cloning it copies the chunk map's pointers, not voxels; the chunks
/// an edit touches are copied when first written), then swaps it in under a write lock held only
/// for the swap. So:
///
/// - readers never wait for an edit to compute, only for a pointer swap;
/// - a reader sees every chunk of an edit before it, or none (never half an edit);
/// - writers are serialized by a mutex, in call order.
///
/// The alternative, holding the write lock while the edit runs, blocks every reader for the edit's
/// whole duration; the copy-on-write form costs one chunk-map clone per edit instead (the
/// `store/shared-edit` bench measures it beside the plain edit).
///
/// The palette is fixed once shared (add materials first): an edit gets a [`SharedEdit`], which
/// offers the edits but not the palette, so the phase table readers use never changes.
///
/// ```
/// use glam::{IVec3, Vec3};
/// use voxel_core::VoxelSource;
/// use voxel_store::{Brush, SharedStore, generate};
///
/// let shared = SharedStore::new(generate::sphere(Vec3::ZERO, 6.0).unwrap());
/// std::thread::scope(|s| {
///     s.spawn(|| {
///         let mut buf = Vec::new();
///         shared.read_region(voxel_core::VoxelBox::new(IVec3::splat(-8), IVec3::splat(8)), &mut buf).unwrap();
///     });
///     shared.edit(|w| w.subtract(&Brush::Sphere { center: Vec3::ZERO, radius: 3.0 })).unwrap();
/// });
/// assert!(!shared.read().get(IVec3::ZERO).is_inside());
/// ```
#[derive(Debug, Default)]
pub struct SharedStore {
    current: RwLock<VoxelStore>,
    writer: Mutex<()>,
    phases: PhaseTable,
}

impl SharedStore {
    /// Shares `store`.
    pub fn new(store: VoxelStore) -> Self {
        let phases = store.palette().phases().clone();
        Self { current: RwLock::new(store), writer: Mutex::new(()), phases }
    }

    /// Read access to the current version. Hold it briefly: the next edit's swap waits for it.
    pub fn read(&self) -> RwLockReadGuard<'_, VoxelStore> {
        self.current.read()
    }

    /// A copy of the current version that later edits do not change (cheap: chunks are shared).
    pub fn snapshot(&self) -> VoxelStore {
        self.current.read().clone()
    }

    /// Runs `edit` on a private version of the store and publishes it atomically, with everything
    /// the closure did. A failed store edit inside changes nothing, as on a plain store.
    pub fn edit<R>(&self, edit: impl FnOnce(&mut SharedEdit<'_>) -> R) -> R {
        let _one_writer = self.writer.lock();
        let mut next = self.current.read().clone();
        let result = edit(&mut SharedEdit(&mut next));
        *self.current.write() = next;
        result
    }

    /// The store, unshared.
    pub fn into_inner(self) -> VoxelStore {
        self.current.into_inner()
    }
}

impl VoxelSource for SharedStore {
    fn fill_region(&self, region: VoxelBox, out: &mut [Voxel]) {
        self.current.read().fill_region(region, out);
    }

    fn region_hint(&self, region: VoxelBox) -> RegionHint {
        self.current.read().region_hint(region)
    }

    /// The palette's phases, fixed when the store was shared.
    fn phase_table(&self) -> &PhaseTable {
        &self.phases
    }

    fn bounds(&self) -> Option<VoxelBox> {
        self.current.read().bounds()
    }
}

/// The edits a [`SharedStore::edit`] closure may make: those of [`VoxelStore`], without palette
/// changes. Reads go through `Deref`.
#[derive(Debug)]
pub struct SharedEdit<'a>(&'a mut VoxelStore);

impl SharedEdit<'_> {
    /// [`VoxelStore::set`].
    pub fn set(&mut self, p: IVec3, voxel: Voxel) -> Result<EditReport, StoreError> {
        self.0.set(p, voxel)
    }
    /// [`VoxelStore::fill_box`].
    pub fn fill_box(&mut self, region: VoxelBox, voxel: Voxel) -> Result<EditReport, StoreError> {
        self.0.fill_box(region, voxel)
    }
    /// [`VoxelStore::add`].
    pub fn add(&mut self, brush: &Brush, material: u8) -> Result<EditReport, StoreError> {
        self.0.add(brush, material)
    }
    /// [`VoxelStore::subtract`].
    pub fn subtract(&mut self, brush: &Brush) -> Result<EditReport, StoreError> {
        self.0.subtract(brush)
    }
    /// [`VoxelStore::paint`].
    pub fn paint(&mut self, brush: &Brush, material: u8) -> Result<EditReport, StoreError> {
        self.0.paint(brush, material)
    }
    /// [`VoxelStore::compact`].
    pub fn compact(&mut self) {
        self.0.compact();
    }
}

impl core::ops::Deref for SharedEdit<'_> {
    type Target = VoxelStore;
    fn deref(&self) -> &VoxelStore {
        self.0
    }
}
