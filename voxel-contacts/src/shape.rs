//! The shapes contacts are generated for, and where they are placed.

use glam::{Quat, Vec3};
use voxel_core::Aabb;

use crate::ContactError;

/// A rigid placement: rotation, then translation.
///
/// ```
/// use glam::{Quat, Vec3};
/// use voxel_contacts::Pose;
///
/// let pose = Pose::new(Quat::from_rotation_y(core::f32::consts::FRAC_PI_2), Vec3::new(1.0, 0.0, 0.0));
/// let p = pose.transform_point(Vec3::X);
/// assert!((p - Vec3::new(1.0, 0.0, -1.0)).length() < 1e-6);
/// assert!((pose.inverse_transform_point(p) - Vec3::X).length() < 1e-6);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// Unit quaternion.
    pub rotation: Quat,
    /// Translation, applied after the rotation.
    pub translation: Vec3,
}

impl Pose {
    /// No rotation, no translation.
    pub const IDENTITY: Pose = Pose { rotation: Quat::IDENTITY, translation: Vec3::ZERO };

    /// The pose from a rotation and a translation.
    pub const fn new(rotation: Quat, translation: Vec3) -> Self {
        Self { rotation, translation }
    }

    /// A translation only.
    pub const fn from_translation(translation: Vec3) -> Self {
        Self { rotation: Quat::IDENTITY, translation }
    }

    /// `rotation * p + translation`.
    #[inline]
    pub fn transform_point(&self, p: Vec3) -> Vec3 {
        self.rotation * p + self.translation
    }

    /// `rotation * v`.
    #[inline]
    pub fn transform_vector(&self, v: Vec3) -> Vec3 {
        self.rotation * v
    }

    /// The point `p` expressed in the pose's local frame.
    #[inline]
    pub fn inverse_transform_point(&self, p: Vec3) -> Vec3 {
        self.rotation.inverse() * (p - self.translation)
    }

    /// True when every component is finite and the rotation is unit length (to 1e-3).
    pub fn is_valid(&self) -> bool {
        self.translation.is_finite() && self.rotation.is_finite() && (self.rotation.length() - 1.0).abs() < 1e-3
    }
}

impl Default for Pose {
    fn default() -> Self {
        Self::IDENTITY
    }
}

/// A ball: the paper's case.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sphere {
    /// Centre, in the mesh's frame.
    pub center: Vec3,
    /// Radius, `>= 0`.
    pub radius: f32,
}

/// The points within `radius` of the segment `a`-`b`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Capsule {
    /// One end of the core segment, in the mesh's frame.
    pub a: Vec3,
    /// The other end.
    pub b: Vec3,
    /// Radius, `>= 0`.
    pub radius: f32,
}

/// An oriented box.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cuboid {
    /// Half the box's size along its local axes, each `>= 0`.
    pub half_extents: Vec3,
    /// Where the box's centre and axes are, in the mesh's frame.
    pub pose: Pose,
}

/// A convex polyhedron as plain data: points and faces (counter-clockwise seen from outside).
///
/// Hulls from `convex-hacd` (or any other hull builder) fit as they are, with no dependency between
/// the crates. [`ConvexPolyhedron::new`] derives what the separating-axis test needs once: one
/// plane per face and the distinct edge directions.
///
/// ```
/// use glam::Vec3;
/// use voxel_contacts::ConvexPolyhedron;
///
/// // A tetrahedron.
/// let points = vec![Vec3::ZERO, Vec3::X, Vec3::Z, Vec3::Y];
/// let faces = vec![vec![0, 1, 2], vec![0, 3, 1], vec![0, 2, 3], vec![1, 3, 2]];
/// let hull = ConvexPolyhedron::new(points, &faces).unwrap();
/// assert_eq!(hull.face_count(), 4);
/// assert_eq!(hull.edge_direction_count(), 6);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexPolyhedron {
    points: Vec<Vec3>,
    /// Face `f` is `face_indices[face_starts[f]..face_starts[f + 1]]`.
    face_starts: Vec<u32>,
    face_indices: Vec<u32>,
    normals: Vec<Vec3>,
    offsets: Vec<f32>,
    /// Each undirected edge once: its two points and the index of its direction class.
    edges: Vec<[u32; 2]>,
    /// One unit direction per class of parallel edges (a box has 3).
    directions: Vec<Vec3>,
    /// Index of each edge's direction in `directions`.
    edge_direction: Vec<u32>,
    /// The points' bounds.
    bounds: (Vec3, Vec3),
}

/// Edges whose unit directions agree to this (|cross| below it) share one separating-axis class.
const PARALLEL_EPS: f32 = 1e-4;

