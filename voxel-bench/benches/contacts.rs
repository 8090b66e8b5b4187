//! `voxel-contacts` benches beside `parry3d`'s trimesh contact manifolds (with and without
//! `TriMeshFlags::FIX_INTERNAL_EDGES`) on the same scenes: ghost contacts, the memory and build
//! time the method needs on top of the mesh, and query time including the midphase.
//!
//! Scenes (deterministic):
//!
//! - `plane-800-triangles`: 20x20 unit quads, one mesh. Balls, capsules and boxes pressed 0.01 into
//!   it and swept along six paths in steps of 0.02 (over edges, along edge lines, through vertices,
//!   at a generic angle). Ours uses index keys.
//! - `plane-seam`: the same plane as two separate meshes meeting at x = 10 (no shared vertex ids).
//!   Ours uses position keys; parry gets two `TriMesh`es and the manifolds of both are collected.
//! - `terrain-32^3` and `terrain-8-chunks`: rolling Surface Nets terrain (no caves), one mesh of a
//!   32^3 region and the same region as eight 16^3 chunk meshes. 5000 balls pressed 0.05 into the
//!   surface at random points. Ours uses index keys on the one mesh (and, as
//!   `ours-position-keys`, position keys: Surface Nets can put two vertices at one position, and
//!   index keys cannot match the edges around them) and position keys on the chunks.
//! - `valley-10-degrees`: two meshes meeting at a concave 10-degree crease, balls swept across it.
//!
//! A ghost on the flat scenes is a contact whose normal is more than 1e-4 rad off +Y. On the
//! curved scenes a ball's contact is real when its point is a local minimum of the distance from
//! the ball's centre over the mesh surface (seed 001; the exact meaning of "ghost" for a
//! sphere). The distance is convex over each triangle, so the point is a local minimum exactly when
//! no triangle touching it has a closer point: the reference takes the closest point to the centre
//! over the triangles touching the contact point (within [`TOUCH`] of it, beyond the closest
//! triangle's own distance; brute force in f64 over a uniform grid of the scene's triangles that
//! belongs to neither contender) and counts a ghost when the contact normal is more than 1 degree
//! off the direction from that point to the centre.
//!
//! Ghost counts use unreduced output from both (ours with `max_points: 0`; parry keeps one manifold
//! per triangle). Timed queries include the midphase: ours is `KdTree::query_aabb` over the
//! shape's box grown by the contact distance, the candidates pushed into a reused `Candidates`, and
//! the generator with its default reduction to 4 points; parry is
//! `PersistentQueryDispatcher::contact_manifolds` with a reused manifold vector and workspace (its
//! BVH traversal included). The `ns-per-query` figures and their ratios are the best of a few
//! rounds over the same query set, timed in this process; criterion times the same loops. The
//! `ours-triangle-box-filter` figures time ours with one more midphase step: the loose tree hands
//! over every triangle of each leaf the query box touches, and this drops those whose own box
//! misses it (parry's BVH leaves are triangle boxes, so it never sees them).

use std::collections::{HashMap, HashSet};
use std::hint::black_box;
use std::time::Instant;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use glam::{DVec3, IVec3, Quat, Vec3};
use parry3d::math::Pose;
use parry3d::query::{ContactManifold, ContactManifoldsWorkspace, DefaultQueryDispatcher, PersistentQueryDispatcher};
use parry3d::shape::{Ball, Capsule as ParryCapsule, Cuboid as ParryCuboid, TriMesh, TriMeshFlags};
use voxel_bench::workloads::Rng;
use voxel_bench::{config, figure};
use voxel_contacts::{
    Candidates, Capsule, Contact, ContactGenerator, ContactOptions, Cuboid, FeatureKeys, MAX_POINTS, Shape, Sphere,
};
use voxel_core::{Aabb, IndexedMesh, TriangleSource, VoxelBox};
use voxel_kdtree::{KdTree, Scratch};
use voxel_mesh::{Mesh, MeshOptions, Mesher};
use voxel_store::generate::{self, Terrain};
use voxel_testdata::ByteCounter;

#[global_allocator]
static ALLOC: ByteCounter = ByteCounter::new();

/// Contact distance of every query (ours: `contact_distance`; parry: `prediction`).
const MARGIN: f32 = 0.02;
/// How far the swept shapes are pressed into the flat scenes.
const FLAT_PRESS: f32 = 0.01;
/// How far the terrain and valley balls are pressed into the surface.
const CURVED_PRESS: f32 = 0.05;
const BALL_RADIUS: f32 = 0.5;
const CAPSULE_RADIUS: f32 = 0.25;
const CAPSULE_HALF_LENGTH: f32 = 0.5;
const BOX_HALF_EXTENTS: Vec3 = Vec3::new(0.3, 0.2, 0.4);
/// Step of the sweeps.
const STEP: f32 = 0.02;
/// Flat scenes: a normal more than this off +Y is a ghost (the tolerance).
const FLAT_TOLERANCE_RAD: f64 = 1e-4;
/// Curved scenes: a normal more than this off the local-minimum direction is a ghost.
const CURVED_TOLERANCE_DEG: f64 = 1.0;
/// A triangle within this of a contact point (beyond the closest triangle's distance) touches it.
/// Coordinates are at most 64, where f32 spacing is 4e-6 and rounded contact points are off by a
/// few units of it. Wider would also take in triangles the point is merely near: a face contact a
/// hair inside a concave crease would count as a ghost of the other side's closer point.
const TOUCH: f64 = 1e-5;
/// How far from a contact point the reference looks for triangles.
const NEAR: f64 = 0.01;
const TERRAIN_BALLS: usize = 5000;
/// Queries per timed set.
const TIMED: usize = 1024;
/// Offending queries of ours printed per scene and shape.
const SHOWN: usize = 3;

