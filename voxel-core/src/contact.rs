//! Contacts and the sink that receives them.

use core::ops::ControlFlow;

use glam::Vec3;

/// The feature of a triangle a contact came from (face, edge or vertex).
///
/// Edges and vertices are named by vertex indices of the mesh, so two triangles that share an edge
/// name it the same way; an edge's two indices are stored smallest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Feature {
    /// The interior of the triangle.
    Face,
    /// The edge between two vertices, smallest index first.
    Edge(u32, u32),
    /// One vertex.
    Vertex(u32),
}

impl Feature {
    /// The edge between `a` and `b`, with its indices ordered so both triangles that share it build
    /// the same value.
    ///
    /// ```
    /// use voxel_core::Feature;
    /// assert_eq!(Feature::edge(7, 3), Feature::Edge(3, 7));
    /// ```
    #[inline]
    pub fn edge(a: u32, b: u32) -> Self {
        Feature::Edge(a.min(b), a.max(b))
    }
}

/// One contact between a shape and a triangle mesh.
///
/// Conventions: `point` lies on the mesh surface; `normal` is unit length and points from the
/// mesh towards the shape (the direction to push the shape out); `depth` is the penetration
/// depth along `normal`, positive when overlapping and negative when the shape is separated but
/// within the query's contact distance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    /// Contact point on the mesh surface, in world units.
    pub point: Vec3,
    /// Unit normal, from the mesh towards the shape.
    pub normal: Vec3,
    /// Penetration depth along `normal`; negative when separated.
    pub depth: f32,
    /// Index of the triangle in the candidate set the contact was computed from.
    pub triangle: u32,
    /// Which feature of that triangle.
    pub feature: Feature,
}

/// Receives contacts one at a time and may ask the producer to stop (as ripgrep's `Sink` does).
///
/// The caller decides what to keep: a `Vec<Contact>` keeps everything, [`FnSink`] wraps a closure.
///
/// ```
/// use core::ops::ControlFlow;
/// use glam::Vec3;
/// use voxel_core::{Contact, ContactSink, Feature, FnSink};
///
/// let c = Contact { point: Vec3::ZERO, normal: Vec3::Y, depth: 0.1, triangle: 0, feature: Feature::Face };
/// let mut all = Vec::new();
/// assert_eq!(all.push_contact(c), ControlFlow::Continue(()));
/// assert_eq!(all.len(), 1);
///
/// // Stop at the first contact deeper than 0.05.
/// let mut deep = None;
/// let mut sink = FnSink(|c: Contact| {
///     if c.depth > 0.05 { deep = Some(c); ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
/// });
/// assert!(sink.push_contact(c).is_break());
/// assert_eq!(deep, Some(c));
/// ```
pub trait ContactSink {
    /// Takes one contact. Returning [`ControlFlow::Break`] asks the producer to stop producing.
    fn push_contact(&mut self, contact: Contact) -> ControlFlow<()>;
}

impl ContactSink for Vec<Contact> {
    #[inline]
    fn push_contact(&mut self, contact: Contact) -> ControlFlow<()> {
        self.push(contact);
        ControlFlow::Continue(())
    }
}

impl<S: ContactSink + ?Sized> ContactSink for &mut S {
    #[inline]
    fn push_contact(&mut self, contact: Contact) -> ControlFlow<()> {
        (**self).push_contact(contact)
    }
}

/// A [`ContactSink`] made from a closure.
#[derive(Clone, Copy, Debug)]
pub struct FnSink<F>(pub F);

impl<F: FnMut(Contact) -> ControlFlow<()>> ContactSink for FnSink<F> {
    #[inline]
    fn push_contact(&mut self, contact: Contact) -> ControlFlow<()> {
        (self.0)(contact)
    }
}
