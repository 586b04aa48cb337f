//! Bytes -> a tool call -> the registry of every built-in tool. See
//! `holon_integration_tests::fuzz_dispatch` for the input format and what counts as a
//! finding.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    holon_integration_tests::fuzz_dispatch::run_one(data);
});