// ---------------------------------------------------------------------------------------------
// Scenes

/// One mesh of a scene, in both contenders' forms.
struct Piece {
    mesh: IndexedMesh,
    tree: KdTree,
    /// Global ids: triangle `t` of this piece is `first_triangle + t` in contacts and in the
    /// reference; its vertices are `first_vertex + v` in our candidates.
    first_triangle: u32,
    first_vertex: u32,
    plain: TriMesh,
    fixed: TriMesh,
}

/// A set of meshes queried together, with the brute-force reference over all their triangles.
struct Scene {
    name: String,
    pieces: Vec<Piece>,
    keys: FeatureKeys,
    reference: Reference,
}

impl Scene {
    /// The scene, its triangle and mesh counts printed as figures.
    fn new(name: &str, meshes: Vec<IndexedMesh>, keys: FeatureKeys) -> Self {
        let mut pieces = Vec::new();
        let (mut first_triangle, mut first_vertex) = (0, 0);
        let mut all = Vec::new();
        for mesh in meshes {
            let tree = KdTree::build(&mesh).expect("a valid mesh");
            let parry = |flags| {
                TriMesh::with_flags(mesh.positions().to_vec(), mesh.triangles().to_vec(), flags).expect("a valid mesh")
            };
            let (plain, fixed) = (parry(TriMeshFlags::empty()), parry(TriMeshFlags::FIX_INTERNAL_EDGES));
            all.extend((0..mesh.triangle_count() as u32).map(|t| mesh.triangle_positions(t)));
            let (triangles, vertices) = (mesh.triangle_count() as u32, mesh.vertex_count() as u32);
            pieces.push(Piece { mesh, tree, first_triangle, first_vertex, plain, fixed });
            first_triangle += triangles;
            first_vertex += vertices;
        }
        let scene = Self { name: name.to_owned(), pieces, keys, reference: Reference::new(all) };
        figure(&format!("contacts/{name}/triangles"), scene.reference.triangles.len() as f64, "");
        figure(&format!("contacts/{name}/meshes"), scene.pieces.len() as f64, "");
        scene
    }
}

/// Quads `x0..x1` by `0..depth` of unit size on `y = 0`, each split along its `(0, 0) - (1, 1)`
/// diagonal, counter-clockwise from above.
fn plane(x0: i32, x1: i32, depth: i32) -> IndexedMesh {
    strip(x0, x1, depth, |x| Vec3::new(x as f32, 0.0, 0.0))
}

/// A quad strip: column `x` of vertices at `column(x) + z * Z`, quads split as in [`plane`].
fn strip(x0: i32, x1: i32, depth: i32, column: impl Fn(i32) -> Vec3) -> IndexedMesh {
    let rows = depth as u32 + 1;
    let mut positions = Vec::new();
    for x in x0..=x1 {
        positions.extend((0..rows).map(|z| column(x) + Vec3::new(0.0, 0.0, z as f32)));
    }
    let mut triangles = Vec::new();
    for x in 0..(x1 - x0) as u32 {
        for z in 0..depth as u32 {
            let v00 = x * rows + z;
            let (v01, v10, v11) = (v00 + 1, v00 + rows, v00 + rows + 1);
            triangles.push([v00, v01, v11]);
            triangles.push([v00, v11, v10]);
        }
    }
    IndexedMesh::new(positions, triangles).expect("a valid grid")
}

/// The terrain world: rolling hills (three octaves, about 32 voxels per cycle), no caves, no water.
fn terrain_world() -> voxel_store::VoxelStore {
    let size = IVec3::new(32, 64, 32);
    let params = Terrain {
        base_height: 32.0,
        amplitude: 8.0,
        frequency: 1.0 / 32.0,
        octaves: 3,
        cave_width: 0.0,
        water_level: None,
        ..Terrain::new(size, 5)
    };
    generate::terrain(&params).expect("valid parameters")
}

/// The region `(0, 16, 0)..(32, 48, 32)` as one mesh and as its eight 16^3 chunks.
fn terrain_meshes() -> (IndexedMesh, Vec<IndexedMesh>) {
    let world = terrain_world();
    let mut mesher = Mesher::new();
    let mut mesh = Mesh::new();
    let region = VoxelBox::new(IVec3::new(0, 16, 0), IVec3::new(32, 48, 32));
    mesher.surface_nets(&world, region, &MeshOptions::PHYSICS, &mut mesh).expect("region");
    let one = IndexedMesh::from_source(&mesh).expect("a mesher's mesh");
    let mut chunks = Vec::new();
    for key in region.chunk_keys(16).iter() {
        mesher.surface_nets(&world, VoxelBox::chunk(key, 16), &MeshOptions::PHYSICS, &mut mesh).expect("chunk");
        if mesh.triangle_count() > 0 {
            chunks.push(IndexedMesh::from_source(&mesh).expect("a mesher's mesh"));
        }
    }
    (one, chunks)
}

/// Flat on `y = 0` for `x <= 0`, rising at 10 degrees for `x >= 0`: two meshes, 6x8 quads each.
fn valley() -> Vec<IndexedMesh> {
    let (sin, cos) = 10f32.to_radians().sin_cos();
    vec![plane(-6, 0, 8), strip(0, 6, 8, |u| Vec3::new(u as f32 * cos, u as f32 * sin, 0.0))]
}

