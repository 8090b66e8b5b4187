//! Batch queries: many rays or boxes at once, on rayon's pool with the `parallel` feature (on by
//! default) and serially without it. Results come in input order and equal the one-at-a-time
//! queries for any thread count (DESIGN.md: parallelism at batch boundaries, deterministic).

#[cfg(feature = "parallel")]
use rayon::prelude::*;
use voxel_core::{Aabb, Ray, TriangleSource};

use crate::{KdTree, RayHit, Scratch};

/// Boxes per parallel task: big enough that a task's bookkeeping (its own two vectors, one
/// scratch per worker) is small beside its queries.
#[cfg(feature = "parallel")]
const BOXES_PER_TASK: usize = 64;

/// The results of a batch of box queries, flattened: box `i`'s triangles are
/// `triangles[offsets[i]..offsets[i + 1]]` ([`BoxResults::get`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BoxResults {
    /// `boxes + 1` offsets into `triangles`, starting at 0.
    pub offsets: Vec<usize>,
    /// Every box's triangles, box after box, each in traversal order.
    pub triangles: Vec<u32>,
}

impl BoxResults {
    /// Empty results.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of boxes.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// True when there are no boxes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The triangles of box `i` (empty past the end).
    pub fn get(&self, i: usize) -> &[u32] {
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(&a), Some(&b)) => &self.triangles[a..b],
            _ => &[],
        }
    }

    fn clear(&mut self) {
        self.offsets.clear();
        self.offsets.push(0);
        self.triangles.clear();
    }

    fn push_box(&mut self, found: &[u32]) {
        self.triangles.extend_from_slice(found);
        self.offsets.push(self.triangles.len());
    }
}

impl KdTree {
    /// [`KdTree::cast_ray`] for every ray, results in input order in `out` (cleared first).
    pub fn cast_rays<S: TriangleSource + Sync + ?Sized>(
        &self,
        source: &S,
        rays: &[Ray],
        max_t: f32,
        out: &mut Vec<Option<RayHit>>,
    ) {
        #[cfg(feature = "parallel")]
        rays.par_iter().map_init(Scratch::new, |s, r| self.cast_ray(source, r, max_t, s)).collect_into_vec(out);
        #[cfg(not(feature = "parallel"))]
        {
            let mut s = Scratch::for_tree(self);
            out.clear();
            out.extend(rays.iter().map(|r| self.cast_ray(source, r, max_t, &mut s)));
        }
    }

    /// [`KdTree::any_hit`] for every ray, in input order in `out` (cleared first).
    pub fn any_hits<S: TriangleSource + Sync + ?Sized>(
        &self,
        source: &S,
        rays: &[Ray],
        max_t: f32,
        out: &mut Vec<bool>,
    ) {
        #[cfg(feature = "parallel")]
        rays.par_iter().map_init(Scratch::new, |s, r| self.any_hit(source, r, max_t, s)).collect_into_vec(out);
        #[cfg(not(feature = "parallel"))]
        {
            let mut s = Scratch::for_tree(self);
            out.clear();
            out.extend(rays.iter().map(|r| self.any_hit(source, r, max_t, &mut s)));
        }
    }

    /// [`KdTree::query_aabb`] for every box, in input order in `out` (cleared first).
    pub fn query_aabbs(&self, boxes: &[Aabb], out: &mut BoxResults) {
        self.batch_boxes(boxes, out, KdTree::query_aabb);
    }

    /// [`KdTree::query_aabb_exact`] for every box, in input order in `out` (cleared first).
    pub fn query_aabbs_exact<S: TriangleSource + Sync + ?Sized>(
        &self,
        source: &S,
        boxes: &[Aabb],
        out: &mut BoxResults,
    ) {
        self.batch_boxes(boxes, out, |tree, b, s, found| tree.query_aabb_exact(source, b, s, found));
    }

    fn batch_boxes<F>(&self, boxes: &[Aabb], out: &mut BoxResults, query: F)
    where
        F: Fn(&KdTree, &Aabb, &mut Scratch, &mut Vec<u32>) + Sync,
    {
        out.clear();
        #[cfg(feature = "parallel")]
        {
            // Each task fills its own results; they are appended in task order, which is input order.
            let parts: Vec<BoxResults> = boxes
                .par_chunks(BOXES_PER_TASK)
                .map_init(
                    || (Scratch::new(), Vec::new()),
                    |(s, found), chunk| {
                        let mut part = BoxResults::new();
                        part.clear();
                        for b in chunk {
                            query(self, b, s, found);
                            part.push_box(found);
                        }
                        part
                    },
                )
                .collect();
            for part in &parts {
                for i in 0..part.len() {
                    out.push_box(part.get(i));
                }
            }
        }
        #[cfg(not(feature = "parallel"))]
        {
            let (mut s, mut found) = (Scratch::for_tree(self), Vec::new());
            for b in boxes {
                query(self, b, &mut s, &mut found);
                out.push_box(&found);
            }
        }
    }
}
