//! Comparing tensors the way ONNX's backend tests do: the runner calls
//! `numpy.testing.assert_allclose(actual, expected, rtol, atol)` with rtol
//! 1e-3 and atol 1e-7 unless a test says otherwise. An element passes when
//! |actual - expected| <= atol + rtol * |expected|, computed in the tensor's
//! own float type as numpy does (float16 in float16, float32 in float32);
//! NaN must face NaN and an infinity the same infinity. Integers, booleans
//! and strings must be equal; complex numbers are compared component by
//! component. bfloat16 gets rtol >= 2^-6 as the runner gives it.
//!
//! Values are streamed from both inputs element by element, never loaded:
//! two 1 GiB tensors compare in the memory of their maps.

use crate::decode::Message;
use crate::escape::TextLines;
use crate::external::Folder;
use crate::fields::onnx::{
    AttributeProto, GraphProto, MapProto, ModelProto, NodeProto, SparseTensorProto, TensorProto,
};
use crate::formats::onnx::{OPTIONAL_FIELDS, SEQUENCE_FIELDS};
use crate::formats::onnx_tensor;
use crate::json_writer::JsonWriter;
use crate::schema::{FieldId, SchemaSet};
use crate::tensor::{Elem, Element, LoadedValues, TensorData, TensorView, load_values};
use half::f16;
use std::io;

/// onnx's default tolerances (onnx/backend/test/loader: rtol 1e-3, atol 1e-7).
pub const DEFAULT_RTOL: f64 = 1e-3;
pub const DEFAULT_ATOL: f64 = 1e-7;

/// How values are compared (`decode diff --rtol --atol`): equal when
/// |actual - expected| <= atol + rtol * |expected|, as numpy's `isclose`.
#[non_exhaustive]
#[derive(Debug, Clone, Copy)]
pub struct DiffOptions {
    /// The relative tolerance.
    pub rtol: f64,
    /// The absolute tolerance.
    pub atol: f64,
    /// How many mismatching elements to list.
    pub show: usize,
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions {
            rtol: DEFAULT_RTOL,
            atol: DEFAULT_ATOL,
            show: 10,
        }
    }
}

/// One element, owned, for reports.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    /// float32 and narrower floats (shown as the shortest float32 text).
    F32(f32),
    F(f64),
    I(i64),
    U(u64),
    B(bool),
    C32(f32, f32),
    C(f64, f64),
    S(Vec<u8>),
}

impl Val {
    fn of(e: &Element<'_>) -> Val {
        match *e {
            Element::F32(v) => Val::F32(v),
            Element::F64(v) => Val::F(v),
            Element::I64(v) => Val::I(v),
            Element::U64(v) => Val::U(v),
            Element::Bool(b) => Val::B(b),
            Element::C64(r, i) => Val::C32(r, i),
            Element::C128(r, i) => Val::C(r, i),
            Element::Str(s) => Val::S(s.to_vec()),
        }
    }

    pub fn text(&self) -> String {
        match self {
            Val::F32(v) => fmt_f32(*v),
            Val::F(v) => fmt_f(*v),
            Val::I(v) => v.to_string(),
            Val::U(v) => v.to_string(),
            Val::B(b) => b.to_string(),
            Val::C32(r, i) => format!(
                "{}{}{}i",
                fmt_f32(*r),
                if *i < 0.0 { "" } else { "+" },
                fmt_f32(*i)
            ),
            Val::C(r, i) => format!(
                "{}{}{}i",
                fmt_f(*r),
                if *i < 0.0 { "" } else { "+" },
                fmt_f(*i)
            ),
            Val::S(s) => crate::escape::quoted(s),
        }
    }

    pub fn write_json(&self, w: &mut JsonWriter<'_>) -> io::Result<()> {
        match self {
            Val::F32(v) => w.value(*v),
            Val::F(v) => w.value(*v),
            Val::I(v) => w.value(*v),
            Val::U(v) => w.value(*v),
            Val::B(b) => w.value(*b),
            Val::C32(r, i) => {
                w.begin_array()?;
                w.value(*r)?;
                w.value(*i)?;
                w.end_array()
            }
            Val::C(r, i) => {
                w.begin_array()?;
                w.value(*r)?;
                w.value(*i)?;
                w.end_array()
            }
            Val::S(s) => crate::render::json::text_or_base64(w, s),
        }
    }
}

fn fmt_f32(v: f32) -> String {
    if v.is_finite() {
        format!("{v:?}")
    } else {
        fmt_f(f64::from(v))
    }
}

fn fmt_f(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "inf".into() } else { "-inf".into() }
    } else {
        format!("{v:?}")
    }
}

/// A tensor's type and shape.
#[derive(Debug, Clone, PartialEq)]
pub struct TensorInfo {
    pub type_name: String,
    pub dims: Vec<i64>,
}

impl TensorInfo {
    pub fn text(&self) -> String {
        let d: Vec<String> = self.dims.iter().map(i64::to_string).collect();
        format!("{}[{}]", self.type_name, d.join(", "))
    }
}

/// One element that is out of tolerance.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    pub index: u64,
    pub expected: Val,
    pub actual: Val,
}

/// The largest difference and where it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Extreme {
    pub value: f64,
    pub index: u64,
    pub expected: Val,
    pub actual: Val,
}

/// Upper bounds of the histogram bins of |actual - expected|: exactly 0,
/// then decades up to 1, then 1 and above.
pub const HISTOGRAM_EDGES: [f64; 10] = [1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0];
pub const HISTOGRAM_LABELS: [&str; 12] = [
    "0", "< 1e-9", "< 1e-8", "< 1e-7", "< 1e-6", "< 1e-5", "< 1e-4", "< 1e-3", "< 1e-2", "< 0.1",
    "< 1", ">= 1",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Every element equal (NaN facing NaN).
    Identical,
    Within,
    Out,
    TypeMismatch,
    ShapeMismatch,
    /// A value could not be read (missing external data...).
    Unavailable,
}

impl Verdict {
    pub fn passes(self) -> bool {
        matches!(self, Verdict::Identical | Verdict::Within)
    }

    pub fn text(self) -> &'static str {
        match self {
            Verdict::Identical => "identical",
            Verdict::Within => "within tolerance",
            Verdict::Out => "out of tolerance",
            Verdict::TypeMismatch => "type mismatch",
            Verdict::ShapeMismatch => "shape mismatch",
            Verdict::Unavailable => "values unavailable",
        }
    }

    pub fn id(self) -> &'static str {
        match self {
            Verdict::Identical => "identical",
            Verdict::Within => "within_tolerance",
            Verdict::Out => "out_of_tolerance",
            Verdict::TypeMismatch => "type_mismatch",
            Verdict::ShapeMismatch => "shape_mismatch",
            Verdict::Unavailable => "unavailable",
        }
    }
}

/// The comparison of two tensors.
#[derive(Debug, Clone, PartialEq)]
pub struct TensorDiff {
    pub expected: TensorInfo,
    pub actual: TensorInfo,
    pub verdict: Verdict,
    /// The rtol used (bfloat16 raises it to 2^-6).
    pub rtol: f64,
    pub atol: f64,
    pub compared: u64,
    pub mismatches: u64,
    /// Elements that are equal exactly.
    pub equal: u64,
    pub max_abs: Option<Extreme>,
    pub max_rel: Option<Extreme>,
    pub first: Vec<Mismatch>,
    /// Counts per bin of |actual - expected| (float and complex tensors),
    /// over element pairs that are both finite.
    pub histogram: Option<[u64; 12]>,
    /// NaN or infinity on one side only, or infinities of opposite signs.
    pub special_mismatches: u64,
    pub note: Option<String>,
}

/// How numpy computes the tolerance test for a float type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arith {
    F16,
    F32,
    F64,
}

fn arith_of(elem: Elem) -> Arith {
    match elem {
        Elem::F64 | Elem::C128 => Arith::F64,
        Elem::F16 => Arith::F16,
        _ => Arith::F32,
    }
}