impl ConvexPolyhedron {
    /// Builds the polyhedron from points and faces (each face a loop of at least 3 point indices,
    /// counter-clockwise from outside).
    ///
    /// Errors: fewer than 4 points or faces, non-finite points or points beyond
    /// [`MAX_SHAPE_COORDINATE`](crate::MAX_SHAPE_COORDINATE), an index out of range, a face with
    /// fewer than 3 points, a repeated point or no area, a face that is not a flat convex loop, an
    /// edge not shared by exactly two faces in opposite directions (an open or inconsistently
    /// wound surface), or a point more than 1e-3 of the shape's size outside a face's plane (not
    /// convex, or faces wound inwards).
    pub fn new(points: Vec<Vec3>, faces: &[Vec<u32>]) -> Result<Self, ContactError> {
        if points.len() < 4 || faces.len() < 4 {
            return Err(ContactError::InvalidPolyhedron("a polyhedron needs at least 4 points and 4 faces"));
        }
        if !points.iter().all(|&p| crate::MAX_SHAPE_COORDINATE.contains_point(p)) {
            return Err(ContactError::InvalidPolyhedron("non-finite or huge point"));
        }
        let size = Aabb::from_points(points.iter().copied()).size().max_element().max(f32::MIN_POSITIVE);
        let tolerance = 1e-3 * size;
        let mut hull = ConvexPolyhedron {
            points,
            face_starts: vec![0],
            face_indices: Vec::new(),
            normals: Vec::new(),
            offsets: Vec::new(),
            edges: Vec::new(),
            directions: Vec::new(),
            edge_direction: Vec::new(),
            bounds: (Vec3::ZERO, Vec3::ZERO),
        };
        let mut seen: ahash::AHashSet<(u32, u32)> = ahash::AHashSet::new();
        // Directed edges: each must appear once, and its reverse once (closed, consistently wound).
        let mut directed: ahash::AHashSet<(u32, u32)> = ahash::AHashSet::new();
        for face in faces {
            if face.len() < 3 {
                return Err(ContactError::InvalidPolyhedron("a face has fewer than 3 points"));
            }
            if face.iter().any(|&i| i as usize >= hull.points.len()) {
                return Err(ContactError::InvalidPolyhedron("face index out of range"));
            }
            for (k, &i) in face.iter().enumerate() {
                if face[k + 1..].contains(&i) {
                    return Err(ContactError::InvalidPolyhedron("a face repeats a point"));
                }
                if !directed.insert((i, face[(k + 1) % face.len()])) {
                    return Err(ContactError::InvalidPolyhedron("an edge is used twice in one direction"));
                }
            }
            // Newell's normal: robust for any planar (or nearly planar) polygon.
            let mut n = Vec3::ZERO;
            let mut centroid = Vec3::ZERO;
            for (k, &i) in face.iter().enumerate() {
                let p = hull.points[i as usize];
                let q = hull.points[face[(k + 1) % face.len()] as usize];
                n += Vec3::new((p.y - q.y) * (p.z + q.z), (p.z - q.z) * (p.x + q.x), (p.x - q.x) * (p.y + q.y));
                centroid += p;
            }
            let Some(n) = n.try_normalize() else {
                return Err(ContactError::InvalidPolyhedron("a face has no area"));
            };
            centroid /= face.len() as f32;
            // Flat and convex: every point on the plane, every corner turning the same way.
            for (k, &i) in face.iter().enumerate() {
                let p = hull.points[i as usize];
                let q = hull.points[face[(k + 1) % face.len()] as usize];
                let r = hull.points[face[(k + 2) % face.len()] as usize];
                if (p - centroid).dot(n).abs() > tolerance || (q - p).cross(r - q).dot(n) < -tolerance * tolerance {
                    return Err(ContactError::InvalidPolyhedron("a face is not a flat convex loop"));
                }
            }
            hull.normals.push(n);
            hull.offsets.push(n.dot(centroid));
            hull.face_indices.extend_from_slice(face);
            hull.face_starts.push(hull.face_indices.len() as u32);
            for (k, &i) in face.iter().enumerate() {
                let j = face[(k + 1) % face.len()];
                if seen.insert((i.min(j), i.max(j))) {
                    hull.edges.push([i.min(j), i.max(j)]);
                }
            }
        }
        if directed.iter().any(|&(i, j)| !directed.contains(&(j, i))) {
            return Err(ContactError::InvalidPolyhedron("an edge is not shared by two faces: the surface is open"));
        }
        for (&n, &d) in hull.normals.iter().zip(&hull.offsets) {
            if hull.points.iter().any(|&p| n.dot(p) - d > tolerance) {
                return Err(ContactError::InvalidPolyhedron("not convex, or a face is wound inwards"));
            }
        }
        let b = Aabb::from_points(hull.points.iter().copied());
        hull.bounds = (b.min, b.max);
        for &[i, j] in &hull.edges {
            let Some(dir) = (hull.points[j as usize] - hull.points[i as usize]).try_normalize() else {
                return Err(ContactError::InvalidPolyhedron("an edge has zero length"));
            };
            let class = hull.directions.iter().position(|&d| d.cross(dir).length() < PARALLEL_EPS);
            let class = class.unwrap_or_else(|| {
                hull.directions.push(dir);
                hull.directions.len() - 1
            });
            hull.edge_direction.push(class as u32);
        }
        Ok(hull)
    }

