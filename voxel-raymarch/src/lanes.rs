//! The four-lane operations of the walk's voxel step (lanes x, y, z and a spare w), in SSE2 on
//! x86_64 and in plain arrays elsewhere (same results, lane for lane; a unit test compares them).
//!
//! The step picks the axis of the nearest crossing time with integer compares on the times'
//! bits: crossing times are never negative (the walk turns `-0.0` into `+0.0` where a time enters
//! it), and non-negative floats, `+inf` included, order as their bit patterns do. An integer
//! compare lets "x wins a tie against y" be `t_y + 1 > t_x` on the bits, one compare for a
//! per-lane choice of `<` or `<=` that float compares cannot make in one instruction.

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
pub(crate) use sse2::{F4, I4};

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
pub(crate) use portable::{F4, I4};

/// `v`'s lanes truncated to integers (exact for integer values below 2^31 in magnitude).
#[inline(always)]
pub(crate) fn truncate(v: glam::Vec3A) -> glam::IVec3 {
    F4::from_vec(v).truncate()
}

/// The lane of the smallest time, ties to the lower axis (x, then y, then z), as a mask with one
/// lane of x, y, z set and w clear. Lane w takes no part.
#[inline(always)]
pub(crate) fn nearest(t: I4) -> I4 {
    // Lane i against lane i + 1 and lane i + 2 (mod 3): x wins ties against both, y against z
    // only, z against neither. On the bits, `a <= b` is `b > a - 1` (times are never negative,
    // so `a - 1` does not wrap). The shuffle and the subtraction of each compare do not wait on
    // each other: the choice is three instructions deep.
    let against_next = t.yzx().gt(t.add(I4::new(-1, -1, 0, 0)));
    let against_after = t.zxy().gt(t.add(I4::new(-1, 0, 0, 0)));
    against_next.and(against_after)
}

/// SSE2 lanes. The intrinsics are `unsafe` to call outside a `#[target_feature]` function; the
/// module is compiled only when the target enables SSE2 (every x86_64 target does), which is
/// the one condition they need.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[allow(unsafe_code)]
mod sse2 {
    use core::arch::x86_64::{
        __m128, __m128i, _mm_add_epi32, _mm_add_ps, _mm_and_ps, _mm_and_si128, _mm_andnot_si128, _mm_castps_si128,
        _mm_castsi128_ps, _mm_cmpgt_epi32, _mm_cmplt_ps, _mm_cvtepi32_ps, _mm_cvtsi128_si32, _mm_cvttps_epi32,
        _mm_movemask_ps, _mm_mul_ps, _mm_or_si128, _mm_set_epi32, _mm_set1_epi32, _mm_set1_ps, _mm_shuffle_epi32,
        _mm_sub_ps,
    };

    use glam::Vec3A;

    /// Four `f32` lanes.
    #[derive(Clone, Copy)]
    pub(crate) struct F4(__m128);

    /// Four `i32` lanes (masks, or the bits of an [`F4`]).
    #[derive(Clone, Copy)]
    pub(crate) struct I4(__m128i);

