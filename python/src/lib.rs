//! `pbdecode._pbdecode`: the library's facade (`pbdecode::open`/`read`,
//! `Document`, `Tensor`, `Values`) for Python. This module hands out what
//! the facade gives (facts, stored bytes as array views, values as flat
//! arrays, statistics, the renderers' text); `py_src/pbdecode/` shapes it
//! into the package's API (dtypes, shapes, `copy=` rules, containers).
//!
//! The GIL is released around every decoding, conversion and statistic;
//! a document is immutable and shared (`Arc`), so threads may use one at
//! once.

use numpy::ndarray::ArrayView1;
use numpy::{IntoPyArray, PyArray1};
use pbdecode::error::AllocError;
use pbdecode::{Document, Error, Role, Step, Storage, StoredArray, SummaryValue, Values};
use pyo3::exceptions::{PyKeyError, PyMemoryError, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};
use std::path::PathBuf;
use std::sync::Arc;

mod arrow;
mod graphs;
mod notebook;
mod records;

/// A decoded file: the facade's document, shared by every object made
/// from it.
#[pyclass(frozen, module = "pbdecode._pbdecode")]
struct Doc {
    doc: Document,
    /// The file opened (None for bytes), named when it is cut short.
    path: Option<PathBuf>,
}

/// The owner of a tensor's stored bytes: the base object of the array
/// views over them, keeping the file's map (or the side file's) alive as
/// long as a view is.
#[pyclass(frozen, weakref, module = "pbdecode._pbdecode")]
struct StoredBytes {
    bytes: StoredArray,
}

#[pymethods]
impl StoredBytes {
    fn __len__(&self) -> usize {
        self.bytes.bytes().len()
    }

    fn __repr__(&self) -> String {
        format!(
            "<pbdecode stored bytes ({} bytes)>",
            self.bytes.bytes().len()
        )
    }
}

/// The package's exception classes (`pbdecode._errors`, pure Python so
/// that they are importable and picklable like any other).
fn errors(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    py.import("pbdecode._errors")
}

/// One library error as the package's exception: a decode error as
/// `DecodeError` with the JSON error object's fields, a tensor whose
/// values cannot be read as `ValuesUnavailable`, I/O as `OSError`.
pub(crate) fn to_py(py: Python<'_>, e: Error) -> PyErr {
    let made = (|| -> PyResult<PyErr> {
        let m = errors(py)?;
        Ok(match e {
            // As numpy answers a size it cannot allocate: "array is too
            // big" past what one buffer holds, else MemoryError.
            Error::Memory(m @ AllocError::TooBig { .. }) => {
                PyValueError::new_err(format!("array is too big: {m}"))
            }
            Error::Memory(m) => PyMemoryError::new_err(m.to_string()),
            Error::Decode(d) if d.failed_check() == pbdecode::error::Check::Memory => {
                PyMemoryError::new_err(d.to_string())
            }
            Error::Decode(d) => {
                let (line, column) = d.line_column().unzip();
                let args = (
                    d.to_string(),
                    d.check(),
                    d.path_string(),
                    d.offset(),
                    d.message(),
                    None::<String>,
                    line,
                    column,
                );
                PyErr::from_value(m.getattr("DecodeError")?.call1(args)?)
            }
            Error::External(x) => {
                let args = (String::new(), x.to_string());
                PyErr::from_value(m.getattr("ValuesUnavailable")?.call1(args)?)
            }
            Error::Unavailable { tensor, reason } => {
                PyErr::from_value(m.getattr("ValuesUnavailable")?.call1((tensor, reason))?)
            }
            e @ Error::Implied { .. } => {
                let Error::Implied { tensor, .. } = &e else {
                    return Ok(PyValueError::new_err(e.to_string()));
                };
                let args = (tensor.clone(), e.to_string());
                PyErr::from_value(m.getattr("ValuesUnavailable")?.call1(args)?)
            }
            Error::NoSuchTensor(name) => PyKeyError::new_err(name),
            e @ Error::NoSuchFormat(_) => PyValueError::new_err(e.to_string()),
            e @ Error::NotComparable(_) => pyo3::exceptions::PyTypeError::new_err(e.to_string()),
            Error::Io(io) => PyErr::from(io),
            e @ Error::Output(_) => PyOSError::new_err(e.to_string()),
            e => PyValueError::new_err(e.to_string()),
        })
    })();
    made.unwrap_or_else(|err| err)
}

