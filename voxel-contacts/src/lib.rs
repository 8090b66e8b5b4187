#![doc = include_str!("../README.md")]
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
pub use voxel_core::{Contact, ContactSink, CoordinateLimit, Feature};

/// The largest coordinate, radius or extent a shape may have (and a convex polyhedron's points):
/// beyond it, squared distances and cross products overflow `f32`, and such shapes are refused
/// with [`ContactError::InvalidShape`] (or [`ContactError::InvalidPolyhedron`]).
pub const MAX_SHAPE_COORDINATE: CoordinateLimit = CoordinateLimit::new(1_000_000_000);

/// The most contact points a reduced manifold keeps.
pub const MAX_POINTS: usize = 4;

/// How two triangles are found to share an edge or a vertex.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FeatureKeys {
    /// By vertex id: for one clean mesh whose triangles share a vertex id wherever they share a
    /// position. Surface Nets meshes are not always clean in this sense (two cells can put their
    /// vertices on the same grid corner): use [`FeatureKeys::Positions`] for them.
    Indices,
    /// By the exact bits of the vertex positions (Terdiman, section 6): for triangles gathered
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
