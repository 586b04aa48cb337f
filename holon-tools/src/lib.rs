//! # holon-tools
//!
//! The built-in tools of an agent runtime, declared with `#[holon_tool]` and working
//! for real on the embedded runtime of `holon-runtime` ([`holon_runtime::Runtime`]: a
//! workspace root, a state directory with a SQLite store, the model catalog and the
//! gates). The `holon-tools` CLI and MCP server are the `holon-cli` crate.
//!
//! Tools live in `src/tools/<plane>/`; the plane of a tool is the folder it is
//! declared in ([`plane_of`]).

// Tests set their fixtures up with std::fs and std::process freely; the code
// they test is linted without this.
#![cfg_attr(test, allow(clippy::disallowed_methods, clippy::disallowed_types))]

pub mod tools;

use holon_core::ToolDefinition;

/// The plane of a tool: the folder under `tools/` it is declared in for built-in
/// tools (`timer`, `model`, ...), or the declaring crate's name for others.
pub fn plane_of(definition: &ToolDefinition) -> &'static str {
    let module = definition.defined_at.module;
    let mut segments = module.split("::");
    let krate = segments.next().unwrap_or(module);
    if krate == "holon_tools" {
        let rest: Vec<&'static str> = segments.collect();
        if let [first, plane, ..] = rest.as_slice()
            && *first == "tools"
        {
            return plane;
        }
    }
    krate
}
