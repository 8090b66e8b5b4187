//! SplitMix64: the one small deterministic generator of the workspace's tests.

use voxel_core::glam::Vec3;

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's output function: a well-mixed 64-bit hash of `z`.
fn finalize(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One SplitMix64 step from state `z`: the first number `Rng(z)` returns. A stateless hash for
/// fields and worlds built from coordinates and a seed.
///
/// ```
/// use voxel_testdata::{Rng, mix};
/// assert_eq!(mix(7), Rng(7).next_u64());
/// ```
pub fn mix(z: u64) -> u64 {
    finalize(z.wrapping_add(GOLDEN))
}

/// SplitMix64 (Steele, Lea and Flood 2014), so random worlds, rays and shapes are reproducible
/// from a seed (a proptest seed or a constant). The state is public: `Rng(seed)` starts a stream.
#[derive(Clone, Debug)]
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GOLDEN);
        finalize(self.0)
    }

    /// Uniform in `[0, 1)`, with 24 random bits.
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }

    /// An integer in `[lo, hi)`; `hi` must exceed `lo`.
    pub fn int(&mut self, lo: i32, hi: i32) -> i32 {
        lo + (self.next_u64() % (hi - lo) as u64) as i32
    }

    /// Uniform in the box `[lo, hi)`, per axis.
    pub fn vec(&mut self, lo: Vec3, hi: Vec3) -> Vec3 {
        Vec3::new(self.range(lo.x, hi.x), self.range(lo.y, hi.y), self.range(lo.z, hi.z))
    }

    /// A unit vector, uniform over directions (rejection sampling in the unit ball).
    pub fn direction(&mut self) -> Vec3 {
        loop {
            let v = self.vec(Vec3::splat(-1.0), Vec3::splat(1.0));
            if v.length_squared() > 1e-3 && v.length_squared() <= 1.0 {
                return v.normalize();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_published_splitmix64_stream() {
        // The first outputs of SplitMix64 seeded with 1234567 (the reference C code's example).
        let mut rng = Rng(1_234_567);
        let expected = [6_457_827_717_110_365_317, 3_203_168_211_198_807_973, 9_817_491_932_198_370_423];
        for e in expected {
            assert_eq!(rng.next_u64(), e);
        }
    }

    #[test]
    fn ranges_hold() {
        let mut rng = Rng(3);
        for _ in 0..10_000 {
            let u = rng.unit();
            assert!((0.0..1.0).contains(&u));
            let i = rng.int(-3, 4);
            assert!((-3..4).contains(&i));
            assert!((rng.direction().length() - 1.0).abs() < 1e-5);
        }
    }
}
