//! Compile-time contract of `#[holon_tool]` and `#[derive(ToolArgs)]`: what must
//! compile, and what must fail with exactly which message (`tests/ui/fail/*.stderr`).
//!
//! Regenerate the expected messages with
//! `TRYBUILD=overwrite cargo test -p holon-ui-tests`, then read every `.stderr`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    t.compile_fail("tests/ui/fail/*.rs");
}
