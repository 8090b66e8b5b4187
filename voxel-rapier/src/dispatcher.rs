//! The query dispatcher that answers for [`TerrainShape`] pairs: contact manifolds, contacts and
//! intersection tests from voxel-contacts, everything else [`Unsupported`].

use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::sync::Arc;

use ahash::AHashMap;
use glam::{Quat, Vec3};
use parry3d::math::{Pose, Real, Vector};
use parry3d::query::details::NormalConstraints;
use parry3d::query::{
    ClosestPoints, Contact as ParryContact, ContactManifold, ContactManifoldsWorkspace, DefaultQueryDispatcher,
    NonlinearRigidMotion, PersistentQueryDispatcher, QueryDispatcher, QueryDispatcherChain, ShapeCastHit,
    ShapeCastOptions, ShapeCastStatus, Unsupported,
};
use parry3d::query::{ShapeDistance, ShapeIntersection};
use parry3d::query::{TypedWorkspaceData, WorkspaceData};
use parry3d::shape::{PackedFeatureId, Shape, TypedShape};
use voxel_contacts::{
    Capsule as VCapsule, CastHit, CastOptions, ContactOptions, ConvexPolyhedron as VConvex, Cuboid as VCuboid,
    FeatureKeys, Pose as VPose, Shape as VShape, Sphere,
};
use voxel_core::{Contact, Feature, TriangleSource};
use voxel_physics::{CastScratch, ContactScratch, TerrainCollider};

use crate::TerrainShape;

/// Contacts whose normals agree to this cosine (about 1.8 degrees) share one manifold: rapier's
/// solver pushes every point of a manifold along the manifold's one normal.
const SAME_NORMAL_COS: f32 = 0.9995;

/// The contacts of one manifold being built: their compound part, the deepest one's normal (the
/// others agree with it within [`SAME_NORMAL_COS`]), the manifold's index, and the sum of their
/// normals.
struct Group {
    part: u32,
    first: Vec3,
    slot: usize,
    sum: Vec3,
}

/// Converted convex hulls a thread keeps before it starts over.
const MAX_CACHED_HULLS: usize = 1024;

/// The dispatcher for pairs of a [`TerrainShape`] and a ball, capsule, cuboid, convex polyhedron
/// or compound of these, in either order. Chain it before parry's default dispatcher (see
/// [`TerrainDispatcher::chained`]) and build rapier's narrow phase with it:
///
/// ```
/// use rapier3d::prelude::NarrowPhase;
/// use voxel_rapier::TerrainDispatcher;
///
/// let narrow_phase = NarrowPhase::with_query_dispatcher(TerrainDispatcher::chained());
/// # let _ = narrow_phase;
/// ```
///
/// What each query does:
///
/// - `contact_manifolds`: [`TerrainCollider::contacts`] with position keys (no ghost contact on
///   internal edges or chunk seams), at most four points per shape (per part of a compound),
///   grouped into manifolds by normal. Feature ids on the terrain side hash the positions of the
///   triangle feature (face, edge or vertex), so the same feature keeps its id from frame to
///   frame, whichever chunk's copy of a seam edge the voiding keeps, and rapier's warm starting
///   finds last frame's impulses. A shape with non-finite or huge parameters gets no contact
///   (an empty answer, not an error).
/// - `contact`: the deepest of those contacts, or `None` past `prediction`.
/// - `intersection_test`: whether any contact has a depth `>= 0` (used for sensors).
/// - `cast_shapes` (rapier's `QueryPipeline::cast_shape`, its `KinematicCharacterController`):
///   [`TerrainCollider::cast_shape`] (voxel-contacts' sweep with position keys, so a chunk seam
///   never snags), per part of a compound, the earliest hit; `target_distance` is the sweep's
///   skin. Witnesses and normals in each shape's own frame, the moving shape at the time of
///   impact. A non-finite motion or bad options cast nothing (`None`).
/// - `cast_shapes_nonlinear` (rapier's CCD), `distance`, `closest_points`: [`Unsupported`] for
///   terrain pairs. rapier treats an unsupported CCD query as no impact, so a body faster than
///   about its own size per step may pass through thin terrain; bodies that fall are caught by
///   the next step's contacts as long as they end inside or near the surface.
/// - Any pair without a terrain shape, or with a shape kind above not listed: [`Unsupported`],
///   so the chained default dispatcher answers.
#[derive(Clone, Copy, Debug, Default)]
pub struct TerrainDispatcher;