/// Opens a file (mapped; the format detected, or the one named as
/// `decode --as` names it; external data beside it).
#[pyfunction]
#[pyo3(signature = (path, format=None))]
fn open(py: Python<'_>, path: PathBuf, format: Option<String>) -> PyResult<Doc> {
    let faults = pbdecode::input::mapping_faults();
    let doc = py
        .detach(|| match &format {
            Some(f) => pbdecode::open_as(&path, f),
            None => pbdecode::open(&path),
        })
        .map_err(|e| to_py(py, e))?;
    let doc = Doc {
        doc,
        path: Some(path),
    };
    doc.check_whole(faults)?;
    Ok(doc)
}

/// Reads bytes (copied once into the document); external data only from
/// `base_dir`.
#[pyfunction]
#[pyo3(signature = (data, base_dir=None, format=None))]
fn read(
    py: Python<'_>,
    data: &[u8],
    base_dir: Option<PathBuf>,
    format: Option<String>,
) -> PyResult<Doc> {
    let bytes: Arc<[u8]> = Arc::from(data);
    let doc = py
        .detach(|| match (format, base_dir) {
            (Some(f), dir) => pbdecode::read_shared_as(bytes, &f, dir),
            (None, Some(dir)) => pbdecode::read_shared_in(bytes, dir),
            (None, None) => pbdecode::read_shared(bytes),
        })
        .map_err(|e| to_py(py, e))?;
    Ok(Doc { doc, path: None })
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::TensorFile => "tensor_file",
        Role::TestInput => "test_input",
        Role::TestOutput => "test_output",
        Role::Initializer => "initializer",
        Role::Constant => "constant",
        Role::Attribute => "attribute",
        Role::SequenceElement => "sequence_element",
        Role::MapValue => "map_value",
        Role::OptionalValue => "optional_value",
        Role::SparseValues => "sparse_values",
        Role::SparseIndices => "sparse_indices",
        Role::Variable => "variable",
        _ => "other",
    }
}

fn storage_name(storage: Storage) -> &'static str {
    match storage {
        Storage::Raw => "raw",
        Storage::Typed => "typed",
        Storage::External => "external",
        Storage::Implied => "implied",
        Storage::Empty => "empty",
        _ => "unavailable",
    }
}

impl Doc {
    /// Runs `f`, a read of the document, with the GIL released: its error
    /// as the package's exception, and `OSError` naming the file when the
    /// file or a side file was cut short by another program while it ran
    /// (the recovery installed at import finished the read over zeros, so
    /// what it made is not the file's).
    fn run<T: Send>(
        &self,
        py: Python<'_>,
        f: impl Send + FnOnce() -> Result<T, Error>,
    ) -> PyResult<T> {
        let faults = pbdecode::input::mapping_faults();
        let r = py.detach(f);
        self.check_whole(faults)?;
        r.map_err(|e| to_py(py, e))
    }

    /// `OSError` when the file was cut short, or a fault on a mapping was
    /// recovered since the count `faults` was taken.
    fn check_whole(&self, faults: u64) -> PyResult<()> {
        if self.doc.cut_short() || pbdecode::input::mapping_faults() != faults {
            let name = self
                .path
                .as_ref()
                .map_or_else(|| "<bytes>".to_string(), |p| p.display().to_string());
            return Err(PyOSError::new_err((
                libc_eio(),
                "truncated while it was read (another program cut the file short)",
                name,
            )));
        }
        Ok(())
    }

