//! Greedy rectangles over one slice of face bits, tried in two or four scan orders: the fewest win.
//!
//! A greedy scan takes the first face left in its scan order and grows a rectangle from it, first
//! along one axis, then along the other. Which order and which growth axis suit a slice depends on
//! its shape, and no one choice is best everywhere: the 0fps mesher and block-mesh differ, and
//! each beats the other on some models. There are four combinations (rows or columns first,
//! growing along `u` or `v` first, each scanning upward). By default a slice is scanned in ours
//! (rows, `u` first) and in block-mesh's `greedy_quads` order for that face direction, so no slice
//! gets more rectangles than block-mesh gives it (z slices need one scan: there the two agree); on
//! request all four are tried, for up to about 1% fewer quads at 1.4-1.6x the time on ragged
//! models (the README's blocky figures).

use core::ops::Range;

use crate::blocky::range_in_word;

/// The rectangle `[u0, u1) x [v0, v1)` of one material, in slice coordinates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rect {
    pub(crate) u0: u32,
    pub(crate) u1: u32,
    pub(crate) v0: u32,
    pub(crate) v1: u32,
    pub(crate) material: u8,
}

/// A greedy scan order: rows (along `u`) or columns first, each rectangle growing along `u` or
/// along `v` first. With `columns`, the scan runs over the transposed slice and `v_first` names
/// the transposed slice's `v`, which is the original `u`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Order {
    pub(crate) columns: bool,
    pub(crate) v_first: bool,
}

/// A slice as the scans see it: three bit matrices of the same shape, row `v` at
/// `[v * words..][..words]`, bit `u`.
#[derive(Clone, Debug, Default)]
struct Slice {
    /// The faces to cover (each scan consumes a copy).
    faces: Vec<u64>,
    /// Faces whose neighbour at `u - 1` is a face of the same material.
    same_left: Vec<u64>,
    /// Faces whose neighbour at `v - 1` is a face of the same material.
    same_down: Vec<u64>,
    words: usize,
    rows: usize,
}

/// Buffers reused across slices and calls (part of the `Mesher`'s scratch).
#[derive(Clone, Debug, Default)]
pub(crate) struct GreedyScratch {
    slice: Slice,
    transposed: Slice,
    /// The faces a scan consumes.
    work: Vec<u64>,
    /// One row's words: the faces a rectangle may grow into.
    run: Vec<u64>,
    /// Materials of the current and the previous row while the slice is classified.
    row_materials: [Vec<u8>; 2],
    /// The fewest rectangles found so far, and the scan being tried.
    best: Vec<Rect>,
    trial: Vec<Rect>,
    /// Faces with no neighbour of their material: one rectangle each in every order.
    isolated: Vec<Rect>,
}

