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
//! Every failure converts into [`Error`], one variant per part.

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

/// Any failure of the library, one variant per part, so that a binding maps
/// each to one exception class; every part's own error converts with `?`.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input was turned down: the check, field path and byte offset.
    #[error(transparent)]
    Decode(#[from] error::DecodeError),
    /// A tensor's external data is not available.
    #[error(transparent)]
    External(#[from] external::ExternalError),
    /// A user's .proto file or descriptor set cannot be read.
    #[error(transparent)]
    Schema(#[from] user_schema::LoadError),
    /// Schema tables that do not resolve.
    #[error(transparent)]
    SchemaTable(#[from] schema::SchemaError),
    /// A tensor cannot be written as .npy.
    #[error(transparent)]
    Npy(#[from] npy::NpyError),
    /// A tensor cannot be drawn.
    #[error(transparent)]
    Picture(#[from] picture::PictureError),
    /// An output path was refused or its writing failed.
    #[error(transparent)]
    Output(#[from] output::OutputError),
    /// Reading or writing failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

#[cfg(test)]
mod tests {
    use super::Error;
    use crate::error::{DecodeError, ErrorKind};
    use crate::external::{ExternalError, ExternalRef};

    /// A function of the library's kind: each part's error through `?`.
    fn decode_then_load(bytes: &[u8]) -> Result<(), Error> {
        if bytes.is_empty() {
            Err(DecodeError::new(ErrorKind::Empty, 0))?;
        }
        ExternalRef::default().load(None)?;
        Ok(())
    }

    #[test]
    fn every_part_converts_to_the_crate_error_keeping_its_message() {
        let e = decode_then_load(&[]).unwrap_err();
        assert!(
            matches!(&e, Error::Decode(d) if d.check() == "empty"),
            "{e:?}"
        );
        assert_eq!(e.to_string(), "empty check failed @0x0: input is empty");
        let e = decode_then_load(&[1]).unwrap_err();
        assert!(
            matches!(&e, Error::External(ExternalError::NoLocation)),
            "{e:?}"
        );
        assert_eq!(e.to_string(), "external_data has no location");
        let e = Error::from(std::io::Error::other("disk"));
        assert!(matches!(e, Error::Io(_)));
    }
}