    fn tensor_at(&self, py: Python<'_>, i: usize) -> PyResult<pbdecode::Tensor<'_>> {
        let r = self
            .doc
            .tensors()
            .get(i)
            .ok_or_else(|| PyKeyError::new_err(i))?;
        self.doc.tensor(r).map_err(|e| to_py(py, e))
    }
}

#[pymethods]
impl Doc {
    /// (format id, message type or None, other types the bytes are).
    fn format(&self) -> (&'static str, Option<String>, Vec<String>) {
        let f = self.doc.format();
        (f.id, f.message_type.clone(), f.also.clone())
    }

    /// `"binary"`, or `"text"` for protobuf's text format.
    fn syntax(&self) -> &'static str {
        self.doc.syntax()
    }

    /// The format's summary (`--json`'s `"summary"`): key -> value, in the
    /// order the text view shows them; empty for formats without one.
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for item in &self.doc.summary().items {
            d.set_item(item.key, summary_value(py, &item.value)?)?;
        }
        Ok(d)
    }

    /// The formats detection tried before the one it found: (id, the
    /// DecodeError saying why it did not fit).
    fn passed_over<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Vec<(&'static str, Bound<'py, PyAny>)>> {
        self.doc
            .passed_over()
            .iter()
            .map(|(id, e)| {
                Ok((
                    *id,
                    to_py(py, Error::Decode(e.clone()))
                        .into_value(py)
                        .into_bound(py)
                        .into_any(),
                ))
            })
            .collect()
    }

    /// Every tensor's facts, in file order, as dicts (no value read).
    fn tensors<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for (i, r) in self.doc.tensors().iter().enumerate() {
            let d = PyDict::new(py);
            d.set_item("index", i)?;
            d.set_item("name", &r.name)?;
            d.set_item("role", role_name(r.role))?;
            let path = PyList::empty(py);
            for step in &r.path {
                match step {
                    Step::Field(f) => path.append(f)?,
                    Step::Index(k) => path.append(k)?,
                    Step::Key(k) => path.append(PyTuple::new(py, [k])?)?,
                }
            }
            d.set_item("path", path)?;
            d.set_item("path_text", r.path_text())?;
            match self.doc.tensor(r) {
                Ok(t) => {
                    d.set_item("data_type", t.data_type().map(|dt| dt.numpy_name()))?;
                    d.set_item("type_name", t.type_name())?;
                    d.set_item("dims", t.dims())?;
                    d.set_item("shape", t.shape())?;
                    d.set_item("size", t.len())?;
                    d.set_item("implied", t.implied_len())?;
                    d.set_item("storage", storage_name(t.storage()))?;
                    d.set_item("bits", t.data_type().and_then(|dt| dt.size_bits()))?;
                }
                Err(e) => d.set_item("error", to_py(py, e).value(py))?,
            }
            // ONNX external data, or the side file a format found the
            // values in (a Paddle parameter's .pdiparams).
            d.set_item("side", r.in_side_file())?;
            let ext = r.external_data().map(|x| {
                let e = PyDict::new(py);
                let _ = e.set_item("location", &x.location);
                let _ = e.set_item("offset", x.offset);
                let _ = e.set_item("length", x.length);
                let _ = e.set_item("checksum", &x.checksum);
                e
            });
            d.set_item("external", ext)?;
            list.append(d)?;
        }
        Ok(list)
    }

    /// The stored bytes of tensor `i` when they already are its array
    /// (little-endian, row-major, whole-byte elements), as a read-only
    /// uint8 view whose base owns the map; None otherwise.
    fn stored<'py>(slf: &Bound<'py, Self>, i: usize) -> PyResult<Option<Bound<'py, PyArray1<u8>>>> {
        let py = slf.py();
        if cfg!(target_endian = "big") {
            return Ok(None);
        }
        let this = slf.get();
        let stored = {
            let t = this.tensor_at(py, i)?;
            this.run(py, || Ok(t.stored_array()))?
        };
        let Some(stored) = stored else {
            return Ok(None);
        };
        let owner = Bound::new(py, StoredBytes { bytes: stored })?;
        let view = ArrayView1::from(owner.get().bytes.bytes());
        // SAFETY: the bytes belong to `owner` (a frozen object that never
        // changes them, holding the document's input or the side file's
        // map), which numpy keeps as the array's base for as long as the
        // array or any view of it lives; the array is made read-only
        // below, so nothing writes through it (the map is read-only).
        let array = unsafe { PyArray1::borrow_from_array(&view, owner.clone().into_any()) };
        array.getattr("flags")?.setattr("writeable", false)?;
        Ok(Some(array))
    }

    /// Every value of tensor `i`, flat: (kind, array or list) where kind
    /// is the element's numpy name; half floats and coded types as their
    /// bit patterns (uint16, uint8) to be viewed as their dtype; complex
    /// numbers as pairs of floats; strings as a list of bytes.
    #[pyo3(signature = (i, widen=false, allow_implied=false))]
    fn values<'py>(
        &self,
        py: Python<'py>,
        i: usize,
        widen: bool,
        allow_implied: bool,
    ) -> PyResult<(String, Bound<'py, PyAny>)> {
        let t = self.tensor_at(py, i)?;
        let mut opts = pbdecode::ValueOptions::default();
        opts.allow_implied = allow_implied;
        let values = self.run(py, || {
            t.values_with(opts)
                .map(|v| if widen { widen_values(v.widen()) } else { v })
        })?;
        flat(py, values)
    }

    /// Statistics of tensor `i` by the library's kernels, as a dict.
    fn stats<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyDict>> {
        let t = self.tensor_at(py, i)?;
        let s = self.run(py, || t.stats())?;
        let d = PyDict::new(py);
        let extreme = |x: Option<pbdecode::Extreme>| -> PyResult<Bound<'py, PyAny>> {
            use pbdecode::Extreme;
            Ok(match x {
                None => py.None().into_bound(py),
                Some(Extreme::Int(v)) => v.into_pyobject(py)?.into_any(),
                Some(Extreme::UInt(v)) => v.into_pyobject(py)?.into_any(),
                Some(Extreme::F32(v)) => f64::from(v).into_pyobject(py)?.into_any(),
                Some(Extreme::F64(v)) => v.into_pyobject(py)?.into_any(),
                // A kind added later: its value as a float.
                Some(other) => other.as_f64().into_pyobject(py)?.into_any(),
            })
        };
        d.set_item("count", s.count)?;
        d.set_item("min", extreme(s.min)?)?;
        d.set_item("max", extreme(s.max)?)?;
        d.set_item("mean", s.mean())?;
        d.set_item("std", s.std())?;
        d.set_item("finite", s.finite)?;
        d.set_item("nan", s.nan)?;
        d.set_item("pos_inf", s.pos_inf)?;
        d.set_item("neg_inf", s.neg_inf)?;
        d.set_item("zeros", s.zeros)?;
        if s.magnitude {
            // As the JSON contract says it: complex statistics are of |z|.
            d.set_item("of", "magnitude")?;
        }
        Ok(d)
    }

    /// Writes tensor `i` as a .npy file (the library's output writer).
    fn write_npy(&self, py: Python<'_>, i: usize, path: PathBuf) -> PyResult<()> {
        let t = self.tensor_at(py, i)?;
        self.run(py, || t.write_npy(&path))?;
        Ok(())
    }

    /// What `decode --json` prints, byte for byte.
    #[pyo3(signature = (values=None, stats=false, allow_implied=false, dense=false))]
    fn json<'py>(
        &self,
        py: Python<'py>,
        values: Option<u64>,
        stats: bool,
        allow_implied: bool,
        dense: bool,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let mut opts = pbdecode::JsonOptions::default();
        (opts.values, opts.stats) = (values, stats);
        (opts.allow_implied, opts.dense) = (allow_implied, dense);
        let mut out = Vec::new();
        self.run(py, || self.doc.write_json(&mut out, &opts))?;
        Ok(PyBytes::new(py, &out))
    }

    /// What `decode` prints, byte for byte (colour off).
    #[pyo3(signature = (values=None, offsets=false, histogram=false, stats=false, allow_implied=false, dense=false))]
    #[allow(clippy::too_many_arguments)]
    fn text<'py>(
        &self,
        py: Python<'py>,
        values: Option<u64>,
        offsets: bool,
        histogram: bool,
        stats: bool,
        allow_implied: bool,
        dense: bool,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let mut opts = pbdecode::TextOptions::default();
        (opts.values, opts.offsets, opts.histogram) = (values, offsets, histogram);
        (opts.stats, opts.allow_implied, opts.dense) = (stats, allow_implied, dense);
        let mut out = Vec::new();
        self.run(py, || self.doc.write_text(&mut out, &opts))?;
        Ok(PyBytes::new(py, &out))
    }

    /// Compares this document's ONNX value with `actual`'s as `decode diff`
    /// does: (passed, entries, differing, the command's report, the JSON).
    fn diff<'py>(
        &self,
        py: Python<'py>,
        actual: &Doc,
        rtol: f64,
        atol: f64,
    ) -> PyResult<DiffOutcome<'py>> {
        if !(rtol >= 0.0 && atol >= 0.0) {
            return Err(PyValueError::new_err("rtol and atol must be numbers >= 0"));
        }
        let mut opts = pbdecode::DiffOptions::default();
        (opts.rtol, opts.atol) = (rtol, atol);
        let (d, text, json) = self.run(py, || -> Result<_, Error> {
            let d = self.doc.diff(&actual.doc, &opts)?;
            let (mut text, mut json) = (Vec::new(), Vec::new());
            d.write_text(&mut text)?;
            d.write_json(&mut json)?;
            Ok((d, text, json))
        })?;
        Ok((
            d.passes(),
            d.entries.len(),
            d.differing(),
            PyBytes::new(py, &text),
            PyBytes::new(py, &json),
        ))
    }

    /// Raises `OSError` when the file was cut short by another program
    /// since it was opened (for a read numpy made of a view, such as a
    /// copy).
    fn check_whole_file(&self) -> PyResult<()> {
        self.check_whole(pbdecode::input::mapping_faults())
    }

    /// The input's length in bytes.
    fn __len__(&self) -> usize {
        self.doc.bytes().len()
    }
}