impl GreedyScratch {
    /// Merges the faces of `slice` into rectangles and returns them (in no promised order).
    ///
    /// Row `v` (for `v` in `v_range`) is `slice[v * words..][..words]`, bit `u` set when the face
    /// at `(u, v)` is to be covered; every set bit lies below `nu`. `material(u, v)` names the
    /// face's material: rectangles never mix two. Rows outside `v_range`, and bits 0 and
    /// `nu - 1` of every row (the padding), hold no face. Materials are read once per face, or never
    /// when the caller knows every face has material `only`; the scans themselves run on bit
    /// masks.
    ///
    /// The scans tried are rows first growing along `u` first, then `also`, or with `all` every
    /// one of the four orders: the fewest rectangles win.
    #[allow(clippy::too_many_arguments)] // Private; each is one fact about the slice.
    pub(crate) fn merge(
        &mut self,
        slice: &[u64],
        words: usize,
        nu: usize,
        v_range: Range<usize>,
        only: Option<u8>,
        also: Order,
        all: bool,
        material: impl Fn(usize, usize) -> u8,
    ) -> &[Rect] {
        let GreedyScratch { slice: s, transposed: t, work, run, row_materials, best, trial, isolated } = self;
        match only {
            Some(_) => s.classify_one_material(slice, words, v_range.clone()),
            None => s.classify(slice, words, v_range.clone(), nu, &material, row_materials),
        }
        // A face with no neighbour of its material is a rectangle of its own in every scan
        // order, and no other rectangle can take it: set aside, the scans skip it and every
        // order's count drops by the same number (scattered voxels are mostly such faces).
        s.take_isolated(v_range.clone(), isolated);

        best.clear();
        work.clear();
        work.extend_from_slice(&s.faces);
        scan::<false>(s, work, run, v_range.clone(), best, usize::MAX);
        let mut transposed_best = false;
        // No partition has fewer rectangles than `corner_bound`: a scan that reaches it is
        // optimal and ends the search. (Nor fewer than one when a face is left: not worth
        // counting corners for.)
        let bound = if best.len() > 1 { corner_bound(s, v_range.clone()) } else { best.len() };
        if best.len() > bound {
            // Only a strictly smaller count replaces the best, so the result is the first order
            // (in this fixed sequence) that reaches the minimum: deterministic.
            let mut attempt = |best: &mut Vec<Rect>, from: &Slice, v_first: bool, rows: Range<usize>| {
                trial.clear();
                work.clear();
                work.extend_from_slice(&from.faces);
                if v_first {
                    scan::<true>(from, work, run, rows, trial, best.len());
                } else {
                    scan::<false>(from, work, run, rows, trial, best.len());
                }
                let fewer = trial.len() < best.len();
                if fewer {
                    // A copy, not a swap: each buffer keeps the capacity it grew to, so meshing
                    // the same chunks again allocates nothing.
                    best.clear();
                    best.extend_from_slice(trial);
                }
                fewer
            };
            if all {
                attempt(best, s, true, v_range.clone());
                if best.len() > bound {
                    // Columns first: the same two scans over the transposed slice.
                    s.transpose_into(t, nu, v_range.end);
                    transposed_best = attempt(best, t, false, 0..nu);
                    if best.len() > bound && attempt(best, t, true, 0..nu) {
                        transposed_best = true;
                    }
                }
            } else if also.columns {
                s.transpose_into(t, nu, v_range.end);
                transposed_best = attempt(best, t, also.v_first, 0..nu);
            } else if also.v_first {
                attempt(best, s, true, v_range.clone());
            }
        }
        if transposed_best {
            for r in best.iter_mut() {
                *r = Rect { u0: r.v0, u1: r.v1, v0: r.u0, v1: r.u1, material: 0 };
            }
        }
        best.extend_from_slice(isolated);
        for r in best.iter_mut() {
            r.material = only.unwrap_or_else(|| material(r.u0 as usize, r.v0 as usize));
        }
        best
    }
}

impl Slice {
    /// Moves the faces with no neighbour of their material (toward -u, +u, -v or +v) out of
    /// `faces` into `out` as unit rectangles, in row order.
    fn take_isolated(&mut self, v_range: Range<usize>, out: &mut Vec<Rect>) {
        out.clear();
        let words = self.words;
        for v in v_range.clone() {
            for w in 0..words {
                let i = v * words + w;
                let f = self.faces[i];
                if f == 0 {
                    continue;
                }
                let left = self.same_left[i];
                let right = (left >> 1) | if w + 1 < words { self.same_left[i + 1] << 63 } else { 0 };
                let down = self.same_down[i];
                let up = if v + 1 < v_range.end { self.same_down[i + words] } else { 0 };
                let mut alone = f & !(left | right | down | up);
                if alone == 0 {
                    continue;
                }
                self.faces[i] = f & !alone;
                // Slices are under 2^24 voxels a side (the mesher's volume limit).
                #[allow(clippy::cast_possible_truncation)]
                let v0 = v as u32;
                while alone != 0 {
                    #[allow(clippy::cast_possible_truncation)]
                    let u0 = (w * 64) as u32 + alone.trailing_zeros();
                    alone &= alone - 1;
                    out.push(Rect { u0, u1: u0 + 1, v0, v1: v0 + 1, material: 0 });
                }
            }
        }
    }

