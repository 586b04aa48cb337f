//! A host that names its own binary as the limits helper of commands but whose `main`
//! never runs the helper's entry point (this test binary: its `main` is the test
//! harness) cannot open a runtime: a typed error says so, instead of every command
//! starting the host's `main` again, or running without limits.

use holon_gates::process::HelperError;
use holon_runtime::{Runtime, RuntimeConfig, RuntimeError};

#[test]
fn a_host_that_forgot_the_limits_helper_gets_a_typed_error() {
    let workspace = tempfile::tempdir().unwrap();
    let mut config = RuntimeConfig::in_memory(workspace.path());
    config.commands.limiter = Some(std::env::current_exe().unwrap());
    let error = Runtime::open(config)
        .err()
        .expect("the runtime refuses to open");
    assert!(
        matches!(
            error,
            RuntimeError::Commands(HelperError::NotInstalled { .. })
        ),
        "{error}"
    );
    assert!(error.to_string().contains("helper_main"), "{error}");
}