// ---------------------------------------------------------------------------------------------
// Probes: one shape in both contenders' forms

#[derive(Clone, Copy, Debug)]
enum ParryShape {
    Ball(Ball),
    Capsule(ParryCapsule),
    Cuboid(ParryCuboid),
}

impl ParryShape {
    fn as_dyn(&self) -> &dyn parry3d::shape::Shape {
        match self {
            ParryShape::Ball(s) => s,
            ParryShape::Capsule(s) => s,
            ParryShape::Cuboid(s) => s,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Probe {
    ours: Shape<'static>,
    parry: ParryShape,
    pose: Pose,
}

impl Probe {
    fn ball(center: Vec3, radius: f32) -> Self {
        Self {
            ours: Shape::Sphere(Sphere { center, radius }),
            parry: ParryShape::Ball(Ball::new(radius)),
            pose: Pose::from_translation(center),
        }
    }

    /// A capsule whose core segment runs from `center - half` to `center + half`.
    fn capsule(center: Vec3, half: Vec3, radius: f32) -> Self {
        Self {
            ours: Shape::Capsule(Capsule { a: center - half, b: center + half, radius }),
            parry: ParryShape::Capsule(ParryCapsule::new(-half, half, radius)),
            pose: Pose::from_translation(center),
        }
    }

    fn cuboid(center: Vec3, rotation: Quat, half_extents: Vec3) -> Self {
        Self {
            ours: Shape::Cuboid(Cuboid { half_extents, pose: voxel_contacts::Pose::new(rotation, center) }),
            parry: ParryShape::Cuboid(ParryCuboid::new(half_extents)),
            pose: Pose::from_parts(center, rotation),
        }
    }

    fn center(&self) -> Vec3 {
        self.pose.translation
    }
}

/// The shapes the scenes are swept with.
#[derive(Clone, Copy)]
enum Kind {
    Ball,
    Capsule,
    Box,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Ball => "ball",
            Kind::Capsule => "capsule",
            Kind::Box => "box",
        }
    }
}

/// How far a box with `rotation` reaches from its centre along `-n`.
fn box_support(rotation: Quat, half_extents: Vec3, n: Vec3) -> f32 {
    let local = rotation.inverse() * n;
    local.abs().dot(half_extents)
}

/// Sweep paths over the 20x20 plane, `(start, end)` in x and z.
const PATHS: [([f32; 2], [f32; 2]); 6] = [
    ([1.5, 7.3], [18.5, 7.3]),   // across edges and diagonals
    ([1.5, 8.0], [18.5, 8.0]),   // along an edge line
    ([1.5, 1.5], [18.5, 18.5]),  // along the diagonals, through vertices
    ([1.5, 3.2], [18.5, 16.9]),  // a generic angle
    ([10.0, 1.5], [10.0, 18.5]), // along x = 10 (the seam of the split plane)
    ([9.8, 18.5], [9.8, 1.5]),   // just beside it
];

/// Points along the paths every [`STEP`], with the distance travelled.
fn sweep_points() -> Vec<(Vec3, f32)> {
    let mut points = Vec::new();
    for ([x0, z0], [x1, z1]) in PATHS {
        let (a, b) = (Vec3::new(x0, 0.0, z0), Vec3::new(x1, 0.0, z1));
        let steps = ((b - a).length() / STEP) as usize;
        points.extend((0..=steps).map(|i| {
            let s = i as f32 * STEP;
            (a + (b - a).normalize() * s, s)
        }));
    }
    points
}

/// The flat sweeps for one shape kind: balls, capsules turning as they slide, boxes turning and
/// rocking onto an edge and back.
fn flat_sweep(kind: Kind) -> Vec<Probe> {
    sweep_points()
        .into_iter()
        .map(|(p, s)| match kind {
            Kind::Ball => Probe::ball(p + Vec3::Y * (BALL_RADIUS - FLAT_PRESS), BALL_RADIUS),
            Kind::Capsule => {
                let half = Quat::from_rotation_y(0.7 * s) * Vec3::X * CAPSULE_HALF_LENGTH;
                Probe::capsule(p + Vec3::Y * (CAPSULE_RADIUS - FLAT_PRESS), half, CAPSULE_RADIUS)
            }
            Kind::Box => {
                let rotation = Quat::from_rotation_y(0.5 * s) * Quat::from_rotation_x(0.2 * (1.3 * s).sin());
                let lift = box_support(rotation, BOX_HALF_EXTENTS, Vec3::Y) - FLAT_PRESS;
                Probe::cuboid(p + Vec3::Y * lift, rotation, BOX_HALF_EXTENTS)
            }
        })
        .collect()
}

/// Random balls on the plane, pressed [`FLAT_PRESS`] into it.
fn plane_balls(n: usize, seed: u64) -> Vec<Probe> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let p = Vec3::new(rng.range(1.0, 19.0), BALL_RADIUS - FLAT_PRESS, rng.range(1.0, 19.0));
            Probe::ball(p, BALL_RADIUS)
        })
        .collect()
}

/// A random point on a random triangle of `mesh` at least 1.5 from the region's sides in x and
/// z, with the triangle's unit normal.
fn surface_site(mesh: &IndexedMesh, rng: &mut Rng) -> (Vec3, Vec3) {
    let bounds = mesh.aabb();
    loop {
        let t = (rng.next_u64() % mesh.triangle_count() as u64) as u32;
        let [a, b, c] = mesh.triangle_positions(t);
        let Some(n) = (b - a).cross(c - a).try_normalize() else { continue };
        let (r1, r2) = (rng.unit().sqrt(), rng.unit());
        let p = a * (1.0 - r1) + b * (r1 * (1.0 - r2)) + c * (r1 * r2);
        let inside = p.x > bounds.min.x + 1.5
            && p.x < bounds.max.x - 1.5
            && p.z > bounds.min.z + 1.5
            && p.z < bounds.max.z - 1.5;
        if inside {
            return (p, n);
        }
    }
}