fn r16(v: f32) -> f32 {
    f16::from_f32(v).to_f32()
}

/// numpy's `isclose` on one finite pair: `abs(x - y) <= atol + rtol *
/// abs(y)` in the array's float type (python floats are weak scalars), or
/// `x == y`.
fn close(arith: Arith, x: f64, y: f64, rtol: f64, atol: f64) -> bool {
    match arith {
        Arith::F64 => (x - y).abs() <= atol + rtol * y.abs() || x == y,
        Arith::F32 => {
            let (x, y) = (x as f32, y as f32);
            (x - y).abs() <= (atol as f32) + (rtol as f32) * y.abs() || x == y
        }
        Arith::F16 => {
            // f16 results of f32 operations on f16 values are correctly
            // rounded (24 >= 2 * 11 + 2 bits), as numpy's half arithmetic.
            let (x, y) = (r16(x as f32), r16(y as f32));
            let a = f16::from_f64(atol).to_f32();
            let r = f16::from_f64(rtol).to_f32();
            let d = r16(x - y).abs();
            let t = r16(a + r16(r * y.abs()));
            d <= t || x == y
        }
    }
}

/// One float component: Ok(true) close, Ok(false) out of tolerance, and
/// whether the pair is special (NaN or infinity on either side).
fn float_pass(arith: Arith, x: f64, y: f64, rtol: f64, atol: f64) -> (bool, bool) {
    if x.is_nan() || y.is_nan() {
        return (x.is_nan() && y.is_nan(), true);
    }
    if x.is_infinite() || y.is_infinite() {
        return (x == y, true);
    }
    (close(arith, x, y, rtol, atol), false)
}

/// Row-major index of element `flat` in `dims`.
pub fn unravel(mut flat: u64, dims: &[i64]) -> Vec<u64> {
    let mut out = vec![0; dims.len()];
    for (slot, &d) in out.iter_mut().zip(dims).rev() {
        let d = u64::try_from(d).unwrap_or(0);
        if d == 0 {
            continue;
        }
        *slot = flat % d;
        flat /= d;
    }
    out
}

pub fn index_text(flat: u64, dims: &[i64]) -> String {
    let i: Vec<String> = unravel(flat, dims).iter().map(u64::to_string).collect();
    format!("[{}]", i.join(", "))
}

/// Every element of loaded values as one iterator (external data and
/// all-zero tensors included); the difference picture's reader.
#[cfg(feature = "picture")]
fn elements<'x>(lv: &'x mut LoadedValues<'_>) -> Box<dyn Iterator<Item = Element<'x>> + 'x> {
    match lv {
        #[allow(clippy::map_identity)] // shortens the elements' lifetime to 'x
        LoadedValues::Ready(it, _) => Box::new(it.by_ref().map(|e| e)),
        LoadedValues::External(bytes, elem, n) => Box::new(crate::tensor::Elements::new(
            *elem,
            crate::tensor::Source::Raw(bytes.bytes()),
            *n,
        )),
        LoadedValues::Unavailable(_) | LoadedValues::Nothing => Box::new(std::iter::empty()),
    }
}

fn info(view: &TensorView<'_, '_>) -> TensorInfo {
    TensorInfo {
        type_name: view.type_name.clone(),
        dims: view.dims.clone().unwrap_or_default(),
    }
}

/// Compares two tensor views. `dirs` are the folders their external data
/// is read from.
pub fn compare_views(
    expected: &TensorView<'_, '_>,
    actual: &TensorView<'_, '_>,
    dirs: (Option<&Folder>, Option<&Folder>),
    opts: &DiffOptions,
) -> TensorDiff {
    let mut d = TensorDiff {
        expected: info(expected),
        actual: info(actual),
        verdict: Verdict::Identical,
        rtol: opts.rtol,
        atol: opts.atol,
        compared: 0,
        mismatches: 0,
        equal: 0,
        max_abs: None,
        max_rel: None,
        first: Vec::new(),
        histogram: None,
        special_mismatches: 0,
        note: None,
    };
    if expected.type_name != actual.type_name {
        d.verdict = Verdict::TypeMismatch;
        return d;
    }
    if expected.dims != actual.dims {
        d.verdict = Verdict::ShapeMismatch;
        return d;
    }
    let Some(elem) = expected.elem else {
        d.verdict = Verdict::Unavailable;
        d.note = Some(format!(
            "data type {} cannot be decoded",
            expected.type_name
        ));
        return d;
    };
    if elem == Elem::BF16 {
        // onnx's runner: "Two bfloat16 ULPs."
        d.rtol = d.rtol.max(2f64.powi(-6));
    }
    let mut le = load_values(expected, dirs.0);
    let mut la = load_values(actual, dirs.1);
    for (lv, side) in [(&le, "expected"), (&la, "actual")] {
        if let LoadedValues::Unavailable(why) = lv {
            d.verdict = Verdict::Unavailable;
            d.note = Some(format!("{side}: {why}"));
            return d;
        }
    }
    if expected.elements != actual.elements {
        d.verdict = Verdict::Unavailable;
        d.note = Some(format!(
            "the expected tensor holds {} values, the actual {}",
            expected.elements, actual.elements
        ));
        return d;
    }
    let arith = arith_of(elem);
    let floaty = elem.is_float() || elem.is_complex();
    if floaty {
        d.histogram = Some([0; 12]);
    }
    let fast = match (&expected.data, &actual.data) {
        (TensorData::Raw(x), TensorData::Raw(y)) if elem == Elem::F32 => expected
            .elements
            .checked_mul(4)
            .and_then(|n| usize::try_from(n).ok())
            .and_then(|n| Some((x.get(..n)?, y.get(..n)?))),
        _ => None,
    };
    if let Some((x, y)) = fast {
        // The common case without the element iterators: float32 raw_data
        // on both sides, read straight from the mapped bytes.
        let word = |c: &[u8]| f32::from_le_bytes(c.try_into().unwrap_or([0; 4]));
        for (index, (cx, cy)) in x.chunks_exact(4).zip(y.chunks_exact(4)).enumerate() {
            let (e, a) = (Element::F32(word(cx)), Element::F32(word(cy)));
            visit(&mut d, arith, opts.show, index as u64, e, a);
        }
    } else {
        // Runs of equal elements on both sides (a stored element is a run
        // of 1, values implied by padding one run): each overlap of two
        // runs is one comparison counted as many times.
        let _ = le.with_elements(|ie| {
            la.with_elements(|ia| {
                let (mut re, mut ra) = (ie.next_run(), ia.next_run());
                let mut index = 0u64;
                while let (Some((e, ke)), Some((a, ka))) = (re, ra) {
                    let k = ke.min(ka);
                    visit_run(&mut d, arith, opts.show, index, e, a, k);
                    index = index.saturating_add(k);
                    re = if ke > k {
                        Some((e, ke - k))
                    } else {
                        ie.next_run()
                    };
                    ra = if ka > k {
                        Some((a, ka - k))
                    } else {
                        ia.next_run()
                    };
                }
            })
        });
    }
    d.verdict = if d.mismatches > 0 {
        Verdict::Out
    } else if d.equal == d.compared {
        Verdict::Identical
    } else {
        Verdict::Within
    };
    d
}

/// Compares one pair of elements and updates the report.
#[inline]
fn visit(
    d: &mut TensorDiff,
    arith: Arith,
    show: usize,
    index: u64,
    e: Element<'_>,
    a: Element<'_>,
) {
    visit_run(d, arith, show, index, e, a, 1);
}

