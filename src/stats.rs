//! Statistics of a numeric tensor, gathered in one streaming pass over its
//! elements (never a copy): count, min, max, mean and standard deviation
//! (Welford's method), and the counts of NaN, +Inf, -Inf and zeros; and an
//! optional text histogram (a second streaming pass, once min and max are
//! known).
//!
//! Conventions: min, max, mean and std are over the finite values only
//! (NaN and the infinities are counted apart, so one Inf does not hide the
//! rest); std is the population standard deviation (numpy's default,
//! ddof=0); a complex element counts as its magnitude |z| (a NaN part makes
//! it NaN, an infinite part +Inf); booleans count as 0 and 1; strings have
//! no statistics.

pub mod kernel;

use crate::external::Folder;
use crate::progress::Progress;
use crate::tensor::{
    Elem, Element, LoadedValues, TensorData, TensorView, for_each_run, load_values,
};

use kernel::{Extreme, scalar};

/// Statistics of a tensor ([`crate::Tensor::stats`]): `compute` gathers
/// them in one pass; `Stats::push` adds one element (slow; for a few
/// values).
#[non_exhaustive]
#[derive(Debug, Clone, Default)]
pub struct Stats {
    /// Elements seen (NaN and infinities included).
    pub count: u64,
    /// The smallest value (of the magnitudes, for complex elements).
    pub min: Option<Extreme>,
    /// The largest value.
    pub max: Option<Extreme>,
    /// Finite values seen (the ones mean and std are over).
    pub finite: u64,
    /// Mean and squared deviations of the finite values.
    moments: kernel::Moments,
    /// NaN values.
    pub nan: u64,
    /// Positive infinities.
    pub pos_inf: u64,
    /// Negative infinities.
    pub neg_inf: u64,
    /// Values equal to zero.
    pub zeros: u64,
    /// Elements were complex: the statistics are of |z|.
    pub magnitude: bool,
    /// Elements were strings: there are no statistics.
    pub strings: bool,
}

impl Stats {
    /// No element seen.
    pub fn new() -> Self {
        Stats::default()
    }

    /// The statistics of the elements a `kernel::Part` summarises.
    #[doc(hidden)]
    pub fn from_part(p: kernel::Part) -> Stats {
        let fix = |x: Option<Extreme>| match (x, p.first_zero_negative) {
            (Some(Extreme::F32(0.0)), Some(neg)) => {
                Some(Extreme::F32(if neg { -0.0 } else { 0.0 }))
            }
            (Some(Extreme::F64(0.0)), Some(neg)) => {
                Some(Extreme::F64(if neg { -0.0 } else { 0.0 }))
            }
            (x, _) => x,
        };
        Stats {
            count: p.count,
            min: fix(p.min),
            max: fix(p.max),
            finite: p.moments.n,
            moments: p.moments,
            nan: p.nan,
            pos_inf: p.pos_inf,
            neg_inf: p.neg_inf,
            zeros: p.zeros,
            magnitude: false,
            strings: false,
        }
    }

    fn part(&self) -> kernel::Part {
        kernel::Part {
            count: self.count,
            nan: self.nan,
            pos_inf: self.pos_inf,
            neg_inf: self.neg_inf,
            zeros: self.zeros,
            min: self.min,
            max: self.max,
            moments: self.moments,
            first_zero_negative: None,
        }
    }

    /// Adds one element (a merge of one value: use [`compute`] for a
    /// tensor).
    #[doc(hidden)]
    pub fn push(&mut self, e: &Element<'_>) {
        if matches!(e, Element::C64(..) | Element::C128(..)) {
            self.magnitude = true;
        }
        if matches!(e, Element::Str(_)) {
            self.strings = true;
            return;
        }
        let (magnitude, strings) = (self.magnitude, self.strings);
        *self = Stats::from_part(self.part().merge(kernel::Part::repeated(e, 1)));
        self.magnitude = magnitude;
        self.strings = strings;
    }

