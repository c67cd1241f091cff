//! Export to NumPy's .npy format (version 1.0), streamed to any writer, and
//! which of a file's tensors (named by [`crate::formats::named_tensors`])
//! `--npy-dir` writes.
//!
//! Data types: the exact NumPy dtype where there is one (every integer
//! width, bool, float16/32/64, complex64/128); float32 for bfloat16 and the
//! float8, float6 and float4 families; int8/uint8 for the 4-bit and 2-bit
//! integers; a unicode array (`<U` of the longest string, UTF-32LE) for
//! strings, invalid UTF-8 replaced by U+FFFD. A widened type comes back as a
//! note for the caller to show. Shape from the dims, row-major order.

use crate::external::Folder;
use crate::input::InputBytes;
use crate::tensor::{Elem, Element, LoadedValues, TensorView, for_each_run, load_values};
use half::f16;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::fs::File;
use std::io::{self, Write};

/// The largest string array written (bytes of data): every string takes
/// the room of the longest, so a few long strings among many short ones
/// could otherwise make a file far larger than the input.
pub const MAX_STRING_ARRAY_BYTES: u64 = 1 << 32;

/// What was written.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NpyInfo {
    /// NumPy's type string, e.g. "<f4".
    pub descr: String,
    /// The array's shape.
    pub shape: Vec<u64>,
    /// Set when the values were widened to a type NumPy has (bfloat16 to
    /// float32, int4 to int8): says so, naming the original type.
    pub note: Option<String>,
}

#[non_exhaustive]
#[derive(Debug)]
pub enum NpyError {
    /// The shape is unknown, negative or does not match the values.
    Shape(String),
    /// The values cannot be read.
    Unavailable(String),
    /// The file would be larger than a limit (strings padded to the
    /// longest, values implied by TensorFlow's padding rule).
    TooLarge(String),
    /// Writing failed.
    Io(io::Error),
}

impl fmt::Display for NpyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NpyError::Shape(why) => write!(f, "cannot write .npy: {why}"),
            NpyError::Unavailable(why) => write!(f, "values not available: {why}"),
            NpyError::TooLarge(why) => write!(f, "cannot write .npy: {why}"),
            NpyError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for NpyError {}

impl From<io::Error> for NpyError {
    fn from(e: io::Error) -> Self {
        NpyError::Io(e)
    }
}

/// NumPy's type string for an element type (strings are sized apart), and
/// whether the values are widened to it.
pub fn descr(elem: Elem) -> (&'static str, bool) {
    use Elem::*;
    match elem {
        F32 => ("<f4", false),
        F64 => ("<f8", false),
        F16 => ("<f2", false),
        BF16 | F8E4M3FN | F8E4M3FNUZ | F8E5M2 | F8E5M2FNUZ | F8E4M3B11FNUZ | F8E8M0 | F4E2M1
        | F6E2M3 | F6E3M2 => ("<f4", true),
        I8 => ("|i1", false),
        I16 => ("<i2", false),
        I32 => ("<i4", false),
        I64 => ("<i8", false),
        U8 => ("|u1", false),
        U16 => ("<u2", false),
        U32 => ("<u4", false),
        U64 => ("<u8", false),
        I4 | I2 => ("|i1", true),
        U4 | U2 => ("|u1", true),
        Bool => ("|b1", false),
        C64 => ("<c8", false),
        C128 => ("<c16", false),
        Str => ("<U", false),
    }
}

/// The .npy v1.0 header: magic, version, length, and the dict padded with
/// spaces and a newline so the data starts at a multiple of 64 bytes.
pub fn header(descr: &str, shape: &[u64]) -> Result<Vec<u8>, NpyError> {
    let dims: Vec<String> = shape.iter().map(u64::to_string).collect();
    let shape_text = match dims.as_slice() {
        [one] => format!("({one},)"),
        _ => format!("({})", dims.join(", ")),
    };
    let mut dict =
        format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_text}, }}");
    let unpadded = 10 + dict.len() + 1;
    dict.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    dict.push('\n');
    let len = u16::try_from(dict.len()).map_err(|_| {
        NpyError::TooLarge(format!("a header for {} dims is too long", shape.len()))
    })?;
    let mut out = Vec::with_capacity(10 + dict.len());
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    Ok(out)
}

