//! The statistics pass at memory speed: values are decoded a chunk at a time
//! into a small buffer of their native kind (f32, f64, 8/16-bit integers,
//! wide integers), and each chunk goes through a loop the compiler
//! vectorises: lanes of running min, max and sums, branch-free counts of
//! NaN, +-Inf and zeros. A chunk's mean and sum of squared deviations come
//! from two passes over the chunk while it is in the L1 cache (exact for
//! 8- and 16-bit integers), and chunks are merged with Chan's parallel
//! formula. Chunks group into blocks; blocks are spread over the cores and
//! merged in order, so the result does not depend on the number of threads
//! or on how the values are stored.

// Indexes here are lane numbers below `LANES` and table slots addressed by a
// byte, bounded by construction; a checked access in these loops would stop
// them from vectorising.
#![allow(clippy::indexing_slicing)]

use crate::tensor::{Elem, Element, decode_bits};
use std::sync::OnceLock;

/// The value an element counts as for statistics and pictures: the number
/// itself, the magnitude of a complex number, None for a string.
pub fn scalar(e: &Element<'_>) -> Option<f64> {
    Some(match *e {
        Element::C64(re, im) => f64::from(re).hypot(f64::from(im)),
        Element::C128(re, im) => re.hypot(im),
        Element::Str(_) => return None,
        ref other => other.as_f64()?,
    })
}

/// A minimum or maximum, kept in the element's own kind so that it prints
/// exactly (an int64 beyond 2^53 stays exact; a float32 prints as float32).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Extreme {
    /// Of signed integers.
    Int(i64),
    /// Of unsigned integers and booleans.
    UInt(u64),
    /// Of float32 and narrower floats (and of complex64 magnitudes).
    F32(f32),
    /// Of float64 (and of complex128 magnitudes).
    F64(f64),
}

impl Extreme {
    pub(crate) fn of(e: &Element<'_>, magnitude: f64) -> Extreme {
        match *e {
            Element::I64(v) => Extreme::Int(v),
            Element::U64(v) => Extreme::UInt(v),
            Element::Bool(b) => Extreme::UInt(u64::from(b)),
            Element::F32(v) => Extreme::F32(v),
            Element::C64(..) => Extreme::F32(magnitude as f32),
            _ => Extreme::F64(magnitude),
        }
    }

    /// The value as a float64 (integers beyond 2^53 rounded).
    pub fn as_f64(self) -> f64 {
        match self {
            Extreme::Int(v) => v as f64,
            Extreme::UInt(v) => v as f64,
            Extreme::F32(v) => f64::from(v),
            Extreme::F64(v) => v,
        }
    }

    /// Ordering that is exact for integers (all elements of one tensor are
    /// of one kind).
    pub(crate) fn less(self, other: Extreme) -> bool {
        match (self, other) {
            (Extreme::Int(a), Extreme::Int(b)) => a < b,
            (Extreme::UInt(a), Extreme::UInt(b)) => a < b,
            (a, b) => a.as_f64() < b.as_f64(),
        }
    }

    /// Text: integers as integers, floats in their shortest exact form.
    pub fn text(self) -> String {
        match self {
            Extreme::Int(v) => v.to_string(),
            Extreme::UInt(v) => v.to_string(),
            Extreme::F32(v) => format!("{v:?}"),
            Extreme::F64(v) => format!("{v:?}"),
        }
    }
}

/// Elements per chunk (a chunk's buffer stays in the L1 cache).
pub const CHUNK: usize = 4096;
/// Chunks per block (the unit of work of one thread).
pub const CHUNKS_PER_BLOCK: usize = 64;
/// Elements per block.
pub const BLOCK: u64 = (CHUNK * CHUNKS_PER_BLOCK) as u64;

/// Mean and sum of squared deviations of a run of finite values, merged with
/// Chan's formula. `m2` is in units of 4^`e` so that values near f64::MAX
/// do not overflow it.
///
/// The exact mean is `mean + rest`: `mean` rounded (the figure shown),
/// `rest` what the rounding left out. The difference of two runs' means,
/// which Chan's formula squares, is then the difference of two nearby
/// rounded means (exact) plus that of two small rests, not just the
/// difference of two rounded means (1e12 + N(0, 1) would lose 4 digits of
/// the deviation to their rounding).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Moments {
    pub n: u64,
    pub mean: f64,
    pub rest: f64,
    pub m2: f64,
    pub e: i32,
}

fn pow2(e: i32) -> f64 {
    // 2^e for e in -1536..=1536 without an infinite or zero intermediate
    // where the result is representable.
    let half = e / 2;
    2f64.powi(half) * 2f64.powi(e - half)
}

impl Moments {
    /// `k` copies of `v` (a finite value).
    pub fn constant(v: f64, k: u64) -> Moments {
        if k == 0 {
            return Moments::default();
        }
        Moments {
            n: k,
            mean: v,
            rest: 0.0,
            m2: 0.0,
            e: 0,
        }
    }

    /// The moments of `n` values whose mean is `pivot + offset` (`offset`
    /// small, from the deviations from `pivot`) and rounded `mean` (for
    /// short lists of small values the sum divided: exact where it can
    /// be), with `m2` the sum of squared deviations.
    fn around(n: u64, mean: f64, pivot: f64, offset: f64, m2: f64) -> Moments {
        Moments {
            n,
            mean,
            // `pivot - mean` is exact for nearby values (Sterbenz).
            rest: (pivot - mean) + offset,
            m2: m2.max(0.0),
            e: 0,
        }
    }

    pub fn merge(self, b: Moments) -> Moments {
        let a = self;
        if b.n == 0 {
            return a;
        }
        if a.n == 0 {
            return b;
        }
        let n = a.n.saturating_add(b.n);
        let (na, nb, nf) = (a.n as f64, b.n as f64, n as f64);
        let mut e = a.e.max(b.e);
        for _ in 0..5 {
            let s = pow2(-e);
            let ma = a.m2 * pow2(2 * (a.e - e));
            let mb = b.m2 * pow2(2 * (b.e - e));
            let d = (b.mean * s - a.mean * s) + (b.rest * s - a.rest * s);
            let wb = nb / nf;
            let m2 = ma + mb + d * d * na * wb;
            if m2.is_finite() {
                // The mean moves by a small step; what its rounding drops
                // goes to the rest (Fast2Sum).
                let step = a.rest + (d * wb) * pow2(e);
                let mean = a.mean + step;
                return Moments {
                    n,
                    mean,
                    rest: (a.mean - mean) + step,
                    m2,
                    e,
                };
            }
            e += 256;
        }
        Moments {
            n,
            mean: a.mean,
            rest: a.rest,
            m2: f64::MAX,
            e,
        }
    }