    /// Mean of the finite values (None when there are none).
    pub fn mean(&self) -> Option<f64> {
        (self.finite > 0).then_some(self.moments.mean)
    }

    /// Population standard deviation of the finite values.
    pub fn std(&self) -> Option<f64> {
        self.moments.std()
    }

    /// Whether there is anything to show (numbers were seen, or none at all
    /// for a numeric tensor without elements).
    pub fn is_numeric(&self) -> bool {
        !self.strings
    }
}

/// Statistics of a whole tensor in one pass (external data is read from
/// `dir`). None when its values cannot be read.
pub fn compute(view: &TensorView<'_, '_>, dir: Option<&Folder>) -> Option<Stats> {
    compute_with(view, dir, &crate::progress::Silent)
}

/// [`compute`], telling `progress` how far it is.
///
/// Raw little-endian storage (raw_data, tensor_content, external data) of
/// whole-byte types goes through the chunked kernels on every core; other
/// storage is decoded element by element into the same kernels. Values
/// implied by TensorFlow's padding rule (the last value repeated, or zeros)
/// are counted, never iterated.
pub fn compute_with(
    view: &TensorView<'_, '_>,
    dir: Option<&Folder>,
    progress: &dyn Progress,
) -> Option<Stats> {
    let mut loaded = load_values(view, dir);
    if matches!(loaded, LoadedValues::Unavailable(_)) {
        return None;
    }
    let elem = view.elem?;
    if elem == Elem::Str {
        return Some(Stats {
            strings: true,
            ..Stats::default()
        });
    }
    let n = view.elements;
    let threads = crate::progress::threads();
    let part = match (&loaded, &view.data) {
        (LoadedValues::Ready(..), TensorData::Raw(bytes))
            if kernel::raw_fast(elem, view.byte_aligned) =>
        {
            raw_pass(elem, bytes, n, threads, progress)
        }
        (LoadedValues::External(bytes, ..), _) if kernel::raw_fast(elem, false) => {
            raw_pass(elem, bytes.bytes(), n, threads, progress)
        }
        _ => {
            // Stored elements one by one; the implied rest (padding) at once.
            let mut g = kernel::Gather::new();
            let mut rest = kernel::Part::default();
            let _ = for_each_run(&mut loaded, |e, count| -> Result<(), ()> {
                if count == 1 {
                    g.push(&e);
                } else {
                    rest = rest.merge(kernel::Part::repeated(&e, count));
                }
                Ok(())
            });
            g.finish().merge(rest)
        }
    };
    let mut stats = Stats::from_part(part);
    stats.magnitude = elem.is_complex();
    Some(stats)
}

/// Statistics of `n` elements of `elem` whose little-endian values
/// `fill(range, buf)` appends a range at a time, in row-major order (a V1
/// checkpoint's slices, never assembled): the same as [`compute`] of those
/// values in one buffer, with a chunk of them in memory. None when `fill`
/// fails.
pub fn compute_filled(
    elem: Elem,
    n: u64,
    mut fill: impl FnMut(std::ops::Range<u64>, &mut Vec<u8>) -> bool,
) -> Option<Stats> {
    if elem == Elem::Str {
        return Some(Stats {
            strings: true,
            ..Stats::default()
        });
    }
    let part = if kernel::raw_fast(elem, false) {
        kernel::raw_stats_filled(elem, n, fill)?
    } else {
        // Element by element, as `compute_with` reads other storage.
        let mut g = kernel::Gather::new();
        let mut buf = Vec::new();
        let mut at = 0u64;
        while at < n {
            let end = at.saturating_add(kernel::BLOCK).min(n);
            buf.clear();
            if !fill(at..end, &mut buf) {
                return None;
            }
            for e in crate::tensor::Elements::new(elem, crate::tensor::Source::Raw(&buf), end - at)
            {
                g.push(&e);
            }
            at = end;
        }
        g.finish()
    };
    let mut stats = Stats::from_part(part);
    stats.magnitude = elem.is_complex();
    Some(stats)
}

