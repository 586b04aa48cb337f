//! `holon_core::link!` is the one way to put a tool crate nothing else names into a
//! program (see `unlinked.rs` for what happens without it): the crate is linked and
//! its tools are registered.

use holon_core::Registry;

holon_core::link!(holon_downstream_tools);

#[test]
fn a_crate_named_by_link_has_its_tools_registered() {
    let registry = Registry::try_global().unwrap_or_else(|error| panic!("{error}"));
    let echo = registry.get("Echo").expect("Echo is linked by `link!`");
    assert_eq!(echo.defined_at.module, "holon_downstream_tools");
    assert!(registry.get("RecordTodos").is_some(), "{registry:?}");
}
