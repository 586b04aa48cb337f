//! An asked call over MCP (`holon-tools serve` on stdio, raw JSON-RPC): put to the
//! client's user as an elicitation when the client can ask, under 2025-11-25 (an
//! `elicitation/create` request in the session) and 2026-07-28 (an input round), and
//! the deferred `approval_required` envelope for a client that cannot, which the
//! operator then approves out of band and the server runs when the call is made again. With no policy named, `serve` puts the
//! built-in one between the model and the machine, and says so on start.

use std::process::{Child, ChildStdin};
use std::sync::mpsc::Receiver;
use std::time::Duration;

use serde_json::{Value, json};

use crate::approvals::{ASK_CREATE, CREATE, json_of, with_policy, work_items};
use crate::cli_support::{holon, holon_command};
use crate::serve::{lines, send, spawn, spawn_stdio};

const TIMEOUT: Duration = Duration::from_secs(60);

pub(crate) struct Served {
    child: Child,
    stdin: ChildStdin,
    stdout: Receiver<String>,
    next_id: u64,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Served {
    fn start(workspace: &std::path::Path) -> Self {
        Self::of(spawn(workspace, &[]))
    }

    pub(crate) fn of(mut child: Child) -> Self {
        let stdin = child.stdin.take().unwrap();
        let stdout = lines(child.stdout.take().unwrap());
        Self {
            child,
            stdin,
            stdout,
            next_id: 1,
        }
    }

    /// Starts a 2025-11-25 session of a client of `capabilities`.
    fn session(workspace: &std::path::Path, capabilities: Value) -> Self {
        Self::start(workspace).initialized(capabilities)
    }

    /// This server once a 2025-11-25 session of a client of `capabilities` started.
    pub(crate) fn initialized(mut self, capabilities: Value) -> Self {
        let (_, answer) = self.request(
            "initialize",
            json!({ "protocolVersion": "2025-11-25", "capabilities": capabilities,
                    "clientInfo": { "name": "approvals-test", "version": "1" } }),
            |_| None,
        );
        assert!(answer["result"].is_object(), "{answer}");
        send(
            &mut self.stdin,
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        );
        self
    }

    /// Calls `name` with `arguments`; the answer.
    fn call(&mut self, name: &str, arguments: Value) -> Value {
        let params = json!({ "name": name, "arguments": arguments });
        self.request("tools/call", params, |_| None).1
    }

    /// Sends `method`; the server's requests before the answer (each answered with
    /// what `reply` gives), and the answer.
    pub(crate) fn request(
        &mut self,
        method: &str,
        params: Value,
        reply: impl Fn(&Value) -> Option<Value>,
    ) -> (Vec<Value>, Value) {
        let id = self.next_id;
        self.next_id += 1;
        send(
            &mut self.stdin,
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        );
        let mut asked = Vec::new();
        loop {
            let line = self
                .stdout
                .recv_timeout(TIMEOUT)
                .expect("the server answers");
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id && message.get("method").is_none() {
                return (asked, message);
            }
            if message.get("method").is_some() && message.get("id").is_some() {
                if let Some(result) = reply(&message) {
                    send(
                        &mut self.stdin,
                        &json!({"jsonrpc": "2.0", "id": message["id"], "result": result}),
                    );
                }
                asked.push(message);
            }
        }
    }

    pub(crate) fn create(&mut self, action: &'static str) -> (Vec<Value>, Value) {
        let arguments: Value = serde_json::from_str(CREATE).unwrap();
        self.request(
            "tools/call",
            json!({ "name": "CreateWorkItem", "arguments": arguments }),
            move |request| {
                (request["method"] == "elicitation/create").then(|| json!({ "action": action }))
            },
        )
    }
}

pub(crate) fn error_kind(answer: &Value) -> &str {
    answer["result"]["_meta"]["holon/error"]["kind"]
        .as_str()
        .unwrap_or_else(|| panic!("a typed error: {answer}"))
}

#[test]
fn a_client_that_elicits_accepts_one_asked_call_and_declines_another() {
    let workspace = with_policy(ASK_CREATE);
    let ws = workspace.path();
    let mut served = Served::session(ws, json!({ "elicitation": {} }));

    let (asked, accepted) = served.create("accept");
    assert_eq!(asked.len(), 1, "one question: {asked:?}");
    let message = asked[0]["params"]["message"].as_str().unwrap();
    for shown in [
        "CreateWorkItem",
        "ship",
        "root",
        "work items are the operator's plan",
    ] {
        assert!(message.contains(shown), "{shown} in {message}");
    }
    assert_eq!(accepted["result"]["isError"], false, "{accepted}");
    assert_eq!(
        accepted["result"]["structuredContent"]["work_item"]["objective"], "ship",
        "{accepted}"
    );
    assert_eq!(work_items(ws), 1, "the accepted call ran once");

    let (_, declined) = served.create("decline");
    assert_eq!(declined["result"]["isError"], true, "{declined}");
    assert_eq!(error_kind(&declined), "approval_denied");
    let (_, cancelled) = served.create("cancel");
    assert_eq!(error_kind(&cancelled), "approval_denied");
    assert_eq!(work_items(ws), 1, "the declined calls did not run");
    let pending = json_of(&holon(ws, &["approvals", "list", "--json"]));
    assert_eq!(pending, Value::Array(Vec::new()), "every call was decided");
}

#[test]
fn a_client_without_elicitation_gets_the_deferral_and_the_operator_approves_it() {
    let workspace = with_policy(ASK_CREATE);
    let ws = workspace.path();
    let mut served = Served::session(ws, json!({}));
    let (asked, deferred) = served.create("accept");
    assert!(asked.is_empty(), "nothing asked of the client: {asked:?}");
    let deferral = &deferred["result"]["_meta"]["holon/deferral"];
    assert_eq!(deferral["kind"], "approval_required", "{deferred}");
    assert_eq!(deferral["tool"], "CreateWorkItem", "{deferred}");
    let id = deferral["approval_id"].as_str().unwrap();
    assert_eq!(
        work_items(ws),
        0,
        "nothing runs before the operator decides"
    );

    let approved = holon(ws, &["approvals", "approve", id, "--json"]);
    assert!(approved.status.success(), "{approved:?}");
    assert_eq!(
        work_items(ws),
        0,
        "it runs where it was asked, when made again"
    );
    let (_, ran) = served.create("accept");
    assert_eq!(ran["result"]["isError"], false, "{ran}");
    assert_eq!(work_items(ws), 1);
}

/// The `_meta` of a stateless 2026-07-28 request from a client of `capabilities`.
pub(crate) fn stateless(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": { "name": "approvals-test", "version": "1" }
    })
}