impl TerrainDispatcher {
    /// This dispatcher chained before parry's [`DefaultQueryDispatcher`]: what
    /// `NarrowPhase::with_query_dispatcher` and bevy_rapier's
    /// `RapierContextSimulation::with_query_dispatcher` take.
    pub fn chained() -> QueryDispatcherChain<TerrainDispatcher, DefaultQueryDispatcher> {
        TerrainDispatcher.chain(DefaultQueryDispatcher)
    }
}

/// The marker workspace of a terrain pair whose manifolds changed in number (see
/// `contact_manifolds`); holds nothing.
#[derive(Clone, Copy, Debug)]
struct TerrainWorkspace;

impl WorkspaceData for TerrainWorkspace {
    fn as_typed_workspace_data(&self) -> TypedWorkspaceData<'_> {
        TypedWorkspaceData::Custom
    }

    fn clone_dyn(&self) -> Box<dyn WorkspaceData> {
        Box::new(*self)
    }
}

/// Per-thread buffers: contact queries run from rapier's threads at once, and after the first
/// steps no query allocates (`tests/allocations.rs`).
#[derive(Default)]
pub(crate) struct Scratch {
    pub(crate) scratch: ContactScratch,
    pub(crate) contacts: Vec<Contact>,
    cast: CastScratch,
    hulls: AHashMap<usize, (u64, Arc<VConvex>)>,
    /// The other shape's parts: index and pose in its frame.
    parts: Vec<(u32, Pose)>,
    found: Vec<Found>,
    /// Indices into `found`, in manifold-building order.
    order: Vec<usize>,
    /// The manifolds being built.
    groups: Vec<Group>,
    /// Buffers whose element type is the caller's contact data (rapier's, or a test's), by type.
    typed: AHashMap<TypeId, Box<dyn Any>>,
}

/// This thread's buffer of `T`s (made on first use).
fn typed_vec<T: 'static>(typed: &mut AHashMap<TypeId, Box<dyn Any>>) -> &mut Vec<T> {
    typed
        .entry(TypeId::of::<Vec<T>>())
        .or_insert_with(|| Box::new(Vec::<T>::new()))
        .downcast_mut::<Vec<T>>()
        .expect("entries are keyed by their own type")
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Runs `f` with this thread's buffers (fresh ones if they are already in use further up the
/// stack, so a nested query never panics).
pub(crate) fn with_scratch<R>(f: impl FnOnce(&mut Scratch) -> R) -> R {
    let mut f = Some(f);
    let out = SCRATCH.with(|s| s.try_borrow_mut().ok().map(|mut s| (f.take().expect("called once"))(&mut s)));
    match out {
        Some(r) => r,
        None => (f.take().expect("not called yet"))(&mut Scratch::default()),
    }
}

/// Which side of a pair the terrain is on, and the other shape's pose in the terrain's frame.
struct Pair<'a> {
    terrain: &'a TerrainShape,
    other: &'a dyn Shape,
    /// The other shape's pose in the terrain's frame.
    pose: Pose,
    /// True when the terrain is the second shape.
    flipped: bool,
}

fn pair<'a>(pos12: &Pose, g1: &'a dyn Shape, g2: &'a dyn Shape) -> Option<Pair<'a>> {
    if let Some(terrain) = g1.as_shape::<TerrainShape>() {
        if g2.as_shape::<TerrainShape>().is_some() {
            return None;
        }
        return Some(Pair { terrain, other: g2, pose: *pos12, flipped: false });
    }
    let terrain = g2.as_shape::<TerrainShape>()?;
    Some(Pair { terrain, other: g1, pose: pos12.inverse(), flipped: true })
}

