//! Disjoint terrain regions (Kapoulkine's "Voxel Terrain: Physics", "Future work": "Whenever you modified
//! voxel data, our prototype performed a basic connectivity analysis and converted all disjoint
//! connected voxel regions into a freely moving object. Computing collisions for this in real-time
//! most likely involves approximating the shape with a convex hull").
//!
//! After an edit, every solid voxel near the edited box seeds a search of its face-connected (6
//! neighbours) solid component. The search runs best-first towards the anchor (the world's floor by
//! default: lowest voxels first), so a component that still stands on the ground is proven attached
//! after a walk about as long as its height, not after flooding the terrain. A component the search
//! exhausts without reaching the anchor, and within the size limit, is an island: it gets its own
//! voxels, its own closed Surface Nets mesh, and a convex hull or a convex-hacd decomposition.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use ahash::{AHashMap, AHashSet};
use convex_hacd::{DecomposeOptions, Decomposition, Hull, convex_hull, decompose};
use glam::{IVec3, Vec3};
use voxel_core::{IndexedMesh, Phase, Voxel, VoxelBox, VoxelGrid, VoxelSource};
use voxel_mesh::{Mesh, MeshOptions, Mesher};
use voxel_store::{EditReport, VoxelStore, generate};

use crate::{EditOutcome, PhysicsError, TerrainCollider};

/// What holds terrain in place: a solid component that reaches it is attached.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Anchor {
    /// The bottom layer of the world box (`y == world.min.y`): bedrock. The default.
    #[default]
    WorldFloor,
    /// Every solid voxel inside this box.
    Region(VoxelBox),
    /// Nothing: only components past [`IslandOptions::max_voxels`] count as attached.
    Nothing,
}

/// The collision shape made for each island.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum IslandShape {
    /// The convex hull of the island's mesh vertices (the article's suggestion). The default.
    #[default]
    Hull,
    /// A convex-hacd decomposition of the island's mesh, for concave pieces.
    Decomposition(DecomposeOptions),
    /// The mesh only.
    MeshOnly,
}

/// Settings of [`TerrainCollider::find_islands`] and [`TerrainCollider::detach_islands`].
#[derive(Clone, Debug, PartialEq)]
pub struct IslandOptions {
    /// What holds terrain in place.
    pub anchor: Anchor,
    /// Components with more solid voxels than this count as attached, whatever the anchor says
    /// (the search stops there). Default 2^18 voxels, a 64^3 box's worth.
    pub max_voxels: usize,
    /// The shape to build for each island.
    pub shape: IslandShape,
}

impl Default for IslandOptions {
    fn default() -> Self {
        Self { anchor: Anchor::WorldFloor, max_voxels: 1 << 18, shape: IslandShape::Hull }
    }
}

/// A solid component no longer connected to the anchor: what a free body needs.
#[derive(Clone, Debug, PartialEq)]
pub struct Island {
    /// Its solid voxels, sorted by `y`, then `z`, then `x`.
    pub voxels: Vec<IVec3>,
    /// The box of [`Island::voxels`].
    pub bounds: VoxelBox,
    /// The mean of the voxels' positions: the centre of mass at uniform density.
    pub center: Vec3,
    /// The island alone: its voxels as stored, every other solid voxel emptied, over `bounds`
    /// grown by two voxels (enough to mesh it).
    pub grid: VoxelGrid,
    /// Its closed Surface Nets mesh, in world coordinates, with one material per triangle.
    pub mesh: IndexedMesh,
    /// Its convex hull, with [`IslandShape::Hull`].
    pub hull: Option<Hull>,
    /// Its decomposition, with [`IslandShape::Decomposition`].
    pub decomposition: Option<Decomposition>,
}

/// The most seed voxels one search may start from (a 256^3 box): larger regions are refused.
pub const MAX_ISLAND_REGION: u64 = 1 << 24;