/// Balls, capsules (lying in the tangent plane, random heading) and boxes (random rotation)
/// pressed [`CURVED_PRESS`] into the surface at random points.
fn terrain_probes(mesh: &IndexedMesh, kind: Kind, n: usize, seed: u64) -> Vec<Probe> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let (p, normal) = surface_site(mesh, &mut rng);
            match kind {
                Kind::Ball => Probe::ball(p + normal * (BALL_RADIUS - CURVED_PRESS), BALL_RADIUS),
                Kind::Capsule => {
                    let heading = Quat::from_axis_angle(normal, rng.range(0.0, std::f32::consts::TAU));
                    let half = heading * normal.any_orthonormal_vector() * CAPSULE_HALF_LENGTH;
                    Probe::capsule(p + normal * (CAPSULE_RADIUS - CURVED_PRESS), half, CAPSULE_RADIUS)
                }
                Kind::Box => {
                    let rotation = Quat::from_axis_angle(rng.direction(), rng.range(0.0, std::f32::consts::TAU));
                    let lift = box_support(rotation, BOX_HALF_EXTENTS, normal) - CURVED_PRESS;
                    Probe::cuboid(p + normal * lift, rotation, BOX_HALF_EXTENTS)
                }
            }
        })
        .collect()
}

/// Balls swept across the valley's crease (x from -3 to 3) on three lines, each at the height
/// where its distance to the surface is `radius - CURVED_PRESS` (bisection on the reference).
fn valley_balls(scene: &Scene) -> Vec<Probe> {
    let tan = 10f32.to_radians().tan();
    let mut near = Vec::new();
    let mut probes = Vec::new();
    for z in [3.3, 4.0, 4.5] {
        for i in 0..=(6.0 / STEP) as usize {
            let x = -3.0 + i as f32 * STEP;
            let ground = if x > 0.0 { x * tan } else { 0.0 };
            let (mut lo, mut hi) = (f64::from(ground), f64::from(ground) + 2.0);
            for _ in 0..50 {
                let mid = 0.5 * (lo + hi);
                let d = scene.reference.distance(DVec3::new(f64::from(x), mid, f64::from(z)), 2.0, &mut near);
                if d < f64::from(BALL_RADIUS - CURVED_PRESS) { lo = mid } else { hi = mid }
            }
            probes.push(Probe::ball(Vec3::new(x, hi as f32, z), BALL_RADIUS));
        }
    }
    probes
}

// ---------------------------------------------------------------------------------------------
// The brute-force reference

/// Every triangle of a scene in a uniform grid of unit cells (each triangle in every cell its
/// box touches): brute force over the triangles near a point, shared by nobody's midphase.
struct Reference {
    triangles: Vec<[Vec3; 3]>,
    cells: HashMap<IVec3, Vec<u32>>,
}

impl Reference {
    fn new(triangles: Vec<[Vec3; 3]>) -> Self {
        let mut cells: HashMap<IVec3, Vec<u32>> = HashMap::new();
        for (i, t) in triangles.iter().enumerate() {
            let lo = t[0].min(t[1]).min(t[2]).floor().as_ivec3();
            let hi = t[0].max(t[1]).max(t[2]).floor().as_ivec3();
            for c in VoxelBox::new(lo, hi + IVec3::ONE).iter() {
                cells.entry(c).or_default().push(i as u32);
            }
        }
        Self { triangles, cells }
    }

    /// The triangles whose cells the box around `p` of half size `reach` touches, sorted, each once.
    fn near(&self, p: DVec3, reach: f64, out: &mut Vec<u32>) {
        out.clear();
        let lo = (p - reach).floor().as_ivec3();
        let hi = (p + reach).floor().as_ivec3();
        for c in VoxelBox::new(lo, hi + IVec3::ONE).iter() {
            if let Some(ids) = self.cells.get(&c) {
                out.extend_from_slice(ids);
            }
        }
        out.sort_unstable();
        out.dedup();
    }

    fn triangle(&self, t: u32) -> [DVec3; 3] {
        self.triangles[t as usize].map(Vec3::as_dvec3)
    }

    /// The distance from `p` to the surface, over the triangles within `reach`.
    fn distance(&self, p: DVec3, reach: f64, near: &mut Vec<u32>) -> f64 {
        self.near(p, reach, near);
        near.iter().map(|&t| (closest_on_triangle(p, self.triangle(t)) - p).length()).fold(f64::INFINITY, f64::min)
    }

    /// The angle in degrees between `normal` and the direction to `center` from the closest point
    /// to `center` on the triangles touching `point`: 0 for a contact at a local minimum of the
    /// distance from the centre over the surface. Infinite when no triangle is within [`NEAR`].
    fn local_minimum_deviation(&self, center: Vec3, point: Vec3, normal: Vec3, near: &mut Vec<u32>) -> f64 {
        let (c, p) = (center.as_dvec3(), point.as_dvec3());
        self.near(p, NEAR, near);
        // The contact point is on the surface up to its own rounding: measure from the closest
        // triangle, so a point a hair off the surface (parry's ray-cast points) is not penalized.
        let from_point: Vec<f64> =
            near.iter().map(|&t| (closest_on_triangle(p, self.triangle(t)) - p).length()).collect();
        let nearest = from_point.iter().copied().fold(f64::INFINITY, f64::min);
        let mut best: Option<DVec3> = None;
        for (&t, &d) in near.iter().zip(&from_point) {
            if d > nearest + TOUCH {
                continue;
            }
            let q = closest_on_triangle(c, self.triangle(t));
            if best.is_none_or(|b| (q - c).length_squared() < (b - c).length_squared()) {
                best = Some(q);
            }
        }
        match best.and_then(|q| (c - q).try_normalize()) {
            Some(dir) => angle(normal.as_dvec3(), dir).to_degrees(),
            None => f64::INFINITY,
        }
    }
}

