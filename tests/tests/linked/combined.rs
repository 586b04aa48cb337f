//! The built-in tools of `holon-tools` and the tools of a downstream crate live in one
//! program: the global registry holds both and is valid (no name or alias clash).

use holon_core::Registry;
use holon_downstream_tools as _;
use holon_tools as _;

#[test]
fn builtin_and_downstream_tools_form_one_valid_registry() {
    let registry = Registry::try_global().unwrap_or_else(|error| panic!("{error}"));
    for name in ["Echo", "RecordTodos"] {
        assert!(registry.get(name).is_some(), "{name} is missing");
    }
    let builtin = registry
        .definitions()
        .filter(|definition| definition.defined_at.module.starts_with("holon_tools"))
        .count();
    let downstream = registry
        .definitions()
        .filter(|definition| {
            definition
                .defined_at
                .module
                .starts_with("holon_downstream_tools")
        })
        .count();
    assert_eq!(downstream, 2);
    assert_eq!(builtin + downstream, registry.len());
}