    /// A copy of `faces` with both neighbour masks clear.
    fn reset(&mut self, faces: &[u64], words: usize) {
        self.words = words;
        self.rows = faces.len() / words;
        self.faces.clear();
        self.faces.extend_from_slice(faces);
        for mask in [&mut self.same_left, &mut self.same_down] {
            mask.clear();
            mask.resize(faces.len(), 0);
        }
    }

    /// Copies `faces` and marks which faces continue their left and lower neighbour's material.
    fn classify(
        &mut self,
        faces: &[u64],
        words: usize,
        v_range: Range<usize>,
        nu: usize,
        material: &impl Fn(usize, usize) -> u8,
        row_materials: &mut [Vec<u8>; 2],
    ) {
        self.reset(faces, words);
        for m in row_materials.iter_mut() {
            m.clear();
            m.resize(nu.max(words * 64), 0);
        }
        for v in v_range.clone() {
            let [here, below] = row_materials;
            let has_below = v > v_range.start;
            for w in 0..words {
                let mut bits = faces[v * words + w];
                let down = if has_below { faces[(v - 1) * words + w] } else { 0 };
                let left = (bits << 1) | if w > 0 { faces[v * words + w - 1] >> 63 } else { 0 };
                let (mut same_left, mut same_down) = (0, 0);
                while bits != 0 {
                    let b = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let u = w * 64 + b;
                    let m = material(u, v);
                    here[u] = m;
                    // Bits ascend, so the left neighbour's material is already in `here`.
                    same_left |= u64::from((left >> b) & 1 == 1 && here[u - 1] == m) << b;
                    same_down |= u64::from((down >> b) & 1 == 1 && below[u] == m) << b;
                }
                self.same_left[v * words + w] = same_left;
                self.same_down[v * words + w] = same_down;
            }
            row_materials.swap(0, 1);
        }
    }

    /// As [`Slice::classify`] when every face has one material: neighbours are the same material
    /// exactly when they are faces, a few bit operations per word.
    fn classify_one_material(&mut self, faces: &[u64], words: usize, v_range: Range<usize>) {
        self.reset(faces, words);
        for v in v_range.clone() {
            for w in 0..words {
                let i = v * words + w;
                let f = faces[i];
                let left = (f << 1) | if w > 0 { faces[i - 1] >> 63 } else { 0 };
                let down = if v > v_range.start { faces[i - words] } else { 0 };
                self.same_left[i] = f & left;
                self.same_down[i] = f & down;
            }
        }
    }

    /// The slice with `u` and `v` exchanged: `nu` rows of `v_end` bits. Left and down swap too.
    fn transpose_into(&self, t: &mut Slice, nu: usize, v_end: usize) {
        let twords = v_end.div_ceil(64);
        t.words = twords;
        t.rows = nu;
        for m in [&mut t.faces, &mut t.same_left, &mut t.same_down] {
            m.clear();
            m.resize(nu * twords, 0);
        }
        for v in 0..self.rows {
            for w in 0..self.words {
                let i = v * self.words + w;
                let mut bits = self.faces[i];
                while bits != 0 {
                    let b = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let j = (w * 64 + b) * twords + v / 64;
                    let bit = 1 << (v % 64);
                    t.faces[j] |= bit;
                    if (self.same_left[i] >> b) & 1 == 1 {
                        t.same_down[j] |= bit;
                    }
                    if (self.same_down[i] >> b) & 1 == 1 {
                        t.same_left[j] |= bit;
                    }
                }
            }
        }
    }
}