/// The voxel-contacts shape of a supported convex parry shape at `pose` (terrain frame), or
/// `None` for kinds this dispatcher does not handle.
fn convex_part<'h>(
    shape: &dyn Shape,
    pose: &Pose,
    hull: &'h mut Option<Arc<VConvex>>,
    scratch_hulls: &mut AHashMap<usize, (u64, Arc<VConvex>)>,
) -> Option<VShape<'h>> {
    let vpose = VPose::new(pose.rotation, pose.translation);
    match shape.as_typed_shape() {
        TypedShape::Ball(b) => Some(VShape::Sphere(Sphere { center: pose.translation, radius: b.radius })),
        TypedShape::Capsule(c) => Some(VShape::Capsule(VCapsule {
            a: pose.transform_point(c.segment.a),
            b: pose.transform_point(c.segment.b),
            radius: c.radius,
        })),
        TypedShape::Cuboid(c) => Some(VShape::Cuboid(VCuboid { half_extents: c.half_extents, pose: vpose })),
        TypedShape::ConvexPolyhedron(p) => {
            *hull = Some(convert_hull(shape as *const dyn Shape as *const () as usize, p.points(), scratch_hulls)?);
            Some(VShape::Convex { hull: hull.as_deref()?, pose: vpose })
        }
        _ => None,
    }
}

/// voxel-contacts' form of a parry convex polyhedron, cached per thread by the shape's address
/// and a hash of its points (a freed shape's address reused by another shape is told apart).
fn convert_hull(
    key: usize,
    points: &[Vector],
    cache: &mut AHashMap<usize, (u64, Arc<VConvex>)>,
) -> Option<Arc<VConvex>> {
    let hash = points.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, p| {
        p.to_array().iter().fold(h, |h, x| (h ^ u64::from(x.to_bits())).wrapping_mul(0x0100_0000_01b3))
    });
    if let Some((h, hull)) = cache.get(&key)
        && *h == hash
    {
        return Some(hull.clone());
    }
    let hull = voxel_physics::convex_hacd::convex_hull(points).ok()?;
    let faces: Vec<Vec<u32>> = hull.triangles.iter().map(|t| t.to_vec()).collect();
    let poly = Arc::new(VConvex::new(hull.vertices, &faces).ok()?);
    if cache.len() >= MAX_CACHED_HULLS {
        cache.clear();
    }
    cache.insert(key, (hash, poly.clone()));
    Some(poly)
}

/// Mixes 32-bit words into a 30-bit feature code.
fn hash_code(words: impl IntoIterator<Item = u32>) -> u32 {
    let mut h = 0x9e37_79b9_7f4a_7c15u64;
    for w in words {
        h ^= u64::from(w);
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
    }
    (h ^ (h >> 30)) as u32 & 0x3fff_ffff
}

fn point_bits(p: Vec3) -> [u32; 3] {
    p.to_array().map(f32::to_bits)
}

