//! The contact generation pass of Terdiman's "Contact generation for meshes" in its final form:
//! face contacts at once, delayed edge and vertex contacts sorted by distance and processed in one
//! pass that voids each triangle's features unconditionally.

use core::ops::ControlFlow;

use ahash::AHashSet;
use glam::{Mat3, Vec3};
use voxel_core::{Aabb, Contact, ContactSink, Feature};

use crate::candidates::Candidates;
use crate::closest;
use crate::kernel::{Local, Outcome, RawPoint};
use crate::manifold;
use crate::sat::{self, ClipScratch, Placed};
use crate::shape::{BoxData, Shape};
use crate::{ContactError, ContactOptions, ContactReport, FeatureKeys, MAX_POINTS};

/// A potential edge or vertex contact waiting for the delayed pass.
#[derive(Clone, Copy, Debug)]
struct Delayed {
    distance: f32,
    /// A triangle facing away from the shape: it only voids (ordered after contacts at the same
    /// distance, so a real contact there is kept).
    behind: bool,
    triangle: u32,
    feature: Local,
    start: u32,
    len: u32,
}

/// The reusable scratch of contact generation: generate contacts for any number of queries with
/// one generator and it allocates nothing after the first few.
///
/// ```
/// use glam::Vec3;
/// use voxel_contacts::{Candidates, ContactGenerator, ContactOptions, Shape, Sphere};
/// use voxel_core::{Contact, Feature};
///
/// // Two triangles of a flat square, a ball resting over their shared edge.
/// let v = [Vec3::ZERO, Vec3::new(0.0, 0.0, 1.0), Vec3::new(1.0, 0.0, 1.0), Vec3::new(1.0, 0.0, 0.0)];
/// let mut set = Candidates::new();
/// set.push(0, [v[0], v[1], v[2]], [0, 1, 2]);
/// set.push(1, [v[0], v[2], v[3]], [0, 2, 3]);
///
/// let ball = Shape::Sphere(Sphere { center: Vec3::new(0.5, 0.45, 0.5), radius: 0.5 });
/// let mut contacts: Vec<Contact> = Vec::new();
/// let report = ContactGenerator::new().generate(&ball, &set, &ContactOptions::default(), &mut contacts)?;
///
/// // One contact, straight up: the second triangle's copy of the edge was voided.
/// assert_eq!(contacts.len(), 1);
/// assert!((contacts[0].normal - Vec3::Y).length() < 1e-6);
/// assert!((contacts[0].depth - 0.05).abs() < 1e-6);
/// assert_eq!(report.voided, 1);
/// # Ok::<(), voxel_contacts::ContactError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct ContactGenerator {
    points: Vec<RawPoint>,
    delayed: Vec<Delayed>,
    voided: Voided,
    kept: Vec<Contact>,
    keep: Vec<usize>,
    clip: ClipScratch,
}

/// The key of a vertex: its id, or its exact position's bits (with -0.0 made +0.0, so that two
/// meshes agreeing on a position agree on its key).
#[inline]
pub(crate) fn vertex_key(keys: FeatureKeys, p: Vec3, id: u32) -> [u32; 3] {
    match keys {
        FeatureKeys::Indices => [id, 0, 0],
        FeatureKeys::Positions => {
            let p = p + Vec3::ZERO;
            [p.x.to_bits(), p.y.to_bits(), p.z.to_bits()]
        }
    }
}

#[inline]
fn edge_key(a: [u32; 3], b: [u32; 3]) -> [u32; 6] {
    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
    [lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]]
}

impl ContactGenerator {
    /// A generator with empty scratch.
    pub fn new() -> Self {
        Self::default()
    }