/// Compares one pair of elements standing for `count` pairs (from `index`
/// on) and updates the report as that many comparisons would.
#[inline]
fn visit_run(
    d: &mut TensorDiff,
    arith: Arith,
    show: usize,
    index: u64,
    e: Element<'_>,
    a: Element<'_>,
    count: u64,
) {
    let (rtol, atol) = (d.rtol, d.atol);
    d.compared = d.compared.saturating_add(count);
    let (pass, equal, diff) = match (e, a) {
        (Element::Str(x), Element::Str(y)) => (x == y, x == y, None),
        (Element::Bool(x), Element::Bool(y)) => (x == y, x == y, None),
        (Element::I64(x), Element::I64(y)) => (
            x == y,
            x == y,
            Some(((i128::from(y) - i128::from(x)) as f64, x as f64)),
        ),
        (Element::U64(x), Element::U64(y)) => (
            x == y,
            x == y,
            Some(((i128::from(y) - i128::from(x)) as f64, x as f64)),
        ),
        (Element::C64(er, ei), Element::C64(ar, ai)) => complex(
            arith,
            (er.into(), ei.into()),
            (ar.into(), ai.into()),
            rtol,
            atol,
            d,
            count,
        ),
        (Element::C128(er, ei), Element::C128(ar, ai)) => {
            complex(arith, (er, ei), (ar, ai), rtol, atol, d, count)
        }
        (e2, a2) => match (float_of(&e2), float_of(&a2)) {
            (Some(y), Some(x)) => {
                let (pass, special) = float_pass(arith, x, y, rtol, atol);
                if special && !pass {
                    d.special_mismatches = d.special_mismatches.saturating_add(count);
                }
                let equal = x == y || (x.is_nan() && y.is_nan());
                (pass, equal, (!special).then_some((x - y, y)))
            }
            _ => (false, false, None),
        },
    };
    if equal {
        d.equal = d.equal.saturating_add(count);
    }
    if let Some((delta, y)) = diff {
        let abs = delta.abs();
        let rel = if y == 0.0 {
            if abs == 0.0 { 0.0 } else { f64::INFINITY }
        } else {
            abs / y.abs()
        };
        if d.max_abs.as_ref().is_none_or(|m| abs > m.value) {
            d.max_abs = Some(Extreme {
                value: abs,
                index,
                expected: Val::of(&e),
                actual: Val::of(&a),
            });
        }
        if d.max_rel.as_ref().is_none_or(|m| rel > m.value) {
            d.max_rel = Some(Extreme {
                value: rel,
                index,
                expected: Val::of(&e),
                actual: Val::of(&a),
            });
        }
        if let Some(h) = d.histogram.as_mut() {
            let bin = if abs == 0.0 {
                0
            } else {
                1 + HISTOGRAM_EDGES
                    .iter()
                    .position(|&edge| abs < edge)
                    .unwrap_or(HISTOGRAM_EDGES.len())
            };
            if let Some(c) = h.get_mut(bin) {
                *c = c.saturating_add(count);
            }
        }
    }
    if !pass {
        d.mismatches = d.mismatches.saturating_add(count);
        // The first mismatches of a run are its first indices.
        let mut at = index;
        while d.first.len() < show && at < index.saturating_add(count) {
            d.first.push(Mismatch {
                index: at,
                expected: Val::of(&e),
                actual: Val::of(&a),
            });
            at += 1;
        }
    }
}

fn float_of(e: &Element<'_>) -> Option<f64> {
    match *e {
        Element::F32(v) => Some(f64::from(v)),
        Element::F64(v) => Some(v),
        _ => None,
    }
}

/// A complex pair, component by component; the reported difference is the
/// modulus of actual - expected.
fn complex(
    arith: Arith,
    e: (f64, f64),
    a: (f64, f64),
    rtol: f64,
    atol: f64,
    d: &mut TensorDiff,
    count: u64,
) -> (bool, bool, Option<(f64, f64)>) {
    let (p1, s1) = float_pass(arith, a.0, e.0, rtol, atol);
    let (p2, s2) = float_pass(arith, a.1, e.1, rtol, atol);
    let pass = p1 && p2;
    if (s1 && !p1) || (s2 && !p2) {
        d.special_mismatches = d.special_mismatches.saturating_add(count);
    }
    let same = |x: f64, y: f64| x == y || (x.is_nan() && y.is_nan());
    let equal = same(a.0, e.0) && same(a.1, e.1);
    let diff = (!(s1 || s2)).then(|| ((a.0 - e.0).hypot(a.1 - e.1), e.0.hypot(e.1)));
    (pass, equal, diff)
}

/// A difference found while comparing two values: a tensor comparison, or
/// a difference of structure (a missing element, another message type).
#[derive(Debug, Clone, PartialEq)]
pub enum Finding {
    Tensor(Box<TensorDiff>),
    Structure(String),
}

/// One finding at a path inside the compared values (`[2]`, `["key"]`,
/// `.value`; empty at the root).
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub path: String,
    pub finding: Finding,
}

impl Entry {
    pub fn passes(&self) -> bool {
        match &self.finding {
            Finding::Tensor(t) => t.verdict.passes(),
            Finding::Structure(_) => false,
        }
    }
}

/// One finding as `decode diff` writes it; `nested`: under a line naming
/// its path.
pub fn write_entry_text(out: &mut TextLines<'_>, e: &Entry, nested: bool) -> io::Result<()> {
    let indent = if nested {
        out.line(format_args!(
            "{}:",
            if e.path.is_empty() { "(root)" } else { &e.path }
        ))?;
        "  "
    } else {
        ""
    };
    match &e.finding {
        Finding::Tensor(t) => write_tensor_text(out, t, indent),
        Finding::Structure(s) => out.line(format_args!("{indent}{s}")),
    }
}

/// The findings of one pair of values as `decode diff` writes them after
/// its `expected:`/`actual:` lines: a lone finding at the root bare,
/// anything more each under its path, then the result line.
pub fn write_entries_text(out: &mut TextLines<'_>, entries: &[Entry]) -> io::Result<()> {
    let lone = matches!(entries, [only] if only.path.is_empty());
    for e in entries {
        write_entry_text(out, e, !lone)?;
    }
    if !lone {
        let count = |n: usize| u64::try_from(n).unwrap_or(u64::MAX);
        let differing = entries.iter().filter(|e| !e.passes()).count();
        write_result_line(out, count(differing), count(entries.len()))?;
    }
    Ok(())
}

/// The closing line of a pair's findings: how many of the compared values
/// differ.
pub fn write_result_line(out: &mut TextLines<'_>, differing: u64, entries: u64) -> io::Result<()> {
    out.line(format_args!(
        "result: {}",
        if differing == 0 {
            format!("all {entries} values within tolerance")
        } else {
            format!("{differing} of {entries} values differ")
        }
    ))
}

fn short_name(set: &SchemaSet, m: &Message<'_>) -> String {
    let n = m.def(set).full_name.to_string();
    match n.strip_prefix("onnx.") {
        Some(short) => short.to_string(),
        None => n,
    }
}

fn map_keys(set: &SchemaSet, m: &Message<'_>) -> Vec<String> {
    let mut keys: Vec<String> = m
        .scalars(set, MapProto::KEYS)
        .filter_map(|k| k.as_i64())
        .map(|k| k.to_string())
        .collect();
    keys.extend(
        m.field(set, MapProto::STRING_KEYS)
            .iter()
            .filter_map(|f| match f.value {
                crate::decode::Value::Bytes(b) => Some(format!("{:?}", String::from_utf8_lossy(b))),
                _ => None,
            }),
    );
    keys
}

fn map_values<'m, 'a>(set: &SchemaSet, m: &'m Message<'a>) -> Vec<&'m Message<'a>> {
    m.message(set, MapProto::VALUES)
        .map(|v| {
            SEQUENCE_FIELDS
                .iter()
                .flat_map(|f| v.messages(set, *f))
                .collect()
        })
        .unwrap_or_default()
}

/// The first position of each name in a list, sorted once, so that two
/// lists are matched by name in n log n comparisons (searching the other
/// list for each name made it n^2 / 2).
pub struct FirstIndex<'k> {
    /// (name, position), by name, equal names in list order.
    sorted: Vec<(&'k str, usize)>,
    comparisons: u64,
}

