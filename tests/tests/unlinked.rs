//! The trap `Registry::global` documents: a tool crate listed as a dependency of this
//! test (`holon-renamed-core-tools`) but never named in its code is not linked, so
//! its tools are not registered. The one way to link such a crate is
//! `holon_core::link!(the_crate)` (`link.rs`), which also makes the registry refuse to
//! build when the crate contributed no tool (`link_expectation.rs`).

use holon_core::Registry;

#[test]
fn a_tool_crate_that_is_never_named_is_not_linked() {
    let registry = Registry::global();
    assert!(registry.get("RenamedDouble").is_none(), "{registry:?}");
}
