//! Shape casts (sweeps): how far a shape can move along a direction before it touches the
//! triangles, and what it touches, under the same no-ghost rule as contacts.
//!
//! Every candidate triangle reports its events (see `sweep`): the first time the shape comes
//! within the skin of it, with the feature reached (face, edge or vertex), and, when that was not
//! the face, the first time it reaches the face. The events are taken in time order, faces first
//! at equal times, and voided as contacts are (Terdiman's rule, carried over from distance to time):
//!
//! - a face event whose normal the motion goes against is the hit;
//! - an edge or vertex event on a feature of a triangle already taken (a face the shape slides
//!   along or away from, or an earlier voided event) is no hit; otherwise, when the motion goes
//!   against its normal, it is the hit, with the edge's or vertex's true normal (a real ledge);
//! - every event taken that is not a hit voids its triangle's features.
//!
//! So a shape sliding over a flat or concave stretch is never stopped by an edge, and a hit there
//! carries the face's normal; a convex edge that no face the shape slides on shares still stops it.

use glam::Vec3;
use voxel_core::Feature;

use crate::candidates::Candidates;
use crate::generator::{Voided, feature_of, vertex_key};
use crate::kernel::Local;
use crate::shape::{BoxData, Shape};
use crate::sweep::{self, APPROACH_COS, Motion, PolyScratch, Touch};
use crate::{ContactError, FeatureKeys, MAX_SHAPE_COORDINATE};

/// Parameters of a cast.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CastOptions {
    /// The cast covers `t` in `[0, max_t]` (the shape at `start + motion * t`). Finite, `>= 0`.
    pub max_t: f32,
    /// The target gap: the hit is where the gap first shrinks to this (a character controller's
    /// skin). Finite, `>= 0`. Round shapes measure it exactly; boxes and convex polyhedra measure
    /// it along each separating axis, which is the true gap for face and edge-edge hits and at
    /// most the true gap near the shape's corners (they stop at most that much early).
    pub skin: f32,
    /// What to do with a triangle the shape starts within the skin of (or overlapping) when the
    /// motion slides along or away from it. `false` (parry's `stop_at_penetration = false`):
    /// ignore it, so a shape resting on the ground can move along or off it. `true`: when the
    /// shape overlaps it, report `t = 0` with the penetration normal. Either way a start contact
    /// the motion goes deeper into is a hit at `t = 0`.
    pub stop_at_penetration: bool,
    /// How shared features are recognised (keep [`FeatureKeys::Positions`] for chunk meshes).
    pub keys: FeatureKeys,
}

impl CastOptions {
    /// Checks a cast's input as [`ShapeCaster::cast`] does, without casting.
    ///
    /// # Errors
    ///
    /// As [`ShapeCaster::cast`].
    pub fn check(&self, shape: &Shape<'_>, motion: Vec3) -> Result<(), ContactError> {
        shape.validate()?;
        validate(motion, self)
    }
}

impl Default for CastOptions {
    /// `max_t = 1`, no skin, not stopping at penetration, position keys.
    fn default() -> Self {
        Self { max_t: 1.0, skin: 0.0, stop_at_penetration: false, keys: FeatureKeys::Positions }
    }
}

/// Where a cast stops.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CastHit {
    /// The time of impact: the shape stops at `start + motion * t`.
    pub t: f32,
    /// The contact point on the triangle at that pose.
    pub point: Vec3,
    /// Unit, from the triangle towards the shape: a face's normal on flat and concave stretches.
    pub normal: Vec3,
    /// The shape's penetration along `normal` at that pose: `-skin` for a hit found while moving;
    /// the starting overlap (or minus the starting gap) for a hit at `t = 0` the shape started in.
    pub depth: f32,
    /// The id the triangle was pushed with.
    pub triangle: u32,
    /// The feature of the triangle touched.
    pub feature: Feature,
}

/// One event of one triangle.
#[derive(Clone, Copy, Debug)]
struct Event {
    touch: Touch,
    index: u32,
    /// The triangle's approach threshold for this motion.
    approach: f32,
}