/// The histogram of a tensor stored in parts, in the bins its `stats` make
/// ([`compute_filled`]): each part's counts added.
pub fn histogram_parts<'m, 'a: 'm>(
    parts: impl Iterator<Item = TensorView<'m, 'a>>,
    stats: &Stats,
) -> Option<Histogram> {
    let mut h = Histogram::new(stats)?;
    for view in parts {
        let part = histogram(&view, None, stats)?;
        for (a, b) in h.counts.iter_mut().zip(part.counts) {
            *a += b;
        }
    }
    Some(h)
}

fn raw_pass(
    elem: Elem,
    bytes: &[u8],
    n: u64,
    threads: usize,
    progress: &dyn Progress,
) -> kernel::Part {
    let total = n.saturating_mul(kernel::raw_width(elem) as u64);
    let big = total >= crate::progress::THRESHOLD_BYTES;
    if big {
        progress.start("statistics", n);
    }
    let tick = |k: u64| {
        if big {
            progress.advance(k);
        }
    };
    let threads = if total < (4 << 20) { 1 } else { threads };
    let p = kernel::raw_stats(elem, bytes, n, threads, &tick);
    if big {
        progress.finish();
    }
    p
}

/// A number in at most 6 significant digits, for means and deviations
/// (which are not values of the tensor, so need no exact form).
pub fn short(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v:?}");
    }
    let a = v.abs();
    if (1e-4..1e6).contains(&a) {
        let digits = 5 - a.log10().floor() as i32;
        let s = format!("{v:.*}", digits.clamp(0, 10) as usize);
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    } else {
        let s = format!("{v:.5e}");
        // 1.50000e-7 -> 1.5e-7
        match s.split_once('e') {
            Some((m, e)) if m.contains('.') => {
                format!("{}e{e}", m.trim_end_matches('0').trim_end_matches('.'))
            }
            _ => s,
        }
    }
}

/// Bins of the text histogram.
pub const HISTOGRAM_BINS: u64 = 16;

/// Counts of the finite values in equal-width bins over [min, max]; an
/// integer tensor with few distinct values gets one bin per value.
#[derive(Debug, Clone)]
pub struct Histogram {
    lo: f64,
    hi: f64,
    /// One bin per integer value from `lo` (integer tensors, small range).
    per_integer: bool,
    pub counts: Vec<u64>,
}

impl Histogram {
    /// None when there are no finite values.
    pub fn new(stats: &Stats) -> Option<Histogram> {
        let (min, max) = (stats.min?, stats.max?);
        let (lo, hi) = (min.as_f64(), max.as_f64());
        let integer = matches!(min, Extreme::Int(_) | Extreme::UInt(_));
        let span = hi - lo;
        let per_integer = integer && span < HISTOGRAM_BINS as f64;
        let bins = if per_integer {
            span as usize + 1
        } else if span > 0.0 {
            HISTOGRAM_BINS as usize
        } else {
            1
        };
        Some(Histogram {
            lo,
            hi,
            per_integer,
            counts: vec![0; bins],
        })
    }

    pub fn push(&mut self, e: &Element<'_>) {
        self.push_run(e, 1);
    }

    /// Adds `count` copies of one element (a run of implied values) at once.
    pub fn push_run(&mut self, e: &Element<'_>, count: u64) {
        let Some(v) = scalar(e) else { return };
        if !v.is_finite() {
            return;
        }
        let bins = self.counts.len();
        let i = if self.per_integer {
            (v - self.lo) as usize
        } else if self.hi > self.lo {
            // Halves, so that a span beyond f64::MAX does not overflow.
            let t = (v / 2.0 - self.lo / 2.0) / (self.hi / 2.0 - self.lo / 2.0);
            (t * bins as f64) as usize
        } else {
            0
        };
        // The maximum falls in the last bin.
        if let Some(c) = self.counts.get_mut(i.min(bins.saturating_sub(1))) {
            *c = c.saturating_add(count);
        }
    }