/// (passed, entries, differing, the report, the JSON) of a comparison.
type DiffOutcome<'py> = (bool, usize, usize, Bound<'py, PyBytes>, Bound<'py, PyBytes>);

/// `--npy`'s types: bfloat16 also to float32 (the coded types were widened
/// by `Values::widen`).
fn widen_values(v: Values<'_>) -> Values<'_> {
    match v {
        Values::BF16(x) => Values::F32(x.into_iter().map(f32::from).collect()),
        other => other,
    }
}

/// Values as (numpy name, flat array or list of bytes).
fn flat<'py>(py: Python<'py>, values: Values<'_>) -> PyResult<(String, Bound<'py, PyAny>)> {
    fn arr<'py, T: numpy::Element>(
        py: Python<'py>,
        name: &str,
        v: Vec<T>,
    ) -> PyResult<(String, Bound<'py, PyAny>)> {
        Ok((name.to_string(), v.into_pyarray(py).into_any()))
    }
    match values {
        Values::Bool(v) => arr(py, "bool", v),
        Values::I8(v) => arr(py, "int8", v),
        Values::I16(v) => arr(py, "int16", v),
        Values::I32(v) => arr(py, "int32", v),
        Values::I64(v) => arr(py, "int64", v),
        Values::U8(v) => arr(py, "uint8", v),
        Values::U16(v) => arr(py, "uint16", v),
        Values::U32(v) => arr(py, "uint32", v),
        Values::U64(v) => arr(py, "uint64", v),
        Values::F16(v) => arr(py, "float16", v.into_iter().map(|x| x.to_bits()).collect()),
        Values::BF16(v) => arr(py, "bfloat16", v.into_iter().map(|x| x.to_bits()).collect()),
        Values::F32(v) => arr(py, "float32", v),
        Values::F64(v) => arr(py, "float64", v),
        // Mapped element for element into a type of the same layout, so
        // the buffer is reused rather than copied.
        Values::C64(v) => arr(
            py,
            "complex64",
            v.into_iter()
                .map(|[re, im]| numpy::Complex32::new(re, im))
                .collect(),
        ),
        Values::C128(v) => arr(
            py,
            "complex128",
            v.into_iter()
                .map(|[re, im]| numpy::Complex64::new(re, im))
                .collect(),
        ),
        Values::Str(v) => {
            let list = PyList::empty(py);
            for s in v {
                match std::str::from_utf8(&s) {
                    Ok(text) => list.append(PyString::new(py, text))?,
                    Err(_) => list.append(PyBytes::new(py, &s))?,
                }
            }
            Ok(("object".to_string(), list.into_any()))
        }
        Values::Codes(dt, v) => arr(py, dt.numpy_name(), v),
        _ => Err(PyValueError::new_err(
            "values of a kind this package does not know",
        )),
    }
}