impl Event {
    /// Faces before edges and vertices at equal times.
    fn rank(&self) -> u8 {
        u8::from(self.touch.feature != Local::Face)
    }
}

/// The reusable scratch of shape casts: cast any number of shapes with one caster and it
/// allocates nothing after the first few.
///
/// ```
/// use glam::Vec3;
/// use voxel_contacts::{Candidates, CastOptions, ShapeCaster, Shape, Sphere};
///
/// // A floor of two triangles at y = 0, a ball of radius 0.5 falling from y = 3.
/// let v = [Vec3::new(-5.0, 0.0, -5.0), Vec3::new(-5.0, 0.0, 5.0), Vec3::new(5.0, 0.0, 5.0), Vec3::new(5.0, 0.0, -5.0)];
/// let mut floor = Candidates::new();
/// floor.push(0, [v[0], v[1], v[2]], [0, 1, 2]);
/// floor.push(1, [v[0], v[2], v[3]], [0, 2, 3]);
///
/// let ball = Shape::Sphere(Sphere { center: Vec3::new(0.3, 3.0, 0.2), radius: 0.5 });
/// let options = CastOptions { max_t: 10.0, skin: 0.01, ..CastOptions::default() };
/// let mut caster = ShapeCaster::new();
/// let hit = caster.cast(&ball, Vec3::NEG_Y, &floor, &options)?.expect("it lands");
/// assert!((hit.t - 2.49).abs() < 1e-5); // stops a skin above the floor
/// assert_eq!(hit.normal, Vec3::Y);
///
/// // Sliding along the floor it rests on: no hit, not even at the diagonal's internal edge.
/// let resting = Shape::Sphere(Sphere { center: Vec3::new(-3.0, 0.5, 0.0), radius: 0.5 });
/// assert!(caster.cast(&resting, Vec3::new(1.0, 0.0, 0.3), &floor, &options)?.is_none());
/// # Ok::<(), voxel_contacts::ContactError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct ShapeCaster {
    events: Vec<Event>,
    /// Candidates whose box the path enters, with the entry time.
    order: Vec<(f32, u32)>,
    voided: Voided,
    /// Length of the last cast's motion.
    speed: f32,
    poly: PolyScratch,
}

/// The motion goes against an edge's or vertex's normal when their cosine is below this. A shape
/// passing a convex edge at the skin touches it tangentially, where the normal's direction is
/// ill-conditioned (a gap error `e` turns it by about `sqrt(2 e / r)`); a touch this close to
/// tangent lets the shape come at most `r * 5e-7` closer than the skin.
const EDGE_APPROACH_COS: f32 = -1e-3;

impl ShapeCaster {
    /// A caster with empty scratch.
    pub fn new() -> Self {
        Self::default()
    }

    /// Casts `shape` along `motion` against the candidate triangles: the first pose
    /// `shape + motion * t`, `t` in `[0, options.max_t]`, where the gap to a live feature the
    /// motion goes against reaches `options.skin`, or `None`.
    ///
    /// Triangles are one-sided, as for contacts. Ties between triangles at the same `t` are
    /// broken by the order of the candidate set (faces first), so the answer does not depend on
    /// how the candidates were found as long as their order is deterministic.
    ///
    /// # Errors
    ///
    /// [`ContactError::InvalidShape`] as for contacts; [`ContactError::InvalidOptions`] for a
    /// motion that is not finite, is zero or is beyond [`MAX_SHAPE_COORDINATE`], or a `max_t` or
    /// `skin` that is negative or not finite.
    pub fn cast(
        &mut self,
        shape: &Shape<'_>,
        motion: Vec3,
        candidates: &Candidates,
        options: &CastOptions,
    ) -> Result<Option<CastHit>, ContactError> {
        self.cast_after(shape, motion, candidates, options, 0.0)
    }

