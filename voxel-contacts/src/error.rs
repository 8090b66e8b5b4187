//! The one error type of `voxel-contacts`.

/// Why a query was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ContactError {
    /// A shape parameter is not finite or beyond
    /// [`MAX_SHAPE_COORDINATE`](crate::MAX_SHAPE_COORDINATE), a radius or extent is negative, or a
    /// rotation is not unit.
    InvalidShape,
    /// A query option is out of range.
    InvalidOptions(&'static str),
    /// [`ConvexPolyhedron::new`](crate::ConvexPolyhedron::new) was given points and faces that do
    /// not make a convex polyhedron.
    InvalidPolyhedron(&'static str),
}

impl core::fmt::Display for ContactError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ContactError::InvalidShape => {
                f.write_str("shape parameters are not finite, negative, or not unit rotation")
            }
            ContactError::InvalidOptions(why) => write!(f, "invalid contact options: {why}"),
            ContactError::InvalidPolyhedron(why) => write!(f, "invalid convex polyhedron: {why}"),
        }
    }
}

impl std::error::Error for ContactError {}
