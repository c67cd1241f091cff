//! The tests that measure heap use per thread (`alloc_bounds`, `blowup`, `record_lines`,
//! `v1_slices`),
//! linked as one test binary under the counting global allocator. They are
//! kept out of `tests/it/`: a global allocator is the whole binary's, so
//! there it would count, and slow, every other test. (`batch_memory`
//! counts the whole process, so it is a binary of its own.)

#[path = "../common/mod.rs"]
mod common;
#[path = "../common/counting_alloc.rs"]
mod counting_alloc;

mod alloc_bounds;
mod blowup;
mod record_lines;
mod v1_slices;

#[global_allocator]
static ALLOC: counting_alloc::Counting = counting_alloc::Counting;