impl<'k> FirstIndex<'k> {
    pub fn new(names: impl IntoIterator<Item = &'k str>) -> FirstIndex<'k> {
        let mut sorted: Vec<(&'k str, usize)> =
            names.into_iter().enumerate().map(|(k, n)| (n, k)).collect();
        let mut comparisons = 0u64;
        // Stable: among equal names the first in the list comes first.
        sorted.sort_by(|a, b| {
            comparisons = comparisons.saturating_add(1);
            a.0.cmp(b.0)
        });
        FirstIndex {
            sorted,
            comparisons,
        }
    }

    /// The position of the first `name` in the list.
    pub fn first(&mut self, name: &str) -> Option<usize> {
        let mut comparisons = 0u64;
        let at = self.sorted.partition_point(|(n, _)| {
            comparisons = comparisons.saturating_add(1);
            *n < name
        });
        self.comparisons = self.comparisons.saturating_add(comparisons);
        self.sorted
            .get(at)
            .filter(|(n, _)| *n == name)
            .map(|&(_, k)| k)
    }

    /// Name comparisons made so far, sorting included: the work done, for
    /// the tests that check it grows as n log n.
    pub fn comparisons(&self) -> u64 {
        self.comparisons
    }
}

/// What a streamed comparison found in all.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub entries: u64,
    /// Entries that do not pass.
    pub differing: u64,
    /// Map keys compared while matching keys (see [`FirstIndex`]).
    pub key_comparisons: u64,
}

/// Where [`compare_at`] hands its entries: to the caller as they are
/// found, so a sequence of a million tensors is never held as a million
/// reports. The first error of the caller's stops the comparison.
struct EntrySink<'f> {
    each: &'f mut dyn FnMut(Entry) -> io::Result<()>,
    tally: Tally,
    failed: Option<io::Error>,
}

impl EntrySink<'_> {
    fn push(&mut self, entry: Entry) {
        if self.failed.is_some() {
            return;
        }
        self.tally.entries = self.tally.entries.saturating_add(1);
        if !entry.passes() {
            self.tally.differing = self.tally.differing.saturating_add(1);
        }
        if let Err(e) = (self.each)(entry) {
            self.failed = Some(e);
        }
    }
}

/// Compares two ONNX values (tensors, sequences, maps, optionals, sparse
/// tensors by their values and indices) element by element, handing each
/// finding to `each` as soon as it is made.
pub fn compare_messages_each(
    expected: &Message<'_>,
    actual: &Message<'_>,
    dirs: (Option<&Folder>, Option<&Folder>),
    opts: &DiffOptions,
    each: &mut dyn FnMut(Entry) -> io::Result<()>,
) -> io::Result<Tally> {
    let mut out = EntrySink {
        each,
        tally: Tally::default(),
        failed: None,
    };
    compare_at(
        SchemaSet::builtin(),
        expected,
        actual,
        dirs,
        opts,
        String::new(),
        crate::decode::DEFAULT_DEPTH,
        &mut out,
    );
    match out.failed {
        Some(e) => Err(e),
        None => Ok(out.tally),
    }
}

/// [`compare_messages_each`], the findings collected.
pub fn compare_messages(
    expected: &Message<'_>,
    actual: &Message<'_>,
    dirs: (Option<&Folder>, Option<&Folder>),
    opts: &DiffOptions,
) -> Vec<Entry> {
    let mut out = Vec::new();
    let _ = compare_messages_each(expected, actual, dirs, opts, &mut |e| {
        out.push(e);
        Ok(())
    });
    out
}

#[allow(clippy::too_many_arguments)]
fn compare_at(
    set: &SchemaSet,
    e: &Message<'_>,
    a: &Message<'_>,
    dirs: (Option<&Folder>, Option<&Folder>),
    opts: &DiffOptions,
    path: String,
    depth: u32,
    out: &mut EntrySink<'_>,
) {
    let Some(depth) = depth.checked_sub(1) else {
        return;
    };
    let (en, an) = (short_name(set, e), short_name(set, a));
    if en != an {
        out.push(Entry {
            path,
            finding: Finding::Structure(format!("expected a {en}, actual is a {an}")),
        });
        return;
    }
    match en.as_str() {
        "TensorProto" => {
            let (ve, va) = (onnx_tensor::view(set, e), onnx_tensor::view(set, a));
            out.push(Entry {
                path,
                finding: Finding::Tensor(Box::new(compare_views(&ve, &va, dirs, opts))),
            });
        }
        "SparseTensorProto" => {
            for field in [SparseTensorProto::VALUES, SparseTensorProto::INDICES] {
                let name = field.name;
                match (e.message(set, field), a.message(set, field)) {
                    (Some(x), Some(y)) => {
                        compare_at(set, x, y, dirs, opts, format!("{path}.{name}"), depth, out);
                    }
                    _ => out.push(Entry {
                        path: format!("{path}.{name}"),
                        finding: Finding::Structure(format!("{name} missing on one side")),
                    }),
                }
            }
            let (de, da): (Vec<i64>, Vec<i64>) = (
                e.scalars(set, SparseTensorProto::DIMS)
                    .filter_map(|d| d.as_i64())
                    .collect(),
                a.scalars(set, SparseTensorProto::DIMS)
                    .filter_map(|d| d.as_i64())
                    .collect(),
            );
            if de != da {
                out.push(Entry {
                    path,
                    finding: Finding::Structure(format!("dense shape {de:?} vs {da:?}")),
                });
            }
        }
        "SequenceProto" => {
            let xs: Vec<_> = SEQUENCE_FIELDS
                .iter()
                .flat_map(|f| e.messages(set, *f))
                .collect();
            let ys: Vec<_> = SEQUENCE_FIELDS
                .iter()
                .flat_map(|f| a.messages(set, *f))
                .collect();
            if xs.len() != ys.len() {
                out.push(Entry {
                    path: path.clone(),
                    finding: Finding::Structure(format!(
                        "expected {} elements, actual has {}",
                        xs.len(),
                        ys.len()
                    )),
                });
            }
            for (k, (x, y)) in xs.iter().zip(&ys).enumerate() {
                if out.failed.is_some() {
                    break;
                }
                compare_at(set, x, y, dirs, opts, format!("{path}[{k}]"), depth, out);
            }
        }
        "OptionalProto" => {
            let x = OPTIONAL_FIELDS.iter().find_map(|f| e.message(set, *f));
            let y = OPTIONAL_FIELDS.iter().find_map(|f| a.message(set, *f));
            match (x, y) {
                (Some(x), Some(y)) => {
                    compare_at(set, x, y, dirs, opts, format!("{path}.value"), depth, out)
                }
                (None, None) => {}
                (Some(_), None) => out.push(Entry {
                    path,
                    finding: Finding::Structure(
                        "expected a value, actual is an empty optional".into(),
                    ),
                }),
                (None, Some(_)) => out.push(Entry {
                    path,
                    finding: Finding::Structure(
                        "expected an empty optional, actual holds a value".into(),
                    ),
                }),
            }
        }
        "MapProto" => compare_maps(set, e, a, dirs, opts, path, depth, out),
        other => out.push(Entry {
            path,
            finding: Finding::Structure(format!("{other} values are not compared")),
        }),
    }
}

/// Two MapProtos: their key types, then each key's values (a key on one
/// side only is a difference of structure).
#[allow(clippy::too_many_arguments)]
fn compare_maps(
    set: &SchemaSet,
    e: &Message<'_>,
    a: &Message<'_>,
    dirs: (Option<&Folder>, Option<&Folder>),
    opts: &DiffOptions,
    path: String,
    depth: u32,
    out: &mut EntrySink<'_>,
) {
    let (ke, ka) = (
        e.int(set, MapProto::KEY_TYPE),
        a.int(set, MapProto::KEY_TYPE),
    );
    if ke != ka {
        out.push(Entry {
            path,
            finding: Finding::Structure(format!("key types differ: {ke:?} vs {ka:?}")),
        });
        return;
    }
    let (xk, yk) = (map_keys(set, e), map_keys(set, a));
    let (xv, yv) = (map_values(set, e), map_values(set, a));
    let mut in_actual = FirstIndex::new(yk.iter().map(String::as_str));
    let mut in_expected = FirstIndex::new(xk.iter().map(String::as_str));
    for (k, key) in xk.iter().enumerate() {
        if out.failed.is_some() {
            break;
        }
        let p = format!("{path}[{key}]");
        match in_actual.first(key) {
            Some(j) => match (xv.get(k), yv.get(j)) {
                (Some(x), Some(y)) => compare_at(set, x, y, dirs, opts, p, depth, out),
                _ => out.push(Entry {
                    path: p,
                    finding: Finding::Structure("no value".into()),
                }),
            },
            None => out.push(Entry {
                path: p,
                finding: Finding::Structure("key missing in actual".into()),
            }),
        }
    }
    for key in &yk {
        if in_expected.first(key).is_none() {
            out.push(Entry {
                path: format!("{path}[{key}]"),
                finding: Finding::Structure("key not in expected".into()),
            });
        }
    }
    out.tally.key_comparisons = out
        .tally
        .key_comparisons
        .saturating_add(in_actual.comparisons())
        .saturating_add(in_expected.comparisons());
}

