//! The lazy narrowphase: one Surface Nets mesh and one kD tree per 8^3 chunk, built on first need
//! and kept in a cache with a memory bound, least recently used out (Kapoulkine's
//! "Voxel Terrain: Physics", "Narrowphase: analysis & plan": "we started doing lazy generation
//! of collision objects ... and would keep a cache of the resulting objects so that the memory
//! overhead remained manageable").
//!
//! Hits take the read lock and stamp the entry with an atomic clock, so many threads look chunks
//! up at once; a miss builds outside any lock and takes the write lock only to insert (two threads
//! missing the same chunk both build it, the first insert wins: the same voxels give the same
//! shape, so the loser's copy is equal and simply dropped).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use ahash::AHashMap;
use glam::{IVec3, Vec3};
use parking_lot::{Mutex, RwLock};
use voxel_core::{TriangleSource, VoxelBox, VoxelSource};
use voxel_kdtree::KdTree;
use voxel_mesh::{Mesh, MeshOptions, Mesher};

/// Edge of a physics chunk, in voxels (the article's 8^3 chunks, as the broadphase's).
pub const PHYSICS_CHUNK_EDGE: i32 = 8;

/// The triangles of one chunk, as physics keeps them: positions, `u16` indices (an 8^3 chunk has
/// at most 9^3 vertices) and one material per triangle. About 12.5 bytes per triangle, as the
/// article's mesh.
///
/// Triangles `2q` and `2q + 1` are quad `q` of the Surface Nets mesh (the `voxel-mesh` split), wound
/// counter-clockwise seen from outside the solid; positions are world coordinates.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChunkMesh {
    positions: Vec<Vec3>,
    triangles: Vec<[u16; 3]>,
    materials: Vec<u8>,
}

impl ChunkMesh {
    /// Copies `mesh` into exact-size storage. `None` when a vertex index does not fit `u16` (never
    /// for an 8^3 chunk).
    fn from_mesh(mesh: &Mesh) -> Option<Self> {
        let n = mesh.triangle_count() as u32;
        let mut triangles = Vec::with_capacity(n as usize);
        for t in 0..n {
            let [a, b, c] = mesh.triangle(t);
            triangles.push([u16::try_from(a).ok()?, u16::try_from(b).ok()?, u16::try_from(c).ok()?]);
        }
        Some(Self {
            positions: mesh.positions().to_vec(),
            triangles,
            materials: (0..n).map(|t| mesh.triangle_material(t)).collect(),
        })
    }

    /// Vertex positions.
    pub fn positions(&self) -> &[Vec3] {
        &self.positions
    }

    /// Triangles as vertex indices.
    pub fn triangles(&self) -> &[[u16; 3]] {
        &self.triangles
    }

    /// One material per triangle.
    pub fn materials(&self) -> &[u8] {
        &self.materials
    }

    /// Bytes held on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.positions.capacity() * size_of::<Vec3>() + self.triangles.capacity() * 6 + self.materials.capacity()
    }
}

impl TriangleSource for ChunkMesh {
    #[inline]
    fn vertex_count(&self) -> usize {
        self.positions.len()
    }
    #[inline]
    fn vertex(&self, index: u32) -> Vec3 {
        self.positions[index as usize]
    }
    #[inline]
    fn triangle_count(&self) -> usize {
        self.triangles.len()
    }
    #[inline]
    fn triangle(&self, index: u32) -> [u32; 3] {
        self.triangles[index as usize].map(u32::from)
    }
    #[inline]
    fn triangle_material(&self, index: u32) -> u8 {
        self.materials[index as usize]
    }
}

/// The narrowphase data of one 8^3 chunk: its mesh and the kD tree over it.
///
/// The mesh holds the quads of the grid edges whose lower end lies in the chunk (the `voxel-mesh`
/// seam rule), so its triangles lie in the box from one voxel below the chunk to its upper faces:
/// `[8 k - 1, 8 k + 8]` on each axis.
#[derive(Clone, Debug, PartialEq)]
pub struct ChunkShape {
    key: IVec3,
    mesh: ChunkMesh,
    tree: KdTree,
}

impl ChunkShape {
    /// The chunk's key (voxel coordinates divided by 8, floored).
    pub fn key(&self) -> IVec3 {
        self.key
    }

    /// The chunk's triangles.
    pub fn mesh(&self) -> &ChunkMesh {
        &self.mesh
    }

    /// The kD tree over [`ChunkShape::mesh`].
    pub fn tree(&self) -> &KdTree {
        &self.tree
    }

    /// True when the chunk has no triangle.
    pub fn is_empty(&self) -> bool {
        self.mesh.triangles.is_empty()
    }

    /// Bytes this shape holds: the struct, the mesh's and the tree's heap.
    pub fn bytes(&self) -> usize {
        size_of::<Self>() + self.mesh.heap_bytes() + self.tree.heap_bytes()
    }