    pub fn std(&self) -> Option<f64> {
        (self.n > 0).then(|| (self.m2 / self.n as f64).max(0.0).sqrt() * pow2(self.e))
    }
}

/// Statistics of a run of elements, before they become [`crate::stats::Stats`].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Part {
    pub count: u64,
    pub nan: u64,
    pub pos_inf: u64,
    pub neg_inf: u64,
    pub zeros: u64,
    pub min: Option<Extreme>,
    pub max: Option<Extreme>,
    pub moments: Moments,
    /// Whether the first zero of the run is -0.0 (floats only): a minimum
    /// or maximum of zero is the first zero met, as a sequential scan keeps.
    pub first_zero_negative: Option<bool>,
}

impl Part {
    /// Merges a later run into this one: on a tie the earlier extreme stays
    /// (as a sequential scan keeps it).
    pub fn merge(self, b: Part) -> Part {
        let a = self;
        Part {
            count: a.count.saturating_add(b.count),
            nan: a.nan.saturating_add(b.nan),
            pos_inf: a.pos_inf.saturating_add(b.pos_inf),
            neg_inf: a.neg_inf.saturating_add(b.neg_inf),
            zeros: a.zeros.saturating_add(b.zeros),
            min: match (a.min, b.min) {
                (Some(x), Some(y)) => Some(if y.less(x) { y } else { x }),
                (x, y) => x.or(y),
            },
            max: match (a.max, b.max) {
                (Some(x), Some(y)) => Some(if x.less(y) { y } else { x }),
                (x, y) => x.or(y),
            },
            moments: a.moments.merge(b.moments),
            first_zero_negative: a.first_zero_negative.or(b.first_zero_negative),
        }
    }

    /// `k` copies of one element (TensorFlow's padding, all-zero tensors).
    pub fn repeated(e: &Element<'_>, k: u64) -> Part {
        if k == 0 {
            return Part::default();
        }
        let Some(v) = scalar(e) else {
            return Part::default();
        };
        let mut p = Part {
            count: k,
            ..Part::default()
        };
        if v.is_nan() {
            p.nan = k;
        } else if v == f64::INFINITY {
            p.pos_inf = k;
        } else if v == f64::NEG_INFINITY {
            p.neg_inf = k;
        } else {
            if v == 0.0 {
                p.zeros = k;
                p.first_zero_negative = Some(v.is_sign_negative());
            }
            let x = Extreme::of(e, v);
            p.min = Some(x);
            p.max = Some(x);
            p.moments = Moments::constant(v, k);
        }
        p
    }
}

/// Merges chunk results in the fixed tree every path uses: chunks into
/// blocks of [`CHUNKS_PER_BLOCK`], blocks in order.
#[derive(Debug, Default)]
pub struct Tree {
    block: Part,
    chunks: usize,
    total: Part,
}

impl Tree {
    pub fn push_chunk(&mut self, p: Part) {
        self.block = self.block.merge(p);
        self.chunks += 1;
        if self.chunks == CHUNKS_PER_BLOCK {
            let b = std::mem::take(&mut self.block);
            self.push_block(b);
            self.chunks = 0;
        }
    }

    /// A whole block (computed elsewhere, e.g. on another thread).
    pub fn push_block(&mut self, p: Part) {
        self.total = self.total.merge(p);
    }

    pub fn finish(mut self) -> Part {
        if self.chunks > 0 {
            let b = std::mem::take(&mut self.block);
            self.push_block(b);
        }
        self.total
    }
}

const LANES: usize = 8;

/// Runs `step(lane, conv(x))` over `buf`, element `i` in lane
/// `i % LANES`: the loop shape of every kernel, one accumulator a lane, so
/// that the compiler vectorises across the lanes.
#[inline(always)]
fn for_lanes<T: Copy, X>(buf: &[T], conv: impl Fn(T) -> X, mut step: impl FnMut(usize, X)) {
    let lanes = buf.chunks_exact(LANES);
    let rest = lanes.remainder();
    for c in lanes {
        for (l, &x) in c.iter().enumerate() {
            step(l, conv(x));
        }
    }
    for (l, &x) in rest.iter().enumerate() {
        step(l, conv(x));
    }
}

/// The sum of a per-lane counter.
fn lane_total(counts: &[u32; LANES]) -> u64 {
    counts.iter().map(|&v| u64::from(v)).sum()
}

/// Whether the first zero of a chunk holding `zeros` of them is -0.0
/// (None without zeros): the sign a tensor's zero minimum prints with.
fn first_zero_negative<T: Copy>(zeros: u64, buf: &[T], conv: impl Fn(T) -> f64) -> Option<bool> {
    if zeros == 0 {
        return None;
    }
    buf.iter()
        .map(|&x| conv(x))
        .find(|&x| x == 0.0)
        .map(f64::is_sign_negative)
}

/// One chunk of float32 values (any float type narrower than double).
///
/// Pass 1 classifies each value by its bits and keeps min, max, counts and
/// a float32 sum in lanes (all 32-bit, so it vectorises); pass 2, over the
/// chunk still in cache, sums the deviations from that approximate mean in
/// float64 and corrects the mean (the corrected two-pass algorithm).
pub fn chunk_f32(buf: &[f32]) -> Part {
    chunk_f32_by(buf, |x| x)
}

