//! A stable, reviewable text form of a [`Mesh`], for snapshot tests (`insta`) and diffs.

use core::fmt;

use crate::{Indices, Mesh};

/// The most decimals a snapshot keeps: `f32` holds about 7 significant digits.
pub const MAX_SNAPSHOT_DECIMALS: usize = 6;

/// A mesh rounded for snapshot tests: see [`Mesh::snapshot`].
///
/// Its `Display` form is one header line, one line per vertex (`v<i> x y z  m<material>`, then
/// `n nx ny nz` when the mesh has normals and `blend [ids]x[weights]` when it has blend weights)
/// one line per quad (`q<i> [a, b, c, d]`, the vertex indices of [`Mesh::quad`]) and one per lone
/// triangle after the quads (`t<i> [a, b, c]`, `i` its triangle index; none in most meshes). With the
/// `serde` feature it is `Serialize`, for `insta`'s YAML and JSON snapshots.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct MeshSnapshot {
    /// Decimals kept by every coordinate.
    pub decimals: usize,
    /// `"u16"` or `"u32"`: the width of the mesh's index buffer.
    pub index_width: &'static str,
    /// Triangles (two per quad, and the lone ones).
    pub triangle_count: usize,
    /// The vertices, in the mesh's order.
    pub vertices: Vec<SnapshotVertex>,
    /// The quads' vertex indices, in the mesh's order.
    pub quads: Vec<[u32; 4]>,
    /// The vertex indices of the triangles after the quads that pair into no quad.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Vec::is_empty"))]
    pub lone_triangles: Vec<[u32; 3]>,
}

/// One vertex of a [`MeshSnapshot`].
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SnapshotVertex {
    /// The position, rounded.
    pub position: [f64; 3],
    /// The dominant material.
    pub material: u8,
    /// The normal, rounded, when the mesh has normals.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub normal: Option<[f64; 3]>,
    /// Blend material ids and weights, when the mesh has them.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub blend: Option<([u8; 4], [u8; 4])>,
}

/// `x` rounded to `decimals` as decimal formatting rounds it (half to even on the exact value),
/// with `-0.0` made `0.0` so a sign flip of a value that rounds to zero is no diff.
fn round(x: f32, decimals: usize) -> f64 {
    let r: f64 = format!("{x:.decimals$}").parse().unwrap_or(f64::NAN);
    if r == 0.0 { 0.0 } else { r }
}

fn round3(v: glam::Vec3, decimals: usize) -> [f64; 3] {
    [round(v.x, decimals), round(v.y, decimals), round(v.z, decimals)]
}

impl Mesh {
    /// A stable text form of this mesh for snapshot tests: every coordinate rounded to `decimals`
    /// (at most [`MAX_SNAPSHOT_DECIMALS`]; more are capped), `-0.0` printed as `0.0`.
    ///
    /// Vertices and quads keep the mesh's own order, which is deterministic for a given field,
    /// region and options (whatever the thread count); a change of meshing order is a snapshot
    /// diff. With `insta`, a test of a mesh is one line:
    ///
    /// ```
    /// # use glam::IVec3;
    /// # use voxel_core::{Voxel, VoxelBox, VoxelGrid};
    /// # use voxel_mesh::{Mesh, MeshOptions, Mesher};
    /// # let region = VoxelBox::new(IVec3::ZERO, IVec3::splat(2));
    /// # let field = VoxelGrid::from_fn(region.grow(1), |p| Voxel::new(if p == IVec3::ONE { -64 } else { 64 }, 1)).unwrap();
    /// let mut mesh = Mesh::new();
    /// Mesher::new().surface_nets(&field, region, &MeshOptions::default(), &mut mesh).unwrap();
    /// let text = mesh.snapshot(3).to_string(); // insta::assert_snapshot!(mesh.snapshot(3));
    /// // One solid voxel: a closed box of 8 vertices and 6 quads.
    /// assert_eq!(text.lines().next(), Some("8 vertices, 6 quads, 12 triangles, u16 indices"));
    /// ```
    pub fn snapshot(&self, decimals: usize) -> MeshSnapshot {
        let decimals = decimals.min(MAX_SNAPSHOT_DECIMALS);
        let vertices = (0..self.positions.len())
            .map(|i| SnapshotVertex {
                position: round3(self.positions[i], decimals),
                material: self.materials.get(i).copied().unwrap_or(0),
                normal: self.normals.get(i).map(|n| round3(*n, decimals)),
                blend: self.blend.get(i).map(|b| (b.ids, b.weights)),
            })
            .collect();
        let index_width = if matches!(self.indices(), Indices::U16(_)) { "u16" } else { "u32" };
        let triangle_count = voxel_core::TriangleSource::triangle_count(self);
        let quads = (0..self.quad_count()).map(|q| self.quad(q)).collect();
        let first_lone = 2 * self.quad_count();
        #[allow(clippy::cast_possible_truncation)]
        let lone_triangles =
            (first_lone..triangle_count).map(|t| voxel_core::TriangleSource::triangle(self, t as u32)).collect();
        MeshSnapshot { decimals, index_width, triangle_count, vertices, quads, lone_triangles }
    }
}

