//! `holon-tools export`: the tools in the form a model API (or MCP) takes.

use super::output::emit_json;
use std::process::ExitCode;

use clap::ValueEnum;
use holon_core::{FamilyPolicy, Registry};
use holon_export::{self as export, ExportOptions, InputSurface, Provider};

/// The export formats, as the command line names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// OpenAI Chat Completions: the request's `tools` array.
    #[value(name = "openai-chat")]
    OpenaiChat,
    /// OpenAI Responses: the request's `tools` array.
    #[value(name = "openai-responses")]
    OpenaiResponses,
    /// Anthropic Messages: the request's `tools` array.
    #[value(name = "anthropic")]
    Anthropic,
    /// Gemini: the request's `tools` array (one tool of function declarations).
    #[value(name = "gemini")]
    Gemini,
    /// MCP: the result of `tools/list`.
    #[value(name = "mcp")]
    Mcp,
}

impl From<ExportFormat> for Provider {
    fn from(format: ExportFormat) -> Self {
        match format {
            ExportFormat::OpenaiChat => Provider::OpenAiChat,
            ExportFormat::OpenaiResponses => Provider::OpenAiResponses,
            ExportFormat::Anthropic => Provider::Anthropic,
            ExportFormat::Gemini => Provider::Gemini,
            ExportFormat::Mcp => Provider::Mcp,
        }
    }
}

/// Prints the export on stdout; warnings and the tools exported with their JSON
/// fallback go to stderr.
pub(crate) fn export(
    registry: &Registry,
    format: ExportFormat,
    policy: FamilyPolicy,
    strict: bool,
    report: bool,
) -> ExitCode {
    let provider = Provider::from(format);
    if strict && !provider.has_strict_mode() {
        eprintln!(
            "holon-tools: --strict applies to openai-chat and openai-responses; {provider} has no strict mode"
        );
        return ExitCode::FAILURE;
    }
    let options = ExportOptions::new(policy).with_strict(strict);
    let export = export::export(registry, provider, options);
    for warning in &export.warnings {
        eprintln!("holon-tools: warning: {warning}");
    }
    for tool in &export.tools {
        if tool.surface == InputSurface::JsonFallback {
            eprintln!(
                "holon-tools: note: `{}` takes freeform text, which {provider} cannot send; it is exported with its JSON surface",
                tool.name
            );
        }
    }
    let value = if report {
        serde_json::to_value(&export)
    } else {
        Ok(export.payload())
    };
    emit_json(value)
}
