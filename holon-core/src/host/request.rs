//! What the transport knows about the request that called a tool: its `_meta`, the
//! HTTP headers, the authenticated principal, the protocol revision and the session.
//!
//! A host (an MCP server) puts them into each call's context with
//! [`ToolContext::with_state`]; a handler takes them as parameters (`meta: RequestMeta`,
//! `headers: Option<Headers>`, ...). Outside a transport that knows them, taking one is
//! a `missing_context` error that says so; `Option<T>` takes it when there is one.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::host::context::ToolContext;
use crate::host::extract::FromToolContext;
use crate::result::error::{ToolError, ToolErrorKind};

/// The `_meta` object of the request that called the tool (MCP's `params._meta`),
/// trace context included.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RequestMeta(Arc<Map<String, Value>>);

impl RequestMeta {
    /// The `_meta` object `fields`.
    pub fn new(fields: Map<String, Value>) -> Self {
        Self(Arc::new(fields))
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.get(key)
    }

    /// Every field.
    pub fn fields(&self) -> &Map<String, Value> {
        &self.0
    }

    /// The W3C trace context's `traceparent` (the key MCP reserves for it).
    pub fn traceparent(&self) -> Option<&str> {
        self.get("traceparent").and_then(Value::as_str)
    }

    /// The W3C trace context's `tracestate`.
    pub fn tracestate(&self) -> Option<&str> {
        self.get("tracestate").and_then(Value::as_str)
    }
}

/// The headers of the HTTP request that called the tool, names in lowercase, in the
/// order they came. The `Authorization` and `Cookie` headers are left out: the
/// credential is the host's to check (a handler takes the [`Principal`] instead).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Headers(Arc<HeaderLines>);

/// Every line in three buffers: a request's headers cost four allocations, not two
/// a line (every `tools/call` over HTTP builds them).
#[derive(Default, PartialEq, Eq)]
struct HeaderLines {
    /// The names, lowercase, one after the other.
    names: String,
    /// The values, one after the other.
    values: Vec<u8>,
    /// Where each line's name ends in `names` and its value in `values`.
    ends: Vec<(usize, usize)>,
}

impl Headers {
    /// Headers from `(name, value)` pairs; names are lowercased, and the credential
    /// headers dropped.
    pub fn new<N: AsRef<str>, V: AsRef<[u8]>>(pairs: impl IntoIterator<Item = (N, V)>) -> Self {
        let pairs = pairs.into_iter();
        let count = pairs.size_hint().0;
        let mut lines = HeaderLines {
            names: String::with_capacity(count * 16),
            values: Vec::with_capacity(count * 32),
            ends: Vec::with_capacity(count),
        };
        for (name, value) in pairs {
            let name = name.as_ref();
            if name.eq_ignore_ascii_case("authorization") || name.eq_ignore_ascii_case("cookie") {
                continue;
            }
            let start = lines.names.len();
            lines.names.push_str(name);
            lines.names[start..].make_ascii_lowercase();
            lines.values.extend_from_slice(value.as_ref());
            lines.ends.push((lines.names.len(), lines.values.len()));
        }
        Self(Arc::new(lines))
    }

    /// The first value of the header `name` (any case), if it is text.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.get_all(name)
            .next()
            .and_then(|value| std::str::from_utf8(value).ok())
    }

    /// Every value of the header `name` (any case), as bytes.
    pub fn get_all<'s, 'n>(
        &'s self,
        name: &'n str,
    ) -> impl Iterator<Item = &'s [u8]> + use<'s, 'n> {
        self.iter()
            .filter(move |(own, _)| own.eq_ignore_ascii_case(name))
            .map(|(_, value)| value)
    }

    /// Every header, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &[u8])> {
        let lines = &*self.0;
        let mut starts = (0, 0);
        lines.ends.iter().map(move |&(name_end, value_end)| {
            let (name_start, value_start) = std::mem::replace(&mut starts, (name_end, value_end));
            (
                &lines.names[name_start..name_end],
                &lines.values[value_start..value_end],
            )
        })
    }

    /// How many header lines there are.
    pub fn len(&self) -> usize {
        self.0.ends.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.ends.is_empty()
    }
}

impl std::fmt::Debug for Headers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(
                self.iter()
                    .map(|(name, value)| (name, String::from_utf8_lossy(value))),
            )
            .finish()
    }
}

/// Who the host authenticated the request as, and the scopes granted to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    id: Arc<str>,
    scopes: Arc<[Box<str>]>,
    client_id: Option<Arc<str>>,
}

// Written here rather than in `context`: the context knows no request data.
impl ToolContext {
    /// Who the call is for: the authenticated [`Principal`]'s id where the transport
    /// set one, else the caller's id, else empty. The approval policy binds an asked
    /// call to it, and a host that keeps state per caller (command tasks) keys it by it.
    /// It comes from the host, never from the call's arguments.
    ///
    /// [`Principal`]: crate::Principal
    pub fn principal_id(&self) -> &str {
        match self.state::<Principal>() {
            Ok(principal) => principal.id(),
            Err(_) => self.caller().unwrap_or_default(),
        }
    }
}

