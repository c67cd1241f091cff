//! The calls each fuzz target makes, in one file shared with the
//! repository's `tests/fuzz_regressions.rs`.

#[path = "paths.rs"]
pub mod paths;
