//! Integration tests live in `tests/`. The library holds what both the tests and the
//! fuzz target in `fuzz/` run.

pub mod fuzz_dispatch;
