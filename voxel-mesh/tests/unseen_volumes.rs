//! An independent audit on volumes generated here (balls, blobs, noise caves, one-voxel pillars and
//! walls, thin sheets, staircases, checkerboards, single voxels, random occupancy), placed across
//! chunk seams and corners, near the coordinate limit too, against references written from the
//! README's conventions (`unseen_volumes/reference.rs`), not from the crate's code:
//!
//! - Surface Nets equals a reference Naive Surface Nets (f64): same cubes get vertices, each at the
//!   mean of its edge crossings and inside its cube, same quads with outward winding, normals along
//!   the trilinear gradient, dominant materials and blend weights; closed, positive volume, no
//!   zero-area triangle.
//! - Chunk by chunk (chunk grids of any edge and offset) gives the whole region's triangles, bit for
//!   bit, and the chunks' union is closed when vertices are merged by position.
//! - Blocky (greedy, visible faces, face list) covers exactly a brute-force face set, once, with
//!   the right material and winding; the enclosed volume is the inside voxel count.
//! - Boxes of many shapes over random fields of all 256 materials under random phase tables: the
//!   same two references.
//! - Reusing a `Mesher` in any order and meshing on two threads give the bits of a fresh mesher.
//! - Bad regions and bad sources: typed errors or empty meshes, never a panic.

#[path = "unseen_volumes/reference.rs"]
mod reference;

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};

use glam::{DVec3, IVec3, Vec3};
use proptest::prelude::*;
use reference::{Shape, Volume, counts, phases, reference_faces, reference_surface_nets};
use voxel_core::{Error as CoreError, Phase, PhaseTable, TriangleSource, Voxel, VoxelBox, VoxelGrid, VoxelSource};
use voxel_mesh::{Face, MAX_COORDINATE, MAX_MESH_VOLUME, Mesh, MeshError, MeshOptions, Mesher, Surface};

// ---------------------------------------------------------------- strategies