    /// [`ShapeCaster::cast`] reporting only hits at `t >= after`: touches before `after` still
    /// void the features they take, but are never the hit. For a long cast cut into stretches,
    /// each stretch cast from the cast's own start with the triangles near its own part of the
    /// path: the earlier stretches judged what happens before `after` with the triangles around
    /// it, while this stretch's set can lack the neighbours that void an edge touched there.
    /// Casting from the stretch's start pose instead would take what the shape overlaps there for
    /// start contacts (and forget what the motion passed).
    ///
    /// # Errors
    ///
    /// As [`ShapeCaster::cast`], and [`ContactError::InvalidOptions`] for an `after` that is not
    /// finite or not in `[0, options.max_t]`.
    pub fn cast_after(
        &mut self,
        shape: &Shape<'_>,
        motion: Vec3,
        candidates: &Candidates,
        options: &CastOptions,
        after: f32,
    ) -> Result<Option<CastHit>, ContactError> {
        options.check(shape, motion)?;
        if !(after >= 0.0 && after <= options.max_t) {
            return Err(ContactError::InvalidOptions("after must be finite and in 0..=max_t"));
        }
        let mut m = Motion { d: motion, max_t: options.max_t, skin: options.skin, approach: APPROACH_COS };
        self.speed = motion.length();
        // A triangle can only be touched if its box, grown by the shape's box and the skin, meets
        // the path of the shape box's centre: a slab test that keeps the thin swept tube
        // of a long slanted cast, not its whole box. Its entry time is a lower bound of the
        // triangle's events, and the earliest face touch the motion goes against is a hit
        // whatever else happens (faces are never voided), so triangles are taken by entry time
        // and those entered after such a touch are never swept.
        let bounds = shape.aabb();
        let (centre, half) = (bounds.center(), bounds.size() * 0.5);
        let ball = half.max_element();
        let grow = half + (m.skin + 1e-5 * (1.0 + ball + centre.abs().max_element()));
        let inv = motion.recip();
        self.order.clear();
        for (i, tri) in candidates.positions.iter().enumerate() {
            if !(tri[0].is_finite() && tri[1].is_finite() && tri[2].is_finite()) {
                continue;
            }
            let lo = tri[0].min(tri[1]).min(tri[2]) - grow;
            let hi = tri[0].max(tri[1]).max(tri[2]) + grow;
            if let Some(enter) = path_enters_box(centre, motion, inv, m.max_t, lo, hi) {
                self.order.push((enter, i as u32));
            }
        }
        self.order.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let dir = motion / self.speed;
        // Events within this of the bound may still tie with it.
        let slack = 1e-5 * (1.0 + centre.abs().max_element() + ball) / self.speed;
        // Boxes and hulls are placed once per cast (rotation matrix, box corners).
        let data = match *shape {
            Shape::Cuboid(b) => Some(BoxData::new(b.half_extents)),
            _ => None,
        };
        let placed = match (*shape, &data) {
            (Shape::Cuboid(b), Some(data)) => {
                Some(sweep::placed(data.view(), b.pose.rotation, b.pose.translation, b.half_extents.max_element()))
            }
            (Shape::Convex { hull, pose }, _) => {
                Some(sweep::placed(hull.view(), pose.rotation, pose.translation, hull.radius()))
            }
            _ => None,
        };
        let mut bound = f32::INFINITY;
        self.events.clear();
        for &(enter, i) in &self.order {
            if enter > bound + slack {
                break;
            }
            let tri = &candidates.positions[i as usize];
            m.approach = sweep::approach_cos(tri, dir);
            let events = match (*shape, &placed) {
                (Shape::Sphere(s), _) => sweep::sphere(s.center, s.radius, &m, tri),
                (Shape::Capsule(c), _) => sweep::capsule(c.a, c.b, c.radius, &m, tri),
                (_, Some(placed)) => sweep::polytope(placed, &m, tri, &mut self.poly),
                (_, None) => continue,
            };
            for touch in [events.first, events.face].into_iter().flatten() {
                if touch.t.is_finite() && touch.normal.is_finite() && touch.point.is_finite() {
                    if touch.feature == Local::Face && touch.normal.dot(dir) < m.approach && touch.t >= after {
                        bound = bound.min(touch.t);
                    }
                    self.events.push(Event { touch, index: i, approach: m.approach });
                }
            }
        }
        self.events.sort_unstable_by(|a, b| {
            a.touch
                .t
                .total_cmp(&b.touch.t)
                .then(a.rank().cmp(&b.rank()))
                // Starting touches, all at t = 0, deepest first: as contacts order their delayed
                // pass by distance (edges and vertices together), so a touch is voided by the
                // closer ones around it.
                .then(b.touch.depth.total_cmp(&a.touch.depth))
                .then(a.index.cmp(&b.index))
                .then(a.touch.feature.cmp(&b.touch.feature))
        });
        Ok(self.resolve(candidates, motion, options, after))
    }