/// The terrain-side feature id of a contact, the same from frame to frame: a face by its chunk
/// and triangle index; an edge or vertex by a hash of its positions, the same for both chunks'
/// copies of a seam edge.
fn terrain_feature(collider: &TerrainCollider, scratch: &ContactScratch, c: &Contact) -> PackedFeatureId {
    let Some(candidate) = scratch.candidates().get(c.triangle as usize) else {
        return PackedFeatureId::UNKNOWN;
    };
    if c.feature == Feature::Face {
        // A face belongs to one chunk's mesh: its chunk and index name it as long as the mesh
        // stands (meshes are rebuilt the same after an eviction), with no lookup of the mesh.
        let k = candidate.chunk;
        return PackedFeatureId::face(hash_code([k.x as u32, k.y as u32, k.z as u32, candidate.triangle]));
    }
    let Some(chunk) = collider.chunk_shape(candidate.chunk) else {
        return PackedFeatureId::UNKNOWN;
    };
    let mesh = chunk.mesh();
    if candidate.triangle as usize >= mesh.triangle_count() {
        return PackedFeatureId::UNKNOWN;
    }
    let v = mesh.triangle_positions(candidate.triangle);
    match c.feature {
        Feature::Edge(..) | Feature::Face => {
            // The edge is the triangle edge the contact point lies on (the nearest).
            let edge = (0..3)
                .map(|i| (v[i], v[(i + 1) % 3]))
                .min_by(|a, b| segment_distance(c.point, a.0, a.1).total_cmp(&segment_distance(c.point, b.0, b.1)))
                .unwrap_or((v[0], v[1]));
            let mut keys = [point_bits(edge.0), point_bits(edge.1)];
            keys.sort_unstable();
            PackedFeatureId::edge(hash_code(keys.into_iter().flatten()))
        }
        Feature::Vertex(_) => {
            let p = v.into_iter().min_by(|a, b| a.distance_squared(c.point).total_cmp(&b.distance_squared(c.point)));
            PackedFeatureId::vertex(hash_code(point_bits(p.unwrap_or(v[0]))))
        }
    }
}

fn segment_distance(p: Vec3, a: Vec3, b: Vec3) -> f32 {
    let ab = b - a;
    let t = ((p - a).dot(ab) / ab.length_squared().max(f32::MIN_POSITIVE)).clamp(0.0, 1.0);
    p.distance_squared(a + ab * t)
}

/// The other shape's feature id of a contact point `p` in its local frame (part frame for a
/// compound part): the box corner's octant, the hull's nearest point, the capsule's end.
fn other_feature(shape: &dyn Shape, p: Vec3) -> PackedFeatureId {
    match shape.as_typed_shape() {
        TypedShape::Cuboid(_) => {
            PackedFeatureId::vertex(u32::from(p.x > 0.0) | u32::from(p.y > 0.0) << 1 | u32::from(p.z > 0.0) << 2)
        }
        TypedShape::Capsule(c) => {
            let ab = c.segment.b - c.segment.a;
            let t = (p - c.segment.a).dot(ab) / ab.length_squared().max(f32::MIN_POSITIVE);
            PackedFeatureId::vertex(u32::from(t > 0.5))
        }
        TypedShape::ConvexPolyhedron(h) => {
            let i = h
                .points()
                .iter()
                .enumerate()
                .min_by(|a, b| a.1.distance_squared(p).total_cmp(&b.1.distance_squared(p)))
                .map_or(0, |(i, _)| i as u32);
            PackedFeatureId::vertex(i & 0x3fff_ffff)
        }
        _ => PackedFeatureId::face(0),
    }
}

/// The shapes of the other side, as (index, pose in the other shape's frame): the whole shape
/// (index 0), or each part of a compound; `Err` for a kind this dispatcher does not handle.
fn parts(shape: &dyn Shape, out: &mut Vec<(u32, Pose)>) -> Result<(), Unsupported> {
    out.clear();
    match shape.as_typed_shape() {
        TypedShape::Compound(c) => {
            for (i, (pose, part)) in c.shapes().iter().enumerate() {
                match part.as_typed_shape() {
                    TypedShape::Ball(_)
                    | TypedShape::Capsule(_)
                    | TypedShape::Cuboid(_)
                    | TypedShape::ConvexPolyhedron(_) => out.push((i as u32, *pose)),
                    _ => return Err(Unsupported),
                }
            }
        }
        TypedShape::Ball(_) | TypedShape::Capsule(_) | TypedShape::Cuboid(_) | TypedShape::ConvexPolyhedron(_) => {
            out.push((0, Pose::IDENTITY));
        }
        _ => return Err(Unsupported),
    }
    Ok(())
}

/// Part `index` of `shape` (as listed by [`parts`]).
fn part_shape(shape: &dyn Shape, index: u32) -> &dyn Shape {
    match shape.as_typed_shape() {
        TypedShape::Compound(c) => c.shapes().get(index as usize).map_or(shape, |(_, part)| part.as_ref()),
        _ => shape,
    }
}