    /// Generates the contacts of `shape` against the candidate triangles and delivers them to
    /// `sink`, reduced to [`ContactOptions::max_points`] when that is not zero.
    ///
    /// Triangles with a non-finite vertex or no area are skipped and counted in the report. Errors
    /// (nothing is delivered): non-finite or negative shape parameters, a rotation that is not unit
    /// length, a non-finite or negative contact distance, `max_points` above [`MAX_POINTS`].
    pub fn generate<S: ContactSink + ?Sized>(
        &mut self,
        shape: &Shape<'_>,
        candidates: &Candidates,
        options: &ContactOptions,
        sink: &mut S,
    ) -> Result<ContactReport, ContactError> {
        shape.validate()?;
        let margin = options.contact_distance;
        if !(margin.is_finite() && margin >= 0.0) {
            return Err(ContactError::InvalidOptions("contact distance must be finite and >= 0"));
        }
        if options.max_points > MAX_POINTS {
            return Err(ContactError::InvalidOptions("max_points is at most 4 (0 keeps every contact)"));
        }
        let reach = shape.aabb().grow(margin);
        match *shape {
            Shape::Sphere(s) => self.run(candidates, options, &reach, sink, |t, out, _| {
                closest::sphere(s.center, s.radius, margin, t, out)
            }),
            Shape::Capsule(c) => self.run(candidates, options, &reach, sink, |t, out, _| {
                closest::capsule(c.a, c.b, c.radius, margin, t, out)
            }),
            Shape::Cuboid(b) => {
                let data = BoxData::new(b.half_extents);
                let placed = Placed {
                    poly: data.view(),
                    rotation: Mat3::from_quat(b.pose.rotation.normalize()),
                    inverse: Mat3::from_quat(b.pose.rotation.normalize()).transpose(),
                    translation: b.pose.translation,
                    scale: b.half_extents.max_element(),
                };
                self.run(candidates, options, &reach, sink, |t, out, clip| sat::polytope(&placed, margin, t, clip, out))
            }
            Shape::Convex { hull, pose } => {
                let placed = Placed {
                    poly: hull.view(),
                    rotation: Mat3::from_quat(pose.rotation.normalize()),
                    inverse: Mat3::from_quat(pose.rotation.normalize()).transpose(),
                    translation: pose.translation,
                    scale: hull.radius(),
                };
                self.run(candidates, options, &reach, sink, |t, out, clip| sat::polytope(&placed, margin, t, clip, out))
            }
        }
    }

    fn run<S, K>(
        &mut self,
        set: &Candidates,
        options: &ContactOptions,
        reach: &Aabb,
        sink: &mut S,
        mut kernel: K,
    ) -> Result<ContactReport, ContactError>
    where
        S: ContactSink + ?Sized,
        K: FnMut(&[Vec3; 3], &mut Vec<RawPoint>, &mut ClipScratch) -> Outcome,
    {
        self.points.clear();
        self.delayed.clear();
        self.voided.clear();
        self.kept.clear();
        let mut report = ContactReport { candidates: set.len(), ..ContactReport::default() };
        let keys = options.keys;
        let reduce = options.max_points > 0;

        // Pass 1: face contacts at once, everything else delayed.
        for (i, tri) in set.positions.iter().enumerate() {
            if !(tri[0].is_finite() && tri[1].is_finite() && tri[2].is_finite()) {
                report.degenerate += 1;
                continue;
            }
            // Midphases hand over whole leaves or cells: the triangles whose own box misses the
            // shape's reach go without a kernel call.
            let lo = tri[0].min(tri[1]).min(tri[2]);
            let hi = tri[0].max(tri[1]).max(tri[2]);
            if !(lo.cmple(reach.max).all() && hi.cmpge(reach.min).all()) {
                report.far += 1;
                continue;
            }
            let start = self.points.len();
            match kernel(tri, &mut self.points, &mut self.clip) {
                Outcome::Degenerate => report.degenerate += 1,
                Outcome::Culled => report.culled += 1,
                Outcome::Behind { distance } => {
                    report.culled += 1;
                    let start = start as u32;
                    self.delayed.push(Delayed {
                        distance,
                        behind: true,
                        triangle: i as u32,
                        feature: Local::Face,
                        start,
                        len: 0,
                    });
                }
                Outcome::Far => report.far += 1,
                Outcome::Touch { feature: Local::Face, .. } => {
                    report.faces += 1;
                    self.void(set, i, keys);
                    let flow =
                        emit(set, i, Local::Face, &self.points[start..], reduce, &mut self.kept, sink, &mut report);
                    self.points.truncate(start);
                    if flow.is_break() {
                        report.stopped = true;
                        return Ok(report);
                    }
                }
                Outcome::Touch { feature, distance } => {
                    let len = (self.points.len() - start) as u32;
                    self.delayed.push(Delayed {
                        distance,
                        behind: false,
                        triangle: i as u32,
                        feature,
                        start: start as u32,
                        len,
                    });
                }
            }
        }

        // Pass 2: delayed contacts by distance (5a); the closer vertex contacts of figure 8 come
        // before the farther edge contact. Ties are broken by triangle and feature, so the order
        // and the result do not depend on the sort algorithm.
        report.delayed = self.delayed.iter().filter(|d| !d.behind).count();
        self.delayed.sort_unstable_by(|a, b| {
            a.distance
                .total_cmp(&b.distance)
                .then(a.behind.cmp(&b.behind))
                .then(a.triangle.cmp(&b.triangle))
                .then(a.feature.cmp(&b.feature))
        });
        for k in 0..self.delayed.len() {
            let d = self.delayed[k];
            let i = d.triangle as usize;
            if d.behind {
                self.void(set, i, keys);
                continue;
            }
            let tri = &set.positions[i];
            let ids = &set.vertex_ids[i];
            let voided = match d.feature {
                Local::Edge(a, b) => {
                    let (a, b) = (a as usize, b as usize);
                    self.voided.has_edge(vertex_key(keys, tri[a], ids[a]), vertex_key(keys, tri[b], ids[b]))
                }
                Local::Vertex(a) => {
                    let a = a as usize;
                    self.voided.has_vertex(vertex_key(keys, tri[a], ids[a]))
                }
                Local::Face => false,
            };
            // Disjoint meshes may meet at T-junctions, where no key matches: the feature is also
            // voided when the spot it touches lies on a voided edge.
            let voided = voided
                || (keys == FeatureKeys::Positions
                    && self.voided.covers(set, tri, d.feature, self.points[d.start as usize].point));
            // Voided "unconditionally": whether or not this contact is kept (5a).
            self.void(set, i, keys);
            if voided {
                report.voided += 1;
                continue;
            }
            let points = &self.points[d.start as usize..(d.start + d.len) as usize];
            if emit(set, i, d.feature, points, reduce, &mut self.kept, sink, &mut report).is_break() {
                report.stopped = true;
                return Ok(report);
            }
        }

        if reduce {
            manifold::reduce(&self.kept, options.max_points, &mut self.keep);
            for &i in &self.keep {
                report.emitted += 1;
                if sink.push_contact(self.kept[i]).is_break() {
                    report.stopped = true;
                    break;
                }
            }
        }
        Ok(report)
    }

