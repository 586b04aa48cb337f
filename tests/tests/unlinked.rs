//! The trap `Registry::global` documents: a tool crate listed as a dependency of this
//! test (`holon-renamed-core-tools`) but never named in its code is not linked, so
//! its tools are not registered. `crate_paths.rs` names the same crate with
//! `use holon_renamed_core_tools as _;` and finds them.

use holon_core::Registry;

#[test]
fn a_tool_crate_that_is_never_named_is_not_linked() {
    let registry = Registry::global();
    assert!(registry.get("RenamedDouble").is_none(), "{registry:?}");
}
