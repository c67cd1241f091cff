//! Record files as tables (`pbdecode.records`): the library's one pass over
//! a TFRecord's Examples into columns, with the GIL released, handed to
//! Python as numpy views of the column buffers and to Arrow through the C
//! data interface (`arrow.rs`); both keep the table alive.

use crate::arrow;
use numpy::PyArray1;
use numpy::ndarray::ArrayView1;
use pbdecode::{ColumnValues, Error, ExampleTable};
use pyo3::exceptions::{PyIndexError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyTuple};
use std::path::PathBuf;
use std::sync::Arc;

/// A record file's Examples as columns (immutable, shared by the arrays
/// made from it).
#[pyclass(frozen, module = "pbdecode._pbdecode")]
pub struct Table {
    table: Arc<ExampleTable>,
}

/// Reads a record file (a path, or bytes) as a table of its Examples.
#[pyfunction]
pub fn example_table(py: Python<'_>, source: &Bound<'_, PyAny>) -> PyResult<Table> {
    let table = if let Ok(bytes) = source.extract::<&[u8]>() {
        let bytes: Vec<u8> = bytes.to_vec();
        py.detach(|| pbdecode::example_table_of(&bytes))
    } else {
        let path: PathBuf = source.extract()?;
        py.detach(|| pbdecode::example_table(&path))
    };
    let table = table.map_err(|e| crate::to_py(py, e))?;
    Ok(Table {
        table: Arc::new(table),
    })
}

/// A read-only numpy view of `data`, owned by `owner`.
fn view<'py, T: numpy::Element, O>(
    owner: &Bound<'py, O>,
    data: &[T],
) -> PyResult<Bound<'py, PyArray1<T>>> {
    let v = ArrayView1::from(data);
    // SAFETY: `data` is a buffer that `owner` (a records table or an
    // events frame) holds in an `Arc` and never changes; numpy keeps
    // `owner` as the array's base for as long as the array or a view of it
    // lives, and the array is made read-only, so nothing writes through it.
    let a = unsafe { PyArray1::borrow_from_array(&v, owner.clone().into_any()) };
    a.getattr("flags")?.setattr("writeable", false)?;
    Ok(a)
}

#[pymethods]
impl Table {
    /// The records (rows).
    #[getter]
    fn rows(&self) -> u64 {
        self.table.rows
    }

    /// The file's compression: "none", "gzip" or "zlib".
    #[getter]
    fn compression(&self) -> &'static str {
        self.table.compression
    }

    /// The cut that ended the file after its last whole record, as a
    /// DecodeError, or None.
    #[getter]
    fn fault<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyAny>> {
        self.table.fault.as_ref().map(|e| {
            crate::to_py(py, Error::Decode(e.clone()))
                .into_value(py)
                .into_bound(py)
                .into_any()
        })
    }

    /// Each column's (name, is a feature list, kind: "int64", "float",
    /// "bytes" or None while no record gave it values).
    fn columns(&self) -> Vec<(String, bool, Option<&'static str>)> {
        self.table
            .columns
            .iter()
            .map(|c| (c.name.clone(), c.list, c.values.kind().map(|k| k.name())))
            .collect()
    }

    /// Column `i`'s buffers as read-only arrays: (validity bits, LSB first,
    /// uint8; offsets, int64, one more than the rows; a list's step
    /// offsets or None; values: int64, float32 or the bytes' data as
    /// uint8, or None; the bytes' offsets, int64, or None).
    #[allow(clippy::type_complexity)]
    fn buffers<'py>(slf: &Bound<'py, Self>, i: usize) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let this = slf.get();
        let c = this
            .table
            .columns
            .get(i)
            .ok_or_else(|| PyIndexError::new_err(i))?;
        let validity = view(slf, &c.validity.bits)?.into_any();
        let offsets = view(slf, &c.offsets)?.into_any();
        let steps = if c.list {
            view(slf, &c.steps)?.into_any()
        } else {
            py.None().into_bound(py)
        };
        let none = || py.None().into_bound(py);
        let (values, value_offsets) = match &c.values {
            ColumnValues::Int64(v) => (view(slf, v)?.into_any(), none()),
            ColumnValues::Float(v) => (view(slf, v)?.into_any(), none()),
            ColumnValues::Bytes { offsets, data } => {
                (view(slf, data)?.into_any(), view(slf, offsets)?.into_any())
            }
            _ => (none(), none()),
        };
        PyTuple::new(py, [validity, offsets, steps, values, value_offsets])
    }

    /// The Arrow PyCapsule protocol: the schema (a struct of one field per
    /// feature).
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        PyCapsule::new_with_value_and_destructor(
            py,
            arrow::table_schema(&self.table),
            c"arrow_schema",
            |s, _| drop(s),
        )
    }

    /// The Arrow PyCapsule protocol: (schema, struct array) of every
    /// record, the buffers shared, not copied.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
        if requested_schema.is_some_and(|s| !s.is_none()) {
            return Err(PyTypeError::new_err(
                "a record table is given in its own schema only",
            ));
        }
        let schema = self.__arrow_c_schema__(py)?;
        let array = PyCapsule::new_with_value_and_destructor(
            py,
            arrow::table_array(&self.table),
            c"arrow_array",
            |a, _| drop(a),
        )?;
        Ok((schema, array))
    }

    fn __len__(&self) -> usize {
        usize::try_from(self.table.rows).unwrap_or(usize::MAX)
    }
}

