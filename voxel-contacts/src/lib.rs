//! Mesh contact generation that never reports contacts on internal edges: Pierre Terdiman's
//! "Contact generation for meshes" (seed `001_2cdf852e115ea87c.txt`) in its final form, for
//! spheres, capsules, boxes and convex polyhedra, over triangles gathered from one mesh or many.
//!
//! A sphere rolling over a flat tessellated floor should only ever be pushed straight up; the
//! naive closest-point contact on a triangle's edge pushes it sideways (a "ghost" contact, the
//! "fear of the wireframe"). The fix needs no preprocessing and no memory on the mesh: per query,
//!
//! 1. every candidate triangle (back-face culled, within the shape's reach) reports its closest
//!    feature: face, edge or vertex;
//! 2. face contacts are emitted at once, and their triangles' edges and vertices are *voided*;
//! 3. the other (delayed) contacts are sorted by distance and processed in one pass: a contact on
//!    a voided edge or vertex is dropped, and each processed triangle voids its own features,
//!    whether its contact was kept or not.
//!
//! "The same edge" is decided by vertex ids ([`FeatureKeys::Indices`], one clean mesh) or by the
//! exact bits of vertex positions ([`FeatureKeys::Positions`], disjoint meshes: the chunk meshes
//! of voxel terrain, whose seams would otherwise be full of ghost edges).
//!
//! ```
//! use glam::Vec3;
//! use voxel_contacts::{Candidates, ContactGenerator, ContactOptions, FeatureKeys, Shape, Sphere};
//! use voxel_core::Contact;
//!
//! // Two separate meshes (different vertex ids) meeting at x = 1: a seam.
//! let mut set = Candidates::new();
//! let quad = |x0: f32, first: u32, set: &mut Candidates| {
//!     let v = [Vec3::new(x0, 0.0, 0.0), Vec3::new(x0, 0.0, 1.0), Vec3::new(x0 + 1.0, 0.0, 1.0), Vec3::new(x0 + 1.0, 0.0, 0.0)];
//!     set.push(first, [v[0], v[1], v[2]], [first, first + 1, first + 2]);
//!     set.push(first + 1, [v[0], v[2], v[3]], [first, first + 2, first + 3]);
//! };
//! quad(0.0, 0, &mut set);
//! quad(1.0, 100, &mut set);
//!
//! // A ball just left of the seam overlaps the seam edge.
//! let ball = Shape::Sphere(Sphere { center: Vec3::new(0.95, 0.49, 0.5), radius: 0.5 });
//! let mut generator = ContactGenerator::new();
//! let options = ContactOptions { keys: FeatureKeys::Positions, max_points: 0, ..ContactOptions::default() };
//! let mut contacts: Vec<Contact> = Vec::new();
//! generator.generate(&ball, &set, &options, &mut contacts)?;
//! assert!(contacts.iter().all(|c| (c.normal - Vec3::Y).length() < 1e-6));
//! # Ok::<(), voxel_contacts::ContactError>(())
//! ```
//!
//! # Conventions
//!
//! As [`voxel_core::Contact`]: the point is on the mesh, the normal points from the mesh to the
//! shape, the depth is positive when overlapping and negative (down to minus the contact distance)
//! when the shape is near but not touching. Triangles are one-sided (counter-clockwise from the
//! front); a shape wholly behind a triangle's plane gets nothing from it. Shapes are placed in the
//! mesh's frame. [`Contact::triangle`](voxel_core::Contact) is the id the triangle was pushed with.
//!
//! # Figures
//!
//! Benches `contacts/*` in `voxel-bench`, beside parry3d on the same scenes (the crate README lists
//! them): no ghost contact on any sweep or curved scene where parry3d has thousands (hundreds with
//! its `FIX_INTERNAL_EDGES`, which costs 42 B per triangle; this method costs nothing on the mesh);
//! a ball on a plane about 2.6x faster than parry3d's ball-trimesh manifold, a capsule on terrain
//! 3x, a box 1.5x, midphase included.

#![forbid(unsafe_code)]

mod candidates;
mod cast;
mod closest;
mod error;
mod generator;
mod kernel;
mod manifold;
mod sat;
mod shape;
mod sweep;

pub use candidates::Candidates;
pub use cast::{CastHit, CastOptions, ShapeCaster};
pub use error::ContactError;
pub use generator::ContactGenerator;
pub use shape::{Capsule, ConvexPolyhedron, Cuboid, Pose, Shape, Sphere};
pub use voxel_core::{Contact, ContactSink, Feature};

/// The largest coordinate, radius or extent a shape may have (and a convex polyhedron's points):
/// beyond it, squared distances and cross products overflow `f32`, and such shapes are refused
/// with [`ContactError::InvalidShape`] (or [`ContactError::InvalidPolyhedron`]).
pub const MAX_SHAPE_COORDINATE: f32 = 1e9;

/// The most contact points a reduced manifold keeps.
pub const MAX_POINTS: usize = 4;

/// How two triangles are found to share an edge or a vertex.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FeatureKeys {
    /// By vertex id: for one clean mesh whose triangles share a vertex id wherever they share a
    /// position. Surface Nets meshes are not always clean in this sense (two cells can put their
    /// vertices on the same grid corner): use [`FeatureKeys::Positions`] for them.
    Indices,
    /// By the exact bits of the vertex positions (seed 001, section 6): for triangles gathered
    /// from disjoint meshes (chunks, streamed pieces) or meshes with duplicated vertices.
    #[default]
    Positions,
}

/// Parameters of a query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactOptions {
    /// How far beyond touching a triangle still makes a contact (the paper's inflated radius is the
    /// shape's radius plus this). Finite, `>= 0`.
    pub contact_distance: f32,
    /// How shared features are recognised.
    pub keys: FeatureKeys,
    /// Reduce the contacts to this many (1 to [`MAX_POINTS`]); 0 delivers every contact unreduced.
    pub max_points: usize,
}

impl Default for ContactOptions {
    /// No contact distance, position keys, reduced to 4 points.
    fn default() -> Self {
        Self { contact_distance: 0.0, keys: FeatureKeys::Positions, max_points: MAX_POINTS }
    }
}

/// What one query did, for tests, tuning and statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ContactReport {
    /// Triangles in the candidate set.
    pub candidates: usize,
    /// Skipped: a non-finite vertex or no area.
    pub degenerate: usize,
    /// Skipped: the shape lies behind the triangle's plane.
    pub culled: usize,
    /// Skipped: farther than the shape's reach plus the contact distance.
    pub far: usize,
    /// Triangles that made face contacts.
    pub faces: usize,
    /// Triangles whose contact was on an edge or a vertex (delayed).
    pub delayed: usize,
    /// Delayed contacts dropped because their feature was voided.
    pub voided: usize,
    /// Contacts delivered to the sink.
    pub emitted: usize,
    /// The sink asked to stop.
    pub stopped: bool,
}