/// The shape, checked against the values the tensor holds.
fn shape(view: &TensorView<'_, '_>) -> Result<Vec<u64>, NpyError> {
    let dims = view
        .dims
        .as_deref()
        .ok_or_else(|| NpyError::Shape("the rank is unknown".into()))?;
    let shape: Vec<u64> = dims
        .iter()
        .map(|&d| {
            u64::try_from(d).map_err(|_| NpyError::Shape(format!("dimension {d} in {dims:?}")))
        })
        .collect::<Result<_, _>>()?;
    let want = crate::tensor::element_count(&shape)
        .ok_or_else(|| NpyError::Shape(format!("{dims:?} overflows")))?;
    if view.elements != want {
        return Err(NpyError::Unavailable(format!(
            "the tensor holds {} of its {want} values",
            view.elements
        )));
    }
    Ok(shape)
}

fn loaded<'v>(
    view: &TensorView<'v, 'v>,
    dir: Option<&Folder>,
) -> Result<LoadedValues<'v>, NpyError> {
    match load_values(view, dir) {
        LoadedValues::Unavailable(why) => Err(NpyError::Unavailable(why)),
        l => Ok(l),
    }
}

/// Writes `bytes` `count` times, through a buffer of copies.
fn write_repeated(w: &mut dyn Write, bytes: &[u8], count: u64) -> io::Result<()> {
    if bytes.is_empty() {
        return Ok(());
    }
    let per_block = ((64 << 10) / bytes.len()).max(1) as u64;
    let block: Vec<u8> = bytes.repeat(per_block.min(count) as usize);
    let mut left = count;
    while left > 0 {
        let k = left.min(per_block);
        let len = (k as usize).saturating_mul(bytes.len());
        w.write_all(block.get(..len).unwrap_or(&block))?;
        left -= k;
    }
    Ok(())
}

/// Writes one element in the layout of `descr` (`width` chars for strings).
fn element(w: &mut dyn Write, elem: Elem, e: Element<'_>, width: u64) -> io::Result<()> {
    use Elem::*;
    match (elem, e) {
        (Str, Element::Str(s)) => {
            let text = String::from_utf8_lossy(s);
            let mut n = 0u64;
            for c in text.chars().take(width as usize) {
                w.write_all(&u32::from(c).to_le_bytes())?;
                n += 1;
            }
            for _ in n..width {
                w.write_all(&[0; 4])?;
            }
            Ok(())
        }
        (F16, Element::F32(v)) => w.write_all(&f16::from_f32(v).to_bits().to_le_bytes()),
        (_, Element::F32(v)) => w.write_all(&v.to_le_bytes()),
        (_, Element::F64(v)) => w.write_all(&v.to_le_bytes()),
        (I8 | I4 | I2, Element::I64(v)) => w.write_all(&(v as i8).to_le_bytes()),
        (I16, Element::I64(v)) => w.write_all(&(v as i16).to_le_bytes()),
        (I32, Element::I64(v)) => w.write_all(&(v as i32).to_le_bytes()),
        (_, Element::I64(v)) => w.write_all(&v.to_le_bytes()),
        (U8 | U4 | U2, Element::U64(v)) => w.write_all(&(v as u8).to_le_bytes()),
        (U16, Element::U64(v)) => w.write_all(&(v as u16).to_le_bytes()),
        (U32, Element::U64(v)) => w.write_all(&(v as u32).to_le_bytes()),
        (_, Element::U64(v)) => w.write_all(&v.to_le_bytes()),
        (_, Element::Bool(b)) => w.write_all(&[u8::from(b)]),
        (_, Element::C64(re, im)) => {
            w.write_all(&re.to_le_bytes())?;
            w.write_all(&im.to_le_bytes())
        }
        (_, Element::C128(re, im)) => {
            w.write_all(&re.to_le_bytes())?;
            w.write_all(&im.to_le_bytes())
        }
        // Never reached: each element type decodes to one kind of element.
        (_, Element::Str(_)) => Ok(()),
    }
}

