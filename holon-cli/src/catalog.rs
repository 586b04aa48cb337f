//! `holon-tools schema` and `holon-tools inventory`.

// The CLI's own I/O: it reads the checked-in inventory file the operator names.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use super::output::{emit, emit_json};
use std::path::Path;
use std::process::ExitCode;

use holon_core::{Registry, closest};
use holon_lint::{check_inventory, inventory_text};
use serde_json::json;

/// Prints a tool's description (the exact text the model reads) and its schemas.
pub(crate) fn schema(registry: &Registry, name: &str) -> ExitCode {
    let Some(definition) = registry.get(name) else {
        let names = registry.definitions().map(|d| d.name());
        match closest(name, names) {
            Some(best) => eprintln!("holon-tools: no tool named `{name}`; did you mean `{best}`?"),
            None => eprintln!("holon-tools: no tool named `{name}`; `holon-tools list` shows them"),
        }
        return ExitCode::FAILURE;
    };
    let mut schemas = json!({
        "name": definition.name(),
        "description": &*definition.spec.description,
        "input_schema": &*definition.spec.input_schema,
        "result_schema": &*definition.result_schema,
    });
    if let Some(grammar) = &definition.spec.freeform_grammar {
        schemas["freeform_grammar"] = json!(grammar);
    }
    emit_json(Ok(schemas))
}

/// Prints the inventory, or checks `check` against it.
pub(crate) fn inventory(registry: &Registry, check: Option<&Path>) -> ExitCode {
    let Some(path) = check else {
        emit(&inventory_text(registry));
        return ExitCode::SUCCESS;
    };
    let checked_in = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) => {
            eprintln!("holon-tools: cannot read {}: {error}", path.display());
            return ExitCode::FAILURE;
        }
    };
    match check_inventory(&checked_in, registry) {
        Ok(()) => {
            eprintln!("{} is up to date", path.display());
            ExitCode::SUCCESS
        }
        Err(drift) => {
            eprintln!("{drift}");
            ExitCode::FAILURE
        }
    }
}