/// The angle between two unit vectors, accurate near 0 (atan2 of the cross and dot products).
fn angle(a: DVec3, b: DVec3) -> f64 {
    a.cross(b).length().atan2(a.dot(b))
}

/// The point of triangle `[a, b, c]` closest to `p` (Ericson, "Real-Time Collision Detection",
/// 5.1.5), in f64. A triangle with no area (Surface Nets makes a few) is the union of its edges.
fn closest_on_triangle(p: DVec3, [a, b, c]: [DVec3; 3]) -> DVec3 {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    if ab.cross(ac).length_squared() <= 1e-20 * ab.length_squared() * ac.length_squared() {
        return [closest_on_segment(p, a, b), closest_on_segment(p, b, c), closest_on_segment(p, c, a)]
            .into_iter()
            .min_by(|x, y| (*x - p).length_squared().total_cmp(&(*y - p).length_squared()))
            .unwrap_or(a);
    }
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return a;
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return b;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return a + ab * (d1 / (d1 - d3));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return a + ac * (d2 / (d2 - d6));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
    }
    let denom = 1.0 / (va + vb + vc);
    a + ab * (vb * denom) + ac * (vc * denom)
}

fn closest_on_segment(p: DVec3, a: DVec3, b: DVec3) -> DVec3 {
    let ab = b - a;
    let len = ab.length_squared();
    if len == 0.0 {
        return a;
    }
    a + ab * ((p - a).dot(ab) / len).clamp(0.0, 1.0)
}

// ---------------------------------------------------------------------------------------------
// Contenders

/// One contact from either contender, in the mesh's frame.
#[derive(Clone, Copy, Debug)]
struct Point {
    point: Vec3,
    normal: Vec3,
    depth: f32,
    /// Global triangle id.
    triangle: u32,
    /// Ours only.
    feature: Option<voxel_contacts::Feature>,
}

trait Contender {
    /// The contact points of `probe` against every piece of `scene`; returns how many.
    fn query(&mut self, scene: &Scene, probe: &Probe) -> usize;
    /// The points of the last query.
    fn points(&self, scene: &Scene, out: &mut Vec<Point>);
    /// How many triangles the last query's midphase handed to the narrow phase.
    fn tested(&self) -> usize;
}

/// Our kD tree midphase and contact generator, with every buffer reused.
#[derive(Default)]
struct Ours {
    generator: ContactGenerator,
    candidates: Candidates,
    scratch: Scratch,
    found: Vec<u32>,
    contacts: Vec<Contact>,
    max_points: usize,
    /// Keys other than the scene's.
    keys: Option<FeatureKeys>,
    /// Drop the tree's candidates whose own box misses the query box (the loose tree's leaves
    /// hand over every triangle of a leaf the box touches).
    box_filter: bool,
}

impl Ours {
    fn new(max_points: usize) -> Self {
        Self { max_points, ..Self::default() }
    }
}

impl Contender for Ours {
    #[inline]
    fn query(&mut self, scene: &Scene, probe: &Probe) -> usize {
        let query = probe.ours.aabb().grow(MARGIN);
        self.candidates.clear();
        for piece in &scene.pieces {
            piece.tree.query_aabb(&query, &mut self.scratch, &mut self.found);
            for &t in &self.found {
                let [a, b, c] = piece.mesh.triangle_positions(t);
                if self.box_filter && !Aabb::new(a.min(b).min(c), a.max(b).max(c)).overlaps(&query) {
                    continue;
                }
                let ids = piece.mesh.triangle(t).map(|v| v + piece.first_vertex);
                self.candidates.push(piece.first_triangle + t, [a, b, c], ids);
            }
        }
        self.contacts.clear();
        let keys = self.keys.unwrap_or(scene.keys);
        let options = ContactOptions { contact_distance: MARGIN, keys, max_points: self.max_points };
        self.generator.generate(&probe.ours, &self.candidates, &options, &mut self.contacts).expect("a valid probe");
        self.contacts.len()
    }

    fn points(&self, _: &Scene, out: &mut Vec<Point>) {
        out.clear();
        out.extend(self.contacts.iter().map(|c| Point {
            point: c.point,
            normal: c.normal,
            depth: c.depth,
            triangle: c.triangle,
            feature: Some(c.feature),
        }));
    }

    fn tested(&self) -> usize {
        self.candidates.len()
    }
}

/// parry3d's trimesh-shape contact manifolds, one manifold vector and workspace per piece, kept
/// between queries as a physics engine keeps them per pair.
struct Parry {
    fixed: bool,
    dispatcher: DefaultQueryDispatcher,
    manifolds: Vec<Vec<ContactManifold<(), ()>>>,
    workspaces: Vec<Option<ContactManifoldsWorkspace>>,
}

