//! The error types of `convex-hacd`.

use core::fmt;

/// Why [`convex_hull`](crate::convex_hull) found no hull.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HullError {
    /// Fewer than three points were given.
    TooFewPoints {
        /// How many were given.
        count: usize,
    },
    /// A coordinate is NaN or infinite.
    NonFinite {
        /// The first such point.
        index: usize,
    },
    /// All points lie within the tolerance of one point (per axis).
    AllCoincident,
    /// All points lie within the tolerance of one line.
    Collinear,
    /// The tolerance given is negative, NaN or infinite.
    InvalidTolerance,
    /// The 3D hull came out with a face folded over its neighbour, even after a second build with
    /// planes a quarter of the tolerance thick (never seen on the test sets: a hull that
    /// cannot be trusted is not returned).
    Unstable,
}

impl fmt::Display for HullError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HullError::TooFewPoints { count } => write!(f, "a hull needs at least 3 points, {count} given"),
            HullError::NonFinite { index } => write!(f, "point {index} has a NaN or infinite coordinate"),
            HullError::AllCoincident => f.write_str("all points coincide within the tolerance"),
            HullError::Collinear => f.write_str("all points lie on one line within the tolerance"),
            HullError::InvalidTolerance => f.write_str("the tolerance is negative, NaN or infinite"),
            HullError::Unstable => {
                f.write_str("the hull folded a face over its neighbour (numerically unstable input)")
            }
        }
    }
}

impl std::error::Error for HullError {}

/// Why [`decompose`](crate::decompose) could not start. Bad geometry is not an error: triangles
/// with non-finite or degenerate corners are skipped and counted in the result.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum DecomposeError {
    /// The triangle source names missing vertices or is too large.
    Mesh(voxel_core::Error),
    /// An option is out of range (the message names it).
    InvalidOptions(&'static str),
}

impl fmt::Display for DecomposeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecomposeError::Mesh(e) => write!(f, "unusable mesh: {e}"),
            DecomposeError::InvalidOptions(what) => write!(f, "invalid option: {what}"),
        }
    }
}

impl std::error::Error for DecomposeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DecomposeError::Mesh(e) => Some(e),
            DecomposeError::InvalidOptions(_) => None,
        }
    }
}

impl From<voxel_core::Error> for DecomposeError {
    fn from(e: voxel_core::Error) -> Self {
        DecomposeError::Mesh(e)
    }
}