// ------------------------------------------------------------------ output

/// A tensor comparison as text, lines indented by `indent`.
pub fn write_tensor_text(w: &mut TextLines<'_>, d: &TensorDiff, indent: &str) -> io::Result<()> {
    w.line(format_args!("{indent}expected: {}", d.expected.text()))?;
    w.line(format_args!("{indent}actual:   {}", d.actual.text()))?;
    match d.verdict {
        Verdict::TypeMismatch | Verdict::ShapeMismatch => {
            w.line(format_args!(
                "{indent}verdict:  {} (values not compared)",
                d.verdict.text()
            ))?;
            return Ok(());
        }
        Verdict::Unavailable => {
            w.line(format_args!(
                "{indent}verdict:  {} ({})",
                d.verdict.text(),
                d.note.as_deref().unwrap_or("")
            ))?;
            return Ok(());
        }
        _ => {}
    }
    let share = if d.compared == 0 {
        0.0
    } else {
        d.mismatches as f64 * 100.0 / d.compared as f64
    };
    w.line(format_args!(
        "{indent}tolerance: |actual - expected| <= {} + {} * |expected|",
        fmt_f(d.atol),
        fmt_f(d.rtol)
    ))?;
    w.line(format_args!(
        "{indent}compared {} elements: {} out of tolerance ({share:.2}%), {} equal",
        d.compared, d.mismatches, d.equal
    ))?;
    if d.special_mismatches > 0 {
        w.line(format_args!(
            "{indent}NaN/infinity at different places: {}",
            d.special_mismatches
        ))?;
    }
    let dims = &d.expected.dims;
    for (label, m) in [("max abs diff", &d.max_abs), ("max rel diff", &d.max_rel)] {
        if let Some(m) = m {
            w.line(format_args!(
                "{indent}{label}: {} at {} (expected {}, actual {})",
                fmt_f(m.value),
                index_text(m.index, dims),
                m.expected.text(),
                m.actual.text()
            ))?;
        }
    }
    if !d.first.is_empty() {
        let shown = d.first.len() as u64;
        if shown < d.mismatches {
            w.line(format_args!(
                "{indent}first {shown} of {} mismatches:",
                d.mismatches
            ))?;
        } else {
            w.line(format_args!(
                "{indent}mismatch{}:",
                if shown == 1 { "" } else { "es" }
            ))?;
        }
        for m in &d.first {
            w.line(format_args!(
                "{indent}  {}  expected {}  actual {}",
                index_text(m.index, dims),
                m.expected.text(),
                m.actual.text()
            ))?;
        }
    }
    if let Some(h) = &d.histogram {
        let total: u64 = h.iter().sum();
        if total > 0 {
            w.line(format_args!("{indent}|actual - expected| (finite pairs):"))?;
            let top = h.iter().copied().max().unwrap_or(1).max(1);
            for (label, &c) in HISTOGRAM_LABELS.iter().zip(h.iter()) {
                if c == 0 {
                    continue;
                }
                let bar = usize::try_from(c.saturating_mul(40).div_ceil(top)).unwrap_or(40);
                w.line(format_args!(
                    "{indent}  {label:>7} {c:>10} {}",
                    "#".repeat(bar)
                ))?;
            }
        }
    }
    w.line(format_args!("{indent}verdict:  {}", d.verdict.text()))
}

fn extreme_json(w: &mut JsonWriter<'_>, m: &Option<Extreme>, dims: &[i64]) -> io::Result<()> {
    match m {
        None => w.null(),
        Some(m) => {
            w.begin_object()?;
            w.member("value", m.value)?;
            index_json(w, m.index, dims)?;
            w.key("expected")?;
            m.expected.write_json(w)?;
            w.key("actual")?;
            m.actual.write_json(w)?;
            w.end_object()
        }
    }
}

/// `"index": [i, j, ...]`, the place of a flat index in `dims`.
fn index_json(w: &mut JsonWriter<'_>, flat: u64, dims: &[i64]) -> io::Result<()> {
    w.key("index")?;
    w.begin_array()?;
    for i in unravel(flat, dims) {
        w.value(i)?;
    }
    w.end_array()
}

fn info_json(w: &mut JsonWriter<'_>, i: &TensorInfo) -> io::Result<()> {
    w.begin_object()?;
    w.member("data_type", &i.type_name)?;
    w.key("dims")?;
    w.begin_array()?;
    for d in &i.dims {
        w.value(*d)?;
    }
    w.end_array()?;
    w.end_object()
}

/// A tensor comparison as a JSON object.
pub fn write_tensor_json(w: &mut JsonWriter<'_>, d: &TensorDiff) -> io::Result<()> {
    w.begin_object()?;
    w.member("verdict", d.verdict.id())?;
    w.key("expected")?;
    info_json(w, &d.expected)?;
    w.key("actual")?;
    info_json(w, &d.actual)?;
    if let Some(n) = &d.note {
        w.member("note", n)?;
    }
    if matches!(
        d.verdict,
        Verdict::Identical | Verdict::Within | Verdict::Out
    ) {
        w.member("rtol", d.rtol)?;
        w.member("atol", d.atol)?;
        let share = if d.compared == 0 {
            0.0
        } else {
            d.mismatches as f64 / d.compared as f64
        };
        w.member("compared", d.compared)?;
        w.member("mismatches", d.mismatches)?;
        w.member("mismatch_share", share)?;
        w.member("equal", d.equal)?;
        w.member("special_mismatches", d.special_mismatches)?;
        w.key("max_abs_diff")?;
        extreme_json(w, &d.max_abs, &d.expected.dims)?;
        w.key("max_rel_diff")?;
        extreme_json(w, &d.max_rel, &d.expected.dims)?;
        w.key("first_mismatches")?;
        w.begin_array()?;
        for m in &d.first {
            w.begin_object()?;
            index_json(w, m.index, &d.expected.dims)?;
            w.key("expected")?;
            m.expected.write_json(w)?;
            w.key("actual")?;
            m.actual.write_json(w)?;
            w.end_object()?;
        }
        w.end_array()?;
        if let Some(h) = &d.histogram {
            w.key("histogram")?;
            w.begin_array()?;
            for (label, c) in HISTOGRAM_LABELS.iter().zip(h.iter()) {
                w.begin_object()?;
                w.member("bin", *label)?;
                w.member("count", *c)?;
                w.end_object()?;
            }
            w.end_array()?;
        }
    }
    w.end_object()
}