/// Choices of an export.
#[derive(Default)]
pub struct NpyOptions<'p> {
    /// Export a tensor with more than [`crate::tensor::MAX_IMPLIED_VALUES`]
    /// values implied by TensorFlow's padding rule (`--allow-implied`).
    pub allow_implied: bool,
    /// Told of the progress of a big export.
    pub progress: Option<&'p dyn crate::progress::Progress>,
}

/// Writes a tensor as .npy into `w` (external data read from `dir`). The
/// values are streamed; strings take a first pass for their longest length.
pub fn write_npy<W: Write>(
    view: &TensorView<'_, '_>,
    dir: Option<&Folder>,
    w: W,
) -> Result<NpyInfo, NpyError> {
    write_npy_with(view, dir, w, &NpyOptions::default())
}

/// The element types whose little-endian raw storage is byte for byte the
/// .npy body.
fn raw_is_body(elem: Elem) -> bool {
    use Elem::*;
    cfg!(target_endian = "little")
        && matches!(
            elem,
            F32 | F64 | F16 | I8 | I16 | I32 | I64 | U8 | U16 | U32 | U64 | C64 | C128
        )
}

/// The element type and shape of a tensor that can be written as .npy,
/// every limit checked.
fn checked(view: &TensorView<'_, '_>, opts: &NpyOptions<'_>) -> Result<(Elem, Vec<u64>), NpyError> {
    let elem = view.elem.ok_or_else(|| {
        NpyError::Unavailable(format!("data type {} cannot be decoded", view.type_name))
    })?;
    let shape = shape(view)?;
    let implied = view.implied_elements();
    let bytes = crate::tensor::raw_size(elem, view.elements).unwrap_or(u64::MAX);
    if implied > 0 && bytes > crate::tensor::MAX_IMPLIED_NPY_BYTES && !opts.allow_implied {
        return Err(NpyError::TooLarge(format!(
            "{implied} of its {} values are implied by TensorFlow's padding rule (not stored), \
             and the file would hold {bytes} bytes of values; over {} bytes it is written \
             only with --allow-implied",
            view.elements,
            crate::tensor::MAX_IMPLIED_NPY_BYTES
        )));
    }
    Ok((elem, shape))
}

/// A tensor whose stored bytes already are the .npy body (raw_data or
/// external data of a fixed-width little-endian type): the header, and
/// the values borrowed from the mapped input or side file.
pub struct RawNpy<'v> {
    pub header: Vec<u8>,
    pub info: NpyInfo,
    values: LoadedValues<'v>,
    len: usize,
}

impl RawNpy<'_> {
    /// The .npy body: the stored bytes.
    pub fn body(&self) -> &[u8] {
        stored(&self.values, self.len).unwrap_or(&[])
    }

    /// The open file the body is a range of, and its offset there: the
    /// side file for external data, else `input` (the mapped file the
    /// tensor was read from). None when the bytes were not mapped.
    pub fn file_range<'s>(&'s self, input: &'s InputBytes) -> Option<(&'s File, u64)> {
        let body = self.body();
        match &self.values {
            LoadedValues::External(bytes, ..) => bytes.file_range(body),
            _ => input.file_range(body),
        }
    }
}

/// The first `len` stored bytes of loaded values: raw_data or external
/// data (None for values held in typed fields, or fewer bytes).
fn stored<'s>(values: &'s LoadedValues<'_>, len: usize) -> Option<&'s [u8]> {
    match values {
        LoadedValues::Ready(it, _) => it.raw_parts().and_then(|(b, _, _)| b.get(..len)),
        LoadedValues::External(bytes, ..) => bytes.bytes().get(..len),
        _ => None,
    }
}

