//! What the workspace's benches share with criterion's way of running them.

/// Whether this run is a test of the bench rather than a measurement, as criterion
/// decides it: `cargo test --benches` passes no `--bench`, `cargo bench -- --test`
/// passes both. A test runs each case once, on small inputs, so that CI proves the
/// bench still works without paying for figures nobody reads.
pub fn test_mode() -> bool {
    let args: Vec<String> = std::env::args().collect();
    let flag = |name: &str| args.iter().any(|arg| arg == name);
    !flag("--bench") || flag("--test")
}
