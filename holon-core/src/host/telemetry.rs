//! The `tracing` span of a call, with the names OpenTelemetry's GenAI semantic
//! conventions give a tool execution: span `execute_tool {gen_ai.tool.name}` (as
//! `otel.name`, which `tracing-opentelemetry` uses for the exported name),
//! `gen_ai.operation.name = execute_tool`, `gen_ai.tool.name`, `gen_ai.tool.call.id`
//! where the caller gave one, and `error.type` (the error kind) when it failed.

use tracing::field::Empty;

use crate::input::problems::shorten;
use crate::result::{ToolResult, ToolStatus};

/// The span of a call of `name` (cut short when huge: it is the caller's text).
pub(crate) fn call_span(name: &str, call_id: Option<&str>) -> tracing::Span {
    let name = shorten(name);
    tracing::info_span!(
        "execute_tool",
        otel.name = %format_args!("execute_tool {name}"),
        otel.kind = "internal",
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = %name,
        gen_ai.tool.call.id = call_id,
        error.type = Empty,
        otel.status_code = Empty,
    )
}

/// Records on `span` how the call ended: its error kind as `error.type`.
pub(crate) fn record_outcome(span: &tracing::Span, result: &ToolResult) {
    if result.status == ToolStatus::Error {
        span.record("error.type", result.error_kind().unwrap_or("_OTHER"));
        span.record("otel.status_code", "ERROR");
    }
}
