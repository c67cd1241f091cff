//! What a notebook shows of a tensor: its picture as `decode --picture`
//! draws it (the library's pixels; the package writes them as a PNG).

use crate::Doc;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// A picture's (width, height, channels, pixels, layout).
type PictureParts<'py> = (u32, u32, usize, Bound<'py, PyBytes>, String);

/// Tensor `i` drawn as the command draws it: (width, height, channels,
/// row-major pixels, the layout's description), or None when the tensor
/// does not look like a picture.
#[pyfunction]
pub fn picture<'py>(py: Python<'py>, doc: &Doc, i: usize) -> PyResult<Option<PictureParts<'py>>> {
    let t = doc.tensor_at(py, i)?;
    let Ok(p) = py.detach(|| t.picture()) else {
        return Ok(None);
    };
    Ok(Some((
        p.width,
        p.height,
        p.colour.channels(),
        PyBytes::new(py, &p.pixels),
        p.describe(),
    )))
}
