//! What a per-triangle kernel reports to the voiding pass.

use glam::Vec3;

/// A feature of one triangle, by corner (0, 1, 2); edges smallest corner first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Local {
    Face,
    Edge(u8, u8),
    Vertex(u8),
}

impl Local {
    #[inline]
    pub(crate) fn edge(a: u8, b: u8) -> Self {
        Local::Edge(a.min(b), a.max(b))
    }
}

/// One contact point before it is given its triangle and feature.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RawPoint {
    /// On the triangle.
    pub(crate) point: Vec3,
    /// Unit, from the triangle towards the shape.
    pub(crate) normal: Vec3,
    /// Positive when overlapping.
    pub(crate) depth: f32,
}

/// A kernel's verdict on one triangle. `Touch` means it pushed at least one point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Outcome {
    /// No area, or a non-finite vertex.
    Degenerate,
    /// The shape lies behind the triangle's plane, beyond reach.
    Culled,
    /// The shape lies behind the triangle's plane but within reach, at `distance`: no contact,
    /// but the triangle still voids its features in the delayed pass (a closer triangle that
    /// faces away still proves a farther contact on its edge is no local minimum).
    Behind { distance: f32 },
    /// Farther than the inflated radius.
    Far,
    /// A potential contact on `feature`; `distance` orders the delayed pass (Terdiman, section 5a).
    Touch { feature: Local, distance: f32 },
}
