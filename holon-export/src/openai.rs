//! OpenAI tools, for Chat Completions and for Responses.
//!
//! A JSON tool is a function tool; `strict` is always written out, because the two
//! APIs default it differently. A freeform tool is a custom tool whose input format is
//! its grammar (`lark` or `regex`). The two APIs nest the same fields differently:
//!
//! - Chat Completions: `{"type": "function", "function": {"name", "description",
//!   "parameters", "strict"}}` and `{"type": "custom", "custom": {"name",
//!   "description", "format": {"type": "grammar", "grammar": {"syntax", "definition"}}}}`.
//! - Responses: `{"type": "function", "name", "description", "parameters", "strict"}`
//!   and `{"type": "custom", "name", "description", "format": {"type": "grammar",
//!   "syntax", "definition"}}`.
//!
//! Sources: OpenAI API reference, Chat Completions `tools` and Responses `tools`
//! (<https://platform.openai.com/docs/api-reference/chat/create>,
//! <https://platform.openai.com/docs/api-reference/responses/create>), and the function
//! calling guide, "Custom tools" and "Context-free grammars"
//! (<https://platform.openai.com/docs/guides/function-calling>).

use serde_json::{Value, json};

use super::strict;
use super::{ExportWarning, InputSurface, Provider};
use holon_core::{FreeformGrammar, ToolDefinition};

/// The tool in the wire form of `provider` (one of the two OpenAI APIs), and whether
/// it is a strict function tool (`None` for a custom tool).
pub(super) fn tool(
    definition: &ToolDefinition,
    provider: Provider,
    surface: InputSurface,
    strict: bool,
    warnings: &mut Vec<ExportWarning>,
) -> (Value, Option<bool>) {
    if let (InputSurface::Freeform, Some(grammar)) = (surface, &definition.spec.freeform_grammar) {
        return (custom(definition, provider, grammar), None);
    }
    let canonical = &*definition.spec.input_schema;
    let (parameters, is_strict) = if strict {
        match strict::lower(canonical) {
            Ok(lowered) => (lowered, true),
            Err(error) => {
                warnings.push(ExportWarning {
                    tool: Some(definition.spec.name.to_string()),
                    keyword: Some(error.keyword.clone()),
                    message: format!(
                        "exported with `strict: false` and its canonical schema: {error}"
                    ),
                });
                (canonical.clone(), false)
            }
        }
    } else {
        (canonical.clone(), false)
    };
    (
        function(definition, provider, parameters, is_strict),
        Some(is_strict),
    )
}

fn function(
    definition: &ToolDefinition,
    provider: Provider,
    parameters: Value,
    strict: bool,
) -> Value {
    let name = &*definition.spec.name;
    let description = &*definition.spec.description;
    if provider == Provider::OpenAiChat {
        json!({
            "type": "function",
            "function": {
                "name": name,
                "description": description,
                "parameters": parameters,
                "strict": strict,
            },
        })
    } else {
        json!({
            "type": "function",
            "name": name,
            "description": description,
            "parameters": parameters,
            "strict": strict,
        })
    }
}

fn custom(definition: &ToolDefinition, provider: Provider, grammar: &FreeformGrammar) -> Value {
    let name = &*definition.spec.name;
    let description = &*definition.spec.description;
    let syntax = grammar.syntax.as_str();
    let text = &*grammar.definition;
    if provider == Provider::OpenAiChat {
        json!({
            "type": "custom",
            "custom": {
                "name": name,
                "description": description,
                "format": {
                    "type": "grammar",
                    "grammar": { "syntax": syntax, "definition": text },
                },
            },
        })
    } else {
        json!({
            "type": "custom",
            "name": name,
            "description": description,
            "format": { "type": "grammar", "syntax": syntax, "definition": text },
        })
    }
}