    impl F4 {
        /// Lanes x, y, z of `v` (w: whatever `v` holds there).
        #[inline(always)]
        pub(crate) fn from_vec(v: Vec3A) -> F4 {
            F4(v.into())
        }
        #[inline(always)]
        pub(crate) fn to_vec(self) -> Vec3A {
            Vec3A::from(self.0)
        }
        #[inline(always)]
        pub(crate) fn add(self, o: F4) -> F4 {
            // SAFETY: SSE2 is enabled (the module's cfg).
            unsafe { F4(_mm_add_ps(self.0, o.0)) }
        }
        #[inline(always)]
        pub(crate) fn sub(self, o: F4) -> F4 {
            // SAFETY: SSE2 is enabled (the module's cfg).
            unsafe { F4(_mm_sub_ps(self.0, o.0)) }
        }
        #[inline(always)]
        pub(crate) fn mul(self, o: F4) -> F4 {
            // SAFETY: SSE2 is enabled (the module's cfg).
            unsafe { F4(_mm_mul_ps(self.0, o.0)) }
        }
        /// The lanes where `mask` is set, zero elsewhere.
        #[inline(always)]
        pub(crate) fn masked(self, mask: I4) -> F4 {
            // SAFETY: SSE2 is enabled (the module's cfg).
            unsafe { F4(_mm_and_ps(self.0, _mm_castsi128_ps(mask.0))) }
        }
        #[inline(always)]
        pub(crate) fn bits(self) -> I4 {
            // SAFETY: SSE2 is enabled (the module's cfg).
            unsafe { I4(_mm_castps_si128(self.0)) }
        }
        /// Lanes rounded down, exact for values below 2^31 in magnitude (others give a value at
        /// or below -2^31).
        #[inline(always)]
        pub(crate) fn floor(self) -> F4 {
            // SAFETY: SSE2 is enabled (the module's cfg).
            unsafe {
                let f = _mm_cvtepi32_ps(_mm_cvttps_epi32(self.0));
                // Truncation rounded up where the value is below it (negative non-integers).
                F4(_mm_sub_ps(f, _mm_and_ps(_mm_cmplt_ps(self.0, f), _mm_set1_ps(1.0))))
            }
        }
        /// All four lanes truncated towards zero (`i32::MIN` when out of range).
        #[inline(always)]
        pub(crate) fn truncate_lanes(self) -> [i32; 4] {
            // SAFETY: SSE2 is enabled (the module's cfg).
            let i = unsafe { _mm_castsi128_ps(_mm_cvttps_epi32(self.0)) };
            glam::Vec4::from(i).to_array().map(|v| v.to_bits() as i32)
        }
        /// Lanes x, y, z truncated towards zero (`i32::MIN` when out of range).
        #[inline(always)]
        pub(crate) fn truncate(self) -> glam::IVec3 {
            // SAFETY: SSE2 is enabled (the module's cfg).
            unsafe {
                let i = _mm_cvttps_epi32(self.0);
                glam::IVec3::new(
                    _mm_cvtsi128_si32(i),
                    _mm_cvtsi128_si32(_mm_shuffle_epi32::<0b01>(i)),
                    _mm_cvtsi128_si32(_mm_shuffle_epi32::<0b10>(i)),
                )
            }
        }
    }

    impl I4 {
        #[inline(always)]
        pub(crate) fn new(x: i32, y: i32, z: i32, w: i32) -> I4 {
            // SAFETY: SSE2 is enabled (the module's cfg).
            unsafe { I4(_mm_set_epi32(w, z, y, x)) }
        }
        #[inline(always)]
        pub(crate) fn splat(v: i32) -> I4 {
            // SAFETY: SSE2 is enabled (the module's cfg).
            unsafe { I4(_mm_set1_epi32(v)) }
        }
        #[inline(always)]
        pub(crate) fn floats(self) -> F4 {
            // SAFETY: SSE2 is enabled (the module's cfg).
            unsafe { F4(_mm_castsi128_ps(self.0)) }
        }
        /// Lanes (y, z, x, w).
        #[inline(always)]
        pub(crate) fn yzx(self) -> I4 {
            // SAFETY: SSE2 is enabled (the module's cfg).
            unsafe { I4(_mm_shuffle_epi32::<0b11_00_10_01>(self.0)) }
        }
        /// Lanes (z, x, y, w).
        #[inline(always)]
        pub(crate) fn zxy(self) -> I4 {
            // SAFETY: SSE2 is enabled (the module's cfg).
            unsafe { I4(_mm_shuffle_epi32::<0b11_01_00_10>(self.0)) }
        }
        #[inline(always)]
        pub(crate) fn add(self, o: I4) -> I4 {
            // SAFETY: SSE2 is enabled (the module's cfg).
            unsafe { I4(_mm_add_epi32(self.0, o.0)) }
        }
        /// All ones where `self > o` (signed).
        #[inline(always)]
        pub(crate) fn gt(self, o: I4) -> I4 {
            // SAFETY: SSE2 is enabled (the module's cfg).
            unsafe { I4(_mm_cmpgt_epi32(self.0, o.0)) }
        }
        #[inline(always)]
        pub(crate) fn and(self, o: I4) -> I4 {
            // SAFETY: SSE2 is enabled (the module's cfg).
            unsafe { I4(_mm_and_si128(self.0, o.0)) }
        }
        /// `if self { a } else { b }` per lane, for a mask `self`.
        #[inline(always)]
        pub(crate) fn select(self, a: I4, b: I4) -> I4 {
            // SAFETY: SSE2 is enabled (the module's cfg).
            unsafe { I4(_mm_or_si128(_mm_and_si128(self.0, a.0), _mm_andnot_si128(self.0, b.0))) }
        }
        /// The lanes' sign bits: bit i for lane i.
        #[inline(always)]
        pub(crate) fn movemask(self) -> u32 {
            // SAFETY: SSE2 is enabled (the module's cfg).
            unsafe { _mm_movemask_ps(_mm_castsi128_ps(self.0)) as u32 }
        }
    }
}

