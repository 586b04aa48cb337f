//! Bytes -> holon-core's duplicate-key JSON reader, against serde_json's own parse.
//! See `holon_core::fuzz::json_reader`; a finding is a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    holon_core::fuzz::json_reader(data);
});