/// An event file's summaries (immutable, shared by the arrays made from
/// it).
#[pyclass(frozen, module = "pbdecode._pbdecode")]
pub struct Events {
    table: pbdecode::EventTable,
}

/// Reads an event file (a path, or bytes) as its summaries.
#[pyfunction]
pub fn event_table(py: Python<'_>, source: &Bound<'_, PyAny>) -> PyResult<Events> {
    let table = if let Ok(bytes) = source.extract::<&[u8]>() {
        let bytes: Vec<u8> = bytes.to_vec();
        py.detach(|| pbdecode::event_table_of(&bytes))
    } else {
        let path: PathBuf = source.extract()?;
        py.detach(|| pbdecode::event_table(&path))
    };
    let table = table.map_err(|e| crate::to_py(py, e))?;
    Ok(Events { table })
}

#[pymethods]
impl Events {
    /// Every tag, in order of first appearance.
    fn tags(&self) -> Vec<String> {
        self.table.tags.clone()
    }

    /// Each tag's plugin ("" for TF 1 summaries).
    fn plugins(&self) -> Vec<String> {
        self.table.plugins.clone()
    }

    /// The scalars as read-only arrays: (step int64, wall_time float64,
    /// tag index uint32, value float32).
    fn scalars<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let s = &slf.get().table.scalars;
        PyTuple::new(
            slf.py(),
            [
                view(slf, &s.step)?.into_any(),
                view(slf, &s.wall_time)?.into_any(),
                view(slf, &s.tag)?.into_any(),
                view(slf, &s.value)?.into_any(),
            ],
        )
    }

    /// The other summary values, in file order: (kind, step, wall_time,
    /// tag index, value) with kind "histogram" (value: (limits, counts) as
    /// float64 arrays), "image" (the encoded picture's bytes), "text"
    /// (bytes) or "tensor" (the TensorProto's bytes).
    fn rows<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyTuple>>> {
        use numpy::IntoPyArray;
        use pbdecode::EventValue;
        use pyo3::types::PyBytes;
        self.table
            .rows
            .iter()
            .map(|r| {
                let (kind, value) = match &r.value {
                    EventValue::Histogram { limits, counts } => (
                        "histogram",
                        PyTuple::new(
                            py,
                            [
                                limits.clone().into_pyarray(py).into_any(),
                                counts.clone().into_pyarray(py).into_any(),
                            ],
                        )?
                        .into_any(),
                    ),
                    EventValue::Image(b) => ("image", PyBytes::new(py, b).into_any()),
                    EventValue::Text(b) => ("text", PyBytes::new(py, b).into_any()),
                    EventValue::Tensor {
                        type_name,
                        shape,
                        values,
                    } => {
                        use pbdecode::TensorValues;
                        let values = match values {
                            None => py.None().into_bound(py),
                            Some(TensorValues::Float(v)) => v.clone().into_pyarray(py).into_any(),
                            Some(TensorValues::Int(v)) => v.clone().into_pyarray(py).into_any(),
                            Some(TensorValues::UInt(v)) => v.clone().into_pyarray(py).into_any(),
                            Some(TensorValues::Str(v)) => {
                                pyo3::types::PyList::new(py, v.iter().map(|b| PyBytes::new(py, b)))?
                                    .into_any()
                            }
                            // A kind of values added later: not read here.
                            Some(_) => py.None().into_bound(py),
                        };
                        let info = (type_name.as_str(), shape.clone(), values);
                        ("tensor", info.into_pyobject(py)?.into_any())
                    }
                    // A kind of value added later: named, its value None.
                    _ => ("other", py.None().into_bound(py)),
                };
                PyTuple::new(
                    py,
                    [
                        kind.into_pyobject(py)?.into_any(),
                        r.step.into_pyobject(py)?.into_any(),
                        r.wall_time.into_pyobject(py)?.into_any(),
                        r.tag.into_pyobject(py)?.into_any(),
                        value,
                    ],
                )
            })
            .collect()
    }

    /// The cut that ended the file after its last whole record, as a
    /// DecodeError, or None.
    #[getter]
    fn fault<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyAny>> {
        self.table.fault.as_ref().map(|e| {
            crate::to_py(py, Error::Decode(e.clone()))
                .into_value(py)
                .into_bound(py)
                .into_any()
        })
    }
}

/// The command's `this looks like ..` note for a file that is no protobuf.
#[pyfunction]
#[pyo3(signature = (data, name=None))]
pub fn looks_like(data: &[u8], name: Option<&str>) -> Option<String> {
    pbdecode::looks_like(data, name).map(|s| s.into_owned())
}
