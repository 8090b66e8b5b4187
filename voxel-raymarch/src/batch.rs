//! Many rays at once: the particle and projectile batches of the seed ("tens of thousands of
//! particles"), spread over threads with rayon at the batch boundary.

use voxel_core::Ray;

use crate::{Occupancy, RayHit};

/// One ray of a batch and how far along it to look (see [`Occupancy::cast`] for `max_t`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cast {
    /// The ray.
    pub ray: Ray,
    /// The largest `t` to report a hit at.
    pub max_t: f32,
}

/// Rays per rayon task: large enough that scheduling costs nothing next to the casts (a short ray
/// takes tens of nanoseconds), small enough to balance two to sixteen cores on a few thousand rays.
#[cfg(feature = "parallel")]
const RAYS_PER_TASK: usize = 256;

impl Occupancy {
    /// Casts every ray of `casts`, writing `out[i] = self.cast(&casts[i].ray, casts[i].max_t)`.
    ///
    /// `out` is cleared and refilled (its capacity is kept, so a reused buffer stops allocating).
    /// With the `parallel` feature the rays are spread over rayon's threads; each result depends on
    /// its ray alone, so the output is the same bit for bit whatever the thread count.
    pub fn march(&self, casts: &[Cast], out: &mut Vec<Option<RayHit>>) {
        out.clear();
        out.resize(casts.len(), None);
        #[cfg(feature = "parallel")]
        {
            use rayon::prelude::*;
            out.par_chunks_mut(RAYS_PER_TASK)
                .zip(casts.par_chunks(RAYS_PER_TASK))
                .for_each(|(out, casts)| self.cast_all(casts, out));
        }
        #[cfg(not(feature = "parallel"))]
        self.cast_all(casts, out);
    }

    /// `out[i] = self.cast(&casts[i].ray, casts[i].max_t)`, with the AVX2 check made once.
    fn cast_all(&self, casts: &[Cast], out: &mut [Option<RayHit>]) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above).
            #[allow(unsafe_code)]
            unsafe {
                self.cast_all_avx2(casts, out);
            }
            return;
        }
        self.cast_each(casts, out);
    }

    /// [`Occupancy::cast_all`] compiled for AVX2, the casts inlined into the loop.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn cast_all_avx2(&self, casts: &[Cast], out: &mut [Option<RayHit>]) {
        self.cast_each(casts, out);
    }

    /// The loop of [`Occupancy::cast_all`], compiled into each caller with the caller's features.
    #[inline(always)]
    fn cast_each(&self, casts: &[Cast], out: &mut [Option<RayHit>]) {
        for (o, c) in out.iter_mut().zip(casts) {
            *o = self.cast_any(&c.ray, c.max_t);
        }
    }
}

/// A ray batch entry from an origin, a direction and a length; shorthand for building [`Cast`]s.
#[inline]
pub fn cast_of(origin: glam::Vec3, dir: glam::Vec3, max_t: f32) -> Cast {
    Cast { ray: Ray::new(origin, dir), max_t }
}
