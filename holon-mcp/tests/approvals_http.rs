//! An asked call over authenticated HTTP with two principals, under MCP 2026-07-28:
//! principal A's call waits in an elicitation round; principal B, replaying A's round
//! state with an accepting answer, is refused and nothing runs; A's own answer runs the
//! call once, and its audit record names A's user as who decided.

// A test's own loopback servers and clients.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use holon_core::prelude::*;
use holon_core::{DispatchObserver, Execution, FamilyPolicy, Registry};
use holon_mcp::{HttpOptions, HttpServer, KeySource, McpServer, OAuthConfig, ServerInfo};
use holon_policy::audit::AuditRecord;
use holon_policy::{
    ApprovalPolicy, ApprovalState, Approvals, MemoryApprovalStore, OperatorKey, Rule, Verdict,
    WithApprovals,
};
use holon_test_support::http;
use holon_test_support::initialize::Client;
use holon_test_support::loopback::LoopbackServer;
use hyper::Method;
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, EncodingKey, Header, encode};
use p256::elliptic_curve::Generate;
use p256::pkcs8::EncodePrivateKey;
use serde_json::{Value, json};

/// The entries the tool below appended: its side effect.
#[derive(Default)]
struct Ledger(Mutex<Vec<String>>);

/// Arguments of AppendEntry.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct EntryArgs {
    /// The entry.
    entry: String,
}

/// Appends an entry to the host's ledger; the policy asks before each call.
#[holon_tool(family = CoreAgent, annotations(destructive))]
fn append_entry(ledger: &Ledger, args: EntryArgs) -> Result<usize, ToolError> {
    let mut entries = ledger.0.lock().unwrap();
    entries.push(args.entry);
    Ok(entries.len())
}

/// Every call's audit record.
#[derive(Default)]
struct Audit(Mutex<Vec<AuditRecord>>);

impl DispatchObserver for Audit {
    fn record(&self, execution: &Execution<'_>) {
        let record = AuditRecord::of_execution(execution, false);
        self.0.lock().unwrap().push(record);
    }
}

const ISSUER: &str = "https://auth.example";

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// A loopback server answering every request with the JWKS `keys`.
async fn jwks_server(keys: JwkSet) -> String {
    let body = serde_json::to_string(&keys).unwrap();
    let server = LoopbackServer::start(move |_| (200, body.clone()));
    format!("http://{}/jwks.json", server.address())
}

/// An MCP server over HTTP whose tokens this test signs, with the ledger, the
/// approvals and the audit its calls go through.
struct Host {
    addr: SocketAddr,
    resource: String,
    key: EncodingKey,
    ledger: Arc<Ledger>,
    approvals: Arc<Approvals>,
    audit: Arc<Audit>,
}

impl Host {
    async fn start() -> Self {
        let secret = p256::SecretKey::generate();
        let key = EncodingKey::from_ec_der(secret.to_pkcs8_der().unwrap().as_bytes());
        let mut jwk = Jwk::from_encoding_key(&key, Algorithm::ES256).unwrap();
        jwk.common.key_id = Some("key-1".to_string());
        let jwks = jwks_server(JwkSet { keys: vec![jwk] }).await;
        // Bound first, so that the resource URL can name its port.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let resource = format!("http://{addr}/mcp");
        let config =
            OAuthConfig::new(&resource, ISSUER, KeySource::jwks_url(&jwks).unwrap()).unwrap();
        let policy = ApprovalPolicy::new(Verdict::Allow)
            .with_rule(Rule::new(Verdict::Ask).for_tool("AppendEntry"));
        let approvals = Arc::new(Approvals::new(
            policy,
            Arc::new(MemoryApprovalStore::new()),
            OperatorKey::generate().unwrap(),
        ));
        let ledger = Arc::new(Ledger::default());
        let audit = Arc::new(Audit::default());
        let context = ToolContext::new(FamilyPolicy::all())
            .with_shared_state(Arc::clone(&ledger))
            .with_observer(audit.clone())
            .with_approvals(Arc::clone(&approvals));
        let server = McpServer::new(
            Registry::of_module(module_path!()).unwrap(),
            ServerInfo::new("approvals-http-test", "1.0.0"),
        )
        .with_context(context);
        let options = HttpOptions::new().with_oauth(config);
        let http = HttpServer::new(listener, server, options).await.unwrap();
        tokio::spawn(http.into_future());
        Self {
            addr,
            resource,
            key,
            ledger,
            approvals,
            audit,
        }
    }