/// A picture of |actual - expected| for an image-shaped tensor pair, made
/// by the picture module (NaN where exactly one side is NaN).
#[cfg(feature = "picture")]
pub fn difference_png(
    expected: &TensorView<'_, '_>,
    actual: &TensorView<'_, '_>,
    dirs: (Option<&Folder>, Option<&Folder>),
) -> Result<Vec<u8>, String> {
    let dims = expected.dims.clone().unwrap_or_default();
    if expected.dims != actual.dims || expected.type_name != actual.type_name {
        return Err("the tensors differ in type or shape".into());
    }
    let layout = crate::picture::layout(&dims).ok_or_else(|| {
        format!("shape {dims:?} is not image-shaped (H x W, [1 x] C x H x W, [1 x] H x W x C, N x C x H x W)")
    })?;
    let n = layout.elements().ok_or("too many elements")?;
    if n.saturating_mul(4) > crate::picture::MAX_PICTURE_BYTES {
        return Err("the picture would be too large".into());
    }
    if expected.elem.is_none_or(|e| !e.is_numeric()) {
        return Err(format!("{} values cannot be drawn", expected.type_name));
    }
    let mut le = load_values(expected, dirs.0);
    let mut la = load_values(actual, dirs.1);
    let mut buf: Vec<u8> = Vec::new();
    {
        let (ie, ia) = (elements(&mut le), elements(&mut la));
        for (e, a) in ie.zip(ia).take(usize::try_from(n).unwrap_or(usize::MAX)) {
            let v = match (e, a) {
                (Element::C64(er, ei), Element::C64(ar, ai)) => {
                    (f64::from(ar - er)).hypot(f64::from(ai - ei))
                }
                (Element::C128(er, ei), Element::C128(ar, ai)) => (ar - er).hypot(ai - ei),
                (e, a) => match (e.as_f64(), a.as_f64()) {
                    (Some(x), Some(y)) if x.is_nan() && y.is_nan() => 0.0,
                    (Some(x), Some(y)) if x == y => 0.0,
                    (Some(x), Some(y)) => (y - x).abs(),
                    _ => f64::NAN,
                },
            };
            buf.extend_from_slice(&(v as f32).to_le_bytes());
        }
    }
    if buf.len() as u64 != n.saturating_mul(4) {
        return Err("values unavailable".into());
    }
    let view = TensorView {
        type_name: "FLOAT".into(),
        elem: Some(Elem::F32),
        dims: Some(dims),
        byte_aligned: false,
        elements: n,
        data: crate::tensor::TensorData::Raw(&buf),
    };
    crate::picture::png_bytes(&view, None).map_err(|e| e.to_string())
}

// ------------------------------------------------------------------ models

/// What differs about one initializer of two models.
#[derive(Debug, Clone, PartialEq)]
pub enum InitFinding {
    OnlyExpected,
    OnlyActual,
    Tensor(Box<TensorDiff>),
}

/// Two models compared: initializers by name, nodes of the main graph.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ModelDiff {
    /// Initializers that differ (or are on one side only), in expected's
    /// order then actual's extra ones.
    pub initializers: Vec<(String, InitFinding)>,
    /// Initializers found on both sides that pass.
    pub same_initializers: usize,
    /// One line per node difference.
    pub nodes: Vec<String>,
    pub node_counts: (usize, usize),
    /// Names compared while matching initializers, nodes and attributes
    /// (see [`FirstIndex`]).
    pub name_comparisons: u64,
}

impl ModelDiff {
    pub fn passes(&self) -> bool {
        self.nodes.is_empty()
            && self.initializers.iter().all(|(_, f)| match f {
                InitFinding::Tensor(t) => t.verdict.passes(),
                _ => false,
            })
    }
}

fn strs<'a>(set: &SchemaSet, m: &Message<'a>, field: FieldId) -> Vec<String> {
    m.field(set, field)
        .iter()
        .filter_map(|f| match f.value {
            crate::decode::Value::Bytes(b) => Some(String::from_utf8_lossy(b).into_owned()),
            _ => None,
        })
        .collect()
}

fn raw<'a>(bytes: &'a [u8], m: &Message<'_>) -> &'a [u8] {
    let (s, e) = (
        usize::try_from(m.offset).unwrap_or(0),
        usize::try_from(m.end).unwrap_or(0),
    );
    bytes.get(s..e).unwrap_or(&[])
}

/// A short text of an attribute's value for the simple kinds (float, int,
/// string and their lists); None for tensors and graphs.
fn attribute_value(set: &SchemaSet, a: &Message<'_>) -> Option<String> {
    if a.has(set, AttributeProto::F) {
        let v = a.scalar(set, AttributeProto::F)?;
        return Some(match v {
            crate::decode::ScalarValue::F32(f) => format!("{f:?}"),
            other => format!("{other:?}"),
        });
    }
    if a.has(set, AttributeProto::I) {
        return a.int(set, AttributeProto::I).map(|i| i.to_string());
    }
    if let Some(b) = a.bytes(set, AttributeProto::S) {
        return Some(crate::escape::quoted(b));
    }
    if a.has(set, AttributeProto::INTS) {
        let v: Vec<String> = a
            .scalars(set, AttributeProto::INTS)
            .filter_map(|v| v.as_i64())
            .map(|v| v.to_string())
            .collect();
        return Some(format!("[{}]", v.join(", ")));
    }
    if a.has(set, AttributeProto::FLOATS) {
        let v: Vec<String> = a
            .scalars(set, AttributeProto::FLOATS)
            .map(|v| match v {
                crate::decode::ScalarValue::F32(f) => format!("{f:?}"),
                other => format!("{other:?}"),
            })
            .collect();
        return Some(format!("[{}]", v.join(", ")));
    }
    None
}

fn node_label(set: &SchemaSet, n: &Message<'_>, k: usize) -> String {
    let op = n.str(set, NodeProto::OP_TYPE).unwrap_or("?");
    match n.str(set, NodeProto::NAME).filter(|s| !s.is_empty()) {
        Some(name) => format!("node {k} {name:?} ({op})"),
        None => format!("node {k} ({op})"),
    }
}

fn op_of(set: &SchemaSet, n: &Message<'_>) -> String {
    let op = n.str(set, NodeProto::OP_TYPE).unwrap_or("?");
    match n.str(set, NodeProto::DOMAIN).filter(|d| !d.is_empty()) {
        Some(d) => format!("{d}.{op}"),
        None => op.to_string(),
    }
}

