//! `RequestEcho`, that answers with what the transport told it about the request that
//! called it (the extractors of a call over MCP), and the ordinary tools of `numbers`,
//! which a lean build must serve as the default build does.

pub mod numbers;

use holon_core::prelude::*;
use holon_core::{Headers, Principal, ProtocolVersion, RequestMeta, SessionId};

/// Arguments of RequestEcho.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct RequestEchoArgs {
    /// The header whose value to echo.
    pub header: String,
}

/// What RequestEcho saw of its request.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Echo {
    /// The request's `_meta.traceparent`.
    pub traceparent: Option<String>,
    /// The value of the asked header (HTTP only).
    pub header: Option<String>,
    /// How many header lines the request had (HTTP only).
    pub header_count: Option<usize>,
    /// The authenticated principal's id (HTTP with a token only).
    pub principal: Option<String>,
    /// The protocol revision.
    pub protocol_version: String,
    /// The session id (streamable HTTP only).
    pub session: Option<String>,
}

/// Echoes what the transport knows of the request that called it.
#[holon_tool(family = CoreAgent)]
fn request_echo(
    args: RequestEchoArgs,
    meta: RequestMeta,
    version: ProtocolVersion,
    headers: Option<Headers>,
    principal: Option<Principal>,
    session: Option<SessionId>,
) -> Echo {
    Echo {
        traceparent: meta.traceparent().map(str::to_string),
        header: headers
            .as_ref()
            .and_then(|headers| headers.get(&args.header).map(str::to_string)),
        header_count: headers.as_ref().map(Headers::len),
        principal: principal.map(|principal| principal.id().to_string()),
        protocol_version: version.as_str().to_string(),
        session: session.map(|session| session.as_str().to_string()),
    }
}