pub(crate) fn call_2026(served: &mut Served, arguments: Value, more: Value) -> Value {
    let mut params = json!({ "name": "CreateWorkItem", "arguments": arguments,
        "_meta": stateless(json!({ "elicitation": {} })) });
    if let (Some(params), Value::Object(more)) = (params.as_object_mut(), more) {
        params.extend(more);
    }
    served.request("tools/call", params, |_| None).1
}

/// The retry of `round` (an `input_required` result asking one question) with `action`
/// as its answer.
pub(crate) fn answer(round: &Value, action: &str) -> Value {
    let requests = round["result"]["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1, "{round}");
    let key = requests.keys().next().unwrap();
    json!({ "inputResponses": { key.as_str(): { "action": action } },
            "requestState": round["result"]["requestState"] })
}

#[test]
fn under_2026_07_28_each_round_of_one_call_is_one_pending_approval() {
    let workspace = with_policy(ASK_CREATE);
    let ws = workspace.path();
    let mut served = Served::start(ws);
    let arguments: Value = serde_json::from_str(CREATE).unwrap();
    let first = call_2026(&mut served, arguments.clone(), json!({}));
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    // The client calls again without an answer: another round of the same call.
    let second = call_2026(
        &mut served,
        arguments.clone(),
        json!({ "requestState": first["result"]["requestState"] }),
    );
    assert_eq!(second["result"]["resultType"], "input_required", "{second}");
    let pending = json_of(&holon(ws, &["approvals", "list", "--json"]));
    assert_eq!(pending.as_array().unwrap().len(), 1, "{pending}");

    assert_eq!(
        first["result"]["inputRequests"], second["result"]["inputRequests"],
        "one question, asked again"
    );
    let accepted = call_2026(&mut served, arguments, answer(&second, "accept"));
    assert_eq!(accepted["result"]["isError"], false, "{accepted}");
    assert_eq!(work_items(ws), 1);
    let pending = json_of(&holon(ws, &["approvals", "list", "--json"]));
    assert_eq!(pending, Value::Array(Vec::new()), "nothing left pending");
    let all = json_of(&holon(ws, &["approvals", "list", "--all", "--json"]));
    let all = all.as_array().unwrap();
    assert_eq!(all.len(), 1, "{all:?}");
    assert_eq!(all[0]["state"], "approved");
}

#[test]
fn under_2026_07_28_the_question_is_a_round_bound_to_the_call() {
    let workspace = with_policy(ASK_CREATE);
    let ws = workspace.path();
    let mut served = Served::start(ws);
    let arguments: Value = serde_json::from_str(CREATE).unwrap();

    let first = call_2026(&mut served, arguments.clone(), json!({}));
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let asked = first["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .values()
        .next()
        .unwrap();
    assert_eq!(asked["method"], "elicitation/create", "{first}");
    assert!(
        asked["params"]["message"]
            .as_str()
            .unwrap()
            .contains("CreateWorkItem"),
        "{first}"
    );
    assert_eq!(work_items(ws), 0);

    // The answer on a call with other arguments does not run either call.
    let mut altered = arguments.clone();
    altered["objective"] = json!("something else");
    let replayed = call_2026(&mut served, altered, answer(&first, "accept"));
    assert!(replayed.get("error").is_some(), "refused: {replayed}");
    assert_eq!(work_items(ws), 0, "the altered call did not run");

    let accepted = call_2026(&mut served, arguments.clone(), answer(&first, "accept"));
    assert_eq!(
        accepted["result"]["structuredContent"]["work_item"]["objective"], "ship",
        "{accepted}"
    );
    assert_eq!(work_items(ws), 1, "the accepted call ran once");
    // The same answer replayed asks anew: that approval is spent.
    let replayed = call_2026(&mut served, arguments.clone(), answer(&first, "accept"));
    assert_eq!(
        replayed["result"]["resultType"], "input_required",
        "{replayed}"
    );
    assert_eq!(work_items(ws), 1, "the replayed answer ran nothing");

    let again = call_2026(&mut served, arguments.clone(), json!({}));
    let declined = call_2026(&mut served, arguments, answer(&again, "decline"));
    assert_eq!(error_kind(&declined), "approval_denied", "{declined}");
    assert_eq!(work_items(ws), 1, "the declined call did not run");
}

/// `holon-tools GLOBAL... serve` on stdio in a session of a client without
/// elicitation, and the first line of its stderr.
fn serve_stdio_with(workspace: &std::path::Path, global: &[&str]) -> (Served, String) {
    let mut command = holon_command(workspace);
    command.args(global).arg("serve");
    let mut child = spawn_stdio(command);
    let stderr = lines(child.stderr.take().unwrap());
    let served = Served::of(child).initialized(json!({}));
    let line = stderr.recv_timeout(TIMEOUT).expect("the policy line");
    (served, line)
}

/// The paths of the bound workspaces.
fn bound_workspaces(served: &mut Served) -> Vec<String> {
    let state = served.call("GetWorkspaceState", json!({}));
    state["result"]["structuredContent"]["workspaces"]
        .as_array()
        .unwrap_or_else(|| panic!("the workspaces: {state}"))
        .iter()
        .map(|workspace| workspace["path"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn serve_with_no_policy_named_asks_before_commands_and_attachments() {
    let workspace = tempfile::tempdir().unwrap();
    let ws = workspace.path();
    let elsewhere = tempfile::tempdir().unwrap();
    let (mut served, line) = serve_stdio_with(ws, &[]);
    assert!(
        line.starts_with("holon-tools serve: approval policy: builtin (the default"),
        "{line}"
    );

    let ran = ws.join("ran");
    let command = served.call(
        "ExecCommand",
        json!({ "cmd": format!("touch {}", ran.display()) }),
    );
    let deferral = &command["result"]["_meta"]["holon/deferral"];
    assert_eq!(deferral["kind"], "approval_required", "{command}");
    assert_eq!(deferral["tool"], "ExecCommand", "{command}");
    let attach = served.call(
        "AttachWorkspace",
        json!({ "path": elsewhere.path().to_str().unwrap() }),
    );
    let deferral = &attach["result"]["_meta"]["holon/deferral"];
    assert_eq!(deferral["kind"], "approval_required", "{attach}");
    assert_eq!(deferral["tool"], "AttachWorkspace", "{attach}");

    assert!(!ran.exists(), "the asked command did not run");
    assert_eq!(bound_workspaces(&mut served).len(), 1, "only home is bound");
    let pending = json_of(&holon(ws, &["approvals", "list", "--json"]));
    assert_eq!(pending.as_array().map(Vec::len), Some(2), "{pending}");
}

#[test]
fn serve_with_policy_none_runs_commands_and_attachments_unasked() {
    let workspace = tempfile::tempdir().unwrap();
    let ws = workspace.path();
    let elsewhere = tempfile::tempdir().unwrap();
    let (mut served, line) = serve_stdio_with(ws, &["--policy", "none"]);
    assert_eq!(
        line,
        "holon-tools serve: approval policy: none (--policy none): every call runs without asking"
    );

    let ran = ws.join("ran");
    let command = served.call(
        "ExecCommand",
        json!({ "cmd": format!("touch {}", ran.display()) }),
    );
    assert_eq!(command["result"]["isError"], false, "{command}");
    assert!(
        command["result"]["_meta"].get("holon/deferral").is_none(),
        "{command}"
    );
    assert!(ran.exists(), "the command ran");
    let attach = served.call(
        "AttachWorkspace",
        json!({ "path": elsewhere.path().to_str().unwrap() }),
    );
    assert_eq!(attach["result"]["isError"], false, "{attach}");
    assert_eq!(
        bound_workspaces(&mut served).len(),
        2,
        "home and the attached one"
    );
}

#[test]
fn serve_names_the_state_directorys_policy_when_it_applies() {
    let workspace = with_policy(ASK_CREATE);
    let (_served, line) = serve_stdio_with(workspace.path(), &[]);
    assert!(
        line.starts_with("holon-tools serve: approval policy: "),
        "{line}"
    );
    assert!(
        line.ends_with("policy.toml (the state directory's)"),
        "{line}"
    );
}