/// A contact in the terrain's frame with the ids it carries into a manifold.
#[derive(Clone, Copy)]
struct Found {
    contact: Contact,
    terrain_fid: PackedFeatureId,
    other_fid: PackedFeatureId,
    part: u32,
}

/// Every contact of the other shape's parts with the terrain within `prediction`, in the
/// terrain's frame, into `s.found`; `Err` for a shape kind this dispatcher does not handle.
fn gather(pair: &Pair<'_>, prediction: Real, max_points: usize, s: &mut Scratch) -> Result<(), Unsupported> {
    let Scratch { scratch, contacts, hulls, parts: list, found, .. } = s;
    parts(pair.other, list)?;
    found.clear();
    let collider = pair.terrain.read();
    let prediction = if prediction.is_finite() { prediction.max(0.0) } else { 0.0 };
    let options = ContactOptions { contact_distance: prediction, keys: FeatureKeys::Positions, max_points };
    for &(index, local) in list.iter() {
        let part = part_shape(pair.other, index);
        let pose = pair.pose * local;
        let mut hull = None;
        let Some(shape) = convex_part(part, &pose, &mut hull, hulls) else {
            continue;
        };
        contacts.clear();
        // Invalid shapes (non-finite, huge) and boxes past the broadphase's reach: no contact.
        if collider.contacts(&shape, &options, scratch, contacts).is_err() {
            continue;
        }
        for c in contacts.iter() {
            if !(c.point.is_finite() && c.normal.is_finite() && c.depth.is_finite()) {
                continue;
            }
            let on_other = pose.inverse_transform_point(c.point - c.normal * c.depth);
            found.push(Found {
                contact: *c,
                terrain_fid: terrain_feature(&collider, scratch, c),
                other_fid: other_feature(part, on_other),
                part: index,
            });
        }
    }
    Ok(())
}

fn rotate_inv(q: Quat, v: Vec3) -> Vec3 {
    q.inverse() * v
}

impl QueryDispatcher for TerrainDispatcher {
    fn intersection_test(
        &self,
        pos12: &Pose,
        g1: &dyn Shape,
        g2: &dyn Shape,
    ) -> Result<ShapeIntersection, Unsupported> {
        let pair = pair(pos12, g1, g2).ok_or(Unsupported)?;
        let hit = with_scratch(|s| {
            gather(&pair, 0.0, 1, s)?;
            Ok(s.found.iter().find(|f| f.contact.depth >= 0.0).map(|f| f.part))
        })?;
        let part = hit.unwrap_or(0);
        let (subshape1, subshape2) = if pair.flipped { (part, 0) } else { (0, part) };
        Ok(ShapeIntersection { intersecting: hit.is_some(), subshape1, subshape2 })
    }

    fn distance(&self, pos12: &Pose, g1: &dyn Shape, g2: &dyn Shape) -> Result<ShapeDistance, Unsupported> {
        let _ = (pos12, g1, g2);
        Err(Unsupported)
    }

    fn contact(
        &self,
        pos12: &Pose,
        g1: &dyn Shape,
        g2: &dyn Shape,
        prediction: Real,
    ) -> Result<Option<ParryContact>, Unsupported> {
        let pair = pair(pos12, g1, g2).ok_or(Unsupported)?;
        let best = with_scratch(|s| {
            gather(&pair, prediction, 1, s)?;
            Ok(s.found.iter().max_by(|a, b| a.contact.depth.total_cmp(&b.contact.depth)).map(|f| f.contact))
        })?;
        let Some(c) = best else {
            return Ok(None);
        };
        let on_terrain = c.point;
        let on_other = pair.pose.inverse_transform_point(c.point - c.normal * c.depth);
        let n_terrain = c.normal;
        let n_other = rotate_inv(pair.pose.rotation, -c.normal);
        Ok(Some(if pair.flipped {
            ParryContact::new(on_other, on_terrain, n_other, n_terrain, -c.depth)
        } else {
            ParryContact::new(on_terrain, on_other, n_terrain, n_other, -c.depth)
        }))
    }

