//! Exports: the model-facing tools of a [`Registry`] in the form each model API and MCP
//! expect, from the one canonical definition of each tool.
//!
//! | provider | what a tool becomes |
//! |---|---|
//! | [`Provider::OpenAiChat`] | `{"type": "function", "function": {...}}`, or a custom grammar tool |
//! | [`Provider::OpenAiResponses`] | `{"type": "function", "name", ...}`, or a custom grammar tool |
//! | [`Provider::Anthropic`] | `{"name", "description", "input_schema"}` |
//! | [`Provider::Gemini`] | a function declaration with `parametersJsonSchema` |
//! | [`Provider::Mcp`] | a `tools/list` entry: name, title, description, schemas, annotations |
//!
//! Runtime-only tools and tools of families outside the policy never appear. A tool
//! with a freeform grammar is a custom tool where the provider has them (OpenAI) and
//! its JSON surface everywhere else; [`InputSurface`] records which one each export
//! used. With [`ExportOptions::strict`], OpenAI schemas are lowered to the strict
//! subset ([`strict`]); a schema that cannot be lowered is exported with
//! `strict: false` and an [`ExportWarning`] that names the keyword.
//!
//! ```
//! use holon_export::{ExportOptions, Provider, export};
//! use holon_core::{FamilyPolicy, Registry};
//!
//! let options = ExportOptions::new(FamilyPolicy::all()).with_strict(true);
//! let export = export(Registry::global(), Provider::OpenAiResponses, options);
//! for warning in &export.warnings {
//!     eprintln!("warning: {warning}");
//! }
//! let request_tools = export.payload(); // the value of the request's `tools` field
//! assert!(request_tools.is_array());
//! ```

mod anthropic;
mod fallback;
mod gemini;
mod lower_error;
pub mod mcp;
mod openai;
pub mod portable;
mod restore;
pub mod rules;
pub mod strict;
mod subset;
pub mod testing;

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use holon_core::FamilyPolicy;
use holon_core::Registry;
use holon_core::ToolDefinition;

pub use fallback::{InputSurface, input_surface};

/// A model API (or MCP) that tools are exported to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Provider {
    /// OpenAI Chat Completions (`tools` of `/v1/chat/completions`).
    #[serde(rename = "openai-chat")]
    OpenAiChat,
    /// OpenAI Responses (`tools` of `/v1/responses`).
    #[serde(rename = "openai-responses")]
    OpenAiResponses,
    /// Anthropic Messages (`tools` of `/v1/messages`).
    #[serde(rename = "anthropic")]
    Anthropic,
    /// Google Gemini (`tools[].functionDeclarations`).
    #[serde(rename = "gemini")]
    Gemini,
    /// The Model Context Protocol (the result of `tools/list`).
    #[serde(rename = "mcp")]
    Mcp,
}

impl Provider {
    /// Every provider.
    pub const ALL: [Provider; 5] = [
        Self::OpenAiChat,
        Self::OpenAiResponses,
        Self::Anthropic,
        Self::Gemini,
        Self::Mcp,
    ];

    /// The name used on the command line and in reports, e.g. `openai-chat`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::OpenAiChat => "openai-chat",
            Self::OpenAiResponses => "openai-responses",
            Self::Anthropic => "anthropic",
            Self::Gemini => "gemini",
            Self::Mcp => "mcp",
        }
    }

    /// Whether the provider has custom tools that take raw text constrained by a
    /// grammar; freeform tools get their JSON surface everywhere else.
    pub const fn has_custom_tools(self) -> bool {
        matches!(self, Self::OpenAiChat | Self::OpenAiResponses)
    }

    /// Whether the provider has a strict mode that constrains arguments to the schema.
    pub const fn has_strict_mode(self) -> bool {
        matches!(self, Self::OpenAiChat | Self::OpenAiResponses)
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of parsing a provider name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown export format `{0}`; expected one of: {valid}",
    valid = Provider::ALL.map(Provider::as_str).join(", ")
)]
pub struct UnknownProvider(pub String);

