//! The step recorder, the seed's "visual debugger" (seed `003_a99cbdb76048d4ca.txt`, "Visual
//! Debugging"): every collapse with its two hulls, the result and its error, and the final hulls.

use glam::{DVec3, Vec3};

use crate::ConvexHull;
use crate::hacd::Shape;
use crate::quantize::Prepared;

/// A hull as recorded, in the input's units.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RecordedHull {
    /// Vertices.
    pub vertices: Vec<Vec3>,
    /// Triangles over `vertices`, counter-clockwise seen from outside.
    pub triangles: Vec<[u32; 3]>,
}

/// One edge collapse: the two hulls it joined, the hull it made, and that hull's concavity error.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Step {
    /// The first hull.
    pub a: RecordedHull,
    /// The second hull.
    pub b: RecordedHull,
    /// Their merged hull.
    pub merged: RecordedHull,
    /// The concavity error of the merge, in input units.
    pub error: f32,
}

/// Every collapse of one [`decompose`](crate::decompose) run, in order, and the final hulls.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recorder {
    /// The collapses in the order they happened.
    pub steps: Vec<Step>,
    /// The final hulls.
    pub hulls: Vec<RecordedHull>,
}

impl Recorder {
    pub(crate) fn push(&mut self, a: &Shape, b: &Shape, merged: &Shape, error: f64, prep: &Prepared) {
        let record = |s: &Shape| RecordedHull {
            vertices: s.points.iter().map(|&p: &DVec3| (p / prep.scale + prep.centre).as_vec3()).collect(),
            triangles: s.triangles.clone(),
        };
        self.steps.push(Step {
            a: record(a),
            b: record(b),
            merged: record(merged),
            error: (error / prep.scale) as f32,
        });
    }

    pub(crate) fn finish(&mut self, hulls: &[ConvexHull]) {
        self.hulls = hulls
            .iter()
            .map(|h| RecordedHull { vertices: h.vertices.clone(), triangles: h.triangles.clone() })
            .collect();
    }
}