/// The tensor as header plus stored bytes, when those bytes already are
/// the .npy body (None: its values need converting; see
/// [`write_npy_with`]). Checks every limit first.
pub fn raw_npy<'v>(
    view: &TensorView<'v, 'v>,
    dir: Option<&Folder>,
    opts: &NpyOptions<'_>,
) -> Result<Option<RawNpy<'v>>, NpyError> {
    let (elem, shape) = checked(view, opts)?;
    let Some(len) = raw_is_body(elem)
        .then(|| crate::tensor::raw_size(elem, view.elements))
        .flatten()
        .and_then(|b| usize::try_from(b).ok())
    else {
        return Ok(None);
    };
    let values = loaded(view, dir)?;
    if stored(&values, len).is_none() {
        return Ok(None);
    }
    let descr = descr(elem).0.to_string();
    Ok(Some(RawNpy {
        header: header(&descr, &shape)?,
        info: NpyInfo {
            descr,
            shape,
            note: None,
        },
        values,
        len,
    }))
}

/// [`write_npy`] with options. Checks every limit before writing anything.
pub fn write_npy_with<'v, W: Write>(
    view: &TensorView<'v, 'v>,
    dir: Option<&Folder>,
    mut w: W,
    opts: &NpyOptions<'_>,
) -> Result<NpyInfo, NpyError> {
    if let Some(raw) = raw_npy(view, dir, opts)? {
        w.write_all(&raw.header)?;
        crate::output::write_pieces(&mut w, "writing .npy", raw.body(), opts.progress)?;
        w.flush()?;
        return Ok(raw.info);
    }
    write_npy_converted(view, dir, w, opts)
}

/// [`write_npy_with`] for a tensor [`raw_npy`] turned down: every value
/// converted to NumPy's layout.
pub fn write_npy_converted<W: Write>(
    view: &TensorView<'_, '_>,
    dir: Option<&Folder>,
    mut w: W,
    opts: &NpyOptions<'_>,
) -> Result<NpyInfo, NpyError> {
    let (elem, shape) = checked(view, opts)?;
    let (base, widened) = descr(elem);
    let mut width = 0u64;
    if elem == Elem::Str {
        let mut l = loaded(view, dir)?;
        let _ = for_each_run(&mut l, |e, _| -> Result<(), ()> {
            if let Element::Str(s) = e {
                width = width.max(String::from_utf8_lossy(s).chars().count() as u64);
            }
            Ok(())
        });
        // NumPy has no zero-width unicode type.
        width = width.max(1);
        let bytes = view
            .elements
            .checked_mul(width)
            .and_then(|b| b.checked_mul(4));
        if bytes.is_none_or(|b| b > MAX_STRING_ARRAY_BYTES) {
            return Err(NpyError::TooLarge(format!(
                "{} strings of up to {width} characters exceed {MAX_STRING_ARRAY_BYTES} bytes",
                view.elements
            )));
        }
    }
    let descr = if elem == Elem::Str {
        format!("{base}{width}")
    } else {
        base.to_string()
    };
    let mut l = loaded(view, dir)?;
    w.write_all(&header(&descr, &shape)?)?;
    let mut written = 0u64;
    let mut one = Vec::new();
    for_each_run(&mut l, |e, count| -> io::Result<()> {
        written = written.saturating_add(count);
        if count == 1 {
            return element(&mut w, elem, e, width);
        }
        // A run (values implied by padding): its bytes once, then written
        // in blocks of copies.
        one.clear();
        element(&mut one, elem, e, width)?;
        write_repeated(&mut w, &one, count)
    })?;
    w.flush()?;
    if written != view.elements {
        return Err(NpyError::Unavailable(format!(
            "only {written} of {} values could be read",
            view.elements
        )));
    }
    let note = widened.then(|| {
        format!(
            "{} values written as {} (NumPy has no {} type)",
            view.type_name,
            if base == "<f4" {
                "float32"
            } else if base == "|i1" {
                "int8"
            } else {
                "uint8"
            },
            view.type_name
        )
    });
    Ok(NpyInfo { descr, shape, note })
}

/// The .npy bytes of a tensor.
pub fn npy_bytes(
    view: &TensorView<'_, '_>,
    dir: Option<&Folder>,
) -> Result<(Vec<u8>, NpyInfo), NpyError> {
    let mut out = Vec::new();
    let info = write_npy(view, dir, &mut out)?;
    Ok((out, info))
}