/// EIO: what a read of a file cut short under it is.
fn libc_eio() -> i32 {
    5
}

#[pymodule]
fn _pbdecode(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // A file truncated by another program while it is mapped (a model
    // re-exported while a notebook has it open) would raise SIGBUS and
    // end the interpreter: the library's recovery finishes such a read
    // over zeros instead, and each read above raises OSError for it;
    // arrays handed out before read zeros there.
    pbdecode::recover_from_mapping_faults()?;
    m.add_class::<Doc>()?;
    m.add_class::<StoredBytes>()?;
    m.add_function(wrap_pyfunction!(open, m)?)?;
    m.add_function(wrap_pyfunction!(read, m)?)?;
    m.add_class::<records::Table>()?;
    m.add_function(wrap_pyfunction!(records::example_table, m)?)?;
    m.add_class::<records::Events>()?;
    m.add_function(wrap_pyfunction!(records::event_table, m)?)?;
    m.add_function(wrap_pyfunction!(records::looks_like, m)?)?;
    m.add_function(wrap_pyfunction!(graphs::graphs, m)?)?;
    m.add_function(wrap_pyfunction!(notebook::picture, m)?)?;
    Ok(())
}

/// A summary value as Python data: numbers as `int`, text as `str` (`bytes`
/// when not UTF-8), lists as `list`, named parts as `dict`.
fn summary_value<'py>(py: Python<'py>, v: &SummaryValue) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        SummaryValue::Int(n) => n.into_pyobject(py)?.into_any(),
        SummaryValue::Count(n) => n.into_pyobject(py)?.into_any(),
        SummaryValue::Text(b) => match std::str::from_utf8(b) {
            Ok(t) => PyString::new(py, t).into_any(),
            Err(_) => PyBytes::new(py, b).into_any(),
        },
        SummaryValue::List(items) => {
            let list = PyList::empty(py);
            for x in items {
                list.append(summary_value(py, x)?)?;
            }
            list.into_any()
        }
        SummaryValue::Fields(parts) => {
            let d = PyDict::new(py);
            for (k, x) in parts {
                d.set_item(*k, summary_value(py, x)?)?;
            }
            d.into_any()
        }
        // A kind added later: its text, when it has one.
        other => match other.text() {
            Some(t) => PyString::new(py, &t).into_any(),
            None => py.None().into_bound(py),
        },
    })
}