    /// Adds triangle `i`'s three vertices and three edges to the voided set.
    fn void(&mut self, set: &Candidates, i: usize, keys: FeatureKeys) {
        self.voided.void(set, i, keys);
    }
}

/// The voided features: the voided triangles' vertex keys, scanned directly while they are few
/// (most queries void a handful of triangles, and six hash insertions per triangle cost more than
/// the scans), hashed once they are many.
#[derive(Clone, Debug, Default)]
pub(crate) struct Voided {
    /// Candidate index of each voided triangle, in voiding order.
    triangles: Vec<u32>,
    keys: Vec<[[u32; 3]; 3]>,
    vertices: AHashSet<[u32; 3]>,
    edges: AHashSet<[u32; 6]>,
    /// How many of `keys` are in the hash sets.
    hashed: usize,
}

/// Above this many voided triangles, lookups go through the hash sets.
const SCAN_LIMIT: usize = 24;

impl Voided {
    /// True when the feature's spot nearest `point` (the vertex itself, or the point of the edge
    /// nearest the contact) lies on a voided edge, to 4 ulps of the largest coordinate.
    pub(crate) fn covers(&self, set: &Candidates, tri: &[Vec3; 3], feature: Local, point: Vec3) -> bool {
        let spot = match feature {
            Local::Vertex(a) => tri[a as usize],
            Local::Edge(a, b) => closest_on_segment(point, tri[a as usize], tri[b as usize]),
            Local::Face => return false,
        };
        let eps = 4.0 * f32::EPSILON * spot.abs().max_element().max(1.0);
        self.triangles.iter().any(|&i| {
            let t = &set.positions[i as usize];
            // The triangle's box first: most voided triangles are nowhere near the spot.
            let (lo, hi) = (t[0].min(t[1]).min(t[2]) - eps, t[0].max(t[1]).max(t[2]) + eps);
            spot.cmpge(lo).all()
                && spot.cmple(hi).all()
                && (0..3).any(|c| closest_on_segment(spot, t[c], t[(c + 1) % 3]).distance_squared(spot) <= eps * eps)
        })
    }

