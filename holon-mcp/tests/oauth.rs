//! The HTTP server as an OAuth resource server, end to end: keys made here, a JWKS
//! served by a loopback server, tokens signed here, MCP requests over HTTP.

// A test's own loopback servers and clients.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod support;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use holon_core::prelude::*;
use holon_core::{Principal, Registry};
use holon_mcp::{HttpOptions, KeySource, McpServer, OAuthConfig, ServerInfo};
use holon_test_support::loopback::LoopbackServer;
use hyper::{Method, StatusCode};
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, EncodingKey, Header, encode};
use p256::elliptic_curve::Generate;
use p256::pkcs8::EncodePrivateKey;
use serde_json::{Value, json};

/// Who called: the principal the token made.
#[holon_tool(family = CoreAgent)]
fn whoami(principal: Principal) -> String {
    let scopes: Vec<&str> = principal.scopes().collect();
    format!(
        "{} via {} with {}",
        principal.id(),
        principal.client_id().unwrap_or("-"),
        scopes.join(" ")
    )
}

/// A tool of the web family.
#[holon_tool(family = Web)]
fn fetch_page() -> String {
    "fetched".to_string()
}

const ISSUER: &str = "https://auth.example";

/// A signing key made for the test, and its public JWK under `kid`.
struct SigningKey {
    key: EncodingKey,
    jwk: Jwk,
    kid: String,
}

impl SigningKey {
    fn generate(kid: &str) -> Self {
        let secret = p256::SecretKey::generate();
        let der = secret.to_pkcs8_der().unwrap();
        let key = EncodingKey::from_ec_der(der.as_bytes());
        let mut jwk = Jwk::from_encoding_key(&key, Algorithm::ES256).unwrap();
        jwk.common.key_id = Some(kid.to_string());
        Self {
            key,
            jwk,
            kid: kid.to_string(),
        }
    }