    /// The voiding pass over the sorted events; touches before `after` only void.
    fn resolve(&mut self, set: &Candidates, motion: Vec3, options: &CastOptions, after: f32) -> Option<CastHit> {
        self.voided.clear();
        let dir = motion.normalize();
        let keys = options.keys;
        for (k, e) in self.events.iter().enumerate() {
            let i = e.index as usize;
            let touch = e.touch;
            let early = touch.t < after;
            let stuck = touch.t == 0.0 && options.stop_at_penetration && touch.depth > 0.0;
            let (hit, voids) = match touch.feature {
                // A face touch the motion goes against is the hit; one the shape glides along or
                // leaves voids the face's boundary.
                // A face the motion is parallel to while the shape is inside its plane (a step's
                // top when running into the step's side) is not glided on and voids nothing.
                Local::Face => (stuck || touch.normal.dot(dir) < e.approach, touch.slides || touch.t == 0.0),
                // A boundary touch while gliding within the skin of the triangle's own plane is
                // no hit, and the triangle's boundary stays voided as for a face slid along.
                _ if touch.slides && !stuck => (false, true),
                _ => {
                    let voided = self.voided.has_feature(set, i, touch.feature, keys)
                        // T-junctions between disjoint meshes share no key: a spot on a voided edge
                        // is voided.
                        || (keys == FeatureKeys::Positions && self.voided.covers(set, &set.positions[i], touch.feature, touch.point));
                    let against = touch.normal.dot(dir) < EDGE_APPROACH_COS.min(e.approach);
                    let hit = !voided && (stuck || against) && !self.voided_by_tie(k, set, keys);
                    // A crease edge voided by the face the shape glides on, of a triangle whose
                    // plane the motion runs into: the shape meets that face in the crease's
                    // corner. A concave stretch: the hit is the face's, with its normal.
                    let crease =
                        if voided { self.crease_face(set, i, touch.feature, keys, dir, e.approach) } else { None };
                    if let Some(face) = crease.filter(|_| !early) {
                        return Some(CastHit {
                            t: touch.t,
                            point: touch.point,
                            normal: face,
                            depth: touch.depth,
                            triangle: set.ids[i],
                            feature: voxel_core::Feature::Face,
                        });
                    }
                    // Every triangle taken voids its features, as in the contacts' delayed pass.
                    (hit, true)
                }
            };
            if hit && !early {
                return Some(CastHit {
                    t: touch.t,
                    point: touch.point,
                    normal: touch.normal,
                    depth: touch.depth,
                    triangle: set.ids[i],
                    feature: feature_of(touch.feature, set.vertex_ids[i]),
                });
            }
            if voids {
                self.voided.void(set, i, keys);
            }
        }
        None
    }

    /// The normal of triangle `i` when its edge `feature` is a concave crease with a voided
    /// neighbour and the motion runs into the triangle's plane.
    fn crease_face(
        &self,
        set: &Candidates,
        i: usize,
        feature: Local,
        keys: FeatureKeys,
        dir: Vec3,
        approach: f32,
    ) -> Option<Vec3> {
        let Local::Edge(a, b) = feature else { return None };
        let tri = &set.positions[i];
        let n = (tri[1] - tri[0]).cross(tri[2] - tri[0]).try_normalize()?;
        if !(n.dot(dir) < approach) {
            return None;
        }
        let ids = &set.vertex_ids[i];
        let key = |c: u8| vertex_key(keys, tri[c as usize], ids[c as usize]);
        let j = self.voided.edge_owner(key(a), key(b))? as usize;
        // Concave: the neighbour's corners lie on or in front of this triangle's plane, one of
        // them clearly in front.
        let other = &set.positions[j];
        let size = tri[0].distance(tri[1]).max(tri[1].distance(tri[2])).max(tri[2].distance(tri[0]));
        let heights = other.map(|p| n.dot(p - tri[0]));
        let tol = 1e-5 * (1.0 + size);
        (heights.iter().all(|&h| h >= -tol) && heights.iter().any(|&h| h > tol)).then_some(n)
    }

