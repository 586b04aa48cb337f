//! A crate named with `holon_core::link!` that contributes no tool (here `serde_json`,
//! standing for a tool crate whose tools a `cfg` or a feature left out) makes the
//! registry refuse to build, naming the crate and the `link!` that expected it.

use holon_core::Registry;

holon_core::link!(holon_downstream_tools, serde_json);

#[test]
fn an_expected_crate_without_tools_stops_the_registry() {
    let error = Registry::try_global().expect_err("serde_json has no tools");
    assert_eq!(error.problems.len(), 1, "{error}");
    let problem = &error.problems[0];
    assert!(
        problem.starts_with("`holon_core::link!(serde_json)` at "),
        "{problem}"
    );
    assert!(problem.contains("link_expectation.rs:7"), "{problem}");
    assert!(
        problem.contains("none of its tools is registered"),
        "{problem}"
    );
    // The crates that did contribute tools are not blamed.
    assert!(!problem.contains("holon_downstream_tools"), "{problem}");
}