    /// The polyhedron's points, in its local frame.
    pub fn points(&self) -> &[Vec3] {
        &self.points
    }

    /// The largest distance of a point from the local origin.
    pub fn radius(&self) -> f32 {
        self.points.iter().fold(0.0f32, |r, p| r.max(p.length()))
    }

    /// Number of faces.
    pub fn face_count(&self) -> usize {
        self.normals.len()
    }

    /// The point indices of face `f` (counter-clockwise from outside). Panics if `f` is out of range.
    pub fn face(&self, f: usize) -> &[u32] {
        &self.face_indices[self.face_starts[f] as usize..self.face_starts[f + 1] as usize]
    }

    /// Number of distinct edge directions (parallel edges share one).
    pub fn edge_direction_count(&self) -> usize {
        self.directions.len()
    }

    pub(crate) fn view(&self) -> PolyView<'_> {
        PolyView {
            points: &self.points,
            face_starts: &self.face_starts,
            face_indices: &self.face_indices,
            normals: &self.normals,
            offsets: &self.offsets,
            edges: &self.edges,
            directions: &self.directions,
            edge_direction: &self.edge_direction,
            half_extents: None,
            bounds: self.bounds,
        }
    }
}

/// Borrowed polyhedron data in its local frame: what the separating-axis kernel reads.
#[derive(Clone, Copy)]
pub(crate) struct PolyView<'a> {
    pub(crate) points: &'a [Vec3],
    pub(crate) face_starts: &'a [u32],
    pub(crate) face_indices: &'a [u32],
    pub(crate) normals: &'a [Vec3],
    pub(crate) offsets: &'a [f32],
    pub(crate) edges: &'a [[u32; 2]],
    pub(crate) directions: &'a [Vec3],
    pub(crate) edge_direction: &'a [u32],
    /// A box's half extents: its projection on an axis is then two dot products, not eight.
    pub(crate) half_extents: Option<Vec3>,
    /// The points' bounds in the local frame.
    pub(crate) bounds: (Vec3, Vec3),
}

impl PolyView<'_> {
    /// The interval of the shape's projection on `axis`.
    #[inline]
    pub(crate) fn project(&self, axis: Vec3) -> (f32, f32) {
        if let Some(h) = self.half_extents {
            let r = axis.abs().dot(h);
            return (-r, r);
        }
        crate::sat::project(self.points, axis)
    }
}

/// A unit box's topology, scaled per query into the kernel's stack buffers.
pub(crate) struct BoxData {
    pub(crate) points: [Vec3; 8],
    pub(crate) offsets: [f32; 6],
}

pub(crate) const BOX_FACE_STARTS: [u32; 7] = [0, 4, 8, 12, 16, 20, 24];
/// Corner `i` has coordinates `(i & 1, i >> 1 & 1, i >> 2 & 1)` mapped to `-h` / `+h`.
pub(crate) const BOX_FACES: [u32; 24] = [
    1, 3, 7, 5, // +x
    0, 4, 6, 2, // -x
    2, 6, 7, 3, // +y
    0, 1, 5, 4, // -y
    4, 5, 7, 6, // +z
    0, 2, 3, 1, // -z
];
pub(crate) const BOX_NORMALS: [Vec3; 6] = [Vec3::X, Vec3::NEG_X, Vec3::Y, Vec3::NEG_Y, Vec3::Z, Vec3::NEG_Z];
pub(crate) const BOX_EDGES: [[u32; 2]; 12] =
    [[0, 1], [2, 3], [4, 5], [6, 7], [0, 2], [1, 3], [4, 6], [5, 7], [0, 4], [1, 5], [2, 6], [3, 7]];
