//! pbdecode: decode the Protocol Buffers files of machine learning (ONNX
//! tensors, sequences and models; TensorFlow SavedModels and GraphDefs; any
//! protobuf without a schema).
//!
//! # The facade
//!
//! [`open`] (or [`read`] for bytes in memory) detects the format and
//! indexes the tensors without reading a value; [`Document::tensor`]
//! decodes one of them again from its byte range; [`Tensor::values`] gives
//! its elements at their own width ([`Values::I8`] for INT8,
//! [`Values::F16`] for FLOAT16, bit codes for float8 and int4), and
//! [`Tensor::raw_le`] the stored little-endian bytes, borrowed, when they
//! already are the array.
//!
//! ```
//! # fn main() -> Result<(), pbdecode::Error> {
//! let doc = pbdecode::open("tests/fixtures/onnx-model/everything.onnx")?;
//! assert_eq!(doc.format().id, "onnx-model");
//! for r in doc.tensors() {
//!     let t = doc.tensor(r)?;
//!     let dtype = t.data_type().map(|d| d.numpy_name());
//!     println!("{} {dtype:?} {:?} {:?}", t.name(), t.dims(), t.role());
//! }
//! let w = doc.tensor_by_name("w_int8")?;
//! let pbdecode::Values::I8(v) = w.values()? else { unreachable!() };
//! assert_eq!((w.shape(), &v[..3]), (Some(&[3, 4][..]), &[-6, -5, -4][..]));
//! assert!(w.raw_le().is_some()); // raw_data, borrowed from the file's map
//! # Ok(())
//! # }
//! ```
//!
//! [`Document::summary`] is the format's summary of the file (a model's
//! IR version, opsets, node and initializer counts, parameters; a
//! SavedModel's signatures and variables; a GraphDef's Const nodes): what
//! the text output prints as its header and the JSON output writes as
//! `"summary"`.
//!
//! [`Document::write_json`] and [`Document::write_text`] write what the
//! `decode` command prints; [`Tensor::write_npy`] what `decode --npy`
//! writes; [`Tensor::stats`] its statistics.
//!
//! # Layers
//!
//! Below the facade, the modules form layers that data flows through one
//! way (bytes to fields, fields to a value tree against a schema table,
//! tensors, formats, text and JSON); `ARCHITECTURE.md` in the repository
//! describes them and their order, which `tests/it/layers.rs` holds. The
//! library never prints.
//!
//! Those modules are public for the `decode` binary, the tests, the
//! benchmarks, the fuzz targets and the Python binding, and left out of
//! this documentation: they are no stable interface. What is documented
//! here is: the facade, the errors it carries, [`Stats`], [`error`] and
//! [`escape`] (to show a name from a file as the `decode` command does).
//!
//! Optional parts (cargo features, all on by default): `cli` (the `decode`
//! binary), `server` (the explorer's HTTP server) and `picture` (PNG
//! encoding). Without them the core builds for `wasm32-unknown-unknown`,
//! where files are read into memory instead of mapped.
//!
//! Every failure converts into [`Error`], one variant per part.

// The documented surface is the facade, re-exported below, with the
// errors it carries and the statistics it returns; `error` (the checks a
// caller matches on) and `escape` (for showing what a file names). The
// other modules are public for the `decode`
// binary, the tests, the benchmarks, the fuzz targets and the Python
// binding, and hidden from the documentation: they are no stable interface.
// `SURFACE` in tests/it/layers.rs lists the surface and fails on a public
// module or re-export it does not name.
#[doc(hidden)]
pub mod alloc;
mod api;
#[doc(hidden)]
pub mod batch;
#[doc(hidden)]
pub mod checksum;
#[doc(hidden)]
pub mod decode;
#[doc(hidden)]
pub mod diff;
pub mod error;
pub mod escape;
mod external;
// Generated (see its header); its lines stay as the generator writes them.
#[doc(hidden)]
#[rustfmt::skip]
pub mod fields;
// The explorer's endpoints without a transport, for the server and the
// in-page WebAssembly build.
#[doc(hidden)]
pub mod explore;
#[doc(hidden)]
pub mod formats;
#[doc(hidden)]
pub mod graph;
#[doc(hidden)]
pub mod input;
#[doc(hidden)]
pub mod json_writer;
#[doc(hidden)]
pub mod npy;
#[doc(hidden)]
pub mod output;
#[doc(hidden)]
pub mod picture;
#[doc(hidden)]
pub mod progress;
#[doc(hidden)]
pub mod render;
#[doc(hidden)]
pub mod schema;
#[doc(hidden)]
pub mod schemaless;
#[cfg(feature = "server")]
#[doc(hidden)]
pub mod server;
#[doc(hidden)]
pub mod stats;
#[doc(hidden)]
pub mod syntax;
#[doc(hidden)]
pub mod tensor;
#[doc(hidden)]
pub mod testdata;
#[doc(hidden)]
pub mod text_format;
#[doc(hidden)]
pub mod user_schema;
#[doc(hidden)]
pub mod wire;

pub use api::{
    DataType, Diff, Document, Error, ExternalData, FormatInfo, JsonOptions, Step, Storage,
    StoredArray, Tensor, TensorRef, TextOptions, ValueOptions, Values, event_table, event_table_of,
    example_table, example_table_of, looks_like, open, open_as, read, read_shared, read_shared_as,
    read_shared_in,
};
// Record files as tables: what `example_table` and `event_table` return.
pub use diff::DiffOptions;
pub use formats::tf_event::{EventRow, EventTable, EventValue, ScalarColumns, TensorValues};
pub use formats::tf_example::{
    Bitmap, Column as TableColumn, ColumnValues, ExampleColumns as ExampleTable,
    Kind as FeatureKind,
};
// How the `decode` command and the explorer read an input they decoded
// themselves (`Document::from_decoded`): in terms of the hidden layers.
#[doc(hidden)]
pub use api::Reading;
pub use external::ExternalError;
// Where side files are read from (a folder on disk, or files in memory):
// for the command, the explorer and the in-page WebAssembly build.
#[doc(hidden)]
pub use external::{Folder, MemoryFolder};
pub use formats::TensorRole as Role;
pub use formats::summary::{Item as SummaryItem, Summary, Value as SummaryValue};
pub use input::recover_from_mapping_faults;
pub use npy::{NpyError, NpyInfo};
pub use output::OutputError;
pub use picture::{Colour, Layout, Picture, PictureError};
pub use schema::SchemaError;
pub use stats::Stats;
pub use stats::kernel::Extreme;
pub use tensor::MAX_IMPLIED_VALUES;
pub use user_schema::LoadError;
