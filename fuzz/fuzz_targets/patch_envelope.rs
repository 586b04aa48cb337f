//! Bytes -> the `*** Begin Patch` parser, then the planner over files in memory. See
//! `holon_patch::fuzz` for the input format; a finding is a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    holon_patch::fuzz::envelope(data);
});
