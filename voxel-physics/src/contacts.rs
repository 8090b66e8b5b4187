//! Contacts between a shape and the terrain surface (Kapoulkine's "Voxel Terrain: Physics", "Narrowphase:
//! analysis & plan": "a set of triangles is extracted from the tree using a simple AABB query; each
//! triangle gets collided with the target primitive"), with Terdiman's voided features ("Contact generation for meshes") so that
//! neither internal edges nor chunk seams make ghost contacts.
//!
//! The broadphase names the chunks whose dilated solid bits the shape's box touches; the geometry
//! inside chunk box `k` belongs to the meshes of the chunks `k + {0, 1}^3` (a chunk's mesh reaches
//! one voxel below it), so those of them whose triangles can reach the shape's box are asked.
//! Every mesh's kD tree gives the triangles overlapping the box, and all of them go into one
//! candidate set: the meshes are disjoint (no shared vertex ids across a seam), and voxel-contacts
//! recognises the shared edges of a seam by position
//! ([`FeatureKeys::Positions`](voxel_contacts::FeatureKeys::Positions)).

use glam::{IVec3, Vec3};
use voxel_broadphase::ChunkHit;
use voxel_contacts::{Candidates, ContactError, ContactGenerator, ContactOptions, ContactReport, Shape};
use voxel_core::{Aabb, ContactSink, TriangleSource, VoxelBox};
use voxel_kdtree::Scratch;

use crate::{PHYSICS_CHUNK_EDGE, PhysicsError, TerrainCollider};

/// Where a candidate triangle of a contact query came from: the
/// [`Contact::triangle`](voxel_core::Contact::triangle) of each contact indexes
/// [`ContactScratch::candidates`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CandidateTriangle {
    /// The physics chunk whose mesh holds it.
    pub chunk: IVec3,
    /// Its index in that chunk's mesh.
    pub triangle: u32,
    /// Its material.
    pub material: u8,
}

/// Reusable buffers of contact queries, one per thread; after a query it also tells where each
/// candidate triangle came from.
#[derive(Debug, Default)]
pub struct ContactScratch {
    pub(crate) gather: Gather,
    generator: ContactGenerator,
}

/// The buffers of one candidate gathering: chunk hits, their owners, and the triangles found.
#[derive(Debug, Default)]
pub(crate) struct Gather {
    pub(crate) hits: Vec<ChunkHit>,
    owners: Vec<IVec3>,
    found: Vec<u32>,
    kd: Scratch,
    pub(crate) candidates: Candidates,
    pub(crate) table: Vec<CandidateTriangle>,
}

impl ContactScratch {
    /// Empty buffers; they grow on the first queries and are then reused.
    pub fn new() -> Self {
        Self::default()
    }

    /// The candidate triangles of the last query, by the id its contacts carry.
    pub fn candidates(&self) -> &[CandidateTriangle] {
        &self.gather.table
    }

    /// The chunks the broadphase reported for the last query.
    pub fn chunk_hits(&self) -> &[ChunkHit] {
        &self.gather.hits
    }
}

impl TerrainCollider {
    /// The contacts of `shape` (placed in voxel units) with the terrain surface, delivered to
    /// `sink`: the broadphase's solid chunks for the shape's box grown by the contact distance,
    /// the candidate triangles of all their meshes gathered into one set, and voxel-contacts over
    /// it (reduced to `options.max_points`; keep `options.keys` at its default,
    /// [`FeatureKeys::Positions`](voxel_contacts::FeatureKeys::Positions), or chunk seams make
    /// ghost contacts). Each contact's `triangle` indexes [`ContactScratch::candidates`].
    ///
    /// # Errors
    ///
    /// [`PhysicsError::Contacts`] for a shape with non-finite or negative parameters or bad
    /// options; [`PhysicsError::Broadphase`] for a box spanning more chunks than the broadphase
    /// answers for. Nothing is delivered on error.
    pub fn contacts<S: ContactSink + ?Sized>(
        &self,
        shape: &Shape<'_>,
        options: &ContactOptions,
        scratch: &mut ContactScratch,
        sink: &mut S,
    ) -> Result<ContactReport, PhysicsError> {
        let bounds = query_box(shape, options)?;
        self.broadphase.query(&bounds, &mut scratch.gather.hits)?;
        self.generate(shape, &bounds, options, scratch, sink)
    }

