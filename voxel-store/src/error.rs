//! The one error type of `voxel-store`.

use core::fmt;

/// What went wrong in a store operation. Nothing already stored is lost when an operation fails.
#[derive(Debug)]
#[non_exhaustive]
pub enum StoreError {
    /// The palette already holds 256 materials.
    PaletteFull,
    /// A voxel or brush names a material the palette does not have.
    UnknownMaterial(u8),
    /// A brush or generator parameter is NaN, infinite, negative where it must not be, or too large.
    InvalidParameter(&'static str),
    /// A region is larger than `voxel_core::MAX_REGION_VOLUME` or leaves the `i32` range.
    RegionTooLarge,
    /// Reading or writing a file failed.
    Io(std::io::Error),
    /// A saved file is not in this crate's format, is truncated, or fails a checksum.
    Corrupt(&'static str),
    /// A saved file has a format version this build cannot read.
    UnsupportedVersion(u16),
    /// A `.vox` file could not be parsed.
    Vox(String),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::PaletteFull => f.write_str("the palette already holds 256 materials"),
            StoreError::UnknownMaterial(m) => write!(f, "material {m} is not in the palette"),
            StoreError::InvalidParameter(what) => write!(f, "invalid parameter: {what}"),
            StoreError::RegionTooLarge => f.write_str("region too large"),
            // The inner error is `source()`, not repeated here.
            StoreError::Io(_) => f.write_str("reading or writing a store file failed"),
            StoreError::Corrupt(what) => write!(f, "corrupt store file: {what}"),
            StoreError::UnsupportedVersion(v) => write!(f, "unsupported store file version {v}"),
            StoreError::Vox(e) => write!(f, "invalid .vox file: {e}"),
        }
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StoreError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<std::io::Error> for StoreError {
    fn from(e: std::io::Error) -> Self {
        StoreError::Io(e)
    }
}
