//! The machine-readable schema inventory (`model-tool-schema-inventory.json`) and its
//! drift check.
//!
//! The inventory lists the model-facing tools only, sorted by name, each with its
//! family, stability, description, input and result schemas, freeform grammar,
//! annotations and input examples, plus the schema of the result envelope every call returns. Its
//! `version` is the version of this file format, not of any tool.

use serde_json::{Value, json};

use holon_core::FamilyPolicy;
use holon_core::Registry;
use holon_core::ToolResult;
use holon_core::schema::sort_keys;

/// The inventory file format's version. Bump it when the shape of the file changes,
/// never for a change of a tool's schema.
/// 2 added `input_examples`.
pub const INVENTORY_VERSION: u32 = 2;

/// The conventional file name of the inventory.
pub const INVENTORY_FILE_NAME: &str = "model-tool-schema-inventory.json";

/// Builds the inventory of the model-facing tools of `registry` (all families).
pub fn inventory(registry: &Registry) -> Value {
    let tools: Vec<Value> = registry
        .model_definitions(FamilyPolicy::all())
        .map(|definition| {
            let mut entry = json!({
                "name": &*definition.spec.name,
                "family": definition.family,
                "stability": definition.stability,
                "description": &*definition.spec.description,
                "input_schema": &*definition.spec.input_schema,
                "result_schema": &*definition.result_schema,
            });
            if let Some(grammar) = &definition.spec.freeform_grammar {
                entry["freeform_grammar"] = json!({
                    "syntax": grammar.syntax,
                    "definition": &*grammar.definition,
                });
            }
            if !definition.annotations.is_empty() {
                entry["annotations"] = json!(definition.annotations);
            }
            if !definition.input_examples.is_empty() {
                entry["input_examples"] = json!(&*definition.input_examples);
            }
            entry
        })
        .collect();
    sort_keys(json!({
        "version": INVENTORY_VERSION,
        "result_envelope": ToolResult::envelope_schema(),
        "tools": tools,
    }))
}

/// The inventory as the text of the checked-in file: pretty JSON and a final newline.
pub fn inventory_text(registry: &Registry) -> String {
    let mut text = serde_json::to_string_pretty(&inventory(registry))
        .unwrap_or_else(|error| format!("{{\"error\": \"{error}\"}}"));
    text.push('\n');
    text
}

/// The checked-in inventory differs from the one the registry generates.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the schema inventory is out of date (- checked in, + generated from the code):\n{diff}\n\
     refresh it with `holon-tools inventory > {INVENTORY_FILE_NAME}` and review the change"
)]
pub struct InventoryDrift {
    /// A unified diff from the checked-in text to the generated one.
    pub diff: String,
}

/// Compares the checked-in inventory text with the generated one.
pub fn check_inventory(checked_in: &str, registry: &Registry) -> Result<(), InventoryDrift> {
    let generated = inventory_text(registry);
    if checked_in == generated {
        return Ok(());
    }
    let diff = similar::TextDiff::from_lines(checked_in, &generated)
        .unified_diff()
        .context_radius(3)
        .header("checked-in", "generated")
        .to_string();
    Err(InventoryDrift { diff })
}