pub(crate) const BOX_EDGE_DIRECTION: [u32; 12] = [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2];
pub(crate) const BOX_DIRECTIONS: [Vec3; 3] = [Vec3::X, Vec3::Y, Vec3::Z];

impl BoxData {
    pub(crate) fn new(h: Vec3) -> Self {
        let points = core::array::from_fn(|i| {
            Vec3::new(
                if i & 1 != 0 { h.x } else { -h.x },
                if i & 2 != 0 { h.y } else { -h.y },
                if i & 4 != 0 { h.z } else { -h.z },
            )
        });
        Self { points, offsets: [h.x, h.x, h.y, h.y, h.z, h.z] }
    }

    fn offsets_half(&self) -> Vec3 {
        Vec3::new(self.offsets[0], self.offsets[2], self.offsets[4])
    }

    pub(crate) fn view(&self) -> PolyView<'_> {
        PolyView {
            points: &self.points,
            face_starts: &BOX_FACE_STARTS,
            face_indices: &BOX_FACES,
            normals: &BOX_NORMALS,
            offsets: &self.offsets,
            edges: &BOX_EDGES,
            directions: &BOX_DIRECTIONS,
            edge_direction: &BOX_EDGE_DIRECTION,
            half_extents: Some(self.offsets_half()),
            bounds: (-self.offsets_half(), self.offsets_half()),
        }
    }
}

/// A shape to generate contacts for, placed in the mesh's frame.
#[derive(Clone, Copy, Debug)]
pub enum Shape<'a> {
    /// A ball.
    Sphere(Sphere),
    /// A capsule.
    Capsule(Capsule),
    /// An oriented box.
    Cuboid(Cuboid),
    /// A convex polyhedron at a pose.
    Convex {
        /// The polyhedron, in its local frame.
        hull: &'a ConvexPolyhedron,
        /// Where it is.
        pose: Pose,
    },
}

impl<'a> Shape<'a> {
    /// The shape's bounding box in the mesh's frame (grow it by the contact distance for the
    /// midphase query). [`Aabb::EMPTY`] when the shape's parameters are not finite.
    pub fn aabb(&self) -> Aabb {
        if self.validate().is_err() {
            return Aabb::EMPTY;
        }
        match *self {
            Shape::Sphere(s) => Aabb::new(s.center - s.radius, s.center + s.radius),
            Shape::Capsule(c) => Aabb::new(c.a.min(c.b) - c.radius, c.a.max(c.b) + c.radius),
            Shape::Cuboid(b) => {
                let m = glam::Mat3::from_quat(b.pose.rotation.normalize());
                let e = m.x_axis.abs() * b.half_extents.x
                    + m.y_axis.abs() * b.half_extents.y
                    + m.z_axis.abs() * b.half_extents.z;
                Aabb::new(b.pose.translation - e, b.pose.translation + e)
            }
            Shape::Convex { hull, pose } => {
                let pose = Pose::new(pose.rotation.normalize(), pose.translation);
                Aabb::from_points(hull.points.iter().map(|&p| pose.transform_point(p)))
            }
        }
    }

    /// The shape moved by `v` (a cast's pose at `t` is `shape.translated(motion * t)`).
    pub fn translated(&self, v: Vec3) -> Shape<'a> {
        let mut s = *self;
        match &mut s {
            Shape::Sphere(b) => b.center += v,
            Shape::Capsule(c) => {
                c.a += v;
                c.b += v;
            }
            Shape::Cuboid(b) => b.pose.translation += v,
            Shape::Convex { pose, .. } => pose.translation += v,
        }
        s
    }

    /// Checks the parameters: finite and within [`MAX_SHAPE_COORDINATE`](crate::MAX_SHAPE_COORDINATE),
    /// radii and extents non-negative, rotations unit length (to 1e-3; they are normalized for use).
    pub fn validate(&self) -> Result<(), ContactError> {
        let max = crate::MAX_SHAPE_COORDINATE.as_f32();
        let v = |p: Vec3| crate::MAX_SHAPE_COORDINATE.contains_point(p);
        let r = |x: f32| x.is_finite() && (0.0..=max).contains(&x);
        let pose_ok = |p: &Pose| p.is_valid() && v(p.translation);
        let ok = match *self {
            Shape::Sphere(s) => v(s.center) && r(s.radius),
            Shape::Capsule(c) => v(c.a) && v(c.b) && r(c.radius),
            Shape::Cuboid(b) => pose_ok(&b.pose) && v(b.half_extents) && b.half_extents.min_element() >= 0.0,
            Shape::Convex { pose, .. } => pose_ok(&pose),
        };
        if ok { Ok(()) } else { Err(ContactError::InvalidShape) }
    }
}