    /// The counts of raw little-endian values of a plain numeric type
    /// (whose value is its number, as [`scalar`] reads it), binned by the
    /// rule of [`Histogram::push`] in a loop over the bytes; None for the
    /// other types.
    fn count_raw(&self, elem: Elem, bytes: &[u8]) -> Option<Vec<u64>> {
        fn run<const W: usize>(
            h: &Histogram,
            bytes: &[u8],
            conv: impl Fn([u8; W]) -> f64,
        ) -> Vec<u64> {
            let bins = h.counts.len();
            let last = bins.saturating_sub(1);
            // Four counters a bin, so that runs of values in one bin do
            // not wait on each other's increments.
            let mut counts = vec![[0u64; 4]; bins];
            let half_lo = h.lo / 2.0;
            let span = h.hi / 2.0 - half_lo;
            let nb = bins as f64;
            for (k, &w) in bytes.as_chunks::<W>().0.iter().enumerate() {
                let v = conv(w);
                if !v.is_finite() {
                    continue;
                }
                let i = if h.per_integer {
                    (v - h.lo) as usize
                } else if h.hi > h.lo {
                    (((v / 2.0 - half_lo) / span) * nb) as usize
                } else {
                    0
                };
                if let Some(c) = counts.get_mut(i.min(last)).and_then(|c| c.get_mut(k & 3)) {
                    *c = c.saturating_add(1);
                }
            }
            counts
                .iter()
                .map(|c| c.iter().fold(0u64, |a, &b| a.saturating_add(b)))
                .collect()
        }
        Some(match elem {
            Elem::F32 => run(self, bytes, |b| f64::from(f32::from_le_bytes(b))),
            Elem::F64 => run(self, bytes, f64::from_le_bytes),
            Elem::I8 => run(self, bytes, |b: [u8; 1]| f64::from(i8::from_le_bytes(b))),
            Elem::U8 => run(self, bytes, |b: [u8; 1]| f64::from(b[0])),
            Elem::I16 => run(self, bytes, |b| f64::from(i16::from_le_bytes(b))),
            Elem::U16 => run(self, bytes, |b| f64::from(u16::from_le_bytes(b))),
            Elem::F16 => run(self, bytes, |b| {
                f64::from(kernel::f16_to_f32(u16::from_le_bytes(b)))
            }),
            Elem::I32 => run(self, bytes, |b| f64::from(i32::from_le_bytes(b))),
            Elem::U32 => run(self, bytes, |b| f64::from(u32::from_le_bytes(b))),
            Elem::I64 => run(self, bytes, |b| i64::from_le_bytes(b) as f64),
            Elem::U64 => run(self, bytes, |b| u64::from_le_bytes(b) as f64),
            _ => return None,
        })
    }

    /// The bin's range as text.
    pub(crate) fn label(&self, i: usize) -> String {
        if self.per_integer {
            return format!("{}", (self.lo + i as f64) as i64);
        }
        let bins = self.counts.len() as f64;
        let at = |k: usize| self.lo + (self.hi / 2.0 - self.lo / 2.0) * 2.0 * (k as f64 / bins);
        let a = at(i);
        let b = if i + 1 == self.counts.len() {
            self.hi
        } else {
            at(i + 1)
        };
        let close = if i + 1 == self.counts.len() { "]" } else { ")" };
        format!("[{}, {}{close}", short(a), short(b))
    }
}