    /// True when an event at the same time as event `k` (to rounding) voids its feature: a face
    /// touch or a gliding boundary touch of a triangle sharing the feature. Events at one time are otherwise taken in an order that says nothing about
    /// which voids which.
    fn voided_by_tie(&self, k: usize, set: &Candidates, keys: FeatureKeys) -> bool {
        let e = &self.events[k];
        let scale = 1.0 + e.touch.point.abs().max_element();
        let until = e.touch.t + 1e-6 * scale / self.speed + 8.0 * f32::EPSILON * e.touch.t;
        let i = e.index as usize;
        let own = feature_keys(set, i, e.touch.feature, keys);
        self.events[k + 1..].iter().take_while(|o| o.touch.t <= until).any(|o| {
            let voids = o.touch.slides || o.touch.feature == Local::Face;
            voids && {
                let j = o.index as usize;
                let theirs: [[u32; 3]; 3] =
                    core::array::from_fn(|c| vertex_key(keys, set.positions[j][c], set.vertex_ids[j][c]));
                own.iter().flatten().all(|key| theirs.contains(key))
            }
        })
    }
}

/// The vertex keys of a triangle's feature (one for a vertex, two for an edge).
fn feature_keys(set: &Candidates, i: usize, feature: Local, keys: FeatureKeys) -> [Option<[u32; 3]>; 2] {
    let key = |c: u8| Some(vertex_key(keys, set.positions[i][c as usize], set.vertex_ids[i][c as usize]));
    match feature {
        Local::Face => [None, None],
        Local::Edge(a, b) => [key(a), key(b)],
        Local::Vertex(a) => [key(a), None],
    }
}

/// The first `t` in `[0, max_t]` at which `c + d t` is in the box `lo`-`hi` (`inv` is `1 / d`).
#[inline]
fn path_enters_box(c: Vec3, d: Vec3, inv: Vec3, max_t: f32, lo: Vec3, hi: Vec3) -> Option<f32> {
    let (mut t0, mut t1) = (0.0f32, max_t);
    for a in 0..3 {
        if d[a] == 0.0 {
            if c[a] < lo[a] || c[a] > hi[a] {
                return None;
            }
        } else {
            let (u, v) = ((lo[a] - c[a]) * inv[a], (hi[a] - c[a]) * inv[a]);
            t0 = t0.max(u.min(v));
            t1 = t1.min(u.max(v));
        }
    }
    (t0 <= t1).then_some(t0)
}

fn validate(motion: Vec3, options: &CastOptions) -> Result<(), ContactError> {
    let max = MAX_SHAPE_COORDINATE.as_f32();
    if !MAX_SHAPE_COORDINATE.contains_point(motion) {
        return Err(ContactError::InvalidOptions("cast motion must be finite"));
    }
    if motion == Vec3::ZERO || motion.try_normalize().is_none() {
        return Err(ContactError::InvalidOptions("cast motion must not be zero"));
    }
    if !(options.max_t.is_finite() && options.max_t >= 0.0) {
        return Err(ContactError::InvalidOptions("cast max_t must be finite and >= 0"));
    }
    if !(options.max_t * motion.abs().max_element() <= max) {
        return Err(ContactError::InvalidOptions("cast travels beyond MAX_SHAPE_COORDINATE"));
    }
    if !(options.skin.is_finite() && (0.0..=max).contains(&options.skin)) {
        return Err(ContactError::InvalidOptions("cast skin must be finite and >= 0"));
    }
    Ok(())
}
