//! Command tasks belong to who started them, over streamable HTTP with OAuth: a
//! `holon-tools serve --http` checking tokens signed here, for two subjects.

use std::path::Path;
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, EncodingKey, Header, encode};
use p256::elliptic_curve::Generate;
use p256::pkcs8::EncodePrivateKey;
use serde_json::{Value, json};

use crate::cli_support::holon_command;
use crate::serve::{Server, TOKEN, bearer, http, post_initialize, session_id, start_http};

const RESOURCE: &str = "https://mcp.test/mcp";
const ISSUER: &str = "https://auth.test";

/// A server checking tokens of a key made here, and that key.
struct OAuthServer {
    _server: Server,
    authority: String,
    key: EncodingKey,
}

impl OAuthServer {
    /// `holon-tools serve --http` on `workspace`, with no approval policy, accepting
    /// tokens signed by a fresh key, and `static_token` when one is given.
    fn start(workspace: &Path, static_token: Option<&str>) -> Self {
        let secret = p256::SecretKey::generate();
        let key = EncodingKey::from_ec_der(secret.to_pkcs8_der().unwrap().as_bytes());
        let mut jwk = Jwk::from_encoding_key(&key, Algorithm::ES256).unwrap();
        jwk.common.key_id = Some("key-1".into());
        let jwks = workspace.join("jwks.json");
        std::fs::write(
            &jwks,
            serde_json::to_vec(&JwkSet { keys: vec![jwk] }).unwrap(),
        )
        .unwrap();
        let mut command = holon_command(workspace);
        match static_token {
            Some(token) => command.env("HOLON_MCP_TOKEN", token),
            None => command.env_remove("HOLON_MCP_TOKEN"),
        };
        command
            .args(["--policy", "none", "serve", "--http", "127.0.0.1:0"])
            .args(["--oauth-resource", RESOURCE, "--oauth-issuer", ISSUER])
            .arg("--oauth-jwks-file")
            .arg(&jwks);
        let (server, authority, _) = start_http(command);
        Self {
            _server: server,
            authority,
            key,
        }
    }

    /// A token of the subject `subject` granting `scope`.
    fn token(&self, subject: &str, scope: &str) -> String {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        let claims = json!({
            "iss": ISSUER, "aud": RESOURCE, "sub": subject, "scope": scope,
            "iat": now, "exp": now + 600,
        });
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some("key-1".into());
        encode(&header, &claims, &self.key).unwrap()
    }

    /// A session opened with `token`.
    fn session(&self, token: &str) -> Caller<'_> {
        let reply = post_initialize(&self.authority, &[bearer(token)]);
        assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
        let caller = Caller {
            server: self,
            token: token.to_string(),
            session: session_id(&reply),
        };
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let reply = caller.post(&initialized);
        assert!(reply.starts_with("HTTP/1.1 202"), "{reply}");
        caller
    }
}

/// One client's session, with its token.
struct Caller<'a> {
    server: &'a OAuthServer,
    token: String,
    session: String,
}

impl Caller<'_> {
    /// POSTs `message` in the session: the raw reply.
    fn post(&self, message: &Value) -> String {
        let authority = &self.server.authority;
        let body = message.to_string();
        http(
            authority,
            &format!(
                "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
                 Accept: application/json, text/event-stream\r\n{}\r\nMcp-Session-Id: {}\r\n\
                 Mcp-Protocol-Version: 2025-11-25\r\nContent-Length: {}\r\n\
                 Connection: close\r\n\r\n{body}",
                bearer(&self.token),
                self.session,
                body.len()
            ),
        )
    }

    /// `tools/call` of `tool` with `arguments`: the raw reply.
    fn call_raw(&self, tool: &str, arguments: Value) -> String {
        self.post(&json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                          "params": {"name": tool, "arguments": arguments}}))
    }

    /// `tools/call` of `tool` with `arguments`: its result.
    fn call(&self, tool: &str, arguments: Value) -> Value {
        let reply = self.call_raw(tool, arguments);
        let answer: Value = reply
            .lines()
            .find_map(|line| {
                line.strip_prefix("data: ")
                    .filter(|data| data.contains("\"id\""))
            })
            .and_then(|data| serde_json::from_str(data).ok())
            .unwrap_or_else(|| panic!("no JSON-RPC answer in {reply}"));
        answer["result"].clone()
    }

    /// Starts an interactive `sh` as a background command task: its id.
    fn start_shell(&self) -> String {
        let started = self.call(
            "ExecCommand",
            json!({"cmd": "sh", "accepts_input": true, "yield_time_ms": 0}),
        );
        assert_eq!(started["isError"], false, "{started}");
        started["structuredContent"]["task_handle"]["task_id"]
            .as_str()
            .unwrap()
            .to_string()
    }
}

/// The typed error of a failed result, with `task_id` replaced by `ID`.
fn error_of(result: &Value, task_id: &str) -> Value {
    assert_eq!(result["isError"], true, "{result}");
    let error = serde_json::to_string(&result["_meta"]["holon/error"]).unwrap();
    serde_json::from_str(&error.replace(task_id, "ID")).unwrap()
}