    /// [`TerrainCollider::contacts`] for a tracked object, from the chunk pairs the broadphase
    /// already holds for it (no new broadphase query): the shape should lie inside the box the
    /// object was last inserted or moved with.
    ///
    /// # Errors
    ///
    /// As [`TerrainCollider::contacts`], and
    /// [`BroadphaseError::UnknownId`](voxel_broadphase::BroadphaseError::UnknownId) for an id that
    /// is not tracked.
    pub fn object_contacts<S: ContactSink + ?Sized>(
        &self,
        id: u32,
        shape: &Shape<'_>,
        options: &ContactOptions,
        scratch: &mut ContactScratch,
        sink: &mut S,
    ) -> Result<ContactReport, PhysicsError> {
        let bounds = query_box(shape, options)?;
        let pairs = self.broadphase.pairs(id).ok_or(voxel_broadphase::BroadphaseError::UnknownId(id))?;
        scratch.gather.hits.clear();
        scratch.gather.hits.extend_from_slice(pairs);
        self.generate(shape, &bounds, options, scratch, sink)
    }

    /// Gathers the candidates of the chunks in `scratch.gather.hits` and runs the generator.
    fn generate<S: ContactSink + ?Sized>(
        &self,
        shape: &Shape<'_>,
        bounds: &Aabb,
        options: &ContactOptions,
        scratch: &mut ContactScratch,
        sink: &mut S,
    ) -> Result<ContactReport, PhysicsError> {
        self.gather_candidates(bounds, &mut scratch.gather);
        Ok(scratch.generator.generate(shape, &scratch.gather.candidates, options, sink)?)
    }

    /// Gathers into one candidate set the triangles overlapping `bounds` of every mesh that may
    /// hold geometry of the solid chunks in `gather.hits`, in a fixed chunk order.
    pub(crate) fn gather_candidates(&self, bounds: &Aabb, gather: &mut Gather) {
        gather.owners.clear();
        // A mesh whose reach misses `bounds` has no candidate: it is neither built nor looked up
        // (a small box inside one chunk asks one mesh, not eight).
        let reaches = |k: IVec3| mesh_reach(k).overlaps(bounds);
        let corner = VoxelBox::new(IVec3::ZERO, IVec3::splat(2));
        for hit in gather.hits.iter().filter(|h| h.solid && !h.full) {
            gather.owners.extend(corner.iter().map(|c| hit.chunk + c).filter(|&k| reaches(k)));
        }
        gather.owners.sort_unstable_by_key(|k| (k.y, k.z, k.x));
        gather.owners.dedup();
        gather.candidates.clear();
        gather.table.clear();
        // Vertex ids are made unique across chunks (each chunk's ids offset past the previous
        // chunk's), so index keys see every chunk as its own mesh; position keys join the seams.
        let mut vertex_base = 0u32;
        for &owner in &gather.owners {
            if !self.may_have_surface(owner) {
                continue;
            }
            let chunk = self.cache.get_or_build(&self.store, owner);
            if chunk.is_empty() || !chunk.tree().bounds().overlaps(bounds) {
                continue;
            }
            let mesh = chunk.mesh();
            chunk.tree().query_aabb_exact(mesh, bounds, &mut gather.kd, &mut gather.found);
            for &t in &gather.found {
                let id = gather.table.len() as u32;
                gather.table.push(CandidateTriangle { chunk: owner, triangle: t, material: mesh.triangle_material(t) });
                gather.candidates.push(id, mesh.triangle_positions(t), mesh.triangle(t).map(|v| v + vertex_base));
            }
            vertex_base += mesh.vertex_count() as u32;
        }
    }
}

/// A box holding every triangle of chunk `key`'s mesh: `[8 k - 1, 8 k + 8]` on each axis (see
/// [`ChunkShape`](crate::ChunkShape)), with half a voxel to spare.
fn mesh_reach(key: IVec3) -> Aabb {
    let min = (key * PHYSICS_CHUNK_EDGE).as_vec3();
    Aabb::new(min - Vec3::splat(1.5), min + Vec3::splat(PHYSICS_CHUNK_EDGE as f32 + 0.5))
}

/// The shape's box grown by the contact distance, after checking both.
fn query_box(shape: &Shape<'_>, options: &ContactOptions) -> Result<Aabb, PhysicsError> {
    shape.validate()?;
    let margin = options.contact_distance;
    if !(margin.is_finite() && margin >= 0.0) {
        return Err(ContactError::InvalidOptions("contact distance must be finite and >= 0").into());
    }
    Ok(shape.aabb().grow(margin))
}
