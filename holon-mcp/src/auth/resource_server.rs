//! The HTTP server as an OAuth resource server: it serves its metadata, admits a
//! request whose access token verifies (with the principal and the families its scopes
//! grant), and challenges the rest.

use std::collections::HashMap;
use std::convert::Infallible;

use holon_core::{Principal, ToolCapabilityFamily};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Either, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{ACCESS_CONTROL_ALLOW_ORIGIN, ALLOW, CACHE_CONTROL, CONTENT_TYPE, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use serde::Deserialize;
use serde_json::json;
use subtle::ConstantTimeEq;

use super::challenge::{Refusal, insufficient_scope, unauthorized};
use super::config::{OAuthConfig, WELL_KNOWN, metadata_path};
use super::grant::GrantedFamilies;
use super::keys::KeyStore;
use super::scopes::ScopeMap;
use super::token::TokenVerifier;
use crate::http::guard::{STATIC_TOKEN_PRINCIPAL, presented_token};

/// A request the gate admitted: its body as it came, or read whole to look at.
pub(crate) use super::gate::GateBody;

/// The resource server of one HTTP server.
pub(crate) struct ResourceServer {
    verifier: TokenVerifier,
    scopes: ScopeMap,
    required: Vec<String>,
    scope_challenge: bool,
    issuer: String,
    resource: String,
    metadata_url: String,
    metadata_paths: Vec<String>,
    metadata: Bytes,
    /// The static bearer token, also accepted (for every family) when one was chosen.
    static_token: Option<String>,
    /// The family of each tool the server serves, for the scope challenge.
    tool_families: HashMap<String, ToolCapabilityFamily>,
    max_body: usize,
}

/// The JSON-RPC fields the scope challenge looks at.
#[derive(Deserialize)]
struct CallPeek {
    method: String,
    params: Option<CallParams>,
}

#[derive(Deserialize)]
struct CallParams {
    name: String,
}

impl ResourceServer {
    /// The resource server of `config`, its keys loaded (a JWKS URL that does not
    /// answer now is noted by `warn` and fetched on the first token).
    pub(crate) async fn start(
        config: OAuthConfig,
        name: &str,
        static_token: Option<String>,
        tool_families: HashMap<String, ToolCapabilityFamily>,
        max_body: usize,
        warn: impl FnOnce(String),
    ) -> Result<Self, String> {
        let keys = KeyStore::load(config.keys.clone(), config.key_refresh_interval, warn).await?;
        let verifier = TokenVerifier::new(&config, keys)?;
        let mut scopes_supported: Vec<&str> =
            config.required_scopes.iter().map(String::as_str).collect();
        for scope in config.scopes.scopes() {
            if !scopes_supported.contains(&scope) {
                scopes_supported.push(scope);
            }
        }
        let metadata = json!({
            "resource": config.resource(),
            "authorization_servers": config.authorization_servers,
            "scopes_supported": scopes_supported,
            "bearer_methods_supported": ["header"],
            "resource_name": name,
        });
        let mut metadata_paths = vec![WELL_KNOWN.to_string(), metadata_path(&config.resource)];
        let local = format!("{WELL_KNOWN}{}", crate::HTTP_PATH);
        if !metadata_paths.contains(&local) {
            metadata_paths.push(local);
        }
        Ok(Self {
            verifier,
            scope_challenge: config.scope_challenge,
            issuer: config.issuer.clone(),
            resource: config.resource().to_string(),
            metadata_url: config.metadata_url(),
            metadata_paths,
            metadata: Bytes::from(metadata.to_string()),
            required: config.required_scopes,
            scopes: config.scopes,
            static_token,
            tool_families,
            max_body,
        })
    }

    /// The line stderr gets about how requests authenticate.
    pub(crate) fn announcement(&self, name: &str) -> String {
        let also = if self.static_token.is_some() {
            ", or the static bearer token"
        } else {
            ""
        };
        format!(
            "{name}: clients send `Authorization: Bearer TOKEN` with an access token issued by {} \
             for {}{also}; metadata at {}",
            self.issuer, self.resource, self.metadata_url
        )
    }

    /// The metadata document, for a request to one of its paths.
    pub(crate) fn metadata_response<B>(
        &self,
        request: &Request<B>,
    ) -> Option<Response<BoxBody<Bytes, Infallible>>> {
        let path = request.uri().path();
        if !self.metadata_paths.iter().any(|own| own == path) {
            return None;
        }
        let mut response = if matches!(*request.method(), Method::GET | Method::HEAD) {
            let mut response = Response::new(Full::new(self.metadata.clone()).boxed());
            let headers = response.headers_mut();
            headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
            headers.insert(CACHE_CONTROL, HeaderValue::from_static("max-age=3600"));
            response
        } else {
            let mut response = Response::new(
                Full::new(Bytes::from_static(b"the metadata is read with GET\n")).boxed(),
            );
            *response.status_mut() = StatusCode::METHOD_NOT_ALLOWED;
            response
                .headers_mut()
                .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
            response
        };
        // Public by design: any page may read where tokens come from.
        response
            .headers_mut()
            .insert(ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
        Some(response)
    }

    /// `request` with its principal and granted families, when its token verifies and
    /// holds what it needs; else the 401 or 403 to answer with.
    pub(crate) async fn admit(
        &self,
        mut request: Request<Incoming>,
    ) -> Result<Request<GateBody>, Refusal> {
        // The scopes a challenge names, written out only for one.
        let required = || self.required.join(" ");
        let Some(token) = presented_token(request.headers()) else {
            return Err(unauthorized(&self.metadata_url, &required(), None));
        };
        if let Some(own) = &self.static_token
            && bool::from(token.as_bytes().ct_eq(own.as_bytes()))
        {
            let principal = Principal::new(STATIC_TOKEN_PRINCIPAL, [] as [&str; 0]);
            request.extensions_mut().insert(principal);
            return Ok(request.map(Either::Left));
        }
        let claims = self
            .verifier
            .verify(token)
            .await
            .map_err(|why| unauthorized(&self.metadata_url, &required(), Some(&why)))?;
        if let Some(missing) = self
            .required
            .iter()
            .find(|scope| !claims.scopes.contains(scope))
        {
            return Err(insufficient_scope(
                &self.metadata_url,
                &self.wanted(&claims.scopes, None),
                &format!("every request needs the scope `{missing}`"),
            ));
        }
        let granted = self
            .scopes
            .granted(claims.scopes.iter().map(String::as_str));
        let mut principal =
            Principal::new(claims.subject, claims.scopes.iter().map(String::as_str));
        if let Some(client) = claims.client_id {
            principal = principal.with_client_id(client);
        }
        request.extensions_mut().insert(principal);
        request.extensions_mut().insert(GrantedFamilies(granted));
        if !self.scope_challenge || request.method() != Method::POST {
            return Ok(request.map(Either::Left));
        }
        // A `tools/call` of a family the token lacks is answered with the scope to
        // ask for; the body, read whole for it, goes on to the transport as read.
        let (parts, body) = request.into_parts();
        let body = match Limited::new(body, self.max_body).collect().await {
            Ok(collected) => collected.to_bytes(),
            Err(_) => return Err(too_large(self.max_body)),
        };
        if let Ok(CallPeek {
            method,
            params: Some(CallParams { name }),
        }) = serde_json::from_slice::<CallPeek>(&body)
            && method == "tools/call"
            && let Some(family) = self.tool_families.get(&name)
            && !granted.allows(*family)
        {
            let scope = self.scopes.scope_for(*family);
            return Err(insufficient_scope(
                &self.metadata_url,
                &self.wanted(&claims.scopes, scope),
                &format!(
                    "the tool `{name}` is of the family {family}, which the token's scopes do not grant"
                ),
            ));
        }
        Ok(Request::from_parts(parts, Either::Right(Full::new(body))))
    }

    /// The scopes a scope challenge asks for: the required ones, those of `held` the
    /// server knows (so that stepping up loses nothing), and `needed`. Only scope
    /// names of the configuration are echoed, never a token's own text.
    fn wanted(&self, held: &[String], needed: Option<&str>) -> String {
        let mut wanted: Vec<&str> = self.required.iter().map(String::as_str).collect();
        let known = held
            .iter()
            .map(String::as_str)
            .filter(|scope| self.scopes.contains(scope));
        for scope in known.chain(needed) {
            if !wanted.contains(&scope) {
                wanted.push(scope);
            }
        }
        wanted.join(" ")
    }
}

fn too_large(max: usize) -> Refusal {
    let mut response = Response::new(
        Full::new(Bytes::from(format!(
            "payload too large: a request body may have {max} bytes at most\n"
        )))
        .boxed(),
    );
    *response.status_mut() = StatusCode::PAYLOAD_TOO_LARGE;
    response
}