/// One greedy scan over `work` (the faces of `slice` still to cover), consuming them and
/// appending rectangles (material left 0) to `out`, giving up once `out` holds `limit`.
///
/// Rows are scanned in order and each row from its lowest bit; a rectangle grows from the first
/// face left along `u` then `v` (or along `v` then `u` when `V_FIRST`) while the faces are there
/// and continue the material, a test of whole words at a time.
fn scan<const V_FIRST: bool>(
    slice: &Slice,
    work: &mut [u64],
    run: &mut Vec<u64>,
    v_range: Range<usize>,
    out: &mut Vec<Rect>,
    limit: usize,
) {
    let words = slice.words;
    match words {
        1 => return scan_narrow::<V_FIRST, 1>(slice, work, v_range, out, limit),
        2 => return scan_narrow::<V_FIRST, 2>(slice, work, v_range, out, limit),
        3 => return scan_narrow::<V_FIRST, 3>(slice, work, v_range, out, limit),
        4 => return scan_narrow::<V_FIRST, 4>(slice, work, v_range, out, limit),
        _ => {}
    }
    let row = |v: usize| v * words..(v + 1) * words;
    run.resize(words, 0);
    for v in v_range.clone() {
        for w in 0..words {
            loop {
                let bits = work[v * words + w];
                if bits == 0 {
                    break;
                }
                if out.len() >= limit {
                    return;
                }
                let u0 = w * 64 + bits.trailing_zeros() as usize;
                let (u1, v1) = if V_FIRST {
                    let mut v1 = v + 1;
                    while v1 < v_range.end && {
                        let i = v1 * words + u0 / 64;
                        (work[i] & slice.same_down[i]) >> (u0 % 64) & 1 == 1
                    } {
                        v1 += 1;
                    }
                    // Columns that continue the material in every row of the run.
                    let acc = &mut run[..words];
                    acc.fill(u64::MAX);
                    for vv in v..v1 {
                        for (a, (f, l)) in acc.iter_mut().zip(work[row(vv)].iter().zip(&slice.same_left[row(vv)])) {
                            *a &= f & l;
                        }
                    }
                    (run_end(acc, u0 + 1), v1)
                } else {
                    let acc = &mut run[..words];
                    for (a, (f, l)) in acc.iter_mut().zip(work[row(v)].iter().zip(&slice.same_left[row(v)])) {
                        *a = f & l;
                    }
                    let u1 = run_end(acc, u0 + 1);
                    let mut v1 = v + 1;
                    while v1 < v_range.end
                        && (u0 / 64..=(u1 - 1) / 64).all(|ww| {
                            let span = range_in_word(ww, u0, u1);
                            let i = v1 * words + ww;
                            work[i] & slice.same_down[i] & span == span
                        })
                    {
                        v1 += 1;
                    }
                    (u1, v1)
                };
                for vv in v..v1 {
                    for ww in u0 / 64..=(u1 - 1) / 64 {
                        work[vv * words + ww] &= !range_in_word(ww, u0, u1);
                    }
                }
                // Slices are under 2^24 voxels a side (the mesher's volume limit).
                #[allow(clippy::cast_possible_truncation)]
                let [u0, u1, v0, v1] = [u0, u1, v, v1].map(|c| c as u32);
                out.push(Rect { u0, u1, v0, v1, material: 0 });
            }
        }
    }
}

/// One row of `N` words held in registers, for the scans of narrow slices.
#[derive(Clone, Copy)]
struct Row<const N: usize>([u64; N]);

impl<const N: usize> Row<N> {
    #[inline(always)]
    fn load(rows: &[u64], v: usize) -> Self {
        let mut r = [0; N];
        r.copy_from_slice(&rows[v * N..(v + 1) * N]);
        Row(r)
    }

    #[inline(always)]
    fn store(self, rows: &mut [u64], v: usize) {
        rows[v * N..(v + 1) * N].copy_from_slice(&self.0);
    }

    /// Bits `[u0, u1)`, for `u0 <= u1`.
    #[inline(always)]
    fn span(u0: usize, u1: usize) -> Self {
        Row(core::array::from_fn(|w| {
            // Both ends clamped into this word; shifts of at most 64 in 128 bits. (Measured
            // fewer instructions than a branch-free 64-bit form.)
            let lo = u0.saturating_sub(w * 64).min(64);
            let hi = u1.saturating_sub(w * 64).min(64);
            #[allow(clippy::cast_possible_truncation)]
            let bits = ((1u128 << hi) - (1u128 << lo)) as u64;
            bits
        }))
    }

    #[inline(always)]
    fn and(self, other: Self) -> Self {
        Row(core::array::from_fn(|w| self.0[w] & other.0[w]))
    }

    #[inline(always)]
    fn and_not(self, other: Self) -> Self {
        Row(core::array::from_fn(|w| self.0[w] & !other.0[w]))
    }