impl Parry {
    fn new(scene: &Scene, fixed: bool) -> Self {
        let n = scene.pieces.len();
        Self {
            fixed,
            dispatcher: DefaultQueryDispatcher,
            manifolds: (0..n).map(|_| Vec::new()).collect(),
            workspaces: (0..n).map(|_| None).collect(),
        }
    }
}

impl Contender for Parry {
    #[inline]
    fn query(&mut self, scene: &Scene, probe: &Probe) -> usize {
        let shape = probe.parry.as_dyn();
        let mut n = 0;
        for (k, piece) in scene.pieces.iter().enumerate() {
            let mesh = if self.fixed { &piece.fixed } else { &piece.plain };
            self.dispatcher
                .contact_manifolds(&probe.pose, mesh, shape, MARGIN, &mut self.manifolds[k], &mut self.workspaces[k])
                .expect("parry supports trimesh against this shape");
            n += self.manifolds[k].iter().map(|m| m.points.len()).sum::<usize>();
        }
        n
    }

    fn points(&self, scene: &Scene, out: &mut Vec<Point>) {
        out.clear();
        for (piece, manifolds) in scene.pieces.iter().zip(&self.manifolds) {
            for m in manifolds {
                out.extend(m.points.iter().map(|p| Point {
                    point: p.local_p1,
                    normal: m.local_n1,
                    depth: -p.dist,
                    triangle: piece.first_triangle + m.subshape1,
                    feature: None,
                }));
            }
        }
    }

    fn tested(&self) -> usize {
        self.manifolds.iter().map(Vec::len).sum()
    }
}

// ---------------------------------------------------------------------------------------------
// Counting ghosts

#[derive(Clone, Copy)]
enum Judge {
    /// Flat scenes: the normal must be +Y to [`FLAT_TOLERANCE_RAD`].
    Up,
    /// Balls on curved scenes: the normal must point from the local minimum to the centre.
    LocalMinimum,
}

#[derive(Default)]
struct Tally {
    queries: usize,
    points: usize,
    ghosts: usize,
    queries_with_ghosts: usize,
    empty_queries: usize,
}

/// Runs every probe and counts contact points and ghosts; prints the first [`SHOWN`] offending
/// queries when `show` is set (for ours, each one is worth a look).
fn count(contender: &mut dyn Contender, scene: &Scene, probes: &[Probe], judge: Judge, show: bool) -> Tally {
    let mut tally = Tally { queries: probes.len(), ..Tally::default() };
    let (mut points, mut near) = (Vec::new(), Vec::new());
    let mut shown = 0;
    for (i, probe) in probes.iter().enumerate() {
        contender.query(scene, probe);
        contender.points(scene, &mut points);
        tally.points += points.len();
        tally.empty_queries += usize::from(points.is_empty());
        let mut ghosts = 0;
        for p in &points {
            let off = match judge {
                Judge::Up => angle(p.normal.as_dvec3(), DVec3::Y) > FLAT_TOLERANCE_RAD,
                Judge::LocalMinimum => {
                    scene.reference.local_minimum_deviation(probe.center(), p.point, p.normal, &mut near)
                        > CURVED_TOLERANCE_DEG
                }
            };
            if off {
                ghosts += 1;
                if show && shown < SHOWN {
                    shown += 1;
                    report_ghost(scene, i, probe, p, &points, judge);
                }
            }
        }
        tally.ghosts += ghosts;
        tally.queries_with_ghosts += usize::from(ghosts > 0);
    }
    tally
}

fn report_ghost(scene: &Scene, i: usize, probe: &Probe, ghost: &Point, all: &[Point], judge: Judge) {
    eprintln!("ghost (ours) on {}: query {i}: {:?}", scene.name, probe.ours);
    let deviation = match judge {
        Judge::Up => angle(ghost.normal.as_dvec3(), DVec3::Y).to_degrees(),
        Judge::LocalMinimum => {
            scene.reference.local_minimum_deviation(probe.center(), ghost.point, ghost.normal, &mut Vec::new())
        }
    };
    let show = |p: &Point| {
        let feature = p.feature.map_or_else(|| "?".to_owned(), |f| format!("{f:?}"));
        format!("point {} normal {} depth {} triangle {} {feature}", p.point, p.normal, p.depth, p.triangle)
    };
    eprintln!("  ghost: {} ({deviation:.4} deg off)", show(ghost));
    eprintln!("  its triangle {:?}", scene.reference.triangles[ghost.triangle as usize]);
    if let Judge::LocalMinimum = judge {
        // The triangles around the point and their closest points to the centre: the closer ones
        // are why the point is not a local minimum.
        let (c, p) = (probe.center().as_dvec3(), ghost.point.as_dvec3());
        let mut near = Vec::new();
        scene.reference.near(p, NEAR, &mut near);
        eprintln!("  |centre - point| = {:.7}", (c - p).length());
        for &t in &near {
            let tri = scene.reference.triangle(t);
            let q = closest_on_triangle(c, tri);
            let from_point = (closest_on_triangle(p, tri) - p).length();
            eprintln!(
                "  near: triangle {t} {:?} at {from_point:.2e} from the point, closest to the centre {q} at {:.7}",
                scene.reference.triangles[t as usize],
                (c - q).length()
            );
        }
    }
    for p in all {
        eprintln!("  all: {}", show(p));
    }
}

fn print_tally(scene: &str, shape: &str, label: &str, t: &Tally) {
    let id = format!("contacts/{scene}/{shape}");
    figure(&format!("{id}/ghost-points/{label}"), t.ghosts as f64, &format!("of {} points", t.points));
    figure(&format!("{id}/queries-with-ghosts/{label}"), t.queries_with_ghosts as f64, &format!("of {}", t.queries));
    figure(&format!("{id}/queries-without-contact/{label}"), t.empty_queries as f64, &format!("of {}", t.queries));
}