    fn sign(&self, claims: &Value) -> String {
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some(self.kid.clone());
        encode(&header, claims, &self.key).unwrap()
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// A loopback server answering every request with the JWKS of `keys`, counting them.
struct JwksServer {
    url: String,
    keys: Arc<Mutex<Vec<Jwk>>>,
    hits: Arc<AtomicUsize>,
}

async fn jwks_server(keys: Vec<Jwk>) -> JwksServer {
    let keys = Arc::new(Mutex::new(keys));
    let hits = Arc::new(AtomicUsize::new(0));
    let (served, counted) = (keys.clone(), hits.clone());
    let server = LoopbackServer::start(move |_| {
        counted.fetch_add(1, Ordering::SeqCst);
        let set = JwkSet {
            keys: served.lock().unwrap().clone(),
        };
        (200, serde_json::to_string(&set).unwrap())
    });
    let url = format!("http://{}/jwks.json", server.address());
    JwksServer { url, keys, hits }
}

/// An MCP server of this file's tools, checking tokens as `configure` sets up, with
/// its JWKS served by a loopback server.
struct Fixture {
    addr: SocketAddr,
    resource: String,
    signer: SigningKey,
    jwks: JwksServer,
}

impl Fixture {
    async fn start(configure: impl FnOnce(OAuthConfig) -> OAuthConfig) -> Self {
        Self::start_with(|server| server, configure).await
    }

    /// [`Fixture::start`] of the server `server` makes of the default one.
    async fn start_with(
        server: impl FnOnce(McpServer) -> McpServer,
        configure: impl FnOnce(OAuthConfig) -> OAuthConfig,
    ) -> Self {
        let signer = SigningKey::generate("key-1");
        let jwks = jwks_server(vec![signer.jwk.clone()]).await;
        // Bound first, so that the resource URL can name its port.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let resource = format!("http://{addr}/mcp");
        let keys = KeySource::jwks_url(&jwks.url).unwrap();
        let config = configure(OAuthConfig::new(&resource, ISSUER, keys).unwrap());
        let registry = Registry::of_module(module_path!()).unwrap();
        let server = server(McpServer::new(
            registry,
            ServerInfo::new("oauth-test", "1.0.0"),
        ));
        let options = HttpOptions::new().with_oauth(config);
        support::serve(listener, server, options).await;
        Self {
            addr,
            resource,
            signer,
            jwks,
        }
    }

    /// Claims of a token this server accepts, granting `scope`.
    fn claims(&self, scope: &str) -> Value {
        json!({
            "iss": ISSUER,
            "aud": self.resource,
            "sub": "alice",
            "client_id": "client-7",
            "scope": scope,
            "iat": now(),
            "exp": now() + 300,
        })
    }

    fn metadata_url(&self) -> String {
        format!(
            "http://{}/.well-known/oauth-protected-resource/mcp",
            self.addr
        )
    }

    async fn send(
        &self,
        method: Method,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<&Value>,
    ) -> (StatusCode, hyper::HeaderMap, String) {
        support::exchange(self.addr, method, path, headers, body).await
    }

    /// `initialize` with `token`: the status, headers and body of the answer.
    async fn initialize(&self, token: Option<&str>) -> (StatusCode, hyper::HeaderMap, String) {
        let authorization = token.map(|token| format!("Bearer {token}"));
        let headers: Vec<(&str, &str)> = authorization
            .iter()
            .map(|value| ("authorization", value.as_str()))
            .collect();
        let body = support::initialize("oauth-test-client");
        self.send(Method::POST, "/mcp", &headers, Some(&body)).await
    }

    /// A session opened with `token`, then `tools/call` of `tool`: the status and
    /// headers of the call's answer, and its JSON-RPC message.
    async fn call(&self, token: &str, tool: &str) -> (StatusCode, hyper::HeaderMap, Value) {
        let params = json!({ "name": tool, "arguments": {} });
        self.request(token, "tools/call", params).await
    }

    /// A session opened with `token`, then a `method` request with `params`: the
    /// status and headers of its answer, and its JSON-RPC message.
    async fn request(
        &self,
        token: &str,
        method: &str,
        params: Value,
    ) -> (StatusCode, hyper::HeaderMap, Value) {
        let (status, headers, body) = self.initialize(Some(token)).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let session = headers["mcp-session-id"].to_str().unwrap().to_string();
        let authorization = format!("Bearer {token}");
        let with_session = [
            ("authorization", authorization.as_str()),
            ("mcp-session-id", session.as_str()),
            ("mcp-protocol-version", "2025-11-25"),
        ];
        let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
        let (status, _, _) = self
            .send(Method::POST, "/mcp", &with_session, Some(&initialized))
            .await;
        assert_eq!(status, StatusCode::ACCEPTED);
        let call = json!({ "jsonrpc": "2.0", "id": 2, "method": method, "params": params });
        let (status, headers, body) = self
            .send(Method::POST, "/mcp", &with_session, Some(&call))
            .await;
        (status, headers, support::message(&body))
    }
}

fn challenge(headers: &hyper::HeaderMap) -> String {
    headers
        .get("www-authenticate")
        .map(|value| value.to_str().unwrap().to_string())
        .unwrap_or_default()
}

#[tokio::test]
async fn a_valid_token_is_served_and_its_principal_reaches_the_handler() {
    let fixture = Fixture::start(|config| config).await;
    let token = fixture
        .signer
        .sign(&fixture.claims("tools:core_agent email"));
    let (status, _, message) = fixture.call(&token, "Whoami").await;
    assert_eq!(status, StatusCode::OK);
    let text = message["result"]["structuredContent"]["result"]
        .as_str()
        .or_else(|| message["result"]["content"][0]["text"].as_str())
        .unwrap_or_default()
        .to_string();
    assert!(
        text.contains("alice via client-7 with tools:core_agent email"),
        "{message}"
    );
}

#[tokio::test]
async fn a_request_without_a_token_is_401_pointing_at_the_metadata() {
    let fixture = Fixture::start(|config| config).await;
    let (status, headers, _) = fixture.initialize(None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        challenge(&headers),
        format!("Bearer resource_metadata=\"{}\"", fixture.metadata_url())
    );
}

#[tokio::test]
async fn tokens_that_do_not_verify_are_401_invalid_token() {
    let fixture = Fixture::start(|config| config).await;
    let good = fixture.claims("tools:core_agent");
    let with = |key: &str, value: Value| {
        let mut claims = good.clone();
        claims[key] = value;
        claims
    };
    let stranger = SigningKey::generate("key-1");
    let unknown = SigningKey::generate("key-unknown");
    let b64 = |value: &Value| {
        use base64::Engine as _;
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(value.to_string())
    };
    let unsigned = format!(
        "{}.{}.",
        b64(&json!({ "alg": "none", "typ": "JWT" })),
        b64(&good)
    );
    // HS256 keyed with the public key's own coordinates: the RS/HS confusion attack.
    let public_x = match &fixture.signer.jwk.algorithm {
        jsonwebtoken::jwk::AlgorithmParameters::EllipticCurve(ec) => ec.x.clone(),
        other => panic!("{other:?}"),
    };
    let mut hs_header = Header::new(Algorithm::HS256);
    hs_header.kid = Some("key-1".to_string());
    let confused = encode(
        &hs_header,
        &good,
        &EncodingKey::from_secret(public_x.as_bytes()).unwrap(),
    )
    .unwrap();
    let cases = [
        (
            "wrong audience",
            fixture
                .signer
                .sign(&with("aud", json!("https://other.example/mcp"))),
            "audience",
        ),
        (
            "expired",
            fixture.signer.sign(&with("exp", json!(now() - 3600))),
            "expired",
        ),
        (
            "not yet valid",
            fixture.signer.sign(&with("nbf", json!(now() + 3600))),
            "not valid yet",
        ),
        (
            "other issuer",
            fixture
                .signer
                .sign(&with("iss", json!("https://evil.example"))),
            "issued by",
        ),
        ("bad signature", stranger.sign(&good), "signature"),
        ("alg none", unsigned, "unknown algorithm"),
        ("HS256 with the public key", confused, "does not accept"),
        ("unknown kid", unknown.sign(&good), "kid"),
        (
            "not a JWT",
            "0123456789abcdef0123456789".to_string(),
            "not a signed JWT",
        ),
    ];
    for (case, token, why) in cases {
        let (status, headers, body) = fixture.initialize(Some(&token)).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{case}: {body}");
        let challenge = challenge(&headers);
        assert!(
            challenge.starts_with(&format!(
                "Bearer resource_metadata=\"{}\"",
                fixture.metadata_url()
            )),
            "{case}: {challenge}"
        );
        assert!(
            challenge.contains("error=\"invalid_token\""),
            "{case}: {challenge}"
        );
        assert!(challenge.contains(why), "{case}: {challenge}");
    }
}

#[tokio::test]
async fn the_metadata_is_served_at_both_well_known_paths() {
    let fixture = Fixture::start(|config| config).await;
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        let (status, headers, body) = fixture.send(Method::GET, path, &[], None).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(headers["content-type"], "application/json");
        let document: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(document["resource"], fixture.resource.as_str(), "{path}");
        assert_eq!(document["authorization_servers"], json!([ISSUER]));
        assert_eq!(document["bearer_methods_supported"], json!(["header"]));
        let scopes = document["scopes_supported"].as_array().unwrap();
        assert!(scopes.contains(&json!("tools:core_agent")), "{document}");
        assert!(scopes.contains(&json!("tools:web")), "{document}");
    }
}

#[tokio::test]
async fn a_call_of_a_family_the_token_lacks_is_403_naming_the_scope() {
    let fixture = Fixture::start(|config| config).await;
    let token = fixture.signer.sign(&fixture.claims("tools:core_agent"));
    let (status, headers, _) = fixture.call(&token, "FetchPage").await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let challenge = challenge(&headers);
    assert!(
        challenge.starts_with(
            "Bearer error=\"insufficient_scope\", scope=\"tools:core_agent tools:web\""
        ),
        "{challenge}"
    );
    assert!(
        challenge.contains(&format!("resource_metadata=\"{}\"", fixture.metadata_url())),
        "{challenge}"
    );
    // With the scope, the same call is served.
    let token = fixture
        .signer
        .sign(&fixture.claims("tools:core_agent tools:web"));
    let (status, _, message) = fixture.call(&token, "FetchPage").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(message["result"]["isError"], json!(false), "{message}");
}

#[tokio::test]
async fn a_token_without_a_required_scope_is_403_naming_it() {
    let fixture = Fixture::start(|config| config.with_required_scopes(&["mcp"]).unwrap()).await;
    let token = fixture.signer.sign(&fixture.claims("tools:core_agent"));
    let (status, headers, _) = fixture.initialize(Some(&token)).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let challenge = challenge(&headers);
    assert!(
        challenge
            .starts_with("Bearer error=\"insufficient_scope\", scope=\"mcp tools:core_agent\""),
        "{challenge}"
    );
    let (status, headers, _) = fixture.initialize(None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(challenge_has(&headers, "scope=\"mcp\""));
    let token = fixture.signer.sign(&fixture.claims("mcp tools:core_agent"));
    let (status, _, _) = fixture.initialize(Some(&token)).await;
    assert_eq!(status, StatusCode::OK);
}

fn challenge_has(headers: &hyper::HeaderMap, part: &str) -> bool {
    challenge(headers).contains(part)
}

#[tokio::test]
async fn without_the_scope_challenge_the_family_gate_refuses_the_call() {
    let fixture = Fixture::start(|config| config.with_scope_challenge(false)).await;
    let token = fixture.signer.sign(&fixture.claims("tools:core_agent"));
    let (status, _, message) = fixture.call(&token, "FetchPage").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(message["result"]["isError"], json!(true), "{message}");
    assert_eq!(
        message["result"]["_meta"]["holon/error"]["kind"],
        json!("family_not_allowed"),
        "{message}"
    );
    let (_, _, message) = fixture.call(&token, "Whoami").await;
    assert_eq!(message["result"]["isError"], json!(false), "{message}");
}

#[tokio::test]
async fn a_key_the_issuer_rotates_in_is_fetched_when_a_token_names_it() {
    let fixture = Fixture::start(|config| config.with_key_refresh_interval(Duration::ZERO)).await;
    let fetched_at_start = fixture.jwks.hits.load(Ordering::SeqCst);
    assert_eq!(fetched_at_start, 1);
    let rotated = SigningKey::generate("key-2");
    let token = rotated.sign(&fixture.claims("tools:core_agent"));
    let (status, _, _) = fixture.initialize(Some(&token)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "not published yet");
    fixture.jwks.keys.lock().unwrap().push(rotated.jwk.clone());
    let (status, _, body) = fixture.initialize(Some(&token)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // A known key is not fetched again.
    let hits = fixture.jwks.hits.load(Ordering::SeqCst);
    let (status, _, _) = fixture.initialize(Some(&token)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(fixture.jwks.hits.load(Ordering::SeqCst), hits);
}

/// The names `tools/list` shows to `token`, and the list's `cacheScope`.
async fn listed(fixture: &Fixture, token: &str) -> (Vec<String>, Value) {
    let (status, _, answer) = fixture.request(token, "tools/list", json!({})).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let result = &answer["result"];
    let names = result["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("a tools list: {answer}"))
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_string())
        .collect();
    (names, result["cacheScope"].clone())
}

#[tokio::test]
async fn tools_list_shows_only_the_tools_of_the_families_a_token_grants_to_it_alone() {
    // Lists any client may reuse, but for the token's narrowing.
    let public = |server: McpServer| {
        server.with_list_caching(holon_mcp::ListCaching {
            ttl_ms: 60_000,
            scope: holon_mcp::rmcp::model::CacheScope::Public,
        })
    };
    let fixture = Fixture::start_with(public, |config| config).await;
    let core_only = fixture.signer.sign(&fixture.claims("tools:core_agent"));
    let both = fixture
        .signer
        .sign(&fixture.claims("tools:core_agent tools:web"));
    let (names, scope) = listed(&fixture, &core_only).await;
    assert_eq!(names, ["Whoami"]);
    assert_eq!(scope, "private", "the list depends on the caller");
    let (names, scope) = listed(&fixture, &both).await;
    assert_eq!(names, ["FetchPage", "Whoami"]);
    assert_eq!(scope, "private");
    // What the list leaves out is what the family gate refuses.
    let (_, _, answer) = fixture.call(&core_only, "FetchPage").await;
    assert!(
        answer
            .get("result")
            .is_none_or(|result| result["isError"] == true),
        "{answer}"
    );
}