#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
mod portable {
    use glam::Vec3A;

    /// Four `f32` lanes.
    #[derive(Clone, Copy)]
    pub(crate) struct F4(pub(crate) [f32; 4]);

    /// Four `i32` lanes (masks, or the bits of an [`F4`]).
    #[derive(Clone, Copy)]
    pub(crate) struct I4(pub(crate) [i32; 4]);

    impl F4 {
        /// Lanes x, y, z of `v`, w zero.
        #[inline(always)]
        pub(crate) fn from_vec(v: Vec3A) -> F4 {
            F4([v.x, v.y, v.z, 0.0])
        }
        #[inline(always)]
        pub(crate) fn to_vec(self) -> Vec3A {
            Vec3A::new(self.0[0], self.0[1], self.0[2])
        }
        #[inline(always)]
        pub(crate) fn add(self, o: F4) -> F4 {
            F4(core::array::from_fn(|i| self.0[i] + o.0[i]))
        }
        #[inline(always)]
        pub(crate) fn sub(self, o: F4) -> F4 {
            F4(core::array::from_fn(|i| self.0[i] - o.0[i]))
        }
        #[inline(always)]
        pub(crate) fn mul(self, o: F4) -> F4 {
            F4(core::array::from_fn(|i| self.0[i] * o.0[i]))
        }
        #[inline(always)]
        pub(crate) fn masked(self, mask: I4) -> F4 {
            F4(core::array::from_fn(|i| f32::from_bits(self.0[i].to_bits() & mask.0[i] as u32)))
        }
        #[inline(always)]
        pub(crate) fn bits(self) -> I4 {
            I4(self.0.map(|v| v.to_bits() as i32))
        }
        #[inline(always)]
        pub(crate) fn floor(self) -> F4 {
            F4(self.0.map(f32::floor))
        }
        #[inline(always)]
        pub(crate) fn truncate_lanes(self) -> [i32; 4] {
            self.0.map(|v| v as i32)
        }
        #[inline(always)]
        pub(crate) fn truncate(self) -> glam::IVec3 {
            glam::IVec3::new(self.0[0] as i32, self.0[1] as i32, self.0[2] as i32)
        }
    }

    impl I4 {
        #[inline(always)]
        pub(crate) fn new(x: i32, y: i32, z: i32, w: i32) -> I4 {
            I4([x, y, z, w])
        }
        #[inline(always)]
        pub(crate) fn splat(v: i32) -> I4 {
            I4([v; 4])
        }
        #[inline(always)]
        pub(crate) fn floats(self) -> F4 {
            F4(self.0.map(|v| f32::from_bits(v as u32)))
        }
        #[inline(always)]
        pub(crate) fn yzx(self) -> I4 {
            let [x, y, z, w] = self.0;
            I4([y, z, x, w])
        }
        #[inline(always)]
        pub(crate) fn zxy(self) -> I4 {
            let [x, y, z, w] = self.0;
            I4([z, x, y, w])
        }
        #[inline(always)]
        pub(crate) fn add(self, o: I4) -> I4 {
            I4(core::array::from_fn(|i| self.0[i].wrapping_add(o.0[i])))
        }
        #[inline(always)]
        pub(crate) fn gt(self, o: I4) -> I4 {
            I4(core::array::from_fn(|i| -i32::from(self.0[i] > o.0[i])))
        }
        #[inline(always)]
        pub(crate) fn and(self, o: I4) -> I4 {
            I4(core::array::from_fn(|i| self.0[i] & o.0[i]))
        }
        #[inline(always)]
        pub(crate) fn select(self, a: I4, b: I4) -> I4 {
            I4(core::array::from_fn(|i| (self.0[i] & a.0[i]) | (!self.0[i] & b.0[i])))
        }
        #[inline(always)]
        pub(crate) fn movemask(self) -> u32 {
            self.0.iter().enumerate().fold(0, |m, (i, &v)| m | (u32::from(v < 0) << i))
        }
    }
}

#[cfg(all(test, target_arch = "x86_64", target_feature = "sse2"))]
mod tests {
    use glam::Vec3A;

    use super::{portable, sse2};

