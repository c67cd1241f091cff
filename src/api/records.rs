//! Record files as tables: a TFRecord's Examples as columns of their
//! features ([`example_table`]), read in one pass that copies each value
//! once into its column's buffer; the columns are what Arrow's list arrays
//! are (offsets, values, validity), so a binding hands them over without
//! another copy.

use super::Error;
use crate::formats::{other_files, tf_record};
use crate::input;
use std::borrow::Cow;
use std::io;
use std::path::Path;

pub use crate::formats::tf_event::{EventRow, EventTable, EventValue, ScalarColumns, TensorValues};
pub use crate::formats::tf_example::{
    Bitmap, Column as TableColumn, ColumnValues, ExampleColumns as ExampleTable,
    Kind as FeatureKind,
};

/// A record file's Examples and SequenceExamples as a table, one column
/// per feature (a record that lacks it is null there; a feature list is a
/// list of steps), in one pass over the records (plain, GZIP or ZLIB). A
/// file cut inside a record gives the records before the cut and the cut
/// as [`ExampleTable::fault`]; any other fault (a CRC, a stream that does
/// not decompress), a record that is no Example, or a feature whose values
/// change kind is the error.
pub fn example_table(path: impl AsRef<Path>) -> Result<ExampleTable, Error> {
    let path = path.as_ref();
    let input = input::open_input(path)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    example_table_of(input.bytes())
}

/// [`example_table`] of bytes in memory.
pub fn example_table_of(bytes: &[u8]) -> Result<ExampleTable, Error> {
    let file = tf_record::record_file(bytes)?;
    Ok(tf_record::example_columns(&file)?)
}

/// An event file's summaries (TensorBoard's): scalars as columns (step,
/// wall time, tag, value as float32; TF 1's `simple_value` and TF 2's
/// tensors of the `scalars` plugin alike), histograms, pictures, texts and
/// other tensors as rows; in one pass. A cut ends the table after the
/// last whole record ([`EventTable::fault`]); another fault is the error;
/// a record file that is no event file gives an empty table.
pub fn event_table(path: impl AsRef<Path>) -> Result<EventTable, Error> {
    let path = path.as_ref();
    let input = input::open_input(path)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    event_table_of(input.bytes())
}

/// [`event_table`] of bytes in memory.
pub fn event_table_of(bytes: &[u8]) -> Result<EventTable, Error> {
    let file = tf_record::record_file(bytes)?;
    Ok(crate::formats::tf_event::event_table(&file)?)
}

/// What a file that is no protobuf looks like, and what reads it (the
/// command's `this looks like ..` note): an ONNX Runtime or TensorFlow Lite
/// model, GGUF, NumPy, HDF5, a zip or pickle checkpoint, safetensors,
/// JSON; `name` is the file's name, for the files known by it.
pub fn looks_like(bytes: &[u8], name: Option<&str>) -> Option<Cow<'static, str>> {
    other_files::looks_like(bytes, name)
}