/// The histogram of a tensor (a streaming pass after the statistics).
pub fn histogram(
    view: &TensorView<'_, '_>,
    dir: Option<&Folder>,
    stats: &Stats,
) -> Option<Histogram> {
    let mut h = Histogram::new(stats)?;
    let mut loaded = load_values(view, dir);
    let raw = match &loaded {
        LoadedValues::Ready(it, n) => it.raw_parts().map(|(b, e, a)| (b, e, a, *n)),
        LoadedValues::External(bytes, elem, n) => Some((bytes.bytes(), *elem, false, *n)),
        _ => None,
    };
    let threads = crate::progress::threads();
    if let Some((bytes, elem, aligned, n)) = raw
        && n >= kernel::BLOCK
        && kernel::raw_fast(elem, aligned)
    {
        let width = kernel::raw_width(elem).max(1);
        let body = usize::try_from(n)
            .ok()
            .and_then(|n| n.checked_mul(width))
            .and_then(|len| bytes.get(..len));
        // One core (or a WebAssembly page): the same loop over the bytes,
        // on this thread.
        if threads <= 1
            && let Some(counts) = body.and_then(|b| h.count_raw(elem, b))
        {
            h.counts = counts;
            return Some(h);
        }
        if let Some(body) = body
            && threads > 1
        {
            // Counts are sums: each thread bins a share of the values with
            // the same rule, and the counts are added.
            let per = (body.len() / width).div_ceil(threads).max(1) * width;
            let shares: Vec<Vec<u64>> = std::thread::scope(|scope| {
                let handles: Vec<_> = body
                    .chunks(per)
                    .map(|piece| {
                        let mut local = Histogram {
                            counts: vec![0; h.counts.len()],
                            ..h
                        };
                        scope.spawn(move || {
                            if let Some(counts) = local.count_raw(elem, piece) {
                                return counts;
                            }
                            let count = (piece.len() / width) as u64;
                            let source = crate::tensor::Source::Raw(piece);
                            for e in crate::tensor::Elements::new(elem, source, count) {
                                local.push(&e);
                            }
                            local.counts
                        })
                    })
                    .collect();
                handles.into_iter().filter_map(|t| t.join().ok()).collect()
            });
            if shares.len() == body.len().div_ceil(per) {
                for share in shares {
                    for (c, k) in h.counts.iter_mut().zip(share) {
                        *c = c.saturating_add(k);
                    }
                }
                return Some(h);
            }
        }
    }
    let _ = for_each_run(&mut loaded, |e, count| -> Result<(), ()> {
        h.push_run(&e, count);
        Ok(())
    });
    Some(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn welford_and_counts() {
        let mut s = Stats::new();
        for v in [1.0f32, 2.0, 3.0, 4.0, f32::NAN, f32::INFINITY, 0.0] {
            s.push(&Element::F32(v));
        }
        assert_eq!(s.count, 7);
        assert_eq!((s.nan, s.pos_inf, s.neg_inf, s.zeros), (1, 1, 0, 1));
        assert_eq!(s.min, Some(Extreme::F32(0.0)));
        assert_eq!(s.max, Some(Extreme::F32(4.0)));
        assert!((s.mean().unwrap_or(0.0) - 2.0).abs() < 1e-12);
        assert!((s.std().unwrap_or(0.0) - 2f64.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn exact_integers_and_short() {
        let mut s = Stats::new();
        for v in [i64::MAX, i64::MAX - 1] {
            s.push(&Element::I64(v));
        }
        assert_eq!(s.min, Some(Extreme::Int(i64::MAX - 1)));
        assert_eq!(short(0.123456789), "0.123457");
        assert_eq!(short(2.5), "2.5");
        assert_eq!(short(123456.7), "123457");
        assert_eq!(short(1.5e-7), "1.5e-7");
        // Values near f64::MAX: the squares are rescaled, not infinite.
        let mut s = Stats::new();
        for v in [f64::MAX, -f64::MAX] {
            s.push(&Element::F64(v));
        }
        assert_eq!(s.mean(), Some(0.0));
        assert_eq!(s.std(), Some(f64::MAX));
    }
}