/// [`chunk_f32`] over values of any storage, converted by `conv` as they
/// are read (little-endian bytes, half floats).
///
/// A chunk of finite values takes one pass: min, max and counts in 32-bit
/// lanes, the sums of deviations from the chunk's first value and of their
/// squares in float64 lanes. A chunk with a NaN or an infinity takes the
/// two masked passes of `chunk_f32_masked`.
#[inline]
pub fn chunk_f32_by<T: Copy>(buf: &[T], conv: impl Fn(T) -> f32 + Copy) -> Part {
    let Some(&first) = buf.first() else {
        return Part::default();
    };
    let shift = f64::from(conv(first));
    let mut mn = [f32::INFINITY; LANES];
    let mut mx = [f32::NEG_INFINITY; LANES];
    let mut bad = [0u32; LANES];
    let mut zero = [0u32; LANES];
    let mut s1 = [0f64; LANES];
    let mut s2 = [0f64; LANES];
    let step = |l: usize, x: f32| {
        let a = x.to_bits() & 0x7fff_ffff;
        bad[l] += u32::from(a >= 0x7f80_0000);
        zero[l] += u32::from(a == 0);
        mn[l] = if x < mn[l] { x } else { mn[l] };
        mx[l] = if x > mx[l] { x } else { mx[l] };
        let d = f64::from(x) - shift;
        s1[l] += d;
        s2[l] += d * d;
    };
    for_lanes(buf, conv, step);
    if bad.iter().any(|&b| b > 0) || !shift.is_finite() {
        return chunk_f32_masked(buf, conv);
    }
    let n = buf.len() as u64;
    let nf = n as f64;
    let zeros = lane_total(&zero);
    let (s1, s2): (f64, f64) = (s1.iter().sum(), s2.iter().sum());
    Part {
        count: n,
        zeros,
        min: Some(Extreme::F32(
            mn.iter().copied().fold(f32::INFINITY, f32::min),
        )),
        max: Some(Extreme::F32(
            mx.iter().copied().fold(f32::NEG_INFINITY, f32::max),
        )),
        moments: Moments::around(n, (shift * nf + s1) / nf, shift, s1 / nf, s2 - s1 * s1 / nf),
        first_zero_negative: first_zero_negative(zeros, buf, |x| f64::from(conv(x))),
        ..Part::default()
    }
}

/// [`chunk_f32_by`] for a chunk holding NaN or infinities: pass 1 masks
/// them out of min, max and a float32 sum; pass 2 sums the deviations from
/// that approximate mean in float64 and corrects it.
fn chunk_f32_masked<T: Copy>(buf: &[T], conv: impl Fn(T) -> f32 + Copy) -> Part {
    let mut mn = [f32::INFINITY; LANES];
    let mut mx = [f32::NEG_INFINITY; LANES];
    let mut sum = [0f32; LANES];
    let mut nan = [0u32; LANES];
    let mut inf = [0u32; LANES];
    let mut ninf = [0u32; LANES];
    let mut zero = [0u32; LANES];
    let step = |l: usize, x: f32| {
        let b = x.to_bits();
        let a = b & 0x7fff_ffff;
        let fin = a < 0x7f80_0000;
        let lo = if fin { x } else { f32::INFINITY };
        let hi = if fin { x } else { f32::NEG_INFINITY };
        mn[l] = if lo < mn[l] { lo } else { mn[l] };
        mx[l] = if hi > mx[l] { hi } else { mx[l] };
        sum[l] += if fin { x } else { 0.0 };
        nan[l] += u32::from(a > 0x7f80_0000);
        inf[l] += u32::from(a == 0x7f80_0000);
        ninf[l] += u32::from(b == 0xff80_0000);
        zero[l] += u32::from(a == 0);
    };
    for_lanes(buf, conv, step);
    let count = buf.len() as u64;
    let (nan, inf, ninf, zeros) = (
        lane_total(&nan),
        lane_total(&inf),
        lane_total(&ninf),
        lane_total(&zero),
    );
    let pinf = inf - ninf;
    let finite = count - nan - inf;
    let mut p = Part {
        count,
        nan,
        pos_inf: pinf,
        neg_inf: ninf,
        zeros,
        ..Part::default()
    };
    p.first_zero_negative = first_zero_negative(zeros, buf, |x| f64::from(conv(x)));
    if finite == 0 {
        return p;
    }
    let lo = mn.iter().copied().fold(f32::INFINITY, f32::min);
    let hi = mx.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    p.min = Some(Extreme::F32(lo));
    p.max = Some(Extreme::F32(hi));
    let nf = finite as f64;
    let mut approx = sum.iter().map(|&v| f64::from(v)).sum::<f64>() / nf;
    if !approx.is_finite() {
        // The float32 sum overflowed: sum in float64 instead.
        approx = buf
            .iter()
            .map(|&x| conv(x))
            .map(|x| if x.is_finite() { f64::from(x) } else { 0.0 })
            .sum::<f64>()
            / nf;
    }
    let mut dev = [0f64; LANES];
    let mut m2 = [0f64; LANES];
    let mut sum64 = [0f64; LANES];
    let step2 = |l: usize, x: f32| {
        let fin = (x.to_bits() & 0x7fff_ffff) < 0x7f80_0000;
        let d = if fin { f64::from(x) - approx } else { 0.0 };
        sum64[l] += if fin { f64::from(x) } else { 0.0 };
        dev[l] += d;
        m2[l] += d * d;
    };
    for_lanes(buf, conv, step2);
    let dev: f64 = dev.iter().sum();
    let m2: f64 = m2.iter().sum();
    p.moments = Moments::around(
        finite,
        sum64.iter().sum::<f64>() / nf,
        approx,
        dev / nf,
        m2 - dev * dev / nf,
    );
    p
}

/// One chunk of float64 values (`single`: they came from float32, as the
/// magnitudes of complex64 do, and their extremes print as float32).
pub fn chunk_f64(buf: &[f64], single: bool) -> Part {
    chunk_f64_by(buf, |x| x, single)
}

