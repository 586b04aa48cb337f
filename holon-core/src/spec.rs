//! The model-facing specification of a tool and its full definition.

use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use crate::family::ToolCapabilityFamily;
use crate::meta::{DefinedAt, GrammarSyntax, Stability, TaskSupport, ToolAnnotations, Visibility};

/// A freeform grammar: the tool also accepts raw text in this language.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FreeformGrammar {
    /// The grammar's language.
    pub syntax: GrammarSyntax,
    /// The grammar text.
    pub definition: Arc<str>,
}

/// What a model is shown of a tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolSpec {
    /// Model-facing name.
    pub name: Arc<str>,
    /// Model-visible guidance.
    pub description: Arc<str>,
    /// JSON Schema 2020-12 of the arguments: a closed object.
    pub input_schema: Arc<Value>,
    /// The freeform grammar, if the tool accepts raw text.
    pub freeform_grammar: Option<FreeformGrammar>,
}

/// Everything the registry knows about a tool: its spec plus the labels, the result
/// schema and where it was declared. Built once; cheap to clone.
#[derive(Debug, Clone, Serialize)]
pub struct ToolDefinition {
    /// Capability family.
    pub family: ToolCapabilityFamily,
    /// The model-facing spec.
    pub spec: ToolSpec,
    /// Compatibility label.
    pub stability: Stability,
    /// Model-facing or runtime-only.
    pub visibility: Visibility,
    /// Legacy names still accepted by the dispatcher.
    pub aliases: Vec<&'static str>,
    /// JSON Schema of the structured result.
    pub result_schema: Arc<Value>,
    /// Behaviour hints.
    pub annotations: ToolAnnotations,
    /// Whether a call may run as an MCP task.
    #[serde(skip_serializing_if = "TaskSupport::is_forbidden")]
    pub task: TaskSupport,
    /// Example arguments, each a valid call (checked when the registry is built).
    #[serde(skip_serializing_if = "<[Value]>::is_empty")]
    pub input_examples: Arc<[Value]>,
    /// Search keywords (`keywords = [...]`): weighed by tool search, never shown to a
    /// model.
    #[serde(skip_serializing_if = "<[&str]>::is_empty")]
    pub keywords: &'static [&'static str],
    /// Where the tool was declared.
    pub defined_at: DefinedAt,
}

impl ToolDefinition {
    /// The model-facing name.
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// Whether models may see this tool.
    pub fn is_model_facing(&self) -> bool {
        self.visibility == Visibility::Model
    }
}
