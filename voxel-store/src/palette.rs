//! The material palette: up to 256 materials, each with a name, a phase and a colour.

use voxel_core::{Phase, PhaseTable};

use crate::StoreError;

/// One material of the palette.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Material {
    /// Name, for tools and debugging.
    pub name: String,
    /// Solid, liquid or empty.
    pub phase: Phase,
    /// Display colour, RGBA.
    pub color: [u8; 4],
}

/// Up to 256 materials; a voxel stores the index (seed 004: "each voxel type gets its own entry in
/// the palette, and only the palette address is stored in the voxel").
///
/// A new palette holds one material, index 0, `"air"` with [`Phase::Empty`]: the material of
/// [`voxel_core::Voxel::EMPTY`].
///
/// ```
/// use voxel_core::Phase;
/// use voxel_store::Palette;
///
/// let mut palette = Palette::new();
/// let rock = palette.add("rock", Phase::Solid, [120, 120, 120, 255]).unwrap();
/// assert_eq!(rock, 1);
/// assert_eq!(palette.get(rock).unwrap().name, "rock");
/// assert!(palette.get(9).is_err());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Palette {
    materials: Vec<Material>,
    phases: PhaseTable,
}

impl Palette {
    /// A palette with only material 0, air.
    pub fn new() -> Self {
        let mut phases = PhaseTable::uniform(Phase::Empty);
        phases.set(0, Phase::Empty);
        Self { materials: vec![Material { name: "air".into(), phase: Phase::Empty, color: [0; 4] }], phases }
    }

    /// Adds a material and returns its index; [`StoreError::PaletteFull`] past 256.
    pub fn add(&mut self, name: impl Into<String>, phase: Phase, color: [u8; 4]) -> Result<u8, StoreError> {
        if self.materials.len() >= 256 {
            return Err(StoreError::PaletteFull);
        }
        let index = self.materials.len() as u8;
        self.materials.push(Material { name: name.into(), phase, color });
        self.phases.set(index, phase);
        Ok(index)
    }

    /// The material at `index`, or [`StoreError::UnknownMaterial`].
    pub fn get(&self, index: u8) -> Result<&Material, StoreError> {
        self.materials.get(usize::from(index)).ok_or(StoreError::UnknownMaterial(index))
    }

    /// Replaces material 0 (loading a file that renamed or recoloured it).
    pub(crate) fn replace_first(&mut self, name: String, phase: Phase, color: [u8; 4]) {
        self.materials[0] = Material { name, phase, color };
        self.phases.set(0, phase);
    }

    /// Fails with [`StoreError::UnknownMaterial`] unless `index` names a material.
    pub fn check(&self, index: u8) -> Result<(), StoreError> {
        self.get(index).map(|_| ())
    }

    /// Number of materials (1 to 256).
    #[inline]
    pub fn len(&self) -> usize {
        self.materials.len()
    }

    /// Always false: material 0 is always there.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.materials.is_empty()
    }

    /// All materials, by index.
    #[inline]
    pub fn materials(&self) -> &[Material] {
        &self.materials
    }

    /// The phase of every index (indices past the palette read as empty).
    #[inline]
    pub fn phases(&self) -> &PhaseTable {
        &self.phases
    }
}

impl Default for Palette {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_palette_is_an_error_and_keeps_its_materials() {
        let mut p = Palette::new();
        for i in 1..256 {
            assert_eq!(p.add(format!("m{i}"), Phase::Solid, [0; 4]).unwrap() as usize, i);
        }
        assert!(matches!(p.add("one too many", Phase::Solid, [0; 4]), Err(StoreError::PaletteFull)));
        assert_eq!(p.len(), 256);
        assert_eq!(p.get(255).unwrap().name, "m255");
    }

    #[test]
    fn phases_follow_the_materials() {
        let mut p = Palette::new();
        let water = p.add("water", Phase::Liquid, [0, 0, 255, 128]).unwrap();
        assert_eq!(p.phases().phase(water), Phase::Liquid);
        assert_eq!(p.phases().phase(0), Phase::Empty);
        assert_eq!(p.phases().phase(200), Phase::Empty, "unknown materials never collide");
        assert!(matches!(p.check(200), Err(StoreError::UnknownMaterial(200))));
    }
}