/// Counts and prints the ghosts of ours and both parry flavours on one scene.
fn ghost_scene(scene: &Scene, shape: &str, probes: &[Probe], judge: Judge) {
    let ours = count(&mut Ours::new(0), scene, probes, judge, true);
    print_tally(&scene.name, shape, "ours", &ours);
    let plain = count(&mut Parry::new(scene, false), scene, probes, judge, false);
    print_tally(&scene.name, shape, "parry3d", &plain);
    let fixed = count(&mut Parry::new(scene, true), scene, probes, judge, false);
    print_tally(&scene.name, shape, "parry3d-fix-internal-edges", &fixed);
}

// ---------------------------------------------------------------------------------------------
// Timing

/// Best of five rounds over the query set, in ns per query (after one warm-up round).
fn ns_per_query(contender: &mut dyn Contender, scene: &Scene, probes: &[Probe]) -> f64 {
    let round = |c: &mut dyn Contender| {
        let start = Instant::now();
        let mut n = 0;
        for p in probes {
            n += c.query(scene, black_box(p));
        }
        black_box(n);
        start.elapsed().as_secs_f64() * 1e9 / probes.len() as f64
    };
    round(contender);
    (0..5).map(|_| round(contender)).fold(f64::INFINITY, f64::min)
}

/// Times ours (default reduction) and both parry flavours on the same queries: figures with
/// ratios, then the criterion group `contacts/<shape>` with the scene as the parameter. Ours with
/// the triangle-box filter gets figures only.
fn time_queries(c: &mut Criterion, shape: &str, scene: &Scene, probes: &[Probe]) {
    let mut contenders: [(&str, Box<dyn Contender>); 4] = [
        ("ours", Box::new(Ours::new(MAX_POINTS))),
        ("parry3d", Box::new(Parry::new(scene, false))),
        ("parry3d-fix-internal-edges", Box::new(Parry::new(scene, true))),
        ("ours-triangle-box-filter", Box::new(Ours { box_filter: true, ..Ours::new(MAX_POINTS) })),
    ];
    let id = format!("contacts/{}/{shape}", scene.name);
    let mut ns = [0.0; 4];
    for (k, (label, contender)) in contenders.iter_mut().enumerate() {
        let tested: usize = probes
            .iter()
            .map(|p| {
                contender.query(scene, p);
                contender.tested()
            })
            .sum();
        figure(&format!("{id}/triangles-per-query/{label}"), tested as f64 / probes.len() as f64, "");
        ns[k] = ns_per_query(contender.as_mut(), scene, probes);
        figure(&format!("{id}/ns-per-query/{label}"), ns[k], "ns");
    }
    for (ours, peer) in [(0, 1), (0, 2), (3, 1), (3, 2)] {
        let name = format!("{id}/speedup/{}-vs-{}", contenders[ours].0, contenders[peer].0);
        figure(&name, ns[peer] / ns[ours], "x");
    }
    let mut group = c.benchmark_group(format!("contacts/{shape}"));
    group.throughput(Throughput::Elements(probes.len() as u64));
    for (label, contender) in &mut contenders[..3] {
        group.bench_with_input(BenchmarkId::new(*label, &scene.name), &(), |b, ()| {
            b.iter(|| {
                let mut n = 0;
                for p in probes {
                    n += contender.query(scene, black_box(p));
                }
                n
            });
        });
    }
    group.finish();
}

/// Memory and build time on top of the mesh: none for ours (the generator reads the candidates
/// as they come); parry's `TriMesh` (its BVH) with and without `FIX_INTERNAL_EDGES`.
fn build_costs(c: &mut Criterion, scene: &Scene, terrain_balls: &[Probe]) {
    let mesh = &scene.pieces[0].mesh;
    let tris = mesh.triangle_count() as f64;
    let (positions, triangles) = (mesh.positions().to_vec(), mesh.triangles().to_vec());
    let build = |flags| TriMesh::with_flags(positions.clone(), triangles.clone(), flags).expect("a valid mesh");
    let (plain, plain_bytes, _) = ALLOC.measure(|| build(TriMeshFlags::empty()));
    drop(plain);
    let (fixed, fixed_bytes, _) = ALLOC.measure(|| build(TriMeshFlags::FIX_INTERNAL_EDGES));
    drop(fixed);
    let mesh_bytes = (positions.len() * size_of::<Vec3>() + triangles.len() * size_of::<[u32; 3]>()) as f64;
    let id = format!("contacts/{}", scene.name);
    figure(&format!("{id}/mesh-bytes-per-triangle"), mesh_bytes / tris, "B");
    figure(&format!("{id}/extra-bytes-per-triangle/ours"), 0.0, "B");
    figure(&format!("{id}/trimesh-bytes-per-triangle/parry3d"), plain_bytes as f64 / tris, "B");
    figure(&format!("{id}/trimesh-bytes-per-triangle/parry3d-fix-internal-edges"), fixed_bytes as f64 / tris, "B");
    figure(
        &format!("{id}/extra-bytes-per-triangle/parry3d-fix-internal-edges"),
        (fixed_bytes as f64 - plain_bytes as f64) / tris,
        "B",
    );
    // Ours keeps per-generator scratch instead (sized by the largest query, not by the mesh).
    let (ours, scratch, _) = ALLOC.measure(|| {
        let mut ours = Ours::new(MAX_POINTS);
        for p in terrain_balls {
            ours.query(scene, p);
        }
        ours
    });
    drop(ours);
    figure(&format!("{id}/scratch-bytes-per-generator/ours"), scratch as f64, "B");

    // Best of 30 builds each, alternating, the drop left out: the machine is shared.
    let time_ms = |flags| {
        let (v, t) = (positions.clone(), triangles.clone());
        let start = Instant::now();
        let mesh = black_box(TriMesh::with_flags(v, t, flags).expect("a valid mesh"));
        let ms = start.elapsed().as_secs_f64() * 1e3;
        drop(mesh);
        ms
    };
    let (mut plain_ms, mut fixed_ms) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..30 {
        plain_ms = plain_ms.min(time_ms(TriMeshFlags::empty()));
        fixed_ms = fixed_ms.min(time_ms(TriMeshFlags::FIX_INTERNAL_EDGES));
    }
    figure(&format!("{id}/build-ms/parry3d"), plain_ms, "ms");
    figure(&format!("{id}/build-ms/parry3d-fix-internal-edges"), fixed_ms, "ms");
    figure(&format!("{id}/build-time-ratio/fix-internal-edges-vs-plain"), fixed_ms / plain_ms, "x");

    let mut group = c.benchmark_group("contacts/trimesh-build");
    group.throughput(Throughput::Elements(mesh.triangle_count() as u64));
    group.sample_size(10);
    for (label, flags) in
        [("parry3d", TriMeshFlags::empty()), ("parry3d-fix-internal-edges", TriMeshFlags::FIX_INTERNAL_EDGES)]
    {
        group.bench_with_input(BenchmarkId::new(label, &scene.name), &(), |b, ()| {
            b.iter_batched(
                || (positions.clone(), triangles.clone()),
                |(v, t)| TriMesh::with_flags(v, t, flags).expect("a valid mesh"),
                BatchSize::LargeInput,
            );
        });
    }
    group.finish();
}