/// File names for the tensors of one export folder. Each stays inside the
/// folder: every character but ASCII letters, digits, `-`, `_` and `.`
/// becomes `_`, no leading dot, at most 120 characters, made unique with a
/// `_2`, `_3` ... suffix, and `.npy` added.
///
/// Names compare case-insensitively (some file systems do). Each base
/// remembers the next suffix to try, so a name repeated n times costs n
/// candidates, not n^2 / 2: a candidate tried and found taken is never
/// tried again for that base.
#[derive(Debug, Default)]
pub struct FileNames {
    /// Names given so far, lower-cased.
    used: HashSet<String>,
    /// Per base (lower-cased): the next suffix to try.
    next_suffix: HashMap<String, u64>,
    candidates: u64,
}

impl FileNames {
    pub fn new() -> FileNames {
        FileNames::default()
    }

    /// The file name for the next tensor called `tensor`.
    pub fn name_for(&mut self, tensor: &str) -> String {
        let mut base: String = tensor
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                    c
                } else {
                    '_'
                }
            })
            .take(120)
            .collect();
        if base.is_empty() || base.starts_with('.') {
            base.insert(0, '_');
        }
        let key = base.to_ascii_lowercase();
        let mut name = format!("{base}.npy");
        self.candidates = self.candidates.saturating_add(1);
        if self.used.contains(&name.to_ascii_lowercase()) {
            let next = self.next_suffix.entry(key).or_insert(2);
            loop {
                name = format!("{base}_{next}.npy");
                *next = next.saturating_add(1);
                self.candidates = self.candidates.saturating_add(1);
                if !self.used.contains(&name.to_ascii_lowercase()) {
                    break;
                }
            }
        }
        self.used.insert(name.to_ascii_lowercase());
        name
    }

    /// How many candidate names have been tried in all: the work done,
    /// for tests that check it grows linearly with the number of names.
    pub fn candidates_tried(&self) -> u64 {
        self.candidates
    }
}

/// The tensors `--npy-dir` writes: the weights (initializers, Const
/// values: `weight` says which); in a file that has none, every tensor.
pub fn export_set<T>(tensors: Vec<T>, weight: impl Fn(&T) -> bool) -> Vec<T> {
    if tensors.iter().any(&weight) {
        tensors.into_iter().filter(|t| weight(t)).collect()
    } else {
        tensors
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_is_aligned() {
        for shape in [vec![], vec![3], vec![3, 4, 5]] {
            let h = header("<f4", &shape).unwrap_or_default();
            assert_eq!(h.len() % 64, 0);
            assert_eq!(h.last(), Some(&b'\n'));
        }
        let h = header("<f4", &[3]).unwrap_or_default();
        let text = String::from_utf8_lossy(&h[10..]);
        assert!(text.starts_with("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }"));
    }

    #[test]
    fn safe_names() {
        let mut names = FileNames::new();
        assert_eq!(names.name_for("../../etc/passwd"), "_.._.._etc_passwd.npy");
        assert_eq!(names.name_for(""), "_.npy");
        assert_eq!(names.name_for("conv1.weight"), "conv1.weight.npy");
        assert_eq!(names.name_for("conv1/weight"), "conv1_weight.npy");
        assert_eq!(names.name_for("conv1:weight"), "conv1_weight_2.npy");
        assert_eq!(names.name_for(".."), "_...npy");
        // A tensor whose own name is a suffixed one, then its base again,
        // and names that differ only in case.
        assert_eq!(names.name_for("conv1_weight_3"), "conv1_weight_3.npy");
        assert_eq!(names.name_for("conv1_weight"), "conv1_weight_4.npy");
        assert_eq!(names.name_for("Conv1_Weight"), "Conv1_Weight_5.npy");
    }

    #[test]
    fn repeated_names_cost_linear_candidates() {
        // Doubling the number of tensors of one name doubles the candidates
        // tried (retrying _2, _3 ... from 2 each time made it quadruple).
        let tried = |n: u64| {
            let mut names = FileNames::new();
            for _ in 0..n {
                names.name_for("w");
            }
            names.candidates_tried()
        };
        let (small, large) = (tried(2_000), tried(4_000));
        assert!(small <= 2 * 2_000, "{small} candidates for 2,000 names");
        assert!(large <= 2 * small + 2, "{small} then {large} candidates");
    }
}
