//! The calls each fuzz target makes, in one file shared with the
//! repository's `tests/it/fuzz_regressions.rs`.

#[path = "paths.rs"]
pub mod paths;
