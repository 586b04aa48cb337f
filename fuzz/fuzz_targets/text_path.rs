//! Bytes -> a typed parse, and the path holon-core finds for its error, against
//! serde_path_to_error's. See `holon_core::fuzz::text_path`; a finding is a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    holon_core::fuzz::text_path(data);
});
