//! Objects and their solid / water pairs with chunks: the seed's contact management.
//!
//! Seed `000_ce04cac11e01e96d.txt`, "Bit broadphase: overlap test": "If the object had a solid
//! contact with a chunk in the old position but no solid contact with that chunk in the new
//! position, we can remove that contact. We track up to 1 solid and 1 water contact per
//! object-chunk pair."

use glam::IVec3;
use voxel_core::{Aabb, VoxelBox};

use crate::broadphase::ChunkHit;
use crate::query::{Cells, QuerySpan};
use crate::{Broadphase, BroadphaseError};

/// Which pair of an (object, chunk).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PairKind {
    /// The object touches the chunk's dilated solid voxels.
    Solid,
    /// The object touches the chunk's dilated water voxels.
    Water,
}

/// A pair that appeared or disappeared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PairEvent {
    /// The object's id.
    pub object: u32,
    /// The chunk's key.
    pub chunk: IVec3,
    /// Solid or water.
    pub kind: PairKind,
    /// True when the pair appeared, false when it disappeared.
    pub added: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct Object {
    aabb: Aabb,
    /// Current pairs, sorted by chunk key (`y`, `z`, `x`).
    pairs: Vec<ChunkHit>,
}

impl Broadphase {
    /// Adds object `id` with box `aabb`; its pairs go to `events` as added. A reused id gives
    /// [`BroadphaseError::DuplicateId`], a bad box [`BroadphaseError::InvalidAabb`] or
    /// [`BroadphaseError::TooLarge`]; nothing changes on error.
    pub fn insert(&mut self, id: u32, aabb: Aabb, events: &mut Vec<PairEvent>) -> Result<(), BroadphaseError> {
        if self.objects.contains_key(&id) {
            return Err(BroadphaseError::DuplicateId(id));
        }
        let pairs = self.pairs_of(&aabb)?;
        diff(id, &[], &pairs, events);
        self.objects.insert(id, Object { aabb, pairs });
        Ok(())
    }

    /// Moves object `id` to `aabb`: pairs it gained and lost go to `events` (removals first, each
    /// group in chunk order). Unknown ids give [`BroadphaseError::UnknownId`].
    pub fn update(&mut self, id: u32, aabb: Aabb, events: &mut Vec<PairEvent>) -> Result<(), BroadphaseError> {
        let pairs = self.pairs_of(&aabb)?;
        let object = self.objects.get_mut(&id).ok_or(BroadphaseError::UnknownId(id))?;
        diff(id, &object.pairs, &pairs, events);
        *object = Object { aabb, pairs };
        Ok(())
    }

    /// Moves many objects. The new pairs are computed in parallel (feature `parallel`); events
    /// come out in the order of `moves`, the same for any thread count. The batch is checked
    /// first: on any error nothing moves.
    pub fn update_batch(&mut self, moves: &[(u32, Aabb)], events: &mut Vec<PairEvent>) -> Result<(), BroadphaseError> {
        for (id, _) in moves {
            if !self.objects.contains_key(id) {
                return Err(BroadphaseError::UnknownId(*id));
            }
        }
        let new_pairs: Vec<Result<Vec<ChunkHit>, BroadphaseError>> = {
            let this = &*self;
            #[cfg(feature = "parallel")]
            {
                use rayon::prelude::*;
                moves.par_iter().map(|(_, aabb)| this.pairs_of(aabb)).collect()
            }
            #[cfg(not(feature = "parallel"))]
            {
                moves.iter().map(|(_, aabb)| this.pairs_of(aabb)).collect()
            }
        };
        let new_pairs: Vec<_> = new_pairs.into_iter().collect::<Result<_, _>>()?;
        for ((id, aabb), pairs) in moves.iter().zip(new_pairs) {
            let object = self.objects.get_mut(id).expect("checked above");
            diff(*id, &object.pairs, &pairs, events);
            *object = Object { aabb: *aabb, pairs };
        }
        Ok(())
    }

    /// Removes object `id`; its pairs go to `events` as removed.
    pub fn remove(&mut self, id: u32, events: &mut Vec<PairEvent>) -> Result<(), BroadphaseError> {
        let object = self.objects.remove(&id).ok_or(BroadphaseError::UnknownId(id))?;
        diff(id, &object.pairs, &[], events);
        Ok(())
    }

    /// The chunks object `id` currently touches, in chunk order (`solid` and `water` say which
    /// pairs it has with each).
    pub fn pairs(&self, id: u32) -> Option<&[ChunkHit]> {
        self.objects.get(&id).map(|o| &o.pairs[..])
    }

    /// Number of tracked objects.
    pub fn object_count(&self) -> usize {
        self.objects.len()
    }

    fn pairs_of(&self, aabb: &Aabb) -> Result<Vec<ChunkHit>, BroadphaseError> {
        let mut hits = Vec::new();
        self.query(aabb, &mut hits)?;
        Ok(hits)
    }

    /// Re-tests the objects whose queries cover a chunk of `keys` (every object for `None`), in
    /// id order.
    pub(crate) fn refresh_objects_touching(&mut self, keys: Option<&VoxelBox>, events: &mut Vec<PairEvent>) {
        let reach = self.reach;
        let covers = |aabb: &Aabb| {
            Cells::new(aabb, reach).map(|cells| QuerySpan::new(&cells)).is_ok_and(|span| {
                keys.is_none_or(|k| VoxelBox::new(span.keys_min(), span.keys_max() + IVec3::ONE).overlaps(k))
            })
        };
        let mut ids: Vec<u32> = self.objects.iter().filter(|(_, o)| covers(&o.aabb)).map(|(id, _)| *id).collect();
        ids.sort_unstable();
        for id in ids {
            let aabb = self.objects[&id].aabb;
            // The box was accepted before, so it is accepted again.
            if let Ok(pairs) = self.pairs_of(&aabb) {
                let object = self.objects.get_mut(&id).expect("listed above");
                diff(id, &object.pairs, &pairs, events);
                object.pairs = pairs;
            }
        }
    }
}

fn order(k: &IVec3) -> (i32, i32, i32) {
    (k.y, k.z, k.x)
}

/// Emits removals then additions between two sorted pair lists.
fn diff(id: u32, old: &[ChunkHit], new: &[ChunkHit], events: &mut Vec<PairEvent>) {
    let flags = |list: &[ChunkHit], key: &IVec3| {
        list.binary_search_by_key(&order(key), |h| order(&h.chunk))
            .ok()
            .map_or((false, false), |i| (list[i].solid, list[i].water))
    };
    for (added, from, to) in [(false, old, new), (true, new, old)] {
        for hit in from {
            let (other_solid, other_water) = flags(to, &hit.chunk);
            for (present, other, kind) in
                [(hit.solid, other_solid, PairKind::Solid), (hit.water, other_water, PairKind::Water)]
            {
                if present && !other {
                    events.push(PairEvent { object: id, chunk: hit.chunk, kind, added });
                }
            }
        }
    }
}