impl TerrainCollider {
    /// The islands among the solid components touching `region` grown by one voxel (pass an
    /// edit's [`EditReport::dirty`]): the components that do not reach the anchor and have at most
    /// [`IslandOptions::max_voxels`] voxels. Voxels outside the world box count as empty. Islands
    /// come in the order of their first voxel in `region` (`x` fastest, then `z`, then `y`); the
    /// result depends on the voxels alone. Changes nothing; see
    /// [`TerrainCollider::detach_islands`].
    ///
    /// # Errors
    ///
    /// [`PhysicsError::InvalidParameter`] for a region over [`MAX_ISLAND_REGION`] voxels or an
    /// anchor box that is empty; hull and decomposition errors of an island's shape.
    pub fn find_islands(&self, region: VoxelBox, options: &IslandOptions) -> Result<Vec<Island>, PhysicsError> {
        if let Anchor::Region(b) = options.anchor
            && b.is_empty()
        {
            return Err(PhysicsError::InvalidParameter("the anchor box is empty"));
        }
        let seeds = region.grow(1).intersection(&self.world);
        if seeds.is_empty() {
            return Ok(Vec::new());
        }
        if seeds.volume() > MAX_ISLAND_REGION {
            return Err(PhysicsError::InvalidParameter("island search region is larger than MAX_ISLAND_REGION"));
        }
        let mut search = Search::new(&self.store, self.world, options);
        let mut found = Vec::new();
        let mut buf = Vec::new();
        self.store.read_region(seeds, &mut buf).map_err(|_| PhysicsError::InvalidParameter("region too large"))?;
        let solid = search.solid;
        for (i, v) in buf.iter().enumerate() {
            if !(v.is_inside() && solid[usize::from(v.material)]) {
                continue;
            }
            let Some(p) = seeds.point_at(i) else { continue };
            if search.component.contains_key(&p) {
                continue;
            }
            if let Some(voxels) = search.explore(p) {
                found.push(voxels);
            }
        }
        found.into_iter().map(|voxels| self.make_island(voxels, &search.member_of, options)).collect()
    }

    /// [`TerrainCollider::find_islands`], then removes every island's voxels from the world (they
    /// become [`Voxel::EMPTY`]) and refreshes the collider as an edit does: the caller turns the
    /// returned islands into free bodies. Returns the islands and the removal's outcome.
    ///
    /// # Errors
    ///
    /// As [`TerrainCollider::find_islands`]; nothing is removed on error.
    pub fn detach_islands(
        &mut self,
        region: VoxelBox,
        options: &IslandOptions,
    ) -> Result<(Vec<Island>, EditOutcome), PhysicsError> {
        let islands = self.find_islands(region, options)?;
        let mut report = EditReport { changed_voxels: 0, dirty: VoxelBox::EMPTY };
        let mut buf = Vec::new();
        for island in &islands {
            report = report.merge(&remove_voxels(&mut self.store, island, &mut buf)?);
        }
        let outcome = self.apply(report)?;
        Ok((islands, outcome))
    }

    fn make_island(
        &self,
        voxels: Vec<IVec3>,
        member_of: &AHashSet<IVec3>,
        options: &IslandOptions,
    ) -> Result<Island, PhysicsError> {
        let bounds = voxels.iter().fold(VoxelBox::EMPTY, |b, &p| b.union(&VoxelBox::from_min_size(p, IVec3::ONE)));
        let sum = voxels.iter().fold(glam::DVec3::ZERO, |s, p| s + p.as_dvec3());
        let center = (sum / voxels.len().max(1) as f64).as_vec3();
        // The island alone: other solid voxels in its box are emptied, so its mesh is closed.
        let area = bounds.grow(2);
        let mut read = Vec::new();
        self.store.read_region(area, &mut read).map_err(|_| PhysicsError::InvalidParameter("island too large"))?;
        let phases = self.store.phase_table().clone();
        for (i, v) in read.iter_mut().enumerate() {
            let p = area.point_at(i).unwrap_or(IVec3::ZERO);
            let solid = v.is_inside() && phases.phase(v.material) == Phase::Solid;
            if solid && !member_of.contains(&p) {
                *v = Voxel::EMPTY;
            }
        }
        let grid = VoxelGrid::from_voxels(area, read)
            .map_err(|_| PhysicsError::InvalidParameter("island too large"))?
            .with_phases(phases);
        let mut mesh = Mesh::new();
        Mesher::new().surface_nets(&grid, bounds.grow(1), &MeshOptions::PHYSICS, &mut mesh)?;
        let mesh = IndexedMesh::from_source(&mesh).map_err(|_| PhysicsError::InvalidParameter("island too large"))?;
        let (hull, decomposition) = match &options.shape {
            IslandShape::Hull => (Some(convex_hull(mesh.positions())?), None),
            IslandShape::Decomposition(o) => (None, Some(decompose(&mesh, o)?)),
            IslandShape::MeshOnly => (None, None),
        };
        Ok(Island { voxels, bounds, center, grid, mesh, hull, decomposition })
    }
}

/// Empties the island's voxels in `store`.
fn remove_voxels(store: &mut VoxelStore, island: &Island, buf: &mut Vec<Voxel>) -> Result<EditReport, PhysicsError> {
    let area = island.bounds;
    store.read_region(area, buf).map_err(|_| PhysicsError::InvalidParameter("island too large"))?;
    let members: AHashSet<IVec3> = island.voxels.iter().copied().collect();
    let current = &*buf;
    Ok(generate::from_fn(store, area, |p| {
        if members.contains(&p) { Voxel::EMPTY } else { area.index_of(p).map_or(Voxel::EMPTY, |i| current[i]) }
    })?)
}

