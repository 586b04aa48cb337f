//! Bytes -> text (lossy UTF-8) -> WebFetch's depth-bounded HTML parse, the rendering of
//! its tree, and the nesting pre-scan. See `holon_web_text::fuzz::html_nesting`; a
//! finding is a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    holon_web_text::fuzz::html_nesting(data);
});