/// [`chunk_f64`] over values of any storage, converted by `conv` as they
/// are read. Like [`chunk_f32_by`]: one pass for a chunk of finite values
/// within 2^±480, the masked and scaled passes of `chunk_f64_masked`
/// otherwise.
#[inline]
pub fn chunk_f64_by<T: Copy>(buf: &[T], conv: impl Fn(T) -> f64 + Copy, single: bool) -> Part {
    let Some(&first) = buf.first() else {
        return Part::default();
    };
    let shift = conv(first);
    let mut mn = [f64::INFINITY; LANES];
    let mut mx = [f64::NEG_INFINITY; LANES];
    let mut bad = [0u32; LANES];
    let mut zero = [0u32; LANES];
    let mut s1 = [0f64; LANES];
    let mut s2 = [0f64; LANES];
    let step = |l: usize, x: f64| {
        let a = x.to_bits() & 0x7fff_ffff_ffff_ffff;
        bad[l] += u32::from(a >= 0x7ff0_0000_0000_0000);
        zero[l] += u32::from(a == 0);
        mn[l] = if x < mn[l] { x } else { mn[l] };
        mx[l] = if x > mx[l] { x } else { mx[l] };
        let d = x - shift;
        s1[l] += d;
        s2[l] += d * d;
    };
    for_lanes(buf, conv, step);
    let lo = mn.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = mx.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if bad.iter().any(|&b| b > 0) || lo.abs().max(hi.abs()) > pow2(480) {
        return chunk_f64_masked(buf, conv, single);
    }
    let n = buf.len() as u64;
    let nf = n as f64;
    let zeros = lane_total(&zero);
    let (s1, s2): (f64, f64) = (s1.iter().sum(), s2.iter().sum());
    let ext = |v: f64| {
        if single {
            Extreme::F32(v as f32)
        } else {
            Extreme::F64(v)
        }
    };
    Part {
        count: n,
        zeros,
        min: Some(ext(lo)),
        max: Some(ext(hi)),
        moments: Moments::around(n, (shift * nf + s1) / nf, shift, s1 / nf, s2 - s1 * s1 / nf),
        first_zero_negative: first_zero_negative(zeros, buf, conv),
        ..Part::default()
    }
}

/// [`chunk_f64_by`] for a chunk holding NaN, infinities or values beyond
/// 2^480 (scaled by 2^-600 so that squares stay finite).
fn chunk_f64_masked<T: Copy>(buf: &[T], conv: impl Fn(T) -> f64 + Copy, single: bool) -> Part {
    let mut mn = [f64::INFINITY; LANES];
    let mut mx = [f64::NEG_INFINITY; LANES];
    let mut sum = [0f64; LANES];
    let mut nan = [0u32; LANES];
    let mut pinf = [0u32; LANES];
    let mut ninf = [0u32; LANES];
    let mut zero = [0u32; LANES];
    for_lanes(buf, conv, |l, x| {
        let fin = x.abs() < f64::INFINITY;
        mn[l] = if fin && x < mn[l] { x } else { mn[l] };
        mx[l] = if fin && x > mx[l] { x } else { mx[l] };
        sum[l] += if fin { x } else { 0.0 };
        nan[l] += u32::from(x.is_nan());
        pinf[l] += u32::from(x == f64::INFINITY);
        ninf[l] += u32::from(x == f64::NEG_INFINITY);
        zero[l] += u32::from(x == 0.0);
    });
    let count = buf.len() as u64;
    let (nan, pinf, ninf, zeros) = (
        lane_total(&nan),
        lane_total(&pinf),
        lane_total(&ninf),
        lane_total(&zero),
    );
    let finite = count - nan - pinf - ninf;
    let mut p = Part {
        count,
        nan,
        pos_inf: pinf,
        neg_inf: ninf,
        zeros,
        ..Part::default()
    };
    p.first_zero_negative = first_zero_negative(zeros, buf, conv);
    if finite == 0 {
        return p;
    }
    let lo = mn.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = mx.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let ext = |v: f64| {
        if single {
            Extreme::F32(v as f32)
        } else {
            Extreme::F64(v)
        }
    };
    p.min = Some(ext(lo));
    p.max = Some(ext(hi));
    // Values beyond 2^480 are scaled down by 2^600 (exactly: a power of
    // two) so that sums and squares stay finite.
    let e = if lo.abs().max(hi.abs()) > pow2(480) {
        600
    } else {
        0
    };
    let s = pow2(-e);
    let mut total = sum.iter().sum::<f64>();
    if e != 0 {
        total = buf
            .iter()
            .map(|&x| conv(x))
            .map(|x| if x.abs() < f64::INFINITY { x * s } else { 0.0 })
            .sum();
    }
    let nf = finite as f64;
    let mean_s = total / nf;
    let mut dev = [0f64; LANES];
    let mut m2 = [0f64; LANES];
    for_lanes(buf, conv, |l, x| {
        let fin = x.abs() < f64::INFINITY;
        let d = if fin { x * s - mean_s } else { 0.0 };
        dev[l] += d;
        m2[l] += d * d;
    });
    let dev: f64 = dev.iter().sum();
    p.moments = Moments {
        n: finite,
        mean: mean_s * pow2(e),
        rest: dev / nf * pow2(e),
        m2: (m2.iter().sum::<f64>() - dev * dev / nf).max(0.0),
        e,
    };
    p
}

/// Integers of at most 16 bits: exact sums in integers, so the chunk's
/// mean and squared deviations are exact before the merge.
macro_rules! small_int_chunk {
    ($name:ident, $t:ty, $acc:ty, $signed:expr) => {
        pub fn $name(buf: &[$t]) -> Part {
            let mut mn = [<$t>::MAX; LANES];
            let mut mx = [<$t>::MIN; LANES];
            let mut sum = [0 as $acc; LANES];
            let mut sq = [0 as $acc; LANES];
            let mut zero = [0u32; LANES];
            for_lanes(
                buf,
                |x| x,
                |l, x| {
                    mn[l] = mn[l].min(x);
                    mx[l] = mx[l].max(x);
                    let w = x as $acc;
                    sum[l] += w;
                    sq[l] += w * w;
                    zero[l] += u32::from(x == 0);
                },
            );
            let n = buf.len() as u64;
            let mut p = Part {
                count: n,
                zeros: lane_total(&zero),
                ..Part::default()
            };
            if n == 0 {
                return p;
            }
            let lo = mn.iter().copied().fold(<$t>::MAX, <$t>::min);
            let hi = mx.iter().copied().fold(<$t>::MIN, <$t>::max);
            if $signed {
                p.min = Some(Extreme::Int(lo as i64));
                p.max = Some(Extreme::Int(hi as i64));
            } else {
                p.min = Some(Extreme::UInt(lo as u64));
                p.max = Some(Extreme::UInt(hi as u64));
            }
            let s: i128 = sum.iter().map(|&v| v as i128).sum();
            let q: i128 = sq.iter().map(|&v| v as i128).sum();
            let nn = n as i128;
            // n * sum of squares - sum^2 = n * m2, exact.
            let nm2 = nn * q - s * s;
            // The rest of the rounded mean from its whole part (exact)
            // and its fraction.
            let whole = s.div_euclid(nn);
            let mean = s as f64 / n as f64;
            p.moments = Moments {
                n,
                mean,
                rest: (whole as f64 - mean) + (s - whole * nn) as f64 / n as f64,
                m2: nm2 as f64 / n as f64,
                e: 0,
            };
            p
        }
    };
}

