//! Hierarchical approximate convex decomposition after Roblox's HACD (seed
//! `003_a99cbdb76048d4ca.txt`), with a robust Quickhull in 3D and 2D, uniform surface sampling and
//! one quantization distance `s` for every tolerance.
//!
//! [`decompose`] takes any [`TriangleSource`](voxel_core::TriangleSource): it scales the mesh into
//! a fixed cube, welds vertices within `s`, drops degenerate triangles, turns closed parts wound
//! inside-out outward (the concavity rays run along the normals), and then collapses the dual
//! graph (one node per triangle, one edge per shared mesh edge) cheapest edge first, as long as the
//! merged hull seals no concavity deeper than the limit. A second phase, beyond the seed, then merges
//! neighbouring hulls while the merged hull's new surface stays within
//! [`DecomposeOptions::merge_distance`] of the input surface (a bound on how far it sticks out,
//! where the seed's error bounds how deep it seals). Last, every hull is checked against the
//! input as [`tightness`] scores it, and a hull that sticks out farther than
//! [`DecomposeOptions::max_protrusion`] of the diagonal is split back into the hulls it was merged
//! from. [`DecomposeOptions::merge_through_inside`] (opt-in) lets the distance phase merge
//! through the inside of closed parts, for fewer hulls. The input surface itself is the starting
//! point: no voxelization, so doorways and ledges keep their shape. [`convex_hull`] is the hull
//! builder on its own.
//! [`tightness`] scores any set of hulls (ours, V-HACD's, CoACD's) by how far they stick out of
//! the input ([`metrics`]).
//!
//! ```
//! use glam::Vec3;
//! use voxel_core::IndexedMesh;
//! use convex_hacd::{DecomposeOptions, convex_hull, decompose};
//!
//! // Two separate boxes, each built from its corners with `convex_hull`: two hulls.
//! let mut positions = Vec::new();
//! let mut triangles = Vec::new();
//! for (lo, hi) in [(Vec3::ZERO, Vec3::new(2.0, 1.0, 1.0)), (Vec3::new(0.0, 2.0, 0.0), Vec3::new(1.0, 5.0, 1.0))] {
//!     let base = positions.len() as u32;
//!     positions.extend((0..8).map(|i| Vec3::new(
//!         if i & 1 == 0 { lo.x } else { hi.x },
//!         if i & 2 == 0 { lo.y } else { hi.y },
//!         if i & 4 == 0 { lo.z } else { hi.z },
//!     )));
//!     let hull = convex_hull(&positions[base as usize..])?;
//!     let index = |v: u32| base + positions[base as usize..].iter().position(|p| *p == hull.vertices[v as usize]).unwrap() as u32;
//!     triangles.extend(hull.triangles.iter().map(|t| t.map(index)));
//! }
//! let mesh = IndexedMesh::new(positions, triangles)?;
//! let parts = decompose(&mesh, &DecomposeOptions::default())?;
//! assert_eq!(parts.hulls.len(), 2);
//! assert_eq!(parts.hulls[1].source_triangles, (12..24).collect::<Vec<u32>>());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Conventions
//!
//! - **One epsilon.** [`DecomposeOptions::quantization`] (`s`, the seed's `ConnectDist`) is
//!   measured in the working cube ([`DecomposeOptions::cube`], the seed's `ScaleFactor`); it is
//!   raised to the float floor of the input (3 `f32::EPSILON` times the largest coordinate) when
//!   smaller. Welding, degenerate triangles, flatness ("fits in a slab of width `s`"), inside tests
//!   of the concavity error and the planes of the hull builder all derive from it.
//! - **Hulls** have outward, counter-clockwise triangles. A *flat* hull (a polygon, from the 2D
//!   path) is emitted once per side with different diagonals, so it is still a closed surface.
//!   Hull vertices are input vertices (after welding), never new points.
//! - **Coverage.** Every input point lies inside its hull or within `s` of its surface; in
//!   [`decompose`], every corner of a hull's source triangles lies within `2 s` of it (welding may
//!   move a vertex by `s`).
//! - **Bad input** never panics: NaN or infinite corners and triangles that collapse within `s`
//!   are skipped and counted ([`Decomposition::non_finite_triangles`],
//!   [`Decomposition::degenerate_triangles`]); [`convex_hull`] returns a [`HullError`] for too few,
//!   non-finite, coincident or collinear points; only unusable indices and options make
//!   [`decompose`] fail ([`DecomposeError`]).
//! - **Deterministic**: the same input gives the same hulls bit for bit, for any number of rayon
//!   threads (the `parallel` feature, on by default, builds the one-triangle nodes and evaluates
//!   the initial edge costs of both phases in parallel).
//!
//! # Known limits
//!
//! - The concavity error is the seed's: the longest ray from a sample inside the merged hull
//!   along its surface normal. It measures depth, not width, so a hull that bridges a narrow
//!   sliver of a deep cavity (the inside of a cup's wall) counts the cavity's depth; the distance
//!   phase then merges such neighbours when they stick out by less than its limit.
//!   Where no ray can see a gap (a solid hull thinner than half the limit, or than 2% of its own
//!   size, spanning a hole of a thin plate), the seed's flat-hull area test is applied along the
//!   thin direction as well; a hull thicker than both can still span a cut-out no ray sees.
//! - The distance phase bounds the new surface at its samples (inside each new triangle, and
//!   along a sliver's longest edge, the sample spacing apart); between them a face can stand up
//!   to about 0.7 spacings farther from the input. A crack or slot narrower than twice the limit can be
//!   bridged by it, as CoACD bridges them.
//! - Internal faces (two closed parts glued on a duplicated face) face into the neighbouring
//!   part and block merges across it; double-sided surfaces block merges whose hull bulges over
//!   the back side by more than the limit.
//! - [`DecomposeOptions::max_hulls`] joins only parts that share an edge or touch within `s`.

#![forbid(unsafe_code)]

mod concavity;
mod error;
mod hacd;
mod hull;
mod inside;
pub mod metrics;
mod protrusion;
mod quantize;
mod quickhull;
mod recorder;

pub use error::{DecomposeError, HullError};
pub use hacd::{ConvexHull, DecomposeOptions, Decomposition, MAX_SAMPLES, decompose};
pub use hull::{DEFAULT_RELATIVE_TOLERANCE, Hull, convex_hull, convex_hull_with_tolerance};
pub use metrics::{Tightness, TightnessError, TightnessOptions, tightness};
pub use recorder::{RecordedHull, Recorder, Step};
