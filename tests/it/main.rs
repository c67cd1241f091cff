//! The integration tests, one module per file, linked as one test binary
//! (a binary per file meant as many links of the library and its
//! dependencies). Run one file's tests with `cargo test --test it MODULE::`.
//!
//! The tests that count heap use install a counting `#[global_allocator]`,
//! which is the whole binary's: they are test binaries of their own beside
//! this one (`tests/alloc/`, and `tests/batch_memory.rs`, which counts the
//! whole process), so that here every other test runs on the system
//! allocator.
//!
//! A module that runs the `decode` binary or uses an optional part is
//! compiled only with that feature (what `required-features` said of its
//! own binary).

#[path = "../common/mod.rs"]
mod common;

mod allocations;
#[cfg(feature = "cli")]
mod cli;
#[cfg(feature = "cli")]
mod cli_as;
#[cfg(feature = "cli")]
mod cli_plan;
#[cfg(feature = "cli")]
mod deep_nesting;
mod doc_links;
mod elision;
#[cfg(feature = "cli")]
mod escapes;
mod facade;
mod field_constants;
#[cfg(feature = "picture")]
mod fuzz_regressions;
mod graph;
#[cfg(feature = "cli")]
mod implied_values;
#[cfg(feature = "cli")]
mod io_safety;
mod json_by_hand;
mod layers;
mod merge_rules;
mod no_panic;
#[cfg(feature = "cli")]
mod npy;
mod onnx_formats;
mod package;
mod paddle;
mod parallel_histogram;
mod parallel_text_rows;
mod parallel_values;
#[cfg(feature = "cli")]
mod pictures;
#[cfg(feature = "cli")]
mod proto_parsing;
mod raw_value_text;
#[cfg(feature = "cli")]
mod readme;
mod registry;
mod schema_tables;
mod schemaless;
#[cfg(feature = "cli")]
mod server_api;
mod stats;
mod summary;
mod tensor_snapshots;
#[cfg(feature = "cli")]
mod testdata;
#[cfg(feature = "cli")]
mod text_format;
mod tf_checkpoint;
mod tf_formats;
mod tf_record;
#[cfg(feature = "cli")]
mod tf_record_cli;
mod user_schema;
mod view_fields;
mod view_paths;
mod views;