#[test]
fn a_token_of_another_subject_cannot_see_read_type_into_or_stop_a_task() {
    let workspace = tempfile::tempdir().unwrap();
    let server = OAuthServer::start(workspace.path(), None);
    let alice = server.session(&server.token("alice", "tools:core_agent tools:local_environment"));
    let task_id = alice.start_shell();

    // Mallory's token grants the task tools only: ExecCommand is refused...
    let mallory = server.session(&server.token("mallory", "tools:core_agent"));
    let refused = mallory.call_raw("ExecCommand", json!({"cmd": "id"}));
    assert!(refused.starts_with("HTTP/1.1 403"), "{refused}");
    // ...and alice's task is not there for it.
    let listed = mallory.call("ListTasks", json!({}));
    assert_eq!(listed["structuredContent"]["tasks"], json!([]), "{listed}");
    assert_eq!(listed["structuredContent"]["total_count"], 0, "{listed}");
    let pwned = workspace.path().join("pwned");
    let typed = format!("touch {}\n", pwned.display());
    for (tool, extra) in [
        ("TaskOutput", json!({"block": false})),
        ("TaskInput", json!({"input": typed})),
        ("TaskStop", json!({})),
        ("TaskStatus", json!({})),
    ] {
        let with_id = |id: &str| {
            let mut arguments = extra.clone();
            arguments["task_id"] = json!(id);
            arguments
        };
        let theirs = error_of(&mallory.call(tool, with_id(&task_id)), &task_id);
        assert_eq!(theirs["kind"], "unknown_task", "{tool}: {theirs}");
        let missing = error_of(&mallory.call(tool, with_id("task-999999")), "task-999999");
        assert_eq!(theirs, missing, "{tool}: the answer tells the two apart");
    }

    // Alice's own token without local_environment reads her task but cannot type
    // into it.
    let alice_core = server.session(&server.token("alice", "tools:core_agent"));
    let listed = alice_core.call("ListTasks", json!({}));
    assert_eq!(listed["structuredContent"]["total_count"], 1, "{listed}");
    let refused = alice_core.call("TaskInput", json!({"task_id": task_id, "input": typed}));
    assert_eq!(
        error_of(&refused, &task_id)["kind"],
        "family_not_allowed",
        "{refused}"
    );

    // The shell still runs and none of that input reached it: what alice types now
    // is the first thing it runs.
    let marker = workspace.path().join("alice");
    let sent = alice.call(
        "TaskInput",
        json!({"task_id": task_id, "input": format!("touch {}\n", marker.display())}),
    );
    assert_eq!(sent["structuredContent"]["accepted_input"], true, "{sent}");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !marker.exists() {
        assert!(
            Instant::now() < deadline,
            "alice's shell never ran her line"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !pwned.exists(),
        "another subject's input ran in alice's shell"
    );
    let status = alice.call("TaskStatus", json!({"task_id": task_id}));
    assert_eq!(
        status["structuredContent"]["task"]["status"], "running",
        "{status}"
    );
    let stopped = alice.call("TaskStop", json!({"task_id": task_id}));
    assert_eq!(stopped["structuredContent"]["stopped"], true, "{stopped}");
}

#[test]
fn an_oauth_subject_named_like_the_static_token_is_not_its_holder() {
    let workspace = tempfile::tempdir().unwrap();
    let server = OAuthServer::start(workspace.path(), Some(TOKEN));
    let holder = server.session(TOKEN);
    let task_id = holder.start_shell();

    // A token whose subject is the static token's principal is refused outright, so
    // it reaches neither the holder's tasks nor its approvals.
    let impostor = server.token("static-bearer-token", "tools:core_agent");
    let refused = post_initialize(&server.authority, &[bearer(&impostor)]);
    assert!(refused.starts_with("HTTP/1.1 401"), "{refused}");
    assert!(refused.contains("invalid_token"), "{refused}");
    assert!(refused.contains("reserved"), "{refused}");

    // Another subject still works, and the holder still has its task.
    let alice = server.session(&server.token("alice", "tools:core_agent"));
    let listed = alice.call("ListTasks", json!({}));
    assert_eq!(listed["structuredContent"]["total_count"], 0, "{listed}");
    let listed = holder.call("ListTasks", json!({}));
    assert_eq!(listed["structuredContent"]["total_count"], 1, "{listed}");
    let stopped = holder.call("TaskStop", json!({"task_id": task_id}));
    assert_eq!(stopped["structuredContent"]["stopped"], true, "{stopped}");
}

#[test]
fn an_oauth_subject_named_root_is_not_the_local_operator() {
    let workspace = tempfile::tempdir().unwrap();
    let server = OAuthServer::start(workspace.path(), None);
    // Local `call` and `session` act as the root agent, `root`: a token of that subject
    // would share their tasks and approvals, so it is refused outright.
    let impostor = server.token("root", "tools:core_agent");
    let refused = post_initialize(&server.authority, &[bearer(&impostor)]);
    assert!(refused.starts_with("HTTP/1.1 401"), "{refused}");
    assert!(refused.contains("invalid_token"), "{refused}");
    assert!(refused.contains("reserved"), "{refused}");

    let alice = server.session(&server.token("alice", "tools:core_agent"));
    let listed = alice.call("ListTasks", json!({}));
    assert_eq!(listed["structuredContent"]["total_count"], 0, "{listed}");
}
