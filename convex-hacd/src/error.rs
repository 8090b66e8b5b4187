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
    /// The triangle source names missing vertices or is too large. The cause is the error's
    /// [`source`](std::error::Error::source), not repeated in its `Display`.
    Mesh(voxel_core::Error),
    /// An option is out of range (the message names it).
    InvalidOptions(&'static str),
}

impl fmt::Display for DecomposeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecomposeError::Mesh(_) => f.write_str("unusable mesh"),
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

/// Why [`tightness`](crate::tightness) could not score the hulls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TightnessError {
    /// The input has no triangle with finite corners and a bounding box of some size.
    EmptyInput,
    /// A hull's triangle names a vertex it does not have.
    BadHullIndex {
        /// The hull, in the order given.
        hull: usize,
    },
    /// A hull vertex is NaN or infinite.
    NonFiniteHull {
        /// The hull, in the order given.
        hull: usize,
    },
    /// `samples` is 0 or `threshold` is negative, NaN or infinite.
    InvalidOptions,
    /// The input mesh's indices are unusable (a vertex index out of range, counts beyond `u32`).
    BadMesh,
}

impl fmt::Display for TightnessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TightnessError::EmptyInput => f.write_str("the input mesh has no usable triangle"),
            TightnessError::BadHullIndex { hull } => write!(f, "hull {hull} has a triangle index out of range"),
            TightnessError::NonFiniteHull { hull } => write!(f, "hull {hull} has a NaN or infinite vertex"),
            TightnessError::InvalidOptions => {
                f.write_str("samples must be at least 1 and threshold non-negative and finite")
            }
            TightnessError::BadMesh => f.write_str("the input mesh names a vertex it does not have"),
        }
    }
}

impl std::error::Error for TightnessError {}