    /// Meshes chunk `key` of `source` and builds its tree. Infallible for chunks inside
    /// [`MAX_WORLD_COORDINATE`](crate::MAX_WORLD_COORDINATE), which the collider guarantees; a
    /// failure elsewhere gives an empty shape.
    pub(crate) fn build<S: VoxelSource + ?Sized>(source: &S, key: IVec3, scratch: &mut BuildScratch) -> Self {
        let region = VoxelBox::chunk(key, PHYSICS_CHUNK_EDGE);
        let built = scratch.mesher.surface_nets(source, region, &MeshOptions::PHYSICS, &mut scratch.mesh);
        debug_assert!(built.is_ok(), "chunk {key} inside the checked world failed to mesh: {built:?}");
        let mesh = built.ok().and_then(|()| ChunkMesh::from_mesh(&scratch.mesh)).unwrap_or_default();
        let tree = KdTree::build(&mesh).unwrap_or_else(|_| empty_tree());
        Self { key, mesh, tree }
    }
}

fn empty_tree() -> KdTree {
    KdTree::build(&ChunkMesh::default()).expect("an empty mesh always builds")
}

/// The mesher and its output buffer, reused across builds.
#[derive(Debug, Default)]
pub(crate) struct BuildScratch {
    mesher: Mesher,
    mesh: Mesh,
}

/// What the cache holds and did, from [`TerrainCollider::cache_stats`](crate::TerrainCollider::cache_stats).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Chunk shapes held.
    pub entries: usize,
    /// Bytes held: the shapes, their slots and the map's table.
    pub bytes: usize,
    /// The configured bound ([`ColliderOptions::cache_bytes`](crate::ColliderOptions::cache_bytes)).
    pub limit: usize,
    /// The most bytes ever held at once (after each insertion and its evictions).
    pub peak_bytes: usize,
    /// Lookups answered from the cache.
    pub hits: u64,
    /// Lookups that built the shape.
    pub misses: u64,
    /// Shapes evicted to respect the bound.
    pub evictions: u64,
    /// Shapes dropped because an edit changed their voxels.
    pub invalidations: u64,
    /// Triangles held over all entries.
    pub triangles: usize,
}

struct Slot {
    shape: Arc<ChunkShape>,
    /// Clock value of the last lookup, for least-recently-used eviction.
    stamp: AtomicU64,
}

struct Inner {
    map: AHashMap<IVec3, Slot>,
    /// Bytes of the shapes and their `Arc` headers (the table is counted separately).
    shape_bytes: usize,
    triangles: usize,
    peak_bytes: usize,
}

/// Bytes of one map slot besides the shape: key, slot, the hash table's control byte.
const SLOT_BYTES: usize = size_of::<IVec3>() + size_of::<Slot>() + 1;
/// An `Arc`'s two counters.
const ARC_HEADER: usize = 2 * size_of::<usize>();

impl Inner {
    fn new() -> Self {
        Self { map: new_map(), shape_bytes: 0, triangles: 0, peak_bytes: 0 }
    }

    fn bytes(&self) -> usize {
        self.shape_bytes + self.map.capacity() * SLOT_BYTES
    }
}

/// A map with a fixed hash seed. The table's capacity (counted against the bound) depends on where
/// keys land, so a per-process random seed would make evictions differ from run to run; answers
/// never depend on it, but memory figures and tests should repeat.
fn new_map() -> AHashMap<IVec3, Slot> {
    AHashMap::with_hasher(ahash::RandomState::with_seeds(
        0x243F_6A88_85A3_08D3,
        0x1319_8A2E_0370_7344,
        0xA409_3822_299F_31D0,
        0x082E_FA98_EC4E_6C89,
    ))
}

/// Chunk shapes by key, bounded in bytes.
pub(crate) struct ShapeCache {
    inner: RwLock<Inner>,
    clock: AtomicU64,
    limit: usize,
    hits: AtomicU64,
    misses: AtomicU64,
    evictions: AtomicU64,
    invalidations: AtomicU64,
    scratch: Mutex<Vec<BuildScratch>>,
}

impl core::fmt::Debug for ShapeCache {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ShapeCache").field("stats", &self.stats()).finish()
    }
}

impl ShapeCache {
    pub(crate) fn new(limit: usize) -> Self {
        Self {
            inner: RwLock::new(Inner::new()),
            clock: AtomicU64::new(0),
            limit,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            evictions: AtomicU64::new(0),
            invalidations: AtomicU64::new(0),
            scratch: Mutex::new(Vec::new()),
        }
    }

    /// The shape of chunk `key`, built from `source` when not cached.
    pub(crate) fn get_or_build<S: VoxelSource + ?Sized>(&self, source: &S, key: IVec3) -> Arc<ChunkShape> {
        let stamp = self.clock.fetch_add(1, Ordering::Relaxed);
        if let Some(slot) = self.inner.read().map.get(&key) {
            slot.stamp.store(stamp, Ordering::Relaxed);
            self.hits.fetch_add(1, Ordering::Relaxed);
            return Arc::clone(&slot.shape);
        }
        self.misses.fetch_add(1, Ordering::Relaxed);
        let mut scratch = self.scratch.lock().pop().unwrap_or_default();
        let shape = Arc::new(ChunkShape::build(source, key, &mut scratch));
        self.scratch.lock().push(scratch);
        self.insert(key, shape, stamp)
    }