impl FromStr for Provider {
    type Err = UnknownProvider;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = s.trim();
        Self::ALL
            .into_iter()
            .find(|provider| provider.as_str() == wanted)
            .ok_or_else(|| UnknownProvider(wanted.to_string()))
    }
}

/// What to export and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExportOptions {
    /// The families whose tools are exported.
    pub policy: FamilyPolicy,
    /// Lower schemas to the provider's strict subset (OpenAI only; ignored elsewhere).
    pub strict: bool,
}

impl ExportOptions {
    /// The tools of `policy`, not strict.
    pub fn new(policy: FamilyPolicy) -> Self {
        Self {
            policy,
            strict: false,
        }
    }

    /// Sets strict mode.
    pub fn with_strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }
}

impl Default for ExportOptions {
    fn default() -> Self {
        Self::new(FamilyPolicy::all())
    }
}

/// One tool in a provider's wire form, and how it was exported.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExportedTool {
    /// The tool's model-facing name.
    pub name: Arc<str>,
    /// The input surface the export used.
    pub surface: InputSurface,
    /// For OpenAI function tools: whether the tool is exported with `strict: true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
    /// The tool as the provider's API takes it.
    pub wire: Value,
}

/// Something an export could not do as asked, such as lowering a schema to OpenAI's
/// strict subset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExportWarning {
    /// The tool it is about, if it is about one tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The schema keyword responsible, if one is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keyword: Option<String>,
    /// What happened and what it means.
    pub message: String,
}

impl fmt::Display for ExportWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.tool {
            Some(tool) => write!(f, "`{tool}`: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// The tools of a registry exported for one provider.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Export {
    /// The provider.
    pub provider: Provider,
    /// Whether strict mode was asked for.
    pub strict: bool,
    /// The tools, sorted by name.
    pub tools: Vec<ExportedTool>,
    /// What could not be exported as asked.
    pub warnings: Vec<ExportWarning>,
}

impl Export {
    /// What the provider's API takes: the value of the request's `tools` field
    /// (for Gemini one tool object holding every function declaration), or, for MCP,
    /// the result of `tools/list`.
    pub fn payload(&self) -> Value {
        let tools: Vec<Value> = self.tools.iter().map(|tool| tool.wire.clone()).collect();
        match self.provider {
            Provider::Gemini => json!([{ "functionDeclarations": tools }]),
            Provider::Mcp => json!({ "tools": tools }),
            Provider::OpenAiChat | Provider::OpenAiResponses | Provider::Anthropic => {
                Value::Array(tools)
            }
        }
    }

    /// The exported tool called `name`.
    pub fn get(&self, name: &str) -> Option<&ExportedTool> {
        self.tools.iter().find(|tool| &*tool.name == name)
    }
}

/// Exports the model-facing tools of `registry` that `options.policy` allows.
pub fn export(registry: &Registry, provider: Provider, options: ExportOptions) -> Export {
    let mut tools = Vec::new();
    let mut warnings = Vec::new();
    for definition in registry.model_definitions(options.policy) {
        let (tool, tool_warnings) = export_tool(definition, provider, options);
        tools.push(tool);
        warnings.extend(tool_warnings);
    }
    warnings.extend(rules::count_warning(provider, tools.len()));
    Export {
        provider,
        strict: options.strict,
        tools,
        warnings,
    }
}

/// Exports one tool. The caller decides whether the tool may be exported at all
/// ([`export`] skips runtime-only tools and families outside the policy).
pub fn export_tool(
    definition: &ToolDefinition,
    provider: Provider,
    options: ExportOptions,
) -> (ExportedTool, Vec<ExportWarning>) {
    let surface = input_surface(definition, provider);
    let mut warnings = Vec::new();
    let (wire, strict) = match provider {
        Provider::OpenAiChat | Provider::OpenAiResponses => {
            openai::tool(definition, provider, surface, options.strict, &mut warnings)
        }
        Provider::Anthropic => (anthropic::tool(definition), None),
        Provider::Gemini => (gemini::tool(definition), None),
        Provider::Mcp => (mcp::tool(definition), None),
    };
    let tool = ExportedTool {
        name: definition.spec.name.clone(),
        surface,
        strict,
        wire,
    };
    (tool, warnings)
}