    fn closest_points(
        &self,
        pos12: &Pose,
        g1: &dyn Shape,
        g2: &dyn Shape,
        max_dist: Real,
    ) -> Result<ClosestPoints, Unsupported> {
        let _ = (pos12, g1, g2, max_dist);
        Err(Unsupported)
    }

    fn cast_shapes(
        &self,
        pos12: &Pose,
        local_vel12: Vector,
        g1: &dyn Shape,
        g2: &dyn Shape,
        options: ShapeCastOptions,
    ) -> Result<Option<ShapeCastHit>, Unsupported> {
        let pair = pair(pos12, g1, g2).ok_or(Unsupported)?;
        // The other shape's motion relative to the terrain, in the terrain's frame.
        let motion = if pair.flipped { -(pair.pose.rotation * local_vel12) } else { local_vel12 };
        let max_t = options.max_time_of_impact;
        let skin = options.target_distance;
        if !(motion.is_finite() && max_t.is_finite() && max_t >= 0.0 && skin.is_finite() && skin >= 0.0) {
            return Ok(None);
        }
        let cast_options =
            CastOptions { max_t, skin, stop_at_penetration: options.stop_at_penetration, keys: FeatureKeys::Positions };
        let collider = pair.terrain.read();
        let best = with_scratch(|s| {
            let Scratch { cast, hulls, parts: list, .. } = s;
            parts(pair.other, list)?;
            let mut best: Option<(CastHit, u32)> = None;
            for &(index, local) in list.iter() {
                let part = part_shape(pair.other, index);
                let pose = pair.pose * local;
                let mut hull = None;
                let Some(shape) = convex_part(part, &pose, &mut hull, hulls) else {
                    continue;
                };
                // A bad shape or motion casts nothing (as it gets no contact).
                if let Ok(Some(hit)) = collider.cast_shape(&shape, motion, &cast_options, cast)
                    && best.is_none_or(|b| hit.hit.t < b.0.t)
                {
                    best = Some((hit.hit, index));
                }
            }
            Ok(best)
        })?;
        let Some((hit, part)) = best else {
            return Ok(None);
        };
        // Both witnesses and normals in their shape's own (unmoved) frame.
        let on_terrain = hit.point;
        let moved = Pose::from_parts(pair.pose.translation + motion * hit.t, pair.pose.rotation);
        let on_other = moved.inverse_transform_point(hit.point - hit.normal * hit.depth);
        let n_other = rotate_inv(pair.pose.rotation, -hit.normal);
        let status = if hit.t <= 0.0 && hit.depth > -skin {
            ShapeCastStatus::PenetratingOrWithinTargetDist
        } else {
            ShapeCastStatus::Converged
        };
        let out = ShapeCastHit {
            time_of_impact: hit.t,
            witness1: on_terrain,
            witness2: on_other,
            normal1: hit.normal,
            normal2: n_other,
            status,
            subshape1: 0,
            subshape2: part,
        };
        Ok(Some(if pair.flipped { out.swapped() } else { out }))
    }

    fn cast_shapes_nonlinear(
        &self,
        motion1: &NonlinearRigidMotion,
        g1: &dyn Shape,
        motion2: &NonlinearRigidMotion,
        g2: &dyn Shape,
        start_time: Real,
        end_time: Real,
        stop_at_penetration: bool,
    ) -> Result<Option<ShapeCastHit>, Unsupported> {
        let _ = (motion1, g1, motion2, g2, start_time, end_time, stop_at_penetration);
        Err(Unsupported)
    }
}