    #[inline(always)]
    fn covers(self, mask: Self) -> bool {
        (0..N).all(|w| self.0[w] & mask.0[w] == mask.0[w])
    }

    /// The first clear bit at or above `from` (`N * 64` when none is).
    #[inline(always)]
    fn first_clear(self, from: usize) -> usize {
        run_end(&self.0, from)
    }
}

/// [`scan`] for slices of `N` words per row (regions up to `N * 64 - 2` voxels wide): rows live in
/// registers and each growth step is a mask test.
fn scan_narrow<const V_FIRST: bool, const N: usize>(
    slice: &Slice,
    work: &mut [u64],
    v_range: Range<usize>,
    out: &mut Vec<Rect>,
    limit: usize,
) {
    let (left, down) = (&slice.same_left[..], &slice.same_down[..]);
    for v in v_range.clone() {
        for w in 0..N {
            let i = v * N + w;
            // The word stays in a register between rectangles (reloading it after the store
            // that cleared the last one waited on store forwarding every rectangle).
            let mut bits = work[i];
            while bits != 0 {
                if out.len() >= limit {
                    return;
                }
                let b0 = bits.trailing_zeros();
                let u0 = w * 64 + b0 as usize;
                // Most rectangles stay inside one word: grown and cleared there with one word
                // per row. One that reaches the word's top with another word after it takes the
                // whole-row path.
                let above = u64::MAX << b0 << 1;
                let (mask, u1, v1) = if V_FIRST {
                    let bit = 1u64 << b0;
                    let mut acc = bits & left[i];
                    let mut v1 = v + 1;
                    while v1 < v_range.end && work[v1 * N + w] & down[v1 * N + w] & bit != 0 {
                        acc &= work[v1 * N + w] & left[v1 * N + w];
                        v1 += 1;
                    }
                    let end = !acc & above;
                    if end == 0 && w + 1 < N {
                        let (mask, u1) = wide_run::<N>(work, left, v..v1, u0);
                        clear(work, mask, v..v1);
                        push(out, u0, u1, v, v1);
                        bits = work[i];
                        continue;
                    }
                    let top = if end == 0 { 64 } else { end.trailing_zeros() };
                    (word_span(b0, top), w * 64 + top as usize, v1)
                } else {
                    let end = !(bits & left[i]) & above;
                    if end == 0 && w + 1 < N {
                        let u1 = Row::<N>::load(work, v).and(Row::load(left, v)).first_clear(u0 + 1);
                        let mask = Row::<N>::span(u0, u1);
                        let mut v1 = v + 1;
                        while v1 < v_range.end && Row::load(work, v1).and(Row::load(down, v1)).covers(mask) {
                            v1 += 1;
                        }
                        clear(work, mask, v..v1);
                        push(out, u0, u1, v, v1);
                        bits = work[i];
                        continue;
                    }
                    let top = if end == 0 { 64 } else { end.trailing_zeros() };
                    let mask = word_span(b0, top);
                    let mut v1 = v + 1;
                    while v1 < v_range.end && work[v1 * N + w] & down[v1 * N + w] & mask == mask {
                        v1 += 1;
                    }
                    (mask, w * 64 + top as usize, v1)
                };
                bits &= !mask;
                work[i] = bits;
                for vv in v + 1..v1 {
                    work[vv * N + w] &= !mask;
                }
                push(out, u0, u1, v, v1);
            }
        }
    }
}

/// Bits `[lo, hi)` of one word, `lo < hi <= 64`.
#[inline(always)]
fn word_span(lo: u32, hi: u32) -> u64 {
    (u64::MAX << lo) & !u64::MAX.checked_shl(hi).unwrap_or(0)
}

/// The `u` extent of a rectangle grown along `v` first over rows `rows` from `u0`, whose run
/// crosses a word boundary: the columns that continue the material in every row.
fn wide_run<const N: usize>(work: &[u64], left: &[u64], rows: Range<usize>, u0: usize) -> (Row<N>, usize) {
    let mut acc = Row::<N>::load(work, rows.start).and(Row::load(left, rows.start));
    for vv in rows.start + 1..rows.end {
        acc = acc.and(Row::load(work, vv)).and(Row::load(left, vv));
    }
    let u1 = acc.first_clear(u0 + 1);
    (Row::span(u0, u1), u1)
}