fn vec3_in(lo: f32, hi: f32) -> impl Strategy<Value = Vec3> {
    (lo..hi, lo..hi, lo..hi).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

fn shape(n: i32) -> impl Strategy<Value = Shape> {
    let nf = n as f32;
    prop_oneof![
        // Spheres and blobs with distances from 0.5 to 40 units per voxel.
        (prop::collection::vec((vec3_in(0.0, nf), 0.3f32..nf / 2.0), 1..4), 0.5f32..40.0)
            .prop_map(|(balls, scale)| Shape::Balls { balls, scale }),
        (vec3_in(nf / 3.0, 2.0 * nf / 3.0), 2.0f32..nf, 1i32..5, 40u8..200)
            .prop_map(|(center, radius, cell, threshold)| Shape::Caves { center, radius, cell, threshold }),
        (0usize..3, [0..n, 0..n], 0..n, 0..n).prop_map(|(axis, at, a, b)| Shape::Pillar {
            axis,
            at,
            lo: a.min(b),
            hi: a.max(b) + 1
        }),
        (0usize..3, 0..n, 1i32..3, [0..n, 0..n], [0..n, 0..n]).prop_map(|(axis, layer, thickness, a, b)| {
            Shape::Wall {
                axis,
                layer,
                thickness,
                lo: [a[0].min(b[0]), a[1].min(b[1])],
                hi: [a[0].max(b[0]) + 1, a[1].max(b[1]) + 1],
            }
        }),
        ((0usize..3, 1usize..3), 0..2 * n, [0..n, 0..n]).prop_map(|((a, db), k, w)| Shape::Stairs {
            a,
            b: (a + db) % 3,
            k,
            width: [w[0].min(w[1]), w[0].max(w[1]) + 1]
        }),
        (prop::array::uniform3(0..n), prop::array::uniform3(1..n + 1)).prop_map(|(a, b)| {
            let (a, b) = (IVec3::from_array(a), IVec3::from_array(b));
            Shape::Checker { lo: a.min(b - 1), hi: a.max(b) }
        }),
        prop::collection::vec(prop::array::uniform3(0..n).prop_map(IVec3::from_array), 1..4)
            .prop_map(|points| Shape::Points { points }),
        (prop::array::uniform3(0..n), prop::array::uniform3(1..n + 1), 20u8..236).prop_map(|(a, b, density)| {
            let (a, b) = (IVec3::from_array(a), IVec3::from_array(b));
            Shape::Random { lo: a.min(b - 1), hi: a.max(b), density }
        }),
    ]
}

/// Origins near the world's centre, and some near either end of the coordinate limit.
fn origin(n: i32) -> impl Strategy<Value = IVec3> {
    let l = MAX_COORDINATE.get();
    let axis = prop_oneof![6 => -40i32..40, 1 => (l - n - 8)..(l - n - 3), 1 => (-l + 3)..(-l + 8)];
    (axis.clone(), axis.clone(), axis).prop_map(|(x, y, z)| IVec3::new(x, y, z))
}

fn volume(zero_outside: bool) -> impl Strategy<Value = Volume> {
    // Mostly small boxes; one in eight from 60 to 72 voxels, so packed 64-bit rows split inside
    // the shape.
    prop_oneof![8 => 4i32..15, 1 => 60i32..73].prop_flat_map(move |n| {
        (shape(n), origin(n), any::<u64>(), 1u8..5).prop_map(move |(shape, origin, seed, materials)| Volume {
            shape,
            origin,
            n,
            seed,
            materials,
            zero_outside,
        })
    })
}

fn surface() -> impl Strategy<Value = Surface> {
    prop_oneof![3 => Just(Surface::Solid), 1 => Just(Surface::Liquid), 1 => Just(Surface::All)]
}

// ---------------------------------------------------------------- helpers

/// Chunks of edge `edge` whose grid is shifted by `shift`, covering `region`; and their union.
fn chunk_grid(region: VoxelBox, edge: i32, shift: IVec3) -> (Vec<VoxelBox>, VoxelBox) {
    let e = IVec3::splat(edge);
    let lo = (region.min - shift).div_euclid(e);
    let hi = (region.max - IVec3::ONE - shift).div_euclid(e) + IVec3::ONE;
    let keys = VoxelBox::new(lo, hi);
    // Chunks are clipped to the meshable range (README: both corners within MAX_COORDINATE).
    let l = MAX_COORDINATE.get();
    let limit = VoxelBox::new(IVec3::splat(-l), IVec3::splat(l));
    let chunks: Vec<VoxelBox> = keys
        .iter()
        .map(|k| VoxelBox::from_min_size(shift + k * e, e).intersection(&limit))
        .filter(|c| !c.is_empty())
        .collect();
    let union = VoxelBox::new(shift + lo * e, shift + hi * e).intersection(&limit);
    (chunks, union)
}

/// f32 rounding allowance at `p`'s magnitude: a few ulps, at least 1e-4.
fn tolerance(p: Vec3) -> f64 {
    let m = f64::from(p.abs().max_element()).max(1.0);
    (m * f64::from(f32::EPSILON) * 2.0).max(1e-4)
}

fn twice_area(a: Vec3, b: Vec3, c: Vec3) -> f64 {
    let (a, b, c) = (a.as_dvec3(), b.as_dvec3(), c.as_dvec3());
    (b - a).cross(c - a).length()
}

/// Signed volume enclosed by the mesh (positive when it winds outward), about `at`.
fn signed_volume(m: &Mesh, at: DVec3) -> f64 {
    (0..m.triangle_count() as u32)
        .map(|t| {
            let [a, b, c] = m.triangle_positions(t).map(|p| p.as_dvec3() - at);
            a.dot(b.cross(c)) / 6.0
        })
        .sum()
}

/// Directed edges keyed by `key(vertex)`: every one must be used as often as its reverse.
fn unbalanced_edge<K: Ord + Copy + core::fmt::Debug>(
    meshes: &[&Mesh],
    key: impl Fn(&Mesh, u32) -> K,
) -> Option<(K, K, i32, i32)> {
    let mut directed: BTreeMap<(K, K), i32> = BTreeMap::new();
    for m in meshes {
        for t in 0..m.triangle_count() as u32 {
            let [a, b, c] = m.triangle(t).map(|v| key(m, v));
            for (u, v) in [(a, b), (b, c), (c, a)] {
                *directed.entry((u, v)).or_default() += 1;
            }
        }
    }
    directed.iter().find_map(|(&(u, v), &n)| {
        let back = directed.get(&(v, u)).copied().unwrap_or(0);
        (back != n).then_some((u, v, n, back))
    })
}

fn position_key(m: &Mesh, v: u32) -> [u32; 3] {
    m.positions()[v as usize].to_array().map(f32::to_bits)
}

/// Triangles as bit patterns of each corner's position, normal and material, rotated so the
/// smallest corner comes first (keeps winding), sorted.
fn triangle_keys(m: &Mesh, out: &mut Vec<[[u32; 7]; 3]>) {
    for t in 0..m.triangle_count() as u32 {
        let k = m.triangle(t).map(|v| {
            let (p, n) = (m.positions()[v as usize], m.normals().get(v as usize).copied().unwrap_or_default());
            let [a, b, c, d, e, f] = [p.x, p.y, p.z, n.x, n.y, n.z].map(f32::to_bits);
            [a, b, c, d, e, f, u32::from(m.materials()[v as usize])]
        });
        let first = (0..3).min_by_key(|&i| k[i]).unwrap();
        out.push([k[first], k[(first + 1) % 3], k[(first + 2) % 3]]);
    }
}

/// The smallest of the quad's four rotations (keeps winding; well defined with repeated corners).
fn rotate_min_first<T: Ord + Copy>(q: [T; 4]) -> [T; 4] {
    (0..4).map(|i| [q[i], q[(i + 1) % 4], q[(i + 2) % 4], q[(i + 3) % 4]]).min().unwrap()
}

/// Checks a Surface Nets mesh of `region` of `grid` against the reference. Returns an error text.
fn check_surface_nets(
    grid: &VoxelGrid,
    region: VoxelBox,
    options: &MeshOptions,
    m: &Mesh,
    nondegenerate: bool,
) -> Result<(), String> {
    let table = grid.phase_table().clone();
    let reference = reference_surface_nets(&|p| grid.get(p), region, options.surface, &table);
    if m.positions().len() != reference.vertices.len() {
        return Err(format!("{} vertices, reference {}", m.positions().len(), reference.vertices.len()));
    }
    if options.normals == m.normals().is_empty() && !m.positions().is_empty() {
        return Err("normals present iff asked".into());
    }
    // Each vertex to the cube whose reference vertex it is.
    let mut cube_of = Vec::with_capacity(m.positions().len());
    let mut seen = BTreeMap::new();
    for (i, p) in m.positions().iter().enumerate() {
        if !p.is_finite() {
            return Err(format!("vertex {i} not finite: {p}"));
        }
        let tol = tolerance(*p);
        let base = p.floor().as_ivec3();
        // The reference vertices of the cubes around the point within rounding: usually one; where
        // distance-0 corners make several cubes' vertices meet at a grid point, the first unused
        // one whose attributes agree.
        let mut candidates: Vec<([i32; 3], f64)> = (0..8)
            .map(|k| (base - reference::corner_offset(k)).to_array())
            .filter_map(|c| reference.vertices.get(&c).map(|r| (c, r.position.distance(p.as_dvec3()))))
            .filter(|c| c.1 <= tol && !seen.contains_key(&c.0))
            .collect();
        candidates.sort_by(|a, b| a.1.total_cmp(&b.1));
        let attributes = |cube: [i32; 3]| -> Result<(), String> {
            let c = IVec3::from_array(cube).as_dvec3();
            let pd = p.as_dvec3();
            if pd.cmplt(c - tol).any() || pd.cmpgt(c + 1.0 + tol).any() {
                return Err(format!("vertex {i} at {p} outside its cube {cube:?}"));
            }
            let r = &reference.vertices[&cube];
            if m.materials()[i] != r.material {
                return Err(format!(
                    "vertex {i} of cube {cube:?}: material {}, reference {}",
                    m.materials()[i],
                    r.material
                ));
            }
            if options.blend {
                let b = m.blend()[i];
                if (b.ids, b.weights) != (r.ids, r.weights) {
                    return Err(format!("vertex {i}: blend {b:?}, reference {:?}/{:?}", r.ids, r.weights));
                }
            }
            if options.normals {
                let n = m.normals()[i];
                if !n.is_finite() || (n.length() - 1.0).abs() > 1e-4 {
                    return Err(format!("vertex {i}: normal {n} not unit"));
                }
                if r.gradient.length_squared() > 1e-6 && n.as_dvec3().dot(r.gradient.normalize()) < 0.999 {
                    return Err(format!("vertex {i} at {p}: normal {n}, reference gradient {}", r.gradient));
                }
            }
            Ok(())
        };
        let Some(&(cube, _)) = candidates.iter().find(|c| attributes(c.0).is_ok()) else {
            return Err(match candidates.first() {
                None => format!("vertex {i} at {p} is no (unused) reference vertex of a cube around it"),
                Some(c) => attributes(c.0).unwrap_err(),
            });
        };
        seen.insert(cube, i);
        cube_of.push(cube);
    }
    // Quads as the reference positions of their corners: cubes whose vertices coincide are
    // interchangeable. Where corners coincide (the README: no triangle has two corners at one
    // point), a reference quad whose perimeter, repeats in a row dropped, has three distinct
    // corners is a lone triangle after the quads, and one enclosing no area is not in the mesh.
    let at = |c: &[i32; 3]| reference.vertices[c].position.to_array().map(f64::to_bits);
    let mut ours: Vec<[[u64; 3]; 4]> =
        (0..m.quad_count()).map(|q| rotate_min_first(m.quad(q).map(|v| at(&cube_of[v as usize])))).collect();
    let mut theirs: Vec<[[u64; 3]; 4]> = Vec::new();
    let mut their_lone: Vec<[[u64; 3]; 3]> = Vec::new();
    for q in &reference.quads {
        let corners = q.map(|c| at(&c));
        let mut ring: Vec<[u64; 3]> =
            (0..4).filter(|&i| corners[i] != corners[(i + 1) % 4]).map(|i| corners[i]).collect();
        let mut distinct = ring.clone();
        distinct.sort_unstable();
        distinct.dedup();
        if distinct.len() != ring.len() {
            continue;
        }
        match ring.len() {
            4 => theirs.push(rotate_min_first(corners)),
            3 => {
                let k = (0..3).min_by_key(|&i| ring[i]).unwrap();
                ring.rotate_left(k);
                their_lone.push([ring[0], ring[1], ring[2]]);
            }
            _ => {}
        }
    }
    ours.sort_unstable();
    theirs.sort_unstable();
    if ours != theirs {
        let missing: Vec<_> = theirs.iter().filter(|q| !ours.contains(q)).take(3).collect();
        let extra: Vec<_> = ours.iter().filter(|q| !theirs.contains(q)).take(3).collect();
        return Err(format!(
            "{} quads, reference {}; missing (or wound the other way) {missing:?}; extra {extra:?}",
            ours.len(),
            theirs.len()
        ));
    }
    let first_lone = 2 * m.quad_count() as u32;
    if m.triangle_count() != 2 * m.quad_count() + m.lone_triangle_count() {
        return Err(format!(
            "{} triangles, {} quads, {} lone",
            m.triangle_count(),
            m.quad_count(),
            m.lone_triangle_count()
        ));
    }
    let mut our_lone: Vec<[[u64; 3]; 3]> = (first_lone..m.triangle_count() as u32)
        .map(|t| {
            let mut c = m.triangle(t).map(|v| at(&cube_of[v as usize]));
            let k = (0..3).min_by_key(|&i| c[i]).unwrap();
            c.rotate_left(k);
            c
        })
        .collect();
    our_lone.sort_unstable();
    their_lone.sort_unstable();
    if our_lone != their_lone {
        return Err(format!("lone triangles {our_lone:?}, reference {their_lone:?}"));
    }
    for t in first_lone..m.triangle_count() as u32 {
        let tri = m.triangle(t);
        let [a, b, cc] = tri.map(|v| m.materials()[v as usize]);
        let want = if b == cc { b } else { a };
        if m.triangle_material(t) != want {
            return Err(format!("lone triangle {t}: material {}, corners {a} {b} {cc}", m.triangle_material(t)));
        }
        let [a, b, cc] = tri.map(|v| m.positions()[v as usize]);
        if nondegenerate && twice_area(a, b, cc) <= 0.0 {
            return Err(format!("lone triangle {t}: zero area {a} {b} {cc}"));
        }
    }
    for q in 0..m.quad_count() {
        let t0 = m.triangle(2 * q as u32);
        let t1 = m.triangle(2 * q as u32 + 1);
        let c = m.quad(q);
        if t0 != [c[0], c[1], c[2]] || t1 != [c[0], c[2], c[3]] {
            return Err(format!("quad {q} {c:?}: triangles {t0:?} {t1:?}"));
        }
        // `TriangleSource::triangle_material`: the material two corners share, else the first's.
        for (t, tri) in [(2 * q as u32, t0), (2 * q as u32 + 1, t1)] {
            let [a, b, cc] = tri.map(|v| m.materials()[v as usize]);
            let want = if b == cc { b } else { a };
            if m.triangle_material(t) != want {
                return Err(format!("triangle {t}: material {}, corners {a} {b} {cc}", m.triangle_material(t)));
            }
        }
        if nondegenerate {
            for t in [t0, t1] {
                let [a, b, cc] = t.map(|v| m.positions()[v as usize]);
                if twice_area(a, b, cc) <= 0.0 {
                    return Err(format!("quad {q}: zero-area triangle {a} {b} {cc}"));
                }
            }
        }
    }
    Ok(())
}

/// Splits blocky quads into unit faces `(voxel, direction) -> material`, checking each is a flat,
/// axis-aligned rectangle of one material, wound counter-clockwise seen from its outward side, with
/// its normal (when written) along that side.
fn unit_faces_of(m: &Mesh, faces: &mut BTreeMap<([i32; 3], u8), u8>) -> Result<(), String> {
    for q in 0..m.quad_count() {
        let idx = m.quad(q);
        let c = idx.map(|i| m.positions()[i as usize]);
        let mats = idx.map(|i| m.materials()[i as usize]);
        if mats.iter().any(|&x| x != mats[0]) {
            return Err(format!("quad {q}: materials {mats:?}"));
        }
        let lo = c.iter().fold(Vec3::INFINITY, |a, p| a.min(*p));
        let hi = c.iter().fold(Vec3::NEG_INFINITY, |a, p| a.max(*p));
        let flat: Vec<usize> = (0..3).filter(|&a| lo[a] == hi[a]).collect();
        if flat.len() != 1 || lo.fract() != Vec3::ZERO || hi.fract() != Vec3::ZERO {
            return Err(format!("quad {q}: not an axis-aligned integer rectangle: {c:?}"));
        }
        let axis = flat[0];
        // Corners are the rectangle's four corners, each once.
        let mut cs: Vec<[u32; 3]> = c.iter().map(|p| p.to_array().map(f32::to_bits)).collect();
        cs.sort_unstable();
        cs.dedup();
        if cs.len() != 4 || c.iter().any(|p| (0..3).any(|a| p[a] != lo[a] && p[a] != hi[a])) {
            return Err(format!("quad {q}: corners {c:?} are not a rectangle's"));
        }
        let winding = (c[1] - c[0]).cross(c[2] - c[0]) + (c[2] - c[0]).cross(c[3] - c[0]);
        let positive = winding[axis] > 0.0;
        if winding[axis] == 0.0 {
            return Err(format!("quad {q}: zero area {c:?}"));
        }
        // Both triangles wind like the quad.
        for t in [2 * q as u32, 2 * q as u32 + 1] {
            let [a, b, cc] = m.triangle_positions(t);
            let w = (b - a).cross(cc - a)[axis];
            if (w > 0.0) != positive || w == 0.0 {
                return Err(format!("quad {q}: triangle {t} winds against the quad or is degenerate"));
            }
        }
        let d = 2 * axis as u8 + u8::from(positive);
        if !m.normals().is_empty() {
            for i in idx {
                if m.normals()[i as usize] != reference::direction(d).as_vec3() {
                    return Err(format!("quad {q}: normal {} against winding {d}", m.normals()[i as usize]));
                }
            }
        }
        let (lo, hi) = (lo.as_ivec3(), hi.as_ivec3());
        let mut span = hi - lo;
        span[axis] = 1;
        for cell in VoxelBox::from_min_size(lo, span).iter() {
            // A +axis face lies on its voxel's far side.
            let voxel = if positive { cell - reference::direction(d) } else { cell };
            if faces.insert((voxel.to_array(), d), mats[0]).is_some() {
                return Err(format!("face {voxel} dir {d} emitted twice (quad {q})"));
            }
        }
    }
    Ok(())
}

fn first_difference(a: &BTreeMap<([i32; 3], u8), u8>, b: &BTreeMap<([i32; 3], u8), u8>) -> String {
    let missing = b.iter().find(|(k, _)| !a.contains_key(k));
    let extra = a.iter().find(|(k, _)| !b.contains_key(k));
    let wrong = a.iter().find(|(k, v)| b.get(k).is_some_and(|w| w != *v));
    format!("{} faces, reference {}; missing {missing:?}; extra {extra:?}; wrong material {wrong:?}", a.len(), b.len())
}

fn inside_count(grid: &VoxelGrid, region: VoxelBox, surface: Surface) -> usize {
    let t = grid.phase_table().clone();
    region.iter().filter(|&p| counts(surface, grid.get(p), &t)).count()
}

// ---------------------------------------------------------------- properties

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Surface Nets of a whole closed volume equals the reference, is closed and consistently
    /// wound, encloses a positive volume and has no zero-area triangle.
    #[test]
    fn surface_nets_equals_the_reference(vol in volume(false), surface in surface(), blend in any::<bool>(),
                                         normals in any::<bool>()) {
        let options = MeshOptions { surface, normals, blend, ..MeshOptions::default() };
        let mut mesher = Mesher::new();
        // Far from the origin f32 positions keep 1/16-1/8 of a voxel, too little to tell
        // neighbouring cubes' vertices apart: there the mesh must be the mesh of the same volume
        // near the origin, translated (indices, normals, materials bit for bit), and the near one
        // (but quads may split along the other diagonal) is checked against the reference.
        let far = vol.origin.abs().max_element() > 1000;
        let near_vol = Volume { origin: vol.origin.rem_euclid(IVec3::splat(64)) - 32, ..vol.clone() };
        let region = near_vol.region();
        let grid = near_vol.grid(region.grow(2));
        let mut m = Mesh::new();
        mesher.surface_nets(&grid, region, &options, &mut m).unwrap();
        if far {
            let far_grid = vol.grid(vol.region().grow(2));
            let mut f = Mesh::new();
            mesher.surface_nets(&far_grid, vol.region(), &options, &mut f).unwrap();
            // The same quads; each may split along the other diagonal (the shorter one of
            // rounded positions). Where rounding put corners of a quad at one point, it is reduced
            // as the README says (no triangle with two corners at one point): computed here from
            // the near quads and the far positions.
            prop_assert_eq!(f.positions().len(), m.positions().len());
            let (quads, lone) = reduced_far(&m, f.positions());
            let ours = (0..f.quad_count()).map(|q| rotate_min_first(f.quad(q))).collect::<Vec<_>>();
            prop_assert_eq!(ours, quads);
            let mut our_lone: Vec<_> =
                (2 * f.quad_count() as u32..f.triangle_count() as u32).map(|t| rotate_min_first3(f.triangle_positions(t).map(|p| p.to_array().map(f32::to_bits)))).collect();
            our_lone.sort_unstable();
            prop_assert_eq!(our_lone, lone);
            prop_assert_eq!(f.normals(), m.normals());
            prop_assert_eq!(f.materials(), m.materials());
            prop_assert_eq!(f.blend(), m.blend());
            let delta = (vol.origin - near_vol.origin).as_dvec3();
            for (a, b) in f.positions().iter().zip(m.positions()) {
                let want = b.as_dvec3() + delta;
                prop_assert!((a.as_dvec3() - want).abs().max_element() <= tolerance(*a),
                    "far vertex {} is not the near vertex {} translated", a, b);
            }
        }
        if let Err(e) = check_surface_nets(&grid, region, &options, &m, true) {
            prop_assert!(false, "{}", e);
        }
        prop_assert_eq!(unbalanced_edge(&[&m], |_, v| v), None);
        prop_assert_eq!(matches!(m.indices(), voxel_mesh::Indices::U32(_)), m.positions().len() > 1 << 16);
        if !m.is_empty() {
            let v = signed_volume(&m, near_vol.inner().min.as_dvec3());
            prop_assert!(v > 0.0, "enclosed volume {} not positive: triangles wind inward", v);
        }
    }

    /// Same with distance-0 outside voxels (on the surface, outside by the README): the reference
    /// still holds, with quads whose corners meet reduced as the README says, no triangle has
    /// zero area, and the surface is still closed by position (vertices of several cubes meeting
    /// at a point are distinct indices, and a left-out triangle `p1, b, p2` with `p1` and `p2` at
    /// one point left `p1 -> b` and `b -> p2` paired only by position).
    #[test]
    fn surface_nets_with_zero_distances_equals_the_reference(vol in volume(true), surface in surface()) {
        // Near the origin only: far from it, rounding merges neighbouring vertices (the test above
        // checks far volumes against their near copies).
        let vol = Volume { origin: vol.origin.rem_euclid(IVec3::splat(64)) - 32, ..vol };
        let region = vol.region();
        let grid = vol.grid(region.grow(2));
        let options = MeshOptions { surface, blend: true, ..MeshOptions::default() };
        let mut m = Mesh::new();
        Mesher::new().surface_nets(&grid, region, &options, &mut m).unwrap();
        if let Err(e) = check_surface_nets(&grid, region, &options, &m, true) {
            prop_assert!(false, "{}", e);
        }
        prop_assert_eq!(unbalanced_edge(&[&m], position_key), None);
        for p in m.positions() {
            prop_assert!(p.is_finite());
        }
        for n in m.normals() {
            prop_assert!(n.is_finite() && (n.length() - 1.0).abs() < 1e-4, "normal {}", n);
        }
    }

    /// Chunk by chunk on a shifted chunk grid gives the whole region's triangles bit for bit
    /// (positions and normals), none twice, and the chunks together are closed by position.
    #[test]
    fn surface_nets_chunks_join_like_the_whole(vol in volume(false), edge in prop_oneof![4 => 1i32..18, 1 => 60i32..80],
                                              shift in prop::array::uniform3(0i32..17), surface in surface()) {
        let (chunks, union) = chunk_grid(vol.region(), edge.max(vol.n / 4), IVec3::from_array(shift));
        let grid = vol.grid(union.grow(2));
        let options = MeshOptions { surface, ..MeshOptions::default() };
        let mut mesher = Mesher::new();
        let mut whole = Mesh::new();
        mesher.surface_nets(&grid, union, &options, &mut whole).unwrap();
        let mut want = Vec::new();
        triangle_keys(&whole, &mut want);
        want.sort_unstable();
        let mut got = Vec::new();
        let mut parts = Vec::new();
        for chunk in &chunks {
            let mut part = Mesh::new();
            mesher.surface_nets(&grid, *chunk, &options, &mut part).unwrap();
            triangle_keys(&part, &mut got);
            parts.push(part);
        }
        got.sort_unstable();
        prop_assert_eq!(got.len(), want.len());
        prop_assert!(got == want, "chunked triangles differ from the whole region's");
        let refs: Vec<&Mesh> = parts.iter().collect();
        prop_assert_eq!(unbalanced_edge(&refs, position_key), None);
    }

    /// Greedy blocky quads, visible faces and the face list cover exactly the brute-force faces,
    /// once each, with their voxel's material; quads wind outward; the enclosed volume is the
    /// inside voxel count; chunks on a shifted grid give the same faces.
    #[test]
    fn blocky_covers_the_brute_force_faces(vol in volume(false), surface in surface(),
                                           edge in prop_oneof![4 => 1i32..12, 1 => 60i32..80],
                                           shift in prop::array::uniform3(0i32..11), fewest in any::<bool>(),
                                           normals in any::<bool>(), blend in any::<bool>()) {
        let (chunks, union) = chunk_grid(vol.region(), edge.max(vol.n / 4), IVec3::from_array(shift));
        let grid = vol.grid(union.grow(2));
        let table = grid.phase_table().clone();
        let want = reference_faces(&|p| grid.get(p), union, surface, &table);
        let options = MeshOptions { surface, normals, blend, fewest_quads: fewest };
        let mut mesher = Mesher::new();
        let mut m = Mesh::new();

        mesher.blocky(&grid, union, &options, &mut m).unwrap();
        let mut got = BTreeMap::new();
        if let Err(e) = unit_faces_of(&m, &mut got) {
            prop_assert!(false, "greedy: {}", e);
        }
        prop_assert!(got == want, "greedy whole: {}", first_difference(&got, &want));
        let inside = inside_count(&grid, union, surface) as f64;
        let v = signed_volume(&m, vol.inner().min.as_dvec3());
        prop_assert!((v - inside).abs() < 1e-6 * inside.max(1.0) + 1e-3, "greedy volume {} for {} inside voxels", v, inside);
        if blend {
            for (b, &mat) in m.blend().iter().zip(m.materials()) {
                prop_assert_eq!((b.ids, b.weights), ([mat, 0, 0, 0], [255, 0, 0, 0]));
            }
        }

        prop_assert_eq!(matches!(m.indices(), voxel_mesh::Indices::U32(_)), m.positions().len() > 1 << 16);
        mesher.visible_faces(&grid, union, &options, &mut m).unwrap();
        prop_assert_eq!(matches!(m.indices(), voxel_mesh::Indices::U32(_)), m.positions().len() > 1 << 16);
        let mut unit = BTreeMap::new();
        if let Err(e) = unit_faces_of(&m, &mut unit) {
            prop_assert!(false, "visible faces: {}", e);
        }
        prop_assert!(unit == want, "visible faces: {}", first_difference(&unit, &want));
        prop_assert_eq!(m.quad_count(), want.len());
        prop_assert_eq!(unbalanced_edge(&[&m], position_key), None);

        let mut list = Vec::new();
        mesher.face_list(&grid, union, surface, &mut list).unwrap();
        prop_assert_eq!(list.len(), m.quad_count());
        let mut listed = BTreeMap::new();
        for (i, f) in list.iter().enumerate() {
            prop_assert!(listed.insert((f.voxel(union.min).to_array(), f.direction()), f.material()).is_none());
            let corners = m.quad(i).map(|v| m.positions()[v as usize]);
            prop_assert_eq!(f.corners(union.min), corners, "face {} against quad {}", i, i);
        }
        prop_assert!(listed == want, "face list: {}", first_difference(&listed, &want));

        let mut chunked = BTreeMap::new();
        let mut chunked_faces = BTreeMap::new();
        for chunk in &chunks {
            mesher.blocky(&grid, *chunk, &options, &mut m).unwrap();
            if let Err(e) = unit_faces_of(&m, &mut chunked) {
                prop_assert!(false, "greedy chunk {:?}: {}", chunk, e);
            }
            mesher.face_list(&grid, *chunk, surface, &mut list).unwrap();
            for f in &list {
                prop_assert!(chunked_faces.insert((f.voxel(chunk.min).to_array(), f.direction()), f.material()).is_none());
            }
        }
        prop_assert!(chunked == want, "greedy chunks: {}", first_difference(&chunked, &want));
        prop_assert!(chunked_faces == want, "face list chunks: {}", first_difference(&chunked_faces, &want));
    }
}

