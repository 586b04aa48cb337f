//! The server span of a request (feature `tracing`), as OpenTelemetry's MCP semantic
//! conventions name it: `{mcp.method.name} {target}` (the target a served tool's
//! name; the method alone otherwise), kind `server`, with `mcp.method.name`,
//! `jsonrpc.request.id`, `mcp.protocol.version`, `mcp.session.id` (streamable
//! HTTP), `network.transport` (`pipe` on stdio, `tcp` over HTTP),
//! `network.protocol.name`, `gen_ai.tool.name` and `gen_ai.operation.name =
//! execute_tool` for `tools/call`, `gen_ai.prompt.name`, `mcp.resource.uri`, and
//! `error.type` / `rpc.response.status_code` when it failed (`tool_error` for a
//! result with `isError`). The W3C trace context the client put in the request's
//! `_meta` (`traceparent`, `tracestate`) is its parent; the tool's own
//! `execute_tool` span (holon-core) is its child.

use std::future::Future;

use http::request::Parts;
use opentelemetry::propagation::{Extractor, TextMapPropagator as _};
use opentelemetry::trace::TraceContextExt as _;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use rmcp::model::{MetaObject, ProtocolVersion};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use tracing::Instrument as _;
use tracing::field::Empty;
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

use super::Target;
use crate::context::SESSION_HEADER;

/// The longest caller-given text (a tool name, a URI, a session id) a span keeps.
const MAX_ATTRIBUTE_CHARS: usize = 256;

/// The server span of one request.
pub(crate) struct RequestSpan(tracing::Span);

impl RequestSpan {
    /// The span of the request `context` of `method` about `target`, its parent the
    /// trace context of the request's `_meta`.
    pub(crate) fn new(
        method: &str,
        target: Target<'_>,
        context: &RequestContext<RoleServer>,
    ) -> Self {
        let method = shorten(method);
        let (tool, prompt, resource) = match target {
            Target::None => (None, None, None),
            Target::Tool { name, .. } => (Some(shorten(name)), None, None),
            Target::Prompt(name) => (None, Some(shorten(name)), None),
            Target::Resource(uri) => (None, None, Some(shorten(uri))),
        };
        let name = match target {
            Target::Tool { name, served: true } => format!("{method} {name}"),
            _ => method.to_string(),
        };
        let http = context.extensions.get::<Parts>();
        let session = http
            .and_then(|parts| parts.headers.get(SESSION_HEADER))
            .and_then(|value| value.to_str().ok())
            .map(shorten);
        let version = context.protocol_version();
        let span = tracing::info_span!(
            target: "holon_mcp",
            "mcp_request",
            otel.name = %name,
            otel.kind = "server",
            mcp.method.name = %method,
            jsonrpc.request.id = %context.id,
            mcp.protocol.version = version.as_ref().map(ProtocolVersion::as_str),
            mcp.session.id = session.as_deref(),
            mcp.resource.uri = resource.as_deref(),
            network.transport = if http.is_some() { "tcp" } else { "pipe" },
            network.protocol.name = http.map(|_| "http"),
            gen_ai.operation.name = tool.as_ref().map(|_| "execute_tool"),
            gen_ai.tool.name = tool.as_deref(),
            gen_ai.prompt.name = prompt.as_deref(),
            error.type = Empty,
            rpc.response.status_code = Empty,
            otel.status_code = Empty,
            otel.status_description = Empty,
        );
        set_remote_parent(&span, &context.meta.0);
        Self(span)
    }

    /// `work` inside the span, which records the JSON-RPC error it ends with.
    pub(crate) fn run<T>(
        self,
        work: impl Future<Output = Result<T, ErrorData>>,
    ) -> impl Future<Output = Result<T, ErrorData>> {
        let span = self.0;
        let finished = span.clone();
        async move {
            let result = work.await;
            if let Err(error) = &result {
                let code = error.code.0.to_string();
                finished.record("error.type", code.as_str());
                finished.record("rpc.response.status_code", code.as_str());
                finished.record("otel.status_code", "ERROR");
                finished.record("otel.status_description", shorten(&error.message).as_str());
            }
            result
        }
        .instrument(span)
    }
}

/// Records on the current request's span that the tool's result has `isError`.
pub(crate) fn mark_tool_error() {
    let span = tracing::Span::current();
    span.record("error.type", "tool_error");
    span.record("otel.status_code", "ERROR");
}

/// Makes the W3C trace context of `meta` (`traceparent`, `tracestate`) the parent of
/// `span`; a missing or malformed one leaves the span where it is.
fn set_remote_parent(span: &tracing::Span, meta: &MetaObject) {
    let parent = TraceContextPropagator::new().extract(&MetaCarrier(meta));
    if parent.span().span_context().is_valid() {
        // Fails only when spans are not exported (no OpenTelemetry layer).
        let _ = span.set_parent(parent);
    }
}

/// A request's `_meta` as the carrier a propagator reads: its string values.
struct MetaCarrier<'a>(&'a MetaObject);

impl Extractor for MetaCarrier<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.0.get(key).and_then(|value| value.as_str())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.0.keys().map(String::as_str).collect()
    }
}

/// `text`, cut to at most [`MAX_ATTRIBUTE_CHARS`] characters (it is the caller's).
fn shorten(text: &str) -> String {
    match text.char_indices().nth(MAX_ATTRIBUTE_CHARS) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}