/// Compares two decoded ModelProtos: initializers by name (missing on
/// either side, type or shape changed, values out of tolerance) and the
/// main graph's nodes (matched by name when every node has a unique name,
/// else by position): op, inputs, outputs and attributes.
pub fn compare_models(
    expected: (&Message<'_>, &[u8], Option<&Folder>),
    actual: (&Message<'_>, &[u8], Option<&Folder>),
    opts: &DiffOptions,
) -> ModelDiff {
    let set = SchemaSet::builtin();
    let mut out = ModelDiff::default();
    let ge = expected.0.message(set, ModelProto::GRAPH);
    let ga = actual.0.message(set, ModelProto::GRAPH);
    let inits = |g: Option<&Message<'_>>| -> Vec<(String, usize)> {
        g.map(|g| {
            g.messages(set, GraphProto::INITIALIZER)
                .enumerate()
                .map(|(k, t)| (t.str(set, TensorProto::NAME).unwrap_or("").to_string(), k))
                .collect()
        })
        .unwrap_or_default()
    };
    let (ie, ia) = (inits(ge), inits(ga));
    let te: Vec<&Message<'_>> = ge
        .map(|g| g.messages(set, GraphProto::INITIALIZER).collect())
        .unwrap_or_default();
    let ta: Vec<&Message<'_>> = ga
        .map(|g| g.messages(set, GraphProto::INITIALIZER).collect())
        .unwrap_or_default();
    let mut in_actual = FirstIndex::new(ia.iter().map(|(n, _)| n.as_str()));
    let mut in_expected = FirstIndex::new(ie.iter().map(|(n, _)| n.as_str()));
    for (name, k) in &ie {
        match in_actual.first(name).and_then(|at| ia.get(at)) {
            None => out
                .initializers
                .push((name.clone(), InitFinding::OnlyExpected)),
            Some((_, j)) => {
                if let (Some(x), Some(y)) = (te.get(*k), ta.get(*j)) {
                    let d = compare_views(
                        &onnx_tensor::view(set, x),
                        &onnx_tensor::view(set, y),
                        (expected.2, actual.2),
                        opts,
                    );
                    if d.verdict.passes() {
                        out.same_initializers += 1;
                    } else {
                        out.initializers
                            .push((name.clone(), InitFinding::Tensor(Box::new(d))));
                    }
                }
            }
        }
    }
    for (name, _) in &ia {
        if in_expected.first(name).is_none() {
            out.initializers
                .push((name.clone(), InitFinding::OnlyActual));
        }
    }
    out.name_comparisons = in_actual
        .comparisons()
        .saturating_add(in_expected.comparisons());
    let ne: Vec<&Message<'_>> = ge
        .map(|g| g.messages(set, GraphProto::NODE).collect())
        .unwrap_or_default();
    let na: Vec<&Message<'_>> = ga
        .map(|g| g.messages(set, GraphProto::NODE).collect())
        .unwrap_or_default();
    out.node_counts = (ne.len(), na.len());
    let unique_names = |ns: &[&Message<'_>]| {
        let mut names: Vec<&str> = ns
            .iter()
            .filter_map(|n| n.str(set, NodeProto::NAME))
            .filter(|s| !s.is_empty())
            .collect();
        let all = names.len() == ns.len();
        names.sort_unstable();
        names.dedup();
        all && names.len() == ns.len()
    };
    let by_name = unique_names(&ne) && unique_names(&na);
    let mut matched = vec![false; na.len()];
    let mut nodes_in_actual = FirstIndex::new(if by_name {
        na.iter()
            .map(|y| y.str(set, NodeProto::NAME).unwrap_or(""))
            .collect()
    } else {
        Vec::new()
    });
    for (k, x) in ne.iter().enumerate() {
        let j = if by_name {
            nodes_in_actual.first(x.str(set, NodeProto::NAME).unwrap_or(""))
        } else {
            (k < na.len()).then_some(k)
        };
        let Some(j) = j else {
            out.nodes
                .push(format!("{}: only in expected", node_label(set, x, k)));
            continue;
        };
        if let Some(m) = matched.get_mut(j) {
            *m = true;
        }
        let Some(y) = na.get(j) else { continue };
        let label = node_label(set, x, k);
        let (oe, oa) = (op_of(set, x), op_of(set, y));
        if oe != oa {
            out.nodes.push(format!("{label}: op {oe} -> {oa}"));
        }
        for field in [NodeProto::INPUT, NodeProto::OUTPUT] {
            let (a, b) = (strs(set, x, field), strs(set, y, field));
            if a != b {
                out.nodes
                    .push(format!("{label}: {}s {a:?} -> {b:?}", field.name));
            }
        }
        let attrs = |n: &Message<'_>, bytes: &[u8]| -> Vec<(String, Vec<u8>, Option<String>)> {
            n.messages(set, NodeProto::ATTRIBUTE)
                .map(|a| {
                    (
                        a.str(set, AttributeProto::NAME).unwrap_or("").to_string(),
                        raw(bytes, a).to_vec(),
                        attribute_value(set, a),
                    )
                })
                .collect()
        };
        let (ae, aa) = (attrs(x, expected.1), attrs(y, actual.1));
        let mut attrs_in_actual = FirstIndex::new(aa.iter().map(|(n, _, _)| n.as_str()));
        let mut attrs_in_expected = FirstIndex::new(ae.iter().map(|(n, _, _)| n.as_str()));
        for (name, v, tv) in &ae {
            match attrs_in_actual.first(name).and_then(|at| aa.get(at)) {
                None => out
                    .nodes
                    .push(format!("{label}: attribute {name} only in expected")),
                Some((_, w, tw)) if w != v => out.nodes.push(match (tv, tw) {
                    (Some(x), Some(y)) if x != y => {
                        format!("{label}: attribute {name} {x} -> {y}")
                    }
                    _ => format!("{label}: attribute {name} differs"),
                }),
                _ => {}
            }
        }
        for (name, _, _) in &aa {
            if attrs_in_expected.first(name).is_none() {
                out.nodes
                    .push(format!("{label}: attribute {name} only in actual"));
            }
        }
        out.name_comparisons = out
            .name_comparisons
            .saturating_add(attrs_in_actual.comparisons())
            .saturating_add(attrs_in_expected.comparisons());
    }
    out.name_comparisons = out
        .name_comparisons
        .saturating_add(nodes_in_actual.comparisons());
    for (j, y) in na.iter().enumerate() {
        if !matched.get(j).copied().unwrap_or(true) {
            out.nodes
                .push(format!("{}: only in actual", node_label(set, y, j)));
        }
    }
    out
}

/// What a model-shaped comparison ([`ModelDiff`]) compared: two models
/// (their initializers and nodes), or two sets of variables (TensorFlow
/// checkpoints and SavedModels: its initializers are the variables).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compared {
    Models,
    Variables,
}

/// The text report of a model-shaped comparison: the tensors' counts and
/// each one that differs or is on one side only, then (models) the nodes.
pub fn write_model_text(
    w: &mut TextLines<'_>,
    d: &ModelDiff,
    compared: Compared,
) -> io::Result<()> {
    let differing = d.initializers.len();
    match compared {
        Compared::Models => w.line(format_args!(
            "initializers: {} the same or within tolerance, {differing} differ",
            d.same_initializers
        ))?,
        Compared::Variables => w.line(format_args!(
            "variables: {} the same, {differing} differ",
            d.same_initializers
        ))?,
    }
    for (name, f) in &d.initializers {
        match f {
            InitFinding::OnlyExpected => w.line(format_args!("  {name:?}: only in expected"))?,
            InitFinding::OnlyActual => w.line(format_args!("  {name:?}: only in actual"))?,
            InitFinding::Tensor(t) => {
                w.line(format_args!("  {name:?}: {}", t.verdict.text()))?;
                write_tensor_text(w, t, "    ")?;
            }
        }
    }
    if compared == Compared::Variables {
        return Ok(());
    }
    w.line(format_args!(
        "nodes: {} in expected, {} in actual, {} difference{}",
        d.node_counts.0,
        d.node_counts.1,
        d.nodes.len(),
        if d.nodes.len() == 1 { "" } else { "s" }
    ))?;
    for n in &d.nodes {
        w.line(format_args!("  {n}"))?;
    }
    Ok(())
}

pub fn write_model_json(w: &mut JsonWriter<'_>, d: &ModelDiff) -> io::Result<()> {
    w.begin_object()?;
    w.member("same_initializers", d.same_initializers)?;
    w.key("initializers")?;
    w.begin_array()?;
    for (name, f) in &d.initializers {
        w.begin_object()?;
        w.member("name", name)?;
        match f {
            InitFinding::OnlyExpected => w.member("only_in", "expected")?,
            InitFinding::OnlyActual => w.member("only_in", "actual")?,
            InitFinding::Tensor(t) => {
                w.key("tensor")?;
                write_tensor_json(w, t)?;
            }
        }
        w.end_object()?;
    }
    w.end_array()?;
    w.key("nodes")?;
    w.begin_object()?;
    w.member("expected", d.node_counts.0)?;
    w.member("actual", d.node_counts.1)?;
    w.key("differences")?;
    w.begin_array()?;
    for n in &d.nodes {
        w.value(n)?;
    }
    w.end_array()?;
    w.end_object()?;
    w.end_object()
}

