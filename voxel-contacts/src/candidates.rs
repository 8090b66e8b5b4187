//! The gathered midphase output: the triangles around a shape, from one mesh or many.

use glam::Vec3;
use voxel_core::TriangleSource;

/// Candidate triangles for one contact query, gathered from any midphase and from any number of
/// meshes (Terdiman, section 6: the triangles of every mesh around the shape go into one set).
///
/// Each triangle carries the caller's id (echoed in [`Contact::triangle`](voxel_core::Contact)) and
/// its three vertex ids (echoed in [`Feature`](voxel_core::Feature), and the keys of
/// [`FeatureKeys::Indices`](crate::FeatureKeys)). Clear and refill it per query: the buffers keep
/// their capacity.
///
/// ```
/// use glam::Vec3;
/// use voxel_contacts::Candidates;
///
/// let mut set = Candidates::new();
/// set.push(7, [Vec3::ZERO, Vec3::Z, Vec3::X], [0, 1, 2]);
/// assert_eq!(set.len(), 1);
/// set.clear();
/// assert!(set.is_empty());
/// ```
#[derive(Clone, Debug, Default)]
pub struct Candidates {
    pub(crate) positions: Vec<[Vec3; 3]>,
    pub(crate) vertex_ids: Vec<[u32; 3]>,
    pub(crate) ids: Vec<u32>,
}

impl Candidates {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Removes every triangle, keeping the capacity.
    pub fn clear(&mut self) {
        self.positions.clear();
        self.vertex_ids.clear();
        self.ids.clear();
    }

    /// Adds one triangle (counter-clockwise seen from its front) with the caller's id and its
    /// vertex ids.
    #[inline]
    pub fn push(&mut self, id: u32, positions: [Vec3; 3], vertex_ids: [u32; 3]) {
        self.positions.push(positions);
        self.vertex_ids.push(vertex_ids);
        self.ids.push(id);
    }

    /// Adds the triangles `triangles` of `source`, with their indices as ids and their vertex
    /// indices plus `vertex_offset` as vertex ids (give each mesh its own offset when index keys
    /// are used across meshes). Indices past the source's triangle count are skipped.
    pub fn extend_from_source<S: TriangleSource + ?Sized>(
        &mut self,
        source: &S,
        triangles: impl IntoIterator<Item = u32>,
        vertex_offset: u32,
    ) {
        let count = source.triangle_count();
        for t in triangles {
            if t as usize >= count {
                continue;
            }
            let ids = source.triangle(t);
            self.push(t, ids.map(|i| source.vertex(i)), ids.map(|i| i.wrapping_add(vertex_offset)));
        }
    }

    /// Number of triangles.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True when the set holds no triangle.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The positions of triangle `i` of the set. Panics if `i >= len()`.
    pub fn positions(&self, i: usize) -> [Vec3; 3] {
        self.positions[i]
    }
}