/// A random field over any box: inside with probability `density`/256, distances of any
/// magnitude (0 allowed outside), any of the 256 materials, under a random phase table.
fn any_field(seed: u64, bounds: VoxelBox, density: u8, table: &PhaseTable) -> VoxelGrid {
    VoxelGrid::from_fn(bounds, |p| {
        let h = reference::hash(seed, p);
        let magnitude = ((h >> 8) % 129) as i16;
        let material = (h >> 24) as u8;
        if (h & 0xff) < u64::from(density) {
            Voxel::new((-magnitude.max(1)) as i8, material)
        } else {
            Voxel::new(magnitude.min(127) as i8, material)
        }
    })
    .unwrap()
    .with_phases(table.clone())
}

fn phase_table() -> impl Strategy<Value = PhaseTable> {
    // Few materials left out (the SSE2 set path) or many (the table-lookup path).
    (any::<u64>(), prop_oneof![Just(2u64), Just(16), Just(128), Just(250)]).prop_map(|(seed, odds)| {
        let mut t = PhaseTable::DEFAULT;
        for m in 0..=255u8 {
            let h = reference::mix(seed ^ u64::from(m));
            let phase = match h % 256 {
                x if x < odds / 2 => Phase::Empty,
                x if x < odds => Phase::Liquid,
                _ => Phase::Solid,
            };
            t.set(m, phase);
        }
        t
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Regions of many shapes (1 to 90 voxels along x, so rows of one or two 64-bit words; thin
    /// slabs and long rows) over random fields of all 256 materials under random phase tables: Surface Nets
    /// equals the reference, blocky the brute-force faces.
    #[test]
    fn any_box_any_phase_table(seed in any::<u64>(), size in (1i32..91, prop_oneof![1i32..4, 1i32..24], prop_oneof![1i32..4, 1i32..24]),
                               min in prop::array::uniform3(-70i32..70), density in 1u8..255,
                               table in phase_table(), surface in surface()) {
        let region = VoxelBox::from_min_size(IVec3::from_array(min), IVec3::new(size.0, size.1, size.2));
        let grid = any_field(seed, region.grow(2), density, &table);
        let options = MeshOptions { surface, blend: true, ..MeshOptions::default() };
        let mut mesher = Mesher::new();
        let mut m = Mesh::new();
        mesher.surface_nets(&grid, region, &options, &mut m).unwrap();
        // Distance-0 voxels: no zero-area check here.
        if let Err(e) = check_surface_nets(&grid, region, &options, &m, false) {
            prop_assert!(false, "{}", e);
        }
        let want = reference_faces(&|p| grid.get(p), region, surface, &table);
        mesher.blocky(&grid, region, &options, &mut m).unwrap();
        let mut got = BTreeMap::new();
        if let Err(e) = unit_faces_of(&m, &mut got) {
            prop_assert!(false, "greedy: {}", e);
        }
        prop_assert!(got == want, "greedy: {}", first_difference(&got, &want));
        let mut list = Vec::new();
        mesher.face_list(&grid, region, surface, &mut list).unwrap();
        let listed: BTreeMap<_, _> =
            list.iter().map(|f| ((f.voxel(region.min).to_array(), f.direction()), f.material())).collect();
        prop_assert_eq!(listed.len(), list.len());
        prop_assert!(listed == want, "face list: {}", first_difference(&listed, &want));
    }
}

// ---------------------------------------------------------------- determinism and reuse

#[derive(Clone, Copy, Debug)]
enum Method {
    SurfaceNets,
    Blocky,
    Visible,
    FaceList,
}

/// Everything a call writes, as bits.
#[derive(Debug, PartialEq)]
struct Output {
    positions: Vec<[u32; 3]>,
    normals: Vec<[u32; 3]>,
    materials: Vec<u8>,
    blend: Vec<([u8; 4], [u8; 4])>,
    indices: Vec<u32>,
    wide: bool,
    faces: Vec<u64>,
}

fn run(mesher: &mut Mesher, source: &VoxelGrid, chunk: VoxelBox, method: Method, options: &MeshOptions) -> Output {
    let mut m = Mesh::new();
    let mut faces = Vec::new();
    match method {
        Method::SurfaceNets => mesher.surface_nets(source, chunk, options, &mut m).unwrap(),
        Method::Blocky => mesher.blocky(source, chunk, options, &mut m).unwrap(),
        Method::Visible => mesher.visible_faces(source, chunk, options, &mut m).unwrap(),
        Method::FaceList => mesher.face_list(source, chunk, options.surface, &mut faces).unwrap(),
    }
    let idx = m.indices();
    // README: u16 indices when the vertex count fits.
    assert_eq!(matches!(idx, voxel_mesh::Indices::U32(_)), m.positions().len() > 1 << 16, "index width");
    Output {
        positions: m.positions().iter().map(|p| p.to_array().map(f32::to_bits)).collect(),
        normals: m.normals().iter().map(|p| p.to_array().map(f32::to_bits)).collect(),
        materials: m.materials().to_vec(),
        blend: m.blend().iter().map(|b| (b.ids, b.weights)).collect(),
        indices: (0..idx.len()).map(|i| idx.get(i)).collect(),
        wide: matches!(idx, voxel_mesh::Indices::U32(_)),
        faces: faces.iter().map(|f| f.bits()).collect(),
    }
}

type Job = (usize, VoxelBox, Method, MeshOptions);

fn jobs_strategy() -> impl Strategy<Value = (Vec<Volume>, Vec<Job>)> {
    (prop::collection::vec(volume(false), 2..4), 2i32..20, prop::collection::vec((any::<u8>(), any::<u8>()), 6..18))
        .prop_map(|(vols, edge, picks)| {
            let jobs: Vec<Job> = picks
                .iter()
                .map(|&(a, b)| {
                    let v = usize::from(a) % vols.len();
                    let (chunks, _) =
                        chunk_grid(vols[v].region(), edge.max(vols[v].n / 4), IVec3::splat(i32::from(b % 5)));
                    let chunk = chunks[usize::from(b) % chunks.len()];
                    let method = [Method::SurfaceNets, Method::Blocky, Method::Visible, Method::FaceList]
                        [usize::from(a >> 4) % 4];
                    let surface = [Surface::Solid, Surface::Liquid, Surface::All][usize::from(b >> 5) % 3];
                    let options =
                        MeshOptions { surface, normals: a & 1 == 0, blend: a & 2 == 0, fewest_quads: a & 4 == 0 };
                    (v, chunk, method, options)
                })
                .collect();
            (vols, jobs)
        })
        .prop_flat_map(|(vols, jobs)| (Just(vols), Just(jobs.clone()), Just(jobs).prop_shuffle()))
        .prop_map(|(vols, jobs, shuffled)| {
            let mut all = jobs;
            all.extend(shuffled);
            (vols, all)
        })
}

/// Sources over the volumes; odd ones swap the phases of materials 2 and 4 (liquid and solid), so
/// the mesher's cached classification must follow the source's table.
fn sources(vols: &[Volume]) -> Vec<VoxelGrid> {
    vols.iter()
        .enumerate()
        .map(|(i, v)| {
            let g = v.grid(v.region().grow(3));
            if i % 2 == 1 {
                let mut t = phases();
                t.set(2, Phase::Liquid);
                t.set(4, Phase::Solid);
                g.with_phases(t)
            } else {
                g
            }
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// A reused mesher, the jobs in their order and then shuffled (every method, surface and option
    /// mixed, sources with different phase tables), gives what a fresh mesher gives each job; and
    /// two threads with a mesher each give the same bits.
    #[test]
    fn reuse_in_any_order_and_two_threads_change_no_bit((vols, jobs) in jobs_strategy()) {
        let srcs = sources(&vols);
        let fresh: Vec<Output> = jobs.iter().map(|(v, c, m, o)| run(&mut Mesher::new(), &srcs[*v], *c, *m, o)).collect();
        let mut reused = Mesher::new();
        let far = VoxelBox::from_min_size(IVec3::splat(MAX_COORDINATE.get() - 2), IVec3::splat(4));
        for (i, (v, c, m, o)) in jobs.iter().enumerate() {
            let out = run(&mut reused, &srcs[*v], *c, *m, o);
            prop_assert!(out == fresh[i], "job {} ({:?} {:?} {:?}) differs after reuse", i, c, m, o);
            // Failed calls between jobs leave nothing behind either.
            let mut scratch = Mesh::new();
            match i % 3 {
                0 => {
                    let failing = Lying { len_delta: 0, fail: true };
                    prop_assert!(reused.surface_nets(&failing, *c, o, &mut scratch).is_err());
                }
                1 => prop_assert!(reused.blocky(&srcs[*v], far, o, &mut scratch).is_err()),
                _ => {}
            }
        }
        let half = jobs.len() / 2;
        let (a, b) = jobs.split_at(half);
        let srcs_ref = &srcs;
        let (ra, rb) = std::thread::scope(|s| {
            let ta = s.spawn(move || { let mut me = Mesher::new(); a.iter().map(|(v, c, m, o)| run(&mut me, &srcs_ref[*v], *c, *m, o)).collect::<Vec<_>>() });
            let tb = s.spawn(move || { let mut me = Mesher::new(); b.iter().map(|(v, c, m, o)| run(&mut me, &srcs_ref[*v], *c, *m, o)).collect::<Vec<_>>() });
            (ta.join().unwrap(), tb.join().unwrap())
        });
        for (i, out) in ra.iter().chain(&rb).enumerate() {
            prop_assert!(*out == fresh[i], "job {} differs on two threads", i);
        }
    }
}

// ---------------------------------------------------------------- bad input

/// An unbounded checkerboard with a hole pattern: cheap to read at any coordinate.
struct Pattern;

impl VoxelSource for Pattern {
    fn fill_region(&self, region: VoxelBox, out: &mut [Voxel]) {
        for (p, v) in region.iter().zip(out.iter_mut()) {
            let h = reference::hash(5, p);
            *v = if h.is_multiple_of(3) {
                Voxel::new(-(((h >> 8) % 127) as i8) - 1, 1 + (h >> 16) as u8 % 3)
            } else {
                Voxel::EMPTY
            };
        }
    }
}

fn all_methods_one(
    mesher: &mut Mesher,
    source: &dyn VoxelSource,
    region: VoxelBox,
    method: usize,
) -> (Result<(), MeshError>, bool) {
    let o = MeshOptions::default();
    let mut m = Mesh::new();
    let mut f = vec![Face::default()];
    match method {
        0 => (mesher.surface_nets(source, region, &o, &mut m), m.is_empty()),
        1 => (mesher.blocky(source, region, &o, &mut m), m.is_empty()),
        2 => (mesher.visible_faces(source, region, &o, &mut m), m.is_empty()),
        _ => (mesher.face_list(source, region, Surface::Solid, &mut f), f.is_empty()),
    }
}

fn all_methods(mesher: &mut Mesher, source: &dyn VoxelSource, region: VoxelBox) -> [(Result<(), MeshError>, bool); 4] {
    core::array::from_fn(|method| all_methods_one(mesher, source, region, method))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Regions at and just beyond the coordinate limit, and at the i32 extremes: `Ok` exactly when
    /// the region is empty or both corners are within the limit (README), else
    /// `CoordinateOutOfRange`, an empty output after the error, never a panic; vertices within the
    /// padded region.
    #[test]
    fn regions_at_the_coordinate_limit(corner in prop::array::uniform3(prop_oneof![
                                           (-3i32..4).prop_map(|d| MAX_COORDINATE.get() + d),
                                           (-3i32..4).prop_map(|d| -MAX_COORDINATE.get() + d),
                                           (-3i32..4).prop_map(|d| i32::MAX - 3 + d.max(0)),
                                           (-3i32..4).prop_map(|d| i32::MIN + 3 + d.min(0)),
                                           -3i32..4]),
                                       size in prop::array::uniform3(-1i32..6)) {
        let min = IVec3::from_array(corner);
        let max = IVec3::from_array([0, 1, 2].map(|a| min[a].saturating_add(size[a])));
        let region = VoxelBox::new(min, max);
        let l = MAX_COORDINATE.get();
        let within = |p: IVec3| p.cmpge(IVec3::splat(-l)).all() && p.cmple(IVec3::splat(l)).all();
        let ok = region.is_empty() || (within(region.min) && within(region.max));
        let mut mesher = Mesher::new();
        let results = catch_unwind(AssertUnwindSafe(|| all_methods(&mut mesher, &Pattern, region)));
        prop_assert!(results.is_ok(), "panic meshing {:?}", region);
        for (i, (r, empty)) in results.unwrap().into_iter().enumerate() {
            match r {
                Ok(()) => prop_assert!(ok, "method {}: Ok for {:?} beyond the limit", i, region),
                Err(MeshError::CoordinateOutOfRange(b)) => {
                    prop_assert!(!ok, "method {}: refused {:?} within the limit", i, region);
                    prop_assert_eq!(b, region);
                    prop_assert!(empty, "method {}: output not empty after the error", i);
                }
                Err(e) => prop_assert!(false, "method {}: unexpected {:?} for {:?}", i, e, region),
            }
        }
        if ok && !region.is_empty() {
            let mut m = Mesh::new();
            mesher.surface_nets(&Pattern, region, &MeshOptions::default(), &mut m).unwrap();
            let lo = (region.min - 1).as_vec3();
            let hi = region.max.as_vec3();
            for p in m.positions() {
                prop_assert!(p.is_finite() && p.cmpge(lo).all() && p.cmple(hi).all(), "vertex {} outside {:?}", p, region);
            }
            for n in m.normals() {
                prop_assert!(n.is_finite() && (n.length() - 1.0).abs() < 1e-4);
            }
        }
    }
}

#[test]
fn empty_full_and_inverted_regions() {
    let mut mesher = Mesher::new();
    let full = VoxelGrid::from_fn(VoxelBox::new(IVec3::splat(-4), IVec3::splat(12)), |_| Voxel::new(-3, 2)).unwrap();
    for region in [
        VoxelBox::new(IVec3::ZERO, IVec3::splat(8)),
        VoxelBox::new(IVec3::splat(3), IVec3::splat(3)),
        VoxelBox::new(IVec3::new(5, 0, 0), IVec3::new(2, 8, 8)),
        VoxelBox::new(IVec3::splat(i32::MIN), IVec3::splat(i32::MIN)),
        VoxelBox::new(IVec3::splat(i32::MAX), IVec3::splat(i32::MIN)),
    ] {
        for (i, (r, empty)) in all_methods(&mut mesher, &full, region).into_iter().enumerate() {
            assert!(r.is_ok() && empty, "method {i} on {region:?}: {r:?}");
        }
    }
    // Full with a chunk reaching the grid's border: faces only toward the outside of the grid.
    let region = VoxelBox::new(IVec3::splat(8), IVec3::splat(12));
    let mut faces = Vec::new();
    mesher.face_list(&full, region, Surface::Solid, &mut faces).unwrap();
    assert_eq!(faces.len(), 3 * 16, "the three outer sides of a 4^3 corner chunk");
    assert!(faces.iter().all(|f| f.direction() % 2 == 1));
}

#[test]
fn region_volume_limit_is_exact() {
    // Padded volume exactly MAX_MESH_VOLUME (256^3) is meshed; one row more is refused.
    let mut mesher = Mesher::new();
    let mut m = Mesh::new();
    let at = VoxelBox::new(IVec3::ZERO, IVec3::splat(254));
    assert_eq!(at.grow(1).volume(), MAX_MESH_VOLUME);
    let ball = VoxelGrid::from_fn(VoxelBox::new(IVec3::splat(100), IVec3::splat(108)), |p| {
        if (p - IVec3::splat(104)).length_squared() < 9 { Voxel::new(-20, 1) } else { Voxel::new(20, 0) }
    })
    .unwrap();
    mesher.surface_nets(&ball, at, &MeshOptions::default(), &mut m).unwrap();
    assert!(!m.is_empty());
    let over = VoxelBox::new(IVec3::ZERO, IVec3::new(254, 254, 255));
    let err = mesher.surface_nets(&ball, over, &MeshOptions::default(), &mut m).unwrap_err();
    assert!(matches!(err, MeshError::RegionTooLarge { .. }), "{err:?}");
    assert!(m.is_empty());
    // A long thin region: x beyond a face list's 16-bit offsets.
    let long = VoxelBox::new(IVec3::ZERO, IVec3::new(Face::MAX_AXIS + 1, 1, 1));
    let mut faces = vec![Face::default()];
    let err = mesher.face_list(&ball, long, Surface::Solid, &mut faces).unwrap_err();
    assert!(matches!(err, MeshError::AxisTooLong { .. }) && faces.is_empty(), "{err:?}");
}

/// Sources that break `read_region`'s contract: a typed error or an empty mesh, never a panic.
struct Lying {
    /// Voxels written relative to the region's volume.
    len_delta: isize,
    fail: bool,
}

impl VoxelSource for Lying {
    fn fill_region(&self, region: VoxelBox, out: &mut [Voxel]) {
        Pattern.fill_region(region, out);
    }
    fn read_region(&self, region: VoxelBox, out: &mut Vec<Voxel>) -> Result<(), CoreError> {
        if self.fail {
            return Err(CoreError::RegionTooLarge { volume: region.volume(), limit: 0 });
        }
        let len = region.volume() as isize + self.len_delta;
        out.clear();
        // Solid and empty voxels mixed, so the mesher gets past its uniform-region early out.
        out.extend((0..len.max(0)).map(|i| if i % 3 == 0 { Voxel::new(-5, 1) } else { Voxel::EMPTY }));
        Ok(())
    }
}

#[test]
fn a_source_read_error_is_a_typed_error() {
    let mut mesher = Mesher::new();
    let region = VoxelBox::new(IVec3::ZERO, IVec3::splat(8));
    for (i, (r, empty)) in all_methods(&mut mesher, &Lying { len_delta: 0, fail: true }, region).into_iter().enumerate()
    {
        assert!(matches!(r, Err(MeshError::Source(_))) && empty, "method {i}: {r:?}");
    }
}

/// A source whose `read_region` leaves too few or too many voxels: every method fails with
/// `MeshError::Source(LengthMismatch)` and an empty output, never a panic or a mesh of wrong data;
/// the same mesher then meshes an honest source as a fresh one does.
#[test]
fn a_source_returning_a_short_or_long_buffer_is_a_typed_error() {
    let region = VoxelBox::new(IVec3::ZERO, IVec3::splat(8));
    let padded = 10 * 10 * 10;
    let mut wrong = Vec::new();
    let mut mesher = Mesher::new();
    for delta in [-1isize, -100, -(padded as isize), 1, 100] {
        for method in 0..4 {
            let lying = Lying { len_delta: delta, fail: false };
            let r = catch_unwind(AssertUnwindSafe(|| all_methods_one(&mut mesher, &lying, region, method)));
            let name = ["surface_nets", "blocky", "visible_faces", "face_list"][method];
            let want = CoreError::LengthMismatch { expected: padded, actual: (padded as isize + delta) as usize };
            match r {
                Err(_) => wrong.push(format!("{name}, {delta} voxels off: panicked")),
                Ok((Err(MeshError::Source(e)), true)) if e == want => {}
                Ok(other) => wrong.push(format!("{name}, {delta} voxels off: {other:?}")),
            }
            let honest = all_methods_one(&mut mesher, &Pattern, region, method);
            assert_eq!(honest, all_methods_one(&mut Mesher::new(), &Pattern, region, method), "{name} after {delta}");
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

// ---------------------------------------------------------------- shapes at seams and corners

/// A single voxel (and a 2x2x2 block) at every position around a chunk corner, meshed by chunks of
/// 2, 3 and 16: Surface Nets chunks give the whole's triangles bit for bit and close up by
/// position; blocky gives exactly the six faces per exposed side.
#[test]
fn single_voxels_and_small_blocks_at_chunk_corners() {
    let mut mesher = Mesher::new();
    for edge in [2, 3, 16] {
        for corner in [IVec3::ZERO, IVec3::splat(edge), IVec3::new(edge, 0, -edge), IVec3::splat(-3 * edge)] {
            for k in 0..8 {
                for block in [1, 2] {
                    let at = corner - reference::corner_offset(k);
                    let grid = VoxelGrid::from_fn(VoxelBox::new(at - 4, at + 6), |p| {
                        let inb = (p - at).cmpge(IVec3::ZERO).all() && (p - at).cmplt(IVec3::splat(block)).all();
                        if inb { Voxel::new(-64, 3) } else { Voxel::new(64, 0) }
                    })
                    .unwrap();
                    let (chunks, union) = chunk_grid(VoxelBox::new(at - 2, at + 4), edge, IVec3::ZERO);
                    let mut whole = Mesh::new();
                    mesher.surface_nets(&grid, union, &MeshOptions::default(), &mut whole).unwrap();
                    check_surface_nets(&grid, union, &MeshOptions::default(), &whole, true)
                        .unwrap_or_else(|e| panic!("edge {edge} voxel {at} block {block}: {e}"));
                    let mut want = Vec::new();
                    triangle_keys(&whole, &mut want);
                    want.sort_unstable();
                    let (mut got, mut parts, mut faces) = (Vec::new(), Vec::new(), 0);
                    let mut list = Vec::new();
                    for c in &chunks {
                        let mut part = Mesh::new();
                        mesher.surface_nets(&grid, *c, &MeshOptions::default(), &mut part).unwrap();
                        triangle_keys(&part, &mut got);
                        parts.push(part);
                        mesher.face_list(&grid, *c, Surface::Solid, &mut list).unwrap();
                        faces += list.len();
                    }
                    got.sort_unstable();
                    assert_eq!(got, want, "edge {edge} voxel {at} block {block}");
                    let refs: Vec<&Mesh> = parts.iter().collect();
                    assert_eq!(unbalanced_edge(&refs, position_key), None, "edge {edge} voxel {at}");
                    assert_eq!(faces, 6 * (block * block) as usize, "edge {edge} voxel {at} block {block}");
                }
            }
        }
    }
}

/// A closed ball far from the origin, near the coordinate limit: still closed, vertices in their
/// cubes within f32 rounding, normals outward.
#[test]
fn a_ball_near_the_coordinate_limit() {
    let l = MAX_COORDINATE.get();
    for center in [IVec3::splat(l - 12), IVec3::new(-l + 12, l - 12, 0)] {
        let c = center.as_vec3() + Vec3::new(0.3, -0.2, 0.1);
        let bounds = VoxelBox::new(center - 10, center + 10);
        let grid = VoxelGrid::from_fn(bounds, |p| {
            let d = ((p.as_vec3() - c).length() - 6.0) * 16.0;
            Voxel::new(d.round().clamp(-127.0, 127.0) as i8, 1)
        })
        .unwrap();
        let region = VoxelBox::new(center - 8, center + 8);
        let mut m = Mesh::new();
        Mesher::new().surface_nets(&grid, region, &MeshOptions::default(), &mut m).unwrap();
        assert!(m.triangle_count() > 300);
        assert_eq!(unbalanced_edge(&[&m], |_, v| v), None);
        check_surface_nets(&grid, region, &MeshOptions::default(), &m, false).unwrap();
        for (p, n) in m.positions().iter().zip(m.normals()) {
            assert!(n.dot((*p - c).normalize()) > 0.8, "normal {n} at {p}");
        }
    }
}

/// Distance-0 outside voxels (the README: zero is outside). A one-voxel pit in a flat solid top
/// whose voxel has distance 0 (the pit's bottom lies on the surface): the four cubes below it have
/// it as their only outside corner, so their vertices all sit on it and the quad of the edge below
/// it has zero area; a one-voxel cavity of distance 0 collapses the same way (8 vertices at one
/// point, 12 zero-area triangles). The README: no triangle has two corners at one point.
#[test]
fn a_zero_distance_pit_or_cavity_gives_no_zero_area_triangles() {
    let pit = IVec3::new(2, 4, 2);
    let cavity = IVec3::splat(2);
    for (hole, top) in [(pit, 5), (cavity, 5)] {
        let grid = VoxelGrid::from_fn(VoxelBox::new(IVec3::splat(-2), IVec3::splat(7)), |p| {
            if p == hole {
                Voxel::new(0, 0)
            } else if p.cmpge(IVec3::ZERO).all() && p.cmplt(IVec3::new(5, top, 5)).all() {
                Voxel::new(-40, 1)
            } else {
                Voxel::EMPTY
            }
        })
        .unwrap();
        // The pit is open: the solid top at y = 4 is one layer, the pit voxel is in it.
        let region = VoxelBox::new(IVec3::splat(-1), IVec3::splat(6));
        let mut m = Mesh::new();
        Mesher::new().surface_nets(&grid, region, &MeshOptions::default(), &mut m).unwrap();
        let zero: Vec<u32> = (0..m.triangle_count() as u32)
            .filter(|&t| {
                let [a, b, c] = m.triangle_positions(t);
                twice_area(a, b, c) == 0.0
            })
            .collect();
        assert!(
            zero.is_empty(),
            "hole at {hole}: {} of {} triangles have zero area, e.g. {:?}",
            zero.len(),
            m.triangle_count(),
            zero.first().map(|&t| m.triangle_positions(t))
        );
        // Still closed, and what is left is the reference's surface.
        assert_eq!(unbalanced_edge(&[&m], position_key), None, "hole at {hole}");
        check_surface_nets(&grid, region, &MeshOptions::default(), &m, true).unwrap();
        // Unfixed, the pit gave 154 quads: one all at the pit's point (left out) and four around
        // it with two corners there (each one triangle); the cavity's six quads all at one point.
        let want = if hole == pit { (149, 4) } else { (150, 0) };
        assert_eq!((m.quad_count(), m.lone_triangle_count()), want, "hole at {hole}");
        // The snapshot lists the lone triangles after the quads, numbered as triangles.
        let snap = m.snapshot(3).to_string();
        let header = format!("{} vertices, {} quads, {} triangles", m.positions().len(), want.0, 2 * want.0 + want.1);
        assert!(snap.starts_with(&header), "{snap}");
        let lone: Vec<&str> = snap.lines().filter(|l| l.starts_with('t')).collect();
        assert_eq!(lone.len(), want.1, "{snap}");
        assert!(lone.first().is_none_or(|l| l.starts_with(&format!("t{} ", 2 * want.0))), "{snap}");
    }
}

/// `m`'s quads (as vertex indices, rotated smallest first, in order) and lone triangles (as
/// positions, rotated smallest first, sorted) once its vertices move to `far`: a quad whose
/// perimeter, repeats in a row dropped, has four distinct corners stays, three becomes a lone
/// triangle, anything else goes; a lone triangle stays while its three corners are distinct.
#[allow(clippy::type_complexity)]
fn reduced_far(m: &Mesh, far: &[Vec3]) -> (Vec<[u32; 4]>, Vec<[[u32; 3]; 3]>) {
    let at = |v: u32| far[v as usize].to_array().map(f32::to_bits);
    let (mut quads, mut lone) = (Vec::new(), Vec::new());
    let mut keep_ring = |ring: Vec<[u32; 3]>, quad: Option<[u32; 4]>| {
        let ring: Vec<[u32; 3]> =
            (0..ring.len()).filter(|&i| ring[i] != ring[(i + 1) % ring.len()]).map(|i| ring[i]).collect();
        let mut distinct = ring.clone();
        distinct.sort_unstable();
        distinct.dedup();
        match (distinct.len() == ring.len(), ring.len(), quad) {
            (true, 4, Some(q)) => quads.push(rotate_min_first(q)),
            (true, 3, _) => lone.push(rotate_min_first3([ring[0], ring[1], ring[2]])),
            _ => {}
        }
    };
    for q in 0..m.quad_count() {
        let quad = m.quad(q);
        keep_ring(quad.iter().map(|&v| at(v)).collect(), Some(quad));
    }
    for t in 2 * m.quad_count() as u32..m.triangle_count() as u32 {
        keep_ring(m.triangle(t).iter().map(|&v| at(v)).collect(), None);
    }
    lone.sort_unstable();
    (quads, lone)
}

fn rotate_min_first3<T: Ord + Copy>(mut t: [T; 3]) -> [T; 3] {
    let k = (0..3).min_by_key(|&i| t[i]).unwrap();
    t.rotate_left(k);
    t
}

/// Snapshot and face accessors take any integer without panicking (the API's only other inputs;
/// it takes no float from the caller).
#[test]
fn accessors_take_any_value() {
    let f = Face::new([u16::MAX; 3], 255, 9);
    for min in [IVec3::splat(i32::MAX), IVec3::splat(i32::MIN), IVec3::ZERO] {
        let _ = f.corners(min);
        let _ = f.voxel(min);
    }
    assert!(f.normal().is_normalized());
    let grid = VoxelGrid::from_fn(VoxelBox::new(IVec3::ZERO, IVec3::splat(4)), |p| {
        if p == IVec3::splat(1) { Voxel::new(-128, 255) } else { Voxel::new(i8::MIN, 0) }
    })
    .unwrap();
    let mut m = Mesh::new();
    Mesher::new()
        .surface_nets(&grid, VoxelBox::new(IVec3::ZERO, IVec3::splat(3)), &MeshOptions::default(), &mut m)
        .unwrap();
    let _ = m.snapshot(usize::MAX);
    assert!(m.positions().iter().all(|p| p.is_finite()));
    let _ = PhaseTable::DEFAULT;
}