small_int_chunk!(chunk_i8, i8, i32, true);
small_int_chunk!(chunk_u8, u8, i32, false);
small_int_chunk!(chunk_i16, i16, i64, true);
small_int_chunk!(chunk_u16, u16, i64, false);

/// Wide integers (32 and 64 bits): exact extremes, moments in f64 (as
/// numpy's mean and std of integer arrays are).
macro_rules! wide_int_chunk {
    ($name:ident, $t:ty, $signed:expr) => {
        pub fn $name(buf: &[$t], scratch: &mut Vec<f64>) -> Part {
            let mut mn = <$t>::MAX;
            let mut mx = <$t>::MIN;
            let mut zeros = 0u64;
            scratch.clear();
            for &x in buf {
                mn = mn.min(x);
                mx = mx.max(x);
                zeros += u64::from(x == 0);
                scratch.push(x as f64);
            }
            let mut p = chunk_f64(scratch, false);
            p.zeros = zeros;
            if !buf.is_empty() {
                if $signed {
                    p.min = Some(Extreme::Int(mn as i64));
                    p.max = Some(Extreme::Int(mx as i64));
                } else {
                    p.min = Some(Extreme::UInt(mn as u64));
                    p.max = Some(Extreme::UInt(mx as u64));
                }
            }
            p
        }
    };
}

wide_int_chunk!(chunk_i64, i64, true);
wide_int_chunk!(chunk_u64, u64, false);

/// IEEE half to single, branch-free so that the loop vectorises: exact for
/// every code (subnormals by a multiplication by 2^112, Inf and NaN kept).
#[inline]
pub fn f16_to_f32(h: u16) -> f32 {
    let h = u32::from(h);
    let sign = (h & 0x8000) << 16;
    let em = h & 0x7fff;
    let scaled = (f32::from_bits(em << 13) * f32::from_bits(0x7780_0000)).to_bits();
    let special = 0x7f80_0000 | ((em & 0x3ff) << 13);
    f32::from_bits(sign | if em >= 0x7c00 { special } else { scaled })
}

/// The float32 value of each byte code of an 8-bit float type.
fn byte_table(elem: Elem) -> &'static [f32; 256] {
    static TABLES: OnceLock<Vec<(Elem, [f32; 256])>> = OnceLock::new();
    static EMPTY: [f32; 256] = [0.0; 256];
    let tables = TABLES.get_or_init(|| {
        [
            Elem::F8E4M3FN,
            Elem::F8E4M3FNUZ,
            Elem::F8E5M2,
            Elem::F8E5M2FNUZ,
            Elem::F8E4M3B11FNUZ,
            Elem::F8E8M0,
        ]
        .into_iter()
        .map(|e| {
            let mut t = [0f32; 256];
            for (code, slot) in t.iter_mut().enumerate() {
                if let Element::F32(v) = decode_bits(e, code as u64) {
                    *slot = v;
                }
            }
            (e, t)
        })
        .collect()
    });
    tables
        .iter()
        .find(|(e, _)| *e == elem)
        .map_or(&EMPTY, |(_, t)| t)
}

/// Per-thread buffers of one chunk.
#[derive(Default)]
pub struct Scratch {
    f32s: Vec<f32>,
    f64s: Vec<f64>,
    f64b: Vec<f64>,
    i8s: Vec<i8>,
    u8s: Vec<u8>,
    i16s: Vec<i16>,
    u16s: Vec<u16>,
    i64s: Vec<i64>,
    u64s: Vec<u64>,
}

/// Whether raw little-endian bytes of this type go through the fast path
/// (whole bytes per element).
pub fn raw_fast(elem: Elem, byte_aligned: bool) -> bool {
    use Elem::*;
    match elem {
        F32 | F64 | F16 | BF16 | F8E4M3FN | F8E4M3FNUZ | F8E5M2 | F8E5M2FNUZ | F8E4M3B11FNUZ
        | F8E8M0 | I8 | U8 | I16 | U16 | I32 | U32 | I64 | U64 | Bool | C64 | C128 => {
            !byte_aligned || elem.bits() >= 8
        }
        _ => false,
    }
}

/// Bytes of one element in raw storage (fast-path types only).
pub fn raw_width(elem: Elem) -> usize {
    (elem.bits() / 8) as usize
}

macro_rules! le_chunks {
    ($bytes:expr, $n:expr, $t:ty, $out:expr) => {{
        $out.clear();
        $out.extend(
            $bytes
                .chunks_exact($n)
                .map(|c| <$t>::from_le_bytes(c.try_into().unwrap_or([0; $n]))),
        );
    }};
}

/// A part computed in float64 over integer values (exact below 2^53):
/// extremes as integers.
fn as_int(mut p: Part, signed: bool) -> Part {
    let int = |x: Option<Extreme>| match x {
        Some(Extreme::F64(v)) if signed => Some(Extreme::Int(v as i64)),
        Some(Extreme::F64(v)) => Some(Extreme::UInt(v as u64)),
        other => other,
    };
    p.min = int(p.min);
    p.max = int(p.max);
    p.first_zero_negative = None;
    p
}

/// The least and greatest of 8-byte integers, lane by lane so that the
/// loop vectorises.
#[inline]
fn int_extremes<T: Copy + Ord>(
    words: &[[u8; 8]],
    conv: impl Fn([u8; 8]) -> T + Copy,
    lo0: T,
    hi0: T,
) -> (T, T) {
    let mut mn = [lo0; LANES];
    let mut mx = [hi0; LANES];
    for_lanes(words, conv, |l, x| {
        mn[l] = mn[l].min(x);
        mx[l] = mx[l].max(x);
    });
    (
        mn.iter().copied().fold(lo0, T::min),
        mx.iter().copied().fold(hi0, T::max),
    )
}

