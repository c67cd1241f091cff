//! pbdecode: decode the Protocol Buffers files of machine learning (ONNX
//! tensors, sequences and models; TensorFlow SavedModels and GraphDefs; any
//! protobuf without a schema).
//!
//! Layers, data flowing one way: [`wire`] (bytes to fields) -> [`schema`]
//! tables -> [`decode`] (fields to a borrowed value tree) -> [`formats`]
//! (registry, detection, validation) -> [`tensor`] (element types and value
//! decoding) -> [`render`] (text and JSON). The library never prints.

pub mod batch;
pub mod decode;
pub mod diff;
pub mod error;
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
