//! The voxel value and the phase of its material.
//!
//! As in "Smooth Voxel Mapping" (Fairbanks, 2020): a voxel is a quantized signed distance plus
//! one byte that addresses a palette. The palette belongs to whoever stores voxels; the only
//! thing physics needs from it is each material's [`Phase`], which a [`PhaseTable`] carries.

/// One voxel: a quantized signed distance and a palette index.
///
/// Negative `distance` is inside the surface, zero and positive are outside. What one unit of
/// `distance` means in world units is the storage's choice (`voxel-store` documents its scale);
/// consumers only rely on the sign and on linear interpolation between neighbours.
///
/// ```
/// use voxel_core::{Phase, PhaseTable, Voxel};
///
/// let rock = Voxel::new(-40, 1);
/// assert!(rock.is_inside());
/// assert_eq!(rock.phase(&PhaseTable::DEFAULT), Phase::Solid);
/// assert_eq!(Voxel::EMPTY.phase(&PhaseTable::DEFAULT), Phase::Empty);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(C)]
pub struct Voxel {
    /// Quantized signed distance to the surface; negative inside.
    pub distance: i8,
    /// Index into the owner's palette.
    pub material: u8,
}

impl Voxel {
    /// Far outside, material 0. Every read outside a world returns this voxel.
    pub const EMPTY: Voxel = Voxel { distance: i8::MAX, material: 0 };

    /// A voxel with the given distance and material.
    #[inline]
    pub const fn new(distance: i8, material: u8) -> Self {
        Self { distance, material }
    }

    /// True when the voxel lies inside the surface (negative distance), whatever its material.
    #[inline]
    pub const fn is_inside(self) -> bool {
        self.distance < 0
    }

    /// The phase this voxel counts as: its material's phase when inside, [`Phase::Empty`] outside.
    #[inline]
    pub fn phase(self, table: &PhaseTable) -> Phase {
        if self.is_inside() { table.phase(self.material) } else { Phase::Empty }
    }
}

impl Default for Voxel {
    fn default() -> Self {
        Self::EMPTY
    }
}

/// What a material is made of, as physics sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Phase {
    /// Air: never collides, never meshed.
    #[default]
    Empty = 0,
    /// Terrain that collides.
    Solid = 1,
    /// Water and other liquids: no collision, answers "submerged".
    Liquid = 2,
}

/// The phase of each of the 256 materials a [`Voxel`] can name.
///
/// [`PhaseTable::DEFAULT`] is what a source that has no palette uses: material 0 is empty, every
/// other material is solid.
///
/// ```
/// use voxel_core::{Phase, PhaseTable};
///
/// let mut table = PhaseTable::DEFAULT;
/// table.set(2, Phase::Liquid);
/// assert_eq!(table.phase(0), Phase::Empty);
/// assert_eq!(table.phase(1), Phase::Solid);
/// assert_eq!(table.phase(2), Phase::Liquid);
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PhaseTable {
    phases: [Phase; 256],
}

impl PhaseTable {
    /// Material 0 empty, materials 1 to 255 solid.
    pub const DEFAULT: PhaseTable = {
        let mut phases = [Phase::Solid; 256];
        phases[0] = Phase::Empty;
        PhaseTable { phases }
    };

    /// A table in which every material has the given phase.
    pub const fn uniform(phase: Phase) -> Self {
        Self { phases: [phase; 256] }
    }

    /// The phase of `material`.
    #[inline]
    pub const fn phase(&self, material: u8) -> Phase {
        self.phases[material as usize]
    }

    /// Sets the phase of `material`.
    #[inline]
    pub fn set(&mut self, material: u8, phase: Phase) {
        self.phases[material as usize] = phase;
    }

    /// All 256 phases, indexed by material.
    #[inline]
    pub fn as_array(&self) -> &[Phase; 256] {
        &self.phases
    }
}

impl Default for PhaseTable {
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl core::fmt::Debug for PhaseTable {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // Print only the materials that differ from the default, or the table is 256 lines long.
        let mut map = f.debug_map();
        for (material, phase) in self.phases.iter().enumerate() {
            if *phase != PhaseTable::DEFAULT.phases[material] {
                map.entry(&material, phase);
            }
        }
        map.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_voxels_are_empty_whatever_their_material() {
        let table = PhaseTable::uniform(Phase::Solid);
        assert_eq!(Voxel::new(0, 5).phase(&table), Phase::Empty);
        assert_eq!(Voxel::new(1, 5).phase(&table), Phase::Empty);
        assert_eq!(Voxel::new(-1, 5).phase(&table), Phase::Solid);
    }

    #[test]
    fn voxel_is_two_bytes() {
        assert_eq!(core::mem::size_of::<Voxel>(), 2);
        assert_eq!(core::mem::align_of::<Voxel>(), 1);
    }

    #[test]
    fn debug_lists_only_changes() {
        let mut table = PhaseTable::DEFAULT;
        assert_eq!(format!("{table:?}"), "{}");
        table.set(7, Phase::Liquid);
        assert_eq!(format!("{table:?}"), "{7: Liquid}");
    }
}