/// One finding of a comparison of messages as a JSON object: `{"path",
/// "tensor": {...}}` or `{"path", "structure": TEXT}`.
pub fn write_entry_json(w: &mut JsonWriter<'_>, e: &Entry) -> io::Result<()> {
    w.begin_object()?;
    w.member("path", &e.path)?;
    match &e.finding {
        Finding::Tensor(t) => {
            w.key("tensor")?;
            write_tensor_json(w, t)?;
        }
        Finding::Structure(s) => w.member("structure", s)?,
    }
    w.end_object()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::DecodeContext;

    #[test]
    fn tolerance_in_the_tensor_type() {
        let (r, a) = (DEFAULT_RTOL, DEFAULT_ATOL);
        assert!(close(Arith::F64, 1.001, 1.0, r, a));
        assert!(!close(Arith::F64, 1.0011, 1.0, r, a));
        assert!(close(Arith::F32, 0.0, 0.0, r, a));
        assert!(!close(Arith::F32, 2e-7, 0.0, r, a));
        // float16: atol 1e-7 rounds to the subnormal 1.19e-7.
        assert!(close(Arith::F16, 1.1920929e-7, 0.0, r, a));
        assert_eq!(
            float_pass(Arith::F32, f64::NAN, f64::NAN, r, a),
            (true, true)
        );
        assert_eq!(float_pass(Arith::F32, f64::NAN, 1.0, r, a), (false, true));
        assert_eq!(
            float_pass(Arith::F32, f64::INFINITY, f64::INFINITY, r, a),
            (true, true)
        );
        assert_eq!(
            float_pass(Arith::F32, f64::NEG_INFINITY, f64::INFINITY, r, a),
            (false, true)
        );
    }

    #[test]
    fn counts_on_both_paths() {
        let raw: Vec<u8> = [1.0f32, 2.0, f32::NAN]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let raw2: Vec<u8> = [1.0f32, 2.001, f32::NAN]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let view = |data| TensorView {
            type_name: "FLOAT".into(),
            elem: Some(Elem::F32),
            dims: Some(vec![3]),
            byte_aligned: false,
            elements: 3,
            data,
        };
        let d = compare_views(
            &view(TensorData::Raw(&raw)),
            &view(TensorData::Raw(&raw2)),
            (None, None),
            &DiffOptions::default(),
        );
        assert_eq!((d.compared, d.equal, d.mismatches), (3, 2, 0));
        assert_eq!(d.verdict, Verdict::Within);
        // FLOAT16 goes through the element iterators.
        let h: Vec<u8> = [0x3c00u16, 0x4000]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let v16 = |data| TensorView {
            type_name: "FLOAT16".into(),
            elem: Some(Elem::F16),
            dims: Some(vec![2]),
            byte_aligned: false,
            elements: 2,
            data,
        };
        let d = compare_views(
            &v16(TensorData::Raw(&h)),
            &v16(TensorData::Raw(&h)),
            (None, None),
            &DiffOptions::default(),
        );
        assert_eq!((d.compared, d.equal, d.verdict), (2, 2, Verdict::Identical));
    }

    #[test]
    fn mutated_pairs_never_panic() {
        let e: &[u8] = include_bytes!("../tests/fixtures/onnx-testdata/diff/seq_expected.pb");
        let a: &[u8] = include_bytes!("../tests/fixtures/onnx-testdata/diff/seq_actual.pb");
        let fopts = crate::formats::FormatOptions::default();
        let Ok(de) = crate::formats::detect(e, &fopts) else {
            panic!("fixture")
        };
        let crate::formats::Body::Message { message: me, .. } = &de.body else {
            panic!("fixture")
        };
        for at in 0..a.len() {
            for v in [0u8, 1, 0x7f, 0x80, 0xff] {
                let mut m = a.to_vec();
                m[at] = v;
                let Ok(d) = crate::formats::decode_as(
                    crate::formats::find(crate::formats::onnx::SEQUENCE.id).expect("format"),
                    &m,
                    &fopts,
                ) else {
                    continue;
                };
                if let crate::formats::Body::Message { message, .. } = &d.body {
                    for entry in
                        compare_messages(me, message, (None, None), &DiffOptions::default())
                    {
                        if let Finding::Tensor(t) = &entry.finding {
                            let mut sink = Vec::new();
                            write_tensor_text(&mut TextLines::new(&mut sink), t, "").expect("text");
                            write_tensor_json(&mut JsonWriter::new(&mut sink), t).expect("json");
                        }
                    }
                }
            }
        }
    }

    /// Protobuf bytes for the tests: a varint, a key, a LEN field.
    fn varint(out: &mut Vec<u8>, mut v: u64) {
        while v >= 0x80 {
            out.push((v as u8) | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }

    fn len_field(out: &mut Vec<u8>, number: u64, payload: &[u8]) {
        varint(out, number << 3 | 2);
        varint(out, payload.len() as u64);
        out.extend_from_slice(payload);
    }

    /// A MapProto of INT64 keys (in the order given) to empty tensors.
    fn int_map(keys: impl Iterator<Item = u64>) -> Vec<u8> {
        let mut m = vec![0x10, 7];
        let mut values = vec![0x10, 1];
        for k in keys {
            m.push(0x18);
            varint(&mut m, k);
            len_field(&mut values, 3, &[]);
        }
        len_field(&mut m, 5, &values);
        m
    }

    #[test]
    fn map_keys_are_matched_in_n_log_n_comparisons() {
        // Doubling the keys of two maps (the actual's in the reverse
        // order) little more than doubles the key comparisons; a search
        // of the other map per key made them quadruple.
        let comparisons = |n: u64| {
            let (x, y) = (int_map(0..n), int_map((0..n).rev()));
            let decode = |b| {
                crate::formats::decode_builtin("onnx.MapProto", b, DecodeContext::strict())
                    .unwrap_or_else(|e| panic!("{e}"))
            };
            let (mx, my) = (decode(&x), decode(&y));
            let mut entries = 0u64;
            let tally =
                compare_messages_each(&mx, &my, (None, None), &DiffOptions::default(), &mut |e| {
                    assert!(e.path.starts_with('['), "{}", e.path);
                    entries += 1;
                    Ok(())
                })
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!((tally.entries, entries), (n, n));
            tally.key_comparisons
        };
        let (small, large) = (comparisons(2_000), comparisons(4_000));
        assert!(
            small <= 2 * 2 * 2_000 * 12,
            "{small} comparisons for 2,000 keys"
        );
        assert!(large * 10 <= small * 25, "{small} then {large} comparisons");
    }

    /// A ModelProto whose graph has `n` initializers and `n` nodes of one
    /// attribute each, named in the order given.
    fn named_model(names: &[u64]) -> Vec<u8> {
        let mut graph = Vec::new();
        for k in names {
            let mut tensor = Vec::new();
            len_field(&mut tensor, 8, format!("w{k}").as_bytes());
            len_field(&mut graph, 5, &tensor);
            let mut attr = Vec::new();
            len_field(&mut attr, 1, b"alpha");
            let mut node = Vec::new();
            len_field(&mut node, 3, format!("n{k}").as_bytes());
            len_field(&mut node, 4, b"Relu");
            len_field(&mut node, 5, &attr);
            len_field(&mut graph, 1, &node);
        }
        let mut model = vec![0x08, 8];
        len_field(&mut model, 7, &graph);
        model
    }

    #[test]
    fn model_names_are_matched_in_n_log_n_comparisons() {
        let comparisons = |n: u64| {
            let names: Vec<u64> = (0..n).collect();
            let reversed: Vec<u64> = (0..n).rev().collect();
            let (x, y) = (named_model(&names), named_model(&reversed));
            let decode = |b| {
                crate::formats::decode_builtin("onnx.ModelProto", b, DecodeContext::lenient())
                    .unwrap_or_else(|e| panic!("{e}"))
            };
            let (mx, my) = (decode(&x), decode(&y));
            let d = compare_models((&mx, &x, None), (&my, &y, None), &DiffOptions::default());
            assert_eq!(d.node_counts, (n as usize, n as usize));
            assert!(d.nodes.is_empty(), "{:?}", d.nodes.first());
            assert_eq!(d.same_initializers + d.initializers.len(), n as usize);
            d.name_comparisons
        };
        let (small, large) = (comparisons(1_000), comparisons(2_000));
        assert!(
            small <= 3 * 2 * 1_000 * 11 + 4 * 1_000,
            "{small} comparisons for 1,000 names"
        );
        assert!(large * 10 <= small * 25, "{small} then {large} comparisons");
    }

    #[test]
    fn unravel_row_major() {
        assert_eq!(unravel(7, &[2, 3, 2]), vec![1, 0, 1]);
        assert_eq!(unravel(0, &[]), Vec::<u64>::new());
        assert_eq!(index_text(5, &[2, 3]), "[1, 2]");
    }
}