// ---------------------------------------------------------------------------------------------

fn contacts(c: &mut Criterion) {
    // 1 and 2: the flat plane, as one mesh and split at a seam; every shape swept.
    let plane_one = Scene::new("plane-800-triangles", vec![plane(0, 20, 20)], FeatureKeys::Indices);
    let plane_seam = Scene::new("plane-seam", vec![plane(0, 10, 20), plane(10, 20, 20)], FeatureKeys::Positions);
    for kind in [Kind::Ball, Kind::Capsule, Kind::Box] {
        let probes = flat_sweep(kind);
        ghost_scene(&plane_one, kind.name(), &probes, Judge::Up);
        ghost_scene(&plane_seam, kind.name(), &probes, Judge::Up);
    }

    // 3: curved terrain, one mesh and eight chunk meshes, the same 5000 balls.
    let (one, chunks) = terrain_meshes();
    let terrain_one = Scene::new("terrain-32^3", vec![one], FeatureKeys::Indices);
    let terrain_chunks = Scene::new("terrain-8-chunks", chunks, FeatureKeys::Positions);
    let mesh = &terrain_one.pieces[0].mesh;
    let balls = terrain_probes(mesh, Kind::Ball, TERRAIN_BALLS, 31);
    ghost_scene(&terrain_one, "ball", &balls, Judge::LocalMinimum);
    // Surface Nets can put two vertices at one position (here at grid points) and make triangles
    // with no area there: index keys cannot see the edges around them as shared, position keys can.
    let mut position_keys = Ours { keys: Some(FeatureKeys::Positions), ..Ours::new(0) };
    let tally = count(&mut position_keys, &terrain_one, &balls, Judge::LocalMinimum, true);
    print_tally(&terrain_one.name, "ball", "ours-position-keys", &tally);
    let mut seen = HashSet::new();
    let coincident = mesh.positions().iter().filter(|p| !seen.insert(p.to_array().map(f32::to_bits))).count();
    figure(
        "contacts/terrain-32^3/vertices-at-an-earlier-vertex-position",
        coincident as f64,
        &format!("of {}", mesh.vertex_count()),
    );
    let flat = (0..mesh.triangle_count() as u32)
        .filter(|&t| {
            let [a, b, c] = mesh.triangle_positions(t);
            (b - a).cross(c - a) == Vec3::ZERO
        })
        .count();
    figure("contacts/terrain-32^3/triangles-without-area", flat as f64, "");
    ghost_scene(&terrain_chunks, "ball", &balls, Judge::LocalMinimum);

    // 4: the 10-degree valley.
    let valley = Scene::new("valley-10-degrees", valley(), FeatureKeys::Positions);
    let valley_probes = valley_balls(&valley);
    ghost_scene(&valley, "ball", &valley_probes, Judge::LocalMinimum);

    // 5: memory and build time.
    build_costs(c, &terrain_one, &balls);

    // 6: query time, midphase included, on the same query sets.
    time_queries(c, "ball", &plane_one, &plane_balls(TIMED, 41));
    time_queries(c, "ball", &terrain_one, &balls[..TIMED]);
    time_queries(c, "ball", &terrain_chunks, &balls[..TIMED]);
    time_queries(c, "capsule", &terrain_one, &terrain_probes(mesh, Kind::Capsule, TIMED, 42));
    time_queries(c, "box", &terrain_one, &terrain_probes(mesh, Kind::Box, TIMED, 43));
}

// No plots: criterion's plotting took about 6 s of each bench's 7.5 s in a `--quick` run here, and
// `cargo xtask bench` reads only the estimates, which are still written.
criterion_group! {
    name = benches;
    config = config().without_plots();
    targets = contacts
}
criterion_main!(benches);