/// A part of the float64 kernel over integers with their exact extremes
/// (as [`chunk_i64`] leaves it).
fn with_int_extremes(mut p: Part, lo: Extreme, hi: Extreme) -> Part {
    if p.count > 0 {
        p.min = Some(lo);
        p.max = Some(hi);
    }
    p
}

/// Statistics of one chunk of raw little-endian bytes (a whole number of
/// elements of a fast-path type).
pub fn raw_chunk(elem: Elem, bytes: &[u8], s: &mut Scratch) -> Part {
    use Elem::*;
    match elem {
        F32 => chunk_f32_by(bytes.as_chunks::<4>().0, f32::from_le_bytes),
        F64 => chunk_f64_by(bytes.as_chunks::<8>().0, f64::from_le_bytes, false),
        F16 => chunk_f32_by(bytes.as_chunks::<2>().0, |b| {
            f16_to_f32(u16::from_le_bytes(b))
        }),
        BF16 => chunk_f32_by(bytes.as_chunks::<2>().0, |b| {
            f32::from_bits(u32::from(u16::from_le_bytes(b)) << 16)
        }),
        F8E4M3FN | F8E4M3FNUZ | F8E5M2 | F8E5M2FNUZ | F8E4M3B11FNUZ | F8E8M0 => {
            let t = byte_table(elem);
            s.f32s.clear();
            s.f32s.extend(bytes.iter().map(|&b| t[usize::from(b)]));
            chunk_f32(&s.f32s)
        }
        I8 => {
            s.i8s.clear();
            s.i8s.extend(bytes.iter().map(|&b| b as i8));
            chunk_i8(&s.i8s)
        }
        U8 => chunk_u8(bytes),
        Bool => {
            // Any non-zero byte is true.
            s.u8s.clear();
            s.u8s.extend(bytes.iter().map(|&b| u8::from(b != 0)));
            chunk_u8(&s.u8s)
        }
        I16 => {
            le_chunks!(bytes, 2, i16, s.i16s);
            chunk_i16(&s.i16s)
        }
        U16 => {
            le_chunks!(bytes, 2, u16, s.u16s);
            chunk_u16(&s.u16s)
        }
        // 32-bit integers are exact in float64: one pass of the float64
        // kernel, the extremes turned back into integers.
        I32 => as_int(
            chunk_f64_by(
                bytes.as_chunks::<4>().0,
                |b| f64::from(i32::from_le_bytes(b)),
                false,
            ),
            true,
        ),
        U32 => as_int(
            chunk_f64_by(
                bytes.as_chunks::<4>().0,
                |b| f64::from(u32::from_le_bytes(b)),
                false,
            ),
            false,
        ),
        // 64-bit integers: the moments from the float64 kernel reading the
        // bytes (the same values in the same order as chunk_i64's), the
        // extremes exact in a second pass over the chunk, still in cache.
        I64 => {
            let words = bytes.as_chunks::<8>().0;
            let p = chunk_f64_by(words, |b| i64::from_le_bytes(b) as f64, false);
            let (lo, hi) = int_extremes(words, i64::from_le_bytes, i64::MAX, i64::MIN);
            with_int_extremes(p, Extreme::Int(lo), Extreme::Int(hi))
        }
        U64 => {
            let words = bytes.as_chunks::<8>().0;
            let p = chunk_f64_by(words, |b| u64::from_le_bytes(b) as f64, false);
            let (lo, hi) = int_extremes(words, u64::from_le_bytes, u64::MAX, u64::MIN);
            with_int_extremes(p, Extreme::UInt(lo), Extreme::UInt(hi))
        }
        C64 => {
            s.f64s.clear();
            s.f64s.extend(bytes.chunks_exact(8).map(|c| {
                let re = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                let im = f32::from_le_bytes([c[4], c[5], c[6], c[7]]);
                f64::from(re).hypot(f64::from(im))
            }));
            chunk_f64(&s.f64s, true)
        }
        C128 => {
            s.f64s.clear();
            s.f64s.extend(bytes.chunks_exact(16).map(|c| {
                let (a, b) = c.split_at(8);
                let re = f64::from_le_bytes(a.try_into().unwrap_or([0; 8]));
                let im = f64::from_le_bytes(b.try_into().unwrap_or([0; 8]));
                re.hypot(im)
            }));
            chunk_f64(&s.f64s, false)
        }
        _ => Part::default(),
    }
}

/// Statistics of one block (at most [`BLOCK`] elements) of raw bytes.
pub fn raw_block(elem: Elem, bytes: &[u8], s: &mut Scratch) -> Part {
    let width = raw_width(elem).max(1);
    let mut block = Part::default();
    for chunk in bytes.chunks(CHUNK * width) {
        block = block.merge(raw_chunk(elem, chunk, s));
    }
    block
}

/// Types of 8 and 16 bits are counted by bit pattern (a histogram of 256 or
/// 65,536 codes): statistics from the counts are exact and the pass is one
/// increment per element.
pub fn by_code(elem: Elem) -> Option<u32> {
    use Elem::*;
    match elem {
        I8 | U8 | Bool | F8E4M3FN | F8E4M3FNUZ | F8E5M2 | F8E5M2FNUZ | F8E4M3B11FNUZ | F8E8M0 => {
            Some(8)
        }
        I16 | U16 | F16 | BF16 => Some(16),
        _ => None,
    }
}

/// Counts of each code in little-endian `bits`-wide elements.
fn count_codes(bytes: &[u8], bits: u32, counts: &mut [u64]) {
    if bits == 8 {
        // Four tables, so that runs of one value do not wait on each other.
        let mut t = [[0u32; 256]; 4];
        for piece in bytes.chunks(1 << 30) {
            let (quads, rest) = piece.as_chunks::<4>();
            for &[a, b, c, d] in quads {
                t[0][usize::from(a)] += 1;
                t[1][usize::from(b)] += 1;
                t[2][usize::from(c)] += 1;
                t[3][usize::from(d)] += 1;
            }
            for &a in rest {
                t[0][usize::from(a)] += 1;
            }
            for table in &mut t {
                for (c, v) in counts.iter_mut().zip(table.iter_mut()) {
                    *c += u64::from(std::mem::take(v));
                }
            }
        }
    } else {
        let mut t = vec![0u32; 1 << 16];
        for piece in bytes.chunks(1 << 31) {
            let (pairs, _) = piece.as_chunks::<2>();
            for &p in pairs {
                if let Some(v) = t.get_mut(usize::from(u16::from_le_bytes(p))) {
                    *v += 1;
                }
            }
            for (c, v) in counts.iter_mut().zip(t.iter_mut()) {
                *c += u64::from(std::mem::take(v));
            }
        }
    }
}

