//! The server span of each MCP request the server answers itself. With the
//! `tracing` feature it is a `tracing` span named and attributed as OpenTelemetry's
//! MCP semantic conventions say (module `spans`); without it, [`RequestSpan`] is nothing
//! and [`RequestSpan::run`] hands the request's future back as it is.

#[cfg(feature = "tracing")]
mod spans;

#[cfg(feature = "tracing")]
pub(crate) use spans::{RequestSpan, mark_tool_error};

/// What a request is about, beside its method: its span's target and attributes.
#[derive(Clone, Copy)]
#[cfg_attr(not(feature = "tracing"), allow(dead_code))]
pub(crate) enum Target<'a> {
    /// Nothing in particular (`tools/list`, `logging/setLevel`, ...).
    None,
    /// A `tools/call` of `name`; `served` when the server has that tool (only then
    /// is it in the span's name: a caller's made-up names would make names many).
    Tool {
        /// The tool the client named.
        name: &'a str,
        /// Whether the server has it.
        served: bool,
    },
    /// A `prompts/get` of this prompt (the host's: not in the span's name).
    Prompt(&'a str),
    /// A `resources/*` request of this URI (never in the span's name).
    Resource(&'a str),
}

/// Without the `tracing` feature: no span.
#[cfg(not(feature = "tracing"))]
pub(crate) struct RequestSpan;

#[cfg(not(feature = "tracing"))]
impl RequestSpan {
    /// No span.
    pub(crate) fn new(
        _method: &str,
        _target: Target<'_>,
        _context: &rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Self {
        Self
    }

    /// `work` itself.
    pub(crate) fn run<F>(self, work: F) -> F {
        work
    }
}

/// Without the `tracing` feature: nothing to mark.
#[cfg(not(feature = "tracing"))]
pub(crate) fn mark_tool_error() {}