/// Clears `mask` in rows `rows`.
#[inline(always)]
fn clear<const N: usize>(work: &mut [u64], mask: Row<N>, rows: Range<usize>) {
    for vv in rows {
        Row::load(work, vv).and_not(mask).store(work, vv);
    }
}

#[inline(always)]
fn push(out: &mut Vec<Rect>, u0: usize, u1: usize, v0: usize, v1: usize) {
    // Below 2^24 (the mesher's volume limit).
    #[allow(clippy::cast_possible_truncation)]
    let [u0, u1, v0, v1] = [u0, u1, v0, v1].map(|c| c as u32);
    out.push(Rect { u0, u1, v0, v1, material: 0 });
}

/// The first `u >= from` whose bit in `bits` is clear (`bits.len() * 64` when none is).
fn run_end(bits: &[u64], from: usize) -> usize {
    let mut w = from / 64;
    let mut mask = u64::MAX.checked_shl((from % 64) as u32).unwrap_or(0);
    while w < bits.len() {
        let clear = !bits[w] & mask;
        if clear != 0 {
            return w * 64 + clear.trailing_zeros() as usize;
        }
        w += 1;
        mask = u64::MAX;
    }
    bits.len() * 64
}

/// A lower bound on the rectangles of any partition of the slice's faces into rectangles of one
/// material, from the corners they must have.
///
/// A face whose neighbours toward -u and toward -v are not faces of its material is the lower-left
/// corner of whichever rectangle holds it; likewise for the other three corners. Each rectangle
/// has one corner of each kind, so the largest of the four counts is a bound. A second bound counts
/// all corners at once: every rectangle has four, and besides those convex corners, each reflex
/// grid point of a material (three of its four cells in the material) is a corner of at least one
/// rectangle, since rectangles holding two of the cells around a point cannot cover three. So
/// `4 * rectangles >= convex + reflex`. Ragged slices (scans, organic shapes) have many reflex
/// points, where this second bound proves a scan optimal that the first cannot.
fn corner_bound(s: &Slice, v_range: Range<usize>) -> usize {
    let (corners, reflex) = corner_counts(s, v_range);
    let convex: u32 = corners.iter().sum();
    let max = corners.into_iter().max().unwrap_or(0);
    max.max((convex + reflex).div_ceil(4)) as usize
}