impl fmt::Display for MeshSnapshot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = self.decimals;
        // Columns line up for coordinates from -99 to 999.
        let w = d + 4;
        let xyz = |f: &mut fmt::Formatter<'_>, v: &[f64; 3]| write!(f, "{:w$.d$} {:w$.d$} {:w$.d$}", v[0], v[1], v[2]);
        writeln!(
            f,
            "{} vertices, {} quads, {} triangles, {} indices",
            self.vertices.len(),
            self.quads.len(),
            self.triangle_count,
            self.index_width
        )?;
        for (i, v) in self.vertices.iter().enumerate() {
            write!(f, "v{i:<3} ")?;
            xyz(f, &v.position)?;
            write!(f, "  m{}", v.material)?;
            if let Some(n) = &v.normal {
                f.write_str("  n ")?;
                xyz(f, n)?;
            }
            if let Some((ids, weights)) = &v.blend {
                write!(f, "  blend {ids:?}x{weights:?}")?;
            }
            writeln!(f)?;
        }
        for (q, quad) in self.quads.iter().enumerate() {
            writeln!(f, "q{q:<3} {quad:?}")?;
        }
        let first_lone = 2 * self.quads.len();
        for (t, triangle) in (first_lone..).zip(&self.lone_triangles) {
            writeln!(f, "t{t:<3} {triangle:?}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_normalises_negative_zero() {
        assert_eq!(round(-0.0004, 3).to_bits(), 0.0f64.to_bits());
        assert_eq!(round(-0.0, 3).to_bits(), 0.0f64.to_bits());
        assert_eq!(round(-0.0006, 3), -0.001);
        assert_eq!(round(2.0625, 3), 2.062);
        assert_eq!(round(1.5, 0), 2.0);
        let snap = MeshSnapshot {
            decimals: 3,
            index_width: "u16",
            triangle_count: 0,
            vertices: vec![SnapshotVertex {
                position: round3(glam::Vec3::new(-0.0001, 1.0, -2.5), 3),
                material: 7,
                normal: Some(round3(glam::Vec3::new(0.0, -0.0, -1.0), 3)),
                blend: None,
            }],
            quads: vec![],
            lone_triangles: vec![],
        };
        assert_eq!(
            snap.to_string(),
            "1 vertices, 0 quads, 0 triangles, u16 indices\nv0     0.000   1.000  -2.500  m7  n   0.000   0.000  -1.000\n"
        );
    }

    #[test]
    fn decimals_are_capped() {
        let mesh = Mesh::new();
        assert_eq!(mesh.snapshot(40).decimals, MAX_SNAPSHOT_DECIMALS);
        assert_eq!(mesh.snapshot(0).to_string(), "0 vertices, 0 quads, 0 triangles, u16 indices\n");
    }
}
