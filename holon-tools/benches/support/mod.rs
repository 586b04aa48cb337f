//! What the benches of holon-tools share: the quick mode CI runs, and the check that
//! the built-in tools are linked.

use holon_core::Registry;

// The benches dispatch the built-in tools by name: rustc links holon-tools only when
// the code names it, and without it the registry would hold no tools at all.
use holon_tools as _;

/// Whether this run is a test of the bench rather than a measurement, as criterion
/// decides it: `cargo test --benches` passes no `--bench`, `cargo bench -- --test`
/// passes both. A test runs each case once, on small inputs, so that CI proves the
/// bench still works without paying for figures nobody reads.
pub fn test_mode() -> bool {
    let args: Vec<String> = std::env::args().collect();
    let flag = |name: &str| args.iter().any(|arg| arg == name);
    !flag("--bench") || flag("--test")
}

/// Panics, naming the tool, unless `name` is registered: a bench of a tool that is not
/// linked must fail, not time an `unknown_tool` error.
// mcp_latency measures the `holon-tools` binary, whose own registry answers its calls.
#[allow(dead_code)]
pub fn require_tool(name: &str) {
    assert!(
        Registry::global().get(name).is_some(),
        "the bench needs the built-in tool `{name}`, and the registry has no such tool: \
         is holon-tools linked (`use holon_tools as _;`)?"
    );
}