/// The component search: solid bits read in 16^3 blocks, the component of every voxel visited.
struct Search<'a> {
    store: &'a VoxelStore,
    world: VoxelBox,
    anchor: Anchor,
    max_voxels: usize,
    solid: [bool; 256],
    blocks: AHashMap<IVec3, Box<[u64; BLOCK_WORDS]>>,
    buf: Vec<Voxel>,
    /// Component index of each visited voxel.
    component: AHashMap<IVec3, u32>,
    /// Components started so far (the next one's index).
    components: u32,
    /// Voxels of the islands found so far.
    member_of: AHashSet<IVec3>,
}

const BLOCK_BITS: i32 = 4;
const BLOCK_EDGE: i32 = 1 << BLOCK_BITS;
const BLOCK_WORDS: usize = (BLOCK_EDGE * BLOCK_EDGE * BLOCK_EDGE) as usize / 64;

const NEIGHBOURS: [IVec3; 6] = [IVec3::NEG_X, IVec3::X, IVec3::NEG_Y, IVec3::Y, IVec3::NEG_Z, IVec3::Z];

impl<'a> Search<'a> {
    fn new(store: &'a VoxelStore, world: VoxelBox, options: &IslandOptions) -> Self {
        let phases = store.phase_table();
        Self {
            store,
            world,
            anchor: options.anchor,
            max_voxels: options.max_voxels,
            solid: core::array::from_fn(|m| phases.phase(m as u8) == Phase::Solid),
            blocks: AHashMap::new(),
            buf: Vec::new(),
            component: AHashMap::new(),
            components: 0,
            member_of: AHashSet::new(),
        }
    }

    /// True when voxel `p` is inside the world and solid. Reads whole 16^3 blocks, never one voxel.
    fn is_solid(&mut self, p: IVec3) -> bool {
        if !self.world.contains(p) {
            return false;
        }
        let key = p >> BLOCK_BITS;
        let (store, solid, buf) = (self.store, &self.solid, &mut self.buf);
        let block = self.blocks.entry(key).or_insert_with(|| {
            let mut bits = Box::new([0u64; BLOCK_WORDS]);
            // A block is at most 16^3 voxels: the read cannot be refused.
            if store.read_region(VoxelBox::chunk(key, BLOCK_EDGE), buf).is_ok() {
                for (i, v) in buf.iter().enumerate() {
                    if v.is_inside() && solid[usize::from(v.material)] {
                        bits[i >> 6] |= 1 << (i & 63);
                    }
                }
            }
            bits
        });
        let l = p & (BLOCK_EDGE - 1);
        let i = (l.x + BLOCK_EDGE * (l.z + BLOCK_EDGE * l.y)) as usize;
        block[i >> 6] >> (i & 63) & 1 != 0
    }

    fn anchored(&self, p: IVec3) -> bool {
        match self.anchor {
            Anchor::WorldFloor => p.y <= self.world.min.y,
            Anchor::Region(b) => b.contains(p),
            Anchor::Nothing => false,
        }
    }

    /// The search's estimate of the distance from `p` to the anchor: lower goes first.
    fn priority(&self, p: IVec3) -> u32 {
        match self.anchor {
            Anchor::WorldFloor => (p.y - self.world.min.y).unsigned_abs(),
            Anchor::Region(b) => {
                let below = (b.min - p).max(IVec3::ZERO);
                let above = (p - (b.max - IVec3::ONE)).max(IVec3::ZERO);
                (below + above).as_uvec3().element_sum()
            }
            Anchor::Nothing => 0,
        }
    }

    /// Explores the component of solid voxel `seed` (not yet visited). Returns its voxels, sorted,
    /// when it is an island; `None` when it is attached.
    fn explore(&mut self, seed: IVec3) -> Option<Vec<IVec3>> {
        let id = self.components;
        self.components += 1;
        let mut heap = BinaryHeap::new();
        heap.push(Reverse((self.priority(seed), seed.y, seed.z, seed.x)));
        self.component.insert(seed, id);
        let mut voxels = Vec::new();
        let mut attached = false;
        'search: while let Some(Reverse((_, y, z, x))) = heap.pop() {
            let p = IVec3::new(x, y, z);
            voxels.push(p);
            if self.anchored(p) || voxels.len() > self.max_voxels {
                attached = true;
                break;
            }
            for n in NEIGHBOURS.map(|d| p + d) {
                if !self.is_solid(n) {
                    continue;
                }
                match self.component.get(&n) {
                    // Only attached components are left partly explored; an island's component
                    // is complete, so meeting another component means meeting an attached one.
                    Some(&other) if other != id => {
                        attached = true;
                        break 'search;
                    }
                    Some(_) => {}
                    None => {
                        self.component.insert(n, id);
                        heap.push(Reverse((self.priority(n), n.y, n.z, n.x)));
                    }
                }
            }
        }
        if attached {
            return None;
        }
        voxels.sort_unstable_by_key(|p| (p.y, p.z, p.x));
        self.member_of.extend(voxels.iter().copied());
        Some(voxels)
    }
}