impl Principal {
    /// The principal `id` with `scopes`.
    pub fn new<S: Into<Box<str>>>(
        id: impl Into<Arc<str>>,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        Self {
            id: id.into(),
            scopes: scopes.into_iter().map(Into::into).collect(),
            client_id: None,
        }
    }

    /// The same principal, acting through the OAuth client `client_id` (a token's
    /// `client_id` or `azp` claim).
    pub fn with_client_id(mut self, client_id: impl Into<Arc<str>>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// The OAuth client the principal acts through, when the credential names one.
    pub fn client_id(&self) -> Option<&str> {
        self.client_id.as_deref()
    }

    /// Its id (a token's subject, or the name of a static credential).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The scopes granted.
    pub fn scopes(&self) -> impl Iterator<Item = &str> {
        self.scopes.iter().map(|scope| &**scope)
    }

    /// Whether `scope` was granted.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes().any(|own| own == scope)
    }
}

/// The protocol revision the request was made under (e.g. `2025-11-25`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ProtocolVersion(Arc<str>);

impl ProtocolVersion {
    /// The revision `version`.
    pub fn new(version: impl Into<Arc<str>>) -> Self {
        Self(version.into())
    }

    /// The revision's date string.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The id of the session the request belongs to, where the transport has sessions.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SessionId(Arc<str>);

impl SessionId {
    /// The session `id`.
    pub fn new(id: impl Into<Arc<str>>) -> Self {
        Self(id.into())
    }

    /// The id as the transport sent it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Each type is taken from the call's context by value (a cheap clone), or is a
/// `missing_context` error naming where it comes from; `Option<T>` is `None` then.
macro_rules! request_extractor {
    ($type:ident, $source:literal) => {
        impl FromToolContext<'_> for $type {
            fn from_context(context: &ToolContext) -> Result<Self, ToolError> {
                match context.state::<$type>() {
                    Ok(value) => Ok(value.clone()),
                    Err(_) => Err(missing(stringify!($type), $source)),
                }
            }
        }

        impl FromToolContext<'_> for Option<$type> {
            fn from_context(context: &ToolContext) -> Result<Self, ToolError> {
                Ok(context.state::<$type>().ok().cloned())
            }
        }
    };
}

request_extractor!(RequestMeta, "an MCP request (its `_meta`)");
request_extractor!(Headers, "an MCP request over HTTP");
request_extractor!(Principal, "a request its host authenticated");
request_extractor!(ProtocolVersion, "an MCP request");
request_extractor!(SessionId, "an MCP request in a session (streamable HTTP)");

fn missing(handle: &str, source: &str) -> ToolError {
    ToolError::new(
        ToolErrorKind::MISSING_CONTEXT,
        format!(
            "this tool takes the request's `{handle}`, which only {source} has, and this call came without one"
        ),
    )
    .with_hint(format!(
        "call it through a host that provides it (an MCP server), or take `Option<{handle}>` to run without it"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::family::FamilyPolicy;

    #[test]
    fn outside_a_transport_each_is_missing_context_and_its_option_none() {
        let context = ToolContext::new(FamilyPolicy::all());
        let error = Headers::from_context(&context).expect_err("no headers");
        assert_eq!(error.kind, ToolErrorKind::MISSING_CONTEXT);
        assert!(error.message.contains("`Headers`"), "{}", error.message);
        assert_eq!(Option::<Principal>::from_context(&context), Ok(None));
        let context = context.with_state(SessionId::new("s1"));
        assert_eq!(
            SessionId::from_context(&context).map(|id| id.as_str().to_string()),
            Ok("s1".to_string())
        );
    }

    #[test]
    fn headers_lowercase_their_names_and_drop_credentials() {
        let headers = Headers::new([
            ("X-Tenant", "a".as_bytes()),
            ("Authorization", b"Bearer secret"),
            ("cookie", b"id=1"),
            ("x-tenant", b"b"),
        ]);
        assert_eq!(headers.get("x-TENANT"), Some("a"));
        assert_eq!(headers.get_all("x-tenant").count(), 2);
        assert_eq!(headers.get("authorization"), None);
        assert_eq!(headers.len(), 2);
        assert_eq!(
            headers.iter().collect::<Vec<_>>(),
            [("x-tenant", "a".as_bytes()), ("x-tenant", b"b")]
        );
        assert_eq!(
            headers,
            Headers::new([("x-tenant", "a"), ("X-Tenant", "b")])
        );
        assert_ne!(headers, Headers::new([("x-tenant", "ab")]));
        assert_eq!(
            format!("{headers:?}"),
            r#"[("x-tenant", "a"), ("x-tenant", "b")]"#
        );
    }
}
