//! pbdecode: decode the Protocol Buffers files of machine learning (ONNX
//! tensors, sequences and models; TensorFlow SavedModels and GraphDefs; any
//! protobuf without a schema).
//!
//! Layers, data flowing one way: [`wire`] (bytes to fields) -> [`schema`]
//! tables -> [`decode`] (fields to a borrowed value tree; [`schemaless`]
//! reads without a table) -> [`tensor`] (element types and value decoding,
//! [`external`] data) -> [`formats`] (registry, detection, validation) ->
//! [`render`] (text and JSON) -> [`diff`], [`testdata`], [`batch`] -> the
//! explorer's `server`. Beside them: [`error`], [`escape`] (the escaping
//! and number text every layer writes through) and [`progress`] at the
//! ground; [`input`], [`output`] and [`external`] below the wire; [`stats`]
//! beside [`formats`]; [`picture`], [`npy`] and [`user_schema`] above them.
//! `tests/layers.rs` holds the order and fails on an import that does not
//! go down it. The library never prints.
//!
//! Optional parts (cargo features, all on by default): `cli` (the `decode`
//! binary), `server` (the explorer's HTTP server) and `picture` (PNG
//! encoding). Without them the core builds for `wasm32-unknown-unknown`,
//! where files are read into memory instead of mapped.
//!
//! Every failure converts into [`Error`] (defined with the facade in
//! [`api`]), one variant per part.

pub mod api;
pub mod batch;
pub mod decode;
pub mod diff;
pub mod error;
pub mod escape;
pub mod external;
pub mod formats;
pub mod input;
pub mod npy;
pub mod output;
pub mod picture;
pub mod progress;
pub mod render;
pub mod schema;
pub mod schemaless;
#[cfg(feature = "server")]
pub mod server;
pub mod stats;
pub mod tensor;
pub mod testdata;
pub mod user_schema;
pub mod wire;

pub use api::{
    DataType, Document, Error, FormatInfo, JsonOptions, Role, Step, Storage, Tensor, TensorRef,
    TextOptions, ValueOptions, Values, open, read, read_shared,
};