impl<ManifoldData, ContactData> PersistentQueryDispatcher<ManifoldData, ContactData> for TerrainDispatcher
where
    ManifoldData: Default + Clone + Send + Sync,
    ContactData: Default + Copy + Send + Sync + 'static,
{
    fn contact_manifolds(
        &self,
        pos12: &Pose,
        g1: &dyn Shape,
        g2: &dyn Shape,
        prediction: Real,
        manifolds: &mut Vec<ContactManifold<ManifoldData, ContactData>>,
        workspace: &mut Option<ContactManifoldsWorkspace>,
    ) -> Result<(), Unsupported> {
        let pair = pair(pos12, g1, g2).ok_or(Unsupported)?;
        let before = manifolds.len();
        with_scratch(|s| {
            // Unreduced: the reduction to four points runs per manifold (per normal), or a box
            // across a crease could keep four points on one face and none on the other.
            gather(&pair, prediction, 0, s)?;
            build_manifolds(&pair, s, manifolds);
            Ok(())
        })?;
        // A pair with one manifold reuses it, so rapier can update its solver contact graph in
        // place. With several (rapier then also clusters them), or when one is dropped, the
        // ordinals are not stable and rapier must rebuild the graph: a workspace marks the pair
        // as composite for that step, as parry's own mesh pairs always are.
        let composite = before > 1 || manifolds.len() > 1 || manifolds.len() < before;
        *workspace = composite.then(|| ContactManifoldsWorkspace(Box::new(TerrainWorkspace)));
        Ok(())
    }

    fn contact_manifold_convex_convex(
        &self,
        pos12: &Pose,
        g1: &dyn Shape,
        g2: &dyn Shape,
        normal_constraints1: Option<&dyn NormalConstraints>,
        normal_constraints2: Option<&dyn NormalConstraints>,
        prediction: Real,
        manifold: &mut ContactManifold<ManifoldData, ContactData>,
    ) -> Result<(), Unsupported> {
        let _ = (pos12, g1, g2, normal_constraints1, normal_constraints2, prediction, manifold);
        Err(Unsupported)
    }
}

/// Groups `s.found` into manifolds (per compound part, then by normal), reusing last frame's
/// manifold objects in order (and their points' storage) and carrying each point's solver data
/// over from the old point with the same feature ids.
fn build_manifolds<M: Default + Clone, D: Default + Copy + 'static>(
    pair: &Pair<'_>,
    s: &mut Scratch,
    manifolds: &mut Vec<ContactManifold<M, D>>,
) {
    let Scratch { found, order, groups, typed, .. } = s;
    // Old points by (part, fid1, fid2), in the order the pair presents them.
    let old_points = typed_vec::<(u32, PackedFeatureId, PackedFeatureId, D)>(typed);
    old_points.clear();
    old_points.extend(manifolds.iter().flat_map(|m| {
        let part = if pair.flipped { m.subshape1 } else { m.subshape2 };
        m.points.iter().map(move |p| (part, p.fid1, p.fid2, p.data))
    }));
    order.clear();
    order.extend(0..found.len());
    // Deepest first: it sets the manifold's normal. Ties by part, then by index, for determinism
    // (an unstable sort with a total order: no buffer).
    order.sort_unstable_by(|&a, &b| {
        (found[a].part.cmp(&found[b].part))
            .then(found[b].contact.depth.total_cmp(&found[a].contact.depth))
            .then(a.cmp(&b))
    });
    groups.clear();
    let mut used = 0;
    for &i in order.iter() {
        let f = &found[i];
        let n = f.contact.normal;
        let slot = match groups.iter_mut().find(|g| g.part == f.part && g.first.dot(n) >= SAME_NORMAL_COS) {
            Some(g) => {
                g.sum += n;
                g.slot
            }
            None => {
                if used == manifolds.len() {
                    manifolds.push(ContactManifold::new());
                }
                let m = &mut manifolds[used];
                m.points.clear();
                m.subshape_poses = None;
                if pair.flipped {
                    m.subshape1 = f.part;
                    m.subshape2 = 0;
                    m.local_n1 = rotate_inv(pair.pose.rotation, -n);
                    m.local_n2 = n;
                } else {
                    m.subshape1 = 0;
                    m.subshape2 = f.part;
                    m.local_n1 = n;
                    m.local_n2 = rotate_inv(pair.pose.rotation, -n);
                }
                groups.push(Group { part: f.part, first: n, slot: used, sum: n });
                used += 1;
                used - 1
            }
        };
        let c = f.contact;
        let on_terrain = c.point;
        let on_other = pair.pose.inverse_transform_point(c.point - c.normal * c.depth);
        let (p1, p2, fid1, fid2) = if pair.flipped {
            (on_other, on_terrain, f.other_fid, f.terrain_fid)
        } else {
            (on_terrain, on_other, f.terrain_fid, f.other_fid)
        };
        let mut point = parry3d::query::TrackedContact::new(p1, p2, fid1, fid2, -c.depth);
        if let Some(o) = old_points.iter().find(|o| o.0 == f.part && o.1 == fid1 && o.2 == fid2) {
            point.data = o.3;
        }
        manifolds[slot].points.push(point);
    }
    manifolds.truncate(used);
    // The manifold pushes along the mean of its contacts' normals: on facets a few tenths of a
    // degree apart (quantized distances on a slanted surface), the deepest one's normal alone
    // would steer a box along that one facet's tilt.
    for g in groups.iter() {
        let n = g.sum.normalize_or(g.first);
        let m = &mut manifolds[g.slot];
        if pair.flipped {
            m.local_n1 = rotate_inv(pair.pose.rotation, -n);
            m.local_n2 = n;
        } else {
            m.local_n1 = n;
            m.local_n2 = rotate_inv(pair.pose.rotation, -n);
        }
    }
    for m in manifolds.iter_mut() {
        reduce(&mut m.points, pair.flipped);
    }
}