    /// Inserts `shape` unless another thread did first (then returns that one), and evicts the
    /// least recently used shapes until the bound holds again.
    fn insert(&self, key: IVec3, shape: Arc<ChunkShape>, stamp: u64) -> Arc<ChunkShape> {
        let size = shape.bytes() + ARC_HEADER;
        let mut inner = self.inner.write();
        if let Some(slot) = inner.map.get(&key) {
            return Arc::clone(&slot.shape);
        }
        // A shape that alone exceeds the bound is used once and not kept.
        if size + SLOT_BYTES > self.limit {
            return shape;
        }
        inner.shape_bytes += size;
        inner.triangles += shape.mesh.triangles.len();
        inner.map.insert(key, Slot { shape: Arc::clone(&shape), stamp: AtomicU64::new(stamp) });
        if inner.bytes() > self.limit {
            self.evict(&mut inner, key);
        }
        // The table's slots count too (at least three once anything is held), so a shape that
        // passed the one-slot test above may still not fit beside the table once every other
        // shape is gone: it is used once and not kept either, and the emptied table given back.
        if inner.bytes() > self.limit {
            if let Some(slot) = inner.map.remove(&key) {
                inner.shape_bytes -= size;
                inner.triangles -= slot.shape.mesh.triangles.len();
            }
            inner.map.shrink_to_fit();
        }
        inner.peak_bytes = inner.peak_bytes.max(inner.bytes());
        shape
    }

    /// Evicts the least recently used shapes (never `keep`, the one just inserted) down to three
    /// quarters of the bound, so the sort that finds them is paid once per many insertions.
    fn evict(&self, inner: &mut Inner, keep: IVec3) {
        let target = self.limit / 4 * 3;
        let mut order: Vec<(u64, IVec3)> =
            inner.map.iter().filter(|(k, _)| **k != keep).map(|(k, s)| (s.stamp.load(Ordering::Relaxed), *k)).collect();
        // Stamps are unique per lookup; the key breaks the tie of equal stamps deterministically.
        order.sort_unstable_by_key(|&(stamp, k)| (stamp, k.y, k.z, k.x));
        let mut evicted = 0;
        for (_, key) in order {
            if inner.bytes() <= target {
                break;
            }
            if let Some(slot) = inner.map.remove(&key) {
                inner.shape_bytes -= slot.shape.bytes() + ARC_HEADER;
                inner.triangles -= slot.shape.mesh.triangles.len();
                evicted += 1;
            }
        }
        // The table itself is counted: shrink it when eviction left it mostly empty.
        if inner.bytes() > self.limit {
            inner.map.shrink_to_fit();
        }
        self.evictions.fetch_add(evicted, Ordering::Relaxed);
    }

    /// Drops the shapes of the chunks `keys` (chunk keys, half-open).
    pub(crate) fn invalidate(&self, keys: VoxelBox) {
        if keys.is_empty() {
            return;
        }
        let mut inner = self.inner.write();
        let inner = &mut *inner;
        let mut dropped = Vec::new();
        if keys.volume() <= inner.map.len() as u64 {
            for key in keys.iter() {
                if let Some(slot) = inner.map.remove(&key) {
                    dropped.push(slot);
                }
            }
        } else {
            let stale: Vec<IVec3> = inner.map.keys().filter(|k| keys.contains(**k)).copied().collect();
            dropped.extend(stale.iter().filter_map(|k| inner.map.remove(k)));
        }
        for slot in &dropped {
            inner.shape_bytes -= slot.shape.bytes() + ARC_HEADER;
            inner.triangles -= slot.shape.mesh.triangles.len();
        }
        self.invalidations.fetch_add(dropped.len() as u64, Ordering::Relaxed);
    }

    /// Drops every shape.
    pub(crate) fn clear(&self) {
        let mut inner = self.inner.write();
        let n = inner.map.len() as u64;
        inner.map = new_map();
        inner.shape_bytes = 0;
        inner.triangles = 0;
        self.invalidations.fetch_add(n, Ordering::Relaxed);
    }

    /// True when chunk `key` is cached (does not count as a use).
    pub(crate) fn contains(&self, key: IVec3) -> bool {
        self.inner.read().map.contains_key(&key)
    }

    pub(crate) fn stats(&self) -> CacheStats {
        let inner = self.inner.read();
        CacheStats {
            entries: inner.map.len(),
            bytes: inner.bytes(),
            limit: self.limit,
            peak_bytes: inner.peak_bytes,
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            evictions: self.evictions.load(Ordering::Relaxed),
            invalidations: self.invalidations.load(Ordering::Relaxed),
            triangles: inner.triangles,
        }
    }
}