    /// An access token of `subject`.
    fn token(&self, subject: &str) -> String {
        let claims = json!({
            "iss": ISSUER, "aud": self.resource, "sub": subject, "client_id": "client-7",
            "scope": "tools:core_agent", "iat": now(), "exp": now() + 300,
        });
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some("key-1".to_string());
        encode(&header, &claims, &self.key).unwrap()
    }

    /// A stateless 2026-07-28 `tools/call` of AppendEntry with `token`, `more` merged
    /// into its params: the JSON-RPC answer.
    async fn append(&self, token: &str, entry: &str, more: Value) -> Value {
        let mut params = json!({
            "name": "AppendEntry",
            "arguments": { "entry": entry },
            "_meta": Client::new("approvals-http")
                .version("1")
                .capabilities(json!({ "elicitation": {} }))
                .stateless_meta(),
        });
        if let (Some(params), Value::Object(more)) = (params.as_object_mut(), more) {
            params.extend(more);
        }
        let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params });
        let bearer = format!("Bearer {token}");
        let headers = [
            ("authorization", bearer.as_str()),
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "AppendEntry"),
        ];
        let (status, _, text) =
            http::exchange(self.addr, Method::POST, "/mcp", &headers, Some(&body)).await;
        let answer = http::message(&text);
        assert!(!answer.is_null(), "{status}: {text}");
        answer
    }

    fn entries(&self) -> Vec<String> {
        self.ledger.0.lock().unwrap().clone()
    }
}

/// Whether `answer` refused the call: a JSON-RPC error, or an error result.
fn refused(answer: &Value) -> bool {
    answer.get("error").is_some() || answer["result"]["isError"] == true
}

#[tokio::test]
async fn another_principal_replaying_an_asked_calls_round_is_refused_and_nothing_runs() {
    let host = Host::start().await;
    let (alice, bob) = (host.token("alice"), host.token("bob"));

    let asked = host.append(&alice, "pay 100", json!({})).await;
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    let requests = asked["result"]["inputRequests"].as_object().unwrap();
    let (key, request) = requests.iter().next().unwrap();
    assert_eq!(request["method"], "elicitation/create", "{asked}");
    let state = asked["result"]["requestState"].clone();
    let accept = json!({
        "inputResponses": { key.as_str(): { "action": "accept" } },
        "requestState": state,
    });
    let pending = host.approvals.store().list().unwrap();
    assert_eq!(pending.len(), 1, "{pending:?}");
    assert_eq!(pending[0].principal, "alice");
    assert!(host.entries().is_empty(), "nothing runs before the answer");

    // Bob replays Alice's round, accepting: refused, and nothing runs.
    let replayed = host.append(&bob, "pay 100", accept.clone()).await;
    assert!(refused(&replayed), "refused: {replayed}");
    assert!(host.entries().is_empty(), "Bob's replay ran the call");
    let calls = host.approvals.store().list().unwrap();
    assert!(
        calls
            .iter()
            .all(|call| call.state == ApprovalState::Pending),
        "Bob's replay decided a call: {calls:?}"
    );

    // Alice's own answer runs the call once.
    let accepted = host.append(&alice, "pay 100", accept.clone()).await;
    assert_eq!(accepted["result"]["isError"], false, "{accepted}");
    assert_eq!(host.entries(), ["pay 100"]);
    let approved: Vec<_> = host
        .approvals
        .store()
        .list()
        .unwrap()
        .into_iter()
        .filter(|call| call.state == ApprovalState::Approved)
        .collect();
    assert_eq!(approved.len(), 1, "{approved:?}");
    assert_eq!(approved[0].principal, "alice");
    // Alice's round, replayed by Bob after the call ran, runs nothing more.
    let again = host.append(&bob, "pay 100", accept.clone()).await;
    assert!(refused(&again), "refused: {again}");
    assert_eq!(host.entries(), ["pay 100"]);
    // Nor by Alice herself: the answer was to that approval, which is spent; the same
    // call again is a new approval, and her user is asked anew.
    let replayed_by_alice = host.append(&alice, "pay 100", accept).await;
    assert_eq!(
        replayed_by_alice["result"]["resultType"], "input_required",
        "{replayed_by_alice}"
    );
    assert_eq!(
        host.entries(),
        ["pay 100"],
        "a replayed answer ran the call again"
    );

    let decided: Vec<(String, Option<String>)> = host
        .audit
        .0
        .lock()
        .unwrap()
        .iter()
        .filter(|record| record.decision.as_deref() == Some("approved"))
        .map(|record| (record.principal.clone().unwrap(), record.decided_by.clone()))
        .collect();
    assert_eq!(
        decided,
        [(
            "alice".to_string(),
            Some("mcp-elicitation:alice".to_string())
        )]
    );
}