/// The statistics of elements given as counts per code. `first_zero`
/// finds the sign of the first zero when both zeros occur.
fn from_counts(elem: Elem, counts: &[u64], first_zero: impl Fn() -> Option<bool>) -> Part {
    let mut p = Part::default();
    let mut sum = 0f64;
    let mut finite = 0u64;
    let values: Vec<(Element<'static>, f64, u64)> = counts
        .iter()
        .enumerate()
        .filter(|(_, c)| **c > 0)
        .filter_map(|(code, &c)| {
            let e = match elem {
                Elem::F16 => Element::F32(f16_to_f32(code as u16)),
                Elem::Bool => Element::Bool(code != 0),
                _ => decode_bits(elem, code as u64),
            };
            scalar(&e).map(|v| (e, v, c))
        })
        .collect();
    let mut zero_signs = (false, false);
    for &(e, v, c) in &values {
        p.count += c;
        if v.is_nan() {
            p.nan += c;
        } else if v == f64::INFINITY {
            p.pos_inf += c;
        } else if v == f64::NEG_INFINITY {
            p.neg_inf += c;
        } else {
            if v == 0.0 {
                p.zeros += c;
                if v.is_sign_negative() {
                    zero_signs.1 = true;
                } else {
                    zero_signs.0 = true;
                }
            }
            let x = Extreme::of(&e, v);
            if p.min.is_none_or(|m| x.less(m)) {
                p.min = Some(x);
            }
            if p.max.is_none_or(|m| m.less(x)) {
                p.max = Some(x);
            }
            finite += c;
            sum += v * c as f64;
        }
    }
    p.first_zero_negative = match zero_signs {
        (true, true) => first_zero(),
        (false, true) => Some(true),
        (true, false) => Some(false),
        _ => None,
    };
    if finite > 0 {
        let mean = sum / finite as f64;
        let m2 = values
            .iter()
            .filter(|(_, v, _)| v.is_finite())
            .map(|&(_, v, c)| (v - mean) * (v - mean) * c as f64)
            .sum();
        p.moments = Moments {
            n: finite,
            mean,
            rest: 0.0,
            m2,
            e: 0,
        };
    }
    p
}

/// Statistics of `n` elements of raw bytes, spread over up to `threads`
/// threads; `progress` is told of each finished block (in elements).
/// Whether the first zero of little-endian values is negative (None when
/// none is zero).
fn first_zero_sign(elem: Elem, bytes: &[u8]) -> Option<bool> {
    let width = raw_width(elem).max(1);
    let zero = |e: Element<'_>| scalar(&e) == Some(0.0);
    bytes
        .chunks_exact(width)
        .map(|c| {
            let code = c
                .iter()
                .rev()
                .fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
            match elem {
                Elem::F16 => Element::F32(f16_to_f32(code as u16)),
                _ => decode_bits(elem, code),
            }
        })
        .find(|&e| zero(e))
        .and_then(|e| scalar(&e))
        .map(f64::is_sign_negative)
}

/// [`raw_stats`] of `n` elements whose little-endian bytes `fill(range,
/// buf)` appends a range at a time, in order (values never held in one
/// buffer): the same chunks merged into the same blocks in the same order,
/// so the same result, with one chunk of values in memory. None when
/// `fill` fails.
pub fn raw_stats_filled(
    elem: Elem,
    n: u64,
    mut fill: impl FnMut(std::ops::Range<u64>, &mut Vec<u8>) -> bool,
) -> Option<Part> {
    let by_code = by_code(elem).filter(|&bits| n >= 16u64 << bits);
    let mut counts = by_code.map(|bits| vec![0u64; 1usize << bits]);
    let mut first_zero = None;
    let mut buf = Vec::new();
    let mut s = Scratch::default();
    let (mut total, mut block) = (Part::default(), Part::default());
    let mut at = 0u64;
    while at < n {
        let end = at.saturating_add(CHUNK as u64).min(n);
        buf.clear();
        if !fill(at..end, &mut buf) {
            return None;
        }
        match (counts.as_mut(), by_code) {
            (Some(c), Some(bits)) => {
                count_codes(&buf, bits, c);
                if first_zero.is_none() {
                    first_zero = first_zero_sign(elem, &buf);
                }
            }
            _ => block = block.merge(raw_chunk(elem, &buf, &mut s)),
        }
        at = end;
        if at.is_multiple_of(BLOCK) || at == n {
            total = total.merge(std::mem::take(&mut block));
        }
    }
    Some(match counts {
        Some(c) => from_counts(elem, &c, || first_zero),
        None => total,
    })
}

pub fn raw_stats(
    elem: Elem,
    bytes: &[u8],
    n: u64,
    threads: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> Part {
    let width = raw_width(elem).max(1);
    let need = usize::try_from(n)
        .ok()
        .and_then(|n| n.checked_mul(width))
        .unwrap_or(usize::MAX);
    let bytes = bytes.get(..need.min(bytes.len())).unwrap_or(&[]);
    let block_bytes = BLOCK as usize * width;
    let blocks = bytes.len().div_ceil(block_bytes);
    let threads = threads.clamp(1, blocks.max(1));
    let per = blocks.div_ceil(threads).max(1);
    // Counting by code pays off when the table is small next to the values
    // (and keeps memory in proportion to the input).
    let by_code = by_code(elem).filter(|&bits| n >= 16u64 << bits);
    if let Some(bits) = by_code {
        let size = 1usize << bits;
        let run = |run: &[u8]| {
            let mut counts = vec![0u64; size];
            for b in run.chunks(block_bytes) {
                count_codes(b, bits, &mut counts);
                progress((b.len() / width) as u64);
            }
            counts
        };
        let mut counts = vec![0u64; size];
        let parts: Vec<Vec<u64>> = if threads == 1 {
            vec![run(bytes)]
        } else {
            std::thread::scope(|scope| {
                let handles: Vec<_> = bytes
                    .chunks(per * block_bytes)
                    .map(|r| scope.spawn(move || run(r)))
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_default())
                    .collect()
            })
        };
        for part in parts {
            for (c, v) in counts.iter_mut().zip(part) {
                *c += v;
            }
        }
        return from_counts(elem, &counts, || first_zero_sign(elem, bytes));
    }
    let mut tree = Tree::default();
    if threads == 1 {
        let mut s = Scratch::default();
        for b in bytes.chunks(block_bytes) {
            tree.push_block(raw_block(elem, b, &mut s));
            progress((b.len() / width) as u64);
        }
        return tree.finish();
    }
    // Contiguous runs of blocks per thread; block results merged in order.
    let results: Vec<Vec<Part>> = std::thread::scope(|scope| {
        let handles: Vec<_> = bytes
            .chunks(per * block_bytes)
            .map(|run| {
                scope.spawn(move || {
                    let mut s = Scratch::default();
                    run.chunks(block_bytes)
                        .map(|b| {
                            let p = raw_block(elem, b, &mut s);
                            progress((b.len() / width) as u64);
                            p
                        })
                        .collect::<Vec<Part>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    for p in results.into_iter().flatten() {
        tree.push_block(p);
    }
    tree.finish()
}

/// Chunked statistics of elements from any iterator (typed fields, sub-byte
/// types): the elements are gathered a chunk at a time into a buffer of
/// their kind and go through the same kernels, in the same merge tree.
pub struct Gather {
    tree: Tree,
    s: Scratch,
    kind: Kind,
    len: usize,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    F32,
    F64,
    I64,
    U64,
    Bool,
    Complex64,
    Complex128,
    None,
}

impl Gather {
    pub fn new() -> Gather {
        Gather {
            tree: Tree::default(),
            s: Scratch::default(),
            kind: Kind::None,
            len: 0,
        }
    }

    fn flush(&mut self) {
        if self.len == 0 {
            return;
        }
        let s = &mut self.s;
        let p = match self.kind {
            Kind::F32 => chunk_f32(&s.f32s),
            Kind::F64 => chunk_f64(&s.f64s, false),
            Kind::Complex64 => chunk_f64(&s.f64s, true),
            Kind::Complex128 => chunk_f64(&s.f64s, false),
            Kind::I64 => chunk_i64(&s.i64s, &mut s.f64b),
            Kind::U64 => chunk_u64(&s.u64s, &mut s.f64b),
            Kind::Bool => chunk_u8(&s.u8s),
            Kind::None => Part::default(),
        };
        self.tree.push_chunk(p);
        s.f32s.clear();
        s.f64s.clear();
        s.i64s.clear();
        s.u64s.clear();
        s.u8s.clear();
        self.len = 0;
    }

    pub fn push(&mut self, e: &Element<'_>) {
        let kind = match e {
            Element::F32(_) => Kind::F32,
            Element::F64(_) => Kind::F64,
            Element::I64(_) => Kind::I64,
            Element::U64(_) => Kind::U64,
            Element::Bool(_) => Kind::Bool,
            Element::C64(..) => Kind::Complex64,
            Element::C128(..) => Kind::Complex128,
            Element::Str(_) => return,
        };
        if kind != self.kind {
            self.flush();
            self.kind = kind;
        }
        let s = &mut self.s;
        match *e {
            Element::F32(v) => s.f32s.push(v),
            Element::F64(v) => s.f64s.push(v),
            Element::I64(v) => s.i64s.push(v),
            Element::U64(v) => s.u64s.push(v),
            Element::Bool(b) => s.u8s.push(u8::from(b)),
            Element::C64(re, im) => s.f64s.push(f64::from(re).hypot(f64::from(im))),
            Element::C128(re, im) => s.f64s.push(re.hypot(im)),
            Element::Str(_) => {}
        }
        self.len += 1;
        if self.len == CHUNK {
            self.flush();
        }
    }

    pub fn finish(mut self) -> Part {
        self.flush();
        self.tree.finish()
    }
}

impl Default for Gather {
    fn default() -> Self {
        Gather::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_conversion_is_exact_for_every_code() {
        for h in 0..=u16::MAX {
            let want = half::f16::from_bits(h).to_f32();
            let got = f16_to_f32(h);
            if want.is_nan() {
                assert!(got.is_nan(), "{h:#x}");
            } else {
                assert_eq!(got.to_bits(), want.to_bits(), "{h:#x}");
            }
        }
    }

    #[test]
    fn chan_merge_matches_one_pass() {
        let xs: Vec<f64> = (0..10_000)
            .map(|i| ((i * 7919) % 1000) as f64 * 0.37)
            .collect();
        let whole = chunk_f64(&xs, false);
        let mut parts = Part::default();
        for c in xs.chunks(333) {
            parts = parts.merge(chunk_f64(c, false));
        }
        let (a, b) = (whole.moments, parts.moments);
        assert_eq!(a.n, b.n);
        assert!((a.mean - b.mean).abs() <= 1e-12 * a.mean.abs());
        let (sa, sb) = (a.std().unwrap_or(0.0), b.std().unwrap_or(0.0));
        assert!((sa - sb).abs() <= 1e-12 * sa);
    }

    #[test]
    fn exact_small_integers() {
        let xs: Vec<i8> = (0..1000).map(|i| (i % 256 - 128) as i8).collect();
        let p = chunk_i8(&xs);
        assert_eq!(p.min, Some(Extreme::Int(-128)));
        assert_eq!(p.max, Some(Extreme::Int(127)));
        let mean = xs.iter().map(|&x| f64::from(x)).sum::<f64>() / 1000.0;
        assert!((p.moments.mean - mean).abs() < 1e-12);
    }

    #[test]
    fn huge_doubles_do_not_overflow() {
        let p = chunk_f64(&[f64::MAX, -f64::MAX], false);
        assert_eq!(p.moments.mean, 0.0);
        assert_eq!(p.moments.std(), Some(f64::MAX));
        let q = chunk_f64(&[f64::MAX], false).merge(chunk_f64(&[-f64::MAX], false));
        assert_eq!(q.moments.mean, 0.0);
        assert_eq!(q.moments.std(), Some(f64::MAX));
    }
}