    /// True when feature `f` of triangle `i` is voided (by keys).
    pub(crate) fn has_feature(&mut self, set: &Candidates, i: usize, f: Local, keys: FeatureKeys) -> bool {
        let tri = &set.positions[i];
        let ids = &set.vertex_ids[i];
        let key = |c: u8| vertex_key(keys, tri[c as usize], ids[c as usize]);
        match f {
            Local::Edge(a, b) => self.has_edge(key(a), key(b)),
            Local::Vertex(a) => self.has_vertex(key(a)),
            Local::Face => false,
        }
    }

    /// A voided triangle holding both keys (an edge), if any, by candidate index.
    pub(crate) fn edge_owner(&self, a: [u32; 3], b: [u32; 3]) -> Option<u32> {
        if a == b {
            return None;
        }
        self.keys.iter().zip(&self.triangles).find(|(k, _)| k.contains(&a) && k.contains(&b)).map(|(_, &t)| t)
    }

    /// Adds triangle `i`'s three vertices and three edges.
    pub(crate) fn void(&mut self, set: &Candidates, i: usize, keys: FeatureKeys) {
        let tri = &set.positions[i];
        let ids = &set.vertex_ids[i];
        self.push(i as u32, core::array::from_fn(|c| vertex_key(keys, tri[c], ids[c])));
    }

    pub(crate) fn clear(&mut self) {
        self.triangles.clear();
        self.keys.clear();
        if self.hashed > 0 {
            self.vertices.clear();
            self.edges.clear();
            self.hashed = 0;
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, triangle: u32, keys: [[u32; 3]; 3]) {
        self.triangles.push(triangle);
        self.keys.push(keys);
    }

    fn sync(&mut self) {
        for k in &self.keys[self.hashed..] {
            for c in 0..3 {
                self.vertices.insert(k[c]);
                self.edges.insert(edge_key(k[c], k[(c + 1) % 3]));
            }
        }
        self.hashed = self.keys.len();
    }

    pub(crate) fn has_vertex(&mut self, v: [u32; 3]) -> bool {
        if self.keys.len() <= SCAN_LIMIT {
            return self.keys.iter().any(|k| k.contains(&v));
        }
        self.sync();
        self.vertices.contains(&v)
    }

    pub(crate) fn has_edge(&mut self, a: [u32; 3], b: [u32; 3]) -> bool {
        if self.keys.len() <= SCAN_LIMIT {
            // Two different corners of one triangle are one of its edges.
            return a != b && self.keys.iter().any(|k| k.contains(&a) && k.contains(&b));
        }
        self.sync();
        a != b && self.edges.contains(&edge_key(a, b))
    }
}

#[inline]
fn closest_on_segment(p: Vec3, a: Vec3, b: Vec3) -> Vec3 {
    let ab = b - a;
    let len = ab.length_squared();
    if !(len > 0.0) {
        return a;
    }
    a + ab * ((p - a).dot(ab) / len).clamp(0.0, 1.0)
}

/// Names a triangle's local feature by the caller's vertex ids.
#[inline]
pub(crate) fn feature_of(local: Local, ids: [u32; 3]) -> Feature {
    match local {
        Local::Face => Feature::Face,
        Local::Edge(a, b) => Feature::edge(ids[a as usize], ids[b as usize]),
        Local::Vertex(a) => Feature::Vertex(ids[a as usize]),
    }
}

#[allow(clippy::too_many_arguments)]
fn emit<S: ContactSink + ?Sized>(
    set: &Candidates,
    i: usize,
    local: Local,
    points: &[RawPoint],
    reduce: bool,
    kept: &mut Vec<Contact>,
    sink: &mut S,
    report: &mut ContactReport,
) -> ControlFlow<()> {
    let feature = feature_of(local, set.vertex_ids[i]);
    let triangle = set.ids[i];
    for p in points {
        // Extreme but finite input can still overflow on the way; such a contact is dropped.
        if !(p.point.is_finite() && p.normal.is_finite() && p.depth.is_finite()) {
            continue;
        }
        let contact = Contact { point: p.point, normal: p.normal, depth: p.depth, triangle, feature };
        if reduce {
            kept.push(contact);
        } else {
            report.emitted += 1;
            sink.push_contact(contact)?;
        }
    }
    ControlFlow::Continue(())
}