/// Keeps at most [`MAX_POINTS`](voxel_contacts::MAX_POINTS) points of a manifold: the deepest, the
/// farthest from it, the one making the largest triangle with those two, then the one adding the
/// most area (voxel-contacts' own reduction, run per manifold). `flipped` says which side's
/// points are the terrain's.
fn reduce<D: Copy>(points: &mut Vec<parry3d::query::TrackedContact<D>>, flipped: bool) {
    if points.len() <= voxel_contacts::MAX_POINTS {
        return;
    }
    let at = |p: &parry3d::query::TrackedContact<D>| if flipped { p.local_p2 } else { p.local_p1 };
    let argmax = |key: &dyn Fn(&parry3d::query::TrackedContact<D>) -> f32| {
        let mut best = (0, f32::NEG_INFINITY);
        for (i, p) in points.iter().enumerate() {
            let k = key(p);
            if k > best.1 {
                best = (i, k);
            }
        }
        best
    };
    let mut keep = [usize::MAX; 4];
    let mut kept = 1;
    let (i0, _) = argmax(&|p| -p.dist);
    keep[0] = i0;
    let p0 = at(&points[i0]);
    let (i1, d1) = argmax(&|p| at(p).distance_squared(p0));
    if d1 > 0.0 {
        keep[kept] = i1;
        kept += 1;
        let p1 = at(&points[i1]);
        let (i2, a2) = argmax(&|p| (p1 - p0).cross(at(p) - p0).length_squared());
        if a2 > 0.0 {
            keep[kept] = i2;
            kept += 1;
            let p2 = at(&points[i2]);
            let base = (p1 - p0).cross(p2 - p0).length();
            let added = |p: Vec3| {
                (p0 - p).cross(p1 - p).length() + (p1 - p).cross(p2 - p).length() + (p2 - p).cross(p0 - p).length()
                    - base
            };
            let (i3, a3) = argmax(&|p| added(at(p)));
            if a3 > 1e-6 * base {
                keep[kept] = i3;
                kept += 1;
            }
        }
    }
    let keep = &mut keep[..kept];
    keep.sort_unstable();
    let mut k = 0;
    points.retain(|_| {
        let kept = keep.binary_search(&k).is_ok();
        k += 1;
        kept
    });
}