    fn lanes(v: sse2::I4) -> [i32; 4] {
        let f = v.floats().to_vec();
        // Lane w is not reachable through Vec3A; the movemask carries its sign.
        let w = -((v.movemask() >> 3) as i32 & 1);
        [f.x.to_bits() as i32, f.y.to_bits() as i32, f.z.to_bits() as i32, w]
    }

    /// The portable lanes (used off x86_64) make the same choice as SSE2 on ties, zeros, infinities
    /// and ordinary times.
    #[test]
    fn portable_nearest_equals_sse2() {
        let values = [0.0f32, 1.0, 1.5, 2.0, 1e-40, 3.0e38, f32::INFINITY, 0.5, 7.25];
        let mut checked = 0;
        for &x in &values {
            for &y in &values {
                for &z in &values {
                    let v = Vec3A::new(x, y, z);
                    let s = super::nearest(sse2::F4::from_vec(v).bits());
                    let p = portable::I4(portable::F4::from_vec(v).bits().0);
                    let p = nearest_portable(p);
                    let sl = lanes(s);
                    assert_eq!(sl[..3], p.0[..3], "{v}");
                    assert_eq!(s.movemask() & 7, p.movemask() & 7, "{v}");
                    assert_eq!((s.movemask() & 7).count_ones(), 1, "{v}");
                    // The chosen lane holds the minimum, and no lower lane ties it.
                    let a = (s.movemask() & 7).trailing_zeros() as usize;
                    let t = [x, y, z];
                    assert!(t.iter().all(|&o| t[a] <= o), "{v}");
                    assert!(t[..a].iter().all(|&o| o > t[a]), "{v}");
                    // The float ops and selects agree too.
                    let ps = portable::F4::from_vec(v);
                    let ss = sse2::F4::from_vec(v);
                    let q = Vec3A::new(2.0, -3.0, 0.5);
                    let pr = ps.add(portable::F4::from_vec(q)).mul(ps).sub(portable::F4::from_vec(q));
                    let sr = ss.add(sse2::F4::from_vec(q)).mul(ss).sub(sse2::F4::from_vec(q));
                    assert_eq!(pr.to_vec().to_array().map(f32::to_bits), sr.to_vec().to_array().map(f32::to_bits));
                    let pm = pr.masked(p).to_vec();
                    let sm = sr.masked(s).to_vec();
                    assert_eq!(pm.to_array().map(f32::to_bits), sm.to_array().map(f32::to_bits));
                    let psel = p.select(pr.bits(), ps.bits()).floats().to_vec();
                    let ssel = s.select(sr.bits(), ss.bits()).floats().to_vec();
                    assert_eq!(psel.to_array().map(f32::to_bits), ssel.to_array().map(f32::to_bits));
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, values.len().pow(3));
    }

    /// The walk's floor and lane truncation agree with `f32::floor` and `as i32` in both
    /// implementations wherever the walk relies on them (below 2^31 in magnitude).
    #[test]
    fn floor_and_truncate_equal_scalar() {
        let values = [0.0f32, -0.0, 0.5, -0.5, 1.0, -1.0, 2.999_999_8, -2.999_999_8, 8_388_607.5, -8_388_608.0, 1e-40];
        for w in values.windows(3) {
            let v = Vec3A::new(w[0], w[1], w[2]);
            let expect = v.to_array().map(f32::floor);
            let s = sse2::F4::from_vec(v).floor().to_vec().to_array();
            let p = portable::F4::from_vec(v).floor().to_vec().to_array();
            assert_eq!(s.map(f32::to_bits), expect.map(|x| (x + 0.0).to_bits()), "{v}");
            assert_eq!(p.map(|x| x + 0.0).map(f32::to_bits), expect.map(|x| (x + 0.0).to_bits()), "{v}");
            let st = sse2::F4::from_vec(v).truncate_lanes();
            let pt = portable::F4::from_vec(v).truncate_lanes();
            assert_eq!(st[..3], pt[..3], "{v}");
            assert_eq!(st[..3], w.iter().map(|&x| x as i32).collect::<Vec<_>>()[..], "{v}");
        }
    }

    fn nearest_portable(t: portable::I4) -> portable::I4 {
        let against_next = t.yzx().gt(t.add(portable::I4::new(-1, -1, 0, 0)));
        let against_after = t.zxy().gt(t.add(portable::I4::new(-1, 0, 0, 0)));
        against_next.and(against_after)
    }
}