/// The faces that are a lower-left, lower-right, upper-left and upper-right corner of any
/// rectangle holding them, and the reflex grid points (see [`corner_bound`]).
fn corner_counts(s: &Slice, v_range: Range<usize>) -> ([u32; 4], u32) {
    let words = s.words;
    let mut corners = [0u32; 4];
    let mut reflex = 0u32;
    for v in v_range.clone() {
        let has_below = v > v_range.start;
        for w in 0..words {
            let i = v * words + w;
            let f = s.faces[i];
            // A reflex point at this word's bit 0 may hang on the previous word's last face.
            if f == 0 && (w == 0 || s.faces[i - 1] >> 63 == 0) {
                continue;
            }
            // Faces continuing the material of the face toward -u, +u, -v and +v.
            let left = s.same_left[i];
            let right = (left >> 1) | if w + 1 < words { s.same_left[i + 1] << 63 } else { 0 };
            let down = s.same_down[i];
            let up = if v + 1 < v_range.end { s.same_down[i + words] } else { 0 };
            corners[0] += (f & !left & !down).count_ones();
            corners[1] += (f & !right & !down).count_ones();
            corners[2] += (f & !left & !up).count_ones();
            corners[3] += (f & !right & !up).count_ones();
            // The grid point below-left of face `u`: cells NE = (u, v), NW = (u - 1, v),
            // SE = (u, v - 1), SW = (u - 1, v - 1). Bit `u` of each mask says two of them are
            // faces of one material; three of the four in one material, the fourth not, is a
            // reflex point (the four cases exclude each other, as "same material" is transitive).
            let ne_nw = left;
            let ne_se = down;
            let nw_sw = (down << 1) | if w > 0 { s.same_down[i - 1] >> 63 } else { 0 };
            let se_sw = if has_below { s.same_left[i - words] } else { 0 };
            let missing_sw = ne_nw & ne_se & !nw_sw;
            let missing_se = ne_nw & nw_sw & !se_sw;
            let missing_nw = ne_se & se_sw & !nw_sw;
            let missing_ne = nw_sw & se_sw & !ne_nw;
            reflex += (missing_sw | missing_se | missing_nw | missing_ne).count_ones();
        }
    }
    (corners, reflex)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROWS_U_FIRST: Order = Order { columns: false, v_first: false };

    fn rects(rows: &[u64], words: usize, nu: usize, v: Range<usize>, mat: impl Fn(usize, usize) -> u8) -> Vec<Rect> {
        GreedyScratch::default().merge(rows, words, nu, v, None, ROWS_U_FIRST, true, mat).to_vec()
    }

    #[test]
    fn merges_a_rectangle_and_splits_materials() {
        // A 3x2 block of faces, material 1 except (2, 2) which is material 2.
        let rows = [0u64, 0b111, 0b111];
        let mat = |u: usize, v: usize| if (u, v) == (2, 2) { 2 } else { 1 };
        let mut r = rects(&rows, 1, 3, 1..3, mat);
        // Rows first, u first: (0..3, 1..2), (0..2, 2..3), (2..3, 2..3). Rows first, v first:
        // (0..2, 1..3), (2..3, 1..2), (2..3, 2..3). Both three; the first order stays.
        let want = |u0, u1, v0, v1, material| Rect { u0, u1, v0, v1, material };
        let key = |r: &Rect| (r.v0, r.u0);
        r.sort_by_key(key);
        assert_eq!(r, vec![want(0, 3, 1, 2, 1), want(0, 2, 2, 3, 1), want(2, 3, 2, 3, 2)]);
    }

    #[test]
    fn keeps_the_order_with_fewer_rectangles() {
        //   v=2: X.
        //   v=1: XX
        //   v=0: X.
        // Rows first, growing along u first: (0..1, 0..1), (0..2, 1..2), (0..1, 2..3), three.
        // Growing along v first: (0..1, 0..3), (1..2, 1..2), two.
        let rows = [0b01u64, 0b11, 0b01];
        let r = rects(&rows, 1, 2, 0..3, |_, _| 7);
        assert_eq!(r.len(), 2);
        assert!(r.contains(&Rect { u0: 0, u1: 1, v0: 0, v1: 3, material: 7 }));
        assert!(r.contains(&Rect { u0: 1, u1: 2, v0: 1, v1: 2, material: 7 }));
    }

    #[test]
    fn transposed_scans_map_back_and_cross_words() {
        // An upside-down T straddling the word boundary at u = 64:
        //   v=2:  X X X
        //   v=1:  . X .
        // at u = 63, 64, 65. Rows first, either growth: the stem takes (64, 2) and the bar falls
        // in two, three rectangles. Columns first: the bar whole, then the stem, two; only a
        // transposed scan finds them, so the result must be mapped back.
        let words = 2;
        let mut rows = vec![0u64; 3 * words];
        let set = |rows: &mut Vec<u64>, u: usize, v: usize| rows[v * words + u / 64] |= 1 << (u % 64);
        for (u, v) in [(64, 1), (63, 2), (64, 2), (65, 2)] {
            set(&mut rows, u, v);
        }
        let r = rects(&rows, words, 128, 0..3, |_, _| 1);
        assert_eq!(r.len(), 2, "{r:?}");
        assert!(r.contains(&Rect { u0: 63, u1: 66, v0: 2, v1: 3, material: 1 }), "{r:?}");
        let mut covered = vec![0u32; 128 * 3];
        for q in &r {
            for v in q.v0..q.v1 {
                for u in q.u0..q.u1 {
                    covered[v as usize * 128 + u as usize] += 1;
                }
            }
        }
        for v in 0..3 {
            for u in 0..128 {
                let want = u32::from((rows[v * words + u / 64] >> (u % 64)) & 1 == 1);
                assert_eq!(covered[v * 128 + u], want, "face ({u}, {v})");
            }
        }
    }

    /// The fewest rectangles of one material that partition the faces of a small slice, by
    /// exhaustive search: the lowest uncovered face (row-major) is the lower-left corner of its
    /// rectangle, so trying every rectangle from it covers every partition.
    fn minimum_partition(cells: &mut [Option<u8>], nu: usize, nv: usize, best: &mut usize, used: usize) {
        if used >= *best {
            return;
        }
        let Some(first) = cells.iter().position(Option::is_some) else {
            *best = used;
            return;
        };
        let (u0, v0, m) = (first % nu, first / nu, cells[first]);
        let mut u_end = u0;
        while u_end < nu && cells[v0 * nu + u_end] == m {
            u_end += 1;
        }
        for u1 in u0 + 1..=u_end {
            let mut v1 = v0;
            while v1 < nv && (u0..u1).all(|u| cells[v1 * nu + u] == m) {
                v1 += 1;
                let saved: Vec<_> = (v0..v1).flat_map(|v| (u0..u1).map(move |u| v * nu + u)).collect();
                for &c in &saved {
                    cells[c] = None;
                }
                minimum_partition(cells, nu, nv, best, used + 1);
                for &c in &saved {
                    cells[c] = m;
                }
            }
        }
    }

    #[test]
    fn corner_bound_never_exceeds_the_minimum_partition() {
        // Small random slices of one to three materials, with the padding rows and columns
        // that real slices have: the bound must hold on every one, and reach the minimum on
        // some (else it would bound nothing).
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let (mut tight, mut reflex_helped) = (0, 0);
        for case in 0..3000 {
            let (nu, nv) = (2 + (next() % 5) as usize, 1 + (next() % 5) as usize);
            let materials = 1 + case % 3;
            let density = 30 + next() % 60;
            // Half the slices straddle the word boundary at u = 64 (two words per row).
            let (off, words) = if case % 2 == 0 { (0, 1) } else { (58 + (next() % 6) as usize, 2) };
            let mut rows = vec![0u64; (nv + 2) * words];
            let mut cells = vec![None; (nu + 2) * (nv + 2)];
            for v in 1..=nv {
                for u in 1..=nu {
                    if next() % 100 < density {
                        rows[v * words + (u + off) / 64] |= 1 << ((u + off) % 64);
                        cells[v * (nu + 2) + u] = Some((next() % materials as u64) as u8);
                    }
                }
            }
            let material = |u: usize, v: usize| cells[v * (nu + 2) + u - off].unwrap_or(0);
            let mut s = Slice::default();
            let mut row_materials = [Vec::new(), Vec::new()];
            s.classify(&rows, words, 1..nv + 1, words * 64, &material, &mut row_materials);
            let mut best = usize::MAX;
            minimum_partition(&mut cells.clone(), nu + 2, nv + 2, &mut best, 0);
            let best = if best == usize::MAX { 0 } else { best };
            // As `merge` does on every other slice: the isolated faces set aside first, each
            // one rectangle of any partition.
            let mut isolated = Vec::new();
            if case % 4 >= 2 {
                s.take_isolated(1..nv + 1, &mut isolated);
            }
            let bound = corner_bound(&s, 1..nv + 1) + isolated.len();
            assert!(bound <= best, "case {case}: bound {bound} above the minimum {best}: {rows:?} {cells:?}");
            tight += usize::from(bound == best);
            // The corner kinds alone: the largest of the four counts.
            let kinds = corner_counts(&s, 1..nv + 1).0.into_iter().max().unwrap_or(0) as usize + isolated.len();
            reflex_helped += usize::from(bound > kinds);
        }
        assert!(tight > 1500, "the bound reached the minimum on only {tight} of 3000 slices");
        assert!(reflex_helped > 100, "the reflex count raised the bound on only {reflex_helped} slices");
    }
}
