//! The context of one `tools/call`: the server's, plus what the transport knows of
//! the request (its `_meta`, HTTP headers, principal, protocol revision, session) and
//! the client it came from.

use holon_core::{
    FamilyPolicy, Headers, Principal, ProtocolVersion, RequestMeta, SessionId, ToolContext,
};
use http::HeaderName;
use http::request::Parts;
use rmcp::RoleServer;
use rmcp::model::ProtocolVersion as McpVersion;
use rmcp::service::RequestContext;

#[cfg(feature = "http")]
use crate::auth::GrantedFamilies;

/// The `_meta` key a stateless (2026-07-28) request names its revision under.
const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// The header a streamable HTTP request names its revision in.
const PROTOCOL_VERSION_HEADER: HeaderName = HeaderName::from_static("mcp-protocol-version");

/// The header a streamable HTTP request names its session in (a `HeaderName`: a
/// lookup by it parses no name).
pub(crate) const SESSION_HEADER: HeaderName = HeaderName::from_static("mcp-session-id");

/// Whether `request` is of the stateless revision (2026-07-28 or later): it names its
/// revision and client in its `_meta`, and the server sends the client no request.
pub(crate) fn is_stateless(request: &RequestContext<RoleServer>) -> bool {
    request
        .protocol_version()
        .is_some_and(|version| version >= McpVersion::V_2026_07_28)
}

/// The principal who made `request`, when its host authenticated it.
pub(crate) fn principal(request: &RequestContext<RoleServer>) -> Option<&Principal> {
    request
        .extensions
        .get::<Parts>()
        .and_then(|parts| parts.extensions.get::<Principal>())
}

/// The families of `policy` the access token of `request` grants, when its host
/// checked one: the family gate then allows no others.
#[cfg(feature = "http")]
pub(crate) fn granted(
    request: &RequestContext<RoleServer>,
    policy: FamilyPolicy,
) -> Option<FamilyPolicy> {
    request
        .extensions
        .get::<Parts>()
        .and_then(|parts| parts.extensions.get::<GrantedFamilies>())
        .map(|grant| grant.narrow(policy))
}

/// None: only the HTTP server (feature `http`) checks access tokens.
#[cfg(not(feature = "http"))]
pub(crate) fn granted(
    _request: &RequestContext<RoleServer>,
    _policy: FamilyPolicy,
) -> Option<FamilyPolicy> {
    None
}

/// The context `base` for the call `request` (the client is the caller's to attach).
pub(crate) fn call_context(
    base: &ToolContext,
    request: &RequestContext<RoleServer>,
) -> ToolContext {
    let mut context = base
        .clone()
        .with_cancellation(request.ct.clone())
        .with_state(RequestMeta::new(request.meta.0.0.clone()));
    let parts = request.extensions.get::<Parts>();
    let header = |name: HeaderName| {
        parts
            .and_then(|parts| parts.headers.get(name))
            .and_then(|value| value.to_str().ok())
            .map(str::to_string)
    };
    let version = request
        .meta
        .0
        .get(META_PROTOCOL_VERSION)
        .and_then(|value| value.as_str())
        .map(str::to_string)
        .or_else(|| {
            request
                .peer
                .peer_info()
                .map(|info| info.protocol_version.to_string())
        })
        .or_else(|| header(PROTOCOL_VERSION_HEADER));
    if let Some(version) = version {
        context = context.with_state(ProtocolVersion::new(version));
    }
    if let Some(session) = header(SESSION_HEADER) {
        context = context.with_state(SessionId::new(session));
    }
    if let Some(parts) = parts {
        let headers = parts
            .headers
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_bytes()));
        context = context.with_state(Headers::new(headers));
        if let Some(principal) = parts.extensions.get::<Principal>() {
            context = context.with_state(principal.clone());
        }
    }
    if let Some(policy) = granted(request, context.policy()) {
        context = context.with_policy(policy);
    }
    context
}
